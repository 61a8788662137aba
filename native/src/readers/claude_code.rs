//! The `claude-code` reader (`docs/formats.md`), line for line the rules of
//! `wavemetrics/readers/claude_code.py`: a project folder's transcripts read into
//! lanes, on one thread or parsed on several and merged in file order.

use super::lines::{
    check_turn_total, int_too_long, json_failure, msgspec_line_problem, split_line, Line, Names,
    Shape,
};
use super::protocol::{with_fallback, Failure, LaneOut, ReadError, Reader, Unit, UnitOut};
use crate::account::{is_short_identifier, LineAccount, OTHER_KINDS};
use crate::activity::Timing;
use crate::detect::QwenCheck;
use crate::io::open_input;
use crate::json::{parse_object_fast, RawBlock as Block, SyntaxError, Val, MAX_JSON_DEPTH};
use crate::lines::{is_py_space, LineReader};
use crate::parallel::ordered_pipeline;
use crate::summary::{BatchKey, LaneStream, Settings};
use crate::time::iso_to_ms;
use crate::uuids::{ArenaFull, CallIds, SeenUuids};
use hashbrown::HashMap;
use std::io::{self, Read};
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// The shape `claude_code.py`'s msgspec decoder (`ClaudeRecord`) decodes a line to:
/// its keys any value, `message` an object (not `null`) whose `content` is a list of
/// objects, a string or `null`.
const RECORD: [(&str, Shape); 11] = [
    ("type", Shape::Any),
    ("subtype", Shape::Any),
    ("uuid", Shape::Any),
    ("parentUuid", Shape::Any),
    ("isSidechain", Shape::Any),
    ("agentId", Shape::Any),
    ("sessionId", Shape::Any),
    ("timestamp", Shape::Any),
    ("durationMs", Shape::Any),
    ("forkedFrom", Shape::Any),
    (
        "message",
        Shape::Record {
            fields: &[
                ("id", Shape::Any),
                (
                    "content",
                    Shape::ListOrText(&[
                        ("type", Shape::Any),
                        ("id", Shape::Any),
                        ("name", Shape::Any),
                        ("tool_use_id", Shape::Any),
                    ]),
                ),
            ],
            null: false,
        },
    ),
];

/// The top-level values a Claude line is read by (message excluded), the
/// objects of its `message.content` (`_blocks` before its type filter) and its
/// `message.id`, in one pass.
type ClaudeLine<'a> = ([Val<'a>; 10], Vec<Block<'a>>, Val<'a>);

fn parse_claude_line(text: &str, limit: usize) -> Result<ClaudeLine<'_>, SyntaxError> {
    let mut v: [Val; 10] = Default::default();
    let message = parse_object_fast(
        text,
        limit,
        &CLAUDE_KEYS[..10],
        CLAUDE_KEYS[10],
        |i, raw| v[i] = Val::of(raw),
    )?;
    Ok(match message {
        Some(m) => (v, m.blocks, m.id),
        None => (v, Vec::new(), Val::Absent),
    })
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

pub(super) struct ClaudeFolder<'s> {
    settings: &'s Settings,
    eval_names: Rc<[String]>,
    batchable_names: Rc<[String]>,
    seen: SeenUuids,
    sidechain_roots: HashMap<Box<[u8]>, Box<str>>,
    lanes: Vec<ClaudeLane>,
    lane_index: HashMap<(Box<str>, Box<str>), usize>,
    last_lane: usize,
    names: Names,
}

/// A line's `system` record, as `_read_turn` decides it from the line alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Turn {
    /// A `turn_duration` whose integer is too large for a float: `invalid_duration`.
    TooLarge,
    /// A finite, positive `turn_duration` to add to the lane's total.
    Add(f64),
    /// Any other `system` line: ignored as `system`.
    Ignore,
}

