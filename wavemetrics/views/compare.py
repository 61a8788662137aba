"""A/B comparison of two harness versions over the same tasks (``docs/compare.md``).

Each side is a folder ``<task_id>/...``; every trace file under a task folder
is one trial, measured by :func:`wavemetrics.efficiency_axis`. Per task: the
metric's mean over the task's usable trials on each side and the
candidate-minus-baseline difference. Overall: the mean of the per-task
differences (tasks weigh equally), with a seeded paired bootstrap interval over
tasks from ``scipy.stats.bootstrap`` (the optional ``compare`` extra).
"""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from wavemetrics.core.activity import BATCHABLE_TOOL_NAMES, DEFAULT_IDLE_GAP_MS
from wavemetrics.core.classify import EVAL_TOOL_NAMES
from wavemetrics.core.exceptions import MissingExtraError, install_hint
from wavemetrics.core.observations import DEFAULT_MAX_TRACKED_CALLS
from wavemetrics.core.schema import METRIC_FIGURES, Property, json_safe
from wavemetrics.core.summary import merge_summaries
from wavemetrics.readers.dispatch import (
    AUTO,
    DUPLICATE,
    EMPTY,
    NO_USABLE_RECORD,
    InputReport,
    detect_input,
)
from wavemetrics.readers.limits import Limits
from wavemetrics.readers.registry import format_named
from wavemetrics.readers.sources import expand_paths, file_stem
from wavemetrics.run.pipeline import Analysis, LaneResult, analyse, read_inputs
from wavemetrics.views.activity import MESSAGE_TIMES_NOTE
from wavemetrics.views.axis import EfficiencyAxis, scored_axis
from wavemetrics.views.escaping import markdown_code, printable, shortened

__all__ = [
    "BOOTSTRAP_METHOD",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_METRIC",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "INSTALL_HINT",
    "METRICS",
    "UNRELIABLE_BELOW",
    "Comparison",
    "Interval",
    "Metric",
    "MissingExtra",
    "Side",
    "SideTask",
    "TaskRow",
    "Trial",
    "TrialFailure",
    "compare_folders",
    "compare_tasks",
    "paired_bootstrap",
    "read_side",
    "read_task",
    "render_json",
    "render_markdown",
    "render_table",
    "require_scipy",
]

DEFAULT_RESAMPLES = 9999
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SEED = 0
#: Below this many paired tasks the interval is flagged unreliable and every task is shown.
UNRELIABLE_BELOW = 10
#: ``scipy.stats.bootstrap``'s default: bias-corrected and accelerated.
BOOTSTRAP_METHOD = "BCa"
INSTALL_HINT = install_hint("compare")

#: The earlier name of :class:`~wavemetrics.core.exceptions.MissingExtraError` (the same class).
MissingExtra = MissingExtraError


@attrs.frozen
class Metric:
    """A per-trial figure that can be compared: its name (a figure of the axis) and display."""

    name: str
    meaning: str
    unit: str
    scale: float
    decimals: int

    def show(self, value: float | None, *, signed: bool = False) -> str:
        """``value`` in display units (ms shown as s), or ``-`` for none."""
        if value is None:
            return "-"
        if not math.isfinite(value):
            return "n/a"
        sign = "+" if signed else ""
        return f"{value / self.scale:{sign}.{self.decimals}f}"


def _metric(prop: Property, label: str) -> Metric:
    # A figure in ms is shown in s with 3 decimals, any other with 2.
    if prop.unit == "ms":
        return Metric(prop.name, label, "s", 1000.0, 3)
    return Metric(prop.name, label, "", 1.0, 2)


#: The efficiency axis' own figure that can be compared (not a summary figure), by its order.
_AXIS_METRICS = (
    (4, Metric("non_eval_multi_call_share", "share of non_eval calls in waves of 2+ calls",
               "", 1.0, 3)),
)

#: The metrics ``--metric`` accepts, by name; values are ``EfficiencyAxis.figures`` entries:
#: the figure table's ``compare`` figures (``schema.py``) and the axis' share, in order.
METRICS: dict[str, Metric] = {
    metric.name: metric
    for _, metric in sorted(
        (*((p.compare.order, _metric(p, p.compare.label)) for p in METRIC_FIGURES if p.compare),
         *_AXIS_METRICS),
        key=lambda ranked: ranked[0],
    )
}
DEFAULT_METRIC = "modeled_wallclock_saved_ms"


