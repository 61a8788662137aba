"""Whole outputs, kept as they were printed and served again before the CLI loads: the
keys of ``summarize`` runs and of the status line's answer for a transcript.

A warm re-run over a large folder is dominated by imports, decoding lane
summaries, merging and rendering (docs/performance-history.md). When nothing that can
change the output has changed, this module answers ``wavemetrics summarize``
with the bytes the last identical run wrote (stdout and stderr, in the order
they were written) and its exit status, from :mod:`wavemetrics.cli._entry`, without
importing click, attrs, msgspec, the readers or the metric core (the target: a
warm re-run in at most 0.1 x the cold run).

The key (SHA-256) covers everything the output depends on:

- the wavemetrics version and cache schema, the Python version, and every
  source file of the installed package (name, size, ``st_mtime_ns``), so an
  edited or rebuilt package never serves an older run's output;
- the options as click converts them (each one given on the command line, or
  the marker that it was not), ``--since``/``--until`` also resolved to Unix ms;
  not ``--jobs`` nor ``--engine``, whose output is the same for any value
  (docs/cli.md; ``tests/test_native.py`` and ``tests/test_parallel.py``), though
  both are checked as click checks them;
- the environment the output depends on: ``TZ`` and the local zone's file
  (``/etc/localtime``), the ``--timezone`` zone's file, whether stdout and
  stderr are terminals (CSV escaping, click's ANSI stripping) and their
  encodings, and the working directory;
- the inputs: the paths as given (or the standard locations read with no PATH,
  or the bundled ``--demo`` file), and, after walking them as the readers do,
  every trace file's absolute path, size, ``st_mtime_ns``, ``st_ctime_ns``,
  inode and device, every name in each folder walked, and the few neighbours
  the sub-agent notes look at.

The status line's answer for a transcript (:func:`statusline_key`) is an entry of the
same store, keyed with the same head (version, cache schema, Python, the package's
source files) and the session's files (the transcript and its sub-agent files: path,
size, times, inode, device), its scope the transcript's path.

Never kept: a run reading stdin, a pipe or any non-regular file, a run with
``--no-cache``, a run that did not end with status 0 (an input not read in
full), a run whose inputs changed while it read them. What is stored is the
output as printed (ids, counts, figures, file names): never a line of a trace,
a tool argument, a result or a prompt. Only the stdlib, the light
:mod:`wavemetrics.cache._cachedir`, :mod:`wavemetrics.run._options` (the option table the
arguments are parsed with), :mod:`wavemetrics.run.plan` (the command line's plan) and, for inputs
that are folders, the extension's folder walk (:mod:`wavemetrics.inputs._walk`: the
same key, from one native walk) are imported to serve.

The store on disk (:class:`RunStore`): until the native engine's tenth round the
outputs were rows of the SQLite cache; a cold run then paid for loading SQLite,
creating the database, writing a 2.7 MB blob through the WAL and, at exit,
checkpointing it into the database file: ~0.02 s of a 0.27 s run over the 1,800-file
fleet (docs/performance-history.md, "Tenth round"). A file per scope costs a write and
a rename. Layout: ``<cache dir>/runs/<scope>``, the scope being 64 hex digits. A file
holds :data:`MAGIC`, the run's ``key`` (64 ASCII hex digits), the first 16 bytes of
the output's SHA-256 digest and the output (:func:`encode_output`). A new run of the
same command replaces the file (write to a temporary file, then ``os.replace``: a
reader sees the old file or the new one, never a part); at most :data:`MAX_RUNS`
files are kept, the least recently stored removed first. Never trusted when damaged:
a file whose digest does not match its output, or that is not of this layout, is
deleted and the run is a miss. Never fails a run: every ``OSError`` is a miss, or an
output not stored.

The whole cache folder (the outputs and the database beside them) has a size bound
(:func:`wavemetrics.cache._cachedir.max_bytes`): :meth:`RunStore.over_bound` tells, with a
few ``stat`` calls, when a store passed it, and the caller then has
:meth:`wavemetrics.cache.units.ReadCache.keep_within` evict the oldest entries (this module
never imports :mod:`wavemetrics.cache.units`, which builds on it).
"""

from __future__ import annotations

import _thread
import io
import os
import stat
import struct
import sys
import time

from wavemetrics.cache._digest import sha256

