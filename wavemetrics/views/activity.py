"""The ``summarize`` table's block on turns, missed batching and where the time went.

Under the totals of every ``summarize`` table (the plain one and each ``--by`` table),
from the merged total's section-9 figures (``docs/metrics.md``, "Turns, missed batching
and where the time went"; the block is described in ``docs/cli.md``, "The turns
block"). Each line is left out when it has nothing to say; a total with paired calls
but no batch says so (``turns: no batch information in these inputs``). Seconds are
ms / 1000 with two decimals; percentages are rounded down, so that a line never shows
more than the figures hold.
"""

from __future__ import annotations

import math
import textwrap

from wavemetrics.core.activity import DEFAULT_IDLE_GAP_MS
from wavemetrics.core.summary import ParallelismSummary

__all__ = [
    "MESSAGE_TIMES_NOTE",
    "activity_lines",
    "busy_line",
    "idle_line",
    "missed_batching_line",
    "timing_line",
    "turns_line",
]

#: What a reader of a saving made from message times must know (Claude Code: a call's
#: end is when its result was written, after any permission prompt).
MESSAGE_TIMES_NOTE = "message times include permission prompts"


def _s(ms: float) -> str:
    """ms as seconds with two decimals (``n/a`` for a figure that is no number)."""
    return f"{ms / 1000:.2f}" if math.isfinite(ms) else "n/a"


def _wrap(text: str, wrap: bool = True) -> str:
    """``text`` wrapped to 80 columns, later lines indented two spaces (the text table),
    or as it is (``wrap`` false: ``--format markdown``, one line each)."""
    if not wrap:
        return text
    return textwrap.fill(text, 80, subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False)


def _calls(n: int) -> str:
    return f"{n} call" + ("" if n == 1 else "s")


def turns_line(total: ParallelismSummary, *, wrap: bool = True) -> str | None:
    """``turns: 4 with calls, 2 (50%) with 2+ calls, widest 3 calls`` (``batched_turns``,
    ``multi_call_turns`` and its share of them rounded down, ``max_turn_width``), then
    ``; 2 calls without a batch`` when some paired calls had none; ``turns: no batch
    information in these inputs`` when calls were paired but none had a batch; ``None``
    without a paired call."""
    if total.paired_calls == 0:
        return None
    if total.batched_turns == 0:
        return "turns: no batch information in these inputs"
    share = math.floor(100 * total.multi_call_turns / total.batched_turns)
    text = (f"turns: {total.batched_turns} with calls, {total.multi_call_turns} ({share}%)"
            f" with 2+ calls, widest {_calls(total.max_turn_width)}")
    if total.calls_without_batch:
        text += f"; {_calls(total.calls_without_batch)} without a batch"
    return _wrap(text, wrap)


def missed_batching_line(total: ParallelismSummary, *, wrap: bool = True) -> str | None:
    """``missed batching: up to 3 round trips and 4.50 s in 2 runs of single read-only
    calls (an upper bound)``, or ``None`` without a run."""
    runs = total.missed_batch_runs
    if runs == 0:
        return None
    trips = total.missed_batch_round_trips
    return _wrap(
        f"missed batching: up to {trips} round trip{'' if trips == 1 else 's'} and"
        f" {_s(total.missed_batch_upper_ms)} s in {runs} run{'' if runs == 1 else 's'}"
        " of single read-only calls (an upper bound)", wrap)


def busy_line(total: ParallelismSummary, *, wrap: bool = True) -> str | None:
    """``tool busy 1.20 s of 1.50 s tool time (0.30 s overlapped)`` (``tool_busy_ms``,
    ``tool_time_ms``; the overlap is ``tool_time_ms - tool_busy_ms``, left out when it
    is not above 0), or ``None`` without tool time."""
    tool, busy = total.tool_time_ms, total.tool_busy_ms
    if not tool > 0:
        return None
    text = f"tool busy {_s(busy)} s of {_s(tool)} s tool time"
    overlap = tool - busy
    if overlap > 0:
        text += f" ({_s(overlap)} s overlapped)"
    return _wrap(text, wrap)


def idle_line(
    total: ParallelismSummary, idle_gap_ms: float = DEFAULT_IDLE_GAP_MS, *, wrap: bool = True
) -> str | None:
    """``idle 600.00 s of 900.00 s lane span (gaps over 300 s, no call or turn
    running)`` (``idle_ms``, ``lane_span_ms``), or ``None`` when there is no idle time
    (none found, or ``idle_gap_ms`` 0: idle detection off). ``idle_gap_ms``: the gap
    it was made with."""
    if not total.idle_ms > 0:
        return None
    gap = idle_gap_ms / 1000
    gap_text = str(int(gap)) if gap.is_integer() else repr(gap)
    return _wrap(f"idle {_s(total.idle_ms)} s of {_s(total.lane_span_ms)} s lane span"
                 f" (gaps over {gap_text} s, no call or turn running)", wrap)


def timing_line(total: ParallelismSummary, *, wrap: bool = True) -> str | None:
    """Which call times the savings rest on (``calls_timed_by_execution``,
    ``calls_timed_by_message``): ``timing: 3 calls by execution times, 2 by message
    times (message times include permission prompts)``; one side alone when the other
    has no call; ``None`` without a paired call."""
    execution, message = total.calls_timed_by_execution, total.calls_timed_by_message
    parts = []
    if execution:
        parts.append(f"{_calls(execution)} by execution times")
    if message:
        parts.append(f"{message if parts else _calls(message)} by message times"
                     f" ({MESSAGE_TIMES_NOTE})")
    if not parts:
        return None
    return _wrap("timing: " + ", ".join(parts), wrap)


def activity_lines(
    total: ParallelismSummary, idle_gap_ms: float = DEFAULT_IDLE_GAP_MS, *, wrap: bool = True
) -> list[str]:
    """The block, in order: :func:`turns_line`, :func:`missed_batching_line`,
    :func:`busy_line`, :func:`idle_line`, :func:`timing_line`; those with nothing to say
    left out (no line at all without a paired call). ``wrap``: each wrapped to 80
    columns (the text table), else one line each (``--format markdown``)."""
    lines = (turns_line(total, wrap=wrap), missed_batching_line(total, wrap=wrap),
             busy_line(total, wrap=wrap), idle_line(total, idle_gap_ms, wrap=wrap),
             timing_line(total, wrap=wrap))
    return [line for line in lines if line is not None]
