"""Shared Hypothesis strategies for the metric-core tests (``docs/metrics.md``).

Everything a property needs to generate lives here, so that the hostile values,
the wave shapes and the tool-name spellings are written once. Character sets are
written out from the contract, independently of ``wavemetrics.core.classify``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

from wavemetrics.core.observations import Observation, ToolCall
from wavemetrics.core.schema import FIGURES
from wavemetrics.core.summary import ParallelismSummary
from wavemetrics.core.waves import Wave, wave_from_calls

# --------------------------------------------------------------------------- names

#: The JavaScript ``trim()`` set of section 4, spelled out from the contract.
JS_TRIM = (
    "\t\n\x0b\x0c\r \xa0\u1680"
    + "".join(chr(code) for code in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: Characters Python's ``str.strip()`` removes that JavaScript ``trim()`` keeps.
PYTHON_ONLY_STRIP = "\x1c\x1d\x1e\x1f\x85"
#: The default eval names of section 4, in normal form.
DEFAULT_EVAL_NAMES = ("eval", "codemode", "code_mode")
#: Separators before an eval suffix that make a name an eval name (``-`` becomes ``_``).
EVAL_SEPARATORS = "_:/-"

_FULLWIDTH = {chr(c): chr(c - 0x41 + 0xFF21) for c in range(0x41, 0x5B)} | {
    chr(c): chr(c - 0x61 + 0xFF41) for c in range(0x61, 0x7B)
}


def fullwidth(text: str) -> str:
    """``text`` with every ASCII letter replaced by its fullwidth form (U+FF21..U+FF5A)."""
    return "".join(_FULLWIDTH.get(ch, ch) for ch in text)


def js_normal_form(name: str) -> str:
    """The section-4 normal form, written independently: JS trim, lower, ``-`` -> ``_``."""
    start, end = 0, len(name)
    while start < end and name[start] in JS_TRIM:
        start += 1
    while end > start and name[end - 1] in JS_TRIM:
        end -= 1
    return name[start:end].lower().replace("-", "_")


def oracle_is_eval(name: str, eval_names: Sequence[str] = DEFAULT_EVAL_NAMES) -> bool:
    """Section 4 by the letter, as one regular expression per eval name:
    the normal form is ``e`` optionally preceded by anything ending in ``_``, ``:`` or ``/``."""
    normal = js_normal_form(name)
    for raw in eval_names:
        e = js_normal_form(raw)
        if e and re.fullmatch(r"(?:.*[_:/])?" + re.escape(e), normal, re.DOTALL):
            return True
    return False


def oracle_bucket(names: Sequence[str], eval_names: Sequence[str] = DEFAULT_EVAL_NAMES) -> str:
    """Section 4 wave bucket from the oracle: ``non_eval``, ``eval_only`` or ``mixed``."""
    flags = {oracle_is_eval(name, eval_names) for name in names}
    if flags == {True}:
        return "eval_only"
    if flags == {True, False}:
        return "mixed"
    return "non_eval"


trim_whitespace = st.text(alphabet=JS_TRIM, max_size=3)


@st.composite
def random_case(draw: st.DrawFn, text: str) -> str:
    """``text`` with each character independently upper- or lower-cased."""
    return "".join(draw(st.sampled_from((ch.lower(), ch.upper()))) for ch in text)


@st.composite
def eval_spellings(draw: st.DrawFn) -> str:
    """Names that are eval names: a default eval name in any case, ``_`` or ``-``,
    optionally after a prefix and a separator, wrapped in JS-trim whitespace."""
    base = draw(st.sampled_from(DEFAULT_EVAL_NAMES))
    base = base.replace("_", draw(st.sampled_from("_-")))
    body = draw(random_case(base))
    if draw(st.booleans()):
        prefixes = ("mcp", "server", "tool", "a.b", "x y", fullwidth("mcp"), "ln")
        prefix = draw(st.sampled_from(prefixes))
        body = prefix + draw(st.sampled_from(EVAL_SEPARATORS)) + body
    return draw(trim_whitespace) + body + draw(trim_whitespace)


#: Spellings that look eval-ish but are not eval names under section 4.
NOT_EVAL_NAMES = (
    "evaluate", "evaluate_foo", "eval_helper", "codemodel", "foo.eval", "eval:", "ln",
    "evals", "xeval", "mcp:evaluate", "code mode", "code__mode", "eval/", fullwidth("eval"),
    fullwidth("Eval"), "mcp:" + fullwidth("eval"), fullwidth("code_mode"),
    "eval\x1c", "\x1feval", "eval\x85", "\x85eval",
    "e val", "read", "grep", "bash", "Read", "web-fetch", "mcp:search", "server/grep",
)


@st.composite
def plain_non_eval_names(draw: st.DrawFn) -> str:
    """Non-empty names over an alphabet without the letters of any eval name."""
    return draw(st.text(alphabet="bfghjknpqrstuwxyzBFGHJ019._-:/ ", min_size=1, max_size=8))


non_eval_spellings = st.one_of(st.sampled_from(NOT_EVAL_NAMES), plain_non_eval_names())

#: Any tool-name spelling: eval names, near misses, fullwidth letters, odd whitespace.
tool_name_spellings = st.one_of(
    eval_spellings(),
    non_eval_spellings,
    eval_spellings().map(fullwidth),
    st.text(alphabet="evalcodmEVALCODM_-:/." + JS_TRIM[:4] + PYTHON_ONLY_STRIP, max_size=12),
)

# --------------------------------------------------------------------- observations

CALL_IDS = ("a", "b", "c", "d", "e")
TOOL_NAMES = ("read", "grep", "bash", "eval", "mcp:eval", "Code-Mode")

tool_names = st.sampled_from(TOOL_NAMES)
small_ms = st.integers(min_value=0, max_value=40)
short_durations = st.integers(min_value=0, max_value=12)
any_ms = st.one_of(
    st.integers(min_value=0, max_value=10**15),
    st.floats(min_value=0.0, max_value=1e15, allow_nan=False, allow_infinity=False),
)


class RaisingAttributes:
    """A hostile element: every attribute access raises."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} for you")


class RaisingMapping(dict):  # type: ignore[type-arg]
    """A hostile mapping whose ``get`` raises."""

    def get(self, key: Any, default: Any = None) -> Any:
        raise KeyError(key)


def _valid_dict(kind: str = "start") -> dict[str, object]:
    return {"kind": kind, "call_id": "a", "tool_name": "read", "at_ms": 1}


def _with(field: str, value: object) -> dict[str, object]:
    item = _valid_dict()
    item[field] = value
    return item


def _without(field: str) -> dict[str, object]:
    item = _valid_dict()
    del item[field]
    return item


#: Every kind of malformed element of section 1, with a readable id.
MALFORMED_ELEMENTS: tuple[tuple[str, object], ...] = (
    ("none", None),
    ("str", "start"),
    ("int", 42),
    ("float", 1.5),
    ("list", ["start", "a", "read", 1]),
    ("tuple", ("start", "a", "read", 1)),
    ("empty dict", {}),
    ("bare object", object()),
    ("raising attributes", RaisingAttributes()),
    ("raising mapping", RaisingMapping(_valid_dict())),
    ("missing kind", _without("kind")),
    ("missing call_id", _without("call_id")),
    ("missing tool_name", _without("tool_name")),
    ("missing at_ms", _without("at_ms")),
    ("kind START", _with("kind", "START")),
    ("kind Start", _with("kind", "Start")),
    ("kind padded", _with("kind", " start")),
    ("kind begin", _with("kind", "begin")),
    ("kind empty", _with("kind", "")),
    ("kind None", _with("kind", None)),
    ("kind int", _with("kind", 1)),
    ("kind bytes", _with("kind", b"start")),
    ("call_id empty", _with("call_id", "")),
    ("call_id None", _with("call_id", None)),
    ("call_id int", _with("call_id", 7)),
    ("call_id bytes", _with("call_id", b"a")),
    ("tool_name empty", _with("tool_name", "")),
    ("tool_name None", _with("tool_name", None)),
    ("tool_name int", _with("tool_name", 3)),
    ("at_ms None", _with("at_ms", None)),
    ("at_ms str", _with("at_ms", "5")),
    ("at_ms NaN", _with("at_ms", math.nan)),
    ("at_ms inf", _with("at_ms", math.inf)),
    ("at_ms -inf", _with("at_ms", -math.inf)),
    ("at_ms -1", _with("at_ms", -1)),
    ("at_ms -0.001", _with("at_ms", -0.001)),
    ("at_ms True", _with("at_ms", True)),
    ("at_ms False", _with("at_ms", False)),
    ("at_ms huge int", _with("at_ms", 10**400)),
    ("at_ms list", _with("at_ms", [1])),
    ("at_ms complex", _with("at_ms", 1j)),
    ("Observation empty call_id", Observation("start", "", "read", 1)),
    ("Observation empty tool_name", Observation("end", "a", "", 1)),
    ("Observation kind START", Observation("START", "a", "read", 1)),
    ("Observation at_ms True", Observation("start", "a", "read", True)),  # type: ignore[arg-type]
    ("Observation at_ms NaN", Observation("start", "a", "read", math.nan)),
)

malformed_elements = st.sampled_from([element for _, element in MALFORMED_ELEMENTS])


@st.composite
def valid_observations(
    draw: st.DrawFn, times: st.SearchStrategy[float] = small_ms
) -> object:
    """A valid start or end, as an :class:`Observation` or as an equivalent mapping."""
    fields = {
        "kind": draw(st.sampled_from(("start", "end"))),
        "call_id": draw(st.sampled_from(CALL_IDS)),
        "tool_name": draw(st.sampled_from(TOOL_NAMES)),
        "at_ms": draw(times),
    }
    if draw(st.booleans()):
        return fields
    return Observation(**fields)  # type: ignore[arg-type]


#: Arrival-ordered input with duplicates, orphans, reversed clocks and hostile elements.
observation_streams = st.lists(
    st.one_of(valid_observations(), valid_observations(), malformed_elements), max_size=40
)

#: A lane's observations as a reader feeds them: valid starts and ends in any order, with
#: reused ids, replaced starts, orphan ends and ends before their start (integer ms).
lane_observations = st.lists(
    st.builds(Observation, st.sampled_from(("start", "end")), st.sampled_from(CALL_IDS),
              tool_names, small_ms),
    max_size=30,
)


#: Caps to pair under: unbounded (``None``/``0``) and small caps that are hit often.
caps = st.one_of(st.none(), st.just(0), st.integers(min_value=1, max_value=6))


@st.composite
def distinct_complete_calls(
    draw: st.DrawFn,
    starts: st.SearchStrategy[float] = small_ms,
    durations: st.SearchStrategy[float] = short_durations,
    names: st.SearchStrategy[str] = tool_names,
    max_size: int = 25,
) -> list[ToolCall]:
    """Calls with distinct ids and ``end >= start`` (the shape pairing produces)."""
    specs = draw(st.lists(st.tuples(starts, durations, names), max_size=max_size))
    return [ToolCall(f"c{i}", name, start, start + length)
            for i, (start, length, name) in enumerate(specs)]


def observations_of(calls: Sequence[ToolCall]) -> list[Observation]:
    """Each call's start directly followed by its end, in the given order."""
    stream: list[Observation] = []
    for call in calls:
        stream.append(Observation("start", call.call_id, call.tool_name, call.start_ms))
        stream.append(Observation("end", call.call_id, call.tool_name, call.end_ms))
    return stream


# ----------------------------------------------------------------------------- waves


