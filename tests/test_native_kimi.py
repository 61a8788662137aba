"""The native ``kimi`` reader against the Python reference: same wire logs, same output.

The corpus holds no Kimi CLI wire log, so the logs are built from the record layout
``docs/formats.md`` (``kimi``) describes: Hypothesis-drawn ``wire.jsonl`` files (metadata
headers, ``ToolCall``/``ToolResult`` records, step openers, odd types, ids, names, times,
messages and payloads, broken lines, BOMs, cut last lines) and damaged copies, a session
with sub-agent logs (``subagents/<agent_id>/wire.jsonl``), paths of any shape (the lane
the extension works out from a path), and hostile lines are read by both engines; the
whole ``summarize --format json`` document must be equal, and a spy proves the extension
read the unit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import (
    damaged,
    engine_caps,
    engine_eval_names,
    kimi_calls,
    kimi_records,
    trace_files,
)
from tests.test_native import DIFFERENTIAL, _both
from tests.test_native_copilot import reading_codes
from tests.trace_builders import KIMI as KIMI_LINES
from wavemetrics.readers.dispatch import ReadUnit
from wavemetrics.readers.kimi import KIMI, kimi_lane
from wavemetrics.readers.registry import NATIVE_ROWS
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings, read_unit

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")

#: The extension's code for the format (its registry row's).
_CODE = next(row.native.code for row in NATIVE_ROWS if row.name == KIMI.name and row.native)


def _write(folder: Path, data: bytes, name: str = "wire.jsonl") -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return str(path)


@DIFFERENTIAL
@given(data=trace_files(kimi_records(), kimi_calls()), cap=engine_caps,
       names=engine_eval_names, sub=st.booleans())
def test_generated_logs_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...],
    sub: bool,
) -> None:
    """A generated wire log (a session's or a sub-agent's) gives the same accounts, lanes
    and figures on both engines."""
    folder = tmp_path_factory.mktemp("kimi") / "s-1"
    path = _write(folder / "subagents" / "a7" if sub else folder, data)
    _both([path], KIMI.name, cap, names, units=1)


@DIFFERENTIAL
@given(data=damaged(trace_files(kimi_records(), kimi_calls())), cap=engine_caps,
       names=engine_eval_names)
def test_damaged_logs_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    """A generated wire log with random damage gives the same accounts and figures on both
    engines."""
    path = _write(tmp_path_factory.mktemp("kimi") / "s-1", data)
    _both([path], KIMI.name, cap, names, units=1)


#: Pieces of a log's path: ``subagents``, agent and session folders, ``.`` and ``..``,
#: empty pieces (doubled slashes), bytes that are not UTF-8.
_PATH_PIECES = [b"subagents", b"subagents", b"a7", b"s-1", b".", b"..", b"", b"\xff",
                b"\xed\xa0\x80", "\u00e9".encode(), b"wire.jsonl"]


@DIFFERENTIAL
@given(pieces=st.lists(st.sampled_from(_PATH_PIECES), max_size=4),
       name=st.sampled_from([b"wire.jsonl", b"wire.jsonl", b"x.jsonl", b"wire.jsonl.x"]))
def test_a_log_s_session_and_lane_are_its_place_as_python_names_them(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes], name: bytes,
) -> None:
    """The session id (the registry row's rule, handed over per file) and the lane id (the
    extension's ``lane_id``, written again in Rust) are ``kimi_lane``'s for any path."""
    base = os.fsencode(tmp_path_factory.mktemp("placed"))
    where = base + b"/" + b"/".join(pieces) if pieces else base
    try:
        os.makedirs(where, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        return  # a piece names the log file itself
    path = os.fsdecode(where.rstrip(b"/") + b"/" + name)
    if os.path.isdir(path):
        return
    with open(os.fsencode(path), "wb") as out:
        out.write(b"".join(KIMI_LINES.call("x1", 1, 2)))
    fast = native.read_unit_native(KIMI.name, (path,), StreamSettings(engine="native"))
    assert fast is not None
    reference = read_unit(ReadUnit(KIMI.name, (path,)), StreamSettings(engine="python"))
    assert [(lane.session_id, lane.lane_id) for lane in fast[1]] == [
        (lane.session_id, lane.lane_id) for lane in reference.lanes] == [kimi_lane(path)]
    assert fast[0] == reference.reports


def _record(seconds: object, kind: str, payload: object) -> bytes:
    return json.dumps({"timestamp": seconds, "message": {"type": kind, "payload": payload}}).encode()


def _call(call_id: str, start: float, end: float, name: str = "Shell") -> list[bytes]:
    return [_record(1_740_823_200 + start, "ToolCall", {"type": "function", "id": call_id,
                                                       "function": {"name": name}}),
            _record(1_740_823_200 + end, "ToolResult", {"tool_call_id": call_id})]


def test_a_session_with_sub_agent_logs_reads_the_same(tmp_path: Path) -> None:
    """A session folder holding its log and two sub-agents' logs, read as the store is
    (each log a unit): the same lanes, the sub-agents' named by their folders, and batches
    by step, computed here by hand too."""
    session = tmp_path / "sessions" / "9a0b" / "s-1"
    header = json.dumps({"type": "metadata", "protocol_version": "1.4"}).encode()
    step = _record(1_740_823_200, "StepBegin", {"n": 1})
    _write(session, b"\n".join([header, step, *_call("a", 1, 4), *_call("b", 1, 2),
                                _record(1_740_823_201, "SubagentEvent", {"agent_id": "a7"})])
           + b"\n")
    _write(session / "subagents" / "a7", b"\n".join(
        [header, step, *_call("c", 2, 3), step, *_call("d", 2, 5)]) + b"\n")
    _write(session / "subagents" / "b2", b"\n".join([header, *_call("e", 3, 3)]) + b"\n")
    with reading_codes() as spy:
        document = _both([str(tmp_path)], "auto", 2000, ("eval",), units=1)
    assert spy.codes == [_CODE] * 3 * 2  # each log, by the streamed read and the batch read
    lanes = {lane["lane_id"]: lane for lane in json.loads(document)["lanes"]}
    assert sorted(lanes) == ["a7", "b2", "main"]
    assert {lane["session_id"] for lane in lanes.values()} == {"s-1"}
    # main: a [1, 4] and b [1, 2] s, one step: one wave, 3 + 1 - 3 = 1 s saved, one turn of 2
    assert lanes["main"]["modeled_wallclock_saved_ms"] == 1000.0
    assert (lanes["main"]["batched_turns"], lanes["main"]["max_turn_width"]) == (1, 2)
    # a7: c [2, 3] and d [2, 5] of two steps: 1 s saved, two turns of one
    assert lanes["a7"]["modeled_wallclock_saved_ms"] == 1000.0
    assert (lanes["a7"]["batched_turns"], lanes["a7"]["max_turn_width"]) == (2, 1)
    # b2: e before any step: no batch
    assert lanes["b2"]["calls_without_batch"] == 1


#: A record's start (its other keys follow).
_T = b'{"timestamp": 1740823206, '


def test_hostile_lines_read_the_same(tmp_path: Path) -> None:
    """Huge numbers where msgspec skips them and where it decodes them, nesting far from
    both limits, invalid UTF-8, lone surrogates and control characters in ids and names,
    odd messages and payloads, odd times, BOMs and CRs: the same accounts and figures."""
    digits = b"9" * 4301
    call = b'"message": {"type": "ToolCall", "payload": {"type": "function", "id": "h", '
    lines = [
        b"\xef\xbb\xbf" + json.dumps({"type": "metadata", "protocol_version": "1"}).encode(),
        *_call("c1", 1, 3),
        _T + b'"z": ' + digits + b"}",
        _T + b'"message": {"type": "X", "payload": {"n": -' + digits + b"}}}",
        _T + call + b'"function": {"name": "x", "n": ' + digits + b"}}}}",
        _T + call + b'"function": {"name": ' + digits + b"}}}}",
        _T + b'"message": {"type": "X", "payload": 5}, "z": ' + digits + b"}",
        _T + b'"message": {"type": "X", "payload": {"function": []}}, "z": ' + digits + b"}",
        b'{"timestamp": ' + digits + b"}",
        b'{"timestamp": 1e400, "z": ' + digits + b"}",
        _T + b'"z": "\\ud800", "y": ' + digits + b"}",
        b'{"timestamp": -' + b"9" * 4300 + b', "message": {"type": "X"}}',
        # msgspec refuses a "-" and 4300 digits where it decodes them: the skipped long int
        # decides; where it skips them, it reads the line
        b'{"timestamp": -' + b"9" * 4300 + b', "q": ' + digits + b"}",
        _T + call + b'"function": {"name": -' + b"9" * 4300 + b'}}}, "q": ' + digits + b"}",
        _T + call + b'"function": {"x": -' + b"9" * 4300 + b'}}}, "q": ' + digits + b"}",
        _T + b'"message": {"type": "X", "payload": {"function": []}}, "q": ' + digits + b"}",
        b'{"timestamp": 1e999999999, "message": {"type": "ToolResult", "payload": '
        b'{"tool_call_id": "c1"}}}',
        b"[" + b"1" * 5000 + b"]",
        *(_T + b'"d": ' + b"[" * n + b"]" * n + b"}" for n in (499, 990)),
        *(_T + b'"message": 5, "d": ' + b"[" * n + b"]" * n + b"}" for n in (499, 990)),
        b'{"d": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        b"[" * 3000 + b"]" * 3000,
        b'{"type": "caf\xc3\xa9\xff"}',
        _record(1_740_823_207, "ToolCall", {"type": "function", "id": "c\ud800",
                                            "function": {"name": "x"}}),
        _record(1_740_823_207, "ToolCall", {"type": "function", "id": "c\x1b",
                                            "function": {"name": "x"}}),
        _record(1_740_823_207, "ToolCall", {"type": "function", "id": "c2",
                                            "function": {"name": "x\udc00"}}),
        _record(1_740_823_207, "ToolCall", {"type": "function", "id": "c3",
                                            "function": "x"}),
        _T + call.replace(b'"h"', b'"c4"') + b'"function": {"name": "x"}, "function": null}}}',
        _T + call.replace(b'"h"', b'"c5"') + b'"function": null, "function": {"name": "x"}}}}',
        _record(True, "ToolResult", {"tool_call_id": "c1"}),
        _record("1740823208", "ToolResult", {"tool_call_id": "c1"}),
        _record(-0.0, "ToolCall", {"type": "function", "id": "z", "function": {"name": "x"}}),
        _record(0, "ToolResult", {"tool_call_id": "z"}) + b"\r",
        _record(1.7e308, "ToolResult", {"tool_call_id": "z"}),
        _record(1_740_823_209, "\ud800", {}),
        _record(1_740_823_209, "x" * 70, {}),
        _record(1_740_823_209, "StepRetry", {}),
        _record(1_740_823_209, "ToolCall", {"type": "function", "id": "s",
                                            "function": {"name": "grep"}}),
        b'{"timestamp": 1740823210, "message": {"type": "ToolResult", "payload": '
        b'{"tool_call_id": "s"}}, "message": {"type": "ToolResult", "payload": '
        b'{"tool_call_id": "t"}}}',
        # a key repeated at each level: the last value wins, an object's keys go with it
        _T + call.replace(b'"h"', b'"r1"') + b'"function": {"name": "x"}}, "payload": 1}}',
        _T + call.replace(b'"h"', b'"r2"') + b'"function": {"name": "x"}}, '
        b'"payload": {"type": "function"}}}',
        _T + call.replace(b'"h"', b'"r3"') + b'"function": {"name": "x"}}}, '
        b'"message": {"type": "ToolCall"}}',
        _T + call.replace(b'"h"', b'"r4"') + b'"function": {"name": "x"}}}, "message": "m"}',
        _T + call.replace(b'"h"', b'"r5"') + b'"function": {"name": "x"}, '
        b'"function": {"arguments": "{}"}}}}',
        _T + b'"message": {"type": "ToolResult", "payload": {"tool_call_id": "r1"}, '
        b'"payload": null}}',
        _T + b'"message": {"type": "ToolCall", "payload": 2, "payload": {"type": "function", '
        b'"id": "r6", "function": 3, "function": {"name": "y"}}}}',
        b'{"message": null, "type": "metadata", "protocol_version": "2"}',
        b'{"message": false}',
        b'{"message": {"payload": {}}}',
        b"{}",
        b"",
        b"   ",
        b"not json",
        b'{"timestamp": NaN, "message": {"type": "X"}}',
        b'{"timestamp": Infinity}',
        b'{"type": "x"} trailing',
    ]
    path = _write(tmp_path / "s-1", b"\n".join(lines) + b"\n" + b'{"timestamp": 1')
    with reading_codes() as spy:
        document = _both([path], KIMI.name, 2000, ("eval",), units=1)
    assert spy.codes == [_CODE] * 2  # by the streamed read and the batch read
    assert '"invalid_json"' in document and '"invalid_utf8"' in document
    assert '"truncated_last_line": 1' in document
