"""The native ``otel-spans`` reader against the Python reference: same files, same output.

Files of OTel SDK span dicts in all four shapes (an any-agent ``{"spans": [...]}``
document, a JSON array, pretty-printed dicts one after another, one per line) are read
by both engines: the corpus's any-agent traces, Hypothesis-drawn files and damaged copies
(``tests/strategies.py``: ``otel_files``), fixtures for each rule of ``otel_spans.py``
and ``_spans.py`` with figures counted by hand, and hostile documents through the console
command (depth limits, huge ints, bytes that are not UTF-8, a document broken in the
middle, stray text and form feeds between documents). The whole ``summarize --format
json`` document must be equal, and the extension must have read the unit (not declined
it) wherever the module docs of ``documents.rs`` do not say it declines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from tests.corpus import CORPUS, needs_corpus
from tests.strategies import damaged, engine_caps, engine_eval_names, otel_files
from tests.test_native import DIFFERENTIAL, _both, console_command
from wavemetrics.readers.otel_spans import OTEL_SPANS
from wavemetrics.readers.registry import NATIVE_ROWS
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")

_CODE = next(row.native.code for row in NATIVE_ROWS if row.name == OTEL_SPANS.name and row.native)
_BASE_NS = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z


def _write(folder: Path, data: bytes, name: str = "trace.json") -> str:
    path = folder / name
    path.write_bytes(data)
    return str(path)


def _fast(path: str) -> Any:
    """The extension's read of ``path`` (``None``: declined, read by Python)."""
    return native.read_unit_native(OTEL_SPANS.name, (path,), StreamSettings(engine="native"))


def _command(path: str, engine: str) -> tuple[int, str]:
    return console_command(["summarize", "--format", "json", "--no-cache", "--input-format",
                            OTEL_SPANS.name, "--engine", engine, path])


def _same(path: str, *, read: bool = True) -> dict[str, Any]:
    """Both engines' documents for ``path`` through the console command, equal; the
    native engine read it (``read``) or declined it. The document."""
    assert (_fast(path) is not None) is read
    code, out = _command(path, "native")
    assert (code, out) == _command(path, "python")
    document: dict[str, Any] = json.loads(out)
    return document


def _span(span_id: Any, start_ms: int | None, end_ms: int | None, operation: str | None = None,
          *, parent: Any = None, trace: Any = 7, **attributes: Any) -> dict[str, Any]:
    """An SDK span dict of trace ``trace``; times in ms after ``_BASE_NS`` as ns ints."""
    values = {} if operation is None else {"gen_ai.operation.name": operation}
    values |= attributes
    span: dict[str, Any] = {"name": "execute_tool read", "context": {"trace_id": trace,
                                                                    "span_id": span_id},
                            "attributes": values}
    if start_ms is not None:
        span["start_time"] = _BASE_NS + start_ms * 10**6
    if end_ms is not None:
        span["end_time"] = _BASE_NS + end_ms * 10**6
    if parent is not None:
        span["parent"] = {"trace_id": trace, "span_id": parent}
    return span


#: An agent (session ``c1``) and two tool calls below it, [100, 200] and [150, 300] ms:
#: one wave of two calls, 100 + 150 - 200 = 50 ms saved, 250 ms of tool time.
_AGENT = _span(1, 0, 1000, "invoke_agent", **{"gen_ai.conversation.id": "c1"})
_READ = _span(2, 100, 200, "execute_tool", parent=1, **{"gen_ai.tool.name": "read"})
_GREP = _span(3, 150, 300, "execute_tool", parent=1, **{"gen_ai.tool.name": "grep"})
_SPANS = [_AGENT, _READ, _GREP]

