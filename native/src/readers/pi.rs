//! The `pi` reader (`docs/formats.md`), rule for rule as
//! `wavemetrics/readers/pi.py`: a unit is the session files of one folder, read
//! parents before their forks (each file's header, from its first lines, names
//! its parent), each file into its one lane, `main`; an entry of a fork whose
//! `(id, timestamp)` was already read in the folder is a `duplicate_entry`. The
//! calls of one message pi ran one after another (before v0.58.0) get their
//! starts rebuilt from the results before them (`sequential_message`).
//!
//! pi is streamable: observations go to the lane's stream as they are read, and
//! a start that comes too late for its wave reads the unit again in batch mode
//! (`with_fallback`), as `readers/dispatch.py` does.

use super::lines::{bad_json, for_each_line_within, int_too_long, split_line, Line, Names};
use super::protocol::{with_fallback, Failure, LaneOut, ReadError, Reader, Unit, UnitOut};
use crate::account::LineAccount;
use crate::activity::Timing;
use crate::io::{open_input, Input};
use crate::json::{parse_array_objects, parse_object_nested, Field, SyntaxError, Val};
use crate::lines::{is_py_space, LineReader};
use crate::parallel::map_indexed;
use crate::summary::{BatchKey, Finished, LaneStream, Settings};
use crate::time::iso_to_ms;
use hashbrown::{HashMap, HashSet};
use std::collections::VecDeque;
use std::io;
use std::path::Path;
use std::rc::Rc;

const RECORD_KEYS: [&str; 7] = [
    "type",
    "id",
    "timestamp",
    "version",
    "message",
    "parentSession",
    "branchedFrom",
];
/// Where `message` is in [`RECORD_KEYS`].
const MESSAGE: usize = 4;
const MESSAGE_KEYS: [&str; 3] = ["role", "content", "toolCallId"];
const BLOCK_KEYS: [&str; 3] = ["type", "id", "name"];

/// The lines of the header peek: `_HEADER_LINES` lines with content at most, and
/// `Source.peek`'s caps (`MAX_PEEK_LINES` lines, `max_line_bytes` bytes, the line
/// that reaches a cap included; the default limit, which the native engine reads with).
const HEADER_LINES: usize = 16;
const MAX_PEEK_LINES: usize = 100_000;
const PEEK_BYTE_CAP: usize = 64 << 20;

/// 2026-03-14T02:09:20Z (Unix ms): the pi commit (`63ac2df2`, v0.58.0) that made it run
/// the calls of one message in parallel (`PARALLEL_SINCE_MS` of `pi.py`).
const PARALLEL_SINCE_MS: f64 = 1_773_454_160_000.0;

/// `sequential_message` of `pi.py`: a v1/v2 file (no version, or below 3), or a
/// message written before [`PARALLEL_SINCE_MS`].
fn sequential_message(version: Option<i64>, at_ms: f64) -> bool {
    version.is_none_or(|v| v < 3) || at_ms < PARALLEL_SINCE_MS
}

/// A JSON number's text as Python's `int` (no fraction, no exponent), saturated
/// (only its comparison with 3 is used); `None` for a float.
fn py_int(text: &str) -> Option<i64> {
    if text.contains(['.', 'e', 'E']) || !text.starts_with(|c: char| c == '-' || c.is_ascii_digit())
    {
        return None;
    }
    Some(text.parse::<i64>().unwrap_or(if text.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    }))
}

/// A line's record by [`RECORD_KEYS`] (the last of a repeated key), the text of its
/// `version`, and its `message`'s keys by [`MESSAGE_KEYS`] when that is an object.
#[derive(Default)]
struct Record<'a> {
    keys: [Val<'a>; 7],
    version: Option<&'a str>,
    message: [Val<'a>; 3],
}

/// A line nesting deeper than `max_depth` levels is a [`SyntaxError`].
fn record_of(text: &str, max_depth: usize) -> Result<Record<'_>, SyntaxError> {
    let mut r = Record::default();
    parse_object_nested(
        text,
        max_depth,
        &RECORD_KEYS,
        MESSAGE,
        &MESSAGE_KEYS,
        |field, raw| match field {
            Field::Outer(3) => {
                r.keys[3] = Val::of(raw);
                r.version = Some(raw.get());
            }
            Field::Outer(i) => r.keys[i] = Val::of(raw),
            Field::Opened => r.message = Default::default(), // a repeated message: the last wins
            Field::Inner(i) => r.message[i] = Val::of(raw),
        },
    )?;
    Ok(r)
}

/// The calls of one sequential message (`_Chain`): `waiting` have not started;
/// `running` has, and its result starts the next; `at_ms` is its start.
struct Chain {
    waiting: VecDeque<(Rc<str>, Rc<str>)>,
    running: Rc<str>,
    at_ms: f64,
    batch: BatchKey,
}

/// What a session did with a call id: started it, ended it.
#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    started: bool,
    ended: bool,
}

