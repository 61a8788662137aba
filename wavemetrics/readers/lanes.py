"""What a reader produces: lanes of observations and one report per input."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import attrs

from wavemetrics.classify import EVAL_TOOL_NAMES
from wavemetrics.observations import DEFAULT_MAX_TRACKED_CALLS, Observation
from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers._uuids import session_id_from_file_name
from wavemetrics.stream import LaneStream
from wavemetrics.summary import ParallelismSummary

__all__ = [
    "InputReport",
    "Lane",
    "LaneBuilder",
    "StreamSettings",
    "finish_single_lane",
    "streaming",
]

UNKNOWN_TOOL = "unknown"


@attrs.frozen
class Lane:
    """One agent's observations (``spec/formats.md``): ``lane_id`` is ``"main"`` for the top agent.

    ``path`` is the input the lane was first seen in; ``measured_turn_duration_ms_total``
    is in ms. Holds only ids, tool names and times.
    """

    path: str
    session_id: str
    lane_id: str
    observations: tuple[Observation, ...]
    measured_turn_duration_ms_total: float = 0.0
    #: Set when the lane was summarised while it was read (streaming); then
    #: ``observations`` is empty.
    summary: ParallelismSummary | None = None


@attrs.frozen
class StreamSettings:
    """How lanes read in streaming mode are summarised (the summary's options)."""

    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS
    eval_tool_names: tuple[str, ...] = EVAL_TOOL_NAMES


_STREAMING: ContextVar[StreamSettings | None] = ContextVar("wavemetrics_streaming", default=None)


@contextmanager
def streaming(settings: StreamSettings | None) -> Iterator[None]:
    """Within this block, new :class:`LaneBuilder` s summarise as they read (or not, for None)."""
    token = _STREAMING.set(settings)
    try:
        yield
    finally:
        _STREAMING.reset(token)


@attrs.frozen
class InputReport:
    """How one input was read: its format and where every line went.

    ``lines_read == lines_used + lines_ignored + sum(problems.values())``.
    ``ignored`` counts known non-tool records by type, ``problems`` unusable lines
    by reason, ``notes`` things that are not lines (repeated blocks, ...).
    ``error`` is set when the input could not be read or recognised.
    """

    path: str
    format: str
    lines_read: int = 0
    lines_used: int = 0
    lines_ignored: int = 0
    problems: dict[str, int] = attrs.field(factory=dict)
    ignored: dict[str, int] = attrs.field(factory=dict)
    notes: dict[str, int] = attrs.field(factory=dict)
    error: str | None = None

    @classmethod
    def from_account(
        cls, path: str, fmt: str, account: LineAccount, error: str | None = None
    ) -> InputReport:
        return cls(
            path=path,
            format=fmt,
            lines_read=account.lines_read,
            lines_used=account.lines_used,
            lines_ignored=account.lines_ignored,
            problems=dict(sorted(account.problems.items())),
            ignored=dict(sorted(account.ignored.items())),
            notes=dict(sorted(account.notes.items())),
            error=error or account.error,
        )


@attrs.define
class LaneBuilder:
    """A lane being read: observations in feeding order, plus transcript bookkeeping.

    Inside a :func:`streaming` block the observations go straight to a
    :class:`~wavemetrics.stream.LaneStream` instead of a list (unless
    ``batch_only``), and only the ids a reader asks to remember are kept
    (``remember_ids``: the first-start-wins rule of transcript readers needs them).
    """

    path: str
    session_id: str
    lane_id: str
    observations: list[Observation] = attrs.field(factory=list)
    turn_total_ms: float = 0.0
    start_names: dict[str, str] = attrs.field(factory=dict)
    ended: set[str] = attrs.field(factory=set)
    batch_only: bool = False
    remember_ids: bool = True
    stream: LaneStream | None = None

    def __attrs_post_init__(self) -> None:
        settings = _STREAMING.get()
        if settings is not None and not self.batch_only:
            self.stream = LaneStream(
                max_tracked_calls=settings.max_tracked_calls,
                eval_tool_names=settings.eval_tool_names,
            )

    def start(self, call_id: str, tool_name: str, at_ms: float) -> None:
        if self.stream is None:
            self.start_names[call_id] = tool_name
            self.observations.append(Observation("start", call_id, tool_name, at_ms))
            return
        if self.remember_ids:
            self.start_names[call_id] = tool_name
        self.stream.start(call_id, tool_name, at_ms)

    def end(self, call_id: str, at_ms: float, tool_name: str | None = None) -> None:
        if self.stream is not None:
            self.stream.end(call_id, at_ms)
            return
        name = tool_name or self.start_names.get(call_id, UNKNOWN_TOOL)
        self.observations.append(Observation("end", call_id, name, at_ms))

    def build(self) -> Lane:
        summary = None
        if self.stream is not None:
            summary = self.stream.finish(self.turn_total_ms)
        return Lane(
            path=self.path,
            session_id=self.session_id,
            lane_id=self.lane_id,
            observations=tuple(self.observations),
            measured_turn_duration_ms_total=self.turn_total_ms,
            summary=summary,
        )


def finish_single_lane(
    lane: LaneBuilder, session_id: str | None, path: str, account: LineAccount
) -> Lane:
    """Build the one lane of a single-session transcript (``codex``, ``pi``).

    Without a session id from the file's own header, the UUID that ends the
    file name stands in, and ``notes.session_id_from_file_name`` says so.
    """
    if session_id is None:
        account.note("session_id_from_file_name")
    lane.session_id = session_id or session_id_from_file_name(path)
    return lane.build()
