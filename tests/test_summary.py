"""The bucket summary, the v1 event and merging (``docs/metrics.md`` sections 5, 6, 8)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import PurePosixPath

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import (
    exact_sessions,
    fullwidth,
    non_eval_spellings,
    oracle_bucket,
    oracle_is_eval,
    summaries,
    tool_name_spellings,
    wave_lists,
)
from wavemetrics.core.activity import ACTIVITY_FIGURES
from wavemetrics.core.observations import Observation, ToolCall, WaveCounters
from wavemetrics.core.summary import ParallelismSummary, merge_summaries, summarize, to_event
from wavemetrics.core.turns import measured_turn_duration_ms
from wavemetrics.core.waves import Wave, WaveAssembly, assemble_waves, group_waves, wave_from_calls

#: The 16 v1 keys of section 6, in contract order.
V1_KEYS = [
    "$session_id", "clock_anomalies", "dropped_calls", "eval_only_duration_ms",
    "eval_only_waves", "incomplete_calls", "measured_turn_duration_ms_total", "mixed_waves",
    "modeled_wallclock_saved_ms", "non_eval_joined_calls", "non_eval_saved_round_trips",
    "non_eval_wave_size_histogram", "non_eval_waves_multi", "non_eval_waves_total",
    "schema_kind", "upper_bound_saved_ms",
]
#: Figures of the non_eval bucket (section 5), which no eval call may ever touch.
NON_EVAL_FIGURES = (
    "modeled_wallclock_saved_ms", "upper_bound_saved_ms", "non_eval_joined_calls",
    "non_eval_saved_round_trips", "non_eval_wave_size_histogram", "non_eval_waves_multi",
    "non_eval_waves_total",
)
#: Every attribute of a summary: the 14 v1 figures then the 8 extras.
ALL_FIELDS = (
    "clock_anomalies", "dropped_calls", "eval_only_duration_ms", "eval_only_waves",
    "incomplete_calls", "measured_turn_duration_ms_total", "mixed_waves",
    "modeled_wallclock_saved_ms", "non_eval_joined_calls", "non_eval_saved_round_trips",
    "non_eval_wave_size_histogram", "non_eval_waves_multi", "non_eval_waves_total",
    "upper_bound_saved_ms", "observed_calls", "paired_calls", "malformed_observations",
    "duplicate_starts", "orphan_ends", "eval_outer_joined_calls", "mixed_non_eval_joined_calls",
    "tool_time_ms", "calls_without_batch", "batched_turns", "multi_call_turns",
    "turn_width_histogram", "max_turn_width", "missed_batch_runs", "missed_batch_calls",
    "missed_batch_round_trips", "missed_batch_upper_ms", "lane_span_ms", "tool_busy_ms",
    "idle_ms", "calls_timed_by_execution", "calls_timed_by_message",
)


def exactly(message: str) -> str:
    return "^" + re.escape(message) + "$"


def call(call_id: str, name: str, start_ms: float, end_ms: float) -> ToolCall:
    return ToolCall(call_id, name, start_ms, end_ms)


def assembly(waves: Sequence[Wave], counters: WaveCounters | None = None) -> WaveAssembly:
    return WaveAssembly(tuple(waves), counters or WaveCounters())


def non_eval_figures(summary: ParallelismSummary) -> dict[str, object]:
    return {name: getattr(summary, name) for name in NON_EVAL_FIGURES}


# Five waves, one of each kind of interest (hand-checked figures in the tests below).
W1 = [call("a1", "read", 0, 10), call("a2", "grep", 2, 6)]  # non_eval, size 2, peak 2
W2 = [call("b1", "eval", 20, 25), call("b2", "mcp:eval", 21, 30)]  # eval_only, span 10
W3 = [call("c1", "read", 40, 50), call("c2", "bash", 41, 49), call("c3", "eval", 42, 43)]  # mixed
W4 = [call("d1", "bash", 60, 61)]  # non_eval, size 1
W5 = [  # non_eval, size 5, span 8, peak 4 (at t=102: e1, e2, e3, e4)
    call("e1", "read", 100, 104), call("e2", "Read", 100, 104), call("e3", "grep", 101, 103),
    call("e4", "web-fetch", 102, 108), call("e5", "mcp:search", 104, 105),
]
COUNTERS = WaveCounters(
    observed_calls=20, paired_calls=15, incomplete_calls=1, clock_anomalies=2, dropped_calls=1,
    malformed_observations=4, duplicate_starts=1, orphan_ends=3,
)
# W1: S = 14, span 10 -> modeled 4, upper 1 * 14/2 = 7, round trips 1
# W4: n = 1 -> 0, 0, round trips 0
# W5: S = 4+4+2+6+1 = 17, span 8 -> modeled 9, upper 4 * (17/5), round trips 3
EXAMPLE = ParallelismSummary(
    clock_anomalies=2,
    dropped_calls=1,
    eval_only_duration_ms=10.0,  # W2 span 30 - 20
    eval_only_waves=1,
    incomplete_calls=1,
    measured_turn_duration_ms_total=123.5,
    mixed_waves=1,
    modeled_wallclock_saved_ms=13.0,  # 0 + 4 + 0 + 9
    non_eval_joined_calls=8,  # 2 + 1 + 5
    non_eval_saved_round_trips=4,  # 1 + 0 + 3
    non_eval_wave_size_histogram="1:1:0:0:1:0:0:0",  # sizes 2, 1, 5
    non_eval_waves_multi=2,
    non_eval_waves_total=3,
    upper_bound_saved_ms=(0.0 + 7.0 + 0.0) + 4 * (17 / 5),
    observed_calls=20,
    paired_calls=15,
    malformed_observations=4,
    duplicate_starts=1,
    orphan_ends=3,
    eval_outer_joined_calls=3,  # W2's 2 + W3's eval
    mixed_non_eval_joined_calls=2,  # W3's read and bash
    tool_time_ms=65.0,  # W1 14 + W2 14 + W3 19 + W4 1 + W5 17
    # section 9: an assembly without its pairing-order calls gives the waves' 13 calls,
    # none with a batch key
    calls_without_batch=13,  # 2 + 2 + 3 + 1 + 5
    lane_span_ms=108.0,  # W1's start 0 to W5's last end 108
    tool_busy_ms=39.0,  # wave spans 10 + 10 + 10 + 1 + 8
    calls_timed_by_execution=13,  # the default provenance
)


def example_summary() -> ParallelismSummary:
    waves = group_waves([*W5, *W3, *W1, *W4, *W2])
    return summarize(assembly(waves, COUNTERS), measured_turn_duration_ms_total=123.5)


# --------------------------------------------------------------------- summarize


def test_worked_example_with_every_bucket() -> None:
    """A non_eval, eval_only, mixed and two more non_eval waves give the hand-computed summary."""
    assert example_summary() == EXAMPLE


def test_nothing_summarises_to_the_identity() -> None:
    """No waves and no counters: the all-zero summary (turn total defaults to 0.0)."""
    summary = summarize(assembly([]))
    assert summary == ParallelismSummary()
    assert summary.non_eval_wave_size_histogram == "0:0:0:0:0:0:0:0"


def test_counters_pass_through_without_waves() -> None:
    """Quality counters are copied from the assembly even when there are no waves."""
    summary = summarize(assembly([], COUNTERS))
    assert summary == attrs.evolve(
        ParallelismSummary(), observed_calls=20, paired_calls=15, incomplete_calls=1,
        clock_anomalies=2, dropped_calls=1, malformed_observations=4, duplicate_starts=1,
        orphan_ends=3,
    )


def test_mixed_wave_never_leaks_into_non_eval() -> None:
    """A mixed wave whose non-eval calls overlap adds nothing to any non_eval figure."""
    summary = summarize(assembly(group_waves(W3)))
    # durations 10 + 8 + 1 = 19 (tool time is an extra over every wave)
    assert summary == ParallelismSummary(
        mixed_waves=1, eval_outer_joined_calls=1, mixed_non_eval_joined_calls=2, tool_time_ms=19.0,
        # section 9: three calls without batch over 40..50, one wave of span 10
        calls_without_batch=3, lane_span_ms=10.0, tool_busy_ms=10.0, calls_timed_by_execution=3,
    )


def test_eval_only_wave_counts_span_and_calls() -> None:
    """An eval_only wave adds its span and all its calls to the eval figures only."""
    summary = summarize(assembly(group_waves(W2)))
    assert summary == ParallelismSummary(
        eval_only_waves=1, eval_only_duration_ms=10.0, eval_outer_joined_calls=2, tool_time_ms=14.0,
        calls_without_batch=2, lane_span_ms=10.0, tool_busy_ms=10.0, calls_timed_by_execution=2,
    )


def test_eval_only_duration_skips_non_finite_spans() -> None:
    """An eval_only wave with a non-finite span adds 0 to the duration but still counts."""
    one = (call("x", "eval", 0, 1),)
    waves = [Wave(one, math.inf, 1), Wave(one, math.nan, 1), Wave(one, 5.0, 1)]
    summary = summarize(assembly(waves))
    assert summary.eval_only_waves == 3
    assert summary.eval_only_duration_ms == 5.0
    assert summary.eval_outer_joined_calls == 3


def test_empty_wave_is_non_eval_without_a_histogram_entry() -> None:
    """An empty wave counts as a non_eval wave of size 0, outside the histogram."""
    summary = summarize(assembly([Wave((), 0.0, 0)]))
    assert summary == ParallelismSummary(non_eval_waves_total=1)
    assert summary.to_event("s") is not None


def test_single_call_waves_fill_the_first_position() -> None:
    """Two one-call waves: position 0 counts 2, none is multi."""
    summary = summarize(assembly(group_waves([*W4, call("z", "read", 70, 80)])))
    assert summary.non_eval_wave_size_histogram == "2:0:0:0:0:0:0:0"
    assert (summary.non_eval_waves_total, summary.non_eval_waves_multi) == (2, 0)
    assert summary.non_eval_joined_calls == 2


def test_full_cap_of_single_call_waves() -> None:
    """2001 sequential calls at the default cap: 2000 one-call waves, one dropped call."""
    stream = []
    for i in range(2001):
        stream += [Observation("start", f"c{i}", "read", 2 * i),
                   Observation("end", f"c{i}", "read", 2 * i + 1)]
    summary = summarize(assemble_waves(stream))
    assert summary.non_eval_wave_size_histogram == "2000:0:0:0:0:0:0:0"
    assert (summary.dropped_calls, summary.orphan_ends, summary.paired_calls) == (1, 1, 2000)


def test_wave_sums_are_naive_in_wave_order() -> None:
    """Within a wave, S is summed in wave (sorted) order, not arrival order."""
    arrivals = [call("c3", "read", 0, 0.3), call("c2", "read", 0, 0.2), call("c1", "read", 0, 0.1)]
    summary = summarize(assembly(group_waves(arrivals)))
    s = (0.1 + 0.2) + 0.3  # 0.6000000000000001, while arrival order gives exactly 0.6
    assert summary.tool_time_ms == s
    assert summary.modeled_wallclock_saved_ms == s - 0.3
    assert summary.modeled_wallclock_saved_ms != ((0.3 + 0.2) + 0.1) - 0.3
    assert summary.upper_bound_saved_ms == 2 * (s / 3)


def test_sums_over_waves_are_naive() -> None:
    """Modeled, upper and eval_only sums over waves are naive left-to-right float sums."""
    def pair(span: float, length: float) -> Wave:
        # S = length + 0; modeled = length - span; upper = length / 2
        return Wave((call("a", "read", 0, length), call("b", "read", 0, 0)), span, 2)

    # length 2x and span x: modeled = 2x - x = x and upper = 2x / 2 = x, both exact
    waves = [pair(0.1, 0.2), pair(0.2, 0.4), pair(0.3, 0.6)]
    summary = summarize(assembly(waves))
    assert summary.modeled_wallclock_saved_ms == (0.1 + 0.2) + 0.3
    assert summary.upper_bound_saved_ms == (0.1 + 0.2) + 0.3
    assert summary.modeled_wallclock_saved_ms != math.fsum([0.1, 0.2, 0.3])
    assert summary.tool_time_ms == ((((0.2 + 0) + 0.4) + 0) + 0.6) + 0

    evals = [Wave((call("e", "eval", 0, 1),), span, 1) for span in (0.1, 0.2, 0.3)]
    assert summarize(assembly(evals)).eval_only_duration_ms == (0.1 + 0.2) + 0.3


def test_custom_eval_names_decide_the_buckets() -> None:
    """With custom eval names, the defaults are ordinary tools and the custom names are eval."""
    waves = group_waves([
        call("a", "eval", 0, 4), call("b", "read", 1, 3),  # non_eval under the custom list
        call("c", "Run-Python", 10, 12),  # eval_only
        # mixed: two custom eval calls and "read" (by the defaults it would have no eval call)
        call("d", "mcp:run-python", 20, 25), call("e", "read", 21, 22),
        call("f", "run_python", 22, 24),
    ])
    expected = ParallelismSummary(
        eval_only_duration_ms=2.0, eval_only_waves=1, mixed_waves=1,
        modeled_wallclock_saved_ms=2.0,  # S = 4 + 2, span 4
        non_eval_joined_calls=2, non_eval_saved_round_trips=1,
        non_eval_wave_size_histogram="0:1:0:0:0:0:0:0", non_eval_waves_multi=1,
        non_eval_waves_total=1, upper_bound_saved_ms=3.0,  # 1 * 6 / 2
        eval_outer_joined_calls=3,  # c, plus d and f of the mixed wave
        mixed_non_eval_joined_calls=1,  # e
        tool_time_ms=16.0,  # 4 + 2 + 2 + 5 + 1 + 2
        calls_without_batch=6,
        lane_span_ms=25.0,  # 0 to 25
        tool_busy_ms=11.0,  # waves [0, 4], [10, 12], [20, 25]
        calls_timed_by_execution=6,
    )
    assert summarize(assembly(waves), eval_tool_names=["run_python"]) == expected
    once = (name for name in ["run_python"])  # a one-shot iterable serves every wave
    assert summarize(assembly(waves), eval_tool_names=once) == expected


def test_one_str_of_eval_names_raises() -> None:
    """``eval_tool_names="eval"`` raises TypeError instead of using the letters e, v, a, l."""
    message = exactly("eval_tool_names is a collection of names, not one str")
    with pytest.raises(TypeError, match=message):
        summarize(assembly(group_waves(W1)), eval_tool_names="eval")
    with pytest.raises(TypeError, match=message):
        summarize(assembly([]), eval_tool_names="eval")


def test_turn_total_is_passed_through_as_float() -> None:
    """``measured_turn_duration_ms_total`` is copied as a float; 0 and fractions are fine."""
    summary = summarize(assembly([]), measured_turn_duration_ms_total=5)
    total = summary.measured_turn_duration_ms_total
    assert total == 5.0
    assert isinstance(total, float)
    for total in (0, 0.0, 0.5):
        summary = summarize(assembly([]), measured_turn_duration_ms_total=total)
        assert summary.measured_turn_duration_ms_total == total


@pytest.mark.parametrize("total", [-1, -0.5, math.inf, -math.inf, math.nan])
def test_turn_total_must_be_finite_and_non_negative(total: float) -> None:
    """A negative or non-finite turn total raises ValueError."""
    message = exactly("measured_turn_duration_ms_total must be finite and >= 0")
    with pytest.raises(ValueError, match=message):
        summarize(assembly([]), measured_turn_duration_ms_total=total)


def test_waves_total_counts_every_bucket() -> None:
    """``waves_total`` is non_eval + eval_only + mixed waves."""
    assert EXAMPLE.waves_total == 5
    summary = ParallelismSummary(non_eval_waves_total=2, eval_only_waves=3, mixed_waves=4)
    assert summary.waves_total == 9


def test_as_dict_lists_every_attribute_in_order() -> None:
    """``as_dict`` gives the v1 figures then the extras, by name."""
    as_dict = EXAMPLE.as_dict()
    assert list(as_dict) == list(ALL_FIELDS)
    assert as_dict == {name: getattr(EXAMPLE, name) for name in ALL_FIELDS}
    assert as_dict["non_eval_wave_size_histogram"] == "1:1:0:0:1:0:0:0"


# ---------------------------------------------------------------------- to_event


def test_event_has_the_16_keys_in_contract_order() -> None:
    """The event holds exactly the 16 v1 keys, in section 6 order, with their values."""
    event = to_event(EXAMPLE, "abc123")
    assert event is not None
    assert list(event) == V1_KEYS
    assert event == {
        "$session_id": "abc123",
        "clock_anomalies": 2,
        "dropped_calls": 1,
        "eval_only_duration_ms": 10.0,
        "eval_only_waves": 1,
        "incomplete_calls": 1,
        "measured_turn_duration_ms_total": 123.5,
        "mixed_waves": 1,
        "modeled_wallclock_saved_ms": 13.0,
        "non_eval_joined_calls": 8,
        "non_eval_saved_round_trips": 4,
        "non_eval_wave_size_histogram": "1:1:0:0:1:0:0:0",
        "non_eval_waves_multi": 2,
        "non_eval_waves_total": 3,
        "schema_kind": "parallelism_v1",
        "upper_bound_saved_ms": (0.0 + 7.0 + 0.0) + 4 * (17 / 5),
    }


def test_event_method_equals_the_function() -> None:
    """``summary.to_event(h)`` is ``to_event(summary, h)``."""
    assert EXAMPLE.to_event("h") == to_event(EXAMPLE, "h")
    assert EXAMPLE.to_event("other")["$session_id"] == "other"  # type: ignore[index]


def test_no_event_for_zero_waves_even_with_counters() -> None:
    """Quality counters alone never produce an event."""
    assert summarize(assembly([], COUNTERS)).to_event("h") is None
    assert to_event(ParallelismSummary(dropped_calls=5, incomplete_calls=2), "h") is None
    assert to_event(ParallelismSummary(), "h") is None


@pytest.mark.parametrize(
    "summary",
    [ParallelismSummary(non_eval_waves_total=1), ParallelismSummary(eval_only_waves=1),
     ParallelismSummary(mixed_waves=1)],
)
def test_one_wave_of_any_bucket_makes_an_event(summary: ParallelismSummary) -> None:
    """A single wave of any bucket produces an event."""
    event = to_event(summary, "h")
    assert event is not None
    assert event["schema_kind"] == "parallelism_v1"


def test_extras_never_reach_the_event() -> None:
    """No wavemetrics extra is on the v1 payload."""
    event = to_event(EXAMPLE, "h")
    assert event is not None
    assert set(event).isdisjoint(ALL_FIELDS[14:])


@pytest.mark.parametrize("session_hash", [None, 5, b"abc"])
def test_session_hash_must_be_a_str(session_hash: object) -> None:
    """A non-str session hash raises TypeError, with or without waves."""
    for summary in (EXAMPLE, ParallelismSummary()):
        with pytest.raises(TypeError, match=exactly("session_hash must be a str")):
            to_event(summary, session_hash)  # type: ignore[arg-type]


# ------------------------------------------------------------------------- merge

FLOAT_FIELDS = (
    "eval_only_duration_ms", "measured_turn_duration_ms_total", "modeled_wallclock_saved_ms",
    "upper_bound_saved_ms", "tool_time_ms", "missed_batch_upper_ms", "lane_span_ms",
    "tool_busy_ms", "idle_ms",
)
HISTOGRAMS = ("non_eval_wave_size_histogram", "turn_width_histogram")
NUMBERED = [(i + 1, name) for i, name in enumerate(ALL_FIELDS) if name not in HISTOGRAMS]
# A: field number k as k (counts) or 1.5 * k (durations); B: 100 * k everywhere.
A_VALUES = {name: 1.5 * k if name in FLOAT_FIELDS else k for k, name in NUMBERED}
A = ParallelismSummary(
    **A_VALUES,  # type: ignore[arg-type]
    non_eval_wave_size_histogram="1:0:2:0:3:0:4:9",
    turn_width_histogram="0:1:0:0:0:0:0:2",
)
B = ParallelismSummary(
    **{name: 100 * k for k, name in NUMBERED},  # type: ignore[arg-type]
    non_eval_wave_size_histogram="10:20:30:40:50:60:70:80",
    turn_width_histogram="5:0:0:0:0:0:0:0",
)


def test_plus_adds_every_field() -> None:
    """``a + b`` adds counters and sums field by field and histograms position by position;
    the widest turn is the larger of the two (section 9)."""
    merged = A + B
    for k, name in NUMBERED:
        if name == "max_turn_width":
            assert merged.max_turn_width == 100 * k  # max(k, 100 k)
            continue
        expected = (1.5 * k if name in FLOAT_FIELDS else k) + 100 * k
        assert getattr(merged, name) == expected, name
    assert merged.non_eval_wave_size_histogram == "11:20:32:40:53:60:74:89"
    assert merged.turn_width_histogram == "5:1:0:0:0:0:0:2"
    assert (B + A).max_turn_width == merged.max_turn_width
    assert A.tool_time_ms == 22 * 1.5
    assert merged.clock_anomalies == 1 + 100


def test_plus_with_something_else_is_not_implemented() -> None:
    """Adding a non-summary raises TypeError (``__add__`` returns NotImplemented)."""
    assert A.__add__(1) is NotImplemented
    with pytest.raises(TypeError):
        A + 1  # type: ignore[operator]


def test_merge_summaries() -> None:
    """Merging none gives the identity, one gives itself, several add left to right."""
    assert merge_summaries([]) == ParallelismSummary()
    assert merge_summaries([A]) == A
    assert merge_summaries(iter([A, B, EXAMPLE])) == (A + B) + EXAMPLE
    assert A + ParallelismSummary() == A
    assert ParallelismSummary() + A == A


def test_merge_summaries_counts_a_repeated_histogram_once_per_summary() -> None:
    """Three copies of a summary merge to three times its figures, histogram included."""
    merged = merge_summaries([A, A, A])
    assert merged == (A + A) + A
    assert merged.non_eval_wave_size_histogram == "3:0:6:0:9:0:12:27"  # 3 x "1:0:2:0:3:0:4:9"
    assert merged.turn_width_histogram == "0:3:0:0:0:0:0:6"  # 3 x "0:1:0:0:0:0:0:2"
    assert merged.max_turn_width == A.max_turn_width  # max(k, k, k)
    assert merged.dropped_calls == 6  # 3 x 2 (A's field 2)
    assert merged.tool_time_ms == 3 * A.tool_time_ms


def test_merge_summaries_folds_a_max_figure_as_merge_two(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A figure merged by ``max`` keeps the largest value, as ``a + b`` does (one more
    than today's ``max_turn_width``, so the fold is seen on a figure whose values differ)."""
    import wavemetrics.core.summary as summary_module
    from wavemetrics.core.schema import FIGURE_MERGES, Merge

    rules = tuple((name, Merge.MAX if name == "dropped_calls" else rule)
                  for name, rule in FIGURE_MERGES)
    monkeypatch.setattr(summary_module, "FIGURE_MERGES", rules)
    merged = merge_summaries([A, B, EXAMPLE])
    assert merged.dropped_calls == 200  # max(2, 200, 1): B's 100 x 2
    assert merged.clock_anomalies == 1 + 100 + 2  # still a sum: A's 1, B's 100, EXAMPLE's 2
    assert merged == (A + B) + EXAMPLE


