"""Waves over closed intervals, span and peak concurrency (``docs/metrics.md`` section 2)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from pathlib import PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import (
    any_ms,
    caps,
    connected_calls,
    distinct_complete_calls,
    observation_streams,
    observations_of,
)
from wavemetrics.core.observations import Observation, ToolCall, WaveCounters, pair_observations
from wavemetrics.core.summary import summarize
from wavemetrics.core.waves import (
    Wave,
    WaveAssembly,
    assemble_waves,
    group_waves,
    peak_concurrency,
    wave_from_calls,
    wave_span_ms,
)


def call(call_id: str, start_ms: float, end_ms: float, name: str = "read") -> ToolCall:
    return ToolCall(call_id, name, start_ms, end_ms)


def shape(waves: Sequence[Wave]) -> list[list[str]]:
    """Call ids per wave, in wave order."""
    return [[c.call_id for c in wave.calls] for wave in waves]


# ---------------------------------------------------------------------- grouping


def test_no_calls_no_waves() -> None:
    """Grouping nothing gives no waves."""
    assert group_waves([]) == ()


def test_single_call_is_one_wave() -> None:
    """One call: a wave of size 1, span = its duration, peak 1."""
    assert group_waves([call("a", 2, 7)]) == (Wave((call("a", 2, 7),), 5, 1),)


def test_overlapping_calls_share_a_wave() -> None:
    """Overlapping calls form one wave whose span runs from first start to last end."""
    waves = group_waves([call("a", 0, 10), call("b", 2, 6)])
    # span = 10 - 0 = 10; at t=2 both run -> peak 2
    assert waves == (Wave((call("a", 0, 10), call("b", 2, 6)), 10, 2),)


def test_touching_calls_join_one_wave() -> None:
    """Closed intervals: a call starting exactly at the reach joins the wave."""
    waves = group_waves([call("a", 0, 5), call("b", 5, 9)])
    # span = 9 - 0; at t=5 the end comes before the start -> peak 1
    assert waves == (Wave((call("a", 0, 5), call("b", 5, 9)), 9, 1),)


def test_a_gap_opens_a_new_wave() -> None:
    """A call starting strictly after the reach opens a new wave."""
    waves = group_waves([call("a", 0, 5), call("b", 5.5, 9)])
    assert waves == (Wave((call("a", 0, 5),), 5, 1), Wave((call("b", 5.5, 9),), 3.5, 1))


def test_reach_is_the_largest_end_so_far() -> None:
    """A call inside an earlier long call joins even after a short call has ended."""
    waves = group_waves([call("a", 0, 10), call("b", 1, 2), call("c", 5, 6), call("d", 10, 11)])
    # reach: 10 after a; b (1 <= 10) and c (5 <= 10) join; d starts at 10 == reach: joins
    assert shape(waves) == [["a", "b", "c", "d"]]
    assert waves[0].span_ms == 11


def test_waves_are_ordered_by_first_call() -> None:
    """Waves come out in order of their first call, whatever the input order."""
    calls = [call("late", 20, 21), call("mid", 10, 12), call("early", 0, 1), call("mid2", 11, 15)]
    waves = group_waves(calls)
    assert shape(waves) == [["early"], ["mid", "mid2"], ["late"]]
    assert [w.span_ms for w in waves] == [1, 5, 1]


def test_calls_are_sorted_by_start_then_end() -> None:
    """Within a wave calls are ordered by ``(start_ms, end_ms)``."""
    waves = group_waves([call("long", 0, 9), call("short", 0, 3), call("first", 0, 0)])
    assert shape(waves) == [["first", "short", "long"]]


def test_sort_is_stable_for_equal_intervals() -> None:
    """Calls with equal ``(start, end)`` keep their input order."""
    waves = group_waves([call("z", 1, 4), call("y", 1, 4), call("x", 1, 4)])
    assert shape(waves) == [["z", "y", "x"]]


def test_zero_length_calls_at_one_instant_have_peak_zero() -> None:
    """A wave of only zero-length calls at one instant has span 0 and peak 0."""
    waves = group_waves([call("a", 3, 3), call("b", 3, 3)])
    assert waves == (Wave((call("a", 3, 3), call("b", 3, 3)), 0, 0),)


def test_zero_length_call_inside_a_call_joins_without_raising_the_peak() -> None:
    """A zero-length call never runs concurrently, but it joins the wave it touches."""
    waves = group_waves([call("a", 0, 10), call("z", 5, 5)])
    assert waves == (Wave((call("a", 0, 10), call("z", 5, 5)), 10, 1),)


def test_zero_length_call_bridges_touching_calls() -> None:
    """A zero-length call at the touching instant is part of the same wave."""
    waves = group_waves([call("a", 0, 5), call("z", 5, 5), call("b", 5, 8)])
    assert shape(waves) == [["a", "z", "b"]]
    assert (waves[0].span_ms, waves[0].max_concurrency) == (8, 1)


def test_wave_size_counts_calls() -> None:
    """``Wave.size`` is the number of calls."""
    assert group_waves([call("a", 0, 2), call("b", 1, 3), call("c", 1, 1)])[0].size == 3
    assert Wave((), 0.0, 0).size == 0


# ------------------------------------------------------------------- span and peak


def test_span_of_no_calls_is_zero() -> None:
    """``wave_span_ms`` of nothing is 0.0."""
    assert wave_span_ms([]) == 0.0


def test_span_uses_min_start_and_max_end() -> None:
    """Span is ``max(end) - min(start)``, not last end minus first start."""
    assert wave_span_ms([call("a", 0, 10), call("b", 2, 5)]) == 10
    assert wave_span_ms([call("a", 4, 5), call("b", 1, 2)]) == 4


def test_peak_of_no_calls_is_zero() -> None:
    """The sweep starts from 0."""
    assert peak_concurrency([]) == 0


def test_peak_sweeps_ends_before_starts() -> None:
    """At equal times ends come before starts, so touching calls are not concurrent."""
    assert peak_concurrency([call("a", 0, 5), call("b", 5, 9)]) == 1
    assert peak_concurrency([call("b", 5, 9), call("a", 0, 5)]) == 1


def test_peak_counts_the_most_calls_running_at_once() -> None:
    """Peak is the maximum running count of the sweep."""
    calls = [call("a", 0, 9), call("b", 1, 2), call("c", 1, 3), call("d", 2, 4)]
    # t=1: a,b,c -> 3; t=2: b ends before d starts -> a,c,d = 3
    assert peak_concurrency(calls) == 3
    assert peak_concurrency([call("a", 0, 4), call("b", 0, 4)]) == 2


def test_wave_from_calls_computes_span_and_peak() -> None:
    """``wave_from_calls`` keeps the calls in the given order with span and peak."""
    calls = [call("b", 2, 6), call("a", 0, 10)]
    assert wave_from_calls(calls) == Wave((call("b", 2, 6), call("a", 0, 10)), 10, 2)


# ------------------------------------------------------------------------ assembly


def test_assemble_waves_pairs_then_groups() -> None:
    """``assemble_waves`` pairs observations and groups the calls, keeping the counters."""
    stream = [
        {"kind": "start", "call_id": "a", "tool_name": "read", "at_ms": 0},
        {"kind": "start", "call_id": "b", "tool_name": "grep", "at_ms": 1},
        {"kind": "end", "call_id": "a", "tool_name": "read", "at_ms": 10},
        {"kind": "end", "call_id": "b", "tool_name": "grep", "at_ms": 4},
        {"kind": "start", "call_id": "c", "tool_name": "bash", "at_ms": 20},
        None,
    ]
    assembly = assemble_waves(stream)
    assert assembly == WaveAssembly(
        waves=(
            Wave((call("a", 0, 10), call("b", 1, 4, "grep")), 10, 2),
        ),
        counters=WaveCounters(
            observed_calls=3, paired_calls=2, incomplete_calls=1, malformed_observations=1
        ),
        calls=(call("a", 0, 10), call("b", 1, 4, "grep")),  # in pairing order
        incomplete_starts_ms=(20,),  # c never ended
    )


def test_assemble_waves_passes_the_cap() -> None:
    """``assemble_waves`` applies the caller's ``max_tracked_calls``."""
    stream = [Observation("start", "a", "t", 0), Observation("end", "a", "t", 1),
              Observation("start", "b", "t", 0), Observation("end", "b", "t", 1)]
    assembly = assemble_waves(stream, max_tracked_calls=1)
    assert shape(assembly.waves) == [["a"]]
    assert assembly.counters.dropped_calls == 1