@st.composite
def connected_calls(
    draw: st.DrawFn,
    names: st.SearchStrategy[str] = tool_names,
    max_size: int = 8,
    integer_ms: bool = True,
    offset: float = 0,
) -> list[ToolCall]:
    """1..max_size calls forming one wave, in wave order (sorted by ``(start, end)``).

    Shapes: ``chain`` (touching back to back), ``nested``, ``identical``,
    ``instant`` (zero-length calls at one instant) and ``random`` (each start lies
    between the previous start and the reach so far, so the set stays connected).
    """
    size = draw(st.integers(min_value=1, max_value=max_size))
    shape = draw(st.sampled_from(("chain", "nested", "identical", "instant", "random")))
    if integer_ms:
        step: st.SearchStrategy[float] = st.integers(min_value=0, max_value=9)
    else:
        step = st.floats(min_value=0.0, max_value=1e4, allow_nan=False, allow_infinity=False)
    intervals: list[tuple[float, float]] = []
    if shape == "chain":
        at = offset
        for _ in range(size):
            length = draw(step)
            intervals.append((at, at + length))
            at = at + length
    elif shape == "nested":
        outer = offset + draw(step) + size
        intervals.append((offset, outer))
        for _ in range(size - 1):
            lo = draw(st.integers(min_value=0, max_value=size)) + offset
            hi = min(outer, lo + draw(step))
            intervals.append((lo, hi))
    elif shape == "identical":
        length = draw(step)
        intervals = [(offset, offset + length)] * size
    elif shape == "instant":
        intervals = [(offset, offset)] * size
    else:
        start, reach = offset, offset
        for _ in range(size):
            if integer_ms:
                start = draw(st.integers(min_value=int(start), max_value=int(reach)))
            else:
                fraction = draw(st.floats(min_value=0.0, max_value=1.0))
                start = min(reach, start + (reach - start) * fraction)
            end = start + draw(step)
            intervals.append((start, end))
            reach = max(reach, end)
    intervals.sort()
    return [ToolCall(f"w{offset}-{i}", draw(names), s, e) for i, (s, e) in enumerate(intervals)]


@st.composite
def wave_lists(
    draw: st.DrawFn,
    names: st.SearchStrategy[str] = tool_names,
    max_waves: int = 6,
    max_size: int = 8,
    integer_ms: bool = True,
) -> list[Wave]:
    """Disjoint waves in order of their first call, built with ``wave_from_calls``."""
    count = draw(st.integers(min_value=0, max_value=max_waves))
    waves: list[Wave] = []
    offset: float = 0
    for _ in range(count):
        calls = draw(connected_calls(names, max_size, integer_ms, offset))
        waves.append(wave_from_calls(calls))
        offset = max(call.end_ms for call in calls) + 1 + draw(st.integers(0, 5))
    return waves


# ------------------------------------------------------------------------- summaries

# Drawn from the figure table, so that a new figure is drawn without an edit here:
# a figure in ms is a float, the histogram an encoded string, any other an int count.
_FLOAT_FIELDS = tuple(p.name for p in FIGURES if p.unit == "ms")
_STRING_FIELDS = tuple(p.name for p in FIGURES if p.json_type == "string")
_INT_FIELDS = tuple(
    p.name for p in FIGURES if p.name not in _FLOAT_FIELDS and p.name not in _STRING_FIELDS
)


@st.composite
def summaries(
    draw: st.DrawFn, floats: Callable[[], st.SearchStrategy[float]] | None = None
) -> ParallelismSummary:
    """A summary with every field drawn; float fields are integer-valued (exact sums)
    unless ``floats`` gives another strategy."""
    def float_values() -> st.SearchStrategy[float]:
        if floats is not None:
            return floats()
        return st.integers(min_value=-(10**12), max_value=10**12).map(float)

    values: dict[str, object] = {name: draw(st.integers(0, 10**9)) for name in _INT_FIELDS}
    values |= {name: draw(float_values()) for name in _FLOAT_FIELDS}
    for name in _STRING_FIELDS:  # the histogram: 8 counts joined by ":"
        counts = draw(st.lists(st.integers(0, 10**6), min_size=8, max_size=8))
        values[name] = ":".join(str(c) for c in counts)
    return ParallelismSummary(**values)  # type: ignore[arg-type]


#: Durations that are multiples of lcm(1..8) = 840 ms: for waves of up to 8 calls
#: S / n is then an integer, so every figure (upper bound included) is an exact
#: integer-valued float and sums of them do not depend on the grouping.
EXACT_DURATIONS = st.integers(min_value=0, max_value=4).map(lambda k: 840 * k)


@st.composite
def exact_sessions(draw: st.DrawFn) -> tuple[list[object], list[tuple[str, float]]]:
    """One session: up to 8 complete calls (integer ms, exact figures) mixed with
    hostile elements and an unpaired start, plus integer-ms turn events."""
    calls = draw(distinct_complete_calls(
        starts=st.integers(0, 12).map(lambda k: 420 * k), durations=EXACT_DURATIONS,
        names=st.one_of(tool_names, non_eval_spellings), max_size=8,
    ))
    stream: list[object] = list(observations_of(calls))
    for element in draw(st.lists(malformed_elements, max_size=3)):
        stream.insert(draw(st.integers(0, len(stream))), element)
    if draw(st.booleans()):
        stream.append(Observation("start", "never-ends", "read", 5))
    turns = draw(st.lists(st.tuples(st.sampled_from(("turn_start", "turn_end", "other")),
                                    st.integers(0, 10**6)), max_size=6))
    return stream, turns


# ------------------------------------------------------------ reader fuzzing

JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8), st.sampled_from(["", "\ud800", "2026-01-01T00:00:00.000Z", "a", "b"]),
)
#: Any JSON value, small: what a hostile or drifting trace may put in a field.
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=8,
)


