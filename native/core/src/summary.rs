//! Pairing, streaming wave assembly and the bucket summary of one lane
//! (`docs/metrics.md` sections 1-5), as `wavemetrics/core/stream.py` computes them:
//! the same emission schedule, the same sort order, float sums in wave order.

use crate::activity::{Activity, Timing};
pub use crate::classify::{is_eval_normal, normalize_tool_name, wave_size_bucket};
use hashbrown::HashMap;
use std::rc::Rc;

const FIRST_CHECK: usize = 64;

/// Summary options shared by every lane of a read.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `None`: unbounded.
    pub max_tracked_calls: Option<usize>,
    /// Eval names in normal form, empty ones dropped.
    pub eval_names: Vec<String>,
    /// Emit waves while reading (streaming); `false`: hold every call (batch).
    pub stream: bool,
    /// Batchable names (section 9) in normal form, empty ones dropped.
    pub batchable_names: Vec<String>,
    /// A gap longer than this (ms) is idle and ends a serial run; `0.0` disables both.
    pub idle_gap_ms: f64,
    /// Keep every observation as fed ([`LaneRecords`]: a batch read's lanes, which the
    /// Python core assembles); `false`: only the figures.
    pub record: bool,
}

/// One figure's value as a writer takes it: a count, a float (ms), or the histogram
/// (bucket counts, written as its v1 wire string).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Figure<'a> {
    Count(u64),
    Ms(f64),
    Histogram(&'a [u64; 8]),
}

/// The type of a figure: how it is read out ([`Figure`]) and how two lanes' values
/// merge (`docs/metrics.md` section 8, `schema.merge_value`).
pub trait FigureValue {
    fn figure(&self) -> Figure<'_>;
    /// `self` merged with `other`; `None` when a count overflows 64 bits.
    fn add(&mut self, other: &Self) -> Option<()>;
    /// The value `figure` holds, when it is of this type's kind.
    fn from_figure(figure: Figure<'_>) -> Option<Self>
    where
        Self: Sized;
}

impl FigureValue for u64 {
    fn figure(&self) -> Figure<'_> {
        Figure::Count(*self)
    }
    fn from_figure(figure: Figure<'_>) -> Option<Self> {
        match figure {
            Figure::Count(n) => Some(n),
            _ => None,
        }
    }
    fn add(&mut self, other: &Self) -> Option<()> {
        *self = self.checked_add(*other)?;
        Some(())
    }
}

impl FigureValue for f64 {
    fn figure(&self) -> Figure<'_> {
        Figure::Ms(*self)
    }
    fn from_figure(figure: Figure<'_>) -> Option<Self> {
        match figure {
            Figure::Ms(ms) => Some(ms),
            _ => None,
        }
    }
    fn add(&mut self, other: &Self) -> Option<()> {
        *self += *other;
        Some(())
    }
}

/// A count merged by maximum (`Merge.MAX`: `max_turn_width`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MaxCount(pub u64);

impl FigureValue for MaxCount {
    fn figure(&self) -> Figure<'_> {
        Figure::Count(self.0)
    }
    fn from_figure(figure: Figure<'_>) -> Option<Self> {
        u64::from_figure(figure).map(MaxCount)
    }
    /// The larger of the two (never overflows).
    fn add(&mut self, other: &Self) -> Option<()> {
        self.0 = self.0.max(other.0);
        Some(())
    }
}

impl FigureValue for [u64; 8] {
    fn figure(&self) -> Figure<'_> {
        Figure::Histogram(self)
    }
    fn from_figure(figure: Figure<'_>) -> Option<Self> {
        match figure {
            Figure::Histogram(h) => Some(*h),
            _ => None,
        }
    }
    /// Position by position (`histogram.add_histograms`).
    fn add(&mut self, other: &Self) -> Option<()> {
        for (total, count) in self.iter_mut().zip(other) {
            *total = total.checked_add(*count)?;
        }
        Some(())
    }
}

/// The histogram as the v1 wire string: the eight counts joined by `:`.
pub fn histogram_text(histogram: &[u64; 8]) -> String {
    histogram
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(":")
}

/// Declares the figures once: the [`Summary`] fields, [`FIGURE_NAMES`],
/// [`Summary::figures`] (what the JSON writer and the binding's tuple read, in
/// order) and [`Summary::add`] (the merge) all follow from one list.
macro_rules! figures {
    ($($name:ident: $type:ty,)*) => {
        /// Every figure of a `ParallelismSummary`, in `SUMMARY_FIELDS` order.
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct Summary {
            $(pub $name: $type,)*
        }

        /// The figures' names in order: `SUMMARY_FIELDS` of `wavemetrics/core/schema.py`
        /// (the extension's `figure_names()`; a Python test keeps the two equal).
        pub const FIGURE_NAMES: &[&str] = &[$(stringify!($name)),*];

        impl Summary {
            /// Every figure with its name, in [`FIGURE_NAMES`] order.
            pub fn figures(&self) -> [(&'static str, Figure<'_>); FIGURE_NAMES.len()] {
                [$((stringify!($name), self.$name.figure())),*]
            }

            /// The summary whose [`Summary::figures`] are `values` (in [`FIGURE_NAMES`]
            /// order: a summary the Python core made, handed over); `None` when there
            /// are more or fewer, or one is not of its figure's kind.
            pub fn from_figures(values: &[Figure<'_>]) -> Option<Summary> {
                let mut values = values.iter().copied();
                let summary = Summary {
                    $($name: FigureValue::from_figure(values.next()?)?,)*
                };
                values.next().is_none().then_some(summary)
            }

            /// `merge_two` (section 8): `other`'s figures added to these, each by its
            /// rule; `None` when a count overflows 64 bits (`self` is then partly merged).
            pub fn add(&mut self, other: &Summary) -> Option<()> {
                $(self.$name.add(&other.$name)?;)*
                Some(())
            }
        }
    };
}

// Adding a figure: its row in `PROPERTIES` (`wavemetrics/core/schema.py`), its update in
// `SummaryAccumulator` (`wavemetrics/core/summary.py`) and in `LaneStream` below, and its
// row here, at the same place as in `SUMMARY_FIELDS`.
figures! {
    clock_anomalies: u64,
    dropped_calls: u64,
    eval_only_duration_ms: f64,
    eval_only_waves: u64,
    incomplete_calls: u64,
    measured_turn_duration_ms_total: f64,
    mixed_waves: u64,
    modeled_wallclock_saved_ms: f64,
    non_eval_joined_calls: u64,
    non_eval_saved_round_trips: u64,
    non_eval_wave_size_histogram: [u64; 8],
    non_eval_waves_multi: u64,
    non_eval_waves_total: u64,
    upper_bound_saved_ms: f64,
    observed_calls: u64,
    paired_calls: u64,
    malformed_observations: u64,
    duplicate_starts: u64,
    orphan_ends: u64,
    eval_outer_joined_calls: u64,
    mixed_non_eval_joined_calls: u64,
    tool_time_ms: f64,
    calls_without_batch: u64,
    batched_turns: u64,
    multi_call_turns: u64,
    turn_width_histogram: [u64; 8],
    max_turn_width: MaxCount,
    missed_batch_runs: u64,
    missed_batch_calls: u64,
    missed_batch_round_trips: u64,
    missed_batch_upper_ms: f64,
    lane_span_ms: f64,
    tool_busy_ms: f64,
    idle_ms: f64,
    calls_timed_by_execution: u64,
    calls_timed_by_message: u64,
}

/// An open (paired, not yet summarised) call: start, end, pairing sequence, tool name.
type OpenCall = (f64, f64, u64, Rc<str>);

/// A batch key: the bytes of the key of the model response that issued a call.
pub type BatchKey = Rc<[u8]>;

/// A pending start: tool name, time, batch key.
type PendingStart = (Rc<str>, f64, Option<BatchKey>);

/// The name an end observation carries when no start named its call
/// (`readers/lanes.py` `UNKNOWN_TOOL`).
pub const UNKNOWN_TOOL: &str = "unknown";

/// A lane's observations as a batch read keeps them (`pipeline._BatchLane`), in the order
/// they were fed, as parallel columns: `starts[i]` says whether observation `i` is a start;
/// an end carries the name of the last start of its call in the lane, else
/// [`UNKNOWN_TOOL`]; `batches` are the batch keys' bytes. `turn_total_ms` and `turns`: the
/// lane's measured turn total (ms) and turn intervals, as [`LaneStream::finish`] takes them.
/// Owned (no `Rc`), so that a unit read on a worker thread can be handed back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaneRecords {
    pub starts: Vec<bool>,
    pub call_ids: Vec<Box<str>>,
    pub tool_names: Vec<Box<str>>,
    pub at_ms: Vec<f64>,
    pub batches: Vec<Option<Box<[u8]>>>,
    pub turn_total_ms: f64,
    pub turns: Vec<(f64, f64)>,
    /// Whether a call id or tool name holds U+FFFD, which a reader also makes of what
    /// a Rust string cannot hold (a lone surrogate, kept by Python): such records may
    /// not be the Python readers', so the unit is read by them instead.
    pub replaced: bool,
    /// Where the lane's call times come from (section 9), as the reader finished it.
    pub timing: Timing,
    /// Each paired call of the waves summarised, in wave order and in each wave's
    /// order (what `--by tool` counts: `groups._by_tool`, and `waves` lists).
    pub wave_calls: Vec<WaveCall>,
    /// Each wave summarised, in order: its calls are the next `size` of `wave_calls`.
    pub waves: Vec<WaveShape>,
    /// The call id of each paired call, in pairing order (a call's pairing sequence
    /// less one), for `wave_calls`.
    pub paired_ids: Vec<Box<str>>,
}

