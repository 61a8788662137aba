//! The `openclaw` reader (`docs/formats.md`), rule for rule as
//! `wavemetrics/readers/openclaw.py`: OpenClaw's SQLite store, table
//! `transcript_events(session_id, seq, event_json)`, whose every row's `event_json` is
//! one pi record. The rows are read by the one query `openclaw.py` runs (sorted by
//! `session_id`, `seq`, `rowid`; a row longer than the line limit is not fetched),
//! each a line of its own; the rows of one `session_id` are one lane, `main`, named by
//! it and read by the `pi` rules ([`PiLane`]) as pi's format version 3 until a header
//! says otherwise.
//!
//! The database is opened read-only, with no wait for a lock, in one read
//! transaction, as `_sqlite.py` opens it. A store SQLite cannot read (locked,
//! corrupt, not a database, no such table) is an I/O error: the unit goes back to the
//! Python reader, which names the reason on that input as it always does.

use super::lines::read_row_within;
use super::pi::PiLane;
use super::protocol::{with_fallback, Failure, LaneOut, ReadError, Reader, Unit, UnitOut};
use crate::account::LineAccount;
use crate::json::{has_control, MAX_JSON_DEPTH};
use crate::summary::Settings;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use std::io;
use std::path::Path;
use std::time::Duration;

/// `_ROWS` of `openclaw.py`: the rows in the store's own order; a row longer than the
/// limit (`?1`) is not fetched (NULL text, its length kept), and every text is taken
/// as the bytes stored, whatever the column's type.
const ROWS: &str = "
SELECT session_id, length(CAST(event_json AS BLOB)),
       CASE WHEN length(CAST(event_json AS BLOB)) <= ?1 THEN CAST(event_json AS BLOB) END
FROM transcript_events ORDER BY session_id, seq, rowid
";

/// `--max-line-bytes`' default (64 MiB), the only limit the native engine reads under.
const MAX_LINE_BYTES: i64 = 64 << 20;

/// The pi format version a session of the store is read as until a header gives one
/// (`STORE_VERSION` of `openclaw.py`).
const STORE_VERSION: i64 = 3;

fn sqlite_error(e: rusqlite::Error) -> Failure {
    Failure::Read(ReadError::Io(io::Error::other(e.to_string())))
}

/// `_session_name`: a `session_id` held as text or bytes, decoded (a byte that is not
/// UTF-8 replaced, as Python's `errors="replace"`), when it is a usable id.
fn session_name(value: ValueRef<'_>) -> Option<String> {
    let (ValueRef::Text(bytes) | ValueRef::Blob(bytes)) = value else {
        return None;
    };
    let text = String::from_utf8_lossy(bytes);
    (!text.is_empty() && !has_control(text.as_bytes())).then(|| text.into_owned())
}

/// `open_read_only`'s URI of `path`: `file:`, the path's bytes percent-encoded as
/// `urllib.parse.quote` encodes them (ASCII letters, digits and `_.-~/` kept, any other
/// byte `%XX`), then `?mode=ro`. A name is never read as a URI of its own (`file:x`).
fn read_only_uri(path: &Path) -> String {
    use std::fmt::Write as _;
    use std::os::unix::ffi::OsStrExt as _;
    let mut uri = String::from("file:");
    for &byte in path.as_os_str().as_bytes() {
        if byte.is_ascii_alphanumeric() || b"_.-~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            let _ = write!(uri, "%{byte:02X}");
        }
    }
    uri.push_str("?mode=ro");
    uri
}

