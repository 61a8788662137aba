"""Minimal valid trace lines for every format, for the bad-input, privacy and fuzz tests.

One :class:`FormatLines` per format name of ``docs/formats.md``. Each builds
JSON Lines where **every line is one accounting item**: ``prelude`` lines
(session headers) are used items, each line of :meth:`FormatLines.call` is one
used item, and a call is paired once read. Times are seconds after
``T0 = 2025-01-01T00:00:00Z``. ``content`` is free text placed where the format
keeps arguments and results (the privacy canary puts its secret there).

A new format gets its row by adding one :class:`FormatLines` to ``BUILDERS``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable
from typing import Any

import attrs

T0_MS = 1_735_689_600_000
TRACE_ID = "5b8efff798038103d269b633813fc60c"


def iso(seconds: float) -> str:
    """``T0 + seconds`` as ISO-8601 with ``Z`` and milliseconds."""
    millis = T0_MS + round(seconds * 1000)
    whole, ms = divmod(millis - T0_MS, 1000)
    return f"2025-01-01T{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}.{ms:03d}Z"


def ns(seconds: float) -> int:
    """``T0 + seconds`` in integer ns."""
    return (T0_MS + round(seconds * 1000)) * 10**6


def dump(value: Any) -> bytes:
    """One compact JSON line with its newline."""
    return json.dumps(value, separators=(",", ":")).encode() + b"\n"


def raw_time(line: bytes, placeholder: str, literal: str) -> bytes:
    """Replace the JSON string ``placeholder`` in ``line`` by the raw JSON ``literal``."""
    quoted = json.dumps(placeholder).encode()
    assert line.count(quoted) == 1, line
    return line.replace(quoted, literal.encode())


def duplicate_top_keys(line: bytes) -> bytes:
    """The same object with every top-level key first given a decoy value (last one wins)."""
    record = json.loads(line)
    decoys = b"".join(json.dumps(key).encode() + b':"decoy",' for key in record)
    return b"{" + decoys + line.lstrip()[1:]


def _span_id(call_id: str) -> str:
    return hashlib.sha256(call_id.encode()).hexdigest()[:16]


_PLACEHOLDER = "@@TIME@@"


@attrs.frozen
class FormatLines:
    """How to write a small valid trace of one format (see the module docstring).

    ``time_literals``: raw JSON for a call's start time, by kind (``number``,
    ``string``, ``null``, ``far_future``, ``before_1970``); ``valid_times``: the
    kinds this format accepts. ``unknown``: a record of a type the reader does
    not know and the key it is ignored under; ``unknown_again``: a second such
    record, where writing the same one twice would be a duplicate (an Inspect
    sample), else ``None``.
    """

    name: str
    prelude: tuple[bytes, ...]
    _call: Callable[[str, float, float, str], list[bytes]]
    _start_line: Callable[[str, str], bytes]
    time_literals: dict[str, str]
    valid_times: frozenset[str]
    unknown: tuple[bytes, str]
    chatter: Callable[[str], list[bytes]]
    unknown_again: bytes | None = None
    #: Notes of checks on the whole stream (an envelope's order, a missing terminal
    #: event) that depend on how a test assembles the lines; the format's own tests
    #: check them exactly, the battery leaves them out.
    stream_notes: frozenset[str] = frozenset()

    def call(self, call_id: str, start: float, end: float, content: str = "ls -la") -> list[bytes]:
        """Lines of one complete call (one item each)."""
        return self._call(call_id, start, end, content)

    def start_with_time(self, call_id: str, literal: str) -> bytes:
        """One line: a call that starts at the raw JSON time ``literal`` and has no end."""
        return raw_time(self._start_line(call_id, _PLACEHOLDER), _PLACEHOLDER, literal)


# events ---------------------------------------------------------------------

def _events_call(call_id: str, start: float, end: float, content: str) -> list[bytes]:
    return [
        dump({"type": "tool_execution_start", "toolCallId": call_id, "toolName": "bash",
              "args": {"command": content}, "timestamp": T0_MS + round(start * 1000)}),
        dump({"type": "tool_execution_end", "toolCallId": call_id, "toolName": "bash",
              "result": {"output": content}, "isError": False, "timestamp": iso(end)}),
    ]


def _events_start(call_id: str, time: str) -> bytes:
    return dump({"type": "tool_execution_start", "toolCallId": call_id, "toolName": "bash",
                 "args": {}, "timestamp": time})


def _events_chatter(text: str) -> list[bytes]:
    return [
        dump({"type": "message_update", "message": {"role": "user", "content": text}}),
        dump({"type": "turn_end", "timestamp": T0_MS + 1, "message": text,
              "toolResults": [text]}),
        dump({"type": "tool_execution_update", "toolCallId": "u1", "toolName": "bash",
              "partialResult": text}),
    ]


EVENTS = FormatLines(
    "events", (), _events_call, _events_start,
    {"number": str(T0_MS + 60_000), "string": json.dumps(iso(60)), "null": "null",
     "far_future": json.dumps("9999-12-31T23:59:59.999Z"),
     "before_1970": json.dumps("1969-12-31T23:59:59Z")},
    frozenset(("number", "string", "far_future")),
    (dump({"type": "agent_start_v2", "timestamp": T0_MS}), "agent_start_v2"),
    _events_chatter,
)


# claude-code ----------------------------------------------------------------

def _claude_start(call_id: str, time: str, content: str = "ls", tool: str = "Bash") -> bytes:
    return dump({"type": "assistant", "uuid": f"u-{call_id}-s", "sessionId": "s1",
                 "timestamp": time, "message": {"role": "assistant", "content": [
                     {"type": "text", "text": content},
                     {"type": "tool_use", "id": call_id, "name": tool,
                      "input": {"command": content}}]}})


def _claude_call(
    call_id: str, start: float, end: float, content: str, tool: str = "Bash"
) -> list[bytes]:
    return [
        _claude_start(call_id, iso(start), content, tool),
        dump({"type": "user", "uuid": f"u-{call_id}-e", "sessionId": "s1", "timestamp": iso(end),
              "toolUseResult": {"stdout": content},
              "message": {"role": "user", "content": [
                  {"type": "tool_result", "tool_use_id": call_id, "content": content,
                   "is_error": False}]}}),
    ]


def _claude_chatter(text: str) -> list[bytes]:
    return [
        dump({"type": "user", "uuid": "u-prompt", "sessionId": "s1", "timestamp": iso(0),
              "message": {"role": "user", "content": text}}),
        dump({"type": "summary", "summary": text, "leafUuid": "u-prompt"}),
        dump({"type": "file-history-snapshot", "messageId": "m1",
              "snapshot": {"trackedFileBackups": {"a.py": {"content": text}}}}),
        dump({"type": "system", "subtype": "turn_duration", "uuid": "u-turn", "sessionId": "s1",
              "durationMs": 1000, "content": text}),
    ]


def claude_call(call_id: str, start: float, end: float, *, tool: str = "Bash") -> bytes:
    """One complete call of session ``s1`` as :data:`CLAUDE` writes it (its ``tool_use``
    line, uuid ``u-<call_id>-s``, and ``tool_result`` line, ``u-<call_id>-e``), from
    ``start`` to ``end`` seconds after ``T0``, the tool named ``tool``: the bytes the
    live-state tests (test_live) append to a transcript."""
    return b"".join(_claude_call(call_id, start, end, "ls -la", tool))


CLAUDE = FormatLines(
    "claude-code", (), _claude_call, _claude_start,
    {"number": str(T0_MS + 60_000), "string": json.dumps(iso(60)), "null": "null",
     "far_future": json.dumps("9999-12-31T23:59:59.999Z"),
     "before_1970": json.dumps("1969-12-31T23:59:59Z")},
    frozenset(("string", "far_future")),
    (dump({"type": "brand-new-kind", "timestamp": iso(0)}), "brand-new-kind"),
    _claude_chatter,
)


# codex ----------------------------------------------------------------------

def _codex_start(call_id: str, time: str, content: str = "ls") -> bytes:
    return dump({"timestamp": time, "type": "response_item", "payload": {
        "type": "function_call", "name": "shell", "call_id": call_id,
        "arguments": json.dumps({"command": [content]})}})


def _codex_call(call_id: str, start: float, end: float, content: str) -> list[bytes]:
    return [
        _codex_start(call_id, iso(start), content),
        dump({"timestamp": iso(end), "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": call_id,
            "output": json.dumps({"output": content, "metadata": {"exit_code": 0}})}}),
    ]


def _codex_chatter(text: str) -> list[bytes]:
    return [
        dump({"timestamp": iso(0), "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}}),
        dump({"timestamp": iso(0), "type": "event_msg", "payload": {
            "type": "agent_message", "message": text}}),
        dump({"timestamp": iso(0), "type": "turn_context", "payload": {
            "cwd": "/w", "user_instructions": text}}),
    ]


CODEX = FormatLines(
    "codex",
    (dump({"timestamp": iso(0), "type": "session_meta", "payload": {
        "id": "0199a213-81c0-7800-8aa1-bbab2a035a53", "timestamp": iso(0), "cwd": "/w",
        "instructions": "be brief"}}),),
    _codex_call, _codex_start,
    {"number": str(T0_MS + 60_000), "string": json.dumps(iso(60)), "null": "null",
     "far_future": json.dumps("9999-12-31T23:59:59.999Z"),
     "before_1970": json.dumps("1969-12-31T23:59:59Z")},
    frozenset(("string", "far_future")),
    (dump({"timestamp": iso(0), "type": "brand_new_kind", "payload": {}}), "brand_new_kind"),
    _codex_chatter,
)


# codex-tui ------------------------------------------------------------------

def _tui(time: str, msg: dict[str, Any]) -> bytes:
    return dump({"ts": time, "dir": "to_tui", "kind": "codex_event",
                 "payload": {"id": "1", "msg": msg}})


def _tui_start(call_id: str, time: str, content: str = "ls") -> bytes:
    return _tui(time, {"type": "exec_command_begin", "call_id": call_id, "command": [content],
                       "cwd": "/w"})


def _tui_call(call_id: str, start: float, end: float, content: str) -> list[bytes]:
    return [
        _tui_start(call_id, iso(start), content),
        _tui(iso(end), {"type": "exec_command_end", "call_id": call_id, "stdout": content,
                        "stderr": "", "exit_code": 0}),
    ]


def _tui_chatter(text: str) -> list[bytes]:
    return [
        _tui(iso(0), {"type": "agent_message", "message": text}),
        dump({"ts": iso(0), "dir": "from_tui", "kind": "op", "payload": {
            "type": "user_input", "items": [{"type": "text", "text": text}]}}),
        dump({"ts": iso(0), "dir": "to_tui", "kind": "insert_history", "lines": [text]}),
    ]


CODEX_TUI = FormatLines(
    "codex-tui",
    (_tui(iso(0), {"type": "session_configured", "session_id": "s1", "model": "m"}),),
    _tui_call, _tui_start,
    {"number": str(T0_MS + 60_000), "string": json.dumps(iso(60)), "null": "null",
     "far_future": json.dumps("9999-12-31T23:59:59.999Z"),
     "before_1970": json.dumps("1969-12-31T23:59:59Z")},
    frozenset(("string", "far_future")),
    (dump({"ts": iso(0), "dir": "meta", "kind": "brand_new_kind"}), "brand_new_kind"),
    _tui_chatter,
)


# pi -------------------------------------------------------------------------

def _pi_start(call_id: str, time: str, content: str = "ls") -> bytes:
    return dump({"type": "message", "timestamp": time, "message": {
        "role": "assistant", "content": [
            {"type": "text", "text": content},
            {"type": "toolCall", "id": call_id, "name": "bash", "arguments": {"command": content}},
        ]}})


def _pi_call(call_id: str, start: float, end: float, content: str) -> list[bytes]:
    return [
        _pi_start(call_id, iso(start), content),
        dump({"type": "message", "timestamp": iso(end), "message": {
            "role": "toolResult", "toolCallId": call_id, "toolName": "bash",
            "content": [{"type": "text", "text": content}], "isError": False}}),
    ]


def _pi_chatter(text: str) -> list[bytes]:
    return [
        dump({"type": "message", "timestamp": iso(0), "message": {
            "role": "user", "content": [{"type": "text", "text": text}]}}),
        dump({"type": "compaction", "timestamp": iso(0), "summary": text}),
    ]


PI = FormatLines(
    "pi",
    (dump({"type": "session", "id": "s1", "timestamp": iso(0), "cwd": "/w"}),),
    _pi_call, _pi_start,
    {"number": str(T0_MS + 60_000), "string": json.dumps(iso(60)), "null": "null",
     "far_future": json.dumps("9999-12-31T23:59:59.999Z"),
     "before_1970": json.dumps("1969-12-31T23:59:59Z")},
    frozenset(("string", "far_future")),
    (dump({"type": "brand_new_kind", "timestamp": iso(0)}), "brand_new_kind"),
    _pi_chatter,
)


# otlp -----------------------------------------------------------------------

def _otlp_attributes(values: dict[str, str]) -> list[dict[str, Any]]:
    return [{"key": key, "value": {"stringValue": value}} for key, value in values.items()]


def _otlp_span(call_id: str, start: Any, end: Any, content: str) -> bytes:
    span: dict[str, Any] = {
        "traceId": TRACE_ID, "spanId": _span_id(call_id), "name": "execute_tool bash",
        "kind": 1, "startTimeUnixNano": start,
        "attributes": _otlp_attributes({
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.name": "bash", "gen_ai.conversation.id": "s1",
            "gen_ai.tool.call.arguments": content, "gen_ai.tool.call.result": content,
        }),
    }
    if end is not None:
        span["endTimeUnixNano"] = end
    return dump({"resourceSpans": [{"resource": {"attributes": []},
                                    "scopeSpans": [{"scope": {"name": "t"}, "spans": [span]}]}]})


def _otlp_call(call_id: str, start: float, end: float, content: str) -> list[bytes]:
    return [_otlp_span(call_id, str(ns(start)), str(ns(end)), content)]


def _otlp_chatter(text: str) -> list[bytes]:
    chat = {"traceId": TRACE_ID, "spanId": "00000000000000aa", "name": "chat",
            "startTimeUnixNano": str(ns(0)), "endTimeUnixNano": str(ns(1)),
            "attributes": _otlp_attributes({"gen_ai.operation.name": "chat",
                                            "gen_ai.prompt": text, "gen_ai.completion": text}),
            "events": [{"name": "gen_ai.user.message", "attributes": _otlp_attributes(
                {"content": text})}]}
    return [
        dump({"resourceSpans": [{"scopeSpans": [{"spans": [chat]}]}]}),
        dump({"resourceLogs": [{"scopeLogs": [{"logRecords": [{"body": {"stringValue": text}}]}]}]}),
    ]


OTLP = FormatLines(
    "otlp", (), _otlp_call,
    lambda call_id, time: _otlp_span(call_id, time, None, "ls"),
    {"number": str(ns(60)), "string": json.dumps(str(ns(60))), "null": "null",
     "far_future": json.dumps(str(2**64 - 1)), "before_1970": json.dumps("-5")},
    frozenset(("number", "string", "far_future")),
    (dump({"brandNewSignal": []}), "unknown_record"),
    _otlp_chatter,
)


# otel-spans -----------------------------------------------------------------

def _otel_span(call_id: str, start: Any, end: Any, content: str) -> bytes:
    return dump({
        "name": "execute_tool bash",
        "context": {"trace_id": "0x" + TRACE_ID, "span_id": "0x" + _span_id(call_id),
                    "trace_state": "[]"},
        "kind": "SpanKind.INTERNAL", "parent_id": None, "start_time": start, "end_time": end,
        "status": {"status_code": "OK"},
        "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": call_id,
                       "gen_ai.tool.name": "bash", "gen_ai.conversation.id": "s1",
                       "gen_ai.tool.args": content, "gen_ai.output": content},
        "events": [], "links": [], "resource": {"attributes": {"service.name": "agent"}},
    })


def _otel_call(call_id: str, start: float, end: float, content: str) -> list[bytes]:
    return [_otel_span(call_id, ns(start), ns(end), content)]


def _otel_chatter(text: str) -> list[bytes]:
    return [
        dump({"name": "call_llm", "context": {"trace_id": "0x" + TRACE_ID,
                                              "span_id": "0x00000000000000aa"},
              "parent_id": None, "start_time": ns(0), "end_time": ns(1),
              "attributes": {"gen_ai.operation.name": "chat", "gen_ai.input.messages": text,
                             "gen_ai.output": text}}),
        dump({"final_output": text, "spans": []}),
    ]


OTEL_SPANS = FormatLines(
    "otel-spans", (), _otel_call,
    lambda call_id, time: _otel_span(call_id, time, None, "ls"),
    {"number": str(ns(60)), "string": json.dumps(str(ns(60))), "null": "null",
     "far_future": str(2**64 - 1), "before_1970": "-5"},
    frozenset(("number", "string", "far_future")),
    (dump({"brand_new": 1}), "unknown_record"),
    _otel_chatter,
)


# inspect --------------------------------------------------------------------

def _inspect_log(events: list[dict[str, Any]], sample_id: str = "1", **sample: Any) -> bytes:
    # Each line is its own sample (its own id): one sample written twice in a log is a
    # duplicate and counts once (docs/formats.md, inspect).
    return dump({"version": 2, "status": "success",
                 "eval": {"eval_id": "ev1", "task": "t", "model": "m"},
                 "samples": [{"id": sample_id, "epoch": 1, "events": events, **sample}]})


def _inspect_tool(call_id: str, start: str, end: str | None, content: str) -> dict[str, Any]:
    return {"event": "tool", "type": "function", "id": call_id, "function": "bash",
            "arguments": {"cmd": content}, "result": content, "timestamp": start,
            "completed": end}


def _inspect_call(call_id: str, start: float, end: float, content: str) -> list[bytes]:
    return [_inspect_log([_inspect_tool(call_id, iso(start), iso(end), content)], call_id)]


def _inspect_chatter(text: str) -> list[bytes]:
    return [
        _inspect_log([{"event": "model", "timestamp": iso(0), "input": [{"content": text}],
                       "output": {"completion": text}}],
                     "chatter-" + hashlib.sha256(text.encode()).hexdigest()[:8],
                     input=text, target=text, messages=[{"role": "user", "content": text}]),
    ]


INSPECT = FormatLines(
    "inspect", (), _inspect_call,
    lambda call_id, time: _inspect_log([_inspect_tool(call_id, time, None, "ls")], call_id),
    {"number": str(T0_MS + 60_000), "string": json.dumps(iso(60)), "null": "null",
     "far_future": json.dumps("9999-12-31T23:59:59.999Z"),
     "before_1970": json.dumps("1969-12-31T23:59:59Z")},
    frozenset(("string", "far_future")),
    (_inspect_log([{"event": "brand_new_kind", "timestamp": iso(0)}], "new-kind"),
     "brand_new_kind"),
    _inspect_chatter,
    _inspect_log([{"event": "brand_new_kind", "timestamp": iso(0)}], "new-kind-2"),
)


# mcode ----------------------------------------------------------------------

# Every mcode line carries a ``sequence``: lines get increasing numbers in the order
# they are built, so a file of them in that order has no repeat (gaps are notes).
_MCODE_SEQUENCE = itertools.count(2)


def _mcode_line(kind: str, time: Any, sequence: int | None = None, **fields: Any) -> bytes:
    line = {"schemaVersion": 1, "sequence": next(_MCODE_SEQUENCE) if sequence is None
            else sequence, "timestampMs": time, "runId": "exec_t1", "sessionId": "mvs_1",
            "turnId": "t1", "type": kind, **fields}
    return dump(line)


def _mcode_status(call_id: str, time: Any, status: int, content: str) -> bytes:
    return _mcode_line("item.updated", time, item={
        "id": call_id, "type": "tool_call", "toolCall": {
            "id": call_id, "name": "bash", "status": status, "input": {"command": content},
            **({"output": {"text": content}} if status == 2 else {})}})


def _mcode_call(call_id: str, start: float, end: float, content: str) -> list[bytes]:
    return [_mcode_status(call_id, T0_MS + round(start * 1000), 1, content),
            _mcode_status(call_id, T0_MS + round(end * 1000), 2, content)]


def _mcode_chatter(text: str) -> list[bytes]:
    return [
        _mcode_line("item.updated", T0_MS, item={
            "id": "m1:message", "type": "agent_message", "contentDelta": text}),
        _mcode_line("item.completed", T0_MS, item={
            "id": "m1:reasoning", "type": "reasoning", "content": text}),
        _mcode_line("turn.failed", T0_MS, status="failed", error={"message": text},
                    durationMs=1),
    ]


MCODE = FormatLines(
    "mcode",
    (_mcode_line("turn.started", T0_MS, sequence=1),),
    _mcode_call, lambda call_id, time: _mcode_status(call_id, time, 1, "ls"),
    {"number": str(T0_MS + 60_000), "string": json.dumps(iso(60)), "null": "null",
     "far_future": str(253_402_300_799_999), "before_1970": "-1"},
    frozenset(("number", "far_future")),
    (_mcode_line("brand.new_kind", T0_MS, sequence=10**9), "brand.new_kind"),
    _mcode_chatter,
    _mcode_line("brand.new_kind", T0_MS, sequence=10**9 + 1),
    frozenset(("sequence_gap", "truncated")),
)


# copilot --------------------------------------------------------------------

def _copilot_event(event_id: str, kind: str, time: Any, data: dict[str, Any]) -> bytes:
    return dump({"id": event_id, "parentId": "e0", "timestamp": time, "type": kind,
                 "data": data})


def _copilot_start(call_id: str, time: str, content: str = "ls") -> bytes:
    return _copilot_event(f"e-{call_id}-s", "tool.execution_start", time, {
        "toolCallId": call_id, "toolName": "bash", "arguments": {"command": content},
        "turnId": "0"})


def _copilot_call(call_id: str, start: float, end: float, content: str) -> list[bytes]:
    return [
        _copilot_start(call_id, iso(start), content),
        _copilot_event(f"e-{call_id}-e", "tool.execution_complete", iso(end), {
            "toolCallId": call_id, "success": True,
            "result": {"content": content, "detailedContent": content}}),
    ]


def _copilot_chatter(text: str) -> list[bytes]:
    return [
        _copilot_event("e-u", "user.message", iso(0), {"content": text}),
        _copilot_event("e-a", "assistant.message", iso(0), {
            "messageId": "m1", "content": text, "reasoningText": text,
            "toolRequests": [{"toolCallId": "x", "name": "bash", "arguments": {"c": text}}]}),
        _copilot_event("e-p", "tool.execution_partial_result", iso(0), {
            "toolCallId": "x", "partialOutput": text}),
    ]


COPILOT = FormatLines(
    "copilot",
    (dump({"id": "e0", "parentId": None, "timestamp": iso(0), "type": "session.start",
           "data": {"sessionId": "s1", "version": 1, "producer": "copilot-agent",
                    "copilotVersion": "1.0.0", "startTime": iso(0),
                    "context": {"cwd": "/w"}}}),),
    _copilot_call, _copilot_start,
    {"number": str(T0_MS + 60_000), "string": json.dumps(iso(60)), "null": "null",
     "far_future": json.dumps("9999-12-31T23:59:59.999Z"),
     "before_1970": json.dumps("1969-12-31T23:59:59Z")},
    frozenset(("string", "far_future")),
    (_copilot_event("e-n", "brand.new_kind", iso(0), {}), "brand.new_kind"),
    _copilot_chatter,
)


# kimi -----------------------------------------------------------------------

T0_S = T0_MS // 1000


def _kimi(time: Any, kind: str, payload: dict[str, Any]) -> bytes:
    return dump({"timestamp": time, "message": {"type": kind, "payload": payload}})


def _kimi_start(call_id: str, time: Any, content: str = "ls") -> bytes:
    return _kimi(time, "ToolCall", {"type": "function", "id": call_id, "function": {
        "name": "Shell", "arguments": json.dumps({"command": content})}})


def _kimi_call(call_id: str, start: float, end: float, content: str) -> list[bytes]:
    return [
        _kimi_start(call_id, T0_S + start, content),
        _kimi(T0_S + end, "ToolResult", {"tool_call_id": call_id, "return_value": {
            "is_error": False, "output": content, "message": content, "display": []}}),
    ]


def _kimi_chatter(text: str) -> list[bytes]:
    return [
        _kimi(T0_S, "TurnBegin", {"user_input": text}),
        _kimi(T0_S, "TextPart", {"type": "text", "text": text}),
        _kimi(T0_S, "SubagentEvent", {"parent_tool_call_id": "x", "agent_id": "a1",
                                      "event": {"type": "TextPart", "payload": {"text": text}}}),
    ]


KIMI = FormatLines(
    "kimi",
    (dump({"type": "metadata", "protocol_version": "1.4"}),),
    _kimi_call, _kimi_start,
    {"number": str(T0_S + 60), "string": json.dumps(iso(60)), "null": "null",
     "far_future": "253402300799.999", "before_1970": "-1"},
    frozenset(("number", "far_future")),
    (_kimi(T0_S, "BrandNewKind", {}), "BrandNewKind"),
    _kimi_chatter,
)

#: Every format with a builder, by its ``--input-format`` name.
# qwen -----------------------------------------------------------------------

def _qwen_life(call_id: str, phase: str, started: Any, ended: Any = None,
               content: str = "ls") -> bytes:
    event: dict[str, Any] = {"event.name": "tool_lifecycle", "v": 1, "kind": "tool",
                             "sessionId": "s1", "executionId": content, "callId": call_id,
                             "toolName": "run_shell_command", "phase": phase,
                             "startedAt": started}
    if phase == "ended":
        event.update(endedAt=ended, outcome="success")
    return dump({"uuid": f"u-{call_id}-{phase}", "parentUuid": None, "sessionId": "s1",
                 "timestamp": iso(0), "type": "system", "subtype": "ui_telemetry",
                 "systemPayload": {"uiEvent": event}})


def _qwen_call(call_id: str, start: float, end: float, content: str) -> list[bytes]:
    started = T0_MS + round(start * 1000)
    return [_qwen_life(call_id, "started", started, content=content),
            _qwen_life(call_id, "ended", started, T0_MS + round(end * 1000), content)]


def _qwen_chatter(text: str) -> list[bytes]:
    return [
        dump({"uuid": "c1", "parentUuid": None, "sessionId": "s1", "timestamp": iso(0),
              "type": "user", "message": {"role": "user", "parts": [{"text": text}]}}),
        dump({"uuid": "c2", "parentUuid": "c1", "sessionId": "s1", "timestamp": iso(0),
              "type": "assistant", "message": {"role": "model", "parts": [{"text": text}]}}),
    ]


QWEN = FormatLines(
    "qwen", (), _qwen_call,
    lambda call_id, time: _qwen_life(call_id, "started", time),
    {"number": str(T0_MS + 60_000), "string": json.dumps(str(T0_MS + 60_000)),
     "null": "null", "far_future": "253402300799999", "before_1970": "-5"},
    frozenset(("number", "far_future")),
    (dump({"uuid": "n1", "sessionId": "s1", "type": "brand_new_kind", "timestamp": iso(0)}),
     "brand_new_kind"),
    _qwen_chatter,
)


#: Every format with a builder, by its ``--input-format`` name.
BUILDERS: dict[str, FormatLines] = {
    builder.name: builder
    for builder in (EVENTS, CLAUDE, CODEX, CODEX_TUI, PI, OTLP, OTEL_SPANS, INSPECT, MCODE,
                    COPILOT, KIMI, QWEN)
}


# --- SQLite stores (read per database, not per line: their battery is in their tests) ---

#: The opencode store's tables as opencode's schema declares them (``session.sql.ts``).
OPENCODE_SCHEMA = """
CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT, title TEXT,
                      time_created INTEGER, time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER,
                      time_updated INTEGER, data TEXT);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT,
                   time_created INTEGER, time_updated INTEGER, data TEXT);
