//! What the span-shaped readers share (`wavemetrics/readers/_spans.py`, `docs/formats.md`
//! "Span-shaped formats"): the few fields kept of each span ([`Span`]), how a span is
//! marked a tool or agent span ([`mark`]), the `SpanCollector`'s rules that turn the
//! spans of a whole input into lanes ([`Collector`]), and how the shape of an input is
//! decided ([`json_lines`]).

use super::lines::{for_each_object_line, int_too_long, json_failure, Names};
use super::protocol::{Failure, LaneOut};
use crate::account::LineAccount;
use crate::activity::Timing;
use crate::arena::{entry_at, push_entry};
use crate::io::open_input;
use crate::json::{Raw, Scan, SyntaxError, Val, MAX_JSON_DEPTH};
use crate::lines::{is_py_space, LineReader};
use crate::summary::{LaneStream, Settings};
use crate::time::ns_to_ms;
use hashbrown::{DefaultHashBuilder, HashMap, HashSet, HashTable};
use std::hash::BuildHasher;
use std::path::Path;
use std::rc::Rc;

/// A span file of one JSON value per line (`iter_json_values` of a JSON Lines input):
/// each line's value by `parse` (within [`MAX_JSON_DEPTH`]) handed to `apply`; a line the
/// scan fails, or one with an int `json` refuses, is named by `json`'s first failure.
pub(super) fn for_each_span_line<T>(
    path: &Path,
    account: &mut LineAccount,
    names: &mut Names,
    parse: fn(&str, &mut Names) -> Result<T, SyntaxError>,
    mut apply: impl FnMut(T, &mut LineAccount),
) -> Result<(), Failure> {
    for_each_object_line(
        open_input(path)?,
        account,
        MAX_JSON_DEPTH,
        |text, account| {
            let failed = || {
                Ok(Some(
                    json_failure(text, MAX_JSON_DEPTH).unwrap_or("invalid_json"),
                ))
            };
            let Ok(value) = parse(text, names) else {
                return failed();
            };
            if int_too_long(text.as_bytes()) {
                return failed();
            }
            apply(value, account);
            Ok(None)
        },
    )
}
/// The attribute keys the span rules read (`SPAN_ATTRIBUTES`), by index.
pub(super) const ATTRIBUTE_KEYS: [&str; 10] = [
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
pub(super) const OPERATION: usize = 0;
pub(super) const CALL_ID: usize = 1;
pub(super) const TOOL_NAME: usize = 2;
pub(super) const CONVERSATION_ID: usize = 3;
pub(super) const SESSION_ID: usize = 4;
pub(super) const AGENT_ID: usize = 5;
pub(super) const AGENT_NAME: usize = 6;
pub(super) const SPAN_TYPE: usize = 7;
pub(super) const CLAUDE_TOOL_NAME: usize = 8;
pub(super) const CLAUDE_USE_ID: usize = 9;

/// `BAD_SESSION` of `_spans.py`: no usable id holds NUL.
pub(super) const BAD_SESSION: &str = "\u{0}bad session id";
pub(super) const TOOL_PREFIX: &[u8] = b"execute_tool ";

/// The wanted attributes of a span or resource: per key, the first entry's
/// `stringValue` (`found.setdefault`), `Some(Val::Absent)` when that entry's value
/// object has none.
pub(super) type Attributes<'a> = [Option<Val<'a>>; 10];

pub(super) fn attr<'b, 'a>(attributes: &'b Attributes<'a>, key: usize) -> &'b Val<'a> {
    attributes[key].as_ref().unwrap_or(&Val::Absent)
}

pub(super) fn is_str(value: &Val<'_>, text: &[u8]) -> bool {
    value.str_bytes() == Some(text)
}

