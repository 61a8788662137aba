"""Where the corpus of real traces is: the folder ``WAVEMETRICS_CORPUS`` names, else
``../shared/corpus`` beside the repository (where the project's machines keep it).
Tests that need it skip only when it is absent; ``.ci/run`` fails before the tests if
it is absent, so CI never skips them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CORPUS = Path(
    os.environ.get("WAVEMETRICS_CORPUS")
    or Path(__file__).resolve().parents[2] / "shared" / "corpus"
)

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus absent: {CORPUS}")