_SHAPES = {
    "any-agent document": json.dumps({"spans": _SPANS, "final_output": "ok"}, indent=2),
    "compact document": json.dumps({"final_output": "ok", "spans": _SPANS}),
    "array": json.dumps(_SPANS, indent=2),
    "compact array": json.dumps(_SPANS),
    "console stream": "\n".join(json.dumps(span, indent=4) for span in _SPANS),
    "one per line": "\n".join(json.dumps(span) for span in _SPANS),
}


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_every_shape_reads_the_same_spans(tmp_path: Path, shape: str) -> None:
    """The same three spans in each of the four shapes: 3 items, the agent span ignored
    (``non_tool_span``), both calls used in one lane of session ``c1``."""
    document = _same(_write(tmp_path, _SHAPES[shape].encode() + b"\n"))
    (report,) = document["inputs"]
    assert (report["format"], report["lines_read"], report["lines_used"]) == (
        "otel-spans", 3, 2)
    assert report["ignored"] == {"non_tool_span": 1}
    assert report["problems"] == {}
    (lane,) = document["lanes"]
    assert (lane["session_id"], lane["lane_id"]) == ("c1", "main")
    assert lane["modeled_wallclock_saved_ms"] == 50.0
    assert lane["tool_time_ms"] == 250.0
    assert lane["paired_calls"] == 2


def test_ids_parents_and_times_in_every_spelling(tmp_path: Path) -> None:
    """Ids as decimal ints and ``0x`` strings are one id (trace 7 is ``0x7``); the parent
    as ``parent.span_id`` and as ``parent_id``; times as ns ints, decimal strings and
    ISO-8601 ``Z`` strings. Both calls inherit session ``c1`` from the agent, so their
    one lane has [100, 200] and [150, 300]: 50 ms saved."""
    agent = _span(1, 0, 1000, "invoke_agent", trace="0x7", **{"gen_ai.conversation.id": "c1"})
    read = _span("0x2", None, None, "execute_tool", **{"gen_ai.tool.name": "read"})
    read |= {"parent_id": "0X0000000000000001", "start_time": str(_BASE_NS + 100 * 10**6),
             "end_time": "2026-01-01T00:00:00.200Z"}
    grep = _span(3, 150, None, "execute_tool", parent=1, trace="0x0007",
                 **{"gen_ai.tool.name": "grep"})
    grep["end_time"] = "2026-01-01T00:00:00.300000000Z"
    document = _same(_write(tmp_path, json.dumps([agent, read, grep], indent=2).encode()))
    (report,) = document["inputs"]
    assert (report["lines_read"], report["lines_used"]) == (3, 2)
    (lane,) = document["lanes"]
    assert lane["session_id"] == "c1"
    assert lane["modeled_wallclock_saved_ms"] == 50.0


def test_sessions_from_resource_trace_and_trace_id(tmp_path: Path) -> None:
    """No session on a call or its ancestors: its resource's ``session.id`` (trace 7);
    else the one conversation id of its trace (trace 8, on a sibling span); else its trace
    id as 32 hex digits (trace 9)."""
    resource = _span(2, 100, 200, "execute_tool", **{"gen_ai.tool.name": "read"})
    resource["resource"] = {"attributes": {"session.id": "res"}}
    sibling = _span(5, 0, 1, "chat", trace=8, **{"gen_ai.conversation.id": "conv-8"})
    in_trace = _span(6, 100, 200, "execute_tool", trace=8, **{"gen_ai.tool.name": "read"})
    bare = _span(7, 100, 200, "execute_tool", trace=9, **{"gen_ai.tool.name": "read"})
    lines = [json.dumps(span) for span in (resource, sibling, in_trace, bare)]
    document = _same(_write(tmp_path, "\n".join(lines).encode() + b"\n"))
    sessions = [(lane["session_id"], lane["lane_id"]) for lane in document["lanes"]]
    assert sessions == [("res", "main"), ("conv-8", "main"), ("0" * 31 + "9", "main")]


