//! The `codex` reader (`docs/formats.md`), line for line the rules of
//! `wavemetrics/readers/codex.py`: one rollout into its one lane, `main`, with
//! batches (runs of consecutive call items), the batched-write start rewrite,
//! the fork replay gate and the session id learned from the file (or, failing
//! that, the unit's fallback id: the UUID that ends the file name).
//!
//! The format is not streamable (a start is rewritten after its output is
//! read), so the lane's observations are kept, rewritten, and summarised in
//! batch mode at the end, as the Python reader hands its lane over whole.

use super::lines::{
    any_number, bad_json, for_each_line_within_from, has_digit_run, int_too_long, Names,
};
use super::protocol::{with_fallback, Failure, LaneOut, ReadError, Reader, Unit, UnitOut};
use crate::account::LineAccount;
use crate::activity::Timing;
use crate::io::{open_input, Input};
use crate::json::{
    parse_object, parse_object_nested, parse_object_within, Field, Raw, SyntaxError, Val,
    MAX_JSON_DEPTH,
};
use crate::lines::LineReader;
use crate::summary::{BatchKey, LaneStream, Settings};
use crate::time::iso_to_ms;
use hashbrown::{HashMap, HashSet};
use std::borrow::Cow;
use std::path::Path;
use std::rc::Rc;

const RECORD_KEYS: [&str; 3] = ["type", "payload", "timestamp"];
const PAYLOAD_KEYS: [&str; 10] = [
    "type",
    "id",
    "forked_from_id",
    "timestamp",
    "name",
    "namespace",
    "call_id",
    "execution",
    "output",
    "turn_id",
];

/// libmpdec's largest exponent and smallest subnormal exponent (`MAX_EMAX`,
/// `MIN_ETINY` on 64 bits): `Decimal(text)` of a literal past them raises.
const MPD_MAX_EMAX: i128 = 999_999_999_999_999_999;
const MPD_MIN_ETINY: i128 = -1_999_999_999_999_999_997;
/// The default decimal context (`decimal.getcontext()`): 28 digits, exponents
/// to ±999999; `scaleb` rounds to it and raises on overflow.
const CONTEXT_PREC: usize = 28;
const CONTEXT_EMAX: i128 = 999_999;
const CONTEXT_EMIN: i128 = -999_999;

/// A JSON number literal split as `decimal.Decimal` reads it.
struct Literal<'a> {
    negative: bool,
    /// The significant digits (leading zeros of the integer and fraction removed;
    /// empty for zero).
    digits: Cow<'a, [u8]>,
    /// The exponent of the last digit (the literal's exponent less its fraction
    /// length), saturated far beyond every limit checked.
    exponent: i128,
    /// Whether it has a fraction or an exponent (Python builds a float, here a
    /// `Decimal`, instead of an int).
    float: bool,
}

fn literal(text: &[u8]) -> Literal<'_> {
    let (negative, rest) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let int_end = rest
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(rest.len());
    let (int, rest) = rest.split_at(int_end);
    let (frac, rest) = match rest.split_first() {
        Some((b'.', rest)) => {
            let end = rest
                .iter()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(rest.len());
            rest.split_at(end)
        }
        _ => (&rest[..0], rest),
    };
    let mut float = !frac.is_empty() || int_end < text.len() - usize::from(negative);
    let mut exponent: i128 = 0;
    if let Some((b'e' | b'E', exp)) = rest.split_first() {
        float = true;
        let (sign, digits) = match exp.split_first() {
            Some((b'-', d)) => (-1, d),
            Some((b'+', d)) => (1, d),
            _ => (1, exp),
        };
        for &d in digits.iter().take_while(|d| d.is_ascii_digit()) {
            // saturate far past every limit (a literal's exponent may have any length)
            exponent = (exponent * 10 + i128::from(d - b'0')).min(10i128.pow(30));
        }
        exponent *= sign;
    }
    exponent -= frac.len() as i128;
    let digits: Cow<'_, [u8]> = if frac.is_empty() {
        Cow::Borrowed(int)
    } else {
        Cow::Owned([int, frac].concat())
    };
    let leading = digits.iter().take_while(|&&d| d == b'0').count();
    let digits = match digits {
        Cow::Borrowed(d) => Cow::Borrowed(&d[leading..]),
        Cow::Owned(d) => Cow::Owned(d[leading..].to_vec()),
    };
    Literal {
        negative,
        digits,
        exponent,
        float,
    }
}

/// Whether Python's `json.loads` with `parse_float=Decimal` raises on a number of
/// this JSON text, which parses otherwise: an int literal of more than 4300 digits
/// (`ValueError`), or a fraction or exponent that `Decimal` cannot hold exactly
/// (`InvalidOperation`, which `codex.py` takes as no duration too).
fn decimal_number_error(text: &[u8]) -> bool {
    int_too_long(text)
        || has_digit_run(text, EXTREME_EXPONENT_DIGITS)
            && any_number(text, |n| {
                let number = literal(n);
                number.float && !decimal_holds(&number)
            })
}

