//! The `copilot` reader (`docs/formats.md`), line for line the rules of
//! `wavemetrics/readers/copilot.py`: one GitHub Copilot CLI `events.jsonl` into one
//! lane per agent (`main` for events without `agentId`), all of one session (the
//! first `session.start`'s `data.sessionId`, else the unit's fallback id: the folder
//! of an `events.jsonl`, else the file stem, `copilot_session_id`), a call's batch
//! the `assistant.message` that requested it.
//!
//! `copilot.py` decodes a line with msgspec first and with `json` only when msgspec
//! refuses it (`_lines.py` `iter_records`): the two agree on every value, but
//! msgspec takes a line `json` refuses when the refusal is an int of more than 4300
//! digits in a value it skips, or nesting a level or two past `json`'s limit. Such a
//! line is decided by the shape msgspec decodes ([`EVENT`], `lines::msgspec_line_problem`).

use super::lines::{array_items, for_each_object_line, msgspec_line_problem, Names, Shape};
use super::protocol::{with_fallback, Failure, LaneOut, ReadError, Reader, Unit, UnitOut};
use crate::account::LineAccount;
use crate::activity::Timing;
use crate::io::open_input;
use crate::json::{parse_object, parse_object_nested, Field, Val, MAX_JSON_DEPTH};
use crate::summary::{BatchKey, LaneStream, Settings};
use crate::time::iso_to_ms;
use hashbrown::HashMap;
use std::path::Path;
use std::rc::Rc;

const RECORD_KEYS: [&str; 4] = ["type", "timestamp", "agentId", "data"];
const DATA: usize = 3;
const DATA_KEYS: [&str; 6] = [
    "toolCallId",
    "toolName",
    "sessionId",
    "apiCallId",
    "messageId",
    "toolRequests",
];

/// The shape `copilot.py`'s msgspec decoder (`CopilotEvent`) decodes a line to.
const EVENT: [(&str, Shape); 4] = [
    ("type", Shape::Any),
    ("timestamp", Shape::Any),
    ("agentId", Shape::Any),
    (
        "data",
        Shape::Record {
            fields: &[
                ("toolCallId", Shape::Any),
                ("toolName", Shape::Any),
                ("sessionId", Shape::Any),
                ("apiCallId", Shape::Any),
                ("messageId", Shape::Any),
                ("toolRequests", Shape::ListOf(&[("toolCallId", Shape::Any)])),
            ],
            null: true,
        },
    ),
];

/// One line's record: `type`, `timestamp`, `agentId`, `data` and, when the (last)
/// `data` is an object, its keys.
struct Event<'a> {
    v: [Val<'a>; 4],
    data: [Val<'a>; 6],
}

impl<'a> Event<'a> {
    /// `data[key]` when `data` is an object (`member`), else absent.
    fn data(&self, key: usize) -> &Val<'a> {
        match self.v[DATA] {
            Val::Object(_) => &self.data[key],
            _ => &Val::Absent,
        }
    }

    /// `_lane_of`: `agentId`, `main` without one, `None` for an unusable one.
    fn lane(&self) -> Option<&str> {
        match &self.v[2] {
            Val::Absent => Some("main"),
            other => other.usable_id(),
        }
    }
}

/// What Python makes of one object line: its record, or the line's problem.
fn event_of(text: &str) -> Result<Event<'_>, &'static str> {
    let mut event = Event {
        v: Default::default(),
        data: Default::default(),
    };
    let parsed = parse_object_nested(
        text,
        MAX_JSON_DEPTH,
        &RECORD_KEYS,
        DATA,
        &DATA_KEYS,
        |field, raw| {
            match field {
                Field::Outer(i) => event.v[i] = Val::of(raw),
                Field::Opened => event.data = Default::default(), // the last `data` wins
                Field::Inner(i) => event.data[i] = Val::of(raw),
            }
        },
    );
    let problem = msgspec_line_problem(text, parsed.is_ok(), &EVENT);
    if let Some(reason) = problem {
        return Err(reason);
    }
    Ok(event)
}

