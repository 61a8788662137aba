"""The ``mcode`` reader: MiniMax Code's ``mcode exec --output-format stream-json`` stream.

Rules: ``docs/formats.md``, section "mcode". The stream is JSON Lines, one
event per line, each with the envelope ``schemaVersion`` (1), ``sequence``,
``timestampMs`` (integer epoch ms), ``runId``, ``sessionId``, ``turnId`` and
``type``. A file may hold several runs (a bench runner appending one stream
per ``mcode exec``): a line whose ``sequence`` is 1 starts a new run. Every
session (``sessionId``) is one lane, ``"main"``; the runs of one session share it.

A tool call is an item of ``type == "tool_call"`` (call id ``item.id``, name
``toolCall.name``). Its start is the ``timestampMs`` of the first
``item.started``/``item.updated`` line on which ``toolCall.status`` is 1
(``"started"``/``"running"``), its end the first with status 2 or 3
(``"completed"``/``"finished"``, ``"failed"``/``"error"``). Statuses 4 and 5
(arguments still streaming, streamed) are not execution, and ``item.completed``
(sent for a whole message once its slowest call has ended) is never a start or
an end. A call that ends without a start is counted (ignored
``end_without_start``: a call refused before it ran), an ``item.completed``
for an id no earlier line named is a replay (ignored ``replayed_items``).

Envelope checks, counted and never fatal: problems ``unknown_schema_version``,
``duplicate_sequence`` (a ``sequence`` not above the run's last),
``foreign_run_line`` (``runId``/``sessionId``/``turnId`` other than the run's
first line's), ``after_terminal``, ``duplicate_terminal``; notes
``sequence_gap`` (lines missing), ``truncated`` (runs with no
``exec.completed``) and ``run_status.<status>`` (runs by
``exec.completed.result.status``). A turn runs from ``turn.started`` to
``turn.completed``/``turn.failed`` of one run (``timestampMs``, ms).

Batches (``docs/formats.md``, "mcode", "Batches"): a burst of ``item.completed``
lines of ``tool_call`` items, with only ``agent_message``/``reasoning`` ones between
them, closes one assistant message; its calls are one batch. A call's start is read
before its ``item.completed``, so the lanes keep their observations and a start gets
its burst's key when its first ``item.completed`` is read; a call with none has no
batch.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import attrs
import msgspec

from wavemetrics.core.observations import Observation
from wavemetrics.readers._lines import (
    LineAccount,
    Record,
    bad_id,
    is_object,
    iter_records,
    usable_id,
    usable_text,
)
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.readers.sources import Source

__all__ = ["MCODE", "RUN_TYPES", "read_mcode", "sniff_mcode"]

FORMAT = "mcode"
SCHEMA_VERSION = 1
#: The event types of the stream (``docs/formats.md``, "mcode"): detection needs one.
RUN_TYPES = frozenset((
    "exec.started", "session.started", "session.resumed", "turn.started", "item.started",
    "item.updated", "item.completed", "turn.completed", "turn.failed", "exec.completed",
))
_ITEM_TYPES = frozenset(("item.started", "item.updated", "item.completed"))
_TURN_ENDS = frozenset(("turn.completed", "turn.failed"))
_COMPLETED = "item.completed"
#: Items whose ``item.completed`` may come between the tool calls of one burst.
_BURST_TEXT = frozenset(("agent_message", "reasoning"))
_TERMINAL = "exec.completed"
_STARTED = frozenset(("started", "running"))
_ENDED = frozenset(("completed", "finished", "failed", "error"))
_PENDING = frozenset((4, 5))
#: mcode is JavaScript: a ``sequence`` above 2**53 - 1 cannot come from it (and would
#: make ``notes.sequence_gap`` unbounded), so it is an ``invalid_envelope``.
MAX_SEQUENCE = 2**53 - 1
#: A run status is named in the notes only when it is a short lower-case identifier,
#: and only this many distinct ones are kept; any other counts as ``run_status.other``.
_STATUS = re.compile(r"[a-z][a-z0-9_]{0,31}", re.ASCII)
MAX_RUN_STATUSES = 8


class _ToolCall(Record, frozen=True):
    id: Any = msgspec.UNSET
    name: Any = msgspec.UNSET
    status: Any = msgspec.UNSET


class _Item(Record, frozen=True):
    id: Any = msgspec.UNSET
    type: Any = msgspec.UNSET
    toolCall: _ToolCall | msgspec.UnsetType = msgspec.UNSET


class _Result(Record, frozen=True):
    status: Any = msgspec.UNSET


class McodeRecord(Record, frozen=True):
    """The keys of a stream line this reader looks at; input, output and text deltas
    are skipped by the decoder without being built."""

    schemaVersion: Any = msgspec.UNSET
    sequence: Any = msgspec.UNSET
    timestampMs: Any = msgspec.UNSET
    runId: Any = msgspec.UNSET
    sessionId: Any = msgspec.UNSET
    turnId: Any = msgspec.UNSET
    type: Any = msgspec.UNSET
    item: _Item | msgspec.UnsetType = msgspec.UNSET
    result: _Result | msgspec.UnsetType = msgspec.UNSET


_DECODER = msgspec.json.Decoder(McodeRecord)


def _integer(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _ms(value: object) -> float | None:
    """``timestampMs``: an integer number of ms since the epoch, ``>= 0``, else ``None``."""
    number = _integer(value)
    if number is None or number < 0:
        return None
    try:
        return float(number)
    except OverflowError:
        return None


def _phase(status: object) -> str | None:
    """``"start"``, ``"end"``, ``"pending"`` (4, 5) for a ``toolCall.status``, else ``None``."""
    if isinstance(status, str):
        return "start" if status in _STARTED else "end" if status in _ENDED else None
    number = _integer(status)
    if number == 1:
        return "start"
    if number in (2, 3):
        return "end"
    return "pending" if number in _PENDING else None


@attrs.define
class _Run:
    """One ``mcode exec`` stream: its identity, last sequence, terminal and open turn."""

    ids: tuple[str, str, str]
    lane: LaneBuilder
    sequence: int
    terminal: bool = False
    turn_start_ms: float | None = None


@attrs.define
class _Call:
    """A call of a session: whether it started (``index``: its start among the lane's
    kept observations) and ended, and whether its start has its batch."""

    started: bool = False
    ended: bool = False
    index: int = -1
    batched: bool = False


@attrs.define
class _Stream:
    path: str
    sink: ObservationSink
    account: LineAccount
    lanes: dict[str, LaneBuilder] = attrs.field(factory=dict)
    calls: dict[str, dict[str, _Call]] = attrs.field(factory=dict)
    run: _Run | None = None
    bursts: int = 0  # bursts of item.completed lines begun: the last one's batch key
    in_burst: bool = False

    def lane(self, session_id: str) -> LaneBuilder:
        lane = self.lanes.get(session_id)
        if lane is None:
            # batch only: a start gets its batch key when its item.completed is read
            lane = self.lanes[session_id] = LaneBuilder(
                self.path, session_id, "main", batch_only=True, sink=self.sink)
            self.calls[session_id] = {}
        return lane

    def join_burst(self, lane: LaneBuilder, state: _Call | None) -> None:
        """A tool call's ``item.completed``: it joins the current burst (or begins one),
        and the call's start, if it has one and no batch yet, gets the burst's key."""
        if not self.in_burst:
            self.in_burst = True
            self.bursts += 1
        if state is None or not state.started or state.batched:
            return
        state.batched = True
        start = lane.observations[state.index]
        lane.observations[state.index] = Observation(
            start.kind, start.call_id, start.tool_name, start.at_ms, str(self.bursts))

    def end_run(self) -> None:
        if self.run is not None and not self.run.terminal:
            self.account.note("truncated")
        self.run = None


def _envelope(record: Any, account: LineAccount) -> tuple[int, tuple[str, str, str]] | None:
    """The line's ``sequence`` and ``(runId, sessionId, turnId)``, or ``None`` after
    counting why the envelope is unusable."""
    version = record.get("schemaVersion")
    if _integer(version) != SCHEMA_VERSION:
        account.problem("unknown_schema_version")
        return None
    raw_ids = [record.get(key) for key in ("runId", "sessionId", "turnId")]
    if any(bad_id(value) for value in raw_ids):
        account.problem("invalid_id")
        return None
    ids = [usable_id(value) for value in raw_ids]
    sequence = _integer(record.get("sequence"))
    if sequence is None or not 1 <= sequence <= MAX_SEQUENCE or None in ids:
        account.problem("invalid_envelope")
        return None
    run_id, session_id, turn_id = ids
    assert run_id is not None and session_id is not None and turn_id is not None
    return sequence, (run_id, session_id, turn_id)


def _in_run(stream: _Stream, sequence: int, ids: tuple[str, str, str], kind: object) -> bool:
    """Place the line in its run (a new run at ``sequence`` 1); whether it may be used."""
    account, run = stream.account, stream.run
    if sequence == 1 or run is None:
        stream.end_run()
        if sequence > 1:  # the run's first lines are missing
            account.note("sequence_gap", sequence - 1)
        stream.run = _Run(ids, stream.lane(ids[1]), sequence)
        return True
    if ids != run.ids:
        account.problem("foreign_run_line")
        return False
    if sequence <= run.sequence:
        account.problem("duplicate_sequence")
        return False
    if sequence > run.sequence + 1:
        account.note("sequence_gap", sequence - run.sequence - 1)
    run.sequence = sequence
    if run.terminal:
        account.problem("duplicate_terminal" if kind == _TERMINAL else "after_terminal")
        return False
    return True


def _run_status(stream: _Stream, result: Any) -> None:
    status = result.get("status") if is_object(result) else None
    key = f"run_status.{status}" if isinstance(status, str) and _STATUS.fullmatch(status) else ""
    known = [name for name in stream.account.notes if name.startswith("run_status.")]
    if not key or (key not in known and len(known) >= MAX_RUN_STATUSES):
        key = "run_status.other"
    stream.account.note(key)


def _turn(run: _Run, kind: str, at_ms: float, account: LineAccount) -> None:
    """A turn event of the run: ``turn.started`` remembered, its end adds the length."""
    if kind == "turn.started":
        run.turn_start_ms = at_ms
        account.use()
        return
    start, run.turn_start_ms = run.turn_start_ms, None
    if start is not None and at_ms > start:
        total = run.lane.turn_total_ms + (at_ms - start)
        if total == math.inf:
            account.problem("turn_total_overflow")
            return
        run.lane.turn_total_ms = total
    account.use()


def _item(stream: _Stream, run: _Run, kind: str, item: object, at_ms: float) -> None:
    account = stream.account
    if not is_object(item):
        account.problem("invalid_tool_record")
        return
    fields: Any = item
    item_type = fields.get("type")
    if item_type != "tool_call":
        # a type that is no string (a list or an object too: unhashable) is no burst text
        if kind == _COMPLETED and not (isinstance(item_type, str) and item_type in _BURST_TEXT):
            stream.in_burst = False  # another item's completion ends the burst
        account.ignore(f"item.{item_type}" if isinstance(item_type, str) else kind)
        return
    raw_id, tool_call = fields.get("id"), fields.get("toolCall")
    if bad_id(raw_id):
        account.problem("invalid_id")
        return
    call_id = usable_id(raw_id)
    if call_id is None or not is_object(tool_call):
        account.problem("invalid_tool_record")
        return
    call: Any = tool_call
    own_id, name, phase = call.get("id"), usable_text(call.get("name")), _phase(call.get("status"))
    if (own_id is not None and own_id != call_id) or name is None or phase is None:
        account.problem("invalid_tool_record")
        return
    calls = stream.calls[run.ids[1]]
    state = calls.get(call_id)
    if kind == _COMPLETED:  # never a start or an end (docs/formats.md): the batch
        stream.join_burst(run.lane, state)
        account.ignore(kind if state is not None else "replayed_items")
        return
    if state is None:
        state = calls[call_id] = _Call()
    if phase == "start" and not state.started and not state.ended:
        state.started = True
        state.index = len(run.lane.observations)
        run.lane.start(call_id, name, at_ms)
        account.use()
    elif phase == "end" and not state.ended:
        state.ended = True
        if state.started:
            run.lane.end(call_id, at_ms)
            account.use()
        else:
            account.ignore("end_without_start")
    else:
        account.ignore(kind)  # arguments streaming, or a status already seen


def _line(stream: _Stream, record: Any) -> None:
    account = stream.account
    envelope = _envelope(record, account)
    if envelope is None:
        return
    kind = record.get("type")
    if not _in_run(stream, *envelope, kind):
        return
    run = stream.run
    assert run is not None
    if not isinstance(kind, str):
        account.problem("missing_type")
        return
    at_ms = _ms(record.get("timestampMs"))
    if at_ms is None:
        account.problem("invalid_timestamp")
        return
    if kind != _COMPLETED:
        stream.in_burst = False  # any other line of the run ends a burst
    if kind in _ITEM_TYPES:
        _item(stream, run, kind, record.get("item"), at_ms)
    elif kind == "turn.started" or kind in _TURN_ENDS:
        _turn(run, kind, at_ms, account)
    elif kind == _TERMINAL:
        run.terminal = True
        _run_status(stream, record.get("result"))
        account.use()
    else:
        account.ignore(kind)


def read_mcode(lines: Iterable[bytes], *, path: str, sink: ObservationSink) -> LineAccount:
    """Read one captured ``mcode exec`` stream (one or more runs) into ``sink``: one lane
    ``(sessionId, "main")`` per session, opened in order of appearance.

    ``lines``: raw physical lines. Returns the line account (problems, ignored types
    and notes of the module doc). Never raises for bad data.
    """
    stream = _Stream(path, sink, LineAccount())
    for record in iter_records(lines, stream.account, _DECODER):
        _line(stream, record)
    stream.end_run()
    for lane in stream.lanes.values():
        lane.build()
    return stream.account


def sniff_mcode(peek: Peek) -> bool:
    """Whether a first record has the stream's envelope (``schemaVersion``, ``sequence``,
    ``runId``, ``turnId``, ``timestampMs``) and one of its event types (:data:`RUN_TYPES`)."""
    for record in peek.records:
        kind = record.get("type")
        if (isinstance(kind, str) and kind in RUN_TYPES
                and all(key in record for key in
                        ("schemaVersion", "sequence", "runId", "turnId", "timestampMs"))):
            return True
    return False


def _read_source(source: Source, sink: ObservationSink) -> LineAccount:
    return read_mcode(source.lines(), path=source.path, sink=sink)


#: The ``mcode`` format (``docs/formats.md``).
MCODE = FileFormat(FORMAT, sniff_mcode, _read_source, timing="execution")
