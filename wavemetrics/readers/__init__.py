"""Trace readers: inputs -> lanes of observations, with every line accounted for.

One module per format; :func:`read_inputs` expands paths, detects formats and
groups Claude Code files by project folder (``spec/formats.md``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from wavemetrics.readers._lines import LineAccount, forget_first_records, iter_records
from wavemetrics.readers.claude_code import ClaudeFile, read_claude_code
from wavemetrics.readers.lanes import InputReport, Lane, StreamSettings, streaming
from wavemetrics.readers.pi import read_pi_folder
from wavemetrics.readers.registry import (
    DETECT_LINES,
    READERS,
    reader_named,
    unmeasurable_reason,
)
from wavemetrics.readers.sources import (
    STDIN,
    Source,
    expand,
    open_error,
    project_folder,
)
from wavemetrics.stream import StreamOrderError

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
    "SkippedFile",
    "StreamSettings",
    "UnitResult",
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
class SkippedFile:
    """A file found while walking a folder that is not a trace, and why it was skipped."""

    path: str
    reason: str


@attrs.frozen
class ReadOutcome:
    """Every input's report (in input order), every lane read (in reading order), and the
    files found in folders that were skipped as not traces (``spec/formats.md``)."""

    inputs: tuple[InputReport, ...]
    lanes: tuple[Lane, ...]
    skipped: tuple[SkippedFile, ...] = ()

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
    #: Content that matches no format (neither read nor a known unmeasurable one).
    unrecognised: bool = False


@attrs.frozen
class ReadUnit:
    """Files read together: one file, every Claude Code file of a project folder, or
    every pi session file of a folder."""

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
        reason = unmeasurable_reason(peeked, path)
        return Detection(path, None, reason or _unrecognised(), unrecognised=reason is None)
    return Detection(path, detected)


def plan_units(detections: Sequence[Detection]) -> list[ReadUnit]:
    """Group detected files into read units, in order of first appearance.

    Claude Code files are grouped by project folder (``spec/formats.md``: uuid
    de-duplication and sub-agent lanes span a folder, so a folder is never split
    between workers), pi files by folder (forks are read after their parents,
    copied entries de-duplicated); every other file is a unit of its own.
    """
    units: list[ReadUnit] = []
    folders: dict[tuple[str, str], int] = {}
    for detection in detections:
        fmt = detection.format
        if fmt is None:
            continue
        if fmt not in FOLDER_FORMATS or detection.path == STDIN:
            units.append(ReadUnit(fmt, (detection.path,)))
            continue
        key = (fmt, _folder_of(fmt, detection.path))
        if key in folders:
            index = folders[key]
            units[index] = ReadUnit(fmt, (*units[index].paths, detection.path))
        else:
            folders[key] = len(units)
            units.append(ReadUnit(fmt, (detection.path,)))
    return [ReadUnit(u.format, tuple(sorted(u.paths))) if u.format in FOLDER_FORMATS else u
            for u in units]


#: Formats whose files are read together per folder: Claude Code project folders
#: (uuid de-duplication, sub-agent lanes) and pi session folders (fork copies).
FOLDER_FORMATS = ("claude-code", "pi")


def _folder_of(fmt: str, path: str) -> str:
    if fmt == "claude-code":
        return project_folder(path)
    return os.path.dirname(os.path.abspath(path))


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
    if fmt == "pi" and len(unit.paths) > 1:
        lane_list, accounts = read_pi_folder([sources[p] for p in unit.paths])
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


def _detect_file(
    args: tuple[str, str, StreamSettings | None],
) -> tuple[Detection, UnitResult | None]:
    """Detect one file and, unless it belongs to a folder read as a group (Claude Code,
    pi), read it at once: one round trip per file."""
    path, input_format, stream = args
    detection = detect_input(path, input_format)
    if detection.format is None or detection.format in FOLDER_FORMATS:
        return detection, None
    return detection, read_unit(ReadUnit(detection.format, (path,)), stream)


def _read_unit_args(args: tuple[ReadUnit, StreamSettings | None]) -> UnitResult:
    return read_unit(*args)


def read_inputs(
    paths: Sequence[str],
    input_format: str = AUTO,
    *,
    stream: StreamSettings | None = None,
    mapper: Mapper | None = None,
    progress: Callable[[int], None] | None = None,
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
    read. Raises ``ValueError`` for an unknown format name.
    """
    if input_format != AUTO and input_format not in FORMATS:
        raise ValueError(f"unknown input format {input_format!r}")
    run: Mapper = mapper or map
    expansion = expand(list(paths))
    entries = expansion.entries
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
    for detection, result in run(_detect_file, [(p, input_format, stream) for p in on_disk]):
        detected.append((detection, result))
        if detection.format not in FOLDER_FORMATS:
            done(1)
    detections = {d.path: d for d, _ in detected}
    early = {ReadUnit(d.format, (d.path,)): r for d, r in detected if r is not None and d.format}
    for path, source in stdin.items():
        detections[path] = detect_input(path, input_format, source)
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
    entries = _folders_only_skipped(entries, expansion.walked, reports, skipped)
    units = plan_units(ordered)
    parallel = [unit for unit in units
                if unit not in early and not any(path in stdin for path in unit.paths)]
    results = dict(early)
    for unit, result in zip(
        parallel, run(_read_unit_args, [(unit, stream) for unit in parallel]), strict=True
    ):
        results[unit] = result
        done(len(unit.paths))
    for unit in units:
        if unit not in results:
            results[unit] = read_unit(
                unit, stream, {path: stdin.get(path) or Source(path) for path in unit.paths}
            )
            done(len(unit.paths))
    lanes: list[Lane] = []
    for unit in units:
        result = results[unit]
        lanes.extend(result.lanes)
        for report in result.reports:
            reports[report.path] = report
    return ReadOutcome(
        tuple(reports[p] for p, _ in entries if p in reports), tuple(lanes),
        tuple(sorted(skipped, key=lambda s: s.path)),
    )


#: Why a file found in a folder was skipped after detection.
SKIPPED_UNRECOGNISED = (
    f"not a trace: matches no known format (looked at the first {DETECT_LINES} lines)"
)


def _folders_only_skipped(
    entries: list[tuple[str, str | None]],
    walked: dict[str, str],
    reports: dict[str, InputReport],
    skipped: list[SkippedFile],
) -> list[tuple[str, str | None]]:
    """A named folder whose every file was skipped is an error, as an empty folder is."""
    skipped_paths = {s.path for s in skipped}
    folders: dict[str, list[str]] = {}
    for path, folder in walked.items():
        folders.setdefault(folder, []).append(path)
    added: list[tuple[str, str | None]] = []
    for folder, files in folders.items():
        if files and all(path in skipped_paths for path in files):
            reason = (f"no trace files in this directory ({len(files)} found, none a trace:"
                      " skipped)")
            reports[folder] = InputReport(path=folder, format="unknown", error=reason)
            added.append((folder, reason))
    return entries + added


def _count_all(source: Source, account: LineAccount) -> None:
    for _ in iter_records(source.lines(), account):
        account.use()  # unreachable for an EMPTY input, kept so no line is lost


def _report(path: str, fmt: str, account: LineAccount, source: Source) -> InputReport:
    return InputReport.from_account(path, fmt, account, error=source.error)
