"""A grown Claude Code transcript, ``events`` file or Codex rollout is read from where it
ended, with the figures of a full read."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wavemetrics._appended as _appended
from tests.corpus import CORPUS, needs_corpus
from tests.golden_cases import GOLDEN
from tests.strategies import (
    claude_calls,
    claude_records,
    codex_calls,
    codex_records,
    event_calls,
    event_records,
    pi_calls,
    pi_records,
    trace_files,
)
from tests.trace_builders import claude_call
from wavemetrics.cache import CACHE_ENV, CACHE_FILE
from wavemetrics.cli import main

SESSION = "claude-code-log/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
CODEX = "agentcmd/codex/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl"
PI_FORK = "pi-mono/before-compaction.jsonl"  # a real pi session whose header names its parent
PI_NAME = "2025-03-01T10-00-00-000Z_s.jsonl"


def _run(args: list[str], cache: Path | None) -> tuple[int, str]:
    env = {CACHE_ENV: str(cache)} if cache is not None else {}
    # the reference (Python) readers: with the cache they resume, without it they read
    # in full (the native engine, summarize's default when built, reads in full)
    engine = ["--engine", "python"] if args[0] == "summarize" else []
    extra = engine if cache is not None else ["--no-cache", *engine]
    result = CliRunner().invoke(main, [*args[:1], *extra, *args[1:]], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout


def _outputs(path: str, cache: Path | None) -> list[tuple[int, str]]:
    return [_run(["summarize", "--format", "json", path], cache),
            _run(["waves", "--format", "json", path], cache)]


class _Counting:
    """Wraps ``_appended._open_at`` and counts the offsets opened and the bytes read."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.offsets: list[int] = []
        self.bytes = 0
        original = _appended._open_at

        def opened(path: str, offset: int) -> IO[bytes]:
            self.offsets.append(offset)
            stream = original(path, offset)
            counter = self

            class Stream:
                def readline(self, size: int = -1) -> bytes:
                    line = stream.readline(size)
                    counter.bytes += len(line)
                    return line

                def read(self, size: int = -1) -> bytes:
                    data = stream.read(size)
                    counter.bytes += len(data)
                    return data

                def __getattr__(self, name: str) -> Any:
                    return getattr(stream, name)

            return Stream()  # type: ignore[return-value]

        monkeypatch.setattr(_appended, "_open_at", opened)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Counting]:
    yield _Counting(monkeypatch)


#: Generated files per format that resumes: Claude Code transcripts; ``events`` files
#: (shutdowns, turns, overflowing turn totals, odd ids); Codex rollouts (batched
#: writes, forks with dated and undated turn ids, repeated items). With the file name.
GENERATED = {
    "claude-code": (trace_files(claude_records(), claude_calls()), "s.jsonl"),
    "events": (trace_files(event_records(), event_calls()), "run.jsonl"),
    "codex": (trace_files(codex_records(), codex_calls()), "rollout-2025-03-01T10-00-00-s.jsonl"),
    "pi": (trace_files(pi_records(), pi_calls()), PI_NAME),
}


@pytest.mark.parametrize("fmt", sorted(GENERATED))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(draw=st.data())
def test_prefix_then_appended_rest_equals_a_fresh_read(fmt: str, draw: st.DataObject) -> None:
    """For a generated transcript, ``events`` file or Codex rollout cut at any byte
    (mid-line or at a line end), reading the prefix into the cache, appending the rest
    and reading again gives the summarize and waves JSON of a fresh read of the file."""
    files, name = GENERATED[fmt]
    data = draw.draw(files, label="file")
    cut = draw.draw(st.integers(0, len(data)), label="cut")
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "proj" / name
        path.parent.mkdir()
        path.write_bytes(data[:cut])
        cache = Path(work) / "cache"
        _outputs(str(path), cache)
        with open(path, "ab") as stream:
            stream.write(data[cut:])
        assert _outputs(str(path), cache) == _outputs(str(path), None)


