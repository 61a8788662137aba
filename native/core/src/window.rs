//! The `--since`/`--until` window of one lane (`wavemetrics/views/slices.py`
//! `partition_lane` and `window_lane`, docs/cli.md "Time windows"): which of a lane's
//! observations fall in the window, and the lane's figures from those alone.
//!
//! A wave is never cut in two: the lane's calls are paired (unbounded) and grouped
//! into waves first, and each paired call takes the start of its wave (its earliest
//! call start). An end before its start (a clock anomaly) goes with that start; any
//! other observation not in a paired call goes by its own time, and an end without a
//! start goes first in its part, so that it stays an orphan there. The lane's measured
//! turn total goes with its earliest call start (its earliest time when it has no
//! start), each turn interval with its own start; a turn alone makes no part.

use crate::activity::Timing;
use crate::summary::{Finished, LaneRecords, LaneStream, Settings, StreamOrderError};
use hashbrown::HashMap;
use std::rc::Rc;

/// A `[since_ms, until_ms)` window in Unix ms; `None`: that side is open.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub since_ms: Option<f64>,
    pub until_ms: Option<f64>,
}

impl Window {
    /// Whether `at_ms` is in the window (`window_lane`'s `inside`).
    pub fn inside(&self, at_ms: f64) -> bool {
        self.since_ms.is_none_or(|since| at_ms >= since)
            && self.until_ms.is_none_or(|until| at_ms < until)
    }
}

/// Where each observation went in the unbounded pairing (`slices._positions`): per
/// position, the index of its paired call (in pairing order) or, for an end before its
/// start, that start's position; and each paired call's start and end.
struct Placed {
    call_of: Vec<Option<usize>>,
    anomaly_of: Vec<Option<usize>>,
    calls: Vec<(f64, f64)>,
}

fn place(r: &LaneRecords) -> Placed {
    let n = r.starts.len();
    let mut pending: HashMap<&str, usize> = HashMap::new();
    let mut placed = Placed {
        call_of: vec![None; n],
        anomaly_of: vec![None; n],
        calls: Vec::new(),
    };
    for (position, &start) in r.starts.iter().enumerate() {
        let call_id: &str = &r.call_ids[position];
        if start {
            pending.insert(call_id, position);
            continue;
        }
        let Some(from) = pending.remove(call_id) else {
            continue;
        };
        let (start_ms, end_ms) = (r.at_ms[from], r.at_ms[position]);
        if end_ms < start_ms {
            placed.anomaly_of[position] = Some(from);
        } else {
            let index = placed.calls.len();
            placed.call_of[from] = Some(index);
            placed.call_of[position] = Some(index);
            placed.calls.push((start_ms, end_ms));
        }
    }
    placed
}

