"""wavemetrics: how much wall-clock time an agent's parallel tool calls really save.

The metric contract is ``parallelism_v1`` (``spec/metrics.md``); readers follow
``spec/formats.md``. The core is pure: observations -> waves -> buckets and
savings -> summary.
"""

from wavemetrics.axis import AxisState, EfficiencyAxis, efficiency_axis
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


def __getattr__(name: str) -> str:
    """``__version__``: written once, in pyproject.toml, read from the installed metadata.

    Read on first use: importing ``importlib.metadata`` costs every command
    tens of milliseconds of start-up.
    """
    if name != "__version__":
        raise AttributeError(f"module 'wavemetrics' has no attribute {name!r}")
    from importlib import metadata

    try:
        return metadata.version("wavemetrics")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"

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
