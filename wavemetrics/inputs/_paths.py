"""The absolute form of a path, without ``abspath``'s normalising pass when it is not needed.

Light on purpose (``os`` only): the read cache (:mod:`wavemetrics.cache.units`, which the
status line imports without the readers) and the folder walk's project folders
(:mod:`wavemetrics.readers.sources`) key files by the same absolute path.
"""

from __future__ import annotations

import os

__all__ = ["absolute"]


def absolute(path: str) -> str:
    """``os.path.abspath(path)``; a POSIX path that is already absolute and normal (no
    ``.``/``..`` part, no doubled or trailing slash: a folder walk's paths) is returned
    as it is, without the normalising pass (a third of the time)."""
    if (os.sep == "/" and path.startswith("/") and "//" not in path and "/./" not in path
            and "/../" not in path and not path.endswith(("/", "/.", "/.."))):
        return path
    return os.path.abspath(path)
