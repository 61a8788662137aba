"""``wavemetrics compare``: per-task means, differences, the paired bootstrap, and the output.

Folders are built by hand from ``saving_trial`` traces (``tests/event_traces.py``):
a trial ``saving_trial(k)`` has modeled saving k ms, upper bound (100 + k) / 2 ms,
one saved round trip, one multi-call wave and share 1.0.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import gfm
from tests.corpus import CORPUS, needs_corpus
from tests.event_traces import saving_trial, write_events
from tests.extras import needs_scipy
from wavemetrics.cli.commands import main
from wavemetrics.core.activity import ACTIVITY_FIGURES
from wavemetrics.views.compare import (
    METRICS,
    Interval,
    MissingExtra,
    Side,
    SideTask,
    TaskRow,
    compare_folders,
    compare_tasks,
    paired_bootstrap,
    render_table,
    timing_items,
)

JSON_KEYS = [
    "metric", "difference", "interval", "confidence", "resamples", "seed", "paired_tasks",
    "baseline_only", "candidate_only", "unusable_tasks", "empty_tasks", "mixed_kind_tasks",
    "failed_trials", "lower_bound_trials", "not_read", "no_task_folders", "timing", "tasks",
]
TASK_KEYS = [
    "task_id", "baseline_mean", "candidate_mean", "difference", "baseline_trials",
    "candidate_trials", "baseline_failed", "candidate_failed", "baseline_kinds",
    "candidate_kinds",
]


def make_sides(root: Path) -> tuple[Path, Path]:
    """Two sides with unequal trials per task, failed trials, one-sided and unusable tasks."""
    base, cand = root / "baseline", root / "candidate"
    saving_trial(base / "t1" / "a.jsonl", 10)
    saving_trial(base / "t1" / "b.jsonl", 30)
    saving_trial(cand / "t1" / "a.jsonl", 50)
    saving_trial(base / "t2" / "a.jsonl", 40)
    # an events trace whose only record is a problem (no call id): a failed trial
    (base / "t2" / "b.jsonl").write_text(
        '{"type": "tool_execution_start", "toolName": "bash", "timestamp": 1}\n',
        encoding="utf-8")
    saving_trial(cand / "t2" / "a.jsonl", 20)
    saving_trial(cand / "t2" / "run2" / "b.jsonl", 80)
    saving_trial(base / "t3" / "a.jsonl", 5)
    saving_trial(cand / "t4" / "a.jsonl", 7)
    saving_trial(base / "t5" / "a.jsonl", 60)
    (cand / "t5").mkdir()
    (cand / "t5" / "a.jsonl").write_bytes(b"")
    saving_trial(base / "stray.jsonl", 1)
    return base, cand


# By hand: t1 baseline (10 + 30) / 2 = 20, candidate 50, +30; t2 baseline 40 (b failed),
# candidate (20 + 80) / 2 = 50, +10; t3 and t4 one-sided; t5 candidate's only trial is
# empty (failed). Overall (30 + 10) / 2 = 20.
EV = ("events",)  # the kind of every usable trial of make_sides
EXPECTED_TASKS = [
    TaskRow("t1", 20.0, 50.0, 30.0, 2, 1, 0, 0, EV, EV),
    TaskRow("t2", 40.0, 50.0, 10.0, 2, 2, 1, 0, EV, EV),
    TaskRow("t3", 5.0, None, None, 1, 0, 0, 0, EV, ()),
    TaskRow("t4", None, 7.0, None, 0, 1, 0, 0, (), EV),
    TaskRow("t5", 60.0, None, None, 1, 1, 0, 1, EV, ()),
]

EXPECTED_TABLE = """\
metric: modeled_wallclock_saved_ms (modeled wall-clock saving), in s
candidate - baseline, mean over 2 paired tasks: +0.020 s
95% interval: [+0.010, +0.030] s
  paired bootstrap over tasks: method BCa, 9999 resamples, seed 0
warning: fewer than 10 paired tasks: the interval is unreliable
coverage: 2 of 5 tasks paired (1 baseline only, 1 candidate only, 1 unusable)
failed trials: baseline 1, candidate 1
not read: 1 trace file outside any task folder

task                 base n fail  base mean cand n fail  cand mean  difference
t1                        2    0      0.020      1    0      0.050      +0.030
t2                        2    1      0.040      2    0      0.050      +0.010
t3                        1    0      0.005      0    0          -           -
t4                        0    0          -      1    0      0.007           -
t5                        1    0      0.060      1    1          -           -
baseline only: t3
candidate only: t4
n: trials found (a trial is one session, its lanes summed); fail: trials
with no value (unreadable, unrecognised, empty, no usable record); means
are over the other trials; unusable: a task in both folders with no
usable trial on one side.
"""


def run(*args: str) -> tuple[int, str, str]:
    """Invoke the CLI; return exit code, stdout and stderr."""
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@needs_scipy
def test_folders_give_exact_task_rows_and_difference(tmp_path: Path) -> None:
    """Per-task means over usable trials, differences, one-sided lists and the overall mean."""
    base, cand = make_sides(tmp_path)
    comparison = compare_folders(str(base), str(cand))
    assert list(comparison.tasks) == EXPECTED_TASKS
    assert comparison.difference == 20.0
    assert (comparison.baseline_only, comparison.candidate_only) == (("t3",), ("t4",))
    assert comparison.paired_tasks == 2
    assert comparison.strays == (str(base / "stray.jsonl"),)
    assert [(f.side, f.path) for f in comparison.failures] == [
        ("baseline", str(base / "t2" / "b.jsonl")), ("candidate", str(cand / "t5" / "a.jsonl")),
    ]


@needs_scipy
def test_two_task_interval_spans_the_two_differences(tmp_path: Path) -> None:
    """With differences 30 and 10 the 95% BCa interval is exactly [10, 30].

    Every resample's mean is 10, 20 or 30 (probabilities 1/4, 1/2, 1/4); the
    jackknife is symmetric, so BCa's acceleration is 0 and its bias about 0, and
    the 2.5% and 97.5% points fall inside the atoms at 10 and 30.
    """
    base, cand = make_sides(tmp_path)
    interval = compare_folders(str(base), str(cand)).interval
    assert (interval.low, interval.high, interval.note) == (10.0, 30.0, None)


@needs_scipy
def test_table_shows_every_task_below_ten_paired(tmp_path: Path) -> None:
    """The table has the result, interval, coverage, failures, and every task's row."""
    base, cand = make_sides(tmp_path)
    code, out, err = run("compare", str(base), str(cand))
    assert out == EXPECTED_TABLE
    assert code == 1
    bad = base / "t2" / "b.jsonl"
    assert (f"wavemetrics: error: baseline: no usable record: {bad}: 1 line not usable"
            " (invalid_tool_record 1)\n") in err
    assert f"wavemetrics: error: candidate: no trace: {cand / 't5' / 'a.jsonl'} is empty" in err
    assert f"wavemetrics: note: {base / 'stray.jsonl'}: not in a task folder, not read" in err