@attrs.frozen
class SideTask:
    """One task on one side: the metric value of each usable trial, and the trial counts.

    ``trials`` counts every trial found (usable or not): one per session read,
    plus one per trace file that gave no session; ``failed`` those that gave
    no value (a file unreadable, unrecognised, empty, or with no usable
    record); ``lower_bound`` the usable ones whose figures are a lower bound.
    """

    values: tuple[float, ...]
    trials: int
    failed: int = attrs.field(default=0)
    lower_bound: int = 0
    #: The distinct kinds of the usable trials, sorted (``kind`` of :class:`Trial`).
    kinds: tuple[str, ...] = ()
    #: Names (``task/session``) of the usable trials whose figures are a lower bound.
    lower_bound_names: tuple[str, ...] = ()

    @failed.validator
    def _check_counts(self, _: attrs.Attribute[int], failed: int) -> None:
        if len(self.values) + failed != self.trials:
            raise ValueError("trials must equal usable values plus failed trials")

    @property
    def mixed(self) -> bool:
        """The usable trials differ in kind (say one Claude Code, one Codex trial)."""
        return len(self.kinds) > 1

    @property
    def mean(self) -> float | None:
        """Mean of ``values`` (correctly rounded sum / count); ``None`` with no value."""
        if not self.values:
            return None
        return _mean(self.values)


def _mean(values: Sequence[float]) -> float:
    """``math.fsum(values) / len(values)``; NaN where fsum refuses (inf + -inf)."""
    try:
        return math.fsum(values) / len(values)
    except ValueError:  # only from absurd, overflowing figures
        return math.nan


@attrs.frozen
class TaskRow:
    """One task of the comparison, as in ``--format json``'s ``tasks``."""

    task_id: str
    baseline_mean: float | None
    candidate_mean: float | None
    difference: float | None
    baseline_trials: int
    candidate_trials: int
    baseline_failed: int
    candidate_failed: int
    baseline_kinds: tuple[str, ...] = ()
    candidate_kinds: tuple[str, ...] = ()

    @property
    def mixed(self) -> bool:
        """A side's usable trials of this task differ in kind."""
        return len(self.baseline_kinds) > 1 or len(self.candidate_kinds) > 1


@attrs.frozen
class Interval:
    """A bootstrap interval (``low``/``high`` ``None`` when none could be computed) and why."""

    low: float | None
    high: float | None
    note: str | None = None


@attrs.frozen
class TrialFailure:
    """A trial that gave no value: which side, its path and the axis' reason."""

    side: str
    path: str
    reason: str


@attrs.frozen
class Comparison:
    """The result of a comparison; :meth:`to_dict` is the ``--format json`` document."""

    metric: str
    difference: float | None
    interval: Interval
    confidence: float
    resamples: int
    seed: int
    tasks: tuple[TaskRow, ...]
    baseline_only: tuple[str, ...]
    candidate_only: tuple[str, ...]
    #: ``side/task/session`` of every usable trial whose figures are a lower bound.
    lower_bound: tuple[str, ...] = ()
    failures: tuple[TrialFailure, ...] = ()
    strays: tuple[str, ...] = ()
    #: The sides (``baseline``, ``candidate``) whose folder holds no task folder.
    no_task_folders: tuple[str, ...] = ()
    #: Per side (baseline, candidate), the usable trials' paired calls timed by execution
    #: and by message times (:attr:`Side.timing`).
    timing: tuple[tuple[int, int], tuple[int, int]] = ((0, 0), (0, 0))

    @property
    def lower_bound_trials(self) -> int:
        """How many usable trials have figures that are a lower bound."""
        return len(self.lower_bound)

    @property
    def empty_tasks(self) -> tuple[str, ...]:
        """Tasks whose folders hold no trial file on either side (an error: exit 1)."""
        return tuple(row.task_id for row in self.tasks
                     if row.baseline_trials == 0 and row.candidate_trials == 0)

    @property
    def unusable_tasks(self) -> tuple[str, ...]:
        """Tasks in both folders with no usable trial on one side (empty tasks included)."""
        one_sided = set(self.baseline_only) | set(self.candidate_only)
        return tuple(row.task_id for row in self.tasks
                     if row.difference is None and row.task_id not in one_sided)

    @property
    def mixed_kind_tasks(self) -> tuple[str, ...]:
        """Tasks where one side's usable trials differ in kind."""
        return tuple(row.task_id for row in self.tasks if row.mixed)

    @property
    def paired_tasks(self) -> int:
        """Tasks with a usable trial on both sides (those the difference is over)."""
        return sum(1 for row in self.tasks if row.difference is not None)

    @property
    def unreliable(self) -> bool:
        """Fewer than :data:`UNRELIABLE_BELOW` paired tasks."""
        return self.paired_tasks < UNRELIABLE_BELOW

    def to_dict(self) -> dict[str, Any]:
        """The ``--format json`` document: every figure and count the table shows."""
        interval = None
        if self.interval.low is not None and self.interval.high is not None:
            interval = [json_safe(self.interval.low), json_safe(self.interval.high)]
        return {
            "metric": self.metric,
            "difference": json_safe(self.difference),
            "interval": interval,
            "confidence": self.confidence,
            "resamples": self.resamples,
            "seed": self.seed,
            "paired_tasks": self.paired_tasks,
            "baseline_only": list(self.baseline_only),
            "candidate_only": list(self.candidate_only),
            "unusable_tasks": list(self.unusable_tasks),
            "empty_tasks": list(self.empty_tasks),
            "mixed_kind_tasks": list(self.mixed_kind_tasks),
            "failed_trials": {
                "baseline": sum(row.baseline_failed for row in self.tasks),
                "candidate": sum(row.candidate_failed for row in self.tasks),
            },
            "lower_bound_trials": list(self.lower_bound),
            "not_read": list(self.strays),
            "no_task_folders": list(self.no_task_folders),
            "timing": {side: {"execution": execution, "message": message}
                       for side, (execution, message) in zip(
                           ("baseline", "candidate"), self.timing, strict=True)},
            "tasks": [
                {
                    "task_id": row.task_id,
                    "baseline_mean": json_safe(row.baseline_mean),
                    "candidate_mean": json_safe(row.candidate_mean),
                    "difference": json_safe(row.difference),
                    "baseline_trials": row.baseline_trials,
                    "candidate_trials": row.candidate_trials,
                    "baseline_failed": row.baseline_failed,
                    "candidate_failed": row.candidate_failed,
                    "baseline_kinds": list(row.baseline_kinds),
                    "candidate_kinds": list(row.candidate_kinds),
                }
                for row in self.tasks
            ],
        }


