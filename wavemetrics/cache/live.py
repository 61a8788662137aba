"""The status line's live state of a transcript: its figures after appended lines,
in time proportional to the new lines (the status line's grown-transcript path).

A read of a grown transcript from its first byte costs time in proportion to
the whole session. The status line needs three figures only (waves,
multi-call waves, modeled saving), so it keeps, per transcript, what a
**streaming** read holds after the last complete line (table ``live_states``):

- each lane's :class:`~wavemetrics.core.stream.LaneStream` state: pending calls, the
  open region (calls of waves that may still grow), pairing counters and the
  summary sums so far: the waves already closed are sums, not calls;
- the ids the Claude Code reader must remember for exactness (line ``uuid``
  de-duplication, first start and first end of a call id per lane), as SHA-256
  digests (the standard of :mod:`wavemetrics.readers._seen` for long ids), one
  row each in the cache's table ``live_ids`` (``(state, digest)``, ``WITHOUT
  ROWID``): a run looks up only the digests of the lines it reads, one indexed
  query each, and links the new ones in, in the transaction that stores the state;
- the line accounting, sub-agent chain roots, and the offset to read on from and
  its digests (the rules of :mod:`wavemetrics.cache._appended`: same path and inode,
  larger size, the 64 KiB windows unchanged).

**Integrity** (a damaged state is never trusted): the state row is checked as
every cache row (its BLAKE2b digest, then decoding); the id rows are checked per
lookup, on the rows each answer rests on (:class:`~wavemetrics.cache.units.LiveIds`:
each row names the next larger digest and carries a tag, so a lost row, a row
changed in place or a missing head is seen by any lookup that relies on it),
and a state found damaged is read again from byte 0. Rows only ever change with
their state row, in one transaction
(:meth:`~wavemetrics.cache.units.ReadCache.store_live`), a state built from byte 0
replacing all of them. What these checks cannot see is a row added with a
correct tag and linked in: an edit of the database by something that computes
wavemetrics' tags, as a cache row forged with its digest.

A grown transcript is then read from its offset into the restored state, and
each lane's stream is finished: :class:`~wavemetrics.core.stream.LaneStream` gives
the batch path's figures exactly (``docs/metrics.md``; property tests of the
core). Whenever exactness cannot be kept this way (a call that would join a
wave already summed: :class:`~wavemetrics.core.stream.StreamOrderError`; an input
error; a transcript whose every record is a problem; another format), the
status line computes as before (:func:`wavemetrics.cli.statusline._compute`).
Nothing here holds text: ids only as digests, tool names only of calls still
open or pending.
"""

from __future__ import annotations

import hashlib
import importlib
import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from wavemetrics.cache._appended import _BOM, _digests, _FileFrom, _marked, _plain
from wavemetrics.core.activity import ActivityAccumulator
from wavemetrics.core.exceptions import StreamOrderError
from wavemetrics.core.stream import LaneStream
from wavemetrics.core.summary import SummaryAccumulator, merge_summaries
from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.readers.registry import live_row
from wavemetrics.readers.sources import DETECT_LINES

if TYPE_CHECKING:
    from wavemetrics.cache.units import FileKey, ReadCache
    from wavemetrics.readers._protocol import LiveReading

__all__ = ["LIVE_VERSION", "live_figures"]

#: The layout of a live state; another value is read from byte 0 and replaced.
LIVE_VERSION = 2

#: The format whose transcripts have live states (the registry row with ``live``),
#: and its live reading (:class:`~wavemetrics.readers._protocol.LiveReading`).
_ROW = live_row()
FORMAT = _ROW.name
_READING: LiveReading = getattr(importlib.import_module(_ROW.module), _ROW.live or "")


def _unit(path: str) -> tuple[str, int]:
    """The cache row of ``path``'s live state, and the ``state`` its ids are stored
    under in table ``live_ids`` (the row's first 60 bits)."""
    from wavemetrics.cache.units import limits_key, live_state, unit_key

    unit = unit_key(FORMAT, [], f"{limits_key(None)}/statusline-live:{path}").unit
    return unit, live_state(unit)