@pytest.mark.parametrize("fmt", ["claude-code", "pi"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(draw=st.data())
def test_grown_last_file_of_a_project_folder_equals_a_fresh_read(
    fmt: str, draw: st.DataObject
) -> None:
    """A Claude Code project folder read together (uuid de-duplication across its files),
    or a pi folder (parents first, a fork's copies dropped), whose last file grew gives
    the output of a fresh read of the folder."""
    files = GENERATED[fmt][0]
    first, last = draw.draw(files, label="first"), draw.draw(files, label="last")
    cut = draw.draw(st.integers(0, len(last)), label="cut")
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work) / "proj"
        folder.mkdir()
        (folder / "a.jsonl").write_bytes(first)
        (folder / "b.jsonl").write_bytes(last[:cut])
        cache = Path(work) / "cache"
        _outputs(str(folder), cache)
        with open(folder / "b.jsonl", "ab") as stream:
            stream.write(last[cut:])
        assert _outputs(str(folder), cache) == _outputs(str(folder), None)


def _golden(case: str) -> tuple[int, str]:
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"][case]
    return recorded["exit_code"], recorded["stdout"]


@needs_corpus
@pytest.mark.parametrize(("trace", "cut"), [
    *((SESSION, cut) for cut in (0, 1, 120_000, 150_000, -1)),
    *((CODEX, cut) for cut in (0, 1, 100_000, 200_000, -1)),
    *((PI_FORK, cut) for cut in (1_000_000, -1)),
])
def test_corpus_file_appended_gives_its_golden_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, counting: _Counting, trace: str, cut: int
) -> None:
    """A real session, or a real Codex rollout (350 kB, 16 calls, batched writes), written
    in two parts (cut mid-line, or at the last line's end) gives, once grown, its golden
    summarize and waves JSON (recorded before the cache existed), and the second read
    starts at the first part's last complete line; a real pi fork (its header names its
    parent: its entries are de-duplicated, which a resume point does not keep) gives
    its golden output read in full from byte 0."""
    whole = (CORPUS / trace).read_bytes()
    cut = len(whole) - 1 if cut == -1 else cut
    monkeypatch.chdir(tmp_path)
    target = tmp_path / trace
    target.parent.mkdir(parents=True)
    target.write_bytes(whole[:cut])
    cache = tmp_path / "cache"
    _outputs(trace, cache)
    with open(target, "ab") as stream:
        stream.write(whole[cut:])
    counting.offsets.clear()
    counting.bytes = 0
    assert _outputs(trace, cache) == [_golden(f"summarize {trace}"), _golden(f"waves {trace}")]
    line_start = whole.rfind(b"\n", 0, cut) + 1  # the partial line is read again
    if trace == PI_FORK:
        line_start = 0
    assert counting.offsets == [line_start]
    assert counting.bytes == len(whole) - line_start


@needs_corpus
def test_only_the_new_bytes_are_read(tmp_path: Path, counting: _Counting) -> None:
    """After two lines are appended to a real 253 kB session, the reader reads exactly
    those two lines' bytes (plus nothing before them)."""
    whole = (CORPUS / SESSION).read_bytes()
    lines = whole.splitlines(keepends=True)
    head, tail = b"".join(lines[:-2]), b"".join(lines[-2:])
    target = tmp_path / "p" / "s.jsonl"
    target.parent.mkdir()
    target.write_bytes(head)
    cache = tmp_path / "cache"
    _outputs(str(target), cache)
    with open(target, "ab") as stream:
        stream.write(tail)
    counting.offsets.clear()
    counting.bytes = 0
    grown = _outputs(str(target), cache)
    assert counting.offsets == [len(head)]
    assert counting.bytes == len(tail)
    assert grown == _outputs(str(target), None)


def _resumes_again(target: Path, cache: Path, tail: bytes, counting: _Counting) -> None:
    """Append ``tail``: the file is read from where it ended, with a fresh read's output."""
    size = target.stat().st_size
    with open(target, "ab") as stream:
        stream.write(tail)
    counting.offsets.clear()
    assert _outputs(str(target), cache) == _outputs(str(target), None)
    assert counting.offsets == [size]


