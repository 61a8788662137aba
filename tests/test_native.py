"""The native engine against the Python reference: same traces, same output.

Hypothesis draws whole ``claude-code`` project folders and ``events`` files with
every quirk the readers handle (repeated uuids across files, sub-agent files,
sidechain chains, agentIds, bad and blank lines, BOMs, cut last lines, lone
surrogates, equal and fractional times, odd offsets, caps, eval names), reads
them with both engines and compares the whole ``summarize --format json``
document: every input's line accounting by reason and every lane's figures,
and reads them in batch with both engines (every lane's observations). A counting
wrapper proves the extension was asked for each unit; the tests that prove it
served a unit refuse the Python readers (``refuse_python_readers``).
"""

from __future__ import annotations

import ast
import gzip
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.benchmark_modules import fleet_module
from tests.corpus import CORPUS, needs_corpus
from tests.golden_cases import EXAMPLE
from tests.strategies import (
    case_names,
    claude_calls,
    claude_records,
    codex_calls,
    codex_records,
    damaged,
    engine_caps,
    engine_eval_names,
    event_calls,
    event_records,
    trace_files,
)
from tests.trace_builders import CLAUDE as CLAUDE_LINES
from tests.trace_builders import CODEX as CODEX_LINES
from tests.trace_builders import EVENTS as EVENT_LINES
from wavemetrics.cache.units import ReadCache
from wavemetrics.cli.commands import main
from wavemetrics.core.classify import normalize_tool_name
from wavemetrics.core.schema import SUMMARY_FIELDS
from wavemetrics.readers import sources as sources_module
from wavemetrics.readers.sources import Source, project_folder
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings, analyse, read_inputs, read_unit
from wavemetrics.views.report import render_json

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")

DIFFERENTIAL = settings(max_examples=200, deadline=None,
                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: The ``wavemetrics`` console command of this interpreter's environment.
CONSOLE = Path(sys.executable).with_name("wavemetrics")


def console_command(args: list[str]) -> tuple[int, str]:
    """``wavemetrics ARGS`` as a user runs it: the console command, in a process of its
    own (``tests/test_depth_limit.py`` runs the other ways: the nesting limit is the same
    in every one)."""
    assert CONSOLE.is_file(), CONSOLE
    done = subprocess.run([str(CONSOLE), *args], capture_output=True, check=False)
    return done.returncode, done.stdout.decode()


class _Counting:
    """Wraps the extension module and counts the units it read."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.units = 0

    def __getattr__(self, name: str) -> Any:
        function = getattr(self.inner, name)

        def counted(*args: Any) -> Any:
            self.units += 1
            return function(*args)

        return counted


@contextmanager
def counting_native() -> Iterator[_Counting]:
    original = native._native
    spy = _Counting(original)
    native._native = spy
    try:
        yield spy
    finally:
        native._native = original


def _json(paths: list[str], fmt: str, cap: int, names: tuple[str, ...], engine: str) -> str:
    stream = StreamSettings(max_tracked_calls=cap or None, eval_tool_names=names, engine=engine)
    outcome = read_inputs(paths, fmt, stream=stream)
    return render_json(analyse(outcome))


def _outcome(paths: list[str], fmt: str, cap: int, names: tuple[str, ...], engine: str) -> str:
    # an exception (the reference's turn-total overflow, say) must be the same too
    try:
        return _json(paths, fmt, cap, names, engine)
    except ValueError as error:
        return f"ValueError: {error}"


def _both(paths: list[str], fmt: str, cap: int, names: tuple[str, ...], units: int) -> str:
    """Both engines' streamed reads of ``paths`` as ``fmt`` give the same document, and
    their batch reads (every lane with its observations: waves, ``--by tool``,
    ``--since``) the same outcome; the extension is asked at least ``units`` times by each."""
    reference = _outcome(paths, fmt, cap, names, "python")
    with counting_native() as spy:
        fast = _outcome(paths, fmt, cap, names, "native")
    assert spy.units >= units  # a unit the extension gives up on is asked once more
    assert fast == reference
    batch = read_inputs(paths, fmt)
    with counting_native() as spy:
        native_batch = read_inputs(paths, fmt, engine="native")
    assert spy.units >= units
    assert native_batch == batch
    assert repr(native_batch.lanes) == repr(batch.lanes)  # 1 is not 1.0, -0.0 not 0.0
    return fast


@DIFFERENTIAL
@given(
    main_a=trace_files(claude_records(), claude_calls()), main_b=trace_files(claude_records(), claude_calls()),
    agent=trace_files(claude_records(), claude_calls()), sub=trace_files(claude_records(), claude_calls()),
    cap=engine_caps, names=engine_eval_names,
)
def test_claude_code_folders_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, main_a: bytes, main_b: bytes, agent: bytes,
    sub: bytes, cap: int, names: tuple[str, ...],
) -> None:
    """A generated project folder (two sessions, an agent file, a subagents/ file) gives the
    same accounts and figures on both engines."""
    folder = tmp_path_factory.mktemp("project")
    (folder / "s1").mkdir()
    (folder / "s1" / "subagents").mkdir()
    files = {"s1.jsonl": main_a, "s2.jsonl": main_b, "agent-7.jsonl": agent,
             "s1/subagents/agent-a1.jsonl": sub}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    _both([str(folder)], "claude-code", cap, names, units=1)


@DIFFERENTIAL
@given(data=trace_files(event_records(), event_calls()), cap=engine_caps, names=engine_eval_names)
def test_events_files_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    """A generated events file gives the same accounts and figures on both engines."""
    path = tmp_path_factory.mktemp("events") / "run.jsonl"
    path.write_bytes(data)
    _both([str(path)], "events", cap, names, units=1)


@DIFFERENTIAL
@given(data=damaged(trace_files(claude_records(), claude_calls())), cap=engine_caps,
       names=engine_eval_names)
def test_damaged_claude_code_files_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    """A generated Claude Code file with random damage (bit flips, cuts, deleted spans,
    inserted structure bytes, escapes, control characters, bad UTF-8) gives the same
    line accounts and figures on both engines: the native JSON scanner accepts and
    refuses exactly the lines Python's parser does."""
    path = tmp_path_factory.mktemp("damaged") / "s.jsonl"
    path.write_bytes(data)
    _both([str(path)], "claude-code", cap, names, units=1)


@DIFFERENTIAL
@given(data=damaged(trace_files(event_records(), event_calls())), cap=engine_caps,
       names=engine_eval_names)
def test_damaged_events_files_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    """A generated events file with random damage gives the same accounts and figures
    on both engines."""
    path = tmp_path_factory.mktemp("damaged") / "run.jsonl"
    path.write_bytes(data)
    _both([str(path)], "events", cap, names, units=1)


def test_a_control_character_in_a_key_is_invalid_json_on_both_engines(tmp_path: Path) -> None:
    """A raw control character in an object key (top level, in ``message``, in a content
    block) makes the line ``invalid_json``, as Python's strict parser has it (serde_json
    let it through before the native scanner)."""
    good = {"type": "user", "uuid": "u0", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "hi"}}
    lines = [json.dumps(good)]
    for n, (where, key) in enumerate([("top", "a\x01"), ("message", "r\x1f"), ("block", "\x00")]):
        record: dict[str, Any] = {**good, "uuid": f"u{n + 1}"}
        if where == "top":
            record[key] = 1
        elif where == "message":
            record["message"] = {"role": "user", key: 1, "content": "hi"}
        else:
            record["message"] = {"role": "user", "content": [{"type": "text", key: 1}]}
        # json.dumps escapes control characters: put the raw one back
        escaped = json.dumps(key)[1:-1]
        lines.append(json.dumps(record).replace(escaped, key))
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    document = json.loads(_both([str(path)], "claude-code", 2000, (), units=1))
    report = document["inputs"][0]
    assert report["lines_read"] == 4
    assert report["problems"] == {"invalid_json": 3}


@pytest.mark.parametrize("fmt", ["claude-code", "events", "codex", "pi", "copilot", "kimi"])
def test_json_s_first_failure_from_the_left_names_a_broken_deep_line(
    tmp_path: Path, fmt: str
) -> None:
    """A line nested far past the depth limit (500 levels) that is broken before it gets
    deep (a string ended early, two values in a row) is ``invalid_json``, as Python's
    ``json`` stops at the first failure it meets; broken after it gets deep, or not broken,
    it is ``too_deeply_nested``: the same on both engines, in every format a native reader
    takes."""
    deep = "[" * 990 + "]" * 990
    lines = ['{"a": "x\\"": ' + deep + "}", "[1 2, " + deep + "]",
             '{"a": ' + deep + ", 1 2}", '{"a": ' + deep + "}"]
    path = tmp_path / "s" / "wire.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = json.loads(_both([str(path)], fmt, 2000, (), units=1))["inputs"][0]
    assert report["lines_read"] == 4
    assert report["problems"] == {"invalid_json": 2, "too_deeply_nested": 2}


