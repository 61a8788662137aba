//! Format detection for the formats this crate detects, in the registry's order
//! (`registry.py`: `events`, then `qwen` (left to Python), `claude-code`, `codex`,
//! `codex-tui` (left to Python) and `pi`, each recogniser over the JSON objects among
//! the first 64 lines with content). A format is detected only when the registry
//! hands over its record types ([`Sniffers::from_lists`]): its row says the
//! extension reads it.
//!
//! [`Window`] holds the rule, fed one line at a time: [`detect`] feeds it a file's
//! first lines on their own (the separate detection pass), the folded read
//! (`readers::read_folded`) the records its Claude Code parse makes of the same lines.

use crate::json::{nesting_exceeds, parse_object, Val, MAX_JSON_DEPTH};
use crate::lines::{is_py_space, LineReader};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many first lines with content detection looks at (`DETECT_LINES`).
pub const DETECT_LINES: usize = 64;
/// The peek's caps in Python (`sources.py`): past this many lines or bytes,
/// detection is left to Python (a peek cut at its cap decides differently).
pub const PEEK_MAX_LINES: usize = 100_000;
/// The peek's byte cap (64 MiB), less a margin so Python's own count decides.
pub const PEEK_MAX_BYTES: usize = 64 * (1 << 20) - 1024;

/// How many files [`detect`] has looked at in this process: the separate detection
/// pass (tests use it to see that a folded read made none).
pub static SEPARATE_DETECTIONS: AtomicUsize = AtomicUsize::new(0);

/// The type sets the Python registry recognises formats by (empty: the format is
/// not detected here).
pub struct Sniffers<'a> {
    pub event_types: &'a [String],
    pub claude_only_types: &'a [String],
    /// `CODEX_TYPES`: the envelope types of a Codex rollout (`codex.sniff_codex`).
    pub codex_types: &'a [String],
    /// `PI_TYPES`: the record types of pi's recogniser (`pi.sniff_pi`: a `session`
    /// header, a `message` with a `role`).
    pub pi_types: &'a [String],
}

impl<'a> Sniffers<'a> {
    /// The sets by format code, as the registry hands them over (`native_sniffers()`:
    /// one list per native format, in code order; a missing or empty list: that format
    /// is not detected here).
    pub fn from_lists(lists: &'a [Vec<String>]) -> Self {
        let list = |code: usize| lists.get(code).map_or(&[][..], Vec::as_slice);
        Sniffers {
            event_types: list(0),
            claude_only_types: list(1),
            codex_types: list(2),
            pi_types: list(3),
        }
    }
}

impl Sniffers<'_> {
    fn is_event(&self, kind: &[u8]) -> bool {
        self.event_types.iter().any(|s| s.as_bytes() == kind)
    }

    fn is_claude_only(&self, kind: &[u8]) -> bool {
        self.claude_only_types.iter().any(|s| s.as_bytes() == kind)
    }

    fn is_codex(&self, kind: &[u8]) -> bool {
        self.codex_types.iter().any(|s| s.as_bytes() == kind)
    }

    fn is_pi(&self, kind: &[u8]) -> bool {
        self.pi_types.iter().any(|s| s.as_bytes() == kind)
    }
}

/// What detection found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    Events = 0,
    ClaudeCode = 1,
    Codex = 2,
    Pi = 3,
}

/// The detection window of one file: its first lines up to the [`DETECT_LINES`]th
/// with content, and what their records say. Fed each raw line by [`Window::take`]
/// (while [`Window::looking`]) and each line's record by [`Window::record`].
pub struct Window<'s> {
    sniffers: &'s Sniffers<'s>,
    with_content: usize,
    lines: usize,
    bytes: usize,
    first: bool,
    /// A record of an event type was seen (events win over claude-code).
    events: bool,
    /// A record only Claude Code writes was seen.
    claude: bool,
    /// A record Qwen Code's recogniser takes was seen (it comes before claude-code).
    qwen: bool,
    /// A Codex envelope was seen (`codex` comes after claude-code).
    codex: bool,
    /// A record of Codex's TUI recording was seen (`codex-tui`: after codex, before pi;
    /// looked for only while pi is detected here).
    tui: bool,
    /// A pi record was seen (`pi` comes after codex-tui).
    pi: bool,
    /// The JSON objects seen so far: the first decides Droid's files (`session_start`),
    /// which are never pi.
    records: usize,
    droid: bool,
}

