"""Wiring of readers and core: paths -> lanes -> waves -> summaries, and the session hash.

The reader layer (``wavemetrics.readers``) knows formats and nothing of
metrics; the core knows metrics and nothing of files. This module joins them
and makes the one decision between them in the open: a lane is **streamed**
(summarised while read, in bounded memory: :class:`StreamedLane`) when stream
settings are given, its format is ``streamable`` and its inputs can be read
again; otherwise it is kept whole for wave assembly (**batch**: :class:`Lane`).
A unit whose stream turns out of order is read again in batch mode here
(``notes.read_again_in_batch``): the figures are the same either way.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import attrs

from wavemetrics.core.activity import BATCHABLE_TOOL_NAMES, DEFAULT_IDLE_GAP_MS, Timing
from wavemetrics.core.classify import EVAL_TOOL_NAMES, normalize_tool_name
from wavemetrics.core.exceptions import reject_path
from wavemetrics.core.observations import DEFAULT_MAX_TRACKED_CALLS, Observation, ObservationKind
from wavemetrics.core.stream import LaneStream, StreamOrderError
from wavemetrics.core.summary import ParallelismSummary, merge_summaries, summarize
from wavemetrics.core.turns import TurnClock
from wavemetrics.core.waves import assemble_waves
from wavemetrics.inputs._files import SKIPPED_UNRECOGNISED, folders_all_skipped
from wavemetrics.readers._protocol import LaneWriter, Peek
from wavemetrics.readers.dispatch import (
    AUTO,
    DUPLICATE,
    EMPTY,
    NO_USABLE_RECORD,
    Detection,
    InputReport,
    ReadUnit,
    call_timing,
    detect_format,
    detect_input,
    plan_units,
    reads_alone,
    reads_store,
    streamable,
)
from wavemetrics.readers.dispatch import read_unit as read_unit_into
from wavemetrics.readers.lanes import UNKNOWN_TOOL
from wavemetrics.readers.limits import DEFAULT_LIMITS, Limits, current_limits, limits_in_effect
from wavemetrics.readers.sources import (
    DETECT_LINES,
    EMPTY_FOLDER,
    STDIN,
    Source,
    expand,
    identical_inputs,
)
from wavemetrics.run._lanes import (
    Analysis,
    Lane,
    LaneFigures,
    LaneResult,
    Mapper,
    ReadOutcome,
    SkippedFile,
    StreamedLane,
    StreamedLaneResult,
    StreamSettings,
    UnitResult,
    session_hash,
)
from wavemetrics.run._options import MAX_NATIVE_CAP

if TYPE_CHECKING:
    from wavemetrics.cache.units import FileKey, ReadCache, UnitKey

__all__ = [
    "Analysis",
    "Lane",
    "LaneFigures",
    "LaneResult",
    "LaneSink",
    "Mapper",
    "ReadOutcome",
    "SkippedFile",
    "StreamSettings",
    "StreamedLane",
    "StreamedLaneResult",
    "UnitResult",
    "analyse",
    "cached_read_unit",
    "read_inputs",
    "read_unit",
    "session_hash",
    "summarised_unit",
    "summarize_inputs",
]



class _BatchLane:
    """A :class:`~wavemetrics.readers._protocol.LaneWriter` keeping every observation."""

    def __init__(self, sink: LaneSink, index: int, path: str) -> None:
        self._sink, self._index, self._path = sink, index, path
        self._observations: list[Observation] = []
        self._names: dict[str, str] = {}
        self._turns = TurnClock()

    def start(
        self, call_id: str, tool_name: str, at_ms: float, batch: str | None = None
    ) -> None:
        self._names[call_id] = tool_name
        self._observations.append(Observation("start", call_id, tool_name, at_ms, batch))

    def end(self, call_id: str, at_ms: float) -> None:
        # the start's name, else "unknown" (docs/formats.md)
        name = self._names.get(call_id, UNKNOWN_TOOL)
        self._observations.append(Observation("end", call_id, name, at_ms))

    def extend(
        self, kinds: Sequence[str], call_ids: Sequence[str], tool_names: Sequence[str],
        at_ms: Sequence[float], batches: Sequence[str | None] | None = None,
    ) -> None:
        batches = _batch_column(batches, kinds)
        _check_columns(kinds, call_ids, tool_names, at_ms, batches)
        names, append = self._names, self._observations.append
        for kind, call_id, tool_name, at, batch in zip(
            kinds, call_ids, tool_names, at_ms, batches, strict=True
        ):
            if kind == "start":
                names[call_id] = tool_name
            # a batch's kinds are unchecked str; the core counts a bad one as malformed
            append(Observation(cast(ObservationKind, kind), call_id, tool_name, at, batch))

    def turn_event(self, kind: str, at_ms: float) -> None:
        self._turns.add(kind, at_ms)

    def close(self, session_id: str, lane_id: str, turn_duration_ms: float = 0.0) -> None:
        turns = turn_duration_ms + self._turns.total_ms
        self._sink.closed(self._index, Lane(
            self._path, session_id, lane_id, tuple(self._observations), turns,
            tuple(self._turns.intervals), self._sink.timing,
        ))


class _CappedBatchLane(_BatchLane):
    """A batch lane for a unit read again after its stream went out of order.

    Only what the core can still use is kept: a start the cap would drop (paired
    plus pending calls at ``max_tracked_calls``) and an end with no pending start
    (an orphan) leave the core's pairing state unchanged (``docs/metrics.md``
    section 1), so they are counted here instead of held, and the counters are
    added to the assembly's. Memory is then bounded by the cap, not by the input,
    and the figures are the same (the lane is summarised at :meth:`close`).
    """

    def __init__(self, sink: LaneSink, index: int, path: str, settings: StreamSettings) -> None:
        super().__init__(sink, index, path)
        self._settings = settings
        self._pending: dict[str, float] = {}  # the core's pending starts, mirrored
        self._paired = self._dropped = self._orphans = 0

    def start(
        self, call_id: str, tool_name: str, at_ms: float, batch: str | None = None
    ) -> None:
        cap = self._settings.max_tracked_calls
        if cap and self._paired + len(self._pending) >= cap:
            self._dropped += 1  # observed and dropped by the core: nothing to hold
            return
        self._pending[call_id] = at_ms
        super().start(call_id, tool_name, at_ms, batch)

    def end(self, call_id: str, at_ms: float) -> None:
        start_ms = self._pending.pop(call_id, None)
        if start_ms is None:
            self._orphans += 1  # an orphan end: the core only counts it
            return
        self._paired += at_ms >= start_ms  # else a clock anomaly, not paired
        super().end(call_id, at_ms)

    def extend(
        self, kinds: Sequence[str], call_ids: Sequence[str], tool_names: Sequence[str],
        at_ms: Sequence[float], batches: Sequence[str | None] | None = None,
    ) -> None:
        _feed_columns(self, kinds, call_ids, tool_names, at_ms, batches)

    def close(self, session_id: str, lane_id: str, turn_duration_ms: float = 0.0) -> None:
        turns = turn_duration_ms + self._turns.total_ms
        settings = self._settings
        assembly = assemble_waves(self._observations, max_tracked_calls=settings.max_tracked_calls)
        counters = assembly.counters
        assembly = attrs.evolve(assembly, counters=attrs.evolve(
            counters,
            observed_calls=counters.observed_calls + self._dropped,
            dropped_calls=counters.dropped_calls + self._dropped,
            orphan_ends=counters.orphan_ends + self._orphans,
        ))
        summary = summarize(
            assembly, measured_turn_duration_ms_total=turns,
            eval_tool_names=settings.eval_tool_names, turn_intervals=self._turns.intervals,
            timing=self._sink.timing, batchable_tool_names=settings.batchable_tool_names,
            idle_gap_ms=settings.idle_gap_ms,
        )
        self._sink.closed(self._index, StreamedLane(
            self._path, session_id, lane_id, turns, summary
        ))


class _StreamLane(LaneStream):
    """A :class:`~wavemetrics.readers._protocol.LaneWriter` summarising as it is fed.

    ``start`` is the core stream's own (the hot path); an end that would break
    exactness marks the sink out of order instead of raising into the reader.
    """

    def __init__(self, sink: LaneSink, index: int, path: str, settings: StreamSettings) -> None:
        super().__init__(
            max_tracked_calls=settings.max_tracked_calls,
            eval_tool_names=settings.eval_tool_names,
            batchable_tool_names=settings.batchable_tool_names,
            idle_gap_ms=settings.idle_gap_ms,
        )
        self.lane_sink, self.lane_index, self.lane_path = sink, index, path
        self.turn_clock = TurnClock()

    def end(self, call_id: str, at_ms: float) -> None:
        try:
            super().end(call_id, at_ms)
        except StreamOrderError:
            self.lane_sink.out_of_order = True

    def extend(
        self, kinds: Sequence[str], call_ids: Sequence[str], tool_names: Sequence[str],
        at_ms: Sequence[float], batches: Sequence[str | None] | None = None,
    ) -> None:
        _feed_columns(self, kinds, call_ids, tool_names, at_ms, batches)

    def turn_event(self, kind: str, at_ms: float) -> None:
        self.turn_clock.add(kind, at_ms)

    def close(self, session_id: str, lane_id: str, turn_duration_ms: float = 0.0) -> None:
        if self.lane_sink.out_of_order:
            return  # the unit is read again in batch mode
        turns = turn_duration_ms + self.turn_clock.total_ms
        summary = self.finish(turns, self.turn_clock.intervals, self.lane_sink.timing)
        self.lane_sink.closed(self.lane_index, StreamedLane(
            self.lane_path, session_id, lane_id, turns, summary
        ))


def _feed_columns(
    writer: LaneWriter, kinds: Sequence[str], call_ids: Sequence[str],
    tool_names: Sequence[str], at_ms: Sequence[float],
    batches: Sequence[str | None] | None = None,
) -> None:
    """Feed a batch of parallel columns to ``writer`` one observation at a time, in order."""
    batches = _batch_column(batches, kinds)
    _check_columns(kinds, call_ids, tool_names, at_ms, batches)
    for kind, call_id, tool_name, at, batch in zip(
        kinds, call_ids, tool_names, at_ms, batches, strict=True
    ):
        if kind == "start":
            writer.start(call_id, tool_name, at, batch)
        else:
            writer.end(call_id, at)


def _batch_column(
    batches: Sequence[str | None] | None, kinds: Sequence[str]
) -> Sequence[str | None]:
    """The batch keys of a column batch: ``None`` for each when none were given."""
    return [None] * len(kinds) if batches is None else batches


def _check_columns(*columns: Sequence[Any]) -> None:
    if len({len(column) for column in columns}) > 1:
        raise ValueError(
            "kinds, call_ids, tool_names, at_ms and batches must have the same length"
        )


class LaneSink:
    """The :class:`~wavemetrics.readers._protocol.ObservationSink` of one read unit.

    With ``stream`` settings every lane is summarised while fed
    (:class:`StreamedLane`), else kept whole (:class:`Lane`). :meth:`lanes`
    gives the closed lanes in the order they were opened. ``out_of_order`` is
    set when a streamed call would join a wave already summarised
    (:class:`~wavemetrics.core.stream.StreamOrderError`): the lanes are then void
    and the unit must be read again in batch mode.
    """

    def __init__(
        self, stream: StreamSettings | None = None, *, capped: StreamSettings | None = None,
        timing: Timing = "execution",
    ) -> None:
        self.stream = stream
        self.capped = capped  # batch lanes that hold only what this cap keeps
        self.timing = timing  # the provenance of the unit's call times (its format's)
        self.out_of_order = False
        self._slots: list[Lane | StreamedLane | None] = []

    def open_lane(self, path: str) -> LaneWriter:
        index = len(self._slots)
        self._slots.append(None)
        if self.stream is None:
            if self.capped is not None:
                return _CappedBatchLane(self, index, path, self.capped)
            return _BatchLane(self, index, path)
        return _StreamLane(self, index, path, self.stream)

    def closed(self, index: int, lane: Lane | StreamedLane) -> None:
        """A writer's lane is complete (called by the writers)."""
        self._slots[index] = lane

    def lanes(self) -> tuple[Lane | StreamedLane, ...]:
        """The closed lanes, in the order they were opened."""
        return tuple(lane for lane in self._slots if lane is not None)



