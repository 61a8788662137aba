"""The ``pi`` reader: pi coding-agent session files (``spec/formats.md``).

One lane, ``"main"``, keyed by the ``id`` of the ``{"type": "session"}``
header. A start is the line ``timestamp`` of a ``message`` line whose
``message.role`` is ``assistant`` and whose ``message.content`` holds
``toolCall`` blocks (``id``, ``name``); every call of one message starts at
that time. An end is the line ``timestamp`` of the ``message`` line with
``role == "toolResult"`` and that ``toolCallId``. Observations are fed in file
order; a call id's first start and first end win, repeats are counted.

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
- ``measured_turn_duration_ms_total`` is 0 (the spec names no turn source).
- Other lines are ignored by ``type``, other messages as ``"message.<role>"``
  (``bashExecution`` is a user's ``!cmd``, not a tool call).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from wavemetrics.readers._lines import LineAccount, account_tool_line, iter_records, usable_text
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers.lanes import LaneBuilder, finish_single_lane
from wavemetrics.readers.sources import Source, head_records
from wavemetrics.timestamps import iso_to_ms

__all__ = ["PI", "read_pi", "sniff_pi"]

FORMAT = "pi"


def _line_ms(record: dict[str, Any]) -> float | None:
    stamp = record.get("timestamp")
    return iso_to_ms(stamp) if isinstance(stamp, str) else None


@attrs.define
class _Session:
    lane: LaneBuilder
    account: LineAccount
    session_id: str | None = None


def _read_header(record: dict[str, Any], state: _Session) -> None:
    if state.session_id is not None:
        state.account.ignore("repeated_session")
        return
    session_id = usable_text(record.get("id"))
    if session_id is None:
        state.account.problem("invalid_session_header")
        return
    state.session_id = session_id
    state.account.use()


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
    fed = usable = 0
    for block in blocks:
        call_id, name = usable_text(block.get("id")), usable_text(block.get("name"))
        if call_id is None or name is None:
            continue
        usable += 1
        if call_id in lane.start_names:
            account.note("repeated_tool_call")
            continue
        lane.start(call_id, name, at_ms)
        fed += 1
    account_tool_line(account, len(blocks), usable, fed)


def _read_result(record: dict[str, Any], message: dict[str, Any], state: _Session) -> None:
    account, lane = state.account, state.lane
    call_id = usable_text(message.get("toolCallId"))
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
    lane.ended.add(call_id)
    lane.end(call_id, at_ms)
    account.use()


def read_pi(lines: Iterable[bytes], *, path: str, sink: ObservationSink) -> LineAccount:
    """Read one pi session file into its single lane of ``sink`` (none for an input
    with no records); returns the line account.

    ``lines``: raw physical lines. Problems: ``missing_type``,
    ``invalid_session_header``, ``invalid_payload`` (a ``message`` line whose
    ``message`` is not an object), ``invalid_tool_record``,
    ``invalid_timestamp``. Never raises for bad data.
    """
    account = LineAccount()
    state = _Session(LaneBuilder(path, "", "main", sink=sink), account)
    seen = False
    for record in iter_records(lines, account):
        seen = True
        kind = record.get("type")
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
    if seen:  # a lane opened and never closed is not reported
        finish_single_lane(state.lane, state.session_id, path, account)
    return account


def _read_source(source: Source, sink: ObservationSink) -> LineAccount:
    return read_pi(source.lines(), path=source.path, sink=sink)


def sniff_pi(peek: Peek) -> bool:
    """Whether the first lines hold a pi session header (``type == "session"`` with
    an ``id``) or a ``message`` line whose ``message`` has a ``role``."""
    for record in peek.records:
        kind = record.get("type")
        if kind == "session" and isinstance(record.get("id"), str) and "timestamp" in record:
            return True
        message = record.get("message")
        if kind == "message" and isinstance(message, dict) and "role" in message:
            return True
    return False


#: The ``pi`` format (``spec/formats.md``).
def session_cwd(path: str) -> str | None:
    """The ``cwd`` of the session header line (first lines), or ``None``."""
    for record in head_records(path):
        if record.get("type") == "session":
            return usable_text(record.get("cwd"))
    return None


PI = FileFormat("pi", sniff_pi, _read_source, working_directory=session_cwd)
