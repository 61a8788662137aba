//! Reader times to float ms since the Unix epoch (`docs/formats.md`, general rules),
//! exactly as `wavemetrics/readers/timestamps.py` computes them.

/// `ns / 10**6` as one correctly rounded division of the exact integer
/// (Python's `int / int`), for `0 <= ns < 2**100`.
pub fn ns_to_ms(ns: u128) -> f64 {
    const D: u128 = 1_000_000;
    if ns < (1u128 << 53) {
        // both operands are exact doubles: IEEE division rounds correctly
        return ns as f64 / 1e6;
    }
    // quotient >= 2**53 / 10**6 > 2**33: scale it to 55+ bits, then round to 53
    let q = ns / D;
    let bits = 128 - q.leading_zeros();
    let k = 56u32.saturating_sub(bits);
    let scaled = ns << k;
    let m = scaled / D;
    let sticky = !scaled.is_multiple_of(D);
    let mbits = 128 - m.leading_zeros();
    let s = mbits - 53;
    let lower = m & ((1u128 << s) - 1);
    let half = 1u128 << (s - 1);
    let mut mant = m >> s;
    if lower > half || (lower == half && (sticky || mant & 1 == 1)) {
        mant += 1;
    }
    // mant <= 2**53 is an exact double; a power of two scales it exactly
    (mant as f64) * 2f64.powi(s as i32 - k as i32)
}

fn digits(b: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u32::from(c - b'0');
    }
    Some(v)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    // Howard Hinnant's days_from_civil (proleptic Gregorian, as Python's datetime)
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) => 29,
        _ => 28,
    }
}

/// `iso_to_ms` of `timestamps.py`: `YYYY-MM-DD[Tt ]HH:MM:SS[.,fraction of any digits,
/// the first nine read]` then `Z`/`z`, `+HH:MM`, `+HHMM` or `+HH`; `None` for any other shape, an invalid
/// calendar value, an offset of 24 h or more, or a time before 1970.
pub fn iso_to_ms(text: &[u8]) -> Option<f64> {
    let n = text.len();
    if n < 20 {
        return None;
    }
    let sep = |i: usize, c: u8| text[i] == c;
    let shape = sep(4, b'-')
        && sep(7, b'-')
        && matches!(text[10], b'T' | b't' | b' ')
        && sep(13, b':')
        && sep(16, b':');
    if !shape {
        return None;
    }
    let year = digits(&text[0..4])?;
    let month = digits(&text[5..7])?;
    let day = digits(&text[8..10])?;
    let hour = digits(&text[11..13])?;
    let minute = digits(&text[14..16])?;
    let second = digits(&text[17..19])?;
    let mut i = 19;
    let mut nanos = 0u32;
    if matches!(text[i], b'.' | b',') {
        let begin = i + 1;
        let mut end = begin;
        while end < n && text[end].is_ascii_digit() {
            end += 1;
        }
        let len = end - begin;
        if len == 0 {
            return None;
        }
        // any number of digits: the first nine are read, the rest dropped
        let kept = len.min(9);
        nanos = digits(&text[begin..begin + kept])? * 10u32.pow(9 - kept as u32);
        i = end;
    }
    let rest = &text[i..];
    let (sign, oh, om) = match rest {
        [b'Z' | b'z'] => (b'+', 0, 0),
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] | [sign @ (b'+' | b'-'), h1, h2, m1, m2] => {
            (*sign, digits(&[*h1, *h2])?, digits(&[*m1, *m2])?)
        }
        [sign @ (b'+' | b'-'), h1, h2] => (*sign, digits(&[*h1, *h2])?, 0),
        _ => return None,
    };
    if om >= 60 || oh >= 24 {
        return None;
    }
    let offset_s = i64::from(oh * 3600 + om * 60);
    let offset_s = if sign == b'-' { -offset_s } else { offset_s };
    if year == 0 || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let days = days_from_civil(i64::from(year), i64::from(month), i64::from(day));
    let seconds =
        days * 86_400 + i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second)
            - offset_s;
    if seconds < 0 {
        return None;
    }
    if nanos.is_multiple_of(1_000_000) {
        // whole ms (the usual `.mmmZ`): an integer below 2**53 (years < 10000), exact,
        // so the correctly rounded quotient without the 128-bit division
        return Some((seconds * 1000 + i64::from(nanos / 1_000_000)) as f64);
    }
    let ns = seconds as u128 * 1_000_000_000 + u128::from(nanos);
    Some(ns_to_ms(ns))
}

