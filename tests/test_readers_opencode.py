"""The ``opencode`` reader (opencode, Kilo and ZCode SQLite stores) on fixtures.

No real store was available: every fixture is written here from opencode's documented
schema (``session.sql.ts``, ``message-v2.ts``; docs/formats.md, "opencode"), and
every expected figure is computed by hand from docs/metrics.md, the arithmetic in a
comment beside it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import CORPUS, needs_corpus
from tests.reader_checks import check_lanes, cli_document, collect, lane_figures
from tests.trace_builders import OPENCODE_SCHEMA, T0_MS, opencode_store, opencode_tool
from wavemetrics.readers._protocol import Peek
from wavemetrics.readers._sqlite import LOCKED
from wavemetrics.readers.dispatch import detect_input
from wavemetrics.readers.opencode import OPENCODE, read_opencode
from wavemetrics.readers.registry import TRACE_FORMATS

#: The worked example of docs/formats.md, "opencode": a root session with two
#: parallel calls and a text part, a sub-agent session with a call, a running call and
#: a row whose JSON does not parse.
WORKED = (
    [("ses_1", None), ("ses_2", "ses_1")],
    [
        ("prt_01", "msg_A", "ses_1", opencode_tool("call_b1", "bash", "completed", 10.0, 13.0)),
        ("prt_02", "msg_A", "ses_1", opencode_tool("call_g1", "grep", "completed", 10.04, 10.9)),
        ("prt_03", "msg_A", "ses_1", {"type": "text", "text": "a private prompt"}),
        ("prt_04", "msg_B", "ses_2", opencode_tool("call_r1", "read", "completed", 11.0, 11.5)),
        ("prt_05", "msg_B", "ses_2", opencode_tool("call_r2", "read", "running", 11.1)),
        ("prt_06", "msg_B", "ses_2", '{"type": "tool", "callID": '),
    ],
)
FIGURES = (
    "observed_calls", "paired_calls", "incomplete_calls", "clock_anomalies",
    "waves_total", "non_eval_wave_size_histogram", "non_eval_saved_round_trips",
    "modeled_wallclock_saved_ms", "upper_bound_saved_ms", "tool_time_ms",
)


def _store(tmp_path: Path, sessions: list[tuple[str, str | None]],
           parts: list[tuple[str, str, str, Any]], name: str = "opencode.db",
           **kwargs: Any) -> str:
    path = str(tmp_path / name)
    opencode_store(path, sessions, parts, **kwargs)
    return path


def _one(tmp_path: Path, data: Any, name: str = "opencode.db") -> dict[str, Any]:
    """The input entry of a store holding one part ``data`` in a root session."""
    path = _store(tmp_path, [("ses_1", None)], [("prt_1", "msg_1", "ses_1", data)], name)
    _, document = cli_document([path])
    (entry,) = document["inputs"]
    return entry


def test_worked_example_gives_the_hand_computed_figures(tmp_path: Path) -> None:
    path = _store(tmp_path, *WORKED)
    code, document = cli_document([path])
    assert code == 0
    (entry,) = document["inputs"]
    # six part rows: four tool calls used, the text part ignored, the cut row a problem
    assert (entry["format"], entry["lines_read"], entry["lines_used"],
            entry["lines_ignored"]) == ("opencode", 6, 4, 1)
    assert entry["ignored"] == {"part.text": 1}
    assert entry["problems"] == {"invalid_json": 1}
    assert lane_figures(document, *FIGURES) == {
        # main: bash [10.000, 13.000] s and grep [10.040, 10.900] s overlap: one wave
        # of 2; saved = (3000 + 860) - 3000 = 860 ms; upper bound = (2 - 1) x 3860 / 2
        # = 1930 ms; one round trip saved; tool time 3000 + 860 = 3860 ms
        ("ses_1", "main"): (2, 2, 0, 0, 1, "0:1:0:0:0:0:0:0", 1, 860.0, 1930.0, 3860.0),
        # the sub-agent's lane (its own session id, under the root session): read
        # [11.000, 11.500] s alone, one wave of 1 (nothing saved); the running call is
        # a start with no end, incomplete; tool time 500 ms
        ("ses_1", "ses_2"): (2, 1, 1, 0, 1, "1:0:0:0:0:0:0:0", 0, 0.0, 0.0, 500.0),
    }


def test_reads_rows_in_start_order_and_lanes_are_valid(tmp_path: Path) -> None:
    path = _store(tmp_path, [("ses_1", None)], [
        ("prt_2", "m", "ses_1", opencode_tool("b", "bash", "completed", 5.0, 6.0)),
        ("prt_1", "m", "ses_1", opencode_tool("a", "bash", "completed", 1.0, 2.0)),
    ])
    lanes, (account, error) = collect(read_opencode, path)
    assert error is None and account.lines_used == 2
    check_lanes(lanes)
    (lane,) = lanes
    assert [(o.kind, o.call_id, o.at_ms - T0_MS) for o in lane.observations] == [
        ("start", "a", 1000.0), ("end", "a", 2000.0),
        ("start", "b", 5000.0), ("end", "b", 6000.0),
    ]


@pytest.mark.parametrize(("data", "bucket"), [
    # ignored record types
    ({"type": "step-start"}, ("ignored", "part.step-start")),
    (opencode_tool("c", "bash", "pending"), ("ignored", "tool.pending")),
    # a call closed when its step ended: an error "Tool execution aborted" with start
    # and end both the closing moment (0 or 1 ms apart): times unknown
    ({**opencode_tool("c", "bash", "error", 3.0, 3.0), "state": {
        "status": "error", "error": "Tool execution aborted",
        "time": {"start": T0_MS + 3000, "end": T0_MS + 3001}}}, ("ignored", "tool.aborted")),
    # problems
    ("{not json", ("problems", "invalid_json")),
    ('{"type": "tool", "callID": "c", "tool": "bash", "state": {"status": "completed",'
     ' "time": {"start": NaN, "end": 1}}}', ("problems", "invalid_json")),
    (b"\x00\x01binary", ("problems", "invalid_json")),
    (None, ("problems", "invalid_json")),
    ("[1, 2]", ("problems", "not_an_object")),
    ({"callID": "c"}, ("problems", "missing_type")),
    ({"type": 7}, ("problems", "missing_type")),
    ({**opencode_tool("c", "bash", "completed", 1.0, 2.0), "callID": ""},
     ("problems", "invalid_tool_record")),
    ({**opencode_tool("c", "bash", "completed", 1.0, 2.0), "callID": "a\u001b[2J"},
     ("problems", "invalid_id")),
    ({**opencode_tool("c", "bash", "completed", 1.0, 2.0), "tool": None},
     ("problems", "invalid_tool_record")),
    (opencode_tool("c", "bash", "finished", 1.0, 2.0), ("problems", "invalid_tool_record")),
    (opencode_tool("c", "bash", "running", 1.0, 2.0), ("problems", "invalid_tool_record")),
    (opencode_tool("c", "bash", "completed", 1.0), ("problems", "invalid_timestamp")),
    (opencode_tool("c", "bash", "completed"), ("problems", "invalid_timestamp")),
    (opencode_tool("c", "bash", "running"), ("problems", "invalid_timestamp")),
])
def test_each_row_lands_in_one_bucket(tmp_path: Path, data: Any,
                                      bucket: tuple[str, str]) -> None:
    entry = _one(tmp_path, data)
    where, reason = bucket
    assert entry[where] == {reason: 1}
    assert entry["lines_read"] == 1 and entry["lines_used"] == 0


@pytest.mark.parametrize("value", ['"1735689601000"', "true", "-5", "1e400", "null", "{}"])
def test_a_time_that_is_not_a_usable_number_is_invalid_timestamp(
    tmp_path: Path, value: str
) -> None:
    data = json.dumps(opencode_tool("c", "bash", "completed", 1.0, 2.0))
    data = data.replace(str(T0_MS + 1000), value)
    entry = _one(tmp_path, data)
    assert entry["problems"] == {"invalid_timestamp": 1}


def test_only_opencode_s_closing_error_makes_an_aborted_call(tmp_path: Path) -> None:
    """An error of 0 ms with another text, or the closing text on a call that ran, is a
    call like any other."""
    def error(text: str, start: float, end: float) -> dict[str, Any]:
        part = opencode_tool("c", "bash", "error", start, end)
        part["state"]["error"] = text
        return part

    path = _store(tmp_path, [("ses_1", None)], [
        ("p1", "m", "ses_1", error("Error: bad arguments", 1.0, 1.0)),
        ("p2", "m", "ses_1", {**error("Tool execution aborted", 2.0, 2.5), "callID": "d"}),
        ("p3", "m", "ses_1", {**error("Tool execution aborted", 4.0, 4.0), "callID": "e"}),
    ])
    _, document = cli_document([path])
    (entry,) = document["inputs"]
    assert (entry["lines_used"], entry["ignored"]) == (2, {"tool.aborted": 1})
    assert lane_figures(document, "paired_calls") == {("ses_1", "main"): (2,)}


def test_an_end_before_its_start_is_a_clock_anomaly(tmp_path: Path) -> None:
    path = _store(tmp_path, [("ses_1", None)], [
        ("prt_1", "m", "ses_1", opencode_tool("c", "bash", "completed", 5.0, 4.0)),
    ])
    code, document = cli_document([path])
    assert code == 0
    assert lane_figures(document, "clock_anomalies", "paired_calls") == {
        ("ses_1", "main"): (1, 0),
    }


def test_a_row_past_max_line_bytes_is_line_too_long_and_not_parsed(tmp_path: Path) -> None:
    big = opencode_tool("c", "bash", "completed", 1.0, 2.0)
    big["state"]["output"] = "x" * 5000
    path = _store(tmp_path, [("ses_1", None)], [
        ("prt_1", "m", "ses_1", big),
        ("prt_2", "m", "ses_1", opencode_tool("d", "bash", "completed", 1.0, 2.0)),
    ])
    _, document = cli_document([path], "--max-line-bytes", "1000")
    (entry,) = document["inputs"]
    assert (entry["lines_read"], entry["lines_used"], entry["problems"]) == (
        2, 1, {"line_too_long": 1})


def test_parent_chains_name_the_root_and_a_loop_is_a_problem(tmp_path: Path) -> None:
    path = _store(
        tmp_path,
        # a grandchild lane files under the root; a parent missing from the table is
        # the root; two sessions naming each other are a loop
        [("root", None), ("kid", "root"), ("grandkid", "kid"), ("orphan", "gone"),
         ("x", "y"), ("y", "x")],
        [(f"p{i}", "m", session, opencode_tool(f"c{i}", "bash", "completed", i, i + 0.5))
         for i, session in enumerate(["root", "kid", "grandkid", "orphan", "x"])],
    )
    _, document = cli_document([path])
    (entry,) = document["inputs"]
    assert entry["problems"] == {"invalid_session": 1}
    assert sorted(lane_figures(document, "paired_calls")) == [
        ("gone", "orphan"), ("root", "grandkid"), ("root", "kid"), ("root", "main"),
    ]


def test_arguments_and_results_never_reach_python(tmp_path: Path) -> None:
    """The query selects only the JSON paths of the rules: no secret in any row read."""
    path = _store(tmp_path, *WORKED)
    seen: list[Any] = []
    from wavemetrics.readers import opencode

    real = opencode.read_part_row

    def spy(row: tuple[Any, ...], *args: Any) -> None:
        seen.append(row)
        real(row, *args)

    opencode.read_part_row = spy  # type: ignore[assignment]
    try:
        collect(read_opencode, path)
    finally:
        opencode.read_part_row = real  # type: ignore[assignment]
    text = repr(seen)
    assert len(seen) == 6
    assert "ls -la" not in text and "secret" not in text and "private" not in text


# --- detection ---


def test_no_earlier_format_takes_a_store_and_the_store_is_detected(tmp_path: Path) -> None:
    path = _store(tmp_path, *WORKED)
    lines = Path(path).read_bytes().split(b"\n")[:3]
    peek = Peek(lines, path)
    assert [f.name for f in TRACE_FORMATS if f.sniff(peek)] == ["opencode"]
    assert detect_input(path).format == "opencode"


@pytest.mark.parametrize("name", ["kilo.db", "opencode-beta.db", "db.sqlite", "store.bin"])
def test_kilo_zcode_and_any_name_are_read_by_their_tables(tmp_path: Path, name: str) -> None:
    path = str(tmp_path / name)
    connection = sqlite3.connect(path)
    connection.executescript(OPENCODE_SCHEMA)
    # ZCode's layout adds columns (task_type, sequence): more columns are accepted
    connection.execute("ALTER TABLE session ADD COLUMN task_type TEXT")
    connection.execute("ALTER TABLE part ADD COLUMN sequence INTEGER")
    connection.execute("INSERT INTO session (id) VALUES ('ses_1')")
    connection.execute("INSERT INTO part (id, message_id, session_id, data) VALUES (?,?,?,?)",
                       ("p", "m", "ses_1",
                        json.dumps(opencode_tool("c", "bash", "completed", 1.0, 2.0))))
    connection.commit()
    connection.close()
    code, document = cli_document([path])
    assert code == 0 and document["inputs"][0]["format"] == "opencode"


def test_an_unrelated_database_is_not_a_trace(tmp_path: Path) -> None:
    other = tmp_path / "notes.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE part (id TEXT, body TEXT)")
    connection.commit()
    connection.close()
    assert not OPENCODE.sniff(Peek(other.read_bytes().split(b"\n")[:3], str(other)))
    # in a folder walk it is skipped like any file that is no trace
    _store(tmp_path, *WORKED)
    code, document = cli_document([str(tmp_path)])
    assert code == 0
    assert [Path(entry["path"]).name for entry in document["inputs"]] == ["opencode.db"]


def test_stdin_is_never_a_store(tmp_path: Path) -> None:
    path = _store(tmp_path, *WORKED)
    lines = Path(path).read_bytes().split(b"\n")[:3]
    assert not OPENCODE.sniff(Peek(lines, "-"))


@needs_corpus
def test_no_corpus_file_is_taken_for_a_store() -> None:
    for path in sorted(p for p in Path(CORPUS).rglob("*") if p.is_file()):
        lines = path.read_bytes()[:65536].split(b"\n")[:8]
        assert not OPENCODE.sniff(Peek(lines, str(path))), path


def test_both_engines_give_the_same_bytes(tmp_path: Path) -> None:
    path = _store(tmp_path, *WORKED)
    outputs = []
    for engine in ("native", "python"):
        result = subprocess.run(
            [sys.executable, "-m", "wavemetrics", "summarize", "--no-cache", "--format",
             "json", "--engine", engine, path],
            capture_output=True, check=False,
        )
        outputs.append((result.returncode, result.stdout, result.stderr))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == 0


# --- hostile stores: corrupt, truncated, locked, mid-write ---


def _summarize(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json", *args],
        capture_output=True, text=True, check=False, env=os.environ.copy(),
    )


def test_a_corrupt_store_is_an_error_for_that_input(tmp_path: Path) -> None:
    path = _store(tmp_path, *WORKED)
    data = bytearray(Path(path).read_bytes())
    # keep the header (so it is tried as a store), overwrite every page after the first
    data[4096:] = b"\xff" * (len(data) - 4096)
    Path(path).write_bytes(bytes(data))
    good = _store(tmp_path, *WORKED, name="good.db")
    result = _summarize(path, good)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    document = json.loads(result.stdout)
    errors = {Path(e["path"]).name: e["error"] for e in document["inputs"]}
    assert errors["good.db"] is None
    assert errors["opencode.db"] is not None


def test_a_truncated_store_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    parts = [(f"p{i}", "m", "ses_1", opencode_tool(f"c{i}", "bash", "completed", i, i + 1))
             for i in range(400)]
    path = _store(tmp_path, [("ses_1", None)], parts)
    data = Path(path).read_bytes()
    Path(path).write_bytes(data[: len(data) // 2])
    result = _summarize(path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    (entry,) = json.loads(result.stdout)["inputs"]
    assert entry["error"] is not None
    assert json.loads(result.stdout)["lanes"] == []


def test_a_locked_store_is_an_error_and_the_writer_is_never_blocked(tmp_path: Path) -> None:
    path = _store(tmp_path, *WORKED)
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("BEGIN EXCLUSIVE")
        writer.execute("INSERT INTO session VALUES ('ses_9', NULL, '/w', 't', 0, 0)")
        result = _summarize(path)
        assert result.returncode == 1
        assert "Traceback" not in result.stderr
        assert LOCKED in result.stderr
        writer.execute("COMMIT")  # the read left no lock behind
    finally:
        writer.close()
    assert not Path(path + "-wal").exists()
    assert _summarize(path).returncode == 0


def test_a_wal_store_mid_write_is_read_as_last_committed(tmp_path: Path) -> None:
    path = _store(tmp_path, *WORKED, wal=True)
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("BEGIN")
        writer.execute("INSERT INTO part VALUES ('prt_99', 'msg_A', 'ses_1', 0, 0, ?)",
                       (json.dumps(opencode_tool("late", "bash", "completed", 20.0, 21.0)),))
        result = _summarize("--no-cache", path)
        assert result.returncode == 0, result.stderr
        (entry,) = json.loads(result.stdout)["inputs"]
        assert entry["lines_read"] == 6  # the open transaction's row is not seen
        writer.execute("COMMIT")
        result = _summarize("--no-cache", path)
        (entry,) = json.loads(result.stdout)["inputs"]
        assert entry["lines_read"] == 7  # committed to the -wal file: seen
    finally:
        writer.close()


def test_caches_never_serve_a_store_whose_wal_changed(tmp_path: Path) -> None:
    """A row committed to the -wal file (no checkpoint: the database file unchanged)
    changes the figures of the next cached run, the whole-output cache on."""
    path = _store(tmp_path, *WORKED, wal=True)
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(tmp_path / "cache")}
        runs = []
        for step in range(2):
            for folder in (False, True):
                target = str(tmp_path) if folder else path
                result = subprocess.run(
                    [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json",
                     target], capture_output=True, text=True, check=False, env=env)
                assert result.returncode == 0, result.stderr
                runs.append(json.loads(result.stdout)["inputs"][0]["lines_used"])
            if step == 0:
                size = os.path.getsize(path)
                writer.execute(
                    "INSERT INTO part VALUES ('prt_99', 'msg_A', 'ses_1', 0, 0, ?)",
                    (json.dumps(opencode_tool("late", "bash", "completed", 20.0, 21.0)),))
                assert os.path.getsize(path) == size  # only the -wal file grew
        assert runs == [4, 4, 5, 5]
    finally:
        writer.close()


def test_no_cache_key_is_made_for_a_store(tmp_path: Path) -> None:
    """The whole-output cache and the status line's key: a run holding a store, in a
    folder, by its suffix or by its header under any name, is never keyed (never served
    nor stored); the same run without it is."""
    from wavemetrics.cache import runcache

    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "a.jsonl").write_text("")
    plain = runcache.options_from_args([str(folder)])
    assert plain is not None
    assert runcache.run_key(plain, [str(folder)]) is not None
    named = _store(tmp_path, *WORKED, name="store.bin")
    _store(folder, *WORKED, name="db.sqlite")
    for files in ([str(folder)], [named], [str(tmp_path / "data" / "db.sqlite")]):
        options = runcache.options_from_args(files)
        assert options is not None
        assert runcache.run_key(options, files) is None, files
    assert runcache.session_stats([named]) is None
    assert runcache.session_stats([str(folder / "a.jsonl")]) is not None


@pytest.mark.parametrize("wal", [False, True])
def test_a_read_never_writes_the_database(tmp_path: Path, wal: bool) -> None:
    """The database file's bytes are the same after a read (a closed WAL database's
    -wal and -shm files are SQLite's to create for any reader: docs/formats.md)."""
    path = _store(tmp_path, *WORKED, wal=wal)
    before = Path(path).read_bytes()
    code, _ = cli_document([path])
    assert code == 0
    assert Path(path).read_bytes() == before
    if wal:
        assert Path(path + "-wal").stat().st_size == 0


