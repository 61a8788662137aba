"""What the HTML report draws, as plain data: lanes, waves, calls, tools, histogram.

:func:`page_data` turns a batch analysis (every lane's waves) into the JSON-ready
object the report's script reads (``docs/cli.md``, "report"). It is plain
Python (no template engine, no plotting library), so it is tested on its own.

Shapes (every time in ms; ``start`` columns are offsets from ``origin_ms``, the
earliest call's start, rounded to 1 us; a non-finite time is ``None``):

- ``lanes``: one object per lane, in the analysis' order with each session's
  lanes together (sub-agents under the first lane of their session):
  ``label`` (``session/lane``, escaped and cut), ``sub`` (not the session's first
  lane), ``rows`` (rows its calls are stacked in: its largest wave, at most
  :data:`MAX_ROWS`), ``calls``, ``waves``;
- ``waves``: columns ``lane``, ``start``, ``span``, ``size``, ``bucket`` (index in
  ``buckets``), ``saved`` (the wave's modeled saving, ``docs/metrics.md`` section
  5: counted in the figures for non_eval waves only), ``tools`` (indices into
  ``tools``, one per call);
- ``calls``: columns ``wave`` (index into ``waves``), ``tool``, ``start``, ``dur``,
  ``row``, ``run`` (the 0-based number, within its lane, of the serial run of single
  read-only calls the call is in, ``docs/metrics.md`` section 9, "Missed batching";
  ``-1``: none); empty when the calls are aggregated (:data:`MAX_CALL_BARS`), and
  then no run is marked;
- ``tools``: the tool names, escaped (``views/escaping.py``) and cut to
  :data:`MAX_NAME_CHARS` characters;
- ``aggregated``: ``None``, or what was left out and why (said on the page).

Only ids, tool names and times are kept: never arguments or results.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from wavemetrics.core.activity import (
    BATCHABLE_TOOL_NAMES,
    DEFAULT_IDLE_GAP_MS,
    ActivityAccumulator,
)
from wavemetrics.core.classify import EVAL_TOOL_NAMES, WaveBucket, classify_wave
from wavemetrics.core.savings import modeled_wallclock_saved_ms
from wavemetrics.run.pipeline import LaneResult
from wavemetrics.views.escaping import shortened

__all__ = [
    "BUCKETS",
    "MAX_CALL_BARS",
    "MAX_NAME_CHARS",
    "MAX_ROWS",
    "MAX_WAVE_BARS",
    "page_data",
    "serial_run_numbers",
    "tool_rows",
    "wave_size_histogram",
]

#: The buckets in the order of the data's bucket indices (``docs/metrics.md`` section 4).
BUCKETS = tuple(bucket.value for bucket in WaveBucket)
#: A name (tool, session, lane) is cut to this many characters on the page.
MAX_NAME_CHARS = 120
#: A lane's calls are stacked in at most this many rows (a wave's calls wrap).
MAX_ROWS = 8
#: Above this many calls, each wave is drawn as one bar instead of one bar per call
#: (an SVG element per bar costs about 0.3 ms to draw: past a few thousand, seconds).
MAX_CALL_BARS = 2000
#: Above this many waves, only the waves that saved most are drawn (and listed).
MAX_WAVE_BARS = 1000


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _offset(value: float, origin: float) -> float | None:
    if not math.isfinite(value):
        return None
    offset = value - origin
    return round(offset, 3) if math.isfinite(offset) else None


def _lane_order(lanes: Sequence[LaneResult]) -> list[int]:
    """Indices of ``lanes`` with each session's lanes together, in first-seen order."""
    sessions: dict[str, list[int]] = defaultdict(list)
    for index, result in enumerate(lanes):
        sessions[result.lane.session_id].append(index)
    return [index for group in sessions.values() for index in group]


def _origin(lanes: Sequence[LaneResult]) -> float:
    starts = [call.start_ms for result in lanes for wave in result.waves for call in wave.calls
              if math.isfinite(call.start_ms)]
    return min(starts) if starts else 0.0


def wave_size_histogram(
    lanes: Sequence[LaneResult], eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES
) -> list[dict[str, Any]]:
    """Every wave counted by size and bucket: ``[{"size": n, "non_eval": k, "eval_only": k,
    "mixed": k}, ...]``, sizes ascending (only sizes that occur)."""
    counts: dict[int, Counter[str]] = defaultdict(Counter)
    for result in lanes:
        for wave in result.waves:
            names = [call.tool_name for call in wave.calls]
            counts[wave.size][classify_wave(names, eval_tool_names).value] += 1
    return [{"size": size, **{bucket: counts[size][bucket] for bucket in BUCKETS}}
            for size in sorted(counts)]


def tool_rows(lanes: Sequence[LaneResult]) -> list[dict[str, Any]]:
    """Per tool name: ``name`` (escaped, cut), ``calls``, ``time_ms`` (durations summed;
    ``None`` if not finite), ``multi_share`` (the share of its calls that are in waves of
    2+ calls, 0..1). Sorted by time, most first, then name."""
    calls: Counter[str] = Counter()
    multi: Counter[str] = Counter()
    time: dict[str, float] = defaultdict(float)
    for result in lanes:
        for wave in result.waves:
            for call in wave.calls:
                calls[call.tool_name] += 1
                time[call.tool_name] += call.end_ms - call.start_ms
                if wave.size > 1:
                    multi[call.tool_name] += 1
    rows: list[dict[str, Any]] = [{"name": shortened(name, MAX_NAME_CHARS), "calls": n,
             "time_ms": _finite(time[name]), "multi_share": multi[name] / n}
            for name, n in calls.items()]
    rows.sort(key=lambda row: (-(row["time_ms"] or 0.0), row["name"]))
    return rows


