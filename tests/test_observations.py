"""Pairing of observations into calls (``docs/metrics.md`` section 1)."""

from __future__ import annotations

import re
from collections import Counter
from types import SimpleNamespace

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import (
    MALFORMED_ELEMENTS,
    caps,
    malformed_elements,
    observation_streams,
    valid_observations,
)
from wavemetrics.core.observations import (
    DEFAULT_MAX_TRACKED_CALLS,
    Observation,
    ToolCall,
    WaveCounters,
    pair_observations,
    validate_observation,
)


def start(call_id: str, at_ms: float, name: str = "read") -> Observation:
    return Observation("start", call_id, name, at_ms)


def end(call_id: str, at_ms: float, name: str = "read") -> Observation:
    return Observation("end", call_id, name, at_ms)


def exactly(message: str) -> str:
    """A ``pytest.raises(match=...)`` pattern for exactly ``message``."""
    return f"^{re.escape(message)}$"


def sequential_calls(count: int) -> list[Observation]:
    """``count`` complete calls, each start directly followed by its end."""
    stream: list[Observation] = []
    for i in range(count):
        stream += [start(f"c{i}", i), end(f"c{i}", i + 0.5)]
    return stream


# ----------------------------------------------------------------- pairing basics


def test_start_and_end_pair_into_one_call() -> None:
    """A start and its later end become one paired call with the start's time and name."""
    pairing = pair_observations([start("a", 1, "read"), end("a", 4, "read")])
    assert pairing.calls == (ToolCall("a", "read", 1, 4),)
    assert pairing.counters == WaveCounters(observed_calls=1, paired_calls=1)


def test_end_name_is_ignored_and_start_name_kept() -> None:
    """The end's tool_name is ignored: the call carries the name on its start."""
    pairing = pair_observations([start("a", 1, "grep"), end("a", 2, "unknown")])
    assert pairing.calls == (ToolCall("a", "grep", 1, 2),)


def test_calls_are_in_pairing_order_not_start_order() -> None:
    """Paired calls are appended when their end arrives."""
    pairing = pair_observations([start("a", 0), start("b", 1), end("b", 2), end("a", 9)])
    assert pairing.calls == (ToolCall("b", "read", 1, 2), ToolCall("a", "read", 0, 9))
    assert pairing.counters == WaveCounters(observed_calls=2, paired_calls=2)


def test_zero_length_call_pairs() -> None:
    """An end at exactly the start time pairs (only ``end < start`` is an anomaly)."""
    pairing = pair_observations([start("a", 5), end("a", 5)])
    assert pairing.calls == (ToolCall("a", "read", 5, 5),)
    assert pairing.counters == WaveCounters(observed_calls=1, paired_calls=1)


def test_time_zero_and_fractions_below_one_are_valid() -> None:
    """``at_ms == 0`` and ``0 < at_ms < 1`` are valid times (``>= 0``)."""
    pairing = pair_observations([start("a", 0), end("a", 0.5), start("b", 0.0), end("b", 0.25)])
    assert pairing.calls == (ToolCall("a", "read", 0, 0.5), ToolCall("b", "read", 0.0, 0.25))
    assert pairing.counters.malformed_observations == 0


def test_end_before_start_is_a_clock_anomaly_and_excluded() -> None:
    """An end before its start counts a clock anomaly and the call is not paired."""
    pairing = pair_observations([start("a", 5), end("a", 4.999), start("b", 6), end("b", 7)])
    assert pairing.calls == (ToolCall("b", "read", 6, 7),)
    # observed 2 == paired 1 + clock_anomalies 1
    assert pairing.counters == WaveCounters(observed_calls=2, paired_calls=1, clock_anomalies=1)


def test_clock_anomaly_pops_the_pending_start() -> None:
    """After a clock anomaly the call is no longer pending: a second end is an orphan."""
    pairing = pair_observations([start("a", 5), end("a", 1), end("a", 9)])
    assert pairing.calls == ()
    assert pairing.counters == WaveCounters(observed_calls=1, clock_anomalies=1, orphan_ends=1)


def test_orphan_end_is_counted_and_the_rest_still_pairs() -> None:
    """An end with no pending start counts an orphan end and nothing else."""
    pairing = pair_observations([end("x", 3), start("a", 4), end("a", 6)])
    assert pairing.calls == (ToolCall("a", "read", 4, 6),)
    assert pairing.counters == WaveCounters(observed_calls=1, paired_calls=1, orphan_ends=1)


