"""A persistent cache of what each input yielded, so that repeat runs are instant.

What is kept, per read unit (one file, or the Claude Code files of one project
folder read together): every report's line accounting and every lane's compact
call records (``kind``, ``call_id``, ``tool_name``, ``at_ms``), never a line of
text, argument, result or prompt. Per file, the format detection found. Both
are keyed by the file's absolute path, size, ``st_mtime_ns`` and inode (and the
wavemetrics version and cache schema): any change to any of them is a miss,
and the file is read again in full (a file that only grew too). Only the status
line reads a grown transcript on from where it ended (:mod:`wavemetrics.cache.live`,
tables ``live_states`` and ``live_ids``).

Whole outputs as printed (stdout and stderr bytes, exit status: a ``summarize``
run, the status line's answer for a transcript), keyed by
:mod:`wavemetrics.cache.runcache` (ids, counts and figures, never trace text), are files
of the ``runs`` folder beside the database (:class:`wavemetrics.cache.runcache.RunStore`):
storing or serving one loads no SQLite.

The whole folder has a size bound (:func:`wavemetrics.cache._cachedir.max_bytes`, 256 MiB
by default): past it, :meth:`ReadCache.keep_within` removes the oldest entries,
whole outputs and rows alike, until it holds three quarters of the bound.

Where: SQLite (stdlib :mod:`sqlite3`, WAL journal, so two runs at once are
safe, imported when a table is first used) in ``$WAVEMETRICS_CACHE_DIR`` if
set, else the user cache directory of the platform
(:func:`platformdirs.user_cache_dir`, e.g. ``~/.cache/wavemetrics``).

File names that are not UTF-8 (bytes a name may hold on POSIX, surrogate escapes in
Python's ``str``) never fail a run: a detection is keyed by the name's own bytes
(a BLOB where other names are text, so the key stays one-to-one), while a read
unit with such a file keeps no records or streamed lanes
(:func:`utf8_names`: their entries hold names and ids as UTF-8 text), so it is read
again on every run, exactly as with ``--no-cache``.

A damaged cache is never trusted: a row whose BLAKE2b digest does not match its
blob, or that does not decode, is dropped and the unit read again; a database
file SQLite cannot open or query is deleted and created anew. Errors of the
cache never fail a run: without a usable cache directory the run reads as with
``--no-cache``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from wavemetrics.cache._cachedir import CACHE_ENV, CACHE_SCHEMA, cache_dir, max_bytes
from wavemetrics.cache._cachedir import version as _version
from wavemetrics.cache.runcache import MAX_RUNS, RUNS_FOLDER, RunStore, cache_bytes
from wavemetrics.inputs._paths import absolute as _absolute

if TYPE_CHECKING:
    import sqlite3

    from wavemetrics.readers.limits import Limits

# Only the stdlib and platformdirs here: the status line answers from this
# module without loading attrs, msgspec, the readers or the core.

__all__ = [
    "CACHE_ENV",
    "CACHE_FILE",
    "CACHE_SCHEMA",
    "MAX_RUNS",
    "CacheInfo",
    "FileKey",
    "ReadCache",
    "UnitKey",
    "default_cache_dir",
    "detection_mode",
    "eviction_order",
    "file_key",
    "limits_key",
    "live_state",
    "utf8_names",
    "walked_keys",
]

#: The database file in the cache directory.
CACHE_FILE = "cache.sqlite3"

_TABLES = (
    "CREATE TABLE IF NOT EXISTS detections (path TEXT NOT NULL, mode TEXT NOT NULL,"
    " stamp TEXT NOT NULL, format TEXT NOT NULL, PRIMARY KEY (path, mode))",
    "CREATE TABLE IF NOT EXISTS units (key TEXT PRIMARY KEY, unit TEXT NOT NULL,"
    " files INTEGER NOT NULL, digest BLOB NOT NULL, blob BLOB NOT NULL, stored REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS units_by_unit ON units (unit)",
    # the status line's live state of a transcript (wavemetrics.cache.live), one row each,
    # keyed by the transcript (its path), not its version (``stored``: Unix seconds,
    # the size bound's age)
    "CREATE TABLE IF NOT EXISTS live_states (key TEXT PRIMARY KEY, digest BLOB NOT NULL,"
    " blob BLOB NOT NULL, stored REAL NOT NULL)",
    # the id digests of the status line's live states (wavemetrics.cache.live), one row each,
    # each naming the next larger one (a row ``x''`` heads the chain): see LiveIdsDamaged
    "CREATE TABLE IF NOT EXISTS live_ids (state INTEGER NOT NULL, digest BLOB NOT NULL,"
    " next BLOB NOT NULL, tag BLOB NOT NULL, PRIMARY KEY (state, digest)) WITHOUT ROWID",
)
#: What :data:`_TABLES` creates: a database at :data:`CACHE_SCHEMA` that has all of
#: them is opened without DDL or ``journal_mode`` (WAL mode persists in the file).
_NAMES = frozenset(statement.split()[5] for statement in _TABLES)


def default_cache_dir() -> Path:
    """``$WAVEMETRICS_CACHE_DIR`` if set and not empty, else the platform's user cache dir
    (:func:`wavemetrics.cache._cachedir.cache_dir`)."""
    return Path(cache_dir())


class FileKey(NamedTuple):
    """What identifies one version of a file: absolute path, size (bytes),
    modification time (ns) and inode."""

    path: str
    size: int
    mtime_ns: int
    inode: int

    @property
    def stamp(self) -> str:
        return f"{self.size}:{self.mtime_ns}:{self.inode}"


def file_key(path: str) -> FileKey | None:
    """The key of a regular file, or ``None`` (stdin, pipes, missing files: never cached)."""
    if path == "-":
        return None
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return FileKey(_absolute(path), info.st_size, info.st_mtime_ns, info.st_ino)


def walked_keys(inputs: list[Any] | bytes) -> dict[str, FileKey]:
    """The cache keys (:class:`FileKey`) of the regular files in the inputs part of a
    ``summarize`` key (:func:`wavemetrics.cache.runcache.fingerprint`), by absolute path: each
    stat of the walk, ``[path, size, mtime_ns, ctime_ns, inode, device]``, is what
    :func:`file_key` would take just after it."""
    if isinstance(inputs, bytes):  # the extension's walk: its JSON text
        import json

        inputs = json.loads(inputs)
    return {entry[0]: FileKey(entry[0], entry[1], entry[2], entry[4]) for entry in inputs
            if type(entry) is list and len(entry) == 6 and type(entry[1]) is int}



class UnitKey(NamedTuple):
    """``key``: one version of a unit (its files' keys); ``unit``: the unit whatever
    the version (its files' paths), so storing a new version drops the old ones."""

    key: str
    unit: str


def _sha256(value: object) -> str:
    text = _KEY_JSON.encode(value)  # json.dumps(value, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


_KEY_JSON = json.JSONEncoder(ensure_ascii=False)


def unit_key(fmt: str, keys: Sequence[FileKey], extra: str = "") -> UnitKey:
    """The SQLite keys of a unit read as ``fmt`` (``extra``: what else the entry depends
    on, e.g. summary settings): SHA-256 of them, the files' keys and the version."""
    head = [_version(), fmt, extra]
    return UnitKey(
        _sha256([*head, [[k.path, k.size, k.mtime_ns, k.inode] for k in keys]]),
        _sha256([*head, [k.path for k in keys]]),
    )


def limits_key(limits: Limits | None) -> str:
    """The part of a cache key naming the byte limits a read ran under: they change
    what a read yields (``line_too_long``, an input cut at ``--max-document-bytes``).
    ``None`` (the status line, which never imports the limits) means the defaults."""
    if limits is None:
        return "limits:default"
    from wavemetrics.readers.limits import DEFAULT_LIMITS

    if limits == DEFAULT_LIMITS:
        return "limits:default"
    return f"limits:{limits.max_line_bytes}:{limits.max_document_bytes}"


def detection_mode(input_format: str, limits: Limits | None) -> str:
    """The ``mode`` a detection is stored under: ``--input-format`` and the limits
    (detection peeks under them)."""
    return f"{input_format}/{limits_key(limits)}"


def utf8_names(keys: Sequence[FileKey]) -> bool:
    """Whether every file of ``keys`` has a UTF-8 name: only such units are kept in the
    ``units`` table (see the module doc)."""
    return all(isinstance(_column(key.path), str) for key in keys)


def _column(path: str) -> str | bytes:
    """A path as the ``detections`` table keeps it: as text when it is UTF-8, else (a
    name with bytes that are not UTF-8, held as surrogate escapes) as its own bytes,
    a BLOB: SQLite text must be UTF-8, and a BLOB never equals a text, so the key
    stays one-to-one with the file's name."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path)
    return path


def _path(column: str | bytes) -> str:
    """The path of a ``detections`` row (:func:`_column` reversed)."""
    return column if isinstance(column, str) else os.fsdecode(column)


def _digest(blob: bytes) -> bytes:
    return hashlib.blake2b(blob, digest_size=16).digest()


def _hex(text: str) -> bool:
    """Whether ``text`` is a key as :func:`unit_key` makes them (64 hex digits)."""
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def live_state(unit: str) -> int:
    """The ``state`` a live state's ids are stored under in table ``live_ids``: the first
    60 bits of its row's key ``unit`` (:mod:`wavemetrics.cache.live`)."""
    return int(unit[:15], 16)


#: Past the size bound, entries are removed until the folder holds this share of it
#: (3/4): eviction, and compacting the database after it, then happen once for every
#: quarter of the bound written, not on every run near the bound.
EVICT_TO = (3, 4)


def eviction_order(
    entries: Sequence[tuple[int, int, Any]], total: int, target: int
) -> list[Any]:
    """Which entries to remove, in order, to bring a cache of ``total`` bytes down to at
    most ``target``: ``entries`` are ``(stored, bytes, name)`` (``stored``: when the
    entry was stored, ns), taken oldest first (equal times in the order given) until
    the bytes left are at most ``target``; every entry when even that is not enough.

    >>> eviction_order([(30, 5, "c"), (10, 5, "a"), (20, 5, "b")], 20, 12)
    ['a', 'b']
    >>> eviction_order([(10, 5, "a")], 20, 30)
    []
    """
    chosen: list[Any] = []
    for _stored, size, name in sorted(entries, key=lambda entry: entry[0]):
        if total <= target:
            break
        chosen.append(name)
        total -= size
    return chosen


class CacheInfo(NamedTuple):
    """What ``wavemetrics cache info`` prints: where the cache is, its read units (and
    their files), summaries kept for ``summarize``, detections, size (bytes) and the
    ``summarize`` outputs kept whole (:mod:`wavemetrics.cache.runcache`)."""

    path: str
    exists: bool
    units: int
    files: int
    summaries: int
    detections: int
    size_bytes: int
    runs: int = 0


class LiveIdsDamaged(ValueError):
    """A live state's id rows are not the chain they were written as."""


class LiveIds:
    """The id digests of one live state (``wavemetrics.cache.live``) in table ``live_ids``:
    one row per digest, sorted by SQLite's primary key, each row naming the **next**
    larger digest of the set (``b""`` after the largest) and a ``tag`` (BLAKE2b of the
    state, digest and next); an empty digest heads the chain.

    Integrity is checked per lookup, on exactly the rows the answer rests on: ``x``
    is found in the row holding it, or known absent because the row before it (the
    largest digest below it) names a next digest above it. A lost row shows as a row
    before it naming it; a row changed in place fails its tag; a missing head means
    no row is below; any of them raises :class:`LiveIdsDamaged` (the state is then
    rebuilt, never trusted). Rows change only with their state, in one transaction."""

    def __init__(self, db: sqlite3.Connection, state: int) -> None:
        self.db, self.state = db, state

    def _tag(self, digest: bytes, after: bytes) -> bytes:
        data = self.state.to_bytes(8, "big") + bytes((len(digest), len(after)))
        return hashlib.blake2b(data + digest + after, digest_size=8).digest()

    def _floor(self, digest: bytes) -> tuple[bytes, bytes]:
        """The row of the largest digest <= ``digest``: (its digest, its next)."""
        row = self.db.execute(
            "SELECT digest, next, tag FROM live_ids WHERE state = ? AND digest <= ?"
            " ORDER BY digest DESC LIMIT 1", (self.state, digest)).fetchone()
        if row is None:
            raise LiveIdsDamaged("no head row")
        found, after, tag = (bytes(value) for value in row)
        if tag != self._tag(found, after):
            raise LiveIdsDamaged("a row's tag does not match it")
        if found != digest and after and after <= digest:
            raise LiveIdsDamaged("a row names a next digest that is not there")
        return found, after

    def known(self, digest: bytes) -> bool:
        """Whether ``digest`` (not empty) is one of the state's ids."""
        return self._floor(digest)[0] == digest

    def insert(self, digests: Sequence[bytes]) -> None:
        """Add ``digests`` (inside the caller's transaction), linking each in."""
        for digest in sorted(set(digests)):
            before, after = self._floor(digest)
            if before == digest:
                continue
            self.db.execute("UPDATE live_ids SET next = ?, tag = ? WHERE state = ? AND"
                            " digest = ?", (digest, self._tag(before, digest), self.state,
                                            before))
            self.db.execute("INSERT INTO live_ids VALUES (?, ?, ?, ?)",
                            (self.state, digest, after, self._tag(digest, after)))

    def replace(self, digests: Sequence[bytes]) -> None:
        """Make ``digests`` the state's ids (inside the caller's transaction)."""
        chain = [b"", *sorted(set(digests))]
        self.db.execute("DELETE FROM live_ids WHERE state = ?", (self.state,))
        rows = []
        for index, digest in enumerate(chain):
            after = chain[index + 1] if index + 1 < len(chain) else b""
            rows.append((self.state, digest, after, self._tag(digest, after)))
        self.db.executemany("INSERT INTO live_ids VALUES (?, ?, ?, ?)", rows)


_CONNECTIONS: dict[tuple[str, int], sqlite3.Connection] = {}
#: A process storing read units checks the size bound at most once in this many seconds
#: (the check is ~0.1-0.2 ms of ``stat`` calls; a Python run over 1,800 single-file units
#: stores 1,800 times).
CHECK_SECONDS = 1.0
#: When this process next checks the bound after storing units (``time.monotonic``).
_NEXT_CHECK = [0.0]
#: Keys per ``IN (...)`` query of the batch lookups (under SQLite's parameter limit).
_CHUNK = 500


class ReadCache:
    """The cache in ``directory`` (default: :func:`default_cache_dir`; created on first
    write). Picklable: a worker process opens its own connection on first use."""

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = default_cache_dir() if directory is None else Path(directory)

    def __repr__(self) -> str:
        return f"ReadCache({str(self.directory)!r})"

    @property
    def path(self) -> Path:
        return self.directory / CACHE_FILE

    # -- connection -------------------------------------------------------
    def _connect(self) -> sqlite3.Connection | None:
        # one connection per process: a connection must not cross a fork (SQLite)
        name = (str(self.path), os.getpid())
        connection = _CONNECTIONS.get(name)
        if connection is not None:
            return connection
        import sqlite3  # here: a run that stores or serves only a whole output never loads it
        for _attempt in range(2):
            connection = None
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(name[0], timeout=10.0, isolation_level=None)
                # per connection, no I/O; WAL mode itself persists in the file
                connection.execute("PRAGMA synchronous=NORMAL")
                (version,) = connection.execute("PRAGMA user_version").fetchone()
                names = {name for (name,) in connection.execute(
                    "SELECT name FROM sqlite_master")}
                if version != CACHE_SCHEMA or not names >= _NAMES:
                    self._create(connection)
            except sqlite3.OperationalError:
                # locked for too long, or no usable file: this run goes without the cache
                if connection is not None:
                    connection.close()
                return None
            except sqlite3.DatabaseError:
                # not a database, or damaged: rebuilt, never trusted
                if connection is not None:
                    connection.close()
                self._remove_files()
                continue
            except OSError:
                return None  # no usable cache directory: run without a cache
            _CONNECTIONS[name] = connection
            return connection
        return None

    @staticmethod
    def _create(connection: sqlite3.Connection) -> None:
        """Put a database of another (or no) schema in this one's: WAL, another
        schema's tables dropped (a cache is rebuilt, never migrated), this module's
        tables created where missing."""
        connection.execute("PRAGMA journal_mode=WAL")
        with connection:
            connection.execute("BEGIN IMMEDIATE")
            (version,) = connection.execute("PRAGMA user_version").fetchone()
            if version != CACHE_SCHEMA:  # another schema's tables: dropped, all of them
                names = [name for (name,) in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'"
                    " AND name NOT LIKE 'sqlite_%'")]
                for name in names:
                    connection.execute(f'DROP TABLE IF EXISTS "{name}"')
                connection.execute(f"PRAGMA user_version = {CACHE_SCHEMA}")
            for table in _TABLES:  # those missing at this schema are created
                connection.execute(table)

    def _remove_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(str(self.path) + suffix)

    def close(self) -> None:
        """Close this process's connection to the cache (it reopens on next use)."""
        connection = _CONNECTIONS.pop((str(self.path), os.getpid()), None)
        if connection is not None:
            connection.close()

    @contextlib.contextmanager
    def _query(self) -> Iterator[sqlite3.Connection | None]:
        connection = self._connect()
        import sqlite3  # loaded by _connect

        try:
            yield connection
        except sqlite3.OperationalError:
            pass  # busy past the timeout, or a disk error: this entry goes uncached
        except sqlite3.DatabaseError:
            # damaged while open: drop it; this run goes on without the entry
            self.close()
            self._remove_files()

    # -- detections -------------------------------------------------------
    def detection(self, key: FileKey, mode: str) -> str | None:
        """The format detected for this version of the file with ``--input-format mode``."""
        with self._query() as db:
            if db is None:
                return None
            row = db.execute(
                "SELECT stamp, format FROM detections WHERE path = ? AND mode = ?",
                (_column(key.path), f"{_version()}/{mode}"),
            ).fetchone()
            if row is not None and row[0] == key.stamp:
                return str(row[1])
        return None

    def store_detection(self, key: FileKey, mode: str, fmt: str) -> None:
        self.store_detections([(key, fmt)], mode)

    def detections(self, keys: Sequence[FileKey], mode: str) -> dict[str, str]:
        """:meth:`detection` for many files in a few queries: ``{absolute path: format}``
        of the files whose stored detection is of this version of the file."""
        found: dict[str, str] = {}
        stamps = {_column(key.path): key.stamp for key in keys}
        paths = list(stamps)
        with self._query() as db:
            if db is None:
                return found
            for start in range(0, len(paths), _CHUNK):
                chunk = paths[start:start + _CHUNK]
                rows = db.execute(
                    "SELECT path, stamp, format FROM detections WHERE mode = ? AND path IN"
                    f" ({', '.join('?' * len(chunk))})", (f"{_version()}/{mode}", *chunk),
                )
                found.update({_path(path): str(fmt) for path, stamp, fmt in rows
                              if stamps.get(path) == stamp})
        return found

    def store_detections(self, found: Sequence[tuple[FileKey, str]], mode: str) -> None:
        """Store ``(file key, format)`` detections made with ``--input-format mode``, in
        one transaction."""
        if not found:
            return
        version = f"{_version()}/{mode}"
        with self._query() as db:
            if db is not None:
                with db:
                    db.execute("BEGIN IMMEDIATE")
                    db.executemany(
                        "INSERT OR REPLACE INTO detections VALUES (?, ?, ?, ?)",
                        [(_column(key.path), version, key.stamp, fmt) for key, fmt in found],
                    )

    # -- units ------------------------------------------------------------
    def load(self, key: UnitKey) -> Any:
        """The value stored under ``key`` in the ``units`` table, or ``None`` (absent, or
        damaged: then dropped)."""
        import msgspec

        return self._load("units", key, msgspec.msgpack.decode, msgspec.DecodeError)

    def _load(
        self, table: str, key: UnitKey, decode: Any, error: type[Exception]
    ) -> Any:
        # ``table`` is one of this module's table names, never input text.
        with self._query() as db:
            if db is None:
                return None
            row = db.execute(
                f"SELECT digest, blob FROM {table} WHERE key = ?", (key.key,)
            ).fetchone()
            if row is None:
                return None
            digest, blob = row
            if isinstance(blob, bytes) and digest == _digest(blob):
                try:
                    return decode(blob)
                except error:
                    pass
            db.execute(f"DELETE FROM {table} WHERE key = ?", (key.key,))
        return None

    def load_many(self, keys: Sequence[UnitKey]) -> dict[str, Any]:
        """:meth:`load` for many keys in a few queries: ``{UnitKey.key: value}`` of the
        entries present and sound (a damaged one is dropped and left out)."""
        import msgspec

        found: dict[str, Any] = {}
        wanted = list(dict.fromkeys(key.key for key in keys))
        damaged: list[str] = []
        decoder = msgspec.msgpack.Decoder()
        with self._query() as db:
            if db is None:
                return found
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start:start + _CHUNK]
                rows = db.execute(
                    "SELECT key, digest, blob FROM units WHERE key IN"
                    f" ({', '.join('?' * len(chunk))})", chunk,
                )
                for key, digest, blob in rows:
                    try:
                        if isinstance(blob, bytes) and digest == _digest(blob):
                            found[key] = decoder.decode(blob)
                            continue
                    except msgspec.DecodeError:
                        pass
                    damaged.append(key)
            if damaged:
                db.executemany("DELETE FROM units WHERE key = ?", [(k,) for k in damaged])
        return found

    def store(self, key: UnitKey, value: Any, files: int = 1) -> None:
        """Store ``value`` (msgpack-encodable) under ``key`` in the ``units`` table, in
        place of the unit's older versions; ``files``: how many files the unit has
        (``0`` for lane summaries; for ``cache info``)."""
        self.store_many([(key, value, files)])

    def store_many(self, entries: Sequence[tuple[UnitKey, Any, int]]) -> None:
        """:meth:`store` for many ``(key, value, files)`` entries, in one transaction."""
        import msgspec

        if not entries:
            return
        encode = msgspec.msgpack.encode
        now = time.time()
        rows = []
        for key, value, files in entries:
            blob = encode(value)
            rows.append((key.key, key.unit, files, _digest(blob), blob, now))
        with self._query() as db:
            if db is not None:
                with db:  # one transaction: the old versions go as the new one comes
                    db.execute("BEGIN IMMEDIATE")
                    db.executemany("DELETE FROM units WHERE unit = ? AND key != ?",
                                   [(row[1], row[0]) for row in rows])
                    db.executemany("INSERT OR REPLACE INTO units VALUES (?, ?, ?, ?, ?, ?)",
                                   rows)
        now = time.monotonic()
        if now >= _NEXT_CHECK[0]:  # the bound, at most once a second: a unit is stored
            _NEXT_CHECK[0] = now + CHECK_SECONDS  # per read unit, 1,800 in a large run
            self.keep_within()

    # -- live states (wavemetrics.cache.live) ------------------------------------
    def load_live(self, unit: str) -> tuple[Any, bytes] | None:
        """The live state stored for ``unit`` and its row digest (which
        :meth:`store_live` expects back), or ``None`` (absent, or damaged: dropped)."""
        import msgspec

        with self._query() as db:
            if db is None:
                return None
            row = db.execute("SELECT digest, blob FROM live_states WHERE key = ?",
                             (unit,)).fetchone()
            if row is None:
                return None
            digest, blob = row
            if isinstance(blob, bytes) and digest == _digest(blob):
                try:
                    return msgspec.msgpack.decode(blob), digest
                except msgspec.DecodeError:
                    pass
            db.execute("DELETE FROM live_states WHERE key = ?", (unit,))
        return None

    def live_id_lookup(self, state: int) -> Callable[[bytes], bool]:
        """A lookup of one digest among ``state``'s stored ids (:class:`LiveIds`); it
        raises :class:`LiveIdsDamaged` or :class:`sqlite3.Error`."""
        db = self._connect()
        if db is None:
            import sqlite3

            raise sqlite3.OperationalError("no usable cache")
        return LiveIds(db, state).known

    def store_live(
        self, unit: str, value: Any, state: int, digests: Sequence[bytes],
        previous: bytes | None,
    ) -> bool:
        """In one transaction: store ``value`` (msgpack-encodable) as ``unit``'s live
        state and add ``digests`` (not yet stored) to ``state``'s ids. ``previous``: the
        row digest of the state it continues (from :meth:`load_live`), or ``None`` for a
        state built from byte 0, whose ids replace every id of ``state``. A continuation
        is stored only if the row is still ``previous`` and the chain it extends is sound
        (else ``False``: another run moved it on, or it is damaged). A state msgpack
        cannot hold (a text with a lone surrogate, which a transcript's JSON may carry
        in a batch key) is not stored either: ``False``, and the next run reads on from
        the last state stored, or from the start when there is none."""
        import msgspec

        try:
            blob = msgspec.msgpack.encode(value)
        except UnicodeEncodeError:
            return False
        with self._query() as db:
            if db is None:
                return False
            try:
                with db:
                    db.execute("BEGIN IMMEDIATE")
                    ids = LiveIds(db, state)
                    if previous is None:
                        ids.replace(digests)
                    else:
                        row = db.execute("SELECT digest FROM live_states WHERE key = ?",
                                         (unit,)).fetchone()
                        if row is None or row[0] != previous:
                            return False
                        ids.insert(digests)
                    db.execute("INSERT OR REPLACE INTO live_states VALUES (?, ?, ?, ?)",
                               (unit, _digest(blob), blob, time.time()))
            except LiveIdsDamaged:
                return False  # rolled back; the next run finds the damage and rebuilds
            return True
        return False

    # -- whole runs ---------------------------------------------------------
    @property
    def runs(self) -> RunStore:
        """The whole outputs (:class:`wavemetrics.cache.runcache.RunStore`)."""
        return RunStore(os.path.join(str(self.directory), RUNS_FOLDER))

    def load_run(self, key: str, scope: str) -> bytes | None:
        """The output stored for the ``summarize`` run ``key`` of the command ``scope``
        (:mod:`wavemetrics.cache.runcache`), or ``None`` (absent, or damaged: then dropped)."""
        return self.runs.load(key, scope)

    def store_run(self, key: str, scope: str, blob: bytes) -> bool:
        """Store a run's output under ``key`` in place of the older outputs of the same
        command (``scope``), keeping at most :data:`MAX_RUNS`; whether it was stored."""
        return self.runs.store(key, scope, blob)

    # -- the size bound ---------------------------------------------------
    def keep_within(self, bound: int | None = -1) -> list[tuple[str, str]]:
        """Keep the cache folder within ``bound`` bytes (default: the configured bound,
        :func:`~wavemetrics.cache._cachedir.max_bytes`; ``None``: no bound). When its files
        (:func:`~wavemetrics.cache.runcache.cache_bytes`, a few ``stat`` calls) hold more, the
        oldest entries go (:func:`eviction_order`) until it holds at most
        :data:`EVICT_TO` of the bound: whole outputs (by the time each was stored),
        per-unit entries (table ``units``) and live states (table ``live_states``, with
        their ``live_ids`` rows), a row counted by the bytes of its
        columns; the database is then compacted (``VACUUM``) so that its file shrinks.
        Returns what was removed, in order: ``("output", file name)`` or ``(table,
        key)``. Never raises for a cache problem (what could not be removed stays)."""
        try:
            return self._keep_within(max_bytes() if bound == -1 else bound)
        except (OSError, ValueError, TypeError):  # a damaged row, a folder gone: no more
            return []

    def _keep_within(self, bound: int | None) -> list[tuple[str, str]]:
        directory = str(self.directory)
        total = cache_bytes(directory)
        if bound is None or total <= bound:
            return []
        target = bound * EVICT_TO[0] // EVICT_TO[1]
        chosen = eviction_order(self._entries(), total, target)
        removed: set[tuple[str, str]] = set()
        rows = [entry for entry in chosen if entry[0] != "output"]
        for entry in chosen:
            if entry[0] == "output":
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(self.runs.folder, entry[1]))
                    removed.add(entry)
        if rows:
            with self._query() as db:
                if db is not None:
                    with db:
                        db.execute("BEGIN IMMEDIATE")
                        for table, key in rows:
                            # ``table`` is one of this module's table names
                            db.execute(f"DELETE FROM {table} WHERE key = ?", (key,))
                            if table == "live_states" and _hex(key):
                                db.execute("DELETE FROM live_ids WHERE state = ?",
                                           (live_state(key),))
                    removed.update(rows)
                    db.execute("VACUUM")  # the file gives the freed pages back
                    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return [entry for entry in chosen if entry in removed]

    def _entries(self) -> list[tuple[int, int, tuple[str, str]]]:
        """Every entry :meth:`keep_within` may remove: ``(stored ns, bytes, (kind, name))``."""
        entries: list[tuple[int, int, tuple[str, str]]] = []
        with contextlib.suppress(OSError), os.scandir(self.runs.folder) as scan:
            for file in scan:
                with contextlib.suppress(OSError):
                    if file.is_file(follow_symlinks=False) and not file.name.startswith("."):
                        info = file.stat(follow_symlinks=False)
                        entries.append((info.st_mtime_ns, info.st_size, ("output", file.name)))
        if not self.path.exists():
            return entries
        with self._query() as db:
            if db is not None:
                ids = dict(db.execute(
                    "SELECT state, sum(length(digest) + length(next) + length(tag) + 8)"
                    " FROM live_ids GROUP BY state").fetchall())
                for key, stored, size in db.execute(
                        "SELECT key, stored, length(key) + length(unit) + length(digest)"
                        " + length(blob) + 16 FROM units"):
                    entries.append((int(stored * 1e9), int(size), ("units", str(key))))
                for key, stored, size in db.execute(
                        "SELECT key, stored, length(key) + length(digest) + length(blob) + 8"
                        " FROM live_states"):
                    size += ids.get(live_state(str(key)), 0) if _hex(str(key)) else 0
                    entries.append((int(stored * 1e9), int(size), ("live_states", str(key))))
        return entries

    # -- maintenance ------------------------------------------------------
    def info(self) -> CacheInfo:
        """Counts and size of the cache; does not create it."""
        runs = self.runs.count()
        size = cache_bytes(str(self.directory))  # what the size bound measures
        if not self.path.exists():
            return CacheInfo(str(self.path), runs > 0, 0, 0, 0, 0, size, runs)
        units = files = summaries = detections = 0
        with self._query() as db:
            if db is not None:
                units, files = db.execute(
                    "SELECT count(*), coalesce(sum(files), 0) FROM units WHERE files > 0"
                ).fetchone()
                (summaries,) = db.execute(
                    "SELECT count(*) FROM units WHERE files = 0").fetchone()
                (detections,) = db.execute("SELECT count(*) FROM detections").fetchone()
        return CacheInfo(str(self.path), True, int(units), int(files), int(summaries),
                         int(detections), size, int(runs))

    def clear(self) -> bool:
        """Delete the cache database and the stored outputs; ``True`` if there was either."""
        existed = self.path.exists()
        self.close()
        self._remove_files()
        return self.runs.clear() or existed
