"""The ``qwen`` reader: Qwen Code chat files, measured from ``tool_lifecycle`` records.

No real Qwen Code file was available: the fixtures are written here from the
documented schema (``ChatRecord`` of ``QwenLM/qwen-code``'s
``chatRecordingService.ts``; the ``tool_lifecycle`` event of the
``water-in-stone/qwen-code`` fork's ``tool-lifecycle.ts``). Figures are computed
by hand from ``docs/metrics.md`` (arithmetic in comments).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import CORPUS, needs_corpus
from tests.reader_checks import cli_document, lane_figures, sniffs
from wavemetrics.readers.claude_code import CLAUDE_CODE
from wavemetrics.readers.dispatch import detect_input
from wavemetrics.readers.events import EVENTS
from wavemetrics.readers.openclaw import OPENCLAW
from wavemetrics.readers.qwen import PARTIAL_REASON, QWEN

T0 = 1_796_292_000_000  # 2026-12-03T10:00:00Z, Unix ms
ISO = "2026-12-03T10:00:30.000Z"  # chat record times: never used for a call
FIGURES = ("paired_calls", "incomplete_calls", "modeled_wallclock_saved_ms",
           "upper_bound_saved_ms", "non_eval_saved_round_trips",
           "non_eval_wave_size_histogram")


def _rec(kind: str, uuid: str, **fields: Any) -> dict[str, Any]:
    return {"uuid": uuid, "parentUuid": None, "sessionId": "s1", "timestamp": ISO,
            "type": kind, **fields}


def _user(uuid: str) -> dict[str, Any]:
    return _rec("user", uuid, message={"role": "user", "parts": [{"text": "secret"}]})


def _assistant(uuid: str, *calls: tuple[str, str], **fields: Any) -> dict[str, Any]:
    return _rec("assistant", uuid, model="qwen3-coder", message={"role": "model", "parts": [
        {"functionCall": {"id": call_id, "name": name, "args": {"path": "secret"}}}
        for call_id, name in calls]}, **fields)


def _life(uuid: str, call_id: str, tool: str, phase: str, started: int,
          ended: int | None = None, sub: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"event.name": "tool_lifecycle", "v": 1, "kind": "tool",
                             "sessionId": "s1", "executionId": "x1", "callId": call_id,
                             "toolName": tool, "phase": phase, "startedAt": T0 + started}
    if ended is not None:
        event.update(endedAt=T0 + ended, executionDurationMs=ended - started,
                     outcome="success", executionStatus="success")
    fields: dict[str, Any] = {}
    if sub is not None:
        event["subagentId"] = sub
        fields = {"isSidechain": True, "agentId": sub, "agentName": "explorer"}
    return _rec("system", uuid, subtype="ui_telemetry",
                systemPayload={"uiEvent": event}, **fields)


def _tool_call_event(uuid: str) -> dict[str, Any]:
    return _rec("system", uuid, subtype="ui_telemetry", systemPayload={"uiEvent": {
        "event.name": "qwen-code.tool_call", "event.timestamp": ISO,
        "function_name": "grep", "duration_ms": 860, "success": True, "prompt_id": "p1"}})


def _result(uuid: str, call_id: str) -> dict[str, Any]:
    return _rec("tool_result", uuid, message={"role": "user", "parts": [
        {"functionResponse": {"id": call_id, "name": "t", "response": {"output": "secret"}}}]},
        toolCallResult={"callId": call_id, "status": "success"})


SUB = "agent-1"
#: Two calls in parallel, a sub-agent's two calls, a malformed line, a lifecycle record
#: without a call id, a call that never ends and a call without lifecycle records.
LINES: list[object] = [
    _user("u1"),
    _assistant("a1", ("call_b1", "run_shell_command"), ("call_g1", "grep")),
    _life("l1", "call_b1", "run_shell_command", "started", 10_000),
    _life("l2", "call_g1", "grep", "started", 10_040),
    _life("l3", "call_g1", "grep", "ended", 10_040, 10_900),
    _tool_call_event("t1"),
    _life("l4", "call_b1", "run_shell_command", "ended", 10_000, 13_000),
    _result("r1", "call_b1"),
    _result("r2", "call_g1"),
    _assistant("a2", ("call_s1", "read_file"), ("call_s2", "read_file"),
               isSidechain=True, agentId=SUB),
    _life("l5", "call_s1", "read_file", "started", 11_000, sub=SUB),
    _life("l6", "call_s2", "read_file", "started", 11_100, sub=SUB),
    _life("l7", "call_s1", "read_file", "ended", 11_000, 11_500, sub=SUB),
    _life("l8", "call_s2", "read_file", "ended", 11_100, 12_100, sub=SUB),
    '{"uuid":"bad",',
    {**_life("l9", "call_zz", "grep", "started", 14_000),
     "systemPayload": {"uiEvent": {"event.name": "tool_lifecycle", "kind": "tool",
                                   "toolName": "grep", "phase": "started",
                                   "startedAt": T0 + 14_000}}},
    _assistant("a3", ("call_r1", "read_file"), ("call_x1", "grep")),
    _life("l10", "call_r1", "read_file", "started", 20_000),
]


def _write(folder: Path, lines: list[object], name: str = "s1.jsonl") -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines), encoding="utf-8")
    return str(path)


def _chats(tmp_path: Path) -> Path:
    return tmp_path / ".qwen" / "projects" / "-w" / "chats"


def test_lifecycle_records_give_the_hand_computed_figures(tmp_path: Path) -> None:
    code, document = cli_document([_write(_chats(tmp_path), LINES)])
    assert code == 0
    (report,) = document["inputs"]
    assert report["format"] == "qwen"
    # 18 lines: 9 lifecycle records used; user 1, assistant 3, tool_result 2, the
    # tool_call event 1 ignored; the malformed line and the record without callId
    assert (report["lines_read"], report["lines_used"], report["lines_ignored"]) == (18, 9, 7)
    assert report["problems"] == {"invalid_json": 1, "invalid_tool_record": 1}
    assert report["ignored"] == {"user": 1, "assistant": 3, "tool_result": 2,
                                 "system.ui_telemetry": 1}
    assert report["notes"] == {"calls_without_lifecycle": 1}  # call_x1
    # main: b1 [10000, 13000] 3000 ms, g1 [10040, 10900] 860 ms, one wave of 2:
    #   saved 3000 + 860 - 3000 = 860, upper bound 1 x 3860 / 2 = 1930, 1 round trip;
    #   r1 starts at 20000 and never ends: incomplete.
    # agent-1: s1 [11000, 11500] 500, s2 [11100, 12100] 1000, span 1100:
    #   saved 1500 - 1100 = 400, upper bound 1500 / 2 = 750, 1 round trip.
    assert list(lane_figures(document, *FIGURES).items()) == [
        (("s1", "main"), (2, 1, 860.0, 1930.0, 1, "0:1:0:0:0:0:0:0")),
        (("s1", SUB), (2, 0, 400.0, 750.0, 1, "0:1:0:0:0:0:0:0")),
    ]
    total = document["total"]
    assert [total[key] for key in FIGURES] == [4, 1, 1260.0, 2680.0, 2, "0:2:0:0:0:0:0:0"]


def test_the_worked_example(tmp_path: Path) -> None:
    """docs/formats.md, "qwen": grep [10040, 10900] beside a shell call [10000, 13000]."""
    docs = (Path(__file__).parent.parent / "docs" / "formats.md").read_text(encoding="utf-8")
    section = docs.split("## `qwen`", 1)[1].split("\n## ", 1)[0]
    lines: list[object] = section.split("```jsonl\n", 1)[1].split("```", 1)[0].splitlines()
    assert len(lines) == 5
    _, document = cli_document([_write(_chats(tmp_path), lines)])
    assert [document["total"][key] for key in FIGURES] == [
        2, 0, 860.0, 1930.0, 1, "0:1:0:0:0:0:0:0"]


def test_an_end_alone_carries_its_start(tmp_path: Path) -> None:
    """An ``ended`` record with no ``started`` before it: its ``startedAt`` starts the call."""
    lines = [_life("l3", "call_g1", "grep", "ended", 10_040, 10_900)]
    _, document = cli_document([_write(_chats(tmp_path), lines)])
    assert document["total"]["paired_calls"] == 1
    assert document["total"]["tool_time_ms"] == 860.0  # 10900 - 10040


def test_a_file_without_lifecycle_records_is_refused(tmp_path: Path) -> None:
    """Upstream Qwen Code: one time for the batch. Recognised, refused with the reason
    (naming the OpenTelemetry export), exit 1, nothing measured."""
    lines = [_user("u1"), _assistant("a1", ("call_g1", "grep")), _tool_call_event("t1"),
             _result("r1", "call_g1")]
    path = _write(_chats(tmp_path), lines)
    assert detect_input(path).format == "qwen"
    code, document = cli_document([path])
    assert code == 1
    assert document["inputs"][0]["error"] == PARTIAL_REASON
    assert "--input-format otlp" in PARTIAL_REASON and "telemetry" in PARTIAL_REASON
    assert document["lanes"] == []
    done = subprocess.run([sys.executable, "-m", "wavemetrics", "summarize", "--format",
                           "jsonl", path], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (1, "")
    assert "tool_lifecycle" in done.stderr


def test_a_chat_without_calls_is_read_with_none(tmp_path: Path) -> None:
    code, document = cli_document([_write(_chats(tmp_path), [_user("u1")])])
    assert code == 0
    assert document["inputs"][0]["error"] is None
    assert document["lanes"] == []


def test_only_qwen_takes_it_before_claude_code(tmp_path: Path) -> None:
    """events does not take a Qwen file; claude-code would (a user record with a uuid),
    which is why qwen comes before it; qwen takes no Claude Code record."""
    lines = [json.dumps(line).encode() + b"\n" for line in LINES if isinstance(line, dict)]
    path = str(tmp_path / "s1.jsonl")
    assert sniffs(QWEN, lines, path) and not sniffs(EVENTS, lines, path)
    assert sniffs(CLAUDE_CODE, lines, path)
    claude = [json.dumps({"type": "user", "uuid": "u", "sessionId": "s",
                          "timestamp": ISO, "message": {"role": "user", "content": "x"}
                          }).encode()]
    assert not sniffs(QWEN, claude, path)


@needs_corpus
def test_no_corpus_file_is_taken_by_the_new_formats() -> None:
    from wavemetrics.readers._protocol import Peek
    from wavemetrics.readers.sources import Source

    for path in sorted(p for p in CORPUS.rglob("*") if p.is_file()):
        lines = Source(str(path)).peek(64)
        peek = Peek(lines, str(path))
        assert not QWEN.sniff(peek), path
        assert not OPENCLAW.sniff(peek), path


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("where", ["chats", "elsewhere"])
def test_both_engines_read_a_qwen_file_as_qwen(tmp_path: Path, engine: str, where: str) -> None:
    """The native engine's detection knows Qwen Code's records (they would pass its
    Claude Code rule) and leaves them to the registry, in its ``chats`` folder or
    anywhere else: same bytes from both engines, and from the command run in a process
    (its fast path)."""
    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    folder = _chats(tmp_path) if where == "chats" else tmp_path / "copied"
    _write(folder, LINES)
    output = CliRunner().invoke(main, ["summarize", "--format", "json", "--engine", engine,
                                       str(folder)]).stdout
    python = CliRunner().invoke(main, ["summarize", "--format", "json", "--engine", "python",
                                       str(folder)]).stdout
    assert output == python
    assert json.loads(output)["inputs"][0]["format"] == "qwen"
    done = subprocess.run([sys.executable, "-m", "wavemetrics", "summarize", "--format",
                           "json", str(folder)], capture_output=True, text=True, check=False)
    assert done.stdout == python


def test_the_typed_and_the_stdlib_parse_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """The msgspec records (prompts, arguments, results unbuilt) read as the stdlib's dicts."""
    from tests.reader_checks import collect
    from wavemetrics.readers import qwen

    lines = [(line if isinstance(line, str) else json.dumps(line)).encode() + b"\n"
             for line in LINES]
    results = []
    for decoder in (qwen._DECODER, None):
        monkeypatch.setattr(qwen, "_DECODER", decoder)
        lanes, (account, reason) = collect(qwen.read_qwen_lines, lines, path="s1.jsonl")
        results.append(([lane.observations for lane in lanes], account.lines_used,
                         dict(account.problems), dict(account.ignored), reason))
    assert results[0] == results[1]
    assert results[0][1] == 9


