//! The `events` reader (`docs/formats.md`), line for line the rules of
//! `wavemetrics/readers/events.py`. Python decodes a line with msgspec (its
//! `EventRecord`) and with `json` when msgspec refuses it, so a line is decided by the
//! shape msgspec decodes ([`EVENT`], `lines::msgspec_line_problem`).

use super::lines::{check_turn_total, for_each_object_line, msgspec_line_problem, Names, Shape};
use super::protocol::{with_fallback, Failure, LaneOut, ReadError, Reader, Unit, UnitOut};
use crate::account::LineAccount;
use crate::activity::Timing;
use crate::io::open_input;
use crate::json::{parse_object, Val, MAX_JSON_DEPTH};
use crate::summary::{BatchKey, LaneStream, Settings};
use crate::time::iso_to_ms;
use hashbrown::{HashMap, HashSet};
use std::path::Path;
use std::rc::Rc;

const EVENT_KEYS: [&str; 6] = [
    "type",
    "toolCallId",
    "toolName",
    "timestamp",
    "sessionId",
    "agentId",
];

/// The shape `events.py`'s msgspec decoder (`EventRecord`) decodes a line to: every
/// key of [`EVENT_KEYS`], any value.
const EVENT: [(&str, Shape); 6] = [
    ("type", Shape::Any),
    ("toolCallId", Shape::Any),
    ("toolName", Shape::Any),
    ("timestamp", Shape::Any),
    ("sessionId", Shape::Any),
    ("agentId", Shape::Any),
];

/// `time_to_ms`: a number of ms (finite, >= 0, not bool) or an ISO-8601 string.
fn time_to_ms(value: &Val) -> Option<f64> {
    match value {
        Val::Num(ms) if ms.is_finite() && *ms >= 0.0 => Some(*ms),
        Val::Text(_) | Val::Str(_) => value.str_bytes().and_then(iso_to_ms),
        _ => None,
    }
}

struct EventLane {
    out: LaneOut,
    stream: LaneStream,
    turn_total: f64,
    turn_pending: Option<f64>,
    /// The measured turns `(start, end)`, in the order they ended (`TurnClock.intervals`).
    turns: Vec<(f64, f64)>,
    /// The batch of the lane's starts: the count of its used `turn_start` lines
    /// (`None` before the first; `docs/formats.md`, "Batches").
    batch: Option<BatchKey>,
    turn_starts: u64,
    order: usize,
}

fn finish_event_lane(lane: EventLane) -> Result<(usize, LaneOut), Failure> {
    let total = check_turn_total(lane.turn_total)?;
    let finished = lane
        .stream
        .finish_lane(total, &lane.turns, Timing::Execution);
    Ok((lane.order, lane.out.finished(finished)))
}

