//! The native `summarize --format json`: the files a folder walk found,
//! detected and read in one folded pass on threads ([`readers::read_folded`]), then
//! the read outcome assembled as `wavemetrics/run/pipeline.py` assembles it (units in
//! order of first appearance, one report per input in walk order, the lanes of each
//! unit in reading order), the lanes merged as `summary.merge_summaries` merges them
//! (every float sum in lane order, so the same bits), and the whole document written
//! as `report.render_json` writes it (`json.dumps(doc, indent=2)`, byte for byte:
//! [`crate::pyjson`]).
//!
//! It covers the common run only. Anything the Python pipeline would report in
//! another way is a [`Decline`]: the caller (`wavemetrics/run/fastpath.py`) then runs the
//! Python command, which gives the reference output. The walk, the sub-agent notes
//! and the cache stay in Python.

use crate::account::LineAccount;
use crate::detect::{Detected, Sniffers};
use crate::pyjson::{write_ascii_string, write_float, write_int, write_unicode_string};
use crate::readers::{self, FoldFile, FoldOut, Format, UnitOut};
use crate::summary::{histogram_text, Figure, Settings, Summary, WaveCall, WaveShape};
use crate::time::utc_iso_ms;
use crate::window::{partition_records, placement, replay, window_records, Window};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read as _, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// One file of the run, in walk order (the order of the document's `inputs`).
pub struct CommandFile<'a> {
    /// The path as the walk wrote it (the document's `path`).
    pub path: &'a str,
    /// `fallback_session_id(path)`: the session id of its lines without one.
    pub claude_fallback: &'a str,
    /// `file_stem(path)`: its default session id as an `events` file.
    pub events_default: &'a str,
    /// Its Claude Code project folder, as an index (`project_folder(path)`, numbered in
    /// order of first appearance): the files of one folder are one folded group.
    pub group: usize,
}

/// Why a run is left to the Python command (its output is then the reference one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decline {
    /// This input (by walk index) is in no unit read: the folded read found no format for
    /// it (empty, unreadable, a format it does not detect, no trace) and the registry's
    /// plan (`plan_others`) did not place it in a unit of a format the extension reads.
    NotNative(usize),
    /// A unit could not be read natively (I/O, a turn total that overflows).
    ReadFailed,
    /// A unit was read a second time in batch mode (its reports carry a note added
    /// after the sorted ones).
    ReadAgain,
    /// This input's every record was a problem: an error (`_no_usable_record`).
    NoUsableRecord(usize),
    /// A count of the merged total does not fit in 64 bits.
    Overflow,
    /// Two inputs may hold the same content ([`may_repeat`]): the Python command
    /// hashes them and reads a copy once (`readers.sources.identical_inputs`).
    MayRepeat,
}

impl Decline {
    /// A short reason, for the caller's tests and `WAVEMETRICS_FAST_PATH_DEBUG`.
    pub fn reason(&self) -> &'static str {
        match self {
            Decline::NotNative(_) => "an input is not read natively",
            Decline::ReadFailed => "a unit could not be read natively",
            Decline::ReadAgain => "a unit was read again in batch mode",
            Decline::NoUsableRecord(_) => "an input has no usable record",
            Decline::Overflow => "a total count overflows",
            Decline::MayRepeat => "inputs may repeat each other's content",
        }
    }
}

/// What the notes on stderr need of an input (`wavemetrics/views/notes.py`).
#[derive(Debug, Clone, PartialEq)]
pub struct InputFact {
    pub format: String,
    pub lines_read: u64,
    pub lines_used: u64,
    pub lines_ignored: u64,
    /// Unusable lines by reason, sorted by reason.
    pub problems: Vec<(String, u64)>,
}

/// What the notes need of a lane: the input it was read from (walk index) and its ids.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneFact {
    pub file: usize,
    pub session_id: String,
    pub lane_id: String,
}

/// The run's output: the JSON document (with its final newline) and the facts the
/// notes are worked out from.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub json: Vec<u8>,
    pub inputs: Vec<InputFact>,
    pub lanes: Vec<LaneFact>,
    /// The `--by tool` figures of the document's lanes, when the run asked for them.
    pub tools: Option<ToolTable>,
    /// The `--by day|week|month` figures of the document's lanes, when asked for.
    pub periods: Option<PeriodTable>,
    /// The waves of the document's lanes (`waves`), when asked for.
    pub waves: Option<WaveTable>,
}

/// What a run's rows are besides its document's lanes (`--by`): nothing more (the
/// lanes, or groups of whole lanes the CLI merges), each tool's calls
/// ([`tool_table`]), or periods, whose labels `Period` gives ([`period_table`]).
pub enum By<'f> {
    Lanes,
    /// `--by session|lane` with `--format json`: the document is the `--by` document
    /// itself, its groups merged here ([`render_json`] with [`Groups`]).
    Groups(Groups),
    /// `--by project` with `--format json`: as `Groups`, each file's project asked of
    /// the [`FileProjects`] ([`file_projects`]).
    Project(FileProjects<'f>),
    Tool,
    Period(LabelTimes<'f>),
    /// Not a `--by`: the `waves` command, which lists every wave ([`wave_table`]).
    Waves,
}

/// The groups of a `--by session|lane|project` document (`groups._lane_key`): a lane's
/// session id, its session and lane ids joined by `/`, or its file's project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Groups {
    Session,
    Lane,
    /// Each file's project by walk index ([`file_projects`]).
    Project(Vec<String>),
}

impl Groups {
    /// Its `--by` name, the document's `"by"`.
    pub fn name(&self) -> &'static str {
        match self {
            Groups::Session => "session",
            Groups::Lane => "lane",
            Groups::Project(_) => "project",
        }
    }

    /// The group of a lane of the input with walk index `file`.
    fn key(&self, file: usize, lane: &readers::LaneOut) -> String {
        match self {
            Groups::Session => lane.session_id.to_string(),
            Groups::Lane => format!("{}/{}", lane.session_id, lane.lane_id),
            Groups::Project(projects) => projects.get(file).cloned().unwrap_or_default(),
        }
    }
}

/// The projects of files (`groups.project_of`: a format's own rule, a working
/// directory the file records or the folder of its unit), asked at once: given each
/// file's `(path, format)`, one project each, or `None` (the run is then declined).
pub type FileProjects<'f> = &'f mut dyn FnMut(&[(&str, &str)]) -> Option<Vec<String>>;

/// Each input's project for `--by project`, by walk index (empty for an input that
/// holds no lane), asked of `projects` at once for the inputs holding lanes, in walk
/// order, with each one's format. `ReadFailed` when it gives none, or not one each.
fn file_projects(
    paths: &[&str],
    outcome: &Outcome,
    projects: FileProjects<'_>,
) -> Result<Vec<String>, Decline> {
    let mut holding: Vec<usize> = outcome.lanes.iter().map(|(file, _)| *file).collect();
    holding.sort_unstable();
    holding.dedup();
    let asked: Vec<(&str, &str)> = outcome
        .inputs
        .iter()
        .filter(|read| holding.binary_search(&read.file).is_ok())
        .map(|read| {
            (
                paths.get(read.file).copied().unwrap_or_default(),
                read.format,
            )
        })
        .collect();
    let answers = projects(&asked).ok_or(Decline::ReadFailed)?;
    if answers.len() != holding.len() || asked.len() != holding.len() {
        return Err(Decline::ReadFailed);
    }
    let mut by_file = vec![String::new(); paths.len()];
    for (file, project) in holding.into_iter().zip(answers) {
        if let Some(slot) = by_file.get_mut(file) {
            *slot = project;
        }
    }
    Ok(by_file)
}

/// One tool's `--by tool` figures (`groups._by_tool`): its paired calls, those in
/// `non_eval` waves of 2 calls or more, their durations summed (ms, in lane, wave and
/// call order, as Python adds them), those in eval-only or mixed waves.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCount {
    pub tool_name: String,
    pub calls: u64,
    pub multi: u64,
    pub duration_ms: f64,
    pub eval_or_mixed: u64,
}

/// The `--by tool` figures of a run's lanes: each tool's (in order of first appearance,
/// lane by lane), and for each lane (in lane order) the tools of its paired calls, as
/// indexes into `counts` in order of first appearance (`groups.group_inputs`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolTable {
    pub counts: Vec<ToolCount>,
    pub lanes: Vec<Vec<usize>>,
}

/// The [`ToolTable`] of `lanes` (each read with its records, whose waves' calls it
/// counts); `ReadFailed` for a lane without them, or whose names hold U+FFFD (the
/// readers also make it of a lone surrogate: two names Python tells apart could be
/// one here).
pub fn tool_table(lanes: &[(usize, &readers::LaneOut)]) -> Result<ToolTable, Decline> {
    let mut table = ToolTable {
        counts: Vec::new(),
        lanes: Vec::with_capacity(lanes.len()),
    };
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (_, lane) in lanes {
        let records = lane.exact_records().ok_or(Decline::ReadFailed)?;
        let mut mine: Vec<usize> = Vec::new();
        for call in &records.wave_calls {
            let at = *index.entry(&call.tool_name).or_insert_with(|| {
                table.counts.push(ToolCount {
                    tool_name: call.tool_name.to_string(),
                    calls: 0,
                    multi: 0,
                    duration_ms: 0.0,
                    eval_or_mixed: 0,
                });
                table.counts.len() - 1
            });
            let count = &mut table.counts[at];
            count.calls += 1;
            count.multi += u64::from(call.multi);
            count.duration_ms += call.duration_ms;
            count.eval_or_mixed += u64::from(call.eval_or_mixed);
            if !mine.contains(&at) {
                mine.push(at);
            }
        }
        table.lanes.push(mine);
    }
    Ok(table)
}

/// A lane's waves as `waves` lists them: the lane's session and lane id, and in
/// order each wave's shape and its calls (in wave order).
#[derive(Debug, Clone, PartialEq)]
pub struct LaneWaves {
    pub session_id: String,
    pub lane_id: String,
    pub waves: Vec<(WaveShape, Vec<WaveCall>)>,
}

/// The waves of a run's lanes, in lane order ([`wave_table`]).
pub type WaveTable = Vec<LaneWaves>;

/// The [`WaveTable`] of `lanes` (each read with its records, whose waves it lists:
/// `report._wave_rows`); `ReadFailed` for a lane without exact records (see
/// [`tool_table`]) or whose waves do not account for its waves' calls.
pub fn wave_table(lanes: &[(usize, &readers::LaneOut)]) -> Result<WaveTable, Decline> {
    let mut table = Vec::with_capacity(lanes.len());
    for (_, lane) in lanes {
        let records = lane.exact_records().ok_or(Decline::ReadFailed)?;
        let mut rest = &records.wave_calls[..];
        let mut waves = Vec::with_capacity(records.waves.len());
        for shape in &records.waves {
            let (calls, after) = rest
                .split_at_checked(shape.size)
                .ok_or(Decline::ReadFailed)?;
            waves.push((shape.clone(), calls.to_vec()));
            rest = after;
        }
        if !rest.is_empty() {
            return Err(Decline::ReadFailed);
        }
        table.push(LaneWaves {
            session_id: lane.session_id.to_string(),
            lane_id: lane.lane_id.to_string(),
            waves,
        });
    }
    Ok(table)
}

/// The rows of a `waves --format json` document, as `json.dumps(rows, indent=2)`
/// writes them at the depth of the document's `waves`, joined by `,\n`, without the
/// brackets (`fastwaves.with_text` splices them in): each wave of `table` (lanes in
/// order, as `report.wave_row` gives them) under its lane's session and lane id. A
/// time or saving that is not finite is `null`, and a start Python cannot date is
/// written `"<ms> ms"` (`report._iso`).
pub fn wave_rows_json(table: &WaveTable) -> Vec<u8> {
    let mut out = Vec::new();
    for lane in table {
        for (index, (shape, calls)) in lane.waves.iter().enumerate() {
            if !out.is_empty() {
                out.extend_from_slice(b",\n");
            }
            let key = |out: &mut Vec<u8>, name: &str| {
                out.extend_from_slice(b"      \"");
                out.extend_from_slice(name.as_bytes());
                out.extend_from_slice(b"\": ");
            };
            out.extend_from_slice(b"    {\n");
            key(&mut out, "session_id");
            write_ascii_string(&mut out, &lane.session_id);
            out.extend_from_slice(b",\n");
            key(&mut out, "lane_id");
            write_ascii_string(&mut out, &lane.lane_id);
            out.extend_from_slice(b",\n");
            key(&mut out, "wave");
            write_int(&mut out, index as i128);
            out.extend_from_slice(b",\n");
            key(&mut out, "start_ms");
            write_float(&mut out, shape.start_ms);
            out.extend_from_slice(b",\n");
            key(&mut out, "start");
            write_ascii_string(&mut out, &start_text(shape.start_ms));
            out.extend_from_slice(b",\n");
            key(&mut out, "span_ms");
            write_float(&mut out, shape.span_ms);
            out.extend_from_slice(b",\n");
            key(&mut out, "size");
            write_int(&mut out, shape.size as i128);
            out.extend_from_slice(b",\n");
            key(&mut out, "max_concurrency");
            write_int(&mut out, shape.max_concurrency as i128);
            out.extend_from_slice(b",\n");
            key(&mut out, "bucket");
            write_ascii_string(&mut out, shape.bucket.name());
            out.extend_from_slice(b",\n");
            key(&mut out, "tool_names");
            out.extend_from_slice(b"[\n");
            for (i, call) in calls.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b",\n");
                }
                out.extend_from_slice(b"        ");
                write_ascii_string(&mut out, &call.tool_name);
            }
            out.extend_from_slice(b"\n      ],\n");
            key(&mut out, "modeled_wallclock_saved_ms");
            write_float(&mut out, shape.saved_ms);
            out.extend_from_slice(b"\n    }");
        }
    }
    out
}

/// `repr(value)` of a float, the infinities and NaN as Python names them (`inf`,
/// `-inf`, `nan`): what `str()` and the `csv` module write of it.
fn write_repr(out: &mut Vec<u8>, value: f64) {
    match value {
        v if v.is_nan() => out.extend_from_slice(b"nan"),
        f64::INFINITY => out.extend_from_slice(b"inf"),
        f64::NEG_INFINITY => out.extend_from_slice(b"-inf"),
        v => write_float(out, v),
    }
}

/// A wave's `start` (`report._iso`): its UTC date to the millisecond, or `f"{ms}
/// ms"` where Python cannot date it (ASCII either way).
fn start_text(ms: f64) -> String {
    utc_iso_ms(ms).unwrap_or_else(|| {
        let mut text = Vec::new();
        write_repr(&mut text, ms);
        text.extend_from_slice(b" ms");
        String::from_utf8_lossy(&text).into_owned()
    })
}

/// The columns of a `waves --format csv` row (`csvout.WAVE_CALL_COLUMNS`).
const WAVE_CALL_COLUMNS: [&str; 16] = [
    "session_id",
    "lane_id",
    "wave",
    "wave_start_ms",
    "wave_start",
    "span_ms",
    "size",
    "max_concurrency",
    "bucket",
    "modeled_wallclock_saved_ms",
    "call_index",
    "call_id",
    "tool_name",
    "start_ms",
    "end_ms",
    "duration_ms",
];

/// A text cell as Python's `csv.writer` writes it (the `excel` dialect, minimal
/// quoting): quoted when it holds `,`, `"`, CR or LF, each `"` doubled; as it is
/// otherwise (NUL and other control characters included, as `csvout.rows_to_csv`
/// writes them on every Python version).
fn write_csv_text(out: &mut Vec<u8>, text: &str) {
    if !text.contains([',', '"', '\r', '\n']) {
        out.extend_from_slice(text.as_bytes());
        return;
    }
    out.push(b'"');
    out.extend_from_slice(text.replace('"', "\"\"").as_bytes());
    out.push(b'"');
}

/// A wave figure's cell (`json_safe`, then `csvout._cell`): empty when not finite.
fn write_csv_figure(out: &mut Vec<u8>, value: f64) {
    if value.is_finite() {
        write_float(out, value);
    }
}

/// The whole `waves --format csv` text, as `csvout.rows_to_csv(WAVE_CALL_COLUMNS,
/// wave_call_rows(...))` writes it for stdout that is no terminal (no escaping): the
/// header, then one row per call of each wave of `table` (lanes, waves and calls in
/// order), each line ended by CRLF. A call's own times are written as Python's `str`
/// writes them (a duration that overflowed is `inf`); the wave's figures are empty
/// where not finite.
pub fn wave_rows_csv(table: &WaveTable) -> Vec<u8> {
    let mut out = WAVE_CALL_COLUMNS.join(",").into_bytes();
    out.extend_from_slice(b"\r\n");
    for lane in table {
        for (index, (shape, calls)) in lane.waves.iter().enumerate() {
            let mut wave = Vec::new();
            write_csv_text(&mut wave, &lane.session_id);
            wave.push(b',');
            write_csv_text(&mut wave, &lane.lane_id);
            wave.push(b',');
            write_int(&mut wave, index as i128);
            wave.push(b',');
            write_csv_figure(&mut wave, shape.start_ms);
            wave.push(b',');
            write_csv_text(&mut wave, &start_text(shape.start_ms));
            wave.push(b',');
            write_csv_figure(&mut wave, shape.span_ms);
            wave.push(b',');
            write_int(&mut wave, shape.size as i128);
            wave.push(b',');
            write_int(&mut wave, shape.max_concurrency as i128);
            wave.push(b',');
            write_csv_text(&mut wave, shape.bucket.name());
            wave.push(b',');
            write_csv_figure(&mut wave, shape.saved_ms);
            for (call_index, call) in calls.iter().enumerate() {
                out.extend_from_slice(&wave);
                out.push(b',');
                write_int(&mut out, call_index as i128);
                out.push(b',');
                write_csv_text(&mut out, &call.call_id);
                out.push(b',');
                write_csv_text(&mut out, &call.tool_name);
                out.push(b',');
                write_repr(&mut out, call.start_ms);
                out.push(b',');
                write_repr(&mut out, call.end_ms);
                out.push(b',');
                write_repr(&mut out, call.end_ms - call.start_ms);
                out.extend_from_slice(b"\r\n");
            }
        }
    }
    out
}

/// The `--by day|week|month` figures of a run's lanes (`groups._by_period`): the
/// periods' labels, sorted as Python sorts them (by code point), each with its figures
/// (the summaries of its parts of the lanes, merged in lane order) as the JSON object
/// the document writes a summary as; and for each lane (in lane order) the periods of
/// its parts, as indexes into `labels` in order of first appearance
/// (`groups.group_inputs`).
#[derive(Debug, Clone, PartialEq)]
pub struct PeriodTable {
    pub labels: Vec<String>,
    pub figures: Vec<Vec<u8>>,
    pub lanes: Vec<Vec<usize>>,
}

/// Labels the times a period table needs (ascending, distinct): one label per time
/// (`timewindow.label_of`, in the run's zone), or `None` (the run is then declined).
pub type LabelTimes<'f> = &'f mut dyn FnMut(&[f64]) -> Option<Vec<String>>;

/// The [`PeriodTable`] of `lanes` (each read with its records): each lane cut by the
/// period of each observation's place (`slices.partition_lane`, [`partition_records`])
/// and each part summarised again with `settings` ([`replay`]), as the CLI's
/// `_by_period` does. The periods of the times that place something are asked of
/// `label_times` at once. `ReadFailed` for a lane without exact records or when
/// `label_times` gives none; `Overflow` for a period whose merged count passes 64 bits.
pub fn period_table(
    lanes: &[(usize, &readers::LaneOut)],
    settings: &Settings,
    label_times: LabelTimes<'_>,
) -> Result<PeriodTable, Decline> {
    let mut placed = Vec::with_capacity(lanes.len());
    let mut times: Vec<f64> = Vec::new();
    for (_, lane) in lanes {
        let records = lane.exact_records().ok_or(Decline::ReadFailed)?;
        let place = placement(records);
        times.extend(&place.at_ms);
        times.extend(place.home_ms);
        times.extend(records.turns.iter().map(|turn| turn.0));
        placed.push((records, place));
    }
    // valid times are finite: sorted, then one of each value (-0.0 and 0.0 are one)
    times.sort_by(f64::total_cmp);
    times.dedup();
    let texts = label_times(&times)
        .filter(|texts| texts.len() == times.len())
        .ok_or(Decline::ReadFailed)?;
    let mut sorted: Vec<&str> = texts.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let index: HashMap<&str, usize> = sorted.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    let label_of: Vec<usize> = texts.iter().map(|t| index[t.as_str()]).collect();
    let key_of = |at: f64| {
        times
            .binary_search_by(|t| t.partial_cmp(&at).unwrap_or(std::cmp::Ordering::Less))
            .ok()
            .map(|i| label_of[i])
    };
    let mut parts_of: Vec<Vec<Summary>> = vec![Vec::new(); sorted.len()];
    let mut lane_keys: Vec<Vec<usize>> = Vec::with_capacity(lanes.len());
    for (records, place) in &placed {
        let mut keys = Vec::new();
        for (key, part) in partition_records(records, place, key_of) {
            let finished = replay(&part, settings).map_err(|_| Decline::ReadFailed)?;
            parts_of[key].push(finished.summary);
            keys.push(key);
        }
        lane_keys.push(keys);
    }
    // a label only turns had (a turn alone makes no part) is no period
    let mut kept = vec![usize::MAX; sorted.len()];
    let mut table = PeriodTable {
        labels: Vec::new(),
        figures: Vec::new(),
        lanes: Vec::with_capacity(lanes.len()),
    };
    for (key, parts) in parts_of.iter().enumerate() {
        if parts.is_empty() {
            continue;
        }
        kept[key] = table.labels.len();
        table.labels.push(sorted[key].to_string());
        let merged = merge(parts).ok_or(Decline::Overflow)?;
        let mut w = Writer::new();
        w.open(b'{');
        figures(&mut w, &merged);
        w.close(b'}');
        table.figures.push(w.out);
    }
    table.lanes = lane_keys
        .into_iter()
        .map(|keys| keys.into_iter().map(|key| kept[key]).collect())
        .collect();
    Ok(table)
}

/// The files of each group (by group index), each group in path order: what
/// `plan_units` makes of a Claude Code folder (`tuple(sorted(paths))`; Python
/// compares code points, which is the byte order of UTF-8).
pub fn groups_of(files: &[CommandFile]) -> Vec<Vec<usize>> {
    let count = files.iter().map(|f| f.group + 1).max().unwrap_or(0);
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (index, file) in files.iter().enumerate() {
        groups[file.group].push(index);
    }
    for group in &mut groups {
        group.sort_by(|&a, &b| files[a].path.as_bytes().cmp(files[b].path.as_bytes()));
    }
    groups.retain(|g| !g.is_empty());
    groups
}

/// Bytes of a file's head compared before its content is hashed (`_files.HEAD_BYTES`).
pub const HEAD_BYTES: usize = 4096;

/// `_files.size_and_head(path)`: the size of the file's content and its first
/// [`HEAD_BYTES`] bytes, read in one open; for a gzip file (its head starts with
/// `1f 8b`) the ISIZE trailer (its last 4 bytes, little-endian) and no head; `-1` and
/// no head when it cannot be read.
pub fn size_and_head(path: &Path) -> (i64, Option<Vec<u8>>) {
    fn read(path: &Path) -> std::io::Result<(i64, Option<Vec<u8>>)> {
        let mut file = File::open(path)?;
        let mut head = Vec::with_capacity(HEAD_BYTES);
        // up to HEAD_BYTES bytes or the end, as Python's buffered read(n) gives them
        // (read_to_end retries an interrupted read)
        (&mut file).take(HEAD_BYTES as u64).read_to_end(&mut head)?;
        if !head.starts_with(b"\x1f\x8b") {
            return Ok((file.metadata()?.len() as i64, Some(head)));
        }
        file.seek(SeekFrom::End(-4))?;
        let mut trailer = [0u8; 4];
        file.read_exact(&mut trailer)?;
        Ok((i64::from(u32::from_le_bytes(trailer)), None))
    }
    read(path).unwrap_or((-1, None))
}

/// The files (walk indices, in walk order) whose name stem (`events_default`) another
/// file shares: the only ones [`may_repeat`] opens.
pub fn shared_stems(files: &[CommandFile]) -> Vec<usize> {
    // standard input is never compared (`copy_candidates` passes it over)
    let compared = |file: &&CommandFile| file.path != crate::io::STDIN;
    let mut count: HashMap<&str, usize> = HashMap::new();
    for file in files.iter().filter(compared) {
        *count.entry(file.events_default).or_default() += 1;
    }
    (0..files.len())
        .filter(|&i| compared(&&files[i]) && count[files[i].events_default] > 1)
        .collect()
}

/// Whether two of the files may hold the same content, so that the Python command
/// must look (it hashes them whole and reads a copy once): `_files.copy_candidates(paths)
/// != []`, or stricter. Files that share a name stem (`events_default`) and the size of
/// their content, unless the plain ones' first [`HEAD_BYTES`] bytes all differ; a group
/// with a gzip file or one that cannot be read always may. Stricter in one case only:
/// a path that is no longer a file (vanished since the walk) is skipped by Python's
/// `os.path.isfile` but counted here as a file that cannot be read (size -1, no head),
/// so two such paths of one stem decline the run (the Python command then reports
/// them). Only files that share a stem are opened (their heads read on `jobs` threads).
pub fn may_repeat(files: &[CommandFile], jobs: usize) -> bool {
    let shared = shared_stems(files);
    let heads = crate::parallel::map_indexed(shared.len(), jobs, |k| {
        size_and_head(Path::new(files[shared[k]].path))
    });
    let mut by_key: HashMap<(&str, i64), Vec<Option<Vec<u8>>>> = HashMap::new();
    for (&index, (size, head)) in shared.iter().zip(heads) {
        by_key
            .entry((files[index].events_default, size))
            .or_default()
            .push(head);
    }
    by_key.into_values().any(|group| {
        group.len() > 1 && {
            let mut plain: Vec<&[u8]> = Vec::with_capacity(group.len());
            for head in &group {
                match head {
                    None => return true,
                    Some(head) => plain.push(head),
                }
            }
            plain.sort_unstable();
            plain.windows(2).any(|pair| pair[0] == pair[1])
        }
    })
}

