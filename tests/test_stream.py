"""The streaming path gives exactly the batch path's figures (issue 6)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import CALL_IDS, TOOL_NAMES, caps, observation_streams
from wavemetrics.observations import Observation, ToolCall, WaveCounters
from wavemetrics.stream import LaneStream, StreamOrderError, SummaryAccumulator, summarize_stream
from wavemetrics.summary import summarize
from wavemetrics.waves import WaveAssembly, assemble_waves, wave_from_calls


def _batch(observations: list[Any], cap: int | None) -> Any:
    return summarize(assemble_waves(observations, max_tracked_calls=cap))


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
    streamed = summarize_stream(stream, max_tracked_calls=cap, flush_every=flush)
    assert streamed == _batch(stream, cap)


@settings(max_examples=300)
@given(stream=observation_streams, cap=caps)
def test_any_input_streams_exactly_or_says_it_cannot(stream: list[Any], cap: int | None) -> None:
    """For arbitrary arrival order the stream either equals the batch path or raises."""
    try:
        streamed = summarize_stream(stream, max_tracked_calls=cap, flush_every=1)
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
    """add_single(call) gives exactly what add(wave_from_calls([call])) gives."""
    call = ToolCall("a", name, float(start), float(start + length))
    general, single = SummaryAccumulator(), SummaryAccumulator()
    general.add(wave_from_calls([call]))
    single.add_single(call)
    counters = WaveCounters(observed_calls=1, paired_calls=1)
    assert single.result(counters) == general.result(counters)