@needs_scipy
def test_not_read_counts_distinct_trace_files_not_sidecars(tmp_path: Path) -> None:
    """``compare A A`` with a stray trace and a ``meta.json`` beside task t1: one file not
    read (the trace, once, though both sides found it; ``meta.json`` is no trace)."""
    root = tmp_path / "runs"
    saving_trial(root / "t1" / "a.jsonl", 30)
    saving_trial(root / "stray.jsonl", 20)
    (root / "meta.json").write_text('{"harness": "x", "version": 2}\n', encoding="utf-8")
    _, out, err = run("compare", str(root), str(root))
    assert "not read: 1 trace file outside any task folder\n" in out
    assert err.count("not in a task folder, not read") == 1
    assert "meta.json" not in err
    _, document, _ = run("compare", "--format", "json", str(root), str(root))
    assert json.loads(document)["not_read"] == [str(root / "stray.jsonl")]


@needs_scipy
def test_task_folder_is_read_as_summarize_reads_a_folder(tmp_path: Path) -> None:
    """A bench runner's ``meta.json``, a ``*.meta.json`` sidecar and a ``notes.jsonl`` of
    no known format beside a task's traces are skipped, as ``summarize`` skips them in a
    folder: no failed trial, exit 0. By hand: t1 has trials 30 and 50 on the baseline
    (mean 40 ms) and 20 on the candidate: -20 ms = -0.020 s."""
    base, cand = tmp_path / "baseline", tmp_path / "candidate"
    saving_trial(base / "t1" / "a.jsonl", 30)
    saving_trial(base / "t1" / "b.jsonl", 50)
    saving_trial(cand / "t1" / "a.jsonl", 20)
    for side in (base, cand):
        (side / "t1" / "meta.json").write_text('{"model": "m", "seed": 3}\n', encoding="utf-8")
        (side / "t1" / "a.meta.json").write_text('{"agentType": "x"}\n', encoding="utf-8")
        (side / "t1" / "notes.jsonl").write_text('{"step": 1}\n', encoding="utf-8")
    summarized, _, _ = run("summarize", "--format", "json", str(base / "t1"))
    assert summarized == 0
    code, out, err = run("compare", "--format", "json", str(base), str(cand))
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["failed_trials"] == {"baseline": 0, "candidate": 0}
    row = document["tasks"][0]
    assert (row["baseline_trials"], row["candidate_trials"]) == (2, 1)
    assert (row["baseline_failed"], row["candidate_failed"]) == (0, 0)
    assert math.isclose(row["difference"], -20.0)


@needs_scipy
def test_forced_format_foreign_to_a_trial_makes_it_failed(tmp_path: Path) -> None:
    """``compare --input-format codex`` on events trials: every trial's lines are ignored as
    foreign, so each trial is failed with the reason, never a zero value; exit 1."""
    base, cand = tmp_path / "baseline", tmp_path / "candidate"
    bad = saving_trial(base / "t1" / "a.jsonl", 30)
    saving_trial(cand / "t1" / "a.jsonl", 20)
    code, out, err = run("compare", "--format", "json", "--input-format", "codex",
                         str(base), str(cand))
    assert code == 1
    document = json.loads(out)
    assert document["failed_trials"] == {"baseline": 1, "candidate": 1}
    assert document["tasks"][0]["baseline_mean"] is None
    assert (f"wavemetrics: error: baseline: no usable record: {bad}: every line (4) was"
            " ignored as a record type that --input-format codex does not read; it looks like"
            " events: try --input-format events or auto\n") in err


def test_table_fits_in_80_columns() -> None:
    """Every line of the expected table fits in 80 columns."""
    assert max(len(line) for line in EXPECTED_TABLE.splitlines()) <= 80


