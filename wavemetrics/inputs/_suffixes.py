"""File-name suffixes of traces: one definition for the folder walk and the run cache.

Light on purpose (os and stat only, which every interpreter has loaded):
:mod:`wavemetrics.cache.runcache` keys a served run by the files a folder walk would
read, before click and the readers load, and
:mod:`wavemetrics.readers.sources` walks folders with the same suffixes (docs/cli.md,
"wavemetrics summarize").
"""

from __future__ import annotations

import os
import stat

__all__ = [
    "SESSION_SUFFIXES", "SKIPPED_SUFFIXES", "SQLITE_HEADER", "STORE_SUFFIXES", "TRACE_SUFFIXES",
    "may_be_store",
]

#: Files a folder walk reads.
#: ``.traj`` is SWE-agent's trajectory: recognised and reported as unmeasurable (an
#: input error with the reason), in a folder as when named (README, docs/formats.md).
TRACE_SUFFIXES = (
    ".jsonl", ".json", ".jsonl.gz", ".json.gz", ".eval", ".traj", ".db", ".sqlite",
)
#: Files a folder walk skips although they end in a trace suffix: Claude Code writes
#: ``agent-*.meta.json`` beside sub-agent transcripts (metadata, not a trace).
SKIPPED_SUFFIXES = (".meta.json",)
#: Files that may be SQLite stores (``opencode.db``, ZCode's ``db.sqlite``): read in a
#: folder walk, and never kept by a cache, since part of a WAL database's committed
#: state lives in its ``-wal`` file, which no cache key sees (docs/formats.md,
#: "SQLite stores").
STORE_SUFFIXES = (".db", ".sqlite")
#: A Claude Code session file, ``<sessionId>.jsonl`` (or gzipped): its sub-agents are in
#: ``<sessionId>/subagents/``, or beside it as ``agent-<8hex>.jsonl`` (docs/formats.md).
SESSION_SUFFIXES = (".jsonl", ".jsonl.gz")
#: The first 16 bytes of every SQLite 3 database file (the file format's header).
SQLITE_HEADER = b"SQLite format 3\x00"


def may_be_store(path: str) -> bool:
    """Whether the file ``path`` may be a SQLite store, which no cache may keep: a
    store suffix, or a regular file (of any name) that starts with the SQLite header.
    Anything else (a pipe, a device) is never opened here: a pipe is read once, by
    the run."""
    if path.endswith(STORE_SUFFIXES):
        return True
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as stream:
            return stream.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except (OSError, ValueError):
        return False