def plausible_or_any(plausible: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A plausible value most of the time, any JSON value otherwise."""
    return st.one_of(plausible, plausible, JSON_VALUES)


def fuzz_lines(record: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[bytes]:
    """A record as a JSON line, or a random byte line (one physical line: no newline inside)."""
    as_json = record.map(lambda r: json.dumps(r).encode() + b"\n")
    random_line = st.binary(max_size=20).map(lambda b: b.replace(b"\n", b""))
    return st.one_of(as_json, as_json, as_json, random_line)


# ------------------------------------------------- native engine: whole traces

#: Ids that make ``invalid_id``: C0, DEL and C1 control characters, a lone
#: surrogate; a bidi override and a non-breaking space are printable enough to be ids.
BAD_TRACE_IDS = st.sampled_from(["a\x1b[2J", "\x00", "x\x7f", "\x9b31m", "a\r\nb", "\ud800",
                                 "x\udcff", "\t"])
#: Ids that repeat (duplicates, reuse across lanes), plus hostile spellings:
#: empty, a lone surrogate, a control character, non-ASCII, an upper-case UUID beside
#: its lower-case twin.
TRACE_IDS = st.one_of(
    st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "toolu_01"]),
    st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "toolu_01"]),
    st.sampled_from(["", "\ud800", "é\u202e", "x\udcff", "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
                     "3F2504E0-4F89-41D3-9A0C-0305E82C3301", "a\u00a0b"]),
    BAD_TRACE_IDS,
)
#: ``forkedFrom`` values: an object or text makes a line a fork's copy (``replayed_lines``);
#: null, ``""`` and ``{}`` do not.
FORKED_FROM = st.sampled_from([{"sessionId": "s0", "messageUuid": "u"}, "s0", None, "", {}, 0,
                               False, [], {"x": None}])
#: Record types: the readers' own, and ones named only as ``other`` (too long, not an
#: identifier, escapes, non-ASCII, empty).
ODD_TYPES = ["x" * 70, "x" * 64, "\ud83d", "bad\x1b[2J", "has space", "é", "", "a:b.c-d_e",
             "web_search_tool_result"]
_SECOND = st.integers(min_value=0, max_value=30)


@st.composite
def trace_times(draw: st.DrawFn) -> Any:
    """A reader timestamp: ISO-8601 with 0-10 fraction digits and any offset spelling
    (equal and fractional times are common), or an invalid or non-string value."""
    second = draw(_SECOND)
    digits = draw(st.sampled_from([0, 3, 3, 3, 3, 1, 2, 4, 6, 9, 10]))
    fraction = "" if digits == 0 else "." + "".join(
        draw(st.lists(st.sampled_from("0123456789"), min_size=digits, max_size=digits)))
    zone = draw(st.sampled_from(["Z", "Z", "Z", "Z", "Z", "Z", "z", "+00:00", "-01:30", "+0530", "+05", "",
                                 "+24:00", "+05:60"]))
    sep = draw(st.sampled_from(["T", "T", "T", "t", " "]))
    iso = f"2025-03-01{sep}10:00:{second:02d}{fraction}{zone}"
    if draw(st.integers(0, 5)) > 0:
        return iso
    return draw(st.one_of(
        st.sampled_from(["1969-12-31T23:59:59Z", "2025-02-29T00:00:00Z", "0000-01-01T00:00:00Z",
                         "2024-02-29T23:59:59.999999999+14:00", "", "yesterday"]),
        JSON_SCALARS,
    ))


def _event_times() -> st.SearchStrategy[Any]:
    millis = st.integers(min_value=0, max_value=40).map(lambda n: 1_740_823_200_000 + n)
    return st.one_of(
        millis, millis, millis, millis, millis, millis.map(lambda n: n + 0.25), trace_times(),
        st.sampled_from([-1, -0.0, 0, True, 1e300, 1.7e308, 2**1100, "12", None]),
    )


#: ``message.id`` values: shared keys (so that calls share a batch), and values that are
#: no batch (empty, not a string) or odd (a lone surrogate, a control character).
MESSAGE_IDS = st.sampled_from(["msg_1", "msg_1", "msg_2", "msg_3", "", "\ud800", "m\x1b", 7,
                               None, ["msg_1"]])


@st.composite
def claude_records(draw: st.DrawFn) -> dict[str, Any]:
    """One Claude Code transcript line as a dict: tool_use / tool_result / turn_duration /
    other records, with uuids that repeat, sidechain chains, agentIds and odd values."""
    kind = draw(st.sampled_from(
        ["assistant", "assistant", "user", "user", "system", "summary", "file-history-snapshot",
         "progress", *ODD_TYPES]))
    record: dict[str, Any] = {"type": kind}
    if draw(st.integers(0, 19)) == 0:
        record["type"] = draw(JSON_SCALARS)
    if draw(st.booleans()):
        record["uuid"] = draw(st.one_of(TRACE_IDS, st.uuids().map(str), JSON_SCALARS))
    if draw(st.booleans()):
        record["parentUuid"] = draw(st.one_of(TRACE_IDS, st.none()))
    if draw(st.integers(0, 5)) == 0:
        record["isSidechain"] = draw(st.sampled_from([True, True, False, 1, "true"]))
    if draw(st.integers(0, 7)) == 0:
        record["agentId"] = draw(st.one_of(TRACE_IDS, JSON_SCALARS))
    if draw(st.integers(0, 3)) > 0:
        record["sessionId"] = draw(st.sampled_from(["s1", "s1", "s1", "s1", "s2", "", "\udfff",
                                                    "s\x1b1", "s\x85"]))
    if draw(st.integers(0, 7)) == 0:
        record["forkedFrom"] = draw(FORKED_FROM)
    if draw(st.integers(0, 9)) > 0:
        record["timestamp"] = draw(trace_times())
    if kind == "system" or draw(st.integers(0, 9)) == 0:
        record["subtype"] = draw(st.sampled_from(["turn_duration", "turn_duration", "other"]))
        record["durationMs"] = draw(st.one_of(
            st.integers(-5, 10**6), st.floats(allow_nan=False, allow_infinity=False),
            st.sampled_from([True, 0, 1e308, 1.7976931348623157e308, 10**400, -(10**400),
                             2**1024, 2**1023, "5"])))
    name = st.sampled_from(["Read", "Bash", "Read", "Grep", "eval", "mcp:code-mode", "", "\ud800"])
    use = st.fixed_dictionaries({"type": st.just("tool_use"), "id": TRACE_IDS, "name": name})
    result = st.fixed_dictionaries({"type": st.just("tool_result"), "tool_use_id": TRACE_IDS,
                                    "is_error": st.booleans()})
    block = st.one_of(
        use if kind == "assistant" else result, use if kind == "assistant" else result,
        use if kind == "assistant" else result, use, result,
        st.fixed_dictionaries({"type": st.sampled_from(
            ["server_tool_use", "server_tool_use", "web_search_tool_result",
             "code_execution_tool_result", "_tool_result", "tool_result_x", "text"]),
            "id": TRACE_IDS, "name": name}),
        JSON_SCALARS,
    )
    blocks = st.lists(block, min_size=1, max_size=4)
    content = draw(st.one_of(blocks, blocks, blocks, blocks, st.lists(block, max_size=4),
                             st.text(max_size=5), st.none()))
    message = draw(st.sampled_from(["object"] * 8 + ["string", "absent"]))
    if message == "object":
        record["message"] = {"role": "x", "content": content}
        if draw(st.integers(0, 2)) > 0:  # its batch key (docs/formats.md, "Batches")
            record["message"]["id"] = draw(MESSAGE_IDS)
    elif message == "string":
        record["message"] = "hi"
    return record


@st.composite
def event_records(draw: st.DrawFn) -> dict[str, Any]:
    """One ``events`` line as a dict: tool, turn and shutdown events with odd ids and times."""
    kind = draw(st.sampled_from(
        ["tool_execution_start"] * 6 + ["tool_execution_end"] * 6 + ["turn_start", "turn_end", "session_shutdown",
         "tool_execution_update", "message_update", "\ud800x", *ODD_TYPES]))
    record: dict[str, Any] = {"type": kind}
    if draw(st.integers(0, 19)) == 0:
        record["type"] = draw(JSON_SCALARS)
    if draw(st.integers(0, 19)) > 0:
        record["toolCallId"] = draw(st.one_of(TRACE_IDS, TRACE_IDS, TRACE_IDS, JSON_SCALARS))
    if draw(st.integers(0, 19)) > 0:
        record["toolName"] = draw(st.sampled_from(
            ["read", "bash", "read", "grep", "eval", "Code-Mode", "", 5]))
    if draw(st.integers(0, 19)) > 0:
        record["timestamp"] = draw(_event_times())
    if draw(st.booleans()):
        record["sessionId"] = draw(st.sampled_from(
            ["s1", "s1", "s1", "s1", "s2", "", None, "\ud800", "s\x1b1"]))
    if draw(st.integers(0, 5)) == 0:
        record["agentId"] = draw(st.sampled_from(["main", "sub", "sub2", "", 7, "sub\x07"]))
    return record


#: Fork and turn ids of generated Codex rollouts: UUIDv7s minted 10:00:05Z (a fork's
#: creation), before it and after it, and ids with no time.
_CODEX_CREATED_MS = 1_740_823_205_000


def _uuid7(ms: int, tail: str = "0000") -> str:
    """A UUIDv7 text minted at ``ms`` (its first 48 bits)."""
    hexa, pad = f"{ms:012x}", f"{tail:0>3}"
    return f"{hexa[:8]}-{hexa[8:]}-7{pad}-8{pad}-{tail:0>12}"


CODEX_TURN_IDS = st.sampled_from([
    _uuid7(_CODEX_CREATED_MS - 1000, "1"), _uuid7(_CODEX_CREATED_MS, "2"),
    _uuid7(_CODEX_CREATED_MS + 7000, "3"), "turn-1", "", 5,
])


#: Output strings of call items: embedded durations (exact, rounded by ``Decimal`` past 28
#: digits, negative, overflowing, underflowing, out of ``Decimal``'s range), numbers
#: ``int()`` refuses, deep nesting, lone surrogates, documents that are no duration.
CODEX_OUTPUTS = st.one_of(
    st.sampled_from([
        '{"output": "", "metadata": {"duration_seconds": 1.5}}', "ok", "",
        '{"metadata": {"duration_seconds": -1}}', '{"metadata": {"duration_seconds": 99}}',
        '{"metadata": {"duration_seconds": 0.30000000000000000000000000050}}',
        '{"metadata": {"duration_seconds": 2.2250738585072014e-305}}',
        '{"metadata": {"duration_seconds": 1e999999}}', '{"metadata": {"duration_seconds": -0.0}}',
        '{"metadata": {"duration_seconds": 1e-99999999999999999999}}',
        '{"metadata": {"duration_seconds": 1}, "x": ' + "9" * 4301 + "}",
        # far past any recursion limit: Python's depth limit moves with the stack and
        # Hypothesis raises it, so nesting near it is tested apart (test_native_codex.py)
        '{"metadata": {"duration_seconds": 1}, "x": ' + "[" * 20000 + "]" * 20000 + "}",
        '{"metadata": {"duration_seconds": 1}, "x": "\ud800"}',
        '{"metadata": {"duration_seconds": 1}}\ud800', '{"metadata": {"duration_seconds": 1}',
        '{"metadata": {"duration_seconds": true}}', '{"metadata": null}', "[1]",
    ]),
    st.decimals(allow_nan=False, allow_infinity=False, places=None).map(
        lambda d: '{"metadata": {"duration_seconds": ' + (
            format(d, "f") if abs(d.adjusted()) < 40 else str(d).replace("E", "e")) + "}}"),
    st.integers(-5, 10**40).map(lambda n: '{"metadata": {"duration_seconds": ' + str(n) + "}}"),
)


@st.composite
def codex_records(draw: st.DrawFn) -> dict[str, Any]:
    """One Codex rollout line as a dict: session metas (some naming a fork parent), turn
    contexts with dated and undated turn ids, call and output items (odd ones too),
    other items and envelopes, bad payloads and times."""
    kind = draw(st.sampled_from(
        ["response_item"] * 6 + ["session_meta", "turn_context", "turn_context", "event_msg",
                                 "compacted", *ODD_TYPES]))
    record: dict[str, Any] = {"type": kind}
    if draw(st.integers(0, 19)) == 0:
        record["type"] = draw(JSON_SCALARS)
    if draw(st.integers(0, 9)) > 0:
        record["timestamp"] = draw(trace_times())
    payload: dict[str, Any] = {}
    if kind == "session_meta":
        payload["id"] = draw(st.sampled_from(
            [_uuid7(_CODEX_CREATED_MS, "9"), "s1", "", "s\x1b", 7]))
        if draw(st.booleans()):
            payload["forked_from_id"] = draw(st.sampled_from(["p1", "", None]))
        payload["timestamp"] = "2025-03-01T10:00:05Z"
    elif kind == "turn_context":
        payload["turn_id"] = draw(CODEX_TURN_IDS)
    else:
        payload["type"] = draw(st.sampled_from(
            ["function_call", "function_call_output", "custom_tool_call",
             "custom_tool_call_output", "local_shell_call", "tool_search_call",
             "tool_search_output", "message", "reasoning", "web_search_call", 5]))
        if draw(st.integers(0, 5)) > 0:
            payload["call_id"] = draw(TRACE_IDS)
        payload["name"] = draw(st.sampled_from(["shell", "exec", "wait", "search", "", None,
                                                "eval", "é\u202e", "\ud800", "mcp__notes__x"]))
        if draw(st.integers(0, 3)) == 0:
            payload["namespace"] = draw(st.sampled_from(["mcp__notes", "functions", "mcp__",
                                                         "mcp__\udc00", None, 3, "other"]))
        if draw(st.integers(0, 3)) == 0:
            payload["execution"] = draw(st.sampled_from(["server", "client", None]))
        if draw(st.booleans()):
            payload["output"] = draw(CODEX_OUTPUTS)
    if draw(st.integers(0, 14)) > 0:
        record["payload"] = payload
    else:
        record["payload"] = draw(JSON_SCALARS)
    return record


@st.composite
def codex_calls(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A well-formed Codex call: a call item and its output item (same ``call_id``), the
    output at or after it; equal times with an embedded duration are batched writes."""
    call_id = draw(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]))
    start = draw(st.integers(0, 30))
    end = start + draw(st.sampled_from([0, 0, 1, 2, 3, 5, 8]))
    kind = draw(st.sampled_from(["function_call", "custom_tool_call", "local_shell_call"]))
    output = "function_call_output" if kind != "custom_tool_call" else "custom_tool_call_output"
    seconds = draw(st.sampled_from([0.5, 1.25, 3, 100]))
    name = draw(st.sampled_from(["shell", "exec", "apply_patch", "read_file"]))
    fraction = draw(st.sampled_from([".000", ".000", ".5", ".123456789"]))
    text = json.dumps({"output": "", "metadata": {"duration_seconds": seconds}})
    return (
        {"timestamp": f"2025-03-01T10:00:{start:02d}{fraction}Z", "type": "response_item",
         "payload": {"type": kind, "call_id": call_id, "name": name, "arguments": "{}"}},
        {"timestamp": f"2025-03-01T10:00:{min(end, 59):02d}{fraction}Z", "type": "response_item",
         "payload": {"type": output, "call_id": call_id,
                     "output": draw(st.one_of(st.just(text), st.just(text), CODEX_OUTPUTS))}},
    )


#: Times either side of pi's switch to parallel calls (2026-03-14T02:09:20Z, v0.58.0):
#: seconds 0-30 of that minute, or of a day long before it.
PI_MINUTES = ["2025-03-01T10:00:", "2026-03-14T02:09:"]


@st.composite
def pi_records(draw: st.DrawFn) -> dict[str, Any]:
    """One pi session line as a dict: session headers (some naming a parent by file name
    or session id, with format versions of every JSON type), assistant messages with
    ``toolCall`` blocks (odd ones too), tool results, other messages and entries with
    repeating entry ids, bad payloads and times (some either side of the cut-off)."""
    kind = draw(st.sampled_from(
        ["message"] * 6 + ["session", "model_change", "thinking_level_change", *ODD_TYPES]))
    record: dict[str, Any] = {"type": kind}
    if draw(st.integers(0, 19)) == 0:
        record["type"] = draw(JSON_SCALARS)
    if draw(st.integers(0, 9)) > 0:
        if draw(st.integers(0, 2)) == 0:
            minute = draw(st.sampled_from(PI_MINUTES))
            record["timestamp"] = f"{minute}{draw(_SECOND):02d}.000Z"
        else:
            record["timestamp"] = draw(trace_times())
    if draw(st.integers(0, 3)) > 0:
        record["id"] = draw(st.sampled_from(["e1", "e2", "e3", "a0b1c2d3", "", 7]))
    if kind == "session":
        record["id"] = draw(st.sampled_from(["p1", "p2", "", "p\x1b", 5]))
        if draw(st.integers(0, 2)) > 0:
            record["version"] = draw(st.sampled_from([3, 3, 3, 2, 1, 3.0, True, "3", 4, -1,
                                                      10**20]))
        if draw(st.integers(0, 2)) == 0:
            key = draw(st.sampled_from(["parentSession", "parentSession", "branchedFrom"]))
            record[key] = draw(st.sampled_from(
                ["parent.jsonl", "/home/u/.pi/sessions/x/parent.jsonl", "C:\\s\\child.jsonl",
                 "p0", "p1", "p2", "", 5]))
    elif kind == "message":
        role = draw(st.sampled_from(["assistant", "assistant", "toolResult", "toolResult",
                                     "user", "bashExecution", 5]))
        block = st.fixed_dictionaries({
            "type": st.sampled_from(["toolCall", "toolCall", "text"]),
            "id": TRACE_IDS, "name": st.sampled_from(["read", "bash", "", None])})
        message: dict[str, Any] = {"role": role}
        if role == "assistant":
            message["content"] = draw(st.one_of(st.lists(block, max_size=3), JSON_SCALARS))
        elif role == "toolResult":
            message["toolCallId"] = draw(TRACE_IDS)
        record["message"] = draw(st.sampled_from([message] * 9 + ["hi"]))
    return record


