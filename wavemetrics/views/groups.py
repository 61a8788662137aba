"""``summarize --by session|lane|project|day|week|month|tool``: one row per group, and totals.

- ``session``, ``lane``: the lanes' summaries merged per session id (per lane).
- ``project``: the Claude Code project folder of the lane's transcript, or the
  working directory a Codex or pi session records in its header (``cwd``);
  ``(not recorded)`` for formats that record none.
- ``day``, ``week`` (ISO), ``month``: each wave in the period where it starts
  (:mod:`wavemetrics.views.slices`), in ``--timezone`` or local time.
- ``tool``: per tool name, its paired calls, those in multi-call non_eval
  waves, their total and mean duration (ms) and the share of its calls in
  eval_only or mixed waves.

Groups are listed in order of first appearance (``session``, ``lane``,
``project``), by period, or by calls then name (``tool``). The total is the
figure of all lanes, the same as without ``--by``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, cast

from wavemetrics.cli.timewindow import Zone, label_of
from wavemetrics.core.activity import BATCHABLE_TOOL_NAMES, DEFAULT_IDLE_GAP_MS
from wavemetrics.core.classify import EVAL_TOOL_NAMES, WaveBucket, classify_wave
from wavemetrics.core.summary import ParallelismSummary, merge_summaries, summarize
from wavemetrics.core.waves import assemble_waves
from wavemetrics.readers.registry import NOT_RECORDED, project_of
from wavemetrics.run.pipeline import Analysis, LaneResult

__all__ = [
    "BY_CHOICES",
    "GROUP_LEGEND",
    "NOT_RECORDED",
    "TOOL_LEGEND",
    "group_document",
    "group_inputs",
    "paths_lines",
    "project_of",
    "render_group_table",
]

BY_CHOICES = ("session", "lane", "project", "day", "week", "month", "tool")
def _lane_key(result: Any, by: str, formats: dict[str, str]) -> str:
    """The group of a lane for ``--by session|lane|project``."""
    if by == "session":
        return str(result.lane.session_id)
    if by == "lane":
        return f"{result.lane.session_id}/{result.lane.lane_id}"
    return project_of(result.lane.path, formats.get(result.lane.path, ""))


def _by_lane_key(analysis: Analysis[Any], by: str) -> list[tuple[str, ParallelismSummary]]:
    formats = {r.path: r.format for r in analysis.outcome.inputs}
    grouped: dict[str, list[ParallelismSummary]] = {}
    for result in analysis.lanes:
        grouped.setdefault(_lane_key(result, by, formats), []).append(result.summary)
    return [(key, merge_summaries(items)) for key, items in grouped.items()]


#: ``--by tool``'s figures as the native command counts them: per tool (tool name, calls,
#: calls in multi-call non_eval waves, durations summed in ms, calls in eval or mixed
#: waves), in order of first appearance, and per lane the indexes of its tools
#: (``native/src/command.rs``, ``ToolTable``).
ToolTable = tuple[list[tuple[str, int, int, float, int]], list[list[int]]]

#: ``--by day|week|month``'s groups as the native command cuts them: the periods' labels
#: (sorted), each one's figures (its parts of the lanes summarised again and merged in
#: lane order, as :func:`_by_period` does), and per lane the indexes of its periods in
#: order of first appearance (``native/src/command.rs``, ``PeriodTable``).
PeriodTable = tuple[list[str], list[ParallelismSummary], list[list[int]]]


def group_inputs(analysis: Analysis[Any], by: str, *, zone: Zone = None,
                 tools: ToolTable | None = None,
                 periods: PeriodTable | None = None) -> dict[str, list[str]]:
    """``--by ... --show-paths``: for each group key, the inputs its rows come from (the
    input each of its lanes was first seen in), in order of first appearance.

    A lane belongs to one ``session``, ``lane`` or ``project`` group; to every
    ``day``/``week``/``month`` in which one of its waves starts; to every ``tool``
    among its paired calls. ``day``/``week``/``month``/``tool`` need lanes read in
    batch mode (raises ``ValueError`` otherwise, as :func:`group_document`), but
    ``tool`` with ``tools``, which gives each lane's tools, and ``day``/``week``/``month``
    with ``periods``, which gives each lane's periods.
    """
    from wavemetrics.views.slices import partition_lane

    formats = {r.path: r.format for r in analysis.outcome.inputs}
    found: dict[str, dict[str, None]] = {}
    for position, result in enumerate(analysis.lanes):
        if by == "tool" and tools is not None:
            keys = [tools[0][index][0] for index in tools[1][position]]
        elif by in ("day", "week", "month") and periods is not None:
            keys = [periods[0][index] for index in periods[2][position]]
        elif by in ("session", "lane", "project"):
            keys = [_lane_key(result, by, formats)]
        elif by in ("day", "week", "month"):
            keys = list(partition_lane(result.lane, lambda ms: label_of(ms, by, zone)))
        elif by == "tool":
            keys = [call.tool_name for wave in result.waves for call in wave.calls]
        else:
            raise ValueError(f"unknown --by {by!r}")
        for key in keys:
            found.setdefault(key, {})[result.lane.path] = None
    return {key: list(paths) for key, paths in found.items()}


def paths_lines(document: dict[str, Any], inputs: dict[str, list[str]]) -> list[str]:
    """The ``--show-paths`` section of a ``--by`` table: per row, its whole group key
    (as JSON has it), then each input it comes from (escaped)."""
    from wavemetrics.views.escaping import printable

    formats = {row["path"]: row["format"] for row in document["inputs"]}
    lines = ["", f"rows: {document['by']}: inputs (format)"]
    for row in document["groups"]:
        key = str(row["group"])
        lines.append(printable(f"  {key}"))
        lines.extend(printable(f"    {path} ({formats.get(path, '?')})")
                     for path in inputs.get(key, []))
    return lines


def _by_period(
    analysis: Analysis[Any], period: str, zone: Zone, eval_tool_names: Sequence[str],
    max_tracked_calls: int | None, batchable_tool_names: Sequence[str], idle_gap_ms: float,
) -> list[tuple[str, ParallelismSummary]]:
    from wavemetrics.views.slices import partition_lane

    grouped: dict[str, list[ParallelismSummary]] = {}
    for result in cast("tuple[LaneResult, ...]", analysis.lanes):
        parts = partition_lane(result.lane, lambda ms: label_of(ms, period, zone))
        for label, part in parts.items():
            assembly = assemble_waves(part.observations, max_tracked_calls=max_tracked_calls)
            grouped.setdefault(label, []).append(summarize(
                assembly, measured_turn_duration_ms_total=part.measured_turn_duration_ms_total,
                eval_tool_names=eval_tool_names, turn_intervals=part.turn_intervals,
                timing=part.timing, batchable_tool_names=batchable_tool_names,
                idle_gap_ms=idle_gap_ms,
            ))
    return [(label, merge_summaries(grouped[label])) for label in sorted(grouped)]


def _tool_figures(calls: int, multi: int, total_ms: float, eval_mixed: int) -> dict[str, Any]:
    return {
        "calls": calls,
        "multi_call_wave_calls": multi,
        "duration_ms_total": total_ms,
        "duration_ms_mean": total_ms / calls if calls else None,
        "eval_or_mixed_wave_share": eval_mixed / calls if calls else None,
    }


def _tool_counts(
    analysis: Analysis[Any], eval_tool_names: Sequence[str]
) -> dict[str, list[float]]:
    """Per tool name, in order of first appearance: ``[calls, calls in multi-call
    non_eval waves, durations summed (ms), calls in eval or mixed waves]``."""
    counts: dict[str, list[float]] = {}
    for result in cast("tuple[LaneResult, ...]", analysis.lanes):
        for wave in result.waves:
            bucket = classify_wave([c.tool_name for c in wave.calls], eval_tool_names)
            multi = bucket is WaveBucket.NON_EVAL and wave.size >= 2
            for call in wave.calls:
                entry = counts.setdefault(call.tool_name, [0, 0, 0.0, 0])
                entry[0] += 1
                entry[1] += multi
                entry[2] += call.end_ms - call.start_ms
                entry[3] += bucket is not WaveBucket.NON_EVAL
    return counts


def _by_tool(counts: dict[str, list[float]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``--by tool``'s rows, most calls first (then by name), and total."""
    ordered = sorted(counts.items(), key=lambda item: (-item[1][0], item[0]))
    rows = [{"group": name, **_tool_figures(int(c), int(m), t, int(e))}
            for name, (c, m, t, e) in ordered]
    totals = [sum(values[i] for values in counts.values()) for i in range(4)]
    total = _tool_figures(int(totals[0]), int(totals[1]), float(totals[2]), int(totals[3]))
    return rows, total