def _native_engine_reads(stream: StreamSettings, limits: Limits) -> bool:
    """Whether the native engine reads the units of its formats (the registry rows with
    ``native``) in a run
    with these settings: ``engine="native"``, the default ``limits``, and eval names
    whose normal forms (``classify.normalize_tool_name``: ``str.lower()`` of the running
    interpreter) are all ASCII. Otherwise the Python readers read them: same output.

    Why the eval names: the extension lower-cases the tool names it reads with Rust's
    Unicode tables, the reference with the interpreter's ``str.lower()``, and their
    Unicode versions differ (Python 3.11: 14.0). The two disagree only on letters whose
    case mapping one table has and the other lacks (U+1C89, U+A7CB, ...), or on the
    context of a final sigma, and each side then gives a character that is not ASCII.
    Ahead of the last such character both normal forms hold a non-ASCII character, and
    after it they are equal, so an ASCII eval name matches both or neither
    (``docs/metrics.md`` section 4: equal, or a suffix after ``_``, ``:`` or ``/``); a
    name that is not ASCII could match one and not the other.
    """
    if stream.engine != "native" or limits != DEFAULT_LIMITS:
        return False
    if stream.max_tracked_calls is not None and stream.max_tracked_calls > MAX_NATIVE_CAP:
        return False  # past what the extension's cap holds (a usize)
    return all(normalize_tool_name(name).isascii() for name in stream.eval_tool_names)


