"""``--format markdown``: the ``summarize`` tables and notes as GitHub-flavoured Markdown.

The same lines as the text table (:mod:`wavemetrics.views.report`, and
:mod:`wavemetrics.views.groups` for ``--by``), in the same order: the ``inputs:``
and ``options:`` lines, the table (a GFM pipe table; its total row last), the
notes under it as a list, the legend, and with ``--show-paths`` each row's
input. Figures are those of the text table, written in full: a count as its
digits, a duration in seconds with 2 decimals, never cut to ``421k`` (a Markdown
cell has no width), so each equals ``--format json``'s figure rounded to the
cell's decimals. Every value taken from an input (ids, tool names, paths,
``--eval-tool`` names) is a code span (:func:`~wavemetrics.views.escaping.markdown_code`),
so it shows as literal text and never breaks the table (docs/cli.md, "Markdown").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from wavemetrics.core.schema import TABLE_COLUMNS
from wavemetrics.run._lanes import Analysis, LaneFigures
from wavemetrics.views.escaping import markdown_code
from wavemetrics.views.report import (
    CAPPED_MARK,
    TABLE_LEGEND,
    WINDOW_CLAUSE,
    idle_gap_of,
    inputs_line,
    options_arguments,
    table_lane_cells,
    total_label,
    under_total,
)

__all__ = [
    "count_cell",
    "markdown_table",
    "render_group_markdown",
    "render_summary_markdown",
    "seconds_cell",
]

def markdown_table(header: Sequence[str], aligns: str, rows: Sequence[Sequence[str]]) -> str:
    """A GFM pipe table, one line per row with a newline after each: ``header`` the
    column names, ``aligns`` one letter per column (``l`` left, ``r`` right), ``rows``
    their cells, already escaped (a ``ValueError`` when a row has another width).

    >>> print(markdown_table(["tool", "calls"], "lr", [["`Bash`", "40"]]), end="")
    | tool | calls |
    | :-- | --: |
    | `Bash` | 40 |
    """
    if len(aligns) != len(header) or any(len(row) != len(header) for row in rows):
        raise ValueError("every row of a table needs one cell per column")
    delimiters = [":--" if align == "l" else "--:" for align in aligns]
    return "".join(f"| {' | '.join(cells)} |\n" for cells in (header, delimiters, *rows))


def seconds_cell(ms: float | None) -> str:
    """A duration in ms as the cell shows it: seconds with 2 decimals (``n/a`` for a
    figure that overflowed: ``None`` or not finite), never shortened.

    >>> seconds_cell(1642281.0), seconds_cell(1_234_567_890_123.0), seconds_cell(None)
    ('1642.28', '1234567890.12', 'n/a')
    """
    if ms is None or not math.isfinite(ms):
        return "n/a"
    return f"{ms / 1000:.2f}"


def count_cell(n: int) -> str:
    """A count as the cell shows it: all its digits (``421337``, not ``421k``)."""
    return str(n)


def _total_cell(label: str) -> str:
    """The total row's first cell, its cap mark escaped (a bare ``*`` is emphasis)."""
    return label.replace(CAPPED_MARK, "\\" + CAPPED_MARK)


def _head(analysis: Analysis[Any], input_format: str, options: dict[str, Any] | None) -> str:
    """The ``inputs:`` paragraph, then the ``options:`` one when an option is not its
    default (the arguments as one code span: ``--eval-tool`` names are the user's)."""
    text = inputs_line(analysis, input_format).replace("\n  ", " ") + "\n\n"
    arguments = options_arguments(options)
    if arguments:
        text += "options: " + markdown_code(" ".join(arguments), cell=False)
        if options is not None and (options.get("since") or options.get("until")):
            text += WINDOW_CLAUSE
        text += "\n\n"
    return text


def _notes(lines: Sequence[str]) -> str:
    """The lines under the total as a list (a line led by the cap mark keeps it, escaped)."""
    if not lines:
        return ""
    items = [_total_cell(line) if line.startswith(CAPPED_MARK) else line for line in lines]
    return "\n" + "".join(f"- {item}\n" for item in items)


def _place(session: str, lane: str) -> str:
    return markdown_code(f"{session}/{lane}", cell=False)


