//! The `otlp` reader (`docs/formats.md`, "Span-shaped formats" and `otlp`), rule for
//! rule as `wavemetrics/readers/otlp.py` with the span rules of `_spans.py`: OTLP/JSON
//! traces written one `{"resourceSpans": [...]}` document per line (the collector's
//! file exporter), every span of the file kept as the few fields the rules need
//! ([`Span`]), and lanes made once the whole file is read ([`Collector::lanes`]).
//!
//! The shape of the input is decided as `_spans.iter_json_values` decides it: JSON
//! Lines when the first line with content is a JSON object on its own, or begins
//! neither an object nor an array. Any other input (a pretty-printed document, a
//! compact array, several documents one after another; also a first line this reader
//! cannot decide with certainty, nesting near Python's depth limit) is declined
//! (`Unsupported`): the unit is read by the Python reader, which reads documents.
//!
//! Each line is read in one pass of the validating scanner ([`Scan`]), its spans and
//! accounting events gathered in the order `otlp.py` meets them and applied only when
//! the whole line parsed; a repeated key's value replaces the earlier one's (the last
//! key wins, as in Python's `json`).

use super::lines::{for_each_object_line, int_too_long, json_failure, Names};
use super::protocol::{with_fallback, Failure, LaneOut, ReadError, Reader, Unit, UnitOut};
use crate::account::LineAccount;
use crate::activity::Timing;
use crate::io::open_plain;
use crate::json::{nesting_exceeds, Raw, Scan, SyntaxError, Val, PY_MAX_DEPTH};
use crate::lines::{is_py_space, LineReader};
use crate::summary::{LaneStream, Settings};
use crate::time::ns_to_ms;
use hashbrown::{HashMap, HashSet};
use std::io;
use std::path::Path;
use std::rc::Rc;

/// How deep a line may nest before Python's `json` gives up in `otlp.py`
/// (`RecursionError`, `too_deeply_nested`), measured as the command line reads an OTLP
/// file line by line: 973 levels read, 974 refused.
const PY_MAX_JSON_DEPTH: usize = PY_MAX_DEPTH - 11;
/// A first line with content nesting deeper than this is not decided here: Python's
/// `json` reads it at another depth than the lines after it (`_first_line_is_object`).
const FIRST_LINE_SURE_DEPTH: usize = 900;

/// The attribute keys the span rules read (`SPAN_ATTRIBUTES`), by index.
const ATTRIBUTE_KEYS: [&str; 10] = [
    "gen_ai.operation.name",
    "gen_ai.tool.call.id",
    "gen_ai.tool.name",
    "gen_ai.conversation.id",
    "session.id",
    "gen_ai.agent.id",
    "gen_ai.agent.name",
    "span.type",
    "tool_name",
    "tool_use_id",
];
const OPERATION: usize = 0;
const CALL_ID: usize = 1;
const TOOL_NAME: usize = 2;
const CONVERSATION_ID: usize = 3;
const SESSION_ID: usize = 4;
const AGENT_ID: usize = 5;
const AGENT_NAME: usize = 6;
const SPAN_TYPE: usize = 7;
const CLAUDE_TOOL_NAME: usize = 8;
const CLAUDE_USE_ID: usize = 9;

/// Other OTLP signals a collector may write to a file, in the order `otlp.py` asks.
const OTHER_SIGNALS: [&[u8]; 3] = [b"resourceLogs", b"resourceMetrics", b"resourceProfiles"];
/// `BAD_SESSION` of `_spans.py`: no usable id holds NUL.
const BAD_SESSION: &str = "\u{0}bad session id";
const TOOL_PREFIX: &[u8] = b"execute_tool ";

/// The wanted attributes of a span or resource: per key, the first entry's
/// `stringValue` (`found.setdefault`), `Some(Val::Absent)` when that entry's value
/// object has none.
type Attributes<'a> = [Option<Val<'a>>; 10];

fn attr<'b, 'a>(attributes: &'b Attributes<'a>, key: usize) -> &'b Val<'a> {
    attributes[key].as_ref().unwrap_or(&Val::Absent)
}

fn is_str(value: &Val<'_>, text: &[u8]) -> bool {
    value.str_bytes() == Some(text)
}

/// `session_attribute`: `gen_ai.conversation.id`, else `session.id`, the first that is a
/// non-empty string; [`BAD_SESSION`] when that one is no usable id.
/// Interned in `names` (a session's spans share one).
fn session_attribute(attributes: &Attributes<'_>, names: &mut Names) -> Option<Rc<str>> {
    for key in [CONVERSATION_ID, SESSION_ID] {
        let raw = attr(attributes, key);
        if raw.bad_id() {
            return Some(names.get(BAD_SESSION));
        }
        if let Some(value) = raw.usable_id() {
            return Some(names.get(value));
        }
    }
    None
}

