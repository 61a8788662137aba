"""Reader time conversion to float ms (``docs/formats.md``, "For every format")."""

from __future__ import annotations

import calendar
import datetime as dt
import math
import struct
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wavemetrics.readers.timestamps import iso_to_ms, ms_from_number, ns_to_ms, time_to_ms

NS_PER_MS = 10**6


def nearest_double(q: Fraction) -> float:
    """The double nearest to ``q >= 0``, ties to even, by searching around an estimate.

    The estimate is within a few ulps; the candidates around it are compared as exact
    fractions, so this does not rely on any float division being correctly rounded.
    """
    guess = float(q.numerator) / float(q.denominator)
    candidates = [guess]
    up = down = guess
    for _ in range(6):
        up, down = math.nextafter(up, math.inf), math.nextafter(down, -math.inf)
        candidates += [up, down]

    def distance(x: float) -> tuple[Fraction, int]:
        odd_mantissa = struct.unpack("<Q", struct.pack("<d", x))[0] & 1
        return abs(Fraction(x) - q), odd_mantissa

    best = min(candidates, key=distance)
    assert best not in (up, down), "search window too narrow"
    return best


def exact_ms(year: int, month: int, day: int, hour: int, minute: int, second: int,
             nanos: int = 0, offset_seconds: int = 0) -> float:
    """Correctly rounded ms of a UTC-offset time, via ``calendar.timegm`` and Fractions."""
    seconds = calendar.timegm((year, month, day, hour, minute, second)) - offset_seconds
    return nearest_double(Fraction(seconds * 10**9 + nanos, NS_PER_MS))


# ------------------------------------------------------------------------ ns_to_ms


def test_ns_to_ms_is_one_correctly_rounded_division() -> None:
    """Integer ns divide exactly once: no intermediate float of the ns or of the seconds."""
    ns = 1751247501952174195
    assert ns_to_ms(ns) == nearest_double(Fraction(ns, NS_PER_MS))
    # through a float of the ns the last digits are lost: 1751247501952.174
    assert ns_to_ms(ns) != float(ns) / 1e6


def test_ns_to_ms_ties_go_to_even() -> None:
    """A quotient exactly between two doubles rounds to the even one."""
    # above 2**53 doubles are 2 apart: 2**53 + 1 is a tie between 2**53 (even) and 2**53 + 2
    assert ns_to_ms((2**53 + 1) * NS_PER_MS) == 2.0**53
    # 2**53 + 3 lies between 2**53 + 2 (odd mantissa) and 2**53 + 4 (even)
    assert ns_to_ms((2**53 + 3) * NS_PER_MS) == 2.0**53 + 4


def test_ns_to_ms_small_values() -> None:
    """Whole and fractional milliseconds."""
    assert ns_to_ms(0) == 0.0
    assert ns_to_ms(1_500_000) == 1.5
    assert ns_to_ms(1) == nearest_double(Fraction(1, NS_PER_MS))


@given(st.integers(min_value=0, max_value=2**80))
def test_ns_to_ms_matches_exact_rounding(ns: int) -> None:
    """For any ns, the result is the double nearest to ``ns / 10**6``."""
    assert ns_to_ms(ns) == nearest_double(Fraction(ns, NS_PER_MS))


# ------------------------------------------------------------------------- iso_to_ms


def test_iso_epoch_and_simple_times() -> None:
    """The epoch is 0 ms and fractions of a second become ms."""
    assert iso_to_ms("1970-01-01T00:00:00Z") == 0.0
    assert iso_to_ms("1970-01-01T00:00:01.5Z") == 1500.0
    assert iso_to_ms("1970-01-02T00:00:00Z") == 86_400_000.0


def test_iso_real_timestamp() -> None:
    """A real microsecond timestamp converts exactly."""
    assert iso_to_ms("2025-05-13T00:27:39.762878Z") == exact_ms(2025, 5, 13, 0, 27, 39, 762878000)


@pytest.mark.parametrize("digits", range(1, 10))
def test_iso_fractions_of_1_to_9_digits_are_exact(digits: int) -> None:
    """Fractions of 1 to 9 digits are kept exactly until the one final division."""
    fraction = "987654321"[:digits]
    nanos = int(fraction.ljust(9, "0"))
    text = f"2025-06-30T01:38:21.{fraction}Z"
    assert iso_to_ms(text) == exact_ms(2025, 6, 30, 1, 38, 21, nanos)