class _Ids:
    """Id digests seen: those of the stored state (table ``live_ids``, asked one digest
    at a time through ``known``) and the new ones, in memory until stored."""

    def __init__(self, known: Callable[[bytes], bool] | None = None) -> None:
        self.known = known
        self.new: set[bytes] = set()

    def __contains__(self, digest: object) -> bool:
        if digest in self.new:
            return True
        return self.known is not None and self.known(cast(bytes, digest))

    def add(self, digest: bytes) -> bool:
        """Remember ``digest``; ``True`` if it was new."""
        if digest in self:
            return False
        self.new.add(digest)
        return True


def _digest(kind: bytes, *parts: str) -> bytes:
    data = kind + b"\x00".join(part.encode("utf-8", "surrogatepass") for part in parts)
    return hashlib.sha256(data).digest()


class _Seen:
    """The reader's ``seen_uuids`` over :class:`_Ids` (``add`` as :class:`SeenIds`'s)."""

    def __init__(self, ids: _Ids) -> None:
        self.ids = ids

    def add(self, text: str) -> bool:
        return self.ids.add(_digest(b"u", text))

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and _digest(b"u", text) in self.ids


class _LaneIds:
    """A lane's ``start_names`` or ``ended`` over :class:`_Ids`: membership and adding
    only (the Claude Code reader needs no start name back: its lanes are not batch-only)."""

    def __init__(self, ids: _Ids, kind: bytes, lane: str) -> None:
        self.ids, self.kind, self.lane = ids, kind, lane

    def __contains__(self, call_id: object) -> bool:
        return isinstance(call_id, str) and _digest(self.kind, self.lane, call_id) in self.ids

    def __setitem__(self, call_id: str, _name: str) -> None:
        self.ids.add(_digest(self.kind, self.lane, call_id))

    def add(self, call_id: str) -> None:
        self.ids.add(_digest(self.kind, self.lane, call_id))


class _LiveLane(LaneStream):
    """A lane summarised as fed; a call that would join a summed wave marks the sink."""

    def __init__(self, sink: _Sink) -> None:
        super().__init__()
        self.sink = sink

    def end(self, call_id: str, at_ms: float) -> None:
        try:
            super().end(call_id, at_ms)
        except StreamOrderError:
            self.sink.inexact = True

    def extend(self, kinds: Sequence[str], call_ids: Sequence[str],
               tool_names: Sequence[str], at_ms: Sequence[float],
               batches: Sequence[str | None] | None = None) -> None:
        keys = [None] * len(kinds) if batches is None else batches
        for kind, call_id, name, at, batch in zip(
            kinds, call_ids, tool_names, at_ms, keys, strict=True
        ):
            if kind == "start":
                self.start(call_id, name, at, batch)
            else:
                self.end(call_id, at)

    def turn_event(self, kind: str, at_ms: float) -> None:
        self.sink.inexact = True  # the Claude Code reader has none: not kept here

    def close(self, session_id: str, lane_id: str, turn_duration_ms: float = 0.0) -> None:
        pass  # the figures come from finish(), called by live_figures


class _Sink:
    def __init__(self, restored: list[LaneStream]) -> None:
        self.restored = restored
        self.writers: list[_LiveLane] = []
        self.inexact = False

    def open_lane(self, path: str) -> _LiveLane:
        index = len(self.writers)
        writer = cast(_LiveLane, self.restored[index]) if index < len(self.restored) else (
            _LiveLane(self))
        self.writers.append(writer)
        return writer


def _stream_state(stream: LaneStream) -> list[Any]:
    fields = {k: v for k, v in vars(stream).items() if k not in ("summary", "sink", "activity")}
    fields["pending"] = [[k, *start] for k, start in stream.pending.items()]
    fields["open"] = [list(call) for call in stream.open]
    summary = {k: v for k, v in vars(stream.summary).items() if k not in _NOT_KEPT}
    summary["eval_names"] = list(stream.summary.eval_names)
    return [fields, summary, stream.activity.state()]


#: Memos (rebuilt on use) and the accumulator's own nested parts, not kept as they are.
_NOT_KEPT = ("_eval_memo", "_batchable_memo", "activity")