/// `ns_time_to_ms`: integer ns (a JSON int, or a string of 1-20 ASCII digits) from 1 to
/// 2**64 - 1 to ms; `None` for anything else (a float, a bool, 0, out of range).
fn ns_time_to_ms(raw: Option<Raw<'_>>) -> Option<f64> {
    let raw = raw?;
    match Val::of(raw) {
        value @ (Val::Text(_) | Val::Str(_)) => {
            let digits = value.str_bytes()?;
            let valid = (1..=20).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit);
            if valid {
                ns_of(digits)
            } else {
                None
            }
        }
        Val::Num(_) | Val::BigInt => {
            // an int literal (no fraction, no exponent, not negative: -0 and below are < 1);
            // JSON writes no leading zero, so more than 20 digits is past 2**64 - 1
            let digits = raw.get().as_bytes();
            let int = digits.iter().all(u8::is_ascii_digit);
            if int && digits.len() <= 20 {
                ns_of(digits)
            } else {
                None
            }
        }
        _ => None, // a bool, null, an array or an object
    }
}

fn ns_of(digits: &[u8]) -> Option<f64> {
    let mut value: u128 = 0;
    for &d in digits {
        value = value * 10 + u128::from(d - b'0');
    }
    (1..=u128::from(u64::MAX))
        .contains(&value)
        .then(|| ns_to_ms(value))
}

fn hex_id<const N: usize>(value: &Val<'_>) -> Option<u128> {
    let bytes = value.str_bytes()?;
    if bytes.len() != N {
        return None;
    }
    let mut id: u128 = 0;
    for &b in bytes {
        let digit = (b as char).to_digit(16)?;
        id = (id << 4) | u128::from(digit);
    }
    Some(id)
}

/// What is kept of one span (`SpanRecord`): ids (as numbers, printed in lower-case
/// hex), session attributes, ms times, and what [`mark`] made of it.
#[derive(Debug, Clone)]
struct Span {
    index: usize,
    trace: u128,
    span: u64,
    parent: Option<u64>,
    session: Option<Rc<str>>,
    resource_session: Option<Rc<str>>,
    start_ms: Option<f64>,
    end_ms: Option<f64>,
    call_id: Option<Rc<str>>,
    tool_name: Option<Rc<str>>,
    agent: Option<Rc<str>>,
}

fn trace_text(trace: u128) -> String {
    format!("{trace:032x}")
}

fn span_text(span: u64) -> String {
    format!("{span:016x}")
}

/// A span's raw fields, gathered in one pass over its object (the last key wins).
#[derive(Default)]
struct RawSpan<'a> {
    trace: Val<'a>,
    span: Val<'a>,
    parent: Val<'a>,
    name: Val<'a>,
    start: Option<Raw<'a>>,
    end: Option<Raw<'a>>,
    attributes: Attributes<'a>,
}

/// What one span of a line gives, in input order (applied when the line parsed).
enum Event {
    Problem(&'static str),
    /// A span (not yet given its index), its batch's resource session filled in at the
    /// batch's end.
    Span(Box<Span>),
}

/// One batch of `resourceSpans`: the events of its last `scopeSpans` and of its last
/// `instrumentationLibrarySpans`, and its resource's session.
#[derive(Default)]
struct Batch {
    scope_spans: Option<(Vec<Event>, u64)>,
    library_spans: Option<(Vec<Event>, u64)>,
    resource_session: Option<Rc<str>>,
}

/// The attributes of an OTLP attribute list (`_attributes`): scanning the list's text,
/// each entry an object whose last `key` is a wanted key and whose last `value` is an
/// object sets that key's first `stringValue`.
fn attributes<'a>(scan: &mut Scan<'a>, depth: usize) -> Result<Attributes<'a>, SyntaxError> {
    let mut found: Attributes<'a> = Default::default();
    if scan.space() != Some(b'[') {
        scan.skip(depth)?;
        return Ok(found);
    }
    scan.array(depth + 1, |scan| {
        if scan.space() != Some(b'{') {
            return scan.skip(depth + 1);
        }
        let mut key: Val<'a> = Val::Absent;
        let mut value: Option<Val<'a>> = None; // Some: the last `value` is an object
        scan.object(depth + 2, |scan, name| {
            match name {
                b"key" => key = Val::of(scan.raw(depth + 2)?),
                b"value" => {
                    if scan.space() == Some(b'{') {
                        let mut string = Val::Absent;
                        scan.object(depth + 3, |scan, inner| {
                            if inner == b"stringValue" {
                                string = Val::of(scan.raw(depth + 3)?);
                                Ok(())
                            } else {
                                scan.skip(depth + 3)
                            }
                        })?;
                        value = Some(string);
                    } else {
                        scan.skip(depth + 2)?;
                        value = None;
                    }
                }
                _ => scan.skip(depth + 2)?,
            }
            Ok(())
        })?;
        if let (Some(key), Some(value)) = (key.str_bytes(), value) {
            if let Some(i) = ATTRIBUTE_KEYS.iter().position(|k| k.as_bytes() == key) {
                found[i].get_or_insert(value);
            }
        }
        Ok(())
    })?;
    Ok(found)
}

