//! The `mcode` reader (`docs/formats.md`), line for line the rules of
//! `wavemetrics/readers/mcode.py`: MiniMax Code's `mcode exec --output-format
//! stream-json` stream, one or more runs per file (a run begins at `sequence` 1), one
//! lane `(sessionId, "main")` per session in order of appearance, shared by the
//! session's runs. A tool call starts at the first `item.started`/`item.updated` whose
//! `toolCall.status` is 1 (or its string spellings) and ends at the first with 2 or 3;
//! `item.completed` is never a start or an end: a burst of them (with only
//! `agent_message`/`reasoning` items between) is one batch, given to a start when its
//! call's first `item.completed` is read, so a lane's observations are kept and fed at
//! the end, as the Python lane's `batch_only` hands them over.
//!
//! The run-time notes `run_status.<status>` are named notes of the account
//! (`LineAccount::note_named`). As `kimi.py`, `mcode.py` decodes a line with msgspec
//! first: a line `json` refuses is decided by the shape msgspec decodes ([`RECORD`],
//! `lines::msgspec_line_problem`). A file whose `sequence_gap` total would pass a
//! `u64` (only a hostile one: thousands of runs each starting near 2**53) is declined
//! (`Unsupported`), for the Python reader's unbounded ints.

use super::lines::{for_each_object_line, msgspec_line_problem, Names, Shape};
use super::protocol::{with_fallback, Failure, LaneOut, ReadError, Reader, Unit, UnitOut};
use crate::account::LineAccount;
use crate::activity::Timing;
use crate::io::open_input;
use crate::json::{parse_object, parse_object_nests, Field, Nest, Val, MAX_JSON_DEPTH};
use crate::summary::{BatchKey, LaneStream, Settings};
use hashbrown::HashMap;
use std::io;
use std::path::Path;
use std::rc::Rc;

const RECORD_KEYS: [&str; 9] = [
    "schemaVersion",
    "sequence",
    "timestampMs",
    "runId",
    "sessionId",
    "turnId",
    "type",
    "item",
    "result",
];
const VERSION: usize = 0;
const SEQUENCE: usize = 1;
const TIME: usize = 2;
const RUN_ID: usize = 3;
const KIND: usize = 6;
const ITEM: usize = 7;
const RESULT: usize = 8;
const ITEM_KEYS: [&str; 3] = ["id", "type", "toolCall"];
const TOOL_CALL: usize = 2;
const CALL_KEYS: [&str; 3] = ["id", "name", "status"];

/// The shape `mcode.py`'s msgspec decoder (`McodeRecord`) decodes a line to: `item`,
/// its `toolCall` and `result` are objects when present (never `null`).
const RECORD: [(&str, Shape); 9] = [
    ("schemaVersion", Shape::Any),
    ("sequence", Shape::Any),
    ("timestampMs", Shape::Any),
    ("runId", Shape::Any),
    ("sessionId", Shape::Any),
    ("turnId", Shape::Any),
    ("type", Shape::Any),
    (
        "item",
        Shape::Record {
            fields: &[
                ("id", Shape::Any),
                ("type", Shape::Any),
                (
                    "toolCall",
                    Shape::Record {
                        fields: &[
                            ("id", Shape::Any),
                            ("name", Shape::Any),
                            ("status", Shape::Any),
                        ],
                        null: false,
                    },
                ),
            ],
            null: false,
        },
    ),
    (
        "result",
        Shape::Record {
            fields: &[("status", Shape::Any)],
            null: false,
        },
    ),
];

/// `MAX_SEQUENCE` of `mcode.py`: 2**53 - 1, the largest `sequence` JavaScript writes.
const MAX_SEQUENCE: u64 = (1 << 53) - 1;
/// `MAX_RUN_STATUSES` of `mcode.py`: distinct `run_status.*` notes kept.
const MAX_RUN_STATUSES: usize = 8;
const RUN_STATUS: &str = "run_status.";

/// Whether JSON number text is an int literal (Python's `json` gives an `int`).
fn int_literal(text: &str) -> bool {
    !text.is_empty() && !text.contains(['.', 'e', 'E'])
}

/// `_integer(v) == 1`: the int literal `1` (JSON has no other spelling of it).
fn is_one(text: Option<&str>) -> bool {
    text == Some("1")
}