def read_unit(
    unit: ReadUnit,
    stream: StreamSettings | None = None,
    sources: dict[str, Source] | None = None,
) -> UnitResult[Lane | StreamedLane]:
    """Read one unit; its lanes are streamed if ``stream`` is given, its format is
    streamable and its files can be read again (stdin and pipes cannot).

    A stream that turns out of order is dropped and the unit read again in
    batch mode; its reports then carry ``notes.read_again_in_batch``. The
    figures are the same either way. The native engine reads under the default
    limits only (:data:`~wavemetrics.readers.limits.DEFAULT_LIMITS`); under other
    limits the Python readers read the unit.
    """
    if stream is not None and _native_engine_reads(stream, current_limits()):
        from wavemetrics.run.native import read_unit_native  # the extension loads on first use

        native = read_unit_native(unit.format, unit.paths, stream)
        if native is not None:
            return UnitResult(*native)
    sources = sources or {path: Source(path) for path in unit.paths}
    rereadable = all(os.path.isfile(path) for path in unit.paths)
    timing = call_timing(unit.format)
    if stream is None or not rereadable or not streamable(unit.format):
        sink = LaneSink(None, timing=timing)
        return UnitResult(read_unit_into(unit, sink, sources), sink.lanes())
    sink = LaneSink(stream, timing=timing)
    reports = read_unit_into(unit, sink, sources)
    if not sink.out_of_order:
        return UnitResult(reports, sink.lanes())
    # read again, holding only what the cap keeps (bounded memory: not every record)
    batch = LaneSink(None, capped=stream, timing=timing)
    reports = read_unit_into(unit, batch, {path: Source(path) for path in unit.paths})
    # say so: the unit was read a second time because its calls came out of order
    noted = tuple(
        attrs.evolve(r, notes={**r.notes, "read_again_in_batch": 1}) for r in reports
    )
    return UnitResult(noted, batch.lanes())




def summarised_unit(
    unit: ReadUnit, stream: StreamSettings | None, input_format: str = AUTO,
) -> tuple[tuple[InputReport, ...],
           tuple[tuple[Lane | StreamedLane, ParallelismSummary | None], ...]]:
    """:func:`read_unit` of ``unit`` as the CLI reads it: each report judged as
    :func:`read_inputs` judges it (an input whose every record was a problem, or was
    foreign to a forced ``input_format``, gets its error). With ``stream``: streamed as
    the CLI's ``summarize`` streams it, each lane with its summary as :func:`analyse`
    gives it (a lane read in batch, by a format that does not stream, summarised with
    ``stream``'s settings). ``None``: read in batch, as the CLI reads a run that needs
    each lane's calls (a window, ``--by tool``, ``waves``), each lane a :class:`Lane`
    with its observations and no summary."""
    result = read_unit(unit, stream)
    reports = tuple(_no_usable_record(report, input_format, {}) for report in result.reports)
    if stream is None:
        return reports, tuple((lane, None) for lane in result.lanes)
    return reports, tuple((lane, _lane_result(lane, stream).summary) for lane in result.lanes)


def cached_read_unit(
    unit: ReadUnit,
    stream: StreamSettings | None = None,
    cache: ReadCache | None = None,
    sources: dict[str, Source] | None = None,
) -> UnitResult[Lane | StreamedLane]:
    """:func:`read_unit` through the cache: the same result, read from the cache
    when every file of the unit is unchanged (``wavemetrics.cache.units``).

    With ``stream`` settings, the lanes a streaming read gives are kept per
    settings, so a warm ``summarize`` neither parses nor summarises. A miss
    reads the unit in batch mode and stores its compact records unless a file
    changed while it was read or could not be read in full; a streaming result
    is then replayed from them (``wavemetrics.cache.unit_records``).
    """
    if cache is None or reads_store(unit.format):  # a SQLite store is never cached
        return read_unit(unit, stream, sources)
    from wavemetrics.cache.unit_records import encode_unit, replay_streaming
    from wavemetrics.cache.units import file_key, limits_key, unit_key, utf8_names

    keys = [file_key(path) for path in unit.paths]
    known = [key for key in keys if key is not None]
    if not known or len(known) != len(keys) or not utf8_names(known):
        return read_unit(unit, stream, sources)  # not cached: a pipe, a name not UTF-8
    # the limits in force change what a read yields (line_too_long, a cut input)
    limits = limits_key(current_limits())
    summarised_key = None
    if stream is not None:
        summarised_key = _summarised_key(unit, known, stream)
        hit = _decoded(unit, cache.load(summarised_key))
        if hit is not None:
            return UnitResult(*hit)
    records_key = unit_key(unit.format, known, limits)
    decoded = _decoded(unit, cache.load(records_key))
    if decoded is None:
        result = read_unit(unit, None, sources)
        reports, lanes = result.reports, result.lanes
        unchanged = [file_key(path) for path in unit.paths] == keys
        storable = unchanged and all(r.error is None for r in reports)
        if storable:
            cache.store(records_key, encode_unit(unit.paths, reports, lanes), files=len(keys))
    else:
        reports, lanes = decoded
        storable = True
    if stream is not None and summarised_key is not None:
        reports, lanes = replay_streaming(unit.format, reports, lanes, stream)
        if storable:
            cache.store(summarised_key, encode_unit(unit.paths, reports, lanes), files=0)
    return UnitResult(reports, lanes)


def _summarised_key(unit: ReadUnit, known: Sequence[FileKey], stream: StreamSettings) -> UnitKey:
    """The key of a unit's streamed lanes (reports and :class:`StreamedLane` summaries)
    for these settings, under the limits in force; the same whichever engine read it."""
    from wavemetrics.cache.units import limits_key, unit_key

    settings = (
        f"stream:{stream.max_tracked_calls}:{list(stream.eval_tool_names)}"
        f":{list(stream.batchable_tool_names)}:{stream.idle_gap_ms!r}"
    )
    return unit_key(unit.format, known, f"{limits_key(current_limits())}/{settings}")