/// One span value of a `spans` array: its event (`_span` of `otlp.py`, without the
/// collector's part).
fn span_event<'a>(
    scan: &mut Scan<'a>,
    depth: usize,
    names: &mut Names,
) -> Result<Option<Event>, SyntaxError> {
    if scan.space() != Some(b'{') {
        scan.skip(depth)?;
        return Ok(Some(Event::Problem("invalid_span")));
    }
    let mut raw = RawSpan::default();
    scan.object(depth + 1, |scan, key| {
        let d = depth + 1;
        match key {
            b"traceId" => raw.trace = Val::of(scan.raw(d)?),
            b"spanId" => raw.span = Val::of(scan.raw(d)?),
            b"parentSpanId" => raw.parent = Val::of(scan.raw(d)?),
            b"name" => raw.name = Val::of(scan.raw(d)?),
            b"startTimeUnixNano" => raw.start = Some(scan.raw(d)?),
            b"endTimeUnixNano" => raw.end = Some(scan.raw(d)?),
            b"attributes" => raw.attributes = attributes(scan, d)?,
            _ => scan.skip(d)?,
        }
        Ok(())
    })?;
    let (Some(trace), Some(span)) = (hex_id::<32>(&raw.trace), hex_id::<16>(&raw.span)) else {
        return Ok(Some(Event::Problem("invalid_span_id")));
    };
    let end_given = raw.end.is_some_and(|r| r.get() != "null");
    let mut record = Span {
        index: 0,
        trace,
        span: span as u64,
        parent: hex_id::<16>(&raw.parent).map(|p| p as u64),
        session: session_attribute(&raw.attributes, names),
        resource_session: None,
        start_ms: ns_time_to_ms(raw.start),
        end_ms: ns_time_to_ms(raw.end),
        call_id: None,
        tool_name: None,
        agent: None,
    };
    match mark(&mut record, &raw.attributes, &raw.name, end_given, names) {
        Err(problem) => Ok(Some(Event::Problem(problem))),
        Ok(()) => Ok(Some(Event::Span(Box::new(record)))),
    }
}

/// `usable_text` of a span name without its `execute_tool ` prefix.
fn name_without_prefix(name: &Val<'_>) -> Option<String> {
    let bytes = name.str_bytes()?;
    let rest = bytes.strip_prefix(TOOL_PREFIX).unwrap_or(bytes);
    let text = std::str::from_utf8(rest).ok()?; // a lone surrogate's WTF-8 is no UTF-8
    (!text.is_empty()).then(|| text.to_string())
}

/// `mark_span` of `_spans.py`: a tool span (call id and tool name set), an agent span
/// (its lane key set), or neither; `Err` with the problem of an unusable tool span.
fn mark(
    record: &mut Span,
    attributes: &Attributes<'_>,
    name: &Val<'_>,
    end_given: bool,
    names: &mut Names,
) -> Result<(), &'static str> {
    let operation = attr(attributes, OPERATION);
    if is_str(operation, b"execute_tool") {
        if [CONVERSATION_ID, SESSION_ID, CALL_ID]
            .iter()
            .any(|&k| attr(attributes, k).bad_id())
        {
            return Err("invalid_id");
        }
        let tool = match attr(attributes, TOOL_NAME).usable_text() {
            Some(text) => Some(text.to_string()),
            None => name_without_prefix(name),
        };
        let call_id = attr(attributes, CALL_ID).usable_id();
        return tool_span(record, tool.as_deref(), call_id, end_given, names);
    }
    if is_str(operation, b"invoke_agent") {
        let agent = attr(attributes, AGENT_ID)
            .usable_id()
            .or_else(|| attr(attributes, AGENT_NAME).usable_id())
            .map(|agent| names.get(agent))
            .unwrap_or_else(|| span_text(record.span).into());
        record.agent = Some(agent);
        return Ok(());
    }
    let absent = matches!(operation, Val::Absent | Val::Null);
    if absent && (is_str(name, b"claude_code.tool") || is_str(attr(attributes, SPAN_TYPE), b"tool"))
    {
        if attr(attributes, CLAUDE_USE_ID).bad_id() || attr(attributes, SESSION_ID).bad_id() {
            return Err("invalid_id");
        }
        let tool = attr(attributes, CLAUDE_TOOL_NAME).usable_text();
        let call_id = attr(attributes, CLAUDE_USE_ID).usable_id();
        return tool_span(record, tool, call_id, end_given, names);
    }
    Ok(())
}

fn tool_span(
    record: &mut Span,
    name: Option<&str>,
    call_id: Option<&str>,
    end_given: bool,
    names: &mut Names,
) -> Result<(), &'static str> {
    let Some(name) = name else {
        return Err("invalid_tool_record");
    };
    if record.start_ms.is_none() || (end_given && record.end_ms.is_none()) {
        return Err("invalid_timestamp");
    }
    record.call_id = Some(match call_id {
        Some(id) => id.into(),
        None => span_text(record.span).into(),
    });
    record.tool_name = Some(names.get(name));
    Ok(())
}