def group_document(
    analysis: Analysis[Any], by: str, *, zone: Zone = None,
    eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES, max_tracked_calls: int | None = None,
    options: dict[str, Any] | None = None,
    batchable_tool_names: Sequence[str] = BATCHABLE_TOOL_NAMES,
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS, tools: ToolTable | None = None,
    periods: PeriodTable | None = None,
) -> dict[str, Any]:
    """The ``--by`` JSON document: ``schema_kind``, ``options`` (the run's options record,
    :func:`wavemetrics.run._options.options_record`; ``None``: the defaults with this ``by``),
    ``by``, ``inputs`` (as without ``--by``), ``groups`` (each with ``group`` and its
    figures, the section-9 extras among them), ``total`` and ``concentration`` (as
    without ``--by``). ``batchable_tool_names`` and ``idle_gap_ms`` (ms): the
    section-9 parameters a ``day``/``week``/``month`` group's figures are computed with
    (docs/metrics.md section 9; the other groups merge the lanes' summaries).

    ``day``/``week``/``month``/``tool`` need lanes read in batch mode (with their
    waves); raises ``ValueError`` otherwise, and for an unknown ``by``; ``tool`` takes
    ``tools`` instead, when given: the native command's count of the same calls, and
    ``day``/``week``/``month`` take ``periods``: the native command's cut of the lanes.
    """
    from wavemetrics.run._options import options_record
    from wavemetrics.views.report import json_document, summary_dict

    if options is None:
        options = options_record(eval_tools=eval_tool_names,
                                 batchable_tools=batchable_tool_names, idle_gap_ms=idle_gap_ms,
                                 max_tracked_calls=max_tracked_calls, by=by)
    base = json_document(analysis, options)
    document: dict[str, Any] = {"schema_kind": base["schema_kind"], "options": base["options"],
                                "by": by, "inputs": base["inputs"]}
    if by == "tool":
        counts = (_tool_counts(analysis, eval_tool_names) if tools is None else
                  {name: [calls, multi, total_ms, eval_mixed]
                   for name, calls, multi, total_ms, eval_mixed in tools[0]})
        groups, total = _by_tool(counts)
        document.update(groups=groups, total=total, concentration=base["concentration"])
        return document
    if by in ("session", "lane", "project"):
        pairs = _by_lane_key(analysis, by)
    elif by in ("day", "week", "month") and periods is not None:
        pairs = list(zip(periods[0], periods[1], strict=True))
    elif by in ("day", "week", "month"):
        pairs = _by_period(analysis, by, zone, eval_tool_names, max_tracked_calls,
                           batchable_tool_names, idle_gap_ms)
    else:
        raise ValueError(f"unknown --by {by!r}")
    document["groups"] = [{"group": key, **summary_dict(s)} for key, s in pairs]
    document["total"] = summary_dict(analysis.total)
    document["concentration"] = base["concentration"]
    return document


