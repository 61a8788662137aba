"""The registry of trace formats, built in one place: the order detection tries them.

Each entry is one format module's :class:`~wavemetrics.readers._protocol.TraceFormat`
object (``spec/formats.md``); the first whose ``sniff`` accepts an input's
first lines wins, so a more specific format comes before a looser one. Adding
a format is one module and one line here (``docs/architecture.md``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import attrs

from wavemetrics.readers._protocol import Peek, TraceFormat
from wavemetrics.readers.claude_code import CLAUDE_CODE
from wavemetrics.readers.codex import CODEX
from wavemetrics.readers.codex_tui import CODEX_TUI
from wavemetrics.readers.events import EVENTS
from wavemetrics.readers.inspect_log import INSPECT
from wavemetrics.readers.otel_spans import OTEL_SPANS
from wavemetrics.readers.otlp import OTLP
from wavemetrics.readers.pi import PI
from wavemetrics.readers.sources import DETECT_LINES

__all__ = [
    "DETECT_LINES", "FORMATS", "TRACE_FORMATS", "format_named", "unmeasurable_reason",
]


#: Every format this version reads, in detection order.
TRACE_FORMATS: tuple[TraceFormat, ...] = (
    EVENTS,
    CLAUDE_CODE,
    CODEX,
    CODEX_TUI,
    PI,
    OTLP,
    OTEL_SPANS,
    INSPECT,
)
#: The formats this version reads, by their ``--input-format`` names
#: (``wavemetrics.readers.FORMATS``).
FORMATS: tuple[str, ...] = tuple(trace_format.name for trace_format in TRACE_FORMATS)


def format_named(name: str) -> TraceFormat:
    """The registry entry called ``name``; raises ``KeyError`` for an unknown name."""
    for trace_format in TRACE_FORMATS:
        if trace_format.name == name:
            return trace_format
    raise KeyError(name)


@attrs.frozen
class Unmeasurable:
    """A trace format that is recognised but cannot give intervals, and why."""

    name: str
    sniff: Callable[[Peek], bool]
    reason: str


def _sniff_swe_agent(peek: Peek) -> bool:
    text = peek.text
    return text.startswith("{") and (
        peek.path.endswith(".traj") or re.search(r'"trajectory"\s*:\s*\[', text) is not None
    )


def _sniff_openhands(peek: Peek) -> bool:
    text = peek.text
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


def unmeasurable_reason(peek: Peek) -> str | None:
    """Why an input of a recognised but unmeasurable format gives no figures, if it is one."""
    for entry in UNMEASURABLE:
        if entry.sniff(peek):
            return entry.reason
    return None