@pytest.mark.parametrize("fmt", ["claude-code", "events"])
def test_an_int_past_4300_digits_outside_an_object_is_invalid_json_on_both_engines(
    tmp_path: Path, fmt: str
) -> None:
    """A line that is no JSON object and holds an int of more than 4300 digits: Python's
    ``json`` refuses it (``invalid_json``) before seeing it is no object, so both engines
    say ``invalid_json`` (the native scan reads the int and said ``not_an_object``);
    4300 digits are read, and the line is then no object."""
    first = (json.dumps({"type": "tool_execution_start", "toolCallId": "a", "toolName": "read",
                         "timestamp": 1}) if fmt == "events" else
             json.dumps({"type": "user", "uuid": "u0", "sessionId": "s",
                         "timestamp": "2026-01-01T00:00:00Z",
                         "message": {"role": "user", "content": "hi"}}))
    path = tmp_path / "s.jsonl"
    path.write_text(f"{first}\n[{'7' * 4301}]\n[{'7' * 4300}]\n", encoding="utf-8")
    document = json.loads(_both([str(path)], fmt, 2000, (), units=1))
    report = document["inputs"][0]
    assert (report["format"], report["lines_read"]) == (fmt, 3)
    assert report["problems"] == {"invalid_json": 1, "not_an_object": 1}


def test_an_events_line_is_read_as_msgspec_or_else_json_reads_it_on_both_engines(
    tmp_path: Path,
) -> None:
    """As the console command reads an events file: msgspec and ``json`` both read a line
    nested 500 levels and refuse 501 (``too_deeply_nested``), msgspec never being handed
    a line past the limit; where msgspec refuses the line (a lone surrogate escape),
    ``json`` reads the same 500 levels; an int of more than 4300 digits in a value msgspec
    decodes (``timestamp``) makes the line invalid JSON, in a value it skips it is read;
    the same document on both engines."""
    def deep(levels: int, more: str = "") -> str:
        arrays = levels - 1
        return ('{"type": "turn_end", "timestamp": 5, ' + more + '"x": '
                + "[" * arrays + "]" * arrays + "}")

    long = "9" * 4301
    lines = ['{"type": "turn_start", "timestamp": 1}'] * 5 + [deep(500), deep(501),
             deep(500, '"y": "\\ud800", '), deep(501, '"y": "\\ud800", '),
             '{"type": "turn_end", "timestamp": ' + long + "}",
             '{"type": "turn_end", "timestamp": 5, "x": ' + long + "}"]
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def command_line(engine: str) -> tuple[int, str]:
        return console_command(["summarize", "--format", "json", "--jobs", "1", "--no-cache",
                                "--engine", engine, "--input-format", "events", str(path)])

    fast = command_line("native")
    assert fast == command_line("python")
    report = json.loads(fast[1])["inputs"][0]
    # the turn_starts, the two 500-level lines and the skipped long int are read
    assert (report["lines_read"], report["lines_used"]) == (11, 8)
    assert report["problems"] == {"invalid_json": 1, "too_deeply_nested": 2}


def _claude_deep(levels: int, more: str = "") -> str:
    """A Claude Code line of ``type`` x nesting ``levels`` deep (its object and arrays)."""
    arrays = levels - 1
    return '{"type": "x", ' + more + '"a": ' + "[" * arrays + "]" * arrays + "}"


def test_a_claude_code_line_is_read_as_msgspec_or_else_json_reads_it_on_both_engines(
    tmp_path: Path,
) -> None:
    """As the console command reads a transcript: msgspec and ``json`` both read a line
    nested 500 levels and refuse 501, whether msgspec takes the line or refuses it
    (``message`` null), as for a line that is no object; an int of more than 4300 digits
    in a value msgspec decodes (``durationMs``) makes the line invalid JSON, in a value it
    skips it is read; the same document on both engines."""
    long = "9" * 4301
    null = '"message": null, '
    lines = ['{"type": "x"}'] * 5 + [
        _claude_deep(500), _claude_deep(501), _claude_deep(500, null), _claude_deep(501, null),
        "[" * 500 + "]" * 500, "[" * 501 + "]" * 501,
        '{"type": "x", "durationMs": ' + long + "}", '{"type": "x", "z": ' + long + "}"]
    path = tmp_path / "p" / "s.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def command_line(engine: str) -> tuple[int, str]:
        return console_command(["summarize", "--format", "json", "--jobs", "1", "--no-cache",
                                "--engine", engine, "--input-format", "claude-code", str(path)])

    fast = command_line("native")
    assert fast == command_line("python")
    report = json.loads(fast[1])["inputs"][0]
    assert (report["lines_read"], report["lines_used"]) == (13, 0)
    assert report["problems"] == {"invalid_json": 1, "not_an_object": 1, "too_deeply_nested": 3}
    # the five short lines, the two 500-level lines and the skipped long int
    assert report["ignored"] == {"x": 8}


def test_a_process_s_first_decodes_read_as_deep_as_its_later_ones(tmp_path: Path) -> None:
    """msgspec once read one level less in a process's first four decodes (the interpreter
    specialises the call after a few runs, which moved the stack depth it saw): the limit
    is now the readers' own, so a 500-level line is read among a process's first decodes
    as after four others, and a 501-level one refused in both places, on both engines."""
    def problems(engine: str, fmt: str, path: Path) -> dict[str, int]:
        done = console_command(["summarize", "--format", "json", "--jobs", "1", "--no-cache",
                                "--engine", engine, "--input-format", fmt, str(path)])
        report: dict[str, int] = json.loads(done[1])["inputs"][0]["problems"]
        return report

    def event(levels: int) -> str:
        return ('{"type": "turn_end", "timestamp": 5, "x": ' + "[" * (levels - 1)
                + "]" * (levels - 1) + "}")

    for fmt, first, line in (("claude-code", '{"type": "x"}', _claude_deep),
                             ("events", '{"type": "turn_start", "timestamp": 1}', event)):
        for levels, expected in ((500, {}), (501, {"too_deeply_nested": 1})):
            folder = tmp_path / f"{fmt}-{levels}"
            cold, warm = folder / "cold.jsonl", folder / "warm.jsonl"
            folder.mkdir()
            cold.write_text(f"{first}\n{line(levels)}\n", encoding="utf-8")
            warm.write_text(f"{first}\n" * 4 + f"{line(levels)}\n", encoding="utf-8")
            for engine in ("python", "native"):
                assert problems(engine, fmt, cold) == expected, (fmt, levels, engine)
                assert problems(engine, fmt, warm) == expected, (fmt, levels, engine)


@DIFFERENTIAL
@given(
    calls=st.lists(st.tuples(st.integers(0, 50), st.integers(0, 5)), min_size=1, max_size=150),
    late=st.integers(0, 60),
)
def test_calls_out_of_order_are_read_again_in_batch_the_same(
    tmp_path_factory: pytest.TempPathFactory, calls: list[tuple[int, int]], late: int
) -> None:
    """Many calls then one that starts inside an already summarised wave: both engines read
    the file again in batch mode, note it, and give the same figures."""
    lines = []
    for index, (start, length) in enumerate(calls):
        begin = 1_000 + start * 10 + index * 100
        lines.append(f'{{"type":"tool_execution_start","toolCallId":"c{index}","toolName":"t",'
                     f'"timestamp":{begin}}}')
        lines.append(f'{{"type":"tool_execution_end","toolCallId":"c{index}",'
                     f'"timestamp":{begin + length}}}')
    lines.append(f'{{"type":"tool_execution_start","toolCallId":"late","toolName":"t",'
                 f'"timestamp":{late}}}')
    lines.append(f'{{"type":"tool_execution_end","toolCallId":"late","timestamp":{late + 1}}}')
    path = tmp_path_factory.mktemp("late") / "run.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = _both([str(path)], "events", 2000, ("eval",), units=1)
    assert ('"read_again_in_batch": 1' in out) == (len(calls) >= 64)


def test_read_again_in_batch_is_noted(tmp_path: Path) -> None:
    """64 calls in a row then one call at time 0: the native engine notes the batch re-read
    and counts all 65 calls in 65 one-call waves."""
    lines = []
    for index in range(64):
        lines.append(f'{{"type":"tool_execution_start","toolCallId":"c{index}","toolName":"t",'
                     f'"timestamp":{100 + 10 * index}}}')
        lines.append(f'{{"type":"tool_execution_end","toolCallId":"c{index}",'
                     f'"timestamp":{101 + 10 * index}}}')
    lines.append('{"type":"tool_execution_start","toolCallId":"z","toolName":"t","timestamp":0}')
    lines.append('{"type":"tool_execution_end","toolCallId":"z","timestamp":1}')
    (tmp_path / "run.jsonl").write_text("\n".join(lines) + "\n")
    result = native.read_unit_native(
        "events", (str(tmp_path / "run.jsonl"),), StreamSettings(engine="native")
    )
    assert result is not None
    (report,), (lane,) = result
    assert report.notes == {"read_again_in_batch": 1}
    assert (report.lines_read, report.lines_used) == (130, 130)
    assert lane.summary is not None
    assert (lane.summary.paired_calls, lane.summary.non_eval_waves_total) == (65, 65)
    assert lane.summary.tool_time_ms == 65.0


