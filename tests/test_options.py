"""wavemetrics.run._options: ``summarize``'s options declared once (the click command, the
served path's parser and the native command all read the table), the options record
every output carries, its JSON text for the native command, and the table's arguments
(docs/cli.md, "Options in the output")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tests.event_traces import write_events
from wavemetrics.cache import runcache
from wavemetrics.cli.commands import compare, summarize, timeline, waves
from wavemetrics.core import activity
from wavemetrics.core.observations import DEFAULT_MAX_TRACKED_CALLS
from wavemetrics.readers.limits import DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_LINE_BYTES
from wavemetrics.run import _options, fastpath
from wavemetrics.run._options import (
    FORMATS,
    OPTION_KEYS,
    SUMMARIZE,
    Option,
    non_default_arguments,
    option,
    options_json,
    options_record,
    parse_names,
    parse_seconds,
)


def test_the_defaults_are_the_cli_s() -> None:
    """The light module spells the core's and the limits' defaults: 2000, 64 MiB, 256 MiB."""
    assert (_options.DEFAULT_MAX_TRACKED_CALLS, _options.DEFAULT_MAX_LINE_BYTES,
            _options.DEFAULT_MAX_DOCUMENT_BYTES) == (
        DEFAULT_MAX_TRACKED_CALLS, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_DOCUMENT_BYTES) == (
        2000, 67_108_864, 268_435_456)


def test_the_section_9_defaults_are_the_core_s() -> None:
    """The light module spells the batchable names and the 5-minute gap of the core."""
    assert _options.BATCHABLE_TOOL_NAMES == activity.BATCHABLE_TOOL_NAMES
    assert _options.DEFAULT_IDLE_GAP_MS == activity.DEFAULT_IDLE_GAP_MS == 5 * 60 * 1000.0


@pytest.mark.parametrize(("text", "names"), [
    ("read", ["read"]), ("Read, Grep", ["Read", "Grep"]), ("a,,b,", ["a", "b"]),
    ("", []), (",", []), (" , ", []),
])
def test_batchable_tools_are_split_at_commas(text: str, names: list[str]) -> None:
    assert parse_names(text) == names


@pytest.mark.parametrize(("text", "ms"), [
    ("300", 300000.0), ("0", 0.0), ("0.5", 500.0), ("1e1", 10000.0), (" 2 ", 2000.0),
])
def test_the_idle_gap_is_seconds_kept_as_ms(text: str, ms: float) -> None:
    """seconds * 1000: 0.5 s is 500 ms, 1e1 s is 10 s."""
    assert parse_seconds(text) == ms
    assert isinstance(parse_seconds(text), float)


@pytest.mark.parametrize(("text", "message"), [
    ("-1", "'-1': the gap must be >= 0 seconds (0 disables idle time)"),
    ("nan", "'nan': the gap must be a finite number of seconds"),
    ("inf", "'inf': the gap must be a finite number of seconds"),
    ("five", "'five' is not a number of seconds"),
])
def test_a_bad_idle_gap_is_a_usage_error(text: str, message: str) -> None:
    """The parser refuses it, the served path leaves it to click, and click exits 2
    with the parser's words."""
    with pytest.raises(ValueError, match="seconds"):
        parse_seconds(text)
    assert runcache.options_from_args(["--idle-gap", text, "x"]) is None
    for command in (summarize, waves, compare):
        result = CliRunner().invoke(command, [f"--idle-gap={text}", "."])
        assert result.exit_code == 2
        assert f"Invalid value for '--idle-gap': {message}" in result.output


