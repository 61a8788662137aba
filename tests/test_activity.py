"""Section 9 of docs/metrics.md: turns, missed batching and where the time went.

Worked examples computed by hand, the rules where the contract leaves a choice
(docs/metrics.md, "Turns, missed batching and where the time went"), an oracle
written from the section's text, and the invariants the figures must keep.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import batched_lanes
from wavemetrics.core.activity import (
    ACTIVITY_FIGURES,
    BATCHABLE_TOOL_NAMES,
    DEFAULT_IDLE_GAP_MS,
    ActivityAccumulator,
    is_batchable_tool_name,
)
from wavemetrics.core.observations import pair_observations
from wavemetrics.core.schema import FIGURE_MERGES, Merge
from wavemetrics.core.stream import summarize_stream
from wavemetrics.core.summary import ParallelismSummary, merge_summaries, summarize
from wavemetrics.core.waves import assemble_waves


def start(call_id: str, name: str, at: float, batch: str | None = None) -> dict[str, Any]:
    return {"kind": "start", "call_id": call_id, "tool_name": name, "at_ms": at, "batch": batch}


def end(call_id: str, at: float) -> dict[str, Any]:
    return {"kind": "end", "call_id": call_id, "tool_name": "x", "at_ms": at}


def call(call_id: str, name: str, at: float, until: float, batch: str | None) -> list[dict[str, Any]]:
    return [start(call_id, name, at, batch), end(call_id, until)]


def figures(summary: ParallelismSummary) -> dict[str, Any]:
    return {name: getattr(summary, name) for name in ACTIVITY_FIGURES}


def both_paths(observations: Sequence[object], **options: Any) -> ParallelismSummary:
    """The batch path's summary, after checking the streaming path gives the same."""
    turn_intervals = options.pop("turn_intervals", ())
    timing = options.pop("timing", "execution")
    batch = summarize(
        assemble_waves(observations, max_tracked_calls=None),
        turn_intervals=turn_intervals, timing=timing, **options,
    )
    streamed = summarize_stream(
        observations, max_tracked_calls=None, turn_intervals=turn_intervals, timing=timing,
        **options,
    )
    assert streamed == batch
    return batch


# A lane of four model turns and one call with no batch (times in ms):
#   m1: Read  0-10        m2: Read 20-50        m3: Grep 60-65
#   m4: Bash 70-80 and Bash 70-90 (one turn, two calls)
#   u:  a call with no batch key, 95-100
#   m5: Glob 400000-400010, after a gap of 399900 ms (> 5 minutes)
#   m6: Read 400020-400030
#   m7: a start that never ends, at 400040 (incomplete: in no batch)
WORKED = [
    *call("a", "Read", 0, 10, "m1"),
    *call("b", "Read", 20, 50, "m2"),
    *call("c", "Grep", 60, 65, "m3"),
    start("d", "Bash", 70, "m4"), start("e", "Bash", 70, "m4"), end("d", 80), end("e", 90),
    *call("f", "Read", 95, 100, None),
    *call("g", "Glob", 400000, 400010, "m5"),
    *call("h", "Read", 400020, 400030, "m6"),
    start("i", "Read", 400040, "m7"),
]


def test_worked_example() -> None:
    """Every section-9 figure of a lane with serial reads, a wide turn, an idle gap."""
    assert figures(both_paths(WORKED)) == {
        "calls_without_batch": 1,  # f
        "batched_turns": 6,  # m1..m6 (m7's call never ended)
        "multi_call_turns": 1,  # m4
        "turn_width_histogram": "5:1:0:0:0:0:0:0",  # widths 1, 1, 1, 2, 1, 1
        "max_turn_width": 2,
        # runs: m1 m2 m3 (ended by the wider m4); m5 m6 after it (m4 ends nothing more);
        # the gap m3 -> m5 does not matter, m4 already closed the run
        "missed_batch_runs": 2,
        "missed_batch_calls": 5,  # 3 + 2
        "missed_batch_round_trips": 3,  # (3 - 1) + (2 - 1)
        # run 1: span 65 - 0 = 65, longest 30 (b): 35; run 2: span 400030 - 400000 = 30,
        # longest 10: 20; 35 + 20 = 55
        "missed_batch_upper_ms": 55.0,
        "lane_span_ms": 400040.0,  # from a's start 0 to i's incomplete start 400040
        # waves: [0,10] [20,50] [60,65] [70,90] [95,100] [400000,400010] [400020,400030]
        # spans 10 + 30 + 5 + 20 + 5 + 10 + 10 = 90
        "tool_busy_ms": 90.0,
        "idle_ms": 399900.0,  # the one gap over 5 minutes: 400000 - 100
        "calls_timed_by_execution": 8,  # every paired call (a..h)
        "calls_timed_by_message": 0,
    }