def _call(n: int, call_id: str, tool: str, started: int, ended: int,
          sub: str | None = None) -> list[object]:
    """A call's ``started`` and ``ended`` lifecycle records."""
    return [_life(f"s{n}", call_id, tool, "started", started, sub=sub),
            _life(f"e{n}", call_id, tool, "ended", started, ended, sub=sub)]


def _side(uuid: str, *calls: tuple[str, str]) -> dict[str, Any]:
    return _assistant(uuid, *calls, isSidechain=True, agentId=SUB)


#: Batches (docs/formats.md, "qwen", "Batches"), times in ms after T0.
BATCHES: list[object] = [
    _assistant("a1", ("c1", "run_shell_command"), ("c2", "grep_search"), ("c3", "read_file")),
    *_call(1, "c1", "run_shell_command", 1000, 4000), *_call(2, "c2", "grep_search", 1040, 1900),
    *_call(3, "c3", "read_file", 1100, 1300),
    _assistant("a2", ("c4", "read_file")), *_call(4, "c4", "read_file", 5000, 5400),
    _assistant("a3", ("c5", "glob")), *_call(5, "c5", "glob", 6000, 6100),
    _assistant("a4", ("c6", "list_directory")), *_call(6, "c6", "list_directory", 6200, 6500),
    _assistant("a5", ("c7", "run_shell_command")),
    *_call(7, "c7", "run_shell_command", 7000, 9000),
    *_call(8, "c8", "read_file", 9500, 9700),  # no functionCall in the file: no batch
    {**_assistant("x", ("c9", "read_file")), "uuid": 7},  # no usable uuid: no batch
    *_call(9, "c9", "read_file", 10_000, 10_200),
    _side("sa1", ("c10", "read_file"), ("c11", "glob")),
    *_call(10, "c10", "read_file", 2000, 2300, SUB), *_call(11, "c11", "glob", 2100, 2200, SUB),
    _side("sa2", ("c12", "grep_search")), *_call(12, "c12", "grep_search", 2500, 2600, SUB),
    _side("sa3", ("c13", "read_file")), *_call(13, "c13", "read_file", 2700, 2800, SUB),
]

