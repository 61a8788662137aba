"""Trace readers: inputs -> lanes of observations, with every line accounted for.

One module per format; :func:`read_inputs` expands paths, detects formats and
groups Claude Code files by project folder (``spec/formats.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from wavemetrics.readers._lines import LineAccount, iter_records
from wavemetrics.readers.claude_code import ClaudeFile, read_claude_code
from wavemetrics.readers.lanes import InputReport, Lane
from wavemetrics.readers.registry import (
    DETECT_LINES,
    READERS,
    reader_named,
    unmeasurable_reason,
)
from wavemetrics.readers.sources import Source, expand_inputs, open_error, project_folder

__all__ = ["AUTO", "EMPTY", "FORMATS", "InputReport", "Lane", "ReadOutcome", "read_inputs"]

AUTO = "auto"
#: Pseudo-format of an input with no content at all (reported, not an error).
EMPTY = "empty"
#: The formats this version reads, by their ``--input-format`` names.
FORMATS: tuple[str, ...] = tuple(reader.name for reader in READERS)


@attrs.frozen
class ReadOutcome:
    """Every input's report (in input order) and every lane read (in reading order)."""

    inputs: tuple[InputReport, ...]
    lanes: tuple[Lane, ...]

    @property
    def failed(self) -> tuple[InputReport, ...]:
        """Inputs that could not be read or recognised."""
        return tuple(report for report in self.inputs if report.error is not None)


def detect_format(lines: list[bytes], path: str) -> str | None:
    """The first format whose recogniser accepts ``lines``; ``EMPTY`` when no line
    has content; ``None`` when there is content but no format matches."""
    if not any(line.strip() for line in lines):
        return EMPTY
    for reader in READERS:
        if reader.sniff(lines, path):
            return reader.name
    return None


def read_inputs(paths: Sequence[str], input_format: str = AUTO) -> ReadOutcome:
    """Read every path (file, directory read recursively, or ``-`` for stdin).

    ``input_format``: ``"auto"`` or one of :data:`FORMATS`. Never raises for bad
    data: an unreadable or unrecognised input gets ``error`` set in its report and
    the rest are still read. Raises ``ValueError`` for an unknown format name.
    """
    if input_format != AUTO and input_format not in FORMATS:
        raise ValueError(f"unknown input format {input_format!r}")
    entries = expand_inputs(list(paths))
    files = [path for path, error in entries if error is None]
    reports: dict[str, InputReport] = {}
    order: list[str] = [path for path, _ in entries]
    for path, reason in entries:
        if reason is not None:
            reports[path] = InputReport(path=path, format="unknown", error=reason)
    sources = {path: Source(path) for path in files}
    formats: dict[str, str] = {}
    for path, source in sources.items():
        error = None if source.is_stdin else open_error(path)
        if error is not None:
            reports[path] = InputReport(path=path, format="unknown", error=error)
            continue
        if input_format != AUTO:
            formats[path] = input_format
            continue
        peeked = source.peek(DETECT_LINES)
        detected = detect_format(peeked, path)
        if source.error is not None and detected in (None, EMPTY):
            # Cut off before anything recognisable (else its readable lines are read).
            reports[path] = InputReport(path=path, format="unknown", error=source.error)
        elif detected is None and (why := unmeasurable_reason(peeked, path)) is not None:
            reports[path] = InputReport(path=path, format="unknown", error=why)
        elif detected is None:
            reports[path] = InputReport(
                path=path, format="unknown",
                error=f"not a recognised trace format (looked at the first {DETECT_LINES} lines;"
                      f" known: {', '.join(FORMATS)})",
            )
        else:
            formats[path] = detected
    lanes: list[Lane] = []
    claude_groups: dict[str, list[str]] = {}
    for path, fmt in formats.items():
        if fmt == "claude-code":
            key = path if sources[path].is_stdin else project_folder(path)
            claude_groups.setdefault(key, []).append(path)
    done: set[str] = set()
    for path, fmt in formats.items():
        if path in done:
            continue
        source = sources[path]
        if fmt == EMPTY:
            account = LineAccount()
            _count_all(source, account)
            reports[path] = _report(path, fmt, account, source)
        elif fmt != "claude-code":
            read = reader_named(fmt).read
            assert read is not None
            lane_list, account = read(source)
            lanes.extend(lane_list)
            reports[path] = _report(path, fmt, account, source)
        else:
            group = next(g for g in claude_groups.values() if path in g)
            group_sorted = sorted(group)
            members = [ClaudeFile(p, sources[p].lines) for p in group_sorted]
            lane_list, accounts = read_claude_code(members)
            lanes.extend(lane_list)
            for member, account in zip(group_sorted, accounts, strict=True):
                reports[member] = _report(member, fmt, account, sources[member])
            done.update(group)
    return ReadOutcome(tuple(reports[p] for p in order), tuple(lanes))


def _count_all(source: Source, account: LineAccount) -> None:
    for _ in iter_records(source.lines(), account):
        account.use()  # unreachable for an EMPTY input, kept so no line is lost


def _report(path: str, fmt: str, account: LineAccount, source: Source) -> InputReport:
    return InputReport.from_account(path, fmt, account, error=source.error)