BootstrapFn = Callable[..., Any]
# Resamples per vectorised call: bounds memory to _BATCH x tasks values per array.
_BATCH = 1000


def _load_scipy() -> tuple[Any, BootstrapFn]:
    """``(numpy, scipy.stats.bootstrap)``; raises :class:`MissingExtra` without scipy."""
    # scipy has no type information, and without the extra it is missing.
    try:
        import numpy
        from scipy.stats import bootstrap  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as exc:
        raise MissingExtraError("compare", "scipy", "compare") from exc
    return numpy, bootstrap


def require_scipy() -> None:
    """Raise :class:`MissingExtra` (with the install command) when scipy is missing."""
    _load_scipy()


def paired_bootstrap(
    baseline: Sequence[float],
    candidate: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Interval of ``mean(candidate - baseline)`` by a paired bootstrap over tasks.

    ``baseline[i]`` and ``candidate[i]`` are task i's means; tasks are resampled
    with replacement, each keeping its pair (``scipy.stats.bootstrap`` with
    ``paired=True``, vectorised, method BCa, ``rng=numpy.random.default_rng(seed)``):
    the same inputs and seed give the same interval. Degenerate data never
    raises or warns; it gives a note instead:

    - no task, or one task: no interval (the bootstrap needs two tasks);
    - a non-finite difference: no interval;
    - every difference equal to d: every resample's mean is d, so the
      interval is ``[d, d]`` (BCa itself would be undefined there);
    - BCa undefined for another reason (NaN): no interval.

    Raises :class:`MissingExtra` without scipy, ``ValueError`` for sequences of
    different lengths.
    """
    if len(baseline) != len(candidate):
        raise ValueError("baseline and candidate must have one mean per task each")
    numpy, bootstrap = _load_scipy()
    differences = [c - b for b, c in zip(baseline, candidate, strict=True)]
    if len(differences) < 2:
        count = len(differences)
        return Interval(None, None, f"{count} paired task{'' if count == 1 else 's'}:"
                                    " the bootstrap needs at least 2")
    if not all(math.isfinite(d) for d in differences):
        return Interval(None, None, "a per-task difference is not finite")
    if all(d == differences[0] for d in differences):
        d = differences[0]
        return Interval(d, d, "every per-task difference is equal, so every resample"
                              " gives the same mean")

    def statistic(b: Any, c: Any, axis: int = -1) -> Any:
        return numpy.mean(c - b, axis=axis)

    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        # scipy warns (DegenerateDataWarning, RuntimeWarning) where BCa is
        # undefined; the NaN it then returns is reported below instead.
        warnings.simplefilter("ignore")
        result = bootstrap(
            (numpy.asarray(baseline, dtype=float), numpy.asarray(candidate, dtype=float)),
            statistic,
            n_resamples=resamples,
            batch=_BATCH,
            vectorized=True,
            paired=True,
            confidence_level=confidence,
            method=BOOTSTRAP_METHOD,
            rng=numpy.random.default_rng(seed),
        )
    low = float(result.confidence_interval.low)
    high = float(result.confidence_interval.high)
    if not (math.isfinite(low) and math.isfinite(high)):
        return Interval(None, None, "the bootstrap distribution is degenerate"
                                    " (BCa undefined)")
    return Interval(low, high)


def compare_tasks(
    baseline: Mapping[str, SideTask],
    candidate: Mapping[str, SideTask],
    *,
    metric: str = DEFAULT_METRIC,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
) -> Comparison:
    """Compare per-task trial values of two sides (the pure core of ``wavemetrics compare``).

    Tasks are sorted by id. A task is paired when both sides have a usable
    trial; ``difference`` is the mean of the paired tasks' differences
    (``math.fsum`` / count), ``None`` with no paired task. Tasks on one side
    only are listed in ``baseline_only``/``candidate_only`` (and in ``tasks``,
    with the other side's counts 0). Raises :class:`MissingExtra` without scipy.
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}")
    empty = SideTask((), 0)
    rows = []
    for task_id in sorted(set(baseline) | set(candidate)):
        base, cand = baseline.get(task_id, empty), candidate.get(task_id, empty)
        b_mean, c_mean = base.mean, cand.mean
        difference = None if b_mean is None or c_mean is None else c_mean - b_mean
        rows.append(TaskRow(task_id, b_mean, c_mean, difference, base.trials, cand.trials,
                            base.failed, cand.failed, base.kinds, cand.kinds))
    paired = [row for row in rows if row.difference is not None]
    differences = [row.difference for row in paired if row.difference is not None]
    overall = _mean(differences) if differences else None
    interval = paired_bootstrap(
        [row.baseline_mean for row in paired if row.baseline_mean is not None],
        [row.candidate_mean for row in paired if row.candidate_mean is not None],
        resamples=resamples, confidence=confidence, seed=seed,
    )
    return Comparison(
        metric=metric,
        difference=overall,
        interval=interval,
        confidence=confidence,
        resamples=resamples,
        seed=seed,
        tasks=tuple(rows),
        baseline_only=tuple(sorted(set(baseline) - set(candidate))),
        candidate_only=tuple(sorted(set(candidate) - set(baseline))),
        lower_bound=(*_lower_bound_names("baseline", baseline),
                     *_lower_bound_names("candidate", candidate)),
    )


def _lower_bound_names(side: str, tasks: Mapping[str, SideTask]) -> list[str]:
    names: list[str] = []
    for task_id in sorted(tasks):
        task = tasks[task_id]
        given = task.lower_bound_names or tuple(
            f"{task_id}/trial {n + 1}" for n in range(task.lower_bound))
        names.extend(f"{side}/{name}" for name in given)
    return names
def _read_only_tasks(tasks: Mapping[str, SideTask]) -> Mapping[str, SideTask]:
    # a frozen side holds a read-only copy of its tasks
    return MappingProxyType(dict(tasks))


@attrs.frozen
class Side:
    """One side read from its folder: tasks, failed trials, files outside any task folder."""

    tasks: Mapping[str, SideTask] = attrs.field(converter=_read_only_tasks)
    failures: tuple[TrialFailure, ...]
    strays: tuple[str, ...]
    #: Paired calls of the usable trials by where their times come from:
    #: ``(calls_timed_by_execution, calls_timed_by_message)`` summed (docs/metrics.md
    #: section 9; the savings rest on them).
    timing: tuple[int, int] = (0, 0)


@attrs.frozen
class Trial:
    """One trial of a task: one session (its lanes summed), scored like ``efficiency_axis``.

    ``name`` is ``<task>/<session_id>``; ``kind`` is the format of its inputs,
    with `` (no main lane)`` when only sub-agent lanes of the session were found.
    """

    name: str
    kind: str
    axis: EfficiencyAxis


def _failure_reason(report: InputReport) -> str | None:
    """Why an input gives no trial (the axis' wording), or ``None`` when it is usable."""
    problems = sum(report.problems.values())
    unusable = problems and report.lines_used == 0
    foreign = f"{NO_USABLE_RECORD}: "  # every line foreign to a forced --input-format
    if report.error is not None and report.error.startswith(foreign) and not unusable:
        return f"{foreign}{report.path}: {report.error[len(foreign):]}"
    if report.error is not None and not unusable:
        return f"trace could not be read: {report.path}: {report.error}"
    if report.format == EMPTY:
        return f"no trace: {report.path} is empty"
    if unusable:
        lost = ", ".join(f"{reason} {n}" for reason, n in report.problems.items())
        return (f"no usable record: {report.path}: {problems} line"
                f"{'' if problems == 1 else 's'} not usable ({lost})")
    return None


def read_task(
    folder: str,
    task_id: str,
    *,
    input_format: str = AUTO,
    eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES,
    max_tracked_calls: int | None = 2000,
    limits: Limits | None = None,
    batchable_tool_names: Sequence[str] = BATCHABLE_TOOL_NAMES,
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
) -> tuple[list[Trial], list[tuple[str, str]], int]:
    """Read one task folder into trials: ``(trials, failures, trial files found)``.

    Every trace file under ``folder`` is read together (as ``summarize`` reads
    a folder: a Claude Code session with its ``<session>/subagents/`` files is
    one read), and each session is one trial: its lanes are summed. A
    session is keyed by its read unit (the file, or for Claude Code the
    project folder) and its session id, so two files that only share a
    default session id (the file name) stay two trials. A file that could not
    be read, was empty or had no usable record is a failed trial
    ``(path, reason)``, and so is an entry ``summarize`` reports as an error
    (a broken link, a FIFO or link loop named like a trace, an unreadable
    sub-folder); a readable file with no lane (no tool call) is a trial of
    its own with zero figures. A file ``summarize`` skips in a folder (of no
    known format, a ``*.meta.json`` sidecar) is no trial: the folder is read by
    :func:`~wavemetrics.run.pipeline.read_inputs` as ``summarize`` reads it.
    """
    names = tuple(eval_tool_names)
    # the folder is read as summarize reads a folder it is named: the same walk, and
    # the same skips (a file of no known format, a *.meta.json sidecar: not a trial)
    from wavemetrics.run.native import default_engine  # loads the extension when built

    # read in batch (each lane's calls) by the native engine when built: the same lanes
    outcome = read_inputs([folder], input_format, limits=limits, engine=default_engine())
    analysis = analyse(outcome, eval_tool_names=names, max_tracked_calls=max_tracked_calls,
                       batchable_tool_names=batchable_tool_names, idle_gap_ms=idle_gap_ms)
    # the folder's own report (empty, no file a trace, not listable) means no trial;
    # an entry in it summarize reports as an error (a dangling link, a FIFO or a link
    # loop named like a trace, an unreadable sub-folder) is a failed trial, never lost
    entries = [report for report in outcome.inputs if report.path != folder]
    failures: list[tuple[str, str]] = []
    usable: dict[str, InputReport] = {}
    for report in entries:
        if report.format == DUPLICATE:  # a copy of another file here: read once, one trial
            continue
        reason = _failure_reason(report)
        if reason is None:
            usable[report.path] = report
        else:
            failures.append((report.path, reason))
    sessions: dict[tuple[str, str], list[LaneResult]] = {}
    for result in analysis.lanes:
        found = usable.get(result.lane.path)
        if found is None:
            continue
        unit = format_named(found.format).unit_key(found.path)  # a Claude Code folder
        sessions.setdefault((unit, result.lane.session_id), []).append(result)
    with_lanes = {r.lane.path for group in sessions.values() for r in group}
    trials: list[Trial] = []
    for (_, session_id), group in sessions.items():
        inputs = sorted({r.lane.path for r in group})
        kind = " + ".join(sorted({usable[p].format for p in inputs}))
        if not any(r.lane.lane_id == "main" for r in group):
            kind += " (no main lane)"
        part = Analysis(outcome, tuple(group), merge_summaries(r.summary for r in group))
        problems = sum(sum(usable[p].problems.values()) for p in inputs)
        axis = scored_axis(part, names, problem_lines=problems, traces_read=len(inputs))
        trials.append(Trial(f"{task_id}/{session_id}", kind, axis))
    for path, report in usable.items():
        if path not in with_lanes:  # read, but no lane: a trial with zero figures
            part = Analysis(outcome, (), merge_summaries(()))
            axis = scored_axis(part, names, problem_lines=sum(report.problems.values()))
            trials.append(Trial(f"{task_id}/{file_stem(path)}", report.format, axis))
    return trials, failures, len(entries)


def read_side(
    root: str,
    metric: str,
    *,
    side: str = "baseline",
    input_format: str = AUTO,
    eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES,
    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
    limits: Limits | None = None,
    batchable_tool_names: Sequence[str] = BATCHABLE_TOOL_NAMES,
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
) -> Side:
    """Read ``root/<task_id>/...``: each session under a task folder is one trial.

    Task folders are the sub-folders of ``root`` (sorted); a task folder with
    no trace file is a task with 0 trials. Trace files directly in ``root``
    belong to no task: they are returned in ``strays``, not read (a file there
    that summarize would skip as no trace, such as ``meta.json``, is not one).
    Each task folder is read by :func:`read_task`; a trial gives ``figures[metric]``,
    a failed one counts as failed. An entry of a task
    folder that ``summarize`` reports as an error (a broken link, a FIFO or
    link loop with a trace suffix, an unreadable sub-folder) is a failed trial
    too, with that reason, so no trial is lost without a word.
    """
    tasks: dict[str, SideTask] = {}
    failures: list[TrialFailure] = []
    strays: list[str] = []
    timing = [0, 0]
    walked = set(expand_paths([root])[0])
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if not os.path.isdir(path):
            # a trace file, by the same rule as folder reading: a trace name, and
            # not a file summarize would skip as no trace (a meta.json)
            if path in walked and not detect_input(path, input_format).unrecognised:
                strays.append(path)
            continue
        trials, failed, _ = read_task(path, name, input_format=input_format,
                                      eval_tool_names=eval_tool_names,
                                      max_tracked_calls=max_tracked_calls, limits=limits,
                                      batchable_tool_names=batchable_tool_names,
                                      idle_gap_ms=idle_gap_ms)
        failures.extend(TrialFailure(side, trial_path, reason) for trial_path, reason in failed)
        values = tuple(float(t.axis.figures[metric]) for t in trials
                       if t.axis.figures is not None)
        for trial in trials:
            if trial.axis.figures is not None:
                timing[0] += trial.axis.figures["calls_timed_by_execution"]
                timing[1] += trial.axis.figures["calls_timed_by_message"]
        lower = tuple(t.name for t in trials if not t.axis.evidence_complete)
        tasks[name] = SideTask(
            values, len(trials) + len(failed), len(failed), len(lower),
            kinds=tuple(sorted({t.kind for t in trials})), lower_bound_names=lower,
        )
    return Side(tasks, tuple(failures), tuple(strays), (timing[0], timing[1]))


def compare_folders(
    baseline: str,
    candidate: str,
    *,
    metric: str = DEFAULT_METRIC,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
    input_format: str = AUTO,
    eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES,
    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
    limits: Limits | None = None,
    batchable_tool_names: Sequence[str] = BATCHABLE_TOOL_NAMES,
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
) -> Comparison:
    """Read both folders (:func:`read_side`) and compare them (:func:`compare_tasks`).

    ``batchable_tool_names`` and ``idle_gap_ms`` (ms): the section-9 parameters
    (docs/metrics.md), as ``summarize``'s ``--batchable-tools`` and ``--idle-gap``.

    Checks for scipy first, so that nothing is read when it is missing
    (:class:`MissingExtra`).
    """
    require_scipy()
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}")
    options: dict[str, Any] = {"input_format": input_format, "eval_tool_names": eval_tool_names,
                               "max_tracked_calls": max_tracked_calls, "limits": limits,
                               "batchable_tool_names": tuple(batchable_tool_names),
                               "idle_gap_ms": idle_gap_ms}
    base = read_side(baseline, metric, side="baseline", **options)
    cand = read_side(candidate, metric, side="candidate", **options)
    result = compare_tasks(base.tasks, cand.tasks, metric=metric, resamples=resamples,
                           confidence=confidence, seed=seed)
    empty_sides = tuple(name for name, side in (("baseline", base), ("candidate", cand))
                        if not side.tasks)
    return attrs.evolve(result, failures=base.failures + cand.failures,
                        strays=_distinct(base.strays + cand.strays),
                        no_task_folders=empty_sides, timing=(base.timing, cand.timing))


