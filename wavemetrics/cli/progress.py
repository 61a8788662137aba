"""The progress bar of a long read: weighted by bytes, with files done out of the total.

Files differ in size by orders of magnitude (a 2 KB sub-agent file, a 300 MB
session), so a bar that moves one step per file makes its time estimate jump;
it moves by each file's size instead. The bar is drawn on stderr with
``click.progressbar`` and cleared when the read ends.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from types import TracebackType
from typing import Any

import click

__all__ = ["ByteProgress", "file_size"]

#: Moves the cursor up one line and clears it: the bar leaves no line behind.
_CLEAR_LINE = "\x1b[1A\r\x1b[2K"


def file_size(path: str) -> int:
    """Bytes of ``path`` on disk (compressed size for a .gz); 0 when it cannot be sized."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


class ByteProgress:
    """A context manager around ``click.progressbar`` for the files of one read.

    ``done(paths)`` (the ``progress`` callback of ``read_inputs``) advances the
    bar by those files' sizes and its label by their count: ``reading 3/250
    files``. A file of size 0 still counts as one byte, so the bar ends full.
    """

    def __init__(self, files: Sequence[str], *, file: Any = None) -> None:
        self._sizes = {path: max(file_size(path), 1) for path in files}
        self._total_files = len(self._sizes)
        self._files_done = 0
        self._file = file if file is not None else sys.stderr
        self._bar: Any = None

    @property
    def bytes_done(self) -> int:
        """Bytes of the files done so far (the bar's position)."""
        return int(self._bar.pos) if self._bar is not None else 0

    @property
    def bytes_total(self) -> int:
        """Bytes of every file of the read (the bar's length)."""
        return sum(self._sizes.values())

    def label(self) -> str:
        """What the bar says beside itself: files done out of the total."""
        return f"reading {self._files_done}/{self._total_files} files"

    def __enter__(self) -> ByteProgress:
        self._bar = click.progressbar(
            length=sum(self._sizes.values()), label=self.label(), file=self._file,
            show_eta=True, show_percent=True,
        ).__enter__()
        return self

    def weight(self, path: str) -> int:
        """What ``path`` weighs on the bar: its size in bytes, at least 1 (1 for a path
        not among the files)."""
        return self._sizes.get(path, 1)

    def reached(self, files_done: int, bytes_done: int) -> None:
        """Move to ``files_done`` files and ``bytes_done`` bytes (of :meth:`weight`) done,
        as counted elsewhere (the native command's read: never back)."""
        self._files_done = files_done
        self._bar.label = self.label()
        if bytes_done > self._bar.pos:
            self._bar.update(bytes_done - self._bar.pos)

    def done(self, paths: Sequence[str]) -> None:
        """Advance by ``paths``, just read (unknown paths count as one byte)."""
        self._files_done += len(paths)
        self._bar.label = self.label()
        self._bar.update(sum(self._sizes.get(path, 1) for path in paths))

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._bar.__exit__(kind, error, trace)
        if getattr(self._file, "isatty", lambda: False)():  # it drew: clear its line
            self._file.write(_CLEAR_LINE)
            self._file.flush()
