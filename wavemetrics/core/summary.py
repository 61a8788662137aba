"""The per-lane ``parallelism_summary`` and its merge (``docs/metrics.md`` sections 5, 6, 8)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from wavemetrics.core.activity import (
    ACTIVITY_FIGURES,
    BATCHABLE_TOOL_NAMES,
    DEFAULT_IDLE_GAP_MS,
    ActivityAccumulator,
    Timing,
)
from wavemetrics.core.classify import (
    EVAL_TOOL_NAMES,
    WaveBucket,
    check_eval_names,
    is_eval_tool_name,
    wave_bucket,
)
from wavemetrics.core.exceptions import reject_path
from wavemetrics.core.histogram import (
    EMPTY_HISTOGRAM,
    HISTOGRAM_BUCKETS,
    decode_histogram,
    encode_histogram,
    wave_size_bucket,
)
from wavemetrics.core.observations import WaveCounters
from wavemetrics.core.savings import (
    modeled_wallclock_saved_ms,
    saved_round_trips,
    upper_bound_saved_ms,
    usable_durations_ms,
)
from wavemetrics.core.schema import (
    FIGURE_MERGES,
    SCHEMA_KIND,
    SUMMARY_FIELDS,
    V1_PROPERTIES,
    Merge,
    merge_value,
)
from wavemetrics.core.waves import Wave, WaveAssembly

__all__ = [
    "ParallelismSummary",
    "SummaryAccumulator",
    "check_turn_total",
    "merge_summaries",
    "merge_two",
    "summarize",
    "to_event",
]


@attrs.frozen
class ParallelismSummary:
    """Figures of one lane (or a merge of lanes), named as the v1 properties.

    Durations are float ms, counts are ints, ``non_eval_wave_size_histogram`` and
    ``turn_width_histogram`` are encoded 8-position strings. Attributes after
    ``upper_bound_saved_ms`` are wavemetrics extras, never on the wire. ``a + b``
    merges (section 8); the all-zero ``ParallelismSummary()`` is the identity of the
    merge.
    """

    clock_anomalies: int = 0
    dropped_calls: int = 0
    eval_only_duration_ms: float = 0.0
    eval_only_waves: int = 0
    incomplete_calls: int = 0
    measured_turn_duration_ms_total: float = 0.0
    mixed_waves: int = 0
    modeled_wallclock_saved_ms: float = 0.0
    non_eval_joined_calls: int = 0
    non_eval_saved_round_trips: int = 0
    non_eval_wave_size_histogram: str = EMPTY_HISTOGRAM
    non_eval_waves_multi: int = 0
    non_eval_waves_total: int = 0
    upper_bound_saved_ms: float = 0.0
    observed_calls: int = 0
    paired_calls: int = 0
    malformed_observations: int = 0
    duplicate_starts: int = 0
    orphan_ends: int = 0
    eval_outer_joined_calls: int = 0
    mixed_non_eval_joined_calls: int = 0
    tool_time_ms: float = 0.0
    calls_without_batch: int = 0
    batched_turns: int = 0
    multi_call_turns: int = 0
    turn_width_histogram: str = EMPTY_HISTOGRAM
    max_turn_width: int = 0
    missed_batch_runs: int = 0
    missed_batch_calls: int = 0
    missed_batch_round_trips: int = 0
    missed_batch_upper_ms: float = 0.0
    lane_span_ms: float = 0.0
    tool_busy_ms: float = 0.0
    idle_ms: float = 0.0
    calls_timed_by_execution: int = 0
    calls_timed_by_message: int = 0

    @property
    def waves_total(self) -> int:
        """All waves of every bucket: ``non_eval_waves_total + eval_only_waves + mixed_waves``."""
        return self.non_eval_waves_total + self.eval_only_waves + self.mixed_waves

    def __add__(self, other: object) -> ParallelismSummary:
        if not isinstance(other, ParallelismSummary):
            return NotImplemented
        return merge_two(self, other)

    def to_event(self, session_hash: str) -> dict[str, Any] | None:
        """The 16-key v1 payload in contract order, or ``None`` for zero waves (section 6)."""
        return to_event(self, session_hash)

    def as_dict(self) -> dict[str, Any]:
        """Every attribute by name, in ``SUMMARY_FIELDS`` order (for JSON output)."""
        return {name: getattr(self, name) for name in SUMMARY_FIELDS}


class SummaryAccumulator:
    """The one-pass bucket summary of section 5, fed wave by wave in wave order.

    :func:`summarize` runs it over an assembly's waves; the streaming path
    (:mod:`wavemetrics.core.stream`) feeds it each wave as soon as the wave closes.
    Every float sum is a naive left-to-right accumulation in wave order. A mixed
    wave only counts in ``mixed_waves`` and the joined-call extras: it is never
    stripped of its eval calls and folded into the non_eval figures.

    The section-9 figures (turns, missed batching, where the time went) are kept by
    :attr:`activity`, an :class:`~wavemetrics.core.activity.ActivityAccumulator`: this
    accumulator gives it every wave; the caller gives it the paired calls, measured
    turns and incomplete starts.

    Raises ``TypeError`` if a name list is a single ``str``, ``ValueError`` for a bad
    ``idle_gap_ms``.
    """

    def __init__(
        self,
        eval_tool_names: Iterable[str] = EVAL_TOOL_NAMES,
        *,
        batchable_tool_names: Iterable[str] = BATCHABLE_TOOL_NAMES,
        idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
    ) -> None:
        self.eval_names = tuple(check_eval_names(eval_tool_names))
        self.activity = ActivityAccumulator(batchable_tool_names, self.eval_names, idle_gap_ms)
        self._eval_memo: dict[str, bool] = {}
        self.histogram = [0] * HISTOGRAM_BUCKETS
        self.eval_only_waves = self.mixed_waves = 0
        self.eval_outer_joined_calls = self.mixed_non_eval_joined_calls = 0
        self.non_eval_waves_total = self.non_eval_joined_calls = 0
        self.non_eval_waves_multi = self.non_eval_saved_round_trips = 0
        self.eval_only_duration_ms = 0.0
        self.modeled_wallclock_saved_ms = 0.0
        self.upper_bound_saved_ms = 0.0
        self.tool_time_ms = 0.0

    def add(self, wave: Wave) -> None:
        """Account one wave; waves must come in wave order (by first call)."""
        for duration in usable_durations_ms(wave):
            self.tool_time_ms += duration
        if wave.calls:
            self.activity.wave(wave.calls[0].start_ms, max(c.end_ms for c in wave.calls))
        size = len(wave.calls)
        # the bucket of section 4 (wave_bucket, as classify_wave), from the memoised eval test
        evals = sum(1 for call in wave.calls if self.is_eval(call.tool_name))
        bucket = wave_bucket(evals, size)
        if bucket is WaveBucket.EVAL_ONLY:
            self.eval_only_waves += 1
            if math.isfinite(wave.span_ms):
                self.eval_only_duration_ms += wave.span_ms
            self.eval_outer_joined_calls += size
        elif bucket is WaveBucket.MIXED:
            self.mixed_waves += 1
            self.eval_outer_joined_calls += evals
            self.mixed_non_eval_joined_calls += size - evals
        else:
            self.non_eval_waves_total += 1
            self.non_eval_joined_calls += size
            if size > 1:
                self.non_eval_waves_multi += 1
            if size > 0:
                self.histogram[wave_size_bucket(size)] += 1
            self.non_eval_saved_round_trips += saved_round_trips((wave,))
            self.modeled_wallclock_saved_ms += modeled_wallclock_saved_ms(wave)
            self.upper_bound_saved_ms += upper_bound_saved_ms(wave)

    def is_eval(self, name: str) -> bool:
        """:func:`is_eval_tool_name` with this summary's eval names, remembered per name."""
        known = self._eval_memo.get(name)  # pragma: no mutate (a memo: a miss recomputes)
        if known is None:
            known = is_eval_tool_name(name, self.eval_names)
            self._eval_memo[name] = known  # pragma: no mutate (a memo: recomputing is the same)
        return known

    def add_single(self, tool_name: str, start_ms: float, end_ms: float) -> None:
        """Account a wave of one paired call (finite times, ``end_ms >= start_ms``).

        The same figures as ``add(wave_from_calls([call]))`` without building
        the wave: its span is the call's duration, its peak at most 1 (no round
        trip saved) and both savings are 0.0, and adding 0.0 to these sums,
        which are never -0.0, changes nothing.
        """
        duration = end_ms - start_ms
        self.tool_time_ms += duration
        self.activity.wave(start_ms, end_ms)
        if self.is_eval(tool_name):
            self.eval_only_waves += 1
            self.eval_only_duration_ms += duration
            self.eval_outer_joined_calls += 1
        else:
            self.non_eval_waves_total += 1
            self.non_eval_joined_calls += 1
            self.histogram[0] += 1

    def result(
        self,
        counters: WaveCounters,
        measured_turn_duration_ms_total: float = 0.0,
        timing: Timing = "execution",
    ) -> ParallelismSummary:
        """The summary of the waves added so far, with the pairing ``counters``.

        Pairing figures come from ``counters`` (a :class:`WaveCounters` field
        of the same name), the histogram is encoded, the turn total passed
        through, the section-9 figures from :attr:`activity` (``timing``: the
        provenance of the lane's calls); every other figure is this accumulator's
        attribute of that name.
        """
        values: dict[str, Any] = {name: getattr(counters, name) for name in _COUNTER_FIELDS}
        values.update({name: getattr(self, name) for name in _WAVE_FIGURES})
        values.update(self.activity.result(timing))
        values["non_eval_wave_size_histogram"] = encode_histogram(self.histogram)
        values["measured_turn_duration_ms_total"] = float(measured_turn_duration_ms_total)
        return ParallelismSummary(**values)


