"""The native ``otlp`` reader against the Python reference: same trace files, same output.

The corpus's one OTLP/JSON file is a pretty-printed document, so the files are also
built from the layouts ``docs/formats.md`` (``otlp``) describes: Hypothesis-drawn files of
one document per line (batches, scopes, spans whose ids repeat, parents, agents, Claude
Code spans, times valid and not, attributes repeated and odd, malformed containers, other
signals, broken lines, BOMs, cut last lines) and damaged copies, files of whole documents
(pretty-printed, several in a row, one array of them) and damaged copies, and hostile
lines are read by both engines; the whole ``summarize --format json``
document must be equal, and a spy proves the extension read (or was asked) the unit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from tests.strategies import (
    damaged,
    engine_caps,
    engine_eval_names,
    otlp_calls,
    otlp_documents,
    otlp_records,
    trace_files,
)
from tests.test_native import DIFFERENTIAL, _both, console_command
from tests.test_native_copilot import reading_codes
from wavemetrics.readers.otlp import OTLP
from wavemetrics.readers.registry import NATIVE_ROWS
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")

#: The extension's code for the format (its registry row's).
_CODE = next(row.native.code for row in NATIVE_ROWS if row.name == OTLP.name and row.native)
_TRACE = "0af7651916cd43dd8448eb211c80319c"
_BASE_NS = 1_767_225_600_000_000_000


def _write(folder: Path, data: bytes, name: str = "traces.jsonl") -> str:
    path = folder / name
    path.write_bytes(data)
    return str(path)


def _attributes(values: dict[str, str]) -> list[dict[str, Any]]:
    return [{"key": k, "value": {"stringValue": v}} for k, v in values.items()]


def _span(span_id: str, start_ms: int, end_ms: int, operation: str, *, parent: str = "",
          **attributes: str) -> dict[str, Any]:
    """A span of trace ``_TRACE``; ``attributes``: ``gen_ai.*`` keys spelled ``tool_name``,
    ``conversation_id`` and so on."""
    values = {"gen_ai.operation.name": operation}
    values |= {"gen_ai." + k.replace("_", "."): v for k, v in attributes.items()}
    return {"traceId": _TRACE, "spanId": span_id, "parentSpanId": parent, "name": "x",
            "startTimeUnixNano": str(_BASE_NS + start_ms * 10**6),
            "endTimeUnixNano": str(_BASE_NS + end_ms * 10**6),
            "attributes": _attributes(values)}


def _line(*spans: Any) -> bytes:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}).encode()


def _fast(path: str) -> Any:
    return native.read_unit_native(OTLP.name, (path,), StreamSettings(engine="native"))


@DIFFERENTIAL
@given(data=trace_files(otlp_records(), otlp_calls()), cap=engine_caps,
       names=engine_eval_names)
def test_generated_files_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...],
) -> None:
    """A generated file of one OTLP document per line gives the same accounts, lanes and
    figures on both engines."""
    path = _write(tmp_path_factory.mktemp("otlp"), data)
    _both([path], OTLP.name, cap, names, units=1)


@DIFFERENTIAL
@given(data=damaged(trace_files(otlp_records(), otlp_calls())), cap=engine_caps,
       names=engine_eval_names)
def test_damaged_files_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    """A generated file with random damage gives the same accounts and figures on both
    engines."""
    path = _write(tmp_path_factory.mktemp("otlp"), data)
    _both([path], OTLP.name, cap, names, units=1)


@DIFFERENTIAL
@given(records=st.lists(otlp_records(), min_size=1, max_size=3), indent=st.sampled_from([2, 0]))
def test_documents_are_read_natively_the_same(
    tmp_path_factory: pytest.TempPathFactory, records: list[dict[str, Any]], indent: int,
) -> None:
    """Pretty-printed documents (one, or several one after another; ``indent=0`` puts
    nested values in the first column) are read by the extension, with the reference's
    output."""
    data = b"".join(json.dumps(r, indent=indent).encode() + b"\n" for r in records)
    path = _write(tmp_path_factory.mktemp("otlp"), data, "trace.json")
    if not data.startswith(b"{}"):  # "{}" alone on the first line is an object line
        assert _fast(path) is not None
    _both([path], OTLP.name, 2000, ("eval",), units=1)


@DIFFERENTIAL
@given(data=otlp_documents(), cap=engine_caps, names=engine_eval_names)
def test_generated_documents_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...],
) -> None:
    """Files of whole documents (several, one of every batch, an array of them) with
    calls in them give the same accounts, lanes and figures on both engines."""
    path = _write(tmp_path_factory.mktemp("otlp"), data, "trace.json")
    _both([path], OTLP.name, cap, names, units=1)


@DIFFERENTIAL
@given(data=damaged(otlp_documents()), cap=engine_caps, names=engine_eval_names)
def test_damaged_documents_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...],
) -> None:
    path = _write(tmp_path_factory.mktemp("otlp"), data, "trace.json")
    _both([path], OTLP.name, cap, names, units=1)


def test_a_pretty_printed_document_is_counted_as_its_lines_are(tmp_path: Path) -> None:
    """The formats page example as one indented document, then a document of metrics and
    an array: the same 3 items and figures as on one line (one wave of read [100, 200]
    and grep [150, 300]: 50 ms saved), plus ``resourceMetrics`` and ``not_an_object``."""
    document = json.loads(_line(
        _span("00000000000000a0", 0, 1000, "invoke_agent", conversation_id="conv-1"),
        _span("00000000000000a1", 100, 200, "execute_tool", parent="00000000000000a0",
              tool_name="read"),
        _span("00000000000000a2", 150, 300, "execute_tool", parent="00000000000000a0",
              tool_name="grep"),
    ))
    data = (json.dumps(document, indent=2) + "\n" + json.dumps({"resourceMetrics": []},
                                                               indent=2)
            + "\n[]\n").encode()
    path = _write(tmp_path, data, "trace.json")
    assert _fast(path) is not None
    code, out = console_command(["summarize", "--format", "json", "--engine", "native", path])
    assert (code, out) == console_command(
        ["summarize", "--format", "json", "--engine", "python", path])
    (report,) = json.loads(out)["inputs"]
    assert (report["lines_read"], report["lines_used"]) == (5, 2)
    assert report["ignored"] == {"non_tool_span": 1, "resourceMetrics": 1}
    assert report["problems"] == {"not_an_object": 1}
    (lane,) = json.loads(out)["lanes"]
    assert (lane["session_id"], lane["modeled_wallclock_saved_ms"]) == ("conv-1", 50.0)


def test_deep_documents_nest_as_deep_as_lines(tmp_path: Path) -> None:
    """Whole documents after four read ones: 500 levels read (``no_spans``), 501
    ``too_deeply_nested``, as a line; a document broken in the middle is one ``invalid_json`` and
    none of its spans is read."""
    def deep(levels: int) -> bytes:
        return b'{\n"resourceSpans":[],"z":' + b"[" * (levels - 1) + b"]" * (levels - 1) + b"}"

    broken = json.dumps(json.loads(_BATCH), indent=2).replace('"name"', '"name" x').encode()
    data = b"\n".join([b'{\n"resourceSpans": []}'] * 4 + [deep(500), deep(501), broken])
    path = _write(tmp_path, data + b"\n", "trace.json")
    assert _fast(path) is not None
    code, out = console_command(["summarize", "--format", "json", "--engine", "native", path])
    assert (code, out) == console_command(
        ["summarize", "--format", "json", "--engine", "python", path])
    (report,) = json.loads(out)["inputs"]
    assert (report["lines_read"], report["lines_used"]) == (7, 0)
    assert report["ignored"] == {"no_spans": 5}
    assert report["problems"] == {"too_deeply_nested": 1, "invalid_json": 1}


def test_the_formats_page_example_is_read_natively(tmp_path: Path) -> None:
    """The example of ``docs/formats.md`` (``otlp``) on one line: calls read [100, 200] ms
    and grep [150, 300] ms under the agent span of conv-1: one wave of two, span 200 ms,
    250 ms of tool time, 50 ms saved; 3 items, the agent span a non-tool span."""
    line = _line(
        _span("00000000000000a0", 0, 1000, "invoke_agent", conversation_id="conv-1"),
        _span("00000000000000a1", 100, 200, "execute_tool", parent="00000000000000a0",
              tool_name="read"),
        _span("00000000000000a2", 150, 300, "execute_tool", parent="00000000000000a0",
              tool_name="grep"),
    )
    path = _write(tmp_path, line + b"\n")
    with reading_codes() as spy:
        document = json.loads(_both([path], "auto", 2000, ("eval",), units=1))
    assert spy.codes == [_CODE] * 2  # by the streamed read and the batch read
    (report,) = document["inputs"]
    assert (report["format"], report["lines_read"], report["lines_used"]) == ("otlp", 3, 2)
    assert report["ignored"] == {"non_tool_span": 1}
    (lane,) = document["lanes"]
    assert (lane["session_id"], lane["lane_id"]) == ("conv-1", "main")
    assert lane["modeled_wallclock_saved_ms"] == 50.0
    assert lane["tool_time_ms"] == 250.0
    assert lane["calls_without_batch"] == 2


def test_hostile_lines_are_accounted_as_python_accounts_them(tmp_path: Path) -> None:
    """Counted by hand from the rules: a repeated ``resourceSpans`` (the last one, empty,
    wins: ``no_spans``), NaN and a skipped int of 4301 digits (``invalid_json``), nesting
    500 levels (read) and 501 (``too_deeply_nested``: the limit), a
    float start (``invalid_timestamp``), a nanosecond string past 2**64 - 1
    (``invalid_timestamp``) and one of 2**64 - 1 (used: its one call)."""
    tool = _span("00000000000000a1", 100, 200, "execute_tool", tool_name="read")
    float_start = {**tool, "spanId": "00000000000000a2", "startTimeUnixNano": 1.5e18}
    past_max = {**tool, "spanId": "00000000000000a3", "endTimeUnixNano": str(2**64)}
    at_max = {**tool, "spanId": "00000000000000a4", "endTimeUnixNano": str(2**64 - 1)}

    def deep(levels: int) -> bytes:
        return b'{"resourceSpans":[],"z":' + b"[" * (levels - 1) + b"]" * (levels - 1) + b"}"

    lines = [
        b'{"resourceSpans":[]}',  # no_spans
        b'{"resourceSpans":' + json.dumps([{"scopeSpans": [{"spans": [tool]}]}]).encode()
        + b',"resourceSpans":[]}',  # no_spans: the last key wins
        b'{"resourceSpans":[],"x":NaN}',  # invalid_json
        b'{"resourceSpans":[],"x":' + b"9" * 4301 + b"}",  # invalid_json
        deep(500),  # no_spans
        deep(501),  # too_deeply_nested
        _line(float_start, past_max, at_max),  # 3 items: 2 invalid_timestamp, 1 used
    ]
    path = _write(tmp_path, b"\n".join(lines) + b"\n")
    assert _fast(path) is not None
    code, out = console_command(["summarize", "--format", "json", "--engine", "native", path])
    reference = console_command(["summarize", "--format", "json", "--engine", "python", path])
    assert (code, out) == reference
    (report,) = json.loads(out)["inputs"]
    assert (report["lines_read"], report["lines_used"]) == (9, 1)
    assert report["ignored"] == {"no_spans": 3}
    assert report["problems"] == {"invalid_json": 2, "too_deeply_nested": 1,
                                  "invalid_timestamp": 2}
    (lane,) = json.loads(out)["lanes"]
    assert lane["paired_calls"] == 1


@needs_corpus
def test_the_corpus_document_reads_the_same() -> None:
    """The corpus's OTLP example (pretty-printed) is read by the extension; both engines
    give the reference's document."""
    path = CORPUS / "opentelemetry-proto" / "trace.json"
    assert _fast(str(path)) is not None
    _both([str(path)], "auto", 2000, ("eval",), units=1)


