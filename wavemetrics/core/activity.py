"""Turns, missed batching and where the time went (``docs/metrics.md`` section 9).

Every figure here is an extra: none changes a v1 value. They are computed per lane
from its paired calls in pairing order (each with the key of the model response that
issued it, its *batch*, or none), its waves in wave order, its measured turn intervals
and its incomplete starts, by one :class:`ActivityAccumulator` that both the batch
path (:func:`~wavemetrics.summarize`) and the streaming path
(:class:`~wavemetrics.core.stream.LaneStream`) feed, so the two give the same bits.

Memory: one entry per batch (the key, its earliest start, the pairing index of its
first call, its width, and the one call of a batch of width 1); waves are folded into
*blocks* as they come (a wave starting at most ``idle_gap_ms`` after the block's end
joins it: no gap inside a block can count as idle, so a block stands for its waves);
measured turn intervals are kept (a lane has few).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any, Literal, get_args

from wavemetrics.core.classify import (
    EVAL_TOOL_NAMES,
    check_eval_names,
    is_eval_tool_name,
    tool_name_matches,
)
from wavemetrics.core.histogram import HISTOGRAM_BUCKETS, encode_histogram, wave_size_bucket

__all__ = [
    "ACTIVITY_FIGURES",
    "BATCHABLE_TOOL_NAMES",
    "DEFAULT_IDLE_GAP_MS",
    "TIMINGS",
    "ActivityAccumulator",
    "Timing",
    "check_idle_gap",
    "is_batchable_tool_name",
]

#: Tools whose calls a model could have issued together (section 9): reads and searches.
BATCHABLE_TOOL_NAMES: tuple[str, ...] = (
    "read", "read_file", "view", "grep", "glob", "ls", "list", "list_dir",
    "list_directory", "find", "search", "search_files", "webfetch", "web_fetch",
    "websearch", "web_search",
)

#: The default gap (ms) after which the lane counts as idle: 5 minutes (section 9).
DEFAULT_IDLE_GAP_MS = 300000.0

#: Where a call's times come from (section 9, "Timing provenance").
Timing = Literal["execution", "message"]
TIMINGS: tuple[str, ...] = get_args(Timing)

#: The section-9 figures, in the order of the figure table (``core/schema.py``).
ACTIVITY_FIGURES: tuple[str, ...] = (
    "calls_without_batch",
    "batched_turns",
    "multi_call_turns",
    "turn_width_histogram",
    "max_turn_width",
    "missed_batch_runs",
    "missed_batch_calls",
    "missed_batch_round_trips",
    "missed_batch_upper_ms",
    "lane_span_ms",
    "tool_busy_ms",
    "idle_ms",
    "calls_timed_by_execution",
    "calls_timed_by_message",
)


def is_batchable_tool_name(
    tool_name: str,
    batchable_tool_names: Iterable[str] = BATCHABLE_TOOL_NAMES,
    eval_tool_names: Iterable[str] = EVAL_TOOL_NAMES,
) -> bool:
    """Whether ``tool_name`` is batchable (section 9, "Missed batching").

    Its normal form (section 4) equals a batchable name's normal form or ends with
    ``"_"``, ``":"`` or ``"/"`` followed by one, and it is not an eval name (section 4).
    Raises ``TypeError`` if either list is a single ``str``.

    >>> is_batchable_tool_name("Read"), is_batchable_tool_name("mcp__fs__read_file")
    (True, True)
    >>> is_batchable_tool_name("Bash"), is_batchable_tool_name("thread")
    (False, False)
    """
    return tool_name_matches(tool_name, batchable_tool_names) and not is_eval_tool_name(
        tool_name, eval_tool_names
    )


def check_idle_gap(idle_gap_ms: float) -> float:
    """``idle_gap_ms`` as a float; raises ``ValueError`` unless finite and ``>= 0``
    (``TypeError`` for a bool or a non-number). ``0`` disables idle detection."""
    if isinstance(idle_gap_ms, bool) or not isinstance(idle_gap_ms, (int, float)):
        raise TypeError("idle_gap_ms must be a number of ms")
    if not math.isfinite(idle_gap_ms) or idle_gap_ms < 0:
        raise ValueError("idle_gap_ms must be finite and >= 0 (0 disables idle detection)")
    return float(idle_gap_ms)


class _Batch:
    """One batch of a lane: its earliest start, the pairing index of its first paired
    call, its width, and while its width is 1, that call's times and batchability."""

    __slots__ = ("batchable", "end_ms", "first", "start_ms", "width")

    def __init__(self, first: int, start_ms: float, end_ms: float, batchable: bool) -> None:
        self.first = first
        self.start_ms = start_ms
        self.end_ms = end_ms
        self.batchable = batchable
        self.width = 1


