"""The streaming path gives exactly the batch path's figures."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import CALL_IDS, TOOL_NAMES, caps, observation_streams
from wavemetrics.core.observations import Observation, ToolCall, WaveCounters
from wavemetrics.core.stream import LaneStream, StreamOrderError, summarize_stream
from wavemetrics.core.summary import SummaryAccumulator, summarize
from wavemetrics.core.waves import WaveAssembly, assemble_waves, wave_from_calls


def _batch(observations: list[Any], cap: int | None) -> Any:
    return summarize(assemble_waves(observations, max_tracked_calls=cap))


def _stream(observations: list[Any], cap: int | None, flush_every: int) -> Any:
    lane = LaneStream(max_tracked_calls=cap, flush_every=flush_every)
    for item in observations:
        lane.feed(item)
    return lane.finish()


@st.composite
def start_ordered_streams(draw: st.DrawFn) -> list[Observation]:
    """Observations whose starts arrive in time order; ends arrive after their start.

    Includes repeated ids (duplicates, reuse), ends that never come (incomplete),
    ends stamped before their start (clock anomalies) and orphan ends.
    """
    specs = draw(st.lists(
        st.tuples(
            st.sampled_from(CALL_IDS), st.sampled_from(TOOL_NAMES),
            st.integers(0, 60), st.integers(-3, 15), st.integers(0, 20),
            st.sampled_from(("end", "end", "end", "none")),
        ),
        max_size=30,
    ))
    events: list[tuple[float, int, Observation]] = []
    for order, (call_id, name, start, length, delay, end_kind) in enumerate(specs):
        events.append((start, order, Observation("start", call_id, name, start)))
        if end_kind == "end":
            # arrives after its start (start + delay), stamped start + length
            events.append((start + delay + 0.5, order, Observation(
                "end", call_id, name, start + length)))
    if draw(st.booleans()):
        events.append((0, -1, Observation("end", "zzz", "read", 1)))  # orphan end
    events.sort(key=lambda e: (e[0], e[1]))
    return [obs for _, _, obs in events]


@settings(max_examples=300)
@given(stream=start_ordered_streams(), cap=caps, flush=st.sampled_from((1, 2, 64)))
def test_start_ordered_input_streams_with_batch_figures(
    stream: list[Observation], cap: int | None, flush: int
) -> None:
    """With starts in time order the streaming summary equals the batch one, bit for bit."""
    streamed = _stream(stream, cap, flush)
    assert streamed == _batch(stream, cap)


@settings(max_examples=300)
@given(stream=observation_streams, cap=caps)
def test_any_input_streams_exactly_or_says_it_cannot(stream: list[Any], cap: int | None) -> None:
    """For arbitrary arrival order the stream either equals the batch path or raises."""
    try:
        streamed = _stream(stream, cap, 1)
    except StreamOrderError:
        return
    assert streamed == _batch(stream, cap)


def test_late_start_before_an_emitted_wave_raises() -> None:
    """A call paired after a wave was emitted, starting inside it, raises StreamOrderError."""
    lane = LaneStream(flush_every=1)
    lane.start("a", "read", 0)
    lane.start("b", "read", 20)  # largest start so far: 20
    lane.end("a", 5)  # wave {a} reach 5 < min(pending 20, max start 20): emitted
    assert lane.emitted_reach == 5
    lane.end("b", 30)
    lane.start("c", "read", 5)  # stamped at the emitted reach: would join wave {a}
    with pytest.raises(StreamOrderError):
        lane.end("c", 6)


def test_pending_start_holds_back_later_waves() -> None:
    """A pending early start keeps every wave after it open: nothing is emitted."""
    lane = LaneStream(flush_every=1)
    lane.start("slow", "bash", 0)
    for index in range(5):
        lane.start(f"c{index}", "read", 10 * (index + 1))
        lane.end(f"c{index}", 10 * (index + 1) + 1)
    assert lane.emitted_reach == float("-inf")
    assert len(lane.open) == 5
    lane.end("slow", 100)  # joins everything: one wave of 6
    summary = lane.finish()
    # one wave of 6 calls: the fifth position (sizes 5-8)
    assert summary.non_eval_wave_size_histogram == "0:0:0:0:1:0:0:0"


def test_emitted_waves_free_the_open_region() -> None:
    """Sequential calls are emitted as they close: the open region stays small."""
    lane = LaneStream(flush_every=4, max_tracked_calls=None)
    for index in range(1000):
        lane.start(f"c{index}", "read", 10 * index)
        lane.end(f"c{index}", 10 * index + 5)
        assert len(lane.open) <= 8
    summary = lane.finish()
    assert summary.non_eval_waves_total == 1000
    assert summary.tool_time_ms == 5000.0  # 1000 calls of 5 ms


def test_accumulator_matches_summarize_on_mixed_and_eval_waves() -> None:
    """The accumulator gives summarize's figures for eval_only, mixed and non_eval waves."""
    waves = (
        wave_from_calls([ToolCall("a", "read", 0, 10), ToolCall("b", "grep", 2, 6)]),
        wave_from_calls([ToolCall("c", "eval", 20, 25)]),
        wave_from_calls([ToolCall("d", "eval", 30, 40), ToolCall("e", "read", 31, 33)]),
    )
    accumulator = SummaryAccumulator()
    for wave in waves:
        accumulator.add(wave)
        for call in wave.calls:  # what summarize gives the section-9 accumulator
            accumulator.activity.call(call.tool_name, call.start_ms, call.end_ms, call.batch)
    counters = WaveCounters(observed_calls=5, paired_calls=5)
    expected = summarize(WaveAssembly(waves, counters), measured_turn_duration_ms_total=7.0)
    assert accumulator.result(counters, 7.0) == expected
    # by hand: non_eval wave S = 10 + 4 = 14, span 10 -> modeled 4, upper 7;
    # eval_only span 5; mixed: 1 eval + 1 other
    assert (expected.modeled_wallclock_saved_ms, expected.upper_bound_saved_ms) == (4.0, 7.0)
    assert (expected.eval_only_duration_ms, expected.mixed_waves) == (5.0, 1)
    assert (expected.eval_outer_joined_calls, expected.mixed_non_eval_joined_calls) == (2, 1)


