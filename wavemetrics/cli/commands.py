"""The ``wavemetrics`` command line: click commands that wire readers, core and reports.

Exit status: 0 when every input was read; 1 when an input could not be read
or recognised (the others are still summarised); 2 for usage errors.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, overload

import click

from wavemetrics.cli._names import (
    AUTO,
    DEFAULT_CONFIDENCE,
    DEFAULT_METRIC,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    input_format_choice,
    metric_choice,
)
from wavemetrics.core.classify import EVAL_TOOL_NAMES
from wavemetrics.run._options import (
    FORMATS,
    SUMMARIZE,
    Option,
    option,
    parse_names,
    parse_seconds,
)
from wavemetrics.views.escaping import printable, shortened
from wavemetrics.views.notes import plural as _plural
from wavemetrics.views.plain import PROGRESS_MIN_FILES, options_note, show_progress
from wavemetrics.views.plain import nothing_read as _nothing_read_from

if TYPE_CHECKING:  # the readers and the core are imported when a command runs
    from wavemetrics.cache.units import FileKey, ReadCache
    from wavemetrics.cli.timewindow import Window
    from wavemetrics.core.summary import ParallelismSummary
    from wavemetrics.readers.limits import Limits
    from wavemetrics.run.pipeline import (
        Analysis,
        Lane,
        ReadOutcome,
        StreamedLane,
        StreamSettings,
    )

__all__ = ["main"]

F = TypeVar("F", bound=Callable[..., Any])


class ExitStatus:
    """The one owner of a command's exit status: 0 ok, 1 data errors, 2 usage errors.

    A command records data errors as it goes (:meth:`check_inputs`) and ends
    with :meth:`exit`; :meth:`fail` stops at once with a message on stderr.
    """

    OK, DATA_ERROR, USAGE_ERROR = 0, 1, 2

    def __init__(self) -> None:
        self.code = self.OK

    def data_error(self) -> None:
        """Some input could not be read: the command goes on, and exits with 1."""
        self.code = max(self.code, self.DATA_ERROR)

    def check_inputs(self, outcome: ReadOutcome[Lane | StreamedLane]) -> None:
        """A data error if any input could not be read or recognised."""
        if outcome.failed:
            self.data_error()

    def fail(self, message: str, code: int = DATA_ERROR) -> NoReturn:
        """Print ``wavemetrics: error: message`` and exit with ``code`` now."""
        _stderr(f"wavemetrics: error: {message}")
        raise SystemExit(code)

    def exit(self) -> None:
        """End the command with the recorded status (nothing to do for 0)."""
        if self.code != self.OK:
            raise SystemExit(self.code)


def _eval_names(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[
    str, ...
]:
    """``--eval-tool``: the names given, else the defaults (given names replace them)."""
    return tuple(value) or EVAL_TOOL_NAMES


def _cap(ctx: click.Context, param: click.Parameter, value: int) -> int | None:
    """``--max-tracked-calls``: 0 means unbounded (``None``)."""
    return value or None


def _names(ctx: click.Context, param: click.Parameter, value: str) -> list[str]:
    """``--batchable-tools``: the comma-separated names as a list (an empty value: no
    name; :func:`wavemetrics.run._options.parse_names`)."""
    return parse_names(value)


def _seconds(ctx: click.Context, param: click.Parameter, value: str) -> float:
    """``--idle-gap``: a finite number of seconds >= 0, as ms (a float;
    :func:`wavemetrics.run._options.parse_seconds`); anything else is a usage error."""
    try:
        return parse_seconds(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None


#: The click callbacks of ``summarize``'s options that convert a value further.
_CALLBACKS: dict[str, Callable[..., Any]] = {
    "eval_tools": _eval_names, "max_tracked_calls": _cap, "batchable_tools": _names,
    "idle_gap_ms": _seconds,
}


def _parameter(row: Option) -> Callable[[F], F]:
    """The click parameter of a row of the option table (:mod:`wavemetrics.run._options`):
    its flags, conversion, default, help and metavar, nothing else."""
    if row.kind == "argument":
        return click.argument(row.name, nargs=-1, metavar=row.metavar)
    settings: dict[str, Any] = {"help": row.help}
    if row.kind == "choice":
        settings["type"] = (input_format_choice() if row.choices == FORMATS
                            else click.Choice(list(row.choices)))
    elif row.kind in ("positive", "cap"):
        settings["type"] = click.IntRange(min=1 if row.kind == "positive" else 0)
    elif row.kind in ("flag", "multiple"):
        settings["is_flag" if row.kind == "flag" else "multiple"] = True
    if row.default is not None:
        settings["default"] = row.default_value()
    if row.show_default:
        settings["show_default"] = row.show_default
    if row.metavar is not None:
        settings["metavar"] = row.metavar
    if row.name in _CALLBACKS:
        settings["callback"] = _CALLBACKS[row.name]
    return click.option(*row.flags, row.name, **settings)


def _options(*names: str) -> Callable[[F], F]:
    """The parameters of the table's rows ``names``, in that order (``--help``'s)."""
    def decorate(command: F) -> F:
        for name in reversed(names):
            command = _parameter(option(name))(command)
        return command

    return decorate


#: The options every reading command shares (the PATH argument first), then the window's.
_INPUT = ("paths", "input_format", "eval_tools", "batchable_tools", "idle_gap_ms",
          "max_tracked_calls", "max_line_bytes",
          "max_document_bytes", "jobs", "no_cache")
_WINDOW = ("since", "until", "timezone")


def activity_settings(batchable_tools: Sequence[str], idle_gap_ms: float) -> dict[str, Any]:
    """``--batchable-tools`` and ``--idle-gap`` (ms) as the keyword arguments of
    :class:`~wavemetrics.run.pipeline.StreamSettings`, ``analyse`` and the views:
    ``{"batchable_tool_names": (...), "idle_gap_ms": 300000.0}`` (docs/metrics.md
    section 9)."""
    return {"batchable_tool_names": tuple(batchable_tools), "idle_gap_ms": idle_gap_ms}


def _limits(max_line_bytes: int, max_document_bytes: int) -> Limits:
    """The :class:`~wavemetrics.readers.limits.Limits` of ``--max-line-bytes`` and
    ``--max-document-bytes`` (imported when a command runs, not for ``--help``)."""
    from wavemetrics.readers.limits import Limits

    return Limits(max_line_bytes, max_document_bytes)


def _window(since: str | None, until: str | None, timezone: str | None) -> Window:
    """The ``--since``/``--until`` window; a bound that cannot be read is a usage error."""
    from wavemetrics.cli.timewindow import BadMoment, Window

    try:
        return Window(since, until, timezone)
    except BadMoment as error:
        raise click.UsageError(str(error)) from None


def demo_path() -> str:
    """The bundled example trace, as a file path (also inside an installed wheel)."""
    from importlib.resources import files

    return str(files("wavemetrics") / "examples" / "claude-code-demo.jsonl")


def _resolve_paths(paths: Sequence[str], demo: bool) -> list[str]:
    """PATHs as given; ``--demo``: the bundled example; none: stdin when data is piped
    in (:func:`~wavemetrics.inputs._stdin.stdin_has_data`), else the standard trace
    locations that exist (named on stderr)."""
    if demo:
        if paths:
            raise click.UsageError("--demo reads the bundled example: give no PATH with it")
        return [demo_path()]
    if paths:
        return list(paths)
    from wavemetrics.inputs._stdin import stdin_has_data

    if stdin_has_data():
        return ["-"]
    from wavemetrics.inputs.locations import default_locations, standard_locations

    found = default_locations()
    if not found:
        looked = ", ".join(str(d) for _, d in standard_locations(os.environ, _home()))
        raise click.UsageError(
            f"no PATH given and none of the usual trace folders exist (looked in {looked});"
            " give a PATH, pipe a trace to stdin, or try --demo"
        )
    for agent, directory in found:
        _stderr(f"wavemetrics: reading {directory} ({agent})")
    return [str(directory) for _, directory in found]


def _home() -> Any:
    from pathlib import Path

    return Path.home()


def _stderr(message: str) -> None:
    """One ``wavemetrics: ...`` line on stderr; input text in it (file names, ids,
    reasons quoting them) is escaped visibly (``docs/cli.md``, "Escaping")."""
    click.echo(printable(message), err=True)


def _echo_csv(write: Callable[..., str], columns: Sequence[str], rows: Any) -> None:
    """``--format csv`` on stdout: values exact in a file or pipe (click would strip ANSI
    sequences from them: ``color=True`` stops it), escaped like the tables on a terminal."""
    escape = printable if stdout_is_terminal() else None
    click.echo(write(columns, rows, escape), nl=False, color=True)


def stdout_is_terminal() -> bool:
    """Whether standard output is a terminal (not a file or a pipe)."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _nothing_read(analysis: Analysis[Any]) -> bool:
    """Every input failed and not a line was used: there is no table to show."""
    return _nothing_read_from(analysis.outcome)


