//! The serde_json reader that [`crate::json`]'s scanner replaced, kept as the
//! oracle of a differential test: on every generated and hand-written line the
//! scanner must accept and reject the same lines and hand over the same values.
//! (Test code only; `old_*` is the code as it was, `Val::of` on a `RawValue`
//! included.)
//!
//! One difference is deliberate: serde_json reads the keys of the objects it
//! visits as bytes, which lets a raw control character through (`{"a\u{1}":1}`),
//! where Python's `json` (strict) fails the line; the scanner fails it too. The
//! oracle therefore also asks `serde_json::from_str::<IgnoredAny>`, which checks
//! every key as a string.

use crate::json::{nesting_exceeds, number, parse_object, parse_object_fast, Val, MAX_JSON_DEPTH};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// Bytes of a string as serde_json unescapes them (the oracle of `unescape`).
struct WtfBytes;

impl<'de> Visitor<'de> for WtfBytes {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    // serde_json's `deserialize_bytes` of a string hands over its unescaped
    // bytes by `visit_borrowed_bytes` (which forwards here) or `visit_bytes`,
    // never an owned buffer
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }
}

/// The old `Val::of`.
fn old_val(raw: &RawValue) -> Val<'_> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => {
            let inner = &text[1..text.len() - 1];
            if !inner.contains('\\') {
                return Val::Text(inner);
            }
            let mut de = serde_json::Deserializer::from_str(text);
            match de.deserialize_bytes(WtfBytes) {
                Ok(bytes) => Val::Str(Cow::Owned(bytes)),
                Err(_) => Val::Null,
            }
        }
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

/// A key as WTF-8 bytes: a key with a lone surrogate escape is valid JSON for Python.
struct KeyBytes;

impl<'de> de::DeserializeSeed<'de> for KeyBytes {
    type Value = Cow<'de, [u8]>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_bytes(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Cow<'de, [u8]>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_vec()))
    }
}

/// Visit an object's entries, handing each key and raw value to `set`; the caller
/// decides which keys it keeps. Unknown keys are skipped unbuilt.
fn old_parse_object<'a, F>(
    text: &'a str,
    keys: &[&str],
    mut set: F,
) -> Result<(), serde_json::Error>
where
    F: FnMut(usize, &'a RawValue),
{
    struct ObjectVisitor<'k, F> {
        keys: &'k [&'k str],
        set: F,
    }
    impl<'de, 'k, F: FnMut(usize, &'de RawValue)> Visitor<'de> for ObjectVisitor<'k, F> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<M: MapAccess<'de>>(mut self, mut map: M) -> Result<(), M::Error> {
            while let Some(key) = map.next_key_seed(KeyBytes)? {
                match self.keys.iter().position(|k| k.as_bytes() == &*key) {
                    Some(index) => {
                        let raw: &'de RawValue = map.next_value()?;
                        (self.set)(index, raw);
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_map(ObjectVisitor {
        keys,
        set: &mut set,
    })?;
    de.end()
}

/// Visit an array's elements as raw values.
fn old_parse_array<'a, F>(text: &'a str, mut each: F) -> Result<(), serde_json::Error>
where
    F: FnMut(&'a RawValue),
{
    struct ArrayVisitor<F>(F);
    impl<'de, F: FnMut(&'de RawValue)> Visitor<'de> for ArrayVisitor<F> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON array")
        }

        fn visit_seq<S: SeqAccess<'de>>(mut self, mut seq: S) -> Result<(), S::Error> {
            while let Some(raw) = seq.next_element::<&'de RawValue>()? {
                (self.0)(raw);
            }
            Ok(())
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_seq(ArrayVisitor(&mut each))?;
    de.end()
}

/// The raw `type`, `id`, `name` and `tool_use_id` of one object of `message.content`.
#[derive(Debug, Default, Clone)]
struct RawBlock<'a> {
    kind: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    name: Option<&'a RawValue>,
    tool_use_id: Option<&'a RawValue>,
}

/// `message` read in the same pass as its line: the blocks of `message.content` when
/// `message` is an object whose `content` is an array (objects only; other elements
/// and other shapes give no blocks). A string holding a lone surrogate escape fails
/// this pass (serde_json checks strings it visits); the caller then reads the line
/// again through [`Val`]s, which keep such strings.
#[derive(Debug, Default, Clone)]
struct FastMessage<'a> {
    blocks: Vec<RawBlock<'a>>,
}

