"""Shared fixtures: no test ever reads or writes the user's real cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from wavemetrics.cache.units import CACHE_ENV, ReadCache


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
                  ) -> Iterator[Path]:
    """Point the read cache at a fresh temporary folder for each test."""
    directory = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv(CACHE_ENV, str(directory))
    yield directory
    ReadCache(directory).close()


@pytest.fixture(autouse=True)
def fresh_name_memo() -> None:
    """Each test starts with the eval/batchable name memo of ``core/classify.py`` empty:
    an answer remembered by an earlier test, or under mutation testing by the process
    a mutant's run forked from, would hide a change to the matching rule."""
    from wavemetrics.core.classify import _remembered_match

    _remembered_match.cache_clear()
