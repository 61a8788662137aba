//! The native `summarize --format json` (issue 12): the files a folder walk found,
//! detected and read in one folded pass on threads ([`readers::read_folded`]), then
//! the read outcome assembled as `wavemetrics/pipeline.py` assembles it (units in
//! order of first appearance, one report per input in walk order, the lanes of each
//! unit in reading order), the lanes merged as `summary.merge_summaries` merges them
//! (every float sum in lane order, so the same bits), and the whole document written
//! as `report.render_json` writes it (`json.dumps(doc, indent=2)`, byte for byte:
//! [`crate::pyjson`]).
//!
//! It covers the common run only. Anything the Python pipeline would report in
//! another way is a [`Decline`]: the caller (`wavemetrics/fastpath.py`) then runs the
//! Python command, which gives the reference output. The walk, the sub-agent notes
//! and the cache stay in Python.

use crate::account::LineAccount;
use crate::detect::{Detected, Sniffers};
use crate::pyjson::{write_ascii_string, write_float, write_int, write_unicode_string};
use crate::readers::{self, FoldFile, FoldOut, UnitOut};
use crate::summary::{Settings, Summary};
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::path::Path;

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
    /// This input (by walk index) is neither `claude-code` nor `events` to the native
    /// detection: empty, unreadable, another format or no trace (the registry decides).
    NotNative(usize),
    /// A unit could not be read natively (I/O, a turn total that overflows).
    ReadFailed,
    /// A unit was read a second time in batch mode (its reports carry a note added
    /// after the sorted ones).
    ReadAgain,
    /// This input's every record was a problem: an error (`_no_usable_record`).
    NoUsableRecord(usize),
    /// Two units gave a lane with the same session and lane ids (`repeated_lanes`).
    RepeatedLane,
    /// A count of the merged total does not fit in 64 bits.
    Overflow,
}

impl Decline {
    /// A short reason, for the caller's tests and `WAVEMETRICS_FAST_PATH_DEBUG`.
    pub fn reason(&self) -> &'static str {
        match self {
            Decline::NotNative(_) => "an input is not read natively",
            Decline::ReadFailed => "a unit could not be read natively",
            Decline::ReadAgain => "a unit was read again in batch mode",
            Decline::NoUsableRecord(_) => "an input has no usable record",
            Decline::RepeatedLane => "a lane was read from several inputs",
            Decline::Overflow => "a total count overflows",
        }
    }
}

/// What the notes on stderr need of an input (`wavemetrics/notes.py`).
#[derive(Debug, Clone, PartialEq)]
pub struct InputFact {
    pub format: &'static str,
    pub lines_read: u64,
    pub lines_used: u64,
    pub lines_ignored: u64,
    /// Unusable lines by reason, sorted by reason.
    pub problems: Vec<(&'static str, u64)>,
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

/// Read the run's files (`files` in walk order; `skipped`: the sidecars the walk
/// passed over, `(path, reason)` in path order) on `jobs` threads, and render its
/// document; a [`Decline`] when the Python command must run instead.
pub fn summarize(
    files: &[CommandFile],
    skipped: &[(String, String)],
    sniffers: &Sniffers,
    settings: &Settings,
    jobs: usize,
) -> Result<Document, Decline> {
    let groups = groups_of(files);
    // the threads left over when there are fewer groups than jobs go to splitting
    let per_group = (jobs / groups.len().max(1)).max(1);
    let outs = crate::parallel::map_indexed(groups.len(), jobs, |g| {
        let members: Vec<FoldFile> = groups[g]
            .iter()
            .map(|&i| FoldFile {
                path: Path::new(files[i].path),
                claude_fallback: files[i].claude_fallback,
                events_default: files[i].events_default,
            })
            .collect();
        readers::read_folded(&members, sniffers, settings, per_group)
    });
    let outcome = assemble(files.len(), &groups, &outs)?;
    let paths: Vec<&str> = files.iter().map(|f| f.path).collect();
    render(&paths, &outcome, skipped)
}

/// One input's place in the outcome: its format and its line account.
struct Read<'a> {
    format: &'static str,
    account: &'a LineAccount,
}

/// The read outcome: every input's account (walk order) and every lane (unit order),
/// each lane with the walk index of its input.
pub struct Outcome<'a> {
    inputs: Vec<Read<'a>>,
    lanes: Vec<(usize, &'a readers::LaneOut)>,
}

/// A unit of the run: a group's Claude Code files, or one `events` file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Claude(usize),
    Events(usize),
}

fn unit_out(out: &Option<UnitOut>) -> Result<&UnitOut, Decline> {
    match out {
        Some(unit) if unit.read_again_in_batch => Err(Decline::ReadAgain),
        Some(unit) => Ok(unit),
        None => Err(Decline::ReadFailed),
    }
}