@needs_scipy
def test_json_has_exactly_the_listed_keys(tmp_path: Path) -> None:
    """``--format json`` has exactly the issue's keys, per task too, with exact values."""
    base, cand = make_sides(tmp_path)
    code, out, _ = run("compare", str(base), str(cand), "--format", "json",
                       "--metric", "upper_bound_saved_ms", "--seed", "7", "--resamples", "500",
                       "--confidence", "0.9")
    document = json.loads(out)
    assert list(document) == JSON_KEYS
    assert all(list(task) == TASK_KEYS for task in document["tasks"])
    # upper bound (100 + k) / 2: t1 (55 + 65) / 2 = 60 -> 75 (+15);
    # t2 70 -> (60 + 90) / 2 = 75 (+5).
    assert {k: v for k, v in document.items() if k not in ("tasks", "interval")} == {
        "metric": "upper_bound_saved_ms", "difference": 10.0, "confidence": 0.9,
        "resamples": 500, "seed": 7, "paired_tasks": 2, "baseline_only": ["t3"],
        "candidate_only": ["t4"], "unusable_tasks": ["t5"], "empty_tasks": [],
        "mixed_kind_tasks": [], "failed_trials": {"baseline": 1, "candidate": 1},
        "lower_bound_trials": [], "not_read": [str(base / "stray.jsonl")],
        "no_task_folders": [],
        # every usable trial is 2 events calls: baseline t1 a, b, t2 a, t3, t5 (5 trials),
        # candidate t1, t2 a, t2 run2, t4 (4); the stray file and failed trials count none
        "timing": {"baseline": {"execution": 10, "message": 0},
                   "candidate": {"execution": 8, "message": 0}},
    }
    assert document["tasks"][:2] == [
        {"task_id": "t1", "baseline_mean": 60.0, "candidate_mean": 75.0, "difference": 15.0,
         "baseline_trials": 2, "candidate_trials": 1, "baseline_failed": 0, "candidate_failed": 0,
         "baseline_kinds": ["events"], "candidate_kinds": ["events"]},
        {"task_id": "t2", "baseline_mean": 70.0, "candidate_mean": 75.0, "difference": 5.0,
         "baseline_trials": 2, "candidate_trials": 2, "baseline_failed": 1, "candidate_failed": 0,
         "baseline_kinds": ["events"], "candidate_kinds": ["events"]},
    ]
    assert document["tasks"][3]["baseline_mean"] is None
    assert document["interval"] == [5.0, 15.0]
    assert code == 1


@pytest.mark.parametrize(
    ("metric", "value"),
    [
        ("modeled_wallclock_saved_ms", 30.0),
        ("upper_bound_saved_ms", 65.0),
        ("non_eval_saved_round_trips", 1.0),
        ("non_eval_waves_multi", 1.0),
        ("non_eval_multi_call_share", 1.0),
        ("paired_calls", 2.0),
        ("tool_time_ms", 130.0),
        ("measured_turn_duration_ms_total", 0.0),
    ],
)
@needs_scipy
def test_each_metric_reads_its_figure_of_the_trial(
    tmp_path: Path, metric: str, value: float
) -> None:
    """A trial's value for each metric is that figure of the trial's merged total."""
    saving_trial(tmp_path / "b" / "t" / "a.jsonl", 30)
    (tmp_path / "c" / "t").mkdir(parents=True)
    comparison = compare_folders(str(tmp_path / "b"), str(tmp_path / "c"), metric=metric)
    assert comparison.tasks[0].baseline_mean == value


@needs_scipy
def test_share_is_zero_for_a_trial_without_non_eval_calls(tmp_path: Path) -> None:
    """A trial with only eval calls has share 0.0 (0/0 is defined as 0), so it stays paired."""
    write_events(tmp_path / "b" / "t" / "a.jsonl", [
        ("tool_execution_start", "e", "eval", 0, "main"),
        ("tool_execution_end", "e", "eval", 10, "main"),
    ])
    saving_trial(tmp_path / "c" / "t" / "a.jsonl", 30)
    comparison = compare_folders(str(tmp_path / "b"), str(tmp_path / "c"),
                                 metric="non_eval_multi_call_share")
    assert comparison.tasks == (TaskRow("t", 0.0, 1.0, 1.0, 1, 1, 0, 0, EV, EV),)


@needs_scipy
def test_one_paired_task_has_no_interval_and_says_why(tmp_path: Path) -> None:
    """One paired task gives the difference but no interval, in table and JSON alike."""
    saving_trial(tmp_path / "b" / "t" / "a.jsonl", 10)
    saving_trial(tmp_path / "c" / "t" / "a.jsonl", 25)
    code, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"), "--format", "json")
    document = json.loads(out)
    assert (document["difference"], document["interval"], code) == (15.0, None, 0)
    code, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"))
    assert "95% interval: none (1 paired task: the bootstrap needs at least 2)\n" in out
    # no interval, so no bootstrap ran: neither its method line nor its warning is shown
    assert "warning: fewer than 10 paired tasks" not in out
    assert "paired bootstrap over tasks" not in out


@needs_scipy
def test_legend_explains_unusable_only_when_the_coverage_line_shows_it(tmp_path: Path) -> None:
    """With no unusable task the coverage line has no "unusable" count, so the legend
    does not explain one: the whole table, by hand (10 ms vs 25 ms: +0.015 s)."""
    saving_trial(tmp_path / "b" / "t" / "a.jsonl", 10)
    saving_trial(tmp_path / "c" / "t" / "a.jsonl", 25)
    code, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"))
    assert code == 0
    assert out == """\
metric: modeled_wallclock_saved_ms (modeled wall-clock saving), in s
candidate - baseline, mean over 1 paired task: +0.015 s
95% interval: none (1 paired task: the bootstrap needs at least 2)
coverage: 1 of 1 task paired (0 baseline only, 0 candidate only)
failed trials: baseline 0, candidate 0

task                 base n fail  base mean cand n fail  cand mean  difference
t                         1    0      0.010      1    0      0.025      +0.015
n: trials found (a trial is one session, its lanes summed); fail: trials
with no value (unreadable, unrecognised, empty, no usable record); means
are over the other trials.
"""