def test_formats_and_inputs_the_native_engine_leaves_to_python(tmp_path: Path) -> None:
    """A ``.gz`` file, a pipe-like non-regular input and other formats are not read
    natively; gzip content under a plain name is, decompressed as ``sources.py`` reads
    it (its magic bytes decide)."""
    settings_native = StreamSettings(engine="native")
    (tmp_path / "a.jsonl.gz").write_bytes(b"")
    assert native.read_unit_native("events", (str(tmp_path / "a.jsonl.gz"),), settings_native) is None
    assert native.read_unit_native("events", ("-",), settings_native) is None
    assert native.read_unit_native("opencode", (str(EXAMPLE),), settings_native) is None
    assert native.read_unit_native("events", (str(tmp_path),), settings_native) is None
    # gzip content under a plain name: one turn_start line, used, in one lane
    packed = tmp_path / "packed.jsonl"
    packed.write_bytes(gzip.compress(b'{"type":"turn_start","timestamp":1}\n'))
    result = native.read_unit_native("events", (str(packed),), settings_native)
    assert result is not None
    (report,), lanes = result
    assert (report.format, report.lines_read, report.lines_used, report.error) == (
        "events", 1, 1, None)
    assert len(lanes) == 1
    assert native.detect_natively([str(packed)], 1) == {str(packed): "events"}


def _summarize(args: list[str], engine: str) -> tuple[int, str]:
    # the native engine reads only without the read cache (with it, Python fills the cache)
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "--jobs", "1",
                                       "--no-cache", "--engine", engine, *args])
    return result.exit_code, result.stdout


@needs_corpus
def test_whole_corpus_gives_identical_json() -> None:
    """The whole corpus in one run gives byte-identical JSON and exit codes on both engines."""
    here = os.getcwd()
    os.chdir(CORPUS)
    try:
        with counting_native() as spy:
            fast = _summarize(["."], "native")
        reference = _summarize(["."], "python")
    finally:
        os.chdir(here)
    assert spy.units > 0
    assert fast == reference


def test_bundled_example_gives_identical_json() -> None:
    """The bundled example gives byte-identical JSON on both engines, in every output format."""
    for output in ("json", "jsonl", "table"):
        runs = [CliRunner().invoke(main, ["summarize", "--format", output, "--no-cache",
                                          "--engine", engine, str(EXAMPLE)])
                for engine in ("python", "native")]
        assert runs[0].exit_code == runs[1].exit_code == 0
        assert runs[0].stdout == runs[1].stdout


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    projects=st.lists(trace_files(claude_records(), claude_calls()), min_size=1, max_size=4),
    events=st.lists(trace_files(event_records(), event_calls()), min_size=1, max_size=3),
)
def test_units_read_on_threads_give_the_same_output(
    tmp_path_factory: pytest.TempPathFactory, projects: list[bytes], events: list[bytes]
) -> None:
    """Several project folders and events files read on 1 or 3 native threads, or by the
    Python engine, give the same document: units are read whole and merged in order."""
    root = tmp_path_factory.mktemp("many")
    for index, data in enumerate(projects):
        folder = root / f"project-{index}"
        folder.mkdir()
        (folder / "session.jsonl").write_bytes(b'{"type":"summary","uuid":"x"}\n' + data)
    for index, data in enumerate(events):
        (root / f"run-{index}.jsonl").write_bytes(b'{"type":"turn_start","timestamp":1}\n' + data)
    outputs = set()
    for engine, jobs in (("python", 1), ("native", 1), ("native", 3)):
        stream = StreamSettings(engine=engine, jobs=jobs)
        outputs.add(render_json(analyse(read_inputs([str(root)], stream=stream))))
    assert len(outputs) == 1


def test_the_extension_names_its_figures_in_the_order_of_the_figure_table() -> None:
    """The extension's figure names, in order, are SUMMARY_FIELDS: the Rust list
    (native/core/src/summary.rs) follows Python's table, never the other way round."""
    import wavemetrics._native as built

    assert built.figure_names() == SUMMARY_FIELDS
    assert built.figure_names()[10] == "non_eval_wave_size_histogram"
    # docs/metrics.md section 6: 16 v1 keys - 2 + 8 extras, then the 14 of section 9
    assert len(SUMMARY_FIELDS) == 36
    assert built.figure_names()[22] == "calls_without_batch"
    assert built.figure_names()[25:27] == ("turn_width_histogram", "max_turn_width")
    assert built.figure_names()[-1] == "calls_timed_by_message"


def test_a_lane_read_natively_carries_each_figure_under_its_name(tmp_path: Path) -> None:
    """Each value of the extension's figures tuple lands on the attribute of its name:
    read [0, 10] with grep [1, 4] (one wave of 2), an orphan end, an incomplete start."""
    path = tmp_path / "run.jsonl"
    def at(ms: int) -> int:
        return 1_700_000_000_000 + ms

    def call(kind: str, call_id: str, ms: int, tool: str = "read") -> dict[str, Any]:
        return {"type": f"tool_execution_{kind}", "toolCallId": call_id, "toolName": tool,
                "timestamp": at(ms)}

    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in (
        {"type": "turn_start", "timestamp": at(0)},
        call("start", "a", 0), call("start", "b", 1, "grep"), call("end", "b", 4, "grep"),
        call("end", "a", 10), call("end", "x", 11), call("start", "c", 12, "eval"),
        {"type": "turn_end", "timestamp": at(20)},
    )))
    result = native.read_unit_native("events", (str(path),), StreamSettings(engine="native"))
    assert result is not None
    (lane,) = result[1]
    s = lane.summary
    # durations 10 and 3: S = 13 - span 10 = 3, upper (2 - 1) * 13 / 2, peak 2 - 1
    assert (s.paired_calls, s.observed_calls, s.orphan_ends, s.incomplete_calls) == (2, 3, 1, 1)
    assert (s.modeled_wallclock_saved_ms, s.upper_bound_saved_ms, s.tool_time_ms) == (3.0, 6.5, 13.0)
    assert (s.non_eval_saved_round_trips, s.non_eval_waves_multi, s.non_eval_joined_calls) == (1, 1, 2)
    assert s.non_eval_wave_size_histogram == "0:1:0:0:0:0:0:0"
    assert s.measured_turn_duration_ms_total == 20.0
    # section 9: a and b started after the one turn_start: one turn of width 2 (c, still
    # pending, is in none); span 0 (a's start, the turn's) to 20 (the turn's end; c's
    # start 12 is inside); busy: the one wave [0, 10]; the measured turn [0, 20] covers
    # every gap: idle 0; events times are execution times
    assert (s.calls_without_batch, s.batched_turns, s.multi_call_turns) == (0, 1, 1)
    assert (s.turn_width_histogram, s.max_turn_width) == ("0:1:0:0:0:0:0:0", 2)
    assert (s.missed_batch_runs, s.missed_batch_calls, s.missed_batch_round_trips) == (0, 0, 0)
    assert (s.missed_batch_upper_ms, s.lane_span_ms, s.tool_busy_ms, s.idle_ms) == (
        0.0, 20.0, 10.0, 0.0)
    assert (s.calls_timed_by_execution, s.calls_timed_by_message) == (2, 0)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    claude=trace_files(claude_records(), claude_calls()),
    events=trace_files(event_records(), event_calls()),
    max_line_bytes=st.integers(min_value=1, max_value=400),
)
def test_a_small_max_line_bytes_reads_with_python_the_same(
    tmp_path_factory: pytest.TempPathFactory, claude: bytes, events: bytes, max_line_bytes: int
) -> None:
    """With --max-line-bytes other than the default (over-long lines become line_too_long),
    --engine native reads with Python: no unit reaches the extension and the JSON is the
    same as --engine python's."""
    folder = tmp_path_factory.mktemp("limits")
    (folder / "s1.jsonl").write_bytes(claude)
    (folder / "run.events.jsonl").write_bytes(events)
    args = ["--max-line-bytes", str(max_line_bytes), str(folder / "s1.jsonl"),
            str(folder / "run.events.jsonl")]
    with counting_native() as spy:
        fast = _summarize(["--input-format", "claude-code", *args[:3]], "native")
        fast_events = _summarize(["--input-format", "events", args[0], args[1], args[3]],
                                 "native")
    assert spy.units == 0
    assert fast == _summarize(["--input-format", "claude-code", *args[:3]], "python")
    assert fast_events == _summarize(["--input-format", "events", args[0], args[1], args[3]],
                                     "python")