def _prepared(tmp_path: Path, text: bytes, name: str = "s.jsonl") -> tuple[Path, Path]:
    """``text`` written as ``name`` in a folder ``p`` and read once into a cache."""
    target = tmp_path / "p" / name
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(text)
    cache = tmp_path / "cache"
    _outputs(str(target), cache)
    return target, cache


def _call(call_id: str, second: int) -> bytes:
    """A Read call of session s1 from ``second`` to ``second + 2`` s (two lines)."""
    return claude_call(call_id, second, second + 2, tool="Read")


def test_two_parallel_calls_appended_make_one_wave(tmp_path: Path) -> None:
    """Call a (0 s-2 s) read first; b and c (both 5 s-7 s) appended: 2 waves, 1 of them
    multi-call, saving 2 000 ms (one 2 s call of the wave of two), as a fresh read says."""
    target, cache = _prepared(tmp_path, _call("a", 0))
    b, c = _call("b", 5).splitlines(keepends=True), _call("c", 5).splitlines(keepends=True)
    with open(target, "ab") as stream:
        stream.write(b[0] + c[0] + b[1] + c[1])
    code, out = _run(["summarize", "--format", "json", str(target)], cache)
    total = json.loads(out)["total"]
    assert (code, total["non_eval_waves_total"], total["non_eval_waves_multi"],
            total["modeled_wallclock_saved_ms"]) == (0, 2, 1, 2000.0)


def test_damaged_resume_point_is_rebuilt(tmp_path: Path, counting: _Counting) -> None:
    """A resume point whose bytes were damaged is dropped and the file read in full;
    one whose digest matches but whose content is of another shape is read in full too;
    either way the next growth resumes again."""
    target, cache = _prepared(tmp_path, _call("a", 0))
    with sqlite3.connect(cache / CACHE_FILE) as db:
        db.execute("UPDATE resumes SET blob = x'00'")
    with open(target, "ab") as stream:
        stream.write(_call("b", 10))
    counting.offsets.clear()
    assert _outputs(str(target), cache) == _outputs(str(target), None)
    assert counting.offsets == [0]
    from wavemetrics.cache import ReadCache

    store = ReadCache(cache)
    with sqlite3.connect(cache / CACHE_FILE) as db:
        (unit,) = db.execute("SELECT key FROM resumes").fetchone()
    point = store.load_resume(unit)
    store.store_resume(unit, [*point[:5], [[], ["x"]], *point[6:]])  # records of a bad shape
    store.close()
    with open(target, "ab") as stream:
        stream.write(_call("c", 20))
    counting.offsets.clear()
    assert _outputs(str(target), cache) == _outputs(str(target), None)
    assert counting.offsets == [0]
    _resumes_again(target, cache, _call("d", 30), counting)


def test_earlier_file_of_a_folder_grown_with_copies_is_read_in_full(
    tmp_path: Path, counting: _Counting
) -> None:
    """When a folder's first file grows by lines whose uuids the later file has (in a full
    read the later file's lines would be the copies), the resumed read is dropped and
    the folder read in full: the offsets opened are the resume's, then 0 for each file."""
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(_call("a", 0))
    (folder / "b.jsonl").write_bytes(_call("b", 10))
    cache = tmp_path / "cache"
    _outputs(str(folder), cache)
    size = (folder / "a.jsonl").stat().st_size
    with open(folder / "a.jsonl", "ab") as stream:
        stream.write(_call("b", 10))  # the same uuids as b.jsonl's: copies, in a full read
    counting.offsets.clear()
    assert _outputs(str(folder), cache) == _outputs(str(folder), None)
    assert counting.offsets == [size, 0, 0]


