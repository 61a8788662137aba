//! The `inspect` reader (`docs/formats.md`, `inspect`), rule for rule as
//! `wavemetrics/readers/inspect_log.py`: Inspect AI eval logs, a `.json` document (or
//! one per line) or a `.eval` zip archive; each sample a session `<eval_id>/<id>/<epoch>`
//! with lane `main` and one lane per agent span with calls, tool events as calls, the
//! tool events after a lane's `model` event one batch.
//!
//! Documents are split and walked by `documents` without holding one: each sample of
//! the top-level `samples` list is read alone when met (its text then dropped), and
//! undone when the document does not parse or a later `samples` key replaces the list
//! (the last key wins). An archive is opened with the `zip` crate; each `samples/`
//! member is decompressed into a buffer (at most `--max-document-bytes`, as Python
//! reads it) and read as one sample.
//!
//! Declined to Python (`Unsupported`, the unit is read by `inspect_log.py`): what
//! `documents` declines; a document whose `eval` key follows its walked `samples` (the
//! eval id must be known when a sample is met; Inspect writes `eval` first); and any
//! archive that is not plainly readable: one the crate cannot open, a member it
//! cannot read, a member stored otherwise than stored or deflated, encrypted, with a
//! name the local header does not repeat, overlapping the next, whose size is not the
//! size it declares, past the byte limit, or whose JSON fails where Python's
//! `json.loads` may differ (`NaN`, `Infinity`), and an archive
//! whose central directory holds a name twice (the crate keeps one).

use super::documents::{declined, read_documents, validate, Part, Reading, Visit};
use super::lines::{for_each_object_line, int_too_long, json_failure};
use super::protocol::{with_fallback, Failure, LaneOut, Reader, Unit, UnitOut};
use super::spans::json_lines;
use crate::account::LineAccount;
use crate::activity::Timing;
use crate::io::open_plain;
use crate::json::{has_control, Raw, Scan, SyntaxError, Val, MAX_JSON_DEPTH};
use crate::summary::{BatchKey, LaneStream, Settings};
use crate::time::iso_to_ms;
use hashbrown::{HashMap, HashSet};
use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::rc::Rc;

const MAIN: &str = "main";
const ZIP_MAGIC: &[u8; 4] = b"PK\x03\x04";
/// `--max-document-bytes` by default (256 MiB): the native engine reads with the
/// default limits only.
const MAX_DOCUMENT_BYTES: u64 = 256 << 20;
const HEADERS: [&str; 2] = ["header.json", "_journal/start.json"];

/// The keys of an event the rules read, by index.
const EVENT_KEYS: [&[u8]; 10] = [
    b"event",
    b"id",
    b"parent_id",
    b"type",
    b"name",
    b"span_id",
    b"function",
    b"timestamp",
    b"completed",
    b"events",
];
const KIND: usize = 0;
const ID: usize = 1;
const PARENT_ID: usize = 2;
const TYPE: usize = 3;
const NAME: usize = 4;
const SPAN_ID: usize = 5;
const FUNCTION: usize = 6;
const TIMESTAMP: usize = 7;
const COMPLETED: usize = 8;
const EVENTS: usize = 9;

/// An event's fields (the last of each key); `None` for an element that is no object.
type Fields<'a> = Option<[Option<Raw<'a>>; 10]>;

/// `usable_text`: a non-empty string UTF-8 can encode.
fn text_of(raw: Option<Raw<'_>>) -> Option<Cow<'_, str>> {
    match Val::of(raw?) {
        Val::Text(text) if !text.is_empty() => Some(Cow::Borrowed(text)),
        value @ Val::Str(_) => value.usable_text().map(|t| Cow::Owned(t.to_string())),
        _ => None,
    }
}

/// `usable_id`: usable text without a control character.
fn id_of(raw: Option<Raw<'_>>) -> Option<Cow<'_, str>> {
    text_of(raw).filter(|text| !has_control(text.as_bytes()))
}

/// Whether the value is the string `text`.
fn is_str(raw: Option<Raw<'_>>, text: &[u8]) -> bool {
    raw.is_some_and(|raw| Val::of(raw).str_bytes() == Some(text))
}

/// A JSON int literal as Python's `str(int)` writes it (`-0` is `0`); `None` for
/// any other value.
fn int_text(raw: Option<Raw<'_>>) -> Option<String> {
    let text = raw?.get();
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(if digits == "0" { "0" } else { text }.to_string())
}

/// The eval id samples are filed under.
#[derive(Clone, Debug, PartialEq)]
enum EvalId {
    /// None usable: the file name stands in.
    Fallback,
    /// Present but refused (`BAD_EVAL_ID`): the samples are `invalid_id` problems.
    Bad,
    Id(String),
}

/// `_eval_id` of a document's (or header member's) `eval` value.
fn eval_id(raw: Option<Raw<'_>>) -> EvalId {
    let Some(raw) = raw else {
        return EvalId::Fallback;
    };
    if !raw.get().starts_with('{') {
        return EvalId::Fallback;
    }
    let mut found = None;
    let parsed = Scan::new(raw.get()).object(1, |scan, key| {
        if key == b"eval_id" {
            found = Some(scan.raw(1)?);
        } else {
            scan.skip(1)?;
        }
        Ok(())
    });
    if parsed.is_err() {
        return EvalId::Fallback; // unreachable: the text was validated
    }
    let Some(value) = found else {
        return EvalId::Fallback;
    };
    if Val::of(value).bad_id() {
        return EvalId::Bad;
    }
    id_of(Some(value)).map_or(EvalId::Fallback, |id| EvalId::Id(id.into_owned()))
}

/// A sample's `events` so far (the last key wins).
enum Events<'a> {
    Missing,
    NotList,
    List(Vec<Fields<'a>>),
}

/// What one sample value holds.
struct Sample<'a> {
    object: bool,
    id: Option<Raw<'a>>,
    epoch: Option<Raw<'a>>,
    events: Events<'a>,
}

/// One event value, `depth` containers deep.
fn event_value<'a>(scan: &mut Scan<'a>, depth: usize) -> Result<Fields<'a>, SyntaxError> {
    if scan.space() != Some(b'{') {
        scan.skip(depth)?;
        return Ok(None);
    }
    let mut fields: [Option<Raw<'a>>; 10] = Default::default();
    scan.object(depth + 1, |scan, key| {
        match EVENT_KEYS.iter().position(|k| *k == key) {
            Some(i) => fields[i] = Some(scan.raw(depth + 1)?),
            None => scan.skip(depth + 1)?,
        }
        Ok(())
    })?;
    Ok(Some(fields))
}

/// One sample value, `depth` containers deep, read in one pass (its events kept as
/// the fields the rules read).
fn sample_value<'a>(scan: &mut Scan<'a>, depth: usize) -> Result<Sample<'a>, SyntaxError> {
    let mut sample = Sample {
        object: false,
        id: None,
        epoch: None,
        events: Events::Missing,
    };
    if scan.space() != Some(b'{') {
        scan.skip(depth)?;
        return Ok(sample);
    }
    sample.object = true;
    let inner = depth + 1;
    scan.object(inner, |scan, key| {
        match key {
            b"id" => sample.id = Some(scan.raw(inner)?),
            b"epoch" => sample.epoch = Some(scan.raw(inner)?),
            b"events" => match scan.space() {
                Some(b'[') => {
                    let mut events = Vec::new();
                    scan.array(inner + 1, |scan| {
                        events.push(event_value(scan, inner + 1)?);
                        Ok(())
                    })?;
                    sample.events = Events::List(events);
                }
                Some(b'n') => {
                    scan.skip(inner)?;
                    sample.events = Events::Missing; // `null`: as if absent
                }
                _ => {
                    scan.skip(inner)?;
                    sample.events = Events::NotList;
                }
            },
            _ => scan.skip(inner)?,
        }
        Ok(())
    })?;
    Ok(sample)
}

/// The sample text `text`, `depth` containers deep, in full: its value.
fn sample_of(text: &str, depth: usize) -> Result<Sample<'_>, SyntaxError> {
    let mut scan = Scan::within(text, MAX_JSON_DEPTH);
    let sample = sample_value(&mut scan, depth)?;
    if scan.space().is_some() {
        return Err(SyntaxError);
    }
    Ok(sample)
}

/// `_sample_key`: the id and epoch as the session id writes them.
fn sample_key(sample: &Sample<'_>) -> Option<(String, String)> {
    let epoch = int_text(sample.epoch)?;
    let id = match int_text(sample.id) {
        Some(id) => id,
        None => id_of(sample.id)?.into_owned(),
    };
    Some((id, epoch))
}