def test_the_options_reach_the_document(tmp_path: Path) -> None:
    """--batchable-tools and --idle-gap are recorded as given (names, ms) right after
    the eval names."""
    trace = tmp_path / "t.jsonl"
    write_events(trace, [("tool_execution_start", "a", "read", 0, "main"),
                         ("tool_execution_end", "a", "read", 1, "main")])
    result = CliRunner().invoke(summarize, [
        str(trace), "--format", "json", "--no-cache", "--engine", "python",
        "--batchable-tools", "Read, mcp__fs__read", "--idle-gap", "90"])
    assert result.exit_code == 0, result.output
    options = json.loads(result.output)["options"]
    assert list(options)[1:5] == ["eval_tools", "batchable_tools", "idle_gap_ms",
                                  "max_tracked_calls"]
    assert options["batchable_tools"] == ["Read", "mcp__fs__read"]
    assert options["idle_gap_ms"] == 90000.0  # 90 s


def test_the_default_record() -> None:
    """Every key, in order; the eval names as a list; nothing given is ``None``."""
    record = options_record()
    assert list(record) == list(OPTION_KEYS)
    assert record == {
        "input_format": "auto", "eval_tools": ["eval", "codemode", "code_mode"],
        "batchable_tools": ["read", "read_file", "view", "grep", "glob", "ls", "list",
                            "list_dir", "list_directory", "find", "search", "search_files",
                            "webfetch", "web_fetch", "websearch", "web_search"],
        "idle_gap_ms": 300000.0, "max_tracked_calls": 2000, "max_line_bytes": 67_108_864,
        "max_document_bytes": 268_435_456, "since": None, "until": None, "timezone": None,
        "by": None,
    }


def _nested(record: dict[str, Any]) -> str:
    """The reference: the value of ``"options"`` in ``json.dumps({...}, indent=2)``."""
    text = json.dumps({"options": record}, indent=2)
    return text[len('{\n  "options": '):-len("\n}")]


_TEXT = st.text(max_size=12)


@given(st.fixed_dictionaries({
    "input_format": _TEXT, "eval_tools": st.lists(_TEXT, max_size=4),
    "batchable_tools": st.lists(_TEXT, max_size=4),
    "idle_gap_ms": st.floats(min_value=0, allow_infinity=False, allow_nan=False),
    "max_tracked_calls": st.none() | st.integers(min_value=1, max_value=2**70),
    "max_line_bytes": st.integers(min_value=1), "max_document_bytes": st.integers(min_value=1),
    "since": st.none() | _TEXT, "until": st.none() | _TEXT, "timezone": st.none() | _TEXT,
    "by": st.none() | _TEXT,
}))
def test_options_json_is_json_dumps_byte_for_byte(record: dict[str, Any]) -> None:
    """Any record (any text: quotes, backslashes, control characters, non-ASCII; an
    empty list) is written as ``json.dumps(..., indent=2)`` writes it one
    level deep, the text the native command writes into its document."""
    assert options_json(record) == _nested(record)


def test_the_default_text() -> None:
    """The text the native command hands to the extension, written out by hand."""
    names = "".join(f'      "{name}",\n' for name in (
        "read", "read_file", "view", "grep", "glob", "ls", "list", "list_dir",
        "list_directory", "find", "search", "search_files", "webfetch", "web_fetch",
        "websearch"))
    assert options_json(options_record()) == (
        '{\n    "input_format": "auto",\n    "eval_tools": [\n      "eval",\n'
        '      "codemode",\n      "code_mode"\n    ],\n    "batchable_tools": [\n'
        + names + '      "web_search"\n    ],\n    "idle_gap_ms": 300000.0,\n'
        '    "max_tracked_calls": 2000,\n'
        '    "max_line_bytes": 67108864,\n    "max_document_bytes": 268435456,\n'
        '    "since": null,\n    "until": null,\n    "timezone": null,\n    "by": null\n  }')


