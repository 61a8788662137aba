//! Whole JSON documents, one after another (`wavemetrics/readers/_documents.py` and the
//! document branch of `_spans.iter_json_values`), read without holding a document:
//! [`split`] finds where each top-level value ends exactly as `split_documents` does
//! (bracket depth outside strings, whitespace-only lines dropped, text between values
//! one item), and hands each document's bytes, a line at a time, to a [`Walker`], which
//! checks the document as Python's `json.loads` reads it and walks its top-level
//! container value by value: each element of a top-level array, or of the array of a
//! top-level key the reader walks, is held alone, read, and dropped.
//!
//! What `split_documents` only does on inputs no writer produces is not done here: a
//! value cut at a line that begins with `{` or `[` (a document that does not close, or
//! does not parse, or nests near Python's depth limit, around such a line), a line or a
//! document past the default limits, and a single document that fails to parse (an
//! error of the input) are declined ([`Declined`]): the unit is read by Python.

use super::lines::{int_too_long, json_failure_at};
use super::protocol::Failure;
use crate::account::LineAccount;
use crate::json::{Scan, SyntaxError, Val, MAX_JSON_DEPTH};
use crate::lines::{is_py_space, LineReader};
use std::io::{self, Read};

/// `--max-document-bytes` by default (256 MiB); the native engine runs with the
/// default limits only.
const MAX_DOCUMENT_BYTES: usize = 256 << 20;

/// Why an input of documents is handed back to Python (see the module docs).
pub(super) fn declined() -> Failure {
    Failure::from(io::Error::new(
        io::ErrorKind::Unsupported,
        "a file of documents the Python reader reads",
    ))
}

