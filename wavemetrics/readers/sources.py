"""Inputs: files, directories and stdin, opened as streams of raw lines."""

from __future__ import annotations

import errno
import gzip
import hashlib
import os
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from typing import BinaryIO

import attrs

# the folder walk and the names of paths: stdlib only, shared with wavemetrics.run.fastpath
from wavemetrics.inputs._files import (
    DETECT_LINES,
    EMPTY_FOLDER,
    GZIP_MAGIC,
    SIDECAR_REASON,
    STDIN,
    copy_candidates,
    describe_os_error,
    expand_entries,
    file_stem,
    project_folder,
)
from wavemetrics.readers._lines import LINE_TOO_LONG
from wavemetrics.readers.limits import InputTooLargeError, Limits, current_limits, mib

__all__ = [
    "DETECT_LINES",
    "EMPTY_FOLDER",
    "GZIP_MAGIC",
    "SIDECAR_REASON",
    "STDIN",
    "Expansion",
    "Source",
    "expand",
    "expand_paths",
    "file_stem",
    "head_records",
    "identical_inputs",
    "project_folder",
]

_CHUNK = 1 << 16


@attrs.define(eq=False)
class Source:
    """One input: a file path or stdin. ``error`` holds why reading stopped early.

    Lines are read lazily; stdin and other inputs that can be read only once
    (pipes, ``<(...)``, devices) are opened once: they can be peeked (for
    detection) and then read once in full, the peeked lines first.

    Lines are bounded by ``limits`` (:mod:`wavemetrics.readers.limits`, taken from
    :func:`~wavemetrics.readers.limits.current_limits` when the source is made): a
    line longer than ``max_line_bytes`` is yielded as
    :data:`~wavemetrics.readers._lines.LINE_TOO_LONG` without being held; one
    still running after ``max_document_bytes`` ends the input with ``error``.
    """

    path: str
    error: str | None = None
    limits: Limits = attrs.field(factory=current_limits)
    _peeked: list[bytes] | None = None
    _live: Iterator[bytes] | None = None
    _once: bool | None = None

    @property
    def is_stdin(self) -> bool:
        return self.path == STDIN

    def read_once(self) -> bool:
        """Whether this input can be read only once (stdin, a pipe, a device)."""
        # Reopening a pipe would lose the lines detection already consumed, and a
        # FIFO opened twice loses a writer that wrote and closed in between.
        if self._once is None:
            try:
                self._once = self.is_stdin or not stat.S_ISREG(os.stat(self.path).st_mode)
            except OSError:
                self._once = False
        return self._once

    def _open(self) -> BinaryIO:
        # Compression is told by the gzip magic bytes, and by the .gz suffix (a
        # .gz file without them is a damaged gzip, said so): `gzip -c f | ... -`.
        if self.is_stdin:
            if sys.stdin is None:  # closed (``<&-``): an input that cannot be read
                raise OSError(errno.EBADF, "standard input is closed")
            stdin = sys.stdin.buffer
            if _starts_gzip(stdin):
                return gzip.GzipFile(fileobj=stdin, mode="rb")  # type: ignore[return-value]
            return stdin
        if self.path.endswith(".gz"):
            return gzip.open(self.path, "rb")  # type: ignore[return-value]
        stream = open(self.path, "rb")  # noqa: SIM115 (returned open, closed by its reader)
        if _starts_gzip(stream):
            stream.close()
            return gzip.open(self.path, "rb")  # type: ignore[return-value]
        return stream

    def _live_lines(self) -> Iterator[bytes]:
        if self._live is None:
            try:
                stream = self._open()
            except OSError as exc:
                self.error = _describe(exc)
                self._live = iter(())
            else:
                self._live = self._guarded(stream, close=not self.is_stdin)
        return self._live

    def peek(self, count: int) -> list[bytes]:
        """First lines, up to ``count`` with content (blank lines do not count).

        For stdin and pipes the lines are kept and replayed first by :meth:`lines`.
        """
        if self.read_once():
            if self._peeked is None:
                self._peeked = _take(self._live_lines(), count, self.limits.max_line_bytes)
            return list(self._peeked)
        try:
            stream = self._open()
        except OSError as exc:
            self.error = _describe(exc)
            return []
        try:
            return _take(self._guarded(stream, close=False), count, self.limits.max_line_bytes)
        finally:
            stream.close()

    def lines(self) -> Iterator[bytes]:
        """Every raw line; an I/O or decompression failure, or a line past
        ``max_document_bytes``, stops it and sets ``error``."""
        if self.read_once():
            yield from self._peeked or ()
            self._peeked = []
            yield from self._live_lines()
            return
        try:
            stream = self._open()
        except OSError as exc:
            self.error = _describe(exc)
            return
        yield from self._guarded(stream, close=True)

    def _guarded(self, stream: BinaryIO, *, close: bool) -> Iterator[bytes]:
        limits = self.limits
        try:
            if isinstance(stream, gzip.GzipFile):
                yield from _split_lines(stream, limits)
            else:
                yield from _bounded_lines(stream, limits)
        except (OSError, EOFError, zlib.error) as exc:
            self.error = _describe(exc)
        except InputTooLargeError as exc:
            self.error = str(exc)
        finally:
            if close:
                stream.close()