def test_only_options_off_their_default_become_arguments() -> None:
    """Defaults give none; the defaults given again give none; the others come in key
    order, the cap 0 for unbounded, names shell-quoted."""
    assert non_default_arguments(options_record()) == []
    assert non_default_arguments(options_record(
        eval_tools=("eval", "codemode", "code_mode"), max_tracked_calls=2000,
        idle_gap_ms=300000, batchable_tools=_options.BATCHABLE_TOOL_NAMES)) == []
    assert non_default_arguments(options_record(
        by="day", timezone="UTC", until="2026-04-19T00:00:00+00:00", max_tracked_calls=None,
        eval_tools=["it's"], input_format="pi", max_document_bytes=10,
        batchable_tools=["Read", "my tool"], idle_gap_ms=500.0)) == [
        "--input-format", "pi", "--eval-tool", "'it'\"'\"'s'",
        "--batchable-tools", "'Read,my tool'", "--idle-gap", "0.5",
        "--max-tracked-calls", "0",
        "--max-document-bytes", "10", "--until", "2026-04-19T00:00:00+00:00",
        "--timezone", "UTC", "--by", "day"]


#: summarize's parameters in --help order, written out by hand.
NAMES = ["paths", "input_format", "eval_tools", "batchable_tools", "idle_gap_ms",
         "max_tracked_calls", "max_line_bytes",
         "max_document_bytes", "jobs", "no_cache", "since", "until", "timezone", "demo",
         "output_format", "by", "show_paths", "engine"]


def _declared(parameter: click.Parameter) -> dict[str, Any]:
    """What a click parameter declares that a table row also says."""
    facts: dict[str, Any] = {"name": parameter.name, "flags": tuple(parameter.opts),
                             "metavar": parameter.metavar}
    if isinstance(parameter, click.Argument):
        return {**facts, "flags": (), "kind": "argument"}
    assert isinstance(parameter, click.Option)
    # the two options click reads as text and converts by a callback
    converted = {"_names": "names", "_seconds": "seconds"}
    callback = getattr(parameter.callback, "__name__", "")
    kind = ("flag" if parameter.is_flag else "multiple" if parameter.multiple
            else converted[callback] if callback in converted
            else "cap" if isinstance(parameter.type, click.IntRange) and parameter.type.min == 0
            else "positive" if isinstance(parameter.type, click.IntRange)
            else "choice" if isinstance(parameter.type, click.Choice) else "text")
    choices = tuple(parameter.type.choices) if kind == "choice" else ()  # type: ignore[attr-defined]
    # none given: click's own marker for "unset" (a flag's is False)
    default = parameter.default if isinstance(parameter.default, str | int) else None
    return {**facts, "flags": (*parameter.opts, *parameter.secondary_opts), "kind": kind,
            "help": parameter.help, "default": None if kind == "flag" else default,
            "show_default": parameter.show_default or False, "choices": choices}


def _row(row: Option) -> dict[str, Any]:
    facts: dict[str, Any] = {"name": row.name, "flags": row.flags, "metavar": row.metavar}
    if row.kind == "argument":
        return {**facts, "kind": "argument"}
    formats = ("auto", "events", "qwen", "claude-code", "codex", "codex-tui", "pi", "otlp",
               "otel-spans", "inspect", "mcode", "copilot", "kimi", "openclaw", "opencode",
               "opencode-storage")
    choices = formats if row.choices == FORMATS else row.choices
    return {**facts, "kind": row.kind, "help": row.help, "default": row.default_value(),
            "show_default": row.show_default, "choices": choices}


def test_summarize_s_parameters_are_the_table_s_one_for_one() -> None:
    """A parameter added to the command and not to the table (or the other way) fails."""
    assert [row.name for row in SUMMARIZE] == NAMES
    assert [_declared(parameter) for parameter in summarize.params] == [
        _row(row) for row in SUMMARIZE]


def test_the_rows_say_what_the_help_has_always_said() -> None:
    """A few rows against the values docs/cli.md gives, written out by hand."""
    assert option("jobs").flags == ("--jobs", "-j")
    assert option("jobs").default_value() == len(os.sched_getaffinity(0))
    assert option("max_tracked_calls").default == 2000
    assert option("max_line_bytes").default == 64 * 1024 * 1024
    assert option("max_document_bytes").default == 256 * 1024 * 1024
    assert option("output_format").choices == ("table", "json", "jsonl", "csv", "markdown")
    assert option("max_tracked_calls").help == (
        "Cap on calls held per lane (the v1 contract's); 0 means unbounded, at about"
        " 200 bytes of memory per call held.")
    assert option("eval_tools").help == (
        "An eval (code-execution) tool name; repeatable; replaces the defaults"
        " (eval, codemode, code_mode).")


