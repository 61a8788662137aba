"""Where the cache lives and which version of it a key names, with ``os`` only.

:mod:`wavemetrics.cache.units` (the SQLite tables) and :mod:`wavemetrics.cache.runcache` (the
whole outputs) share the folder; :mod:`wavemetrics.cache.runcache` keys a run by the
version. Both are needed by a served or natively made ``summarize`` run, which
then loads neither SQLite nor :mod:`pathlib` (docs/performance-history.md, "Tenth round").
"""

from __future__ import annotations

import os

__all__ = [
    "CACHE_ENV",
    "CACHE_SCHEMA",
    "DEFAULT_MAX_BYTES",
    "MAX_BYTES_ENV",
    "cache_dir",
    "max_bytes",
    "version",
]

#: Environment variable naming the cache directory (tests point it at a temporary folder).
CACHE_ENV = "WAVEMETRICS_CACHE_DIR"
#: Bumped whenever what is stored, or how a reader reads, changes meaning; a
#: database of another schema (``PRAGMA user_version``) is emptied and rebuilt
#: (5: whole outputs left the database for files of :mod:`wavemetrics.cache.runcache`; 6: no
#: resume points, the status line's live states in their own table ``live_states``;
#: 7: the status line's answer a whole output, live states carry the time they were
#: stored, for the size bound; 8: observations carry batch keys, lanes their measured
#: turns and timing, live states the section-9 accumulator).
CACHE_SCHEMA = 8
#: Environment variable setting the size bound of the cache folder (:func:`max_bytes`).
MAX_BYTES_ENV = "WAVEMETRICS_CACHE_MAX_BYTES"
#: The cache folder's default size bound, 256 MiB: the whole outputs and per-unit
#: entries of a large history (the 1,800-file fleet's whole cache is 14 MB) fit many
#: times over, while ordinary use can no longer fill a disk (docs/cli.md, "The cache").
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
_UNITS = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}


def cache_dir() -> str:
    """``$WAVEMETRICS_CACHE_DIR`` if set and not empty, else the platform's user cache
    directory (:func:`platformdirs.user_cache_dir`, e.g. ``~/.cache/wavemetrics``)."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return configured
    from platformdirs import user_cache_dir

    return str(user_cache_dir("wavemetrics", appauthor=False))


def max_bytes(setting: str | None = None) -> int | None:
    """The size bound of the cache folder in bytes, from ``setting`` (default:
    ``$WAVEMETRICS_CACHE_MAX_BYTES``): a whole number of bytes, or of KiB, MiB or GiB
    with the suffix ``K``, ``M`` or ``G`` (any case, ``iB`` or ``B`` allowed after it);
    ``0`` means no bound (``None``). Unset, empty or none of these: :data:`DEFAULT_MAX_BYTES`
    (a cache setting never fails a run).

    >>> max_bytes("64M"), max_bytes("1kib"), max_bytes(" 1000 "), max_bytes("0")
    (67108864, 1024, 1000, None)
    >>> max_bytes("lots") == max_bytes("-5") == max_bytes("") == DEFAULT_MAX_BYTES
    True
    """
    if setting is None:
        setting = os.environ.get(MAX_BYTES_ENV, "")
    text = setting.strip().lower()
    text = text[:-2] if text.endswith("ib") else text.removesuffix("b")
    unit = text[-1:] if text[-1:] in ("k", "m", "g") else ""
    digits = text[: len(text) - len(unit)]
    if not (digits.isascii() and digits.isdigit()):
        return DEFAULT_MAX_BYTES
    return int(digits) * _UNITS[unit] or None


def version() -> str:
    """The wavemetrics version and the cache schema, ``<version>/<schema>``: part of every key."""
    from wavemetrics import __version__

    return f"{__version__}/{CACHE_SCHEMA}"
