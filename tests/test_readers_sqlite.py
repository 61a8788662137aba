"""The shared SQLite opening rules (``wavemetrics/readers/_sqlite.py``): read-only, a WAL
database read as last committed, a writer's lock and a corrupt file as one-line errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from wavemetrics.readers._sqlite import (
    LOCKED,
    SQLITE_MAGIC,
    StoreError,
    is_sqlite_header,
    is_wal,
    open_read_only,
    read_transaction,
    table_columns,
)


def _database(path: Path, wal: bool) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    if wal:
        assert connection.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
    connection.execute("CREATE TABLE part (id TEXT, data TEXT)")
    connection.execute("INSERT INTO part VALUES ('p1', '{}')")
    return connection


def test_the_header_is_known_by_its_magic_and_wal_by_bytes_18_and_19(tmp_path: Path) -> None:
    _database(tmp_path / "wal.db", wal=True).close()
    _database(tmp_path / "journal.db", wal=False).close()
    wal_head = (tmp_path / "wal.db").read_bytes()[:100]
    journal_head = (tmp_path / "journal.db").read_bytes()[:100]
    assert is_sqlite_header(wal_head) and is_sqlite_header(journal_head)
    assert (is_wal(wal_head), is_wal(journal_head)) == (True, False)
    assert SQLITE_MAGIC == b"SQLite format 3\x00"
    assert not is_sqlite_header(b"SQLite format 2\x00")
    assert not is_wal(SQLITE_MAGIC + b"\x10\x00\x02")  # 19 bytes: too short to say


def test_a_read_never_writes_nor_creates_files(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    _database(path, wal=False).close()
    before = path.read_bytes()
    with read_transaction(str(path)) as connection:
        assert connection.execute("SELECT id FROM part").fetchall() == [("p1",)]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            connection.execute("INSERT INTO part VALUES ('p2', '{}')")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.db"]


def test_a_wal_database_is_read_as_its_writer_last_committed(tmp_path: Path) -> None:
    path = tmp_path / "live.db"
    writer = _database(path, wal=True)  # stays open: no checkpoint moves the WAL back
    writer.execute("INSERT INTO part VALUES ('p2', '{}')")
    writer.execute("BEGIN")
    writer.execute("INSERT INTO part VALUES ('p3', 'not committed')")
    assert (tmp_path / "live.db-wal").stat().st_size > 0
    with read_transaction(str(path)) as connection:  # the writer holds its write lock
        ids = [row[0] for row in connection.execute("SELECT id FROM part ORDER BY id")]
    assert ids == ["p1", "p2"]
    writer.execute("ROLLBACK")
    writer.close()


def test_a_rollback_database_held_by_a_writer_is_the_locked_error(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    writer = _database(path, wal=False)
    writer.execute("BEGIN EXCLUSIVE")
    with pytest.raises(StoreError) as raised, read_transaction(str(path)) as connection:
        connection.execute("SELECT id FROM part").fetchall()
    assert str(raised.value) == LOCKED
    assert table_columns(str(path)) is None
    writer.execute("ROLLBACK")
    writer.close()
    assert table_columns(str(path)) == {"part": frozenset({"id", "data"})}


def test_a_corrupt_or_foreign_file_is_an_error_with_its_reason(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.db"
    foreign.write_bytes(b"not a database at all\n" * 100)
    reason = r"^not a readable SQLite database \(file is not a database\)$"
    with pytest.raises(StoreError, match=reason), read_transaction(str(foreign)) as connection:
        connection.execute("SELECT * FROM sqlite_master").fetchall()
    cut = tmp_path / "cut.db"
    _database(cut, wal=False).close()
    cut.write_bytes(cut.read_bytes()[:100] + b"\xff" * 4000)  # a header, then garbage pages
    assert table_columns(str(cut)) is None
    assert table_columns(str(tmp_path / "missing.db")) is None


def test_opening_a_missing_file_read_only_never_creates_it(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"^cannot read the SQLite database"):
        open_read_only(str(tmp_path / "absent.db"))
    assert list(tmp_path.iterdir()) == []


def test_names_with_uri_characters_are_opened_as_written(tmp_path: Path) -> None:
    path = tmp_path / "a ?b#c%d.db"
    _database(path, wal=False).close()
    assert table_columns(str(path)) == {"part": frozenset({"id", "data"})}
