"""The native command (``wavemetrics.run.fastpath``) against the CLI: the same bytes, or a decline.

The CLI (``cli.main``, the Python pipeline with the native readers) is the
reference here: for every run the native command takes, its stdout document,
its stderr lines and its exit status must be the CLI's byte for byte; every
other run it must decline without printing anything. Hypothesis draws whole
trees of Claude Code project folders (sessions, sub-agent folders, old-layout
agent files, sidecars, bad lines) and ``events`` logs; the corpus cases are
compared with their recorded goldens; each decline rule has its own case.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from tests.golden_cases import EXAMPLE, GOLDEN, cases
from tests.strategies import (
    builder_files,
    claude_calls,
    claude_records,
    codex_calls,
    codex_records,
    copilot_calls,
    copilot_records,
    damaged,
    event_calls,
    event_records,
    inspect_eval_files,
    inspect_logs,
    kimi_calls,
    kimi_records,
    mcode_files,
    openclaw_rows,
    otel_files,
    otlp_calls,
    otlp_documents,
    otlp_records,
    trace_files,
)
from tests.trace_builders import CLAUDE as CLAUDE_LINES
from tests.trace_builders import CODEX as CODEX_LINES
from tests.trace_builders import (
    CODEX_TUI,
    COPILOT,
    INSPECT,
    KIMI,
    MCODE,
    OTEL_SPANS,
    OTLP,
    PI,
    QWEN,
    FormatLines,
    iso,
    opencode_store,
    opencode_tool,
)
from tests.trace_builders import EVENTS as EVENT_LINES
from wavemetrics.cache.runcache import options_from_args
from wavemetrics.cli.commands import main
from wavemetrics.core.observations import DEFAULT_MAX_TRACKED_CALLS
from wavemetrics.inputs import _files, _stdin
from wavemetrics.run import _extension, fastpath, native
from wavemetrics.run.plan import plan_of
from wavemetrics.views.escaping import printable
from wavemetrics.views.plain import PLAIN_FORMATS


def _run(args: list[str]) -> int | None:
    """The native command of ``wavemetrics summarize ARGS`` as the entry runs it: on the
    command line's plan, none when the entry leaves the line to click."""
    plan = plan_of(args)
    return None if plan is None else fastpath.run(plan)

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")


def _cli(paths: list[str], *extra: str) -> tuple[int, str, str]:
    """The reference: ``summarize --format json --no-cache PATHS`` through click (a later
    ``--format`` in ``extra`` wins); the bytes as written (``\r\n`` kept)."""
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "--no-cache",
                                       "--jobs", "1", *extra, *paths])
    return (result.exit_code, result.stdout_bytes.decode("utf-8"),
            result.stderr_bytes.decode("utf-8"))


def _native(paths: list[str], jobs: int = 1, forced: str = "auto", output_format: str = "json",
            show_paths: bool = False, terminal: bool = False,
            extra: tuple[str, ...] = ()) -> tuple[int, str, str] | str:
    """The native command's output as the CLI's would read, or its reason to decline;
    ``forced``: its ``--input-format``; ``terminal``: stdout is a terminal; ``extra``:
    more options, as on a command line (the options record is made from them as the
    entry makes it: ``fastpath.options_of``)."""
    options = options_from_args(["--input-format", forced, *extra, *paths])
    window = None if options is None else fastpath.window_of(options)
    record = None if options is None else fastpath.options_of(options, window)
    if record is None:
        return "an option the native command does not take"
    done = fastpath.summarize_json(paths, jobs, show_paths=show_paths, options=record,
                                   window=window, json_by=output_format == "json")
    if isinstance(done, str):
        return done
    if output_format == "json" and record["by"] in (None, *fastpath.BY_DOCUMENT):
        # the document (written with its groups by the extension), the notes before it
        document, lines, _, _ = done
        return 0, document.decode("ascii"), "".join(printable(line) + "\n" for line in lines)
    chunks = fastpath.output_chunks(done, output_format, record, show_paths, terminal,
                                    None if window is None else window.zone)
    if chunks is None:
        return "a figure is not finite"
    return (0, b"".join(data for number, data in chunks if number == 1).decode("utf-8"),
            b"".join(data for number, data in chunks if number == 2).decode("utf-8"))


def _same(paths: list[str], jobs: int = 1, forced: str = "auto", output_format: str = "json",
          show_paths: bool = False, extra: tuple[str, ...] = ()) -> bool:
    """Whether the native command took the run; when it did, its output is the CLI's
    (both with ``--input-format forced``, ``--format output_format``, maybe
    ``--show-paths``, and ``extra``)."""
    got = _native(paths, jobs, forced, output_format, show_paths, extra=extra)
    if isinstance(got, str):
        return False
    assert got == _cli(paths, "--input-format", forced, "--format", output_format,
                       *(["--show-paths"] if show_paths else []), *extra)
    return True


def test_the_cap_is_the_v1_default() -> None:
    """The cap fastpath hands over by default (the option table's spelling, so that the
    core is not imported) is the core's."""
    from wavemetrics.run import _options

    assert _options.DEFAULT_MAX_TRACKED_CALLS == DEFAULT_MAX_TRACKED_CALLS == 2000


def test_the_bundled_example_is_taken_and_identical() -> None:
    """The example (one session with six sub-agent lanes) is read natively, as the CLI."""
    assert _same([str(EXAMPLE)])
    assert _same([str(EXAMPLE)], jobs=3)


@needs_corpus
def test_every_claude_code_codex_and_pi_golden_case_is_taken_with_the_recorded_bytes() -> None:
    """Every corpus case the native command takes prints the recorded golden document, and
    it takes every Claude Code file, Codex rollout, pi session, OTel span document, OTLP
    document and Inspect eval log of the corpus (36, 10, 1, 7, 1 and 1 cases: the last
    three of formats its folded read does not detect, planned by the registry), and the
    Codex TUI recording, a format it has no reader for, read by the Python readers and
    merged natively; the OpenHands and SWE-agent files (errors) and the whole corpus (a
    file with an error) are declined."""
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]
    taken, declined = [], []
    here = os.getcwd()
    os.chdir(CORPUS)
    try:
        for name, args in cases():
            if args[0] != "summarize":
                continue
            done = fastpath.summarize_json([args[-1]], 1)
            if isinstance(done, str):
                declined.append(name)
                continue
            assert (0, done[0].decode("ascii")) == (
                recorded[name]["exit_code"], recorded[name]["stdout"]), name
            taken.append(name)
    finally:
        os.chdir(here)
    claude = [name for name in taken if "claude" in name]
    # the rollouts: agent-sessions' fixture, agentcmd's five, localpush's four (MANIFEST)
    codex = [name for name in taken if "codex_small" in name or "/rollout-" in name]
    spans = [name for name in taken if "any-agent/" in name or "opentelemetry-proto/" in name]
    assert (len(claude), len(codex), len(spans), len(taken)) == (36, 10, 8, 57)
    assert "summarize inspect_ai/2025-05-12T20-27-36-04-00_browser.json" in taken
    assert "summarize openai-codex/binary-size-log.jsonl" in taken
    # and the corpus's pi session
    assert "summarize pi-mono/before-compaction.jsonl" in taken
    assert all("claude" not in name and "rollout" not in name for name in declined)
    assert sorted(declined) == [
        "summarize .", "summarize openhands/basic.json",
        "summarize openhands/basic_gui_mode.json", "summarize openhands/wrong_initial_state.json",
        "summarize swe-agent/marshmallow-1867__function_calling_replace.traj"]


@needs_corpus
@pytest.mark.parametrize("output_format", PLAIN_FORMATS)
@pytest.mark.parametrize("show_paths", [False, True])
def test_every_format_of_the_corpus_claude_folders_is_the_clis(
    output_format: str, show_paths: bool
) -> None:
    """Every ``--format``, with and without ``--show-paths``, of the corpus's Claude Code
    project folders: drawn from the extension's document, the CLI's bytes (the notes,
    the lanes without a v1 payload, CSV's line ends)."""
    assert _same([str(CORPUS / "claude-code-log")], 2, "auto", output_format, show_paths)


#: Options the native command takes beside the format, as on a command line.
_TAKEN_OPTIONS = [
    ("--by", "session"), ("--by", "lane"), ("--by", "project"), ("--by", "tool"),
    ("--by", "tool", "--eval-tool", "Read", "--max-tracked-calls", "2"),
    ("--eval-tool", "Task"), ("--eval-tool", "Bash", "--eval-tool", "read"),
    ("--batchable-tools", "Read,Grep"), ("--batchable-tools", ""),
    ("--idle-gap", "60"), ("--idle-gap", "0"),
    ("--max-tracked-calls", "0"), ("--max-tracked-calls", "3"),
    # time windows: inside the corpus Claude Code folders' weeks (the first two: the
    # corpus test's cuts), inside the generated traces' first seconds (Claude Code) and
    # first ms (events: the generated trees' cuts; on the corpus they keep every wave,
    # or none), before everything (the note of a window that excludes every wave)
    ("--since", "2025-06-19"), ("--until", "2025-07-01T12:00", "--timezone", "Europe/Paris"),
    ("--since", "2025-03-01T10:00:12Z"), ("--until", "2025-03-01T10:00:00.020Z"),
    ("--since", "2025-03-01T10:00:00.010Z", "--until", "2025-03-01T10:00:20",
     "--timezone", "UTC", "--by", "session"),
    ("--until", "2020-01-01"), ("--timezone", "Asia/Tokyo"),
    ("--by", "project", "--max-tracked-calls", "2", "--idle-gap", "1.5"),
    # periods: each lane cut by the period each wave starts in, in local time or a zone
    ("--by", "day"), ("--by", "week", "--timezone", "Asia/Kolkata"),
    ("--by", "month", "--since", "2025-06-19"),
    ("--by", "day", "--max-tracked-calls", "2", "--idle-gap", "1.5", "--eval-tool", "Read",
     "--timezone", "America/St_Johns"),
]


@needs_corpus
@pytest.mark.parametrize("extra", _TAKEN_OPTIONS)
def test_every_option_taken_is_the_clis_in_every_format(extra: tuple[str, ...]) -> None:
    """Each option the native command takes (whole-lane ``--by`` groups, eval and
    batchable names, the idle gap, the per-lane cap: the extension computes the
    figures with them), in every format it allows, with and without ``--show-paths``,
    on the corpus's Claude Code folders: the CLI's bytes."""
    for output_format in PLAIN_FORMATS:
        if "--by" in extra and output_format == "jsonl":
            continue  # a usage error: the CLI's (test above)
        for show_paths in (False, True):
            assert _same([str(CORPUS / "claude-code-log")], 2, "auto", output_format,
                         show_paths, extra), (output_format, show_paths)


