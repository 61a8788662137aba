//! The native readers, one module per format as in `wavemetrics/readers/`
//! (`docs/formats.md`): `claude_code` and `events`, line for line the rules of
//! `claude_code.py` and `events.py`, each behind the one [`Reader`] trait
//! (`protocol`, as `_protocol.py`); `lines` holds what both read lines with
//! (`_lines.py`), and `folded` the read that detects and reads a folder's
//! files in one pass. Files are opened by `crate::io`.
//!
//! The modules below use one another only downwards (`protocol` and `lines` at
//! the bottom, the formats on them, `folded` on the formats), and none names this
//! one, which re-exports them and maps a detected format to its reader
//! (`tests/test_native_modules.py` fails on a cycle).

mod claude_code;
mod events;
mod folded;
mod lines;
mod protocol;

pub use claude_code::{ClaudeCode, SPLIT_BUDGET, SPLIT_READS};
pub use events::Events;
pub use folded::{read_folded, FoldFile, FoldOut, FOLDED_READS};
pub use protocol::{LaneOut, ReadError, Reader, Unit, UnitOut};

use crate::detect::Detected;

/// The reader of a detected format (its registry row's native reader).
pub fn reader(format: Detected) -> &'static dyn Reader {
    match format {
        Detected::ClaudeCode => &ClaudeCode,
        Detected::Events => &Events,
    }
}
