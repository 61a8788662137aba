"""Inputs (``wavemetrics/readers/sources.py``): files, folders, gzip, stdin and pipes.

Tests run as root in CI, where ``chmod 000`` does not make a file unreadable,
so unreadability is simulated by making ``open`` / ``os.scandir`` raise
``PermissionError`` for one path (and the file is also chmod-ed, which bites
when the tests run as a normal user).
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import sys
import threading
import zlib
from pathlib import Path
from typing import Any

import pytest

from wavemetrics.pipeline import read_inputs
from wavemetrics.readers import sources as sources_module
from wavemetrics.readers.sources import Source, expand_paths, open_error, project_folder

NO_TRACE_FILES = ("no trace files in this directory (read: *.jsonl, *.json, *.jsonl.gz,"
                  " *.json.gz, *.eval)")

LINES = [b'{"n": 1}\n', b"\n", b'{"n": 2}\n', b"  \n", b'{"n": 3}\n', b'{"n": 4}']


def _write(path: Path, data: bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return str(path)


def _cut_gzip(content: bytes) -> bytes:
    """A gzip stream whose data is all decodable but which ends before its last block."""
    compressor = zlib.compressobj(wbits=31)
    return compressor.compress(content) + compressor.flush(zlib.Z_SYNC_FLUSH)


def test_plain_file_lines_are_raw_and_complete(tmp_path: Path) -> None:
    """``lines()`` yields every physical line as bytes with its newline; no error is set."""
    source = Source(_write(tmp_path / "a.jsonl", b"".join(LINES)))
    assert list(source.lines()) == LINES
    assert source.error is None
    assert not source.is_stdin


def test_peek_counts_only_lines_with_content_and_does_not_consume(tmp_path: Path) -> None:
    """``peek(2)`` stops at the second line with content; ``lines()`` still yields all."""
    source = Source(_write(tmp_path / "a.jsonl", b"".join(LINES)))
    assert source.peek(2) == LINES[:3]
    assert source.peek(100) == LINES
    assert list(source.lines()) == LINES


def test_gzip_inputs_are_read_transparently(tmp_path: Path) -> None:
    """``.jsonl.gz`` and ``.json.gz`` inputs yield the decompressed lines."""
    for name in ("a.jsonl.gz", "b.json.gz"):
        source = Source(_write(tmp_path / name, gzip.compress(b"".join(LINES), mtime=0)))
        assert list(source.lines()) == LINES
        assert source.peek(1) == LINES[:1]
        assert source.error is None


def test_gzip_cut_short_yields_its_partial_last_line_and_sets_error(tmp_path: Path) -> None:
    """A gzip file cut short yields every decodable line, the partial one last, then stops."""
    source = Source(_write(tmp_path / "a.jsonl.gz", _cut_gzip(b'{"n": 1}\n{"n": 2}\n{"n": 3')))
    assert list(source.lines()) == [b'{"n": 1}\n', b'{"n": 2}\n', b'{"n": 3']
    assert source.error == "compressed stream ended early (file cut short)"


def test_gzip_cut_at_a_line_boundary_has_no_partial_line(tmp_path: Path) -> None:
    """A gzip file cut right after a newline yields only whole lines."""
    source = Source(_write(tmp_path / "a.jsonl.gz", _cut_gzip(b'{"n": 1}\n{"n": 2}\n')))
    assert list(source.lines()) == [b'{"n": 1}\n', b'{"n": 2}\n']
    assert source.error == "compressed stream ended early (file cut short)"


def test_gzip_with_long_lines_is_split_exactly(tmp_path: Path) -> None:
    """Lines longer than the read chunk, and many short ones, come back byte for byte."""
    lines = [b"x" * 200_000 + b"\n", b"\n", b"y\n"] * 3 + [b"z" * 70_000]
    source = Source(_write(tmp_path / "a.jsonl.gz", gzip.compress(b"".join(lines), mtime=0)))
    assert list(source.lines()) == lines


def test_file_named_gz_that_is_not_gzip_reports_without_quoting_content(tmp_path: Path) -> None:
    """A ``.gz`` name on plain text is an error whose message quotes none of the file."""
    source = Source(_write(tmp_path / "a.jsonl.gz", b'{"secret": 1}\n'))
    assert list(source.lines()) == []
    assert source.error == "not a valid gzip file (no gzip header)"


def test_corrupt_gzip_data_is_a_described_error(tmp_path: Path) -> None:
    """Undecodable deflate data stops the read with zlib's reason."""
    data = gzip.compress(b'{"n": 1}\n' * 100, mtime=0)[:10] + b"\x00garbage" * 20
    source = Source(_write(tmp_path / "a.jsonl.gz", data))
    assert list(source.lines()) == []
    assert source.error == "Error -3 while decompressing data: invalid stored block lengths"


