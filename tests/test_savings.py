"""Per-wave savings and saved round trips (``docs/metrics.md`` section 3)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import connected_calls, distinct_complete_calls, wave_lists
from wavemetrics.core.observations import ToolCall
from wavemetrics.core.savings import (
    modeled_wallclock_saved_ms,
    naive_sum,
    saved_round_trips,
    upper_bound_saved_ms,
    usable_durations_ms,
)
from wavemetrics.core.waves import Wave, group_waves, wave_from_calls

INF, NAN = math.inf, math.nan


def call(start_ms: float, end_ms: float, call_id: str = "c") -> ToolCall:
    return ToolCall(call_id, "read", start_ms, end_ms)


def wave(*intervals: tuple[float, float], span: float, peak: int = 1) -> Wave:
    """A Wave built directly: calls in the given order, span and peak as given."""
    return Wave(tuple(call(s, e, f"c{i}") for i, (s, e) in enumerate(intervals)), span, peak)


# ------------------------------------------------------------------ naive sum


def test_naive_sum_of_nothing_is_zero() -> None:
    """The accumulation starts at 0.0."""
    assert naive_sum([]) == 0.0
    assert naive_sum([2, 3]) == 5.0


def test_naive_sum_is_left_to_right_not_compensated() -> None:
    """0.1 + 0.2 + 0.3 accumulates to 0.6000000000000001, not fsum's 0.6."""
    assert naive_sum([0.1, 0.2, 0.3]) == (0.1 + 0.2) + 0.3
    assert naive_sum([0.1, 0.2, 0.3]) != math.fsum([0.1, 0.2, 0.3])
    # 1e16 + 1 rounds back to 1e16 (ulp 2, ties to even), so the 1 is lost: 0.0, fsum says 1.0
    assert naive_sum([1e16, 1.0, -1e16]) == 0.0


def test_naive_sum_depends_on_order() -> None:
    """Order matters: 0.3 + 0.2 + 0.1 gives exactly 0.6."""
    assert naive_sum([0.3, 0.2, 0.1]) == (0.3 + 0.2) + 0.1
    assert naive_sum([0.3, 0.2, 0.1]) != naive_sum([0.1, 0.2, 0.3])


# ----------------------------------------------------------- usable durations


def test_usable_durations_skip_reversed_and_non_finite_calls() -> None:
    """Only calls with finite times and ``end >= start`` count, in the wave's order."""
    odd = wave(
        (0, 10), (5, 3), (NAN, 5), (0, INF), (-INF, 5), (2, 6), (INF, INF), (NAN, NAN), (4, 4),
        span=10,
    )
    # usable: [0,10] -> 10, [2,6] -> 4, [4,4] -> 0
    assert usable_durations_ms(odd) == [10, 4, 0]


def test_usable_durations_follow_the_given_call_order() -> None:
    """Durations are taken in the order the wave holds its calls."""
    assert usable_durations_ms(wave((0, 3), (0, 1), span=3)) == [3, 1]


# --------------------------------------------------------------------- modeled


def test_modeled_is_sum_minus_span() -> None:
    """Modeled saving is ``S - span``."""
    # S = 10 + 4 = 14; span = 10; modeled = 14 - 10 = 4
    assert modeled_wallclock_saved_ms(wave_from_calls([call(0, 10), call(2, 6)])) == 4.0
    # S = 4 + 2 + 6 = 12; span = 8 - 0 = 8; modeled = 4
    assert modeled_wallclock_saved_ms(wave_from_calls([call(0, 4), call(1, 3), call(2, 8)])) == 4.0


def test_modeled_of_a_single_call_is_zero() -> None:
    """With one usable duration modeled saving is 0, even if span differs from it."""
    assert modeled_wallclock_saved_ms(wave((0, 4), span=4)) == 0.0
    # one usable (4) plus a reversed call; span 10 would give 4 - 10 = -6 if not n <= 1
    assert modeled_wallclock_saved_ms(wave((0, 4), (9, 2), span=10)) == 0.0
    assert modeled_wallclock_saved_ms(Wave((), 0.0, 0)) == 0.0


def test_modeled_is_never_clamped() -> None:
    """A directly built wave whose span exceeds the sum gives a negative saving."""
    # S = 1 + 1 = 2; span = 10; modeled = 2 - 10 = -8
    assert modeled_wallclock_saved_ms(wave((0, 1), (9, 10), span=10)) == -8.0


