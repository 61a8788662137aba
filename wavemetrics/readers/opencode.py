"""The ``opencode`` reader: the SQLite store of opencode, Kilo and ZCode (``docs/formats.md``).

opencode keeps its sessions in one SQLite database (``opencode.db``; Kilo, a fork, in
``kilo.db``; ZCode, by second-hand report, in ``db.sqlite`` with the same tables). A
tool call is one row of the ``part`` table whose JSON ``data`` has ``type == "tool"``,
``callID``, ``tool`` and ``state`` with ``status`` and ``time.start`` / ``time.end`` in
Unix ms (``docs/formats.md``, "opencode"). Rules:

- One line = one ``part`` row. Every row is used (a call fed), ignored (another part
  type, as ``part.<type>``; a pending call, ``tool.pending``; an aborted call whose
  times are unknown, ``tool.aborted``) or a problem, so
  ``lines_read == lines_used + lines_ignored + problems``. Session and message rows are
  not lines.
- Only the JSON paths the rules need are selected, by SQLite's ``json_extract`` in the
  query: a call's input, output and metadata never reach Python. A row whose ``data``
  is longer than ``--max-line-bytes`` is ``line_too_long`` and is not parsed.
- Lanes: a session's calls are one lane. A session with a ``parent_id`` (a sub-agent
  started by the ``task`` tool) is a lane of its root session named by its own id; the
  root session's own lane is ``main``.
- Calls are fed per lane in order of start time (ties by part id), each start followed
  at once by its end; a running call (a start, no end) is incomplete; an end before its
  start reaches the core, which counts a clock anomaly.
- A call's batch is the part's ``message_id`` column (one assistant message is one
  model step); none when it is not usable id text.
- The store is opened read-only in one read transaction, rows read one at a time
  (:mod:`wavemetrics.readers._sqlite`); a locked, corrupt or truncated database is an
  error for that input.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from typing import Any

from wavemetrics.readers._lines import LINE_TOO_LONG, LineAccount, bad_id, usable_id
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._sqlite import (
    LOCKED,
    SQLITE_MAGIC,
    StoreError,
    is_sqlite_header,
    read_transaction,
)
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.readers.limits import current_limits
from wavemetrics.readers.sources import STDIN, Source
from wavemetrics.readers.timestamps import ms_from_number

__all__ = [
    "ABORTED_ERROR", "OPENCODE", "STORE_TABLES", "PartLanes", "read_opencode", "read_part_row",
    "session_root", "sniff_opencode",
]

FORMAT = "opencode"
#: The columns a store must have, by table (``session.sql.ts``); more are allowed.
STORE_TABLES: dict[str, frozenset[str]] = {
    "session": frozenset(("id", "parent_id")),
    "part": frozenset(("id", "message_id", "session_id", "data")),
}
#: The ``state.error`` opencode writes on a call it closes because its step ended
#: before the call did (``processor.ts``): its times are then both the closing moment.
ABORTED_ERROR = "Tool execution aborted"
#: The lane of a root session's own calls.
MAIN_LANE = "main"
_STATUSES = frozenset(("pending", "running", "completed", "error"))
_NUMBER = (b"integer", b"real")
# A parent chain longer than this is taken for a loop (a hostile store).
_MAX_DEPTH = 1000

# ``doc`` is the row's JSON only when it is text, within --max-line-bytes and valid
# RFC 8259 JSON (no NaN): json_extract never sees anything else, so a bad row is a
# counted problem and never stops the query. Only these paths leave SQLite.
_PARTS = """
SELECT session_id, size, is_text, valid, json_type(doc),
       json_extract(doc, '$.type'), json_type(doc, '$.type'),
       json_extract(doc, '$.callID'), json_type(doc, '$.callID'),
       json_extract(doc, '$.tool'), json_type(doc, '$.tool'),
       json_extract(doc, '$.state.status'), json_type(doc, '$.state.status'),
       json_type(doc, '$.state.error') = 'text'
           AND json_extract(doc, '$.state.error') = :aborted,
       json_extract(doc, '$.state.time.start') AS start_ms, json_type(doc, '$.state.time.start'),
       json_extract(doc, '$.state.time.end'), json_type(doc, '$.state.time.end'),
       message_id
FROM (
    SELECT session_id, id, message_id, size, is_text, valid,
           CASE WHEN valid THEN data END AS doc
    FROM (
        SELECT session_id, id, message_id, data, length(CAST(data AS BLOB)) AS size,
               typeof(data) = 'text' AS is_text,
               CASE WHEN typeof(data) = 'text' AND length(CAST(data AS BLOB)) <= :max
                   THEN json_valid(data) ELSE 0 END AS valid
        FROM part
    )
)
ORDER BY session_id, start_ms, id
"""


def _text(value: object) -> str | None:
    """A column or JSON string read as bytes (``text_factory``) decoded, else ``None``
    (bad UTF-8 is then refused like any unusable id)."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return "\ud800"  # unusable id text: bad_id() says invalid_id
    return None


