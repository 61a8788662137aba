"""The progress bar of a long read (``wavemetrics.cli.progress``): bytes, files, cleared."""

from __future__ import annotations

import io
import re
from pathlib import Path

from wavemetrics.cli.progress import ByteProgress


class _Terminal(io.StringIO):
    """A text stream that says it is a terminal, so the bar draws on it."""

    def isatty(self) -> bool:
        return True


def test_bar_moves_by_bytes_and_counts_files(tmp_path: Path) -> None:
    """A 10-byte file done of 10 + 990 bytes moves the bar 1 %, and the label says 1/2 files."""
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    small.write_bytes(b"x" * 10)
    big.write_bytes(b"x" * 990)
    terminal = _Terminal()
    with ByteProgress([str(small), str(big)], file=terminal) as bar:
        assert bar.label() == "reading 0/2 files"
        bar.done([str(small)])
        assert bar.label() == "reading 1/2 files"
        assert (bar.bytes_done, bar.bytes_total) == (10, 1000)
        bar.done([str(big)])
        assert bar.bytes_done == 1000
    text = terminal.getvalue()
    # cleared at the end: the last thing written moves up and erases the bar's line
    assert text.endswith("\x1b[1A\r\x1b[2K")
    # every frame click drew, each with the cursor hidden; an ETA (time-dependent: only
    # when a step takes a second or more) is dropped before comparing
    frames = [re.sub(r"  [0-9d :]+$", "", frame)
              for frame in text[: -len("\x1b[1A\r\x1b[2K")].split("\r")[1:]]
    empty, full = "-" * 36, "#" * 36
    assert frames == [
        f"\x1b[?25lreading 0/2 files  [{empty}]    0%",
        f"\x1b[?25lreading 1/2 files  [{empty}]    1%",
        f"\x1b[?25lreading 2/2 files  [{full}]  100%\x1b[?25h\n",
    ]


def test_an_empty_file_still_moves_the_bar(tmp_path: Path) -> None:
    """A file of 0 bytes counts as one byte, so the bar ends full."""
    empty = tmp_path / "e.jsonl"
    empty.write_bytes(b"")
    with ByteProgress([str(empty)], file=io.StringIO()) as bar:
        bar.done([str(empty)])
        assert (bar.bytes_done, bar.bytes_total) == (1, 1)


def test_a_count_made_elsewhere_moves_the_bar_forward_only(tmp_path: Path) -> None:
    """The native command's read counts files and bytes itself (``reached``): the bar
    goes to that count, its label to the files done, and never back; ``weight`` is what
    each file counts for (its size, at least 1; 1 for a file not among them)."""
    small, empty = tmp_path / "small.jsonl", tmp_path / "empty.jsonl"
    small.write_bytes(b"x" * 30)
    empty.write_bytes(b"")
    with ByteProgress([str(small), str(empty)], file=io.StringIO()) as bar:
        assert [bar.weight(str(small)), bar.weight(str(empty)), bar.weight("other")] == [
            30, 1, 1]
        bar.reached(1, 30)
        assert (bar.label(), bar.bytes_done) == ("reading 1/2 files", 30)
        bar.reached(1, 12)  # an older count: the bar stays
        assert bar.bytes_done == 30
        bar.reached(2, 31)
        assert (bar.label(), bar.bytes_done, bar.bytes_total) == ("reading 2/2 files", 31, 31)
