//! JSON decoding of only the keys a reader uses (serde_json; everything else is
//! skipped by `IgnoredAny` without being built).
//!
//! Values of the keys a reader reads are taken as borrowed [`RawValue`]s and
//! classified by [`Val::of`], so that a string with a lone surrogate escape
//! (which Python's `json` accepts) is kept as WTF-8 bytes instead of failing
//! the whole line. Duplicate keys: the last one wins, as in Python's `json`.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

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
    /// A string as WTF-8 (lone surrogates kept).
    Str(Cow<'a, [u8]>),
    /// An array, as its raw text.
    Array(&'a str),
    /// An object, as its raw text.
    Object(&'a str),
}

struct WtfBytes;

impl<'de> Visitor<'de> for WtfBytes {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }
}

fn number(text: &str) -> f64 {
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
    /// Classify a raw JSON value (already validated by the parse that produced it).
    pub fn of(raw: &'a RawValue) -> Val<'a> {
        let text = raw.get();
        match text.as_bytes().first() {
            Some(b'"') => {
                let inner = &text[1..text.len() - 1];
                if !inner.contains('\\') {
                    return Val::Str(Cow::Borrowed(inner.as_bytes()));
                }
                let mut de = serde_json::Deserializer::from_str(text);
                match de.deserialize_bytes(WtfBytes) {
                    Ok(bytes) => Val::Str(Cow::Owned(bytes)),
                    Err(_) => Val::Null, // unreachable: the text was validated
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

    /// The value when it is a string.
    pub fn str_bytes(&self) -> Option<&[u8]> {
        match self {
            Val::Str(bytes) => Some(bytes),
            _ => None,
        }
    }

    /// `usable_text`: a non-empty string that UTF-8 can encode (no lone surrogate).
    pub fn usable_text(&self) -> Option<&str> {
        match self {
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
        matches!(self, Val::Str(b) if !b.is_empty()) && self.usable_id().is_none()
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

/// A key as WTF-8 bytes: a key with a lone surrogate escape is valid JSON for Python.
struct KeyBytes;

impl<'de> de::DeserializeSeed<'de> for KeyBytes {
    type Value = Cow<'de, [u8]>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
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
        deserializer.deserialize_bytes(KeyVisitor)
    }
}

/// Visit an object's entries, handing each key and raw value to `set`; the caller
/// decides which keys it keeps. Unknown keys are skipped unbuilt.
pub fn parse_object<'a, F>(
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
pub fn parse_array<'a, F>(text: &'a str, mut each: F) -> Result<(), serde_json::Error>
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

/// Why a line gives no record (`_lines.py` `_parse`): `invalid_json` or `not_an_object`.
pub fn rejection(text: &str) -> &'static str {
    match serde_json::from_str::<IgnoredAny>(text) {
        Ok(_)
            if !text
                .trim_start_matches([' ', '\t', '\n', '\r'])
                .starts_with('{') =>
        {
            "not_an_object"
        }
        _ => "invalid_json",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(text: &str, keys: &[&str]) -> Result<Vec<Val<'static>>, serde_json::Error> {
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
        assert_eq!(v[0], Val::Str(Cow::Borrowed(b"x")));
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
    fn rejections() {
        assert_eq!(rejection("[1, 2]"), "not_an_object");
        assert_eq!(rejection("\"x\""), "not_an_object");
        assert_eq!(rejection("{\"a\":"), "invalid_json");
        assert_eq!(rejection("NaN"), "invalid_json");
        assert!(vals("{\"a\":1} x", &["a"]).is_err());
        assert!(vals("{\"a\":\"\u{1}\"}", &["a"]).is_err());
        assert!(vals("{\"b\":\"\u{1}\"}", &["a"]).is_err());
    }
}

/// The raw `type`, `id`, `name` and `tool_use_id` of one object of `message.content`.
#[derive(Debug, Default, Clone)]
pub struct RawBlock<'a> {
    pub kind: Option<&'a RawValue>,
    pub id: Option<&'a RawValue>,
    pub name: Option<&'a RawValue>,
    pub tool_use_id: Option<&'a RawValue>,
}

/// `message` read in the same pass as its line: the blocks of `message.content` when
/// `message` is an object whose `content` is an array (objects only; other elements
/// and other shapes give no blocks). A string holding a lone surrogate escape fails
/// this pass (serde_json checks strings it visits); the caller then reads the line
/// again through [`Val`]s, which keep such strings.
#[derive(Debug, Default, Clone)]
pub struct FastMessage<'a> {
    pub blocks: Vec<RawBlock<'a>>,
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
pub fn parse_object_fast<'a, F>(
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

/// Python's `json` gives up (`RecursionError`, the reader's `too_deeply_nested`)
/// past about this many nested arrays and objects: its limit is the interpreter's
/// recursion limit (1000) less the reader's own call depth, 984 levels as the
/// command line reads Claude Code files (measured; docs/architecture.md).
pub const PY_MAX_DEPTH: usize = 984;

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
mod fast_tests {
    use super::*;

    type Blocks = Vec<[Val<'static>; 4]>;

    fn fast(text: &'static str) -> (Vec<Val<'static>>, Option<Blocks>) {
        let mut top = vec![Val::Absent; 2];
        let message = parse_object_fast(text, &["type", "uuid"], "message", |i, raw| {
            top[i] = Val::of(raw)
        })
        .unwrap();
        let blocks = message.map(|m| {
            m.blocks
                .iter()
                .map(|b| {
                    let v = |r: Option<&'static RawValue>| r.map_or(Val::Absent, Val::of);
                    [v(b.kind), v(b.id), v(b.name), v(b.tool_use_id)]
                })
                .collect()
        });
        (top, blocks)
    }

    fn s(text: &'static str) -> Val<'static> {
        Val::Str(Cow::Borrowed(text.as_bytes()))
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
    fn lone_surrogates_fail_the_one_pass_parse() {
        let text = r#"{"message":{"content":"\ud800"}}"#;
        assert!(parse_object_fast(text, &[], "message", |_, _| {}).is_err());
        assert!(parse_object(text, &["message"], |_, _| {}).is_ok());
        assert!(parse_object_fast(r#"{"a":1} x"#, &[], "message", |_, _| {}).is_err());
    }

    #[test]
    fn arrays_and_numbers() {
        let mut seen = Vec::new();
        parse_array(r#"[1, "a", {"b": 2}, [3]]"#, |raw| seen.push(Val::of(raw))).unwrap();
        assert_eq!(seen.len(), 4);
        assert_eq!(seen[0].number(), Some(1.0));
        assert_eq!(seen[1].number(), None);
        assert_eq!(Val::Bool(true).number(), None);
        assert!(parse_array("[1,", |_| {}).is_err());
        assert!(parse_array("[1] x", |_| {}).is_err());
        let mut f = Vec::new();
        parse_array("[false, true]", |raw| f.push(Val::of(raw))).unwrap();
        assert_eq!(f, vec![Val::Bool(false), Val::Bool(true)]);
        assert_eq!(rejection(r#"  {"a": 1"#), "invalid_json");
        assert_eq!(rejection(" [1]"), "not_an_object");
    }
}

#[cfg(test)]
mod depth_tests {
    use super::*;

    #[test]
    fn depth_counts_brackets_outside_strings() {
        let deep = |n: usize| format!("{{\"x\":{}{}}}", "[".repeat(n), "]".repeat(n));
        assert!(!nesting_exceeds(deep(983).as_bytes(), PY_MAX_DEPTH));
        assert!(nesting_exceeds(deep(984).as_bytes(), PY_MAX_DEPTH));
        let in_text = format!("{{\"x\":\"{}\"}}", "[".repeat(5000));
        assert!(!nesting_exceeds(in_text.as_bytes(), PY_MAX_DEPTH));
        let escaped = format!("{{\"x\":\"\\\"{}\"}}", "[".repeat(5000));
        assert!(!nesting_exceeds(escaped.as_bytes(), PY_MAX_DEPTH));
        let flat = "[]".repeat(5000);
        assert!(!nesting_exceeds(flat.as_bytes(), PY_MAX_DEPTH));
    }
}
