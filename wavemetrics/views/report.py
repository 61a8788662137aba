"""Rendering of an :class:`~wavemetrics.run.pipeline.Analysis`: table, JSON, JSONL, wave list.

Only ids, tool names, times and figures are ever rendered (``docs/metrics.md``
section 7).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import math
import operator
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from wavemetrics.core.activity import DEFAULT_IDLE_GAP_MS
from wavemetrics.core.classify import EVAL_TOOL_NAMES, classify_wave
from wavemetrics.core.histogram import HISTOGRAM_BUCKET_MAXIMA, decode_histogram
from wavemetrics.core.observations import DEFAULT_MAX_TRACKED_CALLS
from wavemetrics.core.savings import modeled_wallclock_saved_ms
from wavemetrics.core.schema import (
    DERIVED_PROPERTIES,
    LOSS_FIGURES,
    SCHEMA_KIND,
    SUMMARY_FIELDS,
    TABLE_COLUMNS,
    Column,
    json_safe,
)
from wavemetrics.core.summary import ParallelismSummary
from wavemetrics.inputs._files import DUPLICATE, EMPTY
from wavemetrics.readers._report import InputReport
from wavemetrics.run._lanes import Analysis, LaneFigures, LaneResult
from wavemetrics.run._options import non_default_arguments, options_record
from wavemetrics.views.activity import activity_lines
from wavemetrics.views.escaping import printable, shortened
from wavemetrics.views.notes import cap_advice

__all__ = [
    "CONCENTRATION_MIN_SAVED_MS",
    "TABLE_LEGEND",
    "WINDOW_CLAUSE",
    "concentrated_lanes",
    "concentration_document",
    "concentration_sentences",
    "idle_gap_of",
    "lane_place",
    "options_arguments",
    "options_line",
    "paths_section",
    "render_json",
    "render_jsonl",
    "render_table",
    "render_waves_table",
    "unique_prefixes",
    "wave_row",
    "wave_rows",
    "waves_document",
]

WIDTH = 80


#: Every figure of a summary, in ``SUMMARY_FIELDS`` order (``ParallelismSummary.as_dict``).
_FIGURES = operator.attrgetter(*SUMMARY_FIELDS)
#: The numeric figures (all but the encoded histogram).
_NUMBERS = operator.attrgetter(*(
    field.name for field in attrs.fields(ParallelismSummary) if not isinstance(field.default, str)
))
_DERIVED_NAMES = tuple(prop.name for prop in DERIVED_PROPERTIES)


def _all_finite(summary: ParallelismSummary) -> bool:
    """Whether every numeric figure is finite: their sum is finite only then (a sum that
    overflows, or a figure that is no number, only sends the caller the long way)."""
    try:
        return math.isfinite(sum(_NUMBERS(summary)))
    except (TypeError, OverflowError):
        return False


def _summary_dict(summary: ParallelismSummary) -> dict[str, Any]:
    values = dict(zip(SUMMARY_FIELDS, _FIGURES(summary), strict=True))
    if not _all_finite(summary):  # rare: json_safe each figure
        values = {name: json_safe(value) for name, value in values.items()}
    for name in _DERIVED_NAMES:
        values[name] = getattr(summary, name)
    return values


def _input_dict(report: InputReport) -> dict[str, Any]:
    return {
        "path": report.path,
        "format": report.format,
        "lines_read": report.lines_read,
        "lines_used": report.lines_used,
        "lines_ignored": report.lines_ignored,
        "problems": dict(report.problems),
        "ignored": dict(report.ignored),
        "notes": dict(report.notes),
        "error": report.error,
    }


def json_document(
    analysis: Analysis[LaneFigures], options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The ``--format json`` document as a dict; ``options``: the run's options record
    (:func:`wavemetrics.run._options.options_record`; ``None``: the defaults), written right
    after ``schema_kind``."""
    lanes = []
    for result in analysis.lanes:
        lane = result.lane
        entry: dict[str, Any] = {
            "path": lane.path,
            "session_id": lane.session_id,
            "lane_id": lane.lane_id,
            "session_hash": result.session_hash,
        }
        entry.update(_summary_dict(result.summary))
        lanes.append(entry)
    document: dict[str, Any] = {
        "schema_kind": SCHEMA_KIND,
        "options": options_record() if options is None else options,
        "inputs": [_input_dict(report) for report in analysis.outcome.inputs],
        "lanes": lanes,
        "total": _summary_dict(analysis.total),
        "concentration": concentration_document(analysis.lanes, analysis.total),
    }
    # Present only when there is something to say, so that the document of a
    # run without copies (or skipped files) keeps its shape.
    if analysis.outcome.skipped:
        document["skipped_files"] = [
            {"path": s.path, "reason": s.reason} for s in analysis.outcome.skipped
        ]
    if analysis.outcome.same_as:
        document["same_content"] = [{"path": path, "same_as": first}
                                    for path, first in analysis.outcome.same_as.items()]
    repeated = analysis.outcome.repeated_lanes
    if repeated:
        document["repeated_lanes"] = [
            {"session_id": session, "lane_id": lane, "paths": list(paths)}
            for (session, lane), paths in repeated.items()
        ]
    return document