struct Other;

impl<'de> de::Deserialize<'de> for Other {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_ignored_any(IgnoredAny)
            .map(|_| Other)
    }
}

macro_rules! not_this_shape {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = Option<RawBlock<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content block")
    }

    not_this_shape!();

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<Other>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut block = RawBlock::default();
        while let Some(key) = map.next_key_seed(KeyBytes)? {
            match &*key {
                b"type" => block.kind = Some(map.next_value()?),
                b"id" => block.id = Some(map.next_value()?),
                b"name" => block.name = Some(map.next_value()?),
                b"tool_use_id" => block.tool_use_id = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(block))
    }
}

struct BlockSeed;

impl<'de> de::DeserializeSeed<'de> for BlockSeed {
    type Value = Option<RawBlock<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(BlockVisitor)
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Vec<RawBlock<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("message content")
    }

    not_this_shape!();

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        let mut blocks = Vec::new();
        while let Some(block) = seq.next_element_seed(BlockSeed)? {
            blocks.extend(block);
        }
        Ok(blocks)
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Vec::new())
    }
}

struct ContentSeed;

impl<'de> de::DeserializeSeed<'de> for ContentSeed {
    type Value = Vec<RawBlock<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(ContentVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = FastMessage<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a message")
    }

    not_this_shape!();

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<Other>()?.is_some() {}
        Ok(FastMessage::default())
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut message = FastMessage::default();
        while let Some(key) = map.next_key_seed(KeyBytes)? {
            if &*key == b"content" {
                // a repeated key: the last one wins, as in Python
                message.blocks = map.next_value_seed(ContentSeed)?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(message)
    }
}

/// Parse a top-level object in one pass: the keys in `keys` as raw values, and the
/// key `message_key` (if any) as a [`FastMessage`]. Unknown keys are skipped unbuilt.
fn old_parse_object_fast<'a, F>(
    text: &'a str,
    keys: &[&str],
    message_key: &str,
    mut set: F,
) -> Result<Option<FastMessage<'a>>, serde_json::Error>
where
    F: FnMut(usize, &'a RawValue),
{
    struct TopVisitor<'k, F> {
        keys: &'k [&'k str],
        message_key: &'k str,
        set: F,
    }
    impl<'de, F: FnMut(usize, &'de RawValue)> Visitor<'de> for TopVisitor<'_, F> {
        type Value = Option<FastMessage<'de>>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<M: MapAccess<'de>>(mut self, mut map: M) -> Result<Self::Value, M::Error> {
            let mut message = None;
            while let Some(key) = map.next_key_seed(KeyBytes)? {
                if self.message_key.as_bytes() == &*key {
                    message = Some(map.next_value_seed(MessageSeed)?);
                } else if let Some(index) = self.keys.iter().position(|k| k.as_bytes() == &*key) {
                    let raw: &'de RawValue = map.next_value()?;
                    (self.set)(index, raw);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(message)
        }
    }
    struct MessageSeed;
    impl<'de> de::DeserializeSeed<'de> for MessageSeed {
        type Value = FastMessage<'de>;

        fn deserialize<D: Deserializer<'de>>(
            self,
            deserializer: D,
        ) -> Result<Self::Value, D::Error> {
            deserializer.deserialize_any(MessageVisitor)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let message = de.deserialize_map(TopVisitor {
        keys,
        message_key,
        set: &mut set,
    })?;
    de.end()?;
    Ok(message)
}

type Block4<'a> = [Val<'a>; 4];
type ClaudeLine<'a> = ([Val<'a>; 10], Vec<Block4<'a>>);

/// The top-level keys the Claude reader reads (`readers/claude_code.rs` `CLAUDE_KEYS` but `message`).
const TOP: [&str; 10] = [
    "type",
    "subtype",
    "uuid",
    "parentUuid",
    "isSidechain",
    "agentId",
    "sessionId",
    "timestamp",
    "durationMs",
    "forkedFrom",
];
const BLOCK: [&str; 4] = ["type", "id", "name", "tool_use_id"];

/// Python's `json` checks every key as a string (see the module's note).
fn strict(text: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(text).is_ok()
}

