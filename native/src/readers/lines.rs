//! What both readers read lines with (`_lines.py`): a physical line split into
//! blank, problem or JSON text, every record of a file fed in order with its
//! problems accounted, and the checks and name store both share.

use super::protocol::{Failure, ReadError};
use crate::account::LineAccount;
use crate::json::{parse_object, scan_value_at, ScanEnd, SyntaxError, MAX_JSON_DEPTH};
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
    // nesting past the one limit (`too_deeply_nested`, checked after this) is the
    // caller's: a reader asks only when its parse fails
    match simdutf8::basic::from_utf8(line) {
        Ok(text) => Line::Json(text),
        Err(_) => problem("invalid_utf8"),
    }
}

/// Feeds every record of `source` to `each` (the line's JSON text); blank lines and
/// unparsable lines are accounted here (`iter_records`), a line nesting deeper than
/// `max_depth` as too deeply nested (every reader passes the one limit,
/// [`MAX_JSON_DEPTH`]).
pub(super) fn for_each_line_within<R: Read, F>(
    source: R,
    account: &mut LineAccount,
    max_depth: usize,
    each: F,
) -> Result<(), Failure>
where
    F: FnMut(&str, &mut LineAccount) -> Result<(), Failure>,
{
    for_each_line_within_from(LineReader::new(source), account, max_depth, each)
}

/// [`for_each_line_within`] of the lines `reader` has still to give (a reader
/// [`LineReader::rewound`] gives them all).
pub(super) fn for_each_line_within_from<R: Read, F>(
    reader: LineReader<R>,
    account: &mut LineAccount,
    max_depth: usize,
    mut each: F,
) -> Result<(), Failure>
where
    F: FnMut(&str, &mut LineAccount) -> Result<(), Failure>,
{
    for_each_object_line_from(reader, account, max_depth, |text, account| {
        within(text, account, max_depth, &mut each)
    })
}

/// `each` of a line, which must parse it within `max_depth` levels: a parse error it
/// returns is named by json's first failure (`too_deeply_nested` or `invalid_json`).
fn within<F>(
    text: &str,
    account: &mut LineAccount,
    max_depth: usize,
    each: &mut F,
) -> Result<Option<&'static str>, Failure>
where
    F: FnMut(&str, &mut LineAccount) -> Result<(), Failure>,
{
    match each(text, account) {
        // its scan (within max_depth) failed: json's first failure names it
        Err(Failure::Read(ReadError::Io(e))) if e.kind() == io::ErrorKind::InvalidData => Ok(Some(
            json_failure(text, max_depth).unwrap_or("invalid_json"),
        )),
        other => other.map(|()| None),
    }
}

/// `iter_records` of one row of a store, read as a line of its own (`openclaw.py` hands
/// `event + b"\n"` to a fresh `iter_records`): a BOM is stripped from every row, then
/// every trailing CR and LF; a blank row is one `blank_line`, or one per newline when
/// the row with its newline starts with two (`runs`, each its own line); the line has
/// a newline, so a problem is never `truncated_last_line`. Otherwise as
/// [`for_each_line_within`]: `each` gets an object's JSON text nesting no deeper than
/// `max_depth`.
pub(super) fn read_row_within<F>(
    row: &[u8],
    account: &mut LineAccount,
    max_depth: usize,
    mut each: F,
) -> Result<(), Failure>
where
    F: FnMut(&str, &mut LineAccount) -> Result<(), Failure>,
{
    account.lines_read += 1;
    let row = row.strip_prefix(b"\xef\xbb\xbf").unwrap_or(row);
    let mut line = row;
    while let [rest @ .., b'\r' | b'\n'] = line {
        line = rest;
    }
    if line.iter().all(|&b| is_py_space(b)) {
        // `raw.startswith(b"\n\n")` of the row and its newline: each newline a line
        let runs = if row.starts_with(b"\n\n") || row == b"\n" {
            memchr::memchr_iter(b'\n', row).count() as u64 + 1
        } else {
            1
        };
        account.lines_read += runs - 1;
        for _ in 0..runs {
            account.ignore(b"blank_line");
        }
        return Ok(());
    }
    match simdutf8::basic::from_utf8(line) {
        Err(_) => account.problem("invalid_utf8"),
        Ok(text) => {
            if let Some(reason) = object_text(text, account, max_depth, |text, account| {
                within(text, account, max_depth, &mut each)
            })? {
                account.problem(reason);
            }
        }
    }
    Ok(())
}