impl<'s> Window<'s> {
    pub fn new(sniffers: &'s Sniffers<'s>) -> Self {
        Window {
            sniffers,
            with_content: 0,
            lines: 0,
            bytes: 0,
            first: true,
            events: false,
            claude: false,
            qwen: false,
            codex: false,
            tui: false,
            pi: false,
            records: 0,
            droid: false,
        }
    }

    /// Whether the next line is still in the window.
    pub fn looking(&self) -> bool {
        self.with_content < DETECT_LINES
    }

    /// Account the next raw line (without its `\n`): the line as detection parses it
    /// (a first line without its BOM), or `None` when the window reaches the peek's
    /// caps (then detection is Python's).
    pub fn take<'l>(&mut self, raw: &'l [u8]) -> Option<&'l [u8]> {
        self.lines += 1;
        self.bytes += raw.len() + 1;
        if self.lines >= PEEK_MAX_LINES || self.bytes >= PEEK_MAX_BYTES {
            return None;
        }
        if raw.iter().any(|&b| !is_py_space(b)) {
            self.with_content += 1;
        }
        if std::mem::replace(&mut self.first, false) {
            return Some(raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(raw));
        }
        Some(raw)
    }

    /// A line of the window that is a JSON object, by its `type` (when a string),
    /// whether it has a `uuid` key, and whether Qwen Code's recogniser takes it
    /// ([`is_qwen`]).
    pub fn record(&mut self, kind: Option<&[u8]>, has_uuid: bool, qwen: bool) {
        self.records += 1;
        if self.records == 1 && kind == Some(b"session_start".as_slice()) {
            self.droid = true; // pi's recogniser refuses the file at its first record
        }
        self.qwen |= qwen;
        let Some(kind) = kind else {
            return;
        };
        let conversation = matches!(kind, b"user" | b"assistant" | b"system");
        self.events |= self.sniffers.is_event(kind);
        self.claude |= self.sniffers.is_claude_only(kind) || (conversation && has_uuid);
    }

    /// The line (`line`, as detection parses it) of the record just taken by
    /// [`Window::record`], of type `kind`: what the recognisers after claude-code need
    /// of it. It is parsed again only while that can change the answer (no Claude Code
    /// record seen, and the recogniser not yet satisfied): for `timestamp` and
    /// `payload` when its type is Codex's ([`codex_envelope`]), for pi's keys when its
    /// type is pi's ([`pi_record`]), for Codex's TUI recording keys when it may hold
    /// them ([`tui_record`]). A rollout's or a pi session's first line is the one
    /// parsed twice.
    pub fn line(&mut self, kind: Option<&[u8]>, line: &[u8]) {
        if self.claude {
            return;
        }
        if !self.codex && kind.is_some_and(|kind| self.sniffers.is_codex(kind)) {
            self.codex = codex_envelope(line);
        }
        if self.sniffers.pi_types.is_empty() || self.codex {
            return; // codex-tui and pi are looked for only while pi could be found
        }
        if !self.pi && kind.is_some_and(|kind| self.sniffers.is_pi(kind)) {
            self.pi = pi_record(line);
        }
        if !self.tui && may_be_tui(line) {
            self.tui = tui_record(line);
        }
    }

    /// What the lines taken so far say: `events` when any record has an event type,
    /// else `None` when one is Qwen Code's (the registry's `qwen` comes before
    /// `claude-code` and `codex`: Python reads it), else `claude-code` when any is
    /// Claude Code's, else `codex` when any is a Codex envelope, else `None` (ask the
    /// registry).
    pub fn found(&self) -> Option<Detected> {
        if self.events {
            Some(Detected::Events)
        } else if self.qwen {
            None
        } else if self.claude {
            Some(Detected::ClaudeCode)
        } else if self.codex {
            Some(Detected::Codex)
        } else if self.tui || self.droid || !self.pi {
            None // codex-tui comes before pi: Python reads it
        } else {
            Some(Detected::Pi)
        }
    }
}

