//! The `otel-spans` reader (`docs/formats.md`, `otel-spans`), rule for rule as
//! `wavemetrics/readers/otel_spans.py` with the span rules of `_spans.py`: OTel SDK span
//! dicts (`ReadableSpan.to_json()`, any-agent's `AgentTrace`) in any of the four shapes
//! (a `{"spans": [...]}` document, an array of span dicts, span dicts one after another,
//! or one per line), every span kept as the few fields the rules need, and lanes made
//! once the whole file is read (`spans::Collector`).
//!
//! The shape is decided as `_spans.iter_json_values` decides it (`spans::json_lines`).
//! JSON Lines are read a line at a time; documents are split and walked by `documents`
//! without holding one: each span dict of a top-level array or of a top-level `spans`
//! array is read alone, its events (the span, or its problem) held until the document
//! has parsed (a document that fails anywhere counts as one problem, its spans never
//! read, as `json.loads` fails it whole). A repeated key's value replaces the earlier
//! one's at every level (the last key wins).

use super::documents::{read_documents, validate, Part, Reading, Visit};
use super::lines::Names;
use super::protocol::{with_fallback, Failure, Reader, Unit, UnitOut};
use super::spans::{
    for_each_span_line, json_lines, mark, ns_time_to_ms, session_attribute, Attributes, Collector,
    Event, Span, ATTRIBUTE_KEYS,
};
use crate::account::LineAccount;
use crate::io::open_input;
use crate::json::{Raw, Scan, SyntaxError, Val, MAX_JSON_DEPTH};
use crate::summary::Settings;
use crate::time::iso_to_ms;
use std::path::Path;

/// The keys of a span dict the rules read, by index.
const FIELDS: [&[u8]; 8] = [
    b"context",
    b"parent",
    b"parent_id",
    b"attributes",
    b"resource",
    b"start_time",
    b"end_time",
    b"name",
];

/// `_hex_id`: a decimal JSON int, or a string `0x` + 1 to 32 hex digits, from 1 to
/// `2**bits - 1`; `None` for anything else.
fn hex_id(raw: Option<Raw<'_>>, bits: u32) -> Option<u128> {
    let raw = raw?;
    // classified by the first byte (a number is not converted to be thrown away)
    let value = match raw.get().as_bytes().first() {
        Some(b'"') => {
            let value = Val::of(raw);
            let bytes = value.str_bytes()?;
            let digits = bytes
                .strip_prefix(b"0x")
                .or_else(|| bytes.strip_prefix(b"0X"))?;
            if !(1..=32).contains(&digits.len()) {
                return None;
            }
            let mut id: u128 = 0;
            for &b in digits {
                id = (id << 4) | u128::from((b as char).to_digit(16)?);
            }
            id
        }
        Some(b'-' | b'0'..=b'9') => {
            // an int literal (a float, or a negative int, is no id)
            let digits = raw.get().as_bytes();
            if !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let mut id: u128 = 0;
            for &d in digits {
                id = id.checked_mul(10)?.checked_add(u128::from(d - b'0'))?;
            }
            id
        }
        _ => return None,
    };
    let fits = bits >= 128 || value < (1u128 << bits);
    (value > 0 && fits).then_some(value)
}

/// `_time_ms`: a string that is not all digits is an ISO-8601 time (the epoch itself is
/// "unset"), anything else integer ns (`ns_time_to_ms`). A string of digits other than
/// ASCII ones is no time either way (`str.isdigit`, then the ASCII rules).
fn time_ms(raw: Option<Raw<'_>>) -> Option<f64> {
    if !raw?.get().starts_with('"') {
        return ns_time_to_ms(raw); // not a string (a number is not converted twice)
    }
    let value = Val::of(raw?);
    match value.str_bytes() {
        Some(bytes) if !bytes.is_empty() && bytes.iter().all(u8::is_ascii_digit) => {
            ns_time_to_ms(raw)
        }
        Some(bytes) => iso_to_ms(bytes).filter(|&ms| ms != 0.0),
        None => ns_time_to_ms(raw),
    }
}