# the suffixes the folder walk of readers.sources uses (one definition, no import)
from wavemetrics.inputs._suffixes import SESSION_SUFFIXES as _SESSION_SUFFIXES
from wavemetrics.inputs._suffixes import (
    SKIPPED_SUFFIXES,
    STORE_SUFFIXES,
    TRACE_SUFFIXES,
    may_be_store,
)
from wavemetrics.run._options import FORMATS, SUMMARIZE, Option, parse_names, parse_seconds

# Every summarize run imports this module first, so it imports no more than the light
# modules above: typing, collections.abc, contextlib, json and hashlib (OpenSSL) were
# ~20 ms of a cold run's start-up (docs/performance-history.md, "Eleventh round"). mypy takes
# any TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import TracebackType
    from typing import Any, BinaryIO, Protocol

    import click

    class ReadCache(Protocol):
        """What a recording needs of :class:`wavemetrics.cache.units.ReadCache` (named here,
        not imported: that module builds on this one)."""

        @property
        def runs(self) -> RunStore: ...

        def keep_within(self, bound: int | None = -1) -> list[tuple[str, str]]: ...

    class Plan(Protocol):
        """What serving and recording need of :class:`wavemetrics.run.plan.Plan` (named
        here, not imported: that module builds on this one)."""

        @property
        def cached(self) -> bool: ...

        def state(self) -> RunState | None: ...

        def serves(self, options: dict[str, Any], files: Sequence[str]) -> bool: ...

    #: What :func:`run_key` hashes (:func:`fingerprint`): the head, then the inputs'
    #: part, a list (:func:`_inputs`) or its JSON text (:func:`_walked_inputs`).
    Parts = tuple[list[Any], list[Any] | bytes]
    #: A run's key and what it hashes, taken before its read (:func:`run_state`).
    RunState = tuple[tuple[str, str], Parts]

__all__ = [
    "DEFAULT",
    "MAGIC",
    "MAX_RUNS",
    "RUNS_FOLDER",
    "Again",
    "Recording",
    "RunStore",
    "cache_bytes",
    "decode_output",
    "default_store",
    "encode_output",
    "fingerprint",
    "options_from_args",
    "options_from_click",
    "paused",
    "record",
    "run_key",
    "run_state",
    "serve",
    "session_stats",
    "statusline_key",
    "store_unchanged",
    "write_chunks",
]

#: What an option not given on the command line is keyed as (its default is then
#: fixed by the package's source, which the key covers).
DEFAULT = "<default>"


#: ``summarize``'s options by flag (the one table, :mod:`wavemetrics.run._options`):
#: those that take a value, and the flags.
_VALUED = {flag: row for row in SUMMARIZE if row.kind not in ("argument", "flag")
           for flag in row.flags}
_FLAGS = {flag: row.name for row in SUMMARIZE if row.kind == "flag" for flag in row.flags}


def options_from_args(args: Sequence[str]) -> dict[str, Any] | None:
    """The keyed options of ``summarize ARGS`` as click would convert them, or ``None``
    when the arguments are anything but a plain, valid command line this parser is
    sure of (``--``, ``--help``, an unknown option, a bad number; ``-``, stdin, is a path):
    then click reads them. ``--no-cache`` is returned as given (never served)."""
    options: dict[str, Any] = {}
    paths: list[str] = []
    index = 0
    while index < len(args):
        token = args[index]
        index += 1
        if not token.startswith("-"):
            paths.append(token)
            continue
        if token == "-":  # stdin: a path (never cached: run_state)
            paths.append(token)
            continue
        if token == "--":
            return None
        if token in _FLAGS:
            options[_FLAGS[token]] = True
            continue
        flag, value = token, None
        if token.startswith("--") and "=" in token:
            flag, value = token.split("=", 1)
        elif not token.startswith("--") and len(token) > 2:
            flag, value = token[:2], token[2:]  # a short flag and its value: -j2
        if flag not in _VALUED:
            return None
        if value is None:
            if index >= len(args):
                return None
            value = args[index]
            index += 1
        row = _VALUED[flag]
        converted = _convert(value, row)
        if converted is _INVALID:
            return None
        if row.kind == "multiple":
            options.setdefault(row.name, []).append(converted)
        else:
            options[row.name] = converted
    options["paths"] = paths
    return options


_INVALID = object()


