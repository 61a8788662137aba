"""The figure table: every figure of wavemetrics declared once (``docs/metrics.md`` section 6).

Each :class:`Property` entry carries a figure's name, JSON type, unit and
meaning, whether it is on the v1 wire, how two lanes' values merge
(:class:`Merge`, section 8), whether it counts lost evidence, and how it is
displayed (a ``summarize`` table :class:`Column`, a ``compare`` metric).
Everything else is derived from :data:`PROPERTIES`: the ``ParallelismSummary``
attributes and their JSON order, ``to_event``'s 16 keys, ``merge_two``, the
report's table columns and loss line, the efficiency axis' figures and loss
counters, and the ``compare`` metrics (``docs/architecture.md``, "Figures: one table").

``to_event`` emits the v1 keys in table order (contract order, section 6);
``docs/metrics.md`` carries the same table, and a test keeps the two equal.
"""

from __future__ import annotations

import enum
import math
from typing import Any

import attrs

from wavemetrics.core.histogram import add_histograms

__all__ = [
    "DERIVED_PROPERTIES",
    "EXTRA_PROPERTIES",
    "FIGURES",
    "FIGURE_MERGES",
    "LOSS_FIGURES",
    "METRIC_FIGURES",
    "PROPERTIES",
    "SCHEMA_KIND",
    "SUMMARY_FIELDS",
    "TABLE_COLUMNS",
    "V1_PROPERTIES",
    "Column",
    "Compared",
    "Loss",
    "Merge",
    "Property",
    "json_safe",
    "merge_value",
]

SCHEMA_KIND = "parallelism_v1"


class Merge(str, enum.Enum):
    """How the figures of two lanes combine into the figure of both (section 8)."""

    SUM = "sum"
    MAX = "max"
    HISTOGRAM = "histogram"

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class Column:
    """A column of the ``summarize`` table: ``order`` among the figure columns (after
    session and lane), header, width in characters, and ``seconds`` (ms shown as s)."""

    order: int
    header: str
    width: int
    seconds: bool = False


@attrs.frozen
class Loss:
    """A figure that counts calls lost: ``order`` in loss lists, ``label`` in the table."""

    order: int
    label: str


@attrs.frozen
class Compared:
    """A figure ``wavemetrics compare --metric`` accepts: ``order`` in the list, ``label``."""

    order: int
    label: str


@attrs.frozen
class Property:
    """One figure: its wire/attribute name, JSON type, unit and plain meaning.

    Keyword fields: ``v1`` (on the v1 wire payload); ``merge`` (how two lanes'
    values merge; ``None`` for a wire constant that is no summary attribute);
    ``loss`` (set when the figure counts lost calls: a non-zero value makes
    the figures a lower bound); ``column`` (a ``summarize`` table column);
    ``compare`` (a ``compare`` metric).
    """

    name: str
    json_type: str
    unit: str
    meaning: str
    v1: bool = attrs.field(default=False, kw_only=True)
    merge: Merge | None = attrs.field(default=Merge.SUM, kw_only=True)
    loss: Loss | None = attrs.field(default=None, kw_only=True)
    column: Column | None = attrs.field(default=None, kw_only=True)
    compare: Compared | None = attrs.field(default=None, kw_only=True)


