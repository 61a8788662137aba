"""Trace readers: inputs -> lanes of observations, with every line accounted for.

One module per format; :func:`read_inputs` expands paths, detects formats and
groups Claude Code files by project folder (``spec/formats.md``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from wavemetrics.readers._lines import LineAccount, forget_first_records, iter_records
from wavemetrics.readers.claude_code import ClaudeFile, read_claude_code
from wavemetrics.readers.lanes import InputReport, Lane, StreamSettings, streaming
from wavemetrics.readers.registry import (
    DETECT_LINES,
    READERS,
    reader_named,
    unmeasurable_reason,
)
from wavemetrics.readers.sources import (
    STDIN,
    Source,
    expand_inputs,
    open_error,
    project_folder,
)
from wavemetrics.readers.unit_cache import decode_unit, encode_unit, replay_streaming
from wavemetrics.stream import StreamOrderError

if TYPE_CHECKING:
    from wavemetrics.cache import ReadCache

__all__ = [
    "AUTO",
    "EMPTY",
    "FORMATS",
    "Detection",
    "InputReport",
    "Lane",
    "Mapper",
    "ReadOutcome",
    "ReadUnit",
    "StreamSettings",
    "UnitResult",
    "cached_read_unit",
    "detect_input",
    "plan_units",
    "read_inputs",
    "read_unit",
]

AUTO = "auto"
#: Pseudo-format of an input with no content at all (reported, not an error).
EMPTY = "empty"
#: The formats this version reads, by their ``--input-format`` names.
FORMATS: tuple[str, ...] = tuple(reader.name for reader in READERS)


@attrs.frozen
class ReadOutcome:
    """Every input's report (in input order) and every lane read (in reading order)."""

    inputs: tuple[InputReport, ...]
    lanes: tuple[Lane, ...]

    @property
    def failed(self) -> tuple[InputReport, ...]:
        """Inputs that could not be read or recognised."""
        return tuple(report for report in self.inputs if report.error is not None)


def detect_format(lines: list[bytes], path: str) -> str | None:
    """The first format whose recogniser accepts ``lines``; ``EMPTY`` when no line
    has content; ``None`` when there is content but no format matches."""
    if not any(line.strip() for line in lines):
        return EMPTY
    for reader in READERS:
        if reader.sniff(lines, path):
            return reader.name
    return None


Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], Iterable[Any]]


@attrs.frozen
class Detection:
    """What detection found for one file: its format, or why it cannot be read."""

    path: str
    format: str | None
    error: str | None = None


@attrs.frozen
class ReadUnit:
    """Files read together: one file, or every Claude Code file of a project folder."""

    format: str
    paths: tuple[str, ...]


@attrs.frozen
class UnitResult:
    """The reports (one per path of the unit) and the lanes of one unit."""

    reports: tuple[InputReport, ...]
    lanes: tuple[Lane, ...]


def _unrecognised() -> str:
    return (f"not a recognised trace format (looked at the first {DETECT_LINES} lines;"
            f" known: {', '.join(FORMATS)})")


def detect_input(path: str, input_format: str = AUTO, source: Source | None = None) -> Detection:
    """Detect one file's format (or take ``input_format``); never raises for bad data."""
    source = source or Source(path)
    error = None if source.is_stdin else open_error(path)
    if error is not None:
        return Detection(path, None, error)
    if input_format != AUTO:
        return Detection(path, input_format)
    peeked = source.peek(DETECT_LINES)
    try:
        detected = detect_format(peeked, path)
    finally:
        forget_first_records()
    if source.error is not None and detected in (None, EMPTY):
        # Cut off before anything recognisable (else its readable lines are read).
        return Detection(path, None, source.error)
    if detected is None:
        return Detection(path, None, unmeasurable_reason(peeked, path) or _unrecognised())
    return Detection(path, detected)


def plan_units(detections: Sequence[Detection]) -> list[ReadUnit]:
    """Group detected files into read units, in order of first appearance.

    Claude Code files are grouped by project folder (``spec/formats.md``: uuid
    de-duplication and sub-agent lanes span a folder, so a folder is never split
    between workers); every other file is a unit of its own.
    """
    units: list[ReadUnit] = []
    claude: dict[str, int] = {}
    for detection in detections:
        fmt = detection.format
        if fmt is None:
            continue
        if fmt != "claude-code" or detection.path == STDIN:
            units.append(ReadUnit(fmt, (detection.path,)))
            continue
        key = project_folder(detection.path)
        if key in claude:
            index = claude[key]
            units[index] = ReadUnit(fmt, (*units[index].paths, detection.path))
        else:
            claude[key] = len(units)
            units.append(ReadUnit(fmt, (detection.path,)))
    return [ReadUnit(u.format, tuple(sorted(u.paths))) if u.format == "claude-code" else u
            for u in units]