@needs_scipy
def test_no_paired_task_exits_1_with_null_difference(tmp_path: Path) -> None:
    """Sides that share no task give a null difference, say so, and exit 1."""
    saving_trial(tmp_path / "b" / "x" / "a.jsonl", 10)
    saving_trial(tmp_path / "c" / "y" / "a.jsonl", 10)
    code, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"), "--format", "json")
    document = json.loads(out)
    figures = (document["difference"], document["interval"], document["paired_tasks"])
    assert figures == (None, None, 0)
    assert code == 1
    code, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"))
    assert "candidate - baseline: none (no task has a usable trial on both sides)\n" in out
    assert "95% interval: none (0 paired tasks: the bootstrap needs at least 2)\n" in out


@needs_scipy
def test_equal_differences_give_a_point_interval_without_warning() -> None:
    """All-equal differences (BCa undefined in scipy) give [d, d] and a note, never a warning."""
    interval = paired_bootstrap([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    assert interval == Interval(3.0, 3.0, "every per-task difference is equal, so every"
                                          " resample gives the same mean")


@needs_scipy
def test_degenerate_bootstrap_inputs_never_raise() -> None:
    """No task, one task and a non-finite difference give no interval and a note."""
    assert paired_bootstrap([], []) == Interval(
        None, None, "0 paired tasks: the bootstrap needs at least 2"
    )
    assert paired_bootstrap([1.0], [2.0]) == Interval(
        None, None, "1 paired task: the bootstrap needs at least 2"
    )
    assert paired_bootstrap([0.0, 0.0], [1.0, math.inf]) == Interval(
        None, None, "a per-task difference is not finite"
    )
    with pytest.raises(ValueError):
        paired_bootstrap([1.0], [1.0, 2.0])


@needs_scipy
def test_same_seed_same_interval() -> None:
    """The bootstrap is seeded: the same data and seed give the same interval."""
    base = [0.0, 10.0, 3.0, 7.0, 1.0]
    cand = [5.0, 2.0, 9.0, 8.0, 4.0]
    assert paired_bootstrap(base, cand, seed=3) == paired_bootstrap(base, cand, seed=3)


@needs_scipy
def test_ten_paired_tasks_hide_rows_with_nothing_to_see() -> None:
    """With 10+ paired tasks the table lists only tasks needing attention, and says so."""
    baseline = {f"task{i:02d}": SideTask((10.0,), 1) for i in range(10)}
    candidate = {f"task{i:02d}": SideTask((30.0,), 1) for i in range(10)}
    baseline["broken"] = SideTask((10.0,), 2, failed=1)
    candidate["broken"] = SideTask((30.0,), 1)
    comparison = compare_tasks(baseline, candidate)
    assert (comparison.paired_tasks, comparison.unreliable) == (11, False)
    assert (comparison.interval.low, comparison.interval.high) == (20.0, 20.0)
    table = render_table(comparison)
    assert "unreliable" not in table
    row = "broken                    2    1      0.010      1    0      0.030      +0.020\n"
    assert row in table
    assert "task00" not in table
    hidden = "(10 paired tasks with no failed trial not shown; --format json lists every task)\n"
    assert hidden in table


@needs_scipy
def test_lower_bound_trials_are_counted(tmp_path: Path) -> None:
    """A usable trial whose evidence is incomplete is counted in a lower-bound line."""
    write_events(tmp_path / "b" / "t" / "a.jsonl", [
        ("tool_execution_start", "x", "read", 0, "main"),
    ])
    saving_trial(tmp_path / "c" / "t" / "a.jsonl", 10)
    comparison = compare_folders(str(tmp_path / "b"), str(tmp_path / "c"))
    assert comparison.lower_bound_trials == 1
    assert "lower bound: 1 usable trial lost calls or lines" in render_table(comparison)


def test_missing_scipy_exits_2_with_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without scipy, one line names the extra to install, stdout is empty, exit status 2."""
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    monkeypatch.setattr("sys.executable", "/home/me/wm/.venv/bin/python")
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    code, out, err = run("compare", str(tmp_path / "b"), str(tmp_path / "c"))
    assert (code, out) == (2, "")
    assert err == ("wavemetrics: error: compare needs scipy:"
                   " /home/me/wm/.venv/bin/python -m pip install 'wavemetrics[compare]'\n")
    with pytest.raises(MissingExtra):
        paired_bootstrap([1.0, 2.0], [2.0, 4.0])


def test_side_must_be_a_folder(tmp_path: Path) -> None:
    """A side that is not an existing folder is a usage error (exit status 2)."""
    (tmp_path / "c").mkdir()
    code, _, _ = run("compare", str(tmp_path / "missing"), str(tmp_path / "c"))
    assert code == 2


def test_unknown_metric_raises() -> None:
    """The pure core rejects a metric that is not in METRICS."""
    with pytest.raises(ValueError, match="unknown metric"):
        compare_tasks({}, {}, metric="nope")


def test_side_task_counts_must_add_up() -> None:
    """A side task's trials are its usable values plus its failed trials."""
    with pytest.raises(ValueError):
        SideTask((1.0,), 3, failed=1)
    assert SideTask((), 2, failed=2).mean is None


def test_metrics_include_the_issue_list() -> None:
    """The metrics the issue requires are offered, the share among them."""
    assert {"modeled_wallclock_saved_ms", "upper_bound_saved_ms", "non_eval_saved_round_trips",
            "non_eval_waves_multi", "non_eval_multi_call_share"} <= set(METRICS)


values = st.lists(st.integers(-10**6, 10**6).map(float), max_size=3)


@st.composite
def side_task(draw: Any) -> SideTask:
    """One task on one side: 0-3 usable values and 0-1 failed trials."""
    vals = tuple(draw(values))
    failed = draw(st.integers(0, 1))
    return SideTask(vals, len(vals) + failed, failed)


@st.composite
def two_sides(draw: Any) -> tuple[dict[str, SideTask], dict[str, SideTask]]:
    """Up to 14 tasks, most on both sides, some on one side only."""
    baseline: dict[str, SideTask] = {}
    candidate: dict[str, SideTask] = {}
    for i in range(draw(st.integers(0, 14))):
        where = draw(st.sampled_from(["both", "both", "both", "baseline", "candidate"]))
        if where != "candidate":
            baseline[f"t{i}"] = draw(side_task())
        if where != "baseline":
            candidate[f"t{i}"] = draw(side_task())
    return baseline, candidate


@needs_scipy
@settings(max_examples=100, deadline=None)
@given(sides=two_sides())
def test_swapping_sides_negates_the_difference(
    sides: tuple[dict[str, SideTask], dict[str, SideTask]],
) -> None:
    """Swapping sides negates every difference exactly and maps the interval to [-high, -low].

    Differences are exact: IEEE subtraction, ``math.fsum`` and division are
    symmetric under negation. The bootstrap distribution is exactly negated too
    (same seed, same resampled indices), but BCa's percentiles pass through
    ``ndtri``/``ndtr`` and the linear quantile interpolates from the opposite
    end, so the endpoints agree to rounding: within 1e-9 x the largest |difference|
    (observed about 2e-14).
    """
    baseline, candidate = sides
    forward = compare_tasks(baseline, candidate, resamples=999)
    backward = compare_tasks(candidate, baseline, resamples=999)
    if forward.difference is None:
        assert backward.difference is None
    else:
        assert backward.difference == -forward.difference
    assert [r.difference for r in backward.tasks] == [
        None if r.difference is None else -r.difference for r in forward.tasks
    ]
    assert (backward.baseline_only, backward.candidate_only) == (
        forward.candidate_only, forward.baseline_only
    )
    assert backward.paired_tasks == forward.paired_tasks
    low, high = forward.interval.low, forward.interval.high
    if low is None or high is None:
        assert (backward.interval.low, backward.interval.high) == (None, None)
        return
    assert backward.interval.low is not None and backward.interval.high is not None
    scale = max([1.0] + [abs(r.difference) for r in forward.tasks if r.difference is not None])
    assert math.isclose(backward.interval.low, -high, rel_tol=0, abs_tol=1e-9 * scale)
    assert math.isclose(backward.interval.high, -low, rel_tol=0, abs_tol=1e-9 * scale)


def test_compare_doc_lists_every_metric_and_shows_the_real_table() -> None:
    """docs/compare.md's metrics table matches METRICS and its example is the real output."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "compare.md").read_text("utf-8")
    section = text.split("## Metrics", 1)[1].split("\n## ", 1)[0]
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in section.splitlines() if line.startswith("| `")]
    assert [(row[0].strip("`"), row[2]) for row in rows] == [
        (metric.name, metric.meaning) for metric in METRICS.values()
    ]
    shown = text.split("### `--format table` (default)", 1)[1].split("```", 2)[1]
    assert shown.lstrip("\n") == EXPECTED_TABLE


@needs_scipy
def test_overflowing_values_give_nulls_not_a_crash() -> None:
    """Infinite trial values (only from absurd traces) make null means and no interval."""
    comparison = compare_tasks(
        {"a": SideTask((math.inf, -math.inf), 2), "b": SideTask((1.0,), 1)},
        {"a": SideTask((1.0,), 1), "b": SideTask((2.0,), 1)},
    )
    document = comparison.to_dict()
    first = document["tasks"][0]
    assert (first["baseline_mean"], document["difference"], document["interval"]) == (
        None, None, None
    )
    assert json.dumps(document, allow_nan=False)


WORKTREES = CORPUS / "claude-code-log" / "-experiments-worktrees"
SESSION = "ef958aa1-0e93-49f0-bb71-150f63befcd1"


def copy_session(task: Path) -> None:
    """Copy the real worktrees session (main lane + 6 sub-agent files) into ``task``."""
    task.mkdir(parents=True)
    shutil.copy(WORKTREES / f"{SESSION}.jsonl", task)
    shutil.copytree(WORKTREES / SESSION, task / SESSION)


@needs_scipy
@needs_corpus
def test_a_session_with_its_sub_agents_is_one_trial(tmp_path: Path) -> None:
    """A Claude Code session and its ``subagents/`` files are one trial: its lanes summed."""
    copy_session(tmp_path / "b" / "t")
    saving_trial(tmp_path / "c" / "t" / "a.jsonl", 10)
    code, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"), "--format", "json")
    (task,) = json.loads(out)["tasks"]
    # Lanes with a saving (tests/test_cli.py's independently computed table):
    # main 1 642 275 + a4ca7529 325 974 + ab1e6e14 53 504 = 2 021 753 ms, one trial
    # (the mean over 7 files would be 288 821.857... ms).
    assert (task["baseline_trials"], task["baseline_mean"]) == (1, 2021753.0)
    assert task["baseline_kinds"] == ["claude-code"]
    assert (task["difference"], code) == (10.0 - 2021753.0, 0)


@needs_scipy
@needs_corpus
def test_a_task_whose_trials_differ_in_kind_is_flagged(tmp_path: Path) -> None:
    """A side whose trials of one task are of two formats is flagged in the table and JSON."""
    copy_session(tmp_path / "b" / "t")
    saving_trial(tmp_path / "b" / "t" / "a.jsonl", 10)
    saving_trial(tmp_path / "c" / "t" / "a.jsonl", 10)
    _code, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"), "--format", "json")
    document = json.loads(out)
    assert document["mixed_kind_tasks"] == ["t"]
    assert document["tasks"][0]["baseline_kinds"] == ["claude-code", "events"]
    assert document["tasks"][0]["baseline_trials"] == 2
    _, table, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"))
    assert "\nt*  " in table
    assert "  t: baseline claude-code, events\n" in table


@needs_scipy
def test_files_sharing_a_default_session_id_stay_two_trials(tmp_path: Path) -> None:
    """Two trial folders each holding ``trace.jsonl`` (session id from the name) are two trials."""
    saving_trial(tmp_path / "b" / "t" / "trial-1" / "trace.jsonl", 10)
    saving_trial(tmp_path / "b" / "t" / "trial-2" / "trace.jsonl", 30)
    saving_trial(tmp_path / "c" / "t" / "trace.jsonl", 50)
    comparison = compare_folders(str(tmp_path / "b"), str(tmp_path / "c"))
    assert comparison.tasks == (TaskRow("t", 20.0, 50.0, 30.0, 2, 1, 0, 0, EV, EV),)


@needs_scipy
def test_lower_bound_trials_are_named_in_table_and_json(tmp_path: Path) -> None:
    """The lower-bound line names each trial (side/task/session), in the table and the
    Markdown; JSON lists the same names."""
    write_events(tmp_path / "b" / "t" / "a.jsonl", [
        ("tool_execution_start", "x", "read", 0, "main"),
    ])
    saving_trial(tmp_path / "c" / "t" / "a.jsonl", 10)
    _, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"))
    assert ("lower bound: 1 usable trial lost calls or lines (figures are a lower bound):\n"
            "  baseline/t/a\n") in out
    _, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"), "--format", "markdown")
    assert ("- lower bound: 1 usable trial lost calls or lines (figures are a lower bound):\n"
            "  - `baseline/t/a`\n") in out  # a sub-item, the name a code span
    _, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"), "--format", "json")
    assert json.loads(out)["lower_bound_trials"] == ["baseline/t/a"]


@needs_scipy
def test_a_side_without_task_folders_says_so_and_exits_1(tmp_path: Path) -> None:
    """A side folder with no task folder is named on stderr and in the table; exit 1."""
    (tmp_path / "b").mkdir()
    saving_trial(tmp_path / "c" / "t" / "a.jsonl", 10)
    code, out, err = run("compare", str(tmp_path / "b"), str(tmp_path / "c"))
    assert code == 1
    assert f"wavemetrics: error: baseline {tmp_path / 'b'}: no task folders found" in err
    assert "baseline: no task folders found (expected baseline/<task_id>/<traces>)\n" in out
    _, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"), "--format", "json")
    assert json.loads(out)["no_task_folders"] == ["baseline"]


@needs_scipy
def test_task_folders_with_no_trial_files_on_either_side_exit_1(tmp_path: Path) -> None:
    """A task whose folders on both sides hold no trace file is an error (exit 1), named."""
    for side in ("b", "c"):
        saving_trial(tmp_path / side / "t" / "a.jsonl", 10)
        (tmp_path / side / "hollow").mkdir()
    code, out, err = run("compare", str(tmp_path / "b"), str(tmp_path / "c"))
    assert code == 1
    assert "wavemetrics: error: task hollow: no trial files in either folder\n" in err
    assert "no trial files: 1 task on neither side: hollow\n" in out
    _, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"), "--format", "json")
    document = json.loads(out)
    assert (document["empty_tasks"], document["unusable_tasks"]) == (["hollow"], ["hollow"])
def test_side_holds_read_only_tasks() -> None:
    """A frozen Side keeps a read-only copy of its tasks; a SideTask checks its counts."""
    tasks = {"t1": SideTask((1.0,), 1)}
    side = Side(tasks, (), ())
    tasks["t2"] = SideTask((), 0)
    assert list(side.tasks) == ["t1"]
    with pytest.raises(TypeError):
        side.tasks["t3"] = SideTask((), 0)  # type: ignore[index]
    with pytest.raises(ValueError, match="trials must equal usable values plus failed trials"):
        SideTask((1.0,), 3, failed=1)


def test_unreadable_trials_are_failed_trials_with_their_reason(tmp_path: Path) -> None:
    """A dangling link, a FIFO and a link loop named ``*.jsonl`` in a task folder are failed
    trials with summarize's reasons, reported on stderr, and the run exits 1."""
    base, cand = tmp_path / "baseline", tmp_path / "candidate"
    saving_trial(base / "t1" / "a.jsonl", 10)
    saving_trial(cand / "t1" / "a.jsonl", 30)
    (cand / "t1" / "dangling.jsonl").symlink_to(cand / "t1" / "nowhere.jsonl")
    os.mkfifo(cand / "t1" / "fifo.jsonl")
    (base / "t1" / "loop1.jsonl").symlink_to(base / "t1" / "loop2.jsonl")
    (base / "t1" / "loop2.jsonl").symlink_to(base / "t1" / "loop1.jsonl")
    comparison = compare_folders(str(base), str(cand))
    # t1: baseline 3 trials (a, loop1, loop2; 2 failed), candidate 3 (a, dangling, fifo; 2 failed)
    assert list(comparison.tasks) == [TaskRow("t1", 10.0, 30.0, 20.0, 3, 3, 2, 2,
                                              baseline_kinds=("events",),
                                              candidate_kinds=("events",))]
    reasons = [
        ("baseline", base / "t1" / "loop1.jsonl", "too many levels of symbolic links"),
        ("baseline", base / "t1" / "loop2.jsonl", "too many levels of symbolic links"),
        ("candidate", cand / "t1" / "dangling.jsonl", "broken symbolic link"),
        ("candidate", cand / "t1" / "fifo.jsonl", "not a regular file (skipped)"),
    ]
    assert sorted((f.side, f.path, f.reason) for f in comparison.failures) == [
        (side, str(path), f"trace could not be read: {path}: {why}") for side, path, why in reasons
    ]
    code, _, err = run("compare", str(base), str(cand))
    assert code == 1
    assert sorted(err.splitlines()) == [
        f"wavemetrics: error: {side}: trace could not be read: {path}: {why}"
        for side, path, why in reasons
    ]


def _section_9_sides(tmp_path: Path) -> tuple[Path, Path]:
    """Two tasks (ms): t1 baseline read [0,100] with grep [50,150] (one wave [0,150]:
    busy 150), candidate read [0,100] with grep [0,100] (busy 100); t2 baseline read
    [0,100] (busy 100), candidate read [0,100] then bash [200,330] (busy 100 + 130 =
    230; a 100 ms gap between them)."""
    base, cand = tmp_path / "b", tmp_path / "c"
    write_events(base / "t1" / "a.jsonl", [
        ("tool_execution_start", "a", "read", 0, "main"),
        ("tool_execution_start", "b", "grep", 50, "main"),
        ("tool_execution_end", "a", "read", 100, "main"),
        ("tool_execution_end", "b", "grep", 150, "main")])
    write_events(cand / "t1" / "a.jsonl", [
        ("tool_execution_start", "a", "read", 0, "main"),
        ("tool_execution_start", "b", "grep", 0, "main"),
        ("tool_execution_end", "a", "read", 100, "main"),
        ("tool_execution_end", "b", "grep", 100, "main")])
    write_events(base / "t2" / "a.jsonl", [
        ("tool_execution_start", "a", "read", 0, "main"),
        ("tool_execution_end", "a", "read", 100, "main")])
    write_events(cand / "t2" / "a.jsonl", [
        ("tool_execution_start", "a", "read", 0, "main"),
        ("tool_execution_end", "a", "read", 100, "main"),
        ("tool_execution_start", "c", "bash", 200, "main"),
        ("tool_execution_end", "c", "bash", 330, "main")])
    return base, cand


@pytest.mark.parametrize(("metric", "differences", "mean"), [
    # ms: t1 100 - 150 = -50, t2 230 - 100 = 130; mean (-50 + 130) / 2 = 40
    ("tool_busy_ms", (-50.0, 130.0), 40.0),
    # a count: paired calls timed by execution (events), t1 2 - 2 = 0, t2 2 - 1 = 1
    ("calls_timed_by_execution", (0.0, 1.0), 0.5),
])
@needs_scipy
def test_a_section_9_figure_is_compared_with_its_bootstrap(
    tmp_path: Path, metric: str, differences: tuple[float, float], mean: float
) -> None:
    """Each section-9 figure is a --metric; with two paired tasks the 95% BCa interval
    spans the two differences exactly (test_two_task_interval_spans_the_two_differences
    gives the argument)."""
    assert metric in METRICS
    base, cand = _section_9_sides(tmp_path)
    comparison = compare_folders(str(base), str(cand), metric=metric)
    assert tuple(row.difference for row in comparison.tasks) == differences
    assert comparison.difference == mean
    assert (comparison.interval.low, comparison.interval.high) == differences
    # events calls are timed by execution: baseline 2 + 1, candidate 2 + 2 paired calls
    assert comparison.timing == ((3, 0), (4, 0))
    assert comparison.to_dict()["timing"] == {"baseline": {"execution": 3, "message": 0},
                                              "candidate": {"execution": 4, "message": 0}}
    assert "timing:" not in render_table(comparison)  # no message times: no line


def test_the_table_names_message_times_when_the_savings_rest_on_them() -> None:
    """Claude Code trials (message times) on one side: the lines give both sides' counts
    and what message times hold."""
    assert timing_items(((0, 1200), (950, 0))) == [
        (0, "timing: calls by execution / message times:"),
        (1, "baseline 0 / 1200, candidate 950 / 0"),
        (1, "(message times include permission prompts)"),
    ]
    assert timing_items(((5, 0), (0, 0))) == []


@needs_scipy
def test_compare_takes_the_idle_gap(tmp_path: Path) -> None:
    """--idle-gap 0.09 (90 ms): only candidate t2's 100 ms gap (100 -> 200) is idle:
    differences 0 and 100 ms, mean 50 ms; the default 5 minutes finds none."""
    base, cand = _section_9_sides(tmp_path)
    code, out, _ = run("compare", str(base), str(cand), "--metric", "idle_ms",
                       "--idle-gap", "0.09", "--format", "json")
    document = json.loads(out)
    assert code == 0
    assert [task["difference"] for task in document["tasks"]] == [0.0, 100.0]
    assert (document["difference"], document["interval"]) == (50.0, [0.0, 100.0])
    _, out, _ = run("compare", str(base), str(cand), "--metric", "idle_ms", "--format", "json")
    assert json.loads(out)["difference"] == 0.0


def test_every_section_9_figure_but_the_histogram_is_a_metric() -> None:
    assert [name for name in METRICS if name in ACTIVITY_FIGURES] == [
        name for name in ACTIVITY_FIGURES if name != "turn_width_histogram"]


# -- --format markdown ----------------------------------------------------------------

# EXPECTED_TABLE as GFM, line for line: the lines above the task rows as a list (the
# bootstrap's line a sub-item, as the table indents it), the task rows as a table whose
# ids are code spans and whose figures are the table's (means in s with 3 decimals: t1
# 20 ms and 50 ms, +30 ms; t2 40, 50, +10; t3 5; t4 7; t5 60), the one-sided tasks as a
# list, the legend's four lines as one paragraph.
EXPECTED_MARKDOWN = """\
- metric: modeled_wallclock_saved_ms (modeled wall-clock saving), in s
- candidate - baseline, mean over 2 paired tasks: +0.020 s
- 95% interval: [+0.010, +0.030] s
  - paired bootstrap over tasks: method BCa, 9999 resamples, seed 0
- warning: fewer than 10 paired tasks: the interval is unreliable
- coverage: 2 of 5 tasks paired (1 baseline only, 1 candidate only, 1 unusable)
- failed trials: baseline 1, candidate 1
- not read: 1 trace file outside any task folder

| task | base n | fail | base mean | cand n | fail | cand mean | difference |
| :-- | --: | --: | --: | --: | --: | --: | --: |
| `t1` | 2 | 0 | 0.020 | 1 | 0 | 0.050 | +0.030 |
| `t2` | 2 | 1 | 0.040 | 2 | 0 | 0.050 | +0.010 |
| `t3` | 1 | 0 | 0.005 | 0 | 0 | - | - |
| `t4` | 0 | 0 | - | 1 | 0 | 0.007 | - |
| `t5` | 1 | 0 | 0.060 | 1 | 1 | - | - |

- baseline only: `t3`
- candidate only: `t4`

n: trials found (a trial is one session, its lanes summed); fail: trials with no value \
(unreadable, unrecognised, empty, no usable record); means are over the other trials; \
unusable: a task in both folders with no usable trial on one side.
"""


@needs_scipy
def test_markdown_is_the_table_as_gfm(tmp_path: Path) -> None:
    """``--format markdown`` says what the table says, as GFM; the same exit status."""
    base, cand = make_sides(tmp_path)
    code, out, _ = run("compare", str(base), str(cand), "--format", "markdown")
    assert out == EXPECTED_MARKDOWN
    assert code == 1


@needs_scipy
def test_markdown_numbers_equal_the_json_document(tmp_path: Path) -> None:
    """Each task row's figures are the JSON document's (ms shown in s, 3 decimals), and
    the difference and interval lines are its ``difference`` and ``interval``."""
    base, cand = make_sides(tmp_path)
    _, out, _ = run("compare", str(base), str(cand), "--format", "markdown")
    _, text, _ = run("compare", str(base), str(cand), "--format", "json")
    document = json.loads(text)

    def s(ms: float | None, sign: str = "") -> str:
        return "-" if ms is None else f"{ms / 1000:{sign}.3f}"

    [table] = gfm.table_texts(out)
    assert table[1:] == [[
        task["task_id"], str(task["baseline_trials"]), str(task["baseline_failed"]),
        s(task["baseline_mean"]), str(task["candidate_trials"]), str(task["candidate_failed"]),
        s(task["candidate_mean"]), s(task["difference"], "+"),
    ] for task in document["tasks"]]
    low, high = document["interval"]
    assert f"mean over 2 paired tasks: {s(document['difference'], '+')} s\n" in out
    assert f"- 95% interval: [{s(low, '+')}, {s(high, '+')}] s\n" in out


@needs_scipy
def test_markdown_keeps_hostile_task_names_literal(tmp_path: Path) -> None:
    """Task folders named with a pipe, backticks, a script tag, emphasis, a link and a
    mention (a folder name holds no ``/``) are one code span each, in the rows and the
    one-sided list; ``<task_id>`` of the no-task-folders line is code too, never a tag."""
    hostile = "t|`x`<td><script>alert(1)<\\script>*em*[a](mailto:e)@octocat &amp; $x$"
    saving_trial(tmp_path / "b" / hostile / "a.jsonl", 10)
    saving_trial(tmp_path / "c" / hostile / "a.jsonl", 30)
    saving_trial(tmp_path / "b" / (hostile + "|only") / "a.jsonl", 10)
    _, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"), "--format", "markdown")
    types = {child.type for token in gfm.tokens(out) if token.type == "inline"
             for child in token.children or []}
    assert types <= {"text", "code_inline", "softbreak"}
    [table] = gfm.table_texts(out)
    # 30 - 10 = +20 ms; the one-sided task has no candidate mean
    assert table[1:] == [[hostile, "1", "0", "0.010", "1", "0", "0.030", "+0.020"],
                         [hostile + "|only", "1", "0", "0.010", "0", "0", "-", "-"]]
    only = next(t for t in gfm.tokens(out) if t.type == "inline"
                and t.content.startswith("baseline only:"))
    assert [c.content for c in only.children or [] if c.type == "code_inline"] == [
        hostile + "|only"]
    (tmp_path / "empty").mkdir()
    _, out, _ = run("compare", str(tmp_path / "empty"), str(tmp_path / "c"), "--format",
                    "markdown")
    assert ("- baseline: no task folders found (expected `baseline/<task_id>/<traces>`)\n"
            in out)


@needs_scipy
@needs_corpus
def test_markdown_marks_a_mixed_task_and_escapes_the_mark(tmp_path: Path) -> None:
    """A task whose trials differ in kind is ``t*`` in its row (the mark escaped, not
    emphasis), listed under the mixed-kinds line as code, and the legend explains it."""
    copy_session(tmp_path / "b" / "t")
    saving_trial(tmp_path / "b" / "t" / "a.jsonl", 10)
    saving_trial(tmp_path / "c" / "t" / "a.jsonl", 10)
    _, out, _ = run("compare", str(tmp_path / "b"), str(tmp_path / "c"), "--format", "markdown")
    assert "| `t`\\* | 2 | 0 |" in out
    assert "  - `t: baseline claude-code, events`\n" in out
    assert out.endswith(" \\*: a task whose trials differ in kind on one side (listed above).\n")
    [table] = gfm.table_texts(out)
    assert table[1][0] == "t*"
