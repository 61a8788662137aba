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
import shutil
import sys
import threading
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wavemetrics.inputs._paths import absolute
from wavemetrics.readers import sources as sources_module
from wavemetrics.readers.sources import (
    Source,
    expand_inputs,
    expand_paths,
    open_error,
    project_folder,
)
from wavemetrics.run.pipeline import read_inputs

NO_TRACE_FILES = ("no trace files in this directory (read: *.jsonl, *.json, *.jsonl.gz,"
                  " *.json.gz, *.eval, *.traj, *.db, *.sqlite)")

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


def test_a_file_reached_through_a_linked_folder_and_its_target_is_listed_once(
    tmp_path: Path,
) -> None:
    """A folder named through a link and again by its real path, and a deep sub-folder
    named on its own: every file once, where first reached (the walk resolves a
    sub-folder's real path from its parent's, so the link must be resolved there)."""
    deep = _write(tmp_path / "real" / "p" / "q" / "a.jsonl", b"{}\n")
    top = _write(tmp_path / "real" / "b.jsonl", b"{}\n")
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    via_link = [str(tmp_path / "alias" / "b.jsonl"), str(tmp_path / "alias" / "p" / "q" / "a.jsonl")]
    assert expand_paths([str(tmp_path / "alias"), str(tmp_path / "real"),
                         str(tmp_path / "real" / "p" / "q")]) == (via_link, [])
    assert expand_paths([str(tmp_path / "real" / "p"), str(tmp_path / "alias")]) == (
        [deep, str(tmp_path / "alias" / "b.jsonl")], [])
    assert top not in expand_paths([str(tmp_path / "alias"), top])[0]


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
    real_open = os.open

    def guarded_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        # root may open a file of mode 0: the refusal a user gets, made by hand
        if os.fspath(path) == locked:
            raise PermissionError(errno.EACCES, "Permission denied", locked)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(sources_module.os, "open", guarded_open)
    assert open_error(readable) is None
    assert open_error(locked) == "permission denied"
    assert open_error(str(tmp_path / "nope.jsonl")) == "no such file or directory"
    assert open_error(str(tmp_path)) == "is a directory"


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd")
def test_open_error_closes_what_it_opens(tmp_path: Path) -> None:
    """``open_error`` opens with a bare descriptor and closes it, a folder's too: 200
    checks leave the process with the descriptors it had."""
    readable = _write(tmp_path / "a.jsonl", b"{}\n")
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(100):
        assert open_error(readable) is None
        assert open_error(str(tmp_path)) == "is a directory"
    assert len(os.listdir("/proc/self/fd")) == before


@given(st.lists(st.sampled_from(["a", "b.c", ".", "..", "", ".x", "x..", "...", "subagents"]),
                max_size=6), st.booleans(), st.booleans())
def test_absolute_is_abspath_however_the_path_is_spelled(
    parts: list[str], rooted: bool, slash: bool
) -> None:
    """``absolute`` (the project folder's first step) is ``os.path.abspath``, its shortcut
    for absolute normal paths included, and so the project folder is the same."""
    path = (("/" if rooted else "") + "/".join(parts) + ("/" if slash else "")) or "."
    assert absolute(path) == os.path.abspath(path)
    parent = os.path.dirname(os.path.abspath(path))
    expected = (os.path.dirname(os.path.dirname(parent))
                if os.path.basename(parent) == "subagents" else parent)
    assert project_folder(path) == expected


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


# --- Skipped files in folder walks (docs/formats.md, "For every format").

_SESSION = (
    '{"type":"assistant","uuid":"u1","sessionId":"s1","timestamp":"2026-01-01T00:00:00.000Z",'
    '"message":{"content":[{"type":"tool_use","id":"t1","name":"Read"}]}}\n'
    '{"type":"user","uuid":"u2","sessionId":"s1","timestamp":"2026-01-01T00:00:01.000Z",'
    '"message":{"content":[{"type":"tool_result","tool_use_id":"t1"}]}}\n'
)
_META = '{"agentType": "general-purpose", "description": "look around"}\n'
_JOURNAL = '{"step": 1, "status": "done"}\n{"step": 2, "status": "running"}\n'