fn old_block<'a>(raw: &RawBlock<'a>) -> Block4<'a> {
    let v = |r: Option<&'a RawValue>| r.map_or(Val::Absent, old_val);
    [v(raw.kind), v(raw.id), v(raw.name), v(raw.tool_use_id)]
}

/// The old `readers/claude_code.rs` `all_blocks`.
fn old_all_blocks<'a>(message: &Val<'a>) -> Result<Vec<Block4<'a>>, serde_json::Error> {
    let Val::Object(text) = message else {
        return Ok(Vec::new());
    };
    let mut content = Val::Absent;
    old_parse_object(text, &["content"], |_, raw| content = old_val(raw))?;
    let Val::Array(items) = content else {
        return Ok(Vec::new());
    };
    let mut objects = Vec::new();
    old_parse_array(items, |raw| {
        if let Val::Object(object) = old_val(raw) {
            objects.push(object);
        }
    })?;
    let mut blocks = Vec::new();
    for object in objects {
        let mut block: Block4 = Default::default();
        old_parse_object(object, &BLOCK, |i, raw| block[i] = old_val(raw))?;
        blocks.push(block);
    }
    Ok(blocks)
}

/// The old `readers/claude_code.rs` `parse_claude_line`: the one-pass parse, else the slow path.
fn old_claude(text: &str) -> Option<ClaudeLine<'_>> {
    if !strict(text) {
        return None;
    }
    let mut v: [Val; 10] = Default::default();
    if let Ok(message) = old_parse_object_fast(text, &TOP, "message", |i, raw| v[i] = old_val(raw))
    {
        let blocks = message.map_or_else(Vec::new, |m| m.blocks.iter().map(old_block).collect());
        return Some((v, blocks));
    }
    let mut v: [Val; 11] = Default::default();
    let mut keys = TOP.to_vec();
    keys.push("message");
    old_parse_object(text, &keys, |i, raw| v[i] = old_val(raw)).ok()?;
    let [a, b, c, d, e, f, g, h, i, j, message] = v;
    let blocks = old_all_blocks(&message).ok()?;
    Some(([a, b, c, d, e, f, g, h, i, j], blocks))
}

fn new_claude<'a>(text: &'a str) -> Option<ClaudeLine<'a>> {
    let mut v: [Val; 10] = Default::default();
    let message = parse_object_fast(text, MAX_JSON_DEPTH, &TOP, "message", |i, raw| {
        v[i] = Val::of(raw)
    })
    .ok()?;
    let blocks = message.map_or_else(Vec::new, |m| {
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
    Some((v, blocks))
}

/// Keys as the `events` reader and detection ask for them (a repeated one, an empty one).
const SOME_KEYS: [&str; 7] = ["type", "uuid", "message", "", "k\u{1}", "é", "a\"b"];

fn old_keys(text: &str) -> Option<Vec<Val<'_>>> {
    let mut out = vec![Val::Absent; SOME_KEYS.len()];
    old_parse_object(text, &SOME_KEYS, |i, raw| out[i] = old_val(raw)).ok()?;
    strict(text).then_some(out)
}

fn new_keys(text: &str) -> Option<Vec<Val<'_>>> {
    let mut out = vec![Val::Absent; SOME_KEYS.len()];
    parse_object(text, &SOME_KEYS, |i, raw| out[i] = Val::of(raw)).ok()?;
    Some(out)
}

/// Both readers of one line agree (lines past the depth limit never reach a parse).
/// Whether the line was accepted.
fn same(text: &str) -> bool {
    if nesting_exceeds(text.as_bytes(), MAX_JSON_DEPTH) {
        assert!(new_claude(text).is_none(), "{text:?}");
        return false;
    }
    let new = new_claude(text);
    assert_eq!(new, old_claude(text), "{text:?}");
    assert_eq!(new_keys(text), old_keys(text), "{text:?}");
    new.is_some()
}

/// xorshift64*: a fixed, seeded stream (the test is the same on every run).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'t>(&mut self, items: &[&'t str]) -> &'t str {
        items[self.below(items.len())]
    }
}