/// One log being read (`_Reader` of `copilot.py`).
struct Log<'s> {
    settings: &'s Settings,
    eval_names: Rc<[String]>,
    batchable_names: Rc<[String]>,
    lanes: Vec<(String, LaneStream)>,
    lane_index: HashMap<String, usize>,
    session_id: Option<String>,
    /// `(lane, call id)` -> the batch key of the message that requested the call,
    /// until its start takes it.
    requested: HashMap<(Box<str>, Box<str>), BatchKey>,
    names: Names,
}

impl Log<'_> {
    fn session_start(&mut self, event: &Event<'_>, account: &mut LineAccount) {
        if self.session_id.is_some() {
            account.ignore(b"repeated_session");
            return;
        }
        let value = event.data(2);
        let Some(session_id) = value.usable_id() else {
            account.problem(if value.bad_id() {
                "invalid_id"
            } else {
                "invalid_session_header"
            });
            return;
        };
        self.session_id = Some(session_id.to_string());
        account.use_line();
    }

    /// Remember the batch key of each call an `assistant.message` requests; the line
    /// stays ignored.
    fn assistant_message(&mut self, event: &Event<'_>, account: &mut LineAccount) {
        account.ignore(b"assistant.message");
        let (Some(lane), Val::Array(requests)) = (event.lane(), event.data(5)) else {
            return;
        };
        let key = if let Some(api_call) = event.data(3).usable_id() {
            format!("api:{api_call}") // prefixes keep the two kinds of id apart
        } else if let Some(message) = event.data(4).usable_id() {
            format!("message:{message}")
        } else {
            return;
        };
        let key: BatchKey = key.as_bytes().into();
        for request in array_items(requests) {
            if !request.starts_with('{') {
                continue;
            }
            let mut call = Val::Absent;
            if parse_object(request, &["toolCallId"], |_, raw| call = Val::of(raw)).is_err() {
                continue; // unreachable: the line was valid
            }
            if let Some(call_id) = call.usable_id() {
                self.requested
                    .entry((lane.into(), call_id.into()))
                    .or_insert_with(|| key.clone());
            }
        }
    }

    fn tool_event(
        &mut self,
        event: &Event<'_>,
        start: bool,
        account: &mut LineAccount,
    ) -> Result<(), Failure> {
        let Some(lane_id) = event.lane() else {
            account.problem("invalid_id");
            return Ok(());
        };
        let call_id = event.data(0).usable_id();
        let name = event.data(1).usable_text();
        let (Some(call_id), false) = (call_id, start && name.is_none()) else {
            account.problem("invalid_tool_record");
            return Ok(());
        };
        let Some(at_ms) = event.v[1].str_bytes().and_then(iso_to_ms) else {
            account.problem("invalid_timestamp");
            return Ok(());
        };
        let index = match self.lane_index.get(lane_id) {
            Some(&index) => index,
            None => {
                let stream = LaneStream::new(
                    self.settings,
                    self.eval_names.clone(),
                    self.batchable_names.clone(),
                );
                self.lanes.push((lane_id.to_string(), stream));
                self.lane_index
                    .insert(lane_id.to_string(), self.lanes.len() - 1);
                self.lanes.len() - 1
            }
        };
        account.use_line();
        let stream = &mut self.lanes[index].1;
        if start {
            let batch = self
                .requested
                .remove(&(Box::<str>::from(lane_id), Box::<str>::from(call_id)));
            let name = self.names.get(name.unwrap_or("unknown"));
            stream.start(call_id.into(), name, at_ms, batch);
        } else {
            stream.end(call_id, at_ms)?;
        }
        Ok(())
    }
}

