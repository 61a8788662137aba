"""The ``openclaw`` reader: OpenClaw's SQLite transcript store (``docs/formats.md``, "openclaw").

OpenClaw (2026.9.2 and later) keeps each agent's sessions in
``~/.openclaw/agents/<agentId>/agent/openclaw-agent.sqlite``, table
``transcript_events(session_id, seq, event_json)``: each row's ``event_json`` is
one pi session record, exactly the line the older ``sessions/<id>.jsonl`` files
held. Those JSONL files are pi's format byte for byte and are detected and read
as ``pi``; this module reads the store with pi's reading logic
(:class:`~wavemetrics.readers.pi.PiReader`), one row as one line:

- the rows of one ``session_id`` are one session, in ``seq`` order, and give one
  lane (``"main"``) named by that ``session_id`` (a sub-agent run is a session of
  its own, so a lane of its own); sessions are read in ``session_id`` order;
- a session is taken as pi's format version 3 until a ``session`` header row
  says otherwise: the store exists only since OpenClaw 2026.9.2, long after pi
  ran the calls of one message in parallel, so no start is reconstructed
  (:func:`~wavemetrics.readers.pi.sequential_message`);
- a row whose ``session_id`` is not a usable id is ``invalid_id``, a row whose
  ``event_json`` is NULL ``invalid_payload``, a row longer than
  ``max_line_bytes`` ``line_too_long`` (its text is not fetched); anything else
  is counted as pi counts a line.

The database is opened read-only in one read transaction and read row by row
(:mod:`wavemetrics.readers._sqlite`); a store that cannot be read (locked by a
writer, corrupt) is an error for that input, never a traceback.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator

from wavemetrics.readers._lines import LINE_TOO_LONG, LineAccount, usable_id
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._sqlite import (
    StoreError,
    is_sqlite_header,
    read_transaction,
    table_columns,
)
from wavemetrics.readers.limits import current_limits
from wavemetrics.readers.pi import PiReader
from wavemetrics.readers.sources import STDIN, Source

__all__ = ["OPENCLAW", "STORE_VERSION", "TABLE", "read_openclaw", "sniff_openclaw"]

FORMAT = "openclaw"
#: The table and the columns this reader needs.
TABLE = "transcript_events"
_COLUMNS = frozenset(("session_id", "seq", "event_json"))
#: The pi format version assumed for a session of the store without a header row.
STORE_VERSION = 3

# One query, sorted by the store's own keys; a row too long is not fetched (NULL text,
# its length kept). CAST to BLOB: the bytes as stored, whatever the column's type.
_ROWS = f"""
SELECT session_id, length(CAST(event_json AS BLOB)),
       CASE WHEN length(CAST(event_json AS BLOB)) <= ? THEN CAST(event_json AS BLOB) END
FROM {TABLE} ORDER BY session_id, seq, rowid
"""


def _head(path: str) -> bytes:
    try:
        with open(path, "rb") as stream:
            return stream.read(16)
    except OSError:
        return b""


def sniff_openclaw(peek: Peek) -> bool:
    """Whether the input is a SQLite database with a ``transcript_events`` table holding
    ``session_id``, ``seq`` and ``event_json`` (a regular file only)."""
    if peek.path == STDIN or not os.path.isfile(peek.path) or not is_sqlite_header(
            _head(peek.path)):
        return False
    tables = table_columns(peek.path)
    return tables is not None and tables.get(TABLE, frozenset()) >= _COLUMNS


_Row = tuple[object, object, object]


def _rows(connection: sqlite3.Connection, max_bytes: int) -> Iterator[_Row]:
    connection.text_factory = bytes
    yield from connection.execute(_ROWS, (max_bytes,))


def _session_name(value: object) -> str | None:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return usable_id(value)


def read_openclaw(source: Source, sink: ObservationSink) -> LineAccount:
    """Read an OpenClaw store into ``sink``: one lane per session; returns the row
    account (a row is a line). A store that cannot be read sets ``source.error``
    (the rows read before it stay counted). Never raises for bad data."""
    account = LineAccount()
    max_bytes = current_limits().max_line_bytes
    current: tuple[str, PiReader] | None = None
    try:
        with read_transaction(source.path) as connection:
            for raw_session, length, event in _rows(connection, max_bytes):
                session = _session_name(raw_session)
                if session is None:
                    account.lines_read += 1
                    account.problem("invalid_id")
                    continue
                if current is None or current[0] != session:
                    if current is not None:
                        current[1].finish()
                    current = (session, PiReader(source.path, sink, account,
                                                 session_id=session, version=STORE_VERSION))
                if length is None:
                    account.lines_read += 1
                    account.problem("invalid_payload")
                elif event is None:
                    current[1].read([LINE_TOO_LONG])
                else:
                    assert isinstance(event, bytes)
                    current[1].read([event + b"\n"])
    except StoreError as error:
        if source.error is None:
            source.error = str(error)
    if current is not None:
        current[1].finish()
    return account


#: The ``openclaw`` format (``docs/formats.md``): OpenClaw's SQLite store.
OPENCLAW = FileFormat(
    FORMAT, sniff_openclaw, read_openclaw, timing="message", streamable=True, store=True
)
