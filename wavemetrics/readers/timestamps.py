"""Reader times to float ms since the Unix epoch (``docs/formats.md``, "For every format")."""

from __future__ import annotations

import datetime as dt
import math
import re

__all__ = ["iso_to_ms", "iso_to_ms_exact", "ms_from_number", "ns_to_ms", "time_to_ms"]

# Calendar arithmetic is datetime's; the regex only fixes the accepted shape,
# because fromisoformat before 3.11 rejects "Z" and no version keeps more than
# microseconds (OTLP and some exporters write nanoseconds). A fraction may have
# any number of digits (RFC 3339 sets no limit): the first nine are read, the
# rest dropped. Offsets are ``+HH:MM``, ``+HHMM`` or ``+HH`` (ISO 8601).
_ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?"
    r"(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)",
    re.ASCII,
)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_NS_PER_MS = 10**6


def ns_to_ms(ns: int) -> float:
    """Integer nanoseconds to float ms by one correctly rounded division.

    >>> ns_to_ms(1751247501952174001)
    1751247501952.174
    """
    return ns / _NS_PER_MS


_FAST_ISO = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}):([0-5]\d):([0-5]\d)\.(\d{3})Z", re.ASCII)
_HOUR_MS: dict[str, float | None] = {}
_HOUR_CACHE_SIZE = 4096
_UNKNOWN = -1.0  # no valid hour maps to a negative time


def iso_to_ms(text: str) -> float | None:
    """ISO-8601 date-time with ``Z`` or a UTC offset to ms since the epoch, else ``None``.

    The common ``YYYY-MM-DDTHH:MM:SS.mmmZ`` shape is computed from a per-hour
    cache of :func:`iso_to_ms_exact`; the result is the same double (integer ms
    below 2**53 add exactly). Other shapes go to :func:`iso_to_ms_exact`.

    >>> iso_to_ms("2025-06-08T11:00:13.842Z") == iso_to_ms_exact("2025-06-08T11:00:13.842Z")
    True
    """
    match = _FAST_ISO.fullmatch(text)
    if match is None:
        return iso_to_ms_exact(text)
    hour, minute, second, milli = match.groups()
    base = _HOUR_MS.get(hour, _UNKNOWN)
    if base is _UNKNOWN:
        if len(_HOUR_MS) >= _HOUR_CACHE_SIZE:
            _HOUR_MS.clear()
        base = _HOUR_MS[hour] = iso_to_ms_exact(hour + ":00:00Z")
    if base is None:
        return None
    return base + (int(minute) * 60_000 + int(second) * 1000 + int(milli))


def iso_to_ms_exact(text: str) -> float | None:
    """ISO-8601 date-time with ``Z`` or a UTC offset to ms since the epoch, else ``None``.

    The fraction is read to the nanosecond (its first nine digits, any further
    digits dropped) and kept exactly until the final division. The offset is
    ``Z``, ``+HH:MM``, ``+HHMM`` or ``+HH`` (``docs/formats.md``, general
    rules). Times without an offset and times before 1970 are invalid (``None``).

    >>> iso_to_ms("1970-01-01T00:00:01.5Z")
    1500.0
    >>> iso_to_ms("2025-05-12T20:27:39.762878-04:00") == iso_to_ms("2025-05-13T00:27:39.762878Z")
    True
    >>> iso_to_ms("2025-05-12T20:27:39") is None
    True
    """
    match = _ISO.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zulu, sign, off_h, off_m = match.groups()
    try:
        if zulu:
            tz = dt.timezone.utc
        elif int(off_m or 0) >= 60:  # "+05:99" is not an offset
            return None
        else:
            offset = dt.timedelta(hours=int(off_h), minutes=int(off_m or 0))
            tz = dt.timezone(-offset if sign == "-" else offset)
        moment = dt.datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), tzinfo=tz
        )
    except ValueError:  # day 31 of February, offset of 24 hours, ...
        return None
    seconds = (moment - _EPOCH) // dt.timedelta(seconds=1)
    if seconds < 0:
        return None
    nanos = int((fraction or "")[:9].ljust(9, "0"))
    return ns_to_ms(seconds * 1_000_000_000 + nanos)


def ms_from_number(value: object) -> float | None:
    """A JSON number of ms to float ms: finite, ``>= 0``, not ``bool``; else ``None``.

    >>> ms_from_number(1700000000123), ms_from_number(-1), ms_from_number(True)
    (1700000000123.0, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        ms = float(value)
    except OverflowError:
        return None
    if not math.isfinite(ms) or ms < 0:
        return None
    return ms


def time_to_ms(value: object) -> float | None:
    """A reader timestamp (number of ms, or ISO-8601 string) to ms, else ``None``."""
    if isinstance(value, str):
        return iso_to_ms(value)
    return ms_from_number(value)