/// A wave's bucket (`classify.WaveBucket`): no eval call, only eval calls, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    NonEval,
    EvalOnly,
    Mixed,
}

impl Bucket {
    /// The wire spelling (`WaveBucket.value`).
    pub fn name(self) -> &'static str {
        match self {
            Bucket::NonEval => "non_eval",
            Bucket::EvalOnly => "eval_only",
            Bucket::Mixed => "mixed",
        }
    }
}

/// A wave as `waves` lists it (`report._wave_rows`): its calls, its first start
/// (ms, Python's `min` of the starts), its span (ms: last end less first start), its
/// peak concurrency (`waves.peak_concurrency`), its bucket and its modeled saving
/// (ms: the durations summed in wave order less the span; `0.0` for one call:
/// `savings.modeled_wallclock_saved_ms`).
#[derive(Debug, Clone, PartialEq)]
pub struct WaveShape {
    pub size: usize,
    pub start_ms: f64,
    pub span_ms: f64,
    pub max_concurrency: usize,
    pub bucket: Bucket,
    pub saved_ms: f64,
}

/// A paired call as its wave left it, for `--by tool` and `waves`: its call id, tool
/// name, start and end (ms), its duration (ms), whether its wave is a `non_eval` wave
/// of 2 calls or more (`multi`), and whether its wave holds an eval call (eval-only
/// or mixed).
#[derive(Debug, Clone, PartialEq)]
pub struct WaveCall {
    pub call_id: Box<str>,
    pub tool_name: Box<str>,
    pub start_ms: f64,
    pub end_ms: f64,
    pub duration_ms: f64,
    pub multi: bool,
    pub eval_or_mixed: bool,
}

/// What a finished lane gives: its figures, and its observations when the read keeps them
/// ([`Settings::record`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Finished {
    pub summary: Summary,
    pub records: Option<Box<LaneRecords>>,
}

/// The observations of a lane being read with [`Settings::record`]: the columns, and the
/// name of the last start of each call id (an end's name).
#[derive(Default)]
struct Recorder {
    records: LaneRecords,
    names: HashMap<Rc<str>, Rc<str>>,
}

impl Recorder {
    fn observe(
        &mut self,
        start: bool,
        call_id: &str,
        tool_name: &str,
        at_ms: f64,
        batch: Option<&BatchKey>,
    ) {
        let r = &mut self.records;
        r.replaced |= call_id.contains('\u{fffd}') || tool_name.contains('\u{fffd}');
        r.starts.push(start);
        r.call_ids.push(call_id.into());
        r.tool_names.push(tool_name.into());
        r.at_ms.push(at_ms);
        r.batches.push(batch.map(|key| Box::from(&key[..])));
    }
}

/// A paired call that would join a wave already summarised: the lane must be read in batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamOrderError;

/// One lane's pairing and wave assembly, incrementally (`stream.py` `LaneStream`).
pub struct LaneStream {
    cap: Option<usize>,
    stream: bool,
    eval_names: Rc<[String]>,
    eval_memo: HashMap<Rc<str>, bool>,
    pending: HashMap<Rc<str>, PendingStart>,
    open: Vec<OpenCall>,
    figures: Summary,
    activity: Activity,
    max_start: f64,
    emitted_reach: f64,
    check_at: usize,
    recorder: Option<Box<Recorder>>,
}

