"""The status line's live state of a transcript: its figures after appended lines,
in time proportional to the new lines (issue 13).

:mod:`wavemetrics.resume` makes a grown transcript a partial *read*, but the
records it restores and the waves assembled again from them still cost time
in proportion to the whole session. The status line needs three figures only
(waves, multi-call waves, modeled saving), so it keeps, per transcript, what a
**streaming** read holds after the last complete line:

- each lane's :class:`~wavemetrics.stream.LaneStream` state: pending calls, the
  open region (calls of waves that may still grow), pairing counters and the
  summary sums so far: the waves already closed are sums, not calls;
- the ids the Claude Code reader must remember for exactness (line ``uuid``
  de-duplication, first start and first end of a call id per lane), as SHA-256
  digests (the standard of :mod:`wavemetrics.readers._seen` for long ids), kept
  sorted in one packed blob (row ``<unit>:base``, rewritten only when
  :data:`OVERLAY_LIMIT` new ids have gathered) plus a list of the new ones;
- the line accounting, sub-agent chain roots, and the resume offset and digests
  of :mod:`wavemetrics.resume` (same rules: same path and inode, larger size,
  the 64 KiB windows unchanged).

A grown transcript is then read from its offset into the restored state, and
each lane's stream is finished: :class:`~wavemetrics.stream.LaneStream` gives
the batch path's figures exactly (``spec/metrics.md``; property tests of the
core). Whenever exactness cannot be kept this way (a call that would join a
wave already summed: :class:`~wavemetrics.stream.StreamOrderError`; an input
error; a transcript whose every record is a problem; another format), the
status line computes as before (:func:`wavemetrics.statusline._compute`).
Nothing here holds text: ids only as digests, tool names only of calls still
open or pending.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from wavemetrics.exceptions import StreamOrderError
from wavemetrics.readers import detect_input
from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers.claude_code import FORMAT, ClaudeFolder, read_claude_lines
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.resume import _digests, _FileFrom, _marked, _plain
from wavemetrics.stream import LaneStream
from wavemetrics.summary import SummaryAccumulator, merge_summaries

if TYPE_CHECKING:
    from wavemetrics.cache import FileKey, ReadCache

__all__ = ["LIVE_VERSION", "OVERLAY_LIMIT", "live_figures"]

#: The layout of a live state; another value is read from byte 0 and replaced.
LIVE_VERSION = 1
#: New id digests gathered before the packed base is rewritten with them.
OVERLAY_LIMIT = 4096
_SIZE = 32  # a SHA-256 digest
_BOM = b"\xef\xbb\xbf"


def _unit(path: str) -> str:
    from wavemetrics.cache import limits_key, unit_key

    return unit_key(FORMAT, [], f"{limits_key(None)}/statusline-live:{path}").unit


class _Ids:
    """Id digests seen: a sorted packed ``base`` (bytes) and a set of new ones."""

    def __init__(self, base: bytes = b"", new: Iterable[bytes] = ()) -> None:
        self.base = base
        self.new = set(new)

    def __contains__(self, digest: object) -> bool:
        if digest in self.new:
            return True
        base, low, high = self.base, 0, len(self.base) // _SIZE
        while low < high:
            middle = (low + high) // 2
            if base[middle * _SIZE:(middle + 1) * _SIZE] < cast(bytes, digest):
                low = middle + 1
            else:
                high = middle
        return low * _SIZE < len(base) and base[low * _SIZE:(low + 1) * _SIZE] == digest

    def add(self, digest: bytes) -> bool:
        """Remember ``digest``; ``True`` if it was new."""
        if digest in self:
            return False
        self.new.add(digest)
        return True

    def merged(self) -> bytes:
        """The base with the new digests sorted in."""
        base = self.base
        chunks = [base[i:i + _SIZE] for i in range(0, len(base), _SIZE)]
        return b"".join(sorted([*chunks, *self.new]))


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
               tool_names: Sequence[str], at_ms: Sequence[float]) -> None:
        for kind, call_id, name, at in zip(kinds, call_ids, tool_names, at_ms, strict=True):
            if kind == "start":
                self.start(call_id, name, at)
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
    fields = {k: v for k, v in vars(stream).items() if k not in ("summary", "sink")}
    fields["pending"] = [[k, name, at] for k, (name, at) in stream.pending.items()]
    fields["open"] = [list(call) for call in stream.open]
    summary = {k: v for k, v in vars(stream.summary).items() if k != "_eval_memo"}
    summary["eval_names"] = list(stream.summary.eval_names)
    return [fields, summary]


def _restore_stream(state: Any, sink: _Sink) -> _LiveLane:
    fields, summary = state
    stream = _LiveLane.__new__(_LiveLane)
    accumulator = SummaryAccumulator.__new__(SummaryAccumulator)
    accumulator.__dict__.update(summary)
    accumulator.eval_names = tuple(summary["eval_names"])
    accumulator._eval_memo = {}
    stream.__dict__.update(fields)
    stream.pending = {str(k): (str(name), at) for k, name, at in fields["pending"]}
    stream.open = [(a, b, c, str(d), str(e)) for a, b, c, d, e in fields["open"]]
    stream.summary = accumulator
    stream.sink = sink
    fresh = _LiveLane(sink)
    if set(vars(fresh)) != set(vars(stream)) or set(vars(fresh.summary)) != set(vars(accumulator)):
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

    def __init__(self, path: str, ids: _Ids, generation: bytes) -> None:
        self.path, self.ids, self.generation = path, ids, generation
        self.sink = _Sink([])
        self.folder = ClaudeFolder(cast(Any, self.sink))
        self.folder.seen_uuids = cast(Any, _Seen(ids))
        self.folder.lanes = _Lanes(ids)
        self.account = LineAccount()

    def lane(self, session_id: str, lane_id: str, path: str) -> LaneBuilder:
        builder = LaneBuilder(path, session_id, lane_id, sink=self.folder.sink)
        self.folder.lanes[(session_id, lane_id)] = builder
        return builder

    def snapshot(self, key: FileKey, end: int) -> list[Any] | None:
        digests = _digests(key.path, end)
        if digests is None:
            return None
        account = self.account
        lanes = [[b.session_id, b.lane_id, b.turn_total_ms, _stream_state(w)]
                 for b, w in zip(self.folder.lanes.values(), self.sink.writers, strict=True)]
        return [
            LIVE_VERSION, self.generation, list(key), end, digests[0], digests[1],
            [account.lines_read, account.lines_used, dict(account.ignored),
             dict(account.problems), dict(account.notes)],
            lanes, [[k, v] for k, v in self.folder.sidechain_roots.items()],
            sorted(self.ids.new),
        ]


def _restore(path: str, key: FileKey, point: Any, base: Any) -> tuple[_State, int] | None:
    try:
        version, generation, saved, end, head, tail = point[:6]
        counts, lanes, roots, new = point[6:10]
    except (TypeError, ValueError):
        return None
    if version != LIVE_VERSION or not isinstance(saved, list) or len(saved) != 4:
        return None
    if saved[0] != key.path or saved[3] != key.inode or not key.size > saved[1]:
        return None
    if not isinstance(end, int) or not 0 <= end <= saved[1]:
        return None
    if not (isinstance(base, list) and len(base) == 2 and isinstance(generation, bytes)
            and base[0] == generation and isinstance(base[1], bytes)
            and len(base[1]) % _SIZE == 0):
        return None
    digests = _digests(key.path, end)
    if digests is None or digests[:2] != (head, tail) or (end and digests[2] == _BOM):
        return None
    state = _State(path, _Ids(base[1], (bytes(d) for d in new)), generation)
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


def live_figures(
    path: str, key: FileKey, cache: ReadCache
) -> tuple[int, int, float] | None:
    """The status-line figures of the transcript ``path`` (``key``: its key now) from
    its live state, read on from where it ended (or from byte 0 without one), or
    ``None`` when this module cannot give them exactly: the caller then computes them
    as before. Stores the new live state when the file did not change while read."""
    from wavemetrics.cache import file_key

    if not _plain(key.path):
        return None
    detection = detect_input(path)
    if detection.format != FORMAT:
        return None
    unit = _unit(key.path)
    restored = _restore(path, key, cache.load_resume(unit), cache.load_resume(unit + ":base"))
    if restored is None:
        state, offset = _State(path, _Ids(), b""), 0
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
    points: list[list[Any] | None] = []
    read_claude_lines(state.folder, path, _marked(
        source.lines(), source, key.size, terminated,
        lambda end: points.append(state.snapshot(key, end))), state.account)
    if source.stream is not None:
        source.stream.close()
    account = state.account
    if (state.sink.inexact or source.error is not None
            or (any(account.problems.values()) and not account.lines_used)):
        return None  # the caller computes as before (and says what went wrong)
    summaries = [writer.finish(builder.turn_total_ms) for builder, writer in zip(
        state.folder.lanes.values(), state.sink.writers, strict=True)]
    total = merge_summaries(summaries)
    figures = (total.waves_total, total.non_eval_waves_multi, total.modeled_wallclock_saved_ms)
    point = points[0] if points else None
    if point is not None and file_key(path) == key:
        if len(point[9]) > OVERLAY_LIMIT or restored is None:
            # the ids up to the resume point only: a partial last line's are not in it;
            # the generation is the base's digest, so a point never meets another base
            packed = _Ids(state.ids.base, point[9]).merged()
            generation = hashlib.blake2b(packed, digest_size=16).digest()
            cache.store_resume(unit + ":base", [generation, packed])
            point[1], point[9] = generation, []
        cache.store_resume(unit, point)
    return figures
