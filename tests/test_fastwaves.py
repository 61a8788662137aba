"""The native ``waves`` (``wavemetrics.run.fastwaves``) against the CLI: the same bytes, or
a decline.

As for ``summarize`` (``tests/test_fastpath.py``), the click command is the
reference: every run the native command takes prints its stdout, stderr and exit
status byte for byte; every other run is declined without a byte printed. The
corpus folders, the options the native command takes (time windows, eval and
batchable names, the idle gap, the per-lane cap), generated trees and a lane whose
waves are worked out by hand are compared.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from tests.golden_cases import EXAMPLE
from tests.strategies import claude_calls, claude_records, event_calls, event_records, trace_files
from tests.test_fastpath import (
    _TAKEN_OPTIONS,
    _claude,
    _claude_file,
    _home_of_two_sessions,
    _tree,
)
from tests.trace_builders import T0_MS, claude_call
from wavemetrics.cli.commands import main
from wavemetrics.inputs import _stdin
from wavemetrics.run import fastwaves, native
from wavemetrics.run.plan import plan_of

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")

#: The formats of ``waves``.
FORMATS = ("json", "table", "csv")

#: The options of :data:`tests.test_fastpath._TAKEN_OPTIONS` that ``waves`` has (no
#: ``--by``), and a few of its own.
_WAVES_OPTIONS = [
    extra for extra in _TAKEN_OPTIONS if "--by" not in extra
] + [("--eval-tool", "Read", "--max-tracked-calls", "2"), ("--idle-gap", "1.5")]


def _args(paths: list[str], output_format: str, extra: tuple[str, ...],
          show_paths: bool) -> list[str]:
    return ["--format", output_format, "--no-cache", "--jobs", "1",
            *(["--show-paths"] if show_paths else []), *extra, *paths]


def _cli(args: list[str]) -> tuple[int, bytes, bytes]:
    """The reference: ``waves ARGS`` through click."""
    result = CliRunner().invoke(main, ["waves", *args])
    return result.exit_code, result.stdout_bytes, result.stderr_bytes


def _same(capsysbinary: pytest.CaptureFixture[bytes], paths: list[str],
          output_format: str = "json", extra: tuple[str, ...] = (),
          show_paths: bool = False) -> bool:
    """Whether the native ``waves`` took the run (planned as the entry plans it); when it
    did, its exit status, stdout and stderr are the CLI's; when not, it printed nothing."""
    args = _args(paths, output_format, extra, show_paths)
    plan = plan_of(args, "waves")
    assert plan is not None
    capsysbinary.readouterr()
    code = fastwaves.run(plan)
    printed = capsysbinary.readouterr()
    if code is None:
        assert printed.out == printed.err == b""
        return False
    assert (code, printed.out, printed.err) == _cli(args)
    return True


