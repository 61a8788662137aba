"""The native ``copilot`` reader against the Python reference: same logs, same output.

The corpus holds no Copilot CLI log, so the logs are built from the event schema
``docs/formats.md`` (``copilot``) describes: Hypothesis-drawn ``events.jsonl`` files (tool
events of several agents, session starts, ``assistant.message`` requests, odd types,
ids, names, times and ``data``, broken lines, BOMs, cut last lines) and damaged copies,
sub-agent lanes, and hostile lines (huge numbers where msgspec skips or decodes them,
nesting about the limits of msgspec and ``json``, invalid UTF-8, lone surrogates) are
read by both engines; the whole ``summarize --format json`` document must be equal, and
a counting wrapper proves the extension read the unit.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import (
    copilot_calls,
    copilot_records,
    damaged,
    engine_caps,
    engine_eval_names,
    trace_files,
)
from tests.test_native import DIFFERENTIAL, _both
from tests.trace_builders import COPILOT as COPILOT_LINES
from wavemetrics.readers.copilot import COPILOT, copilot_session_id
from wavemetrics.readers.dispatch import ReadUnit
from wavemetrics.readers.registry import NATIVE_ROWS
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings, read_unit

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")


class _Codes:
    """Wraps the extension module and records the format code of every unit it reads."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.codes = inner, []

    def __getattr__(self, name: str) -> Any:
        function = getattr(self.inner, name)

        def recorded(*args: Any) -> Any:
            if name == "read_units":
                self.codes += [code for code, _, _ in args[0]]
            return function(*args)

        return recorded


@contextmanager
def reading_codes() -> Iterator[_Codes]:
    """The extension, spied on: the codes of the units it reads."""
    original = native._native
    spy = _Codes(original)
    native._native = spy
    try:
        yield spy
    finally:
        native._native = original


#: The extension's code for the format (its registry row's).
_CODE = next(row.native.code for row in NATIVE_ROWS if row.name == COPILOT.name and row.native)


def _write(folder: Path, data: bytes, name: str = "events.jsonl") -> str:
    path = folder / name
    path.write_bytes(data)
    return str(path)


@DIFFERENTIAL
@given(data=trace_files(copilot_records(), copilot_calls()), cap=engine_caps,
       names=engine_eval_names, name=st.sampled_from(["events.jsonl", "run.jsonl"]))
def test_generated_logs_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...],
    name: str,
) -> None:
    """A generated log gives the same accounts, lanes and figures on both engines."""
    path = _write(tmp_path_factory.mktemp("copilot"), data, name)
    _both([path], COPILOT.name, cap, names, units=1)


@DIFFERENTIAL
@given(data=damaged(trace_files(copilot_records(), copilot_calls())), cap=engine_caps,
       names=engine_eval_names)
def test_damaged_logs_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    """A generated log with random damage (bit flips, cuts, inserted structure, escapes,
    bad UTF-8) gives the same accounts and figures on both engines."""
    path = _write(tmp_path_factory.mktemp("copilot"), data)
    _both([path], COPILOT.name, cap, names, units=1)


#: Pieces of a log's path: a session folder, ``events.jsonl`` or another name, the
#: folders ``.`` and ``..``, doubled slashes, bytes that are not UTF-8.
_PATH_PIECES = [b"s-1", b"events.jsonl", b"events.jsonl.gz", b"run.jsonl", b".", b"..",
                b"", b"\xff", b"\xed\xa0\x80", "\u00e9".encode(), b"a.b"]


@DIFFERENTIAL
@given(pieces=st.lists(st.sampled_from(_PATH_PIECES), max_size=3),
       name=st.sampled_from([b"events.jsonl", b"x.jsonl", b"events.jsonl.x"]))
def test_a_log_without_session_start_is_named_as_python_names_it(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes], name: bytes,
) -> None:
    """Without ``session.start`` the session id is the registry row's rule (Python's
    ``copilot_session_id``, handed to the extension per file): the same lanes on both
    engines, for any folder and file name."""
    folder = os.fsencode(tmp_path_factory.mktemp("named"))
    relative = b"/".join(p for p in pieces if p not in (b"", b".", b".."))
    where = folder + b"/" + relative if relative else folder
    os.makedirs(where, exist_ok=True)
    path = os.fsdecode(where + b"/" + name)
    with open(os.fsencode(path), "wb") as out:
        out.write(b"".join(COPILOT_LINES.call("x1", 1, 2, "ls")))
    settings = StreamSettings(engine="native")
    fast = native.read_unit_native(COPILOT.name, (path,), settings)
    assert fast is not None
    reference = read_unit(ReadUnit(COPILOT.name, (path,)), StreamSettings(engine="python"))
    assert [(lane.session_id, lane.lane_id) for lane in fast[1]] == [
        (lane.session_id, lane.lane_id) for lane in reference.lanes] == [
        (copilot_session_id(path), "main")]
    assert fast[0] == reference.reports