def render_json(analysis: Analysis[LaneFigures], options: dict[str, Any] | None = None) -> str:
    """One JSON document: the options, inputs with their line accounting, every lane, the
    total and the concentration of the saving (``options``: as :func:`json_document`)."""
    import msgspec

    # json.dumps(..., indent=2) byte for byte (tests/test_report.py): the C encoder
    # writes it compact, msgspec only re-indents (strings and numbers kept as written),
    # several times faster than the stdlib's pure-Python indenting encoder
    document = json_document(analysis, options)
    try:
        return msgspec.json.format(json.dumps(document, allow_nan=False), indent=2) + "\n"
    except msgspec.DecodeError:  # a lone surrogate's escape, which msgspec rejects
        return json.dumps(document, indent=2, allow_nan=False) + "\n"


def render_jsonl(analysis: Analysis[LaneFigures]) -> str:
    """The v1 wire payloads, one line per lane that has waves."""
    lines = []
    for result in analysis.lanes:
        event = result.summary.to_event(result.session_hash)
        if event is not None:
            safe = {key: json_safe(value) for key, value in event.items()}
            lines.append(json.dumps(safe, allow_nan=False) + "\n")
    return "".join(lines)


def _short(text: str, width: int) -> str:
    return shortened(text, width)  # input text: escaped, then cut


def _seconds(ms: float | None, width: int = 9) -> str:
    if ms is None or not math.isfinite(ms):  # None: a figure that overflowed
        return "n/a"
    text = f"{ms / 1000:.2f}"
    return text if len(text) <= width else _compact(ms / 1000)


def _count(n: int, width: int = 5) -> str:
    text = str(n)
    return text if len(text) <= width else _compact(n)


def _compact(value: float) -> str:
    """A number too wide for its column, as 421k, 1.0M, 3.2G (3 significant digits at most)."""
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            scaled = value / scale
            return f"{scaled:.1f}{suffix}" if abs(scaled) < 10 else f"{scaled:.0f}{suffix}"
    return f"{value:.0f}"


# session and lane, then the figure columns of the table (schema.py)
_COLUMNS = (
    ("session", 10, "<"), ("lane", 10, "<"),
    *((column.header, column.width, ">") for _, column in TABLE_COLUMNS),
)


#: Widest id cell of a table, in characters (ids are unique up to this many).
_MAX_PREFIX = 80


