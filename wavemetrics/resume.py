"""Reading a grown transcript from where it ended (issue 13: "a file that only grew is
read from where it ended").

Agent sessions are appended to all the time; without this, any change of a
file's size or mtime is a cache miss and the file is read again in full. Here a
read unit of the ``claude-code`` format (one transcript, or the files of one
project folder) keeps a **resume point** in the cache (table ``resumes``, one
row per unit): the state of the reader after the last complete line of the
unit's last file, as compact records:

- every file's key (path, size, ``st_mtime_ns``, inode) and line accounting;
- every lane's ids, turn total and observations (``kind``, call id, tool name,
  time), exactly what the ``units`` table keeps;
- the line ``uuid`` values seen, as :func:`~wavemetrics.readers._seen.compact_key`
  keys (a UUID as its 16 bytes), and each inline sub-agent line's chain root (ids only);
- ``end``, the byte offset just after the last complete (newline-ended) line of
  the last file, and BLAKE2b digests of the :data:`WINDOW` bytes that begin the
  file and of the :data:`WINDOW` bytes that end at ``end``.

Never text, arguments, results or prompts.

**When it is used** (else the unit is read in full, as before): the unit's
format is ``claude-code``; its files are plain (not gzip); every file but the
last has the very key it had; the last file has the same path and inode, a
larger size, both digests still match, and its bytes at ``end`` do not begin
with a UTF-8 BOM (a reader drops a BOM on a file's first line only). Then only
the bytes from ``end`` on are read, fed to the reader restored from the resume
point, and the unit's lanes built as a full read builds them: a full read of the
same files gives the same reports and lanes, line by line, because the Claude
Code reader decides each line from the lines before it only (``spec/formats.md``:
a ``forkedFrom`` line is judged by itself, ``uuid`` de-duplication and sidechain
roots look back) and the new lines are the last ones a full read reads.

A partial last line (no newline yet: the agent was writing it) is not part of
the resume point: it is read again with what follows it, never counted twice.

Why only the **last** file of a unit: a full read reads a folder's files in
path order, so new lines of an earlier file would come before the later files'
lines (de-duplication and lane order would differ); such a unit is read in full.
The main transcript of a session with sub-agent files sorts before them
(``s.jsonl`` < ``s/subagents/...``), so a folder read with it resumes only when
it is the last file. The status line reads one transcript: a unit of one file.

**What the check could miss**: a rewrite in place (same inode) that leaves the
first :data:`WINDOW` bytes and the :data:`WINDOW` bytes before ``end`` as they
were, changes bytes between them, and makes the file larger. Appending writers
never do this; editors and tools that rewrite a file write a new inode, and a
truncation makes the file smaller; both are full reads. Hashing the whole prefix
would close it at the price of reading it (what resuming avoids).

Other formats (``events``, Codex, pi, JSON documents, OTLP, Inspect) are read in
full when they change; see ``docs/architecture.md``.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, cast

import attrs

from wavemetrics.observations import Observation
from wavemetrics.pipeline import Lane, StreamedLane, UnitResult
from wavemetrics.readers import ReadUnit
from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers._seen import SeenIds, compact_key
from wavemetrics.readers.claude_code import FORMAT, ClaudeFolder, read_claude_lines
from wavemetrics.readers.lanes import UNKNOWN_TOOL, InputReport, LaneBuilder
from wavemetrics.readers.sources import GZIP_MAGIC, Source
from wavemetrics.turns import TurnClock
from wavemetrics.unit_records import decode_unit, encode_unit

if TYPE_CHECKING:
    from wavemetrics.cache import FileKey, ReadCache

__all__ = ["RESUME_VERSION", "WINDOW", "read_resuming", "resume_unit_id"]

#: Bytes hashed at the start of the last file and before ``end`` (64 KiB each).
WINDOW = 64 * 1024
#: The layout of a resume point; another value is read in full and replaced.
RESUME_VERSION = 1
_BOM = b"\xef\xbb\xbf"


def resume_unit_id(unit: ReadUnit, limits: str) -> str:
    """The cache row of ``unit``'s resume point: its format, paths, the limits in force
    (``wavemetrics.cache.limits_key``) and the wavemetrics version, not the files' keys."""
    from wavemetrics.cache import unit_key

    return unit_key(unit.format, [], f"{limits}/resume:{list(unit.paths)}").unit


