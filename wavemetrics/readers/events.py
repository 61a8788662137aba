"""The ``events`` reader: the host's tool_execution_* event stream (``docs/formats.md``).

Observations are fed in file order exactly as received; the metric core
counts duplicate starts and orphan ends itself. ``session_shutdown`` ends a
session: later events for that session id in the same input are dropped and
counted (``ignored["after_session_shutdown"]``). A start's batch is the lane's
current turn: the calls started after one used ``turn_start`` and before the next
(``docs/formats.md``, ``events``, "Batches").
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import msgspec

from wavemetrics.readers._lines import (
    LineAccount,
    Record,
    iter_records,
    os_text,
    usable_id,
    usable_text,
)
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._record_types import (
    EVENT_SHUTDOWN,
    EVENT_TOOL_TYPES,
    EVENT_TURN_TYPES,
    EVENT_TYPES,
)
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.readers.sources import Source, file_stem
from wavemetrics.readers.timestamps import time_to_ms

__all__ = ["EVENTS", "EVENT_TYPES", "EventsReader", "read_events"]

FORMAT = "events"
_TOOL_TYPES = EVENT_TOOL_TYPES
_TURN_TYPES = EVENT_TURN_TYPES
_SHUTDOWN = EVENT_SHUTDOWN
# Types this reader uses; tool_execution_update only identifies the format.
_READ_TYPES = frozenset((*_TOOL_TYPES, *_TURN_TYPES, _SHUTDOWN))


class EventRecord(Record, frozen=True):
    """The keys of an event this reader looks at; all others are skipped unbuilt."""

    type: Any = msgspec.UNSET
    toolCallId: Any = msgspec.UNSET
    toolName: Any = msgspec.UNSET
    timestamp: Any = msgspec.UNSET
    sessionId: Any = msgspec.UNSET
    agentId: Any = msgspec.UNSET


_DECODER = msgspec.json.Decoder(EventRecord)


_UNSET = msgspec.UNSET
_FIELDS = EventRecord.__struct_fields__


def _as_event(record: Any) -> EventRecord:
    """A record parsed by the stdlib (a dict) as the typed record the loop reads."""
    if isinstance(record, EventRecord):
        return record
    return EventRecord(**{key: record[key] for key in _FIELDS if key in record})


def _text(value: Any) -> str | None:
    # usable_text, inlined for the common case of an ASCII string
    if value.__class__ is str and value and value.isascii():
        return value
    return usable_text(value)


def _id(value: Any) -> str | None:
    # usable_id, inlined for the common case of a printable ASCII string
    if value.__class__ is str and value and value.isascii() and value.isprintable():
        return value
    return usable_id(value)


def _time(value: Any) -> float | None:
    # time_to_ms, inlined for the common case of a float or small int of ms
    if (value.__class__ is float or value.__class__ is int) and 0 <= value < 1e300:
        return float(value)
    return time_to_ms(value)


def read_events(
    lines: Iterable[bytes], *, path: str, default_session_id: str, sink: ObservationSink
) -> LineAccount:
    """Read one ``events`` input into ``sink``: lanes keyed by ``(sessionId, agentId)``.

    ``lines``: raw physical lines. ``default_session_id`` stands in for a missing
    ``sessionId`` (the CLI passes the file name without its suffix); a missing
    ``agentId`` is lane ``"main"``. A tool event without a usable ``toolCallId``
    (or a start without ``toolName``, or any tool event whose ``toolName`` is
    present but empty or not text) is ``invalid_tool_record``, a bad time
    ``invalid_timestamp``, a present but unusable id ``invalid_id``, a record
    without a string ``type`` ``missing_type``. Lines are decoded with msgspec
    into :class:`EventRecord` (other keys are never built); lines it rejects go
    through the stdlib parser and the same rules. Lanes are opened in order of
    appearance; turn events go to their lane's writer. Returns the line account.
    """
    account = LineAccount()
    reader = EventsReader(path, default_session_id, sink)
    reader.read(lines, account)
    reader.finish()
    return account


class EventsReader:
    """The state of :func:`read_events` between lines, so that a file can be read in
    pieces.

    ``lanes``: the open lanes by ``(session_id, lane_id)``, in order of opening;
    ``closed``: the session ids a ``session_shutdown`` ended; ``turn_totals``: per
    lane, the pending turn start and the total the overflow rule follows;
    ``turns``: per lane, how many ``turn_start`` lines it has used (the batch key of
    its starts, none before the first). The account is exact after every line (a
    piece may end at any line).
    """

    def __init__(self, path: str, default_session_id: str, sink: ObservationSink) -> None:
        self.path, self.sink = path, sink
        self.default_session_id = os_text(default_session_id)  # a file name may not be UTF-8
        self.lanes: dict[tuple[str, str], LaneBuilder] = {}
        self.closed: set[str] = set()
        self.turn_totals: dict[tuple[str, str], list[Any]] = {}
        self.turns: dict[tuple[str, str], int] = {}

    def read(self, lines: Iterable[bytes], account: LineAccount) -> None:
        """Read ``lines`` (raw physical lines) on from the state left by earlier pieces."""
        lanes, closed, turn_totals, turns = self.lanes, self.closed, self.turn_totals, self.turns
        path, sink, default_session_id = self.path, self.sink, self.default_session_id
        ignore, problem = account.ignore, account.problem
        current: tuple[Any, ...] = ("", "", None)  # the last lane used
        for raw in iter_records(lines, account, _DECODER):
            record = raw if raw.__class__ is EventRecord else _as_event(raw)
            kind = record.type
            if kind.__class__ is not str:
                problem("missing_type")
                continue
            if kind not in _READ_TYPES:
                ignore(kind)
                continue
            session_id = record.sessionId
            session_id = default_session_id if session_id is _UNSET else _id(session_id)
            lane_id = record.agentId
            lane_id = "main" if lane_id is _UNSET else _id(lane_id)
            if session_id is None or lane_id is None:
                problem("invalid_id")
                continue
            if session_id in closed:
                ignore("after_session_shutdown")
                continue
            if kind == _SHUTDOWN:
                closed.add(session_id)
                account.lines_used += 1
                current = ("", "", None)
                # the session's lanes are complete: close them now (a stream lets them go)
                for key in [key for key in lanes if key[0] == session_id]:
                    lanes.pop(key).build()
                continue
            stamp = record.timestamp  # _time(), inlined on this hot path
            if (stamp.__class__ is float or stamp.__class__ is int) and 0 <= stamp < 1e300:
                at_ms: float | None = float(stamp)
            else:
                at_ms = time_to_ms(stamp)
            call_id = name = None
            if kind in _TOOL_TYPES:
                call_id = _id(record.toolCallId)
                name = _text(record.toolName)
                # A start needs a usable name; an end may omit it (or give null) and
                # carries its start's name, but a name it gives must be usable: an
                # empty or non-text name is invalid_tool_record, not an orphan end.
                if call_id is None or (name is None and (
                        kind == "tool_execution_start"
                        or record.toolName not in (_UNSET, None))):
                    problem("invalid_tool_record")
                    continue
            if at_ms is None:
                problem("invalid_timestamp")
                continue
            if session_id != current[0] or lane_id != current[1]:
                key = (session_id, lane_id)
                lane = lanes.get(key)
                if lane is None:
                    lane = lanes[key] = LaneBuilder(
                        path, session_id, lane_id, remember_ids=False, sink=sink
                    )
                current = (session_id, lane_id, lane)
            if call_id is None:
                if _turn_overflows(turn_totals, (session_id, lane_id), kind, at_ms):
                    problem("turn_total_overflow")
                    # the pipeline's turn clock must not pair a later end with this
                    # turn's start: a start no end can follow stands in for this end
                    # (it is still a turn_end: it opens no batch)
                    current[2].turn_event("turn_start", math.inf)
                    continue
                account.lines_used += 1
                if kind == "turn_start":
                    key = (session_id, lane_id)
                    turns[key] = turns.get(key, 0) + 1
                current[2].turn_event(kind, at_ms)
                continue
            account.lines_used += 1
            if kind == "tool_execution_start":
                turn = turns.get((session_id, lane_id))
                current[2].start(call_id, name, at_ms, None if turn is None else str(turn))
            else:
                current[2].end(call_id, at_ms)  # the start's name, else "unknown" (formats.md)

    def finish(self) -> None:
        """Close the lanes still open (the input is over)."""
        for lane in self.lanes.values():
            lane.build()


def _turn_overflows(
    totals: dict[tuple[str, str], list[Any]], key: tuple[str, str], kind: str, at_ms: float
) -> bool:
    """Follow a lane's turn total (the rules of ``docs/metrics.md`` section 6, as the
    pipeline measures it) and say whether this ``turn_end`` would make it infinite.

    Such a turn is a problem (``turn_total_overflow``) and is not added
    (``docs/formats.md``, "Limits and hostile input"): times near 1.8e308 ms are
    finite, their sums need not be.
    """
    state = totals.get(key)
    if state is None:
        state = totals[key] = [None, 0.0]
    if kind == "turn_start":
        state[0] = at_ms
        return False
    if kind != "turn_end" or state[0] is None:
        return False
    duration = at_ms - state[0]
    state[0] = None
    if duration > 0:
        total = state[1] + duration
        if total == math.inf:
            return True
        state[1] = total
    return False


def _record_type(record: dict[str, Any]) -> str | None:
    # A "type" that is a list or object must not reach a set lookup (unhashable).
    kind = record.get("type")
    return kind if isinstance(kind, str) else None


def sniff_events(peek: Peek) -> bool:
    """Whether any first record has an event ``type`` (:data:`EVENT_TYPES`)."""
    return any(_record_type(record) in EVENT_TYPES for record in peek.records)


def _read_source(source: Source, sink: ObservationSink) -> LineAccount:
    # a missing sessionId is the file name without its suffix (stdin for -)
    return read_events(
        source.lines(), path=source.path, default_session_id=file_stem(source.path), sink=sink
    )


#: The ``events`` format (``docs/formats.md``).
EVENTS = FileFormat(FORMAT, sniff_events, _read_source, timing="execution")