def test_the_bundled_example_is_taken_in_every_format(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """The example (a session and its sub-agent lanes): every format, with and without
    ``--show-paths``, the CLI's bytes."""
    for output_format in FORMATS:
        for show_paths in (False, True):
            assert _same(capsysbinary, [str(EXAMPLE)], output_format, (), show_paths)


def test_a_lane_worked_out_by_hand(tmp_path: Path,
                                   capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """Three calls: Read 0-10 s and Grep 2-6 s overlap (one wave: span 10 s, peak 2,
    saving 10 + 4 - 10 = 4 s), an eval call 20-21 s alone (eval_only, saving 0)."""
    trace = tmp_path / "s1.jsonl"
    trace.write_bytes(claude_call("a", 0, 10, tool="Read") + claude_call("b", 2, 6, tool="Grep")
                      + claude_call("c", 20, 21, tool="eval"))
    assert _same(capsysbinary, [str(trace)])
    plan = plan_of(_args([str(trace)], "json", (), False), "waves")
    assert plan is not None and fastwaves.run(plan) == 0
    waves = json.loads(capsysbinary.readouterr().out)["waves"]
    assert [(w["wave"], w["start_ms"], w["start"], w["span_ms"], w["size"],
             w["max_concurrency"], w["bucket"], w["tool_names"],
             w["modeled_wallclock_saved_ms"]) for w in waves] == [
        (0, T0_MS + 0.0, "2025-01-01T00:00:00.000Z", 10000.0, 2, 2, "non_eval",
         ["Read", "Grep"], 4000.0),
        (1, T0_MS + 20000.0, "2025-01-01T00:00:20.000Z", 1000.0, 1, 1, "eval_only",
         ["eval"], 0.0),
    ]
    assert _same(capsysbinary, [str(trace)], "csv")
    plan = plan_of(_args([str(trace)], "csv", (), False), "waves")
    assert plan is not None and fastwaves.run(plan) == 0
    rows = capsysbinary.readouterr().out.decode().splitlines()[1:]
    assert [row.split(",")[10:] for row in rows] == [
        ["0", "a", "Read", f"{T0_MS}.0", f"{T0_MS + 10000}.0", "10000.0"],
        ["1", "b", "Grep", f"{T0_MS + 2000}.0", f"{T0_MS + 6000}.0", "4000.0"],
        ["0", "c", "eval", f"{T0_MS + 20000}.0", f"{T0_MS + 21000}.0", "1000.0"],
    ]


def test_starts_python_dates_oddly_are_written_as_the_cli_writes_them(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """The extension dates each wave's start as ``datetime.isoformat`` does: the last
    millisecond of year 9999 (its division by 1000 rounds below .999), the first of
    year 10000 and a start of 1e300 ms (Python cannot date them: ``"<ms> ms"``),
    microseconds that round up into the next millisecond, half a millisecond cut."""
    starts = [253402300799999.0, 253402300900000.0, 1e300, 1700000000000.0005,
              1700000010000.0015, 1700000020000.9998, 86399999.5]
    lines = []
    for number, start in enumerate(starts):
        for kind, at in (("tool_execution_start", start), ("tool_execution_end", start + 1)):
            lines.append(json.dumps({"type": kind, "toolCallId": f"c{number}",
                                     "toolName": "Read", "timestamp": at}))
    trace = tmp_path / "odd.jsonl"
    trace.write_text("\n".join(lines) + "\n")
    assert _same(capsysbinary, [str(trace)])
    plan = plan_of(_args([str(trace)], "json", (), False), "waves")
    assert plan is not None and fastwaves.run(plan) == 0
    waves = json.loads(capsysbinary.readouterr().out)["waves"]
    assert [w["start"] for w in waves] == [
        "1970-01-01T23:59:59.999Z",  # 86399999.5 ms: the half millisecond is cut
        "2023-11-14T22:13:20.000Z",
        "2023-11-14T22:13:30.000Z",
        "2023-11-14T22:13:40.001Z",  # 999.69 us (the double of .9998 ms) round to 1000
        "9999-12-31T23:59:59.998Z",  # 253402300799.999 s is held below .999
        "253402300900000.0 ms",
        "1e+300 ms",
    ]


@needs_corpus
@pytest.mark.parametrize("output_format", FORMATS)
def test_every_corpus_folder_taken_is_the_clis(
    capsysbinary: pytest.CaptureFixture[bytes], output_format: str
) -> None:
    """Each corpus folder: the native ``waves`` takes those the native ``summarize``
    takes (openai-codex's Codex TUI log read by the Python reader, its calls handed
    over), and prints the CLI's bytes."""
    from tests.test_fastpath import _NATIVE_CORPUS

    taken = {folder.name for folder in sorted(CORPUS.iterdir()) if folder.is_dir()
             and _same(capsysbinary, [str(folder)], output_format)}
    assert taken == set(_NATIVE_CORPUS)


@needs_corpus
@pytest.mark.parametrize("extra", _WAVES_OPTIONS)
def test_every_option_taken_is_the_clis_in_every_format(
    capsysbinary: pytest.CaptureFixture[bytes], extra: tuple[str, ...]
) -> None:
    """Each option the native ``waves`` takes (time windows, among them one that keeps
    no wave, the eval and batchable names, the idle gap, the per-lane cap: its loss
    warning), in every format, with and without ``--show-paths``, on the corpus's
    Claude Code folders: the CLI's bytes."""
    for output_format in FORMATS:
        for show_paths in (False, True):
            assert _same(capsysbinary, [str(CORPUS / "claude-code-log")], output_format,
                         extra, show_paths), (output_format, show_paths)


@pytest.mark.parametrize("args", [
    ["--max-line-bytes", "100", "P"],  # a byte limit: the Python readers'
    ["--format", "jsonl", "P"],  # summarize's format: a usage error of waves
    ["--format", "markdown", "P"],
    ["--by", "tool", "P"],  # summarize's option: a usage error of waves
    ["--engine", "python", "P"],
    ["-", "P"],  # stdin that cannot be read again (the test's: no descriptor)
    ["--eval-tool", "\u0130", "P"],  # a name whose normal form is not ASCII
    ["--since", "not a date", "P"],  # the CLI's usage error
])
def test_each_decline_prints_nothing_and_the_cli_runs(
    capsysbinary: pytest.CaptureFixture[bytes], args: list[str]
) -> None:
    """What the native ``waves`` does not take is planned as nothing or declined, with
    nothing printed."""
    args = [str(EXAMPLE) if arg == "P" else arg for arg in args]
    plan = plan_of(args, "waves")
    if plan is not None:
        assert fastwaves.run(plan) is None
    printed = capsysbinary.readouterr()
    assert printed.out == printed.err == b""


def test_the_rows_text_is_spliced_where_json_dumps_writes_the_rows() -> None:
    """The rows' text (``json.dumps(indent=2)`` of them at the depth of the document's
    ``waves``, joined by ``,\\n``: what the extension writes) spliced into the text of
    the document without them gives the whole document's text; no rows, the head."""
    from wavemetrics.views.report import wave_row

    rows = [
        wave_row("s\u00e9", "main", 0, 1.5, 2.0, 2, 2, "non_eval", ["R\u2028ead", "\x1b"], 0.25),
        wave_row("s", "l", 1, float("inf"), 0.0, 1, 0, "eval_only", ["eval"], float("nan")),
    ]
    document = {"options": {"by": None}, "lanes": [], "waves": rows}
    whole = json.dumps(document, indent=2, allow_nan=False)
    head = json.dumps({**document, "waves": []}, indent=2, allow_nan=False)
    opening = '"waves": [\n'
    text = whole[whole.index(opening) + len(opening):-len("\n  ]\n}")]
    assert text.startswith('    {\n      "session_id": "s\\u00e9",') and text.endswith("    }")
    assert fastwaves.with_text(head, text) == whole
    assert fastwaves.with_text(head, "") == head


def test_a_plan_of_waves_is_never_served_nor_stored() -> None:
    """``waves`` outputs are not kept in the run cache: its plan is not cached."""
    plan = plan_of(["--format", "json", str(EXAMPLE)], "waves")
    assert plan is not None and plan.command == "waves"
    assert not plan.cached and plan.state() is None
    summarize = plan_of(["--format", "json", str(EXAMPLE)])
    assert summarize is not None and summarize.cached


def test_the_console_script_runs_waves_without_click(tmp_path: Path) -> None:
    """``wavemetrics waves --format json`` in a fresh process: the native command runs
    (click is never imported) and prints the CLI's bytes."""
    code = ("import sys\n"
            f"sys.argv = ['wavemetrics', 'waves', '--format', 'json', {str(EXAMPLE)!r}]\n"
            "from wavemetrics.cli._entry import main\n"
            "try:\n    main()\nexcept SystemExit as stop:\n    status = stop.code\n"
            "sys.stdout.flush()\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'click'),"
            " status, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                          env={**os.environ, "WAVEMETRICS_CACHE_DIR": str(tmp_path)})
    assert done.stderr == b"[] 0\n"
    assert done.stdout == _cli(["--format", "json", str(EXAMPLE)])[1]


_FILES = trace_files(claude_records(), claude_calls())
#: Window bounds around the generated events logs' first calls (ms after 10:00).
_BOUNDS = [f"2025-03-01T10:00:00.{ms:03d}Z" for ms in (0, 5, 12, 20, 33)] + [
    "2025-03-01T10:00:15Z"]


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(
    session=_FILES, sub=_FILES,
    events=st.lists(trace_files(event_records(), event_calls()), min_size=0, max_size=2),
    since=st.one_of(st.none(), st.sampled_from(_BOUNDS)),
    until=st.one_of(st.none(), st.sampled_from(_BOUNDS)),
    output_format=st.sampled_from(FORMATS),
    show_paths=st.booleans(),
    extra=st.sampled_from([(), ("--max-tracked-calls", "3"), ("--eval-tool", "read"),
                           ("--idle-gap", "0", "--batchable-tools", "")]),
)
def test_generated_trees_print_the_clis_bytes(
    tmp_path_factory: pytest.TempPathFactory, capsysbinary: pytest.CaptureFixture[bytes],
    session: bytes, sub: bytes, events: list[bytes], since: str | None, until: str | None,
    output_format: str, show_paths: bool, extra: tuple[str, ...],
) -> None:
    """A generated Claude Code session with a sub-agent file and maybe events logs
    (calls whose ids are reused, repeated starts, orphan ends, ends before their
    starts), maybe cut by a window, in any format: whenever the native ``waves`` takes
    the run, the CLI's bytes."""
    root = tmp_path_factory.mktemp("waves")
    files = {"p/4f1e.jsonl": _claude(session, "h1"),
             "p/4f1e/subagents/agent-a1.jsonl": _claude(sub, "h3")}
    files.update({f"q/run{n}.jsonl": b'{"type":"turn_start","timestamp":1}\n' + data
                  for n, data in enumerate(events)})
    _tree(root, files)
    window = tuple(arg for name, bound in (("--since", since), ("--until", until))
                   if bound is not None for arg in (name, bound))
    taken = _same(capsysbinary, [str(root)], output_format, (*window, *extra), show_paths)
    if since is not None and until is not None and since >= until:
        assert not taken  # the CLI's usage error
    event(f"window {bool(window)}: taken {taken}")


def test_a_well_formed_tree_is_taken(tmp_path: Path,
                                     capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """A tree the generated test may decline (a session, its sub-agent file, two
    projects, one of them gzipped) is taken when its files are well formed."""
    import gzip

    root = _tree(tmp_path / "projects", {
        "p1/aaaa.jsonl": _claude_file(("c1", 0, 2), ("c2", 1, 4), session="aaaa"),
        "p1/aaaa/subagents/agent-a1.jsonl": _claude_file(("c3", 5, 6), session="aaaa"),
        "p2/bbbb.jsonl": _claude_file(("c5", 0, 1), session="bbbb"),
        "p3/cccc.jsonl.gz": gzip.compress(_claude_file(("c7", 0, 3), ("c8", 2, 5),
                                                       session="cccc")),
    })
    for output_format in FORMATS:
        assert _same(capsysbinary, [str(root)], output_format)
        assert _same(capsysbinary, [str(root)], output_format,
                     ("--since", "2025-01-01T00:00:00.500Z"))


@pytest.mark.parametrize("output_format", FORMATS)
def test_no_path_reads_the_standard_locations_as_the_cli_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes], output_format: str,
) -> None:
    """With no PATH and stdin a terminal, the standard locations that exist are read,
    each named on stderr before the read's notes: the CLI's bytes."""

    _home_of_two_sessions(tmp_path, monkeypatch)
    plan = plan_of(["--format", output_format], "waves")
    assert plan is not None and fastwaves.run(plan) == 0
    printed = capsysbinary.readouterr()
    monkeypatch.setattr(_stdin, "stdin_has_data", lambda: False)
    reference = CliRunner().invoke(main, ["waves", "--format", output_format, "--no-cache"])
    assert printed.err.decode().startswith(
        f"wavemetrics: reading {tmp_path}/home/.claude/projects (Claude Code)\n")
    assert (reference.exit_code, printed.out, printed.err) == (
        0, reference.stdout_bytes, reference.stderr_bytes)


@pytest.mark.parametrize("terminal", [False, True])
def test_csv_cells_are_escaped_only_for_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes], terminal: bool,
) -> None:
    """CSV to a pipe is the extension's text, a tool name's ESC written as it is; to a
    terminal the waves come back to Python, which escapes each text cell (as the CLI
    does there: ``printable``)."""
    from wavemetrics.run import fastpath

    trace = tmp_path / "s1.jsonl"
    trace.write_bytes(claude_call("a", 0, 10, tool="R\x1bead") + claude_call("b", 2, 6))
    monkeypatch.setattr(fastpath, "_is_terminal",
                        lambda stream: terminal and stream is sys.stdout)
    plan = plan_of(["--format", "csv", "--no-cache", str(trace)], "waves")
    assert plan is not None and fastwaves.run(plan) == 0
    rows = capsysbinary.readouterr().out.decode().split("\r\n")
    name = "R\\x1bead" if terminal else "R\x1bead"
    assert [row.split(",")[11:13] for row in rows[1:3]] == [["a", name], ["b", "Bash"]]
    assert rows[3:] == [""]


def test_the_cli_s_progress_bar_is_drawn_while_the_extension_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """With stderr a terminal and 20 files, the bar the CLI draws is drawn and cleared;
    stdout and the notes after it are the CLI's bytes."""
    import io

    from tests.test_fastpath import _TerminalBytes
    from wavemetrics.run import fastpath

    contents = {f"s{n:02}.jsonl": _claude_file((f"c{n}", n, n + 2), session=f"s{n:02}")
                for n in range(20)}
    root = _tree(tmp_path / "p", contents)
    terminal = _TerminalBytes()
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(terminal, "utf-8", write_through=True))
    monkeypatch.setattr(fastpath, "_is_terminal",
                        lambda stream: False if stream is sys.stdout else stream.isatty())
    plan = plan_of(["--no-cache", str(root)], "waves")
    assert plan is not None and fastwaves.run(plan) == 0
    sys.stderr.flush()
    err = terminal.getvalue().decode()
    out = capsysbinary.readouterr().out
    reference = _cli([str(root)])
    drawn, _, notes = err.rpartition("\x1b[1A\r\x1b[2K")  # the bar's line, cleared
    assert (out, notes.encode()) == reference[1:]
    assert "reading 20/20 files" in drawn


@pytest.mark.parametrize("name", ["qwen", "codex-tui"])
def test_a_unit_of_a_format_only_python_reads_is_listed_wave_by_wave(
    capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path, name: str
) -> None:
    """A file of a format the extension has no reader for, beside a Claude Code session:
    the Python reader hands its calls over and the extension makes its waves, which the
    native ``waves`` lists with the session's: the CLI's bytes in every format. By hand:
    its three calls are two waves, [0 s, 3 s] of two calls and [10 s, 11 s] of one; the
    session's one call is a third, so the document lists 3 waves."""
    from tests.test_fastpath import _PYTHON_ONLY, _claude_file, _tree, _well_formed
    from tests.trace_builders import CODEX_TUI, QWEN

    data = _well_formed({"qwen": QWEN, "codex-tui": CODEX_TUI}[name])
    root = str(_tree(tmp_path, {_PYTHON_ONLY[name]: data,
                                "p/4f1e.jsonl": _claude_file(("a", 0, 2))}))
    for output_format in FORMATS:
        assert _same(capsysbinary, [root], output_format), output_format
    code, out, _ = _cli(_args([root], "json", (), False))
    assert code == 0
    assert sorted(wave["size"] for wave in json.loads(out)["waves"]) == [1, 1, 2]