def _convert(value: str, row: Option) -> Any:
    """``value`` converted as click converts it for ``row`` (a choice's value checked,
    but for ``--input-format``, whose choices load with the readers: click checks it),
    or :data:`_INVALID`."""
    if row.kind in ("text", "multiple") or row.choices == FORMATS:
        return value
    if row.kind == "names":
        return parse_names(value)
    if row.kind == "seconds":
        try:
            return parse_seconds(value)
        except ValueError:
            return _INVALID
    if row.kind == "choice":
        return value if value in row.choices else _INVALID
    try:
        number = int(value)
    except ValueError:
        return _INVALID
    if row.kind == "cap":
        return None if number == 0 else (number if number > 0 else _INVALID)
    return number if number >= 1 else _INVALID


def options_from_click(ctx: click.Context) -> dict[str, Any]:
    """The keyed options of a ``summarize`` run from click's converted parameters: the
    same dictionary :func:`options_from_args` gives for the same command line."""
    from click.core import ParameterSource

    options: dict[str, Any] = {}
    for name, value in ctx.params.items():
        if name == "paths":
            options[name] = list(value)
        elif ctx.get_parameter_source(name) is not ParameterSource.DEFAULT:
            options[name] = list(value) if isinstance(value, tuple) else value
    return options


def _keyed(options: dict[str, Any]) -> dict[str, Any]:
    """The options with those not given as :data:`DEFAULT` and the unkeyed ones left out."""
    return {row.name: options.get(row.name, DEFAULT) for row in SUMMARIZE if row.keyed}


