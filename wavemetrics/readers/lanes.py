"""What a reader produces: lanes fed into a sink, and one report per input."""

from __future__ import annotations

import attrs

from wavemetrics.core.observations import Observation
from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers._protocol import LaneWriter, ObservationSink
from wavemetrics.readers._report import InputReport
from wavemetrics.readers._uuids import session_id_from_file_name

__all__ = [
    "InputReport",
    "LaneBuilder",
    "finish_single_lane",
]

UNKNOWN_TOOL = "unknown"


@attrs.define
class LaneBuilder:
    """A lane being read: the reader's bookkeeping, its observations going to ``sink``.

    On construction the lane is opened on ``sink`` (lanes are reported in that
    order); :meth:`build` closes it with ``session_id``, ``lane_id`` and
    ``turn_total_ms`` (ms), which the reader may still change until then.
    ``start_names`` and ``ended`` serve the first-start-wins rule of transcript
    readers (``remember_ids=False`` keeps no ids: a live event stream needs
    none). With ``batch_only`` the observations are kept in ``observations``
    (the reader may rewrite them, as the Codex batched-write rule does) and
    handed over in one batch by :meth:`build`.
    """

    path: str
    session_id: str
    lane_id: str
    sink: ObservationSink = attrs.field(kw_only=True, repr=False)
    observations: list[Observation] = attrs.field(factory=list)
    turn_total_ms: float = 0.0
    start_names: dict[str, str] = attrs.field(factory=dict)
    ended: set[str] = attrs.field(factory=set)
    batch_only: bool = False
    remember_ids: bool = True
    writer: LaneWriter = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        self.writer = self.sink.open_lane(self.path)

    def start(
        self, call_id: str, tool_name: str, at_ms: float, batch: str | None = None
    ) -> None:
        """A start at ``at_ms`` (ms); ``batch``: the key of the model response that
        issued the call (``docs/formats.md``, each format's "Batches"), or ``None``."""
        if self.remember_ids:
            self.start_names[call_id] = tool_name
        if self.batch_only:
            self.observations.append(Observation("start", call_id, tool_name, at_ms, batch))
            return
        self.writer.start(call_id, tool_name, at_ms, batch)

    def end(self, call_id: str, at_ms: float) -> None:
        if self.batch_only:
            name = self.start_names.get(call_id, UNKNOWN_TOOL)
            self.observations.append(Observation("end", call_id, name, at_ms))
            return
        self.writer.end(call_id, at_ms)

    def turn_event(self, kind: str, at_ms: float) -> None:
        """A ``turn_start``/``turn_end`` of this lane (the pipeline measures turns)."""
        self.writer.turn_event(kind, at_ms)

    def build(self) -> None:
        """Hand over any kept observations and close the lane on the sink."""
        if self.observations:
            kept = self.observations
            self.writer.extend(
                [o.kind for o in kept], [o.call_id for o in kept],
                [o.tool_name for o in kept], [o.at_ms for o in kept],
                [o.batch for o in kept],
            )
        self.writer.close(self.session_id, self.lane_id, self.turn_total_ms)


def finish_single_lane(
    lane: LaneBuilder, session_id: str | None, path: str, account: LineAccount
) -> None:
    """Close the one lane of a single-session transcript (``codex``, ``pi``).

    Without a session id from the file's own header, the UUID that ends the
    file name stands in, and ``notes.session_id_from_file_name`` says so.
    """
    if session_id is None:
        account.note("session_id_from_file_name")
    lane.session_id = session_id or session_id_from_file_name(path)
    lane.build()
