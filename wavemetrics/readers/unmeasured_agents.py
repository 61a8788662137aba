"""Agents whose stores are recognised only to say why no saving is measured from them.

Each agent here keeps its sessions in files whose times cannot place a tool call
in time (``docs/formats.md``, "Agents recognised but not measured"): one time for
a whole batch of calls (Gemini CLI chat files), whole seconds and one message for
a batch of results (Goose), a write timing nobody documented (Hermes, Droid), an
end known only from the next step (Antigravity), or no per-call time at all
(Amp, Codebuff, Grok Build). For each one this module gives a recogniser (a
``sniff`` over the input's first lines, as the registry's formats have) and the
reason detection reports, which names the agent, says why, and names the agent's
option that would record the times, if one is known. :data:`UNMEASURABLE` is the
table the registry asks, these agents first, then SWE-agent trajectories and
OpenHands event lists; it is loaded only when no format took an input.

The recognisers follow the file shapes documented in the agents' sources and in
third-party readers (no real file of any of them was available: each rule is
"verified against: documented schema"). They are strict, and the registry tries
them only after every readable format declined the input
(:func:`wavemetrics.readers.registry.unmeasurable_reason`), so a readable trace
is never refused by them. A recogniser never raises: it looks at the parsed first
records or at the first lines' text, and a SQLite store is opened read-only
(:mod:`wavemetrics.readers._sqlite`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

import attrs

from wavemetrics.readers._lines import LINE_TOO_LONG
from wavemetrics.readers._protocol import Peek

__all__ = [
    "AMP",
    "ANTIGRAVITY",
    "CODEBUFF",
    "DROID",
    "GEMINI_CLI",
    "GOOSE",
    "GROK_BUILD",
    "HERMES",
    "UNMEASURABLE",
    "Unmeasurable",
    "sniff_amp",
    "sniff_antigravity",
    "sniff_codebuff",
    "sniff_droid",
    "sniff_gemini_cli",
    "sniff_goose",
    "sniff_grok_build",
    "sniff_hermes",
]

# The reasons: the agent, why no saving is measured, and what would record the times.

#: Gemini CLI chat files (``~/.gemini/tmp/<project>/chats/*.jsonl``, legacy ``.json``).
GEMINI_CLI = (
    "Gemini CLI chat file: every tool call of a batch carries one time, written once the"
    " whole batch has ended, and no call has a start of its own, so no call can be placed"
    " in time and no saving can be measured; Gemini CLI's OpenTelemetry export (setting"
    " telemetry.enabled, or GEMINI_TELEMETRY_ENABLED=true) records each call's start and"
    " end, in a form wavemetrics does not read yet"
)
#: Goose's session database (``~/.local/share/goose/sessions/sessions.db``).
GOOSE = (
    "Goose session database: its times are whole seconds, and the results of a batch of"
    " tool calls come back in one message with one time, so no call's own end is known and"
    " no saving can be measured; a Goose option that would record per-call times: none known"
)
#: Hermes Agent's state database (``~/.hermes/state.db``).
HERMES = (
    "Hermes Agent state database: a call's only times are those of its assistant row and"
    " its tool row, and whether Hermes writes each row when it happens or a whole turn at"
    " once is not documented (an open question a real state.db can settle), so no saving"
    " can be measured; a Hermes option that would record per-call times: none known"
)
#: Droid's session files (``~/.factory/sessions/<cwd>/<uuid>.jsonl``).
DROID = (
    "Droid (Factory) session file: a call ends only at the time of the message line that"
    " holds its result, and whether Droid writes one line per result or one line for a"
    " whole batch is not documented (an open question a real session file can settle), so"
    " no saving can be measured; a Droid option that would record per-call times: none known"
)
#: Antigravity transcripts (``~/.gemini/antigravity-cli/brain/<id>/…/transcript.jsonl``).
ANTIGRAVITY = (
    "Antigravity transcript: each tool step has one time (whole seconds in the documented"
    " files), a call ends only when the next step begins, and calls carry no id (they are"
    " matched to their request by order), so no overlap can be seen and no saving can be"
    " measured; an Antigravity option that would record per-call times: none known"
)
#: Amp thread files (``~/.local/share/amp/threads/T-<uuid>.json``).
AMP = (
    "Amp thread file: it holds no time per tool call, only one per assistant message, so no"
    " call can be placed in time and no saving can be measured; an Amp option that would"
    " record per-call times: none known"
)
#: Codebuff chat files (``~/.config/manicode/projects/<p>/chats/<id>/chat-messages.json``).
CODEBUFF = (
    "Codebuff chat file: its tool blocks carry no time at all (only messages have one), so"
    " no call can be placed in time and no saving can be measured; a Codebuff option that"
    " would record per-call times: none known"
)
#: Grok Build session files (``~/.grok/sessions/<cwd>/<id>/{signals,summary}.json``).
GROK_BUILD = (
    "Grok Build session file (signals.json or summary.json): it holds session totals and no"
    " tool call, and no other file of a Grok Build session is documented, so no saving can"
    " be measured; a Grok Build option that would record per-call times: none known"
)


def _key(name: str) -> re.Pattern[str]:
    """A JSON object key in text (a key inside a string value is escaped, never matched)."""
    return re.compile(rf'"{re.escape(name)}"\s*:')


def _opens(text: str, bracket: str) -> bool:
    """Whether ``text`` (leading space and BOM already gone) opens a JSON object or an
    array of objects (``bracket`` ``{`` or ``[``)."""
    return re.match(r"\[\s*\{" if bracket == "[" else r"\{", text) is not None


def _first(peek: Peek) -> dict[str, Any] | None:
    """The first JSON object among the peeked lines (a header line), if any."""
    records = peek.records
    return records[0] if records else None


def _text(record: dict[str, Any], *keys: str) -> bool:
    return all(isinstance(record.get(key), str) for key in keys)


# Gemini CLI: a metadata line first (``sessionId``, ``projectHash``, ``startTime``,
# ``lastUpdated``, ``kind``), then message records; a legacy ``.json`` file is one object
# with the same keys and ``messages``.
_GEMINI_KEYS = tuple(map(_key, ("sessionId", "projectHash", "startTime")))
_GEMINI_MESSAGES = re.compile(r'"messages"\s*:\s*\[')


def sniff_gemini_cli(peek: Peek) -> bool:
    """A Gemini CLI chat file: its first record has string ``sessionId``,
    ``projectHash`` and ``startTime`` (the metadata line, or a legacy one-line
    ``.json``), or the text opens an object with those keys and ``messages: [``
    (a legacy pretty-printed ``.json``)."""
    first = _first(peek)
    if first is not None and _text(first, "sessionId", "projectHash", "startTime"):
        return True
    text = peek.text
    return (_opens(text, "{") and _GEMINI_MESSAGES.search(text) is not None
            and all(key.search(text) for key in _GEMINI_KEYS))


def sniff_droid(peek: Peek) -> bool:
    """A Droid session file: its first record is the ``session_start`` line with a
    string ``id`` and ``cwd``."""
    first = _first(peek)
    return (first is not None and first.get("type") == "session_start"
            and _text(first, "id", "cwd"))


def sniff_antigravity(peek: Peek) -> bool:
    """An Antigravity transcript: its first record is a step, with an integer
    ``step_index`` and string ``source``, ``type`` and ``created_at``."""
    first = _first(peek)
    if first is None:
        return False
    index = first.get("step_index")
    return (isinstance(index, int) and not isinstance(index, bool)
            and _text(first, "source", "type", "created_at"))


# Amp: one JSON object per thread, ``id`` ``T-<uuid>`` and a ``messages`` list.
_AMP_ID = re.compile(
    r'"id"\s*:\s*"T-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
    r'[0-9a-fA-F]{12}"')


def sniff_amp(peek: Peek) -> bool:
    """An Amp thread file: text that opens an object whose ``id`` is ``T-<uuid>`` and
    that has a ``messages`` list."""
    text = peek.text
    return (_opens(text, "{") and _AMP_ID.search(text) is not None
            and _GEMINI_MESSAGES.search(text) is not None)


# Codebuff: a JSON array of chat messages (``id``, ``variant``, ``content``, ``timestamp``).
_CODEBUFF_VARIANT = re.compile(r'"variant"\s*:\s*"(?:ai|user|agent|error)"')
_CODEBUFF_KEYS = tuple(map(_key, ("id", "content", "timestamp")))


def sniff_codebuff(peek: Peek) -> bool:
    """A Codebuff chat file: text that opens an array of objects, with a ``variant``
    of ``ai``, ``user``, ``agent`` or ``error`` and the keys ``id``, ``content`` and
    ``timestamp``."""
    text = peek.text
    return (_opens(text, "[") and _CODEBUFF_VARIANT.search(text) is not None
            and all(key.search(text) for key in _CODEBUFF_KEYS))


# Grok Build: ``signals.json`` (token counters) or ``summary.json`` (session info).
_GROK_SIGNALS = tuple(map(_key, ("contextTokensUsed", "primaryModelId", "turnCount")))
_GROK_SUMMARY = (re.compile(r'"info"\s*:\s*\{'),
                 *map(_key, ("current_model_id", "last_active_at")))


def sniff_grok_build(peek: Peek) -> bool:
    """A Grok Build session file: text that opens an object with the keys of
    ``signals.json`` (``contextTokensUsed``, ``primaryModelId``, ``turnCount``) or
    of ``summary.json`` (an ``info`` object, ``current_model_id``,
    ``last_active_at``)."""
    text = peek.text
    return _opens(text, "{") and any(
        all(key.search(text) for key in keys) for keys in (_GROK_SIGNALS, _GROK_SUMMARY))


# The SQLite stores: known by their tables and columns, read from the file itself.
_GOOSE_TABLES = {
    "sessions": {"id", "working_dir"},
    "messages": {"session_id", "role", "content_json", "created_timestamp"},
}
_HERMES_TABLES = {
    "sessions": {"id", "source", "parent_session_id"},
    "messages": {"session_id", "role", "tool_calls", "tool_call_id", "tool_name",
                 "timestamp"},
}


def _store_has(peek: Peek, wanted: dict[str, set[str]]) -> bool:
    """Whether ``peek`` is a SQLite database file whose tables hold ``wanted``'s columns
    (opened read-only; a pipe or stdin is never a store)."""
    from wavemetrics.readers import _sqlite

    if not peek.lines or not os.path.isfile(peek.path):
        return False
    first = peek.lines[0]
    if first is LINE_TOO_LONG:  # a first "line" past --max-line-bytes: read the header
        try:
            with open(peek.path, "rb") as file:
                first = file.read(len(_sqlite.SQLITE_MAGIC))
        except OSError:
            return False
    if not _sqlite.is_sqlite_header(first):
        return False
    tables = _sqlite.table_columns(peek.path)
    return tables is not None and all(
        columns <= tables.get(table, frozenset()) for table, columns in wanted.items())


def sniff_goose(peek: Peek) -> bool:
    """Goose's ``sessions.db``: a SQLite file with ``sessions(id, working_dir)`` and
    ``messages(session_id, role, content_json, created_timestamp)``."""
    return _store_has(peek, _GOOSE_TABLES)


def sniff_hermes(peek: Peek) -> bool:
    """Hermes Agent's ``state.db``: a SQLite file with ``sessions(id, source,
    parent_session_id)`` and ``messages(session_id, role, tool_calls, tool_call_id,
    tool_name, timestamp)``."""
    return _store_has(peek, _HERMES_TABLES)


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
    Unmeasurable("gemini-cli", sniff_gemini_cli, GEMINI_CLI),
    Unmeasurable("droid", sniff_droid, DROID),
    Unmeasurable("antigravity", sniff_antigravity, ANTIGRAVITY),
    Unmeasurable("amp", sniff_amp, AMP),
    Unmeasurable("codebuff", sniff_codebuff, CODEBUFF),
    Unmeasurable("grok-build", sniff_grok_build, GROK_BUILD),
    Unmeasurable("goose", sniff_goose, GOOSE),
    Unmeasurable("hermes", sniff_hermes, HERMES),
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