def test_iso_nanoseconds_do_not_go_through_float_seconds() -> None:
    """Nine fraction digits give the exact ms, not seconds-as-float times 1000."""
    result = iso_to_ms("2025-06-30T01:38:21.952174001Z")
    assert result == exact_ms(2025, 6, 30, 1, 38, 21, 952174001)
    # 1751247501.952174001 as a float, times 1000, is 1751247501952.1738
    assert result != 1751247501.952174001 * 1000


def test_iso_fraction_digits_past_the_ninth_are_dropped() -> None:
    """A fraction longer than nine digits (RFC 3339 allows any length) is read to the ns."""
    # 12 digits, a hostile-input case: .123456789 s, the last three digits dropped, not rounded
    assert iso_to_ms("2025-06-30T01:38:21.123456789999Z") == exact_ms(
        2025, 6, 30, 1, 38, 21, 123456789)
    assert iso_to_ms("2025-06-30T01:38:21.1234567891Z") == exact_ms(
        2025, 6, 30, 1, 38, 21, 123456789)
    # a hostile fraction of a million digits is read as fast and gives the same ms
    assert iso_to_ms("1970-01-01T00:00:01.5" + "0" * 1_000_000 + "Z") == 1500.0


@pytest.mark.parametrize(
    ("text", "offset_seconds"),
    [
        ("2025-05-12T20:27:39.762878-04:00", -4 * 3600),
        ("2025-05-13T06:27:39.762878+06:00", 6 * 3600),
        ("2025-05-13T05:57:39.762878+05:30", 5 * 3600 + 30 * 60),
        ("2025-05-13T05:57:39.762878+0530", 5 * 3600 + 30 * 60),
        ("2025-05-13T06:27:39.762878+06", 6 * 3600),
        ("2025-05-12T20:27:39.762878-04", -4 * 3600),
        ("2025-05-13T00:27:39.762878+00:00", 0),
        ("2025-05-13T00:27:39.762878-00:00", 0),
    ],
)
def test_iso_offsets_are_applied(text: str, offset_seconds: int) -> None:
    """A UTC offset is subtracted: every spelling here is 2025-05-13T00:27:39.762878Z."""
    local = dt.datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")
    expected = exact_ms(local.year, local.month, local.day, local.hour, local.minute,
                        local.second, 762878000, offset_seconds)
    assert iso_to_ms(text) == expected
    assert iso_to_ms(text) == iso_to_ms("2025-05-13T00:27:39.762878Z")


def test_iso_accepts_lowercase_space_and_comma() -> None:
    """``t``/space as separator, ``z`` and a comma before the fraction are accepted."""
    expected = exact_ms(2025, 1, 2, 3, 4, 5, 600000000)
    for text in ("2025-01-02t03:04:05.6z", "2025-01-02 03:04:05.6Z", "2025-01-02T03:04:05,6Z"):
        assert iso_to_ms(text) == expected, text


@pytest.mark.parametrize(
    "text",
    [
        "2025-05-12T20:27:39",  # no offset
        "2025-05-12T20:27:39.5",  # no offset
        "2025-05-12",  # a date only
        "2025-05-12T20:27Z",  # no seconds
        " 2025-05-12T20:27:39Z",
        "2025-05-12T20:27:39Z ",
        "2025-05-12T20:27:39.Z",  # an empty fraction
        "2025-05-12T20:27:39+5:00",  # a one-digit offset hour
        "2025-05-12T20:27:39+05:",  # a colon with no minutes
        "2025-05-12T20:27:39+05:3",  # one minute digit
        "2025-05-12T20:27:39+053",  # three offset digits
        "2025-05-12T20:27:39+5",  # a one-digit offset hour, no minutes
        "2025-05-12T20:27:39 +05:00",
        "20250512T202739Z",  # basic format
        "",
        "yesterday",
        "\uff12\uff10\uff12\uff15-05-12T20:27:39Z",  # fullwidth digits
        "\u0662\u0660\u0662\u0665-05-12T20:27:39Z",  # Arabic-Indic digits
    ],
)
def test_iso_wrong_shapes_are_invalid(text: str) -> None:
    """Only ``YYYY-MM-DDTHH:MM:SS[.f]`` with ``Z`` or an offset, in ASCII digits, is accepted."""
    assert iso_to_ms(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "2025-02-30T00:00:00Z",
        "2023-02-29T00:00:00Z",  # 2023 is not a leap year
        "2025-13-01T00:00:00Z",
        "2025-00-10T00:00:00Z",
        "2025-01-00T00:00:00Z",
        "2025-01-32T00:00:00Z",
        "2025-01-01T24:00:00Z",
        "2025-01-01T23:60:00Z",
        "2025-01-01T23:59:60Z",  # leap seconds are not representable
        "2025-01-01T12:00:00+24:00",
        "0000-01-01T00:00:00Z",
    ],
)
def test_iso_impossible_dates_are_invalid(text: str) -> None:
    """Impossible calendar dates, times and offsets give None, not an exception."""
    assert iso_to_ms(text) is None