def test_earlier_file_of_a_folder_grown_with_its_own_lines_is_resumed(
    tmp_path: Path, counting: _Counting
) -> None:
    """A session transcript that grows while its sub-agent file (read after it) does not,
    with new uuids and its own lane, is read from where it ended, and the folder's
    output is a full read's (its new lane before the sub-agent's, as a full read has it)."""
    folder = tmp_path / "p"
    (folder / "s" / "subagents").mkdir(parents=True)
    main = folder / "s.jsonl"
    main.write_bytes(_call("a", 0))
    agent = json.loads(_call("x", 5).splitlines()[0])
    agent["agentId"] = "agent-1"
    (folder / "s" / "subagents" / "agent-1.jsonl").write_bytes(json.dumps(agent).encode() + b"\n")
    cache = tmp_path / "cache"
    _outputs(str(folder), cache)
    size = main.stat().st_size
    other = json.loads(_call("c", 20).splitlines()[0])
    other["sessionId"] = "s2"  # a lane the sub-agent file never touched, opened by new lines
    with open(main, "ab") as stream:
        stream.write(_call("b", 10) + json.dumps(other).encode() + b"\n")
    counting.offsets.clear()
    assert _outputs(str(folder), cache) == _outputs(str(folder), None)
    assert counting.offsets == [size]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trace_files(claude_records(), claude_calls()), trace_files(claude_records(), claude_calls()),
       st.data())
def test_grown_first_file_of_a_project_folder_equals_a_fresh_read(
    first: bytes, last: bytes, draw: st.DataObject
) -> None:
    """A project folder whose first file (read before the other) grew gives the output of
    a fresh read of the folder, resumed or read in full."""
    cut = draw.draw(st.integers(0, len(first)), label="cut")
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work) / "proj"
        folder.mkdir()
        (folder / "a.jsonl").write_bytes(first[:cut])
        (folder / "b.jsonl").write_bytes(last)
        cache = Path(work) / "cache"
        _outputs(str(folder), cache)
        with open(folder / "a.jsonl", "ab") as stream:
            stream.write(first[cut:])
        assert _outputs(str(folder), cache) == _outputs(str(folder), None)


def test_gzip_transcript_is_not_resumed(tmp_path: Path, counting: _Counting) -> None:
    """A gzip transcript is read by the ordinary reader, never from an offset."""
    import gzip

    target = tmp_path / "p" / "s.jsonl.gz"
    target.parent.mkdir()
    target.write_bytes(gzip.compress(_call("a", 0)))
    cache = tmp_path / "cache"
    _outputs(str(target), cache)
    target.write_bytes(gzip.compress(_call("a", 0) + _call("b", 10)))
    assert _outputs(str(target), cache) == _outputs(str(target), None)
    assert counting.offsets == []


@needs_corpus
def test_statusline_answers_a_grown_transcript(tmp_path: Path, counting: _Counting) -> None:
    """The status line on a real session grown by its last 20 lines says what it says of
    the whole session (35 waves, 3 multi-call, 1 642 275 ms: golden figures) and reads
    only the new lines."""
    whole = (CORPUS / SESSION).read_bytes()
    lines = whole.splitlines(keepends=True)
    head = b"".join(lines[:-20])
    target = tmp_path / "p" / "s.jsonl"
    target.parent.mkdir()
    target.write_bytes(head)
    env = {CACHE_ENV: str(tmp_path / "cache")}
    payload = json.dumps({"transcript_path": str(target)})
    CliRunner().invoke(main, ["statusline"], input=payload, env=env)
    shutil.copyfile(CORPUS / SESSION, tmp_path / "whole.jsonl")
    with open(target, "ab") as stream:
        stream.write(whole[len(head):])
    counting.offsets.clear()
    result = CliRunner().invoke(main, ["statusline"], input=payload, env=env)
    assert result.stdout == "waves 35 · multi 3 · saved 1642.3s\n"
    assert counting.offsets == [len(head)]