# -- the environment ----------------------------------------------------------
def _stamp(path: str) -> list[Any] | None:
    """Real path, size and times of a file (zone files, package files), or ``None``."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return [os.path.realpath(path), info.st_size, info.st_mtime_ns, info.st_ino]


def _zone(timezone: str | None) -> list[Any]:
    """What local time and ``--timezone`` resolve through: ``TZ``, ``/etc/localtime``,
    the zone files named."""
    tz = os.environ.get("TZ")
    parts: list[Any] = [tz, os.environ.get("TZDIR"), os.environ.get("PYTHONTZPATH"),
                        _stamp("/etc/localtime")]
    if tz:
        name = tz.lstrip(":")
        folder = os.environ.get("TZDIR") or "/usr/share/zoneinfo"
        parts.append(_stamp(name if os.path.isabs(name) else os.path.join(folder, name)))
    if timezone is not None and timezone.upper() not in ("UTC", "Z"):
        parts.append(_zone_file(timezone))
    return parts


def _zone_file(name: str) -> Any:
    import zoneinfo

    for folder in zoneinfo.TZPATH:
        found = _stamp(os.path.join(folder, name))
        if found is not None:
            return found
    import importlib

    try:
        tzdata = importlib.import_module("tzdata")
    except ImportError:
        return None
    return ["tzdata", getattr(tzdata, "IANA_VERSION", None), tzdata.__file__]


def _window(options: dict[str, Any]) -> list[Any] | None:
    """``--since``/``--until`` in Unix ms as the command resolves them, or ``None`` when
    they cannot be read (click then fails the run)."""
    since, until = options.get("since", DEFAULT), options.get("until", DEFAULT)
    if since == DEFAULT and until == DEFAULT:
        return []
    from wavemetrics.cli.timewindow import BadMoment, parse_bound, resolve_zone

    timezone = options.get("timezone", DEFAULT)
    try:
        zone = resolve_zone(None if timezone == DEFAULT else timezone)
        return [None if bound == DEFAULT else parse_bound(bound, zone, until=flag)
                for bound, flag in ((since, False), (until, True))]
    except BadMoment:
        return None


def _stream(stream: Any) -> list[Any]:
    try:
        terminal = bool(stream.isatty())
    except (AttributeError, ValueError):
        terminal = False
    return [terminal, getattr(stream, "encoding", None), getattr(stream, "errors", None)]


#: The package's folder (this module is in its ``cache`` folder).
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _package() -> list[Any]:
    """Every source file of the package, all its folders (``*.py``, the extension, the
    bundled example): name relative to the package, size, ``st_mtime_ns``."""
    root = _PACKAGE_ROOT
    found: list[Any] = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(s for s in subfolders if s != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".so", ".pyd", ".jsonl")):
                path = os.path.join(folder, name)
                info = os.stat(path)
                found.append([os.path.relpath(path, root), info.st_size, info.st_mtime_ns])
    return found


# -- the inputs -----------------------------------------------------------------
class _Uncacheable(Exception):
    """An input that is never cached: stdin, a pipe, a missing or unreadable path, a
    SQLite store (part of its committed state is in its ``-wal`` file, which no key
    made of the database file's stat sees: docs/formats.md, "SQLite stores")."""


def _file(path: str, found: list[Any], sessions: set[str], info: Any = None) -> None:
    """Key the file at the absolute ``path`` (``info``: its ``stat``, links followed)."""
    _stat_key(path, found, info)
    folder = os.path.dirname(path)
    if os.path.basename(folder) == "subagents":
        sessions.add(os.path.dirname(folder))


def _stat_key(path: str, found: list[Any], info: Any = None) -> None:
    """Key the regular file at ``path`` by its ``stat`` (``info``, else taken now)."""
    try:
        if info is None:
            info = os.stat(path)
    except OSError:
        raise _Uncacheable(path) from None
    if not stat.S_ISREG(info.st_mode):
        raise _Uncacheable(path)
    found.append([path, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino,
                  info.st_dev])


def _folder(top: str, found: list[Any], sessions: set[str]) -> None:
    """The walk of ``readers.sources._walk_files``: links to folders not followed."""
    stack = [os.path.abspath(top)]
    while stack:
        root = stack.pop()
        try:
            with os.scandir(root) as scan:
                entries = sorted(scan, key=_name)
        except OSError:
            raise _Uncacheable(root) from None
        subfolders: list[str] = []
        names: list[str] = []
        keyed = False  # a trace file of this folder was keyed (as _file does)
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                names.append(entry.name)
                if entry.name.endswith(TRACE_SUFFIXES) and not entry.name.endswith(
                        SKIPPED_SUFFIXES):
                    if entry.name.endswith(STORE_SUFFIXES):
                        raise _Uncacheable(entry.path)  # a SQLite store: never cached
                    try:
                        info = entry.stat()
                    except OSError:
                        raise _Uncacheable(entry.path) from None
                    _stat_key(entry.path, found, info)
                    keyed = True
            elif entry.is_symlink():
                names.append(entry.name + "/")  # not read; its presence is keyed
            else:
                subfolders.append(entry.name)
        if keyed and os.path.basename(root) == "subagents":
            sessions.add(os.path.dirname(root))  # _file's rule, once per folder
        found.append([root, names, subfolders])
        stack.extend(os.path.join(root, name) for name in reversed(subfolders))


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _inputs(files: Sequence[str]) -> list[Any]:
    """The fingerprint of the inputs ``files`` (paths, folders): raises :class:`_Uncacheable`."""
    found: list[Any] = []
    sessions: set[str] = set()
    for path in files:
        if path == "-":
            raise _Uncacheable(path)
        if os.path.isdir(path):
            _folder(path, found, sessions)
            continue
        if may_be_store(path):
            raise _Uncacheable(path)  # a SQLite store, whatever its name: never cached
        _file(os.path.abspath(path), found, sessions)
        # what the sub-agent notes look at beside a file named alone (cli._subagent_hints)
        folder = os.path.dirname(os.path.abspath(path))
        try:
            found.append([folder, sorted(os.listdir(folder))])
        except OSError:
            raise _Uncacheable(folder) from None
        suffix = next((x for x in _SESSION_SUFFIXES if path.endswith(x)), None)
        if suffix is not None:
            found.append(os.path.isdir(os.path.join(path[: -len(suffix)], "subagents")))
    for session in sorted(sessions):
        found.append([session, [os.path.isfile(session + x) for x in _SESSION_SUFFIXES]])
    return found


def _walked_inputs(files: Sequence[str], jobs: int) -> list[Any] | bytes:
    """:func:`_inputs` of ``files``, or its JSON text (what :func:`_json` makes of it) from
    the extension's walk on ``jobs`` threads when every input is a folder
    (:func:`wavemetrics.inputs._walk.walk`: the same bytes, from one native walk); raises
    :class:`_Uncacheable`."""
    from wavemetrics.inputs._walk import walk

    walked = walk(files, key=True, jobs=jobs)
    if walked is None:
        return _inputs(files)
    if walked.key is None:
        raise _Uncacheable(files[0])
    if walked.files is not None:
        if any(name.endswith(STORE_SUFFIXES) for name in walked.files):
            raise _Uncacheable(files[0])  # a SQLite store in a folder: never cached
    elif any(b'%s"' % suffix.encode() in walked.key for suffix in STORE_SUFFIXES):
        raise _Uncacheable(files[0])  # a name that may be a store: not cached, to be safe
    return walked.key


def _json(value: Any) -> bytes:
    """The JSON text a key hashes for the inputs' part: what the native walk makes
    (:func:`_walked_inputs`), and what a Python walk's list is made into (:mod:`json`
    imported only then), so the key is the same from either walk: compact, non-ASCII
    kept, names that are not UTF-8 as their own bytes (surrogate escapes)."""
    import json

    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "surrogateescape")


