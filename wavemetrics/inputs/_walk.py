"""The folder walk of a ``summarize`` run over folders, made by the extension.

A cold ``summarize`` of a projects folder walks it three times: the run key's
fingerprint of the inputs before the read (:func:`wavemetrics.cache.runcache.fingerprint`),
the readers' walk (:func:`wavemetrics.inputs._files.expand_entries`, for the native
command) and the fingerprint again after the read (the check that nothing changed).
In Python these walks were ~0.05 s of a 0.35 s run over the 1,800-file fleet
(docs/performance-history.md, "Tenth round"); ``walk_folders`` of the extension
(``native/src/walk.rs``) makes each one from one listing, with the same result:
the fingerprint's JSON text byte for byte, the readers' files in the same order.

The Python walks stay the reference and are what runs whenever this one does
not answer (:func:`walk` gives ``None``): the extension is missing, an input is
not a folder (a file, stdin), a path or name is not UTF-8. ``tests/test_walk.py``
compares the two on generated trees.

Light on purpose (``os`` and the extension's loader only): :mod:`wavemetrics.cache.runcache`
serves a stored run with it before click or the readers load.
"""

from __future__ import annotations

import os

from wavemetrics.inputs._suffixes import SESSION_SUFFIXES, SKIPPED_SUFFIXES, TRACE_SUFFIXES
from wavemetrics.run import _extension

# no typing or collections at run time (a served run imports this module: ~10 ms of
# start-up, docs/performance-history.md, "Eleventh round"); mypy takes any TYPE_CHECKING as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Walk", "keyed_walk", "utf8", "walk"]


class Walk:
    """What one walk of folders found (``native/src/walk.rs``, ``Walk``); equal to another
    with the same four fields."""

    __slots__ = ("files", "key", "names", "sidecars")

    def __init__(self, key: bytes | None, files: list[str] | None,
                 names: list[tuple[str, str | None, int]] | None, sidecars: list[str]) -> None:
        #: ``json.dumps(runcache._inputs(paths), ensure_ascii=False, separators=(",", ":"))``
        #: as UTF-8 bytes; ``None`` when the run is never cached, or the key was not asked for
        self.key = key
        #: the files ``fastpath._files_of`` reads, in walk order; ``None``: the Python walk
        #: decides (a trace name that is a link or not a regular file, a folder that cannot
        #: be listed, a folder with no trace file, folders given twice or one inside another)
        self.files = files
        #: per file of :attr:`files`: ``(fallback session id, stem or None, group)``, the
        #: names ``fastpath._args_of`` derives with ``_files.fallback_session_id``,
        #: ``file_stem`` (when ``subagents`` is in the path) and ``project_folder``'s number
        self.names = names
        #: the ``*.meta.json`` sidecars passed over, in path order
        self.sidecars = sidecars

    def _fields(self) -> tuple[object, ...]:
        return self.key, self.files, self.names, self.sidecars

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Walk) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable lists inside: not hashable

    def __repr__(self) -> str:
        return "Walk(key={!r}, files={!r}, names={!r}, sidecars={!r})".format(*self._fields())


def utf8(path: str) -> bool:
    """Whether ``path`` encodes as UTF-8 (a name with undecodable bytes holds surrogate
    escapes, which do not); the native command's check too (:mod:`wavemetrics.run.fastpath`)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes (surrogate escapes)
        return False
    return True


def _utf8(path: str) -> bool:
    return utf8(path) and "\0" not in path  # a NUL cannot reach the extension's paths


def _nested(folders: Sequence[str]) -> bool:
    """Whether two of ``folders`` are the same folder or one is inside another once
    links are resolved: the readers' walk then reads a file once (its real path), which
    a concatenation of the walks would not."""
    real = [os.path.realpath(folder) for folder in folders]
    return any(inner == outer or inner.startswith(outer.rstrip("/") + "/")
               for i, outer in enumerate(real) for j, inner in enumerate(real) if i != j)


def walk(paths: Sequence[str], *, key: bool, jobs: int = 1) -> Walk | None:
    """Walk ``paths`` (every one a folder: ``os.path.isdir``) natively; ``key``: with the
    run key's fingerprint (each trace file stat'ed); ``jobs``: threads to walk each
    folder's sub-folders on (the result never depends on it). ``None`` when this walk
    does not answer and the Python walks must run (see the module doc). Never raises
    for an input: a folder that cannot be listed is a ``None`` key and no files."""
    native = _extension.extension()
    if native is None or not paths:
        return None
    tops = []
    for path in paths:
        # a ".." part: the readers list the folder it names through links, the key walk
        # the lexical abspath; the two can differ, so the Python walks decide
        if not (_utf8(path) and os.path.isdir(path)) or ".." in path.split("/"):
            return None
        absolute = os.path.abspath(path)
        if not _utf8(absolute):  # a working directory that is not UTF-8
            return None
        tops.append((path, absolute))
    found = native.walk_folders(tops, list(TRACE_SUFFIXES), list(SKIPPED_SUFFIXES),
                                list(SESSION_SUFFIXES), key, max(1, jobs))
    if found is None:
        return None
    fingerprint, files, names, sidecars = found
    if files is not None and len(tops) > 1 and _nested(paths):
        files = names = None
    walked = Walk(fingerprint, files, names, sorted(sidecars))
    if fingerprint is not None:
        _KEYED[:] = [(list(paths), walked)]
    return walked


#: The last walk of this process that made a key, with the paths it walked
#: (:func:`keyed_walk`).
_KEYED: list[tuple[list[str], Walk]] = []


def keyed_walk(paths: Sequence[str], key: bytes) -> Walk | None:
    """The walk of ``paths`` whose key is the very object ``key`` (the inputs part of a
    run's fingerprint, :func:`wavemetrics.cache.runcache.fingerprint`), when it was this
    process's last walk with a key; else ``None``. The native command then reads the
    files of the listing its run is keyed by, not those of a second walk (~3 ms of the
    fleet, docs/performance-history.md, "Eleventh round"); identity, not equality, makes sure
    the walk is that run's own."""
    for walked_paths, walked in _KEYED:
        if walked.key is key and walked_paths == list(paths):
            return walked
    return None