def timing_items(timing: tuple[tuple[int, int], tuple[int, int]]) -> list[tuple[int, str]]:
    """The head's items (depth, text) naming the call times the savings rest on, when
    some were message times (whose durations include permission prompts: docs/metrics.md
    section 9): ``timing: calls by execution / message times:``, then (indented) each
    side's counts and what message times hold; none when every call was timed by its
    execution (the JSON ``timing`` still counts them).

    >>> timing_items(((0, 12), (9, 0)))[1]
    (1, 'baseline 0 / 12, candidate 9 / 0')
    >>> timing_items(((3, 0), (4, 0)))
    []
    """
    (base_exec, base_msg), (cand_exec, cand_msg) = timing
    if not (base_msg or cand_msg):
        return []
    return [(0, "timing: calls by execution / message times:"),
            (1, f"baseline {base_exec} / {base_msg}, candidate {cand_exec} / {cand_msg}"),
            (1, f"({MESSAGE_TIMES_NOTE})")]


def _distinct(paths: tuple[str, ...]) -> tuple[str, ...]:
    """``paths`` without a file seen before (``compare A A`` finds each stray twice)."""
    first: dict[str, str] = {}
    for path in paths:
        first.setdefault(os.path.realpath(path), path)
    return tuple(first.values())


def render_json(comparison: Comparison) -> str:
    """The ``--format json`` document (exactly :meth:`Comparison.to_dict`'s keys)."""
    return json.dumps(comparison.to_dict(), indent=2, allow_nan=False) + "\n"


