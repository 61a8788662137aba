//! The scalars of a JSON document byte for byte as CPython 3.11's `json.dumps`
//! writes them, so that a document rendered here is identical to
//! `json.dumps(doc, indent=2, allow_nan=False)`.
//!
//! - [`write_float`] writes `float.__repr__` (`PyOS_double_to_string` with
//!   the `'r'` format and `Py_DTSF_ADD_DOT_0`): the shortest round-trip
//!   digits, fixed notation while the decimal point is within
//!   `-4 < decpt <= 16`, else `d.ddde±XX` with at least two exponent digits.
//! - [`write_int`] writes `int.__repr__`.
//! - [`write_ascii_string`] writes `json.dumps(str)` (ensure_ascii=True, the
//!   default): everything outside `' '..='~'` as `\uXXXX` (DEL included, as
//!   CPython's `encode_basestring_ascii` does), astral chars as a surrogate
//!   pair.
//! - [`write_unicode_string`] writes `json.encoder.encode_basestring`
//!   (ensure_ascii=False): only `"`, `\` and the C0 controls escaped.

/// The two-character escapes both of CPython's string encoders use.
fn short_escape(byte: u8) -> Option<&'static [u8]> {
    match byte {
        b'"' => Some(b"\\\""),
        b'\\' => Some(b"\\\\"),
        b'\n' => Some(b"\\n"),
        b'\r' => Some(b"\\r"),
        b'\t' => Some(b"\\t"),
        0x08 => Some(b"\\b"),
        0x0c => Some(b"\\f"),
        _ => None,
    }
}

/// `\uXXXX` with four lowercase hex digits, as CPython writes it.
fn write_u_escape(out: &mut Vec<u8>, unit: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(b"\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[usize::from((unit >> shift) & 0xf)]);
    }
}

/// 2**53 - 1, the largest odd mantissa of a double.
const MANTISSA_MAX: u128 = 0x1f_ffff_ffff_ffff;

/// Whether `odd * 10**pow10` (`odd` odd, so that its binary mantissa is odd)
/// is exactly a double. The callers' values lie far inside the normal range
/// (a true answer needs `odd * 5**pow10` or `odd / 5**-pow10` below 2**53).
fn is_double(odd: u64, pow10: i32) -> bool {
    let odd = u128::from(odd);
    let Some(five) = 5u128.checked_pow(pow10.unsigned_abs()) else {
        return false;
    };
    let mantissa = if pow10.is_negative() {
        // odd * 2**pow10 / 5**-pow10: a double only if 5**-pow10 divides odd
        if odd % five == 0 {
            Some(odd / five)
        } else {
            None
        }
    } else {
        odd.checked_mul(five)
    };
    mantissa.is_some_and(|mantissa| mantissa <= MANTISSA_MAX)
}

/// Whether `value` is exactly halfway between `digits` (its shortest digits,
/// the first in the place 10**exp) and the candidate one lower in the last
/// place.
fn is_lower_midpoint(digits: &[u8], exp: i32, value: f64) -> bool {
    let Some(shortest) = std::str::from_utf8(digits)
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
    else {
        return false;
    };
    let Some(midpoint) = shortest
        .checked_mul(10)
        .and_then(|tens| tens.checked_sub(5))
    else {
        return false;
    };
    let pow10 = exp - digits.len() as i32;
    is_double(midpoint, pow10) && format!("{midpoint}e{pow10}").parse::<f64>() == Ok(value)
}

