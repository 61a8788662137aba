"""The table of formats: how each is recognised and read.

Each entry is one format of ``spec/formats.md``. ``sniff`` sees the first raw
lines of an input (up to ``DETECT_LINES`` with content) and says whether they
are this format; entries are tried in order and the first match wins.
``read`` reads one whole input. ``claude-code`` has no ``read``: its files are
read together per project folder by :func:`read_claude_code`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import attrs

from wavemetrics.readers._lines import LineAccount, first_records
from wavemetrics.readers.claude_code import CLAUDE_ONLY_TYPES
from wavemetrics.readers.codex import read_codex_source, sniff_codex
from wavemetrics.readers.codex_tui import read_codex_tui_source, sniff_codex_tui
from wavemetrics.readers.events import EVENT_TYPES, read_events
from wavemetrics.readers.inspect_log import read_inspect, sniff_inspect
from wavemetrics.readers.lanes import Lane
from wavemetrics.readers.otel_spans import read_otel_spans, sniff_otel_spans
from wavemetrics.readers.otlp import read_otlp, sniff_otlp
from wavemetrics.readers.pi import read_pi_source, sniff_pi
from wavemetrics.readers.sources import Source, file_stem

__all__ = ["DETECT_LINES", "READERS", "Reader", "first_records", "reader_named"]

#: How many first lines with content detection looks at.
DETECT_LINES = 64

ReadFn = Callable[[Source], tuple[list[Lane], LineAccount]]


@attrs.frozen
class Reader:
    """One format: its ``--input-format`` name, recogniser and reader."""

    name: str
    sniff: Callable[[list[bytes], str], bool]
    read: ReadFn | None


def _record_type(record: dict[str, Any]) -> str | None:
    # A "type" that is a list or object must not reach a set lookup (unhashable).
    kind = record.get("type")
    return kind if isinstance(kind, str) else None


def _sniff_events(lines: list[bytes], path: str) -> bool:
    return any(_record_type(record) in EVENT_TYPES for record in first_records(lines))


def _sniff_claude(lines: list[bytes], path: str) -> bool:
    for record in first_records(lines):
        kind = _record_type(record)
        if kind in CLAUDE_ONLY_TYPES:
            return True
        if kind in ("user", "assistant", "system") and "uuid" in record:
            return True
    return False


def default_session_id(path: str) -> str:
    """``stdin`` for ``-``, else the file name without its suffix (:func:`file_stem`)."""
    return file_stem(path)


def _read_events(source: Source) -> tuple[list[Lane], LineAccount]:
    return read_events(
        source.lines(), path=source.path, default_session_id=default_session_id(source.path)
    )


READERS: tuple[Reader, ...] = (
    Reader("events", _sniff_events, _read_events),
    Reader("claude-code", _sniff_claude, None),
    Reader("codex", sniff_codex, read_codex_source),
    Reader("codex-tui", sniff_codex_tui, read_codex_tui_source),
    Reader("pi", sniff_pi, read_pi_source),
    Reader("otlp", sniff_otlp, read_otlp),
    Reader("otel-spans", sniff_otel_spans, read_otel_spans),
    Reader("inspect", sniff_inspect, read_inspect),
)


@attrs.frozen
class Unmeasurable:
    """A trace format that is recognised but cannot give intervals, and why."""

    name: str
    sniff: Callable[[list[bytes], str], bool]
    reason: str


def _text_of(lines: list[bytes]) -> str:
    return b"".join(lines).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")


def _sniff_swe_agent(lines: list[bytes], path: str) -> bool:
    text = _text_of(lines)
    return text.startswith("{") and (
        path.endswith(".traj") or re.search(r'"trajectory"\s*:\s*\[', text) is not None
    )


def _sniff_openhands(lines: list[bytes], path: str) -> bool:
    text = _text_of(lines)
    return (
        text.startswith("[")
        and '"source":' in text
        and ('"action":' in text or '"observation":' in text)
    )


#: Formats recognised only to say clearly why they give no figures.
UNMEASURABLE: tuple[Unmeasurable, ...] = (
    Unmeasurable(
        "swe-agent", _sniff_swe_agent,
        "SWE-agent trajectory: it has no absolute timestamps (only per-step execution_time),"
        " so tool calls cannot be placed in time; nothing to measure",
    ),
    Unmeasurable(
        "openhands", _sniff_openhands,
        "OpenHands event list: its timestamps carry no UTC offset (server local time), which"
        " docs/formats.md treats as invalid; nothing to measure",
    ),
)


def unmeasurable_reason(lines: list[bytes], path: str) -> str | None:
    """Why an input of a recognised but unmeasurable format gives no figures, if it is one."""
    for entry in UNMEASURABLE:
        if entry.sniff(lines, path):
            return entry.reason
    return None


def reader_named(name: str) -> Reader:
    """The registry entry called ``name``; raises ``KeyError`` for an unknown name."""
    for reader in READERS:
        if reader.name == name:
            return reader
    raise KeyError(name)