_TASK_WIDTH = 20
_HEADER = (f"{'task':<{_TASK_WIDTH}} {'base n':>6} {'fail':>4} {'base mean':>10} "
           f"{'cand n':>6} {'fail':>4} {'cand mean':>10} {'difference':>11}")


def _short(text: str, width: int) -> str:
    return shortened(text, width)  # input text: escaped, then cut


#: The lower-bound trials named in the table (all of them are in --format json).
_NAMED = 10


def _task_line(row: TaskRow, metric: Metric) -> str:
    task = _short(row.task_id, _TASK_WIDTH - 1) + "*" if row.mixed else row.task_id
    return (f"{_short(task, _TASK_WIDTH):<{_TASK_WIDTH}} {row.baseline_trials:>6} "
            f"{row.baseline_failed:>4} {metric.show(row.baseline_mean):>10} "
            f"{row.candidate_trials:>6} {row.candidate_failed:>4} "
            f"{metric.show(row.candidate_mean):>10} "
            f"{metric.show(row.difference, signed=True):>11}")


def _needs_attention(row: TaskRow) -> bool:
    return (row.difference is None or row.mixed
            or bool(row.baseline_failed or row.candidate_failed))


#: One line of the comparison's notes: its depth (0, or 1 for a line under the one
#: before) and its text.
_Item = tuple[int, str]