/// A `spans`/`scopeSpans` container's events and item count: `spans` of a scope.
fn scope_events<'a>(
    scan: &mut Scan<'a>,
    depth: usize,
    names: &mut Names,
) -> Result<(Vec<Event>, u64), SyntaxError> {
    let mut events = Vec::new();
    let mut items = 0u64;
    if scan.space() != Some(b'[') {
        scan.skip(depth)?;
        return Ok((vec![Event::Problem("invalid_structure")], 1));
    }
    scan.array(depth + 1, |scan| {
        // a scope: its last `spans` (a list of spans), else none
        if scan.space() != Some(b'{') {
            scan.skip(depth + 1)?;
            items += 1;
            events.push(Event::Problem("invalid_structure"));
            return Ok(());
        }
        let mut spans: Option<(Vec<Event>, u64)> = None; // None: no `spans` key
        scan.object(depth + 2, |scan, key| {
            if key != b"spans" {
                return scan.skip(depth + 2);
            }
            if scan.space() != Some(b'[') {
                scan.skip(depth + 2)?;
                spans = Some((vec![Event::Problem("invalid_structure")], 1));
                return Ok(());
            }
            let mut found = (Vec::new(), 0u64);
            scan.array(depth + 3, |scan| {
                found.1 += 1;
                if let Some(event) = span_event(scan, depth + 3, names)? {
                    found.0.push(event);
                }
                Ok(())
            })?;
            spans = Some(found);
            Ok(())
        })?;
        if let Some((found, count)) = spans {
            events.extend(found);
            items += count;
        }
        Ok(())
    })?;
    Ok((events, items))
}

/// One batch of `resourceSpans` (an object).
fn batch<'a>(scan: &mut Scan<'a>, depth: usize, names: &mut Names) -> Result<Batch, SyntaxError> {
    let mut batch = Batch::default();
    scan.object(depth + 1, |scan, key| {
        let d = depth + 1;
        match key {
            b"resource" => {
                if scan.space() == Some(b'{') {
                    let mut found: Attributes<'a> = Default::default();
                    scan.object(d + 1, |scan, key| {
                        if key == b"attributes" {
                            found = attributes(scan, d + 1)?;
                            Ok(())
                        } else {
                            scan.skip(d + 1)
                        }
                    })?;
                    batch.resource_session = session_attribute(&found, names);
                } else {
                    scan.skip(d)?;
                    batch.resource_session = None;
                }
            }
            b"scopeSpans" => batch.scope_spans = Some(scope_events(scan, d, names)?),
            b"instrumentationLibrarySpans" => {
                batch.library_spans = Some(scope_events(scan, d, names)?)
            }
            _ => scan.skip(d)?,
        }
        Ok(())
    })?;
    Ok(batch)
}

/// What one top-level document gives: `None` when it holds no `resourceSpans`, with the
/// other signal it names (`ignored` kind); else its events and items.
enum Document {
    Other(&'static [u8]),
    Spans(Vec<Event>, u64),
}

/// One line's object (`_read_document` of `otlp.py`), read in one pass; a line
/// nesting deeper than json reads ([`PY_MAX_JSON_DEPTH`]) is a [`SyntaxError`].
fn document(text: &str, names: &mut Names) -> Result<Document, SyntaxError> {
    let mut spans: Option<(Vec<Event>, u64)> = None;
    let mut signals = [false; 3];
    Scan::line_within(text, PY_MAX_JSON_DEPTH, |scan, key| {
        if key == b"resourceSpans" {
            let mut events = Vec::new();
            let mut items = 0u64;
            if scan.space() == Some(b'[') {
                scan.array(2, |scan| {
                    if scan.space() != Some(b'{') {
                        scan.skip(2)?;
                        items += 1;
                        events.push(Event::Problem("invalid_structure"));
                        return Ok(());
                    }
                    let found = batch(scan, 2, names)?;
                    let (mut scope, count) = match (found.scope_spans, found.library_spans) {
                        (Some(scope), _) => scope,
                        (None, Some(library)) => library,
                        (None, None) => (Vec::new(), 0),
                    };
                    for event in &mut scope {
                        if let Event::Span(span) = event {
                            span.resource_session = found.resource_session.clone();
                        }
                    }
                    events.extend(scope);
                    items += count;
                    Ok(())
                })?;
            } else {
                scan.skip(1)?;
                events.push(Event::Problem("invalid_structure"));
                items = 1;
            }
            spans = Some((events, items));
            return Ok(());
        }
        if let Some(i) = OTHER_SIGNALS.iter().position(|s| *s == key) {
            signals[i] = true;
        }
        scan.skip(1)
    })?;
    Ok(match spans {
        Some((events, items)) => Document::Spans(events, items),
        None => Document::Other(
            OTHER_SIGNALS
                .iter()
                .zip(signals)
                .find(|(_, seen)| *seen)
                .map_or(b"unknown_record".as_slice(), |(kind, _)| kind),
        ),
    })
}

type Key = (u128, u64);

/// `SpanCollector` of `_spans.py`: every span of the input, turned into lanes at the end.
#[derive(Default)]
struct Collector {
    spans: Vec<Span>,
    by_key: HashMap<Key, usize>,
    chain_memo: HashMap<Key, Option<Rc<str>>>,
    trace_sessions: Option<HashMap<u128, Rc<str>>>,
    top_agent_counts: Option<HashMap<u128, u64>>,
}

impl Collector {
    fn add(&mut self, mut span: Span, account: &mut LineAccount) {
        span.index = self.spans.len();
        self.by_key
            .entry((span.trace, span.span))
            .or_insert(span.index);
        if span.call_id.is_none() {
            account.ignore(b"non_tool_span");
        }
        self.spans.push(span);
    }

