"""The native command: ``summarize`` read, merged and written by the extension.

For the common run (Claude Code folders or files, ``events`` logs, Codex rollouts,
pi sessions) the
Python command spends most of its time outside the read: importing click, attrs and
the readers, turning the extension's results into report and lane objects, merging
them (docs/performance-history.md). Here the same run is made before any of that
loads: the folder walk of the readers (:func:`wavemetrics.inputs._files.expand_entries`),
one call to the extension, which looks for possible copies
(:func:`wavemetrics.inputs._files.copy_candidates`'s rule), detects and reads every
file on ``--jobs`` threads, merges the lanes and writes the whole JSON document
(``native/src/command.rs``), and the stderr notes of :mod:`wavemetrics.views.notes`
from the plain facts it returns. ``--format json`` prints that document as it is;
every other format is drawn from it by the views the CLI uses
(:func:`wavemetrics.views.document.analysis_of`, then
:func:`wavemetrics.views.plain.render_plain`). The output (stdout, stderr, exit
status) is the Python command's byte for byte (``tests/test_fastpath.py``); the
Python engine stays the reference.

The options that set the figures (the eval and batchable names, the idle gap, the
per-lane cap) are handed to the extension, and ``--by session|lane|project`` groups
are drawn from the document's lanes; a ``--since``/``--until`` window is cut by the
extension (``native/core/src/window.rs``, the rules of ``views/slices.py``). Only what
is sure to be the same is taken. A unit of a format the extension has no reader for
is read by the Python reader and handed over (its lanes' figures, or their calls when
the run needs them: :func:`_read_elsewhere`), and a file of no trace that a folder walk
found is skipped as the CLI skips it. Declined: a byte limit, ``--engine python``, an eval or
batchable name whose normal form is not ASCII, a forced ``--input-format`` that some
input is not detected as (one every input is detected as is read the same either
way: only the document's ``options`` record tells the runs apart), stdin that cannot be
made a file the extension opens again (a terminal, a device, more than
:data:`~wavemetrics.inputs._stdin.HELD_AT_MOST` bytes piped in:
:func:`~wavemetrics.inputs._stdin.reopenable_stdin`, after which the CLI reads the same
bytes), an input that is not a
regular file once links are followed (a FIFO; a link to a regular file is read through
it, as the CLI reads it), a path that is not UTF-8, a gzip input that Python may
read otherwise (``native/src/io.rs``), an input with an
error (a file of no trace named on the command line among them), files that may be
copies of each other, a figure that is not finite: then :func:`run`
returns ``None`` and the CLI runs as ever (docs/cli.md, "The native command"). With
the cache on, the whole output is stored as the CLI stores it
(:mod:`wavemetrics.cache.runcache`), to be served again; no per-file entry is kept,
since reading natively is faster than loading them. With no PATH the plan's files
are the standard locations, named on stderr first as the CLI names them.
"""

from __future__ import annotations

import os
import stat
import sys

from wavemetrics.core._eval_names import EVAL_TOOL_NAMES
from wavemetrics.inputs import _files
from wavemetrics.inputs._walk import keyed_walk, walk
from wavemetrics.inputs._walk import utf8 as _utf8
from wavemetrics.readers.registry import native_session_ids, native_sniffers
from wavemetrics.run import _extension
from wavemetrics.run._options import (
    BATCHABLE_TOOL_NAMES,
    DEFAULT_IDLE_GAP_MS,
    DEFAULT_MAX_TRACKED_CALLS,
    MAX_NATIVE_CAP,
    SUMMARIZE,
    options_json,
    options_record,
)
from wavemetrics.views.plain import PLAIN_FORMATS, PROGRESS_MIN_FILES, show_progress

# typing, collections.abc and contextlib are not imported at run time: with enum, re
# and json they were ~15 ms of a cold run's start-up (docs/performance-history.md, "Eleventh
# round"); mypy reads the names below (it takes any TYPE_CHECKING as true)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from wavemetrics._native import _ToolTable, _Wave
    from wavemetrics.cache.runcache import Again
    from wavemetrics.cli.timewindow import Window
    from wavemetrics.run.plan import Plan
    from wavemetrics.views.groups import PeriodTable

    #: What :func:`summarize_json` gives: the document, the lines for stderr, the
    #: ``--by tool`` figures (a ``ToolTable``) or a ``waves`` run's waves (each lane's
    #: ``_native._Wave`` list), and the ``--by day|week|month`` groups (``None`` for
    #: another run).
    Done = tuple[bytes, list[str], _ToolTable | list[list[_Wave]] | bytes | None,
                 PeriodTable | None]