/// What [`read`] read: the files' groups ([`groups_of`]) and each group's folded read.
pub struct ReadDone {
    pub groups: Vec<Vec<usize>>,
    pub outs: Vec<FoldOut>,
}

/// A read unit of a format the folded read does not detect (`copilot`, `kimi`, ...), as
/// the registry plans it for the files the folded read found no format for: its
/// format, its files (walk indexes, in reading order) and the session id each file's
/// lines without one stand in with.
#[derive(Debug, Clone, PartialEq)]
pub struct OtherUnit {
    pub format: Format,
    pub files: Vec<usize>,
    pub session_ids: Vec<String>,
}

/// A unit the registry plans for files the folded read found no format for
/// (`plan_others`): one the extension reads, or one already read by the Python readers
/// (a format the extension has no reader for), handed over as its reader's result.
#[derive(Debug, Clone, PartialEq)]
pub enum Other {
    Unit(OtherUnit),
    /// A unit read elsewhere: its format's registry name (the document's `format`), its
    /// files (walk indexes, in the unit's order: `out`'s accounts and lane files follow
    /// it) and the read. A lane that comes with its observations (its `records`: the
    /// run needs each lane's calls) is summarised here ([`replay_lanes`]); one without
    /// them keeps its figures.
    Read {
        format: String,
        files: Vec<usize>,
        out: UnitOut,
    },
    /// A file found by a folder walk that the registry finds no trace in: skipped, as
    /// the CLI skips it (`pipeline._read_inputs`: no input of the document, a member
    /// of its `skipped_files` with this reason).
    Skip {
        file: usize,
        reason: String,
    },
}

/// A unit of [`Other`] once read: its format's name, its files, and the read (`None`:
/// it failed).
pub struct OtherRead {
    format: Cow<'static, str>,
    files: Vec<usize>,
    out: Option<UnitOut>,
}

/// The files (walk indexes, ascending) the folded reads of `groups` found no format
/// for: the registry decides what they are ([`OtherUnit`]).
pub fn undetected(groups: &[Vec<usize>], outs: &[FoldOut]) -> Vec<usize> {
    let mut rest: Vec<usize> = groups
        .iter()
        .zip(outs)
        .flat_map(|(members, out)| {
            members
                .iter()
                .enumerate()
                .filter(|&(k, _)| out.found.get(k).copied().flatten().is_none())
                .map(|(_, &file)| file)
        })
        .collect();
    rest.sort_unstable();
    rest
}

/// Read the `units` of `files` on `jobs` threads, each with its format's reader, and
/// take the ones read elsewhere as they are. (A progress bar has counted their files
/// already: the folded read looked at them first.)
fn read_others(
    files: &[CommandFile],
    others: Vec<Other>,
    settings: &Settings,
    jobs: usize,
) -> (Vec<OtherRead>, Vec<(usize, String)>) {
    let mut units = Vec::new();
    let mut done = Vec::new();
    let mut skipped = Vec::new();
    for other in others {
        match other {
            Other::Skip { file, reason } => skipped.push((file, reason)),
            Other::Unit(unit) => units.push(unit),
            Other::Read {
                format,
                files,
                mut out,
            } => {
                let replayed = replay_lanes(&mut out, settings);
                done.push(OtherRead {
                    format: Cow::Owned(format),
                    files,
                    out: replayed.map(|()| out),
                });
            }
        }
    }
    let outs = crate::parallel::map_indexed(units.len(), jobs, |i| {
        let unit = &units[i];
        let paths: Vec<&Path> = unit
            .files
            .iter()
            .map(|&f| Path::new(files[f].path))
            .collect();
        let read = readers::Unit {
            paths: &paths,
            session_ids: &unit.session_ids,
        };
        // one thread a unit: only a Claude Code unit splits, and it is never one of these
        readers::reader(unit.format).read(&read, settings, 1).ok()
    });
    let read = units.into_iter().zip(outs).map(|(unit, out)| OtherRead {
        format: Cow::Borrowed(format_name(unit.format)),
        files: unit.files,
        out,
    });
    // the order of `others` does not matter: a unit is placed at its first file
    (read.chain(done).collect(), skipped)
}

/// Each lane of `out` that came with its observations summarised as a batch read of
/// them is ([`replay`], with `settings`: `analyse` of a batch lane), its records then
/// those of that read (its waves' calls among them); `None` when one cannot be (an
/// order the stream refuses: the unit is then not read).
fn replay_lanes(out: &mut UnitOut, settings: &Settings) -> Option<()> {
    for lane in &mut out.lanes {
        if let Some(records) = lane.records.take() {
            let finished = replay(&records, settings).ok()?;
            lane.summary = finished.summary;
            lane.records = finished.records;
        }
    }
    Some(())
}

/// How far a read has gone, for a progress bar drawn while it runs: the files read
/// and their bytes, as given by the caller (`sizes`, by file index in walk order; a
/// file past the list counts 0 bytes), counted as each group of files is read.
#[derive(Debug, Default)]
pub struct Progress {
    sizes: Vec<u64>,
    files: AtomicUsize,
    bytes: AtomicU64,
}

impl Progress {
    /// A read not yet started, of files of these `sizes`.
    pub fn new(sizes: Vec<u64>) -> Self {
        Progress {
            sizes,
            files: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
        }
    }

    /// `(files, bytes)` read so far.
    pub fn done(&self) -> (usize, u64) {
        (
            self.files.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }

    /// The files of one group (indices in walk order) read.
    fn add(&self, members: &[usize]) {
        let bytes = members
            .iter()
            .map(|&i| self.sizes.get(i).copied().unwrap_or(0))
            .fold(0u64, u64::saturating_add);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        self.files.fetch_add(members.len(), Ordering::Relaxed);
    }
}

/// Read the run's files (`files` in walk order) on `jobs` threads, after the look for
/// possible copies ([`may_repeat`]), counting each group read in `progress`; a
/// [`Decline`] when the Python command must run instead. [`assemble`] and [`render`]
/// make the document of what it read.
pub fn read(
    files: &[CommandFile],
    sniffers: &Sniffers,
    settings: &Settings,
    jobs: usize,
    progress: Option<&Progress>,
) -> Result<ReadDone, Decline> {
    if may_repeat(files, jobs) {
        return Err(Decline::MayRepeat);
    }
    let groups = groups_of(files);
    // the threads left over when there are fewer groups than jobs go to splitting
    let per_group = (jobs / groups.len().max(1)).max(1);
    // the largest groups first: on several threads each takes the next group when it
    // is done, so a large group taken last would run on alone (one stat a file; on
    // one thread the order changes nothing)
    let order = largest_first(&group_bytes(files, &groups));
    let taken = crate::parallel::map_indexed(order.len(), jobs, |k| {
        let g = order[k];
        let members: Vec<FoldFile> = groups[g]
            .iter()
            .map(|&i| FoldFile {
                path: Path::new(files[i].path),
                claude_fallback: files[i].claude_fallback,
                events_default: files[i].events_default,
            })
            .collect();
        let out = readers::read_folded(&members, sniffers, settings, per_group);
        if let Some(progress) = progress {
            progress.add(&groups[g]);
        }
        out
    });
    Ok(ReadDone {
        outs: in_group_order(&order, taken),
        groups,
    })
}

/// The bytes of each group's files (a file whose size cannot be read counts 0).
fn group_bytes(files: &[CommandFile], groups: &[Vec<usize>]) -> Vec<u64> {
    groups
        .iter()
        .map(|members| {
            members
                .iter()
                .map(|&i| std::fs::metadata(files[i].path).map_or(0, |m| m.len()))
                .fold(0u64, u64::saturating_add)
        })
        .collect()
}

/// The indexes of `sizes`, largest first, equal sizes in index order: the order in
/// which threads that each take the next item when done finish soonest (the
/// longest-processing-time rule).
fn largest_first(sizes: &[u64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]).then(a.cmp(&b)));
    order
}

/// `taken[k]`, the result of item `order[k]`, put back at index `order[k]`
/// (`order` is a permutation of `0..taken.len()`).
fn in_group_order<T>(order: &[usize], taken: Vec<T>) -> Vec<T> {
    let mut slots: Vec<Option<T>> = (0..taken.len()).map(|_| None).collect();
    for (&g, out) in order.iter().zip(taken) {
        slots[g] = Some(out);
    }
    slots.into_iter().flatten().collect()
}

/// Read the run's files (`files` in walk order; `skipped`: the sidecars the walk
/// passed over, `(path, reason)` in path order) on `jobs` threads, and render its
/// document (`options`: the JSON text of its `"options"` value, written as it is); a
/// [`Decline`] when the Python command must run instead.
pub fn summarize(
    files: &[CommandFile],
    skipped: &[(String, String)],
    options: &str,
    sniffers: &Sniffers,
    settings: &Settings,
    jobs: usize,
) -> Result<Document, Decline> {
    summarize_then(
        files,
        skipped,
        options,
        sniffers,
        settings,
        jobs,
        None,
        None,
        By::Lanes,
        |_| None,
        |_, _, _| (),
    )
    .map(|(document, ())| document)
}

/// [`summarize`], counting the files read in `progress`, with `meanwhile` called on
/// this thread with the facts of the read (its inputs and the lanes read, before
/// `window`) and what the window left out ([`WindowLoss`]) while the document is
/// rendered on other threads: the native command works out its notes and starts its
/// after-read check then (docs/performance-history.md, "Eleventh round"). `meanwhile` is not
/// called when the run is declined before the render; after it, only a panic of the
/// render's thread declines the run (`ReadFailed`), since [`facts`] has already
/// refused what the render would.
/// `window`: the run's `--since`/`--until`; the read then keeps each lane's
/// observations, and the document's lanes are those cut to it ([`windowed`]).
#[allow(clippy::too_many_arguments)] // the run's inputs and settings, each its own
pub fn summarize_then<R>(
    files: &[CommandFile],
    skipped: &[(String, String)],
    options: &str,
    sniffers: &Sniffers,
    settings: &Settings,
    jobs: usize,
    progress: Option<&Progress>,
    window: Option<&Window>,
    by: By<'_>,
    plan_others: impl FnOnce(&[usize]) -> Option<Vec<Other>>,
    meanwhile: impl FnOnce(&[InputFact], &[LaneFact], Option<WindowLoss>) -> R,
) -> Result<(Document, R), Decline> {
    // a window needs each lane's observations: the read keeps them
    let recording = Settings {
        record: true,
        ..settings.clone()
    };
    let read_settings =
        if window.is_some() || !matches!(by, By::Lanes | By::Groups(_) | By::Project(_)) {
            &recording
        } else {
            settings
        };
    let done = read(files, sniffers, read_settings, jobs, progress)?;
    // the files of other formats: the registry plans their units, read here too
    let rest = undetected(&done.groups, &done.outs);
    let (others, passed) = match rest.first() {
        None => (Vec::new(), Vec::new()),
        Some(&first) => {
            let units = plan_others(&rest).ok_or(Decline::NotNative(first))?;
            read_others(files, units, read_settings, jobs)
        }
    };
    let passed_over: Vec<usize> = passed.iter().map(|(file, _)| *file).collect();
    let whole = assemble(files.len(), &done.groups, &done.outs, &others, &passed_over)?;
    // the files passed over join the sidecars, in path order (`sorted(skipped)`)
    let skipped: Cow<[(String, String)]> = if passed.is_empty() {
        Cow::Borrowed(skipped)
    } else {
        let mut all = skipped.to_vec();
        all.extend(
            passed
                .into_iter()
                .map(|(file, reason)| (files[file].path.to_owned(), reason)),
        );
        all.sort_by(|a, b| a.0.cmp(&b.0));
        Cow::Owned(all)
    };
    // the notes are of the lanes read (the CLI's, before its window)
    let (inputs, lanes) = facts(&whole)?;
    let cut: Vec<(usize, readers::LaneOut)>;
    let (outcome, loss) = match window {
        None => (whole, None),
        Some(window) => {
            cut = windowed(&whole, window, settings)?;
            let lanes = cut.iter().map(|(file, lane)| (*file, lane)).collect();
            let loss = window_loss(&whole, &cut);
            (
                Outcome {
                    inputs: whole.inputs,
                    lanes,
                },
                loss,
            )
        }
    };
    // where the render would fail, it cannot any more: a merged count past 64 bits
    merge(outcome.lanes.iter().map(|(_, lane)| &lane.summary)).ok_or(Decline::Overflow)?;
    let paths: Vec<&str> = files.iter().map(|f| f.path).collect();
    let (groups, tools, periods, waves) = match by {
        By::Lanes => (None, None, None, None),
        By::Groups(groups) => (Some(groups), None, None, None),
        By::Project(projects) => {
            let projects = file_projects(&paths, &outcome, projects)?;
            (Some(Groups::Project(projects)), None, None, None)
        }
        By::Tool => (None, Some(tool_table(&outcome.lanes)?), None, None),
        By::Period(label_times) => (
            None,
            None,
            Some(period_table(&outcome.lanes, settings, label_times)?),
            None,
        ),
        By::Waves => (None, None, None, Some(wave_table(&outcome.lanes)?)),
    };
    let (json, answer) = std::thread::scope(|scope| {
        let rendering =
            scope.spawn(|| render_json(&paths, &outcome, &skipped, options, jobs, groups.as_ref()));
        let answer = meanwhile(&inputs, &lanes, loss);
        (rendering.join(), answer)
    });
    match json {
        Ok(Ok(json)) => Ok((
            Document {
                json,
                inputs,
                lanes,
                tools,
                periods,
                waves,
            },
            answer,
        )),
        Ok(Err(decline)) => Err(decline),
        Err(_) => Err(Decline::ReadFailed),
    }
}

/// What a window left out when it kept no wave (the CLI's note, `_window_note`): the
/// waves of the whole read, its paired calls and the lanes that have waves, all
/// outside the window. `None` when the window kept a wave or the read had none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowLoss {
    pub waves: u64,
    pub paired_calls: u64,
    pub lanes: u64,
}

/// Each lane of `whole` cut to `window` (`slices.window_lane`) and summarised again
/// with `settings` (`pipeline.analyse` of the cut lane), in lane order; a lane with
/// nothing in the window is left out. `ReadFailed` for a lane read without its
/// observations, or with a call id or tool name Rust text cannot hold (U+FFFD stands
/// for a lone surrogate there: its pairing may not be Python's).
fn windowed(
    whole: &Outcome,
    window: &Window,
    settings: &Settings,
) -> Result<Vec<(usize, readers::LaneOut)>, Decline> {
    let mut cut = Vec::new();
    for &(file, lane) in &whole.lanes {
        let records = lane.exact_records().ok_or(Decline::ReadFailed)?;
        let Some(part) = window_records(records, window) else {
            continue;
        };
        let finished = replay(&part, settings).map_err(|_| Decline::ReadFailed)?;
        // the replay's records: what `--by tool` counts of the part
        let out = readers::LaneOut::new(
            file,
            lane.session_id.clone(),
            lane.lane_id.clone(),
            finished,
        );
        cut.push((file, out));
    }
    Ok(cut)
}

/// [`WindowLoss`] of a read (`whole`) whose window kept the lanes `cut`.
fn window_loss(whole: &Outcome, cut: &[(usize, readers::LaneOut)]) -> Option<WindowLoss> {
    let waves = |s: &Summary| {
        s.non_eval_waves_total
            .saturating_add(s.eval_only_waves)
            .saturating_add(s.mixed_waves)
    };
    if cut.iter().any(|(_, lane)| waves(&lane.summary) > 0) {
        return None;
    }
    let mut loss = WindowLoss {
        waves: 0,
        paired_calls: 0,
        lanes: 0,
    };
    for (_, lane) in &whole.lanes {
        let s = &lane.summary;
        loss.waves = loss.waves.saturating_add(waves(s));
        loss.paired_calls = loss.paired_calls.saturating_add(s.paired_calls);
        loss.lanes += u64::from(waves(s) > 0);
    }
    (loss.waves > 0).then_some(loss)
}

/// The facts the notes are worked out from, per input and per lane (what [`render`]
/// returns beside the document), taken before the render; `Err(Overflow)` where
/// [`render`] would fail (a merged count past 64 bits), so that it then cannot.
pub fn facts(outcome: &Outcome) -> Result<(Vec<InputFact>, Vec<LaneFact>), Decline> {
    merge(outcome.lanes.iter().map(|(_, lane)| &lane.summary)).ok_or(Decline::Overflow)?;
    Ok((input_facts(outcome), lane_facts(outcome)))
}

fn input_facts(outcome: &Outcome) -> Vec<InputFact> {
    outcome
        .inputs
        .iter()
        .map(|read| InputFact {
            format: read.format.to_owned(),
            lines_read: read.account.lines_read,
            lines_used: read.account.lines_used,
            lines_ignored: read.account.lines_ignored(),
            problems: sorted(&read.account.all_problems())
                .into_iter()
                .map(|(problem, n)| (problem.to_owned(), n))
                .collect(),
        })
        .collect()
}

fn lane_facts(outcome: &Outcome) -> Vec<LaneFact> {
    outcome
        .lanes
        .iter()
        .map(|(file, lane)| LaneFact {
            file: *file,
            session_id: lane.session_id.clone(),
            lane_id: lane.lane_id.clone(),
        })
        .collect()
}

/// One input's place in the outcome: its walk index, its format and its line account.
struct Read<'a> {
    file: usize,
    format: &'a str,
    account: &'a LineAccount,
}

/// The read outcome: every input's account (walk order) and every lane (unit order),
/// each lane with the walk index of its input.
pub struct Outcome<'a> {
    inputs: Vec<Read<'a>>,
    lanes: Vec<(usize, &'a readers::LaneOut)>,
}

fn unit_out(out: &Option<UnitOut>) -> Result<&UnitOut, Decline> {
    match out {
        Some(unit) if unit.read_again_in_batch => Err(Decline::ReadAgain),
        Some(unit) => Ok(unit),
        None => Err(Decline::ReadFailed),
    }
}

/// Each input's read (by walk index) and each unit with its files' walk indexes, at the
/// walk index of its first file (units come in order of first appearance).
struct Placed<'a> {
    reads: Vec<Option<Read<'a>>>,
    units: Vec<Option<(&'a UnitOut, Vec<usize>)>>,
}

impl<'a> Placed<'a> {
    /// The unit `out` read from `files` (walk indexes, in the unit's file order, each
    /// with its account in that order) as `format`.
    fn place(
        &mut self,
        format: &'a str,
        out: &'a Option<UnitOut>,
        files: Vec<usize>,
    ) -> Result<(), Decline> {
        let unit = unit_out(out)?;
        for (j, &file) in files.iter().enumerate() {
            let account = unit.accounts.get(j).ok_or(Decline::ReadFailed)?;
            self.reads[file] = Some(Read {
                file,
                format,
                account,
            });
        }
        // the unit appears where its first file (in walk order) does
        let first = files.iter().copied().min().unwrap_or(0);
        self.units[first] = Some((unit, files));
        Ok(())
    }
}

/// The registry's name of a format the folded read does not detect (the document's
/// `format` of its inputs); the folded formats' names are written where they are placed.
fn format_name(format: Format) -> &'static str {
    match format {
        Format::Events => "events",
        Format::ClaudeCode => "claude-code",
        Format::Codex => "codex",
        Format::Pi => "pi",
        Format::Copilot => "copilot",
        Format::Kimi => "kimi",
        Format::Openclaw => "openclaw",
        Format::Mcode => "mcode",
        Format::Otlp => "otlp",
        Format::OtelSpans => "otel-spans",
        Format::Inspect => "inspect",
    }
}

/// The read outcome of `count` files from the folded reads `outs` of `groups`
/// (as [`groups_of`] gives them) and the units of other formats `others` (each
/// placed at its first file), as `pipeline._read_inputs` assembles it, but for the
/// files `passed_over` (walk indexes: skipped, no input); a file in none of them is
/// [`Decline::NotNative`].
pub fn assemble<'a>(
    count: usize,
    groups: &[Vec<usize>],
    outs: &'a [FoldOut],
    others: &'a [OtherRead],
    passed_over: &[usize],
) -> Result<Outcome<'a>, Decline> {
    let mut placed = Placed {
        reads: (0..count).map(|_| None).collect(),
        units: (0..count).map(|_| None).collect(),
    };
    for (members, out) in groups.iter().zip(outs) {
        let walk = |k: usize| members.get(k).copied().ok_or(Decline::ReadFailed);
        let mut claude = Vec::new();
        for (k, &file) in members.iter().enumerate() {
            match out.found.get(k).copied().flatten() {
                Some(Detected::ClaudeCode) => claude.push(file),
                // `None`: one of `others`, or never read (declined below)
                Some(Detected::Events | Detected::Codex | Detected::Pi) | None => {}
            }
        }
        if !claude.is_empty() {
            placed.place("claude-code", &out.claude, claude)?;
        }
        for (k, alone) in &out.alone {
            let format = match out.found.get(*k).copied().flatten() {
                Some(Detected::Codex) => "codex",
                _ => "events",
            };
            placed.place(format, alone, vec![walk(*k)?])?;
        }
        for (indexes, folder) in &out.folders {
            let files = indexes.iter().map(|&k| walk(k)).collect::<Result<_, _>>()?;
            placed.place("pi", folder, files)?;
        }
    }
    for unit in others {
        placed.place(&unit.format, &unit.out, unit.files.clone())?;
    }
    let Placed { reads, units } = placed;
    let inputs: Vec<Read> = reads
        .into_iter()
        .enumerate()
        .filter(|(file, _)| !passed_over.contains(file))
        .map(|(file, read)| read.ok_or(Decline::NotNative(file)))
        .collect::<Result<_, _>>()?;
    for read in &inputs {
        let problems: u64 = read.account.all_problems().iter().map(|(_, n)| n).sum();
        if problems > 0 && read.account.lines_used == 0 {
            return Err(Decline::NoUsableRecord(read.file));
        }
    }
    let mut lanes = Vec::new();
    for (unit, files) in units.iter().flatten() {
        for lane in &unit.lanes {
            let file = *files.get(lane.file).ok_or(Decline::ReadFailed)?;
            lanes.push((file, lane));
        }
    }
    Ok(Outcome { inputs, lanes })
}

/// `merge_summaries` of the lanes, in lane order: every sum starts from the identity
/// (`0`, `0.0`) and adds each lane's figure in turn (the same float bits), the
/// histogram position by position (exact). `None` when a count overflows 64 bits.
pub fn merge<'a>(summaries: impl IntoIterator<Item = &'a Summary>) -> Option<Summary> {
    let mut total = Summary::default();
    for s in summaries {
        total.add(s)?;
    }
    Some(total)
}

/// `ReadOutcome.repeated_lanes`: the `(session_id, lane_id)` of lanes read from more
/// than one input, in order of first appearance, with the inputs (walk indexes) of
/// each in lane order.
pub fn repeated_lanes<'a>(
    lanes: &[(usize, &'a readers::LaneOut)],
) -> Vec<(&'a str, &'a str, Vec<usize>)> {
    let mut order: Vec<(&str, &str, Vec<usize>)> = Vec::new();
    let mut index: HashMap<(&str, &str), usize> = HashMap::new();
    for (file, lane) in lanes {
        let key = (lane.session_id.as_str(), lane.lane_id.as_str());
        match index.get(&key) {
            Some(&at) => order[at].2.push(*file),
            None => {
                index.insert(key, order.len());
                order.push((key.0, key.1, vec![*file]));
            }
        }
    }
    order.retain(|(_, _, files)| files.len() > 1);
    order
}

/// `session_hash` of `pipeline.py`: hex SHA-256 of the compact JSON array
/// `[session_id, lane_id]` (ensure_ascii=False, UTF-8), as `JSON.stringify` writes it.
pub fn session_hash(session_id: &str, lane_id: &str) -> String {
    let mut text = Vec::with_capacity(session_id.len() + lane_id.len() + 7);
    text.push(b'[');
    write_unicode_string(&mut text, session_id);
    text.push(b',');
    write_unicode_string(&mut text, lane_id);
    text.push(b']');
    let digest = Sha256::digest(&text);
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push(char::from(HEX[usize::from(byte >> 4)]));
        hex.push(char::from(HEX[usize::from(byte & 0xf)]));
    }
    hex
}

/// A JSON document written as `json.dumps(..., indent=2)` writes it: members are
/// opened and closed by the caller, each on its own line at its depth.
struct Writer {
    out: Vec<u8>,
    depth: usize,
    /// Whether the container being written has a member yet.
    first: Vec<bool>,
}

impl Writer {
    fn new() -> Self {
        Writer {
            out: Vec::with_capacity(1 << 16),
            depth: 0,
            first: Vec::new(),
        }
    }

    fn newline(&mut self) {
        self.out.push(b'\n');
        for _ in 0..self.depth {
            self.out.extend_from_slice(b"  ");
        }
    }

    /// Before a member: the comma after the one before, and its line.
    fn member(&mut self) {
        if let Some(first) = self.first.last_mut() {
            if !*first {
                self.out.push(b',');
            }
            *first = false;
        }
        self.newline();
    }

    fn key(&mut self, key: &str) {
        self.member();
        write_ascii_string(&mut self.out, key);
        self.out.extend_from_slice(b": ");
    }

    fn open(&mut self, bracket: u8) {
        self.out.push(bracket);
        self.depth += 1;
        self.first.push(true);
    }

    fn close(&mut self, bracket: u8) {
        self.depth -= 1;
        if self.first.pop() == Some(false) {
            self.newline();
        }
        self.out.push(bracket);
    }

    fn text(&mut self, key: &str, value: &str) {
        self.key(key);
        write_ascii_string(&mut self.out, value);
    }

    fn int(&mut self, key: &str, value: u64) {
        self.key(key);
        write_int(&mut self.out, i128::from(value));
    }

    /// A float figure; a non-finite one is `null` (`schema.json_safe`).
    fn float(&mut self, key: &str, value: f64) {
        self.key(key);
        if value.is_finite() {
            write_float(&mut self.out, value);
        } else {
            self.out.extend_from_slice(b"null");
        }
    }

    fn counts<K: AsRef<[u8]>>(&mut self, key: &str, counts: &[(K, u64)]) {
        self.key(key);
        self.open(b'{');
        for (name, n) in counts {
            // record types are short identifiers (ASCII), reasons are constants
            self.int(&String::from_utf8_lossy(name.as_ref()), *n);
        }
        self.close(b'}');
    }
}

