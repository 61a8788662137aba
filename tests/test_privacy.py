"""The privacy canary (``docs/metrics.md`` section 7): content never leaves wavemetrics.

For every format of ``wavemetrics.readers.dispatch.FORMATS`` with a builder
(``tests/trace_builders.py``), a trace carries a unique secret in its
arguments, results, prompts, outputs and file contents, in unknown fields and
record types' payloads, and in lines that are invalid (bad JSON, not UTF-8,
not an object, a bad timestamp, cut short); an unrecognised file, a gzip file
cut short and a file falsely named ``.gz`` carry it too. Tool names, call ids,
times, record types and paths are output by design, so the secret is never put
there. No output of any command and format, no stderr line, no exception and
no ``repr``/``str`` of the public objects may contain it.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.trace_builders import BUILDERS, FormatLines
from wavemetrics import assemble_waves, summarize
from wavemetrics.cli.commands import main
from wavemetrics.readers.dispatch import FORMATS
from wavemetrics.run.pipeline import analyse, read_inputs

SECRET = "CANARY-7f3a9c"
FORMATS_UNDER_TEST = [name for name in BUILDERS if name in FORMATS]


def _with_key(line: bytes, raw: bytes) -> bytes:
    return line.rstrip(b"\r\n")[:-1] + b"," + raw + b"}\n"


def _secret_trace(b: FormatLines) -> bytes:
    secret = SECRET.encode()
    third = b.call("c", 5, 6, content=SECRET)
    lines = [
        *(_with_key(line, b'"unknownField":"' + secret + b'"') for line in b.prelude),
        *b.call("a", 1, 3, content=SECRET),
        *b.call("b", 2, 4, content=f"{SECRET} in a file: print('{SECRET}')"),
        *b.chatter(SECRET),
        _with_key(b.unknown[0], b'"payload_text":"' + secret + b'"'),
        _with_key(third[0], b'"extra":{"deep":["' + secret + b'"]}'),
        b'{"broken": "' + secret + b'"\n',
        b'["' + secret + b'"]\n',
        b'"' + secret + b'"\n',
        b'{"x": "' + secret + b'\xff"}\n',
        _with_key(third[0], b'"nan":NaN,"s":"' + secret + b'"'),
        _with_key(b.start_with_time("t", "null"), b'"s":"' + secret + b'"'),
        b'{"type": "' + secret + b' as a value, not a type", "x": 1',
    ]
    return b"".join(lines)


def _write_inputs(b: FormatLines, folder: Path) -> Path:
    """A folder of inputs: the trace, an unrecognised file, a cut gzip and a fake gzip."""
    folder.mkdir(parents=True)
    trace = _secret_trace(b)
    assert SECRET.encode() in trace
    (folder / "trace.jsonl").write_bytes(trace)
    (folder / "noise.jsonl").write_bytes(b"\x00\x01 " + SECRET.encode() + b" \xff\n" * 3)
    compressor = zlib.compressobj(wbits=31)
    cut = compressor.compress(trace) + compressor.flush(zlib.Z_SYNC_FLUSH)
    (folder / "cut.jsonl.gz").write_bytes(cut[: len(cut) * 2 // 3])
    (folder / "fake.jsonl.gz").write_bytes(SECRET.encode() + b"\n" + trace)
    return folder


def _invocations(folder: Path, fmt: str, tmp_path: Path) -> list[list[str]]:
    path = str(folder)
    runs = []
    for input_format in ("auto", fmt):
        common = ["--input-format", input_format, path]
        runs += [["summarize", "--format", out, *common]
                 for out in ("table", "json", "jsonl", "csv", "markdown")]
        runs += [["summarize", "--by", by, "--format", out, *common]
                 for by in ("project", "day", "tool") for out in ("table", "csv", "markdown")]
        runs += [["waves", "--format", out, *common] for out in ("table", "json", "csv")]
        runs += [["timeline", "-o", str(tmp_path / f"t-{input_format}.svg"), *common]]
        runs += [["report", "-o", str(tmp_path / f"r-{input_format}.html"), *common]]
    bench = tmp_path / "bench"
    for side in ("base", "cand"):
        (bench / side / "task1").mkdir(parents=True)
        (bench / side / "task1" / "trial.jsonl").write_bytes(_secret_trace(BUILDERS[fmt]))
    for out in ("table", "json", "markdown"):
        runs.append(["compare", "--format", out, "--resamples", "20",
                     str(bench / "base"), str(bench / "cand")])
    runs.append(["report", "--compare", str(bench / "base"), str(bench / "cand"),
                 "--resamples", "20", "-o", str(tmp_path / "r-compare.html")])
    runs += [["cache", "info"], ["cache", "clear"], ["statusline"]]  # stdin: test below
    return runs


def _assert_clean(text: str, where: str) -> None:
    assert SECRET not in text, f"secret leaked in {where}"
    assert SECRET.lower() not in text.lower(), f"secret leaked (case-folded) in {where}"


@pytest.mark.parametrize("fmt", FORMATS_UNDER_TEST)
def test_no_command_output_or_message_contains_trace_content(fmt: str, tmp_path: Path) -> None:
    """No stdout, stderr, written picture or page, or exception of any command shows trace
    content."""
    folder = _write_inputs(BUILDERS[fmt], tmp_path / "in")
    summary = CliRunner().invoke(main, ["summarize", "--format", "json", str(folder)])
    read = json.loads(summary.stdout)["total"]["paired_calls"]
    assert read >= 2, "the trace must actually be read for the canary to mean anything"
    for args in _invocations(folder, fmt, tmp_path):
        result = CliRunner().invoke(main, args)
        where = " ".join(args[:3])
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            where, result.exc_info
        )
        _assert_clean(result.stdout, f"stdout of {where}")
        _assert_clean(result.stderr, f"stderr of {where}")
        if result.exception is not None:
            _assert_clean(repr(result.exception), f"exception of {where}")
    for picture in [*tmp_path.glob("t-*.svg"), *tmp_path.glob("r-*.html")]:
        _assert_clean(picture.read_text(errors="replace"), picture.name)


@pytest.mark.parametrize("fmt", FORMATS_UNDER_TEST)
def test_status_line_and_cache_hold_no_trace_content(fmt: str, tmp_path: Path,
                                                     private_cache: Path) -> None:
    """The status line of each file, and the cache files the runs leave (the database and
    the whole outputs, the status line's kept lines among them), hold no trace content."""
    folder = _write_inputs(BUILDERS[fmt], tmp_path / "in")
    CliRunner().invoke(main, ["summarize", "--by", "day", str(folder)])
    CliRunner().invoke(main, ["summarize", str(folder)])
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            payload = json.dumps({"transcript_path": str(path)})
            for _ in range(2):  # cold, then from the cache
                result = CliRunner().invoke(main, ["statusline"], input=payload)
                assert result.exit_code == 0
                _assert_clean(result.stdout, f"status line of {path.name}")
    stored_files = [stored for stored in private_cache.rglob("*") if stored.is_file()]
    assert any(stored.parent.name == "runs" for stored in stored_files)  # the kept lines
    for stored in stored_files:
        _assert_clean(stored.read_bytes().decode("latin-1"), f"cache file {stored.name}")


@pytest.mark.parametrize("fmt", FORMATS_UNDER_TEST)
def test_no_public_object_holds_trace_content(fmt: str, tmp_path: Path) -> None:
    """The repr and str of every object the API returns hold no trace content."""
    folder = _write_inputs(BUILDERS[fmt], tmp_path / "in")
    for input_format in ("auto", fmt):
        outcome = read_inputs([str(folder)], input_format)
        assert any(lane.observations for lane in outcome.lanes)
        analysis = analyse(outcome)
        objects: list[object] = [outcome, analysis, *outcome.inputs, *outcome.lanes]
        for lane in outcome.lanes:
            assembly = assemble_waves(lane.observations)
            objects += [assembly, summarize(assembly), *lane.observations]
        for result in analysis.lanes:
            objects += [result, result.summary, result.assembly, *result.assembly.waves]
        for thing in objects:
            _assert_clean(repr(thing), f"repr of {type(thing).__name__}")
            _assert_clean(str(thing), f"str of {type(thing).__name__}")


def test_every_cli_command_is_covered_by_the_canary(tmp_path: Path) -> None:
    """Each command of the CLI is among the canary's invocations (add it for a new one)."""
    covered = {args[0] for args in _invocations(tmp_path / "x", "events", tmp_path)}
    assert sorted(main.commands) == sorted(covered)  # type: ignore[attr-defined]
