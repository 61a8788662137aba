"""The registry of trace formats, built in one place: the order detection tries them,
and what each format can do.

Each row names one format module's :class:`~wavemetrics.readers._protocol.TraceFormat`
object (``docs/formats.md``); the first whose ``sniff`` accepts an input's
first lines wins, so a more specific format comes before a looser one. A row
also carries the format's capabilities outside its reader: whether the Rust
extension reads it (:class:`Native`) and whether the status line keeps a live
state of it (``live``). Nothing outside a format's module and its row names a
format: the engines and the cache ask these rows. Adding a format is one module
and one row here (``docs/architecture.md``). A format's module is imported on
first use, in registry order (:func:`trace_formats`); this module imports no
reader and nothing heavy, so the native command reads its rows at start-up.
"""

from __future__ import annotations

import importlib

from wavemetrics.inputs._files import (
    fallback_session_id,
    file_stem,
    named_log_lane,
    named_log_session_id,
    project_folder,
)
from wavemetrics.readers._record_types import (
    CLAUDE_ONLY_TYPES,
    CODEX_TYPES,
    COPILOT_LOG_NAMES,
    EVENT_TYPES,
    KIMI_LOG_NAMES,
    PI_TYPES,
)

# typing and collections.abc are not imported at run time: the native command reads
# these rows before anything else loads (start-up time); mypy takes any TYPE_CHECKING
# as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from wavemetrics.readers._protocol import Peek, TraceFormat
    from wavemetrics.readers.unmeasured_agents import Unmeasurable

    #: Formats recognised only to say why they give no figures (``unmeasured_agents``).
    UNMEASURABLE: tuple[Unmeasurable, ...]
    #: Every format this version reads, in detection order (imports every reader).
    TRACE_FORMATS: tuple[TraceFormat, ...]
    #: The formats this version reads, by their ``--input-format`` names
    #: (``wavemetrics.readers.dispatch.FORMATS``; imports no reader).
    FORMATS: tuple[str, ...]

__all__ = [
    "FORMATS", "NATIVE_ROWS", "NOT_RECORDED", "TRACE_FORMATS", "TRACE_FORMAT_MODULES",
    "UNMEASURABLE", "FormatRow", "Native", "format_named", "live_row", "native_session_ids",
    "native_sniffers", "planned_natively", "project_of", "trace_formats",
    "unmeasurable_reason",
]


class Native:
    """A format the Rust extension reads (``native/src/readers/``, one module per format).

    ``code``: the extension's number for the format (``readers::Format`` in
    ``native/``: what its reads take, and what its detection returns for a format it
    detects); ``sniff``: the record types its detection recognises the format by,
    handed to the extension (the format's ``sniff`` uses the same set), or ``None``
    for a format the extension reads but does not detect (the registry detects it);
    ``session_id``: the session id of a file's lines without one, from its path (the
    reader's own rule: :func:`~wavemetrics.inputs._files.fallback_session_id`,
    :func:`~wavemetrics.inputs._files.file_stem`, or a rollout's file name UUID)."""

    __slots__ = ("code", "session_id", "sniff")

    def __init__(self, code: int, sniff: frozenset[str] | None,
                 session_id: Callable[[str], str]) -> None:
        self.code, self.sniff, self.session_id = code, sniff, session_id


def _file_name_uuid(path: str) -> str:
    """:func:`wavemetrics.readers._uuids.session_id_from_file_name`, imported on first use
    (it needs the line helpers, which the native command's start-up does not load)."""
    from wavemetrics.readers._uuids import session_id_from_file_name

    return session_id_from_file_name(path)


def _copilot_session_id(path: str) -> str:
    """``copilot_session_id`` of the reader: the folder of an ``events.jsonl``, else the
    file stem."""
    return named_log_session_id(path, COPILOT_LOG_NAMES)


def _kimi_session_id(path: str) -> str:
    """The session of ``kimi_lane`` of the reader: the folder of a ``wire.jsonl`` (above
    ``subagents/<agent_id>/`` for a sub-agent's), else the file stem."""
    return named_log_lane(path, KIMI_LOG_NAMES)[0]


