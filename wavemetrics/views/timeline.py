"""Timeline pictures: each lane's tool calls as bars from start to end, grouped in waves.

The picture shows what ``wavemetrics waves`` lists: one panel per lane, as
high as its largest wave, time in seconds from the session's first call (the
lanes of a session share one clock), each call a bar in its wave's colour
(``docs/metrics.md`` section 4 buckets), the calls of a wave stacked in rows
(first call on top, wave order of section 2) on a light band that spans the
wave. Drawing needs matplotlib, the optional extra ``timeline``; lane selection
and geometry are plain Python so the CLI can check a request without it.
Only ids, tool names and times are drawn (section 7).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from html import escape  # & < > as entities; xml.sax would pull urllib into every start
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from wavemetrics.core.classify import EVAL_TOOL_NAMES, WaveBucket, classify_wave
from wavemetrics.core.exceptions import LaneNotFoundError, MissingExtraError, install_hint
from wavemetrics.core.schema import LOSS_FIGURES
from wavemetrics.run.pipeline import LaneResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text
    from matplotlib.textpath import TextToPath

__all__ = [
    "INSTALL_HINT",
    "MAX_LANES",
    "OUTPUT_FORMATS",
    "LaneNotFound",
    "MatplotlibMissing",
    "check_lane_count",
    "figure_size_px",
    "lane_labels",
    "output_format",
    "panel_height_in",
    "panel_rows",
    "render_timeline",
    "require_matplotlib",
    "select_lanes",
]

#: The command that installs what drawing needs.
INSTALL_HINT = install_hint("timeline")
#: Output formats, chosen by the output file's suffix.
OUTPUT_FORMATS = ("svg", "png")

# Geometry in inches. Every value is a multiple of 1/4 in, so that inches x DPI
# gives whole pixels exactly. A panel is as high as its tallest wave: a title,
# one row per call of that wave, and the time axis; a lane with no paired call
# is a title and one line of text, without an axis.
DPI = 100
WIDTH_IN = 12.0
HEADER_IN = 0.75  # caption and legend
FOOTER_IN = 0.25
ROW_IN = 0.25  # one row of bars
_TITLE_IN = 0.25  # from the panel's top to its axes
_LOSS_IN = 0.2  # the title's second line, saying which calls were not counted
_XAXIS_IN = 0.5  # below the axes: tick labels and the axis label
_EMPTY_IN = 0.25  # the text of a lane with no paired call
_LEFT_IN = 0.25
_RIGHT_IN = 0.25

#: At most this many panels in one picture (a PNG is at most 65535 px high).
MAX_LANES = 100
_BAR_HEIGHT = 0.7  # of a row
_MIN_BAR_PX = 3.0  # a zero-length call still shows as a bar this wide
_BAND_PAD_PX = 3.0  # a wave's band reaches this far beyond its first start and last end
_NAME_PAD_PX = 4.0
_NAME_POINTS = 8.0

# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
_COLOURS = {
    WaveBucket.NON_EVAL: "#0072B2",
    WaveBucket.EVAL_ONLY: "#E69F00",
    WaveBucket.MIXED: "#CC79A7",
}
_NAME_COLOURS = {
    WaveBucket.NON_EVAL: "white",
    WaveBucket.EVAL_ONLY: "black",
    WaveBucket.MIXED: "black",
}
_BAND_COLOUR = "#E4E4E4"
_LEGEND = {
    WaveBucket.NON_EVAL: "non_eval (counted as parallelism)",
    WaveBucket.EVAL_ONLY: "eval_only (code cells: not counted)",
    WaveBucket.MIXED: "mixed (not counted)",
}
_BAND_LABEL = "one wave of 2+ calls"
_CAPTION = (
    "One bar per tool call, from its start to its end; the calls of one wave are stacked"
    " in rows on a shaded band; colour: the wave's bucket."
)


#: Earlier names of :class:`~wavemetrics.core.exceptions.MissingExtraError` and
#: :class:`~wavemetrics.core.exceptions.LaneNotFoundError` (the same classes).
MatplotlibMissing = MissingExtraError
LaneNotFound = LaneNotFoundError


def output_format(path: str | Path) -> str | None:
    """The format an output file's suffix asks for (``svg``/``png``, any case), else ``None``.

    >>> output_format("waves.PNG"), output_format("waves.pdf")
    ('png', None)
    """
    suffix = Path(path).suffix.lower().lstrip(".")
    return suffix if suffix in OUTPUT_FORMATS else None


def panel_rows(result: LaneResult) -> int:
    """Rows of a lane's panel: its largest wave's size, 0 for a lane with no wave."""
    return max((wave.size for wave in result.waves), default=0)


def panel_height_in(rows: int, lost: bool = False) -> float:
    """Height in inches of a panel of ``rows`` rows (0: a lane with no paired call);
    ``lost``: the lane lost calls (:func:`lost_calls`), said on a second title line.

    >>> panel_height_in(0), panel_height_in(1), panel_height_in(3), panel_height_in(1, True)
    (0.5, 1.0, 1.5, 1.2)
    """
    title = _TITLE_IN + (_LOSS_IN if lost else 0.0)
    if rows == 0:
        return title + _EMPTY_IN
    return title + rows * ROW_IN + _XAXIS_IN


def lost_calls(result: LaneResult) -> bool:
    """Whether a lane lost calls (incomplete, clock anomalies, dropped at the cap): its
    panel's title then has a second line that says so."""
    return any(getattr(result.summary, name) for name, _ in LOSS_FIGURES)


