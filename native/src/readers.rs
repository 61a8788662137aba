//! The `claude-code` and `events` readers (`docs/formats.md`), line for line the
//! rules of `wavemetrics/readers/claude_code.py` and `events.py`.

use crate::account::{is_short_identifier, LineAccount, OTHER_KINDS};
use crate::detect::{Detected, Sniffers, Window};
use crate::json::{
    nesting_exceeds, parse_object, parse_object_fast, rejection, RawBlock as Block, SyntaxError,
    Val, PY_MAX_DEPTH,
};
use crate::lines::{is_py_space, LineReader};
use crate::parallel::ordered_pipeline;
use crate::summary::{LaneStream, Settings, StreamOrderError, Summary};
use crate::time::iso_to_ms;
use crate::uuids::{ArenaFull, CallIds, SeenUuids};
use hashbrown::{HashMap, HashSet};
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One lane read, with its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneOut {
    /// Index of the input the lane was first seen in.
    pub file: usize,
    pub session_id: String,
    pub lane_id: String,
    pub summary: Summary,
}

/// Everything a read unit gives: one account per input, the lanes in order of
/// first appearance, and whether it had to be read a second time in batch mode.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitOut {
    pub accounts: Vec<LineAccount>,
    pub lanes: Vec<LaneOut>,
    pub read_again_in_batch: bool,
}

/// Why a unit could not be read; input data never panics, it ends up here or in an account.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    /// A lane's turn total overflowed (`check_turn_total` of `summary.py`).
    TurnTotal,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TurnTotal => {
                f.write_str("measured_turn_duration_ms_total must be finite and >= 0")
            }
        }
    }
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

enum Failure {
    Order,
    Read(ReadError),
}

impl From<StreamOrderError> for Failure {
    fn from(_: StreamOrderError) -> Self {
        Failure::Order
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Read(ReadError::Io(e))
    }
}

/// Streams first; when a call arrives for a wave already summarised, reads
/// again in batch mode (`readers/__init__.py` `read_unit`).
fn with_fallback<F>(settings: &Settings, mut read: F) -> Result<UnitOut, ReadError>
where
    F: FnMut(&Settings) -> Result<UnitOut, Failure>,
{
    match read(settings) {
        Ok(out) => return Ok(out),
        Err(Failure::Read(e)) => return Err(e),
        Err(Failure::Order) => {}
    }
    let batch = Settings {
        stream: false,
        ..settings.clone()
    };
    match read(&batch) {
        Ok(mut out) => {
            out.read_again_in_batch = true;
            Ok(out)
        }
        Err(Failure::Read(e)) => Err(e),
        Err(Failure::Order) => unreachable!("batch mode never emits a wave early"),
    }
}

/// What one physical line is before its record is read.
enum Line<'a> {
    Blank,
    Problem(&'static str),
    Json(&'a str),
}

fn split_line(raw: &[u8], first: bool, has_newline: bool) -> Line<'_> {
    let mut line = raw;
    if first {
        line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    }
    while let [rest @ .., b'\r'] = line {
        line = rest;
    }
    if line.iter().all(|&b| is_py_space(b)) {
        return Line::Blank;
    }
    let problem = |reason| {
        Line::Problem(if has_newline {
            reason
        } else {
            "truncated_last_line"
        })
    };
    // nesting past Python's limit (`too_deeply_nested`, checked after this) is the
    // caller's: the Claude reader asks only when its parse fails
    match simdutf8::basic::from_utf8(line) {
        Ok(text) => Line::Json(text),
        Err(_) => problem("invalid_utf8"),
    }
}

/// A line of [`split_line`] that nests deeper than Python's `json` reads: a problem.
fn too_deep(text: &str) -> bool {
    nesting_exceeds(text.as_bytes(), PY_MAX_DEPTH)
}

/// A file opened by [`open_plain`]: the bytes its gzip check read, then the rest.
pub type PlainFile = io::Chain<io::Take<io::Cursor<[u8; 2]>>, File>;

/// Opens a file to read natively; a file starting with the gzip magic bytes is
/// refused (`Unsupported`): Python reads it, decompressed (`sources.py`). The bytes
/// the check read are handed back first (no second open: ~2 ms of the 1,800-file
/// fleet, docs/performance-history.md, "Eleventh round"), so the reader sees the whole file.
pub fn open_plain(path: &Path) -> io::Result<PlainFile> {
    let mut file = File::open(path)?;
    let mut head = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match file.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if got == 2 && head == GZIP_MAGIC {
        return Err(io::Error::new(io::ErrorKind::Unsupported, "gzip content"));
    }
    Ok(io::Cursor::new(head).take(got as u64).chain(file))
}

/// The first two bytes of a gzip stream.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Feeds every record of `source` to `each`; blank lines and unparsable lines are
/// accounted here (`iter_records`). `each` gets the line's JSON text.
fn for_each_line<R: Read, F>(
    source: R,
    account: &mut LineAccount,
    mut each: F,
) -> Result<(), Failure>
where
    F: FnMut(&str, &mut LineAccount) -> Result<(), Failure>,
{
    let mut reader = LineReader::new(source);
    let mut first = true;
    while let Some((raw, has_newline)) = reader.next_line()? {
        account.lines_read += 1;
        let line = match split_line(raw, first, has_newline) {
            Line::Json(text) if too_deep(text) => Line::Problem(if has_newline {
                "too_deeply_nested"
            } else {
                "truncated_last_line"
            }),
            line => line,
        };
        first = false;
        match line {
            Line::Blank => account.ignore(b"blank_line"),
            Line::Problem(reason) => account.problem(reason),
            Line::Json(text) => {
                if !text
                    .trim_start_matches([' ', '\t', '\n', '\r'])
                    .starts_with('{')
                {
                    let reason = rejection(text);
                    account.problem(if has_newline {
                        reason
                    } else {
                        "truncated_last_line"
                    });
                    continue;
                }
                match each(text, account) {
                    Err(Failure::Read(ReadError::Io(e)))
                        if e.kind() == io::ErrorKind::InvalidData =>
                    {
                        account.problem(if has_newline {
                            "invalid_json"
                        } else {
                            "truncated_last_line"
                        });
                    }
                    other => other?,
                }
            }
        }
    }
    Ok(())
}

fn bad_json(_: SyntaxError) -> Failure {
    Failure::Read(ReadError::Io(io::Error::from(io::ErrorKind::InvalidData)))
}

fn check_turn_total(total: f64) -> Result<f64, Failure> {
    if total.is_finite() && total >= 0.0 {
        Ok(total)
    } else {
        Err(Failure::Read(ReadError::TurnTotal))
    }
}

/// Tool names shared between calls (most lanes use a handful of names).
#[derive(Default)]
struct Names(HashSet<Rc<str>>);

impl Names {
    fn get(&mut self, name: &str) -> Rc<str> {
        if let Some(known) = self.0.get(name) {
            return known.clone();
        }
        let fresh: Rc<str> = name.into();
        self.0.insert(fresh.clone());
        fresh
    }
}

// ------------------------------------------------------------------ claude-code

/// The top-level keys a Claude line is read by; `message` (last) is read by
/// [`parse_object_fast`] for its content blocks (`type`, `id`, `name`, `tool_use_id`).
const CLAUDE_KEYS: [&str; 11] = [
    "type",
    "subtype",
    "uuid",
    "parentUuid",
    "isSidechain",
    "agentId",
    "sessionId",
    "timestamp",
    "durationMs",
    "forkedFrom",
    "message",
];

const STARTED: u8 = 1;
const ENDED: u8 = 2;

/// Set `flag` on `call_id` in a lane's store: true when it was set before. A
/// store past 1 GiB hands the input back to Python (`Unsupported`, like an
/// overlong line).
fn remember(calls: &mut CallIds, call_id: &str, flag: u8) -> Result<bool, Failure> {
    calls.mark(call_id.as_bytes(), flag).map_err(|ArenaFull| {
        Failure::Read(ReadError::Io(io::Error::new(
            io::ErrorKind::Unsupported,
            "call ids past 1 GiB",
        )))
    })
}

struct ClaudeLane {
    out: LaneOut,
    stream: LaneStream,
    turn_total: f64,
    /// Call ids fed so far: flag 1 a start, flag 2 an end (first start and first end win).
    calls: CallIds,
}

