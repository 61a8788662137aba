"""Reading an appended file from where it ended: the checks and the reading of the
status line's live state (:mod:`wavemetrics.cache.live`).

Kept apart so that the live path imports neither the pipeline nor attrs-heavy
modules it does not need (it answers every prompt). The rules: a file is read
on from an offset (just after its last complete, newline-ended line) only when
it is plain (not gzip: no offset to seek to), has the same path and inode, a
larger size, BLAKE2b digests of the :data:`WINDOW` bytes that begin it and of
the :data:`WINDOW` bytes before the offset still matching, and no UTF-8 BOM at
the offset (a reader drops a BOM on a file's first line only). A partial last
line (no newline yet: the agent was writing it) is read again with what
follows, never counted twice.

What the check could miss: a rewrite in place (same inode) that leaves both
windows as they were, changes bytes between them and makes the file larger.
Appending writers never do this; editors and tools that rewrite a file write a
new inode, and a truncation makes the file smaller; both are full reads.
Hashing the whole prefix would close it at the price of reading it (what
reading on avoids).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import IO, Any

import attrs

from wavemetrics.readers.sources import GZIP_MAGIC, Source

__all__ = ["WINDOW"]

#: Bytes hashed at the start of the last file and before ``end`` (64 KiB each).
WINDOW = 64 * 1024
_BOM = b"\xef\xbb\xbf"


def _open_at(path: str, offset: int) -> IO[bytes]:
    """``path`` opened for binary reading at ``offset`` (tests wrap it to count bytes)."""
    stream = open(path, "rb")  # noqa: SIM115 (closed by the Source reading it)
    stream.seek(offset)
    return stream


@attrs.define(eq=False)
class _FileFrom(Source):
    """A plain file read from byte ``offset`` on, keeping its open stream (for ``tell``)."""

    offset: int = 0
    stream: IO[bytes] | None = None

    def _open(self) -> Any:
        self.stream = _open_at(self.path, self.offset)
        return self.stream


def _digests(path: str, end: int) -> tuple[bytes, bytes, bytes] | None:
    """BLAKE2b of the first :data:`WINDOW` bytes before ``end`` and of the last ones,
    and the 3 bytes at ``end``; ``None`` if the file cannot be read that far."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(min(WINDOW, end))
            start = max(0, end - WINDOW)
            if end <= WINDOW:  # the head is the whole prefix
                tail = head[start:end]
            else:
                stream.seek(start)
                tail = stream.read(end - start)
            stream.seek(end)
            after = stream.read(len(_BOM))
    except OSError:
        return None
    if len(head) != min(WINDOW, end) or len(tail) != end - start:
        return None
    return (hashlib.blake2b(head, digest_size=16).digest(),
            hashlib.blake2b(tail, digest_size=16).digest(), after)


def _plain(path: str) -> bool:
    """A file the resumable read takes: not gzip (by suffix or magic bytes)."""
    if path.endswith(".gz"):
        return False
    try:
        with open(path, "rb") as stream:
            return stream.read(2) != GZIP_MAGIC
    except OSError:
        return False


def _marked(
    lines: Iterator[bytes], source: _FileFrom, size: int, terminated: bool,
    mark: Callable[[int], None],
) -> Iterator[bytes]:
    """``lines`` of the last file; ``mark(offset)`` is called once, before the line that
    has no newline yet (if any) is handed on, with the offset where that line begins."""
    position = source.offset
    marked = False
    for raw in lines:
        now = source.stream.tell() if source.stream is not None else position
        if not marked and not terminated and now >= size:
            mark(position)
            marked = True
        position = now
        yield raw
    if not marked:
        mark(position)
