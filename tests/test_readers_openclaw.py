"""OpenClaw: its JSONL sessions (read as ``pi``) and its SQLite store (``openclaw``).

No real OpenClaw file was available: the fixtures are written here from the
documented schema (OpenClaw's docs and ccusage's OpenClaw adapter: pi session
records, one per line or one per ``transcript_events.event_json`` row).
Figures are computed by hand from ``docs/metrics.md`` (arithmetic in comments).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.batch_checks import batch_figures
from tests.reader_checks import cli_document, lane_figures, sniffs, write_records
from wavemetrics.readers._sqlite import LOCKED
from wavemetrics.readers.dispatch import detect_input
from wavemetrics.readers.openclaw import OPENCLAW
from wavemetrics.readers.pi import PI

T = "2026-12-03T10:00:"
FIGURES = ("paired_calls", "incomplete_calls", "modeled_wallclock_saved_ms",
           "upper_bound_saved_ms", "non_eval_saved_round_trips",
           "non_eval_wave_size_histogram")


def _header(session_id: str) -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": session_id, "timestamp": T + "00.000Z",
            "cwd": "/w"}


def _calls(entry: str, at: str, *calls: tuple[str, str]) -> dict[str, Any]:
    return {"type": "message", "id": entry, "parentId": None, "timestamp": T + at,
            "message": {"role": "assistant", "timestamp": 1, "content": [
                {"type": "toolCall", "id": call_id, "name": name, "arguments": {"p": "x"}}
                for call_id, name in calls]}}


def _result(entry: str, at: str, call_id: str) -> dict[str, Any]:
    return {"type": "message", "id": entry, "parentId": None, "timestamp": T + at,
            "message": {"role": "toolResult", "toolCallId": call_id, "toolName": "t",
                        "content": [{"type": "text", "text": "secret"}], "isError": False,
                        "timestamp": 2}}


def _user(entry: str) -> dict[str, Any]:
    return {"type": "message", "id": entry, "timestamp": T + "01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}


#: The main session: two calls in parallel, a malformed row, a call never ended.
MAIN: list[tuple[int, object]] = [
    (0, _header("main-1")),
    (1, _user("u1")),
    (2, _calls("a1", "10.000Z", ("call_b1", "bash"), ("call_g1", "grep"))),
    (3, _result("r1", "10.900Z", "call_g1")),
    (4, _result("r2", "13.000Z", "call_b1")),
    (5, '{"type":"message"'),                       # malformed: invalid_json
    (6, _calls("a2", "20.000Z", ("call_r1", "read"))),  # never ends: incomplete
    (7, None),                                       # NULL event_json: invalid_payload
]
#: A sub-agent run: a session of its own (no header row in the store).
SUB: list[tuple[int, object]] = [
    (0, _calls("s1", "11.000Z", ("call_s1", "read"), ("call_s2", "read"))),
    (1, _result("s2", "11.500Z", "call_s1")),
    (2, _result("s3", "12.000Z", "call_s2")),
]
SUB_ID = "agent:main:subagent:x1"


def _store(path: Path, sessions: dict[str | None, list[tuple[int, object]]]) -> str:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE transcript_events (session_id TEXT, seq INTEGER,"
                       " event_json TEXT, created_at INTEGER)")
    rows = [(session, seq, event if event is None or isinstance(event, str)
             else json.dumps(event))
            for session, events in sessions.items() for seq, event in events]
    for row in reversed(rows):  # stored out of order: read by seq
        connection.execute("INSERT INTO transcript_events VALUES (?, ?, ?, 0)", row)
    connection.commit()
    connection.close()
    return str(path)


def _fixture(tmp_path: Path) -> str:
    return _store(tmp_path / "openclaw-agent.sqlite",
                  {"main-1": MAIN, SUB_ID: SUB, None: [(0, _user("x"))]})


def test_the_store_gives_the_hand_computed_figures(tmp_path: Path) -> None:
    code, document = cli_document([_fixture(tmp_path)])
    assert code == 0
    (report,) = document["inputs"]
    assert report["format"] == "openclaw"
    # rows: main 8 (header, user, 1 call row, 2 results, malformed, 1 call row, NULL),
    # sub 3, one row with a NULL session id: 12 = 8 used + 1 ignored + 3 problems
    assert (report["lines_read"], report["lines_used"], report["lines_ignored"]) == (12, 8, 1)
    assert report["problems"] == {"invalid_json": 1, "invalid_payload": 1, "invalid_id": 1}
    assert report["ignored"] == {"message.user": 1}
    # main: b1 [10000, 13000] 3000 ms, g1 [10000, 10900] 900 ms, one wave of 2:
    #   saved 3000 + 900 - 3000 = 900, upper bound 1 x 3900 / 2 = 1950, 1 round trip;
    #   r1 starts at 20000 and never ends: incomplete.
    # sub (no header: version 3, the calls start together): s1 [11000, 11500] 500,
    #   s2 [11000, 12000] 1000: saved 1500 - 1000 = 500, upper bound 1500 / 2 = 750.
    # Sessions in session_id order: "agent:..." before "main-1".
    assert list(lane_figures(document, *FIGURES).items()) == [
        ((SUB_ID, "main"), (2, 0, 500.0, 750.0, 1, "0:1:0:0:0:0:0:0")),
        (("main-1", "main"), (2, 1, 900.0, 1950.0, 1, "0:1:0:0:0:0:0:0")),
    ]
    total = document["total"]
    assert [total[key] for key in FIGURES] == [4, 1, 1400.0, 2700.0, 2, "0:2:0:0:0:0:0:0"]


def test_the_jsonl_session_is_pi_and_gives_the_same_figures(tmp_path: Path) -> None:
    """An OpenClaw ``sessions/<id>.jsonl`` file is pi's format: detected and read as
    ``pi``, with the store's figures for the same records."""
    records = [event for _, event in MAIN if event is not None]
    path = write_records(tmp_path, records, "main-1.jsonl")
    code, document = cli_document([path])
    assert code == 0
    assert document["inputs"][0]["format"] == "pi"
    assert lane_figures(document, *FIGURES) == {
        ("main-1", "main"): (2, 1, 900.0, 1950.0, 1, "0:1:0:0:0:0:0:0")}