# -------------------------------------------------------------------- properties


@given(summaries(), summaries(), summaries())
def test_merge_is_associative(a: ParallelismSummary, b: ParallelismSummary,
                              c: ParallelismSummary) -> None:
    """``(a + b) + c == a + (b + c)`` (integer-valued floats: every sum is exact)."""
    assert (a + b) + c == a + (b + c)


@given(summaries(floats=lambda: st.floats(allow_nan=False, allow_infinity=False)), st.data())
def test_merge_is_commutative(a: ParallelismSummary, data: st.DataObject) -> None:
    """``a + b == b + a``, exactly even for arbitrary floats (IEEE addition commutes)."""
    b = data.draw(summaries(floats=lambda: st.floats(allow_nan=False, allow_infinity=False)))
    assert a + b == b + a


@given(summaries(floats=lambda: st.floats(allow_nan=False, allow_infinity=False)))
def test_empty_summary_is_the_identity(a: ParallelismSummary) -> None:
    """``a + ParallelismSummary() == ParallelismSummary() + a == a``."""
    assert a + ParallelismSummary() == a
    assert ParallelismSummary() + a == a
    assert merge_summaries([a]) == a


def _add_counters(counters: Sequence[WaveCounters]) -> WaveCounters:
    fields = [f.name for f in attrs.fields(WaveCounters)]
    return WaveCounters(**{name: sum(getattr(c, name) for c in counters) for name in fields})