/// Members below this many are written on one thread (threads cost more than they save).
const APART_FROM: usize = 64;

/// Writes `count` members of the container `w` is in, each by `member(writer, index)`:
/// from [`APART_FROM`] members on, in `4 * jobs` runs of consecutive members, each run
/// into a writer of its own on up to `jobs` threads, appended in order. The same bytes
/// as writing them one after the other (`render` of the 1,800-lane fleet: ~6.5 ms on one
/// thread, docs/performance-history.md, "Eleventh round"): every run but the first starts after
/// a member (a comma), and runs are never empty.
fn members_apart<F: Fn(&mut Writer, usize) + Sync>(
    w: &mut Writer,
    count: usize,
    jobs: usize,
    member: F,
) {
    let runs = if count < APART_FROM {
        1
    } else {
        (4 * jobs.max(1)).min(count)
    };
    let first = w.first.last().copied().unwrap_or(true);
    let depth = w.depth;
    let written = crate::parallel::map_indexed(runs, jobs, |k| {
        let mut run = Writer {
            out: Vec::new(),
            depth,
            first: vec![first && k == 0],
        };
        for index in k * count / runs..(k + 1) * count / runs {
            member(&mut run, index);
        }
        run
    });
    for run in written {
        w.out.extend_from_slice(&run.out);
        if run.first == [false] {
            if let Some(first) = w.first.last_mut() {
                *first = false;
            }
        }
    }
}

/// Counts sorted by key, as `dict(sorted(counter.items()))` orders them.
fn sorted<K: AsRef<[u8]> + Clone>(counts: &[(K, u64)]) -> Vec<(K, u64)> {
    let mut sorted = counts.to_vec();
    sorted.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
    sorted
}

/// The figures of a summary in `SUMMARY_FIELDS` order, then `waves_total`
/// (`report._summary_dict`).
fn figures(w: &mut Writer, s: &Summary) {
    for (name, value) in s.figures() {
        match value {
            Figure::Count(n) => w.int(name, n),
            Figure::Ms(ms) => w.float(name, ms),
            Figure::Histogram(h) => w.text(name, &histogram_text(h)),
        }
    }
    // waves_total, the derived property: exact as Python's int sum, also past 64 bits
    let waves = i128::from(s.non_eval_waves_total)
        + i128::from(s.eval_only_waves)
        + i128::from(s.mixed_waves);
    w.key("waves_total");
    write_int(&mut w.out, waves);
}

/// A lane whose modeled saving is below this (ms: one minute) is never in the
/// concentration list (`report.CONCENTRATION_MIN_SAVED_MS`).
pub const CONCENTRATION_MIN_SAVED_MS: f64 = 60_000.0;

/// `report.concentrated_lanes`: the lanes (by index in `lanes`) that hold at least half
/// of the `total` modeled saving (the total finite and above 0), in non_eval waves of
/// 2+ calls, and at least [`CONCENTRATION_MIN_SAVED_MS`]; a single lane only when its
/// saving is one wave. Each with its share of the total in percent, rounded down
/// (`math.floor(100 * lane / total)`: the same f64 operations, so the same value).
pub fn concentrated(lanes: &[&Summary], total: &Summary) -> Vec<(usize, u64)> {
    let saved = total.modeled_wallclock_saved_ms;
    if !(saved.is_finite() && saved > 0.0) {
        return Vec::new();
    }
    let single = lanes.len() == 1;
    let mut found = Vec::new();
    for (index, s) in lanes.iter().enumerate() {
        let lane = s.modeled_wallclock_saved_ms;
        // (a NaN lane compares false: never noted, as in Python)
        let noted = s.non_eval_waves_multi >= 1
            && lane >= saved / 2.0
            && lane >= CONCENTRATION_MIN_SAVED_MS
            && (!single || s.non_eval_waves_multi == 1);
        if !noted {
            continue;
        }
        // in [50, 101] (a lane's saving may pass the total by float rounding only)
        found.push((index, (100.0 * lane / saved).floor() as u64));
    }
    found
}

/// The `--format json` document of `outcome` (`report.json_document` and
/// `render_json`), with the facts of its inputs and lanes ([`facts`]); `options`: the
/// JSON text of the document's `"options"` value, written as it is (Python renders it:
/// `wavemetrics/run/_options.py`).
pub fn render(
    paths: &[&str],
    outcome: &Outcome,
    skipped: &[(String, String)],
    options: &str,
    jobs: usize,
) -> Result<Document, Decline> {
    let json = render_json(paths, outcome, skipped, options, jobs, None)?;
    let (inputs, lanes) = facts(outcome)?;
    Ok(Document {
        json,
        inputs,
        lanes,
        tools: None,
        periods: None,
        waves: None,
    })
}

/// The text of [`render`]'s document: the inputs and lanes arrays written on `jobs`
/// threads ([`members_apart`]); `Err(Overflow)` when a merged count passes 64 bits.
/// With `groups`, the `--by session|lane` document (`groups.group_document`): `"by"`
/// after the options, each group's merged figures in place of the lanes
/// ([`write_groups`]), and no skipped files or repeated lanes.
fn render_json(
    paths: &[&str],
    outcome: &Outcome,
    skipped: &[(String, String)],
    options: &str,
    jobs: usize,
    groups: Option<&Groups>,
) -> Result<Vec<u8>, Decline> {
    let total =
        merge(outcome.lanes.iter().map(|(_, lane)| &lane.summary)).ok_or(Decline::Overflow)?;
    let mut w = Writer::new();
    w.open(b'{');
    w.text("schema_kind", "parallelism_v1");
    w.key("options");
    w.out.extend_from_slice(options.as_bytes());
    if let Some(groups) = groups {
        w.text("by", groups.name());
    }
    w.key("inputs");
    w.open(b'[');
    members_apart(&mut w, outcome.inputs.len(), jobs, |w, i| {
        let read = &outcome.inputs[i];
        let path = paths[read.file];
        let a = read.account;
        w.member();
        w.open(b'{');
        w.text("path", path);
        w.text("format", read.format);
        w.int("lines_read", a.lines_read);
        w.int("lines_used", a.lines_used);
        w.int("lines_ignored", a.lines_ignored());
        w.counts("problems", &sorted(&a.all_problems()));
        w.counts("ignored", &sorted(&a.ignored));
        w.counts("notes", &sorted(&a.all_notes()));
        w.key("error");
        w.out.extend_from_slice(b"null");
        w.close(b'}');
    });
    w.close(b']');
    match groups {
        Some(groups) => write_groups(&mut w, &outcome.lanes, groups)?,
        None => write_lanes(&mut w, paths, &outcome.lanes, jobs),
    }
    w.key("total");
    w.open(b'{');
    figures(&mut w, &total);
    w.close(b'}');
    let summaries: Vec<&Summary> = outcome.lanes.iter().map(|(_, l)| &l.summary).collect();
    w.key("concentration");
    w.open(b'[');
    for (index, share) in concentrated(&summaries, &total) {
        let (file, lane) = outcome.lanes[index];
        w.member();
        w.open(b'{');
        w.text("path", paths[file]);
        w.text("session_id", &lane.session_id);
        w.text("lane_id", &lane.lane_id);
        w.int("share_percent", share);
        w.float(
            "modeled_wallclock_saved_ms",
            lane.summary.modeled_wallclock_saved_ms,
        );
        w.int("non_eval_waves_multi", lane.summary.non_eval_waves_multi);
        w.close(b'}');
    }
    w.close(b']');
    if groups.is_none() {
        write_skipped_and_repeated(&mut w, paths, &outcome.lanes, skipped);
    }
    w.close(b'}');
    w.out.push(b'\n');
    Ok(w.out)
}

/// Each group of `lanes` (`groups._by_lane_key`: in order of first appearance, its
/// lanes' summaries merged in lane order) as `{"group": key, figures...}`;
/// `Err(Overflow)` when a merged count passes 64 bits.
fn write_groups(
    w: &mut Writer,
    lanes: &[(usize, &readers::LaneOut)],
    groups: &Groups,
) -> Result<(), Decline> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut grouped: Vec<(String, Vec<&Summary>)> = Vec::new();
    for &(file, lane) in lanes {
        let key = groups.key(file, lane);
        let at = *index.entry(key.clone()).or_insert_with(|| {
            grouped.push((key, Vec::new()));
            grouped.len() - 1
        });
        grouped[at].1.push(&lane.summary);
    }
    w.key("groups");
    w.open(b'[');
    for (key, summaries) in &grouped {
        let merged = merge(summaries.iter().copied()).ok_or(Decline::Overflow)?;
        w.member();
        w.open(b'{');
        w.text("group", key);
        figures(w, &merged);
        w.close(b'}');
    }
    w.close(b']');
    Ok(())
}

/// The document's `"lanes"`: each lane's path, ids, session hash and figures, written
/// on `jobs` threads ([`members_apart`]).
fn write_lanes(w: &mut Writer, paths: &[&str], lanes: &[(usize, &readers::LaneOut)], jobs: usize) {
    w.key("lanes");
    w.open(b'[');
    members_apart(w, lanes.len(), jobs, |w, i| {
        let (file, lane) = lanes[i];
        w.member();
        w.open(b'{');
        w.text("path", paths[file]);
        w.text("session_id", &lane.session_id);
        w.text("lane_id", &lane.lane_id);
        w.text(
            "session_hash",
            &session_hash(&lane.session_id, &lane.lane_id),
        );
        figures(w, &lane.summary);
        w.close(b'}');
    });
    w.close(b']');
}

/// The document's `"skipped_files"` and `"repeated_lanes"`, each only when it has any.
fn write_skipped_and_repeated(
    w: &mut Writer,
    paths: &[&str],
    lanes: &[(usize, &readers::LaneOut)],
    skipped: &[(String, String)],
) {
    let repeated = repeated_lanes(lanes);
    if !skipped.is_empty() {
        w.key("skipped_files");
        w.open(b'[');
        for (path, reason) in skipped {
            w.member();
            w.open(b'{');
            w.text("path", path);
            w.text("reason", reason);
            w.close(b'}');
        }
        w.close(b']');
    }
    if !repeated.is_empty() {
        w.key("repeated_lanes");
        w.open(b'[');
        for (session_id, lane_id, files) in &repeated {
            w.member();
            w.open(b'{');
            w.text("session_id", session_id);
            w.text("lane_id", lane_id);
            w.key("paths");
            w.open(b'[');
            for file in files {
                w.member();
                write_ascii_string(&mut w.out, paths[*file]);
            }
            w.close(b']');
            w.close(b'}');
        }
        w.close(b']');
    }
}

#[cfg(test)]
mod tests {
    //! Every expected document below was written by CPython 3.11 (`json.dumps(doc,
    //! indent=2)` of a dict built by hand with the same values, or the Python
    //! reference engine: `wavemetrics summarize --format json --engine python`), every
    //! session hash by `hashlib.sha256(json.dumps([s, l], ensure_ascii=False,
    //! separators=(",", ":")).encode()).hexdigest()`.

    use super::*;
    use crate::readers::LaneOut;
    use crate::summary::{LaneRecords, MaxCount};
    use std::sync::atomic::Ordering;

    const CLAUDE: Option<Detected> = Some(Detected::ClaudeCode);
    const EVENTS: Option<Detected> = Some(Detected::Events);
    const CODEX: Option<Detected> = Some(Detected::Codex);
    const PI: Option<Detected> = Some(Detected::Pi);