def _plain(text: str, width: int | None = None) -> str:
    """Input text as the table shows it: escaped (:func:`printable`), cut to ``width``."""
    return printable(text) if width is None else shortened(text, width)


def _head_items(comparison: Comparison, name: Callable[[str, int | None], str]) -> list[_Item]:
    """The lines above the task rows: result, interval, coverage, failures and the
    notes; ``name`` shows a text taken from an input (or holding ``<``), cut to a width
    (the table: :func:`_plain`; Markdown: a code span)."""
    metric = METRICS[comparison.metric]
    unit = f" {metric.unit}" if metric.unit else ""
    items = [(0, f"metric: {metric.name} ({metric.meaning})"
              + (f", in {metric.unit}" if unit else ""))]
    paired = comparison.paired_tasks
    if comparison.difference is None:
        items.append((0, "candidate - baseline: none (no task has a usable trial on both"
                         " sides)"))
    else:
        items.append((0, f"candidate - baseline, mean over {paired} paired task"
                         f"{'' if paired == 1 else 's'}: "
                         f"{metric.show(comparison.difference, signed=True)}{unit}"))
    interval = comparison.interval
    label = f"{comparison.confidence * 100:g}% interval"
    if interval.low is None or interval.high is None:
        # no interval: no bootstrap ran, so neither its method nor its warning is shown
        items.append((0, f"{label}: none ({interval.note})"))
    else:
        items.append((0, f"{label}: [{metric.show(interval.low, signed=True)}, "
                         f"{metric.show(interval.high, signed=True)}]{unit}"))
        if interval.note:
            items.append((1, f"({interval.note})"))
        items.append((1, f"paired bootstrap over tasks: method {BOOTSTRAP_METHOD}, "
                         f"{comparison.resamples} resamples, seed {comparison.seed}"))
        if comparison.unreliable:
            items.append((0, f"warning: fewer than {UNRELIABLE_BELOW} paired tasks:"
                             " the interval is unreliable"))
    for side in comparison.no_task_folders:
        items.append((0, f"{side}: no task folders found (expected"
                         f" {name(f'{side}/<task_id>/<traces>', None)})"))
    total = len(comparison.tasks)
    coverage = (f"coverage: {paired} of {total} task{'' if total == 1 else 's'} paired"
                f" ({len(comparison.baseline_only)} baseline only,"
                f" {len(comparison.candidate_only)} candidate only")
    unusable = len(comparison.unusable_tasks)
    items.append((0, coverage + (f", {unusable} unusable)" if unusable else ")")))
    if comparison.empty_tasks:
        count = len(comparison.empty_tasks)
        items.append((0, f"no trial files: {count} task{'' if count == 1 else 's'} on neither"
                         " side: " + ", ".join(name(t, None) for t in comparison.empty_tasks)))
    base_failed = sum(row.baseline_failed for row in comparison.tasks)
    cand_failed = sum(row.candidate_failed for row in comparison.tasks)
    items.append((0, f"failed trials: baseline {base_failed}, candidate {cand_failed}"))
    items.extend(timing_items(comparison.timing))
    if comparison.lower_bound:
        count = comparison.lower_bound_trials
        items.append((0, f"lower bound: {count} usable trial{'' if count == 1 else 's'} lost"
                         " calls or lines (figures are a lower bound):"))
        items.extend((1, name(trial, 78)) for trial in comparison.lower_bound[:_NAMED])
        if count > _NAMED:
            items.append((1, f"(and {count - _NAMED} more; --format json lists them)"))
    if comparison.mixed_kind_tasks:
        items.append((0, "mixed kinds (trials of one side differ; the mean mixes them):"))
        for row in comparison.tasks:
            if row.mixed:
                kinds = "; ".join(f"{side} {', '.join(k)}" for side, k in (
                    ("baseline", row.baseline_kinds), ("candidate", row.candidate_kinds))
                    if len(k) > 1)
                items.append((1, name(f"{row.task_id}: {kinds}", 78)))
    if comparison.strays:
        count = len(comparison.strays)
        items.append((0, f"not read: {count} trace file{'' if count == 1 else 's'} outside any"
                         " task folder"))
    return items


