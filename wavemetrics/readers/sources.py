"""Inputs: files, directories and stdin, opened as streams of raw lines."""

from __future__ import annotations

import errno
import gzip
import hashlib
import os
import stat
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import BinaryIO

import attrs

from wavemetrics.readers._lines import os_text

__all__ = ["EMPTY_FOLDER", "STDIN", "Source", "expand_paths", "head_records", "identical_inputs"]

STDIN = "-"
TRACE_SUFFIXES = (".jsonl", ".json", ".jsonl.gz", ".json.gz", ".eval")
# Claude Code writes agent-*.meta.json beside sub-agent transcripts: metadata, not a trace.
_SKIPPED_SUFFIXES = (".meta.json",)
_CHUNK = 1 << 16
#: Why a folder gave nothing to read: every suffix a folder walk reads.
EMPTY_FOLDER = ("no trace files in this directory (read: "
                + ", ".join(f"*{suffix}" for suffix in TRACE_SUFFIXES) + ")")


@attrs.define(eq=False)
class Source:
    """One input: a file path or stdin. ``error`` holds why reading stopped early.

    Lines are read lazily; stdin and other inputs that can be read only once
    (pipes, ``<(...)``) can be peeked (for detection) and then read once in
    full, the peeked lines first.
    """

    path: str
    error: str | None = None
    _peeked: list[bytes] | None = None
    _live: Iterator[bytes] | None = None

    @property
    def is_stdin(self) -> bool:
        return self.path == STDIN

    def _read_once(self) -> bool:
        # Reopening a pipe would lose the lines detection already consumed.
        if self.is_stdin:
            return True
        try:
            return not stat.S_ISREG(os.stat(self.path).st_mode)
        except OSError:
            return False

    def _open(self) -> BinaryIO:
        # Compression is told by the gzip magic bytes, and by the .gz suffix (a
        # .gz file without them is a damaged gzip, said so): `gzip -c f | ... -`.
        if self.is_stdin:
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

    def peek(self, count: int) -> list[bytes]:
        """First lines, up to ``count`` with content (blank lines do not count).

        For stdin and pipes the lines are kept and replayed first by :meth:`lines`.
        """
        if self._read_once():
            if self._peeked is None:
                self._live = self._guarded(self._open(), close=not self.is_stdin)
                self._peeked = _take(self._live, count)
            return list(self._peeked)
        stream = self._open()
        try:
            return _take(self._guarded(stream, close=False), count)
        finally:
            stream.close()

    def lines(self) -> Iterator[bytes]:
        """Every raw line; an I/O or decompression failure stops it and sets ``error``."""
        if self._read_once():
            yield from self._peeked or ()
            yield from self._live or self._guarded(self._open(), close=not self.is_stdin)
            return
        yield from self._guarded(self._open(), close=True)

    def _guarded(self, stream: BinaryIO, *, close: bool) -> Iterator[bytes]:
        try:
            yield from _split_lines(stream) if isinstance(stream, gzip.GzipFile) else stream
        except (OSError, EOFError, zlib.error) as exc:
            self.error = _describe(exc)
        finally:
            if close:
                stream.close()


GZIP_MAGIC = b"\x1f\x8b"


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


def _split_lines(stream: gzip.GzipFile) -> Iterator[bytes]:
    """Lines of a decompressing stream; the partial last line of a stream cut short
    is yielded (without its newline) before the error propagates, so it is counted."""
    # Iterating the stream itself would drop that partial line with the error.
    parts: list[bytes] = []
    try:
        while chunk := stream.read1(_CHUNK):
            start = 0
            while (end := chunk.find(b"\n", start)) != -1:
                parts.append(chunk[start : end + 1])
                yield b"".join(parts)
                parts = []
                start = end + 1
            if start < len(chunk):
                parts.append(chunk[start:])
    except (OSError, EOFError, zlib.error):
        if parts:
            yield b"".join(parts)
        raise
    if parts:
        yield b"".join(parts)


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
        # "Not a gzipped file (b'..')" quotes file content, which is never printed.
        detail = "no gzip header" if str(exc).startswith("Not a gzipped") else str(exc)
        return f"not a valid gzip file ({detail})"
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