/// Howard Hinnant's civil_from_days: the proleptic Gregorian (year, month, day) of
/// `days` since 1970-01-01 (any `i64` whose year fits; the callers bound it).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // day in 1..=31 and month in 1..=12: the casts keep them whole
    (year, month as u32, day as u32)
}

/// `_iso(ms)` of `views/report.py`: `datetime.fromtimestamp(ms / 1000, tz=utc)
/// .isoformat(timespec="milliseconds")` with `Z` for `+00:00`, as CPython computes it:
/// the seconds' fraction rounded to whole microseconds half to even (`modf`, then
/// `_PyTime_ROUND_HALF_EVEN`), then cut to milliseconds. `None` where Python raises
/// (NaN: `ValueError`; an infinity or a year outside 1..=9999: `OverflowError`,
/// `OSError` or `ValueError`), for which `_iso` writes `f"{ms} ms"`.
pub fn utc_iso_ms(ms: f64) -> Option<String> {
    let seconds = ms / 1000.0;
    if !seconds.is_finite() {
        return None;
    }
    let whole = seconds.trunc();
    let mut micros = ((seconds - whole) * 1e6).round_ties_even();
    // saturated far past year 9999 (checked below); a fraction is only there below 2**53
    let mut whole = whole as i64;
    if micros >= 1e6 {
        // a fraction under one second rounds at most to a whole one: exactly 1e6 us
        micros = 0.0;
        whole += 1;
    } else if micros < 0.0 {
        micros += 1e6;
        whole -= 1;
    }
    let (days, second_of_day) = (whole.div_euclid(86_400), whole.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    if !(1..=9999).contains(&year) {
        return None;
    }
    // 0 <= micros < 1e6, a whole number: its millisecond part is 0..=999
    let millis = (micros as u32) / 1000;
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_text_as_datetime_isoformat_writes_it() {
        let iso = |ms: f64| utc_iso_ms(ms);
        assert_eq!(iso(0.0).as_deref(), Some("1970-01-01T00:00:00.000Z"));
        assert_eq!(iso(-0.0).as_deref(), Some("1970-01-01T00:00:00.000Z"));
        // 2024-02-29 (a leap day) 12:34:56.789: 19782 days, 45296.789 s
        let leap = (19_782.0 * 86_400.0 + 45_296.0) * 1000.0 + 789.0;
        assert_eq!(iso(leap).as_deref(), Some("2024-02-29T12:34:56.789Z"));
        // milliseconds are cut, not rounded: .9996 s is 999600 us, so .999
        assert_eq!(iso(999.6).as_deref(), Some("1970-01-01T00:00:00.999Z"));
        // microseconds round half to even (0.5 us -> 0), then cut to ms
        assert_eq!(iso(0.0005).as_deref(), Some("1970-01-01T00:00:00.000Z"));
        // 999.5 ms is 999500 us: the half millisecond is cut
        assert_eq!(iso(999.5).as_deref(), Some("1970-01-01T00:00:00.999Z"));
        // a fraction that rounds up to a whole second carries into the seconds
        assert_eq!(
            iso(59_999.9999999).as_deref(),
            Some("1970-01-01T00:01:00.000Z")
        );
        // before 1970: the fraction is taken from below (-1 ms is 23:59:59.999)
        assert_eq!(iso(-1.0).as_deref(), Some("1969-12-31T23:59:59.999Z"));
        assert_eq!(
            iso(-86_400_000.0).as_deref(),
            Some("1969-12-31T00:00:00.000Z")
        );
        // the first and last instants of years 1 and 9999 (719162 and 2932896 days)
        let first = -719_162.0 * 86_400_000.0;
        assert_eq!(iso(first).as_deref(), Some("0001-01-01T00:00:00.000Z"));
        assert_eq!(iso(first - 1.0), None);
        // ms / 1000 is not exact there: 253402300799.999 is held as 253402300799 +
        // 0.998992919921875, whose 998993 us are cut to .998 (Python prints the same)
        let last = 2_932_897.0 * 86_400_000.0 - 1.0;
        assert_eq!(iso(last).as_deref(), Some("9999-12-31T23:59:59.998Z"));
        assert_eq!(iso(last + 1.0), None);
        for never in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300, -1e300] {
            assert_eq!(iso(never), None, "{never}");
        }
    }

    #[test]
    fn civil_dates_of_day_numbers() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(-719_162), (1, 1, 1));
        // every day of 1999-2001 and 2099-2101 against days_from_civil
        for days in (10_592..11_688).chain(47_117..48_212) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, i64::from(m), i64::from(d)), days);
        }
    }

    #[test]
    fn exact_division_matches_python() {
        // values checked with Python: 1751247501952174001 / 10**6
        assert_eq!(ns_to_ms(1_751_247_501_952_174_001), 1751247501952.174);
        assert_eq!(ns_to_ms(1_500_000_000), 1500.0);
        assert_eq!(ns_to_ms(0), 0.0);
        // 2**53 + 1 ns: above the exact-double range, rounds like Python
        assert_eq!(ns_to_ms(9_007_199_254_740_993), 9007199254.740993);
    }

    #[test]
    fn iso_shapes() {
        assert_eq!(iso_to_ms(b"1970-01-01T00:00:01.5Z"), Some(1500.0));
        assert_eq!(
            iso_to_ms(b"2025-05-12T20:27:39.762878-04:00"),
            iso_to_ms(b"2025-05-13T00:27:39.762878Z")
        );
        assert_eq!(
            iso_to_ms(b"2025-06-08T11:00:13.842Z"),
            Some(1749380413842.0)
        );
        assert_eq!(iso_to_ms(b"2025-05-12T20:27:39"), None);
        assert_eq!(iso_to_ms(b"1969-12-31T23:59:59Z"), None);
        assert_eq!(iso_to_ms(b"2025-02-29T00:00:00Z"), None);
        assert_eq!(iso_to_ms(b"2024-02-29T00:00:00Z"), Some(1709164800000.0));
        assert_eq!(iso_to_ms(b"2025-01-01T00:00:00+24:00"), None);
        assert_eq!(iso_to_ms(b"2025-01-01T00:00:00+05:60"), None);
        // any number of fraction digits: the first nine are read (timestamps.py)
        assert_eq!(
            iso_to_ms(b"2025-01-01T00:00:00.1234567899999Z"),
            iso_to_ms(b"2025-01-01T00:00:00.123456789Z")
        );
        assert_eq!(
            iso_to_ms(b"2025-01-01T00:00:00.5000000009Z"),
            Some(1735689600500.0)
        );
        // +HH is an offset of whole hours; +HH: is nothing
        assert_eq!(iso_to_ms(b"2025-01-01T05:00:00+05"), Some(1735689600000.0));
        assert_eq!(iso_to_ms(b"2025-01-01T05:00:00+05:"), None);
        assert_eq!(iso_to_ms(b"2025-01-01T05:00:00+5"), None);
        assert_eq!(
            iso_to_ms(b"2025-01-01 00:00:00,5+0100"),
            Some(1735686000500.0)
        );
        assert_eq!(iso_to_ms(b"2025-01-01T24:00:00Z"), None);
        assert_eq!(iso_to_ms(b"0000-01-01T00:00:00Z"), None);
    }

    #[test]
    fn whole_and_fractional_milliseconds() {
        // whole ms take the integer path, anything finer the exact division
        assert_eq!(
            iso_to_ms(b"2026-01-01T00:00:00.009Z"),
            Some(1767225600009.0)
        );
        assert_eq!(iso_to_ms(b"1970-01-01T00:00:02.010Z"), Some(2010.0));
        assert_eq!(iso_to_ms(b"1970-01-01T00:00:00.0005Z"), Some(0.5));
        assert_eq!(iso_to_ms(b"1970-01-01T00:00:00.0015Z"), Some(1.5));
        // 1735689600000001000 / 10**6 in Python
        assert_eq!(
            iso_to_ms(b"2025-01-01T00:00:00.000001Z"),
            Some(1735689600000.001)
        );
    }

    // Expected quotients below are Python's `ns / 10**6` (int / int, correctly
    // rounded: the contract of `timestamps.py`), worked out bit by bit in the
    // comments; the slow path rounds m (56 bits) at s = 3 bits.
    #[test]
    fn rounding_to_nearest_even_above_two_to_the_53() {
        const D: u128 = 1_000_000;
        let x = 1u128 << 54; // quotients near 2**54: one ulp is 4
                             // exact ties (no remainder): to the even mantissa, down then up
        assert_eq!(ns_to_ms(D * (x + 2)), 18014398509481984.0);
        assert_eq!(ns_to_ms(D * (x + 6)), 18014398509481992.0);
        // a tie by the kept bits but a remainder below them (sticky): up
        assert_eq!(ns_to_ms(D * (x + 2) + 1), 18014398509481988.0);
        // just below the tie, with a remainder: down
        assert_eq!(ns_to_ms(D * (x + 2) - 1), 18014398509481984.0);
        // past the half: up; before it: down
        assert_eq!(ns_to_ms(D * (x + 3)), 18014398509481988.0);
        assert_eq!(ns_to_ms(D * (x + 1)), 18014398509481984.0);
        // the top of the domain, 2**100 - 1: no scaling at all (k = 0)
        assert_eq!(ns_to_ms((1u128 << 100) - 1), 1.2676506002282293e24);
        // 9999-12-31T23:59:59.999999999Z in ns: rounds up to a whole ms
        assert_eq!(ns_to_ms(253_402_300_799_999_999_999), 253402300800000.0);
        // both sides of the exact-double limit
        assert_eq!(ns_to_ms((1u128 << 53) - 1), 9007199254.740992);
        assert_eq!(ns_to_ms(1u128 << 53), 9007199254.740992);
    }

    #[test]
    fn calendar_and_clock_fields() {
        // each expected value: seconds since the epoch of the UTC date (Python's
        // datetime), times 1000
        for (text, ms) in [
            ("2025-01-01T00:00:00Z", 1735689600000.0), // 20 bytes: the shortest shape
            ("1970-01-01T00:00:00Z", 0.0),             // the epoch itself is kept
            ("1970-03-01T00:00:00Z", 5097600000.0),
            ("2000-02-29T12:34:56Z", 951827696000.0), // 2000: a leap year (by 400)
            ("2001-01-01T00:00:00Z", 978307200000.0),
            ("2100-03-01T00:00:00Z", 4107542400000.0),
            ("2400-02-29T00:00:00Z", 13574563200000.0),
            ("2025-01-31T23:59:59Z", 1738367999000.0),
            ("2025-02-28T00:00:00Z", 1740700800000.0),
            ("2025-03-31T00:00:00Z", 1743379200000.0),
            ("2025-04-30T00:00:00Z", 1745971200000.0),
            ("2025-05-31T00:00:00Z", 1748649600000.0),
            ("2025-06-30T00:00:00Z", 1751241600000.0),
            ("2025-07-31T00:00:00Z", 1753920000000.0),
            ("2025-08-31T00:00:00Z", 1756598400000.0),
            ("2025-09-30T00:00:00Z", 1759190400000.0),
            ("2025-10-31T00:00:00Z", 1761868800000.0),
            ("2025-11-30T00:00:00Z", 1764460800000.0),
            ("2025-12-31T23:59:59Z", 1767225599000.0),
            ("9999-12-31T23:59:59.999999999Z", 253402300800000.0),
            ("2025-07-04T09:08:07.000000001z", 1751620087000.0),
        ] {
            assert_eq!(iso_to_ms(text.as_bytes()), Some(ms), "{text}");
        }
        for text in [
            "2025-04-31T00:00:00Z",
            "2025-06-31T00:00:00Z",
            "2025-09-31T00:00:00Z",
            "2025-11-31T00:00:00Z",
            "2025-01-32T00:00:00Z",
            "2100-02-29T00:00:00Z", // a century that is not a leap year
            "2025-13-01T00:00:00Z",
            "2025-00-10T00:00:00Z",
            "2025-01-00T00:00:00Z",
            "2025-01-01T00:60:00Z",
            "2025-01-01T00:00:60Z",
            "2025-01-01T23:59:5xZ",
            "2025",
        ] {
            assert_eq!(iso_to_ms(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn separators_fractions_and_offsets() {
        // every separator is checked on its own
        for text in [
            "2025/01-01T00:00:00Z",
            "2025-01/01T00:00:00Z",
            "2025-01-01X00:00:00Z",
            "2025-01-01T00.00:00Z",
            "2025-01-01T00:00.00Z",
            "2025-01-01T00:00:00.Z",   // a separator with no digit after it
            "2025-01-01T00:00:00.123", // digits to the end: no zone
            "2025-01-01T00:00:00.12x3Z",
            "2025-01-01T00:00:00Z ",
            "1970-01-01T00:00:00+00:01", // one minute before the epoch
        ] {
            assert_eq!(iso_to_ms(text.as_bytes()), None, "{text}");
        }
        for (text, ms) in [
            // 2025-05-13T00:27:39.762878Z
            ("2025-05-12T20:27:39.762878-04:00", 1747096059762.878),
            ("2025-01-01T05:30:00+05:30", 1735689600000.0),
            ("2025-01-01T00:00:00-05:30", 1735709400000.0),
            ("2025-01-01T00:00:00-2359", 1735775940000.0),
            ("2025-01-01T00:00:00.123456789Z", 1735689600123.4568),
            ("2025-01-01T00:00:00.1234567899999Z", 1735689600123.4568),
            ("2025-06-08T11:00:13.842Z", 1749380413842.0),
        ] {
            assert_eq!(iso_to_ms(text.as_bytes()), Some(ms), "{text}");
        }
    }
}
