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
from pathlib import PurePath
from typing import BinaryIO

import attrs

from wavemetrics._paths import absolute
from wavemetrics._suffixes import SKIPPED_SUFFIXES, TRACE_SUFFIXES
from wavemetrics.limits import InputTooLargeError, Limits, current_limits, mib
from wavemetrics.readers._lines import LINE_TOO_LONG, os_text

__all__ = [
    "EMPTY_FOLDER",
    "SIDECAR_REASON",
    "STDIN",
    "Expansion",
    "Source",
    "expand",
    "expand_paths",
    "head_records",
    "identical_inputs",
]

STDIN = "-"
_CHUNK = 1 << 16
#: Why a folder gave nothing to read: every suffix a folder walk reads.
EMPTY_FOLDER = ("no trace files in this directory (read: "
                + ", ".join(f"*{suffix}" for suffix in TRACE_SUFFIXES) + ")")


@attrs.define(eq=False)
class Source:
    """One input: a file path or stdin. ``error`` holds why reading stopped early.

    Lines are read lazily; stdin and other inputs that can be read only once
    (pipes, ``<(...)``, devices) are opened once: they can be peeked (for
    detection) and then read once in full, the peeked lines first.

    Lines are bounded by ``limits`` (:mod:`wavemetrics.limits`, taken from
    :func:`~wavemetrics.limits.current_limits` when the source is made): a
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
#: How many first lines with content detection looks at (``readers.registry``).
DETECT_LINES = 64


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
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


def open_error(path: str) -> str | None:
    """Why ``path`` cannot be opened for reading, or ``None`` if it can.

    What ``open(path, "rb")`` would raise, found with a bare file descriptor: the
    same ``open(2)`` call, and a folder refused as ``open`` refuses it (EISDIR),
    without building a buffered file object (~7 us a file instead of ~1, the
    native engine asks for every file of a folder: docs/performance.md)."""
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


def _is_trace_name(name: str) -> bool:
    return name.endswith(TRACE_SUFFIXES) and not name.endswith(SKIPPED_SUFFIXES)


#: Why a ``*.meta.json`` file found in a folder is skipped without being opened.
SIDECAR_REASON = "metadata sidecar (*.meta.json, written beside Claude Code sub-agents)"


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


def _walk_files(
    folder: str, onerror: Callable[[OSError], None]
) -> Iterator[tuple[str, list[str], set[str]]]:
    """``(folder, sorted non-folder names, plain names)`` of ``folder`` and every
    sub-folder, depth first, sub-folders in name order: the order of ``os.walk`` with
    sorted names. The plain names are those the listing shows as regular files that
    are not symbolic links (``DirEntry.is_file(follow_symlinks=False)``: no system
    call where the file system gives the entry's type).

    Iterative, so a tree nested 1,100 levels deep cannot raise ``RecursionError``
    (``os.walk`` recurses before Python 3.12). Links to folders are not followed;
    a folder that cannot be listed is passed to ``onerror``.
    """
    stack = [folder]
    while stack:
        root = stack.pop()
        try:
            with os.scandir(root) as scan:
                entries = list(scan)
        except OSError as exc:
            onerror(exc)
            continue
        subfolders: list[str] = []
        names: list[str] = []
        plain: set[str] = set()
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                names.append(entry.name)
                try:
                    if entry.is_file(follow_symlinks=False):
                        plain.add(entry.name)
                except OSError:
                    pass  # looked at again by the caller
            elif not entry.is_symlink():
                subfolders.append(entry.name)
        yield root, sorted(names), plain
        stack.extend(os.path.join(root, name) for name in sorted(subfolders, reverse=True))


def _walk(
    folder: str, skipped: list[tuple[str, str]] | None = None
) -> tuple[list[str], list[tuple[str, str]], set[str]]:
    """The trace files under ``folder``, the unreadable entries with their reason, and
    the files found that the listing showed as regular files, not links (not stat'ed
    again here: a file that vanishes before it is read gets its error from the read)."""
    found: list[str] = []
    bad: list[tuple[str, str]] = []
    plain_files: set[str] = set()

    def unreadable(exc: OSError) -> None:
        bad.append((exc.filename or folder, _describe(exc)))

    for root, names, plain in _walk_files(folder, unreadable):
        for name in names:
            if not _is_trace_name(name):
                if skipped is not None and name.endswith(SKIPPED_SUFFIXES):
                    skipped.append((os.path.join(root, name), SIDECAR_REASON))
                continue
            full = os.path.join(root, name)
            if name in plain:
                found.append(full)
                plain_files.add(full)
                continue
            reason = _stat_error(full, regular=True)
            if reason is None:
                found.append(full)
            else:
                bad.append((full, reason))
    return found, bad, plain_files


@attrs.frozen
class Expansion:
    """What the paths a user named expand to.

    ``entries``: ``(path, error)`` pairs as :func:`expand_inputs` gives them;
    ``walked``: every file found inside a named folder, mapped to that folder;
    ``skipped``: ``(path, reason)`` of files found in folders and skipped without
    being read (metadata sidecars), counted in the report (``spec/formats.md``).
    """

    entries: list[tuple[str, str | None]]
    walked: dict[str, str]
    skipped: list[tuple[str, str]]


def expand(paths: list[str]) -> Expansion:
    """:func:`expand_inputs`, also saying which files a folder walk found or skipped."""
    walked: dict[str, str] = {}
    skipped: list[tuple[str, str]] = []
    entries = _expand(paths, walked, skipped)
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
    return _expand(paths, {}, [])


def _expand(
    paths: list[str], walked: dict[str, str], skipped: list[tuple[str, str]]
) -> list[tuple[str, str | None]]:
    entries: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    real_folders: dict[str, str] = {}

    def real(path: str, plain: bool) -> str:
        # os.path.realpath(path), with each folder resolved once (not once per file);
        # ``plain``: a folder walk's file listed as no link (so not looked at again)
        folder, name = os.path.split(path)
        if not plain and (name in ("", ".", "..") or os.path.islink(path)):
            return os.path.realpath(path)
        if folder not in real_folders:
            real_folders[folder] = os.path.realpath(folder)
        return os.path.join(real_folders[folder], name)

    def add_file(path: str, plain: bool = False) -> None:
        key = path if path == STDIN else real(path, plain)
        if key not in seen:
            seen.add(key)
            entries.append((path, None))

    for path in paths:
        if path == STDIN:
            add_file(path)
        elif os.path.isdir(path):
            found, bad, plain = _walk(path, skipped)
            if not found and not bad:
                entries.append((path, EMPTY_FOLDER))
            for file in found:
                walked.setdefault(file, path)
                add_file(file, file in plain)
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
    by_stem: dict[str, list[str]] = {}
    for path in paths:
        if path != STDIN:
            by_stem.setdefault(file_stem(path), []).append(path)
    # only files sharing a stem are opened (most runs: none), each once here
    by_key: dict[tuple[str, int], list[str]] = {}
    heads: dict[str, bytes | None] = {}
    for stem, named in by_stem.items():
        if len(named) > 1:
            for path in named:
                if os.path.isfile(path):
                    size, heads[path] = _size_and_head(path)
                    by_key.setdefault((stem, size), []).append(path)
    copies: dict[str, str] = {}
    for group in by_key.values():
        if len(group) < 2:
            continue
        first: dict[str, str] = {}
        for path in _same_heads(group, heads):
            digest = _content_digest(path)
            if digest is None:
                continue
            if digest in first:
                copies[path] = first[digest]
            else:
                first[digest] = path
    return copies


#: Bytes of a plain file compared before its whole content is hashed.
_HEAD_BYTES = 4096


def _same_heads(group: list[str], heads: dict[str, bytes | None]) -> list[str]:
    """The files of ``group`` that may have the same content as another of them, in order.

    Plain files whose first :data:`_HEAD_BYTES` bytes (``heads``, from
    :func:`_size_and_head`) match no other file's cannot be a copy, so they are not
    hashed whole; a gzip file (or one that cannot be read: head ``None``) is always
    kept, since its head says nothing of its content.
    """
    if any(heads[path] is None for path in group):
        return group
    count: dict[bytes | None, int] = {}
    for path in group:
        count[heads[path]] = count.get(heads[path], 0) + 1
    return [path for path in group if count[heads[path]] > 1]


def _size_and_head(path: str) -> tuple[int, bytes | None]:
    """Bytes of ``path``'s content and its first :data:`_HEAD_BYTES` bytes, in one open.

    The size is a gzip file's ISIZE trailer (the size mod 2**32 of its last member; a
    key to compare by, not a measure), else its size on disk; ``-1`` when the file
    cannot be read. The head is ``None`` for a gzip file or one that cannot be read.
    """
    try:
        with open(path, "rb") as stream:
            head = stream.read(_HEAD_BYTES)
            if not head.startswith(GZIP_MAGIC):
                return os.fstat(stream.fileno()).st_size, head
            stream.seek(-4, os.SEEK_END)
            return int.from_bytes(stream.read(4), "little"), None
    except OSError:
        return -1, None


def _content_digest(path: str) -> str | None:
    source = Source(path)
    digest = hashlib.sha256()
    for line in source.lines():
        if line is LINE_TOO_LONG:  # not held, so not compared: never taken as a copy
            return None
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
    text = os_text(path)
    name = os.path.basename(text)
    if name in ("", ".", "..") or "/." in text or "//" in text:
        name = PurePath(text).name  # what pathlib makes of odd paths
    name = name.removesuffix(".gz")
    # PurePath(name).stem (os.path is several times faster, with the same rule)
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def project_folder(path: str) -> str:
    """Claude Code project folder of a transcript: the parent folder, or for
    ``<project>/<session>/subagents/agent-*.jsonl`` the ``<project>`` folder."""
    parent = os.path.dirname(absolute(path))  # os.path: ~10x faster than pathlib
    if os.path.basename(parent) == "subagents":
        return os.path.dirname(os.path.dirname(parent))
    return parent


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
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records