def open_cache(no_cache: bool) -> ReadCache | None:
    """The user's read cache (``$WAVEMETRICS_CACHE_DIR`` or the platform cache dir), or None."""
    if no_cache:
        return None
    from wavemetrics.cache.units import ReadCache

    return ReadCache()


def _windowed(outcome: ReadOutcome[Lane], window: Window) -> ReadOutcome[Lane]:
    """The outcome with each lane cut to the calls of the waves that start in the window."""
    import attrs

    from wavemetrics.views.slices import window_lane

    lanes = [window_lane(lane, window.since_ms, window.until_ms) for lane in outcome.lanes]
    return attrs.evolve(outcome, lanes=tuple(lane for lane in lanes if lane is not None))


def _window_note(
    outcome: ReadOutcome[Lane], window: Window, eval_tools: Sequence[str],
    max_tracked_calls: int | None, activity: dict[str, Any],
) -> bool:
    """Called when the window left no wave: if the inputs (``outcome``, before the window)
    had waves, say on stderr how many waves, paired calls and lanes the window excluded
    (a time window's loss), so that an empty result is never read as "no paired tool calls"; whether
    it did."""
    from wavemetrics.run.pipeline import analyse

    everything = analyse(outcome, eval_tool_names=eval_tools, max_tracked_calls=max_tracked_calls,
                         **activity)
    waves = sum(r.summary.waves_total for r in everything.lanes)
    if waves:
        calls = sum(r.summary.paired_calls for r in everything.lanes)
        lanes = sum(1 for r in everything.lanes if r.summary.waves_total)
        from wavemetrics.views.notes import window_note

        _stderr(window_note(window.describe(), waves, calls, lanes))
    return bool(waves)


@overload
def _read(
    paths: Sequence[str], input_format: str, stream: None, *, jobs: int,
    output_format: str = ..., cache: ReadCache | None = ..., limits: Limits | None = ...,
    walked: dict[str, FileKey] | None = ..., engine: str | None = ...,
) -> ReadOutcome[Lane]: ...


@overload
def _read(
    paths: Sequence[str], input_format: str, stream: StreamSettings, *, jobs: int,
    output_format: str = ..., cache: ReadCache | None = ..., limits: Limits | None = ...,
    walked: dict[str, FileKey] | None = ...,
) -> ReadOutcome[Lane | StreamedLane]: ...