/// Feeds the JSON text of every line that starts with `{` to `each`, however deep it
/// nests, which gives the line's problem if it has one (counted here, as
/// `truncated_last_line` when the line has no newline). Blank lines, lines that are not
/// UTF-8 and lines that are not objects are accounted here (`iter_records`), the
/// latter too deeply nested past `max_depth` (the one limit, [`MAX_JSON_DEPTH`], which
/// `each` applies to an object line as well).
pub(super) fn for_each_object_line<R: Read, F>(
    source: R,
    account: &mut LineAccount,
    max_depth: usize,
    each: F,
) -> Result<(), Failure>
where
    F: FnMut(&str, &mut LineAccount) -> Result<Option<&'static str>, Failure>,
{
    for_each_object_line_from(LineReader::new(source), account, max_depth, each)
}

/// [`for_each_object_line`] of the lines `reader` has still to give, the first of
/// them read as the source's first line (its BOM stripped).
fn for_each_object_line_from<R: Read, F>(
    mut reader: LineReader<R>,
    account: &mut LineAccount,
    max_depth: usize,
    mut each: F,
) -> Result<(), Failure>
where
    F: FnMut(&str, &mut LineAccount) -> Result<Option<&'static str>, Failure>,
{
    let mut first = true;
    while let Some((raw, has_newline)) = reader.next_line()? {
        account.lines_read += 1;
        let line = split_line(raw, first, has_newline);
        first = false;
        let cut = |reason| {
            if has_newline {
                reason
            } else {
                "truncated_last_line"
            }
        };
        match line {
            Line::Blank => account.ignore(b"blank_line"),
            Line::Problem(reason) => account.problem(reason),
            Line::Json(text) => {
                if let Some(reason) = object_text(text, account, max_depth, &mut each)? {
                    account.problem(cut(reason));
                }
            }
        }
    }
    Ok(())
}

/// The problem of a UTF-8 line's JSON `text`: one that is not an object is decided
/// here, an object by `each`.
fn object_text<F>(
    text: &str,
    account: &mut LineAccount,
    max_depth: usize,
    mut each: F,
) -> Result<Option<&'static str>, Failure>
where
    F: FnMut(&str, &mut LineAccount) -> Result<Option<&'static str>, Failure>,
{
    if !text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{')
    {
        return Ok(Some(
            json_failure(text, max_depth).unwrap_or("not_an_object"),
        ));
    }
    each(text, account)
}

/// What Python's `json.loads` makes of JSON text (a line, any value), reading
/// from the left within `max_depth` levels: the first failure it meets, a syntax
/// error or an int literal of more than 4300 digits (`ValueError`: `invalid_json`)
/// or a container past `max_depth` (`too_deeply_nested`), else
/// `None` (it parses).
pub(super) fn json_failure(text: &str, max_depth: usize) -> Option<&'static str> {
    json_failure_at(text, max_depth, 0)
}

/// [`json_failure`] of a value that `depth` arrays and objects hold (a document's
/// element, read alone).
pub(super) fn json_failure_at(text: &str, max_depth: usize, depth: usize) -> Option<&'static str> {
    let (end, failure) = match scan_value_at(text, max_depth, depth) {
        ScanEnd::Valid => (text.len(), None),
        ScanEnd::Syntax => return Some("invalid_json"),
        ScanEnd::TooDeep(at) => (at, Some("too_deeply_nested")),
    };
    // an int it converts before it gets there fails first
    if int_too_long(&text.as_bytes()[..end]) {
        Some("invalid_json")
    } else {
        failure
    }
}

/// Where the string whose opening quote is just before `at` ends (past its closing
/// quote), `None` when it never ends.
fn string_end(text: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let rest = text.get(at..)?;
        match memchr::memchr2(b'"', b'\\', rest) {
            None => return None,
            Some(i) if rest[i] == b'\\' => at += i + 2,
            Some(i) => return Some(at + i + 1),
        }
    }
}

