"""SQLite stores, opened the way an agent's live database must be: read-only, never locked.

Several agents keep their sessions in a SQLite file that the agent may be writing
while wavemetrics reads it (``docs/formats.md``, "SQLite stores"). The rules, in one
place for every reader and recogniser:

- The file is opened with SQLite's URI ``mode=ro``: nothing is ever written, no
  journal or WAL is created, and the connection cannot change the database.
- A database in WAL mode (header bytes 18 and 19 are 2) is read as the agent last
  committed it: a reader of a WAL database takes no lock that blocks the writer,
  and sees every transaction committed to the ``-wal`` file when its read began.
- A database in rollback-journal mode is read under SQLite's shared lock for the
  length of one read transaction; a writer mid-commit holds the file, and the read
  then fails at once (no busy wait) with :data:`LOCKED`, an error for that input:
  running again later reads it.
- A file that is not a database, or one whose pages are corrupt, is an error for
  that input (:class:`StoreError`), never a traceback.

Stdlib only (:mod:`sqlite3`); an input that is not a regular file (stdin, a pipe)
cannot be a store.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import urllib.parse
from collections.abc import Iterator

__all__ = [
    "LOCKED",
    "SQLITE_MAGIC",
    "StoreError",
    "is_sqlite_header",
    "is_wal",
    "open_read_only",
    "read_transaction",
    "table_columns",
]

#: The first 16 bytes of every SQLite 3 database file (the file format's header).
SQLITE_MAGIC = b"SQLite format 3\x00"
#: The reason given when a writer holds the database (rollback-journal mode only).
LOCKED = "the database is being written by its agent (locked): run again to read it"


class StoreError(Exception):
    """A SQLite store that cannot be read: its one-line reason is ``str(error)``."""


def is_sqlite_header(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) starts a SQLite 3 database."""
    return head.startswith(SQLITE_MAGIC)


def is_wal(head: bytes) -> bool:
    """Whether a database's header (its first 20 bytes or more) says WAL mode: the file
    format's write and read versions, bytes 18 and 19, are both 2 (SQLite's file
    format, "The Database Header")."""
    return len(head) >= 20 and head[18] == 2 and head[19] == 2


def _reason(error: sqlite3.Error) -> str:
    text = str(error)
    if "locked" in text or "busy" in text:
        return LOCKED
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return f"not a readable SQLite database ({text})"
    return f"cannot read the SQLite database ({text})"


def open_read_only(path: str) -> sqlite3.Connection:
    """A read-only connection to the database file ``path``.

    Raises :class:`StoreError` (with its reason) when the file cannot be opened as a
    database. The connection waits for no lock (busy timeout 0).
    """
    # the path's bytes, each percent-encoded as needed: a name that is not UTF-8 (held
    # in a str by its surrogate escapes) opens the file it names
    uri = "file:" + urllib.parse.quote(os.fsencode(path)) + "?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=0.0, check_same_thread=False)
    except sqlite3.Error as error:
        raise StoreError(_reason(error)) from None
    return connection


@contextlib.contextmanager
def read_transaction(path: str) -> Iterator[sqlite3.Connection]:
    """``path`` open read-only inside one read transaction, so every query sees one
    committed state of the database; closed on exit. Any :class:`sqlite3.Error` raised
    inside (a lock, a corrupt page, a missing table) becomes :class:`StoreError`."""
    connection = open_read_only(path)
    try:
        connection.execute("BEGIN")
        yield connection
    except sqlite3.Error as error:
        raise StoreError(_reason(error)) from None
    finally:
        with contextlib.suppress(sqlite3.Error):
            connection.close()


def table_columns(path: str) -> dict[str, frozenset[str]] | None:
    """The tables of the database ``path`` with their column names, or ``None`` when it
    cannot be read as one (for recognisers: a store is known by its tables)."""
    try:
        with read_transaction(path) as connection:
            names = [row[0] for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")]
            return {
                name: frozenset(str(row[1]) for row in connection.execute(
                    "SELECT * FROM pragma_table_info(?)", (name,)))
                for name in names if isinstance(name, str)
            }
    except StoreError:
        return None