/// The top-level values a Claude line is read by (message excluded) and the
/// objects of its `message.content` (`_blocks` before its type filter), in one pass.
fn parse_claude_line(text: &str) -> Result<([Val<'_>; 10], Vec<Block<'_>>), SyntaxError> {
    let mut v: [Val; 10] = Default::default();
    let message = parse_object_fast(text, &CLAUDE_KEYS[..10], CLAUDE_KEYS[10], |i, raw| {
        v[i] = Val::of(raw)
    })?;
    Ok((v, message.map_or_else(Vec::new, |m| m.blocks)))
}

/// `_is_fork_copy`: a `forkedFrom` that is present and not null, `""` or `{}`.
fn is_fork_copy(fork: &Val) -> bool {
    match fork {
        Val::Absent | Val::Null => false,
        Val::Text(text) => !text.is_empty(),
        Val::Str(text) => !text.is_empty(),
        Val::Object(text) => {
            let inner = &text[1..text.len() - 1];
            !inner.bytes().all(is_py_space)
        }
        _ => true,
    }
}

/// A server-side tool block type (`_blocks`): `server_tool_use` or a
/// `*_tool_result` other than `tool_result`.
fn is_server_block(kind: &[u8]) -> bool {
    kind == b"server_tool_use" || (kind.ends_with(b"_tool_result") && kind != b"tool_result")
}

struct ClaudeFolder<'s> {
    settings: &'s Settings,
    eval_names: Rc<[String]>,
    seen: SeenUuids,
    sidechain_roots: HashMap<Box<[u8]>, Box<str>>,
    lanes: Vec<ClaudeLane>,
    lane_index: HashMap<(Box<str>, Box<str>), usize>,
    last_lane: usize,
    names: Names,
}

/// A line's `system` record, as `_read_turn` decides it from the line alone.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Turn {
    /// A `turn_duration` whose integer is too large for a float: `invalid_duration`.
    TooLarge,
    /// A finite, positive `turn_duration` to add to the lane's total.
    Add(f64),
    /// Any other `system` line: ignored as `system`.
    Ignore,
}

/// A `user` or `assistant` line's blocks of its block type (`tool_result` or `tool_use`).
#[derive(Debug, Clone, PartialEq)]
struct Tools<'v> {
    assistant: bool,
    /// Server-side tool blocks of an assistant line (`server_tool_blocks`).
    server: u64,
    /// The line's blocks of its block type.
    blocks: u64,
    /// The line's time; `None` when it has no usable timestamp (then `calls` is empty).
    at_ms: Option<f64>,
    /// Each block, when `at_ms` is known: `(call id, tool name)` when usable (the
    /// name is `""` for a `tool_result`), `None` when not.
    calls: Vec<Option<(&'v str, &'v str)>>,
}

#[derive(Debug, Clone, PartialEq)]
enum What<'v> {
    Turn(Turn),
    Tools(Tools<'v>),
}

/// A `user`, `assistant` or `system` line with valid ids.
#[derive(Debug, Clone, PartialEq)]
struct Conv<'v> {
    /// The usable `sessionId` (`None`: the file's fallback session id).
    session: Option<&'v str>,
    /// The usable `agentId`.
    agent: Option<&'v str>,
    /// An `isSidechain: true` line with a usable uuid: that uuid and its
    /// `parentUuid` when that is a string.
    sidechain: Option<(&'v str, Option<&'v [u8]>)>,
    what: What<'v>,
}

