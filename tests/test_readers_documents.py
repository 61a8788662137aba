"""Splitting concatenated JSON documents (``readers/_documents.py``): a cut document loses
only itself; a document that closes and parses is never cut."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from wavemetrics.readers._documents import parse_document, split_documents
from wavemetrics.readers.limits import DEFAULT_LIMITS


def _split(text: str) -> list[bytes]:
    return list(split_documents(text.encode().splitlines(True), DEFAULT_LIMITS))


def test_a_cut_document_is_cut_where_the_next_one_begins() -> None:
    """``{ "broken":`` never closes; it is cut before the next line that begins with ``{``
    in the first column, and the two documents after it are read whole."""
    assert _split('{ "broken":\n{\n  "a": 1\n}\n{\n  "b": 2\n}\n') == [
        b'{ "broken":\n', b'{\n  "a": 1\n}', b'{\n  "b": 2\n}']


def test_values_in_the_first_column_of_a_document_that_parses_stay_in_it() -> None:
    """An array whose objects begin lines (``indent=0`` or hand-written) is one document,
    also after a cut one."""
    array = '[\n{"a": 1},\n{"b": 2}\n]\n'
    assert _split(array) == [b'[\n{"a": 1},\n{"b": 2}\n]']
    assert _split('{ "broken":\n' + array + '{\n "c": 3\n}\n') == [
        b'{ "broken":\n', b'[\n{"a": 1},\n{"b": 2}\n]', b'{\n "c": 3\n}']


def test_a_document_cut_inside_a_string_is_cut_too() -> None:
    """A string cut short flips what is inside a string: the value then closes at the next
    document's end without parsing, and is cut where that document began."""
    assert _split('{\n "a": "x\n{\n "b": 1\n}\n') == [b'{\n "a": "x\n', b'{\n "b": 1\n}']


def test_a_top_level_string_ending_resets_the_cut_point() -> None:
    """A top-level string over lines (a line in it begins with ``{``) that closes is one
    item; the next value is not cut at the string's remembered line."""
    assert _split('"abc\n{ x\n" {\n "a": [\n1\n]\n}\n') == [
        b'"abc\n{ x\n"', b'{\n "a": [\n1\n]\n}']


def test_many_cut_documents_stay_linear() -> None:
    """100,000 cut documents: each one item; lines read again stay within the input."""
    assert _split('{ "b":\n' * 100_000) == [b'{ "b":\n'] * 100_000


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text("ab{}[]\"\\ ", max_size=4),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text("ab{[", max_size=2), inner, max_size=3),
    max_leaves=8,
)
_DOCUMENTS = st.lists(st.one_of(st.lists(_JSON, max_size=3),
                                st.dictionaries(st.text("xy", max_size=2), _JSON, max_size=3)),
                      min_size=1, max_size=6)
_CUTS = ('{ "broken":', '{ "broken": "ab', "[1, 2,", '{"a": {"b": [', '{ "x": "}{"')


@given(documents=_DOCUMENTS, indents=st.lists(st.sampled_from([None, 0, 2, 4]), min_size=6,
                                              max_size=6),
       cut=st.sampled_from(_CUTS), where=st.integers(min_value=0, max_value=6))
def test_one_cut_document_anywhere_loses_only_itself(
    documents: list[Any], indents: list[int | None], cut: str, where: int,
) -> None:
    """Objects and arrays printed one after another (compact, or indented 0, 2 or 4), with
    one cut document (a line) inserted before any of them or at the end: the split gives
    each document whole, in order, and the cut one as one item that does not parse."""
    texts = [json.dumps(document, indent=indent) + "\n"
             for document, indent in zip(documents, indents, strict=False)]
    at = min(where, len(texts))
    items = _split("".join([*texts[:at], cut + "\n", *texts[at:]]))
    assert len(items) == len(documents) + 1
    assert parse_document(items[at])[1] is not None
    values = [parse_document(item) for position, item in enumerate(items) if position != at]
    assert values == [(document, None) for document in documents]
