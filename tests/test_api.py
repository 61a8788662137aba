"""summarize_paths: the document ``summarize --format json`` prints, as one Python call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import wavemetrics
from tests.corpus import CORPUS, needs_corpus
from tests.golden_cases import EXAMPLE
from wavemetrics.cli.commands import main
from wavemetrics.run.api import summarize_paths

#: A real Claude Code session with six sub-agents (the bundled example's source) and
#: five Codex rollouts, one file of which is read alone.
CLAUDE_FOLDER = CORPUS / "claude-code-log" / "-experiments-worktrees"
CODEX_FOLDER = CORPUS / "agentcmd" / "codex"
CODEX_FILE = CODEX_FOLDER / "rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"


def _cli_json(*args: str) -> tuple[int, Any]:
    """``wavemetrics summarize --format json ARGS``: exit status and the parsed document."""
    result = CliRunner().invoke(main, ["summarize", "--format", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, json.loads(result.stdout)


def test_the_bundled_example_equals_the_console_script_output(tmp_path: Path) -> None:
    """On the bundled example, the dict is json.loads of what the installed command prints
    (through the console script's own path: the stored outputs and the native command),
    with the README's figures: 7 lanes, 117 paired calls, 2021.75 s saved."""
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "wavemetrics", "summarize", "--format", "json",
                           str(EXAMPLE)], capture_output=True, text=True, env=env, check=True)
    document = summarize_paths(EXAMPLE)
    assert document == json.loads(done.stdout)
    assert (len(document["lanes"]), document["total"]["paired_calls"],
            document["total"]["modeled_wallclock_saved_ms"]) == (7, 117, 2021753.0)


def test_the_window_of_the_example_matches_the_command() -> None:
    """--since 13:40 UTC keeps 4 of the 7 lanes and 421.331 s of the 2021.753 s saved,
    as the command says with the same options."""
    options = ("--since", "2026-04-18T13:40", "--timezone", "UTC")
    document = summarize_paths(str(EXAMPLE), since="2026-04-18T13:40", timezone="UTC")
    assert document == _cli_json(*options, str(EXAMPLE))[1]
    assert (len(document["lanes"]), document["total"]["modeled_wallclock_saved_ms"]) == (
        4, 421331.0)


@needs_corpus
@pytest.mark.parametrize(("options", "kwargs"), [
    ((), {}),
    (("--engine", "python"), {"engine": "python"}),
    (("--by", "session"), {"by": "session"}),
    (("--by", "tool"), {"by": "tool"}),
    (("--by", "day", "--timezone", "UTC"), {"by": "day", "timezone": "UTC"}),
    (("--eval-tool", "Bash", "--eval-tool", "Read"), {"eval_tools": ["Bash", "Read"]}),
    (("--max-tracked-calls", "5"), {"max_tracked_calls": 5}),
    (("--max-tracked-calls", "0"), {"max_tracked_calls": 0}),
    (("--until", "2026-04-18T13:30", "--timezone", "UTC"),
     {"until": "2026-04-18T13:30", "timezone": "UTC"}),
    (("--jobs", "2"), {"jobs": 2}),
    (("--batchable-tools", "Read,Grep", "--idle-gap", "1.5"),
     {"batchable_tools": ["Read", "Grep"], "idle_gap_ms": 1500.0}),
    (("--batchable-tools", "", "--idle-gap", "0", "--by", "day", "--timezone", "UTC"),
     {"batchable_tools": [], "idle_gap_ms": 0, "by": "day", "timezone": "UTC"}),
])
def test_corpus_folders_equal_the_command_option_by_option(
    options: tuple[str, ...], kwargs: dict[str, Any]
) -> None:
    """On a corpus Claude Code folder (sub-agents) and a Codex rollout, each option gives
    the document the command prints with the same option."""
    paths = (str(CLAUDE_FOLDER), str(CODEX_FILE))
    status, expected = _cli_json(*options, *paths)
    assert status == 0
    assert summarize_paths(CLAUDE_FOLDER, CODEX_FILE, **kwargs) == expected