/// `_nested_tool_events`: the tool events under an event's `events`, at any depth.
fn nested_tool_events(raw: Option<Raw<'_>>) -> u64 {
    let mut count = 0;
    let mut stack = vec![raw];
    while let Some(raw) = stack.pop() {
        let Some(raw) = raw.filter(|r| r.get().starts_with('[')) else {
            continue;
        };
        let _ = Scan::new(raw.get()).array(1, |scan| {
            if scan.space() != Some(b'{') {
                return scan.skip(1);
            }
            let (mut kind, mut events) = (None, None);
            scan.object(2, |scan, key| {
                match key {
                    b"event" => kind = Some(scan.raw(2)?),
                    b"events" => events = Some(scan.raw(2)?),
                    _ => scan.skip(2)?,
                }
                Ok(())
            })?;
            count += u64::from(is_str(kind, b"tool"));
            stack.push(events);
            Ok(())
        });
    }
    count
}

/// The `span_begin` events of one sample (`_AgentSpans`): parents, and the lane of
/// each agent span (ids borrowed from the sample's text where they have no escape).
#[derive(Default)]
struct AgentSpans<'a> {
    parents: HashMap<Cow<'a, str>, Option<Cow<'a, str>>>,
    lanes: HashMap<Cow<'a, str>, String>,
}

impl<'a> AgentSpans<'a> {
    fn of(events: &[Fields<'a>]) -> AgentSpans<'a> {
        let mut spans = AgentSpans::default();
        let mut names: Vec<(Cow<'a, str>, Cow<'a, str>)> = Vec::new();
        for fields in events.iter().flatten() {
            if !is_str(fields[KIND], b"span_begin") {
                continue;
            }
            let Some(span_id) = text_of(fields[ID]) else {
                continue;
            };
            if spans.parents.contains_key(&span_id) {
                continue;
            }
            spans
                .parents
                .insert(span_id.clone(), text_of(fields[PARENT_ID]));
            if is_str(fields[TYPE], b"agent") {
                let name = text_of(fields[NAME]).unwrap_or_else(|| span_id.clone());
                names.push((span_id, name));
            }
        }
        let mut shared: HashMap<&str, usize> = HashMap::new();
        for (_, name) in &names {
            *shared.entry(name).or_default() += 1;
        }
        let lanes: Vec<(Cow<'a, str>, String)> = names
            .iter()
            .map(|(span_id, name)| {
                let lane = if shared[&**name] == 1 {
                    name.to_string()
                } else {
                    format!("{name}#{span_id}")
                };
                (span_id.clone(), lane)
            })
            .collect();
        spans.lanes.extend(lanes);
        spans
    }

    /// `lane_of`: the innermost agent span around the event, else `main`.
    fn lane_of<'s>(&'s self, fields: &[Option<Raw<'_>>; 10], open: &[Cow<'_, str>]) -> &'s str {
        if let Some(span_id) = text_of(fields[SPAN_ID]) {
            if let Some((first, _)) = self.parents.get_key_value(&*span_id) {
                // up the parents until a span is seen again: a path that repeats no span
                // holds at most every span and one id that is none
                let mut node: Option<&str> = Some(first);
                for _ in 0..=self.parents.len() {
                    let Some(at) = node else {
                        break;
                    };
                    if let Some(lane) = self.lanes.get(at) {
                        return lane;
                    }
                    node = self.parents.get(at).and_then(|p| p.as_deref());
                }
                return MAIN;
            }
        }
        for node in open.iter().rev() {
            if let Some(lane) = self.lanes.get(&**node) {
                return lane;
            }
        }
        MAIN
    }
}

/// `_track_span`: the spans open at this point of the event list.
fn track_span<'a>(fields: &[Option<Raw<'a>>; 10], begin: bool, open: &mut Vec<Cow<'a, str>>) {
    let Some(span_id) = text_of(fields[ID]) else {
        return;
    };
    if begin {
        open.push(span_id);
    } else if let Some(at) = open.iter().position(|s| *s == span_id) {
        open.truncate(at);
    }
}

/// One call of a tool event.
struct Call {
    id: Rc<str>,
    name: Rc<str>,
    start: f64,
    end: Option<f64>,
    batch: Option<BatchKey>,
}

/// `_tool_call`: the call of a tool event, `None` (and a count) for an unusable or
/// repeated one.
fn tool_call(
    fields: &[Option<Raw<'_>>; 10],
    seen: &mut HashSet<Rc<str>>,
    account: &mut LineAccount,
    batch: Option<BatchKey>,
) -> Option<Call> {
    let (Some(id), Some(name)) = (id_of(fields[ID]), text_of(fields[FUNCTION])) else {
        account.problem("invalid_tool_record");
        return None;
    };
    let time = |raw: Option<Raw<'_>>| {
        let value = Val::of(raw?);
        iso_to_ms(value.str_bytes()?)
    };
    let start = time(fields[TIMESTAMP]);
    let completed = fields[COMPLETED].filter(|raw| raw.get() != "null");
    let end = time(completed);
    let Some(start) = start.filter(|_| completed.is_none() || end.is_some()) else {
        account.problem("invalid_timestamp");
        return None;
    };
    if seen.contains(&*id) {
        account.ignore(b"repeated_tool_event");
        return None;
    }
    let id: Rc<str> = id.into();
    seen.insert(id.clone());
    account.use_line();
    Some(Call {
        id,
        name: name.into(),
        start,
        end,
        batch,
    })
}

/// The lanes of one input (`_Log`): per sample session, `main` and one per agent span
/// with calls, each fed and summarised when its sample is read.
struct Log<'s> {
    settings: &'s Settings,
    eval_names: Rc<[String]>,
    batchable_names: Rc<[String]>,
    fallback: &'s str,
    lanes: Vec<LaneOut>,
    /// The sessions seen, in order (a rewind forgets the last ones).
    sessions: Vec<String>,
    seen: HashSet<String>,
}

impl Log<'_> {
    /// Forgets the lanes and sessions past `lanes` and `sessions`.
    fn truncate(&mut self, lanes: usize, sessions: usize) {
        self.lanes.truncate(lanes);
        for session in self.sessions.drain(sessions..) {
            self.seen.remove(&session);
        }
    }

    fn lane(&mut self, session: &str, lane: &str, mut calls: Vec<Call>) -> Result<(), Failure> {
        calls.sort_by(|a, b| {
            a.start
                .partial_cmp(&b.start)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let mut stream = LaneStream::new(
            self.settings,
            self.eval_names.clone(),
            self.batchable_names.clone(),
        );
        for call in calls {
            stream.start(call.id.clone(), call.name, call.start, call.batch);
            if let Some(end) = call.end {
                stream.end(&call.id, end)?;
            }
        }
        self.lanes.push(LaneOut::new(
            0,
            session.to_string(),
            lane.to_string(),
            stream.finish_lane(0.0, &[], Timing::Execution),
        ));
        Ok(())
    }

    /// `_Log.sample`: account one sample (already counted as one item), feed its calls.
    fn sample(
        &mut self,
        sample: Sample<'_>,
        eval: &EvalId,
        account: &mut LineAccount,
    ) -> Result<(), Failure> {
        let key = if sample.object {
            sample_key(&sample)
        } else {
            None
        };
        let Some((id, epoch)) = key else {
            account.problem("invalid_sample");
            return Ok(());
        };
        let eval_id = match eval {
            EvalId::Bad => {
                account.problem("invalid_id");
                return Ok(());
            }
            EvalId::Fallback => self.fallback,
            EvalId::Id(id) => id.as_str(),
        };
        let session = format!("{eval_id}/{id}/{epoch}");
        if self.seen.contains(&session) {
            account.ignore(b"duplicate_samples");
            return Ok(());
        }
        self.seen.insert(session.clone());
        self.sessions.push(session.clone());
        let events = match sample.events {
            Events::List(events) if !events.is_empty() => events,
            Events::Missing | Events::List(_) => {
                account.ignore(b"no_events");
                return self.lane(&session, MAIN, Vec::new());
            }
            Events::NotList => {
                account.problem("invalid_structure");
                return self.lane(&session, MAIN, Vec::new());
            }
        };
        account.lines_read += events.len() as u64 - 1;
        let agents = AgentSpans::of(&events);
        let mut open: Vec<Cow<'_, str>> = Vec::new();
        let mut lanes: Vec<(String, Vec<Call>)> = vec![(MAIN.to_string(), Vec::new())];
        let mut seen_ids: HashSet<Rc<str>> = HashSet::new();
        let mut batches: HashMap<String, BatchKey> = HashMap::new();
        for (index, fields) in events.iter().enumerate() {
            let Some(fields) = fields else {
                account.problem("not_an_object");
                continue;
            };
            let kind = fields[KIND].map(Val::of);
            let Some(kind) = kind.as_ref().and_then(Val::str_bytes) else {
                account.problem("missing_type");
                continue;
            };
            let nested = nested_tool_events(fields[EVENTS]);
            if nested > 0 {
                account.note("nested_tool_events", nested);
            }
            if kind == b"span_begin" || kind == b"span_end" {
                track_span(fields, kind == b"span_begin", &mut open);
            }
            if kind == b"model" {
                let lane = agents.lane_of(fields, &open).to_string();
                batches.insert(lane, index.to_string().as_bytes().into());
            }
            if kind != b"tool" {
                account.ignore(kind);
                continue;
            }
            let lane = agents.lane_of(fields, &open);
            let batch = batches.get(lane).cloned();
            if let Some(call) = tool_call(fields, &mut seen_ids, account, batch) {
                match lanes.iter_mut().find(|(id, _)| id == lane) {
                    Some((_, calls)) => calls.push(call),
                    None => lanes.push((lane.to_string(), vec![call])),
                }
            }
        }
        for (lane, calls) in lanes {
            self.lane(&session, &lane, calls)?;
        }
        Ok(())
    }

    /// The samples of a `samples` list value (a line's), each read and accounted;
    /// whether the list holds any.
    fn samples(
        &mut self,
        list: Raw<'_>,
        eval: &EvalId,
        account: &mut LineAccount,
    ) -> Result<u64, Failure> {
        let mut texts = Vec::new();
        let _ = Scan::new(list.get()).array(1, |scan| {
            texts.push(scan.raw(1)?);
            Ok(())
        });
        for raw in &texts {
            let sample = sample_of(raw.get(), 1).map_err(|_| declined())?;
            self.sample(sample, eval, account)?;
        }
        Ok(texts.len() as u64)
    }
}

/// What one document's walk has found so far.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Top {
    Array,
    Object,
    Scalar,
}