def _session_cwd(module: str) -> Callable[[str], str | None]:
    """The ``session_cwd`` of a reader module (the ``cwd`` its session header records,
    or ``None``), the module imported on first use."""

    def session_cwd(path: str) -> str | None:
        found: str | None = importlib.import_module(module).session_cwd(path)
        return found

    return session_cwd


def _storage_unit(path: str) -> str:
    """The read unit of an ``opencode-storage`` file (its storage folder), the reader
    imported on first use."""
    return format_named("opencode-storage").unit_key(path)


class FormatRow:
    """One registry row: the format's ``--input-format`` name, the module that declares it
    and the name of its format object there, and its capabilities: ``native`` (read by
    the extension, else ``None``), ``live`` (the name of the module's
    :class:`~wavemetrics.readers._protocol.LiveReading`, with which the status line keeps
    a live state of a growing transcript, else ``None``) and ``project`` (the project
    of an input for ``summarize --by project``: the working directory its session
    header records, or the folder of its read unit for a format read by folder; ``None``
    gives none, as does a format without the rule: :func:`project_of`)."""

    __slots__ = ("attribute", "live", "module", "name", "native", "project")

    def __init__(self, name: str, module: str, attribute: str, *,
                 native: Native | None = None, live: str | None = None,
                 project: Callable[[str], str | None] | None = None) -> None:
        self.name, self.module, self.attribute = name, module, attribute
        self.native, self.live, self.project = native, live, project


#: Every format this version reads, in detection order. A module is imported when a
#: look-up first reaches it (:func:`trace_formats`, :func:`format_named`), so a run
#: whose files are all read natively, or all detected as one of the first formats,
#: loads no other reader (start-up time).
TRACE_FORMAT_MODULES: tuple[FormatRow, ...] = (
    FormatRow("events", "wavemetrics.readers.events", "EVENTS",
              native=Native(0, EVENT_TYPES, file_stem)),
    # before claude-code, which takes any user/assistant record with a uuid
    FormatRow("qwen", "wavemetrics.readers.qwen", "QWEN"),
    # its read unit, the project folder, is its project
    FormatRow("claude-code", "wavemetrics.readers.claude_code", "CLAUDE_CODE",
              native=Native(1, CLAUDE_ONLY_TYPES, fallback_session_id), live="LIVE",
              project=project_folder),
    FormatRow("codex", "wavemetrics.readers.codex", "CODEX",
              native=Native(2, CODEX_TYPES, _file_name_uuid),
              project=_session_cwd("wavemetrics.readers.codex")),
    FormatRow("codex-tui", "wavemetrics.readers.codex_tui", "CODEX_TUI"),
    # each session file, fork or parent, by its own header (not the folder it is read with)
    FormatRow("pi", "wavemetrics.readers.pi", "PI", native=Native(3, PI_TYPES, _file_name_uuid),
              project=_session_cwd("wavemetrics.readers.pi")),
    FormatRow("otlp", "wavemetrics.readers.otlp", "OTLP", native=Native(8, None, file_stem)),
    FormatRow("otel-spans", "wavemetrics.readers.otel_spans", "OTEL_SPANS",
              native=Native(9, None, file_stem)),
    # each sample names its session; the file stem stands in for a log without an eval id
    FormatRow("inspect", "wavemetrics.readers.inspect_log", "INSPECT",
              native=Native(10, None, file_stem)),
    # the lines name their sessions: the file stem is handed over, never used
    FormatRow("mcode", "wavemetrics.readers.mcode", "MCODE", native=Native(7, None, file_stem)),
    FormatRow("copilot", "wavemetrics.readers.copilot", "COPILOT",
              native=Native(4, None, _copilot_session_id)),
    FormatRow("kimi", "wavemetrics.readers.kimi", "KIMI",
              native=Native(5, None, _kimi_session_id)),
    # the store names each session itself: the file stem is handed over, never used
    FormatRow("openclaw", "wavemetrics.readers.openclaw", "OPENCLAW",
              native=Native(6, None, file_stem)),
    FormatRow("opencode", "wavemetrics.readers.opencode", "OPENCODE"),
    FormatRow("opencode-storage", "wavemetrics.readers.opencode_storage", "OPENCODE_STORAGE",
              project=_storage_unit),
)