def unique_prefixes(ids: Iterable[str], width: int) -> dict[str, str]:
    """Each id as a column of ``width`` shows it: whole when it fits, else its first
    ``width - 1`` characters and ``…``, or more characters where another id shares
    them, so that no two ids look the same (the column then grows, up to 80
    characters). Ids are escaped first (:func:`~wavemetrics.views.escaping.printable`).

    >>> unique_prefixes(["0199812e-64f0-7f73", "0199812e-7a10-7f73", "main"], 10)
    {'0199812e-64f0-7f73': '0199812e-6…', '0199812e-7a10-7f73': '0199812e-7…', 'main': 'main'}
    """
    # input text: escaped first (docs/cli.md, "Escaping"), and never wider than
    # _MAX_PREFIX characters, so two near-identical 1 MB ids cannot widen the table
    originals = {text: printable(text[: _MAX_PREFIX * 8]) for text in set(ids)}
    distinct = sorted(set(originals.values()))
    need = dict.fromkeys(distinct, 0)
    for a, b in itertools.pairwise(distinct):
        # characters in common at the start (commonpath would compare path parts)
        common = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                      min(len(a), len(b)))
        need[a] = max(need[a], common + 1)
        need[b] = max(need[b], common + 1)
    shown = {}
    for text in distinct:
        keep = min(max(width - 1, need[text]), _MAX_PREFIX)
        shown[text] = text if len(text) <= max(width, keep) else text[:keep] + "…"
    return {original: shown[escaped] for original, escaped in sorted(originals.items())}


def _row(values: tuple[str, ...], widths: tuple[int, int] = (10, 10)) -> str:
    cells = []
    for index, (value, (_, width, align)) in enumerate(zip(values, _COLUMNS, strict=True)):
        if index < 2:  # session and lane: already shortened to unique prefixes
            width = widths[index]
            cells.append(f"{value:{align}{width}}")
        else:
            cells.append(f"{_short(value, width):{align}{width}}")
    return " ".join(cells).rstrip()


def _labels(lanes: Sequence[LaneFigures]) -> tuple[list[tuple[str, str]], tuple[int, int]]:
    """The session and lane cells of each row, and the two columns' widths."""
    sessions = unique_prefixes((r.lane.session_id for r in lanes), 10)
    names = unique_prefixes((r.lane.lane_id for r in lanes), 10)
    labels = [(sessions[r.lane.session_id], names[r.lane.lane_id]) for r in lanes]
    widths = (max([10, *(len(s) for s, _ in labels)]), max([10, *(len(n) for _, n in labels)]))
    return labels, widths


def _cell(value: Any, column: Column) -> str:
    if column.seconds:
        return _seconds(value, column.width)
    return _count(value, column.width)


def _figures(
    label: tuple[str, str], s: ParallelismSummary, widths: tuple[int, int] = (10, 10)
) -> str:
    return _row((
        *label, *(_cell(getattr(s, name), column) for name, column in TABLE_COLUMNS),
    ), widths)


def _inputs_line(inputs: tuple[InputReport, ...], input_format: str, skipped: int = 0) -> str:
    # An input cut short (a truncated gzip) was read up to the cut: it counts as
    # read, in its format, and is said to be read only in part.
    partly = [r for r in inputs if r.error is not None and r.lines_used > 0]
    copies = sum(1 for r in inputs if r.format == DUPLICATE)
    # an empty input has no format: it is said as such ("1 empty input"), not as one
    empty = sum(1 for r in inputs if r.format == EMPTY and r.error is None)
    by_format = Counter(r.format for r in inputs if (r.error is None or r in partly)
                        and r.format not in (DUPLICATE, EMPTY))
    how = "auto-detected" if input_format == "auto" else "--input-format"
    parts = ", ".join(f"{n} {fmt}" for fmt, n in sorted(by_format.items()))
    failed = sum(1 for r in inputs if r.error is not None) - len(partly)
    empties = f"{empty} empty input" + ("" if empty == 1 else "s")
    if parts or not empty:
        text = f"inputs: {parts or 'none read'} ({how})"
        if empty:
            text += f"; {empties}"
    else:  # nothing but empty inputs (and failures): no format was detected or forced
        text = f"inputs: {empties}"
    if partly:
        text += (f"; {len(partly)} of them read only in part, up to an error"
                 " (figures are a lower bound)")
    if failed:
        text += f"; {failed} could not be read"
    if copies:
        text += f"; {copies} the same as another input, read once"
    if skipped:
        text += (f"; {skipped} file skipped (not a trace)" if skipped == 1
                 else f"; {skipped} files skipped (not traces)")
    # many formats make a long line: wrap it, so that the table keeps to 80 columns
    return _wrap(text)