/// `sequence` when it is an int in `1..=MAX_SEQUENCE`.
fn sequence_of(text: Option<&str>) -> Option<u64> {
    let text = text?;
    if !int_literal(text) || text.starts_with('-') || text.len() > 16 {
        return None;
    }
    text.parse::<u64>()
        .ok()
        .filter(|&n| (1..=MAX_SEQUENCE).contains(&n))
}

/// `_ms` of `mcode.py`: an int `>= 0` as a float (`float(int)`, correctly rounded),
/// `None` for any other value or an int too large for a float.
fn ms_of(value: &Val<'_>, text: Option<&str>) -> Option<f64> {
    let text = text?;
    if !int_literal(text) || (text.starts_with('-') && text != "-0") {
        return None;
    }
    value.number().filter(|ms| ms.is_finite())
}

/// What a `toolCall.status` is (`_phase` of `mcode.py`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Start,
    End,
    Pending,
}

fn phase_of(value: &Val<'_>, text: Option<&str>) -> Option<Phase> {
    if let Some(status) = value.str_bytes() {
        return match status {
            b"started" | b"running" => Some(Phase::Start),
            b"completed" | b"finished" | b"failed" | b"error" => Some(Phase::End),
            _ => None,
        };
    }
    match text? {
        "1" => Some(Phase::Start),
        "2" | "3" => Some(Phase::End),
        "4" | "5" => Some(Phase::Pending),
        _ => None,
    }
}

/// `_STATUS` of `mcode.py`: a short lower-case identifier.
fn status_named(status: &[u8]) -> bool {
    matches!(status.first(), Some(b'a'..=b'z'))
        && status.len() <= 32
        && status
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// What a line's record is read for, in one pass: its keys, its `item`'s and the item's
/// `toolCall`'s (`result` is read from its text, on the rare `exec.completed`).
const CALL_LEVEL: Nest<'static> = Nest {
    keys: &CALL_KEYS,
    into: None,
};
const ITEM_LEVEL: Nest<'static> = Nest {
    keys: &ITEM_KEYS,
    into: Some((TOOL_CALL, &CALL_LEVEL)),
};
const RECORD_LEVEL: Nest<'static> = Nest {
    keys: &RECORD_KEYS,
    into: Some((ITEM, &ITEM_LEVEL)),
};