/// `session_attribute`: `gen_ai.conversation.id`, else `session.id`, the first that is a
/// non-empty string; [`BAD_SESSION`] when that one is no usable id.
/// Interned in `names` (a session's spans share one).
pub(super) fn session_attribute(attributes: &Attributes<'_>, names: &mut Names) -> Option<Rc<str>> {
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
pub(super) fn ns_time_to_ms(raw: Option<Raw<'_>>) -> Option<f64> {
    let raw = raw?;
    // classified by the first byte (a number is not converted to be thrown away)
    match raw.get().as_bytes().first() {
        Some(b'"') => {
            let value = Val::of(raw);
            let digits = value.str_bytes()?;
            let valid = (1..=20).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit);
            if valid {
                ns_of(digits)
            } else {
                None
            }
        }
        Some(b'-' | b'0'..=b'9') => {
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

pub(super) fn ns_of(digits: &[u8]) -> Option<f64> {
    let mut value: u128 = 0;
    for &d in digits {
        value = value * 10 + u128::from(d - b'0');
    }
    (1..=u128::from(u64::MAX))
        .contains(&value)
        .then(|| ns_to_ms(value))
}

/// What is read of one span (`SpanRecord`): ids (as numbers, printed in lower-case
/// hex), session attributes, ms times, and what [`mark`] made of it; the collector keeps
/// it as a [`Kept`].
#[derive(Debug, Clone)]
pub(super) struct Span {
    pub(super) trace: u128,
    pub(super) span: u64,
    pub(super) parent: Option<u64>,
    pub(super) session: Option<Rc<str>>,
    pub(super) resource_session: Option<Rc<str>>,
    pub(super) start_ms: Option<f64>,
    pub(super) end_ms: Option<f64>,
    pub(super) call_id: Option<Rc<str>>,
    pub(super) tool_name: Option<Rc<str>>,
    pub(super) agent: Option<Rc<str>>,
}

pub(super) fn trace_text(trace: u128) -> String {
    format!("{trace:032x}")
}

pub(super) fn span_text(span: u64) -> String {
    format!("{span:016x}")
}

/// What one span of a line gives, in input order (applied when the line parsed).
pub(super) enum Event {
    Problem(&'static str),
    /// A span (not yet given its index), its batch's resource session filled in at the
    /// batch's end.
    Span(Box<Span>),
}

/// `usable_text` of a span name without its `execute_tool ` prefix.
pub(super) fn name_without_prefix(name: &Val<'_>) -> Option<String> {
    let bytes = name.str_bytes()?;
    let rest = bytes.strip_prefix(TOOL_PREFIX).unwrap_or(bytes);
    let text = std::str::from_utf8(rest).ok()?; // a lone surrogate's WTF-8 is no UTF-8
    (!text.is_empty()).then(|| text.to_string())
}

/// `mark_span` of `_spans.py`: a tool span (call id and tool name set), an agent span
/// (its lane key set), or neither; `Err` with the problem of an unusable tool span.
pub(super) fn mark(
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

pub(super) fn tool_span(
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

/// No string, span or trace (a [`Kept`] field that is unset).
const NONE: u32 = u32::MAX;
/// The bit of [`Kept::trace`] set when the span names a parent.
const HAS_PARENT: u32 = 1 << 31;

/// Strings kept once each (sessions, tool and agent names, call ids): their bytes in
/// one arena (the length as LEB128, then the bytes), a string's id its arena offset,
/// found again by a table of 4-byte entries. Ids come from untrusted files, so the
/// table's hasher is randomly seeded.
#[derive(Default)]
pub(super) struct Strings {
    arena: Vec<u8>,
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

/// The string at arena offset `at` (a whole `str` was written there).
fn text_at(arena: &[u8], at: u32) -> &str {
    std::str::from_utf8(entry_at(arena, at as usize)).unwrap_or_default()
}

impl Strings {
    /// The id of `text`, kept when new; `None` when the arena would pass 4 GiB.
    pub(super) fn id(&mut self, text: &str) -> Option<u32> {
        self.id_new(text).map(|(id, _)| id)
    }

    /// [`Strings::id`], and whether `text` was new.
    fn id_new(&mut self, text: &str) -> Option<(u32, bool)> {
        let hash = self.hasher.hash_one(text);
        let arena = &self.arena;
        if let Some(&at) = self.table.find(hash, |&at| text_at(arena, at) == text) {
            return Some((at, false));
        }
        let at = u32::try_from(self.arena.len())
            .ok()
            .filter(|&at| at < NONE)?;
        push_entry(&mut self.arena, text.as_bytes());
        let (arena, hasher) = (&self.arena, &self.hasher);
        self.table
            .insert_unique(hash, at, |&at| hasher.hash_one(text_at(arena, at)));
        Some((at, true))
    }

    /// The string of `id` (given by [`Strings::id`]).
    pub(super) fn get(&self, id: u32) -> &str {
        text_at(&self.arena, id)
    }
}

/// What the collector keeps of a [`Span`], 48 bytes: times as ms (NaN for none: a time
/// read is never NaN), ids as numbers, strings and traces as ids ([`NONE`] for none).
#[derive(Clone, Copy, Debug)]
struct Kept {
    span: u64,
    parent: u64,
    start: f64,
    end: f64,
    /// The trace's index, [`HAS_PARENT`] set when `parent` is one.
    trace: u32,
    session: u32,
    resource: u32,
    /// The call id of a tool span ([`NONE`] for any other span).
    call: u32,
    /// A tool span's tool name, an agent span's lane key, else [`NONE`].
    name: u32,
}

fn ms_or_none(ms: f64) -> Option<f64> {
    (!ms.is_nan()).then_some(ms)
}

impl Kept {
    fn trace(&self) -> u32 {
        self.trace & !HAS_PARENT
    }
    fn start(&self) -> Option<f64> {
        ms_or_none(self.start)
    }
    fn end(&self) -> Option<f64> {
        ms_or_none(self.end)
    }
    fn is_tool(&self) -> bool {
        self.call != NONE
    }
    fn is_agent(&self) -> bool {
        self.call == NONE && self.name != NONE
    }
}

pub(super) type Key = (u32, u64);

/// `SpanCollector` of `_spans.py`: every span of the input, turned into lanes at the end.
#[derive(Default)]
pub(super) struct Collector {
    spans: Vec<Kept>,
    /// The first span of each (trace, span id), by index.
    by_key: HashTable<u32>,
    hasher: DefaultHashBuilder,
    traces: Vec<u128>,
    trace_ids: HashMap<u128, u32>,
    strings: Strings,
    /// The call ids met before as any string (a call seen twice is among them): only
    /// their calls can be copies of one another by call id.
    repeated: HashSet<u32>,
    /// An input past what the indices hold (2**31 traces, 2**32 - 1 spans, a 4 GiB
    /// string arena): handed back to Python at the end.
    full: bool,
    chain_memo: HashMap<Key, u32>,
    trace_sessions: Option<HashMap<u32, u32>>,
    top_agent_counts: Option<HashMap<u32, u64>>,
}

impl Collector {
    /// How many spans are kept.
    pub(super) fn len(&self) -> usize {
        self.spans.len()
    }

    fn find(&self, key: Key) -> Option<usize> {
        let hash = self.hasher.hash_one(key);
        let spans = &self.spans;
        self.by_key
            .find(hash, |&i| Self::key_of(&spans[i as usize]) == key)
            .map(|&i| i as usize)
    }

    fn key_of(span: &Kept) -> Key {
        (span.trace(), span.span)
    }

    /// Forgets the spans kept since there were `len` (a document that did not parse, a
    /// span list a later key replaced): as if they had never been added (their strings
    /// stay, unused).
    pub(super) fn truncate(&mut self, len: usize) {
        for i in len..self.spans.len() {
            let key = Self::key_of(&self.spans[i]);
            let hash = self.hasher.hash_one(key);
            let spans = &self.spans;
            if let Ok(entry) = self
                .by_key
                .find_entry(hash, |&j| Self::key_of(&spans[j as usize]) == key)
            {
                if *entry.get() as usize >= len {
                    entry.remove();
                }
            }
        }
        self.spans.truncate(len);
    }

    fn string(&mut self, text: Option<&str>) -> u32 {
        let Some(text) = text else {
            return NONE;
        };
        self.strings.id(text).unwrap_or_else(|| {
            self.full = true;
            NONE
        })
    }

    pub(super) fn add(&mut self, span: Span, account: &mut LineAccount) {
        let Some(index) = u32::try_from(self.spans.len()).ok().filter(|&i| i < NONE) else {
            self.full = true;
            return;
        };
        let traces = self.traces.len();
        let trace = *self.trace_ids.entry(span.trace).or_insert_with(|| {
            self.traces.push(span.trace);
            u32::try_from(traces).unwrap_or(HAS_PARENT)
        });
        if trace >= HAS_PARENT {
            self.full = true;
            return;
        }
        let (call, name) = match (&span.call_id, &span.tool_name, &span.agent) {
            (Some(call), Some(tool), _) => {
                let call = match self.strings.id_new(call) {
                    Some((id, new)) => {
                        if !new {
                            self.repeated.insert(id);
                        }
                        id
                    }
                    None => {
                        self.full = true;
                        NONE
                    }
                };
                (call, self.string(Some(tool)))
            }
            (_, _, agent) => (NONE, self.string(agent.as_deref())),
        };
        let kept = Kept {
            span: span.span,
            parent: span.parent.unwrap_or(0),
            start: span.start_ms.unwrap_or(f64::NAN),
            end: span.end_ms.unwrap_or(f64::NAN),
            trace: trace | if span.parent.is_some() { HAS_PARENT } else { 0 },
            session: self.string(span.session.as_deref()),
            resource: self.string(span.resource_session.as_deref()),
            call,
            name,
        };
        if call == NONE {
            account.ignore(b"non_tool_span");
        }
        let key = Self::key_of(&kept);
        self.spans.push(kept);
        if self.find(key).is_none() {
            let (spans, hasher) = (&self.spans, &self.hasher);
            self.by_key
                .insert_unique(hasher.hash_one(key), index, |&i| {
                    hasher.hash_one(Self::key_of(&spans[i as usize]))
                });
        }
    }

    fn parent(&self, span: usize) -> Option<usize> {
        let s = &self.spans[span];
        if s.trace & HAS_PARENT == 0 {
            return None;
        }
        self.find((s.trace(), s.parent))
    }

    fn key(&self, span: usize) -> Key {
        Self::key_of(&self.spans[span])
    }

    fn ancestor_session(&mut self, start: Option<usize>) -> u32 {
        let mut path: Vec<Key> = Vec::new();
        let mut seen: HashSet<Key> = HashSet::new();
        let mut found = NONE;
        let mut node = start;
        while let Some(n) = node {
            let key = self.key(n);
            if let Some(&memo) = self.chain_memo.get(&key) {
                found = memo;
                break;
            }
            if !seen.insert(key) {
                break;
            }
            path.push(key);
            if self.spans[n].session != NONE {
                found = self.spans[n].session;
                break;
            }
            node = self.parent(n);
        }
        for key in path {
            self.chain_memo.insert(key, found);
        }
        found
    }

    fn session_of(&mut self, span: usize) -> u32 {
        let s = self.spans[span];
        if s.session != NONE {
            return s.session;
        }
        let parent = self.parent(span);
        let found = self.ancestor_session(parent);
        if found != NONE {
            return found;
        }
        if s.resource != NONE {
            return s.resource;
        }
        if let Some(found) = self.trace_session(s.trace()) {
            return found;
        }
        let text = trace_text(self.traces[s.trace() as usize]);
        self.string(Some(&text))
    }

    fn trace_session(&mut self, trace: u32) -> Option<u32> {
        let sessions = self.trace_sessions.get_or_insert_with(|| {
            // per trace: its one session, or NONE when it has more than one
            let mut found: HashMap<u32, u32> = HashMap::new();
            for span in &self.spans {
                if span.session != NONE {
                    let one = found.entry(span.trace()).or_insert(span.session);
                    if *one != span.session {
                        *one = NONE;
                    }
                }
            }
            found.retain(|_, session| *session != NONE);
            found
        });
        sessions.get(&trace).copied()
    }

    /// The span's ancestors in its trace, nearest first (safe against parent cycles:
    /// the walk stops at the first span met again, or at the span's own key).
    fn ancestors(&self, span: usize) -> Vec<usize> {
        // most chains are short and end at a root: walked without a set of the seen;
        // a chain longer than this is walked again with one (it may loop)
        const PLAIN: usize = 64;
        let own = self.key(span);
        let mut out = Vec::new();
        let mut node = self.parent(span);
        while let Some(n) = node {
            if out.len() == PLAIN {
                return self.ancestors_seen(span);
            }
            if self.key(n) == own {
                break;
            }
            out.push(n);
            node = self.parent(n);
        }
        out
    }

    fn ancestors_seen(&self, span: usize) -> Vec<usize> {
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
            node.is_agent() || node.is_tool()
        })
    }

    fn top_agents(&mut self) -> &HashMap<u32, u64> {
        if self.top_agent_counts.is_none() {
            let mut counts: HashMap<u32, u64> = HashMap::new();
            for i in 0..self.spans.len() {
                if self.spans[i].is_agent() && !self.nested(i) {
                    *counts.entry(self.spans[i].trace()).or_default() += 1;
                }
            }
            self.top_agent_counts = Some(counts);
        }
        self.top_agent_counts.get_or_insert_with(HashMap::new)
    }

    /// The agent whose lane a tool span is on, `None` for the `main` lane.
    fn lane_of(&mut self, span: usize) -> Option<u32> {
        let agent = self
            .ancestors(span)
            .into_iter()
            .find(|&n| self.spans[n].is_agent())?;
        let trace = self.spans[agent].trace();
        if !self.nested(agent) && self.top_agents().get(&trace) == Some(&1) {
            return None;
        }
        Some(self.spans[agent].name)
    }

    fn outer_copy(&self, span: usize) -> Option<usize> {
        let name = self.spans[span].name;
        for n in self.ancestors(span) {
            let node = &self.spans[n];
            if node.is_agent() {
                return None;
            }
            if node.is_tool() && node.name == name {
                return Some(n);
            }
        }
        None
    }

    /// `_rank`: innermost wins (ended, shortest, deepest, first).
    fn rank(&self, span: usize) -> (u8, f64, i64, usize) {
        let s = &self.spans[span];
        let start = s.start().unwrap_or(0.0);
        match s.end() {
            None => (1, 0.0, 0, span),
            Some(end) if end - start < 0.0 => (2, 0.0, 0, span),
            Some(end) => (0, end - start, -(self.depth(span) as i64), span),
        }
    }

    /// The tool spans that stand for their copies (a call seen twice in a session, a
    /// tool span inside a copy of itself): the innermost of each set of copies, in
    /// input order, with how many copies were set aside.
    fn winners(&mut self) -> (Vec<u32>, u64) {
        let tools: Vec<u32> = (0..self.spans.len())
            .filter(|&i| self.spans[i].is_tool())
            .map(|i| i as u32)
            .collect();
        // a union-find over the tools' positions in `tools` (as over their indices:
        // the order is the same), the smaller the root
        let mut root: Vec<u32> = (0..tools.len() as u32).collect();
        fn find(root: &mut [u32], mut at: u32) -> u32 {
            while root[at as usize] != at {
                let grand = root[root[at as usize] as usize];
                root[at as usize] = grand;
                at = grand;
            }
            at
        }
        fn join(root: &mut [u32], a: u32, b: u32) {
            let (ra, rb) = (find(root, a), find(root, b));
            if ra != rb {
                root[ra.max(rb) as usize] = ra.min(rb);
            }
        }
        let position = |tools: &[u32], span: usize| tools.binary_search(&(span as u32)).ok();
        let mut by_call: HashMap<(u32, u32), u32> = HashMap::new();
        for at in 0..tools.len() as u32 {
            let span = tools[at as usize] as usize;
            let call = self.spans[span].call;
            if self.repeated.contains(&call) {
                let key = (self.session_of(span), call);
                match by_call.get(&key) {
                    Some(&first) => join(&mut root, at, first),
                    None => {
                        by_call.insert(key, at);
                    }
                }
            }
            if let Some(outer) = self.outer_copy(span).and_then(|n| position(&tools, n)) {
                join(&mut root, at, outer as u32);
            }
        }
        drop(by_call);
        // each set of more than one copy: its best member so far
        let mut best: HashMap<u32, u32> = HashMap::new();
        let mut duplicates = 0u64;
        for at in 0..tools.len() as u32 {
            let r = find(&mut root, at);
            root[at as usize] = r; // every entry its root, for the passes below
            if r != at {
                duplicates += 1;
                best.entry(r).or_insert(r);
            }
        }
        for at in 0..tools.len() as u32 {
            let r = root[at as usize];
            let Some(&current) = best.get(&r) else {
                continue;
            };
            if at == r {
                continue;
            }
            let (span, held) = (
                tools[at as usize] as usize,
                tools[current as usize] as usize,
            );
            if self.rank(span).partial_cmp(&self.rank(held)) == Some(std::cmp::Ordering::Less) {
                best.insert(r, at);
            }
        }
        let mut winners: Vec<u32> = Vec::with_capacity(tools.len() - duplicates as usize);
        for at in 0..tools.len() as u32 {
            let r = root[at as usize];
            let won = match best.get(&r) {
                Some(&b) => b == at,
                None => true,
            };
            if won {
                winners.push(tools[at as usize]);
            }
        }
        (winners, duplicates)
    }

    fn copied_timing(&self, tools: &[u32]) -> HashSet<u32> {
        let mut by_parent: HashMap<usize, Vec<u32>> = HashMap::new();
        for &span in tools {
            let Some(parent) = self.parent(span as usize) else {
                continue;
            };
            let (s, p) = (&self.spans[span as usize], &self.spans[parent]);
            if s.end().is_some() && s.start() == p.start() && s.end() == p.end() {
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
    pub(super) fn lanes(
        &mut self,
        settings: &Settings,
        account: &mut LineAccount,
    ) -> Result<Vec<LaneOut>, Failure> {
        if self.full {
            return Err(super::documents::declined());
        }
        let (winners, duplicates) = self.winners();
        for _ in 0..duplicates {
            account.ignore(b"duplicate_span");
        }
        let copied = self.copied_timing(&winners);
        let bad = self.string(Some(BAD_SESSION));
        // an agent's lane named `main` is the main lane (lanes are keyed by their text)
        let main = self.string(Some("main"));
        let mut keys: Vec<(u32, u32)> = Vec::new();
        let mut calls: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
        for &span in &winners {
            let session = self.session_of(span as usize);
            if session == bad {
                account.problem("invalid_id");
                continue;
            }
            let key = (session, self.lane_of(span as usize).unwrap_or(main));
            let list = calls.entry(key).or_insert_with(|| {
                keys.push(key);
                Vec::new()
            });
            let s = &self.spans[span as usize];
            if s.end() == s.start() || copied.contains(&span) {
                account.ignore(b"synthetic_timing");
                continue;
            }
            account.use_line();
            list.push(span);
        }
        drop(winners);
        // one shared string per tool name, as the stream keeps them
        let mut tool_names: HashMap<u32, Rc<str>> = HashMap::new();
        let mut lanes = Vec::with_capacity(keys.len());
        for key in keys {
            let mut list = calls.remove(&key).unwrap_or_default();
            list.sort_by(|&a, &b| {
                let (a, b) = (
                    self.spans[a as usize].start(),
                    self.spans[b as usize].start(),
                );
                a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal)
            });
            let mut stream = LaneStream::new(
                settings,
                settings.eval_names.clone().into(),
                settings.batchable_names.clone().into(),
            );
            for span in list {
                let s = self.spans[span as usize];
                let Some(start) = s.start() else {
                    continue; // every winner is a tool span with a start
                };
                let call_id: Rc<str> = self.strings.get(s.call).into();
                let name = tool_names
                    .entry(s.name)
                    .or_insert_with(|| self.strings.get(s.name).into())
                    .clone();
                stream.start(call_id.clone(), name, start, None);
                if let Some(end) = s.end() {
                    stream.end(&call_id, end)?;
                }
            }
            lanes.push(LaneOut::new(
                0,
                self.strings.get(key.0).to_string(),
                self.strings.get(key.1).to_string(),
                stream.finish_lane(0.0, &[], Timing::Execution),
            ));
        }
        if self.full {
            return Err(super::documents::declined());
        }
        Ok(lanes)
    }
}

/// Whether the input is read as JSON Lines (`iter_json_values`): `true` when its first
/// line with content is a JSON object on its own (nesting within [`MAX_JSON_DEPTH`]
/// levels) or begins neither `{` nor `[`; `false` when it is whole document(s).
pub(super) fn json_lines(path: &Path) -> Result<bool, Failure> {
    let mut reader = LineReader::new(open_input(path)?);
    while let Some((raw, _)) = reader.next_line()? {
        // the BOM is dropped from whichever line is looked at (`removeprefix(_BOM)`)
        let line = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(raw);
        if line.iter().all(|&b| is_py_space(b)) {
            continue;
        }
        let start = line.iter().position(|&b| !is_py_space(b)).unwrap_or(0);
        if !matches!(line[start], b'{' | b'[') {
            return Ok(true);
        }
        let Ok(text) = std::str::from_utf8(line) else {
            return Ok(false);
        };
        let object = Scan::line(text, |scan, _| scan.skip(1)).is_ok() && !int_too_long(line);
        return Ok(object);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::protocol::fixtures::settings;

    #[test]
    fn strings_are_kept_once_at_their_arena_offset() {
        let mut strings = Strings::default();
        // each string: its length as LEB128, then its bytes; its id the offset
        assert_eq!(strings.id("call_1"), Some(0));
        assert_eq!(strings.id("call_2"), Some(7));
        assert_eq!(strings.id("call_1"), Some(0));
        let long = "x".repeat(200);
        assert_eq!(strings.id(&long), Some(14));
        // 200 = 0b1_1001000: 0xc8 (low seven bits, more to come), then 0x01
        assert_eq!(strings.arena[14..16], [0xc8, 0x01]);
        assert_eq!(strings.id(""), Some(216));
        assert_eq!(strings.id("é"), Some(217));
        assert_eq!(strings.arena.len(), 220);
        assert_eq!(strings.get(0), "call_1");
        assert_eq!(strings.get(7), "call_2");
        assert_eq!(strings.get(14), long);
        assert_eq!(strings.get(216), "");
        assert_eq!(strings.get(217), "é");
    }

    fn span(trace: u128, id: u64, parent: Option<u64>, start: f64, end: f64) -> Span {
        Span {
            trace,
            span: id,
            parent,
            session: None,
            resource_session: None,
            start_ms: Some(start),
            end_ms: Some(end),
            call_id: None,
            tool_name: None,
            agent: None,
        }
    }

    fn tool(mut span: Span, call: &str, name: &str) -> Span {
        span.call_id = Some(call.into());
        span.tool_name = Some(name.into());
        span
    }

    fn session(mut span: Span, session: &str) -> Span {
        span.session = Some(session.into());
        span
    }

    fn agent(mut span: Span, name: &str) -> Span {
        span.agent = Some(name.into());
        span
    }

    fn collector(spans: Vec<Span>) -> (Collector, LineAccount) {
        let mut collector = Collector::default();
        let mut account = LineAccount::default();
        for span in spans {
            collector.add(span, &mut account);
        }
        (collector, account)
    }

    #[test]
    fn parents_are_found_by_trace_and_id_and_the_first_span_of_a_key_holds_it() {
        let (mut c, account) = collector(vec![
            span(1, 0, None, 1.0, 2.0),    // 0: span id 0 (OTLP allows it)
            span(1, 5, Some(0), 1.0, 2.0), // 1: parent 0 of trace 1
            span(1, 6, None, 1.0, 2.0),    // 2: no parent (not parent 0)
            span(2, 5, Some(0), 1.0, 2.0), // 3: trace 2 has no span 0
            span(1, 5, Some(6), 1.0, 2.0), // 4: key (1, 5) again
        ]);
        assert_eq!(account.ignored, vec![(b"non_tool_span".to_vec(), 5)]);
        assert_eq!(c.len(), 5);
        assert_eq!(c.parent(1), Some(0));
        assert_eq!(c.parent(2), None);
        assert_eq!(c.parent(3), None);
        assert_eq!(c.parent(4), Some(2));
        // traces by index in order met; the parent flag is not part of the key
        assert_eq!((c.key(0), c.key(1), c.key(3)), ((0, 0), (0, 5), (1, 5)));
        assert_eq!(c.find((0, 5)), Some(1));
        c.truncate(4); // the later copy of (1, 5) goes, the first stays
        assert_eq!(
            (c.len(), c.find((0, 5)), c.find((1, 5))),
            (4, Some(1), Some(3))
        );
        c.truncate(3);
        assert_eq!((c.find((1, 5)), c.find((0, 5))), (None, Some(1)));
        c.truncate(1);
        assert_eq!((c.len(), c.find((0, 5)), c.find((0, 6))), (1, None, None));
        assert_eq!(c.find((0, 0)), Some(0));
        // a span added after a truncation holds its key again
        c.add(span(1, 6, Some(0), 1.0, 2.0), &mut LineAccount::default());
        assert_eq!((c.find((0, 6)), c.parent(1)), (Some(1), Some(0)));
    }

    #[test]
    fn ancestors_stop_at_a_root_a_span_met_again_or_the_span_s_own_key() {
        // a chain of 70: span k (id k + 1) has k ancestors, past the plain walk's 64
        let chain: Vec<Span> = (1..=70u64)
            .map(|id| span(1, id, (id > 1).then(|| id - 1), 1.0, 2.0))
            .collect();
        let (c, _) = collector(chain);
        assert_eq!(c.depth(0), 0);
        assert_eq!(c.depth(10), 10);
        assert_eq!(c.depth(64), 64);
        assert_eq!(c.depth(65), 65);
        assert_eq!(c.depth(69), 69);
        assert_eq!(c.ancestors(3), vec![2, 1, 0]);
        let (c, _) = collector(vec![
            span(9, 1, Some(3), 1.0, 2.0), // 0: a loop 1 -> 3 -> 2 -> 1
            span(9, 2, Some(1), 1.0, 2.0), // 1
            span(9, 3, Some(2), 1.0, 2.0), // 2
            span(9, 4, Some(1), 1.0, 2.0), // 3: below the loop
            span(9, 7, Some(8), 1.0, 2.0), // 4: 7 and 8 each other's parent
            span(9, 8, Some(7), 1.0, 2.0), // 5
            span(9, 7, Some(8), 1.0, 2.0), // 6: a copy of key 7
        ]);
        assert_eq!(c.ancestors(0), vec![2, 1]);
        assert_eq!(c.ancestors(3), vec![0, 2, 1]);
        assert_eq!(c.depth(3), 3);
        assert_eq!(c.ancestors(6), vec![5]);
        assert_eq!(c.ancestors(5), vec![4]);
    }

    #[test]
    fn lanes_keep_the_innermost_copy_and_an_agent_named_main_is_the_main_lane() {
        let (mut c, mut account) = collector(vec![
            // 0, 1: two agents at the top of trace 1, so each names its lane
            session(agent(span(1, 1, None, 0.0, 1000.0), "main"), "s"),
            session(agent(span(1, 2, None, 0.0, 1000.0), "helper"), "s"),
            // 2: c1 under "main", 3: c2 under "helper"
            tool(span(1, 10, Some(1), 100.0, 200.0), "c1", "read"),
            tool(span(1, 11, Some(2), 150.0, 250.0), "c2", "read"),
            // 4: no agent above it: the main lane, its own session
            session(tool(span(1, 12, None, 120.0, 180.0), "c3", "grep"), "s"),
            // 5: a copy of c1 inside it, 80 ms against 100: it stands for c1
            tool(span(1, 13, Some(10), 110.0, 190.0), "c1", "read"),
            // 6: no duration: synthetic timing
            tool(span(1, 14, Some(2), 300.0, 300.0), "c5", "read"),
            // 7: an unusable session id
            session(
                tool(span(1, 15, Some(2), 400.0, 500.0), "c6", "read"),
                BAD_SESSION,
            ),
        ]);
        // only c1 was met twice: the one call id looked up by session
        let c1 = c.strings.id("c1").unwrap();
        assert_eq!(c.repeated.iter().copied().collect::<Vec<_>>(), [c1]);
        let lanes = c.lanes(&settings(), &mut account).ok().unwrap();
        let keys: Vec<(&str, &str)> = lanes
            .iter()
            .map(|l| (l.session_id.as_str(), l.lane_id.as_str()))
            .collect();
        // lanes in the order of their first call (c2 at index 3, then c3 at 4)
        assert_eq!(keys, [("s", "helper"), ("s", "main")]);
        assert_eq!(lanes[0].summary.paired_calls, 1); // c2 (c5 set aside)
        assert_eq!(lanes[1].summary.paired_calls, 2); // the copy of c1, and c3
        assert_eq!(
            account.ignored,
            vec![
                (b"non_tool_span".to_vec(), 2),
                (b"duplicate_span".to_vec(), 1),
                (b"synthetic_timing".to_vec(), 1),
            ]
        );
        assert_eq!(account.problems, vec![("invalid_id", 1)]);
        assert_eq!(account.lines_used, 3);
    }

    #[test]
    fn copies_rank_ended_then_shortest_then_deepest_then_first() {
        let (mut c, mut account) = collector(vec![
            session(span(1, 1, None, 0.0, 1000.0), "s"),
            // the same call four times: [0, 50] ends first but is outranked by the
            // deeper [100, 150] of the same length; the open one and the one ending
            // before its start lose to any ended one
            tool(span(1, 2, Some(1), 0.0, 50.0), "c", "bash"),
            tool(span(1, 3, Some(2), 100.0, 150.0), "c", "bash"),
            tool(span(1, 4, Some(1), 10.0, 5.0), "c", "bash"),
            tool(span(1, 5, Some(1), 20.0, 30.0), "c", "edit"),
        ]);
        c.spans[4].end = f64::NAN; // no end
        assert_eq!(c.rank(1), (0, 50.0, -1, 1));
        assert_eq!(c.rank(2), (0, 50.0, -2, 2));
        assert_eq!(c.rank(3), (2, 0.0, 0, 3));
        assert_eq!(c.rank(4), (1, 0.0, 0, 4));
        let (winners, duplicates) = c.winners();
        assert_eq!((winners, duplicates), (vec![2], 3));
        let lanes = c.lanes(&settings(), &mut account).ok().unwrap();
        assert_eq!(lanes.len(), 1);
        assert_eq!(lanes[0].summary.paired_calls, 1);
    }

    #[test]
    fn sessions_fall_back_to_the_trace_s_one_session_or_its_id() {
        let (mut c, mut account) = collector(vec![
            session(span(0xab, 1, None, 0.0, 10.0), "only"),
            tool(span(0xab, 2, None, 1.0, 2.0), "c1", "read"),
            session(span(0xcd, 1, None, 0.0, 10.0), "a"),
            session(span(0xcd, 2, None, 0.0, 10.0), "b"),
            tool(span(0xcd, 3, None, 1.0, 2.0), "c2", "read"),
            // two calls under one parent with its times: synthetic
            session(span(0xef, 1, None, 5.0, 9.0), "p"),
            tool(span(0xef, 2, Some(1), 5.0, 9.0), "c3", "read"),
            tool(span(0xef, 3, Some(1), 5.0, 9.0), "c4", "read"),
            // a call id met before as a session: looked up by session (no copy of any)
            tool(span(0xef, 4, None, 20.0, 30.0), "only", "read"),
        ]);
        let only = c.strings.id("only").unwrap();
        assert_eq!(c.repeated.iter().copied().collect::<Vec<_>>(), [only]);
        let lanes = c.lanes(&settings(), &mut account).ok().unwrap();
        let keys: Vec<&str> = lanes.iter().map(|l| l.session_id.as_str()).collect();
        // the call "only" of trace ef: its trace's one session, "p"
        assert_eq!(keys, ["only", "000000000000000000000000000000cd", "p"]);
        assert_eq!(lanes[2].summary.paired_calls, 1);
        assert_eq!(account.lines_used, 3);
        assert_eq!(
            account.ignored,
            vec![
                (b"non_tool_span".to_vec(), 4),
                (b"synthetic_timing".to_vec(), 2),
            ]
        );
    }

    #[test]
    fn an_agent_inside_another_names_a_lane_and_the_one_top_agent_is_main() {
        let (mut c, mut account) = collector(vec![
            // trace 1: the one top agent (its calls on the main lane), an agent in it
            session(agent(span(1, 1, None, 0.0, 1000.0), "outer"), "s"),
            agent(span(1, 2, Some(1), 0.0, 900.0), "inner"),
            tool(span(1, 10, Some(1), 100.0, 200.0), "c1", "read"),
            tool(span(1, 11, Some(2), 150.0, 250.0), "c2", "read"),
            // trace 2: an agent inside a tool span is nested too: its own lane
            session(tool(span(2, 1, None, 0.0, 1000.0), "c3", "task"), "t"),
            agent(span(2, 2, Some(1), 10.0, 900.0), "sub"),
            tool(span(2, 3, Some(2), 20.0, 30.0), "c4", "read"),
        ]);
        assert!(!c.nested(0));
        assert!(c.nested(1));
        assert!(c.nested(5));
        let lanes = c.lanes(&settings(), &mut account).ok().unwrap();
        let keys: Vec<(&str, &str)> = lanes
            .iter()
            .map(|l| (l.session_id.as_str(), l.lane_id.as_str()))
            .collect();
        assert_eq!(
            keys,
            [("s", "main"), ("s", "inner"), ("t", "main"), ("t", "sub")]
        );
    }

    #[test]
    fn a_tool_span_inside_a_span_of_the_same_tool_is_a_copy_of_it() {
        let (mut c, mut account) = collector(vec![
            session(span(1, 1, None, 0.0, 1000.0), "s"),
            // 1: bash [0, 100]; 2, in it: bash under another call id, [10, 90]: a copy
            tool(span(1, 2, Some(1), 0.0, 100.0), "x", "bash"),
            tool(span(1, 3, Some(2), 10.0, 90.0), "y", "bash"),
            // 3: grep inside bash: no copy
            tool(span(1, 4, Some(2), 20.0, 30.0), "z", "grep"),
            // 4: an agent between two bash spans: no copy
            agent(span(1, 5, Some(2), 40.0, 80.0), "helper"),
            tool(span(1, 6, Some(5), 50.0, 60.0), "w", "bash"),
        ]);
        assert_eq!(c.outer_copy(2), Some(1));
        assert_eq!(c.outer_copy(1), None);
        assert_eq!(c.outer_copy(3), None);
        assert_eq!(c.outer_copy(5), None);
        let (winners, duplicates) = c.winners();
        assert_eq!((winners, duplicates), (vec![2, 3, 5], 1));
        let lanes = c.lanes(&settings(), &mut account).ok().unwrap();
        assert_eq!(account.lines_used, 3);
        assert_eq!(lanes.len(), 2);
    }

    #[test]
    fn a_copy_of_no_length_outranks_a_longer_one_and_only_a_parent_s_own_times_are_synthetic() {
        let (mut c, mut account) = collector(vec![
            session(span(1, 1, None, 0.0, 1000.0), "s"),
            // the same call twice: [50, 50] (0 ms, ended) wins over [0, 100]
            tool(span(1, 2, Some(1), 0.0, 100.0), "c", "read"),
            tool(span(1, 3, Some(1), 50.0, 50.0), "c", "read"),
            // a parent [500, 900]: two calls starting with it but ending before it
            session(span(1, 4, None, 500.0, 900.0), "s"),
            tool(span(1, 5, Some(4), 500.0, 800.0), "d", "read"),
            tool(span(1, 6, Some(4), 500.0, 700.0), "e", "read"),
            // and two ending with it, starting after it
            tool(span(1, 7, Some(4), 600.0, 900.0), "f", "read"),
            tool(span(1, 8, Some(4), 650.0, 900.0), "g", "read"),
        ]);
        assert_eq!(c.rank(2), (0, 0.0, -1, 2));
        let lanes = c.lanes(&settings(), &mut account).ok().unwrap();
        assert_eq!(account.lines_used, 4);
        assert_eq!(
            account.ignored,
            vec![
                (b"non_tool_span".to_vec(), 2),
                (b"duplicate_span".to_vec(), 1),
                (b"synthetic_timing".to_vec(), 1),
            ]
        );
        assert_eq!(lanes[0].summary.paired_calls, 4);
    }
}