class ActivityAccumulator:
    """The section-9 figures of one lane, fed as the lane is assembled.

    Feed :meth:`call` with every paired call in pairing order, :meth:`wave` with every
    wave in wave order, :meth:`turn` with every measured turn interval, and
    :meth:`incomplete_start` with the start of every call still pending at the end;
    :meth:`result` gives the figures by name. Times are ms. ``idle_gap_ms``: a gap
    between the lane's activity intervals longer than this counts as idle, and ends a
    serial run; ``0`` disables both. Raises ``TypeError``/``ValueError`` for bad
    parameters (:func:`check_idle_gap`; a name list given as one ``str``).
    """

    def __init__(
        self,
        batchable_tool_names: Iterable[str] = BATCHABLE_TOOL_NAMES,
        eval_tool_names: Iterable[str] = EVAL_TOOL_NAMES,
        idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
    ) -> None:
        self.batchable_names = tuple(check_eval_names(batchable_tool_names))
        self.eval_names = tuple(check_eval_names(eval_tool_names))
        self.idle_gap_ms = check_idle_gap(idle_gap_ms)
        self._batchable_memo: dict[str, bool] = {}
        self.batches: dict[str, _Batch] = {}
        self.calls = 0
        self.calls_without_batch = 0
        self.tool_busy_ms = 0.0
        self.earliest = math.inf
        self.latest = -math.inf
        # waves folded into blocks [start, end]: gaps inside a block are <= idle_gap_ms
        self.blocks: list[list[float]] = []
        self.turns: list[tuple[float, float]] = []

    def state(self) -> dict[str, Any]:
        """Everything this accumulator holds, as plain lists and numbers (a live state,
        ``wavemetrics.cache.live``); :meth:`from_state` gives it back."""
        return {
            "batchable_names": list(self.batchable_names),
            "eval_names": list(self.eval_names),
            "idle_gap_ms": self.idle_gap_ms,
            "batches": [[key, b.first, b.start_ms, b.end_ms, b.batchable, b.width]
                        for key, b in self.batches.items()],
            "counts": [self.calls, self.calls_without_batch, self.tool_busy_ms,
                       self.earliest, self.latest],
            "blocks": [list(block) for block in self.blocks],
            "turns": [list(turn) for turn in self.turns],
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> ActivityAccumulator:
        """The accumulator :meth:`state` described. Raises ``KeyError``/``ValueError``/
        ``TypeError`` for a state of another shape."""
        accumulator = cls(state["batchable_names"], state["eval_names"], state["idle_gap_ms"])
        for key, first, start_ms, end_ms, batchable, width in state["batches"]:
            batch = _Batch(int(first), float(start_ms), float(end_ms), bool(batchable))
            batch.width = int(width)
            accumulator.batches[str(key)] = batch
        calls, without, busy, earliest, latest = state["counts"]
        accumulator.calls, accumulator.calls_without_batch = int(calls), int(without)
        accumulator.tool_busy_ms = float(busy)
        accumulator.earliest, accumulator.latest = float(earliest), float(latest)
        accumulator.blocks = [[float(a), float(b)] for a, b in state["blocks"]]
        accumulator.turns = [(float(a), float(b)) for a, b in state["turns"]]
        return accumulator

    def is_batchable(self, tool_name: str) -> bool:
        """:func:`is_batchable_tool_name` with this lane's lists, remembered per name."""
        known = self._batchable_memo.get(tool_name)  # pragma: no mutate (a memo: a miss recomputes)
        if known is None:
            known = is_batchable_tool_name(tool_name, self.batchable_names, self.eval_names)
            self._batchable_memo[tool_name] = known  # pragma: no mutate (a memo: same answer)
        return known

    def _see(self, start_ms: float, end_ms: float) -> None:
        self.earliest = min(self.earliest, start_ms)
        self.latest = max(self.latest, end_ms)

    def call(self, tool_name: str, start_ms: float, end_ms: float, batch: str | None) -> None:
        """One paired call (``end_ms >= start_ms``), in pairing order."""
        index = self.calls
        self.calls += 1
        self._see(start_ms, end_ms)
        if batch is None:
            self.calls_without_batch += 1
            return
        known = self.batches.get(batch)
        if known is None:
            self.batches[batch] = _Batch(index, start_ms, end_ms, self.is_batchable(tool_name))
            return
        known.width += 1
        known.start_ms = min(known.start_ms, start_ms)

    def wave(self, start_ms: float, end_ms: float) -> None:
        """One wave, in wave order: its first start and its reach (largest end)."""
        self.tool_busy_ms += end_ms - start_ms
        if self.idle_gap_ms == 0:
            return
        blocks, gap_limit = self.blocks, self.idle_gap_ms
        # (folding is memory only: a block boundary at a gap <= idle_gap_ms counts nothing,
        # so a fold at any such gap, or none, gives the same idle time)
        if blocks and start_ms - blocks[-1][1] <= gap_limit:  # pragma: no mutate (memory only)
            blocks[-1][1] = max(blocks[-1][1], end_ms)
        else:
            blocks.append([start_ms, end_ms])

    def turn(self, start_ms: float, end_ms: float) -> None:
        """One measured turn interval: used when both times are finite and the turn
        has a positive length (the turns that count in the turn total, section 6)."""
        if math.isfinite(start_ms) and math.isfinite(end_ms) and end_ms > start_ms:
            self._see(start_ms, end_ms)
            self.turns.append((start_ms, end_ms))

    def incomplete_start(self, at_ms: float) -> None:
        """The start of a call still pending when the lane ended."""
        self._see(at_ms, at_ms)

    def result(self, timing: Timing = "execution") -> dict[str, Any]:
        """The section-9 figures by name (:data:`ACTIVITY_FIGURES`); ``timing``: the
        provenance of every paired call of the lane (raises ``ValueError`` for another)."""
        if timing not in TIMINGS:
            raise ValueError(f"timing must be one of {TIMINGS}, got {timing!r}")
        ordered = self._ordered()
        histogram = [0] * HISTOGRAM_BUCKETS
        widest = multi = 0
        for batch in ordered:
            histogram[wave_size_bucket(batch.width)] += 1
            widest = max(widest, batch.width)
            multi += batch.width >= 2
        figures: dict[str, Any] = {
            "calls_without_batch": self.calls_without_batch,
            "batched_turns": len(ordered),
            "multi_call_turns": multi,
            "turn_width_histogram": encode_histogram(histogram),
            "max_turn_width": widest,
        }
        figures.update(self._missed(ordered))
        span = float(max(0.0, self.latest - self.earliest))  # none or one time: 0.0
        figures["lane_span_ms"] = span
        figures["tool_busy_ms"] = self.tool_busy_ms
        figures["idle_ms"] = self._idle()
        figures["calls_timed_by_execution"] = self.calls if timing == "execution" else 0
        figures["calls_timed_by_message"] = self.calls if timing == "message" else 0
        return figures

    def _ordered(self) -> list[_Batch]:
        """The batches in batch order: earliest start, ties by first pairing index."""
        return sorted(self.batches.values(), key=lambda b: (b.start_ms, b.first))

    def _runs(self, ordered: list[_Batch]) -> Iterator[list[_Batch]]:
        """Every run the walk in batch order closes, short ones (``k < 2``) included."""
        run: list[_Batch] = []
        for batch in ordered:
            if batch.width != 1 or not batch.batchable:
                yield run
                run = []
                continue
            if run and self.idle_gap_ms > 0 and batch.start_ms - run[-1].end_ms > self.idle_gap_ms:
                yield run
                run = []
            run.append(batch)
        yield run

    def _missed(self, ordered: list[_Batch]) -> dict[str, Any]:
        """Serial runs of single batchable calls, walked in batch order."""
        totals: dict[str, Any] = {
            "missed_batch_runs": 0,
            "missed_batch_calls": 0,
            "missed_batch_round_trips": 0,
            "missed_batch_upper_ms": 0.0,
        }
        for run in self._runs(ordered):
            _close_run(run, totals)
        return totals

    def serial_runs(self) -> list[list[int]]:
        """The counted serial runs (``k >= 2``, section 9, "Missed batching"), in batch
        order: each as the pairing indices (0-based, the order :meth:`call` was fed) of
        its calls, in batch order. The runs ``missed_batch_runs`` counts, by the same walk."""
        return [[batch.first for batch in run] for run in self._runs(self._ordered())
                if len(run) >= 2]

    def _idle(self) -> float:
        if self.idle_gap_ms == 0:
            return 0.0
        intervals = sorted([*(tuple(b) for b in self.blocks), *self.turns])
        idle = 0.0
        if not intervals:
            return idle
        reach = intervals[0][1]
        for start_ms, end_ms in intervals[1:]:
            gap = start_ms - reach  # <= 0 when it overlaps or touches: never idle
            if gap > self.idle_gap_ms:
                idle += gap
            reach = max(reach, end_ms)
        return idle


def _close_run(run: list[_Batch], totals: dict[str, Any]) -> None:
    """Count a serial run of ``k >= 2`` single-call batches (section 9); shorter: nothing."""
    k = len(run)
    if k < 2:
        return
    totals["missed_batch_runs"] += 1
    totals["missed_batch_calls"] += k
    totals["missed_batch_round_trips"] += k - 1
    span = max(b.end_ms for b in run) - min(b.start_ms for b in run)
    totals["missed_batch_upper_ms"] += span - max(b.end_ms - b.start_ms for b in run)