/// The read outcome of `count` files from the folded reads `outs` of `groups`
/// (as [`groups_of`] gives them), as `pipeline._read_inputs` assembles it.
pub fn assemble<'a>(
    count: usize,
    groups: &[Vec<usize>],
    outs: &'a [FoldOut],
) -> Result<Outcome<'a>, Decline> {
    let mut reads: Vec<Option<Read<'a>>> = (0..count).map(|_| None).collect();
    let mut units: Vec<Option<(Unit, &'a UnitOut, Vec<usize>)>> =
        (0..count).map(|_| None).collect();
    for (g, (members, out)) in groups.iter().zip(outs).enumerate() {
        let mut claude = Vec::new();
        for (k, &file) in members.iter().enumerate() {
            match out.found.get(k).copied().flatten() {
                Some(Detected::ClaudeCode) => claude.push(file),
                Some(Detected::Events) => {}
                None => return Err(Decline::NotNative(file)),
            }
        }
        if !claude.is_empty() {
            let unit = unit_out(&out.claude)?;
            for (j, &file) in claude.iter().enumerate() {
                let account = unit.accounts.get(j).ok_or(Decline::ReadFailed)?;
                reads[file] = Some(Read {
                    format: "claude-code",
                    account,
                });
            }
            // the unit appears where its first file (in walk order) does
            let first = claude.iter().copied().min().unwrap_or(0);
            units[first] = Some((Unit::Claude(g), unit, claude));
        }
        for (k, out) in &out.events {
            let file = *members.get(*k).ok_or(Decline::ReadFailed)?;
            let unit = unit_out(out)?;
            let account = unit.accounts.first().ok_or(Decline::ReadFailed)?;
            reads[file] = Some(Read {
                format: "events",
                account,
            });
            units[file] = Some((Unit::Events(file), unit, vec![file]));
        }
    }
    let inputs: Vec<Read> = reads
        .into_iter()
        .enumerate()
        .map(|(file, read)| read.ok_or(Decline::NotNative(file)))
        .collect::<Result<_, _>>()?;
    for (file, read) in inputs.iter().enumerate() {
        let problems: u64 = read.account.problems.iter().map(|(_, n)| n).sum();
        if problems > 0 && read.account.lines_used == 0 {
            return Err(Decline::NoUsableRecord(file));
        }
    }
    let mut lanes = Vec::new();
    let mut seen = HashSet::new();
    for (_, unit, files) in units.iter().flatten() {
        for lane in &unit.lanes {
            let file = *files.get(lane.file).ok_or(Decline::ReadFailed)?;
            if !seen.insert((lane.session_id.as_str(), lane.lane_id.as_str())) {
                return Err(Decline::RepeatedLane);
            }
            lanes.push((file, lane));
        }
    }
    Ok(Outcome { inputs, lanes })
}