/// What follows a line's uuid de-duplication.
#[derive(Debug, Clone, PartialEq)]
enum Then<'v> {
    /// A record type other than `user`, `assistant` and `system`.
    Ignore(&'v [u8]),
    Problem(&'static str),
    Conv(Conv<'v>),
}

/// One physical line of a Claude Code file, decided as far as the line alone
/// decides it (`_read_line`); the rest (uuid de-duplication, sidechain roots,
/// lanes, call ids, the lane's turn total) is the folder's ([`ClaudeFolder::apply`]).
#[derive(Debug, Clone, PartialEq)]
enum Rec<'v> {
    Ignore(&'v [u8]),
    Problem(&'static str),
    /// A record with a type, not a fork's copy: its non-empty string `uuid`, and the rest.
    Line {
        uuid: Option<&'v [u8]>,
        then: Then<'v>,
    },
}

/// [`Rec`] of a parsed line (the values of `CLAUDE_KEYS` but `message`, and the
/// line's content blocks), in the order `_read_line` checks them.
fn claude_rec<'v>(v: &'v [Val<'_>; 10], all: &'v [Block<'_>]) -> Rec<'v> {
    let [kind, subtype, raw_uuid, parent, sidechain, agent, session, stamp, duration, fork] = v;
    let Some(kind) = kind.str_bytes() else {
        return Rec::Problem("missing_type");
    };
    if is_fork_copy(fork) {
        // a /branch or forkSession copy: before the uuid de-duplication
        return Rec::Ignore(b"replayed_lines");
    }
    let uuid = raw_uuid.str_bytes().filter(|u| !u.is_empty());
    let then = if !matches!(kind, b"user" | b"assistant" | b"system") {
        Then::Ignore(kind)
    } else {
        let is_sidechain = *sidechain == Val::Bool(true);
        // each id checked once (`bad_id`: a non-empty string that is no usable id)
        let (session_id, agent_id) = (session.usable_id(), agent.usable_id());
        let sidechain_id = if is_sidechain {
            raw_uuid.usable_id()
        } else {
            None
        };
        let bad = |id: Option<&str>, v: &Val| {
            id.is_none() && v.str_bytes().is_some_and(|b| !b.is_empty())
        };
        if bad(session_id, session)
            || bad(agent_id, agent)
            || (is_sidechain && bad(sidechain_id, raw_uuid))
        {
            Then::Problem("invalid_id")
        } else {
            let what = if kind == b"system" {
                // _read_turn: an int too large for a float is invalid_duration
                What::Turn(match (subtype.str_bytes(), duration) {
                    (Some(b"turn_duration"), Val::BigInt) => Turn::TooLarge,
                    (Some(b"turn_duration"), Val::Num(ms)) if ms.is_finite() && *ms > 0.0 => {
                        Turn::Add(*ms)
                    }
                    _ => Turn::Ignore,
                })
            } else {
                What::Tools(claude_tools(kind == b"assistant", stamp, all))
            };
            Then::Conv(Conv {
                session: session_id,
                agent: agent_id,
                sidechain: sidechain_id.map(|uuid| (uuid, parent.str_bytes())),
                what,
            })
        }
    };
    Rec::Line { uuid, then }
}

fn claude_tools<'v>(assistant: bool, stamp: &'v Val<'_>, all: &'v [Block<'_>]) -> Tools<'v> {
    let block_type: &[u8] = if assistant {
        b"tool_use"
    } else {
        b"tool_result"
    };
    let blocks = all
        .iter()
        .filter(|b| b.kind.str_bytes() == Some(block_type));
    let server = if assistant {
        all.iter()
            .filter(|b| b.kind.str_bytes().is_some_and(is_server_block))
            .count() as u64
    } else {
        0
    };
    let count = blocks.clone().count() as u64;
    let at_ms = match count {
        0 => None,
        _ => stamp.str_bytes().and_then(iso_to_ms),
    };
    let calls = match at_ms {
        None => Vec::new(),
        Some(_) => blocks
            .map(|block| {
                if assistant {
                    match (block.id.usable_id(), block.name.usable_text()) {
                        (Some(call_id), Some(name)) => Some((call_id, name)),
                        _ => None,
                    }
                } else {
                    block.tool_use_id.usable_id().map(|call_id| (call_id, ""))
                }
            })
            .collect(),
    };
    Tools {
        assistant,
        server,
        blocks: count,
        at_ms,
        calls,
    }
}

/// What detection sees of a line: `Some((type when a string, has a uuid key))` when
/// the line is a JSON object (`detect::sniff_line`), else `None`.
type Sniffed<'v> = Option<(Option<&'v [u8]>, bool)>;

/// One physical line of a Claude Code file as a [`Rec`] (`_read_line`: blank,
/// undecodable, or its record), handed to `each` with what detection sees of it.
/// A line that parses for the reader is the same object for detection (the same
/// JSON rules decide, and the same last `type` and any `uuid` key are read); a line
/// the reader rejects before parsing (blank, not UTF-8, too deeply nested, not
/// starting with `{`) is no object for detection either (a trailing `\r` stripped
/// here is JSON whitespace there); a line the reader fails to parse is asked again.
fn claude_line<F>(raw: &[u8], first: bool, has_newline: bool, each: F) -> Result<(), Failure>
where
    F: FnOnce(Rec<'_>, Sniffed<'_>) -> Result<(), Failure>,
{
    let cut = |reason| {
        if has_newline {
            reason
        } else {
            "truncated_last_line"
        }
    };
    match split_line(raw, first, has_newline) {
        Line::Blank => each(Rec::Ignore(b"blank_line"), None),
        Line::Problem(reason) => each(Rec::Problem(reason), None),
        Line::Json(text) => {
            if !text
                .trim_start_matches([' ', '\t', '\n', '\r'])
                .starts_with('{')
            {
                if too_deep(text) {
                    return each(Rec::Problem(cut("too_deeply_nested")), None);
                }
                return each(Rec::Problem(cut(rejection(text))), None);
            }
            // a line the scan reads nests at most PY_MAX_DEPTH deep (its depth limit
            // is Python's): only a line it fails can be too deeply nested
            match parse_claude_line(text) {
                Ok((v, all)) => {
                    let seen = Some((v[0].str_bytes(), v[2] != Val::Absent));
                    each(claude_rec(&v, &all), seen)
                }
                Err(_) if too_deep(text) => each(Rec::Problem(cut("too_deeply_nested")), None),
                Err(_) => {
                    let seen = crate::detect::sniff_line(text.as_bytes());
                    let seen = seen.as_ref().map(|(kind, uuid)| (kind.as_deref(), *uuid));
                    each(Rec::Problem(cut("invalid_json")), seen)
                }
            }
        }
    }
}

/// Every physical line of a Claude Code file as a [`Rec`], in file order
/// (`iter_records`: blank lines, undecodable lines and the problems of each).
fn claude_recs<R: Read, F>(source: R, mut each: F) -> Result<(), Failure>
where
    F: FnMut(Rec<'_>) -> Result<(), Failure>,
{
    let mut reader = LineReader::new(source);
    claude_recs_from(&mut reader, true, &mut each)
}

/// [`claude_recs`] from where `reader` is (`first`: at the file's first line).
fn claude_recs_from<R: Read, F>(
    reader: &mut LineReader<R>,
    mut first: bool,
    mut each: F,
) -> Result<(), Failure>
where
    F: FnMut(Rec<'_>) -> Result<(), Failure>,
{
    while let Some((raw, has_newline)) = reader.next_line()? {
        claude_line(raw, first, has_newline, |rec, _| each(rec))?;
        first = false;
    }
    Ok(())
}

// A tape: the [`Rec`]s of one file in a compact byte form (no text but ids and
// record types), parsed on a worker thread and replayed in order by the merge.

const TAG_IGNORE: u8 = 0;
const TAG_PROBLEM: u8 = 1;
const TAG_LINE: u8 = 2;
const TAG_CONV: u8 = 2;
const WHAT_TOO_LARGE: u8 = 0;
const WHAT_ADD: u8 = 1;
const WHAT_IGNORE: u8 = 2;
const WHAT_TOOLS: u8 = 3;
const HAS_SESSION: u8 = 1;
const SAME_SESSION: u8 = 2;
const HAS_AGENT: u8 = 4;
const HAS_SIDECHAIN: u8 = 8;
const HAS_PARENT: u8 = 16;
const ASSISTANT: u8 = 1;
const HAS_TIME: u8 = 2;

/// The [`Rec`]s of one file, encoded: tags, LEB128 lengths and counts, the ids'
/// bytes, times as 8 bytes. A `sessionId` equal to the previous line's is one flag.
#[derive(Default)]
struct Tape {
    bytes: Vec<u8>,
    /// The problem reasons, by the index the tape stores.
    reasons: Vec<&'static str>,
    last_session: Option<Vec<u8>>,
}

impl Tape {
    fn number(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.bytes.push((n & 0x7f) as u8 | 0x80);
            n >>= 7;
        }
        self.bytes.push(n as u8);
    }

    fn text(&mut self, bytes: &[u8]) {
        self.number(bytes.len() as u64);
        self.bytes.extend_from_slice(bytes);
    }

    fn reason(&mut self, reason: &'static str) {
        let index = match self.reasons.iter().position(|r| *r == reason) {
            Some(index) => index,
            None => {
                self.reasons.push(reason);
                self.reasons.len() - 1
            }
        };
        self.number(index as u64);
    }

    fn push(&mut self, rec: &Rec<'_>) {
        match rec {
            Rec::Ignore(kind) => {
                self.bytes.push(TAG_IGNORE);
                self.text(kind);
            }
            Rec::Problem(reason) => {
                self.bytes.push(TAG_PROBLEM);
                self.reason(reason);
            }
            Rec::Line { uuid, then } => {
                self.bytes.push(TAG_LINE);
                match uuid {
                    Some(uuid) => {
                        self.bytes.push(1);
                        self.text(uuid);
                    }
                    None => self.bytes.push(0),
                }
                match then {
                    Then::Ignore(kind) => {
                        self.bytes.push(TAG_IGNORE);
                        // the account's key: the type when a short identifier, else `other`
                        self.text(if is_short_identifier(kind) {
                            kind
                        } else {
                            OTHER_KINDS
                        });
                    }
                    Then::Problem(reason) => {
                        self.bytes.push(TAG_PROBLEM);
                        self.reason(reason);
                    }
                    Then::Conv(conv) => {
                        self.bytes.push(TAG_CONV);
                        self.conv(conv);
                    }
                }
            }
        }
    }

    fn conv(&mut self, conv: &Conv<'_>) {
        let same = conv.session.map(str::as_bytes) == self.last_session.as_deref()
            && conv.session.is_some();
        let mut flags = 0;
        if conv.session.is_some() {
            flags |= HAS_SESSION;
        }
        if same {
            flags |= SAME_SESSION;
        }
        if conv.agent.is_some() {
            flags |= HAS_AGENT;
        }
        if let Some((_, parent)) = conv.sidechain {
            flags |= HAS_SIDECHAIN;
            if parent.is_some() {
                flags |= HAS_PARENT;
            }
        }
        self.bytes.push(flags);
        if let (Some(session), false) = (conv.session, same) {
            self.text(session.as_bytes());
            self.last_session = Some(session.as_bytes().to_vec());
        }
        if let Some(agent) = conv.agent {
            self.text(agent.as_bytes());
        }
        if let Some((uuid, parent)) = conv.sidechain {
            self.text(uuid.as_bytes());
            if let Some(parent) = parent {
                self.text(parent);
            }
        }
        match &conv.what {
            What::Turn(Turn::TooLarge) => self.bytes.push(WHAT_TOO_LARGE),
            What::Turn(Turn::Add(ms)) => {
                self.bytes.push(WHAT_ADD);
                self.bytes.extend_from_slice(&ms.to_le_bytes());
            }
            What::Turn(Turn::Ignore) => self.bytes.push(WHAT_IGNORE),
            What::Tools(tools) => {
                self.bytes.push(WHAT_TOOLS);
                let mut flags = 0;
                if tools.assistant {
                    flags |= ASSISTANT;
                }
                if tools.at_ms.is_some() {
                    flags |= HAS_TIME;
                }
                self.bytes.push(flags);
                self.number(tools.server);
                self.number(tools.blocks);
                if let Some(at_ms) = tools.at_ms {
                    self.bytes.extend_from_slice(&at_ms.to_le_bytes());
                    self.number(tools.calls.len() as u64);
                    for call in &tools.calls {
                        match call {
                            Some((call_id, name)) => {
                                self.bytes.push(1);
                                self.text(call_id.as_bytes());
                                self.text(name.as_bytes());
                            }
                            None => self.bytes.push(0),
                        }
                    }
                }
            }
        }
    }

    /// Every [`Rec`] pushed, in order, to `each`.
    fn replay<F>(&self, mut each: F) -> Result<(), Failure>
    where
        F: FnMut(Rec<'_>) -> Result<(), Failure>,
    {
        let mut reader = TapeReader {
            tape: self,
            pos: 0,
            last_session: None,
        };
        while reader.pos < self.bytes.len() {
            // a tape is written by `push` only: a record that does not decode is a bug
            let rec = reader
                .rec()
                .ok_or_else(|| Failure::Read(ReadError::Io(io::Error::other("unreadable tape"))))?;
            each(rec)?;
        }
        Ok(())
    }
}

struct TapeReader<'t> {
    tape: &'t Tape,
    pos: usize,
    last_session: Option<&'t str>,
}

impl<'t> TapeReader<'t> {
    fn byte(&mut self) -> Option<u8> {
        let byte = *self.tape.bytes.get(self.pos)?;
        self.pos += 1;
        Some(byte)
    }

    fn number(&mut self) -> Option<u64> {
        let (mut n, mut shift) = (0u64, 0u32);
        loop {
            let byte = self.byte()?;
            n |= u64::from(byte & 0x7f).checked_shl(shift)?;
            if byte & 0x80 == 0 {
                return Some(n);
            }
            shift += 7;
        }
    }

    fn bytes(&mut self) -> Option<&'t [u8]> {
        let len = usize::try_from(self.number()?).ok()?;
        let bytes = self.tape.bytes.get(self.pos..self.pos.checked_add(len)?)?;
        self.pos += len;
        Some(bytes)
    }

    fn text(&mut self) -> Option<&'t str> {
        std::str::from_utf8(self.bytes()?).ok()
    }

    fn float(&mut self) -> Option<f64> {
        let bytes = self.tape.bytes.get(self.pos..self.pos.checked_add(8)?)?;
        self.pos += 8;
        Some(f64::from_le_bytes(bytes.try_into().ok()?))
    }

    fn reason(&mut self) -> Option<&'static str> {
        let index = usize::try_from(self.number()?).ok()?;
        self.tape.reasons.get(index).copied()
    }

    fn rec(&mut self) -> Option<Rec<'t>> {
        Some(match self.byte()? {
            TAG_IGNORE => Rec::Ignore(self.bytes()?),
            TAG_PROBLEM => Rec::Problem(self.reason()?),
            _ => {
                let uuid = match self.byte()? {
                    0 => None,
                    _ => Some(self.bytes()?),
                };
                let then = match self.byte()? {
                    TAG_IGNORE => Then::Ignore(self.bytes()?),
                    TAG_PROBLEM => Then::Problem(self.reason()?),
                    _ => Then::Conv(self.conv()?),
                };
                Rec::Line { uuid, then }
            }
        })
    }

    fn conv(&mut self) -> Option<Conv<'t>> {
        let flags = self.byte()?;
        let session = if flags & SAME_SESSION != 0 {
            self.last_session
        } else if flags & HAS_SESSION != 0 {
            let session = self.text()?;
            self.last_session = Some(session);
            Some(session)
        } else {
            None
        };
        let agent = match flags & HAS_AGENT {
            0 => None,
            _ => Some(self.text()?),
        };
        let sidechain = match flags & HAS_SIDECHAIN {
            0 => None,
            _ => {
                let uuid = self.text()?;
                let parent = match flags & HAS_PARENT {
                    0 => None,
                    _ => Some(self.bytes()?),
                };
                Some((uuid, parent))
            }
        };
        let what = match self.byte()? {
            WHAT_TOO_LARGE => What::Turn(Turn::TooLarge),
            WHAT_ADD => What::Turn(Turn::Add(self.float()?)),
            WHAT_IGNORE => What::Turn(Turn::Ignore),
            _ => {
                let flags = self.byte()?;
                let server = self.number()?;
                let blocks = self.number()?;
                let (at_ms, mut calls) = (None, Vec::new());
                let at_ms = match flags & HAS_TIME {
                    0 => at_ms,
                    _ => {
                        let at_ms = self.float()?;
                        for _ in 0..self.number()? {
                            calls.push(match self.byte()? {
                                0 => None,
                                _ => Some((self.text()?, self.text()?)),
                            });
                        }
                        Some(at_ms)
                    }
                };
                What::Tools(Tools {
                    assistant: flags & ASSISTANT != 0,
                    server,
                    blocks,
                    at_ms,
                    calls,
                })
            }
        };
        Some(Conv {
            session,
            agent,
            sidechain,
            what,
        })
    }
}

impl<'s> ClaudeFolder<'s> {
    fn new(settings: &'s Settings) -> Self {
        ClaudeFolder {
            settings,
            eval_names: settings.eval_names.clone().into(),
            seen: SeenUuids::default(),
            sidechain_roots: HashMap::new(),
            lanes: Vec::new(),
            lane_index: HashMap::new(),
            last_lane: usize::MAX,
            names: Names::default(),
        }
    }

    fn lane_for(&mut self, file: usize, session_id: &str, lane_id: &str) -> usize {
        let key = (Box::<str>::from(session_id), Box::<str>::from(lane_id));
        if let Some(&index) = self.lane_index.get(&key) {
            return index;
        }
        let index = self.lanes.len();
        self.lanes.push(ClaudeLane {
            out: LaneOut {
                file,
                session_id: session_id.to_string(),
                lane_id: lane_id.to_string(),
                summary: Summary::default(),
            },
            stream: LaneStream::new(self.settings, self.eval_names.clone()),
            turn_total: 0.0,
            calls: CallIds::default(),
        });
        self.lane_index.insert(key, index);
        index
    }

    /// The folder's rules for one line of file `file`, in the reader's order:
    /// uuid de-duplication, sidechain roots, the lane, then its turn or its calls.
    fn apply(
        &mut self,
        rec: Rec<'_>,
        file: usize,
        fallback: &str,
        account: &mut LineAccount,
    ) -> Result<(), Failure> {
        account.lines_read += 1;
        let (uuid, then) = match rec {
            Rec::Ignore(kind) => {
                account.ignore(kind);
                return Ok(());
            }
            Rec::Problem(reason) => {
                account.problem(reason);
                return Ok(());
            }
            Rec::Line { uuid, then } => (uuid, then),
        };
        if let Some(uuid) = uuid {
            if !self.seen.insert(uuid) {
                account.ignore(b"duplicate_uuid");
                return Ok(());
            }
        }
        let conv = match then {
            Then::Ignore(kind) => {
                account.ignore(kind);
                return Ok(());
            }
            Then::Problem(reason) => {
                account.problem(reason);
                return Ok(());
            }
            Then::Conv(conv) => conv,
        };
        if let Some((uuid, parent)) = conv.sidechain {
            let root: Box<str> = match parent.and_then(|p| self.sidechain_roots.get(p)) {
                Some(root) => root.clone(),
                None => uuid.into(),
            };
            self.sidechain_roots
                .entry(uuid.as_bytes().into())
                .or_insert(root);
        }
        let session_id = conv.session.unwrap_or(fallback);
        let sidechain_root: String;
        let lane_id: &str = match (conv.agent, conv.sidechain) {
            (Some(agent), _) => agent,
            (None, Some((uuid, _))) => {
                sidechain_root = self
                    .sidechain_roots
                    .get(uuid.as_bytes())
                    .map_or(uuid, |r| r)
                    .to_string();
                &sidechain_root
            }
            _ => "main",
        };
        let last = self.lanes.get(self.last_lane);
        let index = match last {
            // most lines belong to the lane of the line before: no key built, no hash
            Some(l) if l.out.session_id == session_id && l.out.lane_id == lane_id => self.last_lane,
            _ => self.lane_for(file, session_id, lane_id),
        };
        self.last_lane = index;
        let lane = &mut self.lanes[index];
        let tools = match conv.what {
            What::Turn(turn) => {
                // a duration that would make the total infinite is turn_total_overflow
                match turn {
                    Turn::TooLarge => account.problem("invalid_duration"),
                    Turn::Add(ms) => {
                        let total = lane.turn_total + ms;
                        if total.is_finite() {
                            lane.turn_total = total;
                            account.use_line();
                        } else {
                            account.problem("turn_total_overflow");
                        }
                    }
                    Turn::Ignore => account.ignore(b"system"),
                }
                return Ok(());
            }
            What::Tools(tools) => tools,
        };
        if tools.server > 0 {
            account.note("server_tool_blocks", tools.server);
        }
        if tools.blocks == 0 {
            account.ignore(if tools.assistant {
                b"assistant"
            } else {
                b"user"
            });
            return Ok(());
        }
        let Some(at_ms) = tools.at_ms else {
            account.problem("invalid_timestamp");
            return Ok(());
        };
        let (mut fed, mut usable) = (0u64, 0u64);
        for (call_id, name) in tools.calls.into_iter().flatten() {
            usable += 1;
            if tools.assistant {
                if remember(&mut lane.calls, call_id, STARTED)? {
                    account.note("repeated_tool_use", 1);
                    continue;
                }
                let name = self.names.get(name);
                lane.stream.start(call_id.into(), name, at_ms);
            } else {
                if remember(&mut lane.calls, call_id, ENDED)? {
                    account.note("repeated_tool_result", 1);
                    continue;
                }
                lane.stream.end(call_id, at_ms)?;
            }
            fed += 1;
        }
        account.tool_line(tools.blocks, usable, fed);
        Ok(())
    }

    /// The lanes, each summarised, and the accounts: the unit read.
    fn finish(self, accounts: Vec<LineAccount>) -> Result<UnitOut, Failure> {
        let mut lanes = Vec::with_capacity(self.lanes.len());
        for lane in self.lanes {
            let total = check_turn_total(lane.turn_total)?;
            let mut out = lane.out;
            out.summary = lane.stream.finish(total);
            lanes.push(out);
        }
        Ok(UnitOut {
            accounts,
            lanes,
            read_again_in_batch: false,
        })
    }
}

fn read_claude_once(
    paths: &[&Path],
    fallback_ids: &[String],
    settings: &Settings,
) -> Result<UnitOut, Failure> {
    let mut folder = ClaudeFolder::new(settings);
    let mut accounts = Vec::with_capacity(paths.len());
    for (file, path) in paths.iter().enumerate() {
        let mut account = LineAccount::default();
        let fallback = fallback_ids.get(file).map_or("", String::as_str);
        claude_recs(open_plain(path)?, |rec| {
            folder.apply(rec, file, fallback, &mut account)
        })?;
        accounts.push(account);
    }
    folder.finish(accounts)
}

/// Input bytes whose tapes may be held at once by the split read (parsed, not yet
/// merged); a larger file is parsed by the merging thread itself, line by line.
pub const SPLIT_BUDGET: u64 = 16 << 20;

/// How many units were read by [`read_claude_split`] in this process (for tests).
pub static SPLIT_READS: AtomicUsize = AtomicUsize::new(0);

/// The split read: files parsed into tapes on `threads` threads, merged in file
/// order on this one, with the same [`ClaudeFolder::apply`] as the plain read.
fn read_claude_split(
    paths: &[&Path],
    fallback_ids: &[String],
    settings: &Settings,
    threads: usize,
    budget: u64,
) -> Result<UnitOut, Failure> {
    SPLIT_READS.fetch_add(1, Ordering::Relaxed);
    let mut folder = ClaudeFolder::new(settings);
    let mut accounts = Vec::with_capacity(paths.len());
    // a file whose size cannot be read counts as 0: its open fails in the same way
    let sizes: Vec<u64> = paths
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .collect();
    let parse = |file: usize| -> Result<Tape, Failure> {
        let mut tape = Tape::default();
        claude_recs(open_plain(paths[file])?, |rec| {
            tape.push(&rec);
            Ok(())
        })?;
        Ok(tape)
    };
    ordered_pipeline(&sizes, threads, budget, parse, |file, parsed| {
        let mut account = LineAccount::default();
        let fallback = fallback_ids.get(file).map_or("", String::as_str);
        let mut each = |rec: Rec<'_>| folder.apply(rec, file, fallback, &mut account);
        match parsed {
            Some(tape) => tape?.replay(&mut each)?,
            None => claude_recs(open_plain(paths[file])?, &mut each)?,
        }
        accounts.push(account);
        Ok::<(), Failure>(())
    })?;
    folder.finish(accounts)
}

/// Read the transcript files of one Claude Code project folder (in the given
/// order) into lanes; `fallback_ids[i]` is the session id of file `i`'s lines
/// without `sessionId`.
pub fn read_claude_code(
    paths: &[&Path],
    fallback_ids: &[String],
    settings: &Settings,
) -> Result<UnitOut, ReadError> {
    with_fallback(settings, |s| read_claude_once(paths, fallback_ids, s))
}

/// [`read_claude_code`] on up to `threads` threads: with two or more threads and
/// files, the files are parsed on worker threads and merged in file order on
/// this one (uuid de-duplication, sidechain roots, lanes, call ids, accounts):
/// the same output as one thread, for any number of threads.
pub fn read_claude_code_on(
    paths: &[&Path],
    fallback_ids: &[String],
    settings: &Settings,
    threads: usize,
) -> Result<UnitOut, ReadError> {
    if threads < 2 || paths.len() < 2 {
        return read_claude_code(paths, fallback_ids, settings);
    }
    with_fallback(settings, |s| {
        read_claude_split(paths, fallback_ids, s, threads, SPLIT_BUDGET)
    })
}

// ----------------------------------------------------------------------- events

const EVENT_KEYS: [&str; 6] = [
    "type",
    "toolCallId",
    "toolName",
    "timestamp",
    "sessionId",
    "agentId",
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
    order: usize,
}

fn finish_event_lane(lane: EventLane) -> Result<(usize, LaneOut), Failure> {
    let total = check_turn_total(lane.turn_total)?;
    let mut out = lane.out;
    out.summary = lane.stream.finish(total);
    Ok((lane.order, out))
}

fn read_events_once(
    path: &Path,
    default_session_id: &str,
    settings: &Settings,
) -> Result<UnitOut, Failure> {
    let eval_names: Rc<[String]> = settings.eval_names.clone().into();
    let mut account = LineAccount::default();
    let mut lanes: Vec<Option<EventLane>> = Vec::new();
    let mut lane_index: HashMap<(Box<str>, Box<str>), usize> = HashMap::new();
    let mut closed: HashSet<Box<str>> = HashSet::new();
    let mut built: Vec<(usize, LaneOut)> = Vec::new();
    let mut names = Names::default();
    let mut used = 0u64;
    for_each_line(open_plain(path)?, &mut account, |text, account| {
        let mut v: [Val; 6] = Default::default();
        parse_object(text, &EVENT_KEYS, |i, raw| v[i] = Val::of(raw)).map_err(bad_json)?;
        let [kind, call, tool, stamp, session, agent] = v;
        let Some(kind) = kind.str_bytes() else {
            account.problem("missing_type");
            return Ok(());
        };
        let tool_event = matches!(kind, b"tool_execution_start" | b"tool_execution_end");
        let turn_event = matches!(kind, b"turn_start" | b"turn_end");
        let shutdown = kind == b"session_shutdown";
        if !(tool_event || turn_event || shutdown) {
            account.ignore(kind);
            return Ok(());
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
            return Ok(());
        };
        if closed.contains(session_id) {
            account.ignore(b"after_session_shutdown");
            return Ok(());
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
            return Ok(());
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
                && (kind == b"tool_execution_start" || !matches!(tool, Val::Absent | Val::Null));
            if call_id.is_none() || bad_name {
                account.problem("invalid_tool_record");
                return Ok(());
            }
        }
        let Some(at_ms) = at_ms else {
            account.problem("invalid_timestamp");
            return Ok(());
        };
        let key = (Box::<str>::from(session_id), Box::<str>::from(lane_id));
        let index = match lane_index.get(&key) {
            Some(&index) => index,
            None => {
                let index = lanes.len();
                lanes.push(Some(EventLane {
                    out: LaneOut {
                        file: 0,
                        session_id: session_id.to_string(),
                        lane_id: lane_id.to_string(),
                        summary: Summary::default(),
                    },
                    stream: LaneStream::new(settings, eval_names.clone()),
                    turn_total: 0.0,
                    turn_pending: None,
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
            (None, b"turn_start") => lane.turn_pending = Some(at_ms),
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
                            return Ok(());
                        }
                        lane.turn_total = total;
                    }
                }
            }
            (Some(call_id), b"tool_execution_start") => {
                let name = names.get(name.unwrap_or("unknown"));
                lane.stream.start(call_id.into(), name, at_ms);
            }
            (Some(call_id), _) => lane.stream.end(call_id, at_ms)?,
        }
        Ok(())
    })?;
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

/// Read one `events` input into lanes keyed by `(sessionId, agentId)`;
/// `default_session_id` stands in for a missing `sessionId`.
pub fn read_events(
    path: &Path,
    default_session_id: &str,
    settings: &Settings,
) -> Result<UnitOut, ReadError> {
    with_fallback(settings, |s| read_events_once(path, default_session_id, s))
}

// ------------------------------------------------------------ the folded read

/// One file of a folded read: its path, and the session id of its lines without
/// one when it is a Claude Code file (`fallback_session_id`) and when it is an
/// `events` file (`file_stem`).
pub struct FoldFile<'a> {
    pub path: &'a Path,
    pub claude_fallback: &'a str,
    pub events_default: &'a str,
}

/// What a folded read gives for one group of files (the candidates of one Claude
/// Code project folder).
#[derive(Debug, Clone, PartialEq)]
pub struct FoldOut {
    /// Each file's format as [`crate::detect::detect`] finds it (`None`: the Python
    /// registry decides: another format, empty, unrecognised or unreadable).
    pub found: Vec<Option<Detected>>,
    /// The unit of the files found `claude-code`, read as one project folder in the
    /// group's order (as [`read_claude_code`] reads them); `None` when no file is, or
    /// when the read failed (the caller then reads the unit another way).
    pub claude: Option<UnitOut>,
    /// Each `events` file's unit (as [`read_events`] reads it), by the file's index;
    /// `None` when its read failed.
    pub events: Vec<(usize, Option<UnitOut>)>,
}

/// A file's detection window, read as Claude Code records: what detection finds,
/// the window's records, and the reader after the window.
struct Sniff {
    found: Option<Detected>,
    tape: Tape,
    rest: LineReader<PlainFile>,
    /// No line was read yet (the window was empty).
    first: bool,
}

/// Read a file's first lines once, both as detection reads them ([`Window`]) and as
/// Claude Code records (kept on a tape until detection has decided). `None` when
/// detection leaves the file to Python: it cannot be opened or read, holds gzip
/// content, or its window reaches the peek's caps (as [`crate::detect::detect`]).
fn sniff(path: &Path, sniffers: &Sniffers) -> Option<Sniff> {
    let mut rest = LineReader::new(open_plain(path).ok()?);
    let mut window = Window::new(sniffers);
    let mut tape = Tape::default();
    let mut first = true;
    while window.looking() {
        let Some((raw, has_newline)) = rest.next_line().ok()? else {
            break; // the whole file is in the window
        };
        window.take(raw)?;
        claude_line(raw, first, has_newline, |rec, seen| {
            tape.push(&rec);
            if let Some((kind, has_uuid)) = seen {
                window.record(kind, has_uuid);
            }
            Ok(())
        })
        .ok()?;
        first = false;
    }
    Some(Sniff {
        found: window.found(),
        tape,
        rest,
        first,
    })
}

/// A sniffed Claude Code file into the folder as file `file`: the window's records,
/// then the lines after the window (the same records as [`claude_recs`] gives).
fn apply_sniffed(
    folder: &mut ClaudeFolder<'_>,
    sniff: Sniff,
    file: usize,
    fallback: &str,
) -> Result<LineAccount, Failure> {
    let Sniff {
        tape,
        mut rest,
        first,
        ..
    } = sniff;
    let mut account = LineAccount::default();
    let mut each = |rec: Rec<'_>| folder.apply(rec, file, fallback, &mut account);
    tape.replay(&mut each)?;
    claude_recs_from(&mut rest, first, &mut each)?;
    Ok(account)
}

/// A sniffed Claude Code file's records on one tape (the window's, then the rest).
fn tape_sniffed(sniff: Sniff) -> Result<Tape, Failure> {
    let Sniff {
        mut tape,
        mut rest,
        first,
        ..
    } = sniff;
    claude_recs_from(&mut rest, first, |rec| {
        tape.push(&rec);
        Ok(())
    })?;
    Ok(tape)
}

/// The Claude Code part of a folded read while it goes: the folder, the accounts of
/// the files applied, and the first failure (after which files are only detected).
struct FoldedFolder<'s> {
    folder: ClaudeFolder<'s>,
    accounts: Vec<LineAccount>,
    /// The group's index of each file found `claude-code`.
    files: Vec<usize>,
    failure: Option<Failure>,
}