/// The fewest digits in a row a number `Decimal` cannot hold needs: its exponent
/// `E` must be past ±10^17, which takes 18 digits. With `i` the digits before the
/// point (fewer than 10^17: no text this process holds is that long) and `f` after
/// it, [`decimal_holds`] fails when `E - f < MPD_MIN_ETINY` (so `E < -1.9 * 10^18`)
/// or when the adjusted exponent, at most `E + i - 1`, passes `MPD_MAX_EMAX` (so
/// `E > 10^18 - i > 9 * 10^17`). A text without such a run is walked no further.
const EXTREME_EXPONENT_DIGITS: usize = 18;

/// Whether `Decimal(literal)` is exact under libmpdec's widest context (else
/// `InvalidOperation`): the exponent of its last digit no lower than the smallest
/// subnormal one and, for a number other than zero, its adjusted exponent no
/// higher than the largest (for zero, the exponent itself).
fn decimal_holds(number: &Literal<'_>) -> bool {
    if number.exponent < MPD_MIN_ETINY {
        return false;
    }
    let adjusted = if number.digits.is_empty() {
        number.exponent
    } else {
        number.exponent + number.digits.len() as i128 - 1
    };
    adjusted <= MPD_MAX_EMAX
}

/// `float(Decimal(seconds).scaleb(3))` for a number literal `Decimal` holds (see
/// [`decimal_number_error`]), with `codex.py`'s checks: `None` when the seconds are
/// negative, when `scaleb` overflows the default context (28 digits, exponents to
/// ±999999, rounded half to even), or when the ms are not finite.
fn literal_ms(number: &Literal<'_>) -> Option<f64> {
    if number.digits.is_empty() {
        return Some(if number.negative { -0.0 } else { 0.0 });
    }
    if number.negative {
        return None;
    }
    let mut digits = number.digits.to_vec();
    let mut exponent = number.exponent + 3;
    if digits.len() > CONTEXT_PREC {
        let dropped = &digits[CONTEXT_PREC..];
        let half = dropped[0].cmp(&b'5').then_with(|| {
            if dropped[1..].iter().all(|&d| d == b'0') {
                std::cmp::Ordering::Equal
            } else {
                std::cmp::Ordering::Greater
            }
        });
        exponent += (digits.len() - CONTEXT_PREC) as i128;
        digits.truncate(CONTEXT_PREC);
        let up = match half {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => (digits[CONTEXT_PREC - 1] - b'0') % 2 == 1,
            std::cmp::Ordering::Less => false,
        };
        if up {
            let mut i = CONTEXT_PREC;
            loop {
                if i == 0 {
                    // 99...9 rounded up: 10^28, kept as 28 digits one exponent up
                    digits.insert(0, b'1');
                    digits.truncate(CONTEXT_PREC);
                    exponent += 1;
                    break;
                }
                i -= 1;
                if digits[i] == b'9' {
                    digits[i] = b'0';
                } else {
                    digits[i] += 1;
                    break;
                }
            }
        }
    }
    let adjusted = exponent + digits.len() as i128 - 1;
    if adjusted > CONTEXT_EMAX {
        return None; // Overflow, trapped by the default context
    }
    if adjusted < CONTEXT_EMIN {
        return Some(0.0); // subnormal in the context: far below the smallest double
    }
    let text = format!("{}e{exponent}", std::str::from_utf8(&digits).ok()?);
    let ms: f64 = text.parse().ok()?;
    ms.is_finite().then_some(ms)
}

/// WTF-8 bytes as UTF-8 text for JSON parsing: each lone surrogate (`ED A0..BF
/// xx`) becomes U+FFFD, which is as valid as it inside a JSON string and as
/// invalid outside one, and equal to no key this reader reads.
fn wtf8_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => {
            let mut out = Vec::with_capacity(bytes.len());
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == 0xed && bytes.get(i + 1).is_some_and(|&b| b >= 0xa0) {
                    out.extend_from_slice("\u{fffd}".as_bytes());
                    i += 3;
                } else {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
            Cow::Owned(String::from_utf8_lossy(&out).into_owned())
        }
    }
}

/// `embedded_duration_ms` of `codex.py`: `metadata.duration_seconds` of a JSON
/// output string, in ms; else `None`.
fn embedded_duration_ms(output: &Val<'_>) -> Option<f64> {
    let text = wtf8_text(output.str_bytes()?);
    let text: &str = &text;
    if !text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{')
    {
        return None; // not JSON, or JSON but not an object
    }
    // past MAX_JSON_DEPTH levels (from the output's own top value): no duration either
    let mut metadata = Val::Absent;
    parse_object_within(text, MAX_JSON_DEPTH, &["metadata"], |_, raw| {
        metadata = Val::of(raw)
    })
    .ok()?;
    if decimal_number_error(text.as_bytes()) {
        return None;
    }
    let Val::Object(metadata) = metadata else {
        return None;
    };
    let mut seconds = None;
    parse_object(metadata, &["duration_seconds"], |_, raw| {
        seconds = Some(raw)
    })
    .ok()?;
    let seconds = seconds?.get();
    if !seconds.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        return None;
    }
    literal_ms(&literal(seconds.as_bytes()))
}

