"""A compact set of the line ids seen, for de-duplication across a folder's files.

Claude Code readers remember every line ``uuid`` of a project folder
(``spec/formats.md``: resumed sessions copy earlier lines into new files). A
Python ``set`` of the id strings costs about 125 bytes per line and holds ids
of any length (a hostile 1 MB ``uuid`` is held whole), so memory grew with the
input well past the byte limits. :class:`SeenIds` keeps an 8-byte BLAKE2b
fingerprint per id instead: a sorted ``array('Q')`` plus a small set of recent
fingerprints, merged into the array when the set grows past a quarter of it
(amortised linear work, about 20 bytes per id in all). Two different ids share
a fingerprint with probability about ``n**2 / 2**65`` (under 3e-6 for ten
million lines); such a line would be taken for a copy.
"""

from __future__ import annotations

import hashlib
import heapq
from array import array
from bisect import bisect_left

__all__ = ["SeenIds"]

_MIN_RECENT = 1 << 14


def _fingerprint(text: str) -> int:
    data = text.encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


class SeenIds:
    """Ids seen so far, about 20 bytes each whatever their length.

    >>> seen = SeenIds()
    >>> seen.add("a"), seen.add("b"), seen.add("a"), "b" in seen, "c" in seen
    (True, True, False, True, False)
    """

    def __init__(self) -> None:
        self._sorted = array("Q")
        self._recent: set[int] = set()

    def __len__(self) -> int:
        return len(self._sorted) + len(self._recent)

    def _known(self, fingerprint: int) -> bool:
        if fingerprint in self._recent:
            return True
        ordered = self._sorted
        index = bisect_left(ordered, fingerprint)
        return index < len(ordered) and ordered[index] == fingerprint

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and self._known(_fingerprint(text))

    def add(self, text: str) -> bool:
        """Remember ``text``; ``True`` if it was new, ``False`` if it was seen before."""
        fingerprint = _fingerprint(text)
        if self._known(fingerprint):
            return False
        recent = self._recent
        recent.add(fingerprint)
        if len(recent) > max(_MIN_RECENT, len(self._sorted) >> 2):
            self._sorted = array("Q", heapq.merge(self._sorted, sorted(recent)))
            recent.clear()
        return True
