"""wavemetrics: how much wall-clock time an agent's parallel tool calls really save.

The metric contract is ``parallelism_v1`` (``spec/metrics.md``); readers follow
``spec/formats.md``. The core is pure: observations -> waves -> buckets and
savings -> summary.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from wavemetrics.pipeline import (
        Analysis,
        Lane,
        LaneResult,
        ReadOutcome,
        StreamedLane,
        StreamedLaneResult,
        StreamSettings,
        analyse,
        read_inputs,
        session_hash,
    )
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
# and the status line do not load every reader and the core (issue 13).
_LAZY: dict[str, str] = {
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
    "Analysis": "wavemetrics.pipeline",
    "Lane": "wavemetrics.pipeline",
    "LaneResult": "wavemetrics.pipeline",
    "ReadOutcome": "wavemetrics.pipeline",
    "StreamedLane": "wavemetrics.pipeline",
    "StreamedLaneResult": "wavemetrics.pipeline",
    "StreamSettings": "wavemetrics.pipeline",
    "analyse": "wavemetrics.pipeline",
    "read_inputs": "wavemetrics.pipeline",
    "session_hash": "wavemetrics.pipeline",
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
    "upper_bound_saved_ms",
    "wave_size_bucket",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first access (``AttributeError`` for unknown names).

    ``__version__``: written once, in pyproject.toml, read from the installed
    metadata on first use (importing ``importlib.metadata`` costs every command
    tens of milliseconds of start-up).
    """
    if name == "__version__":
        version = _installed_version()
        globals()[name] = version
        return version
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'wavemetrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def _installed_version() -> str:
    """The ``Version:`` of the installed distribution's metadata: from the first
    ``wavemetrics-*.dist-info`` folder on ``sys.path`` (where ``importlib.metadata``
    looks first), read directly, since importing ``importlib.metadata`` costs ~30 ms of
    CPU, paid by every cached run (the version is part of every cache key); else
    ``importlib.metadata`` (other layouts), else ``"0+unknown"`` (a source tree that
    was never installed)."""
    import os
    import sys

    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except (OSError, TypeError):
            continue
        for folder in names:
            if folder.startswith("wavemetrics-") and folder.endswith(".dist-info"):
                try:
                    with open(os.path.join(entry, folder, "METADATA"), encoding="utf-8") as meta:
                        for line in meta:
                            if line.startswith("Version:"):
                                return line.removeprefix("Version:").strip()
                            if not line.strip():
                                break  # the end of the headers
                except OSError:
                    pass
    from importlib import metadata

    try:
        return metadata.version("wavemetrics")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def __dir__() -> list[str]:
    return sorted(__all__)
