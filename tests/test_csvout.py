"""`--format csv` of summarize (a row per lane, a total row) and waves (a row per call)."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.corpus import CORPUS, needs_corpus
from tests.event_traces import TWO_LANES, write_events
from wavemetrics.cli.commands import main
from wavemetrics.run._options import OPTION_KEYS
from wavemetrics.views.csvout import (
    OPTION_PREFIX,
    SUMMARY_LEAD,
    WAVE_CALL_COLUMNS,
    WAVE_JSON_TO_CSV,
    rows_to_csv,
)


def _csv(*args: str) -> list[dict[str, str]]:
    result = CliRunner().invoke(main, [*args, "--format", "csv", "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    return list(csv.DictReader(io.StringIO(result.stdout)))


def test_summarize_csv_has_a_row_per_lane_and_a_total(tmp_path: Path) -> None:
    """TWO_LANES: lanes main (saving 30 ms, 6 calls) and sub (10 ms, 2 calls), total 40 ms."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    rows = _csv("summarize", str(trace))
    assert [(r["row"], r["lane_id"]) for r in rows] == [("lane", "main"), ("lane", "sub"),
                                                       ("total", "")]
    assert [r["modeled_wallclock_saved_ms"] for r in rows] == ["30.0", "10.0", "40.0"]
    assert [r["paired_calls"] for r in rows] == ["6", "2", "8"]
    assert [r["waves_total"] for r in rows] == ["4", "1", "5"]
    assert rows[0]["path"] == str(trace)


def test_csv_header_follows_the_json_keys(tmp_path: Path) -> None:
    """The columns are the lead columns, the total's keys in JSON order, then one
    ``options.<key>`` column per key of the JSON ``options``, in order."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    result = CliRunner().invoke(main, ["summarize", "--format", "csv", str(trace)])
    header = next(csv.reader(io.StringIO(result.stdout)))
    document = json.loads(CliRunner().invoke(main, ["summarize", "--format", "json",
                                                    str(trace)]).stdout)
    assert header == [*SUMMARY_LEAD, *document["total"],
                      *(f"{OPTION_PREFIX}{key}" for key in document["options"])]


def test_every_csv_row_carries_the_options(tmp_path: Path) -> None:
    """TWO_LANES in a window from 1970-01-01T00:00:01.900 UTC (the sub lane's wave, at
    2 s, only), eval name ``Python``, batchable ``Read`` alone, an idle gap of 0.25 s,
    unbounded: the one lane row and the total row both carry the window, the zone, the
    names (as JSON text), the gap in ms (250.0) and an empty cap (unbounded); the
    defaults too (``auto``, the byte limits)."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    rows = _csv("summarize", str(trace), "--since", "1970-01-01T00:00:01.900",
                "--timezone", "UTC", "--eval-tool", "Python", "--max-tracked-calls", "0",
                "--batchable-tools", "Read", "--idle-gap", "0.25")
    assert [(r["row"], r["lane_id"]) for r in rows] == [("lane", "sub"), ("total", "")]
    for row in rows:
        assert {key: value for key, value in row.items() if key.startswith("options.")} == {
            "options.input_format": "auto",
            "options.eval_tools": '["Python"]',
            "options.batchable_tools": '["Read"]',
            "options.idle_gap_ms": "250.0",
            "options.max_tracked_calls": "",
            "options.max_line_bytes": "67108864",
            "options.max_document_bytes": "268435456",
            "options.since": "1970-01-01T00:00:01.900000+00:00",
            "options.until": "",
            "options.timezone": "UTC",
            "options.by": "",
        }


def test_by_csv_carries_the_options_with_by(tmp_path: Path) -> None:
    """``--by session``: the options columns close every row, ``options.by`` = ``session``."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    rows = _csv("summarize", str(trace), "--by", "session")
    assert [(r["row"], r["group"], r["options.by"], r["options.max_tracked_calls"])
            for r in rows] == [("group", "t", "session", "2000"),
                               ("total", "", "session", "2000")]
    assert list(rows[0])[-11:] == [f"options.{key}" for key in OPTION_KEYS]


@needs_corpus
def test_summarize_csv_values_equal_the_json_values_on_the_corpus() -> None:
    """Every cell is the JSON value written as text (null as an empty cell)."""
    folder = str(CORPUS / "claude-code-log")
    rows = _csv("summarize", folder)
    document = json.loads(CliRunner().invoke(
        main, ["summarize", "--format", "json", "--jobs", "1", folder]).stdout)
    for row, lane in zip(rows, [*document["lanes"], document["total"]], strict=True):
        for key, value in lane.items():
            assert row[key] == ("" if value is None else str(value)), key


def test_waves_csv_has_one_row_per_call(tmp_path: Path) -> None:
    """8 paired calls give 8 rows; the read/grep wave's rows carry its figures."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    rows = _csv("waves", str(trace))
    assert list(rows[0]) == list(WAVE_CALL_COLUMNS)
    assert len(rows) == 8
    first, second = rows[0], rows[1]
    assert (first["call_id"], first["tool_name"], first["start_ms"], first["end_ms"],
            first["duration_ms"]) == ("a", "read", "1000.0", "1100.0", "100.0")
    assert (second["call_id"], second["duration_ms"]) == ("b", "30.0")
    assert {first["wave"], second["wave"]} == {"0"}
    assert first["span_ms"] == "100.0"
    assert first["modeled_wallclock_saved_ms"] == "30.0"
    assert first["bucket"] == "non_eval"
    assert [r["bucket"] for r in rows if r["wave"] == "3"] == ["mixed", "mixed"]


