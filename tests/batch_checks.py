"""Helpers for the reader tests of batches (``docs/formats.md`` "Batches"): the
section-9 figures of a fixture, and the corpus check that a format's figures are sane
(``docs/metrics.md`` section 9)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.corpus import CORPUS
from tests.golden_cases import corpus_files
from wavemetrics import summarize_paths
from wavemetrics.core.histogram import decode_histogram

#: The section-9 figures a reader's batch keys decide, in the figure table's order.
BATCH_FIGURES = (
    "calls_without_batch",
    "batched_turns",
    "multi_call_turns",
    "turn_width_histogram",
    "max_turn_width",
    "missed_batch_runs",
    "missed_batch_calls",
    "missed_batch_round_trips",
    "missed_batch_upper_ms",
    "calls_timed_by_execution",
    "calls_timed_by_message",
)


def batch_figures(path: str | Path, input_format: str = "auto") -> dict[str, Any]:
    """The merged total's :data:`BATCH_FIGURES` of ``summarize`` on one input (Python engine)."""
    total = summarize_paths(path, input_format=input_format, engine="python")["total"]
    return {key: total[key] for key in BATCH_FIGURES}


def _histogram_bound(histogram: str) -> tuple[int, int | None]:
    """(least, most) sum of widths a ``turn_width_histogram`` allows: buckets are widths
    1, 2, 3, 4, 5-8, 9-16, 17-32, 33+ (``docs/metrics.md`` section 5); the last bucket
    has no upper bound, so ``most`` is ``None`` when it is not empty."""
    counts = decode_histogram(histogram)
    low = (1, 2, 3, 4, 5, 9, 17, 33)
    high = (1, 2, 3, 4, 8, 16, 32)
    least = sum(c * w for c, w in zip(counts, low, strict=True))
    most = None if counts[7] else sum(c * w for c, w in zip(counts, high, strict=False))
    return least, most


def check_corpus_batches(formats: set[str]) -> int:
    """For every corpus file read as one of ``formats``, check the batch figures are
    sane, per lane and merged; return how many files were checked.

    Per lane: calls with a batch make turns (``paired > 0`` gives turns or calls
    without a batch), ``multi_call_turns <= batched_turns``, ``max_turn_width`` at most
    the calls with a batch, the histogram counts ``batched_turns`` turns whose widths sum
    (bounded by the buckets) to ``paired_calls - calls_without_batch``, and provenance
    counts sum to ``paired_calls``.
    """
    checked = 0
    for rel in corpus_files():
        document = summarize_paths(CORPUS / rel, engine="python")
        if not any(report["format"] in formats for report in document["inputs"]):
            continue
        checked += 1
        for lane in [*document["lanes"], document["total"]]:
            paired, without = lane["paired_calls"], lane["calls_without_batch"]
            turns, multi = lane["batched_turns"], lane["multi_call_turns"]
            assert 0 <= without <= paired, rel
            if paired > 0:
                assert turns + without > 0, rel
            assert 0 <= multi <= turns <= paired - without, rel
            assert lane["max_turn_width"] <= paired - without, rel
            histogram = lane["turn_width_histogram"]
            assert sum(decode_histogram(histogram)) == turns, rel
            least, most = _histogram_bound(histogram)
            assert least <= paired - without, rel
            assert most is None or paired - without <= most, rel
            assert (lane["calls_timed_by_execution"] + lane["calls_timed_by_message"]
                    == paired), rel
            assert (lane["missed_batch_round_trips"]
                    == lane["missed_batch_calls"] - lane["missed_batch_runs"]), rel
    return checked
