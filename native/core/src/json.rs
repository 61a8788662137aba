//! JSON decoding of only the keys a reader uses: a single-pass validating scanner
//! ([`parse_object`], [`parse_object_fast`]) that checks every byte of a line as
//! Python's `json.loads` would and hands over the raw text of the few values a
//! reader reads; everything else is skipped without being built.
//!
//! Values are classified by [`Val::of`], so that a string with a lone surrogate
//! escape (which Python's `json` accepts) is kept as WTF-8 bytes instead of
//! failing the whole line ([`unescape`] decodes a string with an escape as
//! serde_json's `deserialize_bytes` does; the differential test holds them equal).
//! Duplicate keys: the last one wins, as in Python's `json`.

use std::borrow::Cow;

/// A JSON value as a reader sees it: the Python type that `json.loads` would build.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Val<'a> {
    /// The key is not in the object.
    #[default]
    Absent,
    Null,
    Bool(bool),
    /// An int or float, as the double Python's `float()` of it gives (ints that
    /// overflow a double become infinite, which every rule rejects like Python).
    Num(f64),
    /// An integer literal too large for a float (Python's `float(int)` raises).
    BigInt,
    /// A string without a backslash escape: its bytes are the line's own, so UTF-8.
    Text(&'a str),
    /// A string with an escape, as WTF-8 (lone surrogates kept).
    Str(Cow<'a, [u8]>),
    /// An array, as its raw text.
    Array(&'a str),
    /// An object, as its raw text.
    Object(&'a str),
}

pub(crate) fn number(text: &str) -> f64 {
    if !text.contains(['.', 'e', 'E']) {
        // a Python int: float(int) rounds correctly, and -0 is the int 0
        if let Ok(small) = text.parse::<i64>() {
            return small as f64;
        }
    }
    // Rust's parse rounds correctly, like Python's float(); an overlong int gives inf
    text.parse::<f64>().unwrap_or(f64::INFINITY)
}

impl<'a> Val<'a> {
    /// Classify a raw JSON value (already validated by the scan that produced it).
    pub fn of(raw: Raw<'a>) -> Val<'a> {
        let text = raw.text;
        match text.as_bytes().first() {
            // the quotes are ASCII: the bytes between them are whole characters
            Some(b'"') if raw.plain => Val::Text(&text[1..text.len() - 1]),
            Some(b'"') => match unescape(text) {
                Some(bytes) => Val::Str(Cow::Owned(bytes)),
                None => Val::Null, // unreachable: the text was validated
            },
            Some(b'{') => Val::Object(text),
            Some(b'[') => Val::Array(text),
            Some(b't') => Val::Bool(true),
            Some(b'f') => Val::Bool(false),
            Some(b'n') => Val::Null,
            _ => match number(text) {
                v if v.is_infinite() && !text.contains(['.', 'e', 'E']) => Val::BigInt,
                v => Val::Num(v),
            },
        }
    }

    /// The value when it is a string.
    pub fn str_bytes(&self) -> Option<&[u8]> {
        match self {
            Val::Text(text) => Some(text.as_bytes()),
            Val::Str(bytes) => Some(bytes),
            _ => None,
        }
    }

    /// `usable_text`: a non-empty string that UTF-8 can encode (no lone surrogate).
    pub fn usable_text(&self) -> Option<&str> {
        match self {
            Val::Text(text) if !text.is_empty() => Some(text),
            Val::Str(bytes) if !bytes.is_empty() => std::str::from_utf8(bytes).ok(),
            _ => None,
        }
    }

    /// A JSON number (never a bool), as Python's `isinstance(v, (int, float))`.
    /// `usable_id` of `_lines.py`: usable text with no control character (C0,
    /// DEL, C1); a lone surrogate already fails `usable_text`.
    pub fn usable_id(&self) -> Option<&str> {
        self.usable_text().filter(|t| !has_control(t.as_bytes()))
    }

    /// `bad_id` of `_lines.py`: a non-empty string that `usable_id` refuses.
    pub fn bad_id(&self) -> bool {
        self.str_bytes().is_some_and(|b| !b.is_empty()) && self.usable_id().is_none()
    }

    pub fn number(&self) -> Option<f64> {
        match self {
            Val::Num(v) => Some(*v),
            Val::BigInt => Some(f64::INFINITY),
            _ => None,
        }
    }
}

/// Whether UTF-8 text holds a control character (C0, DEL or C1), checked on bytes:
/// C0 and DEL are single bytes, and C1 (U+0080..=U+009F) is `0xC2` then `0x80..=0x9F`
/// (a `0xC2` byte only ever leads a two-byte character in UTF-8).
pub fn has_control(text: &[u8]) -> bool {
    // most ids are printable ASCII: one vectorisable pass settles them
    if text.iter().all(|b| (0x20..0x7f).contains(b)) {
        return false;
    }
    text.iter().enumerate().any(|(i, &b)| {
        b < 0x20
            || b == 0x7f
            || (b == 0xc2 && text.get(i + 1).is_some_and(|&n| (0x80..=0x9f).contains(&n)))
    })
}

/// A line that is not JSON as Python's `json` reads it (`invalid_json`); where it
/// failed is not kept (the readers count the line, they never show its text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntaxError;

/// The text of one JSON value (no surrounding whitespace), validated by the scan
/// that found it; `plain` when it is a string without a backslash escape (its
/// bytes between the quotes are then its value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raw<'a> {
    text: &'a str,
    plain: bool,
}

impl<'a> Raw<'a> {
    /// The value's JSON text.
    pub fn get(&self) -> &'a str {
        self.text
    }
}

/// The WTF-8 value of a JSON string literal (quotes included) that holds an escape,
/// decoded by serde_json as bytes: a lone surrogate escape (`"\ud800"`, which
/// Python's `json` accepts) becomes its three WTF-8 bytes. `None` only for text
/// that is no string literal, which the scan never hands over.
fn unescape(literal: &str) -> Option<Vec<u8>> {
    let body = literal
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))?
        .as_bytes();
    // never more bytes out than in (an escape is no shorter than what it writes), and
    // a chunk is only copied while 16 bytes remain: the Vec never grows
    let mut out = Vec::with_capacity(body.len());
    let mut at = 0;
    loop {
        // the plain bytes up to the next backslash (in a validated literal's body every
        // special byte is one: its quotes are escaped, it holds no control byte)
        let end = plain_end(body, at);
        match body.get(at..at + 16) {
            // with 16 bytes left: one fixed-size copy, cut back to the run (most runs
            // in escaped text are short), then the rest of a longer run
            Some(chunk) => {
                let mut block = [0u8; 16];
                block.copy_from_slice(chunk);
                let len = out.len();
                out.extend_from_slice(&block);
                out.truncate(len + (end - at).min(16));
                out.extend_from_slice(&body[(at + 16).min(end)..end]);
            }
            None => out.extend_from_slice(&body[at..end]),
        }
        at = end;
        if at == body.len() {
            break;
        }
        at += 1; // the backslash
        let byte = *body.get(at)?;
        at += 1;
        match byte {
            b'"' | b'\\' | b'/' => out.push(byte),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'u' => {
                let mut unit = hex4(body.get(at..at + 4)?)?;
                at += 4;
                // serde_json's rule (Python's too): a high surrogate joins the low
                // one escaped right after it; else each is kept alone, as WTF-8
                loop {
                    if !(0xd800..=0xdbff).contains(&unit) || body.get(at..at + 2) != Some(b"\\u") {
                        push_wtf8(&mut out, u32::from(unit));
                        break;
                    }
                    let next = hex4(body.get(at + 2..at + 6)?)?;
                    at += 6;
                    if (0xdc00..=0xdfff).contains(&next) {
                        let pair = 0x1_0000
                            + ((u32::from(unit) - 0xd800) << 10)
                            + (u32::from(next) - 0xdc00);
                        push_wtf8(&mut out, pair);
                        break;
                    }
                    push_wtf8(&mut out, u32::from(unit));
                    unit = next;
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Where the run of bytes from `at` that holds no backslash ends: the next one's
/// index, or `body.len()`. The first 16 bytes are looked at with [`specials`] (escapes
/// in tool output come every few bytes), the rest by `memchr` (a long run).
fn plain_end(body: &[u8], at: usize) -> usize {
    let from = match body.get(at..at + 16) {
        Some(chunk) => {
            let mut block = [0u8; 16];
            block.copy_from_slice(chunk);
            let found = specials(&block);
            if found != 0 {
                return at + found.trailing_zeros() as usize;
            }
            at + 16
        }
        None => at,
    };
    memchr::memchr(b'\\', &body[from..]).map_or(body.len(), |found| from + found)
}

/// The code unit of four hex digits (either case); `None` for any other text.
fn hex4(digits: &[u8]) -> Option<u16> {
    digits.iter().try_fold(0u16, |unit, &digit| {
        let value = char::from(digit).to_digit(16)?;
        // four digits at most (the callers slice four): no overflow
        Some(unit * 16 + value as u16)
    })
}

/// `code` (a code point up to U+10FFFF, a surrogate included) as UTF-8 encodes it:
/// a scalar value as Rust's `char`, a lone surrogate (no `char`) as the three bytes
/// the same rule gives it (WTF-8), as serde_json writes it.
fn push_wtf8(out: &mut Vec<u8>, code: u32) {
    match char::from_u32(code) {
        Some(ch) => out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes()),
        // U+D800..U+DFFF: 0xED, then the low 12 bits, 6 in each continuation byte
        None => out.extend_from_slice(&[
            0xed,
            0x80 + ((code >> 6) & 0x3f) as u8,
            0x80 + (code & 0x3f) as u8,
        ]),
    }
}

/// How many arrays and objects the scan enters at most: the one limit
/// ([`MAX_JSON_DEPTH`]), which also bounds the recursion (and the stack). A text
/// the scan accepts therefore nests no deeper than any reader reads.
const MAX_SCAN_DEPTH: usize = MAX_JSON_DEPTH;

/// One bit per byte of `chunk` that is `"`, `\` or below 0x20 (a JSON string's
/// end, escape or forbidden control character), bit 0 for the first byte.
fn specials(chunk: &[u8; 16]) -> u32 {
    // SAFETY: specials_sse2 needs SSE2 only, which every x86_64 processor has
    // (it is in the x86_64 baseline the crate is compiled for); it reads nothing
    // but its argument.
    #[cfg(target_arch = "x86_64")]
    return unsafe { specials_sse2(chunk) };
    #[cfg(not(target_arch = "x86_64"))]
    return specials_bytewise(chunk);
}

/// [`specials`] with SSE2 (every x86_64 processor has it): three byte compares
/// and a move-mask for 16 bytes, where a byte-wise loop (which the compiler does
/// not vectorise) or a word-at-a-time test costs ~5 instructions a byte. The
/// intrinsics used take no pointer (the chunk is loaded as two `u64`s); the one
/// `unsafe` is the call (see [`specials`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn specials_sse2(chunk: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_set_epi64x,
    };
    let [a, b, c, d, e, f, g, h, rest @ ..] = *chunk;
    let low = i64::from_le_bytes([a, b, c, d, e, f, g, h]);
    let high = i64::from_le_bytes(rest);
    let bytes = _mm_set_epi64x(high, low);
    let quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'"' as i8));
    let backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\\' as i8));
    // unsigned byte <= 0x1f exactly when min(byte, 0x1f) is the byte
    let control = _mm_cmpeq_epi8(_mm_min_epu8(bytes, _mm_set1_epi8(0x1f)), bytes);
    _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
}

