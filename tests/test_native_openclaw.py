"""The native ``openclaw`` reader against the Python reference: same stores, same output.

The corpus holds no OpenClaw store, so the stores are built from the layout
``docs/formats.md`` (``openclaw``) describes: Hypothesis-drawn ``transcript_events`` rows
(pi session lines and calls under a few sessions, ids of every SQLite type, rows stored
as TEXT or BLOB, NULL, blank and doubled rows, BOMs, CRs, repeated ``seq``), damaged
logs cut into rows, hostile rows (huge numbers, NaN, duplicate keys, nesting either side
of the measured depth) and stores SQLite cannot read are summarised by both engines;
the whole ``summarize --format json`` document must be equal, and a spy proves the
extension read the store.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import (
    OPENCLAW_SESSIONS,
    damaged,
    engine_caps,
    engine_eval_names,
    openclaw_rows,
    pi_calls,
    pi_records,
    trace_files,
)
from tests.test_native import CONSOLE, DIFFERENTIAL, _both, console_command
from tests.test_native_copilot import reading_codes
from wavemetrics.readers.openclaw import OPENCLAW
from wavemetrics.readers.registry import NATIVE_ROWS
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")

#: The extension's code for the format (its registry row's).
_CODE = next(row.native.code for row in NATIVE_ROWS if row.name == OPENCLAW.name and row.native)

_Row = tuple[object, int, object]


def _store(path: Path, rows: list[_Row], affinity: str = "TEXT") -> str:
    """A store at ``path`` holding ``rows`` in the order given (``rowid`` order), its
    ``session_id`` and ``event_json`` columns of ``affinity`` (``""``: none, values kept
    as given; ``TEXT`` turns numbers into text)."""
    if path.exists():
        path.unlink()
    connection = sqlite3.connect(path)
    connection.execute(f"CREATE TABLE transcript_events (session_id {affinity}, seq INTEGER,"
                       f" event_json {affinity}, created_at INTEGER)")
    connection.executemany("INSERT INTO transcript_events VALUES (?, ?, ?, 0)", rows)
    connection.commit()
    connection.close()
    return str(path)


def _both_store(path: str, cap: int = 2000, names: tuple[str, ...] = ("eval",)) -> str:
    # the extension reads the store itself (it gives back only what SQLite cannot read)
    assert native.read_unit_native(OPENCLAW.name, (path,), StreamSettings(engine="native"))
    with reading_codes() as spy:
        document = _both([path], OPENCLAW.name, cap, names, units=1)
    assert spy.codes[:1] == [_CODE]
    return document


@DIFFERENTIAL
@given(rows=openclaw_rows(), cap=engine_caps, names=engine_eval_names,
       affinity=st.sampled_from(["TEXT", "TEXT", "", "BLOB"]))
def test_generated_stores_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, rows: list[_Row], cap: int,
    names: tuple[str, ...], affinity: str,
) -> None:
    """A generated store gives the same accounts, lanes and figures on both engines."""
    path = _store(tmp_path_factory.mktemp("openclaw") / "openclaw-agent.sqlite", rows,
                  affinity)
    _both_store(path, cap, names)


@DIFFERENTIAL
@given(data=damaged(trace_files(pi_records(), pi_calls())), cap=engine_caps,
       names=engine_eval_names, sessions=st.lists(OPENCLAW_SESSIONS, min_size=1, max_size=3),
       blobs=st.booleans())
def test_damaged_logs_cut_into_rows_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...],
    sessions: list[object], blobs: bool,
) -> None:
    """A generated pi log with random damage, its lines the rows of a few sessions (as
    BLOBs, or as TEXT where they are UTF-8): the same accounts and figures."""
    rows: list[_Row] = []
    for seq, line in enumerate(data.split(b"\n")):
        event: object = line
        if not blobs:
            with contextlib.suppress(UnicodeDecodeError):
                event = line.decode("utf-8")
        rows.append((sessions[seq % len(sessions)], seq, event))
    path = _store(tmp_path_factory.mktemp("openclaw") / "openclaw-agent.sqlite", rows)
    _both_store(path, cap, names)


T = "2026-12-03T10:00:"


def _event(record: dict[str, Any]) -> str:
    return json.dumps(record)


def _calls(entry: str, at: str, *ids: str, name: str = "read") -> str:
    return _event({"type": "message", "id": entry, "timestamp": T + at, "message": {
        "role": "assistant", "content": [{"type": "toolCall", "id": i, "name": name}
                                         for i in ids]}})


def _result(entry: str, at: str, call_id: str) -> str:
    return _event({"type": "message", "id": entry, "timestamp": T + at, "message": {
        "role": "toolResult", "toolCallId": call_id}})


def _nested(levels: int) -> str:
    """A message row nesting ``levels`` deep in all (its object the first level)."""
    return '{"type": "x", "d": ' + "[" * (levels - 1) + "]" * (levels - 1) + "}"


def _inputs(document: str) -> dict[str, Any]:
    (report,) = json.loads(document)["inputs"]
    assert isinstance(report, dict)
    return report


def test_the_worked_example_reads_the_same_and_saves_900_ms(tmp_path: Path) -> None:
    """docs/formats.md's example: two calls of one message at 10.000 s, results at 10.900
    and 13.000 s: one wave of 2, tool time 900 + 3,000 = 3,900 ms, saving 3,900 - 3,000
    = 900 ms, upper bound 3,900 / 2 = 1,950 ms; rows stored out of order, read by seq."""
    header = _event({"type": "session", "version": 3, "id": "main-1",
                     "timestamp": T + "00.000Z", "cwd": "/w"})
    rows: list[_Row] = [("main-1", 4, _result("r2", "13.000Z", "call_b1")),
                        ("main-1", 0, header),
                        ("main-1", 3, _result("r1", "10.900Z", "call_g1")),
                        ("main-1", 2, _calls("a1", "10.000Z", "call_b1", "call_g1"))]
    document = _both_store(_store(tmp_path / "s.sqlite", rows))
    (lane,) = json.loads(document)["lanes"]
    assert (lane["session_id"], lane["lane_id"]) == ("main-1", "main")
    assert (lane["paired_calls"], lane["modeled_wallclock_saved_ms"],
            lane["upper_bound_saved_ms"]) == (2, 900.0, 1950.0)
    assert _inputs(document)["lines_used"] == 4


def test_hostile_rows_read_the_same(tmp_path: Path) -> None:
    """Huge numbers, NaN, duplicate keys (the last wins), a float version (the assumed v3
    stays), BOMs, CRs, blank and doubled rows, invalid UTF-8, ids of every SQLite type,
    nesting 500 levels (the limit: read) and 1000: the same document, and the problems
    counted by hand."""
    digits = "9" * 4301
    rows: list[_Row] = [
        ("a", 0, _event({"type": "session", "version": 2.0, "id": "h"})),   # used
        ("a", 1, _calls("m1", "10.000Z", "c1", "c2")),                       # used
        ("a", 2, _result("r1", "11.000Z", "c1")),                            # used
        ("a", 3, '{"type": "x", "n": ' + digits + "}"),                      # invalid_json
        ("a", 4, '{"type": NaN}'),                                           # invalid_json
        ("a", 5, '{"type": "message", "message": {"role": "toolResult"}, "message": 1}'),
        ("a", 6, "\ufeff" + _result("r2", "12.000Z", "c2")),                 # used (BOM)
        ("a", 7, _result("r3", "12.000Z", "c2") + "\r\n\r"),                 # ignored
        ("a", 8, "\n"),                                                      # 2 blank lines
        ("a", 9, ""),                                                        # blank_line
        ("a", 10, b"\xff{}"),                                                # invalid_utf8
        ("a", 11, _calls("m2", "13.000Z", "c3") + "\n" + _calls("m3", "13.000Z", "c4")),
        ("a", 12, _nested(500)),                                             # ignored: x
        ("a", 13, _nested(1000)),                                            # too deep
        ("a", 14, "[1]"),                                                    # not_an_object
        ("a", 15, None),                                                     # invalid_payload
        ("a", 16, 5),                                                        # not_an_object
        (None, 0, _calls("m4", "10.000Z", "c5")),                            # invalid_id
        ("b", 0, _calls("m5", "10.000Z", "c6")),                             # used
        ("b\x1b", 0, _calls("m4", "10.000Z", "c5")),                         # invalid_id
        (b"a", 0, _result("r4", "14.000Z", "c9")),                           # used: a blob key
    ]
    document = _both_store(_store(tmp_path / "s.sqlite", rows, affinity=""))
    report = _inputs(document)
    # 21 rows, the "\n" row two lines: 6 used, 11 problems, 5 ignored
    assert (report["lines_read"], report["lines_used"]) == (22, 6)
    assert report["problems"] == {"invalid_json": 3, "invalid_payload": 2,
                                  "invalid_utf8": 1, "too_deeply_nested": 1,
                                  "not_an_object": 2, "invalid_id": 2}
    assert report["ignored"] == {"blank_line": 3, "repeated_tool_result": 1, "x": 1}
    lanes = json.loads(document)["lanes"]
    # NULL sorts first, then the TEXT keys "a", "b", "b\x1b", then the BLOB x'61' after
    # "b": a second lane named "a" (an invalid key leaves the session open). c1 [10, 11]
    # and c2 [10, 12] s of one message (v3 kept, the float ignored): 1,000 ms saved
    assert [(lane["session_id"], lane["modeled_wallclock_saved_ms"]) for lane in lanes] == [
        ("a", 1000.0), ("b", 0.0), ("a", 0.0)]


@pytest.mark.parametrize("levels", [499, 500, 501, 502])
def test_rows_nest_as_deep_as_the_limit(
        tmp_path: Path, levels: int) -> None:
    """A row (its JSON text's own object level 1) nesting 500 levels is read, one of 501
    ``too_deeply_nested`` (``MAX_JSON_DEPTH``, the same in every reader): both engines,
    run as the console command, count the row alike."""
    path = _store(tmp_path / "s.sqlite", [("s", 0, _nested(levels))])
    args = ["summarize", "--format", "json", "--jobs", "1", "--no-cache"]
    python = console_command([*args, "--engine", "python", path])
    fast = console_command([*args, "--engine", "native", path])
    assert fast == python
    expected = ({"ignored": {"x": 1}} if levels <= 500
                else {"problems": {"too_deeply_nested": 1}})
    report = _inputs(python[1])
    assert {key: report[key] for key in expected} == expected


def test_stores_sqlite_cannot_read_fail_alike(tmp_path: Path) -> None:
    """A truncated store, a file that is no database, a table without its columns: the
    extension gives the unit back and the Python reader names the error, exit 1 alike."""
    whole = _store(tmp_path / "whole.sqlite",
                   [("s", i, _calls(f"m{i}", "10.000Z", f"c{i}")) for i in range(300)])
    data = Path(whole).read_bytes()
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(data[: len(data) // 2])
    other = tmp_path / "other.sqlite"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE transcript_events (session_id TEXT, seq INTEGER)")
    connection.close()
    no_db = tmp_path / "no.sqlite"
    no_db.write_bytes(b"SQLite format 3\x00" + os.urandom(200))
    for path in (cut, other, no_db):
        args = ["summarize", "--format", "json", "--no-cache", "--input-format", OPENCLAW.name]
        python = console_command([*args, "--engine", "python", str(path)])
        assert console_command([*args, "--engine", "native", str(path)]) == python
        assert python[0] == 1, path


@pytest.mark.parametrize("name", [b"a\xff.sqlite", b"a?b#c%41 .sqlite"])
def test_a_store_of_any_name_reads_the_same(tmp_path: Path, name: bytes) -> None:
    """A store whose name is not UTF-8, or holds what a URI reserves: both engines open
    the file it names (the Python reader's URI percent-encodes the path's bytes) and read
    its one call: 1,000 ms, nothing saved."""
    rows: list[_Row] = [("s", 0, _calls("m1", "10.000Z", "c1")),
                        ("s", 1, _result("r1", "11.000Z", "c1"))]
    path = os.fsdecode(os.path.join(os.fsencode(tmp_path), name))
    _store(Path(path), rows)
    (lane,) = json.loads(_both_store(path))["lanes"]
    assert (lane["session_id"], lane["paired_calls"], lane["tool_time_ms"]) == ("s", 1, 1000.0)


@pytest.mark.parametrize("engine", ["native", "python"])
def test_a_store_is_read_again_on_every_run(tmp_path: Path, engine: str) -> None:
    """No cache holds a store (docs/formats.md, "SQLite stores"): a WAL store whose
    writer commits a row between two cached runs (the database file itself unchanged,
    the row in its ``-wal`` file) is read again, on either engine: 1 line, then 2."""
    path = tmp_path / "openclaw-agent.sqlite"
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("CREATE TABLE transcript_events (session_id TEXT, seq INTEGER,"
                       " event_json TEXT)")
        writer.execute("INSERT INTO transcript_events VALUES ('s', 0, ?)",
                       (_calls("m0", "10.000Z", "c0"),))
        env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(tmp_path / "cache")}

        def lines_read() -> int:
            done = subprocess.run([str(CONSOLE), "summarize", "--format", "json", "--engine",
                                   engine, str(path)], capture_output=True, env=env, check=True)
            return int(_inputs(done.stdout.decode())["lines_read"])

        first = lines_read()
        size = path.stat().st_size
        writer.execute("INSERT INTO transcript_events VALUES ('s', 1, ?)",
                       (_calls("m1", "11.000Z", "c1"),))
        assert path.stat().st_size == size  # the row is in the -wal file
        assert (first, lines_read()) == (1, 2)
    finally:
        writer.close()


def test_a_relative_name_that_looks_like_a_uri_is_a_file_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``file:a.sqlite`` in the working folder is that file, never SQLite's URI for
    ``a.sqlite`` (the machine's SQLite takes URIs in file names): both engines quote the
    path into a URI of their own and read its one call, not a.sqlite's two."""
    monkeypatch.chdir(tmp_path)
    one: list[_Row] = [("s", 0, _calls("m1", "10.000Z", "c1")),
                       ("s", 1, _result("r1", "11.000Z", "c1"))]
    _store(tmp_path / "file:a.sqlite", one)
    _store(tmp_path / "a.sqlite", [*one, ("t", 0, _calls("m1", "10.000Z", "c2"))])
    lanes = json.loads(_both_store("file:a.sqlite"))["lanes"]
    assert [lane["session_id"] for lane in lanes] == ["s"]