def _shown_rows(comparison: Comparison) -> list[TaskRow]:
    """The task rows shown: every one under :data:`UNRELIABLE_BELOW` paired tasks, else
    those not paired or with failed trials."""
    rows = list(comparison.tasks)
    return rows if comparison.unreliable else [row for row in rows if _needs_attention(row)]


def _tail_items(comparison: Comparison, shown: int,
                name: Callable[[str, int | None], str]) -> list[str]:
    """The lines under the task rows (``shown`` of them): the rows left out, the tasks
    on one side only (``name``: as :func:`_head_items`)."""
    lines = []
    hidden = len(comparison.tasks) - shown
    if hidden:
        lines.append(f"({hidden} paired task{'' if hidden == 1 else 's'} with no failed trial"
                     " not shown; --format json lists every task)")
    if comparison.baseline_only:
        lines.append("baseline only: "
                     + ", ".join(name(task, None) for task in comparison.baseline_only))
    if comparison.candidate_only:
        lines.append("candidate only: "
                     + ", ".join(name(task, None) for task in comparison.candidate_only))
    return lines


#: The mark of a task row whose trials differ in kind on one side.
MIXED_MARK = "*"


def _legend(comparison: Comparison) -> list[str]:
    """The legend under the table: it explains only what is shown."""
    lines = ["n: trials found (a trial is one session, its lanes summed); fail: trials",
             "with no value (unreadable, unrecognised, empty, no usable record); means"]
    if comparison.unusable_tasks:  # the coverage line's count
        lines.append("are over the other trials; unusable: a task in both folders with no")
        lines.append("usable trial on one side.")
    else:
        lines.append("are over the other trials.")
    if comparison.mixed_kind_tasks:
        lines.append(f"{MIXED_MARK}: a task whose trials differ in kind on one side"
                     " (listed above).")
    return lines