__all__ = ["BY_DOCUMENT", "options_of", "output_chunks", "run", "summarize_json", "window_of"]

#: The ``summarize`` options this path takes (the option table's rows marked ``native``);
#: a run with any other is the CLI's.
_OPTIONS = frozenset(row.name for row in SUMMARIZE if row.native)


class _Input:
    """An input's report as the notes read it (:class:`wavemetrics.views.notes.InputFacts`)."""

    __slots__ = ("error", "format", "lines_ignored", "lines_read", "lines_used", "path",
                 "problems")

    def __init__(self, path: str, format: str, lines_read: int, lines_used: int,
                 lines_ignored: int, problems: dict[str, int]) -> None:
        self.path, self.format, self.problems = path, format, problems
        self.lines_read, self.lines_used, self.lines_ignored = lines_read, lines_used, lines_ignored
        self.error: str | None = None


class _Lane:
    """A lane as the notes read it (:class:`wavemetrics.views.notes.LaneFacts`)."""

    __slots__ = ("lane_id", "path", "session_id")

    def __init__(self, path: str, session_id: str, lane_id: str) -> None:
        self.path, self.session_id, self.lane_id = path, session_id, lane_id


class _Skipped:
    """A file the walk passed over, as the notes read it
    (:class:`wavemetrics.views.notes.SkippedFacts`)."""

    __slots__ = ("path", "reason")

    def __init__(self, path: str, reason: str) -> None:
        self.path, self.reason = path, reason


#: What the extension reads a file as: ``(path, fallback session id, stem or None,
#: group)`` (``CommandArg`` of ``native/binding/src/python.rs``).
_Arg = tuple[str, str, str | None, int]


def _args_of(files: Sequence[str]) -> list[_Arg]:
    """The extension's arguments for ``files``: each path with its fallback session id,
    its stem when ``subagents`` is in the path (else the same as the fallback), and its
    project folder's number in order of first appearance (the readers' units)."""
    groups: dict[str, int] = {}
    folders: dict[str, int] = {}  # each folder's group: its project folder's number
    args = []
    for path in files:
        folder = os.path.dirname(path)
        if folder not in folders:
            folders[folder] = groups.setdefault(_files.project_folder(path), len(groups))
        args.append((path, *native_session_ids(path), folders[folder]))
    return args


def _files_of(
    paths: Sequence[str], jobs: int = 1, keyed: bytes | None = None
) -> tuple[list[_Arg], list[tuple[str, str]]] | str:
    """The files a read of ``paths`` reads, in order, as the extension's arguments
    (:func:`_args_of`), and the sidecars it skips (path order); or why this path leaves
    the run to the CLI. ``jobs``: threads the extension's walk may use; ``keyed``: the
    inputs part of the run's key when the extension's walk made it: that walk's files
    are read (:func:`wavemetrics.inputs._walk.keyed_walk`), with no second walk."""
    if not all(_utf8(path) for path in paths):
        return "a path that is not UTF-8"
    native = None if keyed is None else keyed_walk(paths, keyed)
    if native is None:
        native = walk(paths, key=False, jobs=jobs)  # the extension's walk: the same files
    if native is not None and native.files is not None and native.names is not None:
        args = [(path, *names) for path, names in zip(native.files, native.names, strict=True)]
        return args, [(path, _files.SIDECAR_REASON) for path in native.sidecars]
    walked: dict[str, str] = {}
    skipped: list[tuple[str, str]] = []
    plain: set[str] = set()
    files: list[str] = []
    for path, error in _files.expand_entries(list(paths), walked, skipped, plain):
        if error is not None:
            return "an input cannot be read"
        if not _utf8(path):
            return "a path that is not UTF-8"
        if path not in plain and path != _files.STDIN:
            # named, or listed as a link: looked at, through the link (stdin was made a
            # file the extension can open: summarize_json)
            try:
                if not stat.S_ISREG(os.stat(path).st_mode):
                    return "an input is not a regular file"
            except OSError:
                return "an input cannot be read"
        files.append(path)
    if not files:
        return "no file to read"
    # possible copies (_files.copy_candidates) are looked for by the extension, on its
    # threads, before it reads (command::may_repeat): "inputs may repeat each other's
    # content" is then its reason
    return _args_of(files), sorted(skipped, key=lambda entry: entry[0])