    fn parent(&self, span: usize) -> Option<usize> {
        let s = &self.spans[span];
        let parent = s.parent?;
        self.by_key.get(&(s.trace, parent)).copied()
    }

    fn key(&self, span: usize) -> Key {
        (self.spans[span].trace, self.spans[span].span)
    }

    fn ancestor_session(&mut self, start: Option<usize>) -> Option<Rc<str>> {
        let mut path: Vec<Key> = Vec::new();
        let mut seen: HashSet<Key> = HashSet::new();
        let mut found: Option<Rc<str>> = None;
        let mut node = start;
        while let Some(n) = node {
            let key = self.key(n);
            if let Some(memo) = self.chain_memo.get(&key) {
                found = memo.clone();
                break;
            }
            if !seen.insert(key) {
                break;
            }
            path.push(key);
            if let Some(session) = &self.spans[n].session {
                found = Some(session.clone());
                break;
            }
            node = self.parent(n);
        }
        for key in path {
            self.chain_memo.insert(key, found.clone());
        }
        found
    }

    fn session_of(&mut self, span: usize) -> Rc<str> {
        if let Some(session) = &self.spans[span].session {
            return session.clone();
        }
        let parent = self.parent(span);
        if let Some(found) = self.ancestor_session(parent) {
            return found;
        }
        if let Some(resource) = &self.spans[span].resource_session {
            return resource.clone();
        }
        let trace = self.spans[span].trace;
        if let Some(found) = self.trace_session(trace) {
            return found;
        }
        trace_text(trace).into()
    }

    fn trace_session(&mut self, trace: u128) -> Option<Rc<str>> {
        let sessions = self.trace_sessions.get_or_insert_with(|| {
            let mut found: HashMap<u128, Vec<Rc<str>>> = HashMap::new();
            for span in &self.spans {
                if let Some(session) = &span.session {
                    let values = found.entry(span.trace).or_default();
                    if !values.contains(session) {
                        values.push(session.clone());
                    }
                }
            }
            found
                .into_iter()
                .filter(|(_, values)| values.len() == 1)
                .map(|(trace, mut values)| (trace, values.remove(0)))
                .collect()
        });
        sessions.get(&trace).cloned()
    }

    /// The span's ancestors in its trace, nearest first (safe against parent cycles).
    fn ancestors(&self, span: usize) -> Vec<usize> {
        let mut seen: HashSet<Key> = HashSet::new();
        seen.insert(self.key(span));
        let mut out = Vec::new();
        let mut node = self.parent(span);
        while let Some(n) = node {
            if !seen.insert(self.key(n)) {
                break;
            }
            out.push(n);
            node = self.parent(n);
        }
        out
    }

    fn depth(&self, span: usize) -> usize {
        self.ancestors(span).len()
    }

    fn nested(&self, agent: usize) -> bool {
        self.ancestors(agent).into_iter().any(|n| {
            let node = &self.spans[n];
            node.agent.is_some() || node.call_id.is_some()
        })
    }

    fn top_agents(&mut self) -> &HashMap<u128, u64> {
        if self.top_agent_counts.is_none() {
            let mut counts: HashMap<u128, u64> = HashMap::new();
            for i in 0..self.spans.len() {
                if self.spans[i].agent.is_some() && !self.nested(i) {
                    *counts.entry(self.spans[i].trace).or_default() += 1;
                }
            }
            self.top_agent_counts = Some(counts);
        }
        self.top_agent_counts.get_or_insert_with(HashMap::new)
    }

    fn lane_of(&mut self, span: usize) -> Rc<str> {
        let agent = self
            .ancestors(span)
            .into_iter()
            .find(|&n| self.spans[n].agent.is_some());
        let Some(agent) = agent else {
            return "main".into();
        };
        let trace = self.spans[agent].trace;
        if !self.nested(agent) && self.top_agents().get(&trace) == Some(&1) {
            return "main".into();
        }
        self.spans[agent]
            .agent
            .clone()
            .unwrap_or_else(|| "main".into())
    }

    fn outer_copy(&self, span: usize) -> Option<usize> {
        let name = &self.spans[span].tool_name;
        for n in self.ancestors(span) {
            let node = &self.spans[n];
            if node.agent.is_some() {
                return None;
            }
            if node.call_id.is_some() && node.tool_name == *name {
                return Some(n);
            }
        }
        None
    }

    /// `_rank`: innermost wins (ended, shortest, deepest, first).
    fn rank(&self, span: usize) -> (u8, f64, i64, usize) {
        let s = &self.spans[span];
        let start = s.start_ms.unwrap_or(0.0);
        match s.end_ms {
            None => (1, 0.0, 0, s.index),
            Some(end) if end - start < 0.0 => (2, 0.0, 0, s.index),
            Some(end) => (0, end - start, -(self.depth(span) as i64), s.index),
        }
    }

