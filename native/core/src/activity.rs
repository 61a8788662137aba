//! Turns, missed batching and where the time went (`docs/metrics.md` section 9), as
//! `wavemetrics/core/activity.py` `ActivityAccumulator` computes them: the same
//! batch order, the same runs, float sums in the same order.
//!
//! Fed per lane with every paired call in pairing order ([`Activity::call`]), every
//! wave in wave order ([`Activity::wave`]), the starts of calls still pending at the
//! end ([`Activity::incomplete_start`]) and the measured turn intervals
//! ([`Activity::turn`]); [`Activity::result`] gives the figures.

use crate::classify::{is_eval_normal, normalize_tool_name, wave_size_bucket};
use hashbrown::HashMap;
use std::cmp::Ordering;
use std::rc::Rc;

/// The default batchable names (`BATCHABLE_TOOL_NAMES`: reads and searches).
pub const BATCHABLE_TOOL_NAMES: [&str; 16] = [
    "read",
    "read_file",
    "view",
    "grep",
    "glob",
    "ls",
    "list",
    "list_dir",
    "list_directory",
    "find",
    "search",
    "search_files",
    "webfetch",
    "web_fetch",
    "websearch",
    "web_search",
];

/// The default idle gap: 5 minutes, in ms (`DEFAULT_IDLE_GAP_MS`).
pub const DEFAULT_IDLE_GAP_MS: f64 = 300000.0;

/// Where a lane's call times come from (section 9, "Timing provenance").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Timing {
    #[default]
    Execution,
    Message,
}

/// The section-9 figures of one lane, as [`Activity::result`] gives them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActivityFigures {
    pub calls_without_batch: u64,
    pub batched_turns: u64,
    pub multi_call_turns: u64,
    pub turn_width_histogram: [u64; 8],
    pub max_turn_width: u64,
    pub missed_batch_runs: u64,
    pub missed_batch_calls: u64,
    pub missed_batch_round_trips: u64,
    pub missed_batch_upper_ms: f64,
    pub lane_span_ms: f64,
    pub tool_busy_ms: f64,
    pub idle_ms: f64,
    pub calls_timed_by_execution: u64,
    pub calls_timed_by_message: u64,
}

/// One batch of a lane (`_Batch`): its earliest start, the pairing index of its
/// first paired call, its width, and that first call's end and batchability (what
/// a batch of width 1 is read by).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Batch {
    first: u64,
    start_ms: f64,
    end_ms: f64,
    batchable: bool,
    width: u64,
}