def test_every_accounting_rule_counted_by_hand(tmp_path: Path) -> None:
    """One file of documents, one rule each (items in brackets):

    1. ``{"spans": []}``: no_spans [1]
    2. ``{"spans": 3}``: invalid_structure [1]
    3. ``{"x": 1}``: unknown_record [1]
    4. ``5``: not_an_object [1]
    5. a list of: a string (invalid_span), a span with a bad id (invalid_span_id), a tool
       span with no name (invalid_tool_record), one with no start (invalid_timestamp), one
       whose end is 0 (invalid_timestamp), one with a control character in its call id
       (invalid_id) [6]
    6. a span dict on its own with a null end: a start alone, used (an incomplete call) [1]
    7. two copies of call ``k`` (one call id, one session): one used, one duplicate_span [2]
    8. a zero-length call: synthetic_timing [1]
    9. a document broken in the middle (its valid spans never read): invalid_json [1]

    15 items: 2 used, no_spans, unknown_record, duplicate_span, synthetic_timing ignored,
    9 problems."""
    tool = {"gen_ai.tool.name": "read"}
    nameless = _span(11, 0, 1, "execute_tool")
    nameless["name"] = 5
    values = [
        {"spans": []},
        {"spans": 3},
        {"x": 1},
        5,
        ["text",
         _span(0, 0, 1, "execute_tool", **tool),
         nameless,
         _span(12, None, 1, "execute_tool", **tool),
         {**_span(13, 0, 1, "execute_tool", **tool), "end_time": 0},
         _span(14, 0, 1, "execute_tool", **tool, **{"gen_ai.tool.call.id": "a\x1b"})],
        {**_span(15, 0, None, "execute_tool", **tool), "end_time": None},
        [_span(16, 10, 30, "execute_tool", **tool, **{"gen_ai.tool.call.id": "k"}),
         _span(17, 12, 20, "execute_tool", **tool, **{"gen_ai.tool.call.id": "k"})],
        [_span(18, 40, 40, "execute_tool", **tool)],
    ]
    text = "\n".join(json.dumps(value, indent=2) for value in values)
    broken = json.dumps({"spans": [_READ, _GREP]}, indent=2).replace('"name"', '"name" x', 1)
    document = _same(_write(tmp_path, (text + "\n" + broken + "\n").encode()))
    (report,) = document["inputs"]
    assert (report["lines_read"], report["lines_used"], report["lines_ignored"]) == (15, 2, 4)
    assert report["ignored"] == {"no_spans": 1, "unknown_record": 1, "duplicate_span": 1,
                                 "synthetic_timing": 1}
    assert report["problems"] == {"invalid_structure": 1, "not_an_object": 1,
                                  "invalid_span": 1, "invalid_span_id": 1,
                                  "invalid_tool_record": 1, "invalid_timestamp": 2,
                                  "invalid_id": 1, "invalid_json": 1}
    (lane,) = document["lanes"]
    assert lane["session_id"] == "0" * 31 + "7"
    assert (lane["observed_calls"], lane["incomplete_calls"]) == (2, 1)


def test_claude_code_tool_spans_and_agents(tmp_path: Path) -> None:
    """A Claude Code ``claude_code.tool`` span (no operation; tool ``tool_name``, session
    ``session.id``) is a call; two top-level agents of one trace are a lane each."""
    claude = {"name": "claude_code.tool", "context": {"trace_id": 7, "span_id": 40},
              "start_time": _BASE_NS, "end_time": _BASE_NS + 10**8,
              "attributes": {"tool_name": "Read", "session.id": "cc", "tool_use_id": "t1"}}
    planner = _span(50, 0, 900, "invoke_agent", trace=8, **{"gen_ai.agent.name": "planner",
                                                           "gen_ai.conversation.id": "s"})
    worker = _span(51, 0, 900, "invoke_agent", trace=8, **{"gen_ai.agent.id": "w-1",
                                                          "gen_ai.conversation.id": "s"})
    calls = [_span(52, 100, 200, "execute_tool", trace=8, parent=50,
                   **{"gen_ai.tool.name": "read"}),
             _span(53, 100, 200, "execute_tool", trace=8, parent=51,
                   **{"gen_ai.tool.name": "read"})]
    document = _same(_write(tmp_path, json.dumps(
        {"spans": [claude, planner, worker, *calls]}, indent=2).encode()))
    lanes = [(lane["session_id"], lane["lane_id"]) for lane in document["lanes"]]
    assert lanes == [("cc", "main"), ("s", "planner"), ("s", "w-1")]