/// The start of each paired call's wave, by call index (`group_waves`: a stable sort
/// by `(start, end)`; a call opens a new wave when its start is past the reach).
fn wave_starts(calls: &[(f64, f64)]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..calls.len()).collect();
    // times are finite (valid observations), so the order is total
    order.sort_by(|&a, &b| {
        calls[a]
            .partial_cmp(&calls[b])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut starts = vec![0.0; calls.len()];
    let (mut wave_start, mut reach, mut open) = (0.0, f64::NEG_INFINITY, false);
    for index in order {
        let (start, end) = calls[index];
        if !open || start > reach {
            wave_start = start;
            open = true;
        }
        reach = reach.max(end);
        starts[index] = wave_start;
    }
    starts
}

/// Where each observation of a lane goes when it is cut by time (`partition_lane`):
/// the time that places it (its wave's start for a paired call, its start's time for
/// an end before its start, else its own), whether it is an orphan end (an end
/// without a start, which goes first in its part), and the time of the lane's home
/// (its earliest start, else its earliest time), which its turn total goes with.
pub struct Placement {
    pub at_ms: Vec<f64>,
    orphan: Vec<bool>,
    pub home_ms: Option<f64>,
}

/// The [`Placement`] of a lane's observations.
pub fn placement(r: &LaneRecords) -> Placement {
    let placed = place(r);
    let starts = wave_starts(&placed.calls);
    let first_start = r
        .starts
        .iter()
        .zip(&r.at_ms)
        .filter(|(&start, _)| start)
        .map(|(_, &at)| at)
        .reduce(f64::min);
    let home_ms = first_start.or_else(|| r.at_ms.iter().copied().reduce(f64::min));
    let mut out = Placement {
        at_ms: Vec::with_capacity(r.starts.len()),
        orphan: Vec::with_capacity(r.starts.len()),
        home_ms,
    };
    for position in 0..r.starts.len() {
        out.at_ms.push(match placed.call_of[position] {
            Some(index) => starts[index],
            None => r.at_ms[placed.anomaly_of[position].unwrap_or(position)],
        });
        out.orphan.push(
            placed.call_of[position].is_none()
                && !r.starts[position]
                && placed.anomaly_of[position].is_none(),
        );
    }
    out
}

/// A lane's observations cut as `partition_lane` cuts them, each placed
/// ([`placement`]) by `key_of` its time (`None`: in no part): one part per key, in
/// order of first appearance, each with its observations (orphan ends first, then
/// the others, each in their order), the turn total when the home's key is the
/// part's, and the turn intervals whose start's key is the part's. A key no
/// observation has makes no part.
pub fn partition_records(
    r: &LaneRecords,
    placed: &Placement,
    key_of: impl Fn(f64) -> Option<usize>,
) -> Vec<(usize, LaneRecords)> {
    // per part: its key, its orphan ends' positions, its other positions
    let mut parts: Vec<(usize, Vec<usize>, Vec<usize>)> = Vec::new();
    let mut part_of: HashMap<usize, usize> = HashMap::new();
    for position in 0..r.starts.len() {
        let Some(key) = key_of(placed.at_ms[position]) else {
            continue;
        };
        let at = *part_of.entry(key).or_insert_with(|| {
            parts.push((key, Vec::new(), Vec::new()));
            parts.len() - 1
        });
        if placed.orphan[position] {
            parts[at].1.push(position);
        } else {
            parts[at].2.push(position);
        }
    }
    // `partition_lane` also opens the home part for a turn total alone; with valid
    // times that part always holds the earliest start (a paired call takes its wave's
    // start, which is the earliest start itself), so it is among these
    let home = placed.home_ms.and_then(&key_of);
    parts
        .into_iter()
        .map(|(key, mut positions, kept)| {
            positions.extend(kept);
            let part = LaneRecords {
                starts: positions.iter().map(|&p| r.starts[p]).collect(),
                call_ids: positions.iter().map(|&p| r.call_ids[p].clone()).collect(),
                tool_names: positions.iter().map(|&p| r.tool_names[p].clone()).collect(),
                at_ms: positions.iter().map(|&p| r.at_ms[p]).collect(),
                batches: positions.iter().map(|&p| r.batches[p].clone()).collect(),
                turn_total_ms: if home == Some(key) {
                    r.turn_total_ms
                } else {
                    0.0
                },
                turns: r
                    .turns
                    .iter()
                    .copied()
                    .filter(|&(start, _)| key_of(start) == Some(key))
                    .collect(),
                replaced: r.replaced,
                timing: r.timing,
                // the part's waves are its replay's ([`replay`])
                wave_calls: Vec::new(),
                waves: Vec::new(),
                paired_ids: Vec::new(),
            };
            (key, part)
        })
        .collect()
}

/// The part of a lane's observations in `window`, as `window_lane` cuts it
/// ([`partition_records`] by whether a time is inside); `None` when nothing of the
/// lane is in the window.
pub fn window_records(r: &LaneRecords, window: &Window) -> Option<LaneRecords> {
    let key_of = |at: f64| window.inside(at).then_some(0);
    partition_records(r, &placement(r), key_of)
        .pop()
        .map(|(_, part)| part)
}

/// The figures of a lane's observations read in batch with `settings` (its `stream`
/// and `record` are not used), as the Python core's `analyse` gives them for a batch
/// lane: each observation fed in order, then the turn total and intervals; with the
/// records of that read (its waves' calls among them: `LaneRecords::wave_calls`).
pub fn replay(r: &LaneRecords, settings: &Settings) -> Result<Finished, StreamOrderError> {
    let mut batch = settings.clone();
    // in batch: a part fed in its read order may reach back into a wave a stream
    // would have emitted already
    batch.stream = false;
    batch.record = true;
    let mut stream = LaneStream::new(
        &batch,
        Rc::from(batch.eval_names.clone()),
        Rc::from(batch.batchable_names.clone()),
    );
    for (position, &start) in r.starts.iter().enumerate() {
        let (call_id, at_ms) = (&*r.call_ids[position], r.at_ms[position]);
        if start {
            let batch_key = r.batches[position].as_deref().map(Rc::from);
            stream.start(
                Rc::from(call_id),
                Rc::from(&*r.tool_names[position]),
                at_ms,
                batch_key,
            );
        } else {
            stream.end(call_id, at_ms)?;
        }
    }
    let timing: Timing = r.timing;
    Ok(stream.finish_lane(r.turn_total_ms, &r.turns, timing))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records of `(start?, call id, tool name, at ms)`, with a turn total and turns.
    fn lane(observed: &[(bool, &str, &str, f64)], total: f64, turns: &[(f64, f64)]) -> LaneRecords {
        LaneRecords {
            starts: observed.iter().map(|o| o.0).collect(),
            call_ids: observed.iter().map(|o| o.1.into()).collect(),
            tool_names: observed.iter().map(|o| o.2.into()).collect(),
            at_ms: observed.iter().map(|o| o.3).collect(),
            batches: observed
                .iter()
                .map(|o| o.0.then(|| Box::from(&b"m1"[..])))
                .collect(),
            turn_total_ms: total,
            turns: turns.to_vec(),
            replaced: false,
            timing: Timing::Execution,
            ..LaneRecords::default()
        }
    }

    fn since(ms: f64) -> Window {
        Window {
            since_ms: Some(ms),
            until_ms: None,
        }
    }

    fn until(ms: f64) -> Window {
        Window {
            since_ms: None,
            until_ms: Some(ms),
        }
    }

    /// The kept observations as `(start?, id, at)`.
    fn kept(r: &LaneRecords) -> Vec<(bool, &str, f64)> {
        (0..r.starts.len())
            .map(|i| (r.starts[i], &*r.call_ids[i], r.at_ms[i]))
            .collect()
    }

    fn settings() -> Settings {
        Settings {
            max_tracked_calls: None,
            eval_names: vec!["eval".into()],
            stream: true,
            batchable_names: vec!["read".into(), "grep".into()],
            idle_gap_ms: 0.0,
            record: true,
        }
    }

    /// Minutes as keys, none from 190 s: each part by its minute, orphan ends first,
    /// the turn total with the earliest start's part, turns with their starts' parts.
    #[test]
    fn a_lane_is_partitioned_by_the_key_of_each_observation_s_place() {
        let r = lane(
            &[
                (true, "a", "bash", 0.0),
                (true, "b", "grep", 5000.0),
                (false, "a", "bash", 10000.0),
                (false, "b", "grep", 15000.0),
                (false, "z", "", 115000.0),
                (true, "a", "read", 100000.0),
                (false, "a", "read", 110000.0),
                (true, "q", "wait", 50000.0),
                (true, "n", "late", 300000.0),
            ],
            7.0,
            &[(1000.0, 2000.0), (150000.0, 160000.0), (100500.0, 101000.0)],
        );
        let placed = placement(&r);
        assert_eq!(
            placed.at_ms,
            [0.0, 0.0, 0.0, 0.0, 115000.0, 100000.0, 100000.0, 50000.0, 300000.0]
        );
        assert_eq!(placed.home_ms, Some(0.0));
        let minute = |at: f64| (at < 190000.0).then_some((at / 60000.0) as usize);
        let parts = partition_records(&r, &placed, minute);
        let keys: Vec<usize> = parts.iter().map(|(key, _)| *key).collect();
        assert_eq!(keys, [0, 1]);
        assert_eq!(
            kept(&parts[0].1),
            [
                (true, "a", 0.0),
                (true, "b", 5000.0),
                (false, "a", 10000.0),
                (false, "b", 15000.0),
                (true, "q", 50000.0)
            ]
        );
        assert_eq!(
            kept(&parts[1].1),
            [
                (false, "z", 115000.0),
                (true, "a", 100000.0),
                (false, "a", 110000.0)
            ]
        );
        assert_eq!(
            (parts[0].1.turn_total_ms, parts[1].1.turn_total_ms),
            (7.0, 0.0)
        );
        assert_eq!(parts[0].1.turns, [(1000.0, 2000.0)]);
        assert_eq!(parts[1].1.turns, [(100500.0, 101000.0)]);
        assert_eq!(&*parts[1].1.tool_names[1], "read");
        // with no start, the home is the earliest time
        let ends = lane(
            &[(false, "x", "", 70000.0), (false, "y", "", 65000.0)],
            3.0,
            &[],
        );
        let placed = placement(&ends);
        assert_eq!(placed.home_ms, Some(65000.0));
        let parts = partition_records(&ends, &placed, minute);
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].1.turn_total_ms, 3.0);
    }

    #[test]
    fn the_window_holds_since_and_not_until() {
        let both = Window {
            since_ms: Some(10.0),
            until_ms: Some(20.0),
        };
        assert!(!both.inside(9.5));
        assert!(both.inside(10.0));
        assert!(both.inside(19.5));
        assert!(!both.inside(20.0));
        assert!(Window {
            since_ms: None,
            until_ms: None
        }
        .inside(-1.0));
    }

    /// docs/cli.md's example: `a` bash [0 s, 10 s], `b` grep [5 s, 15 s], then the id
    /// `a` again, read [100 s, 110 s]: each call of `a` goes where its own wave starts.
    #[test]
    fn a_reused_id_names_two_calls_each_placed_by_its_own_wave() {
        let r = lane(
            &[
                (true, "a", "bash", 0.0),
                (true, "b", "grep", 5000.0),
                (false, "a", "bash", 10000.0),
                (false, "b", "grep", 15000.0),
                (true, "a", "read", 100000.0),
                (false, "a", "read", 110000.0),
            ],
            0.0,
            &[],
        );
        let late = window_records(&r, &since(50000.0)).unwrap();
        assert_eq!(kept(&late), [(true, "a", 100000.0), (false, "a", 110000.0)]);
        assert_eq!(&*late.tool_names[0], "read");
        let early = window_records(&r, &until(50000.0)).unwrap();
        assert_eq!(
            kept(&early),
            [
                (true, "a", 0.0),
                (true, "b", 5000.0),
                (false, "a", 10000.0),
                (false, "b", 15000.0)
            ]
        );
        let summary = replay(&early, &settings()).unwrap().summary;
        assert_eq!(summary.paired_calls, 2);
        assert_eq!(summary.non_eval_waves_multi, 1);
        assert_eq!(summary.modeled_wallclock_saved_ms, 5000.0);
        let summary = replay(&late, &settings()).unwrap().summary;
        assert_eq!(summary.paired_calls, 1);
        assert_eq!(summary.modeled_wallclock_saved_ms, 0.0);
    }

    /// A wave that crosses a bound belongs wholly to the side where it starts, even a
    /// call that starts past the bound; a call that only touches the reach joins it.
    #[test]
    fn a_wave_is_never_cut_in_two() {
        let r = lane(
            &[
                (true, "x", "read", 900.0),
                (true, "y", "read", 1050.0),
                (false, "x", "read", 1100.0),
                (false, "y", "read", 1200.0),
                (true, "z", "read", 1200.0),
                (false, "z", "read", 1300.0),
                (true, "w", "read", 1301.0),
                (false, "w", "read", 1302.0),
            ],
            0.0,
            &[],
        );
        let after = window_records(&r, &since(1000.0)).unwrap();
        assert_eq!(kept(&after), [(true, "w", 1301.0), (false, "w", 1302.0)]);
        let before = window_records(&r, &until(1000.0)).unwrap();
        assert_eq!(before.starts.len(), 6);
        assert_eq!(
            replay(&before, &settings())
                .unwrap()
                .summary
                .non_eval_joined_calls,
            3
        );
        assert_eq!(window_records(&r, &since(1302.0)), None);
    }

    /// An end without a start goes by its own time, first in its part (an orphan there
    /// too); an end before its start goes with that start; a start that never paired,
    /// or that a repeat replaced, goes by its own time.
    #[test]
    fn observations_not_in_a_call_go_by_their_own_time() {
        let r = lane(
            &[
                (true, "x", "read", 10.0),
                (true, "d", "read", 12.0),
                (true, "d", "read", 40.0),
                (false, "o", "read", 30.0),
                (true, "z", "read", 100.0),
                (false, "z", "read", 50.0),
                (false, "x", "read", 60.0),
                (true, "p", "read", 70.0),
            ],
            0.0,
            &[],
        );
        let part = window_records(&r, &since(25.0)).unwrap();
        assert_eq!(
            kept(&part),
            [
                (false, "o", 30.0),
                (true, "d", 40.0),
                (true, "z", 100.0),
                (false, "z", 50.0),
                (true, "p", 70.0)
            ]
        );
        let s = replay(&part, &settings()).unwrap().summary;
        assert_eq!(
            (s.orphan_ends, s.clock_anomalies, s.incomplete_calls),
            (1, 1, 2)
        );
        assert_eq!(s.paired_calls, 0);
        let part = window_records(&r, &until(25.0)).unwrap();
        assert_eq!(
            kept(&part),
            [(true, "x", 10.0), (true, "d", 12.0), (false, "x", 60.0)]
        );
        let s = replay(&part, &settings()).unwrap().summary;
        assert_eq!(
            (s.paired_calls, s.incomplete_calls, s.orphan_ends),
            (1, 1, 0)
        );
    }

    /// The turn total goes with the lane's earliest start (its earliest time when it
    /// has none), each turn interval with its own start.
    #[test]
    fn turns_go_with_their_starts() {
        let r = lane(
            &[
                (true, "a", "read", 10.0),
                (false, "a", "read", 20.0),
                (true, "b", "read", 30.0),
                (false, "b", "read", 35.0),
            ],
            7.0,
            &[(5.0, 25.0), (28.0, 40.0)],
        );
        let early = window_records(&r, &until(25.0)).unwrap();
        assert_eq!(
            (early.turn_total_ms, early.turns.clone()),
            (7.0, vec![(5.0, 25.0)])
        );
        let late = window_records(&r, &since(25.0)).unwrap();
        assert_eq!(
            (late.turn_total_ms, late.turns.clone()),
            (0.0, vec![(28.0, 40.0)])
        );
        assert_eq!(
            replay(&early, &settings())
                .unwrap()
                .summary
                .measured_turn_duration_ms_total,
            7.0
        );
        // no start: the earliest time of all (here an orphan end's) decides
        let ends = lane(
            &[(false, "q", "read", 40.0), (false, "r", "read", 3.0)],
            9.0,
            &[],
        );
        assert_eq!(
            window_records(&ends, &until(10.0)).unwrap().turn_total_ms,
            9.0
        );
        assert_eq!(
            window_records(&ends, &since(10.0)).unwrap().turn_total_ms,
            0.0
        );
    }

    /// An end before its start is no call (it goes with its start, not with the wave
    /// its interval would join); an end at its start's time makes a call of no length.
    #[test]
    fn only_an_end_before_its_start_is_a_clock_anomaly() {
        let r = lane(
            &[
                (true, "y", "read", 90.0),
                (true, "z", "read", 100.0),
                (false, "z", "read", 50.0),
                (true, "n", "read", 100.0),
                (false, "n", "read", 100.0),
                (false, "y", "read", 120.0),
            ],
            0.0,
            &[],
        );
        let part = window_records(&r, &since(95.0)).unwrap();
        assert_eq!(kept(&part), [(true, "z", 100.0), (false, "z", 50.0)]);
        let part = window_records(&r, &until(95.0)).unwrap();
        assert_eq!(
            kept(&part),
            [
                (true, "y", 90.0),
                (true, "n", 100.0),
                (false, "n", 100.0),
                (false, "y", 120.0)
            ]
        );
    }

    /// The replay's records hold each wave's calls: a `non_eval` wave of two is
    /// multi-call, a lone call is not, a wave with an eval call is eval or mixed.
    #[test]
    fn the_replay_keeps_each_wave_s_calls() {
        let r = lane(
            &[
                (true, "p", "read", 0.0),
                (true, "q", "grep", 1.0),
                (false, "p", "read", 5.0),
                (false, "q", "grep", 2.0),
                (true, "s", "read", 10.0),
                (false, "s", "read", 10.5),
                (true, "e", "eval", 20.0),
                (false, "e", "eval", 23.0),
            ],
            0.0,
            &[],
        );
        let records = replay(&r, &settings()).unwrap().records.unwrap();
        let calls: Vec<(&str, f64, bool, bool)> = records
            .wave_calls
            .iter()
            .map(|c| (&*c.tool_name, c.duration_ms, c.multi, c.eval_or_mixed))
            .collect();
        assert_eq!(
            calls,
            [
                ("read", 5.0, true, false),
                ("grep", 1.0, true, false),
                ("read", 0.5, false, false),
                ("eval", 3.0, false, true)
            ]
        );
    }

    /// The earliest start decides the turn total's side, not the earliest time.
    #[test]
    fn the_home_is_the_earliest_start() {
        let r = lane(
            &[(false, "o", "read", 1.0), (true, "a", "read", 50.0)],
            4.0,
            &[],
        );
        assert_eq!(window_records(&r, &since(10.0)).unwrap().turn_total_ms, 4.0);
        assert_eq!(window_records(&r, &until(10.0)).unwrap().turn_total_ms, 0.0);
    }

    /// The replay reads in batch with the run's cap, names and timing, and keeps
    /// each start's batch key.
    #[test]
    fn the_replay_is_a_batch_read_with_the_run_s_settings() {
        let mut r = lane(
            &[
                (true, "a", "read", 0.0),
                (true, "b", "eval", 1.0),
                (false, "b", "eval", 3.0),
                (false, "a", "read", 4.0),
                (true, "c", "read", 10.0),
                (false, "c", "read", 12.0),
            ],
            0.0,
            &[],
        );
        let s = replay(&r, &settings()).unwrap().summary;
        assert_eq!(
            (s.paired_calls, s.mixed_waves, s.non_eval_waves_total),
            (3, 1, 1)
        );
        assert_eq!((s.calls_timed_by_execution, s.batched_turns), (3, 1));
        // the waves' calls, in wave order: a mixed wave (a, then the eval b), then c
        let records = replay(&r, &settings()).unwrap().records.unwrap();
        let calls: Vec<(&str, f64, bool, bool)> = records
            .wave_calls
            .iter()
            .map(|c| (&*c.tool_name, c.duration_ms, c.multi, c.eval_or_mixed))
            .collect();
        assert_eq!(
            calls,
            [
                ("read", 4.0, false, true),
                ("eval", 2.0, false, true),
                ("read", 2.0, false, false)
            ]
        );
        r.timing = Timing::Message;
        assert_eq!(
            replay(&r, &settings())
                .unwrap()
                .summary
                .calls_timed_by_execution,
            0
        );
        // a call whose end comes after 70 others: a stream would have emitted its wave
        let mut observed = vec![(true, "late", "read", 5.0)];
        let ids: Vec<String> = (0..70).map(|i| format!("c{i}")).collect();
        for (i, id) in ids.iter().enumerate() {
            let at = 10.0 * (i as f64 + 1.0);
            observed.push((true, id.as_str(), "read", at));
            observed.push((false, id.as_str(), "read", at + 1.0));
        }
        observed.push((false, "late", "read", 6.0));
        let s = replay(&lane(&observed, 0.0, &[]), &settings())
            .unwrap()
            .summary;
        assert_eq!((s.paired_calls, s.non_eval_waves_total), (71, 71));
        let capped = Settings {
            max_tracked_calls: Some(1),
            ..settings()
        };
        let s = replay(&r, &capped).unwrap().summary;
        assert_eq!((s.paired_calls, s.dropped_calls), (1, 2));
    }
}