#: The figures the pairing counts (section 1), by their ``WaveCounters`` field names.
_COUNTER_FIELDS = tuple(field.name for field in attrs.fields(WaveCounters))
#: The figures a ``SummaryAccumulator`` sums wave by wave, as its attributes of that name.
_WAVE_FIGURES = tuple(
    name for name in SUMMARY_FIELDS
    if name not in _COUNTER_FIELDS
    and name not in ("non_eval_wave_size_histogram", "measured_turn_duration_ms_total")
    and name not in ACTIVITY_FIGURES
)


def check_turn_total(measured_turn_duration_ms_total: float) -> float:
    """The turn total as a float; raises ``ValueError`` unless a finite number ``>= 0``."""
    turn_total = measured_turn_duration_ms_total
    if isinstance(turn_total, bool) or not math.isfinite(turn_total) or turn_total < 0:
        raise ValueError("measured_turn_duration_ms_total must be finite and >= 0")
    return float(turn_total)


def summarize(
    assembly: WaveAssembly,
    *,
    measured_turn_duration_ms_total: float = 0.0,
    eval_tool_names: Iterable[str] = EVAL_TOOL_NAMES,
    turn_intervals: Iterable[tuple[float, float]] = (),
    timing: Timing = "execution",
    batchable_tool_names: Iterable[str] = BATCHABLE_TOOL_NAMES,
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
) -> ParallelismSummary:
    """Summarise one lane's waves: one pass in wave order (section 5).

    ``measured_turn_duration_ms_total`` (ms) is passed through (see
    :func:`wavemetrics.measured_turn_duration_ms`). A mixed wave only counts
    in ``mixed_waves`` and the joined-call extras: it is never stripped of its
    eval calls and folded into the non_eval figures. All float sums are naive
    left-to-right accumulations in wave order (:class:`SummaryAccumulator`).

    The section-9 extras (``docs/metrics.md``, "Turns, missed batching and where the
    time went") use the assembly's paired calls in pairing order
    (``assembly.calls``; for an assembly built without them, the waves' calls in wave
    order) and incomplete starts, ``turn_intervals`` (the lane's measured turns as
    ``(start_ms, end_ms)``; see :class:`~wavemetrics.core.turns.TurnClock`),
    ``timing`` (``"execution"`` or ``"message"``: where the lane's call times come
    from), ``batchable_tool_names`` and ``idle_gap_ms`` (ms; 0 disables idle time).

    Raises ``ValueError`` if ``measured_turn_duration_ms_total`` is a bool, negative or
    not finite, ``idle_gap_ms`` is negative or not finite, or ``timing`` is unknown;
    ``TypeError`` if a name list is a single ``str`` or ``assembly`` is a path (a
    ``str`` or ``os.PathLike``: the message names :func:`wavemetrics.summarize_paths`,
    which reads trace files).
    """
    reject_path(assembly, "summarize", "a WaveAssembly (from assemble_waves)")
    turn_total = check_turn_total(measured_turn_duration_ms_total)
    accumulator = SummaryAccumulator(
        eval_tool_names, batchable_tool_names=batchable_tool_names, idle_gap_ms=idle_gap_ms
    )
    activity = accumulator.activity
    calls = assembly.calls or tuple(call for wave in assembly.waves for call in wave.calls)
    for call in calls:
        activity.call(call.tool_name, call.start_ms, call.end_ms, call.batch)
    for start_ms in assembly.incomplete_starts_ms:
        activity.incomplete_start(start_ms)
    for start_ms, end_ms in turn_intervals:
        activity.turn(start_ms, end_ms)
    for wave in assembly.waves:
        accumulator.add(wave)
    return accumulator.result(assembly.counters, turn_total, timing)