def test_an_idle_gap_ends_a_serial_run() -> None:
    """Two single reads more than idle_gap_ms apart are two runs of one: no run at all;
    within the gap they are one run; with the gap at 0 (disabled) nothing ends it."""
    lane = [*call("a", "read", 0, 10, "m1"), *call("b", "read", 30, 40, "m2")]
    # gap from a's end 10 to b's start 30 is 20 ms
    broken = figures(both_paths(lane, idle_gap_ms=19))
    assert (broken["missed_batch_runs"], broken["idle_ms"]) == (0, 20.0)
    kept = figures(both_paths(lane, idle_gap_ms=20))  # not longer than the gap limit
    assert (kept["missed_batch_runs"], kept["missed_batch_round_trips"]) == (1, 1)
    assert kept["missed_batch_upper_ms"] == 30.0  # span 40 - longest 10
    assert kept["idle_ms"] == 0.0
    disabled = figures(both_paths(lane, idle_gap_ms=0))
    assert (disabled["missed_batch_runs"], disabled["idle_ms"]) == (1, 0.0)


def test_width_counts_paired_calls_not_starts() -> None:
    """A batch whose second call never ends has width 1: it is a serial candidate."""
    lane = [
        *call("a", "read", 0, 10, "m1"),
        start("b", "read", 20, "m2"), start("c", "read", 20, "m2"), end("b", 30),  # c: no end
    ]
    result = figures(both_paths(lane))
    assert (result["batched_turns"], result["multi_call_turns"], result["max_turn_width"]) == (
        2, 0, 1
    )
    assert (result["missed_batch_runs"], result["missed_batch_calls"]) == (1, 2)


def test_calls_without_batch_neither_join_nor_end_a_run() -> None:
    """A call with no batch between two single reads leaves their run whole."""
    lane = [
        *call("a", "read", 0, 10, "m1"),
        *call("x", "bash", 12, 14, None),
        *call("b", "read", 20, 30, "m2"),
    ]
    result = figures(both_paths(lane))
    assert (result["missed_batch_runs"], result["missed_batch_calls"]) == (1, 2)
    assert result["calls_without_batch"] == 1
    assert result["missed_batch_upper_ms"] == 20.0  # span 30 - longest 10


def test_a_single_non_batchable_call_ends_a_run() -> None:
    """``bash`` between two reads ends the run: two runs of one, nothing counted."""
    lane = [
        *call("a", "read", 0, 10, "m1"),
        *call("x", "bash", 12, 14, "m2"),
        *call("b", "read", 20, 30, "m3"),
    ]
    assert figures(both_paths(lane))["missed_batch_runs"] == 0


def test_batches_are_ordered_by_earliest_start_then_pairing_order() -> None:
    """Batch order is by the earliest start of its calls, ties by the pairing order of
    the batch's first paired call: here m2 starts first although m1 was issued first."""
    lane = [
        start("a", "read", 50, "m1"), start("b", "bash", 5, "m2"),
        end("a", 60), end("b", 10),  # m1 pairs first, m2 starts first
        *call("c", "read", 70, 80, "m3"),
    ]
    # order m2 (5), m1 (50), m3 (70): bash, read, read -> one run m1 m3
    result = figures(both_paths(lane))
    assert (result["missed_batch_runs"], result["missed_batch_calls"]) == (1, 2)
    assert result["missed_batch_upper_ms"] == 20.0  # span 80 - 50 = 30, longest 10
    # a tie on the earliest start: the batch paired first comes first. a (m1) starts
    # first in the lane but b (m2) ends, so pairs, first: order m2 (0-5), m1 (0-100), m3.
    tie = [
        start("a", "read", 0, "m1"), start("b", "read", 0, "m2"),
        end("b", 5), *call("c", "read", 20, 22, "m3"), end("a", 100),
    ]
    # m2 -> m1: 0 - 5 < 0, joins; m1 -> m3: 20 - 100 < 0, joins: one run of three,
    # span 100 - 0, longest 100: 0.0. (In the order m1, m2, m3 the gap from m2's end 5
    # to m3's start 20 is 15 > 7 and would end the run at two.)
    tied = figures(both_paths(tie, idle_gap_ms=7))
    assert (tied["missed_batch_runs"], tied["missed_batch_calls"]) == (1, 3)
    assert tied["missed_batch_upper_ms"] == 0.0