def test_second_end_after_pairing_is_an_orphan() -> None:
    """An end for an already paired call id is an orphan end."""
    pairing = pair_observations([start("a", 0), end("a", 1), end("a", 2)])
    assert pairing.calls == (ToolCall("a", "read", 0, 1),)
    assert pairing.counters == WaveCounters(observed_calls=1, paired_calls=1, orphan_ends=1)


def test_duplicate_start_replaces_the_pending_start() -> None:
    """A second start of a pending id replaces the first (v1) and counts a duplicate start."""
    pairing = pair_observations([start("a", 1, "first"), start("a", 3, "second"), end("a", 10)])
    assert pairing.calls == (ToolCall("a", "second", 3, 10),)
    # observed 2 == paired 1 + duplicate_starts 1
    assert pairing.counters == WaveCounters(observed_calls=2, paired_calls=1, duplicate_starts=1)


def test_replaced_start_decides_the_clock_anomaly() -> None:
    """The replacing start's time is the one an end is compared against."""
    pairing = pair_observations([start("a", 1), start("a", 8), end("a", 5)])
    assert pairing.calls == ()
    assert pairing.counters == WaveCounters(
        observed_calls=2, clock_anomalies=1, duplicate_starts=1
    )


def test_call_id_may_be_reused_after_pairing() -> None:
    """After a call is paired its id starts a new call, not a duplicate."""
    pairing = pair_observations([start("a", 0), end("a", 1), start("a", 2, "bash"), end("a", 5)])
    assert pairing.calls == (ToolCall("a", "read", 0, 1), ToolCall("a", "bash", 2, 5))
    assert pairing.counters == WaveCounters(observed_calls=2, paired_calls=2)


def test_starts_without_ends_are_incomplete() -> None:
    """Starts still pending after the input are incomplete calls."""
    pairing = pair_observations([start("a", 0), start("b", 1), end("b", 2), start("c", 3)])
    assert pairing.calls == (ToolCall("b", "read", 1, 2),)
    assert pairing.counters == WaveCounters(observed_calls=3, paired_calls=1, incomplete_calls=2)


def test_empty_input_gives_nothing() -> None:
    """No observations: no calls and all-zero counters."""
    pairing = pair_observations([])
    assert pairing.calls == ()
    assert pairing.counters == WaveCounters()


def test_any_iterable_is_accepted() -> None:
    """Observations may come from a one-shot generator."""
    pairing = pair_observations(iter([start("a", 0), end("a", 1)]))
    assert pairing.calls == (ToolCall("a", "read", 0, 1),)


# ------------------------------------------------------------------------ the cap


def test_default_cap_is_2000() -> None:
    """The v1 default cap is 2000 tracked calls."""
    assert DEFAULT_MAX_TRACKED_CALLS == 2000


@pytest.mark.parametrize(
    ("cap", "paired", "dropped"),
    [
        # 2001 sequential calls: paired grows by one per call until the cap.
        (1999, 1999, 2),
        (2000, 2000, 1),
        (2001, 2001, 0),
    ],
)
def test_cap_boundary(cap: int, paired: int, dropped: int) -> None:
    """With ``paired + pending >= cap`` a start is dropped and its end becomes an orphan."""
    pairing = pair_observations(sequential_calls(2001), max_tracked_calls=cap)
    assert len(pairing.calls) == paired
    assert pairing.counters == WaveCounters(
        observed_calls=2001, paired_calls=paired, dropped_calls=dropped, orphan_ends=dropped
    )


def test_default_cap_applies_without_the_argument() -> None:
    """Without ``max_tracked_calls`` the 2001st sequential call is dropped."""
    pairing = pair_observations(sequential_calls(2001))
    assert pairing.counters == WaveCounters(
        observed_calls=2001, paired_calls=2000, dropped_calls=1, orphan_ends=1
    )
    assert pairing.calls[-1] == ToolCall("c1999", "read", 1999, 1999.5)


@pytest.mark.parametrize("cap", [None, 0])
def test_none_and_zero_mean_unbounded(cap: int | None) -> None:
    """``None`` and ``0`` disable the cap."""
    pairing = pair_observations(sequential_calls(2500), max_tracked_calls=cap)
    assert pairing.counters == WaveCounters(observed_calls=2500, paired_calls=2500)