def _summarize_session(session: tuple[list[object], list[tuple[str, float]]]
                       ) -> tuple[WaveAssembly, float, ParallelismSummary]:
    stream, turns = session
    lane = assemble_waves(stream)
    turn_total = measured_turn_duration_ms(turns)
    return lane, turn_total, summarize(lane, measured_turn_duration_ms_total=turn_total)


@settings(max_examples=60)
@given(st.lists(exact_sessions(), max_size=4))
def test_summary_of_sessions_equals_merge_of_their_summaries(
    sessions: list[tuple[list[object], list[tuple[str, float]]]],
) -> None:
    """Summarising the union of sessions' waves equals merging their summaries, in any order.

    For the figures of sections 1 to 8: the section-9 figures are per lane (a span, a
    gap, a batch order do not survive pooling two lanes' calls), and their merge is
    the table's rule (``test_schema``)."""
    parts = [_summarize_session(session) for session in sessions]
    union = WaveAssembly(
        tuple(wave for lane, _, _ in parts for wave in lane.waves),
        _add_counters([lane.counters for lane, _, _ in parts]),
    )
    turn_total = sum(total for _, total, _ in parts)
    expected = _wave_figures(summarize(union, measured_turn_duration_ms_total=turn_total))
    assert _wave_figures(merge_summaries(summary for _, _, summary in parts)) == expected
    assert _wave_figures(merge_summaries(summary for _, _, summary in reversed(parts))) == expected