def test_stdin_is_peeked_then_replayed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """For ``-`` the peeked lines are kept and yielded first, then the rest of stdin."""
    fake = io.TextIOWrapper(io.BytesIO(b"".join(LINES)))
    monkeypatch.setattr(sys, "stdin", fake)
    source = Source("-")
    assert source.is_stdin
    assert source.peek(1) == LINES[:1]
    assert source.peek(1) == LINES[:1]
    assert list(source.lines()) == LINES


def _pipe_path(data: bytes) -> tuple[str, threading.Thread, int]:
    read_fd, write_fd = os.pipe()

    def feed() -> None:
        with os.fdopen(write_fd, "wb") as writer:
            writer.write(data)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return f"/dev/fd/{read_fd}", thread, read_fd


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="needs /dev/fd (process substitution)")
def test_a_pipe_given_by_path_is_read_once_with_nothing_lost() -> None:
    """A pipe path (``<(cmd)``) is peeked and replayed: every one of its lines is read."""
    lines = [b'{"type":"turn_start","timestamp":%d}\n' % i for i in range(5000)]
    path, thread, read_fd = _pipe_path(b"".join(lines))
    try:
        outcome = read_inputs([path])
    finally:
        thread.join(timeout=10)
        os.close(read_fd)
    (report,) = outcome.inputs
    assert (report.format, report.error) == ("events", None)
    assert (report.lines_read, report.lines_used, report.problems) == (5000, 5000, {})


def test_expand_paths_walks_folders_sorted_and_filters_names(tmp_path: Path) -> None:
    """Folders are read recursively in sorted order; only trace suffixes, no ``.meta.json``."""
    for name in ("b.jsonl", "a.json", "c.jsonl.gz", "d.json.gz", "e.txt", "agent-1.meta.json",
                 "sub/z.jsonl", "sub/deeper/y.jsonl", "a_sub/x.jsonl"):
        _write(tmp_path / name, b"{}\n")
    files, errors = expand_paths([str(tmp_path)])
    expected = ["a.json", "b.jsonl", "c.jsonl.gz", "d.json.gz", "a_sub/x.jsonl",
                "sub/z.jsonl", "sub/deeper/y.jsonl"]
    assert files == [str(tmp_path / name) for name in expected]
    assert errors == []


def test_expand_paths_keeps_named_files_and_stdin_in_order(tmp_path: Path) -> None:
    """Files named on the command line are kept whatever their suffix, in the given order."""
    b = _write(tmp_path / "b.log", b"{}\n")
    a = _write(tmp_path / "a.jsonl", b"{}\n")
    assert expand_paths([b, "-", a]) == ([b, "-", a], [])


def test_expand_paths_reports_missing_paths_and_empty_folders(tmp_path: Path) -> None:
    """A missing path and a folder without trace files are errors, with a reason."""
    (tmp_path / "empty").mkdir()
    _write(tmp_path / "notes" / "readme.txt", b"hi\n")
    missing = str(tmp_path / "nope.jsonl")
    files, errors = expand_paths([missing, str(tmp_path / "empty"), str(tmp_path / "notes")])
    assert files == []
    assert errors == [
        (missing, "no such file or directory"),
        (str(tmp_path / "empty"), NO_TRACE_FILES),
        (str(tmp_path / "notes"), NO_TRACE_FILES),
    ]


