"""The benchmark scripts (``benchmarks/*.py``, not a package) loaded as modules for tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

__all__ = ["fleet_module"]


def fleet_module() -> Any:
    """``benchmarks/fleet.py`` as a module (its ``make_fleet`` builds a fleet folder)."""
    spec = importlib.util.spec_from_file_location(
        "fleet", Path(__file__).resolve().parents[1] / "benchmarks" / "fleet.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
