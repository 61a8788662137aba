"""Per-wave savings and saved round trips (``docs/metrics.md`` section 3)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from wavemetrics.core.waves import Wave

__all__ = [
    "modeled_wallclock_saved_ms",
    "naive_sum",
    "saved_round_trips",
    "upper_bound_saved_ms",
    "usable_durations_ms",
]


def naive_sum(values: Iterable[float]) -> float:
    """Plain left-to-right float accumulation starting at 0.

    The contract's "sum": not ``math.fsum`` and not ``sum()``, which compensates
    on Python 3.12+. The result is the double that naive accumulation gives.

    >>> naive_sum([0.1, 0.2, 0.3])
    0.6000000000000001
    """
    total = 0.0
    for value in values:
        total += value
    return total


def usable_durations_ms(wave: Wave) -> list[float]:
    """``end_ms - start_ms`` of each call with finite times and ``end >= start``, in wave order."""
    durations: list[float] = []
    for call in wave.calls:
        start, end = call.start_ms, call.end_ms
        if math.isfinite(start) and math.isfinite(end) and end >= start:
            durations.append(end - start)
    return durations


def modeled_wallclock_saved_ms(wave: Wave) -> float:
    """Modeled wall-clock saving of a wave in ms: ``S - span_ms``, never clamped.

    ``S`` is the naive sum of the usable durations (section 3); 0 when fewer than
    two durations are usable or the wave's span is not finite. May be negative.

    >>> from wavemetrics.core.observations import ToolCall
    >>> from wavemetrics.core.waves import wave_from_calls
    >>> modeled_wallclock_saved_ms(wave_from_calls([ToolCall("a", "t", 0, 10),
    ...                                             ToolCall("b", "t", 2, 6)]))
    4.0
    """
    durations = usable_durations_ms(wave)
    if len(durations) <= 1 or not math.isfinite(wave.span_ms):
        return 0.0
    return naive_sum(durations) - wave.span_ms


def upper_bound_saved_ms(wave: Wave) -> float:
    """Upper-bound saving of a wave in ms: ``(n - 1) * (S / n)``; 0 when ``n <= 1``.

    >>> from wavemetrics.core.observations import ToolCall
    >>> from wavemetrics.core.waves import wave_from_calls
    >>> upper_bound_saved_ms(wave_from_calls([ToolCall("a", "t", 0, 10),
    ...                                       ToolCall("b", "t", 2, 6)]))
    7.0
    """
    durations = usable_durations_ms(wave)
    n = len(durations)
    if n <= 1:
        return 0.0
    return (n - 1) * (naive_sum(durations) / n)


def saved_round_trips(waves: Iterable[Wave]) -> int:
    """Sum of ``max(max_concurrency - 1, 0)`` over waves whose peak is finite.

    >>> from wavemetrics.core.observations import ToolCall
    >>> from wavemetrics.core.waves import wave_from_calls
    >>> saved_round_trips([wave_from_calls([ToolCall("a", "t", 0, 9), ToolCall("b", "t", 1, 2),
    ...                                     ToolCall("c", "t", 1, 3)])])
    2
    """
    total = 0
    for wave in waves:
        peak = wave.max_concurrency
        if math.isfinite(peak):
            total += max(peak - 1, 0)
    return total
