//! The `kimi` reader (`docs/formats.md`), line for line the rules of
//! `wavemetrics/readers/kimi.py`: one Kimi CLI `wire.jsonl` into its one lane, opened at
//! its first call record, of the session the unit's id names (`kimi_lane`'s session,
//! worked out in Python) and the lane its path names ([`lane_id`]: `main`, or the
//! `<agent_id>` of a `<sessionId>/subagents/<agent_id>/wire.jsonl`, worked out here
//! again and held to Python's by a test on generated paths); a call's batch is the
//! line of the `StepBegin`/`StepRetry` before it.
//!
//! As `copilot.py`, `kimi.py` decodes a line with msgspec first: a line `json` refuses
//! is decided by the shape msgspec decodes ([`RECORD`], `lines::msgspec_line_problem`).

use super::lines::{for_each_object_line, msgspec_line_problem, Names, Shape};
use super::protocol::{with_fallback, Failure, LaneOut, ReadError, Reader, Unit, UnitOut};
use crate::account::LineAccount;
use crate::activity::Timing;
use crate::io::open_input;
use crate::json::{parse_object_nests, Field, Nest, Val, MAX_JSON_DEPTH};
use crate::summary::{BatchKey, LaneStream, Settings};
use std::path::Path;

const RECORD_KEYS: [&str; 4] = ["type", "protocol_version", "timestamp", "message"];
const MESSAGE: usize = 3;
const MESSAGE_KEYS: [&str; 2] = ["type", "payload"];
const PAYLOAD: usize = 1;
const PAYLOAD_KEYS: [&str; 4] = ["type", "id", "tool_call_id", "function"];
const FUNCTION: usize = 3;

/// The shape `kimi.py`'s msgspec decoder (`KimiRecord`) decodes a line to.
const RECORD: [(&str, Shape); 4] = [
    ("type", Shape::Any),
    ("protocol_version", Shape::Any),
    ("timestamp", Shape::Any),
    (
        "message",
        Shape::Record {
            fields: &[
                ("type", Shape::Any),
                (
                    "payload",
                    Shape::Record {
                        fields: &[
                            ("type", Shape::Any),
                            ("id", Shape::Any),
                            ("tool_call_id", Shape::Any),
                            (
                                "function",
                                Shape::Record {
                                    fields: &[("name", Shape::Any)],
                                    null: true,
                                },
                            ),
                        ],
                        null: true,
                    },
                ),
            ],
            null: true,
        },
    ),
];

/// `seconds_to_ms` of `kimi.py`: a JSON number of seconds times 1000.0 (one rounded
/// product), `None` for another value or ms that are negative or not finite.
fn seconds_to_ms(value: &Val<'_>) -> Option<f64> {
    let Val::Num(seconds) = value else {
        return None; // a bool, a string, an int too large for a float, ...
    };
    let ms = seconds * 1000.0;
    (ms.is_finite() && ms >= 0.0).then_some(ms) // -0.0 too, as Python keeps it
}

/// The lane of a wire log by its place in the store (`kimi_lane`'s lane): the
/// `<agent_id>` of `.../subagents/<agent_id>/wire.jsonl` (its path's parts as
/// `PurePath` splits them: the root, `/` or `//`, one part; empty and `.` parts
/// dropped), else `main`. Bytes that are not UTF-8 become `\xNN` text (`os_text`).
pub fn lane_id(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    let bytes = path.as_os_str().as_bytes();
    let rooted = usize::from(bytes.starts_with(b"/"));
    let parts: Vec<&[u8]> = bytes
        .split(|&b| b == b'/')
        .filter(|part| !part.is_empty() && *part != b".")
        .collect();
    let count = parts.len() + rooted;
    match parts.as_slice() {
        [.., subagents, agent, name]
            if count >= 4
                && *subagents == b"subagents"
                && matches!(*name, b"wire.jsonl" | b"wire.jsonl.gz") =>
        {
            let mut text = String::with_capacity(agent.len());
            for chunk in agent.utf8_chunks() {
                text.push_str(chunk.valid());
                for byte in chunk.invalid() {
                    text.push_str(&format!("\\x{byte:02x}"));
                }
            }
            text
        }
        _ => "main".to_string(),
    }
}