def test_modeled_reads_the_span_from_the_wave() -> None:
    """The wave's own span is used, not a recomputation."""
    # S = 14; given span 12; modeled = 2 (recomputed span 10 would give 4)
    assert modeled_wallclock_saved_ms(wave((0, 10), (2, 6), span=12, peak=2)) == 2.0


def test_modeled_is_zero_when_span_is_not_finite() -> None:
    """A non-finite span gives modeled 0."""
    for span in (INF, -INF, NAN):
        assert modeled_wallclock_saved_ms(wave((0, 10), (2, 6), span=span)) == 0.0


def test_zero_length_calls_count_as_usable() -> None:
    """A zero-length call is a usable duration of 0: it raises n."""
    both = wave_from_calls([call(0, 10), call(5, 5)])
    # S = 10 + 0 = 10, n = 2, span = 10: modeled = 0; upper = 1 * (10 / 2) = 5
    assert modeled_wallclock_saved_ms(both) == 0.0
    assert upper_bound_saved_ms(both) == 5.0


def test_touching_chain_saves_nothing() -> None:
    """Back-to-back calls share a wave but model no saving and no round trip."""
    chain = wave_from_calls([call(0, 5), call(5, 10)])
    # S = 5 + 5 = 10 = span
    assert modeled_wallclock_saved_ms(chain) == 0.0
    assert saved_round_trips([chain]) == 0


def test_modeled_sums_in_the_wave_order() -> None:
    """S is accumulated naively in the wave's call order."""
    ordered = wave((0, 0.1), (0, 0.2), (0, 0.3), span=0.3, peak=3)
    # S = (0.1 + 0.2) + 0.3 = 0.6000000000000001; minus 0.3 -> 0.3000000000000001
    assert modeled_wallclock_saved_ms(ordered) == ((0.1 + 0.2) + 0.3) - 0.3
    assert modeled_wallclock_saved_ms(ordered) != math.fsum([0.1, 0.2, 0.3]) - 0.3


def test_savings_sum_in_wave_order_not_duration_order() -> None:
    """read [0, 3], grep [1, 1.2], grep [2, 2.1]: durations 3, 0.19999999999999996 and
    0.10000000000000009 summed in wave (start) order, not sorted by duration.

    By hand: 3 + 0.19999999999999996 = 3.2, + 0.10000000000000009 = 3.3000000000000003;
    modeled 3.3000000000000003 - 3 = 0.30000000000000027; upper bound
    2 * (3.3000000000000003 / 3) = 2.2. Sorted by duration the sum is 3.3, which gives
    0.2999999999999998 and 2.1999999999999997.
    """
    mixed = wave_from_calls([ToolCall("r", "read", 0, 3), ToolCall("g1", "grep", 1, 1.2),
                             ToolCall("g2", "grep", 2, 2.1)])
    assert [c.call_id for c in mixed.calls] == ["r", "g1", "g2"]
    assert modeled_wallclock_saved_ms(mixed) == 0.30000000000000027
    assert upper_bound_saved_ms(mixed) == 2.2


# ----------------------------------------------------------------- upper bound


def test_upper_bound_is_n_minus_one_mean_durations() -> None:
    """Upper bound is ``(n - 1) * (S / n)``."""
    # n = 2, S = 14: 1 * 7 = 7
    assert upper_bound_saved_ms(wave_from_calls([call(0, 10), call(2, 6)])) == 7.0
    # n = 3, S = 12: 2 * 4 = 8
    assert upper_bound_saved_ms(wave_from_calls([call(0, 4), call(1, 3), call(2, 8)])) == 8.0


def test_upper_bound_non_integer_divides_first() -> None:
    """``(n - 1) * (S / n)`` is computed dividing first: 5 * (1 / 6), not 5 / 6."""
    six = wave_from_calls([call(0, 1), *[call(0.5, 0.5, f"z{i}") for i in range(5)]])
    # n = 6, S = 1 + 0 * 5 = 1; 1/6 rounds down, times 5 gives 0.8333333333333333,
    # while 5/6 rounds to 0.8333333333333334
    assert upper_bound_saved_ms(six) == 5 * (1 / 6)
    assert upper_bound_saved_ms(six) != 5 / 6


def test_upper_bound_is_zero_for_at_most_one_usable_call() -> None:
    """n <= 1 gives 0, even when the single duration overflows to infinity."""
    assert upper_bound_saved_ms(Wave((), 0.0, 0)) == 0.0
    assert upper_bound_saved_ms(wave((5, 1), span=4)) == 0.0
    assert upper_bound_saved_ms(wave((0, 4), span=4)) == 0.0
    # finite times whose difference overflows: (1 - 1) * inf would be NaN
    huge = wave((-1e308, 1e308), span=INF)
    assert upper_bound_saved_ms(huge) == 0.0
    assert modeled_wallclock_saved_ms(huge) == 0.0