def _text(value: Any) -> bytes:
    """The text a key hashes for its head (:func:`fingerprint`), with no :mod:`json`
    import (~6 ms of start-up, docs/performance-history.md, "Eleventh round"): its ``repr`` as
    UTF-8. For the lists, strings, ints, bools and ``None`` of a fingerprint
    it is exact (``ast.literal_eval`` gives the value back, so two values have the same
    text only when they are equal) and fixed for a Python version (which the head holds);
    it escapes lone surrogates (names that are not UTF-8), so it always encodes."""
    return repr(value).encode("utf-8")




def run_key(options: dict[str, Any], files: Sequence[str]) -> tuple[str, str] | None:
    """``(key, scope)`` of a ``summarize`` run with ``options`` (:func:`options_from_args`
    or :func:`options_from_click`) reading ``files`` (the paths after the default
    locations or ``--demo`` are resolved); ``scope`` is the same key without the
    inputs' state (a new state of the command replaces the old). ``None``: never cached
    (stdin, a pipe, a missing path, an option that cannot be read)."""
    parts = fingerprint(options, files)
    return None if parts is None else _run_key(parts)


def _run_key(parts: Parts) -> tuple[str, str]:
    """:func:`run_key` of the :func:`fingerprint` ``parts``."""
    head, inputs = parts
    scope = sha256(_text(head)).hex()
    if isinstance(inputs, bytes):  # _json([scope, inputs]) without decoding the text
        return sha256(b'["' + scope.encode() + b'",' + inputs + b"]").hex(), scope
    return sha256(_json([scope, inputs])).hex(), scope


def statusline_key(stats: list[Any], *, turns: bool = False) -> tuple[str, str]:
    """``(key, scope)`` of the status line's answer for a session whose files (the
    transcript, then its sub-agent files) have the :func:`session_stats` ``stats``: the
    head of a ``summarize`` key (the version and cache schema, the Python version, every
    source file of the package) and the transcript's absolute path are the scope (a new
    state of the session replaces its older answer), the key adds ``stats``. ``turns``
    (``statusline --turns``, another line) is in the head."""
    from wavemetrics.cache._cachedir import version

    head: list[Any] = ["statusline", version(), sys.version, _package(), stats[0][:1]]
    if turns:
        head.append("turns")
    return _run_key((head, stats))


def session_stats(paths: Sequence[str]) -> list[Any] | None:
    """Each file's absolute path, size, ``st_mtime_ns``, ``st_ctime_ns``, inode and
    device, as :func:`statusline_key` keys them (equal lists, equal keys for one
    package); ``None`` when a file is not a regular file, or ``paths`` is empty."""
    found: list[Any] = []
    try:
        for path in paths:
            if may_be_store(path):
                return None  # a SQLite store is never cached (see _Uncacheable)
            _stat_key(os.path.abspath(path), found)
    except _Uncacheable:
        return None
    return found or None


def _jobs(options: dict[str, Any]) -> int:
    """The threads a run walks and reads on: ``--jobs`` as given (a positive number,
    :func:`options_from_args` checks it), else the CLI's default."""
    if "jobs" in options:
        return int(options["jobs"])
    from wavemetrics.run._cores import default_jobs

    return default_jobs()


def fingerprint(
    options: dict[str, Any], files: Sequence[str]
) -> Parts | None:
    """What :func:`run_key` hashes, ``(head, inputs)``: the package, options and
    environment, then the inputs' state; ``None`` when the run is never cached. The
    inputs' state is :func:`_inputs`'s list or, when the extension walked every input
    folder, the same list's JSON text (the same key either way). Two fingerprints taken
    the same way are equal exactly when their keys are (plain lists of ints, strings,
    bools and ``None``, or that text), so the check after a read compares them without
    hashing."""
    if options.get("no_cache"):
        return None
    window = _window(options)
    if window is None:
        return None
    from wavemetrics.cache._cachedir import version

    keyed = _keyed(options)
    timezone = options.get("timezone", DEFAULT)
    head = [
        version(), sys.version, _package(), keyed, window,
        _zone(None if timezone == DEFAULT else timezone),
        _stream(sys.stdout), _stream(sys.stderr), os.getcwd(), list(files),
    ]
    try:
        inputs = _walked_inputs(files, _jobs(options))
    except _Uncacheable:
        return None
    return head, inputs


