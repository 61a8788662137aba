"""Measured turn time of a lane (``docs/metrics.md`` section 6, "Turn durations")."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["TurnClock", "measured_turn_duration_ms"]


def measured_turn_duration_ms(turn_events: Iterable[tuple[str, float]]) -> float:
    """Sum of positive ``end - start`` over paired turn events, in ms.

    ``turn_events``: ``("turn_start" | "turn_end", at_ms)`` in arrival order. A
    start sets the pending start (a second start overwrites it); an end with a
    pending start adds ``end - start`` when positive and clears the pending
    start; an end without one is ignored. Other kinds are ignored. Naive
    left-to-right accumulation from 0.

    >>> measured_turn_duration_ms([("turn_start", 0), ("turn_start", 5), ("turn_end", 9),
    ...                            ("turn_end", 20), ("turn_start", 30), ("turn_end", 25)])
    4.0
    """
    # One implementation of the rules: the streaming readers' TurnClock.
    clock = TurnClock()
    for kind, at_ms in turn_events:
        clock.add(kind, at_ms)
    return clock.total_ms


class TurnClock:
    """:func:`measured_turn_duration_ms` one event at a time, for streaming readers.

    >>> clock = TurnClock()
    >>> for kind, at in [("turn_start", 0), ("turn_start", 5), ("turn_end", 9)]:
    ...     clock.add(kind, at)
    >>> clock.total_ms, clock.intervals
    (4.0, [(5, 9)])
    """

    def __init__(self) -> None:
        self.total_ms = 0.0
        #: The measured turns as ``(start_ms, end_ms)``, in the order they ended: the
        #: turns that counted in :attr:`total_ms` (``docs/metrics.md`` section 9, idle).
        self.intervals: list[tuple[float, float]] = []
        self._pending: float | None = None

    def add(self, kind: str, at_ms: float) -> None:
        """One turn event, with the rules of :func:`measured_turn_duration_ms`."""
        if kind == "turn_start":
            self._pending = at_ms
        elif kind == "turn_end" and self._pending is not None:
            duration = at_ms - self._pending
            # (>= adds only zeros to the total, and zero-length intervals, which the
            # section-9 accumulator drops: ActivityAccumulator.turn)
            if duration > 0:  # pragma: no mutate (zero lengths: see above)
                self.total_ms += duration
                self.intervals.append((self._pending, at_ms))
            self._pending = None