/// [`specials`] a byte at a time: the portable path, and the reference the SSE2
/// path is tested against.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn specials_bytewise(chunk: &[u8; 16]) -> u32 {
    let mut found = 0;
    for (i, &byte) in chunk.iter().enumerate() {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            found |= 1 << i;
        }
    }
    found
}

/// What may follow a backslash in a JSON string, by byte: [`ESCAPE_BAD`],
/// [`ESCAPE_ONE`] (`" \\ / b f n r t`: the escape is two bytes) or [`ESCAPE_U`].
const ESCAPE_CLASS: [u8; 256] = {
    let mut class = [ESCAPE_BAD; 256];
    let ones = b"\"\\/bfnrt";
    let mut i = 0;
    while i < ones.len() {
        class[ones[i] as usize] = ESCAPE_ONE;
        i += 1;
    }
    class[b'u' as usize] = ESCAPE_U;
    class
};
const ESCAPE_BAD: u8 = 0;
const ESCAPE_ONE: u8 = 1;
const ESCAPE_U: u8 = 2;

/// The escaped bytes of a 64-byte block of a string's body, given its backslashes
/// and whether its first byte is escaped (`carry`: the block before ended in a
/// backslash that starts an escape): `(escapes, bad, long, carry_out)`, bit `i` for
/// byte `i`: every escaped byte, those no escape may hold, the `u`s (of `\uXXXX`,
/// whose digits are checked elsewhere), and whether the block's last byte is a
/// backslash that starts an escape. A backslash that is escaped starts none. Bytes
/// after the string's end are marked too: the caller keeps those before it.
#[inline(always)]
fn escapes_of(block: &[u8; 64], backslashes: u64, carry: bool) -> (u64, u64, u64, bool) {
    let mut escapes = 0u64;
    let mut bad = 0u64;
    let mut long = 0u64;
    let mut mark = |bit: u64, byte: u8| {
        escapes |= bit;
        match ESCAPE_CLASS[byte as usize] {
            ESCAPE_BAD => bad |= bit,
            ESCAPE_U => long |= bit,
            _ => {}
        }
    };
    let mut starts = backslashes;
    if carry {
        mark(1, block[0]);
        starts &= !1;
    }
    while starts != 0 {
        let at = starts.trailing_zeros() as usize;
        let Some(&byte) = block.get(at + 1) else {
            return (escapes, bad, long, true);
        };
        let bit = 2u64 << at;
        mark(bit, byte);
        starts &= starts - 1;
        starts &= !bit;
    }
    (escapes, bad, long, false)
}

/// Three masks of a 64-byte block, bit `i` for byte `i`: its `"`, its `\\` and its
/// bytes below 0x20 ([`specials`], kept apart and four chunks at once).
#[inline(always)]
fn string_masks(block: &[u8; 64]) -> [u64; 3] {
    // SAFETY: string_masks_sse2 needs SSE2 only, which every x86_64 processor has
    // (it is in the x86_64 baseline the crate is compiled for); it reads nothing
    // but its argument.
    #[cfg(target_arch = "x86_64")]
    return unsafe { string_masks_sse2(block) };
    #[cfg(not(target_arch = "x86_64"))]
    return string_masks_bytewise(block);
}

/// [`string_masks`] with SSE2: per 16 bytes, two byte compares, a min-compare for
/// the control bytes and three move-masks. No intrinsic takes a pointer (each
/// chunk is loaded as two `u64`s); the one `unsafe` is the call.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn string_masks_sse2(block: &[u8; 64]) -> [u64; 3] {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x,
    };
    let mut masks = [0u64; 3];
    for k in 0..4 {
        let mut low = [0u8; 8];
        let mut high = [0u8; 8];
        low.copy_from_slice(&block[16 * k..16 * k + 8]);
        high.copy_from_slice(&block[16 * k + 8..16 * k + 16]);
        let bytes = _mm_set_epi64x(i64::from_le_bytes(high), i64::from_le_bytes(low));
        let quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\\' as i8));
        // unsigned byte <= 0x1f exactly when min(byte, 0x1f) is the byte
        let control = _mm_cmpeq_epi8(_mm_min_epu8(bytes, _mm_set1_epi8(0x1f)), bytes);
        let shift = 16 * k;
        masks[0] |= u64::from(_mm_movemask_epi8(quote) as u16) << shift;
        masks[1] |= u64::from(_mm_movemask_epi8(backslash) as u16) << shift;
        masks[2] |= u64::from(_mm_movemask_epi8(control) as u16) << shift;
    }
    masks
}

/// [`string_masks`] a byte at a time: the portable path, and the reference the
/// SSE2 path is tested against.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn string_masks_bytewise(block: &[u8; 64]) -> [u64; 3] {
    let mut masks = [0u64; 3];
    for (i, &byte) in block.iter().enumerate() {
        masks[0] |= u64::from(byte == b'"') << i;
        masks[1] |= u64::from(byte == b'\\') << i;
        masks[2] |= u64::from(byte < 0x20) << i;
    }
    masks
}

