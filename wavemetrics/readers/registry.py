"""The registry of trace formats, built in one place: the order detection tries them.

Each entry is one format module's :class:`~wavemetrics.readers._protocol.TraceFormat`
object (``docs/formats.md``); the first whose ``sniff`` accepts an input's
first lines wins, so a more specific format comes before a looser one. Adding
a format is one module and one line here (``docs/architecture.md``). A format's
module is imported on first use, in registry order (:func:`trace_formats`).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import attrs

from wavemetrics.readers import unmeasured_agents as agents
from wavemetrics.readers._protocol import Peek, TraceFormat
from wavemetrics.readers.sources import DETECT_LINES

if TYPE_CHECKING:
    #: Every format this version reads, in detection order (imports every reader).
    TRACE_FORMATS: tuple[TraceFormat, ...]
    #: The formats this version reads, by their ``--input-format`` names
    #: (``wavemetrics.readers.FORMATS``; imports every reader).
    FORMATS: tuple[str, ...]

__all__ = [
    "DETECT_LINES", "FORMATS", "TRACE_FORMATS", "format_named", "trace_formats",
    "unmeasurable_reason",
]


#: Every format this version reads, in detection order: the module that declares it and
#: the name of its format object there. A module is imported when a look-up first
#: reaches it (:func:`trace_formats`), so a run whose files are all read natively, or
#: all detected as one of the first formats, loads no other reader (start-up time).
TRACE_FORMAT_MODULES: tuple[tuple[str, str], ...] = (
    ("wavemetrics.readers.events", "EVENTS"),
    # before claude-code, which takes any user/assistant record with a uuid
    ("wavemetrics.readers.qwen", "QWEN"),
    ("wavemetrics.readers.claude_code", "CLAUDE_CODE"),
    ("wavemetrics.readers.codex", "CODEX"),
    ("wavemetrics.readers.codex_tui", "CODEX_TUI"),
    ("wavemetrics.readers.pi", "PI"),
    ("wavemetrics.readers.otlp", "OTLP"),
    ("wavemetrics.readers.otel_spans", "OTEL_SPANS"),
    ("wavemetrics.readers.inspect_log", "INSPECT"),
    ("wavemetrics.readers.mcode", "MCODE"),
    ("wavemetrics.readers.copilot", "COPILOT"),
    ("wavemetrics.readers.kimi", "KIMI"),
    ("wavemetrics.readers.openclaw", "OPENCLAW"),
    ("wavemetrics.readers.opencode", "OPENCODE"),
    ("wavemetrics.readers.opencode_storage", "OPENCODE_STORAGE"),
)

# The formats loaded so far, by their place in TRACE_FORMAT_MODULES and by name
# (dict.setdefault keeps one object per place when threads race to load it).
_loaded: dict[int, TraceFormat] = {}
_named: dict[str, TraceFormat] = {}


def trace_formats() -> Iterator[TraceFormat]:
    """Every format in detection order, each module imported only when reached."""
    for index, (module, attribute) in enumerate(TRACE_FORMAT_MODULES):
        trace_format = _loaded.get(index)
        if trace_format is None:
            loaded = getattr(importlib.import_module(module), attribute)
            trace_format = _loaded.setdefault(index, loaded)
            _named.setdefault(trace_format.name, trace_format)
        yield trace_format


def format_named(name: str) -> TraceFormat:
    """The registry entry called ``name``; raises ``KeyError`` for an unknown name.

    Imports the reader modules up to that format's, in registry order."""
    found = _named.get(name)
    if found is not None:
        return found
    for trace_format in trace_formats():
        if trace_format.name == name:
            return trace_format
    raise KeyError(name)


def __getattr__(name: str) -> Any:
    if name == "TRACE_FORMATS":
        return tuple(trace_formats())
    if name == "FORMATS":
        return tuple(trace_format.name for trace_format in trace_formats())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


#: Formats recognised only to say clearly why they give no figures. Tried only when no
#: format above took the input; the agents' strict recognisers come before the looser
#: SWE-agent and OpenHands ones (``docs/formats.md``, "Agents recognised but not measured").
UNMEASURABLE: tuple[Unmeasurable, ...] = (
    Unmeasurable("gemini-cli", agents.sniff_gemini_cli, agents.GEMINI_CLI),
    Unmeasurable("droid", agents.sniff_droid, agents.DROID),
    Unmeasurable("antigravity", agents.sniff_antigravity, agents.ANTIGRAVITY),
    Unmeasurable("amp", agents.sniff_amp, agents.AMP),
    Unmeasurable("codebuff", agents.sniff_codebuff, agents.CODEBUFF),
    Unmeasurable("grok-build", agents.sniff_grok_build, agents.GROK_BUILD),
    Unmeasurable("goose", agents.sniff_goose, agents.GOOSE),
    Unmeasurable("hermes", agents.sniff_hermes, agents.HERMES),
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