def test_a_line_past_the_default_line_limit_is_handed_back_to_python(tmp_path: Path) -> None:
    """A line of more than 64 MiB (the default --max-line-bytes) is never held by the native
    engine: detection and reading hand the file back, and Python counts it as line_too_long."""
    path = tmp_path / "run.jsonl"
    with path.open("wb") as out:
        out.write(b'{"type":"turn_start","timestamp":1}\n')
        out.write(b'{"type":"turn_end","timestamp":5}\n')
        out.write(b"x" * (64 * 2**20 + 1) + b"\n")
        out.write(b'{"type":"session_shutdown","timestamp":6}\n')
    assert native.read_unit_native("events", (str(path),), StreamSettings(engine="native")) is None
    code, fast = _summarize([str(path)], "native")
    assert (code, fast) == _summarize([str(path)], "python")
    assert '"line_too_long": 1' in fast


def test_time_windows_read_with_python_and_the_cache_with_native_the_same(
    tmp_path: Path,
) -> None:
    """With the read cache, a plain summarize reads natively when cold and nothing when
    warm; --since needs call records, which --engine native reads natively too (one more
    call) and stores, so that --by day after it reads nothing; every run prints what
    --engine python prints."""
    runs: dict[str, list[tuple[int, str]]] = {"native": [], "python": []}
    calls: dict[str, list[int]] = {"native": [], "python": []}
    for engine in ("native", "python"):
        for extra in ([], [], ["--since", "2025-01-01"], ["--by", "day"]):
            with counting_native() as spy:
                result = CliRunner().invoke(main, ["summarize", "--format", "json", "--jobs", "1",
                                                   "--engine", engine, *extra, str(EXAMPLE)])
            runs[engine].append((result.exit_code, result.stdout))
            calls[engine].append(spy.units)
    assert runs["native"] == runs["python"]
    assert all(code == 0 for code, _ in runs["native"])
    # cold: detected and read natively (in one call); warm: both from the cache; --since:
    # the call records read natively (detection from the cache); --by day: from the cache
    assert calls == {"native": [1, 0, 1, 0], "python": [0, 0, 0, 0]}


# -- the native engine with the read cache ---------------------------------------------

@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small fleet folder as ``benchmarks/fleet.py`` makes it: the corpus's Claude Code
    files copied 3 times with fresh ids (its ``projects/`` folder)."""
    if not CORPUS.is_dir():
        pytest.skip(f"corpus absent: {CORPUS}")
    out = tmp_path_factory.mktemp("fleet")
    files, _ = fleet_module().make_fleet(out, CORPUS, 3)
    assert files > 30
    return out / "projects"


def _cached_run(paths: list[str], engine: str, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "--jobs", "1",
                                       "--engine", engine, *extra, *paths])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout


def _six_runs(paths: list[str], cache_dir: Path) -> dict[str, tuple[tuple[int, str], int]]:
    """Each engine without the cache, cold (empty cache) and warm: output and extension calls."""
    runs = {}
    for engine in ("python", "native"):
        ReadCache(cache_dir).clear()
        for state, extra in (("no-cache", ("--no-cache",)), ("cold", ()), ("warm", ())):
            with counting_native() as spy:
                runs[f"{engine} {state}"] = (_cached_run(paths, engine, *extra), spy.units)
    return runs


@needs_corpus
def test_the_whole_corpus_prints_the_same_bytes_on_both_engines_with_and_without_cache(
    private_cache: Path,
) -> None:
    """On the whole corpus folder, native and Python runs without the cache, cold and warm
    print the same bytes and exit codes; only native runs call the extension."""
    runs = _six_runs([str(CORPUS)], private_cache)
    outputs = {output for output, _ in runs.values()}
    assert len(outputs) == 1
    assert all(calls == 0 for name, (_, calls) in runs.items() if name.startswith("python"))
    assert runs["native no-cache"][1] > 0
    assert runs["native cold"][1] > 0


def test_a_fleet_folder_prints_the_same_bytes_and_a_warm_native_run_reads_nothing(
    fleet: Path, private_cache: Path
) -> None:
    """On a fleet folder (corpus copies with fresh ids), the six runs print the same bytes;
    the native cold run detects and reads in 1 extension call, the warm one in none."""
    runs = _six_runs([str(fleet)], private_cache)
    assert len({output for output, _ in runs.values()}) == 1
    assert runs["native no-cache"][0][0] == 0
    # one call detects and reads every unit (on --jobs threads): no detection pass
    assert runs["native no-cache"][1] == runs["native cold"][1] == 1
    assert runs["native warm"][1] == 0
    assert runs["python cold"][1] == runs["python warm"][1] == 0


def _no_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every way of reading a file's content fail: the extension and the Python sources."""

    class Refuse:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"the extension was asked to {name}")

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a file's content was read")

    monkeypatch.setattr(native, "_native", Refuse())
    monkeypatch.setattr(Source, "lines", refuse)
    monkeypatch.setattr(Source, "peek", refuse)