@needs_corpus
def test_statusline_with_sub_agents_resumes_the_grown_transcript(
    tmp_path: Path, counting: _Counting
) -> None:
    """A real session with six sub-agent files, its transcript grown by its last 20 lines,
    says what it says in place (105 waves, 10 multi-call, 2 021.8 s, 6 sub-agents: the
    figures tests/test_statusline.py pins) and reads only the transcript's new lines."""
    session = CORPUS / SESSION
    copy = tmp_path / "p" / session.name
    shutil.copytree(session.with_suffix(""), copy.with_suffix(""))
    lines = session.read_bytes().splitlines(keepends=True)
    head = b"".join(lines[:-20])
    copy.write_bytes(head)
    env = {CACHE_ENV: str(tmp_path / "cache")}
    payload = json.dumps({"transcript_path": str(copy)})
    CliRunner().invoke(main, ["statusline"], input=payload, env=env)
    with open(copy, "ab") as stream:
        stream.write(b"".join(lines[-20:]))
    counting.offsets.clear()
    result = CliRunner().invoke(main, ["statusline"], input=payload, env=env)
    assert result.stdout == "waves 105 · multi 10 · saved 2021.8s · 6 sub-agents\n"
    assert counting.offsets == [len(head)]


# -- events and Codex ---------------------------------------------------------------

def _event(kind: str, at: float, call: str | None = None, **extra: Any) -> bytes:
    record: dict[str, Any] = {"type": kind, "timestamp": at, **extra}
    if call is not None:
        record.update(toolCallId=call, toolName="Read")
    return json.dumps(record).encode() + b"\n"


def _event_call(call_id: str, second: int) -> bytes:
    at = 1_740_823_200_000 + second * 1000
    return (_event("tool_execution_start", at, call_id)
            + _event("tool_execution_end", at + 2000, call_id))


def _codex_item(second: float, kind: str, call_id: str, **extra: Any) -> bytes:
    stamp = f"2025-03-01T10:00:{second:06.3f}Z"
    payload = {"type": kind, "call_id": call_id, **extra}
    return json.dumps({"timestamp": stamp, "type": "response_item", "payload": payload}).encode() + b"\n"


def _pi_message(second: int, message: dict[str, Any], **extra: Any) -> bytes:
    stamp = f"2025-03-01T10:00:{second:02d}.000Z"
    return json.dumps({"type": "message", "timestamp": stamp, "message": message,
                       **extra}).encode() + b"\n"


def _pi_call(call_id: str, second: int, *others: str) -> bytes:
    blocks = [{"type": "toolCall", "id": c, "name": "Read"} for c in (call_id, *others)]
    return (_pi_message(second, {"role": "assistant", "content": blocks}, id=f"m-{call_id}")
            + b"".join(_pi_message(second + 2, {"role": "toolResult", "toolCallId": c},
                                   id=f"r-{c}") for c in (call_id, *others)))


def _codex_call(call_id: str, second: int) -> bytes:
    return (_codex_item(second, "function_call", call_id, name="Read")
            + _codex_item(second + 2, "function_call_output", call_id, output="ok"))


#: The file name and a call's two lines, per format that resumes.
FORMATS = {
    "claude-code": ("s.jsonl", _call),
    "events": ("run.jsonl", _event_call),
    "codex": ("rollout-2025-03-01T10-00-00-s.jsonl", _codex_call),
    "pi": (PI_NAME, _pi_call),
}


def _append_and_summarize(
    target: Path, cache: Path, tail: bytes, counting: _Counting, read: str | None = None
) -> tuple[int, dict[str, Any]]:
    """Append ``tail`` to ``target`` and summarize (JSON) ``read`` (default: ``target``)
    through ``cache``, checking that exactly the appended bytes were read, from where
    the file ended."""
    size = target.stat().st_size
    with open(target, "ab") as stream:
        stream.write(tail)
    counting.offsets.clear()
    counting.bytes = 0
    code, out = _run(["summarize", "--format", "json", read or str(target)], cache)
    assert (counting.offsets, counting.bytes) == ([size], len(tail))
    return code, json.loads(out)


