"""Eval classification of tool names and waves (``docs/metrics.md`` section 4)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import (
    DEFAULT_EVAL_NAMES,
    EVAL_SEPARATORS,
    JS_TRIM,
    NOT_EVAL_NAMES,
    PYTHON_ONLY_STRIP,
    eval_spellings,
    fullwidth,
    js_normal_form,
    oracle_bucket,
    oracle_is_eval,
    random_case,
    tool_name_spellings,
    trim_whitespace,
)
from wavemetrics.core.classify import (
    EVAL_TOOL_NAMES,
    JS_TRIM_CHARACTERS,
    WaveBucket,
    check_eval_names,
    classify_wave,
    is_eval_tool_name,
    normalize_tool_name,
    wave_bucket,
)

ONE_STR_MESSAGE = "^" + re.escape("eval_tool_names is a collection of names, not one str") + "$"


# ------------------------------------------------------------------ constants


def test_default_eval_names() -> None:
    """The default eval names are eval, codemode and code_mode, and not ln."""
    assert EVAL_TOOL_NAMES == ("eval", "codemode", "code_mode")
    assert "ln" not in EVAL_TOOL_NAMES


def test_trim_characters_are_exactly_the_javascript_set() -> None:
    """The trim set is U+0009-000D, U+0020, U+00A0, U+1680, U+2000-200A, U+2028/9, U+202F,
    U+205F, U+3000 and U+FEFF: 25 characters."""
    assert len(JS_TRIM_CHARACTERS) == 25
    assert set(JS_TRIM_CHARACTERS) == set(JS_TRIM)


def test_bucket_values_are_the_wire_spellings() -> None:
    """Buckets are str enums whose value and ``str()`` are the wire spelling."""
    assert [b.value for b in WaveBucket] == ["non_eval", "eval_only", "mixed"]
    assert str(WaveBucket.MIXED) == "mixed"
    assert str(WaveBucket.EVAL_ONLY) == "eval_only"
    assert WaveBucket.NON_EVAL == "non_eval"


# --------------------------------------------------------------- normalisation


@pytest.mark.parametrize("ch", list(JS_TRIM), ids=[f"U+{ord(c):04X}" for c in JS_TRIM])
def test_every_javascript_trim_character_is_stripped(ch: str) -> None:
    """Each JS trim character is removed at both ends."""
    assert normalize_tool_name(ch + ch + "Eval" + ch) == "eval"


@pytest.mark.parametrize(
    "ch", list(PYTHON_ONLY_STRIP), ids=[f"U+{ord(c):04X}" for c in PYTHON_ONLY_STRIP]
)
def test_python_only_strip_characters_are_kept(ch: str) -> None:
    """U+001C..U+001F and U+0085 are not JS whitespace, so they stay (unlike ``str.strip``)."""
    assert normalize_tool_name(ch + "Eval" + ch) == ch + "eval" + ch
    assert not is_eval_tool_name(ch + "eval")
    assert not is_eval_tool_name("eval" + ch)


def test_byte_order_mark_is_stripped() -> None:
    """U+FEFF is stripped (Python's ``str.strip`` keeps it)."""
    assert normalize_tool_name("\ufeffCode-Mode\ufeff") == "code_mode"
    assert is_eval_tool_name("\ufeffeval")


def test_normalisation_lowercases_and_maps_dashes() -> None:
    """Normal form is lower case with every ``-`` replaced by ``_``."""
    assert normalize_tool_name("A-B--C") == "a_b__c"
    assert normalize_tool_name(" Code-Mode\u3000") == "code_mode"
    assert normalize_tool_name("\u00c9VAL") == "\u00e9val"


def test_interior_whitespace_is_kept() -> None:
    """Only leading and trailing characters are trimmed."""
    assert normalize_tool_name(" code\u00a0mode ") == "code\u00a0mode"
    assert not is_eval_tool_name("code mode")


def test_fullwidth_letters_are_not_folded() -> None:
    """No compatibility folding: fullwidth ``Eval`` lowercases to fullwidth ``eval``."""
    assert normalize_tool_name(fullwidth("Eval")) == fullwidth("eval")
    assert not is_eval_tool_name(fullwidth("Eval"))
    assert not is_eval_tool_name("mcp:" + fullwidth("eval"))


def test_empty_and_blank_names_normalise_to_empty() -> None:
    """An empty or all-whitespace name normalises to ``""``."""
    assert normalize_tool_name("") == ""
    assert normalize_tool_name(" \t\u3000\ufeff") == ""


# ------------------------------------------------------------------- matching

MATCHING = [
    "mcp:eval", "server/eval", "tool_eval", "code-mode", " EVAL ", "eval", "codemode",
    "code_mode", "CODEMODE", "Code-Mode", "x/code_mode", "x:code-mode", "mcp__eval",
    "foo-eval", "eval\u3000", "\u00a0Eval\u2029", "a.b_eval", "mcp:codemode", "ln/eval",
]
NOT_MATCHING = [
    "evaluate", "evaluate_foo", "eval_helper", "codemodel", "foo.eval", "eval:", "ln", "",
    "evals", "xeval", "mode", "code", "code_", "_mode", "mcp:eval.py", "e_val", "   ",
    "code mode", "code__mode",
]


@pytest.mark.parametrize("name", MATCHING)
def test_eval_names_match(name: str) -> None:
    """Section 4 examples and variants that are eval names."""
    assert is_eval_tool_name(name)


@pytest.mark.parametrize("name", NOT_MATCHING)
def test_non_eval_names_do_not_match(name: str) -> None:
    """Section 4 examples and near misses that are not eval names."""
    assert not is_eval_tool_name(name)


def test_custom_eval_names_are_normalised() -> None:
    """A caller's eval names are normalised like tool names before matching."""
    names = ["Run-Python "]
    assert is_eval_tool_name("run_python", names)
    assert is_eval_tool_name("mcp:RUN-PYTHON", names)
    assert not is_eval_tool_name("eval", names)
    assert not is_eval_tool_name("run_python3", names)


def test_empty_custom_eval_names_are_ignored() -> None:
    """An eval name that normalises to ``""`` is ignored instead of matching ``x_``."""
    assert not is_eval_tool_name("foo_", ["", " \u3000"])
    assert not is_eval_tool_name("x/", [""])
    assert not is_eval_tool_name("", [""])
    assert is_eval_tool_name("tool_eval", ["", "eval"])


def test_no_eval_names_match_nothing() -> None:
    """With an empty list of eval names no name is an eval name."""
    assert not is_eval_tool_name("eval", [])
    assert classify_wave(["eval"], []) is WaveBucket.NON_EVAL


def test_eval_names_may_be_any_iterable() -> None:
    """Tuples, lists, sets and one-shot generators of eval names work."""
    assert is_eval_tool_name("a:sh", ("sh",))
    assert is_eval_tool_name("a:sh", {"sh"})
    assert is_eval_tool_name("a:sh", (n for n in ["x", "sh"]))


def test_one_str_of_eval_names_raises() -> None:
    """A single ``str`` (which would iterate as letters) raises TypeError."""
    with pytest.raises(TypeError, match=ONE_STR_MESSAGE):
        is_eval_tool_name("e", "eval")
    with pytest.raises(TypeError, match=ONE_STR_MESSAGE):
        classify_wave(["e"], "eval")


# ------------------------------------------------------------------- buckets


@pytest.mark.parametrize(
    ("names", "bucket"),
    [
        ([], WaveBucket.NON_EVAL),
        (["read"], WaveBucket.NON_EVAL),
        (["read", "grep", "evaluate"], WaveBucket.NON_EVAL),
        (["eval"], WaveBucket.EVAL_ONLY),
        (["eval", "mcp:eval", " CODE-MODE "], WaveBucket.EVAL_ONLY),
        (["read", "eval"], WaveBucket.MIXED),
        (["eval", "read"], WaveBucket.MIXED),
        (["eval", "read", "eval"], WaveBucket.MIXED),
    ],
)
def test_wave_bucket(names: list[str], bucket: WaveBucket) -> None:
    """No eval names: non_eval (also empty); only eval names: eval_only; both: mixed."""
    assert classify_wave(names) is bucket
    assert classify_wave(iter(names)) is bucket


def test_wave_bucket_uses_custom_names() -> None:
    """``classify_wave`` classifies with the caller's eval names."""
    assert classify_wave(["eval", "Run-Python"], ["run_python"]) is WaveBucket.MIXED
    assert classify_wave(["x/run_python"], ("run_python",)) is WaveBucket.EVAL_ONLY


# ---------------------------------------------------------------- properties


@given(st.text())
def test_normalisation_is_idempotent(name: str) -> None:
    """Normalising a normal form changes nothing."""
    once = normalize_tool_name(name)
    assert normalize_tool_name(once) == once


@given(st.one_of(st.text(), tool_name_spellings))
def test_normal_form_matches_the_contract(name: str) -> None:
    """The normal form equals JS trim, ``lower()``, ``-`` to ``_`` written independently."""
    normal = normalize_tool_name(name)
    assert normal == js_normal_form(name)
    assert "-" not in normal


@given(st.one_of(st.text(), tool_name_spellings))
def test_matching_agrees_with_the_contract(name: str) -> None:
    """``is_eval_tool_name`` agrees with a regex reading of section 4."""
    assert is_eval_tool_name(name) == oracle_is_eval(name)


@given(eval_spellings())
def test_eval_spellings_match(name: str) -> None:
    """Every generated eval spelling (case, ``-``/``_``, prefix+separator, JS trim) matches."""
    assert is_eval_tool_name(name)


@given(st.sampled_from(NOT_EVAL_NAMES), trim_whitespace, trim_whitespace)
def test_near_misses_never_match(name: str, before: str, after: str) -> None:
    """Near misses (fullwidth, other separators, extra letters) never match."""
    assert not is_eval_tool_name(before + name + after)


@given(tool_name_spellings, trim_whitespace, trim_whitespace,
       st.sampled_from((str.upper, str.lower, str.swapcase)))
def test_matching_ignores_surrounding_trim_whitespace_and_case(
    name: str, before: str, after: str, case: Callable[[str], str]
) -> None:
    """Wrapping in JS trim whitespace or changing case never changes the verdict."""
    assert is_eval_tool_name(before + case(name) + after) == is_eval_tool_name(name)


not_a_separator = st.characters(
    blacklist_characters=[*EVAL_SEPARATORS, *JS_TRIM],
).filter(lambda c: len(c.lower()) == 1 and c.lower() not in EVAL_SEPARATORS)


@given(st.text(max_size=5), st.sampled_from(DEFAULT_EVAL_NAMES), st.data())
def test_eval_suffix_matches_only_after_a_separator(
    prefix: str, eval_name: str, data: st.DataObject
) -> None:
    """``prefix + sep + e`` matches for ``_``, ``:``, ``/`` (and ``-``), never for another char."""
    suffix = data.draw(random_case(eval_name.replace("_", data.draw(st.sampled_from("_-")))))
    separator = data.draw(st.sampled_from(EVAL_SEPARATORS))
    assert is_eval_tool_name(prefix + separator + suffix)
    other = data.draw(not_a_separator)
    assert not is_eval_tool_name(prefix + other + suffix)


@given(st.lists(tool_name_spellings, max_size=6))
def test_wave_bucket_agrees_with_the_contract(names: list[str]) -> None:
    """``classify_wave`` agrees with the bucket rule applied to an independent matcher."""
    assert classify_wave(names).value == oracle_bucket(names)


@given(st.lists(tool_name_spellings, max_size=4), st.lists(st.text(max_size=6), max_size=3))
def test_custom_names_agree_with_the_contract(names: list[str], eval_names: list[str]) -> None:
    """With any custom eval names, matching and buckets agree with the independent reading."""
    for name in names:
        assert is_eval_tool_name(name, eval_names) == oracle_is_eval(name, eval_names)
    assert classify_wave(names, eval_names).value == oracle_bucket(names, eval_names)


@pytest.mark.parametrize(("eval_calls", "calls", "bucket"), [
    (0, 0, WaveBucket.NON_EVAL), (0, 1, WaveBucket.NON_EVAL), (0, 5, WaveBucket.NON_EVAL),
    (1, 1, WaveBucket.EVAL_ONLY), (5, 5, WaveBucket.EVAL_ONLY),
    (1, 2, WaveBucket.MIXED), (4, 5, WaveBucket.MIXED), (1, 5, WaveBucket.MIXED),
])
def test_wave_bucket_from_counts(eval_calls: int, calls: int, bucket: WaveBucket) -> None:
    """No eval call: non_eval; every call an eval call: eval_only; otherwise mixed (section 4)."""
    assert wave_bucket(eval_calls, calls) is bucket


@given(st.lists(tool_name_spellings))
def test_classify_wave_is_wave_bucket_of_the_eval_count(names: list[str]) -> None:
    """classify_wave equals the oracle, and wave_bucket of its eval-call count."""
    evals = sum(1 for name in names if oracle_is_eval(name))
    assert classify_wave(names).value == oracle_bucket(names)
    assert wave_bucket(evals, len(names)) is classify_wave(names)


def test_check_eval_names_refuses_one_str_only() -> None:
    """check_eval_names returns any collection of names as it is and refuses a single str."""
    names = ["eval", "run"]
    assert check_eval_names(names) is names
    assert check_eval_names(()) == ()
    with pytest.raises(TypeError, match=ONE_STR_MESSAGE):
        check_eval_names("eval")