/// What a line's record is read for, in one pass: its keys, its `message`'s, the
/// message's `payload`'s and the payload's `function`'s `name`.
const NAME_LEVEL: Nest<'static> = Nest {
    keys: &["name"],
    into: None,
};
const PAYLOAD_LEVEL: Nest<'static> = Nest {
    keys: &PAYLOAD_KEYS,
    into: Some((FUNCTION, &NAME_LEVEL)),
};
const MESSAGE_LEVEL: Nest<'static> = Nest {
    keys: &MESSAGE_KEYS,
    into: Some((PAYLOAD, &PAYLOAD_LEVEL)),
};
const RECORD_LEVEL: Nest<'static> = Nest {
    keys: &RECORD_KEYS,
    into: Some((MESSAGE, &MESSAGE_LEVEL)),
};

/// One line's record: its keys, its message's (when the last `message` is an
/// object), its payload's (when that message's last `payload` is one) and the
/// payload's function's `name` (when its last `function` is one): `Absent` where
/// no object holds them, as `member` of `kimi.py` gives them.
#[derive(Default)]
struct Record<'a> {
    v: [Val<'a>; 4],
    message: [Val<'a>; 2],
    payload: [Val<'a>; 4],
    name: Val<'a>,
}

fn record_of(text: &str) -> Result<Record<'_>, &'static str> {
    let mut r = Record::default();
    let parsed = parse_object_nests(text, MAX_JSON_DEPTH, &RECORD_LEVEL, |level, field, raw| {
        match (level, field) {
            (0, Field::Outer(i)) => r.v[i] = Val::of(raw),
            (1, Field::Inner(i)) => r.message[i] = Val::of(raw),
            (2, Field::Inner(i)) => r.payload[i] = Val::of(raw),
            (3, Field::Inner(_)) => r.name = Val::of(raw),
            // an object begins: the keys an earlier one of the same key held are gone
            (1, Field::Opened) => r.message = Default::default(),
            (2, Field::Opened) => r.payload = Default::default(),
            _ => r.name = Val::Absent, // (3, Opened)
        }
    });
    // the keys of an object that a later value of its key replaced are no keys of it
    // (a message's are read only when the last `message` is an object)
    if !matches!(r.message[PAYLOAD], Val::Object(_)) {
        r.payload = Default::default();
    }
    if !matches!(r.payload[FUNCTION], Val::Object(_)) {
        r.name = Val::Absent;
    }
    match msgspec_line_problem(text, parsed.is_ok(), &RECORD) {
        Some(reason) => Err(reason),
        None => Ok(r),
    }
}

/// One wire log being read (`_Reader` of `kimi.py`).
struct Log<'s> {
    settings: &'s Settings,
    path: &'s Path,
    lane: Option<LaneStream>,
    header: bool,
    /// The batch key of the calls read now: the line of the last step opener.
    step: Option<BatchKey>,
    names: Names,
}

impl Log<'_> {
    fn lane(&mut self) -> &mut LaneStream {
        let settings = self.settings;
        self.lane.get_or_insert_with(|| {
            LaneStream::new(
                settings,
                settings.eval_names.clone().into(),
                settings.batchable_names.clone().into(),
            )
        })
    }

    fn read_tool(
        &mut self,
        record: &Record<'_>,
        call: bool,
        account: &mut LineAccount,
    ) -> Result<(), Failure> {
        let (payload, name) = (&record.payload, &record.name);
        let (call_id, name) = if call {
            let call_id = payload[1].usable_id();
            let name = name.usable_text();
            let valid = payload[0].str_bytes() == Some(b"function") && call_id.is_some();
            match (valid, call_id, name) {
                (true, Some(call_id), Some(name)) => (call_id, Some(name)),
                _ => {
                    account.problem("invalid_tool_record");
                    return Ok(());
                }
            }
        } else {
            let Some(call_id) = payload[2].usable_id() else {
                account.problem("invalid_tool_record");
                return Ok(());
            };
            (call_id, None)
        };
        let Some(at_ms) = seconds_to_ms(&record.v[2]) else {
            account.problem("invalid_timestamp");
            return Ok(());
        };
        account.use_line();
        match name {
            Some(name) => {
                let name = self.names.get(name);
                let step = self.step.clone();
                self.lane().start(call_id.into(), name, at_ms, step);
            }
            None => self.lane().end(call_id, at_ms)?,
        }
        Ok(())
    }

    fn read_record(
        &mut self,
        record: &Record<'_>,
        account: &mut LineAccount,
    ) -> Result<(), Failure> {
        match &record.v[MESSAGE] {
            Val::Absent | Val::Null => {
                let Some(kind) = record.v[0].str_bytes() else {
                    account.problem("missing_type");
                    return Ok(());
                };
                if kind != b"metadata" {
                    account.ignore(kind);
                } else if self.header {
                    account.ignore(b"repeated_metadata");
                } else if record.v[1].usable_text().is_none() {
                    account.problem("invalid_session_header");
                } else {
                    self.header = true;
                    account.use_line();
                }
            }
            Val::Object(_) => {
                let Some(kind) = record.message[0].str_bytes() else {
                    account.problem("missing_type");
                    return Ok(());
                };
                match kind {
                    b"ToolCall" => self.read_tool(record, true, account)?,
                    b"ToolResult" => self.read_tool(record, false, account)?,
                    _ => {
                        if matches!(kind, b"StepBegin" | b"StepRetry") {
                            let line = format!("line {}", account.lines_read);
                            self.step = Some(line.as_bytes().into());
                        }
                        account.ignore(kind); // SubagentEvent too: the sub-agent's log has its calls
                    }
                }
            }
            _ => account.problem("invalid_payload"),
        }
        Ok(())
    }
}

