"""The efficiency axis of a bench runner: states, reasons and exact figures.

Expected figures are computed by hand from the traces in ``tests/event_traces.py``
(``docs/metrics.md`` sections 1-5).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.event_traces import TWO_LANES, write_events
from wavemetrics import AxisState, EfficiencyAxis, efficiency_axis
from wavemetrics.core.schema import SUMMARY_FIELDS
from wavemetrics.views.axis import AXIS_ONLY_FIGURES, FIGURE_NAMES, LOSS_COUNTERS, multi_call_share

# TWO_LANES by hand: main has waves {read, grep} (durations 100 + 30, span 100:
# saving 30, upper 65, peak 2), {bash} (50), eval_only {eval} (span 100) and
# mixed {eval, read} (100 + 40); sub has {read, read} (10 + 20, span 20:
# saving 10, upper 15, peak 2). Turn 1000 -> 1700 on main.
TWO_LANES_FIGURES: dict[str, Any] = {
    "traces_read": 1,
    "lanes": 2,
    "paired_calls": 8,
    "tool_time_ms": 450.0,
    "non_eval_joined_calls": 5,
    "non_eval_waves_total": 3,
    "non_eval_waves_multi": 2,
    "non_eval_calls_in_multi_waves": 4,
    "non_eval_multi_call_share": 0.8,
    "non_eval_saved_round_trips": 2,
    "modeled_wallclock_saved_ms": 40.0,
    "upper_bound_saved_ms": 80.0,
    "non_eval_wave_size_histogram": "1:2:0:0:0:0:0:0",
    "eval_only_waves": 1,
    "eval_only_duration_ms": 100.0,
    "mixed_waves": 1,
    "measured_turn_duration_ms_total": 700.0,
    # section 9 (docs/metrics.md): main's six calls follow its one turn_start, one
    # turn of width 6 (bucket 5-8); sub has no turn_start, so its 2 calls have no batch
    "calls_without_batch": 2,
    "batched_turns": 1,
    "multi_call_turns": 1,
    "turn_width_histogram": "0:0:0:0:1:0:0:0",
    "max_turn_width": 6,
    "missed_batch_runs": 0,
    "missed_batch_calls": 0,
    "missed_batch_round_trips": 0,
    "missed_batch_upper_ms": 0.0,
    # main 1000 -> 1700 (its turn's end) and sub 2000 -> 2020: 700 + 20
    "lane_span_ms": 720.0,
    # main's waves 100 + 50 + 100 + 100 ms, sub's one 20 ms wave
    "tool_busy_ms": 370.0,
    "idle_ms": 0.0,
    "calls_timed_by_execution": 8,
    "calls_timed_by_message": 0,
    "incomplete_calls": 0,
    "clock_anomalies": 0,
    "dropped_calls": 0,
    "problem_lines": 0,
    "missing_traces": 0,
    "lower_bound": False,
}

ZERO_FIGURES: dict[str, Any] = {
    **{name: 0 for name in FIGURE_NAMES},
    "traces_read": 1,
    "lanes": 1,
    "tool_time_ms": 0.0,
    "non_eval_multi_call_share": 0.0,
    "modeled_wallclock_saved_ms": 0.0,
    "upper_bound_saved_ms": 0.0,
    "non_eval_wave_size_histogram": "0:0:0:0:0:0:0:0",
    "eval_only_duration_ms": 0.0,
    "measured_turn_duration_ms_total": 500.0,
    "turn_width_histogram": "0:0:0:0:0:0:0:0",
    "missed_batch_upper_ms": 0.0,
    "lane_span_ms": 500.0,  # the measured turn 0 -> 500, no call
    "tool_busy_ms": 0.0,
    "idle_ms": 0.0,
    "lower_bound": False,
}


def make_trials(root: Path) -> Path:
    """A bench run's trial folders, each with (or without) its ``trace.jsonl``."""
    write_events(root / "fine" / "trace.jsonl", TWO_LANES)
    write_events(
        root / "lossy" / "trace.jsonl",
        [
            ("tool_execution_start", "a", "read", 0, "main"),
            ("tool_execution_end", "a", "read", 10, "main"),
            ("tool_execution_start", "b", "read", 20, "main"),
        ],
        extra_lines="{not json\n",
    )
    (root / "no-trace").mkdir(parents=True)
    (root / "corrupt").mkdir()
    (root / "corrupt" / "trace.jsonl").write_bytes(b"\x00\x01 binary junk\n{oops\n")
    write_events(
        root / "no-tool-calls" / "trace.jsonl",
        [("turn_start", None, None, 0, "main"), ("turn_end", None, None, 500, "main")],
    )
    return root