def _wave_figures(summary: ParallelismSummary) -> dict[str, object]:
    return {k: v for k, v in summary.as_dict().items() if k not in ACTIVITY_FIGURES}


@given(wave_lists(names=non_eval_spellings, max_waves=5), st.data())
def test_an_eval_call_moves_its_wave_out_of_every_non_eval_figure(
    waves: list[Wave], data: st.DataObject
) -> None:
    """Adding one eval call to a non_eval wave removes that whole wave from the non_eval figures."""
    if not waves:
        waves = [wave_from_calls([call("only", "read", 0, 3)])]
    index = data.draw(st.integers(0, len(waves) - 1))
    target = waves[index]
    lo = min(c.start_ms for c in target.calls)
    hi = max(c.end_ms for c in target.calls)
    at = data.draw(st.integers(int(lo), int(hi)))
    eval_call = call("x-eval", data.draw(st.sampled_from(["eval", "mcp:eval", " Code-Mode"])),
                     at, at + data.draw(st.integers(0, int(hi - at))))
    polluted_wave = wave_from_calls(sorted([*target.calls, eval_call],
                                           key=lambda c: (c.start_ms, c.end_ms)))
    polluted = summarize(assembly([*waves[:index], polluted_wave, *waves[index + 1:]]))
    without = summarize(assembly([*waves[:index], *waves[index + 1:]]))
    before = summarize(assembly(waves))
    assert before.non_eval_waves_total == len(waves)
    assert non_eval_figures(polluted) == non_eval_figures(without)
    assert polluted.mixed_waves == 1
    assert polluted.mixed_non_eval_joined_calls == target.size
    assert polluted.eval_outer_joined_calls == 1
    assert polluted.non_eval_joined_calls == before.non_eval_joined_calls - target.size


