//! The native readers, one module per format as in `wavemetrics/readers/`
//! (`docs/formats.md`): `claude_code`, `events`, `codex`, `pi`, `copilot`, `kimi`, `openclaw`,
//! `mcode`, `otlp`, `otel_spans` and `inspect`,
//! line for line the rules of their Python modules, each behind the one [`Reader`]
//! trait (`protocol`, as `_protocol.py`); `lines` holds what they read lines with
//! (`_lines.py`), `names` the session id a file's name stands in with
//! (`_uuids.py`), and `folded` the read that detects and reads a folder's
//! files in one pass. Files are opened by `crate::io`.
//!
//! The modules below use one another only downwards (`protocol`, `lines`,
//! `names`, `spans` and `documents` at the bottom, the formats on them, `folded` on the formats), and none names this
//! one, which re-exports them and maps a detected format to its reader
//! (`tests/test_native_modules.py` fails on a cycle).

mod claude_code;
mod codex;
mod copilot;
mod documents;
mod events;
mod folded;
mod inspect;
mod kimi;
mod lines;
mod mcode;
mod names;
mod openclaw;
mod otel_spans;
mod otlp;
mod pi;
mod protocol;
mod spans;

pub use claude_code::{ClaudeCode, SPLIT_BUDGET, SPLIT_READS};
pub use codex::Codex;
pub use copilot::Copilot;
pub use events::Events;
pub use folded::{read_folded, FoldFile, FoldOut, FOLDED_READS};
pub use inspect::Inspect;
pub use kimi::Kimi;
pub use mcode::Mcode;
pub use openclaw::Openclaw;
pub use otel_spans::OtelSpans;
pub use otlp::Otlp;
pub use pi::Pi;
pub use protocol::{LaneOut, ReadError, Reader, Unit, UnitOut};

/// A format the native engine reads, by the code the binding takes (the same as
/// [`crate::detect::Detected`]'s for the formats detection finds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Events = 0,
    ClaudeCode = 1,
    Codex = 2,
    Pi = 3,
    Copilot = 4,
    Kimi = 5,
    Openclaw = 6,
    Mcode = 7,
    Otlp = 8,
    OtelSpans = 9,
    Inspect = 10,
}

impl Format {
    /// The format of `code`, `None` for a code no format has.
    pub fn from_code(code: u8) -> Option<Format> {
        match code {
            0 => Some(Format::Events),
            1 => Some(Format::ClaudeCode),
            2 => Some(Format::Codex),
            3 => Some(Format::Pi),
            4 => Some(Format::Copilot),
            5 => Some(Format::Kimi),
            6 => Some(Format::Openclaw),
            7 => Some(Format::Mcode),
            8 => Some(Format::Otlp),
            9 => Some(Format::OtelSpans),
            10 => Some(Format::Inspect),
            _ => None,
        }
    }
}

/// The reader of a format (its registry row's native reader).
pub fn reader(format: Format) -> &'static dyn Reader {
    match format {
        Format::ClaudeCode => &ClaudeCode,
        Format::Events => &Events,
        Format::Codex => &Codex,
        Format::Pi => &Pi,
        Format::Copilot => &Copilot,
        Format::Kimi => &Kimi,
        Format::Openclaw => &Openclaw,
        Format::Mcode => &Mcode,
        Format::Otlp => &Otlp,
        Format::OtelSpans => &OtelSpans,
        Format::Inspect => &Inspect,
    }
}

#[cfg(test)]
mod tests {
    use super::Format;

    #[test]
    fn each_format_has_its_code() {
        let formats: Vec<Option<Format>> = (0..=11).map(Format::from_code).collect();
        assert_eq!(
            formats,
            [
                Some(Format::Events),
                Some(Format::ClaudeCode),
                Some(Format::Codex),
                Some(Format::Pi),
                Some(Format::Copilot),
                Some(Format::Kimi),
                Some(Format::Openclaw),
                Some(Format::Mcode),
                Some(Format::Otlp),
                Some(Format::OtelSpans),
                Some(Format::Inspect),
                None
            ]
        );
        for format in formats.into_iter().flatten() {
            assert_eq!(Format::from_code(format as u8), Some(format));
        }
    }
}