/// Python's `max(a, b)`: `a` unless `b > a`.
fn py_max(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

fn py_min(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

impl LaneStream {
    /// A lane read with `settings`; `eval_names` and `batchable_names` are
    /// `settings`' (shared by the lanes of a read).
    pub fn new(
        settings: &Settings,
        eval_names: Rc<[String]>,
        batchable_names: Rc<[String]>,
    ) -> Self {
        LaneStream {
            activity: Activity::new(batchable_names, eval_names.clone(), settings.idle_gap_ms),
            cap: settings.max_tracked_calls.filter(|&c| c > 0),
            stream: settings.stream,
            eval_names,
            eval_memo: HashMap::new(),
            pending: HashMap::new(),
            open: Vec::new(),
            figures: Summary::default(),
            max_start: f64::NEG_INFINITY,
            emitted_reach: f64::NEG_INFINITY,
            check_at: FIRST_CHECK,
            recorder: settings.record.then(Box::default),
        }
    }

    /// A valid start observation (section 1); `batch`: the key of the model response
    /// that issued it (section 9), `None` when the format gives none.
    pub fn start(
        &mut self,
        call_id: Rc<str>,
        tool_name: Rc<str>,
        at_ms: f64,
        batch: Option<BatchKey>,
    ) {
        if let Some(recorder) = &mut self.recorder {
            recorder.observe(true, &call_id, &tool_name, at_ms, batch.as_ref());
            recorder.names.insert(call_id.clone(), tool_name.clone());
        }
        self.figures.observed_calls += 1;
        self.max_start = py_max(self.max_start, at_ms);
        if let Some(cap) = self.cap {
            if self.figures.paired_calls as usize + self.pending.len() >= cap {
                self.figures.dropped_calls += 1;
                return;
            }
        }
        if let Some(slot) = self.pending.get_mut(&*call_id) {
            self.figures.duplicate_starts += 1;
            *slot = (tool_name, at_ms, batch);
        } else {
            self.pending.insert(call_id, (tool_name, at_ms, batch));
        }
    }

    /// A valid end observation (section 1).
    pub fn end(&mut self, call_id: &str, at_ms: f64) -> Result<(), StreamOrderError> {
        if let Some(recorder) = &mut self.recorder {
            let name = recorder.names.get(call_id).cloned();
            recorder.observe(
                false,
                call_id,
                name.as_deref().unwrap_or(UNKNOWN_TOOL),
                at_ms,
                None,
            );
        }
        let Some((tool_name, start_ms, batch)) = self.pending.remove(call_id) else {
            self.figures.orphan_ends += 1;
            return Ok(());
        };
        if at_ms < start_ms {
            self.figures.clock_anomalies += 1;
            return Ok(());
        }
        if start_ms <= self.emitted_reach {
            return Err(StreamOrderError);
        }
        self.figures.paired_calls += 1;
        if let Some(recorder) = &mut self.recorder {
            recorder.records.paired_ids.push(call_id.into());
        }
        self.activity
            .call(&tool_name, start_ms, at_ms, batch.as_ref());
        self.open
            .push((start_ms, at_ms, self.figures.paired_calls, tool_name));
        if self.stream && self.open.len() >= self.check_at {
            let threshold = self.threshold();
            self.emit(threshold);
            self.check_at = FIRST_CHECK.max(2 * self.open.len());
        }
        Ok(())
    }

    fn threshold(&self) -> f64 {
        let earliest = self
            .pending
            .values()
            .map(|(_, s, _)| *s)
            .fold(f64::INFINITY, py_min);
        py_min(self.max_start, earliest)
    }

    /// Emit, in order, the leading waves of the open region whose reach < threshold.
    fn emit(&mut self, threshold: f64) {
        let mut ordered = std::mem::take(&mut self.open);
        ordered.sort_by(|a, b| {
            a.0.partial_cmp(&b.0)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal))
                .then(a.2.cmp(&b.2))
        });
        let mut begin = 0;
        let mut reach = f64::NEG_INFINITY;
        let mut broke = false;
        for index in 0..ordered.len() {
            let (start_ms, end_ms) = (ordered[index].0, ordered[index].1);
            if index > begin && start_ms > reach {
                if reach >= threshold {
                    broke = true;
                    break;
                }
                self.emit_wave(&ordered[begin..index], reach);
                begin = index;
            }
            reach = py_max(reach, end_ms);
        }
        if !broke && begin < ordered.len() && reach < threshold {
            self.emit_wave(&ordered[begin..], reach);
            begin = ordered.len();
        }
        ordered.drain(..begin);
        self.open = ordered;
    }

    fn is_eval(&mut self, name: &Rc<str>) -> bool {
        if let Some(&known) = self.eval_memo.get(name) {
            return known;
        }
        let known = is_eval_normal(&normalize_tool_name(name), &self.eval_names);
        self.eval_memo.insert(name.clone(), known);
        known
    }

    /// `SummaryAccumulator.add` of one wave (calls in wave order).
    fn emit_wave(&mut self, calls: &[OpenCall], reach: f64) {
        self.emitted_reach = reach;
        self.activity.wave(calls[0].0, reach);
        let size = calls.len();
        // every call's duration is usable (section 3): the readers feed only
        // finite times >= 0 (section 1) and `end` pairs only `end >= start`
        let mut durations_sum = 0.0;
        for (start, end, _, _) in calls {
            let duration = end - start;
            self.figures.tool_time_ms += duration;
            durations_sum += duration;
        }
        // span: Python's max(ends) - min(starts), first extreme kept
        let mut max_end = calls[0].1;
        let mut min_start = calls[0].0;
        for (start, end, _, _) in &calls[1..] {
            max_end = py_max(max_end, *end);
            min_start = py_min(min_start, *start);
        }
        let span = max_end - min_start;
        let mut evals = 0;
        for (_, _, _, name) in calls {
            if self.is_eval(name) {
                evals += 1;
            }
        }
        if let Some(recorder) = &mut self.recorder {
            let records = &mut recorder.records;
            let (multi, eval_or_mixed) = (evals == 0 && size > 1, evals > 0);
            for (start, end, seq, name) in calls {
                // a call's sequence is its place in pairing order, from 1
                let call_id = records
                    .paired_ids
                    .get((*seq as usize).wrapping_sub(1))
                    .cloned()
                    .unwrap_or_default();
                records.wave_calls.push(WaveCall {
                    call_id,
                    tool_name: Box::from(&**name),
                    start_ms: *start,
                    end_ms: *end,
                    duration_ms: end - start,
                    multi,
                    eval_or_mixed,
                });
            }
            let bucket = if evals == size {
                Bucket::EvalOnly
            } else if evals > 0 {
                Bucket::Mixed
            } else {
                Bucket::NonEval
            };
            records.waves.push(WaveShape {
                size,
                start_ms: min_start,
                span_ms: span,
                max_concurrency: peak_concurrency(calls),
                bucket,
                // one call's duration less its span is 0.0 exactly: Python's 0.0
                saved_ms: durations_sum - span,
            });
        }
        let f = &mut self.figures;
        // finite times: the span is finite too; a wave is never empty
        if evals == size {
            f.eval_only_waves += 1;
            f.eval_only_duration_ms += span;
            f.eval_outer_joined_calls += size as u64;
        } else if evals > 0 {
            f.mixed_waves += 1;
            f.eval_outer_joined_calls += evals as u64;
            f.mixed_non_eval_joined_calls += (size - evals) as u64;
        } else {
            f.non_eval_waves_total += 1;
            f.non_eval_joined_calls += size as u64;
            if size > 1 {
                f.non_eval_waves_multi += 1;
            }
            f.non_eval_wave_size_histogram[wave_size_bucket(size)] += 1;
            let peak = peak_concurrency(calls);
            f.non_eval_saved_round_trips += peak.saturating_sub(1) as u64;
            // one call saves 0.0 (section 3), and adding 0.0 to these sums, which
            // are never -0.0, changes nothing (`summary.py` `add_single`)
            if size > 1 {
                f.modeled_wallclock_saved_ms += durations_sum - span;
                let n = size as f64;
                f.upper_bound_saved_ms += (n - 1.0) * (durations_sum / n);
            }
        }
    }

    /// [`finish_lane`](Self::finish_lane)'s figures alone (the tests' shorthand).
    #[cfg(test)]
    pub fn finish(self, turn_total_ms: f64, turns: &[(f64, f64)], timing: Timing) -> Summary {
        self.finish_lane(turn_total_ms, turns, timing).summary
    }

    /// Emit every remaining wave and return the lane's figures: `turn_total_ms` its
    /// measured turn total, `turns` its measured turn intervals (section 9, used when
    /// finite and positive), `timing` where its call times come from; with the lane's
    /// observations when it was read with [`Settings::record`].
    pub fn finish_lane(
        mut self,
        turn_total_ms: f64,
        turns: &[(f64, f64)],
        timing: Timing,
    ) -> Finished {
        // the waves still open first: the records then hold their calls too
        self.emit(f64::INFINITY);
        let records = self.recorder.take().map(|recorder| {
            let mut records = Box::new(recorder.records);
            records.turn_total_ms = turn_total_ms;
            records.turns = turns.to_vec();
            records.timing = timing;
            records
        });
        Finished {
            summary: self.summary_of(turn_total_ms, turns, timing),
            records,
        }
    }

    fn summary_of(mut self, turn_total_ms: f64, turns: &[(f64, f64)], timing: Timing) -> Summary {
        self.emit(f64::INFINITY);
        for (_, start_ms, _) in self.pending.values() {
            self.activity.incomplete_start(*start_ms);
        }
        for &(start_ms, end_ms) in turns {
            self.activity.turn(start_ms, end_ms);
        }
        let a = self.activity.result(timing);
        let f = &mut self.figures;
        f.incomplete_calls = self.pending.len() as u64;
        f.measured_turn_duration_ms_total = turn_total_ms;
        f.calls_without_batch = a.calls_without_batch;
        f.batched_turns = a.batched_turns;
        f.multi_call_turns = a.multi_call_turns;
        f.turn_width_histogram = a.turn_width_histogram;
        f.max_turn_width = MaxCount(a.max_turn_width);
        f.missed_batch_runs = a.missed_batch_runs;
        f.missed_batch_calls = a.missed_batch_calls;
        f.missed_batch_round_trips = a.missed_batch_round_trips;
        f.missed_batch_upper_ms = a.missed_batch_upper_ms;
        f.lane_span_ms = a.lane_span_ms;
        f.tool_busy_ms = a.tool_busy_ms;
        f.idle_ms = a.idle_ms;
        f.calls_timed_by_execution = a.calls_timed_by_execution;
        f.calls_timed_by_message = a.calls_timed_by_message;
        self.figures
    }
}