def test_iso_leap_day_is_valid() -> None:
    """29 February of a leap year is a valid date."""
    assert iso_to_ms("2024-02-29T12:00:00Z") == exact_ms(2024, 2, 29, 12, 0, 0)


@pytest.mark.parametrize(
    "text",
    ["1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999999999Z", "1900-01-01T00:00:00Z",
     "1970-01-01T00:30:00+01:00"],
)
def test_iso_before_the_epoch_is_invalid(text: str) -> None:
    """Times before 1970-01-01T00:00:00Z (after applying the offset) are invalid."""
    assert iso_to_ms(text) is None


def test_iso_epoch_reached_through_an_offset_is_valid() -> None:
    """01:00+01:00 on 1970-01-01 is exactly the epoch."""
    assert iso_to_ms("1970-01-01T01:00:00+01:00") == 0.0
    assert iso_to_ms("1969-12-31T23:00:00-01:00") == 0.0


@given(
    st.datetimes(min_value=dt.datetime(1970, 1, 1), max_value=dt.datetime(9999, 12, 31)),
    st.text(alphabet="0123456789", max_size=9),
)
def test_iso_matches_exact_rounding(moment: dt.datetime, fraction: str) -> None:
    """Any UTC time with a 0-9 digit fraction converts to the correctly rounded ms."""
    text = moment.strftime("%Y-%m-%dT%H:%M:%S") + (f".{fraction}" if fraction else "") + "Z"
    nanos = int(fraction.ljust(9, "0"))
    expected = exact_ms(moment.year, moment.month, moment.day, moment.hour, moment.minute,
                        moment.second, nanos)
    assert iso_to_ms(text) == expected


# -------------------------------------------------------------------- ms_from_number


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, 0.0), (1700000000123, 1700000000123.0), (2.5, 2.5), (0.0, 0.0),
     (2**53 + 1, 2.0**53)],  # int to float rounds to nearest, ties to even
)
def test_numbers_are_ms(value: float, expected: float) -> None:
    """A finite non-negative int or float is a time in ms, returned as a float."""
    result = ms_from_number(value)
    assert result == expected
    assert isinstance(result, float)


@pytest.mark.parametrize(
    "value",
    [True, False, -1, -0.5, math.inf, -math.inf, math.nan, 10**400, -(10**400), "5", None,
     [1], b"1"],
)
def test_non_times_are_none(value: object) -> None:
    """bool, negative, non-finite, too-large and non-numbers are not times."""
    assert ms_from_number(value) is None


def test_time_to_ms_dispatches_on_type() -> None:
    """Strings are ISO-8601, numbers are ms, anything else is invalid."""
    assert time_to_ms("1970-01-01T00:00:01.5Z") == 1500.0
    assert time_to_ms("1500") is None
    assert time_to_ms(1500) == 1500.0
    assert time_to_ms(True) is None
    assert time_to_ms(None) is None
    assert time_to_ms(b"1970-01-01T00:00:01Z") is None


def test_offset_minutes_of_60_or_more_are_invalid() -> None:
    """An offset like +05:99 is not ISO-8601, so the time is invalid (None)."""
    assert iso_to_ms("2025-01-01T00:00:00+05:99") is None
    assert iso_to_ms("2025-01-01T00:00:00+05:60") is None
    # +05:59 is valid: 2025-01-01T00:00:00+05:59 = 2024-12-31T18:01:00Z
    # = 1735668060 s since the epoch (20088 days * 86400 + 18 h + 1 min).
    assert iso_to_ms("2025-01-01T00:00:00+05:59") == 1735668060000.0


@given(
    year=st.integers(1960, 2200), month=st.integers(0, 13), day=st.integers(0, 32),
    hour=st.integers(0, 25), minute=st.integers(0, 61), second=st.integers(0, 61),
    milli=st.integers(0, 999),
)
def test_millisecond_z_shortcut_equals_the_exact_conversion(
    year: int, month: int, day: int, hour: int, minute: int, second: int, milli: int
) -> None:
    """The cached path for YYYY-MM-DDTHH:MM:SS.mmmZ gives exactly iso_to_ms_exact's value."""
    from wavemetrics.readers.timestamps import iso_to_ms_exact

    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{milli:03d}Z"
    assert iso_to_ms(text) == iso_to_ms_exact(text)
    assert iso_to_ms(text) == iso_to_ms(text)  # and again, from the cache