fn read_events_once(
    path: &Path,
    default_session_id: &str,
    settings: &Settings,
) -> Result<UnitOut, Failure> {
    let eval_names: Rc<[String]> = settings.eval_names.clone().into();
    let batchable_names: Rc<[String]> = settings.batchable_names.clone().into();
    let mut account = LineAccount::default();
    let mut lanes: Vec<Option<EventLane>> = Vec::new();
    let mut lane_index: HashMap<(Box<str>, Box<str>), usize> = HashMap::new();
    let mut closed: HashSet<Box<str>> = HashSet::new();
    let mut built: Vec<(usize, LaneOut)> = Vec::new();
    let mut names = Names::default();
    let mut used = 0u64;
    for_each_object_line(
        open_input(path)?,
        &mut account,
        MAX_JSON_DEPTH,
        |text, account| {
            let mut v: [Val; 6] = Default::default();
            let parsed = parse_object(text, &EVENT_KEYS, |i, raw| v[i] = Val::of(raw));
            let problem = msgspec_line_problem(text, parsed.is_ok(), &EVENT);
            if problem.is_some() {
                return Ok(problem);
            }
            let [kind, call, tool, stamp, session, agent] = v;
            let Some(kind) = kind.str_bytes() else {
                account.problem("missing_type");
                return Ok(None);
            };
            let tool_event = matches!(kind, b"tool_execution_start" | b"tool_execution_end");
            let turn_event = matches!(kind, b"turn_start" | b"turn_end");
            let shutdown = kind == b"session_shutdown";
            if !(tool_event || turn_event || shutdown) {
                account.ignore(kind);
                return Ok(None);
            }
            let session_id = match session {
                Val::Absent => Some(default_session_id),
                ref other => other.usable_id(),
            };
            let lane_id = match agent {
                Val::Absent => Some("main"),
                ref other => other.usable_id(),
            };
            let (Some(session_id), Some(lane_id)) = (session_id, lane_id) else {
                account.problem("invalid_id");
                return Ok(None);
            };
            if closed.contains(session_id) {
                account.ignore(b"after_session_shutdown");
                return Ok(None);
            }
            if shutdown {
                closed.insert(session_id.into());
                used += 1;
                for slot in lanes.iter_mut() {
                    if slot
                        .as_ref()
                        .is_some_and(|l| l.out.session_id == session_id)
                    {
                        if let Some(lane) = slot.take() {
                            built.push(finish_event_lane(lane)?);
                        }
                    }
                }
                return Ok(None);
            }
            let at_ms = time_to_ms(&stamp);
            let mut call_id = None;
            let mut name = None;
            if tool_event {
                call_id = call.usable_id();
                name = tool.usable_text();
                // a start needs a usable name; an end may omit it (or give null), but a
                // name it gives must be usable (events.py)
                let bad_name = name.is_none()
                    && (kind == b"tool_execution_start"
                        || !matches!(tool, Val::Absent | Val::Null));
                if call_id.is_none() || bad_name {
                    account.problem("invalid_tool_record");
                    return Ok(None);
                }
            }
            let Some(at_ms) = at_ms else {
                account.problem("invalid_timestamp");
                return Ok(None);
            };
            let key = (Box::<str>::from(session_id), Box::<str>::from(lane_id));
            let index = match lane_index.get(&key) {
                Some(&index) => index,
                None => {
                    let index = lanes.len();
                    lanes.push(Some(EventLane {
                        out: LaneOut::opened(0, session_id.to_string(), lane_id.to_string()),
                        stream: LaneStream::new(
                            settings,
                            eval_names.clone(),
                            batchable_names.clone(),
                        ),
                        turn_total: 0.0,
                        turn_pending: None,
                        turns: Vec::new(),
                        batch: None,
                        turn_starts: 0,
                        order: index,
                    }));
                    lane_index.insert(key, index);
                    index
                }
            };
            let Some(lane) = lanes[index].as_mut() else {
                unreachable!("a lane is taken only when its session is closed");
            };
            used += 1;
            match (call_id, kind) {
                (None, b"turn_start") => {
                    lane.turn_pending = Some(at_ms);
                    lane.turn_starts += 1;
                    lane.batch = Some(lane.turn_starts.to_string().as_bytes().into());
                }
                (None, _) => {
                    if let Some(start) = lane.turn_pending.take() {
                        let duration = at_ms - start;
                        if duration > 0.0 {
                            let total = lane.turn_total + duration;
                            if total == f64::INFINITY {
                                // _turn_overflows: a problem, not added; a start no end
                                // can follow stands in for this end
                                used -= 1;
                                account.problem("turn_total_overflow");
                                lane.turn_pending = Some(f64::INFINITY);
                                return Ok(None);
                            }
                            lane.turn_total = total;
                            lane.turns.push((start, at_ms));
                        }
                    }
                }
                (Some(call_id), b"tool_execution_start") => {
                    let name = names.get(name.unwrap_or("unknown"));
                    lane.stream
                        .start(call_id.into(), name, at_ms, lane.batch.clone());
                }
                (Some(call_id), _) => lane.stream.end(call_id, at_ms)?,
            }
            Ok(None)
        },
    )?;
    account.lines_used += used;
    for lane in lanes.into_iter().flatten() {
        built.push(finish_event_lane(lane)?);
    }
    built.sort_by_key(|(order, _)| *order);
    Ok(UnitOut {
        accounts: vec![account],
        lanes: built.into_iter().map(|(_, lane)| lane).collect(),
        read_again_in_batch: false,
    })
}

/// The `events` reader: a unit is one file, read into lanes keyed by
/// `(sessionId, agentId)`; the unit's one session id stands in for a missing
/// `sessionId`. It reads on one thread; a unit of more or fewer than one file is
/// refused (`InvalidInput`).
pub struct Events;