def _read_unit_once(unit: ReadUnit, sources: dict[str, Source]) -> UnitResult:
    fmt = unit.format
    if fmt == "claude-code":
        members = [ClaudeFile(p, sources[p].lines) for p in unit.paths]
        lane_list, accounts = read_claude_code(members)
        reports = tuple(
            _report(p, fmt, account, sources[p])
            for p, account in zip(unit.paths, accounts, strict=True)
        )
        return UnitResult(reports, tuple(lane_list))
    (path,) = unit.paths
    source = sources[path]
    if fmt == EMPTY:
        account = LineAccount()
        _count_all(source, account)
        return UnitResult((_report(path, fmt, account, source),), ())
    read = reader_named(fmt).read
    assert read is not None
    lane_list, account = read(source)
    return UnitResult((_report(path, fmt, account, source),), tuple(lane_list))


def read_unit(
    unit: ReadUnit,
    stream: StreamSettings | None = None,
    sources: dict[str, Source] | None = None,
) -> UnitResult:
    """Read one unit; with ``stream`` settings, lanes are summarised while read.

    Streaming needs regular files (a failed stream is re-read in batch mode:
    :class:`~wavemetrics.stream.StreamOrderError`); stdin and pipes are read in
    batch mode. The result is the same either way.
    """
    sources = sources or {path: Source(path) for path in unit.paths}
    rereadable = all(os.path.isfile(path) for path in unit.paths)
    if stream is None or not rereadable:
        with streaming(None):
            return _read_unit_once(unit, sources)
    try:
        with streaming(stream):
            return _read_unit_once(unit, sources)
    except StreamOrderError:
        pass
    fresh = {path: Source(path) for path in unit.paths}
    with streaming(None):
        result = _read_unit_once(unit, fresh)
    # say so: the unit was read a second time because its calls came out of order
    reports = tuple(
        attrs.evolve(r, notes={**r.notes, "read_again_in_batch": 1}) for r in result.reports
    )
    return UnitResult(reports, result.lanes)


def cached_read_unit(
    unit: ReadUnit,
    stream: StreamSettings | None = None,
    cache: ReadCache | None = None,
    sources: dict[str, Source] | None = None,
) -> UnitResult:
    """:func:`read_unit` through the cache: the same result, read from the cache
    when every file of the unit is unchanged (``wavemetrics.cache``).

    A miss reads the unit in batch mode and stores its compact records unless a
    file changed while it was read or could not be read in full; a streaming
    result is then replayed from the records (``unit_cache.replay_streaming``).
    """
    from wavemetrics.cache import file_key, unit_key

    keys = [file_key(path) for path in unit.paths] if cache is not None else []
    if cache is None or not keys or any(key is None for key in keys):
        return read_unit(unit, stream, sources)
    known = [key for key in keys if key is not None]
    summarised_key = None
    if stream is not None:
        # the lanes as a streaming read leaves them: summaries, no calls
        settings = f"stream:{stream.max_tracked_calls}:{list(stream.eval_tool_names)}"
        summarised_key = unit_key(unit.format, known, settings)
        hit = _decoded(unit, cache.load(summarised_key))
        if hit is not None:
            return UnitResult(*hit)
    records_key = unit_key(unit.format, known)
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


def _decoded(
    unit: ReadUnit, value: Any
) -> tuple[tuple[InputReport, ...], tuple[Lane, ...]] | None:
    if value is None:
        return None
    try:
        return decode_unit(unit.paths, value)
    except (ValueError, TypeError, IndexError, KeyError):
        return None  # damaged or of another version: read again, never trusted


def _detect_cached(path: str, input_format: str, cache: ReadCache | None) -> Detection:
    if cache is None:
        return detect_input(path, input_format)
    from wavemetrics.cache import file_key

    key = file_key(path)
    known = cache.detection(key, input_format) if key is not None else None
    if known is not None:
        return Detection(path, known)
    detection = detect_input(path, input_format)
    if key is not None and detection.format is not None and file_key(path) == key:
        cache.store_detection(key, input_format, detection.format)
    return detection