def _wrap(text: str) -> str:
    """A line of the table's notes wrapped to 80 columns, later lines indented two
    spaces, words and hyphenated names never broken."""
    return textwrap.fill(text, WIDTH, subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False)


def loss_line(total: ParallelismSummary, max_tracked_calls: int | None = None) -> str | None:
    """The "calls not counted" line when ``total`` lost calls, else ``None``: one line,
    not wrapped, e.g. ``calls not counted: incomplete 1 (figures are a lower bound)``.

    Every view that loses calls says it in these words (the ``summarize`` tables
    under their total row, ``waves`` and ``timeline`` on stderr, docs/cli.md). When
    calls were dropped at the per-lane cap (``max_tracked_calls``: the cap the run
    used, ``None`` when not known) the line goes on to say how to lift it and what
    that costs (:func:`wavemetrics.views.notes.cap_advice`).
    """
    losses = {loss.label: getattr(total, name) for name, loss in LOSS_FIGURES}
    lost = ", ".join(f"{name} {n}" for name, n in losses.items() if n)
    if not lost:
        return None
    text = f"calls not counted: {lost} (figures are a lower bound)"
    if total.dropped_calls:
        text += ": " + cap_advice(max_tracked_calls)
    return text


#: The mark of a total row whose figures the cap cut (calls dropped at
#: ``--max-tracked-calls``), and of the loss line that explains it.
CAPPED_MARK = "*"


def total_label(total: ParallelismSummary) -> str:
    """The total row's first cell: ``total``, marked ``total*`` when calls were dropped at
    the cap (the loss line under it then starts with ``*``)."""
    return "total" + (CAPPED_MARK if total.dropped_calls else "")


def lane_place(session: str, lane: str) -> str:
    """How a note names a lane in the text table: ``SESSION/LANE`` (the table's cells)."""
    return f"{session}/{lane}"


def idle_gap_of(options: dict[str, Any] | None) -> float:
    """The idle gap (ms) an options record holds (``--idle-gap``), or the default 5
    minutes for no record (docs/cli.md, "Options in the output")."""
    gap = None if options is None else options.get("idle_gap_ms")
    return gap if isinstance(gap, float) else DEFAULT_IDLE_GAP_MS


def under_total(
    analysis: Analysis[LaneFigures], labels: Sequence[tuple[str, str]],
    max_tracked_calls: int | None = None, idle_gap_ms: float = DEFAULT_IDLE_GAP_MS, *,
    place: Callable[[str, str], str] = lane_place, wrap: bool = True,
) -> list[str]:
    """The lines every ``summarize`` table (the plain one and each ``--by`` table) prints
    under its total row, in this order: the tool time (:func:`_tool_time_text`), the
    calls not counted (:func:`loss_line`; wrapped, and marked ``*`` as the total row is
    when calls were dropped at the cap), the turns block
    (:func:`wavemetrics.views.activity.activity_lines`; ``idle_gap_ms``: the gap the
    figures were made with, in ms), the concentration notes
    (:func:`concentration_sentences`; ``labels``: each lane's session and lane cells, as
    :func:`table_lane_cells` gives them, named in a note as ``place`` writes them) and
    the lanes read from several inputs. ``wrap``: lines wrapped to 80 columns (the
    text table), else one line each (``--format markdown``)."""
    total = analysis.total
    fill = _wrap if wrap else str
    lines = [fill(_tool_time_text(total))]
    lost = loss_line(total, max_tracked_calls)
    if lost:
        lines.append(fill(f"{CAPPED_MARK} {lost}") if total.dropped_calls else lost)
    lines.extend(activity_lines(total, idle_gap_ms, wrap=wrap))
    lines.extend(fill(text) for text in concentration_sentences(
        analysis.lanes, [place(*label) for label in labels], total))
    repeated = analysis.outcome.repeated_lanes
    if repeated:
        count = len(repeated)
        lines.append(f"repeated: {count} session/lane{'' if count == 1 else 's'} read from"
                     " 2+ inputs, counted per input (--show-paths)")
    return lines