def _sessions(connection: sqlite3.Connection) -> dict[str, str | None]:
    """Every session's parent id (``None`` for a root), by session id."""
    parents: dict[str, str | None] = {}
    for raw_id, raw_parent in connection.execute("SELECT id, parent_id FROM session"):
        session = usable_id(_text(raw_id))
        if session is not None:
            parents[session] = usable_id(_text(raw_parent))
    return parents


def session_root(
    session: str, parents: dict[str, str | None], roots: dict[str, str | None]
) -> str | None:
    """The root of ``session``'s parent chain (a parent missing from the table is a
    root), or ``None`` when the chain loops."""
    if session in roots:
        return roots[session]
    chain = [session]
    current: str | None = session
    root: str | None = None
    while current is not None and len(chain) <= _MAX_DEPTH:
        parent = parents.get(current)
        if parent is None:
            root = current
            break
        if parent in roots:
            root = roots[parent]
            break
        if parent in chain:
            break
        chain.append(parent)
        current = parent
    for member in chain:
        roots[member] = root
    return root


def _time(kind: object, value: object) -> tuple[bool, float | None]:
    """``(present, ms)`` of a JSON time: ``ms`` is ``None`` when absent or unusable."""
    if kind is None:
        return False, None
    if kind not in _NUMBER:
        return True, None
    return True, ms_from_number(value)


class PartLanes:
    """The lanes of one store, opened on first use and built together at the end.

    With ``in_order`` the calls arrive in start order (the store's query sorts them) and
    are fed at once; otherwise they are kept and fed per lane in start order (ties in
    arrival order) by :meth:`build`.
    """

    def __init__(self, path: str, sink: ObservationSink, *, in_order: bool = True) -> None:
        self.path = path
        self.sink = sink
        self.in_order = in_order
        self.lanes: dict[str, LaneBuilder] = {}
        self.kept: dict[str, list[tuple[float, int, str, str, float | None, str | None]]] = {}

    def lane(self, session: str, root: str, path: str | None = None) -> LaneBuilder:
        """The lane of ``session`` (under ``root``), opened first in ``path`` (else the
        store's)."""
        lane = self.lanes.get(session)
        if lane is None:
            lane_id = MAIN_LANE if session == root else session
            lane = self.lanes[session] = LaneBuilder(
                path or self.path, root, lane_id, sink=self.sink)
        return lane

    def call(self, session: str, root: str, call_id: str, tool_name: str, start_ms: float,
             end_ms: float | None, path: str | None = None, batch: str | None = None) -> None:
        """One call of ``session`` (a start, and its end unless ``None``), in ms, read
        from ``path`` (else the store); ``batch``: its message id, or ``None``."""
        lane = self.lane(session, root, path)
        if self.in_order:
            _feed(lane, call_id, tool_name, start_ms, end_ms, batch)
            return
        calls = self.kept.setdefault(session, [])
        calls.append((start_ms, len(calls), call_id, tool_name, end_ms, batch))

    def build(self) -> None:
        for session, lane in self.lanes.items():
            kept = sorted(self.kept.get(session, ()), key=lambda call: call[:2])
            for start_ms, _, call_id, tool_name, end_ms, batch in kept:
                _feed(lane, call_id, tool_name, start_ms, end_ms, batch)
            lane.build()


def _feed(lane: LaneBuilder, call_id: str, tool_name: str, start_ms: float,
          end_ms: float | None, batch: str | None) -> None:
    lane.start(call_id, tool_name, start_ms, batch)
    if end_ms is not None:
        lane.end(call_id, end_ms)


def _rows(connection: sqlite3.Connection) -> Iterator[tuple[Any, ...]]:
    cursor = connection.execute(
        _PARTS, {"max": current_limits().max_line_bytes, "aborted": ABORTED_ERROR})
    while True:
        row = cursor.fetchone()
        if row is None:
            return
        yield row


