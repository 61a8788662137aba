"""Deterministic trace generators for the benchmarks.

``events``: the host event stream, one lane, batches of 1-5 parallel calls with
arguments and results of realistic size (which the readers must skip).
``events-sessions``: the same calls spread over 2,622 sessions (``sessionId`` on every
record), their records interleaved in time order, as one host's stream of many
sessions is.
``claude-code``: a Claude Code-shaped transcript: assistant lines with
``tool_use`` blocks (one block per line, as Claude Code >= 1.0 streams them)
and user lines with ``tool_result`` text, plus the envelope fields.
``copilot``: a GitHub Copilot CLI ``events.jsonl``: per batch an ``assistant.message``
requesting its calls (arguments included), their ``tool.execution_start`` and
``tool.execution_complete`` events (results of realistic size), a user message now and
then; one batch in four is a sub-agent's (``agentId``).
``kimi``: a Kimi CLI ``wire.jsonl``: the metadata header, then per batch a
``StepBegin``, the model's text, the ``ToolCall`` records (arguments as JSON text) and
their ``ToolResult`` records (outputs of realistic size), float Unix seconds.
``openclaw``: an OpenClaw store (SQLite, ``transcript_events``), each row one pi record:
a session's header, then per batch an assistant message with text and ``toolCall``
blocks (arguments included) and a ``toolResult`` message per call (results of realistic
size), a user message now and then; one batch in four is a sub-agent's, whose rows are a
session of their own (seven sub-agents). Times from 2026-10-28, after pi ran a message's
calls in parallel. The output file is a database, not lines.
``otlp``: OTLP/JSON as the collector's file exporter writes it, one ``resourceSpans``
batch per line: per model turn a ``chat`` span and its ``execute_tool`` spans (arguments
and results as attributes of realistic size, ns times as decimal strings), a session of
200 turns under one ``invoke_agent`` span, written last (a parent ends after its children).
``mcode``: MiniMax Code's ``mcode exec --output-format stream-json`` as a runner appends
it, run after run (one run of 20 assistant messages each, eight sessions resumed in
turn): per message its text streamed (``agent_message`` updates), per call the status
snapshots 4, 5, 1 and 2 (arguments, and at the end the output, of realistic size), then
the message's burst of ``item.completed`` lines; ``turn.*`` and ``exec.completed``.

``otel-spans``: one any-agent trace document, ``{"spans": [...], "final_output": ...}``
indented as ``json.dump(..., indent=2)`` writes it: the same turns as ``otlp`` as OTel SDK
span dicts (decimal int ids, ns int times, flat attributes of realistic size), one large
document to read without holding it.

``inspect``: one Inspect AI eval log (``.json``) as ``json.dump(..., indent=2)`` writes it:
``eval`` first, then ``samples`` of 200 model turns each: per turn a ``model`` event (input
and output of realistic size) and its ``tool`` events (arguments and result, ISO times
with an offset, each in a ``span_begin``/``span_end`` pair), every tenth turn's calls made
by a sub-agent in an agent span; one large document to read without holding it.
``inspect-eval``: the same samples as a ``.eval`` zip archive (``header.json`` and one
deflated ``samples/<id>_epoch_1.json`` member per sample).

Same arguments, same bytes. Usage:
    python benchmarks/generate.py events 1000000 /tmp/events-1e6.jsonl
    python benchmarks/generate.py events-sessions 1000000 /tmp/events-sessions-1e6.jsonl
    python benchmarks/generate.py claude-code 130000 /tmp/claude-200mb.jsonl
    python benchmarks/generate.py claude-short 1800000 /tmp/claude-short-200mb.jsonl
    python benchmarks/generate.py copilot 170000 /tmp/copilot/s-1/events.jsonl
    python benchmarks/generate.py kimi 190000 /tmp/kimi/s-1/wire.jsonl
    python benchmarks/generate.py openclaw 150000 /tmp/openclaw/openclaw-agent.sqlite
    python benchmarks/generate.py otlp 200000 /tmp/otlp-traces.jsonl
    python benchmarks/generate.py mcode 150000 /tmp/mcode-runs.jsonl
    python benchmarks/generate.py otel-spans 200000 /tmp/otel-trace.json
    python benchmarks/generate.py inspect 150000 /tmp/inspect-log.json
    python benchmarks/generate.py inspect-eval 150000 /tmp/inspect-log.eval
"""

