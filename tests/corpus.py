"""Where the shared real-trace corpus is: ``../shared/corpus`` beside the repository.

``WAVEMETRICS_CORPUS`` overrides the location. Tests that need it skip only when
it is absent; ``.ci/run`` fails before the tests if it is absent, so CI never
skips them.
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