/// `uuid7_ms` of `_uuids.py`: the creation time in ms of a canonical UUIDv7.
fn uuid7_ms(value: &Val<'_>) -> Option<u64> {
    let text = value.str_bytes()?;
    if text.len() != 36 {
        return None;
    }
    for (i, &b) in text.iter().enumerate() {
        let ok = match i {
            8 | 13 | 18 | 23 => b == b'-',
            14 => b == b'7',
            19 => matches!(b, b'8' | b'9' | b'a' | b'b' | b'A' | b'B'),
            _ => b.is_ascii_hexdigit(),
        };
        if !ok {
            return None;
        }
    }
    let hex = [&text[..8], &text[9..13]].concat();
    u64::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()
}

/// `tool_name` of `codex.py`: `payload.name` (else the item type), an MCP
/// namespace prefixed, Code Mode's `exec` and `wait` suffixed `:code_mode`.
fn tool_name(name: &Val<'_>, namespace: &Val<'_>, kind: &[u8]) -> String {
    let Some(name) = name.usable_text() else {
        return String::from_utf8_lossy(kind).into_owned();
    };
    if let Some(ns) = namespace.str_bytes() {
        let prefixed = [ns, b"__"].concat();
        if ns.starts_with(b"mcp__") && ns.len() > 5 && !name.as_bytes().starts_with(&prefixed) {
            // a lone surrogate of the namespace (WTF-8) becomes U+FFFD: both are
            // non-ASCII text that no ASCII eval or batchable name matches
            return format!("{}__{name}", wtf8_text(ns));
        }
    }
    let plain_namespace = match namespace {
        Val::Absent | Val::Null => true,
        other => other.str_bytes() == Some(b"functions"),
    };
    if matches!(name, "exec" | "wait") && plain_namespace {
        return format!("{name}:code_mode");
    }
    name.to_string()
}

/// One kept observation; a start carries its tool name and batch key.
struct Obs {
    call_id: Rc<str>,
    at_ms: f64,
    start: Option<(Rc<str>, Option<BatchKey>)>,
}

/// The lane's bookkeeping when a fork's replay gate opened, to restore it.
struct Snapshot {
    observations: usize,
    started: HashMap<Rc<str>, usize>,
    ended: HashSet<Rc<str>>,
    in_batch: bool,
}

/// An open fork replay gate: the records seen since the fork's `session_meta`.
struct Gate {
    created_ms: u64,
    snapshot: Snapshot,
    account: LineAccount,
    records: u64,
    dated: bool,
}

/// One rollout being read (`_Rollout` of `codex.py`); `started` maps a started
/// call id to its start's index in `observations` (`start_names` and
/// `start_index` there, which always hold the same ids).
#[derive(Default)]
struct Rollout {
    observations: Vec<Obs>,
    started: HashMap<Rc<str>, usize>,
    ended: HashSet<Rc<str>>,
    session_id: Option<String>,
    gate: Option<Gate>,
    batches: u64,
    in_batch: bool,
    names: Names,
}

impl Rollout {
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            observations: self.observations.len(),
            started: self.started.clone(),
            ended: self.ended.clone(),
            in_batch: self.in_batch,
        }
    }

    fn restore(&mut self, snapshot: Snapshot) {
        self.observations.truncate(snapshot.observations);
        self.started = snapshot.started;
        self.ended = snapshot.ended;
        // replayed items neither join nor end a batch (the count only grows: keys stay unique)
        self.in_batch = snapshot.in_batch;
    }

    /// `step_batch`: a call item joins the current run (or begins one) and gets its
    /// key; any other item ends the run.
    fn step_batch(&mut self, call: bool) -> Option<BatchKey> {
        if !call {
            self.in_batch = false;
            return None;
        }
        if !self.in_batch {
            self.in_batch = true;
            self.batches += 1;
        }
        Some(self.batches.to_string().as_bytes().into())
    }
}

/// Where `output` is in [`PAYLOAD_KEYS`].
const OUTPUT: usize = 8;

/// A record's payload: the values of [`PAYLOAD_KEYS`] (indexed by their place there),
/// but `output`'s, of which only its JSON text is kept: it is decoded only for a
/// batched write, whose duration it may hold (an output is often long and escaped).
#[derive(Default)]
struct Payload<'a> {
    keys: [Val<'a>; 10],
    output: Option<Raw<'a>>,
}

impl<'a> std::ops::Index<usize> for Payload<'a> {
    type Output = Val<'a>;

    fn index(&self, key: usize) -> &Val<'a> {
        &self.keys[key]
    }
}