class _Drawn:
    """The CLI's progress bar (:class:`wavemetrics.cli.progress.ByteProgress`: bytes and
    files done, cleared at the end) drawn on stderr while the extension reads ``files``:
    the extension counts them in :attr:`progress` as it reads, without the GIL, and a
    thread moves the bar to that count every :data:`_EVERY` seconds until
    :meth:`close`."""

    def __init__(self, files: list[str], native: Any) -> None:
        import threading

        from wavemetrics.cli.progress import ByteProgress  # click: only when drawn

        self._bar = ByteProgress(files)
        self.progress = native.ReadProgress([self._bar.weight(path) for path in files])
        self._bar.__enter__()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, daemon=True)
        self._thread.start()

    def _follow(self) -> None:
        while not self._stop.wait(_EVERY):
            self._bar.reached(*self.progress.done())

    def close(self) -> None:
        """The bar at the count reached, then cleared (whatever ended the read)."""
        self._stop.set()
        self._thread.join()
        self._bar.reached(*self.progress.done())
        self._bar.__exit__(None, None, None)


#: How often (s) the drawn bar follows the extension's count.
_EVERY = 0.05


def _names(given: Sequence[str], default: tuple[str, ...]) -> list[str] | None:
    """Names as the extension takes them (normal forms, empty ones dropped:
    :func:`wavemetrics.run._extension.eval_names`), or ``None`` when a normal form is
    not ASCII (Rust's lower case can differ from Python's there: docs/metrics.md,
    choice 10). The defaults are normal already: handed over as they are."""
    if tuple(given) == default:
        return list(default)
    normal = _extension.eval_names(given)
    return normal if all(name.isascii() for name in normal) else None


