"""Names and defaults the command line needs before it reads anything.

Building the CLI's options must not import the readers, the core or scipy-side
modules (``wavemetrics --help`` stays under 100 ms, issue 13), so the option
choices are spelled here; ``tests/test_cli.py`` checks that each equals its source.
"""

from __future__ import annotations

__all__ = [
    "AUTO",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_MAX_TRACKED_CALLS",
    "DEFAULT_METRIC",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "FORMAT_NAMES",
    "METRIC_NAMES",
]

#: ``--input-format auto``: detect each input's format (``readers.AUTO``).
AUTO = "auto"
#: ``readers.FORMATS``, in registry order.
FORMAT_NAMES: tuple[str, ...] = (
    "events", "claude-code", "codex", "codex-tui", "pi", "otlp", "otel-spans", "inspect",
)
#: ``observations.DEFAULT_MAX_TRACKED_CALLS``: the v1 cap on calls held per lane.
DEFAULT_MAX_TRACKED_CALLS = 2000
#: The keys of ``compare.METRICS``, in order, and the compare defaults.
METRIC_NAMES: tuple[str, ...] = (
    "modeled_wallclock_saved_ms", "upper_bound_saved_ms", "non_eval_saved_round_trips",
    "non_eval_waves_multi", "non_eval_multi_call_share", "paired_calls", "tool_time_ms",
    "measured_turn_duration_ms_total",
)
DEFAULT_METRIC = "modeled_wallclock_saved_ms"
DEFAULT_RESAMPLES = 9999
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SEED = 0