def _stat_error(path: str, *, regular: bool) -> str | None:
    """Why ``path`` cannot be read as a trace file, or ``None``; with ``regular``,
    only regular files qualify (a FIFO in a folder would block the read forever)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ENOENT and os.path.islink(path):
            return "broken symbolic link"
        return _describe(exc)
    if regular and not stat.S_ISREG(mode):
        return "not a regular file (skipped)"
    return None


def _walk(folder: str) -> tuple[list[str], list[tuple[str, str]]]:
    found: list[str] = []
    bad: list[tuple[str, str]] = []

    def unreadable(exc: OSError) -> None:
        bad.append((exc.filename or folder, _describe(exc)))

    for root, dirs, names in os.walk(folder, onerror=unreadable):
        dirs.sort()
        for name in sorted(names):
            if not _is_trace_name(name):
                continue
            full = os.path.join(root, name)
            reason = _stat_error(full, regular=True)
            if reason is None:
                found.append(full)
            else:
                bad.append((full, reason))
    return found, bad


def expand_inputs(paths: list[str]) -> list[tuple[str, str | None]]:
    """Expand directories recursively to their trace files, in command-line order.

    Returns ``(path, error)`` pairs: ``error`` is ``None`` for a file (or ``-``)
    to read, else the reason for a path that does not exist, a directory with no
    trace file, or an entry of a directory that cannot be read (unreadable
    sub-folders, broken links, link loops, FIFOs and other non-regular files).
    Files inside a directory come sorted. A file reached twice (named twice, or
    also inside a named folder) is listed once, where it is first reached.
    Symbolic links to directories are not followed (no loops); links to files
    are read.
    """
    entries: list[tuple[str, str | None]] = []
    seen: set[str] = set()

    def add_file(path: str) -> None:
        key = path if path == STDIN else os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            entries.append((path, None))

    for path in paths:
        if path == STDIN:
            add_file(path)
        elif os.path.isdir(path):
            found, bad = _walk(path)
            if not found and not bad:
                entries.append((path, EMPTY_FOLDER))
            for file in found:
                add_file(file)
            entries.extend((bad_path, reason) for bad_path, reason in bad)
        elif os.path.exists(path):
            add_file(path)
        else:
            entries.append((path, _stat_error(path, regular=False) or "no such file or directory"))
    return entries


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
    by_key: dict[tuple[str, int], list[str]] = {}
    for path in paths:
        if path != STDIN and os.path.isfile(path):
            by_key.setdefault((file_stem(path), _content_size(path)), []).append(path)
    copies: dict[str, str] = {}
    for group in by_key.values():
        if len(group) < 2:
            continue
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


def _content_size(path: str) -> int:
    """Bytes of ``path``'s content: a gzip file's ISIZE trailer (the size mod 2**32
    of its last member; a key to compare by, not a measure), else its size on disk."""
    try:
        with open(path, "rb") as stream:
            if stream.read(2) != GZIP_MAGIC:
                return os.fstat(stream.fileno()).st_size
            stream.seek(-4, os.SEEK_END)
            return int.from_bytes(stream.read(4), "little")
    except OSError:
        return -1


def _content_digest(path: str) -> str | None:
    source = Source(path)
    digest = hashlib.sha256()
    for line in source.lines():
        digest.update(line)
    return None if source.error is not None else digest.hexdigest()


def file_stem(path: str) -> str:
    """Default session id of an input: ``stdin`` for ``-``, else the file name
    without its suffix (and without ``.gz`` first): ``a.b.jsonl`` -> ``a.b``.

    >>> file_stem("/x/run.2.jsonl.gz"), file_stem("-")
    ('run.2', 'stdin')
    """
    if path == STDIN:
        return "stdin"
    name = PurePath(os_text(path)).name.removesuffix(".gz")
    return PurePath(name).stem or name


def project_folder(path: str) -> str:
    """Claude Code project folder of a transcript: the parent folder, or for
    ``<project>/<session>/subagents/agent-*.jsonl`` the ``<project>`` folder."""
    pure = Path(os.path.abspath(path))
    if pure.parent.name == "subagents":
        return str(pure.parent.parent.parent)
    return str(pure.parent)


def head_records(path: str, count: int = 5) -> list[dict[str, object]]:
    """The JSON objects among the first ``count`` lines of a file (plain or ``.gz``);
    ``[]`` when it cannot be read. For header fields (a session's ``cwd``), never text."""
    import json

    records: list[dict[str, object]] = []
    source = Source(path)
    try:
        lines = source.peek(count)
    except OSError:
        return records
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records