@given(wave_lists(names=tool_name_spellings))
def test_non_eval_figures_ignore_eval_and_mixed_waves(waves: list[Wave]) -> None:
    """The non_eval figures of a polluted set of waves equal those of its non_eval waves alone."""
    buckets = [oracle_bucket([c.tool_name for c in w.calls]) for w in waves]
    clean = [w for w, bucket in zip(waves, buckets, strict=True) if bucket == "non_eval"]
    summary = summarize(assembly(waves))
    assert non_eval_figures(summary) == non_eval_figures(summarize(assembly(clean)))
    assert summary.eval_only_waves == buckets.count("eval_only")
    assert summary.mixed_waves == buckets.count("mixed")
    assert summary.waves_total == len(waves)
    mixed_calls = [c for w, bucket in zip(waves, buckets, strict=True) if bucket == "mixed"
                   for c in w.calls]
    mixed_evals = sum(1 for c in mixed_calls if oracle_is_eval(c.tool_name))
    assert summary.mixed_non_eval_joined_calls == len(mixed_calls) - mixed_evals
    eval_only_calls = sum(w.size for w, b in zip(waves, buckets, strict=True) if b == "eval_only")
    assert summary.eval_outer_joined_calls == eval_only_calls + mixed_evals


@given(wave_lists(names=tool_name_spellings), st.integers(0, 3), st.data())
def test_histogram_counts_the_non_empty_non_eval_waves(
    waves: list[Wave], empties: int, data: st.DataObject
) -> None:
    """Histogram positions sum to the number of non-empty non_eval waves."""
    waves = list(waves)
    for _ in range(empties):
        waves.insert(data.draw(st.integers(0, len(waves))), Wave((), 0.0, 0))
    summary = summarize(assembly(waves))
    counts = [int(part) for part in summary.non_eval_wave_size_histogram.split(":")]
    non_eval = [w for w in waves if oracle_bucket([c.tool_name for c in w.calls]) == "non_eval"]
    assert sum(counts) == sum(1 for w in non_eval if w.size > 0)
    assert summary.non_eval_waves_total == len(non_eval)
    assert summary.non_eval_waves_multi == sum(1 for w in non_eval if w.size > 1)
    assert summary.non_eval_joined_calls == sum(w.size for w in non_eval)