def run_bench(root: Path) -> dict[str, dict[str, Any]]:
    """What a runner does: one axis per trial folder, written into result.json."""
    results = {}
    for trial in sorted(p.name for p in root.iterdir()):
        axis = efficiency_axis(root / trial / "trace.jsonl")
        results[trial] = axis.to_dict()
    (root / "result.json").write_text(json.dumps(results, allow_nan=False), encoding="utf-8")
    loaded: dict[str, dict[str, Any]] = json.loads((root / "result.json").read_text("utf-8"))
    return loaded


def test_runner_folder_gives_each_state_with_its_reason_and_figures(tmp_path: Path) -> None:
    """A folder of trials gives scored, skipped and failed axes with exact reasons and figures."""
    root = make_trials(tmp_path / "trials")
    results = run_bench(root)
    assert {trial: r["state"] for trial, r in results.items()} == {
        "corrupt": "failed",
        "fine": "scored",
        "lossy": "scored",
        "no-tool-calls": "scored",
        "no-trace": "skipped",
    }
    fine = results["fine"]
    assert fine["reason"] == "measured: 8 paired calls in 2 lanes of 1 trace"
    assert fine["figures"] == TWO_LANES_FIGURES
    assert fine["evidence_complete"] is True
    lossy = results["lossy"]
    assert lossy["reason"] == (
        "measured, lower bound (incomplete calls 1, problem lines 1):"
        " 1 paired call in 1 lane of 1 trace"
    )
    assert lossy["evidence_complete"] is False
    assert lossy["figures"]["lower_bound"] is True
    assert (lossy["figures"]["paired_calls"], lossy["figures"]["tool_time_ms"]) == (1, 10.0)
    assert results["no-trace"] == {
        "axis": "efficiency", "state": "skipped",
        "reason": f"no trace: {root / 'no-trace' / 'trace.jsonl'} does not exist",
        "weighted": False, "evidence_complete": False, "contract": "parallelism_v1",
        "figures": None,
    }
    corrupt = results["corrupt"]
    corrupt_path = root / "corrupt" / "trace.jsonl"
    assert corrupt["reason"].startswith(
        f"trace could not be read: {corrupt_path}: not a recognised trace format"
    )
    assert (corrupt["figures"], corrupt["evidence_complete"]) == (None, False)
    assert results["no-tool-calls"]["reason"] == "measured: no tool calls in the trace"
    assert results["no-tool-calls"]["figures"] == ZERO_FIGURES
    assert results["no-tool-calls"]["evidence_complete"] is True


def test_every_axis_is_display_only_and_one_line(tmp_path: Path) -> None:
    """Every state's dict says ``weighted: false`` and carries a one-line reason."""
    results = run_bench(make_trials(tmp_path / "trials"))
    for result in results.values():
        assert result["weighted"] is False
        assert "\n" not in result["reason"] and result["reason"]


def test_no_trace_given_is_skipped() -> None:
    """``None`` and an empty list are skipped: nothing was given to measure."""
    nothing: tuple[None, list[str], tuple[str, ...]] = (None, [], ())
    for traces in nothing:
        axis = efficiency_axis(traces)
        assert (axis.state, axis.reason, axis.figures) == (
            AxisState.SKIPPED, "no trace: none was given", None
        )


def test_folder_without_trace_files_is_skipped(tmp_path: Path) -> None:
    """A trial folder with no trace file in it is a trial that produced no trace."""
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    axis = efficiency_axis(tmp_path)
    assert (axis.state, axis.reason) == (
        AxisState.SKIPPED, f"no trace: {tmp_path} has no trace file"
    )


def test_empty_trace_file_is_skipped(tmp_path: Path) -> None:
    """An empty trace file holds no record: skipped, never a zero."""
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b"")
    axis = efficiency_axis(str(path))
    assert (axis.state, axis.reason) == (AxisState.SKIPPED, f"no trace: {path} is empty")


