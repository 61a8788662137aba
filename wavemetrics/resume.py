"""Reading a grown trace file from where it ended: a file that only grew is read from
where it ended, not again from its first byte.

Agent sessions are appended to all the time; without this, any change of a
file's size or mtime is a cache miss and the file is read again in full. Here a
read unit of a line format whose reader decides each line from the lines before
it keeps a **resume point** in the cache (table ``resumes``, one row per unit):
the state of the reader after the last complete line, as compact records:

- every file's key (path, size, ``st_mtime_ns``, inode), line accounting, the
  offset just after its last complete (newline-ended) line (``None`` for a file
  other than the last whose last line has none), and BLAKE2b digests of the
  :data:`WINDOW` bytes that begin it and of the :data:`WINDOW` bytes before
  that offset;
- every lane's ids, turn total and observations (``kind``, call id, tool name,
  time), exactly what the ``units`` table keeps (an open lane as it stands);
- the format's own state (a :class:`_Reading` subclass per format, :data:`_READINGS`):

  - ``claude-code`` (one transcript, or the files of one project folder): the
    line ``uuid`` values seen, as :func:`~wavemetrics.readers._seen.compact_key`
    keys (a UUID as its 16 bytes) grouped by the file that first had them, each
    inline sub-agent line's chain root with the file that registered it, and the
    first and last file that touched each lane;
  - ``events`` (one file): which lanes are still open, each with its pending
    turn start and the total the turn-overflow rule follows, and the session ids
    a ``session_shutdown`` closed (their lanes are kept as closed);
  - ``codex`` (one rollout): its session id and whether a record was read; the
    lane's kept observations (the batched-write rule may still move a start
    back when its output comes) are the lane record above;
  - ``pi`` (the session files of one folder): the reading order (parents before
    their forks), the last-read file's session id, its header's format version
    and whether it had a record; the other files' lanes are closed.

Never text, arguments, results or prompts.

**When it is used** (else the unit is read in full, as before): the unit's
format is one of those four; its files are plain (not gzip); exactly one file
changed, with the same path and inode, a larger size, both digests still
matching, and no UTF-8 BOM at its offset (a reader drops a BOM on a file's
first line only). Then only the bytes from that offset are read, fed to the
reader restored from the resume point, and the unit's lanes built as a full
read builds them. Each of these readers decides each line from the lines
before it only (``docs/formats.md``: Claude Code's ``forkedFrom`` line is
judged by itself, ``uuid`` de-duplication, first-start-wins and sidechain roots
look back; ``events`` feeds every line as received and a shutdown drops later
lines; Codex's first-start-wins and the batched-write rule look back from the
output to its call; pi's first-start-wins too), so the new lines of a unit's
**last** file (in reading order) are the last a full read reads: the result is
the full read's. Three rules decide a line from later ones or from the whole
folder, and are handled so:

- Codex fork replay: while the replay gate is open (a fork's ``session_meta``
  read, its first own ``turn_context`` not yet), a later line (the boundary)
  or the end of the file decides whether the lines under the gate are replay.
  No resume point is kept then: the grown file is read in full, and once the
  gate is decided the next point is kept.
- pi forks and reading order: a folder is read parents first, the order taken
  from the headers in each file's first lines (which a growing file may still
  be writing), and a fork's entries are dropped against every ``(id,
  timestamp)`` read in the folder before them and in it. Only the file read
  last resumes, only when it is not read as a fork (the entry keys are not
  kept: no point is kept for a fork, which is read in full when it grows), and
  only when the reading order computed from the grown files is the one the
  point was kept with (else the unit is read in full). While calls of a
  message pi ran one after another still wait for the result that starts
  them (``readers.pi``), no point is kept either: that result, or the end of
  the file, decides their start.
- Claude Code, an **earlier** file of a folder (a session transcript sorts
  before its ``subagents/`` files): a full read would read the new lines
  *before* the later files. The result is still the full read's when no new
  line repeats a ``uuid`` only a later file had, touches a lane a later file
  touched, registers a sidechain root, or looks up one a later file
  registered: then neither side saw the other. The reading tracks exactly
  these (:class:`_TrackedSeen`, :class:`_TrackedLanes`, :class:`_TrackedRoots`);
  any of them makes the read inexact and the unit is read in full. Lanes are
  put back in a full read's order (by the first file that touched them).

A partial last line (no newline yet: the agent was writing it) of the unit's
last file is not part of the resume point: it is read again with what follows,
never counted twice; that point lets only the last file resume.

**Formats that are not resumed** (read in full when they change): JSON
documents, OTLP, Inspect and ``codex-tui`` (a document is read whole, or the
format is rarely appended to: no reading of theirs is proven exact when
resumed); gzip files (no offset to seek to).

**What the check could miss**: a rewrite in place (same inode) that leaves the
first :data:`WINDOW` bytes and the :data:`WINDOW` bytes before the offset as
they were, changes bytes between them, and makes the file larger. Appending
writers never do this; editors and tools that rewrite a file write a new inode,
and a truncation makes the file smaller; both are full reads. Hashing the whole
prefix would close it at the price of reading it (what resuming avoids).
See ``docs/architecture.md`` and ``docs/cli.md`` ("The cache").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import attrs

from wavemetrics._appended import (
    _BOM,
    WINDOW,
    _digests,
    _FileFrom,
    _marked,
    _plain,
    _terminated,
)
from wavemetrics._lanes import Lane, StreamedLane, UnitResult
from wavemetrics.observations import Observation
from wavemetrics.readers import ReadUnit
from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers._seen import compact_key
from wavemetrics.readers.claude_code import FORMAT, ClaudeFolder, read_claude_lines
from wavemetrics.readers.codex import FORMAT as CODEX_FORMAT
from wavemetrics.readers.codex import CodexReader
from wavemetrics.readers.events import FORMAT as EVENTS_FORMAT
from wavemetrics.readers.events import EventsReader
from wavemetrics.readers.lanes import UNKNOWN_TOOL, InputReport, LaneBuilder
from wavemetrics.readers.pi import FORMAT as PI_FORMAT
from wavemetrics.readers.pi import PiReader, reading_order
from wavemetrics.readers.sources import Source, file_stem
from wavemetrics.turns import TurnClock
from wavemetrics.unit_records import decode_unit, encode_unit

if TYPE_CHECKING:
    from wavemetrics.cache import FileKey, ReadCache

__all__ = ["RESUME_VERSION", "WINDOW", "read_resuming", "resume_unit_id"]

#: The layout of a resume point; another value is read in full and replaced.
RESUME_VERSION = 3


def resume_unit_id(unit: ReadUnit, limits: str) -> str:
    """The cache row of ``unit``'s resume point: its format, paths, the limits in force
    (``wavemetrics.cache.limits_key``) and the wavemetrics version, not the files' keys."""
    from wavemetrics.cache import unit_key

    return unit_key(unit.format, [], f"{limits}/resume:{list(unit.paths)}").unit