def test_a_store_on_stdin_is_refused_with_its_reason(tmp_path: Path) -> None:
    path = _store(tmp_path, *WORKED)
    data = Path(path).read_bytes()
    detected = subprocess.run(
        [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json", "-"],
        input=data, capture_output=True, check=False)
    assert detected.returncode == 1 and b"Traceback" not in detected.stderr
    forced = subprocess.run(
        [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json",
         "--input-format", "opencode", "-"], input=data, capture_output=True, check=False)
    assert forced.returncode == 1 and b"Traceback" not in forced.stderr
    assert b"read from a file, not from a stream" in forced.stderr


#: Batches (docs/formats.md, "opencode", "Batches"): the part's ``message_id``. Root
#: session ses_1 and its sub-agent ses_2; times in s after T0; prt_08 has no message id
#: (NULL), so no batch.
BATCHES = (
    [("ses_1", None), ("ses_2", "ses_1")],
    [
        ("prt_01", "msg_A", "ses_1", opencode_tool("c1", "bash", "completed", 1.0, 4.0)),
        ("prt_02", "msg_A", "ses_1", opencode_tool("c2", "grep", "completed", 1.04, 1.9)),
        ("prt_03", "msg_A", "ses_1", opencode_tool("c3", "read", "completed", 1.1, 1.3)),
        ("prt_04", "msg_B", "ses_1", opencode_tool("c4", "read", "completed", 5.0, 5.4)),
        ("prt_05", "msg_C", "ses_1", opencode_tool("c5", "glob", "completed", 6.0, 6.1)),
        ("prt_06", "msg_D", "ses_1", opencode_tool("c6", "list", "completed", 6.2, 6.5)),
        ("prt_07", "msg_E", "ses_1", opencode_tool("c7", "bash", "completed", 7.0, 9.0)),
        ("prt_08", None, "ses_1", opencode_tool("c8", "read", "completed", 9.5, 9.7)),
        ("prt_11", "msg_H", "ses_2", opencode_tool("c11", "read", "completed", 2.0, 2.3)),
        ("prt_12", "msg_H", "ses_2", opencode_tool("c12", "glob", "completed", 2.1, 2.2)),
        ("prt_13", "msg_I", "ses_2", opencode_tool("c13", "grep", "completed", 2.5, 2.6)),
        ("prt_14", "msg_J", "ses_2", opencode_tool("c14", "read", "completed", 2.7, 2.8)),
        ("prt_15", "msg_K", "ses_2", opencode_tool("c15", "read", "completed", 400.0, 400.1)),
    ],
)
BATCH_FIGURES = (
    "calls_without_batch", "batched_turns", "multi_call_turns", "turn_width_histogram",
    "max_turn_width", "missed_batch_runs", "missed_batch_calls", "missed_batch_round_trips",
    "missed_batch_upper_ms", "tool_busy_ms", "idle_ms", "calls_timed_by_execution",
    "calls_timed_by_message")
#: The figures of :data:`BATCHES`, worked out in :func:`test_batches_by_hand`.
BATCH_LANES = {
    ("ses_1", "main"): (1, 5, 1, "4:0:1:0:0:0:0:0", 3, 1, 3, 2, 1100.0, 6000.0, 0.0, 8, 0),
    ("ses_1", "ses_2"): (0, 4, 1, "3:1:0:0:0:0:0:0", 2, 1, 2, 1, 200.0, 600.0, 397200.0, 5, 0),
}
BATCH_TOTAL = (1, 9, 2, "7:1:1:0:0:0:0:0", 3, 2, 5, 3, 1300.0, 6600.0, 397200.0, 13, 0)


def test_batches_by_hand(tmp_path: Path) -> None:
    """The section-9 figures of :data:`BATCHES` (ms after T0).

    Lane main: batches in start order msg_A {c1 bash 1000-4000, c2 grep 1040-1900,
    c3 read 1100-1300} (width 3), msg_B {c4 read 5000-5400}, msg_C {c5 glob
    6000-6100}, msg_D {c6 list 6200-6500}, msg_E {c7 bash 7000-9000}: 5 batches, 1
    multi-call, widths 1 x 4 and 3 x 1, widest 3; c8 (NULL message_id) has none.
    Runs: c4, c5, c6 join; bash closes the run of 3: upper (6500 - 5000) - max(400,
    100, 300) = 1100, 2 round trips. Busy: [1000, 4000] 3000 + 400 + 100 + 300 + 2000
    + c8 200 = 6000. No gap over 300 s: idle 0. Timing ``execution``: 8 calls.
    Lane ses_2: msg_H {c11 read 2000-2300, c12 glob 2100-2200} (width 2), msg_I {c13
    grep 2500-2600}, msg_J {c14 read 2700-2800}, msg_K {c15 read 400000-400100}: the
    run c13, c14 is ended by the idle gap 400000 - 2800 = 397200 > 300000 before c15
    (a run of 1 alone): 1 run, upper (2800 - 2500) - max(100, 100) = 200. Busy 300 +
    100 + 100 + 100 = 600; idle 397200. Totals add up; the widest turn is the maximum.
    """
    code, document = cli_document([_store(tmp_path, *BATCHES)], "--engine", "python")
    assert code == 0
    assert lane_figures(document, *BATCH_FIGURES) == BATCH_LANES
    assert tuple(document["total"][key] for key in BATCH_FIGURES) == BATCH_TOTAL


@pytest.mark.parametrize("message", ["msg\x01", b"\xff", ""])
def test_an_unusable_message_id_gives_no_batch(tmp_path: Path, message: Any) -> None:
    """A ``message_id`` that is not usable id text (a control character, bad UTF-8,
    empty) gives the call no batch and is no problem."""
    path = _store(tmp_path, [("ses_1", None)], [
        ("prt_1", message, "ses_1", opencode_tool("c1", "read", "completed", 1.0, 1.5))])
    lanes, (account, error) = collect(read_opencode, path)
    assert error is None and account.lines_used == 1 and not account.problems
    assert [o.batch for o in lanes[0].observations] == [None, None]