def _project(tmp_path: Path) -> Path:
    """A Claude Code project folder with a meta.json, a sub-agent and its meta sidecar,
    and a workflow journal.jsonl."""
    project = tmp_path / "proj"
    (project / "s1" / "subagents").mkdir(parents=True)
    (project / "s1.jsonl").write_text(_SESSION, encoding="utf-8")
    (project / "meta.json").write_text(_META, encoding="utf-8")
    (project / "journal.jsonl").write_text(_JOURNAL, encoding="utf-8")
    (project / "s1" / "subagents" / "agent-a1.jsonl").write_text(
        _SESSION.replace('"u1"', '"v1"').replace('"u2"', '"v2"').replace('"t1"', '"t9"')
        .replace('"sessionId":"s1"', '"sessionId":"s1","agentId":"a1"'), encoding="utf-8")
    (project / "s1" / "subagents" / "agent-a1.meta.json").write_text(_META, encoding="utf-8")
    return project


def test_files_in_a_folder_that_are_not_traces_are_skipped_and_counted(tmp_path: Path) -> None:
    """A meta.json, a journal.jsonl and an agent-*.meta.json found in a folder are skipped
    with their reason, not errors: the run exits 0 and the sessions are still read."""
    from tests.reader_checks import cli_document

    project = _project(tmp_path)
    # Before: meta.json and journal.jsonl were "not a recognised trace format" (exit 1)
    # and the sidecar was dropped without a count.
    code, document = cli_document([str(project)])
    assert code == 0
    assert [entry["path"] for entry in document["inputs"]] == [
        str(project / "s1.jsonl"), str(project / "s1" / "subagents" / "agent-a1.jsonl")]
    assert all(entry["error"] is None for entry in document["inputs"])
    unrecognised = ("not a trace: matches no known format (looked at the first 64 lines)")
    assert document["skipped_files"] == [
        {"path": str(project / "journal.jsonl"), "reason": unrecognised},
        {"path": str(project / "meta.json"), "reason": unrecognised},
        {"path": str(project / "s1" / "subagents" / "agent-a1.meta.json"),
         "reason": sources_module.SIDECAR_REASON},
    ]
    assert sorted(lane["lane_id"] for lane in document["lanes"]) == ["a1", "main"]


def test_a_named_file_that_matches_no_format_is_still_an_error(tmp_path: Path) -> None:
    """The skipping is for folder walks only: a path the user named is an error (exit 1)."""
    from tests.reader_checks import cli_document

    project = _project(tmp_path)
    code, document = cli_document([str(project / "meta.json"), str(project / "s1.jsonl")])
    assert code == 1
    failed, read = document["inputs"]
    assert failed["error"].startswith("not a recognised trace format")
    assert read["error"] is None
    assert "skipped_files" not in document


def test_a_folder_whose_every_file_is_skipped_is_an_error(tmp_path: Path) -> None:
    """Like a folder of files with other suffixes, a named folder with no trace among its
    files fails (exit 1); only a folder with no file at all is an empty input."""
    folder = tmp_path / "workflow"
    folder.mkdir()
    (folder / "journal.jsonl").write_text(_JOURNAL, encoding="utf-8")
    outcome = read_inputs([str(folder)])
    (report,) = outcome.inputs
    assert (report.path, report.error) == (
        str(folder), "no trace files in this directory (1 found, none a trace: skipped)")
    assert [s.path for s in outcome.skipped] == [str(folder / "journal.jsonl")]


def test_the_table_and_stderr_count_skipped_files(tmp_path: Path) -> None:
    """The table's inputs line and one stderr note, one sentence, count the skipped files
    and the folders they are in (the project and its subagents/ folder), then each reason,
    most first, with its plural."""
    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    result = CliRunner().invoke(main, ["summarize", str(_project(tmp_path))])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == (
        "inputs: 2 claude-code (auto-detected); 3 files skipped (not traces)")
    assert ("wavemetrics: note: skipped 3 files found in 2 folders, as they are not traces:"
            " 2 of no known format (judged by their first 64 lines) and 1 metadata sidecar"
            " (*.meta.json, written beside Claude Code sub-agents); summarize --format json"
            " lists them\n") in result.stderr