class _Recorder:
    """A lane writer keeping its observations in order; closes to the same :class:`Lane`
    as the pipeline's batch writer (its observations in feed order, an end named after
    its start, else ``unknown``)."""

    def __init__(self, sink: _Sink, path: str) -> None:
        self.sink, self.path = sink, path
        self.observations: list[Observation] = []
        self.names: dict[str, str] = {}
        self.turns = TurnClock()
        self.turn_pending: float | None = None
        self.lane: Lane | None = None

    def start(self, call_id: str, tool_name: str, at_ms: float) -> None:
        self.names[call_id] = tool_name
        self.observations.append(Observation("start", call_id, tool_name, at_ms))

    def end(self, call_id: str, at_ms: float) -> None:
        name = self.names.get(call_id, UNKNOWN_TOOL)
        self.observations.append(Observation("end", call_id, name, at_ms))

    def extend(
        self, kinds: Sequence[str], call_ids: Sequence[str], tool_names: Sequence[str],
        at_ms: Sequence[float],
    ) -> None:
        # as the pipeline's batch writer: each observation as given, a start's name kept
        for kind, call_id, name, at in zip(kinds, call_ids, tool_names, at_ms, strict=True):
            if kind == "start":
                self.names[call_id] = name
            self.observations.append(Observation(cast(Any, kind), call_id, name, at))

    def restore(self, lane: Lane, turn_pending: float | None = None) -> None:
        """Hold ``lane``'s observations and turn total as if they had been fed, with a
        pending turn start (``None``: none)."""
        self.observations = list(lane.observations)
        self.names = {o.call_id: o.tool_name for o in self.observations if o.kind == "start"}
        self.turns.total_ms = lane.measured_turn_duration_ms_total
        if turn_pending is not None:
            self.turns.add("turn_start", turn_pending)
        self.turn_pending = turn_pending

    def now(self, session_id: str, lane_id: str, turn_duration_ms: float = 0.0) -> Lane:
        """The lane as it would close now."""
        turns = turn_duration_ms + self.turns.total_ms
        return Lane(self.path, session_id, lane_id, tuple(self.observations), turns)

    def turn_event(self, kind: str, at_ms: float) -> None:
        self.turns.add(kind, at_ms)
        # the clock's pending start, followed for a resume point (TurnClock's rules)
        if kind == "turn_start":
            self.turn_pending = at_ms
        elif kind == "turn_end":
            self.turn_pending = None

    def close(self, session_id: str, lane_id: str, turn_duration_ms: float = 0.0) -> None:
        self.lane = self.now(session_id, lane_id, turn_duration_ms)


