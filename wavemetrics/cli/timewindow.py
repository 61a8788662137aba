"""Dates and times of ``--since``/``--until``/``--timezone`` and the day/week/month labels.

A bound is a date (``2025-09-24`` or ``20250924``) or an ISO 8601 time
(``2025-09-24T19:30``, seconds, fractions and an offset or ``Z`` optional). A
date or a time without an offset is read in ``--timezone`` (an IANA name) or,
without it, in the local time zone of the machine. ``--since`` is inclusive;
``--until`` a date means through the end of that day, ``--until`` a time is
exclusive. Times are Unix ms, as observations carry them (docs/cli.md).
"""

from __future__ import annotations

import datetime as dt
import re

__all__ = ["BadMoment", "Window", "Zone", "bound_text", "label_of", "parse_bound", "resolve_zone"]

Zone = dt.tzinfo | None  # None: the machine's local time zone (DST-aware)

_COMPACT_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")


class BadMoment(ValueError):
    """A bound or zone name that cannot be read; the message says what is accepted."""


def resolve_zone(name: str | None) -> Zone:
    """The zone named (IANA, e.g. ``Europe/Paris``, or ``UTC``); ``None`` for local time.

    Raises :class:`BadMoment` for an unknown name.
    """
    if name is None:
        return None
    if name.upper() in ("UTC", "Z"):
        return dt.timezone.utc
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadMoment(f"{name!r}: not a known time zone (an IANA name such as Europe/Paris)"
                        ) from None


def _aware(moment: dt.datetime, zone: Zone) -> dt.datetime:
    if moment.tzinfo is not None:
        return moment
    if zone is None:
        return moment.astimezone()  # a naive time is local time (mktime: DST-aware)
    return moment.replace(tzinfo=zone)


def _ms(moment: dt.datetime) -> float:
    return moment.timestamp() * 1000.0


#: A bound past the years a time can hold (1 to 9999, in its zone and in UTC).
_OUT_OF_RANGE = "{text!r}: out of the range of times (the years 1 to 9999)"


def _bound(text: str, zone: Zone, *, until: bool) -> dt.datetime:
    """The bound as an aware time (an ``until`` date: the start of the next day)."""
    value = text.strip()
    compact = _COMPACT_DATE.match(value)
    if compact:
        value = "-".join(compact.groups())
    try:
        if len(value) == 10:
            day = dt.date.fromisoformat(value)
            if until:
                day += dt.timedelta(days=1)
            moment = dt.datetime(day.year, day.month, day.day)
        else:
            moment = dt.datetime.fromisoformat(
                value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise BadMoment(
            f"{text!r}: not a date (2025-09-24 or 20250924) or an ISO time (2025-09-24T19:30)"
        ) from None
    except OverflowError:  # the day after 9999-12-31
        raise BadMoment(_OUT_OF_RANGE.format(text=text)) from None
    return _aware(moment, zone)


def parse_bound(text: str, zone: Zone, *, until: bool) -> float:
    """The bound in Unix ms; an ``until`` date is the start of the next day (exclusive).

    >>> parse_bound("2025-09-24", dt.timezone.utc, until=False)
    1758672000000.0
    >>> parse_bound("20250924", dt.timezone.utc, until=True)
    1758758400000.0
    >>> parse_bound("2025-09-24T19:30:00+02:00", None, until=False)
    1758735000000.0
    """
    try:
        return _ms(_bound(text, zone, until=until))
    except (OverflowError, ValueError) as error:  # a local or UTC time before year 1
        if isinstance(error, BadMoment):
            raise
        raise BadMoment(_OUT_OF_RANGE.format(text=text)) from None


def bound_text(text: str, zone: Zone, *, until: bool) -> str:
    """The bound :func:`parse_bound` reads, as an ISO 8601 time with its UTC offset (the
    offset of ``zone``, of the text, or of local time at that moment), as the outputs
    record it (docs/cli.md, "Options in the output"); seconds always, microseconds
    only when the time is not a whole second. Raises :class:`BadMoment` as :func:`parse_bound` does.

    >>> bound_text("2025-09-24", dt.timezone.utc, until=True)
    '2025-09-25T00:00:00+00:00'
    >>> bound_text("2025-09-24T19:30+02:00", None, until=False)
    '2025-09-24T19:30:00+02:00'
    """
    return _bound(text, zone, until=until).isoformat()


def label_of(at_ms: float, period: str, zone: Zone) -> str:
    """The ``day`` (``2025-09-24``), ISO ``week`` (``2025-W39``) or ``month`` (``2025-09``)
    of a time in ms, in ``zone`` (local time for ``None``); ``unknown`` for a time the
    calendar cannot hold there (past year 9999 or before year 1, in the zone or in UTC).

    >>> label_of(1758735000000.0, "week", dt.timezone.utc)
    '2025-W39'
    """
    try:
        moment = dt.datetime.fromtimestamp(at_ms / 1000.0, tz=zone or None)
        if zone is None:  # local time: its offset is found through UTC, which may overflow
            moment = moment.astimezone()
    except (OverflowError, OSError, ValueError):
        return "unknown"
    if period == "day":
        return moment.date().isoformat()
    if period == "month":
        return f"{moment.year:04d}-{moment.month:02d}"
    year, week, _ = moment.isocalendar()
    return f"{year:04d}-W{week:02d}"


class Window:
    """The ``--since``/``--until`` window of a run: its bounds in Unix ms (``None``:
    open), as the outputs record them (:func:`bound_text`), as given, and the zone.

    Raises :class:`BadMoment` for a bound or zone that cannot be read, and for a
    ``since`` that is not before ``until``."""

    def __init__(self, since: str | None, until: str | None, timezone: str | None) -> None:
        self.zone = resolve_zone(timezone)
        self.since_ms = None if since is None else parse_bound(since, self.zone, until=False)
        self.until_ms = None if until is None else parse_bound(until, self.zone, until=True)
        # the bounds as the outputs record them: ISO times with their offset
        self.since_text = None if since is None else bound_text(since, self.zone, until=False)
        self.until_text = None if until is None else bound_text(until, self.zone, until=True)
        if (self.since_ms is not None and self.until_ms is not None
                and self.since_ms >= self.until_ms):
            raise BadMoment(f"--since {since} is not before --until {until}")
        self.since, self.until, self.timezone = since, until, timezone

    @property
    def active(self) -> bool:
        return self.since_ms is not None or self.until_ms is not None

    def describe(self) -> str:
        """The bounds as given, e.g. ``--since 2030-01-01 --until 2030-02-01``."""
        return " ".join(f"--{name} {value}" for name, value in
                        (("since", self.since), ("until", self.until)) if value is not None)
