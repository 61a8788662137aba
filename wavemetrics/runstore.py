"""Whole outputs on disk: one file per command, beside the cache database.

:mod:`wavemetrics.runcache` keys a ``summarize`` run, or the status line's answer for a
transcript (``key``: the command and the state of everything its output depends on;
``scope``: the command alone), and stores what it printed, to serve it again. Until
the native engine's tenth round those outputs were rows of the SQLite cache; a cold
run then paid for loading SQLite, creating the database, writing a 2.7 MB blob
through the WAL and, at exit, checkpointing it into the database file: ~0.02 s of a
0.27 s run over the 1,800-file fleet (docs/performance-history.md, "Tenth round").
A file per scope costs a write and a rename.

Layout: ``<cache dir>/runs/<scope>``, the scope being 64 hex digits. A file holds
:data:`MAGIC`, the run's ``key`` (64 ASCII hex digits), the first 16 bytes of the
output's SHA-256 digest and the output (:func:`wavemetrics.runcache.encode_output`). A new run
of the same command replaces the file (write to a temporary file, then
``os.replace``: a reader sees the old file or the new one, never a part); at most
:data:`MAX_RUNS` files are kept, the least recently stored removed first.

Never trusted when damaged: a file whose digest does not match its output, or
that is not of this layout, is deleted and the run is a miss. Never fails a run:
every ``OSError`` is a miss, or an output not stored. What is stored is the
output as printed (ids, counts, figures, file names): never trace text.

The whole cache folder (this folder and the database beside it) has a size bound
(:func:`wavemetrics._cachedir.max_bytes`): :meth:`RunStore.over_bound` tells, with a
few ``stat`` calls, when a store passed it, and the caller then has
:meth:`wavemetrics.cache.ReadCache.keep_within` evict the oldest entries.

Light on purpose (``os``, ``time`` and :mod:`wavemetrics._digest`): a served run reads it, and the
native command stores its output, without SQLite, :mod:`pathlib`, click or the
readers (:func:`default_store`).
"""

from __future__ import annotations

import os
import time

from wavemetrics._digest import sha256

__all__ = ["MAGIC", "MAX_RUNS", "RUNS_FOLDER", "RunStore", "cache_bytes", "default_store"]

#: The folder of the cache directory that holds the outputs.
RUNS_FOLDER = "runs"
#: The first bytes of every output file (the layout's version is its last byte).
MAGIC = b"wmrun\x00\x00\x01"
#: At most this many outputs are kept (the least recently stored go first).
MAX_RUNS = 32
#: A temporary file older than this (seconds) was left by a run that stopped while
#: storing: it is removed by the next store.
STALE_SECONDS = 3600

_KEY_BYTES = 64  # hex SHA-256
_DIGEST_BYTES = 16
_HEAD_BYTES = len(MAGIC) + _KEY_BYTES + _DIGEST_BYTES


def _digest(blob: bytes) -> bytes:
    # SHA-256 (the extension's, with the CPU's SHA instructions where it has them;
    # wavemetrics._digest): ~1.5 ms for the fleet's 2.7 MB output here, BLAKE2b 3.6 ms;
    # 16 bytes of it are plenty to catch a damaged file
    return sha256(blob)[:_DIGEST_BYTES]


def _remove(path: str) -> None:
    """Remove the file at ``path`` if it can be (no :mod:`contextlib`: start-up)."""
    try:
        os.remove(path)
    except OSError:
        pass


def _hex(text: str) -> bool:
    return len(text) == _KEY_BYTES and all(c in "0123456789abcdef" for c in text)


def _file_bytes(folder: str) -> int:
    """Bytes of the files directly in ``folder`` (0 when it cannot be listed)."""
    total = 0
    try:
        with os.scandir(folder) as scan:
            for entry in scan:
                try:
                    if entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
                except OSError:
                    continue
    except OSError:
        pass
    return total


def cache_bytes(directory: str) -> int:
    """Bytes of the cache folder ``directory``: its own files (the database and its
    journal files) and those of its :data:`RUNS_FOLDER`."""
    return _file_bytes(directory) + _file_bytes(os.path.join(directory, RUNS_FOLDER))