#: The legend under a ``--by`` table (``--by tool``: :data:`TOOL_LEGEND`), line by line.
GROUP_LEGEND = (
    "calls: paired calls; multi: non_eval waves of 2+ calls; rt: saved round trips;",
    "saved s / upper s: modeled saving and its upper bound.",
)
#: The legend under the ``--by tool`` table, line by line.
TOOL_LEGEND = (
    "calls in multi: calls in non_eval waves of 2+ calls;",
    "total s: its calls' durations summed, overlapping calls each counted in full;",
    "mean s: total s / calls; eval/mix: share of calls in eval_only or mixed waves.",
)


def render_group_table(
    document: dict[str, Any], under: Sequence[str] = (), total: str = "total"
) -> str:
    """A table for people: one row per group and a total row (durations in seconds),
    then the lines ``under`` it (the plain table's: ``report.under_total``) and the
    legend of the columns. ``total``: the total row's label (``total*`` when the cap
    dropped calls, ``report.total_label``)."""
    from wavemetrics.views.report import compact_count, seconds

    by = document["by"]
    lines = []
    if by == "tool":
        names = group_labels(by, [str(row["group"]) for row in document["groups"]])
        tool_width = max([_TOOL_WIDTH, *(len(label) for label in names.values())])
        lines.append(f"{'tool':<{tool_width}} {'calls':>6} {'calls in multi':>14}"
                     f" {'total s':>9} {'mean s':>8} {'eval/mix':>8}")
        rows = [*document["groups"], {"group": "total", **document["total"]}]
        for row in rows:
            share = row["eval_or_mixed_wave_share"]
            mean = row["duration_ms_mean"]
            label = names.get(str(row["group"]), total)
            lines.append(
                f"{label:<{tool_width}} {compact_count(row['calls'], 6):>6}"
                f" {compact_count(row['multi_call_wave_calls'], 14):>14}"
                f" {seconds(row['duration_ms_total']):>9}"
                f" {'n/a' if mean is None else seconds(mean, 8):>8}"
                f" {'n/a' if share is None else f'{share:.0%}':>8}"
            )
        lines.insert(len(lines) - 1, "-" * len(lines[0]))
        lines.extend(under)
        lines.extend(TOOL_LEGEND)
        return "\n".join(lines) + "\n"
    labels = group_labels(by, [str(row["group"]) for row in document["groups"]])
    width = max([21, *(len(label) for label in labels.values())])
    lines.append(f"{by:<{width}} {'calls':>5} {'waves':>5} {'multi':>5} {'rt':>5} {'eval':>5}"
                 f" {'mixed':>5} {'saved s':>9} {'upper s':>9}")
    rows = [*document["groups"], {"group": "total", **document["total"]}]
    for row in rows:
        label = labels.get(str(row["group"]), total)
        lines.append(
            f"{label:<{width}} {compact_count(row['paired_calls']):>5}"
            f" {compact_count(row['waves_total']):>5}"
            f" {compact_count(row['non_eval_waves_multi']):>5}"
            f" {compact_count(row['non_eval_saved_round_trips']):>5}"
            f" {compact_count(row['eval_only_waves']):>5} {compact_count(row['mixed_waves']):>5}"
            f" {seconds(_ms(row['modeled_wallclock_saved_ms'])):>9}"
            f" {seconds(_ms(row['upper_bound_saved_ms'])):>9}"
        )
    lines.insert(len(lines) - 1, "-" * len(lines[0]))
    lines.extend(under)
    lines.extend(GROUP_LEGEND)
    return "\n".join(lines) + "\n"


