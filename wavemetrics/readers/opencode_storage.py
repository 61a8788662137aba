"""The ``opencode-storage`` reader: opencode's older JSON-file storage (``docs/formats.md``).

Before its SQLite store, opencode wrote one JSON file per object under its data folder:
``storage/session/<projectID>/<sessionID>.json``, ``storage/message/<sessionID>/
<messageID>.json`` and ``storage/part/<messageID>/<partID>.json``; a part file holds the
same part as a store's ``part.data``, with its ``id``, ``sessionID`` and ``messageID``.
Rules (``docs/formats.md``, "opencode-storage"):

- Recognised: session files and tool part files (``"type": "tool"``); message files
  and other parts are not traces (skipped in a folder walk, so thousands of them make
  one note). A data folder that holds an ``opencode.db`` has its storage copied into
  that database by opencode: its storage files are then not recognised, so a folder
  holding both is counted once *(choice)*.
- The files of one ``storage`` folder are one read unit. One file is one line: a part
  file is read by the store's rules (:func:`~wavemetrics.readers.opencode.read_part_row`),
  a session file gives its session's ``parentID`` (used, or a problem), a message file
  (only when the format is forced) is ignored (``message``).
- Only the keys the rules need are decoded (typed decoding: a call's input and output
  are skipped, never built). A file longer than ``--max-line-bytes`` is
  ``line_too_long``.
- A call's batch is its part file's ``messageID`` (the store's ``message_id``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from typing import Any

import attrs
import msgspec

from wavemetrics.core.activity import Timing
from wavemetrics.readers._lines import LineAccount, usable_id
from wavemetrics.readers._protocol import ObservationSink, Peek
from wavemetrics.readers.limits import current_limits, nested_past, too_deeply_nested
from wavemetrics.readers.opencode import (
    ABORTED_ERROR,
    PartLanes,
    is_store_file,
    read_part_row,
)
from wavemetrics.readers.sources import Source

__all__ = ["OPENCODE_STORAGE", "read_opencode_storage", "sniff_opencode_storage", "storage_kind"]

FORMAT = "opencode-storage"
#: The id prefix of each kind of storage file (opencode's ``Identifier`` prefixes).
_PREFIXES = {"session": "ses", "message": "msg", "part": "prt"}
_ID = re.compile(r'"id"\s*:\s*"(ses|msg|prt)_')
_TOOL = re.compile(r'"type"\s*:\s*"tool"')


def storage_kind(path: str) -> tuple[str, str] | None:
    """``(kind, storage folder)`` of ``path`` when it is named as a storage file,
    ``<storage>/<kind>/<folder>/<name>.json`` with a kind of ``session``, ``message``,
    ``part``; else ``None``."""
    if not path.endswith(".json"):
        return None
    parts = os.path.abspath(path).split(os.sep)
    if len(parts) < 5 or parts[-4] != "storage" or parts[-3] not in _PREFIXES:
        return None
    return parts[-3], os.sep.join(parts[:-3])


class _Time(msgspec.Struct):
    start: Any = msgspec.UNSET
    end: Any = msgspec.UNSET


class _State(msgspec.Struct):
    status: Any = msgspec.UNSET
    #: Kept as the file's own bytes, compared with one fixed text, never decoded.
    error: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    time: _Time | msgspec.UnsetType | None = msgspec.UNSET


class _Part(msgspec.Struct):
    """The keys of a part file the rules read (any other key is skipped, never built)."""

    id: Any = msgspec.UNSET
    sessionID: Any = msgspec.UNSET
    messageID: Any = msgspec.UNSET
    type: Any = msgspec.UNSET
    callID: Any = msgspec.UNSET
    tool: Any = msgspec.UNSET
    state: _State | msgspec.UnsetType | None = msgspec.UNSET


class _Session(msgspec.Struct):
    id: Any = msgspec.UNSET
    parentID: Any = msgspec.UNSET


_PART = msgspec.json.Decoder(_Part)
_ABORTED = msgspec.json.encode(ABORTED_ERROR)
_SESSION = msgspec.json.Decoder(_Session)


def _json_type(value: Any) -> bytes | None:
    """SQLite's ``json_type`` name of a decoded value; ``None`` for an absent one."""
    if value is msgspec.UNSET:
        return None
    if value is None:
        return b"null"
    if isinstance(value, bool):
        return b"true" if value else b"false"
    if isinstance(value, int):
        return b"integer"
    if isinstance(value, float):
        return b"real"
    if isinstance(value, str):
        return b"text"
    return b"array" if isinstance(value, list) else b"object"


