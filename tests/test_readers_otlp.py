"""The ``otlp`` reader (OTLP/JSON files) on the real corpus and on small fixtures.

The corpus has one OTLP/JSON file, the official example of opentelemetry-proto:
one server span without GenAI attributes (trace ``5B8E…C60C``, 1 s long). A
throwaway script written from ``docs/formats.md`` gives one session (the trace
id in lower case), one item (the span, ignored as a non-tool span) and no tool
call. Fixture figures are worked out by hand in the comments beside them.
"""

from __future__ import annotations

import json
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from tests.reader_checks import (
    WAVE_FIGURES,
    cli_document,
    lane_figures,
    observation_tuples,
    read_one,
    sniffs,
    write_records,
)
from wavemetrics import ParallelismSummary, assemble_waves, summarize
from wavemetrics.readers.dispatch import InputReport
from wavemetrics.readers.otlp import OTLP
from wavemetrics.run.pipeline import Lane, read_inputs

# 2026-01-01T00:00:00Z in ms and ns.
BASE_MS = 1_767_225_600_000
BASE_NS = BASE_MS * 10**6
TRACE = "0af7651916cd43dd8448eb211c80319c"
EXAMPLE_TRACE = "5b8efff798038103d269b633813fc60c"


def _ns(offset_ms: int) -> int:
    return BASE_NS + offset_ms * 10**6