def test_a_name_whose_normal_form_is_not_ascii_is_declined() -> None:
    """Rust's lower case can differ from Python's outside ASCII (docs/metrics.md,
    choice 10): such an eval or batchable name leaves the run to the CLI."""
    from wavemetrics.run._options import options_record

    for record in (options_record(eval_tools=["\u0130val"]),
                   options_record(batchable_tools=["read", "GR\u00c9P"])):
        assert fastpath.summarize_json([str(EXAMPLE)], 1, options=record) == (
            "a tool name's normal form is not ASCII")
    assert not isinstance(fastpath.summarize_json(
        [str(EXAMPLE)], 1, options=options_record(eval_tools=[" Code-Mode "])), str)


@needs_corpus
def test_every_format_of_every_golden_case_taken_is_the_clis() -> None:
    """Every corpus case the native command takes (each Claude Code file, Codex rollout,
    pi session, span document and eval log), in each format but JSON (the test above
    holds its bytes to the golden record): the CLI's bytes."""
    taken = 0
    here = os.getcwd()
    os.chdir(CORPUS)
    try:
        for _, args in cases():
            if args[0] == "summarize" and not isinstance(
                    fastpath.summarize_json([args[-1]], 1), str):
                for output_format in ("table", "jsonl", "csv", "markdown"):
                    assert _same([args[-1]], 1, "auto", output_format), (args, output_format)
                taken += 1
    finally:
        os.chdir(here)
    assert taken == 57


@needs_corpus
def test_the_corpus_claude_folders_are_taken_with_their_notes() -> None:
    """The corpus's Claude Code project folders (sessions, subagents/ folders, old-layout
    agent files with their notes on stderr) read as one run: the CLI's bytes."""
    assert _same([str(CORPUS / "claude-code-log")])
    assert _same([str(CORPUS / "claude-code-log")], jobs=4)
    assert _same([str(CORPUS / "agentcmd" / "claude")])


@needs_corpus
def test_a_forced_format_that_every_input_is_is_taken() -> None:
    """``--input-format claude-code`` on Claude Code folders is read natively: the CLI's
    bytes with the forced format (the document's options say ``claude-code``)."""
    assert _same([str(CORPUS / "claude-code-log")], 2, "claude-code")
    assert _same([str(EXAMPLE)], 1, "claude-code")
    got = _native([str(EXAMPLE)], 1, "claude-code")
    assert not isinstance(got, str)
    assert json.loads(got[1])["options"]["input_format"] == "claude-code"


def test_a_forced_events_log_is_taken_and_a_forced_mismatch_declined(tmp_path: Path) -> None:
    """A forced ``events`` on an events log is taken; forcing ``events`` on a Claude Code
    file, ``claude-code`` on a tree with an events log, or a format the extension does
    not read, is declined (the CLI then reads the inputs as forced)."""
    _tree(tmp_path, {"run.jsonl": b"".join(EVENT_LINES.call("f", 1, 2))
                     + b"".join(EVENT_LINES.call("g", 1.5, 3)),
                     "p/s.jsonl": _claude_file(("a", 0, 1), session="s")})
    assert _same([str(tmp_path / "run.jsonl")], 1, "events")
    assert _native([str(tmp_path / "p")], 1, "events") == (
        "an input is not the forced format events")
    assert _native([str(tmp_path)], 1, "claude-code") == (
        "an input is not the forced format claude-code")
    assert _native([str(tmp_path / "run.jsonl")], 1, "codex") == (
        "an input is not the forced format codex")


def _claude_file(*calls: tuple[str, float, float], session: str = "s1") -> bytes:
    lines = b"".join(b"".join(CLAUDE_LINES.call(call_id, start, end))
                     for call_id, start, end in calls)
    return lines.replace(b'"sessionId":"s1"', f'"sessionId":"{session}"'.encode())