    fn copies(&mut self) -> Vec<Vec<usize>> {
        let tools: Vec<usize> = (0..self.spans.len())
            .filter(|&i| self.spans[i].call_id.is_some())
            .collect();
        let mut root: HashMap<usize, usize> = tools.iter().map(|&i| (i, i)).collect();
        fn find(root: &mut HashMap<usize, usize>, mut index: usize) -> usize {
            while root[&index] != index {
                let grand = root[&root[&index]];
                root.insert(index, grand);
                index = grand;
            }
            index
        }
        fn join(root: &mut HashMap<usize, usize>, a: usize, b: usize) {
            let (ra, rb) = (find(root, a), find(root, b));
            if ra != rb {
                root.insert(ra.max(rb), ra.min(rb));
            }
        }
        let mut by_call: HashMap<(Rc<str>, Rc<str>), usize> = HashMap::new();
        for &span in &tools {
            let session = self.session_of(span);
            let call = self.spans[span]
                .call_id
                .clone()
                .unwrap_or_else(|| "".into());
            match by_call.get(&(session.clone(), call.clone())) {
                Some(&first) => join(&mut root, span, first),
                None => {
                    by_call.insert((session, call), span);
                }
            }
            if let Some(outer) = self.outer_copy(span) {
                join(&mut root, span, outer);
            }
        }
        let mut order: Vec<usize> = Vec::new();
        let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
        for &span in &tools {
            let r = find(&mut root, span);
            groups
                .entry(r)
                .or_insert_with(|| {
                    order.push(r);
                    Vec::new()
                })
                .push(span);
        }
        order
            .into_iter()
            .map(|r| groups.remove(&r).unwrap_or_default())
            .collect()
    }

    fn copied_timing(&self, tools: &[usize]) -> HashSet<usize> {
        let mut by_parent: HashMap<usize, Vec<usize>> = HashMap::new();
        for &span in tools {
            let Some(parent) = self.parent(span) else {
                continue;
            };
            let (s, p) = (&self.spans[span], &self.spans[parent]);
            if s.end_ms.is_some() && s.start_ms == p.start_ms && s.end_ms == p.end_ms {
                by_parent.entry(parent).or_default().push(span);
            }
        }
        by_parent
            .into_values()
            .filter(|group| group.len() >= 2)
            .flatten()
            .collect()
    }

    /// `lanes` of `SpanCollector`: duplicates reduced to the innermost copy, each call to
    /// its session's and agent's lane, synthetic timing set aside, calls fed in order of
    /// start time.
    fn lanes(
        &mut self,
        settings: &Settings,
        account: &mut LineAccount,
    ) -> Result<Vec<LaneOut>, Failure> {
        let mut winners: Vec<usize> = Vec::new();
        for copies in self.copies() {
            let best = if copies.len() > 1 {
                let mut best = copies[0];
                let mut best_rank = self.rank(best);
                for &c in &copies[1..] {
                    let rank = self.rank(c);
                    if rank.partial_cmp(&best_rank) == Some(std::cmp::Ordering::Less) {
                        best = c;
                        best_rank = rank;
                    }
                }
                best
            } else {
                copies[0]
            };
            for _ in 1..copies.len() {
                account.ignore(b"duplicate_span");
            }
            winners.push(best);
        }
        winners.sort_unstable();
        let copied = self.copied_timing(&winners);
        let mut keys: Vec<(Rc<str>, Rc<str>)> = Vec::new();
        let mut calls: HashMap<(Rc<str>, Rc<str>), Vec<usize>> = HashMap::new();
        for &span in &winners {
            let session = self.session_of(span);
            if &*session == BAD_SESSION {
                account.problem("invalid_id");
                continue;
            }
            let key = (session, self.lane_of(span));
            let list = calls.entry(key.clone()).or_insert_with(|| {
                keys.push(key.clone());
                Vec::new()
            });
            let s = &self.spans[span];
            if s.end_ms == s.start_ms || copied.contains(&span) {
                account.ignore(b"synthetic_timing");
                continue;
            }
            account.use_line();
            list.push(span);
        }
        let mut lanes = Vec::with_capacity(keys.len());
        for key in keys {
            let mut list = calls.remove(&key).unwrap_or_default();
            list.sort_by(|&a, &b| {
                let (a, b) = (self.spans[a].start_ms, self.spans[b].start_ms);
                a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal)
            });
            let mut stream = LaneStream::new(
                settings,
                settings.eval_names.clone().into(),
                settings.batchable_names.clone().into(),
            );
            for span in list {
                let s = &self.spans[span];
                let (Some(call_id), Some(name), Some(start)) =
                    (s.call_id.clone(), s.tool_name.clone(), s.start_ms)
                else {
                    continue; // every winner is a tool span with a start
                };
                stream.start(call_id.clone(), name, start, None);
                if let Some(end) = s.end_ms {
                    stream.end(&call_id, end)?;
                }
            }
            lanes.push(LaneOut::new(
                0,
                key.0.to_string(),
                key.1.to_string(),
                stream.finish_lane(0.0, &[], Timing::Execution),
            ));
        }
        Ok(lanes)
    }
}