/// The record types of Qwen Code's chat records (`qwen.py` `_TYPES`).
const QWEN_TYPES: [&[u8]; 4] = [b"user", b"assistant", b"tool_result", b"system"];

/// `qwen.sniff_qwen` for one record: a `type` of Qwen Code's four, `uuid` and
/// `sessionId` keys, and the type `tool_result`, a `systemPayload` key or a
/// `message` object with a `parts` key (none of which Claude Code writes). `text`
/// is the record's line, parsed again only when the first conditions hold.
pub fn is_qwen(kind: Option<&[u8]>, has_uuid: bool, has_session: bool, text: &str) -> bool {
    kind.is_some_and(|kind| QWEN_TYPES.contains(&kind))
        && has_uuid
        && has_session
        && (kind == Some(b"tool_result".as_slice())
            || (may_be_marked(text.as_bytes()) && qwen_marked(text)))
}

/// Whether Qwen Code's recogniser takes a record, as a reader that parsed it already
/// hands it to detection: `Line` when its `sessionId` presence and text are at hand
/// (checked only if detection asks), `Known` when decided.
#[derive(Debug, Clone, Copy)]
pub enum QwenCheck<'t> {
    Line { has_session: bool, text: &'t str },
    Known(bool),
}

impl QwenCheck<'_> {
    /// The verdict for a record of type `kind` with (or without) a `uuid` key.
    pub fn resolve(self, kind: Option<&[u8]>, has_uuid: bool) -> bool {
        match self {
            QwenCheck::Line { has_session, text } => is_qwen(kind, has_uuid, has_session, text),
            QwenCheck::Known(qwen) => qwen,
        }
    }
}

/// Whether a line may hold Qwen Code's markers (`parts`, `systemPayload`, or a key
/// spelled with a `\u` escape): only such a line needs [`qwen_marked`].
pub fn may_be_marked(line: &[u8]) -> bool {
    [b"parts".as_slice(), b"systemPayload", b"\\u"]
        .iter()
        .any(|needle| memchr::memmem::find(line, needle).is_some())
}

/// Whether the JSON object `text` has a `systemPayload` key or a `message` object
/// with a `parts` key (the last of repeated keys wins, as in Python's `json`).
pub fn qwen_marked(text: &str) -> bool {
    let (mut payload, mut parts) = (false, false);
    let parsed = parse_object(text, &["systemPayload", "message"], |i, raw| {
        if i == 0 {
            payload = true;
        } else {
            parts = match Val::of(raw) {
                Val::Object(inner) => {
                    let mut found = false;
                    parse_object(inner, &["parts"], |_, _| found = true).is_ok() && found
                }
                _ => false,
            };
        }
    });
    parsed.is_ok() && (payload || parts)
}

/// `codex.sniff_codex` for one line that is a JSON object whose `type` is one of
/// `CODEX_TYPES` (the caller checked): it has a `timestamp` key and its `payload` is
/// an object (the last of repeated keys wins, as in Python's `json`).
pub fn codex_envelope(line: &[u8]) -> bool {
    let Some(text) = object_text(line) else {
        return false;
    };
    let (mut timestamp, mut payload) = (false, false);
    let parsed = parse_object(text, &["timestamp", "payload"], |i, raw| {
        if i == 0 {
            timestamp = true;
        } else {
            payload = matches!(Val::of(raw), Val::Object(_));
        }
    });
    parsed.is_ok() && timestamp && payload
}

/// The record types of Codex's TUI recording (`codex_tui.TUI_DIRECTIONS`).
const TUI_DIRECTIONS: [&[u8]; 3] = [b"meta", b"to_tui", b"from_tui"];

/// Whether a line may hold a `dir` key (spelled plainly or with a `\u` escape): only
/// such a line needs [`tui_record`].
fn may_be_tui(line: &[u8]) -> bool {
    [b"\"dir\"".as_slice(), b"\\u"]
        .iter()
        .any(|needle| memchr::memmem::find(line, needle).is_some())
}