def _restore_stream(state: Any, sink: _Sink) -> _LiveLane:
    fields, summary, kept = state
    stream = _LiveLane.__new__(_LiveLane)
    accumulator = SummaryAccumulator.__new__(SummaryAccumulator)
    accumulator.__dict__.update(summary)
    accumulator.eval_names = tuple(summary["eval_names"])
    accumulator._eval_memo = {}
    activity = ActivityAccumulator.from_state(kept)
    accumulator.activity = activity
    stream.__dict__.update(fields)
    stream.pending = {
        str(k): (str(name), at, None if batch is None else str(batch))
        for k, name, at, batch in fields["pending"]
    }
    stream.open = [(a, b, c, str(d), str(e)) for a, b, c, d, e in fields["open"]]
    stream.summary = accumulator
    stream.activity = activity
    stream.sink = sink
    fresh = _LiveLane(sink)
    if (set(vars(fresh)) != set(vars(stream))
            or set(vars(fresh.summary)) != set(vars(accumulator))
            or set(vars(fresh.activity)) != set(vars(activity))):
        raise ValueError("a live lane of another shape")
    return stream


class _Lanes(dict):  # type: ignore[type-arg]
    """The reader's lanes by key; a lane put in gets its id sets over the packed ids
    (the reader's ``folder.lanes[key] = LaneBuilder(...)``), named by its index."""

    def __init__(self, ids: _Ids) -> None:
        super().__init__()
        self.ids = ids

    def __setitem__(self, key: Any, builder: Any) -> None:
        index = str(len(self))
        builder.start_names = _LaneIds(self.ids, b"s", index)
        builder.ended = _LaneIds(self.ids, b"e", index)
        super().__setitem__(key, builder)


class _State:
    """A transcript being read into live lanes."""

    def __init__(self, path: str, ids: _Ids) -> None:
        self.path, self.ids = path, ids
        self.sink = _Sink([])
        self.folder = _READING.folder(cast(Any, self.sink))
        self.folder.seen_uuids = cast(Any, _Seen(ids))
        self.folder.lanes = _Lanes(ids)
        self.account = LineAccount()

    def lane(self, session_id: str, lane_id: str, path: str) -> LaneBuilder:
        builder = LaneBuilder(path, session_id, lane_id, sink=self.folder.sink)
        self.folder.lanes[(session_id, lane_id)] = builder
        return builder

    def snapshot(self, key: FileKey, end: int) -> tuple[list[Any], list[bytes]] | None:
        """The live state after the line ending at ``end``, and the ids new since the
        stored state (they go to table ``live_ids``)."""
        digests = _digests(key.path, end)
        if digests is None:
            return None
        account = self.account
        lanes = [[b.session_id, b.lane_id, b.turn_total_ms, _stream_state(w)]
                 for b, w in zip(self.folder.lanes.values(), self.sink.writers, strict=True)]
        new = list(self.ids.new)
        return [
            LIVE_VERSION, list(key), end, digests[0], digests[1],
            [account.lines_read, account.lines_used, dict(account.ignored),
             dict(account.problems), dict(account.notes)],
            lanes, [[k, v] for k, v in self.folder.sidechain_roots.items()],
        ], new


def _restore(
    path: str, key: FileKey, point: Any, known: Callable[[bytes], bool]
) -> tuple[_State, int] | None:
    try:
        version, saved, end, head, tail = point[:5]
        counts, lanes, roots = point[5:8]
    except (TypeError, ValueError):
        return None
    if version != LIVE_VERSION or not isinstance(saved, list) or len(saved) != 4:
        return None
    if saved[0] != key.path or saved[3] != key.inode or not key.size > saved[1]:
        return None
    if not isinstance(end, int) or not 0 <= end <= saved[1]:
        return None
    digests = _digests(key.path, end)
    if digests is None or digests[:2] != (head, tail) or (end and digests[2] == _BOM):
        return None
    state = _State(path, _Ids(known))
    try:
        read, used, ignored, problems, notes = counts
        state.account = LineAccount(lines_read=int(read), lines_used=int(used))
        state.account.ignored.update(ignored)
        state.account.problems.update(problems)
        state.account.notes.update(notes)
        state.sink.restored = [_restore_stream(lane[3], state.sink) for lane in lanes]
        for session_id, lane_id, turns, _ in lanes:
            builder = state.lane(str(session_id), str(lane_id), path)
            builder.turn_total_ms = float(turns)
        for uuid, root in roots:
            state.folder.sidechain_roots[str(uuid)] = str(root)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None  # damaged: read from byte 0, never trusted
    return state, end


