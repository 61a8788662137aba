"""The bad-input battery: hostile inputs through the CLI, for every reader.

Each row of ``CASES`` builds one input from a format's valid lines
(``tests/trace_builders.py``) and states, by hand, what ``wavemetrics
summarize --format json`` must say about it: the exit status (0 when every
input was read, also with problem lines; 1 when an input could not be read or
recognised; 2 for usage), the exact stderr line, the exact ``inputs`` entry
(``lines_read == lines_used + lines_ignored + problems``) and the figures of
what was readable. Rows run for every format of ``wavemetrics.readers.dispatch.FORMATS``
that has a builder; a new reader gets the battery by adding its builder.

Unreadable files: the tests run as root, where ``chmod 000`` does not bite, so
an unreadable file is a ``chmod 000`` file whose ``open`` is also made to raise
``PermissionError`` (monkeypatched in ``wavemetrics.readers.sources``), and an
unreadable sub-folder is one whose ``os.scandir`` raises it. FIFOs, broken
links and link loops are real.
"""

from __future__ import annotations

import errno
import gzip
import json
import os
import random
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner, Result

from tests.trace_builders import BUILDERS, FormatLines, duplicate_top_keys
from wavemetrics.cli.commands import main
from wavemetrics.readers import sources as sources_module
from wavemetrics.readers.dispatch import FORMATS

FORMATS_UNDER_TEST = [name for name in BUILDERS if name in FORMATS]
BOM = b"\xef\xbb\xbf"
NOT_RECOGNISED = (
    "not a recognised trace format (looked at the first 64 lines; known: "
    + ", ".join(FORMATS) + ")"
)


@attrs.frozen
class Expected:
    """What the CLI must report for one input (``format`` ``None``: the builder's own)."""

    exit_code: int
    lines_read: int
    lines_used: int
    problems: dict[str, int] = attrs.field(factory=dict)
    ignored: dict[str, int] = attrs.field(factory=dict)
    error: str | None = None
    format: str | None = None
    observed: int = 0
    paired: int = 0


@attrs.frozen
class Case:
    """One hostile input: the file's name and bytes, extra CLI arguments, the expectation."""

    name: str
    data: bytes
    expected: Expected
    args: tuple[str, ...] = ()


def _good(b: FormatLines) -> list[bytes]:
    """A session header (if the format has one) and two overlapping calls."""
    return [*b.prelude, *b.call("a", 1, 3), *b.call("b", 2, 4)]


def _good_expected(b: FormatLines, **changes: Any) -> Expected:
    n = len(_good(b))
    fields: dict[str, Any] = {"exit_code": 0, "lines_read": n, "lines_used": n,
                              "observed": 2, "paired": 2}
    fields.update(changes)
    return Expected(**fields)


def _with_key(line: bytes, raw: bytes) -> bytes:
    """``line`` (a JSON object) with one more top-level member, written raw."""
    return line.rstrip(b"\r\n")[:-1] + b"," + raw + b"}\n"


def _cut_gzip(data: bytes) -> bytes:
    """Gzip whose data is all decodable but which ends before its final block."""
    compressor = zlib.compressobj(wbits=31)
    return compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)


GARBAGE = [
    b"\xde\xad\xbe\xef\x00\x01\x02\n",        # invalid UTF-8
    b"\x00\x01\x02\x03\x1b[2J\x7f binary\n",  # UTF-8, not JSON
    b"\xff\xd8\xff\xe0\x00\x10JFIF\n",       # invalid UTF-8 (a JPEG header)
    b"PK\x03\x04 not a zip\n",               # UTF-8, not JSON
    b"\x89PNG\r\n",                          # invalid UTF-8 (a PNG header)
    b"\x1f\x8b\x08\x00\xca\xfe",             # a gzip header, cut, no newline
]
RUNAWAY = "a line runs past 10000 bytes (--max-document-bytes): not read further"
GARBAGE_PROBLEMS = {"invalid_json": 2, "invalid_utf8": 3, "truncated_last_line": 1}