from __future__ import annotations

import heapq
import json
import os
import random
import sqlite3
import sys
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone

_TOOLS = ("read", "grep", "bash", "glob", "edit", "mcp__fs__list", "eval")
_WORDS = ("alpha", "beta", "gamma", "delta", "wave", "span", "lane", "call", "tool", "agent")
_START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _batches(rng: random.Random, calls: int) -> Iterator[list[tuple[str, str, int, int]]]:
    """Batches of (call_id, tool, start_ms, end_ms), times increasing batch by batch."""
    now = _START_MS
    made = 0
    while made < calls:
        size = min(rng.choice((1, 1, 1, 2, 2, 3, 4, 5)), calls - made)
        batch = []
        for i in range(size):
            start = now + i * rng.randint(0, 40)
            end = start + rng.randint(5, 4000)
            batch.append((f"call_{made + i:08d}", rng.choice(_TOOLS), start, end))
        made += size
        now = max(end for *_, end in batch) + rng.randint(200, 8000)
        yield batch


def events_lines(calls: int, seed: int = 6) -> Iterator[str]:
    rng = random.Random(seed)
    for batch in _batches(rng, calls):
        first = min(start for _, _, start, _ in batch)
        yield json.dumps({"type": "turn_start", "timestamp": first - 1})
        for call_id, tool, start, _ in batch:
            yield json.dumps({"type": "tool_execution_start", "toolCallId": call_id,
                              "toolName": tool, "args": {"q": _text(rng, 6)},
                              "timestamp": start})
        for call_id, tool, _, end in sorted(batch, key=lambda c: c[3]):
            yield json.dumps({"type": "tool_execution_end", "toolCallId": call_id,
                              "toolName": tool, "isError": False,
                              "result": _text(rng, 8), "timestamp": end})
        yield json.dumps({"type": "turn_end", "timestamp": max(c[3] for c in batch) + 1})
    yield json.dumps({"type": "session_shutdown"})


#: The sessions of ``events-sessions`` (the count of one host's stream that was measured).
SESSIONS = 2_622


def _session_records(calls: int, session: int, seed: int) -> Iterator[tuple[int, int, str]]:
    """One session's records as ``(timestamp, order, line)``: ``events_lines``' records
    with ``sessionId``, starting at a time of its own within the first day."""
    rng = random.Random(seed * 100_003 + session)
    offset = rng.randint(0, 86_400_000)
    name = f"session-{session:05d}"
    order = 0
    for batch in _batches(rng, calls):
        first = min(start for _, _, start, _ in batch) + offset
        records = [(first - 1, {"type": "turn_start", "sessionId": name, "timestamp": first - 1})]
        for call_id, tool, start, _ in batch:
            records.append((start + offset, {
                "type": "tool_execution_start", "sessionId": name, "toolCallId": call_id,
                "toolName": tool, "args": {"q": _text(rng, 6)}, "timestamp": start + offset}))
        for call_id, tool, _, end in sorted(batch, key=lambda c: c[3]):
            records.append((end + offset, {
                "type": "tool_execution_end", "sessionId": name, "toolCallId": call_id,
                "toolName": tool, "isError": False, "result": _text(rng, 8),
                "timestamp": end + offset}))
        last = max(c[3] for c in batch) + offset + 1
        records.append((last, {"type": "turn_end", "sessionId": name, "timestamp": last}))
        for at, record in sorted(records, key=lambda pair: pair[0]):
            order += 1
            yield at, order, json.dumps(record)


def events_sessions_lines(calls: int, seed: int = 6) -> Iterator[str]:
    """``calls`` calls over :data:`SESSIONS` sessions, records merged in time order."""
    share, extra = divmod(calls, SESSIONS)
    streams = [_session_records(share + (1 if n < extra else 0), n, seed)
               for n in range(SESSIONS)]
    for _, _, line in heapq.merge(*streams):
        yield line