def test_a_batch_key_reused_later_joins_its_batch() -> None:
    """Calls of one key are one batch wherever they sit in the lane (width 2)."""
    lane = [*call("a", "read", 0, 10, "m1"), *call("b", "read", 20, 30, "m1")]
    result = figures(both_paths(lane))
    assert (result["batched_turns"], result["multi_call_turns"], result["max_turn_width"]) == (
        1, 1, 2
    )
    assert result["missed_batch_runs"] == 0


@pytest.mark.parametrize("bad", [3, "", b"m1", ["m1"]])
def test_an_unusable_batch_key_is_no_batch(bad: object) -> None:
    """A batch key that is not a non-empty str counts the call as without batch."""
    lane = [start("a", "read", 0, bad), end("a", 5)]  # type: ignore[arg-type]
    result = figures(both_paths(lane))
    assert (result["calls_without_batch"], result["batched_turns"]) == (1, 0)


def test_turns_count_in_span_and_fill_idle_gaps() -> None:
    """A measured turn covering a long gap leaves no idle time; one outside the calls
    widens the span and makes the gap to it idle."""
    lane = call("a", "read", 0, 10, "m1") + call("b", "read", 400010, 400020, "m2")
    covered = figures(both_paths(lane, turn_intervals=[(5, 400015)]))
    assert (covered["idle_ms"], covered["lane_span_ms"]) == (0.0, 400020.0)
    # a turn from 1000000 to 1000500: gap from 400020 is 599980 ms, idle; plus the
    # calls' own gap 400010 - 10 = 400000 ms
    apart = figures(both_paths(lane, turn_intervals=[(1000000, 1000500)]))
    assert apart["idle_ms"] == 400000.0 + 599980.0
    assert apart["lane_span_ms"] == 1000500.0
    # zero-length, inverted or infinite turns are not measured turns: ignored
    ignored = figures(both_paths(lane, turn_intervals=[
        (7, 7), (9, 3), (0, math.inf), (-math.inf, 5), (900000, 900000)]))
    assert (ignored["idle_ms"], ignored["lane_span_ms"]) == (400000.0, 400020.0)


def test_touching_intervals_leave_no_gap() -> None:
    """A turn that starts exactly where the calls end merges with them."""
    lane = call("a", "read", 0, 10, "m1")
    result = figures(both_paths(lane, turn_intervals=[(10, 400020)], idle_gap_ms=1))
    assert result["idle_ms"] == 0.0


def test_message_timing_counts_every_paired_call_under_message() -> None:
    """A lane of a format timed by message lines counts its paired calls there."""
    result = figures(both_paths(WORKED, timing="message"))
    assert (result["calls_timed_by_execution"], result["calls_timed_by_message"]) == (0, 8)


def test_the_lane_span_of_one_time_is_zero() -> None:
    """A lane with one start and nothing else has a span of 0.0; no lane: 0.0."""
    assert both_paths([start("a", "read", 5, "m1")]).lane_span_ms == 0.0
    assert (both_paths([]).lane_span_ms, both_paths([]).idle_ms) == (0.0, 0.0)


def test_float_figures_are_floats_for_integer_times() -> None:
    """Integer times give float ms figures (the JSON shows 10.0, as the native engine)."""
    result = both_paths(call("a", "read", 0, 10, "m1"))
    for name in ("missed_batch_upper_ms", "lane_span_ms", "tool_busy_ms", "idle_ms"):
        assert type(getattr(result, name)) is float, name


@pytest.mark.parametrize(("name", "expected"), [
    ("Read", True), ("read_file", True), ("mcp__filesystem__read_file", True),
    ("mcp:web-search", True), ("server/ls", True), ("  GREP ", True), ("list-dir", True),
    ("thread", False), ("readme", False), ("bash", False), ("write", False),
    ("read.file", False), ("", False),
])
def test_batchable_names_by_the_section_4_rule(name: str, expected: bool) -> None:
    """Normal form equal to a batchable name, or ending in ``_``/``:``/``/`` and one."""
    assert is_batchable_tool_name(name) is expected