def test_accumulator_refuses_a_single_string_of_eval_names() -> None:
    """Like summarize, a str of eval names raises TypeError instead of using its letters."""
    with pytest.raises(TypeError):
        SummaryAccumulator("eval")


@given(start=st.integers(0, 10**6), length=st.integers(0, 10**4),
       name=st.sampled_from(TOOL_NAMES))
def test_single_call_shortcut_equals_the_general_wave(start: int, length: int, name: str) -> None:
    """add_single(name, start, end) gives exactly what add(wave_from_calls([call])) gives."""
    call = ToolCall("a", name, float(start), float(start + length))
    general, single = SummaryAccumulator(), SummaryAccumulator()
    general.add(wave_from_calls([call]))
    single.add_single(call.tool_name, call.start_ms, call.end_ms)
    counters = WaveCounters(observed_calls=1, paired_calls=1)
    assert single.result(counters) == general.result(counters)


def test_summarize_stream_uses_the_given_eval_names() -> None:
    """With read as the only eval name, a lone read call is an eval_only wave of 5 ms."""
    stream = [Observation("start", "a", "read", 0), Observation("end", "a", "read", 5)]
    summary = summarize_stream(stream, eval_tool_names=("read",))
    assert (summary.eval_only_waves, summary.non_eval_waves_total) == (1, 0)
    assert summary.eval_only_duration_ms == 5.0
    default = summarize_stream(stream)
    assert (default.eval_only_waves, default.non_eval_waves_total) == (0, 1)


def test_single_call_shortcut_uses_the_given_eval_names() -> None:
    """add_single classifies with the accumulator's own eval names, not the defaults."""
    accumulator = SummaryAccumulator(("grep",))
    accumulator.add_single("grep", 0.0, 3.0)
    accumulator.add_single("eval", 10.0, 12.0)
    summary = accumulator.result(WaveCounters(observed_calls=2, paired_calls=2))
    # grep is eval here (3 ms eval_only); eval is an ordinary tool (one non_eval wave)
    assert (summary.eval_only_waves, summary.eval_only_duration_ms) == (1, 3.0)
    assert (summary.non_eval_waves_total, summary.non_eval_wave_size_histogram) == (
        1, "1:0:0:0:0:0:0:0"
    )


def test_finish_carries_the_turn_total_and_checks_it() -> None:
    """finish(7.5) reports 7.5 ms of turns; no argument means 0.0; a negative total raises."""
    assert LaneStream().finish(7.5).measured_turn_duration_ms_total == 7.5
    assert LaneStream().finish().measured_turn_duration_ms_total == 0.0
    assert summarize_stream([], measured_turn_duration_ms_total=2.0).measured_turn_duration_ms_total == 2.0
    with pytest.raises(ValueError, match="must be finite and >= 0"):
        LaneStream().finish(-1.0)


def test_errors_say_what_went_wrong() -> None:
    """The order error names the late start; a str of eval names is refused by name."""
    lane = LaneStream(flush_every=1)
    lane.start("a", "read", 0)
    lane.start("b", "read", 20)
    lane.end("a", 5)
    lane.start("c", "read", 3)
    with pytest.raises(StreamOrderError, match="a call starting at 3 ms would join a wave"):
        lane.end("c", 4)
    with pytest.raises(TypeError, match="collection of names, not one str"):
        LaneStream(eval_tool_names="eval")


