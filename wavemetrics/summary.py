"""The per-lane ``parallelism_summary`` and its merge (``spec/metrics.md`` sections 5, 6, 8)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import attrs

from wavemetrics.classify import EVAL_TOOL_NAMES, WaveBucket, classify_wave, is_eval_tool_name
from wavemetrics.histogram import (
    EMPTY_HISTOGRAM,
    HISTOGRAM_BUCKETS,
    add_histograms,
    encode_histogram,
    wave_size_bucket,
)
from wavemetrics.savings import (
    modeled_wallclock_saved_ms,
    saved_round_trips,
    upper_bound_saved_ms,
    usable_durations_ms,
)
from wavemetrics.schema import SCHEMA_KIND, SUMMARY_FIELDS, V1_PROPERTIES
from wavemetrics.waves import WaveAssembly

__all__ = ["ParallelismSummary", "merge_summaries", "merge_two", "summarize", "to_event"]


@attrs.frozen
class ParallelismSummary:
    """Figures of one lane (or a merge of lanes), named as the v1 properties.

    Durations are float ms, counts are ints, ``non_eval_wave_size_histogram`` is
    the encoded 8-position string. Attributes after ``upper_bound_saved_ms`` are
    wavemetrics extras, never on the wire. ``a + b`` merges (section 8); the
    all-zero ``ParallelismSummary()`` is the identity of the merge.
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


def summarize(
    assembly: WaveAssembly,
    *,
    measured_turn_duration_ms_total: float = 0.0,
    eval_tool_names: Iterable[str] = EVAL_TOOL_NAMES,
) -> ParallelismSummary:
    """Summarise one lane's waves: one pass in wave order (section 5).

    ``measured_turn_duration_ms_total`` (ms) is passed through (see
    :func:`wavemetrics.measured_turn_duration_ms`). A mixed wave only counts
    in ``mixed_waves`` and the joined-call extras: it is never stripped of its
    eval calls and folded into the non_eval figures. All float sums are naive
    left-to-right accumulations in wave order.

    Raises ``ValueError`` if ``measured_turn_duration_ms_total`` is a bool, negative or
    not finite, and ``TypeError`` if ``eval_tool_names`` is a single ``str``.
    """
    turn_total = measured_turn_duration_ms_total
    if isinstance(turn_total, bool) or not math.isfinite(turn_total) or turn_total < 0:
        raise ValueError("measured_turn_duration_ms_total must be finite and >= 0")
    # tuple("eval") would be the letters e, v, a, l, each an eval name.
    if isinstance(eval_tool_names, str):
        raise TypeError("eval_tool_names is a collection of names, not one str")
    eval_names = tuple(eval_tool_names)
    histogram = [0] * HISTOGRAM_BUCKETS
    non_eval_waves = []
    eval_only_waves = mixed_waves = 0
    eval_only_duration = 0.0
    eval_outer = mixed_other = non_eval_joined = multi = 0
    tool_time = 0.0
    for wave in assembly.waves:
        for duration in usable_durations_ms(wave):
            tool_time += duration
        names = [call.tool_name for call in wave.calls]
        bucket = classify_wave(names, eval_names)
        if bucket is WaveBucket.EVAL_ONLY:
            eval_only_waves += 1
            if math.isfinite(wave.span_ms):
                eval_only_duration += wave.span_ms
            eval_outer += len(names)
        elif bucket is WaveBucket.MIXED:
            mixed_waves += 1
            evals = sum(1 for name in names if is_eval_tool_name(name, eval_names))
            eval_outer += evals
            mixed_other += len(names) - evals
        else:
            non_eval_waves.append(wave)
            size = len(names)
            non_eval_joined += size
            if size > 1:
                multi += 1
            if size > 0:
                histogram[wave_size_bucket(size)] += 1
    modeled = upper = 0.0
    for wave in non_eval_waves:
        modeled += modeled_wallclock_saved_ms(wave)
        upper += upper_bound_saved_ms(wave)
    counters = assembly.counters
    return ParallelismSummary(
        clock_anomalies=counters.clock_anomalies,
        dropped_calls=counters.dropped_calls,
        eval_only_duration_ms=eval_only_duration,
        eval_only_waves=eval_only_waves,
        incomplete_calls=counters.incomplete_calls,
        measured_turn_duration_ms_total=float(measured_turn_duration_ms_total),
        mixed_waves=mixed_waves,
        modeled_wallclock_saved_ms=modeled,
        non_eval_joined_calls=non_eval_joined,
        non_eval_saved_round_trips=saved_round_trips(non_eval_waves),
        non_eval_wave_size_histogram=encode_histogram(histogram),
        non_eval_waves_multi=multi,
        non_eval_waves_total=len(non_eval_waves),
        upper_bound_saved_ms=upper,
        observed_calls=counters.observed_calls,
        paired_calls=counters.paired_calls,
        malformed_observations=counters.malformed_observations,
        duplicate_starts=counters.duplicate_starts,
        orphan_ends=counters.orphan_ends,
        eval_outer_joined_calls=eval_outer,
        mixed_non_eval_joined_calls=mixed_other,
        tool_time_ms=tool_time,
    )


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
    """Merge two summaries: counters and sums add, histograms add by position (section 8)."""
    values: dict[str, Any] = {}
    for name in SUMMARY_FIELDS:
        a, b = getattr(left, name), getattr(right, name)
        if name == "non_eval_wave_size_histogram":
            values[name] = add_histograms(a, b)
        else:
            values[name] = a + b
    return ParallelismSummary(**values)


def merge_summaries(summaries: Iterable[ParallelismSummary]) -> ParallelismSummary:
    """Merge any number of summaries left to right; ``ParallelismSummary()`` for none.

    Associative and commutative; exactly so when every float sum is exact
    (e.g. integer ms below 2**53), otherwise up to rounding in the last bits.
    """
    total = ParallelismSummary()
    for summary in summaries:
        total = merge_two(total, summary)
    return total
