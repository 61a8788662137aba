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
//! size it declares, past the byte limit, or whose JSON nests near Python's limit or
//! fails where Python's `json.loads` may differ (`NaN`, `Infinity`), and an archive
//! whose central directory holds a name twice (the crate keeps one).

use super::documents::DOCUMENT_MAX_DEPTH;
use super::documents::{declined, read_documents, validate, Part, Reading, Visit};
use super::lines::{for_each_object_line, int_too_long, json_failure};
use super::protocol::{with_fallback, Failure, LaneOut, Reader, Unit, UnitOut};
use super::spans::{json_lines, LINE_MAX_DEPTH};
use crate::account::LineAccount;
use crate::activity::Timing;
use crate::io::open_plain;
use crate::json::{has_control, nesting_exceeds, Raw, Scan, SyntaxError, Val};
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
/// An archive member nesting deeper than this is read by Python (`json.loads` gives
/// up near 1000 levels, a few more or fewer as the stack stands).
const MEMBER_SURE_DEPTH: usize = 900;
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
    let mut scan = Scan::within(text, DOCUMENT_MAX_DEPTH);
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
/// each agent span.
#[derive(Default)]
struct AgentSpans {
    parents: HashMap<String, Option<String>>,
    lanes: HashMap<String, String>,
}

impl AgentSpans {
    fn of(events: &[Fields<'_>]) -> AgentSpans {
        let mut spans = AgentSpans::default();
        let mut names: Vec<(String, String)> = Vec::new();
        for fields in events.iter().flatten() {
            if !is_str(fields[KIND], b"span_begin") {
                continue;
            }
            let Some(span_id) = text_of(fields[ID]) else {
                continue;
            };
            if spans.parents.contains_key(&*span_id) {
                continue;
            }
            let parent = text_of(fields[PARENT_ID]).map(Cow::into_owned);
            spans.parents.insert(span_id.to_string(), parent);
            if is_str(fields[TYPE], b"agent") {
                let name = text_of(fields[NAME]).unwrap_or_else(|| span_id.clone());
                names.push((span_id.into_owned(), name.into_owned()));
            }
        }
        let mut shared: HashMap<&str, usize> = HashMap::new();
        for (_, name) in &names {
            *shared.entry(name.as_str()).or_default() += 1;
        }
        let lanes: Vec<(String, String)> = names
            .iter()
            .map(|(span_id, name)| {
                let lane = if shared[name.as_str()] == 1 {
                    name.clone()
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
    fn lane_of<'s>(&'s self, fields: &[Option<Raw<'_>>; 10], open: &[String]) -> &'s str {
        if let Some(span_id) = text_of(fields[SPAN_ID]) {
            if let Some((first, _)) = self.parents.get_key_value(&*span_id) {
                let mut seen: HashSet<&str> = HashSet::new();
                let mut node: Option<&str> = Some(first.as_str());
                while let Some(at) = node {
                    if !seen.insert(at) {
                        break;
                    }
                    if let Some(lane) = self.lanes.get(at) {
                        return lane;
                    }
                    node = self.parents.get(at).and_then(|p| p.as_deref());
                }
                return MAIN;
            }
        }
        for node in open.iter().rev() {
            if let Some(lane) = self.lanes.get(node.as_str()) {
                return lane;
            }
        }
        MAIN
    }
}

/// `_track_span`: the spans open at this point of the event list.
fn track_span(fields: &[Option<Raw<'_>>; 10], begin: bool, open: &mut Vec<String>) {
    let Some(span_id) = text_of(fields[ID]) else {
        return;
    };
    if begin {
        open.push(span_id.into_owned());
    } else if let Some(at) = open.iter().position(|s| *s == *span_id) {
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
        let mut open: Vec<String> = Vec::new();
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
    let scanned = Scan::line_within(text, LINE_MAX_DEPTH, |scan, key| {
        match key {
            b"eval" => eval = Some(scan.raw(1)?),
            b"samples" => samples = Some(scan.raw(1)?),
            _ => scan.skip(1)?,
        }
        Ok(())
    });
    if scanned.is_err() || int_too_long(text.as_bytes()) {
        return Ok(Some(
            json_failure(text, LINE_MAX_DEPTH).unwrap_or("invalid_json"),
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
        None => Err(declined()),
        Some(true) => for_each_object_line(
            open_plain(path)?,
            account,
            LINE_MAX_DEPTH,
            |text, account| read_line(text, log, account),
        ),
        Some(false) => {
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
    if nesting_exceeds(data, MEMBER_SURE_DEPTH) {
        return Err(declined());
    }
    let mut scan = Scan::within(text, DOCUMENT_MAX_DEPTH);
    let valid = scan.skip(0).is_ok() && scan.space().is_none();
    if !valid {
        // json.loads takes NaN and Infinity, which the scan refuses
        if memchr::memmem::find(data, b"NaN").is_some()
            || memchr::memmem::find(data, b"Infinity").is_some()
        {
            return Err(declined());
        }
        return Ok(Err("invalid_json"));
    }
    if int_too_long(data) {
        return Ok(Err("invalid_json"));
    }
    Ok(Ok(text))
}

/// A member's bytes, decompressed and checked; `Err` (declined) for a member Python
/// may read otherwise or not at all, or one past the byte limit.
fn member_bytes<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    index: usize,
    entry: &Entry,
    file: &mut File,
) -> Result<Vec<u8>, Failure> {
    // stored or deflated; not encrypted, patched or strongly encrypted (Python refuses)
    if !matches!(entry.method, 0 | 8) || entry.flags & 0x61 != 0 {
        return Err(declined());
    }
    let mut member = archive.by_index(index).map_err(|_| declined())?;
    if member.size() > MAX_DOCUMENT_BYTES {
        return Err(declined());
    }
    let size = member.size();
    let name = entry.name.as_bytes();
    let header = entry.header;
    let mut data = Vec::with_capacity(size as usize);
    (&mut member)
        .take(MAX_DOCUMENT_BYTES + 1)
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
    let mut file = File::open(path)?;
    let Some(entries) = python_directory(&mut file)? else {
        return Err(declined());
    };
    let mut archive = zip::ZipArchive::new(File::open(path)?).map_err(|_| declined())?;
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
        let data = member_bytes(&mut archive, index, &entries[index], &mut file)?;
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
        let data = member_bytes(&mut archive, index, &entries[index], &mut file)?;
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
    let mut file = File::open(path)?;
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