def test_events_grown_across_an_open_turn_and_a_shutdown(
    tmp_path: Path, counting: _Counting
) -> None:
    """An ``events`` file whose first part closed session s2 (shutdown) and left a turn
    and lane s1 open reads, once grown by two parallel 2 s calls and the turn's end
    10 s after its start, only the new bytes and says: 3 waves (1 call in s2, call a and
    the wave of b and c in s1), 1 multi-call, 2 000 ms saved, 10 000 ms of turns, and
    s2's later event dropped."""
    t0 = 1_740_823_200_000
    head = (_event("turn_start", t0) + _event_call("a", 0)
            + _event("tool_execution_start", t0, "x", sessionId="s2")
            + _event("tool_execution_end", t0 + 1000, "x", sessionId="s2")
            + json.dumps({"type": "session_shutdown", "sessionId": "s2"}).encode() + b"\n")
    target, cache = _prepared(tmp_path, head, "run.jsonl")
    tail = (_event("tool_execution_start", t0 + 5000, "b")
            + _event("tool_execution_start", t0 + 5000, "c")
            + _event("tool_execution_end", t0 + 7000, "b")
            + _event("tool_execution_end", t0 + 7000, "c")
            + _event("tool_execution_start", t0 + 8000, "y", sessionId="s2")
            + _event("turn_end", t0 + 10_000))
    code, document = _append_and_summarize(target, cache, tail, counting)
    total = document["total"]
    assert (code, total["non_eval_waves_total"], total["non_eval_waves_multi"],
            total["modeled_wallclock_saved_ms"], total["measured_turn_duration_ms_total"]) == (
        0, 3, 1, 2000.0, 10_000.0)
    (report,) = document["inputs"]
    assert (report["lines_read"], report["lines_used"], report["ignored"]) == (
        12, 11, {"after_session_shutdown": 1})
    assert _outputs(str(target), cache) == _outputs(str(target), None)


def test_codex_batched_write_across_the_cut_is_applied(
    tmp_path: Path, counting: _Counting
) -> None:
    """Two Codex calls written at 10:00:10 whose outputs (also 10:00:10, with 4 s and
    2 s embedded) come after the cut get their starts moved back (06 s, 08 s) as in a
    full read: one wave of 2, saving 6 000 - 4 000 = 2 000 ms; only new bytes are read."""
    meta = json.dumps({"timestamp": "2025-03-01T10:00:00.000Z", "type": "session_meta",
                       "payload": {"id": "s1"}}).encode() + b"\n"
    head = (meta + _codex_item(10, "function_call", "a", name="shell")
            + _codex_item(10, "function_call", "b", name="shell"))
    target, cache = _prepared(tmp_path, head, "rollout-2025-03-01T10-00-00-s.jsonl")

    def output(call_id: str, seconds: int) -> bytes:
        embedded = json.dumps({"output": "", "metadata": {"duration_seconds": seconds}})
        return _codex_item(10, "function_call_output", call_id, output=embedded)

    tail = output("a", 4) + output("b", 2)
    code, document = _append_and_summarize(target, cache, tail, counting)
    total = document["total"]
    assert (code, total["non_eval_waves_total"], total["non_eval_waves_multi"],
            total["modeled_wallclock_saved_ms"]) == (0, 1, 1, 2000.0)
    assert document["inputs"][0]["notes"] == {"batched_write_duration_applied": 2}
    assert _outputs(str(target), cache) == _outputs(str(target), None)