BATCH_FIGURES = (
    "calls_without_batch", "batched_turns", "multi_call_turns", "turn_width_histogram",
    "max_turn_width", "missed_batch_runs", "missed_batch_calls", "missed_batch_round_trips",
    "missed_batch_upper_ms", "tool_busy_ms", "calls_timed_by_execution",
    "calls_timed_by_message")


def test_batches_by_hand(tmp_path: Path) -> None:
    """The section-9 figures of the batches fixture (ms after T0).

    Lane main: batches in start order a1 {c1 1000-4000, c2 1040-1900, c3 1100-1300}
    (width 3), a2 {c4 read_file 5000-5400}, a3 {c5 glob 6000-6100}, a4 {c6
    list_directory 6200-6500}, a5 {c7 shell 7000-9000}: 5 batches, 1 multi-call,
    widths 1 x 4 and 3 x 1, widest 3. c8 (no functionCall) and c9 (its record's uuid
    is a number): 2 calls without a batch.
    Runs: c4, c5, c6 join (gaps far below 300 s); the shell call closes the run of 3:
    1 run, 3 calls, 2 round trips, upper (6500 - 5000) - max(400, 100, 300) = 1100.
    Busy: waves [1000, 4000] 3000, c4 400, c5 100, c6 300, c7 2000, c8 200, c9 200:
    3000 + 400 + 100 + 300 + 2000 + 200 + 200 = 6200. Timing ``execution``: c1..c9, 9
    calls; agent-1's 4, 13 in all.
    Lane agent-1: sa1 {c10 2000-2300, c11 2100-2200} (width 2), sa2 {c12 2500-2600},
    sa3 {c13 2700-2800}: 3 batches, 1 multi-call, widths 1 x 2 and 2 x 1; the run
    c12, c13: upper (2800 - 2500) - max(100, 100) = 200. Busy 300 + 100 + 100 = 500.
    """
    code, document = cli_document([_write(_chats(tmp_path), BATCHES)], "--engine", "python")
    assert code == 0
    assert list(lane_figures(document, *BATCH_FIGURES).items()) == [
        (("s1", "main"), (2, 5, 1, "4:0:1:0:0:0:0:0", 3, 1, 3, 2, 1100.0, 6200.0, 9, 0)),
        (("s1", SUB), (0, 3, 1, "2:1:0:0:0:0:0:0", 2, 1, 2, 1, 200.0, 500.0, 4, 0)),
    ]
    assert "secret" not in json.dumps(document)  # the functionCall arguments
    total = document["total"]
    assert tuple(total[key] for key in BATCH_FIGURES) == (
        2, 8, 2, "6:1:1:0:0:0:0:0", 3, 2, 5, 3, 1300.0, 6700.0, 13, 0)


def test_batches_are_the_same_from_the_typed_and_the_stdlib_parse(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch keys (the assistant record's ``uuid``) read alike on both paths."""
    from tests.reader_checks import collect
    from wavemetrics.readers import qwen

    lines = [json.dumps(line).encode() + b"\n" for line in BATCHES]
    results = []
    for decoder in (qwen._DECODER, None):
        monkeypatch.setattr(qwen, "_DECODER", decoder)
        lanes, _ = collect(qwen.read_qwen_lines, lines, path="s1.jsonl")
        results.append([lane.observations for lane in lanes])
    assert results[0] == results[1]
    # a1's three calls, then a2..a5, none for c8 and c9 (in start order per lane)
    assert [o.batch for o in results[0][0] if o.kind == "start"] == [
        "a1", "a1", "a1", "a2", "a3", "a4", "a5", None, None]