@st.composite
def pi_calls(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A well-formed pi call: an assistant message with one to three ``toolCall`` blocks
    (a sequential message's chain when pi ran them one after another) and the
    ``toolResult`` message of the first, at or after it, in a minute either side of
    pi's switch to parallel calls or long before it."""
    call_id = draw(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]))
    start = draw(st.integers(0, 30))
    end = start + draw(st.sampled_from([0, 0, 1, 2, 3, 5, 8]))
    minute = draw(st.sampled_from(PI_MINUTES))
    blocks = [{"type": "toolCall", "id": call_id, "name": draw(st.sampled_from(
        ["read", "bash", "edit"])), "arguments": {}}]
    for suffix in ("2", "3")[:draw(st.sampled_from([0, 0, 1, 2]))]:
        blocks.append({"type": "toolCall", "id": call_id + suffix, "name": "read"})
    entry = draw(st.sampled_from(["m1", "m2", "m3", "m4"]))
    return (
        {"type": "message", "id": entry, "timestamp": f"{minute}{start:02d}.000Z",
         "message": {"role": "assistant", "content": blocks}},
        {"type": "message", "id": entry + "r", "timestamp": f"{minute}{min(end, 59):02d}.000Z",
         "message": {"role": "toolResult", "toolCallId": call_id, "content": []}},
    )


#: ``agentId`` values of generated Copilot events: lanes, and ids that are ``invalid_id``.
COPILOT_AGENTS = st.sampled_from(["sub-1", "sub-1", "sub-2", "", "s\x1b", "\ud800", 7, None])


@st.composite
def copilot_records(draw: st.DrawFn) -> dict[str, Any]:
    """One Copilot CLI event as a dict: tool events (odd ones too), session starts (some
    without a usable ``sessionId``), ``assistant.message`` events requesting calls by
    ``apiCallId`` or ``messageId``, other events, odd ``data`` and times."""
    kind = draw(st.sampled_from(
        ["tool.execution_start"] * 4 + ["tool.execution_complete"] * 4 + [
            "assistant.message", "assistant.message", "session.start", "user.message",
            "subagent.started", "tool.execution_partial_result", *ODD_TYPES]))
    record: dict[str, Any] = {"id": "e", "parentId": None, "type": kind}
    if draw(st.integers(0, 19)) == 0:
        record["type"] = draw(JSON_SCALARS)
    if draw(st.integers(0, 9)) > 0:
        record["timestamp"] = draw(trace_times())
    if draw(st.integers(0, 4)) == 0:
        record["agentId"] = draw(COPILOT_AGENTS)
    data: dict[str, Any] = {}
    if kind == "session.start":
        data["sessionId"] = draw(st.sampled_from(["s1", "s2", "", "s\x1b", "\ud800", 5, None]))
    elif kind == "assistant.message":
        for key in ("apiCallId", "messageId"):
            if draw(st.booleans()):
                data[key] = draw(st.sampled_from(["k1", "k1", "k2", "", "k\x1b", 3]))
        data["toolRequests"] = draw(st.one_of(
            st.lists(st.one_of(st.fixed_dictionaries({"toolCallId": TRACE_IDS}),
                               JSON_SCALARS), max_size=3),
            JSON_SCALARS))
    else:
        if draw(st.integers(0, 5)) > 0:
            data["toolCallId"] = draw(TRACE_IDS)
        if draw(st.integers(0, 5)) > 0:
            data["toolName"] = draw(st.sampled_from(["bash", "view", "", "\ud800", None, 4]))
    record["data"] = data if draw(st.integers(0, 14)) > 0 else draw(JSON_SCALARS)
    return record


@st.composite
def copilot_calls(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A well-formed Copilot call: its ``tool.execution_start`` and
    ``tool.execution_complete`` (same ``toolCallId``, same lane), the end at or after the
    start; an ``assistant.message`` may have requested it (its batch)."""
    call_id = draw(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]))
    start = draw(st.integers(0, 30))
    end = start + draw(st.sampled_from([0, 0, 1, 2, 3, 5, 8]))
    fraction = draw(st.sampled_from([".000", ".000", ".5", ".123456789"]))
    lane: dict[str, Any] = {}
    if draw(st.integers(0, 3)) == 0:
        lane["agentId"] = draw(st.sampled_from(["sub-1", "sub-2"]))
    name = draw(st.sampled_from(["bash", "view", "grep", "eval", "task"]))
    return (
        {"id": "s", "parentId": None, "type": "tool.execution_start", **lane,
         "timestamp": f"2025-03-01T10:00:{start:02d}{fraction}Z",
         "data": {"toolCallId": call_id, "toolName": name, "arguments": {"x": 1}}},
        {"id": "c", "parentId": "s", "type": "tool.execution_complete", **lane,
         "timestamp": f"2025-03-01T10:00:{min(end, 59):02d}{fraction}Z",
         "data": {"toolCallId": call_id, "success": True, "result": {"content": "ok"}}},
    )


#: Seconds of generated Kimi records: floats and ints near 2025-03-01T10:00Z, and values
#: that are no time (negative, overflowing ms, a bool, text, an int too large for a float).
KIMI_SECONDS = st.one_of(
    st.integers(0, 40).map(lambda n: 1_740_823_200 + n),
    st.integers(0, 400).map(lambda n: 1_740_823_200 + n / 8),
    st.sampled_from([-1, -0.0, 0, True, 1e306, 1.7e308, 2**1100, "12", None, 1e-320]),
)


@st.composite
def kimi_records(draw: st.DrawFn) -> dict[str, Any]:
    """One Kimi CLI wire record as a dict: metadata headers (some without a usable
    ``protocol_version``), ``ToolCall`` and ``ToolResult`` records (odd ones too), step
    openers, sub-agent events and other messages, odd ``message`` and ``payload`` values."""
    if draw(st.integers(0, 9)) == 0:
        record: dict[str, Any] = {"type": draw(st.sampled_from(["metadata", "metadata", "x"])),
                                  "protocol_version": draw(st.sampled_from(["1.4", "", 1]))}
        if draw(st.integers(0, 9)) == 0:
            record["type"] = draw(JSON_SCALARS)
        return record
    kind = draw(st.sampled_from(
        ["ToolCall"] * 4 + ["ToolResult"] * 4 + ["StepBegin", "StepBegin", "StepRetry",
                                                 "SubagentEvent", "TurnBegin", *ODD_TYPES]))
    payload: dict[str, Any] = {}
    if kind == "ToolCall":
        payload["type"] = draw(st.sampled_from(["function", "function", "function", "x", None]))
        if draw(st.integers(0, 5)) > 0:
            payload["id"] = draw(TRACE_IDS)
        function: Any = {"name": draw(st.sampled_from(["Shell", "ReadFile", "", "\ud800", 4])),
                         "arguments": "{}"}
        payload["function"] = function if draw(st.integers(0, 7)) > 0 else draw(JSON_SCALARS)
    elif kind == "ToolResult":
        if draw(st.integers(0, 5)) > 0:
            payload["tool_call_id"] = draw(TRACE_IDS)
        payload["return_value"] = {"output": "ok"}
    message: Any = {"type": kind, "payload": payload}
    if draw(st.integers(0, 14)) == 0:
        message["payload"] = draw(JSON_SCALARS)
    if draw(st.integers(0, 19)) == 0:
        message["type"] = draw(JSON_SCALARS)
    if draw(st.integers(0, 19)) == 0:
        message = draw(JSON_SCALARS)
    record = {"timestamp": draw(KIMI_SECONDS), "message": message}
    if draw(st.integers(0, 9)) == 0:
        del record["timestamp"]
    return record


@st.composite
def kimi_calls(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A well-formed Kimi call: its ``ToolCall`` and ``ToolResult`` records (same id), the
    result at or after the call, seconds as ints or floats."""
    call_id = draw(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]))
    start = 1_740_823_200 + draw(st.integers(0, 30))
    end = start + draw(st.sampled_from([0, 0, 1, 2, 3, 5, 8]))
    fraction = draw(st.sampled_from([0, 0, 0.5, 0.123456]))
    name = draw(st.sampled_from(["Shell", "ReadFile", "Grep", "eval", "Task"]))
    return (
        {"timestamp": start + fraction, "message": {"type": "ToolCall", "payload": {
            "type": "function", "id": call_id,
            "function": {"name": name, "arguments": "{}"}}}},
        {"timestamp": end + fraction, "message": {"type": "ToolResult", "payload": {
            "tool_call_id": call_id, "return_value": {"output": "ok"}}}},
    )


#: mcode ``timestampMs`` values: ints near one moment (equal ones common), and what
#: ``_ms`` refuses or barely takes: a float, text, a negative int, an int too large for
#: a float, ints whose turn lengths overflow a float's total, 0.
MCODE_TIMES = st.one_of(
    st.integers(1_740_823_200_000, 1_740_823_200_040),
    st.integers(1_740_823_200_000, 1_740_823_200_040),
    st.sampled_from([1_740_823_200_000.5, "1740823200000", -1, None, True, 10**400, 0,
                     int(1.7e308), 2**63, 2**64 + 1]),
)
#: mcode ``toolCall.status`` values: the numbers 1-5 and their string spellings (started
#: and ended twice as often as the rest), and what no rule names.
MCODE_STATUSES = st.sampled_from(
    [1, 1, 1, 1, 2, 2, 2, 3, 4, 5, "started", "running", "completed", "finished", "failed",
     "error", 0, 6, "pending", "1", 1.0, True, None, 2**70])
#: ``exec.completed`` ``result.status`` values: short identifiers (more than the eight
#: kept), ones that are no identifier, non-strings.
MCODE_RUN_STATUSES = st.sampled_from(
    ["completed", "completed", "failed", "cancelled", "timeout", "s1", "s2", "s3", "s4", "s5",
     "s6", "other", "Completed", "a" * 32, "a" * 33, "9x", "", "\ud800", "ok\n", 0, None])


@st.composite
def mcode_items(draw: st.DrawFn) -> Any:
    """An mcode ``item``: mostly a ``tool_call`` (a few call ids, its ``toolCall`` with the
    same id, another, none or null, a name, a status), else an agent message, reasoning, an
    odd type, or no object at all."""
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return draw(JSON_SCALARS)
    if kind <= 2:
        item_type: Any = draw(st.sampled_from(["agent_message", "reasoning", "file_change",
                                               *ODD_TYPES, 7, ["tool_call"], {"a": 1}]))
        return {"id": "m1:message", "type": item_type, "content": "text"}
    call_id: Any = draw(st.sampled_from(["c1", "c1", "c2", "c3", "c4", "c5"]))
    if draw(st.integers(0, 9)) == 0:
        call_id = draw(TRACE_IDS)
    tool_call: Any = {"name": draw(st.sampled_from(["bash", "read", "eval", "grep", "bash"])),
                      "status": draw(MCODE_STATUSES), "input": {"command": "ls"}}
    own = draw(st.integers(0, 9))
    if own < 7:
        tool_call["id"] = call_id
    elif own == 7:
        tool_call["id"] = draw(st.sampled_from(["other", None, 5]))
    if draw(st.integers(0, 14)) == 0:
        tool_call["name"] = draw(st.sampled_from(["", "\ud800", 4, None]))
    if draw(st.integers(0, 14)) == 0:
        tool_call = draw(JSON_SCALARS)
    item: dict[str, Any] = {"id": call_id, "type": "tool_call", "toolCall": tool_call}
    if draw(st.integers(0, 19)) == 0:
        del item["toolCall"]
    return item


