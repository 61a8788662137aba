//! The `otlp` reader (`docs/formats.md`, "Span-shaped formats" and `otlp`), rule for
//! rule as `wavemetrics/readers/otlp.py` with the span rules of `_spans.py`: OTLP/JSON
//! traces, one `{"resourceSpans": [...]}` document per line (the collector's file
//! exporter) or whole documents (pretty-printed, arrays, several in a row), every span
//! of the file kept as the few fields the rules need (`spans::Span`), and lanes made
//! once the whole file is read (`spans::Collector`).
//!
//! The shape of the input is decided as `_spans.iter_json_values` decides it
//! (`spans::json_lines`): JSON Lines when the first line with content is a JSON object
//! on its own, or begins neither an object nor an array; else whole documents, split
//! and walked by `documents` without holding one (each batch of `resourceSpans` read
//! alone, its events held until the document has parsed). The documents `documents`
//! declines are declined (`Unsupported`): the Python reader reads them.
//!
//! Each line is read in one pass of the validating scanner ([`Scan`]), its spans and
//! accounting events gathered in the order `otlp.py` meets them and applied only when
//! the whole line parsed; a repeated key's value replaces the earlier one's (the last
//! key wins, as in Python's `json`).

use super::documents::{read_documents, validate, Part, Reading, Visit};
use super::lines::Names;
use super::protocol::{with_fallback, Failure, ReadError, Reader, Unit, UnitOut};
use super::spans::{
    for_each_span_line, json_lines, mark, ns_time_to_ms, session_attribute, Attributes, Collector,
    Event, Span, ATTRIBUTE_KEYS,
};
use crate::account::LineAccount;
use crate::io::open_input;
use crate::json::{Raw, Scan, SyntaxError, Val, MAX_JSON_DEPTH};
use crate::summary::Settings;
use std::path::Path;
use std::rc::Rc;

/// Other OTLP signals a collector may write to a file, in the order `otlp.py` asks.
const OTHER_SIGNALS: [&[u8]; 3] = [b"resourceLogs", b"resourceMetrics", b"resourceProfiles"];

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

/// One element of `resourceSpans`, `depth` containers deep: its events and items (one
/// `invalid_structure` when it is no object).
fn batch_events<'a>(
    scan: &mut Scan<'a>,
    depth: usize,
    names: &mut Names,
) -> Result<(Vec<Event>, u64), SyntaxError> {
    if scan.space() != Some(b'{') {
        scan.skip(depth)?;
        return Ok((vec![Event::Problem("invalid_structure")], 1));
    }
    let found = batch(scan, depth, names)?;
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
    Ok((scope, count))
}

