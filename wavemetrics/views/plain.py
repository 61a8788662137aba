"""A plain ``summarize`` run's output (no ``--by``) in each ``--format``, and its notes.

One function draws every format from the run's analysis, for both ways a run is
made: the command line's (:func:`wavemetrics.cli.commands.summarize`, from the
lanes it read) and the native command's (:mod:`wavemetrics.run.fastpath`, from the
JSON document the extension wrote, read back by
:func:`wavemetrics.views.document.analysis_of`). What each format holds is
``docs/cli.md``'s "Output formats".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wavemetrics.views.notes import plural

if TYPE_CHECKING:  # light at run time: the command line imports this module to start
    from wavemetrics.run._lanes import Analysis, Lane, LaneFigures, ReadOutcome, StreamedLane

__all__ = ["PLAIN_FORMATS", "PROGRESS_MIN_FILES", "lanes_without_event", "nothing_read",
           "options_note", "render_plain", "show_progress"]

#: The ``--format`` values of ``summarize``, in its ``--help`` order.
PLAIN_FORMATS = ("table", "json", "jsonl", "csv", "markdown")

#: At most this many lanes are named in one note.
NAMED_LANES = 10


#: Fewer files than this are read without a progress bar.
PROGRESS_MIN_FILES = 20


def show_progress(output_format: str, stdout_is_tty: bool, stderr_is_tty: bool) -> bool:
    """A progress bar goes to stderr only when it is a terminal, and never while
    JSON is being piped from stdout (its reader may share the terminal's stderr); a
    read of fewer than :data:`PROGRESS_MIN_FILES` files draws none at all."""
    if not stderr_is_tty:
        return False
    return stdout_is_tty or output_format not in ("json", "jsonl", "csv")


def nothing_read(outcome: ReadOutcome[Lane | StreamedLane]) -> bool:
    """Every input failed and not a line was used: there is no table to show."""
    inputs = outcome.inputs
    return bool(inputs) and not outcome.lanes and all(
        r.error is not None and r.lines_used == 0 for r in inputs)


def lanes_without_event(analysis: Analysis[LaneFigures]) -> str | None:
    """The note (not yet escaped) naming the lanes that emit no v1 event
    (``--format jsonl``) and why, or ``None`` when every lane emits one."""
    from wavemetrics.core.schema import LOSS_FIGURES

    silent = [r for r in analysis.lanes if r.summary.to_event(r.session_hash) is None]
    if not silent:
        return None
    shown = []
    for result in silent[:NAMED_LANES]:
        s = result.summary
        lost = ", ".join(f"{loss.label} {getattr(s, name)}" for name, loss in LOSS_FIGURES
                         if getattr(s, name))
        why = f"calls not counted: {lost}" if lost else "no tool calls"
        shown.append(f"{result.lane.session_id}/{result.lane.lane_id} ({why})")
    more = len(silent) - len(shown)
    return (f"wavemetrics: note: {plural(len(silent), 'lane')} emitted no event (no waves;"
            " the v1 contract emits none): " + ", ".join(shown)
            + (f" and {more} more" if more else ""))


def options_note(options: dict[str, Any], what: str, why: str) -> str | None:
    """The note naming the options not at their default of an output with no place for
    them (``what``: what the output holds; ``why``: why it has no place), or ``None``
    for the defaults."""
    from wavemetrics.run._options import non_default_arguments

    arguments = non_default_arguments(options)
    if not arguments:
        return None
    return (f"wavemetrics: note: these {what} were made with " + " ".join(arguments)
            + f" ({why}; --format json records them)")


def render_plain(
    analysis: Analysis[LaneFigures], output_format: str, options: dict[str, Any], *,
    show_paths: bool, terminal: bool, zone: Any = None, tools: Any = None,
    periods: Any = None,
) -> tuple[str | None, list[str]]:
    """The run's stdout text in ``output_format`` (one of :data:`PLAIN_FORMATS`;
    ``None``: nothing to print, when no input was read and the format is a plain table)
    and the notes for stderr after it (not yet escaped). ``options``: the run's options
    record (:func:`wavemetrics.run._options.options_record`), which also gives what the
    views need of the run: ``--input-format``, the per-lane cap, the eval and
    batchable names, the idle gap and ``--by`` (then one row per group:
    :func:`wavemetrics.views.groups.group_document`; ``zone``: the time zone of its
    ``day``/``week``/``month`` groups, as :class:`wavemetrics.cli.timewindow.Window`
    gives it; ``tools``: ``--by tool``'s figures as the native command counted them,
    :data:`wavemetrics.views.groups.ToolTable`, else ``None``: counted from the lanes'
    waves; ``periods``: ``--by day|week|month``'s groups as the native command cut them,
    :data:`wavemetrics.views.groups.PeriodTable`, else ``None``: cut from the lanes'
    observations); ``terminal``: stdout is a terminal (CSV values are then escaped, as the
    tables always are: ``docs/cli.md``, "Escaping"). Raises ``ValueError`` for another
    format, and for ``jsonl`` with ``--by`` (a usage error the command line reports
    first)."""
    if options["by"] is not None:
        return _render_groups(analysis, output_format, options, show_paths, terminal, zone,
                              tools, periods), []
    input_format, cap = options["input_format"], options["max_tracked_calls"]
    if output_format == "json":
        from wavemetrics.views.report import render_json

        return render_json(analysis, options), []
    if output_format == "jsonl":
        from wavemetrics.views.report import render_jsonl

        notes = [lanes_without_event(analysis),
                 options_note(options, "payloads", "the v1 payload has no field for options")]
        return render_jsonl(analysis), [note for note in notes if note is not None]
    if output_format == "csv":
        from wavemetrics.views.csvout import rows_to_csv, summary_rows
        from wavemetrics.views.report import json_document

        columns, rows = summary_rows(json_document(analysis, options))
        return rows_to_csv(columns, rows, _escape(terminal)), []
    if nothing_read(analysis.outcome):  # the errors on stderr are all there is to say
        return None, []
    if output_format == "markdown":
        from wavemetrics.views.markdown import render_summary_markdown

        return render_summary_markdown(
            analysis, input_format=input_format, show_paths=show_paths, options=options,
            max_tracked_calls=cap), []
    if output_format == "table":
        from wavemetrics.views.report import render_table

        return render_table(analysis, input_format=input_format, show_paths=show_paths,
                            options=options, max_tracked_calls=cap), []
    raise ValueError(f"unknown output format {output_format!r}")


def _escape(terminal: bool) -> Any:
    from wavemetrics.views.escaping import printable

    return printable if terminal else None


def _render_groups(
    analysis: Analysis[LaneFigures], output_format: str, options: dict[str, Any],
    show_paths: bool, terminal: bool, zone: Any, tools: Any, periods: Any,
) -> str:
    """``--by``'s output: one row per group and the total (:func:`render_plain`)."""
    from wavemetrics.views.groups import (
        group_document,
        group_inputs,
        paths_lines,
        render_group_table,
    )
    from wavemetrics.views.report import (
        inputs_line,
        options_line,
        table_lane_cells,
        total_label,
        under_total,
    )

    by, cap, input_format = options["by"], options["max_tracked_calls"], options["input_format"]
    document = group_document(
        analysis, by, zone=zone, eval_tool_names=tuple(options["eval_tools"]),
        max_tracked_calls=cap, options=options,
        batchable_tool_names=tuple(options["batchable_tools"]),
        idle_gap_ms=options["idle_gap_ms"], tools=tools, periods=periods)
    if output_format == "json":
        import json

        return json.dumps(document, indent=2, allow_nan=False) + "\n"
    if output_format == "csv":
        from wavemetrics.views.csvout import rows_to_csv, summary_rows

        columns, rows = summary_rows(document)
        return rows_to_csv(columns, rows, _escape(terminal))
    if output_format == "markdown":
        from wavemetrics.views.markdown import render_group_markdown

        return render_group_markdown(
            document, analysis, input_format=input_format, options=options,
            max_tracked_calls=cap,
            inputs=(group_inputs(analysis, by, zone=zone, tools=tools, periods=periods)
                    if show_paths else None))
    if output_format != "table":
        raise ValueError(f"--by has no {output_format!r} output")
    # every line of the plain table, in its order: what was read (and the options not at
    # their default), the rows, then under the total the tool time, the lower bound, the
    # notes; the legend
    labels, _ = table_lane_cells(analysis.lanes)
    under = under_total(analysis, labels, cap, options["idle_gap_ms"])
    named = options_line(options)
    text = (inputs_line(analysis, input_format) + ("" if named is None else "\n" + named)
            + "\n\n" + render_group_table(document, under, total_label(analysis.total)))
    if show_paths:  # each row traced to the inputs it comes from
        text += "\n".join(paths_lines(document, group_inputs(
            analysis, by, zone=zone, tools=tools, periods=periods))) + "\n"
    return text
