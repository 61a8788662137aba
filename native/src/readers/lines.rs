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
/// found outside strings: a run of digits, signs, points and exponents).
pub(super) fn any_number<F: FnMut(&[u8]) -> bool>(text: &[u8], mut any: F) -> bool {
    let (mut at, mut in_string, mut escaped) = (0usize, false, false);
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
/// more than 4300 digits is walked.
pub(super) fn int_too_long(text: &[u8]) -> bool {
    let mut run = 0usize;
    let long = text.iter().any(|b| {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        run > PY_INT_MAX_DIGITS
    });
    long && any_number(text, |number| {
        let digits = number.strip_prefix(b"-").unwrap_or(number);
        digits.len() > PY_INT_MAX_DIGITS && digits.iter().all(u8::is_ascii_digit)
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