#: Every figure, in JSON order: the 16 v1 wire keys in contract order, then the extras.
PROPERTIES: tuple[Property, ...] = (
    Property("$session_id", "string", "", "hash of the lane's session and lane ids",
             v1=True, merge=None),
    Property("clock_anomalies", "number", "calls", "calls whose end came before their start",
             v1=True,
             loss=Loss(1, "clock anomalies")),
    Property("dropped_calls", "number", "calls", "starts discarded at the tracked-call cap",
             v1=True,
             loss=Loss(2, "dropped")),
    Property("eval_only_duration_ms", "number", "ms", "summed span of waves of only eval calls",
             v1=True),
    Property("eval_only_waves", "number", "waves", "waves made only of eval (code) calls", v1=True,
             column=Column(4, "eval", 5)),
    Property("incomplete_calls", "number", "calls", "starts that never got an end", v1=True,
             loss=Loss(0, "incomplete")),
    Property("measured_turn_duration_ms_total", "number", "ms", "summed turn durations", v1=True,
             compare=Compared(7, "summed turn time")),
    Property("mixed_waves", "number", "waves", "waves with eval and other calls (never counted)",
             v1=True,
             column=Column(5, "mixed", 5)),
    Property("modeled_wallclock_saved_ms", "number", "ms",
             "sum of durations minus span, over non_eval waves; may be negative", v1=True,
             column=Column(6, "saved s", 9, seconds=True),
             compare=Compared(0, "modeled wall-clock saving")),
    Property("non_eval_joined_calls", "number", "calls", "calls in non_eval waves", v1=True),
    Property("non_eval_saved_round_trips", "number", "round trips",
             "peak concurrency minus one, summed over non_eval waves", v1=True,
             column=Column(3, "rt", 5), compare=Compared(2, "saved round trips")),
    Property("non_eval_wave_size_histogram", "string", "waves",
             "non_eval waves by size 1,2,3,4,5-8,9-16,17-32,33+ joined by ':'", v1=True,
             merge=Merge.HISTOGRAM),
    Property("non_eval_waves_multi", "number", "waves", "non_eval waves of two or more calls",
             v1=True,
             column=Column(2, "multi", 5), compare=Compared(3, "non_eval waves of 2+ calls")),
    Property("non_eval_waves_total", "number", "waves", "waves with no eval call", v1=True),
    Property("schema_kind", "string", "", "always \"parallelism_v1\"", v1=True, merge=None),
    Property("upper_bound_saved_ms", "number", "ms",
             "(n-1) x mean duration, summed over non_eval waves", v1=True,
             column=Column(7, "upper s", 9, seconds=True),
             compare=Compared(1, "upper-bound saving")),
    Property("observed_calls", "number", "calls", "valid start observations"),
    Property("paired_calls", "number", "calls", "calls with a start and a usable end",
             column=Column(0, "calls", 5), compare=Compared(5, "paired tool calls")),
    Property("malformed_observations", "number", "observations",
             "elements that were not valid observations"),
    Property("duplicate_starts", "number", "calls", "starts that replaced a pending start"),
    Property("orphan_ends", "number", "observations", "ends with no pending start"),
    Property("eval_outer_joined_calls", "number", "calls",
             "every call of eval_only waves plus the eval calls of mixed waves"),
    Property("mixed_non_eval_joined_calls", "number", "calls", "non-eval calls in mixed waves"),
    Property("tool_time_ms", "number", "ms", "summed duration of every paired call",
             compare=Compared(6, "summed tool-call time")),
    Property("calls_without_batch", "number", "calls",
             "paired calls with no batch (issuing model response) key",
             compare=Compared(8, "calls without a batch")),
    Property("batched_turns", "number", "turns",
             "batches: distinct issuing model responses of paired calls",
             compare=Compared(9, "model turns with calls")),
    Property("multi_call_turns", "number", "turns", "batches of two or more paired calls",
             compare=Compared(10, "multi-call turns")),
    Property("turn_width_histogram", "string", "turns",
             "batches by width 1,2,3,4,5-8,9-16,17-32,33+ joined by ':'",
             merge=Merge.HISTOGRAM),
    Property("max_turn_width", "number", "calls", "paired calls of the widest batch",
             merge=Merge.MAX, compare=Compared(11, "widest turn")),
    Property("missed_batch_runs", "number", "runs",
             "serial runs of 2+ single batchable calls, one per batch",
             compare=Compared(12, "serial runs of single read-only calls")),
    Property("missed_batch_calls", "number", "calls", "calls in serial runs",
             compare=Compared(13, "calls in serial runs")),
    Property("missed_batch_round_trips", "number", "round trips",
             "calls minus runs: round trips one batch per run would have saved (upper bound)",
             compare=Compared(14, "missed round trips (upper bound)")),
    Property("missed_batch_upper_ms", "number", "ms",
             "per serial run, its span minus its longest call, summed (upper bound)",
             compare=Compared(15, "missed batching time (upper bound)")),
    Property("lane_span_ms", "number", "ms",
             "latest minus earliest time the lane used (calls, incomplete starts, turns)",
             compare=Compared(16, "lane span")),
    Property("tool_busy_ms", "number", "ms",
             "length of the union of paired call intervals",
             compare=Compared(17, "tool busy time")),
    Property("idle_ms", "number", "ms",
             "gaps longer than the idle gap between the lane's activity intervals",
             compare=Compared(18, "idle time")),
    Property("calls_timed_by_execution", "number", "calls",
             "paired calls whose times the harness stamped at execution",
             compare=Compared(19, "calls timed by execution")),
    Property("calls_timed_by_message", "number", "calls",
             "paired calls timed by the lines that requested them and carried results",
             compare=Compared(20, "calls timed by message lines")),
)