def _starts_gzip(stream: BinaryIO) -> bool:
    """Whether ``stream`` begins with the gzip magic bytes, leaving its position as it was.

    Pipes are looked at with ``peek`` (nothing is consumed); a stream that
    can neither peek nor seek is taken as not compressed.
    """
    peek = getattr(stream, "peek", None)
    if peek is not None:
        try:
            return bytes(peek(2)[:2]) == GZIP_MAGIC
        except (OSError, ValueError):
            return False
    if stream.seekable():
        head = stream.read(2)
        stream.seek(-len(head), os.SEEK_CUR)
        return head == GZIP_MAGIC
    return False


def _too_large(limits: Limits) -> InputTooLargeError:
    return InputTooLargeError(
        f"a line runs past {mib(limits.max_document_bytes)} (--max-document-bytes):"
        " not read further"
    )


def _skip_rest(read: Callable[[int], bytes], skipped: int, limits: Limits) -> Iterator[bytes]:
    """Skip the rest of an over-long line (``skipped`` bytes of it already read) to its
    newline; yields :data:`LINE_TOO_LONG` once the line is over, raises
    :class:`InputTooLargeError` when it runs past ``max_document_bytes``."""
    while True:
        if skipped > limits.max_document_bytes:
            yield LINE_TOO_LONG  # the line is counted before the input ends
            raise _too_large(limits)
        piece = read(_CHUNK)
        if not piece:
            yield LINE_TOO_LONG
            return
        end = piece.find(b"\n")
        if end != -1:
            yield LINE_TOO_LONG
            return
        skipped += len(piece)


def _bounded_lines(stream: BinaryIO, limits: Limits) -> Iterator[bytes]:
    """Lines of a plain stream, none longer than ``max_line_bytes`` (without its newline).

    ``readline`` with a size stops at the limit, so an over-long line is never
    held: it is skipped to its newline in chunks (:func:`_skip_rest`).
    """
    cap = limits.max_line_bytes + 1  # the content and its newline
    readline = stream.readline
    while line := readline(cap):
        if len(line) < cap or line.endswith(b"\n"):
            yield line
            continue
        yield from _skip_rest(readline, len(line), limits)


def _split_lines(stream: gzip.GzipFile, limits: Limits) -> Iterator[bytes]:
    """Lines of a decompressing stream, bounded as :func:`_bounded_lines`; the partial
    last line of a stream cut short is yielded (without its newline) before the
    error propagates, so it is counted."""
    # Iterating the stream itself would drop that partial line with the error.
    line_cap = limits.max_line_bytes
    parts: list[bytes] = []
    size = 0
    skipped = -1  # bytes of an over-long line skipped so far; -1: not skipping
    try:
        while chunk := stream.read1(_CHUNK):
            start = 0
            while (end := chunk.find(b"\n", start)) != -1:
                if skipped >= 0:
                    skipped = -1
                    yield LINE_TOO_LONG
                elif size + end - start > line_cap:
                    parts, size = [], 0
                    yield LINE_TOO_LONG
                elif not parts:  # the whole line is in this chunk (the common case)
                    if end == start and chunk.startswith(b"\n\n", start):
                        # a run of empty lines (padding): one piece, each newline
                        # still counted as a line by iter_records
                        run = len(chunk) - start - len(chunk[start:].lstrip(b"\n"))
                        yield chunk[start : start + run]
                        start += run
                        continue
                    yield chunk[start : end + 1]
                else:
                    parts.append(chunk[start : end + 1])
                    yield b"".join(parts)
                    parts, size = [], 0
                start = end + 1
            rest = len(chunk) - start
            if not rest:
                continue
            if skipped >= 0:
                skipped += rest
            elif size + rest > line_cap:
                skipped, parts, size = size + rest, [], 0
            else:
                parts.append(chunk[start:])
                size += rest
            if skipped > limits.max_document_bytes:
                yield LINE_TOO_LONG
                raise _too_large(limits)
    except (OSError, EOFError, zlib.error):
        if skipped >= 0:
            yield LINE_TOO_LONG
        elif parts:
            yield b"".join(parts)
        raise
    if skipped >= 0:
        yield LINE_TOO_LONG
    elif parts:
        yield b"".join(parts)


#: At most this many lines are peeked for detection, blank ones included.
MAX_PEEK_LINES = 100_000


def _take(lines: Iterator[bytes], count: int, byte_cap: int) -> list[bytes]:
    """First lines, up to ``count`` with content, and never more than
    :data:`MAX_PEEK_LINES` lines nor ``byte_cap`` bytes (the line that reaches
    it included): a flood of blank lines or of long lines is not held for
    detection (:func:`peek_was_cut` tells a peek cut short)."""
    taken: list[bytes] = []
    with_content = size = 0
    for line in lines:
        taken.append(line)
        size += len(line)
        with_content += bool(line.strip())
        if with_content >= count or len(taken) >= MAX_PEEK_LINES or size >= byte_cap:
            break
    return taken