def to_event(summary: ParallelismSummary, session_hash: str) -> dict[str, Any] | None:
    """The v1 wire payload: exactly the 16 keys of section 6 in contract order.

    ``None`` when the summary has zero waves (quality counters alone never make
    an event). Raises ``TypeError`` if ``session_hash`` is not a ``str``.
    """
    if not isinstance(session_hash, str):
        raise TypeError("session_hash must be a str")
    if summary.waves_total == 0:
        return None
    event: dict[str, Any] = {}
    for prop in V1_PROPERTIES:
        if prop.name == "$session_id":
            event[prop.name] = session_hash
        elif prop.name == "schema_kind":
            event[prop.name] = SCHEMA_KIND
        else:
            event[prop.name] = getattr(summary, prop.name)
    return event


def merge_two(left: ParallelismSummary, right: ParallelismSummary) -> ParallelismSummary:
    """Merge two summaries figure by figure, each by its table entry's rule (section 8).

    Counters and sums add, the histogram adds by position, a ``max`` figure
    keeps the larger (:func:`~wavemetrics.core.schema.merge_value`).
    """
    values: dict[str, Any] = {}
    for name, rule in FIGURE_MERGES:
        values[name] = merge_value(rule, getattr(left, name), getattr(right, name))
    return ParallelismSummary(**values)