def _decoded(
    unit: ReadUnit, value: Any
) -> tuple[tuple[InputReport, ...], tuple[Lane | StreamedLane, ...]] | None:
    if value is None:
        return None
    from wavemetrics.cache.unit_records import decode_unit

    try:
        return decode_unit(unit.paths, value)
    except (ValueError, TypeError, IndexError, KeyError):
        return None  # damaged or of another version: read again, never trusted


def _detect_cached(path: str, input_format: str, cache: ReadCache | None) -> Detection:
    if cache is None:
        return detect_input(path, input_format)
    from wavemetrics.cache.units import detection_mode, file_key

    key = file_key(path)
    mode = detection_mode(input_format, current_limits())  # detection peeks under them
    known = cache.detection(key, mode) if key is not None else None
    if known is not None:
        return Detection(path, known)
    detection = detect_input(path, input_format)
    if (key is not None and detection.format is not None and not reads_store(detection.format)
            and file_key(path) == key):
        cache.store_detection(key, mode, detection.format)
    return detection


def _holds_no_file(folder: str) -> bool:
    """Whether ``folder`` and its sub-folders hold no entry but folders: nothing at all.

    Such a folder is an empty input, as an empty file or an empty standard input
    is (formats.md: "an empty input is reported as empty and is not an error");
    a folder holding any other entry (a file of another kind, a link) that gave
    no trace stays an error (docs/cli.md, "Exit status and messages"). Links to
    folders are not followed, as the folder walk does not follow them; a
    sub-folder that cannot be listed makes the walk report it, so it never
    gets here.
    """
    stack = [folder]
    while stack:
        try:
            with os.scandir(stack.pop()) as scan:
                for entry in scan:
                    if entry.is_symlink() or not entry.is_dir():
                        return False
                    stack.append(entry.path)
        except OSError:
            return False
    return True


def _empty_folder(folder: str) -> InputReport:
    """A named folder with nothing in it: an empty input (format ``empty``), no error."""
    return InputReport(path=folder, format=EMPTY)




def _folders_only_skipped(
    entries: list[tuple[str, str | None]],
    walked: dict[str, str],
    reports: dict[str, InputReport],
    skipped: list[SkippedFile],
) -> list[tuple[str, str | None]]:
    """A named folder whose every file was skipped is an error, as an empty folder is."""
    added: list[tuple[str, str | None]] = []
    for folder, count in folders_all_skipped(walked, {s.path for s in skipped}).items():
        reason = f"no trace files in this directory ({count} found, none a trace: skipped)"
        reports[folder] = InputReport(path=folder, format="unknown", error=reason)
        added.append((folder, reason))
    return entries + added


def _detect_file(
    args: tuple[str, str, StreamSettings | None, Limits, ReadCache | None, bool],
) -> tuple[Detection, UnitResult[Lane | StreamedLane] | None]:
    """Detect one file and, unless its format reads it with others (a Claude Code
    project folder, read later as a group) or the native engine reads its format (then
    it is read with the run's other units, in one call: :func:`_read_natively` or
    :func:`_read_records_natively`; ``native_units``: the run's native engine reads
    the units of its formats), read it at once: one round trip per file."""
    path, input_format, stream, limits, cache, native_units = args
    with limits_in_effect(limits):  # also in a worker process
        detection = _detect_cached(path, input_format, cache)
        if detection.format is None or not reads_alone(detection.format, path):
            return detection, None
        if native_units:
            from wavemetrics.run.native import reads_natively  # the extension loads on first use

            if reads_natively(detection.format):
                return detection, None  # read with the other units by _read_natively
        return detection, cached_read_unit(ReadUnit(detection.format, (path,)), stream, cache)


def _read_unit_args(
    args: tuple[ReadUnit, StreamSettings | None, Limits, ReadCache | None],
) -> UnitResult[Any]:
    unit, stream, limits, cache = args
    with limits_in_effect(limits):
        return cached_read_unit(unit, stream, cache)


def _formats() -> tuple[str, ...]:
    # the registry's rows, no reader (wavemetrics.readers.registry): only when a format
    # is named, not in an "auto" run
    from wavemetrics.readers.dispatch import FORMATS

    return FORMATS


@overload
def read_inputs(
    paths: Sequence[str], input_format: str = ..., *, stream: None = None,
    mapper: Mapper | None = None, progress: Callable[[Sequence[str]], None] | None = None,
    limits: Limits | None = None,
    cache: ReadCache | None = None, walked: Mapping[str, FileKey] | None = None,
    engine: str | None = None, jobs: int | None = None,
) -> ReadOutcome[Lane]: ...


@overload
def read_inputs(
    paths: Sequence[str], input_format: str = ..., *, stream: StreamSettings,
    mapper: Mapper | None = None, progress: Callable[[Sequence[str]], None] | None = None,
    limits: Limits | None = None,
    cache: ReadCache | None = None, walked: Mapping[str, FileKey] | None = None,
    engine: str | None = None, jobs: int | None = None,
) -> ReadOutcome[Lane | StreamedLane]: ...