/// One session file being read (`_Session` and its `LaneBuilder`).
struct Session {
    stream: LaneStream,
    /// Each call id of the session, and whether it was started and ended (`started`
    /// and `ended` of `_Session`, one entry: a result finds its call's id there).
    calls: HashMap<Rc<str>, Seen>,
    session_id: Option<String>,
    version: Option<i64>,
    chain: Option<Chain>,
    messages: u64,
}

impl Session {
    fn start(&mut self, call_id: Rc<str>, name: Rc<str>, at_ms: f64, batch: &BatchKey) {
        self.calls.entry(call_id.clone()).or_default().started = true;
        self.stream.start(call_id, name, at_ms, Some(batch.clone()));
    }

    /// `_start_waiting`: the calls still waiting start at the start of the call
    /// before them (it has no result yet), and the chain closes.
    fn start_waiting(&mut self) {
        if let Some(chain) = self.chain.take() {
            for (call_id, name) in chain.waiting {
                self.start(call_id, name, chain.at_ms, &chain.batch);
            }
        }
    }
}

fn line_ms(stamp: &Val<'_>) -> Option<f64> {
    stamp.str_bytes().and_then(iso_to_ms)
}

fn read_header(r: &Record<'_>, state: &mut Session, account: &mut LineAccount) {
    if state.session_id.is_some() {
        account.ignore(b"repeated_session");
        return;
    }
    let id = &r.keys[1];
    if id.bad_id() {
        // never replaced by the file name (docs/formats.md)
        account.problem("invalid_id");
        return;
    }
    let Some(session_id) = id.usable_id() else {
        account.problem("invalid_session_header");
        return;
    };
    state.session_id = Some(session_id.to_string());
    if let Val::Num(_) | Val::BigInt = r.keys[3] {
        // a float leaves the version as it was (a store's assumed v3 stays)
        if let Some(version) = r.version.and_then(py_int) {
            state.version = Some(version);
        }
    }
    account.use_line();
}