/// A validating scanner over one line: JSON as serde_json's grammar (and Python's
/// `json` with `strict=True`) defines it: whitespace is space, tab, LF and CR only,
/// strings hold no raw control character and only the escapes `\" \\ \/ \b \f \n
/// \r \t \uXXXX` (any four hex digits: lone surrogates are valid), numbers are
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` of any length, no trailing
/// commas, nothing after the value but whitespace. Every value it skips is
/// checked in full; only the keys a reader asks for are handed over, unbuilt.
pub struct Scan<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// The deepest level an array or object may open at (the line's object at 1).
    limit: usize,
    /// Where a container opened past `limit`, once one has.
    too_deep_at: Option<usize>,
}

impl<'a> Scan<'a> {
    pub fn new(text: &'a str) -> Self {
        Scan::within(text, MAX_SCAN_DEPTH)
    }

    /// A scan that fails past `limit` levels (at most [`MAX_SCAN_DEPTH`]).
    pub fn within(text: &'a str, limit: usize) -> Self {
        Scan {
            text,
            bytes: text.as_bytes(),
            at: 0,
            limit: limit.min(MAX_SCAN_DEPTH),
            too_deep_at: None,
        }
    }

    /// Skips whitespace; the next byte, if any.
    #[inline(always)]
    pub fn space(&mut self) -> Option<u8> {
        while let Some(&byte) = self.bytes.get(self.at) {
            if !matches!(byte, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(byte);
            }
            self.at += 1;
        }
        None
    }

    /// Skips whitespace and then `byte`, which must come next.
    #[inline(always)]
    fn expect(&mut self, byte: u8) -> Result<(), SyntaxError> {
        if self.space() != Some(byte) {
            return Err(SyntaxError);
        }
        self.at += 1;
        Ok(())
    }

    /// From just past a string's opening quote to just past its closing one: true
    /// when it held an escape. The string is read 64 bytes at a time
    /// ([`string_masks`]): its escapes are found from the block's backslashes, and
    /// checked, one after another without leaving the block, so a tool output with
    /// a `\n` or `\"` every few bytes costs a few instructions per escape, not a
    /// restart of the search; a `\u` escape's digits are checked where they are, in
    /// this block or the next. The last 63 bytes of the text are read by
    /// [`Scan::string_bytewise`].
    #[inline(always)]
    fn string(&mut self) -> Result<bool, SyntaxError> {
        // most strings (keys, names, ids) end within 16 bytes, without an escape
        if let Some(chunk) = self.bytes.get(self.at..self.at + 16) {
            let mut block = [0u8; 16];
            block.copy_from_slice(chunk);
            let found = specials(&block);
            let first = found.trailing_zeros() as usize;
            if block.get(first) == Some(&b'"') {
                self.at += first + 1;
                return Ok(false);
            }
        }
        let mut escaped = false;
        // the block's first byte is escaped (the last block ended in a backslash
        // that starts an escape)
        let mut carry = false;
        while let Some(chunk) = self.bytes.get(self.at..self.at + 64) {
            let mut block = [0u8; 64];
            block.copy_from_slice(chunk);
            let [quotes, backslashes, controls] = string_masks(&block);
            let (escapes, bad, long, carry_out) = escapes_of(&block, backslashes, carry);
            let ends = quotes & !escapes;
            let inside = if ends == 0 {
                u64::MAX
            } else {
                (1u64 << ends.trailing_zeros()) - 1
            };
            if (controls | bad) & inside != 0 {
                return Err(SyntaxError);
            }
            // a `\u`'s four digits are no quote, backslash or control byte, so they
            // change no mask even where they run into the next block
            let mut long = long & inside;
            while long != 0 {
                let digits = self.at + long.trailing_zeros() as usize + 1;
                match self.bytes.get(digits..digits + 4) {
                    Some(hex) if hex.iter().all(u8::is_ascii_hexdigit) => {}
                    _ => return Err(SyntaxError),
                }
                long &= long - 1;
            }
            escaped |= escapes & inside != 0;
            if ends != 0 {
                self.at += ends.trailing_zeros() as usize + 1;
                return Ok(escaped);
            }
            self.at += 64;
            carry = carry_out;
        }
        if carry {
            escaped = true;
            self.escape()?;
        }
        self.string_bytewise(escaped)
    }

    /// Reads on in a string, from a byte that is not escaped, to just past its
    /// closing quote: `escaped`, or true when it meets an escape. Skips runs of plain
    /// bytes 16 at a time ([`specials`]). The end of the text inside the string is a
    /// [`SyntaxError`].
    fn string_bytewise(&mut self, mut escaped: bool) -> Result<bool, SyntaxError> {
        loop {
            while let Some(chunk) = self.bytes.get(self.at..self.at + 16) {
                let mut block = [0u8; 16];
                block.copy_from_slice(chunk);
                let found = specials(&block);
                if found != 0 {
                    self.at += found.trailing_zeros() as usize;
                    break;
                }
                self.at += 16;
            }
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err(SyntaxError);
            };
            self.at += 1;
            match byte {
                b'"' => return Ok(escaped),
                b'\\' => {
                    escaped = true;
                    self.escape()?;
                }
                0..=0x1f => return Err(SyntaxError),
                _ => {}
            }
        }
    }

    /// An escape, from just past its backslash (its kinds: [`ESCAPE_CLASS`]).
    #[inline(always)]
    fn escape(&mut self) -> Result<(), SyntaxError> {
        let class = self
            .bytes
            .get(self.at)
            .map(|&byte| ESCAPE_CLASS[byte as usize]);
        self.at += 1;
        match class {
            Some(ESCAPE_ONE) => Ok(()),
            Some(ESCAPE_U) => match self.bytes.get(self.at..self.at + 4) {
                Some(hex) if hex.iter().all(u8::is_ascii_hexdigit) => {
                    self.at += 4;
                    Ok(())
                }
                _ => Err(SyntaxError),
            },
            _ => Err(SyntaxError),
        }
    }

    /// Skips a run of digits; whether there was at least one.
    fn digits(&mut self) -> bool {
        let start = self.at;
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        self.at > start
    }

    /// A number, from its first byte (`-` or a digit). A leading zero ends the
    /// integer part: a digit after it is then no `,`, `]` or `}` and fails there.
    #[inline(always)]
    fn number(&mut self) -> Result<(), SyntaxError> {
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(SyntaxError),
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            if !self.digits() {
                return Err(SyntaxError);
            }
        }
        if matches!(self.bytes.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.bytes.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !self.digits() {
                return Err(SyntaxError);
            }
        }
        Ok(())
    }

    /// `true`, `false` or `null`, from its first byte.
    #[inline(always)]
    fn word(&mut self, word: &[u8]) -> Result<(), SyntaxError> {
        if self.bytes.get(self.at..self.at + word.len()) != Some(word) {
            return Err(SyntaxError);
        }
        self.at += word.len();
        Ok(())
    }

    /// Skips whitespace and one value inside `depth` arrays and objects.
    pub fn skip(&mut self, depth: usize) -> Result<(), SyntaxError> {
        match self.space() {
            Some(b'"') => {
                self.at += 1;
                self.string().map(drop)
            }
            Some(b'{') => self.object(depth + 1, |scan, _| scan.skip(depth + 1)),
            Some(b'[') => self.array(depth + 1, |scan| scan.skip(depth + 1)),
            Some(b't') => self.word(b"true"),
            Some(b'f') => self.word(b"false"),
            Some(b'n') => self.word(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(SyntaxError),
        }
    }

    /// Skips whitespace and one value inside `depth` arrays and objects; its text.
    #[inline(always)]
    pub fn raw(&mut self, depth: usize) -> Result<Raw<'a>, SyntaxError> {
        let first = self.space();
        let start = self.at;
        let plain = if first == Some(b'"') {
            self.at += 1;
            !self.string()?
        } else {
            self.skip(depth)?;
            false
        };
        let text = self.text.get(start..self.at).ok_or(SyntaxError)?;
        Ok(Raw { text, plain })
    }

    /// An object at nesting level `depth` (1 for a line's own object), from its
    /// `{`: `entry` gets each key (as WTF-8) and must consume its value.
    pub fn object<F>(&mut self, depth: usize, mut entry: F) -> Result<(), SyntaxError>
    where
        F: FnMut(&mut Self, &[u8]) -> Result<(), SyntaxError>,
    {
        if depth > self.limit {
            self.too_deep_at = Some(self.at);
            return Err(SyntaxError);
        }
        self.at += 1;
        if self.space() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.expect(b'"')?;
            let start = self.at;
            let escaped = self.string()?;
            let end = self.at;
            let key = &self.bytes[start..end - 1];
            self.expect(b':')?;
            if escaped {
                // the literal, quotes included, not the space and `:` after it
                let literal = self.text.get(start - 1..end);
                let key = literal.and_then(unescape).ok_or(SyntaxError)?;
                entry(self, &key)?;
            } else {
                entry(self, key)?;
            }
            match self.space() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(SyntaxError),
            }
        }
    }

    /// An array at nesting level `depth`, from its `[`: `element` must consume each
    /// element.
    pub fn array<F>(&mut self, depth: usize, mut element: F) -> Result<(), SyntaxError>
    where
        F: FnMut(&mut Self) -> Result<(), SyntaxError>,
    {
        if depth > self.limit {
            self.too_deep_at = Some(self.at);
            return Err(SyntaxError);
        }
        self.at += 1;
        if self.space() == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            element(self)?;
            match self.space() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(SyntaxError),
            }
        }
    }

    /// A whole line that must be one object: `entry` as in [`Scan::object`].
    pub fn line<F>(text: &'a str, entry: F) -> Result<(), SyntaxError>
    where
        F: FnMut(&mut Self, &[u8]) -> Result<(), SyntaxError>,
    {
        Scan::line_within(text, MAX_SCAN_DEPTH, entry)
    }

    /// [`Scan::line`] that fails past `limit` levels.
    pub fn line_within<F>(text: &'a str, limit: usize, entry: F) -> Result<(), SyntaxError>
    where
        F: FnMut(&mut Self, &[u8]) -> Result<(), SyntaxError>,
    {
        let mut scan = Scan::within(text, limit);
        if scan.space() != Some(b'{') {
            return Err(SyntaxError);
        }
        scan.object(1, entry)?;
        match scan.space() {
            None => Ok(()),
            Some(_) => Err(SyntaxError),
        }
    }
}

/// The index of `key` in `keys`. Most keys of a line are not asked for: comparing
/// lengths and first bytes settles them without a `memcmp` call.
fn key_index(keys: &[&str], key: &[u8]) -> Option<usize> {
    let first = key.first();
    keys.iter().position(|k| {
        let k = k.as_bytes();
        k.len() == key.len() && k.first() == first && k == key
    })
}

/// Parse a line that must be one JSON object, handing the raw value of each key in
/// `keys` to `set` (with the key's index; a repeated key is handed over again, so
/// the last one wins as in Python). Every other value is validated and skipped.
pub fn parse_object<'a, F>(text: &'a str, keys: &[&str], set: F) -> Result<(), SyntaxError>
where
    F: FnMut(usize, Raw<'a>),
{
    parse_object_within(text, MAX_SCAN_DEPTH, keys, set)
}

/// [`parse_object`] that also fails when the text nests arrays and objects deeper
/// than `limit` levels (its object at level 1): one pass where [`nesting_exceeds`]
/// and [`parse_object`] would make two, with the same verdict (a text nested too
/// deep fails either way, wherever its first syntax error is).
pub fn parse_object_within<'a, F>(
    text: &'a str,
    limit: usize,
    keys: &[&str],
    mut set: F,
) -> Result<(), SyntaxError>
where
    F: FnMut(usize, Raw<'a>),
{
    Scan::line_within(text, limit, |scan, key| {
        match key_index(keys, key) {
            Some(index) => set(index, scan.raw(1)?),
            None => scan.skip(1)?,
        }
        Ok(())
    })
}

/// The `type`, `id`, `name` and `tool_use_id` of one object of `message.content`.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct RawBlock<'a> {
    pub kind: Val<'a>,
    pub id: Val<'a>,
    pub name: Val<'a>,
    pub tool_use_id: Val<'a>,
}

