"""The ``pi`` reader: pi coding-agent session files (``docs/formats.md``).

One lane, ``"main"``, keyed by the ``id`` of the ``{"type": "session"}``
header. A start is the line ``timestamp`` of a ``message`` line whose
``message.role`` is ``assistant`` and whose ``message.content`` holds
``toolCall`` blocks (``id``, ``name``). An end is the line ``timestamp`` of the
``message`` line with ``role == "toolResult"`` and that ``toolCallId``.
Observations are fed in file order; a call id's first start and first end
win, repeats are counted.

Calls of one message run one after another in pi up to v0.57.1 (``badlogic/
pi-mono``, ``executeToolCalls`` in ``packages/ai/src/agent/agent-loop.ts``, later
``packages/agent/src/agent-loop.ts``: a ``for`` loop that awaits
``tool.execute`` for each call), and in parallel by default from v0.58.0
(commit ``63ac2df2``, 2026-03-14T02:09:20Z: ``executeToolCallsParallel``,
``toolExecution`` defaulting to ``"parallel"``). The file records one time for
all the calls of a message, so the reader rebuilds sequential starts where pi
ran them sequentially (:func:`sequential_message`): the first call starts at
the message's time, each next one when the result of the one before it is
written (``notes["reconstructed_starts"]`` counts them). Elsewhere (a v3 file,
the format of pi v0.35.0 and later, at or after that instant) all the calls of
a message start at its time. A call still waiting for its turn when the next
tool-call message comes, or the input ends, starts at the time of the call
before it (its predecessor never ended); a result that comes out of turn
starts every waiting call of its message at that time first.

Choices where the spec is silent:

- The first header with a non-empty ``id`` names the session; later headers
  are ignored (``"repeated_session"``). With no header the session id is the
  UUID that ends the file name (``<time>_<uuid>.jsonl``), else the file name
  without suffixes (``notes["session_id_from_file_name"]``).
- Times are the line ``timestamp`` (ISO-8601 with ``Z`` or an offset), never
  the inner ``message.timestamp`` (Unix ms, when the message *started*); a bad
  line time is a problem only on tool lines, where it is used.
- A ``toolCall`` block without ``id`` or ``name`` is skipped
  (``notes["invalid_tool_blocks"]``); a line with no usable block is
  ``invalid_tool_record``. A repeated call id in a start line is
  ``notes["repeated_tool_call"]``, and a line whose calls were all seen before
  is ignored (``"repeated_tool_record"``); a repeated result line is ignored
  (``"repeated_tool_result"``).
- v2/v3 ``id``/``parentId`` branches are not followed: file order is kept.
- Forks (``/fork``, v3; ``docs/formats.md``): a file whose header names a parent
  (``parentSession``, ``branchedFrom``: a path or a session id) may begin with
  copies of the parent's entries (same ``id`` and ``timestamp``). The files of
  one folder are read together (:func:`read_pi_folder`): parents before their
  forks, and an entry of a fork whose ``(id, timestamp)`` was already read in
  the folder is ignored as ``duplicate_entry``. Keying on the timestamp too
  (*choice*) keeps unrelated sessions apart, whose 8-hex-digit entry ids can
  collide in a large folder. A fork read without its parent keeps its entries.
- ``measured_turn_duration_ms_total`` is 0 (the spec names no turn source).
- Batches: the calls of one assistant ``message`` line (its ``toolCall`` blocks) are
  one batch, keyed by the line's number among the lane's tool-call lines; a
  sequential message's reconstructed starts keep it.
- Other lines are ignored by ``type``, other messages as ``"message.<role>"``
  (``bashExecution`` is a user's ``!cmd``, not a tool call).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import PurePath
from typing import Any

import attrs

from wavemetrics.core.activity import Timing
from wavemetrics.readers._lines import (
    LineAccount,
    account_tool_line,
    bad_id,
    iter_records,
    os_text,
    usable_id,
    usable_text,
)
from wavemetrics.readers._protocol import ObservationSink, Peek
from wavemetrics.readers._record_types import PI_HEADER, PI_MESSAGE
from wavemetrics.readers.lanes import LaneBuilder, finish_single_lane
from wavemetrics.readers.sources import STDIN, Source, head_records
from wavemetrics.readers.timestamps import iso_to_ms

__all__ = [
    "PARALLEL_SINCE_MS", "PARENT_KEYS", "PI", "PiReader", "read_pi", "read_pi_folder",
    "reading_order", "sequential_message", "sniff_pi",
]

FORMAT = "pi"


def _line_ms(record: dict[str, Any]) -> float | None:
    stamp = record.get("timestamp")
    return iso_to_ms(stamp) if isinstance(stamp, str) else None


#: 2026-03-14T02:09:20Z (Unix ms): the commit of ``badlogic/pi-mono`` (``63ac2df2``, first
#: released in v0.58.0) that made pi run the tool calls of one message in parallel.
PARALLEL_SINCE_MS = 1_773_454_160_000.0


def sequential_message(version: int | None, at_ms: float) -> bool:
    """Whether pi ran the tool calls of a message one after another: the session
    header's format ``version`` (``None`` when absent: v1) and the message's line time.

    v1 and v2 files were last written by pi before v0.35.0 (opening a file
    migrates it to the current format and rewrites it): sequential. A v3 file (pi
    v0.35.0 and later) is sequential for a message written before
    :data:`PARALLEL_SINCE_MS`; at or after it, pi v0.58.0 and later run the calls
    in parallel by default, which the file cannot tell from an older pi: the calls
    start together, as recorded.

    >>> sequential_message(None, PARALLEL_SINCE_MS), sequential_message(3, PARALLEL_SINCE_MS)
    (True, False)
    """
    return version is None or version < 3 or at_ms < PARALLEL_SINCE_MS


@attrs.define
class _Chain:
    """The calls of one sequential message: ``waiting`` (id, name) have not started;
    ``running`` has started and its result starts the next; ``at_ms`` is its start;
    ``batch``: the message's batch key."""

    waiting: list[tuple[str, str]]
    running: str
    at_ms: float
    batch: str