/// `_read_calls`: the `toolCall` blocks of an assistant message start their calls.
fn read_calls(
    stamp: &Val<'_>,
    content: &Val<'_>,
    state: &mut Session,
    account: &mut LineAccount,
    names: &mut Names,
) -> Result<(), Failure> {
    let mut blocks: Vec<[Val<'_>; 3]> = Vec::new();
    if let Val::Array(text) = content {
        let mut block: Option<[Val<'_>; 3]> = None;
        parse_array_objects(text, &BLOCK_KEYS, |field, raw| match field {
            Field::Opened => {
                if let Some(done) = block.take() {
                    blocks.push(done);
                }
                block = Some(Default::default());
            }
            Field::Inner(i) => {
                if let Some(b) = block.as_mut() {
                    b[i] = Val::of(raw);
                }
            }
            Field::Outer(_) => {}
        })
        .map_err(bad_json)?;
        blocks.extend(block);
        blocks.retain(|b| b[0].str_bytes() == Some(b"toolCall"));
    }
    if blocks.is_empty() {
        account.ignore(b"message.assistant");
        return Ok(());
    }
    let Some(at_ms) = line_ms(stamp) else {
        account.problem("invalid_timestamp");
        return Ok(());
    };
    state.start_waiting();
    state.messages += 1;
    let batch: BatchKey = state.messages.to_string().as_bytes().into();
    let mut usable = 0u64;
    let mut fresh: Vec<(Rc<str>, Rc<str>)> = Vec::new();
    let mut fresh_ids: HashSet<Rc<str>> = HashSet::new();
    for block in &blocks {
        let (Some(call_id), Some(name)) = (block[1].usable_id(), block[2].usable_text()) else {
            continue;
        };
        usable += 1;
        if state.calls.get(call_id).is_some_and(|seen| seen.started) || fresh_ids.contains(call_id)
        {
            account.note("repeated_tool_call", 1);
            continue;
        }
        let call_id: Rc<str> = call_id.into();
        fresh_ids.insert(call_id.clone());
        fresh.push((call_id, names.get(name)));
    }
    let fed = fresh.len() as u64;
    if fresh.len() > 1 && sequential_message(state.version, at_ms) {
        let mut waiting: VecDeque<_> = fresh.into();
        if let Some((first, name)) = waiting.pop_front() {
            state.start(first.clone(), name, at_ms, &batch);
            state.chain = Some(Chain {
                waiting,
                running: first,
                at_ms,
                batch,
            });
        }
    } else {
        for (call_id, name) in fresh {
            state.start(call_id, name, at_ms, &batch);
        }
    }
    account.tool_line(blocks.len() as u64, usable, fed);
    Ok(())
}

/// `_read_result`: a `toolResult` message ends its call, and starts the next call of
/// a sequential message when it ends the one running.
fn read_result(
    stamp: &Val<'_>,
    message: &[Val<'_>; 3],
    state: &mut Session,
    account: &mut LineAccount,
) -> Result<(), Failure> {
    let Some(call_id) = message[2].usable_id() else {
        account.problem("invalid_tool_record");
        return Ok(());
    };
    let Some(at_ms) = line_ms(stamp) else {
        account.problem("invalid_timestamp");
        return Ok(());
    };
    if state.calls.get(call_id).is_some_and(|seen| seen.ended) {
        account.ignore(b"repeated_tool_result");
        return Ok(());
    }
    if state
        .chain
        .as_ref()
        .is_some_and(|c| c.waiting.iter().any(|(id, _)| &**id == call_id))
    {
        state.start_waiting(); // out of turn: not run one after another as recorded
    }
    // the started call's id, when it was: no copy of the id
    state.calls.entry_ref(call_id).or_default().ended = true;
    state.stream.end(call_id, at_ms)?;
    if let Some(mut chain) = state.chain.take() {
        if &*chain.running == call_id {
            if let Some((next, name)) = chain.waiting.pop_front() {
                // when the call before it ended
                state.start(next.clone(), name, at_ms, &chain.batch);
                account.note("reconstructed_starts", 1);
                chain.running = next;
                chain.at_ms = at_ms;
            }
        }
        if !chain.waiting.is_empty() {
            state.chain = Some(chain);
        }
    }
    account.use_line();
    Ok(())
}

/// One file of the unit: its place in the unit, whether it is read as a fork, whether
/// it or a file read after it is one (its entries' keys are kept only then: only a
/// fork looks keys up), and the session id that stands in when it names none.
struct File<'a> {
    index: usize,
    path: &'a Path,
    fork: bool,
    forks_follow: bool,
    fallback_session_id: &'a str,
}

/// The folder's `(id, timestamp)` keys of the entries read so far (`entries` of
/// `PiReader`), and whether the file being read is a fork, whose copies of them are
/// `duplicate_entry` (an id is UTF-8 text, so `0xFF` never occurs in it:
/// `id 0xFF timestamp`). Only forks look keys up, so a file's keys are kept only when
/// it or a file read after it is a fork (`keep`): a folder without forks keeps none.
pub(super) struct Entries<'e> {
    seen: &'e mut HashSet<Box<[u8]>>,
    fork: bool,
    keep: bool,
    key: Vec<u8>,
}

/// `PiReader`: one lane, `main`, read record by record (a file's lines, or a store's
/// rows), its state kept between records.
pub(super) struct PiLane {
    state: Session,
    names: Names,
    /// Whether any record was read (a lane with none is not reported).
    seen: bool,
    /// How deep a record may nest before json refuses it (a file's line, a store's row).
    max_depth: usize,
}

impl PiLane {
    /// A lane read with `settings`, taking the format `version` until a header gives
    /// one (`None`: v1), its records nesting at most `max_depth` levels.
    pub(super) fn new(settings: &Settings, version: Option<i64>, max_depth: usize) -> PiLane {
        PiLane {
            state: Session {
                stream: LaneStream::new(
                    settings,
                    settings.eval_names.clone().into(),
                    settings.batchable_names.clone().into(),
                ),
                calls: HashMap::new(),
                session_id: None,
                version,
                chain: None,
                messages: 0,
            },
            names: Names::default(),
            seen: false,
            max_depth,
        }
    }

    /// One record, the JSON text of a line (`PiReader.read`'s loop body); `entries`:
    /// the folder's, or `None` for a reader given none (a store's sessions).
    pub(super) fn record(
        &mut self,
        text: &str,
        account: &mut LineAccount,
        entries: Option<&mut Entries<'_>>,
    ) -> Result<(), Failure> {
        let r = record_of(text, self.max_depth).map_err(bad_json)?;
        if int_too_long(text.as_bytes()) {
            return Err(bad_json(SyntaxError)); // Python's int() refuses it: invalid_json
        }
        self.seen = true;
        let [kind, id, stamp, _, message, ..] = &r.keys;
        if let (Some(entries), Some(entry_id)) = (entries, id.usable_text()) {
            if entries.keep && kind.str_bytes() != Some(b"session") {
                let key = &mut entries.key;
                key.clear();
                key.extend_from_slice(entry_id.as_bytes());
                key.push(0xff);
                key.extend_from_slice(stamp.str_bytes().unwrap_or(b""));
                if entries.fork && entries.seen.contains(key.as_slice()) {
                    account.ignore(b"duplicate_entry");
                    return Ok(());
                }
                entries.seen.insert(key.as_slice().into());
            }
        }
        let Some(kind) = kind.str_bytes() else {
            account.problem("missing_type");
            return Ok(());
        };
        let state = &mut self.state;
        if kind == b"session" {
            read_header(&r, state, account);
        } else if kind != b"message" {
            account.ignore(kind);
        } else if !matches!(message, Val::Object(_)) {
            account.problem("invalid_payload");
        } else {
            let role = &r.message[0];
            match role.str_bytes() {
                Some(b"assistant") => {
                    read_calls(stamp, &r.message[1], state, account, &mut self.names)?
                }
                Some(b"toolResult") => read_result(stamp, &r.message, state, account)?,
                Some(role) => account.ignore(&[b"message.", role].concat()),
                None => account.ignore(b"message"),
            }
        }
        Ok(())
    }

    /// `PiReader.finish`: calls still waiting start; the lane's session id (`named`,
    /// else its header's, else `None`) and figures, or `None` when no record was read.
    pub(super) fn finish(mut self, named: Option<&str>) -> Option<(Option<String>, Finished)> {
        self.state.start_waiting();
        if !self.seen {
            return None;
        }
        let session_id = named.map(str::to_string).or(self.state.session_id.take());
        Some((
            session_id,
            self.state.stream.finish_lane(0.0, &[], Timing::Message),
        ))
    }
}

/// `read_pi` of one file into `lanes` (none for a file with no record); `entries`:
/// the `(id, timestamp)` keys read so far in the folder, extended with this file's.
fn read_file(
    file: &File<'_>,
    settings: &Settings,
    entries: &mut HashSet<Box<[u8]>>,
    lanes: &mut Vec<LaneOut>,
) -> Result<LineAccount, Failure> {
    let mut account = LineAccount::default();
    let mut lane = PiLane::new(settings, None, crate::json::MAX_JSON_DEPTH);
    let mut entries = Entries {
        seen: entries,
        fork: file.fork,
        keep: file.forks_follow,
        key: Vec::new(),
    };
    for_each_line_within(
        open_input(file.path)?,
        &mut account,
        crate::json::MAX_JSON_DEPTH,
        |text, account| lane.record(text, account, Some(&mut entries)),
    )?;
    if let Some((session_id, finished)) = lane.finish(None) {
        let session_id = session_id.unwrap_or_else(|| {
            account.note("session_id_from_file_name", 1);
            file.fallback_session_id.to_string()
        });
        lanes.push(LaneOut::new(
            file.index,
            session_id,
            "main".to_string(),
            finished,
        ));
    }
    Ok(account)
}

/// A file's `session` header (`_Header`): its id (usable text) and the parent it
/// names (`parentSession`, else `branchedFrom`).
#[derive(Debug, Default, Clone, PartialEq)]
struct Header {
    session_id: Option<String>,
    parent: Option<String>,
}

/// `_header` of `pi.py`: the first `session` record among the file's first lines
/// (`Source.peek(16)`: up to 16 lines with content, within the peek's caps), read as
/// `iter_records` reads them; lines that give no record are passed over. A gzip
/// input whose peek reaches the line cap is `Unsupported` (read by Python): `Source`
/// splits gzip content into pieces, a run of empty lines one piece (`_split_lines`),
/// so Python's peek counts fewer lines there and may go on to a header past the cap.
fn header(path: &Path) -> io::Result<Header> {
    let input = open_input(path)?;
    let gzip = matches!(input, Input::Gzip(_));
    let mut reader = LineReader::new(input);
    let (mut taken, mut with_content, mut size, mut first) = (0usize, 0usize, 0usize, true);
    while let Some((raw, has_newline)) = reader.next_line()? {
        taken += 1;
        size += raw.len() + usize::from(has_newline);
        with_content += usize::from(!raw.iter().all(|&b| is_py_space(b)));
        if let Line::Json(text) = split_line(raw, first, has_newline) {
            // a line json refuses (too deep, an over-long int, no JSON) gives none
            if !int_too_long(text.as_bytes()) {
                if let Ok(r) = record_of(text, crate::json::MAX_JSON_DEPTH) {
                    if r.keys[0].str_bytes() == Some(b"session") {
                        let parent = [&r.keys[5], &r.keys[6]]
                            .into_iter()
                            .find_map(|v| v.usable_text());
                        return Ok(Header {
                            session_id: r.keys[1].usable_text().map(str::to_string),
                            parent: parent.map(str::to_string),
                        });
                    }
                }
            }
        }
        first = false;
        if gzip && taken >= MAX_PEEK_LINES && with_content < HEADER_LINES {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "a gzip header peek at the line cap (Python counts runs of empty lines as one)",
            ));
        }
        if with_content >= HEADER_LINES || taken >= MAX_PEEK_LINES || size >= PEEK_BYTE_CAP {
            break;
        }
    }
    Ok(Header::default())
}

