"""The ``otlp`` reader (OTLP/JSON files) on the real corpus and on small fixtures.

The corpus has one OTLP/JSON file, the official example of opentelemetry-proto:
one server span without GenAI attributes (trace ``5B8E…C60C``, 1 s long). A
throwaway script written from ``spec/formats.md`` gives one session (the trace
id in lower case), one item (the span, ignored as a non-tool span) and no tool
call. Fixture figures are worked out by hand in the comments beside them.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from tests.corpus import CORPUS, needs_corpus
from tests.reader_checks import observation_tuples, read_one, sniffs, write_records
from wavemetrics import ParallelismSummary, assemble_waves, summarize
from wavemetrics.pipeline import Lane
from wavemetrics.readers import InputReport
from wavemetrics.readers.otlp import OTLP

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
def test_corpus_example_is_a_lane_with_no_tool_calls() -> None:
    """The official OTLP example is read as one session with zero calls, not as an empty input."""
    report, lanes = _read(str(CORPUS / "opentelemetry-proto" / "trace.json"))
    assert (report.lines_read, report.lines_used, report.lines_ignored, report.problems) == (
        1, 0, 1, {})
    assert report.ignored == {"non_tool_span": 1}
    (lane,) = lanes
    assert (lane.session_id, lane.lane_id, lane.observations) == (EXAMPLE_TRACE, "main", ())
    summary = _summary(lane)
    assert (summary.observed_calls, summary.waves_total, summary.non_eval_wave_size_histogram,
            summary.modeled_wallclock_saved_ms) == (0, 0, "0:0:0:0:0:0:0:0", 0.0)



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
    report, (lane,) = _read(path)
    assert report.problems == {"invalid_timestamp": 8}
    assert report.ignored == {"non_tool_span": 1}
    assert (report.lines_read, report.lines_used) == (9, 0)
    assert lane.observations == ()


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
    # The root holding conv-far is a session of its own, with no tool call.
    assert [(lane.session_id, [o.call_id for o in lane.observations][:1]) for lane in lanes] == [
        ("conv-own", ["own"]), ("conv-root", ["deep"]), ("s-near", ["near"]), ("conv-far", []),
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


def test_truncated_pretty_document_is_read_line_by_line(tmp_path: Path) -> None:
    """A pretty-printed document cut short cannot be parsed whole: each line is accounted."""
    text = json.dumps(_batch([_span("0000000000000001", 10, 20)]), indent=2)
    lines = text.splitlines()[:12]
    path = tmp_path / "cut.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report, lanes = _read(str(path), "otlp")
    assert report.lines_read == 12
    assert report.lines_used == 0
    assert lanes == []


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