impl Reader for Events {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        _threads: usize,
    ) -> Result<UnitOut, ReadError> {
        let (path, default_session_id) = unit.one_file("an events")?;
        with_fallback(settings, |s| read_events_once(path, default_session_id, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::protocol::fixtures::{read_lines, settings};
    use std::io;

    fn events(name: &str, lines: &[&str]) -> UnitOut {
        read_lines(&Events, name, lines, "run")
    }

    /// A `turn_end` line at `timestamp` 5 nested `levels` deep (its object and an array
    /// value), with `more` keys before the array.
    fn deep(levels: usize, more: &str) -> String {
        let arrays = levels - 1;
        format!(
            r#"{{"type":"turn_end","timestamp":5,{more}"x":{}{}}}"#,
            "[".repeat(arrays),
            "]".repeat(arrays)
        )
    }

    #[test]
    fn a_line_is_read_as_msgspec_or_else_json_reads_it() {
        let long = "9".repeat(4301);
        let refused = r#""y":"\ud800","#; // a lone surrogate: msgspec refuses the line
        let lines = [
            r#"{"type":"turn_start","timestamp":1}"#.to_string(),
            deep(500, ""),      // msgspec reads 500 levels (the one limit): read
            deep(501, ""),      // past the limit: handed to neither decoder
            deep(500, refused), // json reads the same 500 levels: read
            deep(501, refused), // json's first failure: the container past the limit
            format!(r#"{{"type":"turn_end","timestamp":{long}}}"#), // decoded: json refuses
            format!(r#"{{"type":"turn_end","timestamp":5,"x":{long}}}"#), // skipped: read
            format!(r#"{{"type":"turn_end","timestamp":-{}}}"#, &long[1..]), // 4301 chars
            format!("[{}]", "[".repeat(500) + &"]".repeat(500)), // 502 levels, no object
            String::new(),      // the last line ends with its newline
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = events("msgspec", &lines);
        let account = &out.accounts[0];
        assert_eq!(
            (account.lines_read, account.lines_used),
            (9, 4),
            "the turn_start and the three turn_end lines read"
        );
        // in the order each reason first came
        assert_eq!(
            account.problems,
            vec![
                ("too_deeply_nested", 3),
                ("invalid_json", 1),
                ("invalid_timestamp", 1)
            ]
        );
    }

    #[test]
    fn an_events_turn_that_would_overflow_the_total_is_a_problem() {
        let out = events(
            "turns",
            &[
                r#"{"type":"turn_start","timestamp":0}"#,
                r#"{"type":"turn_end","timestamp":1.7976931348623157e308}"#,
                r#"{"type":"turn_start","timestamp":0}"#,
                r#"{"type":"turn_end","timestamp":1.7976931348623157e308}"#,
                r#"{"type":"turn_end","timestamp":5}"#,
                r#"{"type":"tool_execution_start","toolCallId":"c\u0000","toolName":"read","timestamp":1}"#,
            ],
        );
        let account = &out.accounts[0];
        assert_eq!(
            account.problems,
            vec![("turn_total_overflow", 1), ("invalid_tool_record", 1)]
        );
        assert_eq!(account.lines_used, 4);
        assert_eq!(
            out.lanes[0].summary.measured_turn_duration_ms_total,
            1.7976931348623157e308
        );
    }

    #[test]
    fn an_events_unit_is_one_file_and_its_session_id() {
        let path = std::path::Path::new("/nonexistent/e.jsonl");
        let ids = ["a".to_string(), "b".to_string()];
        for (paths, ids) in [
            (&[][..], &ids[..1]),
            (&[path, path][..], &ids[..]),
            (&[path][..], &ids[..0]),
        ] {
            let unit = Unit {
                paths,
                session_ids: ids,
            };
            match Events.read(&unit, &settings(), 1) {
                Err(ReadError::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::InvalidInput),
                other => panic!("{other:?}"),
            }
        }
        // one file and one id: read (here, the missing file's error)
        let unit = Unit {
            paths: &[path],
            session_ids: &ids[..1],
        };
        match Events.read(&unit, &settings(), 1) {
            Err(ReadError::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::NotFound),
            other => panic!("{other:?}"),
        }
    }

    const TURNS: [&str; 15] = [
        r#"{"type":"tool_execution_start","toolCallId":"a","toolName":"read","timestamp":1}"#,
        r#"{"type":"tool_execution_end","toolCallId":"a","timestamp":2}"#,
        r#"{"type":"turn_start","timestamp":3}"#,
        r#"{"type":"tool_execution_start","toolCallId":"b","toolName":"read","timestamp":4}"#,
        r#"{"type":"tool_execution_start","toolCallId":"c","toolName":"grep","timestamp":4}"#,
        r#"{"type":"tool_execution_end","toolCallId":"b","timestamp":6}"#,
        r#"{"type":"tool_execution_end","toolCallId":"c","timestamp":5}"#,
        r#"{"type":"turn_end","timestamp":7}"#,
        r#"{"type":"turn_start","timestamp":8}"#,
        r#"{"type":"tool_execution_start","toolCallId":"d","toolName":"read","timestamp":9}"#,
        r#"{"type":"tool_execution_end","toolCallId":"d","timestamp":10}"#,
        r#"{"type":"turn_start","timestamp":11}"#,
        r#"{"type":"tool_execution_start","toolCallId":"e","toolName":"read","timestamp":12}"#,
        r#"{"type":"tool_execution_end","toolCallId":"e","timestamp":14}"#,
        r#"{"type":"turn_end","timestamp":15}"#,
    ];

    #[test]
    fn an_events_call_s_batch_is_its_lane_s_turn() {
        // a (before any turn_start): no batch; b and c after the first: one turn of
        // width 2; d after the second, e after the third (which replaces the second's
        // pending start): turns of one. By start: {b, c} (4), {d} (9), {e} (12): one run
        // {d, e}, upper (14 - 9) - max(1, 2) = 3. Measured turns [3, 7] and [11, 15]:
        // total 8; span 15 - 1; busy [1, 2], [4, 6], [9, 10], [12, 14]: 1 + 2 + 1 + 2
        let out = events("batches", &TURNS);
        let s = &out.lanes[0].summary;
        assert_eq!((s.paired_calls, s.calls_without_batch), (5, 1));
        assert_eq!(
            (s.batched_turns, s.multi_call_turns, s.max_turn_width.0),
            (3, 1, 2)
        );
        assert_eq!(s.turn_width_histogram, [2, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            (
                s.missed_batch_runs,
                s.missed_batch_calls,
                s.missed_batch_round_trips
            ),
            (1, 2, 1)
        );
        assert_eq!(s.missed_batch_upper_ms, 3.0);
        assert_eq!(s.measured_turn_duration_ms_total, 8.0);
        assert_eq!(
            (s.lane_span_ms, s.tool_busy_ms, s.idle_ms),
            (14.0, 6.0, 0.0)
        );
        assert_eq!(
            (s.calls_timed_by_execution, s.calls_timed_by_message),
            (5, 0)
        );
    }

    #[test]
    fn measured_events_turns_fill_idle_gaps() {
        // idle gap 1.5: the waves alone leave gaps 2, 3 and 2; the measured turns [3, 7]
        // and [11, 15] cover all but 9 - 7 = 2 (above 1.5): idle 2; the gap 12 - 10 = 2
        // between d and e ends their run
        let path =
            std::env::temp_dir().join(format!("wm-native-{}-idle.jsonl", std::process::id()));
        std::fs::write(&path, TURNS.join("\n")).unwrap();
        let ids = ["run".to_string()];
        let paths = [path.as_path()];
        let unit = Unit {
            paths: &paths,
            session_ids: &ids,
        };
        let s = Settings {
            idle_gap_ms: 1.5,
            ..settings()
        };
        let out = Events.read(&unit, &s, 1).unwrap();
        std::fs::remove_file(&path).unwrap();
        let s = &out.lanes[0].summary;
        assert_eq!(s.idle_ms, 2.0);
        assert_eq!((s.missed_batch_runs, s.missed_batch_upper_ms), (0, 0.0));
    }

    #[test]
    fn an_overflowing_turn_end_measures_no_turn_and_opens_no_batch() {
        // the second turn_end overflows the total: it measures no turn, and the start
        // standing in for it opens no batch: b stays in turn 2 with a
        let out = events(
            "overflow-batch",
            &[
                r#"{"type":"turn_start","timestamp":0}"#,
                r#"{"type":"turn_end","timestamp":1.7976931348623157e308}"#,
                r#"{"type":"turn_start","timestamp":0}"#,
                r#"{"type":"tool_execution_start","toolCallId":"a","toolName":"read","timestamp":1}"#,
                r#"{"type":"turn_end","timestamp":1.7976931348623157e308}"#,
                r#"{"type":"tool_execution_start","toolCallId":"b","toolName":"read","timestamp":2}"#,
                r#"{"type":"tool_execution_end","toolCallId":"a","timestamp":3}"#,
                r#"{"type":"tool_execution_end","toolCallId":"b","timestamp":4}"#,
            ],
        );
        let s = &out.lanes[0].summary;
        assert_eq!((s.batched_turns, s.max_turn_width.0), (1, 2));
        // span: the first turn [0, max] was measured (its total stayed finite), so the
        // span runs from 0 to max
        assert_eq!(s.lane_span_ms, 1.7976931348623157e308);
    }
}