def test_archived_copies_are_not_walked(tmp_path: Path) -> None:
    """``<id>.jsonl.deleted.<ms>`` and ``<id>.jsonl.reset.<iso>`` are not read by the
    folder walk (not a trace suffix); the live session file is."""
    records = [event for _, event in MAIN if event is not None]
    write_records(tmp_path, records, "main-1.jsonl")
    write_records(tmp_path, records, "main-1.jsonl.deleted.1796292000000")
    write_records(tmp_path, records, "main-1.jsonl.reset.2026-12-03T10-00-00.000Z")
    _, document = cli_document([str(tmp_path)])
    assert [Path(item["path"]).name for item in document["inputs"]] == ["main-1.jsonl"]


def test_no_other_format_takes_the_store_and_it_takes_no_jsonl(tmp_path: Path) -> None:
    store = _fixture(tmp_path)
    assert detect_input(store).format == "openclaw"
    head = Path(store).read_bytes()[:4096].splitlines(keepends=True)
    assert not sniffs(PI, head, store)
    lines = [json.dumps(event).encode() + b"\n" for _, event in MAIN if isinstance(event, dict)]
    jsonl = str(tmp_path / "x.jsonl")
    Path(jsonl).write_bytes(b"".join(lines))
    assert not sniffs(OPENCLAW, lines, jsonl)


