"""Byte limits and endless inputs (``docs/formats.md``, "Limits and hostile input").

Every bomb here is generated at test time and is small on disk; the limits are
set small (``Limits(...)``, ``--max-*-bytes``) so each test is quick. The peak
memory under the default limits is measured by ``benchmarks/hostile.py``, not
here. The per-format line limit cases are rows of the bad-input battery
(``tests/test_bad_input.py``).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from wavemetrics.cli.commands import main
from wavemetrics.readers.limits import (
    DEFAULT_LIMITS,
    DEFAULT_MAX_DOCUMENT_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    Limits,
)
from wavemetrics.run.pipeline import read_inputs

#: One ``events`` wave of two calls: a [1000, 1100], b [1010, 1040].
EVENTS = b"".join(json.dumps(record).encode() + b"\n" for record in (
    {"type": "tool_execution_start", "toolCallId": "a", "toolName": "read", "timestamp": 1000},
    {"type": "tool_execution_start", "toolCallId": "b", "toolName": "grep", "timestamp": 1010},
    {"type": "tool_execution_end", "toolCallId": "b", "toolName": "grep", "timestamp": 1040},
    {"type": "tool_execution_end", "toolCallId": "a", "toolName": "read", "timestamp": 1100},
))
SMALL = Limits(max_line_bytes=1000, max_document_bytes=10_000)
ROOT = Path(__file__).resolve().parents[1]


def test_defaults_are_64_and_256_mib() -> None:
    """The default line limit is 64 MiB and the document limit 256 MiB."""
    assert DEFAULT_MAX_LINE_BYTES == 67_108_864
    assert DEFAULT_MAX_DOCUMENT_BYTES == 268_435_456
    assert Limits(67_108_864, 268_435_456) == DEFAULT_LIMITS


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "64"])
def test_limits_must_be_positive_ints(bad: object) -> None:
    """A limit of 0, a negative, a bool, a float or a string is refused with ValueError."""
    with pytest.raises(ValueError, match="must be a positive int"):
        Limits(max_line_bytes=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be a positive int"):
        Limits(max_document_bytes=bad)  # type: ignore[arg-type]


def test_line_of_exactly_the_limit_is_read_and_one_more_byte_is_too_long(
    tmp_path: Path,
) -> None:
    """A line of ``max_line_bytes`` bytes (newline not counted) is read; one byte more is not."""
    record = b'{"type":"note","x":"'
    exact = record + b"x" * (1000 - len(record) - 2) + b'"}'
    assert len(exact) == 1000
    over = exact[:-2] + b'x"}'
    path = tmp_path / "edge.jsonl"
    path.write_bytes(EVENTS + exact + b"\n" + over + b"\n")
    (report,) = read_inputs([str(path)], limits=SMALL).inputs
    assert (report.lines_read, report.lines_used, report.ignored, report.problems) == (
        6, 4, {"note": 1}, {"line_too_long": 1})
    assert report.error is None


def test_gzip_that_inflates_without_end_stops_at_the_document_limit(tmp_path: Path) -> None:
    """A small gzip of one 5 MB line with no newline ends as an error at 10 000 bytes."""
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(gzip.compress(EVENTS + b"a" * 5_000_000, mtime=0))
    assert path.stat().st_size < 20_000
    (report,) = read_inputs([str(path)], limits=SMALL).inputs
    assert (report.lines_read, report.lines_used, report.problems) == (
        5, 4, {"line_too_long": 1})
    assert report.error == (
        "a line runs past 10000 bytes (--max-document-bytes): not read further"
    )


def test_dev_zero_as_a_path_ends_with_a_clear_error() -> None:
    """``/dev/zero`` named as a path is one endless line: an error at the document limit."""
    result = CliRunner().invoke(main, [
        "summarize", "--max-line-bytes", "1000", "--max-document-bytes", "100000", "/dev/zero",
    ])
    assert result.exit_code == 1
    assert result.stderr == (
        "wavemetrics: error: /dev/zero: a line runs past 100000 bytes"
        " (--max-document-bytes): not read further\n"
    )


def test_dev_zero_on_stdin_ends_with_a_clear_error_under_the_default_limits() -> None:
    """``wavemetrics summarize - < /dev/zero`` stops after 256 MiB with exit 1, no traceback."""
    with open("/dev/zero", "rb") as zero:
        result = subprocess.run(
            [sys.executable, "-m", "wavemetrics", "summarize", "-"], stdin=zero,
            capture_output=True, timeout=300, check=False,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    assert result.returncode == 1
    assert result.stderr.decode() == (
        "wavemetrics: error: -: a line runs past 256 MiB (--max-document-bytes):"
        " not read further\n"
    )


def test_named_pipe_is_opened_once(tmp_path: Path) -> None:
    """A writer that writes its lines and closes at once is read in full: the FIFO is
    opened once (a check that opened it first would lose the lines and wait for ever)."""
    fifo = tmp_path / "live.jsonl"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as pipe:  # blocks until the reader opens the FIFO
            pipe.write(EVENTS)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    result = subprocess.run(
        [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json", str(fifo)],
        capture_output=True, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    writer.join(timeout=5)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["total"]["paired_calls"] == 2
    assert document["inputs"][0]["lines_read"] == 4


def _eval_archive(sample_bytes: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({"eval": {"eval_id": "e1"}}))
        archive.writestr("samples/1_epoch_1.json", sample_bytes)
    return buffer.getvalue()


def test_eval_member_that_inflates_past_the_limit_ends_the_input(tmp_path: Path) -> None:
    """A 5 MB ``.eval`` sample member (small compressed) stops at 10 000 bytes: an error."""
    member = b'{"id": 1, "epoch": 1, "events": [], "pad": "' + b" " * 5_000_000 + b'"}'
    path = tmp_path / "bomb.eval"
    path.write_bytes(_eval_archive(member))
    assert path.stat().st_size < 20_000
    (report,) = read_inputs([str(path)], limits=SMALL).inputs
    assert (report.format, report.lines_read, report.problems) == (
        "inspect", 1, {"member_too_large": 1})
    assert report.error == (
        "an archive member inflates past 10000 bytes (--max-document-bytes): not read further"
    )


def test_zip_inside_gzip_past_the_limit_is_an_error(tmp_path: Path) -> None:
    """A ``.json.gz`` holding a zip larger than the limit is not gathered into memory."""
    member = json.dumps({"id": 1, "epoch": 1, "events": [],
                         "pad": os.urandom(20_000).hex()}).encode()
    path = tmp_path / "log.json.gz"
    path.write_bytes(gzip.compress(_eval_archive(member), mtime=0))
    (report,) = read_inputs([str(path)], "inspect", limits=SMALL).inputs
    assert (report.lines_read, report.problems) == (1, {"archive_too_large": 1})
    assert report.error == (
        "a zip archive read from a stream runs past 10000 bytes (--max-document-bytes)"
    )


def test_pretty_document_past_the_limit_is_an_error(tmp_path: Path) -> None:
    """A pretty-printed ``.json.gz`` padded past the limit ends as an error, never held whole."""
    span = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "0000000000000001",
            "name": "execute_tool read", "startTimeUnixNano": "1", "endTimeUnixNano": "2",
            "attributes": [{"key": "gen_ai.operation.name",
                            "value": {"stringValue": "execute_tool"}}]}
    text = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}, indent=2)
    padded = text[:-1] + "\n" * 5_000_000 + "}\n"
    path = tmp_path / "padded.json.gz"
    path.write_bytes(gzip.compress(padded.encode(), mtime=0))
    (report,) = read_inputs([str(path)], "otlp", limits=SMALL).inputs
    assert report.error == (
        "a JSON document runs past 10000 bytes (--max-document-bytes): not read further"
    )
    assert report.lines_read == 0


def test_cli_limit_options_reach_the_readers(tmp_path: Path) -> None:
    """``--max-line-bytes`` on summarize, waves, timeline and compare is the read's limit."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(EVENTS + b'{"type":"note","x":"' + b"x" * 200 + b'"}\n')
    for command in ("summarize", "waves"):
        result = CliRunner().invoke(main, [command, "--max-line-bytes", "100", str(path)])
        assert result.exit_code == 0
        assert result.stderr == (
            f"wavemetrics: warning: {path}: 1 line not usable (line_too_long 1)\n"
        )
    result = CliRunner().invoke(main, ["summarize", "--max-line-bytes", "0", str(path)])
    assert result.exit_code == 2


def test_a_cut_document_is_cut_at_the_limit_not_an_error(tmp_path: Path) -> None:
    """A cut document (``{ "broken":``) before 40 pretty-printed documents of about 500
    bytes each (20 KB in all, past the 10,000-byte limit): the open value reaches the limit
    holding lines that may begin a document, so it is cut at the first of them and reading
    resumes there: 41 items, 40 used (one call each), 1 problem, no error."""
    documents = []
    for index in range(40):
        span = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": f"{index + 1:016x}",
                "name": "execute_tool read", "startTimeUnixNano": str(10 * index + 1),
                "endTimeUnixNano": str(10 * index + 2),
                "attributes": [{"key": "gen_ai.operation.name",
                                "value": {"stringValue": "execute_tool"}}]}
        documents.append(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]},
                                    indent=2) + "\n")
    text = '{ "broken":\n' + "".join(documents)
    assert len(text) > 2 * SMALL.max_document_bytes
    path = tmp_path / "stream.json"
    path.write_text(text, encoding="utf-8")
    (report,) = read_inputs([str(path)], "otlp", limits=SMALL).inputs
    assert (report.error, report.lines_read, report.lines_used, report.problems) == (
        None, 41, 40, {"invalid_json": 1})