def test_an_eval_name_is_never_batchable() -> None:
    """An eval tool stays out of serial runs even when named as batchable."""
    assert not is_batchable_tool_name("eval", ["eval", "read"])
    assert not is_batchable_tool_name("mcp:read", ["read"], ["read"])
    assert is_batchable_tool_name("mcp:read", ["read"], ["eval"])


def test_the_default_batchable_list_is_the_contract_s() -> None:
    """The 16 names of section 9, in its order; the default idle gap is five minutes."""
    assert BATCHABLE_TOOL_NAMES == (
        "read", "read_file", "view", "grep", "glob", "ls", "list", "list_dir",
        "list_directory", "find", "search", "search_files", "webfetch", "web_fetch",
        "websearch", "web_search",
    )
    assert DEFAULT_IDLE_GAP_MS == 300000.0


@pytest.mark.parametrize("gap", [-1, math.inf, math.nan])
def test_a_bad_idle_gap_raises(gap: float) -> None:
    message = "idle_gap_ms must be finite and >= 0 (0 disables idle detection)"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        ActivityAccumulator(idle_gap_ms=gap)


@pytest.mark.parametrize("gap", [True, "5", None])
def test_an_idle_gap_of_another_type_raises(gap: object) -> None:
    with pytest.raises(TypeError, match=r"^idle_gap_ms must be a number of ms$"):
        ActivityAccumulator(idle_gap_ms=gap)  # type: ignore[arg-type]


def test_batchable_names_as_one_str_raise() -> None:
    with pytest.raises(TypeError):
        ActivityAccumulator("read")


def test_an_unknown_timing_raises() -> None:
    with pytest.raises(ValueError, match="timing must be one of"):
        summarize(assemble_waves([]), timing="wall")  # type: ignore[arg-type]


def test_custom_batchable_names_replace_the_defaults() -> None:
    """With ``["bash"]`` three single bash calls are a run and two reads are not."""
    lane = [*call("a", "bash", 0, 10, "m1"), *call("b", "bash", 20, 30, "m2"),
            *call("e", "bash", 32, 34, "m5"),
            *call("c", "read", 40, 50, "m3"), *call("d", "read", 60, 70, "m4")]
    result = figures(both_paths(lane, batchable_tool_names=["bash"]))
    assert (result["missed_batch_runs"], result["missed_batch_calls"]) == (1, 3)
    assert result["missed_batch_upper_ms"] == 24.0  # span 34 - 0, longest 10


def test_custom_eval_names_decide_what_is_never_batchable() -> None:
    """Under the eval names ``["run_python"]``, ``eval`` is an ordinary tool: named
    batchable, its single calls make a run."""
    lane = [*call("a", "eval", 0, 10, "m1"), *call("b", "eval", 20, 30, "m2")]
    result = figures(both_paths(lane, eval_tool_names=["run_python"],
                                batchable_tool_names=["eval"]))
    assert (result["missed_batch_runs"], result["missed_batch_calls"]) == (1, 2)
    assert figures(both_paths(lane, batchable_tool_names=["eval"]))["missed_batch_runs"] == 0


def test_a_gap_splits_serial_reads_into_two_runs() -> None:
    """Two pairs of single reads 170 ms apart, idle gap 100: two runs of two."""
    lane = [*call("a", "read", 0, 10, "m1"), *call("b", "read", 20, 30, "m2"),
            *call("c", "read", 200, 210, "m3"), *call("d", "read", 220, 230, "m4")]
    result = figures(both_paths(lane, idle_gap_ms=100))
    assert (result["missed_batch_runs"], result["missed_batch_calls"],
            result["missed_batch_round_trips"]) == (2, 4, 2)
    # (30 - 0 - 10) + (230 - 200 - 10)
    assert result["missed_batch_upper_ms"] == 40.0
    assert result["idle_ms"] == 170.0  # 200 - 30


def test_an_idle_gap_of_one_ms_counts() -> None:
    """A limit of 1 ms is a limit (only 0 disables): a 2 ms gap is idle and ends the run."""
    lane = [*call("a", "read", 0, 1, "m1"), *call("b", "read", 3, 4, "m2")]
    result = figures(both_paths(lane, idle_gap_ms=1))
    assert (result["missed_batch_runs"], result["idle_ms"]) == (0, 2.0)


