"""Folder walks and file names, with nothing imported beyond the standard library.

The folder walk of the readers (:func:`expand_entries`, the rules of
``docs/formats.md`` and docs/cli.md, "wavemetrics summarize"), the look for copies before
their content is hashed (:func:`copy_candidates`) and the names derived from a
path (:func:`file_stem`, :func:`project_folder`, :func:`fallback_session_id`)
live here, light on purpose: :mod:`wavemetrics.readers.sources` re-exports
them, and the native command (:mod:`wavemetrics.run.fastpath`) runs the same
functions before click, attrs or any reader is imported (start-up time).
"""

from __future__ import annotations

import errno
import os
import stat

from wavemetrics.inputs._paths import absolute
from wavemetrics.inputs._suffixes import SKIPPED_SUFFIXES, TRACE_SUFFIXES

TYPE_CHECKING = False  # no collections.abc at run time (mypy takes any TYPE_CHECKING as true)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = [
    "AUTO",
    "DETECT_LINES",
    "DUPLICATE",
    "EMPTY",
    "EMPTY_FOLDER",
    "GZIP_MAGIC",
    "SIDECAR_REASON",
    "SKIPPED_UNRECOGNISED",
    "STDIN",
    "copy_candidates",
    "describe_os_error",
    "expand_entries",
    "fallback_session_id",
    "file_stem",
    "folders_all_skipped",
    "named_log_lane",
    "named_log_session_id",
    "os_text",
    "project_folder",
    "size_and_head",
]

STDIN = "-"
#: Why a folder gave nothing to read: every suffix a folder walk reads.
EMPTY_FOLDER = ("no trace files in this directory (read: "
                + ", ".join(f"*{suffix}" for suffix in TRACE_SUFFIXES) + ")")
GZIP_MAGIC = b"\x1f\x8b"
#: The ``--input-format`` that detects each input's format.
AUTO = "auto"
#: The format of an input with no content (``docs/formats.md``).
EMPTY = "empty"
#: The format of an input whose content repeats an earlier input's (read once).
DUPLICATE = "duplicate"
#: How many first lines with content detection looks at (``readers.registry``).
DETECT_LINES = 64
#: Why a file found in a folder was skipped after detection.
SKIPPED_UNRECOGNISED = (
    f"not a trace: matches no known format (looked at the first {DETECT_LINES} lines)"
)


def os_text(name: str) -> str:
    r"""A file name as printable text: bytes that are not UTF-8 become ``\xNN``.

    >>> os_text("run\udcff")
    'run\\xff'
    """
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def describe_os_error(exc: OSError) -> str:
    """The reason an :class:`OSError` gives, lower case (``permission denied``)."""
    if exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


def _is_trace_name(name: str) -> bool:
    return name.endswith(TRACE_SUFFIXES) and not name.endswith(SKIPPED_SUFFIXES)


#: Why a ``*.meta.json`` file found in a folder is skipped without being opened.
SIDECAR_REASON = "metadata sidecar (*.meta.json, written beside Claude Code sub-agents)"