#: Wave sizes of the histogram's buckets 2..8 (bucket 1, single calls, save nothing),
#: from the bucket maxima: ``("2", "3", "4", "5-8", "9-16", "17-32", "33+")``.
_SIZE_LABELS = (
    *(str(top) if below + 1 == top else f"{below + 1}-{top}"
      for below, top in itertools.pairwise(HISTOGRAM_BUCKET_MAXIMA)),
    f"{HISTOGRAM_BUCKET_MAXIMA[-1] + 1}+",
)


#: A lane whose modeled saving is below this (ms: one minute) is never noted: the note
#: points at a headline that may be mostly parallel waiting (permission prompts, sub-agents),
#: and a saving under a minute is no such headline (docs/cli.md, "The concentration note").
CONCENTRATION_MIN_SAVED_MS = 60_000.0


def concentrated_lanes(
    lanes: Sequence[LaneFigures], total: ParallelismSummary
) -> list[tuple[int, int]]:
    """The lanes the concentration note names, as ``(index in lanes, share)``: a lane
    that holds at least half of the total modeled saving (the total above 0), in
    non_eval waves of 2+ calls, and at least :data:`CONCENTRATION_MIN_SAVED_MS`;
    when ``lanes`` is a single lane, only if its saving is one wave (that the only lane
    holds all of the saving says nothing; that one wave does). ``share``: the lane's
    saving as a percentage of the total, rounded down, so a note never shows more than
    the rule found (docs/cli.md, "The concentration note")."""
    saved = total.modeled_wallclock_saved_ms
    if not (math.isfinite(saved) and saved > 0):
        return []
    found = []
    for index, result in enumerate(lanes):
        s = result.summary
        if s.non_eval_waves_multi < 1 or not s.modeled_wallclock_saved_ms >= saved / 2:
            continue
        if not s.modeled_wallclock_saved_ms >= CONCENTRATION_MIN_SAVED_MS:
            continue
        if len(lanes) == 1 and s.non_eval_waves_multi != 1:
            continue
        found.append((index, math.floor(100 * s.modeled_wallclock_saved_ms / saved)))
    return found


def concentration_document(
    lanes: Sequence[LaneFigures], total: ParallelismSummary
) -> list[dict[str, Any]]:
    """The JSON ``concentration`` list: per lane the note names (:func:`concentrated_lanes`),
    its ``path``, ``session_id``, ``lane_id`` (as in ``lanes``), ``share_percent`` (rounded
    down), ``modeled_wallclock_saved_ms`` and ``non_eval_waves_multi`` (the lane's)."""
    entries = []
    for index, share in concentrated_lanes(lanes, total):
        result = lanes[index]
        entries.append({
            "path": result.lane.path,
            "session_id": result.lane.session_id,
            "lane_id": result.lane.lane_id,
            "share_percent": share,
            "modeled_wallclock_saved_ms": result.summary.modeled_wallclock_saved_ms,
            "non_eval_waves_multi": result.summary.non_eval_waves_multi,
        })
    return entries


def concentration_sentences(
    lanes: Sequence[LaneFigures], places: Sequence[str], total: ParallelismSummary
) -> list[str]:
    """The ``note:`` sentences, one line each: each lane of :func:`concentrated_lanes`,
    named as ``places`` has it (one text per lane).

    ``docs/metrics.md`` section 5 models a saving ``sum(d) - span`` per non_eval
    wave; a wave of one call saves exactly 0.0, so a lane with one non_eval wave
    of 2+ calls owes its whole ``modeled_wallclock_saved_ms`` to that one wave
    (the size comes from the lane's histogram). The streamed summary keeps no
    per-wave figure, so for a lane of several such waves the note names the
    lane and how many waves.
    """
    notes = []
    for index, share in concentrated_lanes(lanes, total):
        where, s = places[index], lanes[index].summary
        head = f"note: {share}% of the saved time ({_seconds(s.modeled_wallclock_saved_ms)} s) is"
        if s.non_eval_waves_multi == 1:
            counts = decode_histogram(s.non_eval_wave_size_histogram)[1:]
            size = _SIZE_LABELS[next(i for i, n in enumerate(counts) if n)]
            text = f"{head} one wave of {size} calls, in lane {where}"
        else:
            text = (f"{head} from lane {where}, in {s.non_eval_waves_multi}"
                    " waves of 2+ calls")
        notes.append(text + ": see wavemetrics waves")
    return notes


