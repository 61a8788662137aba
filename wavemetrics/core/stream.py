"""Streaming assembly: waves summarised as soon as no later call can join them.

The batch path (:func:`~wavemetrics.assemble_waves` then
:func:`~wavemetrics.summarize`) holds every paired call of a lane. This path
holds only pending calls and the *open* region (paired calls of waves that may
still grow), and gives bit-identical figures (``docs/metrics.md`` sections
1-5; the property tests compare the two paths).

Why it is exact: waves are emitted in wave order, each sorted as the batch path
sorts it, and the sums run in the same order. A wave is emitted only when its
reach (largest end) is below every pending start and below the largest start
seen so far. If starts arrive in non-decreasing time order (receive-time
streams, span formats fed by start time), no later call can then join it or
sort before it. If a later paired call does start at or before the reach of an
emitted wave, exactness is lost and :class:`StreamOrderError` is raised: the
caller falls back to the batch path for that input.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import attrs

from wavemetrics.core.activity import BATCHABLE_TOOL_NAMES, DEFAULT_IDLE_GAP_MS, Timing
from wavemetrics.core.classify import EVAL_TOOL_NAMES
from wavemetrics.core.exceptions import StreamOrderError
from wavemetrics.core.observations import (
    DEFAULT_MAX_TRACKED_CALLS,
    ToolCall,
    WaveCounters,
    observation_batch,
    validate_observation,
)
from wavemetrics.core.observations import _check_cap as check_cap
from wavemetrics.core.summary import ParallelismSummary, SummaryAccumulator, check_turn_total
from wavemetrics.core.waves import wave_from_calls

__all__ = ["LaneStream", "StreamOrderError", "SummaryAccumulator", "summarize_stream"]

_NEG_INF = -math.inf
#: The pairing counters this stream keeps as attributes of the same name.
_COUNTED = tuple(f.name for f in attrs.fields(WaveCounters) if f.name != "incomplete_calls")
_FIRST_CHECK = 64


class LaneStream:
    """One lane's pairing (section 1) and wave assembly (section 2), incrementally.

    :meth:`start` and :meth:`end` take observations that are already valid (a
    reader's job, ``docs/formats.md``); :meth:`feed` validates any element
    first, like :func:`~wavemetrics.assemble_waves`. :meth:`finish` emits the
    remaining waves and returns the lane's :class:`ParallelismSummary`.
    Raises :class:`StreamOrderError` from :meth:`end`/:meth:`feed` when exactness
    would be lost (see the module docstring). ``flush_every``: how many open
    calls make the first attempt to emit waves (a tuning knob; figures never
    depend on it).
    """

    def __init__(
        self,
        *,
        max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
        eval_tool_names: Iterable[str] = EVAL_TOOL_NAMES,
        flush_every: int = _FIRST_CHECK,
        batchable_tool_names: Iterable[str] = BATCHABLE_TOOL_NAMES,
        idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
    ) -> None:
        self._cap = check_cap(max_tracked_calls)
        self._flush_every = flush_every
        self.summary = SummaryAccumulator(
            eval_tool_names, batchable_tool_names=batchable_tool_names, idle_gap_ms=idle_gap_ms
        )
        self.activity = self.summary.activity
        self.pending: dict[str, tuple[str, float, str | None]] = {}
        # open calls as (start_ms, end_ms, pairing sequence, call_id, tool_name):
        # tuples sort natively by (start, end) and then pairing order, which is
        # the batch path's stable sort (section 2)
        self.open: list[tuple[float, float, int, str, str]] = []
        # the pairing counters, named as their WaveCounters fields (incomplete: pending)
        self.observed_calls = self.paired_calls = self.malformed_observations = 0
        self.dropped_calls = self.duplicate_starts = self.orphan_ends = 0
        self.clock_anomalies = 0
        self.max_start = _NEG_INF
        self.emitted_reach = _NEG_INF
        self._check_at = flush_every

    def start(
        self, call_id: str, tool_name: str, at_ms: float, batch: str | None = None
    ) -> None:
        """A valid start observation (section 1); ``batch``: its issuing response's key."""
        self.observed_calls += 1
        self.max_start = max(self.max_start, at_ms)
        cap = self._cap
        if cap is not None and self.paired_calls + len(self.pending) >= cap:
            self.dropped_calls += 1
            return
        if call_id in self.pending:
            self.duplicate_starts += 1
        self.pending[call_id] = (tool_name, at_ms, batch)

    def end(self, call_id: str, at_ms: float) -> None:
        """A valid end observation (section 1); its own tool name is not needed."""
        start = self.pending.pop(call_id, None)
        if start is None:
            self.orphan_ends += 1
            return
        tool_name, start_ms, batch = start
        if at_ms < start_ms:
            self.clock_anomalies += 1
            return
        if start_ms <= self.emitted_reach:
            raise StreamOrderError(
                f"a call starting at {start_ms} ms would join a wave already summarised"
            )
        self.paired_calls += 1
        self.activity.call(tool_name, start_ms, at_ms, batch)
        self.open.append((start_ms, at_ms, self.paired_calls, call_id, tool_name))
        if len(self.open) >= self._check_at:
            self._emit(self._threshold())
            # amortised: the open region is sorted again only after it doubles
            grown = 2 * len(self.open)  # pragma: no mutate (when to retry: tuning only)
            self._check_at = max(self._flush_every, grown)  # pragma: no mutate (tuning only)

    def feed(self, item: object) -> None:
        """Validate ``item`` like :func:`~wavemetrics.assemble_waves`, then start or end."""
        valid = validate_observation(item)
        if valid is None:
            self.malformed_observations += 1
        elif valid[0] == "start":
            self.start(valid[1], valid[2], valid[3], observation_batch(item))
        else:
            self.end(valid[1], valid[3])

    def _threshold(self) -> float:
        # No later start can come before the largest start seen (if starts are
        # in time order) nor before a pending start.
        earliest = min((start[1] for start in self.pending.values()), default=math.inf)
        return min(self.max_start, earliest)

    def _emit(self, threshold: float) -> None:
        """Emit, in order, the leading waves of the open region whose reach < threshold."""
        ordered = sorted(self.open)  # (start, end, pairing sequence): the batch order
        begin = 0
        reach = _NEG_INF
        for index, (start_ms, end_ms, *_) in enumerate(ordered):
            if index > begin and start_ms > reach:
                if reach >= threshold:
                    break
                self._emit_wave(ordered[begin:index], reach)
                begin = index
            # a new wave starts after the old reach, so max() restarts it too
            reach = max(reach, end_ms)
        else:
            if begin < len(ordered) and reach < threshold:
                self._emit_wave(ordered[begin:], reach)
                begin = len(ordered)
        self.open = ordered[begin:]

    def _emit_wave(self, calls: list[tuple[float, float, int, str, str]], reach: float) -> None:
        if len(calls) == 1:
            start_ms, end_ms, _, _, tool_name = calls[0]
            self.summary.add_single(tool_name, start_ms, end_ms)
        else:
            self.summary.add(wave_from_calls([
                ToolCall(call_id, tool_name, start_ms, end_ms)  # pragma: no mutate (id: never read)
                for start_ms, end_ms, _, call_id, tool_name in calls
            ]))
        self.emitted_reach = reach

    def counters(self) -> WaveCounters:
        """The section 1 counters so far (incomplete = calls still pending)."""
        counts = {name: getattr(self, name) for name in _COUNTED}
        return WaveCounters(incomplete_calls=len(self.pending), **counts)

    def finish(
        self,
        measured_turn_duration_ms_total: float = 0.0,
        turn_intervals: Iterable[tuple[float, float]] = (),
        timing: Timing = "execution",
    ) -> ParallelismSummary:
        """Emit every remaining wave and return the lane's summary; ``turn_intervals``
        and ``timing`` as :func:`~wavemetrics.summarize` takes them (section 9)."""
        self._emit(math.inf)
        for _, start_ms, _ in self.pending.values():
            self.activity.incomplete_start(start_ms)
        for start_ms, end_ms in turn_intervals:
            self.activity.turn(start_ms, end_ms)
        return self.summary.result(
            self.counters(), check_turn_total(measured_turn_duration_ms_total), timing
        )


def summarize_stream(
    observations: Iterable[object],
    *,
    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
    eval_tool_names: Iterable[str] = EVAL_TOOL_NAMES,
    measured_turn_duration_ms_total: float = 0.0,
    turn_intervals: Iterable[tuple[float, float]] = (),
    timing: Timing = "execution",
    batchable_tool_names: Iterable[str] = BATCHABLE_TOOL_NAMES,
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
) -> ParallelismSummary:
    """``summarize(assemble_waves(observations), ...)`` through :class:`LaneStream`.

    Same figures, bounded memory for start-ordered input; raises
    :class:`StreamOrderError` when a call would join an already emitted wave.
    """
    lane = LaneStream(
        max_tracked_calls=max_tracked_calls, eval_tool_names=eval_tool_names,
        batchable_tool_names=batchable_tool_names, idle_gap_ms=idle_gap_ms,
    )
    for item in observations:
        lane.feed(item)
    return lane.finish(measured_turn_duration_ms_total, turn_intervals, timing)
