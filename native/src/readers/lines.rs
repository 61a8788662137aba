//! What both readers read lines with (`_lines.py`): a physical line split into
//! blank, problem or JSON text, every record of a file fed in order with its
//! problems accounted, and the checks and name store both share.

use super::protocol::{Failure, ReadError};
use crate::account::LineAccount;
use crate::json::{nesting_exceeds, rejection, SyntaxError, PY_MAX_DEPTH};
use crate::lines::{is_py_space, LineReader};
use hashbrown::HashSet;
use std::io::{self, Read};
use std::rc::Rc;

/// What one physical line is before its record is read.
pub(super) enum Line<'a> {
    Blank,
    Problem(&'static str),
    Json(&'a str),
}

pub(super) fn split_line(raw: &[u8], first: bool, has_newline: bool) -> Line<'_> {
    let mut line = raw;
    if first {
        line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    }
    while let [rest @ .., b'\r'] = line {
        line = rest;
    }
    if line.iter().all(|&b| is_py_space(b)) {
        return Line::Blank;
    }
    let problem = |reason| {
        Line::Problem(if has_newline {
            reason
        } else {
            "truncated_last_line"
        })
    };
    // nesting past Python's limit (`too_deeply_nested`, checked after this) is the
    // caller's: the Claude reader asks only when its parse fails
    match simdutf8::basic::from_utf8(line) {
        Ok(text) => Line::Json(text),
        Err(_) => problem("invalid_utf8"),
    }
}

/// A line of [`split_line`] that nests deeper than Python's `json` reads: a problem.
pub(super) fn too_deep(text: &str) -> bool {
    nesting_exceeds(text.as_bytes(), PY_MAX_DEPTH)
}

/// Feeds every record of `source` to `each`; blank lines and unparsable lines are
/// accounted here (`iter_records`). `each` gets the line's JSON text.
pub(super) fn for_each_line<R: Read, F>(
    source: R,
    account: &mut LineAccount,
    each: F,
) -> Result<(), Failure>
where
    F: FnMut(&str, &mut LineAccount) -> Result<(), Failure>,
{
    for_each_line_within(source, account, PY_MAX_DEPTH, each)
}

/// [`for_each_line`] with a line nesting deeper than `max_depth` too deeply nested:
/// Python's limit depends on how deep the reader parses (`PY_MAX_DEPTH` is the
/// Claude Code reader's).
pub(super) fn for_each_line_within<R: Read, F>(
    source: R,
    account: &mut LineAccount,
    max_depth: usize,
    mut each: F,
) -> Result<(), Failure>
where
    F: FnMut(&str, &mut LineAccount) -> Result<(), Failure>,
{
    let mut reader = LineReader::new(source);
    let mut first = true;
    while let Some((raw, has_newline)) = reader.next_line()? {
        account.lines_read += 1;
        let line = match split_line(raw, first, has_newline) {
            Line::Json(text) if nesting_exceeds(text.as_bytes(), max_depth) => {
                Line::Problem(if has_newline {
                    "too_deeply_nested"
                } else {
                    "truncated_last_line"
                })
            }
            line => line,
        };
        first = false;
        match line {
            Line::Blank => account.ignore(b"blank_line"),
            Line::Problem(reason) => account.problem(reason),
            Line::Json(text) => {
                if !text
                    .trim_start_matches([' ', '\t', '\n', '\r'])
                    .starts_with('{')
                {
                    // Python's int() refuses what serde_json takes: invalid_json
                    let reason = if int_too_long(text.as_bytes()) {
                        "invalid_json"
                    } else {
                        rejection(text)
                    };
                    account.problem(if has_newline {
                        reason
                    } else {
                        "truncated_last_line"
                    });
                    continue;
                }
                match each(text, account) {
                    Err(Failure::Read(ReadError::Io(e)))
                        if e.kind() == io::ErrorKind::InvalidData =>
                    {
                        account.problem(if has_newline {
                            "invalid_json"
                        } else {
                            "truncated_last_line"
                        });
                    }
                    other => other?,
                }
            }
        }
    }
    Ok(())
}

/// Python's `int()` refuses a decimal literal of more digits than this
/// (`sys.get_int_max_str_digits()`), so `json.loads` fails on the text.
const PY_INT_MAX_DIGITS: usize = 4300;

/// Whether `any` holds for a number literal of JSON `text` (each number's text, as
/// found outside strings: a run of digits, signs, points and exponents). A string is
/// passed over to its closing quote with `memchr` (outputs are mostly text).
pub(super) fn any_number<F: FnMut(&[u8]) -> bool>(text: &[u8], mut any: F) -> bool {
    let mut at = 0usize;
    while let Some(&byte) = text.get(at) {
        at += 1;
        if byte == b'"' {
            // to the quote that ends the string (a backslash escapes the next byte);
            // a string that never ends holds the rest of the text
            loop {
                let Some(rest) = text.get(at..) else {
                    return false;
                };
                match memchr::memchr2(b'"', b'\\', rest) {
                    None => return false,
                    Some(i) if rest[i] == b'\\' => at += i + 2,
                    Some(i) => {
                        at += i + 1;
                        break;
                    }
                }
            }
        } else if byte == b'-' || byte.is_ascii_digit() {
            let begin = at - 1;
            while at < text.len()
                && (text[at].is_ascii_digit()
                    || matches!(text[at], b'-' | b'+' | b'.' | b'e' | b'E'))
            {
                at += 1;
            }
            if any(&text[begin..at]) {
                return true;
            }
        }
    }
    false
}

