"""The ``copilot`` reader: GitHub Copilot CLI session event logs (``docs/formats.md``, ``copilot``).

A session is ``~/.copilot/session-state/<sessionId>/events.jsonl``: one event per
line, ``{id, parentId, timestamp, type, data, agentId?}`` (the event schema of
the Copilot SDK, ``nodejs/src/generated/session-events.ts``). A call starts at
the ``timestamp`` (ISO 8601) of its ``tool.execution_start`` event
(``data.toolCallId``, ``data.toolName``) and ends at that of the
``tool.execution_complete`` event with the same ``data.toolCallId``: times the
harness stamps around the tool's run (provenance ``execution``). Each event's
``agentId`` names its lane (a sub-agent instance); an event without one is the
root agent's, lane ``main``. The sub-agent's parent call (the tool call that
spawned it) is an event of the parent, so it stays in the parent's lane;
``subagent.started``/``subagent.completed`` only repeat that link and are
ignored by type. Observations are fed in file order as received: the metric
core counts repeated starts and ends without a start.

Choices where the schema is silent:

- The session id is ``data.sessionId`` of the first ``session.start`` event (a
  later one is ignored as ``repeated_session``); without one, the folder name of
  a file called ``events.jsonl``, else the file name without its suffix.
- ``timestamp`` must be an ISO-8601 string with ``Z`` or an offset (the schema's
  type); a number is ``invalid_timestamp``. An ``agentId`` that is present but
  not a usable id (empty, not text, control characters) is ``invalid_id``.
- A tool event whose ``data`` is not an object, or that lacks a usable
  ``toolCallId`` (or, for a start, a non-empty ``toolName``), is
  ``invalid_tool_record``. ``measured_turn_duration_ms_total`` is 0.

Batches (``docs/formats.md``, ``copilot``, "Batches"): an ``assistant.message`` event
lists the calls its model response issued in ``data.toolRequests[].toolCallId``; a
response split into several messages shares one ``data.apiCallId``. A call's batch
key is that message's ``apiCallId``, else its ``messageId``, within the message's
lane; a call no message lists has none. Only those ids are read from the message
(its text and the requests' arguments are skipped unbuilt), and the event is still
counted as ignored: it gives no observation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from wavemetrics.inputs._files import named_log_session_id
from wavemetrics.readers._lines import (
    LineAccount,
    Record,
    bad_id,
    iter_records,
    member,
    usable_id,
    usable_text,
)
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._record_types import COPILOT_LOG_NAMES
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.readers.sources import Source
from wavemetrics.readers.timestamps import iso_to_ms

__all__ = ["COPILOT", "copilot_session_id", "read_copilot", "sniff_copilot"]

FORMAT = "copilot"
_START = "tool.execution_start"
_COMPLETE = "tool.execution_complete"
_SESSION_START = "session.start"
_MESSAGE = "assistant.message"
#: The file name Copilot CLI gives a session's event log.
LOG_NAMES = COPILOT_LOG_NAMES
# Event type prefixes of the schema, for detection only.
_TYPE_PREFIXES = ("session.", "tool.", "assistant.", "user.", "subagent.", "permission.",
                  "hook.", "skill.", "system.", "abort")


class CopilotRequest(Record, frozen=True):
    """The key of an ``assistant.message``'s tool request read (its arguments are
    skipped unbuilt)."""

    toolCallId: Any = msgspec.UNSET


class CopilotData(Record, frozen=True):
    """The keys of an event's ``data`` this reader looks at (arguments, results and
    message text are skipped unbuilt)."""

    toolCallId: Any = msgspec.UNSET
    toolName: Any = msgspec.UNSET
    sessionId: Any = msgspec.UNSET
    apiCallId: Any = msgspec.UNSET
    messageId: Any = msgspec.UNSET
    toolRequests: list[CopilotRequest] | msgspec.UnsetType = msgspec.UNSET


class CopilotEvent(Record, frozen=True):
    """The keys of an event this reader looks at."""

    type: Any = msgspec.UNSET
    timestamp: Any = msgspec.UNSET
    agentId: Any = msgspec.UNSET
    data: CopilotData | None = None


_DECODER = msgspec.json.Decoder(CopilotEvent)


def copilot_session_id(path: str) -> str:
    """The session id of a log without ``session.start``: the folder of an
    ``events.jsonl`` (``<sessionId>/events.jsonl``), else the file name without suffix
    (the registry row hands the same rule to the native reader).

    >>> copilot_session_id("/h/.copilot/session-state/4f1c/events.jsonl")
    '4f1c'
    >>> copilot_session_id("/tmp/run.jsonl"), copilot_session_id("-")
    ('run', 'stdin')
    """
    return named_log_session_id(path, LOG_NAMES)


def _lane_of(record: Any) -> str | None:
    """An event's lane: its ``agentId``, ``main`` without one, ``None`` for an unusable one."""
    agent = record.get("agentId", msgspec.UNSET)
    return "main" if agent is msgspec.UNSET else usable_id(agent)