def _detection_kept(account: LineAccount) -> bool:
    """Whether the restored state's lines decide the grown file's detection as they
    decided it when the state was built (``claude-code``: a state is only stored then).
    Detection peeks at the first :data:`DETECT_LINES` lines with content (fewer when a
    cap stops it first), and the bytes before the state's offset are those read then
    (the checks of :mod:`wavemetrics.cache._appended`): when at least that many complete
    lines with content lie before it, the peek is the same. Lines too long are not
    counted (a peek may take them for blank)."""
    content = (account.lines_read - account.ignored.get("blank_line", 0)
               - account.problems.get("line_too_long", 0))
    return content >= DETECT_LINES


def live_figures(
    path: str, key: FileKey, cache: ReadCache, *, trusted: bool = True
) -> tuple[int, int, float] | None:
    """The status-line figures of the transcript ``path`` (``key``: its key now) from
    its live state, read on from where it ended (or from byte 0 without one, or when
    ``trusted`` is false), or ``None`` when this module cannot give them exactly: the
    caller then computes them as before. Stores the new live state when the file did
    not change while read. A state whose id rows prove damaged while read
    (:class:`~wavemetrics.cache.units.LiveIdsDamaged`) is read again from byte 0."""
    from wavemetrics.cache.units import LiveIdsDamaged, file_key, utf8_names

    if not _plain(key.path) or not utf8_names([key]):  # a live state holds the name as UTF-8
        return None
    unit, live = _unit(key.path)
    loaded = cache.load_live(unit) if trusted else None
    restored = None
    if loaded is not None:
        try:
            restored = _restore(path, key, loaded[0], cache.live_id_lookup(live))
        except sqlite3.Error:
            return None
    if restored is None or not _detection_kept(restored[0].account):
        from wavemetrics.readers.dispatch import detect_input  # every reader: only when needed

        if detect_input(path).format != FORMAT:
            return None
    if restored is None:
        state, offset = _State(path, _Ids()), 0
    else:
        state, offset = restored
    source = _FileFrom(path, offset=offset)
    terminated = True
    if key.size:
        try:
            with open(key.path, "rb") as stream:
                stream.seek(key.size - 1)
                terminated = stream.read(1) == b"\n"
        except OSError:
            return None
    points: list[tuple[list[Any], list[bytes]] | None] = []
    try:
        _READING.read_lines(state.folder, path, _marked(
            source.lines(), source, key.size, terminated,
            lambda end: points.append(state.snapshot(key, end))), state.account)
    except LiveIdsDamaged:
        return live_figures(path, key, cache, trusted=False) if trusted else None
    except sqlite3.Error:
        return None  # the stored ids could not be asked: the caller reads as before
    finally:
        if source.stream is not None:
            source.stream.close()
    account = state.account
    if (state.sink.inexact or source.error is not None
            or (any(account.problems.values()) and not account.lines_used)):
        return None  # the caller computes as before (and says what went wrong)
    summaries = [writer.finish(builder.turn_total_ms, (), "message") for builder, writer in zip(
        state.folder.lanes.values(), state.sink.writers, strict=True)]
    total = merge_summaries(summaries)
    figures = (total.waves_total, total.non_eval_waves_multi, total.modeled_wallclock_saved_ms)
    point = points[0] if points else None
    if point is not None and file_key(path) == key:
        # the ids up to the offset kept only: a partial last line's are not in it
        cache.store_live(unit, point[0], live, point[1],
                         None if restored is None or loaded is None else loaded[1])
    return figures
