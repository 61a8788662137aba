"""UUID helpers shared by the ``codex`` and ``pi`` readers.

Codex mints session and turn ids as UUIDv7 (RFC 9562), whose first 48 bits are
the Unix time in ms; both Codex and pi end their file names with the session's
UUID, which stands in for the session id when the file has no header.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from wavemetrics.readers._lines import os_text

__all__ = ["session_id_from_file_name", "uuid7_ms"]

_HEX = "[0-9a-fA-F]"
_UUID = f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"
_UUID7 = re.compile(f"{_HEX}{{8}}-{_HEX}{{4}}-7{_HEX}{{3}}-[89abAB]{_HEX}{{3}}-{_HEX}{{12}}")
_TRAILING_UUID = re.compile(f"(?:^|[-_])({_UUID})$")


def uuid7_ms(value: object) -> int | None:
    """The creation time in ms of a canonical UUIDv7 string, else ``None``.

    Version nibble 7 and the RFC variant (``8``-``b``) are required, so a
    random (v4) id is never mistaken for a time.

    >>> uuid7_ms("019c8a4c-ed82-79a1-aa28-7738fc5ab61a")
    1771846823298
    >>> uuid7_ms("d126e3d0-80ed-480a-be8c-09d97ff602cf") is None
    True
    """
    if not isinstance(value, str) or _UUID7.fullmatch(value) is None:
        return None
    return int(value[:8] + value[9:13], 16)


def session_id_from_file_name(path: str) -> str:
    """The UUID that ends a file's name (``rollout-<time>-<uuid>``, ``<time>_<uuid>``),
    else the name without its suffixes; ``stdin`` for ``-``. Bytes of the name that
    are not UTF-8 become ``\\xNN`` text, so the id can always be printed and hashed.

    >>> session_id_from_file_name("2025-12-09T00-52_d97339c6-6c10-4827-846b-9ff1d9c3dc37.jsonl")
    'd97339c6-6c10-4827-846b-9ff1d9c3dc37'
    >>> session_id_from_file_name("notes.jsonl.gz")
    'notes'
    """
    if path == "-":
        return "stdin"
    name = PurePath(os_text(path)).name
    stem = name.split(".")[0] or name
    match = _TRAILING_UUID.search(stem)
    return match.group(1) if match else stem