def _tree(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def test_a_tree_of_every_common_shape_is_taken(tmp_path: Path) -> None:
    """Two project folders with a session, its subagents/ folder, a sub-agent folder
    without its session, an old-layout agent file, a sidecar, an events log and a file
    with a bad line: one run, the CLI's bytes (notes and skipped_files included)."""
    events = b"".join(EVENT_LINES.call("e1", 1, 3)) + b"".join(EVENT_LINES.call("e2", 2, 5))
    root = _tree(tmp_path / "projects", {
        "p1/aaaa.jsonl": _claude_file(("c1", 0, 2), ("c2", 1, 4), session="aaaa"),
        "p1/aaaa/subagents/agent-a1.jsonl": _claude_file(("c3", 5, 6), session="aaaa"),
        "p1/aaaa/subagents/agent-a1.meta.json": b'{"agentType":"x"}',
        "p1/bbbb/subagents/agent-b1.jsonl": _claude_file(("c4", 0, 1), session="bbbb"),
        "p2/agent-0123abcd.jsonl": _claude_file(("c5", 0, 1), session="cccc"),
        "p2/run.jsonl": events,
        "p2/zz.jsonl": _claude_file(("c6", 0, 3), ("c7", 0, 3), session="zz") + b"{bad\n",
    })
    code, out, err = _cli([str(root)])
    assert code == 0 and "skipped_files" in json.loads(out)
    assert "sub-agent files read without their session" in err
    assert "1 line not usable" in err
    assert _same([str(root)])
    assert _same([str(root / "p2"), str(root / "p1")], jobs=2)
    assert _same([str(root / "p1" / "aaaa.jsonl")])  # its subagents/ not read: a note


def test_a_lane_read_from_two_folders_is_taken(tmp_path: Path) -> None:
    """The same session in two project folders (a moved project): two units, each lane
    counted, the document's repeated_lanes and the note as the CLI writes them."""
    root = _tree(tmp_path, {"a/one.jsonl": _claude_file(("c1", 0, 2), session="same"),
                            "b/two.jsonl": _claude_file(("c9", 1, 3), session="same"),
                            "c/three.jsonl": _claude_file(("c8", 1, 3), session="same")})
    code, out, err = _cli([str(root)])
    assert code == 0
    assert json.loads(out)["repeated_lanes"] == [{
        "session_id": "same", "lane_id": "main",
        "paths": [str(root / "a" / "one.jsonl"), str(root / "b" / "two.jsonl"),
                  str(root / "c" / "three.jsonl")]}]
    assert "was read from 3 inputs" in err
    assert _same([str(root)])


@pytest.mark.parametrize("case", [
    "stdin", "missing", "empty folder", "link to a fifo", "fifo", "not utf-8",
    "no trace format", "copies", "no usable record", "no path", "long line",
])
def test_each_decline_prints_nothing_and_the_cli_runs(tmp_path: Path, case: str) -> None:
    """Each run outside the native command's rules is declined with its reason."""
    good = _claude_file(("c1", 0, 2))
    paths: list[str] = [str(tmp_path / "s.jsonl")]
    (tmp_path / "s.jsonl").write_bytes(good)
    if case == "stdin":
        paths = ["-"]
    elif case == "missing":
        paths.append(str(tmp_path / "absent.jsonl"))
    elif case == "empty folder":
        (tmp_path / "none").mkdir()
        paths.append(str(tmp_path / "none"))
    elif case == "link to a fifo":  # a link to a regular file is read (below)
        os.mkfifo(tmp_path / "f")
        (tmp_path / "l.jsonl").symlink_to(tmp_path / "f")
        paths = [str(tmp_path / "l.jsonl")]
    elif case == "fifo":
        os.mkfifo(tmp_path / "f.jsonl")
        paths = [str(tmp_path)]
    elif case == "not utf-8":
        name = os.fsdecode(b"\xff.jsonl")
        (tmp_path / name).write_bytes(good)
        paths = [str(tmp_path / name)]
    elif case == "no trace format":  # named: an error (found by a walk, it is skipped)
        (tmp_path / "x.json").write_bytes(b'{"hello": 1}\n')
        paths.append(str(tmp_path / "x.json"))
    elif case == "copies":
        _tree(tmp_path, {"a/s.jsonl": good, "b/s.jsonl": good})
        paths = [str(tmp_path / "a"), str(tmp_path / "b")]
    elif case == "no usable record":
        # a Claude Code tool call with no time: a problem line, and no line used
        (tmp_path / "bad.jsonl").write_bytes(CLAUDE_LINES.start_with_time("c2", "null"))
        paths.append(str(tmp_path / "bad.jsonl"))
    elif case == "no path":
        paths = []
    elif case == "long line":  # past the default --max-line-bytes: Python counts it
        (tmp_path / "s.jsonl").write_bytes(
            good + b'{"type":"user","uuid":"z","message":"' + b"x" * (64 << 20) + b'"}\n')
    reasons = {
        "stdin": "stdin cannot be read again",  # the test's stdin: no descriptor
        "missing": "an input cannot be read",
        "empty folder": "an input cannot be read",
        "link to a fifo": "an input is not a regular file",
        "fifo": "an input cannot be read",
        "not utf-8": "a path that is not UTF-8",
        "no trace format": "an input is not read natively",
        "copies": "inputs may repeat each other's content",
        "no usable record": "an input has no usable record",
        "no path": "no file to read",
        "long line": "an input is not read natively",
    }
    assert fastpath.summarize_json(paths, 1) == reasons[case]


def test_links_to_regular_files_are_read_natively_as_the_cli_reads_them(
        tmp_path: Path) -> None:
    """A link to a regular file, named or found by a folder walk, is read through the
    link, as the CLI reads it: the file a link and its target both reach is read once
    (the first path), a link's own name and folder are the input's, and a link to a
    folder is not walked."""
    claude = _claude_file(("c1", 0, 2), ("c2", 1, 3))
    real = tmp_path / "real"
    _tree(real, {"proj/s.jsonl": claude, "other/t.jsonl": _claude_file(("c3", 0, 4))})
    top = tmp_path / "top"
    (top / "proj").mkdir(parents=True)
    (top / "proj" / "l.jsonl").symlink_to(real / "proj" / "s.jsonl")
    (top / "proj" / "m.jsonl").symlink_to(real / "proj" / "s.jsonl")  # the same target
    (top / "proj" / "own.jsonl").write_bytes(_claude_file(("c4", 5, 6)))
    (top / "dir").symlink_to(real / "other")  # a folder link: not walked
    (tmp_path / "named.jsonl").symlink_to(real / "other" / "t.jsonl")
    cases = [
        [str(tmp_path / "named.jsonl")],
        [str(top)],
        [str(top), str(real)],
        [str(real), str(top)],
        [str(real / "other"), str(tmp_path / "named.jsonl")],
    ]
    for paths in cases:
        assert _same(paths), paths
        assert _same(paths, output_format="table"), paths
    # the link's name is the input's: l.jsonl is read, m.jsonl and s.jsonl are the same file
    code, out, _ = _cli([str(top), str(real)])
    assert code == 0
    read = [entry["path"] for entry in json.loads(out)["inputs"]]
    assert read == [str(top / "proj" / "l.jsonl"), str(top / "proj" / "own.jsonl"),
                    str(real / "other" / "t.jsonl")]


@pytest.mark.parametrize(("args", "taken"), [
    (["--format", "json", "--no-cache", "P"], True),
    (["--format=json", "--no-cache", "--jobs", "2", "--engine", "native", "P"], True),
    (["--format", "json", "--no-cache", "-j3", "P"], True),
    (["--format", "json", "--no-cache", "--input-format", "claude-code", "P"], True),
    (["--format", "json", "--no-cache", "--input-format=auto", "P"], True),
    (["--format", "json", "--no-cache", "--input-format", "events", "P"], False),  # read after
    (["--format", "json", "--no-cache", "--input-format", "codex", "P"], False),
    (["--demo", "--format", "json", "--no-cache"], True),  # the bundled example, P
    (["--no-cache", "P"], True),  # the table
    (["--format", "csv", "--no-cache", "P"], True),
    (["--format", "markdown", "--no-cache", "P"], True),
    (["--format", "jsonl", "--no-cache", "-j2", "P"], True),
    (["--format", "table", "--no-cache", "--show-paths", "P"], True),
    (["--format", "json", "--no-cache", "--show-paths", "P"], True),
    (["--format", "table", "--no-cache", "--by", "session", "P"], True),
    (["--format", "csv", "--no-cache", "--by", "project", "P"], True),
    (["--format", "table", "--no-cache", "--idle-gap", "300", "P"], True),
    (["--format", "json", "--no-cache", "--eval-tool", "x", "P"], True),
    (["--format", "json", "--no-cache", "--max-tracked-calls", "5", "P"], True),
    (["--format", "jsonl", "--no-cache", "--batchable-tools", "", "P"], True),
    (["--format", "json", "--no-cache", "--engine", "python", "P"], False),
    (["--format", "json", "--no-cache", "--by", "tool", "P"], True),
    (["--format", "table", "--no-cache", "--by", "tool", "--show-paths", "P"], True),
    (["--format", "json", "--no-cache", "--by", "day", "P"], True),
    (["--format", "table", "--no-cache", "--by", "week", "--show-paths", "P"], True),
    (["--format", "csv", "--no-cache", "--by", "month", "--timezone", "Pacific/Chatham",
      "P"], True),
    (["--format", "jsonl", "--no-cache", "--by", "lane", "P"], False),  # a usage error
    (["--format", "json", "--no-cache", "--since", "2020-01-01", "P"], True),
    (["--no-cache", "--until", "2020-01-01", "P"], True),  # the window's note
    (["--format", "csv", "--no-cache", "--since", "2026-04-18T13:20", "--timezone", "UTC",
      "P"], True),
    (["--format", "json", "--no-cache", "--since", "yesterday", "P"], False),  # usage errors
    (["--format", "json", "--no-cache", "--timezone", "Nowhere/Else", "P"], False),
    (["--format", "json", "--no-cache", "--until", "9999-12-31", "P"], False),
    (["--format", "json", "--no-cache", "--since", "2021-01-01", "--until", "2020-01-01",
      "P"], False),
    (["--format", "json", "--no-cache", "--max-line-bytes", "67108864", "P"], False),
    (["--format", "json", "--no-cache", "--eval-tool", "\u0130val", "P"], False),  # İ
    (["--format", "json", "--no-cache"], False),  # no PATH, no cache: no plan
    (["--format", "json", "--no-cache", "--", "P"], False),
])
def test_only_the_default_options_are_taken(
    args: list[str], taken: bool, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """``run`` takes every ``--format`` and every option but the byte
    limits, ``--engine python``, ``--by`` with groups that need each lane's calls, an
    eval name whose normal form is not ASCII, a window the CLI refuses (its usage error),
    and then prints the CLI's bytes; with anything else it returns None and prints
    nothing."""
    code = _run([a if a != "P" else str(EXAMPLE) for a in ["summarize", *args]][1:])
    printed = capsysbinary.readouterr()
    if taken:
        assert code == 0
        # the CLI given the same arguments
        given = [arg for arg in args if arg != "P"]
        if not any(arg.startswith("--format") for arg in given):
            given = ["--format", "table", *given]  # summarize's default
        reference = _cli([] if "--demo" in args else [str(EXAMPLE)], *given)
        assert (printed.out.decode(), printed.err.decode()) == reference[1:]
    else:
        assert code is None and printed.out == printed.err == b""


class _TerminalBytes(io.BytesIO):
    """What a terminal receives (``isatty``), kept."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("output_format", "stdout", "files", "bar"), [
    ("table", False, 20, True),  # the CLI draws a bar on a terminal's stderr
    ("markdown", False, 25, True),
    ("csv", True, 20, True),  # stdout a terminal too
    ("json", True, 20, True),
    ("table", False, 19, False),  # fewer files than PROGRESS_MIN_FILES: no bar
    ("csv", False, 20, False),  # piped data: no bar
    ("jsonl", False, 20, False),
])
def test_the_cli_s_progress_bar_is_drawn_while_the_extension_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    output_format: str, stdout: bool, files: int, bar: bool,
) -> None:
    """With stderr a terminal, the native command draws the CLI's progress bar when the
    CLI does (``views.plain.show_progress``, 20 files or more): it reaches every file
    and byte (the extension's count), then is cleared; what follows on stderr, and all
    of stdout, are the CLI's bytes."""
    from wavemetrics.cli import commands
    from wavemetrics.views.plain import PROGRESS_MIN_FILES

    assert PROGRESS_MIN_FILES == 20
    contents = {f"s{n:02}.jsonl": _claude_file((f"c{n}", n, n + 2), session=f"s{n:02}")
                for n in range(files)}
    root = _tree(tmp_path / "p", contents)
    terminal = _TerminalBytes()
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(terminal, "utf-8", write_through=True))
    monkeypatch.setattr(fastpath, "_is_terminal",
                        lambda stream: stdout if stream is sys.stdout else stream.isatty())
    assert _run(["--format", output_format, "--no-cache", str(root)]) == 0
    sys.stderr.flush()
    err = terminal.getvalue().decode()
    out = capsysbinary.readouterr().out.decode()
    monkeypatch.setattr(commands, "stdout_is_terminal", lambda: stdout)
    reference = _cli([str(root)], "--format", output_format)
    assert out == reference[1]
    drawn, _, notes = err.rpartition("\x1b[1A\r\x1b[2K")  # the bar's line, cleared
    assert notes == reference[2]
    if bar:  # from none read to every file and byte, then the line ended
        first = drawn.index(f"reading 0/{files} files")
        assert drawn.index(f"reading {files}/{files} files", first) > first
        assert drawn.endswith("100%\x1b[?25h\n")
    else:
        assert (drawn, notes) == ("", err)


#: A file name with a terminal control sequence and a right-to-left override in it.
_EVIL_NAME = "e\x1b[2J\u202e.jsonl"


def test_csv_to_a_terminal_is_escaped_as_the_clis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CSV is data, written as it is to a file or pipe, but escaped on a terminal as the
    tables are (docs/cli.md, "Escaping"): the same bytes as the CLI's either way."""
    from wavemetrics.cli import commands

    trace = tmp_path / _EVIL_NAME
    trace.write_bytes(_claude_file(("c1", 0, 2), ("c2", 1, 3)))
    piped = _native([str(trace)], output_format="csv")
    assert not isinstance(piped, str) and f"lane,{trace},s1,main," in piped[1]
    assert piped == _cli([str(trace)], "--format", "csv")
    shown = _native([str(trace)], output_format="csv", terminal=True)
    assert not isinstance(shown, str) and "\x1b" not in shown[1] and "\u202e" not in shown[1]
    assert f"lane,{tmp_path}/e\\x1b[2J\\u202e.jsonl,s1,main," in shown[1]
    monkeypatch.setattr(commands, "stdout_is_terminal", lambda: True)
    assert shown == _cli([str(trace)], "--format", "csv")


def test_csv_to_a_terminal_is_escaped_by_the_run_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """``run`` looks at stdout itself: a terminal there (stderr not one: no bar) gets the
    CSV escaped, as the CLI's."""
    from wavemetrics.cli import commands

    trace = tmp_path / _EVIL_NAME
    trace.write_bytes(_claude_file(("c1", 0, 2), ("c2", 1, 3)))
    monkeypatch.setattr(fastpath, "_is_terminal", lambda stream: stream is sys.stdout)
    assert _run(["--format", "csv", "--no-cache", str(trace)]) == 0
    out = capsysbinary.readouterr().out.decode()
    assert "\x1b" not in out and "e\\x1b[2J\\u202e.jsonl" in out
    monkeypatch.setattr(commands, "stdout_is_terminal", lambda: True)
    assert out == _cli([str(trace)], "--format", "csv")[1]


def test_notes_the_output_adds_are_escaped(tmp_path: Path) -> None:
    """A JSON Lines note names lanes by their ids, which come from the input: escaped
    on stderr as every note is (docs/cli.md, "Escaping")."""
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(_claude_file(("c1", 0, 2)))
    done = fastpath.summarize_json([str(trace)], 1)
    assert not isinstance(done, str)
    document = json.loads(done[0])
    document["lanes"][0]["lane_id"] = "a\x1b[2Jb"
    document["lanes"][0]["paired_calls"] = 0
    document["lanes"][0]["non_eval_waves_total"] = 0
    chunks = fastpath.output_chunks((json.dumps(document).encode(), [], None, None), "jsonl")
    assert chunks is not None
    err = b"".join(data for number, data in chunks if number == 2).decode()
    assert "s1/a\\x1b[2Jb (no tool calls)" in err and "\x1b" not in err


def test_a_cap_past_what_the_extension_holds_is_the_clis(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """A cap of 2**64 or more does not fit the extension's (a usize): declined here, and
    the CLI's read of it is the Python readers' (same output as ``--engine python``)."""
    from wavemetrics.run._options import MAX_NATIVE_CAP

    assert MAX_NATIVE_CAP == 2**64 - 1
    for cap, taken in ((2**64 - 1, True), (2**64, False)):
        code = _run(["--format", "json", "--no-cache", "--max-tracked-calls", str(cap),
                     str(EXAMPLE)])
        assert (code == 0) is taken
    capsysbinary.readouterr()
    native = _cli([str(EXAMPLE)], "--max-tracked-calls", str(2**64))
    python = _cli([str(EXAMPLE)], "--max-tracked-calls", str(2**64), "--engine", "python")
    assert native == python and native[0] == 0


@pytest.mark.parametrize("encoding", ["ascii", "ascii:replace", "ANSI_X3.4-1968"])
def test_an_ascii_stream_gets_utf_8_as_click_writes_it(tmp_path: Path, encoding: str) -> None:
    """click takes a stream set to ASCII (a C locale) for misconfigured and writes UTF-8
    to it: so does the native command, for the table's ``…`` and a note naming a
    folder ``sé`` (a console-script run, against ``--engine python``'s)."""
    folder = tmp_path / "s\u00e9"
    _tree(folder, {"tw\u00f6.jsonl": _claude_file(("c1", 0, 2), ("c2", 1, 3)) + b"{bad\n"})
    marker = tmp_path / "loaded"
    code = ("import sys\nfrom wavemetrics.cli._entry import main\n"
            "try:\n    main()\nexcept SystemExit as stop:\n    code = stop.code\n"
            f"open({str(marker)!r}, 'w').write(str('wavemetrics.cli.commands' in sys.modules))\n"
            "sys.exit(code)\n")
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    runs = []
    for extra in ([], ["--engine", "python"]):
        done = subprocess.run([sys.executable, "-c", code, "summarize", "--no-cache", *extra,
                               str(EXAMPLE), str(folder)], capture_output=True, env=env,
                              check=False)
        runs.append((done.returncode, done.stdout, done.stderr, marker.read_text()))
    assert runs[0][3] == "False" and runs[1][3] == "True"  # native, then click
    assert runs[0][:3] == runs[1][:3] and runs[0][0] == 0
    assert "\u2026".encode() in runs[0][1] and "s\u00e9".encode() in runs[0][2]


@pytest.mark.parametrize("output_format", ["table", "jsonl", "csv", "markdown"])
def test_a_document_with_a_figure_not_finite_is_the_clis(output_format: str) -> None:
    """A figure JSON holds as ``null`` cannot be read back: every format but JSON (which
    prints the document as it is) is left to the CLI."""
    done = fastpath.summarize_json([str(EXAMPLE)], 1)
    assert not isinstance(done, str)
    document = json.loads(done[0])
    assert fastpath.output_chunks(done, output_format) is not None
    document["total"]["tool_time_ms"] = None
    nulled = (json.dumps(document).encode(), done[1], None, None)
    assert fastpath.output_chunks(nulled, output_format) is None
    assert fastpath.output_chunks(nulled, "json") == [
        *((2, (printable(line) + "\n").encode()) for line in done[1]), (1, nulled[0])]


def test_a_run_whose_document_cannot_be_read_back_prints_nothing(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """``run`` leaves a run whose document holds a ``null`` figure to the CLI (table):
    nothing printed, no exit status."""
    done = fastpath.summarize_json([str(EXAMPLE)], 1)
    assert not isinstance(done, str)
    document = json.loads(done[0])
    document["lanes"][0]["tool_time_ms"] = None
    monkeypatch.setattr(fastpath, "summarize_json",
                        lambda *args, **kwargs: (json.dumps(document).encode(), done[1], None,
                                                           None))
    assert _run(["--no-cache", str(EXAMPLE)]) is None
    assert capsysbinary.readouterr() == (b"", b"")


def _home_of_two_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake ``HOME`` under ``tmp_path`` (no agent's location variable set, the cache
    beside it) whose only standard location is ``.claude/projects``, with one project of
    two sessions (one with a bad line), and stdin a terminal: what a run with no PATH
    reads."""
    for name in ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "CODEX_HOME",
                 "COPILOT_HOME", "KIMI_SHARE_DIR", "QWEN_DATA_DIR", "OPENCODE_DATA_DIR",
                 "KILO_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("WAVEMETRICS_CACHE_DIR", str(tmp_path / "cache"))
    _tree(tmp_path / "home" / ".claude" / "projects", {
        "p/aaaa.jsonl": _claude_file(("c1", 0, 2), ("c2", 1, 4), session="aaaa"),
        "p/bbbb.jsonl": _claude_file(("c3", 0, 1), session="bbbb") + b"{bad\n"})

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())


@pytest.mark.parametrize("output_format", ["json", "csv"])
def test_no_path_reads_the_standard_locations_as_the_cli_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes], output_format: str,
) -> None:
    """With no PATH and stdin a terminal, the standard locations that exist are read
    (docs/cli.md, "No PATH"), each named on stderr before the read's notes: the CLI's
    bytes; a location that appears after the plan leaves the run to the CLI."""

    _home_of_two_sessions(tmp_path, monkeypatch)
    plan = plan_of(["--format", output_format])
    assert plan is not None and plan.files == [str(tmp_path / "home" / ".claude" / "projects")]
    assert fastpath.run(plan) == 0
    printed = capsysbinary.readouterr()
    monkeypatch.setattr(_stdin, "stdin_has_data", lambda: False)
    reference = CliRunner().invoke(main, ["summarize", "--format", output_format, "--no-cache"])
    assert printed.err.decode().startswith(
        f"wavemetrics: reading {tmp_path}/home/.claude/projects (Claude Code)\n")
    assert "1 line not usable" in printed.err.decode()
    assert (printed.out, printed.err) == (reference.stdout_bytes, reference.stderr_bytes)
    # a location found after the plan was made: not the plan's files, the CLI's run
    plan = plan_of(["--format", output_format])
    assert plan is not None
    (tmp_path / "home" / ".codex" / "sessions").mkdir(parents=True)
    assert fastpath.run(plan) is None
    assert capsysbinary.readouterr() == (b"", b"")


def test_streams_without_a_binary_buffer_are_the_clis(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text streams with no ``buffer`` (an embedding's): declined, nothing written."""
    import io

    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert _run(["--format", "json", "--no-cache", str(EXAMPLE)]) is None
    assert sys.stdout.getvalue() == ""


def test_the_console_script_runs_it_without_click(tmp_path: Path) -> None:
    """``wavemetrics summarize --format json`` in a fresh process: the native command runs
    (no click, attrs or reader imported: of the readers' folder only the registry's rows
    and the record types they hand the extension) and prints the CLI's bytes."""
    code = ("import sys\n"
            "sys.argv = ['wavemetrics', 'summarize', '--format', 'json', '--no-cache',"
            f" {str(EXAMPLE)!r}]\n"
            "from wavemetrics.cli._entry import main\n"
            "try:\n    main()\nexcept SystemExit as stop:\n    status = stop.code\n"
            "sys.stdout.flush()\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in"
            " ('click', 'attrs', 'msgspec') or m.startswith('wavemetrics.readers')),"
            " status, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "WAVEMETRICS_CACHE_DIR": str(tmp_path)})
    assert done.stderr == ("['wavemetrics.readers', 'wavemetrics.readers._record_types',"
                           " 'wavemetrics.readers.registry'] 0\n")
    assert done.stdout == _cli([str(EXAMPLE)])[1]


#: What the lean start-up of a summarize run leaves out (docs/performance-history.md, "Eleventh
#: round"): each of these costs 1-9 ms of a cold run's start-up on the benchmark machine.
_START_UP_HEAVY = ("typing", "re", "json", "enum", "hashlib", "_hashlib", "contextlib",
                   "collections", "functools", "threading", "dataclasses", "pathlib")


def test_a_cached_run_of_a_folder_imports_no_heavy_standard_module(tmp_path: Path) -> None:
    """A cold cached run of a folder (key walk, native read, notes, check walk on a thread,
    store) and the served run after it import none of :data:`_START_UP_HEAVY`, and print
    the CLI's bytes."""
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "demo.jsonl").write_bytes(EXAMPLE.read_bytes())
    code = ("import sys\n"
            "sys.argv = ['wavemetrics', 'summarize', '--format', 'json', sys.argv[1]]\n"
            "from wavemetrics.cli._entry import main\n"
            "try:\n    main()\nexcept SystemExit as stop:\n    status = stop.code\n"
            "sys.stdout.flush()\n"
            "print(sorted(m for m in sys.modules if m in sys.argv[2].split(',')),"
            " 'fastpath' if 'wavemetrics.run.fastpath' in sys.modules else 'served',"
            " status, file=sys.stderr)\n")
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", code, str(folder), ",".join(_START_UP_HEAVY)],
                           capture_output=True, text=True, check=True, env=env)
            for _ in range(2)]
    assert [run.stderr for run in runs] == ["[] fastpath 0\n", "[] served 0\n"]
    assert runs[0].stdout == runs[1].stdout == _cli([str(folder)])[1]


def test_the_default_eval_names_are_handed_over_as_they_are() -> None:
    """The native command hands ``EVAL_TOOL_NAMES`` to the extension without normalising
    them (no :mod:`wavemetrics.core.classify` import): they are in normal form already."""
    from wavemetrics.core._eval_names import EVAL_TOOL_NAMES
    from wavemetrics.core.classify import EVAL_TOOL_NAMES as classify_names

    assert _extension.eval_names(EVAL_TOOL_NAMES) == list(EVAL_TOOL_NAMES)
    assert classify_names is EVAL_TOOL_NAMES


def test_the_native_command_reads_the_listing_its_key_was_made_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cache on, the folders are walked once before the read (the key's walk,
    whose files the read takes: no second walk) and once after it (the check); with
    ``--no-cache``, once, without a key."""
    import wavemetrics.inputs._walk

    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "demo.jsonl").write_bytes(EXAMPLE.read_bytes())
    monkeypatch.setenv("WAVEMETRICS_CACHE_DIR", str(tmp_path / "cache"))
    walks: list[bool] = []
    real = wavemetrics.inputs._walk.walk

    def counted(paths: Any, *, key: bool, jobs: int = 1) -> Any:
        walks.append(key)
        return real(paths, key=key, jobs=jobs)

    monkeypatch.setattr(wavemetrics.inputs._walk, "walk", counted)
    monkeypatch.setattr(fastpath, "walk", counted)
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out))
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(io.BytesIO()))
    assert _run(["--format", "json", str(folder)]) == 0
    assert walks == [True, True]
    walks.clear()
    assert _run(["--format", "json", "--no-cache", str(folder)]) == 0
    assert walks == [False]
    sys.stdout.flush()
    first, second = out.getvalue().split(b"\n}\n")[:2]
    assert first + b"\n}\n" == second + b"\n}\n" == _cli([str(folder)])[1].encode()


_FILES = trace_files(claude_records(), claude_calls())
_ROLLOUTS = trace_files(codex_records(), codex_calls())
#: A rollout's first line (it names the session), before generated lines.
_SESSION_META = (b'{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta",'
                 b'"payload":{"id":"0195500a-0000-7000-8000-000000000001"}}\n')


def _claude(data: bytes, uuid: str) -> bytes:
    # a first record only Claude Code writes and one good call (its own ids) after the
    # generated lines, so that most generated files are detected as claude-code with a
    # line used, and the native command takes the run (the rest are declines)
    first = b'{"type":"summary","uuid":"' + uuid.encode() + b'"}\n'
    return first + data + b"\n" + _claude_file((f"call-{uuid}", 50, 51))


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    session=_FILES, resumed=_FILES, sub=_FILES, old=_FILES,
    other=st.one_of(_FILES, damaged(_FILES)),
    events=trace_files(event_records(), event_calls()),
    rollout=st.one_of(_ROLLOUTS, damaged(_ROLLOUTS)),
    layout=st.sets(st.sampled_from(["sub", "old", "other", "events", "sidecar", "codex",
                                    "gzip"])),
    jobs=st.sampled_from([1, 2, 3]),
    forced=st.sampled_from(["auto", "auto", "claude-code", "events"]),
    output_format=st.sampled_from(PLAIN_FORMATS),
    show_paths=st.booleans(),
    extra=st.sampled_from([(), (), *_TAKEN_OPTIONS]),
)
def test_generated_trees_print_the_clis_bytes(
    tmp_path_factory: pytest.TempPathFactory, session: bytes, resumed: bytes, sub: bytes,
    old: bytes, other: bytes, events: bytes, rollout: bytes, layout: set[str], jobs: int,
    forced: str, output_format: str, show_paths: bool, extra: tuple[str, ...],
) -> None:
    """A generated tree (a project with a session and its resumed copy, and some of: a
    subagents/ file, an old-layout agent file, another project's file, maybe damaged, an
    events log, a sidecar, a Codex rollout, maybe damaged, in the project and in a
    sessions folder; maybe the resumed session, the events log and the project's
    rollout gzipped), read with a format detected or forced, in any ``--format``,
    maybe with ``--show-paths`` and an option the native command takes: whenever it
    takes the run, the CLI's bytes."""
    root = tmp_path_factory.mktemp("tree")
    files = {"p/4f1e.jsonl": _claude(session, "h1"), "p/77ab.jsonl": _claude(resumed, "h2")}
    if "sub" in layout:
        files["p/4f1e/subagents/agent-a1.jsonl"] = _claude(sub, "h3")
    if "old" in layout:
        files["p/agent-0a1b2c3d.jsonl"] = _claude(old, "h4")
    if "other" in layout:
        files["q/9c.jsonl"] = other
    if "events" in layout:
        files["q/run.jsonl"] = b'{"type":"turn_start","timestamp":1}\n' + events
    if "sidecar" in layout:
        files["p/4f1e/subagents/agent-a1.meta.json"] = b"{}"
    if "codex" in layout:
        files["s/2025/01/01/rollout-2025-01-01T00-00-00-0195500a-1b2c-7d3e-8f40-1234567"
              "89abc.jsonl"] = _SESSION_META + rollout
        files["p/rollout-0195500a-1b2c-7d3e-8f40-123456789abd.jsonl"] = rollout
    if "gzip" in layout:
        import gzip

        for name in ("p/77ab.jsonl", "q/run.jsonl",
                     "p/rollout-0195500a-1b2c-7d3e-8f40-123456789abd.jsonl"):
            if name in files:
                files[name + ".gz"] = gzip.compress(files.pop(name), mtime=0)
    _tree(root, files)
    if "--by" in extra and output_format == "jsonl":
        extra = ()  # a usage error, never taken
    taken = _same([str(root)], jobs, forced, output_format, show_paths, extra)
    event(f"forced {forced}, codex {'codex' in layout}, gzip {'gzip' in layout}: taken {taken}")


#: The corpus folders the native command takes: those whose files it reads, and
#: openai-codex, whose codex-tui logs the Python readers read for it (the others hold
#: a file the CLI reports as an error).
_NATIVE_CORPUS = ("agent-sessions", "agentcmd", "any-agent", "claude-code-log", "inspect_ai",
                  "localpush", "openai-codex", "opentelemetry-proto", "pi-mono")


@needs_corpus
@pytest.mark.parametrize("output_format", PLAIN_FORMATS)
def test_every_corpus_folder_taken_is_the_clis(output_format: str) -> None:
    """Each corpus folder, in every ``--format``: the native command takes those of
    formats it reads (the registry plans the files of formats its folded read does not
    detect: any-agent's span dicts, the OTLP document, the Inspect eval log) and prints the
    CLI's bytes."""
    taken = {folder.name for folder in sorted(CORPUS.iterdir()) if folder.is_dir()
             and _same([str(folder)], 2, "auto", output_format)}
    assert taken == set(_NATIVE_CORPUS)


@needs_corpus
def test_what_the_registry_s_plan_raises_is_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception of the registry's look at the files the folded read left (a bug, an
    interrupt) is raised by the run, not taken for a decline."""
    from wavemetrics.readers import dispatch

    def failing(path: str, input_format: str = "auto") -> Any:
        raise RuntimeError(f"detection failed on {path}")

    monkeypatch.setattr(dispatch, "detect_input", failing)
    with pytest.raises(RuntimeError, match=r"detection failed on .*_trace\.json"):
        fastpath.summarize_json([str(CORPUS / "any-agent")], 1)


def test_periods_in_local_time_are_the_clis(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``--timezone`` a period is the machine's local one: in St. John's
    (UTC-3:30 in winter), a wave that starts a second before local midnight belongs to
    the day before, however late it ends; a time whose local offset does not fit the
    calendar (10000-01-01T00:00Z) is ``unknown``. The native command's periods and
    the CLI's, in JSON and the table with its paths."""
    import datetime as dt
    import time

    midnight = dt.datetime(2025, 1, 15, 3, 30, tzinfo=dt.timezone.utc)  # 00:00 local
    at = int(midnight.timestamp() * 1000)
    lines = [
        {"type": "tool_execution_start", "toolCallId": "a", "toolName": "bash",
         "timestamp": at - 1000},
        {"type": "tool_execution_start", "toolCallId": "b", "toolName": "grep",
         "timestamp": at + 500},
        {"type": "tool_execution_end", "toolCallId": "a", "timestamp": at + 2000},
        {"type": "tool_execution_end", "toolCallId": "b", "timestamp": at + 3000},
        {"type": "tool_execution_start", "toolCallId": "c", "toolName": "read",
         "timestamp": 253402300800000},
        {"type": "tool_execution_end", "toolCallId": "c", "timestamp": 253402300801000},
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    monkeypatch.setenv("TZ", "America/St_Johns")
    time.tzset()
    try:
        got = _native([str(path)], extra=("--by", "day"))
        assert not isinstance(got, str)
        groups = [row["group"] for row in json.loads(got[1])["groups"]]
        assert groups == ["2025-01-14", "unknown"]
        for output_format, show_paths in (("json", False), ("table", True)):
            assert _same([str(path)], 1, "auto", output_format, show_paths, ("--by", "day"))
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_period_whose_figure_is_not_finite_is_left_to_the_cli(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """A period's figures that do not read back (a ``null``, written for a figure that
    is not finite) leave the run to the CLI, as a lane's do."""
    from wavemetrics.run._options import options_record
    from wavemetrics.views import document

    monkeypatch.setattr(document, "summary_of", lambda entry: None)
    assert fastpath.summarize_json([str(EXAMPLE)], 1, options=options_record(by="week")) == (
        "a period's figure is not finite")


def test_what_labelling_the_periods_raises_is_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception of the labels the extension asks of a ``--by day`` run (a bug, an
    interrupt) is raised by the run, not taken for a decline."""
    from wavemetrics.cli import timewindow
    from wavemetrics.run._options import options_record

    def failing(at_ms: float, period: str, zone: Any) -> str:
        raise RuntimeError(f"no {period} for {at_ms}")

    monkeypatch.setattr(timewindow, "label_of", failing)
    with pytest.raises(RuntimeError, match=r"no day for "):
        fastpath.summarize_json([str(EXAMPLE)], 1, options=options_record(by="day"))


def test_labels_that_do_not_fit_the_times_decline_the_run(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """The extension asks each distinct time's label once, in ascending order; labels
    of another count leave the run to the CLI."""
    from wavemetrics.cli import timewindow
    from wavemetrics.run._options import options_record

    asked: list[float] = []

    def counted(at_ms: float, period: str, zone: Any) -> str:
        asked.append(at_ms)
        return "all"

    monkeypatch.setattr(timewindow, "label_of", counted)
    done = fastpath.summarize_json([str(EXAMPLE)], 1, options=options_record(by="month"))
    assert not isinstance(done, str)
    assert asked == sorted(set(asked)) and len(asked) > 1
    labels, summaries, lanes = done[3] or ([], [], [])
    # one period: every lane's parts merged, the run's total
    assert labels == ["all"] and all(lane == [0] for lane in lanes)
    assert summaries[0].paired_calls == json.loads(done[0])["total"]["paired_calls"]

    real = _extension.extension()
    assert real is not None

    def short_labels(*args: Any, **kwargs: Any) -> Any:
        labels = kwargs["period_labels"]
        kwargs["period_labels"] = lambda times: labels(times)[1:]
        return real.summarize_json(*args, **kwargs)

    class Shim:
        summarize_json = staticmethod(short_labels)

    monkeypatch.setattr(_extension, "extension", lambda: Shim)
    assert fastpath.summarize_json([str(EXAMPLE)], 1, options=options_record(by="day")) == (
        "a unit could not be read natively")


def _openclaw_store(path: Path, rows: list[tuple[object, int, object]]) -> bytes:
    """An OpenClaw store holding ``rows`` (``session_id``, ``seq``, ``event_json``), as
    its bytes."""
    import sqlite3

    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE transcript_events (session_id TEXT, seq INTEGER,"
                       " event_json TEXT, created_at INTEGER)")
    connection.executemany("INSERT INTO transcript_events VALUES (?, ?, ?, 0)", rows)
    connection.commit()
    connection.close()
    data = path.read_bytes()
    path.unlink()
    return data


def _well_formed(lines: FormatLines) -> bytes:
    """Three calls of a format: two in one wave at T0 ([0 s, 2 s], [1 s, 3 s]), one
    alone at 10 s."""
    calls = [*lines.call("c1", 0, 2), *lines.call("c2", 1, 3), *lines.call("c3", 10, 11)]
    return b"".join([*lines.prelude, *calls])


@pytest.mark.parametrize("name", ["copilot", "kimi", "mcode", "otlp", "otel-spans", "inspect",
                                  "openclaw"])
def test_a_well_formed_input_of_each_planned_format_is_taken(tmp_path: Path, name: str) -> None:
    """A well-formed input of each format the registry plans for the extension, beside a
    Claude Code session, is read by the native command, with and without a window
    (``--since`` 5 s: the lone call's wave alone), in JSON and the table: the CLI's
    bytes."""
    builders = {"copilot": COPILOT, "kimi": KIMI, "mcode": MCODE, "otlp": OTLP,
                "otel-spans": OTEL_SPANS, "inspect": INSPECT}
    paths = {"copilot": "copilot/4f1e2d3c-0000-4000-8000-000000000001/events.jsonl",
             "kimi": "kimi/sessions/a1/b2/wire.jsonl", "mcode": "mcode/run-1.jsonl",
             "otlp": "otlp/spans.jsonl", "otel-spans": "agents/trace.jsonl",
             "inspect": "evals/log.json"}
    if name == "openclaw":
        lines = _well_formed(PI).decode().splitlines()
        files = {"openclaw/agent.sqlite": _openclaw_store(
            tmp_path / "store.tmp", [("s1", seq, line) for seq, line in enumerate(lines)])}
    else:
        files = {paths[name]: _well_formed(builders[name])}
    files["p/4f1e.jsonl"] = _claude_file(("a", 0, 2))
    root = str(_tree(tmp_path / "tree", files))
    for extra in ((), ("--since", iso(5))):
        for output_format in ("json", "table"):
            assert _same([root], 2, "auto", output_format, False, extra), (extra, output_format)


def _opencode_db(path: Path) -> bytes:
    """An opencode store of one session with :func:`_well_formed`'s three calls, as its
    bytes."""
    parts = [(f"p{k}", "m1", "s1", opencode_tool(f"c{k}", "bash", "completed", start, end))
             for k, (start, end) in enumerate([(0, 2), (1, 3), (10, 11)])]
    opencode_store(str(path), [("s1", None)], parts)
    data = path.read_bytes()
    path.unlink()
    return data


#: A file of each format the extension has no reader for, where a tree holds it.
_PYTHON_ONLY = {"qwen": "qwen/tmp/h1/chats/session-1.jsonl",
                "codex-tui": "codex/log/session-1.jsonl", "opencode": "opencode/opencode.db"}


@pytest.mark.parametrize("name", sorted(_PYTHON_ONLY))
def test_a_unit_of_a_format_only_python_reads_is_merged_natively(
    tmp_path: Path, name: str
) -> None:
    """A well-formed input of each format the extension has no reader for, beside a
    Claude Code session: the Python readers read its unit and the native command merges
    it with the session it read, in every format and with ``--by session``: the CLI's
    bytes. Its three calls, by hand: [0 s, 2 s] and [1 s, 3 s] are one wave of span
    3 s, 4 s of calls, so 1000 ms saved; [10 s, 11 s] is alone. The session's one call
    saves nothing: the total is 1000.0 ms over 4 paired calls."""
    data = (_opencode_db(tmp_path / "store.tmp") if name == "opencode"
            else _well_formed({"qwen": QWEN, "codex-tui": CODEX_TUI}[name]))
    root = str(_tree(tmp_path / "tree", {_PYTHON_ONLY[name]: data,
                                         "p/4f1e.jsonl": _claude_file(("a", 0, 2))}))
    got = _native([root])
    assert not isinstance(got, str), got
    document = json.loads(got[1])
    assert [i["format"] for i in document["inputs"]] == (
        [name, "claude-code"] if name != "qwen" else ["claude-code", name])
    saved = [(lane["paired_calls"], lane["modeled_wallclock_saved_ms"])
             for lane in document["lanes"]]
    assert sorted(saved) == [(1, 0.0), (3, 1000.0)]
    assert (document["total"]["paired_calls"],
            document["total"]["modeled_wallclock_saved_ms"]) == (4, 1000.0)
    for output_format in PLAIN_FORMATS:
        assert _same([root], 2, "auto", output_format), output_format
    assert _same([root], 1, "auto", "table", False, ("--by", "session"))
    assert _same([root], 1, "auto", "json", False, ("--max-tracked-calls", "1",
                                                     "--eval-tool", "bash"))
    # forced to its format, named alone
    assert _same([str(Path(root) / _PYTHON_ONLY[name])], 1, name)


def test_a_file_of_no_trace_found_by_a_folder_walk_is_skipped_as_the_cli_skips_it(
    tmp_path: Path,
) -> None:
    """A file a folder walk found that holds no trace (no format recognises its first
    lines) is skipped by the CLI, not read: the native command skips it too. It is no
    input of the document; it joins the sidecars in ``skipped_files``, in path order,
    and the note says so: the CLI's bytes in every format, and with a window."""
    root = _tree(tmp_path / "tree", {
        "p/4f1e.jsonl": _claude_file(("a", 0, 2)),
        "p/4f1e/subagents/agent-a1.meta.json": b"{}",
        "p/notes.jsonl": b'{"hello": 1}\n',
        "q/x.json": b"[1, 2]\n",
    })
    got = _native([str(root)])
    assert not isinstance(got, str), got
    document = json.loads(got[1])
    assert [Path(i["path"]).name for i in document["inputs"]] == ["4f1e.jsonl"]
    assert [(Path(e["path"]).name, e["reason"]) for e in document["skipped_files"]] == [
        ("agent-a1.meta.json", _files.SIDECAR_REASON),
        ("notes.jsonl", _files.SKIPPED_UNRECOGNISED),
        ("x.json", _files.SKIPPED_UNRECOGNISED)]
    for output_format in PLAIN_FORMATS:
        assert _same([str(root)], 2, "auto", output_format), output_format
    assert _same([str(root)], 1, "auto", "table", False, ("--since", iso(1)))


def test_a_file_of_no_trace_the_cli_reports_leaves_the_run_to_it(tmp_path: Path) -> None:
    """Where the CLI reports a file of no trace as an error (exit 1), the native command
    declines: the file named on the command line; a named folder whose every file is
    skipped (no trace, or a sidecar); and under a forced format, which reads every file
    as that format."""
    session = _tree(tmp_path / "s", {"p/4f1e.jsonl": _claude_file(("a", 0, 2))})
    stray = _tree(tmp_path / "stray", {"x.jsonl": b'{"hello": 1}\n', "y.meta.json": b"{}"})
    cases = {
        "named": ([str(session), str(stray / "x.jsonl")], "auto"),
        "only skipped": ([str(session), str(stray)], "auto"),
        "forced": ([str(tmp_path)], "claude-code"),
    }
    for name, (paths, forced) in cases.items():
        assert _native(paths, forced=forced) == "an input is not read natively", name
        assert _cli(paths, "--input-format", forced)[0] == 1, name


def test_an_opencode_storage_folder_is_taken(tmp_path: Path) -> None:
    """opencode's older JSON storage: a folder of session, message and part files, read
    as one unit by the Python reader; its message files hold no trace the registry
    recognises and are skipped, as the CLI skips them. Beside a Claude Code session, with
    and without ``--by tool`` and a window: the CLI's bytes."""
    from tests.test_readers_opencode_storage import _write_storage

    storage = _write_storage(tmp_path / "tree" / "data")
    (storage / "part" / "msg_B" / "prt_06.json").unlink()  # its broken part: an error
    _tree(tmp_path / "tree", {"p/4f1e.jsonl": _claude_file(("a", 0, 2))})
    root = str(tmp_path / "tree")
    got = _native([root])
    assert not isinstance(got, str), got
    formats = {i["format"] for i in json.loads(got[1])["inputs"]}
    assert formats == {"claude-code", "opencode-storage"}
    for extra in ((), ("--by", "tool"), ("--since", "2020-01-01")):
        for output_format in ("json", "table"):
            assert _same([root], 1, "auto", output_format, False, extra), (extra, output_format)


@pytest.mark.parametrize("content", [b"", b"\n  \n", "gzip"])
def test_an_empty_input_is_taken_with_the_clis_note(tmp_path: Path, content: bytes | str) -> None:
    """An empty input (no byte, blank lines only, a gzip stream of nothing), alone or
    beside a session: detection (Python's) finds it empty, its read gives the CLI's
    "empty input" note and no lane, and the native command prints the CLI's bytes."""
    import gzip

    data = gzip.compress(b"") if content == "gzip" else content
    assert isinstance(data, bytes)
    (tmp_path / "e.jsonl").write_bytes(data)
    (tmp_path / "s.jsonl").write_bytes(_claude_file(("c1", 0, 2)))
    empty = str(tmp_path / "e.jsonl")
    got = _native([empty])
    assert not isinstance(got, str), got
    assert (json.loads(got[1])["lanes"], got[2]) == ([], f"wavemetrics: note: {empty}: empty input\n")
    for paths in ([empty], [str(tmp_path)]):
        for output_format in PLAIN_FORMATS:
            assert _same(paths, 1, "auto", output_format), (paths, output_format)


@pytest.mark.parametrize("name", sorted(_PYTHON_ONLY))
@pytest.mark.parametrize("extra", [("--since", iso(5)), ("--until", iso(2.5)), ("--by", "tool"),
                                   ("--by", "day"), ("--by", "month", "--timezone", "UTC")])
def test_a_unit_of_a_format_only_python_reads_hands_over_its_calls_when_the_run_needs_them(
    tmp_path: Path, name: str, extra: tuple[str, ...]
) -> None:
    """A window or a ``--by`` that cuts lanes or counts calls needs each lane's calls:
    the Python reader reads the unit in batch, as the CLI then does, and hands over its
    observations, which the extension summarises (and cuts, and counts) as it does its
    own: the CLI's bytes in JSON, the table and CSV. By hand, for ``--since`` 5 s: the
    lone call at 10 s is all the window keeps of the three (no saving); for ``--by
    tool``: the three are ``bash`` calls (qwen and opencode name them so) or
    ``exec_command`` (Codex TUI), two of them in a multi-call wave."""
    data = (_opencode_db(tmp_path / "store.tmp") if name == "opencode"
            else _well_formed({"qwen": QWEN, "codex-tui": CODEX_TUI}[name]))
    root = str(_tree(tmp_path / "tree", {_PYTHON_ONLY[name]: data,
                                         "p/4f1e.jsonl": _claude_file(("a", 0, 2))}))
    got = _native([root], extra=extra)
    assert not isinstance(got, str), got
    if extra[0] == "--since":
        lanes = json.loads(got[1])["lanes"]
        assert [(lane["paired_calls"], lane["modeled_wallclock_saved_ms"])
                for lane in lanes] == [(1, 0.0)]
    for output_format in ("json", "table", "csv"):
        assert _same([root], 2, "auto", output_format, False, extra), output_format


@pytest.mark.parametrize("extra", [(), ("--since", iso(0))])
def test_a_unit_python_reports_more_of_than_its_figures_leaves_the_run_to_the_cli(
    tmp_path: Path, extra: tuple[str, ...]
) -> None:
    """A qwen file whose every record is a problem is an error the CLI reports (exit 1):
    its unit is not handed over, and the run is declined, streamed or in batch."""
    bad = QWEN.start_with_time("c1", "null")
    root = str(_tree(tmp_path, {_PYTHON_ONLY["qwen"]: bad,
                                "p/4f1e.jsonl": _claude_file(("a", 0, 2))}))
    assert _native([root], extra=extra) == "an input is not read natively"
    assert _cli([root], *extra)[0] == 1


_GZIP_FORMATS = {
    "claude-code": (CLAUDE_LINES, "p/4f1e.jsonl.gz"), "codex": (CODEX_LINES, "c/rollout.jsonl.gz"),
    "events": (EVENT_LINES, "e/log.jsonl.gz"), "pi": (PI, "pi/session.jsonl.gz"),
    "copilot": (COPILOT, "copilot/4f1e2d3c-0000-4000-8000-000000000001/events.jsonl.gz"),
    "kimi": (KIMI, "kimi/sessions/a1/b2/wire.jsonl.gz"), "mcode": (MCODE, "mcode/r.jsonl.gz"),
    "otlp": (OTLP, "otlp/spans.jsonl.gz"), "otel-spans": (OTEL_SPANS, "agents/t.jsonl.gz"),
}


@pytest.mark.parametrize("name", sorted(_GZIP_FORMATS))
def test_a_gzip_input_of_each_line_format_is_taken(tmp_path: Path, name: str) -> None:
    """A gzip file of each format whose Python reader reads it through ``Source``
    (decompressed), beside a plain Claude Code session, is read by the native command:
    the CLI's bytes, in JSON and the table; its three calls are counted (two in one
    wave, one alone)."""
    import gzip

    lines, path = _GZIP_FORMATS[name]
    files = {path: gzip.compress(_well_formed(lines)), "q/5a2b.jsonl": _claude_file(("a", 0, 2))}
    root = str(_tree(tmp_path, files))
    got = _native([root])
    assert not isinstance(got, str), got
    lanes = json.loads(got[1])["lanes"]
    assert sorted(lane["paired_calls"] for lane in lanes) == [1, 3]
    for output_format in ("json", "table"):
        assert _same([root], 2, "auto", output_format), output_format
    assert _same([str(tmp_path / path)], 1, name)  # forced to its format, named alone


def test_a_gzip_file_of_several_members_is_read_whole(tmp_path: Path) -> None:
    """``gzip`` reads member after member (``cat a.gz b.gz``): so does the native read;
    the two members' calls are one lane of 3 paired calls."""
    import gzip

    content = _claude_file(("c1", 0, 2), ("c2", 1, 3), ("c3", 10, 11))
    cut = content.index(b"\n", len(content) // 2) + 1
    path = tmp_path / "s.jsonl.gz"
    path.write_bytes(gzip.compress(content[:cut]) + gzip.compress(content[cut:]))
    got = _native([str(path)])
    assert not isinstance(got, str), got
    assert json.loads(got[1])["total"]["paired_calls"] == 3
    assert _same([str(path)])


@pytest.mark.parametrize("case", ["cut short", "crc", "zero padding", "trailing bytes",
                                  "named .gz, not gzip", "empty .gz", "inspect"])
def test_a_gzip_file_python_may_read_otherwise_is_left_to_it(tmp_path: Path, case: str) -> None:
    """Every gzip input whose read ``gzip`` could make otherwise than flate2 is declined
    (the CLI reads it: its lines before the damage, then the input's error, or more):
    a stream cut short, a wrong CRC-32, zero bytes after the last member (``gzip``
    skips them), other bytes after it, a ``.gz`` name on plain content; and an
    ``inspect`` log, whose Python reader opens files itself. An empty ``.gz`` file is
    not read by the extension either, but it is no gzip stream: Python's detection finds
    it empty, and its Python read (the note, no lane) is merged natively: taken, with
    the CLI's bytes."""
    import gzip

    good = _claude_file(("c1", 0, 2), ("c2", 1, 3))
    packed = gzip.compress(good)
    damaged_files = {
        "cut short": packed[:-12], "crc": packed[:-8] + bytes([packed[-8] ^ 1]) + packed[-7:],
        "zero padding": packed + bytes(16), "trailing bytes": packed + b"x",
        "named .gz, not gzip": good, "empty .gz": b"",
        "inspect": gzip.compress(_well_formed(INSPECT)),
    }
    path = tmp_path / ("log.json.gz" if case == "inspect" else "s.jsonl.gz")
    path.write_bytes(damaged_files[case])
    if case == "empty .gz":
        assert _same([str(path)])
    else:
        assert isinstance(_native([str(path)]), str)
    code, out, err = _cli([str(path)])
    # what the CLI makes of it: exit status, calls paired, the error's words. Cut 12
    # bytes short, the stream loses its 8-byte trailer and the end of its last line
    # (c2's end): c1 alone is paired. Damage found at the trailer or after it comes
    # once every line is read: both calls. A gzipped Inspect log: its three calls.
    want = {
        "cut short": (1, 1, "compressed stream ended early (file cut short)"),
        "crc": (1, 2, "not a valid gzip file (CRC check failed"),
        "zero padding": (0, 2, ""), "trailing bytes": (1, 2, "(no gzip header)"),
        "named .gz, not gzip": (1, 0, "(no gzip header)"), "empty .gz": (0, 0, "empty input"),
        "inspect": (0, 3, ""),
    }[case]
    assert (code, json.loads(out)["total"]["paired_calls"]) == want[:2]
    assert want[2] in err and (err == "") == (want[2] == "")


def test_an_eval_archive_in_a_folder_is_taken(tmp_path: Path) -> None:
    """A ``.eval`` archive (Inspect's zip: a header and one member per sample, the
    three calls of :func:`_well_formed` as three samples) beside a Claude Code session:
    the registry plans it, the extension reads it, with and without a window, in JSON
    and the table: the CLI's bytes."""
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({"eval": {"eval_id": "ev1"}}))
        for number, log in enumerate(_well_formed(INSPECT).splitlines()):
            (sample,) = json.loads(log)["samples"]
            archive.writestr(f"samples/{number}_epoch_1.json", json.dumps(sample))
    root = str(_tree(tmp_path / "tree", {"evals/run.eval": out.getvalue(),
                                         "p/4f1e.jsonl": _claude_file(("a", 0, 2))}))
    for extra in ((), ("--since", iso(5))):
        for output_format in ("json", "table"):
            assert _same([root], 2, "auto", output_format, False, extra), (extra, output_format)


_OTHERS = {
    "copilot/4f1e2d3c-0000-4000-8000-000000000001/events.jsonl":
        trace_files(copilot_records(), copilot_calls()),
    "kimi/sessions/a1/b2/wire.jsonl": trace_files(kimi_records(), kimi_calls()),
    "mcode/run-1.jsonl": mcode_files(),
    "otlp/spans.jsonl": trace_files(otlp_records(), otlp_calls()),
    "otlp/trace.json": otlp_documents(),
    "agents/trace.json": otel_files(),
    "evals/log.json": inspect_logs(),
    "evals/log.eval": inspect_eval_files(),
    # formats the extension has no reader for: the Python readers read them for it
    _PYTHON_ONLY["qwen"]: builder_files(QWEN),
    _PYTHON_ONLY["codex-tui"]: builder_files(CODEX_TUI),
}


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    chosen=st.sets(st.sampled_from([*_OTHERS, "store"]), min_size=1, max_size=2),
    contents=st.fixed_dictionaries({name: st.one_of(files, files, files, damaged(files))
                                    for name, files in _OTHERS.items()}),
    rows=openclaw_rows(),
    session=st.one_of(st.none(), _FILES),
    output_format=st.sampled_from(PLAIN_FORMATS),
    extra=st.sampled_from([(), ("--max-tracked-calls", "3"), ("--by", "session"),
                           ("--eval-tool", "read"), ("--since", "2025-03-01T10:00:12Z")]),
)
def test_units_of_formats_the_folded_read_does_not_detect_are_read_natively(
    tmp_path_factory: pytest.TempPathFactory, chosen: set[str], contents: dict[str, bytes],
    rows: list[tuple[object, int, object]], session: bytes | None, output_format: str,
    extra: tuple[str, ...],
) -> None:
    """A tree of Copilot, Kimi, mcode, OTLP (lines and a document), OTel span, Inspect
    (a ``.json`` log and a ``.eval`` archive), OpenClaw, qwen and Codex TUI inputs,
    maybe damaged, maybe beside a Claude Code session: the registry plans the files the
    extension's folded read does not detect, the extension reads their units (the
    Python readers those of qwen and Codex TUI, which it has no reader for), and
    whenever the native command takes the run, the CLI's bytes."""
    root = tmp_path_factory.mktemp("others")
    files = {name: contents[name] for name in chosen if name in _OTHERS}
    if "store" in chosen:
        files["openclaw/agent.sqlite"] = _openclaw_store(root / "store.tmp", rows)
    if session is not None:
        files["p/4f1e.jsonl"] = _claude(session, "h1")
    _tree(root, files)
    if "--by" in extra and output_format == "jsonl":
        extra = ()  # a usage error, never taken
    taken = _same([str(root)], 2, "auto", output_format, False, extra)
    event(f"taken {taken}")


#: Window bounds across the generated events' times (10:00:00.000 to .041 on
#: 2025-03-01, UTC) and Claude Code's (10:00:00 to 10:00:38).
_BOUNDS = [f"2025-03-01T10:00:00.{ms:03d}Z" for ms in (0, 5, 12, 20, 21, 33, 41)] + [
    "2025-03-01T10:00:02.5Z", "2025-03-01T10:00:15Z"]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    events=st.lists(trace_files(event_records(), event_calls()), min_size=1, max_size=2),
    session=st.one_of(st.none(), _FILES),
    since=st.one_of(st.none(), st.sampled_from(_BOUNDS)),
    until=st.one_of(st.none(), st.sampled_from(_BOUNDS)),
    output_format=st.sampled_from(["json", "table", "csv"]),
    extra=st.sampled_from([(), ("--max-tracked-calls", "3"), ("--by", "session"),
                           ("--eval-tool", "read", "--idle-gap", "0")]),
)
def test_a_window_cuts_each_lane_as_the_cli_does(
    tmp_path_factory: pytest.TempPathFactory, events: list[bytes], session: bytes | None,
    since: str | None, until: str | None, output_format: str, extra: tuple[str, ...],
) -> None:
    """Events logs (calls whose ids are reused, repeated starts, orphan ends, ends before
    their starts, turns, a turn total that overflows) and maybe a Claude Code session,
    cut by a ``--since``/``--until`` window (docs/cli.md, "Time windows"): whenever the
    native command takes the run, the CLI's bytes, the window's note included (a run of
    well-formed inputs is taken: ``test_a_well_formed_input_of_each_planned_format_is_taken``
    and the corpus tests assert it)."""
    root = tmp_path_factory.mktemp("window")
    files = {f"q/run{n}.jsonl": b'{"type":"turn_start","timestamp":1}\n' + data
             for n, data in enumerate(events)}
    if session is not None:
        files["p/4f1e.jsonl"] = _claude(session, "h1")
    _tree(root, files)
    window = tuple(arg for name, bound in (("--since", since), ("--until", until))
                   if bound is not None for arg in (name, bound))
    taken = _same([str(root)], 2, "auto", output_format, False, (*window, *extra))
    if since is not None and until is not None and since >= until:
        assert not taken  # the CLI's usage error (the bounds sort as times here)
    event(f"window {bool(window)}: taken {taken}")


#: Contents for the look for copies: two files that share their first 4096 bytes and
#: their size (a possible copy), one with that head and another size, two short files
#: of one size with other heads, and a gzip member (its ISIZE trailer: 13, the size
#: of the short ones).
_PREFIX = _claude_file(*((f"p{n}", n, n + 0.5) for n in range(12)), session="s")
_HEADS = {
    "long-a": _PREFIX + _claude_file(("ta", 90, 91), session="s"),
    "long-b": _PREFIX + _claude_file(("tb", 90, 91), session="s"),
    "longer": _PREFIX + _claude_file(("tcc", 90, 91), session="s"),
    "short-x": b'{"type":"x"}\n',
    "short-y": b'{"type":"y"}\n',
    "gzip": b"\x1f\x8b\x08\x00\x0d\x00\x00\x00",
}
assert len(_PREFIX) > 4096 and len(_HEADS["long-a"]) == len(_HEADS["long-b"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# both outcomes, whatever the draws: a possible copy (one stem, size and head), a run
# taken with two files of one stem (heads that differ), and one of a gzip member
@example([("a", "s", "long-a"), ("b", "s", "long-b")], 2)
@example([("a", "s", "long-a"), ("b", "s", "longer")], 1)
@example([("a", "s", "short-x"), ("c/subagents", "s", "gzip")], 2)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c/subagents", "d"]),
                          st.sampled_from(["s", "t", "agent-1"]),
                          st.sampled_from(sorted(_HEADS))),
                min_size=1, max_size=6, unique_by=lambda f: (f[0], f[1])),
       st.sampled_from([1, 2]))
def test_the_extension_finds_the_copies_copy_candidates_finds(
    tmp_path_factory: pytest.TempPathFactory, named: list[tuple[str, str, str]], jobs: int
) -> None:
    """The extension looks for possible copies before it reads (``command::may_repeat``)
    by the rule of ``_files.copy_candidates``: it declines exactly when that finds a
    group (files sharing a stem, a size and their first 4 KiB; a gzip file's ISIZE), and
    a run it takes with files of one stem prints the CLI's bytes."""
    root = tmp_path_factory.mktemp("copies")
    _tree(root, {f"{folder}/{stem}.jsonl": _HEADS[content] for folder, stem, content in named})
    files = [path for path, _ in _files.expand_entries([str(root)], {}, [], set())]
    got = _native([str(root)], jobs)
    may_repeat = got == "inputs may repeat each other's content"
    assert may_repeat == bool(_files.copy_candidates(files))
    event(f"may repeat: {may_repeat}, taken: {not isinstance(got, str)}")
    if not isinstance(got, str):
        assert got == _cli([str(root)])


def test_a_generated_tree_is_taken_when_its_files_are_well_formed(tmp_path: Path) -> None:
    """The generated shapes above are taken when every file is a trace (so that the
    property compares runs, not only declines): the same tree of built calls."""
    files: dict[str, Any] = {
        "p/4f1e.jsonl": _claude_file(("a", 0, 1), session="4f1e"),
        "p/77ab.jsonl": _claude_file(("b", 0, 2), session="77ab"),
        "p/4f1e/subagents/agent-a1.jsonl": _claude_file(("c", 1, 2), session="4f1e"),
        "p/agent-0a1b2c3d.jsonl": _claude_file(("d", 0, 1), session="old"),
        "q/9c.jsonl": _claude_file(("e", 0, 3), session="9c"),
        "q/run.jsonl": b"".join(EVENT_LINES.call("f", 1, 2)),
        "p/4f1e/subagents/agent-a1.meta.json": b"{}",
    }
    _tree(tmp_path, files)
    assert _same([str(tmp_path)], 2)


def test_a_declined_run_leaves_its_key_in_the_plan_for_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the cache on, the key the lookup took before any read stays in the plan when
    the native command declines the run: the native command takes no other, and the CLI
    that runs next records under it without walking the inputs again."""
    from wavemetrics.cache import runcache

    monkeypatch.setenv("WAVEMETRICS_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "x.jsonl").write_bytes(b'{"hello": 1}\n')  # no trace: declined
    args = ["--format", "json", str(tmp_path / "x.jsonl")]
    plan = plan_of(args)
    assert plan is not None
    assert runcache.serve(plan) is None  # a miss: the key is taken, kept in the plan
    state = plan.state()
    assert state is not None
    assert state[0] == runcache.run_key(plan.options, plan.files)

    def walks_again(*args: Any) -> Any:
        raise AssertionError("the inputs were walked again")

    monkeypatch.setattr(runcache, "fingerprint", walks_again)
    assert fastpath.run(plan) is None
    assert plan.state() is state
    recording = runcache.Recording(plan.options, plan)
    recording.inputs(plan.files)
    assert (recording.key, recording.parts) == state


@pytest.mark.parametrize("ending", ["stored", "broken pipe", "store fails", "notes raise"])
def test_the_check_thread_is_waited_for_however_the_run_ends(
        ending: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The after-read check (runcache.Again) is started once per cached run, after the
    notes, and always waited for before the run returns or raises."""
    from wavemetrics.cache import runcache
    from wavemetrics.views import notes

    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "demo.jsonl").write_bytes(EXAMPLE.read_bytes())
    monkeypatch.setenv("WAVEMETRICS_CACHE_DIR", str(tmp_path / "cache"))
    events: list[str] = []
    real_again = runcache.Again

    class Counted(real_again):  # type: ignore[misc,valid-type]
        def start(self) -> None:
            events.append("started")
            super().start()

        def result(self) -> Any:
            found = super().result()
            events.append("waited")  # once the wait has ended
            return found

    monkeypatch.setattr(runcache, "Again", Counted)
    real_notes = notes.read_notes

    def noting(*args: Any) -> Any:
        events.append("notes")
        if ending == "notes raise":
            raise RuntimeError("notes")
        return real_notes(*args)

    monkeypatch.setattr(notes, "read_notes", noting)
    if ending == "broken pipe":
        monkeypatch.setattr(runcache, "write_chunks", lambda chunks: False)
    if ending == "store fails":
        def fails(self: Any) -> Any:
            raise OSError("no cache folder")
        monkeypatch.setattr(runcache, "default_store", lambda: fails(None))
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out))
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(io.BytesIO()))
    args = ["--format", "json", str(folder)]
    if ending == "notes raise":
        with pytest.raises(RuntimeError):
            _run(args)
        assert events == ["notes"]  # raised before the check started
        return
    assert _run(args) == (1 if ending == "broken pipe" else 0)
    assert events[0] == "notes" and events[1] == "started"
    assert events.count("started") == 1 and "waited" in events
    assert events[-1] == "waited"
    stored = runcache.RunStore(str(tmp_path / "cache" / runcache.RUNS_FOLDER)).count()
    assert stored == (1 if ending == "stored" else 0)