def read_inputs(
    paths: Sequence[str],
    input_format: str = AUTO,
    *,
    stream: StreamSettings | None = None,
    mapper: Mapper | None = None,
    progress: Callable[[Sequence[str]], None] | None = None,
    limits: Limits | None = None,
    cache: ReadCache | None = None,
    walked: Mapping[str, FileKey] | None = None,
    engine: str | None = None,
    jobs: int | None = None,
) -> ReadOutcome[Lane | StreamedLane]:
    """Read every path (file, directory read recursively, or ``-`` for stdin).

    ``input_format``: ``"auto"`` or one of :data:`~wavemetrics.readers.dispatch.FORMATS`.
    ``stream``: summarise lanes while reading (bounded memory; those lanes are
    :class:`StreamedLane`, see :func:`read_unit`); without it every lane is a
    :class:`Lane`. ``mapper``: how to run detection and units, e.g. a process
    pool's ``map``; the outcome never depends on it (the built-in ``map`` by
    default). ``progress(paths)`` is called with the files just done (a
    progress bar weighs them by size; the files of a Claude Code folder are
    done when the folder is read). ``limits``: the byte limits of
    :mod:`wavemetrics.readers.limits` (default :data:`~wavemetrics.readers.limits.DEFAULT_LIMITS`).
    Never raises for bad data: an unreadable or unrecognised input, or one
    past the limits, gets ``error`` set in its report and the rest are still
    read. Files with the same content (:func:`~wavemetrics.readers.sources.identical_inputs`)
    are read once. An input whose every record is a problem (say a wrong
    ``input_format``) is an error for that input, beginning
    :data:`~wavemetrics.readers.dispatch.NO_USABLE_RECORD` (``docs/formats.md``, format
    detection); its lines stay accounted for. Raises ``ValueError`` for an
    unknown format name, and ``TypeError`` when ``paths`` is one path (a ``str``
    or ``os.PathLike``) rather than a sequence of them.
    ``cache``: a :class:`~wavemetrics.cache.units.ReadCache` to read unchanged files
    from (the outcome is the same with or without it; stdin is never cached; the
    limits in force are part of every cache key).
    ``walked``: cache keys of files stat'ed just before this read (by the run key's walk:
    :func:`~wavemetrics.cache.units.walked_keys`), by absolute path; each is taken instead
    of a ``stat`` of that file (the outcome is the same without them).
    ``engine`` and ``jobs``: how a batch read (no ``stream``) reads: ``"native"`` reads
    the units of the formats the extension reads with it, on ``jobs`` threads (default
    1), each lane with its observations (the same :class:`Lane` values as the Python
    readers give: ``tests/test_native.py``), under the default limits only;
    ``"python"`` (the default), the reference readers. A streamed read takes its engine
    and threads from ``stream``: giving another ``engine`` or ``jobs`` with it raises
    ``ValueError``, as do an unknown engine and ``jobs`` below 1.
    """
    reject_path(paths, "read_inputs", "a sequence of paths ([path, ...])")
    if input_format != AUTO and input_format not in _formats():
        raise ValueError(f"unknown input format {input_format!r}")
    if engine not in (None, "python", "native"):
        raise ValueError(f"unknown engine {engine!r}")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs must be an int >= 1, not {jobs!r}")
    if stream is not None and ((engine is not None and engine != stream.engine)
                               or (jobs is not None and jobs != stream.jobs)):
        raise ValueError("a streamed read takes its engine and jobs from its stream settings")
    limits = limits or current_limits()
    with limits_in_effect(limits):
        return _read_inputs(paths, input_format, stream, mapper, progress, limits, cache,
                            walked or {}, engine == "native" and stream is None, jobs or 1)


def _read_inputs(
    paths: Sequence[str],
    input_format: str,
    stream: StreamSettings | None,
    mapper: Mapper | None,
    progress: Callable[[Sequence[str]], None] | None,
    limits: Limits,
    cache: ReadCache | None,
    walked: Mapping[str, FileKey],
    batch_native: bool = False,
    jobs: int = 1,
) -> ReadOutcome[Lane | StreamedLane]:
    run: Mapper = mapper or map
    expansion = expand(list(paths))
    entries = expansion.entries
    files = [path for path, error in entries if error is None]
    same_as = identical_inputs(files)
    files = [path for path in files if path not in same_as]
    reports: dict[str, InputReport] = {
        path: _empty_folder(path) if reason == EMPTY_FOLDER and _holds_no_file(path)
        else InputReport(path=path, format="unknown", error=reason)
        for path, reason in entries
        if reason is not None
    }
    reports.update({path: InputReport(path=path, format=DUPLICATE) for path in same_as})
    # stdin and pipes can be read only once: detected and read here, one Source each
    # each file is stat'ed once: here (or by the run key's walk just before: walked), and
    # for the cache's keys
    keys = _FileKeys(walked)
    # (a file has a key exactly when it is a regular file: os.path.isfile)
    stdin = {path: Source(path) for path in files if path == STDIN or keys[path] is None}
    on_disk = [path for path in files if path not in stdin]
    done = progress or (lambda paths: None)
    detected: list[tuple[Detection, UnitResult[Lane | StreamedLane] | None]] = []
    # the native engine reads under the default limits only (otherwise the Python
    # readers read): same output. With the read cache, what it reads is stored too.
    native = stream is not None and _native_engine_reads(stream, limits)
    # a batch read by the native engine: each lane with its observations (default limits)
    records = batch_native and limits == DEFAULT_LIMITS
    known: dict[str, str] = {}
    if cache is not None and on_disk:
        # every detection stored for these files, in a few queries
        known = _cached_detections(on_disk, input_format, cache, keys)
        detected = [(Detection(path, fmt), None) for path, fmt in known.items()]
        on_disk = [path for path in on_disk if path not in known]
    folded: dict[ReadUnit, UnitResult[Lane | StreamedLane]] = {}
    after = _FileKeys()  # the files' keys taken after the folded pass (filled there)
    if native and stream is not None and input_format == AUTO and on_disk:
        from wavemetrics.run.native import detect_and_read_natively  # loads on first use

        # events and claude-code files are detected and read in one pass on threads
        # (the first lines of each parsed once); the rest as usual
        # (on_disk: the files whose key, just taken, found a regular file)
        found, read = detect_and_read_natively(on_disk, stream, tuple(known), regular=True)
        folded = {ReadUnit(*unit): UnitResult(*result) for unit, result in read.items()}
        detected.extend((Detection(path, fmt), None) for path, fmt in found.items())
        on_disk = [path for path in on_disk if path not in found]
        if cache is not None:
            # one stat per file after the folded pass checks both what it detected and
            # what it read (the two happened in that one call): _read_natively uses it
            _store_detections(found, input_format, cache, keys, after)
    elif records and input_format == AUTO and on_disk:
        from wavemetrics.run.native import detect_natively  # loads on first use

        found = detect_natively(on_disk, jobs)  # the files of the formats it detects
        detected.extend((Detection(path, fmt), None) for path, fmt in found.items())
        on_disk = [path for path in on_disk if path not in found]
        if cache is not None:
            _store_detections(found, input_format, cache, keys, _FileKeys())
    detect_args = [(p, input_format, stream, limits, cache, native or records) for p in on_disk]
    for detection, result in run(_detect_file, detect_args):
        detected.append((detection, result))
        if detection.format is None or result is not None:
            done((detection.path,))
    detections = {d.path: d for d, _ in detected}
    early = {ReadUnit(d.format, (d.path,)): r for d, r in detected if r is not None and d.format}
    once: dict[str, str | None] = {}  # what auto-detection names for a read-once input
    for path, source in stdin.items():
        detections[path] = detect_input(path, input_format, source)
        if input_format != AUTO:  # its first lines, peeked by that detection
            once[path] = _detected_name(Peek(source.peek(DETECT_LINES), path))
    ordered = [detections[path] for path in files]
    skipped = [SkippedFile(path, reason) for path, reason in expansion.skipped]
    for detection in ordered:
        if detection.format is None and detection.unrecognised and (
            detection.path in expansion.walked
        ):
            # Found by a folder walk, not named: a file that is no trace is skipped.
            skipped.append(SkippedFile(detection.path, SKIPPED_UNRECOGNISED))
        elif detection.format is None:
            reports[detection.path] = InputReport(
                path=detection.path, format="unknown", error=detection.error
            )
    skipped_paths = {s.path for s in skipped}
    for path, first in same_as.items():
        if first in skipped_paths and path in expansion.walked:
            # a copy of a file skipped as no trace is skipped too, not "read once"
            del reports[path]
            skipped.append(SkippedFile(path, SKIPPED_UNRECOGNISED))
    entries = _folders_only_skipped(entries, expansion.walked, reports, skipped)
    units = plan_units(ordered)
    parallel = [unit for unit in units
                if unit not in early and not any(path in stdin for path in unit.paths)]
    results = dict(early)
    if cache is not None and stream is not None and parallel:
        # every unit's streamed lanes stored for these settings, in a few queries
        unread = [unit for unit in parallel if unit not in folded]
        for unit, hit in _cached_summaries(unread, stream, cache, keys).items():
            results[unit] = hit
            done(unit.paths)
        parallel = [unit for unit in parallel if unit not in results]
    if native and stream is not None and parallel:
        # every unit the native engine reads, in one call on --jobs threads
        for unit, result in _read_natively(parallel, stream, cache, keys, folded,
                                           after).items():
            results[unit] = result
            done(unit.paths)
        parallel = [unit for unit in parallel if unit not in results]
    if records and parallel:
        # every unit the native engine reads, its lanes' observations kept: those stored
        # in the cache, then the rest in one call on jobs threads
        for unit, record_result in _read_records_natively(parallel, jobs, cache, keys).items():
            results[unit] = record_result
            done(unit.paths)
        parallel = [unit for unit in parallel if unit not in results]
    for unit, result in zip(
        parallel, run(_read_unit_args, [(unit, stream, limits, cache) for unit in parallel]),
        strict=True,
    ):
        results[unit] = result
        done(unit.paths)
    for unit in units:
        if unit not in results:
            results[unit] = cached_read_unit(
                unit, stream, cache, {path: stdin.get(path) or Source(path) for path in unit.paths}
            )
            done(unit.paths)
    lanes: list[Lane | StreamedLane] = []
    unusable: set[str] = set()
    for unit in units:
        result = results[unit]
        lanes.extend(result.lanes)
        for report in result.reports:
            judged = reports[report.path] = _no_usable_record(report, input_format, once)
            if judged.error is not None and report.error is None:
                unusable.add(report.path)
    if unusable:  # an input that could not be used shows no lane (an empty one, from
        # a reader that opens its lane with the file: codex, pi), only its error
        lanes = [lane for lane in lanes if lane.path not in unusable or _observed(lane)]
    return ReadOutcome(
        tuple(reports[p] for p, _ in entries if p in reports), tuple(lanes), stream, same_as,
        tuple(sorted(skipped, key=lambda s: s.path)),
    )