def test_waves_csv_header_is_the_documented_contract(tmp_path: Path) -> None:
    """The waves CSV header, in order, as docs/cli.md lists it: the wave's figures, then
    the call's (a contract scripts read by name and by position)."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    result = CliRunner().invoke(main, ["waves", "--format", "csv", str(trace)])
    assert next(csv.reader(io.StringIO(result.stdout))) == [
        "session_id", "lane_id", "wave", "wave_start_ms", "wave_start", "span_ms", "size",
        "max_concurrency", "bucket", "modeled_wallclock_saved_ms",
        "call_index", "call_id", "tool_name", "start_ms", "end_ms", "duration_ms"]


def test_cells_are_quoted_by_the_csv_module() -> None:
    """A tool name with a comma or a quote stays one cell."""
    text = rows_to_csv(["tool_name", "n"], [{"tool_name": 'a,"b"', "n": None}])
    assert text == 'tool_name,n\r\n"a,""b""",\r\n'


@pytest.mark.parametrize("writes_nul", [True, False])
def test_a_nul_is_written_as_it_is_on_every_python(
    monkeypatch: pytest.MonkeyPatch, writes_nul: bool
) -> None:
    """A NUL in a cell is written as it is, unquoted, as Python 3.11's ``csv`` writes it;
    where ``csv`` cannot (3.10: "need to escape"), a private-use stand-in found in no
    cell (U+E000 is in one here, so U+E001) is written and turned back."""
    from wavemetrics.views import csvout

    monkeypatch.setattr(csvout, "_WRITES_NUL", writes_nul)
    rows = [{"call_id": "x\x00y", "tool_name": "\ue000", "n": 1},
            {"call_id": "\x00,", "tool_name": "\ue001\x00", "n": None}]
    assert rows_to_csv(["call_id", "tool_name", "n"], rows) == (
        'call_id,tool_name,n\r\nx\x00y,\ue000,1\r\n"\x00,",\ue001\x00,\r\n')
    assert csvout._stand_in(["\ue000", "a\ue001", "\ue003"]) == "\ue002"


def test_the_csv_module_writes_nul_from_python_3_11() -> None:
    """The check of what this Python's ``csv`` does (3.10 raises on a NUL)."""
    from wavemetrics.views.csvout import _writes_nul

    assert _writes_nul() == (sys.version_info >= (3, 11))


def test_rows_to_csv_escapes_text_only_when_asked() -> None:
    """Without ``escape`` a value with ESC and U+202E is written as it is; with ``printable``
    its text cells are escaped and numbers and empty cells are left alone."""
    from wavemetrics.views.escaping import printable

    rows = [{"tool_name": "a\x1b[2J\u202e", "calls": 2, "mean": None}]
    columns = ["tool_name", "calls", "mean"]
    assert rows_to_csv(columns, rows) == "tool_name,calls,mean\r\na\x1b[2J\u202e,2,\r\n"
    assert rows_to_csv(columns, rows, printable) == (
        "tool_name,calls,mean\r\na\\x1b[2J\\u202e,2,\r\n")


def test_waves_csv_renames_only_the_wave_start_and_the_tool_names(tmp_path: Path) -> None:
    """Each CSV row carries its wave's JSON values: under the same name, but the wave's
    start (wave_start_ms, wave_start: the row's start_ms is its call's) and tool_names
    (one tool_name per row, in wave order)."""
    renamed = {k: v for k, v in WAVE_JSON_TO_CSV.items() if k != v}
    assert renamed == {"start_ms": "wave_start_ms", "start": "wave_start",
                       "tool_names": "tool_name"}
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    waves = json.loads(CliRunner().invoke(main, ["waves", "--format", "json", "--jobs", "1",
                                                 str(trace)]).stdout)["waves"]
    assert list(WAVE_JSON_TO_CSV) == list(waves[0])  # every JSON key, in JSON order
    rows = _csv("waves", str(trace))
    for row in rows:
        (wave,) = [w for w in waves
                   if (w["lane_id"], str(w["wave"])) == (row["lane_id"], row["wave"])]
        for key, column in WAVE_JSON_TO_CSV.items():
            value = wave[key][int(row["call_index"])] if key == "tool_names" else wave[key]
            assert row[column] == str(value), column
    # the first wave starts at 1000 ms, its second call at 1010 ms (TWO_LANES)
    assert [(r["wave_start_ms"], r["start_ms"]) for r in rows[:2]] == [
        ("1000.0", "1000.0"), ("1000.0", "1010.0")]