/// One line's record: each key's value and JSON text, its item's (when the last `item`
/// is an object) and the item's tool call's (when its last `toolCall` is one).
#[derive(Default)]
struct Record<'a> {
    v: [Val<'a>; 9],
    text: [Option<&'a str>; 9],
    item: [Val<'a>; 3],
    call: [Val<'a>; 3],
    status: Option<&'a str>,
}

fn record_of(text: &str) -> Result<Record<'_>, &'static str> {
    let mut r = Record::default();
    let parsed = parse_object_nests(text, MAX_JSON_DEPTH, &RECORD_LEVEL, |level, field, raw| {
        match (level, field) {
            (0, Field::Outer(i)) => {
                r.v[i] = Val::of(raw);
                r.text[i] = Some(raw.get());
            }
            (1, Field::Inner(i)) => r.item[i] = Val::of(raw),
            (2, Field::Inner(i)) => {
                r.call[i] = Val::of(raw);
                if i == 2 {
                    r.status = Some(raw.get());
                }
            }
            // an object begins: the keys an earlier one of the same key held are gone
            (1, Field::Opened) => r.item = Default::default(),
            _ => {
                // (2, Opened)
                r.call = Default::default();
                r.status = None;
            }
        }
    });
    // the keys of an object that a later value of its key replaced are no keys of it
    if !matches!(r.v[ITEM], Val::Object(_)) {
        r.item = Default::default();
    }
    if !matches!(r.item[TOOL_CALL], Val::Object(_)) {
        r.call = Default::default();
        r.status = None;
    }
    match msgspec_line_problem(text, parsed.is_ok(), &RECORD) {
        Some(reason) => Err(reason),
        None => Ok(r),
    }
}

/// A call of a session (`_Call`): whether it started (`index`: its start among the
/// lane's kept observations) and ended, and whether its start has its batch.
#[derive(Default)]
struct Call {
    started: bool,
    ended: bool,
    index: usize,
    batched: bool,
}

/// A kept observation: a start (with its tool name and batch) or an end.
struct Observation {
    call_id: Rc<str>,
    at_ms: f64,
    start: Option<(Rc<str>, Option<BatchKey>)>,
}

/// A session's lane: its observations, turn total and calls.
struct Lane {
    session_id: String,
    observations: Vec<Observation>,
    turn_total_ms: f64,
    calls: HashMap<Rc<str>, Call>,
}

/// One `mcode exec` stream (`_Run`): its ids, lane, last sequence, terminal, open turn.
struct Run {
    ids: [Box<str>; 3],
    lane: usize,
    sequence: u64,
    terminal: bool,
    turn_start_ms: Option<f64>,
}

/// The file being read (`_Stream` of `mcode.py`).
#[derive(Default)]
struct Stream {
    lanes: Vec<Lane>,
    by_session: HashMap<Box<str>, usize>,
    run: Option<Run>,
    bursts: u64,
    in_burst: bool,
    /// `notes.sequence_gap` so far (noted at the end; an overflow declines the file).
    gaps: u64,
    names: Names,
}

fn declined() -> Failure {
    Failure::Read(ReadError::Io(io::Error::new(
        io::ErrorKind::Unsupported,
        "sequence_gap past u64",
    )))
}

impl Stream {
    fn lane(&mut self, session_id: &str) -> usize {
        if let Some(&index) = self.by_session.get(session_id) {
            return index;
        }
        let index = self.lanes.len();
        self.lanes.push(Lane {
            session_id: session_id.to_string(),
            observations: Vec::new(),
            turn_total_ms: 0.0,
            calls: HashMap::new(),
        });
        self.by_session.insert(session_id.into(), index);
        index
    }

    fn gap(&mut self, missing: u64) -> Result<(), Failure> {
        self.gaps = self.gaps.checked_add(missing).ok_or_else(declined)?;
        Ok(())
    }

    fn end_run(&mut self, account: &mut LineAccount) {
        if let Some(run) = self.run.take() {
            if !run.terminal {
                account.note("truncated", 1);
            }
        }
    }

    /// `_in_run`: place the line in its run; whether it may be used.
    fn in_run(
        &mut self,
        sequence: u64,
        ids: [&str; 3],
        terminal: bool,
        account: &mut LineAccount,
    ) -> Result<bool, Failure> {
        let new_run = sequence == 1 || self.run.is_none();
        if new_run {
            self.end_run(account);
            if sequence > 1 {
                self.gap(sequence - 1)?; // the run's first lines are missing
            }
            let lane = self.lane(ids[1]);
            self.run = Some(Run {
                ids: ids.map(Box::from),
                lane,
                sequence,
                terminal: false,
                turn_start_ms: None,
            });
            return Ok(true);
        }
        let Some(run) = self.run.as_mut() else {
            return Ok(false); // unreachable: a run was begun above
        };
        if run.ids.iter().zip(ids).any(|(own, id)| &**own != id) {
            account.problem("foreign_run_line");
            return Ok(false);
        }
        if sequence <= run.sequence {
            account.problem("duplicate_sequence");
            return Ok(false);
        }
        let missing = sequence - run.sequence - 1;
        run.sequence = sequence;
        let ended = run.terminal;
        if missing > 0 {
            self.gap(missing)?;
        }
        if ended {
            account.problem(if terminal {
                "duplicate_terminal"
            } else {
                "after_terminal"
            });
            return Ok(false);
        }
        Ok(true)
    }

    /// `join_burst`: a tool call's `item.completed` joins the burst (or begins one), and
    /// the call's start, if it has one and no batch yet, gets the burst's key.
    fn join_burst(&mut self, lane: usize, call_id: &str) {
        if !self.in_burst {
            self.in_burst = true;
            self.bursts += 1;
        }
        let lane = &mut self.lanes[lane];
        let Some(state) = lane.calls.get_mut(call_id) else {
            return;
        };
        if !state.started || state.batched {
            return;
        }
        state.batched = true;
        let key: BatchKey = self.bursts.to_string().as_bytes().into();
        if let Some((_, batch)) = lane
            .observations
            .get_mut(state.index)
            .and_then(|o| o.start.as_mut())
        {
            *batch = Some(key);
        }
    }

    fn item(
        &mut self,
        record: &Record<'_>,
        completed: bool,
        at_ms: f64,
        account: &mut LineAccount,
    ) {
        let kind: &[u8] = if completed {
            b"item.completed"
        } else {
            record.v[KIND].str_bytes().unwrap_or_default()
        };
        if !matches!(record.v[ITEM], Val::Object(_)) {
            account.problem("invalid_tool_record");
            return;
        }
        let item_type = &record.item[1];
        if item_type.str_bytes() != Some(b"tool_call") {
            let text = item_type.str_bytes();
            if completed && !matches!(text, Some(b"agent_message" | b"reasoning")) {
                self.in_burst = false; // another item's completion ends the burst
            }
            match text {
                Some(text) => {
                    let mut key = Vec::with_capacity(5 + text.len());
                    key.extend_from_slice(b"item.");
                    key.extend_from_slice(text);
                    account.ignore(&key);
                }
                None => account.ignore(kind),
            }
            return;
        }
        let raw_id = &record.item[0];
        if raw_id.bad_id() {
            account.problem("invalid_id");
            return;
        }
        let (Some(call_id), true) = (
            raw_id.usable_id(),
            matches!(record.item[TOOL_CALL], Val::Object(_)),
        ) else {
            account.problem("invalid_tool_record");
            return;
        };
        let own_id = &record.call[0];
        let own_ok = match own_id {
            Val::Absent | Val::Null => true,
            other => other.str_bytes() == Some(call_id.as_bytes()),
        };
        let name = record.call[1].usable_text();
        let phase = phase_of(&record.call[2], record.status);
        let (true, Some(name), Some(phase)) = (own_ok, name, phase) else {
            account.problem("invalid_tool_record");
            return;
        };
        let Some(lane) = self.run.as_ref().map(|run| run.lane) else {
            return; // unreachable: a line is read in its run
        };
        if completed {
            let known = self.lanes[lane].calls.contains_key(call_id);
            self.join_burst(lane, call_id);
            account.ignore(if known {
                b"item.completed"
            } else {
                b"replayed_items"
            });
            return;
        }
        let lane = &mut self.lanes[lane];
        let index = lane.observations.len();
        let state = lane.calls.entry_ref(call_id).or_default();
        if phase == Phase::Start && !state.started && !state.ended {
            state.started = true;
            state.index = index;
            let name = self.names.get(name);
            lane.observations.push(Observation {
                call_id: Rc::from(call_id),
                at_ms,
                start: Some((name, None)),
            });
            account.use_line();
        } else if phase == Phase::End && !state.ended {
            state.ended = true;
            if state.started {
                lane.observations.push(Observation {
                    call_id: Rc::from(call_id),
                    at_ms,
                    start: None,
                });
                account.use_line();
            } else {
                account.ignore(b"end_without_start");
            }
        } else {
            account.ignore(kind); // arguments streaming, or a status already seen
        }
    }

    /// `_turn`: `turn.started` remembered, its end adds the length.
    fn turn(&mut self, started: bool, at_ms: f64, account: &mut LineAccount) {
        let Some(run) = self.run.as_mut() else {
            return; // unreachable: a line is read in its run
        };
        if started {
            run.turn_start_ms = Some(at_ms);
            account.use_line();
            return;
        }
        if let Some(start) = run.turn_start_ms.take() {
            if at_ms > start {
                let lane = &mut self.lanes[run.lane];
                let total = lane.turn_total_ms + (at_ms - start);
                if total == f64::INFINITY {
                    account.problem("turn_total_overflow");
                    return;
                }
                lane.turn_total_ms = total;
            }
        }
        account.use_line();
    }

    /// `_run_status`: the run's `result.status` as a note.
    fn run_status(result: &Val<'_>, account: &mut LineAccount) {
        let mut status = Val::Absent;
        if let Val::Object(text) = result {
            // validated with the line: the last `status` wins
            let _ = parse_object(text, &["status"], |_, raw| status = Val::of(raw));
        }
        let named = status.str_bytes().filter(|s| status_named(s));
        let mut key = String::from(RUN_STATUS);
        match named {
            Some(text) => key.push_str(std::str::from_utf8(text).unwrap_or("other")),
            None => key.push_str("other"),
        }
        let known = account
            .named_notes
            .iter()
            .filter(|(k, _)| k.starts_with(RUN_STATUS))
            .count();
        let held = account.named_notes.iter().any(|(k, _)| **k == *key);
        if named.is_some() && !held && known >= MAX_RUN_STATUSES {
            key.truncate(RUN_STATUS.len());
            key.push_str("other");
        }
        account.note_named(&key, 1);
    }

    /// `_line` of `mcode.py`.
    fn line(&mut self, record: &Record<'_>, account: &mut LineAccount) -> Result<(), Failure> {
        if !is_one(record.text[VERSION]) {
            account.problem("unknown_schema_version");
            return Ok(());
        }
        let raw_ids = &record.v[RUN_ID..RUN_ID + 3];
        if raw_ids.iter().any(Val::bad_id) {
            account.problem("invalid_id");
            return Ok(());
        }
        let sequence = sequence_of(record.text[SEQUENCE]);
        let (Some(sequence), Some(run_id), Some(session_id), Some(turn_id)) = (
            sequence,
            raw_ids[0].usable_id(),
            raw_ids[1].usable_id(),
            raw_ids[2].usable_id(),
        ) else {
            account.problem("invalid_envelope");
            return Ok(());
        };
        let kind = record.v[KIND].str_bytes();
        let terminal = kind == Some(b"exec.completed");
        if !self.in_run(sequence, [run_id, session_id, turn_id], terminal, account)? {
            return Ok(());
        }
        let Some(kind) = kind else {
            account.problem("missing_type");
            return Ok(());
        };
        let Some(at_ms) = ms_of(&record.v[TIME], record.text[TIME]) else {
            account.problem("invalid_timestamp");
            return Ok(());
        };
        let completed = kind == b"item.completed";
        if !completed {
            self.in_burst = false; // any other line of the run ends a burst
        }
        match kind {
            b"item.started" | b"item.updated" | b"item.completed" => {
                self.item(record, completed, at_ms, account)
            }
            b"turn.started" => self.turn(true, at_ms, account),
            b"turn.completed" | b"turn.failed" => self.turn(false, at_ms, account),
            b"exec.completed" => {
                if let Some(run) = self.run.as_mut() {
                    run.terminal = true;
                }
                Self::run_status(&record.v[RESULT], account);
                account.use_line();
            }
            _ => account.ignore(kind),
        }
        Ok(())
    }
}

fn read_mcode_once(path: &Path, settings: &Settings) -> Result<UnitOut, Failure> {
    let mut account = LineAccount::default();
    let mut stream = Stream::default();
    for_each_object_line(
        open_input(path)?,
        &mut account,
        MAX_JSON_DEPTH,
        |text, account| match record_of(text) {
            Ok(record) => stream.line(&record, account).map(|()| None),
            Err(reason) => Ok(Some(reason)),
        },
    )?;
    stream.end_run(&mut account);
    if stream.gaps > 0 {
        account.note("sequence_gap", stream.gaps);
    }
    let eval_names: Rc<[String]> = settings.eval_names.clone().into();
    let batchable: Rc<[String]> = settings.batchable_names.clone().into();
    let mut lanes = Vec::with_capacity(stream.lanes.len());
    for lane in stream.lanes {
        let mut lane_stream = LaneStream::new(settings, eval_names.clone(), batchable.clone());
        for obs in lane.observations {
            match obs.start {
                Some((name, batch)) => lane_stream.start(obs.call_id, name, obs.at_ms, batch),
                None => lane_stream.end(&obs.call_id, obs.at_ms)?,
            }
        }
        let finished = lane_stream.finish_lane(lane.turn_total_ms, &[], Timing::Execution);
        lanes.push(LaneOut::new(
            0,
            lane.session_id,
            "main".to_string(),
            finished,
        ));
    }
    Ok(UnitOut {
        accounts: vec![account],
        lanes,
        read_again_in_batch: false,
    })
}

/// The `mcode` reader: a unit is one stream file (its session id unused: the lines
/// name their sessions). It reads on one thread; a unit of more or fewer than one file
/// is refused (`InvalidInput`).
pub struct Mcode;

impl Reader for Mcode {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        _threads: usize,
    ) -> Result<UnitOut, ReadError> {
        let (path, _) = unit.one_file("an mcode")?;
        with_fallback(settings, |s| read_mcode_once(path, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::protocol::fixtures::read_lines;

    /// A line of run `exec_1` of session `mvs_1` (`rest`: its other keys).
    fn line(sequence: u64, kind: &str, rest: &str) -> String {
        format!(
            r#"{{"schemaVersion":1,"sequence":{sequence},"timestampMs":1000,"runId":"exec_1","sessionId":"mvs_1","turnId":"t1","type":"{kind}"{rest}}}"#
        )
    }

    fn read(name: &str, lines: &[String]) -> UnitOut {
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        read_lines(&Mcode, name, &lines, "unused")
    }

    #[test]
    fn run_statuses_are_named_notes_up_to_eight_then_other() {
        // ten runs of one line each: eight named statuses, a ninth and a non-identifier
        // are `other`; a kept name counts on past the cap
        let statuses = [
            "a", "b", "c", "d", "e", "f", "g", "h", "i", "a", "Bad", "other",
        ];
        let lines: Vec<String> = statuses
            .iter()
            .map(|s| {
                line(
                    1,
                    "exec.completed",
                    &format!(r#","result":{{"status":"{s}"}}"#),
                )
            })
            .collect();
        let out = read("statuses", &lines);
        let account = &out.accounts[0];
        assert_eq!(account.lines_used, 12);
        // no fixed note: every run ended, none skipped a number
        assert!(account.notes.is_empty());
        let mut named: Vec<(&str, u64)> = account
            .named_notes
            .iter()
            .map(|(k, n)| (&**k, *n))
            .collect();
        named.sort();
        assert_eq!(
            named,
            vec![
                ("run_status.a", 2),
                ("run_status.b", 1),
                ("run_status.c", 1),
                ("run_status.d", 1),
                ("run_status.e", 1),
                ("run_status.f", 1),
                ("run_status.g", 1),
                ("run_status.h", 1),
                ("run_status.other", 3),
            ]
        );
        // the report's notes: the fixed ones then the named ones, in order of first count
        assert_eq!(account.all_notes()[0], ("run_status.a", 2));
        assert_eq!(account.all_notes().len(), 9);
    }

    #[test]
    fn fixed_and_named_notes_of_one_stream_are_reported_together() {
        let lines = [
            line(3, "exec.completed", r#","result":{"status":"success"}"#),
            line(1, "turn.started", ""),
            line(4, "turn.completed", ""),
        ];
        let out = read("notes", &lines);
        let account = &out.accounts[0];
        // two lines missing before the first run's line, two inside the second run
        assert_eq!(
            account.all_notes(),
            vec![
                ("truncated", 1),
                ("sequence_gap", 4),
                ("run_status.success", 1)
            ]
        );
    }

    #[test]
    fn status_names_and_numbers_are_read_as_the_rules_spell_them() {
        assert!(status_named(b"success"));
        assert!(status_named(&[b'a'; 32]));
        assert!(!status_named(&[b'a'; 33]));
        assert!(!status_named(b"9x"));
        assert!(!status_named(b"Ok"));
        assert!(!status_named(b""));
        assert_eq!(sequence_of(Some("9007199254740991")), Some(MAX_SEQUENCE));
        assert_eq!(sequence_of(Some("9007199254740992")), None);
        assert_eq!(sequence_of(Some("0")), None);
        assert_eq!(sequence_of(Some("-1")), None);
        assert_eq!(sequence_of(Some("1.0")), None);
        assert_eq!(sequence_of(Some("\"1\"")), None);
        assert_eq!(ms_of(&Val::Num(0.0), Some("-0")), Some(0.0));
        assert_eq!(ms_of(&Val::Num(-1.0), Some("-1")), None);
        assert_eq!(ms_of(&Val::Num(1000.0), Some("1e3")), None);
        assert_eq!(ms_of(&Val::BigInt, Some("1")), None);
        let text = |s: &'static str| Val::Text(s);
        assert!(phase_of(&text("running"), None) == Some(Phase::Start));
        assert!(phase_of(&text("error"), None) == Some(Phase::End));
        assert!(phase_of(&text("pending"), None).is_none());
        assert!(phase_of(&Val::Num(4.0), Some("4")) == Some(Phase::Pending));
        assert!(phase_of(&Val::Num(1.0), Some("1.0")).is_none());
        assert!(phase_of(&Val::Bool(true), Some("true")).is_none());
    }
}