def test_a_database_of_another_shape_is_not_openclaw(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE transcript_events (id TEXT, body TEXT)")
    connection.commit()
    connection.close()
    assert detect_input(str(path)).format is None


def test_both_engines_give_the_same_bytes(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    store = _fixture(tmp_path)
    outputs = [CliRunner().invoke(main, ["summarize", "--format", "json", "--engine", engine,
                                         store]).stdout for engine in ("python", "native")]
    assert outputs[0] == outputs[1]


def test_a_row_over_the_line_limit_is_not_fetched(tmp_path: Path) -> None:
    big = _result("r9", "13.000Z", "call_zz")
    big["message"]["content"][0]["text"] = "x" * 5000
    store = _store(tmp_path / "s.sqlite", {"main-1": [*MAIN[:5], (9, big)]})
    _, document = cli_document([store, "--max-line-bytes", "4096"])
    (report,) = document["inputs"]
    assert report["problems"] == {"line_too_long": 1}
    assert report["lines_read"] == 6


def test_a_locked_store_is_an_input_error(tmp_path: Path) -> None:
    """A rollback-journal database held by a writer: the read fails at once with the
    reason, exit 1, and the database is untouched."""
    store = _fixture(tmp_path)
    writer = sqlite3.connect(store, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        code, document = cli_document([store, "--input-format", "openclaw"])
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert code == 1
    assert document["inputs"][0]["error"] == LOCKED
    assert document["lanes"] == []


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_a_corrupt_store_is_an_input_error(tmp_path: Path, damage: str) -> None:
    store = Path(_fixture(tmp_path))
    data = store.read_bytes()
    store.write_bytes(data[:100] if damage == "truncated" else data[:16] + b"\xff" * 4000)
    code, document = cli_document([str(store), "--input-format", "openclaw"])
    assert code == 1
    assert document["inputs"][0]["error"]


def test_a_wal_store_is_read_as_last_committed(tmp_path: Path) -> None:
    """WAL mode: a writer's open transaction is not seen, and blocks nothing."""
    store = _fixture(tmp_path)
    writer = sqlite3.connect(store, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("BEGIN")
    writer.execute("INSERT INTO transcript_events VALUES ('main-1', 8, ?, 0)",
                   (json.dumps(_result("r3", "20.500Z", "call_r1")),))
    try:
        code, document = cli_document([store])
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert code == 0
    assert document["total"]["incomplete_calls"] == 1  # the uncommitted end is not read


def test_hostile_rows_are_counted_and_the_rest_read(tmp_path: Path) -> None:
    """The battery's attacks as rows: each is counted, the good rows give the figures."""
    store = _store(tmp_path / "h.sqlite", {"main-1": MAIN[:5]})
    connection = sqlite3.connect(store)
    hostile: list[object] = [
        b'{"type": "\xff\xfe"}',                     # invalid UTF-8 (a BLOB)
        '{"type":"message","x":NaN}',                # invalid_json
        "[1, 2]", 42,                                # not_an_object (twice)
        "[" * 100_000 + "]" * 100_000,               # too_deeply_nested
        "",                                          # a blank line
        json.dumps({"type": "brand_new_kind"}),      # ignored by type
    ]
    for seq, event in enumerate(hostile, start=10):
        connection.execute("INSERT INTO transcript_events VALUES ('main-1', ?, ?, 0)",
                           (seq, event))
    connection.commit()
    connection.close()
    code, document = cli_document([store])
    assert code == 0
    (report,) = document["inputs"]
    # 5 good rows (header, user, 1 call row, 2 results: 4 used, 1 ignored) + 7 hostile
    assert (report["lines_read"], report["lines_used"], report["lines_ignored"]) == (12, 4, 3)
    assert report["problems"] == {"invalid_utf8": 1, "invalid_json": 1, "not_an_object": 2,
                                  "too_deeply_nested": 1}
    assert report["ignored"] == {"message.user": 1, "blank_line": 1, "brand_new_kind": 1}
    assert document["total"]["modeled_wallclock_saved_ms"] == 900.0


def test_the_worked_example(tmp_path: Path) -> None:
    """docs/formats.md, "openclaw": the table's rows as a store."""
    docs = (Path(__file__).parent.parent / "docs" / "formats.md").read_text(encoding="utf-8")
    section = docs.split("## `openclaw`", 1)[1].split("\n## ", 1)[0]
    rows = [line.split(" | ") for line in section.splitlines() if line.startswith("| `main-1`")]
    assert len(rows) == 4
    store = _store(tmp_path / "w.sqlite", {"main-1": [
        (int(seq), event.strip(" |`")) for _, seq, event in rows]})
    _, document = cli_document([store])
    # one wave of 2: 3000 + 900 - 3000 = 900 saved, upper bound 3900 / 2 = 1950
    assert [document["total"][key] for key in FIGURES] == [
        2, 0, 900.0, 1950.0, 1, "0:1:0:0:0:0:0:0"]


def test_store_batches_are_pi_messages_per_lane(tmp_path: Path) -> None:
    """Batches (``docs/formats.md``, ``openclaw``): pi's rule, one assistant message row
    is one batch, counted per session (lane).

    main "m": a1 b1 bash [10000, 13000], g1 grep [10000, 10900]: width 2; a2 r1 read
    [14000, 14500]; a3 r2 read [15000, 15200]; a4 r3 read at 16000 never ends
    (incomplete: in no batch, not a paired call). The run r1, r2 (k = 2) ends with the
    lane: upper (15200 - 14000) - max(500, 200) = 700.
    sub: one message, s1 read [11000, 11500], s2 read [11000, 12000]: width 2 (its key
    is its own lane's, not main's a1).
    Merged: paired 6, none without a batch; 4 turns, 2 multi, "2:2:0:0:0:0:0:0", max 2;
    runs 1, calls 2, round trips 1, upper 700.0; 6 by message.
    """
    main_rows: list[tuple[int, object]] = [
        (0, _header("m")),
        (1, _calls("a1", "10.000Z", ("b1", "bash"), ("g1", "grep"))),
        (2, _result("x1", "10.900Z", "g1")), (3, _result("x2", "13.000Z", "b1")),
        (4, _calls("a2", "14.000Z", ("r1", "read"))), (5, _result("x3", "14.500Z", "r1")),
        (6, _calls("a3", "15.000Z", ("r2", "read"))), (7, _result("x4", "15.200Z", "r2")),
        (8, _calls("a4", "16.000Z", ("r3", "read"))),
    ]
    store = _store(tmp_path / "openclaw-agent.sqlite", {"m": main_rows, SUB_ID: SUB})
    assert batch_figures(store) == {
        "calls_without_batch": 0, "batched_turns": 4, "multi_call_turns": 2,
        "turn_width_histogram": "2:2:0:0:0:0:0:0", "max_turn_width": 2,
        "missed_batch_runs": 1, "missed_batch_calls": 2, "missed_batch_round_trips": 1,
        "missed_batch_upper_ms": 700.0,
        "calls_timed_by_execution": 0, "calls_timed_by_message": 6,
    }