def test_keyed_and_native_options() -> None:
    """--jobs, --engine and --no-cache never change an output (not keyed); the native
    command takes every option but the byte limits (--by only with whole-lane groups:
    tests/test_fastpath.py)."""
    assert [row.name for row in SUMMARIZE if not row.keyed] == ["jobs", "no_cache", "engine"]
    assert {row.name for row in SUMMARIZE} - fastpath._OPTIONS == {
        "max_line_bytes", "max_document_bytes"}
    assert list(runcache._keyed({})) == [name for name in NAMES
                                         if name not in ("jobs", "no_cache", "engine")]


def test_other_commands_share_the_rows_of_the_options_they_share() -> None:
    shared = {row.name: _row(row) for row in SUMMARIZE}
    for command, names in ((waves, [*NAMES[:14], "show_paths"]), (timeline, NAMES[:14]),
                           (compare, NAMES[2:8])):
        mine = {parameter.name: _declared(parameter) for parameter in command.params}
        assert [mine[name] for name in names] == [shared[name] for name in names]


def _form(flag: str, value: str, glued: bool) -> list[str]:
    if not glued:
        return [flag, value]
    return [f"{flag}={value}"] if flag.startswith("--") else [flag + value]


_WORDS = st.text(st.sampled_from("abcXYZ019_./"), min_size=1, max_size=6)
_VALUES = {
    "text": _WORDS, "multiple": _WORDS,
    "positive": st.integers(1, 10**6).map(str), "cap": st.integers(0, 10**6).map(str),
    # commas, spaces and empty names among the names; seconds as a float or an int
    "names": st.lists(st.text(st.sampled_from("abR_ ,"), max_size=6), max_size=3).map(",".join),
    "seconds": (st.floats(0, 10**6, allow_nan=False).map(repr)
                | st.integers(0, 10**6).map(str)),
}


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    """A valid ``summarize`` command line: any of the table's options, in any order and
    spelling (``--flag value``, ``--flag=value``, ``-j2``), and paths among them."""
    pieces: list[list[str]] = [[path] for path in draw(st.lists(_WORDS, max_size=3))]
    for row in draw(st.lists(st.sampled_from(SUMMARIZE[1:]), max_size=8)):
        flag = draw(st.sampled_from(row.flags))
        if row.kind == "flag":
            pieces.append([flag])
            continue
        if row.kind == "choice":
            value = draw(st.sampled_from(("auto", "events", "pi") if row.choices == FORMATS
                                         else row.choices))
        else:
            value = draw(_VALUES[row.kind])
        pieces.append(_form(flag, value, draw(st.booleans())))
    order = draw(st.permutations(pieces))
    return [token for piece in order for token in piece]


@given(command_lines())
def test_the_served_path_parses_every_table_option_as_click_does(args: list[str]) -> None:
    ctx = summarize.make_context("summarize", list(args))
    assert runcache.options_from_args(args) == runcache.options_from_click(ctx)


def test_the_table_module_stays_light() -> None:
    """The served path parses argv with the table before click loads: importing it
    loads two leaf modules of the package (and their folders) and no click."""
    code = ("import sys, wavemetrics.run._options\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('wavemetrics', 'click')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    # and the two folders they are in, whose __init__.py is a docstring alone
    assert done.stdout.split("\n")[-2] == str([
        "wavemetrics", "wavemetrics.core", "wavemetrics.core._eval_names", "wavemetrics.run",
        "wavemetrics.run._cores", "wavemetrics.run._options"])