@st.composite
def mcode_files(draw: st.DrawFn) -> bytes:
    """A whole mcode stream: one to four runs (a few run, session and turn ids, so runs
    share sessions), each a run of events whose ``sequence`` mostly counts up by one, with
    gaps, repeats, restarts at 1, foreign lines, broken envelopes, lines after and terminals
    after ``exec.completed``, bursts of ``item.completed``, turns; bad lines among them,
    sometimes a BOM first and a cut last line."""
    lines: list[bytes] = []
    for _ in range(draw(st.integers(1, 4))):
        ids = {"runId": draw(st.sampled_from(["exec_1", "exec_2", "exec_3"])),
               "sessionId": draw(st.sampled_from(["mvs_1", "mvs_1", "mvs_2", "mvs_3"])),
               "turnId": draw(st.sampled_from(["t1", "t2"]))}
        sequence = draw(st.sampled_from([1, 1, 1, 1, 2, 5, 2**53 - 1]))
        for _ in range(draw(st.integers(0, 30))):
            kind = draw(st.sampled_from(
                ["item.updated"] * 5 + ["item.started"] * 2 + ["item.completed"] * 4
                + ["turn.started", "turn.completed", "turn.failed", "exec.started",
                   "session.started", "session.resumed", "exec.completed", "brand.new"]))
            record: dict[str, Any] = {"schemaVersion": 1, "sequence": sequence,
                                      "timestampMs": draw(MCODE_TIMES), **ids, "type": kind}
            if kind.startswith("item."):
                record["item"] = draw(mcode_items())
            elif kind == "exec.completed":
                result: Any = {"status": draw(MCODE_RUN_STATUSES)}
                record["result"] = result if draw(st.integers(0, 9)) else draw(JSON_SCALARS)
            odd = draw(st.integers(0, 24))
            if odd == 0:
                record["schemaVersion"] = draw(st.sampled_from([2, "1", 1.0, None, True]))
            elif odd == 1:
                record["sequence"] = draw(st.sampled_from(
                    [0, -1, "3", 1.5, True, None, 2**53, 2**64]))
            elif odd == 2:
                record[draw(st.sampled_from(["runId", "sessionId", "turnId"]))] = draw(
                    st.sampled_from(["", None, 7, "a\x1b[2J", "\ud800", "exec_9"]))
            elif odd == 3:
                record["type"] = draw(st.sampled_from([None, 7, ["x"], *ODD_TYPES]))
            elif odd == 4:
                del record["timestampMs"]
            lines.append(json.dumps(record).encode() + b"\n")
            if draw(st.integers(0, 14)) == 0:
                lines.append(draw(BAD_LINES))
            step = draw(st.integers(0, 19))
            sequence += 1 if step > 3 else (0, -1, 2, 40)[step]
            sequence = max(sequence, 0)
    data = b"".join(lines)
    if draw(st.integers(0, 5)) == 0:
        data = b"\xef\xbb\xbf" + data
    if data and draw(st.integers(0, 6)) == 0:
        data = data[: draw(st.integers(1, len(data)))]
    return data


#: OTLP trace ids: a few valid ones (upper case too: the same trace), wrong lengths,
#: non-hex, escapes, non-strings.
OTLP_TRACE_IDS = st.sampled_from([
    "0af7651916cd43dd8448eb211c80319c", "0af7651916cd43dd8448eb211c80319c",
    "0AF7651916CD43DD8448EB211C80319C", "5b8efff798038103d269b633813fc60c",
    "5b8efff798038103d269b633813fc60", "5b8efff798038103d269b633813fc60g", "", None, 7,
    "\u0660" * 32,
])
#: OTLP span ids: a small pool (parents, duplicates, cycles), bad spellings.
OTLP_SPAN_IDS = st.sampled_from([
    "00000000000000a0", "00000000000000a1", "00000000000000A2", "00000000000000a3",
    "00000000000000a4", "00000000000000a5", "00000000000000a6", "00000000000000a7",
    "00000000000000a", "zz000000000000a0", "", 16,
])
#: ns times: decimal strings and JSON ints in a small window (equal times are common), and
#: invalid ones: 0, negative, floats, past 2**64 - 1, 21 digits, bools, padded strings.
OTLP_NS = st.one_of(
    st.integers(0, 40).map(lambda n: str(1_767_225_600_000_000_000 + n * 50_000_000)),
    st.integers(0, 40).map(lambda n: 1_767_225_600_000_000_000 + n * 50_000_000),
    st.integers(0, 10**6).map(lambda n: str(1_751_247_501_952_174_001 + n)),
    st.sampled_from([0, "0", -5, "-5", 1.5e18, "1.5e18", 2**64 - 1, 2**64, str(2**64),
                     "0" * 21, "00001", True, None, " 1", "\u0661", 10**30, 1]),
)
OTLP_OPERATIONS = st.sampled_from(["execute_tool"] * 4 + ["invoke_agent", "invoke_agent",
                                                            "chat", None, 3, ""])
OTLP_NAMES = st.sampled_from(["execute_tool read", "execute_tool grep", "execute_tool ",
                              "read", "claude_code.tool", "claude_code.tool.execution",
                              "chat", "", "\ud800", 5, None])
#: Attribute values: ids and names that repeat, hostile ids, non-strings.
OTLP_VALUES = st.one_of(
    st.sampled_from(["conv-1", "conv-2", "call_1", "call_2", "read", "grep", "eval", "agent-a",
                     "tool", ""]),
    BAD_TRACE_IDS, st.sampled_from([None, 4, ["x"]]),
)
OTLP_KEYS = st.sampled_from([
    "gen_ai.tool.call.id", "gen_ai.tool.name", "gen_ai.conversation.id", "session.id",
    "gen_ai.agent.id", "gen_ai.agent.name", "span.type", "tool_name", "tool_use_id",
    "service.name", "gen_ai.operation.name",
])


@st.composite
def _otlp_attributes(draw: st.DrawFn, operation: bool = True) -> Any:
    """An OTLP attribute list: ``{"key", "value": {"stringValue"}}`` entries (a wanted key
    repeated: the first wins), odd entries and values now and then."""
    entries: list[Any] = []
    if operation and draw(st.integers(0, 5)) > 0:
        entries.append({"key": "gen_ai.operation.name",
                        "value": {"stringValue": draw(OTLP_OPERATIONS)}})
    for _ in range(draw(st.integers(0, 4))):
        value: Any = {"stringValue": draw(OTLP_VALUES)}
        roll = draw(st.integers(0, 11))
        if roll == 0:
            value = {"intValue": "3"}
        elif roll == 1:
            value = draw(JSON_SCALARS)
        entry: Any = {"key": draw(OTLP_KEYS), "value": value}
        if draw(st.integers(0, 14)) == 0:
            entry = draw(JSON_SCALARS)
        entries.append(entry)
    if draw(st.booleans()):
        entries.reverse()
    return entries if draw(st.integers(0, 14)) > 0 else draw(JSON_SCALARS)


@st.composite
def otlp_spans(draw: st.DrawFn) -> Any:
    """One OTLP span: ids from small pools (parents found, duplicates, cycles), times valid
    or not, an ``execute_tool``/``invoke_agent``/Claude Code/other span; odd values now and
    then, sometimes not an object at all."""
    if draw(st.integers(0, 24)) == 0:
        return draw(JSON_SCALARS)
    span: dict[str, Any] = {
        "traceId": draw(OTLP_TRACE_IDS) if draw(st.integers(0, 5)) == 0
        else "0af7651916cd43dd8448eb211c80319c",
        "spanId": draw(OTLP_SPAN_IDS),
        "name": draw(OTLP_NAMES),
        "startTimeUnixNano": draw(OTLP_NS),
        "endTimeUnixNano": draw(OTLP_NS),
        "attributes": draw(_otlp_attributes()),
    }
    if draw(st.integers(0, 2)) > 0:
        span["parentSpanId"] = draw(OTLP_SPAN_IDS)
    for key in ("endTimeUnixNano", "startTimeUnixNano", "name", "traceId"):
        if draw(st.integers(0, 11)) == 0:
            del span[key]
    return span


@st.composite
def otlp_records(draw: st.DrawFn) -> dict[str, Any]:
    """One OTLP/JSON document (a line of the collector's file exporter): batches of scopes
    of spans, a resource with or without a session attribute, the older
    ``instrumentationLibrarySpans``, malformed containers, other signals, odd objects."""
    roll = draw(st.integers(0, 19))
    if roll == 0:
        return {draw(st.sampled_from(["resourceLogs", "resourceMetrics", "resourceProfiles",
                                      "x"])): []}
    if roll == 1:
        return {"resourceSpans": draw(JSON_SCALARS)}
    batches: list[Any] = []
    for _ in range(draw(st.integers(0, 2))):
        if draw(st.integers(0, 14)) == 0:
            batches.append(draw(JSON_SCALARS))
            continue
        scopes: list[Any] = []
        for _ in range(draw(st.integers(0, 2))):
            spans: Any = draw(st.lists(otlp_spans(), max_size=4))
            if draw(st.integers(0, 14)) == 0:
                spans = draw(JSON_SCALARS)
            scope: Any = {"scope": {"name": "s"}, "spans": spans}
            if draw(st.integers(0, 14)) == 0:
                scope = draw(JSON_SCALARS)
            scopes.append(scope)
        batch: dict[str, Any] = {draw(st.sampled_from(
            ["scopeSpans"] * 5 + ["instrumentationLibrarySpans"])): scopes}
        if draw(st.booleans()):
            batch["resource"] = {"attributes": draw(_otlp_attributes(operation=False))}
        batches.append(batch)
    return {"resourceSpans": batches}