def figure_size_px(rows: Sequence[int], lost: Sequence[bool] = ()) -> tuple[int, int]:
    """Width and height in pixels of a PNG whose panels have ``rows`` rows each
    (:func:`panel_rows`; an SVG has the same size in pt).

    >>> figure_size_px([1]), figure_size_px([3, 0, 1])
    ((1200, 200), (1200, 400))
    """
    width, height = _figure_size_in(rows, lost)
    return round(width * DPI), round(height * DPI)


def _figure_size_in(rows: Sequence[int], lost: Sequence[bool] = ()) -> tuple[float, float]:
    flags = [*lost, *[False] * (len(rows) - len(lost))]
    panels = (sum(panel_height_in(n, f) for n, f in zip(rows, flags, strict=True)) if rows
              else panel_height_in(0))
    return WIDTH_IN, HEADER_IN + panels + FOOTER_IN


def check_lane_count(count: int) -> None:
    """Raise ``ValueError`` when ``count`` lanes are more than :data:`MAX_LANES`.

    The CLI calls this as soon as the lanes are read, before waves are
    assembled or anything is drawn.
    """
    if count > MAX_LANES:
        raise ValueError(
            f"{count} lanes: at most {MAX_LANES} fit in one picture; choose some with --lane"
        )


def select_lanes(lanes: Sequence[LaneResult], lane_ids: Iterable[str]) -> tuple[LaneResult, ...]:
    """The lanes that one of ``lane_ids`` names: ``LANE``, ``SESSION`` or ``SESSION/LANE``.

    An id without ``/`` names the lanes whose ``lane_id`` is exactly it (say
    ``main``, in every session); failing that, the lanes whose ``lane_id`` or
    ``session_id`` begins with it (a lane-id prefix, or every lane of a
    session given by a prefix of its id). ``SESSION/LANE`` names the lanes
    whose ``session_id`` and ``lane_id`` are exactly those, failing that
    begin with them. No ids keeps every lane; lanes keep their order. Raises
    :class:`LaneNotFound` for the first id that names no lane (a typo would
    otherwise drop a lane silently).
    """
    wanted = tuple(lane_ids)
    if not wanted:
        return tuple(lanes)
    chosen: set[int] = set()
    for lane_id in wanted:
        found = _named_by(lanes, lane_id)
        if not found:
            available = list(dict.fromkeys(
                f"{r.lane.session_id}/{r.lane.lane_id}" for r in lanes))
            raise LaneNotFound(lane_id, available)
        chosen.update(found)
    return tuple(r for index, r in enumerate(lanes) if index in chosen)


def lane_labels(lanes: Sequence[LaneResult]) -> list[str]:
    """Each distinct lane as ``SESSION/LANE``, both parts as the ``summarize`` table shows
    them (:func:`~wavemetrics.views.report.unique_prefixes`, width 10), in lane order; each can
    be given back to ``--lane`` as it is (a trailing ``…`` marks a prefix)."""
    from wavemetrics.views.report import table_lane_cells

    cells, _ = table_lane_cells(lanes)
    return list(dict.fromkeys(f"{session}/{lane}" for session, lane in cells))