    /// The default options record as `wavemetrics/run/_options.py` writes it
    /// (`options_json(options_record())`): what the native command hands over.
    const OPTIONS: &str = r#"{
    "input_format": "auto",
    "eval_tools": [
      "eval",
      "codemode",
      "code_mode"
    ],
    "max_tracked_calls": 2000,
    "max_line_bytes": 67108864,
    "max_document_bytes": 268435456,
    "since": null,
    "until": null,
    "timezone": null,
    "by": null
  }"#;

    /// A summary with this modeled saving (ms) in `multi` non_eval waves of 2+ calls.
    fn saving(saved_ms: f64, multi: u64) -> Summary {
        Summary {
            modeled_wallclock_saved_ms: saved_ms,
            non_eval_waves_multi: multi,
            ..Summary::default()
        }
    }

    /// [`concentrated`] of these lanes, the total being their merge.
    fn noted(lanes: &[Summary]) -> Vec<(usize, u64)> {
        let total = merge(lanes).unwrap();
        concentrated(&lanes.iter().collect::<Vec<_>>(), &total)
    }

    #[test]
    fn a_lane_of_half_the_saving_and_a_minute_or_more_is_noted() {
        // exactly half of the total, exactly one minute: both noted, 50 % each
        assert_eq!(
            noted(&[saving(60_000.0, 1), saving(60_000.0, 2)]),
            vec![(0, 50), (1, 50)]
        );
        // a hair under half (the other lane above it), a share rounded down
        assert_eq!(
            noted(&[saving(99_999.0, 1), saving(101_001.0, 3)]),
            vec![(1, 50)]
        );
        assert_eq!(
            noted(&[saving(80_000.0, 2), saving(40_000.0, 1)]),
            vec![(0, 66)]
        );
        // under a minute: never, whatever its share
        assert_eq!(noted(&[saving(59_999.999, 1), saving(0.0, 0)]), vec![]);
        assert_eq!(
            noted(&[saving(60_000.0, 1), saving(0.0, 0)]),
            vec![(0, 100)]
        );
        // no wave of 2+ calls: not noted (its saving cannot come from a wave)
        assert_eq!(noted(&[saving(90_000.0, 0), saving(10_000.0, 1)]), vec![]);
    }

    #[test]
    fn a_single_lane_is_noted_only_for_one_wave() {
        assert_eq!(noted(&[saving(60_000.0, 1)]), vec![(0, 100)]);
        assert_eq!(noted(&[saving(600_000.0, 2)]), vec![]);
        assert_eq!(noted(&[saving(59_999.0, 1)]), vec![]);
    }

    #[test]
    fn a_total_not_above_zero_or_not_finite_notes_nothing() {
        // a total of 0 from +1 min and -1 min: a lane of 1 min is not "half of it"
        assert_eq!(noted(&[saving(60_000.0, 1), saving(-60_000.0, 1)]), vec![]);
        let infinite = [saving(f64::INFINITY, 1), saving(0.0, 0)];
        assert_eq!(noted(&infinite), vec![]);
        let nan = [saving(f64::NAN, 1), saving(70_000.0, 1)];
        assert_eq!(noted(&nan), vec![]);
        // a lane that is NaN next to a finite total is never noted
        let total = saving(100_000.0, 2);
        assert_eq!(
            concentrated(&[&saving(f64::NAN, 1), &saving(100_000.0, 1)], &total),
            vec![(1, 100)]
        );
    }

    /// An outcome of one `events` input per lane (1 line read, 1 used), each lane
    /// `(session, lane)` of `file` its index, its summary `saving(saved_ms, multi)`.
    fn saving_lanes(lanes: &[(&str, &str, f64, u64)]) -> (Vec<LineAccount>, Vec<LaneOut>) {
        let outs = lanes
            .iter()
            .enumerate()
            .map(|(file, &(session, lane_id, saved_ms, multi))| LaneOut {
                summary: saving(saved_ms, multi),
                ..lane(file, session, lane_id)
            })
            .collect();
        (vec![account(1, 1); lanes.len()], outs)
    }

    /// The [`Outcome`] of [`saving_lanes`]' accounts and lanes.
    fn outcome_of<'a>(accounts: &'a [LineAccount], lanes: &'a [LaneOut]) -> Outcome<'a> {
        Outcome {
            inputs: accounts
                .iter()
                .enumerate()
                .map(|(file, account)| Read {
                    file,
                    format: "events",
                    account,
                })
                .collect(),
            lanes: lanes.iter().enumerate().collect(),
        }
    }

    /// `--by session|lane`: `"by"` after the options, each group in order of first
    /// appearance with its lanes' figures merged, in place of the lanes, and no
    /// skipped files (the total and concentration as without `--by`).
    #[test]
    fn a_by_document_merges_each_group_s_lanes_in_order() {
        let (accounts, lanes) = saving_lanes(&[
            ("s", "main", 40_000.0, 1),
            ("t", "main", 0.5, 2),
            ("s", "sub", 80_000.0, 4),
        ]);
        let outcome = outcome_of(&accounts, &lanes);
        let skipped = [("z.meta.json".to_string(), "sidecar".to_string())];
        let document = |groups| {
            let json = render_json(&["a", "b", "c"], &outcome, &skipped, "{}", 1, Some(groups));
            String::from_utf8(json.unwrap()).unwrap()
        };
        let groups = |text: &str| -> Vec<(String, f64, u64)> {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            value["groups"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| {
                    (
                        g["group"].as_str().unwrap().to_string(),
                        g["modeled_wallclock_saved_ms"].as_f64().unwrap(),
                        g["non_eval_waves_multi"].as_u64().unwrap(),
                    )
                })
                .collect()
        };
        let by_session = document(&Groups::Session);
        assert!(by_session.starts_with(concat!(
            "{\n  \"schema_kind\": \"parallelism_v1\",\n  \"options\": {},\n",
            "  \"by\": \"session\",\n  \"inputs\": [\n"
        )));
        // s: 40000 + 80000 ms in 1 + 4 waves; t: its one lane
        assert_eq!(
            groups(&by_session),
            [("s".into(), 120_000.0, 5), ("t".into(), 0.5, 2)]
        );
        assert_eq!(
            groups(&document(&Groups::Lane)),
            [
                ("s/main".into(), 40_000.0, 1),
                ("t/main".into(), 0.5, 2),
                ("s/sub".into(), 80_000.0, 4)
            ]
        );
        let keys = |text: &str| -> Vec<String> {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            value.as_object().unwrap().keys().cloned().collect()
        };
        // serde_json's map is sorted: the order is pinned by the start above and the end below
        assert_eq!(
            keys(&by_session),
            [
                "by",
                "concentration",
                "groups",
                "inputs",
                "options",
                "schema_kind",
                "total"
            ]
        );
        assert!(by_session.contains("\n  ],\n  \"groups\": [\n    {\n      \"group\": \"s\",\n"));
        assert!(by_session.ends_with("\n  ]\n}\n"), "{by_session}");
        assert!(document(&Groups::Lane).contains("\"by\": \"lane\""));
        // by project: each lane's file's project, p for the first and third
        let by_project = document(&Groups::Project(vec!["p".into(), "q".into(), "p".into()]));
        assert!(by_project.contains("\n  \"by\": \"project\",\n"));
        assert_eq!(
            groups(&by_project),
            [("p".into(), 120_000.0, 5), ("q".into(), 0.5, 2)]
        );
    }

    /// `--by project`: the inputs holding lanes are asked at once, in walk order, with
    /// their formats; each lane's key is its input's answer.
    #[test]
    fn projects_are_asked_once_for_the_inputs_holding_lanes() {
        let (accounts, lanes) = saving_lanes(&[("s", "main", 1.0, 1), ("t", "main", 2.0, 1)]);
        let reads = [(0, "pi"), (1, "events"), (2, "codex")];
        // inputs 0 (no lane), 1 and 2 (one lane each, the second lane's first)
        let outcome = Outcome {
            inputs: reads
                .iter()
                .map(|&(file, format)| Read {
                    file,
                    format,
                    account: &accounts[0],
                })
                .collect(),
            lanes: vec![(2, &lanes[1]), (1, &lanes[0])],
        };
        let paths = ["a", "b", "c"];
        let mut asked = Vec::new();
        let mut answer = |files: &[(&str, &str)]| {
            asked.push(
                files
                    .iter()
                    .map(|&(p, f)| format!("{p}:{f}"))
                    .collect::<Vec<_>>(),
            );
            Some(vec!["/b".to_string(), "/c".to_string()])
        };
        assert_eq!(
            file_projects(&paths, &outcome, &mut answer),
            Ok(vec![String::new(), "/b".into(), "/c".into()])
        );
        assert_eq!(asked, [["b:events", "c:codex"]]);
        let mut none = |_: &[(&str, &str)]| None;
        assert_eq!(
            file_projects(&paths, &outcome, &mut none),
            Err(Decline::ReadFailed)
        );
        let mut short = |_: &[(&str, &str)]| Some(vec!["/b".to_string()]);
        assert_eq!(
            file_projects(&paths, &outcome, &mut short),
            Err(Decline::ReadFailed)
        );
        let mut long = |_: &[(&str, &str)]| Some(vec![String::new(); 3]);
        assert_eq!(
            file_projects(&paths, &outcome, &mut long),
            Err(Decline::ReadFailed)
        );
    }

    #[test]
    fn render_writes_the_options_as_given_and_the_concentration() {
        let (accounts, lanes) =
            saving_lanes(&[("s", "main", 40_000.0, 1), ("s", "sub", 80_000.0, 2)]);
        let outcome = outcome_of(&accounts, &lanes);
        let json = String::from_utf8(
            render(&["a", "b"], &outcome, &[], "{\n    \"by\": null\n  }", 1)
                .unwrap()
                .json,
        )
        .unwrap();
        assert!(json.starts_with(concat!(
            "{\n  \"schema_kind\": \"parallelism_v1\",\n",
            "  \"options\": {\n    \"by\": null\n  },\n  \"inputs\": [\n"
        )));
        // json.dumps({"concentration": [...]}, indent=2) of the entry, by CPython 3.11
        let want = r#"
  "concentration": [
    {
      "path": "b",
      "session_id": "s",
      "lane_id": "sub",
      "share_percent": 66,
      "modeled_wallclock_saved_ms": 80000.0,
      "non_eval_waves_multi": 2
    }
  ]
}
"#;
        assert!(json.ends_with(want), "{json}");
    }

    fn account(lines_read: u64, lines_used: u64) -> LineAccount {
        let mut account = LineAccount::default();
        account.lines_read = lines_read;
        account.lines_used = lines_used;
        account
    }

    fn lane(file: usize, session_id: &str, lane_id: &str) -> LaneOut {
        LaneOut::opened(file, session_id.into(), lane_id.into())
    }

    fn unit(accounts: Vec<LineAccount>, lanes: Vec<LaneOut>) -> UnitOut {
        UnitOut {
            accounts,
            lanes,
            read_again_in_batch: false,
        }
    }

    fn again(mut out: UnitOut) -> UnitOut {
        out.read_again_in_batch = true;
        out
    }

    /// A file whose stem (its fallback session id and `events` default) is `stem`.
    fn named<'a>(path: &'a str, stem: &'a str, group: usize) -> CommandFile<'a> {
        CommandFile {
            path,
            claude_fallback: stem,
            events_default: stem,
            group,
        }
    }

    fn file(path: &str, group: usize) -> CommandFile<'_> {
        CommandFile {
            path,
            claude_fallback: "fallback",
            events_default: "default",
            group,
        }
    }

    fn fold(
        found: Vec<Option<Detected>>,
        claude: Option<UnitOut>,
        alone: Vec<(usize, Option<UnitOut>)>,
    ) -> FoldOut {
        FoldOut {
            found,
            claude,
            alone,
            folders: vec![],
        }
    }

    /// One `events` file with this account and lanes (the group of a single file).
    fn events_only(account: LineAccount, lanes: Vec<LaneOut>) -> FoldOut {
        fold(
            vec![EVENTS],
            None,
            vec![(0, Some(unit(vec![account], lanes)))],
        )
    }

    /// What `assemble` makes of `outs` for `groups`: only its decline, if any.
    fn decline(count: usize, groups: &[Vec<usize>], outs: &[FoldOut]) -> Option<Decline> {
        assemble(count, groups, outs, &[], &[]).err()
    }

    /// The inputs as (format, lines_read) and the lanes as (walk index, session, lane).
    type Shape<'a> = (Vec<(&'a str, u64)>, Vec<(usize, &'a str, &'a str)>);

    fn shape<'a>(outcome: &'a Outcome<'a>) -> Shape<'a> {
        let inputs = outcome
            .inputs
            .iter()
            .map(|read| (read.format, read.account.lines_read))
            .collect();
        let lanes = outcome
            .lanes
            .iter()
            .map(|(file, lane)| (*file, lane.session_id.as_str(), lane.lane_id.as_str()))
            .collect();
        (inputs, lanes)
    }

    #[test]
    fn every_decline_has_its_reason() {
        let reasons = [
            (Decline::NotNative(3), "an input is not read natively"),
            (Decline::ReadFailed, "a unit could not be read natively"),
            (Decline::ReadAgain, "a unit was read again in batch mode"),
            (Decline::NoUsableRecord(0), "an input has no usable record"),
            (Decline::Overflow, "a total count overflows"),
            (Decline::MayRepeat, "inputs may repeat each other's content"),
        ];
        for (decline, reason) in reasons {
            assert_eq!(decline.reason(), reason, "{decline:?}");
        }
    }

    #[test]
    fn groups_hold_their_files_in_path_byte_order() {
        assert_eq!(groups_of(&[]), Vec::<Vec<usize>>::new());
        let files = [
            file("p/b", 0),
            file("q/x", 2),
            file("p/10", 0),
            file("p/1", 0),
            file("r/é", 3),
            file("r/z", 3),
            file("r/\u{10000}", 3),
            file("r/\u{ffff}", 3),
        ];
        // group 1 has no file: no empty group is kept; "p/1" < "p/10" < "p/b" by bytes,
        // and UTF-8 bytes order code points ("z" < "é" < U+FFFF < U+10000)
        assert_eq!(
            groups_of(&files),
            vec![vec![3, 2, 0], vec![1], vec![5, 4, 7, 6]]
        );
        assert_eq!(groups_of(&[file("only", 0)]), vec![vec![0]]);
        assert_eq!(groups_of(&[file("b", 1), file("a", 1)]), vec![vec![1, 0]]);
    }

    #[test]
    fn units_come_in_order_of_first_appearance_and_inputs_in_walk_order() {
        // walk: 0 p/b (claude), 1 q/e (events), 2 p/a (claude), 3 q/c (claude),
        // 4 p/z (events); folders p (group 0) and q (group 1)
        let files = [
            file("p/b", 0),
            file("q/e", 1),
            file("p/a", 0),
            file("q/c", 1),
            file("p/z", 0),
        ];
        let groups = groups_of(&files);
        assert_eq!(groups, vec![vec![2, 0, 4], vec![3, 1]]);
        let outs = [
            fold(
                vec![CLAUDE, CLAUDE, EVENTS],
                // the folder's files in its order: p/a (walk 2), then p/b (walk 0)
                Some(unit(
                    vec![account(102, 1), account(100, 1)],
                    vec![
                        lane(1, "sb", "main"),
                        lane(0, "sa", "main"),
                        lane(0, "sa", "x1"),
                    ],
                )),
                vec![(
                    2,
                    Some(unit(vec![account(104, 1)], vec![lane(0, "z", "main")])),
                )],
            ),
            fold(
                vec![CLAUDE, EVENTS],
                Some(unit(vec![account(103, 1)], vec![lane(0, "c", "main")])),
                vec![(
                    1,
                    Some(unit(vec![account(101, 1)], vec![lane(0, "e", "main")])),
                )],
            ),
        ];
        let outcome = assemble(files.len(), &groups, &outs, &[], &[]).unwrap();
        let (inputs, lanes) = shape(&outcome);
        assert_eq!(
            inputs,
            vec![
                ("claude-code", 100),
                ("events", 101),
                ("claude-code", 102),
                ("claude-code", 103),
                ("events", 104),
            ]
        );
        // folder p where its first file in walk order (0) is, events q/e at 1, folder q
        // at 3, events p/z at 4; each unit's lanes in its order
        assert_eq!(
            lanes,
            vec![
                (0, "sb", "main"),
                (2, "sa", "main"),
                (2, "sa", "x1"),
                (1, "e", "main"),
                (3, "c", "main"),
                (4, "z", "main"),
            ]
        );
        let paths: Vec<&str> = files.iter().map(|f| f.path).collect();
        let document = render(&paths, &outcome, &[], OPTIONS, 1).unwrap();
        // the facts taken before the render: the hand-written lanes and inputs too
        let (early_inputs, early_lanes) = super::facts(&outcome).unwrap();
        let early: Vec<(usize, &str, &str)> = early_lanes
            .iter()
            .map(|l| (l.file, l.session_id.as_str(), l.lane_id.as_str()))
            .collect();
        assert_eq!(early, lanes);
        let early: Vec<(&str, u64)> = early_inputs
            .iter()
            .map(|i| (i.format.as_str(), i.lines_read))
            .collect();
        assert_eq!(early, inputs);
        let facts: Vec<(usize, &str, &str)> = document
            .lanes
            .iter()
            .map(|l| (l.file, l.session_id.as_str(), l.lane_id.as_str()))
            .collect();
        assert_eq!(facts, lanes);
        let formats: Vec<(&str, u64)> = document
            .inputs
            .iter()
            .map(|i| (i.format.as_str(), i.lines_read))
            .collect();
        assert_eq!(formats, inputs);
    }

    #[test]
    fn a_group_of_events_files_only_or_of_claude_files_only_is_read() {
        // no Claude Code file: no claude unit is asked for (it is None)
        let outs = [fold(
            vec![EVENTS, EVENTS],
            None,
            vec![
                (
                    0,
                    Some(unit(vec![account(7, 1)], vec![lane(0, "a", "main")])),
                ),
                (
                    1,
                    Some(unit(vec![account(8, 1)], vec![lane(0, "b", "main")])),
                ),
            ],
        )];
        let outcome = assemble(2, &[vec![1, 0]], &outs, &[], &[]).unwrap();
        assert_eq!(
            shape(&outcome),
            (
                vec![("events", 8), ("events", 7)],
                vec![(0, "b", "main"), (1, "a", "main")]
            )
        );
        let outs = [fold(
            vec![CLAUDE],
            Some(unit(vec![account(5, 0)], vec![])),
            vec![],
        )];
        let outcome = assemble(1, &[vec![0]], &outs, &[], &[]).unwrap();
        assert_eq!(shape(&outcome), (vec![("claude-code", 5)], vec![]));
        // a Codex rollout beside Claude Code files and an events file, the group's
        // members (path order) walk 2, 0, 3, 1: the rollout (walk 0) and the events
        // file (walk 3) are units of their own, each where its file is in walk order;
        // the Claude Code unit (walk 2 and 1, in that order) comes at walk 1
        let outs = [fold(
            vec![CLAUDE, CODEX, EVENTS, CLAUDE],
            Some(unit(
                vec![account(2, 1), account(3, 1)],
                vec![lane(1, "c", "main"), lane(0, "a", "main")],
            )),
            vec![
                (
                    1,
                    Some(unit(vec![account(9, 2)], vec![lane(0, "r", "main")])),
                ),
                (
                    2,
                    Some(unit(vec![account(4, 1)], vec![lane(0, "e", "main")])),
                ),
            ],
        )];
        let outcome = assemble(4, &[vec![2, 0, 3, 1]], &outs, &[], &[]).unwrap();
        assert_eq!(
            shape(&outcome),
            (
                vec![
                    ("codex", 9),
                    ("claude-code", 3),
                    ("claude-code", 2),
                    ("events", 4)
                ],
                vec![
                    (0, "r", "main"),
                    (1, "c", "main"),
                    (2, "a", "main"),
                    (3, "e", "main")
                ]
            )
        );
        // nothing at all
        let outcome = assemble(0, &[], &[], &[], &[]).unwrap();
        assert_eq!(shape(&outcome), (vec![], vec![]));
    }

    #[test]
    fn a_folder_of_pi_files_is_one_unit_where_its_first_file_is() {
        // members (path order) walk 3, 0, 2, 1: pi, claude-code, pi, events; the pi
        // folder's files are walk 3 then 2 (its accounts in that order), so the unit
        // comes at walk 2, after the Claude Code unit (walk 0) and the events file (1)
        let mut out = fold(
            vec![PI, CLAUDE, PI, EVENTS],
            Some(unit(vec![account(2, 1)], vec![lane(0, "c", "main")])),
            vec![(
                3,
                Some(unit(vec![account(4, 1)], vec![lane(0, "e", "main")])),
            )],
        );
        out.folders = vec![(
            vec![0, 2],
            Some(unit(
                vec![account(5, 1), account(6, 1)],
                vec![lane(0, "p", "main"), lane(1, "q", "main")],
            )),
        )];
        let outs = [out];
        let outcome = assemble(4, &[vec![3, 0, 2, 1]], &outs, &[], &[]).unwrap();
        assert_eq!(
            shape(&outcome),
            (
                vec![("claude-code", 2), ("events", 4), ("pi", 6), ("pi", 5)],
                vec![
                    (0, "c", "main"),
                    (1, "e", "main"),
                    (3, "p", "main"),
                    (2, "q", "main")
                ]
            )
        );
        // its read failed, it was read again in batch, or a pi file is in no folder
        let failed = |folders| FoldOut {
            folders,
            ..fold(vec![PI], None, vec![])
        };
        let again = UnitOut {
            read_again_in_batch: true,
            ..unit(vec![account(1, 1)], vec![])
        };
        assert_eq!(
            decline(1, &[vec![0]], &[failed(vec![(vec![0], None)])]),
            Some(Decline::ReadFailed)
        );
        assert_eq!(
            decline(1, &[vec![0]], &[failed(vec![(vec![0], Some(again))])]),
            Some(Decline::ReadAgain)
        );
        assert_eq!(
            decline(1, &[vec![0]], &[failed(vec![])]),
            Some(Decline::NotNative(0))
        );
        // a folder naming a member the group does not have
        let read = || Some(unit(vec![account(1, 1), account(1, 1)], vec![]));
        assert_eq!(
            decline(1, &[vec![0]], &[failed(vec![(vec![0, 1], read())])]),
            Some(Decline::ReadFailed)
        );
    }

    #[test]
    fn a_file_not_detected_is_not_native() {
        // group [1, 0] (walk order b, a sorted to a, b): its second member is walk 0
        let groups = [vec![1, 0]];
        let read = || Some(unit(vec![account(1, 1)], vec![]));
        let outs = [fold(vec![CLAUDE, None], read(), vec![])];
        assert_eq!(decline(2, &groups, &outs), Some(Decline::NotNative(0)));
        let outs = [fold(vec![None, CLAUDE], read(), vec![])];
        assert_eq!(decline(2, &groups, &outs), Some(Decline::NotNative(1)));
        // fewer detections than members
        let outs = [fold(vec![CLAUDE], read(), vec![])];
        assert_eq!(decline(2, &groups, &outs), Some(Decline::NotNative(0)));
        // an events file found but never read: no input report
        let outs = [fold(vec![CLAUDE, EVENTS], read(), vec![])];
        assert_eq!(decline(2, &groups, &outs), Some(Decline::NotNative(0)));
        // a file in no group
        let outs = [events_only(account(1, 1), vec![])];
        assert_eq!(decline(2, &[vec![1]], &outs), Some(Decline::NotNative(0)));
    }

    #[test]
    fn a_unit_not_read_fails() {
        let g = [vec![0, 1]];
        let ok = || unit(vec![account(1, 1)], vec![lane(0, "s", "main")]);
        // the claude unit failed
        let outs = [fold(vec![CLAUDE, CLAUDE], None, vec![])];
        assert_eq!(decline(2, &g, &outs), Some(Decline::ReadFailed));
        // one account for two Claude Code files
        let outs = [fold(vec![CLAUDE, CLAUDE], Some(ok()), vec![])];
        assert_eq!(decline(2, &g, &outs), Some(Decline::ReadFailed));
        // an events unit failed
        let outs = [fold(vec![CLAUDE, EVENTS], Some(ok()), vec![(1, None)])];
        assert_eq!(decline(2, &g, &outs), Some(Decline::ReadFailed));
        // an events unit of a member the group does not have
        let outs = [fold(
            vec![CLAUDE, EVENTS],
            Some(ok()),
            vec![(2, Some(ok()))],
        )];
        assert_eq!(decline(2, &g, &outs), Some(Decline::ReadFailed));
        // an events unit without its account
        let outs = [fold(
            vec![CLAUDE, EVENTS],
            Some(ok()),
            vec![(1, Some(unit(vec![], vec![])))],
        )];
        assert_eq!(decline(2, &g, &outs), Some(Decline::ReadFailed));
        // a lane of a file the unit does not have
        let outs = [fold(
            vec![CLAUDE, EVENTS],
            Some(unit(vec![account(1, 1)], vec![lane(1, "s", "main")])),
            vec![(1, Some(ok()))],
        )];
        assert_eq!(decline(2, &g, &outs), Some(Decline::ReadFailed));
        let outs = [events_only(account(1, 1), vec![lane(1, "s", "main")])];
        assert_eq!(decline(1, &[vec![0]], &outs), Some(Decline::ReadFailed));
        // the same, well formed, is read
        let outs = [fold(
            vec![CLAUDE, EVENTS],
            Some(ok()),
            vec![(
                1,
                Some(unit(vec![account(2, 1)], vec![lane(0, "t", "main")])),
            )],
        )];
        let outcome = assemble(2, &g, &outs, &[], &[]).unwrap();
        assert_eq!(
            shape(&outcome),
            (
                vec![("claude-code", 1), ("events", 2)],
                vec![(0, "s", "main"), (1, "t", "main")]
            )
        );
    }

    #[test]
    fn a_unit_read_again_in_batch_declines() {
        let g = [vec![0, 1]];
        let ok = |s: &str| unit(vec![account(1, 1)], vec![lane(0, s, "main")]);
        let outs = [fold(
            vec![CLAUDE, EVENTS],
            Some(again(ok("a"))),
            vec![(1, Some(ok("b")))],
        )];
        assert_eq!(decline(2, &g, &outs), Some(Decline::ReadAgain));
        let outs = [fold(
            vec![CLAUDE, EVENTS],
            Some(ok("a")),
            vec![(1, Some(again(ok("b"))))],
        )];
        assert_eq!(decline(2, &g, &outs), Some(Decline::ReadAgain));
        let outs = [fold(
            vec![CLAUDE, EVENTS],
            Some(ok("a")),
            vec![(1, Some(ok("b")))],
        )];
        assert!(assemble(2, &g, &outs, &[], &[]).is_ok());
    }

    #[test]
    fn an_input_of_problems_only_has_no_usable_record() {
        type Problems = &'static [(&'static str, u64)];
        let with = |problems: Problems, used: u64| {
            let mut account = account(9, used);
            account.problems = problems.to_vec();
            account
        };
        let cases: [(Problems, u64, bool); 6] = [
            (&[], 0, false),
            (&[], 1, false),
            (&[("invalid_json", 1)], 0, true),
            (&[("invalid_json", 1)], 1, false),
            (&[("invalid_json", 2), ("invalid_event", 3)], 0, true),
            (&[("invalid_json", 0)], 0, false),
        ];
        for (problems, used, declines) in cases {
            // the second input (walk 1) is the one looked at; the first is fine
            let outs = [
                events_only(account(1, 1), vec![]),
                events_only(with(problems, used), vec![]),
            ];
            let want = declines.then_some(Decline::NoUsableRecord(1));
            assert_eq!(
                decline(2, &[vec![0], vec![1]], &outs),
                want,
                "{problems:?} {used}"
            );
        }
    }

    #[test]
    fn a_lane_read_from_several_inputs_is_kept_in_each() {
        let two = |a: LaneOut, b: LaneOut| {
            [
                events_only(account(1, 1), vec![a]),
                events_only(account(2, 1), vec![b]),
            ]
        };
        let groups = [vec![0], vec![1]];
        let outs = two(lane(0, "s", "main"), lane(0, "s", "main"));
        let outcome = assemble(2, &groups, &outs, &[], &[]).unwrap();
        assert_eq!(shape(&outcome).1, vec![(0, "s", "main"), (1, "s", "main")]);
        assert_eq!(
            repeated_lanes(&outcome.lanes),
            vec![("s", "main", vec![0, 1])]
        );
        for (a, b) in [(("s", "main"), ("s", "x1")), (("s", "main"), ("t", "main"))] {
            let outs = two(lane(0, a.0, a.1), lane(0, b.0, b.1));
            let outcome = assemble(2, &groups, &outs, &[], &[]).unwrap();
            assert_eq!(repeated_lanes(&outcome.lanes), vec![], "{a:?} {b:?}");
        }
    }

    #[test]
    fn repeated_lanes_in_order_of_first_appearance_with_their_inputs_in_lane_order() {
        assert_eq!(repeated_lanes(&[]), vec![]);
        let lanes = [
            lane(0, "s", "main"),
            lane(0, "t", "main"),
            lane(0, "s", "main"),
            lane(0, "s", "x1"),
            lane(0, "t", "main"),
            lane(0, "u", "main"),
            lane(0, "t", "main"),
            lane(0, "s", "x1"),
        ];
        let files = [0, 1, 2, 1, 3, 0, 4, 2];
        let outcome: Vec<(usize, &LaneOut)> = files.into_iter().zip(&lanes).collect();
        assert_eq!(
            repeated_lanes(&outcome),
            vec![
                ("s", "main", vec![0, 2]),
                ("t", "main", vec![1, 3, 4]),
                ("s", "x1", vec![1, 2]),
            ]
        );
        // one input twice is twice (as Python lists a path per lane)
        let outcome = [(3, &lanes[0]), (3, &lanes[2]), (1, &lanes[1])];
        assert_eq!(repeated_lanes(&outcome), vec![("s", "main", vec![3, 3])]);
    }

    const REPEATED_DOCUMENT: &str = r#"{
  "schema_kind": "parallelism_v1",
  "options": {
    "input_format": "auto",
    "eval_tools": [
      "eval",
      "codemode",
      "code_mode"
    ],
    "max_tracked_calls": 2000,
    "max_line_bytes": 67108864,
    "max_document_bytes": 268435456,
    "since": null,
    "until": null,
    "timezone": null,
    "by": null
  },
  "inputs": [
    {
      "path": "/x/\u00e9/a.jsonl",
      "format": "claude-code",
      "lines_read": 2,
      "lines_used": 2,
      "lines_ignored": 0,
      "problems": {},
      "ignored": {},
      "notes": {},
      "error": null
    },
    {
      "path": "/x/b.jsonl",
      "format": "events",
      "lines_read": 1,
      "lines_used": 1,
      "lines_ignored": 0,
      "problems": {},
      "ignored": {},
      "notes": {},
      "error": null
    }
  ],
  "lanes": [
    {
      "path": "/x/\u00e9/a.jsonl",
      "session_id": "s",
      "lane_id": "main",
      "session_hash": "5670c45e3afbe7010be2eb56fbe6e7c38c1966aa69646deea6dc97a44def9b04",
      "clock_anomalies": 0,
      "dropped_calls": 0,
      "eval_only_duration_ms": 0.0,
      "eval_only_waves": 0,
      "incomplete_calls": 0,
      "measured_turn_duration_ms_total": 0.0,
      "mixed_waves": 0,
      "modeled_wallclock_saved_ms": 0.0,
      "non_eval_joined_calls": 0,
      "non_eval_saved_round_trips": 0,
      "non_eval_wave_size_histogram": "0:0:0:0:0:0:0:0",
      "non_eval_waves_multi": 0,
      "non_eval_waves_total": 0,
      "upper_bound_saved_ms": 0.0,
      "observed_calls": 1,
      "paired_calls": 0,
      "malformed_observations": 0,
      "duplicate_starts": 0,
      "orphan_ends": 0,
      "eval_outer_joined_calls": 0,
      "mixed_non_eval_joined_calls": 0,
      "tool_time_ms": 0.0,
      "calls_without_batch": 0,
      "batched_turns": 0,
      "multi_call_turns": 0,
      "turn_width_histogram": "0:0:0:0:0:0:0:0",
      "max_turn_width": 0,
      "missed_batch_runs": 0,
      "missed_batch_calls": 0,
      "missed_batch_round_trips": 0,
      "missed_batch_upper_ms": 0.0,
      "lane_span_ms": 0.0,
      "tool_busy_ms": 0.0,
      "idle_ms": 0.0,
      "calls_timed_by_execution": 0,
      "calls_timed_by_message": 0,
      "waves_total": 0
    },
    {
      "path": "/x/b.jsonl",
      "session_id": "s",
      "lane_id": "main",
      "session_hash": "5670c45e3afbe7010be2eb56fbe6e7c38c1966aa69646deea6dc97a44def9b04",
      "clock_anomalies": 0,
      "dropped_calls": 0,
      "eval_only_duration_ms": 0.0,
      "eval_only_waves": 0,
      "incomplete_calls": 0,
      "measured_turn_duration_ms_total": 0.0,
      "mixed_waves": 0,
      "modeled_wallclock_saved_ms": 0.0,
      "non_eval_joined_calls": 0,
      "non_eval_saved_round_trips": 0,
      "non_eval_wave_size_histogram": "0:0:0:0:0:0:0:0",
      "non_eval_waves_multi": 0,
      "non_eval_waves_total": 0,
      "upper_bound_saved_ms": 0.0,
      "observed_calls": 2,
      "paired_calls": 0,
      "malformed_observations": 0,
      "duplicate_starts": 0,
      "orphan_ends": 0,
      "eval_outer_joined_calls": 0,
      "mixed_non_eval_joined_calls": 0,
      "tool_time_ms": 0.0,
      "calls_without_batch": 0,
      "batched_turns": 0,
      "multi_call_turns": 0,
      "turn_width_histogram": "0:0:0:0:0:0:0:0",
      "max_turn_width": 0,
      "missed_batch_runs": 0,
      "missed_batch_calls": 0,
      "missed_batch_round_trips": 0,
      "missed_batch_upper_ms": 0.0,
      "lane_span_ms": 0.0,
      "tool_busy_ms": 0.0,
      "idle_ms": 0.0,
      "calls_timed_by_execution": 0,
      "calls_timed_by_message": 0,
      "waves_total": 0
    },
    {
      "path": "/x/b.jsonl",
      "session_id": "t",
      "lane_id": "main",
      "session_hash": "8744191998d9129991bd93268a2b85b950560fb1db421cdbff577276217533ee",
      "clock_anomalies": 0,
      "dropped_calls": 0,
      "eval_only_duration_ms": 0.0,
      "eval_only_waves": 0,
      "incomplete_calls": 0,
      "measured_turn_duration_ms_total": 0.0,
      "mixed_waves": 0,
      "modeled_wallclock_saved_ms": 0.0,
      "non_eval_joined_calls": 0,
      "non_eval_saved_round_trips": 0,
      "non_eval_wave_size_histogram": "0:0:0:0:0:0:0:0",
      "non_eval_waves_multi": 0,
      "non_eval_waves_total": 0,
      "upper_bound_saved_ms": 0.0,
      "observed_calls": 3,
      "paired_calls": 0,
      "malformed_observations": 0,
      "duplicate_starts": 0,
      "orphan_ends": 0,
      "eval_outer_joined_calls": 0,
      "mixed_non_eval_joined_calls": 0,
      "tool_time_ms": 0.0,
      "calls_without_batch": 0,
      "batched_turns": 0,
      "multi_call_turns": 0,
      "turn_width_histogram": "0:0:0:0:0:0:0:0",
      "max_turn_width": 0,
      "missed_batch_runs": 0,
      "missed_batch_calls": 0,
      "missed_batch_round_trips": 0,
      "missed_batch_upper_ms": 0.0,
      "lane_span_ms": 0.0,
      "tool_busy_ms": 0.0,
      "idle_ms": 0.0,
      "calls_timed_by_execution": 0,
      "calls_timed_by_message": 0,
      "waves_total": 0
    }
  ],
  "total": {
    "clock_anomalies": 0,
    "dropped_calls": 0,
    "eval_only_duration_ms": 0.0,
    "eval_only_waves": 0,
    "incomplete_calls": 0,
    "measured_turn_duration_ms_total": 0.0,
    "mixed_waves": 0,
    "modeled_wallclock_saved_ms": 0.0,
    "non_eval_joined_calls": 0,
    "non_eval_saved_round_trips": 0,
    "non_eval_wave_size_histogram": "0:0:0:0:0:0:0:0",
    "non_eval_waves_multi": 0,
    "non_eval_waves_total": 0,
    "upper_bound_saved_ms": 0.0,
    "observed_calls": 6,
    "paired_calls": 0,
    "malformed_observations": 0,
    "duplicate_starts": 0,
    "orphan_ends": 0,
    "eval_outer_joined_calls": 0,
    "mixed_non_eval_joined_calls": 0,
    "tool_time_ms": 0.0,
    "calls_without_batch": 0,
    "batched_turns": 0,
    "multi_call_turns": 0,
    "turn_width_histogram": "0:0:0:0:0:0:0:0",
    "max_turn_width": 0,
    "missed_batch_runs": 0,
    "missed_batch_calls": 0,
    "missed_batch_round_trips": 0,
    "missed_batch_upper_ms": 0.0,
    "lane_span_ms": 0.0,
    "tool_busy_ms": 0.0,
    "idle_ms": 0.0,
    "calls_timed_by_execution": 0,
    "calls_timed_by_message": 0,
    "waves_total": 0
  },
  "concentration": [],
  "skipped_files": [
    {
      "path": "/x/c.meta.json",
      "reason": "sidecar"
    }
  ],
  "repeated_lanes": [
    {
      "session_id": "s",
      "lane_id": "main",
      "paths": [
        "/x/\u00e9/a.jsonl",
        "/x/b.jsonl"
      ]
    }
  ]
}"#;

    #[test]
    fn repeated_lanes_close_the_document_after_the_skipped_files() {
        let first = account(2, 2);
        let second = account(1, 1);
        let with = |observed: u64, session: &str| {
            let mut lane = lane(0, session, "main");
            lane.summary.observed_calls = observed;
            lane
        };
        let (a, b, c) = (with(1, "s"), with(2, "s"), with(3, "t"));
        let outcome = Outcome {
            inputs: vec![
                Read {
                    file: 0,
                    format: "claude-code",
                    account: &first,
                },
                Read {
                    file: 1,
                    format: "events",
                    account: &second,
                },
            ],
            lanes: vec![(0, &a), (1, &b), (1, &c)],
        };
        let paths = ["/x/é/a.jsonl", "/x/b.jsonl"];
        let skipped = [("/x/c.meta.json".to_string(), "sidecar".to_string())];
        let document = render(&paths, &outcome, &skipped, OPTIONS, 1).unwrap();
        assert_eq!(
            String::from_utf8(document.json).unwrap(),
            format!("{REPEATED_DOCUMENT}\n")
        );
        // without skipped files: the same document without that member
        let skipped_member = concat!(
            "\n  \"skipped_files\": [\n",
            "    {\n",
            "      \"path\": \"/x/c.meta.json\",\n",
            "      \"reason\": \"sidecar\"\n",
            "    }\n",
            "  ],",
        );
        assert!(REPEATED_DOCUMENT.contains(skipped_member));
        let document = render(&paths, &outcome, &[], OPTIONS, 1).unwrap();
        assert_eq!(
            String::from_utf8(document.json).unwrap(),
            format!("{}\n", REPEATED_DOCUMENT.replace(skipped_member, ""))
        );
    }

    /// The reference run of two `events` logs of one default session id, `run`, in
    /// two folders (p2's first): one lane read from both.
    const REPEATED_RUN: &str = r#"{
  "schema_kind": "parallelism_v1",
  "options": {
    "input_format": "auto",
    "eval_tools": [
      "eval",
      "codemode",
      "code_mode"
    ],
    "max_tracked_calls": 2000,
    "max_line_bytes": 67108864,
    "max_document_bytes": 268435456,
    "since": null,
    "until": null,
    "timezone": null,
    "by": null
  },
  "inputs": [
    {
      "path": "/tmp/wmref2/p2/run.jsonl",
      "format": "events",
      "lines_read": 2,
      "lines_used": 2,
      "lines_ignored": 0,
      "problems": {},
      "ignored": {},
      "notes": {},
      "error": null
    },
    {
      "path": "/tmp/wmref2/p1/run.jsonl",
      "format": "events",
      "lines_read": 2,
      "lines_used": 2,
      "lines_ignored": 0,
      "problems": {},
      "ignored": {},
      "notes": {},
      "error": null
    }
  ],
  "lanes": [
    {
      "path": "/tmp/wmref2/p2/run.jsonl",
      "session_id": "run",
      "lane_id": "main",
      "session_hash": "c7fa3bf64a7cb870b4f69121b37273670f5f880e65224e8eccaccbae4b0fa7e9",
      "clock_anomalies": 0,
      "dropped_calls": 0,
      "eval_only_duration_ms": 0.0,
      "eval_only_waves": 0,
      "incomplete_calls": 0,
      "measured_turn_duration_ms_total": 0.0,
      "mixed_waves": 0,
      "modeled_wallclock_saved_ms": 0.0,
      "non_eval_joined_calls": 1,
      "non_eval_saved_round_trips": 0,
      "non_eval_wave_size_histogram": "1:0:0:0:0:0:0:0",
      "non_eval_waves_multi": 0,
      "non_eval_waves_total": 1,
      "upper_bound_saved_ms": 0.0,
      "observed_calls": 1,
      "paired_calls": 1,
      "malformed_observations": 0,
      "duplicate_starts": 0,
      "orphan_ends": 0,
      "eval_outer_joined_calls": 0,
      "mixed_non_eval_joined_calls": 0,
      "tool_time_ms": 500.0,
      "calls_without_batch": 1,
      "batched_turns": 0,
      "multi_call_turns": 0,
      "turn_width_histogram": "0:0:0:0:0:0:0:0",
      "max_turn_width": 0,
      "missed_batch_runs": 0,
      "missed_batch_calls": 0,
      "missed_batch_round_trips": 0,
      "missed_batch_upper_ms": 0.0,
      "lane_span_ms": 500.0,
      "tool_busy_ms": 500.0,
      "idle_ms": 0.0,
      "calls_timed_by_execution": 1,
      "calls_timed_by_message": 0,
      "waves_total": 1
    },
    {
      "path": "/tmp/wmref2/p1/run.jsonl",
      "session_id": "run",
      "lane_id": "main",
      "session_hash": "c7fa3bf64a7cb870b4f69121b37273670f5f880e65224e8eccaccbae4b0fa7e9",
      "clock_anomalies": 0,
      "dropped_calls": 0,
      "eval_only_duration_ms": 0.0,
      "eval_only_waves": 0,
      "incomplete_calls": 0,
      "measured_turn_duration_ms_total": 0.0,
      "mixed_waves": 0,
      "modeled_wallclock_saved_ms": 0.0,
      "non_eval_joined_calls": 1,
      "non_eval_saved_round_trips": 0,
      "non_eval_wave_size_histogram": "1:0:0:0:0:0:0:0",
      "non_eval_waves_multi": 0,
      "non_eval_waves_total": 1,
      "upper_bound_saved_ms": 0.0,
      "observed_calls": 1,
      "paired_calls": 1,
      "malformed_observations": 0,
      "duplicate_starts": 0,
      "orphan_ends": 0,
      "eval_outer_joined_calls": 0,
      "mixed_non_eval_joined_calls": 0,
      "tool_time_ms": 300.0,
      "calls_without_batch": 1,
      "batched_turns": 0,
      "multi_call_turns": 0,
      "turn_width_histogram": "0:0:0:0:0:0:0:0",
      "max_turn_width": 0,
      "missed_batch_runs": 0,
      "missed_batch_calls": 0,
      "missed_batch_round_trips": 0,
      "missed_batch_upper_ms": 0.0,
      "lane_span_ms": 300.0,
      "tool_busy_ms": 300.0,
      "idle_ms": 0.0,
      "calls_timed_by_execution": 1,
      "calls_timed_by_message": 0,
      "waves_total": 1
    }
  ],
  "total": {
    "clock_anomalies": 0,
    "dropped_calls": 0,
    "eval_only_duration_ms": 0.0,
    "eval_only_waves": 0,
    "incomplete_calls": 0,
    "measured_turn_duration_ms_total": 0.0,
    "mixed_waves": 0,
    "modeled_wallclock_saved_ms": 0.0,
    "non_eval_joined_calls": 2,
    "non_eval_saved_round_trips": 0,
    "non_eval_wave_size_histogram": "2:0:0:0:0:0:0:0",
    "non_eval_waves_multi": 0,
    "non_eval_waves_total": 2,
    "upper_bound_saved_ms": 0.0,
    "observed_calls": 2,
    "paired_calls": 2,
    "malformed_observations": 0,
    "duplicate_starts": 0,
    "orphan_ends": 0,
    "eval_outer_joined_calls": 0,
    "mixed_non_eval_joined_calls": 0,
    "tool_time_ms": 800.0,
    "calls_without_batch": 2,
    "batched_turns": 0,
    "multi_call_turns": 0,
    "turn_width_histogram": "0:0:0:0:0:0:0:0",
    "max_turn_width": 0,
    "missed_batch_runs": 0,
    "missed_batch_calls": 0,
    "missed_batch_round_trips": 0,
    "missed_batch_upper_ms": 0.0,
    "lane_span_ms": 800.0,
    "tool_busy_ms": 800.0,
    "idle_ms": 0.0,
    "calls_timed_by_execution": 2,
    "calls_timed_by_message": 0,
    "waves_total": 2
  },
  "concentration": [],
  "repeated_lanes": [
    {
      "session_id": "run",
      "lane_id": "main",
      "paths": [
        "/tmp/wmref2/p2/run.jsonl",
        "/tmp/wmref2/p1/run.jsonl"
      ]
    }
  ]
}"#;

    #[test]
    fn the_files_no_folded_read_found_a_format_for_are_listed_in_walk_order() {
        let fold = |found: Vec<Option<Detected>>| FoldOut {
            found,
            claude: None,
            alone: Vec::new(),
            folders: Vec::new(),
        };
        let outs = [
            fold(vec![None, Some(Detected::ClaudeCode), None]),
            fold(vec![Some(Detected::Events)]),
            fold(vec![None]),
        ];
        let groups = [vec![4, 0, 2], vec![1], vec![3]];
        assert_eq!(undetected(&groups, &outs), [2, 3, 4]);
        assert_eq!(undetected(&groups[1..2], &outs[1..2]), Vec::<usize>::new());
    }

    /// Each lane's waves take the next `size` calls of its waves' calls, in order; a
    /// lane without exact records, or whose waves and calls do not match, declines.
    #[test]
    fn wave_rows_are_written_as_json_dumps_indents_them() {
        use crate::summary::{Bucket, WaveCall, WaveShape};
        let call = |name: &str| WaveCall {
            call_id: "c".into(),
            tool_name: name.into(),
            start_ms: 0.0,
            end_ms: 1.0,
            duration_ms: 1.0,
            multi: false,
            eval_or_mixed: false,
        };
        let shape = |start_ms: f64, bucket: Bucket, saved_ms: f64| WaveShape {
            size: 2,
            start_ms,
            span_ms: 2.0,
            max_concurrency: 2,
            bucket,
            saved_ms,
        };
        let lane = |session_id: &str, lane_id: &str, waves| LaneWaves {
            session_id: session_id.into(),
            lane_id: lane_id.into(),
            waves,
        };
        // 1700000000123.5 ms: 2023-11-14T22:13:20.123 (19675 days + 80000 s)
        let first = vec![
            (
                shape(1_700_000_000_123.5, Bucket::NonEval, 0.25),
                vec![call("R\u{2028}ead"), call("\u{1b}")],
            ),
            (
                shape(f64::INFINITY, Bucket::EvalOnly, f64::NAN),
                vec![call("eval")],
            ),
        ];
        let table: WaveTable = vec![
            lane("s\u{e9}", "main", first),
            lane("t", "l", Vec::new()),
            lane(
                "u",
                "m",
                vec![(shape(-1e300, Bucket::Mixed, 1e20), vec![call("x")])],
            ),
        ];
        let text = String::from_utf8(wave_rows_json(&table)).unwrap();
        let row = |session: &str,
                   lane: &str,
                   wave: &str,
                   start: &str,
                   iso: &str,
                   names: &str,
                   bucket: &str,
                   saved: &str| {
            format!(
                "    {{\n      \"session_id\": {session},\n      \"lane_id\": {lane},\n      \
                 \"wave\": {wave},\n      \"start_ms\": {start},\n      \"start\": {iso},\n      \
                 \"span_ms\": 2.0,\n      \"size\": 2,\n      \"max_concurrency\": 2,\n      \
                 \"bucket\": {bucket},\n      \"tool_names\": [\n{names}\n      ],\n      \
                 \"modeled_wallclock_saved_ms\": {saved}\n    }}"
            )
        };
        let want = [
            row(
                r#""s\u00e9""#,
                r#""main""#,
                "0",
                "1700000000123.5",
                r#""2023-11-14T22:13:20.123Z""#,
                "        \"R\\u2028ead\",\n        \"\\u001b\"",
                r#""non_eval""#,
                "0.25",
            ),
            row(
                r#""s\u00e9""#,
                r#""main""#,
                "1",
                "null",
                r#""inf ms""#,
                "        \"eval\"",
                r#""eval_only""#,
                "null",
            ),
            row(
                r#""u""#,
                r#""m""#,
                "0",
                "-1e+300",
                r#""-1e+300 ms""#,
                "        \"x\"",
                r#""mixed""#,
                "1e+20",
            ),
        ]
        .join(",\n");
        assert_eq!(text, want);
        // NaN and -inf starts are named as Python's repr names them
        let odd = |start_ms: f64| {
            let waves = vec![(shape(start_ms, Bucket::NonEval, 0.0), vec![call("x")])];
            String::from_utf8(wave_rows_json(&vec![lane("s", "l", waves)])).unwrap()
        };
        assert!(odd(f64::NAN).contains("\"start\": \"nan ms\",\n"));
        assert!(odd(f64::NEG_INFINITY).contains("\"start\": \"-inf ms\",\n"));
        // no waves: no text
        assert_eq!(wave_rows_json(&vec![lane("s", "l", Vec::new())]), b"");
        assert_eq!(wave_rows_json(&Vec::new()), b"");
    }

    #[test]
    fn wave_rows_are_written_as_python_s_csv_writes_them() {
        use crate::summary::{Bucket, WaveCall, WaveShape};
        let call = |id: &str, name: &str, start_ms: f64, end_ms: f64| WaveCall {
            call_id: id.into(),
            tool_name: name.into(),
            start_ms,
            end_ms,
            duration_ms: end_ms - start_ms,
            multi: false,
            eval_or_mixed: false,
        };
        let shape = |start_ms: f64, span_ms: f64, saved_ms: f64| WaveShape {
            size: 2,
            start_ms,
            span_ms,
            max_concurrency: 2,
            bucket: Bucket::NonEval,
            saved_ms,
        };
        let table: WaveTable = vec![
            LaneWaves {
                session_id: "s,1".into(),
                lane_id: "ma\"in".into(),
                waves: vec![(
                    shape(1000.0, 2.5, 0.5),
                    vec![
                        call("a\r\nb", "R\u{e9}ad", 1000.0, 1002.5),
                        call("c", "x\u{0}y\u{1f}", 1001.0, 1001.5),
                    ],
                )],
            },
            LaneWaves {
                session_id: "t".into(),
                lane_id: "l".into(),
                waves: Vec::new(),
            },
            LaneWaves {
                session_id: "u".into(),
                lane_id: "m".into(),
                waves: vec![(
                    shape(f64::INFINITY, f64::NAN, f64::NEG_INFINITY),
                    vec![call("d", "e", -1e308, 1e308)],
                )],
            },
        ];
        let text = String::from_utf8(wave_rows_csv(&table)).unwrap();
        let header = "session_id,lane_id,wave,wave_start_ms,wave_start,span_ms,size,\
                      max_concurrency,bucket,modeled_wallclock_saved_ms,call_index,call_id,\
                      tool_name,start_ms,end_ms,duration_ms\r\n";
        let wave = "\"s,1\",\"ma\"\"in\",0,1000.0,1970-01-01T00:00:01.000Z,2.5,2,2,non_eval,0.5";
        let want = [
            header.to_string(),
            format!("{wave},0,\"a\r\nb\",R\u{e9}ad,1000.0,1002.5,2.5\r\n"),
            format!("{wave},1,c,x\u{0}y\u{1f},1001.0,1001.5,0.5\r\n"),
            // figures not finite: empty; a call's times as str() writes them (inf)
            "u,m,0,,inf ms,,2,2,non_eval,,0,d,e,-1e+308,1e+308,inf\r\n".to_string(),
        ]
        .concat();
        assert_eq!(text, want);
        assert_eq!(wave_rows_csv(&Vec::new()), header.as_bytes());
    }

    #[test]
    fn waves_take_their_calls_in_order() {
        use crate::summary::{Bucket, LaneRecords, WaveCall, WaveShape};
        let call = |id: &str, start_ms: f64, end_ms: f64| WaveCall {
            call_id: id.into(),
            tool_name: "Read".into(),
            start_ms,
            end_ms,
            duration_ms: end_ms - start_ms,
            multi: false,
            eval_or_mixed: false,
        };
        let shape = |size: usize, start_ms: f64| WaveShape {
            size,
            start_ms,
            span_ms: 1.0,
            max_concurrency: size,
            bucket: Bucket::NonEval,
            saved_ms: 0.0,
        };
        let lane = |waves: Vec<WaveShape>, calls: Vec<WaveCall>, replaced: bool| {
            let mut out = readers::LaneOut::opened(0, "s".into(), "main".into());
            out.records = Some(Box::new(LaneRecords {
                wave_calls: calls,
                waves,
                replaced,
                ..LaneRecords::default()
            }));
            out
        };
        let calls = vec![
            call("a", 0.0, 1.0),
            call("b", 0.5, 1.0),
            call("c", 5.0, 6.0),
        ];
        let first = lane(vec![shape(2, 0.0), shape(1, 5.0)], calls.clone(), false);
        let second = lane(Vec::new(), Vec::new(), false);
        let table = wave_table(&[(0, &first), (1, &second)]).unwrap();
        let listed: Vec<Vec<(f64, Vec<&str>)>> = table
            .iter()
            .map(|lane| {
                lane.waves
                    .iter()
                    .map(|(w, calls)| (w.start_ms, calls.iter().map(|c| &*c.call_id).collect()))
                    .collect()
            })
            .collect();
        assert_eq!(
            listed,
            [vec![(0.0, vec!["a", "b"]), (5.0, vec!["c"])], Vec::new()]
        );
        // more calls than the waves hold, fewer, a name Rust text cannot hold, none kept
        let over = lane(vec![shape(2, 0.0)], calls.clone(), false);
        let under = lane(vec![shape(2, 0.0), shape(2, 5.0)], calls.clone(), false);
        let replaced = lane(vec![shape(2, 0.0), shape(1, 5.0)], calls, true);
        let bare = readers::LaneOut::opened(0, "s".into(), "main".into());
        for bad in [&over, &under, &replaced, &bare] {
            assert_eq!(
                wave_table(&[(0, &first), (0, bad)]),
                Err(Decline::ReadFailed)
            );
        }
    }

    /// Tools are counted lane by lane, wave call by wave call: each count, the
    /// durations summed in that order, each lane's tools in order of first appearance.
    #[test]
    fn tools_are_counted_in_lane_and_wave_order() {
        use crate::summary::{LaneRecords, WaveCall};
        let call = |name: &str, duration_ms: f64, multi: bool, eval_or_mixed: bool| WaveCall {
            call_id: "c".into(),
            tool_name: name.into(),
            start_ms: 0.0,
            end_ms: duration_ms,
            duration_ms,
            multi,
            eval_or_mixed,
        };
        let lane = |calls: Vec<WaveCall>| {
            let mut out = readers::LaneOut::opened(0, "s".into(), "main".into());
            out.records = Some(Box::new(LaneRecords {
                wave_calls: calls,
                ..LaneRecords::default()
            }));
            out
        };
        let first = lane(vec![
            call("eval", 0.1, false, true),
            call("read", 1.0, true, false),
            call("eval", 0.2, false, true),
        ]);
        let second = lane(vec![
            call("bash", 2.0, false, false),
            call("read", 0.5, false, true),
        ]);
        let table = tool_table(&[(0, &first), (1, &second)]).unwrap();
        let count = |name: &str, calls, multi, duration_ms, eval_or_mixed| ToolCount {
            tool_name: name.into(),
            calls,
            multi,
            duration_ms,
            eval_or_mixed,
        };
        assert_eq!(
            table.counts,
            [
                count("eval", 2, 0, 0.1 + 0.2, 2),
                count("read", 2, 1, 1.5, 1),
                count("bash", 1, 0, 2.0, 0)
            ]
        );
        assert_eq!(table.lanes, [vec![0, 1], vec![2, 1]]);
        // a lane read without its records cannot be counted
        let bare = readers::LaneOut::opened(0, "s".into(), "main".into());
        assert_eq!(tool_table(&[(0, &bare)]), Err(Decline::ReadFailed));
    }

    /// Minutes as periods: lane A's wave at 0 s and call at 90 s, lane B's call at 95 s
    /// and an end without a start at 10 ms; a period only a turn starts in is none.
    #[test]
    fn periods_cut_each_lane_and_merge_their_parts_in_lane_order() {
        use crate::summary::LaneRecords;
        let lane = |observed: &[(bool, &str, f64)], total: f64, turns: Vec<(f64, f64)>| {
            let mut out = readers::LaneOut::opened(0, "s".into(), "main".into());
            out.records = Some(Box::new(LaneRecords {
                starts: observed.iter().map(|o| o.0).collect(),
                call_ids: observed.iter().map(|o| o.1.into()).collect(),
                tool_names: observed.iter().map(|_| "bash".into()).collect(),
                at_ms: observed.iter().map(|o| o.2).collect(),
                batches: observed.iter().map(|_| None).collect(),
                turn_total_ms: total,
                turns,
                ..LaneRecords::default()
            }));
            out
        };
        let a = lane(
            &[
                (true, "a", 0.0),
                (true, "b", 500.0),
                (false, "a", 1000.0),
                (false, "b", 1500.0),
                (true, "c", 90000.0),
                (false, "c", 91000.0),
            ],
            3.0,
            vec![(0.0, 100.0)],
        );
        let b = lane(
            &[
                (true, "d", 95000.0),
                (false, "d", 96000.0),
                (false, "e", 10.0),
            ],
            0.0,
            vec![(200000.0, 201000.0)],
        );
        let mut asked: Vec<f64> = Vec::new();
        let mut minutes = |times: &[f64]| {
            asked.extend(times);
            Some(
                times
                    .iter()
                    .map(|&t| format!("m{}", (t / 60000.0) as u64))
                    .collect(),
            )
        };
        let table = period_table(&[(0, &a), (1, &b)], &settings(), &mut minutes).unwrap();
        assert_eq!(asked, [0.0, 10.0, 90000.0, 95000.0, 200000.0]);
        assert_eq!(table.labels, ["m0", "m1"]);
        assert_eq!(table.lanes, [vec![0, 1], vec![1, 0]]);
        let figure = |period: usize, name: &str| {
            let json: serde_json::Value = serde_json::from_slice(&table.figures[period]).unwrap();
            json[name].clone()
        };
        assert_eq!(figure(0, "paired_calls"), 2);
        assert_eq!(figure(1, "paired_calls"), 2);
        assert_eq!(figure(0, "non_eval_waves_multi"), 1);
        assert_eq!(figure(1, "non_eval_waves_multi"), 0);
        assert_eq!(figure(0, "measured_turn_duration_ms_total"), 3.0);
        assert_eq!(figure(1, "measured_turn_duration_ms_total"), 0.0);
        assert_eq!(figure(0, "modeled_wallclock_saved_ms"), 500.0);
        // labels that do not fit the times, and a lane without records: declined
        let mut none = |_: &[f64]| None;
        assert_eq!(
            period_table(&[(0, &a)], &settings(), &mut none),
            Err(Decline::ReadFailed)
        );
        let mut short = |times: &[f64]| Some(vec!["x".to_string(); times.len() - 1]);
        assert_eq!(
            period_table(&[(0, &a)], &settings(), &mut short),
            Err(Decline::ReadFailed)
        );
        let bare = readers::LaneOut::opened(0, "s".into(), "main".into());
        let mut any = |times: &[f64]| Some(vec!["x".to_string(); times.len()]);
        assert_eq!(
            period_table(&[(0, &bare)], &settings(), &mut any),
            Err(Decline::ReadFailed)
        );
    }

    #[test]
    fn each_format_has_the_registry_s_name() {
        let names: Vec<&str> = (0..10)
            .map(|code| format_name(Format::from_code(code).unwrap()))
            .collect();
        assert_eq!(
            names,
            [
                "events",
                "claude-code",
                "codex",
                "pi",
                "copilot",
                "kimi",
                "openclaw",
                "mcode",
                "otlp",
                "otel-spans"
            ]
        );
    }

    /// A Copilot session beside an events log: the folded read finds no format for it,
    /// the registry plans its unit (`plan_others`), and the extension reads it with the
    /// Copilot reader, in walk order among the others; with no plan the run is declined.
    #[test]
    fn files_of_other_formats_are_read_as_their_planned_units() {
        let copilot = concat!(
            r#"{"id":"e1","parentId":"e0","timestamp":"2026-12-03T10:00:01.000Z","type":"tool.execution_start","data":{"toolCallId":"k1","toolName":"bash"}}"#,
            "\n",
            r#"{"id":"e2","parentId":"e1","timestamp":"2026-12-03T10:00:01.500Z","type":"tool.execution_start","data":{"toolCallId":"k2","toolName":"view"}}"#,
            "\n",
            r#"{"id":"e3","parentId":"e2","timestamp":"2026-12-03T10:00:03.000Z","type":"tool.execution_complete","data":{"toolCallId":"k1","success":true}}"#,
            "\n",
            r#"{"id":"e4","parentId":"e3","timestamp":"2026-12-03T10:00:04.000Z","type":"tool.execution_complete","data":{"toolCallId":"k2","success":true}}"#,
            "\n",
        );
        let (_tree, paths) = beside_an_events_log("others", "c", "events.jsonl", copilot, "events");
        let files = command_files(&paths);
        let lists = sniffer_lists();
        let sniffers = lists.sniffers();
        let progress = Progress::new(vec![100, 20]);
        let mut asked = Vec::new();
        let (document, formats) = summarize_then(
            &files,
            &[],
            OPTIONS,
            &sniffers,
            &settings(),
            2,
            Some(&progress),
            None,
            By::Lanes,
            |rest| {
                asked.extend_from_slice(rest);
                Some(vec![Other::Unit(OtherUnit {
                    format: Format::Copilot,
                    files: vec![0],
                    session_ids: vec!["sess".into()],
                })])
            },
            |inputs, lanes, _| {
                let formats: Vec<String> = inputs.iter().map(|i| i.format.clone()).collect();
                let sessions: Vec<String> = lanes.iter().map(|l| l.session_id.clone()).collect();
                (formats, sessions)
            },
        )
        .unwrap();
        assert_eq!(asked, [0]);
        assert_eq!(
            formats,
            (
                vec!["copilot".to_string(), "events".to_string()],
                vec!["sess".to_string(), "run".to_string()]
            )
        );
        // each file counted once, by the folded read that looked at it first
        assert_eq!(progress.done(), (2, 120));
        let json = String::from_utf8(document.json).unwrap();
        // the Copilot lane: two calls, [1.0 s, 3.0 s] and [1.5 s, 4.0 s], one wave:
        // 2.0 s + 2.5 s of calls in a span of 3.0 s
        let saved: Vec<&str> = json
            .match_indices("\"modeled_wallclock_saved_ms\": ")
            .map(|(at, key)| json[at + key.len()..].split(',').next().unwrap())
            .collect();
        // the Copilot lane, the events lane (one call), the total
        assert_eq!(saved, ["1500.0", "0.0", "1500.0"]);
        // no plan: the run is the CLI's, named by the first file it could not place
        let declined = summarize_then(
            &files,
            &[],
            OPTIONS,
            &sniffers,
            &settings(),
            2,
            None,
            None,
            By::Lanes,
            |_| None,
            |_, _, _| (),
        );
        assert_eq!(declined.err(), Some(Decline::NotNative(0)));
        // a plan that leaves a file out declines it too
        let partial = summarize_then(
            &files,
            &[],
            OPTIONS,
            &sniffers,
            &settings(),
            2,
            None,
            None,
            By::Lanes,
            |_| Some(Vec::new()),
            |_, _, _| (),
        );
        assert_eq!(partial.err(), Some(Decline::NotNative(0)));
    }

    /// A folder (`name`: each test its own, as tests run at once) of an `events` log
    /// and a file the folded read finds no format for, summarised with `by`, the latter
    /// planned as a `qwen` unit read elsewhere as `out`.
    fn summarize_elsewhere(name: &str, by: By<'_>, out: UnitOut) -> Result<Document, Decline> {
        let plan = vec![Other::Read {
            format: "qwen".into(),
            files: vec![0],
            out,
        }];
        summarize_planned(name, by, plan, &[]).map(|(document, _)| document)
    }

    /// The tree of [`summarize_elsewhere`] (`name`), its unplaced file planned as
    /// `plan`, with the sidecars `skipped`; with the tree's folder.
    fn summarize_planned(
        name: &str,
        by: By<'_>,
        plan: Vec<Other>,
        skipped: &[(String, String)],
    ) -> Result<(Document, String), Decline> {
        let text = "{\"kind\":\"other\"}\n";
        let (tree, paths) = beside_an_events_log(name, "q", "chat.jsonl", text, "chat");
        let dir = tree.text();
        let files = command_files(&paths);
        let lists = sniffer_lists();
        let sniffers = lists.sniffers();
        summarize_then(
            &files,
            skipped,
            OPTIONS,
            &sniffers,
            &settings(),
            2,
            None,
            None,
            by,
            |rest| {
                assert_eq!(rest, [0]);
                Some(plan)
            },
            |_, _, _| (),
        )
        .map(|(document, ())| (document, dir))
    }

    /// Each lane of `document`'s facts as `(file, session id)`.
    fn lane_sessions(document: &Document) -> Vec<(usize, &str)> {
        document
            .lanes
            .iter()
            .map(|l| (l.file, l.session_id.as_str()))
            .collect()
    }

    /// A file the registry finds no trace in, found by a folder walk, is skipped as the
    /// CLI skips it: no input, a member of `skipped_files` among the sidecars in path
    /// order; the document is the `events` log's alone.
    #[test]
    fn a_file_passed_over_is_listed_with_the_skipped_sidecars() {
        let sidecars = [
            ("/a/first.meta.json".to_string(), "sidecar".to_string()),
            ("/zz/last.meta.json".to_string(), "sidecar".to_string()),
        ];
        let plan = vec![Other::Skip {
            file: 0,
            reason: "not a trace".into(),
        }];
        let (document, dir) = summarize_planned("passed-over", By::Lanes, plan, &sidecars).unwrap();
        assert_eq!(document.inputs, vec![fact("events", 2, 2, 0, &[])]);
        assert_eq!(lane_sessions(&document), [(1, "run")]);
        let json = String::from_utf8(document.json).unwrap();
        let inputs = format!("\"inputs\": [\n    {{\n      \"path\": \"{dir}/e/run.jsonl\",");
        assert!(json.contains(&inputs), "{json}");
        let skipped = format!(
            concat!(
                "  \"skipped_files\": [\n",
                "    {{\n      \"path\": \"/a/first.meta.json\",\n      \"reason\": \"sidecar\"\n    }},\n",
                "    {{\n      \"path\": \"{}/q/chat.jsonl\",\n      \"reason\": \"not a trace\"\n    }},\n",
                "    {{\n      \"path\": \"/zz/last.meta.json\",\n      \"reason\": \"sidecar\"\n    }}\n",
                "  ]\n}}\n"
            ),
            dir
        );
        assert!(json.ends_with(&skipped), "{json}");
        // a file neither placed nor passed over still declines the run
        let none = summarize_planned("passed-over-none", By::Lanes, Vec::new(), &sidecars);
        assert_eq!(none.err(), Some(Decline::NotNative(0)));
    }

    /// `By::Groups`: the document is the `--by` document (no `skipped_files` even with
    /// a file passed over); the notes' facts are the lanes' as without `--by`.
    #[test]
    fn a_run_by_session_writes_the_by_document() {
        let plan = || {
            vec![Other::Skip {
                file: 0,
                reason: "not a trace".into(),
            }]
        };
        let by = By::Groups(Groups::Session);
        let (document, dir) = summarize_planned("by-session", by, plan(), &[]).unwrap();
        assert_eq!(lane_sessions(&document), [(1, "run")]);
        let json = String::from_utf8(document.json).unwrap();
        let head = format!(
            "  \"by\": \"session\",\n  \"inputs\": [\n    {{\n      \"path\": \"{dir}/e/run.jsonl\","
        );
        assert!(json.contains(&head), "{json}");
        assert!(
            json.contains("\n  \"groups\": [\n    {\n      \"group\": \"run\",\n      \"clock_anomalies\": 0,"),
            "{json}"
        );
        assert!(
            !json.contains("\"lanes\"") && !json.contains("skipped_files"),
            "{json}"
        );
        let (lanes_document, _) = summarize_planned("by-none", By::Lanes, plan(), &[]).unwrap();
        assert!(String::from_utf8(lanes_document.json)
            .unwrap()
            .contains("skipped_files"));
    }

    /// A unit read elsewhere with its lane's observations (a run that needs each lane's
    /// calls: `--by tool`) is summarised here as a batch read of them: c1 (bash) on
    /// [1.0 s, 3.0 s] and c2 (read) on [1.5 s, 4.0 s] are one wave, 4.5 s of calls in a
    /// span of 3.0 s, so 1500 ms saved; the figures handed over (none) are replaced.
    #[test]
    fn a_lane_read_elsewhere_with_its_calls_is_summarised_here() {
        let records = |ends: [f64; 2]| LaneRecords {
            starts: vec![true, true, false, false],
            call_ids: ["c1", "c2", "c1", "c2"].map(Box::from).to_vec(),
            tool_names: ["bash", "read", "bash", "read"].map(Box::from).to_vec(),
            at_ms: vec![1000.0, 1500.0, ends[0], ends[1]],
            batches: vec![None; 4],
            ..LaneRecords::default()
        };
        let unit = |records: LaneRecords| {
            let mut account = LineAccount::default();
            (account.lines_read, account.lines_used) = (4, 4);
            UnitOut {
                accounts: vec![account],
                lanes: vec![readers::LaneOut {
                    file: 0,
                    session_id: "q1".into(),
                    lane_id: "main".into(),
                    summary: Summary::default(),
                    records: Some(Box::new(records)),
                }],
                read_again_in_batch: false,
            }
        };
        let document =
            summarize_elsewhere("calls", By::Tool, unit(records([3000.0, 4000.0]))).unwrap();
        let json = String::from_utf8(document.json).unwrap();
        let saved: Vec<&str> = json
            .match_indices("\"modeled_wallclock_saved_ms\": ")
            .map(|(at, key)| json[at + key.len()..].split(',').next().unwrap())
            .collect();
        assert_eq!(saved, ["1500.0", "0.0", "1500.0"]);
        let tools = document.tools.unwrap();
        let counts: Vec<(&str, u64, u64, f64)> = tools
            .counts
            .iter()
            .map(|t| (t.tool_name.as_str(), t.calls, t.multi, t.duration_ms))
            .collect();
        assert_eq!(
            counts,
            [
                ("bash", 1, 1, 2000.0),
                ("read", 1, 1, 2500.0),
                ("grep", 1, 0, 300.0)
            ]
        );
        assert_eq!(tools.lanes, [vec![0, 1], vec![2]]);
        // an end before its start is a clock anomaly (section 1), not a refusal
        let odd =
            summarize_elsewhere("calls-odd", By::Tool, unit(records([500.0, 4000.0]))).unwrap();
        let json = String::from_utf8(odd.json).unwrap();
        assert!(json.contains("\"clock_anomalies\": 1"), "{json}");
    }

    /// A file of a format the extension has no reader for, read by the Python readers
    /// and handed over whole (`Other::Read`): it is placed at its walk index with its
    /// format's name, its named problems and notes, and its lane merged in lane order.
    #[test]
    fn a_unit_read_elsewhere_is_placed_and_merged_as_read() {
        let mut account = LineAccount::default();
        (account.lines_read, account.lines_used) = (5, 2);
        account.add_ignored(b"meta", 2);
        account.problem_named("invalid_row", 1);
        account.note_named("repeated_block", 3);
        let summary = Summary {
            paired_calls: 2,
            observed_calls: 2,
            modeled_wallclock_saved_ms: 250.0,
            ..Summary::default()
        };
        let out = UnitOut {
            accounts: vec![account],
            lanes: vec![readers::LaneOut {
                file: 0,
                session_id: "q1".into(),
                lane_id: "main".into(),
                summary,
                records: None,
            }],
            read_again_in_batch: false,
        };
        let document = summarize_elsewhere("figures", By::Lanes, out).unwrap();
        assert_eq!(
            document.inputs,
            vec![
                fact("qwen", 5, 2, 2, &[("invalid_row", 1)]),
                fact("events", 2, 2, 0, &[]),
            ]
        );
        let sessions: Vec<&str> = document
            .lanes
            .iter()
            .map(|l| l.session_id.as_str())
            .collect();
        assert_eq!(sessions, ["q1", "run"]);
        let json = String::from_utf8(document.json).unwrap();
        assert!(json.contains(concat!(
            "\"format\": \"qwen\",\n      \"lines_read\": 5,\n      \"lines_used\": 2,\n",
            "      \"lines_ignored\": 2,\n      \"problems\": {\n        \"invalid_row\": 1\n      },\n",
            "      \"ignored\": {\n        \"meta\": 2\n      },\n",
            "      \"notes\": {\n        \"repeated_block\": 3\n      },"
        )), "{json}");
        let saved: Vec<&str> = json
            .match_indices("\"modeled_wallclock_saved_ms\": ")
            .map(|(at, key)| json[at + key.len()..].split(',').next().unwrap())
            .collect();
        // the lane read elsewhere, the events lane (one call), the total
        assert_eq!(saved, ["250.0", "0.0", "250.0"]);
        let paired: Vec<&str> = json
            .match_indices("\"paired_calls\": ")
            .map(|(at, key)| json[at + key.len()..].split(',').next().unwrap())
            .collect();
        assert_eq!(paired, ["2", "1", "3"]);
    }

    /// Two events logs in two folders, read with a `--since`/`--until` window: the
    /// document's lanes are those cut to it (each summarised again), the notes' facts
    /// those read, and a window that keeps no wave says what it left out.
    #[test]
    fn a_window_cuts_each_lane_and_says_what_it_left_out() {
        let tree = TempTree::new("window");
        let dir = tree.text();
        let logs = [
            (
                "p1",
                "run",
                concat!(
                    r#"{"type":"tool_execution_start","toolCallId":"e1","toolName":"grep","timestamp":1000}"#,
                    "\n",
                    r#"{"type":"tool_execution_start","toolCallId":"e2","toolName":"read","timestamp":1100}"#,
                    "\n",
                    r#"{"type":"tool_execution_end","toolCallId":"e1","timestamp":1300}"#,
                    "\n",
                    r#"{"type":"tool_execution_end","toolCallId":"e2","timestamp":1600}"#,
                    "\n",
                    r#"{"type":"tool_execution_start","toolCallId":"e3","toolName":"read","timestamp":5000}"#,
                    "\n",
                    r#"{"type":"tool_execution_end","toolCallId":"e3","timestamp":5100}"#,
                    "\n",
                ),
            ),
            (
                "p2",
                "other",
                concat!(
                    r#"{"type":"tool_execution_start","toolCallId":"f1","toolName":"bash","timestamp":2000}"#,
                    "\n",
                    r#"{"type":"tool_execution_end","toolCallId":"f1","timestamp":2500}"#,
                    "\n",
                ),
            ),
            (
                "p3",
                "idle",
                concat!(
                    r#"{"type":"tool_execution_start","toolCallId":"g1","toolName":"bash","timestamp":8000}"#,
                    "\n",
                ),
            ),
        ];
        let mut paths = Vec::new();
        for (folder, stem, text) in logs {
            std::fs::create_dir_all(tree.0.join(folder)).unwrap();
            std::fs::write(tree.0.join(folder).join(format!("{stem}.jsonl")), text).unwrap();
            paths.push((format!("{dir}/{folder}/{stem}.jsonl"), stem));
        }
        let files: Vec<CommandFile> = paths
            .iter()
            .enumerate()
            .map(|(group, (path, stem))| CommandFile {
                path,
                claude_fallback: stem,
                events_default: stem,
                group,
            })
            .collect();
        let lists = sniffer_lists();
        let sniffers = lists.sniffers();
        let run = |since_ms: Option<f64>, until_ms: Option<f64>| {
            let window = Window { since_ms, until_ms };
            summarize_then(
                &files,
                &[],
                OPTIONS,
                &sniffers,
                &settings(),
                2,
                None,
                Some(&window),
                By::Lanes,
                |_| None,
                |inputs, lanes, loss| (inputs.len(), lanes.len(), loss),
            )
            .unwrap()
        };
        let lanes_of = |document: &Document| {
            let json = String::from_utf8(document.json.clone()).unwrap();
            let lanes = json.split("\"total\"").next().unwrap().to_string();
            let sessions = lanes.matches("\"session_id\": ").count();
            let paired: Vec<String> = lanes
                .match_indices("\"paired_calls\": ")
                .map(|(at, key)| {
                    lanes[at + key.len()..]
                        .split(',')
                        .next()
                        .unwrap()
                        .to_string()
                })
                .collect();
            (sessions, paired)
        };
        // the wave of e1 and e2 starts at 1000: wholly out of a window since 1050
        let (document, facts) = run(Some(1050.0), None);
        assert_eq!(facts, (3, 3, None));
        assert_eq!(
            lanes_of(&document),
            (3, vec!["1".into(), "1".into(), "0".into()])
        );
        // until 2000: the run's first wave (two calls) alone; f1 starts at the bound
        let (document, facts) = run(None, Some(2000.0));
        assert_eq!(facts, (3, 3, None));
        assert_eq!(lanes_of(&document), (1, vec!["2".into()]));
        let json = String::from_utf8(document.json).unwrap();
        assert!(json.contains("\"session_id\": \"run\""));
        assert!(json.contains("\"modeled_wallclock_saved_ms\": 200.0"));
        // nothing kept: no lane, and what the window left out (three waves of four
        // calls in two lanes: the third has none); the notes' facts are still of the
        // three lanes read
        let (document, facts) = run(Some(6000.0), Some(7000.0));
        let loss = WindowLoss {
            waves: 3,
            paired_calls: 4,
            lanes: 2,
        };
        assert_eq!(facts, (3, 3, Some(loss)));
        assert_eq!(lanes_of(&document), (0, vec![]));
        // a lane kept without a wave (a start that never ended) says so too
        let (document, facts) = run(Some(7000.0), Some(9000.0));
        assert_eq!(facts, (3, 3, Some(loss)));
        assert_eq!(lanes_of(&document), (1, vec!["0".into()]));
        // a lane with a wave kept: nothing is said to be left out
        assert_eq!(run(Some(5000.0), Some(5001.0)).1 .2, None);
        // `--by tool`: each tool's calls, multi-call calls, durations and eval calls,
        // tools in order of first appearance, and each lane's tools
        let tools_of = |window: Option<&Window>| {
            summarize_then(
                &files,
                &[],
                OPTIONS,
                &sniffers,
                &settings(),
                2,
                None,
                window,
                By::Tool,
                |_| None,
                |_, _, _| (),
            )
            .unwrap()
            .0
            .tools
            .unwrap()
        };
        let count = |name: &str, calls, multi, duration_ms, eval_or_mixed| ToolCount {
            tool_name: name.into(),
            calls,
            multi,
            duration_ms,
            eval_or_mixed,
        };
        let whole = tools_of(None);
        assert_eq!(
            whole.counts,
            [
                count("grep", 1, 1, 300.0, 0),
                count("read", 2, 1, 600.0, 0),
                count("bash", 1, 0, 500.0, 0)
            ]
        );
        assert_eq!(whole.lanes, [vec![0, 1], vec![2], vec![]]);
        // cut by a window first: the part's waves alone
        let cut = tools_of(Some(&Window {
            since_ms: Some(1050.0),
            until_ms: None,
        }));
        assert_eq!(
            cut.counts,
            [count("read", 1, 0, 100.0, 0), count("bash", 1, 0, 500.0, 0)]
        );
        assert_eq!(cut.lanes, [vec![0], vec![1], vec![]]);
        // a read without a wave has nothing a window could leave out
        let window = Window {
            since_ms: Some(0.0),
            until_ms: Some(1.0),
        };
        let idle = summarize_then(
            &files[2..],
            &[],
            OPTIONS,
            &sniffers,
            &settings(),
            2,
            None,
            Some(&window),
            By::Lanes,
            |_| None,
            |_, lanes, loss| (lanes.len(), loss),
        );
        assert_eq!(idle.unwrap().1, (1, None));
        // a tool name with U+FFFD, which the readers also make of what Rust text cannot
        // hold (a lone surrogate): the records may not be Python's, so a window over
        // them is the Python command's
        std::fs::write(
            tree.0.join("p1").join("run.jsonl"),
            concat!(
                r#"{"type":"assistant","uuid":"00000000-0000-4000-8000-000000000001","sessionId":"s1","timestamp":"2025-01-01T00:00:00.000Z","message":{"content":[{"type":"tool_use","id":"t1","name":"gr\ufffdep","input":{}}]}}"#,
                "\n",
                r#"{"type":"user","uuid":"00000000-0000-4000-8000-000000000002","sessionId":"s1","timestamp":"2025-01-01T00:00:01.500Z","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}}"#,
                "\n",
            ),
        )
        .unwrap();
        let window = Window {
            since_ms: Some(0.0),
            until_ms: None,
        };
        let declined = summarize_then(
            &files[..1],
            &[],
            OPTIONS,
            &sniffers,
            &settings(),
            2,
            None,
            Some(&window),
            By::Lanes,
            |_| None,
            |_, _, _| (),
        );
        assert_eq!(declined.err(), Some(Decline::ReadFailed));
        let by_tool = summarize_then(
            &files[..1],
            &[],
            OPTIONS,
            &sniffers,
            &settings(),
            2,
            None,
            None,
            By::Tool,
            |_| None,
            |_, _, _| (),
        );
        assert_eq!(by_tool.err(), Some(Decline::ReadFailed));
        assert!(summarize(&files[..1], &[], OPTIONS, &sniffers, &settings(), 2).is_ok());
    }

    #[test]
    fn summarize_lists_a_lane_read_from_two_inputs() {
        let tree = TempTree::new("repeated");
        let dir = tree.text();
        let logs = [
            (
                "p2",
                concat!(
                    r#"{"type":"tool_execution_start","toolCallId":"e1","toolName":"grep","timestamp":2000}"#,
                    "\n",
                    r#"{"type":"tool_execution_end","toolCallId":"e1","timestamp":2500}"#,
                    "\n",
                ),
            ),
            (
                "p1",
                concat!(
                    r#"{"type":"tool_execution_start","toolCallId":"e1","toolName":"grep","timestamp":1000}"#,
                    "\n",
                    r#"{"type":"tool_execution_end","toolCallId":"e1","timestamp":1300}"#,
                    "\n",
                ),
            ),
        ];
        let mut paths = Vec::new();
        for (folder, text) in logs {
            std::fs::create_dir_all(tree.0.join(folder)).unwrap();
            std::fs::write(tree.0.join(folder).join("run.jsonl"), text).unwrap();
            paths.push(format!("{dir}/{folder}/run.jsonl"));
        }
        let files: Vec<CommandFile> = paths
            .iter()
            .enumerate()
            .map(|(group, path)| CommandFile {
                path,
                claude_fallback: "run",
                events_default: "run",
                group,
            })
            .collect();
        let lists = sniffer_lists();
        let sniffers = lists.sniffers();
        let document = summarize(&files, &[], OPTIONS, &sniffers, &settings(), 2).unwrap();
        assert_eq!(
            String::from_utf8(document.json.clone()).unwrap(),
            format!("{}\n", REPEATED_RUN.replace("/tmp/wmref2", &dir))
        );
        // meanwhile gets the document's facts, once, and its answer comes back
        let mut calls = 0;
        let (again, answer) = summarize_then(
            &files,
            &[],
            OPTIONS,
            &sniffers,
            &settings(),
            2,
            None,
            None,
            By::Lanes,
            |_| None,
            |i, l, loss| {
                calls += 1;
                assert_eq!(loss, None);
                (i.to_vec(), l.to_vec())
            },
        )
        .unwrap();
        assert_eq!(calls, 1);
        assert_eq!(again, document);
        assert_eq!(answer, (document.inputs, document.lanes));
        // the progress counts each file read once, with the size it was given (the
        // second file has none: 0 bytes); the output does not depend on it
        let progress = Progress::new(vec![1 << 40]);
        assert_eq!(progress.done(), (0, 0));
        let (counted, ()) = summarize_then(
            &files,
            &[],
            OPTIONS,
            &sniffers,
            &settings(),
            2,
            Some(&progress),
            None,
            By::Lanes,
            |_| None,
            |_, _, _| (),
        )
        .unwrap();
        assert_eq!(counted, again);
        assert_eq!(files.len(), 2);
        assert_eq!(progress.done(), (2, 1 << 40));
    }

    #[test]
    fn progress_sums_saturate_and_sizes_past_the_list_count_nothing() {
        let progress = Progress::new(vec![3, 5, 9]);
        progress.add(&[1, 7]);
        assert_eq!(progress.done(), (2, 5));
        progress.add(&[0, 2]);
        assert_eq!(progress.done(), (4, 17));
        let huge = Progress::new(vec![u64::MAX, 1]);
        huge.add(&[0, 1]);
        assert_eq!(huge.done(), (2, u64::MAX));
    }

    #[test]
    fn groups_are_taken_largest_first_and_put_back_in_their_order() {
        // equal sizes keep their index order; 0 comes last
        assert_eq!(largest_first(&[3, 9, 3, 0, 9]), [1, 4, 0, 2, 3]);
        assert_eq!(largest_first(&[]), Vec::<usize>::new());
        assert_eq!(
            in_group_order(&[2, 0, 1], vec!["of 2", "of 0", "of 1"]),
            ["of 0", "of 1", "of 2"]
        );
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
        let (a, b, gone) = (path("a"), path("b"), path("gone"));
        std::fs::write(&a, [b'x'; 7]).unwrap();
        std::fs::write(&b, [b'y'; 30]).unwrap();
        let files = [file(&a, 0), file(&b, 0), file(&gone, 0)];
        // a file that cannot be read counts 0 bytes
        assert_eq!(
            group_bytes(&files, &[vec![0, 1], vec![2], vec![1, 2], vec![]]),
            [37, 0, 30, 0]
        );
    }

    /// Two summaries, every figure distinct (ints 1..=28 and 100 times that).
    fn two_summaries() -> (Summary, Summary) {
        let a = Summary {
            clock_anomalies: 1,
            dropped_calls: 2,
            eval_only_duration_ms: 0.5,
            eval_only_waves: 4,
            incomplete_calls: 5,
            measured_turn_duration_ms_total: 6.25,
            mixed_waves: 7,
            modeled_wallclock_saved_ms: -8.5,
            non_eval_joined_calls: 9,
            non_eval_saved_round_trips: 10,
            non_eval_wave_size_histogram: [11, 12, 13, 14, 15, 16, 17, 18],
            non_eval_waves_multi: 19,
            non_eval_waves_total: 20,
            upper_bound_saved_ms: 21.75,
            observed_calls: 22,
            paired_calls: 23,
            malformed_observations: 24,
            duplicate_starts: 25,
            orphan_ends: 26,
            eval_outer_joined_calls: 27,
            mixed_non_eval_joined_calls: 28,
            tool_time_ms: 29.125,
            calls_without_batch: 30,
            batched_turns: 31,
            multi_call_turns: 32,
            turn_width_histogram: [33, 34, 35, 36, 37, 38, 39, 40],
            max_turn_width: MaxCount(41),
            missed_batch_runs: 42,
            missed_batch_calls: 43,
            missed_batch_round_trips: 44,
            missed_batch_upper_ms: 45.5,
            lane_span_ms: 46.25,
            tool_busy_ms: 47.0,
            idle_ms: 48.75,
            calls_timed_by_execution: 49,
            calls_timed_by_message: 50,
        };
        let b = Summary {
            clock_anomalies: 100,
            dropped_calls: 200,
            eval_only_duration_ms: 0.25,
            eval_only_waves: 400,
            incomplete_calls: 500,
            measured_turn_duration_ms_total: 600.5,
            mixed_waves: 700,
            modeled_wallclock_saved_ms: 800.0,
            non_eval_joined_calls: 900,
            non_eval_saved_round_trips: 1000,
            non_eval_wave_size_histogram: [1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800],
            non_eval_waves_multi: 1900,
            non_eval_waves_total: 2000,
            upper_bound_saved_ms: 2100.0,
            observed_calls: 2200,
            paired_calls: 2300,
            malformed_observations: 2400,
            duplicate_starts: 2500,
            orphan_ends: 2600,
            eval_outer_joined_calls: 2700,
            mixed_non_eval_joined_calls: 2800,
            tool_time_ms: 2900.5,
            calls_without_batch: 3000,
            batched_turns: 3100,
            multi_call_turns: 3200,
            turn_width_histogram: [3300, 3400, 3500, 3600, 3700, 3800, 3900, 4000],
            max_turn_width: MaxCount(5),
            missed_batch_runs: 4200,
            missed_batch_calls: 4300,
            missed_batch_round_trips: 4400,
            missed_batch_upper_ms: 4500.5,
            lane_span_ms: 4600.25,
            tool_busy_ms: 4700.0,
            idle_ms: 4800.0,
            calls_timed_by_execution: 4900,
            calls_timed_by_message: 5000,
        };
        (a, b)
    }

    #[test]
    fn merge_sums_every_figure() {
        assert_eq!(merge([]), Some(Summary::default()));
        let (a, b) = two_summaries();
        assert_eq!(merge([&a]), Some(a.clone()));
        let want = Summary {
            clock_anomalies: 101,
            dropped_calls: 202,
            eval_only_duration_ms: 0.75,
            eval_only_waves: 404,
            incomplete_calls: 505,
            measured_turn_duration_ms_total: 606.75,
            mixed_waves: 707,
            modeled_wallclock_saved_ms: 791.5,
            non_eval_joined_calls: 909,
            non_eval_saved_round_trips: 1010,
            non_eval_wave_size_histogram: [1111, 1212, 1313, 1414, 1515, 1616, 1717, 1818],
            non_eval_waves_multi: 1919,
            non_eval_waves_total: 2020,
            upper_bound_saved_ms: 2121.75,
            observed_calls: 2222,
            paired_calls: 2323,
            malformed_observations: 2424,
            duplicate_starts: 2525,
            orphan_ends: 2626,
            eval_outer_joined_calls: 2727,
            mixed_non_eval_joined_calls: 2828,
            tool_time_ms: 2929.625,
            calls_without_batch: 3030,
            batched_turns: 3131,
            multi_call_turns: 3232,
            turn_width_histogram: [3333, 3434, 3535, 3636, 3737, 3838, 3939, 4040],
            // merged by maximum: max(41, 5), not 46
            max_turn_width: MaxCount(41),
            missed_batch_runs: 4242,
            missed_batch_calls: 4343,
            missed_batch_round_trips: 4444,
            missed_batch_upper_ms: 4546.0,
            lane_span_ms: 4646.5,
            tool_busy_ms: 4747.0,
            idle_ms: 4848.75,
            calls_timed_by_execution: 4949,
            calls_timed_by_message: 5050,
        };
        assert_eq!(merge([&a, &b]), Some(want.clone()));
        assert_eq!(merge([&b, &a]), Some(want));
    }

    #[test]
    fn merge_adds_floats_in_lane_order_from_zero() {
        let with = |ms: f64| Summary {
            eval_only_duration_ms: ms,
            measured_turn_duration_ms_total: ms,
            modeled_wallclock_saved_ms: ms,
            upper_bound_saved_ms: ms,
            tool_time_ms: ms,
            ..Summary::default()
        };
        let floats = |s: &Summary| {
            [
                s.eval_only_duration_ms,
                s.measured_turn_duration_ms_total,
                s.modeled_wallclock_saved_ms,
                s.upper_bound_saved_ms,
                s.tool_time_ms,
            ]
            .map(f64::to_bits)
        };
        // Python: 0.0 + 0.1 + 0.2 + 0.3 == 0.6000000000000001, 0.0 + 0.3 + 0.2 + 0.1 == 0.6
        let (x, y, z) = (with(0.1), with(0.2), with(0.3));
        let forward = merge([&x, &y, &z]).unwrap();
        assert_eq!(floats(&forward), [0.6000000000000001f64.to_bits(); 5]);
        let backward = merge([&z, &y, &x]).unwrap();
        assert_eq!(floats(&backward), [0.6f64.to_bits(); 5]);
        // the sums start at +0.0: -0.0 lanes add up to +0.0
        let negative_zero = with(-0.0);
        let total = merge([&negative_zero, &negative_zero]).unwrap();
        assert_eq!(floats(&total), [0.0f64.to_bits(); 5]);
        // negative and fractional figures
        let total = merge([&with(-1.5), &with(0.25)]).unwrap();
        assert_eq!(floats(&total), [(-1.25f64).to_bits(); 5]);
    }

    #[test]
    fn merge_is_none_when_any_count_overflows() {
        type Field = fn(&mut Summary) -> &mut u64;
        let fields: [Field; 16] = [
            |s| &mut s.clock_anomalies,
            |s| &mut s.dropped_calls,
            |s| &mut s.eval_only_waves,
            |s| &mut s.incomplete_calls,
            |s| &mut s.mixed_waves,
            |s| &mut s.non_eval_joined_calls,
            |s| &mut s.non_eval_saved_round_trips,
            |s| &mut s.non_eval_waves_multi,
            |s| &mut s.non_eval_waves_total,
            |s| &mut s.observed_calls,
            |s| &mut s.paired_calls,
            |s| &mut s.malformed_observations,
            |s| &mut s.duplicate_starts,
            |s| &mut s.orphan_ends,
            |s| &mut s.eval_outer_joined_calls,
            |s| &mut s.mixed_non_eval_joined_calls,
        ];
        let histogram: Vec<Field> = vec![
            |s| &mut s.non_eval_wave_size_histogram[0],
            |s| &mut s.non_eval_wave_size_histogram[1],
            |s| &mut s.non_eval_wave_size_histogram[2],
            |s| &mut s.non_eval_wave_size_histogram[3],
            |s| &mut s.non_eval_wave_size_histogram[4],
            |s| &mut s.non_eval_wave_size_histogram[5],
            |s| &mut s.non_eval_wave_size_histogram[6],
            |s| &mut s.non_eval_wave_size_histogram[7],
        ];
        for (index, field) in fields.iter().chain(&histogram).enumerate() {
            let mut full = Summary::default();
            *field(&mut full) = u64::MAX;
            let mut one = Summary::default();
            *field(&mut one) = 1;
            assert_eq!(merge([&full, &one]), None, "field {index}");
            assert_eq!(merge([&one, &full]), None, "field {index}");
            // at the limit, not past it
            let zero = Summary::default();
            assert_eq!(merge([&full, &zero]), Some(full.clone()), "field {index}");
            let mut below = Summary::default();
            *field(&mut below) = u64::MAX - 1;
            assert_eq!(merge([&below, &one]), Some(full.clone()), "field {index}");
        }
    }

    #[test]
    fn session_hashes_are_python_s() {
        let cases = [
            (
                "s",
                "main",
                "5670c45e3afbe7010be2eb56fbe6e7c38c1966aa69646deea6dc97a44def9b04",
            ),
            (
                "",
                "",
                "439083f38956ba51ece90631552c6ea23c5c29570d3d5710e408e77e01ba7375",
            ),
            (
                "a",
                "b",
                "0473ef2dc0d324ab659d3580c1134e9d812035905c4781fdd6d529b0c6860e13",
            ),
            (
                "é€😀",
                "x\n\"1\"\\\t\u{0}\u{1f}\u{7f}",
                "b1dac297bb2318313dba641c37d25299e5cc49d06a96b4116fb42d50f2e10f9f",
            ),
        ];
        for (session, lane, hash) in cases {
            assert_eq!(session_hash(session, lane), hash, "{session:?} {lane:?}");
        }
    }

    const EMPTY_DOCUMENT: &str = r#"{
  "schema_kind": "parallelism_v1",
  "options": {
    "input_format": "auto",
    "eval_tools": [
      "eval",
      "codemode",
      "code_mode"
    ],
    "max_tracked_calls": 2000,
    "max_line_bytes": 67108864,
    "max_document_bytes": 268435456,
    "since": null,
    "until": null,
    "timezone": null,
    "by": null
  },
  "inputs": [],
  "lanes": [],
  "total": {
    "clock_anomalies": 0,
    "dropped_calls": 0,
    "eval_only_duration_ms": 0.0,
    "eval_only_waves": 0,
    "incomplete_calls": 0,
    "measured_turn_duration_ms_total": 0.0,
    "mixed_waves": 0,
    "modeled_wallclock_saved_ms": 0.0,
    "non_eval_joined_calls": 0,
    "non_eval_saved_round_trips": 0,
    "non_eval_wave_size_histogram": "0:0:0:0:0:0:0:0",
    "non_eval_waves_multi": 0,
    "non_eval_waves_total": 0,
    "upper_bound_saved_ms": 0.0,
    "observed_calls": 0,
    "paired_calls": 0,
    "malformed_observations": 0,
    "duplicate_starts": 0,
    "orphan_ends": 0,
    "eval_outer_joined_calls": 0,
    "mixed_non_eval_joined_calls": 0,
    "tool_time_ms": 0.0,
    "calls_without_batch": 0,
    "batched_turns": 0,
    "multi_call_turns": 0,
    "turn_width_histogram": "0:0:0:0:0:0:0:0",
    "max_turn_width": 0,
    "missed_batch_runs": 0,
    "missed_batch_calls": 0,
    "missed_batch_round_trips": 0,
    "missed_batch_upper_ms": 0.0,
    "lane_span_ms": 0.0,
    "tool_busy_ms": 0.0,
    "idle_ms": 0.0,
    "calls_timed_by_execution": 0,
    "calls_timed_by_message": 0,
    "waves_total": 0
  },
  "concentration": []
}"#;

    #[test]
    fn an_empty_outcome_writes_empty_containers() {
        let outcome = Outcome {
            inputs: vec![],
            lanes: vec![],
        };
        let document = render(&[], &outcome, &[], OPTIONS, 1).unwrap();
        assert_eq!(
            String::from_utf8(document.json).unwrap(),
            format!("{EMPTY_DOCUMENT}\n")
        );
        assert_eq!((document.inputs, document.lanes), (vec![], vec![]));
    }

    const DOCUMENT: &str = r#"{
  "schema_kind": "parallelism_v1",
  "options": {
    "input_format": "auto",
    "eval_tools": [
      "eval",
      "codemode",
      "code_mode"
    ],
    "max_tracked_calls": 2000,
    "max_line_bytes": 67108864,
    "max_document_bytes": 268435456,
    "since": null,
    "until": null,
    "timezone": null,
    "by": null
  },
  "inputs": [
    {
      "path": "/x/p/\u00e9 \"q\".jsonl",
      "format": "claude-code",
      "lines_read": 9,
      "lines_used": 3,
      "lines_ignored": 5,
      "problems": {
        "invalid_event": 2,
        "invalid_json": 1
      },
      "ignored": {
        "Zeta": 2,
        "a.b": 1,
        "file-history-snapshot": 1,
        "summary": 1
      },
      "notes": {
        "dropped": 6,
        "invalid_tool_blocks": 4
      },
      "error": null
    },
    {
      "path": "/x/run.jsonl",
      "format": "events",
      "lines_read": 0,
      "lines_used": 0,
      "lines_ignored": 0,
      "problems": {},
      "ignored": {},
      "notes": {},
      "error": null
    }
  ],
  "lanes": [
    {
      "path": "/x/run.jsonl",
      "session_id": "s",
      "lane_id": "main",
      "session_hash": "5670c45e3afbe7010be2eb56fbe6e7c38c1966aa69646deea6dc97a44def9b04",
      "clock_anomalies": 1,
      "dropped_calls": 2,
      "eval_only_duration_ms": 0.1,
      "eval_only_waves": 4,
      "incomplete_calls": 5,
      "measured_turn_duration_ms_total": -2.5,
      "mixed_waves": 7,
      "modeled_wallclock_saved_ms": null,
      "non_eval_joined_calls": 9,
      "non_eval_saved_round_trips": 10,
      "non_eval_wave_size_histogram": "11:12:13:14:15:16:17:18",
      "non_eval_waves_multi": 19,
      "non_eval_waves_total": 20,
      "upper_bound_saved_ms": 1e+16,
      "observed_calls": 22,
      "paired_calls": 23,
      "malformed_observations": 24,
      "duplicate_starts": 25,
      "orphan_ends": 26,
      "eval_outer_joined_calls": 27,
      "mixed_non_eval_joined_calls": 28,
      "tool_time_ms": 123.456,
      "calls_without_batch": 30,
      "batched_turns": 31,
      "multi_call_turns": 32,
      "turn_width_histogram": "33:34:35:36:37:38:39:40",
      "max_turn_width": 41,
      "missed_batch_runs": 42,
      "missed_batch_calls": 43,
      "missed_batch_round_trips": 44,
      "missed_batch_upper_ms": 45.5,
      "lane_span_ms": 46.25,
      "tool_busy_ms": 47.0,
      "idle_ms": 48.75,
      "calls_timed_by_execution": 49,
      "calls_timed_by_message": 50,
      "waves_total": 31
    },
    {
      "path": "/x/p/\u00e9 \"q\".jsonl",
      "session_id": "\u00e9\u20ac",
      "lane_id": "x\n\"1\"",
      "session_hash": "82f87ad3335ebee4582c43da831b3b06c0f89bed7babd15c388c3b17460c11da",
      "clock_anomalies": 1001,
      "dropped_calls": 1002,
      "eval_only_duration_ms": 0.2,
      "eval_only_waves": 1004,
      "incomplete_calls": 1005,
      "measured_turn_duration_ms_total": -0.25,
      "mixed_waves": 1007,
      "modeled_wallclock_saved_ms": 3.0,
      "non_eval_joined_calls": 1009,
      "non_eval_saved_round_trips": 1010,
      "non_eval_wave_size_histogram": "1011:1012:1013:1014:1015:1016:1017:1018",
      "non_eval_waves_multi": 1019,
      "non_eval_waves_total": 1020,
      "upper_bound_saved_ms": 4.0,
      "observed_calls": 1022,
      "paired_calls": 1023,
      "malformed_observations": 1024,
      "duplicate_starts": 1025,
      "orphan_ends": 1026,
      "eval_outer_joined_calls": 1027,
      "mixed_non_eval_joined_calls": 1028,
      "tool_time_ms": null,
      "calls_without_batch": 0,
      "batched_turns": 0,
      "multi_call_turns": 0,
      "turn_width_histogram": "0:0:0:0:0:0:0:0",
      "max_turn_width": 3,
      "missed_batch_runs": 0,
      "missed_batch_calls": 0,
      "missed_batch_round_trips": 0,
      "missed_batch_upper_ms": 0.0,
      "lane_span_ms": 0.0,
      "tool_busy_ms": 0.0,
      "idle_ms": 0.5,
      "calls_timed_by_execution": 0,
      "calls_timed_by_message": 0,
      "waves_total": 3031
    }
  ],
  "total": {
    "clock_anomalies": 1002,
    "dropped_calls": 1004,
    "eval_only_duration_ms": 0.30000000000000004,
    "eval_only_waves": 1008,
    "incomplete_calls": 1010,
    "measured_turn_duration_ms_total": -2.75,
    "mixed_waves": 1014,
    "modeled_wallclock_saved_ms": null,
    "non_eval_joined_calls": 1018,
    "non_eval_saved_round_trips": 1020,
    "non_eval_wave_size_histogram": "1022:1024:1026:1028:1030:1032:1034:1036",
    "non_eval_waves_multi": 1038,
    "non_eval_waves_total": 1040,
    "upper_bound_saved_ms": 1.0000000000000004e+16,
    "observed_calls": 1044,
    "paired_calls": 1046,
    "malformed_observations": 1048,
    "duplicate_starts": 1050,
    "orphan_ends": 1052,
    "eval_outer_joined_calls": 1054,
    "mixed_non_eval_joined_calls": 1056,
    "tool_time_ms": null,
    "calls_without_batch": 30,
    "batched_turns": 31,
    "multi_call_turns": 32,
    "turn_width_histogram": "33:34:35:36:37:38:39:40",
    "max_turn_width": 41,
    "missed_batch_runs": 42,
    "missed_batch_calls": 43,
    "missed_batch_round_trips": 44,
    "missed_batch_upper_ms": 45.5,
    "lane_span_ms": 46.25,
    "tool_busy_ms": 47.0,
    "idle_ms": 49.25,
    "calls_timed_by_execution": 49,
    "calls_timed_by_message": 50,
    "waves_total": 3062
  },
  "concentration": [],
  "skipped_files": [
    {
      "path": "/x/a.meta.json",
      "reason": "sidecar"
    },
    {
      "path": "/x/b\u00e9.meta.json",
      "reason": "another"
    }
  ]
}"#;

    #[test]
    fn render_writes_json_dumps_indent_2() {
        let (mut a, _) = two_summaries();
        // the values of the oracle's dict: non-finite figures are null, the others as
        // Python's repr writes them (negative, fractional, exponent notation)
        a.eval_only_duration_ms = 0.1;
        a.measured_turn_duration_ms_total = -2.5;
        a.modeled_wallclock_saved_ms = f64::NAN;
        a.upper_bound_saved_ms = 1e16;
        a.tool_time_ms = 123.456;
        let b = Summary {
            clock_anomalies: 1001,
            dropped_calls: 1002,
            eval_only_duration_ms: 0.2,
            eval_only_waves: 1004,
            incomplete_calls: 1005,
            measured_turn_duration_ms_total: -0.25,
            mixed_waves: 1007,
            modeled_wallclock_saved_ms: 3.0,
            non_eval_joined_calls: 1009,
            non_eval_saved_round_trips: 1010,
            non_eval_wave_size_histogram: [1011, 1012, 1013, 1014, 1015, 1016, 1017, 1018],
            non_eval_waves_multi: 1019,
            non_eval_waves_total: 1020,
            upper_bound_saved_ms: 4.0,
            observed_calls: 1022,
            paired_calls: 1023,
            malformed_observations: 1024,
            duplicate_starts: 1025,
            orphan_ends: 1026,
            eval_outer_joined_calls: 1027,
            mixed_non_eval_joined_calls: 1028,
            tool_time_ms: f64::INFINITY,
            max_turn_width: MaxCount(3),
            idle_ms: 0.5,
            ..Summary::default()
        };
        let mut first = account(9, 3);
        for kind in [
            &b"summary"[..],
            b"Zeta",
            b"file-history-snapshot",
            b"Zeta",
            b"a.b",
        ] {
            first.ignore(kind);
        }
        first.problem("invalid_json");
        first.problem("invalid_event");
        first.problem("invalid_event");
        first.note("invalid_tool_blocks", 4);
        first.note("dropped", 6);
        let second = LineAccount::default();
        let lane_a = LaneOut {
            summary: a,
            ..lane(0, "s", "main")
        };
        let lane_b = LaneOut {
            summary: b,
            ..lane(0, "é€", "x\n\"1\"")
        };
        let outcome = Outcome {
            inputs: vec![
                Read {
                    file: 0,
                    format: "claude-code",
                    account: &first,
                },
                Read {
                    file: 1,
                    format: "events",
                    account: &second,
                },
            ],
            lanes: vec![(1, &lane_a), (0, &lane_b)],
        };
        let paths = ["/x/p/é \"q\".jsonl", "/x/run.jsonl"];
        let skipped = [
            ("/x/a.meta.json".to_string(), "sidecar".to_string()),
            ("/x/bé.meta.json".to_string(), "another".to_string()),
        ];
        let document = render(&paths, &outcome, &skipped, OPTIONS, 1).unwrap();
        assert_eq!(
            String::from_utf8(document.json).unwrap(),
            format!("{DOCUMENT}\n")
        );
        assert_eq!(
            document.inputs,
            vec![
                fact(
                    "claude-code",
                    9,
                    3,
                    5,
                    &[("invalid_event", 2), ("invalid_json", 1)]
                ),
                fact("events", 0, 0, 0, &[]),
            ]
        );
        assert_eq!(
            document.lanes,
            vec![
                LaneFact {
                    file: 1,
                    session_id: "s".into(),
                    lane_id: "main".into(),
                },
                LaneFact {
                    file: 0,
                    session_id: "é€".into(),
                    lane_id: "x\n\"1\"".into(),
                },
            ]
        );
    }

    #[test]
    fn a_total_past_64_bits_is_an_overflow() {
        let mut full = lane(0, "s", "main");
        full.summary.observed_calls = u64::MAX;
        let mut one = lane(0, "s", "x1");
        one.summary.observed_calls = 1;
        let read = account(1, 1);
        let outcome = Outcome {
            inputs: vec![Read {
                file: 0,
                format: "events",
                account: &read,
            }],
            lanes: vec![(0, &full), (0, &one)],
        };
        assert_eq!(
            render(&["a"], &outcome, &[], OPTIONS, 1).err(),
            Some(Decline::Overflow)
        );
        // the facts are refused where render would fail, before it runs
        assert_eq!(facts(&outcome).err(), Some(Decline::Overflow));
        let fine = Outcome {
            inputs: vec![Read {
                file: 0,
                format: "events",
                account: &read,
            }],
            lanes: vec![(0, &full)],
        };
        let document = render(&["a"], &fine, &[], OPTIONS, 1).unwrap();
        assert_eq!(facts(&fine).unwrap(), (document.inputs, document.lanes));
    }

    #[test]
    fn members_written_apart_are_the_bytes_of_one_thread() {
        // 0, 1, 63 (one run), 64 (split), 65 and 200 inputs and lanes, on 1 to 5 threads:
        // the same document each time, every member once, in order; a figure each, so
        // that runs are told apart
        for count in [0usize, 1, 63, 64, 65, 200] {
            let accounts: Vec<LineAccount> = (0..count).map(|i| account(i as u64 + 1, 1)).collect();
            let mut lanes: Vec<LaneOut> = (0..count)
                .map(|i| lane(i, &format!("s{i}"), "main"))
                .collect();
            for (i, one) in lanes.iter_mut().enumerate() {
                one.summary.paired_calls = i as u64;
            }
            let names: Vec<String> = (0..count).map(|i| format!("f{i}")).collect();
            let paths: Vec<&str> = names.iter().map(String::as_str).collect();
            let outcome = Outcome {
                inputs: accounts
                    .iter()
                    .enumerate()
                    .map(|(file, account)| Read {
                        file,
                        format: "events",
                        account,
                    })
                    .collect(),
                lanes: lanes.iter().enumerate().collect(),
            };
            let one = render(&paths, &outcome, &[], OPTIONS, 1).unwrap().json;
            for jobs in [2, 3, 4, 5, 20] {
                assert_eq!(
                    render(&paths, &outcome, &[], OPTIONS, jobs).unwrap().json,
                    one
                );
            }
            let text = String::from_utf8(one).unwrap();
            assert_eq!(text.matches("\"session_hash\"").count(), count);
            let order: Vec<usize> = (0..count)
                .map(|i| text.find(&format!("\"path\": \"f{i}\"")).unwrap())
                .collect();
            assert!(order.windows(2).all(|pair| pair[0] < pair[1]));
            let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(parsed["lanes"].as_array().unwrap().len(), count);
            assert_eq!(parsed["inputs"].as_array().unwrap().len(), count);
            if count == 200 {
                assert_eq!(parsed["lanes"][199]["paired_calls"], 199);
                assert_eq!(parsed["inputs"][137]["lines_read"], 138);
                assert_eq!(parsed["total"]["paired_calls"], 199 * 200 / 2);
            }
        }
    }

    #[test]
    fn members_apart_write_what_one_loop_writes() {
        // the reference is a plain loop of the same members: nested objects, so that
        // depth, commas and first-member state all show
        for count in [0usize, 1, 63, 64, 65, 200] {
            for jobs in [1, 2, 3, 20] {
                let member = |w: &mut Writer, i: usize| {
                    w.member();
                    w.open(b'{');
                    w.int("i", i as u64);
                    w.key("empty");
                    w.open(b'[');
                    w.close(b']');
                    w.close(b'}');
                };
                let mut apart = Writer::new();
                let mut plain = Writer::new();
                for w in [&mut apart, &mut plain] {
                    w.open(b'{');
                    w.key("m");
                    w.open(b'[');
                }
                members_apart(&mut apart, count, jobs, member);
                for i in 0..count {
                    member(&mut plain, i);
                }
                for w in [&mut apart, &mut plain] {
                    w.close(b']');
                    w.key("after");
                    w.out.extend_from_slice(b"1");
                    w.close(b'}');
                }
                assert_eq!(
                    String::from_utf8(apart.out).unwrap(),
                    String::from_utf8(plain.out).unwrap(),
                    "{count} members on {jobs} threads"
                );
            }
        }
    }

    #[test]
    fn members_apart_after_a_member_start_with_a_comma() {
        // a container that has a member already: the first run starts with a comma too
        for jobs in [1, 3] {
            let mut w = Writer::new();
            w.open(b'[');
            w.member();
            w.out.extend_from_slice(b"0");
            members_apart(&mut w, 70, jobs, |w, i| {
                w.member();
                write_int(&mut w.out, i as i128 + 1);
            });
            w.close(b']');
            let want: Vec<String> = (0..=70).map(|i| format!("\n  {i}")).collect();
            assert_eq!(
                String::from_utf8(w.out).unwrap(),
                format!("[{}\n]", want.join(","))
            );
        }
    }

    #[test]
    fn waves_total_past_64_bits_is_written_exactly() {
        // Python adds the three ints exactly: 2**64 - 1 + 3 + 5 = 18446744073709551623
        let mut big = lane(0, "s", "main");
        big.summary.non_eval_waves_total = u64::MAX;
        big.summary.eval_only_waves = 3;
        big.summary.mixed_waves = 5;
        let read = account(1, 1);
        let outcome = Outcome {
            inputs: vec![Read {
                file: 0,
                format: "events",
                account: &read,
            }],
            lanes: vec![(0, &big)],
        };
        let json =
            String::from_utf8(render(&["a"], &outcome, &[], OPTIONS, 1).unwrap().json).unwrap();
        assert_eq!(
            json.matches("\"waves_total\": 18446744073709551623")
                .count(),
            2
        );
    }

    /// The reference run's files (`/tmp/wmref` in [`SUMMARIZE`]): folder p1 with b
    /// (two parallel calls, an ignored record, an invalid line) and a (one eval call),
    /// folder p2 with run (an events log) and c.
    const TREE: [(&str, &str); 4] = [
        (
            "p1/b.jsonl",
            concat!(
                r#"{"type":"assistant","uuid":"00000000-0000-4000-8000-000000000001","sessionId":"s1","timestamp":"2025-01-01T00:00:00.000Z","message":{"id":"msg_1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}},{"type":"tool_use","id":"t2","name":"Read","input":{}}]}}"#,
                "\n",
                r#"{"type":"user","uuid":"00000000-0000-4000-8000-000000000002","sessionId":"s1","timestamp":"2025-01-01T00:00:01.500Z","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"x"},{"type":"tool_result","tool_use_id":"t2","content":"y"}]}}"#,
                "\n",
                r#"{"type":"summary","summary":"hi"}"#,
                "\n{bad\n",
            ),
        ),
        (
            "p2/run.jsonl",
            concat!(
                r#"{"type":"tool_execution_start","toolCallId":"e1","toolName":"grep","timestamp":1000}"#,
                "\n",
                r#"{"type":"tool_execution_start","toolCallId":"e2","toolName":"read","timestamp":1001}"#,
                "\n",
                r#"{"type":"tool_execution_end","toolCallId":"e1","timestamp":1300}"#,
                "\n",
                r#"{"type":"tool_execution_end","toolCallId":"e2","timestamp":1500}"#,
                "\n",
            ),
        ),
        (
            "p1/a.jsonl",
            concat!(
                r#"{"type":"assistant","uuid":"00000000-0000-4000-8000-000000000003","sessionId":"s2","timestamp":"2025-01-01T00:00:10.000Z","message":{"content":[{"type":"tool_use","id":"t3","name":"eval","input":{}}]}}"#,
                "\n",
                r#"{"type":"user","uuid":"00000000-0000-4000-8000-000000000004","sessionId":"s2","timestamp":"2025-01-01T00:00:10.250Z","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"x"}]}}"#,
                "\n",
            ),
        ),
        (
            "p2/c.jsonl",
            concat!(
                r#"{"type":"assistant","uuid":"00000000-0000-4000-8000-000000000005","sessionId":"s3","timestamp":"2025-01-01T00:00:00.000Z","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}"#,
                "\n",
                r#"{"type":"user","uuid":"00000000-0000-4000-8000-000000000006","sessionId":"s3","timestamp":"2025-01-01T00:00:00.125Z","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}}"#,
                "\n",
            ),
        ),
    ];

    /// `wavemetrics summarize --format json --engine python --no-cache` of the
    /// [`TREE`] files in its order, under `/tmp/wmref`.
    const SUMMARIZE: &str = r#"{
  "schema_kind": "parallelism_v1",
  "options": {
    "input_format": "auto",
    "eval_tools": [
      "eval",
      "codemode",
      "code_mode"
    ],
    "max_tracked_calls": 2000,
    "max_line_bytes": 67108864,
    "max_document_bytes": 268435456,
    "since": null,
    "until": null,
    "timezone": null,
    "by": null
  },
  "inputs": [
    {
      "path": "/tmp/wmref/p1/b.jsonl",
      "format": "claude-code",
      "lines_read": 4,
      "lines_used": 2,
      "lines_ignored": 1,
      "problems": {
        "invalid_json": 1
      },
      "ignored": {
        "summary": 1
      },
      "notes": {},
      "error": null
    },
    {
      "path": "/tmp/wmref/p2/run.jsonl",
      "format": "events",
      "lines_read": 4,
      "lines_used": 4,
      "lines_ignored": 0,
      "problems": {},
      "ignored": {},
      "notes": {},
      "error": null
    },
    {
      "path": "/tmp/wmref/p1/a.jsonl",
      "format": "claude-code",
      "lines_read": 2,
      "lines_used": 2,
      "lines_ignored": 0,
      "problems": {},
      "ignored": {},
      "notes": {},
      "error": null
    },
    {
      "path": "/tmp/wmref/p2/c.jsonl",
      "format": "claude-code",
      "lines_read": 2,
      "lines_used": 2,
      "lines_ignored": 0,
      "problems": {},
      "ignored": {},
      "notes": {},
      "error": null
    }
  ],
  "lanes": [
    {
      "path": "/tmp/wmref/p1/a.jsonl",
      "session_id": "s2",
      "lane_id": "main",
      "session_hash": "12c2d14ca3467b041ad77a385f26d5d1daf902537e5e192e228110a5ece62dba",
      "clock_anomalies": 0,
      "dropped_calls": 0,
      "eval_only_duration_ms": 250.0,
      "eval_only_waves": 1,
      "incomplete_calls": 0,
      "measured_turn_duration_ms_total": 0.0,
      "mixed_waves": 0,
      "modeled_wallclock_saved_ms": 0.0,
      "non_eval_joined_calls": 0,
      "non_eval_saved_round_trips": 0,
      "non_eval_wave_size_histogram": "0:0:0:0:0:0:0:0",
      "non_eval_waves_multi": 0,
      "non_eval_waves_total": 0,
      "upper_bound_saved_ms": 0.0,
      "observed_calls": 1,
      "paired_calls": 1,
      "malformed_observations": 0,
      "duplicate_starts": 0,
      "orphan_ends": 0,
      "eval_outer_joined_calls": 1,
      "mixed_non_eval_joined_calls": 0,
      "tool_time_ms": 250.0,
      "calls_without_batch": 1,
      "batched_turns": 0,
      "multi_call_turns": 0,
      "turn_width_histogram": "0:0:0:0:0:0:0:0",
      "max_turn_width": 0,
      "missed_batch_runs": 0,
      "missed_batch_calls": 0,
      "missed_batch_round_trips": 0,
      "missed_batch_upper_ms": 0.0,
      "lane_span_ms": 250.0,
      "tool_busy_ms": 250.0,
      "idle_ms": 0.0,
      "calls_timed_by_execution": 0,
      "calls_timed_by_message": 1,
      "waves_total": 1
    },
    {
      "path": "/tmp/wmref/p1/b.jsonl",
      "session_id": "s1",
      "lane_id": "main",
      "session_hash": "d2c20faa26ef28c9a9a22a87ffb1aacc5afb43dd3a689526c21a74c4e54ad2ca",
      "clock_anomalies": 0,
      "dropped_calls": 0,
      "eval_only_duration_ms": 0.0,
      "eval_only_waves": 0,
      "incomplete_calls": 0,
      "measured_turn_duration_ms_total": 0.0,
      "mixed_waves": 0,
      "modeled_wallclock_saved_ms": 1500.0,
      "non_eval_joined_calls": 2,
      "non_eval_saved_round_trips": 1,
      "non_eval_wave_size_histogram": "0:1:0:0:0:0:0:0",
      "non_eval_waves_multi": 1,
      "non_eval_waves_total": 1,
      "upper_bound_saved_ms": 1500.0,
      "observed_calls": 2,
      "paired_calls": 2,
      "malformed_observations": 0,
      "duplicate_starts": 0,
      "orphan_ends": 0,
      "eval_outer_joined_calls": 0,
      "mixed_non_eval_joined_calls": 0,
      "tool_time_ms": 3000.0,
      "calls_without_batch": 0,
      "batched_turns": 1,
      "multi_call_turns": 1,
      "turn_width_histogram": "0:1:0:0:0:0:0:0",
      "max_turn_width": 2,
      "missed_batch_runs": 0,
      "missed_batch_calls": 0,
      "missed_batch_round_trips": 0,
      "missed_batch_upper_ms": 0.0,
      "lane_span_ms": 1500.0,
      "tool_busy_ms": 1500.0,
      "idle_ms": 0.0,
      "calls_timed_by_execution": 0,
      "calls_timed_by_message": 2,
      "waves_total": 1
    },
    {
      "path": "/tmp/wmref/p2/run.jsonl",
      "session_id": "run",
      "lane_id": "main",
      "session_hash": "c7fa3bf64a7cb870b4f69121b37273670f5f880e65224e8eccaccbae4b0fa7e9",
      "clock_anomalies": 0,
      "dropped_calls": 0,
      "eval_only_duration_ms": 0.0,
      "eval_only_waves": 0,
      "incomplete_calls": 0,
      "measured_turn_duration_ms_total": 0.0,
      "mixed_waves": 0,
      "modeled_wallclock_saved_ms": 299.0,
      "non_eval_joined_calls": 2,
      "non_eval_saved_round_trips": 1,
      "non_eval_wave_size_histogram": "0:1:0:0:0:0:0:0",
      "non_eval_waves_multi": 1,
      "non_eval_waves_total": 1,
      "upper_bound_saved_ms": 399.5,
      "observed_calls": 2,
      "paired_calls": 2,
      "malformed_observations": 0,
      "duplicate_starts": 0,
      "orphan_ends": 0,
      "eval_outer_joined_calls": 0,
      "mixed_non_eval_joined_calls": 0,
      "tool_time_ms": 799.0,
      "calls_without_batch": 2,
      "batched_turns": 0,
      "multi_call_turns": 0,
      "turn_width_histogram": "0:0:0:0:0:0:0:0",
      "max_turn_width": 0,
      "missed_batch_runs": 0,
      "missed_batch_calls": 0,
      "missed_batch_round_trips": 0,
      "missed_batch_upper_ms": 0.0,
      "lane_span_ms": 500.0,
      "tool_busy_ms": 500.0,
      "idle_ms": 0.0,
      "calls_timed_by_execution": 2,
      "calls_timed_by_message": 0,
      "waves_total": 1
    },
    {
      "path": "/tmp/wmref/p2/c.jsonl",
      "session_id": "s3",
      "lane_id": "main",
      "session_hash": "b2779aafc5efd294b43bc627186983dc5b82218a9f97e1dc8f56c87959ec3031",
      "clock_anomalies": 0,
      "dropped_calls": 0,
      "eval_only_duration_ms": 0.0,
      "eval_only_waves": 0,
      "incomplete_calls": 0,
      "measured_turn_duration_ms_total": 0.0,
      "mixed_waves": 0,
      "modeled_wallclock_saved_ms": 0.0,
      "non_eval_joined_calls": 1,
      "non_eval_saved_round_trips": 0,
      "non_eval_wave_size_histogram": "1:0:0:0:0:0:0:0",
      "non_eval_waves_multi": 0,
      "non_eval_waves_total": 1,
      "upper_bound_saved_ms": 0.0,
      "observed_calls": 1,
      "paired_calls": 1,
      "malformed_observations": 0,
      "duplicate_starts": 0,
      "orphan_ends": 0,
      "eval_outer_joined_calls": 0,
      "mixed_non_eval_joined_calls": 0,
      "tool_time_ms": 125.0,
      "calls_without_batch": 1,
      "batched_turns": 0,
      "multi_call_turns": 0,
      "turn_width_histogram": "0:0:0:0:0:0:0:0",
      "max_turn_width": 0,
      "missed_batch_runs": 0,
      "missed_batch_calls": 0,
      "missed_batch_round_trips": 0,
      "missed_batch_upper_ms": 0.0,
      "lane_span_ms": 125.0,
      "tool_busy_ms": 125.0,
      "idle_ms": 0.0,
      "calls_timed_by_execution": 0,
      "calls_timed_by_message": 1,
      "waves_total": 1
    }
  ],
  "total": {
    "clock_anomalies": 0,
    "dropped_calls": 0,
    "eval_only_duration_ms": 250.0,
    "eval_only_waves": 1,
    "incomplete_calls": 0,
    "measured_turn_duration_ms_total": 0.0,
    "mixed_waves": 0,
    "modeled_wallclock_saved_ms": 1799.0,
    "non_eval_joined_calls": 5,
    "non_eval_saved_round_trips": 2,
    "non_eval_wave_size_histogram": "1:2:0:0:0:0:0:0",
    "non_eval_waves_multi": 2,
    "non_eval_waves_total": 3,
    "upper_bound_saved_ms": 1899.5,
    "observed_calls": 6,
    "paired_calls": 6,
    "malformed_observations": 0,
    "duplicate_starts": 0,
    "orphan_ends": 0,
    "eval_outer_joined_calls": 1,
    "mixed_non_eval_joined_calls": 0,
    "tool_time_ms": 4174.0,
    "calls_without_batch": 4,
    "batched_turns": 1,
    "multi_call_turns": 1,
    "turn_width_histogram": "0:1:0:0:0:0:0:0",
    "max_turn_width": 2,
    "missed_batch_runs": 0,
    "missed_batch_calls": 0,
    "missed_batch_round_trips": 0,
    "missed_batch_upper_ms": 0.0,
    "lane_span_ms": 2375.0,
    "tool_busy_ms": 2375.0,
    "idle_ms": 0.0,
    "calls_timed_by_execution": 2,
    "calls_timed_by_message": 4,
    "waves_total": 4
  },
  "concentration": []
}"#;

    /// A temporary folder, removed when dropped.
    struct TempTree(std::path::PathBuf);

    impl TempTree {
        fn new(name: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("wm-command-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempTree(dir)
        }

        fn text(&self) -> String {
            let text = self.0.to_str().unwrap().to_string();
            // the expected document names it as it is (a JSON string without escapes)
            assert!(text
                .bytes()
                .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\'));
            text
        }
    }

    impl Drop for TempTree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// An input's facts, as the notes see them.
    fn fact(
        format: &str,
        read: u64,
        used: u64,
        ignored: u64,
        problems: &[(&str, u64)],
    ) -> InputFact {
        InputFact {
            format: format.into(),
            lines_read: read,
            lines_used: used,
            lines_ignored: ignored,
            problems: problems.iter().map(|&(p, n)| (p.into(), n)).collect(),
        }
    }

    fn settings() -> Settings {
        Settings {
            max_tracked_calls: Some(2000),
            eval_names: vec!["eval".into(), "codemode".into(), "code_mode".into()],
            stream: true,
            batchable_names: crate::activity::BATCHABLE_TOOL_NAMES
                .iter()
                .map(|n| n.to_string())
                .collect(),
            idle_gap_ms: crate::activity::DEFAULT_IDLE_GAP_MS,
            record: false,
        }
    }

    /// The record types [`Sniffers`] borrow: `events`, `claude_only`, `codex`.
    struct SnifferLists(Vec<String>, Vec<String>, Vec<String>);

    impl SnifferLists {
        /// The sniffers of these lists (no `pi` types: the tests' trees hold no pi file).
        fn sniffers(&self) -> Sniffers<'_> {
            Sniffers {
                event_types: &self.0,
                claude_only_types: &self.1,
                codex_types: &self.2,
                pi_types: &[],
            }
        }
    }

    /// `fastpath.summarize_json`'s sniffers' lists: sorted `EVENT_TYPES`,
    /// `CLAUDE_ONLY_TYPES` and `CODEX_TYPES`.
    fn sniffer_lists() -> SnifferLists {
        let events = [
            "session_shutdown",
            "tool_execution_end",
            "tool_execution_start",
            "tool_execution_update",
            "turn_end",
            "turn_start",
        ];
        let claude_only = [
            "custom-title",
            "file-history-snapshot",
            "last-prompt",
            "permission-mode",
            "queue-operation",
            "summary",
        ];
        let codex = [
            "compacted",
            "event_msg",
            "response_item",
            "session_meta",
            "turn_context",
        ];
        SnifferLists(
            events.map(String::from).to_vec(),
            claude_only.map(String::from).to_vec(),
            codex.map(String::from).to_vec(),
        )
    }

    /// A tree `name` holding `folder/file` (`text`) and the events log `e/run.jsonl` (one
    /// `grep` call, 1.0 s to 1.3 s), each in a folder of its own; with each file's path
    /// and stem (`stem`, `run`) in walk order.
    fn beside_an_events_log(
        name: &str,
        folder: &str,
        file: &str,
        text: &str,
        stem: &'static str,
    ) -> (TempTree, [(String, &'static str); 2]) {
        let tree = TempTree::new(name);
        let dir = tree.text();
        std::fs::create_dir_all(tree.0.join(folder)).unwrap();
        std::fs::create_dir_all(tree.0.join("e")).unwrap();
        std::fs::write(tree.0.join(folder).join(file), text).unwrap();
        std::fs::write(
            tree.0.join("e").join("run.jsonl"),
            concat!(
                r#"{"type":"tool_execution_start","toolCallId":"e1","toolName":"grep","timestamp":1000}"#,
                "\n",
                r#"{"type":"tool_execution_end","toolCallId":"e1","timestamp":1300}"#,
                "\n",
            ),
        )
        .unwrap();
        let paths = [
            (format!("{dir}/{folder}/{file}"), stem),
            (format!("{dir}/e/run.jsonl"), "run"),
        ];
        (tree, paths)
    }

    /// The command's files of `paths` (path, stem), each its own project folder.
    fn command_files<'a>(paths: &'a [(String, &'static str)]) -> Vec<CommandFile<'a>> {
        paths
            .iter()
            .enumerate()
            .map(|(group, (path, stem))| CommandFile {
                path,
                claude_fallback: stem,
                events_default: stem,
                group,
            })
            .collect()
    }

    /// Writes the [`TREE`] under `tree` and summarizes it on `jobs` threads, with
    /// `skipped`; the expected document for this folder.
    fn summarize_tree(
        tree: &TempTree,
        skipped: &[(String, String)],
        jobs: usize,
    ) -> (Result<Document, Decline>, String) {
        let dir = tree.text();
        std::fs::create_dir_all(tree.0.join("p1")).unwrap();
        std::fs::create_dir_all(tree.0.join("p2")).unwrap();
        for (name, text) in TREE {
            std::fs::write(tree.0.join(name), text).unwrap();
        }
        let paths: Vec<String> = TREE
            .iter()
            .map(|(name, _)| format!("{dir}/{name}"))
            .collect();
        // file stems, and the folders numbered in order of first appearance
        let stems = ["b", "run", "a", "c"];
        let folders = [0, 1, 0, 1];
        let files: Vec<CommandFile> = (0..4)
            .map(|i| CommandFile {
                path: &paths[i],
                claude_fallback: stems[i],
                events_default: stems[i],
                group: folders[i],
            })
            .collect();
        let lists = sniffer_lists();
        let sniffers = lists.sniffers();
        let result = summarize(&files, skipped, OPTIONS, &sniffers, &settings(), jobs);
        (
            result,
            format!("{}\n", SUMMARIZE.replace("/tmp/wmref", &dir)),
        )
    }

    #[test]
    fn summarize_reads_and_writes_as_the_python_command() {
        let tree = TempTree::new("summarize");
        let (result, want) = summarize_tree(&tree, &[], 1);
        let document = result.unwrap();
        assert_eq!(String::from_utf8(document.json).unwrap(), want);
        assert_eq!(
            document.inputs,
            vec![
                fact("claude-code", 4, 2, 1, &[("invalid_json", 1)]),
                fact("events", 4, 4, 0, &[]),
                fact("claude-code", 2, 2, 0, &[]),
                fact("claude-code", 2, 2, 0, &[]),
            ]
        );
        let lanes: Vec<(usize, &str, &str)> = document
            .lanes
            .iter()
            .map(|l| (l.file, l.session_id.as_str(), l.lane_id.as_str()))
            .collect();
        assert_eq!(
            lanes,
            vec![
                (2, "s2", "main"),
                (0, "s1", "main"),
                (1, "run", "main"),
                (3, "s3", "main")
            ]
        );
        // the skipped sidecars close the document
        let skipped = [
            ("/w/x.meta.json".to_string(), "sidecar".to_string()),
            ("/w/y".to_string(), "é".to_string()),
        ];
        let (result, want) = summarize_tree(&tree, &skipped, 1);
        let tail = concat!(
            ",\n",
            "  \"skipped_files\": [\n",
            "    {\n",
            "      \"path\": \"/w/x.meta.json\",\n",
            "      \"reason\": \"sidecar\"\n",
            "    },\n",
            "    {\n",
            "      \"path\": \"/w/y\",\n",
            "      \"reason\": \"\\u00e9\"\n",
            "    }\n",
            "  ]\n",
            "}\n",
        );
        let want = format!("{}{tail}", want.strip_suffix("\n}\n").unwrap());
        assert_eq!(String::from_utf8(result.unwrap().json).unwrap(), want);
    }

    #[test]
    fn size_and_head_as_python_reads_them() {
        let tree = TempTree::new("heads");
        let at = |name: &str| tree.0.join(name);
        std::fs::write(at("short"), b"abc").unwrap();
        assert_eq!(size_and_head(&at("short")), (3, Some(b"abc".to_vec())));
        std::fs::write(at("empty"), b"").unwrap();
        assert_eq!(size_and_head(&at("empty")), (0, Some(Vec::new())));
        // a long file: its whole size, and exactly the first 4096 bytes
        let long: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(at("long"), &long).unwrap();
        assert_eq!(
            size_and_head(&at("long")),
            (10_000, Some(long[..4096].to_vec()))
        );
        let exact: Vec<u8> = long[..4096].to_vec();
        std::fs::write(at("exact"), &exact).unwrap();
        assert_eq!(size_and_head(&at("exact")), (4096, Some(exact)));
        // gzip: the ISIZE trailer, little-endian, and no head
        std::fs::write(at("gz"), b"\x1f\x8b\x08\x00rest\x01\x02\x00\x00").unwrap();
        assert_eq!(size_and_head(&at("gz")), (513, None));
        std::fs::write(at("gz-big"), b"\x1f\x8bxx\xff\xff\xff\xff").unwrap();
        assert_eq!(size_and_head(&at("gz-big")), (4_294_967_295, None));
        // too short for a trailer, and a file that is not there: -1, no head
        std::fs::write(at("gz-short"), b"\x1f\x8bx").unwrap();
        assert_eq!(size_and_head(&at("gz-short")), (-1, None));
        assert_eq!(size_and_head(&at("missing")), (-1, None));
        // a folder opens but cannot be read
        assert_eq!(size_and_head(&tree.0), (-1, None));
    }

    #[test]
    fn only_files_sharing_a_stem_are_looked_at() {
        let named = |stems: &[&'static str]| -> Vec<usize> {
            let files: Vec<CommandFile> = stems
                .iter()
                .map(|stem| CommandFile {
                    path: "unused",
                    claude_fallback: "unused",
                    events_default: stem,
                    group: 0,
                })
                .collect();
            shared_stems(&files)
        };
        assert_eq!(named(&["a", "b", "a", "c", "b", "a"]), vec![0, 1, 2, 4, 5]);
        assert_eq!(named(&["a", "b", "c"]), Vec::<usize>::new());
        assert_eq!(named(&["a"]), Vec::<usize>::new());
        assert_eq!(named(&[]), Vec::<usize>::new());
        // standard input (`-`, stem `-`) is never compared, nor counted for another file
        let files: Vec<CommandFile> = [("-", "-"), ("x/-.jsonl", "-"), ("y/-.jsonl", "-")]
            .iter()
            .map(|&(path, stem)| CommandFile {
                path,
                claude_fallback: "unused",
                events_default: stem,
                group: 0,
            })
            .collect();
        assert_eq!(shared_stems(&files), vec![1, 2]);
        assert_eq!(shared_stems(&files[..2]), Vec::<usize>::new());
    }

    #[test]
    fn may_repeat_as_copy_candidates_finds_them() {
        let tree = TempTree::new("repeat");
        let dir = tree.text();
        let write = |name: &str, bytes: &[u8]| {
            let path = format!("{dir}/{name}");
            std::fs::create_dir_all(Path::new(&path).parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let check = |named: &[(&str, &str)]| {
            let files: Vec<CommandFile> = named
                .iter()
                .map(|(path, stem)| CommandFile {
                    path,
                    claude_fallback: "unused",
                    events_default: stem,
                    group: 0,
                })
                .collect();
            let one = may_repeat(&files, 1);
            assert_eq!(may_repeat(&files, 3), one, "the threads change nothing");
            one
        };
        let head = vec![b'x'; 4096];
        let a = write("a/s.jsonl", &[head.as_slice(), b"one"].concat());
        let b = write("b/s.jsonl", &[head.as_slice(), b"two"].concat());
        let c = write("c/s.jsonl", &[head.as_slice(), b"three"].concat());
        let d = write("d/s.jsonl", b"other content");
        let e = write("e/s.jsonl", b"other_content");
        // the same stem, size and first 4096 bytes (the tails differ): may repeat
        assert!(check(&[(&a, "s"), (&b, "s")]));
        // the same head under other stems: never compared
        assert!(!check(&[(&a, "s"), (&b, "t")]));
        // the same stem and head, other sizes
        assert!(!check(&[(&a, "s"), (&c, "s")]));
        // the same stem and size, other heads
        assert!(!check(&[(&d, "s"), (&e, "s")]));
        // two of a group of three share a head
        assert!(check(&[(&d, "s"), (&a, "s"), (&e, "s"), (&b, "s")]));
        assert!(!check(&[(&d, "s"), (&a, "s"), (&e, "s"), (&c, "s")]));
        // equal heads apart in walk order, another between them
        let d_copy = write("h/s.jsonl", b"other content");
        assert!(check(&[(&d, "s"), (&e, "s"), (&d_copy, "s")]));
        assert!(check(&[(&e, "s"), (&d, "s"), (&d_copy, "s")]));
        // paths that cannot be read: -1 and no head, so a group of two may repeat (the
        // one place this is stricter than copy_candidates, which skips a path that is
        // not a file); a path alone under its stem is not opened at all
        let gone = format!("{dir}/gone/s.jsonl");
        let gone2 = format!("{dir}/gone2/s.jsonl");
        assert!(check(&[(&gone, "s"), (&gone2, "s")]));
        assert!(!check(&[(&gone, "s"), (&a, "s")]));
        assert!(!check(&[(&gone, "g"), (&gone2, "h")]));
        // a gzip file's head says nothing: with another of its stem and ISIZE, it may
        let gz = write("f/s.jsonl", b"\x1f\x8b\x08\x00\x0d\x00\x00\x00");
        assert!(check(&[(&gz, "s"), (&d, "s")]));
        let other_size = write("g/s.jsonl", b"fourteen bytes");
        assert!(!check(&[(&gz, "s"), (&other_size, "s")]));
        assert!(!check(&[]));
        assert!(!check(&[(&a, "s")]));
    }

    #[test]
    fn summarize_declines_inputs_that_may_repeat() {
        let tree = TempTree::new("copies");
        let dir = tree.text();
        let first = format!("{dir}/a.jsonl");
        let second = format!("{dir}/sub/a.jsonl");
        std::fs::create_dir_all(format!("{dir}/sub")).unwrap();
        std::fs::write(&first, TREE[2].1).unwrap();
        std::fs::write(&second, TREE[2].1).unwrap();
        let files = [named(&first, "a", 0), named(&second, "a", 1)];
        let lists = sniffer_lists();
        let sniffers = lists.sniffers();
        let result = summarize(&files, &[], OPTIONS, &sniffers, &settings(), 2);
        assert_eq!(result.err(), Some(Decline::MayRepeat));
        // a run declined before the render never calls meanwhile
        let declined = summarize_then(
            &files,
            &[],
            OPTIONS,
            &sniffers,
            &settings(),
            2,
            None,
            None,
            By::Lanes,
            |_| None,
            |_, _, _| panic!("meanwhile called for a declined run"),
        );
        assert_eq!(declined.err(), Some(Decline::MayRepeat));
        // under another stem the same content is read (the Python command would too)
        let files = [
            CommandFile {
                events_default: "b",
                ..files[1]
            },
            CommandFile { ..files[0] },
        ];
        assert!(summarize(&files, &[], OPTIONS, &sniffers, &settings(), 2).is_ok());
    }

    #[test]
    fn summarize_declines_a_file_it_does_not_read() {
        let tree = TempTree::new("decline");
        let dir = tree.text();
        let good = format!("{dir}/a.jsonl");
        let empty = format!("{dir}/b.jsonl");
        std::fs::write(&good, TREE[2].1).unwrap();
        std::fs::write(&empty, "").unwrap();
        let files = [named(&good, "a", 0), named(&empty, "b", 0)];
        let lists = sniffer_lists();
        let sniffers = lists.sniffers();
        let result = summarize(&files, &[], OPTIONS, &sniffers, &settings(), 2);
        assert_eq!(result.err(), Some(Decline::NotNative(1)));
        // no file at all: the empty document
        let document = summarize(&[], &[], OPTIONS, &sniffers, &settings(), 3).unwrap();
        assert_eq!(
            String::from_utf8(document.json).unwrap(),
            format!("{EMPTY_DOCUMENT}\n")
        );
    }

    /// The threads left over when there are fewer groups than jobs split each group's
    /// read (`readers::SPLIT_READS` counts the split reads; the output is the same).
    /// That counter is shared by every test of the process, so this test counts in a
    /// process of its own, where it is the only test.
    #[test]
    fn summarize_splits_the_groups_reads_over_the_threads_left_over() {
        const CHILD: &str = "WAVEMETRICS_COMMAND_TEST_CHILD";
        const NAME: &str =
            "command::tests::summarize_splits_the_groups_reads_over_the_threads_left_over";
        if std::env::var_os(CHILD).is_none() {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", NAME, "--test-threads=1"])
                .env(CHILD, "1")
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{stdout}\n{stderr}");
            assert!(
                stdout.contains("test result: ok. 1 passed"),
                "{stdout}\n{stderr}"
            );
            return;
        }
        let tree = TempTree::new("threads");
        // two groups of two files each: jobs / 2 threads for each group's read, a split
        // read when that is 2 or more
        for (jobs, splits) in [(1, 0), (2, 0), (3, 0), (4, 2), (5, 2), (6, 2)] {
            let before = readers::SPLIT_READS.load(Ordering::Relaxed);
            let (result, want) = summarize_tree(&tree, &[], jobs);
            let after = readers::SPLIT_READS.load(Ordering::Relaxed);
            assert_eq!(
                String::from_utf8(result.unwrap().json).unwrap(),
                want,
                "jobs {jobs}"
            );
            assert_eq!(after - before, splits, "jobs {jobs}");
        }
    }
}