def test_cap_counts_pending_and_paired() -> None:
    """The cap counts paired plus pending calls, so a pending start holds a slot."""
    stream = [
        start("a", 0), end("a", 1),  # paired 1
        start("b", 2), start("c", 3),  # pending 2: 3 tracked
        start("d", 4),  # dropped
        end("b", 5),  # paired 2, pending 1: still 3 tracked
        start("e", 6),  # dropped
        end("d", 7),  # orphan: d was dropped
    ]
    pairing = pair_observations(stream, max_tracked_calls=3)
    assert pairing.calls == (ToolCall("a", "read", 0, 1), ToolCall("b", "read", 2, 5))
    # observed 5 == paired 2 + incomplete 1 + dropped 2
    assert pairing.counters == WaveCounters(
        observed_calls=5, paired_calls=2, incomplete_calls=1, dropped_calls=2, orphan_ends=1
    )


def test_clock_anomaly_frees_a_slot_under_the_cap() -> None:
    """An excluded (clock-anomaly) call leaves pending without entering paired."""
    stream = [start("a", 5), end("a", 4), start("b", 6), end("b", 7)]
    pairing = pair_observations(stream, max_tracked_calls=1)
    assert pairing.calls == (ToolCall("b", "read", 6, 7),)
    assert pairing.counters == WaveCounters(observed_calls=2, paired_calls=1, clock_anomalies=1)


def test_paired_calls_keep_holding_their_slots() -> None:
    """A paired call still counts against the cap after its end."""
    stream = [start("a", 0), end("a", 1), start("b", 2), end("b", 3)]
    pairing = pair_observations(stream, max_tracked_calls=1)
    assert pairing.calls == (ToolCall("a", "read", 0, 1),)
    assert pairing.counters == WaveCounters(
        observed_calls=2, paired_calls=1, dropped_calls=1, orphan_ends=1
    )


def test_duplicate_start_at_the_cap_is_dropped_not_a_duplicate() -> None:
    """At the cap a repeated start is dropped (the pending start survives), not a duplicate."""
    stream = [start("a", 0, "first"), start("a", 5, "second"), end("a", 7)]
    pairing = pair_observations(stream, max_tracked_calls=1)
    assert pairing.calls == (ToolCall("a", "first", 0, 7),)
    # observed 2 == paired 1 + dropped 1; duplicate_starts stays 0
    assert pairing.counters == WaveCounters(observed_calls=2, paired_calls=1, dropped_calls=1)


def test_duplicate_start_below_the_cap_does_not_take_a_slot() -> None:
    """A replacing start does not grow pending, so it never uses up the cap."""
    stream = [start("a", 0), start("a", 1), start("b", 2), end("a", 3), end("b", 4)]
    pairing = pair_observations(stream, max_tracked_calls=2)
    assert pairing.calls == (ToolCall("a", "read", 1, 3), ToolCall("b", "read", 2, 4))
    assert pairing.counters == WaveCounters(observed_calls=3, paired_calls=2, duplicate_starts=1)


@pytest.mark.parametrize("cap", [True, False, 1.5, "10", 2000.0])
def test_cap_of_a_wrong_type_raises_type_error(cap: object) -> None:
    """A cap that is not an int (bool included) or None raises TypeError."""
    with pytest.raises(TypeError, match=exactly("max_tracked_calls must be an int or None")):
        pair_observations([], max_tracked_calls=cap)  # type: ignore[arg-type]


@pytest.mark.parametrize("cap", [-1, -2000])
def test_negative_cap_raises_value_error(cap: int) -> None:
    """A negative cap raises ValueError."""
    message = "max_tracked_calls must be >= 0 (0 or None: unbounded)"
    with pytest.raises(ValueError, match=exactly(message)):
        pair_observations([], max_tracked_calls=cap)


# ----------------------------------------------------------------------- malformed


@pytest.mark.parametrize(
    "element", [element for _, element in MALFORMED_ELEMENTS],
    ids=[name for name, _ in MALFORMED_ELEMENTS],
)
def test_malformed_element_is_counted_never_raised(element: object) -> None:
    """Each kind of malformed element is counted, ignored, and never an observed call."""
    assert validate_observation(element) is None
    pairing = pair_observations([start("a", 1), element, end("a", 2), element])
    assert pairing.calls == (ToolCall("a", "read", 1, 2),)
    assert pairing.counters == WaveCounters(
        observed_calls=1, paired_calls=1, malformed_observations=2
    )


def test_malformed_end_does_not_pair() -> None:
    """A malformed end leaves its start pending (incomplete)."""
    bad_end = {"kind": "end", "call_id": "a", "tool_name": "read", "at_ms": -1}
    pairing = pair_observations([start("a", 1), bad_end])
    assert pairing.calls == ()
    assert pairing.counters == WaveCounters(
        observed_calls=1, incomplete_calls=1, malformed_observations=1
    )


