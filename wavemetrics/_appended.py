"""Reading an appended file from where it ended: the checks and the reading shared by
:mod:`wavemetrics.resume` (read units) and :mod:`wavemetrics.live` (the status line).

Kept apart so that the status line's live path imports neither the pipeline nor
attrs-heavy modules it does not need (it answers every prompt); the rules are those documented
in :mod:`wavemetrics.resume`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, Any

import attrs

from wavemetrics.readers.sources import GZIP_MAGIC, Source

if TYPE_CHECKING:
    from wavemetrics.cache import FileKey

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


def _terminated(key: FileKey) -> bool | None:
    """Whether the file ends with a newline (or is empty); ``None`` if it cannot be read."""
    if key.size == 0:
        return True
    try:
        with open(key.path, "rb") as stream:
            stream.seek(key.size - 1)
            return stream.read(1) == b"\n"
    except OSError:
        return None


