"""The parallelism_v1 property registry: one source for order, types and meaning.

``to_event`` emits the v1 keys in this order (``spec/metrics.md`` section 6);
``docs/metrics.md`` carries the same table, and a test keeps the two equal.
"""

from __future__ import annotations

import attrs

__all__ = ["EXTRA_PROPERTIES", "SCHEMA_KIND", "SUMMARY_FIELDS", "V1_PROPERTIES", "Property"]

SCHEMA_KIND = "parallelism_v1"


@attrs.frozen
class Property:
    """One figure: its wire/attribute name, JSON type, unit and plain meaning."""

    name: str
    json_type: str
    unit: str
    meaning: str


#: The 16 v1 wire keys in contract order.
V1_PROPERTIES: tuple[Property, ...] = (
    Property("$session_id", "string", "", "hash of the lane's session and lane ids"),
    Property("clock_anomalies", "number", "calls", "calls whose end came before their start"),
    Property("dropped_calls", "number", "calls", "starts discarded at the tracked-call cap"),
    Property("eval_only_duration_ms", "number", "ms", "summed span of waves of only eval calls"),
    Property("eval_only_waves", "number", "waves", "waves made only of eval (code) calls"),
    Property("incomplete_calls", "number", "calls", "starts that never got an end"),
    Property("measured_turn_duration_ms_total", "number", "ms", "summed turn durations"),
    Property("mixed_waves", "number", "waves", "waves with eval and other calls (never counted)"),
    Property("modeled_wallclock_saved_ms", "number", "ms",
             "sum of durations minus span, over non_eval waves; may be negative"),
    Property("non_eval_joined_calls", "number", "calls", "calls in non_eval waves"),
    Property("non_eval_saved_round_trips", "number", "round trips",
             "peak concurrency minus one, summed over non_eval waves"),
    Property("non_eval_wave_size_histogram", "string", "waves",
             "non_eval waves by size 1,2,3,4,5-8,9-16,17-32,33+ joined by ':'"),
    Property("non_eval_waves_multi", "number", "waves", "non_eval waves of two or more calls"),
    Property("non_eval_waves_total", "number", "waves", "waves with no eval call"),
    Property("schema_kind", "string", "", "always \"parallelism_v1\""),
    Property("upper_bound_saved_ms", "number", "ms",
             "(n-1) x mean duration, summed over non_eval waves"),
)

#: Figures wavemetrics adds; never on the v1 wire payload.
EXTRA_PROPERTIES: tuple[Property, ...] = (
    Property("observed_calls", "number", "calls", "valid start observations"),
    Property("paired_calls", "number", "calls", "calls with a start and a usable end"),
    Property("malformed_observations", "number", "observations",
             "elements that were not valid observations"),
    Property("duplicate_starts", "number", "calls", "starts that replaced a pending start"),
    Property("orphan_ends", "number", "observations", "ends with no pending start"),
    Property("eval_outer_joined_calls", "number", "calls",
             "every call of eval_only waves plus the eval calls of mixed waves"),
    Property("mixed_non_eval_joined_calls", "number", "calls", "non-eval calls in mixed waves"),
    Property("tool_time_ms", "number", "ms", "summed duration of every paired call"),
)

_NOT_ATTRIBUTES = ("$session_id", "schema_kind")

#: Attribute names of ``ParallelismSummary`` in order: the v1 figures, then the extras.
SUMMARY_FIELDS: tuple[str, ...] = tuple(
    p.name for p in V1_PROPERTIES if p.name not in _NOT_ATTRIBUTES
) + tuple(p.name for p in EXTRA_PROPERTIES)