/// A document's `samples` so far (the last key wins).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Samples {
    /// Missing or `null`.
    Missing,
    NotList,
    /// A walked list, with how many samples it held (each read when met).
    List(u64),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Samples,
    Eval,
    Other,
}

/// The reader of one document at a time, shown its parts by `documents`.
struct DocumentReader<'l, 's> {
    log: &'l mut Log<'s>,
    account: &'l mut LineAccount,
    /// The account, lanes and sessions before the document.
    before: (LineAccount, usize, usize),
    top: Top,
    samples: Samples,
    eval: EvalId,
    key: Key,
    /// The document's last `eval` key follows its walked `samples`.
    eval_late: bool,
    /// A document that parsed had a late `eval`: the input is Python's to read.
    declined: bool,
    failure: Option<Failure>,
}

impl DocumentReader<'_, '_> {
    fn rewind(&mut self) {
        self.account.clone_from(&self.before.0);
        self.log.truncate(self.before.1, self.before.2);
    }
}

impl Visit for DocumentReader<'_, '_> {
    fn walks(&self, key: &[u8]) -> bool {
        key == b"samples"
    }

    fn part(&mut self, part: Part<'_>) -> Result<(), SyntaxError> {
        match part {
            Part::TopArray => self.top = Top::Array,
            Part::TopObject => self.top = Top::Object,
            Part::Key(key) => {
                self.key = match key {
                    b"samples" => Key::Samples,
                    b"eval" => Key::Eval,
                    _ => Key::Other,
                };
                if self.key == Key::Eval && matches!(self.samples, Samples::List(_)) {
                    self.eval_late = true;
                }
            }
            Part::Walked => {
                self.rewind();
                self.samples = Samples::List(0);
                self.eval_late = false;
            }
            Part::Element(text, depth) => {
                if self.top != Top::Object {
                    return validate(text, depth);
                }
                let sample = sample_of(text, depth)?;
                if let Samples::List(count) = &mut self.samples {
                    *count += 1;
                }
                if self.failure.is_none() {
                    if let Err(failure) = self.log.sample(sample, &self.eval, self.account) {
                        self.failure = Some(failure);
                    }
                }
            }
            Part::Value(text, depth) => {
                validate(text, depth)?;
                if depth == 0 {
                    self.top = Top::Scalar;
                } else if self.key == Key::Samples {
                    self.rewind();
                    self.eval_late = false;
                    self.samples = if text == "null" {
                        Samples::Missing
                    } else {
                        Samples::NotList
                    };
                } else if self.key == Key::Eval {
                    let mut scan = Scan::new(text);
                    self.eval = eval_id(scan.raw(1).ok());
                }
            }
        }
        Ok(())
    }
}

impl Reading for DocumentReader<'_, '_> {
    fn begin(&mut self) {
        self.before = (
            self.account.clone(),
            self.log.lanes.len(),
            self.log.sessions.len(),
        );
        self.top = Top::Scalar;
        self.samples = Samples::Missing;
        self.eval = EvalId::Fallback;
        self.key = Key::Other;
        self.eval_late = false;
    }

    fn undo(&mut self) {
        self.rewind();
    }

    fn parsed(&mut self) {
        if self.eval_late {
            self.declined = true;
        }
        match (self.top, self.samples) {
            (Top::Object, Samples::List(count)) if count > 0 => {
                self.account.lines_read += count - 1;
            }
            (Top::Object, Samples::Missing | Samples::List(_)) => {
                self.account.ignore(b"no_samples")
            }
            (Top::Object, Samples::NotList) => self.account.problem("invalid_structure"),
            _ => self.account.problem("not_an_object"),
        }
    }

    fn account(&mut self) -> &mut LineAccount {
        self.account
    }
}

/// A line of JSON Lines (`_Log.document` of an object line), read once it parsed.
fn read_line(
    text: &str,
    log: &mut Log<'_>,
    account: &mut LineAccount,
) -> Result<Option<&'static str>, Failure> {
    let (mut eval, mut samples) = (None, None);
    let scanned = Scan::line_within(text, MAX_JSON_DEPTH, |scan, key| {
        match key {
            b"eval" => eval = Some(scan.raw(1)?),
            b"samples" => samples = Some(scan.raw(1)?),
            _ => scan.skip(1)?,
        }
        Ok(())
    });
    if scanned.is_err() || int_too_long(text.as_bytes()) {
        return Ok(Some(
            json_failure(text, MAX_JSON_DEPTH).unwrap_or("invalid_json"),
        ));
    }
    match samples.map(|raw| raw.get().as_bytes()[0]) {
        None | Some(b'n') => account.ignore(b"no_samples"),
        Some(b'[') => {
            let list = samples.unwrap_or_else(|| unreachable!());
            let eval = eval_id(eval);
            let count = log.samples(list, &eval, account)?;
            if count == 0 {
                account.ignore(b"no_samples");
            } else {
                account.lines_read += count - 1;
            }
        }
        Some(_) => account.problem("invalid_structure"),
    }
    Ok(None)
}

fn read_text(path: &Path, log: &mut Log<'_>, account: &mut LineAccount) -> Result<(), Failure> {
    match json_lines(path)? {
        true => for_each_object_line(
            open_plain(path)?,
            account,
            MAX_JSON_DEPTH,
            |text, account| read_line(text, log, account),
        ),
        false => {
            let mut reader = DocumentReader {
                log,
                account,
                before: (LineAccount::default(), 0, 0),
                top: Top::Scalar,
                samples: Samples::Missing,
                eval: EvalId::Fallback,
                key: Key::Other,
                eval_late: false,
                declined: false,
                failure: None,
            };
            read_documents(open_plain(path)?, &mut reader)?;
            if let Some(failure) = reader.failure.take() {
                return Err(failure);
            }
            if reader.declined {
                return Err(declined());
            }
            Ok(())
        }
    }
}

/// `_parse_member` of a member's bytes: its text, or the problem Python names;
/// `Err` (declined) where Python's `json.loads` may decide otherwise than the scan.
fn member_text(data: &[u8]) -> Result<Result<&str, &'static str>, Failure> {
    let Ok(text) = simdutf8::basic::from_utf8(data) else {
        return Ok(Err("invalid_utf8"));
    };
    let mut scan = Scan::within(text, MAX_JSON_DEPTH);
    let valid = scan.skip(0).is_ok() && scan.space().is_none();
    if !valid {
        // json.loads takes NaN and Infinity, which the scan refuses
        if memchr::memmem::find(data, b"NaN").is_some()
            || memchr::memmem::find(data, b"Infinity").is_some()
        {
            return Err(declined());
        }
        // json's first failure from the left: a syntax error, or a container past
        // the one limit (MAX_JSON_DEPTH)
        return Ok(Err(
            json_failure(text, MAX_JSON_DEPTH).unwrap_or("invalid_json")
        ));
    }
    if int_too_long(data) {
        return Ok(Err("invalid_json"));
    }
    Ok(Ok(text))
}