def summarize_json(
    paths: Sequence[str], jobs: int, keyed: bytes | None = None,
    noted: Callable[[], object] | None = None, input_format: str = _files.AUTO,
    show_paths: bool = False, options: dict[str, Any] | None = None, bar: bool = False,
    window: Window | None = None, waves: int = 0, losses: list[object] | None = None,
    json_by: bool = False,
) -> Done | str:
    """``summarize --format json PATHS``: the document and the lines for stderr (not
    yet escaped), or the reason (a ``str``) this path leaves the run to the CLI
    (nothing was printed). ``jobs``: threads to read on (the output never depends on
    it); ``keyed``: as :func:`_files_of` takes it; ``noted``: called once the notes have
    looked at the files (while the extension renders the document), unless the run is
    declined before; ``input_format``: ``auto``, or a forced format, which the
    extension must detect every input as (else the run is declined: the CLI reads it
    as forced); ``show_paths``: the run has ``--show-paths`` (a note then names what it
    would have suggested it for); ``options``: the run's options record
    (:func:`wavemetrics.run._options.options_record`, whose ``input_format`` then
    replaces the argument), the document's ``options`` and the source of the figures'
    settings (the eval and batchable names, the idle gap, the per-lane cap; its byte
    limits must be the defaults: :func:`run` takes no other); ``None``: the
    defaults; ``bar``: draw the CLI's progress bar on stderr while the extension reads
    (:class:`_Drawn`), when there are :data:`~wavemetrics.views.plain.PROGRESS_MIN_FILES`
    files or more, as the CLI does; ``window``: the run's ``--since``/``--until``
    (:func:`window_of`; the record's bounds are its texts): each lane is cut to it and
    summarised again (docs/cli.md, "Time windows"), and the note of a window that kept
    no wave follows the read's notes, as the CLI prints it; with ``--by
    day|week|month`` in the record, the extension cuts each lane by period (the labels
    of ``timewindow.label_of``, in the window's zone, else local time), and the groups
    come back as :data:`~wavemetrics.views.groups.PeriodTable` (a period's figure that
    is not finite is a reason). The files the extension's
    folded read finds no format for are detected and planned by the registry
    (``dispatch.detect_input``, ``plan_units``): when each is of a format the extension
    reads but does not detect (:func:`~wavemetrics.readers.registry.planned_natively`),
    it reads their units too, else the run is declined. ``waves``: 1 for a ``waves``
    run, whose third member is then each lane's waves (``_native.summarize_json``'s
    ``waves``), 2 with each wave's calls too, 3 the rows of the ``waves`` JSON
    document as text (``bytes``), 4 the whole ``waves`` CSV text (``bytes``);
    ``losses``: a list the window's loss (``None``, or what it left out when it kept
    no wave) is appended to; ``json_by``: the run prints ``--format json``, so with
    ``--by session|lane|project`` (:data:`BY_DOCUMENT`) the extension writes the
    ``--by`` document itself (``command::Groups``; each input's project from
    :func:`_projects`), which :func:`output_chunks` prints. Never
    raises for an input: an unreadable or unusual one is a reason."""

    native = _extension.extension()
    if native is None:
        return "the Rust extension is not built from these sources"
    record: dict[str, Any] = (options_record(input_format=input_format) if options is None
                              else options)
    input_format = record["input_format"]
    eval_names = _names(record["eval_tools"], EVAL_TOOL_NAMES)
    batchable_names = _names(record["batchable_tools"], BATCHABLE_TOOL_NAMES)
    if eval_names is None or batchable_names is None:
        return "a tool name's normal form is not ASCII"
    if _files.STDIN in paths:  # read by the extension as a file (/dev/stdin) it can reopen
        from wavemetrics.inputs._stdin import reopenable_stdin

        if not reopenable_stdin():
            return "stdin cannot be read again"
    found = _files_of(paths, jobs, keyed)
    if isinstance(found, str):
        return found
    args, skipped = found
    files = [arg[0] for arg in args]

    def notes_of(inputs: list[Any], lanes: list[Any],
                 loss: tuple[int, int, int] | None) -> list[str] | None:
        # run by the extension once the files are read, while it renders the document
        from wavemetrics.views.notes import read_notes, repeated_lanes, window_note

        # the inputs: every file but those passed over as no trace
        kept = [path for index, path in enumerate(files) if index not in passed_over]
        reports = [_Input(path, fmt, read, used, ignored, dict(problems)) for path,
                   (fmt, read, used, ignored, problems) in zip(kept, inputs, strict=True)]
        if input_format != _files.AUTO and any(r.format != input_format for r in reports):
            return None  # forced, and an input is of another format: the CLI's run
        read = [_Lane(files[index], session, lane) for index, session, lane in lanes]
        passed = [(files[index], _files.SKIPPED_UNRECOGNISED) for index in passed_over]
        skips = sorted([*skipped, *passed], key=lambda entry: entry[0])
        lines = read_notes(paths, reports, read, {}, [_Skipped(*entry) for entry in skips],
                           repeated_lanes(read), input_format, show_paths)
        if losses is not None:
            losses.append(loss)
        if loss is not None and window is not None:
            lines.append(window_note(window.describe(), *loss))
        if noted is not None:
            noted()
        return lines

    # a unit of a format the extension has no reader for is read by the Python readers
    # and merged natively: each lane's figures, or its calls when the run needs them (a
    # window, a --by that cuts lanes or counts calls, waves), which the extension sums up
    calls = window is not None or bool(waves) or record["by"] not in _WHOLE_LANES

    # the files a folder walk found that hold no trace: skipped, as the CLI skips them
    passed_over: set[int] = set()

    def others_of(rest: list[int]) -> list[tuple[Any, ...]] | None:
        # run by the extension for the files its folded read found no format for: the
        # registry detects them and plans their units, for the extension to read when
        # each is of a format it reads, or for the Python readers to read when it has no
        # reader for it; a file found by a folder walk that holds no trace is passed
        # over (else the run is the CLI's)
        from wavemetrics.readers.dispatch import detect_input, plan_units
        from wavemetrics.readers.registry import NATIVE_ROWS, planned_natively

        rows = planned_natively()
        native_formats = {row.name for row in NATIVE_ROWS}
        detections = []
        unrecognised = []
        for index in rest:  # the first file of another kind ends the look (the CLI's run)
            detection = _detected(files[index], detect_input)
            if (detection.format is None and detection.unrecognised
                    and input_format == _files.AUTO):
                unrecognised.append(index)
                continue
            if detection.error is not None or detection.format is None or (
                    detection.format not in rows and detection.format in native_formats):
                return None
            detections.append(detection)
        if unrecognised and not _skipped_as_no_trace(
                paths, [files[index] for index in unrecognised]):
            return None
        walked = {files[index]: index for index in rest}
        planned: list[tuple[Any, ...]] = [
            (index, _files.SKIPPED_UNRECOGNISED) for index in unrecognised]
        for unit in plan_units(detections):
            indexes = [walked[path] for path in unit.paths]
            row = rows.get(unit.format)
            if row is not None:
                planned.append((row.code, indexes, [row.session_id(p) for p in unit.paths]))
                continue
            read = _read_elsewhere(unit.format, unit.paths, record, calls)
            if read is None:
                return None
            planned.append((unit.format, indexes, read))
        passed_over.update(unrecognised)
        return planned

    by = record["by"]
    period_labels: Callable[[list[float]], list[str]] | None = None
    if by in _PERIODS:  # each time's period in the run's zone, as the CLI labels it
        from wavemetrics.cli.timewindow import label_of

        zone = None if window is None else window.zone

        def period_labels(times: list[float]) -> list[str]:
            return [label_of(ms, by, zone) for ms in times]

    # the CLI's bar, for as many files as it counts (the same walk), drawn while the
    # extension reads without the GIL
    drawn = _Drawn(files, native) if bar and len(files) >= PROGRESS_MIN_FILES else None
    try:
        result: Any = native.summarize_json(
            args, skipped, native_sniffers(), record["max_tracked_calls"], eval_names,
            batchable_names, record["idle_gap_ms"], jobs, options_json(record), notes_of,
            None if drawn is None else drawn.progress,
            since_ms=None if window is None else window.since_ms,
            until_ms=None if window is None else window.until_ms, plan_others=others_of,
            by_tool=by == "tool", period_labels=period_labels, waves=waves,
            groups=by if json_by and by in BY_DOCUMENT else None,
            projects=_projects if json_by and by == "project" else None)
    finally:
        if drawn is not None:
            drawn.close()
    if isinstance(result, str):
        return result
    document, lines, tools, periods = result
    if lines is None:
        return f"an input is not the forced format {input_format}"
    if periods is None:
        return document, lines, tools, None
    import json

    from wavemetrics.views.document import summary_of

    labels, figures, lanes = periods
    summaries = [summary_of(json.loads(text)) for text in figures]
    parsed = [summary for summary in summaries if summary is not None]
    if len(parsed) != len(summaries):
        return "a period's figure is not finite"
    return document, lines, tools, (labels, parsed, lanes)


