"""Trace readers: inputs -> lanes fed into a sink, with every line accounted for.

One module per format, each exposing one
:class:`~wavemetrics.readers._protocol.TraceFormat` listed in
``readers/registry.py``, whose rows also say what each format can do (read
natively, keep a live state for the status line). :mod:`wavemetrics.readers.dispatch`
detects formats (``detect_input``), groups files into read units by the format's
``unit_key`` (``plan_units``) and reads a unit into an observation sink
(``read_unit``); it names no format and knows nothing of metrics. The pipeline
(``wavemetrics/run/pipeline.py``) owns the sink (``docs/formats.md``).

The names below are re-exported lazily: importing a module of this folder (the
registry, one reader) loads nothing else of it (start-up time).
"""

from __future__ import annotations

# no typing at run time (start-up time: the registry is read before anything else
# loads); mypy takes any TYPE_CHECKING as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from wavemetrics.readers.dispatch import (
        AUTO,
        DUPLICATE,
        EMPTY,
        FORMATS,
        NO_USABLE_RECORD,
        Detection,
        InputReport,
        ReadUnit,
        call_timing,
        detect_input,
        plan_units,
        read_unit,
        reads_alone,
        reads_store,
        streamable,
    )

__all__ = [
    "AUTO",
    "DUPLICATE",
    "EMPTY",
    "FORMATS",
    "NO_USABLE_RECORD",
    "Detection",
    "InputReport",
    "ReadUnit",
    "call_timing",
    "detect_input",
    "plan_units",
    "read_unit",
    "reads_alone",
    "reads_store",
    "streamable",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from wavemetrics.readers import dispatch

        return getattr(dispatch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
