//! What every native reader gives and how it is called: the [`Reader`] trait the
//! formats implement (`_protocol.py`'s `TraceFormat`), the unit it reads, its lanes
//! and accounts, and why a read fails.

use crate::account::LineAccount;
use crate::summary::{Finished, LaneRecords, Settings, StreamOrderError, Summary};
use std::fmt;
use std::io;
use std::path::Path;

/// One unit of input as a reader takes it: its files in reading order, and per
/// file the session id its lines without one stand in with (a Claude Code
/// file's `fallback_session_id`, an `events` file's stem or default).
pub struct Unit<'a> {
    pub paths: &'a [&'a Path],
    pub session_ids: &'a [String],
}

impl<'a> Unit<'a> {
    /// The one file and session id of a format read a file at a time (`events`,
    /// `codex`); a unit of more or fewer files is refused (`InvalidInput`, naming `what`).
    pub fn one_file(&self, what: &str) -> Result<(&'a Path, &'a str), ReadError> {
        match (self.paths, self.session_ids) {
            ([path], [session_id]) => Ok((path, session_id)),
            _ => Err(ReadError::Io(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{what} unit is one file and its session id"),
            ))),
        }
    }
}

/// A format's native reader: one unit into lanes and accounts, on up to
/// `threads` threads (the output is the same for any number). Streams first and
/// reads again in batch mode when a call arrives for a wave already summarised
/// (`readers/dispatch.py` `read_unit`); input data never panics, a failure is a
/// [`ReadError`] or a problem in an account.
pub trait Reader: Sync {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        threads: usize,
    ) -> Result<UnitOut, ReadError>;
}

/// One lane read, with its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneOut {
    /// Index of the input the lane was first seen in.
    pub file: usize,
    pub session_id: String,
    pub lane_id: String,
    pub summary: Summary,
    /// The lane's observations, when the unit was read with `Settings::record`.
    pub records: Option<Box<LaneRecords>>,
}

impl LaneOut {
    /// The lane of `finished` (`LaneStream::finish_lane`), first seen in input `file`.
    pub fn new(file: usize, session_id: String, lane_id: String, finished: Finished) -> LaneOut {
        LaneOut {
            file,
            session_id,
            lane_id,
            summary: finished.summary,
            records: finished.records,
        }
    }

    /// A lane whose figures come later ([`LaneOut::finished`]).
    pub fn opened(file: usize, session_id: String, lane_id: String) -> LaneOut {
        LaneOut::new(file, session_id, lane_id, Finished::default())
    }

    /// The lane with the figures (and observations) of `finished`.
    pub fn finished(mut self, finished: Finished) -> LaneOut {
        self.summary = finished.summary;
        self.records = finished.records;
        self
    }

    /// The lane's observations when it was read with them and they are Python's to
    /// the letter: none of its call ids or tool names holds U+FFFD, which the readers
    /// also make of a lone surrogate (two ids Python tells apart could be one here).
    pub fn exact_records(&self) -> Option<&LaneRecords> {
        self.records.as_deref().filter(|records| !records.replaced)
    }
}

/// Everything a read unit gives: one account per input, the lanes in order of
/// first appearance, and whether it had to be read a second time in batch mode.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitOut {
    pub accounts: Vec<LineAccount>,
    pub lanes: Vec<LaneOut>,
    pub read_again_in_batch: bool,
}

/// Why a unit could not be read; input data never panics, it ends up here or in an account.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    /// A lane's turn total overflowed (`check_turn_total` of `summary.py`).
    TurnTotal,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TurnTotal => {
                f.write_str("measured_turn_duration_ms_total must be finite and >= 0")
            }
        }
    }
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

pub(super) enum Failure {
    Order,
    Read(ReadError),
}

impl From<StreamOrderError> for Failure {
    fn from(_: StreamOrderError) -> Self {
        Failure::Order
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Read(ReadError::Io(e))
    }
}

/// Streams first; when a call arrives for a wave already summarised, reads
/// again in batch mode (`readers/dispatch.py` `read_unit`).
pub(super) fn with_fallback<F>(settings: &Settings, mut read: F) -> Result<UnitOut, ReadError>
where
    F: FnMut(&Settings) -> Result<UnitOut, Failure>,
{
    match read(settings) {
        Ok(out) => return Ok(out),
        Err(Failure::Read(e)) => return Err(e),
        Err(Failure::Order) => {}
    }
    let batch = Settings {
        stream: false,
        ..settings.clone()
    };
    match read(&batch) {
        Ok(mut out) => {
            out.read_again_in_batch = true;
            Ok(out)
        }
        Err(Failure::Read(e)) => Err(e),
        Err(Failure::Order) => unreachable!("batch mode never emits a wave early"),
    }
}

#[cfg(test)]
pub(super) mod fixtures {
    use super::{Reader, Unit, UnitOut};
    use crate::json::{Raw, Scan};
    use crate::summary::Settings;
    use std::path::Path;

    /// The raw value of `text` (a JSON value), as a line scan hands it over: the
    /// value of key `v` in `{"v":text}`, the line leaked so the value may outlive it.
    pub fn raw(text: &str) -> Option<Raw<'static>> {
        let line: &'static str = Box::leak(format!(r#"{{"v":{text}}}"#).into_boxed_str());
        let mut found = None;
        Scan::line(line, |scan, _| {
            found = Some(scan.raw(1)?);
            Ok(())
        })
        .unwrap();
        found
    }

    /// `reader`'s read of `paths` with their session ids, on one thread.
    pub fn read_unit(reader: &dyn Reader, paths: &[&Path], session_ids: &[&str]) -> UnitOut {
        let session_ids: Vec<String> = session_ids.iter().map(|s| s.to_string()).collect();
        let unit = Unit {
            paths,
            session_ids: &session_ids,
        };
        reader.read(&unit, &settings(), 1).unwrap()
    }

    /// `reader`'s read of a one-file unit holding `lines` (joined by `\n`), written to a
    /// temporary file called after `name` and the process (removed after the read).
    pub fn read_lines(
        reader: &dyn Reader,
        name: &str,
        lines: &[&str],
        session_id: &str,
    ) -> UnitOut {
        let path =
            std::env::temp_dir().join(format!("wm-native-{}-{name}.jsonl", std::process::id()));
        std::fs::write(&path, lines.join("\n")).unwrap();
        let out = read_unit(reader, &[&path], &[session_id]);
        std::fs::remove_file(&path).unwrap();
        out
    }

    /// The settings the readers' tests read with.
    pub fn settings() -> Settings {
        Settings {
            max_tracked_calls: Some(2000),
            eval_names: vec!["eval".into()],
            stream: true,
            batchable_names: vec!["read".into(), "grep".into()],
            idle_gap_ms: 300000.0,
            record: false,
        }
    }

    /// A Claude Code line with one tool call (`a`, `Read`).
    pub const USE: &str = r#"{"type":"assistant","uuid":"u1","sessionId":"s","timestamp":"2025-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":"a","name":"Read"}]}}"#;
}