def test_fullwidth_eval_is_an_ordinary_tool_in_the_summary() -> None:
    """A wave of fullwidth ``eval`` calls is non_eval and is scored."""
    waves = group_waves([call("a", fullwidth("eval"), 0, 4), call("b", fullwidth("Eval"), 1, 3)])
    summary = summarize(assembly(waves))
    assert (summary.non_eval_waves_total, summary.eval_only_waves) == (1, 0)
    # S = 4 + 2 = 6, span 4 -> modeled 2, upper 3
    assert (summary.modeled_wallclock_saved_ms, summary.upper_bound_saved_ms) == (2.0, 3.0)


def test_turn_total_that_is_a_bool_is_refused() -> None:
    """True is not a duration: summarize raises ValueError instead of recording 1.0 ms."""
    empty = WaveAssembly((), WaveCounters())
    with pytest.raises(ValueError, match="must be finite and >= 0"):
        summarize(empty, measured_turn_duration_ms_total=True)


@pytest.mark.parametrize("path", ["rollout.jsonl", PurePosixPath("rollout.jsonl")])
def test_summarize_given_a_path_names_summarize_paths(path: object) -> None:
    """A trace file's path (str or os.PathLike) given to summarize raises a TypeError
    that says what summarize takes and names the call that reads trace files."""
    with pytest.raises(TypeError, match=exactly(
        "summarize() takes a WaveAssembly (from assemble_waves), not the path"
        " 'rollout.jsonl': to summarize trace files, call"
        " wavemetrics.summarize_paths('rollout.jsonl')"
    )):
        summarize(path)  # type: ignore[arg-type]