def test_one_skipped_file_is_counted_in_the_singular(tmp_path: Path) -> None:
    """One skipped file: "1 file", "1 folder", "it is not a trace", "its first 64 lines",
    "lists it" in the note, and "1 file skipped (not a trace)" in the table."""
    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    project = _project(tmp_path)
    for name in ("meta.json", "journal.jsonl", "s1"):
        path = project / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    (project / "notes.json").write_text(_META, encoding="utf-8")
    result = CliRunner().invoke(main, ["summarize", "--no-cache", str(project)])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == (
        "inputs: 1 claude-code (auto-detected); 1 file skipped (not a trace)")
    assert result.stderr == (
        "wavemetrics: note: skipped 1 file found in 1 folder, as it is not a trace: 1 of no"
        " known format (judged by its first 64 lines); summarize --format json lists it\n")


def test_several_sidecars_are_counted_in_the_plural(tmp_path: Path) -> None:
    """Two sidecars alone: "2 metadata sidecars", with no "and" (one reason)."""
    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    project = _project(tmp_path)
    for name in ("meta.json", "journal.jsonl"):
        (project / name).unlink()
    (project / "s1" / "subagents" / "agent-a2.meta.json").write_text(_META, encoding="utf-8")
    result = CliRunner().invoke(main, ["summarize", "--no-cache", str(project)])
    assert result.exit_code == 0
    assert result.stderr == (
        "wavemetrics: note: skipped 2 files found in 1 folder, as they are not traces:"
        " 2 metadata sidecars (*.meta.json, written beside Claude Code sub-agents);"
        " summarize --format json lists them\n")