def _cases(b: FormatLines) -> list[Case]:
    good = _good(b)
    n = len(good)
    unknown_line, unknown_key = b.unknown
    third = b.call("c", 5, 6)
    cases = [
        Case("empty", b"", Expected(0, 0, 0, format="empty")),
        Case("blank_lines_only", b"\n   \n\t\n\r\n",
             Expected(0, 4, 0, ignored={"blank_line": 4}, format="empty")),
        Case("crlf", b"".join(line.replace(b"\n", b"\r\n") for line in good), _good_expected(b)),
        Case("utf8_bom", BOM + b"".join(good), _good_expected(b)),
        Case("bom_crlf_and_blank_lines",
             BOM + b"\r\n".join(line.rstrip(b"\n") for line in good) + b"\r\n\r\n  \r\n",
             _good_expected(b, lines_read=n + 2, ignored={"blank_line": 2})),
        Case("invalid_utf8_line",
             b"".join([good[0], b'{"type": "\xff\xfe"}\n', *good[1:]]),
             _good_expected(b, lines_read=n + 1, problems={"invalid_utf8": 1})),
        Case("invalid_utf8_in_a_record",
             b"".join([*good, third[0].replace(b'"', b'"\xc3\x28', 1)]),
             _good_expected(b, lines_read=n + 1, problems={"invalid_utf8": 1})),
        Case("truncated_last_line", b"".join(good) + third[0][: len(third[0]) // 2],
             _good_expected(b, lines_read=n + 1, problems={"truncated_last_line": 1})),
        Case("not_an_object",
             b"".join([*good, b"[1, 2]\n", b'"text"\n', b"42\n", b"null\n", b"true\n"]),
             _good_expected(b, lines_read=n + 5, problems={"not_an_object": 5})),
        Case("nan_and_infinity",
             b"".join([*good, _with_key(third[0], b'"x":NaN'),
                       _with_key(b.call("d", 5, 6)[0], b'"x":Infinity'),
                       _with_key(b.call("e", 5, 6)[0], b'"x":-Infinity')]),
             _good_expected(b, lines_read=n + 3, problems={"invalid_json": 3})),
        Case("duplicated_keys",
             b"".join([*b.prelude, *(duplicate_top_keys(line) for line in good[len(b.prelude):])]),
             _good_expected(b)),
        # the limit is 500 levels (docs/formats.md): 500 arrays are read (no object),
        # 501 are too deeply nested, as are 100 000
        Case("deeply_nested",
             b"".join([*good, b"[" * 100_000 + b"]" * 100_000 + b"\n",
                       b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n",
                       b"[" * 500 + b"]" * 500 + b"\n", b"[" * 501 + b"]" * 501 + b"\n"]),
             _good_expected(b, lines_read=n + 4,
                            problems={"too_deeply_nested": 3, "not_an_object": 1})),
        Case("unknown_record_types",
             b"".join([*good, unknown_line, b.unknown_again or unknown_line]),
             _good_expected(b, lines_read=n + 2, ignored={unknown_key: 2})),
        Case("garbage_between_records", b"".join([*good[:1], *GARBAGE[:5], *good[1:]]),
             _good_expected(b, lines_read=n + 5,
                            problems={"invalid_json": 2, "invalid_utf8": 3})),
        Case("binary_garbage_file", b"".join(GARBAGE),
             Expected(1, 0, 0, error=NOT_RECOGNISED, format="unknown")),
        # every record a problem: an error for the input (docs/formats.md, detection)
        Case("binary_garbage_file_with_format", b"".join(GARBAGE),
             Expected(1, 6, 0, problems=GARBAGE_PROBLEMS, error=(
                 f"no usable record: 6 lines read as {b.name}, 6 not usable (invalid_json 2,"
                 f" invalid_utf8 3, truncated_last_line 1), none used; is --input-format"
                 f" {b.name} right? (auto detects the format)")),
             args=("--input-format", b.name)),
        Case("gzip.jsonl.gz", gzip.compress(b"".join(good), mtime=0), _good_expected(b)),
        Case("gzip_cut_short.jsonl.gz",
             _cut_gzip(b"".join(good) + third[0][: len(third[0]) // 2]),
             _good_expected(b, exit_code=1, lines_read=n + 1,
                            problems={"truncated_last_line": 1},
                            error="compressed stream ended early (file cut short)")),
        Case("gzip_cut_in_header.jsonl.gz", gzip.compress(b"".join(good), mtime=0)[:6],
             Expected(1, 0, 0, format="unknown",
                      error="compressed stream ended early (file cut short)")),
        Case("not_gzip.jsonl.gz", b"".join(good),
             Expected(1, 0, 0, format="unknown",
                      error="not a valid gzip file (no gzip header)")),
        # Limits (docs/formats.md, "Limits and hostile input"), small so the test is quick
        Case("line_too_long", b"".join([*good[:1], b'{"pad":"' + b"x" * 5000 + b'"}\n',
                                        *good[1:]]),
             _good_expected(b, lines_read=n + 1, problems={"line_too_long": 1}),
             args=("--max-line-bytes", "1000")),
        Case("line_too_long.jsonl.gz",
             gzip.compress(b"".join([*good[:1], b"y" * 5000 + b"\n", *good[1:]]), mtime=0),
             _good_expected(b, lines_read=n + 1, problems={"line_too_long": 1}),
             args=("--max-line-bytes", "1000")),
        Case("last_line_too_long", b"".join([*good, b"z" * 5000]),
             _good_expected(b, lines_read=n + 1, problems={"line_too_long": 1}),
             args=("--max-line-bytes", "1000")),
        Case("runaway_line", b"".join([*good, b"\x00" * 50_000]),
             _good_expected(b, exit_code=1, lines_read=n + 1, problems={"line_too_long": 1},
                            error=RUNAWAY),
             args=("--max-line-bytes", "1000", "--max-document-bytes", "10000")),
        Case("runaway_line.jsonl.gz",
             gzip.compress(b"".join([*good, b"\x00" * 50_000]), mtime=0),
             _good_expected(b, exit_code=1, lines_read=n + 1, problems={"line_too_long": 1},
                            error=RUNAWAY),
             args=("--max-line-bytes", "1000", "--max-document-bytes", "10000")),
    ]
    for kind, literal in b.time_literals.items():
        line = b.start_with_time("t", literal)
        if kind in b.valid_times:
            expected = _good_expected(b, lines_read=n + 1, lines_used=n + 1, observed=3)
        else:
            expected = _good_expected(b, lines_read=n + 1, problems={"invalid_timestamp": 1})
        cases.append(Case(f"timestamp_{kind}", b"".join([*good, line]), expected))
    return cases


CASE_NAMES = [case.name for case in _cases(BUILDERS["events"])]


def _invoke(*args: str, stdin: bytes | None = None) -> Result:
    result = CliRunner().invoke(main, list(args), input=stdin)
    # No traceback: the only exception a run may end with is the exit status.
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exc_info
    )
    assert "Traceback" not in result.output
    return result


def _stderr_for(path: str, fmt: str, expected: Expected) -> str:
    """The CLI's stderr for one input: its error, warning or note, then a note when
    a readable input gave no usable record."""
    text = ""
    if expected.error is not None:
        text = f"wavemetrics: error: {path}: {expected.error}\n"
    elif expected.problems:
        count = sum(expected.problems.values())
        lost = ", ".join(f"{reason} {n}" for reason, n in sorted(expected.problems.items()))
        text = (f"wavemetrics: warning: {path}: {count} line{'' if count == 1 else 's'}"
                f" not usable ({lost})\n")
    elif expected.format == "empty":
        text = f"wavemetrics: note: {path}: empty input\n"
    if expected.error is None and expected.format != "empty" and expected.lines_used == 0:
        n = expected.lines_read
        text += (f"wavemetrics: note: {path}: no tool calls found in {n}"
                 f" line{'' if n == 1 else 's'} read as {expected.format or fmt}\n")
    return text


def _input_entry(path: str, fmt: str, expected: Expected) -> dict[str, Any]:
    ignored = sum(expected.ignored.values())
    return {
        "path": path, "format": expected.format or fmt, "lines_read": expected.lines_read,
        "lines_used": expected.lines_used, "lines_ignored": ignored,
        "problems": expected.problems, "ignored": expected.ignored, "notes": {},
        "error": expected.error,
    }


def _without_stream_notes(entry: dict[str, Any], b: FormatLines) -> dict[str, Any]:
    """``entry`` without the notes of whole-stream checks (``FormatLines.stream_notes``),
    which depend on how the battery assembles lines and are checked by the format's own
    tests."""
    notes = {key: n for key, n in entry["notes"].items() if key not in b.stream_notes}
    return {**entry, "notes": notes}


def _assert_identity(entry: dict[str, Any]) -> None:
    assert entry["lines_read"] == (
        entry["lines_used"] + entry["lines_ignored"] + sum(entry["problems"].values())
    )


@pytest.mark.parametrize("case_name", CASE_NAMES)
@pytest.mark.parametrize("fmt", FORMATS_UNDER_TEST)
def test_hostile_input_is_accounted_with_the_documented_exit(
    fmt: str, case_name: str, tmp_path: Path
) -> None:
    """A hostile input gives no traceback, the documented exit, one stderr line and a full account."""
    case = next(c for c in _cases(BUILDERS[fmt]) if c.name == case_name)
    name = case.name if case.name.endswith(".gz") else f"{case.name}.jsonl"
    path = tmp_path / name
    path.write_bytes(case.data)
    result = _invoke("summarize", "--format", "json", *case.args, str(path))
    expected = case.expected
    assert result.exit_code == expected.exit_code, result.stderr
    assert result.stderr == _stderr_for(str(path), fmt, expected)
    document = json.loads(result.stdout)
    (entry,) = document["inputs"]
    _assert_identity(entry)
    assert _without_stream_notes(entry, BUILDERS[fmt]) == _input_entry(str(path), fmt, expected)
    total = document["total"]
    assert (total["observed_calls"], total["paired_calls"]) == (expected.observed, expected.paired)


@pytest.mark.parametrize("fmt", FORMATS_UNDER_TEST)
def test_a_50_mb_line_is_read_like_any_other(fmt: str, tmp_path: Path) -> None:
    """A single 50 MB record line (a huge argument) is read and used; figures are unchanged."""
    b = BUILDERS[fmt]
    good = _good(b)
    big = _with_key(good[-1], b'"pad":"' + b"x" * (50 * 2**20) + b'"')
    path = tmp_path / "huge.jsonl"
    path.write_bytes(b"".join([*good[:-1], big]))
    assert path.stat().st_size > 50 * 2**20
    result = _invoke("summarize", "--format", "json", str(path))
    assert result.exit_code == 0
    assert result.stderr == ""
    (entry,) = json.loads(result.stdout)["inputs"]
    assert _without_stream_notes(entry, b) == _input_entry(str(path), fmt, _good_expected(b))
    assert json.loads(result.stdout)["total"]["paired_calls"] == 2


def _locked_open(locked: set[str], real_open: Callable[..., Any] = open) -> Callable[..., Any]:
    # root may open a file of mode 0: the refusal a user gets, made by hand (``open`` for
    # the readers, ``os.open`` for sources.open_error)

    def guarded(path: Any, *args: Any, **kwargs: Any) -> Any:
        if os.fspath(path) in locked:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, *args, **kwargs)

    return guarded


@pytest.mark.parametrize("fmt", FORMATS_UNDER_TEST)
def test_folder_with_unreadable_entries_reports_each_and_reads_the_rest(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unreadable files, a FIFO, broken links, link loops and a locked sub-folder are
    each an error naming the path (exit 1); the readable file is summarised."""
    b = BUILDERS[fmt]
    root = tmp_path / "traces"
    root.mkdir()
    good = root / "good.jsonl"
    good.write_bytes(b"".join(_good(b)))
    locked = root / "locked.jsonl"
    locked.write_bytes(b"".join(_good(b)))
    os.chmod(locked, 0)
    os.mkfifo(root / "fifo.jsonl")
    (root / "broken.jsonl").symlink_to(root / "nowhere.jsonl")
    (root / "loop1.jsonl").symlink_to(root / "loop2.jsonl")
    (root / "loop2.jsonl").symlink_to(root / "loop1.jsonl")
    (root / "up").symlink_to(tmp_path)  # a folder link loop: never followed
    locked_dir = root / "sealed"
    locked_dir.mkdir()
    (locked_dir / "inner.jsonl").write_bytes(b"".join(_good(b)))
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if os.fspath(path) == str(locked_dir):
            raise PermissionError(errno.EACCES, "Permission denied", str(locked_dir))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(sources_module, "open", _locked_open({str(locked)}), raising=False)
    monkeypatch.setattr(os, "open", _locked_open({str(locked)}, os.open))
    result = _invoke("summarize", "--format", "json", str(root))
    assert result.exit_code == 1
    reasons = {
        str(locked): "permission denied",
        str(root / "fifo.jsonl"): "not a regular file (skipped)",
        str(root / "broken.jsonl"): "broken symbolic link",
        str(root / "loop1.jsonl"): "too many levels of symbolic links",
        str(root / "loop2.jsonl"): "too many levels of symbolic links",
        str(locked_dir): "permission denied",
    }
    assert sorted(result.stderr.splitlines()) == sorted(
        f"wavemetrics: error: {path}: {reason}" for path, reason in reasons.items()
    )
    document = json.loads(result.stdout)
    entries = {entry["path"]: entry for entry in document["inputs"]}
    assert _without_stream_notes(entries.pop(str(good)), b) == _input_entry(
        str(good), fmt, _good_expected(b))
    assert entries == {
        path: {"path": path, "format": "unknown", "lines_read": 0, "lines_used": 0,
               "lines_ignored": 0, "problems": {}, "ignored": {}, "notes": {}, "error": reason}
        for path, reason in reasons.items()
    }
    assert document["total"]["paired_calls"] == 2


@pytest.mark.parametrize("fmt", FORMATS_UNDER_TEST)
def test_symlink_loop_named_directly_is_an_error_and_others_are_read(
    fmt: str, tmp_path: Path
) -> None:
    """A link loop or a missing path named on the command line fails alone (exit 1)."""
    good = tmp_path / "good.jsonl"
    good.write_bytes(b"".join(_good(BUILDERS[fmt])))
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    loop, missing = str(tmp_path / "a.jsonl"), str(tmp_path / "missing.jsonl")
    result = _invoke("summarize", "--format", "json", loop, str(good), missing)
    assert result.exit_code == 1
    assert result.stderr == (
        f"wavemetrics: error: {loop}: too many levels of symbolic links\n"
        f"wavemetrics: error: {missing}: no such file or directory\n"
    )
    document = json.loads(result.stdout)
    # inputs are listed in command-line order
    assert [entry["path"] for entry in document["inputs"]] == [loop, str(good), missing]
    assert document["total"]["paired_calls"] == 2


@pytest.mark.parametrize("fmt", FORMATS_UNDER_TEST)
def test_stdin_longer_than_the_detection_window_is_read_in_full(fmt: str) -> None:
    """``-`` with more lines than detection peeks at is read whole, every line counted."""
    b = BUILDERS[fmt]
    lines = [*b.prelude]
    for index in range(60):
        lines.extend(b.call(f"c{index}", index, index + 0.5))
    result = _invoke("summarize", "--format", "json", "-", stdin=b"".join(lines))
    assert result.exit_code == 0, result.stderr
    (entry,) = json.loads(result.stdout)["inputs"]
    assert (entry["path"], entry["format"], entry["lines_read"], entry["lines_used"]) == (
        "-", fmt, len(lines), len(lines)
    )
    assert json.loads(result.stdout)["total"]["paired_calls"] == 60


def test_random_bytes_are_never_recognised_and_never_crash(tmp_path: Path) -> None:
    """A file of random bytes is an unrecognised input (exit 1), never a traceback."""
    path = tmp_path / "noise.jsonl"
    path.write_bytes(random.Random(20260509).randbytes(1 << 16))
    result = _invoke("summarize", "--format", "json", str(path))
    assert result.exit_code == 1
    assert result.stderr == f"wavemetrics: error: {path}: {NOT_RECOGNISED}\n"


@pytest.mark.parametrize("args", [
    ["summarize", "--since", "yesterday", "x.jsonl"],
    ["summarize", "--input-format", "nope", "x.jsonl"],
    ["summarize", "--format", "xml", "x.jsonl"],
    ["summarize", "--max-tracked-calls", "-1", "x.jsonl"],
    ["waves", "--format", "jsonl", "x.jsonl"],
    ["frobnicate"],
])
def test_usage_errors_exit_2_without_a_traceback(args: list[str]) -> None:
    """Bad options or dates, or an unknown command exit with status 2, in the one error
    style: a single line ``wavemetrics: error: ...`` ending in a --help hint (no PATH:
    tests/test_locations.py)."""
    result = _invoke(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("wavemetrics: error: ")
    assert result.stderr.endswith(" --help')\n")
    assert result.stderr.count("\n") == 1


#: Formats read from a SQLite store or a tree of one-object files, not by lines: their
#: hostile battery (a corrupt, truncated, locked and mid-write database; bad rows or
#: files) is in their reader's tests.
STORE_BATTERIES = {
    "openclaw": "tests/test_readers_openclaw.py",
    "opencode": "tests/test_readers_opencode.py",
    "opencode-storage": "tests/test_readers_opencode_storage.py",
}


def test_every_registered_format_has_a_bad_input_row() -> None:
    """Every reader in ``FORMATS`` is covered by the battery (add a builder for a new one),
    or, for a SQLite store, by its own battery."""
    assert [name for name in FORMATS if name not in BUILDERS and name not in STORE_BATTERIES] == []
    root = Path(__file__).parent.parent
    for name, battery in STORE_BATTERIES.items():
        assert name in FORMATS and (root / battery).is_file()