def _open_at(path: str, offset: int) -> IO[bytes]:
    """``path`` opened for binary reading at ``offset`` (tests wrap it to count bytes)."""
    stream = open(path, "rb")  # noqa: SIM115 (closed by the Source reading it)
    stream.seek(offset)
    return stream


@attrs.define(eq=False)
class _FileFrom(Source):
    """A plain file read from byte ``offset`` on, keeping its open stream (for ``tell``)."""

    offset: int = 0
    stream: IO[bytes] | None = None

    def _open(self) -> Any:
        self.stream = _open_at(self.path, self.offset)
        return self.stream


class _Recorder:
    """A lane writer keeping its observations in order; closes to the same :class:`Lane`
    as the pipeline's batch writer (its observations in feed order, an end named after
    its start, else ``unknown``)."""

    def __init__(self, sink: _Sink, path: str) -> None:
        self.sink, self.path = sink, path
        self.observations: list[Observation] = []
        self.names: dict[str, str] = {}
        self.turns = TurnClock()
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
        for kind, call_id, name, at in zip(kinds, call_ids, tool_names, at_ms, strict=True):
            if kind == "start":
                self.start(call_id, name, at)
            else:
                self.end(call_id, at)

    def turn_event(self, kind: str, at_ms: float) -> None:
        self.turns.add(kind, at_ms)

    def close(self, session_id: str, lane_id: str, turn_duration_ms: float = 0.0) -> None:
        turns = turn_duration_ms + self.turns.total_ms
        self.lane = Lane(self.path, session_id, lane_id, tuple(self.observations), turns)


class _Sink:
    """The observation sink of a resumable read: one :class:`_Recorder` per lane."""

    def __init__(self) -> None:
        self.writers: list[_Recorder] = []

    def open_lane(self, path: str) -> _Recorder:
        writer = _Recorder(self, path)
        self.writers.append(writer)
        return writer