/// `message` read in the same pass as its line: the blocks of `message.content` when
/// `message` is an object whose `content` is an array (its objects only; other
/// elements, and other shapes, give no blocks; the last `content` wins), and its
/// `id` (the last one; `Absent` when none or `message` is no object).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FastMessage<'a> {
    pub blocks: Vec<RawBlock<'a>>,
    pub id: Val<'a>,
}

impl<'a> Scan<'a> {
    /// `message.content` at level 3: its objects' block keys.
    fn content(&mut self) -> Result<Vec<RawBlock<'a>>, SyntaxError> {
        let mut blocks = Vec::new();
        if self.space() != Some(b'[') {
            self.skip(2)?;
            return Ok(blocks);
        }
        self.array(3, |scan| {
            if scan.space() != Some(b'{') {
                return scan.skip(3);
            }
            let mut block = RawBlock::default();
            scan.object(4, |scan, key| {
                let slot = match key {
                    b"type" => &mut block.kind,
                    b"id" => &mut block.id,
                    b"name" => &mut block.name,
                    b"tool_use_id" => &mut block.tool_use_id,
                    _ => return scan.skip(4),
                };
                *slot = Val::of(scan.raw(4)?);
                Ok(())
            })?;
            blocks.push(block);
            Ok(())
        })?;
        Ok(blocks)
    }

    /// A top-level `message` value at level 2.
    fn message(&mut self) -> Result<FastMessage<'a>, SyntaxError> {
        let mut message = FastMessage::default();
        if self.space() != Some(b'{') {
            self.skip(1)?;
            return Ok(message);
        }
        self.object(2, |scan, key| {
            if key == b"content" {
                message.blocks = scan.content()?;
                Ok(())
            } else if key == b"id" {
                message.id = Val::of(scan.raw(2)?);
                Ok(())
            } else {
                scan.skip(2)
            }
        })?;
        Ok(message)
    }
}

/// [`parse_object`] that also reads the key `message_key` (if present) as a
/// [`FastMessage`], in the same pass; a line nesting deeper than `limit` levels
/// (at most [`MAX_JSON_DEPTH`]) is a [`SyntaxError`].
pub fn parse_object_fast<'a, F>(
    text: &'a str,
    limit: usize,
    keys: &[&str],
    message_key: &str,
    mut set: F,
) -> Result<Option<FastMessage<'a>>, SyntaxError>
where
    F: FnMut(usize, Raw<'a>),
{
    let mut message = None;
    Scan::line_within(text, limit, |scan, key| {
        if key == message_key.as_bytes() {
            message = Some(scan.message()?);
        } else if let Some(index) = key_index(keys, key) {
            set(index, scan.raw(1)?);
        } else {
            scan.skip(1)?;
        }
        Ok(())
    })?;
    Ok(message)
}

/// What [`parse_object_nested`] hands over: a key of the line's object, the start of
/// the nested object (the value of the nested key, when an object), or a key of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The value of `keys[i]` (for the nested key, after its keys, when an object).
    Outer(usize),
    /// A value of the nested key that is an object begins: the keys it hands over
    /// next are its own (a repeated nested key begins again: the last one wins).
    Opened,
    /// The value of `inner[i]` in the nested object.
    Inner(usize),
}

/// [`parse_object`] that also reads the object that is the value of `keys[nested]`
/// (when it is one), in the same pass: `set` gets [`Field::Opened`] when it begins,
/// then the raw value of each key of `inner` in it ([`Field::Inner`], repeated keys
/// handed over again), then the whole object's raw text as [`Field::Outer`]. A value
/// of another type is handed over as `parse_object` hands it. Every other value is
/// validated and skipped. (A Codex rollout's `payload`: read once, not once for the
/// line and once again for its keys.) [`parse_object_nests`] with two levels: a line
/// nesting deeper than `limit` levels (at most [`MAX_JSON_DEPTH`]) is a [`SyntaxError`].
pub fn parse_object_nested<'a, F>(
    text: &'a str,
    limit: usize,
    keys: &[&str],
    nested: usize,
    inner: &[&str],
    mut set: F,
) -> Result<(), SyntaxError>
where
    F: FnMut(Field, Raw<'a>),
{
    let inner = Nest {
        keys: inner,
        into: None,
    };
    let nest = Nest {
        keys,
        into: Some((nested, &inner)),
    };
    parse_object_nests(text, limit, &nest, |_, field, raw| set(field, raw))
}

/// The keys to hand over at one level of a line's objects, and which of them (by its
/// index in `keys`) to look into, in the same pass, when its value is an object.
#[derive(Debug, Clone, Copy)]
pub struct Nest<'k> {
    pub keys: &'k [&'k str],
    pub into: Option<(usize, &'k Nest<'k>)>,
}