def test_a_warm_run_after_a_native_cold_run_reads_no_file_content(
    fleet: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a native cold run, warm runs of either engine read no file: detections and
    lane summaries come from the cache (the summary entry is the same for both engines)."""
    expected = _cached_run([str(fleet)], "python", "--no-cache")
    assert _cached_run([str(fleet)], "native") == expected
    files = sum(1 for _ in fleet.rglob("*.jsonl"))
    info = ReadCache(private_cache).info()
    assert (info.detections, info.units, info.files) == (files, 0, 0)  # no call records
    assert info.summaries == len({os.path.dirname(str(p).split("/subagents")[0])
                                  for p in fleet.rglob("*.jsonl")})
    with monkeypatch.context() as patched:
        _no_reading(patched)
        assert _cached_run([str(fleet)], "native") == expected
        assert _cached_run([str(fleet)], "python") == expected


def test_commands_that_need_call_records_read_them_natively_once_after_a_native_run(
    fleet: Path, private_cache: Path
) -> None:
    """A native cold summarize stores no call records: `waves` then reads them with the
    extension (one call, the detections from the cache) and stores them, so that
    `summarize --by day` reads nothing; both print what they print without the cache."""
    project = sorted(p for p in fleet.iterdir() if p.is_dir())[0]
    waves = ["waves", "--format", "json", "--jobs", "1", str(project)]
    by_day = ["summarize", "--format", "json", "--jobs", "1", "--by", "day", str(project)]
    expected = [CliRunner().invoke(main, [*args, "--no-cache"]).stdout for args in (waves, by_day)]
    _cached_run([str(project)], "native")
    assert ReadCache(private_cache).info().units == 0
    with counting_native() as spy:
        assert [CliRunner().invoke(main, args).stdout for args in (waves, by_day)] == expected
    assert spy.units == 1
    info = ReadCache(private_cache).info()
    assert (info.units, info.summaries) == (1, 1)  # one project folder: records, summary


def _cached_json(paths: list[str], cap: int, names: tuple[str, ...], engine: str,
                 cache: ReadCache | None) -> str:
    stream = StreamSettings(max_tracked_calls=cap or None, eval_tool_names=names, engine=engine)
    try:
        return render_json(analyse(read_inputs(paths, stream=stream, cache=cache)))
    except ValueError as error:
        return f"ValueError: {error}"


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    claude=trace_files(claude_records(), claude_calls()),
    events=trace_files(event_records(), event_calls()),
    cap=engine_caps, names=engine_eval_names,
)
def test_generated_traces_read_the_same_through_the_cache_on_both_engines(
    tmp_path_factory: pytest.TempPathFactory, claude: bytes, events: bytes, cap: int,
    names: tuple[str, ...],
) -> None:
    """Generated Claude Code and events traces give Python's uncached document when the
    native engine reads them into an empty cache, and again from it with neither engine
    reading a unit (the cache holds lane summaries for these options)."""
    root = tmp_path_factory.mktemp("traces")
    (root / "project").mkdir()
    (root / "project" / "s1.jsonl").write_bytes(b'{"type":"summary","uuid":"x"}\n' + claude)
    (root / "run.jsonl").write_bytes(b'{"type":"turn_start","timestamp":1}\n' + events)
    paths = [str(root)]
    expected = _cached_json(paths, cap, names, "python", None)
    cache = ReadCache(tmp_path_factory.mktemp("cache"))
    try:
        with counting_native() as spy:
            assert _cached_json(paths, cap, names, "native", cache) == expected
        cold = spy.units
        with counting_native() as spy:
            assert _cached_json(paths, cap, names, "native", cache) == expected
            assert _cached_json(paths, cap, names, "python", cache) == expected
    finally:
        cache.close()
    assert cold == 1  # both units detected and read in one call
    if not expected.startswith("ValueError"):  # a failed read stores nothing
        assert spy.units == 0


def test_a_file_that_changes_while_read_natively_is_not_stored(
    tmp_path: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A unit whose file grew while the native engine read it (here: as each native
    call returns, the folded detect-and-read pass and the read of the other units) gets
    no cache entry (its key would name the old version), so the next run reads it again
    and sees the new calls."""
    trace = tmp_path / "run.jsonl"
    first = b'{"type":"turn_start","timestamp":1}\n'
    trace.write_bytes(first)
    originals = {name: getattr(native, name)
                 for name in ("read_units_natively", "detect_and_read_natively")}

    def growing(name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            result = originals[name](*args, **kwargs)
            with trace.open("ab") as out:
                out.write(b'{"type":"turn_end","timestamp":5}\n')
            return result
        return call

    for name in originals:
        monkeypatch.setattr(native, name, growing(name))
    _cached_run([str(trace)], "native")
    assert ReadCache(private_cache).info().summaries == 0
    for name, original in originals.items():
        monkeypatch.setattr(native, name, original)
    assert _cached_run([str(trace)], "native") == _cached_run([str(trace)], "python",
                                                               "--no-cache")
    assert ReadCache(private_cache).info().summaries == 1


def _document(paths: list[str], engine: str, jobs: int) -> str:
    # the whole summarize document, or the reference's error (a turn-total overflow)
    stream = StreamSettings(engine=engine, jobs=jobs)
    try:
        return render_json(analyse(read_inputs(paths, stream=stream)))
    except ValueError as error:
        return f"ValueError: {error}"


@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    sessions=st.lists(trace_files(claude_records(), claude_calls()), min_size=2, max_size=5),
    agent=trace_files(claude_records(), claude_calls()),
    sub=trace_files(claude_records(), claude_calls()),
)
def test_one_folder_split_across_threads_reads_the_same(
    tmp_path_factory: pytest.TempPathFactory, sessions: list[bytes], agent: bytes, sub: bytes
) -> None:
    """One project folder of several files (uuids repeated across files, forks, sidechains,
    sub-agent files, bad lines) read with its files parsed on 2 or 3 threads gives the
    same document as one thread and as the Python engine, and the split read ran."""
    folder = tmp_path_factory.mktemp("project")
    (folder / "s1" / "subagents").mkdir(parents=True)
    files = {f"s{index + 1}.jsonl": data for index, data in enumerate(sessions)}
    files.update({"agent-7.jsonl": agent, "s1/subagents/agent-a1.jsonl": sub})
    for name, data in files.items():
        # a first line that makes every file a Claude Code file, its uuid in all of them
        (folder / name).write_bytes(b'{"type":"summary","uuid":"x"}\n' + data)
    before = native.split_reads()
    documents = {(engine, jobs): _document([str(folder)], engine, jobs)
                 for engine, jobs in (("python", 1), ("native", 1), ("native", 2), ("native", 3))}
    assert native.split_reads() >= before + 2  # jobs 2 and 3 split the one folder
    assert len(set(documents.values())) == 1, documents


#: One project folder: a session, its resumed copy with a fork's replayed line and bad
#: lines, an inline sub-agent chain that crosses files, and a sub-agent file.
_SPLIT_FOLDER = {
    "s1.jsonl": (
        '{"type":"assistant","uuid":"u1","sessionId":"s1","timestamp":"2025-01-01T00:00:00Z",'
        '"message":{"content":[{"type":"tool_use","id":"a","name":"Read"},'
        '{"type":"tool_use","id":"b","name":"Grep"}]}}\n'
        '{"type":"user","uuid":"u2","sessionId":"s1","timestamp":"2025-01-01T00:00:01Z",'
        '"message":{"content":[{"type":"tool_result","tool_use_id":"a"}]}}\n'
        "\n"
        '{"type":"user","uuid":"x1","isSidechain":true,"parentUuid":null,"sessionId":"s1"}\n'
    ),
    "s2.jsonl": (
        '{"type":"assistant","uuid":"u1","sessionId":"s1","timestamp":"2025-01-01T00:00:00Z",'
        '"message":{"content":[{"type":"tool_use","id":"a","name":"Read"}]}}\n'
        '{"type":"user","uuid":"u3","sessionId":"s1","timestamp":"2025-01-01T00:00:02Z",'
        '"message":{"content":[{"type":"tool_result","tool_use_id":"b"}]}}\n'
        '{"type":"assistant","uuid":"x2","isSidechain":true,"parentUuid":"x1","sessionId":"s1",'
        '"timestamp":"2025-01-01T00:00:03Z",'
        '"message":{"content":[{"type":"tool_use","id":"c","name":"Bash"}]}}\n'
        '{"type":"user","uuid":"u9","forkedFrom":{"sessionId":"s0"},"sessionId":"s1"}\n'
        "{bad\n"
        '{"type":"user"'
    ),
    "s1/subagents/agent-a1.jsonl": (
        '{"type":"assistant","uuid":"a1","agentId":"a1","timestamp":"2025-01-01T00:00:04Z",'
        '"message":{"content":[{"type":"tool_use","id":"d","name":"Read"}]}}\n'
    ),
}


def test_one_folder_split_by_the_cli_gives_the_reference_document(tmp_path: Path) -> None:
    """`summarize --jobs 2` on one project folder splits its files across threads and gives
    the accounts and lanes the reader rules give, byte for byte as `--jobs 1` and Python."""
    folder = tmp_path / "project"
    for name, text in _SPLIT_FOLDER.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)

    def run(engine: str, jobs: str) -> str:
        result = CliRunner().invoke(main, ["summarize", "--format", "json", "--no-cache",
                                           "--jobs", jobs, "--engine", engine, str(folder)])
        assert result.exit_code == 0, result.output
        return result.stdout

    before = native.split_reads()
    split = run("native", "2")
    assert native.split_reads() == before + 1
    assert split == run("native", "1") == run("python", "1")
    document = json.loads(split)
    accounts = {Path(i["path"]).relative_to(folder).as_posix():
                (i["lines_read"], i["lines_used"], i["ignored"], i["problems"])
                for i in document["inputs"]}
    assert accounts == {
        "s1.jsonl": (4, 2, {"blank_line": 1, "user": 1}, {}),
        "s2.jsonl": (6, 2, {"duplicate_uuid": 1, "replayed_lines": 1},
                     {"invalid_json": 1, "truncated_last_line": 1}),
        "s1/subagents/agent-a1.jsonl": (1, 1, {}, {}),
    }
    lanes = {(lane["session_id"], lane["lane_id"]) for lane in document["lanes"]}
    # x2's chain root x1 is in the other file; the sub-agent file's session is its folder
    assert lanes == {("s1", "main"), ("s1", "x1"), ("s1", "a1")}
    total = document["total"]
    assert (total["observed_calls"], total["paired_calls"], total["incomplete_calls"]) == (4, 2, 2)


# ------------------------------------------- detection folded into the native read

def _folder_runs(folder: Path) -> tuple[tuple[int, str], tuple[int, str], tuple[int, int]]:
    """The Python and native documents of ``folder`` (no cache, one thread), and how many
    files the separate detection pass and how many groups the folded read took meanwhile."""
    reference = _summarize([str(folder)], "python")
    before = native.detection_counts()
    fast = _summarize([str(folder)], "native")
    after = native.detection_counts()
    return reference, fast, (after[0] - before[0], after[1] - before[1])


def _formats(document: str) -> dict[str, str]:
    return {Path(i["path"]).name: i["format"] for i in json.loads(document)["inputs"]}