def _iso(ms: int) -> str:
    moment = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def claude_code_lines(calls: int, seed: int = 6) -> Iterator[str]:
    rng = random.Random(seed)
    session = str(uuid.UUID(int=rng.getrandbits(128)))
    parent = None
    for batch in _batches(rng, calls):
        message_id = f"msg_{rng.getrandbits(64):016x}"
        for call_id, tool, start, _ in batch:
            line_uuid = str(uuid.UUID(int=rng.getrandbits(128)))
            yield json.dumps({
                "parentUuid": parent, "isSidechain": False, "userType": "external",
                "cwd": "/work/project", "sessionId": session, "version": "2.1.0",
                "gitBranch": "main", "type": "assistant", "uuid": line_uuid,
                "timestamp": _iso(start), "requestId": f"req_{rng.getrandbits(64):016x}",
                "message": {"id": message_id, "type": "message", "role": "assistant",
                            "model": "claude-x", "content": [{
                                "type": "tool_use", "id": call_id, "name": tool,
                                "input": {"command": _text(rng, 12)}}],
                            "usage": {"input_tokens": rng.randint(1, 9999),
                                      "output_tokens": rng.randint(1, 999)}},
            })
            parent = line_uuid
        for call_id, _, _, end in sorted(batch, key=lambda c: c[3]):
            line_uuid = str(uuid.UUID(int=rng.getrandbits(128)))
            yield json.dumps({
                "parentUuid": parent, "isSidechain": False, "userType": "external",
                "cwd": "/work/project", "sessionId": session, "version": "2.1.0",
                "gitBranch": "main", "type": "user", "uuid": line_uuid,
                "timestamp": _iso(end),
                "message": {"role": "user", "content": [{
                    "type": "tool_result", "tool_use_id": call_id,
                    "content": _text(rng, 40), "is_error": False}]},
                "toolUseResult": {"stdout": _text(rng, 20), "stderr": "", "interrupted": False},
            })
            parent = line_uuid


def claude_short_lines(lines: int, seed: int = 6) -> Iterator[str]:
    """Short Claude Code lines (~110 bytes) with distinct uuids and no tool calls: the
    worst case for exact uuid de-duplication, which must remember every one."""
    rng = random.Random(seed)
    session = str(uuid.UUID(int=rng.getrandbits(128)))
    for index in range(lines):
        yield json.dumps({"type": "user", "uuid": str(uuid.UUID(int=rng.getrandbits(128))),
                          "sessionId": session, "message": {"content": f"m{index}"}},
                         separators=(",", ":"))


def copilot_lines(calls: int, seed: int = 6) -> Iterator[str]:
    rng = random.Random(seed)
    count = 0

    def event(kind: str, ms: int, data: dict[str, object], agent: str | None) -> str:
        nonlocal count
        count += 1
        record: dict[str, object] = {"id": f"ev-{count:09d}", "parentId": f"ev-{count - 1:09d}",
                                     "timestamp": _iso(ms), "type": kind}
        if agent is not None:
            record["agentId"] = agent
        record["data"] = data
        return json.dumps(record)

    yield event("session.start", _START_MS, {
        "sessionId": str(uuid.UUID(int=rng.getrandbits(128))), "version": 1,
        "producer": "copilot-agent", "copilotVersion": "1.0.0", "startTime": _iso(_START_MS),
        "context": {"cwd": "/work/project", "gitRoot": "/work/project"}}, None)
    for index, batch in enumerate(_batches(rng, calls)):
        agent = f"agent-{index % 7}" if rng.random() < 0.25 else None
        first = min(start for _, _, start, _ in batch)
        if rng.random() < 0.2:
            yield event("user.message", first - 2, {"content": _text(rng, 30)}, None)
        yield event("assistant.message", first - 1, {
            "messageId": f"m-{index}", "apiCallId": f"api-{index}", "content": _text(rng, 20),
            "toolRequests": [{"toolCallId": call_id, "name": tool, "type": "function",
                              "arguments": {"command": _text(rng, 12)}}
                             for call_id, tool, _, _ in batch]}, agent)
        for call_id, tool, start, _ in batch:
            yield event("tool.execution_start", start, {
                "toolCallId": call_id, "toolName": tool,
                "arguments": {"command": _text(rng, 12)}}, agent)
        for call_id, _, _, end in sorted(batch, key=lambda c: c[3]):
            result = _text(rng, 40)
            yield event("tool.execution_complete", end, {
                "toolCallId": call_id, "success": True,
                "result": {"content": result, "detailedContent": result}}, agent)