/// `merge_summaries` of the lanes, in lane order: every sum starts from the identity
/// (`0`, `0.0`) and adds each lane's figure in turn (the same float bits), the
/// histogram position by position (exact). `None` when a count overflows 64 bits.
pub fn merge<'a>(summaries: impl IntoIterator<Item = &'a Summary>) -> Option<Summary> {
    let mut t = Summary::default();
    for s in summaries {
        t.clock_anomalies = t.clock_anomalies.checked_add(s.clock_anomalies)?;
        t.dropped_calls = t.dropped_calls.checked_add(s.dropped_calls)?;
        t.eval_only_duration_ms += s.eval_only_duration_ms;
        t.eval_only_waves = t.eval_only_waves.checked_add(s.eval_only_waves)?;
        t.incomplete_calls = t.incomplete_calls.checked_add(s.incomplete_calls)?;
        t.measured_turn_duration_ms_total += s.measured_turn_duration_ms_total;
        t.mixed_waves = t.mixed_waves.checked_add(s.mixed_waves)?;
        t.modeled_wallclock_saved_ms += s.modeled_wallclock_saved_ms;
        t.non_eval_joined_calls = t
            .non_eval_joined_calls
            .checked_add(s.non_eval_joined_calls)?;
        t.non_eval_saved_round_trips = t
            .non_eval_saved_round_trips
            .checked_add(s.non_eval_saved_round_trips)?;
        for (total, count) in t.histogram.iter_mut().zip(s.histogram) {
            *total = total.checked_add(count)?;
        }
        t.non_eval_waves_multi = t.non_eval_waves_multi.checked_add(s.non_eval_waves_multi)?;
        t.non_eval_waves_total = t.non_eval_waves_total.checked_add(s.non_eval_waves_total)?;
        t.upper_bound_saved_ms += s.upper_bound_saved_ms;
        t.observed_calls = t.observed_calls.checked_add(s.observed_calls)?;
        t.paired_calls = t.paired_calls.checked_add(s.paired_calls)?;
        t.malformed_observations = t
            .malformed_observations
            .checked_add(s.malformed_observations)?;
        t.duplicate_starts = t.duplicate_starts.checked_add(s.duplicate_starts)?;
        t.orphan_ends = t.orphan_ends.checked_add(s.orphan_ends)?;
        t.eval_outer_joined_calls = t
            .eval_outer_joined_calls
            .checked_add(s.eval_outer_joined_calls)?;
        t.mixed_non_eval_joined_calls = t
            .mixed_non_eval_joined_calls
            .checked_add(s.mixed_non_eval_joined_calls)?;
        t.tool_time_ms += s.tool_time_ms;
    }
    Some(t)
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

/// Counts sorted by key, as `dict(sorted(counter.items()))` orders them.
fn sorted<K: AsRef<[u8]> + Clone>(counts: &[(K, u64)]) -> Vec<(K, u64)> {
    let mut sorted = counts.to_vec();
    sorted.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
    sorted
}

/// The figures of a summary in `SUMMARY_FIELDS` order, then `waves_total`
/// (`report._summary_dict`).
fn figures(w: &mut Writer, s: &Summary) {
    w.int("clock_anomalies", s.clock_anomalies);
    w.int("dropped_calls", s.dropped_calls);
    w.float("eval_only_duration_ms", s.eval_only_duration_ms);
    w.int("eval_only_waves", s.eval_only_waves);
    w.int("incomplete_calls", s.incomplete_calls);
    w.float(
        "measured_turn_duration_ms_total",
        s.measured_turn_duration_ms_total,
    );
    w.int("mixed_waves", s.mixed_waves);
    w.float("modeled_wallclock_saved_ms", s.modeled_wallclock_saved_ms);
    w.int("non_eval_joined_calls", s.non_eval_joined_calls);
    w.int("non_eval_saved_round_trips", s.non_eval_saved_round_trips);
    w.text("non_eval_wave_size_histogram", &s.histogram_text());
    w.int("non_eval_waves_multi", s.non_eval_waves_multi);
    w.int("non_eval_waves_total", s.non_eval_waves_total);
    w.float("upper_bound_saved_ms", s.upper_bound_saved_ms);
    w.int("observed_calls", s.observed_calls);
    w.int("paired_calls", s.paired_calls);
    w.int("malformed_observations", s.malformed_observations);
    w.int("duplicate_starts", s.duplicate_starts);
    w.int("orphan_ends", s.orphan_ends);
    w.int("eval_outer_joined_calls", s.eval_outer_joined_calls);
    w.int("mixed_non_eval_joined_calls", s.mixed_non_eval_joined_calls);
    w.float("tool_time_ms", s.tool_time_ms);
    // waves_total, the derived property; a sum past 64 bits is caught by merge
    let waves = s
        .non_eval_waves_total
        .saturating_add(s.eval_only_waves)
        .saturating_add(s.mixed_waves);
    w.int("waves_total", waves);
}

/// The `--format json` document of `outcome` (`report.json_document` and
/// `render_json`), with the facts of its inputs and lanes.
pub fn render(
    paths: &[&str],
    outcome: &Outcome,
    skipped: &[(String, String)],
) -> Result<Document, Decline> {
    let total =
        merge(outcome.lanes.iter().map(|(_, lane)| &lane.summary)).ok_or(Decline::Overflow)?;
    let mut w = Writer::new();
    w.open(b'{');
    w.text("schema_kind", "parallelism_v1");
    w.key("inputs");
    w.open(b'[');
    let mut inputs = Vec::with_capacity(outcome.inputs.len());
    for (path, read) in paths.iter().zip(&outcome.inputs) {
        let a = read.account;
        let problems = sorted(&a.problems);
        w.member();
        w.open(b'{');
        w.text("path", path);
        w.text("format", read.format);
        w.int("lines_read", a.lines_read);
        w.int("lines_used", a.lines_used);
        w.int("lines_ignored", a.lines_ignored());
        w.counts("problems", &problems);
        w.counts("ignored", &sorted(&a.ignored));
        w.counts("notes", &sorted(&a.notes));
        w.key("error");
        w.out.extend_from_slice(b"null");
        w.close(b'}');
        inputs.push(InputFact {
            format: read.format,
            lines_read: a.lines_read,
            lines_used: a.lines_used,
            lines_ignored: a.lines_ignored(),
            problems,
        });
    }
    w.close(b']');
    w.key("lanes");
    w.open(b'[');
    let mut lanes = Vec::with_capacity(outcome.lanes.len());
    for (file, lane) in &outcome.lanes {
        w.member();
        w.open(b'{');
        w.text("path", paths[*file]);
        w.text("session_id", &lane.session_id);
        w.text("lane_id", &lane.lane_id);
        w.text(
            "session_hash",
            &session_hash(&lane.session_id, &lane.lane_id),
        );
        figures(&mut w, &lane.summary);
        w.close(b'}');
        lanes.push(LaneFact {
            file: *file,
            session_id: lane.session_id.clone(),
            lane_id: lane.lane_id.clone(),
        });
    }
    w.close(b']');
    w.key("total");
    w.open(b'{');
    figures(&mut w, &total);
    w.close(b'}');
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
    w.close(b'}');
    w.out.push(b'\n');
    Ok(Document {
        json: w.out,
        inputs,
        lanes,
    })
}