/// `_sqlite.open_read_only` and `read_transaction`'s `BEGIN`: read-only, no wait.
fn open_store(path: &Path) -> rusqlite::Result<Connection> {
    let connection = Connection::open_with_flags(
        read_only_uri(path),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    connection.busy_timeout(Duration::ZERO)?;
    connection.execute_batch("BEGIN")?;
    Ok(connection)
}

fn push_lane(lanes: &mut Vec<LaneOut>, session: String, lane: PiLane) {
    if let Some((_, finished)) = lane.finish(Some(&session)) {
        lanes.push(LaneOut::new(0, session, "main".to_string(), finished));
    }
}

fn read_store(path: &Path, settings: &Settings) -> Result<UnitOut, Failure> {
    let connection = open_store(path).map_err(sqlite_error)?;
    let mut statement = connection.prepare(ROWS).map_err(sqlite_error)?;
    let mut rows = statement.query([MAX_LINE_BYTES]).map_err(sqlite_error)?;
    let mut account = LineAccount::default();
    let mut lanes = Vec::new();
    let mut current: Option<(String, PiLane)> = None;
    while let Some(row) = rows.next().map_err(sqlite_error)? {
        let (raw_session, length, event) = (
            row.get_ref(0).map_err(sqlite_error)?,
            row.get_ref(1).map_err(sqlite_error)?,
            row.get_ref(2).map_err(sqlite_error)?,
        );
        let Some(session) = session_name(raw_session) else {
            account.lines_read += 1;
            account.problem("invalid_id");
            continue;
        };
        let lane = match current.take() {
            Some((name, lane)) if name == session => current.insert((name, lane)),
            earlier => {
                if let Some((name, lane)) = earlier {
                    push_lane(&mut lanes, name, lane);
                }
                current.insert((
                    session,
                    PiLane::new(settings, Some(STORE_VERSION), MAX_JSON_DEPTH),
                ))
            }
        };
        match (length, event) {
            (ValueRef::Null, _) => {
                account.lines_read += 1;
                account.problem("invalid_payload");
            }
            (_, ValueRef::Blob(bytes)) => {
                let lane = &mut lane.1;
                read_row_within(bytes, &mut account, MAX_JSON_DEPTH, |text, account| {
                    lane.record(text, account, None)
                })?;
            }
            _ => {
                account.lines_read += 1;
                account.problem("line_too_long");
            }
        }
    }
    if let Some((name, lane)) = current {
        push_lane(&mut lanes, name, lane);
    }
    Ok(UnitOut {
        accounts: vec![account],
        lanes,
        read_again_in_batch: false,
    })
}

/// The `openclaw` reader: a unit is one store (its session id is not used: each
/// session's rows name theirs). One account, the store's, and a lane per session read,
/// in `session_id` order.
pub struct Openclaw;

impl Reader for Openclaw {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        _threads: usize,
    ) -> Result<UnitOut, ReadError> {
        let (path, _) = unit.one_file("an openclaw")?;
        with_fallback(settings, |s| read_store(path, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store at a fresh path holding `rows` (`session_id`, `seq`, `event_json` as SQL
    /// literals), read as one unit.
    fn store(name: &str, rows: &[(&str, i64, &str)]) -> Result<UnitOut, ReadError> {
        let path = std::env::temp_dir().join(format!(
            "wm-native-{}-openclaw-{name}.sqlite",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&path);
        {
            let connection = Connection::open(&path).unwrap();
            connection
                .execute_batch("CREATE TABLE transcript_events(session_id, seq, event_json)")
                .unwrap();
            for (session, seq, event) in rows {
                connection
                    .execute_batch(&format!(
                        "INSERT INTO transcript_events VALUES ({session}, {seq}, {event})"
                    ))
                    .unwrap();
            }
        }
        let session_ids = ["x".to_string()];
        let paths = [path.as_path()];
        let unit = Unit {
            paths: &paths,
            session_ids: &session_ids,
        };
        let out = Openclaw.read(&unit, &crate::readers::protocol::fixtures::settings(), 1);
        std::fs::remove_file(&path).unwrap();
        out
    }

    const CALLS: &str = r#"'{"type":"message","id":"a1","timestamp":"2026-12-03T10:00:10.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_b1","name":"bash"},{"type":"toolCall","id":"call_g1","name":"grep"}]}}'"#;
    const END_G: &str = r#"'{"type":"message","id":"r1","timestamp":"2026-12-03T10:00:10.900Z","message":{"role":"toolResult","toolCallId":"call_g1"}}'"#;
    const END_B: &str = r#"'{"type":"message","id":"r2","timestamp":"2026-12-03T10:00:13.000Z","message":{"role":"toolResult","toolCallId":"call_b1"}}'"#;

    #[test]
    fn the_worked_example_saves_900_ms() {
        // docs/formats.md: two calls of one message at 10:00:10.000, results at .900 and
        // 13.000: one wave of 2, tool time 3,900 ms, saving 3,900 - 3,000 = 900 ms; the
        // rows are read in seq order whatever order they were written in
        let header = r#"'{"type":"session","version":3,"id":"other","timestamp":"2026-12-03T10:00:00.000Z","cwd":"/w"}'"#;
        let out = store(
            "example",
            &[
                ("'main-1'", 4, END_B),
                ("'main-1'", 0, header),
                ("'main-1'", 2, CALLS),
                ("'main-1'", 3, END_G),
            ],
        )
        .unwrap();
        assert_eq!(
            (out.accounts[0].lines_read, out.accounts[0].lines_used),
            (4, 4)
        );
        assert_eq!(out.lanes.len(), 1);
        // the store's key names the lane, not the header's id
        assert_eq!(
            (
                out.lanes[0].session_id.as_str(),
                out.lanes[0].lane_id.as_str()
            ),
            ("main-1", "main")
        );
        let s = &out.lanes[0].summary;
        assert_eq!((s.paired_calls, s.non_eval_waves_total), (2, 1));
        assert_eq!(s.tool_time_ms, 3900.0);
        assert_eq!(s.modeled_wallclock_saved_ms, 900.0);
    }

    #[test]
    fn rows_without_a_usable_session_or_payload_and_blank_rows_are_counted() {
        let out = store(
            "problems",
            &[
                ("NULL", 0, CALLS),            // invalid_id (sorts first)
                ("7", 0, CALLS),               // invalid_id: not text
                ("'a'", 0, "NULL"),            // invalid_payload, no lane
                ("'b'", 0, "''"),              // blank_line
                ("'b'", 1, "char(10)"),        // "\n" and its newline: two blank lines
                ("'b'", 2, "char(10,32)"),     // "\n ": one
                ("'c' || char(27)", 0, CALLS), // invalid_id: a control character
                ("X'ff'", 0, END_G),           // a blob, not UTF-8: "\u{fffd}", read
            ],
        )
        .unwrap();
        let account = &out.accounts[0];
        assert_eq!(account.lines_read, 9);
        assert_eq!(
            account.problems,
            vec![("invalid_id", 3), ("invalid_payload", 1)]
        );
        assert_eq!(account.ignored, vec![(b"blank_line".to_vec(), 4)]);
        // b had no record (blank lines only), the blob's session has an orphan end
        let lanes: Vec<&str> = out.lanes.iter().map(|l| l.session_id.as_str()).collect();
        assert_eq!(lanes, ["\u{fffd}"]);
        assert_eq!(out.lanes[0].summary.orphan_ends, 1);
    }

    #[test]
    fn a_float_version_keeps_the_store_s_v3_and_an_int_below_3_is_sequential() {
        // v3 (assumed, a float leaves it): both calls start at 10 s, 900 ms saved; v2: b1
        // [10, 10.9] s, then g1 from b1's end [10.9, 13] s (reconstructed): nothing saved
        let header = |v: &str| {
            format!(
                r#"'{{"type":"session","version":{v},"id":"s","timestamp":"2026-12-03T10:00:00.000Z"}}'"#
            )
        };
        let (float, two) = (header("2.0"), header("2"));
        let out = store(
            "version",
            &[
                ("'f'", 0, &float),
                ("'f'", 1, CALLS),
                ("'f'", 2, END_G),
                ("'f'", 3, END_B),
                ("'t'", 0, &two),
                ("'t'", 1, CALLS),
                ("'t'", 2, &END_B.replace("13.000", "10.900")),
                ("'t'", 3, &END_G.replace("10.900", "13.000")),
            ],
        )
        .unwrap();
        let saved: Vec<f64> = out
            .lanes
            .iter()
            .map(|l| l.summary.modeled_wallclock_saved_ms)
            .collect();
        assert_eq!(saved, [900.0, 0.0]);
        assert_eq!(out.accounts[0].notes, vec![("reconstructed_starts", 1)]);
    }

    #[test]
    fn the_uri_quotes_the_path_s_bytes_as_python_does() {
        use std::os::unix::ffi::OsStrExt as _;
        // urllib.parse.quote(os.fsencode(p)): "/", letters, digits and "_.-~" kept
        let path = Path::new(std::ffi::OsStr::from_bytes(b"/t/a b?#%\xff_.-~x.sqlite"));
        assert_eq!(
            read_only_uri(path),
            "file:/t/a%20b%3F%23%25%FF_.-~x.sqlite?mode=ro"
        );
        assert_eq!(
            read_only_uri(Path::new("file:x.db")),
            "file:file%3Ax.db?mode=ro"
        );
    }

    #[test]
    fn a_store_sqlite_cannot_read_is_an_io_error() {
        let path = std::env::temp_dir().join(format!(
            "wm-native-{}-openclaw-not-a-db.sqlite",
            std::process::id()
        ));
        std::fs::write(
            &path,
            b"SQLite format 3\0 and then nothing a database holds",
        )
        .unwrap();
        let session_ids = ["x".to_string()];
        let paths = [path.as_path()];
        let unit = Unit {
            paths: &paths,
            session_ids: &session_ids,
        };
        let out = Openclaw.read(&unit, &crate::readers::protocol::fixtures::settings(), 1);
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(out, Err(ReadError::Io(_))));
        // an empty store is read: no line, no lane
        let out = store("empty", &[]).unwrap();
        assert_eq!((out.accounts[0].lines_read, out.lanes.len()), (0, 0));
    }
}