/// The last value of each of `keys` in the object value the scan is at, `depth`
/// containers deep, read by the scan that checks it (`found` cleared first: a later
/// key's value replaces an earlier one's whole); whether it is an object (anything
/// else is skipped, `found` left empty).
fn object_keys<'a>(
    scan: &mut Scan<'a>,
    depth: usize,
    keys: &[&[u8]],
    found: &mut [Option<Raw<'a>>],
) -> Result<bool, SyntaxError> {
    found.fill(None);
    if scan.space() != Some(b'{') {
        scan.skip(depth)?;
        return Ok(false);
    }
    scan.object(depth + 1, |scan, key| {
        match keys.iter().position(|k| *k == key) {
            Some(i) => found[i] = Some(scan.raw(depth + 1)?),
            None => scan.skip(depth + 1)?,
        }
        Ok(())
    })?;
    Ok(true)
}

/// The attribute keys as bytes.
const ATTRIBUTE_KEY_BYTES: [&[u8]; 10] = {
    let mut keys: [&[u8]; 10] = [b""; 10];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = ATTRIBUTE_KEYS[i].as_bytes();
        i += 1;
    }
    keys
};

/// What the rules read of a span dict, each top-level key's last value (`None` when
/// absent, or not of the type read through): gathered while the dict is scanned, the
/// nested objects (`context`, `parent`, `attributes`, `resource`) read in the same
/// pass instead of being scanned again.
#[derive(Default)]
struct Fields<'a> {
    /// Whether the dict has a `context` key (of any type).
    context: bool,
    /// `context`'s `trace_id` and `span_id`.
    ids: [Option<Raw<'a>>; 2],
    /// Whether `parent` is an object, and its `span_id`.
    parent_object: bool,
    parent: [Option<Raw<'a>>; 1],
    parent_id: Option<Raw<'a>>,
    /// The flat `attributes` dict's wanted keys.
    attributes: [Option<Raw<'a>>; 10],
    /// `resource`'s `attributes` dict's wanted keys.
    resource: [Option<Raw<'a>>; 10],
    start: Option<Raw<'a>>,
    end: Option<Raw<'a>>,
    name: Option<Raw<'a>>,
}

impl<'a> Fields<'a> {
    /// Reads the value of `key` when it is a field the rules read (the value `depth`
    /// containers deep); `false` (nothing read) for any other key.
    fn field(
        &mut self,
        scan: &mut Scan<'a>,
        key: &[u8],
        depth: usize,
    ) -> Result<bool, SyntaxError> {
        match key {
            b"context" => {
                self.context = true;
                object_keys(scan, depth, &[b"trace_id", b"span_id"], &mut self.ids)?;
            }
            b"parent" => {
                self.parent_object = object_keys(scan, depth, &[b"span_id"], &mut self.parent)?;
            }
            b"parent_id" => self.parent_id = Some(scan.raw(depth)?),
            b"attributes" => {
                object_keys(scan, depth, &ATTRIBUTE_KEY_BYTES, &mut self.attributes)?;
            }
            b"resource" => {
                self.resource = Default::default();
                if scan.space() != Some(b'{') {
                    scan.skip(depth)?;
                    return Ok(true);
                }
                let resource = &mut self.resource;
                scan.object(depth + 1, |scan, key| {
                    if key == b"attributes" {
                        object_keys(scan, depth + 1, &ATTRIBUTE_KEY_BYTES, resource)?;
                    } else {
                        scan.skip(depth + 1)?;
                    }
                    Ok(())
                })?;
            }
            b"start_time" => self.start = Some(scan.raw(depth)?),
            b"end_time" => self.end = Some(scan.raw(depth)?),
            b"name" => self.name = Some(scan.raw(depth)?),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// `_span` of `otel_spans.py` for a span dict's fields, without the collector's part.
fn span_of(fields: &Fields<'_>, names: &mut Names) -> Event {
    let (Some(trace), Some(span)) = (hex_id(fields.ids[0], 128), hex_id(fields.ids[1], 64)) else {
        return Event::Problem("invalid_span_id");
    };
    let parent_raw = if fields.parent_object {
        fields.parent[0]
    } else {
        fields.parent_id
    };
    let attributes: Attributes<'_> = fields.attributes.map(|raw| raw.map(Val::of));
    let resource: Attributes<'_> = fields.resource.map(|raw| raw.map(Val::of));
    let end = fields.end;
    let mut record = Span {
        trace,
        span: span as u64,
        parent: hex_id(parent_raw, 64).map(|p| p as u64),
        session: session_attribute(&attributes, names),
        resource_session: session_attribute(&resource, names),
        start_ms: time_ms(fields.start),
        end_ms: time_ms(end),
        call_id: None,
        tool_name: None,
        agent: None,
    };
    let end_given = end.is_some_and(|r| r.get() != "null");
    let name = fields.name.map_or(Val::Absent, Val::of);
    match mark(&mut record, &attributes, &name, end_given, names) {
        Err(problem) => Event::Problem(problem),
        Ok(()) => Event::Span(Box::new(record)),
    }
}

/// One span value of a span list, `depth` containers deep: its event.
fn span_value(scan: &mut Scan<'_>, depth: usize, names: &mut Names) -> Result<Event, SyntaxError> {
    if scan.space() != Some(b'{') {
        scan.skip(depth)?;
        return Ok(Event::Problem("invalid_span"));
    }
    let mut fields = Fields::default();
    scan.object(depth + 1, |scan, key| {
        if !fields.field(scan, key, depth + 1)? {
            scan.skip(depth + 1)?;
        }
        Ok(())
    })?;
    Ok(span_of(&fields, names))
}

/// A top-level value's `spans` so far (the last key wins).
enum Spans {
    Missing,
    NotList,
    List(Vec<Event>, u64),
}

/// What one top-level value gives (`_read_value`).
enum Value {
    Spans(Vec<Event>, u64),
    Problem(&'static str),
    Ignore(&'static [u8]),
}

fn decide(spans: Spans, fields: &Fields<'_>, names: &mut Names) -> Value {
    match spans {
        Spans::List(_, 0) => Value::Ignore(b"no_spans"),
        Spans::List(events, count) => Value::Spans(events, count),
        Spans::NotList => Value::Problem("invalid_structure"),
        Spans::Missing if fields.context => Value::Spans(vec![span_of(fields, names)], 1),
        Spans::Missing => Value::Ignore(b"unknown_record"),
    }
}

fn apply(value: Value, collector: &mut Collector, account: &mut LineAccount) {
    match value {
        Value::Problem(reason) => account.problem(reason),
        Value::Ignore(kind) => account.ignore(kind),
        Value::Spans(events, count) => {
            account.lines_read += count - 1;
            for event in events {
                match event {
                    Event::Problem(reason) => account.problem(reason),
                    Event::Span(span) => collector.add(*span, account),
                }
            }
        }
    }
}

/// A `spans` value, `depth` containers deep.
fn spans_value(scan: &mut Scan<'_>, depth: usize, names: &mut Names) -> Result<Spans, SyntaxError> {
    if scan.space() != Some(b'[') {
        scan.skip(depth)?;
        return Ok(Spans::NotList);
    }
    let mut events = Vec::new();
    let mut count = 0u64;
    scan.array(depth + 1, |scan| {
        count += 1;
        events.push(span_value(scan, depth + 1, names)?);
        Ok(())
    })?;
    Ok(Spans::List(events, count))
}

/// One line's object, read in one pass within the one depth limit.
fn line_value(text: &str, names: &mut Names) -> Result<Value, SyntaxError> {
    let mut spans = Spans::Missing;
    let mut fields = Fields::default();
    Scan::line_within(text, MAX_JSON_DEPTH, |scan, key| {
        if key == b"spans" {
            spans = spans_value(scan, 1, names)?;
        } else if !fields.field(scan, key, 1)? {
            scan.skip(1)?;
        }
        Ok(())
    })?;
    Ok(decide(spans, &fields, names))
}

/// What one document's walk has found so far.
enum Top {
    Array,
    Object,
    Scalar,
}

/// The reader of one document at a time, shown its parts by `documents`: each span of
/// a top-level array or of a `spans` list is accounted and kept when met (its text then
/// dropped), and undone when the document does not parse or a later `spans` key
/// replaces the list (the last key wins).
struct DocumentReader<'n> {
    names: &'n mut Names,
    collector: &'n mut Collector,
    account: &'n mut LineAccount,
    /// The account, and how many spans were kept, before the document.
    before: (LineAccount, usize),
    top: Top,
    /// The document's span list so far (its events already applied: none kept here).
    spans: Spans,
    key: Option<usize>,
    spans_key: bool,
    /// The texts of a top-level object's span fields (when it is a span itself).
    fields: [Option<String>; 8],
}

impl DocumentReader<'_> {
    /// Undoes what the document's spans did so far.
    fn rewind(&mut self) {
        self.account.clone_from(&self.before.0);
        self.collector.truncate(self.before.1);
    }
}

impl Visit for DocumentReader<'_> {
    fn walks(&self, key: &[u8]) -> bool {
        key == b"spans"
    }

    fn part(&mut self, part: Part<'_>) -> Result<(), SyntaxError> {
        match part {
            Part::TopArray => {
                self.top = Top::Array;
                self.spans = Spans::List(Vec::new(), 0);
            }
            Part::TopObject => self.top = Top::Object,
            Part::Key(key) => {
                self.spans_key = key == b"spans";
                self.key = FIELDS.iter().position(|k| *k == key);
            }
            Part::Walked => {
                self.rewind();
                self.spans = Spans::List(Vec::new(), 0);
            }
            Part::Element(text, depth) => {
                let mut scan = Scan::within(text, MAX_JSON_DEPTH);
                let event = span_value(&mut scan, depth, self.names)?;
                if scan.space().is_some() {
                    return Err(SyntaxError);
                }
                if let Spans::List(_, count) = &mut self.spans {
                    *count += 1;
                }
                match event {
                    Event::Problem(reason) => self.account.problem(reason),
                    Event::Span(span) => self.collector.add(*span, self.account),
                }
            }
            Part::Value(text, depth) => {
                validate(text, depth)?;
                if depth == 0 {
                    self.top = Top::Scalar;
                } else if self.spans_key {
                    self.rewind();
                    self.spans = Spans::NotList;
                } else if let Some(i) = self.key {
                    self.fields[i] = Some(text.to_string());
                }
            }
        }
        Ok(())
    }
}

impl Reading for DocumentReader<'_> {
    fn begin(&mut self) {
        self.before.0.clone_from(self.account);
        self.before.1 = self.collector.len();
        self.top = Top::Scalar;
        self.spans = Spans::Missing;
        self.key = None;
        self.spans_key = false;
        self.fields = Default::default();
    }

    fn undo(&mut self) {
        self.rewind();
    }

    fn parsed(&mut self) {
        let value = match self.top {
            Top::Scalar => Value::Problem("not_an_object"),
            Top::Array | Top::Object => {
                let spans = std::mem::replace(&mut self.spans, Spans::Missing);
                let texts = std::mem::take(&mut self.fields);
                let mut fields = Fields::default();
                for (key, text) in FIELDS.iter().zip(&texts) {
                    if let Some(text) = text {
                        // the text was checked when met: it reads (a failure reads as absent)
                        let _ = fields.field(&mut Scan::new(text), key, 1);
                    }
                }
                decide(spans, &fields, self.names)
            }
        };
        apply(value, self.collector, self.account);
    }

    fn account(&mut self) -> &mut LineAccount {
        self.account
    }
}

fn read_once(path: &Path, settings: &Settings) -> Result<UnitOut, Failure> {
    let mut account = LineAccount::default();
    let mut collector = Collector::default();
    let mut names = Names::default();
    match json_lines(path)? {
        true => for_each_span_line(
            path,
            &mut account,
            &mut names,
            line_value,
            |value, account| apply(value, &mut collector, account),
        )?,
        false => {
            let mut reader = DocumentReader {
                names: &mut names,
                collector: &mut collector,
                account: &mut account,
                before: (LineAccount::default(), 0),
                top: Top::Scalar,
                spans: Spans::Missing,
                key: None,
                spans_key: false,
                fields: Default::default(),
            };
            read_documents(open_input(path)?, &mut reader)?;
        }
    }
    let lanes = collector.lanes(settings, &mut account)?;
    Ok(UnitOut {
        accounts: vec![account],
        lanes,
        read_again_in_batch: false,
    })
}

/// The `otel-spans` reader: a unit is one file of span dicts (its session id unused:
/// sessions come from the spans). A unit of more or fewer than one file is refused
/// (`InvalidInput`); the inputs the module docs name are declined (`Unsupported`).
pub struct OtelSpans;

impl Reader for OtelSpans {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        _threads: usize,
    ) -> Result<UnitOut, super::protocol::ReadError> {
        let (path, _) = unit.one_file("an otel-spans")?;
        with_fallback(settings, |s| read_once(path, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::protocol::fixtures::raw;

    #[test]
    fn ids_are_decimal_ints_or_0x_strings_within_their_width() {
        assert_eq!(hex_id(raw("7"), 128), Some(7));
        assert_eq!(hex_id(raw(r#""0x7""#), 128), Some(7));
        assert_eq!(hex_id(raw(r#""0XaB""#), 64), Some(0xab));
        assert_eq!(hex_id(raw(r#""0\u0078ff""#), 64), Some(0xff));
        assert_eq!(
            hex_id(raw("18446744073709551615"), 64),
            Some(u128::from(u64::MAX))
        );
        let widest = format!(r#""0x{}""#, "f".repeat(32));
        assert_eq!(hex_id(raw(&widest), 128), Some(u128::MAX));
        for bad in [
            "0",
            "-7",
            "7.0",
            "7e0",
            "true",
            "null",
            r#""7""#,
            r#""0x""#,
            r#""0x0""#,
            r#""0xg""#,
            r#"" 0x7""#,
            "18446744073709551616",
            "[7]",
        ] {
            assert_eq!(hex_id(raw(bad), 64), None, "{bad}");
        }
        assert_eq!(
            hex_id(raw(&format!(r#""0x1{}""#, "0".repeat(32))), 128),
            None
        );
        assert_eq!(hex_id(raw(&"9".repeat(40)), 128), None);
        assert_eq!(hex_id(None, 64), None);
    }

    #[test]
    fn times_are_ns_digits_or_iso_strings() {
        assert_eq!(time_ms(raw("1544712660000000000")), Some(1544712660000.0));
        assert_eq!(
            time_ms(raw(r#""1751247501952174001""#)),
            Some(1751247501952.174)
        );
        assert_eq!(time_ms(raw(r#""1970-01-01T00:00:01.5Z""#)), Some(1500.0));
        for bad in [
            r#""1970-01-01T00:00:00Z""#, // the epoch is "unset"
            r#""2026-01-01T00:00:00""#,
            r#""""#,
            r#""\u0661""#,
            "0",
            "1.5e18",
            "null",
        ] {
            assert_eq!(time_ms(raw(bad)), None, "{bad}");
        }
    }

    /// The one span of a line that is a span dict: its record, or its problem.
    fn one_span(text: &str) -> Result<Span, &'static str> {
        match line_value(text, &mut Names::default()) {
            Ok(Value::Spans(mut events, 1)) if events.len() == 1 => match events.remove(0) {
                Event::Span(span) => Ok(*span),
                Event::Problem(problem) => Err(problem),
            },
            _ => Err("not one span"),
        }
    }

    #[test]
    fn a_span_dict_s_nested_fields_are_read_in_one_pass_the_last_key_winning() {
        let ids = r#""context":{"trace_id":1,"span_id":2}"#;
        // a parent object without span_id: no parent (parent_id is not looked at); the
        // second attributes dict replaces the first whole, as does the resource's
        let span = one_span(&format!(
            r#"{{{ids},"parent":{{"trace_id":1}},"parent_id":"0x5","attributes":{{"session.id":"x"}},"attributes":{{"gen_ai.conversation.id":"y"}},"resource":{{"attributes":{{"session.id":"r1"}},"attributes":7}},"start_time":1000000,"end_time":"2000000","name":"n"}}"#
        ))
        .unwrap();
        assert_eq!((span.trace, span.span, span.parent), (1, 2, None));
        assert_eq!(span.session.as_deref(), Some("y"));
        assert_eq!(span.resource_session, None);
        assert_eq!((span.start_ms, span.end_ms), (Some(1.0), Some(2.0)));
        // a parent that is no object: parent_id; no times
        let span = one_span(&format!(
            r#"{{{ids},"parent":null,"parent_id":"0x5","resource":{{"attributes":{{"session.id":"r"}},"schema_url":""}}}}"#
        ))
        .unwrap();
        assert_eq!(
            (span.parent, span.start_ms, span.end_ms),
            (Some(5), None, None)
        );
        assert_eq!(span.resource_session.as_deref(), Some("r"));
        assert_eq!(span.session, None);
        // a later resource without attributes replaces one with them
        let span = one_span(&format!(
            r#"{{{ids},"resource":{{"attributes":{{"session.id":"r"}}}},"resource":{{"schema_url":""}},"parent":{{"span_id":"0x9"}}}}"#
        ))
        .unwrap();
        assert_eq!((span.resource_session, span.parent), (None, Some(9)));
        // a later context without span_id replaces one with it; a context of no object
        let again = r#"{"context":{"trace_id":1,"span_id":2},"context":{"trace_id":1}}"#;
        assert_eq!(one_span(again).err(), Some("invalid_span_id"));
        assert_eq!(one_span(r#"{"context":5}"#).err(), Some("invalid_span_id"));
        // a tool span: its call id and tool name from the last attributes dict
        let span = one_span(&format!(
            r#"{{{ids},"attributes":{{"gen_ai.operation.name":"execute_tool","gen_ai.tool.name":"grep","gen_ai.tool.call.id":"c9"}},"start_time":"2026-01-01T00:00:00Z","end_time":null}}"#
        ))
        .unwrap();
        assert_eq!(span.call_id.as_deref(), Some("c9"));
        assert_eq!(span.tool_name.as_deref(), Some("grep"));
        assert_eq!((span.start_ms, span.end_ms), (Some(1767225600000.0), None));
        // nothing of a span, no spans: not a span
        assert!(matches!(
            line_value(r#"{"name":"x"}"#, &mut Names::default()),
            Ok(Value::Ignore(b"unknown_record"))
        ));
        // a nested object that does not parse fails the line
        assert!(line_value(r#"{"attributes":{"a":1,}}"#, &mut Names::default()).is_err());
        assert!(line_value(r#"{"resource":{"attributes":[1,]}}"#, &mut Names::default()).is_err());
    }

    #[test]
    fn nested_fields_nest_as_deep_as_json_reads_a_line_and_no_deeper() {
        let reads = |k: usize, shape: &dyn Fn(&str) -> String| {
            let arrays = format!("{}{}", "[".repeat(k), "]".repeat(k));
            line_value(&shape(&arrays), &mut Names::default()).is_ok()
        };
        let l = MAX_JSON_DEPTH;
        // (the line's object is level 1): how many arrays fit, by where they are
        type Shape = fn(&str) -> String;
        let shapes: [(usize, Shape); 14] = [
            (l - 2, |a| format!(r#"{{"attributes":{{"a":{a}}}}}"#)),
            // a wanted key's value as deep as any other's
            (l - 2, |a| {
                format!(r#"{{"attributes":{{"session.id":{a}}}}}"#)
            }),
            (l - 2, |a| format!(r#"{{"context":{{"trace_id":{a}}}}}"#)),
            (l - 3, |a| {
                format!(r#"{{"resource":{{"attributes":{{"session.id":{a}}}}}}}"#)
            }),
            (l - 4, |a| {
                format!(r#"{{"spans":[{{"attributes":{{"tool_name":{a}}}}}]}}"#)
            }),
            (l - 2, |a| format!(r#"{{"context":{{"a":{a}}}}}"#)),
            (l - 2, |a| format!(r#"{{"parent":{{"a":{a}}}}}"#)),
            (l - 2, |a| format!(r#"{{"resource":{{"x":{a}}}}}"#)),
            (l - 3, |a| {
                format!(r#"{{"resource":{{"attributes":{{"a":{a}}}}}}}"#)
            }),
            (l - 1, |a| format!(r#"{{"name":{a}}}"#)),
            (l - 3, |a| format!(r#"{{"spans":[{{"x":{a}}}]}}"#)),
            (l - 3, |a| format!(r#"{{"spans":[{{"name":{a}}}]}}"#)),
            (l - 4, |a| {
                format!(r#"{{"spans":[{{"attributes":{{"a":{a}}}}}]}}"#)
            }),
            (l - 5, |a| {
                format!(r#"{{"spans":[{{"resource":{{"attributes":{{"a":{a}}}}}}}]}}"#)
            }),
        ];
        for (i, (most, shape)) in shapes.iter().enumerate() {
            assert!(reads(*most, shape), "shape {i}");
            assert!(!reads(most + 1, shape), "shape {i}");
        }
    }

    #[test]
    fn spans_of_a_list_are_read_and_a_tool_named_by_its_span_name() {
        let value = line_value(
            r#"{"spans":[{"context":{"trace_id":1,"span_id":2},"name":"execute_tool grep","attributes":{"gen_ai.operation.name":"execute_tool"},"start_time":1000000,"end_time":3000000},7]}"#,
            &mut Names::default(),
        );
        let Ok(Value::Spans(events, 2)) = value else {
            panic!("two items");
        };
        let Event::Span(span) = &events[0] else {
            panic!("a span");
        };
        // no call id: the span id as 16 hex digits; the tool from the name
        assert_eq!(span.tool_name.as_deref(), Some("grep"));
        assert_eq!(span.call_id.as_deref(), Some("0000000000000002"));
        assert_eq!((span.start_ms, span.end_ms), (Some(1.0), Some(3.0)));
        assert!(matches!(events[1], Event::Problem("invalid_span")));
    }

    #[test]
    fn a_document_s_spans_count_as_its_items() {
        let span = |id: u64, start: u64| {
            format!(
                r#"    {{"context": {{"trace_id": 1, "span_id": {id}}}, "attributes": {{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read", "session.id": "s"}}, "start_time": {}, "end_time": {}}}"#,
                start * 1_000_000,
                (start + 100) * 1_000_000
            )
        };
        let (a, b) = (span(2, 1000), span(3, 1050));
        let lines = ["{", "  \"spans\": [", &format!("{a},"), &b, "  ]", "}"];
        let out = crate::readers::protocol::fixtures::read_lines(
            &OtelSpans,
            "otel-spans",
            &lines,
            "unused",
        );
        let account = &out.accounts[0];
        // one document of two spans: two items, both calls used, one lane
        assert_eq!((account.lines_read, account.lines_used), (2, 2));
        assert_eq!(out.lanes.len(), 1);
        assert_eq!(out.lanes[0].session_id, "s");
        assert_eq!(out.lanes[0].summary.paired_calls, 2);
    }
}