def render_summary_markdown(
    analysis: Analysis[LaneFigures], *, input_format: str = "auto", show_paths: bool = False,
    options: dict[str, Any] | None = None, max_tracked_calls: int | None = None,
) -> str:
    """``summarize --format markdown``: the text table
    (:func:`~wavemetrics.views.report.render_table`) as GFM: one row per lane (session
    and lane as the text table shortens them, as code spans) and the total row, the
    notes under it as a list, then the legend; ``show_paths`` adds each row's full ids,
    format and input path. Arguments as ``render_table``'s."""
    labels, _ = table_lane_cells(analysis.lanes)
    header = ["session", "lane", *(column.header for _, column in TABLE_COLUMNS)]
    aligns = "ll" + "r" * len(TABLE_COLUMNS)
    rows = [
        [markdown_code(session), markdown_code(lane), *_figures(result.summary)]
        for (session, lane), result in zip(labels, analysis.lanes, strict=True)
    ]
    lanes = len(analysis.lanes)
    rows.append([_total_cell(total_label(analysis.total)),
                 f"{lanes} lane" + ("" if lanes == 1 else "s"), *_figures(analysis.total)])
    text = _head(analysis, input_format, options) + markdown_table(header, aligns, rows)
    text += _notes(under_total(analysis, labels, max_tracked_calls, idle_gap_of(options),
                               place=_place, wrap=False))
    text += "\n" + " ".join(TABLE_LEGEND) + "\n"
    if show_paths:
        formats = {report.path: report.format for report in analysis.outcome.inputs}
        text += "\nrows: session/lane (format): input\n\n" + "".join(
            f"- {markdown_code(f'{r.lane.session_id}/{r.lane.lane_id}', cell=False)}"
            f" ({formats.get(r.lane.path, '?')}): {markdown_code(r.lane.path, cell=False)}\n"
            for r in analysis.lanes)
    return text


def _figures(summary: Any) -> list[str]:
    return [seconds_cell(getattr(summary, name)) if column.seconds
            else count_cell(getattr(summary, name)) for name, column in TABLE_COLUMNS]


def render_group_markdown(
    document: dict[str, Any], analysis: Analysis[LaneFigures], *, input_format: str = "auto",
    options: dict[str, Any] | None = None, max_tracked_calls: int | None = None,
    inputs: dict[str, list[str]] | None = None,
) -> str:
    """``summarize --by BY --format markdown``: the ``--by`` text table
    (:func:`~wavemetrics.views.groups.render_group_table`) as GFM. ``document``: the
    ``--by`` JSON document (:func:`~wavemetrics.views.groups.group_document`) the rows
    come from; ``analysis``: the run, for the lines above and under the table;
    ``inputs``: with ``--show-paths``, each group's inputs
    (:func:`~wavemetrics.views.groups.group_inputs`), listed after the legend."""
    from wavemetrics.views.groups import GROUP_LEGEND, TOOL_LEGEND, group_labels

    by = document["by"]
    groups = [str(row["group"]) for row in document["groups"]]
    names = group_labels(by, groups)
    total = _total_cell(total_label(analysis.total))
    legend: Sequence[str]
    if by == "tool":
        header = ["tool", "calls", "calls in multi", "total s", "mean s", "eval/mix"]
        aligns, legend = "lrrrrr", TOOL_LEGEND
        rows = [_tool_row(row, markdown_code(names[str(row["group"])]))
                for row in document["groups"]]
        rows.append(_tool_row(document["total"], total))
    else:
        header = [by, "calls", "waves", "multi", "rt", "eval", "mixed", "saved s", "upper s"]
        aligns, legend = "l" + "r" * 8, GROUP_LEGEND
        rows = [_group_row(row, markdown_code(names[str(row["group"])]))
                for row in document["groups"]]
        rows.append(_group_row(document["total"], total))
    labels, _ = table_lane_cells(analysis.lanes)
    text = _head(analysis, input_format, options) + markdown_table(header, aligns, rows)
    text += _notes(under_total(analysis, labels, max_tracked_calls, idle_gap_of(options),
                               place=_place, wrap=False))
    text += "\n" + " ".join(legend) + "\n"
    if inputs is not None:
        formats = {row["path"]: row["format"] for row in document["inputs"]}
        text += f"\nrows: {by}: inputs (format)\n\n"
        for group in groups:
            text += f"- {markdown_code(group, cell=False)}\n" + "".join(
                f"  - {markdown_code(path, cell=False)} ({formats.get(path, '?')})\n"
                for path in inputs.get(group, []))
    return text


def _group_row(row: dict[str, Any], label: str) -> list[str]:
    return [label, *(count_cell(row[name]) for name in (
        "paired_calls", "waves_total", "non_eval_waves_multi", "non_eval_saved_round_trips",
        "eval_only_waves", "mixed_waves")),
        seconds_cell(row["modeled_wallclock_saved_ms"]), seconds_cell(row["upper_bound_saved_ms"])]


def _tool_row(row: dict[str, Any], label: str) -> list[str]:
    share, mean = row["eval_or_mixed_wave_share"], row["duration_ms_mean"]
    return [label, count_cell(row["calls"]), count_cell(row["multi_call_wave_calls"]),
            seconds_cell(row["duration_ms_total"]), seconds_cell(mean),
            "n/a" if share is None else f"{share:.0%}"]