def _named_by(lanes: Sequence[LaneResult], lane_id: str) -> set[int]:
    """Indexes of the lanes ``lane_id`` names: exact matches, else prefix matches.

    A part that ends in ``…`` (as the table shows a cut id) is the prefix before it.
    """
    if "/" in lane_id:
        session, _, lane = lane_id.rpartition("/")
        session, lane = session.removesuffix("…"), lane.removesuffix("…")
        exact = {i for i, r in enumerate(lanes)
                 if r.lane.session_id == session and r.lane.lane_id == lane}
        return exact or {i for i, r in enumerate(lanes)
                         if r.lane.session_id.startswith(session)
                         and r.lane.lane_id.startswith(lane)}
    lane_id = lane_id.removesuffix("…")
    exact = {i for i, r in enumerate(lanes) if r.lane.lane_id == lane_id}
    return exact or {i for i, r in enumerate(lanes)
                     if r.lane.lane_id.startswith(lane_id)
                     or r.lane.session_id.startswith(lane_id)}


#: Longest id or tool name drawn, in characters; longer ones end in "…" (a 1 MB
#: name must cost no more to draw than a short one).
MAX_NAME_CHARS = 80


def _printable(text: str, limit: int = MAX_NAME_CHARS) -> str:
    # Control characters are not allowed in XML (SVG) and garble a PNG: show them as "?".
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "".join(c if c.isprintable() else "?" for c in text)


def render_timeline(
    lanes: Sequence[LaneResult],
    path: str | Path,
    *,
    eval_tool_names: Iterable[str] = EVAL_TOOL_NAMES,
) -> None:
    """Draw ``lanes`` (one panel each, in order) to ``path``, SVG or PNG by its suffix.

    Each call is a bar ``[start_ms, end_ms]`` in seconds from its session's
    first start (the lanes of a session share one time axis), at least 3 px
    wide so zero-length calls show. Each panel is as high as its largest wave
    (:func:`panel_height_in`). SVG element ids: a call's bar ``call-<n>`` (n
    counts calls from 0 over all panels, in lane then wave order; its
    ``<title>`` is the hover text), the name written on it ``name-<n>``, a
    multi-call wave's band ``wave-<n>``, legend entries ``legend-<bucket>``
    and ``legend-wave``. The same input gives the same
    bytes (fixed SVG hash salt, no date). A PNG is :func:`figure_size_px` big.
    Raises :class:`MatplotlibMissing` without matplotlib, ``ValueError`` for a
    suffix other than ``.svg``/``.png`` or more than :data:`MAX_LANES` lanes,
    ``OSError`` when the file cannot be written.
    """
    fmt = output_format(path)
    if fmt is None:
        raise ValueError(f"{path}: the output must end in .svg or .png")
    check_lane_count(len(lanes))
    names = tuple(eval_tool_names)
    require_matplotlib()
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.textpath import TextToPath

    # A fixed hash salt (and no date, below) makes the SVG the same bytes for the
    # same input; fonttype none keeps text as <text>: small, searchable, selectable.
    with matplotlib.rc_context(
        {"svg.hashsalt": "wavemetrics", "svg.fonttype": "none", "font.size": 9.0}
    ):
        rows = [panel_rows(result) for result in lanes]
        lost = [lost_calls(result) for result in lanes]
        width, height = _figure_size_in(rows, lost)
        figure = Figure(figsize=(width, height), dpi=DPI)
        measure = TextToPath()  # sizes the tool names (do they fit on their bar?)
        _draw_header(figure, height)
        counter = _Counter()
        clocks = _session_clocks(lanes)
        top = height - HEADER_IN
        for result, n, lane_lost in zip(lanes, rows, lost, strict=True):
            axes = figure.add_axes(_panel_rect(top, n, height, lane_lost))
            _draw_lane(axes, result, names, counter, measure, clocks[result.lane.session_id], n)
            top -= panel_height_in(n, lane_lost)
        if not lanes:
            figure.text(0.5, 0.5, "no lanes", ha="center", va="center")
        if fmt == "png":
            figure.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
            return
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", dpi=DPI, metadata={"Date": None})
    Path(path).write_text(_with_tooltips(buffer.getvalue(), counter.tooltips), encoding="utf-8")


