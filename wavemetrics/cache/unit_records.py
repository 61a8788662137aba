"""A read unit's result to and from the cache's compact records, and the streaming replay.

The cache (:mod:`wavemetrics.cache.units`) keeps what a unit yielded when read in
batch mode: each report's line accounting and each lane's observations, with
paths replaced by their index in the unit (the same file may be named by
another path on another run); for ``summarize`` also the lanes as a streaming
read leaves them (:class:`~wavemetrics.run.pipeline.StreamedLane`: figures, no
calls). :func:`replay_streaming` gives exactly what a streaming read gives: the
observations go through the same :class:`~wavemetrics.core.stream.LaneStream` a
streaming sink feeds, in the same order, and a unit the stream cannot take
exactly is reported as a streaming read reports it (``notes.read_again_in_batch``).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import attrs

from wavemetrics.core.activity import TIMINGS
from wavemetrics.core.observations import Observation
from wavemetrics.core.stream import LaneStream, StreamOrderError
from wavemetrics.core.summary import ParallelismSummary
from wavemetrics.readers.dispatch import streamable
from wavemetrics.readers.lanes import InputReport
from wavemetrics.run._lanes import Lane, StreamedLane, StreamSettings

__all__ = ["decode_unit", "encode_unit", "replay_streaming"]

AnyLane = Lane | StreamedLane

#: A summary's attributes in order and their getter: ``attrs.asdict`` of a summary
#: (every figure is a number or a str) without its per-value recursion.
_FIELDS = tuple(field.name for field in attrs.fields(ParallelismSummary))
_figures = operator.attrgetter(*_FIELDS)


def _path_ref(path: str, paths: Sequence[str]) -> int | str:
    return paths.index(path) if path in paths else path


def _path_of(ref: Any, paths: Sequence[str]) -> str:
    return paths[ref] if isinstance(ref, int) else str(ref)


def encode_unit(
    paths: Sequence[str], reports: Sequence[InputReport], lanes: Sequence[AnyLane]
) -> list[Any]:
    """Compact, msgpack-able records of a unit: reports, and per lane its ids, turn
    total, and observations (:class:`Lane`) or summary figures (:class:`StreamedLane`).
    No text."""
    rows: list[Any] = []
    for lane in lanes:
        head = [_path_ref(lane.path, paths), lane.session_id, lane.lane_id,
                lane.measured_turn_duration_ms_total]
        if isinstance(lane, StreamedLane):
            rows.append([*head, None, dict(zip(_FIELDS, _figures(lane.summary), strict=True)),
                         None])
        else:
            rows.append([*head, [[o.kind, o.call_id, o.tool_name, o.at_ms, o.batch]
                                 for o in lane.observations], None,
                         [lane.timing, [list(turn) for turn in lane.turn_intervals]]])
    return [
        [[_path_ref(r.path, paths), r.format, r.lines_read, r.lines_used, r.lines_ignored,
          dict(r.problems), dict(r.ignored), dict(r.notes), r.error] for r in reports],
        rows,
    ]


def decode_unit(
    paths: Sequence[str], value: Any
) -> tuple[tuple[InputReport, ...], tuple[AnyLane, ...]]:
    """The reports and lanes of :func:`encode_unit`'s records, with ``paths`` put back.

    Raises ``ValueError``/``TypeError``/``IndexError``/``KeyError`` on records of
    another shape (a damaged entry: the caller reads the unit again).
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
    lanes: list[AnyLane] = []
    for ref, session, lane_id, turns, observations, figures, activity in lane_rows:
        path = _path_of(ref, paths)
        if figures is not None:
            lanes.append(StreamedLane(path, str(session), str(lane_id), turns,
                                      ParallelismSummary(**figures)))
        else:
            timing, intervals = activity
            if timing not in TIMINGS:
                raise ValueError("a cached lane of an unknown timing")
            lanes.append(Lane(path, str(session), str(lane_id),
                              tuple(Observation(*row) for row in observations), turns,
                              tuple((float(a), float(b)) for a, b in intervals), timing))
    return reports, tuple(lanes)


def replay_streaming(
    fmt: str, reports: tuple[InputReport, ...], lanes: tuple[AnyLane, ...],
    settings: StreamSettings,
) -> tuple[tuple[InputReport, ...], tuple[AnyLane, ...]]:
    """What a streaming read of the unit gives, from its batch lanes (see the module doc)."""
    if not streamable(fmt):
        return reports, lanes
    streamed: list[AnyLane] = []
    try:
        for lane in lanes:
            if isinstance(lane, StreamedLane):
                streamed.append(lane)
                continue
            stream = LaneStream(
                max_tracked_calls=settings.max_tracked_calls,
                eval_tool_names=settings.eval_tool_names,
                batchable_tool_names=settings.batchable_tool_names,
                idle_gap_ms=settings.idle_gap_ms,
            )
            for item in lane.observations:
                if item.kind == "start":
                    stream.start(item.call_id, item.tool_name, item.at_ms, item.batch)
                else:
                    stream.end(item.call_id, item.at_ms)
            summary = stream.finish(
                lane.measured_turn_duration_ms_total, lane.turn_intervals, lane.timing
            )
            streamed.append(StreamedLane(lane.path, lane.session_id, lane.lane_id,
                                         lane.measured_turn_duration_ms_total, summary))
    except StreamOrderError:
        noted = tuple(
            attrs.evolve(r, notes={**r.notes, "read_again_in_batch": 1}) for r in reports
        )
        return noted, lanes
    return reports, tuple(streamed)