def kimi_lines(calls: int, seed: int = 6) -> Iterator[str]:
    rng = random.Random(seed)

    def record(ms: int, kind: str, payload: dict[str, object]) -> str:
        return json.dumps({"timestamp": ms / 1000 + rng.randint(0, 999) / 1e6,
                           "message": {"type": kind, "payload": payload}})

    yield json.dumps({"type": "metadata", "protocol_version": "1.4"})
    for index, batch in enumerate(_batches(rng, calls)):
        first = min(start for _, _, start, _ in batch)
        yield record(first - 2, "StepBegin", {"n": index + 1})
        yield record(first - 1, "ContentPart", {"type": "text", "text": _text(rng, 20)})
        for call_id, tool, start, _ in batch:
            yield record(start, "ToolCall", {
                "type": "function", "id": call_id, "function": {
                    "name": tool, "arguments": json.dumps({"command": _text(rng, 12)})}})
        for call_id, _, _, end in sorted(batch, key=lambda c: c[3]):
            output = _text(rng, 40)
            yield record(end, "ToolResult", {"tool_call_id": call_id, "return_value": {
                "is_error": False, "output": output, "message": "", "display": []}})


#: 2026-10-28T00:00:00Z: OpenClaw's store exists since 2026.9.2, long after pi v0.58.0.
_OPENCLAW_SHIFT_MS = 300 * 86_400_000


def openclaw_rows(calls: int, seed: int = 6) -> Iterator[tuple[str, int, str]]:
    rng = random.Random(seed)
    seqs: dict[str, int] = {}
    entries = 0

    def row(session: str, ms: int, message: dict[str, object]) -> tuple[str, int, str]:
        nonlocal entries
        entries += 1
        seq = seqs.get(session, 0)
        seqs[session] = seq + 1
        if seq == 0:
            message = {"type": "session", "version": 3, "id": session, "cwd": "/work/project"}
            entries -= 1
            return session, seq, json.dumps({**message, "timestamp": _iso(ms)})
        return session, seq, json.dumps({
            "type": "message", "id": f"{entries:08x}", "parentId": f"{entries - 1:08x}",
            "timestamp": _iso(ms), "message": {**message, "timestamp": ms}})

    for index, batch in enumerate(_batches(rng, calls)):
        session = (f"agent:main:subagent:{index % 7}" if rng.random() < 0.25
                   else "agent:main:main")
        first = min(start for _, _, start, _ in batch) + _OPENCLAW_SHIFT_MS
        if seqs.get(session, 0) == 0:
            yield row(session, first - 3, {})
        if rng.random() < 0.2:
            yield row(session, first - 2, {"role": "user", "content": [
                {"type": "text", "text": _text(rng, 30)}]})
        yield row(session, first - 1, {
            "role": "assistant", "content": [
                {"type": "text", "text": _text(rng, 20)},
                *({"type": "toolCall", "id": call_id, "name": tool,
                   "arguments": {"command": _text(rng, 12)}}
                  for call_id, tool, _, _ in batch)],
            "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": {"input": 1200, "output": 80, "cacheRead": 0, "cacheWrite": 0},
            "stopReason": "toolUse"})
        for call_id, tool, _, end in sorted(batch, key=lambda c: c[3]):
            yield row(session, end + _OPENCLAW_SHIFT_MS, {
                "role": "toolResult", "toolCallId": call_id, "toolName": tool,
                "content": [{"type": "text", "text": _text(rng, 40)}], "isError": False})