@st.composite
def otlp_calls(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A well-formed OTLP call over two lines: an ``invoke_agent`` (or ``chat``) parent span,
    then the ``execute_tool`` span below it, its end at or after its start, sometimes with
    a copy of it below it (an MCP span: same tool name, times shifted or not)."""
    trace = draw(st.sampled_from(["0af7651916cd43dd8448eb211c80319c",
                                  "5b8efff798038103d269b633813fc60c"]))
    parent = draw(st.sampled_from(["00000000000000b0", "00000000000000b1"]))
    start = 1_767_225_600_000_000_000 + draw(st.integers(0, 30)) * 100_000_000
    end = start + draw(st.sampled_from([0, 1, 50_000_000, 100_000_000, 400_000_000]))
    tool = draw(st.sampled_from(["read", "grep", "bash", "eval"]))

    def attributes(values: dict[str, str]) -> list[dict[str, Any]]:
        return [{"key": k, "value": {"stringValue": v}} for k, v in values.items()]

    def line(span: dict[str, Any]) -> dict[str, Any]:
        return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}

    agent = {"traceId": trace, "spanId": parent, "name": "invoke_agent a",
             "startTimeUnixNano": str(start - 1), "endTimeUnixNano": str(end + 1),
             "attributes": attributes({
                 "gen_ai.operation.name": draw(st.sampled_from(["invoke_agent", "chat"])),
                 "gen_ai.conversation.id": draw(st.sampled_from(["conv-1", "conv-2"])),
                 "gen_ai.agent.name": draw(st.sampled_from(["planner", "worker"]))})}
    call = {"traceId": trace, "spanId": f"00000000000000c{draw(st.integers(0, 9))}",
            "parentSpanId": parent, "name": "execute_tool x",
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
            "attributes": attributes({
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool,
                "gen_ai.tool.call.id": draw(st.sampled_from(["c1", "c2", "c3", "c4"]))})}
    if draw(st.integers(0, 2)) == 0:
        # an MCP-style copy below the call (same tool name, no call id): equal length,
        # shifted, the deeper one wins; or shorter, or longer
        shift = draw(st.sampled_from([0, 10_000_000, -10_000_000]))
        longer = draw(st.sampled_from([0, 0, 5_000_000, -5_000_000]))
        copy = {**call, "spanId": f"00000000000000d{draw(st.integers(0, 9))}",
                "parentSpanId": call["spanId"],
                "startTimeUnixNano": str(start + shift),
                "endTimeUnixNano": str(end + shift + longer),
                "attributes": attributes({"gen_ai.operation.name": "execute_tool",
                                          "gen_ai.tool.name": tool})}
        spans = [copy, call] if draw(st.booleans()) else [call, copy]
        return line(agent), {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    return line(agent), line(call)


#: Lines no reader can use: blank, invalid JSON, not an object, not UTF-8, a NaN.
BAD_LINES = st.sampled_from([
    b"\n", b"   \t\n", b"\x0c\n", b"{\n", b"[1, 2]\n", b'"text"\n', b"\xff\xfe{}\n",
    b'{"type": NaN}\n', b'{"type": "user"} trailing\n', b"{}\n", b'{"type":"a\x01"}\n',
    b"\r\n", b'{"type": "user", "uuid": "u"}\r\r\n',
])


@st.composite
def otlp_documents(draw: st.DrawFn) -> bytes:
    """A file of whole OTLP/JSON documents: odd records and well-formed calls, one
    pretty-printed document each (``indent=0`` puts nested values in the first column),
    or all batches in one document, or all documents in one top-level array; now and
    then a document of other signals, a BOM, stray text, a cut end."""
    records: list[Any] = draw(st.lists(otlp_records(), max_size=3))
    for use, result in draw(st.lists(otlp_calls(), max_size=3)):
        records.insert(draw(st.integers(0, len(records))), use)
        records.append(result)
    shape = draw(st.sampled_from(["several", "merged", "array"]))
    if shape == "merged":
        batches = [batch for record in records
                   if isinstance(record.get("resourceSpans"), list)
                   for batch in record["resourceSpans"]]
        records = [{"resourceSpans": batches, "schemaUrl": ""}]
    elif shape == "array":
        records = [records]
    indent = draw(st.sampled_from([2, 0, 1, None]))
    separator = draw(st.sampled_from([b"\n", b"\n", b"\n\x0c\n", b" ", b"\n1\n"]))
    data = separator.join(json.dumps(record, indent=indent).encode() for record in records)
    data = b"{\n" + data[1:] if data.startswith(b"{") else data  # never a line on its own
    if draw(st.integers(0, 9)) == 0:
        data = b"\xef\xbb\xbf" + data
    if data and draw(st.integers(0, 9)) == 0:
        data = data[: draw(st.integers(1, len(data)))]
    return data + b"\n"


def trace_lines(records: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[bytes]:
    """A record as one JSON line (ASCII-escaped or raw UTF-8, keys sometimes duplicated),
    or a bad line."""

    def encode(record: dict[str, Any], raw_utf8: bool, duplicate: bool) -> bytes:
        text = json.dumps(record, ensure_ascii=not raw_utf8)
        try:
            line = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: only its escape is valid JSON
            line = json.dumps(record).encode()
        if duplicate and record:
            key = next(iter(record))
            line = b"{" + json.dumps(key).encode() + b':"decoy",' + line[1:]
        return line + b"\n"

    as_json = st.builds(encode, records, st.booleans(), st.integers(0, 7).map(lambda n: n == 0))
    return st.one_of(*[as_json] * 12, BAD_LINES)


@st.composite
def claude_calls(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A well-formed call: an assistant tool_use line and the user tool_result line of the
    same id in the same lane, the result at or after the call (equal times are common);
    the tool_use line's ``message.id`` (its batch) is one of a few shared keys, or absent."""
    call_id = draw(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]))
    start = draw(st.integers(0, 30))
    end = start + draw(st.sampled_from([0, 0, 1, 2, 3, 5, 8]))
    fraction = draw(st.sampled_from(["", ".5", ".250", ".123456789"]))
    lane: dict[str, Any] = {"sessionId": "s1"}
    if draw(st.integers(0, 4)) == 0:
        lane["agentId"] = draw(st.sampled_from(["agent-1", "agent-2"]))
    name = draw(st.sampled_from(["Read", "Grep", "Bash", "eval", "code-mode"]))
    message: dict[str, Any] = {"content": [{"type": "tool_use", "id": call_id, "name": name,
                                            "input": {"x": 1}}]}
    batch = draw(st.sampled_from(["msg_1", "msg_1", "msg_2", "msg_3", "msg_4", None]))
    if batch is not None:  # calls of one response share it; none: no batch
        message["id"] = batch
    use = {"type": "assistant", "uuid": draw(st.uuids()).hex, **lane,
           "timestamp": f"2025-03-01T10:00:{start:02d}{fraction}Z", "message": message}
    result = {"type": "user", "uuid": str(draw(st.uuids())), **lane,
              "timestamp": f"2025-03-01T10:00:{min(end, 59):02d}{fraction}Z",
              "message": {"content": [{"type": "tool_result", "tool_use_id": call_id,
                                       "content": "ok"}]}}
    return use, result