/// What one top-level document gives: `None` when it holds no `resourceSpans`, with the
/// other signal it names (`ignored` kind); else its events and items.
enum Document {
    Other(&'static [u8]),
    Spans(Vec<Event>, u64),
}

/// One line's object (`_read_document` of `otlp.py`), read in one pass; a line
/// nesting deeper than json reads ([`MAX_JSON_DEPTH`]) is a [`SyntaxError`].
fn document(text: &str, names: &mut Names) -> Result<Document, SyntaxError> {
    let mut spans: Option<(Vec<Event>, u64)> = None;
    let mut signals = [false; 3];
    Scan::line_within(text, MAX_JSON_DEPTH, |scan, key| {
        if key == b"resourceSpans" {
            let mut events = Vec::new();
            let mut items = 0u64;
            if scan.space() == Some(b'[') {
                scan.array(2, |scan| {
                    let (found, count) = batch_events(scan, 2, names)?;
                    events.extend(found);
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
    Ok(decide(spans, signals))
}

fn decide(spans: Option<(Vec<Event>, u64)>, signals: [bool; 3]) -> Document {
    match spans {
        Some((events, items)) => Document::Spans(events, items),
        None => Document::Other(
            OTHER_SIGNALS
                .iter()
                .zip(signals)
                .find(|(_, seen)| *seen)
                .map_or(b"unknown_record".as_slice(), |(kind, _)| kind),
        ),
    }
}

/// `_read_document` of `otlp.py` for a document that parsed.
fn apply(document: Document, collector: &mut Collector, account: &mut LineAccount) {
    match document {
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
}

/// What a document's walk has found so far: its top-level value's type.
enum Top {
    Array,
    Object,
    Scalar,
}

/// The reader of whole documents (pretty-printed, arrays, several in a row), shown each
/// one's parts by `documents`: each batch of a top-level `resourceSpans` read alone and
/// accounted when met, and undone when the document does not parse or a later
/// `resourceSpans` key replaces the list (the last key wins).
struct DocumentReader<'n> {
    names: &'n mut Names,
    collector: &'n mut Collector,
    account: &'n mut LineAccount,
    /// The account, and how many spans were kept, before the document.
    before: (LineAccount, usize),
    top: Top,
    /// The items of the document's `resourceSpans` so far (its events already applied),
    /// `None` without one.
    spans: Option<u64>,
    spans_key: bool,
    signals: [bool; 3],
}

impl DocumentReader<'_> {
    /// Undoes what the document's batches did so far.
    fn rewind(&mut self) {
        self.account.clone_from(&self.before.0);
        self.collector.truncate(self.before.1);
    }
}

impl Visit for DocumentReader<'_> {
    fn walks(&self, key: &[u8]) -> bool {
        key == b"resourceSpans"
    }

    fn part(&mut self, part: Part<'_>) -> Result<(), SyntaxError> {
        match part {
            Part::TopArray => self.top = Top::Array,
            Part::TopObject => self.top = Top::Object,
            Part::Key(key) => {
                self.spans_key = key == b"resourceSpans";
                if let Some(i) = OTHER_SIGNALS.iter().position(|s| *s == key) {
                    self.signals[i] = true;
                }
            }
            Part::Walked => {
                self.rewind();
                self.spans = Some(0);
            }
            Part::Element(text, depth) => {
                if matches!(self.top, Top::Array) {
                    return validate(text, depth);
                }
                let mut scan = Scan::within(text, MAX_JSON_DEPTH);
                let (events, count) = batch_events(&mut scan, depth, self.names)?;
                if scan.space().is_some() {
                    return Err(SyntaxError);
                }
                if let Some(items) = &mut self.spans {
                    *items += count;
                }
                for event in events {
                    match event {
                        Event::Problem(reason) => self.account.problem(reason),
                        Event::Span(span) => self.collector.add(*span, self.account),
                    }
                }
            }
            Part::Value(text, depth) => {
                validate(text, depth)?;
                if depth == 0 {
                    self.top = Top::Scalar;
                } else if self.spans_key {
                    self.rewind();
                    self.account.problem("invalid_structure");
                    self.spans = Some(1);
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
        self.spans = None;
        self.spans_key = false;
        self.signals = [false; 3];
    }

    fn undo(&mut self) {
        self.rewind();
    }

    fn parsed(&mut self) {
        let document = match self.top {
            Top::Array | Top::Scalar => return self.account.problem("not_an_object"),
            Top::Object => decide(
                self.spans.take().map(|items| (Vec::new(), items)),
                self.signals,
            ),
        };
        apply(document, self.collector, self.account);
    }

    fn account(&mut self) -> &mut LineAccount {
        self.account
    }
}

fn read_otlp_once(path: &Path, settings: &Settings) -> Result<UnitOut, Failure> {
    let mut account = LineAccount::default();
    let mut collector = Collector::default();
    let mut names = Names::default();
    match json_lines(path)? {
        false => {
            let mut reader = DocumentReader {
                names: &mut names,
                collector: &mut collector,
                account: &mut account,
                before: (LineAccount::default(), 0),
                top: Top::Scalar,
                spans: None,
                spans_key: false,
                signals: [false; 3],
            };
            read_documents(open_input(path)?, &mut reader)?;
        }
        true => for_each_span_line(
            path,
            &mut account,
            &mut names,
            document,
            |parsed, account| apply(parsed, &mut collector, account),
        )?,
    }
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
    use crate::readers::protocol::fixtures::{raw, read_lines, settings};

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
    fn documents_are_read_and_undecided_first_lines_declined() {
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
        assert!(!declined("{\n  \"resourceSpans\": []\n}\n"));
        assert!(!declined("[{\"resourceSpans\": []}]\n"));
        assert!(!declined("\n{\"resourceSpans\": []} {}\n"));
        // a single document that does not parse fails the input: Python says why
        assert!(declined("{\"a\": NaN}\n"));
        assert!(declined("{\n\"resourceSpans\": [1,]\n}\n"));
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