class _FileKeys(dict[str, "FileKey | None"]):
    """Cache keys of files, each file stat'ed once per run
    (:func:`~wavemetrics.cache.units.file_key`);
    ``walked``: keys already taken before the read, by absolute path (used instead)."""

    def __init__(self, walked: Mapping[str, FileKey] | None = None) -> None:
        super().__init__()
        self._walked = walked or {}

    def __missing__(self, path: str) -> FileKey | None:
        from wavemetrics.cache.units import file_key
        from wavemetrics.inputs._paths import absolute

        walked = self._walked.get(absolute(path)) if self._walked and path != "-" else None
        key = self[path] = walked if walked is not None else file_key(path)
        return key


def _cached_detections(
    paths: list[str], input_format: str, cache: ReadCache, keys: _FileKeys
) -> dict[str, str]:
    """The formats stored in the cache for these versions of ``paths`` (by path)."""
    from wavemetrics.cache.units import detection_mode

    by_key = {key.path: path for path in paths if (key := keys[path]) is not None}
    stored = cache.detections([key for path in paths if (key := keys[path]) is not None],
                              detection_mode(input_format, current_limits()))
    return {by_key[absolute]: fmt for absolute, fmt in stored.items()}


def _store_detections(
    found: dict[str, str], input_format: str, cache: ReadCache, keys: _FileKeys,
    after: _FileKeys,
) -> None:
    """Store detections made now, unless the file changed while it was looked at:
    ``keys`` were taken before, ``after`` (filled here, one stat per file) after."""
    from wavemetrics.cache.units import detection_mode

    unchanged = [(key, fmt) for path, fmt in found.items()
                 if (key := keys[path]) is not None and after[path] == key]
    cache.store_detections(unchanged, detection_mode(input_format, current_limits()))


def _unit_keys(unit: ReadUnit, keys: _FileKeys) -> list[FileKey] | None:
    """The keys of the unit's files, or ``None`` when the unit is not cached (a file
    that is no regular file, or whose name is not UTF-8: ``cache.utf8_names``)."""
    from wavemetrics.cache.units import utf8_names

    known = [keys[path] for path in unit.paths]
    if any(key is None for key in known):
        return None
    found = cast("list[FileKey]", known)
    return found if utf8_names(found) else None


def _cached_summaries(
    units: list[ReadUnit], stream: StreamSettings, cache: ReadCache, keys: _FileKeys
) -> dict[ReadUnit, UnitResult[Lane | StreamedLane]]:
    """The units whose streamed lanes for ``stream`` are in the cache (as
    :func:`cached_read_unit` finds them), loaded in a few queries."""
    wanted: dict[ReadUnit, UnitKey] = {}
    for unit in units:
        if reads_store(unit.format):  # a SQLite store is never cached
            continue
        known = _unit_keys(unit, keys)
        if known:
            wanted[unit] = _summarised_key(unit, known, stream)
    stored = cache.load_many(list(wanted.values()))
    hits: dict[ReadUnit, UnitResult[Lane | StreamedLane]] = {}
    for unit, key in wanted.items():
        decoded = _decoded(unit, stored.get(key.key))
        if decoded is not None:
            hits[unit] = UnitResult(*decoded)
    return hits


