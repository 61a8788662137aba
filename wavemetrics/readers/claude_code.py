"""The ``claude-code`` reader: Claude Code session transcripts (``docs/formats.md``).

One call reads a whole project folder's files together, because resumed
sessions copy earlier lines (same ``uuid``) into new files there and
sub-agent files are lanes of their parent session.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs
import msgspec

from wavemetrics.core.activity import Timing
from wavemetrics.inputs._files import fallback_session_id
from wavemetrics.readers._lines import (
    LineAccount,
    Record,
    account_tool_line,
    bad_id,
    iter_records,
    usable_id,
    usable_text,
)
from wavemetrics.readers._protocol import LiveReading, ObservationSink, Peek
from wavemetrics.readers._record_types import CLAUDE_ONLY_TYPES
from wavemetrics.readers._seen import SeenIds
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.readers.sources import STDIN, Source, project_folder
from wavemetrics.readers.timestamps import iso_to_ms

__all__ = [
    "CLAUDE_CODE",
    "CLAUDE_ONLY_TYPES",
    "LIVE",
    "ClaudeFile",
    "ClaudeFolder",
    "fallback_session_id",
    "read_claude_code",
    "read_claude_lines",
]

FORMAT = "claude-code"
_CONVERSATION = ("user", "assistant", "system")



class _Block(Record, frozen=True):
    type: Any = msgspec.UNSET
    id: Any = msgspec.UNSET
    name: Any = msgspec.UNSET
    tool_use_id: Any = msgspec.UNSET


class _Message(Record, frozen=True):
    id: Any = msgspec.UNSET
    content: list[_Block] | str | msgspec.UnsetType | None = msgspec.UNSET


class ClaudeRecord(Record, frozen=True):
    """The keys of a transcript line this reader looks at; the text is skipped unbuilt.

    A line whose ``message`` or blocks have another shape is parsed by the stdlib
    path instead (same records, ``_lines.iter_records``).
    """

    type: Any = msgspec.UNSET
    subtype: Any = msgspec.UNSET
    uuid: Any = msgspec.UNSET
    parentUuid: Any = msgspec.UNSET
    isSidechain: Any = msgspec.UNSET
    agentId: Any = msgspec.UNSET
    sessionId: Any = msgspec.UNSET
    timestamp: Any = msgspec.UNSET
    durationMs: Any = msgspec.UNSET
    forkedFrom: Any = msgspec.UNSET
    message: _Message | msgspec.UnsetType = msgspec.UNSET


_DECODER = msgspec.json.Decoder(ClaudeRecord)


@attrs.frozen
class ClaudeFile:
    """One transcript file of a project folder: its display path and a line opener."""

    path: str
    open_lines: Callable[[], Iterable[bytes]]


@attrs.define
class ClaudeFolder:
    """What reading a project folder remembers between lines: the line ``uuid`` values seen
    (compact keys), each inline sub-agent line's chain root, and the open lanes by
    ``(session_id, lane_id)`` in order of opening. The status line's live state
    (:mod:`wavemetrics.cache.live`) saves and restores it to read a grown transcript on from
    where it ended."""

    sink: ObservationSink
    seen_uuids: SeenIds = attrs.field(factory=SeenIds)  # exact, compact keys (_seen.py)
    sidechain_roots: dict[str, str] = attrs.field(factory=dict)
    lanes: dict[tuple[str, str], LaneBuilder] = attrs.field(factory=dict)

    def lane_id(self, record: ClaudeRecord, uuid: str | None) -> str:
        agent = _id(record.agentId)
        if agent is not None:
            return agent
        if record.isSidechain is True and uuid is not None:
            return self.sidechain_roots.get(uuid, uuid)
        return "main"

    def note_sidechain(self, record: ClaudeRecord, uuid: str | None) -> None:
        # Inline sub-agents (1.0.x): the lane is the root of the parentUuid chain.
        if record.isSidechain is not True or uuid is None:
            return
        parent = record.parentUuid
        root = self.sidechain_roots.get(parent, uuid) if isinstance(parent, str) else uuid
        self.sidechain_roots.setdefault(uuid, root)


_FIELDS = ClaudeRecord.__struct_fields__


def _as_claude(record: Any) -> ClaudeRecord:
    """A line parsed by the stdlib (a dict) as the typed record the reader reads;
    ``message`` keeps whatever shape it had (the block rules check it)."""
    return ClaudeRecord(**{key: record[key] for key in _FIELDS if key in record})


def _blocks(record: ClaudeRecord, block_type: str) -> tuple[list[Any], int]:
    """The line's content blocks of ``block_type``, and (for ``tool_use``) how many blocks
    are server-side tools (``server_tool_use`` and their ``*_tool_result``): those run in
    the model's service, not the harness, so they are not calls (``docs/formats.md``)."""
    message = record.message
    content = message.get("content") if isinstance(message, (dict, Record)) else None
    found: list[Any] = []
    server = 0
    if not isinstance(content, list):
        return found, server
    for block in content:
        if not isinstance(block, (dict, Record)):
            continue
        kind = block.get("type")
        if kind == block_type:
            found.append(block)
        elif block_type == "tool_use" and isinstance(kind, str) and (
            kind == "server_tool_use" or (kind.endswith("_tool_result") and kind != "tool_result")
        ):
            server += 1
    return found, server


