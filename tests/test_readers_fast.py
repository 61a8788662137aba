"""The msgspec fast path reads exactly what the stdlib path reads."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reader_checks import collect
from wavemetrics.readers import claude_code, events
from wavemetrics.readers._lines import LineAccount, iter_records
from wavemetrics.readers.claude_code import ClaudeFile, read_claude_code
from wavemetrics.readers.events import read_events

# Pieces that the two parsers must treat alike: wrong types, odd values, hostile bytes.
ODD_VALUES = [None, True, 0, -1, 1.5, 1e308, 10**30, "", "x", "\ud800", [], [1], {}, {"a": 1}]
HOSTILE = [
    b'"\xff\xfe"', b'"\\ud800"', b"NaN", b"Infinity", b"1e400", b'"\\q"', b"01",
    b"[" * 1200 + b"]" * 1200, b'"a\x01b"', b"tru",
]


def _event(draw: st.DrawFn) -> bytes:
    record: dict[str, Any] = {
        "type": draw(st.sampled_from(["tool_execution_start", "tool_execution_end", "turn_start",
                                      "turn_end", "session_shutdown", "other"])),
        "toolCallId": draw(st.sampled_from(["a", "b", "c"])),
        "toolName": draw(st.sampled_from(["read", "eval"])),
        "timestamp": draw(st.integers(0, 50)),
        "args": {"q": "text"},
    }
    for key in draw(st.lists(st.sampled_from([*record, "sessionId", "agentId"]),
                             max_size=2)):
        record[key] = draw(st.sampled_from(ODD_VALUES))
    line = json.dumps(record).encode()
    if draw(st.booleans()):
        hostile = draw(st.sampled_from(HOSTILE))
        line = line[:-1] + b', "args2": ' + hostile + b"}"
    return line


def _claude(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["assistant", "user", "system", "summary"]))
    block: Any = (
        {"type": "tool_use", "id": draw(st.sampled_from(["t1", "t2"])), "name": "Read",
         "input": {"x": "text"}}
        if kind == "assistant"
        else {"type": "tool_result", "tool_use_id": draw(st.sampled_from(["t1", "t2"])),
              "content": "out"}
    )
    record: dict[str, Any] = {
        "type": kind, "uuid": f"u{draw(st.integers(0, 5))}", "sessionId": "s",
        "timestamp": f"2025-01-01T00:00:{draw(st.integers(10, 59))}.000Z",
        "message": {"role": kind, "content": [block]},
        "subtype": "turn_duration", "durationMs": draw(st.integers(-5, 50)),
    }
    shape = draw(st.sampled_from(["ok", "ok", "content_str", "block_str", "message_int",
                                  "odd_field"]))
    if shape == "content_str":
        record["message"]["content"] = "plain text"
    elif shape == "block_str":
        record["message"]["content"] = ["text", block]
    elif shape == "message_int":
        record["message"] = 7
    elif shape == "odd_field":
        key = draw(st.sampled_from(["type", "uuid", "agentId", "isSidechain", "timestamp",
                                    "parentUuid", "durationMs"]))
        record[key] = draw(st.sampled_from(ODD_VALUES))
    line = json.dumps(record).encode()
    if draw(st.booleans()):
        line = line[:-1] + b', "toolUseResult": ' + draw(st.sampled_from(HOSTILE)) + b"}"
    return line


@st.composite
def files(draw: st.DrawFn, line: Any) -> list[bytes]:
    body = [line(draw) + b"\n" for _ in range(draw(st.integers(0, 12)))]
    extras = draw(st.lists(st.sampled_from([b"\n", b"   \n", b"[1]\n", b"{bad\n", b"\xff\n"]),
                           max_size=3))
    lines = body + extras
    draw(st.randoms()).shuffle(lines)
    if lines and draw(st.booleans()):
        lines[-1] = lines[-1].rstrip(b"\n")[: max(1, len(lines[-1]) // 2)]  # cut last line
    if lines and draw(st.booleans()):
        lines[0] = b"\xef\xbb\xbf" + lines[0]
    return lines


def _events_both(lines: list[bytes], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    fast = collect(read_events, iter(lines), path="p", default_session_id="s")
    with monkeypatch.context() as patch:
        patch.setattr(events, "_DECODER", None)
        slow = collect(read_events, iter(lines), path="p", default_session_id="s")
    return fast, slow


@settings(max_examples=250, deadline=None)
@given(lines=files(_event))
def test_events_fast_path_equals_stdlib_path(lines: list[bytes]) -> None:
    """Every lane, observation and line count of the events reader is the same with msgspec."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        (fast_lanes, fast_account), (slow_lanes, slow_account) = _events_both(lines, monkeypatch)
    assert fast_lanes == slow_lanes
    assert fast_account == slow_account


@settings(max_examples=250, deadline=None)
@given(lines=files(_claude))
def test_claude_fast_path_equals_stdlib_path(lines: list[bytes]) -> None:
    """Every lane and line count of the claude-code reader is the same with msgspec."""
    fast = collect(read_claude_code, [ClaudeFile("p/s.jsonl", lambda: iter(lines))])
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(claude_code, "_DECODER", None)
        slow = collect(read_claude_code, [ClaudeFile("p/s.jsonl", lambda: iter(lines))])
    assert fast == slow


def test_invalid_utf8_in_a_skipped_field_is_still_a_problem() -> None:
    """msgspec skips undeclared keys unchecked; the line layer still finds bad UTF-8."""
    line = b'{"type": "turn_start", "timestamp": 1, "args": "\xff"}\n'
    account = LineAccount()
    records = list(iter_records([line], account, events._DECODER))
    assert records == []
    assert account.problems == {"invalid_utf8": 1}