def _write(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


def test_a_folder_mixing_formats_is_detected_and_read_in_one_pass(tmp_path: Path) -> None:
    """A project folder of Claude Code sessions (one a sub-agent file), an events file, a
    Codex rollout and a JSON file of no format gives Python's document; its candidates are
    detected where they are read (one folded group), none by the separate detection pass."""
    folder = tmp_path / "project"
    _write(folder, {
        "s1.jsonl": b"".join([*CLAUDE_LINES.chatter("hi"), *CLAUDE_LINES.call("c1", 1, 3)]),
        "s2.jsonl": b"".join(CLAUDE_LINES.call("c3", 5, 6)),
        "s1/subagents/agent-a.jsonl": b"".join(CLAUDE_LINES.call("c2", 2, 4)),
        "run.jsonl": b"".join(EVENT_LINES.call("e1", 1, 2)),
        "rollout.jsonl": b"".join([*CODEX_LINES.prelude, *CODEX_LINES.call("x1", 1, 2)]),
        "notes.json": b'{"hello": "world"}\n',
    })
    reference, fast, (separate, folded) = _folder_runs(folder)
    assert fast == reference
    assert (separate, folded) == (0, 1)
    assert _formats(fast[1]) == {
        "s1.jsonl": "claude-code", "s2.jsonl": "claude-code", "agent-a.jsonl": "claude-code",
        "run.jsonl": "events", "rollout.jsonl": "codex",
    }
    document = json.loads(fast[1])
    assert [Path(s["path"]).name for s in document["skipped_files"]] == ["notes.json"]
    # c1, c2, c3 (one Claude Code lane: every line says session s1), e1 and x1
    assert (document["total"]["observed_calls"], document["total"]["paired_calls"]) == (5, 5)


def _claude_user(index: int) -> bytes:
    return (f'{{"type":"user","uuid":"u{index}","sessionId":"s",'
            f'"message":{{"content":"hi"}}}}\n').encode()


_TURN_END = b'{"type":"turn_end","timestamp":5}\n'


def test_a_record_on_the_64th_line_with_content_decides_and_one_after_it_does_not(
    tmp_path: Path,
) -> None:
    """An events record on the 64th line with content makes a file of Claude Code lines an
    events file (blank lines do not count, an escaped type counts, a BOM is skipped), one on
    the 65th does not: the folded read detects as the separate pass and as Python do."""
    claude = b"".join(_claude_user(i) for i in range(64))
    files = {
        "at64.jsonl": claude[: claude.index(b'"u63"') - len(b'{"type":"user","uuid":')]
        + _TURN_END,
        "at65.jsonl": claude + _TURN_END,
        "blanks.jsonl": b"".join(_claude_user(i) + b"\n  \n" for i in range(63)) + _TURN_END,
        "escaped.jsonl": b"".join(_claude_user(i) for i in range(63))
        + b'{"type":"turn\\u005fend","timestamp":5}\n',
        "first.jsonl": b"\xef\xbb\xbf" + _TURN_END + claude,
    }
    folder = tmp_path / "project"
    _write(folder, files)
    assert files["at64.jsonl"].count(b"\n") == 64
    expected = {"at64.jsonl": "events", "at65.jsonl": "claude-code", "blanks.jsonl": "events",
                "escaped.jsonl": "events", "first.jsonl": "events"}
    paths = sorted(str(p) for p in folder.iterdir())
    found, units = native.detect_and_read_natively(paths, StreamSettings(engine="native"))
    assert {Path(p).name: fmt for p, fmt in found.items()} == expected
    assert native.detect_natively(paths, 1) == found  # the separate pass
    assert set(units) == {("claude-code", (str(folder / "at65.jsonl"),))} | {
        ("events", (str(folder / name),)) for name, fmt in expected.items() if fmt == "events"}
    reference, fast, (separate, folded) = _folder_runs(folder)
    assert fast == reference
    assert _formats(fast[1]) == expected
    assert (separate, folded) == (0, 1)


def test_the_pipeline_s_regular_files_are_not_stat_ed_again_by_the_folded_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``regular=True`` (the pipeline's files, each just found a regular file by its
    key) makes the folded pass skip its own ``stat`` of each file, with the same result;
    a ``.gz`` file is still left to the Python readers."""
    folder = tmp_path / "project"
    _write(folder, {"s1.jsonl": b"".join(CLAUDE_LINES.call("c1", 1, 3)),
                    "s2.jsonl": b"".join(CLAUDE_LINES.call("c2", 2, 4)),
                    "run.jsonl": _TURN_END})
    paths = sorted(str(p) for p in folder.iterdir())
    settings = StreamSettings(engine="native")
    found, units = native.detect_and_read_natively(paths, settings)
    real_stat = os.stat
    stat_ed: list[str] = []

    def counting(path: Any, *args: Any, **kwargs: Any) -> Any:
        stat_ed.append(os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting)
    assert native.detect_and_read_natively(paths, settings, regular=True) == (found, units)
    assert [p for p in stat_ed if p in paths] == []
    assert {Path(p).name: fmt for p, fmt in found.items()} == {
        "s1.jsonl": "claude-code", "s2.jsonl": "claude-code", "run.jsonl": "events"}
    assert not native._readable_natively("claude-code", (paths[0] + ".gz",), regular=True)


def test_empty_blank_unreadable_and_packed_files_beside_a_session_read_as_python_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beside a Claude Code session, an empty file, a file of blank lines, a file that cannot
    be opened and a gzip-packed session under a plain name give Python's document: the
    first three are not the folded read's (empty inputs, an error), and the packed one,
    decompressed as Python reads it, is detected and joins the session's unit."""
    folder = tmp_path / "project"
    session = b"".join(CLAUDE_LINES.call("c1", 1, 3))
    _write(folder, {
        "s1.jsonl": session,
        "empty.jsonl": b"",
        "blank.jsonl": b"\n \n\t\r\n",
        "locked.jsonl": session,
        "packed.jsonl": gzip.compress(b"".join(CLAUDE_LINES.call("c2", 2, 4))),
    })
    def guarding(real_open: Any) -> Any:
        def guarded(path: Any, *args: Any, **kwargs: Any) -> Any:
            if os.fspath(path) == str(folder / "locked.jsonl"):
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return real_open(path, *args, **kwargs)
        return guarded

    # root may open a file of mode 0: the refusal made by hand, for the readers (open)
    # and for sources.open_error (os.open)
    monkeypatch.setattr(sources_module, "open", guarding(open), raising=False)
    monkeypatch.setattr(os, "open", guarding(os.open))
    paths = sorted(str(p) for p in folder.iterdir())
    found, units = native.detect_and_read_natively(paths, StreamSettings(engine="native"))
    assert {Path(p).name: fmt for p, fmt in found.items()} == {
        "packed.jsonl": "claude-code", "s1.jsonl": "claude-code"}
    assert set(units) == {
        ("claude-code", (str(folder / "packed.jsonl"), str(folder / "s1.jsonl")))}
    reference, fast, (separate, folded) = _folder_runs(folder)
    assert fast == reference
    assert fast[0] == 1  # the unreadable file
    document = json.loads(fast[1])
    assert {Path(i["path"]).name: (i["format"], i["lines_read"], i["error"])
            for i in document["inputs"]} == {
        "blank.jsonl": ("empty", 3, None), "empty.jsonl": ("empty", 0, None),
        "locked.jsonl": ("unknown", 0, "permission denied"),
        "packed.jsonl": ("claude-code", 2, None), "s1.jsonl": ("claude-code", 2, None),
    }
    assert (document["total"]["paired_calls"], separate, folded) == (2, 0, 1)


@needs_corpus
def test_a_fleet_run_detects_every_file_where_it_reads_it(
    fleet: Path, private_cache: Path
) -> None:
    """A cold fleet run, with and without the cache, makes no separate detection pass: each
    project folder is detected and read in one folded group, and the cache then holds
    every file's detection, so a warm run folds nothing."""
    folders = {project_folder(str(p)) for p in fleet.rglob("*.jsonl")}
    for extra in (("--no-cache",), ()):
        before = native.detection_counts()
        _cached_run([str(fleet)], "native", *extra)
        after = native.detection_counts()
        assert (after[0] - before[0], after[1] - before[1]) == (0, len(folders))
    assert ReadCache(private_cache).info().detections == sum(1 for _ in fleet.rglob("*.jsonl"))
    before = native.detection_counts()
    _cached_run([str(fleet)], "native")
    assert native.detection_counts() == before


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    claude=st.lists(trace_files(claude_records(), claude_calls()), min_size=1, max_size=3),
    events=st.lists(trace_files(event_records(), event_calls()), min_size=1, max_size=2),
    codex=st.lists(st.one_of(trace_files(codex_records(), codex_calls()),
                             damaged(trace_files(codex_records(), codex_calls()))), max_size=2),
    jobs=st.sampled_from((1, 2)),
)
def test_generated_files_of_one_folder_detected_in_the_read_give_pythons_document(
    tmp_path_factory: pytest.TempPathFactory, claude: list[bytes], events: list[bytes],
    codex: list[bytes], jobs: int,
) -> None:
    """Generated Claude Code, events and Codex files (a rollout perhaps damaged) side by
    side in one folder and its sub-agent folder, detected automatically (some may be
    none of them), give the Python engine's document on 1 or 2 threads, without a
    separate detection pass."""
    folder = tmp_path_factory.mktemp("mixed")
    files = {f"s{index}.jsonl": data for index, data in enumerate(claude)}
    files["s0/subagents/agent-1.jsonl"] = claude[-1]
    files.update({f"run-{index}.jsonl": data for index, data in enumerate(events)})
    files.update({f"rollout-{index}-0195500a-1b2c-7d3e-8f40-12345678900{index}.jsonl": data
                  for index, data in enumerate(codex)})
    _write(folder, files)
    reference = _document([str(folder)], "python", 1)
    before = native.detection_counts()
    assert _document([str(folder)], "native", jobs) == reference
    assert native.detection_counts()[0] == before[0]


def test_a_folder_with_a_file_the_fold_cannot_see_is_only_detected_natively(
    tmp_path: Path, private_cache: Path
) -> None:
    """A project folder with a gzip session beside a plain one, or (with the cache) a
    session that grew beside one whose detection is stored, is detected by the separate
    pass and read as one unit as before: the documents are Python's."""
    folder = tmp_path / "project"
    _write(folder, {
        "s1.jsonl": b"".join(CLAUDE_LINES.call("c1", 1, 3)),
        "s2.jsonl.gz": gzip.compress(b"".join(CLAUDE_LINES.call("c2", 2, 4))),
    })
    reference, fast, (separate, folded) = _folder_runs(folder)
    assert fast == reference
    assert (separate, folded) == (1, 0)  # s1.jsonl, on its own
    assert json.loads(fast[1])["total"]["paired_calls"] == 2
    (folder / "s2.jsonl.gz").unlink()
    (folder / "s2.jsonl").write_bytes(b"".join(CLAUDE_LINES.call("c2", 2, 4)))
    _cached_run([str(folder)], "native")  # both detections stored
    with (folder / "s2.jsonl").open("ab") as grown:
        grown.write(b"".join(CLAUDE_LINES.call("c3", 5, 6)))
    before = native.detection_counts()
    assert _cached_run([str(folder)], "native") == _cached_run([str(folder)], "python",
                                                                "--no-cache")
    after = native.detection_counts()
    assert (after[0] - before[0], after[1] - before[1]) == (1, 0)  # s2.jsonl, on its own