@attrs.define
class _Session:
    lane: LaneBuilder
    account: LineAccount
    session_id: str | None = None
    version: int | None = None  # the header's format version (None: v1, no key)
    chain: _Chain | None = None
    messages: int = 0  # tool-call message lines read: the last one's batch key


def _read_header(record: dict[str, Any], state: _Session) -> None:
    if state.session_id is not None:
        state.account.ignore("repeated_session")
        return
    session_id = usable_id(record.get("id"))
    if bad_id(record.get("id")):  # never replaced by the file name (docs/formats.md)
        state.account.problem("invalid_id")
        return
    if session_id is None:
        state.account.problem("invalid_session_header")
        return
    state.session_id = session_id
    version = record.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        state.version = version
    state.account.use()


def _start_waiting(state: _Session) -> None:
    """Start the calls of the open chain still waiting, at the start of the call before
    them (their predecessor has no result yet), and close the chain."""
    chain, state.chain = state.chain, None
    if chain is not None:
        for call_id, name in chain.waiting:
            state.lane.start(call_id, name, chain.at_ms, chain.batch)


def _read_calls(record: dict[str, Any], content: object, state: _Session) -> None:
    account, lane = state.account, state.lane
    blocks = [
        block for block in (content if isinstance(content, list) else ())
        if isinstance(block, dict) and block.get("type") == "toolCall"
    ]
    if not blocks:
        account.ignore("message.assistant")
        return
    at_ms = _line_ms(record)
    if at_ms is None:
        account.problem("invalid_timestamp")
        return
    _start_waiting(state)
    state.messages += 1
    batch = str(state.messages)  # the message that issued the line's calls
    usable = 0
    fresh: dict[str, str] = {}
    for block in blocks:
        call_id, name = usable_id(block.get("id")), usable_text(block.get("name"))
        if call_id is None or name is None:
            continue
        usable += 1
        if call_id in lane.start_names or call_id in fresh:
            account.note("repeated_tool_call")
            continue
        fresh[call_id] = name
    calls = list(fresh.items())
    if len(calls) > 1 and sequential_message(state.version, at_ms):
        (first, name), *waiting = calls
        lane.start(first, name, at_ms, batch)
        state.chain = _Chain(waiting, first, at_ms, batch)
    else:
        for call_id, name in calls:
            lane.start(call_id, name, at_ms, batch)
    account_tool_line(account, len(blocks), usable, len(calls))


def _read_result(record: dict[str, Any], message: dict[str, Any], state: _Session) -> None:
    account, lane = state.account, state.lane
    call_id = usable_id(message.get("toolCallId"))
    if call_id is None:
        account.problem("invalid_tool_record")
        return
    at_ms = _line_ms(record)
    if at_ms is None:
        account.problem("invalid_timestamp")
        return
    if call_id in lane.ended:
        account.ignore("repeated_tool_result")
        return
    chain = state.chain
    if chain is not None and any(call_id == waiting for waiting, _ in chain.waiting):
        _start_waiting(state)  # out of turn: not run one after another as recorded
        chain = None
    lane.ended.add(call_id)
    lane.end(call_id, at_ms)
    if chain is not None and call_id == chain.running:
        next_id, name = chain.waiting.pop(0)
        lane.start(next_id, name, at_ms, chain.batch)  # when the call before it ended
        account.note("reconstructed_starts")
        chain.running, chain.at_ms = next_id, at_ms
        if not chain.waiting:
            state.chain = None
    account.use()