/// What a [`Walker`] shows its reader of one document, in input order.
pub(super) enum Part<'t> {
    /// The document is an array: its elements follow, each nested 1 deep.
    TopArray,
    /// The document is an object: its keys follow.
    TopObject,
    /// A key of the top-level object (unescaped, WTF-8); its value follows, as one
    /// [`Part::Value`] nested 1 deep, or, when the reader walks the key and its value is
    /// an array, as [`Part::Walked`] and the array's elements, each nested 2 deep.
    Key(&'t [u8]),
    Walked,
    /// An element of a walked array, with how many containers hold it.
    Element(&'t str, usize),
    /// A whole value, with how many containers hold it (0: the document is no
    /// container).
    Value(&'t str, usize),
}

/// A reader of documents: what it makes of each part (a value's text must be scanned
/// in full, a [`SyntaxError`] when it is no JSON within [`MAX_JSON_DEPTH`]), and
/// which top-level keys it walks.
pub(super) trait Visit {
    fn walks(&self, key: &[u8]) -> bool;
    fn part(&mut self, part: Part<'_>) -> Result<(), SyntaxError>;
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Start,
    KeyOrEnd,
    Key,
    Colon,
    Value,
    CommaOrEnd,
    ItemOrEnd,
    Item,
    ItemCommaOrEnd,
    Done,
}

/// A value being found in the buffer: where it began and how far it was scanned.
#[derive(Clone, Copy)]
struct Pending {
    start: usize,
    at: usize,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

/// One document's check and walk, fed its bytes a piece at a time.
pub(super) struct Walker {
    buf: Vec<u8>,
    at: usize,
    state: State,
    pending: Option<Pending>,
    key: Vec<u8>,
    /// How deep the walked array's elements are (1 in a top-level array, 2 in a key's).
    item_depth: usize,
    failure: Option<&'static str>,
    utf8: bool,
}

impl Walker {
    pub(super) fn new() -> Self {
        Walker {
            buf: Vec::new(),
            at: 0,
            state: State::Start,
            pending: None,
            key: Vec::new(),
            item_depth: 1,
            failure: None,
            utf8: true,
        }
    }

    /// The next piece of the document's bytes (pieces end between characters).
    pub(super) fn feed<V: Visit>(&mut self, piece: &[u8], visit: &mut V) {
        if self.utf8 && simdutf8::basic::from_utf8(piece).is_err() {
            self.utf8 = false;
        }
        if !self.utf8 || self.failure.is_some() {
            return; // the document fails: only its UTF-8 is still looked at
        }
        let keep = self.pending.map_or(self.at, |p| p.start);
        if keep > 0 {
            self.buf.drain(..keep);
            self.at -= keep;
            if let Some(p) = &mut self.pending {
                p.start -= keep;
                p.at -= keep;
            }
        }
        self.buf.extend_from_slice(piece);
        self.advance(visit, false);
    }

    /// The end of the document: `None` when it parsed (its parts all shown), else the
    /// problem Python names (`invalid_utf8`, `too_deeply_nested`, `invalid_json`).
    pub(super) fn finish<V: Visit>(mut self, visit: &mut V) -> Option<&'static str> {
        if self.utf8 && self.failure.is_none() {
            self.advance(visit, true);
        }
        if !self.utf8 {
            return Some("invalid_utf8");
        }
        self.failure
    }

    fn fail(&mut self, reason: &'static str) {
        self.failure = Some(reason);
        self.buf = Vec::new();
        self.pending = None;
    }

    fn space(&mut self) -> Option<u8> {
        while let Some(&b) = self.buf.get(self.at) {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    fn advance<V: Visit>(&mut self, visit: &mut V, eof: bool) {
        while self.failure.is_none() {
            if self.pending.is_none() && self.space().is_none() {
                if eof && self.state != State::Done {
                    self.fail("invalid_json");
                }
                return;
            }
            let byte = self.buf.get(self.at).copied().unwrap_or(b' ');
            match self.state {
                State::Start => match byte {
                    b'{' if self.pending.is_none() => {
                        self.at += 1;
                        self.show(visit, Part::TopObject);
                        self.state = State::KeyOrEnd;
                    }
                    b'[' if self.pending.is_none() => {
                        self.at += 1;
                        self.show(visit, Part::TopArray);
                        self.item_depth = 1;
                        self.state = State::ItemOrEnd;
                    }
                    _ => {
                        let Some((start, end)) = self.value(eof) else {
                            return;
                        };
                        self.state = State::Done;
                        self.value_part(visit, start, end, 0, false);
                    }
                },
                State::KeyOrEnd | State::ItemOrEnd
                    if self.pending.is_none() && {
                        let close = if self.state == State::KeyOrEnd {
                            b'}'
                        } else {
                            b']'
                        };
                        byte == close
                    } =>
                {
                    self.at += 1;
                    self.close();
                }
                State::KeyOrEnd | State::Key => {
                    if self.pending.is_none() && byte != b'"' {
                        return self.fail("invalid_json");
                    }
                    let Some((start, end)) = self.value(eof) else {
                        return;
                    };
                    self.at = end;
                    let text = simdutf8::basic::from_utf8(&self.buf[start..end]).unwrap_or("");
                    let mut scan = Scan::new(text);
                    let key = scan.raw(0).ok().map(Val::of);
                    let key = key.as_ref().and_then(Val::str_bytes);
                    match key {
                        Some(key) if scan.space().is_none() => {
                            self.key = key.to_vec();
                            self.state = State::Colon;
                        }
                        _ => return self.fail("invalid_json"),
                    }
                }
                State::Colon => {
                    if byte != b':' {
                        return self.fail("invalid_json");
                    }
                    self.at += 1;
                    self.state = State::Value;
                }
                State::Value => {
                    if self.pending.is_none() && byte == b'[' && visit.walks(&self.key) {
                        self.at += 1;
                        let key = std::mem::take(&mut self.key);
                        self.show(visit, Part::Key(&key));
                        self.show(visit, Part::Walked);
                        self.item_depth = 2;
                        self.state = State::ItemOrEnd;
                        continue;
                    }
                    let Some((start, end)) = self.value(eof) else {
                        return;
                    };
                    self.state = State::CommaOrEnd;
                    self.value_part(visit, start, end, 1, true);
                }
                State::CommaOrEnd | State::ItemCommaOrEnd => {
                    let (next, close) = if self.state == State::CommaOrEnd {
                        (State::Key, b'}')
                    } else {
                        (State::Item, b']')
                    };
                    self.at += 1;
                    if byte == b',' {
                        self.state = next;
                    } else if byte == close {
                        self.close();
                    } else {
                        self.fail("invalid_json");
                    }
                }
                State::ItemOrEnd | State::Item => {
                    let Some((start, end)) = self.value(eof) else {
                        return;
                    };
                    self.state = State::ItemCommaOrEnd;
                    let depth = self.item_depth;
                    self.value_part(visit, start, end, depth, false);
                }
                State::Done => self.fail("invalid_json"),
            }
        }
    }

    /// A container closed: the walked array (back to the object's keys) or the document.
    fn close(&mut self) {
        self.state = match self.state {
            State::ItemOrEnd | State::ItemCommaOrEnd if self.item_depth == 2 => State::CommaOrEnd,
            _ => State::Done,
        };
    }

    fn show<V: Visit>(&mut self, visit: &mut V, part: Part<'_>) {
        if visit.part(part).is_err() {
            self.fail("invalid_json");
        }
    }

    /// A whole value found at `start..end`, `depth` containers deep: shown to the reader
    /// (after its key when `keyed`), its problem the first failure `json` meets in it.
    fn value_part<V: Visit>(
        &mut self,
        visit: &mut V,
        start: usize,
        end: usize,
        depth: usize,
        keyed: bool,
    ) {
        let bytes = &self.buf[start..end];
        let text = simdutf8::basic::from_utf8(bytes).unwrap_or("");
        let mut shown = Ok(());
        if keyed {
            shown = visit.part(Part::Key(&self.key));
        }
        let shown = shown.and_then(|()| {
            visit.part(if keyed || depth == 0 {
                Part::Value(text, depth)
            } else {
                Part::Element(text, depth)
            })
        });
        let failure = match shown {
            Err(SyntaxError) => {
                Some(json_failure_at(text, MAX_JSON_DEPTH, depth).unwrap_or("invalid_json"))
            }
            Ok(()) if int_too_long(bytes) => Some("invalid_json"),
            Ok(()) => None,
        };
        self.at = end;
        if let Some(reason) = failure {
            self.fail(reason);
        }
    }

    /// The next whole value from `at` (a container to its closing bracket, a string to
    /// its closing quote, other text to the next delimiter), scanned on from where the
    /// last piece ended; `None` until it ends (at the end of the document: what is left).
    fn value(&mut self, eof: bool) -> Option<(usize, usize)> {
        let mut p = self.pending.take().unwrap_or(Pending {
            start: self.at,
            at: self.at,
            depth: 0,
            in_string: false,
            escaped: false,
        });
        let bytes = &self.buf;
        let first = bytes[p.start];
        let end = if first == b'"' || first == b'{' || first == b'[' {
            if p.at == p.start {
                p.at += 1;
                if first == b'"' {
                    p.in_string = true;
                } else {
                    p.depth = 1;
                }
            }
            loop {
                let Some(&b) = bytes.get(p.at) else {
                    break None;
                };
                p.at += 1;
                if p.in_string {
                    if p.escaped {
                        p.escaped = false;
                    } else if b == b'\\' {
                        p.escaped = true;
                    } else if b == b'"' {
                        p.in_string = false;
                        if p.depth == 0 {
                            break Some(p.at);
                        }
                    } else if let Some(i) = memchr::memchr2(b'"', b'\\', &bytes[p.at..]) {
                        p.at += i;
                    } else {
                        p.at = bytes.len();
                    }
                    continue;
                }
                match b {
                    b'"' => p.in_string = true,
                    b'{' | b'[' => p.depth += 1,
                    b'}' | b']' => {
                        p.depth -= 1;
                        if p.depth == 0 {
                            break Some(p.at);
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let rest = &bytes[p.at..];
            rest.iter()
                .position(|b| {
                    matches!(
                        b,
                        b',' | b']' | b'}' | b'[' | b'{' | b'"' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                })
                .map(|i| p.at + i)
                .or_else(|| {
                    p.at = bytes.len();
                    None
                })
        };
        match end {
            Some(end) if end > p.start => Some((p.start, end)),
            Some(_) => {
                // a delimiter where a value should begin: no JSON
                self.fail("invalid_json");
                None
            }
            None if eof => Some((p.start, self.buf.len())),
            None => {
                self.pending = Some(p);
                None
            }
        }
    }
}

/// A reader of whole documents, shown each document's parts ([`Visit`]): it accounts
/// what they hold as it meets them, and undoes that when the document does not parse.
pub(super) trait Reading: Visit {
    /// A document begins: what it may have to undo is remembered.
    fn begin(&mut self);
    /// The document did not parse: what its parts did is undone.
    fn undo(&mut self);
    /// The document parsed: what is decided only at its end is accounted.
    fn parsed(&mut self);
    fn account(&mut self) -> &mut LineAccount;
}

/// The driver of [`read_documents`]: each document walked, counted, and accounted.
struct Driver<'a, V> {
    walker: Option<Walker>,
    /// Pieces not yet fed: a document's lines go to its walker in runs of about
    /// [`FEED_BYTES`], not one at a time (the walk is the same for any cut between
    /// characters).
    pending: Vec<u8>,
    reader: &'a mut V,
    documents: u64,
    failed: u64,
}

impl<V: Reading> Documents for Driver<'_, V> {
    fn begin(&mut self) {
        self.walker = Some(Walker::new());
        self.reader.begin();
    }

    fn piece(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= FEED_BYTES {
            self.feed();
        }
    }

    fn end(&mut self) -> bool {
        self.feed();
        let Some(walker) = self.walker.take() else {
            return false;
        };
        let failure = walker.finish(self.reader);
        self.documents += 1;
        match failure {
            Some(reason) => {
                self.failed += 1;
                self.reader.undo();
                let account = self.reader.account();
                account.lines_read += 1;
                account.problem(reason);
            }
            None => {
                self.reader.account().lines_read += 1;
                self.reader.parsed();
            }
        }
        failure.is_none()
    }
}

impl<V: Reading> Driver<'_, V> {
    fn feed(&mut self) {
        if let Some(walker) = &mut self.walker {
            if !self.pending.is_empty() {
                walker.feed(&self.pending, self.reader);
            }
        }
        self.pending.clear();
    }
}

/// How many bytes of a document are fed to its walker at a time.
const FEED_BYTES: usize = 1 << 16;

/// The document branch of `iter_json_values`: every document of `source` (each one
/// item), read by `reader` when it parses, a problem when it does not. `Err` from
/// [`declined`] where [`split`] declines, and for a single document that does not
/// parse (the input fails in Python).
pub(super) fn read_documents<R: Read, V: Reading>(
    source: R,
    reader: &mut V,
) -> Result<(), Failure> {
    let mut driver = Driver {
        walker: None,
        pending: Vec::new(),
        reader,
        documents: 0,
        failed: 0,
    };
    split(source, &mut driver)?;
    if driver.documents == 1 && driver.failed == 1 {
        return Err(declined());
    }
    Ok(())
}

/// Scans `text` (a value `depth` containers deep) in full.
pub(super) fn validate(text: &str, depth: usize) -> Result<(), SyntaxError> {
    let mut scan = Scan::within(text, MAX_JSON_DEPTH);
    scan.skip(depth)?;
    match scan.space() {
        None => Ok(()),
        Some(_) => Err(SyntaxError),
    }
}

/// What [`split`] hands its reader: the start of a document, a piece of its bytes, its
/// end (where the reader says whether it parsed).
pub(super) trait Documents {
    fn begin(&mut self);
    fn piece(&mut self, bytes: &[u8]);
    /// The document ended; whether it parsed.
    fn end(&mut self) -> bool;
}

/// Bytes inside a value, outside strings, that the split looks at.
fn nested(b: u8) -> bool {
    matches!(b, b'[' | b']' | b'{' | b'}' | b'"')
}

/// `\s` of a bytes regex: ASCII space, `\t`, `\n`, `\r`, `\x0b`, `\x0c`.
fn regex_space(b: u8) -> bool {
    is_py_space(b)
}

/// `split_documents` of `_documents.py` under the default limits, fed to `docs`: every
/// top-level value of `source` (and each run of stray text between values) as one
/// document. `Err` from [`declined`] where Python would cut a value at a line that may
/// begin a document, or past a limit.
pub(super) fn split<R: Read, D: Documents>(source: R, docs: &mut D) -> Result<(), Failure> {
    let mut reader = LineReader::new(source);
    let mut open = false; // a value goes on from an earlier line (`parts` not empty)
    let mut size = 0usize;
    let mut resume = false;
    let mut stray: Vec<u8> = Vec::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut first = true;
    let mut line_buf: Vec<u8> = Vec::new();
    let end_value = |docs: &mut D, resume: bool| -> Result<(), Failure> {
        let parsed = docs.end();
        if resume && !parsed {
            return Err(declined()); // `_whole` decides: Python may cut it
        }
        Ok(())
    };
    while let Some((raw, has_newline)) = reader.next_line()? {
        line_buf.clear();
        line_buf.extend_from_slice(raw);
        if has_newline {
            line_buf.push(b'\n');
        }
        let mut line: &[u8] = &line_buf;
        if first {
            line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
        }
        first = false;
        if !in_string && !line.is_empty() && line.iter().all(|&b| is_py_space(b)) {
            if depth > 0 {
                size += line.len();
                if size > MAX_DOCUMENT_BYTES {
                    return Err(declined());
                }
            }
            continue;
        }
        if open && matches!(line.first(), Some(b'{' | b'[')) {
            resume = true;
        }
        let mut start = 0usize;
        let mut position = 0usize;
        let length = line.len();
        while position < length {
            if in_string {
                if escaped {
                    escaped = false;
                    position += 1;
                    continue;
                }
                let Some(i) = memchr::memchr2(b'"', b'\\', &line[position..]) else {
                    break;
                };
                position += i + 1;
                if line[position - 1] == b'\\' {
                    escaped = true;
                    continue;
                }
                in_string = false;
                if depth == 0 {
                    // a top-level string ends here
                    emit(docs, &line[start..position], &mut size, open)?;
                    end_value(docs, resume)?;
                    (open, size, resume) = (false, 0, false);
                }
                continue;
            }
            let token_start;
            let token_end;
            if depth > 0 {
                let Some(i) = line[position..].iter().position(|&b| nested(b)) else {
                    break;
                };
                token_start = position + i;
                token_end = token_start + 1;
            } else {
                let Some(i) = line[position..].iter().position(|&b| !regex_space(b)) else {
                    break;
                };
                token_start = position + i;
                token_end = if nested(line[token_start]) {
                    token_start + 1
                } else {
                    line[token_start..]
                        .iter()
                        .position(|&b| nested(b) || regex_space(b))
                        .map_or(length, |j| token_start + j)
                };
            }
            position = token_end;
            let token = &line[token_start..token_end];
            if depth == 0 && !matches!(token, b"{" | b"[" | b"\"") {
                // stray text between documents: one item, up to the next document
                if !stray.is_empty() {
                    stray.push(b' ');
                }
                stray.extend_from_slice(token);
                if stray.len() > MAX_DOCUMENT_BYTES {
                    return Err(declined());
                }
                continue;
            }
            if depth == 0 && !open {
                if !stray.is_empty() {
                    docs.begin();
                    docs.piece(&stray);
                    docs.end();
                    stray.clear();
                }
                start = token_start;
                docs.begin();
            }
            match token {
                b"\"" => in_string = true,
                b"{" | b"[" => depth += 1,
                _ => {
                    depth -= 1;
                    if depth == 0 {
                        emit(docs, &line[start..position], &mut size, open)?;
                        end_value(docs, resume)?;
                        (open, size, resume) = (false, 0, false);
                    }
                }
            }
        }
        if depth > 0 || in_string {
            let piece = if open { line } else { &line[start..] };
            size += piece.len();
            if size > MAX_DOCUMENT_BYTES {
                return Err(declined());
            }
            docs.piece(piece);
            open = true;
        }
    }
    if open && resume {
        return Err(declined()); // a value still open is cut at such a line
    }
    if !stray.is_empty() {
        docs.begin();
        docs.piece(&stray);
        docs.end();
    }
    if open {
        docs.end();
    }
    Ok(())
}

/// The last piece of a value (`_emit`): past the limit, Python ends the input.
fn emit<D: Documents>(
    docs: &mut D,
    tail: &[u8],
    size: &mut usize,
    _open: bool,
) -> Result<(), Failure> {
    *size += tail.len();
    if *size > MAX_DOCUMENT_BYTES {
        return Err(declined());
    }
    docs.piece(tail);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what the walker shows, as text.
    #[derive(Default)]
    struct Record(Vec<String>);

    impl Visit for Record {
        fn walks(&self, key: &[u8]) -> bool {
            key == b"w"
        }

        fn part(&mut self, part: Part<'_>) -> Result<(), SyntaxError> {
            let shown = match part {
                Part::TopArray => "[".to_string(),
                Part::TopObject => "{".to_string(),
                Part::Key(key) => format!("k:{}", String::from_utf8_lossy(key)),
                Part::Walked => "w".to_string(),
                Part::Element(text, depth) | Part::Value(text, depth) => {
                    let mut scan = Scan::within(text, MAX_JSON_DEPTH);
                    scan.skip(depth)?;
                    if scan.space().is_some() {
                        return Err(SyntaxError);
                    }
                    format!("{depth}:{text}")
                }
            };
            self.0.push(shown);
            Ok(())
        }
    }

    /// The parts of `text` fed a line at a time, and its problem.
    fn walk(text: &str) -> (Vec<String>, Option<&'static str>) {
        let mut record = Record::default();
        let mut walker = Walker::new();
        for piece in text.split_inclusive('\n') {
            walker.feed(piece.as_bytes(), &mut record);
        }
        let failure = walker.finish(&mut record);
        (record.0, failure)
    }

    #[test]
    fn a_document_is_walked_value_by_value_across_lines() {
        let (parts, failure) =
            walk("{\n \"a\": [1,\n 2],\n \"w\": [{\"x\":\n 1}, 5 ],\n \"w\": 3 }");
        assert_eq!(failure, None);
        assert_eq!(
            parts,
            [
                "{",
                "k:a",
                "1:[1,\n 2]",
                "k:w",
                "w",
                "2:{\"x\":\n 1}",
                "2:5",
                "k:w",
                "1:3"
            ]
        );
        let (parts, failure) = walk("[ \"s\" ,\n{}\n]\n");
        assert_eq!(
            (parts, failure),
            (vec!["[".into(), "1:\"s\"".into(), "1:{}".into()], None)
        );
        assert_eq!(walk(" 12 ").0, ["0:12"]);
        assert_eq!(walk("{\"\\u0077\": []}").0, ["{", "k:w", "w"]);
    }

    #[test]
    fn a_document_fails_as_json_first_fails_it() {
        assert_eq!(walk("[1,]").1, Some("invalid_json"));
        assert_eq!(walk("{\"a\" 1}").1, Some("invalid_json"));
        assert_eq!(walk("{\"a\": 1,}").1, Some("invalid_json"));
        assert_eq!(walk("[1] 2").1, Some("invalid_json"));
        assert_eq!(walk("[1").1, Some("invalid_json"));
        assert_eq!(walk("[NaN]").1, Some("invalid_json"));
        assert_eq!(walk("{\"a\": \"\u{1}\"}").1, Some("invalid_json"));
        assert_eq!(walk("{\"\u{1}\": 1}").1, Some("invalid_json"));
        // the first failure from the left: a syntax error before a deep value, or after
        let deep = "[".repeat(MAX_JSON_DEPTH);
        assert_eq!(walk(&format!("[1 2, {deep}")).1, Some("invalid_json"));
        assert_eq!(walk(&format!("[{deep} 1 2")).1, Some("too_deeply_nested"));
        let at_limit = format!(
            "{}{}",
            "[".repeat(MAX_JSON_DEPTH - 1),
            "]".repeat(MAX_JSON_DEPTH - 1)
        );
        assert_eq!(walk(&format!("[{at_limit}]")).1, None);
        assert_eq!(
            walk(&format!("[[{at_limit}]]")).1,
            Some("too_deeply_nested")
        );
        // an int json refuses, before or after a syntax error in the same value
        let long = "9".repeat(4301);
        assert_eq!(walk(&format!("[{long}]")).1, Some("invalid_json"));
        assert_eq!(
            walk(&format!("[[{long}, [[{deep}]]]]")).1,
            Some("invalid_json")
        );
        assert_eq!(walk(&format!("[{}]", "9".repeat(4300))).1, None);
    }

    #[test]
    fn bytes_that_are_not_utf8_fail_a_document_before_anything_else() {
        let mut record = Record::default();
        let mut walker = Walker::new();
        walker.feed(b"[1 2,\n", &mut record);
        walker.feed(b"\"\xff\"]", &mut record);
        assert_eq!(walker.finish(&mut record), Some("invalid_utf8"));
    }

    /// What [`split`] hands over: each document's bytes and whether it parsed.
    #[derive(Default)]
    struct Collect(Vec<(Vec<u8>, bool)>);

    impl Documents for Collect {
        fn begin(&mut self) {
            self.0.push((Vec::new(), false));
        }

        fn piece(&mut self, bytes: &[u8]) {
            if let Some(last) = self.0.last_mut() {
                last.0.extend_from_slice(bytes);
            }
        }

        fn end(&mut self) -> bool {
            let last = self.0.last_mut().map(|(text, _)| text.clone());
            let parsed = last.is_some_and(|text| {
                std::str::from_utf8(&text).is_ok_and(|t| {
                    crate::json::scan_value(t, MAX_JSON_DEPTH) == crate::json::ScanEnd::Valid
                })
            });
            if let Some(last) = self.0.last_mut() {
                last.1 = parsed;
            }
            parsed
        }
    }

    fn documents(text: &[u8]) -> Option<Vec<(String, bool)>> {
        let mut collect = Collect::default();
        split(text, &mut collect).ok()?;
        Some(
            collect
                .0
                .into_iter()
                .map(|(bytes, parsed)| (String::from_utf8_lossy(&bytes).into_owned(), parsed))
                .collect(),
        )
    }

    #[test]
    fn documents_are_split_as_split_documents_splits_them() {
        let docs = |text: &[u8]| documents(text).unwrap();
        assert_eq!(
            docs(b"\xef\xbb\xbf{\n \"a\": 1\n}\n[1] 5 x\n\"s\" {}"),
            [
                ("{\n \"a\": 1\n}".into(), true),
                ("[1]".into(), true),
                ("5 x".into(), false),
                ("\"s\"".into(), true),
                ("{}".into(), true),
            ]
        );
        // a whitespace-only line inside a value is dropped (a form feed with it)
        assert_eq!(docs(b"[\n\x0c\n1]"), [("[\n1]".into(), true)]);
        // brackets in strings, an escaped quote, a string over a line end
        assert_eq!(
            docs(b"[\"]\\\"\"] [\"a\nb\"]"),
            [("[\"]\\\"\"]".into(), true), ("[\"a\nb\"]".into(), false)]
        );
        // stray closing brackets between documents are one item
        assert_eq!(
            docs(b"] }\n[]"),
            [("] }".into(), false), ("[]".into(), true)]
        );
        // an unclosed value with no line that may begin a document is one item
        assert_eq!(docs(b"{\n \"a\": [\n"), [("{\n \"a\": [\n".into(), false)]);
        assert_eq!(docs(b""), []);
    }

    #[test]
    fn a_value_python_would_cut_is_declined() {
        // a line in the first column beginning `[` inside a value that never closes
        assert_eq!(documents(b"{\n\"a\": [\n[1]\n"), None);
        // ... or closes but does not parse
        assert_eq!(documents(b"{\n\"a\": x\n[1]}\n"), None);
        // such a line inside a value that parses is no cut
        assert_eq!(
            documents(b"[\n[1]\n]\n"),
            Some(vec![("[\n[1]\n]".into(), true)])
        );
    }
}
