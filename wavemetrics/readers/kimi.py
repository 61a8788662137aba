"""The ``kimi`` reader: Kimi CLI wire logs (``docs/formats.md``, ``kimi``).

A session is ``~/.kimi/sessions/<md5(workdir)>/<sessionId>/wire.jsonl``
(``MoonshotAI/kimi-cli``, ``src/kimi_cli/wire/file.py``): a header
``{"type": "metadata", "protocol_version": ...}``, then one record per line,
``{"timestamp": <float Unix seconds>, "message": {"type": ..., "payload": ...}}``.
A call starts at the ``timestamp`` of its ``ToolCall`` record (``payload.id``,
``payload.function.name``) and ends at that of the ``ToolResult`` record whose
``payload.tool_call_id`` is that id. The recorder stamps each record with the
time it writes it: the request when its arguments have streamed (any approval
wait follows it), the result when the tool finished. These are the times of
the records that asked for the call and carried its result: provenance
``message``.

Seconds become ms by one multiplication, ``seconds * 1000.0`` (one correctly
rounded IEEE-754 product of the double the JSON number parses to), so a time is
as exact as the file's own float.

A sub-agent writes its own log, ``<sessionId>/subagents/<agent_id>/wire.jsonl``:
that file is the lane ``<agent_id>`` of session ``<sessionId>``. The parent's log
also wraps the sub-agent's records in ``SubagentEvent`` records; they are ignored
(by type), so no call is counted twice. Observations are fed in file order as
received: the metric core counts repeated starts and ends without a start.

Choices where the source is silent:

- The session id is the folder name of a file called ``wire.jsonl`` (the
  grandparent's folder above ``subagents`` for a sub-agent's log); any other
  file is session ``<file name without suffix>``, lane ``main``.
- ``timestamp`` must be a JSON number (seconds, finite, not negative, whose ms
  are finite); anything else is ``invalid_timestamp``.
- A ``ToolCall`` whose ``payload`` is not an object, whose ``payload.type`` is
  not ``"function"``, or which lacks a usable ``id`` or ``function.name`` is
  ``invalid_tool_record``, and so is a ``ToolResult`` without a usable
  ``tool_call_id``. A record without a ``message`` object and without a string
  ``type`` is ``missing_type``; a ``metadata`` header without a text
  ``protocol_version`` is ``invalid_session_header``, a second one is ignored
  (``repeated_metadata``). ``measured_turn_duration_ms_total`` is 0.

Batches (``docs/formats.md``, ``kimi``, "Batches"): a ``StepBegin`` record opens one
model call (a step), a ``StepRetry`` the next attempt of it; the ``ToolCall`` records
after one and before the next of the same log were issued by that response. A call's
batch key is the line number of that ``StepBegin``/``StepRetry`` (the log is one
lane); a call before the first has none. Both records stay ignored by type.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import msgspec

from wavemetrics.inputs._files import named_log_lane
from wavemetrics.readers._lines import (
    LineAccount,
    Record,
    iter_records,
    member,
    usable_id,
    usable_text,
)
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._record_types import KIMI_LOG_NAMES
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.readers.sources import Source

__all__ = ["KIMI", "kimi_lane", "read_kimi", "seconds_to_ms", "sniff_kimi"]

FORMAT = "kimi"
_CALL = "ToolCall"
_RESULT = "ToolResult"
_HEADER = "metadata"
#: The records that open a model call (a step, or a retry of it): a batch each.
_STEP_OPENERS = ("StepBegin", "StepRetry")
#: The file name Kimi CLI gives a wire log.
LOG_NAMES = KIMI_LOG_NAMES


class KimiFunction(Record, frozen=True):
    """The key of a ``ToolCall``'s ``function`` read (its ``arguments`` are skipped)."""

    name: Any = msgspec.UNSET


class KimiPayload(Record, frozen=True):
    """The keys of a message's ``payload`` read (results and text are skipped)."""

    type: Any = msgspec.UNSET
    id: Any = msgspec.UNSET
    tool_call_id: Any = msgspec.UNSET
    function: KimiFunction | None = None


class KimiMessage(Record, frozen=True):
    """The ``message`` of a record: its type and payload."""

    type: Any = msgspec.UNSET
    payload: KimiPayload | None = None


class KimiRecord(Record, frozen=True):
    """The keys of a line read: the header's ``type``/``protocol_version``, a record's
    ``timestamp``/``message``."""

    type: Any = msgspec.UNSET
    protocol_version: Any = msgspec.UNSET
    timestamp: Any = msgspec.UNSET
    message: KimiMessage | None = None


_DECODER = msgspec.json.Decoder(KimiRecord)