impl<'s> FoldedFolder<'s> {
    fn new(settings: &'s Settings) -> Self {
        FoldedFolder {
            folder: ClaudeFolder::new(settings),
            accounts: Vec::new(),
            files: Vec::new(),
            failure: None,
        }
    }

    /// Group file `index`, found `claude-code`, read by `read` into the folder as
    /// its next file, unless an earlier file failed.
    fn add<F>(&mut self, index: usize, read: F)
    where
        F: FnOnce(&mut ClaudeFolder<'s>, usize) -> Result<LineAccount, Failure>,
    {
        let file = self.files.len();
        self.files.push(index);
        if self.failure.is_none() {
            match read(&mut self.folder, file) {
                Ok(account) => self.accounts.push(account),
                Err(failure) => self.failure = Some(failure),
            }
        }
    }

    /// The unit, as [`with_fallback`] gives it: read again in batch mode when its
    /// calls came out of order, `None` when it failed or has no file.
    fn finish(self, group: &[FoldFile], settings: &Settings, threads: usize) -> Option<UnitOut> {
        if self.files.is_empty() {
            return None;
        }
        let failure = match self.failure {
            None => match self.folder.finish(self.accounts) {
                Ok(out) => return Some(out),
                Err(failure) => failure,
            },
            Some(failure) => failure,
        };
        if let Failure::Read(_) = failure {
            return None;
        }
        let paths: Vec<&Path> = self.files.iter().map(|&i| group[i].path).collect();
        let fallbacks: Vec<String> = self
            .files
            .iter()
            .map(|&i| group[i].claude_fallback.to_string())
            .collect();
        let batch = Settings {
            stream: false,
            ..settings.clone()
        };
        let again = if threads < 2 || paths.len() < 2 {
            read_claude_once(&paths, &fallbacks, &batch)
        } else {
            read_claude_split(&paths, &fallbacks, &batch, threads, SPLIT_BUDGET)
        };
        let mut out = again.ok()?;
        out.read_again_in_batch = true;
        Some(out)
    }
}

/// How many groups were read by [`read_folded`] in this process (for tests).
pub static FOLDED_READS: AtomicUsize = AtomicUsize::new(0);

/// Detect and read one group of files (the regular, uncompressed candidates of one
/// Claude Code project folder, in path order), the first lines of each file parsed
/// once (the file is still opened by `open_plain`'s gzip check, then read): the window of each file is parsed as Claude Code records and
/// detection decides from the same parse ([`Window`], the rule of
/// [`crate::detect::detect`]); the files found `claude-code` are read as one folder
/// unit in the group's order, each `events` file as a unit of its own (opened again),
/// and the others are left to the caller. With `threads` > 1 and several files, the
/// files are parsed on worker threads and merged in order (the split read): the
/// same output for any number of threads.
pub fn read_folded(
    group: &[FoldFile],
    sniffers: &Sniffers,
    settings: &Settings,
    threads: usize,
) -> FoldOut {
    FOLDED_READS.fetch_add(1, Ordering::Relaxed);
    fold_group(group, sniffers, settings, threads, SPLIT_BUDGET)
}

/// [`read_folded`] with the split read's `budget` (bytes of files parsed ahead).
fn fold_group(
    group: &[FoldFile],
    sniffers: &Sniffers,
    settings: &Settings,
    threads: usize,
    budget: u64,
) -> FoldOut {
    let mut found = Vec::with_capacity(group.len());
    let mut events = Vec::new();
    let mut folder = FoldedFolder::new(settings);
    let read_events_file =
        |file: &FoldFile| read_events(file.path, file.events_default, settings).ok();
    // one file detected and read on this thread, its lines applied as they are read
    let direct = |index: usize,
                  found: &mut Vec<Option<Detected>>,
                  events: &mut Vec<(usize, Option<UnitOut>)>,
                  folder: &mut FoldedFolder| {
        let file = &group[index];
        let sniffed = sniff(file.path, sniffers);
        let detected = sniffed.as_ref().and_then(|s| s.found);
        found.push(detected);
        match (detected, sniffed) {
            (Some(Detected::ClaudeCode), Some(sniffed)) => folder.add(index, |f, n| {
                apply_sniffed(f, sniffed, n, file.claude_fallback)
            }),
            (Some(Detected::Events), _) => events.push((index, read_events_file(file))),
            _ => {}
        }
    };
    if threads < 2 || group.len() < 2 {
        for index in 0..group.len() {
            direct(index, &mut found, &mut events, &mut folder);
        }
        let claude = folder.finish(group, settings, threads);
        return FoldOut {
            found,
            claude,
            events,
        };
    }
    SPLIT_READS.fetch_add(1, Ordering::Relaxed);
    // a file whose size cannot be read counts as 0: its open fails in the same way
    let sizes: Vec<u64> = group
        .iter()
        .map(|f| std::fs::metadata(f.path).map_or(0, |m| m.len()))
        .collect();
    enum Parsed {
        Claude(Result<Tape, Failure>),
        Events(Option<UnitOut>),
        Other,
    }
    let parse = |index: usize| -> Parsed {
        let file = &group[index];
        match sniff(file.path, sniffers) {
            Some(s) if s.found == Some(Detected::ClaudeCode) => Parsed::Claude(tape_sniffed(s)),
            Some(s) if s.found == Some(Detected::Events) => Parsed::Events(read_events_file(file)),
            _ => Parsed::Other,
        }
    };
    let merged: Result<(), ()> =
        ordered_pipeline(&sizes, threads, budget, parse, |index, parsed| {
            let file = &group[index];
            match parsed {
                Some(Parsed::Claude(tape)) => {
                    found.push(Some(Detected::ClaudeCode));
                    folder.add(index, |f, n| {
                        let mut account = LineAccount::default();
                        tape?.replay(|rec| f.apply(rec, n, file.claude_fallback, &mut account))?;
                        Ok(account)
                    });
                }
                Some(Parsed::Events(out)) => {
                    found.push(Some(Detected::Events));
                    events.push((index, out));
                }
                Some(Parsed::Other) => found.push(None),
                // a file larger than the budget: read here, line by line
                None => direct(index, &mut found, &mut events, &mut folder),
            }
            Ok(())
        });
    debug_assert!(merged.is_ok(), "the merge never fails: failures are kept");
    let claude = folder.finish(group, settings, threads);
    FoldOut {
        found,
        claude,
        events,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn settings() -> Settings {
        Settings {
            max_tracked_calls: Some(2000),
            eval_names: vec!["eval".into()],
            stream: true,
        }
    }

    #[test]
    fn a_plain_file_is_read_whole_after_its_gzip_check() {
        // the two bytes the check read come first, then the rest, for every short length
        let dir = tempfile::tempdir().unwrap();
        for content in [
            &b""[..],
            b"{",
            b"{}",
            b"{}\n",
            b"\x1f",
            b"\x1fx",
            b"{\"a\":1}\n{}\n",
        ] {
            let path = dir.path().join("f.jsonl");
            std::fs::write(&path, content).unwrap();
            let mut read = Vec::new();
            open_plain(&path).unwrap().read_to_end(&mut read).unwrap();
            assert_eq!(read, content);
        }
        let path = dir.path().join("g.jsonl");
        std::fs::write(&path, b"\x1f\x8b\x08rest").unwrap();
        assert_eq!(
            open_plain(&path).err().map(|e| e.kind()),
            Some(io::ErrorKind::Unsupported)
        );
        assert!(open_plain(&dir.path().join("missing")).is_err());
    }

    fn claude(name: &str, lines: &[&str]) -> UnitOut {
        let path =
            std::env::temp_dir().join(format!("wm-native-{}-{name}.jsonl", std::process::id()));
        let mut file = File::create(&path).unwrap();
        for line in lines {
            writeln!(file, "{line}").unwrap();
        }
        drop(file);
        let out = read_claude_code(&[path.as_path()], &["f".to_string()], &settings()).unwrap();
        std::fs::remove_file(&path).unwrap();
        out
    }

    fn events(name: &str, lines: &[&str]) -> UnitOut {
        let path =
            std::env::temp_dir().join(format!("wm-native-{}-{name}.jsonl", std::process::id()));
        std::fs::write(&path, lines.join("\n")).unwrap();
        let out = read_events(&path, "run", &settings()).unwrap();
        std::fs::remove_file(&path).unwrap();
        out
    }

    const USE: &str = r#"{"type":"assistant","uuid":"u1","sessionId":"s","timestamp":"2025-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":"a","name":"Read"}]}}"#;

    #[test]
    fn a_tape_replays_every_record_as_pushed() {
        let conv = |session, agent, sidechain, what| Rec::Line {
            uuid: Some(b"u1"),
            then: Then::Conv(Conv {
                session,
                agent,
                sidechain,
                what,
            }),
        };
        let tools = Tools {
            assistant: true,
            server: 2,
            blocks: 3,
            at_ms: Some(1.5e12 + 0.25),
            calls: vec![Some(("toolu_1", "Read")), None, Some(("c\u{e9}", "x"))],
        };
        let long_kind = vec![b'k'; 200];
        let recs = vec![
            Rec::Ignore(b"blank_line"),
            Rec::Problem("invalid_json"),
            Rec::Problem("missing_type"),
            Rec::Problem("invalid_json"),
            Rec::Line {
                uuid: None,
                then: Then::Ignore(b"summary"),
            },
            Rec::Line {
                uuid: Some(b"u0"),
                then: Then::Problem("invalid_id"),
            },
            conv(Some("s1"), None, None, What::Turn(Turn::Add(-0.0))),
            conv(Some("s1"), Some("a"), None, What::Turn(Turn::TooLarge)),
            conv(
                None,
                None,
                Some(("x2", Some(b"x1"))),
                What::Turn(Turn::Ignore),
            ),
            conv(Some("s1"), None, Some(("x3", None)), What::Tools(tools)),
            conv(
                Some("s2"),
                None,
                None,
                What::Tools(Tools {
                    assistant: false,
                    server: 0,
                    blocks: 1,
                    at_ms: None,
                    calls: Vec::new(),
                }),
            ),
        ];
        let mut tape = Tape::default();
        for rec in &recs {
            tape.push(rec);
        }
        tape.push(&Rec::Line {
            uuid: None,
            then: Then::Ignore(&long_kind),
        });
        assert_eq!(
            tape.reasons,
            vec!["invalid_json", "missing_type", "invalid_id"]
        );
        let mut replayed = Vec::new();
        tape.replay(|rec| {
            replayed.push(format!("{rec:?}"));
            Ok(())
        })
        .ok()
        .unwrap();
        let mut expected: Vec<String> = recs.iter().map(|r| format!("{r:?}")).collect();
        // a type that is no short identifier is kept as the account's key for it
        expected.push(format!(
            "{:?}",
            Rec::Line {
                uuid: None,
                then: Then::Ignore(b"other")
            }
        ));
        assert_eq!(replayed, expected);
    }

    #[test]
    fn a_folded_read_detects_and_reads_as_the_separate_pass_and_readers_do() {
        let dir = std::env::temp_dir().join(format!("wm-fold-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("f.jsonl")).unwrap(); // a folder: unreadable
        let claude_a = concat!(
            r#"{"type":"assistant","uuid":"u1","sessionId":"s1","timestamp":"2025-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":"a","name":"Read"}]}}"#,
            "\n\n",
            r#"{"type":"user","uuid":"x1","isSidechain":true,"parentUuid":null}"#,
            "\n"
        );
        let claude_c = concat!(
            r#"{"type":"user","uuid":"u1","sessionId":"s1"}"#,
            "\n",
            r#"{"type":"user","uuid":"u2","sessionId":"s1","timestamp":"2025-01-01T00:00:02Z","message":{"content":[{"type":"tool_result","tool_use_id":"a"}]}}"#,
            "\n{bad\n",
            r#"{"type":"assistant","uuid":"x2","isSidechain":true,"parentUuid":"x1","timestamp":"2025-01-01T00:00:03Z","message":{"content":[{"type":"tool_use","id":"c","name":"Bash"}]}}"#,
        );
        let events_b = concat!(
            r#"{"type":"tool_execution_start","toolCallId":"e","toolName":"t","timestamp":1}"#,
            "\n",
            r#"{"type":"tool_execution_end","toolCallId":"e","timestamp":3}"#,
            "\n"
        );
        // Claude Code lines first, an events record third: an events file
        let late_events = format!("{}\n{}\n{events_b}", USE, r#"{"type":"summary"}"#);
        let files: [(&str, &[u8]); 7] = [
            ("a.jsonl", claude_a.as_bytes()),
            ("b.jsonl", events_b.as_bytes()),
            ("c.jsonl", claude_c.as_bytes()),
            ("d.jsonl", br#"{"type":"session_meta","payload":{}}"#),
            ("e.jsonl", b""),
            ("g.jsonl", &[0x1f, 0x8b, 8, 0]),
            ("h.jsonl", late_events.as_bytes()),
        ];
        for (name, data) in files {
            std::fs::write(dir.join(name), data).unwrap();
        }
        let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let paths: Vec<std::path::PathBuf> = names
            .iter()
            .map(|n| dir.join(format!("{n}.jsonl")))
            .collect();
        let fallbacks: Vec<String> = names.iter().map(|n| format!("fb-{n}")).collect();
        let group: Vec<FoldFile> = paths
            .iter()
            .zip(&fallbacks)
            .map(|(path, fallback)| FoldFile {
                path,
                claude_fallback: fallback,
                events_default: &fallback[3..],
            })
            .collect();
        let event_types = ["tool_execution_start".to_string(), "turn_end".to_string()];
        let claude_only = ["summary".to_string()];
        let sniffers = Sniffers {
            event_types: &event_types,
            claude_only_types: &claude_only,
        };
        let (claude, events) = (Some(Detected::ClaudeCode), Some(Detected::Events));
        let found = vec![claude, events, claude, None, None, None, None, events];
        for (path, want) in paths.iter().zip(&found) {
            assert_eq!(crate::detect::detect(path, &sniffers).ok().flatten(), *want);
        }
        let expected = FoldOut {
            found,
            claude: Some(
                read_claude_code(
                    &[paths[0].as_path(), paths[2].as_path()],
                    &["fb-a".to_string(), "fb-c".to_string()],
                    &settings(),
                )
                .unwrap(),
            ),
            events: vec![
                (1, Some(read_events(&paths[1], "b", &settings()).unwrap())),
                (7, Some(read_events(&paths[7], "h", &settings()).unwrap())),
            ],
        };
        let lanes = expected.claude.as_ref().map(|out| out.lanes.len());
        assert_eq!(lanes, Some(3)); // (s1, main), (fb-a, x1), (fb-c, x1)
        for budget in [0, 300, 1 << 20] {
            for threads in [1, 2, 3] {
                let out = fold_group(&group, &sniffers, &settings(), threads, budget);
                assert_eq!(out, expected, "budget {budget}, threads {threads}");
            }
        }
        let before = (
            FOLDED_READS.load(Ordering::Relaxed),
            SPLIT_READS.load(Ordering::Relaxed),
        );
        assert_eq!(read_folded(&group, &sniffers, &settings(), 2), expected);
        assert!(FOLDED_READS.load(Ordering::Relaxed) > before.0);
        assert!(SPLIT_READS.load(Ordering::Relaxed) > before.1);
        // only others: nothing read
        let none = fold_group(&group[3..7], &sniffers, &settings(), 1, 0);
        assert_eq!(none.found, vec![None; 4]);
        assert_eq!((none.claude, none.events), (None, vec![]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folded_folder_whose_calls_come_out_of_order_is_read_again_in_batch() {
        let dir = std::env::temp_dir().join(format!("wm-fold-late-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let call = |id: String, at: u32, result: bool| {
            let (kind, block) = if result {
                (
                    "user",
                    format!(r#"{{"type":"tool_result","tool_use_id":"{id}"}}"#),
                )
            } else {
                (
                    "assistant",
                    format!(r#"{{"type":"tool_use","id":"{id}","name":"t"}}"#),
                )
            };
            format!(
                r#"{{"type":"{kind}","uuid":"{id}-{kind}","sessionId":"s","timestamp":"2025-01-01T00:{:02}:{:02}Z","message":{{"content":[{block}]}}}}"#,
                at / 60,
                at % 60
            )
        };
        let mut early = String::new();
        for index in 0..70u32 {
            early += &call(format!("c{index}"), 10 + 2 * index, false);
            early += "\n";
            early += &call(format!("c{index}"), 11 + 2 * index, true);
            early += "\n";
        }
        let late = format!(
            "{}\n{}\n",
            call("z".into(), 0, false),
            call("z".into(), 1, true)
        );
        std::fs::write(dir.join("a.jsonl"), early).unwrap();
        std::fs::write(dir.join("b.jsonl"), late).unwrap();
        let paths = [dir.join("a.jsonl"), dir.join("b.jsonl")];
        let fallbacks = ["a".to_string(), "b".to_string()];
        let group: Vec<FoldFile> = paths
            .iter()
            .zip(&fallbacks)
            .map(|(path, fallback)| FoldFile {
                path,
                claude_fallback: fallback,
                events_default: fallback,
            })
            .collect();
        let none: [String; 0] = [];
        let sniffers = Sniffers {
            event_types: &none,
            claude_only_types: &none,
        };
        let plain = read_claude_code(
            &[paths[0].as_path(), paths[1].as_path()],
            &fallbacks,
            &settings(),
        )
        .unwrap();
        assert!(plain.read_again_in_batch);
        assert_eq!(plain.lanes[0].summary.paired_calls, 71);
        for threads in [1, 2] {
            let out = fold_group(&group, &sniffers, &settings(), threads, 1 << 20);
            assert_eq!(out.found, vec![Some(Detected::ClaudeCode); 2]);
            assert_eq!(out.claude.as_ref(), Some(&plain), "threads {threads}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_split_read_equals_the_plain_read() {
        let dir = std::env::temp_dir().join(format!("wm-split-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files = [
            (
                "s1.jsonl",
                concat!(
                    r#"{"type":"assistant","uuid":"u1","sessionId":"s1","timestamp":"2025-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":"a","name":"Read"},{"type":"tool_use","id":"b","name":"Grep"}]}}"#,
                    "\n\n",
                    r#"{"type":"user","uuid":"x1","isSidechain":true,"parentUuid":null,"sessionId":"s1"}"#,
                    "\n"
                ),
            ),
            (
                "s2.jsonl",
                concat!(
                    r#"{"type":"assistant","uuid":"u1","sessionId":"s1","timestamp":"2025-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":"a","name":"Read"}]}}"#,
                    "\n",
                    r#"{"type":"user","uuid":"u3","sessionId":"s1","timestamp":"2025-01-01T00:00:02Z","message":{"content":[{"type":"tool_result","tool_use_id":"b"},{"type":"tool_result","tool_use_id":"b"}]}}"#,
                    "\n",
                    r#"{"type":"assistant","uuid":"x2","isSidechain":true,"parentUuid":"x1","timestamp":"2025-01-01T00:00:03Z","message":{"content":[{"type":"tool_use","id":"c","name":"Bash"}]}}"#,
                    "\n{bad\n",
                    r#"{"type":"system","subtype":"turn_duration","sessionId":"s1","durationMs":5}"#,
                    "\n",
                    r#"{"type":"user","uuid":"u9","forkedFrom":"s0"}"#,
                ),
            ),
            ("empty.jsonl", ""),
        ];
        let paths: Vec<std::path::PathBuf> = files
            .iter()
            .map(|(name, text)| {
                let path = dir.join(name);
                std::fs::write(&path, text).unwrap();
                path
            })
            .collect();
        let paths: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
        let fallbacks = vec!["f1".to_string(), "f2".to_string(), "f3".to_string()];
        let plain = read_claude_code(&paths, &fallbacks, &settings()).unwrap();
        assert_eq!(plain.lanes.len(), 3); // (s1, main), (s1, x1), (f2, x1)
        assert_eq!(plain.lanes[2].session_id, "f2");
        assert_eq!(plain.lanes[2].lane_id, "x1");
        assert_eq!(plain.accounts[1].lines_read, 6);
        assert_eq!(plain.accounts[1].lines_used, 3);
        // every budget: all files on workers, some, or none (the merging thread reads them)
        for budget in [0, 300, 1 << 20] {
            for threads in [1, 2, 3] {
                let split = with_fallback(&settings(), |s| {
                    read_claude_split(&paths, &fallbacks, s, threads, budget)
                })
                .unwrap();
                assert_eq!(split, plain, "budget {budget}, threads {threads}");
            }
        }
        let before = SPLIT_READS.load(Ordering::Relaxed);
        let on = read_claude_code_on(&paths, &fallbacks, &settings(), 2).unwrap();
        assert_eq!(on, plain);
        assert!(SPLIT_READS.load(Ordering::Relaxed) > before);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn fork_copies_are_replayed_before_uuid_deduplication() {
        let fork = r#"{"type":"assistant","uuid":"u1","forkedFrom":{"sessionId":"p"},"sessionId":"s","timestamp":"2025-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":"a","name":"Read"}]}}"#;
        let not_fork = r#"{"type":"summary","uuid":"u2","forkedFrom":{ }}"#;
        let out = claude("fork", &[fork, USE, not_fork]);
        let account = &out.accounts[0];
        assert_eq!(account.lines_used, 1); // the fork's copy did not take the uuid
        assert_eq!(
            account.ignored,
            vec![(b"replayed_lines".to_vec(), 1), (b"summary".to_vec(), 1)]
        );
    }

    #[test]
    fn server_tool_blocks_are_noted_not_calls() {
        let line = r#"{"type":"assistant","uuid":"u1","sessionId":"s","timestamp":"2025-01-01T00:00:00Z","message":{"content":[{"type":"server_tool_use","id":"s1","name":"web_search"},{"type":"web_search_tool_result"},{"type":"tool_result"}]}}"#;
        let out = claude("server", &[line]);
        let account = &out.accounts[0];
        assert_eq!(account.notes, vec![("server_tool_blocks", 2)]);
        assert_eq!(account.ignored, vec![(b"assistant".to_vec(), 1)]);
        assert_eq!(out.lanes[0].summary.observed_calls, 0);
    }

    #[test]
    fn control_characters_in_ids_are_invalid_ids() {
        let bad_session = r#"{"type":"user","sessionId":"s\u001b[2J"}"#;
        let bad_agent = r#"{"type":"user","sessionId":"s","agentId":"a\u0085"}"#;
        let bad_sidechain = r#"{"type":"user","sessionId":"s","isSidechain":true,"uuid":"\ud800"}"#;
        let bad_call = r#"{"type":"assistant","uuid":"u9","sessionId":"s","timestamp":"2025-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":"a\u007f","name":"Read"}]}}"#;
        let out = claude("ids", &[bad_session, bad_agent, bad_sidechain, bad_call]);
        let account = &out.accounts[0];
        assert_eq!(
            account.problems,
            vec![("invalid_id", 3), ("invalid_tool_record", 1)]
        );
    }

    #[test]
    fn lines_past_pythons_depth_are_too_deeply_nested_however_they_end() {
        // the line's object and 983 arrays (984 levels) are read; one more level is
        // too deeply nested whether the line is valid, broken or no object at all
        let deep = |n: usize, tail: &str| {
            format!(
                r#"{{"type":"x","a":{}{}{tail}"#,
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        let lines = [
            deep(983, "}"),
            deep(984, "}"),
            deep(984, ""),
            format!("{}{}", "[".repeat(985), "]".repeat(985)),
            deep(0, ""),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let account = &claude("deep", &refs).accounts[0];
        assert_eq!(
            account.problems,
            vec![("too_deeply_nested", 3), ("invalid_json", 1)]
        );
        assert_eq!(account.ignored, vec![(b"x".to_vec(), 1)]);
    }

    #[test]
    fn turn_durations_too_large_or_overflowing_are_problems() {
        let turn = |ms: &str| {
            format!(
                r#"{{"type":"system","subtype":"turn_duration","sessionId":"s","durationMs":{ms}}}"#
            )
        };
        let big_int = format!("1{}", "0".repeat(400));
        let lines = [
            turn(&big_int),
            turn("1e308"),
            turn("1e308"),
            turn("1e400"),
            turn("5"),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = claude("turns", &refs);
        let account = &out.accounts[0];
        assert_eq!(
            account.problems,
            vec![("invalid_duration", 1), ("turn_total_overflow", 1)]
        );
        assert_eq!(account.lines_used, 2);
        assert_eq!(account.ignored, vec![(b"system".to_vec(), 1)]);
        assert_eq!(
            out.lanes[0].summary.measured_turn_duration_ms_total,
            1e308 + 5.0
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
}
