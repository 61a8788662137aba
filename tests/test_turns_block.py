"""The ``summarize`` table's turns block (wavemetrics.views.activity; docs/cli.md, "The
turns block"): each line's exact text for a small hand-computed ``events`` trace whose
model turns are the calls between ``turn_start`` lines (docs/formats.md, "Batches").

The trace (:data:`TURNS`; times in ms), turns t1..t5 as the events batch rule gives them:

- t1 (turn_start 0): read a [0, 100] and grep b [0, 50], one wave [0, 100];
- t2 (200): read c [200, 300]; t3 (340): read d [350, 450];
- t4 (500): bash e [500, 600]; t5 (700): read f [700, 800]; turn_end at 850.

By hand (docs/metrics.md section 9):

- 6 paired calls, 5 turns with calls, 1 of 2+ calls (1/5 = 20%), widest 2;
- serial runs: c then d (both single read-only calls; d starts 350 - 300 = 50 ms after
  c ends, under any gap used here) closed by the bash turn: 1 run of 2 calls, 1 round
  trip, upper (450 - 200) - max(100, 100) = 150 ms; f alone makes no run;
- tool time 100 + 50 + 100 + 100 + 100 + 100 = 550 ms; waves [0,100], [200,300],
  [350,450], [500,600], [700,800]: busy 5 * 100 = 500 ms, 50 ms overlapped;
- the one measured turn is [700, 850] (turn_start 700 overwrote the earlier pending
  starts); lane span 850 - 0 = 850 ms;
- with a 90 ms idle gap: gaps 100 -> 200 (100 ms) and 600 -> 700 (100 ms) are over it,
  300 -> 350 and 450 -> 500 (50 ms) are not: idle 200 ms; with the default 5 minutes: 0.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.event_traces import Event, write_events
from wavemetrics.cli.commands import summarize as summarize_command
from wavemetrics.core.activity import ACTIVITY_FIGURES, BATCHABLE_TOOL_NAMES
from wavemetrics.core.observations import Observation
from wavemetrics.core.summary import ParallelismSummary, merge_summaries, summarize
from wavemetrics.core.waves import assemble_waves
from wavemetrics.views.activity import (
    activity_lines,
    busy_line,
    idle_line,
    missed_batching_line,
    timing_line,
    turns_line,
)

TURNS: list[Event] = [
    ("turn_start", None, None, 0, "main"),
    ("tool_execution_start", "a", "read", 0, "main"),
    ("tool_execution_start", "b", "grep", 0, "main"),
    ("tool_execution_end", "b", "grep", 50, "main"),
    ("tool_execution_end", "a", "read", 100, "main"),
    ("turn_start", None, None, 200, "main"),
    ("tool_execution_start", "c", "read", 200, "main"),
    ("tool_execution_end", "c", "read", 300, "main"),
    ("turn_start", None, None, 340, "main"),
    ("tool_execution_start", "d", "read", 350, "main"),
    ("tool_execution_end", "d", "read", 450, "main"),
    ("turn_start", None, None, 500, "main"),
    ("tool_execution_start", "e", "bash", 500, "main"),
    ("tool_execution_end", "e", "bash", 600, "main"),
    ("turn_start", None, None, 700, "main"),
    ("tool_execution_start", "f", "read", 700, "main"),
    ("tool_execution_end", "f", "read", 800, "main"),
    ("turn_end", None, None, 850, "main"),
]


def _observations(events: list[Event], *, batches: bool = True) -> list[Observation]:
    """The lane's observations, each start keyed by its turn (``t1``..) as the events
    rule keys them (or by none)."""
    turn, found = 0, []
    for kind, call_id, name, at_ms, _ in events:
        if kind == "turn_start":
            turn += 1
        elif call_id is not None and name is not None:
            start = kind == "tool_execution_start"
            found.append(Observation("start" if start else "end", call_id, name, float(at_ms),
                                     f"t{turn}" if start and batches else None))
    return found


def _summary(*, batches: bool = True, timing: str = "execution", idle_gap_ms: float = 90.0,
             batchable: tuple[str, ...] | None = None) -> ParallelismSummary:
    return summarize(assemble_waves(_observations(TURNS, batches=batches)),
                     turn_intervals=[(700.0, 850.0)], timing=timing,  # type: ignore[arg-type]
                     idle_gap_ms=idle_gap_ms,
                     batchable_tool_names=BATCHABLE_TOOL_NAMES if batchable is None else batchable)


def test_the_figures_the_block_is_made_of() -> None:
    """The hand-computed figures of the module doc (the block's inputs)."""
    s = _summary()
    assert (s.paired_calls, s.calls_without_batch, s.batched_turns, s.multi_call_turns,
            s.max_turn_width) == (6, 0, 5, 1, 2)
    assert (s.missed_batch_runs, s.missed_batch_calls, s.missed_batch_round_trips,
            s.missed_batch_upper_ms) == (1, 2, 1, 150.0)
    assert (s.tool_time_ms, s.tool_busy_ms, s.lane_span_ms, s.idle_ms) == (
        550.0, 500.0, 850.0, 200.0)
    assert (s.calls_timed_by_execution, s.calls_timed_by_message) == (6, 0)


def test_the_block_of_the_trace() -> None:
    """Every line: 1 of 5 turns is 20%; 150 ms is 0.15 s; 550 - 500 = 50 ms overlapped;
    200 ms idle of 850 ms; the 90 ms gap is 0.09 s."""
    assert activity_lines(_summary(), 90.0) == [
        "turns: 5 with calls, 1 (20%) with 2+ calls, widest 2 calls",
        "missed batching: up to 1 round trip and 0.15 s in 1 run of single read-only\n"
        "  calls (an upper bound)",
        "tool busy 0.50 s of 0.55 s tool time (0.05 s overlapped)",
        "idle 0.20 s of 0.85 s lane span (gaps over 0.09 s, no call or turn running)",
        "timing: 6 calls by execution times",
    ]


def test_lines_with_nothing_to_say_are_left_out() -> None:
    """The default gap (5 min) finds no idle time: no idle line; no batchable name: no
    run, no missed-batching line; a summary of nothing: no line at all."""
    lines = activity_lines(_summary(idle_gap_ms=300000.0))
    assert [line.split(" ")[0] for line in lines] == ["turns:", "missed", "tool", "timing:"]
    assert missed_batching_line(_summary(batchable=())) is None
    assert idle_line(_summary(idle_gap_ms=0.0), 0.0) is None  # 0 disables idle time
    assert activity_lines(merge_summaries([])) == []


def test_no_batch_is_said_once() -> None:
    """Calls paired but none with a batch (Codex TUI, OTLP): one turns line saying so,
    and no run (a call without a batch is in no batch, so in no run)."""
    s = _summary(batches=False)
    assert turns_line(s) == "turns: no batch information in these inputs"
    assert missed_batching_line(s) is None


def test_calls_without_a_batch_beside_batched_ones_are_counted() -> None:
    """A lane with batches merged with one without: 5 + 0 turns, 1 of 2+ calls (20%),
    widest max(2, 0) = 2, and the other lane's 6 calls without a batch."""
    both = _summary() + _summary(batches=False)
    assert turns_line(both) == (
        "turns: 5 with calls, 1 (20%) with 2+ calls, widest 2 calls; 6 calls without a"
        "\n  batch")


def test_the_timing_line_names_message_times_and_what_they_hold() -> None:
    """Claude Code's times are message times: the line says they include permission
    prompts; a total of both kinds counts each (6 + 6 calls)."""
    message = _summary(timing="message")
    assert timing_line(message) == (
        "timing: 6 calls by message times (message times include permission prompts)")
    assert timing_line(_summary() + message) == (
        "timing: 6 calls by execution times, 6 by message times (message times include\n"
        "  permission prompts)")


def test_no_overlap_no_overlap_clause() -> None:
    """A lane of one call: busy equals tool time (100 ms), nothing overlapped."""
    one = summarize(assemble_waves([Observation("start", "x", "read", 0.0, "t1"),
                                    Observation("end", "x", "read", 100.0)]))
    assert busy_line(one) == "tool busy 0.10 s of 0.10 s tool time"


def test_the_table_of_the_events_trace_carries_the_block(tmp_path: Path) -> None:
    """End to end: the events reader keys each call by its turn (docs/formats.md,
    "Batches") and gives the measured turn [700, 850]; the JSON total has the figures of
    the module doc and the table the block of test_the_block_of_the_trace, under the tool
    time line (0.55 s; the wave {a, b} saves 150 - 100 = 50 ms, 9% of it rounded down)."""
    trace = write_events(tmp_path / "turns.jsonl", TURNS)
    args = [str(trace), "--no-cache", "--engine", "python", "--idle-gap", "0.09"]
    document = json.loads(CliRunner().invoke(summarize_command, [*args, "--format", "json"])
                          .output)
    expected = _summary()
    assert {name: document["total"][name] for name in ACTIVITY_FIGURES} == {
        name: getattr(expected, name) for name in ACTIVITY_FIGURES}
    table = CliRunner().invoke(summarize_command, args).output.splitlines()
    at = table.index("tool time 0.55 s (paired calls' durations summed): saved s is 9% of it")
    assert table[at + 1:at + 7] == "\n".join(activity_lines(expected, 90.0)).splitlines()