class _Sink:
    """The observation sink of a resumable read: one :class:`_Recorder` per lane."""

    def __init__(self) -> None:
        self.writers: list[_Recorder] = []

    def open_lane(self, path: str) -> _Recorder:
        writer = _Recorder(self, path)
        self.writers.append(writer)
        return writer


def _seen_value(keys: Iterable[int | str | bytes]) -> list[list[bytes]]:
    """The seen-uuid keys for msgpack, in three lists: UUIDs as their 16 bytes (msgpack
    holds no 128-bit integer), other ids as UTF-8 (a lone surrogate kept by
    ``surrogatepass``), SHA-256 digests of long ids as they are."""
    uuids, texts, digests = [], [], []
    for key in keys:
        if isinstance(key, int):
            uuids.append(key.to_bytes(16, "big"))
        elif isinstance(key, str):
            texts.append(key.encode("utf-8", "surrogatepass"))
        else:
            digests.append(key)
    return [uuids, texts, digests]


def _seen_keys(value: Any) -> list[int | str | bytes]:
    uuids, texts, digests = value
    keys: list[int | str | bytes] = [int.from_bytes(k, "big") for k in uuids]
    keys.extend(bytes(k).decode("utf-8", "surrogatepass") for k in texts)
    keys.extend(bytes(k) for k in digests)
    return keys


def _uuid_text(key: int) -> str:
    """The canonical UUID whose :func:`compact_key` is ``key``."""
    hexa = f"{key:032x}"
    return f"{hexa[:8]}-{hexa[8:12]}-{hexa[12:16]}-{hexa[16:20]}-{hexa[20:]}"


class _TrackedSeen:
    """The reader's ``seen_uuids`` remembering which file (index) first had each id, so
    that a file read out of order (resumed, with later files already read) can tell
    a copy of its own or an earlier file's line (a copy in a full read too) from a
    line that only a later file had (the full read would keep this one: inexact)."""

    def __init__(self, reading: _Reading) -> None:
        self.reading = reading
        self.first: dict[int | str | bytes, int] = {}

    def add(self, text: str) -> bool:
        key = compact_key(text)
        first = self.first.get(key)
        if first is None:
            self.first[key] = self.reading.current
            return True
        if first > self.reading.current:
            self.reading.inexact = True
        return False

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and compact_key(text) in self.first


