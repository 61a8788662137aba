"""Format detection from an input's first records (``spec/formats.md``, detection)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wavemetrics.readers._lines import LineAccount, iter_records
from wavemetrics.readers.claude_code import CLAUDE_ONLY_TYPES
from wavemetrics.readers.events import EVENT_TYPES

__all__ = ["DETECT_LINES", "EMPTY", "FORMATS", "detect_format", "record_format"]

#: The formats this version reads, by their ``--input-format`` names.
FORMATS = ("events", "claude-code")
#: How many first lines detection looks at.
DETECT_LINES = 64
#: Pseudo-format of an input with no records at all.
EMPTY = "empty"


def record_format(record: dict[str, Any]) -> str | None:
    """The format one record belongs to, or ``None`` if it tells nothing."""
    kind = record.get("type")
    if not isinstance(kind, str):
        return None
    if kind in EVENT_TYPES:
        return "events"
    if kind in CLAUDE_ONLY_TYPES:
        return "claude-code"
    if kind in ("user", "assistant", "system") and "uuid" in record:
        return "claude-code"
    return None


def detect_format(lines: Iterable[bytes]) -> str | None:
    """The format of the first record that names one; ``EMPTY`` if there are no
    lines with content at all; ``None`` if records are present but match no format."""
    account = LineAccount()
    for record in iter_records(lines, account):
        fmt = record_format(record)
        if fmt is not None:
            return fmt
        account.use()
    if account.lines_read == account.ignored.get("blank_line", 0):
        return EMPTY
    return None