def _event(kind: str, data: object, time: object = "2025-03-01T10:00:01.000Z",
           **extra: object) -> bytes:
    return json.dumps({"id": "e", "parentId": None, "timestamp": time, "type": kind,
                       **extra, "data": data}).encode()


def test_sub_agent_lanes_and_batches_read_the_same(tmp_path: Path) -> None:
    """The root agent and two sub-agents (``agentId``), calls requested by one response
    split over two messages (one ``apiCallId``), by a message id only, or by none: the
    same lanes and batch figures, computed here by hand too."""
    session = tmp_path / "4f1c"
    session.mkdir()
    lines = [
        _event("session.start", {"sessionId": "s-9"}),
        _event("assistant.message", {"messageId": "m1", "apiCallId": "k",
                                     "toolRequests": [{"toolCallId": "a"}]}),
        _event("assistant.message", {"messageId": "m2", "apiCallId": "k",
                                     "toolRequests": [{"toolCallId": "b"}]}),
        _event("assistant.message", {"messageId": "m3", "toolRequests": [{"toolCallId": "c"}]},
               agentId="sub-1"),
        _event("subagent.started", {"agentName": "x"}),
    ]
    for call_id, agent, start, end in [("a", None, "01", "04"), ("b", None, "01", "02"),
                                       ("c", "sub-1", "02", "03"), ("d", "sub-1", "02", "05"),
                                       ("e", "sub-2", "03", "03")]:
        extra = {} if agent is None else {"agentId": agent}
        lines.append(_event("tool.execution_start", {"toolCallId": call_id, "toolName": "view"},
                            f"2025-03-01T10:00:{start}.000Z", **extra))
        lines.append(_event("tool.execution_complete", {"toolCallId": call_id},
                            f"2025-03-01T10:00:{end}.000Z", **extra))
    path = _write(session, b"\n".join(lines) + b"\n")
    document = _both([path], COPILOT.name, 2000, ("eval",), units=1)
    lanes = {lane["lane_id"]: lane for lane in json.loads(document)["lanes"]}
    assert list(lanes) == ["main", "sub-1", "sub-2"]
    assert {lane["session_id"] for lane in lanes.values()} == {"s-9"}
    # main: a [1, 4] and b [1, 2] s, one response (api:k): one wave, 3 + 1 - 3 = 1 s saved
    assert lanes["main"]["modeled_wallclock_saved_ms"] == 1000.0
    assert (lanes["main"]["batched_turns"], lanes["main"]["max_turn_width"]) == (1, 2)
    # sub-1: c [2, 3] (message m3) and d [2, 5] (no message): 1 s saved, one batch of one
    assert lanes["sub-1"]["modeled_wallclock_saved_ms"] == 1000.0
    assert (lanes["sub-1"]["batched_turns"], lanes["sub-1"]["calls_without_batch"]) == (1, 1)
    assert lanes["sub-2"]["paired_calls"] == 1


#: A line's start with its type and time (the event's other keys follow).
_T = b'{"type": "x.y", "timestamp": "2025-03-01T10:00:06Z", '


