"""The line ids seen, for de-duplication across a folder's files, kept by hash.

Claude Code readers remember every line ``uuid`` of a project folder
(``spec/formats.md``: resumed sessions copy earlier lines into new files). A
Python ``set`` of the id strings costs about 125 bytes per line and holds ids
of any length (a hostile 1 MB ``uuid`` is held whole), so memory grew with the
input and with the length of its ids. :class:`SeenIds` keeps each id's 64-bit
hash instead (the string's own SipHash ``hash``, salted per process, which is
fine as a project folder is read in one process): about 70 bytes per line
whatever the id's length, at the speed of a ``set`` of strings. (A sorted
``array('Q')`` of 8-byte fingerprints took 18 bytes per line but made the
Claude Code reader a third slower.) Two different ids share a hash with
probability about ``n**2 / 2**65`` (under 3e-6 for ten million lines); such a
line would be taken for a copy.
"""

from __future__ import annotations

__all__ = ["SeenIds"]


class SeenIds:
    """Ids seen so far, kept as their 64-bit hashes.

    >>> seen = SeenIds()
    >>> seen.add("a"), seen.add("b"), seen.add("a"), "b" in seen, "c" in seen
    (True, True, False, True, False)
    """

    def __init__(self) -> None:
        self._hashes: set[int] = set()

    def __len__(self) -> int:
        return len(self._hashes)

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and hash(text) in self._hashes

    def add(self, text: str) -> bool:
        """Remember ``text``; ``True`` if it was new, ``False`` if it was seen before."""
        key = hash(text)
        hashes = self._hashes
        if key in hashes:
            return False
        hashes.add(key)
        return True
