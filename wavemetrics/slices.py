"""Slicing lanes by time: the ``--since``/``--until`` window and ``--by day|week|month``.

A wave is never cut in two (docs/cli.md "Time windows"): the waves
of a lane are first built from all its calls; each paired call then takes the
time of the start of its wave (its earliest call start), so all calls of a wave
fall on the same side of any boundary. A wave that crosses ``--since`` or
``--until``, or midnight, belongs wholly to the window or group where it
starts. Observations not in a paired call (a start without an end, an end
without a start) go by their own time. The lane's measured turn time, a total
without times, goes with the lane's earliest call start. The kept observations
then go through the ordinary assembly and summary, unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import TypeVar

import attrs

from wavemetrics.observations import Observation
from wavemetrics.pipeline import Lane, StreamedLane
from wavemetrics.waves import assemble_waves

__all__ = ["partition_lane", "window_lane"]

K = TypeVar("K", bound=Hashable)


def _time(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def partition_lane(lane: Lane | StreamedLane, key_of: Callable[[float], K]) -> dict[K, Lane]:
    """Split a batch lane (with its observations) into one lane per key, in order of
    first appearance; ``key_of(ms)`` gives the key of a time (see the module doc).

    Observations keep their order; an observation without a usable time goes
    with the lane's earliest start. Raises ``ValueError`` for a streamed lane.
    """
    if isinstance(lane, StreamedLane):
        raise ValueError("a lane summarised while streaming has no calls to slice")
    assembly = assemble_waves(lane.observations, max_tracked_calls=None)
    wave_start: dict[str, float] = {}
    for wave in assembly.waves:
        start = min(call.start_ms for call in wave.calls)
        for call in wave.calls:
            wave_start[call.call_id] = start
    starts = [t for o in lane.observations
              if o.kind == "start" and (t := _time(o.at_ms)) is not None]
    times = starts or [t for o in lane.observations if (t := _time(o.at_ms)) is not None]
    home = key_of(min(times)) if times else None
    parts: dict[K, list[Observation]] = {}
    for item in lane.observations:
        at = wave_start.get(item.call_id) if isinstance(item.call_id, str) else None
        if at is None:
            at = _time(item.at_ms)
        key = key_of(at) if at is not None else home
        if key is None:
            continue
        parts.setdefault(key, []).append(item)
    if home is not None and home not in parts and lane.measured_turn_duration_ms_total:
        parts[home] = []
    return {
        key: attrs.evolve(
            lane,
            observations=tuple(items),
            measured_turn_duration_ms_total=(
                lane.measured_turn_duration_ms_total if key == home else 0.0
            ),
        )
        for key, items in parts.items()
    }


def window_lane(lane: Lane, since_ms: float | None, until_ms: float | None) -> Lane | None:
    """The part of a batch lane in ``[since_ms, until_ms)`` (either bound may be open),
    or ``None`` when nothing of the lane is in the window."""

    def inside(at_ms: float) -> bool:
        return (since_ms is None or at_ms >= since_ms) and (until_ms is None or at_ms < until_ms)

    return partition_lane(lane, inside).get(True)