fn read_copilot_once(
    path: &Path,
    fallback_session_id: &str,
    settings: &Settings,
) -> Result<UnitOut, Failure> {
    let mut account = LineAccount::default();
    let mut log = Log {
        settings,
        eval_names: settings.eval_names.clone().into(),
        batchable_names: settings.batchable_names.clone().into(),
        lanes: Vec::new(),
        lane_index: HashMap::new(),
        session_id: None,
        requested: HashMap::new(),
        names: Names::default(),
    };
    for_each_object_line(
        open_input(path)?,
        &mut account,
        MAX_JSON_DEPTH,
        |text, account| {
            let event = match event_of(text) {
                Ok(event) => event,
                Err(reason) => return Ok(Some(reason)),
            };
            let Some(kind) = event.v[0].str_bytes() else {
                account.problem("missing_type");
                return Ok(None);
            };
            match kind {
                b"tool.execution_start" => log.tool_event(&event, true, account)?,
                b"tool.execution_complete" => log.tool_event(&event, false, account)?,
                b"session.start" => log.session_start(&event, account),
                b"assistant.message" => log.assistant_message(&event, account),
                other => account.ignore(other),
            }
            Ok(None)
        },
    )?;
    let session_id = log
        .session_id
        .unwrap_or_else(|| fallback_session_id.to_string());
    let lanes = log
        .lanes
        .into_iter()
        .map(|(lane_id, stream)| {
            let finished = stream.finish_lane(0.0, &[], Timing::Execution);
            LaneOut::new(0, session_id.clone(), lane_id, finished)
        })
        .collect();
    Ok(UnitOut {
        accounts: vec![account],
        lanes,
        read_again_in_batch: false,
    })
}

/// The `copilot` reader: a unit is one `events.jsonl` and the session id that stands
/// in when it has no `session.start` (`copilot_session_id`). It reads on one thread; a
/// unit of more or fewer than one file is refused (`InvalidInput`).
pub struct Copilot;

