"""The reader layer's interfaces, in one place: a trace format, its input peek, the sink.

A format module exposes one object satisfying :class:`TraceFormat`; the
registry (``readers/registry.py``) lists them. A reader knows nothing of
metrics: it opens lanes on an :class:`ObservationSink` and feeds each lane's
starts, ends and turn times to the :class:`LaneWriter` it got back, then
closes the lane with its identity. The pipeline (``wavemetrics/run/pipeline.py``)
owns the sink and decides whether a lane is summarised while read (streamed)
or kept for wave assembly (batch). See ``docs/architecture.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, Protocol

import attrs

from wavemetrics.core.activity import Timing
from wavemetrics.readers._lines import LineAccount, iter_records
from wavemetrics.readers.sources import Source

__all__ = [
    "FileFormat",
    "LaneKey",
    "LaneWriter",
    "LiveReading",
    "ObservationSink",
    "Peek",
    "TraceFormat",
]

#: A lane's identity in a report: ``(session_id, lane_id)``.
LaneKey = tuple[str, str]


@attrs.define(eq=False)
class Peek:
    """The first lines of one input, shown to every format's :meth:`TraceFormat.sniff`.

    ``lines``: raw physical lines (up to the registry's ``DETECT_LINES`` with
    content); ``path``: the input (``-`` for stdin). :attr:`records` are the
    JSON objects among them, parsed once on first use and shared by every
    format's sniffer (a 50 MB first line is parsed once, not once per format).
    """

    lines: list[bytes]
    path: str

    @cached_property
    def records(self) -> list[dict[str, Any]]:
        """The JSON objects among :attr:`lines` (unparsable lines skipped)."""
        return list(iter_records(self.lines, LineAccount()))

    @cached_property
    def text(self) -> str:
        """The lines as one text, BOM and leading white space removed (for non-JSONL sniffers)."""
        return b"".join(self.lines).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")


class LaneWriter(Protocol):
    """One lane being read: what a reader feeds, in feeding order (``docs/formats.md``).

    Times are ms. ``end`` carries no tool name: a call's name is its start's
    (the sink resolves it; an end without a start is named ``"unknown"``).
    """

    def start(
        self, call_id: str, tool_name: str, at_ms: float, batch: str | None = None
    ) -> None:
        """A start observation; ``batch``: the key of the model response that issued the
        call (``docs/metrics.md`` section 9), ``None`` when the format does not record it."""

    def end(self, call_id: str, at_ms: float) -> None:
        """An end observation."""

    def extend(
        self,
        kinds: Sequence[str],
        call_ids: Sequence[str],
        tool_names: Sequence[str],
        at_ms: Sequence[float],
        batches: Sequence[str | None] | None = None,
    ) -> None:
        """A batch of observations as parallel sequences (``"start"``/``"end"``, id,
        name, ms, and optionally each start's batch key, ignored on an end), exactly as
        each was seen: the entry point of a reader written in another language, and of
        a reader that rewrites its observations before handing them over. Raises
        ``ValueError`` if the lengths differ."""

    def turn_event(self, kind: str, at_ms: float) -> None:
        """A ``turn_start``/``turn_end`` at ``at_ms`` (``docs/metrics.md`` section 6)."""

    def close(self, session_id: str, lane_id: str, turn_duration_ms: float = 0.0) -> None:
        """The lane is complete: its identity and any turn durations measured by the
        format itself (ms, summed). A lane opened and never closed is not reported."""


class ObservationSink(Protocol):
    """Where readers put lanes; lanes are reported in the order they were opened."""

    def open_lane(self, path: str) -> LaneWriter:
        """A new lane first seen in input ``path``; its identity is given at
        :meth:`LaneWriter.close` (some formats learn their session id last)."""


class TraceFormat(Protocol):
    """One trace format of ``docs/formats.md``: how it is recognised and read.

    ``name`` is its ``--input-format`` name. ``streamable``: whether its lanes
    may be summarised while read (its observations arrive in an order a stream
    can take); the pipeline decides from it, in the open. ``timing``: where its
    call times come from (``docs/metrics.md`` section 9, "Timing provenance").
    """

    @property
    def name(self) -> str: ...

    @property
    def streamable(self) -> bool: ...

    @property
    def timing(self) -> Timing: ...

    def sniff(self, peek: Peek) -> bool:
        """Whether the first lines of an input are this format."""

    def unit_key(self, path: str) -> str:
        """What must be read together with ``path``: ``path`` itself for a format
        whose files are independent, else a shared key (a Claude Code project
        folder). Files with one key form one read unit, never split between workers."""

    def read(self, sources: Sequence[Source], sink: ObservationSink) -> list[LineAccount]:
        """Read one unit's inputs (sorted by path) into ``sink``; one line account per
        source, in order. Never raises for bad data."""


@attrs.frozen
class LiveReading:
    """How the status line keeps a live state of a growing transcript of a format
    (its registry row's ``live``; :mod:`wavemetrics.cache.live`): ``folder(sink)``
    makes what reading remembers between lines (an object with ``seen_uuids``,
    ``sidechain_roots`` and ``lanes``, which the live state saves and restores), and
    ``read_lines(folder, path, lines, account)`` reads one file's raw lines into it,
    each accounted in ``account``."""

    folder: Callable[[ObservationSink], Any]
    read_lines: Callable[[Any, str, Any, LineAccount], None]


@attrs.frozen
class FileFormat:
    """A :class:`TraceFormat` whose files are read one at a time (every format but
    ``claude-code`` and ``pi``, read per folder): a recogniser and a one-file reader,
    declared in the format's module."""

    name: str
    recognise: Callable[[Peek], bool]
    read_file: Callable[[Source, ObservationSink], LineAccount]
    #: Where its call times come from (``docs/metrics.md`` section 9): ``"execution"``
    #: (the harness stamped each tool's own start and end) or ``"message"`` (the times
    #: of the lines that requested the call and carried its result).
    timing: Timing = attrs.field(kw_only=True)
    streamable: bool = True
    #: Whether its inputs are SQLite stores (``docs/formats.md``, "SQLite stores"): no
    #: cache keeps their detection or their read, since part of a WAL database's
    #: committed state is in its ``-wal`` file, which no file key sees.
    store: bool = False

    def sniff(self, peek: Peek) -> bool:
        return self.recognise(peek)

    def unit_key(self, path: str) -> str:
        return path

    def read(self, sources: Sequence[Source], sink: ObservationSink) -> list[LineAccount]:
        (source,) = sources
        return [self.read_file(source, sink)]
