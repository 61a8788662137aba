"""The status line's live state: a grown transcript's figures from its new lines only."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path
from typing import IO

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wavemetrics.cache._appended as _appended
import wavemetrics.cache.live as live
from tests.strategies import claude_calls, claude_records, trace_files
from tests.trace_builders import claude_call, iso
from wavemetrics.cache.units import CACHE_ENV, CACHE_FILE
from wavemetrics.cli.commands import main


def _line(target: Path, cache: Path | None) -> str:
    args = ["statusline"] if cache is not None else ["statusline", "--no-cache"]
    env = {CACHE_ENV: str(cache)} if cache is not None else {}
    result = CliRunner().invoke(main, args, input=json.dumps({"transcript_path": str(target)}),
                                env=env)
    assert result.exit_code == 0
    return result.stdout


@pytest.fixture
def offsets(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The offsets the resumable reads open the transcript at."""
    opened: list[int] = []
    original = _appended._open_at

    def counted(path: str, offset: int) -> IO[bytes]:
        opened.append(offset)
        return original(path, offset)

    monkeypatch.setattr(_appended, "_open_at", counted)
    return opened


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trace_files(claude_records(), claude_calls()), st.data())
def test_grown_transcript_line_equals_a_fresh_line(data: bytes, draw: st.DataObject) -> None:
    """A generated transcript cut twice at any bytes, the status line asked after each
    part is appended, says at the end what a run without the cache says."""
    first = draw.draw(st.integers(0, len(data)), label="first")
    second = draw.draw(st.integers(first, len(data)), label="second")
    with tempfile.TemporaryDirectory() as work:
        target = Path(work) / "p" / "s.jsonl"
        target.parent.mkdir()
        cache = Path(work) / "cache"
        target.write_bytes(data[:first])
        _line(target, cache)
        with open(target, "ab") as stream:
            stream.write(data[first:second])
        _line(target, cache)
        with open(target, "ab") as stream:
            stream.write(data[second:])
        assert _line(target, cache) == _line(target, None)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 8)), min_size=1, max_size=30),
       st.data())
def test_well_formed_calls_grown_one_by_one(calls: list[tuple[int, int]], draw: st.DataObject) -> None:
    """Well-formed calls appended a few at a time, their ids added to the stored ones
    at every growth, give the line of a fresh read each time."""
    chunks = [claude_call(f"c{i}", start, start + span) for i, (start, span) in enumerate(calls)]
    cuts = sorted(draw.draw(st.lists(st.integers(0, len(chunks)), max_size=4), label="cuts"))
    with tempfile.TemporaryDirectory() as work:
        target = Path(work) / "p" / "s.jsonl"
        target.parent.mkdir()
        cache = Path(work) / "cache"
        target.write_bytes(b"")
        done = 0
        for cut in [*cuts, len(chunks)]:
            with open(target, "ab") as stream:
                stream.write(b"".join(chunks[done:cut]))
            done = cut
            assert _line(target, cache) == _line(target, None)