def test_the_built_extension_has_the_interface_this_package_calls() -> None:
    """The extension built from these sources reports the API_VERSION native.py expects."""
    import wavemetrics._native as built

    assert built.API_VERSION == native.API_VERSION == 30
    assert native.available() and not native.stale()


def test_the_stub_types_every_function_the_extension_exports(tmp_path: Path) -> None:
    """wavemetrics/_native.pyi names what the extension exports, no more, and
    mypy.stubtest finds each function's parameters as the built extension has them."""
    import wavemetrics._native as built

    stub = Path(native.__file__).parents[1] / "_native.pyi"
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    assert classes == {"ReadProgress"}
    assert functions | classes | {"API_VERSION"} == set(built.__all__)
    assert functions == {"read_units", "read_folded", "detect_many", "summarize_json",
                         "walk_folders", "detection_counts", "split_reads", "sha256",
                         "figure_names"}
    done = subprocess.run([sys.executable, "-m", "mypy.stubtest", "wavemetrics._native"],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "MYPY_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_stale_extension_is_not_called(monkeypatch: pytest.MonkeyPatch) -> None:
    """An extension built from older sources (another API_VERSION) is never called: the
    default engine reads with Python and says so in one note, --engine native is a usage
    error naming the rebuild, and the output is the Python engine's."""
    reference = CliRunner().invoke(main, ["summarize", "--format", "json", "--no-cache",
                                          "--engine", "python", str(EXAMPLE)])
    from wavemetrics.run import _extension

    monkeypatch.setattr(native, "_native", None)
    monkeypatch.setattr(_extension, "_stale", True)
    default = CliRunner().invoke(main, ["summarize", "--format", "json", "--no-cache",
                                        str(EXAMPLE)])
    assert default.exit_code == 0
    assert default.stdout == reference.stdout
    assert default.stderr == (
        "wavemetrics: note: the Rust extension is built from older sources: rebuild it with"
        " `pip install -e .`; reading with the Python engine (same output, slower)\n"
    )
    asked = CliRunner().invoke(main, ["summarize", "--no-cache", "--engine", "native",
                                      str(EXAMPLE)])
    assert asked.exit_code == 2
    assert ("--engine native: the Rust extension is built from older sources: rebuild it"
            " with `pip install -e .`") in asked.stderr


def test_a_missing_extension_is_a_usage_error_only_when_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without an importable extension, --engine native is a usage error naming the build
    section, and the default engine reads with Python without a note."""
    monkeypatch.setattr(native, "_native", None)
    default = CliRunner().invoke(main, ["summarize", "--no-cache", str(EXAMPLE)])
    assert default.exit_code == 0
    assert default.stderr == ""
    asked = CliRunner().invoke(main, ["summarize", "--no-cache", "--engine", "native",
                                      str(EXAMPLE)])
    assert asked.exit_code == 2
    assert ("--engine native: the Rust extension is not built (see the README's build"
            " section)") in asked.stderr


def test_an_events_file_in_a_subagents_folder_keeps_its_own_session(tmp_path: Path) -> None:
    """An events file without sessionId inside ``<session>/subagents/`` is its own session,
    named by its file stem (docs/formats.md, events), not the folder's Claude Code session:
    the folded read gives Python's document."""
    folder = tmp_path / "project"
    _write(folder, {
        "s1.jsonl": b"".join(CLAUDE_LINES.call("c1", 1, 3)),
        "s1/subagents/run.jsonl": b"".join([*EVENT_LINES.call("e1", 1, 2),
                                            *EVENT_LINES.call("e2", 1.5, 2.5)]),
    })
    reference, fast, (separate, folded) = _folder_runs(folder)
    assert fast == reference
    assert (separate, folded) == (0, 1)
    lanes = {(lane["session_id"], lane["lane_id"]): lane["observed_calls"]
             for lane in json.loads(fast[1])["lanes"]}
    assert lanes == {("s1", "main"): 1, ("run", "main"): 2}


def test_a_fifo_beside_sessions_is_never_opened_by_the_folded_read(tmp_path: Path) -> None:
    """A named pipe among the paths is not opened (opening it would block until a writer
    comes): its folder is detected by the separate pass, which skips it, and the call
    returns the sessions' format."""
    import threading

    folder = tmp_path / "project"
    _write(folder, {"s1.jsonl": b"".join(CLAUDE_LINES.call("c1", 1, 3))})
    os.mkfifo(folder / "pipe.jsonl")
    paths = sorted(str(p) for p in folder.iterdir())
    done: list[tuple[dict[str, str], dict[Any, Any]]] = []
    worker = threading.Thread(target=lambda: done.append(
        native.detect_and_read_natively(paths, StreamSettings(engine="native"))), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "the FIFO was opened"
    found, units = done[0]
    assert found == {str(folder / "s1.jsonl"): "claude-code"}
    assert units == {}  # the folder holds a file this pass does not read


def _two_calls(path: Path, first: str, second: str) -> str:
    """An ``events`` file: ``first`` on [0, 100] ms and ``second`` on [0, 50] ms, one wave."""
    at = 1_767_225_600_000
    events = [("tool_execution_start", "a", first, at), ("tool_execution_start", "b", second, at),
              ("tool_execution_end", "b", second, at + 50),
              ("tool_execution_end", "a", first, at + 100)]
    path.write_text("".join(json.dumps({"type": kind, "toolCallId": call, "toolName": name,
                                        "timestamp": ms}) + "\n"
                            for kind, call, name, ms in events), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("letter", ["\u1c89", "\ua7cb"])
def test_an_eval_name_newer_than_python_s_tables_is_judged_by_str_lower(
    tmp_path: Path, letter: str,
) -> None:
    """``--eval-tool`` U+1C89 (or U+A7CB), a capital letter Python 3.11's ``str.lower()``
    leaves as it is (Unicode 14.0) and Rust's tables lower-case: the tool of that name is
    an eval call under both engines, as ``str.lower()`` says. By hand: the eval call
    [0, 100] and ``read`` [0, 50] are one mixed wave, which saves nothing (never in
    the savings): mixed_waves 1, non_eval_waves_multi 0, saved 0 ms."""
    path = _two_calls(tmp_path / "t.jsonl", letter, "read")
    figures = set()
    for engine in ("python", "native"):
        result = CliRunner().invoke(main, ["summarize", "--no-cache", "--engine", engine,
                                           "--eval-tool", letter, "--format", "json", path])
        assert result.exit_code == 0
        total = json.loads(result.stdout)["total"]
        figures.add((total["mixed_waves"], total["non_eval_waves_multi"],
                     total["modeled_wallclock_saved_ms"]))
    assert figures == {(1, 0, 0.0)}


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(first=case_names, second=case_names, names=st.lists(case_names, max_size=2))
def test_eval_names_and_tool_names_lower_cased_as_str_lower_does(
    tmp_path_factory: pytest.TempPathFactory, first: str, second: str, names: list[str],
) -> None:
    """Tool and eval names drawn from letters whose lower case differs between Unicode
    tables (and sigmas, the Kelvin sign, dotted I): the native engine gives the Python
    engine's document, and it reads the file itself exactly when every eval name's normal
    form is ASCII (``pipeline._native_engine_reads``)."""
    path = _two_calls(tmp_path_factory.mktemp("case") / "t.jsonl", first, second)
    reference = _outcome([path], "events", 0, tuple(names), "python")
    with counting_native() as spy:
        fast = _outcome([path], "events", 0, tuple(names), "native")
    assert fast == reference
    ascii_names = all(normalize_tool_name(name).isascii() for name in names)
    assert (spy.units > 0) == ascii_names


def test_the_batchable_names_and_the_idle_gap_reach_the_native_engine(tmp_path: Path) -> None:
    """``StreamSettings.batchable_tool_names`` and ``idle_gap_ms`` decide the native
    section-9 figures as they decide Python's (``docs/metrics.md`` section 9): turns 1 {bash
    a [1, 2]}, 2 {bash b [4, 5]}, 3 {read c [21, 22]}; no turn is measured (no turn_end)."""
    path = tmp_path / "run.jsonl"

    def call(call_id: str, tool: str, start: int, end: int) -> list[dict[str, Any]]:
        return [{"type": "tool_execution_start", "toolCallId": call_id, "toolName": tool,
                 "timestamp": start},
                {"type": "tool_execution_end", "toolCallId": call_id, "timestamp": end}]

    records = [{"type": "turn_start", "timestamp": 0}, *call("a", "bash", 1, 2),
               {"type": "turn_start", "timestamp": 3}, *call("b", "bash", 4, 5),
               {"type": "turn_start", "timestamp": 20}, *call("c", "read", 21, 22)]
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))

    def total(engine: str, **section_9: Any) -> Any:
        stream = StreamSettings(engine=engine, **section_9)
        return analyse(read_inputs([str(path)], "events", stream=stream)).total

    # Bash batchable, gap 5: a and b are one run (4 - 2 = 2 <= 5), read c ends it:
    # upper (5 - 1) - max(1, 1) = 3; the waves [1, 2] and [4, 5] fold, 21 - 5 = 16 > 5 is
    # idle; span 22 - 1, busy 1 + 1 + 1
    bash = {"batchable_tool_names": ("Bash",), "idle_gap_ms": 5.0}
    with counting_native() as spy:
        fast = total("native", **bash)
    assert spy.units >= 1
    assert fast == total("python", **bash)
    assert (fast.missed_batch_runs, fast.missed_batch_calls, fast.missed_batch_upper_ms) == (
        1, 2, 3.0)
    assert (fast.idle_ms, fast.lane_span_ms, fast.tool_busy_ms) == (16.0, 21.0, 3.0)
    # the defaults: only read c is batchable (no run of two); 16 ms is far from 5 minutes
    fast = total("native")
    assert fast == total("python")
    assert (fast.missed_batch_runs, fast.idle_ms, fast.batched_turns) == (0, 0.0, 3)


# -- batch reads: each lane's observations ----------------------------------------------

#: An ``events`` log (``docs/formats.md``, "events"): a turn from 900 to 1300 ms; call
#: ``a`` started twice (``read``, then ``grep``: the last start names the call) and
#: ended; an end of ``z``, which no start named.
_BATCH_EVENTS = [
    {"type": "turn_start", "timestamp": 900},
    {"type": "tool_execution_start", "toolCallId": "a", "toolName": "read", "timestamp": 1000},
    {"type": "tool_execution_start", "toolCallId": "a", "toolName": "grep", "timestamp": 1005},
    {"type": "tool_execution_end", "toolCallId": "a", "toolName": "x", "timestamp": 1100},
    {"type": "tool_execution_end", "toolCallId": "z", "toolName": "bash", "timestamp": 1200},
    {"type": "turn_end", "timestamp": 1300},
]


def refuse_python_readers(patch: pytest.MonkeyPatch) -> None:
    """Refuse the Python readers: a read under this passes only if every unit it reads
    is served by the extension (or the cache)."""

    def refused(*_: Any) -> None:
        raise AssertionError("a unit was read by a Python reader")

    patch.setattr("wavemetrics.run.pipeline.read_unit_into", refused)


def _events_log(tmp_path: Path) -> str:
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in _BATCH_EVENTS))
    return str(path)


