"""The whole outputs' files (:mod:`wavemetrics.runstore`): layout, replacement, the
bound on their number, and a damaged or foreign file never trusted."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from wavemetrics.runstore import MAGIC, MAX_RUNS, STALE_SECONDS, RunStore


def _hex(number: int) -> str:
    return f"{number:064x}"


def _file_of(key: str, blob: bytes) -> bytes:
    """The layout, spelled out: magic, the key's 64 ASCII digits, 16 bytes of SHA-256,
    the output."""
    return MAGIC + key.encode() + hashlib.sha256(blob).digest()[:16] + blob


def test_an_output_is_one_file_named_by_its_command(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path / "runs"))
    assert store.store(_hex(1), _hex(2), b"out\n")
    assert os.listdir(tmp_path / "runs") == [_hex(2)]
    assert (tmp_path / "runs" / _hex(2)).read_bytes() == _file_of(_hex(1), b"out\n")
    assert store.load(_hex(1), _hex(2)) == b"out\n"
    assert store.load(_hex(1), _hex(3)) is None  # another command: nothing stored
    assert (store.count(), store.size()) == (1, 8 + 64 + 16 + 4)


def test_a_new_state_of_the_command_replaces_its_output(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path))
    assert store.store(_hex(1), _hex(9), b"old")
    assert store.load(_hex(5), _hex(9)) is None  # a miss: the file is sound and kept
    assert (tmp_path / _hex(9)).read_bytes() == _file_of(_hex(1), b"old")
    assert store.store(_hex(5), _hex(9), b"new")
    assert store.load(_hex(1), _hex(9)) is None
    assert store.load(_hex(5), _hex(9)) == b"new"
    assert os.listdir(tmp_path) == [_hex(9)]  # no temporary file left


def test_an_empty_output_round_trips(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path))
    assert store.store(_hex(1), _hex(2), b"")
    assert store.load(_hex(1), _hex(2)) == b""


def test_a_damaged_or_foreign_file_is_deleted_not_served(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path))
    path = tmp_path / _hex(2)
    cases = {
        "flipped output byte": _file_of(_hex(1), b"output")[:-1] + b"X",
        "flipped digest byte": (lambda d: d[:80] + bytes([d[80] ^ 1]) + d[81:])(
            _file_of(_hex(1), b"output")),
        "cut in the head": _file_of(_hex(1), b"output")[:50],
        "no magic": b"x" * 100,
        "another layout version": MAGIC[:-1] + b"\x02" + _file_of(_hex(1), b"o")[8:],
        "a key that is not hex": MAGIC + b"z" * 64 + b"\x00" * 16 + b"o",
        "empty": b"",
    }
    for name, data in cases.items():
        path.write_bytes(data)
        assert store.load(_hex(1), _hex(2)) is None, name
        assert not path.exists(), name


def test_names_that_are_not_64_hex_digits_are_never_files(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path / "runs"))
    for key, scope in ((_hex(1), "../x"), (_hex(1), "ab"), ("k", _hex(2)),
                       (_hex(1), _hex(0xABC).upper()), (_hex(1), _hex(2) + "0")):
        assert not store.store(key, scope, b"x")
        assert store.load(key, scope) is None
    assert not (tmp_path / "runs").exists()
    assert store.count() == 0 and store.size() == 0 and not store.clear()


def test_at_most_max_runs_outputs_the_least_recently_stored_go(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path))
    for number in range(MAX_RUNS):
        assert store.store(_hex(number), _hex(100 + number), b"x")
    assert store.count() == MAX_RUNS
    assert store.store(_hex(0), _hex(100), b"again")  # the first command, stored again
    assert store.store(_hex(MAX_RUNS), _hex(100 + MAX_RUNS), b"x")  # one too many
    assert store.count() == MAX_RUNS
    assert store.load(_hex(1), _hex(101)) is None  # the least recently stored went
    assert store.load(_hex(0), _hex(100)) == b"again"
    assert store.load(_hex(2), _hex(102)) == b"x"
    assert store.load(_hex(MAX_RUNS), _hex(100 + MAX_RUNS)) == b"x"


def test_a_stale_temporary_file_is_removed_by_the_next_store(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path))
    stale, fresh = tmp_path / f".{_hex(7)}.1.1", tmp_path / f".{_hex(8)}.2.2"
    stale.write_bytes(b"cut")
    fresh.write_bytes(b"being written")
    old = time.time_ns() - (STALE_SECONDS + 60) * 10**9
    os.utime(stale, ns=(old, old))
    assert store.store(_hex(1), _hex(2), b"x")
    assert sorted(os.listdir(tmp_path)) == sorted([fresh.name, _hex(2)])
    assert store.count() == 1  # a temporary file is no output
    assert store.size() == len(b"being written") + 8 + 64 + 16 + 1


def test_a_store_that_cannot_write_fails_quietly_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"")
    assert not RunStore(str(tmp_path / "file" / "runs")).store(_hex(1), _hex(2), b"x")
    store = RunStore(str(tmp_path / "runs"))
    (tmp_path / "runs" / _hex(2)).mkdir(parents=True)  # the name taken by a folder
    assert not store.store(_hex(1), _hex(2), b"x")
    assert os.listdir(tmp_path / "runs") == [_hex(2)]  # the temporary file removed
    assert store.load(_hex(1), _hex(2)) is None  # a folder is not read


def test_clear_removes_every_file_and_the_folder(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path / "runs"))
    assert store.store(_hex(1), _hex(2), b"x")
    (tmp_path / "runs" / ".partial").write_bytes(b"y")
    assert store.clear()
    assert not (tmp_path / "runs").exists()
    assert not store.clear()


def test_the_cache_folder_s_bytes_count_its_files_and_the_outputs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound is checked on the folder's own files (database, journal) plus the outputs
    folder's: a 100-byte database and a 12-byte output's file (88 + 12 = 100 bytes) are
    200 bytes; past the bound only when it is below 200, never with the bound 0 (none)."""
    from wavemetrics._cachedir import MAX_BYTES_ENV
    from wavemetrics.runstore import RUNS_FOLDER, cache_bytes

    (tmp_path / "cache.sqlite3").write_bytes(b"d" * 100)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "other").write_bytes(b"o" * 1000)  # not the cache's: not counted
    store = RunStore(str(tmp_path / RUNS_FOLDER))
    assert store.store(_hex(1), _hex(2), b"0123456789ab")
    assert store.directory == str(tmp_path)
    assert cache_bytes(str(tmp_path)) == 200
    for bound, over in (("199", True), ("200", False), ("0", False)):
        monkeypatch.setenv(MAX_BYTES_ENV, bound)
        assert store.over_bound() is over
