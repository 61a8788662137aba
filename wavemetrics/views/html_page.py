"""``wavemetrics report``: one self-contained HTML page of a run, or of a comparison.

The page is a Jinja2 template (``views/templates/``, autoescaped: every text taken
from an input is escaped for HTML, and first made visible by
:func:`wavemetrics.views.escaping.printable`) with plotly.js, the page's script and
its style inlined, so it opens offline and sends no request: a Content-Security-Policy
``<meta>`` forbids every fetch (``default-src 'none'``) and runs only the page's own
scripts, by their SHA-256 hashes (``docs/cli.md``, "report"). The data the script
draws is one JSON document in a ``<script type="application/json">`` element with
``<``, ``>`` and ``&`` written as ``\\u`` escapes, so no input text can end it.

Needs plotly (for plotly.js, which its Python package ships) and Jinja2: the optional
extra ``report``; without them :func:`require_report_libraries` raises
:class:`ReportExtraMissing`, whose message names the install commands.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from wavemetrics.core.activity import ACTIVITY_FIGURES, BATCHABLE_TOOL_NAMES, DEFAULT_IDLE_GAP_MS
from wavemetrics.core.exceptions import MissingExtraError
from wavemetrics.views.escaping import printable
from wavemetrics.views.page_data import page_data, tool_rows, wave_size_histogram

if TYPE_CHECKING:
    from collections.abc import Sequence

    from wavemetrics.run.pipeline import Analysis, LaneResult
    from wavemetrics.views.compare import Comparison

__all__ = [
    "BETTER",
    "CHECKOUT_HINT",
    "MAX_TOOL_ROWS",
    "TURN_FIGURES",
    "WHEEL_HINT",
    "ReportExtraMissing",
    "json_for_script",
    "plotly_js",
    "render_compare_page",
    "render_page",
    "require_report_libraries",
    "verdict",
]

#: The install command of the ``report`` extra for an installed wheel, and in a checkout.
WHEEL_HINT = "pip install 'wavemetrics[report]'"
CHECKOUT_HINT = "pip install -e '.[report]'"
#: The turn-width, missed-batching, busy/idle and provenance figures (``docs/metrics.md``
#: section 9), shown in a block of their own, in the figure table's order, when the
#: document's total has them.
TURN_FIGURES = ACTIVITY_FIGURES
#: The summary cards at the top: a figure of the total and how it is shown.
_CARDS = (
    ("paired_calls", "calls", "count"),
    ("waves_total", "waves", "count"),
    ("non_eval_waves_multi", "multi-call non_eval waves", "count"),
    ("modeled_wallclock_saved_ms", "modeled saving", "seconds"),
    ("upper_bound_saved_ms", "upper bound", "seconds"),
    ("tool_time_ms", "tool time", "seconds"),
    ("non_eval_saved_round_trips", "saved round trips", "count"),
)
#: The per-tool table lists at most this many tools (those with the most time).
MAX_TOOL_ROWS = 100
#: Which way is better for a ``compare`` metric: +1 higher, -1 lower; a metric not named
#: here (calls, tool time) is marked only higher or lower.
BETTER = {"modeled_wallclock_saved_ms": 1, "upper_bound_saved_ms": 1,
          "non_eval_saved_round_trips": 1, "non_eval_waves_multi": 1,
          "non_eval_multi_call_share": 1, "measured_turn_duration_ms_total": -1}
#: The style and script of the page, beside the templates.
_ASSETS = ("report.css", "report.js")


class ReportExtraMissing(MissingExtraError):
    """plotly or Jinja2 is missing: the message names the ``report`` extra's install
    commands for a wheel and for a checkout."""

    def __init__(self, missing: str) -> None:
        super().__init__("report", missing, "report")
        self.args = (f"report needs {missing} (the report extra): {WHEEL_HINT}"
                     f" (in a checkout of wavemetrics: {CHECKOUT_HINT})",)

    def __str__(self) -> str:
        return str(self.args[0])


def require_report_libraries() -> None:
    """Raise :class:`ReportExtraMissing` unless plotly and Jinja2 can be imported."""
    import importlib.util

    missing = [name for name, module in (("plotly", "plotly"), ("Jinja2", "jinja2"))
               if importlib.util.find_spec(module) is None]
    if missing:
        raise ReportExtraMissing(" and ".join(missing))


def json_for_script(value: Any) -> str:
    """``value`` as JSON that can sit inside a ``<script>`` element: ASCII only, with
    ``<``, ``>`` and ``&`` as ``\\u`` escapes (so no ``</script>`` or ``<!--``), non-finite
    numbers refused (``ValueError``)."""
    text = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def plotly_js() -> str:
    """plotly.js as plotly's Python package ships it (minified, about 4.8 MB)."""
    import importlib

    offline = importlib.import_module("plotly.offline")  # untyped: reached through import
    return str(offline.get_plotlyjs())


def _asset(name: str) -> str:
    return (files("wavemetrics.views") / "templates" / name).read_text(encoding="utf-8")


