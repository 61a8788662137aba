"""Slicing lanes by time: the ``--since``/``--until`` window and ``--by day|week|month``.

A wave is never cut in two (docs/cli.md "Time windows"): the waves
of a lane are first built from all its calls; each paired call then takes the
time of the start of its wave (its earliest call start), so all calls of a wave
fall on the same side of any boundary. A wave that crosses ``--since`` or
``--until``, or midnight, belongs wholly to the window or group where it
starts. A call is its own pair of observations, not its id: an id reused after
pairing (events inputs) names two calls, each placed by its own wave.
An end before its start (a clock anomaly) goes with that start. Other
observations not in a paired call (a start without an end, a replaced start,
an end without a start) go by their own time, and such an end goes first in
its part, so that it stays an orphan there: a part pairs exactly the calls of
the whole lane that it holds, and counts its clock anomalies. The lane's measured turn
time, a total without times, goes with the lane's earliest call start; each measured
turn interval (section 9's idle time and lane span) goes with the part where it starts,
if that part holds an observation (a turn alone makes no part). The kept
observations then go through the ordinary assembly and summary, unchanged.

The native command cuts a ``--since``/``--until`` window with a Rust twin of
:func:`window_lane` (``native/core/src/window.rs``); ``tests/test_fastpath.py`` holds
the two to the same bytes on generated lanes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import attrs

from wavemetrics.core.observations import Observation, pair_observations, validate_observation
from wavemetrics.core.waves import group_waves
from wavemetrics.run.pipeline import Lane, StreamedLane

__all__ = ["partition_lane", "window_lane"]

K = TypeVar("K", bound=Hashable)


def _time(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


@attrs.frozen
class _Positions:
    """Where the observations of a lane went in pairing (positions in the lane)."""

    calls: dict[int, int]  # start and end of a paired call -> its index in pairing order
    anomalies: dict[int, int]  # an end before its start -> the position of that start


def _positions(observations: Sequence[object]) -> _Positions:
    """The pairing rules of :func:`~wavemetrics.core.observations.pair_observations`
    (unbounded), replayed on positions, since a reused id names several calls."""
    pending: dict[str, tuple[int, float]] = {}
    calls: dict[int, int] = {}
    anomalies: dict[int, int] = {}
    for position, item in enumerate(observations):
        valid = validate_observation(item)
        if valid is None:
            continue
        kind, call_id, _, at_ms = valid
        if kind == "start":
            pending[call_id] = (position, at_ms)
            continue
        start = pending.pop(call_id, None)
        if start is None:
            continue
        if at_ms < start[1]:
            anomalies[position] = start[0]
        else:
            calls[start[0]] = calls[position] = len(calls) // 2
    return _Positions(calls, anomalies)


def partition_lane(lane: Lane | StreamedLane, key_of: Callable[[float], K]) -> dict[K, Lane]:
    """Split a batch lane (with its observations) into one lane per key, in order of
    first appearance; ``key_of(ms)`` gives the key of a time (see the module doc).

    Observations keep their order; an observation without a usable time goes
    with the lane's earliest start. Raises ``ValueError`` for a streamed lane.
    """
    if isinstance(lane, StreamedLane):
        raise ValueError("a lane summarised while streaming has no calls to slice")
    observations = lane.observations
    calls = pair_observations(observations, max_tracked_calls=None).calls
    wave_start: dict[int, float] = {}  # id() of a paired call -> the start of its wave
    for wave in group_waves(calls):
        start = min(call.start_ms for call in wave.calls)
        wave_start.update((id(call), start) for call in wave.calls)
    placed = _positions(observations)
    starts = [t for o in observations
              if o.kind == "start" and (t := _time(o.at_ms)) is not None]
    times = starts or [t for o in observations if (t := _time(o.at_ms)) is not None]
    home = key_of(min(times)) if times else None
    parts: dict[K, list[Observation]] = {}
    orphans: dict[K, list[Observation]] = {}
    for position, item in enumerate(observations):
        index = placed.calls.get(position)
        if index is not None:
            at: float | None = wave_start[id(calls[index])]
        else:  # an end before its start goes with that start
            at = _time(observations[placed.anomalies.get(position, position)].at_ms)
        key = key_of(at) if at is not None else home
        if key is None:
            continue
        parts.setdefault(key, [])
        if index is None and item.kind == "end" and position not in placed.anomalies:
            orphans.setdefault(key, []).append(item)
        else:
            parts[key].append(item)
    for key, ends in orphans.items():
        parts[key] = ends + parts[key]
    if home is not None and home not in parts and lane.measured_turn_duration_ms_total:
        parts[home] = []
    turns: dict[K, list[tuple[float, float]]] = {}
    for interval in lane.turn_intervals:
        turns.setdefault(key_of(interval[0]), []).append(interval)
    return {
        key: attrs.evolve(
            lane,
            observations=tuple(items),
            measured_turn_duration_ms_total=(
                lane.measured_turn_duration_ms_total if key == home else 0.0
            ),
            turn_intervals=tuple(turns.get(key, ())),
        )
        for key, items in parts.items()
    }


def window_lane(lane: Lane, since_ms: float | None, until_ms: float | None) -> Lane | None:
    """The part of a batch lane in ``[since_ms, until_ms)`` (either bound may be open),
    or ``None`` when nothing of the lane is in the window."""

    def inside(at_ms: float) -> bool:
        return (since_ms is None or at_ms >= since_ms) and (until_ms is None or at_ms < until_ms)

    return partition_lane(lane, inside).get(True)
