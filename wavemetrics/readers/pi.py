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
- Forks (``/fork``, v3; ``spec/formats.md``): a file whose header names a parent
  (``parentSession``, ``branchedFrom``: a path or a session id) may begin with
  copies of the parent's entries (same ``id`` and ``timestamp``). The files of
  one folder are read together (:func:`read_pi_folder`): parents before their
  forks, and an entry of a fork whose ``(id, timestamp)`` was already read in
  the folder is ignored as ``duplicate_entry``. Keying on the timestamp too
  (*choice*) keeps unrelated sessions apart, whose 8-hex-digit entry ids can
  collide in a large folder. A fork read without its parent keeps its entries.
- ``measured_turn_duration_ms_total`` is 0 (the spec names no turn source).
- Other lines are ignored by ``type``, other messages as ``"message.<role>"``
  (``bashExecution`` is a user's ``!cmd``, not a tool call).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import PurePath
from typing import Any

import attrs

from wavemetrics.readers._lines import (
    LineAccount,
    account_tool_line,
    iter_records,
    os_text,
    usable_text,
)
from wavemetrics.readers.lanes import Lane, LaneBuilder, finish_single_lane
from wavemetrics.readers.sources import Source
from wavemetrics.timestamps import iso_to_ms

__all__ = ["PARENT_KEYS", "read_pi", "read_pi_folder", "read_pi_source", "sniff_pi"]

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
    entries: set[tuple[str, str]] | None = None,
    fork: bool = False,
) -> tuple[list[Lane], LineAccount]:
    """Read one pi session file into its single lane (none for an input with no records).

    ``lines``: raw physical lines. Problems: ``missing_type``,
    ``invalid_session_header``, ``invalid_payload`` (a ``message`` line whose
    ``message`` is not an object), ``invalid_tool_record``,
    ``invalid_timestamp``. ``entries``: the ``(id, timestamp)`` keys of entries
    already read in the folder, extended with this file's; with ``fork``, an
    entry found there is ignored as ``duplicate_entry``. Never raises for bad data.
    """
    account = LineAccount()
    state = _Session(LaneBuilder(path, "", "main"), account)
    seen = False
    for record in iter_records(lines, account):
        seen = True
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
    if not seen:
        return [], account
    return [finish_single_lane(state.lane, state.session_id, path, account)], account


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


def read_pi_folder(sources: Sequence[Source]) -> tuple[list[Lane], list[LineAccount]]:
    """Read the pi session files of one folder: parents before forks, copies ignored.

    Returns the lanes and one account per source, both in the order of
    ``sources`` (so the output does not depend on the reading order either).
    Never raises for bad data.
    """
    headers = {source.path: _header(source) for source in sources}
    by_path = {source.path: source for source in sources}
    entries: set[tuple[str, str]] = set()
    results: dict[str, tuple[list[Lane], LineAccount]] = {}
    for path in _parents_first([source.path for source in sources], headers):
        results[path] = read_pi(
            by_path[path].lines(), path=path, entries=entries,
            fork=headers[path].parent is not None,
        )
    lanes = [lane for source in sources for lane in results[source.path][0]]
    return lanes, [results[source.path][1] for source in sources]


def read_pi_source(source: Source) -> tuple[list[Lane], LineAccount]:
    """Registry entry point: read a whole :class:`Source` as a pi session file."""
    return read_pi(source.lines(), path=source.path)


def sniff_pi(lines: list[bytes], path: str) -> bool:
    """Whether the first lines hold a pi session header (``type == "session"`` with
    an ``id``) or a ``message`` line whose ``message`` has a ``role``."""
    for record in iter_records(lines, LineAccount()):
        kind = record.get("type")
        if kind == "session" and isinstance(record.get("id"), str) and "timestamp" in record:
            return True
        message = record.get("message")
        if kind == "message" and isinstance(message, dict) and "role" in message:
            return True
    return False