def test_emission_stops_at_the_first_wave_that_may_still_grow() -> None:
    """Waves before a still-open one are emitted once; the open one and later stay open."""
    lane = LaneStream(flush_every=1, max_tracked_calls=None)
    lane.start("a", "read", 0)
    lane.end("a", 1)  # wave {a}, reach 1
    lane.start("b", "read", 5)
    lane.start("c", "read", 10)  # pending: its start (10) bounds what may close
    lane.end("b", 30)  # wave {b} reaches 30 >= 10: it may still grow (c overlaps it)
    assert [call_id for *_, call_id, _ in lane.open] == ["b"]
    assert lane.emitted_reach == 1
    lane.end("c", 12)
    summary = lane.finish()
    # waves: {a} (1 ms) and {b, c}: S = 25 + 2 = 27, span 25 -> modeled 2, upper 13.5
    assert summary.non_eval_wave_size_histogram == "1:1:0:0:0:0:0:0"
    assert (summary.modeled_wallclock_saved_ms, summary.upper_bound_saved_ms) == (2.0, 13.5)
    assert summary.tool_time_ms == 28.0  # 1 + 25 + 2, counted once each


def test_defaults_are_no_turn_time_and_the_v1_cap() -> None:
    """summarize_stream and result() default to 0.0 turn ms; the cap reaches the stream."""
    assert summarize_stream([]).measured_turn_duration_ms_total == 0.0
    assert SummaryAccumulator().result(WaveCounters()).measured_turn_duration_ms_total == 0.0
    two = [Observation("start", "a", "read", 0), Observation("start", "b", "read", 1)]
    assert summarize_stream(two, max_tracked_calls=1).dropped_calls == 1
    assert summarize_stream(two).dropped_calls == 0  # default cap 2000


def test_a_wave_touching_a_pending_start_is_not_emitted() -> None:
    """A wave whose reach equals a pending start stays open: that call will join it."""
    lane = LaneStream(flush_every=1)
    lane.start("a", "read", 0)
    lane.start("b", "read", 5)  # pending, starts where a will end
    lane.end("a", 5)
    assert lane.emitted_reach == float("-inf")
    lane.end("b", 8)  # joins {a}: closed intervals touch
    summary = lane.finish()
    assert summary.non_eval_wave_size_histogram == "0:1:0:0:0:0:0:0"
    assert summary.modeled_wallclock_saved_ms == 0.0  # S = 5 + 3 = 8, span 8


def test_emit_keeps_the_blocked_wave_and_everything_after_it() -> None:
    """Emission stops at the first wave reaching the threshold; later calls stay open too."""
    lane = LaneStream()
    # open calls are (start, end, pairing sequence, call id, tool name)
    first, blocked, later = (0.0, 1.0, 1, "a", "read"), (5.0, 30.0, 2, "b", "read"), (
        40.0, 41.0, 3, "d", "read")
    lane.open = [later, first, blocked]  # any order: the emission sorts
    lane._emit(10.0)  # wave {a} reaches 1 < 10; wave {b} reaches 30 >= 10
    assert lane.open == [blocked, later]
    assert lane.emitted_reach == 1.0
    assert lane.summary.non_eval_waves_total == 1


def test_a_complete_wave_reaching_the_threshold_exactly_stays_open() -> None:
    """Before a later call, a wave whose reach equals a pending start is still not emitted."""
    lane = LaneStream(flush_every=1)
    lane.start("a", "read", 0)
    lane.start("b", "read", 5)  # pending, touches a's end
    lane.end("a", 5)
    lane.start("d", "grep", 8)
    lane.end("d", 9)  # open {a}, {d}: {a} reaches 5 == the pending start, so it waits
    assert lane.emitted_reach == float("-inf")
    lane.end("b", 7)  # joins {a}
    summary = lane.finish()
    # waves {a, b} (S = 5 + 2 = 7, span 7: saving 0) and {d}
    assert summary.non_eval_wave_size_histogram == "1:1:0:0:0:0:0:0"
    assert summary.modeled_wallclock_saved_ms == 0.0


def test_equal_starts_with_fractional_durations_sum_in_batch_order() -> None:
    """Calls a, b, c start at 0 ms and end at 0.3, 0.2, 0.1 ms (ends arrive in that order):
    the open region is sorted by (start, end), so the stream sums c, b, a like the batch.

    By hand: 0.1 + 0.2 = 0.30000000000000004, + 0.3 = 0.6000000000000001 (tool time);
    upper bound (3 - 1) * (0.6000000000000001 / 3) = 0.4000000000000001. Pairing order
    (a, b, c) would give 0.3 + 0.2 + 0.1 = 0.6 and 0.39999999999999997.
    """
    observations = [Observation("start", c, "read", 0.0) for c in "abc"] + [
        Observation("end", "a", "read", 0.3), Observation("end", "b", "read", 0.2),
        Observation("end", "c", "read", 0.1),
    ]
    batch = summarize(assemble_waves(observations))
    streamed = summarize_stream(observations)
    assert (batch.tool_time_ms, batch.upper_bound_saved_ms) == (
        0.6000000000000001, 0.4000000000000001)
    assert (streamed.tool_time_ms, streamed.upper_bound_saved_ms) == (
        0.6000000000000001, 0.4000000000000001)
    assert streamed == batch