class RunStore:
    """The outputs in the folder ``folder`` (``<cache dir>/runs``; created on first store)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    @property
    def directory(self) -> str:
        """The cache folder this store is part of."""
        return os.path.dirname(self.folder)

    def over_bound(self) -> bool:
        """Whether the cache folder holds more bytes than its bound
        (:func:`wavemetrics._cachedir.max_bytes`; never with no bound)."""
        from wavemetrics._cachedir import max_bytes

        bound = max_bytes()
        return bound is not None and cache_bytes(self.directory) > bound

    def _path(self, scope: str) -> str | None:
        # a scope is hex (runcache's SHA-256): nothing else names a file here
        return os.path.join(self.folder, scope) if _hex(scope) else None

    def load(self, key: str, scope: str) -> bytes | None:
        """The output stored for the run ``key`` of the command ``scope``, or ``None``:
        none stored, another state's output (kept: the next store replaces it), or a
        damaged file (deleted)."""
        path = self._path(scope)
        if path is None:
            return None
        try:
            with open(path, "rb") as stream:
                data = stream.read()
        except OSError:
            return None
        head = MAGIC + key.encode("ascii", "replace")
        if data.startswith(head) and len(data) >= _HEAD_BYTES:
            blob = data[_HEAD_BYTES:]
            if data[len(head):_HEAD_BYTES] == _digest(blob):
                return blob
        elif data.startswith(MAGIC) and len(data) >= _HEAD_BYTES and _hex(
                data[len(MAGIC):len(MAGIC) + _KEY_BYTES].decode("ascii", "replace")):
            return None  # another state of the command: a miss, the file is sound
        _remove(path)  # damaged, or not of this layout: never trusted
        return None

    @staticmethod
    def digest(blob: bytes) -> bytes:
        """What :meth:`store` keeps of ``blob``'s SHA-256 digest to check it by."""
        return _digest(blob)

    def store(self, key: str, scope: str, blob: bytes, digest: bytes | None = None) -> bool:
        """Store ``blob`` as the output of the run ``key`` of the command ``scope``, in
        place of that command's older output, keeping at most :data:`MAX_RUNS`; whether
        it was stored. ``digest``: :meth:`digest` of ``blob`` when already taken."""
        path = self._path(scope)
        if path is None or not _hex(key):
            return False
        if digest is None:
            digest = _digest(blob)
        stamp = time.time_ns()
        temporary = os.path.join(self.folder, f".{scope}.{os.getpid()}.{stamp}")
        try:
            os.makedirs(self.folder, exist_ok=True)
            with open(temporary, "xb") as stream:
                stream.write(MAGIC + key.encode("ascii") + digest)
                stream.write(blob)
            # the store's time to the ns (a file system stamps writes to the jiffy):
            # _trim's order is the order of the stores
            os.utime(temporary, ns=(stamp, stamp))
            os.replace(temporary, path)
        except OSError:
            _remove(temporary)
            return False
        self._trim()
        return True

    def _trim(self) -> None:
        """Remove the least recently stored outputs past :data:`MAX_RUNS`, and temporary
        files left behind for :data:`STALE_SECONDS`."""
        outputs: list[tuple[int, str]] = []
        now = time.time_ns()
        try:
            with os.scandir(self.folder) as scan:
                for entry in scan:
                    stamp = entry.stat(follow_symlinks=False).st_mtime_ns
                    if _hex(entry.name):
                        outputs.append((stamp, entry.name))
                    elif entry.name.startswith(".") and now - stamp > STALE_SECONDS * 10**9:
                        os.remove(entry.path)
        except OSError:
            return
        outputs.sort()
        for _, name in outputs[:max(0, len(outputs) - MAX_RUNS)]:
            _remove(os.path.join(self.folder, name))

    def count(self) -> int:
        """How many outputs are stored."""
        try:
            return sum(1 for name in os.listdir(self.folder) if _hex(name))
        except OSError:
            return 0

    def size(self) -> int:
        """Bytes of the files of this folder."""
        return _file_bytes(self.folder)

    def clear(self) -> bool:
        """Delete every file of this folder, and the folder; whether it existed."""
        try:
            names = os.listdir(self.folder)
        except OSError:
            return False
        for name in names:
            _remove(os.path.join(self.folder, name))
        try:
            os.rmdir(self.folder)
        except OSError:
            pass
        return True


def default_store() -> RunStore:
    """The outputs of the cache in its default folder (:func:`wavemetrics._cachedir.cache_dir`,
    where :class:`wavemetrics.cache.ReadCache` keeps its database)."""
    from wavemetrics._cachedir import cache_dir

    return RunStore(os.path.join(cache_dir(), RUNS_FOLDER))