/// The type a msgspec `Record` field declares, as `iter_records` decodes a line with
/// it before `json` (`_lines.py`): any JSON value (`Any`), a `Record` (an object, or
/// also `null` when the field is `Record | None`), a list of `Record`s, or a list of
/// `Record`s, a string or `null` (`list[Record] | str | None`).
pub(super) enum Shape {
    Any,
    Record {
        fields: &'static [(&'static str, Shape)],
        null: bool,
    },
    ListOf(&'static [(&'static str, Shape)]),
    ListOrText(&'static [(&'static str, Shape)]),
}

/// msgspec refuses a number it builds (a declared field's, not a skipped one's): an
/// int literal of more than 4300 characters (its sign counted: "Integer value out of
/// range") or a float that overflows a double ("Number out of range").
fn msgspec_refuses(number: &[u8]) -> bool {
    if number.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        let text = std::str::from_utf8(number).unwrap_or("");
        return text.parse::<f64>().map_or(true, f64::is_infinite);
    }
    number.len() > PY_INT_MAX_DIGITS
}

/// Whether msgspec decodes JSON text of a `Record` with these `fields` (the line
/// valid JSON, as the scan found it, and nesting no deeper than msgspec reads): no
/// lone surrogate escape anywhere, every declared field of the shape it declares, and
/// no number it refuses in a declared field's value (every repeated key's value is
/// decoded). When it does, `iter_records` takes msgspec's record, whatever `json`
/// would have refused (an int of more than 4300 digits in a skipped value, a line
/// nesting a level or two deeper than `json` reads).
fn msgspec_accepts(text: &str, fields: &[(&str, Shape)]) -> bool {
    !has_lone_surrogate(text.as_bytes()) && record_accepts(text, fields)
}

fn record_accepts(text: &str, fields: &[(&str, Shape)]) -> bool {
    let keys: Vec<&str> = fields.iter().map(|(key, _)| *key).collect();
    let mut ok = true;
    let parsed = parse_object(text, &keys, |i, raw| {
        ok = ok && value_accepts(raw.get(), &fields[i].1);
    });
    parsed.is_ok() && ok
}

fn value_accepts(text: &str, shape: &Shape) -> bool {
    match shape {
        Shape::Any => !any_number(text.as_bytes(), msgspec_refuses),
        Shape::Record { fields, null } => {
            (*null && text == "null") || (text.starts_with('{') && record_accepts(text, fields))
        }
        Shape::ListOf(fields) => {
            text.starts_with('[')
                && array_items(text)
                    .all(|item| item.starts_with('{') && record_accepts(item, fields))
        }
        Shape::ListOrText(fields) => {
            text == "null" || text.starts_with('"') || value_accepts(text, &Shape::ListOf(fields))
        }
    }
}

/// The problem `iter_records` finds in a line that starts with `{`, decoding it with a
/// msgspec `Record` of `fields` first and with `json` when msgspec refuses it; `parsed`:
/// whether the scan found the line valid JSON within [`MAX_JSON_DEPTH`] levels (a
/// line nesting deeper is handed to neither decoder: `json`'s first failure names
/// it). `None`: the line is read, the values the scan found being both decoders'
/// values.
pub(super) fn msgspec_line_problem(
    text: &str,
    parsed: bool,
    fields: &[(&str, Shape)],
) -> Option<&'static str> {
    if !parsed {
        return Some(json_failure(text, MAX_JSON_DEPTH).unwrap_or("invalid_json"));
    }
    if !int_too_long(text.as_bytes()) || msgspec_accepts(text, fields) {
        return None; // json reads it as msgspec does, or msgspec (tried first) reads it
    }
    json_failure(text, MAX_JSON_DEPTH)
}