/// Python's `min(a, b)`: `a` unless `b < a`.
fn py_min(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// Python's `max(a, b)`: `a` unless `b > a`.
fn py_max(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

fn by_value(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// One lane's section-9 accumulator (`ActivityAccumulator`).
pub struct Activity {
    /// Batchable names in normal form, empty ones dropped.
    batchable_names: Rc<[String]>,
    eval_names: Rc<[String]>,
    idle_gap_ms: f64,
    memo: HashMap<Rc<str>, bool>,
    batches: HashMap<Rc<[u8]>, Batch>,
    calls: u64,
    calls_without_batch: u64,
    tool_busy_ms: f64,
    earliest: f64,
    latest: f64,
    /// Waves folded into blocks `[start, end]`: gaps inside a block are `<= idle_gap_ms`.
    blocks: Vec<(f64, f64)>,
    turns: Vec<(f64, f64)>,
}

impl Activity {
    /// `batchable_names` and `eval_names` in normal form (none empty); `idle_gap_ms`
    /// finite and `>= 0` (the caller checks it: `check_idle_gap`), `0` disables idle
    /// time and gaps never end a serial run.
    pub fn new(batchable_names: Rc<[String]>, eval_names: Rc<[String]>, idle_gap_ms: f64) -> Self {
        Activity {
            batchable_names,
            eval_names,
            idle_gap_ms,
            memo: HashMap::new(),
            batches: HashMap::new(),
            calls: 0,
            calls_without_batch: 0,
            tool_busy_ms: 0.0,
            earliest: f64::INFINITY,
            latest: f64::NEG_INFINITY,
            blocks: Vec::new(),
            turns: Vec::new(),
        }
    }

    /// `is_batchable_tool_name` with this lane's lists, remembered per name.
    fn is_batchable(&mut self, tool_name: &Rc<str>) -> bool {
        if let Some(&known) = self.memo.get(tool_name) {
            return known;
        }
        let normal = normalize_tool_name(tool_name);
        let known = is_eval_normal(&normal, &self.batchable_names)
            && !is_eval_normal(&normal, &self.eval_names);
        self.memo.insert(tool_name.clone(), known);
        known
    }

    fn see(&mut self, start_ms: f64, end_ms: f64) {
        self.earliest = py_min(self.earliest, start_ms);
        self.latest = py_max(self.latest, end_ms);
    }

    /// One paired call (`end_ms >= start_ms`), in pairing order; `batch`: the key
    /// of the model response that issued it, `None` when none.
    pub fn call(
        &mut self,
        tool_name: &Rc<str>,
        start_ms: f64,
        end_ms: f64,
        batch: Option<&Rc<[u8]>>,
    ) {
        let index = self.calls;
        self.calls += 1;
        self.see(start_ms, end_ms);
        let Some(key) = batch else {
            self.calls_without_batch += 1;
            return;
        };
        if let Some(known) = self.batches.get_mut(&**key) {
            known.width += 1;
            known.start_ms = py_min(known.start_ms, start_ms);
            return;
        }
        let batchable = self.is_batchable(tool_name);
        self.batches.insert(
            key.clone(),
            Batch {
                first: index,
                start_ms,
                end_ms,
                batchable,
                width: 1,
            },
        );
    }

    /// One wave, in wave order: its first start and its reach (largest end).
    pub fn wave(&mut self, start_ms: f64, end_ms: f64) {
        self.tool_busy_ms += end_ms - start_ms;
        if self.idle_gap_ms == 0.0 {
            return;
        }
        match self.blocks.last_mut() {
            Some(last) if start_ms - last.1 <= self.idle_gap_ms => last.1 = py_max(last.1, end_ms),
            _ => self.blocks.push((start_ms, end_ms)),
        }
    }

    /// One measured turn interval: used when both times are finite and the turn has
    /// a positive length.
    pub fn turn(&mut self, start_ms: f64, end_ms: f64) {
        if start_ms.is_finite() && end_ms.is_finite() && end_ms > start_ms {
            self.see(start_ms, end_ms);
            self.turns.push((start_ms, end_ms));
        }
    }

    /// The start of a call still pending when the lane ended.
    pub fn incomplete_start(&mut self, at_ms: f64) {
        self.see(at_ms, at_ms);
    }

    /// The figures; `timing`: the provenance of every paired call of the lane.
    pub fn result(&self, timing: Timing) -> ActivityFigures {
        let mut ordered: Vec<&Batch> = self.batches.values().collect();
        ordered.sort_by(|a, b| by_value(a.start_ms, b.start_ms).then(a.first.cmp(&b.first)));
        let mut f = ActivityFigures {
            calls_without_batch: self.calls_without_batch,
            batched_turns: ordered.len() as u64,
            ..ActivityFigures::default()
        };
        for batch in &ordered {
            f.turn_width_histogram[wave_size_bucket(batch.width as usize)] += 1;
            f.max_turn_width = f.max_turn_width.max(batch.width);
            f.multi_call_turns += u64::from(batch.width >= 2);
        }
        self.missed(&ordered, &mut f);
        // Python's max(0.0, latest - earliest): none or one time gives 0.0
        f.lane_span_ms = py_max(0.0, self.latest - self.earliest);
        f.tool_busy_ms = self.tool_busy_ms;
        f.idle_ms = self.idle();
        match timing {
            Timing::Execution => f.calls_timed_by_execution = self.calls,
            Timing::Message => f.calls_timed_by_message = self.calls,
        }
        f
    }

    /// Serial runs of single batchable calls, walked in batch order.
    fn missed(&self, ordered: &[&Batch], f: &mut ActivityFigures) {
        let mut run: Vec<&Batch> = Vec::new();
        for &batch in ordered {
            if batch.width != 1 || !batch.batchable {
                close_run(&run, f);
                run.clear();
                continue;
            }
            if let Some(last) = run.last() {
                if self.idle_gap_ms > 0.0 && batch.start_ms - last.end_ms > self.idle_gap_ms {
                    close_run(&run, f);
                    run.clear();
                }
            }
            run.push(batch);
        }
        close_run(&run, f);
    }

    fn idle(&self) -> f64 {
        if self.idle_gap_ms == 0.0 {
            return 0.0;
        }
        let mut intervals: Vec<(f64, f64)> =
            self.blocks.iter().chain(&self.turns).copied().collect();
        intervals.sort_by(|a, b| by_value(a.0, b.0).then(by_value(a.1, b.1)));
        let mut idle = 0.0;
        let Some((first, rest)) = intervals.split_first() else {
            return idle;
        };
        let mut reach = first.1;
        for &(start_ms, end_ms) in rest {
            // <= 0 when it overlaps or touches: never idle
            let gap = start_ms - reach;
            if gap > self.idle_gap_ms {
                idle += gap;
            }
            reach = py_max(reach, end_ms);
        }
        idle
    }
}

/// Count a serial run of `k >= 2` single-call batches (section 9); shorter: nothing.
fn close_run(run: &[&Batch], f: &mut ActivityFigures) {
    let k = run.len() as u64;
    if k < 2 {
        return;
    }
    f.missed_batch_runs += 1;
    f.missed_batch_calls += k;
    f.missed_batch_round_trips += k - 1;
    let mut max_end = run[0].end_ms;
    let mut min_start = run[0].start_ms;
    let mut longest = run[0].end_ms - run[0].start_ms;
    for b in &run[1..] {
        max_end = py_max(max_end, b.end_ms);
        min_start = py_min(min_start, b.start_ms);
        longest = py_max(longest, b.end_ms - b.start_ms);
    }
    let span = max_end - min_start;
    f.missed_batch_upper_ms += span - longest;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Rc<[String]> {
        list.iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .into()
    }

    fn activity(idle_gap_ms: f64) -> Activity {
        let batchable: Vec<&str> = BATCHABLE_TOOL_NAMES.to_vec();
        Activity::new(
            names(&batchable),
            names(&["eval", "codemode", "code_mode"]),
            idle_gap_ms,
        )
    }

    fn key(text: &str) -> Rc<[u8]> {
        Rc::from(text.as_bytes())
    }

    /// Paired calls `(name, start, end, batch)` in pairing order, then `waves` in order.
    fn feed(a: &mut Activity, calls: &[(&str, f64, f64, Option<&str>)], waves: &[(f64, f64)]) {
        for &(name, start, end, batch) in calls {
            let name: Rc<str> = name.into();
            a.call(&name, start, end, batch.map(key).as_ref());
        }
        for &(start, end) in waves {
            a.wave(start, end);
        }
    }

    #[test]
    fn the_worked_example() {
        // Read [0, 10] m1, Read [20, 50] m2, Grep [60, 65] m3, Bash [70, 80] and
        // [70, 90] both m4: batches m1, m2, m3 of width 1 and m4 of width 2, so 4 turns,
        // 1 multi-call, histogram 3:1, widest 2; one run m1..m3 (Bash ends it): 3 calls,
        // 2 round trips, upper (65 - 0) - max(10, 30, 5) = 35; span 90 - 0; busy
        // 10 + 30 + 5 + 20 = 65; no gap above 5 minutes: idle 0; 5 calls by execution
        let mut a = activity(DEFAULT_IDLE_GAP_MS);
        feed(
            &mut a,
            &[
                ("Read", 0.0, 10.0, Some("m1")),
                ("Read", 20.0, 50.0, Some("m2")),
                ("Grep", 60.0, 65.0, Some("m3")),
                ("Bash", 70.0, 80.0, Some("m4")),
                ("Bash", 70.0, 90.0, Some("m4")),
            ],
            &[(0.0, 10.0), (20.0, 50.0), (60.0, 65.0), (70.0, 90.0)],
        );
        let f = a.result(Timing::Execution);
        assert_eq!(
            f,
            ActivityFigures {
                calls_without_batch: 0,
                batched_turns: 4,
                multi_call_turns: 1,
                turn_width_histogram: [3, 1, 0, 0, 0, 0, 0, 0],
                max_turn_width: 2,
                missed_batch_runs: 1,
                missed_batch_calls: 3,
                missed_batch_round_trips: 2,
                missed_batch_upper_ms: 35.0,
                lane_span_ms: 90.0,
                tool_busy_ms: 65.0,
                idle_ms: 0.0,
                calls_timed_by_execution: 5,
                calls_timed_by_message: 0,
            }
        );
        let m = a.result(Timing::Message);
        assert_eq!(
            (m.calls_timed_by_execution, m.calls_timed_by_message),
            (0, 5)
        );
    }

    #[test]
    fn calls_without_a_batch_are_in_no_turn() {
        // two calls without batch and one with: 2 without, 1 turn of width 1
        let mut a = activity(DEFAULT_IDLE_GAP_MS);
        feed(
            &mut a,
            &[
                ("Read", 0.0, 1.0, None),
                ("Read", 2.0, 3.0, Some("k")),
                ("Read", 4.0, 5.0, None),
            ],
            &[],
        );
        let f = a.result(Timing::Execution);
        assert_eq!(
            (f.calls_without_batch, f.batched_turns, f.max_turn_width),
            (2, 1, 1)
        );
        assert_eq!((f.missed_batch_runs, f.calls_timed_by_execution), (0, 3));
        assert_eq!(f.lane_span_ms, 5.0);
    }

    #[test]
    fn an_idle_gap_ends_a_serial_run_only_when_longer() {
        // Read [0, 10] then Read [30, 40], one batch each: the gap 30 - 10 = 20
        let calls = [
            ("Read", 0.0, 10.0, Some("a")),
            ("Read", 30.0, 40.0, Some("b")),
        ];
        let waves = [(0.0, 10.0), (30.0, 40.0)];
        // gap 15 < 20: the run is cut in two runs of one (none counted); idle 20
        let mut a = activity(15.0);
        feed(&mut a, &calls, &waves);
        let f = a.result(Timing::Execution);
        assert_eq!((f.missed_batch_runs, f.missed_batch_calls), (0, 0));
        assert_eq!(f.idle_ms, 20.0);
        // gap 20, not above it: one run of 2, upper (40 - 0) - 10 = 30; the waves fold
        // into one block, so no idle time
        let mut a = activity(20.0);
        feed(&mut a, &calls, &waves);
        let f = a.result(Timing::Execution);
        assert_eq!(
            (
                f.missed_batch_runs,
                f.missed_batch_calls,
                f.missed_batch_round_trips
            ),
            (1, 2, 1)
        );
        assert_eq!((f.missed_batch_upper_ms, f.idle_ms), (30.0, 0.0));
        // 0 disables both: one run, no idle
        let mut a = activity(0.0);
        feed(&mut a, &calls, &waves);
        let f = a.result(Timing::Execution);
        assert_eq!((f.missed_batch_runs, f.idle_ms), (1, 0.0));
        assert_eq!(f.tool_busy_ms, 20.0);
    }

    #[test]
    fn idle_time_sums_every_gap_above_the_limit_between_waves_and_turns() {
        // waves [0, 10], [100, 110], [400, 410]; turn [110, 150] touches the second
        // wave; limit 60: gaps 100 - 10 = 90 (counted) and 400 - 150 = 250 (counted),
        // idle 340; a turn [500, 500] (zero length) and [inf, 600] count for nothing
        let mut a = activity(60.0);
        feed(&mut a, &[], &[(0.0, 10.0), (100.0, 110.0), (400.0, 410.0)]);
        a.turn(110.0, 150.0);
        a.turn(500.0, 500.0);
        a.turn(f64::INFINITY, 600.0);
        a.turn(700.0, f64::INFINITY);
        let f = a.result(Timing::Execution);
        assert_eq!(f.idle_ms, 340.0);
        // the span: the turn is inside it; no call: from the turns only, 110 - 150...
        // here the waves are not calls: span from the turn [110, 150] alone
        assert_eq!(f.lane_span_ms, 40.0);
        assert_eq!(f.tool_busy_ms, 30.0);
        // a gap of exactly the limit is not idle: waves [0, 10] and [70, 80], limit 60
        let mut a = activity(60.0);
        feed(&mut a, &[], &[(0.0, 10.0), (70.0, 80.0)]);
        assert_eq!(a.result(Timing::Execution).idle_ms, 0.0);
        // 61 is: waves [0, 10] and [71, 80]
        let mut a = activity(60.0);
        feed(&mut a, &[], &[(0.0, 10.0), (71.0, 80.0)]);
        assert_eq!(a.result(Timing::Execution).idle_ms, 61.0);
    }

    #[test]
    fn a_turn_before_the_first_wave_and_one_inside_a_block() {
        // turn [0, 5], waves [100, 110] and [120, 300] (one block at limit 50), turn
        // [130, 140] inside it: sorted [0, 5], [100, 300], [130, 140]; the gap 100 - 5
        // = 95 > 50 counts, the inner turn is no gap: idle 95
        let mut a = activity(50.0);
        feed(&mut a, &[], &[(100.0, 110.0), (120.0, 300.0)]);
        a.turn(130.0, 140.0);
        a.turn(0.0, 5.0);
        assert_eq!(a.result(Timing::Execution).idle_ms, 95.0);
    }

    #[test]
    fn the_span_covers_calls_incomplete_starts_and_turns() {
        // call [10, 20], an incomplete start at 50, a turn [5, 30]: 50 - 5 = 45
        let mut a = activity(DEFAULT_IDLE_GAP_MS);
        feed(&mut a, &[("Bash", 10.0, 20.0, None)], &[(10.0, 20.0)]);
        a.incomplete_start(50.0);
        a.turn(5.0, 30.0);
        assert_eq!(a.result(Timing::Execution).lane_span_ms, 45.0);
        // one incomplete start alone: no span
        let mut a = activity(DEFAULT_IDLE_GAP_MS);
        a.incomplete_start(50.0);
        assert_eq!(a.result(Timing::Execution).lane_span_ms, 0.0);
        // nothing: 0.0
        assert_eq!(
            activity(1.0).result(Timing::Execution),
            ActivityFigures {
                calls_timed_by_execution: 0,
                ..ActivityFigures::default()
            }
        );
    }

    #[test]
    fn batches_are_ordered_by_earliest_start_then_first_call() {
        // pairing order: Read [50, 60] "A", Read [10, 20] "B", Bash [30, 35] "C":
        // by earliest start B, C, A: the Bash between them leaves no run of 2 (by
        // pairing order A, B would be one)
        let mut a = activity(DEFAULT_IDLE_GAP_MS);
        feed(
            &mut a,
            &[
                ("Read", 50.0, 60.0, Some("A")),
                ("Read", 10.0, 20.0, Some("B")),
                ("Bash", 30.0, 35.0, Some("C")),
            ],
            &[],
        );
        assert_eq!(a.result(Timing::Execution).missed_batch_runs, 0);
        // equal starts: the first call's pairing index decides, so "D" (index 0) comes
        // before "E" and "F" (Bash) comes last: D, E run, upper (20 - 5) - 10 = 5
        let mut a = activity(DEFAULT_IDLE_GAP_MS);
        feed(
            &mut a,
            &[
                ("Read", 5.0, 15.0, Some("D")),
                ("Bash", 5.0, 6.0, Some("F")),
                ("Read", 5.0, 20.0, Some("E")),
            ],
            &[],
        );
        let f = a.result(Timing::Execution);
        // D (0), F (1), E (2) by index: F between them, no run
        assert_eq!(f.missed_batch_runs, 0);
        // a batch's start is its earliest call's: "G" [40, 50] then [0, 5], "H" [20,
        // 25]: G starts at 0, before H: G is width 2 (no run member), H alone: no run;
        // widths 2 and 1
        let mut a = activity(DEFAULT_IDLE_GAP_MS);
        feed(
            &mut a,
            &[
                ("Read", 40.0, 50.0, Some("G")),
                ("Read", 20.0, 25.0, Some("H")),
                ("Read", 0.0, 5.0, Some("G")),
                ("Read", 60.0, 61.0, Some("I")),
            ],
            &[],
        );
        let f = a.result(Timing::Execution);
        assert_eq!(
            (f.multi_call_turns, f.max_turn_width, f.missed_batch_runs),
            (1, 2, 1)
        );
        // order G (0), H (20), I (60): G breaks; H, I run: (61 - 20) - max(5, 1) = 36
        assert_eq!(f.missed_batch_upper_ms, 36.0);
    }

    #[test]
    fn a_run_ends_at_a_wide_or_unbatchable_turn_and_at_the_end() {
        // Read a, Grep b, (Bash c), Read d, Read e, (Read f x2), Read g, Read h:
        // runs {a, b}, {d, e}, {g, h}: 3 runs, 6 calls, 3 round trips
        let mut a = activity(DEFAULT_IDLE_GAP_MS);
        feed(
            &mut a,
            &[
                ("Read", 0.0, 1.0, Some("a")),
                ("Grep", 2.0, 4.0, Some("b")),
                ("Bash", 5.0, 6.0, Some("c")),
                ("Read", 7.0, 8.0, Some("d")),
                ("mcp__fs__read_file", 9.0, 10.0, Some("e")),
                ("Read", 11.0, 12.0, Some("f")),
                ("Read", 11.0, 13.0, Some("f")),
                ("Read", 14.0, 15.0, Some("g")),
                ("LS", 16.0, 20.0, Some("h")),
            ],
            &[],
        );
        let f = a.result(Timing::Execution);
        assert_eq!(
            (
                f.missed_batch_runs,
                f.missed_batch_calls,
                f.missed_batch_round_trips
            ),
            (3, 6, 3)
        );
        // uppers: (4 - 0) - 2 = 2, (10 - 7) - 1 = 2, (20 - 14) - 4 = 2
        assert_eq!(f.missed_batch_upper_ms, 6.0);
        assert_eq!(f.turn_width_histogram, [7, 1, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn batchable_names_by_section_4_and_never_eval() {
        let mut a = Activity::new(names(&["read", "eval_read"]), names(&["eval_read"]), 1.0);
        for (name, expected) in [
            ("Read", true),
            ("mcp__fs__read", true),
            ("server:read", true),
            ("a/read", true),
            (" READ ", true),
            ("thread", false),
            ("reader", false),
            ("Bash", false),
            // batchable by the list but an eval name: not batchable
            ("eval_read", false),
            ("x_eval_read", false),
        ] {
            let name: Rc<str> = name.into();
            assert_eq!(a.is_batchable(&name), expected, "{name:?}");
            // remembered: the same answer again
            assert_eq!(a.is_batchable(&name), expected, "{name:?}");
        }
    }

    #[test]
    fn widths_fill_the_histogram_buckets() {
        // widths 1, 3, 5 and 40: buckets 0, 2, 4, 7; the widest 40
        let mut a = activity(DEFAULT_IDLE_GAP_MS);
        let mut calls = vec![("Bash", 0.0, 1.0, Some("w1"))];
        calls.extend(std::iter::repeat_n(("Bash", 2.0, 3.0, Some("w3")), 3));
        calls.extend(std::iter::repeat_n(("Bash", 4.0, 5.0, Some("w5")), 5));
        calls.extend(std::iter::repeat_n(("Bash", 6.0, 7.0, Some("w40")), 40));
        feed(&mut a, &calls, &[]);
        let f = a.result(Timing::Execution);
        assert_eq!(f.turn_width_histogram, [1, 0, 1, 0, 1, 0, 0, 1]);
        assert_eq!(
            (f.max_turn_width, f.multi_call_turns, f.batched_turns),
            (40, 3, 4)
        );
    }

    #[test]
    fn a_gap_of_exactly_the_limit_between_a_wave_and_a_turn_is_not_idle() {
        // limit 60: wave [0, 10], turn [70, 80] (turns are never folded into blocks):
        // the gap 60 is not above the limit; the turn [141, 150] leaves 61, which is
        // idle
        let mut a = activity(60.0);
        a.wave(0.0, 10.0);
        a.turn(70.0, 80.0);
        assert_eq!(a.result(Timing::Execution).idle_ms, 0.0);
        a.turn(141.0, 150.0);
        assert_eq!(a.result(Timing::Execution).idle_ms, 61.0);
    }

    #[test]
    fn an_empty_span_is_positive_zero() {
        // a call from 0.0 to -0.0 (equal times, an end >= its start): no span, and
        // not -0.0 - 0.0 = -0.0 (Python writes 0.0)
        let mut a = activity(DEFAULT_IDLE_GAP_MS);
        feed(&mut a, &[("Read", 0.0, -0.0, None)], &[]);
        let span = a.result(Timing::Execution).lane_span_ms;
        assert_eq!(span.to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn python_min_and_max_keep_the_first_of_equals() {
        assert_eq!(py_min(0.0, -0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(py_max(-0.0, 0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!((py_min(1.0, 2.0), py_min(2.0, 1.0)), (1.0, 1.0));
        assert_eq!((py_max(1.0, 2.0), py_max(2.0, 1.0)), (2.0, 2.0));
    }
}