#: Figures computed from the others (a ``ParallelismSummary`` property, never merged):
#: in the JSON after every attribute.
DERIVED_PROPERTIES: tuple[Property, ...] = (
    Property("waves_total", "number", "waves", "waves of every bucket", merge=None,
             column=Column(1, "waves", 5)),
)

#: The 16 v1 wire keys in contract order.
V1_PROPERTIES: tuple[Property, ...] = tuple(p for p in PROPERTIES if p.v1)

#: Figures wavemetrics adds; never on the v1 wire payload.
EXTRA_PROPERTIES: tuple[Property, ...] = tuple(p for p in PROPERTIES if not p.v1)

#: The figures a ``ParallelismSummary`` holds (every entry with a merge rule), in order.
FIGURES: tuple[Property, ...] = tuple(p for p in PROPERTIES if p.merge is not None)

#: Attribute names of ``ParallelismSummary`` in order: the v1 figures, then the extras.
SUMMARY_FIELDS: tuple[str, ...] = tuple(p.name for p in FIGURES)

#: ``(name, merge rule)`` of every summary figure, in order (what ``merge_two`` runs).
FIGURE_MERGES: tuple[tuple[str, Merge], ...] = tuple(
    (p.name, p.merge) for p in PROPERTIES if p.merge is not None
)

_ALL = (*PROPERTIES, *DERIVED_PROPERTIES)


# (Module-level comprehensions, not functions: the mutation gate cannot reach code
# that runs only at import, so none is written here.)

#: ``(name, Column)`` of the ``summarize`` table's figure columns, in column order.
TABLE_COLUMNS: tuple[tuple[str, Column], ...] = tuple(sorted(
    ((p.name, p.column) for p in _ALL if p.column is not None), key=lambda nc: nc[1].order
))

#: ``(name, Loss)`` of the figures that count lost calls, in loss order.
LOSS_FIGURES: tuple[tuple[str, Loss], ...] = tuple(sorted(
    ((p.name, p.loss) for p in _ALL if p.loss is not None), key=lambda nl: nl[1].order
))

#: The figures ``wavemetrics compare`` can compare, in ``--metric`` order.
METRIC_FIGURES: tuple[Property, ...] = tuple(
    p for p in sorted(_ALL, key=lambda p: p.compare.order if p.compare else 0) if p.compare
)


def json_safe(value: Any) -> Any:
    """``value``, or ``None`` for a non-finite float: JSON has no Infinity or NaN.

    A non-finite figure comes only from absurd inputs (times that overflow).

    >>> json_safe(1.5), json_safe(float("inf")), json_safe("0:0"), json_safe(None)
    (1.5, None, '0:0', None)
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def merge_value(rule: Merge, left: Any, right: Any) -> Any:
    """The merge of two values of one figure by its ``rule`` (section 8).

    ``SUM``: ``left + right``; ``MAX``: the larger; ``HISTOGRAM``: position by
    position (:func:`~wavemetrics.core.histogram.add_histograms`). Raises
    ``ValueError`` for a histogram that is not an encoded one.

    >>> merge_value(Merge.MAX, 3, 5), merge_value(Merge.SUM, 3, 5)
    (5, 8)
    """
    if rule is Merge.HISTOGRAM:
        return add_histograms(left, right)
    if rule is Merge.MAX:
        return max(left, right)
    return left + right
