"""The registry of trace formats, built in one place: the order detection tries them.

Each entry is one format module's :class:`~wavemetrics.readers._protocol.TraceFormat`
object (``docs/formats.md``); the first whose ``sniff`` accepts an input's
first lines wins, so a more specific format comes before a looser one. Adding
a format is one module and one line here (``docs/architecture.md``). A format's
module is imported on first use, in registry order (:func:`trace_formats`).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from wavemetrics.readers._protocol import Peek, TraceFormat
from wavemetrics.readers.sources import DETECT_LINES

if TYPE_CHECKING:
    from wavemetrics.readers.unmeasured_agents import Unmeasurable

    #: Formats recognised only to say why they give no figures (``unmeasured_agents``).
    UNMEASURABLE: tuple[Unmeasurable, ...]
    #: Every format this version reads, in detection order (imports every reader).
    TRACE_FORMATS: tuple[TraceFormat, ...]
    #: The formats this version reads, by their ``--input-format`` names
    #: (``wavemetrics.readers.FORMATS``; imports no reader).
    FORMATS: tuple[str, ...]

__all__ = [
    "DETECT_LINES", "FORMATS", "TRACE_FORMATS", "UNMEASURABLE", "format_named",
    "trace_formats", "unmeasurable_reason",
]


#: Every format this version reads, in detection order: its ``--input-format`` name, the
#: module that declares it and the name of its format object there. A module is
#: imported when a look-up first reaches it (:func:`trace_formats`, :func:`format_named`),
#: so a run whose files are all read natively, or all detected as one of the first
#: formats, loads no other reader (start-up time).
TRACE_FORMAT_MODULES: tuple[tuple[str, str, str], ...] = (
    ("events", "wavemetrics.readers.events", "EVENTS"),
    # before claude-code, which takes any user/assistant record with a uuid
    ("qwen", "wavemetrics.readers.qwen", "QWEN"),
    ("claude-code", "wavemetrics.readers.claude_code", "CLAUDE_CODE"),
    ("codex", "wavemetrics.readers.codex", "CODEX"),
    ("codex-tui", "wavemetrics.readers.codex_tui", "CODEX_TUI"),
    ("pi", "wavemetrics.readers.pi", "PI"),
    ("otlp", "wavemetrics.readers.otlp", "OTLP"),
    ("otel-spans", "wavemetrics.readers.otel_spans", "OTEL_SPANS"),
    ("inspect", "wavemetrics.readers.inspect_log", "INSPECT"),
    ("mcode", "wavemetrics.readers.mcode", "MCODE"),
    ("copilot", "wavemetrics.readers.copilot", "COPILOT"),
    ("kimi", "wavemetrics.readers.kimi", "KIMI"),
    ("openclaw", "wavemetrics.readers.openclaw", "OPENCLAW"),
    ("opencode", "wavemetrics.readers.opencode", "OPENCODE"),
    ("opencode-storage", "wavemetrics.readers.opencode_storage", "OPENCODE_STORAGE"),
)

# The formats loaded so far, by their place in TRACE_FORMAT_MODULES and by name
# (dict.setdefault keeps one object per place when threads race to load it).
_loaded: dict[int, TraceFormat] = {}
_named: dict[str, TraceFormat] = {}


def _load(index: int) -> TraceFormat:
    """The format of row ``index``, its module imported on first use."""
    trace_format = _loaded.get(index)
    if trace_format is None:
        _, module, attribute = TRACE_FORMAT_MODULES[index]
        loaded = getattr(importlib.import_module(module), attribute)
        trace_format = _loaded.setdefault(index, loaded)
        _named.setdefault(trace_format.name, trace_format)
    return trace_format


def trace_formats() -> Iterator[TraceFormat]:
    """Every format in detection order, each module imported only when reached."""
    for index in range(len(TRACE_FORMAT_MODULES)):
        yield _load(index)


def format_named(name: str) -> TraceFormat:
    """The registry entry called ``name``; raises ``KeyError`` for an unknown name.

    Imports that format's module only."""
    found = _named.get(name)
    if found is not None:
        return found
    for index, (row_name, _, _) in enumerate(TRACE_FORMAT_MODULES):
        if row_name == name:
            return _load(index)
    raise KeyError(name)


def unmeasurable_reason(peek: Peek) -> str | None:
    """Why an input of a recognised but unmeasurable format gives no figures, if it is
    one (the table of :mod:`wavemetrics.readers.unmeasured_agents`, loaded on first use:
    it is asked only when no format took the input)."""
    from wavemetrics.readers.unmeasured_agents import UNMEASURABLE

    for entry in UNMEASURABLE:
        if entry.sniff(peek):
            return entry.reason
    return None


def __getattr__(name: str) -> Any:
    if name == "TRACE_FORMATS":
        return tuple(trace_formats())
    if name == "FORMATS":
        return tuple(row[0] for row in TRACE_FORMAT_MODULES)
    if name == "UNMEASURABLE":
        from wavemetrics.readers.unmeasured_agents import UNMEASURABLE

        return UNMEASURABLE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