def write_openclaw_store(path: str, calls: int) -> None:
    """An OpenClaw store at ``path`` (replaced) holding :func:`openclaw_rows`."""
    if os.path.exists(path):
        os.remove(path)
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER"
                       " NOT NULL, event_json TEXT NOT NULL, created_at INTEGER NOT NULL,"
                       " PRIMARY KEY (session_id, seq))")
    connection.executemany("INSERT INTO transcript_events VALUES (?, ?, ?, 0)",
                           openclaw_rows(calls))
    connection.commit()
    connection.close()


def otlp_lines(calls: int, seed: int = 6) -> Iterator[str]:
    rng = random.Random(seed)

    def attributes(values: dict[str, str]) -> list[dict[str, object]]:
        return [{"key": k, "value": {"stringValue": v}} for k, v in values.items()]

    def span(trace: str, span_id: str, parent: str, name: str, start: int, end: int,
             values: dict[str, str]) -> dict[str, object]:
        return {"traceId": trace, "spanId": span_id, "parentSpanId": parent, "name": name,
                "kind": 1, "startTimeUnixNano": str(start * 1_000_000 + rng.randint(0, 999_999)),
                "endTimeUnixNano": str(end * 1_000_000 + rng.randint(0, 999_999)),
                "attributes": attributes(values), "status": {"code": 1}}

    def line(spans: list[dict[str, object]]) -> str:
        return json.dumps({"resourceSpans": [{
            "resource": {"attributes": attributes({"service.name": "agent",
                                                   "telemetry.sdk.language": "python"})},
            "scopeSpans": [{"scope": {"name": "agent.tracing", "version": "1.0"},
                            "spans": spans}]}]}, separators=(",", ":"))

    session = trace = agent_id = ""
    first_ms = turns = 0
    serial = 0
    for index, batch in enumerate(_batches(rng, calls)):
        if turns == 0:
            session = f"conv-{index:08d}"
            trace = f"{rng.getrandbits(128):032x}"
            agent_id = f"{rng.getrandbits(64):016x}"
            first_ms = min(start for _, _, start, _ in batch) - 5
        first = min(start for _, _, start, _ in batch)
        serial += 1
        spans = [span(trace, f"{serial:016x}", agent_id, "chat model", first - 900, first - 1, {
            "gen_ai.operation.name": "chat", "gen_ai.conversation.id": session,
            "gen_ai.request.model": "model-1", "gen_ai.output.messages": _text(rng, 30)})]
        for call_id, tool, start, end in batch:
            serial += 1
            spans.append(span(trace, f"{serial:016x}", agent_id, f"execute_tool {tool}", start,
                              end, {"gen_ai.operation.name": "execute_tool",
                                    "gen_ai.tool.name": tool, "gen_ai.tool.call.id": call_id,
                                    "gen_ai.tool.call.arguments": json.dumps(
                                        {"command": _text(rng, 12)}),
                                    "gen_ai.tool.call.result": _text(rng, 40)}))
        yield line(spans)
        turns += 1
        if turns == 200:
            last = max(end for *_, end in batch)
            yield line([span(trace, agent_id, "", "invoke_agent agent", first_ms, last + 5, {
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "agent",
                "gen_ai.conversation.id": session})])
            turns = 0


