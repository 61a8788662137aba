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

    from wavemetrics.cache.units import ReadCache
    from wavemetrics.core.activity import (
        BATCHABLE_TOOL_NAMES,
        DEFAULT_IDLE_GAP_MS,
        is_batchable_tool_name,
    )
    from wavemetrics.core.classify import (
        EVAL_TOOL_NAMES,
        WaveBucket,
        classify_wave,
        is_eval_tool_name,
        normalize_tool_name,
    )
    from wavemetrics.core.exceptions import (
        InputTooLargeError,
        LaneNotFoundError,
        MissingExtraError,
        StreamOrderError,
    )
    from wavemetrics.core.histogram import decode_histogram, encode_histogram, wave_size_bucket
    from wavemetrics.core.observations import Observation, ToolCall, WaveCounters
    from wavemetrics.core.savings import (
        modeled_wallclock_saved_ms,
        saved_round_trips,
        upper_bound_saved_ms,
    )
    from wavemetrics.core.schema import SCHEMA_KIND
    from wavemetrics.core.summary import ParallelismSummary, merge_summaries, summarize
    from wavemetrics.core.turns import measured_turn_duration_ms
    from wavemetrics.core.waves import Wave, WaveAssembly, assemble_waves
    from wavemetrics.readers.dispatch import FORMATS, InputReport
    from wavemetrics.readers.limits import DEFAULT_LIMITS, Limits
    from wavemetrics.run._lanes import (
        Analysis,
        Lane,
        LaneResult,
        ReadOutcome,
        StreamedLane,
        StreamedLaneResult,
        StreamSettings,
        session_hash,
    )
    from wavemetrics.run.api import summarize_paths
    from wavemetrics.run.pipeline import analyse, read_inputs
    from wavemetrics.views.axis import AxisState, EfficiencyAxis, efficiency_axis
    from wavemetrics.views.escaping import printable

# The public API is imported on first use (PEP 562), so that `wavemetrics --help`
# and the status line do not load every reader and the core (start-up time).
_LAZY: dict[str, str] = {
    "summarize_paths": "wavemetrics.run.api",
    "AxisState": "wavemetrics.views.axis",
    "EfficiencyAxis": "wavemetrics.views.axis",
    "efficiency_axis": "wavemetrics.views.axis",
    "ReadCache": "wavemetrics.cache.units",
    "BATCHABLE_TOOL_NAMES": "wavemetrics.core.activity",
    "DEFAULT_IDLE_GAP_MS": "wavemetrics.core.activity",
    "is_batchable_tool_name": "wavemetrics.core.activity",
    "EVAL_TOOL_NAMES": "wavemetrics.core.classify",
    "WaveBucket": "wavemetrics.core.classify",
    "classify_wave": "wavemetrics.core.classify",
    "is_eval_tool_name": "wavemetrics.core.classify",
    "normalize_tool_name": "wavemetrics.core.classify",
    "printable": "wavemetrics.views.escaping",
    "InputTooLargeError": "wavemetrics.core.exceptions",
    "LaneNotFoundError": "wavemetrics.core.exceptions",
    "MissingExtraError": "wavemetrics.core.exceptions",
    "StreamOrderError": "wavemetrics.core.exceptions",
    "decode_histogram": "wavemetrics.core.histogram",
    "encode_histogram": "wavemetrics.core.histogram",
    "wave_size_bucket": "wavemetrics.core.histogram",
    "DEFAULT_LIMITS": "wavemetrics.readers.limits",
    "Limits": "wavemetrics.readers.limits",
    "Observation": "wavemetrics.core.observations",
    "ToolCall": "wavemetrics.core.observations",
    "WaveCounters": "wavemetrics.core.observations",
    "Analysis": "wavemetrics.run._lanes",
    "Lane": "wavemetrics.run._lanes",
    "LaneResult": "wavemetrics.run._lanes",
    "ReadOutcome": "wavemetrics.run._lanes",
    "StreamedLane": "wavemetrics.run._lanes",
    "StreamedLaneResult": "wavemetrics.run._lanes",
    "StreamSettings": "wavemetrics.run._lanes",
    "analyse": "wavemetrics.run.pipeline",
    "read_inputs": "wavemetrics.run.pipeline",
    "session_hash": "wavemetrics.run._lanes",
    "FORMATS": "wavemetrics.readers.dispatch",
    "InputReport": "wavemetrics.readers.dispatch",
    "modeled_wallclock_saved_ms": "wavemetrics.core.savings",
    "saved_round_trips": "wavemetrics.core.savings",
    "upper_bound_saved_ms": "wavemetrics.core.savings",
    "SCHEMA_KIND": "wavemetrics.core.schema",
    "ParallelismSummary": "wavemetrics.core.summary",
    "merge_summaries": "wavemetrics.core.summary",
    "summarize": "wavemetrics.core.summary",
    "measured_turn_duration_ms": "wavemetrics.core.turns",
    "Wave": "wavemetrics.core.waves",
    "WaveAssembly": "wavemetrics.core.waves",
    "assemble_waves": "wavemetrics.core.waves",
}


__all__ = [
    "BATCHABLE_TOOL_NAMES",
    "DEFAULT_IDLE_GAP_MS",
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
    "is_batchable_tool_name",
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