def read_part_row(row: tuple[Any, ...], account: LineAccount, lanes: PartLanes,
                  parents: dict[str, str | None], roots: dict[str, str | None],
                  path: str | None = None) -> None:
    """Account one ``part`` row, feeding its call when it is a usable tool part.

    ``row``: the columns of the store's query (``json_type`` names and values, text as
    UTF-8 bytes; whether ``state.error`` is :data:`ABORTED_ERROR`, compared in the
    query so the error text never reaches Python; the ``message_id`` column last);
    ``parents``: each session's parent; ``roots``: memo of :func:`session_root`;
    ``path``: the file it was read from, when not the store."""
    (raw_session, size, is_text, valid, top, kind, kind_type, call, call_type, tool,
     tool_type, status, status_type, aborted, start, start_type, end, end_type,
     message) = row
    account.lines_read += 1
    if is_text and isinstance(size, int) and size > current_limits().max_line_bytes:
        account.problem("line_too_long")
        return
    if not valid:
        account.problem("invalid_json")
        return
    if top != b"object":
        account.problem("not_an_object")
        return
    if kind_type != b"text":
        account.problem("missing_type")
        return
    part_type = _text(kind) or ""
    if part_type != "tool":
        account.ignore(f"part.{part_type}")
        return
    session_text = _text(raw_session)
    session = usable_id(session_text)
    call_text = _text(call) if call_type == b"text" else None
    if bad_id(session_text) or bad_id(call_text) or session is None:
        account.problem("invalid_id")
        return
    call_id = usable_id(call_text)
    tool_name = usable_id(_text(tool) if tool_type == b"text" else None)
    state = _text(status) if status_type == b"text" else None
    if call_id is None or tool_name is None or state not in _STATUSES:
        account.problem("invalid_tool_record")
        return
    has_start, start_ms = _time(start_type, start)
    has_end, end_ms = _time(end_type, end)
    if (has_start and start_ms is None) or (has_end and end_ms is None):
        account.problem("invalid_timestamp")
        return
    if state == "pending" and not has_start and not has_end:
        account.ignore("tool.pending")
        return
    if state in ("pending", "running") and has_end:
        account.problem("invalid_tool_record")
        return
    if start_ms is None or (state in ("completed", "error") and end_ms is None):
        account.problem("invalid_timestamp")
        return
    if state == "error" and aborted and end_ms is not None and 0 <= end_ms - start_ms <= 1:
        # opencode rewrites a call still pending or running when its step ends (an
        # abort, a stream error) to this error with start and end both "now": its
        # times are unknown, not a 0 ms call
        account.ignore("tool.aborted")
        return
    root = session_root(session, parents, roots)
    if root is None:
        account.problem("invalid_session")
        return
    batch = usable_id(_text(message))  # the message that issued it; unusable: no batch
    lanes.call(session, root, call_id, tool_name, start_ms, end_ms, path, batch)
    account.use()


def read_opencode(path: str, sink: ObservationSink) -> tuple[LineAccount, str | None]:
    """Read the store ``path`` into ``sink``; returns its line account and the error
    that stopped the read (``None`` when read in full). On an error no lane of the
    store is reported. Never raises for bad data."""
    account = LineAccount()
    lanes = PartLanes(path, sink)
    try:
        with read_transaction(path) as connection:
            connection.text_factory = bytes
            parents = _sessions(connection)
            roots: dict[str, str | None] = {}
            for row in _rows(connection):
                read_part_row(row, account, lanes, parents, roots)
    except StoreError as error:
        account.error = str(error)
        return account, account.error
    lanes.build()
    return account, None


def _read_source(source: Source, sink: ObservationSink) -> LineAccount:
    if source.read_once():
        account = LineAccount()
        account.error = "an opencode store is read from a file, not from a stream"
    else:
        account, _ = read_opencode(source.path, sink)
    if account.error is not None and source.error is None:
        source.error = account.error
    return account


def is_store_file(path: str) -> bool:
    """Whether ``path`` is a regular file (a store is never stdin or a pipe)."""
    if path == STDIN:
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _head(path: str) -> bytes:
    try:
        with open(path, "rb") as stream:
            return stream.read(len(SQLITE_MAGIC))
    except OSError:
        return b""


def sniff_opencode(peek: Peek) -> bool:
    """Whether the input is an opencode-layout store: a regular file that starts with the
    SQLite header and has the ``session`` and ``part`` tables with their columns (or
    that its agent holds locked, see below)."""
    if not peek.lines or not is_store_file(peek.path):
        return False
    first = peek.lines[0]
    if first is LINE_TOO_LONG:  # a first page past --max-line-bytes: look at the file
        first = _head(peek.path)
    if not is_sqlite_header(first):
        return False
    try:
        tables = _tables(peek.path)
    except StoreError as error:
        # a database its agent is writing right now (rollback-journal mode) cannot
        # show its tables: taken as a store, so the input says "locked: run again"
        return str(error) == LOCKED
    return all(columns <= tables.get(name, frozenset()) for name, columns in STORE_TABLES.items())


def _tables(path: str) -> dict[str, frozenset[str]]:
    """The columns of the store's tables, by table; raises :class:`StoreError`."""
    with read_transaction(path) as connection:
        names = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            name: frozenset(str(row[1]) for row in connection.execute(
                "SELECT * FROM pragma_table_info(?)", (name,)))
            for name in names if isinstance(name, str) and name in STORE_TABLES
        }


#: The ``opencode`` format (``docs/formats.md``): opencode, Kilo and ZCode stores.
OPENCODE = FileFormat(FORMAT, sniff_opencode, _read_source, timing="execution", store=True)