/// `PurePosixPath(text).name`: the last component that is not empty nor `.`.
fn posix_name(text: &str) -> &str {
    text.split('/')
        .rfind(|part| !part.is_empty() && *part != ".")
        .unwrap_or("")
}

/// `os_text` of a path: bytes that are not UTF-8 become `\xNN`.
fn os_text(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    let mut text = String::new();
    for chunk in path.as_os_str().as_bytes().utf8_chunks() {
        text.push_str(chunk.valid());
        for byte in chunk.invalid() {
            text.push_str(&format!("\\x{byte:02x}"));
        }
    }
    text
}

/// `_parent_path`: the file of the unit a parent reference names: the same file name,
/// or that session id (the first such file, in the unit's order).
fn parent_index(reference: &str, names: &[String], headers: &[Header]) -> Option<usize> {
    let replaced = reference.replace('\\', "/");
    let name = posix_name(&replaced);
    (0..headers.len()).find(|&i| {
        posix_name(&names[i]) == name || headers[i].session_id.as_deref() == Some(reference)
    })
}

/// `reading_order`'s order: the unit's files (by index) with every parent in the
/// unit before its forks, else in the unit's order; a reference cycle is broken
/// where it is met (`_parents_first`).
fn parents_first(paths: &[&Path], headers: &[Header]) -> Vec<usize> {
    let names: Vec<String> = paths.iter().map(|p| os_text(p)).collect();
    let parents: Vec<Option<usize>> = headers
        .iter()
        .map(|h| {
            h.parent
                .as_deref()
                .and_then(|p| parent_index(p, &names, headers))
        })
        .collect();
    let mut order = Vec::with_capacity(paths.len());
    let mut placed = vec![false; paths.len()];
    for start in 0..paths.len() {
        let mut chain: Vec<usize> = Vec::new();
        let mut node = Some(start);
        while let Some(at) = node.filter(|&at| !placed[at] && !chain.contains(&at)) {
            chain.push(at);
            node = parents[at];
        }
        for &item in chain.iter().rev() {
            placed[item] = true;
            order.push(item);
        }
    }
    order
}

