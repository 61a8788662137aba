"""One input's report: its format and where every line went (a leaf: attrs only).

Kept apart from the readers' lane building (:mod:`wavemetrics.readers.lanes`, which
re-exports it) so that a view drawing a report from a JSON document
(:mod:`wavemetrics.views.document`) loads no reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from wavemetrics.readers._lines import LineAccount

__all__ = ["InputReport"]


def _read_only_counts(counts: Mapping[str, int]) -> Mapping[str, int]:
    """A read-only copy, so a frozen report cannot be changed through its counts."""
    return MappingProxyType(dict(counts))


@attrs.frozen
class InputReport:
    """How one input was read: its format and where every line went.

    ``lines_read == lines_used + lines_ignored + sum(problems.values())``.
    ``ignored`` counts known non-tool records by type, ``problems`` unusable lines
    by reason, ``notes`` things that are not lines (repeated blocks, ...).
    ``error`` is set when the input could not be read or recognised. The three
    count mappings are read-only (``types.MappingProxyType``); ``attrs.evolve``
    with a new mapping makes a changed copy.
    """

    path: str
    format: str
    lines_read: int = 0
    lines_used: int = 0
    lines_ignored: int = 0
    problems: Mapping[str, int] = attrs.field(factory=dict, converter=_read_only_counts)
    ignored: Mapping[str, int] = attrs.field(factory=dict, converter=_read_only_counts)
    notes: Mapping[str, int] = attrs.field(factory=dict, converter=_read_only_counts)
    error: str | None = None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # A mappingproxy cannot be pickled; --jobs sends reports between processes.
        return (
            InputReport,
            (self.path, self.format, self.lines_read, self.lines_used, self.lines_ignored,
             dict(self.problems), dict(self.ignored), dict(self.notes), self.error),
        )

    @classmethod
    def from_account(
        cls, path: str, fmt: str, account: LineAccount, error: str | None = None
    ) -> InputReport:
        return cls(
            path=path,
            format=fmt,
            lines_read=account.lines_read,
            lines_used=account.lines_used,
            lines_ignored=account.lines_ignored,
            problems=dict(sorted(account.problems.items())),
            ignored=dict(sorted(account.ignored.items())),
            notes=dict(sorted(account.notes.items())),
            error=error or account.error,
        )