def test_a_copy_of_a_skipped_file_is_skipped_too(tmp_path: Path) -> None:
    """Two identical journal.jsonl files in two folders are both skipped, neither reported
    as an input read once."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "journal.jsonl").write_text(_JOURNAL, encoding="utf-8")
        (tmp_path / name / "s1.jsonl").write_text(
            _SESSION.replace('"s1"', f'"s-{name}"'), encoding="utf-8")
    outcome = read_inputs([str(tmp_path / "a"), str(tmp_path / "b")])
    assert [s.path for s in outcome.skipped] == [
        str(tmp_path / "a" / "journal.jsonl"), str(tmp_path / "b" / "journal.jsonl")]
    assert [(r.path, r.format, r.error) for r in outcome.inputs] == [
        (str(tmp_path / "a" / "s1.jsonl"), "claude-code", None),
        (str(tmp_path / "b" / "s1.jsonl"), "claude-code", None)]


def test_folder_nested_1100_levels_deep_is_walked_without_recursion_error(
    tmp_path: Path,
) -> None:
    """A trace 1,100 folders down is found (``os.walk`` recursed and raised RecursionError)."""
    chain = []
    deepest = tmp_path
    try:
        for _ in range(1100):  # Path.mkdir(parents=True) recurses too
            deepest = deepest / "d"
            os.mkdir(deepest)
            chain.append(deepest)
        (deepest / "x.jsonl").write_text(
            '{"type":"tool_execution_start","toolCallId":"a","toolName":"r","timestamp":1}\n',
            encoding="utf-8")
        (tmp_path / "a.jsonl").write_text("{}\n", encoding="utf-8")
        entries = expand_inputs([str(tmp_path)])
        assert entries == [(str(tmp_path / "a.jsonl"), None), (str(deepest / "x.jsonl"), None)]
    finally:
        # removed here, deepest first: pytest's own clean-up (shutil.rmtree) recurses
        (deepest / "x.jsonl").unlink(missing_ok=True)
        for folder in reversed(chain):
            os.rmdir(folder)


def test_a_run_of_empty_lines_in_gzip_is_one_piece_and_every_line_counted(
    tmp_path: Path,
) -> None:
    """200 000 empty lines between two records of a gzip input: each counts as a
    ``blank_line`` (the source hands the run over in pieces, not line by line)."""
    record = b'{"type":"turn_start","timestamp":1}\n'
    path = tmp_path / "padded.jsonl.gz"
    path.write_bytes(gzip.compress(record + b"\n" * 200_000 + b"\r\n" + record, mtime=0))
    (report,) = read_inputs([str(path)]).inputs
    assert (report.format, report.lines_read, report.lines_used, report.ignored,
            report.problems) == ("events", 200_003, 2, {"blank_line": 200_001}, {})
    pieces = list(Source(str(path)).lines())
    assert len(pieces) < 100  # runs of b"\n" come as a few pieces of up to 64 KiB
    assert b"".join(pieces) == record + b"\n" * 200_000 + b"\r\n" + record


def test_copies_are_found_by_content_and_only_files_sharing_heads_are_hashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files sharing a stem and size are copies only if their content is the same; a file
    whose first 4096 bytes match no other's is never hashed whole, unless a gzip file is
    in its group."""
    sources = sources_module
    hashed: list[str] = []
    digest = sources._content_digest

    def counted(path: str) -> str | None:
        hashed.append(os.path.basename(os.path.dirname(path)))
        return digest(path)

    monkeypatch.setattr(sources, "_content_digest", counted)
    same = b"a" * 5000 + b"\n"
    for folder, data in (("one", same), ("two", same), ("other", b"b" * 5000 + b"\n"),
                         ("late", b"a" * 4096 + b"c" * 904 + b"\n")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "run.jsonl").write_bytes(data)
    paths = [str(tmp_path / f / "run.jsonl") for f in ("one", "two", "other", "late")]
    # "late" differs after its first 4096 bytes: hashed, and not a copy
    assert sources.identical_inputs(paths) == {paths[1]: paths[0]}
    assert sorted(hashed) == ["late", "one", "two"]
    hashed.clear()
    (tmp_path / "zipped").mkdir()
    (tmp_path / "zipped" / "run.jsonl.gz").write_bytes(gzip.compress(same))
    assert os.path.getsize(tmp_path / "zipped" / "run.jsonl.gz") != len(same)
    zipped = str(tmp_path / "zipped" / "run.jsonl.gz")
    # same content size (the gzip trailer): a gzip head says nothing, the group is hashed
    assert sources.identical_inputs([*paths, zipped]) == {paths[1]: paths[0], zipped: paths[0]}
    assert sorted(hashed) == ["late", "one", "other", "two", "zipped"]


def test_a_swe_agent_trajectory_in_a_folder_is_an_input_error_as_when_named(
    tmp_path: Path,
) -> None:
    """A ``*.traj`` found in a folder is read and reported as SWE-agent's unmeasurable
    format (an input error with the reason, exit 1), as the README says of a named one;
    the walk used to leave it out without a word (no error, no skip count)."""
    from tests.reader_checks import cli_document

    project = _project(tmp_path)
    for name in ("meta.json", "journal.jsonl", "s1"):
        path = project / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    (project / "run.traj").write_text('{"trajectory": []}\n', encoding="utf-8")
    code, document = cli_document(["--no-cache", str(project)])
    assert code == 1
    assert [(entry["path"], entry["error"]) for entry in document["inputs"]] == [
        (str(project / "run.traj"),
         "SWE-agent trajectory: it has no absolute timestamps (only per-step execution_time),"
         " so tool calls cannot be placed in time; nothing to measure"),
        (str(project / "s1.jsonl"), None),
    ]
    assert "skipped_files" not in document


def test_head_records_skips_a_line_nested_past_json_s_depth(tmp_path: Path) -> None:
    """A first line nested deeper than ``json`` can parse is no header record, not a
    crash: the records of the lines after it are still found (``--by project`` reads a
    Codex rollout's ``cwd`` this way)."""
    from wavemetrics.readers.sources import head_records

    trace = tmp_path / "rollout.jsonl"
    trace.write_text("[" * 100_000 + "\n" + '{"cwd": "/p"}\n[1]\n{"n": 2}\n', encoding="utf-8")
    assert head_records(str(trace)) == [{"cwd": "/p"}, {"n": 2}]
    assert head_records(str(trace), count=1) == []