fn read_kimi_once(path: &Path, session_id: &str, settings: &Settings) -> Result<UnitOut, Failure> {
    let mut account = LineAccount::default();
    let mut log = Log {
        settings,
        path,
        lane: None,
        header: false,
        step: None,
        names: Names::default(),
    };
    for_each_object_line(
        open_input(path)?,
        &mut account,
        MAX_JSON_DEPTH,
        |text, account| match record_of(text) {
            Ok(record) => log.read_record(&record, account).map(|()| None),
            Err(reason) => Ok(Some(reason)),
        },
    )?;
    let lanes = match log.lane {
        None => Vec::new(),
        Some(stream) => vec![LaneOut::new(
            0,
            session_id.to_string(),
            lane_id(log.path),
            stream.finish_lane(0.0, &[], Timing::Message),
        )],
    };
    Ok(UnitOut {
        accounts: vec![account],
        lanes,
        read_again_in_batch: false,
    })
}

/// The `kimi` reader: a unit is one `wire.jsonl` and its session id (`kimi_lane`'s,
/// from its place in the store); its lane id is worked out from the path here. It
/// reads on one thread; a unit of more or fewer than one file is refused
/// (`InvalidInput`).
pub struct Kimi;

impl Reader for Kimi {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        _threads: usize,
    ) -> Result<UnitOut, ReadError> {
        let (path, session_id) = unit.one_file("a kimi")?;
        with_fallback(settings, |s| read_kimi_once(path, session_id, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::protocol::fixtures::{read_lines, read_unit};

    #[test]
    fn a_sub_agent_s_log_is_its_lane_as_pure_path_parts_give_it() {
        use std::os::unix::ffi::OsStrExt as _;
        let lane = |p: &[u8]| lane_id(Path::new(std::ffi::OsStr::from_bytes(p)));
        assert_eq!(lane(b"/h/.kimi/sessions/9a/s-1/wire.jsonl"), "main");
        assert_eq!(
            lane(b"/h/.kimi/sessions/9a/s-1/subagents/a7/wire.jsonl"),
            "a7"
        );
        assert_eq!(lane(b"/subagents/a7/wire.jsonl"), "a7");
        assert_eq!(lane(b"subagents/a7/wire.jsonl"), "main");
        assert_eq!(lane(b"x/subagents/a7/wire.jsonl"), "a7");
        assert_eq!(lane(b"x//subagents/./a\xff//wire.jsonl"), "a\\xff");
        assert_eq!(lane(b"x/subagents/a7/run.jsonl"), "main");
        assert_eq!(lane(b"x/subagents/../wire.jsonl"), "..");
    }

    #[test]
    fn seconds_become_ms_by_one_product() {
        assert_eq!(
            seconds_to_ms(&Val::Num(1796292001.25)),
            Some(1796292001250.0)
        );
        assert!(seconds_to_ms(&Val::Num(-0.0)).unwrap().is_sign_negative());
        assert_eq!(seconds_to_ms(&Val::Num(-1.0)), None);
        assert_eq!(seconds_to_ms(&Val::Num(1e306)), None);
        assert_eq!(seconds_to_ms(&Val::BigInt), None);
        assert_eq!(seconds_to_ms(&Val::Bool(true)), None);
        assert_eq!(seconds_to_ms(&Val::Text("1")), None);
    }

    #[test]
    fn calls_of_a_step_are_one_batch_and_records_are_accounted() {
        let lines = [
            r#"{"type":"metadata","protocol_version":"1.4"}"#,
            r#"{"type":"metadata","protocol_version":"1.4"}"#,
            r#"{"timestamp":1.0,"message":{"type":"StepBegin","payload":{"n":1}}}"#,
            r#"{"timestamp":1.0,"message":{"type":"ToolCall","payload":{"type":"function","id":"a","function":{"name":"Shell"}}}}"#,
            r#"{"timestamp":1.0,"message":{"type":"ToolCall","payload":{"type":"function","id":"b","function":{"name":"Shell"}}}}"#,
            r#"{"timestamp":3.0,"message":{"type":"ToolResult","payload":{"tool_call_id":"a"}}}"#,
            r#"{"timestamp":2.5,"message":{"type":"ToolResult","payload":{"tool_call_id":"b"}}}"#,
            r#"{"timestamp":2.0,"message":{"type":"ToolCall","payload":{"type":"x","id":"c","function":{"name":"Shell"}}}}"#,
            r#"{"timestamp":"2","message":{"type":"ToolResult","payload":{"tool_call_id":"c"}}}"#,
            r#"{"timestamp":2,"message":[]}"#,
            r#"{"timestamp":2,"message":{"type":1}}"#,
            r#"{"timestamp":2,"message":null}"#,
        ];
        let out = read_lines(&Kimi, "kimi", &lines, "s-1");
        let account = &out.accounts[0];
        assert_eq!((account.lines_read, account.lines_used), (12, 5));
        assert_eq!(
            account.ignored,
            vec![
                (b"repeated_metadata".to_vec(), 1),
                (b"StepBegin".to_vec(), 1)
            ]
        );
        assert_eq!(
            account.problems,
            vec![
                ("invalid_tool_record", 1),
                ("invalid_timestamp", 1),
                ("invalid_payload", 1),
                ("missing_type", 2)
            ]
        );
        let lane = &out.lanes[0];
        assert_eq!(
            (lane.session_id.as_str(), lane.lane_id.as_str()),
            ("s-1", "main")
        );
        // a [1, 3] s and b [1, 2.5] s of one step: 1.5 s saved, one turn of two
        assert_eq!(lane.summary.modeled_wallclock_saved_ms, 1500.0);
        assert_eq!(
            (lane.summary.batched_turns, lane.summary.max_turn_width.0),
            (1, 2)
        );
        assert_eq!(lane.summary.calls_timed_by_message, 2);
    }

    #[test]
    fn lines_past_the_limit_are_too_deeply_nested_for_both_decoders() {
        // msgspec and json both read 500 levels (the one limit), not 501
        let deep = |head: &str, d: usize| {
            format!(
                r#"{{{head}"z":{}{}}}"#,
                "[".repeat(d - 1),
                "]".repeat(d - 1)
            )
        };
        let digits = "9".repeat(4301);
        let lines = [
            deep(r#""type":"x","#, 500),
            deep(r#""type":"x","#, 501),
            deep(r#""type":"x","message":5,"#, 500),
            deep(r#""type":"x","message":5,"#, 501),
            format!(r#"{{"message":{{"type":"X","payload":{{"q":{digits}}}}}}}"#),
            format!(r#"{{"message":{{"type":"X","payload":{{"id":{digits}}}}}}}"#),
            String::new(),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let path =
            std::env::temp_dir().join(format!("wm-native-{}-kimi-deep.jsonl", std::process::id()));
        std::fs::write(&path, lines.join("\n")).unwrap();
        let out = read_unit(&Kimi, &[&path], &["s"]);
        std::fs::remove_file(&path).unwrap();
        let account = &out.accounts[0];
        assert_eq!(
            account.ignored,
            vec![(b"x".to_vec(), 1), (b"X".to_vec(), 1)]
        );
        assert_eq!(
            account.problems,
            vec![
                ("too_deeply_nested", 2),
                ("invalid_payload", 1),
                ("invalid_json", 1)
            ]
        );
    }
}