def test_a_gap_of_exactly_the_limit_is_not_idle() -> None:
    """Between a call and a turn, a gap equal to the limit counts nothing; one more ms
    over it counts whole."""
    lane = call("a", "read", 0, 10, "m1")
    at_limit = figures(both_paths(lane, turn_intervals=[(30, 40)], idle_gap_ms=20))
    assert at_limit["idle_ms"] == 0.0
    over = figures(both_paths(lane, turn_intervals=[(30, 40)], idle_gap_ms=19))
    assert over["idle_ms"] == 20.0


def test_observation_objects_carry_their_batch() -> None:
    """An :class:`Observation` (or any object) gives its ``batch`` attribute; an object
    without one gives none."""
    from wavemetrics.core.observations import Observation

    objects = [Observation("start", "a", "read", 0.0, "m1"), Observation("end", "a", "read", 5.0)]
    assert both_paths(objects).batched_turns == 1
    bare = [SimpleNamespace(kind="start", call_id="a", tool_name="read", at_ms=0.0),
            SimpleNamespace(kind="end", call_id="a", tool_name="read", at_ms=5.0)]
    summary = both_paths(bare)
    assert (summary.batched_turns, summary.calls_without_batch) == (0, 1)


def test_the_state_of_an_accumulator_gives_it_back() -> None:
    """``state``/``from_state`` (the status line's live state) keep every part."""
    accumulator = ActivityAccumulator(["read"], ["eval"], 5.0)
    accumulator.call("read", 0.0, 1.0, "m1")
    accumulator.call("read", 2.0, 3.0, "m1")
    accumulator.call("bash", 20.0, 30.0, None)
    accumulator.wave(0.0, 1.0)
    accumulator.wave(2.0, 3.0)
    accumulator.wave(20.0, 30.0)
    accumulator.turn(-5.0, 0.0)
    accumulator.incomplete_start(40.0)
    copy = ActivityAccumulator.from_state(accumulator.state())
    assert copy.state() == accumulator.state()
    assert copy.result("message") == accumulator.result("message")
    assert copy.result() == {
        "calls_without_batch": 1, "batched_turns": 1, "multi_call_turns": 1,
        "turn_width_histogram": "0:1:0:0:0:0:0:0", "max_turn_width": 2,
        "missed_batch_runs": 0, "missed_batch_calls": 0, "missed_batch_round_trips": 0,
        "missed_batch_upper_ms": 0.0,
        "lane_span_ms": 45.0,  # the turn's -5 to the incomplete start 40
        "tool_busy_ms": 12.0,  # 1 + 1 + 10
        "idle_ms": 17.0,  # blocks [-5, 3] (gaps 0 and 1 <= 5) then 20: gap 17
        "calls_timed_by_execution": 3, "calls_timed_by_message": 0,
    }


# ------------------------------------------------------------------ serial runs


def fed(observations: Sequence[object], **options: Any) -> ActivityAccumulator:
    """An accumulator fed the paired calls of ``observations`` in pairing order."""
    accumulator = ActivityAccumulator(**options)
    for done in pair_observations(observations, max_tracked_calls=None).calls:
        accumulator.call(done.tool_name, done.start_ms, done.end_ms, done.batch)
    return accumulator


def test_serial_runs_of_the_worked_example() -> None:
    """Pairing order is the order of the ends: a 10, b 50, c 65, d 80, e 90, f 100,
    g 400010, h 400030 (i never ends), so a..h are 0..7. The runs are m1 m2 m3 (a b c)
    and m5 m6 (g h): [[0, 1, 2], [6, 7]], 3 + 2 = missed_batch_calls 5."""
    assert fed(WORKED).serial_runs() == [[0, 1, 2], [6, 7]]


def test_serial_runs_are_in_batch_order_by_pairing_index() -> None:
    """x (read 0-100, m1) ends after y (read 10-20, m2), so y pairs first (0) and x
    second (1); batch order is by start, m1 then m2: the run is [1, 0]. z (read 500-510,
    m3) is 400 ms after x's end: with an idle gap of 300 it starts a run of one (none);
    with the gap at 0 it joins: [1, 0, 2]. A run of exactly two counts (k >= 2)."""
    lane = [start("x", "read", 0, "m1"), start("y", "read", 10, "m2"), end("y", 20),
            end("x", 100), *call("z", "read", 500, 510, "m3")]
    assert fed(lane, idle_gap_ms=300).serial_runs() == [[1, 0]]
    assert fed(lane, idle_gap_ms=0).serial_runs() == [[1, 0, 2]]
    assert fed(lane[:4], idle_gap_ms=0).serial_runs() == [[1, 0]]
    assert fed(lane[:1] + lane[3:4]).serial_runs() == []  # x alone: a run of one