def test_two_parallel_calls_appended(
    tmp_path: Path, offsets: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Call a (0-2 s) first; b and c (both 5-7 s) appended: 2 waves, 1 multi-call,
    2 000 ms saved (one of the two 2 s calls), read from where a's lines end by the
    live state alone (the pipeline is not used: it would fail here)."""
    target = tmp_path / "p" / "s.jsonl"
    target.parent.mkdir()
    target.write_bytes(claude_call("a", 0, 2))
    cache = tmp_path / "cache"
    assert _line(target, cache) == "waves 1 · multi 0 · saved 0.0s\n"
    size = target.stat().st_size
    b = claude_call("b", 5, 7).splitlines(keepends=True)
    c = claude_call("c", 5, 7).splitlines(keepends=True)
    with open(target, "ab") as stream:
        stream.write(b[0] + c[0] + b[1] + c[1])
    offsets.clear()
    import wavemetrics.run.pipeline

    def unused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the live state answers")

    monkeypatch.setattr(wavemetrics.run.pipeline, "read_inputs", unused)
    assert _line(target, cache) == "waves 2 · multi 1 · saved 2.0s\n"
    assert offsets == [size]


def test_repeated_ids_in_new_lines_are_found_in_the_saved_state(tmp_path: Path) -> None:
    """Lines appended again (same uuids) are copies: the line stays 1 wave, as a fresh
    read says; a new line repeating call a's tool_use id (new uuid) starts nothing."""
    target = tmp_path / "p" / "s.jsonl"
    target.parent.mkdir()
    target.write_bytes(claude_call("a", 0, 2))
    cache = tmp_path / "cache"
    _line(target, cache)
    repeat = json.dumps({"type": "assistant", "uuid": "u-again", "sessionId": "s1",
                         "timestamp": iso(9), "message": {"content": [
                             {"type": "tool_use", "id": "a", "name": "Bash"}]}})
    with open(target, "ab") as stream:
        stream.write(claude_call("a", 0, 2) + repeat.encode() + b"\n")
    assert _line(target, cache) == "waves 1 · multi 0 · saved 0.0s\n"
    assert _line(target, None) == "waves 1 · multi 0 · saved 0.0s\n"


def test_call_joining_a_summed_wave_falls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """70 calls 10 s apart (waves summed once 64 are open), then a call appended that
    starts before them: the live state cannot take it (``None``), and the line is a
    fresh read's (71 waves, none multi-call)."""
    answers: list[object] = []
    original = live.live_figures

    def spied(*args: object) -> object:
        answers.append(original(*args))  # type: ignore[arg-type]
        return answers[-1]

    monkeypatch.setattr(live, "live_figures", spied)
    target = tmp_path / "p" / "s.jsonl"
    target.parent.mkdir()
    target.write_bytes(b"".join(claude_call(f"c{i}", 100 + 10 * i, 101 + 10 * i) for i in range(70)))
    cache = tmp_path / "cache"
    _line(target, cache)
    with open(target, "ab") as stream:
        stream.write(claude_call("early", 5, 6))
    assert _line(target, cache) == "waves 71 · multi 0 · saved 0.0s\n"
    assert answers == [(70, 0, 0.0), None]


def test_damaged_live_state_is_read_from_the_start(tmp_path: Path, offsets: list[int]) -> None:
    """A live state whose bytes were damaged is dropped and the transcript read from
    byte 0; the line is still right."""
    target = tmp_path / "p" / "s.jsonl"
    target.parent.mkdir()
    target.write_bytes(claude_call("a", 0, 2))
    cache = tmp_path / "cache"
    _line(target, cache)
    with sqlite3.connect(cache / CACHE_FILE) as db:
        db.execute("UPDATE live_states SET blob = x'00'")
    with open(target, "ab") as stream:
        stream.write(claude_call("b", 0, 2))
    offsets.clear()
    assert _line(target, cache) == "waves 1 · multi 1 · saved 2.0s\n"
    assert 0 in offsets and all(offset == 0 for offset in offsets)


def _ids(cache: Path) -> list[bytes]:
    """Every id row's digest (the head's is empty), in order."""
    with sqlite3.connect(cache / CACHE_FILE) as db:
        return [bytes(row[0]) for row in db.execute("SELECT digest FROM live_ids")]


def test_a_state_msgpack_cannot_hold_is_not_kept(tmp_path: Path) -> None:
    """An assistant message id that is a lone surrogate (valid JSON, ``"\\ud800"``) is
    the batch key of its calls: msgpack cannot encode it, so the live state is not
    stored and each run reads the transcript whole, giving the line a run without the
    cache gives (it said ``unavailable (UnicodeEncodeError)``). Two calls of that
    message, 0-2 s and 1-3 s: one wave of two, 4 s of calls in a span of 3 s, 1 s
    saved; a third call appended alone at 5-6 s: 2 waves."""
    target = tmp_path / "p" / "s.jsonl"
    target.parent.mkdir()
    lines = [json.loads(line) for line in
             (claude_call("a", 0, 2) + claude_call("b", 1, 3)).splitlines()]
    for record in lines:
        if record["type"] == "assistant":
            record["message"]["id"] = "\ud800"
    ordered = [lines[0], lines[2], lines[1], lines[3]]
    target.write_text("".join(json.dumps(record) + "\n" for record in ordered),
                      encoding="ascii")
    cache = tmp_path / "cache"
    assert _line(target, cache) == "waves 1 · multi 1 · saved 1.0s\n"
    with open(target, "ab") as stream:
        stream.write(claude_call("c", 5, 6))
    assert _line(target, cache) == _line(target, None) == "waves 2 · multi 1 · saved 1.0s\n"
    with sqlite3.connect(cache / CACHE_FILE) as db:
        assert db.execute("SELECT count(*) FROM live_states").fetchone() == (0,)


def test_ids_are_rows_and_a_run_adds_only_the_new_lines_ids(tmp_path: Path) -> None:
    """Call a's two lines leave 4 id rows (2 line uuids, a's start and end in lane 0)
    after the chain's head; call b appended adds its 4; ids are SHA-256 digests."""
    target = tmp_path / "p" / "s.jsonl"
    target.parent.mkdir()
    target.write_bytes(claude_call("a", 0, 2))
    cache = tmp_path / "cache"
    _line(target, cache)
    first = _ids(cache)
    assert first[0] == b"" and len(first) == 5 and all(len(d) == 32 for d in first[1:])
    assert live._digest(b"u", "u-a-s") in first and live._digest(b"s", "0", "a") in first
    with open(target, "ab") as stream:
        stream.write(claude_call("b", 5, 6))
    assert _line(target, cache) == "waves 2 · multi 0 · saved 0.0s\n"
    second = _ids(cache)
    assert set(first) < set(second) and len(second) == 9
    assert live._digest(b"e", "0", "b") in second


@pytest.mark.parametrize("change", [
    "DELETE FROM live_ids WHERE digest = ?",  # the row before it names it
    "UPDATE live_ids SET next = x'' WHERE digest = ?",  # its tag no longer matches
    "UPDATE live_ids SET tag = x'0000000000000000' WHERE digest = ?",  # its tag is wrong
])
def test_damaged_id_rows_make_the_state_untrusted(
    tmp_path: Path, offsets: list[int], change: str
) -> None:
    """Call a's lines appended again are copies (still 1 wave), which the run finds by
    looking up the uuid of a's first line; with that row lost, changed or its tag
    wrong, the lookup sees the damage and the transcript is read from byte 0."""
    target = tmp_path / "p" / "s.jsonl"
    target.parent.mkdir()
    target.write_bytes(claude_call("a", 0, 2))
    cache = tmp_path / "cache"
    _line(target, cache)
    size = target.stat().st_size
    with sqlite3.connect(cache / CACHE_FILE) as db:
        assert db.execute(change, (live._digest(b"u", "u-a-s"),)).rowcount == 1
    with open(target, "ab") as stream:
        stream.write(claude_call("a", 0, 2))
    offsets.clear()
    assert _line(target, cache) == "waves 1 · multi 0 · saved 0.0s\n"
    assert offsets == [size, 0]
    assert len(_ids(cache)) == 4 + 1  # rebuilt: a's 4 ids and the head


def _modules_after_line(target: Path, cache: Path) -> tuple[str, list[str]]:
    """The line of a fresh process and the modules of the other readers, detection
    (``readers.dispatch``), and the pipeline it imported."""
    import os
    import subprocess
    import sys

    code = ("import sys; sys.argv = ['wavemetrics', 'statusline']\n"
            "from wavemetrics.cli._entry import main; main()\n"
            "names = ('dispatch', 'codex', 'pi', 'otlp', 'inspect_log', 'events')\n"
            "import json; print(json.dumps(sorted(m for m in sys.modules if m =="
            " 'wavemetrics.run.pipeline' or m.rsplit('.', 1)[-1] in names)))")
    result = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                            text=True, input=json.dumps({"transcript_path": str(target)}),
                            env={**os.environ, CACHE_ENV: str(cache)})
    line, modules = result.stdout.splitlines()
    return line, json.loads(modules)