def _projects(inputs: list[tuple[str, str]]) -> list[str]:
    """Each input's project for ``--by project``, given its ``(path, format)``
    (:func:`~wavemetrics.readers.registry.project_of`, which the CLI's groups use): the
    extension asks once for the inputs holding lanes."""
    from wavemetrics.readers.registry import project_of

    return [project_of(path, format_name) for path, format_name in inputs]


def window_of(options: dict[str, Any]) -> Window | None:
    """The ``--since``/``--until`` window of a planned run's options
    (:attr:`wavemetrics.run.plan.Plan.options`), or ``None`` when they give no bound and
    no zone, or a bound or zone that cannot be read (the CLI's usage error:
    :func:`options_of` then declines the run)."""
    if all(options.get(name) is None for name in _WINDOW):
        return None
    from wavemetrics.cli.timewindow import BadMoment, Window

    try:
        return Window(*(options.get(name) for name in _WINDOW))
    except BadMoment:
        return None


def options_of(options: dict[str, Any], window: Window | None = None) -> dict[str, Any] | None:
    """The options record (:func:`wavemetrics.run._options.options_record`) of a planned
    run's options (:attr:`wavemetrics.run.plan.Plan.options`, converted as click
    converts them: the eval names as given, else the defaults; ``--max-tracked-calls 0``
    already ``None``) and ``window`` (:func:`window_of` of them, whose bounds it records),
    or ``None`` when this path does not take them: an option not marked ``native`` in
    the option table, ``--by`` with ``jsonl`` (a usage error the CLI
    reports), a cap past what the extension holds
    (:data:`wavemetrics.run._options.MAX_NATIVE_CAP`), a bound or zone without its
    ``window`` (one that cannot be read: the CLI's usage error)."""
    by = options.get("by")
    cap = options.get("max_tracked_calls", DEFAULT_MAX_TRACKED_CALLS)
    if not set(options) <= _OPTIONS or by not in _BY or (
            by is not None and options.get("output_format") == "jsonl") or (
            cap is not None and cap > MAX_NATIVE_CAP) or (
            window is None and any(options.get(name) is not None for name in _WINDOW)):
        return None
    return options_record(
        input_format=options.get("input_format", _files.AUTO),
        eval_tools=options.get("eval_tools") or EVAL_TOOL_NAMES,
        batchable_tools=options.get("batchable_tools", BATCHABLE_TOOL_NAMES),
        idle_gap_ms=options.get("idle_gap_ms", DEFAULT_IDLE_GAP_MS),
        max_tracked_calls=cap, by=by,
        since=None if window is None else window.since_text,
        until=None if window is None else window.until_text,
        timezone=None if window is None else window.timezone)


#: The options of a time window (:func:`window_of`), in ``Window``'s argument order.
_WINDOW = ("since", "until", "timezone")


