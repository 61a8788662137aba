"""Byte-identical output: today's JSON on every corpus file equals the recorded golden."""

from __future__ import annotations

import json

import pytest

from tests.corpus import needs_corpus
from tests.golden_cases import GOLDEN, cases, corpus_files, run_case, run_example

_RECORDED = json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]


@needs_corpus
@pytest.mark.parametrize(("name", "args"), list(cases()), ids=lambda v: v if isinstance(v, str) else "")
def test_corpus_output_is_byte_identical_to_the_golden(name: str, args: list[str]) -> None:
    """summarize/waves --format json on one corpus input prints exactly the recorded bytes."""
    assert run_case(args) == _RECORDED[name]


def test_example_output_is_byte_identical_to_the_golden() -> None:
    """summarize/waves --format json on the bundled example prints exactly the recorded bytes."""
    for name, got in run_example().items():
        assert got == _RECORDED[name], name


@needs_corpus
def test_every_corpus_file_has_a_golden_case() -> None:
    """A corpus file added later is not silently left out of the golden set."""
    recorded = {name.split(" ", 1)[1] for name in _RECORDED if name.startswith("summarize ")}
    assert set(corpus_files()) <= recorded