/// `codex_tui.sniff_codex_tui` for one line that is a JSON object: a string `dir` of
/// [`TUI_DIRECTIONS`], a string `kind` and a `ts` key (the last of repeated keys wins).
pub fn tui_record(line: &[u8]) -> bool {
    let Some(text) = object_text(line) else {
        return false;
    };
    let (mut dir, mut kind, mut ts) = (false, false, false);
    let parsed = parse_object(text, &["dir", "kind", "ts"], |i, raw| match i {
        0 => {
            dir = Val::of(raw)
                .str_bytes()
                .is_some_and(|d| TUI_DIRECTIONS.contains(&d))
        }
        1 => kind = Val::of(raw).str_bytes().is_some(),
        _ => ts = true,
    });
    parsed.is_ok() && dir && kind && ts
}

/// `pi.sniff_pi` for one line that is a JSON object whose `type` is one of pi's (the
/// caller checked): a `session` header with a string `id` and a `timestamp` key, or a
/// `message` whose `message` is an object with a `role` key (the last of repeated keys
/// wins).
pub fn pi_record(line: &[u8]) -> bool {
    let Some(text) = object_text(line) else {
        return false;
    };
    let (mut kind, mut id, mut timestamp, mut role) = (None, false, false, false);
    let parsed = parse_object(
        text,
        &["type", "id", "timestamp", "message"],
        |i, raw| match i {
            0 => kind = Val::of(raw).str_bytes().map(<[u8]>::to_vec),
            1 => id = Val::of(raw).str_bytes().is_some(),
            2 => timestamp = true,
            _ => {
                role = match Val::of(raw) {
                    Val::Object(inner) => {
                        let mut found = false;
                        parse_object(inner, &["role"], |_, _| found = true).is_ok() && found
                    }
                    _ => false,
                }
            }
        },
    );
    parsed.is_ok()
        && match kind.as_deref() {
            Some(b"session") => id && timestamp,
            Some(b"message") => role,
            _ => false,
        }
}

/// The text of a line that detection may take for a JSON object (UTF-8, nested no
/// deeper than the one limit, [`MAX_JSON_DEPTH`]), else `None`.
fn object_text(line: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(line).ok()?;
    (!nesting_exceeds(line, MAX_JSON_DEPTH)).then_some(text)
}

/// A line as detection reads it (`json.loads` of the line): `Some((type when a
/// string, has a uuid key, Qwen Code's recogniser takes it))` when it is a JSON
/// object, else `None`.
pub fn sniff_line(line: &[u8]) -> Option<(Option<Vec<u8>>, bool, bool)> {
    let text = std::str::from_utf8(line).ok()?;
    if nesting_exceeds(line, MAX_JSON_DEPTH) {
        return None; // past the one limit: too deeply nested, not a record
    }
    let (mut kind, mut has_uuid, mut has_session) = (None, false, false);
    parse_object(text, &["type", "uuid", "sessionId"], |i, raw| match i {
        0 => kind = Val::of(raw).str_bytes().map(<[u8]>::to_vec),
        1 => has_uuid = true,
        _ => has_session = true,
    })
    .ok()?;
    let qwen = is_qwen(kind.as_deref(), has_uuid, has_session, text);
    Some((kind, has_uuid, qwen))
}

