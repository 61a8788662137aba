"""A read unit's result to and from the cache's compact records, and the streaming replay.

The cache (:mod:`wavemetrics.cache`) keeps what a unit yielded when read in
batch mode: each report's line accounting and each lane's observations, with
paths replaced by their index in the unit (the same file may be named by
another path on another run). :func:`replay_streaming` then gives exactly what
a streaming read gives: the observations go through the same
:class:`~wavemetrics.stream.LaneStream` a streaming reader feeds, in the same
order, and a lane the stream cannot take exactly is reported as a streaming
read would report it (``notes.read_again_in_batch``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from wavemetrics.observations import Observation
from wavemetrics.readers.lanes import InputReport, Lane, StreamSettings
from wavemetrics.stream import LaneStream, StreamOrderError
from wavemetrics.summary import ParallelismSummary

__all__ = ["BATCH_ONLY_FORMATS", "decode_unit", "encode_unit", "replay_streaming"]

#: Formats whose reader builds its lane with ``batch_only=True`` (never streamed).
BATCH_ONLY_FORMATS = frozenset({"codex"})


def _path_ref(path: str, paths: Sequence[str]) -> int | str:
    return paths.index(path) if path in paths else path


def _path_of(ref: Any, paths: Sequence[str]) -> str:
    return paths[ref] if isinstance(ref, int) else str(ref)


def encode_unit(
    paths: Sequence[str], reports: Sequence[InputReport], lanes: Sequence[Lane]
) -> list[Any]:
    """Compact, msgpack-able records of a unit: reports, and per lane its ids, turn
    total, observations (batch) or summary figures (streamed). No text."""
    return [
        [[_path_ref(r.path, paths), r.format, r.lines_read, r.lines_used, r.lines_ignored,
          r.problems, r.ignored, r.notes, r.error] for r in reports],
        [[_path_ref(lane.path, paths), lane.session_id, lane.lane_id,
          lane.measured_turn_duration_ms_total,
          [[o.kind, o.call_id, o.tool_name, o.at_ms] for o in lane.observations],
          None if lane.summary is None else attrs.asdict(lane.summary)]
         for lane in lanes],
    ]


def decode_unit(
    paths: Sequence[str], value: Any
) -> tuple[tuple[InputReport, ...], tuple[Lane, ...]]:
    """The reports and lanes of :func:`encode_unit`'s records, with ``paths`` put back.

    Raises ``ValueError``/``TypeError``/``IndexError`` on records of another shape
    (a damaged entry: the caller reads the unit again).
    """
    report_rows, lane_rows = value
    reports = tuple(
        InputReport(
            path=_path_of(ref, paths), format=str(fmt), lines_read=int(read),
            lines_used=int(used), lines_ignored=int(ignored), problems=dict(problems),
            ignored=dict(ignored_kinds), notes=dict(notes),
            error=None if error is None else str(error),
        )
        for ref, fmt, read, used, ignored, problems, ignored_kinds, notes, error in report_rows
    )
    if len(reports) != len(paths):
        raise ValueError("a cached unit has one report per path")
    lanes = tuple(
        Lane(
            path=_path_of(ref, paths), session_id=str(session), lane_id=str(lane_id),
            observations=tuple(Observation(*row) for row in observations),
            measured_turn_duration_ms_total=turns,
            summary=None if figures is None else ParallelismSummary(**figures),
        )
        for ref, session, lane_id, turns, observations, figures in lane_rows
    )
    return reports, lanes


def replay_streaming(
    fmt: str, reports: tuple[InputReport, ...], lanes: tuple[Lane, ...], settings: StreamSettings
) -> tuple[tuple[InputReport, ...], tuple[Lane, ...]]:
    """What a streaming read of the unit gives, from its batch lanes (see the module doc)."""
    if fmt in BATCH_ONLY_FORMATS:
        return reports, lanes
    streamed = []
    try:
        for lane in lanes:
            stream = LaneStream(
                max_tracked_calls=settings.max_tracked_calls,
                eval_tool_names=settings.eval_tool_names,
            )
            for item in lane.observations:
                if item.kind == "start":
                    stream.start(item.call_id, item.tool_name, item.at_ms)
                else:
                    stream.end(item.call_id, item.at_ms)
            summary = stream.finish(lane.measured_turn_duration_ms_total)
            streamed.append(attrs.evolve(lane, observations=(), summary=summary))
    except StreamOrderError:
        noted = tuple(
            attrs.evolve(r, notes={**r.notes, "read_again_in_batch": 1}) for r in reports
        )
        return noted, lanes
    return reports, tuple(streamed)