def _grown_by_one_call(tmp_path: Path, calls: int) -> tuple[str, list[str]]:
    """``calls`` one-second calls 10 s apart, their line cached, then one more call
    appended: the grown transcript's line and the modules its process imported."""
    target = tmp_path / "p" / "s.jsonl"
    target.parent.mkdir()
    target.write_bytes(b"".join(claude_call(f"c{i}", 10 * i, 10 * i + 1) for i in range(calls)))
    cache = tmp_path / "cache"
    _line(target, cache)
    with open(target, "ab") as stream:
        stream.write(claude_call(f"c{calls}", 10 * calls, 10 * calls + 1))
    return _modules_after_line(target, cache)


def test_grown_transcript_is_read_with_its_reader_only(tmp_path: Path) -> None:
    """32 calls (64 lines with content): grown by one call, the line comes from the live
    state without detection (its 64 lines decide it), so neither detection, another
    reader nor the pipeline is imported; 33 one-second calls 10 s apart
    are 33 waves."""
    line, modules = _grown_by_one_call(tmp_path, 32)
    assert (line, modules) == ("waves 33 · multi 0 · saved 0.0s", [])


def test_grown_short_transcript_is_detected_again(tmp_path: Path) -> None:
    """31 calls (62 lines with content, fewer than detection's 64): after growth the
    first 64 lines are not all known, so the file is detected again (detection is
    imported) and the line is still the live state's: 32 waves."""
    line, modules = _grown_by_one_call(tmp_path, 31)
    assert line == "waves 32 · multi 0 · saved 0.0s"
    assert "wavemetrics.readers.dispatch" in modules and "wavemetrics.run.pipeline" not in modules


def test_detection_is_kept_from_64_lines_with_content() -> None:
    """Blank lines and lines too long do not count towards the 64 lines with content
    that decide detection; 64 others do."""
    from wavemetrics.readers._lines import LineAccount

    account = LineAccount(lines_read=70, lines_used=60)
    account.ignore("blank_line", 5)
    account.problem("line_too_long")
    assert live._detection_kept(account)
    account.problem("line_too_long")
    assert not live._detection_kept(account)