@st.composite
def event_calls(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A well-formed events call (or turn): a start and its end at or after it, in one lane."""
    call_id = draw(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]))
    start = 1_740_823_200_000 + draw(st.integers(0, 40))
    end = start + draw(st.sampled_from([0, 0, 1, 2, 3, 5, 8]))
    if draw(st.booleans()):
        start, end = start + 0.5, end + 0.5
    lane: dict[str, Any] = {}
    if draw(st.integers(0, 3)) == 0:
        lane["agentId"] = "sub"
    if draw(st.integers(0, 4)) == 0:  # a turn: its duration is summed when positive
        if draw(st.integers(0, 3)) == 0:  # two of these overflow the total: turn_total_overflow
            start, end = draw(st.sampled_from([(0, 1.7976931348623157e308), (1, 1e308)]))
        return ({"type": "turn_start", "timestamp": start, **lane},
                {"type": "turn_end", "timestamp": end, **lane})
    name = draw(st.sampled_from(["read", "grep", "bash", "eval", "Code-Mode"]))
    return (
        {"type": "tool_execution_start", "toolCallId": call_id, "toolName": name,
         "timestamp": start, **lane},
        {"type": "tool_execution_end", "toolCallId": call_id, "toolName": name,
         "timestamp": end, **lane},
    )


#: OTel SDK span ids (``otel-spans``): decimal ints and ``0x`` strings from a small pool
#: (the same id in both spellings), and bad ones: 0, negative, too wide, floats, bools,
#: bare hex, non-ASCII digits, hex past the width.
OTEL_TRACE_IDS = st.sampled_from([
    7, 7, "0x7", "0X0000000000000007", 8, "0x8", 0, -7, 2**128, 2**128 - 1, 7.0, True, "7",
    "0x", "0x" + "f" * 33, "0x" + "f" * 32, "0xg", "\u0660", None,
])
OTEL_SPAN_IDS = st.sampled_from([
    160, 161, 162, 163, "0xa0", "0xA1", "0x00000000000000a2", 164, 165, 2**64, 2**64 - 1,
    "0x" + "1" * 17, 0, -1, 1.5, "a0", False, None,
])
#: ``start_time``/``end_time``: ns ints and decimal strings in a small window, ISO-8601
#: strings with ``Z`` (the epoch itself is "unset"), and bad ones.
OTEL_TIMES = st.one_of(
    st.integers(0, 40).map(lambda n: 1_767_225_600_000_000_000 + n * 50_000_000),
    st.integers(0, 40).map(lambda n: str(1_767_225_600_000_000_000 + n * 50_000_000)),
    st.integers(0, 40).map(lambda n: f"2026-01-01T00:00:{n // 10:02d}.{n % 10}00000Z"),
    st.sampled_from([0, "0", -5, 1.5e18, 2**64, "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.5Z",
                     "2026-01-01T00:00:00", "2026-01-01T00:00:00+01:00", "\u0661", "\u00b2",
                     "", "x", True, None, [1]]),
)


@st.composite
def otel_span_dicts(draw: st.DrawFn) -> Any:
    """One SDK span dict (``ReadableSpan.to_json()`` or any-agent's): ids in either
    spelling, the parent as ``parent.span_id`` or ``parent_id``, flat attributes and
    resource attributes, times as ns ints, decimal strings or ISO strings; keys missing,
    null or odd now and then, sometimes not an object at all."""
    if draw(st.integers(0, 24)) == 0:
        return draw(JSON_SCALARS)
    attributes: dict[str, Any] = {}
    if draw(st.integers(0, 5)) > 0:
        attributes["gen_ai.operation.name"] = draw(OTLP_OPERATIONS)
    for _ in range(draw(st.integers(0, 4))):
        attributes[draw(OTLP_KEYS)] = draw(OTLP_VALUES)
    context: Any = {"trace_id": draw(OTEL_TRACE_IDS) if draw(st.integers(0, 5)) == 0 else 7,
                    "span_id": draw(OTEL_SPAN_IDS)}
    if draw(st.integers(0, 19)) == 0:
        context = draw(JSON_SCALARS)
    span: dict[str, Any] = {
        "name": draw(OTLP_NAMES), "context": context, "kind": "SpanKind.INTERNAL",
        "start_time": draw(OTEL_TIMES), "end_time": draw(OTEL_TIMES),
        "attributes": attributes if draw(st.integers(0, 14)) > 0 else draw(JSON_SCALARS),
        "status": {"status_code": "UNSET"}, "events": [], "links": [],
    }
    roll = draw(st.integers(0, 5))
    if roll < 3:
        span["parent"] = {"trace_id": 7, "span_id": draw(OTEL_SPAN_IDS)}
    elif roll < 5:
        span["parent_id"] = draw(OTEL_SPAN_IDS)
    else:
        span["parent"] = draw(JSON_SCALARS)
        span["parent_id"] = draw(OTEL_SPAN_IDS)
    if draw(st.booleans()):
        resource: dict[str, Any] = {}
        for _ in range(draw(st.integers(0, 2))):
            resource[draw(st.sampled_from(["session.id", "gen_ai.conversation.id",
                                           "service.name"]))] = draw(OTLP_VALUES)
        span["resource"] = {"attributes": resource, "schema_url": ""}
    for key in ("end_time", "start_time", "name", "context", "attributes"):
        if draw(st.integers(0, 11)) == 0:
            del span[key]
    if draw(st.integers(0, 9)) == 0:
        span["end_time"] = None
    return span


@st.composite
def otel_calls(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A well-formed SDK call: an ``invoke_agent`` (or ``chat``) span with a session, the
    ``execute_tool`` span below it, sometimes a copy of it below that (same tool name)."""
    parent = draw(st.sampled_from([176, 177]))
    start = 1_767_225_600_000_000_000 + draw(st.integers(0, 30)) * 100_000_000
    end = start + draw(st.sampled_from([0, 1, 50_000_000, 100_000_000, 400_000_000]))
    tool = draw(st.sampled_from(["read", "grep", "bash", "eval"]))
    agent = {"name": "invoke_agent a", "context": {"trace_id": 9, "span_id": parent},
             "start_time": start - 1, "end_time": end + 1,
             "attributes": {"gen_ai.operation.name": draw(st.sampled_from(["invoke_agent",
                                                                           "chat"])),
                            "gen_ai.conversation.id": draw(st.sampled_from(["c1", "c2"])),
                            "gen_ai.agent.name": draw(st.sampled_from(["planner", "worker"]))}}
    call_id = 192 + draw(st.integers(0, 9))
    call = {"name": "execute_tool x", "context": {"trace_id": "0x9", "span_id": hex(call_id)},
            "parent_id": parent, "start_time": str(start), "end_time": str(end),
            "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                           "gen_ai.tool.call.id": f"call_{call_id}"}}
    spans = [agent, call]
    if draw(st.integers(0, 3)) == 0:
        spans.append({**call, "context": {"trace_id": 9, "span_id": call_id + 32},
                      "parent": {"span_id": call_id}, "attributes": {
                          "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool}})
    return spans


@st.composite
def otel_files(draw: st.DrawFn) -> bytes:
    """A file of SDK span dicts in one of the four shapes (an any-agent ``{"spans": [...]}``
    document, a JSON array, dicts one after another pretty-printed, one per line), with
    several documents, empty and odd top-level values, whitespace-only lines (form feeds),
    stray text between documents, a BOM and a cut end now and then."""
    spans: list[Any] = []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.booleans()):
            spans.append(draw(otel_span_dicts()))
        else:
            spans.extend(draw(otel_calls()))
    shape = draw(st.sampled_from(["document", "array", "stream", "lines"]))
    indent = draw(st.sampled_from([None, 1, 2, 4]))
    values: list[Any] = []
    if shape == "lines":
        values = list(spans)
        indent = None
    elif shape == "stream":
        values = list(spans)
    else:
        at = draw(st.integers(0, len(spans)))
        parts = [spans[:at], spans[at:]] if draw(st.booleans()) else [spans]
        for part in parts:
            values.append({"spans": part, "final_output": "done"} if shape == "document"
                          else part)
    for _ in range(draw(st.integers(0, 2))):
        odd = draw(st.sampled_from([{}, [], {"spans": []}, {"spans": 3}, {"x": 1}, 5, "s",
                                    None, {"context": None}, {"spans": [1], "context": {}}]))
        values.insert(draw(st.integers(0, len(values))), odd)
    separators = [b"\n\n", b"\n\x0c\n", b" ", b"\nstray 1\n", b"\n]\n"]
    data = b""
    for value in values:
        if data:
            data += draw(st.sampled_from(separators)) if draw(st.integers(0, 5)) == 0 else b"\n"
        data += json.dumps(value, indent=indent).encode()
    data += b"\n"
    if draw(st.integers(0, 9)) == 0:
        data = b"\xef\xbb\xbf" + data
    if draw(st.integers(0, 9)) == 0:
        data = data[: draw(st.integers(1, len(data)))]
    return data


def trace_files(
    records: st.SearchStrategy[dict[str, Any]],
    calls: st.SearchStrategy[tuple[dict[str, Any], dict[str, Any]]],
) -> st.SearchStrategy[bytes]:
    """A whole file: well-formed calls (each end a few lines after its start) among odd
    records and bad lines, sometimes a BOM first, sometimes a last line cut short."""
    single = trace_lines(records)

    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        lines: list[bytes] = []
        for _ in range(draw(st.integers(0, 40))):
            if draw(st.booleans()):
                lines.append(draw(single))
                continue
            use, result = draw(calls)
            at = draw(st.integers(0, len(lines)))
            lines.insert(at, json.dumps(use).encode() + b"\n")
            later = draw(st.integers(at + 1, len(lines)))
            lines.insert(later, json.dumps(result).encode() + b"\n")
        data = b"".join(lines)
        if draw(st.integers(0, 5)) == 0:
            data = b"\xef\xbb\xbf" + data
        if data and draw(st.integers(0, 6)) == 0:
            data = data[: draw(st.integers(1, len(data)))]
        return data

    return build()


#: ``session_id`` values of generated OpenClaw store rows: sessions (a sub-agent's key
#: among them), the same text as a BLOB, bytes that are not UTF-8 (replaced when decoded:
#: the two blobs are one session), and values that are ``invalid_id`` (empty, a control
#: character, NULL, numbers).
OPENCLAW_SESSIONS = st.sampled_from(
    ["s1", "s1", "s1", "s2", "s2", "agent:main:subagent:x1", "\u00e9", "", "s\x1b", "s\x85",
     None, 7, 2.5, b"s1", b"s\xff", b"s\xfe"])


def openclaw_event(line: bytes) -> st.SearchStrategy[object]:
    """A generated line (with its newline) as a store row's ``event_json``: as written
    (its newline dropped, or kept, or CRs added), after a BOM, with a second line in the
    same row, as TEXT when it is UTF-8 and as a BLOB otherwise or by chance; or NULL,
    blank rows (empty, newlines alone: each a line), a number."""
    body = line.rstrip(b"\n")
    shapes = [body] * 6 + [line, body + b"\r\n\r", b"\xef\xbb\xbf" + body,
                           body + b"\n" + body, b"\n" + body]
    odd: list[object] = [None, b"", b"\n", b"\n\n", b"\n\n \n", b" \r", b"\x0b", 5]
    return st.one_of(st.sampled_from(shapes).flatmap(_text_or_blob), st.sampled_from(odd))


def _text_or_blob(data: bytes) -> st.SearchStrategy[object]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return st.just(data)
    return st.sampled_from([text, text, text, data])


@st.composite
def openclaw_rows(draw: st.DrawFn) -> list[tuple[object, int, object]]:
    """The rows ``(session_id, seq, event_json)`` of an OpenClaw store: pi session lines
    (:func:`pi_records`, bad lines among them) and well-formed pi calls (their result
    at a later or equal ``seq``) under a few sessions, ``seq`` values repeating (then
    ``rowid`` decides), rows of every shape :func:`openclaw_event` gives."""
    rows: list[tuple[object, int, object]] = []
    line = trace_lines(pi_records())
    for _ in range(draw(st.integers(0, 30))):
        session = draw(OPENCLAW_SESSIONS)
        if draw(st.booleans()):
            rows.append((session, draw(st.integers(0, 40)), draw(line.flatmap(openclaw_event))))
            continue
        use, result = draw(pi_calls())
        seq = draw(st.integers(0, 30))
        rows.append((session, seq, json.dumps(use)))
        rows.append((session, seq + draw(st.integers(0, 5)), json.dumps(result)))
    return rows


#: Bytes that break a JSON line in telling ways: structure, a string or escape
#: start, a raw control character, non-JSON whitespace (VT, a UTF-8 no-break
#: space), a lone surrogate escape, a cut escape, bad UTF-8, a newline, a huge number.
DAMAGE_BYTES = [b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b" ", b"\x01", b"\x0b",
                b"\xc2\xa0", b"u", b"0", b"e", b"-", b".", b"\\ud800", b"\\u00", b"\xff",
                b"\n", b"9" * 30, b"tru", b"null"]


@st.composite
def damaged(draw: st.DrawFn, data: st.SearchStrategy[bytes]) -> bytes:
    """``data`` with one to four random edits: a bit flipped, a byte replaced by or
    bytes inserted from :data:`DAMAGE_BYTES`, a short span deleted, or the rest cut."""
    out = bytearray(draw(data))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, max(len(out) - 1, 0)))
        kind = draw(st.sampled_from(["flip", "replace", "insert", "delete", "cut"]))
        piece = draw(st.sampled_from(DAMAGE_BYTES))
        if kind == "flip" and out:
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "replace":
            out[at:at + 1] = piece
        elif kind == "insert":
            out[at:at] = piece
        elif kind == "delete":
            del out[at:at + draw(st.integers(1, 8))]
        else:
            del out[at:]
    return bytes(out)


#: Summary settings both engines take: the call cap and the eval names.
engine_caps = st.sampled_from([2000, 2000, 0, 1, 2, 3])
engine_eval_names = st.sampled_from([("eval", "codemode", "code_mode"), ("read", " Bash "), ()])


# ------------------------------------------------------------ hostile values

#: Text an attacker puts in an id, a name or a type: terminal escapes, CR/LF that
#: would forge rows, C1, DEL, bidi overrides, lone surrogates, long and empty text.
HOSTILE_TEXT = st.one_of(
    st.text(max_size=12),
    st.text(alphabet=st.characters(codec="utf-8", categories=["Cc", "Cf", "Zl", "Zp"]),
            min_size=1, max_size=6),
    st.sampled_from([
        "\x1b[2J\x1b[H", "\x1b]8;;https://x\x07link\x1b]8;;\x07", "a\r\nwavemetrics: note: x",
        "\x00", "\x07", "\x9b31m", "\x7f", "ab\u202ecd", "\u2066x", "\ud800", "x\udcff",
        "x" * 5000, "", " ", "main", "2025-01-01T00:00:00.123456789012+05",
    ]),
)
#: Numbers that overflow or sit at the edges: huge integers, 1e308, negatives, zero.
HOSTILE_NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([10**400, -(10**400), 1e308, -1e308, 1.7976931348623157e308, 0, -1,
                     2**64, 2**64 - 1, 5e-324]),
    st.floats(allow_nan=False, allow_infinity=False),
)
#: Any JSON value a hostile trace may hold in any field.
HOSTILE_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), HOSTILE_NUMBERS, HOSTILE_TEXT),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(HOSTILE_TEXT, inner, max_size=3),
    max_leaves=6,
)


def json_paths(value: Any) -> list[tuple[Any, ...]]:
    """Every path (keys and indices) to a value inside a JSON value, the root excluded."""
    found: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, child in value.items():
            found += [(key,), *((key, *rest) for rest in json_paths(child))]
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += [(index,), *((index, *rest) for rest in json_paths(child))]
    return found


#: Long tool names that share their start and end as an MCP server's tools do
#: (``mcp__server__tool``), with control characters now and then: for the labels of
#: the ``--by tool`` table, which must tell any two apart.
mcp_like_tool_names = st.builds(
    lambda server, tool, tail: f"mcp__{server}__{tool}{tail}",
    st.text(alphabet="ab-_\x07", min_size=0, max_size=30),
    st.text(alphabet="ab_\x1b", min_size=0, max_size=30),
    st.sampled_from(["", "_pull_request", "_workflows"]),
)


# ----------------------------------------------------------------- folder trees

#: File names a generated tree uses: every trace suffix, the sidecar, other files, and
#: characters JSON escapes (quote, backslash, controls) or keeps (non-ASCII).
_TREE_FILE_NAMES = st.builds(
    lambda stem, suffix: stem + suffix,
    st.sampled_from(["a", "s1", "agent-1", "sé", 'q"t', "b\\s", "c\x01", "n\nl", "日本"]),
    st.sampled_from([".jsonl", ".json", ".jsonl.gz", ".json.gz", ".eval", ".traj",
                     ".meta.json", ".txt", ""]),
)
#: Folder names: ``subagents`` (a session's sub-agents), a session id that a file of
#: the same folder may share (``s1`` beside ``s1.jsonl``), odd characters.
_TREE_FOLDER_NAMES = st.sampled_from(["subagents", "s1", "p", "é", "t\tab"])
#: Where a generated link points (relative to its folder): a file or folder that may
#: exist, or nothing (a broken link).
_TREE_LINK_TARGETS = st.sampled_from(["a.jsonl", "s1", "subagents", "../a.jsonl", "gone"])

#: A folder tree: ``{name: entry}``, an entry ``"file"`` (its content a few bytes),
#: ``"fifo"``, ``("link", target)`` or a folder (a ``dict`` again).
folder_trees: st.SearchStrategy[dict[str, Any]] = st.recursive(
    st.dictionaries(_TREE_FILE_NAMES, st.sampled_from(["file", "file", "file", "fifo"]),
                    max_size=4),
    lambda inner: st.dictionaries(
        st.one_of(_TREE_FILE_NAMES, _TREE_FOLDER_NAMES),
        st.one_of(st.just("file"), st.tuples(st.just("link"), _TREE_LINK_TARGETS), inner),
        max_size=4),
    max_leaves=12,
)


#: Letters whose lower case differs between Unicode tables (cased in Unicode 16 or 17,
#: not in Python 3.11's 14.0: U+1C89, U+A7CB, U+A7DC, U+10D50, U+16EA0), their lower
#: cases in the newer tables, the sigmas (a final one lower-cases by context), the
#: Kelvin sign and dotted capital I (lower-cased to ASCII, or to two characters), some
#: letters of ``eval`` in both cases and the separators of the eval-name rule.
CASE_LETTERS = ("\u1c89\u1c8a\ua7cb\u0264\ua7dc\u019b\U00010d50\U00010d70\U00016ea0"
                "\U00016ebb\u03a3\u03c3\u03c2\u212a\u0130eEvVaAlLk_-:/ ")

