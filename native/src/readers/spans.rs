//! What the span-shaped readers share (`wavemetrics/readers/_spans.py`, `docs/formats.md`
//! "Span-shaped formats"): the few fields kept of each span ([`Span`]), how a span is
//! marked a tool or agent span ([`mark`]), the `SpanCollector`'s rules that turn the
//! spans of a whole input into lanes ([`Collector`]), and how the shape of an input is
//! decided ([`json_lines`]).

use super::lines::{for_each_object_line, int_too_long, json_failure, Names};
use super::protocol::{Failure, LaneOut};
use crate::account::LineAccount;
use crate::activity::Timing;
use crate::io::open_plain;
use crate::json::{nesting_exceeds, Raw, Scan, SyntaxError, Val, PY_MAX_DEPTH};
use crate::lines::{is_py_space, LineReader};
use crate::summary::{LaneStream, Settings};
use crate::time::ns_to_ms;
use hashbrown::{HashMap, HashSet};
use std::path::Path;
use std::rc::Rc;

/// How deep a line of a span-shaped file may nest before Python's `json` gives up
/// (`RecursionError`, `too_deeply_nested`; `iter_records` as `_spans.iter_json_values`
/// calls it), measured as the command line reads such a file line by line: 973 levels
/// read, 974 refused.
pub(super) const LINE_MAX_DEPTH: usize = PY_MAX_DEPTH - 11;

/// A span file of one JSON value per line (`iter_json_values` of a JSON Lines input):
/// each line's value by `parse` (within [`LINE_MAX_DEPTH`]) handed to `apply`; a line the
/// scan fails, or one with an int `json` refuses, is named by `json`'s first failure.
pub(super) fn for_each_span_line<T>(
    path: &Path,
    account: &mut LineAccount,
    names: &mut Names,
    parse: fn(&str, &mut Names) -> Result<T, SyntaxError>,
    mut apply: impl FnMut(T, &mut LineAccount),
) -> Result<(), Failure> {
    for_each_object_line(
        open_plain(path)?,
        account,
        LINE_MAX_DEPTH,
        |text, account| {
            let failed = || {
                Ok(Some(
                    json_failure(text, LINE_MAX_DEPTH).unwrap_or("invalid_json"),
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
/// A first line with content nesting deeper than this is not decided here: Python's
/// `json` reads it at another depth than the lines after it (`_first_line_is_object`).
pub(super) const FIRST_LINE_SURE_DEPTH: usize = 900;

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

pub(super) fn ns_of(digits: &[u8]) -> Option<f64> {
    let mut value: u128 = 0;
    for &d in digits {
        value = value * 10 + u128::from(d - b'0');
    }
    (1..=u128::from(u64::MAX))
        .contains(&value)
        .then(|| ns_to_ms(value))
}

/// What is kept of one span (`SpanRecord`): ids (as numbers, printed in lower-case
/// hex), session attributes, ms times, and what [`mark`] made of it.
#[derive(Debug, Clone)]
pub(super) struct Span {
    pub(super) index: usize,
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

pub(super) type Key = (u128, u64);

/// `SpanCollector` of `_spans.py`: every span of the input, turned into lanes at the end.
#[derive(Default)]
pub(super) struct Collector {
    spans: Vec<Span>,
    by_key: HashMap<Key, usize>,
    chain_memo: HashMap<Key, Option<Rc<str>>>,
    trace_sessions: Option<HashMap<u128, Rc<str>>>,
    top_agent_counts: Option<HashMap<u128, u64>>,
}

impl Collector {
    /// How many spans are kept.
    pub(super) fn len(&self) -> usize {
        self.spans.len()
    }

    /// Forgets the spans kept since there were `len` (a document that did not parse, a
    /// span list a later key replaced): as if they had never been added.
    pub(super) fn truncate(&mut self, len: usize) {
        for span in self.spans.get(len..).unwrap_or_default() {
            let key = (span.trace, span.span);
            if self.by_key.get(&key).is_some_and(|&index| index >= len) {
                self.by_key.remove(&key);
            }
        }
        self.spans.truncate(len);
    }

    pub(super) fn add(&mut self, mut span: Span, account: &mut LineAccount) {
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
    pub(super) fn lanes(
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
pub(super) fn json_lines(path: &Path) -> Result<Option<bool>, Failure> {
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