#: How many characters of a project's folder path the table shows at least (the end,
#: ``…`` in front when cut): a ``--by project`` table is then 80 columns wide.
_PROJECT_WIDTH = 24


#: The ``--by tool`` table's tool column: 24 characters, up to 30 where two cut names
#: would look the same (its other columns take 50: the table then is 80 wide).
_TOOL_WIDTH, _TOOL_WIDEST = 24, 30
#: The characters a cut tool name keeps before its ``…`` (the rest of the width goes
#: to its end, which tells an MCP server's tools apart: ``mcp__server__tool``).
_TOOL_HEAD = 11


#: An escape :func:`~wavemetrics.views.escaping.printable` writes (``\\t``, ``\\xNN``, ``\\uNNNN``).
_ESCAPE = re.compile(r"\\(?:[tnr]|x[0-9a-f]{2}|u[0-9a-f]{4})")


def _whole_escapes(text: str, label: str) -> str:
    """``label`` (the end of the escaped ``text``, ``…`` in front when cut) grown to the
    start of an escape it would cut through: ``…x07-tail`` would read as the text x07."""
    if not label.startswith("…"):
        return label
    cut = len(text) - (len(label) - 1)
    for match in _ESCAPE.finditer(text, max(0, cut - 5), cut + 6):
        if match.start() < cut < match.end():
            return "…" + text[match.start():]
    return label


