"""The line ids seen, for exact de-duplication across a folder's files, kept compactly.

Claude Code readers remember every line ``uuid`` of a project folder
(``docs/formats.md``: resumed sessions copy earlier lines into new files). A
Python ``set`` of the id strings costs about 125 bytes per line. :class:`SeenIds`
keeps the same information in less room and never confuses two ids:

- a canonical UUID (36 characters, lower-case hex in the 8-4-4-4-12 layout, as
  Claude Code writes every ``uuid``) is kept as its 128-bit integer, a one-to-one
  mapping (about 70 bytes per line);
- any other id of at most 64 characters is kept as it is;
- a longer id (only hostile files have them) is kept as its SHA-256 digest, so a
  1 MB ``uuid`` is not held whole. Two different ids share a digest only if
  SHA-256 collides, which no one has ever produced.

A hash of the string (say Python's salted 64-bit ``hash``) would be smaller
still, but two real ids could then share a key and a line would be silently
taken for a copy, changing a figure (the rule is exact de-duplication, no lossy
hashing).
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["SeenIds", "compact_key"]

_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: Ids longer than this are kept as their SHA-256 digest.
_LONGEST_KEPT = 64


def compact_key(text: str) -> int | str | bytes:
    """The one-to-one compact key :class:`SeenIds` keeps for ``text`` (module docstring).

    >>> compact_key("0b9c1f4e-2a3d-4e5f-8a9b-0c1d2e3f4a5b") == 0x0b9c1f4e2a3d4e5f8a9b0c1d2e3f4a5b
    True
    >>> compact_key("agent-1")
    'agent-1'
    """
    if len(text) == 36 and _CANONICAL_UUID.fullmatch(text):
        return int(text.replace("-", ""), 16)
    if len(text) <= _LONGEST_KEPT:
        return text
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class SeenIds:
    """Ids seen so far, each kept under a one-to-one compact key (module docstring).

    >>> seen = SeenIds()
    >>> seen.add("a"), seen.add("b"), seen.add("a"), "b" in seen, "c" in seen
    (True, True, False, True, False)
    """

    def __init__(self) -> None:
        self._keys: set[int | str | bytes] = set()

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and compact_key(text) in self._keys

    def add(self, text: str) -> bool:
        """Remember ``text``; ``True`` if it was new, ``False`` if it was seen before."""
        key = compact_key(text)
        keys = self._keys
        if key in keys:
            return False
        keys.add(key)
        return True
