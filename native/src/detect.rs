//! Format detection for the formats this crate reads (`registry.py`: `_sniff_events`,
//! then `_sniff_claude`, over the JSON objects among the first 64 lines with content).

use crate::json::{parse_object, Val};
use crate::lines::{is_py_space, LineReader};
use std::fs::File;
use std::io;
use std::path::Path;

/// How many first lines with content detection looks at (`DETECT_LINES`).
pub const DETECT_LINES: usize = 64;

/// The type sets the Python registry recognises formats by.
pub struct Sniffers<'a> {
    pub event_types: &'a [String],
    pub claude_only_types: &'a [String],
}

/// `"events"`, `"claude-code"`, or `None` when neither recogniser accepts the file
/// (then the Python registry decides: another format, empty, or unrecognised).
pub fn detect(path: &Path, sniffers: &Sniffers) -> io::Result<Option<&'static str>> {
    let mut reader = LineReader::new(File::open(path)?);
    let mut types: Vec<(Option<Vec<u8>>, bool)> = Vec::new();
    let mut with_content = 0;
    let mut first = true;
    while with_content < DETECT_LINES {
        let Some((raw, _)) = reader.next_line()? else {
            break;
        };
        if raw.iter().any(|&b| !is_py_space(b)) {
            with_content += 1;
        }
        let mut line = raw;
        if first {
            line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
            first = false;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            continue;
        };
        let (mut kind, mut has_uuid) = (None, false);
        let parsed = parse_object(text, &["type", "uuid"], |i, raw| {
            if i == 0 {
                kind = Val::of(raw).str_bytes().map(<[u8]>::to_vec);
            } else {
                has_uuid = true;
            }
        });
        if parsed.is_ok() {
            types.push((kind, has_uuid));
        }
    }
    let is = |set: &[String], kind: &Option<Vec<u8>>| {
        kind.as_ref()
            .is_some_and(|k| set.iter().any(|s| s.as_bytes() == k.as_slice()))
    };
    if types.iter().any(|(kind, _)| is(sniffers.event_types, kind)) {
        return Ok(Some("events"));
    }
    let conversation = |kind: &Option<Vec<u8>>| {
        matches!(kind.as_deref(), Some(b"user" | b"assistant" | b"system"))
    };
    if types
        .iter()
        .any(|(kind, uuid)| is(sniffers.claude_only_types, kind) || (conversation(kind) && *uuid))
    {
        return Ok(Some("claude-code"));
    }
    Ok(None)
}