def test_expand_paths_names_broken_links_and_link_loops(tmp_path: Path) -> None:
    """A broken link and a link loop named directly get their own reasons."""
    (tmp_path / "broken.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    files, errors = expand_paths([str(tmp_path / "broken.jsonl"), str(tmp_path / "a.jsonl")])
    assert files == []
    assert errors == [
        (str(tmp_path / "broken.jsonl"), "broken symbolic link"),
        (str(tmp_path / "a.jsonl"), "too many levels of symbolic links"),
    ]


def test_expand_paths_reports_bad_entries_inside_a_folder(tmp_path: Path) -> None:
    """In a folder, broken links, link loops and FIFOs are errors; good files are still read."""
    good = _write(tmp_path / "good.jsonl", b"{}\n")
    (tmp_path / "broken.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    (tmp_path / "loop1.jsonl").symlink_to(tmp_path / "loop2.jsonl")
    (tmp_path / "loop2.jsonl").symlink_to(tmp_path / "loop1.jsonl")
    os.mkfifo(tmp_path / "fifo.jsonl")
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "good.jsonl")
    files, errors = expand_paths([str(tmp_path)])
    # link.jsonl is good.jsonl again (same real path): read once, where first reached.
    assert files == [good]
    assert errors == [
        (str(tmp_path / "broken.jsonl"), "broken symbolic link"),
        (str(tmp_path / "fifo.jsonl"), "not a regular file (skipped)"),
        (str(tmp_path / "loop1.jsonl"), "too many levels of symbolic links"),
        (str(tmp_path / "loop2.jsonl"), "too many levels of symbolic links"),
    ]


def test_expand_paths_does_not_follow_folder_links(tmp_path: Path) -> None:
    """A link to a parent folder (a loop) is not descended: each file is listed once."""
    good = _write(tmp_path / "d" / "a.jsonl", b"{}\n")
    (tmp_path / "d" / "up").symlink_to(tmp_path)
    (tmp_path / "d" / "self").symlink_to(tmp_path / "d")
    assert expand_paths([str(tmp_path / "d")]) == ([good], [])


def test_expand_paths_reports_an_unreadable_sub_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sub-folder that cannot be listed is an error naming it, not silently skipped."""
    good = _write(tmp_path / "a.jsonl", b"{}\n")
    locked = tmp_path / "locked"
    _write(locked / "b.jsonl", b"{}\n")
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if os.fspath(path) == str(locked):
            raise PermissionError(errno.EACCES, "Permission denied", str(locked))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert expand_paths([str(tmp_path)]) == ([good], [(str(locked), "permission denied")])


def test_open_error_describes_why_a_path_cannot_be_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``open_error`` is ``None`` for a readable file and a lower-case reason otherwise."""
    readable = _write(tmp_path / "a.jsonl", b"{}\n")
    locked = _write(tmp_path / "locked.jsonl", b"{}\n")
    os.chmod(locked, 0)
    real_open = open

    def guarded_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        if os.fspath(path) == locked:
            raise PermissionError(errno.EACCES, "Permission denied", locked)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(sources_module, "open", guarded_open, raising=False)
    assert open_error(readable) is None
    assert open_error(locked) == "permission denied"
    assert open_error(str(tmp_path / "nope.jsonl")) == "no such file or directory"
    assert open_error(str(tmp_path)) == "is a directory"


def test_project_folder_of_session_and_subagent_files() -> None:
    """A session file's project folder is its parent; a sub-agent file's is three up."""
    assert project_folder("/p/proj/s1.jsonl") == "/p/proj"
    assert project_folder("/p/proj/s1/subagents/agent-a.jsonl") == "/p/proj"
    assert project_folder("/p/proj/agent-a.jsonl") == "/p/proj"
    assert project_folder("rel/s1.jsonl") == os.path.abspath("rel")


def test_file_stem_drops_only_the_last_suffix_and_gz() -> None:
    """Default session ids keep inner dots: a.b.jsonl -> a.b; x.jsonl.gz -> x; - -> stdin."""
    from wavemetrics.readers.sources import file_stem

    assert file_stem("/t/a.b.jsonl") == "a.b"
    assert file_stem("x.jsonl.gz") == "x"
    assert file_stem("noext") == "noext"
    assert file_stem("-") == "stdin"