"""


def opencode_tool(call_id: str, tool: str, status: str, start: float | None = None,
                  end: float | None = None) -> dict[str, Any]:
    """An opencode tool part's ``data`` (times in seconds after :data:`T0_MS`)."""
    times: dict[str, Any] = {}
    if start is not None:
        times["start"] = T0_MS + round(start * 1000)
    if end is not None:
        times["end"] = T0_MS + round(end * 1000)
    state: dict[str, Any] = {"status": status, "input": {"command": "ls -la"}}
    if times:
        state["time"] = times
    if status == "completed":
        state.update(output="secret output", title="ls", metadata={})
    return {"type": "tool", "callID": call_id, "tool": tool, "state": state}


def opencode_store(path: str, sessions: list[tuple[str, str | None]],
                   parts: list[tuple[str, str, str, Any]], *, wal: bool = False) -> None:
    """Write an opencode-layout store at ``path``: ``sessions`` as ``(id, parent_id)``,
    ``parts`` as ``(part id, message id, session id, data)``; ``data`` a dict is
    written as JSON, anything else as it is (bad JSON, a blob, NULL)."""
    import sqlite3

    connection = sqlite3.connect(path)
    try:
        if wal:
            connection.execute("PRAGMA journal_mode=WAL")
        connection.executescript(OPENCODE_SCHEMA)
        connection.executemany(
            "INSERT INTO session VALUES (?, ?, '/work', 'title', 0, 0)", sessions)
        connection.executemany(
            "INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)",
            [(pid, mid, sid, json.dumps(data) if isinstance(data, dict) else data)
             for pid, mid, sid, data in parts])
        connection.commit()
    finally:
        connection.close()