class _TrackedRoots(dict):  # type: ignore[type-arg]
    """Sidechain chain roots with the file that registered each: a file read out of
    order must neither see a later file's root nor register one a later file may
    have looked for."""

    def __init__(self, reading: _Reading) -> None:
        super().__init__()
        self.reading = reading
        self.files: dict[str, int] = {}

    def get(self, key: Any, default: Any = None) -> Any:
        if self.files.get(key, -1) > self.reading.current:
            self.reading.inexact = True
        return super().get(key, default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self.files[key] = self.reading.current
            if self.reading.later:
                self.reading.inexact = True
        return super().setdefault(key, default)


class _TrackedLanes(dict):  # type: ignore[type-arg]
    """The reader's lanes with the first and last file that touched each: a file read
    out of order must not touch a lane a later file touched (its calls would come
    after theirs, not before as in a full read)."""

    def __init__(self, reading: _Reading) -> None:
        super().__init__()
        self.reading = reading
        self.touch: dict[Any, list[int]] = {}

    def get(self, key: Any, default: Any = None) -> Any:
        touch = self.touch.get(key)
        if touch is not None:
            current = self.reading.current
            if touch[1] > current:
                self.reading.inexact = True
            touch[1] = max(touch[1], current)
        return super().get(key, default)

    def __setitem__(self, key: Any, value: Any) -> None:
        if key not in self:
            self.touch[key] = [self.reading.current, self.reading.current]
        super().__setitem__(key, value)


class _Reading:
    """A unit being read resumably: its sink, per-file accounts and saved file entries;
    a subclass per format holds the reader's state (:data:`_READINGS`).

    ``current``: the index of the file being read; ``later``: whether files after it
    were read already (a resumed file that is not the unit's last); ``inexact``: set
    when such a read cannot be the full read's (the caller then reads in full)."""

    def __init__(self, unit: ReadUnit) -> None:
        self.unit = unit
        self.sink = _Sink()
        self.current = 0
        self.later = False
        self.inexact = False
        self.accounts: list[LineAccount] = []
        self.errors: list[str | None] = []
        self.files: list[list[Any] | None] = []  # saved file entries, reused when unchanged
        #: the files' indexes in reading order (a resume point is kept after the last)
        self.order = list(range(len(unit.paths)))

    #: whether a file read before others may resume (the read then tracks what it meets)
    earlier_files_resume = False

    # -- the format's part --------------------------------------------------
    def lanes_now(self) -> list[Lane]:
        """The lanes as they are now (closed or not), in a full read's order."""
        raise NotImplementedError

    def state(self) -> list[Any] | None:
        """The reader's state beyond accounts and lanes, msgpack-able and without text;
        ``None`` when no resume point can be kept now."""
        raise NotImplementedError

    def restore_state(self, state: Sequence[Any], lanes: Sequence[Lane]) -> None:
        """Put the reader in the state of :meth:`state`'s ``state`` with ``lanes``."""
        raise NotImplementedError

    def read(self, source: Source, account: LineAccount, lines: Iterable[bytes]) -> None:
        """Read ``lines`` of ``source`` (file :attr:`current`) on from the state."""
        raise NotImplementedError

    def close(self) -> list[Lane]:
        """End the read (the input is over): the lanes a full read reports, in order."""
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------
    def point(self, keys: Sequence[FileKey], ends: Sequence[int | None]) -> list[Any] | None:
        """The resume point of the state as it is now: ``ends[i]``, where file ``i`` may
        be read on from (``None``: it may not: its last line had no newline)."""
        state = self.state()
        if state is None:
            return None
        files: list[list[Any]] = []
        for index, (key, end) in enumerate(zip(keys, ends, strict=True)):
            saved = self.files[index] if index < len(self.files) else None
            if saved is not None and saved[:4] == list(key) and saved[4] == end:
                files.append(saved)
                continue
            digests = None if end is None else _digests(key.path, end)
            if end is not None and digests is None:
                return None
            files.append([*key, end, *(digests[:2] if digests else (None, None))])
        reports = [InputReport.from_account(path, self.unit.format, account)
                   for path, account in zip(self.unit.paths, self.accounts, strict=True)]
        return [RESUME_VERSION, files, encode_unit(self.unit.paths, reports, self.lanes_now()),
                *state]

    def restore(self, point: Sequence[Any]) -> None:
        """Put the reader in the state of ``point`` (raises on a damaged one)."""
        files, records = point[1:3]
        reports, lanes = decode_unit(self.unit.paths, records)
        self.files = [list(entry) for entry in files]
        self.accounts = [
            LineAccount(lines_read=r.lines_read, lines_used=r.lines_used,
                        ignored=Counter(r.ignored), problems=Counter(r.problems),
                        notes=Counter(r.notes))
            for r in reports
        ]
        if any(r.error is not None or r.lines_ignored != sum(r.ignored.values())
               for r in reports):
            raise ValueError("a resume point holds a read without errors")
        if any(isinstance(lane, StreamedLane) for lane in lanes):
            raise ValueError("a resume point holds observations")
        self.errors = [None] * len(reports)
        self.restore_state(point[3:], cast(Sequence[Lane], lanes))

    def finish(self) -> tuple[tuple[InputReport, ...], tuple[Lane, ...]]:
        lanes = self.close()
        reports = tuple(
            InputReport.from_account(path, self.unit.format, account, error=error)
            for path, account, error in zip(self.unit.paths, self.accounts, self.errors,
                                            strict=True)
        )
        return reports, tuple(lanes)


class _ClaudeReading(_Reading):
    """A ``claude-code`` unit (a transcript, or the files of a project folder): the
    folder state with its seen uuids, sidechain roots and lanes tracked by file."""

    earlier_files_resume = True

    def __init__(self, unit: ReadUnit) -> None:
        super().__init__(unit)
        self.folder = ClaudeFolder(cast(Any, self.sink))
        self.seen = _TrackedSeen(self)
        self.folder.seen_uuids = cast(Any, self.seen)
        self.folder.sidechain_roots = _TrackedRoots(self)
        self.folder.lanes = _TrackedLanes(self)

    def _ordered(self) -> list[tuple[LaneBuilder, _Recorder, list[int]]]:
        """The lanes in a full read's order: by the first file that touched them, then
        in order of opening (a resumed file's new lanes come before later files')."""
        lanes = cast(_TrackedLanes, self.folder.lanes)
        found = [(b, cast(_Recorder, b.writer), lanes.touch[k]) for k, b in lanes.items()]
        return sorted(found, key=lambda item: item[2][0])

    def lanes_now(self) -> list[Lane]:
        return [w.now(b.session_id, b.lane_id, b.turn_total_ms) for b, w, _ in self._ordered()]

    def state(self) -> list[Any]:
        roots_table = cast(_TrackedRoots, self.folder.sidechain_roots)
        roots = []
        for uuid, root in roots_table.items():
            compact = compact_key(uuid)  # a canonical UUID as its 16 bytes, another id as is
            roots.append([compact.to_bytes(16, "big") if isinstance(compact, int) else uuid,
                          root, roots_table.files[uuid]])
        by_file: list[list[int | str | bytes]] = [[] for _ in self.unit.paths]
        for seen_key, first in self.seen.first.items():
            by_file[first].append(seen_key)
        return [[_seen_value(keys_) for keys_ in by_file], roots,
                [list(touch) for _, _, touch in self._ordered()]]

    def restore_state(self, state: Sequence[Any], lanes: Sequence[Lane]) -> None:
        seen, roots, touches = state[:3]
        if len(seen) != len(self.accounts) or len(touches) != len(lanes):
            raise ValueError("a resume point has one seen list per file, a touch per lane")
        for index, value in enumerate(seen):
            for seen_key in _seen_keys(value):
                self.seen.first[seen_key] = index
        roots_table = cast(_TrackedRoots, self.folder.sidechain_roots)
        for uuid, root, index in roots:
            if isinstance(uuid, bytes) and len(uuid) == 16:
                uuid = _uuid_text(int.from_bytes(uuid, "big"))
            if not isinstance(uuid, str) or not isinstance(root, str):
                raise ValueError("a sidechain root is an id")
            dict.__setitem__(roots_table, uuid, root)
            roots_table.files[uuid] = int(index)
        table = cast(_TrackedLanes, self.folder.lanes)
        for lane, (first, last) in zip(lanes, touches, strict=True):
            builder = LaneBuilder(lane.path, lane.session_id, lane.lane_id, sink=self.folder.sink)
            _restore_lane(builder, attrs.evolve(lane, measured_turn_duration_ms_total=0.0))
            builder.turn_total_ms = lane.measured_turn_duration_ms_total
            lane_key = (lane.session_id, lane.lane_id)
            table[lane_key] = builder
            table.touch[lane_key] = [int(first), int(last)]

    def read(self, source: Source, account: LineAccount, lines: Iterable[bytes]) -> None:
        read_claude_lines(self.folder, source.path, lines, account)

    def close(self) -> list[Lane]:
        for builder in self.folder.lanes.values():
            builder.build()
        return [w.lane for _, w, _ in self._ordered() if w.lane is not None]


class _EventsReading(_Reading):
    """An ``events`` file: its open lanes (with their turn state), the lanes a
    ``session_shutdown`` closed, and the closed session ids. The reader decides each
    line from the lines before it (``docs/formats.md``), so the new lines of a grown
    file are the last a full read reads."""

    def __init__(self, unit: ReadUnit) -> None:
        super().__init__(unit)
        path = unit.paths[0]
        self.reader = EventsReader(path, file_stem(path), cast(Any, self.sink))

    def _open(self) -> dict[int, LaneBuilder]:
        """The open lanes' builders by their writer."""
        return {id(builder.writer): builder for builder in self.reader.lanes.values()}

    def lanes_now(self) -> list[Lane]:
        builders = self._open()
        lanes = []
        for writer in self.sink.writers:
            builder = builders.get(id(writer))
            if builder is None:
                assert writer.lane is not None  # a lane is open or closed by a shutdown
                lanes.append(writer.lane)
            else:
                lanes.append(writer.now(builder.session_id, builder.lane_id))
        return lanes

    def state(self) -> list[Any]:
        builders = self._open()
        open_lanes = []
        for index, writer in enumerate(self.sink.writers):
            builder = builders.get(id(writer))
            if builder is not None:
                totals = self.reader.turn_totals.get((builder.session_id, builder.lane_id))
                open_lanes.append([index, writer.turn_pending, *(totals or (None, 0.0))])
        return [sorted(self.reader.closed), open_lanes]

    def restore_state(self, state: Sequence[Any], lanes: Sequence[Lane]) -> None:
        closed, open_lanes = state[:2]
        self.reader.closed.update(str(session) for session in closed)
        opened = {int(index): (pending, totals) for index, pending, *totals in open_lanes}
        for index, lane in enumerate(lanes):
            if index not in opened:  # closed by a session_shutdown
                self.sink.open_lane(lane.path).lane = lane
                continue
            pending, (totals_pending, total) = opened[index]
            key = (lane.session_id, lane.lane_id)
            builder = LaneBuilder(lane.path, *key, remember_ids=False, sink=cast(Any, self.sink))
            cast(_Recorder, builder.writer).restore(lane, pending)
            self.reader.lanes[key] = builder
            self.reader.turn_totals[key] = [totals_pending, float(total)]

    def read(self, source: Source, account: LineAccount, lines: Iterable[bytes]) -> None:
        self.reader.read(lines, account)

    def close(self) -> list[Lane]:
        self.reader.finish()
        return [w.lane for w in self.sink.writers if w.lane is not None]


class _CodexReading(_Reading):
    """A Codex rollout: its one lane's kept observations (the batched-write rule may
    still rewrite a start when its output comes), session id and whether a record was
    read. While a fork's replay gate is open, a later line (or the end of the file)
    decides the lines under it: no resume point is kept then (the file is read in
    full when it grows)."""

    def __init__(self, unit: ReadUnit) -> None:
        super().__init__(unit)
        self.reader: CodexReader | None = None

    def _reader(self) -> CodexReader:
        if self.reader is None:
            self.reader = CodexReader(self.unit.paths[0], cast(Any, self.sink), self.accounts[0])
        return self.reader

    def lanes_now(self) -> list[Lane]:
        reader = self._reader()
        if not reader.seen:
            return []
        lane = reader.lane
        return [Lane(lane.path, "", "main", tuple(lane.observations), lane.turn_total_ms)]

    def state(self) -> list[Any] | None:
        reader = self._reader()
        if reader.state.gate is not None:
            return None
        return [reader.state.session_id, reader.seen]

    def restore_state(self, state: Sequence[Any], lanes: Sequence[Lane]) -> None:
        session_id, seen = state[:2]
        if not isinstance(session_id, str | None) or len(lanes) != bool(seen):
            raise ValueError("a rollout's state is its session id and at most one lane")
        reader = self._reader()
        reader.seen = bool(seen)
        reader.restore(lanes[0].observations if lanes else (), session_id)

    def read(self, source: Source, account: LineAccount, lines: Iterable[bytes]) -> None:
        self._reader().read(lines)

    def close(self) -> list[Lane]:
        self._reader().finish()
        return [w.lane for w in self.sink.writers if w.lane is not None]


class _PiReading(_Reading):
    """A pi folder, read parents first (``readers.pi.reading_order``). Only the file
    read last resumes, and only when it is not read as a fork (a fork's entries are
    dropped against every entry read in the folder, which is not kept) and the
    reading order is the one the resume point was kept with (headers are peeked from
    a file's first lines, which a growing file may still be writing)."""

    def __init__(self, unit: ReadUnit) -> None:
        super().__init__(unit)
        order, forks = reading_order([Source(path) for path in unit.paths])
        self.order = [unit.paths.index(path) for path in order]
        self.forks = [forks[path] for path in unit.paths]
        self.entries: set[tuple[str, str]] = set()
        self.readers: dict[int, PiReader] = {}

    def _reader(self, index: int) -> PiReader:
        reader = self.readers.get(index)
        if reader is None:
            reader = self.readers[index] = PiReader(
                self.unit.paths[index], cast(Any, self.sink), self.accounts[index],
                entries=self.entries, fork=self.forks[index])
        return reader

    def lanes_now(self) -> list[Lane]:
        lanes = [w.lane for w in self.sink.writers if w.lane is not None]
        last = self._reader(self.order[-1])
        if last.seen:  # the last file's lane, still open, was opened last
            lanes.append(cast(_Recorder, last.state.lane.writer).now("", "main"))
        return lanes

    def state(self) -> list[Any] | None:
        if self.forks[self.order[-1]]:
            return None
        last = self._reader(self.order[-1])
        if last.waiting:  # a later result decides when the waiting calls start
            return None
        return [self.order, last.seen, last.state.session_id, last.state.version]

    def restore_state(self, state: Sequence[Any], lanes: Sequence[Lane]) -> None:
        order, seen, session_id, version = state[:4]
        if list(order) != self.order or self.forks[self.order[-1]]:
            raise ValueError("the folder's reading order or its last file's header changed")
        if (not isinstance(session_id, str | None) or (seen and not lanes)
                or not (version is None or type(version) is int)):
            raise ValueError("a pi file's state is its session id, format version and at"
                             " most one lane")
        for lane in lanes[:-1] if seen else lanes:  # the other files' lanes, closed
            self.sink.open_lane(lane.path).lane = lane
        last = self._reader(self.order[-1])
        last.seen, last.state.session_id = bool(seen), session_id
        last.state.version = version
        if seen:
            _restore_lane(last.state.lane, lanes[-1])

    def read(self, source: Source, account: LineAccount, lines: Iterable[bytes]) -> None:
        reader = self._reader(self.current)
        reader.read(lines)
        if self.current != self.order[-1]:
            reader.finish()  # as read_pi_folder: each file's lane is closed once it is read

    def close(self) -> list[Lane]:
        self._reader(self.order[-1]).finish()
        return [w.lane for w in self.sink.writers if w.lane is not None]


def _restore_lane(builder: LaneBuilder, lane: Lane) -> None:
    """Put ``lane``'s observations in ``builder``'s writer and its first-start-wins
    bookkeeping (the names of the calls started, the ids ended)."""
    cast(_Recorder, builder.writer).restore(lane)
    for item in lane.observations:
        if item.kind == "start":
            builder.start_names[item.call_id] = item.tool_name
        else:
            builder.ended.add(item.call_id)


#: The formats whose units resume, and how each is read (module docstring).
_READINGS: dict[str, type[_Reading]] = {
    FORMAT: _ClaudeReading, EVENTS_FORMAT: _EventsReading, CODEX_FORMAT: _CodexReading,
    PI_FORMAT: _PiReading,
}


def _read_file(
    reading: _Reading, keys: Sequence[FileKey], index: int, offset: int,
    ends: list[int | None],
) -> list[Any] | None:
    """Read file ``index`` from ``offset``. For the unit's last file, the resume point
    after its last complete line (``None`` if none can be kept); ``ends[index]`` is set
    for the others (its size, or ``None`` if its last line has no newline)."""
    reading.current = index
    key = keys[index]
    source = _FileFrom(reading.unit.paths[index], offset=offset)  # the path as named
    terminated = _terminated(key)
    account = reading.accounts[index]
    point: list[list[Any] | None] = []
    if index != reading.order[-1]:
        reading.read(source, account, source.lines())
        ends[index] = key.size if terminated else None
    else:
        def mark(end: int) -> None:
            ends[index] = end
            point.append(reading.point(keys, ends))

        reading.read(source, account, _marked(
            source.lines(), source, key.size, bool(terminated), mark))
    reading.errors[index] = source.error
    if source.stream is not None:
        source.stream.close()
    return point[0] if point else None


def _resume(
    unit: ReadUnit, keys: Sequence[FileKey], point: Any
) -> tuple[_Reading, int, int, list[int | None]] | None:
    """A reading restored from ``point``, the index of the one file that grew, the
    offset to read it from and every file's resume offset, or ``None`` when the unit
    is not one whose one file only grew (module docstring)."""
    try:
        version, files = point[:2]
        saved = [(list(entry[:4]), entry[4], entry[5], entry[6]) for entry in files]
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    if version != RESUME_VERSION or len(saved) != len(keys):
        return None
    changed = [i for i, key in enumerate(keys) if list(key) != saved[i][0]]
    if len(changed) != 1:
        return None
    index = changed[0]
    (path, size, _, inode), end, head, tail = saved[index]
    new = keys[index]
    if path != new.path or inode != new.inode or not new.size > size:
        return None
    if not isinstance(end, int) or not 0 <= end <= size:
        return None
    digests = _digests(new.path, end)
    if digests is None or digests[:2] != (head, tail) or (end and digests[2] == _BOM):
        return None
    reading = _READINGS[unit.format](unit)
    last = reading.order[-1]
    if index != last and (not reading.earlier_files_resume or saved[last][1] != saved[last][0][1]):
        return None  # the last file's partial line is not in the state: only it resumes
    try:
        reading.restore(point)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError):
        return None  # damaged: read in full and replaced, never trusted
    reading.later = index != last
    return reading, index, end, [entry[1] for entry in saved]