def resolve_files(options: dict[str, Any]) -> list[str] | None:
    """The inputs ``summarize`` reads (``cli._resolve_paths``): the PATHs, the bundled
    example with ``--demo``, else ``-`` (stdin) when data is piped in, else the standard
    locations that exist; ``None`` for a usage error or no location found."""
    paths: list[str] = options["paths"]
    if options.get("demo"):
        if paths:
            return None
        return [os.path.join(_PACKAGE_ROOT, "examples", "claude-code-demo.jsonl")]
    if paths:
        return list(paths)
    from wavemetrics.inputs._stdin import stdin_has_data

    if stdin_has_data():
        return ["-"]
    from wavemetrics.inputs.locations import default_locations

    found = default_locations()
    return [str(directory) for _, directory in found] or None


# -- the stored output ---------------------------------------------------------
_HEAD = struct.Struct("<iI")
_CHUNK = struct.Struct("<BI")


def encode_output(code: int, chunks: Sequence[tuple[int, bytes]]) -> bytes:
    """The stored form of a run: exit status and ``(stream, bytes)`` chunks in the order
    written (stream 1: stdout, 2: stderr)."""
    parts = [_HEAD.pack(code, len(chunks))]
    for stream, data in chunks:
        parts.append(_CHUNK.pack(stream, len(data)))
        parts.append(data)
    return b"".join(parts)


def decode_output(blob: bytes) -> tuple[int, list[tuple[int, bytes]]]:
    """:func:`encode_output` undone; raises :class:`ValueError` for a damaged blob."""
    try:
        code, count = _HEAD.unpack_from(blob, 0)
        offset = _HEAD.size
        chunks = []
        for _ in range(count):
            stream, size = _CHUNK.unpack_from(blob, offset)
            offset += _CHUNK.size
            if stream not in (1, 2) or offset + size > len(blob):
                raise ValueError("damaged")
            chunks.append((stream, blob[offset:offset + size]))
            offset += size
    except struct.error:
        raise ValueError("damaged") from None
    if offset != len(blob):
        raise ValueError("damaged")
    return code, chunks


def serve(plan: Plan) -> int | None:
    """Answer the planned ``wavemetrics summarize`` run (:mod:`wavemetrics.run.plan`) from a
    stored run: its bytes are written to stdout and stderr and its exit status returned;
    ``None`` when there is none (a miss: the command then runs as usual, keyed by the
    plan's key, taken here before any read). Never raises for a cache problem."""
    if not plan.cached:
        return None
    state = plan.state()
    if state is None:
        return None
    try:
        blob = default_store().load(*state[0])
        if blob is None:
            return None
        code, chunks = decode_output(blob)
    except (OSError, ValueError):
        return None
    return code if write_chunks(chunks) else 1


def write_chunks(chunks: Sequence[tuple[int, bytes]]) -> bool:
    """Write ``(stream, bytes)`` chunks to stdout (1) and stderr (2) in order, each
    flushed; ``False`` when the reader of a pipe went away (both streams then point at
    the null device, so that the exit is quiet, as click makes it: status 1)."""
    out, err = sys.stdout.buffer, sys.stderr.buffer
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        for stream, data in chunks:
            target = out if stream == 1 else err
            target.write(data)
            target.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        for closed in (sys.stdout, sys.stderr):
            try:
                os.dup2(devnull, closed.fileno())
            except (OSError, ValueError):
                pass
        return False
    return True


# -- recording a run -------------------------------------------------------------
def run_state(options: dict[str, Any], files: Sequence[str]) -> RunState | None:
    """The key of a run with ``options`` about to read ``files`` and what it hashes
    (:func:`fingerprint`), taken now (before the read); ``None`` when the run is never
    cached or its inputs cannot be looked at."""
    try:
        fresh = fingerprint(options, files)
        return None if fresh is None else (_run_key(fresh), fresh)
    except (OSError, ValueError, RecursionError):
        return None


