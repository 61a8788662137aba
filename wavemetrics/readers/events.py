"""The ``events`` reader: the host's tool_execution_* event stream (``spec/formats.md``).

Observations are fed in file order exactly as received; the metric core
counts duplicate starts and orphan ends itself. ``session_shutdown`` ends a
session: later events for that session id in the same input are dropped and
counted (``ignored["after_session_shutdown"]``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wavemetrics.readers._lines import LineAccount, iter_records, os_text, usable_text
from wavemetrics.readers.lanes import Lane, LaneBuilder
from wavemetrics.timestamps import time_to_ms
from wavemetrics.turns import TurnClock

__all__ = ["EVENT_TYPES", "read_events"]

FORMAT = "events"
_TOOL_TYPES = ("tool_execution_start", "tool_execution_end")
_TURN_TYPES = ("turn_start", "turn_end")
_SHUTDOWN = "session_shutdown"
#: Types that identify the format during detection.
EVENT_TYPES = frozenset((*_TOOL_TYPES, *_TURN_TYPES, _SHUTDOWN, "tool_execution_update"))


def _id(record: dict[str, Any], key: str, default: str) -> str | None:
    """The record's id under ``key``; ``default`` when absent; ``None`` when unusable."""
    if key not in record:
        return default
    return usable_text(record[key])


def _tool_fields(record: dict[str, Any], kind: str) -> tuple[str, str | None] | None:
    """``(toolCallId, toolName)``; an end may lack its name. ``None`` when unusable."""
    call_id = usable_text(record.get("toolCallId"))
    name = usable_text(record.get("toolName"))
    if call_id is None:
        return None
    if name is not None:
        return call_id, name
    return None if kind == "tool_execution_start" else (call_id, None)


def read_events(
    lines: Iterable[bytes], *, path: str, default_session_id: str
) -> tuple[list[Lane], LineAccount]:
    """Read one ``events`` input into lanes keyed by ``(sessionId, agentId)``.

    ``lines``: raw physical lines. ``default_session_id`` stands in for a missing
    ``sessionId`` (the CLI passes the file name without its suffix); a missing
    ``agentId`` is lane ``"main"``. A tool event without a usable ``toolCallId``
    (or a start without ``toolName``) is ``invalid_tool_record``, a bad time
    ``invalid_timestamp``, a present but empty or non-string id ``invalid_id``.
    """
    account = LineAccount()
    default_session_id = os_text(default_session_id)  # a file name may not be UTF-8
    lanes: dict[tuple[str, str], LaneBuilder] = {}
    turns: dict[tuple[str, str], TurnClock] = {}
    closed: set[str] = set()
    built: list[Lane] = []
    order: dict[tuple[str, str], int] = {}  # lanes are reported in order of appearance
    for record in iter_records(lines, account):
        kind = record.get("type")
        if not isinstance(kind, str):
            account.problem("missing_type")
            continue
        if kind not in EVENT_TYPES or kind == "tool_execution_update":
            account.ignore(kind)
            continue
        session_id = _id(record, "sessionId", default_session_id)
        lane_id = _id(record, "agentId", "main")
        if session_id is None or lane_id is None:
            account.problem("invalid_id")
            continue
        if session_id in closed:
            account.ignore("after_session_shutdown")
            continue
        if kind == _SHUTDOWN:
            closed.add(session_id)
            account.use()
            # the session's lanes are complete: summarise them now and let them go
            for key in [key for key in lanes if key[0] == session_id]:
                built.append(_finish(lanes.pop(key), turns.pop(key)))
            continue
        at_ms = time_to_ms(record.get("timestamp"))
        call: tuple[str, str | None] | None = None
        if kind in _TOOL_TYPES:
            call = _tool_fields(record, kind)
            if call is None:
                account.problem("invalid_tool_record")
                continue
        if at_ms is None:
            account.problem("invalid_timestamp")
            continue
        key = (session_id, lane_id)
        lane = lanes.get(key)
        if lane is None:
            lane = lanes[key] = LaneBuilder(path, session_id, lane_id, remember_ids=False)
            order.setdefault(key, len(order))
            turns[key] = TurnClock()
        account.use()
        if call is None:
            turns[key].add(kind, at_ms)
        elif kind == "tool_execution_start":
            lane.start(call[0], call[1] or "", at_ms)
        else:
            lane.end(call[0], at_ms)  # the start's name, else "unknown" (formats.md)
    built.extend(_finish(lane, turns[key]) for key, lane in lanes.items())
    built.sort(key=lambda lane: order[(lane.session_id, lane.lane_id)])
    return built, account


def _finish(lane: LaneBuilder, turns: TurnClock) -> Lane:
    lane.turn_total_ms = turns.total_ms
    return lane.build()