const KEYS: &[&str] = &[
    "type",
    "subtype",
    "uuid",
    "parentUuid",
    "isSidechain",
    "agentId",
    "sessionId",
    "timestamp",
    "durationMs",
    "forkedFrom",
    "message",
    "content",
    "id",
    "name",
    "tool_use_id",
    "input",
    "role",
    "\\u0074ype",
    "messag\\u0065",
    "t\\u0079pe",
    "x",
    "",
    "k\\ud800",
    "\\\"q",
    "é",
    "a\\\"b",
    "k\\u0001",
];
const STRINGS: &[&str] = &[
    "",
    "assistant",
    "user",
    "tool_use",
    "tool_result",
    "a b",
    "\\n\\t\\\"\\\\\\/\\b\\f\\r",
    "\\u00e9",
    "é",
    "😀",
    "\\ud83d\\ude00",
    "\\uD83D\\uDE00",
    "\\ud800",
    "\\udc00",
    "\\ud800\\ud800",
    "\\ud800\\n",
    "\\ud800\\u0041",
    "\\ud800x",
    "\\udbff\\udfff",
    "2026-01-01T00:00:00.000Z",
    "toolu_01",
    "a\\u0000b",
    "\\u001f",
    "\u{7f}",
    "\u{85}",
    "[{\\\"",
    "}]",
    "0123456789abcdef0123456789",
    "\u{2028}",
];
/// String bodies Python's `json` refuses (bad escapes, raw control characters).
const BAD_STRINGS: &[&str] = &[
    "\\x",
    "\\u12",
    "\\u12g4",
    "\\U0041",
    "\u{1}",
    "\t",
    "\n",
    "\u{1f}",
    "\\",
    "\\'",
    "\\u",
    "\\ud800\\",
    "\\ud800\\u",
    "\\ud800\\uzzzz",
    "\\0",
];
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "1.5",
    "1e400",
    "-1e400",
    "1E+2",
    "1e-2",
    "0.0",
    "-0.0",
    "2.5E-3",
    "123456789012345678901234567890",
    "9007199254740993",
    "1.7976931348623157e308",
    "4e-324",
    "0E0",
    "0e-0",
];
/// Number-like text Python's `json` refuses.
const BAD_NUMBERS: &[&str] = &[
    "01",
    "-",
    "1.",
    "1e",
    ".5",
    "+1",
    "1.e3",
    "-01",
    "00",
    "1e+",
    "0x1",
    "Infinity",
    "NaN",
    "-Infinity",
    "1_0",
    "1.5.2",
    "--1",
    "0e",
];
const WORDS: &[&str] = &["true", "false", "null"];
const BAD_WORDS: &[&str] = &["tru", "nul", "True", "None", "nulll", "fals", "t", "n", "f"];
const SPACE: &[&str] = &["", "", "", "", " ", " ", "\t", "\n", "\r", "  \r\n"];
/// Whitespace that is not JSON whitespace (Python's `json` refuses it between tokens).
const NOT_SPACE: &[&str] = &["\u{b}", "\u{c}", "\u{a0}", "\u{2028}", "\u{feff}", "\u{0}"];

struct Gen {
    rng: Rng,
    out: String,
}