/// [`parse_object_nested`] to any depth: `set` gets the level (0 for the line's
/// object) with each [`Field`]: a key of the line as [`Field::Outer`], a key of a
/// nested object as [`Field::Inner`] at that object's level, [`Field::Opened`] at
/// the level of an object that begins (a repeated key's object begins again: the
/// last one wins), and a looked-into object's whole text after its keys, as its
/// key's field at the level above; a line nesting deeper than `limit` levels (at most
/// [`MAX_JSON_DEPTH`]) is a [`SyntaxError`]. (A Kimi record's `message.payload.function`.)
pub fn parse_object_nests<'a, F>(
    text: &'a str,
    limit: usize,
    nest: &Nest<'_>,
    mut set: F,
) -> Result<(), SyntaxError>
where
    F: FnMut(usize, Field, Raw<'a>),
{
    Scan::line_within(text, limit, |scan, key| {
        scan.nest_entry(key, nest, 0, &mut set)
    })
}

impl<'a> Scan<'a> {
    /// The value of `key` in an object at `level` of a [`Nest`] (nesting depth
    /// `level + 1`), handed to `set` as [`parse_object_nests`] says, or skipped.
    fn nest_entry<F>(
        &mut self,
        key: &[u8],
        nest: &Nest<'_>,
        level: usize,
        set: &mut F,
    ) -> Result<(), SyntaxError>
    where
        F: FnMut(usize, Field, Raw<'a>),
    {
        let Some(index) = key_index(nest.keys, key) else {
            return self.skip(level + 1);
        };
        let field = if level == 0 {
            Field::Outer(index)
        } else {
            Field::Inner(index)
        };
        match nest.into {
            Some((into, inner)) if into == index && self.space() == Some(b'{') => {
                let start = self.at;
                let opened = Raw {
                    text: "{",
                    plain: false,
                };
                set(level + 1, Field::Opened, opened);
                self.object(level + 2, |scan, key| {
                    scan.nest_entry(key, inner, level + 1, set)
                })?;
                let text = self.text.get(start..self.at).ok_or(SyntaxError)?;
                set(level, field, Raw { text, plain: false });
            }
            _ => set(level, field, self.raw(level + 1)?),
        }
        Ok(())
    }
}

/// The objects of a JSON array, from its text: for each element that is an object,
/// [`Field::Opened`] when it begins, then the raw value of each key of `keys` in it
/// ([`Field::Inner`], a repeated key handed over again: the last wins); other
/// elements give nothing. Every value is validated; text that is no array is a
/// [`SyntaxError`]. (A pi message's `content`, looked into only for an assistant's.)
pub fn parse_array_objects<'a, F>(
    text: &'a str,
    keys: &[&str],
    mut set: F,
) -> Result<(), SyntaxError>
where
    F: FnMut(Field, Raw<'a>),
{
    let mut scan = Scan::new(text);
    if scan.space() != Some(b'[') {
        return Err(SyntaxError);
    }
    scan.array(1, |scan| {
        if scan.space() != Some(b'{') {
            return scan.skip(1);
        }
        set(
            Field::Opened,
            Raw {
                text: "{",
                plain: false,
            },
        );
        scan.object(2, |scan, key| match key_index(keys, key) {
            Some(i) => {
                set(Field::Inner(i), scan.raw(2)?);
                Ok(())
            }
            None => scan.skip(2),
        })
    })?;
    match scan.space() {
        None => Ok(()),
        Some(_) => Err(SyntaxError),
    }
}

/// How a scan of JSON text (one value of any type, whitespace around it) ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanEnd {
    /// One valid value, nesting no deeper than the limit.
    Valid,
    /// Text that is no JSON, found before any container opened past the limit.
    Syntax,
    /// A container opened past the limit, at this byte, before any syntax error.
    TooDeep(usize),
}

/// Scans JSON text from the left as Python's `json.loads` reads it within `limit`
/// levels (at most [`MAX_JSON_DEPTH`]): which it meets first, the end of a valid
/// value, a syntax error or a container past `limit` (its `RecursionError`).
pub fn scan_value(text: &str, limit: usize) -> ScanEnd {
    scan_value_at(text, limit, 0)
}

/// [`scan_value`] of a value that `depth` arrays and objects hold (a document's
/// element, read alone): its containers open at levels `depth + 1` and on.
pub fn scan_value_at(text: &str, limit: usize, depth: usize) -> ScanEnd {
    let mut scan = Scan::within(text, limit);
    let valid = scan.space().is_some() && scan.skip(depth).is_ok() && scan.space().is_none();
    match (valid, scan.too_deep_at) {
        (true, _) => ScanEnd::Valid,
        (false, Some(at)) => ScanEnd::TooDeep(at),
        (false, None) => ScanEnd::Syntax,
    }
}

/// How many arrays and objects one JSON text (a line, a document, a JSON string
/// embedded in one) may nest, its own top-level value being level 1: 500 levels
/// are read, a container opening at level 501 makes the text `too_deeply_nested`
/// (the first failure from the left: a syntax error before it makes it
/// `invalid_json`). The Python readers apply the same number
/// (`wavemetrics/readers/limits.py`, `MAX_JSON_DEPTH`), so neither engine's
/// outcome depends on a call stack (docs/formats.md, "Limits and hostile input").
pub const MAX_JSON_DEPTH: usize = 500;

/// Whether a line nests arrays and objects deeper than `limit` (brackets inside
/// strings do not count). Cheap for ordinary lines: only a line with more than
/// `limit` opening brackets at all is scanned.
pub fn nesting_exceeds(line: &[u8], limit: usize) -> bool {
    if memchr::memchr2_iter(b'[', b'{', line).count() <= limit {
        return false;
    }
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &byte in line {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {

    #[test]
    fn an_array_s_objects_hand_over_their_keys_and_other_elements_nothing() {
        let mut seen = Vec::new();
        parse_array_objects(
            r#" [1, {"type": "a", "id": "x", "id": "y"}, "s", {}, {"n": {"id": 2}}] "#,
            &["type", "id"],
            |field, raw| seen.push((field, raw.get())),
        )
        .unwrap();
        let opened = (Field::Opened, "{");
        assert_eq!(
            seen,
            vec![
                opened,
                (Field::Inner(0), "\"a\""),
                (Field::Inner(1), "\"x\""),
                (Field::Inner(1), "\"y\""),
                opened,
                opened,
            ]
        );
        for bad in ["{}", "[1,]", "[1] 2", ""] {
            assert_eq!(
                parse_array_objects(bad, &["id"], |_, _| {}),
                Err(SyntaxError)
            );
        }
    }
    use super::*;

    fn vals(text: &str, keys: &[&str]) -> Result<Vec<Val<'static>>, SyntaxError> {
        let leaked: &'static str = Box::leak(text.to_string().into_boxed_str());
        let mut out = vec![Val::Absent; keys.len()];
        parse_object(leaked, keys, |i, raw| out[i] = Val::of(raw))?;
        Ok(out)
    }

    #[test]
    fn values_by_python_type() {
        let v = vals(
            r#"{"a":"x","b":1,"c":-0,"d":1.5e3,"e":true,"f":null,"g":[1],"h":{"k":2},"z":{"deep":[1,{"q":"r"}]}}"#,
            &["a", "b", "c", "d", "e", "f", "g", "h", "i"],
        )
        .unwrap();
        assert_eq!(v[0], Val::Text("x"));
        assert_eq!(v[1], Val::Num(1.0));
        assert!(matches!(v[2], Val::Num(z) if z == 0.0 && z.is_sign_positive()));
        assert_eq!(v[3], Val::Num(1500.0));
        assert_eq!(v[4], Val::Bool(true));
        assert_eq!(v[5], Val::Null);
        assert_eq!(v[6], Val::Array("[1]"));
        assert_eq!(v[7], Val::Object(r#"{"k":2}"#));
        assert_eq!(v[8], Val::Absent);
    }

    #[test]
    fn lone_surrogates_and_duplicates() {
        let v = vals(
            r#"{"k\udc00":1,"a":"\ud800x","a2":"\u00e9\n","a":"\ud800y","s":"\ud83d\ude00"}"#,
            &["a", "a2", "s"],
        )
        .unwrap();
        assert_eq!(v[0].str_bytes(), Some(&b"\xed\xa0\x80y"[..]));
        assert_eq!(v[0].usable_text(), None);
        assert_eq!(v[1].usable_text(), Some("é\n"));
        assert_eq!(v[2].usable_text(), Some("😀"));
        assert_eq!(Val::Str(Cow::Borrowed(b"")).usable_text(), None);
    }

    #[test]
    fn escapes_decode_to_their_bytes() {
        let cases: [(&str, &[u8]); 12] = [
            (r#""a\"b""#, b"a\"b"),
            (r#""\\\/\b\f\n\r\t""#, b"\\/\x08\x0c\n\r\t"),
            // one, two and three bytes of UTF-8; either case of hex
            (r#""\u0041\u00e9\u20AC""#, b"A\xc3\xa9\xe2\x82\xac"),
            // a pair joins into one code point (U+1F600: four bytes)
            (r#""\ud83d\ude00""#, b"\xf0\x9f\x98\x80"),
            (r#""\udbff\udfff""#, b"\xf4\x8f\xbf\xbf"),
            // lone surrogates are kept as WTF-8
            (r#""\ud800""#, b"\xed\xa0\x80"),
            (r#""\udc00\ud800""#, b"\xed\xb0\x80\xed\xa0\x80"),
            // a high one before another high one: the first alone, the second pairs
            (r#""\ud800\ud800\udc00""#, b"\xed\xa0\x80\xf0\x90\x80\x80"),
            // a high one before a non-surrogate escape, another escape, plain text
            (r#""\ud800\u0041""#, b"\xed\xa0\x80A"),
            (r#""\ud800\n""#, b"\xed\xa0\x80\n"),
            (r#""\ud800x""#, b"\xed\xa0\x80x"),
            (r#""é\u0000z""#, b"\xc3\xa9\x00z"),
        ];
        for (literal, want) in cases {
            assert_eq!(unescape(literal).as_deref(), Some(want), "{literal}");
        }
        // no string literal, or a bad escape: never handed over by the scan
        for bad in [
            r#""\x""#,
            r#""\u12g4""#,
            r#""\u12""#,
            r#""a\""#,
            "x",
            r#""\"#,
        ] {
            assert_eq!(unescape(bad), None, "{bad}");
        }
    }

    #[test]
    fn escaped_keys_and_big_integers() {
        // a key spelled with escapes is the same key ("\u0061" is "a"), as in Python
        let v = vals(
            r#"{"\u0061":1,"b\n":2,"c":1e999,"d":-1e999}"#,
            &["a", "b\n", "c", "d"],
        )
        .unwrap();
        assert_eq!(v[0], Val::Num(1.0));
        assert_eq!(v[1], Val::Num(2.0));
        // a float literal that overflows is Python's inf, not an int too large
        assert_eq!(v[2], Val::Num(f64::INFINITY));
        assert_eq!(v[3], Val::Num(f64::NEG_INFINITY));
        // a 400-digit integer: Python's float(int) raises, the reader's rules see inf
        let big = format!("{{\"n\":{}}}", "9".repeat(400));
        let v = vals(&big, &["n"]).unwrap();
        assert_eq!(v[0], Val::BigInt);
        assert_eq!(v[0].number(), Some(f64::INFINITY));
        let v = vals(&format!("{{\"n\":-{}}}", "9".repeat(400)), &["n"]).unwrap();
        assert_eq!(v[0], Val::BigInt);
    }

    #[test]
    fn a_space_is_no_control_past_the_ascii_pass() {
        // non-ASCII text skips the printable-ASCII pass: its spaces are checked bytewise
        assert!(!has_control("é x".as_bytes()));
        assert!(has_control("é\x1f".as_bytes()));
    }

    #[test]
    fn control_characters_on_bytes() {
        assert!(!has_control(b"toolu_01 abc~"));
        assert!(!has_control(b""));
        assert!(has_control(b"a\x1fb"));
        assert!(has_control(b"\x00"));
        assert!(has_control(b"ab\x7f"));
        assert!(!has_control(b" "));
        // C1: U+0080 and U+009F are controls, U+00A0 and U+00E9 are not
        assert!(has_control("x\u{80}".as_bytes()));
        assert!(has_control("\u{9f}".as_bytes()));
        assert!(!has_control("\u{a0}".as_bytes()));
        assert!(!has_control("é".as_bytes()));
        // a continuation byte 0x82 after another lead byte (U+0142) is no control
        assert!(!has_control("ł".as_bytes()));
        // a lone 0xc2 at the end (not UTF-8, never an id) is no control either
        assert!(!has_control(b"a\xc2"));
        assert_eq!(
            Val::Str(Cow::Borrowed("a\u{85}".as_bytes())).usable_id(),
            None
        );
        assert_eq!(Val::Str(Cow::Borrowed(b"id-1")).usable_id(), Some("id-1"));
        assert!(Val::Str(Cow::Borrowed(b"a\tb")).bad_id());
        assert!(!Val::Str(Cow::Borrowed(b"")).bad_id());
        assert!(!Val::Null.bad_id());
        // a string without escapes is the line's text: the same rules, no UTF-8 check
        assert_eq!(Val::Text("id-1").usable_id(), Some("id-1"));
        assert_eq!(Val::Text("id-1").str_bytes(), Some(&b"id-1"[..]));
        assert_eq!(Val::Text("a\u{85}").usable_id(), None);
        assert!(Val::Text("a\tb").bad_id());
        assert!(!Val::Text("id-1").bad_id());
        assert!(!Val::Text("").bad_id());
        assert_eq!(Val::Text("").usable_text(), None);
        assert_eq!(Val::Text("").str_bytes(), Some(&b""[..]));
    }

    #[test]
    fn numbers_like_python_float() {
        assert_eq!(
            number("123456789012345678901234567890"),
            1.2345678901234568e29
        );
        assert_eq!(number("1e400"), f64::INFINITY);
        assert!(number("-0.0").is_sign_negative());
        assert_eq!(number("9007199254740993"), 9007199254740992.0);
    }

    #[test]
    fn values_of_any_type_scan_to_their_first_failure() {
        let end = |text: &str| scan_value(text, MAX_JSON_DEPTH);
        assert_eq!(end("[1, 2]"), ScanEnd::Valid);
        assert_eq!(end("\"x\""), ScanEnd::Valid);
        assert_eq!(end(" 12 "), ScanEnd::Valid);
        assert_eq!(end("{\"a\":"), ScanEnd::Syntax);
        assert_eq!(end("[1,]"), ScanEnd::Syntax);
        assert_eq!(end("NaN"), ScanEnd::Syntax);
        assert_eq!(end(" "), ScanEnd::Syntax);
        assert_eq!(end("1 2"), ScanEnd::Syntax);
        // the byte of the first container past the limit, unless a syntax error is
        // met before it; a string's brackets are no containers
        assert_eq!(scan_value("[[[[]]]]", 3), ScanEnd::TooDeep(3));
        assert_eq!(scan_value(" {\"a\": [[1]]}", 2), ScanEnd::TooDeep(8));
        assert_eq!(scan_value("[[[]]]", 3), ScanEnd::Valid);
        assert_eq!(scan_value("[1 [[[]]]]", 2), ScanEnd::Syntax);
        assert_eq!(scan_value("[[[[]]]] x", 2), ScanEnd::TooDeep(2));
        assert_eq!(scan_value("[\"[[[[\"]", 1), ScanEnd::Valid);
        assert_eq!(scan_value("[[]]", MAX_JSON_DEPTH + 9), ScanEnd::Valid);
        assert!(vals("{\"a\":1} x", &["a"]).is_err());
        assert!(vals("{\"a\":\"\u{1}\"}", &["a"]).is_err());
        assert!(vals("{\"b\":\"\u{1}\"}", &["a"]).is_err());
    }

    #[test]
    fn a_value_held_by_containers_opens_its_own_deeper() {
        // held by 2 containers: its arrays open at levels 3, 4, ...
        assert_eq!(scan_value_at("[[]]", 4, 2), ScanEnd::Valid);
        assert_eq!(scan_value_at("[[]]", 3, 2), ScanEnd::TooDeep(1));
        assert_eq!(scan_value_at("[[]]", 2, 2), ScanEnd::TooDeep(0));
        assert_eq!(scan_value_at("[[]]", 2, 0), ScanEnd::Valid);
        assert_eq!(scan_value_at(" 7 ", 1, 5), ScanEnd::Valid);
        assert_eq!(scan_value_at("[1,] [[[", 1, 0), ScanEnd::Syntax);
        assert_eq!(scan_value_at("{\"a\": [1 2", 3, 1), ScanEnd::Syntax);
        assert_eq!(scan_value_at("{\"a\": [[", 3, 1), ScanEnd::TooDeep(7));
    }
}

#[cfg(test)]
mod fast_tests {
    use super::*;

    type Blocks = Vec<[Val<'static>; 4]>;

    fn fast(text: &'static str) -> (Vec<Val<'static>>, Option<Blocks>) {
        let mut top = vec![Val::Absent; 2];
        let message = parse_object_fast(
            text,
            MAX_JSON_DEPTH,
            &["type", "uuid"],
            "message",
            |i, raw| top[i] = Val::of(raw),
        )
        .unwrap();
        let blocks = message.map(|m| {
            m.blocks
                .iter()
                .map(|b| {
                    [
                        b.kind.clone(),
                        b.id.clone(),
                        b.name.clone(),
                        b.tool_use_id.clone(),
                    ]
                })
                .collect()
        });
        (top, blocks)
    }

    fn s(text: &'static str) -> Val<'static> {
        Val::Text(text)
    }

    #[test]
    fn message_blocks_in_one_pass() {
        let (top, blocks) = fast(
            r#"{"type":"assistant","message":{"role":"x","content":[{"type":"tool_use","id":"a","name":"Read","input":{"k":[1]}},"text",7,[1],{"type":"tool_result","tool_use_id":"b","content":"ok"}]},"uuid":"u"}"#,
        );
        assert_eq!(top, vec![s("assistant"), s("u")]);
        let blocks = blocks.unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0], [s("tool_use"), s("a"), s("Read"), Val::Absent]);
        assert_eq!(
            blocks[1],
            [s("tool_result"), Val::Absent, Val::Absent, s("b")]
        );
    }

    #[test]
    fn message_id_is_read_beside_the_blocks() {
        // message.id is the batch key of a Claude Code line (docs/formats.md, "Batches"):
        // the value of the key `id`, never of another key of `message`
        fn id(text: &str) -> Option<FastMessage<'_>> {
            parse_object_fast(text, MAX_JSON_DEPTH, &[], "message", |_, _| {}).unwrap()
        }
        let message = id(
            r#"{"message":{"role":"assistant","id":"msg_1","model":"m","content":[],"usage":{"x":1}}}"#,
        )
        .unwrap();
        assert_eq!(message.id, Val::Text("msg_1"));
        assert!(message.blocks.is_empty());
        // no id: Absent, whatever the other keys hold
        let none = id(r#"{"message":{"model":"m","type":"message","content":[]}}"#).unwrap();
        assert_eq!(none.id, Val::Absent);
        // the last id wins, as in Python
        let last = id(r#"{"message":{"id":"a","role":"r","id":"b"}}"#).unwrap();
        assert_eq!(last.id, Val::Text("b"));
    }

    #[test]
    fn other_message_shapes_give_no_blocks() {
        for text in [
            r#"{"message":"text"}"#,
            r#"{"message":[1,{"content":[{"type":"tool_use"}]}]}"#,
            r#"{"message":{"content":"text"}}"#,
            r#"{"message":{"content":{"type":"tool_use"}}}"#,
            r#"{"message":{"content":null}}"#,
            r#"{"message":{"content":true,"x":1}}"#,
            r#"{"message":7}"#,
            r#"{"message":null}"#,
        ] {
            let (_, blocks) = fast(text);
            assert_eq!(blocks.map(|b| b.len()), Some(0), "{text}");
        }
        assert!(fast(r#"{"type":"user"}"#).1.is_none());
        // the last content wins, as in Python
        let (_, blocks) =
            fast(r#"{"message":{"content":[{"type":"a"}],"content":[{"type":"b"},{"type":"c"}]}}"#);
        assert_eq!(blocks.unwrap().len(), 2);
    }

    #[test]
    fn lone_surrogates_pass_the_one_pass_parse() {
        // Python's json accepts a lone surrogate escape anywhere: so does the scan
        let (top, blocks) =
            fast(r#"{"message":{"content":[{"type":"\ud800","x":"\udc00"}]},"uuid":"\ud83d"}"#);
        assert_eq!(top[1].str_bytes(), Some(&b"\xed\xa0\xbd"[..]));
        assert_eq!(
            blocks.unwrap()[0][0].str_bytes(),
            Some(&b"\xed\xa0\x80"[..])
        );
        assert!(
            parse_object_fast(r#"{"a":1} x"#, MAX_JSON_DEPTH, &[], "message", |_, _| {}).is_err()
        );
        assert_eq!(scan_value(r#"  {"a": 1"#, MAX_JSON_DEPTH), ScanEnd::Syntax);
        assert_eq!(scan_value(" [1]", MAX_JSON_DEPTH), ScanEnd::Valid);
    }
}

#[cfg(test)]
mod nested_tests {
    use super::*;

    /// What `parse_object_nested` hands over for `text` (keys `type`, `payload`,
    /// `timestamp`, nested `payload`, inner `type`, `id`), as (field, value) pairs.
    fn fields(text: &str) -> Result<Vec<(Field, Val<'_>)>, SyntaxError> {
        let mut out = Vec::new();
        parse_object_nested(
            text,
            MAX_JSON_DEPTH,
            &["type", "payload", "timestamp"],
            1,
            &["type", "id"],
            |field, raw| out.push((field, Val::of(raw))),
        )?;
        Ok(out)
    }

    #[test]
    fn nests_hand_over_each_level_s_keys_in_one_pass() {
        const C: Nest<'static> = Nest {
            keys: &["n"],
            into: None,
        };
        const B: Nest<'static> = Nest {
            keys: &["x", "c"],
            into: Some((1, &C)),
        };
        const A: Nest<'static> = Nest {
            keys: &["b", "k"],
            into: Some((0, &B)),
        };
        let line = r#"{"k":1,"b":{"x":"X","c":{"n":"N","x":2},"c":3,"z":{"n":4}},"n":5}"#;
        let mut out = Vec::new();
        parse_object_nests(line, MAX_JSON_DEPTH, &A, |level, field, raw| {
            out.push((level, field, Val::of(raw)))
        })
        .unwrap();
        assert_eq!(
            out,
            vec![
                (0, Field::Outer(1), Val::Num(1.0)),
                (1, Field::Opened, Val::Object("{")),
                (1, Field::Inner(0), t("X")),
                (2, Field::Opened, Val::Object("{")),
                (2, Field::Inner(0), t("N")),
                (1, Field::Inner(1), Val::Object(r#"{"n":"N","x":2}"#)),
                (1, Field::Inner(1), Val::Num(3.0)),
                (
                    0,
                    Field::Outer(0),
                    Val::Object(r#"{"x":"X","c":{"n":"N","x":2},"c":3,"z":{"n":4}}"#)
                ),
            ]
        );
        // a lower limit: the line's object, b, c and two arrays are five levels
        let five = r#"{"b":{"c":{"n":[[]]}}}"#;
        assert!(parse_object_nests(five, 5, &A, |_, _, _| ()).is_ok());
        assert_eq!(
            parse_object_nests(five, 4, &A, |_, _, _| ()),
            Err(SyntaxError)
        );
        // a syntax error deep inside is the line's, as for any line
        assert!(
            parse_object_nests(r#"{"b":{"c":{"n":tru}}}"#, MAX_JSON_DEPTH, &A, |_, _, _| ())
                .is_err()
        );
        assert!(
            parse_object_nests(r#"{"b":{"c":{"n":1}}"#, MAX_JSON_DEPTH, &A, |_, _, _| ()).is_err()
        );
    }

    #[test]
    fn nests_read_as_deep_as_any_line() {
        const C: Nest<'static> = Nest {
            keys: &["n"],
            into: None,
        };
        const B: Nest<'static> = Nest {
            keys: &["x", "c"],
            into: Some((1, &C)),
        };
        const A: Nest<'static> = Nest {
            keys: &["b", "k"],
            into: Some((0, &B)),
        };
        // a value nested `depth` levels deep in all, at each place the nests read a
        // value from, skip one, or look into one
        let places: [(&str, &str, usize); 6] = [
            (r#"{"k":"#, "}", 1),
            (r#"{"q":"#, "}", 1),
            (r#"{"b":{"x":"#, "}}", 2),
            (r#"{"b":{"z":"#, "}}", 2),
            (r#"{"b":{"c":{"n":"#, "}}}", 3),
            (r#"{"b":{"c":{"m":"#, "}}}", 3),
        ];
        for (open, close, around) in places {
            for depth in [MAX_SCAN_DEPTH - 1, MAX_SCAN_DEPTH, MAX_SCAN_DEPTH + 1] {
                let inside = depth - around;
                let line = format!("{open}{}{}{close}", "[".repeat(inside), "]".repeat(inside));
                let plain = parse_object(&line, &[], |_, _| ()).is_ok();
                let nests = parse_object_nests(&line, MAX_JSON_DEPTH, &A, |_, _, _| ()).is_ok();
                assert_eq!(plain, depth <= MAX_SCAN_DEPTH, "{open} {depth}");
                assert_eq!(nests, plain, "{open} {depth}");
            }
        }
    }

    #[test]
    fn a_chain_of_nests_reads_as_deep_as_any_line() {
        // a nest for every level a line may reach, each looking into its key "a"
        let mut nest: &'static Nest<'static> = Box::leak(Box::new(Nest {
            keys: &["a"],
            into: None,
        }));
        for _ in 0..MAX_SCAN_DEPTH {
            nest = Box::leak(Box::new(Nest {
                keys: &["a"],
                into: Some((0, nest)),
            }));
        }
        for depth in [MAX_SCAN_DEPTH - 1, MAX_SCAN_DEPTH, MAX_SCAN_DEPTH + 1] {
            let line = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
            let mut deepest = 0;
            let read = parse_object_nests(&line, MAX_JSON_DEPTH, nest, |level, _, _| {
                deepest = deepest.max(level)
            });
            assert_eq!(read.is_ok(), depth <= MAX_SCAN_DEPTH, "{depth}");
            if read.is_ok() {
                assert_eq!(deepest, depth - 1, "{depth}"); // each object its level
            }
        }
    }

    fn t(text: &str) -> Val<'_> {
        Val::Text(text)
    }

    #[test]
    fn the_nested_object_s_keys_come_in_the_same_pass() {
        let line = r#"{"timestamp":"T","type":"event_msg","payload":{"type":"token_count","info":{"type":"x","id":[1]},"id":"i"},"x":[{"payload":{}}]}"#;
        assert_eq!(
            fields(line).unwrap(),
            vec![
                (Field::Outer(2), t("T")),
                (Field::Outer(0), t("event_msg")),
                (Field::Opened, Val::Object("{")),
                (Field::Inner(0), t("token_count")),
                (Field::Inner(1), t("i")),
                (
                    Field::Outer(1),
                    Val::Object(r#"{"type":"token_count","info":{"type":"x","id":[1]},"id":"i"}"#)
                ),
            ]
        );
    }

    #[test]
    fn a_nested_key_of_another_type_or_repeated_is_handed_over_as_it_comes() {
        // not an object: its value, no Opened, nothing inner (the other keys as ever)
        assert_eq!(
            fields(r#"{"payload":[{"type":"a"}],"type":"t"}"#).unwrap(),
            vec![
                (Field::Outer(1), Val::Array(r#"[{"type":"a"}]"#)),
                (Field::Outer(0), t("t")),
            ]
        );
        assert_eq!(
            fields(r#"{"payload": "x"}"#).unwrap(),
            vec![(Field::Outer(1), t("x"))]
        );
        // repeated: each value in turn, an object opened again (the caller keeps the last)
        assert_eq!(
            fields(r#"{"payload":{"id":"a"},"payload":1,"payload":{ }}"#).unwrap(),
            vec![
                (Field::Opened, Val::Object("{")),
                (Field::Inner(1), t("a")),
                (Field::Outer(1), Val::Object(r#"{"id":"a"}"#)),
                (Field::Outer(1), Val::Num(1.0)),
                (Field::Opened, Val::Object("{")),
                (Field::Outer(1), Val::Object("{ }")),
            ]
        );
        // an inner key spelled with an escape is that key; an inner key at the top
        // level, or the nested key inside, is no inner key
        assert_eq!(
            fields(r#"{"id":1,"payload":{"id":2,"payload":{"type":3}}}"#).unwrap(),
            vec![
                (Field::Opened, Val::Object("{")),
                (Field::Inner(1), Val::Num(2.0)),
                (
                    Field::Outer(1),
                    Val::Object(r#"{"id":2,"payload":{"type":3}}"#)
                ),
            ]
        );
    }

    #[test]
    fn the_nested_parse_refuses_what_the_plain_parse_refuses() {
        for bad in [
            r#"{"payload":{"type":"a",}}"#,
            r#"{"payload":{"type":}}"#,
            r#"{"payload":{"type":"a"}"#,
            r#"{"payload":{"x":[1,]}}"#,
            r#"{"payload":{}} x"#,
            "[1]",
        ] {
            assert_eq!(fields(bad), Err(SyntaxError), "{bad}");
            assert_eq!(parse_object(bad, &[], |_, _| {}), Err(SyntaxError), "{bad}");
        }
        // as deep as the plain parse reads (500 levels), inside the nested object too:
        // the line's object, payload and 498 arrays are 500
        let deep = |n: usize| {
            format!(
                "{{\"payload\":{{\"x\":{}{}}}}}",
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        assert!(fields(&deep(498)).is_ok());
        assert_eq!(parse_object(&deep(498), &[], |_, _| {}), Ok(()));
        assert_eq!(fields(&deep(499)), Err(SyntaxError));
        assert_eq!(parse_object(&deep(499), &[], |_, _| {}), Err(SyntaxError));
    }
}

#[cfg(test)]
mod depth_tests {
    use super::*;

    #[test]
    fn the_limit_is_500_levels() {
        assert_eq!(MAX_JSON_DEPTH, 500);
        assert_eq!(MAX_SCAN_DEPTH, 500);
        // the top value is level 1: 500 arrays are read, 501 are past the limit, and
        // a limit asked past the scan's own is the scan's
        let arrays = |n: usize| "[".repeat(n) + &"]".repeat(n);
        assert_eq!(scan_value(&arrays(500), MAX_JSON_DEPTH), ScanEnd::Valid);
        assert_eq!(
            scan_value(&arrays(501), MAX_JSON_DEPTH),
            ScanEnd::TooDeep(500)
        );
        assert_eq!(scan_value(&arrays(501), 600), ScanEnd::TooDeep(500));
        assert!(!nesting_exceeds(arrays(500).as_bytes(), MAX_JSON_DEPTH));
        assert!(nesting_exceeds(arrays(501).as_bytes(), MAX_JSON_DEPTH));
    }

    #[test]
    fn depth_counts_brackets_outside_strings() {
        let deep = |n: usize| format!("{{\"x\":{}{}}}", "[".repeat(n), "]".repeat(n));
        assert!(!nesting_exceeds(deep(499).as_bytes(), MAX_JSON_DEPTH));
        assert!(nesting_exceeds(deep(500).as_bytes(), MAX_JSON_DEPTH));
        // 500 levels at most, with more than 500 brackets in all: scanned, and kept
        let wide = format!(
            "{{\"x\":{}{},\"y\":[[]]}}",
            "[".repeat(499),
            "]".repeat(499)
        );
        assert!(!nesting_exceeds(wide.as_bytes(), MAX_JSON_DEPTH));
        let in_text = format!("{{\"x\":\"{}\"}}", "[".repeat(5000));
        assert!(!nesting_exceeds(in_text.as_bytes(), MAX_JSON_DEPTH));
        let escaped = format!("{{\"x\":\"\\\"{}\"}}", "[".repeat(5000));
        assert!(!nesting_exceeds(escaped.as_bytes(), MAX_JSON_DEPTH));
        let flat = "[]".repeat(5000);
        assert!(!nesting_exceeds(flat.as_bytes(), MAX_JSON_DEPTH));
    }

    #[test]
    fn the_scan_reads_exactly_as_deep_as_the_limit() {
        // the line's object and 499 arrays: 500 levels are read, 501 fail the scan
        // (the readers then find the line too deeply nested)
        let deep = |n: usize| format!("{{\"x\":{}{}}}", "[".repeat(n), "]".repeat(n));
        assert_eq!(parse_object(&deep(499), &[], |_, _| {}), Ok(()));
        assert_eq!(parse_object(&deep(500), &[], |_, _| {}), Err(SyntaxError));
        let blocks = |n: usize| {
            format!(
                "{{\"message\":{{\"content\":[{{\"input\":{}{}}}]}}}}",
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        let fast = |text: &str| {
            parse_object_fast(text, MAX_JSON_DEPTH, &[], "message", |_, _| {}).map(drop)
        };
        // the line's object, message, content and a block are 4 levels: 496 arrays more
        assert_eq!(fast(&blocks(496)), Ok(()));
        assert_eq!(fast(&blocks(497)), Err(SyntaxError));
        // a lower limit: the line's object, message, content, a block and 6 arrays are
        // 10 levels; a limit past the one limit is the one limit
        let within =
            |text: &str, limit| parse_object_fast(text, limit, &[], "message", |_, _| {}).map(drop);
        assert!(within(&blocks(6), 10).is_ok());
        assert_eq!(within(&blocks(7), 10), Err(SyntaxError));
        assert_eq!(within(&deep(499), 11), Err(SyntaxError));
        assert!(within(&blocks(496), MAX_JSON_DEPTH + 5).is_ok());
        assert_eq!(within(&blocks(497), MAX_JSON_DEPTH + 5), Err(SyntaxError));
    }
}

#[cfg(test)]
mod scan_tests {
    use super::*;

    #[test]
    fn a_line_is_one_object_with_nothing_after_it_within_the_limit() {
        let mut keys = Vec::new();
        let whole = Scan::line(r#" {"a": 1, "b": [2]} "#, |scan, key| {
            keys.push(key.to_vec());
            scan.skip(1)
        });
        assert_eq!(whole, Ok(()));
        assert_eq!(keys, [b"a".to_vec(), b"b".to_vec()]);
        let skip = |scan: &mut Scan, _: &[u8]| scan.skip(1);
        assert_eq!(Scan::line(r#"{"a": 1} x"#, skip), Err(SyntaxError));
        assert_eq!(Scan::line("[1]", skip), Err(SyntaxError));
        // the object at level 1, then MAX_JSON_DEPTH arrays: one level past the limit
        let nested = |d: usize| format!("{{\"a\": {}{}}}", "[".repeat(d), "]".repeat(d));
        assert_eq!(Scan::line(&nested(MAX_JSON_DEPTH - 1), skip), Ok(()));
        assert_eq!(Scan::line(&nested(MAX_JSON_DEPTH), skip), Err(SyntaxError));
    }

    #[test]
    fn specials_mark_quotes_backslashes_and_control_bytes() {
        // every byte value at every position, among plain letters
        for byte in 0..=255u8 {
            let special = byte <= 0x1f || byte == 0x22 || byte == 0x5c;
            for at in 0..16 {
                let mut chunk = [b'a'; 16];
                chunk[at] = byte;
                let want = if special { 1u32 << at } else { 0 };
                assert_eq!(specials(&chunk), want, "{byte:#x} at {at}");
                assert_eq!(specials_bytewise(&chunk), want, "{byte:#x} at {at}");
            }
        }
        // several at once: `"` at 1, `\` at 3, 0x1f at 5; 0x20, 0x7f, 0x80, 0xff are not
        let chunk = *b"a\"b\\c\x1fd\x7f\x80\xffxyz \x20!";
        assert_eq!(specials(&chunk), 0b10_1010);
        assert_eq!(specials_bytewise(&chunk), 0b10_1010);
    }

    #[test]
    fn string_masks_mark_quotes_backslashes_and_control_bytes_apart() {
        // every byte value at every position of a block, among plain letters
        for byte in 0..=255u8 {
            let want = [byte == 0x22, byte == 0x5c, byte <= 0x1f];
            for at in 0..64 {
                let mut block = [b'a'; 64];
                block[at] = byte;
                let masks = want.map(|hit| u64::from(hit) << at);
                assert_eq!(string_masks(&block), masks, "{byte:#x} at {at}");
                assert_eq!(string_masks_bytewise(&block), masks, "{byte:#x} at {at}");
            }
        }
        // one of each in every 16-byte chunk: `"` at 0, `\` at 17, 0x00 at 34, 0x1f at 63
        let mut block = [b'z'; 64];
        (block[0], block[17], block[34], block[63]) = (b'"', b'\\', 0, 0x1f);
        let want = [1, 1 << 17, (1 << 34) | (1 << 63)];
        assert_eq!(string_masks(&block), want);
        assert_eq!(string_masks_bytewise(&block), want);
    }

    #[test]
    fn escapes_are_the_bytes_after_backslashes_that_start_one() {
        let masks = |text: &[u8], carry: bool| {
            let mut block = [b'a'; 64];
            block[..text.len()].copy_from_slice(text);
            let backslashes = string_masks_bytewise(&block)[1];
            escapes_of(&block, backslashes, carry)
        };
        // `\n` escapes the n (bit 1); `\\\\` escapes the second backslash only
        assert_eq!(masks(b"\\n", false), (0b10, 0, 0, false));
        assert_eq!(masks(b"\\\\a", false), (0b10, 0, 0, false));
        // three backslashes and a quote: the second and the quote are escaped
        assert_eq!(masks(b"\\\\\\\"", false), (0b1010, 0, 0, false));
        // `\u` is long, `\x` and `\'` bad
        assert_eq!(
            masks(b"\\u0041\\x\\'", false),
            (
                (1 << 1) | (1 << 7) | (1 << 9),
                (1 << 7) | (1 << 9),
                1 << 1,
                false
            )
        );
        // the first byte escaped by the block before: a backslash there starts nothing
        assert_eq!(masks(b"\\\\t", true), (0b101, 0, 0, false));
        assert_eq!(masks(b"q", true), (1, 1, 0, false));
        // a backslash as the last byte escapes the next block's first
        let mut end = [b'a'; 64];
        end[63] = b'\\';
        assert_eq!(masks(&end, false), (0, 0, 0, true));
        // ... unless it is escaped itself
        end[62] = b'\\';
        assert_eq!(masks(&end, false), (1 << 63, 0, 0, false));
    }

    #[test]
    fn keys_are_found_by_their_whole_bytes() {
        let keys = ["type", "uuid", "tool_use_id", "t"];
        assert_eq!(key_index(&keys, b"type"), Some(0));
        assert_eq!(key_index(&keys, b"uuid"), Some(1));
        assert_eq!(key_index(&keys, b"tool_use_id"), Some(2));
        assert_eq!(key_index(&keys, b"t"), Some(3));
        assert_eq!(key_index(&keys, b"typo"), None);
        assert_eq!(key_index(&keys, b"types"), None);
        assert_eq!(key_index(&keys, b"ty"), None);
        assert_eq!(key_index(&keys, b"xuid"), None);
        assert_eq!(key_index(&keys, b""), None);
        assert_eq!(key_index(&["", "a"], b""), Some(0));
    }

    #[test]
    fn long_strings_are_scanned_past_whole_chunks() {
        // a string of 40 plain bytes then an escape, a control byte 20 bytes in
        let text = format!(
            "{{\"a\":\"{}\\n{}\",\"b\":2}}",
            "x".repeat(40),
            "y".repeat(17)
        );
        let mut got = Vec::new();
        parse_object(&text, &["a", "b"], |i, raw| got.push((i, Val::of(raw)))).unwrap();
        let want = format!("{}\n{}", "x".repeat(40), "y".repeat(17));
        assert_eq!(got[0], (0, Val::Str(Cow::Owned(want.into_bytes()))));
        assert_eq!(got[1], (1, Val::Num(2.0)));
        let bad = format!("{{\"a\":\"{}\u{1}{}\"}}", "x".repeat(20), "y".repeat(20));
        assert_eq!(parse_object(&bad, &[], |_, _| {}), Err(SyntaxError));
        let open = format!("{{\"a\":\"{}", "x".repeat(40));
        assert_eq!(parse_object(&open, &[], |_, _| {}), Err(SyntaxError));
    }

    #[test]
    fn plain_strings_are_borrowed_and_escaped_ones_decoded() {
        let mut got = Vec::new();
        parse_object(r#"{"a":"x y","b":"x\u0020y"}"#, &["a", "b"], |_, raw| {
            got.push(Val::of(raw))
        })
        .unwrap();
        // no copy for a string without escapes: its bytes are the line's
        assert!(matches!(&got[0], Val::Text("x y")));
        assert!(matches!(&got[1], Val::Str(Cow::Owned(v)) if v == b"x y"));
    }

    #[test]
    fn raw_values_keep_their_text_and_plainness() {
        let mut got = Vec::new();
        parse_object(
            r#"{"a" :  "x" , "b":"\"" ,"c": [1, {"d":2}] ,"e":-1.5e3}"#,
            &["a", "b", "c", "e"],
            |_, raw| got.push(raw),
        )
        .unwrap();
        assert_eq!(
            got[0],
            Raw {
                text: "\"x\"",
                plain: true
            }
        );
        assert_eq!(
            got[1],
            Raw {
                text: r#""\"""#,
                plain: false
            }
        );
        assert_eq!(got[2].get(), r#"[1, {"d":2}]"#);
        assert!(!got[2].plain);
        assert_eq!(
            got[3],
            Raw {
                text: "-1.5e3",
                plain: false
            }
        );
    }
}

#[cfg(test)]
mod value_tests {
    use super::*;

    #[test]
    fn only_numbers_have_a_number() {
        assert_eq!(Val::Num(-2.5).number(), Some(-2.5));
        assert_eq!(Val::BigInt.number(), Some(f64::INFINITY));
        assert_eq!(Val::Bool(true).number(), None);
        assert_eq!(Val::Str(Cow::Borrowed(b"1")).number(), None);
        assert_eq!(Val::Null.number(), None);
        assert_eq!(Val::Absent.number(), None);
    }
}