def _detected(path: str, detect: Callable[..., Any]) -> Any:
    """The registry's detection of ``path`` (``detect``: ``dispatch.detect_input``).
    Stdin, ``-``, a file by then (:func:`summarize_json`), is peeked through
    ``/dev/stdin``, as the extension opens it, so that ``sys.stdin`` is left whole for
    a Python reader (or the CLI), but detected as the CLI detects stdin: named ``-``,
    and peeked once as a stream (so an Inspect archive is told by its first member's
    name, as from a pipe, not by the listing a file's random access gives)."""
    if path != _files.STDIN:
        return detect(path)
    from wavemetrics.readers.sources import Source

    return detect(path, source=Source("/dev/stdin", once=True))


def _skipped_as_no_trace(paths: Sequence[str], unrecognised: list[str]) -> bool:
    """Whether the CLI skips each of ``unrecognised`` (files of ``paths`` the registry
    finds no trace in) as not a trace (``pipeline._read_inputs``): each was found by a
    folder walk (a file named on the command line is an error), and no named folder is
    left with every file it holds skipped (an error too:
    :func:`~wavemetrics.inputs._files.folders_all_skipped`). The CLI's own walk
    (:func:`wavemetrics.inputs._files.expand_entries`), run again here: only for a run
    that holds such a file."""
    walked: dict[str, str] = {}
    sidecars: list[tuple[str, str]] = []
    _files.expand_entries(list(paths), walked, sidecars)
    if not all(path in walked for path in unrecognised):
        return False
    gone = {*unrecognised, *(path for path, _ in sidecars)}
    return not _files.folders_all_skipped(walked, gone)


def _read_elsewhere(fmt: str, paths: tuple[str, ...], record: dict[str, Any],
                    calls: bool) -> Any:
    """A unit of a format the extension has no reader for, read by the Python readers
    as the CLI reads it (:func:`wavemetrics.run.pipeline.summarised_unit`), in the shape
    the extension gives a unit it reads (``_native._Unit``), for the native command to
    merge with its own units (``summarize_json``'s ``plan_others``). ``record``: the
    run's options record, whose figure settings the unit is read with. Each lane carries
    its figures in ``figure_names()`` order (streamed, as the CLI's ``summarize``
    streams it), or with ``calls`` (the run needs each lane's calls) its observations
    (read in batch, as the CLI then reads), which the extension summarises itself.

    ``None`` when the CLI would say more of this unit than its figures and accounts: an
    input with an error (one that cannot be read, or whose records were all problems or
    foreign to a forced format), a unit read again in batch (its note is written after
    the sorted ones), an ignored count that is not the sum of its record types, an
    observation the core counts as malformed (the extension is fed only valid ones) or
    whose time is not a ``float`` (the document writes the extension's floats). The
    native command then leaves the run to the CLI."""
    from wavemetrics.readers.dispatch import ReadUnit
    from wavemetrics.run._lanes import StreamSettings
    from wavemetrics.run.pipeline import summarised_unit

    stream = None if calls else StreamSettings(
        record["max_tracked_calls"], tuple(record["eval_tools"]),
        batchable_tool_names=tuple(record["batchable_tools"]),
        idle_gap_ms=record["idle_gap_ms"])
    reports, lanes = summarised_unit(ReadUnit(fmt, paths), stream, record["input_format"])
    accounts = []
    for report in reports:
        if (report.error is not None or "read_again_in_batch" in report.notes
                or report.lines_ignored != sum(report.ignored.values())):
            return None
        ignored = [(kind.encode("utf-8", "surrogatepass"), n)
                   for kind, n in report.ignored.items()]
        accounts.append((report.lines_read, report.lines_used, ignored,
                         list(report.problems.items()), list(report.notes.items())))
    names = _extension.extension().figure_names()
    place = {path: index for index, path in enumerate(paths)}
    read = []
    for lane, summary in lanes:  # figures when streamed, else a batch Lane's calls
        figures = None if summary is None else tuple(getattr(summary, n) for n in names)
        observations = None if summary is not None else _observations(lane)
        if figures is None and observations is None:
            return None
        read.append((place[lane.path], lane.session_id, lane.lane_id, figures,
                     observations))
    return accounts, read, False


