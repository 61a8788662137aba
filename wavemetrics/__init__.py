"""wavemetrics: how much wall-clock time an agent's parallel tool calls really save.

The metric contract is ``parallelism_v1`` (``docs/metrics.md``); readers follow
``docs/formats.md``. The core is pure: observations -> waves -> buckets and
savings -> summary.
"""

from __future__ import annotations

import importlib

# typing is not imported at run time: every command imports this package, and typing
# (with re, enum and collections) is ~9 ms of start-up (docs/performance-history.md, "Eleventh
# round"); mypy takes any TYPE_CHECKING as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from wavemetrics._lanes import (
        Analysis,
        Lane,
        LaneResult,
        ReadOutcome,
        StreamedLane,
        StreamedLaneResult,
        StreamSettings,
        session_hash,
    )
    from wavemetrics.api import summarize_paths
    from wavemetrics.axis import AxisState, EfficiencyAxis, efficiency_axis
    from wavemetrics.cache import ReadCache
    from wavemetrics.classify import (
        EVAL_TOOL_NAMES,
        WaveBucket,
        classify_wave,
        is_eval_tool_name,
        normalize_tool_name,
    )
    from wavemetrics.escaping import printable
    from wavemetrics.exceptions import (
        InputTooLargeError,
        LaneNotFoundError,
        MissingExtraError,
        StreamOrderError,
    )
    from wavemetrics.histogram import decode_histogram, encode_histogram, wave_size_bucket
    from wavemetrics.limits import DEFAULT_LIMITS, Limits
    from wavemetrics.observations import Observation, ToolCall, WaveCounters
    from wavemetrics.pipeline import analyse, read_inputs
    from wavemetrics.readers import FORMATS, InputReport
    from wavemetrics.savings import (
        modeled_wallclock_saved_ms,
        saved_round_trips,
        upper_bound_saved_ms,
    )
    from wavemetrics.schema import SCHEMA_KIND
    from wavemetrics.summary import ParallelismSummary, merge_summaries, summarize
    from wavemetrics.turns import measured_turn_duration_ms
    from wavemetrics.waves import Wave, WaveAssembly, assemble_waves

# The public API is imported on first use (PEP 562), so that `wavemetrics --help`
# and the status line do not load every reader and the core (start-up time).
_LAZY: dict[str, str] = {
    "summarize_paths": "wavemetrics.api",
    "AxisState": "wavemetrics.axis",
    "EfficiencyAxis": "wavemetrics.axis",
    "efficiency_axis": "wavemetrics.axis",
    "ReadCache": "wavemetrics.cache",
    "EVAL_TOOL_NAMES": "wavemetrics.classify",
    "WaveBucket": "wavemetrics.classify",
    "classify_wave": "wavemetrics.classify",
    "is_eval_tool_name": "wavemetrics.classify",
    "normalize_tool_name": "wavemetrics.classify",
    "printable": "wavemetrics.escaping",
    "InputTooLargeError": "wavemetrics.exceptions",
    "LaneNotFoundError": "wavemetrics.exceptions",
    "MissingExtraError": "wavemetrics.exceptions",
    "StreamOrderError": "wavemetrics.exceptions",
    "decode_histogram": "wavemetrics.histogram",
    "encode_histogram": "wavemetrics.histogram",
    "wave_size_bucket": "wavemetrics.histogram",
    "DEFAULT_LIMITS": "wavemetrics.limits",
    "Limits": "wavemetrics.limits",
    "Observation": "wavemetrics.observations",
    "ToolCall": "wavemetrics.observations",
    "WaveCounters": "wavemetrics.observations",
    "Analysis": "wavemetrics._lanes",
    "Lane": "wavemetrics._lanes",
    "LaneResult": "wavemetrics._lanes",
    "ReadOutcome": "wavemetrics._lanes",
    "StreamedLane": "wavemetrics._lanes",
    "StreamedLaneResult": "wavemetrics._lanes",
    "StreamSettings": "wavemetrics._lanes",
    "analyse": "wavemetrics.pipeline",
    "read_inputs": "wavemetrics.pipeline",
    "session_hash": "wavemetrics._lanes",
    "FORMATS": "wavemetrics.readers",
    "InputReport": "wavemetrics.readers",
    "modeled_wallclock_saved_ms": "wavemetrics.savings",
    "saved_round_trips": "wavemetrics.savings",
    "upper_bound_saved_ms": "wavemetrics.savings",
    "SCHEMA_KIND": "wavemetrics.schema",
    "ParallelismSummary": "wavemetrics.summary",
    "merge_summaries": "wavemetrics.summary",
    "summarize": "wavemetrics.summary",
    "measured_turn_duration_ms": "wavemetrics.turns",
    "Wave": "wavemetrics.waves",
    "WaveAssembly": "wavemetrics.waves",
    "assemble_waves": "wavemetrics.waves",
}


__all__ = [
    "DEFAULT_LIMITS",
    "EVAL_TOOL_NAMES",
    "FORMATS",
    "SCHEMA_KIND",
    "Analysis",
    "AxisState",
    "EfficiencyAxis",
    "InputReport",
    "InputTooLargeError",
    "Lane",
    "LaneNotFoundError",
    "LaneResult",
    "Limits",
    "MissingExtraError",
    "Observation",
    "ParallelismSummary",
    "ReadCache",
    "ReadOutcome",
    "StreamOrderError",
    "StreamSettings",
    "StreamedLane",
    "StreamedLaneResult",
    "ToolCall",
    "Wave",
    "WaveAssembly",
    "WaveBucket",
    "WaveCounters",
    "__version__",
    "analyse",
    "assemble_waves",
    "classify_wave",
    "decode_histogram",
    "efficiency_axis",
    "encode_histogram",
    "is_eval_tool_name",
    "measured_turn_duration_ms",
    "merge_summaries",
    "modeled_wallclock_saved_ms",
    "normalize_tool_name",
    "printable",
    "read_inputs",
    "saved_round_trips",
    "session_hash",
    "summarize",
    "summarize_paths",
    "upper_bound_saved_ms",
    "wave_size_bucket",
]


def _dist_info_version() -> str | None:
    """The installed version, read from the name of the one ``wavemetrics-<version>.dist-info``
    folder on ``sys.path`` (the wheel spec names it so), or ``None`` when there is not
    exactly one: then ``importlib.metadata`` decides. The status line reads the version
    for its cache key on every prompt, and importing ``importlib.metadata`` (email,
    zipfile, csv...) cost it 15-50 ms of its 100 ms (docs/performance-history.md).
    """
    import os
    import sys

    found: set[str] = set()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except (OSError, TypeError, ValueError):
            continue
        found.update(name[len("wavemetrics-"):-len(".dist-info")] for name in names
                     if name.startswith("wavemetrics-") and name.endswith(".dist-info"))
    return found.pop() if len(found) == 1 else None


def __getattr__(name: str) -> Any:
    """Import a public name's module on first access (``AttributeError`` for unknown names).

    ``__version__``: written once, in pyproject.toml, read from the installed
    metadata on first use (importing ``importlib.metadata`` costs every command
    tens of milliseconds of start-up).
    """
    if name == "__version__":
        version = _dist_info_version()
        if version is None:
            from importlib import metadata

            try:
                version = metadata.version("wavemetrics")
            except metadata.PackageNotFoundError:  # a source tree that was never installed
                version = "0+unknown"
        globals()[name] = version
        return version
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'wavemetrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