/// Whether the input is read as JSON Lines (`iter_json_values`): `Some(true)` when its
/// first line with content is a JSON object on its own or begins neither `{` nor `[`;
/// `Some(false)` when it is whole document(s); `None` when that line cannot be decided
/// here with certainty (it nests near Python's limit).
fn json_lines(path: &Path) -> Result<Option<bool>, Failure> {
    let mut reader = LineReader::new(open_plain(path)?);
    while let Some((raw, _)) = reader.next_line()? {
        // the BOM is dropped from whichever line is looked at (`removeprefix(_BOM)`)
        let line = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(raw);
        if line.iter().all(|&b| is_py_space(b)) {
            continue;
        }
        let start = line.iter().position(|&b| !is_py_space(b)).unwrap_or(0);
        if !matches!(line[start], b'{' | b'[') {
            return Ok(Some(true));
        }
        let Ok(text) = std::str::from_utf8(line) else {
            return Ok(Some(false));
        };
        if nesting_exceeds(line, FIRST_LINE_SURE_DEPTH) {
            return Ok(None);
        }
        let object = Scan::line(text, |scan, _| scan.skip(1)).is_ok() && !int_too_long(line);
        return Ok(Some(object));
    }
    Ok(Some(true))
}

fn read_otlp_once(path: &Path, settings: &Settings) -> Result<UnitOut, Failure> {
    if json_lines(path)? != Some(true) {
        return Err(Failure::Read(ReadError::Io(io::Error::new(
            io::ErrorKind::Unsupported,
            "OTLP documents are read by the Python reader",
        ))));
    }
    let mut account = LineAccount::default();
    let mut collector = Collector::default();
    let mut names = Names::default();
    for_each_object_line(
        open_plain(path)?,
        &mut account,
        PY_MAX_JSON_DEPTH,
        |text, account| {
            // a line the scan fails (within json's depth), or one with an int json
            // refuses, is named by json's first failure
            let parsed = match document(text, &mut names) {
                Err(SyntaxError) => {
                    return Ok(Some(
                        json_failure(text, PY_MAX_JSON_DEPTH).unwrap_or("invalid_json"),
                    ))
                }
                Ok(parsed) => parsed,
            };
            if int_too_long(text.as_bytes()) {
                return Ok(Some(
                    json_failure(text, PY_MAX_JSON_DEPTH).unwrap_or("invalid_json"),
                ));
            }
            match parsed {
                Document::Other(kind) => account.ignore(kind),
                Document::Spans(events, items) => {
                    for event in events {
                        match event {
                            Event::Problem(reason) => account.problem(reason),
                            Event::Span(span) => collector.add(*span, account),
                        }
                    }
                    if items == 0 {
                        account.ignore(b"no_spans");
                    } else {
                        account.lines_read += items - 1;
                    }
                }
            }
            Ok(None)
        },
    )?;
    let lanes = collector.lanes(settings, &mut account)?;
    Ok(UnitOut {
        accounts: vec![account],
        lanes,
        read_again_in_batch: false,
    })
}

/// The `otlp` reader: a unit is one OTLP/JSON file (its session id unused: sessions
/// come from the spans). JSON Lines files are read here; a file of whole documents is
/// declined (`Unsupported`), for the Python reader to read. A unit of more or fewer
/// than one file is refused (`InvalidInput`).
pub struct Otlp;