def _entry_key(record: dict[str, Any]) -> tuple[str, str] | None:
    """``(id, timestamp)`` of an entry (any line but the session header), if it has an id."""
    entry_id = usable_text(record.get("id"))
    if entry_id is None or record.get("type") == "session":
        return None
    stamp = record.get("timestamp")
    return entry_id, stamp if isinstance(stamp, str) else ""


def read_pi(
    lines: Iterable[bytes],
    *,
    path: str,
    sink: ObservationSink,
    entries: set[tuple[str, str]] | None = None,
    fork: bool = False,
) -> LineAccount:
    """Read one pi session file into its single lane of ``sink`` (none for an input
    with no records); returns the line account.

    ``lines``: raw physical lines. Problems: ``missing_type``,
    ``invalid_session_header``, ``invalid_payload`` (a ``message`` line whose
    ``message`` is not an object), ``invalid_tool_record``,
    ``invalid_timestamp``. ``entries``: the ``(id, timestamp)`` keys of entries
    already read in the folder, extended with this file's; with ``fork``, an
    entry found there is ignored as ``duplicate_entry``. Never raises for bad data.
    """
    reader = PiReader(path, sink, LineAccount(), entries=entries, fork=fork)
    reader.read(lines)
    reader.finish()
    return reader.state.account


class PiReader:
    """The state of :func:`read_pi` between lines, so that a session file can be read
    in pieces.

    ``state``: the session (its lane, account and session id); ``seen``: whether any
    record was read; ``entries`` and ``fork`` as for :func:`read_pi`. The account is
    exact after every line. ``session_id``: the lane's session id whatever a header
    says (a store that keys its sessions itself: ``openclaw``); ``version``: the
    format version assumed until a header gives one (``None``: v1).
    """

    def __init__(
        self, path: str, sink: ObservationSink, account: LineAccount, *,
        entries: set[tuple[str, str]] | None = None, fork: bool = False,
        session_id: str | None = None, version: int | None = None,
    ) -> None:
        self.path, self.entries, self.fork = path, entries, fork
        self.state = _Session(LaneBuilder(path, "", "main", sink=sink), account)
        self.state.version = version
        #: The session the lane is named by whatever the header says (a store's key).
        self.session_id = session_id
        self.seen = False

    def read(self, lines: Iterable[bytes]) -> None:
        """Read ``lines`` (raw physical lines) on from the state left by earlier pieces."""
        state, entries, fork = self.state, self.entries, self.fork
        account = state.account
        for record in iter_records(lines, account):
            self.seen = True
            kind = record.get("type")
            key = _entry_key(record) if entries is not None else None
            if key is not None and entries is not None:
                if fork and key in entries:
                    account.ignore("duplicate_entry")
                    continue
                entries.add(key)
            if not isinstance(kind, str):
                account.problem("missing_type")
            elif kind == "session":
                _read_header(record, state)
            elif kind != "message":
                account.ignore(kind)
            elif not isinstance(message := record.get("message"), dict):
                account.problem("invalid_payload")
            elif (role := message.get("role")) == "assistant":
                _read_calls(record, message.get("content"), state)
            elif role == "toolResult":
                _read_result(record, message, state)
            else:
                account.ignore(f"message.{role}" if isinstance(role, str) else "message")

    @property
    def waiting(self) -> bool:
        """Whether calls of a sequential message are still waiting for their start (a
        later result decides it: see the module doc)."""
        return self.state.chain is not None

    def finish(self) -> None:
        """Close the lane (the input is over), if any record was read; calls still waiting
        start at the start of the call before them."""
        _start_waiting(self.state)
        if self.seen:  # a lane opened and never closed is not reported
            finish_single_lane(self.state.lane, self.session_id or self.state.session_id,
                               self.path, self.state.account)


#: Header keys that name the session a fork was made from (a file path or a session id).
PARENT_KEYS = ("parentSession", "branchedFrom")
_HEADER_LINES = 16


@attrs.frozen
class _Header:
    session_id: str | None
    parent: str | None