#: What the ``options:`` line adds when the run has a time window.
WINDOW_CLAUSE = " (only the waves that start in this window)"


def options_arguments(options: dict[str, Any] | None) -> list[str]:
    """The arguments the ``options:`` line names (:func:`options_line`; ``--by`` left
    out), not yet escaped; ``[]`` for the defaults."""
    # --by is left out: a --by table names its groups in its header already
    return [] if options is None else non_default_arguments({**options, "by": None})


def options_line(options: dict[str, Any] | None) -> str | None:
    """The table's line under ``inputs:`` when an option that changes figures (``--by``
    aside: a ``--by`` table's header names it) is not its default: those options as
    arguments that give them again, the window's bounds as exact ISO times
    (``options: --since 2026-04-18T13:40:00+00:00 --timezone UTC``), escaped and
    wrapped to 80 columns; ``None`` for the defaults."""
    arguments = options_arguments(options)
    if not arguments:
        return None
    text = "options: " + " ".join(printable(argument) for argument in arguments)
    if options is not None and (options.get("since") or options.get("until")):
        text += WINDOW_CLAUSE
    return _wrap(text)


def _tool_time_text(total: ParallelismSummary) -> str:
    """The tool time the saving comes out of, one line.

    ``tool_time_ms`` (docs/metrics.md, extras) sums every paired call's
    duration; the share of it that ``modeled_wallclock_saved_ms`` is, rounded
    down, follows when both are finite and the tool time is above 0.
    """
    tool, saved = total.tool_time_ms, total.modeled_wallclock_saved_ms
    text = f"tool time {_seconds(tool)} s (paired calls' durations summed)"
    if math.isfinite(tool) and math.isfinite(saved) and tool > 0:
        text += f": saved s is {math.floor(100 * saved / tool)}% of it"
    return text


def inputs_line(analysis: Analysis[LaneFigures], input_format: str = "auto") -> str:
    """The table's first line: what was read, in which format (wrapped to 80 columns)."""
    return _inputs_line(analysis.outcome.inputs, input_format, len(analysis.outcome.skipped))


#: The legend under the plain table, line by line.
TABLE_LEGEND = (
    "calls: paired calls; multi: non_eval waves of 2+ calls; rt: saved round trips;",
    "saved s: modeled wall-clock saving; upper s: upper bound. Eval/mixed waves are",
    "never in multi, rt or the savings. Details: --format json, wavemetrics waves.",
)


def render_table(
    analysis: Analysis[LaneFigures], *, input_format: str = "auto", show_paths: bool = False,
    options: dict[str, Any] | None = None,
    max_tracked_calls: int | None = None,
) -> str:
    """A table for people: one row per lane and a total row, durations in seconds.

    Session and lane ids are shortened to prefixes that tell them apart
    (:func:`unique_prefixes`). ``show_paths`` adds a section that gives each
    row's full session and lane ids, format and input path. ``options``: the run's
    options record; those not at their default are named under ``inputs:``
    (:func:`options_line`). ``max_tracked_calls``: the per-lane cap the figures were
    made with, named by the loss line when the cap dropped calls (:func:`under_total`).
    """
    lines = [_inputs_line(analysis.outcome.inputs, input_format,
                          len(analysis.outcome.skipped))]
    named = options_line(options)
    if named is not None:
        lines.append(named)
    lines.append("")
    header_at = len(lines)
    labels, widths = _labels(analysis.lanes)
    lines.append(_row(tuple(name for name, _, _ in _COLUMNS), widths))
    for label, result in zip(labels, analysis.lanes, strict=True):
        lines.append(_figures(label, result.summary, widths))
    lines.append("-" * len(lines[header_at]))
    lanes = len(analysis.lanes)
    lines.append(_figures((total_label(analysis.total),
                           f"{lanes} lane" + ("" if lanes == 1 else "s")),
                          analysis.total, widths))
    lines.extend(under_total(analysis, labels, max_tracked_calls, idle_gap_of(options)))
    lines.extend(TABLE_LEGEND)
    if show_paths:
        lines.extend(paths_section(analysis))
    return "\n".join(lines) + "\n"


