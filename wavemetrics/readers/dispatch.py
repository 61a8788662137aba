"""Inputs dispatched to formats: detection (:func:`detect_input`), read units
(:func:`plan_units`) and the read of one unit into a sink (:func:`read_unit`).

This module names no format: it asks the registry (``readers/registry.py``), whose
rows say what each format is and can do, and the format objects themselves
(``docs/formats.md``, "Format detection"). It knows nothing of metrics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

# the pseudo-formats and AUTO: one definition, in the stdlib-only module of the walk
from wavemetrics.core.activity import Timing
from wavemetrics.inputs._files import AUTO, DUPLICATE, EMPTY
from wavemetrics.readers._lines import LineAccount, iter_records
from wavemetrics.readers._protocol import ObservationSink, Peek, TraceFormat
from wavemetrics.readers.lanes import InputReport
from wavemetrics.readers.limits import current_limits
from wavemetrics.readers.sources import DETECT_LINES, STDIN, Source, open_error, peek_was_cut

# The registry is imported on first use, and a reader only when detection or a look-up
# by name reaches it: the status line's live path imports one reader (start-up time).
if TYPE_CHECKING:
    #: The formats this version reads, by their ``--input-format`` names.
    FORMATS: tuple[str, ...]

__all__ = [
    "AUTO",
    "DUPLICATE",
    "EMPTY",
    "FORMATS",
    "NO_USABLE_RECORD",
    "Detection",
    "InputReport",
    "ReadUnit",
    "call_timing",
    "detect_input",
    "plan_units",
    "read_unit",
    "reads_alone",
    "reads_store",
    "streamable",
]

#: How the error of an input whose every record is a problem begins.
NO_USABLE_RECORD = "no usable record"


def detect_format(peek: Peek) -> TraceFormat | str | None:
    """The first format whose recogniser accepts ``peek``; ``EMPTY`` when no line
    has content; ``None`` when there is content but no format matches."""
    if not any(line.strip() for line in peek.lines):
        # a peek cut at its cap has not seen the end: content may follow
        cut = peek_was_cut(list(peek.lines), current_limits().max_line_bytes)
        return None if cut else EMPTY
    from wavemetrics.readers.registry import trace_formats

    for trace_format in trace_formats():  # a module imported only when reached
        if trace_format.sniff(peek):
            return trace_format
    return None


@attrs.frozen
class Detection:
    """What detection found for one file: its format, or why it cannot be read."""

    path: str
    format: str | None
    error: str | None = None
    #: Content that matches no format (neither read nor a known unmeasurable one).
    unrecognised: bool = False


@attrs.frozen
class ReadUnit:
    """Files read together (sorted by path): one file, or every Claude Code file of a
    project folder (the format's ``unit_key``)."""

    format: str
    paths: tuple[str, ...]


def _unrecognised() -> str:
    from wavemetrics.readers.registry import FORMATS

    return (f"not a recognised trace format (looked at the first {DETECT_LINES} lines;"
            f" known: {', '.join(FORMATS)})")


def detect_input(path: str, input_format: str = AUTO, source: Source | None = None) -> Detection:
    """Detect one file's format (or take ``input_format``); never raises for bad data."""
    source = source or Source(path)
    if source.read_once():
        # a pipe, device or stdin is opened once, by the peek (a FIFO opened
        # twice loses a writer that wrote and closed in between); its first lines
        # are peeked under a forced format too, for the pipeline's foreign-input
        # check (it cannot be read again)
        lines = source.peek(DETECT_LINES)
        if source.error is not None and not lines:
            return Detection(path, None, source.error)
    else:
        error = open_error(path)
        if error is not None:
            return Detection(path, None, error)
        lines = [] if input_format != AUTO else source.peek(DETECT_LINES)
    if input_format != AUTO:
        return Detection(path, input_format)
    peek = Peek(lines, path)
    detected = detect_format(peek)
    if source.error is not None and detected in (None, EMPTY):
        # Cut off before anything recognisable (else its readable lines are read).
        return Detection(path, None, source.error)
    if detected is None:
        from wavemetrics.readers.registry import unmeasurable_reason

        reason = unmeasurable_reason(peek)
        return Detection(path, None, reason or _unrecognised(), unrecognised=reason is None)
    return Detection(path, detected if isinstance(detected, str) else detected.name)


def reads_alone(format_name: str, path: str) -> bool:
    """Whether ``path`` of this format is a read unit by itself (not grouped with others)."""
    from wavemetrics.readers.registry import format_named

    return format_name == EMPTY or path == STDIN or format_named(format_name).unit_key(path) == path


def reads_store(format_name: str | None) -> bool:
    """Whether inputs of this format are SQLite stores, which no cache keeps (the
    format says: ``FileFormat.store``; docs/formats.md, "SQLite stores")."""
    if format_name is None or format_name == EMPTY:
        return False
    from wavemetrics.readers.registry import format_named

    return bool(getattr(format_named(format_name), "store", False))


def call_timing(format_name: str) -> Timing:
    """Where this format's call times come from (``docs/metrics.md`` section 9, "Timing
    provenance"; the format says: ``FileFormat.timing``): ``"execution"`` or
    ``"message"``; ``"execution"`` for an empty input, which has no call."""
    if format_name == EMPTY:
        return "execution"
    from wavemetrics.readers.registry import format_named

    return format_named(format_name).timing


def streamable(format_name: str) -> bool:
    """Whether lanes of this format may be summarised while read (the format says)."""
    from wavemetrics.readers.registry import format_named

    return format_name != EMPTY and format_named(format_name).streamable


def plan_units(detections: Sequence[Detection]) -> list[ReadUnit]:
    """Group detected files into read units, in order of first appearance.

    Files of one format with one ``unit_key`` form one unit (a Claude Code
    project folder: uuid de-duplication and sub-agent lanes span a folder; a pi
    session folder: forks are read after their parents; so a folder is never
    split between workers, ``docs/formats.md``), read in path order; stdin is
    always a unit of its own.
    """
    from wavemetrics.readers.registry import format_named

    units: list[tuple[str, list[str]]] = []
    index: dict[tuple[str, str], int] = {}
    for detection in detections:
        fmt, path = detection.format, detection.path
        if fmt is None:
            continue
        # reads_alone(fmt, path), asking the format for the path's unit key once
        key = path if fmt == EMPTY or path == STDIN else format_named(fmt).unit_key(path)
        if key == path:
            units.append((fmt, [path]))
        elif (fmt, key) in index:
            units[index[fmt, key]][1].append(path)
        else:
            index[fmt, key] = len(units)
            units.append((fmt, [path]))
    return [ReadUnit(fmt, tuple(sorted(paths))) for fmt, paths in units]


def read_unit(
    unit: ReadUnit, sink: ObservationSink, sources: dict[str, Source] | None = None
) -> tuple[InputReport, ...]:
    """Read one unit's files into ``sink``; one report per path, in the unit's order.

    ``sources``: already opened inputs by path (stdin must be, as it can be
    read once); the others are opened here. Never raises for bad data.
    """
    from wavemetrics.readers.registry import format_named

    sources = sources or {}
    opened = [sources.get(path) or Source(path) for path in unit.paths]
    if unit.format == EMPTY:
        accounts = [_count_all(source) for source in opened]
    else:
        accounts = format_named(unit.format).read(opened, sink)
    return tuple(
        InputReport.from_account(source.path, unit.format, account, error=source.error)
        for source, account in zip(opened, accounts, strict=True)
    )


def _count_all(source: Source) -> LineAccount:
    account = LineAccount()
    for _ in iter_records(source.lines(), account):
        account.use()  # unreachable for an EMPTY input, kept so no line is lost
    return account


def __getattr__(name: str) -> Any:
    if name == "FORMATS":
        from wavemetrics.readers.registry import FORMATS

        return FORMATS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