def _attr(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _span(
    span_id: str, start: Any, end: Any, *, tool: str | None = "read", call_id: str | None = None,
    parent: str | None = None, trace: str = TRACE, name: str | None = None,
    operation: str | None = None, extra: tuple[tuple[str, str], ...] = (), raw: bool = False,
) -> dict[str, Any]:
    """An OTLP/JSON span; ``tool`` set makes it an ``execute_tool`` span. Integer
    ``start``/``end`` are ms offsets from BASE written as JSON numbers of ns, other
    values (and all values with ``raw``) are written verbatim; ``None`` omits the key."""
    attributes = []
    if tool is not None or operation == "execute_tool":
        attributes.append(_attr("gen_ai.operation.name", "execute_tool"))
        if tool is not None:
            attributes.append(_attr("gen_ai.tool.name", tool))
        if call_id is not None:
            attributes.append(_attr("gen_ai.tool.call.id", call_id))
    elif operation is not None:
        attributes.append(_attr("gen_ai.operation.name", operation))
    attributes.extend(_attr(k, v) for k, v in extra)
    span: dict[str, Any] = {
        "traceId": trace, "spanId": span_id, "parentSpanId": parent or "",
        "name": name if name is not None else f"execute_tool {tool}", "kind": 1,
        "attributes": attributes,
    }
    if start is not None:
        span["startTimeUnixNano"] = start if raw or not isinstance(start, int) else _ns(start)
    if end is not None:
        span["endTimeUnixNano"] = end if raw or not isinstance(end, int) else _ns(end)
    return span


def _batch(spans: list[Any], resource: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    return {"resourceSpans": [{
        "resource": {"attributes": [_attr(k, v) for k, v in resource]},
        "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}],
    }]}


def _write(tmp_path: Path, records: list[Any], name: str = "traces.jsonl") -> str:
    return write_records(tmp_path, records, name)


def _read(path: str, input_format: str = "auto") -> tuple[InputReport, list[Lane]]:
    return read_one(path, "otlp", input_format)


def _summary(lane: Lane) -> ParallelismSummary:
    return summarize(assemble_waves(lane.observations))


@needs_corpus
def test_corpus_example_has_no_lane_without_tool_spans() -> None:
    """The official OTLP example is read and accounted, but makes no lane (it has no tool span)."""
    report, lanes = _read(str(CORPUS / "opentelemetry-proto" / "trace.json"))
    assert (report.lines_read, report.lines_used, report.lines_ignored, report.problems) == (
        1, 0, 1, {})
    assert report.ignored == {"non_tool_span": 1}
    # docs/formats.md (2026): span readers make lanes only for sessions with tool spans.
    assert lanes == []



def test_tool_spans_are_fed_as_start_end_pairs_in_start_order(tmp_path: Path) -> None:
    """Each tool span is a start followed by its own end, spans ordered by start time."""
    path = _write(tmp_path, [_batch([
        _span("00000000000000c0", 300, 400, tool="grep", call_id="c"),
        _span("00000000000000a0", 100, 250, tool="read", call_id="a"),
        _span("00000000000000b0", 200, 260, tool="glob", call_id="b"),
    ])])
    report, (lane,) = _read(path)
    assert lane.session_id == TRACE
    assert observation_tuples(lane) == [
        ("start", "a", "read", BASE_MS + 100.0), ("end", "a", "read", BASE_MS + 250.0),
        ("start", "b", "glob", BASE_MS + 200.0), ("end", "b", "glob", BASE_MS + 260.0),
        ("start", "c", "grep", BASE_MS + 300.0), ("end", "c", "grep", BASE_MS + 400.0),
    ]
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (3, 3, 0)
    summary = _summary(lane)
    # Wave [100, 260] of a and b: durations 150 + 60 = 210, span 160, peak 2; then c alone.
    assert (summary.non_eval_waves_total, summary.non_eval_waves_multi,
            summary.non_eval_wave_size_histogram, summary.modeled_wallclock_saved_ms,
            summary.upper_bound_saved_ms, summary.non_eval_saved_round_trips) == (
        2, 1, "1:1:0:0:0:0:0:0", 50.0, 105.0, 1)


def test_ns_strings_and_numbers_convert_exactly(tmp_path: Path) -> None:
    """Decimal-string and JSON-number ns give the same ms, by one exact division."""
    exact_ns = 1751247501952174197
    # Through a float the value would be 1751247501952.174; exactly it rounds to ...1743.
    assert float(exact_ns) / 1e6 != float(Fraction(exact_ns, 10**6))
    path = _write(tmp_path, [_batch([
        _span("0000000000000001", str(_ns(10)), str(_ns(20)), call_id="as-strings"),
        _span("0000000000000002", _ns(10), _ns(20), call_id="as-numbers", raw=True),
        _span("0000000000000003", str(exact_ns), exact_ns + 1_000_000, call_id="exact",
              raw=True),
    ])])
    _, (lane,) = _read(path)
    # Fed by start time: the 2025 call first.
    assert [o.at_ms for o in lane.observations] == [
        1751247501952.1743, 1751247501953.1743,
        BASE_MS + 10.0, BASE_MS + 20.0, BASE_MS + 10.0, BASE_MS + 20.0,
    ]


def test_zero_and_malformed_times_are_invalid_timestamps(tmp_path: Path) -> None:
    """Tool spans with a 0, negative, float, non-digit or missing start, or a 0 end, are problems."""
    bad = [
        _span("0000000000000001", 0, None, raw=True), _span("0000000000000002", "0", "5"),
        _span("0000000000000003", "-5", _ns(9), raw=True),
        _span("0000000000000004", 1.7e18, _ns(9), raw=True),
        _span("0000000000000005", "17x", _ns(9), raw=True),
        _span("0000000000000006", None, _ns(9), raw=True),
        _span("0000000000000007", _ns(1), 0, raw=True),
        _span("0000000000000008", True, _ns(9), raw=True),
    ]
    path = _write(tmp_path, [_batch([
        *bad, _span("00000000000000f0", 0, 0, tool=None, operation="chat", raw=True),
    ])])
    report, lanes = _read(path)
    assert report.problems == {"invalid_timestamp": 8}
    assert report.ignored == {"non_tool_span": 1}
    assert (report.lines_read, report.lines_used) == (9, 0)
    assert lanes == []  # no usable tool span, so no lane


def test_missing_end_is_a_start_alone(tmp_path: Path) -> None:
    """A tool span with no endTimeUnixNano is an incomplete call."""
    path = _write(tmp_path, [_batch([
        _span("0000000000000001", 100, None, call_id="open"),
        _span("0000000000000002", 50, 90, call_id="done"),
    ])])
    report, (lane,) = _read(path)
    assert observation_tuples(lane) == [
        ("start", "done", "read", BASE_MS + 50.0), ("end", "done", "read", BASE_MS + 90.0),
        ("start", "open", "read", BASE_MS + 100.0),
    ]
    summary = _summary(lane)
    assert (summary.observed_calls, summary.paired_calls, summary.incomplete_calls) == (2, 1, 1)
    assert report.lines_used == 2


def test_end_before_start_reaches_the_core_as_a_clock_anomaly(tmp_path: Path) -> None:
    """A reversed span is fed as is and counted by the core as a clock anomaly."""
    path = _write(tmp_path, [_batch([_span("0000000000000001", 500, 400, call_id="r")])])
    report, (lane,) = _read(path)
    assert observation_tuples(lane) == [
        ("start", "r", "read", BASE_MS + 500.0), ("end", "r", "read", BASE_MS + 400.0),
    ]
    assert (_summary(lane).clock_anomalies, report.lines_used) == (1, 1)


def test_duplicate_spans_of_one_call_the_innermost_wins(tmp_path: Path) -> None:
    """Of a tool span and an MCP client span for the same call id, the shorter one is used."""
    path = _write(tmp_path, [_batch([
        _span("00000000000000a1", 100, 500, tool="search", call_id="call_1"),
        _span("00000000000000a2", 120, 480, tool="mcp_search", call_id="call_1",
              parent="00000000000000a1"),
        _span("00000000000000b1", 600, 700, tool="outer", call_id="call_2"),
        _span("00000000000000b2", 600, 700, tool="inner", call_id="call_2",
              parent="00000000000000b1"),
    ])])
    report, (lane,) = _read(path)
    # call_2's copies are equally long: the deeper span (the child) wins.
    assert observation_tuples(lane) == [
        ("start", "call_1", "mcp_search", BASE_MS + 120.0),
        ("end", "call_1", "mcp_search", BASE_MS + 480.0),
        ("start", "call_2", "inner", BASE_MS + 600.0),
        ("end", "call_2", "inner", BASE_MS + 700.0),
    ]
    assert report.ignored == {"duplicate_span": 2}
    assert (report.lines_read, report.lines_used) == (4, 2)


def test_a_copy_with_usable_timing_beats_one_without_end_or_reversed(tmp_path: Path) -> None:
    """Among duplicates a span with no end or an end before its start only wins alone."""
    path = _write(tmp_path, [_batch([
        _span("0000000000000001", 100, None, call_id="x"),
        _span("0000000000000002", 300, 200, call_id="x"),
        _span("0000000000000003", 100, 900, call_id="x"),
    ])])
    report, (lane,) = _read(path)
    assert [o.at_ms for o in lane.observations] == [BASE_MS + 100.0, BASE_MS + 900.0]
    assert report.ignored == {"duplicate_span": 2}


def test_synthetic_timing_is_set_aside(tmp_path: Path) -> None:
    """Zero-length tool spans and sibling tool spans copying their parent's times are not used."""
    path = _write(tmp_path, [_batch([
        _span("00000000000000f1", 100, 200, tool=None, operation="chat"),
        _span("0000000000000011", 100, 200, call_id="copied-1", parent="00000000000000f1"),
        _span("0000000000000012", 100, 200, call_id="copied-2", parent="00000000000000f1"),
        _span("0000000000000013", 120, 180, call_id="measured", parent="00000000000000f1"),
        _span("00000000000000f2", 300, 400, tool=None, operation="chat"),
        _span("0000000000000021", 300, 400, call_id="only-child", parent="00000000000000f2"),
        _span("0000000000000031", 500, 500, call_id="zero-length"),
    ])])
    report, (lane,) = _read(path)
    # A lone tool span that matches its parent is measured time, and is used.
    assert [o.call_id for o in lane.observations] == [
        "measured", "measured", "only-child", "only-child"]
    assert report.ignored == {"non_tool_span": 2, "synthetic_timing": 3}
    assert (report.lines_read, report.lines_used) == (7, 2)


def test_span_ids_must_be_hex_of_the_right_length(tmp_path: Path) -> None:
    """A span whose spanId or traceId is not 16 or 32 hex digits is an invalid_span_id problem."""
    path = _write(tmp_path, [_batch([
        _span("00000000000000zz", 1, 2, tool=None, operation="chat"),
        _span("000000000000001", 1, 2, call_id="short"),
        _span("0000000000000001", 1, 2, call_id="short-trace", trace="abc"),
        _span("0000000000000002", 1, 2, call_id="ok", parent="not-a-span-id"),
    ])])
    report, (lane,) = _read(path)
    assert report.problems == {"invalid_span_id": 3}
    assert [o.call_id for o in lane.observations] == ["ok", "ok"]


def test_session_id_lookup_order(tmp_path: Path) -> None:
    """Session: the span's own attribute, then the nearest ancestor's, then the resource's,
    else the trace id in lower case; gen_ai.conversation.id before session.id on one span."""
    t1, t2, t3, t4 = ("1" * 32, "2" * 32, "3" * 32, "ABCDEF0123456789ABCDEF0123456789")
    own = _span("0000000000000001", 10, 20, call_id="own", trace=t1,
                extra=(("session.id", "s-own"), ("gen_ai.conversation.id", "conv-own")))
    root = _span("00000000000000a0", 0, 100, tool=None, operation="invoke_agent", trace=t2,
                 extra=(("gen_ai.conversation.id", "conv-root"),))
    chat = _span("00000000000000a1", 1, 99, tool=None, operation="chat", trace=t2,
                 parent="00000000000000a0")
    deep = _span("00000000000000a2", 10, 20, call_id="deep", trace=t2, parent="00000000000000a1")
    near_root = _span("00000000000000b0", 0, 100, tool=None, operation="invoke_agent",
                      trace=t3, extra=(("gen_ai.conversation.id", "conv-far"),))
    near = _span("00000000000000b1", 1, 99, tool=None, operation="chat", trace=t3,
                 parent="00000000000000b0", extra=(("session.id", "s-near"),))
    near_tool = _span("00000000000000b2", 10, 20, call_id="near", trace=t3,
                      parent="00000000000000b1")
    path = _write(tmp_path, [
        _batch([own]),
        _batch([deep, chat, root]),
        _batch([near_tool, near, near_root]),
        _batch([_span("00000000000000c1", 10, 20, call_id="res", trace=t4)],
               resource=(("session.id", "s-resource"),)),
        _batch([_span("00000000000000d1", 10, 20, call_id="bare", trace=t4)]),
    ])
    report, lanes = _read(path)
    # The root holding conv-far has no tool span of its own: no lane for it.
    assert [(lane.session_id, [o.call_id for o in lane.observations][:1]) for lane in lanes] == [
        ("conv-own", ["own"]), ("conv-root", ["deep"]), ("s-near", ["near"]),
        ("s-resource", ["res"]), ("abcdef0123456789abcdef0123456789", ["bare"]),
    ]
    assert (report.lines_read, report.lines_used, report.ignored) == (
        9, 5, {"non_tool_span": 4})


def test_spans_split_across_batches_are_joined(tmp_path: Path) -> None:
    """A tool span's ancestor and the session id on it may arrive in a later line."""
    path = _write(tmp_path, [
        _batch([_span("0000000000000002", 10, 30, call_id="a", parent="0000000000000001")]),
        _batch([_span("0000000000000003", 20, 40, call_id="b", parent="0000000000000001")]),
        _batch([_span("0000000000000001", 0, 50, tool=None, operation="invoke_agent",
                      extra=(("gen_ai.conversation.id", "conv-1"),))]),
    ])
    report, (lane,) = _read(path)
    assert lane.session_id == "conv-1"
    assert [o.call_id for o in lane.observations] == ["a", "a", "b", "b"]
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (3, 2, 1)
    # One wave [10, 40]: durations 20 + 20 = 40, span 30, peak 2.
    assert (_summary(lane).modeled_wallclock_saved_ms, _summary(lane).upper_bound_saved_ms) == (
        10.0, 20.0)


def test_one_batch_line_counts_one_item_per_span(tmp_path: Path) -> None:
    """A line holding several resource and scope entries counts each span once."""
    document = _batch([_span("0000000000000001", 1, 2, call_id="a"),
                       _span("0000000000000002", 3, 4, tool=None, operation="chat")])
    document["resourceSpans"].append({"scopeSpans": [
        {"spans": [_span("0000000000000003", 5, 6, call_id="b")]},
        {"scope": {"name": "empty"}},
    ]})
    report, (lane,) = _read(_write(tmp_path, [document]))
    assert (report.lines_read, report.lines_used, report.lines_ignored, report.problems) == (
        3, 2, 1, {})
    assert len(lane.observations) == 4


def test_tool_name_and_call_id_fallbacks(tmp_path: Path) -> None:
    """Without gen_ai.tool.name the span name loses its prefix; without a call id the
    lower-case spanId is the call id; a name that ends up empty is a problem."""
    path = _write(tmp_path, [_batch([
        _span("00000000000000AB", 10, 20, tool=None, operation="execute_tool",
              name="execute_tool web_fetch"),
        _span("00000000000000CD", 30, 40, tool=None, operation="execute_tool", name="lookup"),
        _span("00000000000000EF", 50, 60, tool=None, operation="execute_tool",
              name="execute_tool "),
        _span("0000000000000010", 70, 80, tool="", operation="execute_tool", name=""),
    ])])
    report, (lane,) = _read(path)
    assert observation_tuples(lane) == [
        ("start", "00000000000000ab", "web_fetch", BASE_MS + 10.0),
        ("end", "00000000000000ab", "web_fetch", BASE_MS + 20.0),
        ("start", "00000000000000cd", "lookup", BASE_MS + 30.0),
        ("end", "00000000000000cd", "lookup", BASE_MS + 40.0),
    ]
    assert report.problems == {"invalid_tool_record": 2}


def test_pretty_printed_document_is_detected_and_read_whole(tmp_path: Path) -> None:
    """A single indented OTLP/JSON document whose first line is ``{`` is auto-detected."""
    document = _batch([_span("0000000000000001", 10, 20, call_id="a"),
                       _span("0000000000000002", 15, 30, call_id="b")])
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    assert path.read_text(encoding="utf-8").splitlines()[0] == "{"
    report, (lane,) = _read(str(path))
    assert (report.lines_read, report.lines_used) == (2, 2)
    # One wave [10, 30]: durations 10 + 15, span 20, peak 2.
    assert (_summary(lane).modeled_wallclock_saved_ms, _summary(lane).non_eval_saved_round_trips
            ) == (5.0, 1)


def test_bad_lines_and_malformed_containers_are_each_accounted(tmp_path: Path) -> None:
    """Every line or container that gives no span is one item: ignored or a problem by reason."""
    path = tmp_path / "mixed.jsonl"
    good = _batch([_span("0000000000000001", 10, 20, call_id="a")])
    records = [
        json.dumps(good), "", "{not json", "[1, 2]", json.dumps({"resourceLogs": []}),
        json.dumps({"hello": 1}), json.dumps({"resourceSpans": []}),
        json.dumps({"resourceSpans": "x"}),
        json.dumps({"resourceSpans": [1, {"scopeSpans": "x"}, {"scopeSpans": [
            {"spans": [7, {"traceId": "short", "spanId": "0000000000000002"}]}, "scope"]}]}),
    ]
    path.write_bytes(("\n".join(records) + "\n").encode() + b'{"resourceSpans": [')
    report, (lane,) = _read(str(path))
    assert report.ignored == {"blank_line": 1, "no_spans": 1, "resourceLogs": 1,
                              "unknown_record": 1}
    assert report.problems == {
        "invalid_json": 1, "invalid_span": 1, "invalid_span_id": 1, "invalid_structure": 4,
        "not_an_object": 1, "truncated_last_line": 1,
    }
    assert (report.lines_read, report.lines_used) == (14, 1)
    assert len(lane.observations) == 2


def test_a_single_document_cut_short_is_an_error_for_the_input(tmp_path: Path) -> None:
    """A pretty-printed document cut short is one item, a problem, and fails the input
    (``docs/formats.md``: never "1 line not usable" with its contents silently lost)."""
    text = json.dumps(_batch([_span("0000000000000001", 10, 20)]), indent=2)
    lines = text.splitlines()[:12]
    path = tmp_path / "cut.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    outcome = read_inputs([str(path)])
    (report,) = outcome.inputs
    assert (report.format, report.lines_read, report.lines_used, report.problems) == (
        "otlp", 1, 0, {"invalid_json": 1})
    assert report.error == "the JSON document does not parse (invalid_json)"
    assert outcome.lanes == ()


def test_concatenated_pretty_documents_resume_after_a_bad_one(tmp_path: Path) -> None:
    """101 pretty-printed documents, the 51st with a bad value: 100 are read, 1 is a problem."""
    documents = []
    for index in range(101):
        text = json.dumps(_batch([_span(f"{index + 1:016x}", index * 100, index * 100 + 10,
                                        call_id=f"c{index}")]), indent=2)
        if index == 50:
            text = text.replace('"kind": 1', '"kind": tru')
        documents.append(text)
    path = tmp_path / "stream.json"
    path.write_text("\n".join(documents) + "\n", encoding="utf-8")
    report, (lane,) = _read(str(path))
    assert (report.lines_read, report.lines_used, report.problems) == (
        101, 100, {"invalid_json": 1})
    assert len(lane.observations) == 200  # 100 calls, a start and an end each


@pytest.mark.parametrize("broken_after", [0, 1, 50, 100])
def test_a_cut_document_in_a_pretty_stream_loses_only_itself(
    tmp_path: Path, broken_after: int,
) -> None:
    """100 pretty-printed documents of one 10 ms call each, 100 ms apart, with a cut
    document ``{ "broken":`` and a newline after the first ``broken_after`` (start,
    second, middle, end): the cut one is one problem and reading resumes at the next
    document, 101 items = 100 used + 1 problem, 100 calls paired, no error."""
    documents = [json.dumps(_batch([_span(f"{index + 1:016x}", index * 100, index * 100 + 10,
                                          call_id=f"c{index}")]), indent=2) + "\n"
                 for index in range(100)]
    documents.insert(broken_after, '{ "broken":\n')
    path = tmp_path / "stream.json"
    path.write_text("".join(documents), encoding="utf-8")
    report, (lane,) = _read(str(path))
    assert (report.lines_read, report.lines_used, report.lines_ignored, report.problems,
            report.error) == (101, 100, 0, {"invalid_json": 1}, None)
    summary = _summary(lane)
    assert (summary.observed_calls, summary.paired_calls) == (100, 100)
    assert [o.call_id for o in lane.observations[::2]] == [f"c{i}" for i in range(100)]


def test_a_document_with_values_in_the_first_column_is_one_document(tmp_path: Path) -> None:
    """``json.dumps(..., indent=0)`` writes nested values in the first column: a value that
    closes and parses is one document, never cut there; after a cut document it is read
    whole too (2 items: the cut one, a problem; the batch with its 2 spans)."""
    batch = _batch([_span("0000000000000001", 10, 20, call_id="a"),
                    _span("0000000000000002", 15, 30, call_id="b")])
    text = json.dumps(batch, indent=0)
    assert "\n{\n" in text  # the spans' objects begin lines
    path = tmp_path / "flat.json"
    path.write_text(text + "\n", encoding="utf-8")
    report, (lane,) = _read(str(path))
    assert (report.lines_read, report.lines_used, report.problems) == (2, 2, {})
    path.write_text('{ "broken":\n' + text + "\n", encoding="utf-8")
    report, (lane,) = _read(str(path))
    assert (report.lines_read, report.lines_used, report.problems) == (
        3, 2, {"invalid_json": 1})
    assert [o.call_id for o in lane.observations] == ["a", "a", "b", "b"]


def test_many_cut_documents_are_each_one_problem(tmp_path: Path) -> None:
    """20,000 cut documents in a row (each would hold the rest of the input): each is one
    problem, and the lines read again stay within the input's size (the test ends
    quickly rather than in quadratic time)."""
    path = tmp_path / "cuts.json"
    path.write_text('{ "broken":\n' * 20_000, encoding="utf-8")
    report, lanes = _read(str(path), "otlp")
    assert (report.lines_read, report.lines_used, report.problems) == (
        20_000, 0, {"invalid_json": 20_000})
    assert report.error is not None  # every item a problem: the input is unusable
    assert report.error.startswith("no usable record: 20000 lines read as otlp")
    assert lanes == []


def test_documents_side_by_side_and_strings_with_brackets_are_split_right(
    tmp_path: Path,
) -> None:
    """``}{`` on one line starts the next document; brackets and escaped quotes inside
    strings do not end one."""
    one = json.dumps(_batch([_span("0000000000000001", 10, 20, call_id='a}"]{')]), indent=1)
    two = json.dumps(_batch([_span("0000000000000002", 30, 40, call_id="b")]))
    path = tmp_path / "packed.json"
    path.write_text(one + two + "\n", encoding="utf-8")
    report, (lane,) = _read(str(path))
    assert (report.lines_read, report.lines_used, report.problems) == (2, 2, {})
    assert [o.call_id for o in lane.observations] == ['a}"]{', 'a}"]{', "b", "b"]


def test_garbage_after_a_document_is_one_problem(tmp_path: Path) -> None:
    """Text after a complete pretty-printed document counts as one invalid_json item."""
    text = json.dumps(_batch([_span("0000000000000001", 10, 20)]), indent=2)
    path = tmp_path / "trailing.json"
    path.write_text(text + "\n}}} trailing\nmore\n", encoding="utf-8")
    report, (lane,) = _read(str(path))
    assert (report.lines_read, report.lines_used, report.problems) == (
        2, 1, {"invalid_json": 1})
    assert len(lane.observations) == 2


def test_empty_spans_list_document_reports_no_lane(tmp_path: Path) -> None:
    """A batch with no span is one ignored item and creates no lane."""
    report, lanes = _read(_write(tmp_path, [_batch([])]))
    assert (report.lines_read, report.ignored, lanes) == (1, {"no_spans": 1}, [])


def test_sniff_recognises_both_layouts_and_nothing_else() -> None:
    """Detection accepts JSON Lines batches and an indented document, not other JSON."""
    line = json.dumps(_batch([])).encode() + b"\n"
    pretty = [b"{\n", b'  "resourceSpans": [\n', b"    {\n"]
    assert sniffs(OTLP, [line], "x.jsonl")
    assert sniffs(OTLP, [b"\xef\xbb\xbf" + line], "x.jsonl")
    assert sniffs(OTLP, pretty, "x.json")
    assert sniffs(OTLP, [b'{"resourceLogs": []}\n', line], "x.jsonl")
    assert not sniffs(OTLP, [b'{"spans": []}\n'], "x.json")
    assert not sniffs(OTLP, [b'{"type": "user", "text": "{\\"resourceSpans\\": []}"}\n'], "x")
    assert not sniffs(OTLP, [b"[\n", b'  {"resourceSpans": [\n'], "x.json")
    assert not sniffs(OTLP, [b"PK\x03\x04binary"], "x.eval")


def test_malformed_attribute_entries_are_skipped(tmp_path: Path) -> None:
    """Attribute entries with a non-string key, no value object or a non-string value count
    as absent, so the span falls back to its name and spanId."""
    span = _span("00000000000000a1", 10, 20, tool=None, name="execute_tool fallback")
    span["attributes"] = [
        {"key": ["gen_ai.tool.name"], "value": {"stringValue": "x"}},
        {"key": "gen_ai.tool.name", "value": "not an object"},
        {"key": "gen_ai.tool.call.id", "value": {"intValue": "7"}},
        "entry", _attr("gen_ai.operation.name", "execute_tool"),
    ]
    report, (lane,) = _read(_write(tmp_path, [_batch([span])]))
    assert observation_tuples(lane)[0] == ("start", "00000000000000a1", "fallback", BASE_MS + 10.0)
    assert report.lines_used == 1


# --- 2026 shapes: agent lanes, MCP duplicates, sibling sessions, Claude Code spans.

def _agent(span_id: str, start: int, end: int, name: str, *, parent: str | None = None,
           extra: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    """An ``invoke_agent`` span named ``name`` (``gen_ai.agent.name``)."""
    return _span(span_id, start, end, tool=None, operation="invoke_agent", parent=parent,
                 name=f"invoke_agent {name}", extra=(("gen_ai.agent.name", name), *extra))


def _multi_agent(nested: bool) -> list[dict[str, Any]]:
    """A planner whose two workers each run one ``read``; ``nested=False`` drops the
    worker agent spans (the tools hang straight under the planner)."""
    planner = _agent("00000000000000a0", 0, 3000, "planner",
                     extra=(("gen_ai.conversation.id", "conv-1"),))
    workers = [_agent("00000000000000a1", 100, 2000, "worker-a", parent="00000000000000a0"),
               _agent("00000000000000a2", 100, 2500, "worker-b", parent="00000000000000a0")]
    up_a = "00000000000000a1" if nested else "00000000000000a0"
    up_b = "00000000000000a2" if nested else "00000000000000a0"
    tools = [_span("00000000000000b1", 200, 700, call_id="a1", parent=up_a),
             _span("00000000000000b2", 250, 1000, call_id="b1", parent=up_b)]
    return [planner, *(workers if nested else []), *tools]


def test_sub_agents_are_lanes_and_never_share_a_wave(tmp_path: Path) -> None:
    """Each nested invoke_agent is a lane of its own; a planner without tool spans has none."""
    flat = _write(tmp_path, [_batch(_multi_agent(nested=False))], "flat.jsonl")
    # One agent: a1 [200, 700] and b1 [250, 1000] are one wave, durations 500 + 750 = 1250,
    # span 800: 450 ms saved, peak 2 (the figure read as one lane, before the agent-lane rule).
    assert lane_figures(cli_document([flat])[1], *WAVE_FIGURES) == {
        ("conv-1", "main"): (2, "0:1:0:0:0:0:0:0", 1, 450.0)}
    nested = _write(tmp_path, [_batch(_multi_agent(nested=True))], "nested.jsonl")
    code, document = cli_document([nested])
    assert code == 0
    assert lane_figures(document, *WAVE_FIGURES) == {
        ("conv-1", "worker-a"): (1, "1:0:0:0:0:0:0:0", 0, 0.0),
        ("conv-1", "worker-b"): (1, "1:0:0:0:0:0:0:0", 0, 0.0),
    }
    assert document["total"]["modeled_wallclock_saved_ms"] == 0.0
    (entry,) = document["inputs"]
    assert (entry["lines_read"], entry["lines_used"], entry["ignored"]) == (
        5, 2, {"non_tool_span": 3})


def _agent_as_tool() -> list[dict[str, Any]]:
    """``execute_tool research`` -> ``invoke_agent researcher`` -> two sequential web_fetch."""
    return [
        _agent("00000000000000a0", 0, 10000, "planner"),
        _span("00000000000000c1", 1000, 6000, tool="research", call_id="call_r",
              parent="00000000000000a0"),
        _agent("00000000000000a1", 1100, 5900, "researcher", parent="00000000000000c1"),
        _span("00000000000000c2", 1200, 3200, tool="web_fetch", call_id="w1",
              parent="00000000000000a1"),
        _span("00000000000000c3", 3300, 5300, tool="web_fetch", call_id="w2",
              parent="00000000000000a1"),
    ]


def test_an_agent_called_as_a_tool_is_its_own_lane(tmp_path: Path) -> None:
    """The research call stays in the planner's lane ``main``; the researcher's calls are a lane."""
    # In one lane: research [1000, 6000] overlaps both fetches: one wave of 3, durations
    # 5000 + 2000 + 2000 = 9000, span 5000: 4000 ms saved, peak 2 (before the agent-lane rule),
    # rebuilt here by making the agent spans plain chat spans.
    flat = _agent_as_tool()
    for span in flat:
        for attribute in span["attributes"]:
            if attribute["value"].get("stringValue") == "invoke_agent":
                attribute["value"]["stringValue"] = "chat"
    one_lane = _write(tmp_path, [_batch(flat)], "one-lane.jsonl")
    assert lane_figures(cli_document([one_lane])[1], *WAVE_FIGURES) == {
        (TRACE, "main"): (3, "0:0:1:0:0:0:0:0", 1, 4000.0)}
    path = _write(tmp_path, [_batch(_agent_as_tool())])
    assert lane_figures(cli_document([path])[1], *WAVE_FIGURES) == {
        (TRACE, "main"): (1, "1:0:0:0:0:0:0:0", 0, 0.0),
        (TRACE, "researcher"): (2, "2:0:0:0:0:0:0:0", 0, 0.0),
    }


def test_several_top_level_agents_are_lanes_keyed_by_id_then_name_then_span(
    tmp_path: Path,
) -> None:
    """Two top-level agents are two lanes: ``gen_ai.agent.id`` before the name, the span id last;
    tool spans with no agent above them are ``main``."""
    spans = [
        _agent("00000000000000a1", 0, 900, "alpha", extra=(("gen_ai.agent.id", "agt_1"),)),
        _span("00000000000000d1", 10, 500, call_id="x1", parent="00000000000000a1"),
        _span("00000000000000a2", 0, 900, tool=None, operation="invoke_agent",
              name="invoke_agent"),
        _span("00000000000000d2", 20, 400, call_id="x2", parent="00000000000000a2"),
        _span("00000000000000d3", 30, 300, call_id="x3"),
    ]
    _, lanes = _read(_write(tmp_path, [_batch(spans)]))
    assert [(lane.lane_id, len(lane.observations)) for lane in lanes] == [
        ("agt_1", 2), ("00000000000000a2", 2), ("main", 2)]


def _mcp_call(ends: tuple[int, int, int] = (2000, 1990, 1870)) -> list[dict[str, Any]]:
    """One MCP call as three execute_tool spans: GenAI tool span, MCP client span, MCP server
    span; the two MCP spans carry ``jsonrpc.request.id`` and no call id."""
    rpc = (("jsonrpc.request.id", "7"), ("mcp.method.name", "tools/call"))
    return [
        _span("00000000000000e1", 0, ends[0], tool="get-weather", call_id="call_1"),
        _span("00000000000000e2", 10, ends[1], tool="get-weather", parent="00000000000000e1",
              extra=rpc),
        _span("00000000000000e3", 20, ends[2], tool="get-weather", parent="00000000000000e2",
              extra=rpc),
    ]


def test_nested_mcp_spans_of_one_call_count_once_innermost_wins(tmp_path: Path) -> None:
    """The GenAI, MCP client and MCP server spans of one call are one call: the server span."""
    # Counted as three calls: durations 2000 + 1980 + 1850 = 5830, span 2000: 3830 ms
    # "saved", peak 3 so 2 round trips (before the MCP-span rule), rebuilt here by cutting the
    # parent links (three unrelated spans). As one call: nothing saved.
    unlinked = _mcp_call()
    for span in unlinked:
        span["parentSpanId"] = ""
    three = _write(tmp_path, [_batch(unlinked)], "unlinked.jsonl")
    assert lane_figures(cli_document([three])[1], *WAVE_FIGURES) == {
        (TRACE, "main"): (3, "0:0:1:0:0:0:0:0", 2, 3830.0)}
    report, (lane,) = _read(_write(tmp_path, [_batch(_mcp_call())]))
    assert observation_tuples(lane) == [
        ("start", "00000000000000e3", "get-weather", BASE_MS + 20.0),
        ("end", "00000000000000e3", "get-weather", BASE_MS + 1870.0),
    ]
    assert (report.lines_read, report.lines_used, report.ignored) == (
        3, 1, {"duplicate_span": 2})
    summary = _summary(lane)
    assert (summary.observed_calls, summary.non_eval_saved_round_trips,
            summary.modeled_wallclock_saved_ms) == (1, 0, 0.0)


def test_same_named_tool_spans_across_an_agent_are_separate_calls(tmp_path: Path) -> None:
    """A tool span below a same-named tool span is a copy only with no invoke_agent between."""
    spans = [
        _span("00000000000000f1", 0, 1000, tool="research", call_id="outer"),
        _agent("00000000000000f2", 10, 990, "helper", parent="00000000000000f1"),
        _span("00000000000000f3", 20, 500, tool="research", call_id="inner",
              parent="00000000000000f2"),
    ]
    report, lanes = _read(_write(tmp_path, [_batch(spans)]))
    assert [(lane.lane_id, [o.call_id for o in lane.observations]) for lane in lanes] == [
        ("main", ["outer", "outer"]), ("helper", ["inner", "inner"])]
    assert report.ignored == {"non_tool_span": 1}


def test_the_one_conversation_id_of_a_trace_is_the_session(tmp_path: Path) -> None:
    """With no session on the tool span's ancestors or resource, the one conversation id on a
    sibling span of the trace is the session; two different ones leave the trace id."""
    one, two = "1" * 32, "2" * 32
    spans = [
        _span("0000000000000001", 0, 900, tool=None, name="agent_loop", trace=one),
        _span("0000000000000002", 10, 100, tool=None, operation="chat", trace=one,
              parent="0000000000000001", extra=(("gen_ai.conversation.id", "conv-x"),)),
        _span("0000000000000003", 110, 300, call_id="t1", trace=one, parent="0000000000000001"),
        _span("0000000000000011", 0, 900, tool=None, name="agent_loop", trace=two),
        _span("0000000000000012", 10, 100, tool=None, operation="chat", trace=two,
              parent="0000000000000011", extra=(("gen_ai.conversation.id", "conv-y"),)),
        _span("0000000000000013", 10, 100, tool=None, operation="chat", trace=two,
              parent="0000000000000011", extra=(("gen_ai.conversation.id", "conv-z"),)),
        _span("0000000000000014", 110, 300, call_id="t2", trace=two, parent="0000000000000011"),
    ]
    _, lanes = _read(_write(tmp_path, [_batch(spans)]))
    assert [(lane.session_id, lane.observations[0].call_id) for lane in lanes] == [
        ("conv-x", "t1"), (two, "t2")]


def test_sessions_without_tool_spans_get_no_lane(tmp_path: Path) -> None:
    """A conversation made only of chat spans reports no 0-call lane beside the one with tools."""
    spans = [
        _span("0000000000000001", 0, 100, tool=None, operation="chat", trace="1" * 32,
              extra=(("gen_ai.conversation.id", "talk-only"),)),
        _span("0000000000000002", 0, 100, call_id="t", trace="2" * 32,
              extra=(("gen_ai.conversation.id", "with-tools"),)),
    ]
    _, lanes = _read(_write(tmp_path, [_batch(spans)]))
    assert [lane.session_id for lane in lanes] == ["with-tools"]


def _claude_span(span_id: str, start: int, end: int, name: str, *, parent: str | None = None,
                 **attributes: str) -> dict[str, Any]:
    """A span of Claude Code's own OTel traces (beta): no gen_ai.* attributes at all."""
    return _span(span_id, start, end, tool=None, name=name, parent=parent,
                 extra=(("session.id", "cc-session"), *attributes.items()))


def test_claude_code_tool_spans_are_calls_their_children_are_not(tmp_path: Path) -> None:
    """``claude_code.tool`` spans are calls (``tool_name``, ``tool_use_id`` else span id,
    ``session.id``); ``claude_code.tool.execution``/``blocked_on_user`` children are parts."""
    spans = [
        _claude_span("00000000000000a0", 0, 2000, "claude_code.interaction"),
        _claude_span("00000000000000a1", 0, 1000, "claude_code.tool", parent="00000000000000a0",
                     **{"span.type": "tool", "tool_name": "Read", "tool_use_id": "toolu_1"}),
        _claude_span("00000000000000a2", 5, 990, "claude_code.tool.execution",
                     parent="00000000000000a1", **{"span.type": "tool.execution"}),
        _claude_span("00000000000000a3", 200, 700, "claude_code.tool",
                     parent="00000000000000a0", **{"tool_name": "Grep"}),
        _claude_span("00000000000000a4", 200, 260, "claude_code.tool.blocked_on_user",
                     parent="00000000000000a3"),
    ]
    report, (lane,) = _read(_write(tmp_path, [_batch(spans)]))
    assert lane.session_id == "cc-session"
    assert observation_tuples(lane) == [
        ("start", "toolu_1", "Read", BASE_MS + 0.0), ("end", "toolu_1", "Read", BASE_MS + 1000.0),
        ("start", "00000000000000a3", "Grep", BASE_MS + 200.0),
        ("end", "00000000000000a3", "Grep", BASE_MS + 700.0),
    ]
    assert (report.lines_used, report.ignored) == (2, {"non_tool_span": 3})
    # One wave [0, 1000]: durations 1000 + 500, span 1000: 500 ms saved, peak 2.
    summary = _summary(lane)
    assert (summary.modeled_wallclock_saved_ms, summary.non_eval_saved_round_trips) == (500.0, 1)


def test_a_claude_code_tool_span_without_tool_name_is_a_problem(tmp_path: Path) -> None:
    """A ``claude_code.tool`` span with no ``tool_name`` is an invalid tool record."""
    spans = [_claude_span("00000000000000a1", 0, 1000, "claude_code.tool")]
    report, lanes = _read(_write(tmp_path, [_batch(spans)]))
    assert (report.problems, lanes) == ({"invalid_tool_record": 1}, [])


@settings(max_examples=40, deadline=None)
@given(order=st.permutations(range(13)))
def test_span_figures_do_not_depend_on_span_order(order: list[int]) -> None:
    """Agent lanes, MCP copies and sessions are decided on the whole input: any span order
    (spans arrive out of order, split across batches) gives the same lanes and calls."""
    spans = [*_multi_agent(nested=True), *_agent_as_tool(), *_mcp_call()]
    # three traces, so ids cannot collide and conv-1 stays on the first one
    for span in spans[5:10]:
        span["traceId"] = "3" * 32
    for span in spans[10:]:
        span["traceId"] = "4" * 32
    shuffled = [spans[i] for i in order]
    with tempfile.TemporaryDirectory() as folder:
        _, lanes = _read(_write(Path(folder), [_batch(shuffled)]))
    assert {(lane.session_id, lane.lane_id): observation_tuples(lane) for lane in lanes} == {
        ("conv-1", "worker-a"): [("start", "a1", "read", BASE_MS + 200.0),
                                 ("end", "a1", "read", BASE_MS + 700.0)],
        ("conv-1", "worker-b"): [("start", "b1", "read", BASE_MS + 250.0),
                                 ("end", "b1", "read", BASE_MS + 1000.0)],
        ("3" * 32, "main"): [("start", "call_r", "research", BASE_MS + 1000.0),
                             ("end", "call_r", "research", BASE_MS + 6000.0)],
        ("3" * 32, "researcher"): [("start", "w1", "web_fetch", BASE_MS + 1200.0),
                                   ("end", "w1", "web_fetch", BASE_MS + 3200.0),
                                   ("start", "w2", "web_fetch", BASE_MS + 3300.0),
                                   ("end", "w2", "web_fetch", BASE_MS + 5300.0)],
        ("4" * 32, "main"): [("start", "00000000000000e3", "get-weather", BASE_MS + 20.0),
                             ("end", "00000000000000e3", "get-weather", BASE_MS + 1870.0)],
    }


def test_session_or_call_id_with_a_control_character_is_invalid_id(tmp_path: Path) -> None:
    """A tool span whose ``gen_ai.conversation.id`` holds ESC or whose call id holds a lone
    surrogate is ``invalid_id``: never read under the trace id instead."""
    spans = [
        _span("0000000000000001", 10, 20, extra=(("gen_ai.conversation.id", "c\x1b[2J"),)),
        _span("0000000000000002", 10, 20, call_id="\ud800"),
        _span("0000000000000003", 30, 40, call_id="ok"),
    ]
    report, (lane,) = _read(_write(tmp_path, [_batch(spans)]))
    assert (report.lines_read, report.lines_used, report.problems) == (3, 1, {"invalid_id": 2})
    assert [o.call_id for o in lane.observations] == ["ok", "ok"]


def test_an_unusable_session_id_on_a_resource_or_ancestor_is_invalid_id(tmp_path: Path) -> None:
    """A session id with a control character or a lone surrogate, on the resource or on an
    ancestor agent span, makes its tool spans invalid_id problems, never the trace-id session."""
    t1, t2, t3 = "1" * 32, "2" * 32, "3" * 32
    root = _span("00000000000000a0", 0, 100, tool=None, operation="invoke_agent", trace=t2,
                 extra=(("gen_ai.conversation.id", "conv\ud800"),))
    under_root = _span("00000000000000a1", 10, 20, call_id="deep", trace=t2,
                       parent="00000000000000a0")
    path = _write(tmp_path, [
        _batch([_span("0000000000000001", 10, 20, call_id="res", trace=t1)],
               resource=(("session.id", "s\x1b[2J"),)),
        _batch([under_root, root]),
        _batch([_span("0000000000000003", 10, 20, call_id="fine", trace=t3)],
               resource=(("session.id", "s-good"),)),
    ])
    report, lanes = _read(path)
    assert [lane.session_id for lane in lanes] == ["s-good"]
    assert report.problems == {"invalid_id": 2}
    assert (report.lines_read, report.lines_used, report.ignored) == (
        4, 1, {"non_tool_span": 1})


def test_tool_spans_give_no_batch(tmp_path: Path) -> None:
    """docs/formats.md, ``otlp``, "Batches": none. Two overlapping reads and three serial
    read-only calls (ms after BASE): a [100, 400] and b [200, 500] one wave, busy 400;
    c [600, 700], d [800, 900], e [1000, 1100]: busy 400 + 3 x 100 = 700. Every paired
    call (5) is without a batch, so no turn and no missed-batching run."""
    spans = [_span("00000000000000e0", 0, 2000, tool=None, operation="invoke_agent",
                   name="invoke_agent main")]
    for n, (tool, start, end) in enumerate((("read", 100, 400), ("grep", 200, 500),
                                            ("read", 600, 700), ("glob", 800, 900),
                                            ("ls", 1000, 1100))):
        spans.append(_span(f"00000000000000f{n}", start, end, tool=tool, call_id=f"c{n}",
                           parent="00000000000000e0"))
    code, document = cli_document([_write(tmp_path, [_batch(spans)])], "--engine", "python")
    assert code == 0
    figures = ("paired_calls", "calls_without_batch", "batched_turns", "multi_call_turns",
               "turn_width_histogram", "max_turn_width", "missed_batch_runs",
               "missed_batch_calls", "missed_batch_round_trips", "missed_batch_upper_ms",
               "tool_busy_ms", "calls_timed_by_execution", "calls_timed_by_message")
    assert [tuple(lane[key] for key in figures) for lane in document["lanes"]] == [
        (5, 5, 0, 0, "0:0:0:0:0:0:0:0", 0, 0, 0, 0, 0.0, 700.0, 5, 0)]