def _detect_file(
    args: tuple[str, str, StreamSettings | None, ReadCache | None],
) -> tuple[Detection, UnitResult | None]:
    """Detect one file and, unless it belongs to a Claude Code project folder
    (read later as a group), read it at once: one round trip per file."""
    path, input_format, stream, cache = args
    detection = _detect_cached(path, input_format, cache)
    if detection.format is None or detection.format == "claude-code":
        return detection, None
    return detection, cached_read_unit(ReadUnit(detection.format, (path,)), stream, cache)


def _read_unit_args(
    args: tuple[ReadUnit, StreamSettings | None, ReadCache | None],
) -> UnitResult:
    return cached_read_unit(*args)


def read_inputs(
    paths: Sequence[str],
    input_format: str = AUTO,
    *,
    stream: StreamSettings | None = None,
    mapper: Mapper | None = None,
    progress: Callable[[int], None] | None = None,
    cache: ReadCache | None = None,
) -> ReadOutcome:
    """Read every path (file, directory read recursively, or ``-`` for stdin).

    ``input_format``: ``"auto"`` or one of :data:`FORMATS`. ``stream``: summarise
    lanes while reading (bounded memory; ``Lane.summary`` is set and
    ``Lane.observations`` empty). ``mapper``: how to run detection and units,
    e.g. a process pool's ``map``; the outcome never depends on it (the built-in
    ``map`` by default). ``progress(n)`` is called as ``n`` more files are done
    (a progress bar's update; the files of a Claude Code folder count when the
    folder is read). Never raises for bad data: an unreadable or
    unrecognised input gets ``error`` set in its report and the rest are still
    read. ``cache``: a :class:`~wavemetrics.cache.ReadCache` to read unchanged
    files from (the outcome is the same with or without it; stdin is never
    cached). Raises ``ValueError`` for an unknown format name.
    """
    if input_format != AUTO and input_format not in FORMATS:
        raise ValueError(f"unknown input format {input_format!r}")
    run: Mapper = mapper or map
    entries = expand_inputs(list(paths))
    files = [path for path, error in entries if error is None]
    reports: dict[str, InputReport] = {
        path: InputReport(path=path, format="unknown", error=reason)
        for path, reason in entries
        if reason is not None
    }
    # stdin and pipes can be read only once: detected and read here, one Source each
    stdin = {path: Source(path) for path in files if path == STDIN or not os.path.isfile(path)}
    on_disk = [path for path in files if path not in stdin]
    done = progress or (lambda n: None)
    detected = []
    for detection, result in run(_detect_file, [(p, input_format, stream, cache) for p in on_disk]):
        detected.append((detection, result))
        if detection.format != "claude-code":
            done(1)
    detections = {d.path: d for d, _ in detected}
    early = {ReadUnit(d.format, (d.path,)): r for d, r in detected if r is not None and d.format}
    for path, source in stdin.items():
        detections[path] = detect_input(path, input_format, source)
    ordered = [detections[path] for path in files]
    for detection in ordered:
        if detection.format is None:
            reports[detection.path] = InputReport(
                path=detection.path, format="unknown", error=detection.error
            )
    units = plan_units(ordered)
    parallel = [unit for unit in units
                if unit not in early and not any(path in stdin for path in unit.paths)]
    results = dict(early)
    for unit, result in zip(
        parallel, run(_read_unit_args, [(unit, stream, cache) for unit in parallel]), strict=True
    ):
        results[unit] = result
        done(len(unit.paths))
    for unit in units:
        if unit not in results:
            results[unit] = cached_read_unit(
                unit, stream, cache, {path: stdin.get(path) or Source(path) for path in unit.paths}
            )
            done(len(unit.paths))
    lanes: list[Lane] = []
    for unit in units:
        result = results[unit]
        lanes.extend(result.lanes)
        for report in result.reports:
            reports[report.path] = report
    return ReadOutcome(tuple(reports[p] for p, _ in entries), tuple(lanes))


def _count_all(source: Source, account: LineAccount) -> None:
    for _ in iter_records(source.lines(), account):
        account.use()  # unreachable for an EMPTY input, kept so no line is lost


def _report(path: str, fmt: str, account: LineAccount, source: Source) -> InputReport:
    return InputReport.from_account(path, fmt, account, error=source.error)