def test_codex_fork_gate_open_at_the_cut_is_read_in_full(
    tmp_path: Path, counting: _Counting
) -> None:
    """A forked rollout cut while its replay gate is open (the parent's replayed call
    read, no own turn yet) keeps no resume point: grown by its first own turn, it is
    read from byte 0 (the replayed call's 2 lines are ``replayed_items``, its own call
    makes 1 wave), and a further growth past the boundary resumes from where that read
    ended."""
    created = 1_740_823_205_000  # the fork's id is a UUIDv7 minted 10:00:05Z
    fork_id = f"{created:012x}"
    fork_id = f"{fork_id[:8]}-{fork_id[8:]}-7000-8000-000000000001"
    turn = f"{created + 1000:012x}"
    turn = f"{turn[:8]}-{turn[8:]}-7000-8000-000000000002"
    meta = json.dumps({"timestamp": "2025-03-01T10:00:06.000Z", "type": "session_meta",
                       "payload": {"id": fork_id, "forked_from_id": "parent"}}).encode() + b"\n"
    head = meta + _codex_call("p", 6)
    target, cache = _prepared(tmp_path, head, "rollout-2025-03-01T10-00-00-f.jsonl")
    boundary = json.dumps({"timestamp": "2025-03-01T10:00:09.000Z", "type": "turn_context",
                           "payload": {"turn_id": turn}}).encode() + b"\n"
    with open(target, "ab") as stream:
        stream.write(boundary + _codex_call("a", 10))
    counting.offsets.clear()
    code, out = _run(["summarize", "--format", "json", str(target)], cache)
    assert counting.offsets == [0]
    document = json.loads(out)
    assert (code, document["total"]["non_eval_waves_total"]) == (0, 1)
    assert document["inputs"][0]["ignored"] == {"replayed_items": 2}
    _resumes_again(target, cache, _codex_call("b", 20), counting)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("change", ["truncated", "replaced", "same_size", "prefix_edited"])
def test_changed_prefix_is_read_in_full(
    tmp_path: Path, counting: _Counting, fmt: str, change: str
) -> None:
    """A transcript, ``events`` file or Codex rollout truncated, replaced by a new file,
    rewritten at the same size, or grown after an edit of its first bytes is read from
    byte 0, and its output is a fresh read's."""
    name, call = FORMATS[fmt]
    text = call("a", 0) + call("b", 10)
    target, cache = _prepared(tmp_path, text, name)
    if change == "truncated":
        target.write_bytes(call("a", 0))
    elif change == "replaced":
        fresh = target.with_name("new.jsonl")  # a new inode, as an editor's save makes
        fresh.write_bytes(text + call("c", 20))
        os.replace(fresh, target)
    elif change == "same_size":
        target.write_bytes(text.replace(b'"Read"', b'"Grep"'))
    else:
        target.write_bytes(text.replace(b'"Read"', b'"Grep"', 1) + call("c", 20))
    counting.offsets.clear()
    assert _outputs(str(target), cache) == _outputs(str(target), None)
    assert counting.offsets == [0]


def test_pi_folder_newest_session_grown_reads_only_its_new_lines(
    tmp_path: Path, counting: _Counting
) -> None:
    """In a pi folder of an older session (call a, 10:00:00-02) and the newest one, which
    grows by one message with calls b and c at 10:00:05 and both results at 10:00:07,
    only the new bytes are read and the folder says, as a full read: 2 lanes, 2 waves,
    1 multi-call; pi ran b and c one after another (a v1 file), b [:05, :07] and c
    [:07, :07] touch: 0 ms saved (S 2 000 - span 2 000)."""
    folder = tmp_path / "p"
    folder.mkdir()
    header = json.dumps({"type": "session", "id": "s2", "timestamp": "2025-03-01T10:00:04Z",
                         "cwd": "/w"}).encode() + b"\n"
    (folder / "2025-03-01T09-00-00-000Z_s1.jsonl").write_bytes(_pi_call("a", 0))
    newest = folder / "2025-03-01T10-00-04-000Z_s2.jsonl"
    newest.write_bytes(header)
    cache = tmp_path / "cache"
    _outputs(str(folder), cache)
    code, document = _append_and_summarize(newest, cache, _pi_call("b", 5, "c"), counting, str(folder))
    total = document["total"]
    assert (code, len(document["lanes"]), total["non_eval_waves_total"],
            total["non_eval_waves_multi"], total["modeled_wallclock_saved_ms"]) == (
        0, 2, 2, 1, 0.0)
    assert document["inputs"][1]["notes"] == {"reconstructed_starts": 1}
    assert _outputs(str(folder), cache) == _outputs(str(folder), None)


