"""Where the cache lives and which version of it a key names, with ``os`` only.

:mod:`wavemetrics.cache` (the SQLite tables) and :mod:`wavemetrics.runstore` (the
whole outputs) share the folder; :mod:`wavemetrics.runcache` keys a run by the
version. Both are needed by a served or natively made ``summarize`` run, which
then loads neither SQLite nor :mod:`pathlib` (docs/performance-history.md, "Tenth round").
"""

from __future__ import annotations

import os

__all__ = ["CACHE_ENV", "CACHE_SCHEMA", "cache_dir", "version"]

#: Environment variable naming the cache directory (tests point it at a temporary folder).
CACHE_ENV = "WAVEMETRICS_CACHE_DIR"
#: Bumped whenever what is stored, or how a reader reads, changes meaning; a
#: database of another schema (``PRAGMA user_version``) is emptied and rebuilt
#: (5: whole outputs left the database for :mod:`wavemetrics.runstore`; 6: no resume
#: points, the status line's live states in their own table ``live_states``).
CACHE_SCHEMA = 6


def cache_dir() -> str:
    """``$WAVEMETRICS_CACHE_DIR`` if set and not empty, else the platform's user cache
    directory (:func:`platformdirs.user_cache_dir`, e.g. ``~/.cache/wavemetrics``)."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return configured
    from platformdirs import user_cache_dir

    return str(user_cache_dir("wavemetrics", appauthor=False))


def version() -> str:
    """The wavemetrics version and the cache schema, ``<version>/<schema>``: part of every key."""
    from wavemetrics import __version__

    return f"{__version__}/{CACHE_SCHEMA}"