_CALL_GROUP = re.compile(r'<g id="call-(\d+)">')


def _with_tooltips(svg: str, tooltips: Sequence[str]) -> str:
    # An SVG <title> is the hover text of its element: the name and duration of
    # every call, also of those too short to carry their name. One pass over the
    # SVG for all calls (a pass per call grows with calls x file size).
    def titled(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if n >= len(tooltips):
            return match.group()
        return f"{match.group()}\n    <title>{escape(tooltips[n], quote=False)}</title>"

    return _CALL_GROUP.sub(titled, svg)


def require_matplotlib() -> None:
    """Raise :class:`MatplotlibMissing` (its message says how to install it) without matplotlib."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise MissingExtraError("timeline", "matplotlib", "timeline") from error


@attrs.define
class _Counter:
    calls: int = 0
    waves: int = 0
    tooltips: list[str] = attrs.field(factory=list)


def _panel_rect(
    top: float, rows: int, height: float, lost: bool = False
) -> tuple[float, float, float, float]:
    axes_top = top - _TITLE_IN - (_LOSS_IN if lost else 0.0)
    axes_in = rows * ROW_IN if rows else _EMPTY_IN
    return (
        _LEFT_IN / WIDTH_IN,
        (axes_top - axes_in) / height,
        (WIDTH_IN - _LEFT_IN - _RIGHT_IN) / WIDTH_IN,
        axes_in / height,
    )


@attrs.frozen
class _Clock:
    """One session's time axis: its first call's start (ms) and its extent (s)."""

    origin_ms: float
    extent_s: float


def _session_clocks(lanes: Sequence[LaneResult]) -> dict[str, _Clock]:
    """Every session's lanes share one clock, so a sub-agent's calls line up
    under the main lane's call that started it."""
    starts: dict[str, float] = {}
    ends: dict[str, float] = {}
    for result in lanes:
        session = result.lane.session_id
        for wave in result.waves:
            for call in wave.calls:
                starts[session] = min(starts.get(session, call.start_ms), call.start_ms)
                ends[session] = max(ends.get(session, call.end_ms), call.end_ms)
    clocks = {}
    for result in lanes:
        session = result.lane.session_id
        if session in starts:
            extent = ends[session] / 1000 - starts[session] / 1000
            clocks[session] = _Clock(starts[session], extent if extent > 0 else 1.0)
        else:
            clocks[session] = _Clock(0.0, 1.0)
    return clocks


def _draw_header(figure: Figure, height: float) -> None:
    from matplotlib.patches import Patch

    figure.text(
        _LEFT_IN / WIDTH_IN, 1 - 0.12 / height, _CAPTION, ha="left", va="top", parse_math=False
    )
    handles = [Patch(facecolor=_COLOURS[b], label=_LEGEND[b]) for b in WaveBucket]
    handles.append(Patch(facecolor=_BAND_COLOUR, edgecolor="#B0B0B0", label=_BAND_LABEL))
    legend = figure.legend(
        handles=handles, loc="upper left", ncols=4, frameon=False,
        bbox_to_anchor=(_LEFT_IN / WIDTH_IN - 0.008, 1 - 0.3 / height),
    )
    gids = [f"legend-{b.value}" for b in WaveBucket] + ["legend-wave"]
    for gid, handle, text in zip(gids, legend.legend_handles, legend.get_texts(), strict=True):
        text.set_gid(f"{gid}-label")
        if handle is not None:
            handle.set_gid(gid)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _lane_title(result: LaneResult) -> str:
    s = result.summary
    waves = len(result.waves)
    lost = ", ".join(f"{loss.label} {getattr(s, name)}" for name, loss in LOSS_FIGURES
                     if getattr(s, name))
    # the same words as summarize's "calls not counted: ... (figures are a lower bound)",
    # on a line of their own (the first is often as wide as the picture), naming the
    # option that lifts the cap when the cap dropped calls (its cost: the stderr warning)
    lift = "; --max-tracked-calls 0 counts every call" if s.dropped_calls else ""
    mark = f"\ncalls not counted: {lost} (figures are a lower bound{lift})" if lost else ""
    return _printable(
        f"session {_printable(result.lane.session_id, 40)}"
        f" / lane {_printable(result.lane.lane_id, 40)}: "
        f"{_plural(s.paired_calls, 'call')} in {_plural(waves, 'wave')}"
        f" ({s.non_eval_waves_multi} multi-call non_eval); "
        f"modeled saving {s.modeled_wallclock_saved_ms / 1000:.2f} s "
        f"(upper bound {s.upper_bound_saved_ms / 1000:.2f} s)",
        limit=400,
    ) + mark


def _draw_lane(
    axes: Axes,
    result: LaneResult,
    eval_names: tuple[str, ...],
    counter: _Counter,
    measure: TextToPath,
    clock: _Clock,
    rows: int,
) -> None:
    from matplotlib.patches import Rectangle

    waves = result.waves
    axes.set_title(_lane_title(result), loc="left", fontsize=9.5, parse_math=False)
    if not waves:  # no time axis to show: a line of text, not an empty 0-1 s axis
        axes.set_axis_off()
        axes.text(0.0, 0.5, "no paired tool calls", transform=axes.transAxes,
                  ha="left", va="center", color="#606060")
        return
    axes.set_yticks([])
    axes.set_xlabel("seconds from the session's first call")
    for side in ("left", "right", "top"):
        axes.spines[side].set_visible(False)
    axes.set_ylim(rows - 0.5, -0.5)  # row 0 on top

    origin = clock.origin_ms
    extent_s = clock.extent_s
    margin = extent_s * 0.01
    axes.set_xlim(-margin, extent_s + margin)
    width_px = (WIDTH_IN - _LEFT_IN - _RIGHT_IN) * DPI
    seconds_per_px = (extent_s + 2 * margin) / width_px
    row_px = ROW_IN * DPI

    for wave in waves:
        bucket = classify_wave((c.tool_name for c in wave.calls), eval_names)
        if wave.size > 1:
            first = (wave.calls[0].start_ms - origin) / 1000
            last = (max(c.end_ms for c in wave.calls) - origin) / 1000
            pad = _BAND_PAD_PX * seconds_per_px
            band = Rectangle(
                (first - pad, -0.5 + 0.04), max(last - first, 0.0) + 2 * pad, wave.size - 0.08,
                facecolor=_BAND_COLOUR, edgecolor="#B0B0B0", linewidth=0.5, zorder=1,
            )
            band.set_gid(f"wave-{counter.waves}")
            axes.add_patch(band)
            counter.waves += 1
        for row, call in enumerate(wave.calls):
            start = (call.start_ms - origin) / 1000
            seconds = (call.end_ms - call.start_ms) / 1000
            shown = max(seconds, _MIN_BAR_PX * seconds_per_px)
            bar = Rectangle(
                (start, row - _BAR_HEIGHT / 2), shown, _BAR_HEIGHT,
                facecolor=_COLOURS[bucket], linewidth=0, zorder=2,
            )
            bar.set_gid(f"call-{counter.calls}")
            axes.add_patch(bar)
            name = _name_on_bar(axes, call.tool_name, start, row, shown / seconds_per_px, row_px,
                                bucket, seconds_per_px, measure)
            if name is not None:
                name.set_gid(f"name-{counter.calls}")
            counter.calls += 1
            counter.tooltips.append(
                f"{_printable(call.tool_name)}: {seconds:.3f} s from {start:.3f} s"
                f" ({bucket.value} wave of {wave.size})"
            )


def _name_on_bar(
    axes: Axes, name: str, start: float, row: int, bar_px: float, row_px: float,
    bucket: WaveBucket, seconds_per_px: float, measure: TextToPath,
) -> Text | None:
    from matplotlib.font_manager import FontProperties

    if bar_px < 2 * _NAME_PAD_PX + _NAME_POINTS:
        return None  # no name fits: spare the measuring
    text = _printable(name)
    width_pt, height_pt, _ = measure.get_text_width_height_descent(
        text, FontProperties(size=_NAME_POINTS), ismath=False
    )
    width, height = width_pt * DPI / 72, height_pt * DPI / 72
    if width + 2 * _NAME_PAD_PX > bar_px or height > row_px * _BAR_HEIGHT:
        return None
    return axes.text(
        start + _NAME_PAD_PX * seconds_per_px, row, text, ha="left", va="center_baseline",
        fontsize=_NAME_POINTS, color=_NAME_COLOURS[bucket], zorder=3, parse_math=False,
        clip_on=True,
    )