_TOOL = ('{"traceId":"0AF7651916CD43DD8448EB211C80319C","spanId":"00000000000000A1",'
         '"name":"execute_tool read","startTimeUnixNano":"1767225600100000000",'
         '"endTimeUnixNano":"1767225600200000000","attributes":[{"key":"gen_ai.operation.name",'
         '"value":{"stringValue":"execute_tool"}}]}')
_BATCH = '{"resourceSpans":[{"scopeSpans":[{"spans":[' + _TOOL + ']}]}]}'

#: Files whose first line decides the shape, and lines that test one rule each: BOMs,
#: keys repeated at every level (the last wins), escaped ids and keys, nulls, the older
#: container name beside the newer one, a cut last line.
_HOSTILE_FILES = {
    "bom": b"\xef\xbb\xbf" + _BATCH.encode() + b"\n",
    "bom on a later line": b"\n\xef\xbb\xbf" + _BATCH.encode() + b"\n",
    "blank lines first": b"\n \t\n\x0c\n" + _BATCH.encode() + b"\n",
    "text first": b"hello\n" + _BATCH.encode() + b"\n",
    "vertical tab before the object": b"\x0b" + _BATCH.encode() + b"\n",
    "two objects on the first line": _BATCH.encode() + b" {}\n",
    "deep first line": b'{"a":' + b"[" * 950 + b"]" * 950 + b"}\n" + _BATCH.encode() + b"\n",
    "escaped ids and keys": _BATCH.replace('"spanId"', '"span\\u0049d"')
    .replace("00000000000000A1", "00000000000000\\u0041\\u0031").encode() + b"\n",
    "repeated keys": (
        '{"resourceSpans":[{"scopeSpans":[{"spans":[' + _TOOL + '],"spans":[]}]}]}\n'
        '{"resourceSpans":[{"scopeSpans":5,"scopeSpans":[{"spans":[' + _TOOL + ']}]}]}\n'
        '{"resourceSpans":[{"instrumentationLibrarySpans":[{"spans":[1]}],'
        '"scopeSpans":[]}]}\n'
        '{"resourceSpans":[{"instrumentationLibrarySpans":[{"spans":[' + _TOOL + ']}]}]}\n'
        '{"resourceSpans":[{"scopeSpans":null}]}\n'
        '{"resourceSpans":[null,{"scopeSpans":[null,{"spans":null},{}]}]}\n'
        '{"resourceMetrics":1,"resourceLogs":2}\n'
        '{"resourceSpans":[{"scopeSpans":[{"spans":[' + _TOOL.replace(
            '"endTimeUnixNano":"1767225600200000000"', '"endTimeUnixNano":null') + ']}]}]}\n'
    ).encode(),
    "cut last line": _BATCH.encode() + b"\n" + _BATCH.encode()[:-9],
}