def paths_section(analysis: Analysis[LaneFigures]) -> list[str]:
    """``--show-paths``: each row's full ``session/lane``, format and input path."""
    formats = {report.path: report.format for report in analysis.outcome.inputs}
    lines = ["", "rows: session/lane (format): input"]
    for result in analysis.lanes:
        lane = result.lane
        lines.append(printable(f"  {lane.session_id}/{lane.lane_id}"
                               f" ({formats.get(lane.path, '?')}): {lane.path}"))
    return lines


def _iso(ms: float) -> str:
    try:
        moment = dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms"
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _tool_summary(names: list[str]) -> str:
    counts = Counter(printable(name) for name in names)
    return ", ".join(name if n == 1 else f"{name} x{n}" for name, n in counts.items())


def wave_row(
    session_id: str, lane_id: str, index: int, start_ms: float, span_ms: float, size: int,
    max_concurrency: int, bucket: str, tool_names: list[str], saved_ms: float,
) -> dict[str, Any]:
    """One wave of the ``waves`` list: its lane, its place in the lane (``index``, from
    0), its first start and span (ms), its calls (``size``), peak concurrency, bucket
    (``WaveBucket.value``), tool names (wave order) and modeled saving (ms); a time or
    figure that is not finite (one that overflowed: times near 1e308 ms) is ``null``,
    as in summarize. The one shape both the Python analysis (:func:`wave_rows`) and
    the native command (:mod:`wavemetrics.run.fastwaves`) give their waves in."""
    return {
        "session_id": session_id,
        "lane_id": lane_id,
        "wave": index,
        "start_ms": json_safe(start_ms),
        "start": _iso(start_ms),
        "span_ms": json_safe(span_ms),
        "size": size,
        "max_concurrency": max_concurrency,
        "bucket": bucket,
        "tool_names": tool_names,
        "modeled_wallclock_saved_ms": json_safe(saved_ms),
    }


def _wave_rows(
    result: LaneResult, eval_tool_names: tuple[str, ...]
) -> list[dict[str, Any]]:
    rows = []
    lane = result.lane
    for index, wave in enumerate(result.waves):
        names = [call.tool_name for call in wave.calls]
        rows.append(wave_row(
            lane.session_id, lane.lane_id, index, min(call.start_ms for call in wave.calls),
            wave.span_ms, wave.size, wave.max_concurrency,
            classify_wave(names, eval_tool_names).value, names,
            modeled_wallclock_saved_ms(wave)))
    return rows


def wave_rows(
    analysis: Analysis[LaneResult], eval_tool_names: tuple[str, ...] = EVAL_TOOL_NAMES
) -> list[dict[str, Any]]:
    """Every wave of every lane, in lane order then wave order: the ``waves`` of
    :func:`waves_document`."""
    rows: list[dict[str, Any]] = []
    for result in analysis.lanes:
        rows.extend(_wave_rows(result, eval_tool_names))
    return rows


#: The figures of each lane (and of the total) in the ``waves --format json`` document:
#: what was counted and every loss figure, under their ``summarize`` JSON names.
WAVES_LANE_FIGURES = (
    "observed_calls", "paired_calls", *(name for name, _ in LOSS_FIGURES), "waves_total",
)