def read_resuming(
    unit: ReadUnit, keys: Sequence[FileKey], limits: str, cache: ReadCache,
    sources: dict[str, Source] | None = None,
) -> UnitResult[Lane] | None:
    """Read a ``claude-code``, ``events``, ``codex`` or ``pi`` unit of plain files (``keys``:
    their keys before the read) from its resume point when one file only grew, else
    in full; store the new resume point if no file changed meanwhile and every file
    was read without error. ``None`` for a unit this module does not read (another
    format, gzip, stdin): the caller reads it as before. Same reports and lanes as
    ``read_unit(unit, None)``.
    """
    if unit.format not in _READINGS or not keys or any(
        (sources or {}).get(path) is not None for path in unit.paths
    ) or not all(_plain(path) for path in unit.paths):
        return None
    from wavemetrics.cache import file_key

    unit_id = resume_unit_id(unit, limits)
    resumed = _resume(unit, keys, cache.load_resume(unit_id))
    point = None
    if resumed is not None:
        reading, index, offset, ends = resumed
        point = _read_file(reading, keys, index, offset, ends)
        if reading.inexact:
            resumed = None  # the full read would differ: read in full
        elif index != reading.order[-1]:
            point = reading.point(keys, ends)
    if resumed is None:
        reading = _READINGS[unit.format](unit)
        ends = [None] * len(keys)
        reading.accounts = [LineAccount() for _ in keys]
        reading.errors = [None] * len(keys)
        for index in reading.order:
            point = _read_file(reading, keys, index, 0, ends)
    reports, lanes = reading.finish()
    unchanged = [file_key(path) for path in unit.paths] == list(keys)
    if point is not None and unchanged and all(r.error is None for r in reports):
        cache.store_resume(unit_id, point)
    return UnitResult(reports, lanes)