/// Whether JSON `text` holds an int literal (no fraction, no exponent) of more than
/// 4300 digits, which Python's `json` refuses (`ValueError`: `invalid_json`) and
/// serde_json and the scan take. Cheap for ordinary text: only text with a run of
/// more than 4300 digits ([`has_digit_run`]) is walked.
pub(super) fn int_too_long(text: &[u8]) -> bool {
    has_digit_run(text, PY_INT_MAX_DIGITS + 1)
        && any_number(text, |number| {
            let digits = number.strip_prefix(b"-").unwrap_or(number);
            digits.len() > PY_INT_MAX_DIGITS && digits.iter().all(u8::is_ascii_digit)
        })
}

/// Whether `text` holds a run of at least `run` ASCII digits. Any `run` consecutive
/// bytes hold exactly one position that is a multiple of `run`, so only those
/// positions are looked at, and the run around a digit found there measured: about
/// `len / run` bytes read for text without long runs.
fn has_digit_run(text: &[u8], run: usize) -> bool {
    let run = run.max(1);
    (run - 1..text.len()).step_by(run).any(|at| {
        if !text[at].is_ascii_digit() {
            return false;
        }
        let before = text[..at]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let after = text[at..].iter().take_while(|b| b.is_ascii_digit()).count();
        before + after >= run
    })
}

pub(super) fn bad_json(_: SyntaxError) -> Failure {
    Failure::Read(ReadError::Io(io::Error::from(io::ErrorKind::InvalidData)))
}

pub(super) fn check_turn_total(total: f64) -> Result<f64, Failure> {
    if total.is_finite() && total >= 0.0 {
        Ok(total)
    } else {
        Err(Failure::Read(ReadError::TurnTotal))
    }
}

/// Tool names shared between calls (most lanes use a handful of names).
#[derive(Default)]
pub(super) struct Names(HashSet<Rc<str>>);

impl Names {
    pub(super) fn get(&mut self, name: &str) -> Rc<str> {
        if let Some(known) = self.0.get(name) {
            return known.clone();
        }
        let fresh: Rc<str> = name.into();
        self.0.insert(fresh.clone());
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run rule spelled out: some window of `run` bytes is all digits.
    fn naive(text: &[u8], run: usize) -> bool {
        text.windows(run.max(1))
            .any(|w| w.iter().all(u8::is_ascii_digit))
    }

    #[test]
    fn a_digit_run_is_found_wherever_it_lies_as_the_plain_rule_finds_it() {
        // every text of up to 10 bytes of a digit and a letter, every run length
        for len in 0..=10 {
            for bits in 0u32..(1 << len) {
                let text: Vec<u8> = (0..len)
                    .map(|i| if bits >> i & 1 == 1 { b'7' } else { b'x' })
                    .collect();
                for run in 1..=11 {
                    assert_eq!(
                        has_digit_run(&text, run),
                        naive(&text, run),
                        "{text:?} {run}"
                    );
                }
            }
        }
        assert!(!has_digit_run(b"", 0));
        assert!(has_digit_run(b"5", 0));
    }

    /// The numbers of `text` found byte by byte (strings tracked one byte at a time).
    fn numbers_byte_by_byte(text: &[u8]) -> Vec<Vec<u8>> {
        let (mut out, mut at, mut in_string, mut escaped) = (Vec::new(), 0, false, false);
        while at < text.len() {
            let byte = text[at];
            at += 1;
            if in_string {
                if escaped {
                    escaped = false;
                } else if byte == b'\\' {
                    escaped = true;
                } else if byte == b'"' {
                    in_string = false;
                }
            } else if byte == b'"' {
                in_string = true;
            } else if byte == b'-' || byte.is_ascii_digit() {
                let begin = at - 1;
                while at < text.len() && (text[at].is_ascii_digit() || b"-+.eE".contains(&text[at]))
                {
                    at += 1;
                }
                out.push(text[begin..at].to_vec());
            }
        }
        out
    }

    #[test]
    fn numbers_are_found_outside_strings_as_a_byte_by_byte_walk_finds_them() {
        // every text of up to 7 bytes of quotes, backslashes, digits, signs and letters
        let alphabet = b"\"\\1-ex";
        for len in 0..=7u32 {
            for mut code in 0..alphabet.len().pow(len) {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        let byte = alphabet[code % alphabet.len()];
                        code /= alphabet.len();
                        byte
                    })
                    .collect();
                let mut found = Vec::new();
                assert!(!any_number(&text, |n| {
                    found.push(n.to_vec());
                    false
                }));
                assert_eq!(found, numbers_byte_by_byte(&text), "{text:?}");
            }
        }
        // the first number that holds stops the walk
        let mut seen = 0;
        assert!(any_number(b"[1,\"2\",3,4]", |n| {
            seen += 1;
            n == b"3"
        }));
        assert_eq!(seen, 2);
    }

    #[test]
    fn an_int_of_more_than_4300_digits_is_too_long_for_python() {
        let digits = |n: usize| "9".repeat(n);
        for (text, long) in [
            (format!("[{}]", digits(4301)), true),
            (format!("[{}]", digits(4300)), false),
            (format!("{{\"a\":-{}}}", digits(4301)), true),
            (format!("[{}.5]", digits(4301)), false),
            (format!("[{}e1]", digits(4301)), false),
            (format!("[\"{}\"]", digits(4301)), false),
            (format!("[{},{}]", digits(4300), digits(4300)), false),
            (format!("[1,{}]", digits(5000)), true),
        ] {
            assert_eq!(int_too_long(text.as_bytes()), long, "{}", &text[..12]);
        }
    }
}
