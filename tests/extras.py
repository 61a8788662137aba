"""Skip markers for tests that need an optional extra (they skip cleanly without it)."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

__all__ = ["needs_matplotlib", "needs_report", "needs_scipy"]

needs_matplotlib = pytest.mark.skipif(
    find_spec("matplotlib") is None,
    reason="needs the timeline extra: pip install 'wavemetrics[timeline]'",
)
needs_scipy = pytest.mark.skipif(
    find_spec("scipy") is None,
    reason="needs the compare extra: pip install 'wavemetrics[compare]'",
)
needs_report = pytest.mark.skipif(
    find_spec("plotly") is None or find_spec("jinja2") is None,
    reason="needs the report extra: pip install 'wavemetrics[report]'",
)