def test_by_project_json_is_grouped_by_the_extension_with_each_format_s_rule(
        tmp_path: Path) -> None:
    """``--by project --format json``: the extension writes the ``--by`` document, each
    input's project asked of the registry's rules once (a Codex or pi header's ``cwd``,
    a Claude Code transcript's project folder, none for ``events`` or a Python-read
    ``codex-tui`` log): taken natively, the CLI's bytes, and the groups by hand."""
    rollout = tmp_path / "codex" / "rollout-2025-01-01T00-00-00-0199a213.jsonl"
    pi = tmp_path / "pi" / "2025-01-01_s1.jsonl"
    claude = tmp_path / "-home-u-proj" / "4f1e.jsonl"
    events = tmp_path / "events.jsonl"
    tui = tmp_path / "tui" / "codex-tui.log.jsonl"
    pi_lines = attrs.evolve(PI, prelude=(json.dumps(
        {"type": "session", "id": "s1", "timestamp": iso(0), "cwd": "/w/pi"}).encode() + b"\n",))
    for path, lines in ((rollout, CODEX_LINES), (pi, pi_lines), (claude, CLAUDE_LINES),
                        (events, EVENT_LINES), (tui, CODEX_TUI)):
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(_well_formed(lines))
    paths = [str(tmp_path)]
    assert _same(paths, extra=("--by", "project"))
    taken = _native(paths, extra=("--by", "project"))
    assert not isinstance(taken, str)
    document = json.loads(taken[1])
    assert document["by"] == "project" and "lanes" not in document
    # the Codex header's cwd is "/w"; each input holds one lane of 3 calls, 1 multi wave
    groups = {group["group"]: group["non_eval_waves_multi"] for group in document["groups"]}
    assert groups == {"/w": 1, "/w/pi": 1, str(claude.parent): 1, "(not recorded)": 2}