def merge_summaries(summaries: Iterable[ParallelismSummary]) -> ParallelismSummary:
    """Merge any number of summaries left to right; ``ParallelismSummary()`` for none.

    Associative and commutative; exactly so when every float sum is exact
    (e.g. integer ms below 2**53), otherwise up to rounding in the last bits.

    The result is the left fold of :func:`merge_two` from ``ParallelismSummary()``,
    computed figure by figure (one pass over the summaries per figure, not one
    summary object per step: a fleet of 1,800 lanes merges in a fraction of the
    time): a ``SUM`` figure adds in the same order, so every float sum is the same
    to the bit; the histogram adds each distinct encoded histogram times the
    number of summaries that have it (integer counts: exact in any order); any
    other rule folds :func:`~wavemetrics.core.schema.merge_value` as :func:`merge_two`.
    """
    items = tuple(summaries)
    values: dict[str, Any] = {}
    for name, rule in FIGURE_MERGES:
        column = [getattr(summary, name) for summary in items]
        total = getattr(_IDENTITY, name)
        if rule is Merge.HISTOGRAM:
            total = _add_histogram_column(total, column)
        elif rule is Merge.SUM:
            for value in column:
                total = total + value
        else:
            for value in column:
                total = merge_value(rule, total, value)
        values[name] = total
    return ParallelismSummary(**values)


def _add_histogram_column(start: str, column: Sequence[str]) -> str:
    """``start`` plus every encoded histogram of ``column``, position by position."""
    counts = list(decode_histogram(start))
    for encoded, times in Counter(column).items():
        for position, count in enumerate(decode_histogram(encoded)):
            counts[position] += times * count
    return encode_histogram(counts)


#: The identity of the merge: the start of :func:`merge_summaries`' fold.
_IDENTITY = ParallelismSummary()