/// The unit's files in the order they are read (parents before forks), as [`File`]s.
fn files_in_order<'a>(unit: &'a Unit<'a>, headers: &[Header]) -> Vec<File<'a>> {
    let order = parents_first(unit.paths, headers);
    let mut files: Vec<File<'a>> = order
        .into_iter()
        .map(|index| File {
            index,
            path: unit.paths[index],
            fork: headers[index].parent.is_some(),
            forks_follow: false,
            fallback_session_id: &unit.session_ids[index],
        })
        .collect();
    // whether the file at each place, or one after it, is a fork
    let mut later = false;
    for file in files.iter_mut().rev() {
        later |= file.fork;
        file.forks_follow = later;
    }
    files
}

/// The accounts (by place in the unit) and lanes of files read in order.
fn unit_out(count: usize, reads: Vec<(usize, LineAccount, Vec<LaneOut>)>) -> UnitOut {
    let mut accounts: Vec<Option<LineAccount>> = vec![None; count];
    let mut lanes = Vec::new();
    for (index, account, file_lanes) in reads {
        accounts[index] = Some(account);
        lanes.extend(file_lanes);
    }
    UnitOut {
        accounts: accounts
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect(),
        lanes,
        read_again_in_batch: false,
    }
}

fn read_pi_once(
    unit: &Unit<'_>,
    headers: &[Header],
    settings: &Settings,
) -> Result<UnitOut, Failure> {
    let mut entries: HashSet<Box<[u8]>> = HashSet::new();
    let mut reads = Vec::with_capacity(unit.paths.len());
    for file in files_in_order(unit, headers) {
        let mut lanes = Vec::new();
        let account = read_file(&file, settings, &mut entries, &mut lanes)?;
        reads.push((file.index, account, lanes));
    }
    Ok(unit_out(unit.paths.len(), reads))
}

/// [`read_pi_once`] on `threads` threads: each file is read on its own, with a set of
/// its own entries' keys, then the files are taken in order. A file of no fork looks
/// up no key, so its read stands; a fork's read stands unless it failed or one of its
/// keys is a key of a file before it, and is otherwise done again, in order, against
/// those files' keys (as [`read_pi_once`] reads it). A folder without forks keeps no
/// key and reads nothing twice; the first failure in order is the unit's.
fn read_pi_split(
    unit: &Unit<'_>,
    headers: &[Header],
    settings: &Settings,
    threads: usize,
) -> Result<UnitOut, Failure> {
    let files = files_in_order(unit, headers);
    let reads = map_indexed(files.len(), threads, |place| {
        let mut keys = HashSet::new();
        let mut lanes = Vec::new();
        let account = read_file(&files[place], settings, &mut keys, &mut lanes);
        (account, keys, lanes)
    });
    let mut before: HashSet<Box<[u8]>> = HashSet::new();
    let mut done = Vec::with_capacity(files.len());
    for (file, (account, keys, mut lanes)) in files.iter().zip(reads) {
        let account = if file.fork && (account.is_err() || keys.iter().any(|k| before.contains(k)))
        {
            lanes.clear();
            read_file(file, settings, &mut before, &mut lanes)?
        } else {
            before.extend(keys);
            account?
        };
        done.push((file.index, account, lanes));
    }
    Ok(unit_out(unit.paths.len(), done))
}

/// The `pi` reader: a unit is the session files of one folder (`read_pi_folder`),
/// in the order the registry gives them, with per file the session id that stands in
/// when it names none (the UUID that ends its file name). Its files are read parents
/// first, on `threads` threads ([`read_pi_split`]). One account per file, in the
/// unit's order, and the lanes in reading order.
/// A unit whose paths and ids differ in number is refused (`InvalidInput`).
pub struct Pi;