/// Whether JSON text holds a `\u` escape of a surrogate that is not half of a pair
/// (a high one followed by a low one), which msgspec refuses anywhere in a line.
fn has_lone_surrogate(text: &[u8]) -> bool {
    let hex = |at: usize| -> Option<u32> {
        let digits = text.get(at..at + 4)?;
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let mut at = 0usize;
    while let Some(i) = memchr::memchr(b'\\', &text[at..]) {
        let escape = at + i;
        if text.get(escape + 1) != Some(&b'u') {
            at = escape + 2; // any other escape: its one character
            continue;
        }
        let Some(code) = hex(escape + 2) else {
            return false; // unreachable in valid JSON
        };
        at = escape + 6;
        match code {
            0xd800..=0xdbff => {
                let low = (text.get(at..at + 2) == Some(b"\\u"))
                    .then(|| hex(at + 2))
                    .flatten();
                match low {
                    Some(0xdc00..=0xdfff) => at += 6,
                    _ => return true,
                }
            }
            0xdc00..=0xdfff => return true,
            _ => {}
        }
        if at >= text.len() {
            break;
        }
    }
    false
}

/// The elements of a JSON array's text that the scan found valid, each without the
/// whitespace around it.
pub(super) fn array_items(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 1usize; // past '['
    std::iter::from_fn(move || {
        let mut depth = 0usize;
        let begin = at;
        while let Some(&byte) = bytes.get(at) {
            match byte {
                b'"' => at = string_end(bytes, at + 1)?,
                b'[' | b'{' => {
                    depth += 1;
                    at += 1;
                }
                b']' | b'}' if depth > 0 => {
                    depth -= 1;
                    at += 1;
                }
                b',' | b']' | b'}' if depth == 0 => {
                    let item = text.get(begin..at)?.trim_matches([' ', '\t', '\n', '\r']);
                    at += 1;
                    return (!item.is_empty()).then_some(item);
                }
                _ => at += 1,
            }
        }
        None
    })
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
pub(super) fn has_digit_run(text: &[u8], run: usize) -> bool {
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

    #[test]
    fn lone_surrogate_escapes_are_found_and_pairs_and_other_escapes_are_not() {
        for (text, lone) in [
            (r#"{"a":"\ud800"}"#, true),
            (r#"{"a":"\udc00"}"#, true),
            (r#"{"a":"\ud83d\ude00"}"#, false),
            (r#"{"a":"\uD83D\uDE00"}"#, false),
            (r#"{"a":"\ud83d\u0041"}"#, true),
            (r#"{"a":"\ude00\ud83d"}"#, true),
            (r#"{"a":"\\ud800"}"#, false),
            (r#"{"a":"\u00e9\n\"x"}"#, false),
            (r#"{"\udbff":1}"#, true),
            (r#"{"a":"x\ud800"#, true),
        ] {
            assert_eq!(has_lone_surrogate(text.as_bytes()), lone, "{text}");
        }
    }

    #[test]
    fn array_items_are_the_elements_of_valid_json_arrays() {
        let items = |t: &'static str| array_items(t).collect::<Vec<_>>();
        assert!(items("[]").is_empty());
        assert!(items("[ ]").is_empty());
        assert_eq!(items("[1]"), ["1"]);
        assert_eq!(
            items(r#"[ {"a": [1, "]"]} , "x,\"]" ,null,[[]] ]"#),
            [r#"{"a": [1, "]"]}"#, r#""x,\"]""#, "null", "[[]]"]
        );
    }

    #[test]
    fn json_fails_at_the_first_of_a_long_int_and_too_deep_a_container() {
        let digits = "7".repeat(4301);
        let deep = format!("{}{}", "[".repeat(5), "]".repeat(5));
        assert_eq!(
            json_failure(&format!("[{digits},{deep}]"), 4),
            Some("invalid_json")
        );
        assert_eq!(
            json_failure(&format!("[{deep},{digits}]"), 4),
            Some("too_deeply_nested")
        );
        assert_eq!(
            json_failure(&format!("[{deep},{digits}]"), 6),
            Some("invalid_json")
        );
        assert_eq!(
            json_failure(
                &format!("[\"{digits}\",{digits}.5,-{}]", "7".repeat(4300)),
                6
            ),
            None
        );
        assert_eq!(json_failure("[\"[[[[[[\"]", 2), None);
        // a syntax error before the nesting gets too deep is json's first failure, and
        // after it the nesting is; a long int before either
        assert_eq!(
            json_failure(&format!("[1 2,{deep}]"), 4),
            Some("invalid_json")
        );
        assert_eq!(
            json_failure(&format!("[{deep},1 2]"), 4),
            Some("too_deeply_nested")
        );
        assert_eq!(
            json_failure(r#"{"a":"\"": [[[[[[]]]]]]}"#, 4),
            Some("invalid_json")
        );
        let cut = format!("[{digits},{}", "[".repeat(5));
        assert_eq!(json_failure(&cut, 4), Some("invalid_json"));
        assert_eq!(json_failure(&format!("{deep} x"), 6), Some("invalid_json"));
        assert_eq!(json_failure(" [1] ", 1), None);
        assert_eq!(json_failure("", 1), Some("invalid_json"));
        assert_eq!(json_failure("NaN", 1), Some("invalid_json"));
    }

    #[test]
    fn at_the_one_limit_json_s_first_failure_from_the_left_names_a_line() {
        // the cases of tests/test_depth_limit.py, at MAX_JSON_DEPTH (500 levels)
        let arrays = |n: usize| "[".repeat(n) + &"]".repeat(n);
        let fail = |text: &str| json_failure(text, MAX_JSON_DEPTH);
        assert_eq!(fail(&format!("{{\"a\": {}}}", arrays(499))), None);
        assert_eq!(
            fail(&format!("{{\"a\": {}}}", arrays(500))),
            Some("too_deeply_nested")
        );
        assert_eq!(fail(&arrays(500)), None);
        assert_eq!(fail(&arrays(501)), Some("too_deeply_nested"));
        let past = arrays(600);
        let long = "7".repeat(4301);
        for (text, reason) in [
            // a syntax error (or NaN, or a long int) before the container past the limit
            (
                format!("{{\"a\": 1 2, \"b\": {past}}}"),
                Some("invalid_json"),
            ),
            (format!("{{\"a\": -{past}}}"), Some("invalid_json")),
            (
                format!("{{\"a\": NaN, \"b\": {past}}}"),
                Some("invalid_json"),
            ),
            (
                format!("{{\"a\": {long}, \"b\": {past}}}"),
                Some("invalid_json"),
            ),
            // the bracket at level 501 is itself where no value may begin
            (
                format!("{}{{[]{}", "{\"k\": ".repeat(499), "}".repeat(500)),
                Some("invalid_json"),
            ),
            (
                format!("{}1 [{}", "[".repeat(500), "]".repeat(501)),
                Some("invalid_json"),
            ),
            // past the limit first, then broken or not
            (
                format!("{}[]{}", "{\"k\": ".repeat(500), "}".repeat(500)),
                Some("too_deeply_nested"),
            ),
            (format!("{{\"a\": {past}, 1 2}}"), Some("too_deeply_nested")),
            (
                format!("{{\"a\": {past}, \"b\": {long}}}"),
                Some("too_deeply_nested"),
            ),
            (
                format!("{{\"a\": {}", "[".repeat(600)),
                Some("too_deeply_nested"),
            ),
            // brackets in strings and escapes do not count
            (
                format!("{{\"a\": \"{}\\\"{}\"}}", "[".repeat(600), "{".repeat(600)),
                None,
            ),
        ] {
            assert_eq!(fail(&text), reason, "{}", &text[..40.min(text.len())]);
        }
    }

    #[test]
    fn msgspec_decodes_a_declared_shape_and_refuses_what_it_cannot_build() {
        const FIELDS: [(&str, Shape); 2] = [
            ("a", Shape::Any),
            (
                "r",
                Shape::Record {
                    fields: &[("l", Shape::ListOf(&[("b", Shape::Any)]))],
                    null: true,
                },
            ),
        ];
        let ok = |t: &str| msgspec_accepts(t, &FIELDS);
        let long = "9".repeat(4301);
        assert!(ok(&format!(
            r#"{{"z":{long},"a":[1e308,{}]}}"#,
            "9".repeat(4300)
        )));
        assert!(ok(r#"{"r":null}"#));
        assert!(ok(r#"{"r":{"l":[{"b":1},{}]}}"#));
        assert!(!ok(&format!(r#"{{"a":{long}}}"#)));
        assert!(!ok(&format!(r#"{{"a":[-{}]}}"#, "9".repeat(4300))));
        assert!(!ok(r#"{"a":{"x":1e400}}"#));
        assert!(!ok(r#"{"r":1}"#));
        assert!(!ok(r#"{"r":{"l":null}}"#));
        assert!(!ok(r#"{"r":{"l":[1]}}"#));
        assert!(!ok(r#"{"r":{"l":[{"b":-1e999}]}}"#));
        assert!(!ok(r#"{"r":null,"r":[]}"#));
        assert!(!ok(r#"{"z":"\udc00"}"#));
    }
}