def _script_hash(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("wavemetrics.views", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
        lstrip_blocks=True,
    )


def _render(template: str, scripts: Sequence[str], **context: Any) -> str:
    """``template`` rendered with the inline style and ``scripts`` (each allowed by its
    hash in the page's Content-Security-Policy)."""
    from markupsafe import Markup

    csp = ("default-src 'none'; script-src " + " ".join(_script_hash(s) for s in scripts)
           + "; style-src 'unsafe-inline'; img-src data: blob:; font-src data:;"
           " connect-src 'none'; base-uri 'none'; form-action 'none'")
    return str(_environment().get_template(template).render(
        csp=csp, style=Markup(_asset("report.css")),
        scripts=[Markup(s) for s in scripts], **context))


def _seconds(ms: Any) -> str:
    if not isinstance(ms, (int, float)) or not math.isfinite(ms):
        return "n/a"
    return f"{ms / 1000:,.2f} s"


def _cards(total: dict[str, Any]) -> list[dict[str, str]]:
    cards = []
    for key, label, kind in _CARDS:
        if key in total:
            value = total[key]
            shown = _seconds(value) if kind == "seconds" else f"{value:,}"
            cards.append({"key": key, "label": label, "value": shown})
    return cards


def _turn_figures(total: dict[str, Any]) -> list[tuple[str, str]]:
    return [(key, json.dumps(total[key])) for key in TURN_FIGURES if key in total]


def render_page(
    analysis: Analysis[LaneResult], document: dict[str, Any], notes: Sequence[str], *,
    eval_tool_names: Sequence[str], title: str = "wavemetrics report",
    batchable_tool_names: Sequence[str] = BATCHABLE_TOOL_NAMES,
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
) -> str:
    """The report page of ``analysis`` (a batch analysis: every lane's waves).

    ``document`` is the run's ``summarize --format json`` document
    (:func:`wavemetrics.views.report.json_document`): the headline shows every figure
    of its ``total`` as that JSON writes it; ``notes`` are the lines the ``summarize``
    table prints around its rows (inputs, options, tool time, losses, concentration);
    ``batchable_tool_names`` and ``idle_gap_ms`` (ms): the run's section-9 settings, for
    the serial runs the timeline marks (:func:`~wavemetrics.views.page_data.page_data`).
    Raises :class:`ReportExtraMissing` without the ``report`` extra."""
    require_report_libraries()
    total = document["total"]
    data = page_data(analysis.lanes, eval_tool_names,
                     batchable_tool_names=batchable_tool_names, idle_gap_ms=idle_gap_ms)
    tools = tool_rows(analysis.lanes)
    scripts = [plotly_js(), _asset("report.js")]
    return _render(
        "report.html.j2", scripts, title=title, data_json=_markup(json_for_script(data)),
        cards=_cards(total),
        figures=[(key, json.dumps(value)) for key, value in total.items()],
        turns=_turn_figures(total), notes=[printable(_one_line(line)) for line in notes],
        options=[(key, json.dumps(value)) for key, value in document["options"].items()],
        tools=tools[:MAX_TOOL_ROWS], tool_count=len(tools),
        histogram=wave_size_histogram(analysis.lanes, eval_tool_names),
        lanes=data["lanes"], aggregated=data["aggregated"],
    )


def _one_line(text: str) -> str:
    """A note the text table wrapped to 80 columns, as one line again."""
    return " ".join(part.strip() for part in text.splitlines())


def _markup(text: str) -> Any:
    from markupsafe import Markup

    return Markup(text)


def verdict(metric: str, low: float | None, high: float | None) -> str:
    """The scorecard's word for an interval ``[low, high]`` of candidate minus baseline:
    ``better`` or ``worse`` when it excludes 0 and :data:`BETTER` says which way is
    better, ``higher`` or ``lower`` when it excludes 0 for another metric, ``no clear
    difference`` when it holds 0, ``no interval`` without one."""
    if low is None or high is None:
        return "no interval"
    if low <= 0 <= high:
        return "no clear difference"
    direction = BETTER.get(metric, 0)
    up = low > 0
    if direction == 0:
        return "higher" if up else "lower"
    return "better" if up == (direction > 0) else "worse"


def render_compare_page(comparison: Comparison, table: str, *,
                        title: str = "wavemetrics comparison") -> str:
    """The comparison page: the scorecard of ``comparison`` (the figures of
    ``compare --format json``, the interval as that JSON writes it), per-task rows with
    better/worse marks, the tasks on one side only and ``table`` (``compare``'s text
    table, whose notes the page repeats word for word). Raises
    :class:`ReportExtraMissing` without the ``report`` extra."""
    require_report_libraries()
    from wavemetrics.views.compare import METRICS

    document = comparison.to_dict()
    metric = METRICS[comparison.metric]
    interval = document["interval"]
    rows = []
    for row in comparison.tasks:
        difference = row.difference
        mark = "none"
        if difference is not None and math.isfinite(difference):
            mark = "higher" if difference > 0 else "lower" if difference < 0 else "equal"
        direction = BETTER.get(comparison.metric, 0)
        if direction and mark in ("higher", "lower"):
            mark = "better" if (mark == "higher") == (direction > 0) else "worse"
        rows.append({
            "task": printable(row.task_id), "baseline": metric.show(row.baseline_mean),
            "candidate": metric.show(row.candidate_mean),
            "difference": metric.show(difference, signed=True), "mark": mark,
            "trials": f"{row.baseline_trials} / {row.candidate_trials}",
            "failed": f"{row.baseline_failed} / {row.candidate_failed}",
        })
    return _render(
        "compare.html.j2", [_asset("report.js")], title=title, metric=metric,
        difference=json.dumps(document["difference"]),
        difference_shown=metric.show(comparison.difference, signed=True),
        low=None if interval is None else json.dumps(interval[0]),
        high=None if interval is None else json.dumps(interval[1]),
        low_shown=None if interval is None else metric.show(interval[0], signed=True),
        high_shown=None if interval is None else metric.show(interval[1], signed=True),
        confidence=comparison.confidence, paired=comparison.paired_tasks, rows=rows,
        verdict=verdict(comparison.metric, comparison.interval.low, comparison.interval.high),
        baseline_only=[printable(t) for t in comparison.baseline_only],
        candidate_only=[printable(t) for t in comparison.candidate_only],
        table=printable_table(table),
    )


def printable_table(text: str) -> str:
    """``compare``'s table with every line escaped (:func:`printable`), lines kept."""
    return "\n".join(printable(line) for line in text.splitlines())
