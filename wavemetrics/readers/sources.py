"""Inputs: files, directories and stdin, opened as streams of raw lines."""

from __future__ import annotations

import gzip
import os
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import attrs

__all__ = ["STDIN", "Source", "expand_paths"]

STDIN = "-"
TRACE_SUFFIXES = (".jsonl", ".json", ".jsonl.gz", ".json.gz")
# Claude Code writes agent-*.meta.json beside sub-agent transcripts: metadata, not a trace.
_SKIPPED_SUFFIXES = (".meta.json",)


@attrs.define(eq=False)
class Source:
    """One input: a file path or stdin. ``error`` holds why reading stopped early.

    Lines are read lazily; stdin can be peeked (for detection) and then read
    once in full, the peeked lines first.
    """

    path: str
    error: str | None = None
    _peeked: list[bytes] | None = None
    _stream: BinaryIO | None = None

    @property
    def is_stdin(self) -> bool:
        return self.path == STDIN

    def _open(self) -> BinaryIO:
        if self.is_stdin:
            return sys.stdin.buffer
        if self.path.endswith(".gz"):
            return gzip.open(self.path, "rb")  # type: ignore[return-value]
        return open(self.path, "rb")

    def peek(self, count: int) -> list[bytes]:
        """First lines, up to ``count`` with content (blank lines do not count).

        For stdin the lines are kept and replayed first by :meth:`lines`.
        """
        if self.is_stdin:
            if self._peeked is None:
                self._stream = self._open()
                self._peeked = _take(self._guarded(self._stream, close=False), count)
            return list(self._peeked)
        stream = self._open()
        try:
            return _take(self._guarded(stream, close=False), count)
        finally:
            stream.close()

    def lines(self) -> Iterator[bytes]:
        """Every raw line; an I/O or decompression failure stops it and sets ``error``."""
        if self.is_stdin:
            yield from self._peeked or ()
            stream = self._stream or self._open()
            yield from self._guarded(stream, close=False)
            return
        yield from self._guarded(self._open(), close=True)

    def _guarded(self, stream: BinaryIO, *, close: bool) -> Iterator[bytes]:
        try:
            yield from stream
        except (OSError, EOFError, zlib.error) as exc:
            self.error = _describe(exc)
        finally:
            if close:
                stream.close()


def _take(lines: Iterator[bytes], count: int) -> list[bytes]:
    taken: list[bytes] = []
    with_content = 0
    for line in lines:
        taken.append(line)
        with_content += bool(line.strip())
        if with_content >= count:
            break
    return taken


def _describe(exc: BaseException) -> str:
    if isinstance(exc, EOFError):
        return "compressed stream ended early (file cut short)"
    if isinstance(exc, gzip.BadGzipFile):
        return f"not a valid gzip file ({exc})"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


def open_error(path: str) -> str | None:
    """Why ``path`` cannot be opened for reading, or ``None`` if it can."""
    try:
        with open(path, "rb"):
            return None
    except OSError as exc:
        return _describe(exc)


def _is_trace_name(name: str) -> bool:
    return name.endswith(TRACE_SUFFIXES) and not name.endswith(_SKIPPED_SUFFIXES)


def expand_paths(paths: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Expand directories recursively to their trace files, sorted; keep other paths.

    Returns ``(files, errors)``: ``errors`` are ``(path, reason)`` for paths that
    do not exist or directories with no trace file. Symbolic links to
    directories are not followed (no loops); links to files are read.
    """
    files: list[str] = []
    errors: list[tuple[str, str]] = []
    for path in paths:
        if path == STDIN:
            files.append(path)
        elif os.path.isdir(path):
            found: list[str] = []
            for root, dirs, names in os.walk(path, onerror=None):
                dirs.sort()
                found.extend(os.path.join(root, n) for n in sorted(names) if _is_trace_name(n))
            if not found:
                errors.append((path, "no *.jsonl or *.json trace files in this directory"))
            files.extend(found)
        elif os.path.exists(path):
            files.append(path)
        elif os.path.lexists(path):
            errors.append((path, "broken symbolic link"))
        else:
            errors.append((path, "no such file or directory"))
    return files, errors


def project_folder(path: str) -> str:
    """Claude Code project folder of a transcript: the parent folder, or for
    ``<project>/<session>/subagents/agent-*.jsonl`` the ``<project>`` folder."""
    pure = Path(os.path.abspath(path))
    if pure.parent.name == "subagents":
        return str(pure.parent.parent.parent)
    return str(pure.parent)