def test_mapping_is_accepted_like_an_observation() -> None:
    """A mapping with the four keys pairs exactly like an Observation."""
    as_dicts = [
        {"kind": "start", "call_id": "a", "tool_name": "grep", "at_ms": 2},
        {"kind": "end", "call_id": "a", "tool_name": "x", "at_ms": 3.5, "extra": "ignored"},
    ]
    assert pair_observations(as_dicts) == pair_observations([start("a", 2, "grep"), end("a", 3.5)])


def test_validate_observation_returns_the_four_fields() -> None:
    """A valid Observation, mapping or attribute object yields its four fields as a tuple."""
    assert validate_observation(Observation("start", "a", "read", 0)) == ("start", "a", "read", 0)
    mapping = {"kind": "end", "call_id": "b", "tool_name": "t", "at_ms": 2.5}
    assert validate_observation(mapping) == ("end", "b", "t", 2.5)
    duck = SimpleNamespace(kind="start", call_id="c", tool_name="bash", at_ms=7)
    assert validate_observation(duck) == ("start", "c", "bash", 7)


def test_large_finite_times_are_valid() -> None:
    """Any finite non-negative int or float is a valid time, however large."""
    assert validate_observation(start("a", 10**300)) == ("start", "a", "read", 10**300)
    assert validate_observation(start("a", 1.7e308)) == ("start", "a", "read", 1.7e308)


def test_whitespace_names_are_non_empty_and_valid() -> None:
    """Only the empty string is an empty call_id or tool_name; whitespace is valid."""
    assert validate_observation(Observation("end", " ", " ", 1)) == ("end", " ", " ", 1)


# ---------------------------------------------------------------------- properties


def _counter_invariant_holds(counters: WaveCounters) -> bool:
    return counters.observed_calls == (
        counters.paired_calls + counters.incomplete_calls + counters.dropped_calls
        + counters.clock_anomalies + counters.duplicate_starts
    )


@given(observation_streams, caps)
def test_counter_invariant_holds_for_any_input(stream: list[object], cap: int | None) -> None:
    """``observed == paired + incomplete + dropped + clock_anomalies + duplicate_starts``."""
    counters = pair_observations(stream, max_tracked_calls=cap).counters
    assert _counter_invariant_holds(counters)


@given(observation_streams, caps)
def test_counts_match_the_input(stream: list[object], cap: int | None) -> None:
    """Malformed counts the invalid elements, observed the valid starts, and so on."""
    pairing = pair_observations(stream, max_tracked_calls=cap)
    kinds = Counter(
        valid[0] if (valid := validate_observation(item)) is not None else "malformed"
        for item in stream
    )
    counters = pairing.counters
    assert counters.malformed_observations == kinds["malformed"]
    assert counters.observed_calls == kinds["start"]
    # every valid end is either an orphan, a clock anomaly or a paired call
    assert kinds["end"] == counters.orphan_ends + counters.clock_anomalies + counters.paired_calls
    assert counters.paired_calls == len(pairing.calls)
    if cap:
        assert counters.paired_calls + counters.incomplete_calls <= cap
    else:
        assert counters.dropped_calls == 0


@given(observation_streams, caps)
def test_paired_calls_come_from_their_starts(stream: list[object], cap: int | None) -> None:
    """Every paired call has ``end >= start`` and a start and an end of that id in the input."""
    valid = [v for item in stream if (v := validate_observation(item)) is not None]
    starts = {(call_id, name, at) for kind, call_id, name, at in valid if kind == "start"}
    ends = {(call_id, at) for kind, call_id, _, at in valid if kind == "end"}
    for call in pair_observations(stream, max_tracked_calls=cap).calls:
        assert call.end_ms >= call.start_ms
        assert (call.call_id, call.tool_name, call.start_ms) in starts
        assert (call.call_id, call.end_ms) in ends


@given(st.lists(valid_observations(), max_size=30), st.lists(malformed_elements, max_size=5))
def test_malformed_elements_change_nothing_else(
    stream: list[object], hostile: list[object]
) -> None:
    """Appending malformed elements only raises ``malformed_observations``."""
    clean = pair_observations(stream)
    dirty = pair_observations([*hostile, *stream, *hostile])
    assert dirty.calls == clean.calls
    malformed = clean.counters.malformed_observations + 2 * len(hostile)
    assert dirty.counters == attrs.evolve(clean.counters, malformed_observations=malformed)
