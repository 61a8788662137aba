"""The ``codex-tui`` reader: Codex TUI session recordings (``docs/formats.md``).

A recording (``CODEX_TUI_RECORD_SESSION=1``) has one line per event the TUI
saw: ``{"ts", "dir", "kind", ...}``. Only ``kind == "codex_event"`` lines
matter: ``payload.msg.type`` ``exec_command_begin``/``exec_command_end`` and
``patch_apply_begin``/``patch_apply_end``, keyed by ``payload.msg.call_id``,
at the line's ``ts`` (ISO-8601). Lanes are ``(session_id, "main")``.

Choices where the spec is silent:

- Sessions: a recording can span several sessions (``/new``); each
  ``session_configured`` with a ``session_id`` makes that session current, and
  later tool events belong to it. Its lane is created (and reported) at once,
  with or without calls. Tool events before any ``session_configured`` go to a
  session named after the file (the UUID ending its name, else the name
  without suffixes).
- Tool names: ``exec_command`` and ``patch_apply`` (the event family).
- The recording is the live event stream as the TUI received it, so every
  begin/end is fed as received, as in the ``events`` reader: the metric core
  counts duplicate starts and orphan ends itself.
- ``measured_turn_duration_ms_total`` is 0 (the spec names no turn source).
- Other ``kind`` values are ignored by kind, other events as
  ``"codex_event.<type>"`` (``mcp_tool_call_*`` included: the spec reads only
  the two families above).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wavemetrics.readers._lines import LineAccount, bad_id, iter_records, usable_id
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._uuids import session_id_from_file_name
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.readers.sources import Source
from wavemetrics.readers.timestamps import iso_to_ms

__all__ = ["CODEX_TUI", "TUI_DIRECTIONS", "read_codex_tui", "sniff_codex_tui"]

FORMAT = "codex-tui"
_TOOL_EVENTS = {
    "exec_command_begin": ("start", "exec_command"),
    "exec_command_end": ("end", "exec_command"),
    "patch_apply_begin": ("start", "patch_apply"),
    "patch_apply_end": ("end", "patch_apply"),
}
#: The ``dir`` values of a recording (used by detection).
TUI_DIRECTIONS = frozenset(("meta", "to_tui", "from_tui"))


def read_codex_tui(lines: Iterable[bytes], *, path: str, sink: ObservationSink) -> LineAccount:
    """Read one TUI recording into ``sink``: one lane per session, in order of appearance.

    ``lines``: raw physical lines. Problems: ``missing_kind``,
    ``invalid_payload`` (a ``codex_event`` without ``payload.msg.type``),
    ``invalid_session_configured`` (no ``session_id``), ``invalid_tool_record``
    (no ``call_id``), ``invalid_timestamp``. Never raises for bad data; returns
    the line account.
    """
    account = LineAccount()
    lanes: dict[str, LaneBuilder] = {}
    current: str | None = None
    for record in iter_records(lines, account):
        kind = record.get("kind")
        if not isinstance(kind, str):
            account.problem("missing_kind")
            continue
        if kind != "codex_event":
            account.ignore(kind)
            continue
        payload = record.get("payload")
        msg: Any = payload.get("msg") if isinstance(payload, dict) else None
        event = msg.get("type") if isinstance(msg, dict) else None
        if not isinstance(event, str):
            account.problem("invalid_payload")
            continue
        if event == "session_configured":
            session_id = usable_id(msg.get("session_id"))
            if bad_id(msg.get("session_id")):  # never a default session (docs/formats.md)
                account.problem("invalid_id")
                continue
            if session_id is None:
                account.problem("invalid_session_configured")
                continue
            current = session_id
            if current not in lanes:
                lanes[current] = LaneBuilder(path, current, "main", sink=sink)
            account.use()
            continue
        tool = _TOOL_EVENTS.get(event)
        if tool is None:
            account.ignore(f"codex_event.{event}")
            continue
        call_id = usable_id(msg.get("call_id"))
        if call_id is None:
            account.problem("invalid_tool_record")
            continue
        stamp = record.get("ts")
        at_ms = iso_to_ms(stamp) if isinstance(stamp, str) else None
        if at_ms is None:
            account.problem("invalid_timestamp")
            continue
        session_id = current if current is not None else session_id_from_file_name(path)
        lane = lanes.get(session_id)
        if lane is None:
            lane = lanes[session_id] = LaneBuilder(path, session_id, "main", sink=sink)
        side, name = tool
        if side == "start":
            lane.start(call_id, name, at_ms)
        else:
            lane.end(call_id, at_ms)
        account.use()
    for lane in lanes.values():
        lane.build()
    return account


def _read_source(source: Source, sink: ObservationSink) -> LineAccount:
    return read_codex_tui(source.lines(), path=source.path, sink=sink)


def sniff_codex_tui(peek: Peek) -> bool:
    """Whether the first lines are recording entries: ``ts``, a string ``kind``
    and a ``dir`` of ``meta``/``to_tui``/``from_tui``."""
    for record in peek.records:
        direction = record.get("dir")
        if (
            isinstance(direction, str)
            and direction in TUI_DIRECTIONS
            and isinstance(record.get("kind"), str)
            and "ts" in record
        ):
            return True
    return False


#: The ``codex-tui`` format (``docs/formats.md``).
CODEX_TUI = FileFormat(FORMAT, sniff_codex_tui, _read_source, timing="execution")