def serial_run_numbers(
    result: LaneResult, eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES,
    batchable_tool_names: Sequence[str] = BATCHABLE_TOOL_NAMES,
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
) -> dict[int, int]:
    """The lane's calls in a serial run (``docs/metrics.md`` section 9, "Missed
    batching"), by the ``id()`` of the call object in ``result.assembly.calls``: the
    run's 0-based number within the lane, runs in batch order. The runs are the ones
    ``missed_batch_runs`` counts (:meth:`ActivityAccumulator.serial_runs`, fed the
    lane's paired calls in pairing order). Raises as :class:`ActivityAccumulator` does
    for bad names or a bad ``idle_gap_ms``."""
    accumulator = ActivityAccumulator(batchable_tool_names, eval_tool_names, idle_gap_ms)
    paired = result.assembly.calls
    for call in paired:
        accumulator.call(call.tool_name, call.start_ms, call.end_ms, call.batch)
    return {id(paired[index]): number
            for number, run in enumerate(accumulator.serial_runs()) for index in run}


def page_data(
    lanes: Sequence[LaneResult], eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES, *,
    batchable_tool_names: Sequence[str] = BATCHABLE_TOOL_NAMES,
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
    max_call_bars: int = MAX_CALL_BARS, max_wave_bars: int = MAX_WAVE_BARS,
) -> dict[str, Any]:
    """The report script's data for ``lanes`` (see the module's docstring for its shape).

    Calls are drawn one bar each up to ``max_call_bars`` calls in all; past it each wave
    is one bar, and past ``max_wave_bars`` waves only the waves that saved most (then
    the largest) are kept: ``aggregated`` then says so, with the counts. Each drawn
    call's ``run`` marks its serial run (:func:`serial_run_numbers`, with
    ``batchable_tool_names`` and ``idle_gap_ms`` in ms: the run's settings)."""
    order = _lane_order(lanes)
    origin = _origin(lanes)
    tools: dict[str, int] = {}
    total_calls = sum(wave.size for result in lanes for wave in result.waves)
    total_waves = sum(len(result.waves) for result in lanes)
    per_call = total_calls <= max_call_bars
    entries: list[tuple[int, int, Any, float]] = []  # (lane position, wave index, wave, saved)
    lane_rows: list[dict[str, Any]] = []
    seen_sessions: set[str] = set()
    for position, index in enumerate(order):
        result = lanes[index]
        session = result.lane.session_id
        largest = max((wave.size for wave in result.waves), default=1)
        lane_rows.append({
            "label": f"{shortened(session, 40)}/{shortened(result.lane.lane_id, 40)}",
            "sub": session in seen_sessions,
            "rows": min(largest, MAX_ROWS),
            "calls": sum(wave.size for wave in result.waves),
            "waves": len(result.waves),
        })
        seen_sessions.add(session)
        for number, wave in enumerate(result.waves):
            entries.append((position, number, wave, modeled_wallclock_saved_ms(wave)))
    kept = entries
    if len(entries) > max_wave_bars:
        ranked = sorted(range(len(entries)), key=lambda i: (
            -(entries[i][3] if math.isfinite(entries[i][3]) else -math.inf),
            -entries[i][2].size, i))
        chosen = sorted(ranked[:max_wave_bars])
        kept = [entries[i] for i in chosen]
    waves: dict[str, list[Any]] = {key: [] for key in
                                   ("lane", "number", "start", "span", "size", "bucket",
                                    "saved", "tools")}
    calls: dict[str, list[Any]] = {key: [] for key in
                                   ("wave", "tool", "start", "dur", "row", "run")}
    runs: dict[int, dict[int, int]] = {}  # lane position: serial run by call id
    for wave_index, (position, number, wave, saved) in enumerate(kept):
        names = [call.tool_name for call in wave.calls]
        ids = [tools.setdefault(name, len(tools)) for name in names]
        start = min(call.start_ms for call in wave.calls)
        waves["lane"].append(position)
        waves["number"].append(number)
        waves["start"].append(_offset(start, origin))
        waves["span"].append(_finite(wave.span_ms))
        waves["size"].append(wave.size)
        waves["bucket"].append(BUCKETS.index(classify_wave(names, eval_tool_names).value))
        waves["saved"].append(_finite(saved))
        waves["tools"].append(ids)
        if per_call:
            rows = lane_rows[position]["rows"]
            if position not in runs:
                runs[position] = serial_run_numbers(
                    lanes[order[position]], eval_tool_names, batchable_tool_names, idle_gap_ms)
            for row, (call, tool) in enumerate(zip(wave.calls, ids, strict=True)):
                calls["wave"].append(wave_index)
                calls["tool"].append(tool)
                calls["start"].append(_offset(call.start_ms, origin))
                calls["dur"].append(_finite(call.end_ms - call.start_ms))
                calls["row"].append(row % rows)
                calls["run"].append(runs[position].get(id(call), -1))
    aggregated = None
    if not per_call or len(kept) < len(entries):
        aggregated = {"calls": total_calls, "waves": total_waves, "waves_drawn": len(kept),
                      "max_call_bars": max_call_bars, "max_wave_bars": max_wave_bars}
    return {
        "origin_ms": origin,
        "buckets": list(BUCKETS),
        "lanes": lane_rows,
        "waves": waves,
        "calls": calls,
        "tools": [shortened(name, MAX_NAME_CHARS) for name in tools],
        "aggregated": aggregated,
    }