def _observations(lane: Any) -> tuple[Any, ...] | None:
    """A batch lane's observations as the extension takes them (``_native``'s records
    of a lane, then its call timing), or ``None`` when one is not valid by section 1
    (``validate_observation``: the core counts it as malformed, the extension is never
    fed one) or its time is not a ``float``."""
    from wavemetrics.core.observations import validate_observation

    observed = lane.observations
    if not all(validate_observation(o) is not None and type(o.at_ms) is float
               for o in observed):
        return None
    return ([o.kind == "start" for o in observed], [o.call_id for o in observed],
            [o.tool_name for o in observed], [o.at_ms for o in observed],
            [None if o.batch is None else o.batch.encode("utf-8", "surrogatepass")
             for o in observed],
            lane.measured_turn_duration_ms_total, list(lane.turn_intervals), lane.timing)


#: The ``--by`` values whose rows are whole lanes (``None``: no ``--by``): a unit read by
#: the Python readers gives the native command all they need (each lane's figures).
_WHOLE_LANES = (None, "session", "lane", "project")
#: The ``--by`` whose ``--format json`` document the extension writes (its groups: a
#: lane's session id, session and lane ids, or its input's project, which the package
#: gives by each format's rule: :func:`_projects`).
BY_DOCUMENT = ("session", "lane", "project")

#: The ``--by`` periods, whose groups the extension cuts (``day``, ISO ``week``, ``month``).
_PERIODS = ("day", "week", "month")

#: The ``--by`` values this path takes: groups of whole lanes, merged from their
#: summaries, tools, counted by the extension, and periods, cut by it (``None``: no
#: ``--by``).
_BY = (None, "session", "lane", "project", "tool", *_PERIODS)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _encoded(text: str, stream: Any) -> bytes:
    """``text`` as ``click.echo`` writes it to ``stream`` (a text stream): in its
    encoding and with its error handler, but a stream set to ASCII (a C locale,
    ``PYTHONIOENCODING=ascii``), which click takes for misconfigured and writes UTF-8
    to, with ``replace`` for what UTF-8 cannot hold (a lone surrogate)."""
    import codecs

    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        ascii_stream = codecs.lookup(encoding).name == "ascii"
    except LookupError:
        ascii_stream = False
    if ascii_stream:
        return text.encode("utf-8", "replace")
    return text.encode(encoding, getattr(stream, "errors", None) or "strict")


def output_chunks(
    done: Done, output_format: str, options: dict[str, Any] | None = None,
    show_paths: bool = False, terminal: bool = False, zone: Any = None,
) -> list[tuple[int, bytes]] | None:
    """What the run prints, in order, as ``(stream number, bytes)`` (1 stdout, 2 stderr;
    :func:`wavemetrics.cache.runcache.write_chunks`): the read's notes (``done``'s lines,
    escaped), then the output in ``output_format`` and the notes it adds. ``done``:
    :func:`summarize_json`'s document and lines, made with ``options`` (the run's
    options record; ``None``: the defaults); ``terminal``: stdout is a terminal.
    ``zone``: the run's time zone (``Window.zone``, for the groups' labels).
    ``--format json`` without ``--by``, or with a ``--by`` of :data:`BY_DOCUMENT` (then
    ``done`` is of :func:`summarize_json` given ``json_by``), is the document itself;
    any other output is drawn from the document read back
    (:func:`wavemetrics.views.document.analysis_of`) by the CLI's own views
    (:func:`wavemetrics.views.plain.render_plain`). ``None``
    when a figure was not finite (the document holds ``null`` there): the CLI then
    makes the run."""
    from wavemetrics.views.escaping import printable

    document, lines, tools, periods = done
    record: dict[str, Any] = options_record() if options is None else options
    out, err = sys.stdout, sys.stderr
    chunks = [(2, _encoded(printable(line) + "\n", err)) for line in lines]
    if output_format == "json" and (record["by"] is None or record["by"] in BY_DOCUMENT):
        chunks.append((1, document))
        return chunks
    import json

    from wavemetrics.views.document import analysis_of
    from wavemetrics.views.plain import render_plain

    analysis = analysis_of(json.loads(document))
    if analysis is None:
        return None
    text, notes = render_plain(analysis, output_format, record, show_paths=show_paths,
                               terminal=terminal, zone=zone, tools=tools, periods=periods)
    if text is not None:
        chunks.append((1, _encoded(text, out)))
    chunks.extend((2, _encoded(printable(note) + "\n", err)) for note in notes)
    return chunks


def run(plan: Plan) -> int | None:
    """Answer the planned ``wavemetrics summarize`` run (:mod:`wavemetrics.run.plan`)
    natively: the output is written and the exit status returned; ``None`` when this
    path does not take the run (nothing was written): the CLI then runs it, with the
    same plan."""
    return settled(plan, _run(plan))


