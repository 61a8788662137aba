"""The ``qwen`` reader: Qwen Code chat files (``docs/formats.md``, "qwen").

A Qwen Code session is ``~/.qwen/projects/<project>/chats/<sessionId>.jsonl``,
one ``ChatRecord`` a line (``uuid``, ``parentUuid``, ``sessionId``,
``timestamp``, ``type``: ``user``, ``assistant``, ``tool_result`` or
``system``). Calls are ``functionCall`` parts of an assistant record; the
results of a batch are written together once every call of it has ended, so the
chat records carry no time of a call's own.

A call is measured only from ``tool_lifecycle`` records: ``system`` records of
subtype ``ui_telemetry`` whose ``systemPayload.uiEvent`` has
``"event.name": "tool_lifecycle"``, ``kind: "tool"``, ``callId``, ``toolName``
and ``phase``: ``started`` gives the start (``startedAt``, Unix ms), ``ended``
the end (``endedAt``, Unix ms; its ``startedAt`` starts the call if no
``started`` record came first). A file with calls and no such record is refused
with :data:`PARTIAL_REASON` (the input's error), never measured from the batch's
one time; a call of a file with lifecycle records that has none is counted in
``notes["calls_without_lifecycle"]``.

Lanes: ``"main"``, and one per sub-agent: the lifecycle event's ``subagentId``,
else the record's ``agentId`` when ``isSidechain`` is true. The session id is
the first record's ``sessionId``, else the file name's. Problems:
``missing_type``, ``invalid_payload`` (a ``systemPayload.uiEvent`` that is not
an object), ``invalid_tool_record`` (no usable ``callId``/``toolName``, or a
``kind`` other than ``tool``), ``invalid_timestamp``. Other records are ignored
by ``type`` (``system.<subtype>`` for system records).

Batches (``docs/formats.md``, "qwen", "Batches"): a call's batch key is the ``uuid``
of the assistant record whose ``functionCall`` part has the call's id (the first such
record); a call no assistant record lists, or listed by a record without a usable
``uuid``, has none.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs
import msgspec

from wavemetrics.readers._lines import (
    LineAccount,
    Record,
    is_object,
    iter_records,
    usable_id,
    usable_text,
)
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._uuids import session_id_from_file_name
from wavemetrics.readers.sources import Source
from wavemetrics.readers.timestamps import ms_from_number

__all__ = ["PARTIAL_REASON", "QWEN", "read_qwen", "sniff_qwen"]

FORMAT = "qwen"
_TYPES = ("user", "assistant", "tool_result", "system")
LIFECYCLE = "tool_lifecycle"

#: Why a Qwen Code chat file without ``tool_lifecycle`` records gives no figures.
PARTIAL_REASON = (
    "Qwen Code chat file without tool_lifecycle records: it writes one tool_result time"
    " for a whole batch of calls (and a duration with no call id), so no call's start and"
    " end can be measured; nothing to measure. Qwen Code's OpenTelemetry export records"
    " each call's times (telemetry.enabled with telemetry.otlpEndpoint, or"
    " QWEN_TELEMETRY_ENABLED=1 and QWEN_TELEMETRY_OTLP_ENDPOINT): read it with"
    " --input-format otlp"
)


class _Event(Record, frozen=True):
    event_name: Any = msgspec.field(default=msgspec.UNSET, name="event.name")
    kind: Any = msgspec.UNSET
    callId: Any = msgspec.UNSET
    toolName: Any = msgspec.UNSET
    phase: Any = msgspec.UNSET
    startedAt: Any = msgspec.UNSET
    endedAt: Any = msgspec.UNSET
    subagentId: Any = msgspec.UNSET


class _Payload(Record, frozen=True):
    uiEvent: _Event | msgspec.UnsetType = msgspec.UNSET


class _FunctionCall(Record, frozen=True):
    id: Any = msgspec.UNSET


class _Part(Record, frozen=True):
    functionCall: _FunctionCall | msgspec.UnsetType = msgspec.UNSET


class _Message(Record, frozen=True):
    parts: list[_Part] | msgspec.UnsetType = msgspec.UNSET


class QwenRecord(Record, frozen=True):
    """The keys of a chat record this reader looks at: prompts, arguments and results
    are skipped unbuilt. A line of another shape is parsed by the stdlib path instead
    (same rules, ``_lines.iter_records``)."""

    type: Any = msgspec.UNSET
    subtype: Any = msgspec.UNSET
    uuid: Any = msgspec.UNSET
    sessionId: Any = msgspec.UNSET
    isSidechain: Any = msgspec.UNSET
    agentId: Any = msgspec.UNSET
    message: _Message | msgspec.UnsetType = msgspec.UNSET
    systemPayload: _Payload | msgspec.UnsetType = msgspec.UNSET


_DECODER = msgspec.json.Decoder(QwenRecord)


def _event_name(event: Any) -> object:
    return event.event_name if isinstance(event, _Event) else event.get("event.name")


def sniff_qwen(peek: Peek) -> bool:
    """Whether a first record is a Qwen Code ``ChatRecord``: a ``type`` of its four, a
    ``uuid`` and a ``sessionId``, and a genai message (``message.parts``), a
    ``systemPayload`` or the ``tool_result`` type (none of which Claude Code writes)."""
    for record in peek.records:
        kind = record.get("type")
        if kind not in _TYPES or "uuid" not in record or "sessionId" not in record:
            continue
        message = record.get("message")
        if (isinstance(message, dict) and "parts" in message) or "systemPayload" in record \
                or kind == "tool_result":
            return True
    return False


@attrs.define
class _File:
    account: LineAccount
    session_id: str | None = None
    lanes: dict[str, list[tuple[str, str, str, float]]] = attrs.field(factory=dict)
    started: set[tuple[str, str]] = attrs.field(factory=set)
    ended: set[tuple[str, str]] = attrs.field(factory=set)
    called: set[str] = attrs.field(factory=set)
    #: call id -> the ``uuid`` of the assistant record that issued it (its batch)
    batches: dict[str, str] = attrs.field(factory=dict)
    measured: set[str] = attrs.field(factory=set)
    lifecycle: bool = False
    calls: bool = False


def _calls_of(record: Any) -> list[str]:
    message = record.get("message")
    parts = message.get("parts") if is_object(message) else None
    ids = []
    for part in parts if isinstance(parts, list) else ():
        call: Any = part.get("functionCall") if is_object(part) else None
        if is_object(call):
            ids.append(usable_id(call.get("id")) or "")
    return ids


def _lane_of(record: Any, event: Any) -> str:
    sub = usable_id(event.get("subagentId"))
    if sub is not None:
        return sub
    agent = usable_id(record.get("agentId"))
    return agent if record.get("isSidechain") is True and agent is not None else "main"


def _lifecycle(record: Any, event: Any, state: _File) -> None:
    account = state.account
    state.lifecycle = True
    call_id, name = usable_id(event.get("callId")), usable_text(event.get("toolName"))
    phase = event.get("phase")
    if event.get("kind") != "tool" or call_id is None or name is None:
        account.problem("invalid_tool_record")
        return
    if phase not in ("started", "ended"):
        account.ignore(f"{LIFECYCLE}.other")
        return
    lane = _lane_of(record, event)
    key = (lane, call_id)
    started = ms_from_number(event.get("startedAt"))
    if phase == "started":
        if started is None:
            account.problem("invalid_timestamp")
        elif key in state.started:
            account.note("repeated_tool_call")
            account.ignore("repeated_tool_record")
        else:
            state.started.add(key)
            state.measured.add(call_id)
            state.lanes.setdefault(lane, []).append(("start", call_id, name, started))
            account.use()
        return
    ended = ms_from_number(event.get("endedAt"))
    if ended is None or (key not in state.started and started is None):
        account.problem("invalid_timestamp")
        return
    if key in state.ended:
        account.ignore("repeated_tool_result")
        return
    observations = state.lanes.setdefault(lane, [])
    if key not in state.started and started is not None:
        state.started.add(key)
        observations.append(("start", call_id, name, started))
    state.ended.add(key)
    state.measured.add(call_id)
    observations.append(("end", call_id, name, ended))
    account.use()


def _record(record: Any, state: _File) -> None:
    account = state.account
    kind = record.get("type")
    if state.session_id is None:
        state.session_id = usable_id(record.get("sessionId"))
    if not isinstance(kind, str):
        account.problem("missing_type")
        return
    if kind == "assistant" and (ids := _calls_of(record)):
        state.calls = True
        state.called.update(call_id for call_id in ids if call_id)
        batch = usable_id(record.get("uuid"))
        if batch is not None:
            for call_id in ids:
                if call_id:
                    state.batches.setdefault(call_id, batch)
    elif kind == "tool_result":
        state.calls = True
    if kind != "system":
        account.ignore(kind)
        return
    subtype = record.get("subtype")
    payload = record.get("systemPayload")
    event = payload.get("uiEvent") if is_object(payload) else None
    if subtype == "ui_telemetry" and is_object(event) and _event_name(event) == LIFECYCLE:
        _lifecycle(record, event, state)
    elif subtype == "ui_telemetry" and event is not None and not is_object(event):
        account.problem("invalid_payload")
    else:
        account.ignore(f"system.{subtype}" if isinstance(subtype, str) else "system")


def read_qwen_lines(lines: Iterable[bytes], *, path: str, sink: ObservationSink
                    ) -> tuple[LineAccount, str | None]:
    """Read one Qwen Code chat file's lines into ``sink``; returns the line account and
    the reason the file gives no figures (:data:`PARTIAL_REASON`), if it does not."""
    state = _File(LineAccount())
    for record in iter_records(lines, state.account, _DECODER):
        _record(record, state)
    if state.calls and not state.lifecycle:
        return state.account, PARTIAL_REASON
    unmeasured = len(state.called - state.measured)
    if unmeasured:
        state.account.note("calls_without_lifecycle", unmeasured)
    session_id = state.session_id
    if session_id is None and state.lanes:
        state.account.note("session_id_from_file_name")
        session_id = session_id_from_file_name(path)
    for lane_id, observations in state.lanes.items():
        writer = sink.open_lane(path)
        writer.extend([o[0] for o in observations], [o[1] for o in observations],
                      [o[2] for o in observations], [o[3] for o in observations],
                      [state.batches.get(o[1]) if o[0] == "start" else None
                       for o in observations])
        writer.close(session_id or "", lane_id)
    return state.account, None


def read_qwen(source: Source, sink: ObservationSink) -> LineAccount:
    """Read one Qwen Code chat file into ``sink`` (``docs/formats.md``, "qwen"); a file
    with calls and no ``tool_lifecycle`` record sets ``source.error`` to
    :data:`PARTIAL_REASON` and opens no lane. Never raises for bad data."""
    account, reason = read_qwen_lines(source.lines(), path=source.path, sink=sink)
    if reason is not None and source.error is None:
        source.error = reason
    return account


#: The ``qwen`` format (``docs/formats.md``): Qwen Code chat files.
QWEN = FileFormat(FORMAT, sniff_qwen, read_qwen, timing="execution")