def waves_document(
    analysis: Analysis[Any], eval_tool_names: tuple[str, ...] = EVAL_TOOL_NAMES,
    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
    options: dict[str, Any] | None = None, rows: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The ``waves --format json`` document: ``options`` (the run's options record, as
    ``summarize``'s: :func:`wavemetrics.run._options.options_record`; ``None``: the
    defaults), ``inputs`` (as ``summarize``'s), the cap
    the waves were built with (``max_tracked_calls``: the one given to ``analyse``,
    whose default is the same; ``None``: unbounded), ``lanes``
    (each lane's ``path``, ``session_id``, ``lane_id`` and
    :data:`WAVES_LANE_FIGURES`, every lane listed), their ``total`` and ``waves``
    (:func:`wave_rows`). A non-zero ``incomplete_calls``, ``clock_anomalies`` or
    ``dropped_calls`` says calls are missing from the list (docs/cli.md). ``rows``:
    the waves when they are given (:func:`wave_row` of each), else those of
    ``analysis``'s lanes (an ``Analysis[LaneResult]`` then)."""
    lanes = [
        {"path": r.lane.path, "session_id": r.lane.session_id, "lane_id": r.lane.lane_id,
         **{name: getattr(r.summary, name) for name in WAVES_LANE_FIGURES}}
        for r in analysis.lanes
    ]
    return {
        "options": options_record() if options is None else options,
        "inputs": [_input_dict(report) for report in analysis.outcome.inputs],
        "max_tracked_calls": max_tracked_calls,
        "lanes": lanes,
        "total": {name: getattr(analysis.total, name) for name in WAVES_LANE_FIGURES},
        "waves": wave_rows(analysis, eval_tool_names) if rows is None else rows,
    }


#: The legend under the ``waves`` table: what its short column names mean.
_WAVES_LEGEND = (
    "n: calls in the wave; peak: most calls running at one instant; span s: first",
    "start to last end; saved s: the calls' durations summed minus the span",
    "(summarize counts it for non_eval waves only). Details: --format json.",
)


def render_waves_table(
    analysis: Analysis[Any], eval_tool_names: tuple[str, ...] = EVAL_TOOL_NAMES,
    *, show_paths: bool = False, empty: str | None = None,
    options: dict[str, Any] | None = None, rows: list[dict[str, Any]] | None = None,
) -> str:
    """One line per wave: lane, start (UTC), span, size, peak, bucket, saving, tools;
    ``empty``: the line shown when there is no wave (default: no paired tool calls);
    ``options``: the run's options record, named first (:func:`options_line`) when one is
    not its default; ``rows``: the waves, as :func:`waves_document` takes them."""
    sessions = unique_prefixes((r.lane.session_id for r in analysis.lanes), 10)
    names = unique_prefixes((r.lane.lane_id for r in analysis.lanes), 10)
    s_width = max([10, *(len(v) for v in sessions.values())])
    l_width = max([10, *(len(v) for v in names.values())])
    header = (f"{'session':<{s_width}} {'lane':<{l_width}} {'start (UTC)':<24} "
              f"{'span s':>8} {'n':>3} "
              f"{'peak':>4} {'bucket':<9} {'saved s':>8}  tools")
    named = options_line(options)
    lines = [] if named is None else [named, ""]
    lines.append(header)
    first = len(lines)
    for row in wave_rows(analysis, eval_tool_names) if rows is None else rows:
        lines.append(
            f"{sessions[row['session_id']]:<{s_width}} {names[row['lane_id']]:<{l_width}} "
            f"{row['start']:<24} {_seconds(row['span_ms']):>8} {row['size']:>3} "
            f"{row['max_concurrency']:>4} {row['bucket']:<9} "
            f"{_seconds(row['modeled_wallclock_saved_ms']):>8}  "
            f"{_tool_summary(row['tool_names'])}"
        )
    if len(lines) == first:
        lines.append(empty or "(no waves: no paired tool calls)")
    else:
        lines.extend(_WAVES_LEGEND)
    if show_paths:
        lines.extend(paths_section(analysis))
    return "\n".join(lines) + "\n"


# Shared with the --by tables and documents (wavemetrics.views.groups).
table_lane_cells = _labels  # and with timeline's --lane list
summary_dict = _summary_dict
seconds = _seconds
compact_count = _count
