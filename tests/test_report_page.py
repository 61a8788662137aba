"""``wavemetrics report`` without a browser: the page's data, its escaping, the command.

The figures come from :data:`tests.event_traces.TWO_LANES`: lane main holds the waves
{read [1000,1100], grep [1010,1040]}, {bash [1200,1250]}, {eval [1300,1400]} and
{eval [1500,1600], read [1520,1560]}; lane sub the wave {read [2000,2010], read
[2000,2020]}. The browser tests are in ``tests/test_report_browser.py``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.event_traces import SERIAL_READS, TWO_LANES, saving_trial, write_events
from tests.extras import needs_report, needs_scipy
from wavemetrics.cli.commands import main
from wavemetrics.run.pipeline import LaneResult, analyse, read_inputs
from wavemetrics.views import html_page
from wavemetrics.views.page_data import page_data, tool_rows, wave_size_histogram


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    return write_events(tmp_path / "two.jsonl", TWO_LANES)


def _lanes(path: Path) -> tuple[LaneResult, ...]:
    return analyse(read_inputs([str(path)], "auto")).lanes


def test_page_data_columns(trace: Path) -> None:
    data = page_data(_lanes(trace))
    # origin: the first start, 1000 ms; lane main first, then sub, under it (one session)
    assert data["origin_ms"] == 1000
    assert [lane["label"].split("/")[-1] for lane in data["lanes"]] == ["main", "sub"]
    assert [lane["sub"] for lane in data["lanes"]] == [False, True]
    # rows: the largest wave, 2 calls, in both lanes
    assert [lane["rows"] for lane in data["lanes"]] == [2, 2]
    assert [(lane["calls"], lane["waves"]) for lane in data["lanes"]] == [(6, 4), (2, 1)]  # a-f; g, h
    waves = data["waves"]
    # starts as offsets from 1000: 0, 200, 300, 500 (main), 1000 (sub)
    assert waves["start"] == [0, 200, 300, 500, 1000]
    assert waves["span"] == [100, 50, 100, 100, 20]
    assert waves["size"] == [2, 1, 1, 2, 2]
    # buckets: non_eval 0, eval_only 1, mixed 2
    assert waves["bucket"] == [0, 0, 1, 2, 0]
    # savings: 100 + 30 - 100 = 30; 0; 0; 100 + 40 - 100 = 40; 10 + 20 - 20 = 10
    assert waves["saved"] == [30, 0, 0, 40, 10]
    calls = data["calls"]
    assert len(calls["wave"]) == 8  # 2 + 1 + 1 + 2 + 2 calls
    assert data["aggregated"] is None


def test_page_data_call_durations_and_rows(trace: Path) -> None:
    calls = page_data(_lanes(trace))["calls"]
    # wave order: read 100, grep 30 | bash 50 | eval 100 | eval 100, read 40 | read 10, read 20
    assert calls["dur"] == [100, 30, 50, 100, 100, 40, 10, 20]
    assert calls["row"] == [0, 1, 0, 0, 0, 1, 0, 1]
    assert calls["wave"] == [0, 0, 1, 2, 3, 3, 4, 4]


def test_page_data_aggregates_past_the_bar_limits(trace: Path) -> None:
    # 8 calls > 4 bars: waves drawn as bars, no call kept; 5 waves > 2: the two that
    # saved most (40 and 30 ms), in lane then time order
    data = page_data(_lanes(trace), max_call_bars=4, max_wave_bars=2)
    assert data["calls"]["wave"] == []
    assert data["waves"]["saved"] == [30, 40]
    assert data["aggregated"] == {"calls": 8, "waves": 5, "waves_drawn": 2,
                                  "max_call_bars": 4, "max_wave_bars": 2}


def test_page_data_marks_the_serial_runs(tmp_path: Path) -> None:
    """SERIAL_READS (tests/event_traces.py): lane main's batches in order are a | b | c
    (bash) | d | e f | g | h | i; runs of single read-only calls: a b (run 0, ended by
    bash), d alone (ended by the two-call turn: not a run), g h i (run 1). Lane sub's
    calls have no batch (no turn_start): no run. Calls in wave order: a..i, j, k."""
    lanes = _lanes(write_events(tmp_path / "serial.jsonl", SERIAL_READS))
    data = page_data(lanes)
    assert data["calls"]["dur"] == [10, 10, 10, 10, 10, 15, 10, 10, 10, 10, 10]
    assert data["calls"]["run"] == [0, 0, -1, -1, -1, -1, 1, 1, 1, -1, -1]
    # the figures count the same runs: 2 runs of 2 + 3 = 5 calls
    assert (lanes[0].summary.missed_batch_runs, lanes[0].summary.missed_batch_calls) == (2, 5)


def test_page_data_serial_runs_follow_the_run_settings(tmp_path: Path) -> None:
    """The idle gap and the batchable names are the run's: every gap between calls is 5
    or 10 ms, so an idle gap of 5 ms ends each run after its first call (a..b, g..h,
    h..i are 10 ms apart): no run; 10 ms keeps them. With only ``read`` batchable, b
    (grep), h (glob) and i (ls) end the runs: a and g are alone, no run."""
    lanes = _lanes(write_events(tmp_path / "serial.jsonl", SERIAL_READS))
    none = [-1] * 11
    assert page_data(lanes, idle_gap_ms=5)["calls"]["run"] == none
    assert page_data(lanes, idle_gap_ms=10)["calls"]["run"] == [0, 0, -1, -1, -1, -1,
                                                                1, 1, 1, -1, -1]
    assert page_data(lanes, batchable_tool_names=("read",))["calls"]["run"] == none


def test_page_data_marks_no_run_when_aggregated(tmp_path: Path) -> None:
    """Past the bar limit no call is drawn, so none is marked (the page says so)."""
    lanes = _lanes(write_events(tmp_path / "serial.jsonl", SERIAL_READS))
    calls = page_data(lanes, max_call_bars=10)["calls"]  # 11 calls > 10
    assert calls["run"] == calls["wave"] == []


@needs_report
def test_report_marks_runs_with_the_command_s_idle_gap(tmp_path: Path) -> None:
    """``report --idle-gap`` reaches the page's runs: 0.005 s (5 ms) leaves none."""
    trace = write_events(tmp_path / "serial.jsonl", SERIAL_READS)

    def runs(*options: str) -> list[int]:
        out = tmp_path / "r.html"
        result = CliRunner().invoke(main, ["report", str(trace), "-o", str(out), "--no-cache",
                                           *options])
        assert result.exit_code == 0, result.stderr
        found = re.search(r'id="wm-data">(.*?)</script>',
                          out.read_text(encoding="utf-8"), re.S)
        assert found is not None
        return list(json.loads(found.group(1))["calls"]["run"])

    assert runs() == [0, 0, -1, -1, -1, -1, 1, 1, 1, -1, -1]
    assert runs("--idle-gap", "0.005") == [-1] * 11