def test_upper_bound_ignores_a_non_finite_span() -> None:
    """The upper bound does not use the span at all."""
    assert upper_bound_saved_ms(wave((0, 10), (2, 6), span=INF)) == 7.0


# ----------------------------------------------------------------- round trips


def test_round_trips_sum_peak_minus_one() -> None:
    """Saved round trips add ``max(peak - 1, 0)`` over waves."""
    peaks = [0, 1, 2, 3, 5]
    # 0 + 0 + 1 + 2 + 4 = 7
    assert saved_round_trips(Wave((), 0.0, p) for p in peaks) == 7
    assert saved_round_trips([]) == 0


def test_round_trips_skip_non_finite_peaks() -> None:
    """Waves whose peak is not finite add nothing."""
    odd = [Wave((), 0.0, INF), Wave((), 0.0, NAN), Wave((), 0.0, 3)]  # type: ignore[arg-type]
    assert saved_round_trips(odd) == 2


def test_round_trips_read_the_peak_from_the_wave() -> None:
    """The wave's own peak is used, not a recomputation from its calls."""
    assert saved_round_trips([wave((0, 1), span=1, peak=4)]) == 3


# ----------------------------------------------------------------- properties


@given(connected_calls())
def test_modeled_is_at_most_upper_for_integer_waves(calls: list[ToolCall]) -> None:
    """With integer ms, modeled <= upper exactly (S and span are exact; the true gap
    ``span - S/n`` is 0 or at least 1/n, far above the rounding of ``S/n``)."""
    w = wave_from_calls(calls)
    assert modeled_wallclock_saved_ms(w) <= upper_bound_saved_ms(w)


@given(connected_calls(integer_ms=False, max_size=10))
def test_modeled_is_at_most_upper_within_rounding(calls: list[ToolCall]) -> None:
    """With float ms, modeled <= upper up to rounding.

    Each duration rounds to at most the rounded span, so in exact arithmetic on the
    rounded values ``S - span <= S - S/n``. The naive sum adds at most ``n - 1``
    roundings of at most 2**-53 of the running total and each figure at most two
    more, so ``(n + 3) * 2**-53 * (S + span)`` bounds the difference.
    """
    w = wave_from_calls(calls)
    durations = usable_durations_ms(w)
    tolerance = (len(durations) + 3) * 2.0**-53 * (sum(durations) + w.span_ms)
    assert modeled_wallclock_saved_ms(w) <= upper_bound_saved_ms(w) + tolerance


@given(connected_calls())
def test_modeled_is_non_negative_for_a_connected_wave(calls: list[ToolCall]) -> None:
    """Connected calls cover their span, so with integer ms ``S >= span``."""
    assert modeled_wallclock_saved_ms(wave_from_calls(calls)) >= 0


@given(st.lists(st.integers(0, 9), min_size=1, max_size=10))
def test_touching_chain_scores_zero(lengths: list[int]) -> None:
    """A chain of back-to-back calls: one wave, modeled 0, no saved round trip."""
    calls, at = [], 0
    for i, length in enumerate(lengths):
        calls.append(call(at, at + length, f"c{i}"))
        at += length
    waves = group_waves(calls)
    assert len(waves) == 1
    assert modeled_wallclock_saved_ms(waves[0]) == 0.0
    assert saved_round_trips(waves) == 0


@given(connected_calls(integer_ms=False))
def test_upper_bound_is_between_zero_and_the_sum(calls: list[ToolCall]) -> None:
    """``0 <= (n - 1) * (S / n) <= S`` (up to one rounding of S)."""
    w = wave_from_calls(calls)
    total = naive_sum(usable_durations_ms(w))
    assert 0 <= upper_bound_saved_ms(w) <= total * (1 + 2.0**-52)


@given(wave_lists())
def test_round_trips_add_over_waves(waves: list[Wave]) -> None:
    """Saved round trips of a list equal the sum over single waves."""
    assert saved_round_trips(waves) == sum(saved_round_trips([w]) for w in waves)
    assert saved_round_trips(waves) == sum(max(w.max_concurrency - 1, 0) for w in waves)


@given(distinct_complete_calls())
def test_round_trips_count_concurrency_not_size(calls: list[ToolCall]) -> None:
    """A wave saves at most ``size - 1`` round trips, and its peak never exceeds its size."""
    for w in group_waves(calls):
        assert 0 <= saved_round_trips([w]) <= w.size - 1