def group_labels(by: str, groups: list[str]) -> dict[str, str]:
    """How each group of a ``--by`` table is shown so that no two look the same.

    ``session``: unique id prefixes; ``lane``: ``SESSION/LANE`` with unique
    prefixes of each part (as the plain table and ``--lane`` take them);
    ``project``: the end of the folder path, which is the part that tells
    projects apart: its last 23 characters after ``…`` when it is longer than
    24, or more where another path ends the same; periods and ``(not recorded)``
    as they are. Input text is escaped (``docs/cli.md``, "Escaping").

    >>> group_labels("lane", ["0199812e-64f0-7f73/main", "0199812e-7a10-7f73/main"])
    {'0199812e-64f0-7f73/main': '0199812e-6…/main', '0199812e-7a10-7f73/main': '0199812e-7…/main'}
    >>> group_labels("project", ["/home/u/.claude/projects/-home-u-src-wavemetrics"])
    {'/home/u/.claude/projects/-home-u-src-wavemetrics': '…-home-u-src-wavemetrics'}
    """
    from wavemetrics.views.escaping import printable
    from wavemetrics.views.report import unique_prefixes

    if by == "session":
        return unique_prefixes(groups, 21)
    if by == "lane":
        parts = {group: group.rsplit("/", 1) if "/" in group else [group, ""] for group in groups}
        sessions = unique_prefixes((p[0] for p in parts.values()), 10)
        lanes = unique_prefixes((p[1] for p in parts.values()), 10)
        return {group: f"{sessions[p[0]]}/{lanes[p[1]]}" for group, p in parts.items()}
    if by == "project":  # unique ends: unique prefixes of the reversed (escaped) paths
        escaped = {group: printable(group) for group in groups}
        ends = unique_prefixes((text[::-1] for text in escaped.values()), _PROJECT_WIDTH)
        return {group: _whole_escapes(text, ends[text[::-1]][::-1])
                for group, text in escaped.items()}
    if by == "tool":
        return _tool_labels(groups)
    return {group: printable(group) for group in groups}


def _tool_cuts(text: str) -> list[str]:
    """The ways an escaped tool name may be shown, in the order they are tried: whole
    when it fits :data:`_TOOL_WIDTH`; else its first :data:`_TOOL_HEAD` characters,
    ``…`` and its end, the end growing to :data:`_TOOL_WIDEST` characters in all, then
    the head growing at the end's expense. An end never starts inside an escape: it
    starts at the escape's backslash, or after the escape where keeping it whole would
    make the label wider than :data:`_TOOL_WIDEST` (the table past 80 columns)."""
    if len(text) <= _TOOL_WIDTH:
        return [text]
    cuts = [(_TOOL_HEAD, width) for width in range(_TOOL_WIDTH, _TOOL_WIDEST + 1)]
    cuts += [(head, _TOOL_WIDEST) for head in range(_TOOL_HEAD + 1, _TOOL_WIDEST - 1)]
    shown: list[str] = []
    for head, width in cuts:
        if len(text) <= width:
            return [*shown, text]
        end = _whole_escapes(text, "…" + text[len(text) - (width - 1 - head):])
        escape = _ESCAPE.match(end, 1)
        if head + len(end) > _TOOL_WIDEST and escape is not None:
            end = "…" + end[escape.end():]  # the escape it grew to, left out
        label = text[:head] + end
        if label not in shown:
            shown.append(label)
    return shown


def _tool_labels(groups: list[str]) -> dict[str, str]:
    """Tool names as the ``--by tool`` table shows them, no two alike: each by its
    first way of :func:`_tool_cuts` that no other name's label takes; the names that
    collide try their next way together. Names that still look the same after every
    way (alike in their first 28 and their last 18 characters) are shown by unique
    prefixes, the column then wider than 30. Input text is escaped first (a name
    longer than 4,096 characters by its 2,048 first and last, so that a huge one
    costs no more)."""
    from wavemetrics.views.escaping import printable
    from wavemetrics.views.report import unique_prefixes

    def escaped(name: str) -> str:
        if len(name) <= 4096:
            return printable(name)
        return printable(name[:2048]) + printable(name[-2048:])

    ways = {group: _tool_cuts(escaped(group)) for group in groups}
    step = dict.fromkeys(groups, 0)
    while True:
        labels = {group: ways[group][step[group]] for group in groups}
        seen = Counter(labels.values())
        alike = [group for group in groups if seen[labels[group]] > 1]
        if not alike:
            return labels
        if any(step[group] + 1 >= len(ways[group]) for group in alike):
            labels.update(unique_prefixes(alike, _TOOL_WIDTH))
            return labels
        for group in alike:
            step[group] += 1


def _ms(value: float | None) -> float:
    return float("nan") if value is None else value