/// Appends `repr(value)` as CPython writes it; `null` for NaN and the
/// infinities (which `json_safe` callers never pass).
pub fn write_float(out: &mut Vec<u8>, value: f64) {
    if !value.is_finite() {
        out.extend_from_slice(b"null");
        return;
    }
    if value.is_sign_negative() {
        out.push(b'-');
    }
    let abs = value.abs();
    // shortest round-trip digits, as "d.ddde<exp>" / "de<exp>" ("0e0" for zero)
    let sci = format!("{:e}", abs);
    let (mantissa, exp_text) = sci.split_once('e').unwrap_or((&sci, "0"));
    let mut digits: Vec<u8> = mantissa.bytes().filter(|&b| b != b'.').collect();
    let exp: i32 = exp_text.parse().unwrap_or(0);
    // When the value lies exactly halfway between two shortest candidates,
    // Rust takes the upper one and CPython's dtoa (mode 0) the even one: e.g.
    // 87330774107897.125 is "…97.13" in Rust, "…97.12" in CPython. So an odd
    // last digit whose lower midpoint equals the value exactly is lowered by
    // one (never a borrow; and the lower candidate round-trips too, since a
    // tie is never a power of two, the only doubles whose rounding interval
    // is asymmetric).
    if matches!(digits.last(), Some(b'1' | b'3' | b'5' | b'7' | b'9'))
        && is_lower_midpoint(&digits, exp, abs)
    {
        if let Some(last) = digits.last_mut() {
            *last -= 1;
        }
    }
    let decpt = exp + 1;
    let ndigits = digits.len() as i32;
    if decpt <= -4 || decpt > 16 {
        let (first, rest) = digits.split_at(1);
        out.extend_from_slice(first);
        if !rest.is_empty() {
            out.push(b'.');
            out.extend_from_slice(rest);
        }
        out.push(b'e');
        // the exponent printed is decpt - 1, i.e. `exp` itself
        let (sign, magnitude) = match exp_text.strip_prefix('-') {
            Some(magnitude) => (b'-', magnitude),
            None => (b'+', exp_text),
        };
        out.push(sign);
        if magnitude.len() == 1 {
            out.push(b'0');
        }
        out.extend_from_slice(magnitude.as_bytes());
    } else if decpt <= 0 {
        out.extend_from_slice(b"0.");
        for _ in decpt..0 {
            out.push(b'0');
        }
        out.extend_from_slice(&digits);
    } else if decpt >= ndigits {
        out.extend_from_slice(&digits);
        for _ in ndigits..decpt {
            out.push(b'0');
        }
        out.extend_from_slice(b".0");
    } else {
        // 0 < decpt < ndigits here
        let (int_part, frac_part) = digits.split_at(decpt as usize);
        out.extend_from_slice(int_part);
        out.push(b'.');
        out.extend_from_slice(frac_part);
    }
}

/// Appends `repr(value)` of a Python int.
pub fn write_int(out: &mut Vec<u8>, value: i128) {
    out.extend_from_slice(value.to_string().as_bytes());
}

/// Appends `json.dumps(text)` (ensure_ascii=True): pure ASCII output.
pub fn write_ascii_string(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    for ch in text.chars() {
        if let Some(escape) = u8::try_from(ch).ok().and_then(short_escape) {
            out.extend_from_slice(escape);
            continue;
        }
        match ch {
            ' '..='~' => out.push(ch as u8),
            _ => {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    write_u_escape(out, *unit);
                }
            }
        }
    }
    out.push(b'"');
}

