"""The Rust extension ``wavemetrics._native``, loaded once, and whether it can be used.

Light on purpose (nothing but :mod:`importlib`): the native engine's integration
layer (:mod:`wavemetrics.run.native`), the native command (:mod:`wavemetrics.run.fastpath`,
run before click or any reader is imported) and the folder walk of a served run
(:mod:`wavemetrics.inputs._walk`) load the extension here, with one check of the interface
it was built with.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # no typing at run time (mypy takes any TYPE_CHECKING as true)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

__all__ = ["API_VERSION", "eval_names", "extension", "stale"]

#: The extension interface the package calls: ``API_VERSION`` of ``native/binding/src/python.rs``.
#: An extension built from older sources (Python files pulled, the extension not
#: rebuilt) has another, and is not called: :func:`stale` is then true.
API_VERSION = 30

_native: Any
_stale = False
try:  # the extension is missing when the package was installed without building it
    _native = importlib.import_module("wavemetrics._native")
except ImportError:  # pragma: no cover (the test environment builds it)
    _native = None
if _native is not None and getattr(_native, "API_VERSION", None) != API_VERSION:
    _native, _stale = None, True


def extension() -> Any:
    """The extension module, or ``None`` when it is missing or :func:`stale`."""
    return _native


def stale() -> bool:
    """True when an extension is installed but built from older sources (another
    ``API_VERSION``): it is not used, and ``pip install -e .`` rebuilds it."""
    return _stale


def eval_names(names: Iterable[str]) -> list[str]:
    """The eval tool names as the extension takes them: their normal forms
    (``docs/metrics.md`` section 4), empty ones dropped (``classify._normal_eval_names``)."""
    # imported here: a served run loads this module for the folder walk
    # (wavemetrics.inputs._walk), not the metric core
    from wavemetrics.core.classify import normalize_tool_name

    return [normal for normal in (normalize_tool_name(n) for n in names) if normal]