#: The rows of the formats the extension reads, by their code (``Native.code``).
NATIVE_ROWS: tuple[FormatRow, ...] = tuple(sorted(
    (row for row in TRACE_FORMAT_MODULES if row.native is not None),
    key=lambda row: row.native.code if row.native is not None else 0))


def native_sniffers() -> list[list[str]]:
    """The record types the extension's detection takes, one sorted list per native
    format, by code (its ``detect_many``, ``read_folded`` and ``summarize_json``
    argument); an empty list for a format it reads but does not detect."""
    lists: list[list[str]] = [[] for _ in range(max(_FOLDED_IDS, default=-1) + 1)]
    for row in NATIVE_ROWS:
        if row.native is not None and row.native.sniff is not None:
            lists[row.native.code] = sorted(row.native.sniff)
    return lists


def planned_natively() -> dict[str, Native]:
    """The formats the extension reads but does not detect (``Native.sniff`` is
    ``None``), by name: the registry detects their files and plans their units, which
    the extension then reads (the native command's ``plan_others``)."""
    return {row.name: row.native for row in NATIVE_ROWS
            if row.native is not None and row.native.sniff is None}


def native_session_ids(path: str) -> tuple[str, str | None]:
    """The session ids of ``path``'s lines without one, as the extension's folded read
    (detect and read a folder in one pass) takes them: read in a folder unit (the native
    format of code 1), and read alone (code 0) when that can differ (a file under a
    ``subagents`` folder), else ``None``."""
    return _FOLDED_IDS[1](path), _FOLDED_IDS[0](path) if "subagents" in path else None


#: The session-id rule of each native format, by code (looked up once, not per file).
_FOLDED_IDS = {row.native.code: row.native.session_id for row in NATIVE_ROWS if row.native}


#: The project of an input whose format records none (and of stdin).
NOT_RECORDED = "(not recorded)"

#: Each row's ``--by project`` rule, by format name.
_PROJECTS = {row.name: row.project for row in TRACE_FORMAT_MODULES}


def project_of(path: str, format_name: str) -> str:
    """The project of an input for ``summarize --by project``: its format row's rule
    (:class:`FormatRow`'s ``project``: the ``cwd`` a pi or Codex session header records,
    the project folder of a Claude Code transcript, the storage folder of an
    ``opencode-storage`` file), else :data:`NOT_RECORDED` (also for stdin, ``-``, an
    unknown format, and a header without a ``cwd``). Imports no reader for a Claude
    Code input; a pi or Codex input's reader reads the file's first lines."""
    rule = _PROJECTS.get(format_name)
    if path == "-" or rule is None:
        return NOT_RECORDED
    return rule(path) or NOT_RECORDED


def live_row() -> FormatRow:
    """The row of the format the status line keeps live states of (its transcripts)."""
    return next(row for row in TRACE_FORMAT_MODULES if row.live is not None)


# The formats loaded so far, by their place in TRACE_FORMAT_MODULES and by name
# (dict.setdefault keeps one object per place when threads race to load it).
_loaded: dict[int, TraceFormat] = {}
_named: dict[str, TraceFormat] = {}


def _load(index: int) -> TraceFormat:
    """The format of row ``index``, its module imported on first use."""
    trace_format = _loaded.get(index)
    if trace_format is None:
        row = TRACE_FORMAT_MODULES[index]
        loaded = getattr(importlib.import_module(row.module), row.attribute)
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
    for index, row in enumerate(TRACE_FORMAT_MODULES):
        if row.name == name:
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
        return tuple(row.name for row in TRACE_FORMAT_MODULES)
    if name == "UNMEASURABLE":
        from wavemetrics.readers.unmeasured_agents import UNMEASURABLE

        return UNMEASURABLE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