#: Tool or eval names made of :data:`CASE_LETTERS`, never empty.
case_names = st.text(alphabet=CASE_LETTERS, min_size=1, max_size=6)


# ------------------------------------------------------------- section-9 lanes

#: Tool names for batch lanes: batchable (``read``, ``grep`` and spellings), not
#: batchable (``bash``), and an eval name, which is never batchable.
BATCH_LANE_NAMES = ("read", "Read", "mcp:read", "grep", "bash", "eval")
#: Batch keys: a few shared ones, none, and the empty string (no batch).
BATCH_KEYS = (None, "", "m0", "m1", "m2", "m3", "m4", "m5")


@st.composite
def batched_lanes(
    draw: st.DrawFn,
) -> tuple[list[dict[str, Any]], list[tuple[float, float]]]:
    """One lane for the section-9 figures: up to 10 calls with integer-ms starts (steps
    of 10 over 0..600) and durations (0..60), drawn names and batch keys, some never
    ending, fed in time order (ends before starts at one time, so a stream takes it);
    and up to 3 turn intervals (some empty or inverted, which are not measured)."""
    count = draw(st.integers(0, 10))
    events: list[tuple[int, int, dict[str, Any]]] = []
    for index in range(count):
        begin = 10 * draw(st.integers(0, 60))
        name = draw(st.sampled_from(BATCH_LANE_NAMES))
        batch = draw(st.sampled_from(BATCH_KEYS))
        call_id = f"c{index}"
        events.append((begin, 1, {"kind": "start", "call_id": call_id, "tool_name": name,
                                  "at_ms": begin, "batch": batch}))
        if draw(st.integers(0, 9)):  # one call in ten never ends
            finish = begin + draw(st.integers(0, 60))
            events.append((finish, 0, {"kind": "end", "call_id": call_id,
                                       "tool_name": name, "at_ms": finish}))
    events.sort(key=lambda event: (event[0], event[1]))
    turns = [
        (float(a), float(a + length))
        for a, length in draw(st.lists(
            st.tuples(st.integers(-50, 700), st.integers(-10, 200)), max_size=3))
    ]
    return [event for _, _, event in events], turns

# ------------------------------------------------------------------------ markdown

#: Characters that are markup somewhere in GitHub-flavoured Markdown or in GitHub's
#: renderer (table pipes, escapes, code, emphasis, links, raw HTML, entities, math,
#: mentions, emoji, issue references, strikethrough), line ends, controls and bidi.
MARKDOWN_HOSTILE = "|\\`*_[]()<>&$@:#~!= \t\n\r\x00\x07\x1b\x7f\x9b\u202e\u2066\u2028"

#: Texts a trace could hold as an id or tool name, rich in Markdown markup.
markdown_hostile_texts = st.text(
    alphabet=st.one_of(st.sampled_from(MARKDOWN_HOSTILE), st.characters(codec="utf-8")),
    max_size=24,
)


# ------------------------------------------------------------ Inspect eval logs

def _rarely(odds: int) -> st.SearchStrategy[bool]:
    """True once in ``odds + 1`` draws (``integers(0, n) == 0`` would be drawn far more
    often: Hypothesis favours the bounds)."""
    return st.sampled_from([True] + [False] * odds)


#: Inspect event times: a few seconds apart, with and without offsets, and unusable ones.
_INSPECT_TIMES = ["2026-01-01T00:00:00+00:00", "2026-01-01T00:00:01.5+00:00",
                  "2026-01-01T00:00:02Z", "2026-01-01T01:00:03+01:00",
                  "2026-01-01T00:00:01.25-00:00", "yesterday", "", None, 5]


@st.composite
def inspect_events(draw: st.DrawFn) -> list[Any]:
    """A sample's events: model and tool events, agent spans (begun, ended, parented,
    named alike), events nesting tool events, repeated ids, odd values."""
    ids = st.sampled_from(["c1", "c2", "c3", "c4", "c5", "c6", "c1", "", 7, None, "\x01c"])
    spans = st.sampled_from(["s1", "s2", "s3", "s1", "s2", "", None, 3])
    # mostly usable times, now and then one that is not
    times = st.one_of(st.sampled_from(_INSPECT_TIMES[:5]), st.sampled_from(_INSPECT_TIMES[:5]),
                      st.sampled_from(_INSPECT_TIMES[:5]), st.sampled_from(_INSPECT_TIMES))
    events: list[Any] = []
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from([None, 3, "odd"]) if draw(_rarely(9)) else st.sampled_from(
            ["tool", "tool", "tool", "tool", "model", "span_begin", "span_end", "state"]))
        event: dict[str, Any] = {} if kind == "odd" else {"event": kind}
        if kind == "tool":
            event |= {"id": draw(ids), "function": draw(st.sampled_from(
                ["read", "grep", "bash", "read", "grep", "", None])), "timestamp": draw(times)}
            if not draw(_rarely(4)):
                event["completed"] = draw(times)
        if kind in ("span_begin", "span_end"):
            event["id"] = draw(spans)
        if kind == "span_begin":
            event |= {"type": draw(st.sampled_from(["agent", "agent", "solver", None])),
                      "name": draw(st.sampled_from(["helper", "helper", "main", "", None])),
                      "parent_id": draw(spans)}
        if kind in ("tool", "model") and draw(st.booleans()):
            event["span_id"] = draw(spans)
        if draw(_rarely(9)):
            event["events"] = draw(st.sampled_from([
                [{"event": "tool"}], [{"event": "x", "events": [{"event": "tool"}]}], [1], {}]))
        events.append(event if not draw(_rarely(19)) else draw(st.sampled_from([1, "e", []])))
    return events


@st.composite
def inspect_samples(draw: st.DrawFn) -> Any:
    """A sample: id (text or int) and epoch, its events; now and then an odd one."""
    sample: dict[str, Any] = {
        "id": draw(st.sampled_from([True, 1.5, "", "\x02"]) if draw(_rarely(5))
                   else st.sampled_from(["a", "b", "c", 1, 2, 3, -0])),
        "epoch": draw(st.sampled_from([True, "1", None]) if draw(_rarely(5))
                      else st.sampled_from([1, 2])),
    }
    events = draw(st.sampled_from(["list"] * 6 + ["none", "empty", "odd"]))
    if events == "list":
        sample["events"] = draw(inspect_events())
    elif events != "none":
        sample["events"] = [] if events == "empty" else {"x": 1}
    return sample if not draw(_rarely(19)) else draw(st.sampled_from([1, None, []]))


@st.composite
def inspect_logs(draw: st.DrawFn) -> bytes:
    """A ``.json`` Inspect eval log: ``eval`` (a usable, bad or missing ``eval_id``)
    and ``samples``, pretty-printed or on one line, now and then two logs, an odd
    ``samples`` value or a repeated key."""
    eval_id = draw(st.sampled_from(["E1", "E1", "e/2", "\x01bad", 5, None]))
    header: dict[str, Any] = {} if eval_id is None else {"eval_id": eval_id}
    samples = draw(st.lists(inspect_samples(), min_size=1, max_size=6))
    log: dict[str, Any] = {"version": 2, "eval": header, "samples": samples}
    if draw(_rarely(9)):
        log["samples"] = draw(st.sampled_from([None, [], {}, 3]))
    indent = draw(st.sampled_from([None, 2, 2, 1]))
    text = json.dumps(log, indent=indent)
    if draw(_rarely(9)):  # a repeated samples key: the last one wins
        text = text.replace('"samples":', '"samples": [{"id": "r", "epoch": 1}], "samples":', 1)
    if draw(_rarely(9)):
        text += "\n" + json.dumps({"eval": {"eval_id": "E9"}, "samples": samples}, indent=indent)
    return text.encode() + b"\n"


@st.composite
def inspect_archives(draw: st.DrawFn) -> list[tuple[str, bytes]]:
    """The members of a ``.eval`` archive, in order: a header (now and then only the
    journal's start, or neither, or one that does not parse), sample members (now and
    then the same sample twice, a damaged one, a folder entry), other members."""
    members: list[tuple[str, bytes]] = []
    eval_id = draw(st.sampled_from(["E1", "E2", "\x01bad", 5]))
    header = json.dumps({"eval": {"eval_id": eval_id}}).encode()
    where = draw(st.sampled_from(["header.json", "_journal/start.json", "both", "none"]))
    if where in ("header.json", "both"):
        members.append(("header.json", draw(st.sampled_from([header, b"{", b"[]"]))))
    if where in ("_journal/start.json", "both"):
        members.append(("_journal/start.json", header))
    for number, sample in enumerate(draw(st.lists(inspect_samples(), max_size=5))):
        data = json.dumps(sample).encode()
        if draw(_rarely(7)):
            data = draw(damaged(st.just(data)))
        members.append((f"samples/{number}_epoch_1.json", data))
    if draw(_rarely(5)):
        members.append(("samples/", b""))
    if draw(st.booleans()):
        members.append(("summaries.json", b"[]"))
    order = draw(st.permutations(range(len(members))))
    return [members[i] for i in order]


@st.composite
def inspect_eval_files(draw: st.DrawFn) -> bytes:
    """A ``.eval`` archive of :func:`inspect_archives`' members, stored or deflated."""
    import io
    import zipfile

    method = draw(st.sampled_from([zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED]))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=method) as archive:
        for name, data in draw(inspect_archives()):
            archive.writestr(name, data)
    return out.getvalue()


# ------------------------------------------------------------------ JSON nesting depth

#: Text one level of :func:`nested_json` may hold before its next level: nothing, values,
#: and strings holding brackets, quotes and escapes (which do not nest).
_LEVEL_FILLERS = ("", "1, ", '"[{", ', '"\\"[", ', '"a\\\\", ', '{"k": "]"}, ', "[], ")
#: What :func:`nested_json` may insert to break a text: stray brackets, two values in a
#: row, a sign with no number, an unterminated string, a bare word.
_BREAKS = ("]", "}", "[", "{", "1 2", "-", ",", '"', "x", ":")


@st.composite
def nested_json(draw: st.DrawFn) -> str:
    """JSON text nesting arrays and objects around 500 levels (the readers' limit,
    ``docs/formats.md``) or anywhere up to 620, with filler values and strings full of
    brackets at some levels, sometimes broken by one inserted piece of text anywhere
    (before, at or after where it passes the limit)."""
    levels = draw(st.one_of(st.integers(495, 505), st.integers(1, 620)))
    kinds = draw(st.binary(min_size=levels, max_size=levels))
    filler = draw(st.sampled_from(_LEVEL_FILLERS))
    every = draw(st.integers(1, 50))
    opening, closing = [], []
    for level, kind in enumerate(kinds):
        fill = filler if level % every == 0 else ""
        if kind % 2:
            opening.append("[" + fill)
            closing.append("]")
        else:
            opening.append('{"k": ' if not fill else '{"f": ' + fill.rstrip(", ") + ', "k": ')
            closing.append("}")
    text = "".join(opening) + "0" + "".join(reversed(closing))
    if draw(st.booleans()):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(_BREAKS)) + text[at:]
    return text


@st.composite
def builder_files(draw: st.DrawFn, lines: Any) -> bytes:
    """A small file of a format with a line builder (``tests.trace_builders.FormatLines``:
    qwen, codex-tui, ...): its prelude, then up to four complete calls (starts at whole
    seconds 0 to 20, lasting 0 to 5 s, so some overlap and some tie), maybe with the
    format's chatter between them."""
    calls = draw(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 5)), max_size=4))
    body: list[bytes] = []
    for index, (start, length) in enumerate(calls):
        body.extend(lines.call(f"c{index}", start, start + length))
        if draw(st.booleans()):
            body.extend(lines.chatter(f"t{index}"))
    return b"".join([*lines.prelude, *body])