def test_assemble_waves_defaults_to_the_2000_cap() -> None:
    """Without a cap argument, the 2001st tracked call is dropped."""
    stream = [Observation("start", f"c{i}", "t", i) for i in range(2001)]
    assembly = assemble_waves(stream)
    assert assembly.waves == ()
    assert assembly.counters == WaveCounters(
        observed_calls=2001, incomplete_calls=2000, dropped_calls=1
    )


# ---------------------------------------------------------------------- properties


def brute_force_components(calls: Sequence[ToolCall]) -> list[list[ToolCall]]:
    """Connected components of the closed-interval overlap graph, by union-find."""
    parent = list(range(len(calls)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, a in enumerate(calls):
        for j in range(i):
            b = calls[j]
            if a.start_ms <= b.end_ms and b.start_ms <= a.end_ms:
                parent[root(i)] = root(j)
    groups: dict[int, list[ToolCall]] = {}
    for i, c in enumerate(calls):
        groups.setdefault(root(i), []).append(c)
    return list(groups.values())


def canonical(groups: Sequence[Sequence[ToolCall]]) -> list[list[tuple[float, float, str, str]]]:
    """Groups as sorted lists of sortable call tuples, in a sorted list."""
    return sorted(
        sorted((c.start_ms, c.end_ms, c.call_id, c.tool_name) for c in group) for group in groups
    )


def brute_force_peak(calls: Sequence[ToolCall]) -> int:
    """Most calls with ``start <= t < end`` at any start instant ``t`` (0 if none)."""
    return max(
        [sum(1 for c in calls if c.start_ms <= t < c.end_ms) for t in (c.start_ms for c in calls)],
        default=0,
    )


@given(observation_streams, caps)
def test_waves_partition_the_paired_calls(stream: list[object], cap: int | None) -> None:
    """Every paired call is in exactly one wave and waves hold nothing else."""
    paired = pair_observations(stream, max_tracked_calls=cap).calls
    waves = assemble_waves(stream, max_tracked_calls=cap).waves
    assert canonical([[c for w in waves for c in w.calls]]) == canonical([paired])
    assert all(w.size > 0 for w in waves)


@given(observation_streams, caps)
def test_waves_are_the_connected_components(stream: list[object], cap: int | None) -> None:
    """Waves equal the brute-force connected components over closed intervals."""
    paired = pair_observations(stream, max_tracked_calls=cap).calls
    waves = assemble_waves(stream, max_tracked_calls=cap).waves
    assert canonical([w.calls for w in waves]) == canonical(brute_force_components(paired))


@given(distinct_complete_calls(starts=any_ms, durations=any_ms))
def test_no_two_waves_touch_or_overlap(calls: list[ToolCall]) -> None:
    """Every wave ends strictly before every later wave starts (no touching, no overlap)."""
    waves = group_waves(calls)
    for earlier, later in itertools.combinations(waves, 2):
        assert max(c.end_ms for c in earlier.calls) < min(c.start_ms for c in later.calls)


@given(distinct_complete_calls(starts=any_ms, durations=any_ms))
def test_calls_in_a_wave_are_sorted(calls: list[ToolCall]) -> None:
    """Within each wave calls are non-decreasing in ``(start_ms, end_ms)``."""
    for wave in group_waves(calls):
        keys = [(c.start_ms, c.end_ms) for c in wave.calls]
        assert keys == sorted(keys)


@given(distinct_complete_calls())
def test_span_and_peak_equal_brute_force(calls: list[ToolCall]) -> None:
    """Every wave's span and peak equal an independent recomputation."""
    for wave in group_waves(calls):
        ends, starts = [c.end_ms for c in wave.calls], [c.start_ms for c in wave.calls]
        assert wave.span_ms == max(ends) - min(starts)
        assert wave.max_concurrency == brute_force_peak(wave.calls)


@given(connected_calls(max_size=12))
def test_peak_of_a_connected_shape_equals_brute_force(calls: list[ToolCall]) -> None:
    """Chains, nests, identical and instant shapes: peak equals the brute force."""
    assert peak_concurrency(calls) == brute_force_peak(calls)
    assert len(group_waves(calls)) == 1


@given(st.data(), distinct_complete_calls(starts=any_ms, durations=any_ms))
def test_arrival_order_of_complete_calls_changes_no_figure(
    data: st.DataObject, calls: list[ToolCall]
) -> None:
    """Permuting complete distinct calls (start then end) changes no wave and no figure."""
    permuted = data.draw(st.permutations(calls))
    first = assemble_waves(observations_of(calls))
    second = assemble_waves(observations_of(permuted))
    assert canonical([w.calls for w in first.waves]) == canonical([w.calls for w in second.waves])
    assert summarize(first) == summarize(second)


@pytest.mark.parametrize("path", ["rollout.jsonl", PurePosixPath("rollout.jsonl")])
def test_assemble_waves_given_a_path_names_summarize_paths(path: object) -> None:
    """A path given to assemble_waves is a TypeError naming summarize_paths, never an
    empty assembly of its letters (a str is iterable)."""
    with pytest.raises(TypeError, match="^" + re.escape(
        "assemble_waves() takes observations, not the path 'rollout.jsonl': to summarize"
        " trace files, call wavemetrics.summarize_paths('rollout.jsonl')"
    ) + "$"):
        assemble_waves(path)  # type: ignore[arg-type]