def test_serial_runs_skip_wide_and_unbatchable_turns() -> None:
    """A Bash turn ends a run; a run of one before it is not counted:
    a (0) | Bash b (1) | c (2), d (3) -> [[2, 3]]."""
    lane = [*call("a", "read", 0, 1, "m1"), *call("b", "bash", 2, 3, "m2"),
            *call("c", "read", 4, 5, "m3"), *call("d", "grep", 6, 7, "m4")]
    assert fed(lane).serial_runs() == [[2, 3]]


@settings(max_examples=150)
@given(batched_lanes(), st.sampled_from([0, 5, 40, DEFAULT_IDLE_GAP_MS]))
def test_serial_runs_are_the_counted_runs(
    lane: tuple[list[dict[str, Any]], list[tuple[float, float]]], gap: float
) -> None:
    """The runs are the ones the figures count: as many as missed_batch_runs, their
    lengths (each >= 2) add up to missed_batch_calls, and no call is in two of them."""
    observations, _ = lane
    accumulator = fed(observations, batchable_tool_names=["read", "grep"], idle_gap_ms=gap)
    runs = accumulator.serial_runs()
    result = accumulator.result()
    assert len(runs) == result["missed_batch_runs"]
    assert sum(len(run) for run in runs) == result["missed_batch_calls"]
    assert all(len(run) >= 2 for run in runs)
    members = [index for run in runs for index in run]
    assert len(set(members)) == len(members)
    assert all(0 <= index < accumulator.calls for index in members)


# ------------------------------------------------------------------ the oracle


def oracle(
    observations: Sequence[dict[str, Any]], turns: Sequence[tuple[float, float]],
    names: Sequence[str], gap_limit: float,
) -> dict[str, Any]:
    """Section 9 by the letter, over the paired calls (section 1 pairs them)."""
    calls = pair_observations(observations, max_tracked_calls=None)
    paired = calls.calls
    keyed: dict[str, list[tuple[int, Any]]] = {}
    for index, done in enumerate(paired):
        if isinstance(done.batch, str) and done.batch:
            keyed.setdefault(done.batch, []).append((index, done))
    batches = sorted(keyed.values(),
                     key=lambda members: (min(c.start_ms for _, c in members), members[0][0]))
    widths = [len(members) for members in batches]
    histogram = [0] * 8
    for width in widths:
        position = next((i for i, top in enumerate((1, 2, 3, 4, 8, 16, 32)) if width <= top), 7)
        histogram[position] += 1
    runs: list[list[Any]] = []
    current: list[Any] = []
    for members in batches:
        single = members[0][1] if len(members) == 1 else None
        serial = single is not None and is_batchable_tool_name(single.tool_name, names)
        if not serial:
            runs.append(current)
            current = []
            continue
        if current and gap_limit and single.start_ms - current[-1].end_ms > gap_limit:
            runs.append(current)
            current = []
        current.append(single)
    runs.append(current)
    counted = [run for run in runs if len(run) >= 2]
    upper = 0.0
    for run in counted:
        upper += (max(c.end_ms for c in run) - min(c.start_ms for c in run)) - max(
            c.end_ms - c.start_ms for c in run)
    intervals = sorted((c.start_ms, c.end_ms) for c in paired)
    measured = [(a, b) for a, b in turns if b > a]
    times = [t for c in paired for t in (c.start_ms, c.end_ms)]
    times += list(calls.incomplete_starts_ms) + [t for turn in measured for t in turn]
    busy = 0.0
    reach = -math.inf
    first = None
    for a, b in intervals:  # union length, component by component
        if first is None or a > reach:
            if first is not None:
                busy += reach - first
            first = a
        reach = max(reach, b)
    if first is not None:
        busy += reach - first
    idle = 0.0
    reach = -math.inf
    for a, b in sorted(intervals + measured):
        if reach > -math.inf and a > reach and gap_limit and a - reach > gap_limit:
            idle += a - reach
        reach = max(reach, b)
    return {
        "calls_without_batch": len(paired) - sum(widths),
        "batched_turns": len(batches),
        "multi_call_turns": sum(1 for w in widths if w >= 2),
        "turn_width_histogram": ":".join(map(str, histogram)),
        "max_turn_width": max(widths, default=0),
        "missed_batch_runs": len(counted),
        "missed_batch_calls": sum(len(run) for run in counted),
        "missed_batch_round_trips": sum(len(run) - 1 for run in counted),
        "missed_batch_upper_ms": upper,
        "lane_span_ms": float(max(times) - min(times)) if times else 0.0,
        "tool_busy_ms": busy,
        "idle_ms": idle,
        "calls_timed_by_execution": len(paired),
        "calls_timed_by_message": 0,
    }


