"""Waves: connected components of overlapping calls (``docs/metrics.md`` section 2)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import attrs

from wavemetrics.core.exceptions import reject_path
from wavemetrics.core.observations import (
    DEFAULT_MAX_TRACKED_CALLS,
    ToolCall,
    WaveCounters,
    pair_observations,
)

__all__ = [
    "Wave",
    "WaveAssembly",
    "assemble_waves",
    "group_waves",
    "peak_concurrency",
    "wave_from_calls",
    "wave_span_ms",
]


@attrs.frozen
class Wave:
    """A group of calls whose closed intervals are connected.

    ``calls`` are in wave order (sorted by ``(start_ms, end_ms)``, stable);
    ``span_ms`` is ``max(end_ms) - min(start_ms)`` in ms; ``max_concurrency`` is
    the peak number of calls running at once (section 2).
    """

    calls: tuple[ToolCall, ...]
    span_ms: float
    max_concurrency: int

    @property
    def size(self) -> int:
        """Number of calls in the wave."""
        return len(self.calls)


@attrs.frozen
class WaveAssembly:
    """Waves of one lane in order of their first call, and the pairing counters.

    ``calls``: the paired calls in pairing order, and ``incomplete_starts_ms``: the
    start times (ms) of calls still pending at the end, for the section-9 figures
    (:func:`assemble_waves` fills both; an assembly built by hand may leave them empty).
    """

    waves: tuple[Wave, ...]
    counters: WaveCounters
    calls: tuple[ToolCall, ...] = ()
    incomplete_starts_ms: tuple[float, ...] = ()


def wave_span_ms(calls: Sequence[ToolCall]) -> float:
    """``max(end_ms) - min(start_ms)`` over ``calls``; ``0.0`` for no calls.

    >>> wave_span_ms([ToolCall("a", "t", 2, 5), ToolCall("b", "t", 3, 9)])
    7
    """
    if not calls:
        return 0.0
    return max(c.end_ms for c in calls) - min(c.start_ms for c in calls)


def peak_concurrency(calls: Iterable[ToolCall]) -> int:
    """Peak of a sweep over ``(start, +1)`` and ``(end, -1)`` points.

    Points are sorted by time, then delta ascending, so at equal times ends come
    before starts: touching calls never count as concurrent, and a wave of only
    zero-length calls at one instant has peak 0 (section 2).

    >>> peak_concurrency([ToolCall("a", "t", 0, 5), ToolCall("b", "t", 5, 9)])
    1
    """
    points: list[tuple[float, int]] = []
    for call in calls:
        points.append((call.start_ms, 1))
        points.append((call.end_ms, -1))
    points.sort()
    running = peak = 0
    for _, delta in points:
        running += delta
        peak = max(peak, running)
    return peak


def wave_from_calls(calls: Sequence[ToolCall]) -> Wave:
    """Build a :class:`Wave` from calls already in wave order, computing span and peak."""
    return Wave(tuple(calls), wave_span_ms(calls), peak_concurrency(calls))


def group_waves(calls: Iterable[ToolCall]) -> tuple[Wave, ...]:
    """Group paired calls into waves over closed intervals.

    Stable sort by ``(start_ms, end_ms)``; a call opens a new wave iff the
    current wave is non-empty and its start is strictly after the reach (the
    largest end so far), so calls that only touch share a wave (section 2).

    >>> [w.size for w in group_waves([ToolCall("a", "t", 0, 5), ToolCall("b", "t", 5, 6),
    ...                               ToolCall("c", "t", 7, 8)])]
    [2, 1]
    """
    ordered = sorted(calls, key=lambda c: (c.start_ms, c.end_ms))
    waves: list[Wave] = []
    current: list[ToolCall] = []
    reach = -math.inf
    for call in ordered:
        if current and call.start_ms > reach:
            waves.append(wave_from_calls(current))
            current = []
        current.append(call)
        reach = max(reach, call.end_ms)
    if current:
        waves.append(wave_from_calls(current))
    return tuple(waves)


def assemble_waves(
    observations: Iterable[object],
    *,
    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
) -> WaveAssembly:
    """Pair observations (section 1) and group the paired calls into waves (section 2).

    ``observations``: :class:`~wavemetrics.Observation` objects or mappings with
    keys ``kind``, ``call_id``, ``tool_name``, ``at_ms`` (ms), in arrival order.
    Invalid elements are counted in ``counters.malformed_observations``, never
    raised. ``max_tracked_calls``: the v1 cap (default 2000); ``None`` or ``0``
    means unbounded. Raises ``TypeError``/``ValueError`` only for a bad cap, and
    ``TypeError`` when ``observations`` is a path (a ``str`` or ``os.PathLike``: the
    message names :func:`wavemetrics.summarize_paths`, which reads trace files).

    >>> a = assemble_waves([
    ...     {"kind": "start", "call_id": "a", "tool_name": "read", "at_ms": 0},
    ...     {"kind": "start", "call_id": "b", "tool_name": "grep", "at_ms": 1},
    ...     {"kind": "end", "call_id": "a", "tool_name": "read", "at_ms": 10},
    ...     {"kind": "end", "call_id": "b", "tool_name": "grep", "at_ms": 4},
    ... ])
    >>> [(w.size, w.span_ms, w.max_concurrency) for w in a.waves]
    [(2, 10, 2)]
    """
    reject_path(observations, "assemble_waves", "observations")
    pairing = pair_observations(observations, max_tracked_calls=max_tracked_calls)
    return WaveAssembly(
        group_waves(pairing.calls), pairing.counters, pairing.calls, pairing.incomplete_starts_ms
    )
