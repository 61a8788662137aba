"""The parallelism_v1 property registry (``spec/metrics.md`` section 6)."""

from __future__ import annotations

import attrs

from wavemetrics.schema import (
    EXTRA_PROPERTIES,
    SCHEMA_KIND,
    SUMMARY_FIELDS,
    V1_PROPERTIES,
    Property,
)
from wavemetrics.summary import ParallelismSummary

#: Section 6, in order.
V1_KEYS = (
    "$session_id", "clock_anomalies", "dropped_calls", "eval_only_duration_ms",
    "eval_only_waves", "incomplete_calls", "measured_turn_duration_ms_total", "mixed_waves",
    "modeled_wallclock_saved_ms", "non_eval_joined_calls", "non_eval_saved_round_trips",
    "non_eval_wave_size_histogram", "non_eval_waves_multi", "non_eval_waves_total",
    "schema_kind", "upper_bound_saved_ms",
)
STRING_KEYS = ("$session_id", "non_eval_wave_size_histogram", "schema_kind")
EXTRA_KEYS = (
    "observed_calls", "paired_calls", "malformed_observations", "duplicate_starts",
    "orphan_ends", "eval_outer_joined_calls", "mixed_non_eval_joined_calls", "tool_time_ms",
)


def test_schema_kind() -> None:
    """The event's schema_kind is ``parallelism_v1``."""
    assert SCHEMA_KIND == "parallelism_v1"


def test_v1_properties_are_the_16_contract_keys_in_order() -> None:
    """The registry lists exactly the 16 section-6 keys, in contract order."""
    assert tuple(p.name for p in V1_PROPERTIES) == V1_KEYS
    assert len(V1_PROPERTIES) == 16


def test_v1_json_types() -> None:
    """Session id, histogram and schema kind are strings; every other key is a number."""
    for prop in V1_PROPERTIES:
        expected = "string" if prop.name in STRING_KEYS else "number"
        assert prop.json_type == expected, prop.name


def test_millisecond_figures_have_unit_ms() -> None:
    """Exactly the ``_ms`` figures are in milliseconds, and every property has a meaning."""
    for prop in (*V1_PROPERTIES, *EXTRA_PROPERTIES):
        assert (prop.unit == "ms") == ("_ms" in prop.name), prop.name
        assert prop.meaning


def test_extras_are_listed_and_never_v1() -> None:
    """The extras are the eight wavemetrics figures, none of them a v1 key."""
    assert tuple(p.name for p in EXTRA_PROPERTIES) == EXTRA_KEYS
    assert set(EXTRA_KEYS).isdisjoint(V1_KEYS)


def test_summary_fields_are_v1_attributes_then_extras() -> None:
    """Summary attributes are the v1 figures (without session id and schema kind), then extras."""
    v1_attributes = tuple(k for k in V1_KEYS if k not in ("$session_id", "schema_kind"))
    expected = v1_attributes + EXTRA_KEYS
    assert expected == SUMMARY_FIELDS
    assert tuple(f.name for f in attrs.fields(ParallelismSummary)) == SUMMARY_FIELDS


def test_property_is_a_frozen_record() -> None:
    """A Property holds name, JSON type, unit and meaning."""
    prop = Property("x_ms", "number", "ms", "an example")
    fields = (prop.name, prop.json_type, prop.unit, prop.meaning)
    assert fields == ("x_ms", "number", "ms", "an example")
    assert prop == Property("x_ms", "number", "ms", "an example")
