"""One JSON nesting limit, the same however the command runs (``docs/formats.md``,
"Limits and hostile input"; ``MAX_JSON_DEPTH`` of ``wavemetrics/readers/limits.py`` and
of ``native/core/src/json.rs``).

A JSON text (a line, a document, a JSON string embedded in one) is read when it nests
500 arrays and objects, its own top value being level 1, and is ``too_deeply_nested``
when a container opens at level 501 before any syntax error (a syntax error met first
makes it ``invalid_json``). Python's own ``RecursionError`` comes near 1000 levels less
the frames below the parse, so before this limit the outcome moved with the call stack:
``python -m wavemetrics`` refused three levels sooner than the console command, and
``--engine python --jobs 2`` worker processes about fifteen levels sooner. Here the same
inputs give the same accounts through the console command, ``python -m wavemetrics``,
worker processes (two files, ``--jobs 2``), a call from a deep Python stack, and the
native engine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from tests.strategies import nested_json
from tests.trace_builders import BUILDERS
from wavemetrics.readers._documents import parse_document
from wavemetrics.readers._lines import LineAccount, iter_records
from wavemetrics.readers.codex import embedded_duration_ms
from wavemetrics.readers.events import _DECODER as EVENTS_DECODER
from wavemetrics.readers.limits import MAX_JSON_DEPTH, nested_past, too_deeply_nested
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings, analyse, read_inputs
from wavemetrics.views.report import render_json

#: The ``wavemetrics`` console command of this interpreter's environment.
CONSOLE = Path(sys.executable).with_name("wavemetrics")

needs_native = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")


def arrays(levels: int) -> str:
    """``levels`` nested arrays (``[[...]]``): ``levels`` levels of their own."""
    return "[" * levels + "]" * levels


def deep_object(levels: int) -> str:
    """An object ``{"a": [[...]]}`` nesting ``levels`` levels in all (itself level 1)."""
    return '{"a": ' + arrays(levels - 1) + "}"


def test_the_limit_is_500_levels() -> None:
    assert MAX_JSON_DEPTH == 500


def test_500_levels_parse_and_501_are_too_deeply_nested() -> None:
    """``_lines`` (every JSON Lines reader), ``parse_document`` (every reader of whole
    documents) and the Codex embedded duration: 500 levels read, 501 refused."""
    def line_problems(text: str) -> dict[str, int]:
        account = LineAccount()
        list(iter_records([text.encode() + b"\n"], account))
        return dict(account.problems)

    assert line_problems(deep_object(500)) == {}
    assert line_problems(deep_object(501)) == {"too_deeply_nested": 1}
    assert line_problems(arrays(500)) == {"not_an_object": 1}
    assert line_problems(arrays(501)) == {"too_deeply_nested": 1}
    assert parse_document(arrays(500).encode())[1] is None
    assert parse_document(arrays(501).encode()) == (None, "too_deeply_nested")
    fits = '{"metadata": {"duration_seconds": 2}, "x": ' + arrays(499) + "}"
    past = '{"metadata": {"duration_seconds": 2}, "x": ' + arrays(500) + "}"
    assert embedded_duration_ms(fits) == 2000.0
    assert embedded_duration_ms(past) is None


def test_msgspec_is_handed_no_line_past_the_limit() -> None:
    """A reader that decodes with msgspec first (``events``): the same 500 levels read,
    501 refused, for the shortest object lines that nest so deep (``{"":[[...]]}``)."""
    def read(text: str) -> tuple[int, dict[str, int]]:
        account = LineAccount()
        records = list(iter_records([text.encode() + b"\n"], account, EVENTS_DECODER))
        return len(records), dict(account.problems)

    def shortest(levels: int) -> str:
        return '{"":' + arrays(levels - 1) + "}"

    assert len(shortest(501)) == 4 + 2 * 500 + 1  # past _SHORTEST_TOO_DEEP (1002)
    assert read(shortest(500)) == (1, {})
    assert read(shortest(501)) == (0, {"too_deeply_nested": 1})
    assert read('{"type": "x", "a": ' + arrays(499) + "}") == (1, {})
    assert read('{"type": "x", "a": ' + arrays(500) + "}") == (0, {"too_deeply_nested": 1})


@pytest.mark.parametrize(("text", "reason"), [
    # a syntax error before the container past the limit: invalid_json
    ('{"a": 1 2, "b": ' + arrays(600) + "}", "invalid_json"),
    ('{"a": -' + arrays(600) + "}", "invalid_json"),
    ('{"a": NaN, "b": ' + arrays(600) + "}", "invalid_json"),
    ('{"a": ' + "7" * 4301 + ', "b": ' + arrays(600) + "}", "invalid_json"),
    # the bracket past the limit is itself where no value may begin: invalid_json
    ('{"k": ' * 500 + "[]" + "}" * 500, "too_deeply_nested"),
    ('{"k": ' * 499 + "{[]" + "}" * 500, "invalid_json"),
    ("[" * 500 + "1 [" + "]" * 501, "invalid_json"),
    # the container past the limit first, then broken (or not): too_deeply_nested
    ('{"a": ' + arrays(600) + ", 1 2}", "too_deeply_nested"),
    ('{"a": ' + arrays(600) + ', "b": ' + "7" * 4301 + "}", "too_deeply_nested"),
    ('{"a": ' + "[" * 600, "too_deeply_nested"),
    # brackets in strings and escapes do not count
    ('{"a": "' + "[" * 600 + '\\"' + "{" * 600 + '"}', None),
])
def test_the_first_failure_from_the_left_names_the_line(text: str, reason: str | None) -> None:
    account = LineAccount()
    list(iter_records([text.encode() + b"\n"], account))
    assert dict(account.problems) == ({reason: 1} if reason else {})


@settings(max_examples=300, deadline=None)
@given(nested_json())
def test_too_deeply_nested_is_json_s_first_failure(text: str) -> None:
    """Against a plain model of the rule: json's own error position (this test's stack
    leaves ``json`` room for the 620 levels drawn), and the deepest container opened
    before it; past 500 there it is ``too_deeply_nested``, else the error's
    ``invalid_json``, else read. ``parse_document`` (documents) and ``iter_records``
    (lines, on an object) agree with it."""
    try:
        json.loads(text)
        end, expected = len(text), None
    except json.JSONDecodeError as error:
        end, expected = error.pos, "invalid_json"
    if _deepest(text[:end]) > MAX_JSON_DEPTH:
        expected = "too_deeply_nested"
    assert parse_document(text.encode())[1] == expected
    assert too_deeply_nested(text, json.loads) == (expected == "too_deeply_nested")
    account = LineAccount()
    records = list(iter_records([b'{"x": ' + text.encode() + b"}\n"], account))
    wrapped = _deepest_wrapped(text)
    assert (records == []) == (expected is not None or wrapped > MAX_JSON_DEPTH)


def _deepest_wrapped(text: str) -> int:
    """How deep ``{"x": text}`` nests, if ``text`` is valid JSON (else 0)."""
    try:
        json.loads(text)
    except ValueError:
        return 0
    return _deepest(text) + 1


def _deepest(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text``, outside strings (a model
    written out here, apart from the readers' own)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def test_nested_past_counts_outside_strings_only() -> None:
    assert nested_past(arrays(500)) is None
    assert nested_past(arrays(501)) == 500
    assert nested_past(arrays(501).encode()) == 500
    assert nested_past('"' + "[" * 1000 + '"') is None
    assert nested_past('"\\"' + "[" * 1000 + '"') is None
    assert nested_past(b'"\\\\"' + b"[" * 501) == 504


# -- the same outcome however the command is started ------------------------------------

def _deep_lines() -> list[bytes]:
    """Lines 500 and 501 levels deep, one broken before it nests past the limit and one
    broken after: ``too_deeply_nested`` 2, ``invalid_json`` 1."""
    return [(text + "\n").encode() for text in (
        deep_object(500), deep_object(501),
        '{"a": 1 2, "b": ' + arrays(600) + "}",
        '{"a": ' + arrays(600) + ", 1 2}")]


def _write_two(folder: Path, fmt: str, deep: list[bytes]) -> list[str]:
    """Two files of ``fmt`` (a call each, ``a`` and ``b``: not the same content, which
    would be read once) with ``deep`` after the call; two items for ``--jobs 2``."""
    builder = BUILDERS[fmt]
    paths = []
    for name in ("a", "b"):
        path = folder / name / "trace.jsonl"
        path.parent.mkdir(parents=True)
        path.write_bytes(b"".join([*builder.prelude, *builder.call(name, 1, 3), *deep]))
        paths.append(str(path))
    return paths


def _accounts(document: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted((report["path"], report["lines_read"], report["lines_used"],
                   report.get("problems", {}), report.get("ignored", {}))
                  for report in document["inputs"])


def _run(command: list[str], args: list[str]) -> dict[str, Any]:
    done = subprocess.run([*command, *args], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _args(fmt: str, paths: list[str], engine: str, jobs: int) -> list[str]:
    return ["summarize", "--format", "json", "--no-cache", "--jobs", str(jobs),
            "--engine", engine, "--input-format", fmt, *paths]


def _from_deep_stack(frames: int, call: Callable[[], Any]) -> Any:
    """``call()`` made ``frames`` Python frames deeper than this one."""
    if frames == 0:
        return call()
    return _from_deep_stack(frames - 1, call)


def _in_process(fmt: str, paths: list[str], frames: int) -> dict[str, Any]:
    stream = StreamSettings(engine="python")
    outcome = _from_deep_stack(frames, lambda: read_inputs(paths, fmt, stream=stream))
    result: dict[str, Any] = json.loads(render_json(analyse(outcome)))
    return result


@pytest.mark.parametrize("fmt", sorted(BUILDERS))
def test_every_way_of_running_reads_the_same_depth(tmp_path: Path, fmt: str) -> None:
    """The console command, ``python -m wavemetrics``, ``--engine python --jobs 2``
    (worker processes: two files), a read from 300 frames down and the native engine
    (where built): the same accounts, 500 levels read and 501 refused."""
    paths = _write_two(tmp_path, fmt, _deep_lines())
    console = _run([str(CONSOLE)], _args(fmt, paths, "python", 1))
    expected = _accounts(console)
    for report in console["inputs"]:
        assert report["problems"]["too_deeply_nested"] == 2, report
        assert report["problems"]["invalid_json"] == 1, report
    module = _run([sys.executable, "-m", "wavemetrics"], _args(fmt, paths, "python", 1))
    assert _accounts(module) == expected
    workers = _run([str(CONSOLE)], _args(fmt, paths, "python", 2))
    assert _accounts(workers) == expected
    assert _accounts(_in_process(fmt, paths, 300)) == expected
    if native.available():
        assert _accounts(_run([str(CONSOLE)], _args(fmt, paths, "native", 2))) == expected


def test_an_events_line_970_deep_is_refused_however_it_is_run(tmp_path: Path) -> None:
    """A reviewer's case: an ``events`` line nesting 970 levels, which the native engine
    read and ``--engine python --jobs 2`` refused, is ``too_deeply_nested`` everywhere;
    the call beside it is read."""
    lines = ['{"type": "tool_execution_start", "toolCallId": "a", "toolName": "read", '
             '"timestamp": 1000}',
             '{"type": "turn_end", "timestamp": 1500, "x": ' + arrays(969) + "}",
             '{"type": "tool_execution_end", "toolCallId": "a", "timestamp": 2000}']
    paths = []
    for name in ("a", "b"):
        path = tmp_path / name / "run.jsonl"
        path.parent.mkdir()
        path.write_text("\n".join(line.replace('"a"', f'"{name}"') for line in lines) + "\n",
                        encoding="utf-8")
        paths.append(str(path))
    runs = [_run([str(CONSOLE)], _args("events", paths, "python", 1)),
            _run([sys.executable, "-m", "wavemetrics"], _args("events", paths, "python", 1)),
            _run([str(CONSOLE)], _args("events", paths, "python", 2)),
            _in_process("events", paths, 300)]
    if native.available():
        runs.append(_run([str(CONSOLE)], _args("events", paths, "native", 2)))
    for document in runs:
        for report in document["inputs"]:
            assert (report["lines_read"], report["lines_used"]) == (3, 2)
            assert report["problems"] == {"too_deeply_nested": 1}
    assert len({json.dumps(_accounts(document)) for document in runs}) == 1


def _codex_rollout(output: str, call_id: str) -> list[str]:
    def line(kind: str, payload: object, time: str) -> str:
        return json.dumps({"timestamp": time, "type": kind, "payload": payload})

    return [line("session_meta", {"id": "s1", "cwd": "/w"}, "2025-03-01T10:00:00.000Z"),
            line("response_item", {"type": "function_call", "name": "shell", "call_id": call_id},
                 "2025-03-01T10:00:05.000Z"),
            line("response_item", {"type": "function_call_output", "call_id": call_id,
                                   "output": output}, "2025-03-01T10:00:05.000Z")]


def _tool_time(document: dict[str, Any]) -> float:
    return float(sum(lane["tool_time_ms"] for lane in document["lanes"]))


@pytest.mark.parametrize(("levels", "seconds"), [(499, 2.0), (500, 2.0), (501, None),
                                                 (960, None)])
def test_a_codex_output_s_embedded_duration_within_the_limit_only(
    tmp_path: Path, levels: int, seconds: float | None
) -> None:
    """A reviewer's case: a Codex tool output whose JSON nests 960 levels gave its
    embedded duration natively but not from ``--engine python --jobs 2``: now it is past
    the limit (500 levels, counted from the output's own top object) on every engine and
    every way of running, so it gives none; 500 levels give theirs."""
    output = ('{"metadata": {"duration_seconds": 2}, "x": ' + arrays(levels - 1) + "}")
    assert embedded_duration_ms(output) == (None if seconds is None else seconds * 1000)
    paths = []
    for name in ("a", "b"):
        path = tmp_path / name / "rollout-2025-03-01T10-00-00-0195500a-1b2c-7d3e-8f40-1234.jsonl"
        path.parent.mkdir()
        path.write_text("\n".join(_codex_rollout(output, name)) + "\n", encoding="utf-8")
        paths.append(str(path))
    runs = [_run([str(CONSOLE)], _args("codex", paths, "python", 1)),
            _run([sys.executable, "-m", "wavemetrics"], _args("codex", paths, "python", 1)),
            _run([str(CONSOLE)], _args("codex", paths, "python", 2)),
            _in_process("codex", paths, 300)]
    if native.available():
        runs.append(_run([str(CONSOLE)], _args("codex", paths, "native", 2)))
    times = {_tool_time(document) for document in runs}
    notes = {json.dumps(sorted(report.get("notes", {}).items()))
             for document in runs for report in document["inputs"]}
    assert len(notes) == 1
    assert times == ({0.0} if seconds is None else {2 * seconds * 1000})  # two files
    applied = '"batched_write_duration_applied", 1' in notes.pop()
    assert applied == (seconds is not None)
