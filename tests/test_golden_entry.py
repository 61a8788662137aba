"""Byte-identical output through the real entry point, both engines, cold, served and warm."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from tests.corpus import needs_corpus
from tests.entry_cases import ENTRY_GOLDEN, inputs, run_all

_RECORDED: dict[str, dict[str, object]] = json.loads(
    ENTRY_GOLDEN.read_text(encoding="utf-8"))["cases"]


@pytest.fixture(scope="module")
def today() -> dict[str, list[tuple[str, dict[str, object]]]]:
    """Every case's runs on today's code: case name -> [(run, output)]."""
    runs: dict[str, list[tuple[str, dict[str, object]]]] = defaultdict(list)
    for name, run, output in run_all():
        runs[name].append((run, output))
    return runs


@needs_corpus
@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_every_run_prints_the_recorded_bytes(
    name: str, today: dict[str, list[tuple[str, dict[str, object]]]]
) -> None:
    """Each engine, and the repeat on a warm cache, prints exactly the recorded output."""
    assert today[name], f"{name}: no run today"
    for run, output in today[name]:
        assert output == _RECORDED[name], f"{name} ({run or 'one run'})"


@needs_corpus
def test_every_input_has_every_case(today: dict[str, list[tuple[str, dict[str, object]]]]) -> None:
    """A corpus file or folder added later is not silently left out, and no case is lost."""
    assert set(today) == set(_RECORDED)
    labels = {label for label, _cwd, _path in inputs()}
    for variant in ("summarize json", "summarize csv", "summarize by-session", "waves json"):
        assert {f"{variant} {label}" for label in labels} <= set(_RECORDED)
    assert len(today["summarize json <example>"]) == 4  # two engines, each twice