/// `Events`, `ClaudeCode`, `Codex`, or `None` when none of their recognisers accepts
/// the file or Qwen Code's does (then the Python registry decides: another format,
/// empty, or unrecognised).
pub fn detect(path: &Path, sniffers: &Sniffers) -> io::Result<Option<Detected>> {
    SEPARATE_DETECTIONS.fetch_add(1, Ordering::Relaxed);
    let file = match crate::io::open_input(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::Unsupported => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut reader = LineReader::new(file);
    let event_names: Vec<memchr::memmem::Finder> = sniffers
        .event_types
        .iter()
        .map(|t| memchr::memmem::Finder::new(t.as_bytes()))
        .collect();
    let mut window = Window::new(sniffers);
    while window.looking() {
        let raw = match reader.next_line() {
            Ok(Some((raw, _))) => raw,
            Ok(None) => break,
            Err(e) if e.kind() == io::ErrorKind::Unsupported => return Ok(None),
            Err(e) => return Err(e),
        };
        let Some(line) = window.take(raw) else {
            return Ok(None);
        };
        // Once a record says claude-code, only an events record can change the answer,
        // and a line that holds neither an event type's name nor a \u escape (the only
        // escape that can spell a letter of one) cannot be one:
        // such lines need no parse (the answer is exactly the full parse's).
        // Qwen Code's records need `parts`, `systemPayload` or the type `tool_result`.
        if window.claude
            && memchr::memmem::find(line, b"\\u").is_none()
            && !event_names.iter().any(|f| f.find(line).is_some())
            && !may_be_marked(line)
            && memchr::memmem::find(line, b"tool_result").is_none()
        {
            continue;
        }
        if let Some((kind, has_uuid, qwen)) = sniff_line(line) {
            window.record(kind.as_deref(), has_uuid, qwen);
            window.line(kind.as_deref(), line);
        }
    }
    Ok(window.found())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sets by code, as the registry hands them over (pi's only with `pi`).
    fn lists(pi: bool) -> Vec<Vec<String>> {
        let set = |types: &[&str]| types.iter().map(|t| t.to_string()).collect();
        let mut lists = vec![
            set(&["tool_execution_start", "turn_end"]),
            set(&["summary"]),
            set(&["session_meta", "response_item"]),
        ];
        if pi {
            lists.push(set(&["message", "session"]));
        }
        lists
    }

    fn detect_in(text: &str, pi: bool) -> Option<&'static str> {
        let dir = std::env::temp_dir().join(format!("wm-detect-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!(
            "{:x}-{pi}.jsonl",
            text.len() * 31 + text.bytes().map(usize::from).sum::<usize>()
        ));
        std::fs::write(&path, text).unwrap();
        let lists = lists(pi);
        let sniffers = Sniffers::from_lists(&lists);
        let found = detect(&path, &sniffers).unwrap().map(|f| match f {
            Detected::Events => "events",
            Detected::ClaudeCode => "claude-code",
            Detected::Codex => "codex",
            Detected::Pi => "pi",
        });
        std::fs::remove_file(&path).unwrap();
        found
    }

    fn detect_text(text: &str) -> Option<&'static str> {
        detect_in(text, false)
    }

    #[test]
    fn sets_are_taken_by_format_code() {
        let lists = lists(false);
        let sniffers = Sniffers::from_lists(&lists);
        assert_eq!(sniffers.event_types, &lists[0][..]);
        assert_eq!(sniffers.claude_only_types, &lists[1][..]);
        assert_eq!(sniffers.codex_types, &lists[2][..]);
        assert!(sniffers.pi_types.is_empty());
        let none = Sniffers::from_lists(&[]);
        assert!(none.event_types.is_empty() && none.codex_types.is_empty());
    }

    #[test]
    fn a_pi_record_is_pi_after_every_format_the_registry_tries_first() {
        let header = r#"{"type":"session","id":"p1","timestamp":"2025-01-01T00:00:00Z"}"#;
        let message = r#"{"type":"message","message":{"role":"user","content":[]}}"#;
        for pi in [
            header,
            message,
            r#"{"type":"message","message":{"r\u006fle":1}}"#,
        ] {
            assert_eq!(detect_in(pi, true), Some("pi"), "{pi}");
            // pi's types not handed over: not detected here
            assert_eq!(detect_in(pi, false), None, "{pi}");
            let late = format!("not json\n{{}}\n{{\"type\":\"other\"}}\n{pi}\n");
            assert_eq!(detect_in(&late, true), Some("pi"), "{pi}");
        }
        // near misses: an id that is no string, no timestamp, a message that is no
        // object (the last of repeated keys) or has no role, another type
        for near in [
            r#"{"type":"session","id":1,"timestamp":"t"}"#,
            r#"{"type":"session","id":"p1"}"#,
            r#"{"type":"message","message":"role"}"#,
            r#"{"type":"message","message":{"role":"user"},"message":[]}"#,
            r#"{"type":"message","message":{"content":{"role":1}}}"#,
            r#"{"type":"model_change","id":"p1","timestamp":"t"}"#,
            r#"{"type":"session","id":"p1","timestamp":"t""#,
        ] {
            assert_eq!(detect_in(near, true), None, "{near}");
        }
        // Droid's first record refuses pi, whatever follows; only the first record
        let droid = r#"{"type":"session_start","id":"d"}"#;
        assert_eq!(detect_in(&format!("{droid}\n{header}\n"), true), None);
        assert_eq!(
            detect_in(&format!("\nnot json\n{droid}\n{header}\n"), true),
            None
        );
        assert_eq!(detect_in(&format!("{header}\n{droid}\n"), true), Some("pi"));
        // codex-tui comes before pi (a plain or escaped dir key); a dir of another kind,
        // or no string kind, or no ts, is no recording entry
        for tui in [
            r#"{"ts":"t","dir":"meta","kind":"session_start"}"#,
            r#"{"ts":1,"d\u0069r":"to_tui","kind":"k"}"#,
        ] {
            assert_eq!(
                detect_in(&format!("{header}\n{tui}\n"), true),
                None,
                "{tui}"
            );
            assert_eq!(
                detect_in(&format!("{tui}\n{message}\n"), true),
                None,
                "{tui}"
            );
        }
        for near in [
            r#"{"ts":"t","dir":"sideways","kind":"k"}"#,
            r#"{"ts":"t","dir":"meta","kind":1}"#,
            r#"{"dir":"meta","kind":"k"}"#,
        ] {
            assert_eq!(
                detect_in(&format!("{header}\n{near}\n"), true),
                Some("pi"),
                "{near}"
            );
        }
        // every format before it wins
        let codex = r#"{"timestamp":"t","type":"session_meta","payload":{}}"#;
        let claude = r#"{"type":"summary"}"#;
        let events = r#"{"type":"turn_end"}"#;
        let qwen = r#"{"type":"tool_result","uuid":"u","sessionId":"s"}"#;
        for (other, want) in [
            (codex, Some("codex")),
            (claude, Some("claude-code")),
            (events, Some("events")),
            (qwen, None),
        ] {
            assert_eq!(
                detect_in(&format!("{header}\n{other}\n"), true),
                want,
                "{other}"
            );
            assert_eq!(
                detect_in(&format!("{other}\n{header}\n"), true),
                want,
                "{other}"
            );
        }
    }

    #[test]
    fn events_win_over_claude_within_the_first_lines() {
        let claude = "{\"type\":\"user\",\"uuid\":\"u\"}\n";
        assert_eq!(detect_text(claude), Some("claude-code"));
        assert_eq!(
            detect_text(&format!("{claude}{{\"type\":\"turn_end\"}}\n")),
            Some("events")
        );
        // an escaped event type, found by the full parse
        assert_eq!(
            detect_text(&format!("{claude}{{\"type\":\"turn\\u005fend\"}}\n")),
            Some("events")
        );
        // an event type's name in text, not as the type: still claude-code
        assert_eq!(
            detect_text(&format!("{claude}{{\"type\":\"x\",\"m\":\"turn_end\"}}\n")),
            Some("claude-code")
        );
        // not JSON, or past the first 64 lines with content: not counted
        assert_eq!(
            detect_text(&format!("{claude}{{\"type\":\"turn_end\"\n")),
            Some("claude-code")
        );
        let late = format!("{}{{\"type\":\"turn_end\"}}\n", claude.repeat(64));
        assert_eq!(detect_text(&late), Some("claude-code"));
        assert_eq!(
            detect_text("{\"type\":\"user\"}\n{\"type\":\"summary\"}\n"),
            Some("claude-code")
        );
        assert_eq!(detect_text("{\"type\":\"user\"}\n\n  \n"), None);
        assert_eq!(
            detect_text("\u{feff}{\"type\":\"tool_execution_start\"}"),
            Some("events")
        );
    }

    #[test]
    fn qwen_records_leave_the_file_to_the_registry() {
        let claude = "{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"s\"}\n";
        assert_eq!(detect_text(claude), Some("claude-code"));
        // each of Qwen Code's three marks, after a Claude-looking line
        for mark in [
            "{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"s\",\"message\":{\"parts\":[]}}",
            "{\"type\":\"system\",\"uuid\":\"u\",\"sessionId\":\"s\",\"systemPayload\":1}",
            "{\"type\":\"tool_result\",\"uuid\":\"u\",\"sessionId\":\"s\"}",
            "{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"s\",\"message\":{\"p\\u0061rts\":1}}",
        ] {
            assert_eq!(detect_text(&format!("{claude}{mark}\n")), None, "{mark}");
        }
        // a mark without its other keys, or in the wrong place: still claude-code
        for near in [
            "{\"type\":\"user\",\"uuid\":\"u\",\"message\":{\"parts\":[]}}",
            "{\"type\":\"user\",\"sessionId\":\"s\",\"systemPayload\":1}",
            "{\"type\":\"summary\",\"uuid\":\"u\",\"sessionId\":\"s\",\"systemPayload\":1}",
            "{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"s\",\"message\":[\"parts\"]}",
            "{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"s\",\"message\":{\"content\":\"parts\"}}",
            "{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"s\",\"message\":{\"parts\":1},\"message\":{}}",
        ] {
            assert_eq!(detect_text(&format!("{claude}{near}\n")), Some("claude-code"), "{near}");
        }
        // events still win over a Qwen record
        let qwen = "{\"type\":\"tool_result\",\"uuid\":\"u\",\"sessionId\":\"s\"}\n";
        assert_eq!(
            detect_text(&format!("{qwen}{{\"type\":\"turn_end\"}}\n")),
            Some("events")
        );
    }

    #[test]
    fn a_codex_envelope_is_codex_after_every_format_the_registry_tries_first() {
        let meta = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}"#;
        assert_eq!(detect_text(meta), Some("codex"));
        // any value of timestamp; a key spelled with an escape; not the first line
        for envelope in [
            r#"{"timestamp":null,"type":"response_item","payload":{}}"#,
            r#"{"time\u0073tamp":1,"type":"response_item","payload":{}}"#,
            r#"{"type":"response_item","payload":[],"payload":{},"timestamp":1}"#,
        ] {
            assert_eq!(detect_text(envelope), Some("codex"), "{envelope}");
            let late = format!("{{\"type\":\"other\"}}\nnot json\n\n{envelope}\n");
            assert_eq!(detect_text(&late), Some("codex"), "{envelope}");
        }
        // no timestamp, a payload that is no object (the last of repeated keys), a type
        // not in the set or not a string: not codex
        for near in [
            r#"{"type":"session_meta","payload":{}}"#,
            r#"{"timestamp":"t","type":"session_meta","payload":{},"payload":1}"#,
            r#"{"timestamp":"t","type":"session_meta","payload":"{}"}"#,
            r#"{"timestamp":"t","type":"event_msg","payload":{}}"#,
            r#"{"timestamp":"t","type":["session_meta"],"payload":{}}"#,
            r#"{"timestamp":"t","type":"session_meta","payload":{}"#,
        ] {
            assert_eq!(detect_text(near), None, "{near}");
        }
        // past the window: not seen
        let late = format!("{}{meta}\n", "{}\n".repeat(64));
        assert_eq!(detect_text(&late), None);
        // claude-code and events come before codex in the registry, and qwen leaves
        // the file to it, whichever line comes first
        let claude = "{\"type\":\"summary\"}";
        let events = "{\"type\":\"turn_end\"}";
        let qwen = "{\"type\":\"tool_result\",\"uuid\":\"u\",\"sessionId\":\"s\"}";
        for (other, want) in [
            (claude, Some("claude-code")),
            (events, Some("events")),
            (qwen, None),
        ] {
            assert_eq!(detect_text(&format!("{meta}\n{other}\n")), want, "{other}");
            assert_eq!(detect_text(&format!("{other}\n{meta}\n")), want, "{other}");
        }
    }
}