impl Reader for Otlp {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        _threads: usize,
    ) -> Result<UnitOut, ReadError> {
        let (path, _) = unit.one_file("an otlp")?;
        with_fallback(settings, |s| read_otlp_once(path, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::protocol::fixtures::{read_lines, settings};

    /// The raw value of `text`, as the scan hands it over (its line kept for the test).
    fn raw(text: &str) -> Option<Raw<'static>> {
        let line: &'static str = Box::leak(format!(r#"{{"v":{text}}}"#).into_boxed_str());
        let mut found = None;
        Scan::line(line, |scan, _| {
            found = Some(scan.raw(1)?);
            Ok(())
        })
        .unwrap();
        found
    }

    #[test]
    fn ns_times_are_ints_or_digit_strings_from_1_to_2_pow_64_less_1() {
        assert_eq!(
            ns_time_to_ms(raw(r#""1751247501952174001""#)),
            Some(1751247501952.174)
        );
        assert_eq!(
            ns_time_to_ms(raw("1544712660000000000")),
            Some(1544712660000.0)
        );
        assert_eq!(
            ns_time_to_ms(raw(r#""1751247501952174197""#)),
            Some(1751247501952.1743)
        );
        assert_eq!(ns_time_to_ms(raw(r#""00001""#)), Some(1e-6));
        assert_eq!(ns_time_to_ms(raw(r#""\u0031""#)), Some(1e-6));
        assert_eq!(
            ns_time_to_ms(raw("18446744073709551615")),
            Some(18446744073709.55)
        );
        for bad in [
            "0",
            r#""0""#,
            "-5",
            r#""-5""#,
            "1.5e18",
            "1e3",
            "18446744073709551616",
            r#""000000000000000000001""#,
            "true",
            "null",
            r#""""#,
            r#"" 1""#,
            "[1]",
        ] {
            assert_eq!(ns_time_to_ms(raw(bad)), None, "{bad}");
        }
        assert_eq!(ns_time_to_ms(None), None);
    }

    fn span_line(spans: &[String]) -> String {
        format!(
            r#"{{"resourceSpans":[{{"resource":{{"attributes":[{{"key":"session.id","value":{{"stringValue":"res"}}}}]}},"scopeSpans":[{{"spans":[{}]}}]}}]}}"#,
            spans.join(",")
        )
    }

    fn span(id: &str, parent: &str, start: u64, end: u64, attrs: &[(&str, &str)]) -> String {
        let attrs: Vec<String> = attrs
            .iter()
            .map(|(k, v)| format!(r#"{{"key":"{k}","value":{{"stringValue":"{v}"}}}}"#))
            .collect();
        format!(
            r#"{{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"{id}","parentSpanId":"{parent}","name":"execute_tool read","startTimeUnixNano":"{}","endTimeUnixNano":"{}","attributes":[{}]}}"#,
            1_767_225_600_000_000_000u64 + start * 1_000_000,
            1_767_225_600_000_000_000u64 + end * 1_000_000,
            attrs.join(",")
        )
    }

    #[test]
    fn duplicates_synthetic_timing_and_sessions_follow_the_rules() {
        let tool = ("gen_ai.operation.name", "execute_tool");
        let lines = [
            // the agent (conv-1): a1 [100, 200] and a2 [150, 300] below it, a3 a copy of a2
            // (same call id) below a2, [160, 290]: innermost wins, a2 is a duplicate
            span_line(&[
                span(
                    "00000000000000a0",
                    "",
                    0,
                    1000,
                    &[
                        ("gen_ai.operation.name", "invoke_agent"),
                        ("gen_ai.conversation.id", "conv-1"),
                    ],
                ),
                span("00000000000000a1", "00000000000000a0", 100, 200, &[tool]),
                span(
                    "00000000000000a2",
                    "00000000000000a0",
                    150,
                    300,
                    &[tool, ("gen_ai.tool.call.id", "c2")],
                ),
            ]),
            span_line(&[span(
                "00000000000000a3",
                "00000000000000a2",
                160,
                290,
                &[tool, ("gen_ai.tool.call.id", "c2")],
            )]),
            // no parent: the resource's session; zero length: synthetic timing
            span_line(&[span("00000000000000b0", "", 400, 400, &[tool])]),
            String::new(),
            r#"{"resourceMetrics":[]}"#.to_string(),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = read_lines(&Otlp, "otlp", &lines, "unused");
        let account = &out.accounts[0];
        // items: 3 + 1 + 1 spans, a blank line, a metrics line
        assert_eq!((account.lines_read, account.lines_used), (7, 2));
        assert_eq!(
            account.ignored,
            vec![
                (b"non_tool_span".to_vec(), 1),
                (b"blank_line".to_vec(), 1),
                (b"resourceMetrics".to_vec(), 1),
                (b"duplicate_span".to_vec(), 1),
                (b"synthetic_timing".to_vec(), 1),
            ]
        );
        let lanes: Vec<(&str, &str)> = out
            .lanes
            .iter()
            .map(|l| (l.session_id.as_str(), l.lane_id.as_str()))
            .collect();
        assert_eq!(lanes, [("conv-1", "main"), ("res", "main")]);
        // a1 [100, 200] and a3 [160, 290]: one wave, 100 + 130 - 190 = 40 ms saved
        assert_eq!(out.lanes[0].summary.modeled_wallclock_saved_ms, 40.0);
        assert_eq!(out.lanes[1].summary.paired_calls, 0);
    }

    #[test]
    fn documents_and_undecided_first_lines_are_declined() {
        let declined = |text: &str| {
            let path = std::env::temp_dir().join(format!(
                "wm-native-{}-otlp-doc-{}.json",
                std::process::id(),
                text.len()
            ));
            std::fs::write(&path, text).unwrap();
            let paths = [path.as_path()];
            let ids = ["s".to_string()];
            let unit = Unit {
                paths: &paths,
                session_ids: &ids,
            };
            let out = Otlp.read(&unit, &settings(), 1);
            std::fs::remove_file(&path).unwrap();
            out.is_err()
        };
        assert!(declined("{\n  \"resourceSpans\": []\n}\n"));
        assert!(declined("[{\"resourceSpans\": []}]\n"));
        assert!(declined("\n{\"resourceSpans\": []} {}\n"));
        assert!(declined("{\"a\": NaN}\n"));
        assert!(declined(&format!("{{\"a\": {}}}\n", "1".repeat(4301))));
        assert!(declined(&format!(
            "{{\"a\": {}{}}}\n",
            "[".repeat(950),
            "]".repeat(950)
        )));
        assert!(!declined("\u{feff}\n  {\"resourceSpans\": []}\r\n[1]\n"));
        assert!(!declined("text\n{\n"));
        assert!(!declined(""));
    }
}
