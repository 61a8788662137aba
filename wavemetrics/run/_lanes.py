"""The value types of a run: settings, lanes, a unit's and a run's read outcome, lane
results and the analysis, and the session hash.

A leaf of the run layer: it imports the metric core's types and the reader layer's
:class:`~wavemetrics.readers.lanes.InputReport`, never the orchestrator
(:mod:`wavemetrics.run.pipeline`, which re-exports every name here) nor a reader, the
native engine or the cache, so that each of those can name these types without an
import cycle (``tests/test_imports.py``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, Protocol, TypeVar

import attrs

from wavemetrics.core.activity import BATCHABLE_TOOL_NAMES, DEFAULT_IDLE_GAP_MS, Timing
from wavemetrics.core.classify import EVAL_TOOL_NAMES
from wavemetrics.core.observations import DEFAULT_MAX_TRACKED_CALLS, Observation
from wavemetrics.core.summary import ParallelismSummary
from wavemetrics.core.waves import Wave, WaveAssembly
from wavemetrics.readers._report import InputReport

__all__ = [
    "Analysis",
    "Lane",
    "LaneFigures",
    "LaneResult",
    "Mapper",
    "ReadOutcome",
    "SkippedFile",
    "StreamSettings",
    "StreamedLane",
    "StreamedLaneResult",
    "UnitResult",
    "session_hash",
]

#: How to run detection and read units: ``map``, a process pool's ``map``, a Dask bag's.
Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], Iterable[Any]]


@attrs.frozen
class StreamSettings:
    """The summary's options: the per-lane cap (``None``: unbounded) and the eval tool names.

    Given once (to :func:`read_inputs` or :func:`summarize_inputs`): streamed
    lanes are summarised with them, and :func:`analyse` uses the same ones.
    """

    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS
    eval_tool_names: tuple[str, ...] = EVAL_TOOL_NAMES
    #: ``"native"``: units of a format the Rust extension reads (``claude-code``,
    #: ``events``) are read by it (:mod:`wavemetrics.run.native`), with the same
    #: figures; ``"python"``: the reference readers. Only how, never what.
    engine: str = "python"
    #: Threads the native engine reads units on (``--jobs``); figures never depend on it.
    jobs: int = 1
    #: The batchable tool names of the missed-batching figures (``docs/metrics.md``
    #: section 9; ``--batchable-tools``).
    batchable_tool_names: tuple[str, ...] = BATCHABLE_TOOL_NAMES
    #: Gaps longer than this (ms) are idle and end a serial run; 0 disables (``--idle-gap``).
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS


@attrs.frozen
class Lane:
    """One agent's observations (``docs/formats.md``): ``lane_id`` is ``"main"`` for the top agent.

    ``path`` is the input the lane was first seen in; ``measured_turn_duration_ms_total``
    is in ms; ``turn_intervals`` are the measured turns as ``(start_ms, end_ms)`` and
    ``timing`` the provenance of the call times (``docs/metrics.md`` section 9). Holds
    only ids, tool names, batch keys and times.
    """

    path: str
    session_id: str
    lane_id: str
    observations: tuple[Observation, ...]
    measured_turn_duration_ms_total: float = 0.0
    turn_intervals: tuple[tuple[float, float], ...] = ()
    timing: Timing = "execution"


@attrs.frozen
class StreamedLane:
    """A lane summarised while it was read: its identity and summary, no observations."""

    path: str
    session_id: str
    lane_id: str
    measured_turn_duration_ms_total: float
    summary: ParallelismSummary


L_co = TypeVar("L_co", bound="Lane | StreamedLane", covariant=True)


@attrs.frozen
class UnitResult(Generic[L_co]):
    """The reports (one per path of the unit) and the lanes of one unit."""

    reports: tuple[InputReport, ...]
    lanes: tuple[L_co, ...]


@attrs.frozen
class ReadOutcome(Generic[L_co]):
    """Every input's report (in input order) and every lane read (in reading order).

    ``stream``: the settings streamed lanes were summarised with (``None`` when
    nothing was streamed); ``ReadOutcome[Lane]`` is what a batch read gives.
    ``same_as`` maps an input whose content repeats an earlier input's to that
    input: it was read once (its report has format :data:`~wavemetrics.readers.dispatch.DUPLICATE`).
    ``skipped``: files found while walking folders that are not traces
    (``docs/formats.md``, format detection), by path.
    """

    inputs: tuple[InputReport, ...]
    lanes: tuple[L_co, ...]
    stream: StreamSettings | None = None
    same_as: dict[str, str] = attrs.field(factory=dict)
    skipped: tuple[SkippedFile, ...] = ()

    @property
    def repeated_lanes(self) -> dict[tuple[str, str], tuple[str, ...]]:
        """``(session_id, lane_id)`` of lanes read from more than one input, with
        those inputs: each is summarised once per input (no format rule
        de-duplicates them; Claude Code and pi copies in one folder are)."""
        from wavemetrics.views.notes import repeated_lanes

        return repeated_lanes(self.lanes)

    @property
    def failed(self) -> tuple[InputReport, ...]:
        """Inputs that could not be read or recognised."""
        return tuple(report for report in self.inputs if report.error is not None)


@attrs.frozen
class SkippedFile:
    """A file found while walking a folder that is not a trace, and why it was skipped."""

    path: str
    reason: str


def session_hash(session_id: str, lane_id: str) -> str:
    """The ``$session_id`` of a lane's v1 payload: hex SHA-256 of ``[session_id, lane_id]``.

    The hashed text is the compact JSON array, as JavaScript's
    ``JSON.stringify([sessionId, laneId])`` writes it (UTF-8), so other systems can
    reproduce it; each lane gets its own hash.

    >>> session_hash("s", "main")[:12]
    '5670c45e3afb'
    """
    if type(session_id) is str and type(lane_id) is str:
        # what json.dumps writes for two strings, without building an encoder per lane
        text = f"[{_json_string(session_id)},{_json_string(lane_id)}]"
    else:
        text = json.dumps([session_id, lane_id], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: The string encoder of ``json.dumps(..., ensure_ascii=False)``.
_json_string = json.encoder.encode_basestring


class LaneFigures(Protocol):
    """What every lane result has: the lane, its summary and its payload hash."""

    @property
    def lane(self) -> Lane | StreamedLane: ...

    @property
    def summary(self) -> ParallelismSummary: ...

    @property
    def session_hash(self) -> str: ...


@attrs.frozen
class LaneResult:
    """A lane assembled in batch: its waves and summary."""

    lane: Lane
    assembly: WaveAssembly
    summary: ParallelismSummary

    @property
    def waves(self) -> tuple[Wave, ...]:
        """The lane's waves, in wave order."""
        return self.assembly.waves

    @property
    def session_hash(self) -> str:
        return session_hash(self.lane.session_id, self.lane.lane_id)


@attrs.frozen
class StreamedLaneResult:
    """A lane summarised while read: its summary only (its waves were not kept)."""

    lane: StreamedLane
    summary: ParallelismSummary

    @property
    def session_hash(self) -> str:
        return session_hash(self.lane.session_id, self.lane.lane_id)


R_co = TypeVar("R_co", bound=LaneFigures, covariant=True)


@attrs.frozen
class Analysis(Generic[R_co]):
    """What the CLI renders: the read outcome, every lane's result and the merged total.

    ``Analysis[LaneResult]`` (a batch read) has every lane's waves.
    """

    outcome: ReadOutcome[Lane | StreamedLane]
    lanes: tuple[R_co, ...]
    total: ParallelismSummary