class _Reader:
    """One log being read: its lanes by lane id (in order of opening) and session id."""

    def __init__(self, path: str, sink: ObservationSink, account: LineAccount) -> None:
        self.path, self.sink, self.account = path, sink, account
        self.lanes: dict[str, LaneBuilder] = {}
        self.session_id: str | None = None
        # (lane, call id) -> the batch key of the message that requested the call,
        # until its start takes it
        self.requested: dict[tuple[str, str], str] = {}

    def session_start(self, data: object) -> None:
        account = self.account
        if self.session_id is not None:
            account.ignore("repeated_session")
            return
        value = member(data, "sessionId")
        session_id = usable_id(value)
        if session_id is None:
            account.problem("invalid_id" if bad_id(value) else "invalid_session_header")
            return
        self.session_id = session_id
        account.use()

    def assistant_message(self, record: Any) -> None:
        """Remember the batch key of each call an ``assistant.message`` requests; the
        line stays ignored (it gives no observation)."""
        self.account.ignore(_MESSAGE)
        lane_id = _lane_of(record)
        data = record.get("data")
        requests = member(data, "toolRequests")
        if lane_id is None or not isinstance(requests, list):
            return
        api_call = usable_id(member(data, "apiCallId"))
        message = usable_id(member(data, "messageId"))
        if api_call is not None:
            key = f"api:{api_call}"  # prefixes keep the two kinds of id apart
        elif message is not None:
            key = f"message:{message}"
        else:
            return
        for request in requests:
            call_id = usable_id(member(request, "toolCallId"))
            if call_id is not None:
                self.requested.setdefault((lane_id, call_id), key)

    def tool_event(self, record: Any, kind: str) -> None:
        account = self.account
        lane_id = _lane_of(record)
        if lane_id is None:
            account.problem("invalid_id")
            return
        data = record.get("data")
        call_id = usable_id(member(data, "toolCallId"))
        name = usable_text(member(data, "toolName"))
        if call_id is None or (kind == _START and name is None):
            account.problem("invalid_tool_record")
            return
        stamp = record.get("timestamp")
        at_ms = iso_to_ms(stamp) if isinstance(stamp, str) else None
        if at_ms is None:
            account.problem("invalid_timestamp")
            return
        lane = self.lanes.get(lane_id)
        if lane is None:
            lane = self.lanes[lane_id] = LaneBuilder(
                self.path, "", lane_id, remember_ids=False, sink=self.sink)
        account.use()
        if kind == _START:
            assert name is not None
            lane.start(call_id, name, at_ms, self.requested.pop((lane_id, call_id), None))
        else:
            lane.end(call_id, at_ms)  # the start's name, else "unknown" (formats.md)

    def read(self, lines: Iterable[bytes]) -> None:
        account = self.account
        for record in iter_records(lines, account, _DECODER):
            kind = record.get("type")
            if not isinstance(kind, str):
                account.problem("missing_type")
            elif kind in (_START, _COMPLETE):
                self.tool_event(record, kind)
            elif kind == _SESSION_START:
                self.session_start(record.get("data"))
            elif kind == _MESSAGE:
                self.assistant_message(record)
            else:
                account.ignore(kind)

    def finish(self) -> None:
        session_id = self.session_id or copilot_session_id(self.path)
        for lane in self.lanes.values():
            lane.session_id = session_id
            lane.build()


def read_copilot(lines: Iterable[bytes], *, path: str, sink: ObservationSink) -> LineAccount:
    """Read one Copilot CLI ``events.jsonl`` into ``sink``: one lane per agent (``main``
    for the root agent, else the ``agentId``), all of one session.

    ``lines``: raw physical lines. Times are ms since the epoch (ISO 8601
    ``timestamp``). Problems: ``missing_type``, ``invalid_tool_record``,
    ``invalid_timestamp``, ``invalid_id``, ``invalid_session_header``, besides the
    line problems of every format. Returns the line account; never raises for bad data.
    """
    account = LineAccount()
    reader = _Reader(path, sink, account)
    reader.read(lines)
    reader.finish()
    return account


def _is_event(record: dict[str, Any]) -> bool:
    kind = record.get("type")
    return (
        isinstance(kind, str) and kind.startswith(_TYPE_PREFIXES)
        and isinstance(record.get("id"), str) and "parentId" in record
        and isinstance(record.get("timestamp"), str) and isinstance(record.get("data"), dict)
    )


def sniff_copilot(peek: Peek) -> bool:
    """Whether a first record is a Copilot session event: a dotted ``type`` of the
    schema (``tool.execution_start``, ``session.start``, ...) with the envelope's
    ``id``, ``parentId``, string ``timestamp`` and object ``data``."""
    return any(_is_event(record) for record in peek.records)


def _read_source(source: Source, sink: ObservationSink) -> LineAccount:
    return read_copilot(source.lines(), path=source.path, sink=sink)


#: The ``copilot`` format (``docs/formats.md``).
COPILOT = FileFormat(FORMAT, sniff_copilot, _read_source, timing="execution")