def test_hostile_lines_read_the_same(tmp_path: Path) -> None:
    """Huge numbers where msgspec skips them and where it decodes them, nesting far from
    both limits, invalid UTF-8, lone surrogates and control characters in ids and names,
    odd ``data``, BOMs and CRs: the same accounts and figures."""
    digits = b"9" * 4301
    lines = [
        b"\xef\xbb\xbf" + _event("session.start", {"sessionId": "s1"}),
        _event("tool.execution_start", {"toolCallId": "c1", "toolName": "bash"}),
        _T + b'"z": ' + digits + b"}",
        _T + b'"data": {"toolCallId": 1, "n": -' + digits + b"}}",
        _T + b'"data": {"toolRequests": [{"toolCallId": ' + digits + b"}]}}",
        _T + b'"data": {"toolRequests": [{"toolCallId": "a", "n": ' + digits + b"}]}}",
        _T + b'"data": 5, "z": ' + digits + b"}",
        _T + b'"data": {"toolRequests": null}, "z": ' + digits + b"}",
        _T + b'"agentId": ' + digits + b"}",
        _T + b'"agentId": 1e400, "z": ' + digits + b"}",
        _T + b'"z": "\\ud800", "y": ' + digits + b"}",
        _T + b'"z": "\\ud83d\\ude00", "y": ' + digits + b"}",
        _T + b'"data": {"n": -' + b"9" * 4300 + b"}, \"timestamp\": -" + b"9" * 4300 + b"}",
        # msgspec refuses what it decodes: a "-" and 4300 digits (4301 characters), a float
        # past a double, in a request's id or an object; the skipped long int then decides
        _T + b'"data": {"toolRequests": [{"toolCallId": [-' + b"9" * 4300 + b']}]}, "q": '
        + digits + b"}",
        _T + b'"data": {"toolRequests": [{"toolCallId": [-' + b"9" * 4299 + b']}]}, "q": '
        + digits + b"}",
        _T + b'"agentId": {"a": 1.8e308}, "q": ' + digits + b"}",
        _T + b'"agentId": {"a": 1.7e308}, "q": ' + digits + b"}",
        _T + b'"data": {}, "data": null, "q": ' + digits + b"}",
        b'{"type": "x.y", "timestamp": 1e999999999}',
        b'[' + b"1" * 5000 + b"]",
        *(_T + b'"d": ' + b"[" * n + b"]" * n + b"}" for n in (499, 990)),
        *(_T + b'"data": 5, "d": ' + b"[" * n + b"]" * n + b"}" for n in (499, 990)),
        b'{"type": "x.y", "d": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        b'[' * 3000 + b"]" * 3000,
        b'{"type": "caf\xc3\xa9\xff"}',
        _event("tool.execution_start", {"toolCallId": "c\ud800", "toolName": "x"}),
        _event("tool.execution_start", {"toolCallId": "c2", "toolName": "x\udc00"}),
        _event("tool.execution_start", {"toolCallId": "c3", "toolName": "x"}, agentId="a\x1b"),
        _event("tool.execution_start", {"toolCallId": "c4", "toolName": "x"}, agentId="\ud800"),
        _event("tool.execution_start", {"toolCallId": "c5", "toolName": "x"}, agentId=None),
        _event("tool.execution_start", {"toolCallId": "c6", "toolName": ""}),
        _event("tool.execution_complete", {"toolCallId": "c1", "toolName": 5},
               "2025-03-01T10:00:03+05:30"),
        _event("tool.execution_complete", {"toolCallId": "c6"}, 17),
        _event("tool.execution_complete", {"toolCallId": "c6"}, "2025-03-01T10:00:09"),
        _event("tool.execution_complete", "data"),
        _event("\ud800", {}),
        _event("x" * 70, {}),
        _event("session.start", {"sessionId": "s2"}),
        _event("assistant.message", {"apiCallId": "\ud800", "messageId": "m",
                                     "toolRequests": [{"toolCallId": "q"}, "q", None]}),
        _event("tool.execution_start", {"toolCallId": "q", "toolName": "grep"}) + b"\r",
        b'{"type": "tool.execution_complete", "timestamp": "2025-03-01T10:00:08Z", '
        b'"data": {"toolCallId": "q"}, "data": {"toolCallId": "r"}}',
        b"",
        b"   ",
        b"not json",
        b'"a string"',
        b'{"type": NaN}',
        b'{"type": "x.y", "n": Infinity}',
        b'{"type": "x.y"} trailing',
    ]
    path = _write(tmp_path, b"\n".join(lines) + b"\n" + b'{"type": "tool.exec')
    with reading_codes() as spy:
        document = _both([path], COPILOT.name, 2000, ("eval",), units=1)
    assert spy.codes == [_CODE] * 2  # by the streamed read and the batch read
    assert '"invalid_json"' in document and '"invalid_utf8"' in document
    assert '"truncated_last_line": 1' in document


def test_the_extension_reads_a_folder_of_logs(tmp_path: Path) -> None:
    """A Copilot CLI store (``session-state/<id>/events.jsonl``), detected by the registry,
    is read by the extension one unit per log: the same document as Python's."""
    for index in range(3):
        folder = tmp_path / "session-state" / f"sess-{index}"
        folder.mkdir(parents=True)
        # different times: identical files would be read once (copies)
        lines = [*COPILOT_LINES.call("a", 1, 3 + index), *COPILOT_LINES.call("b", 2, 4)]
        (folder / "events.jsonl").write_bytes(b"".join(lines))
    with reading_codes() as spy:
        document = _both([str(tmp_path)], "auto", 2000, ("eval",), units=1)
    assert spy.codes == [_CODE] * 3 * 2  # each log, by the streamed read and the batch read
    assert [lane["session_id"] for lane in json.loads(document)["lanes"]] == [
        "sess-0", "sess-1", "sess-2"]