@settings(max_examples=150)
@given(batched_lanes(), st.sampled_from([0, 5, 40, DEFAULT_IDLE_GAP_MS]))
def test_both_paths_equal_the_oracle(
    lane: tuple[list[dict[str, Any]], list[tuple[float, float]]], gap: float
) -> None:
    """On generated lanes (integer ms: every sum exact), the figures are the oracle's."""
    observations, turns = lane
    names = ["read", "grep"]
    summary = both_paths(observations, turn_intervals=turns, batchable_tool_names=names,
                         idle_gap_ms=gap)
    assert figures(summary) == oracle(observations, turns, names, gap)


@settings(max_examples=150)
@given(batched_lanes(), st.sampled_from([0, 5, 40]))
def test_invariants(
    lane: tuple[list[dict[str, Any]], list[tuple[float, float]]], gap: float
) -> None:
    """The relations section 9 implies between the figures hold on every lane."""
    observations, turns = lane
    s = both_paths(observations, turn_intervals=turns, idle_gap_ms=gap)
    assert s.multi_call_turns <= s.batched_turns
    assert s.missed_batch_round_trips == s.missed_batch_calls - s.missed_batch_runs
    assert s.missed_batch_calls <= s.batched_turns - s.multi_call_turns
    assert 2 * s.missed_batch_runs <= s.missed_batch_calls
    assert s.tool_busy_ms <= s.tool_time_ms
    assert s.tool_busy_ms <= s.lane_span_ms
    assert s.idle_ms <= s.lane_span_ms
    assert s.idle_ms + s.tool_busy_ms <= s.lane_span_ms
    assert s.calls_timed_by_execution + s.calls_timed_by_message == s.paired_calls
    assert s.calls_without_batch <= s.paired_calls
    assert s.max_turn_width <= s.paired_calls - s.calls_without_batch
    widths = [int(count) for count in s.turn_width_histogram.split(":")]
    assert sum(widths) == s.batched_turns
    assert (s.max_turn_width >= 2) == (s.multi_call_turns > 0)
    assert s.missed_batch_upper_ms >= 0


@settings(max_examples=80)
@given(st.lists(batched_lanes(), min_size=3, max_size=3))
def test_merging_lanes_by_the_table_is_associative_and_commutative(
    lanes: list[tuple[list[dict[str, Any]], list[tuple[float, float]]]],
) -> None:
    """Merged by the table's rules (sums, the histogram by position, the widest turn by
    maximum), three lanes give one result in any grouping and order: exactly for every
    count and text, and for the ms figures up to the rounding of float addition, which
    is not associative (a fractional ``upper_bound_saved_ms`` of 94.83333333333334 one
    way is 94.83333333333333 another)."""
    a, b, c = (both_paths(obs, turn_intervals=turns) for obs, turns in lanes)
    groupings = [(a + b) + c, a + (b + c), merge_summaries([c, b, a])]
    for field in attrs.fields(ParallelismSummary):
        first, *rest = (getattr(grouping, field.name) for grouping in groupings)
        name = field.name
        for other in rest:
            assert type(first) is type(other), name
            if isinstance(first, float):
                assert math.isclose(first, other, rel_tol=1e-12, abs_tol=1e-9), name
            else:
                assert first == other, name
    merged = merge_summaries([a, b, c])
    assert merged.max_turn_width == max(a.max_turn_width, b.max_turn_width, c.max_turn_width)
    rules = dict(FIGURE_MERGES)
    assert rules["max_turn_width"] is Merge.MAX
    assert rules["turn_width_histogram"] is Merge.HISTOGRAM