def _deep(levels: int) -> bytes:
    """A document ``{"spans": [], "z": [[...]]}`` nesting ``levels`` levels in all."""
    return b'{"spans": [], "z": ' + b"[" * (levels - 1) + b"]" * (levels - 1) + b"}"


def test_hostile_documents_are_accounted_as_python_accounts_them(tmp_path: Path) -> None:
    """Through the console command, after four documents read (``no_spans`` each): a
    document nesting 500 levels (read: no_spans) and one of 501 (too_deeply_nested), an int
    of 4301 digits deep in a span (invalid_json), bytes that are not UTF-8 after a syntax
    error (invalid_utf8: the document is decoded before it is parsed), NaN, a form feed
    on a line of its own inside a document (dropped: read) and one beside a value
    (invalid_json), stray text between documents (``stray 1``: one invalid_json item),
    a span list whose last span key is not a list (invalid_structure: the last key
    wins), and one whose last span key is an empty list (no_spans: the span before it is
    never read). 14 items."""
    head = b'{\n"spans": []}\n' * 4
    documents = [
        _deep(500), _deep(501),
        b'{"spans": [{"context": {"trace_id": ' + b"9" * 4301 + b"}}]}",
        b'{"spans": [1 2, "\xff"]}',
        b'{"spans": [NaN]}',
        b'{"spans": [\n\x0c\n]}',
        b'{"spans": [\x0c]}',
        b"stray 1",
        b'{"spans": [{"context": {}}], "spans": 2}',
        b'{"spans": [{"context": {"trace_id": 7, "span_id": 99}}], "spans": []}',
    ]
    path = _write(tmp_path, head + b"\n".join(b"{\n" + d[1:] if d.startswith(b"{") else d
                                             for d in documents) + b"\n")
    document = _same(path)
    (report,) = document["inputs"]
    assert report["lines_read"] == 14
    assert report["ignored"] == {"no_spans": 7}
    assert report["problems"] == {"too_deeply_nested": 1, "invalid_json": 4,
                                  "invalid_utf8": 1, "invalid_structure": 1}


def test_lines_nest_as_deep_as_documents(tmp_path: Path) -> None:
    """One span dict per line: 500 levels read, 501 too_deeply_nested, as a document."""
    def deep(levels: int) -> bytes:
        return b'{"x": ' + b"[" * (levels - 1) + b"]" * (levels - 1) + b"}"

    lines = [json.dumps(_READ).encode()] * 4 + [deep(500), deep(501)]
    document = _same(_write(tmp_path, b"\n".join(lines) + b"\n"))
    (report,) = document["inputs"]
    assert (report["lines_read"], report["lines_used"]) == (6, 1)
    assert report["ignored"] == {"unknown_record": 1, "duplicate_span": 3}
    assert report["problems"] == {"too_deeply_nested": 1}


#: Files the extension hands back to Python (``documents.rs``): a single document that
#: does not parse (the input fails: broken, or nested past the limit), a value cut at a
#: line that may begin a document.
_DECLINED = {
    "one broken document": b'{\n"spans": [1,]\n}\n',
    "cut at a line": b'{\n"spans": [\n[1]\n',
    # one document past the nesting limit: it does not parse, so the input fails
    "one document too deeply nested": b'[' + b"[" * 950 + b"]" * 950 + b"\n]\n",
}


@pytest.mark.parametrize("name", sorted(_DECLINED))
def test_declined_files_are_read_by_python(tmp_path: Path, name: str) -> None:
    _same(_write(tmp_path, _DECLINED[name]), read=False)