def test_trace_with_no_usable_record_failed(tmp_path: Path) -> None:
    """A recognised trace whose every line is a problem is failed, with the reasons counted."""
    path = tmp_path / "trace.jsonl"
    path.write_text('{"type": "tool_execution_start"}\n' * 2, encoding="utf-8")
    axis = efficiency_axis(path)
    assert axis.state is AxisState.FAILED
    assert axis.reason == f"no usable record: {path}: 2 lines not usable (invalid_tool_record 2)"
    assert axis.figures is None


def test_unreadable_among_several_traces_failed(tmp_path: Path) -> None:
    """One unrecognised trace among several fails the axis and says how many more failed."""
    good = write_events(tmp_path / "a.jsonl", TWO_LANES)
    bad1 = tmp_path / "b.jsonl"
    bad1.write_text("nonsense\n", encoding="utf-8")
    bad2 = tmp_path / "c.jsonl"
    bad2.write_text("more nonsense\n", encoding="utf-8")
    axis = efficiency_axis([good, bad1, bad2])
    assert axis.state is AxisState.FAILED
    assert axis.reason.startswith(f"trace could not be read: {bad1}: not a recognised")
    assert axis.reason.endswith(" (and 1 more)")


def test_missing_one_of_several_traces_is_a_lower_bound(tmp_path: Path) -> None:
    """A missing path beside a read trace leaves the figures scored but a lower bound."""
    good = write_events(tmp_path / "a.jsonl", TWO_LANES)
    axis = efficiency_axis([str(good), str(tmp_path / "sub.jsonl")])
    assert axis.state is AxisState.SCORED
    assert axis.evidence_complete is False
    assert axis.figures == {**TWO_LANES_FIGURES, "missing_traces": 1, "lower_bound": True}
    assert axis.reason == (
        "measured, lower bound (missing traces 1): 8 paired calls in 2 lanes of 1 trace"
    )


def test_every_path_missing_is_skipped_with_the_count(tmp_path: Path) -> None:
    """Several paths that all do not exist are skipped, naming the first and counting the rest."""
    axis = efficiency_axis([tmp_path / "a.jsonl", tmp_path / "b.jsonl"])
    assert axis.state is AxisState.SKIPPED
    assert axis.reason == f"no trace: {tmp_path / 'a.jsonl'} does not exist (and 1 more)"


def test_dropped_calls_make_a_lower_bound(tmp_path: Path) -> None:
    """Calls over ``max_tracked_calls`` are dropped and make the figures a lower bound."""
    path = write_events(tmp_path / "t.jsonl", TWO_LANES)
    axis = efficiency_axis(path, max_tracked_calls=1)
    assert axis.state is AxisState.SCORED
    assert axis.figures is not None
    # main keeps only "a" (b..f dropped: 5, "a" pairs); sub keeps "g" ("h" dropped).
    assert (axis.figures["paired_calls"], axis.figures["dropped_calls"]) == (2, 6)
    assert axis.figures["lower_bound"] is True
    assert axis.reason.startswith("measured, lower bound (dropped calls 6): ")


def test_eval_tool_names_change_the_buckets(tmp_path: Path) -> None:
    """Caller eval names are used for buckets and for calls in multi-call waves."""
    path = write_events(tmp_path / "t.jsonl", TWO_LANES)
    axis = efficiency_axis(path, eval_tool_names=("grep",))
    assert axis.figures is not None
    # main: {read, grep} mixed, {bash}, {eval} and {eval, read} non_eval; sub {read, read}.
    assert (axis.figures["mixed_waves"], axis.figures["non_eval_calls_in_multi_waves"],
            axis.figures["non_eval_joined_calls"]) == (1, 4, 6)


def test_forced_input_format_reads_like_detection(tmp_path: Path) -> None:
    """``input_format="events"`` gives the same figures as detection on an events trace."""
    path = write_events(tmp_path / "t.jsonl", TWO_LANES)
    axis = efficiency_axis(path, input_format="events")
    assert (axis.state, axis.figures) == (AxisState.SCORED, TWO_LANES_FIGURES)


@pytest.mark.parametrize("forced", ["claude-code", "codex", "pi"])
def test_forced_input_format_foreign_to_the_trace_fails(tmp_path: Path, forced: str) -> None:
    """An events trace read as another format: every line ignored as foreign (auto-detection
    says events), so nothing was measured: failed, never a scored zero."""
    path = write_events(tmp_path / "t.jsonl", TWO_LANES)
    lines = len(path.read_text(encoding="utf-8").splitlines())
    axis = efficiency_axis(path, input_format=forced)
    assert (axis.state, axis.figures, axis.evidence_complete) == (AxisState.FAILED, None, False)
    assert axis.reason == (
        f"no usable record: {path}: every line ({lines}) was ignored as a record type that"
        f" --input-format {forced} does not read; it looks like events: try --input-format"
        " events or auto")


