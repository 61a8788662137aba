"""The native engine: units of the formats whose registry row has ``native``, read by
the Rust extension.

``wavemetrics._native`` (built by maturin from ``native/``) reads a unit's files
straight from bytes and returns, in one call per unit, every input's line
account and every lane's summary. It implements the same rules as the Python
readers and core (``docs/formats.md``, ``docs/metrics.md``), which stay the
reference: ``tests/test_native.py`` compares the two engines figure by figure.
This module is the whole integration layer: it only converts between the
extension's plain tuples and the package's report and lane types.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from typing import Any

from wavemetrics.core.observations import Observation
from wavemetrics.core.summary import ParallelismSummary
from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers.dispatch import call_timing
from wavemetrics.readers.lanes import InputReport
from wavemetrics.readers.registry import NATIVE_ROWS, native_session_ids, native_sniffers
from wavemetrics.readers.sources import STDIN, open_error, project_folder
from wavemetrics.run import _extension
from wavemetrics.run._extension import API_VERSION
from wavemetrics.run._lanes import Lane, StreamedLane, StreamSettings

__all__ = [
    "API_VERSION",
    "ENGINES",
    "NATIVE_FORMATS",
    "available",
    "default_engine",
    "detect_and_read_natively",
    "detect_natively",
    "detection_counts",
    "read_unit_native",
    "read_unit_records_natively",
    "read_units_natively",
    "reads_natively",
    "split_reads",
    "stale",
]

# the extension, loaded and checked once (wavemetrics.run._extension); None when missing
# or stale. Module-level, so that a test can put a spy in its place.
_native: Any = _extension.extension()

#: The ``--engine`` choices.
ENGINES = ("python", "native")
#: Formats the native engine reads (their registry rows' ``native``), by the extension's
#: code for them (what its detection returns for the formats it detects, what its
#: reads take); other formats use the Python readers.
NATIVE_FORMATS = tuple(row.name for row in NATIVE_ROWS)
#: Each native format's extension code and session id of lines without one, and the
#: format of each code.
_CODE = {row.name: row.native.code for row in NATIVE_ROWS if row.native}
_SESSION_ID = {row.name: row.native.session_id for row in NATIVE_ROWS if row.native}
_NAMED = {code: name for name, code in _CODE.items()}
#: The folded read's unit of a folder (code 1); the formats of its other codes are read
#: one unit per file. _FILE: a format whose files are candidates (any native one).
_FOLDER, _FILE = _NAMED[1], _NAMED[0]


def available() -> bool:
    """True when the Rust extension is importable and built from these sources
    (its ``API_VERSION`` is :data:`API_VERSION`)."""
    return _native is not None


def stale() -> bool:
    """True when an extension is installed but built from older sources (another
    ``API_VERSION``): it is not used, and ``pip install -e .`` rebuilds it."""
    return _extension.stale()


def default_engine() -> str:
    """``native`` when the extension is built, else ``python``."""
    return "native" if available() else "python"


def _readable_natively(fmt: str, paths: tuple[str, ...], regular: bool = False) -> bool:
    # Regular files not named .gz only: stdin, pipes and .gz stay with the Python
    # readers (a pipe can be read once, and detection has already peeked it); gzip
    # content under another name is decompressed by the extension (native/src/io.rs).
    # ``regular``: the caller found every path a regular file this run (no stat here).
    if fmt not in NATIVE_FORMATS or _native is None:
        return False
    for path in paths:
        if path == STDIN or path.endswith(".gz"):
            return False
        if regular:
            continue
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return False
        except OSError:
            return False
    return True


def reads_natively(fmt: str) -> bool:
    """Whether the extension is here and reads ``fmt`` (a file of it is then read with the
    run's other units, in one call: ``pipeline._read_natively``)."""
    return _native is not None and fmt in NATIVE_FORMATS


def detect_natively(paths: list[str], jobs: int) -> dict[str, str]:
    """Detect ``paths`` on ``jobs`` threads: the files found to be of a format the
    extension detects (``events``, ``claude-code``, ``codex``, ``pi``), with their
    format, where the registry's recognisers would pick that format (same first lines,
    same rules: ``registry.py``). The rest (another format, empty, unrecognised,
    unreadable, not a regular file): ask the registry."""
    if _native is None:
        return {}
    # a file that cannot be opened is the registry's to report (same message as ever)
    candidates = [p for p in paths
                  if _readable_natively(_FILE, (p,)) and open_error(p) is None]
    found = _native.detect_many(
        [os.fsencode(p) for p in candidates], native_sniffers(),
        jobs,
    )
    return {path: _NAMED[index]
            for path, index in zip(candidates, found, strict=True) if index is not None}


def detection_counts() -> tuple[int, int]:
    """``(files detected by the separate detection pass, groups detected and read in
    one pass)`` in this process (:func:`detect_natively`, :func:`detect_and_read_natively`);
    ``(0, 0)`` without the extension."""
    return (0, 0) if _native is None else tuple(_native.detection_counts())


#: A unit read natively: ``(format, paths)``.
NativeUnit = tuple[str, tuple[str, ...]]
#: What reading a unit natively gives: its reports and lanes (:func:`read_unit_native`).
NativeResult = tuple[tuple[InputReport, ...], tuple[StreamedLane, ...]]


def detect_and_read_natively(
    paths: list[str], stream: StreamSettings, detected: list[str] | tuple[str, ...] = (),
    regular: bool = False,
) -> tuple[dict[str, str], dict[NativeUnit, NativeResult]]:
    """Detect ``paths`` (regular files, as :func:`detect_natively`) and read the
    ``claude-code``, ``events``, ``codex`` and ``pi`` ones in the same pass, on
    ``stream.jobs`` threads: each file's first lines are parsed once, detection deciding
    from the records the Claude Code parse makes of them (the same rules). A path that
    is not a regular, uncompressed file (``-``, ``.gz``, a FIFO, a device) is never
    opened here: its folder is only detected, by :func:`detect_natively`.

    The files are grouped by the unit a ``claude-code`` file would join (its project
    folder, :func:`~wavemetrics.readers.sources.project_folder`); of each group, the
    files found ``claude-code`` are read as one unit in path order (what
    :func:`~wavemetrics.readers.dispatch.plan_units` makes of them), each ``events`` or
    ``codex`` file as a unit of its own, and the ``pi`` files of each folder as one
    unit. A group that shares its folder with a file that is not a candidate (``.gz``)
    or with one of ``detected`` (files whose format is already known, from the cache)
    is only detected: its unit holds files this pass does not
    see. Returns the files found to be of a native format with their format
    (the rest: ask the registry), and the result of every unit read, by ``(format,
    paths)``; a unit whose read failed is left out (read it another way). A unit the
    caller plans otherwise (say the registry finds another ``claude-code`` file of
    the folder) must be read again: its result here is not that unit's. Raises no
    exception for an input: a file that cannot be opened or read is left to the
    registry (which reports it as ever). ``regular``: the caller has just found every
    one of ``paths`` to be a regular file (its ``stat``, as the pipeline's file keys),
    so they are not stat'ed again here.
    """
    if _native is None:
        return {}, {}
    groups: dict[str, list[str]] = {}
    blocked: set[str] = {project_folder(p) for p in detected}
    for path in paths:
        folder = project_folder(path)
        if not _readable_natively(_FILE, (path,), regular):  # stdin, .gz, a FIFO
            blocked.add(folder)
        elif open_error(path) is None:  # else the registry's to report (as ever)
            groups.setdefault(folder, []).append(path)
    alone = [p for folder, members in groups.items() if folder in blocked for p in members]
    found = detect_natively(alone, stream.jobs) if alone else {}
    folded = [tuple(sorted(members)) for folder, members in groups.items()
              if folder not in blocked]
    if not folded:
        return found, {}
    args = [[(os.fsencode(p), *native_session_ids(p))
             for p in group] for group in folded]
    outs = _native.read_folded(
        args, native_sniffers(), stream.max_tracked_calls or None,
        *_name_args(stream), stream.jobs,
    )
    units: dict[NativeUnit, NativeResult] = {}
    for group, (detections, claude, alone, folders) in zip(folded, outs, strict=True):
        found.update((path, _NAMED[index])
                     for path, index in zip(group, detections, strict=True) if index is not None)
        members = tuple(p for p, index in zip(group, detections, strict=True) if index == 1)
        if claude is not None:
            units[_FOLDER, members] = _unit_result(_FOLDER, members, claude)
        read = [([index], result) for index, result in alone] + folders
        for indexes, result in read:
            code = detections[indexes[0]]
            if result is not None and code is not None:
                fmt, unit = _NAMED[code], tuple(group[index] for index in indexes)
                units[fmt, unit] = _unit_result(fmt, unit, result)
    return found, units


def split_reads() -> int:
    """How many groups of files this process has read with their files parsed on several
    threads (the split read of ``--jobs``): a Claude Code folder, or a folded group of two
    or more candidate files (:func:`detect_and_read_natively`), whatever their formats
    turn out to be; 0 without the extension. For tests and benchmarks."""
    return 0 if _native is None else int(_native.split_reads())


_eval_names = _extension.eval_names


def _name_args(stream: StreamSettings) -> tuple[list[str], list[str], float]:
    """The extension's ``(eval_names, batchable_names, idle_gap_ms)`` of ``stream``:
    the names in normal form, empty ones dropped (``docs/metrics.md`` sections 4 and 9)."""
    return (
        _eval_names(tuple(stream.eval_tool_names)),
        _eval_names(tuple(stream.batchable_tool_names)),
        float(stream.idle_gap_ms),
    )


def _report(path: str, fmt: str, raw: tuple[Any, ...]) -> InputReport:
    lines_read, lines_used, ignored, problems, notes = raw
    account = LineAccount(
        lines_read=lines_read,
        lines_used=lines_used,
        # a record type may hold a lone surrogate (valid JSON): WTF-8 back to str
        ignored=Counter({key.decode("utf-8", "surrogatepass"): n for key, n in ignored}),
        problems=Counter(dict(problems)),
        notes=Counter(dict(notes)),
    )
    return InputReport.from_account(path, fmt, account)


#: The names of a lane's figures, in the order the extension returns them: its own
#: ``figure_names()``, which ``tests/test_native.py`` holds equal to ``SUMMARY_FIELDS``.
_FIGURE_NAMES: tuple[str, ...] = () if _native is None else _native.figure_names()


def _lane(paths: tuple[str, ...], raw: tuple[Any, ...]) -> StreamedLane:
    file, session_id, lane_id, figures, _ = raw
    summary = ParallelismSummary(**dict(zip(_FIGURE_NAMES, figures, strict=True)))
    return StreamedLane(
        path=paths[file],
        session_id=session_id,
        lane_id=lane_id,
        measured_turn_duration_ms_total=summary.measured_turn_duration_ms_total,
        summary=summary,
    )


def _unit_args(fmt: str, paths: tuple[str, ...]) -> tuple[int, list[bytes], list[str]]:
    # (the format's code, the paths, the session id of lines without one, per path)
    session_id = _SESSION_ID[fmt]
    return _CODE[fmt], [os.fsencode(p) for p in paths], [session_id(p) for p in paths]


def _unit_result(
    fmt: str, paths: tuple[str, ...], result: tuple[Any, ...]
) -> tuple[tuple[InputReport, ...], tuple[StreamedLane, ...]]:
    accounts, lanes, read_again = result
    reports = tuple(_report(p, fmt, raw) for p, raw in zip(paths, accounts, strict=True))
    if read_again:
        reports = tuple(
            InputReport(
                path=r.path, format=r.format, lines_read=r.lines_read, lines_used=r.lines_used,
                lines_ignored=r.lines_ignored, problems=r.problems, ignored=r.ignored,
                notes={**r.notes, "read_again_in_batch": 1}, error=r.error,
            )
            for r in reports
        )
    return reports, tuple(_lane(paths, raw) for raw in lanes)


def read_units_natively(
    units: list[tuple[str, tuple[str, ...]]], stream: StreamSettings, jobs: int
) -> dict[int, tuple[tuple[InputReport, ...], tuple[StreamedLane, ...]]]:
    """Read many units at once on ``jobs`` threads: each unit whole on one thread, or,
    with fewer units than ``jobs``, a Claude Code folder's files parsed on the threads
    left over and merged in file order (the same output for any ``jobs``).

    ``units``: ``(format, paths)`` pairs. Returns, by index into ``units``, the
    result of every unit the native engine read (as :func:`read_unit_native`);
    the others (unreadable natively, or failed) are left to the Python readers.
    """
    if _native is None:
        return {}
    chosen = [i for i, (fmt, paths) in enumerate(units) if _readable_natively(fmt, paths)]
    if not chosen:
        return {}
    results = _native.read_units(
        [_unit_args(*units[i]) for i in chosen], stream.max_tracked_calls or None,
        *_name_args(stream), jobs, False,
    )
    return {
        i: _unit_result(*units[i], result)
        for i, result in zip(chosen, results, strict=True) if result is not None
    }


def read_unit_native(
    fmt: str, paths: tuple[str, ...], stream: StreamSettings
) -> tuple[tuple[InputReport, ...], tuple[StreamedLane, ...]] | None:
    """Read one unit (a Claude Code project folder, one events file or one Codex
    rollout) natively.

    Returns the reports (one per path, in order) and the lanes with their
    summaries, exactly as the Python readers in streaming mode would; ``None``
    when the native engine cannot read this unit (another format, stdin, a
    pipe, a ``.gz`` file, a gzip stream ``gzip`` may read otherwise, an I/O
    error): the caller then uses the Python readers, which report the problem in
    their usual way. With ``stream.jobs`` > 1 a Claude
    Code folder's files are parsed on that many threads and merged in file order.
    """
    if not _readable_natively(fmt, paths):
        return None
    cap = stream.max_tracked_calls or None
    # one unit: its files are parsed on all of stream.jobs threads
    (result,) = _native.read_units(
        [_unit_args(fmt, paths)], cap, *_name_args(stream), stream.jobs, False
    )
    if result is None:
        return None  # I/O error, turn total: the Python readers give the reference behaviour
    return _unit_result(fmt, paths, result)


#: The settings a batch read passes: the observations it keeps do not depend on them.
_RECORDING = StreamSettings()


def _batch_lane(fmt: str, paths: tuple[str, ...], raw: tuple[Any, ...]) -> Lane:
    """A lane read with its observations kept (the extension's ``records``), as the
    Python readers' batch sink (``pipeline._BatchLane``) builds it."""
    file, session_id, lane_id, _, records = raw
    starts, call_ids, tool_names, at_ms, batches, turn_total, turns = records
    observations = tuple(
        Observation("start", call_id, name, at, None if batch is None
                    else batch.decode("utf-8", "surrogatepass"))
        if start else Observation("end", call_id, name, at)
        for start, call_id, name, at, batch in zip(
            starts, call_ids, tool_names, at_ms, batches, strict=True)
    )
    return Lane(paths[file], session_id, lane_id, observations, turn_total,
                tuple(map(tuple, turns)), call_timing(fmt))


def read_unit_records_natively(
    units: list[tuple[str, tuple[str, ...]]], jobs: int
) -> dict[int, tuple[tuple[InputReport, ...], tuple[Lane, ...]]]:
    """Read many units in batch, each lane with its observations (a :class:`Lane`, as
    the Python readers read it with no stream settings: ``pipeline.read_unit``), on
    ``jobs`` threads. ``units``: ``(format, paths)`` pairs. Returns, by index into
    ``units``, the result of every unit the native engine read; the others
    (unreadable natively, or failed) are left to the Python readers.
    """
    if _native is None:
        return {}
    chosen = [i for i, (fmt, paths) in enumerate(units) if _readable_natively(fmt, paths)]
    if not chosen:
        return {}
    results = _native.read_units(
        [_unit_args(*units[i]) for i in chosen], _RECORDING.max_tracked_calls,
        *_name_args(_RECORDING), jobs, True,
    )
    done: dict[int, tuple[tuple[InputReport, ...], tuple[Lane, ...]]] = {}
    for i, result in zip(chosen, results, strict=True):
        if result is not None:
            fmt, paths = units[i]
            accounts, lanes, _ = result
            reports = tuple(_report(p, fmt, raw) for p, raw in zip(paths, accounts, strict=True))
            done[i] = reports, tuple(_batch_lane(fmt, paths, raw) for raw in lanes)
    return done