def peek_was_cut(lines: list[bytes], byte_cap: int) -> bool:
    """Whether a peek stopped at its line or byte cap (more may follow)."""
    return len(lines) >= MAX_PEEK_LINES or sum(map(len, lines)) >= byte_cap


def _describe(exc: BaseException) -> str:
    if isinstance(exc, EOFError):
        return "compressed stream ended early (file cut short)"
    if isinstance(exc, gzip.BadGzipFile):
        # "Not a gzipped file (b'..')" quotes file content, which is never printed.
        detail = "no gzip header" if str(exc).startswith("Not a gzipped") else str(exc)
        return f"not a valid gzip file ({detail})"
    if isinstance(exc, OSError):
        return describe_os_error(exc)
    return str(exc) or type(exc).__name__


def open_error(path: str) -> str | None:
    """Why ``path`` cannot be opened for reading, or ``None`` if it can.

    What ``open(path, "rb")`` would raise, found with a bare file descriptor: the
    same ``open(2)`` call, and a folder refused as ``open`` refuses it (EISDIR),
    without building a buffered file object (~7 us a file instead of ~1, the
    native engine asks for every file of a folder: docs/performance-history.md)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        return _describe(exc)
    try:
        if stat.S_ISDIR(os.fstat(descriptor).st_mode):
            return _describe(IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path))
    finally:
        os.close(descriptor)
    return None


@attrs.frozen
class Expansion:
    """What the paths a user named expand to.

    ``entries``: ``(path, error)`` pairs as :func:`expand_inputs` gives them;
    ``walked``: every file found inside a named folder, mapped to that folder;
    ``skipped``: ``(path, reason)`` of files found in folders and skipped without
    being read (metadata sidecars), counted in the report (``docs/formats.md``).
    """

    entries: list[tuple[str, str | None]]
    walked: dict[str, str]
    skipped: list[tuple[str, str]]


def expand(paths: list[str]) -> Expansion:
    """:func:`expand_inputs`, also saying which files a folder walk found or skipped."""
    walked: dict[str, str] = {}
    skipped: list[tuple[str, str]] = []
    entries = expand_entries(paths, walked, skipped)
    return Expansion(entries, walked, skipped)


def expand_inputs(paths: list[str]) -> list[tuple[str, str | None]]:
    """Expand directories recursively to their trace files, in command-line order.

    Returns ``(path, error)`` pairs: ``error`` is ``None`` for a file (or ``-``)
    to read, else the reason for a path that does not exist, a directory with no
    trace file, or an entry of a directory that cannot be read (unreadable
    sub-folders, broken links, link loops, FIFOs and other non-regular files).
    Files inside a directory come sorted. A file reached twice (named twice, or
    also inside a named folder) is listed once, where it is first reached.
    Symbolic links to directories are not followed (no loops); links to files
    are read. Metadata sidecars (``*.meta.json``) in a folder are not listed
    (:func:`expand` reports them as skipped).
    """
    return expand_entries(paths, {}, [])



def expand_paths(paths: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """:func:`expand_inputs` split into ``(files, errors)``."""
    entries = expand_inputs(paths)
    files = [path for path, error in entries if error is None]
    errors = [(path, error) for path, error in entries if error is not None]
    return files, errors


def identical_inputs(paths: list[str]) -> dict[str, str]:
    """Files whose content repeats an earlier file's: ``{path: the earlier path}``.

    Only files that share a name stem (``x.jsonl``, ``x.jsonl.gz``,
    ``a/x.jsonl`` and ``b/x.jsonl``) and their content's size (a gzip file's
    size from its trailer) are compared, by the SHA-256 of their decompressed
    content, so that other inputs are read once only. A file that cannot be
    read whole is never taken as a copy.
    """
    copies: dict[str, str] = {}
    for group in copy_candidates(paths):
        first: dict[str, str] = {}
        for path in group:
            digest = _content_digest(path)
            if digest is None:
                continue
            if digest in first:
                copies[path] = first[digest]
            else:
                first[digest] = path
    return copies


def _content_digest(path: str) -> str | None:
    source = Source(path)
    digest = hashlib.sha256()
    for line in source.lines():
        if line is LINE_TOO_LONG:  # not held, so not compared: never taken as a copy
            return None
        digest.update(line)
    return None if source.error is not None else digest.hexdigest()


def head_records(path: str, count: int = 5) -> list[dict[str, object]]:
    """The JSON objects among the first ``count`` lines of a file (plain or ``.gz``);
    ``[]`` when it cannot be read. For header fields (a session's ``cwd``), never text."""
    import json

    records: list[dict[str, object]] = []
    source = Source(path)
    try:
        lines = source.peek(count)
    except (OSError, ValueError):  # InputTooLargeError is a ValueError
        return records
    from wavemetrics.readers.limits import nested_past

    for line in lines:
        if nested_past(line) is not None:  # past MAX_JSON_DEPTH (or no JSON): no header
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict):
            records.append(record)
    return records