def _read_natively(
    units: list[ReadUnit], stream: StreamSettings, cache: ReadCache | None, keys: _FileKeys,
    folded: dict[ReadUnit, UnitResult[Lane | StreamedLane]], after: _FileKeys,
) -> dict[ReadUnit, UnitResult[Lane | StreamedLane]]:
    """The units the native engine reads (those ``folded``, read where they were
    detected, and the rest in one call on ``stream.jobs`` threads); with a cache, each
    one's streamed lanes are stored under :func:`_summarised_key` (not its call
    records: a streamed read keeps none; a batch read's are
    :func:`_read_records_natively`'s), unless a file changed while it was read
    or an input has an error, as :func:`cached_read_unit` does. ``after``: the files'
    keys taken after the folded pass, the check of a folded unit (its files are not
    stat'ed again); the other units' files are stat'ed after their read."""
    from wavemetrics.run.native import read_units_natively  # the extension loads on first use

    results = {unit: folded[unit] for unit in units if unit in folded}
    rest = [unit for unit in units if unit not in folded]
    read = read_units_natively([(u.format, u.paths) for u in rest], stream, stream.jobs)
    results.update({rest[index]: UnitResult(*result) for index, result in read.items()})
    if cache is None:
        return results
    from wavemetrics.cache.unit_records import encode_unit
    from wavemetrics.cache.units import file_key

    entries = []
    for unit, result in results.items():
        if reads_store(unit.format):  # a SQLite store is never cached
            continue
        known = _unit_keys(unit, keys)
        now = after.__getitem__ if unit in folded else file_key
        if (known and all(r.error is None for r in result.reports)
                and [now(path) for path in unit.paths] == known):
            entries.append((_summarised_key(unit, known, stream),
                            encode_unit(unit.paths, result.reports, result.lanes), 0))
    cache.store_many(entries)
    return results


def _read_records_natively(
    units: list[ReadUnit], jobs: int, cache: ReadCache | None, keys: _FileKeys,
) -> dict[ReadUnit, UnitResult[Lane]]:
    """The units of a batch read that the native engine reads, each lane with its
    observations: those whose records are in the cache (under the key
    :func:`cached_read_unit` stores them by), then the rest in one call on ``jobs``
    threads, each stored as :func:`cached_read_unit` stores a unit it read (unless a
    file changed while it was read or an input has an error). A SQLite store is never
    cached."""
    from wavemetrics.run.native import read_unit_records_natively, reads_natively

    units = [unit for unit in units if reads_natively(unit.format)]
    results: dict[ReadUnit, UnitResult[Lane]] = {}
    wanted: dict[ReadUnit, tuple[UnitKey, list[FileKey]]] = {}
    if cache is not None:
        from wavemetrics.cache.units import limits_key, unit_key

        limits = limits_key(current_limits())
        for unit in units:
            known = None if reads_store(unit.format) else _unit_keys(unit, keys)
            if known:
                wanted[unit] = unit_key(unit.format, known, limits), known
        stored = cache.load_many([key for key, _ in wanted.values()])
        for unit, (key, _) in wanted.items():
            decoded = _decoded(unit, stored.get(key.key))
            if decoded is not None:
                results[unit] = UnitResult(*cast(
                    "tuple[tuple[InputReport, ...], tuple[Lane, ...]]", decoded))
    rest = [unit for unit in units if unit not in results]
    read = read_unit_records_natively([(u.format, u.paths) for u in rest], jobs)
    entries = []
    for index, (reports, lanes) in read.items():
        unit = rest[index]
        results[unit] = UnitResult(reports, lanes)
        if unit in wanted and all(r.error is None for r in reports):
            from wavemetrics.cache.unit_records import encode_unit
            from wavemetrics.cache.units import file_key

            key, known = wanted[unit]
            if [file_key(path) for path in unit.paths] == known:
                entries.append((key, encode_unit(unit.paths, reports, lanes), len(known)))
    if cache is not None:
        cache.store_many(entries)
    return results


def _observed(lane: Lane | StreamedLane) -> bool:
    """Whether ``lane`` holds any observation (a start or an end, usable or not)."""
    if isinstance(lane, Lane):
        return bool(lane.observations)
    summary = lane.summary
    return bool(summary.observed_calls or summary.orphan_ends or summary.malformed_observations)


def _no_usable_record(
    report: InputReport, input_format: str, once: dict[str, str | None],
) -> InputReport:
    """An input whose every record was a problem becomes an error (``docs/formats.md``),
    and so does one whose every record was foreign to a forced ``input_format``
    (:func:`_foreign_to_format`; ``once``: what auto-detection names for each read-once
    input, from the lines it peeked)."""
    problems = sum(report.problems.values())
    if report.error is None and not problems and (
            foreign := _foreign_to_format(report, input_format, once)):
        return attrs.evolve(report, error=f"{NO_USABLE_RECORD}: {foreign}")
    # the rule of efficiency_axis' failed state: lines were problems, none was used
    if report.error is not None or not problems or report.lines_used:
        return report
    lost = ", ".join(f"{reason} {n}" for reason, n in report.problems.items())
    hint = (f"; is --input-format {input_format} right? (auto detects the format)"
            if input_format != AUTO else "")
    read = report.lines_read
    return attrs.evolve(report, error=(
        f"{NO_USABLE_RECORD}: {read} line{'' if read == 1 else 's'} read as {report.format},"
        f" {problems} not usable ({lost}), none used{hint}"))


def _detected_name(peek: Peek) -> str | None:
    """The name of the format auto-detection finds in ``peek`` (``EMPTY`` included)."""
    detected = detect_format(peek)
    return detected if detected is None or isinstance(detected, str) else detected.name


#: Ignored reasons that only the forced format's own shape of record gives: a span
#: document with no span in it (``otlp``: a ``resourceSpans`` record with none;
#: ``otel-spans``: an empty span list such as ``[]``). An input ignored only for these
#: is of that format, merely empty, even though auto-detection (which needs a span to
#: recognise either format) names none.
_OWN_EMPTY = frozenset({"no_spans"})


def _foreign_to_format(
    report: InputReport, input_format: str, once: dict[str, str | None],
) -> str | None:
    """Why ``report``'s input is foreign to the forced ``input_format``, or ``None``.

    Foreign: ``input_format`` is not ``auto``, at least one line was read, every
    line was *ignored* (none used, none a problem), and auto-detection, run on
    the file's first lines as ``--input-format auto`` would, names another
    format or none. The ignored counts alone cannot tell a foreign input from
    one of the right format that merely holds no tool call (a Claude Code
    ``user`` line with no tool result is ignored by ``claude-code`` and by
    ``codex`` alike), so the format's recogniser decides: a Claude Code
    transcript with no tool call read as ``claude-code`` is recognised, not
    foreign; the same file read as ``codex`` is foreign. A file is peeked again
    (only in this rare case); standard input and pipes, read once, are judged by
    the first lines their detection peeked (``once``). Whitespace only (detected
    as empty) is not foreign either, nor is an input whose every ignored line is a
    span document with no span (:data:`_OWN_EMPTY`). The reason carries the hint: the format
    detected, or that none is.
    """
    if (input_format == AUTO or report.error is not None or report.lines_used
            or report.lines_ignored != report.lines_read or not report.lines_read):
        return None
    if set(report.ignored) <= _OWN_EMPTY:  # the format's own container, holding nothing
        return None
    if report.path in once:
        detected: str | None = once[report.path]
    elif os.path.isfile(report.path):
        detected = detect_input(report.path).format
    else:
        return None
    if detected in (input_format, EMPTY):
        return None
    head = (f"every line ({report.lines_read}) was ignored as a record type that"
            f" --input-format {input_format} does not read")
    if detected is None:
        return f"{head}, and auto-detection recognises no format in it"
    return f"{head}; it looks like {detected}: try --input-format {detected} or auto"