def test_bad_arguments_raise() -> None:
    """An unknown format is a ValueError, a traces value of the wrong type a TypeError."""
    with pytest.raises(ValueError, match="unknown input format"):
        efficiency_axis(None, input_format="nope")
    with pytest.raises(TypeError):
        efficiency_axis(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        efficiency_axis([b"bytes.jsonl"])  # type: ignore[list-item]


def test_axis_states_are_never_mixed_up() -> None:
    """Figures exist exactly when scored, complete evidence only when scored, reasons one line."""
    with pytest.raises(ValueError):
        EfficiencyAxis(AxisState.SCORED, "measured")
    with pytest.raises(ValueError):
        EfficiencyAxis(AxisState.SKIPPED, "no trace", figures={})
    with pytest.raises(ValueError):
        EfficiencyAxis(AxisState.FAILED, "broken", evidence_complete=True)
    with pytest.raises(ValueError):
        EfficiencyAxis(AxisState.FAILED, "two\nlines")


def test_figures_follow_figure_names_order(tmp_path: Path) -> None:
    """The figures' keys are FIGURE_NAMES, in that order (stable result.json columns)."""
    axis = efficiency_axis(write_events(tmp_path / "t.jsonl", TWO_LANES))
    assert axis.figures is not None
    assert tuple(axis.figures) == FIGURE_NAMES


def test_non_finite_figure_is_null_in_the_dict() -> None:
    """A non-finite float figure becomes null in ``to_dict`` (JSON has no Infinity)."""
    axis = EfficiencyAxis(AxisState.SCORED, "measured", {"tool_time_ms": float("inf")}, True)
    assert axis.to_dict()["figures"] == {"tool_time_ms": None}
    assert json.dumps(axis.to_dict(), allow_nan=False)


def test_multi_call_share_of_no_call_is_zero() -> None:
    """The share is calls in multi-call waves over non_eval calls, and 0.0 with none."""
    shares = (multi_call_share(4, 5), multi_call_share(0, 0), multi_call_share(3, 3))
    assert shares == (0.8, 0.0, 1.0)


def test_axis_state_values_are_the_result_json_spelling() -> None:
    """The enum's values and str() are the spellings written into result.json."""
    assert [str(state) for state in AxisState] == ["scored", "skipped", "failed"]


def test_bench_integration_doc_lists_every_figure_in_order() -> None:
    """docs/bench-integration.md's figures table has FIGURE_NAMES, in order."""
    doc = Path(__file__).resolve().parents[1] / "docs" / "bench-integration.md"
    text = doc.read_text("utf-8")
    section = text.split("## Figures", 1)[1].split("\n## ", 1)[0]
    names = [line.split("|")[1].strip().strip("`") for line in section.splitlines()
             if line.startswith("| `")]
    assert tuple(names) == FIGURE_NAMES


def test_every_axis_figure_is_the_axis_own_or_a_summary_figure() -> None:
    """FIGURE_NAMES holds the axis' own figures and summary figures (values from the total)."""
    assert set(AXIS_ONLY_FIGURES) <= set(FIGURE_NAMES)
    assert set(FIGURE_NAMES) - set(AXIS_ONLY_FIGURES) <= set(SUMMARY_FIELDS)
    assert LOSS_COUNTERS == (
        "incomplete_calls", "clock_anomalies", "dropped_calls", "problem_lines", "missing_traces",
    )


def test_axis_figures_are_read_only(tmp_path: Path) -> None:
    """A frozen axis holds a read-only copy of its figures: neither it nor the caller's dict."""
    given = {name: 0 for name in FIGURE_NAMES}
    axis = EfficiencyAxis(AxisState.SCORED, "measured", given)
    given["paired_calls"] = 5
    assert axis.figures is not None
    assert axis.figures["paired_calls"] == 0
    with pytest.raises(TypeError):
        axis.figures["paired_calls"] = 1  # type: ignore[index]
    assert axis.to_dict()["figures"] == {name: 0 for name in FIGURE_NAMES}