class Again:
    """The :func:`fingerprint` of a run taken again after its read, on a thread of its own
    (``_thread``: :mod:`threading` is ~3 ms of start-up), while the run writes its output
    and readies it for the store: the walk's native part releases the GIL
    (docs/performance-history.md, "Eleventh round"). Start it once nothing the output depends on
    is left to look at (the notes written); :meth:`result` waits for it, and must be
    called before the process exits (a thread still in the extension when the
    interpreter finalises would be torn down mid-call). ``start=False``: started by
    :meth:`start` (so that the caller can keep it before its thread runs)."""

    def __init__(self, options: dict[str, Any], files: Sequence[str], *,
                 start: bool = True) -> None:
        self._parts: Parts | None = None
        self._started = False
        self._args = (options, list(files))
        self._done = _thread.allocate_lock()
        self._done.acquire()
        if start:
            self.start()

    def start(self) -> None:
        """Start the thread (once)."""
        if self._started:
            return
        try:
            self._started = True
            _thread.start_new_thread(self._take, self._args)
        except BaseException:
            self._done.release()  # no thread: nothing to wait for
            raise

    def _take(self, options: dict[str, Any], files: list[str]) -> None:
        try:
            self._parts = fingerprint(options, files)
        except Exception:  # any failure: the run is not stored (its output is printed)
            self._parts = None
        finally:
            self._done.release()

    def result(self) -> Parts | None:
        """The fingerprint, or ``None`` when the run is never cached, the walk failed or
        the thread never started. Waits for the thread even through a
        ``KeyboardInterrupt``, which is raised again once it has ended."""
        if not self._started:
            return None
        interrupted = False
        while True:
            try:
                self._done.acquire()
                break
            except KeyboardInterrupt:
                interrupted = True
        self._done.release()
        if interrupted:
            raise KeyboardInterrupt
        return self._parts


def store_unchanged(
    store: RunStore, options: dict[str, Any], files: Sequence[str], state: RunState,
    chunks: Sequence[tuple[int, bytes]], again: Again | None = None,
) -> bool:
    """Store the output ``chunks`` of a run that ended with status 0 under its key
    ``state`` (:func:`run_state`, taken before its read) unless its inputs changed while
    it read them (the same walk and stats again, compared without hashing; ``again``:
    that fingerprint, being taken on a thread, else it is taken now); whether it was
    stored."""
    blob = encode_output(0, chunks)
    digest = store.digest(blob)  # beside the walk of ``again``
    if again is None:
        try:
            parts = fingerprint(options, files)
        except (OSError, ValueError, RecursionError):
            return False
    else:
        parts = again.result()
    if parts is None or parts != state[1]:
        return False
    key, scope = state[0]
    return store.store(key, scope, blob, digest)


class _Tee(io.BufferedIOBase):
    """A binary stream that writes through to ``target`` and keeps what was written."""

    def __init__(self, target: BinaryIO, number: int, chunks: list[tuple[int, bytes]],
                 recording: Recording) -> None:
        super().__init__()
        self._target, self._number, self._chunks = target, number, chunks
        self._recording = recording

    def write(self, data: Any) -> int:
        written = bytes(data)
        self._target.write(written)
        if not self._recording.paused:
            self._chunks.append((self._number, written))
        return len(written)

    def flush(self) -> None:
        self._target.flush()

    def writable(self) -> bool:
        return True

    @property
    def name(self) -> Any:
        return getattr(self._target, "name", "<tee>")

    def isatty(self) -> bool:
        return self._target.isatty()

    def fileno(self) -> int:
        return self._target.fileno()

    def close(self) -> None:  # the real stream stays open
        try:
            self.flush()
        except ValueError:
            pass