class _Unset(enum.Enum):
    """A keyword argument not given (``None`` means something else)."""

    UNSET = "unset"


UNSET = _Unset.UNSET




@overload
def analyse(
    outcome: ReadOutcome[Lane], *, eval_tool_names: Sequence[str] | None = None,
    max_tracked_calls: int | _Unset | None = UNSET,
    batchable_tool_names: Sequence[str] | None = None, idle_gap_ms: float | None = None,
) -> Analysis[LaneResult]: ...


@overload
def analyse(
    outcome: ReadOutcome[Lane | StreamedLane], *, eval_tool_names: Sequence[str] | None = None,
    max_tracked_calls: int | _Unset | None = UNSET,
    batchable_tool_names: Sequence[str] | None = None, idle_gap_ms: float | None = None,
) -> Analysis[LaneResult | StreamedLaneResult]: ...


def analyse(
    outcome: ReadOutcome[Lane | StreamedLane],
    *,
    eval_tool_names: Sequence[str] | None = None,
    max_tracked_calls: int | _Unset | None = UNSET,
    batchable_tool_names: Sequence[str] | None = None,
    idle_gap_ms: float | None = None,
) -> Analysis[LaneResult | StreamedLaneResult]:
    """Assemble and summarise every lane on its own, then merge them in lane order.

    ``max_tracked_calls``: the per-lane cap (``None``: unbounded; the v1
    default when not given); ``eval_tool_names``: the defaults when ``None``;
    ``batchable_tool_names`` and ``idle_gap_ms`` (ms): the missed-batching and idle
    parameters (docs/metrics.md section 9), the defaults when ``None``.
    An outcome read with stream settings is analysed with those (its streamed
    lanes already carry their summaries): giving other values raises
    ``ValueError`` rather than mixing two settings in one total. Raises
    ``TypeError`` when ``outcome`` is a path (a ``str`` or ``os.PathLike``: the
    message names :func:`wavemetrics.summarize_paths`, which reads trace files).
    """
    reject_path(outcome, "analyse", "a ReadOutcome (from read_inputs)")
    settings = outcome.stream
    if settings is None:
        names = tuple(eval_tool_names) if eval_tool_names is not None else EVAL_TOOL_NAMES
        cap = DEFAULT_MAX_TRACKED_CALLS if isinstance(max_tracked_calls, _Unset) else (
            max_tracked_calls
        )
        settings = StreamSettings(
            cap, names,
            batchable_tool_names=(BATCHABLE_TOOL_NAMES if batchable_tool_names is None
                                  else tuple(batchable_tool_names)),
            idle_gap_ms=DEFAULT_IDLE_GAP_MS if idle_gap_ms is None else idle_gap_ms,
        )
    elif ((not isinstance(max_tracked_calls, _Unset)
           and max_tracked_calls != settings.max_tracked_calls)
          or (eval_tool_names is not None
              and tuple(eval_tool_names) != settings.eval_tool_names)
          or (batchable_tool_names is not None
              and tuple(batchable_tool_names) != settings.batchable_tool_names)
          or (idle_gap_ms is not None and idle_gap_ms != settings.idle_gap_ms)):
        raise ValueError(
            "analyse() was given other settings than the lanes were streamed with"
        )
    results = tuple(_lane_result(lane, settings) for lane in outcome.lanes)
    return Analysis(outcome, results, merge_summaries(r.summary for r in results))


def _lane_result(
    lane: Lane | StreamedLane, settings: StreamSettings
) -> LaneResult | StreamedLaneResult:
    if isinstance(lane, StreamedLane):
        return StreamedLaneResult(lane, lane.summary)
    assembly = assemble_waves(lane.observations, max_tracked_calls=settings.max_tracked_calls)
    summary = summarize(
        assembly,
        measured_turn_duration_ms_total=lane.measured_turn_duration_ms_total,
        eval_tool_names=settings.eval_tool_names,
        turn_intervals=lane.turn_intervals,
        timing=lane.timing,
        batchable_tool_names=settings.batchable_tool_names,
        idle_gap_ms=settings.idle_gap_ms,
    )
    return LaneResult(lane, assembly, summary)


#: :func:`summarize_inputs`'s default settings (frozen: one shared value).
_DEFAULT_SETTINGS = StreamSettings()


@overload
def summarize_inputs(
    paths: Sequence[str], input_format: str = ..., *,
    settings: StreamSettings = ..., stream: Literal[False] = False,
    mapper: Mapper | None = None, progress: Callable[[Sequence[str]], None] | None = None,
) -> Analysis[LaneResult]: ...


@overload
def summarize_inputs(
    paths: Sequence[str], input_format: str = ..., *,
    settings: StreamSettings = ..., stream: bool,
    mapper: Mapper | None = None, progress: Callable[[Sequence[str]], None] | None = None,
) -> Analysis[LaneResult | StreamedLaneResult]: ...


def summarize_inputs(
    paths: Sequence[str],
    input_format: str = AUTO,
    *,
    settings: StreamSettings = _DEFAULT_SETTINGS,
    stream: bool = False,
    mapper: Mapper | None = None,
    progress: Callable[[Sequence[str]], None] | None = None,
) -> Analysis[LaneResult | StreamedLaneResult]:
    """:func:`read_inputs` then :func:`analyse`, with ``settings`` given once.

    ``stream=True``: lanes may be streamed (see :func:`read_unit`);
    ``False``: every lane is assembled in batch and has its waves.
    """
    if stream:
        return analyse(read_inputs(
            paths, input_format, stream=settings, mapper=mapper, progress=progress
        ))
    outcome = read_inputs(paths, input_format, mapper=mapper, progress=progress)
    return analyse(
        outcome, eval_tool_names=settings.eval_tool_names,
        max_tracked_calls=settings.max_tracked_calls,
    )
