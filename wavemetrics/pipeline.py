"""Wiring of readers and core: lanes -> waves -> summaries, and the session hash."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence

import attrs

from wavemetrics.classify import EVAL_TOOL_NAMES
from wavemetrics.observations import DEFAULT_MAX_TRACKED_CALLS
from wavemetrics.readers import ReadOutcome
from wavemetrics.readers.lanes import Lane
from wavemetrics.summary import ParallelismSummary, merge_summaries, summarize
from wavemetrics.waves import Wave, WaveAssembly, assemble_waves

__all__ = ["Analysis", "LaneResult", "analyse", "session_hash"]


def session_hash(session_id: str, lane_id: str) -> str:
    """The ``$session_id`` of a lane's v1 payload: hex SHA-256 of ``[session_id, lane_id]``.

    The hashed text is the compact JSON array, as JavaScript's
    ``JSON.stringify([sessionId, laneId])`` writes it (UTF-8), so other systems can
    reproduce it; each lane gets its own hash.

    >>> session_hash("s", "main")[:12]
    '5670c45e3afb'
    """
    text = json.dumps([session_id, lane_id], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@attrs.frozen
class LaneResult:
    """One lane with its waves and summary.

    ``assembly`` is ``None`` when the lane was summarised while it was read
    (streaming): its waves were not kept.
    """

    lane: Lane
    assembly: WaveAssembly | None
    summary: ParallelismSummary

    @property
    def waves(self) -> tuple[Wave, ...]:
        """The lane's waves; raises ``ValueError`` if they were not kept (streaming)."""
        if self.assembly is None:
            raise ValueError("this lane was summarised while streaming: its waves were not kept")
        return self.assembly.waves

    @property
    def session_hash(self) -> str:
        return session_hash(self.lane.session_id, self.lane.lane_id)


@attrs.frozen
class Analysis:
    """What the CLI renders: the read outcome, every lane's result and the merged total."""

    outcome: ReadOutcome
    lanes: tuple[LaneResult, ...]
    total: ParallelismSummary


def analyse(
    outcome: ReadOutcome,
    *,
    eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES,
    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
) -> Analysis:
    """Assemble and summarise every lane on its own, then merge them in lane order.

    A lane read in streaming mode already carries its summary (computed with
    the settings it was read with) and is used as it is.
    """
    results = tuple(
        _lane_result(lane, eval_tool_names, max_tracked_calls) for lane in outcome.lanes
    )
    return Analysis(outcome, results, merge_summaries(r.summary for r in results))


def _lane_result(
    lane: Lane, eval_tool_names: Iterable[str], max_tracked_calls: int | None
) -> LaneResult:
    if lane.summary is not None:
        return LaneResult(lane, None, lane.summary)
    assembly = assemble_waves(lane.observations, max_tracked_calls=max_tracked_calls)
    summary = summarize(
        assembly,
        measured_turn_duration_ms_total=lane.measured_turn_duration_ms_total,
        eval_tool_names=eval_tool_names,
    )
    return LaneResult(lane, assembly, summary)
