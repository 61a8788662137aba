"""The ``otel-spans`` reader (OTel SDK span dicts, any-agent traces) on the corpus and fixtures.

Expected corpus figures come from a throwaway script written straight from
``docs/formats.md`` and ``docs/metrics.md`` (``json.load``, ids formatted with
``format(n, "032x")``, ms as ``Fraction(ns, 10**6)`` rounded once, waves as a
sweep over closed intervals). Checked by hand against the raw file: in
``AGNO_trace.json`` the tool span ``get_current_time`` runs from
``1758026595109197000`` to ``1758026595112362000`` ns, i.e. 3.165 ms, well
before ``write_file`` starts at ``...479170000``: every any-agent trace is
sequential (one wave per call, as the corpus manifest says), and no file has a
session attribute, so the session is the trace id in hex.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import CORPUS, needs_corpus
from tests.reader_checks import cli_document, observation_tuples, read_one, sniffs
from wavemetrics import ParallelismSummary, assemble_waves, summarize
from wavemetrics.readers.dispatch import InputReport
from wavemetrics.readers.otel_spans import OTEL_SPANS
from wavemetrics.run.pipeline import Lane

# 2026-01-01T00:00:00Z in ms and ns.
BASE_MS = 1_767_225_600_000
BASE_NS = BASE_MS * 10**6
TRACE = 0x0AF7651916CD43DD8448EB211C80319C
TRACE_HEX = "0af7651916cd43dd8448eb211c80319c"

# (file, session id, calls, histogram, tool time ms, items read, used, ignored,
#  first call (id, name, start ms, end ms))
CORPUS_FILES = [
    ("AGNO_trace.json", "1de0532b350588ff152b1edf6bf358b3", 2, "2:0:0:0:0:0:0:0",
     3.97412109375, 6, 2, 4,
     ("LlAGPjfO0", "get_current_time", 1758026595109.197, 1758026595112.362)),
    ("GOOGLE_trace.json", "cdbd7b99cef221c28dd6d03c27d09b4c", 3, "3:0:0:0:0:0:0:0",
     8.4033203125, 7, 3, 4,
     ("jbUWqgIUr", "get_current_time", 1758026586853.654, 1758026586857.29)),
    ("LANGCHAIN_trace.json", "572318454595034fe5076610d6400542", 2, "2:0:0:0:0:0:0:0",
     3.843994140625, 7, 2, 5,
     ("ef6718a10070ff84", "get_current_time", 1758028601277.624, 1758028601280.591)),
    ("LLAMA_INDEX_trace.json", "89c41176422c506985d55a0d2d2091db", 3, "3:0:0:0:0:0:0:0",
     5.074951171875, 9, 3, 6,
     ("8df3e9cf559c1661", "get_current_time", 1758028499915.928, 1758028499919.034)),
    ("OPENAI_trace.json", "4bedea77bb33b9c5f280371eae21ea97", 2, "2:0:0:0:0:0:0:0",
     4.698974609375, 6, 2, 4,
     ("bdf28428cc0e8eb5", "get_current_time", 1758026593450.406, 1758026593452.926)),
    ("SMOLAGENTS_trace.json", "9135313a4e40fe254d48742d230ea040", 3, "3:0:0:0:0:0:0:0",
     7.656005859375, 7, 3, 4,
     ("584ae58e2e44935c", "get_current_time", 1758026600206.847, 1758026600209.406)),
    ("TINYAGENT_trace.json", "9707d5fd6d4a546d47757044c6127e04", 3, "3:0:0:0:0:0:0:0",
     7.046875, 8, 3, 5,
     ("ae32f2cf7dd943e8", "get_current_time", 1758026601631.711, 1758026601634.284)),
]


def _span(
    span_id: int, start: Any, end: Any, *, tool: str | None = "read",
    call_id: str | None = None, parent: int | None = None, trace: int = TRACE,
    attributes: dict[str, Any] | None = None, resource: dict[str, Any] | None = None,
    raw: bool = False,
) -> dict[str, Any]:
    """An any-agent span dict; integer ``start``/``end`` are ms offsets from BASE (as ns)
    unless ``raw``; ``tool`` set makes it an ``execute_tool`` span."""
    attrs: dict[str, Any] = dict(attributes or {})
    if tool is not None:
        attrs.update({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool})
        if call_id is not None:
            attrs["gen_ai.tool.call.id"] = call_id
    def _time(value: Any) -> Any:
        return value if raw or not isinstance(value, int) else BASE_NS + value * 10**6
    return {
        "name": f"execute_tool {tool}" if tool else "call_llm",
        "kind": "internal",
        "parent": None if parent is None else {"trace_id": trace, "span_id": parent},
        "start_time": _time(start),
        "end_time": _time(end),
        "context": {"trace_id": trace, "span_id": span_id, "is_remote": False},
        "attributes": attrs,
        "resource": {"attributes": resource or {"service.name": "unknown_service"}},
    }


def _write_doc(tmp_path: Path, spans: list[Any], name: str = "trace.json") -> str:
    """Write an any-agent trace document, indented like the corpus files."""
    path = tmp_path / name
    path.write_text(json.dumps({"spans": spans, "final_output": None}, indent=2),
                    encoding="utf-8")
    return str(path)


def _read(path: str, input_format: str = "auto") -> tuple[InputReport, list[Lane]]:
    return read_one(path, "otel-spans", input_format)


def _summary(lane: Lane) -> ParallelismSummary:
    return summarize(assemble_waves(lane.observations))


@needs_corpus
@pytest.mark.parametrize("row", CORPUS_FILES, ids=[r[0] for r in CORPUS_FILES])
def test_corpus_any_agent_figures(row: tuple[Any, ...]) -> None:
    """Every any-agent trace gives the independently computed lane and item figures."""
    name, session_id, calls, histogram, tool_time, read, used, ignored, first = row
    report, lanes = _read(str(CORPUS / "any-agent" / name))
    assert (report.lines_read, report.lines_used, report.lines_ignored, report.problems) == (
        read, used, ignored, {})
    assert report.ignored == {"non_tool_span": ignored}
    (lane,) = lanes
    call_id, tool, start, end = first
    assert observation_tuples(lane)[:2] == [("start", call_id, tool, start), ("end", call_id, tool, end)]
    summary = _summary(lane)
    assert (lane.session_id, lane.lane_id) == (session_id, "main")
    assert (summary.observed_calls, summary.paired_calls, summary.incomplete_calls,
            summary.clock_anomalies) == (calls, calls, 0, 0)
    assert (summary.non_eval_waves_total, summary.non_eval_waves_multi,
            summary.non_eval_wave_size_histogram) == (calls, 0, histogram)
    assert (summary.modeled_wallclock_saved_ms, summary.upper_bound_saved_ms,
            summary.non_eval_saved_round_trips, summary.tool_time_ms) == (0.0, 0.0, 0, tool_time)



def test_parallel_tool_spans_form_one_wave(tmp_path: Path) -> None:
    """Overlapping tool spans are fed in start order and share a wave."""
    path = _write_doc(tmp_path, [
        _span(1, 0, 1000, tool=None),
        _span(3, 200, 500, tool="grep", call_id="b", parent=1),
        _span(2, 100, 400, tool="read", call_id="a", parent=1),
        _span(4, 450, 480, tool="glob", call_id="c", parent=1),
    ])
    report, (lane,) = _read(path)
    assert observation_tuples(lane) == [
        ("start", "a", "read", BASE_MS + 100.0), ("end", "a", "read", BASE_MS + 400.0),
        ("start", "b", "grep", BASE_MS + 200.0), ("end", "b", "grep", BASE_MS + 500.0),
        ("start", "c", "glob", BASE_MS + 450.0), ("end", "c", "glob", BASE_MS + 480.0),
    ]
    summary = _summary(lane)
    # One wave [100, 500]: durations 300 + 300 + 30 = 630, span 400, peak 2 (a|b, then b|c).
    assert (summary.non_eval_waves_total, summary.non_eval_wave_size_histogram,
            summary.modeled_wallclock_saved_ms, summary.upper_bound_saved_ms,
            summary.non_eval_saved_round_trips) == (1, "0:0:1:0:0:0:0:0", 230.0, 420.0, 1)
    assert (report.lines_read, report.lines_used, report.ignored) == (
        4, 3, {"non_tool_span": 1})


def test_ns_as_strings_and_numbers_convert_exactly(tmp_path: Path) -> None:
    """Decimal-string ns equal the same JSON-number ns, converted by one exact division."""
    exact_ns = 1751247501952174197  # float(ns) / 1e6 would give 1751247501952.174
    path = _write_doc(tmp_path, [
        _span(1, str(exact_ns), exact_ns + 5_000_000, call_id="s", raw=True),
        _span(2, exact_ns, str(exact_ns + 5_000_000), call_id="n", raw=True),
    ])
    _, (lane,) = _read(path)
    assert [o.at_ms for o in lane.observations] == [
        1751247501952.1743, 1751247501957.1743, 1751247501952.1743, 1751247501957.1743,
    ]
    assert float(exact_ns) / 1e6 != 1751247501952.1743


def test_zero_or_malformed_times_are_invalid_and_null_end_is_incomplete(tmp_path: Path) -> None:
    """A 0, float, negative or missing start, or a 0 end, is a problem; a null end a start alone."""
    path = _write_doc(tmp_path, [
        _span(1, 0, BASE_NS, call_id="zero-start", raw=True),
        _span(2, BASE_NS, 0, call_id="zero-end", raw=True),
        _span(3, 1.7e18, BASE_NS, call_id="float", raw=True),
        _span(4, -1, BASE_NS, call_id="negative", raw=True),
        _span(5, None, BASE_NS, call_id="no-start", raw=True),
        _span(6, 10, None, call_id="open"),
        _span(7, 0, 0, tool=None, raw=True),
    ])
    report, (lane,) = _read(path)
    assert report.problems == {"invalid_timestamp": 5}
    assert observation_tuples(lane) == [("start", "open", "read", BASE_MS + 10.0)]
    assert _summary(lane).incomplete_calls == 1
    assert (report.lines_read, report.lines_used, report.ignored) == (
        7, 1, {"non_tool_span": 1})


def test_duplicates_innermost_wins_then_synthetic_timing_is_set_aside(tmp_path: Path) -> None:
    """A shorter copy of a call wins; zero-length and parent-copied sibling spans are not used."""
    path = _write_doc(tmp_path, [
        _span(1, 0, 1000, tool=None),
        _span(2, 100, 900, tool="fetch", call_id="dup", parent=1),
        _span(3, 150, 850, tool="mcp_fetch", call_id="dup", parent=2),
        _span(10, 2000, 3000, tool=None),
        _span(11, 2000, 3000, tool="a", call_id="copy-1", parent=10),
        _span(12, 2000, 3000, tool="b", call_id="copy-2", parent=10),
        _span(13, 4000, 4000, tool="c", call_id="instant"),
    ])
    report, (lane,) = _read(path)
    assert observation_tuples(lane) == [
        ("start", "dup", "mcp_fetch", BASE_MS + 150.0), ("end", "dup", "mcp_fetch", BASE_MS + 850.0),
    ]
    assert report.ignored == {"duplicate_span": 1, "non_tool_span": 2, "synthetic_timing": 3}
    assert (report.lines_read, report.lines_used) == (7, 1)


def test_session_from_ancestor_resource_or_trace_id(tmp_path: Path) -> None:
    """The invoke_agent ancestor's conversation id, else the resource's session.id, else the
    trace id as 32 lower-case hex digits names the session."""
    path = _write_doc(tmp_path, [
        _span(1, 0, 100, tool=None, trace=1,
              attributes={"gen_ai.operation.name": "invoke_agent",
                          "gen_ai.conversation.id": "conv-7"}),
        _span(2, 1, 99, tool=None, trace=1, parent=1),
        _span(3, 10, 20, call_id="x", trace=1, parent=2),
        _span(4, 10, 20, call_id="y", trace=2, resource={"session.id": "s-res"}),
        _span(5, 10, 20, call_id="z", trace=255, parent=99),
    ])
    _, lanes = _read(path)
    assert [(lane.session_id, lane.observations[0].call_id if lane.observations else None)
            for lane in lanes] == [
        ("conv-7", "x"), ("s-res", "y"), ("000000000000000000000000000000ff", "z"),
    ]


def test_sdk_to_json_form_with_hex_ids_and_iso_times(tmp_path: Path) -> None:
    """The SDK's own to_json (0x ids, parent_id, ISO times), concatenated as the console
    exporter writes it, is read like the any-agent form."""
    parent = {"name": "invoke_agent", "context": {"trace_id": "0x" + TRACE_HEX,
                                                  "span_id": "0x00000000000000a1"},
              "kind": "SpanKind.INTERNAL", "parent_id": None,
              "start_time": "2026-01-01T00:00:00.000000Z",
              "end_time": "2026-01-01T00:00:01.000000Z",
              "attributes": {"gen_ai.operation.name": "invoke_agent", "session.id": "s-sdk"},
              "resource": {"attributes": {}, "schema_url": ""}}
    tool = {"name": "execute_tool bash",
            "context": {"trace_id": "0x" + TRACE_HEX, "span_id": "0x00000000000000B2"},
            "kind": "SpanKind.INTERNAL", "parent_id": "0x00000000000000a1",
            "start_time": "2026-01-01T00:00:00.250000Z",
            "end_time": "2026-01-01T00:00:00.750500Z",
            "attributes": {"gen_ai.operation.name": "execute_tool"},
            "resource": {"attributes": {}, "schema_url": ""}}
    path = tmp_path / "console.log"
    path.write_text(json.dumps(tool, indent=4) + "\n" + json.dumps(parent, indent=4) + "\n",
                    encoding="utf-8")
    report, (lane,) = _read(str(path))
    assert lane.session_id == "s-sdk"
    assert observation_tuples(lane) == [
        ("start", "00000000000000b2", "bash", BASE_MS + 250.0),
        ("end", "00000000000000b2", "bash", BASE_MS + 750.5),
    ]
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (2, 1, 1)


def test_json_lines_and_bare_arrays_of_span_dicts(tmp_path: Path) -> None:
    """One span dict per line, and a compact JSON array of span dicts, are read too."""
    lines = tmp_path / "spans.jsonl"
    lines.write_text(json.dumps(_span(1, 10, 20, call_id="a")) + "\n"
                     + json.dumps(_span(2, 15, 30, call_id="b")) + "\n", encoding="utf-8")
    array = tmp_path / "spans.json"
    array.write_text(json.dumps([_span(1, 10, 20, call_id="a"), _span(2, 15, 30, call_id="b")]),
                     encoding="utf-8")
    for path in (lines, array):
        report, (lane,) = _read(str(path))
        assert [o.call_id for o in lane.observations] == ["a", "a", "b", "b"]
        assert (report.lines_read, report.lines_used) == (2, 2)
        # One wave [10, 30]: durations 10 + 15, span 20.
        assert _summary(lane).modeled_wallclock_saved_ms == 5.0


def test_bad_span_dicts_are_accounted(tmp_path: Path) -> None:
    """Non-object spans, bad ids, missing tool names and an empty trace are each accounted."""
    no_name = _span(4, 10, 20, tool=None, attributes={"gen_ai.operation.name": "execute_tool"})
    no_name["name"] = "execute_tool "
    path = _write_doc(tmp_path, [
        7, _span(0, 10, 20), _span(2**64, 10, 20), _span(True, 10, 20), no_name,
        _span(5, 10, 20, call_id="ok"),
    ])
    report, (lane,) = _read(path)
    assert report.problems == {"invalid_span": 1, "invalid_span_id": 3, "invalid_tool_record": 1}
    assert [o.call_id for o in lane.observations] == ["ok", "ok"]
    empty = _write_doc(tmp_path, [], name="empty.json")
    report, lanes = _read(empty, "otel-spans")
    assert (report.lines_read, report.ignored, lanes) == (1, {"no_spans": 1}, [])


def test_sniff_recognises_pretty_documents_and_not_other_formats() -> None:
    """Detection accepts the any-agent document, arrays and span lines, not OTLP or others."""
    pretty = json.dumps({"spans": [_span(1, 1, 2)]}, indent=2).encode().splitlines(True)
    array = json.dumps([_span(1, 1, 2)], indent=4).encode().splitlines(True)
    assert pretty[0] == b"{\n" and array[0] == b"[\n"
    assert sniffs(OTEL_SPANS, pretty[:64], "trace.json")
    assert sniffs(OTEL_SPANS, array[:64], "spans.json")
    assert sniffs(OTEL_SPANS, [json.dumps(_span(1, 1, 2)).encode() + b"\n"], "s.jsonl")
    assert not sniffs(OTEL_SPANS, [b'{"resourceSpans": []}\n'], "x.json")
    assert not sniffs(OTEL_SPANS, [b"{\n", b'  "resourceSpans": [],\n', b'  "context": {\n',
                                 b'  "span_id": 1, "start_time": 2\n'], "x.json")
    assert not sniffs(OTEL_SPANS, [b'{"type": "assistant", "uuid": "u", "message": '
                                 b'{"content": "\\"context\\": {\\"span_id\\": 1, '
                                 b'\\"start_time\\": 2}"}}\n'], "session.jsonl")
    assert not sniffs(OTEL_SPANS, [b'{"version": 2, "eval": {"eval_id": "e"}}\n'], "log.json")


def test_agent_lanes_and_nested_mcp_copies_in_span_dicts(tmp_path: Path) -> None:
    """The 2026 span rules hold for SDK span dicts too: an agent called as a tool is a lane,
    and a same-named tool span nested in another (an MCP span) is a copy of the call."""
    agent = {"gen_ai.operation.name": "invoke_agent"}
    spans = [
        _span(0xA0, 0, 10000, tool=None, attributes={**agent, "gen_ai.agent.name": "planner"}),
        _span(0xC1, 1000, 6000, tool="research", call_id="call_r", parent=0xA0),
        _span(0xA1, 1100, 5900, tool=None, parent=0xC1,
              attributes={**agent, "gen_ai.agent.name": "researcher"}),
        _span(0xC2, 1200, 3200, tool="web_fetch", call_id="w1", parent=0xA1),
        _span(0xC3, 1210, 3100, tool="web_fetch", parent=0xC2,
              attributes={"jsonrpc.request.id": "1"}),
        _span(0xC4, 3300, 5300, tool="web_fetch", call_id="w2", parent=0xA1),
    ]
    report, lanes = _read(_write_doc(tmp_path, spans))
    # In one lane the research call [1000, 6000] would join both fetches and the MCP copy.
    assert [(lane.lane_id, observation_tuples(lane)) for lane in lanes] == [
        ("main", [("start", "call_r", "research", BASE_MS + 1000.0),
                  ("end", "call_r", "research", BASE_MS + 6000.0)]),
        ("researcher", [("start", "00000000000000c3", "web_fetch", BASE_MS + 1210.0),
                        ("end", "00000000000000c3", "web_fetch", BASE_MS + 3100.0),
                        ("start", "w2", "web_fetch", BASE_MS + 3300.0),
                        ("end", "w2", "web_fetch", BASE_MS + 5300.0)]),
    ]
    assert report.ignored == {"duplicate_span": 1, "non_tool_span": 2}


def _console_stream(broken_after: int | None, calls: int = 100) -> str:
    """``calls`` span dicts as the SDK console exporter writes them (``to_json()``: indent
    4, one after another), sequential 10 ms tool calls 100 ms apart, with a cut document
    ``{ "broken":`` and a newline after the first ``broken_after`` of them."""
    documents = [json.dumps(_span(index + 1, index * 100, index * 100 + 10,
                                  call_id=f"c{index}"), indent=4) + "\n"
                 for index in range(calls)]
    if broken_after is not None:
        documents.insert(broken_after, '{ "broken":\n')
    return "".join(documents)


@pytest.mark.parametrize("broken_after", [0, 1, 50, 100])
def test_a_cut_document_in_a_console_stream_loses_only_itself(
    tmp_path: Path, broken_after: int,
) -> None:
    """A cut document (at the start, after the first, in the middle, at the end) is one
    problem and reading resumes at the next top-level document: 100 span dicts, 100 calls
    paired, 101 items = 100 used + 1 problem, and no error for the input."""
    path = tmp_path / "console.json"
    path.write_text(_console_stream(broken_after), encoding="utf-8")
    report, (lane,) = _read(str(path))
    assert (report.lines_read, report.lines_used, report.lines_ignored, report.problems) == (
        101, 100, 0, {"invalid_json": 1})
    assert report.lines_read == report.lines_used + report.lines_ignored + 1
    assert report.error is None
    summary = _summary(lane)
    assert (summary.observed_calls, summary.paired_calls, summary.non_eval_waves_total) == (
        100, 100, 100)
    assert [o.call_id for o in lane.observations[::2]] == [f"c{i}" for i in range(100)]


def test_an_unbroken_console_stream_reads_every_document(tmp_path: Path) -> None:
    """The same stream with no cut: 100 items, all used."""
    path = tmp_path / "console.json"
    path.write_text(_console_stream(None), encoding="utf-8")
    report, (lane,) = _read(str(path))
    assert (report.lines_read, report.lines_used, report.problems, report.error) == (
        100, 100, {}, None)
    assert _summary(lane).paired_calls == 100


def test_tool_spans_give_no_batch(tmp_path: Path) -> None:
    """docs/formats.md, ``otel-spans``, "Batches": none. Two overlapping reads and three
    serial read-only calls (ms after BASE): a [100, 400] and b [200, 500] one wave, busy
    400; c [600, 700], d [800, 900], e [1000, 1100]: busy 400 + 3 x 100 = 700. Every
    paired call (5) is without a batch, so no turn and no missed-batching run."""
    spans = [_span(1, 0, 2000, tool=None)]
    for n, (tool, start, end) in enumerate((("read", 100, 400), ("grep", 200, 500),
                                            ("read", 600, 700), ("glob", 800, 900),
                                            ("ls", 1000, 1100))):
        spans.append(_span(10 + n, start, end, tool=tool, call_id=f"c{n}", parent=1))
    code, document = cli_document([_write_doc(tmp_path, spans)], "--engine", "python")
    assert code == 0
    figures = ("paired_calls", "calls_without_batch", "batched_turns", "multi_call_turns",
               "turn_width_histogram", "max_turn_width", "missed_batch_runs",
               "missed_batch_calls", "missed_batch_round_trips", "missed_batch_upper_ms",
               "tool_busy_ms", "calls_timed_by_execution", "calls_timed_by_message")
    assert [tuple(lane[key] for key in figures) for lane in document["lanes"]] == [
        (5, 5, 0, 0, "0:0:0:0:0:0:0:0", 0, 0, 0, 0, 0.0, 700.0, 5, 0)]