def _header(source: Source) -> _Header:
    """The session id and parent reference of a file's ``session`` header (first lines;
    peeked, so an input that can be read only once loses nothing)."""
    for record in iter_records(source.peek(_HEADER_LINES), LineAccount()):
        if record.get("type") == "session":
            parent = next((text for key in PARENT_KEYS
                           if (text := usable_text(record.get(key))) is not None), None)
            return _Header(usable_text(record.get("id")), parent)
    return _Header(None, None)


def _parent_path(reference: str, headers: dict[str, _Header]) -> str | None:
    """The file of the folder a parent reference names: same file name, or that session id."""
    name = PurePath(reference.replace("\\", "/")).name
    for path, header in headers.items():
        if PurePath(os_text(path)).name == name or header.session_id == reference:
            return path
    return None


def _parents_first(paths: Sequence[str], headers: dict[str, _Header]) -> list[str]:
    """``paths`` ordered so that every parent in the folder comes before its forks; otherwise
    in the given order (a reference cycle in bad data is broken where it is met)."""
    order: list[str] = []
    placed: set[str] = set()
    for path in paths:
        chain: list[str] = []
        node: str | None = path
        while node is not None and node not in placed and node not in chain:
            chain.append(node)
            parent = headers[node].parent
            node = None if parent is None else _parent_path(parent, headers)
        for item in reversed(chain):
            placed.add(item)
            order.append(item)
    return order


def read_pi_folder(sources: Sequence[Source], sink: ObservationSink) -> list[LineAccount]:
    """Read the pi session files of one folder into ``sink``: parents before forks,
    copies ignored.

    Lanes are opened in reading order (parents first, else by path); returns one
    account per source, in the order of ``sources``. Never raises for bad data.
    """
    by_path = {source.path: source for source in sources}
    entries: set[tuple[str, str]] = set()
    accounts: dict[str, LineAccount] = {}
    order, forks = reading_order(sources)
    for path in order:
        accounts[path] = read_pi(
            by_path[path].lines(), path=path, sink=sink, entries=entries, fork=forks[path],
        )
    return [accounts[source.path] for source in sources]


def reading_order(sources: Sequence[Source]) -> tuple[list[str], dict[str, bool]]:
    """The paths of one folder's ``sources`` in the order :func:`read_pi_folder` reads
    them (parents before their forks, else as given), and per path whether it is read
    as a fork (its header names a parent), from each file's first lines."""
    headers = {source.path: _header(source) for source in sources}
    order = _parents_first([source.path for source in sources], headers)
    return order, {path: header.parent is not None for path, header in headers.items()}


def sniff_pi(peek: Peek) -> bool:
    """Whether the first lines hold a pi session header (``type == "session"`` with
    an ``id``) or a ``message`` line whose ``message`` has a ``role``.

    A file that opens with a ``session_start`` line is Droid's, whose ``message``
    lines look like pi's but carry Anthropic-style blocks: not pi (it is recognised
    and refused, ``docs/formats.md``, "Agents recognised but not measured")."""
    for index, record in enumerate(peek.records):
        kind = record.get("type")
        if index == 0 and kind == "session_start":
            return False
        if kind == PI_HEADER and isinstance(record.get("id"), str) and "timestamp" in record:
            return True
        message = record.get("message")
        if kind == PI_MESSAGE and isinstance(message, dict) and "role" in message:
            return True
    return False


@attrs.frozen
class _Pi:
    """The ``pi`` format: the session files of one folder are read together (forks)."""

    name: str = FORMAT
    streamable: bool = True
    timing: Timing = "message"

    def sniff(self, peek: Peek) -> bool:
        return sniff_pi(peek)

    def unit_key(self, path: str) -> str:
        # a fork is read after its parent, and its copies are de-duplicated, within a
        # folder (docs/formats.md); stdin and other pipes are read alone
        if path == STDIN or not os.path.isfile(path):
            return path
        return os.path.dirname(os.path.abspath(path))

    def read(self, sources: Sequence[Source], sink: ObservationSink) -> list[LineAccount]:
        return read_pi_folder(sources, sink)


def session_cwd(path: str) -> str | None:
    """The ``cwd`` of the session header line (first lines), or ``None``: its project
    for ``summarize --by project`` (the registry row's rule; each session file, fork or
    parent, by its own header, not the folder it is read with)."""
    for record in head_records(path):
        if record.get("type") == "session":
            return usable_text(record.get("cwd"))
    return None


#: The ``pi`` format (``docs/formats.md``).
PI = _Pi()