def mcode_lines(calls: int, seed: int = 6) -> Iterator[str]:
    rng = random.Random(seed)
    state = {"sequence": 0, "run": "", "session": "", "turn": ""}

    def line(ms: int, kind: str, **fields: object) -> str:
        state["sequence"] = int(state["sequence"]) + 1
        return json.dumps({"schemaVersion": 1, "sequence": state["sequence"], "timestampMs": ms,
                           "runId": state["run"], "sessionId": state["session"],
                           "turnId": state["turn"], "type": kind, **fields})

    def tool_item(call_id: str, tool: str, status: int, extra: dict[str, object]) -> object:
        return {"id": call_id, "type": "tool_call", "toolCall": {
            "id": call_id, "name": tool, "status": status, **extra}}

    run, last = 0, _START_MS
    for index, batch in enumerate(_batches(rng, calls)):
        first = min(start for _, _, start, _ in batch)
        if index % 20 == 0:
            if index:
                yield line(first - 5, "turn.completed", durationMs=1)
                yield line(first - 5, "exec.completed", result={"status": "success"})
            run += 1
            state.update(sequence=0, run=f"exec_{run:06d}", session=f"mvs_{run % 8}",
                         turn=f"turn_{run:06d}")
            yield line(first - 9, "exec.started")
            yield line(first - 9, "session.resumed" if run > 8 else "session.started")
            yield line(first - 8, "turn.started")
        message = f"m{index}:message"
        for _ in range(3):
            yield line(first - 4, "item.updated", item={
                "id": message, "type": "agent_message", "contentDelta": _text(rng, 8)})
        for call_id, tool, start, _ in batch:
            arguments = {"input": {"command": _text(rng, 12)}}
            yield line(start - 2, "item.started", item=tool_item(call_id, tool, 4, {}))
            yield line(start - 1, "item.updated", item=tool_item(call_id, tool, 5, arguments))
            yield line(start, "item.updated", item=tool_item(call_id, tool, 1, arguments))
        done = {}
        for call_id, tool, _, end in sorted(batch, key=lambda c: c[3]):
            done[call_id] = {"input": {"command": _text(rng, 12)},
                             "output": {"text": _text(rng, 40)}}
            yield line(end, "item.updated", item=tool_item(call_id, tool, 2, done[call_id]))
        last = max(end for *_, end in batch)
        yield line(last, "item.completed", item={
            "id": message, "type": "agent_message", "content": _text(rng, 20)})
        for call_id, tool, _, _ in batch:
            yield line(last, "item.completed", item=tool_item(call_id, tool, 2, done[call_id]))
    yield line(last + 5, "turn.completed", durationMs=1)
    yield line(last + 5, "exec.completed", result={"status": "success"})


def otel_spans_lines(calls: int, seed: int = 6) -> Iterator[str]:
    rng = random.Random(seed)

    def span(trace: int, span_id: int, parent: int | None, name: str, start: int, end: int,
             values: dict[str, str]) -> dict[str, object]:
        return {"name": name, "context": {"trace_id": trace, "span_id": span_id,
                                          "trace_state": "[]"},
                "kind": "SpanKind.INTERNAL",
                "parent": None if parent is None else {"trace_id": trace, "span_id": parent},
                "start_time": start * 1_000_000 + rng.randint(0, 999_999),
                "end_time": end * 1_000_000 + rng.randint(0, 999_999),
                "status": {"status_code": "OK", "description": None}, "attributes": values,
                "events": [], "links": [],
                "resource": {"attributes": {"service.name": "agent",
                                            "telemetry.sdk.language": "python"},
                             "schema_url": ""}}

    def indented(value: dict[str, object]) -> str:
        return "\n".join("    " + line for line in json.dumps(value, indent=2).split("\n"))

    yield "{"
    yield '  "spans": ['
    session = ""
    trace = agent_id = first_ms = turns = 0
    serial = 0
    first_span = True
    for index, batch in enumerate(_batches(rng, calls)):
        spans = []
        if turns == 0:
            session = f"conv-{index:08d}"
            trace = rng.getrandbits(128) or 1
            agent_id = rng.getrandbits(63) + 1
            first_ms = min(start for _, _, start, _ in batch) - 5
        first = min(start for _, _, start, _ in batch)
        serial += 1
        spans.append(span(trace, serial, agent_id, "chat model", first - 900, first - 1, {
            "gen_ai.operation.name": "chat", "gen_ai.conversation.id": session,
            "gen_ai.request.model": "model-1", "gen_ai.output.messages": _text(rng, 30)}))
        for call_id, tool, start, end in batch:
            serial += 1
            spans.append(span(trace, serial, agent_id, f"execute_tool {tool}", start, end, {
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                "gen_ai.tool.call.id": call_id,
                "gen_ai.tool.call.arguments": json.dumps({"command": _text(rng, 12)}),
                "gen_ai.tool.call.result": _text(rng, 40)}))
        turns += 1
        if turns == 200:
            last = max(end for *_, end in batch)
            spans.append(span(trace, agent_id, None, "invoke_agent agent", first_ms, last + 5, {
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "agent",
                "gen_ai.conversation.id": session}))
            turns = 0
        for value in spans:
            yield ("" if first_span else "    ,\n") + indented(value)
            first_span = False
    yield "  ],"
    yield '  "final_output": "done"'
    yield "}"