@pytest.mark.parametrize("name", sorted(_HOSTILE_FILES))
def test_hostile_files_read_the_same_through_the_command(tmp_path: Path, name: str) -> None:
    """Each hostile file gives the same document from both engines, as the console
    command reads it."""
    path = _write(tmp_path, _HOSTILE_FILES[name])
    python = console_command(["summarize", "--format", "json", "--engine", "python", path])
    assert console_command(["summarize", "--format", "json", "--engine", "native", path]
                           ) == python


def test_repeated_keys_are_read_as_python_reads_them(tmp_path: Path) -> None:
    """The "repeated keys" file counted by hand: line 1 the last (empty) ``spans``: no_spans;
    line 2 the last ``scopeSpans``: one tool span; line 3 ``scopeSpans`` wins over the
    older name: no_spans; line 4 the older name alone: the same span again (duplicate);
    line 5 a null ``scopeSpans``: invalid_structure; line 6 a null batch, a null scope, a
    null ``spans`` (3 invalid_structure) and a scope without spans; line 7 the first other
    signal asked for (``resourceLogs``); line 8 the span with a null end: a start alone,
    another copy of the same call (span id and trace)."""
    path = _write(tmp_path, _HOSTILE_FILES["repeated keys"])
    assert _fast(path) is not None
    code, out = console_command(["summarize", "--format", "json", "--engine", "native", path])
    assert code == 0  # problems are counted, the input is read
    (report,) = json.loads(out)["inputs"]
    # items: 1 + 1 + 1 + 1 + 1 + 3 + 1 + 1
    assert (report["lines_read"], report["lines_used"]) == (10, 1)
    assert report["problems"] == {"invalid_structure": 4}
    assert report["ignored"] == {"no_spans": 2, "resourceLogs": 1, "duplicate_span": 2}