#: Hostile files read natively: BOMs, blank and text first lines, form feeds, escapes in
#: keys and ids, repeated keys at every level (the last wins), huge ids, a cut last line.
_HOSTILE = {
    # a first line past the nesting limit is no object on its own: whole documents
    # (decided here, where a first line past 900 levels was once declined)
    "first line 500 deep": b'{"x": ' + b"[" * 499 + b"]" * 499 + b"}\n" + b'{"spans": []}\n',
    "first line 501 deep": b'{"x": ' + b"[" * 500 + b"]" * 500 + b"}\n" + b'{"spans": []}\n',
    "bom": b"\xef\xbb\xbf" + _SHAPES["array"].encode(),
    "bom and blank lines first": b"\xef\xbb\xbf\n \n\x0c\n" + _SHAPES["console stream"].encode(),
    "text first": b"hello\n" + _SHAPES["one per line"].encode(),
    "escaped keys": _SHAPES["any-agent document"].replace('"spans"', '"sp\\u0061ns"')
    .replace('"context"', '"c\\u006fntext"').encode(),
    "repeated keys": (b'{"spans": [1], "spans": ' + _SHAPES["compact array"].encode()
                      + b', "context": 5}\n' + b'{"context": {"span_id": 1}, "context": '
                      + b'{"trace_id": 7, "span_id": 2, "span_id": 9}, "start_time": 1, '
                      + b'"attributes": {"gen_ai.operation.name": "execute_tool", '
                      + b'"gen_ai.tool.name": 5, "gen_ai.tool.name": "r"}}\n'),
    "huge ids": json.dumps([_span(2**64, 1, 2, "execute_tool", trace=2**128),
                            _span(2**64 - 1, 1, 2, "execute_tool", trace=2**128 - 1,
                                  **{"gen_ai.tool.name": "r"})], indent=1).encode(),
    "cut last document": (_SHAPES["console stream"] + "\n" + _SHAPES["console stream"])
    .encode()[:-9],
    "documents on one line": b"[] {} 5 " + _SHAPES["compact document"].encode(),
    "form feed lines": _SHAPES["any-agent document"].replace("\n", "\n\x0c\n").encode(),
}


@pytest.mark.parametrize("name", sorted(_HOSTILE))
def test_hostile_files_read_the_same_through_the_command(tmp_path: Path, name: str) -> None:
    _same(_write(tmp_path, _HOSTILE[name]))


def test_repeated_keys_are_read_as_python_reads_them(tmp_path: Path) -> None:
    """Counted by hand: the first document's last ``spans`` (three spans) wins over the
    first and over its ``context``; the second's last ``context`` (span id 9, the last)
    makes a tool span named by the last ``gen_ai.tool.name`` with a start alone, its
    session the one conversation id of trace 7 (the agent's): 4 items, 3 calls used, all
    in one lane."""
    document = _same(_write(tmp_path, _HOSTILE["repeated keys"]))
    (report,) = document["inputs"]
    assert (report["lines_read"], report["lines_used"]) == (4, 3)
    lanes = [(lane["session_id"], lane["observed_calls"]) for lane in document["lanes"]]
    assert lanes == [("c1", 3)]


@needs_corpus
@pytest.mark.parametrize("name", ["AGNO", "GOOGLE", "LANGCHAIN", "LLAMA_INDEX", "OPENAI",
                                  "SMOLAGENTS", "TINYAGENT"])
def test_the_corpus_traces_read_the_same(name: str) -> None:
    """The corpus's any-agent traces (``{"spans": [...]}`` documents) are read by the
    extension, with the reference's document."""
    path = str(CORPUS / "any-agent" / f"{name}_trace.json")
    assert _fast(path) is not None
    _both([path], "auto", 2000, ("eval",), units=1)


@DIFFERENTIAL
@given(data=otel_files(), cap=engine_caps, names=engine_eval_names)
def test_generated_files_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    path = _write(tmp_path_factory.mktemp("spans"), data)
    _both([path], OTEL_SPANS.name, cap, names, units=1)


@DIFFERENTIAL
@given(data=damaged(otel_files()), cap=engine_caps, names=engine_eval_names)
def test_damaged_files_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    path = _write(tmp_path_factory.mktemp("spans"), data)
    _both([path], OTEL_SPANS.name, cap, names, units=1)


def test_the_format_has_its_code() -> None:
    assert _CODE == 9