impl Reader for Copilot {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        _threads: usize,
    ) -> Result<UnitOut, ReadError> {
        let (path, fallback) = unit.one_file("a copilot")?;
        with_fallback(settings, |s| read_copilot_once(path, fallback, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::protocol::fixtures::read_lines;

    fn log(name: &str, lines: &[&str]) -> UnitOut {
        read_lines(&Copilot, &format!("copilot-{name}"), lines, "from-folder")
    }

    const T1: &str = r#""timestamp":"2025-01-01T00:00:01Z""#;
    const T3: &str = r#""timestamp":"2025-01-01T00:00:03Z""#;

    #[test]
    fn lanes_by_agent_batches_by_message_and_the_first_session_start() {
        let lines = [
            r#"{"type":"session.start","data":{"sessionId":"s1"}}"#.to_string(),
            r#"{"type":"session.start","data":{"sessionId":"s2"}}"#.to_string(),
            r#"{"type":"assistant.message","data":{"messageId":"m","apiCallId":"k","toolRequests":[{"toolCallId":"a"},7,{"toolCallId":"b"}]}}"#.to_string(),
            format!(r#"{{"type":"tool.execution_start",{T1},"data":{{"toolCallId":"a","toolName":"read"}}}}"#),
            format!(r#"{{"type":"tool.execution_start",{T1},"data":{{"toolCallId":"b","toolName":"read"}}}}"#),
            format!(r#"{{"type":"tool.execution_start",{T1},"agentId":"sub","data":{{"toolCallId":"c","toolName":"bash"}}}}"#),
            format!(r#"{{"type":"tool.execution_complete",{T3},"data":{{"toolCallId":"a"}}}}"#),
            format!(r#"{{"type":"tool.execution_complete",{T3},"data":{{"toolCallId":"b"}}}}"#),
            format!(r#"{{"type":"tool.execution_complete",{T3},"agentId":"sub","data":{{"toolCallId":"c"}}}}"#),
            format!(r#"{{"type":"tool.execution_complete",{T3},"agentId":"s\u001b","data":{{"toolCallId":"c"}}}}"#),
            r#"{"type":"tool.execution_start","timestamp":5,"data":{"toolCallId":"d","toolName":"x"}}"#.to_string(),
            r#"{"type":"tool.execution_start","data":{"toolCallId":"d"}}"#.to_string(),
            r#"{"type":7}"#.to_string(),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = log("lanes", &lines);
        let account = &out.accounts[0];
        assert_eq!((account.lines_read, account.lines_used), (13, 7));
        assert_eq!(
            account.ignored,
            vec![
                (b"repeated_session".to_vec(), 1),
                (b"assistant.message".to_vec(), 1)
            ]
        );
        assert_eq!(
            account.problems,
            vec![
                ("invalid_id", 1),
                ("invalid_timestamp", 1),
                ("invalid_tool_record", 1),
                ("missing_type", 1)
            ]
        );
        let ids: Vec<(&str, &str)> = out
            .lanes
            .iter()
            .map(|l| (l.session_id.as_str(), l.lane_id.as_str()))
            .collect();
        assert_eq!(ids, [("s1", "main"), ("s1", "sub")]);
        // main: a and b [1, 3] s, one response (api:k): one wave of two, 2 s saved
        let s = &out.lanes[0].summary;
        assert_eq!((s.paired_calls, s.non_eval_waves_multi), (2, 1));
        assert_eq!(s.modeled_wallclock_saved_ms, 2000.0);
        assert_eq!((s.batched_turns, s.max_turn_width.0), (1, 2));
        assert_eq!(s.calls_timed_by_execution, 2);
        assert_eq!(out.lanes[1].summary.calls_without_batch, 1);
    }

    #[test]
    fn without_session_start_the_fallback_names_the_session() {
        let start = format!(
            r#"{{"type":"tool.execution_start",{T1},"data":{{"toolCallId":"a","toolName":"read"}}}}"#
        );
        let out = log(
            "fallback",
            &[
                &start,
                r#"{"type":"session.start","data":{"sessionId":""}}"#,
            ],
        );
        assert_eq!(out.lanes[0].session_id, "from-folder");
        assert_eq!(
            out.accounts[0].problems,
            vec![("invalid_session_header", 1)]
        );
        assert_eq!(out.lanes[0].summary.incomplete_calls, 1);
    }

    #[test]
    fn a_line_json_refuses_is_read_when_msgspec_decodes_it() {
        let digits = "9".repeat(4301);
        let deep = |d: usize| {
            format!(
                r#"{{"type":"x.y","z":{}{}}}"#,
                "[".repeat(d - 1),
                "]".repeat(d - 1)
            )
        };
        let lines = [
            // a long int msgspec skips: read; where msgspec decodes it, or where it
            // refuses the line for another reason: json's invalid_json
            format!(r#"{{"type":"x.y","z":{digits}}}"#),
            format!(r#"{{"type":"x.y","timestamp":{digits}}}"#),
            format!(r#"{{"type":"x.y","data":5,"z":{digits}}}"#),
            format!(r#"{{"type":"x.y","data":{{"toolRequests":[null]}},"z":{digits}}}"#),
            format!(r#"{{"type":"x.y","z":"\ud800","y":{digits}}}"#),
            format!(r#"{{"type":"x.y","timestamp":1e400,"z":{digits}}}"#),
            format!(r#"{{"type":"x.y","timestamp":-{}}}"#, "9".repeat(4300)),
            // nesting: msgspec and json both read 500 levels (the one limit), not 501
            deep(500),
            deep(501),
            format!(
                r#"{{"type":"x.y","data":5,"z":{}{}}}"#,
                "[".repeat(500),
                "]".repeat(500)
            ),
            format!(
                r#"{{"type":"x.y","data":5,"z":{}{}}}"#,
                "[".repeat(499),
                "]".repeat(499)
            ),
            // json fails at what comes first: the long int, or the nesting
            format!(
                r#"{{"type":"x.y","data":5,"a":{digits},"z":{}{}}}"#,
                "[".repeat(600),
                "]".repeat(600)
            ),
            String::new(),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = log("msgspec", &lines);
        let account = &out.accounts[0];
        assert_eq!(account.ignored, vec![(b"x.y".to_vec(), 4)]);
        assert_eq!(
            account.problems,
            vec![("invalid_json", 6), ("too_deeply_nested", 2)]
        );
    }
}