impl<'a> Payload<'a> {
    /// The value of `output` (decoded now).
    fn output(&self) -> Val<'a> {
        self.output.map_or(Val::Absent, Val::of)
    }
}

impl<'a> Payload<'a> {
    /// Take the value of `PAYLOAD_KEYS[key]` (a repeated key again: the last wins).
    fn set(&mut self, key: usize, raw: Raw<'a>) {
        if key == OUTPUT {
            self.output = Some(raw);
        } else {
            self.keys[key] = Val::of(raw);
        }
    }
}

/// A line's record by [`RECORD_KEYS`], and its payload's keys by [`PAYLOAD_KEYS`] when
/// the (last) payload is an object, read in one pass (`json.loads` of the line); a
/// [`SyntaxError`] when the line is no valid JSON object.
fn record_of(text: &str) -> Result<([Val<'_>; 3], Payload<'_>), SyntaxError> {
    let mut v: [Val; 3] = Default::default();
    let mut p = Payload::default();
    parse_object_nested(
        text,
        MAX_JSON_DEPTH,
        &RECORD_KEYS,
        1,
        &PAYLOAD_KEYS,
        |field, raw| match field {
            Field::Outer(i) => v[i] = Val::of(raw),
            Field::Opened => p = Payload::default(), // a repeated payload: the last wins
            Field::Inner(i) => p.set(i, raw),
        },
    )?;
    Ok((v, p))
}

fn read_meta(p: &Payload<'_>, state: &mut Rollout, account: &mut LineAccount) {
    let [_, id, forked_from, stamp, ..] = &p.keys;
    if state.session_id.is_some() {
        account.ignore(b"repeated_session_meta");
        return;
    }
    if id.bad_id() {
        // never replaced by the file name (docs/formats.md)
        account.problem("invalid_id");
        return;
    }
    let Some(session_id) = id.usable_id() else {
        account.problem("invalid_session_meta");
        return;
    };
    state.session_id = Some(session_id.to_string());
    account.use_line();
    if forked_from.str_bytes().is_none_or(|f| f.is_empty()) {
        return;
    }
    let created = uuid7_ms(id).or_else(|| {
        let at = iso_to_ms(stamp.str_bytes()?)?;
        // whole ms, as Python's math.floor (a time is finite and >= 0, below 2**53)
        Some(at.floor() as u64)
    });
    let Some(created_ms) = created else {
        account.note("fork_boundary_unknown", 1);
        return;
    };
    state.gate = Some(Gate {
        created_ms,
        snapshot: state.snapshot(),
        account: LineAccount::default(),
        records: 0,
        dated: false,
    });
}

fn read_call(
    stamp: &Val<'_>,
    p: &Payload<'_>,
    start: bool,
    kind: &[u8],
    state: &mut Rollout,
    account: &mut LineAccount,
    batch: Option<BatchKey>,
) {
    let Some(call_id) = p[6].usable_id() else {
        account.problem("invalid_tool_record");
        return;
    };
    let Some(at_ms) = stamp.str_bytes().and_then(iso_to_ms) else {
        account.problem("invalid_timestamp");
        return;
    };
    if start {
        if state.started.contains_key(call_id) {
            account.ignore(b"repeated_tool_call");
            return;
        }
        let call_id: Rc<str> = call_id.into();
        let name = state.names.get(&tool_name(&p[4], &p[5], kind));
        state
            .started
            .insert(call_id.clone(), state.observations.len());
        state.observations.push(Obs {
            call_id,
            at_ms,
            start: Some((name, batch)),
        });
        account.use_line();
        return;
    }
    if state.ended.contains(call_id) {
        account.ignore(b"repeated_tool_output");
        return;
    }
    let call_id: Rc<str> = call_id.into();
    state.ended.insert(call_id.clone());
    let index = state.started.get(&call_id).copied();
    state.observations.push(Obs {
        call_id,
        at_ms,
        start: None,
    });
    account.use_line();
    let Some(index) = index.filter(|&i| state.observations[i].at_ms == at_ms) else {
        return;
    };
    // batched write (0.4x): call and output flushed together after the call ran
    match embedded_duration_ms(&p.output()) {
        Some(duration) if at_ms - duration >= 0.0 => {
            state.observations[index].at_ms = at_ms - duration;
            account.note("batched_write_duration_applied", 1);
        }
        _ => account.note("batched_write_no_duration", 1),
    }
}

const START_TYPES: [&[u8]; 4] = [
    b"function_call",
    b"custom_tool_call",
    b"local_shell_call",
    b"tool_search_call",
];
const END_TYPES: [&[u8]; 3] = [
    b"function_call_output",
    b"custom_tool_call_output",
    b"tool_search_output",
];

/// `_harness_call`: tool search is a call only when the harness ran it (`execution`
/// other than `"server"`) and it has a `call_id`.
fn harness_call(p: &Payload<'_>, item: &[u8]) -> bool {
    if !matches!(item, b"tool_search_call" | b"tool_search_output") {
        return true;
    }
    p[7].str_bytes() != Some(b"server") && p[6].usable_text().is_some()
}

/// `_read_record` of `codex.py`, the record's `type`, `payload` and `timestamp` given.
fn read_record(
    v: &[Val<'_>; 3],
    p: &Payload<'_>,
    state: &mut Rollout,
    account: &mut LineAccount,
) -> Result<(), Failure> {
    let [kind, payload, stamp] = v;
    let Some(kind) = kind.str_bytes() else {
        account.problem("missing_type");
        return Ok(());
    };
    let response = kind == b"response_item";
    if !matches!(
        kind,
        b"session_meta" | b"response_item" | b"event_msg" | b"turn_context"
    ) {
        account.ignore(kind);
        return Ok(());
    }
    let Val::Object(_) = payload else {
        if response {
            state.step_batch(false); // not a call item: it ends the batch
        }
        account.problem("invalid_payload");
        return Ok(());
    };
    if kind == b"turn_context" {
        account.ignore(kind); // whatever its payload holds
        return Ok(());
    }
    if kind == b"session_meta" {
        read_meta(p, state, account);
        return Ok(());
    }
    let Some(item) = p[0].str_bytes() else {
        if response {
            state.step_batch(false);
        }
        account.ignore(kind);
        return Ok(());
    };
    let start = START_TYPES.contains(&item);
    if response && (start || END_TYPES.contains(&item)) && harness_call(p, item) {
        let batch = state.step_batch(start);
        read_call(stamp, p, start, item, state, account, batch);
    } else {
        if response {
            state.step_batch(false);
        }
        account.ignore(&[kind, b".", item].concat());
    }
    Ok(())
}

/// `_boundary`: whether the record is the fork's first own `turn_context` (and note
/// that some turn id was dated).
fn boundary(v: &[Val<'_>; 3], p: &Payload<'_>, gate: &mut Gate) -> bool {
    let [kind, payload, _] = v;
    let (Some(b"turn_context"), Val::Object(_)) = (kind.str_bytes(), payload) else {
        return false;
    };
    let Some(minted) = uuid7_ms(&p[9]) else {
        return false;
    };
    gate.dated = true;
    minted >= gate.created_ms
}

/// `_close_gate`: replayed, the lane goes back to the snapshot and the records are
/// `replayed_items`; else everything read under the gate is kept.
fn close_gate(state: &mut Rollout, gate: Gate, account: &mut LineAccount, replayed: bool) {
    if replayed {
        state.restore(gate.snapshot);
        if gate.records > 0 {
            account.add_ignored(b"replayed_items", gate.records);
        }
        return;
    }
    account.merge(&gate.account);
    account.note("fork_boundary_unknown", 1);
}

fn read_codex_once(
    path: &Path,
    fallback_session_id: &str,
    settings: &Settings,
) -> Result<UnitOut, Failure> {
    read_codex_from(
        LineReader::new(open_input(path)?),
        fallback_session_id,
        settings,
    )
}

/// [`read_codex_once`] of the lines `lines` has still to give: a rollout's, from its
/// first line (a reader of the file [`LineReader::rewound`]).
fn read_codex_from(
    lines: LineReader<Input>,
    fallback_session_id: &str,
    settings: &Settings,
) -> Result<UnitOut, Failure> {
    let mut account = LineAccount::default();
    let mut state = Rollout::default();
    let mut seen = false;
    for_each_line_within_from(lines, &mut account, MAX_JSON_DEPTH, |text, account| {
        let (v, p) = record_of(text).map_err(bad_json)?;
        if int_too_long(text.as_bytes()) {
            return Err(bad_json(SyntaxError)); // Python's int() refuses it: invalid_json
        }
        seen = true;
        match state.gate.take() {
            None => read_record(&v, &p, &mut state, account)?,
            Some(mut gate) => {
                if boundary(&v, &p, &mut gate) {
                    close_gate(&mut state, gate, account, true);
                    account.use_line();
                } else {
                    gate.records += 1;
                    let result = read_record(&v, &p, &mut state, &mut gate.account);
                    state.gate = Some(gate);
                    result?;
                }
            }
        }
        Ok(())
    })?;
    if let Some(gate) = state.gate.take() {
        let dated = gate.dated;
        close_gate(&mut state, gate, &mut account, dated);
    }
    let mut lanes = Vec::new();
    if seen {
        let session_id = match state.session_id.take() {
            Some(id) => id,
            None => {
                account.note("session_id_from_file_name", 1);
                fallback_session_id.to_string()
            }
        };
        let mut stream = LaneStream::new(
            settings,
            settings.eval_names.clone().into(),
            settings.batchable_names.clone().into(),
        );
        for obs in state.observations {
            match obs.start {
                Some((name, batch)) => stream.start(obs.call_id, name, obs.at_ms, batch),
                None => stream.end(&obs.call_id, obs.at_ms)?,
            }
        }
        let finished = stream.finish_lane(0.0, &[], Timing::Message);
        lanes.push(LaneOut::new(0, session_id, "main".to_string(), finished));
    }
    Ok(UnitOut {
        accounts: vec![account],
        lanes,
        read_again_in_batch: false,
    })
}

/// The `codex` reader: a unit is one rollout and the session id that stands in when
/// it names none (the UUID that ends its file name, `session_id_from_file_name`).
/// It reads on one thread, in batch mode (the format is not streamable); a unit of
/// more or fewer than one file is refused (`InvalidInput`).
pub struct Codex;

impl Reader for Codex {
    fn read(
        &self,
        unit: &Unit<'_>,
        settings: &Settings,
        _threads: usize,
    ) -> Result<UnitOut, ReadError> {
        let (path, fallback) = unit.one_file("a codex")?;
        let batch = Settings {
            stream: false,
            ..settings.clone()
        };
        with_fallback(&batch, |s| read_codex_once(path, fallback, s))
    }
}

impl Codex {
    /// [`Reader::read`] of a rollout whose lines `lines` gives from the first (a
    /// reader detection has looked through and [`LineReader::rewound`]), its session
    /// id from the file's name `fallback`: the file is not opened again.
    pub fn read_lines(
        lines: LineReader<Input>,
        fallback: &str,
        settings: &Settings,
    ) -> Result<UnitOut, ReadError> {
        let batch = Settings {
            stream: false,
            ..settings.clone()
        };
        // a batch read never fails for order: its one read is the read
        let mut lines = Some(lines);
        with_fallback(&batch, |s| match lines.take() {
            Some(lines) => read_codex_from(lines, fallback, s),
            None => Err(Failure::Read(ReadError::Io(std::io::Error::other(
                "a rollout's lines read twice",
            )))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::protocol::fixtures::read_lines;
    use std::io;

    fn ms(text: &str) -> Option<f64> {
        literal_ms(&literal(text.as_bytes()))
    }

    fn duration(output: &str) -> Option<f64> {
        embedded_duration_ms(&Val::Text(output))
    }

    #[test]
    fn seconds_become_ms_as_decimal_scaleb_then_float_gives_them() {
        assert_eq!(ms("1.1"), Some(1100.0));
        assert_eq!(ms("0.001"), Some(1.0));
        assert_eq!(ms("7"), Some(7000.0));
        assert_eq!(ms("-0"), Some(-0.0));
        assert!(ms("-0.0").unwrap().is_sign_negative());
        assert_eq!(ms("-1e-9"), None);
        // 28 digits, half to even: 1.000...0005 (29th digit 5, nothing after) stays,
        // ...0015 rounds up, ...00050001 rounds up
        assert_eq!(ms("1.0000000000000000000000000005"), Some(1000.0));
        assert_eq!(
            ms("1.0000000000000000000000000015"),
            "1000.000000000000000000000002".parse().ok()
        );
        assert_eq!(ms("9999999999999999999999999999.5"), Some(1e31));
        // overflow of the default context (exponents to 999999), of a double, underflow
        assert_eq!(ms("1e999996"), None);
        assert_eq!(ms("1e999997"), None);
        assert_eq!(ms("1e400"), None);
        assert_eq!(ms("1e-400"), Some(0.0));
        assert_eq!(ms("1.5e-1000004"), Some(0.0));
        assert_eq!(ms("2.2250738585072014e-305"), Some(2.2250738585072014e-302));
    }

    #[test]
    fn decimal_holds_what_libmpdec_builds_exactly() {
        // measured with Python 3.11's decimal.Decimal(text)
        let holds = |t: &str| decimal_holds(&literal(t.as_bytes()));
        assert!(holds("1e999999999999999999"));
        assert!(!holds("1e1000000000000000000"));
        assert!(!holds("12e999999999999999999"));
        assert!(holds("1.5e999999999999999999"));
        assert!(holds("0.9e1000000000000000000"));
        assert!(holds("1e-1999999999999999997"));
        assert!(!holds("1e-1999999999999999998"));
        assert!(!holds("10e-1999999999999999998"));
        assert!(holds("1.0e-1999999999999999996"));
        assert!(!holds("1.0e-1999999999999999997"));
        assert!(holds("0e999999999999999999"));
        assert!(!holds("0e1000000000000000000"));
        assert!(!holds("0.0e-1999999999999999997"));
        assert!(!holds("1e99999999999999999999999999999999999999999"));
    }

    #[test]
    fn an_output_gives_a_duration_only_as_a_json_object_python_reads() {
        assert_eq!(
            duration(r#"{"output": "", "metadata": {"duration_seconds": 1.5}}"#),
            Some(1500.0)
        );
        assert_eq!(
            duration(
                r#" {"metadata": {"duration_seconds": 1}, "metadata": {"duration_seconds": 2}} "#
            ),
            Some(2000.0)
        );
        for bad in [
            "Plan updated",
            r#"[{"metadata": {"duration_seconds": 2}}]"#,
            r#"{"metadata": {"duration_seconds": true}}"#,
            r#"{"metadata": {"duration_seconds": "2"}}"#,
            r#"{"metadata": {"duration_seconds": NaN}}"#,
            r#"{"metadata": {"duration_seconds": 2}"#,
            "\u{feff}{\"metadata\": {\"duration_seconds\": 2}}",
        ] {
            assert_eq!(duration(bad), None, "{bad}");
        }
        let long_int = format!(
            r#"{{"metadata": {{"duration_seconds": 2}}, "x": {}}}"#,
            "7".repeat(4301)
        );
        assert_eq!(duration(&long_int), None);
        let ok_int = format!(
            r#"{{"metadata": {{"duration_seconds": 2}}, "x": {}.5}}"#,
            "7".repeat(5000)
        );
        assert_eq!(duration(&ok_int), Some(2000.0));
        let deep = |d: usize| {
            format!(
                r#"{{"metadata": {{"duration_seconds": 2}}, "x": {}{}}}"#,
                "[".repeat(d),
                "]".repeat(d)
            )
        };
        // a number Decimal cannot hold anywhere: no duration (18 and 19 exponent
        // digits); 18 digits in a row that are no such number: the duration
        for (x, want) in [
            ("12e999999999999999999", None),
            ("1e-1999999999999999998", None),
            ("1e99999999999999999", Some(2000.0)),
            ("123456789012345678", Some(2000.0)),
            ("\"12e999999999999999999\"", Some(2000.0)),
        ] {
            let text = format!(r#"{{"metadata": {{"duration_seconds": 2}}, "x": {x}}}"#);
            assert_eq!(duration(&text), want, "{x}");
        }
        // the output's object and 499 arrays: 500 levels (the one limit), then 501
        assert_eq!(duration(&deep(499)), Some(2000.0));
        assert_eq!(duration(&deep(500)), None);
        assert_eq!(duration(&deep(959)), None);
        // a lone surrogate (WTF-8) is valid in a string, invalid outside one
        let inside = Val::Str(Cow::Owned(
            b"{\"metadata\": {\"duration_seconds\": 2}, \"x\": \"\xed\xa0\x80\"}".to_vec(),
        ));
        assert_eq!(embedded_duration_ms(&inside), Some(2000.0));
        let outside = Val::Str(Cow::Owned(
            b"{\"metadata\": {\"duration_seconds\": 2}}\xed\xa0\x80".to_vec(),
        ));
        assert_eq!(embedded_duration_ms(&outside), None);
    }

    #[test]
    fn uuid7_times_need_the_version_and_variant() {
        let t = |s: &str| uuid7_ms(&Val::Text(s));
        assert_eq!(
            t("019c8a4c-ed82-79a1-aa28-7738fc5ab61a"),
            Some(1771846823298)
        );
        assert_eq!(
            t("019C8A4C-ED82-79A1-BA28-7738FC5AB61A"),
            Some(1771846823298)
        );
        assert_eq!(t("d126e3d0-80ed-480a-be8c-09d97ff602cf"), None);
        assert_eq!(t("019c8a4c-ed82-79a1-ca28-7738fc5ab61a"), None);
        assert_eq!(t("019c8a4c-ed82-79a1-aa28-7738fc5ab61"), None);
        assert_eq!(t("019c8a4c+ed82-79a1-aa28-7738fc5ab61a"), None);
        assert_eq!(uuid7_ms(&Val::Num(1.0)), None);
    }

    #[test]
    fn tool_names_follow_namespaces_and_code_mode() {
        let n = |name: Val, ns: Val| tool_name(&name, &ns, b"function_call");
        assert_eq!(
            n(Val::Text("search"), Val::Text("mcp__notes")),
            "mcp__notes__search"
        );
        assert_eq!(
            n(Val::Text("mcp__notes__q"), Val::Text("mcp__notes")),
            "mcp__notes__q"
        );
        assert_eq!(n(Val::Text("search"), Val::Text("mcp__")), "search");
        assert_eq!(n(Val::Text("exec"), Val::Absent), "exec:code_mode");
        assert_eq!(n(Val::Text("wait"), Val::Null), "wait:code_mode");
        assert_eq!(
            n(Val::Text("wait"), Val::Text("functions")),
            "wait:code_mode"
        );
        assert_eq!(n(Val::Text("exec"), Val::Text("other")), "exec");
        assert_eq!(n(Val::Text(""), Val::Absent), "function_call");
        assert_eq!(n(Val::Num(1.0), Val::Absent), "function_call");
    }

    fn rollout(name: &str, lines: &[&str]) -> UnitOut {
        read_lines(&Codex, &format!("codex-{name}"), lines, "from-name")
    }

    #[test]
    fn a_batched_write_moves_its_start_back_and_batches_are_runs_of_calls() {
        let out = rollout(
            "batched",
            &[
                r#"{"timestamp":"2025-01-01T00:00:10Z","type":"response_item","payload":{"type":"function_call","name":"read","call_id":"a"}}"#,
                r#"{"timestamp":"2025-01-01T00:00:10Z","type":"response_item","payload":{"type":"function_call","name":"grep","call_id":"b"}}"#,
                r#"{"timestamp":"2025-01-01T00:00:10Z","type":"response_item","payload":{"type":"function_call_output","call_id":"a","output":"{\"metadata\":{\"duration_seconds\":1.5}}"}}"#,
                r#"{"timestamp":"2025-01-01T00:00:10Z","type":"response_item","payload":{"type":"function_call_output","call_id":"b","output":"ok"}}"#,
                r#"{"timestamp":"2025-01-01T00:00:11Z","type":"response_item","payload":{"type":"function_call","name":"read","call_id":"a"}}"#,
            ],
        );
        let account = &out.accounts[0];
        assert_eq!((account.lines_read, account.lines_used), (5, 4));
        assert_eq!(
            account.notes,
            vec![
                ("batched_write_duration_applied", 1),
                ("batched_write_no_duration", 1),
                ("session_id_from_file_name", 1)
            ]
        );
        assert_eq!(account.ignored, vec![(b"repeated_tool_call".to_vec(), 1)]);
        let lane = &out.lanes[0];
        assert_eq!(
            (lane.session_id.as_str(), lane.lane_id.as_str()),
            ("from-name", "main")
        );
        let s = &lane.summary;
        // a [8.5, 10] s and b [10, 10] s: one wave of both, 1.5 s of tool time
        assert_eq!((s.paired_calls, s.non_eval_waves_total), (2, 1));
        assert_eq!(s.tool_time_ms, 1500.0);
        assert_eq!((s.batched_turns, s.max_turn_width.0), (1, 2));
    }

    #[test]
    fn a_fork_s_replayed_records_are_restored_and_counted() {
        let fork = "0195500a-1b2c-7d3e-8f40-123456789abc";
        let meta = format!(
            r#"{{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{{"id":"{fork}","forked_from_id":"p"}}}}"#
        );
        let out = rollout(
            "fork",
            &[
                &meta,
                r#"{"timestamp":"2025-01-01T00:00:01Z","type":"response_item","payload":{"type":"function_call","name":"read","call_id":"a"}}"#,
                r#"{"timestamp":"2025-01-01T00:00:01Z","type":"turn_context","payload":{"turn_id":"0195500a-0000-7d3e-8f40-000000000001"}}"#,
                "",
                r#"{"timestamp":"2025-01-01T00:00:02Z","type":"turn_context","payload":{"turn_id":"0195500b-0000-7d3e-8f40-000000000001"}}"#,
                r#"{"timestamp":"2025-01-01T00:00:03Z","type":"response_item","payload":{"type":"function_call","name":"read","call_id":"a"}}"#,
            ],
        );
        let account = &out.accounts[0];
        assert_eq!((account.lines_read, account.lines_used), (6, 3));
        assert_eq!(
            account.ignored,
            vec![(b"blank_line".to_vec(), 1), (b"replayed_items".to_vec(), 2)]
        );
        assert_eq!(out.lanes[0].session_id, fork);
        assert_eq!(out.lanes[0].summary.incomplete_calls, 1);
    }

    #[test]
    fn a_line_past_the_codex_reader_s_depth_is_too_deeply_nested() {
        // the one limit (MAX_JSON_DEPTH): 500 levels are read, 501 are not
        let line = |d: usize| {
            format!(
                r#"{{"type":"event_msg","payload":{{"x":{}{}}}}}"#,
                "[".repeat(d - 2),
                "]".repeat(d - 2)
            )
        };
        let (ok, deep) = (line(500), line(501));
        let out = rollout("depth", &[&ok, &deep, ""]);
        let account = &out.accounts[0];
        assert_eq!(account.problems, vec![("too_deeply_nested", 1)]);
        assert_eq!(account.ignored, vec![(b"event_msg".to_vec(), 1)]);
        assert_eq!(account.lines_read, 2);
    }

    #[test]
    fn a_rollout_is_one_file_and_no_record_is_no_lane() {
        let out = rollout("empty", &["", "not json"]);
        assert!(out.lanes.is_empty());
        assert_eq!(out.accounts[0].problems, vec![("truncated_last_line", 1)]);
        let path = Path::new("/nonexistent/r.jsonl");
        let ids = ["a".to_string(), "b".to_string()];
        let unit = Unit {
            paths: &[path, path],
            session_ids: &ids,
        };
        match Codex.read(&unit, &crate::readers::protocol::fixtures::settings(), 1) {
            Err(ReadError::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::InvalidInput),
            other => panic!("{other:?}"),
        }
    }
}