/// A member's bytes, decompressed and checked; `Err` (declined) for a member Python
/// may read otherwise or not at all, or one past `limit` bytes (the byte limit).
fn member_bytes<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    index: usize,
    entry: &Entry,
    file: &mut File,
    limit: u64,
) -> Result<Vec<u8>, Failure> {
    // stored or deflated; not encrypted, patched or strongly encrypted (Python refuses)
    if !matches!(entry.method, 0 | 8) || entry.flags & 0x61 != 0 {
        return Err(declined());
    }
    let mut member = archive.by_index(index).map_err(|_| declined())?;
    if member.size() > limit {
        return Err(declined());
    }
    let size = member.size();
    let name = entry.name.as_bytes();
    let header = entry.header;
    let mut data = Vec::with_capacity(size as usize);
    (&mut member)
        .take(limit + 1)
        .read_to_end(&mut data)
        .map_err(|_| declined())?;
    if data.len() as u64 != size {
        return Err(declined());
    }
    drop(member);
    // the local header names the member as the directory does (Python checks)
    let mut local = vec![0u8; 30 + name.len()];
    file.seek(SeekFrom::Start(header))?;
    file.read_exact(&mut local).map_err(|_| declined())?;
    let length = u16_at(&local, 26) as usize;
    if &local[..4] != ZIP_MAGIC || length != name.len() || local[30..] != name[..] {
        return Err(declined());
    }
    Ok(data)
}

fn read_archive(path: &Path, log: &mut Log<'_>, account: &mut LineAccount) -> Result<(), Failure> {
    let mut file = File::open(crate::io::opened(path))?;
    let Some(entries) = python_directory(&mut file)? else {
        return Err(declined());
    };
    let mut archive =
        zip::ZipArchive::new(File::open(crate::io::opened(path))?).map_err(|_| declined())?;
    // the crate must list the entries Python lists (it keeps one of a name given twice)
    if archive.len() != entries.len() {
        return Err(declined());
    }
    for (index, entry) in entries.iter().enumerate() {
        let member = archive.by_index_raw(index).map_err(|_| declined())?;
        if member.name() != entry.name || member.header_start() != entry.header {
            return Err(declined());
        }
    }
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let count = names.len();
    let mut eval = EvalId::Fallback;
    for header in HEADERS {
        let Some(index) = names.iter().rposition(|n| *n == header) else {
            continue;
        };
        let data = member_bytes(
            &mut archive,
            index,
            &entries[index],
            &mut file,
            MAX_DOCUMENT_BYTES,
        )?;
        let Ok(text) = member_text(&data)? else {
            continue;
        };
        let mut value = None;
        let mut scan = Scan::new(text);
        if scan.space() == Some(b'{') {
            let _ = scan.object(1, |scan, key| {
                if key == b"eval" {
                    value = Some(scan.raw(1)?);
                } else {
                    scan.skip(1)?;
                }
                Ok(())
            });
        }
        eval = eval_id(value);
        if eval != EvalId::Fallback {
            break;
        }
    }
    let members: Vec<usize> = (0..count)
        .filter(|&i| names[i].starts_with("samples/") && !names[i].ends_with('/'))
        .collect();
    if members.is_empty() {
        account.lines_read += 1;
        account.ignore(b"no_samples");
    }
    for index in members {
        account.lines_read += 1;
        let data = member_bytes(
            &mut archive,
            index,
            &entries[index],
            &mut file,
            MAX_DOCUMENT_BYTES,
        )?;
        match member_text(&data)? {
            Err(reason) => account.problem(reason),
            Ok(text) => {
                let sample = sample_of(text, 0).map_err(|_| declined())?;
                log.sample(sample, &eval, account)?;
            }
        }
    }
    Ok(())
}

