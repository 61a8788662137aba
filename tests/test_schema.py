"""The figure table: the v1 registry, merge rules and display (``docs/metrics.md`` 6, 8)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import attrs
import pytest
from hypothesis import given

import wavemetrics.core.summary as summary_module
from tests.strategies import summaries
from wavemetrics.core.schema import (
    DERIVED_PROPERTIES,
    EXTRA_PROPERTIES,
    FIGURE_MERGES,
    FIGURES,
    LOSS_FIGURES,
    METRIC_FIGURES,
    PROPERTIES,
    SCHEMA_KIND,
    SUMMARY_FIELDS,
    TABLE_COLUMNS,
    V1_PROPERTIES,
    Merge,
    Property,
    json_safe,
    merge_value,
)
from wavemetrics.core.summary import ParallelismSummary

#: Section 6, in order.
V1_KEYS = (
    "$session_id", "clock_anomalies", "dropped_calls", "eval_only_duration_ms",
    "eval_only_waves", "incomplete_calls", "measured_turn_duration_ms_total", "mixed_waves",
    "modeled_wallclock_saved_ms", "non_eval_joined_calls", "non_eval_saved_round_trips",
    "non_eval_wave_size_histogram", "non_eval_waves_multi", "non_eval_waves_total",
    "schema_kind", "upper_bound_saved_ms",
)
STRING_KEYS = ("$session_id", "non_eval_wave_size_histogram", "schema_kind")
#: The section-9 extras (docs/metrics.md, "Turns, missed batching and where the time went").
ACTIVITY_KEYS = (
    "calls_without_batch", "batched_turns", "multi_call_turns", "turn_width_histogram",
    "max_turn_width", "missed_batch_runs", "missed_batch_calls", "missed_batch_round_trips",
    "missed_batch_upper_ms", "lane_span_ms", "tool_busy_ms", "idle_ms",
    "calls_timed_by_execution", "calls_timed_by_message",
)
EXTRA_KEYS = (
    "observed_calls", "paired_calls", "malformed_observations", "duplicate_starts",
    "orphan_ends", "eval_outer_joined_calls", "mixed_non_eval_joined_calls", "tool_time_ms",
    *ACTIVITY_KEYS,
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
    """The extras are the eight wavemetrics figures and the 14 of section 9, none of them
    a v1 key."""
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


# ------------------------------------------------------------------ the figure table


def _histogram_sum(left: str, right: str) -> str:
    # section 8, written out: position by position over the 8 ':'-separated counts
    pairs = zip(left.split(":"), right.split(":"), strict=True)
    return ":".join(str(int(a) + int(b)) for a, b in pairs)


#: Each rule as section 8 states it, independently of ``merge_value``.
RULES: dict[Merge, Callable[[Any, Any], Any]] = {
    Merge.SUM: lambda a, b: a + b,
    Merge.MAX: lambda a, b: a if a >= b else b,
    Merge.HISTOGRAM: _histogram_sum,
}


@given(summaries(), summaries())
def test_every_figure_merges_as_its_rule_says(
    a: ParallelismSummary, b: ParallelismSummary
) -> None:
    """``a + b`` gives, for every figure of the table, its merge rule applied to a and b."""
    merged = a + b
    for prop in FIGURES:
        assert prop.merge is not None
        expected = RULES[prop.merge](getattr(a, prop.name), getattr(b, prop.name))
        assert getattr(merged, prop.name) == expected, prop.name


def test_merge_rules_of_today() -> None:
    """Every figure sums except the two histograms (by position) and the widest turn (by
    maximum, section 9); the wire constants never merge."""
    rules = {p.name: p.merge for p in PROPERTIES}
    assert rules.pop("$session_id") is None
    assert rules.pop("schema_kind") is None
    assert rules.pop("non_eval_wave_size_histogram") is Merge.HISTOGRAM
    assert rules.pop("turn_width_histogram") is Merge.HISTOGRAM
    assert rules.pop("max_turn_width") is Merge.MAX
    assert set(rules.values()) == {Merge.SUM}
    assert tuple((p.name, p.merge) for p in FIGURES) == FIGURE_MERGES


@pytest.mark.parametrize(("rule", "left", "right", "expected"), [
    (Merge.SUM, 3, 5, 8),
    (Merge.SUM, 2.5, -1.0, 1.5),
    (Merge.MAX, 3, 5, 5),
    (Merge.MAX, 5, 3, 5),
    (Merge.MAX, -2.5, -7.0, -2.5),
    (Merge.HISTOGRAM, "1:0:0:0:0:0:0:2", "2:1:0:0:0:0:0:40", "3:1:0:0:0:0:0:42"),
])
def test_merge_value_applies_the_rule(rule: Merge, left: Any, right: Any, expected: Any) -> None:
    """merge_value sums, keeps the larger, or adds histograms position by position."""
    assert merge_value(rule, left, right) == expected


def test_a_max_figure_merges_by_max_through_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """merge_two takes each rule from the table: a figure declared ``max`` keeps the larger."""
    as_max = tuple(
        (name, Merge.MAX if name == "dropped_calls" else rule) for name, rule in FIGURE_MERGES
    )
    monkeypatch.setattr(summary_module, "FIGURE_MERGES", as_max)
    a = ParallelismSummary(dropped_calls=7, paired_calls=2)
    b = ParallelismSummary(dropped_calls=4, paired_calls=3)
    assert (a + b).dropped_calls == 7
    assert (b + a).dropped_calls == 7
    assert (a + b).paired_calls == 5


def test_v1_and_extras_come_from_one_table() -> None:
    """V1_PROPERTIES and EXTRA_PROPERTIES split PROPERTIES by the v1 flag, in table order."""
    assert PROPERTIES == V1_PROPERTIES + EXTRA_PROPERTIES
    assert all(p.v1 for p in V1_PROPERTIES)
    assert not any(p.v1 for p in EXTRA_PROPERTIES)
    assert tuple(p.name for p in FIGURES) == SUMMARY_FIELDS


def test_loss_figures_in_loss_order() -> None:
    """The calls lost are incomplete, clock anomalies and dropped, in that order and wording."""
    assert tuple((name, loss.label) for name, loss in LOSS_FIGURES) == (
        ("incomplete_calls", "incomplete"),
        ("clock_anomalies", "clock anomalies"),
        ("dropped_calls", "dropped"),
    )


def test_table_columns_in_column_order() -> None:
    """The summarize table shows calls, waves, multi, rt, eval, mixed, saved s, upper s."""
    assert tuple((name, c.header, c.width, c.seconds) for name, c in TABLE_COLUMNS) == (
        ("paired_calls", "calls", 5, False),
        ("waves_total", "waves", 5, False),
        ("non_eval_waves_multi", "multi", 5, False),
        ("non_eval_saved_round_trips", "rt", 5, False),
        ("eval_only_waves", "eval", 5, False),
        ("mixed_waves", "mixed", 5, False),
        ("modeled_wallclock_saved_ms", "saved s", 9, True),
        ("upper_bound_saved_ms", "upper s", 9, True),
    )
    assert {p.name for p in DERIVED_PROPERTIES} == {"waves_total"}


def test_metric_figures_in_metric_order() -> None:
    """The compare metrics of the table, in --metric order (the axis' share is compare's own)."""
    assert tuple(p.name for p in METRIC_FIGURES) == (
        "modeled_wallclock_saved_ms", "upper_bound_saved_ms", "non_eval_saved_round_trips",
        "non_eval_waves_multi", "paired_calls", "tool_time_ms",
        "measured_turn_duration_ms_total",
        *(name for name in ACTIVITY_KEYS if name != "turn_width_histogram"),
    )


@pytest.mark.parametrize(("value", "expected"), [
    (1.5, 1.5), (0, 0), (-0.0, -0.0), ("0:0:0:0:0:0:0:0", "0:0:0:0:0:0:0:0"), (None, None),
    (True, True), (math.inf, None), (-math.inf, None), (math.nan, None), (10**400, 10**400),
])
def test_json_safe_nulls_only_non_finite_floats(value: object, expected: object) -> None:
    """json_safe turns inf, -inf and NaN into None and returns any other value as it is."""
    assert json_safe(value) == expected
    assert type(json_safe(value)) is type(expected)


def test_merge_rules_are_spelled_as_in_the_docs() -> None:
    """A merge rule's value and str() are its plain spelling: sum, max, histogram."""
    assert [(rule.value, str(rule)) for rule in Merge] == [
        ("sum", "sum"), ("max", "max"), ("histogram", "histogram")
    ]