def render_table(comparison: Comparison) -> str:
    """The comparison for people: result, interval, coverage, failures, task rows.

    Every task row is shown with fewer than :data:`UNRELIABLE_BELOW` paired
    tasks; otherwise only the rows of tasks not paired or with failed trials.
    At most 80 columns (task ids are shortened with ``…``).
    """
    metric = METRICS[comparison.metric]
    lines = ["  " * depth + text for depth, text in _head_items(comparison, _plain)]
    rows = _shown_rows(comparison)
    lines.append("")
    lines.append(_HEADER)
    lines.extend(_task_line(row, metric) for row in rows)
    lines.extend(_tail_items(comparison, len(rows), _plain))
    lines.extend(_legend(comparison))
    return "\n".join(lines) + "\n"


#: The widest task id a Markdown task cell shows (longer ones are cut, ``…`` last).
_MARKDOWN_TASK_WIDTH = 80


def _markdown_name(text: str, width: int | None = None) -> str:
    return markdown_code(_plain(text, width), cell=False)


def render_markdown(comparison: Comparison) -> str:
    """``compare --format markdown``: :func:`render_table` as GitHub-flavoured Markdown
    (docs/cli.md, "Markdown"): the lines above the table as a list (the lines under
    one as its sub-list), the task rows as a GFM table (task ids up to 80 characters,
    as code spans; figures as the table writes them), the lines under it as a list,
    then the legend. Every task id and trial name is a code span
    (:func:`~wavemetrics.views.escaping.markdown_code`)."""
    from wavemetrics.views.markdown import markdown_table

    metric = METRICS[comparison.metric]
    text = "".join("  " * depth + f"- {item}\n"
                   for depth, item in _head_items(comparison, _markdown_name))
    rows = _shown_rows(comparison)
    cells = [[
        markdown_code(shortened(row.task_id, _MARKDOWN_TASK_WIDTH))
        + ("\\" + MIXED_MARK if row.mixed else ""),
        str(row.baseline_trials), str(row.baseline_failed), metric.show(row.baseline_mean),
        str(row.candidate_trials), str(row.candidate_failed), metric.show(row.candidate_mean),
        metric.show(row.difference, signed=True),
    ] for row in rows]
    text += "\n" + markdown_table(
        ["task", "base n", "fail", "base mean", "cand n", "fail", "cand mean", "difference"],
        "lrrrrrrr", cells)
    tail = _tail_items(comparison, len(rows), _markdown_name)
    if tail:
        text += "\n" + "".join(f"- {line}\n" for line in tail)
    legend = _legend(comparison)
    if comparison.mixed_kind_tasks:  # a bare "*" opens emphasis
        legend[-1] = "\\" + legend[-1]
    return text + "\n" + " ".join(legend) + "\n"