def _column(value: Any) -> Any:
    """A decoded value as the store's query gives it: text as UTF-8 bytes."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return value


def _part_row(part: _Part, size: int) -> tuple[Any, ...]:
    """A part file as the row :func:`read_part_row` reads from a store."""
    state = part.state if isinstance(part.state, _State) else None
    time = state.time if state is not None and isinstance(state.time, _Time) else None
    status = state.status if state is not None else msgspec.UNSET
    aborted = (state is not None and isinstance(state.error, msgspec.Raw)
               and bytes(state.error) == _ABORTED)
    start = time.start if time is not None else msgspec.UNSET
    end = time.end if time is not None else msgspec.UNSET
    session = part.sessionID if isinstance(part.sessionID, str) else None
    message = part.messageID if isinstance(part.messageID, str) else None
    return (
        _column(session), size, 1, 1, b"object",
        _column(part.type), _json_type(part.type), _column(part.callID), _json_type(part.callID),
        _column(part.tool), _json_type(part.tool), _column(status), _json_type(status),
        aborted, start, _json_type(start), end, _json_type(end), _column(message),
    )


def _read_bytes(path: str, account: LineAccount) -> bytes | None:
    """The file's bytes, or ``None`` with the line counted as a problem."""
    limit = current_limits().max_line_bytes
    try:
        with open(path, "rb") as stream:
            data = stream.read(limit + 1)
    except OSError:
        account.problem("unreadable_file")
        return None
    if len(data) > limit:
        account.problem("line_too_long")
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        account.problem("invalid_utf8")
        return None
    return data


def _decode(decoder: Any, data: bytes, account: LineAccount) -> Any:
    if nested_past(data) is not None:  # past MAX_JSON_DEPTH: json's first failure names it
        deep = too_deeply_nested(data.decode("utf-8"), json.loads)
        account.problem("too_deeply_nested" if deep else "invalid_json")
        return None
    if not data.lstrip(b" \t\r\n").startswith(b"{"):
        try:
            msgspec.json.decode(data)  # not an object: no part, nothing private to build
        except (msgspec.DecodeError, RecursionError):
            account.problem("invalid_json")
        else:
            account.problem("not_an_object")
        return None
    try:
        return decoder.decode(data)
    except msgspec.ValidationError:
        account.problem("invalid_tool_record" if decoder is _PART else "invalid_session")
    except (msgspec.DecodeError, RecursionError):
        account.problem("invalid_json")
    return None


def read_opencode_storage(sources: Sequence[Source], sink: ObservationSink) -> list[LineAccount]:
    """Read the files of one ``storage`` folder into ``sink``: one account per source.
    Never raises for bad data."""
    accounts = [LineAccount() for _ in sources]
    named = [(source, account, storage_kind(source.path)) for source, account
             in zip(sources, accounts, strict=True)]
    storage = next((found[1] for _, _, found in named if found is not None), None)
    parents: dict[str, str | None] = {}
    parts: list[tuple[str, LineAccount, tuple[Any, ...]]] = []
    for source, account, found in named:
        account.lines_read += 1
        kind = found[0] if found is not None else None
        if kind == "message":
            account.ignore("message")
            continue
        data = _read_bytes(source.path, account)
        if data is None:
            continue
        if kind == "session":
            session = _decode(_SESSION, data, account)
            if session is None:
                continue
            own = usable_id(session.id)
            if own is None:
                account.problem("invalid_session")
                continue
            parents[own] = usable_id(session.parentID)
            account.use()
            continue
        part = _decode(_PART, data, account)
        if part is None:
            continue
        account.lines_read -= 1  # read_part_row counts the line itself
        parts.append((source.path, account, _part_row(part, len(data))))
    lanes = PartLanes(storage or "", sink, in_order=False)
    roots: dict[str, str | None] = {}
    for path, account, row in parts:
        read_part_row(row, account, lanes, parents, roots, path)
    lanes.build()
    return accounts


def sniff_opencode_storage(peek: Peek) -> bool:
    """Whether the input is a session file or a tool part file of opencode's JSON
    storage: named as one (:func:`storage_kind`), opening with the ``id`` of its kind
    (a part's ``type`` ``"tool"``), in a data folder with no ``opencode.db`` (which
    then holds the same sessions: opencode copies its JSON storage into it)."""
    found = storage_kind(peek.path)
    if found is None or found[0] == "message" or not is_store_file(peek.path):
        return False
    match = _ID.search(peek.text)
    if (not peek.text.startswith("{") or match is None
            or match.group(1) != _PREFIXES[found[0]]):
        return False
    if found[0] == "part" and _TOOL.search(peek.text) is None:
        return False
    return not os.path.exists(os.path.join(os.path.dirname(found[1]), "opencode.db"))


@attrs.frozen
class _OpencodeStorage:
    """The ``opencode-storage`` format: the files of one ``storage`` folder are read
    together (a part's session parent is in a session file)."""

    name: str = FORMAT
    streamable: bool = True
    timing: Timing = "execution"
    #: Its detection depends on the ``opencode.db`` beside the folder, which no file key
    #: of its own covers: never cached, as a store is not.
    store: bool = True

    def sniff(self, peek: Peek) -> bool:
        return sniff_opencode_storage(peek)

    def unit_key(self, path: str) -> str:
        found = storage_kind(path)
        return path if found is None else found[1]

    def read(self, sources: Sequence[Source], sink: ObservationSink) -> list[LineAccount]:
        return read_opencode_storage(sources, sink)


#: The ``opencode-storage`` format (``docs/formats.md``).
OPENCODE_STORAGE = _OpencodeStorage()