/// A `user` or `assistant` line's blocks of its block type (`tool_result` or `tool_use`).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Tools<'v> {
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
    /// An assistant line's batch, when `at_ms` is known: its `message.id` when a
    /// non-empty string (`docs/formats.md`, "Batches").
    batch: Option<&'v [u8]>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum What<'v> {
    Turn(Turn),
    Tools(Tools<'v>),
}

/// A `user`, `assistant` or `system` line with valid ids.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Conv<'v> {
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
pub(super) enum Then<'v> {
    /// A record type other than `user`, `assistant` and `system`.
    Ignore(&'v [u8]),
    Problem(&'static str),
    Conv(Conv<'v>),
}

/// One physical line of a Claude Code file, decided as far as the line alone
/// decides it (`_read_line`); the rest (uuid de-duplication, sidechain roots,
/// lanes, call ids, the lane's turn total) is the folder's ([`ClaudeFolder::apply`]).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Rec<'v> {
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
fn claude_rec<'v>(v: &'v [Val<'_>; 10], all: &'v [Block<'_>], id: &'v Val<'_>) -> Rec<'v> {
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
                What::Tools(claude_tools(kind == b"assistant", stamp, all, id))
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

fn claude_tools<'v>(
    assistant: bool,
    stamp: &'v Val<'_>,
    all: &'v [Block<'_>],
    id: &'v Val<'_>,
) -> Tools<'v> {
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
    let batch = match (assistant, at_ms) {
        (true, Some(_)) => id.str_bytes().filter(|b| !b.is_empty()),
        _ => None,
    };
    Tools {
        assistant,
        server,
        blocks: count,
        at_ms,
        calls,
        batch,
    }
}

/// What detection sees of a line: `Some((type when a string, has a uuid key))` when
/// the line is a JSON object (`detect::sniff_line`), else `None`.
type Sniffed<'v> = Option<(Option<&'v [u8]>, bool, QwenCheck<'v>)>;

/// One physical line of a Claude Code file as a [`Rec`] (`_read_line`: blank,
/// undecodable, or its record), handed to `each` with what detection sees of it.
/// A line that parses for the reader is the same object for detection (the same
/// JSON rules decide, and the same last `type` and any `uuid` key are read); a line
/// the reader rejects before parsing (blank, not UTF-8, too deeply nested, not
/// starting with `{`) is no object for detection either (a trailing `\r` stripped
/// here is JSON whitespace there); a line the reader fails to parse is asked again.
pub(super) fn claude_line<F>(
    raw: &[u8],
    first: bool,
    has_newline: bool,
    each: F,
) -> Result<(), Failure>
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
                // msgspec refuses a line that is no object at once: json decides
                let reason = json_failure(text, MAX_JSON_DEPTH).unwrap_or("not_an_object");
                return each(Rec::Problem(cut(reason)), None);
            }
            // a line the scan reads within json's depth, with no int json refuses, is
            // read as both decoders read it (the one pass of the common line)
            let first = parse_claude_line(text, MAX_JSON_DEPTH);
            if let Ok((v, all, id)) = &first {
                if !int_too_long(text.as_bytes()) {
                    let qwen = QwenCheck::Line {
                        has_session: v[6] != Val::Absent,
                        text,
                    };
                    let seen = Some((v[0].str_bytes(), v[2] != Val::Absent, qwen));
                    return each(claude_rec(v, all, id), seen);
                }
            }
            // json refuses the line (an int past 4300 digits, or no JSON within the
            // limit): msgspec, tried first, may read the former (iter_records)
            let line = first;
            let problem = msgspec_line_problem(text, line.is_ok(), &RECORD);
            // what detection sees of it is asked again (its own json.loads)
            let sniffed = crate::detect::sniff_line(text.as_bytes());
            let seen = sniffed
                .as_ref()
                .map(|(kind, uuid, qwen)| (kind.as_deref(), *uuid, QwenCheck::Known(*qwen)));
            match (line, problem) {
                (Ok((v, all, id)), None) => each(claude_rec(&v, &all, &id), seen),
                (_, problem) => each(Rec::Problem(cut(problem.unwrap_or("invalid_json"))), seen),
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
pub(super) fn claude_recs_from<R: Read, F>(
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
const HAS_BATCH: u8 = 4;

/// The [`Rec`]s of one file, encoded: tags, LEB128 lengths and counts, the ids'
/// bytes, times as 8 bytes. A `sessionId` equal to the previous line's is one flag.
#[derive(Default)]
pub(super) struct Tape {
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

    pub(super) fn push(&mut self, rec: &Rec<'_>) {
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
                if tools.batch.is_some() {
                    flags |= HAS_BATCH;
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
                if let Some(batch) = tools.batch {
                    self.text(batch);
                }
            }
        }
    }

    /// Every [`Rec`] pushed, in order, to `each`.
    pub(super) fn replay<F>(&self, mut each: F) -> Result<(), Failure>
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
                let batch = match flags & HAS_BATCH {
                    0 => None,
                    _ => Some(self.bytes()?),
                };
                What::Tools(Tools {
                    assistant: flags & ASSISTANT != 0,
                    server,
                    blocks,
                    at_ms,
                    calls,
                    batch,
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
    pub(super) fn new(settings: &'s Settings) -> Self {
        ClaudeFolder {
            settings,
            eval_names: settings.eval_names.clone().into(),
            batchable_names: settings.batchable_names.clone().into(),
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
            out: LaneOut::opened(file, session_id.to_string(), lane_id.to_string()),
            stream: LaneStream::new(
                self.settings,
                self.eval_names.clone(),
                self.batchable_names.clone(),
            ),
            turn_total: 0.0,
            calls: CallIds::default(),
        });
        self.lane_index.insert(key, index);
        index
    }

    /// The folder's rules for one line of file `file`, in the reader's order:
    /// uuid de-duplication, sidechain roots, the lane, then its turn or its calls.
    pub(super) fn apply(
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
        let batch: Option<BatchKey> = tools.batch.map(Rc::from);
        for (call_id, name) in tools.calls.into_iter().flatten() {
            usable += 1;
            if tools.assistant {
                if remember(&mut lane.calls, call_id, STARTED)? {
                    account.note("repeated_tool_use", 1);
                    continue;
                }
                let name = self.names.get(name);
                lane.stream
                    .start(call_id.into(), name, at_ms, batch.clone());
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
    pub(super) fn finish(self, accounts: Vec<LineAccount>) -> Result<UnitOut, Failure> {
        let mut lanes = Vec::with_capacity(self.lanes.len());
        for lane in self.lanes {
            let total = check_turn_total(lane.turn_total)?;
            let finished = lane.stream.finish_lane(total, &[], Timing::Message);
            lanes.push(lane.out.finished(finished));
        }
        Ok(UnitOut {
            accounts,
            lanes,
            read_again_in_batch: false,
        })
    }
}

pub(super) fn read_claude_once(
    paths: &[&Path],
    fallback_ids: &[String],
    settings: &Settings,
) -> Result<UnitOut, Failure> {
    let mut folder = ClaudeFolder::new(settings);
    let mut accounts = Vec::with_capacity(paths.len());
    for (file, path) in paths.iter().enumerate() {
        let mut account = LineAccount::default();
        let fallback = fallback_ids.get(file).map_or("", String::as_str);
        claude_recs(open_input(path)?, |rec| {
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
pub(super) fn read_claude_split(
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
        claude_recs(open_input(paths[file])?, |rec| {
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
            None => claude_recs(open_input(paths[file])?, &mut each)?,
        }
        accounts.push(account);
        Ok::<(), Failure>(())
    })?;
    folder.finish(accounts)
}

/// The `claude-code` reader: a unit is the transcript files of one Claude Code
/// project folder, in order; `session_ids[i]` is the session id of file `i`'s lines
/// without `sessionId`. With two or more threads and files, the files are parsed
/// on worker threads and merged in file order on this one (uuid de-duplication,
/// sidechain roots, lanes, call ids, accounts): the same output as one thread.
pub struct ClaudeCode;

impl Reader for ClaudeCode {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        threads: usize,
    ) -> Result<UnitOut, ReadError> {
        let (paths, fallback_ids) = (unit.paths, unit.session_ids);
        with_fallback(settings, |s| {
            if threads < 2 || paths.len() < 2 {
                read_claude_once(paths, fallback_ids, s)
            } else {
                read_claude_split(paths, fallback_ids, s, threads, SPLIT_BUDGET)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::protocol::fixtures::{read_unit, settings, USE};
    use std::fs::File;
    use std::io::Write;

    fn claude(name: &str, lines: &[&str]) -> UnitOut {
        let path =
            std::env::temp_dir().join(format!("wm-native-{}-{name}.jsonl", std::process::id()));
        let mut file = File::create(&path).unwrap();
        for line in lines {
            writeln!(file, "{line}").unwrap();
        }
        drop(file);
        let out = read_unit(&ClaudeCode, &[&path], &["f"]);
        std::fs::remove_file(&path).unwrap();
        out
    }

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
            batch: Some(b"msg_\xff1"),
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
                    batch: None,
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
    fn the_split_read_equals_the_plain_read() {
        let dir = std::env::temp_dir().join(format!("wm-split-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files = [
            (
                "s1.jsonl",
                concat!(
                    r#"{"type":"assistant","uuid":"u1","sessionId":"s1","timestamp":"2025-01-01T00:00:00Z","message":{"id":"m1","content":[{"type":"tool_use","id":"a","name":"Read"},{"type":"tool_use","id":"b","name":"Grep"}]}}"#,
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
        let unit = Unit {
            paths: &paths,
            session_ids: &fallbacks,
        };
        let plain = ClaudeCode.read(&unit, &settings(), 1).unwrap();
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
        let on = ClaudeCode.read(&unit, &settings(), 2).unwrap();
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
    fn lines_past_the_limit_are_too_deeply_nested_however_they_end() {
        // msgspec reads the line's object and 499 arrays (500 levels, the one limit);
        // json, where msgspec refuses the line (a null message), the same 500 levels,
        // as for a line that is no object; one more level is too deeply nested whether
        // the line is valid, broken or no object at all
        let deep = |n: usize, more: &str, tail: &str| {
            format!(
                r#"{{"type":"x",{more}"a":{}{}{tail}"#,
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        let null = r#""message":null,"#;
        let lines = [
            deep(499, "", "}"),
            deep(500, "", "}"),
            deep(500, "", ""),
            deep(499, null, "}"),
            deep(500, null, "}"),
            format!("{}{}", "[".repeat(500), "]".repeat(500)),
            format!("{}{}", "[".repeat(501), "]".repeat(501)),
            deep(0, "", ""),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let account = &claude("deep", &refs).accounts[0];
        assert_eq!(
            account.problems,
            vec![
                ("too_deeply_nested", 4),
                ("not_an_object", 1),
                ("invalid_json", 1)
            ]
        );
        assert_eq!(account.ignored, vec![(b"x".to_vec(), 2)]);
    }

    #[test]
    fn an_int_json_refuses_is_read_where_msgspec_skips_it() {
        // more than 4300 digits: msgspec skips the value of a key it does not declare
        // (the line is read) and refuses it in one it decodes, as json refuses it
        let long = "9".repeat(4301);
        let lines = [
            format!(r#"{{"type":"x","z":{long}}}"#),
            format!(r#"{{"type":"x","message":{{"q":[{long}]}}}}"#),
            format!(r#"{{"type":"x","durationMs":{long}}}"#),
            format!(r#"{{"type":"x","message":{{"content":[{{"id":-{long}}}]}}}}"#),
            format!(r#"{{"type":"x","message":null,"z":{long}}}"#),
            format!(r#"{{"type":"x","z":"\ud800","y":{long}}}"#),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let account = &claude("long", &refs).accounts[0];
        assert_eq!(account.problems, vec![("invalid_json", 4)]);
        assert_eq!(account.ignored, vec![(b"x".to_vec(), 2)]);
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
    fn a_claude_call_s_batch_is_its_line_s_message_id() {
        // m1: t1 Read and t2 Grep on one line; m2: t3 and t4 on two lines of one
        // response; t5 (no message.id), t6 ("" ), t7 (5): no batch; m3: t8, and t1
        // again (a repeated tool_use: the first start, in m1, wins); a line repeating
        // uuid a1 is dropped with its call. All end at 3 s.
        let line = |uuid: &str, at: &str, message: &str| {
            format!(
                r#"{{"type":"assistant","uuid":"{uuid}","sessionId":"s","timestamp":"2025-01-01T00:00:0{at}Z","message":{message}}}"#
            )
        };
        let uses = |ids: &[&str]| {
            ids.iter()
                .map(|id| format!(r#"{{"type":"tool_use","id":"{id}","name":"Read"}}"#))
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut lines = vec![
            line(
                "a1",
                "0",
                &format!(r#"{{"id":"m1","content":[{}]}}"#, uses(&["t1", "t2"])),
            ),
            line(
                "a2",
                "1",
                &format!(r#"{{"content":[{}],"id":"m2"}}"#, uses(&["t3"])),
            ),
            line(
                "a3",
                "1",
                &format!(r#"{{"id":"m2","content":[{}]}}"#, uses(&["t4"])),
            ),
            line("a4", "2", &format!(r#"{{"content":[{}]}}"#, uses(&["t5"]))),
            line(
                "a5",
                "2",
                &format!(r#"{{"id":"","content":[{}]}}"#, uses(&["t6"])),
            ),
            line(
                "a6",
                "2",
                &format!(r#"{{"id":5,"content":[{}]}}"#, uses(&["t7"])),
            ),
            line(
                "a7",
                "2",
                &format!(r#"{{"id":"m3","content":[{}]}}"#, uses(&["t8", "t1"])),
            ),
            line(
                "a1",
                "2",
                &format!(r#"{{"id":"m9","content":[{}]}}"#, uses(&["t9"])),
            ),
        ];
        let results: Vec<String> = (1..=9)
            .map(|n| format!(r#"{{"type":"tool_result","tool_use_id":"t{n}"}}"#))
            .collect();
        lines.push(format!(
            r#"{{"type":"user","uuid":"r1","sessionId":"s","timestamp":"2025-01-01T00:00:03Z","message":{{"content":[{}]}}}}"#,
            results.join(",")
        ));
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = claude("message-ids", &lines);
        let s = &out.lanes[0].summary;
        // t9's result is an orphan: its line was a repeat
        assert_eq!((s.paired_calls, s.orphan_ends), (8, 1));
        assert_eq!((s.calls_without_batch, s.batched_turns), (3, 3));
        assert_eq!((s.multi_call_turns, s.max_turn_width.0), (2, 2));
        assert_eq!(s.turn_width_histogram, [1, 2, 0, 0, 0, 0, 0, 0]);
        // m3 alone after m2 (width 2): no run of single calls
        assert_eq!(s.missed_batch_runs, 0);
        // one wave [0, 3000]: busy 3000; span 0 to 3000; message times
        assert_eq!((s.lane_span_ms, s.tool_busy_ms), (3000.0, 3000.0));
        assert_eq!(
            (s.calls_timed_by_execution, s.calls_timed_by_message),
            (0, 8)
        );
    }

    #[test]
    fn single_read_turns_in_a_row_are_a_missed_batch_run() {
        // m1 Read [0, 1 s], m2 Read [1 s, 2 s], m3 Read [2 s, 3 s]: one run of 3, 2 round
        // trips, upper (3000 - 0) - 1000 = 2000
        let mut lines = Vec::new();
        for n in 0..3 {
            lines.push(format!(
                r#"{{"type":"assistant","uuid":"a{n}","sessionId":"s","timestamp":"2025-01-01T00:00:0{n}Z","message":{{"id":"m{n}","content":[{{"type":"tool_use","id":"t{n}","name":"Read"}}]}}}}"#
            ));
            lines.push(format!(
                r#"{{"type":"user","uuid":"r{n}","sessionId":"s","timestamp":"2025-01-01T00:00:0{}Z","message":{{"content":[{{"type":"tool_result","tool_use_id":"t{n}"}}]}}}}"#,
                n + 1
            ));
        }
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let s = &claude("serial", &lines).lanes[0].summary;
        assert_eq!(
            (
                s.missed_batch_runs,
                s.missed_batch_calls,
                s.missed_batch_round_trips
            ),
            (1, 3, 2)
        );
        assert_eq!(s.missed_batch_upper_ms, 2000.0);
        // the three calls touch: one wave, busy 3000
        assert_eq!((s.tool_busy_ms, s.idle_ms), (3000.0, 0.0));
    }
}