def test_a_native_batch_read_keeps_each_observation_as_the_python_readers_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A batch read by the native engine gives each lane its observations in order: a
    start with its name and batch (the count of ``turn_start`` lines before it), an end
    named by the last start of its call, an end no start named ``unknown``; and the
    lane's measured turns (one of 400 ms)."""
    path = _events_log(tmp_path)
    reference = read_inputs([path])
    with monkeypatch.context() as patch:
        refuse_python_readers(patch)
        with counting_native() as spy:
            outcome = read_inputs([path], engine="native")
    assert spy.units == 2  # detected, then read, by the extension
    (lane,) = outcome.lanes
    assert (lane.path, lane.session_id, lane.lane_id, lane.timing) == (
        path, "run", "main", "execution")
    assert [(o.kind, o.call_id, o.tool_name, o.at_ms, o.batch) for o in lane.observations] == [
        ("start", "a", "read", 1000.0, "1"),
        ("start", "a", "grep", 1005.0, "1"),
        ("end", "a", "grep", 1100.0, None),
        ("end", "z", "unknown", 1200.0, None),
    ]
    assert (lane.measured_turn_duration_ms_total, lane.turn_intervals) == (
        400.0, ((900.0, 1300.0),))
    (report,) = outcome.inputs
    assert (report.format, report.lines_read, report.lines_used) == ("events", 6, 6)
    assert outcome == reference  # the reference's, whole


def test_the_example_is_read_in_batch_by_the_extension_as_python_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bundled Claude Code example: no Python reader runs, and the outcome is the
    reference's, every observation's repr included."""
    reference = read_inputs([str(EXAMPLE)])
    with monkeypatch.context() as patch:
        refuse_python_readers(patch)
        outcome = read_inputs([str(EXAMPLE)], engine="native", jobs=2)
    assert outcome == reference
    assert repr(outcome.lanes) == repr(reference.lanes)
    assert sum(len(lane.observations) for lane in outcome.lanes) > 0


@needs_corpus
def test_every_corpus_unit_of_a_native_format_is_served_in_batch_by_the_extension() -> None:
    """Every read unit of the corpus whose format the extension reads is served by it in
    a batch read (none handed back), with the Python readers' reports and lanes."""
    from wavemetrics.readers.dispatch import detect_input, plan_units
    from wavemetrics.readers.sources import expand

    files = [path for path, error in expand([str(CORPUS)]).entries if error is None]
    units = [unit for unit in plan_units([detect_input(path) for path in files])
             if unit.format in native.NATIVE_FORMATS]
    assert len({unit.format for unit in units}) >= 4  # claude-code, codex, pi, otel-spans...
    served = native.read_unit_records_natively([(u.format, u.paths) for u in units], 2)
    assert sorted(served) == list(range(len(units)))
    for index, unit in enumerate(units):
        python = read_unit(unit, None)
        reports, lanes = served[index]
        assert (reports, lanes) == (python.reports, python.lanes), unit
        assert repr(lanes) == repr(python.lanes), unit


def test_a_native_batch_read_is_stored_and_served_by_the_read_cache(
    tmp_path: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Call records the native engine read are stored under the key the Python readers
    store theirs by: a second batch read of either engine reads no file; and records the
    Python readers stored serve a native read (no extension call)."""
    path = _events_log(tmp_path)
    reference = read_inputs([path])
    cache = ReadCache(private_cache)
    try:
        with counting_native() as spy:
            cold = read_inputs([path], engine="native", cache=cache)
        assert (cold, spy.units) == (reference, 2)
        with monkeypatch.context() as patch:
            refuse_python_readers(patch)
            with counting_native() as spy:
                warm = read_inputs([path], engine="native", cache=cache)
            assert (warm, spy.units) == (reference, 0)
            assert read_inputs([path], cache=cache) == reference
        cache.clear()
        assert read_inputs([path], cache=cache) == reference  # stored by Python
        with counting_native() as spy:
            assert read_inputs([path], engine="native", cache=cache) == reference
        assert spy.units == 0
    finally:
        cache.close()


def test_records_of_a_file_that_changes_while_read_natively_are_not_stored(
    tmp_path: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file that grows during the extension's batch read gives that read's outcome,
    and nothing is stored: the next read sees the new line."""
    path = _events_log(tmp_path)
    read = native.read_unit_records_natively

    def growing(units: Any, jobs: int) -> Any:
        done = read(units, jobs)
        with open(path, "a") as out:
            out.write(json.dumps({"type": "tool_execution_start", "toolCallId": "n",
                                  "toolName": "read", "timestamp": 1400}) + "\n")
        return done

    cache = ReadCache(private_cache)
    try:
        before = read_inputs([path])
        with monkeypatch.context() as patch:
            patch.setattr(native, "read_unit_records_natively", growing)
            assert read_inputs([path], engine="native", cache=cache) == before
        assert cache.info().units == 0
        (lane,) = read_inputs([path], engine="native", cache=cache).lanes
        assert lane.observations[-1].call_id == "n"
    finally:
        cache.close()


def test_a_streamed_read_takes_its_engine_and_jobs_from_its_settings() -> None:
    """``engine`` and ``jobs`` are a batch read's: with stream settings they must agree
    with them (or be left out); an unknown engine and jobs below 1 are refused."""
    native_stream = StreamSettings(engine="native", jobs=2)
    for bad in ({"engine": "python"}, {"jobs": 1}):
        with pytest.raises(ValueError, match="engine and jobs from its stream settings"):
            read_inputs([str(EXAMPLE)], stream=native_stream, **bad)  # type: ignore[arg-type]
    agreed = read_inputs([str(EXAMPLE)], stream=native_stream, engine="native", jobs=2)
    assert agreed == read_inputs([str(EXAMPLE)], stream=native_stream)
    with pytest.raises(ValueError, match="unknown engine 'rust'"):
        read_inputs([str(EXAMPLE)], engine="rust")
    for jobs in (0, -1, True):
        with pytest.raises(ValueError, match="jobs must be an int >= 1"):
            read_inputs([str(EXAMPLE)], engine="native", jobs=jobs)
