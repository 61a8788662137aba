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