def _batch(record: ClaudeRecord) -> str | None:
    """The batch key of an assistant line's calls: its ``message.id`` (the lines of one
    response share it), ``None`` unless a non-empty string (``docs/formats.md``,
    ``claude-code``, "Batches")."""
    message = record.message
    key = message.get("id") if isinstance(message, (dict, Record)) else None
    return key if isinstance(key, str) and key else None


def _is_fork_copy(record: ClaudeRecord) -> bool:
    """Whether a line is a fork's copy of another session's history (``forkedFrom``)."""
    fork = record.forkedFrom
    return fork is not msgspec.UNSET and fork is not None and fork != "" and fork != {}


def _id(value: Any) -> str | None:
    # usable_id, inlined for the common case of a printable ASCII string
    if value.__class__ is str and value and value.isascii() and value.isprintable():
        return value
    return usable_id(value)


def _suspect(value: Any) -> bool:
    # bad_id, with the common cases (absent, printable ASCII) decided inline
    if value.__class__ is not str or not value or (value.isascii() and value.isprintable()):
        return False
    return bad_id(value)


def _read_line(record: ClaudeRecord, folder: ClaudeFolder, account: LineAccount, path: str) -> None:
    kind = record.type
    if not isinstance(kind, str):
        account.problem("missing_type")
        return
    if _is_fork_copy(record):
        # /branch and forkSession copy the parent's lines (with its uuids for /branch):
        # checked before the uuid de-duplication, so neither file order nor a missing
        # parent decides which copy is used.
        account.ignore("replayed_lines")
        return
    raw_uuid = record.uuid
    if isinstance(raw_uuid, str) and raw_uuid and not folder.seen_uuids.add(raw_uuid):
        account.ignore("duplicate_uuid")
        return
    if kind not in _CONVERSATION:
        account.ignore(kind)
        return
    raw_session = record.sessionId
    if _suspect(raw_session) or _suspect(record.agentId) or (
        record.isSidechain is True and _suspect(raw_uuid)
    ):  # never moved to a default lane or session (docs/formats.md)
        account.problem("invalid_id")
        return
    uuid = _id(raw_uuid)
    folder.note_sidechain(record, uuid)
    session_id = _id(raw_session) or fallback_session_id(path)
    key = (session_id, folder.lane_id(record, uuid))
    lane = folder.lanes.get(key)
    if lane is None:
        lane = folder.lanes[key] = LaneBuilder(path, *key, sink=folder.sink)
    if kind == "system":
        _read_turn(record, lane, account)
        return
    block_type = "tool_use" if kind == "assistant" else "tool_result"
    blocks, server = _blocks(record, block_type)
    if server:
        account.note("server_tool_blocks", server)
    if not blocks:
        account.ignore(kind)
        return
    stamp = record.timestamp
    at_ms = iso_to_ms(stamp) if isinstance(stamp, str) else None
    if at_ms is None:
        account.problem("invalid_timestamp")
        return
    fed = usable = 0
    batch = _batch(record) if kind == "assistant" else None
    for block in blocks:
        if kind == "assistant":
            call_id, name = usable_id(block.get("id")), usable_text(block.get("name"))
            if call_id is None or name is None:
                continue
            usable += 1
            if call_id in lane.start_names:
                account.note("repeated_tool_use")
                continue
            lane.start(call_id, name, at_ms, batch)
        else:
            call_id = usable_id(block.get("tool_use_id"))
            if call_id is None:
                continue
            usable += 1
            if call_id in lane.ended:
                account.note("repeated_tool_result")
                continue
            lane.ended.add(call_id)
            lane.end(call_id, at_ms)
        fed += 1
    account_tool_line(account, len(blocks), usable, fed)