def seconds_to_ms(value: object) -> float | None:
    """A record ``timestamp`` (JSON number of Unix seconds) to ms: ``value * 1000.0``,
    one correctly rounded product; ``None`` for a non-number, ``bool``, negative,
    non-finite or overflowing value.

    >>> seconds_to_ms(1796292001.25), seconds_to_ms(-1), seconds_to_ms(True)
    (1796292001250.0, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        ms = float(value) * 1000.0
    except OverflowError:  # an int too large for a float
        return None
    if not math.isfinite(ms) or ms < 0:
        return None
    return ms


def kimi_lane(path: str) -> tuple[str, str]:
    """``(session_id, lane_id)`` of a wire log by its place in the store (the registry row
    hands the session's rule to the native reader, which works the lane out again).

    >>> kimi_lane("/h/.kimi/sessions/9a0b/s-1/wire.jsonl")
    ('s-1', 'main')
    >>> kimi_lane("/h/.kimi/sessions/9a0b/s-1/subagents/a7/wire.jsonl")
    ('s-1', 'a7')
    >>> kimi_lane("/tmp/run.jsonl"), kimi_lane("-")
    (('run', 'main'), ('stdin', 'main'))
    """
    return named_log_lane(path, LOG_NAMES)


class _Reader:
    """One wire log being read into its single lane (opened at the first used record)."""

    def __init__(self, path: str, sink: ObservationSink, account: LineAccount) -> None:
        self.path, self.sink, self.account = path, sink, account
        self.lane: LaneBuilder | None = None
        self.header = False
        # the batch key of the calls read now: the line of the last step opener
        self.step: str | None = None

    def _lane(self) -> LaneBuilder:
        if self.lane is None:
            session_id, lane_id = kimi_lane(self.path)
            self.lane = LaneBuilder(self.path, session_id, lane_id, remember_ids=False,
                                    sink=self.sink)
        return self.lane

    def read_header(self, record: Any) -> None:
        account = self.account
        if self.header:
            account.ignore("repeated_metadata")
        elif usable_text(record.get("protocol_version")) is None:
            account.problem("invalid_session_header")
        else:
            self.header = True
            account.use()

    def read_tool(self, record: Any, kind: str, payload: object) -> None:
        account = self.account
        if kind == _CALL:
            function = member(payload, "function")
            call_id = usable_id(member(payload, "id"))
            name = usable_text(member(function, "name"))
            valid = member(payload, "type") == "function" and call_id is not None
            if not valid or name is None:
                account.problem("invalid_tool_record")
                return
        else:
            call_id, name = usable_id(member(payload, "tool_call_id")), None
            if call_id is None:
                account.problem("invalid_tool_record")
                return
        at_ms = seconds_to_ms(record.get("timestamp"))
        if at_ms is None:
            account.problem("invalid_timestamp")
            return
        account.use()
        assert call_id is not None
        if name is not None:
            self._lane().start(call_id, name, at_ms, self.step)
        else:
            self._lane().end(call_id, at_ms)  # the start's name, else "unknown" (formats.md)

    def read(self, lines: Iterable[bytes]) -> None:
        account = self.account
        for record in iter_records(lines, account, _DECODER):
            message = record.get("message")
            if message is None:
                kind = record.get("type")
                if not isinstance(kind, str):
                    account.problem("missing_type")
                elif kind == _HEADER:
                    self.read_header(record)
                else:
                    account.ignore(kind)
                continue
            kind = member(message, "type")
            if not isinstance(message, (dict, Record)):
                account.problem("invalid_payload")
            elif not isinstance(kind, str):
                account.problem("missing_type")
            elif kind in (_CALL, _RESULT):
                self.read_tool(record, kind, member(message, "payload"))
            else:
                if kind in _STEP_OPENERS:
                    self.step = f"line {account.lines_read}"  # unique in this one-lane log
                account.ignore(kind)  # SubagentEvent too: the sub-agent's own log has its calls

    def finish(self) -> None:
        if self.lane is not None:
            self.lane.build()


def read_kimi(lines: Iterable[bytes], *, path: str, sink: ObservationSink) -> LineAccount:
    """Read one Kimi CLI ``wire.jsonl`` into ``sink``: one lane (:func:`kimi_lane`), opened
    at its first call record.

    ``lines``: raw physical lines. Times are ms since the epoch
    (:func:`seconds_to_ms`). Problems: ``missing_type``, ``invalid_payload``,
    ``invalid_tool_record``, ``invalid_timestamp``, ``invalid_session_header``,
    besides the line problems of every format. Returns the line account; never
    raises for bad data.
    """
    account = LineAccount()
    reader = _Reader(path, sink, account)
    reader.read(lines)
    reader.finish()
    return account


def _is_record(record: dict[str, Any]) -> bool:
    if record.get("type") == _HEADER:
        return isinstance(record.get("protocol_version"), str)
    message = record.get("message")
    stamp = record.get("timestamp")
    return (
        "type" not in record and isinstance(message, dict)
        and isinstance(message.get("type"), str) and isinstance(message.get("payload"), dict)
        and isinstance(stamp, (int, float)) and not isinstance(stamp, bool)
    )


def sniff_kimi(peek: Peek) -> bool:
    """Whether a first record is a wire log's: the ``metadata`` header with a text
    ``protocol_version``, or ``{timestamp: number, message: {type: text, payload:
    object}}`` without a top-level ``type``."""
    return any(_is_record(record) for record in peek.records)


def _read_source(source: Source, sink: ObservationSink) -> LineAccount:
    return read_kimi(source.lines(), path=source.path, sink=sink)


#: The ``kimi`` format (``docs/formats.md``).
KIMI = FileFormat(FORMAT, sniff_kimi, _read_source, timing="message")
