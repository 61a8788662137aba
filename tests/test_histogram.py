"""The positional wave-size histogram (``docs/metrics.md`` section 5)."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wavemetrics.core.histogram import (
    EMPTY_HISTOGRAM,
    HISTOGRAM_BUCKET_MAXIMA,
    HISTOGRAM_BUCKETS,
    add_histograms,
    decode_histogram,
    encode_histogram,
    wave_size_bucket,
)

#: Smallest wave size of each of the 8 positions: 1, 2, 3, 4, 5-8, 9-16, 17-32, 33+.
SMALLEST_SIZE = (1, 2, 3, 4, 5, 9, 17, 33)
DEFAULT_CAP = 2000


def independent_bucket(size: int) -> int:
    """Position of a size by arithmetic: sizes 1-4 map to 0-3, then one position per
    doubling (5-8, 9-16, 17-32), capped at 7."""
    if size <= 4:
        return size - 1
    return min(7, (size - 1).bit_length() + 1)


def test_constants() -> None:
    """Bucket maxima (1, 2, 3, 4, 8, 16, 32), 8 positions, and the empty encoding."""
    assert HISTOGRAM_BUCKET_MAXIMA == (1, 2, 3, 4, 8, 16, 32)
    assert HISTOGRAM_BUCKETS == 8
    assert EMPTY_HISTOGRAM == "0:0:0:0:0:0:0:0"


@pytest.mark.parametrize(
    ("size", "position"),
    [(1, 0), (2, 1), (3, 2), (4, 3), (5, 4), (8, 4), (9, 5), (16, 5), (17, 6), (32, 6),
     (33, 7), (2000, 7), (10**9, 7)],
)
def test_bucket_edges(size: int, position: int) -> None:
    """Each bucket edge lands in its position: 1,2,3,4 | 5-8 | 9-16 | 17-32 | 33+."""
    assert wave_size_bucket(size) == position


@pytest.mark.parametrize("size", [0, -1])
def test_empty_wave_has_no_bucket(size: int) -> None:
    """A size below 1 raises ValueError."""
    with pytest.raises(ValueError, match=f"^a wave size is at least 1, got {size}$"):
        wave_size_bucket(size)


def test_encode_joins_eight_counts_with_colons() -> None:
    """The wire form is the 8 counts joined by ``:`` with no labels."""
    assert encode_histogram([3, 1, 0, 0, 0, 0, 0, 0]) == "3:1:0:0:0:0:0:0"
    assert encode_histogram((0,) * 8) == EMPTY_HISTOGRAM
    assert encode_histogram([10, 200, 3000, 4, 5, 6, 7, 2000]) == "10:200:3000:4:5:6:7:2000"


@pytest.mark.parametrize("counts", [[0] * 7, [0] * 9, []])
def test_encode_rejects_a_wrong_length(counts: list[int]) -> None:
    """Anything but exactly 8 counts raises ValueError."""
    with pytest.raises(ValueError, match=f"^a histogram has 8 counts, got {len(counts)}$"):
        encode_histogram(counts)


@pytest.mark.parametrize("bad", [-1, True, False, 1.0, "1", None])
def test_encode_rejects_a_bad_count(bad: object) -> None:
    """Counts are non-negative ints (not bool, float or str)."""
    counts = [0, 0, 0, bad, 0, 0, 0, 0]
    pattern = "^" + re.escape(f"histogram counts are non-negative ints, got {bad!r}") + "$"
    with pytest.raises(ValueError, match=pattern):
        encode_histogram(counts)  # type: ignore[arg-type]


def test_decode_is_the_inverse_of_encode() -> None:
    """Decoding gives the 8 counts back as a tuple."""
    assert decode_histogram("0:2:0:0:0:0:0:1") == (0, 2, 0, 0, 0, 0, 0, 1)
    assert decode_histogram(EMPTY_HISTOGRAM) == (0,) * 8


@pytest.mark.parametrize(
    "text",
    ["", "0:0:0:0:0:0:0", "0:0:0:0:0:0:0:0:0", "0:0:0:0:0:0:0:", "a:0:0:0:0:0:0:0",
     "-1:0:0:0:0:0:0:0", "+1:0:0:0:0:0:0:0", " 1:0:0:0:0:0:0:0", "1.0:0:0:0:0:0:0:0",
     "\u00b2:0:0:0:0:0:0:0", "\uff11:0:0:0:0:0:0:0", "0 0 0 0 0 0 0 0", "0,0,0,0,0,0,0,0"],
)
def test_decode_rejects_other_strings(text: str) -> None:
    """Anything but 8 colon-separated ASCII digit runs raises ValueError."""
    pattern = "^" + re.escape(f"not an encoded wave-size histogram: {text!r}") + "$"
    with pytest.raises(ValueError, match=pattern):
        decode_histogram(text)


def test_add_histograms_adds_position_by_position() -> None:
    """Two encoded histograms add position by position."""
    assert add_histograms("1:0:0:0:0:0:0:9", "2:1:0:0:0:0:5:1") == "3:1:0:0:0:0:5:10"
    assert add_histograms(EMPTY_HISTOGRAM, EMPTY_HISTOGRAM) == EMPTY_HISTOGRAM


def test_add_histograms_rejects_bad_input() -> None:
    """Adding a malformed histogram raises ValueError."""
    with pytest.raises(ValueError, match="not an encoded wave-size histogram"):
        add_histograms(EMPTY_HISTOGRAM, "1:2")


def test_widest_value_at_the_default_cap_fits_64_characters() -> None:
    """At the default cap every count is at most 2000 (4 digits): 8 * 4 + 7 = 39 characters."""
    assert len(encode_histogram([DEFAULT_CAP] * 8)) == 39


def test_widest_histogram_one_lane_can_reach_at_the_cap() -> None:
    """Exhaustively, the longest encoding of at most 2000 calls is 27 characters.

    A count of d digits (d >= 2) in a position costs at least ``10**(d-1)`` waves of
    that position's smallest size; every digit-length combination is tried.
    """
    widest, widest_counts = 0, [0] * 8
    for digits in itertools.product(range(1, 5), repeat=8):
        counts = [10 ** (d - 1) if d > 1 else 0 for d in digits]
        calls = sum(c * m for c, m in zip(counts, SMALLEST_SIZE, strict=True))
        if calls <= DEFAULT_CAP and sum(digits) + 7 > widest:
            widest, widest_counts = sum(digits) + 7, counts
    # e.g. 10:100:100:100:100:10:10:10 uses 10 + 200 + 300 + 400 + 500 + 90 + 170 + 330 = 2000
    assert widest == 27
    assert len(encode_histogram(widest_counts)) == 27


# ---------------------------------------------------------------- properties


@given(st.integers(min_value=1, max_value=10**6))
def test_bucket_matches_the_arithmetic_definition(size: int) -> None:
    """The position equals an independent doubling formula."""
    assert wave_size_bucket(size) == independent_bucket(size)


@given(st.integers(min_value=1, max_value=10**4))
def test_bucket_is_monotone(size: int) -> None:
    """A bigger wave never lands in an earlier position."""
    assert wave_size_bucket(size) <= wave_size_bucket(size + 1)


@given(st.lists(st.integers(min_value=0, max_value=10**12), min_size=8, max_size=8))
def test_decode_encode_round_trip(counts: list[int]) -> None:
    """``decode(encode(counts)) == counts``."""
    assert decode_histogram(encode_histogram(counts)) == tuple(counts)


@st.composite
def histograms_within_the_cap(draw: st.DrawFn) -> list[int]:
    """Counts of any wave-size multiset of at most 2000 calls: each position's count
    costs at least its smallest size in calls, filled in a random order."""
    counts = [0] * 8
    budget = DEFAULT_CAP
    for position in draw(st.permutations(range(8))):
        counts[position] = draw(st.integers(0, budget // SMALLEST_SIZE[position]))
        budget -= counts[position] * SMALLEST_SIZE[position]
    return counts


@given(histograms_within_the_cap())
def test_encoding_within_the_cap_fits_64_characters(counts: list[int]) -> None:
    """Any histogram of at most 2000 calls encodes in at most 64 characters."""
    assert len(encode_histogram(counts)) <= 64


@given(st.lists(st.integers(min_value=1, max_value=200), max_size=40))
def test_positions_count_every_wave_once(sizes: list[int]) -> None:
    """Counting waves by position accounts for each wave exactly once."""
    counts = [0] * 8
    for size in sizes:
        counts[wave_size_bucket(size)] += 1
    assert sum(decode_histogram(encode_histogram(counts))) == len(sizes)