def _read_turn(record: ClaudeRecord, lane: LaneBuilder, account: LineAccount) -> None:
    """A ``turn_duration`` line adds its finite, positive ``durationMs`` to the lane.

    An integer too large for a float (400 digits) is ``invalid_duration``; a
    duration that would overflow the lane's total to infinity (three of 1e308)
    is ``turn_total_overflow`` and is not added (``docs/formats.md``, "Limits
    and hostile input"). Other ``system`` lines are ignored.
    """
    duration = record.durationMs
    if (
        record.subtype != "turn_duration"
        or not isinstance(duration, (int, float))
        or isinstance(duration, bool)
    ):
        account.ignore("system")
        return
    try:
        ms = float(duration)
    except OverflowError:
        account.problem("invalid_duration")
        return
    if not (math.isfinite(ms) and ms > 0):
        account.ignore("system")
        return
    total = lane.turn_total_ms + ms
    if not math.isfinite(total):
        account.problem("turn_total_overflow")
        return
    lane.turn_total_ms = total
    account.use()


def read_claude_code(files: Sequence[ClaudeFile], sink: ObservationSink) -> list[LineAccount]:
    """Read the transcript files of one project folder into lanes of ``sink``.

    ``files`` are read in the given order (the CLI sorts them by path), lines in
    file order. A line carrying ``forkedFrom`` (a ``/branch`` or ``forkSession``
    copy of another session's history) is ignored as ``replayed_lines`` before
    anything else, so figures do not depend on file order and a fork read without
    its parent keeps only its own lines. Server-side tool blocks
    (``server_tool_use``, ``web_search_tool_result``, ...) are not calls:
    ``notes["server_tool_blocks"]``. Lines are de-duplicated by ``uuid`` across
    all ``files``; within a lane a call id's first start and first end win (repeats are counted in
    ``notes``). Lanes: ``agentId``, else the parentUuid-chain root of an
    ``isSidechain`` line, else ``"main"``; keyed with the line's ``sessionId``.
    A start's batch is its line's ``message.id``. Lanes are opened in order of first
    appearance and closed at the end.
    Returns one account per file.
    """
    folder = ClaudeFolder(sink)
    accounts = []
    for file in files:
        account = LineAccount()
        read_claude_lines(folder, file.path, file.open_lines(), account)
        accounts.append(account)
    for lane in folder.lanes.values():
        lane.build()
    return accounts


def read_claude_lines(
    folder: ClaudeFolder, path: str, lines: Iterable[bytes], account: LineAccount
) -> None:
    """Read one file's raw ``lines`` (the first of them taken as the file's first line:
    a BOM there is dropped) into ``folder``, each line accounted in ``account``: the
    per-file step of :func:`read_claude_code`, whose lanes are then built by the caller."""
    for record in iter_records(lines, account, _DECODER):
        typed = record if record.__class__ is ClaudeRecord else _as_claude(record)
        _read_line(typed, folder, account, path)


def _record_type(record: dict[str, Any]) -> str | None:
    # A "type" that is a list or object must not reach a set lookup (unhashable).
    kind = record.get("type")
    return kind if isinstance(kind, str) else None


def sniff_claude_code(peek: Peek) -> bool:
    """Whether a first record has a Claude-only ``type``, or a conversation
    ``type`` (user, assistant, system) with a ``uuid``."""
    for record in peek.records:
        kind = _record_type(record)
        if kind in CLAUDE_ONLY_TYPES:
            return True
        if kind in _CONVERSATION and "uuid" in record:
            return True
    return False


@attrs.frozen
class _ClaudeCode:
    """The ``claude-code`` format: files are read together per project folder."""

    name: str = FORMAT
    streamable: bool = True
    timing: Timing = "message"

    def sniff(self, peek: Peek) -> bool:
        return sniff_claude_code(peek)

    def unit_key(self, path: str) -> str:
        # uuid de-duplication and sub-agent lanes span a project folder (docs/formats.md)
        return path if path == STDIN else project_folder(path)

    def read(self, sources: Sequence[Source], sink: ObservationSink) -> list[LineAccount]:
        return read_claude_code([ClaudeFile(s.path, s.lines) for s in sources], sink)


#: The ``claude-code`` format (``docs/formats.md``).
CLAUDE_CODE = _ClaudeCode()
#: The status line's live reading of a transcript (the registry row's ``live``).
LIVE = LiveReading(folder=ClaudeFolder, read_lines=read_claude_lines)
