"""wavemetrics.cli.timewindow: ``--since``/``--until`` bounds, ``--timezone`` and period labels,
with Unix ms computed by hand (docs/cli.md "Time windows")."""

from __future__ import annotations

import datetime as dt

import pytest

from wavemetrics.cli.timewindow import BadMoment, bound_text, label_of, parse_bound, resolve_zone

UTC = dt.timezone.utc
#: 2025-09-24T00:00:00Z: 20 355 days after 1970-01-01, times 86 400 000 ms.
D = 20_355 * 86_400_000


def test_hand_computed_epoch_of_the_reference_day() -> None:
    """The reference day used below is 1 758 672 000 000 ms."""
    assert D == 1_758_672_000_000


@pytest.mark.parametrize("text", ["2025-09-24", "20250924", " 2025-09-24 "])
def test_since_a_date_is_its_midnight(text: str) -> None:
    """A date, dashed or compact (spaces trimmed), starts at 00:00 in the zone."""
    assert parse_bound(text, UTC, until=False) == D


def test_until_a_date_is_the_next_midnight() -> None:
    """``--until`` a date includes the whole day: the bound is the next day's 00:00."""
    assert parse_bound("2025-09-24", UTC, until=True) == D + 86_400_000


def test_until_a_time_is_the_time_itself() -> None:
    """``--until`` a time is not moved: 19:30:00.250Z is 70 200 250 ms after midnight."""
    assert parse_bound("2025-09-24T19:30:00.250Z", UTC, until=True) == D + 70_200_250
    assert parse_bound("2025-09-24T19:30:00.250z", UTC, until=False) == D + 70_200_250


def test_an_offset_wins_over_the_zone() -> None:
    """A time with an offset ignores ``--timezone``: 19:30+02:00 is 17:30Z."""
    tokyo = resolve_zone("Asia/Tokyo")
    assert parse_bound("2025-09-24T19:30+02:00", tokyo, until=False) == D + 63_000_000


def test_a_naive_date_is_read_in_the_zone() -> None:
    """Midnight in Paris (UTC+2 in summer time) is 22:00Z the day before."""
    paris = resolve_zone("Europe/Paris")
    assert parse_bound("2025-09-24", paris, until=False) == D - 7_200_000


@pytest.mark.parametrize("text", ["yesterday", "2025-13-01", "2025-09-24T25:00", ""])
def test_unreadable_bound_is_a_bad_moment(text: str) -> None:
    """A bound that is neither a date nor an ISO time raises BadMoment quoting it."""
    with pytest.raises(BadMoment, match="not a date"):
        parse_bound(text, UTC, until=False)


@pytest.mark.parametrize("text", ["9999-12-31", "99991231"])
def test_a_bound_past_the_years_a_time_holds_is_a_bad_moment(text: str) -> None:
    """An ``--until`` date whose next day is past 9999-12-31 raises BadMoment quoting it
    (it was an OverflowError traceback); as ``--since``, the day itself is a time."""
    with pytest.raises(BadMoment, match=f"'{text}': out of the range of times"):
        parse_bound(text, UTC, until=True)
    assert parse_bound(text, UTC, until=False) == 253_402_214_400_000.0


def test_zone_names() -> None:
    """UTC and Z are UTC, no name is local time (None), an unknown name is a BadMoment."""
    assert resolve_zone("utc") is UTC
    assert resolve_zone("Z") is UTC
    assert resolve_zone(None) is None
    with pytest.raises(BadMoment, match="'Mars/Olympus': not a known time zone"):
        resolve_zone("Mars/Olympus")


@pytest.mark.parametrize(("at_ms", "period", "label"), [
    (D, "day", "2025-09-24"),
    (D - 1, "day", "2025-09-23"),
    (D, "month", "2025-09"),
    (D, "week", "2025-W39"),  # Wednesday of ISO week 39
    # 2024-12-30 (a Monday) is in ISO week 1 of 2025: 20 087 days after the epoch
    (20_087 * 86_400_000, "week", "2025-W01"),
    (20_087 * 86_400_000, "month", "2024-12"),
])
def test_labels_in_utc(at_ms: int, period: str, label: str) -> None:
    """Day, month and ISO week labels of a time, the ISO year where the week crosses a year."""
    assert label_of(float(at_ms), period, UTC) == label


def test_label_in_another_zone_moves_the_day() -> None:
    """23:30Z on 09-23 is 01:30 on 09-24 in Paris (UTC+2)."""
    assert label_of(float(D - 1_800_000), "day", resolve_zone("Europe/Paris")) == "2025-09-24"
    assert label_of(float(D - 1_800_000), "day", UTC) == "2025-09-23"


def test_a_time_out_of_range_is_labelled_unknown() -> None:
    """A time no calendar can hold (1e20 ms, about 3 billion years) is ``unknown``."""
    assert label_of(1e20, "day", UTC) == "unknown"


def test_a_local_time_whose_utc_is_past_the_calendar_is_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """253402300800000 ms is 10000-01-01T00:00Z: 9999-12-31 20:30 in St. John's
    (UTC-3:30), which ``fromtimestamp`` gives in local time but whose offset, found
    through UTC, does not fit the calendar: ``unknown``, as in the zone named (whose
    conversion starts from UTC); a day earlier is a day of 9999."""
    import time

    monkeypatch.setenv("TZ", "America/St_Johns")
    time.tzset()
    try:
        assert label_of(253402300800000.0, "day", None) == "unknown"
        assert label_of(253402300799999.0 - 86_400_000, "month", None) == "9999-12"
    finally:
        monkeypatch.undo()
        time.tzset()
    assert label_of(253402300800000.0, "day", resolve_zone("America/St_Johns")) == "unknown"


def test_bound_text_is_the_instant_with_its_offset() -> None:
    """The outputs record a bound as the ISO time it means: the zone's offset at that
    moment (Paris: +02:00 in summer, +01:00 in winter), seconds always, microseconds
    only when not a whole second; ``--until`` a date is the next day's start."""
    paris = resolve_zone("Europe/Paris")
    assert bound_text("2026-04-18T13:40", UTC, until=False) == "2026-04-18T13:40:00+00:00"
    assert bound_text("2026-04-18", paris, until=True) == "2026-04-19T00:00:00+02:00"
    assert bound_text("20260118", paris, until=False) == "2026-01-18T00:00:00+01:00"
    assert bound_text("2026-04-18T13:40:00.25Z", paris, until=False) == (
        "2026-04-18T13:40:00.250000+00:00")
    with pytest.raises(BadMoment):
        bound_text("yesterday", UTC, until=False)