/// One entry of the central directory as Python's `zipfile` lists it.
struct Entry {
    name: String,
    flags: u16,
    method: u16,
    /// Where its local header is (prepended data counted).
    header: u64,
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The central directory as `zipfile.ZipFile` reads it (`_EndRecData`,
/// `_RealGetContents`): the end record at the very end, else the last one in the final
/// 64 KiB; entries while the directory's declared size lasts. `None` where Python fails
/// to open the archive or this module does not follow it (zip64 records and fields,
/// version > 6.3, names that are not ASCII unless flagged UTF-8, a NUL in a name).
fn python_directory(file: &mut File) -> io::Result<Option<Vec<Entry>>> {
    const END: usize = 22;
    let size = file.seek(SeekFrom::End(0))?;
    if size < END as u64 {
        return Ok(None);
    }
    let back = size.min((1 << 16) + END as u64);
    let mut tail = vec![0u8; back as usize];
    file.seek(SeekFrom::Start(size - back))?;
    file.read_exact(&mut tail)?;
    let last = tail.len() - END;
    let at = if &tail[last..last + 4] == b"PK\x05\x06" && tail[tail.len() - 2..] == [0, 0] {
        last
    } else {
        match memchr::memmem::rfind(&tail, b"PK\x05\x06") {
            Some(at) if at + END <= tail.len() => at,
            _ => return Ok(None),
        }
    };
    if at >= 20 && &tail[at - 20..at - 16] == b"PK\x06\x07" {
        return Ok(None); // a zip64 end record: read by Python
    }
    let record = &tail[at..at + END];
    let location = size - back + at as u64;
    let size_cd = u64::from(u32_at(record, 12));
    let offset_cd = u64::from(u32_at(record, 16));
    let Some(concat) = location.checked_sub(size_cd + offset_cd) else {
        return Ok(None);
    };
    let mut directory = vec![0u8; size_cd as usize];
    file.seek(SeekFrom::Start(offset_cd + concat))?;
    let mut got = 0;
    while got < directory.len() {
        match file.read(&mut directory[got..])? {
            0 => break,
            n => got += n,
        }
    }
    directory.truncate(got);
    let mut entries = Vec::new();
    let mut total = 0usize;
    while (total as u64) < size_cd {
        let Some(head) = directory.get(total..total + 46) else {
            return Ok(None);
        };
        if &head[..4] != b"PK\x01\x02" || head[6] > 63 {
            return Ok(None);
        }
        let flags = u16_at(head, 8);
        let (name_len, extra_len, comment_len) = (
            u16_at(head, 28) as usize,
            u16_at(head, 30) as usize,
            u16_at(head, 32) as usize,
        );
        let sizes = [u32_at(head, 20), u32_at(head, 24), u32_at(head, 42)];
        let start = total + 46;
        let (Some(name), Some(mut extra)) = (
            directory.get(start..start + name_len),
            directory.get(start + name_len..start + name_len + extra_len),
        ) else {
            return Ok(None);
        };
        let name = match std::str::from_utf8(name) {
            Ok(name) if (flags & 0x800 != 0 || name.is_ascii()) && !name.contains('\0') => name,
            _ => return Ok(None),
        };
        while extra.len() >= 4 {
            let (kind, length) = (u16_at(extra, 0), u16_at(extra, 2) as usize);
            if length + 4 > extra.len() || kind == 1 {
                return Ok(None); // corrupt, or zip64 sizes
            }
            extra = &extra[length + 4..];
        }
        if sizes.contains(&u32::MAX) {
            return Ok(None);
        }
        entries.push(Entry {
            name: name.to_string(),
            flags,
            method: u16_at(head, 10),
            header: u64::from(sizes[2]) + concat,
        });
        total = start + name_len + extra_len + comment_len;
    }
    Ok(Some(entries))
}

fn is_zip(path: &Path) -> Result<bool, Failure> {
    let mut head = [0u8; 4];
    let mut file = File::open(crate::io::opened(path))?;
    let mut got = 0;
    while got < 4 {
        match file.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(got == 4 && &head == ZIP_MAGIC)
}

fn read_once(path: &Path, fallback: &str, settings: &Settings) -> Result<UnitOut, Failure> {
    let mut account = LineAccount::default();
    let mut log = Log {
        settings,
        eval_names: settings.eval_names.clone().into(),
        batchable_names: settings.batchable_names.clone().into(),
        fallback,
        lanes: Vec::new(),
        sessions: Vec::new(),
        seen: HashSet::new(),
    };
    if is_zip(path)? {
        read_archive(path, &mut log, &mut account)?;
    } else {
        read_text(path, &mut log, &mut account)?;
    }
    Ok(UnitOut {
        accounts: vec![account],
        lanes: log.lanes,
        read_again_in_batch: false,
    })
}

/// The `inspect` reader: a unit is one eval log, its session id the eval id that
/// stands in when the log has none (the file stem). A unit of more or fewer than one
/// file is refused (`InvalidInput`); the inputs the module docs name are declined
/// (`Unsupported`).
pub struct Inspect;

impl Reader for Inspect {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        _threads: usize,
    ) -> Result<UnitOut, super::protocol::ReadError> {
        let (path, fallback) = unit.one_file("an inspect")?;
        with_fallback(settings, |s| read_once(path, fallback, s))
    }
}

#[cfg(test)]
mod tests {
    use super::super::protocol::fixtures::{raw, read_lines, read_unit};
    use super::*;

    fn sample(text: &'static str) -> Sample<'static> {
        sample_of(text, 0).unwrap()
    }

    /// The read of a one-file unit holding `text`, as a document: a `{` on a line of
    /// its own, so that it is split and walked (a whole object on its first line would
    /// make the file JSON Lines).
    fn read(text: &str) -> UnitOut {
        let text = match text.strip_prefix('{') {
            Some(rest) if !text.contains('\n') => format!("{{\n{rest}"),
            _ => text.to_string(),
        };
        // a file of its own for each read: the tests run on several threads
        static READS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = READS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        read_lines(&Inspect, &format!("inspect-{n}"), &[&text], "stem")
    }

    /// The read of a one-file unit holding `text`; `None` when declined.
    fn try_read(text: &str) -> Option<UnitOut> {
        let path =
            std::env::temp_dir().join(format!("wm-native-{}-inspect-try.json", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let paths: [&Path; 1] = [&path];
        let ids = ["stem".to_string()];
        let unit = Unit {
            paths: &paths,
            session_ids: &ids,
        };
        let out = Inspect.read(&unit, &super::super::protocol::fixtures::settings(), 1);
        std::fs::remove_file(&path).unwrap();
        out.ok()
    }

    fn ignored(account: &LineAccount) -> Vec<(String, u64)> {
        let mut out: Vec<(String, u64)> = account
            .ignored
            .iter()
            .map(|(k, n)| (String::from_utf8_lossy(k).into_owned(), *n))
            .collect();
        out.sort();
        out
    }

    fn problems(account: &LineAccount) -> Vec<(&'static str, u64)> {
        let mut out = account.problems.clone();
        out.sort();
        out
    }

    fn lanes(out: &UnitOut) -> Vec<(&str, &str, u64)> {
        out.lanes
            .iter()
            .map(|l| {
                (
                    l.session_id.as_str(),
                    l.lane_id.as_str(),
                    l.summary.paired_calls,
                )
            })
            .collect()
    }

    #[test]
    fn text_with_escapes_is_usable_text_unless_a_lone_surrogate() {
        assert_eq!(text_of(raw(r#""\u0068i""#)).as_deref(), Some("hi"));
        assert_eq!(text_of(raw(r#""hi""#)).as_deref(), Some("hi"));
        assert_eq!(text_of(raw(r#""\ud800""#)), None);
        assert_eq!(text_of(raw(r#""""#)), None);
        assert_eq!(text_of(raw("7")), None);
        assert_eq!(id_of(raw(r#""a\u0009""#)), None);
        assert_eq!(id_of(raw(r#""a\u0041""#)).as_deref(), Some("aA"));
    }

    #[test]
    fn a_sample_nests_as_deep_as_a_document_may() {
        // a sample of a document's samples is held by 2 containers: the sample is level
        // 3, its values' arrays from 4, its events' objects 5, their values' arrays from 6
        let limit = MAX_JSON_DEPTH;
        let nest = |k: usize| "[".repeat(k) + &"]".repeat(k);
        let cases: [(&str, usize); 6] = [
            (r#"{"x": @}"#, limit - 3),
            (r#"{"id": @, "epoch": 1}"#, limit - 3),
            (r#"{"events": [@]}"#, limit - 4),
            (r#"{"events": [{"x": @}]}"#, limit - 5),
            (r#"{"events": [{"events": @}]}"#, limit - 5),
            (r#"{"events": @}"#, limit - 3),
        ];
        for (template, deepest) in cases {
            let fits = template.replace('@', &nest(deepest));
            assert!(sample_of(&fits, 2).is_ok(), "{template}");
            let deeper = template.replace('@', &nest(deepest + 1));
            assert!(sample_of(&deeper, 2).is_err(), "{template}");
        }
        // the containers themselves: the sample, its events list, an event
        for (text, deepest) in [
            ("{}", limit - 1),
            (r#"{"events": []}"#, limit - 2),
            (r#"{"events": [{}]}"#, limit - 3),
        ] {
            assert!(sample_of(text, deepest).is_ok(), "{text}");
            assert!(sample_of(text, deepest + 1).is_err(), "{text}");
        }
        let top = nest(limit - 2);
        assert!(sample_of(&top, 2).is_ok());
        assert!(sample_of(&nest(limit - 1), 2).is_err());
    }

    #[test]
    fn ints_are_written_as_python_writes_them() {
        assert_eq!(int_text(raw("7")).as_deref(), Some("7"));
        assert_eq!(int_text(raw("-12")).as_deref(), Some("-12"));
        assert_eq!(int_text(raw("-0")).as_deref(), Some("0"));
        assert_eq!(int_text(raw("0")).as_deref(), Some("0"));
        for bad in [
            "1.0", "1e2", "-1.5", "true", "null", r#""1""#, "[1]", r#""-""#,
        ] {
            assert_eq!(int_text(raw(bad)), None, "{bad}");
        }
        assert_eq!(int_text(None), None);
    }

    #[test]
    fn a_sample_key_is_its_id_and_int_epoch() {
        let key = |text| sample_key(&sample(text));
        assert_eq!(
            key(r#"{"id": "a", "epoch": 2}"#),
            Some(("a".into(), "2".into()))
        );
        assert_eq!(
            key(r#"{"id": -0, "epoch": 1, "id": 5}"#),
            Some(("5".into(), "1".into()))
        );
        for bad in [
            r#"{"id": true, "epoch": 1}"#,
            r#"{"id": "a", "epoch": true}"#,
            r#"{"id": "a", "epoch": 1.0}"#,
            r#"{"id": "a", "epoch": "1"}"#,
            r#"{"id": "", "epoch": 1}"#,
            r#"{"id": "a\u0001", "epoch": 1}"#,
            r#"{"id": 1.5, "epoch": 1}"#,
            r#"{"epoch": 1}"#,
            r#"{"id": "a"}"#,
        ] {
            assert_eq!(key(bad), None, "{bad}");
        }
        assert!(matches!(
            sample(r#"{"events": null}"#).events,
            Events::Missing
        ));
        assert!(matches!(sample(r#"{"events": 0}"#).events, Events::NotList));
        assert!(matches!(
            sample(r#"{"events": "x"}"#).events,
            Events::NotList
        ));
        assert!(matches!(
            sample(r#"{"events": [1, {}], "events": [{}]}"#).events,
            Events::List(events) if events.len() == 1
        ));
        assert!(!sample("[1]").object);
        assert!(sample("{}").object);
    }

    #[test]
    fn the_eval_id_is_usable_bad_or_missing() {
        assert_eq!(
            eval_id(raw(r#"{"eval_id": "x", "eval_id": "E"}"#)),
            EvalId::Id("E".into())
        );
        assert_eq!(eval_id(raw(r#"{"eval_id": "\u0001"}"#)), EvalId::Bad);
        assert_eq!(eval_id(raw(r#"{"eval_id": "\ud800"}"#)), EvalId::Bad);
        for none in [
            r#"{"eval_id": 5}"#,
            r#"{"eval_id": ""}"#,
            "{}",
            "[]",
            "null",
        ] {
            assert_eq!(eval_id(raw(none)), EvalId::Fallback, "{none}");
        }
        assert_eq!(eval_id(None), EvalId::Fallback);
    }

    #[test]
    fn nested_tool_events_are_counted_at_any_depth() {
        let nested = r#"[{"event": "tool"}, {"event": "x", "events": [{"event": "tool",
            "events": [{"event": "tool"}, 3]}]}, [{"event": "tool"}], {"event": "Tool"}]"#;
        assert_eq!(nested_tool_events(raw(nested)), 3);
        assert_eq!(nested_tool_events(raw(r#"{"event": "tool"}"#)), 0);
        assert_eq!(nested_tool_events(None), 0);
    }

    #[test]
    fn agent_lanes_are_named_and_found_up_the_parents() {
        let text = r#"{"id": 1, "epoch": 1, "events": [
            {"event": "span_begin", "id": "a1", "type": "agent", "name": "w"},
            {"event": "span_begin", "id": "a2", "type": "agent", "name": "w"},
            {"event": "span_begin", "id": "a3", "type": "agent"},
            {"event": "span_begin", "id": "a4", "type": "agent", "name": "solo"},
            {"event": "span_begin", "id": "t1", "parent_id": "a2", "type": "tool"},
            {"event": "span_begin", "id": "t2", "parent_id": "nowhere"},
            {"event": "span_begin", "id": "c1", "parent_id": "c2"},
            {"event": "span_begin", "id": "c2", "parent_id": "c1"},
            {"event": "span_begin", "id": "a4", "type": "agent", "name": "again"},
            {"event": "tool", "span_id": "t1"},
            {"event": "tool", "span_id": "t2"},
            {"event": "tool", "span_id": "c1"},
            {"event": "tool", "span_id": "unknown"}
        ]}"#;
        let Events::List(events) = sample(text).events else {
            panic!("a list");
        };
        let spans = AgentSpans::of(&events);
        let mut named: Vec<(&str, &str)> = spans
            .lanes
            .iter()
            .map(|(k, v)| (&**k, v.as_str()))
            .collect();
        named.sort();
        assert_eq!(
            named,
            [("a1", "w#a1"), ("a2", "w#a2"), ("a3", "a3"), ("a4", "solo")]
        );
        let fields = |i: usize| events[i].unwrap();
        assert_eq!(spans.lane_of(&fields(9), &[]), "w#a2");
        assert_eq!(spans.lane_of(&fields(10), &["a1".into()]), MAIN);
        assert_eq!(spans.lane_of(&fields(11), &["a1".into()]), MAIN);
        let open: [Cow<'_, str>; 3] = ["a3".into(), "a1".into(), "t9".into()];
        assert_eq!(spans.lane_of(&fields(12), &open), "w#a1");
        assert_eq!(spans.lane_of(&fields(12), &open[..1]), "a3");
        assert_eq!(spans.lane_of(&fields(12), &[]), MAIN);
    }

    #[test]
    fn a_span_end_closes_it_and_the_spans_opened_after_it() {
        let text = r#"{"events": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "b"},
            {"id": "zz"}, {"id": 3}]}"#;
        let Events::List(events) = sample(text).events else {
            panic!("a list");
        };
        let mut open = Vec::new();
        for fields in events.iter().take(3) {
            track_span(&fields.unwrap(), true, &mut open);
        }
        assert_eq!(open, ["a", "b", "c"]);
        track_span(&events[4].unwrap(), false, &mut open);
        track_span(&events[5].unwrap(), true, &mut open);
        assert_eq!(open, ["a", "b", "c"]);
        track_span(&events[3].unwrap(), false, &mut open);
        assert_eq!(open, ["a"]);
    }

    #[test]
    fn every_rule_of_a_log_counted_by_hand() {
        // sample a: 0 model (batch of main), 1-2 calls of main [0, 1] and [0.5, 2] s (one
        // wave), 3 agent span, 4-5 its call, 6 repeated id, 7 no function, 8 bad time,
        // 9 bad end, 10 no end (used), 11 nests two tool events, 12 not an object,
        // 13 no event name; sample b: no events; a again; sample c: events not a list
        let log = r#"{"eval": {"eval_id": "E"}, "samples": [
            {"id": "a", "epoch": 1, "events": [
                {"event": "model"},
                {"event": "tool", "id": "t1", "function": "read",
                 "timestamp": "2026-01-01T00:00:00+00:00", "completed": "2026-01-01T00:00:01+00:00"},
                {"event": "tool", "id": "t2", "function": "grep",
                 "timestamp": "2026-01-01T00:00:00.5+00:00", "completed": "2026-01-01T00:00:02Z"},
                {"event": "span_begin", "id": "s", "type": "agent", "name": "helper"},
                {"event": "model"},
                {"event": "tool", "id": "t3", "function": "read",
                 "timestamp": "2026-01-01T00:00:03Z", "completed": "2026-01-01T00:00:04Z"},
                {"event": "tool", "id": "t1", "function": "read",
                 "timestamp": "2026-01-01T00:00:03Z"},
                {"event": "tool", "id": "t4", "timestamp": "2026-01-01T00:00:03Z"},
                {"event": "tool", "id": "t5", "function": "read", "timestamp": "soon"},
                {"event": "tool", "id": "t6", "function": "read",
                 "timestamp": "2026-01-01T00:00:03Z", "completed": 5},
                {"event": "tool", "id": "t7", "function": "read",
                 "timestamp": "2026-01-01T00:00:05Z", "completed": null},
                {"event": "state", "events": [{"event": "tool"}, {"events": [{"event": "tool"}]}]},
                "text",
                {"event": 3}
            ]},
            {"id": "b", "epoch": 1, "events": []},
            {"id": "a", "epoch": 1, "events": [1]},
            {"id": "c", "epoch": 2, "events": {}},
            {"id": "d", "epoch": 1}
        ]}"#;
        let out = read(log);
        let account = &out.accounts[0];
        // 1 log + 4 more samples + 13 more events of sample a
        assert_eq!((account.lines_read, account.lines_used), (18, 4));
        assert_eq!(
            ignored(account),
            [
                ("duplicate_samples".into(), 1),
                ("model".into(), 2),
                ("no_events".into(), 2),
                ("repeated_tool_event".into(), 1),
                ("span_begin".into(), 1),
                ("state".into(), 1),
            ]
        );
        assert_eq!(
            problems(account),
            [
                ("invalid_structure", 1),
                ("invalid_timestamp", 2),
                ("invalid_tool_record", 1),
                ("missing_type", 1),
                ("not_an_object", 1),
            ]
        );
        assert_eq!(account.notes, [("nested_tool_events", 2)]);
        assert_eq!(
            lanes(&out),
            [
                ("E/a/1", "main", 2),
                ("E/a/1", "helper", 1),
                ("E/b/1", "main", 0),
                ("E/c/2", "main", 0),
                ("E/d/1", "main", 0),
            ]
        );
        let main = &out.lanes[0].summary;
        assert_eq!(main.modeled_wallclock_saved_ms, 500.0);
        assert_eq!(main.tool_time_ms, 2500.0);
        assert_eq!(main.observed_calls, 2);
        // t7 is the helper's too: the agent span is never ended
        assert_eq!(out.lanes[1].summary.observed_calls, 2);
    }

    #[test]
    fn batches_follow_each_lanes_model_event() {
        // main: t0 before any model event (no batch), model 1 then t1, the agent's model 4
        // (its own lane's batch), the span ended: t2 still batch 1 of main, the agent's t3
        // (by its span_id) batch 4
        let log = r#"{"eval": {"eval_id": "E"}, "samples": [{"id": 1, "epoch": 1, "events": [
            {"event": "tool", "id": "t0", "function": "read", "timestamp": "2026-01-01T00:00:00Z"},
            {"event": "model"},
            {"event": "tool", "id": "t1", "function": "read", "timestamp": "2026-01-01T00:00:01Z"},
            {"event": "span_begin", "id": "s", "type": "agent", "name": "sub"},
            {"event": "model", "span_id": "s"},
            {"event": "span_end", "id": "s"},
            {"event": "tool", "id": "t2", "function": "read", "timestamp": "2026-01-01T00:00:02Z"},
            {"event": "tool", "id": "t3", "function": "read", "timestamp": "2026-01-01T00:00:03Z",
             "span_id": "s"}
        ]}]}"#;
        let path = std::env::temp_dir().join(format!(
            "wm-native-{}-inspect-batches.json",
            std::process::id()
        ));
        std::fs::write(&path, log).unwrap();
        let paths: [&Path; 1] = [&path];
        let ids = ["f".to_string()];
        let unit = Unit {
            paths: &paths,
            session_ids: &ids,
        };
        let settings = Settings {
            record: true,
            ..super::super::protocol::fixtures::settings()
        };
        let out = Inspect.read(&unit, &settings, 1).unwrap();
        std::fs::remove_file(&path).unwrap();
        let batches = |lane: usize| {
            let records = out.lanes[lane].records.as_ref().unwrap();
            let ids: Vec<&str> = records.call_ids.iter().map(|c| &**c).collect();
            let keys: Vec<Option<&[u8]>> = records.batches.iter().map(|b| b.as_deref()).collect();
            (ids, keys)
        };
        assert_eq!(lanes(&out), [("E/1/1", "main", 0), ("E/1/1", "sub", 0)]);
        assert_eq!(
            batches(0),
            (
                vec!["t0", "t1", "t2"],
                vec![None, Some(&b"1"[..]), Some(&b"1"[..])]
            )
        );
        assert_eq!(batches(1), (vec!["t3"], vec![Some(&b"4"[..])]));
        // no event nests another: no note at all (not one of 0)
        assert!(out.accounts[0].notes.is_empty());
    }

    #[test]
    fn documents_that_give_no_samples() {
        let cases: [(&str, u64, &str); 5] = [
            (r#"{"eval": {}, "samples": []}"#, 1, "no_samples"),
            (r#"{"eval": {}, "samples": null}"#, 1, "no_samples"),
            (r#"{"eval": {}}"#, 1, "no_samples"),
            (r#"{"eval": {}, "samples": {}}"#, 1, "invalid_structure"),
            ("[{\"eval\": {}}\n]", 1, "not_an_object"),
        ];
        for (text, read_items, what) in cases {
            let out = read(text);
            let account = &out.accounts[0];
            assert_eq!(account.lines_read, read_items, "{text}");
            let named: Vec<String> = ignored(account)
                .into_iter()
                .map(|(k, _)| k)
                .chain(problems(account).into_iter().map(|(k, _)| k.to_string()))
                .collect();
            assert_eq!(named, [what], "{text}");
            assert!(out.lanes.is_empty());
        }
    }

    #[test]
    fn the_file_stem_stands_in_and_a_bad_eval_id_files_nothing() {
        let one = r#"{"id": 1, "epoch": 1, "events": [{"event": "x"}]}"#;
        let late = format!("{{\"samples\": [{one}],\n \"eval\": {{}}}}");
        assert!(
            try_read(&late).is_none(),
            "an eval key after the samples is declined"
        );
        // ... unless a later samples key is read after it
        let again = format!("{{\"samples\": [],\n \"eval\": {{}}, \"samples\": [{one}]}}");
        assert_eq!(lanes(&try_read(&again).unwrap()), [("stem/1/1", "main", 0)]);
        let out = read(&format!(
            "{{\"eval\": {{\"eval_id\": 5}}, \"samples\": [{one}]}}"
        ));
        assert_eq!(lanes(&out), [("stem/1/1", "main", 0)]);
        let out = read(&format!(
            "{{\"eval\": {{\"eval_id\": \"\\u0007\"}}, \"samples\": [{one}, {one}]}}"
        ));
        assert!(out.lanes.is_empty());
        assert_eq!(problems(&out.accounts[0]), [("invalid_id", 2)]);
        assert_eq!(out.accounts[0].lines_read, 2);
    }

    #[test]
    fn a_later_samples_key_replaces_the_samples_read() {
        let out = read(concat!(
            r#"{"eval": {"eval_id": "E"}, "samples": [{"id": 1, "epoch": 1, "events": [{"event": "a"}]}],"#,
            "\n",
            r#""samples": [{"id": 2, "epoch": 1}], "samples": [{"id": 3, "epoch": 1}, 5]}"#
        ));
        assert_eq!(lanes(&out), [("E/3/1", "main", 0)]);
        let account = &out.accounts[0];
        assert_eq!(account.lines_read, 2);
        assert_eq!(ignored(account), [("no_events".into(), 1)]);
        assert_eq!(problems(account), [("invalid_sample", 1)]);
        let out =
            read(r#"{"eval": {"eval_id": "E"}, "samples": [{"id": 1, "epoch": 1}], "samples": 3}"#);
        assert!(out.lanes.is_empty());
        assert_eq!(problems(&out.accounts[0]), [("invalid_structure", 1)]);
    }

    #[test]
    fn documents_one_after_another() {
        let one =
            |id: &str| format!(r#"{{"id": "{id}", "epoch": 1, "events": [{{"event": "e"}}]}}"#);
        // the eval id is each document's own; keys after the samples are no eval; a
        // document that fails after its samples were read is one problem, its samples
        // undone; a later key's list is not samples
        let text = format!(
            "{{\n\"eval\": {{\"eval_id\": \"A\"}}, \"samples\": [{}], \"x\": [1], \"y\": 2}}\n\
             {{\n\"samples\": [{}], \"z\": }}\n\
             {{\n\"samples\": [{}]}}\n",
            one("a"),
            one("b"),
            one("c")
        );
        let out = read(&text);
        assert_eq!(lanes(&out), [("A/a/1", "main", 0), ("stem/c/1", "main", 0)]);
        let account = &out.accounts[0];
        assert_eq!(account.lines_read, 3);
        assert_eq!(ignored(account), [("e".into(), 2)]);
        assert_eq!(problems(account), [("invalid_json", 1)]);
    }

    #[test]
    fn logs_one_per_line() {
        let path = std::env::temp_dir().join(format!(
            "wm-native-{}-inspect-lines.json",
            std::process::id()
        ));
        let lines = [
            r#"{"eval": {"eval_id": "L"}, "samples": [{"id": 1, "epoch": 1, "events": [{"event": "a"}, {"event": "b"}]}]}"#,
            r#"{"eval": {"eval_id": "L"}, "samples": []}"#,
            r#"{"samples": [{"id": 1, "epoch": 1}]}"#,
            r#"{"samples": "x"}"#,
            r#"{"samples": [1}"#,
        ];
        std::fs::write(&path, lines.join("\n")).unwrap();
        let out = read_unit(&Inspect, &[&path], &["f"]);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(lanes(&out), [("L/1/1", "main", 0), ("f/1/1", "main", 0)]);
        let account = &out.accounts[0];
        assert_eq!(account.lines_read, 6);
        assert_eq!(
            ignored(account),
            [
                ("a".into(), 1),
                ("b".into(), 1),
                ("no_events".into(), 1),
                ("no_samples".into(), 1),
            ]
        );
        assert_eq!(
            problems(account),
            [("invalid_structure", 1), ("truncated_last_line", 1)]
        );
    }

    #[test]
    fn member_text_as_json_loads_reads_it() {
        assert_eq!(
            member_text(b" {\"a\": 1} \n").ok(),
            Some(Ok(" {\"a\": 1} \n"))
        );
        assert_eq!(member_text(b"\xff{}").ok(), Some(Err("invalid_utf8")));
        assert_eq!(member_text(b"{").ok(), Some(Err("invalid_json")));
        assert_eq!(
            member_text(b"\xef\xbb\xbf{}").ok(),
            Some(Err("invalid_json"))
        );
        let long = format!("[{}]", "9".repeat(4301));
        assert_eq!(member_text(long.as_bytes()).ok(), Some(Err("invalid_json")));
        let fits = format!("[{}]", "9".repeat(4300));
        assert!(matches!(member_text(fits.as_bytes()), Ok(Ok(_))));
        assert!(member_text(b"[NaN]").is_err());
        assert!(member_text(b"{\"a\": -Infinity}").is_err());
        // the one limit: 500 levels read, 501 too deeply nested, unless a syntax
        // error comes first
        let deep = "[".repeat(501) + &"]".repeat(501);
        assert_eq!(
            member_text(deep.as_bytes()).ok(),
            Some(Err("too_deeply_nested"))
        );
        let broken = "[1 2, ".to_string() + &deep + "]";
        assert_eq!(
            member_text(broken.as_bytes()).ok(),
            Some(Err("invalid_json"))
        );
        let fits = "[".repeat(500) + &"]".repeat(500);
        assert!(matches!(member_text(fits.as_bytes()), Ok(Ok(_))));
    }

    /// A stored zip archive of `members` as Python's `zipfile` writes one (no data
    /// descriptors, no extra fields), CRC-32 by the bitwise definition.
    fn stored_zip(members: &[(&str, &[u8])]) -> Vec<u8> {
        fn crc32(data: &[u8]) -> u32 {
            let mut crc = !0u32;
            for &b in data {
                crc ^= u32::from(b);
                for _ in 0..8 {
                    crc = if crc & 1 != 0 {
                        (crc >> 1) ^ 0xEDB8_8320
                    } else {
                        crc >> 1
                    };
                }
            }
            !crc
        }
        let (mut out, mut directory) = (Vec::new(), Vec::new());
        for (name, data) in members {
            let offset = out.len() as u32;
            let (size, crc) = (data.len() as u32, crc32(data));
            let fixed = |sig: &[u8], out: &mut Vec<u8>, central: bool| {
                out.extend_from_slice(sig);
                if central {
                    out.extend_from_slice(&20u16.to_le_bytes());
                }
                out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
                out.extend_from_slice(&crc.to_le_bytes());
                out.extend_from_slice(&size.to_le_bytes());
                out.extend_from_slice(&size.to_le_bytes());
                out.extend_from_slice(&(name.len() as u16).to_le_bytes());
                out.extend_from_slice(&[0, 0]);
                if central {
                    out.extend_from_slice(&[0; 10]);
                    out.extend_from_slice(&offset.to_le_bytes());
                }
                out.extend_from_slice(name.as_bytes());
            };
            fixed(b"PK\x03\x04", &mut out, false);
            out.extend_from_slice(data);
            fixed(b"PK\x01\x02", &mut directory, true);
        }
        let (start, size) = (out.len() as u32, directory.len() as u32);
        out.extend_from_slice(&directory);
        out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
        let count = members.len() as u16;
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&start.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out
    }

    fn read_archive_bytes(name: &str, data: &[u8]) -> Option<UnitOut> {
        let path =
            std::env::temp_dir().join(format!("wm-native-{}-{name}.eval", std::process::id()));
        std::fs::write(&path, data).unwrap();
        let paths: [&Path; 1] = [&path];
        let ids = ["run".to_string()];
        let unit = Unit {
            paths: &paths,
            session_ids: &ids,
        };
        let out = Inspect.read(&unit, &super::super::protocol::fixtures::settings(), 1);
        std::fs::remove_file(&path).unwrap();
        out.ok()
    }

    #[test]
    fn an_archive_counted_by_hand() {
        let one: &[u8] = br#"{"id": 1, "epoch": 1, "events": [
            {"event": "tool", "id": "a", "function": "read",
             "timestamp": "2026-01-01T00:00:00Z", "completed": "2026-01-01T00:00:02Z"},
            {"event": "tool", "id": "b", "function": "read",
             "timestamp": "2026-01-01T00:00:01Z", "completed": "2026-01-01T00:00:02Z"}]}"#;
        let data = stored_zip(&[
            ("summaries.json", b"[]"),
            ("samples/1_epoch_1.json", one),
            ("samples/", b""),
            ("_journal/start.json", br#"{"eval": {"eval_id": "J"}}"#),
            ("header.json", br#"{"eval": {}}"#),
            ("samples/1_epoch_1_copy.json", one),
            ("samples/bad.json", b"{"),
            ("samples/latin.json", b"\xe9"),
            ("samples/list.json", b"[]"),
        ]);
        let out = read_archive_bytes("counted", &data).unwrap();
        // 5 members: 2 events, then one item each
        let account = &out.accounts[0];
        assert_eq!((account.lines_read, account.lines_used), (6, 2));
        assert_eq!(ignored(account), [("duplicate_samples".into(), 1)]);
        assert_eq!(
            problems(account),
            [
                ("invalid_json", 1),
                ("invalid_sample", 1),
                ("invalid_utf8", 1)
            ]
        );
        assert_eq!(lanes(&out), [("J/1/1", "main", 2)]);
        assert_eq!(out.lanes[0].summary.modeled_wallclock_saved_ms, 1000.0);
        let empty = read_archive_bytes("empty", &stored_zip(&[("header.json", b"{}")])).unwrap();
        assert_eq!(empty.accounts[0].lines_read, 1);
        assert_eq!(ignored(&empty.accounts[0]), [("no_samples".into(), 1)]);
        let stem = stored_zip(&[("samples/1.json", br#"{"id": "x", "epoch": 3}"#)]);
        let out = read_archive_bytes("stem", &stem).unwrap();
        assert_eq!(lanes(&out), [("run/x/3", "main", 0)]);
    }

    #[test]
    fn archives_python_may_read_otherwise_are_declined() {
        let good = stored_zip(&[("samples/a.json", br#"{"id": 1, "epoch": 1}"#)]);
        assert!(read_archive_bytes("good", &good).is_some());
        let cases: Vec<(&str, Vec<u8>)> = vec![
            (
                "twice",
                stored_zip(&[("samples/a.json", b"{}"), ("samples/a.json", b"{}")]),
            ),
            ("nul", stored_zip(&[("samples/a\0.json", b"{}")])),
            ("latin-name", stored_zip(&[("samples/\u{e9}.json", b"{}")])),
            ("nan", stored_zip(&[("samples/a.json", b"[NaN")])),
            ("not-zip", b"PK\x03\x04 no directory".to_vec()),
            ("short", b"PK\x03\x04".to_vec()),
        ];
        for (name, data) in &cases {
            assert!(read_archive_bytes(name, data).is_none(), "{name}");
        }
        // a wrong CRC, a wrong size, another method, a flag, another local name
        let at = |needle: &[u8]| {
            good.windows(needle.len())
                .position(|w| w == needle)
                .unwrap()
        };
        let payload = at(br#""id""#);
        let directory = at(b"PK\x01\x02");
        let mut edits: Vec<(&str, Vec<u8>)> = Vec::new();
        let mut crc = good.clone();
        crc[payload + 1] = b'I';
        edits.push(("crc", crc));
        let mut method = good.clone();
        method[directory + 10] = 12;
        edits.push(("method", method));
        let mut flag = good.clone();
        flag[directory + 8] = 1;
        edits.push(("encrypted", flag));
        for (name, bit) in [("patched", 0x20), ("strongly-encrypted", 0x40)] {
            let mut flag = good.clone();
            flag[directory + 8] = bit;
            edits.push((name, flag));
        }
        let mut local = good.clone();
        local[30] = b'S';
        edits.push(("local-name", local));
        let mut version = good.clone();
        version[directory + 6] = 64;
        edits.push(("version", version));
        let mut size = good.clone();
        size[directory + 24] += 1;
        edits.push(("size", size));
        for (name, data) in &edits {
            assert!(read_archive_bytes(name, data).is_none(), "{name}");
        }
    }

    #[test]
    fn a_member_is_read_up_to_the_limit_and_its_declared_size() {
        // stored members of 10 and 11 bytes; the second's sizes then say 10 of its 11
        let good = stored_zip(&[("a", b"0123456789"), ("b", b"0123456789X")]);
        let member = |data: &[u8], index: usize, limit: u64| {
            let path = std::env::temp_dir().join(format!(
                "wm-native-{}-member-{index}-{limit}-{}.zip",
                std::process::id(),
                data.len()
            ));
            std::fs::write(&path, data).unwrap();
            let mut file = File::open(&path).unwrap();
            let entries = python_directory(&mut file).unwrap().unwrap();
            let mut archive = zip::ZipArchive::new(File::open(&path).unwrap()).unwrap();
            let got = member_bytes(&mut archive, index, &entries[index], &mut file, limit).ok();
            std::fs::remove_file(&path).unwrap();
            got
        };
        assert_eq!(member(&good, 0, 10).as_deref(), Some(&b"0123456789"[..]));
        assert_eq!(member(&good, 1, 10), None);
        assert_eq!(member(&good, 1, 11).as_deref(), Some(&b"0123456789X"[..]));
        assert_eq!(member(&good, 0, 9), None);
        // the directory says the second member is 10 bytes (its CRC is of 11): Python
        // reads 10 and fails their CRC; declined at any limit
        let mut short = good.clone();
        let directory = short.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
        let second = directory + 46 + 1;
        for at in [second + 20, second + 24] {
            short[at] = 10;
        }
        assert_eq!(member(&short, 1, 10), None);
        assert_eq!(member(&short, 1, 20), None);
    }

    #[test]
    fn python_lists_the_directory_it_finds_at_the_end() {
        let good = stored_zip(&[("a", b"1"), ("bb", b"22")]);
        let listed = |data: &[u8]| {
            let path = std::env::temp_dir().join(format!(
                "wm-native-{}-dir-{}.zip",
                std::process::id(),
                data.len()
            ));
            std::fs::write(&path, data).unwrap();
            let entries = python_directory(&mut File::open(&path).unwrap()).unwrap();
            std::fs::remove_file(&path).unwrap();
            entries.map(|e| {
                e.iter()
                    .map(|e| (e.name.clone(), e.header))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(
            listed(&good),
            Some(vec![("a".into(), 0), ("bb".into(), 32)])
        );
        // prepended bytes move every entry; a comment after the end record is skipped
        let mut prefixed = b"#!x\n".to_vec();
        prefixed.extend_from_slice(&good);
        assert_eq!(
            listed(&prefixed),
            Some(vec![("a".into(), 4), ("bb".into(), 36)])
        );
        let mut commented = good.clone();
        let n = commented.len();
        commented[n - 2] = 3;
        commented.extend_from_slice(b"hey");
        assert_eq!(listed(&commented).map(|e| e.len()), Some(2));
        assert_eq!(listed(b"PK\x05\x06"), None);
        assert_eq!(listed(&good[..good.len() - 1]), None);
        // a directory size that cuts an entry
        let mut cut = good.clone();
        let size_at = n - 10;
        cut[size_at] -= 1;
        assert_eq!(listed(&cut), None);
    }
}