def settled(plan: Plan, code: int | None) -> int | None:
    """``code``, the native command's answer to ``plan`` (``None``: declined), once stdin,
    when the plan reads it, is left as the CLI's read would leave it
    (:func:`~wavemetrics.inputs._stdin.settle_stdin`)."""
    if _files.STDIN in plan.files:
        from wavemetrics.inputs._stdin import settle_stdin

        settle_stdin(taken=code is not None)
    return code


def _run(plan: Plan) -> int | None:
    """:func:`run`, but for standard input's settling."""
    options = plan.options
    output_format = options.get("output_format", "table")
    window = window_of(options)
    record = options_of(options, window)
    if (record is None
            or output_format not in PLAIN_FORMATS
            or options.get("engine", "native") != "native"):
        return None
    # the output is written as bytes, to the streams' binary buffers
    if not (hasattr(sys.stdout, "buffer") and hasattr(sys.stderr, "buffer")):
        return None
    # the CLI draws a progress bar on a terminal's stderr for a read of many files
    # (views.plain.show_progress): so does this path, while the extension reads
    terminal = _is_terminal(sys.stdout)
    bar = show_progress(output_format, terminal, _is_terminal(sys.stderr))
    files = plan.files
    named = located(options, files)
    if named is None:
        return None
    state = plan.state()  # the key, taken before the read (None with --no-cache)
    from wavemetrics.cache.runcache import _jobs

    keyed = state[1][1] if state is not None else None
    # the check that the inputs did not change while they were read starts once the notes
    # have looked at the files beside them, and walks while the document is rendered
    # and written (runcache.Again)
    checks: list[Again] = []

    def check() -> None:
        from wavemetrics.cache.runcache import Again

        again = Again(options, files, start=False)
        checks.append(again)  # kept before its thread runs: always waited for
        again.start()

    show_paths = bool(options.get("show_paths"))
    try:
        done = summarize_json(files, _jobs(options),
                              keyed if isinstance(keyed, bytes) else None,
                              None if state is None else check, show_paths=show_paths,
                              options=record, bar=bar, window=window,
                              json_by=output_format == "json")
        if isinstance(done, str):
            return None  # the CLI runs next, keyed by the plan (no re-walk)
        chunks = output_chunks((done[0], [*named, *done[1]], done[2], done[3]), output_format,
                               record, show_paths, terminal,
                               None if window is None else window.zone)
        if chunks is None:
            return None
        return _write(chunks, options, files, state, checks[0] if checks else None)
    finally:
        # the check's thread is never left walking, whatever ends the run (a decline
        # after the notes, a broken pipe, an interrupt): a thread still in the
        # extension when the interpreter finalises would be torn down mid-call
        for again in checks:
            again.result()


def located(options: dict[str, Any], files: list[str]) -> list[str] | None:
    """The lines a planned run prints before its read's notes (``options`` and ``files``:
    the plan's): none for PATHs, the bundled example or stdin piped in with no PATH;
    with no PATH otherwise, the plan's files are the standard locations that exist
    (:func:`wavemetrics.cache.runcache.resolve_files`): the CLI's lines naming each
    (``wavemetrics: reading DIR (AGENT)``, docs/cli.md "No PATH"), or ``None`` when the
    locations found now are not those files (one appeared or went since the plan)."""
    if options["paths"] or options.get("demo") or files == [_files.STDIN]:
        return []
    from wavemetrics.inputs.locations import default_locations

    try:
        found = default_locations()
    except (OSError, ValueError):
        return None
    if [str(directory) for _, directory in found] != files:
        return None
    return [f"wavemetrics: reading {directory} ({agent})" for agent, directory in found]


def _write(chunks: list[tuple[int, bytes]], options: dict[str, Any], files: list[str],
           state: Any, again: Again | None) -> int:
    """Print a run's output as the CLI does (:func:`output_chunks`), and store it for
    the next identical run (with the cache on: ``state`` is its key, ``again`` the check
    of its inputs after the read, started)."""
    from wavemetrics.cache.runcache import write_chunks

    if not write_chunks(chunks):
        return 1
    if state is not None and again is not None:
        from wavemetrics.cache.runcache import default_store, store_unchanged

        try:
            store = default_store()
            stored = store_unchanged(store, options, files, state, chunks, again)
        except (OSError, ValueError):
            return 0  # not stored (run waits for the check's thread)
        if stored and store.over_bound():  # a few stats; SQLite loaded only past the bound
            from wavemetrics.cache.units import ReadCache

            ReadCache(store.directory).keep_within()
    return 0