/// Appends `json.encoder.encode_basestring(text)` (ensure_ascii=False):
/// non-ASCII text stays as its UTF-8 bytes.
pub fn write_unicode_string(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    for &byte in text.as_bytes() {
        if let Some(escape) = short_escape(byte) {
            out.extend_from_slice(escape);
        } else if byte < 0x20 {
            write_u_escape(out, u16::from(byte));
        } else {
            out.push(byte);
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(value: f64) -> String {
        let mut out = Vec::new();
        write_float(&mut out, value);
        String::from_utf8(out).unwrap()
    }

    fn int(value: i128) -> String {
        let mut out = Vec::new();
        write_int(&mut out, value);
        String::from_utf8(out).unwrap()
    }

    fn ascii(text: &str) -> String {
        let mut out = Vec::new();
        write_ascii_string(&mut out, text);
        String::from_utf8(out).unwrap()
    }

    fn unicode(text: &str) -> String {
        let mut out = Vec::new();
        write_unicode_string(&mut out, text);
        String::from_utf8(out).unwrap()
    }

    // every expected text below is CPython 3.11's `repr(float)`

    #[test]
    fn float_zero_and_sign() {
        assert_eq!(float(0.0), "0.0");
        assert_eq!(float(-0.0), "-0.0");
        assert_eq!(float(1.0), "1.0");
        assert_eq!(float(-1.0), "-1.0");
        assert_eq!(float(7.0), "7.0");
    }

    #[test]
    fn float_fixed_with_point_inside_digits() {
        assert_eq!(float(123.456), "123.456");
        assert_eq!(float(-123.456), "-123.456");
        assert_eq!(float(1.5), "1.5");
        assert_eq!(float(333999799.99999946), "333999799.99999946");
        assert_eq!(float(std::f64::consts::PI), "3.141592653589793");
        assert_eq!(float(1234567890123456.7), "1234567890123456.8");
    }

    #[test]
    fn float_fixed_integral() {
        // decpt == ndigits and decpt > ndigits
        assert_eq!(float(12.0), "12.0");
        assert_eq!(float(120.0), "120.0");
        assert_eq!(float(1e15), "1000000000000000.0");
        assert_eq!(float(-1e15), "-1000000000000000.0");
        assert_eq!(float(1234567890123456.0), "1234567890123456.0");
        assert_eq!(float(9999999999999998.0), "9999999999999998.0");
        assert_eq!(float(1200.0), "1200.0");
    }

    #[test]
    fn float_fixed_below_one() {
        // decpt 0, -1, -2, -3
        assert_eq!(float(0.1), "0.1");
        assert_eq!(float(0.25), "0.25");
        assert_eq!(float(0.01), "0.01");
        assert_eq!(float(0.001), "0.001");
        assert_eq!(float(0.0001), "0.0001");
        assert_eq!(float(-0.0001), "-0.0001");
        assert_eq!(float(0.00012345), "0.00012345");
        assert_eq!(float(0.1 + 0.2), "0.30000000000000004");
    }

    #[test]
    fn float_exponent_notation_small() {
        // decpt -4 and below
        assert_eq!(float(0.00001), "1e-05");
        assert_eq!(float(-0.00001), "-1e-05");
        assert_eq!(float(0.000015), "1.5e-05");
        assert_eq!(float(2.5e-7), "2.5e-07");
        assert_eq!(float(9.99e-5), "9.99e-05");
        assert_eq!(float(1e-10), "1e-10");
        assert_eq!(float(1e-100), "1e-100");
        assert_eq!(float(-1.25e-100), "-1.25e-100");
        assert_eq!(float(2.2250738585072014e-308), "2.2250738585072014e-308");
        assert_eq!(float(5e-324), "5e-324");
        assert_eq!(float(-5e-324), "-5e-324");
    }

    #[test]
    fn float_exponent_notation_large() {
        // decpt 17 and above
        assert_eq!(float(1e16), "1e+16");
        assert_eq!(float(-1e16), "-1e+16");
        assert_eq!(float(1e17), "1e+17");
        assert_eq!(float(12345678901234567.0), "1.2345678901234568e+16");
        assert_eq!(float(1.5e20), "1.5e+20");
        assert_eq!(float(1e22), "1e+22");
        assert_eq!(float(1e100), "1e+100");
        assert_eq!(float(-1e100), "-1e+100");
        assert_eq!(float(f64::MAX), "1.7976931348623157e+308");
        assert_eq!(float(f64::MIN), "-1.7976931348623157e+308");
    }

    #[test]
    fn float_exact_ties_round_half_even() {
        // halfway between two shortest candidates: CPython takes the even
        // one, where Rust's `{:e}` takes the upper one ("…97.13"); the
        // values are sums of exact doubles (clippy's excessive_precision
        // would round a literal like 87330774107897.125)
        assert_eq!(float(87330774107897.0 + 0.125), "87330774107897.12");
        assert_eq!(float(-87330774107897.0 - 0.125), "-87330774107897.12");
        assert_eq!(float(77622707855.0 + 0.078125), "77622707855.07812");
        assert_eq!(float(2159297311599.0 + 0.15625), "2159297311599.1562");
        // a tie whose upper candidate is already even stays
        assert_eq!(float(77622707855.0 + 0.046875), "77622707855.04688");
    }

    #[test]
    fn float_odd_last_digit_not_a_tie() {
        // the lower candidate round-trips too, but the value is nearer the
        // upper one (the midpoint is not the value itself)
        assert_eq!(float(7759.5856743571685), "7759.5856743571685");
        assert_eq!(float(868445457.8650953), "868445457.8650953");
        assert_eq!(float(0.015960421235803823), "0.015960421235803823");
        // the lower midpoint (0.25, 2.5e20) is a double, but not the value
        assert_eq!(float(0.3), "0.3");
        assert_eq!(float(3e20), "3e+20");
        // exact and shortest with an odd last digit (5.5 is no midpoint of 5.5)
        assert_eq!(float(5.5), "5.5");
        assert_eq!(float(1751247501952.125), "1751247501952.125");
    }

    #[test]
    fn is_double_exactness() {
        // odd * 10**pow10, pow10 >= 0: odd * 5**pow10 must fit 53 bits
        assert!(is_double(5, 0));
        assert!(is_double(3, 2));
        assert!(is_double(1, 22));
        assert!(!is_double(1, 23));
        assert!(!is_double(3, 60));
        assert!(!is_double(u64::MAX, 40));
        // pow10 < 0: 5**-pow10 must divide odd, the quotient fit 53 bits
        assert!(is_double(15, -1));
        assert!(!is_double(13, -1));
        assert!(is_double(125, -3));
        assert!(!is_double(25, -3));
        assert!(is_double(5 * 9_007_199_254_740_991, -1));
        assert!(!is_double(5 * 9_007_199_254_740_993, -1));
        assert!(!is_double(u64::MAX, -60));
        // 2**53 - 1 and 2**53 + 1 (odd) around the mantissa bound
        assert!(is_double(9_007_199_254_740_991, 0));
        assert!(!is_double(9_007_199_254_740_993, 0));
    }

    #[test]
    fn lower_midpoint() {
        // 87330774107897.125 = 8733077410789713 shortest digits, first at 10**13
        assert!(is_lower_midpoint(
            b"8733077410789713",
            13,
            87330774107897.0 + 0.125
        ));
        assert!(!is_lower_midpoint(
            b"8733077410789713",
            13,
            87330774107897.14
        ));
        assert!(!is_lower_midpoint(
            b"8733077410789713",
            12,
            87330774107897.0 + 0.125
        ));
        assert!(!is_lower_midpoint(
            b"8733077410789713",
            14,
            87330774107897.0 + 0.125
        ));
        // not digits / no digits: no midpoint
        assert!(!is_lower_midpoint(b"", 0, 0.0));
        assert!(!is_lower_midpoint(b"0", 0, -0.5));
        assert!(!is_lower_midpoint(b"1x", 0, 1.0));
        // 7.0: midpoint 6.5 is a double, but not the value
        assert!(!is_lower_midpoint(b"7", 0, 7.0));
        assert!(is_lower_midpoint(b"7", 0, 6.5));
    }

    #[test]
    fn float_non_finite_is_null() {
        assert_eq!(float(f64::NAN), "null");
        assert_eq!(float(f64::INFINITY), "null");
        assert_eq!(float(f64::NEG_INFINITY), "null");
    }

    #[test]
    fn float_appends() {
        let mut out = b"[".to_vec();
        write_float(&mut out, 2.5);
        write_float(&mut out, -0.5);
        assert_eq!(out, b"[2.5-0.5");
    }

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// Checks the round trip and the notation shape of `write_float(value)`.
    fn check_shape(value: f64) {
        let text = float(value);
        let parsed: f64 = text.parse().unwrap();
        assert_eq!(parsed.to_bits(), value.to_bits(), "{text}");
        let sci = format!("{:e}", value);
        let exp: i32 = sci.split_once('e').unwrap().1.parse().unwrap();
        let decpt = exp + 1;
        let exponent_form = !(-4 < decpt && decpt <= 16);
        assert_eq!(text.contains('e'), exponent_form, "{text}");
        assert_eq!(text.starts_with('-'), value.is_sign_negative(), "{text}");
        if exponent_form {
            let (mantissa, exponent) = text.split_once('e').unwrap();
            assert!(exponent.starts_with(['+', '-']), "{text}");
            assert!(exponent.len() >= 3, "{text}");
            assert!(!mantissa.ends_with('.'), "{text}");
        } else {
            let (int_part, frac_part) = text.split_once('.').unwrap();
            assert!(!int_part.is_empty() && !frac_part.is_empty(), "{text}");
        }
    }

    #[test]
    fn float_random_bits_round_trip() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut checked = 0;
        while checked < 5000 {
            let value = f64::from_bits(xorshift(&mut state));
            if value.is_finite() {
                check_shape(value);
                checked += 1;
            }
        }
    }

    #[test]
    fn float_random_moderate_values_round_trip() {
        // magnitudes 1e-8..1e20, where both notations and every fixed branch occur
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..5000 {
            let unit = (xorshift(&mut state) >> 11) as f64 / (1u64 << 53) as f64;
            let scale = 10f64.powi((xorshift(&mut state) % 29) as i32 - 8);
            let sign = if xorshift(&mut state) & 1 == 0 {
                1.0
            } else {
                -1.0
            };
            check_shape(sign * unit * scale);
        }
    }

    #[test]
    fn ints() {
        assert_eq!(int(0), "0");
        assert_eq!(int(42), "42");
        assert_eq!(int(-7), "-7");
        assert_eq!(int(u64::MAX as i128), "18446744073709551615");
        assert_eq!(int(i64::MIN as i128), "-9223372036854775808");
        assert_eq!(int(i128::MIN), "-170141183460469231731687303715884105728");
        let mut out = b"x".to_vec();
        write_int(&mut out, 5);
        assert_eq!(out, b"x5");
    }

    // expected strings below are CPython 3.11's `json.dumps(s)` (ascii) and
    // `json.encoder.encode_basestring(s)` (unicode)

    #[test]
    fn ascii_plain_and_short_escapes() {
        assert_eq!(ascii(""), r#""""#);
        assert_eq!(ascii("abc XYZ 09 ~!"), r#""abc XYZ 09 ~!""#);
        assert_eq!(ascii("\""), r#""\"""#);
        assert_eq!(ascii("\\"), r#""\\""#);
        assert_eq!(ascii("\n"), r#""\n""#);
        assert_eq!(ascii("\r"), r#""\r""#);
        assert_eq!(ascii("\t"), r#""\t""#);
        assert_eq!(ascii("\u{8}"), r#""\b""#);
        assert_eq!(ascii("\u{c}"), r#""\f""#);
        assert_eq!(ascii("a\"b\\c\nd"), r#""a\"b\\c\nd""#);
    }

    #[test]
    fn ascii_u_escapes() {
        assert_eq!(ascii("\u{0}"), r#""\u0000""#);
        assert_eq!(ascii("\u{1}"), r#""\u0001""#);
        assert_eq!(ascii("\u{7}"), r#""\u0007""#);
        assert_eq!(ascii("\u{b}"), r#""\u000b""#);
        assert_eq!(ascii("\u{1f}"), r#""\u001f""#);
        // DEL: CPython's encode_basestring_ascii escapes it
        assert_eq!(ascii("\u{7f}"), r#""\u007f""#);
        assert_eq!(ascii("\u{80}"), r#""\u0080""#);
        assert_eq!(ascii("é"), r#""\u00e9""#);
        assert_eq!(ascii("€"), r#""\u20ac""#);
        // every hex digit, in both cases of position
        assert_eq!(
            ascii("\u{123}\u{4567}\u{89ab}\u{cdef}"),
            r#""\u0123\u4567\u89ab\ucdef""#
        );
        assert_eq!(
            ascii("\u{fedc}\u{ba98}\u{7654}\u{3210}"),
            r#""\ufedc\uba98\u7654\u3210""#
        );
        assert_eq!(ascii("\u{ffff}"), r#""\uffff""#);
        assert_eq!(ascii("\u{10000}"), r#""\ud800\udc00""#);
        assert_eq!(ascii("😀"), r#""\ud83d\ude00""#);
        assert_eq!(ascii("\u{10ffff}"), r#""\udbff\udfff""#);
        assert_eq!(ascii("a\u{0}é😀z"), r#""a\u0000\u00e9\ud83d\ude00z""#);
    }

    #[test]
    fn unicode_escapes() {
        assert_eq!(unicode(""), r#""""#);
        assert_eq!(unicode("abc XYZ 09 ~!"), r#""abc XYZ 09 ~!""#);
        assert_eq!(unicode(" "), r#"" ""#);
        assert_eq!(unicode("\""), r#""\"""#);
        assert_eq!(unicode("\\"), r#""\\""#);
        assert_eq!(unicode("\n"), r#""\n""#);
        assert_eq!(unicode("\r"), r#""\r""#);
        assert_eq!(unicode("\t"), r#""\t""#);
        assert_eq!(unicode("\u{8}"), r#""\b""#);
        assert_eq!(unicode("\u{c}"), r#""\f""#);
        assert_eq!(unicode("\u{0}"), r#""\u0000""#);
        assert_eq!(unicode("\u{1}"), r#""\u0001""#);
        assert_eq!(unicode("\u{b}"), r#""\u000b""#);
        assert_eq!(unicode("\u{1f}"), r#""\u001f""#);
        assert_eq!(unicode("\u{1e}\u{1a}"), r#""\u001e\u001a""#);
    }

    #[test]
    fn unicode_keeps_non_ascii() {
        assert_eq!(unicode("\u{7f}"), "\"\u{7f}\"");
        assert_eq!(unicode("é"), "\"é\"");
        assert_eq!(unicode("€"), "\"€\"");
        assert_eq!(unicode("😀"), "\"😀\"");
        assert_eq!(
            unicode("\u{ffff}\u{10000}\u{10ffff}"),
            "\"\u{ffff}\u{10000}\u{10ffff}\""
        );
        assert_eq!(unicode("a\"é\n😀"), "\"a\\\"é\\n😀\"");
    }

    #[test]
    fn strings_append() {
        let mut out = b"{".to_vec();
        write_ascii_string(&mut out, "k");
        write_unicode_string(&mut out, "v");
        assert_eq!(out, b"{\"k\"\"v\"");
    }
}