def _inspect_samples(calls: int, seed: int = 6) -> Iterator[dict[str, object]]:
    """The samples of an Inspect eval log, 200 model turns each."""
    rng = random.Random(seed)

    def at(ms: int) -> str:
        return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat()

    events: list[dict[str, object]] = []
    serial = turns = 0
    for batch in _batches(rng, calls):
        first = min(start for _, _, start, _ in batch)
        agent = f"agent-{serial}" if turns % 10 == 9 else None
        if agent is not None:
            events.append({"event": "span_begin", "timestamp": at(first - 950), "id": agent,
                           "type": "agent", "name": "researcher"})
        events.append({"event": "model", "timestamp": at(first - 900), "model": "model-1",
                       "span_id": agent, "input": [{"role": "user", "content": _text(rng, 40)}],
                       "output": {"completion": _text(rng, 30), "usage": {"input_tokens": 900}},
                       "completed": at(first - 1)})
        for call_id, tool, start, end in batch:
            serial += 1
            span = f"span-{serial}"
            events.append({"event": "span_begin", "timestamp": at(start), "id": span,
                           "parent_id": agent, "type": "tool", "name": tool})
            events.append({"event": "tool", "timestamp": at(start), "completed": at(end),
                           "id": call_id, "function": tool, "type": "function",
                           "span_id": span, "arguments": {"command": _text(rng, 12)},
                           "result": _text(rng, 40), "working_time": (end - start) / 1000})
            events.append({"event": "span_end", "timestamp": at(end), "id": span})
        if agent is not None:
            events.append({"event": "span_end", "timestamp": at(first + 1), "id": agent})
        turns += 1
        if turns == 200:
            yield {"id": f"task-{serial}", "epoch": 1, "input": _text(rng, 30),
                   "target": "done", "events": events, "scores": {"match": {"value": "C"}}}
            events, turns = [], 0
    if events:
        yield {"id": f"task-{serial}", "epoch": 1, "input": "", "target": "", "events": events}


_INSPECT_EVAL = {"eval_id": "bench-eval-1", "run_id": "bench-run-1", "task": "bench",
                 "model": "model-1", "created": "2026-01-01T00:00:00+00:00"}


def inspect_lines(calls: int, seed: int = 6) -> Iterator[str]:
    yield "{"
    yield '  "version": 2,'
    yield '  "status": "success",'
    yield '  "eval": ' + json.dumps(_INSPECT_EVAL, indent=2).replace("\n", "\n  ") + ","
    yield '  "samples": ['
    for index, sample in enumerate(_inspect_samples(calls, seed)):
        text = json.dumps(sample, indent=2).replace("\n", "\n    ")
        yield ("    " if index == 0 else "    ,\n    ") + text
    yield "  ]"
    yield "}"


def write_inspect_archive(path: str, calls: int) -> None:
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({"version": 2, "eval": _INSPECT_EVAL}))
        for sample in _inspect_samples(calls):
            archive.writestr(f"samples/{sample['id']}_epoch_1.json", json.dumps(sample))


GENERATORS = {"events": events_lines, "events-sessions": events_sessions_lines,
              "claude-code": claude_code_lines,
              "claude-short": claude_short_lines, "copilot": copilot_lines,
              "kimi": kimi_lines, "otlp": otlp_lines, "mcode": mcode_lines,
              "otel-spans": otel_spans_lines, "inspect": inspect_lines}


def main(argv: list[str]) -> int:
    if len(argv) != 4 or argv[1] not in {*GENERATORS, "openclaw", "inspect-eval"}:
        print(__doc__, file=sys.stderr)
        return 2
    kind, calls, out = argv[1], int(float(argv[2])), argv[3]
    if kind == "openclaw":
        write_openclaw_store(out, calls)
        return 0
    if kind == "inspect-eval":
        write_inspect_archive(out, calls)
        return 0
    with open(out, "w", encoding="utf-8") as handle:
        for line in GENERATORS[kind](calls):
            handle.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
