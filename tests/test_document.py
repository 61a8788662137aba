"""A ``--format json`` document read back as its analysis (``wavemetrics.views.document``).

The native command draws every other format from the document the extension wrote,
so reading back must lose nothing a view shows: each figure comes back with its
value and its type (an int stays an int), each input report whole, the skipped
files and copies; a figure that was not finite (``null``) makes it decline.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from tests.strategies import summaries
from wavemetrics.core.schema import SUMMARY_FIELDS
from wavemetrics.core.summary import ParallelismSummary
from wavemetrics.readers.lanes import InputReport
from wavemetrics.run._options import options_record
from wavemetrics.run.pipeline import (
    Analysis,
    ReadOutcome,
    StreamedLane,
    StreamedLaneResult,
    StreamSettings,
    analyse,
    read_inputs,
)
from wavemetrics.views.document import analysis_of
from wavemetrics.views.plain import PLAIN_FORMATS, render_plain
from wavemetrics.views.report import render_json

#: Every figure at its empty value, by name, as a document writes them.
_EMPTY = attrs.asdict(ParallelismSummary())


def _figures(**values: Any) -> dict[str, Any]:
    return {**_EMPTY, **values}


def _document() -> dict[str, Any]:
    """A document written by hand: two inputs (one read, one a copy), one lane, a
    skipped file; the lane's figures are the total's."""
    lane = _figures(paired_calls=3, observed_calls=6, non_eval_waves_total=2,
                    non_eval_waves_multi=1, non_eval_joined_calls=2,
                    non_eval_saved_round_trips=1, modeled_wallclock_saved_ms=1500.5,
                    upper_bound_saved_ms=2000.0, tool_time_ms=4000.25,
                    non_eval_wave_size_histogram="1:1:0:0:0:0:0:0")
    return {
        "schema_kind": "wavemetrics.summary",
        "options": {"input_format": "auto"},
        "inputs": [
            {"path": "p/a.jsonl", "format": "claude-code", "lines_read": 9, "lines_used": 6,
             "lines_ignored": 2, "problems": {"invalid_json": 1}, "ignored": {"user": 2},
             "notes": {}, "error": None},
            {"path": "q/a.jsonl", "format": "duplicate", "lines_read": 0, "lines_used": 0,
             "lines_ignored": 0, "problems": {}, "ignored": {}, "notes": {}, "error": None},
        ],
        "lanes": [{"path": "p/a.jsonl", "session_id": "s1", "lane_id": "main",
                   "session_hash": "ignored: recomputed", **lane}],
        "total": lane,
        "concentration": [],
        "skipped_files": [{"path": "p/a.meta.json", "reason": "a sidecar"}],
        "same_content": [{"path": "q/a.jsonl", "same_as": "p/a.jsonl"}],
    }


def test_a_hand_written_document_reads_back_whole() -> None:
    """Each part of the document comes back as the value it records."""
    analysis = analysis_of(_document())
    assert analysis is not None
    expected = ParallelismSummary(
        paired_calls=3, observed_calls=6, non_eval_waves_total=2,
        non_eval_waves_multi=1, non_eval_joined_calls=2, non_eval_saved_round_trips=1,
        modeled_wallclock_saved_ms=1500.5, upper_bound_saved_ms=2000.0, tool_time_ms=4000.25,
        non_eval_wave_size_histogram="1:1:0:0:0:0:0:0")
    assert analysis.total == expected
    (result,) = analysis.lanes
    assert result.summary == expected
    assert result.lane == StreamedLane("p/a.jsonl", "s1", "main", 0.0, expected)
    # the hash is the lane's own (SHA-256 of the compact JSON array), never the text the
    # document holds
    assert result.session_hash == hashlib.sha256(b'["s1","main"]').hexdigest()
    outcome = analysis.outcome
    assert outcome.inputs == (
        InputReport("p/a.jsonl", "claude-code", 9, 6, 2, {"invalid_json": 1}, {"user": 2}),
        InputReport("q/a.jsonl", "duplicate"),
    )
    assert outcome.same_as == {"q/a.jsonl": "p/a.jsonl"}
    assert [(s.path, s.reason) for s in outcome.skipped] == [("p/a.meta.json", "a sidecar")]
    assert outcome.stream is None


def test_a_document_without_copies_or_skipped_files_reads_back() -> None:
    """Both lists are written only when they hold something."""
    document = _document()
    del document["skipped_files"], document["same_content"]
    analysis = analysis_of(document)
    assert analysis is not None
    assert analysis.outcome.same_as == {} and analysis.outcome.skipped == ()


@pytest.mark.parametrize("where", ["total", "lane"])
def test_a_figure_written_as_null_is_not_read_back(where: str) -> None:
    """A figure that was not finite is ``null`` in JSON: which value it was is lost."""
    document = _document()
    if where == "total":
        document["total"] = {**document["total"], "tool_time_ms": None}
    else:
        document["lanes"] = [{**document["lanes"][0], "tool_time_ms": None}]
    assert analysis_of(_document()) is not None
    assert analysis_of(document) is None


#: Any float a real figure can be: up to 1e15 ms (some 31,000 years), any fraction.
_FINITE = st.floats(min_value=-1e15, max_value=1e15, allow_nan=False)


def _analysis(summary: ParallelismSummary, other: ParallelismSummary) -> Analysis[Any]:
    lanes = (StreamedLane("a", "s", "main", 0.0, summary),
             StreamedLane("b", "s", "agent-1", 0.0, other))
    outcome: ReadOutcome[StreamedLane] = ReadOutcome(
        (InputReport("a", "events", 1, 1), InputReport("b", "events", 2, 2)), lanes)
    return Analysis(outcome, tuple(StreamedLaneResult(lane, lane.summary) for lane in lanes),
                    summary + other)


@given(summaries(floats=lambda: _FINITE), summaries(floats=lambda: _FINITE))
def test_every_finite_figure_reads_back_with_its_value_and_type(
    summary: ParallelismSummary, other: ParallelismSummary
) -> None:
    """Any finite figures (any float, not only whole ones) survive the document: the same
    value, and an int is not read back as a float nor the reverse."""
    analysis = _analysis(summary, other)
    back = analysis_of(json.loads(render_json(analysis)))
    assert back is not None
    for before, after in [(analysis.total, back.total),
                          *((r.summary, b.summary) for r, b in zip(analysis.lanes, back.lanes,
                                                                    strict=True))]:
        for name in SUMMARY_FIELDS:
            value, read = getattr(before, name), getattr(after, name)
            assert (type(read), read) == (type(value), value), name


@needs_corpus
@pytest.mark.parametrize("show_paths", [False, True])
def test_every_format_of_the_whole_corpus_is_drawn_the_same_from_its_document(
    show_paths: bool,
) -> None:
    """The whole corpus (every format, unreadable and skipped files, copies) read by the
    Python readers: each output (every format, the whole-lane ``--by`` groups) drawn
    from the analysis read back from its JSON document is the one drawn from the
    analysis itself, notes included."""
    outcome = read_inputs([str(CORPUS)], stream=StreamSettings())
    analysis = analyse(outcome)
    options = options_record()
    back = analysis_of(json.loads(render_json(analysis, options)))
    assert back is not None
    assert len(back.lanes) == len(analysis.lanes) > 50
    assert back.outcome.inputs == analysis.outcome.inputs
    for output_format in PLAIN_FORMATS:
        for terminal in (False, True):
            for by in (None, "session", "lane", "project"):
                if by is not None and output_format == "jsonl":
                    continue  # no such output
                record = {**options, "by": by}
                assert render_plain(back, output_format, record, show_paths=show_paths,
                                    terminal=terminal) == render_plain(
                    analysis, output_format, record, show_paths=show_paths,
                    terminal=terminal), (output_format, by)
