"""The record types that tell the ``events``, ``claude-code``, ``codex`` and ``pi`` formats apart,
and the log file names whose folders name a Copilot CLI or Kimi CLI session.

Light on purpose (no import at all): the readers (:mod:`wavemetrics.readers.events`,
:mod:`wavemetrics.readers.claude_code`, :mod:`wavemetrics.readers.codex`,
:mod:`wavemetrics.readers.pi`) detect with them, and their registry rows
(:class:`wavemetrics.readers.registry.Native`) hand them to the extension's detection,
which the native command calls before any reader is imported (start-up time). The
``copilot`` and ``kimi`` rows name their sessions with their log names the same way
(:func:`~wavemetrics.inputs._files.named_log_session_id`,
:func:`~wavemetrics.inputs._files.named_log_lane`). Rules: ``docs/formats.md``, "For
every format".
"""

from __future__ import annotations

__all__ = [
    "CLAUDE_ONLY_TYPES",
    "CODEX_ENVELOPE_TYPES",
    "CODEX_TYPES",
    "COPILOT_LOG_NAMES",
    "EVENT_SHUTDOWN",
    "EVENT_TOOL_TYPES",
    "EVENT_TURN_TYPES",
    "EVENT_TYPES",
    "KIMI_LOG_NAMES",
    "PI_HEADER",
    "PI_MESSAGE",
    "PI_TYPES",
]

#: The file name Copilot CLI gives a session's event log (its folder is the session).
COPILOT_LOG_NAMES = ("events.jsonl", "events.jsonl.gz")
#: The file name Kimi CLI gives a wire log (its folder is the session, or a sub-agent).
KIMI_LOG_NAMES = ("wire.jsonl", "wire.jsonl.gz")
#: An ``events`` log's tool records: a call's start and its end.
EVENT_TOOL_TYPES = ("tool_execution_start", "tool_execution_end")
#: An ``events`` log's turn records.
EVENT_TURN_TYPES = ("turn_start", "turn_end")
#: The record that ends an ``events`` session.
EVENT_SHUTDOWN = "session_shutdown"
#: Types that identify the ``events`` format during detection.
EVENT_TYPES = frozenset(
    (*EVENT_TOOL_TYPES, *EVENT_TURN_TYPES, EVENT_SHUTDOWN, "tool_execution_update"))
#: Record types only Claude Code writes (used by detection with ``uuid`` on the rest).
CLAUDE_ONLY_TYPES = frozenset(
    ("summary", "file-history-snapshot", "queue-operation", "last-prompt", "permission-mode",
     "custom-title")
)
#: A Codex rollout's envelope types that carry an object ``payload``.
CODEX_ENVELOPE_TYPES = frozenset(("session_meta", "response_item", "event_msg", "turn_context"))
#: Envelope types that identify the ``codex`` format during detection (with a
#: ``timestamp`` key and an object ``payload``).
CODEX_TYPES = frozenset((*CODEX_ENVELOPE_TYPES, "compacted"))
#: A pi session's header record (with a string ``id`` and a ``timestamp``).
PI_HEADER = "session"
#: A pi message record (its ``message`` an object with a ``role``).
PI_MESSAGE = "message"
#: Types that identify the ``pi`` format during detection.
PI_TYPES = frozenset((PI_HEADER, PI_MESSAGE))