def test_tool_rows_and_histogram(trace: Path) -> None:
    lanes = _lanes(trace)
    # read: a 100 + f 40 + g 10 + h 20 = 170 ms, all 4 in waves of 2; eval: 100 + 100,
    # one of 2 in a wave of 2; grep 30 (in a wave of 2); bash 50 (alone)
    assert tool_rows(lanes) == [
        {"name": "eval", "calls": 2, "time_ms": 200, "multi_share": 0.5},
        {"name": "read", "calls": 4, "time_ms": 170, "multi_share": 1.0},
        {"name": "bash", "calls": 1, "time_ms": 50, "multi_share": 0.0},
        {"name": "grep", "calls": 1, "time_ms": 30, "multi_share": 1.0},
    ]
    assert wave_size_histogram(lanes) == [
        {"size": 1, "non_eval": 1, "eval_only": 1, "mixed": 0},
        {"size": 2, "non_eval": 2, "eval_only": 0, "mixed": 1},
    ]


def test_json_for_script_cannot_end_the_element() -> None:
    text = html_page.json_for_script({"name": "</script><script>alert(1)</script>&\u202e"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert text.isascii()
    assert json.loads(text) == {"name": "</script><script>alert(1)</script>&\u202e"}


def test_missing_extra_names_both_install_commands() -> None:
    message = str(html_page.ReportExtraMissing("plotly"))
    assert message == ("report needs plotly (the report extra): pip install 'wavemetrics[report]'"
                       " (in a checkout of wavemetrics: pip install -e '.[report]')")


def test_report_without_the_extra_is_a_usage_error(
    trace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "plotly" else real(name, *a))
    result = CliRunner().invoke(main, ["report", str(trace), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert "pip install 'wavemetrics[report]'" in result.stderr
    assert "pip install -e '.[report]'" in result.stderr
    assert not (tmp_path / "r.html").exists()


def test_report_output_must_be_html(trace: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["report", str(trace), "-o", str(tmp_path / "r.png")])
    assert result.exit_code == 2
    assert "must end in .html" in result.stderr


@needs_report
def test_compare_takes_no_path(trace: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["report", str(trace), "--compare", str(tmp_path),
                                       str(tmp_path), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert "--compare reads its two folders" in result.stderr


@needs_report
def test_report_writes_the_figures_of_summarize_json(trace: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["report", str(trace), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    # 2 lanes; 6 + 2 = 8 calls in 4 + 1 = 5 waves
    assert result.stdout == f"{out}: 2 lanes, 8 calls in 5 waves\n"
    summary = CliRunner().invoke(main, ["summarize", str(trace), "--format", "json",
                                        "--no-cache"])
    total = json.loads(summary.stdout)["total"]
    page = out.read_text(encoding="utf-8")
    shown = {key: html.unescape(value) for key, value
             in re.findall(r'<td data-figure="([^"]+)">([^<]*)</td>', page)}
    assert shown == {key: json.dumps(value) for key, value in total.items()}
    # the policy forbids every fetch and runs only the two inline scripts, by hash
    found = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert found is not None
    policy = html.unescape(found.group(1))
    assert policy.startswith("default-src 'none'; script-src 'sha256-")
    assert policy.count("'sha256-") == 2
    assert "connect-src 'none'" in policy
    assert not re.search(r'<(script|link|img)[^>]+(src|href)=', page)


@needs_report
def test_report_unreadable_input_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json at all\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["report", str(bad), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 1
    assert "Traceback" not in result.stderr


@needs_report
@needs_scipy
def test_compare_page_shows_compare_json_interval(tmp_path: Path) -> None:
    base, cand = tmp_path / "base", tmp_path / "cand"
    for task, (b, c) in enumerate([(10, 30), (20, 50), (40, 45), (5, 60)]):
        saving_trial(base / f"t{task}" / "a.jsonl", b)
        saving_trial(cand / f"t{task}" / "a.jsonl", c)
    out = tmp_path / "c.html"
    result = CliRunner().invoke(main, ["report", "--compare", str(base), str(cand),
                                       "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    document = json.loads(CliRunner().invoke(
        main, ["compare", str(base), str(cand), "--format", "json"]).stdout)
    page = out.read_text(encoding="utf-8")
    shown = dict(re.findall(r'<td data-figure="([^"]+)">([^<]*)</td>', page))
    # differences 20, 30, 5, 55: mean 110 / 4 = 27.5
    assert shown["difference"] == "27.5" == json.dumps(document["difference"])
    assert [shown["interval-low"], shown["interval-high"]] == [
        json.dumps(value) for value in document["interval"]]


@needs_report
def test_turn_figures_block_shows_the_section_9_figures_of_the_document(trace: Path) -> None:
    """The block lists the 14 section-9 figures in table order, as the JSON writes them,
    and is left out of a document without them."""
    from wavemetrics.core.activity import ACTIVITY_FIGURES
    from wavemetrics.views.report import json_document

    analysis = analyse(read_inputs([str(trace)], "auto"))
    document = json_document(analysis)
    page = html_page.render_page(analysis, document, [], eval_tool_names=("eval",))
    block = page.split('id="turn-figures"', 1)[1].split("</table>", 1)[0]
    shown = [(name, html.unescape(value))
             for name, value in re.findall(r'data-figure="([^"]+)">([^<]*)<', block)]
    assert shown == [(name, json.dumps(document["total"][name])) for name in ACTIVITY_FIGURES]
    # lane main's one turn_start makes its six calls one batch (width 6: bucket 5-8);
    # lane sub has no turn_start, so its two calls have none; the waves' spans
    # 100 + 50 + 100 + 100 (main) + 20 (sub) are the busy time
    figures = dict(shown)
    assert (figures["calls_without_batch"], figures["batched_turns"]) == ("2", "1")
    assert (figures["max_turn_width"], figures["turn_width_histogram"]) == (
        "6", '"0:0:0:0:1:0:0:0"')
    assert figures["tool_busy_ms"] == "370.0"
    for name in ACTIVITY_FIGURES:
        del document["total"][name]
    plain = html_page.render_page(analysis, document, [], eval_tool_names=("eval",))
    assert 'id="turn-figures"' not in plain


@pytest.mark.parametrize(("metric", "low", "high", "word"), [
    ("modeled_wallclock_saved_ms", 1.0, 5.0, "better"),
    ("modeled_wallclock_saved_ms", -5.0, -1.0, "worse"),
    ("measured_turn_duration_ms_total", -5.0, -1.0, "better"),
    ("measured_turn_duration_ms_total", 1.0, 5.0, "worse"),
    ("paired_calls", 1.0, 5.0, "higher"),
    ("paired_calls", -5.0, -1.0, "lower"),
    ("modeled_wallclock_saved_ms", -1.0, 1.0, "no clear difference"),
    ("modeled_wallclock_saved_ms", 0.0, 1.0, "no clear difference"),
    ("modeled_wallclock_saved_ms", None, None, "no interval"),
])
def test_verdict(metric: str, low: float | None, high: float | None, word: str) -> None:
    assert html_page.verdict(metric, low, high) == word