impl Reader for Pi {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        threads: usize,
    ) -> Result<UnitOut, ReadError> {
        if unit.paths.len() != unit.session_ids.len() {
            return Err(ReadError::Io(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a pi unit is its files and a session id for each",
            )));
        }
        let headers = unit
            .paths
            .iter()
            .map(|p| header(p))
            .collect::<io::Result<Vec<_>>>()?;
        with_fallback(settings, |s| {
            if threads < 2 || unit.paths.len() < 2 {
                read_pi_once(unit, &headers, s)
            } else {
                read_pi_split(unit, &headers, s, threads)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::protocol::fixtures::read_unit;

    const V3: &str =
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-03-14T02:00:00Z"}"#;

    fn calls(id: &str, at: &str, ids: &[&str]) -> String {
        let blocks: Vec<String> = ids
            .iter()
            .map(|c| format!(r#"{{"type":"toolCall","id":"{c}","name":"read"}}"#))
            .collect();
        format!(
            r#"{{"type":"message","id":"{id}","timestamp":"{at}","message":{{"role":"assistant","content":[{}]}}}}"#,
            blocks.join(",")
        )
    }

    fn result(id: &str, at: &str, call: &str) -> String {
        format!(
            r#"{{"type":"message","id":"{id}","timestamp":"{at}","message":{{"role":"toolResult","toolCallId":"{call}"}}}}"#
        )
    }

    /// `files` (name, lines) written in a fresh folder and read as one unit, in the
    /// order given, each named by its file name.
    fn folder(name: &str, files: &[(&str, Vec<String>)]) -> UnitOut {
        let dir = std::env::temp_dir().join(format!("wm-native-{}-pi-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let paths: Vec<_> = files.iter().map(|(n, _)| dir.join(n)).collect();
        for (path, (_, lines)) in paths.iter().zip(files) {
            std::fs::write(path, lines.join("\n")).unwrap();
        }
        let refs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
        let ids: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
        let out = read_unit(&Pi, &refs, &ids);
        std::fs::remove_dir_all(&dir).unwrap();
        out
    }

    /// A unit of `files` in a folder of its own, read on `threads` threads.
    fn folder_on(
        name: &str,
        files: &[(&str, Vec<String>)],
        threads: usize,
    ) -> Result<UnitOut, ReadError> {
        let dir = std::env::temp_dir().join(format!("wm-native-{}-pi-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let paths: Vec<_> = files.iter().map(|(n, _)| dir.join(n)).collect();
        for (path, (_, lines)) in paths.iter().zip(files) {
            if !lines.is_empty() {
                std::fs::write(path, lines.join("\n")).unwrap();
            }
        }
        let refs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
        let ids: Vec<String> = files.iter().map(|(n, _)| n.to_string()).collect();
        let unit = Unit {
            paths: &refs,
            session_ids: &ids,
        };
        let out = Pi.read(
            &unit,
            &crate::readers::protocol::fixtures::settings(),
            threads,
        );
        std::fs::remove_dir_all(&dir).unwrap();
        out
    }

    #[test]
    fn a_folder_without_forks_reads_the_same_on_any_number_of_threads() {
        let session = |id: &str, at: &str, calls_of: &[&str]| {
            let mut lines = vec![format!(
                r#"{{"type":"session","version":3,"id":"{id}","timestamp":"{at}"}}"#
            )];
            lines.push(calls("m1", at, calls_of));
            for (i, call) in calls_of.iter().enumerate() {
                lines.push(result(&format!("r{i}"), "2026-03-14T02:09:40Z", call));
            }
            lines
        };
        let mut headless = session("x", "2026-03-14T02:09:30Z", &["c"]);
        headless.remove(0); // its session id from its name
        headless.insert(1, "{not json".to_string());
        let files = [
            (
                "a.jsonl",
                session("s1", "2026-03-14T02:09:30Z", &["a", "b"]),
            ),
            ("b.jsonl", headless),
            ("c.jsonl", session("s3", "2026-03-14T02:09:35Z", &["a"])),
        ];
        let one = folder_on("split-1", &files, 1).unwrap();
        let sessions: Vec<_> = one
            .lanes
            .iter()
            .map(|l| (l.file, l.session_id.as_str(), l.summary.paired_calls))
            .collect();
        assert_eq!(sessions, [(0, "s1", 2), (1, "b.jsonl", 1), (2, "s3", 1)]);
        assert_eq!(one.accounts[1].problems, vec![("invalid_json", 1)]);
        for threads in [2, 3, 8] {
            assert_eq!(
                folder_on("split-n", &files, threads).unwrap(),
                one,
                "{threads}"
            );
        }
        // a missing file fails the unit on any number of threads, as in order
        let mut gone = files.to_vec();
        gone[1].1 = Vec::new();
        assert!(folder_on("split-gone-1", &gone, 1).is_err());
        assert!(folder_on("split-gone-3", &gone, 3).is_err());
    }

    #[test]
    fn a_gzip_header_peek_at_the_line_cap_is_left_to_python() {
        use std::io::Write;
        // past MAX_PEEK_LINES empty lines, then the header: Python's peek of gzip
        // content takes the run as few pieces and finds the header; here it is Python's
        let mut text = "\n".repeat(MAX_PEEK_LINES + 1);
        text.push_str(V3);
        text.push('\n');
        let dir = tempfile::tempdir().unwrap();
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(text.as_bytes()).unwrap();
        let gz = dir.path().join("s.jsonl");
        std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
        let kind = header(&gz).err().map(|e| e.kind());
        assert_eq!(kind, Some(io::ErrorKind::Unsupported));
        // plain content: Python's peek counts each line too, and stops at the cap
        let plain = dir.path().join("p.jsonl");
        std::fs::write(&plain, &text).unwrap();
        assert_eq!(header(&plain).unwrap(), Header::default());
        // a gzip header before the cap is read
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder
            .write_all(format!("\n\n\n{V3}\n").as_bytes())
            .unwrap();
        std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
        assert_eq!(header(&gz).unwrap().session_id.as_deref(), Some("s1"));
    }

    #[test]
    fn the_calls_of_one_message_run_one_after_another_before_the_cut_off() {
        // before 02:09:20: b starts when a's result is written (10 s), c at b's (12 s);
        // from 02:09:20 on, d and e start together. Waves: {a, b, c} (they touch end to
        // start: one wave, docs/metrics.md section 2) and {d, e}
        let lines = vec![
            V3.to_string(),
            calls("m1", "2026-03-14T02:09:00Z", &["a", "b", "c"]),
            result("r1", "2026-03-14T02:09:10Z", "a"),
            result("r2", "2026-03-14T02:09:12Z", "b"),
            result("r3", "2026-03-14T02:09:13Z", "c"),
            calls("m2", "2026-03-14T02:09:20Z", &["d", "e"]),
            result("r4", "2026-03-14T02:09:21Z", "d"),
            result("r5", "2026-03-14T02:09:22Z", "e"),
        ];
        let out = folder("cut-off", &[("s.jsonl", lines)]);
        let account = &out.accounts[0];
        assert_eq!(account.notes, vec![("reconstructed_starts", 2)]);
        assert_eq!((account.lines_read, account.lines_used), (8, 8));
        let s = &out.lanes[0].summary;
        assert_eq!((s.paired_calls, s.non_eval_waves_total), (5, 2));
        // a 10 s, b 2 s, c 1 s, d 1 s, e 2 s
        assert_eq!(s.tool_time_ms, 16000.0);
        assert_eq!(out.lanes[0].session_id, "s1");
    }

    #[test]
    fn a_fork_is_read_after_its_parent_and_its_copies_are_duplicates() {
        let parent = vec![
            V3.to_string(),
            calls("m1", "2026-03-14T02:09:30Z", &["a"]),
            result("r1", "2026-03-14T02:09:31Z", "a"),
        ];
        let mut fork = vec![
            r#"{"type":"session","version":3,"id":"s2","timestamp":"2026-03-14T03:00:00Z","parentSession":"/elsewhere/z.jsonl"}"#.to_string(),
        ];
        fork.extend(parent[1..].iter().cloned());
        fork.push(calls("m9", "2026-03-14T03:00:01Z", &["b"]));
        // and a copy of its own last entry
        fork.push(calls("m9", "2026-03-14T03:00:01Z", &["b"]));
        // a file of no fork, read after the fork: no later fork, so its keys are not
        // kept, and a copy of its own entries is read again as the Python reader does
        let mut after = vec![
            r#"{"type":"session","version":3,"id":"s3","timestamp":"2026-03-14T04:00:00Z"}"#
                .to_string(),
        ];
        after.extend(parent[1..].iter().cloned());
        after.extend(parent[1..].iter().cloned());
        // the fork comes first in the unit: read second, its three copies ignored
        let out = folder(
            "fork",
            &[("a.jsonl", fork), ("z.jsonl", parent), ("zz.jsonl", after)],
        );
        assert_eq!(
            out.accounts[0].ignored,
            vec![(b"duplicate_entry".to_vec(), 3)]
        );
        assert_eq!(out.accounts[0].lines_used, 2);
        assert_eq!(out.accounts[1].lines_used, 3);
        // its copies are a repeated call and result, not duplicate entries
        assert_eq!(
            out.accounts[2].ignored,
            vec![
                (b"repeated_tool_record".to_vec(), 1),
                (b"repeated_tool_result".to_vec(), 1)
            ]
        );
        assert_eq!(out.accounts[2].lines_used, 3);
        let files: Vec<_> = out
            .lanes
            .iter()
            .map(|l| (l.file, l.session_id.as_str()))
            .collect();
        assert_eq!(files, vec![(1, "s1"), (0, "s2"), (2, "s3")]);
    }

    /// A fork repeating entries of its parent, a fork of a parent elsewhere repeating
    /// one of its own, a fork of the first fork, and a file of no fork: the same
    /// accounts and lanes on any number of threads (a fork whose keys meet a file's
    /// before it is read again in order).
    #[test]
    fn a_folder_with_forks_reads_the_same_on_any_number_of_threads() {
        let header = |id: &str, parent: Option<&str>| match parent {
            Some(p) => format!(
                r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-03-14T03:00:00Z","parentSession":"{p}"}}"#
            ),
            None => format!(
                r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-03-14T03:00:00Z"}}"#
            ),
        };
        let parent_entries = [
            calls("m1", "2026-03-14T02:09:30Z", &["a"]),
            result("r1", "2026-03-14T02:09:31Z", "a"),
        ];
        let mut parent = vec![header("s1", None)];
        parent.extend(parent_entries.iter().cloned());
        let mut fork = vec![header("s2", Some("/elsewhere/z.jsonl"))];
        fork.extend(parent_entries.iter().cloned());
        fork.push(calls("m9", "2026-03-14T03:00:01Z", &["b"]));
        let mut grandchild = vec![header("s4", Some("s2"))];
        grandchild.push(calls("m9", "2026-03-14T03:00:01Z", &["b"]));
        grandchild.push(calls("m10", "2026-03-14T03:00:02Z", &["c"]));
        let mut orphan = vec![header("s5", Some("/gone.jsonl"))];
        orphan.push(calls("n1", "2026-03-14T05:00:01Z", &["d"]));
        orphan.push(calls("n1", "2026-03-14T05:00:01Z", &["d"]));
        let mut plain = vec![header("s3", None)];
        plain.extend(parent_entries.iter().cloned());
        let files = [
            ("a.jsonl", fork),
            ("b.jsonl", grandchild),
            ("o.jsonl", orphan),
            ("z.jsonl", parent),
            ("zz.jsonl", plain),
        ];
        let one = folder_on("forks-1", &files, 1).unwrap();
        let ignored: Vec<u64> = one
            .accounts
            .iter()
            .map(|a| {
                a.ignored
                    .iter()
                    .filter(|(k, _)| k == b"duplicate_entry")
                    .map(|(_, n)| n)
                    .sum()
            })
            .collect();
        // a: its parent's two entries; b: a's m9; o: its own copy; z, zz: none
        assert_eq!(ignored, [2, 1, 1, 0, 0]);
        for threads in [2, 3, 8] {
            assert_eq!(
                folder_on("forks-n", &files, threads).unwrap(),
                one,
                "{threads}"
            );
        }
    }

    #[test]
    fn parents_are_found_by_file_name_or_session_id_and_cycles_are_broken() {
        let h = |id: &str, parent: Option<&str>| Header {
            session_id: Some(id.to_string()),
            parent: parent.map(str::to_string),
        };
        let paths = [
            Path::new("/f/a.jsonl"),
            Path::new("/f/b.jsonl"),
            Path::new("/f/c.jsonl"),
        ];
        // a's parent is b (by id), b's is c (by a Windows path's name)
        let headers = [
            h("ida", Some("idb")),
            h("idb", Some("C:\\x\\c.jsonl")),
            h("idc", None),
        ];
        assert_eq!(parents_first(&paths, &headers), vec![2, 1, 0]);
        // a cycle a -> b -> a: broken where it is met
        let headers = [
            h("ida", Some("idb")),
            h("idb", Some("a.jsonl")),
            h("idc", None),
        ];
        assert_eq!(parents_first(&paths, &headers), vec![1, 0, 2]);
        assert_eq!(posix_name("a/b/./"), "b");
        assert_eq!(posix_name("."), "");
        assert_eq!(posix_name("a/.."), "..");
    }

    #[test]
    fn a_version_is_an_int_only_without_fraction_or_exponent() {
        assert_eq!(py_int("3"), Some(3));
        assert_eq!(py_int("-0"), Some(0));
        assert_eq!(py_int("3.0"), None);
        assert_eq!(py_int("3e0"), None);
        assert_eq!(py_int("99999999999999999999"), Some(i64::MAX));
        assert_eq!(py_int("-99999999999999999999"), Some(i64::MIN));
        assert!(sequential_message(None, PARALLEL_SINCE_MS));
        assert!(sequential_message(Some(2), PARALLEL_SINCE_MS));
        assert!(!sequential_message(Some(3), PARALLEL_SINCE_MS));
        assert!(sequential_message(Some(3), PARALLEL_SINCE_MS - 1.0));
    }

    #[test]
    fn a_unit_needs_a_session_id_per_file() {
        let path = Path::new("/nonexistent/s.jsonl");
        let unit = Unit {
            paths: &[path],
            session_ids: &[],
        };
        match Pi.read(&unit, &crate::readers::protocol::fixtures::settings(), 1) {
            Err(ReadError::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::InvalidInput),
            other => panic!("{other:?}"),
        }
    }
}
