"""The extension's detection (``native/src/detect.rs``) against the registry's.

Files of lines drawn from every format that comes near the ones the extension
detects (``events``, ``qwen``, ``claude-code``, ``codex``, ``codex-tui``, ``pi`` and
Droid's ``session_start``), broken and blank lines, escaped keys and a byte-order
mark, more lines than the 64-line window: whatever the extension names a file is
what the registry names it, and it names every file the registry finds to be of a
format it detects. Both of its passes are held to that: the separate detection
(``detect_many``) and the folded read that detects and reads a folder in one pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.test_native import DIFFERENTIAL
from wavemetrics.readers.dispatch import detect_input
from wavemetrics.readers.registry import NATIVE_ROWS
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")

#: The formats the extension detects (its registry rows hand it their record types).
DETECTED = frozenset(row.name for row in NATIVE_ROWS if row.native and row.native.sniff)

#: Lines near each recogniser's rule, on both sides of it.
LINES = [
    # events
    b'{"type":"turn_end","timestamp":5}',
    b'{"type":"tool_execution_start","toolCallId":"e","toolName":"t","timestamp":1}',
    b'{"type":"turn\\u005fstart"}',
    # claude-code: a type only it writes, or a conversation record with a uuid
    b'{"type":"summary"}',
    b'{"type":"user","uuid":"u1","sessionId":"s"}',
    b'{"type":"assistant","uuid":"u2"}',
    b'{"type":"assistant"}',
    b'{"t\\u0079pe":"last-prompt"}',
    # qwen: it comes before claude-code and codex
    b'{"type":"tool_result","uuid":"u","sessionId":"s"}',
    b'{"type":"user","uuid":"u","sessionId":"s","message":{"parts":[]}}',
    b'{"type":"system","uuid":"u","sessionId":"s","systemPayload":{}}',
    # codex: an envelope type, a timestamp and an object payload
    b'{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}',
    b'{"timestamp":1,"type":"response_item","payload":{"type":"message"}}',
    b'{"timestamp":null,"type":"compacted","payload":{}}',
    b'{"type":"turn_context","payload":{}}',
    b'{"timestamp":"t","type":"event_msg","payload":[1]}',
    b'{"timestamp":"t","type":"event_msg","payload":{},"payload":"x"}',
    b'{"timestamp":"t","type":"session_start","payload":{}}',
    # codex-tui and pi come after codex; Droid opens with session_start
    b'{"ts":"t","dir":"meta","kind":"session_start"}',
    b'{"type":"session","id":"p1","timestamp":"2025-01-01T00:00:00Z"}',
    b'{"type":"message","message":{"role":"assistant"}}',
    b'{"type":"session_start","id":"d"}',
    # no record, or no record of a type
    b"",
    b"   ",
    b"not json",
    b"[1, 2]",
    b'{"type":1}',
    b"{}",
    b'{"type":"user"',
]

_FILES = st.tuples(
    st.booleans(),  # a byte-order mark first
    st.lists(st.sampled_from(LINES), max_size=70),
    st.sampled_from([b"\n", b"\r\n"]),
    st.booleans(),  # a final newline
)


def _bytes(bom: bool, lines: list[bytes], end: bytes, final: bool) -> bytes:
    text = end.join(lines) + (end if final and lines else b"")
    return (b"\xef\xbb\xbf" if bom else b"") + text


def _registry(path: str) -> str | None:
    """What the registry names the file, when the extension detects that format."""
    found = detect_input(path).format
    return found if found in DETECTED else None


@DIFFERENTIAL
@given(file=_FILES)
def test_the_extension_detects_a_file_as_the_registry_does(
    tmp_path_factory: pytest.TempPathFactory, file: tuple[bool, list[bytes], bytes, bool],
) -> None:
    """The separate pass and the folded read name a file what the registry names it, when
    that is a format they detect, and nothing otherwise."""
    path = str(tmp_path_factory.mktemp("detect") / "session.jsonl")
    Path(path).write_bytes(_bytes(*file))
    expected = {path: name} if (name := _registry(path)) is not None else {}
    assert native.detect_natively([path], 1) == expected
    found, _ = native.detect_and_read_natively([path], StreamSettings(engine="native"))
    assert found == expected


def test_the_extension_detects_events_claude_code_codex_and_pi() -> None:
    """The formats this test holds the extension to (the registry rows that hand it
    their record types)."""
    assert {"events", "claude-code", "codex", "pi"} == DETECTED


@pytest.mark.parametrize(("lines", "expected"), [
    # each recogniser alone
    ([LINES[0]], "events"), ([LINES[3]], "claude-code"), ([LINES[11]], "codex"),
    # events win over all; claude-code over codex; qwen leaves the file to the registry
    ([LINES[11], LINES[3], LINES[0]], "events"),
    ([LINES[11], LINES[4]], "claude-code"),
    ([LINES[11], LINES[8]], None),
    # codex-tui and pi come after codex: a rollout with their lines is still codex
    ([LINES[18], LINES[19], LINES[11]], "codex"),
    # pi: a header or a message with a role; codex-tui (tried first) leaves the file to
    # the registry; Droid's first record (session_start) is never pi
    ([LINES[19]], "pi"), ([LINES[24], LINES[20]], "pi"),
    ([LINES[19], LINES[18]], None), ([LINES[21], LINES[19]], None),
    ([LINES[19], LINES[21]], "pi"), ([LINES[19], LINES[3]], "claude-code"),
    # a codex type without its envelope, or a payload that is no object at the end
    ([LINES[14]], None), ([LINES[15]], None), ([LINES[16]], None),
    # the rollout envelope past the 64 lines with content: not seen
    ([LINES[27]] * 64 + [LINES[11]], None),
    ([LINES[22]] * 70 + [LINES[11]], "codex"),
])
def test_each_rule_and_the_registry_order(
    tmp_path: Path, lines: list[bytes], expected: str | None,
) -> None:
    """Chosen files, the answer worked out by hand from the registry's rules and order."""
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert _registry(str(path)) == expected
    assert native.detect_natively([str(path)], 1) == (
        {} if expected is None else {str(path): expected})