/// Peak of a sweep over `(start,+1)`/`(end,-1)` points, ends first at equal times.
fn peak_concurrency(calls: &[OpenCall]) -> usize {
    if calls.len() == 1 {
        return usize::from(calls[0].1 > calls[0].0);
    }
    let mut points: Vec<(f64, i8)> = Vec::with_capacity(2 * calls.len());
    for (start, end, _, _) in calls {
        points.push((*start, 1));
        points.push((*end, -1));
    }
    points.sort_by(|a, b| {
        a.0.partial_cmp(&b.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    let (mut running, mut peak) = (0i64, 0i64);
    for (_, delta) in points {
        running += i64::from(delta);
        peak = peak.max(running);
    }
    peak as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(stream: bool) -> Settings {
        Settings {
            max_tracked_calls: Some(2000),
            eval_names: vec!["eval".into(), "codemode".into(), "code_mode".into()],
            stream,
            batchable_names: vec!["read".into(), "grep".into()],
            idle_gap_ms: 300000.0,
            record: false,
        }
    }

    /// A lane stream with the name lists of `s`.
    fn lane_of(s: &Settings) -> LaneStream {
        LaneStream::new(
            s,
            s.eval_names.clone().into(),
            s.batchable_names.clone().into(),
        )
    }

    fn lane(stream: bool) -> LaneStream {
        lane_of(&settings(stream))
    }

    /// Waves worked out by hand: Read 0-10 and Grep 2-6 (paired b first, listed a
    /// first: wave order), an eval 20-21 alone, eval 30-34 with Bash 31-32, a
    /// zero-length Bash at 40.
    #[test]
    fn a_recording_lane_lists_its_waves_and_their_calls() {
        let s = Settings {
            record: true,
            ..settings(false)
        };
        let mut l = lane_of(&s);
        l.start("a".into(), "Read".into(), 0.0, None);
        l.start("b".into(), "Grep".into(), 2.0, None);
        l.end("b", 6.0).unwrap();
        l.end("a", 10.0).unwrap();
        l.start("c".into(), "eval".into(), 20.0, None);
        l.end("c", 21.0).unwrap();
        l.start("d".into(), "eval".into(), 30.0, None);
        l.start("e".into(), "Bash".into(), 31.0, None);
        l.end("e", 32.0).unwrap();
        l.end("d", 34.0).unwrap();
        l.start("f".into(), "Bash".into(), 40.0, None);
        l.end("f", 40.0).unwrap();
        let records = l.finish_lane(0.0, &[], Timing::Execution).records.unwrap();
        let shapes: Vec<_> = records
            .waves
            .iter()
            .map(|w| {
                (
                    w.size,
                    w.start_ms,
                    w.span_ms,
                    w.max_concurrency,
                    w.bucket.name(),
                    w.saved_ms,
                )
            })
            .collect();
        assert_eq!(
            shapes,
            [
                (2, 0.0, 10.0, 2, "non_eval", 4.0),
                (1, 20.0, 1.0, 1, "eval_only", 0.0),
                (2, 30.0, 4.0, 2, "mixed", 1.0),
                (1, 40.0, 0.0, 0, "non_eval", 0.0),
            ]
        );
        let calls: Vec<_> = records
            .wave_calls
            .iter()
            .map(|c| (&*c.call_id, &*c.tool_name, c.start_ms, c.end_ms))
            .collect();
        assert_eq!(
            calls,
            [
                ("a", "Read", 0.0, 10.0),
                ("b", "Grep", 2.0, 6.0),
                ("c", "eval", 20.0, 21.0),
                ("d", "eval", 30.0, 34.0),
                ("e", "Bash", 31.0, 32.0),
                ("f", "Bash", 40.0, 40.0),
            ]
        );
        let ids: Vec<&str> = records.paired_ids.iter().map(|id| &**id).collect();
        assert_eq!(ids, ["b", "a", "c", "e", "d", "f"]);
    }

    /// A lane read without recording keeps no waves.
    #[test]
    fn a_lane_not_recorded_lists_no_wave() {
        let mut l = lane(false);
        l.start("a".into(), "Read".into(), 0.0, None);
        l.end("a", 1.0).unwrap();
        let finished = l.finish_lane(0.0, &[], Timing::Execution);
        assert_eq!(finished.records, None);
    }

    #[test]
    fn a_recording_lane_keeps_every_observation_as_fed() {
        // `pipeline._BatchLane`: every start (a duplicate and one past the cap too), an
        // end named by its call's last start, an orphan end `unknown`
        let s = Settings {
            max_tracked_calls: Some(1),
            stream: false,
            record: true,
            ..settings(false)
        };
        let mut l = lane_of(&s);
        let key: BatchKey = b"m1".as_slice().into();
        l.start("a".into(), "Read".into(), 10.0, Some(key.clone()));
        l.start("a".into(), "Grep".into(), 11.0, Some(key));
        l.start("b".into(), "Bash".into(), 12.0, None);
        l.end("a", 20.0).unwrap();
        l.end("z", 30.0).unwrap();
        let finished = l.finish_lane(5.0, &[(1.0, 6.0)], Timing::Message);
        let records = finished.records.expect("kept");
        assert_eq!(records.starts, [true, true, true, false, false]);
        let texts = |c: &[Box<str>]| c.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        assert_eq!(texts(&records.call_ids), ["a", "a", "b", "a", "z"]);
        assert_eq!(
            texts(&records.tool_names),
            ["Read", "Grep", "Bash", "Grep", "unknown"]
        );
        assert_eq!(records.at_ms, [10.0, 11.0, 12.0, 20.0, 30.0]);
        let m1: Option<Box<[u8]>> = Some(b"m1".as_slice().into());
        assert_eq!(records.batches, [m1.clone(), m1, None, None, None]);
        assert_eq!(
            (records.turn_total_ms, records.turns.as_slice()),
            (5.0, &[(1.0, 6.0)][..])
        );
        // the figures are the lane's as ever: past the first start, the cap (checked
        // before duplicates, section 1) drops both others; a paired, z an orphan
        let f = &finished.summary;
        assert_eq!(
            (f.observed_calls, f.dropped_calls, f.duplicate_starts),
            (3, 2, 0)
        );
        assert_eq!((f.paired_calls, f.orphan_ends), (1, 1));
        assert!(!records.replaced);
        // a name holding U+FFFD (what a lone surrogate became) marks the records
        let mut odd = lane_of(&s);
        // (twice: the mark stays set, whatever follows)
        odd.start("a".into(), "mcp__\u{fffd}x".into(), 1.0, None);
        odd.end("a", 2.0).unwrap();
        let odd = odd
            .finish_lane(0.0, &[], Timing::Message)
            .records
            .expect("kept");
        assert!(odd.replaced);
        let mut odd_id = lane_of(&s);
        odd_id.end("\u{fffd}", 1.0).unwrap();
        assert!(
            odd_id
                .finish_lane(0.0, &[], Timing::Message)
                .records
                .expect("kept")
                .replaced
        );
        // without `record`, nothing is kept
        let mut plain = lane(false);
        plain.start("a".into(), "Read".into(), 10.0, None);
        assert_eq!(plain.finish_lane(0.0, &[], Timing::Message).records, None);
    }

    #[test]
    fn a_summary_is_made_again_from_its_figures_and_only_from_them() {
        let summary = Summary {
            clock_anomalies: 1,
            eval_only_duration_ms: 2.5,
            non_eval_wave_size_histogram: [0, 3, 1, 0, 0, 0, 0, 9],
            max_turn_width: MaxCount(7),
            idle_ms: -0.0,
            calls_timed_by_message: u64::MAX,
            ..Summary::default()
        };
        let figures: Vec<Figure> = summary.figures().iter().map(|(_, f)| *f).collect();
        let again = Summary::from_figures(&figures).unwrap();
        assert_eq!(again, summary);
        assert!(again.idle_ms.is_sign_negative());
        // one fewer, one more
        assert_eq!(Summary::from_figures(&figures[1..]), None);
        let mut longer = figures.clone();
        longer.push(Figure::Count(0));
        assert_eq!(Summary::from_figures(&longer), None);
        // each figure of another kind: a count where a float is, and so on
        for index in 0..figures.len() {
            let mut wrong = figures.clone();
            wrong[index] = match figures[index] {
                Figure::Count(_) => Figure::Ms(0.0),
                Figure::Ms(_) => Figure::Histogram(&[0; 8]),
                Figure::Histogram(_) => Figure::Count(0),
            };
            assert_eq!(
                Summary::from_figures(&wrong),
                None,
                "{}",
                FIGURE_NAMES[index]
            );
        }
    }

    #[test]
    fn figure_names_are_summary_fields_in_order() {
        // docs/metrics.md section 6: the 16 v1 keys less `$session_id` and
        // `schema_kind`, in contract order, then the extras
        assert_eq!(
            FIGURE_NAMES,
            [
                "clock_anomalies",
                "dropped_calls",
                "eval_only_duration_ms",
                "eval_only_waves",
                "incomplete_calls",
                "measured_turn_duration_ms_total",
                "mixed_waves",
                "modeled_wallclock_saved_ms",
                "non_eval_joined_calls",
                "non_eval_saved_round_trips",
                "non_eval_wave_size_histogram",
                "non_eval_waves_multi",
                "non_eval_waves_total",
                "upper_bound_saved_ms",
                "observed_calls",
                "paired_calls",
                "malformed_observations",
                "duplicate_starts",
                "orphan_ends",
                "eval_outer_joined_calls",
                "mixed_non_eval_joined_calls",
                "tool_time_ms",
                "calls_without_batch",
                "batched_turns",
                "multi_call_turns",
                "turn_width_histogram",
                "max_turn_width",
                "missed_batch_runs",
                "missed_batch_calls",
                "missed_batch_round_trips",
                "missed_batch_upper_ms",
                "lane_span_ms",
                "tool_busy_ms",
                "idle_ms",
                "calls_timed_by_execution",
                "calls_timed_by_message",
            ]
        );
    }

    /// A summary whose figures are all distinct: counts `k * (index + 1)`, floats
    /// `k * (index + 1) + 0.5`, histogram buckets `k * (100 + bucket)` and
    /// `k * (200 + bucket)`.
    fn distinct(k: u64) -> Summary {
        let mut s = Summary::default();
        let mut n = 0;
        let mut next = || {
            n += 1;
            k * n
        };
        s.clock_anomalies = next();
        s.dropped_calls = next();
        s.eval_only_duration_ms = next() as f64 + 0.5;
        s.eval_only_waves = next();
        s.incomplete_calls = next();
        s.measured_turn_duration_ms_total = next() as f64 + 0.5;
        s.mixed_waves = next();
        s.modeled_wallclock_saved_ms = next() as f64 + 0.5;
        s.non_eval_joined_calls = next();
        s.non_eval_saved_round_trips = next();
        next();
        s.non_eval_wave_size_histogram = [100, 101, 102, 103, 104, 105, 106, 107].map(|b| k * b);
        s.non_eval_waves_multi = next();
        s.non_eval_waves_total = next();
        s.upper_bound_saved_ms = next() as f64 + 0.5;
        s.observed_calls = next();
        s.paired_calls = next();
        s.malformed_observations = next();
        s.duplicate_starts = next();
        s.orphan_ends = next();
        s.eval_outer_joined_calls = next();
        s.mixed_non_eval_joined_calls = next();
        s.tool_time_ms = next() as f64 + 0.5;
        s.calls_without_batch = next();
        s.batched_turns = next();
        s.multi_call_turns = next();
        next();
        s.turn_width_histogram = [200, 201, 202, 203, 204, 205, 206, 207].map(|b| k * b);
        s.max_turn_width = MaxCount(next());
        s.missed_batch_runs = next();
        s.missed_batch_calls = next();
        s.missed_batch_round_trips = next();
        s.missed_batch_upper_ms = next() as f64 + 0.5;
        s.lane_span_ms = next() as f64 + 0.5;
        s.tool_busy_ms = next() as f64 + 0.5;
        s.idle_ms = next() as f64 + 0.5;
        s.calls_timed_by_execution = next();
        s.calls_timed_by_message = next();
        s
    }

    #[test]
    fn figures_pair_each_name_with_its_value() {
        let s = distinct(1);
        let figures = s.figures();
        let names: Vec<&str> = figures.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, FIGURE_NAMES);
        let histogram = [100, 101, 102, 103, 104, 105, 106, 107];
        let widths = [200, 201, 202, 203, 204, 205, 206, 207];
        let want = [
            Figure::Count(1),
            Figure::Count(2),
            Figure::Ms(3.5),
            Figure::Count(4),
            Figure::Count(5),
            Figure::Ms(6.5),
            Figure::Count(7),
            Figure::Ms(8.5),
            Figure::Count(9),
            Figure::Count(10),
            Figure::Histogram(&histogram),
            Figure::Count(12),
            Figure::Count(13),
            Figure::Ms(14.5),
            Figure::Count(15),
            Figure::Count(16),
            Figure::Count(17),
            Figure::Count(18),
            Figure::Count(19),
            Figure::Count(20),
            Figure::Count(21),
            Figure::Ms(22.5),
            Figure::Count(23),
            Figure::Count(24),
            Figure::Count(25),
            Figure::Histogram(&widths),
            Figure::Count(27),
            Figure::Count(28),
            Figure::Count(29),
            Figure::Count(30),
            Figure::Ms(31.5),
            Figure::Ms(32.5),
            Figure::Ms(33.5),
            Figure::Ms(34.5),
            Figure::Count(35),
            Figure::Count(36),
        ];
        let values: Vec<Figure<'_>> = figures.iter().map(|(_, v)| *v).collect();
        assert_eq!(values, want);
        assert_eq!(
            histogram_text(&s.non_eval_wave_size_histogram),
            "100:101:102:103:104:105:106:107"
        );
        assert_eq!(histogram_text(&[0; 8]), "0:0:0:0:0:0:0:0");
    }

    #[test]
    fn add_merges_every_figure_by_its_rule() {
        // counts and buckets sum: 1 * v + 10 * v = 11 * v; floats (n + 0.5) + (10n + 0.5)
        let mut total = distinct(1);
        assert_eq!(total.add(&distinct(10)), Some(()));
        let mut want = distinct(11);
        for (name, value) in distinct(11).figures() {
            if let Figure::Ms(ms) = value {
                let exact = ms + 0.5; // 11n + 0.5 + 0.5
                match name {
                    "eval_only_duration_ms" => want.eval_only_duration_ms = exact,
                    "measured_turn_duration_ms_total" => {
                        want.measured_turn_duration_ms_total = exact
                    }
                    "modeled_wallclock_saved_ms" => want.modeled_wallclock_saved_ms = exact,
                    "upper_bound_saved_ms" => want.upper_bound_saved_ms = exact,
                    "tool_time_ms" => want.tool_time_ms = exact,
                    "missed_batch_upper_ms" => want.missed_batch_upper_ms = exact,
                    "lane_span_ms" => want.lane_span_ms = exact,
                    "tool_busy_ms" => want.tool_busy_ms = exact,
                    "idle_ms" => want.idle_ms = exact,
                    other => panic!("{other} is no float figure"),
                }
            }
        }
        // max_turn_width merges by maximum: max(27, 270), not 27 + 270
        want.max_turn_width = MaxCount(270);
        assert_eq!(total, want);
        let mut other_way = distinct(10);
        assert_eq!(other_way.add(&distinct(1)), Some(()));
        assert_eq!(other_way.max_turn_width, MaxCount(270));
        assert_eq!(total.turn_width_histogram[0], 2200);
        assert_eq!(total.eval_only_duration_ms, 34.0);
        assert_eq!(total.non_eval_wave_size_histogram[7], 1177);
        // the identity: adding zeros changes nothing
        let mut same = distinct(3);
        assert_eq!(same.add(&Summary::default()), Some(()));
        assert_eq!(same, distinct(3));
    }

    #[test]
    fn add_is_none_when_any_count_or_bucket_overflows() {
        let counts: Vec<usize> = FIGURE_NAMES
            .iter()
            .enumerate()
            .filter(|(i, _)| matches!(distinct(1).figures()[*i].1, Figure::Count(_)))
            .filter(|(_, name)| **name != "max_turn_width")
            .map(|(i, _)| i)
            .collect();
        assert_eq!(counts.len(), 24);
        for index in counts {
            let mut full = Summary::default();
            set_count(&mut full, index, u64::MAX);
            let mut one = Summary::default();
            set_count(&mut one, index, 1);
            assert_eq!(full.clone().add(&one), None, "{}", FIGURE_NAMES[index]);
            assert_eq!(full.clone().add(&Summary::default()), Some(()));
        }
        for bucket in 0..8 {
            let mut full = Summary::default();
            full.non_eval_wave_size_histogram[bucket] = u64::MAX;
            let mut one = Summary::default();
            one.non_eval_wave_size_histogram[bucket] = 1;
            assert_eq!(full.add(&one), None, "bucket {bucket}");
            let mut full = Summary::default();
            full.turn_width_histogram[bucket] = u64::MAX;
            let mut one = Summary::default();
            one.turn_width_histogram[bucket] = 1;
            assert_eq!(full.add(&one), None, "width bucket {bucket}");
        }
        // a maximum never overflows
        let mut widest = Summary {
            max_turn_width: MaxCount(u64::MAX),
            ..Summary::default()
        };
        let one = Summary {
            max_turn_width: MaxCount(1),
            ..Summary::default()
        };
        assert_eq!(widest.add(&one), Some(()));
        assert_eq!(widest.max_turn_width, MaxCount(u64::MAX));
        // floats never fail: they go to infinity as Python's do
        let mut big = Summary {
            tool_time_ms: f64::MAX,
            ..Summary::default()
        };
        assert_eq!(big.add(&big.clone()), Some(()));
        assert_eq!(big.tool_time_ms, f64::INFINITY);
    }

    /// Sets the count figure at `index` of [`FIGURE_NAMES`].
    fn set_count(s: &mut Summary, index: usize, value: u64) {
        let field = match FIGURE_NAMES[index] {
            "clock_anomalies" => &mut s.clock_anomalies,
            "dropped_calls" => &mut s.dropped_calls,
            "eval_only_waves" => &mut s.eval_only_waves,
            "incomplete_calls" => &mut s.incomplete_calls,
            "mixed_waves" => &mut s.mixed_waves,
            "non_eval_joined_calls" => &mut s.non_eval_joined_calls,
            "non_eval_saved_round_trips" => &mut s.non_eval_saved_round_trips,
            "non_eval_waves_multi" => &mut s.non_eval_waves_multi,
            "non_eval_waves_total" => &mut s.non_eval_waves_total,
            "observed_calls" => &mut s.observed_calls,
            "paired_calls" => &mut s.paired_calls,
            "malformed_observations" => &mut s.malformed_observations,
            "duplicate_starts" => &mut s.duplicate_starts,
            "orphan_ends" => &mut s.orphan_ends,
            "eval_outer_joined_calls" => &mut s.eval_outer_joined_calls,
            "mixed_non_eval_joined_calls" => &mut s.mixed_non_eval_joined_calls,
            "calls_without_batch" => &mut s.calls_without_batch,
            "batched_turns" => &mut s.batched_turns,
            "multi_call_turns" => &mut s.multi_call_turns,
            "missed_batch_runs" => &mut s.missed_batch_runs,
            "missed_batch_calls" => &mut s.missed_batch_calls,
            "missed_batch_round_trips" => &mut s.missed_batch_round_trips,
            "calls_timed_by_execution" => &mut s.calls_timed_by_execution,
            "calls_timed_by_message" => &mut s.calls_timed_by_message,
            other => panic!("{other} is no count"),
        };
        *field = value;
    }

    #[test]
    fn eval_names_by_section_4() {
        let names: Vec<String> = settings(true).eval_names;
        for (name, expected) in [
            ("mcp:eval", true),
            ("server/eval", true),
            ("tool_eval", true),
            ("code-mode", true),
            (" EVAL ", true),
            ("\u{feff}Eval", true),
            ("evaluate", false),
            ("eval_helper", false),
            ("codemodel", false),
            ("foo.eval", false),
            ("eval:", false),
            ("ln", false),
            ("", false),
            ("\u{1c}eval", false),
            ("Ｅｖａｌ", false),
        ] {
            assert_eq!(
                is_eval_normal(&normalize_tool_name(name), &names),
                expected,
                "{name:?}"
            );
        }
    }

    #[test]
    fn two_overlapping_calls() {
        // read [0, 10] and grep [1, 4]: one wave of 2, span 10, S = 13
        let mut l = lane(true);
        l.start("a".into(), "read".into(), 0.0, None);
        l.start("b".into(), "grep".into(), 1.0, None);
        l.end("a", 10.0).unwrap();
        l.end("b", 4.0).unwrap();
        let s = l.finish(0.0, &[], Timing::Execution);
        assert_eq!(s.paired_calls, 2);
        assert_eq!(s.non_eval_waves_multi, 1);
        assert_eq!(s.modeled_wallclock_saved_ms, 3.0);
        assert_eq!(s.upper_bound_saved_ms, 6.5);
        assert_eq!(s.non_eval_saved_round_trips, 1);
        assert_eq!(s.tool_time_ms, 13.0);
        assert_eq!(
            histogram_text(&s.non_eval_wave_size_histogram),
            "0:1:0:0:0:0:0:0"
        );
    }

    #[test]
    fn counters_of_section_1() {
        let mut l = lane(true);
        l.start("a".into(), "t".into(), 5.0, None);
        l.start("a".into(), "t".into(), 6.0, None); // duplicate start replaces
        l.end("x", 7.0).unwrap(); // orphan
        l.end("a", 5.5).unwrap(); // before the later start: anomaly
        l.start("b".into(), "t".into(), 1.0, None); // incomplete
        let s = l.finish(2.5, &[], Timing::Execution);
        assert_eq!(
            (
                s.observed_calls,
                s.duplicate_starts,
                s.orphan_ends,
                s.clock_anomalies,
                s.incomplete_calls
            ),
            (3, 1, 1, 1, 1)
        );
        assert_eq!(s.measured_turn_duration_ms_total, 2.5);
        assert_eq!(s.non_eval_waves_total, 0);
    }

    #[test]
    fn cap_counts_paired_and_pending() {
        let s = Settings {
            max_tracked_calls: Some(2),
            ..settings(true)
        };
        let mut l = lane_of(&s);
        l.start("a".into(), "t".into(), 0.0, None);
        l.end("a", 1.0).unwrap();
        l.start("b".into(), "t".into(), 2.0, None);
        l.start("c".into(), "t".into(), 3.0, None);
        let f = l.finish(0.0, &[], Timing::Execution);
        assert_eq!(
            (f.dropped_calls, f.incomplete_calls, f.paired_calls),
            (1, 1, 1)
        );
    }

    #[test]
    fn late_call_into_emitted_wave_is_an_order_error() {
        let mut l = lane(true);
        for i in 0..64 {
            let id = format!("c{i}");
            l.start(
                id.as_str().into(),
                "t".into(),
                f64::from(i * 10 + 100),
                None,
            );
            l.end(&id, f64::from(i * 10 + 101)).unwrap();
        }
        l.start("late".into(), "t".into(), 0.0, None);
        assert_eq!(l.end("late", 1.0), Err(StreamOrderError));
        // the batch path takes it
        let mut b = lane(false);
        for i in 0..64 {
            let id = format!("c{i}");
            b.start(
                id.as_str().into(),
                "t".into(),
                f64::from(i * 10 + 100),
                None,
            );
            b.end(&id, f64::from(i * 10 + 101)).unwrap();
        }
        b.start("late".into(), "t".into(), 0.0, None);
        b.end("late", 1.0).unwrap();
        let f = b.finish(0.0, &[], Timing::Execution);
        assert_eq!((f.non_eval_waves_total, f.paired_calls), (65, 65));
    }

    #[test]
    fn zero_length_calls_pair() {
        let mut l = lane(true);
        l.start("a".into(), "t".into(), 5.0, None);
        l.end("a", 5.0).unwrap();
        let f = l.finish(0.0, &[], Timing::Execution);
        assert_eq!(
            (f.paired_calls, f.clock_anomalies, f.non_eval_waves_total),
            (1, 0, 1)
        );
        assert_eq!(f.non_eval_saved_round_trips, 0);
    }

    #[test]
    fn no_wave_is_summarised_before_64_open_calls() {
        // 63 calls, then one that starts before all of them: still one stream, no error
        let mut l = lane(true);
        for i in 0..63 {
            let id = format!("c{i}");
            l.start(
                id.as_str().into(),
                "t".into(),
                f64::from(i * 10 + 100),
                None,
            );
            l.end(&id, f64::from(i * 10 + 101)).unwrap();
        }
        l.start("early".into(), "t".into(), 0.0, None);
        assert_eq!(l.end("early", 1.0), Ok(()));
        assert_eq!(
            l.finish(0.0, &[], Timing::Execution).non_eval_waves_total,
            64
        );
    }

    #[test]
    fn a_pending_start_holds_back_the_waves_after_it() {
        // a long call starts first and ends last: the 64 short calls after its start
        // must wait for it (the threshold is the earliest pending start)
        let mut l = lane(true);
        l.start("long".into(), "t".into(), 0.0, None);
        for i in 0..70 {
            let id = format!("c{i}");
            l.start(
                id.as_str().into(),
                "t".into(),
                f64::from(i * 10 + 100),
                None,
            );
            l.end(&id, f64::from(i * 10 + 101)).unwrap();
        }
        assert_eq!(l.end("long", 5000.0), Ok(()));
        let f = l.finish(0.0, &[], Timing::Execution);
        assert_eq!((f.non_eval_waves_total, f.non_eval_joined_calls), (1, 71));
        assert_eq!(f.non_eval_saved_round_trips, 1);
    }

    #[test]
    fn buckets_and_peaks() {
        let mut l = lane(true);
        // eval-only wave [0, 4] (two evals), mixed wave [10, 12], touching chain [20, 22]
        for (id, name, s, e) in [
            ("e1", "eval", 0.0, 4.0),
            ("e2", "mcp:eval", 1.0, 2.0),
            ("m1", "eval", 10.0, 12.0),
            ("m2", "read", 11.0, 12.0),
            ("t1", "read", 20.0, 21.0),
            ("t2", "read", 21.0, 22.0),
        ] {
            l.start(id.into(), name.into(), s, None);
            l.end(id, e).unwrap();
        }
        let f = l.finish(0.0, &[], Timing::Execution);
        assert_eq!(
            (f.eval_only_waves, f.eval_only_duration_ms, f.mixed_waves),
            (1, 4.0, 1)
        );
        assert_eq!(
            (f.eval_outer_joined_calls, f.mixed_non_eval_joined_calls),
            (3, 1)
        );
        assert_eq!(
            (f.non_eval_waves_total, f.non_eval_saved_round_trips),
            (1, 0)
        );
        assert_eq!(f.modeled_wallclock_saved_ms, 0.0);
        assert_eq!(f.upper_bound_saved_ms, 1.0);
        assert_eq!(wave_size_bucket(33), 7);
        assert_eq!(wave_size_bucket(5), 4);
        assert_eq!(peak_concurrency(&[(3.0, 3.0, 1, "t".into())]), 0);
    }

    fn pair(l: &mut LaneStream, id: &str, start: f64, end: f64) -> Result<(), StreamOrderError> {
        l.start(id.into(), "t".into(), start, None);
        l.end(id, end)
    }

    #[test]
    fn the_next_check_waits_for_twice_the_calls_left_open() {
        // 24 calls emitted at the 64th (a pending start at 500 holds back the 40
        // after it): 40 stay open, so the next check is at 80 open calls, not 64
        let mut l = lane(true);
        l.start("hold".into(), "t".into(), 500.0, None);
        for i in 0..24 {
            let at = f64::from(10 * i);
            pair(&mut l, &format!("e{i}"), at, at + 1.0).unwrap();
        }
        for j in 0..40 {
            let at = f64::from(1000 + 10 * j);
            pair(&mut l, &format!("f{j}"), at, at + 1.0).unwrap();
        }
        assert_eq!(l.end("hold", 2000.0), Ok(()));
        for k in 0..23 {
            let at = f64::from(3000 + 10 * k);
            pair(&mut l, &format!("g{k}"), at, at + 1.0).unwrap();
        }
        // 64 open calls, no check yet: a call after the emitted reach (231) still pairs
        assert_eq!(pair(&mut l, "late", 300.0, 301.0), Ok(()));
        let f = l.finish(0.0, &[], Timing::Execution);
        // 24 + late + (hold with the 40 f calls) + 23 waves
        assert_eq!(
            (
                f.non_eval_waves_total,
                f.non_eval_joined_calls,
                f.paired_calls
            ),
            (49, 89, 89)
        );
        assert_eq!(
            (f.non_eval_waves_multi, f.non_eval_saved_round_trips),
            (1, 1)
        );
    }

    #[test]
    fn a_wave_reaching_the_threshold_stays_open() {
        // the last wave [800, 800] reaches the threshold (the latest start, 800)
        // exactly: a call starting at 800 still joins it
        let mut l = lane(true);
        for i in 0..63 {
            let at = f64::from(100 + 10 * i);
            pair(&mut l, &format!("c{i}"), at, at + 1.0).unwrap();
        }
        pair(&mut l, "z", 800.0, 800.0).unwrap();
        assert_eq!(pair(&mut l, "y", 800.0, 805.0), Ok(()));
        let f = l.finish(0.0, &[], Timing::Execution);
        assert_eq!(
            (
                f.non_eval_waves_total,
                f.non_eval_waves_multi,
                f.non_eval_joined_calls
            ),
            (64, 1, 65)
        );
        // {z, y}: peak 1 (ends first at 800), S = 5 = span, upper (2 - 1) * 5 / 2
        assert_eq!(f.non_eval_saved_round_trips, 0);
        assert_eq!(f.modeled_wallclock_saved_ms, 0.0);
        assert_eq!(f.upper_bound_saved_ms, 2.5);
        assert_eq!(
            histogram_text(&f.non_eval_wave_size_histogram),
            "63:1:0:0:0:0:0:0"
        );
    }

    #[test]
    fn single_call_waves_save_nothing_and_keep_the_sums() {
        // [0, 10] with [2, 4] saves S - span = 12 - 10 = 2 and upper 1 * 12 / 2 = 6;
        // then two single calls add their durations to tool time and nothing else
        let mut l = lane(true);
        pair(&mut l, "a", 0.0, 10.0).unwrap();
        pair(&mut l, "b", 2.0, 4.0).unwrap();
        pair(&mut l, "c", 20.0, 23.0).unwrap();
        pair(&mut l, "d", 30.0, 30.5).unwrap();
        let f = l.finish(0.0, &[], Timing::Execution);
        assert_eq!(
            (
                f.non_eval_waves_total,
                f.non_eval_waves_multi,
                f.non_eval_joined_calls
            ),
            (3, 1, 4)
        );
        assert_eq!(f.modeled_wallclock_saved_ms, 2.0);
        assert_eq!(f.upper_bound_saved_ms, 6.0);
        assert_eq!(f.tool_time_ms, 15.5);
        assert_eq!(
            histogram_text(&f.non_eval_wave_size_histogram),
            "2:1:0:0:0:0:0:0"
        );
        assert_eq!(peak_concurrency(&[(1.0, 4.0, 1, "t".into())]), 1);
    }

    #[test]
    fn eval_only_waves_add_their_span() {
        // two eval waves: [0, 3] with [1, 5] (span 5) and [10, 12] (span 2)
        let mut l = lane(true);
        for (id, s, e) in [("a", 0.0, 3.0), ("b", 1.0, 5.0), ("c", 10.0, 12.0)] {
            l.start(id.into(), "eval".into(), s, None);
            l.end(id, e).unwrap();
        }
        let f = l.finish(0.0, &[], Timing::Execution);
        assert_eq!((f.eval_only_waves, f.eval_outer_joined_calls), (2, 3));
        assert_eq!(f.eval_only_duration_ms, 7.0);
        assert_eq!(f.tool_time_ms, 9.0);
        assert_eq!((f.non_eval_waves_total, f.mixed_waves), (0, 0));
    }

    #[test]
    fn section_9_figures_from_paired_calls_waves_turns_and_pending_starts() {
        // batch m: a read [0, 10], b read [5, 20], c read starts at 30 and never ends
        // (width 2: paired calls, not starts); d grep [40, 50] batch n; e bash [60,
        // 70] no batch; f read [80, 90] batch p starts at 75 first, then again at 80
        // (the duplicate start replaces the first: its start is 80)
        let mut l = lane(true);
        let m: BatchKey = Rc::from(&b"m"[..]);
        let n: BatchKey = Rc::from(&b"n"[..]);
        let p: BatchKey = Rc::from(&b"p"[..]);
        l.start("a".into(), "read".into(), 0.0, Some(m.clone()));
        l.start("b".into(), "read".into(), 5.0, Some(m.clone()));
        l.start("c".into(), "read".into(), 30.0, Some(m));
        l.end("a", 10.0).unwrap();
        l.end("b", 20.0).unwrap();
        l.start("d".into(), "grep".into(), 40.0, Some(n));
        l.end("d", 50.0).unwrap();
        l.start("e".into(), "bash".into(), 60.0, None);
        l.end("e", 70.0).unwrap();
        l.start("f".into(), "read".into(), 75.0, None);
        l.start("f".into(), "read".into(), 80.0, Some(p));
        l.end("f", 90.0).unwrap();
        // a turn [100, 130] and one not measured (zero length)
        let f = l.finish(30.0, &[(100.0, 130.0), (140.0, 140.0)], Timing::Message);
        assert_eq!((f.paired_calls, f.incomplete_calls), (5, 1));
        assert_eq!(
            (f.calls_without_batch, f.batched_turns, f.multi_call_turns),
            (1, 3, 1)
        );
        assert_eq!(histogram_text(&f.turn_width_histogram), "2:1:0:0:0:0:0:0");
        assert_eq!(f.max_turn_width, MaxCount(2));
        // batches by start: m (0, width 2), n (40), p (80): runs of single batchable
        // calls {n, p} (the bash has no batch, so it is in no turn): upper
        // (90 - 40) - max(10, 10) = 40
        assert_eq!(
            (
                f.missed_batch_runs,
                f.missed_batch_calls,
                f.missed_batch_round_trips
            ),
            (1, 2, 1)
        );
        assert_eq!(f.missed_batch_upper_ms, 40.0);
        // span: 0 to the turn's end 130; busy: waves [0, 20], [40, 50], [60, 70],
        // [80, 90]: 20 + 10 + 10 + 10 = 50; no gap above 5 minutes
        assert_eq!(
            (f.lane_span_ms, f.tool_busy_ms, f.idle_ms),
            (130.0, 50.0, 0.0)
        );
        assert_eq!(
            (f.calls_timed_by_execution, f.calls_timed_by_message),
            (0, 5)
        );
        assert_eq!(f.tool_time_ms, 10.0 + 15.0 + 10.0 + 10.0 + 10.0);
    }

    #[test]
    fn the_idle_gap_and_batchable_names_come_from_the_settings() {
        // idle gap 5: read [0, 1] and read [10, 11] (batches x, y): the gap 9 is idle
        // and ends the run; "grep" is batchable here, "glob" is not
        let s = Settings {
            idle_gap_ms: 5.0,
            ..settings(false)
        };
        let mut l = lane_of(&s);
        for (id, name, at, batch) in [
            ("x", "read", 0.0, "x"),
            ("y", "read", 10.0, "y"),
            ("z", "grep", 12.0, "z"),
            ("w", "glob", 14.0, "w"),
        ] {
            l.start(id.into(), name.into(), at, Some(Rc::from(batch.as_bytes())));
            l.end(id, at + 1.0).unwrap();
        }
        let f = l.finish(0.0, &[], Timing::Execution);
        // runs: {x} cut by the gap, {y, z} (12 - 11 = 1), glob ends it: upper (13 - 10) - 1
        assert_eq!((f.missed_batch_runs, f.missed_batch_upper_ms), (1, 2.0));
        assert_eq!(f.idle_ms, 9.0);
        assert_eq!(f.calls_timed_by_execution, 4);
    }
}
