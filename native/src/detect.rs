//! Format detection for the formats this crate reads (`registry.py`: `_sniff_events`,
//! then `_sniff_claude`, over the JSON objects among the first 64 lines with content).

use crate::json::{nesting_exceeds, parse_object, Val, PY_MAX_DEPTH};
use crate::lines::{is_py_space, LineReader};
use std::io;
use std::path::Path;

/// How many first lines with content detection looks at (`DETECT_LINES`).
pub const DETECT_LINES: usize = 64;
/// The peek's caps in Python (`sources.py`): past this many lines or bytes,
/// detection is left to Python (a peek cut at its cap decides differently).
pub const PEEK_MAX_LINES: usize = 100_000;
/// The peek's byte cap (64 MiB), less a margin so Python's own count decides.
pub const PEEK_MAX_BYTES: usize = 64 * (1 << 20) - 1024;

/// The type sets the Python registry recognises formats by.
pub struct Sniffers<'a> {
    pub event_types: &'a [String],
    pub claude_only_types: &'a [String],
}

/// What detection found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    Events = 0,
    ClaudeCode = 1,
}

/// `Events`, `ClaudeCode`, or `None` when neither recogniser accepts the file
/// (then the Python registry decides: another format, empty, or unrecognised).
pub fn detect(path: &Path, sniffers: &Sniffers) -> io::Result<Option<Detected>> {
    let file = match crate::readers::open_plain(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::Unsupported => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut reader = LineReader::new(file);
    let mut types: Vec<(Option<Vec<u8>>, bool)> = Vec::new();
    let event_names: Vec<memchr::memmem::Finder> = sniffers
        .event_types
        .iter()
        .map(|t| memchr::memmem::Finder::new(t.as_bytes()))
        .collect();
    let mut claude_found = false;
    let mut with_content = 0;
    let mut first = true;
    let (mut lines, mut bytes) = (0usize, 0usize);
    while with_content < DETECT_LINES {
        let raw = match reader.next_line() {
            Ok(Some((raw, _))) => raw,
            Ok(None) => break,
            Err(e) if e.kind() == io::ErrorKind::Unsupported => return Ok(None),
            Err(e) => return Err(e),
        };
        lines += 1;
        bytes += raw.len() + 1;
        if lines >= PEEK_MAX_LINES || bytes >= PEEK_MAX_BYTES {
            return Ok(None);
        }
        if raw.iter().any(|&b| !is_py_space(b)) {
            with_content += 1;
        }
        let mut line = raw;
        if first {
            line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
            first = false;
        }
        // Once a record says claude-code, only an events record can change the answer,
        // and a line that holds neither an event type's name nor a \u escape (the only
        // escape that can spell a letter of one) cannot be one:
        // such lines need no parse (the answer is exactly the full parse's).
        if claude_found
            && memchr::memmem::find(line, b"\\u").is_none()
            && !event_names.iter().any(|f| f.find(line).is_some())
        {
            continue;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            continue;
        };
        if nesting_exceeds(line, PY_MAX_DEPTH) {
            continue; // Python's json gives up on it: not a record
        }
        let (mut kind, mut has_uuid) = (None, false);
        let parsed = parse_object(text, &["type", "uuid"], |i, raw| {
            if i == 0 {
                kind = Val::of(raw).str_bytes().map(<[u8]>::to_vec);
            } else {
                has_uuid = true;
            }
        });
        if parsed.is_ok() {
            let conversation = matches!(kind.as_deref(), Some(b"user" | b"assistant" | b"system"));
            let claude_only = kind.as_ref().is_some_and(|k| {
                sniffers
                    .claude_only_types
                    .iter()
                    .any(|s| s.as_bytes() == k.as_slice())
            });
            claude_found |= claude_only || (conversation && has_uuid);
            types.push((kind, has_uuid));
        }
    }
    let is = |set: &[String], kind: &Option<Vec<u8>>| {
        kind.as_ref()
            .is_some_and(|k| set.iter().any(|s| s.as_bytes() == k.as_slice()))
    };
    if types.iter().any(|(kind, _)| is(sniffers.event_types, kind)) {
        return Ok(Some(Detected::Events));
    }
    let conversation = |kind: &Option<Vec<u8>>| {
        matches!(kind.as_deref(), Some(b"user" | b"assistant" | b"system"))
    };
    if types
        .iter()
        .any(|(kind, uuid)| is(sniffers.claude_only_types, kind) || (conversation(kind) && *uuid))
    {
        return Ok(Some(Detected::ClaudeCode));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect_text(text: &str) -> Option<&'static str> {
        let dir = std::env::temp_dir().join(format!("wm-detect-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!(
            "{:x}.jsonl",
            text.len() * 31 + text.bytes().map(usize::from).sum::<usize>()
        ));
        std::fs::write(&path, text).unwrap();
        let events = ["tool_execution_start".to_string(), "turn_end".to_string()];
        let claude = ["summary".to_string()];
        let sniffers = Sniffers {
            event_types: &events,
            claude_only_types: &claude,
        };
        let found = detect(&path, &sniffers).unwrap().map(|f| match f {
            Detected::Events => "events",
            Detected::ClaudeCode => "claude-code",
        });
        std::fs::remove_file(&path).unwrap();
        found
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
}