def _stat_error(path: str, *, regular: bool) -> str | None:
    """Why ``path`` cannot be read as a trace file, or ``None``; with ``regular``,
    only regular files qualify (a FIFO in a folder would block the read forever)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ENOENT and os.path.islink(path):
            return "broken symbolic link"
        return describe_os_error(exc)
    if regular and not stat.S_ISREG(mode):
        return "not a regular file (skipped)"
    return None


def _walk_files(
    folder: str, onerror: Callable[[OSError], None], listed: set[str] | None = None
) -> Iterator[tuple[str, list[str], set[str]]]:
    """``(folder, sorted non-folder names, plain names)`` of ``folder`` and every
    sub-folder, depth first, sub-folders in name order: the order of ``os.walk`` with
    sorted names. The plain names are those the listing shows as regular files that
    are not symbolic links (``DirEntry.is_file(follow_symlinks=False)``: no system
    call where the file system gives the entry's type).

    Iterative, so a tree nested 1,100 levels deep cannot raise ``RecursionError``
    (``os.walk`` recurses before Python 3.12). Links to folders are not followed;
    a folder that cannot be listed is passed to ``onerror``. ``listed``: filled with
    every sub-folder walked into (each the join of its parent and a name that is no
    link).
    """
    stack = [folder]
    while stack:
        root = stack.pop()
        try:
            with os.scandir(root) as scan:
                entries = list(scan)
        except OSError as exc:
            onerror(exc)
            continue
        subfolders: list[str] = []
        names: list[str] = []
        plain: set[str] = set()
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                names.append(entry.name)
                try:
                    if entry.is_file(follow_symlinks=False):
                        plain.add(entry.name)
                except OSError:
                    pass  # looked at again by the caller
            elif not entry.is_symlink():
                subfolders.append(entry.name)
        yield root, sorted(names), plain
        below = [os.path.join(root, name) for name in sorted(subfolders, reverse=True)]
        if listed is not None:
            listed.update(below)
        stack.extend(below)


def _walk(
    folder: str, skipped: list[tuple[str, str]] | None = None, listed: set[str] | None = None
) -> tuple[list[str], list[tuple[str, str]], set[str]]:
    """The trace files under ``folder``, the unreadable entries with their reason, and
    the files found that the listing showed as regular files, not links (not stat'ed
    again here: a file that vanishes before it is read gets its error from the read);
    ``listed``: filled with the sub-folders walked into (:func:`_walk_files`)."""
    found: list[str] = []
    bad: list[tuple[str, str]] = []
    plain_files: set[str] = set()

    def unreadable(exc: OSError) -> None:
        bad.append((exc.filename or folder, describe_os_error(exc)))

    for root, names, plain in _walk_files(folder, unreadable, listed):
        for name in names:
            if not _is_trace_name(name):
                if skipped is not None and name.endswith(SKIPPED_SUFFIXES):
                    skipped.append((os.path.join(root, name), SIDECAR_REASON))
                continue
            full = os.path.join(root, name)
            if name in plain:
                found.append(full)
                plain_files.add(full)
                continue
            reason = _stat_error(full, regular=True)
            if reason is None:
                found.append(full)
            else:
                bad.append((full, reason))
    return found, bad, plain_files


def expand_entries(
    paths: list[str], walked: dict[str, str], skipped: list[tuple[str, str]],
    plain_files: set[str] | None = None,
) -> list[tuple[str, str | None]]:
    """``expand_inputs`` of :mod:`wavemetrics.readers.sources`, filling ``walked`` (each file
    a folder walk found, mapped to that folder), ``skipped`` (``(path, reason)`` of the
    sidecars a walk passed over) and ``plain_files`` (the files found that a folder's
    listing showed as regular files, not links)."""
    entries: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    real_folders: dict[str, str] = {}
    listed: set[str] = set()  # sub-folders walked into: no link (see real_folder)

    def real_folder(folder: str) -> str:
        # os.path.realpath(folder), once per folder; a sub-folder a walk went into is its
        # parent's real path joined with its name (no link), without a system call
        # (iterative: a tree 1,100 levels deep must not recurse)
        pending: list[str] = []
        while folder not in real_folders and folder in listed:
            pending.append(folder)
            folder = os.path.split(folder)[0]
        if folder not in real_folders:
            real_folders[folder] = os.path.realpath(folder)
        for below in reversed(pending):
            real_folders[below] = os.path.join(real_folders[folder], os.path.split(below)[1])
            folder = below
        return real_folders[folder]

    def real(path: str, plain: bool) -> str:
        # os.path.realpath(path); ``plain``: a folder walk's file listed as no link (so
        # not looked at again)
        folder, name = os.path.split(path)
        if not plain and (name in ("", ".", "..") or os.path.islink(path)):
            return os.path.realpath(path)
        return os.path.join(real_folder(folder), name)

    def add_file(path: str, plain: bool = False) -> None:
        key = path if path == STDIN else real(path, plain)
        if key not in seen:
            seen.add(key)
            entries.append((path, None))

    for path in paths:
        if path == STDIN:
            add_file(path)
        elif os.path.isdir(path):
            found, bad, plain = _walk(path, skipped, listed)
            if not found and not bad:
                entries.append((path, EMPTY_FOLDER))
            if plain_files is not None:
                plain_files.update(plain)
            for file in found:
                walked.setdefault(file, path)
                add_file(file, file in plain)
            entries.extend((bad_path, reason) for bad_path, reason in bad)
        elif os.path.exists(path):
            add_file(path)
        else:
            entries.append((path, _stat_error(path, regular=False) or "no such file or directory"))
    return entries


#: Bytes of a plain file compared before its whole content is hashed.
HEAD_BYTES = 4096


def _same_heads(group: list[str], heads: dict[str, bytes | None]) -> list[str]:
    """The files of ``group`` that may have the same content as another of them, in order.

    Plain files whose first :data:`HEAD_BYTES` bytes (``heads``, from
    :func:`_size_and_head`) match no other file's cannot be a copy, so they are not
    hashed whole; a gzip file (or one that cannot be read: head ``None``) is always
    kept, since its head says nothing of its content.
    """
    if any(heads[path] is None for path in group):
        return group
    count: dict[bytes | None, int] = {}
    for path in group:
        count[heads[path]] = count.get(heads[path], 0) + 1
    return [path for path in group if count[heads[path]] > 1]


def size_and_head(path: str) -> tuple[int, bytes | None]:
    """Bytes of ``path``'s content and its first :data:`HEAD_BYTES` bytes, in one open.

    The size is a gzip file's ISIZE trailer (the size mod 2**32 of its last member; a
    key to compare by, not a measure), else its size on disk; ``-1`` when the file
    cannot be read. The head is ``None`` for a gzip file or one that cannot be read.
    """
    try:
        with open(path, "rb") as stream:
            head = stream.read(HEAD_BYTES)
            if not head.startswith(GZIP_MAGIC):
                return os.fstat(stream.fileno()).st_size, head
            stream.seek(-4, os.SEEK_END)
            return int.from_bytes(stream.read(4), "little"), None
    except OSError:
        return -1, None


def file_stem(path: str) -> str:
    """Default session id of an input: ``stdin`` for ``-``, else the file name
    without its suffix (and without ``.gz`` first): ``a.b.jsonl`` -> ``a.b``.

    >>> file_stem("/x/run.2.jsonl.gz"), file_stem("-")
    ('run.2', 'stdin')
    """
    if path == STDIN:
        return "stdin"
    text = os_text(path)
    name = os.path.basename(text)
    if name in ("", ".", "..") or "/." in text or "//" in text:
        from pathlib import PurePath

        name = PurePath(text).name  # what pathlib makes of odd paths
    name = name.removesuffix(".gz")
    # PurePath(name).stem (os.path is several times faster, with the same rule)
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def named_log_session_id(path: str, log_names: tuple[str, ...]) -> str:
    """The session id of an agent's log whose file name is one of ``log_names``: the name
    of its folder (``<sessionId>/events.jsonl``), else (another name, a folder ``.``, ``..``
    or none) the file name without suffix (:func:`file_stem`).

    >>> named_log_session_id("/h/.copilot/session-state/4f1c/events.jsonl", ("events.jsonl",))
    '4f1c'
    >>> named_log_session_id("/tmp/run.jsonl", ("events.jsonl",))
    'run'
    """
    if path != STDIN:
        folder, name = os.path.split(os_text(path))
        parent = os.path.basename(folder)
        if name in log_names and parent not in ("", ".", ".."):
            return parent
    return file_stem(path)


def named_log_lane(path: str, log_names: tuple[str, ...]) -> tuple[str, str]:
    """``(session_id, lane_id)`` of an agent's log whose file name is one of ``log_names``
    by its place in the store: ``<sessionId>/<name>`` is the session's ``main`` lane,
    ``<sessionId>/subagents/<agent_id>/<name>`` its lane ``<agent_id>``; any other file
    is session :func:`file_stem`, lane ``main``. The native reader works the lane out
    again from the path (``lane_id`` of ``native/src/readers/kimi.rs``).

    >>> named_log_lane("/h/.kimi/sessions/9a0b/s-1/subagents/a7/wire.jsonl", ("wire.jsonl",))
    ('s-1', 'a7')
    >>> named_log_lane("/tmp/run.jsonl", ("wire.jsonl",))
    ('run', 'main')
    """
    if path != STDIN:
        from pathlib import PurePath

        parts = PurePath(os_text(path)).parts
        if parts and parts[-1] in log_names:
            if len(parts) >= 4 and parts[-3] == "subagents":
                return parts[-4], parts[-2]
            if len(parts) >= 2 and parts[-2] not in ("/", ".", ".."):
                return parts[-2], "main"
    return file_stem(path), "main"


def project_folder(path: str) -> str:
    """Claude Code project folder of a transcript: the parent folder, or for
    ``<project>/<session>/subagents/agent-*.jsonl`` the ``<project>`` folder."""
    parent = os.path.dirname(absolute(path))  # os.path: ~10x faster than pathlib
    if os.path.basename(parent) == "subagents":
        return os.path.dirname(os.path.dirname(parent))
    return parent


def fallback_session_id(path: str) -> str:
    """Session id for lines without ``sessionId``: the ``<session>`` folder of a
    ``<session>/subagents/`` file, else the file name without its suffix."""
    # a path without "subagents" has no folder of that name (os_text writes undecodable
    # bytes as \xNN, never these letters): its file stem, without pathlib's cost
    if "subagents" not in path:
        return file_stem(path)
    from pathlib import PurePath

    pure = PurePath(os_text(path))
    if pure.parent.name == "subagents" and pure.parent.parent.name:
        return pure.parent.parent.name
    return file_stem(path)


def copy_candidates(paths: list[str]) -> list[list[str]]:
    """The groups of ``paths`` that may hold the same content, each in input order: files
    that share a name stem (``x.jsonl``, ``x.jsonl.gz``, ``a/x.jsonl`` and ``b/x.jsonl``)
    and their content's size (:func:`size_and_head`), less the plain files whose first
    :data:`HEAD_BYTES` bytes match no other file's of the group. Only these are hashed
    whole by :func:`~wavemetrics.readers.sources.identical_inputs`; only files that share
    a stem are opened here (most runs: none), each once. The native command applies the
    same rule in the extension (``may_repeat`` of ``native/src/command.rs``, the heads
    read on its threads; ``tests/test_fastpath.py`` compares the two)."""
    by_stem: dict[str, list[str]] = {}
    for path in paths:
        if path != STDIN:
            by_stem.setdefault(file_stem(path), []).append(path)
    by_key: dict[tuple[str, int], list[str]] = {}
    heads: dict[str, bytes | None] = {}
    for stem, named in by_stem.items():
        if len(named) > 1:
            for path in named:
                if os.path.isfile(path):
                    size, heads[path] = size_and_head(path)
                    by_key.setdefault((stem, size), []).append(path)
    return [kept for group in by_key.values()
            if len(group) > 1 and len(kept := _same_heads(group, heads)) > 1]


def folders_all_skipped(walked: dict[str, str], skipped: set[str]) -> dict[str, int]:
    """The named folders whose every file a walk found is in ``skipped`` (the sidecars
    and the files of no trace), each with how many files it holds, in order of first
    appearance (``walked``: each walked file's named folder, as
    :func:`expand_entries` fills it). The CLI reports each such folder as an error, as
    it does an empty one."""
    folders: dict[str, list[str]] = {}
    for path, folder in walked.items():
        folders.setdefault(folder, []).append(path)
    return {folder: len(files) for folder, files in folders.items()
            if files and all(path in skipped for path in files)}