def _read(
    paths: Sequence[str], input_format: str, stream: StreamSettings | None, *, jobs: int,
    output_format: str = "table", cache: ReadCache | None = None,
    limits: Limits | None = None, walked: dict[str, FileKey] | None = None,
    engine: str | None = None,
) -> ReadOutcome[Lane | StreamedLane]:
    """Read ``paths`` (streamed with ``stream`` settings, else in batch) and warn on stderr
    (``walked``: :func:`wavemetrics.run.pipeline.read_inputs`'s). ``engine``: a batch
    read's (``None``: native when the extension is built); a streamed read's is
    ``stream``'s."""
    from wavemetrics.readers.sources import expand_inputs
    from wavemetrics.run.parallel import process_mapper
    from wavemetrics.run.pipeline import read_inputs

    settings = stream
    batch_jobs: int | None = None  # a streamed read takes its engine and jobs from stream
    if settings is None:
        batch_jobs = jobs
        if engine is None:
            from wavemetrics.run.native import default_engine

            engine = default_engine()
    else:
        engine = None
    files: list[str] = []
    if show_progress(output_format, sys.stdout.isatty(), sys.stderr.isatty()):
        files = [path for path, error in expand_inputs(list(paths)) if error is None]
    with process_mapper(jobs) as mapper:
        if len(files) < PROGRESS_MIN_FILES:
            outcome = read_inputs(
                paths, input_format, stream=settings, mapper=mapper, cache=cache,
                limits=limits, walked=walked, engine=engine, jobs=batch_jobs,
            )
        else:
            from wavemetrics.cache.runcache import paused
            from wavemetrics.cli.progress import ByteProgress

            with paused(), ByteProgress(files) as bar:  # a recorded output has no bar
                outcome = read_inputs(
                    paths, input_format, stream=settings, mapper=mapper, progress=bar.done,
                    cache=cache, limits=limits, walked=walked, engine=engine, jobs=batch_jobs,
                )
    from wavemetrics.views.notes import read_notes

    ctx = click.get_current_context(silent=True)
    params = ctx.params if ctx is not None else {}
    # None: a command without --show-paths (its notes do not suggest it)
    show_paths = bool(params["show_paths"]) if "show_paths" in params else None
    for line in read_notes(paths, outcome.inputs, outcome.lanes, outcome.same_as,
                           outcome.skipped, outcome.repeated_lanes, input_format, show_paths):
        _stderr(line)
    return outcome