def _digests(path: str, end: int) -> tuple[bytes, bytes, bytes] | None:
    """BLAKE2b of the first :data:`WINDOW` bytes before ``end`` and of the last ones,
    and the 3 bytes at ``end``; ``None`` if the file cannot be read that far."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(min(WINDOW, end))
            start = max(0, end - WINDOW)
            if end <= WINDOW:  # the head is the whole prefix
                tail = head[start:end]
            else:
                stream.seek(start)
                tail = stream.read(end - start)
            stream.seek(end)
            after = stream.read(len(_BOM))
    except OSError:
        return None
    if len(head) != min(WINDOW, end) or len(tail) != end - start:
        return None
    return (hashlib.blake2b(head, digest_size=16).digest(),
            hashlib.blake2b(tail, digest_size=16).digest(), after)


def _plain(path: str) -> bool:
    """A file the resumable read takes: not gzip (by suffix or magic bytes)."""
    if path.endswith(".gz"):
        return False
    try:
        with open(path, "rb") as stream:
            return stream.read(2) != GZIP_MAGIC
    except OSError:
        return False


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


class _Reading:
    """A claude-code unit being read: its folder state, sink and per-file accounts."""

    def __init__(self, unit: ReadUnit) -> None:
        self.unit = unit
        self.sink = _Sink()
        self.folder = ClaudeFolder(cast(Any, self.sink))
        self.accounts: list[LineAccount] = []
        self.errors: list[str | None] = []

    def point(self, keys: Sequence[FileKey], end: int) -> list[Any] | None:
        """The resume point of the state as it is now, with the last file read to ``end``;
        ``None`` when the file cannot be read that far."""
        roots = []
        for uuid, root in self.folder.sidechain_roots.items():
            key = compact_key(uuid)  # a canonical UUID as its 16 bytes, another id as is
            roots.append([key.to_bytes(16, "big") if isinstance(key, int) else uuid, root])
        digests = _digests(keys[-1].path, end)
        if digests is None:
            return None
        paths = self.unit.paths
        reports = [InputReport.from_account(path, self.unit.format, account)
                   for path, account in zip(paths, self.accounts, strict=True)]
        lanes = [Lane(w.path, b.session_id, b.lane_id, tuple(w.observations), b.turn_total_ms)
                 for b in self.folder.lanes.values()
                 for w in [cast(_Recorder, b.writer)]]
        return [
            RESUME_VERSION, [list(key) for key in keys], end, digests[0], digests[1],
            encode_unit(paths, reports, lanes),
            _seen_value(self.folder.seen_uuids.compact_keys()), roots,
        ]

    def restore(self, point: Sequence[Any]) -> None:
        """Put the reader in the state of ``point`` (raises on a damaged one)."""
        records, seen, roots = point[5], point[6], point[7]
        reports, lanes = decode_unit(self.unit.paths, records)
        self.accounts = [
            LineAccount(lines_read=r.lines_read, lines_used=r.lines_used,
                        ignored=Counter(r.ignored), problems=Counter(r.problems),
                        notes=Counter(r.notes))
            for r in reports
        ]
        if any(r.error is not None or r.lines_ignored != sum(r.ignored.values())
               for r in reports):
            raise ValueError("a resume point holds a read without errors")
        self.errors = [None] * len(reports)
        folder = self.folder
        folder.seen_uuids = SeenIds.from_compact_keys(_seen_keys(seen))
        for uuid, root in roots:
            if isinstance(uuid, bytes) and len(uuid) == 16:
                uuid = _uuid_text(int.from_bytes(uuid, "big"))
            if not isinstance(uuid, str) or not isinstance(root, str):
                raise ValueError("a sidechain root is an id")
            folder.sidechain_roots[uuid] = root
        for lane in lanes:
            if isinstance(lane, StreamedLane):
                raise ValueError("a resume point holds observations")
            builder = LaneBuilder(lane.path, lane.session_id, lane.lane_id, sink=folder.sink)
            writer = cast(_Recorder, builder.writer)
            for item in lane.observations:
                if item.kind == "start":
                    writer.start(item.call_id, item.tool_name, item.at_ms)
                    builder.start_names[item.call_id] = item.tool_name
                else:
                    writer.end(item.call_id, item.at_ms)
                    builder.ended.add(item.call_id)
            builder.turn_total_ms = lane.measured_turn_duration_ms_total
            folder.lanes[(lane.session_id, lane.lane_id)] = builder

    def read(self, source: Source, account: LineAccount, lines: Iterable[bytes]) -> None:
        read_claude_lines(self.folder, source.path, lines, account)

    def finish(self) -> tuple[tuple[InputReport, ...], tuple[Lane, ...]]:
        for builder in self.folder.lanes.values():
            builder.build()
        reports = tuple(
            InputReport.from_account(path, self.unit.format, account, error=error)
            for path, account, error in zip(self.unit.paths, self.accounts, self.errors,
                                            strict=True)
        )
        lanes = tuple(w.lane for w in self.sink.writers if w.lane is not None)
        return reports, lanes


def _marked(
    lines: Iterator[bytes], source: _FileFrom, size: int, terminated: bool,
    mark: Callable[[int], None],
) -> Iterator[bytes]:
    """``lines`` of the last file; ``mark(offset)`` is called once, before the line that
    has no newline yet (if any) is handed on, with the offset where that line begins."""
    position = source.offset
    marked = False
    for raw in lines:
        now = source.stream.tell() if source.stream is not None else position
        if not marked and not terminated and now >= size:
            mark(position)
            marked = True
        position = now
        yield raw
    if not marked:
        mark(position)


def _read_last(
    reading: _Reading, keys: Sequence[FileKey], offset: int,
) -> list[Any] | None:
    """Read the unit's last file from ``offset``; the resume point after its last
    complete line (``None`` if none can be kept)."""
    key = keys[-1]
    source = _FileFrom(reading.unit.paths[-1], offset=offset)  # the path as named: lanes show it
    terminated = True
    if key.size > 0:
        try:
            with open(key.path, "rb") as stream:
                stream.seek(key.size - 1)
                terminated = stream.read(1) == b"\n"
        except OSError:
            terminated = False
    account = reading.accounts[-1]
    point: list[list[Any] | None] = []
    reading.read(source, account, _marked(
        source.lines(), source, key.size, terminated,
        lambda end: point.append(reading.point(keys, end)),
    ))
    reading.errors[-1] = source.error
    if source.stream is not None:
        source.stream.close()
    return point[0] if point else None


def _resume(unit: ReadUnit, keys: Sequence[FileKey], point: Any) -> tuple[_Reading, int] | None:
    """A reading restored from ``point`` and the offset to read the last file from, or
    ``None`` when the unit is not one that only grew (module docstring)."""
    try:
        version, saved, end, head, tail = point[:5]
        saved_keys = [tuple(k) for k in saved]
    except (TypeError, ValueError, IndexError):
        return None
    if version != RESUME_VERSION or len(saved_keys) != len(keys):
        return None
    if [tuple(k) for k in keys[:-1]] != saved_keys[:-1]:
        return None
    old, new = saved_keys[-1], keys[-1]
    if len(old) != 4 or old[0] != new.path or old[3] != new.inode or not new.size > old[1]:
        return None
    if not isinstance(end, int) or not 0 <= end <= old[1]:
        return None
    digests = _digests(new.path, end)
    if digests is None or digests[:2] != (head, tail) or (end and digests[2] == _BOM):
        return None
    reading = _Reading(unit)
    try:
        reading.restore(point)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError):
        return None  # damaged: read in full and replaced, never trusted
    return reading, end


def read_resuming(
    unit: ReadUnit, keys: Sequence[FileKey], limits: str, cache: ReadCache,
    sources: dict[str, Source] | None = None,
) -> UnitResult[Lane] | None:
    """Read a ``claude-code`` unit of plain files (``keys``: their keys before the read)
    from its resume point when only its last file grew, else in full; store the new
    resume point if no file changed meanwhile and every file was read without error.
    ``None`` for a unit this module does not read (another format, gzip, stdin): the
    caller reads it as before. Same reports and lanes as ``read_unit(unit, None)``.
    """
    if unit.format != FORMAT or not keys or any(
        (sources or {}).get(path) is not None for path in unit.paths
    ) or not all(_plain(path) for path in unit.paths):
        return None
    from wavemetrics.cache import file_key

    unit_id = resume_unit_id(unit, limits)
    resumed = _resume(unit, keys, cache.load_resume(unit_id))
    if resumed is None:
        reading, offset = _Reading(unit), 0
        for path in unit.paths[:-1]:
            source = Source(path)
            account = LineAccount()
            reading.accounts.append(account)
            reading.read(source, account, source.lines())
            reading.errors.append(source.error)
        reading.accounts.append(LineAccount())
        reading.errors.append(None)
    else:
        reading, offset = resumed
    point = _read_last(reading, keys, offset)
    reports, lanes = reading.finish()
    unchanged = [file_key(path) for path in unit.paths] == list(keys)
    if point is not None and unchanged and all(r.error is None for r in reports):
        cache.store_resume(unit_id, point)
    return UnitResult(reports, lanes)