def test_pi_file_ending_while_a_call_waits_keeps_no_resume_point(
    tmp_path: Path, counting: _Counting
) -> None:
    """A pi file that ends after b's result of a message [b, c, d] at :05 (c runs from
    b's result at :07, d waits for its turn) keeps no resume point: when the results of
    c (:09) and d (:10) are appended, the file is read in full (offset 0) and d starts at
    c's result, as in a fresh read: b [:05, :07], c [:07, :09], d [:09, :10], tool time
    5 000 ms, nothing saved, two starts reconstructed (``waves`` then takes the read
    ``summarize`` stored)."""
    path = tmp_path / PI_NAME
    blocks = [{"type": "toolCall", "id": c, "name": "Read"} for c in ("b", "c", "d")]
    path.write_bytes(_pi_message(5, {"role": "assistant", "content": blocks})
                     + _pi_message(7, {"role": "toolResult", "toolCallId": "b"}))
    cache = tmp_path / "cache"
    _outputs(str(path), cache)
    with open(path, "ab") as stream:
        stream.write(_pi_message(9, {"role": "toolResult", "toolCallId": "c"})
                     + _pi_message(10, {"role": "toolResult", "toolCallId": "d"}))
    counting.offsets.clear()
    outputs = _outputs(str(path), cache)
    assert counting.offsets == [0]
    assert outputs == _outputs(str(path), None)
    document = json.loads(outputs[0][1])
    lane = document["lanes"][0]
    assert (lane["paired_calls"], lane["tool_time_ms"], lane["modeled_wallclock_saved_ms"]) == (
        3, 5000.0, 0.0)
    assert document["inputs"][0]["notes"] == {"reconstructed_starts": 2,
                                              "session_id_from_file_name": 1}


def test_pi_fork_or_reordered_folder_is_read_in_full(tmp_path: Path, counting: _Counting) -> None:
    """A pi fork (its header names the folder's other file as parent) that grows is read
    in full, parents first (offsets 0 and 0), with a fresh read's output; so is a
    grown file whose header newly makes it another file's parent (the order changed)."""
    folder = tmp_path / "p"
    folder.mkdir()
    parent = folder / "a.jsonl"
    parent.write_bytes(json.dumps({"type": "session", "id": "s1", "timestamp": "t"}).encode()
                       + b"\n" + _pi_call("a", 0))
    fork = folder / "b.jsonl"
    fork.write_bytes(json.dumps({"type": "session", "id": "s2", "timestamp": "t",
                                 "parentSession": "a.jsonl"}).encode() + b"\n"
                     + _pi_call("a", 0))  # the parent's entries, copied
    cache = tmp_path / "cache"
    _outputs(str(folder), cache)
    with open(fork, "ab") as stream:
        stream.write(_pi_call("b", 10))
    counting.offsets.clear()
    assert _outputs(str(folder), cache) == _outputs(str(folder), None)
    assert counting.offsets == [0, 0]
    headless = folder / "c.jsonl"  # no header yet: read last, after a.jsonl and b.jsonl
    headless.write_bytes(_pi_call("c", 20))
    (folder / "0.jsonl").write_bytes(json.dumps({
        "type": "session", "id": "s0", "timestamp": "t", "parentSession": "s3"}).encode() + b"\n")
    _outputs(str(folder), cache)
    with open(headless, "ab") as stream:  # its header comes late: it is 0.jsonl's parent
        stream.write(json.dumps({"type": "session", "id": "s3", "timestamp": "t"}).encode()
                     + b"\n")
    counting.offsets.clear()
    assert _outputs(str(folder), cache) == _outputs(str(folder), None)
    assert counting.offsets == [0, 0, 0, 0]