@needs_corpus
def test_a_forced_format_equals_the_command() -> None:
    """input_format is --input-format: the Codex folder read as codex, 5 inputs."""
    document = summarize_paths(CODEX_FOLDER, input_format="codex", cache=True)
    assert document == _cli_json("--input-format", "codex", str(CODEX_FOLDER))[1]
    assert [i["format"] for i in document["inputs"]] == ["codex"] * 5


def test_unreadable_inputs_are_reported_in_the_document_not_raised(tmp_path: Path) -> None:
    """A missing file is an input with its error, as the command reports it (exit 1):
    the other input is still summarised, and nothing is raised."""
    missing = tmp_path / "nope.jsonl"
    document = summarize_paths(EXAMPLE, missing)
    status, expected = _cli_json(str(EXAMPLE), str(missing))
    assert (status, document) == (1, expected)
    errors = [(i["path"], i["error"] is not None) for i in document["inputs"]]
    assert errors == [(str(EXAMPLE), False), (str(missing), True)]
    assert document["total"]["modeled_wallclock_saved_ms"] == 2021753.0


def test_the_document_is_the_same_with_the_cache(tmp_path: Path) -> None:
    """cache=True reads through the read cache; the document does not change, twice."""
    first = summarize_paths(EXAMPLE, cache=True)
    assert summarize_paths(EXAMPLE, cache=True) == first == summarize_paths(EXAMPLE)


@pytest.mark.parametrize(("args", "kwargs", "error", "message"), [
    ((["a.jsonl"],), {}, TypeError,
     "summarize_paths() takes each path as its own argument: summarize_paths(*paths),"
     " not summarize_paths(paths)"),
    ((3,), {}, TypeError, "summarize_paths() takes paths as str or os.PathLike of str, not int"),
    ((b"a.jsonl",), {}, TypeError,
     "summarize_paths() takes paths as str or os.PathLike of str, not bytes"),
    ((), {}, ValueError,
     "summarize_paths() needs at least one path (a file, a folder or '-')"),
    (("a",), {"eval_tools": "eval"}, TypeError,
     "eval_tools is a collection of names, not one str: write eval_tools=['eval']"),
    (("a",), {"eval_tools": []}, ValueError,
     "eval_tools is empty: give one name or more, or None for the defaults"),
    (("a",), {"max_tracked_calls": -1}, ValueError,
     "max_tracked_calls must be >= 0 (0: unbounded), not -1"),
    (("a",), {"by": "hour"}, ValueError,
     "by must be one of session, lane, project, day, week, month, tool, not 'hour'"),
    (("a",), {"engine": "rust"}, ValueError, "engine must be one of python, native, not 'rust'"),
    (("a",), {"jobs": 0}, ValueError, "max_line_bytes, max_document_bytes and jobs must be >= 1"),
    (("a",), {"since": "2026-02-01", "until": "2026-01-01", "timezone": "UTC"}, ValueError,
     "--since 2026-02-01 is not before --until 2026-01-01"),
    (("a",), {"input_format": "csv"}, ValueError, "unknown input format 'csv'"),
    (("a",), {"batchable_tools": "read"}, TypeError,
     "batchable_tools is a collection of names, not one str: write batchable_tools=['read']"),
    (("a",), {"idle_gap_ms": -1.0}, ValueError,
     "idle_gap_ms must be finite and >= 0 (0 disables idle detection)"),
    (("a",), {"idle_gap_ms": float("nan")}, ValueError,
     "idle_gap_ms must be finite and >= 0 (0 disables idle detection)"),
    (("a",), {"idle_gap_ms": "90"}, TypeError, "idle_gap_ms must be a number of ms"),
])
def test_bad_arguments_raise_with_a_message(
    args: tuple[Any, ...], kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    """Wrong types are TypeErrors and bad option values ValueErrors, each with its message
    (the window's is the command's usage error), before any file is read."""
    with pytest.raises(error) as raised:
        summarize_paths(*args, **kwargs)
    assert str(raised.value) == message


def test_summarize_paths_is_public_and_imported_on_first_use() -> None:
    """wavemetrics.summarize_paths is in __all__, and `import wavemetrics` alone does not
    import its module (the package's lazy imports keep start-up fast)."""
    assert "summarize_paths" in wavemetrics.__all__
    assert wavemetrics.summarize_paths is summarize_paths
    code = "import sys, wavemetrics; print('wavemetrics.run.api' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout == "False\n"