class Recording:
    """A ``summarize`` run being recorded: stdout and stderr go through a tee. Set
    ``complete`` when it ended with status 0; :meth:`inputs` keys it."""

    def __init__(self, options: dict[str, Any], plan: Plan | None = None) -> None:
        self.options = options
        #: the entry's plan of this command line (:mod:`wavemetrics.run.plan`), if any
        self.plan = plan
        self.chunks: list[tuple[int, bytes]] = []
        self.paused = False
        self.complete = False
        self.files: list[str] | None = None
        self.key: tuple[str, str] | None = None
        #: what :attr:`key` hashes (:func:`fingerprint`), compared again after the read
        self.parts: Parts | None = None
        #: the run's cache (set by :func:`record`)
        self.cache: ReadCache | None = None
        self._saved: tuple[Any, Any] | None = None

    def start(self) -> bool:
        """Put the tees in place; ``False`` when the streams have no binary buffer."""
        out, err = sys.stdout, sys.stderr
        if not (hasattr(out, "buffer") and hasattr(err, "buffer")):
            return False
        out.flush()
        err.flush()
        self._saved = (out, err)
        sys.stdout = self._wrap(out, 1)
        sys.stderr = self._wrap(err, 2)
        return True

    def _wrap(self, stream: Any, number: int) -> io.TextIOWrapper:
        return io.TextIOWrapper(
            _Tee(stream.buffer, number, self.chunks, self), encoding=stream.encoding,
            errors=stream.errors, line_buffering=False, write_through=True,
        )

    def stop(self) -> None:
        if self._saved is None:
            return
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (ValueError, OSError):
                pass
        sys.stdout, sys.stderr = self._saved
        self._saved = None

    def inputs(self, files: Sequence[str]) -> None:
        """Key the run on its inputs (before they are read): with the key the entry's plan
        took, when the plan is this run (no second walk), else taken now. The files'
        stats the key's walk took are in :attr:`parts`: the click command hands them to
        its read (:func:`wavemetrics.cache.units.walked_keys`), which then does not stat
        them again before reading."""
        self.files = list(files)
        plan = self.plan
        state = (plan.state() if plan is not None and plan.serves(self.options, self.files)
                 else run_state(self.options, self.files))
        if state is not None:
            self.key, self.parts = state

    def store(self, cache: ReadCache) -> bool:
        """Store the run if it is complete and its inputs did not change while it read
        them, then keep the cache within its size bound; whether it was stored."""
        if (not self.complete or self.key is None or self.parts is None
                or self.files is None):
            return False
        stored = store_unchanged(cache.runs, self.options, self.files,
                                 (self.key, self.parts), self.chunks)
        if stored:
            cache.keep_within()
        return stored


_CURRENT: list[Recording] = []


class _Recorded:
    """The ``with`` block of :func:`record` (a class, not :mod:`contextlib`: start-up)."""

    def __init__(self, options: dict[str, Any], cache: ReadCache | None,
                 plan: Plan | None) -> None:
        self.recording = Recording(options, plan)
        self.cache = cache
        self.started = False

    def __enter__(self) -> Recording:
        recording = self.recording
        if self.cache is not None and recording.start():
            self.started = True
            recording.cache = self.cache
            _CURRENT.append(recording)
        return recording

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if not self.started:
            return
        _CURRENT.remove(self.recording)
        self.recording.stop()
        if kind is None and self.cache is not None:
            self.recording.store(self.cache)


def record(options: dict[str, Any], cache: ReadCache | None,
           plan: Plan | None = None) -> _Recorded:
    """Record the ``summarize`` run in the ``with`` block (``plan``: the entry's plan of the
    command line, whose key it takes when it is this run; nothing with ``cache`` None:
    ``--no-cache``) and store it at the end if :meth:`Recording.store` allows; the block
    gets the :class:`Recording`."""
    return _Recorded(options, cache, plan)


class _Paused:
    """The ``with`` block of :func:`paused`."""

    def __init__(self) -> None:
        self.recording = _CURRENT[-1] if _CURRENT else None

    def __enter__(self) -> None:
        if self.recording is not None:
            self.recording.paused = True

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.recording is not None:
            self.recording.paused = False


def paused() -> _Paused:
    """Leave out of the recording what is written in the block (the progress bar)."""
    return _Paused()


# -- the store on disk ---------------------------------------------------------
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
    # wavemetrics.cache._digest): ~1.5 ms for the fleet's 2.7 MB output here, BLAKE2b 3.6 ms;
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
        (:func:`wavemetrics.cache._cachedir.max_bytes`; never with no bound)."""
        from wavemetrics.cache._cachedir import max_bytes

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
    """The outputs of the cache in its default folder
    (:func:`wavemetrics.cache._cachedir.cache_dir`,
    where :class:`wavemetrics.cache.units.ReadCache` keeps its database)."""
    from wavemetrics.cache._cachedir import cache_dir

    return RunStore(os.path.join(cache_dir(), RUNS_FOLDER))