class _Wavemetrics(click.Group):
    """The command group, with one error style for every message.

    Click prints usage errors as a usage block, a ``Try ... --help`` line and
    ``Error: ...``; here every error is one line, ``wavemetrics: error: ...``,
    ending in the hint (``try 'wavemetrics summarize --help'``), as the
    commands' own errors are. Exit statuses stay click's (2 for usage).
    """

    def main(
        self, args: Sequence[str] | None = None, prog_name: str | None = None,
        complete_var: str | None = None, standalone_mode: bool = True, **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            status = super().main(args, prog_name, complete_var, False, **extra)
        except click.UsageError as error:
            path = error.ctx.command_path if error.ctx is not None else "wavemetrics"
            message = " ".join(error.format_message().split())
            _stderr(f"wavemetrics: error: {message} (try '{path} --help')")
            sys.exit(error.exit_code)
        except click.ClickException as error:
            _stderr(f"wavemetrics: error: {' '.join(error.format_message().split())}")
            sys.exit(error.exit_code)
        except click.Abort:
            _stderr("wavemetrics: error: aborted")
            sys.exit(1)
        sys.exit(status if isinstance(status, int) else 0)


@click.group(name="wavemetrics", cls=_Wavemetrics, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="wavemetrics", prog_name="wavemetrics")
@click.pass_context
def main(ctx: click.Context) -> None:
    """How much wall-clock time an agent's parallel tool calls really save.

    Start with `wavemetrics summarize --demo` (a bundled example), then
    `wavemetrics summarize PATH` on a trace file or folder, such as a Claude
    Code project folder ~/.claude/projects/<project>/. `wavemetrics COMMAND
    --help` gives a command's options.
    """
    if ctx.invoked_subcommand is None:  # no command: the help, and that is not an error
        click.echo(ctx.get_help())
        ctx.exit(0)


def _native_or_python(ctx: click.Context) -> str:
    """``native`` when the extension can be used. When it is missing or built from
    older sources: a usage error if ``--engine native`` was asked for, else (the
    default picked it) the Python engine, with a note for a stale build."""
    from wavemetrics.run.native import available, stale

    if available():
        return "native"
    asked = ctx.get_parameter_source("engine") is not click.core.ParameterSource.DEFAULT
    what = ("is built from older sources: rebuild it with `pip install -e .`" if stale()
            else "is not built (see the README's build section)")
    if asked:
        raise click.UsageError(f"--engine native: the Rust extension {what}")
    if stale():
        click.echo(f"wavemetrics: note: the Rust extension {what}; reading with the Python"
                   " engine (same output, slower)", err=True)
    return "python"


@main.command(short_help="Summarize each lane's waves and savings (the main command).")
@_options(*(row.name for row in SUMMARIZE))  # one declaration: wavemetrics.run._options
def summarize(
    paths: tuple[str, ...], input_format: str, eval_tools: tuple[str, ...],
    batchable_tools: list[str], idle_gap_ms: float,
    max_tracked_calls: int | None, max_line_bytes: int, max_document_bytes: int, jobs: int,
    no_cache: bool, since: str | None, until: str | None, timezone: str | None, demo: bool,
    output_format: str, by: str | None, show_paths: bool, engine: str,
) -> None:
    """Summarize tool-call parallelism: one row per lane (agent) of each PATH.

    PATH is a trace file, a folder (read recursively: *.jsonl, *.json, *.eval,
    also .gz, *.traj, and *.db, *.sqlite stores) or - for standard input. With
    no PATH: standard input when data is piped in, else the usual stores that
    exist (named on stderr) of Claude Code, Codex, pi, GitHub Copilot CLI,
    opencode, Kilo, ZCode, Kimi CLI, OpenClaw and Qwen Code. Also read: events
    logs, MiniMax Code (mcode) streams, OTLP, OTel span dicts, Inspect logs.
    The table explains its columns under it; --format json gives every figure.
    """
    if engine == "native":
        engine = _native_or_python(click.get_current_context())
    from wavemetrics.cache.runcache import options_from_click, record
    from wavemetrics.cache.units import walked_keys
    from wavemetrics.run.plan import Plan

    status = ExitStatus()
    if by is not None and output_format == "jsonl":
        raise click.UsageError("--by groups rows: use --format table, json, csv or markdown")
    window = _window(since, until, timezone)
    cache = open_cache(no_cache)
    # the whole output is recorded and kept, to be served again before the CLI loads
    # when nothing it depends on changed (wavemetrics.cache.runcache, _entry)
    # with the key the entry's plan took before any read, when the plan is this run
    ctx = click.get_current_context()
    with record(options_from_click(ctx), cache, ctx.find_object(Plan)) as run:
        files = _resolve_paths(paths, demo)
        run.inputs(files)
        # the files the key's walk stat'ed: the read takes their keys, no stat of its own
        walked = walked_keys(run.parts[1]) if cache is not None and run.parts else None
        _summarize(files, window, cache, status, input_format, eval_tools,
                   activity_settings(batchable_tools, idle_gap_ms), max_tracked_calls,
                   max_line_bytes, max_document_bytes, jobs, output_format, by, show_paths,
                   engine, walked)
        run.complete = status.code == status.OK
    status.exit()


def _summarize(
    files: list[str], window: Window, cache: ReadCache | None, status: ExitStatus,
    input_format: str, eval_tools: tuple[str, ...], activity: dict[str, Any],
    max_tracked_calls: int | None, max_line_bytes: int, max_document_bytes: int, jobs: int,
    output_format: str, by: str | None, show_paths: bool, engine: str,
    walked: dict[str, FileKey] | None = None,
) -> None:
    """The body of ``summarize``: read ``files``, print the output, record data errors
    (``activity``: :func:`activity_settings`; ``walked``: the keys of the files the run
    key's walk stat'ed, by absolute path, which the read takes instead of a stat)."""
    from wavemetrics.run._options import options_record
    from wavemetrics.run.pipeline import StreamSettings, analyse

    limits = _limits(max_line_bytes, max_document_bytes)
    # what the figures depend on, recorded in every output (docs/cli.md, "Options in the
    # output"); --jobs, --engine and the cache never change a figure
    options = options_record(
        input_format=input_format, eval_tools=eval_tools,
        batchable_tools=activity["batchable_tool_names"], idle_gap_ms=activity["idle_gap_ms"],
        max_tracked_calls=max_tracked_calls,
        max_line_bytes=max_line_bytes, max_document_bytes=max_document_bytes,
        since=window.since_text, until=window.until_text, timezone=window.timezone, by=by)
    # slicing by time needs each lane's calls: those lanes are read in batch mode
    if window.active or by in ("day", "week", "month", "tool"):
        batch = _read(files, input_format, None, jobs=jobs, output_format=output_format,
                      cache=cache, limits=limits, walked=walked, engine=engine)
        status.check_inputs(batch)
        unwindowed = batch
        if window.active:
            batch = _windowed(batch, window)
        analysis: Analysis[Any] = analyse(
            batch, eval_tool_names=eval_tools, max_tracked_calls=max_tracked_calls, **activity
        )
        if window.active and not analysis.total.waves_total:
            _window_note(unwindowed, window, eval_tools, max_tracked_calls, activity)
    else:
        # the native engine reads what the Python path would stream, under the default
        # limits, and fills the cache's lane summaries (pipeline.read_inputs); else Python
        settings = StreamSettings(max_tracked_calls, eval_tools, engine=engine, jobs=jobs,
                                  **activity)
        outcome = _read(files, input_format, settings, jobs=jobs, output_format=output_format,
                        cache=cache, limits=limits, walked=walked)
        status.check_inputs(outcome)
        analysis = analyse(outcome)  # with the settings the lanes were streamed with
    from wavemetrics.views.plain import render_plain

    text, notes = render_plain(analysis, output_format, options, show_paths=show_paths,
                               terminal=stdout_is_terminal(), zone=window.zone)
    if text is not None:
        # CSV values exact in a file or pipe: click would strip ANSI sequences from
        # them (color=True stops it); the other formats hold none (escaped)
        click.echo(text, nl=False, color=True if output_format == "csv" else None)
    for note in notes:
        _stderr(note)


@main.command(short_help="List every wave: start, span, calls, peak, saving, tools.")
@_options(*_INPUT, *_WINDOW, "demo")
@click.option(
    "--format", "output_format", type=click.Choice(["table", "json", "csv"]), default="table",
    show_default=True,
    help="table: for reading; json: one document (each lane's lost calls, then the waves);"
         " csv: one row per call.",
)
@_options("show_paths")
def waves(
    paths: tuple[str, ...], input_format: str, eval_tools: tuple[str, ...],
    batchable_tools: list[str], idle_gap_ms: float,
    max_tracked_calls: int | None, max_line_bytes: int, max_document_bytes: int, jobs: int,
    no_cache: bool, since: str | None, until: str | None, timezone: str | None, demo: bool,
    output_format: str, show_paths: bool,
) -> None:
    """List every wave of each PATH: one row per wave, in lane order then time order.

    PATH is a trace file, a folder (read recursively) or - for standard input,
    as for summarize; with no PATH, piped standard input or the usual trace
    folders.

    \b
    Columns of the table:
      start (UTC)  when the wave's first call started
      span s       from its first start to its last end, in seconds
      n            calls in the wave
      peak         most calls running at one instant
      bucket       non_eval, eval_only (code cells only) or mixed
      saved s      the calls' durations summed minus the span (summarize
                   counts it for non_eval waves only)
      tools        the tool names, xN for repeats
    """
    from wavemetrics.run._options import options_record
    from wavemetrics.run.pipeline import analyse
    from wavemetrics.views.report import render_waves_table, wave_rows, waves_document

    status = ExitStatus()
    window = _window(since, until, timezone)
    # what the waves depend on, recorded as summarize records it (docs/cli.md, "Options
    # in the output")
    activity = activity_settings(batchable_tools, idle_gap_ms)
    options = options_record(
        input_format=input_format, eval_tools=eval_tools, batchable_tools=batchable_tools,
        idle_gap_ms=idle_gap_ms, max_tracked_calls=max_tracked_calls,
        max_line_bytes=max_line_bytes, max_document_bytes=max_document_bytes,
        since=window.since_text, until=window.until_text, timezone=window.timezone)
    files = _resolve_paths(paths, demo)
    # read in batch: waves are listed, so every lane is assembled whole
    outcome = _read(files, input_format, None, jobs=jobs, output_format=output_format,
                    cache=open_cache(no_cache), limits=_limits(max_line_bytes, max_document_bytes))
    status.check_inputs(outcome)
    unwindowed = outcome
    if window.active:
        outcome = _windowed(outcome, window)
    analysis = analyse(outcome, eval_tool_names=eval_tools, max_tracked_calls=max_tracked_calls,
                       **activity)
    excluded = (window.active and not analysis.total.waves_total
                and _window_note(unwindowed, window, eval_tools, max_tracked_calls, activity))
    _loss_warning(analysis.total, max_tracked_calls)
    if output_format == "json":
        document = waves_document(analysis, eval_tools, max_tracked_calls, options)
        click.echo(json.dumps(document, indent=2, allow_nan=False))
    elif output_format == "csv":
        from wavemetrics.views.csvout import WAVE_CALL_COLUMNS, rows_to_csv, wave_call_rows

        calls = [
            [(c.call_id, c.tool_name, c.start_ms, c.end_ms) for c in wave.calls]
            for result in analysis.lanes for wave in result.waves
        ]
        rows = wave_call_rows(wave_rows(analysis, eval_tools), calls)
        _echo_csv(rows_to_csv, WAVE_CALL_COLUMNS, rows)
        note = options_note(options, "rows", "a row per call has no field for options")
        if note is not None:
            _stderr(note)
    elif not _nothing_read(analysis):
        empty = "(no waves in the --since/--until window)" if excluded else None
        click.echo(render_waves_table(analysis, eval_tools, show_paths=show_paths, empty=empty,
                                      options=options), nl=False)
    status.exit()


def _picture_path(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from wavemetrics.views.timeline import output_format

    if output_format(value) is None:
        raise click.BadParameter(f"{value!r}: the file name must end in .svg or .png")
    return value


@main.command(short_help="Draw each lane's calls on a time line (SVG or PNG).")
@_options(*_INPUT, *_WINDOW, "demo")
@click.option(
    "-o", "--output", required=True, metavar="FILE.svg|FILE.png", callback=_picture_path,
    help="The picture to write; its suffix (.svg or .png) chooses the format.",
)
@click.option(
    "--lane", "lane_ids", multiple=True, metavar="SESSION[/LANE]",
    help="Draw only these lanes: LANE, SESSION or SESSION/LANE, each exact or a prefix;"
         " repeatable.",
)
def timeline(
    paths: tuple[str, ...], input_format: str, eval_tools: tuple[str, ...],
    batchable_tools: list[str], idle_gap_ms: float,
    max_tracked_calls: int | None, max_line_bytes: int, max_document_bytes: int, jobs: int,
    no_cache: bool, since: str | None, until: str | None, timezone: str | None, demo: bool,
    output: str, lane_ids: tuple[str, ...],
) -> None:
    """Draw each lane's tool calls as bars on a time line, waves on shaded bands.

    PATH is a trace file, a folder (read recursively) or - for standard input,
    as for summarize; with no PATH, piped standard input or the usual trace
    folders. -o names the picture: FILE.svg (each bar has a hover text) or
    FILE.png. Bars are coloured by bucket (non_eval, eval_only, mixed). Needs
    matplotlib (the timeline extra).
    """
    from wavemetrics.run.pipeline import analyse
    from wavemetrics.views.timeline import (
        LaneNotFound,
        MatplotlibMissing,
        check_lane_count,
        lane_labels,
        render_timeline,
        require_matplotlib,
        select_lanes,
    )

    status = ExitStatus()
    window = _window(since, until, timezone)
    activity = activity_settings(batchable_tools, idle_gap_ms)
    files = _resolve_paths(paths, demo)
    try:
        require_matplotlib()  # before reading: a long read should not end in this
    except MatplotlibMissing as error:  # nothing was read: like a usage error, as compare does
        status.fail(str(error), ExitStatus.USAGE_ERROR)
    outcome = _read(files, input_format, None, jobs=jobs,
                    cache=open_cache(no_cache),  # batch: the waves are drawn
                    limits=_limits(max_line_bytes, max_document_bytes))
    status.check_inputs(outcome)
    if _nothing_read_from(outcome):  # the input errors above are all there is to say
        status.exit()
    unwindowed = outcome
    if window.active:
        outcome = _windowed(outcome, window)
    if not lane_ids:  # what can be refused now is refused before any wave is built
        try:
            check_lane_count(len(outcome.lanes))
        except ValueError as error:
            status.fail(str(error))
    analysis = analyse(outcome, eval_tool_names=eval_tools, max_tracked_calls=max_tracked_calls,
                       **activity)
    if window.active and not analysis.total.waves_total:
        _window_note(unwindowed, window, eval_tools, max_tracked_calls, activity)
        if not analysis.lanes:
            status.fail(f"no lanes to draw in the window {window.describe()}")
    try:
        lanes = select_lanes(analysis.lanes, lane_ids)
    except LaneNotFound as error:
        # as the table shows them (unique prefixes), which --lane takes back
        shown_lanes = lane_labels(analysis.lanes)
        shown = ", ".join(shown_lanes[:10]) or "none"
        more = f" and {len(shown_lanes) - 10} more" if len(shown_lanes) > 10 else ""
        status.fail(f"--lane {shortened(error.lane_id, 80)}: no such lane (lanes: {shown}{more})")
    if not lanes:
        status.fail("no lanes to draw")
    try:
        render_timeline(lanes, output, eval_tool_names=eval_tools)
    except OSError as error:
        status.fail(f"{output}: {error.strerror or error}")
    except ValueError as error:  # too many lanes for one picture
        status.fail(str(error))
    from wavemetrics.core.summary import merge_summaries

    drawn = merge_summaries([r.summary for r in lanes])
    _loss_warning(drawn, max_tracked_calls)
    lost = _not_drawn(drawn)
    click.echo(printable(f"{output}: {_plural(len(lanes), 'lane')},"
                         f" {_plural(drawn.paired_calls, 'call')}{lost}"))
    status.exit()


def _not_drawn(drawn: ParallelismSummary) -> str:
    """What follows the count of calls drawn when some were not counted: ``; not
    drawn: dropped 128000 (see the warning above)``."""
    from wavemetrics.core.schema import LOSS_FIGURES

    lost = ", ".join(f"{loss.label} {getattr(drawn, name)}" for name, loss in LOSS_FIGURES
                     if getattr(drawn, name))
    return f"; not drawn: {lost} (see the warning above)" if lost else ""


def _loss_warning(total: ParallelismSummary, max_tracked_calls: int | None) -> None:
    """Say on stderr, in the words of the ``summarize`` table's loss line, that calls
    were not counted (and, when the cap dropped some, how to lift it): the views that
    list or draw calls (``waves``, ``timeline``) would otherwise leave them out
    without a word (docs/cli.md)."""
    from wavemetrics.views.report import loss_line

    lost = loss_line(total, max_tracked_calls)
    if lost:
        _stderr(f"wavemetrics: warning: {lost}")


@main.command(short_help="Compare two harness versions run on the same tasks.")
@click.argument("baseline", type=click.Path(exists=True, file_okay=False))
@click.argument("candidate", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--metric", type=metric_choice(), default=DEFAULT_METRIC, show_default=True,
    help="The per-trial figure to compare.",
)
@click.option(
    "--format", "output_format", type=click.Choice(["table", "json", "markdown"]),
    default="table", show_default=True,
    help="table: for reading; json: one document; markdown: the table as GitHub-flavoured"
         " Markdown.",
)
@click.option("--seed", type=click.IntRange(min=0), default=DEFAULT_SEED, show_default=True,
              help="Seed of the bootstrap (same seed, same interval).")
@click.option("--resamples", type=click.IntRange(min=1), default=DEFAULT_RESAMPLES,
              show_default=True, help="Bootstrap resamples (more: a steadier interval).")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=DEFAULT_CONFIDENCE, show_default=True,
              help="Confidence level of the interval (0.95: a 95% interval).")
@click.option(
    "--input-format", type=input_format_choice(), default=AUTO, show_default=True,
    help="Trace format of every trial; auto: detect per file.",
)
@_options("eval_tools", "batchable_tools", "idle_gap_ms", "max_tracked_calls",
          "max_line_bytes", "max_document_bytes")
def compare(
    baseline: str, candidate: str, metric: str, output_format: str, seed: int,
    resamples: int, confidence: float, input_format: str, eval_tools: tuple[str, ...],
    batchable_tools: list[str], idle_gap_ms: float, max_tracked_calls: int | None,
    max_line_bytes: int, max_document_bytes: int,
) -> None:
    """Compare two harness versions run on the same tasks.

    BASELINE and CANDIDATE are folders laid out <task_id>/<trial traces>; each
    session under a task folder is one trial. Prints, per task, the metric's
    mean on each side and the difference (candidate minus baseline), then the
    mean of the per-task differences with a paired bootstrap interval. Needs
    scipy (the compare extra).
    """
    from wavemetrics.views.compare import MissingExtra, compare_folders
    from wavemetrics.views.compare import render_json as render_compare_json
    from wavemetrics.views.compare import render_table as render_compare_table

    status = ExitStatus()
    try:
        comparison = compare_folders(
            baseline, candidate, metric=metric, resamples=resamples, confidence=confidence,
            seed=seed, input_format=input_format, eval_tool_names=eval_tools,
            max_tracked_calls=max_tracked_calls,
            limits=_limits(max_line_bytes, max_document_bytes),
            **activity_settings(batchable_tools, idle_gap_ms),
        )
    except MissingExtra as error:  # nothing was computed: like a usage error
        status.fail(str(error), ExitStatus.USAGE_ERROR)
    _comparison_notes(comparison, {"baseline": baseline, "candidate": candidate}, status)
    if output_format == "json":
        click.echo(render_compare_json(comparison), nl=False)
    elif output_format == "markdown":
        from wavemetrics.views.compare import render_markdown as render_compare_markdown

        click.echo(render_compare_markdown(comparison), nl=False)
    else:
        click.echo(render_compare_table(comparison), nl=False)
    status.exit()


def _page_path(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not value.lower().endswith((".html", ".htm")):
        raise click.BadParameter(f"{value!r}: the file name must end in .html")
    return value


@main.command(short_help="Write one self-contained HTML page of a run or a comparison.")
@_options(*_INPUT, *_WINDOW, "demo")
@click.option(
    "-o", "--output", required=True, metavar="FILE.html", callback=_page_path,
    help="The page to write: one HTML file that loads nothing and sends nothing.",
)
@click.option(
    "--compare", "sides", nargs=2, type=click.Path(exists=True, file_okay=False),
    default=None, metavar="BASELINE CANDIDATE",
    help="A comparison page of two folders laid out as for `wavemetrics compare`"
         " (instead of PATHs).",
)
@click.option("--metric", type=metric_choice(), default=DEFAULT_METRIC, show_default=True,
              help="With --compare: the per-trial figure to compare.")
@click.option("--seed", type=click.IntRange(min=0), default=DEFAULT_SEED, show_default=True,
              help="With --compare: seed of the bootstrap.")
@click.option("--resamples", type=click.IntRange(min=1), default=DEFAULT_RESAMPLES,
              show_default=True, help="With --compare: bootstrap resamples.")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=DEFAULT_CONFIDENCE, show_default=True,
              help="With --compare: confidence level of the interval.")
def report(
    paths: tuple[str, ...], input_format: str, eval_tools: tuple[str, ...],
    batchable_tools: list[str], idle_gap_ms: float, max_tracked_calls: int | None,
    max_line_bytes: int, max_document_bytes: int, jobs: int,
    no_cache: bool, since: str | None, until: str | None, timezone: str | None, demo: bool,
    output: str, sides: tuple[str, str] | None, metric: str, seed: int, resamples: int,
    confidence: float,
) -> None:
    """Write an HTML page of each PATH's waves: what summarize shows, and more.

    PATH, the options and the --since/--until window are summarize's; the page
    has its figures (the same as --format json), a timeline of every lane's
    calls and waves (zoom, hover, filters, keyboard: n/p for the next/previous
    wave), the waves that saved most, the wave sizes and a per-tool table.
    With --compare BASELINE CANDIDATE: the page of `wavemetrics compare`.
    The page is self-contained: it opens offline and makes no request. Needs
    plotly and Jinja2 (the report extra).
    """
    from wavemetrics.views.html_page import ReportExtraMissing, require_report_libraries

    status = ExitStatus()
    try:
        require_report_libraries()  # before reading: a long read should not end in this
    except ReportExtraMissing as error:  # nothing was read: like a usage error
        status.fail(str(error), ExitStatus.USAGE_ERROR)
    window = _window(since, until, timezone)
    activity = activity_settings(batchable_tools, idle_gap_ms)
    if sides is not None:
        if paths or demo:
            raise click.UsageError("--compare reads its two folders: give no PATH or --demo")
        if window.active:
            raise click.UsageError("--since, --until and --timezone do not apply to --compare")
        page = _comparison_page(sides, status, metric=metric, seed=seed, resamples=resamples,
                                confidence=confidence, input_format=input_format,
                                eval_tools=eval_tools, max_tracked_calls=max_tracked_calls,
                                max_line_bytes=max_line_bytes,
                                max_document_bytes=max_document_bytes, activity=activity)
        what = "comparison"
    else:
        page, what = _run_page(paths, demo, window, status, input_format, eval_tools,
                               max_tracked_calls, max_line_bytes, max_document_bytes, jobs,
                               no_cache, activity)
    try:
        with open(output, "w", encoding="utf-8") as stream:
            stream.write(page)
    except OSError as error:
        status.fail(f"{printable(output)}: {error.strerror or error}")
    click.echo(printable(f"{output}: {what}"))
    status.exit()


def _run_page(
    paths: tuple[str, ...], demo: bool, window: Window, status: ExitStatus, input_format: str,
    eval_tools: tuple[str, ...], max_tracked_calls: int | None, max_line_bytes: int,
    max_document_bytes: int, jobs: int, no_cache: bool, activity: dict[str, Any],
) -> tuple[str, str]:
    """``report PATH...``: read in batch (the page draws every call), window and analyse
    as ``summarize`` does; the page and what it shows (``3 lanes, 120 calls``)."""
    from wavemetrics.run._options import options_record
    from wavemetrics.run.pipeline import analyse
    from wavemetrics.views.html_page import render_page
    from wavemetrics.views.report import (
        inputs_line,
        json_document,
        options_line,
        table_lane_cells,
        under_total,
    )

    files = _resolve_paths(paths, demo)
    outcome = _read(files, input_format, None, jobs=jobs, cache=open_cache(no_cache),
                    limits=_limits(max_line_bytes, max_document_bytes))
    status.check_inputs(outcome)
    if _nothing_read_from(outcome):  # the input errors above are all there is to say
        status.exit()
    unwindowed = outcome
    if window.active:
        outcome = _windowed(outcome, window)
    analysis = analyse(outcome, eval_tool_names=eval_tools, max_tracked_calls=max_tracked_calls,
                       **activity)
    if window.active and not analysis.total.waves_total:
        _window_note(unwindowed, window, eval_tools, max_tracked_calls, activity)
    options = options_record(
        input_format=input_format, eval_tools=eval_tools,
        batchable_tools=activity["batchable_tool_names"], idle_gap_ms=activity["idle_gap_ms"],
        max_tracked_calls=max_tracked_calls,
        max_line_bytes=max_line_bytes, max_document_bytes=max_document_bytes,
        since=window.since_text, until=window.until_text, timezone=window.timezone)
    labels, _ = table_lane_cells(analysis.lanes)
    named = options_line(options)
    notes = [inputs_line(analysis, input_format), *([] if named is None else [named]),
             *under_total(analysis, labels, max_tracked_calls, activity["idle_gap_ms"])]
    page = render_page(analysis, json_document(analysis, options), notes,
                       eval_tool_names=eval_tools, **activity)
    total = analysis.total
    return page, (f"{_plural(len(analysis.lanes), 'lane')}, {_plural(total.paired_calls, 'call')}"
                  f" in {_plural(total.waves_total, 'wave')}")


def _comparison_page(
    sides: tuple[str, str], status: ExitStatus, *, metric: str, seed: int, resamples: int,
    confidence: float, input_format: str, eval_tools: tuple[str, ...],
    max_tracked_calls: int | None, max_line_bytes: int, max_document_bytes: int,
    activity: dict[str, Any],
) -> str:
    """``report --compare``: ``compare``'s computation (and its notes on stderr); the page."""
    from wavemetrics.views.compare import MissingExtra, compare_folders
    from wavemetrics.views.compare import render_table as render_compare_table
    from wavemetrics.views.html_page import render_compare_page

    baseline, candidate = sides
    try:
        comparison = compare_folders(
            baseline, candidate, metric=metric, resamples=resamples, confidence=confidence,
            seed=seed, input_format=input_format, eval_tool_names=eval_tools,
            max_tracked_calls=max_tracked_calls,
            limits=_limits(max_line_bytes, max_document_bytes), **activity,
        )
    except MissingExtra as error:  # nothing was computed: like a usage error
        status.fail(str(error), ExitStatus.USAGE_ERROR)
    _comparison_notes(comparison, {"baseline": baseline, "candidate": candidate}, status)
    return render_compare_page(comparison, render_compare_table(comparison))


def _comparison_notes(comparison: Any, folders: dict[str, str], status: ExitStatus) -> None:
    """What ``compare`` says on stderr about trials and folders it could not use, and the
    data error (exit 1) it records for them."""
    for failure in comparison.failures:
        _stderr(f"wavemetrics: error: {failure.side}: {failure.reason}")
    for path in comparison.strays:
        _stderr(f"wavemetrics: note: {path}: not in a task folder, not read")
    for side in comparison.no_task_folders:
        _stderr(f"wavemetrics: error: {side} {folders[side]}: no task folders found"
                f" (expected {side}/<task_id>/<trace files>)")
    for task_id in comparison.empty_tasks:
        _stderr(f"wavemetrics: error: task {task_id}: no trial files in either folder")
    if (comparison.failures or comparison.paired_tasks == 0 or comparison.empty_tasks
            or comparison.no_task_folders):
        status.data_error()


@main.group(invoke_without_command=True,
            short_help="Show where the read cache is and what it holds, or clear it.")
@click.pass_context
def cache(ctx: click.Context) -> None:
    """The read cache: repeat runs read what unchanged trace files yielded from it.

    It never changes a figure: a file that changed in any way is read again.
    It lives in $WAVEMETRICS_CACHE_DIR if set, else the user cache directory.
    A command run with --no-cache neither reads nor fills it.
    """
    if ctx.invoked_subcommand is None:  # as `wavemetrics` alone: the help, not an error
        click.echo(ctx.get_help())
        ctx.exit(0)


@cache.command("info", short_help="Where the cache is, what it holds and its size.")
def cache_info() -> None:
    """Where the cache is, what it holds and its size.

    A read unit is what is read together: a trace file, or the Claude Code
    files of one project folder (or pi's of one session folder).
    """
    from wavemetrics.cache.units import ReadCache

    info = ReadCache().info()
    click.echo(printable(f"path: {info.path}"))
    if not info.exists:
        click.echo("state: empty (no cache file yet)")
        return
    # a unit summarize read natively has lane summaries only (no call records)
    click.echo(f"lane summaries (summarize): {_plural(info.summaries, 'read unit')}")
    click.echo(f"call records (waves, --by, --since): {_plural(info.units, 'read unit')}"
               f" ({_plural(info.files, 'file')})")
    click.echo(f"format detections: {_plural(info.detections, 'file')}")
    click.echo(f"whole outputs (summarize, statusline): {_plural(info.runs, 'run')}")
    from wavemetrics.cache._cachedir import max_bytes

    bound = max_bytes()
    click.echo(f"size: {info.size_bytes} bytes"
               f" ({'no bound' if bound is None else f'bound {bound} bytes'})")


@cache.command("clear")
def cache_clear() -> None:
    """Delete the cache (the next run rebuilds it)."""
    from wavemetrics.cache.units import ReadCache

    store = ReadCache()
    removed = store.clear()
    click.echo(printable(f"{'removed' if removed else 'nothing to remove at'} {store.path}"))


@main.command(short_help="Print one line for Claude Code's status line (see --install).")
@click.option("--no-cache", is_flag=True, help="Read the transcript without the cache.")
@click.option(
    "--print-settings", is_flag=True,
    help="Print the settings.json snippet that runs this wavemetrics (by its absolute path)"
         " and exit.",
)
@click.option(
    "--install", is_flag=True,
    help="Add that snippet to Claude Code's settings ($CLAUDE_CONFIG_DIR/settings.json,"
         " else ~/.claude/settings.json), keeping every other setting.",
)
@click.option("--force", is_flag=True,
              help="With --install: replace a statusLine that runs another command.")
@click.option("--turns", is_flag=True,
              help="Add the share of the session's model turns that issued 2+ calls"
                   " (turns 30% multi); with --install or --print-settings, in the command.")
def statusline(no_cache: bool, print_settings: bool, install: bool, force: bool,
               turns: bool) -> None:
    """One line for Claude Code's status line: waves, multi-call waves, modeled saving.

    Claude Code runs it after each message with a JSON object on stdin that
    names the session's transcript ("transcript_path"); bad or missing input
    still prints one line and exits 0. To set it up, run it once with
    --install, or paste what --print-settings prints into settings.json.
    """
    if print_settings or install:
        _set_up_statusline(no_cache, print_settings, install, turns)
        return
    if force:
        raise click.UsageError("--force goes with --install")
    from wavemetrics.cli.statusline import run

    run(no_cache=no_cache, turns=turns)


def _set_up_statusline(no_cache: bool, print_settings: bool, install: bool,
                       turns: bool = False) -> None:
    """``statusline --print-settings`` or ``--install [--force]`` (docs/cli.md)."""
    from wavemetrics.cli.statusline_setup import (
        InstallRefused,
        settings_path,
        settings_snippet,
        statusline_command,
    )
    from wavemetrics.cli.statusline_setup import install as install_into

    if print_settings and install:
        raise click.UsageError("--print-settings and --install: give one of them")
    if no_cache:
        raise click.UsageError(f"--no-cache is for running the status line, not with"
                               f" {'--install' if install else '--print-settings'}")
    command = statusline_command() + (" --turns" if turns else "")
    if print_settings:
        click.echo(settings_snippet(command), nl=False)  # JSON: its strings are escaped
        return
    path = settings_path()
    params = click.get_current_context().params
    status = ExitStatus()
    try:
        written = install_into(path, command, force=params["force"])
    except InstallRefused as error:
        status.fail(f"{error}; nothing was changed")
    except OSError as error:
        status.fail(f"{path}: {error.strerror or error}; nothing was changed")
    if written:
        click.echo(printable(f"{path}: the status line now runs {command}"))
    else:
        click.echo(printable(f"{path}: the status line already runs {command}"))
