"""Measured turn time (``docs/metrics.md`` section 6, "Turn durations")."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from wavemetrics.core.turns import TurnClock, measured_turn_duration_ms

START, END = "turn_start", "turn_end"


def test_no_turns_is_zero() -> None:
    """No events: 0.0."""
    assert measured_turn_duration_ms([]) == 0.0


def test_paired_turns_add_their_durations() -> None:
    """Each start/end pair adds ``end - start``."""
    # (5 - 0) + (30 - 20) = 15
    assert measured_turn_duration_ms([(START, 0), (END, 5), (START, 20), (END, 30)]) == 15.0


def test_short_positive_turns_count() -> None:
    """Durations of 1 and of less than 1 ms are positive and count."""
    assert measured_turn_duration_ms([(START, 10), (END, 11)]) == 1.0
    assert measured_turn_duration_ms([(START, 10), (END, 10.5)]) == 0.5


def test_second_start_overwrites_the_pending_start() -> None:
    """A second start replaces the pending one."""
    # pending 0 then 5; end 9 -> 4
    assert measured_turn_duration_ms([(START, 0), (START, 5), (END, 9)]) == 4.0


def test_end_without_a_start_is_ignored() -> None:
    """An end with no pending start adds nothing, before or after a pair."""
    assert measured_turn_duration_ms([(END, 3)]) == 0.0
    # the first end clears the pending start, so the second end is ignored
    assert measured_turn_duration_ms([(START, 0), (END, 2), (END, 50)]) == 2.0


def test_non_positive_durations_are_ignored_and_clear_the_start() -> None:
    """A zero or negative duration adds nothing and still clears the pending start."""
    assert measured_turn_duration_ms([(START, 5), (END, 5)]) == 0.0
    assert measured_turn_duration_ms([(START, 30), (END, 25), (END, 40)]) == 0.0
    assert measured_turn_duration_ms([(START, 5), (END, 5), (END, 9)]) == 0.0


def test_docstring_sequence() -> None:
    """Overwrite, ignored end and negative turn together give 4."""
    events = [(START, 0), (START, 5), (END, 9), (END, 20), (START, 30), (END, 25)]
    assert measured_turn_duration_ms(events) == 4.0


def test_other_kinds_are_ignored() -> None:
    """Events of any other kind neither start, end nor clear a turn."""
    events = [("other", 0), (START, 1), ("turn_END", 2), ("user", 3), (END, 4), ("turn_end ", 9)]
    assert measured_turn_duration_ms(events) == 3.0


def test_accumulation_is_naive() -> None:
    """Turn durations 0.1, 0.2, 0.3 add left to right to 0.6000000000000001."""
    events = [(START, 0), (END, 0.1), (START, 0), (END, 0.2), (START, 0), (END, 0.3)]
    assert measured_turn_duration_ms(events) == (0.1 + 0.2) + 0.3
    assert measured_turn_duration_ms(events) != math.fsum([0.1, 0.2, 0.3])


def test_any_iterable_is_accepted() -> None:
    """A one-shot generator of events works."""
    assert measured_turn_duration_ms(iter([(START, 1), (END, 4)])) == 3.0


turn_events = st.lists(
    st.tuples(st.sampled_from((START, END, "other")), st.integers(0, 10**6)), max_size=30
)


@given(turn_events)
def test_total_is_the_sum_of_positive_paired_turns(events: list[tuple[str, float]]) -> None:
    """The total equals an independent replay of the rules, and is never negative."""
    total, pending = 0, None
    for kind, at in events:
        if kind == START:
            pending = at
        elif kind == END and pending is not None:
            total += max(at - pending, 0)
            pending = None
    assert measured_turn_duration_ms(events) == total
    assert measured_turn_duration_ms(events) >= 0


@given(turn_events, turn_events)
def test_totals_add_across_a_clearing_end(
    first: list[tuple[str, float]], second: list[tuple[str, float]]
) -> None:
    """After an end that clears any pending start, a further event list adds its own total."""
    clean = [*first, (END, 0)]  # an end clears any pending start without adding time
    assert measured_turn_duration_ms([*clean, *second]) == (
        measured_turn_duration_ms(clean) + measured_turn_duration_ms(second)
    )


def test_the_turn_clock_keeps_the_measured_turns() -> None:
    """The turns that count in the total, as ``(start, end)`` in the order they ended
    (docs/metrics.md section 9): a second start replaces the first, an empty or
    inverted turn and an end with no start are not kept."""
    clock = TurnClock()
    for kind, at in [("turn_start", 0), ("turn_start", 5), ("turn_end", 9),
                     ("turn_end", 12), ("turn_start", 20), ("turn_end", 20),
                     ("turn_start", 30), ("turn_end", 25), ("turn_start", 40),
                     ("turn_end", 47.5)]:
        clock.add(kind, at)
    assert clock.intervals == [(5, 9), (40, 47.5)]
    assert clock.total_ms == 4 + 7.5