impl Gen {
    fn space(&mut self) {
        let s = if self.rng.below(1000) < 3 {
            self.rng.pick(NOT_SPACE)
        } else {
            self.rng.pick(SPACE)
        };
        self.out.push_str(s);
    }
    fn string(&mut self, pool: &[&str]) {
        self.out.push('"');
        for _ in 0..self.rng.below(3) {
            let piece = if self.rng.below(1000) < 6 {
                self.rng.pick(BAD_STRINGS)
            } else {
                self.rng.pick(pool)
            };
            self.out.push_str(piece);
        }
        self.out.push('"');
    }
    fn value(&mut self, depth: usize) {
        self.space();
        let roll = self.rng.below(if depth > 6 { 60 } else { 100 });
        match roll {
            0..=24 => self.string(STRINGS),
            25..=39 => {
                let pool = if self.rng.chance(5) {
                    BAD_NUMBERS
                } else {
                    NUMBERS
                };
                let n = self.rng.pick(pool);
                self.out.push_str(n);
                if self.rng.below(1000) < 5 {
                    // a huge integer (Python's float() of it raises)
                    self.out.push_str(&"9".repeat(400));
                }
            }
            40..=49 => {
                let pool = if self.rng.chance(5) { BAD_WORDS } else { WORDS };
                let w = self.rng.pick(pool);
                self.out.push_str(w);
            }
            50..=59 => self.message(depth),
            60..=79 => self.array(depth),
            _ => self.object(depth),
        }
        self.space();
    }
    fn array(&mut self, depth: usize) {
        self.out.push('[');
        let n = self.rng.below(4);
        for i in 0..n {
            if i > 0 || self.rng.below(1000) < 3 {
                self.out.push(',');
            }
            self.value(depth + 1);
        }
        if n == 0 {
            self.space();
        }
        if self.rng.below(1000) < 5 {
            self.out.push(',');
        }
        self.out.push(']');
    }
    fn object(&mut self, depth: usize) {
        self.out.push('{');
        let n = self.rng.below(if depth == 0 { 9 } else { 4 });
        for i in 0..n {
            if i > 0 || self.rng.below(1000) < 3 {
                self.out.push(',');
            }
            self.space();
            if self.rng.below(1000) < 3 {
                self.value(depth + 1); // a key that is not a string
            } else {
                self.string(KEYS);
            }
            self.space();
            if self.rng.below(1000) >= 3 {
                self.out.push(':');
            }
            self.value(depth + 1);
        }
        if n == 0 {
            self.space();
        }
        if self.rng.below(1000) < 5 {
            self.out.push(',');
        }
        self.out.push('}');
    }
    /// A `message`-shaped object: a role and content blocks.
    fn message(&mut self, depth: usize) {
        self.out.push_str("{\"role\":");
        self.string(STRINGS);
        self.out.push_str(",\"content\":");
        if self.rng.chance(20) {
            self.value(depth + 1);
        } else {
            self.out.push('[');
            for i in 0..self.rng.below(4) {
                if i > 0 {
                    self.out.push(',');
                }
                if self.rng.chance(20) {
                    self.value(depth + 2);
                    continue;
                }
                self.out.push('{');
                let mut first = true;
                for key in ["type", "id", "name", "tool_use_id", "input"] {
                    if self.rng.chance(30) {
                        continue;
                    }
                    if !first {
                        self.out.push(',');
                    }
                    first = false;
                    self.out.push_str(&format!("\"{key}\":"));
                    self.value(depth + 3);
                }
                self.out.push('}');
            }
            self.out.push(']');
        }
        if self.rng.chance(10) {
            self.out.push_str(",\"content\":");
            self.value(depth + 1);
        }
        self.out.push('}');
    }
    /// A line: an object whose keys are mostly the ones readers read, with a
    /// `message` most of the time; then, sometimes, damage.
    fn line(&mut self) -> String {
        self.out.clear();
        self.space();
        self.out.push('{');
        let n = self.rng.below(8);
        for i in 0..n {
            if i > 0 {
                self.out.push(',');
            }
            self.string(KEYS);
            self.out.push(':');
            self.value(1);
        }
        if self.rng.chance(70) {
            if n > 0 {
                self.out.push(',');
            }
            self.out.push_str("\"message\":");
            self.space();
            self.message(1);
        }
        self.out.push('}');
        self.space();
        let mut line = std::mem::take(&mut self.out);
        if self.rng.chance(30) {
            for _ in 0..=self.rng.below(3) {
                line = self.damage(&line);
            }
        }
        line
    }
    /// One random edit, on characters (the line stays UTF-8, as the readers hand it over).
    fn damage(&mut self, line: &str) -> String {
        const INSERT: &[&str] = &[
            "\"", "\\", "{", "}", "[", "]", ",", ":", " ", "\u{1}", "u", "0", "e", "-", ".", "é",
            "\u{a0}", "\\u", "\"\"", "null", "\\ud800",
        ];
        let chars: Vec<char> = line.chars().collect();
        if chars.is_empty() {
            return String::new();
        }
        let at = self.rng.below(chars.len());
        let (head, tail): (String, String) =
            (chars[..at].iter().collect(), chars[at..].iter().collect());
        match self.rng.below(4) {
            0 => head, // truncated
            1 => format!(
                "{head}{}",
                &tail[tail.chars().next().map_or(0, char::len_utf8)..]
            ),
            2 => format!("{head}{}{tail}", self.rng.pick(INSERT)),
            _ => {
                let rest = &tail[tail.chars().next().map_or(0, char::len_utf8)..];
                format!("{head}{}{rest}", self.rng.pick(INSERT))
            }
        }
    }
}

