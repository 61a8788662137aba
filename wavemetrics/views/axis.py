"""The efficiency axis of a bench runner: one trial's traces -> scored, skipped or failed.

A bench runner scores each trial on axes. This axis is display-only (never
weighted into a trial's total) and is always in exactly one state:

- ``scored``: measured; ``figures`` holds the parallelism figures of the merged
  total over every lane of the trial's traces.
- ``skipped``: not measured because there was nothing to measure (no trace
  given, the path does not exist, a folder with no trace file, an empty file).
- ``failed``: the measurement itself broke (a trace unreadable or not
  recognised, or readable but with no usable record).

``docs/bench-integration.md`` is the runner's guide; the figures follow
``docs/metrics.md``.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from wavemetrics.core.activity import ACTIVITY_FIGURES, BATCHABLE_TOOL_NAMES, DEFAULT_IDLE_GAP_MS
from wavemetrics.core.classify import EVAL_TOOL_NAMES, WaveBucket, classify_wave
from wavemetrics.core.observations import DEFAULT_MAX_TRACKED_CALLS
from wavemetrics.core.schema import LOSS_FIGURES, SCHEMA_KIND, json_safe
from wavemetrics.readers.dispatch import (
    AUTO,
    DUPLICATE,
    EMPTY,
    FORMATS,
    NO_USABLE_RECORD,
    InputReport,
)
from wavemetrics.readers.limits import Limits
from wavemetrics.readers.sources import STDIN, expand_paths
from wavemetrics.run.pipeline import Analysis, LaneResult, analyse, read_inputs

__all__ = [
    "AXIS_ONLY_FIGURES",
    "FIGURE_NAMES",
    "LOSS_COUNTERS",
    "AxisState",
    "EfficiencyAxis",
    "efficiency_axis",
    "multi_call_share",
    "non_eval_calls_in_multi_waves",
    "scored_axis",
]

#: What ``traces`` may be: one path, several paths, or ``None``.
TracePaths = str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None

#: The keys of ``EfficiencyAxis.figures``, in order (stable ``result.json`` columns):
#: summary figures (their values and loss flags come from the figure table,
#: ``schema.py``) among the axis' own figures (:data:`AXIS_ONLY_FIGURES`).
FIGURE_NAMES: tuple[str, ...] = (
    "traces_read",
    "lanes",
    "paired_calls",
    "tool_time_ms",
    "non_eval_joined_calls",
    "non_eval_waves_total",
    "non_eval_waves_multi",
    "non_eval_calls_in_multi_waves",
    "non_eval_multi_call_share",
    "non_eval_saved_round_trips",
    "modeled_wallclock_saved_ms",
    "upper_bound_saved_ms",
    "non_eval_wave_size_histogram",
    "eval_only_waves",
    "eval_only_duration_ms",
    "mixed_waves",
    "measured_turn_duration_ms_total",
    *ACTIVITY_FIGURES,  # section 9, in the figure table's order
    "incomplete_calls",
    "clock_anomalies",
    "dropped_calls",
    "problem_lines",
    "missing_traces",
    "lower_bound",
)

#: The figures the axis computes itself; every other name is a summary figure.
AXIS_ONLY_FIGURES: tuple[str, ...] = (
    "traces_read",
    "lanes",
    "non_eval_calls_in_multi_waves",
    "non_eval_multi_call_share",
    "problem_lines",
    "missing_traces",
    "lower_bound",
)

#: Figures that count evidence lost; any of them non-zero makes the figures a lower bound:
#: the summary's loss figures (schema.py), then the lines and traces the axis lost.
LOSS_COUNTERS: tuple[str, ...] = (
    *(name for name, _ in LOSS_FIGURES),
    "problem_lines",
    "missing_traces",
)


class AxisState(str, enum.Enum):
    """The state of an axis; its value is the spelling in ``result.json``."""

    SCORED = "scored"
    SKIPPED = "skipped"
    FAILED = "failed"

    def __str__(self) -> str:
        return self.value


def _read_only(figures: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    # a frozen axis holds a read-only copy of its figures
    return None if figures is None else MappingProxyType(dict(figures))


def _check_one_line(reason: str) -> None:
    if "\n" in reason or "\r" in reason:
        raise ValueError("reason must be one line")


def _check_figures(state: AxisState, figures: Mapping[str, Any] | None) -> None:
    if (figures is not None) != (state is AxisState.SCORED):
        raise ValueError("figures are present exactly when the axis is scored")


def _check_complete(state: AxisState, complete: bool) -> None:
    if complete and state is not AxisState.SCORED:
        raise ValueError("only a scored axis can have complete evidence")


@attrs.frozen
class EfficiencyAxis:
    """One trial's efficiency axis: state, one-line reason, figures when scored.

    ``figures`` is ``None`` unless ``state`` is ``SCORED``; then it maps every
    name of :data:`FIGURE_NAMES` to an ``int``, ``float`` (ms), ``str`` (the
    histogram) or ``bool`` (``lower_bound``). ``evidence_complete`` is ``True``
    only for a scored axis whose every line was usable and every call counted;
    when ``False`` on a scored axis, the figures are a lower bound and
    ``figures["lower_bound"]`` and the reason say so.
    """

    state: AxisState
    reason: str = attrs.field(validator=lambda _, __, reason: _check_one_line(reason))
    figures: Mapping[str, Any] | None = attrs.field(
        default=None, converter=_read_only, validator=lambda axis, _, figures: _check_figures(
            axis.state, figures
        ),
    )
    evidence_complete: bool = attrs.field(
        default=False, validator=lambda axis, _, complete: _check_complete(axis.state, complete)
    )

    def to_dict(self) -> dict[str, Any]:
        """The axis for a runner's ``result.json``: JSON-ready, ``"weighted": false``.

        Keys: ``axis`` (``"efficiency"``), ``state``, ``reason``, ``weighted``
        (always ``False``: display-only), ``evidence_complete``, ``contract``
        (``"parallelism_v1"``) and ``figures`` (``None`` unless scored; a
        non-finite float, possible only from absurd inputs, becomes ``None``).
        """
        figures = None
        if self.figures is not None:
            figures = {name: json_safe(value) for name, value in self.figures.items()}
        return {
            "axis": "efficiency",
            "state": self.state.value,
            "reason": self.reason,
            "weighted": False,
            "evidence_complete": self.evidence_complete,
            "contract": SCHEMA_KIND,
            "figures": figures,
        }


def _one_line(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ")


def _paths(traces: TracePaths) -> list[str]:
    if traces is None:
        return []
    if isinstance(traces, (str, os.PathLike)):
        return [os.fspath(traces)]
    if isinstance(traces, bytes) or not isinstance(traces, Sequence):
        raise TypeError("traces must be a path, a sequence of paths, or None")
    paths = []
    for trace in traces:
        if not isinstance(trace, (str, os.PathLike)):
            raise TypeError("traces must be a path, a sequence of paths, or None")
        paths.append(os.fspath(trace))
    return paths


def _absent(path: str) -> str | None:
    """Why ``path`` holds no trace at all (so the trial produced none), or ``None``."""
    if path == STDIN:
        return None
    if not os.path.lexists(path):
        return f"{path} does not exist"
    if os.path.isdir(path) and not expand_paths([path])[0]:
        return f"{path} has no trace file"
    return None


def non_eval_calls_in_multi_waves(
    analysis: Analysis[LaneResult], eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES
) -> int:
    """Calls in non_eval waves of two or more calls, over every lane of ``analysis``.

    The histogram cannot give this (its buckets past 4 are ranges), so it is
    counted from the waves; pass the eval names the analysis was made with.
    """
    names = tuple(eval_tool_names)
    count = 0
    for lane in analysis.lanes:
        for wave in lane.waves:
            if wave.size < 2:
                continue
            bucket = classify_wave([call.tool_name for call in wave.calls], names)
            if bucket is WaveBucket.NON_EVAL:
                count += wave.size
    return count


def multi_call_share(calls_in_multi_waves: int, non_eval_joined_calls: int) -> float:
    """Share of non_eval calls that ran in non_eval waves of two or more calls.

    ``calls_in_multi_waves / non_eval_joined_calls``; ``0.0`` when there is no
    non_eval call (no call ran in a multi-call wave, and every readable trial
    keeps a value: ``docs/compare.md``).

    >>> multi_call_share(4, 5)
    0.8
    >>> multi_call_share(0, 0)
    0.0
    """
    if non_eval_joined_calls == 0:
        return 0.0
    return calls_in_multi_waves / non_eval_joined_calls


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _more(count: int) -> str:
    return f" (and {count} more)" if count else ""


def _problem_text(report: InputReport) -> str:
    lost = ", ".join(f"{reason} {n}" for reason, n in report.problems.items())
    count = sum(report.problems.values())
    return f"{_plural(count, 'line')} not usable ({lost})" if count else "no line used"


def efficiency_axis(
    traces: TracePaths,
    *,
    input_format: str = AUTO,
    eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES,
    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
    limits: Limits | None = None,
    batchable_tool_names: Sequence[str] = BATCHABLE_TOOL_NAMES,
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
) -> EfficiencyAxis:
    """Measure one trial's efficiency axis from its trace files (or say why not).

    ``traces``: one path (file or folder, read recursively as by
    ``wavemetrics summarize``), several paths, or ``None``. The figures are
    those of the merged total over every lane of every trace (ms, counts),
    plus the loss counters; ``docs/bench-integration.md`` lists them.

    States, decided in this order:

    - skipped: ``traces`` is ``None`` or empty; or every path is absent (does
      not exist, a folder with no trace file) or an empty file. The trial
      produced no trace, so nothing was measured.
    - failed: any trace present could not be read or was not recognised; or
      the traces have lines but none was usable while some were problems.
    - scored: otherwise, also when the traces hold no tool call (the figures
      are then zero: measured, not missing). ``evidence_complete`` is
      ``False`` when a line was a problem, a call was incomplete, dropped at
      ``max_tracked_calls`` or a clock anomaly, or one of several paths was
      absent: the figures are then a lower bound.

    ``limits``: the byte limits of :mod:`wavemetrics.readers.limits` (an input past
    them fails). ``batchable_tool_names`` and ``idle_gap_ms`` (ms): the parameters of
    the section-9 figures (docs/metrics.md), ``summarize``'s ``--batchable-tools`` and
    ``--idle-gap``. Never raises for bad data. Raises ``ValueError`` for an unknown
    ``input_format`` or a negative ``max_tracked_calls``, ``TypeError`` when
    ``traces`` is not a path, a sequence of paths or ``None``.
    """
    paths = _paths(traces)
    if input_format != AUTO and input_format not in FORMATS:
        raise ValueError(f"unknown input format {input_format!r}")
    if not paths:
        return EfficiencyAxis(AxisState.SKIPPED, "no trace: none was given")
    absent: list[tuple[str, str]] = []
    present: list[str] = []
    for path in paths:
        why = _absent(path)
        if why is None:
            present.append(path)
        else:
            absent.append((path, why))
    if not present:
        return EfficiencyAxis(
            AxisState.SKIPPED, _one_line(f"no trace: {absent[0][1]}{_more(len(absent) - 1)}")
        )
    from wavemetrics.run.native import default_engine  # loads the extension when built

    # read in batch (each lane's calls) by the native engine when built: the same lanes
    outcome = read_inputs(present, input_format, limits=limits, engine=default_engine())
    analysis = analyse(
        outcome, eval_tool_names=eval_tool_names, max_tracked_calls=max_tracked_calls,
        batchable_tool_names=batchable_tool_names, idle_gap_ms=idle_gap_ms,
    )
    # an input whose every record was a problem is an error for the CLI; here it keeps
    # its own reason (below); one whose every record was foreign to a forced
    # input_format fails here as it is
    failed = tuple(r for r in outcome.failed
                   if not ((r.error or "").startswith(NO_USABLE_RECORD) and r.problems))
    if failed:
        first = failed[0]
        error = first.error or ""
        foreign = f"{NO_USABLE_RECORD}: "
        why = (f"{foreign}{first.path}: {error[len(foreign):]}" if error.startswith(foreign)
               else f"trace could not be read: {first.path}: {error}")
        return EfficiencyAxis(AxisState.FAILED, _one_line(f"{why}{_more(len(failed) - 1)}"))
    reports = tuple(r for r in outcome.inputs if r.format != DUPLICATE)  # copies: read once
    if all(report.format == EMPTY for report in reports):
        return EfficiencyAxis(
            AxisState.SKIPPED,
            _one_line(f"no trace: {reports[0].path} is empty{_more(len(reports) - 1)}"),
        )
    problem_lines = sum(sum(report.problems.values()) for report in reports)
    if problem_lines and not any(report.lines_used for report in reports):
        first = next(report for report in reports if report.problems)
        return EfficiencyAxis(
            AxisState.FAILED,
            _one_line(f"no usable record: {first.path}: {_problem_text(first)}"),
        )
    return _scored(analysis, eval_tool_names, problem_lines, len(reports), absent)


def scored_axis(
    analysis: Analysis[LaneResult],
    eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES,
    *,
    problem_lines: int = 0,
    traces_read: int = 1,
) -> EfficiencyAxis:
    """The scored axis of ``analysis`` (already read): figures of its merged total.

    ``problem_lines`` counts the unusable lines of the inputs the lanes came
    from, ``traces_read`` those inputs; ``compare`` uses this to score each
    session of a task folder as one trial. Never raises for bad data.
    """
    return _scored(analysis, eval_tool_names, problem_lines, traces_read, [])


def _scored(
    analysis: Analysis[LaneResult],
    eval_tool_names: Sequence[str],
    problem_lines: int,
    traces_read: int,
    absent: list[tuple[str, str]],
) -> EfficiencyAxis:
    total = analysis.total
    in_multi = non_eval_calls_in_multi_waves(analysis, eval_tool_names)
    own: dict[str, Any] = {
        "traces_read": traces_read,
        "lanes": len(analysis.lanes),
        "non_eval_calls_in_multi_waves": in_multi,
        "non_eval_multi_call_share": multi_call_share(in_multi, total.non_eval_joined_calls),
        "problem_lines": problem_lines,
        "missing_traces": len(absent),
    }

    def value(name: str) -> Any:
        return own[name] if name in own else getattr(total, name)

    losses = {name: value(name) for name in LOSS_COUNTERS if value(name)}
    complete = not losses
    own["lower_bound"] = not complete
    figures = {name: value(name) for name in FIGURE_NAMES}
    if total.paired_calls == 0 and total.observed_calls == 0:
        what = "no tool calls in the trace" + ("" if traces_read == 1 else "s")
    else:
        what = (f"{_plural(total.paired_calls, 'paired call')} in "
                f"{_plural(len(analysis.lanes), 'lane')} of {_plural(traces_read, 'trace')}")
    if complete:
        reason = f"measured: {what}"
    else:
        lost = ", ".join(f"{name.replace('_', ' ')} {n}" for name, n in losses.items())
        reason = f"measured, lower bound ({lost}): {what}"
    return EfficiencyAxis(AxisState.SCORED, _one_line(reason), figures, complete)