#[test]
fn generated_lines_read_the_same_as_serde_json() {
    let mut gen = Gen {
        rng: Rng(0x9E37_79B9_7F4A_7C15),
        out: String::new(),
    };
    let (mut accepted, total) = (0, 60_000);
    for _ in 0..total {
        let line = gen.line();
        accepted += usize::from(same(&line));
    }
    // the generator must reach both sides of the grammar, not just one
    assert!(
        accepted > total / 5 && accepted < total * 4 / 5,
        "{accepted} of {total}"
    );
}

#[test]
fn escapes_decode_as_serde_json_decodes_them() {
    // every string body, and every pair and triple of them, as one literal
    let mut checked = 0;
    for a in STRINGS {
        for b in STRINGS {
            for c in ["", "\\ud800", "x", "\\\"", "\\udfff"] {
                let literal = format!("\"{a}{b}{c}\"");
                let mut de = serde_json::Deserializer::from_str(&literal);
                let want = de.deserialize_bytes(WtfBytes).ok();
                assert!(want.is_some(), "{literal}");
                if literal.contains('\\') {
                    let mut got = Val::Absent;
                    let line = format!("{{\"x\":{literal}}}");
                    parse_object(&line, &["x"], |_, raw| got = Val::of(raw)).unwrap();
                    assert_eq!(got.str_bytes(), want.as_deref(), "{literal}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 2000, "{checked}");
}

#[test]
fn hand_written_lines_read_the_same_as_serde_json() {
    let deep = |n: usize| format!("{{\"x\":{}{}}}", "[".repeat(n - 1), "]".repeat(n - 1));
    let deep_objects = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
    let huge = "9".repeat(5000);
    let mut lines: Vec<String> = [
        "", " ", "{", "}", "{}", " {} ", "{} {}", "{}x", "[]", "\"x\"", "1", "null",
        "{\"type\":\"user\"}", "{\"type\":\"user\",}", "{,\"type\":\"user\"}", "{\"type\" \"user\"}",
        "{\"type\":}", "{\"type\"}", "{type:1}", "{'type':1}", "{\"type\":\"a\"\"b\"}",
        "{\"type\":\"\\ud800\"}", "{\"type\":\"\\udc00\\ud800\"}", "{\"type\":\"\\ud83d\\ude00\"}",
        "{\"type\":\"\\ud800\\u0041\"}", "{\"type\":\"\\ud800\\n\"}", "{\"type\":\"\\ud800\\x\"}",
        "{\"type\":\"\\u00\"}", "{\"type\":\"\\u00e9\"}", "{\"type\":\"\\q\"}", "{\"type\":\"\u{1}\"}",
        "{\"x\":\"\u{1}\"}", "{\"x\u{1}\":1}", "{\"message\":{\"x\u{1f}\":1}}",
        "{\"message\":{\"content\":[{\"t\u{0}\":1}]}}", "{\"x\":\"\u{7f}\u{80}\"}",
        "{\"type\":1e400,\"uuid\":-1e400,\"sessionId\":-0,\"durationMs\":-0.0}",
        "{\"durationMs\":01}", "{\"durationMs\":1.}", "{\"durationMs\":.1}", "{\"durationMs\":+1}",
        "{\"durationMs\":1e}", "{\"durationMs\":1e+}", "{\"durationMs\":-}", "{\"durationMs\":0x10}",
        "{\"durationMs\":NaN}", "{\"durationMs\":Infinity}", "{\"durationMs\":-Infinity}",
        "{\"durationMs\":1,\"durationMs\":2}", "{\"\\u0074ype\":\"a\",\"type\":\"b\",\"t\\u0079pe\":\"c\"}",
        "{\"isSidechain\":true,\"x\":[true,false,null],\"y\":tru}", "{\"y\":nul}", "{\"y\":nulls}",
        "\u{feff}{}", "{\u{a0}}", "{\u{b}\"a\":1}", "{\"a\":1\u{c}}", "{\"a\":1}\u{2028}",
        "\t{\"a\" :\r\n1 }\r\n", "{\"message\":\"text\"}", "{\"message\":[{\"content\":[]}]}",
        "{\"message\":{\"content\":\"x\",\"content\":[{\"type\":\"a\"}]}}",
        "{\"message\":{\"content\":[{\"type\":\"a\"}],\"content\":null}}",
        "{\"message\":{\"content\":[{\"type\":\"a\"},7,\"s\",[{\"type\":\"b\"}],{\"id\":\"\\ud800\"}]}}",
        "{\"message\":{\"content\":[{\"type\":\"a\",\"type\":\"b\",\"input\":{\"q\":[1,{\"r\":2}]}}]}}",
        "{\"message\":{\"content\":[{\"type\":\"a\"},]}}", "{\"message\":{\"content\":[,]}}",
        "{\"message\":{\"content\":[{\"type\":\"a\"}]},\"message\":3}",
        "{\"message\":{\"content\":[{\"type\":1e400,\"id\":99999999999999999999}]}}",
        "{\"message\":{\"\\u0063ontent\":[{\"\\u0074ype\":\"a\"}]}}",
        "{\"a\":[1,2,]}", "{\"a\":[,1]}", "{\"a\":[1 2]}", "{\"a\":{\"b\":1,}}", "{\"a\":{1:2}}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    lines.push(format!("{{\"durationMs\":{huge}}}"));
    lines.push(format!("{{\"durationMs\":-{huge}.5e3}}"));
    for n in [498, 499, 500, 501, 502] {
        lines.push(deep(n));
        lines.push(deep_objects(n));
        lines.push(format!("{{\"message\":{{\"content\":[{}]}}}}", deep(n - 3)));
    }
    let mut accepted = 0;
    for line in &lines {
        accepted += usize::from(same(line));
    }
    assert!(accepted > 20, "{accepted}");
    // at the depth limit (500 levels) and one past it (the readers never parse the latter)
    assert!(new_claude(&deep(500)).is_some());
    assert!(parse_object(&deep(501), &[], |_, _| {}).is_err());
    assert!(parse_object(&deep_objects(500), &[], |_, _| {}).is_ok());
    assert!(parse_object(&deep_objects(501), &[], |_, _| {}).is_err());
    // the fix: a raw control character in a key fails the line, as in Python
    assert!(old_parse_object("{\"x\u{1}\":1}", &[], |_, _| {}).is_ok());
    assert!(new_keys("{\"x\u{1}\":1}").is_none());
}

/// String bodies for the 64-byte blocks of the string scan: escapes (runs of
/// backslashes, escaped quotes, `\u` escapes split anywhere by a block's end), and
/// what a string may not hold.
const BLOCK_GOOD: &[&str] = &[
    "\\\\",
    "\\\\\\\\",
    "\\\"",
    "\\\\\\\"",
    "\\n",
    "\\/",
    "\\u0041",
    "\\ud800",
    "\\uDE00",
    "\\ud83d\\ude00",
    "é",
    "😀",
    "'",
    "\u{7f}",
];
const BLOCK_BAD: &[&str] = &[
    "\\", "\"", "\\\\\"", "\u{1}", "\t", "\\x", "\\u12", "\\u12g4", "\\U0041", "\\'",
];

/// A line holding `body` as a key and as the value of a key the readers ask for.
fn block_line(body: &str) -> String {
    format!("{{\"{body}\":1,\"type\":\"{body}\",\"x\":[\"{body}\"]}}")
}

#[test]
fn long_strings_read_the_same_as_serde_json_at_every_block_offset() {
    // each piece after a plain run of every length up to two blocks, so it meets a
    // block's end at every offset (a backslash as a block's last byte, a `\u`
    // escape's digits in the next block), with more plain bytes after it
    let mut accepted = 0;
    let mut total = 0;
    for piece in BLOCK_GOOD.iter().chain(BLOCK_BAD) {
        for run in 0..140 {
            for after in ["", "b", "\\n", &"c".repeat(70)] {
                let body = format!("{}{piece}{after}", "a".repeat(run));
                accepted += usize::from(same(&block_line(&body)));
                total += 1;
            }
        }
    }
    assert!(
        accepted > total / 2 && accepted < total,
        "{accepted} of {total}"
    );
}

#[test]
fn long_generated_strings_read_the_same_as_serde_json() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let (mut accepted, total) = (0, 20_000);
    for _ in 0..total {
        let mut body = String::new();
        for _ in 0..rng.below(10) {
            body.push_str(&"a".repeat(rng.below(80)));
            if rng.chance(92) {
                body.push_str(rng.pick(BLOCK_GOOD));
            } else {
                body.push_str(rng.pick(BLOCK_BAD));
            }
        }
        accepted += usize::from(same(&block_line(&body)));
    }
    assert!(
        accepted > total / 5 && accepted < total * 4 / 5,
        "{accepted} of {total}"
    );
}
