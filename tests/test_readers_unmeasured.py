"""Agents recognised but not measured: each is named and refused with its reason (exit 1).

The fixtures are written here from the documented file shapes of each agent
(docs/formats.md, "Agents recognised but not measured"; no real file of any of them
was available), with a batch of two parallel calls where the format has calls.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from wavemetrics.cli.commands import main
from wavemetrics.inputs._suffixes import TRACE_SUFFIXES
from wavemetrics.readers import unmeasured_agents as agents
from wavemetrics.readers._lines import LINE_TOO_LONG
from wavemetrics.readers._protocol import Peek
from wavemetrics.readers.dispatch import Detection, detect_input
from wavemetrics.readers.registry import TRACE_FORMATS, UNMEASURABLE, unmeasurable_reason

_T = "2026-12-03T10:00"
#: A fixture: the file's text, or a function that writes the file (a SQLite store).
Content = str | Callable[[Path], None]

# Gemini CLI: the metadata line, then a gemini message re-appended when its batch of
# two calls ended (both calls carry the batch's one time, 13.010 s).
GEMINI_CLI = "\n".join(json.dumps(record) for record in [
    {"sessionId": "6f1c2e3a-4b5d-4e6f-8a9b-0c1d2e3f4a5b",
     "projectHash": "9e" * 32, "startTime": f"{_T}:00.000Z",
     "lastUpdated": f"{_T}:13.010Z", "kind": "main"},
    {"id": "m1", "timestamp": f"{_T}:00.500Z", "type": "user", "content": [{"text": "go"}]},
    {"id": "m2", "timestamp": f"{_T}:10.000Z", "type": "gemini", "content": "",
     "model": "gemini-3-pro"},
    {"id": "m2", "timestamp": f"{_T}:10.000Z", "type": "gemini", "content": "",
     "model": "gemini-3-pro", "toolCalls": [
         {"id": "c2", "name": "run_shell_command", "args": {"command": "make"},
          "status": "success", "timestamp": f"{_T}:13.010Z"},
         {"id": "c3", "name": "grep", "args": {"pattern": "x"},
          "status": "success", "timestamp": f"{_T}:13.010Z"}]},
]) + "\n"

# Droid: the session_start line, an assistant line with two tool_use blocks and one
# user line holding both results.
DROID = "\n".join(json.dumps(record) for record in [
    {"type": "session_start", "id": "7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6",
     "title": "fix the build", "owner": "dev", "cwd": "/w", "version": 2},
    {"type": "message", "id": "m3", "timestamp": f"{_T}:10.000Z", "message": {
        "role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_2", "name": "Execute", "input": {"command": "make"}},
            {"type": "tool_use", "id": "toolu_3", "name": "Grep", "input": {"pattern": "x"}}]}},
    {"type": "message", "id": "m4", "timestamp": f"{_T}:13.000Z", "message": {
        "role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_3", "content": "..."},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "..."}]}},
]) + "\n"

# Antigravity: a planner step asking for two tools, one step per executed tool, the
# next planner step (whole seconds, no call id).
ANTIGRAVITY = "\n".join(json.dumps(record) for record in [
    {"step_index": 7, "source": "MODEL", "type": "PLANNER_RESPONSE", "status": "DONE",
     "created_at": "2026-12-03T10:00:09Z", "tool_calls": [
         {"name": "run_command", "args": {"CommandLine": "make"}},
         {"name": "view_file", "args": {"AbsolutePath": "/w/a.ts"}}]},
    {"step_index": 8, "source": "MODEL", "type": "RUN_COMMAND", "status": "DONE",
     "created_at": "2026-12-03T10:00:10Z", "content": "..."},
    {"step_index": 9, "source": "MODEL", "type": "VIEW_FILE", "status": "DONE",
     "created_at": "2026-12-03T10:00:13Z", "content": "..."},
    {"step_index": 10, "source": "MODEL", "type": "PLANNER_RESPONSE", "status": "DONE",
     "created_at": "2026-12-03T10:00:14Z", "content": "done"},
]) + "\n"

# Amp: one thread object, pretty-printed; the only time is the assistant's usage.timestamp.
AMP = json.dumps({
    "id": "T-5f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b", "created": 1796292000000,
    "title": "fix the build", "env": {"initial": {}},
    "messages": [
        {"role": "user", "messageId": 0, "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "messageId": 1, "content": [
            {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"cmd": "make"}},
            {"type": "tool_use", "id": "toolu_3", "name": "Grep", "input": {"pattern": "x"}}],
         "state": {"type": "complete", "stopReason": "tool_use"},
         "usage": {"model": "claude-sonnet-4", "timestamp": f"{_T}:10.000Z"}},
        {"role": "user", "messageId": 2, "content": [
            {"type": "tool_result", "toolUseID": "toolu_3", "run": {"status": "done"}},
            {"type": "tool_result", "toolUseID": "toolu_2", "run": {"status": "done"}}]},
    ],
}, indent=2) + "\n"

# Codebuff: the UI chat messages, tool blocks without a time.
CODEBUFF = json.dumps([
    {"id": "msg-1", "variant": "user", "content": "go", "timestamp": "10:00 AM"},
    {"id": "msg-2", "variant": "ai", "content": "", "timestamp": "10:00 AM", "blocks": [
        {"type": "tool", "toolCallId": "tc_2", "toolName": "run_terminal_command",
         "input": {"command": "make"}, "output": "..."},
        {"type": "tool", "toolCallId": "tc_3", "toolName": "code_search",
         "input": {"pattern": "x"}, "output": "..."}]},
], indent=2) + "\n"

# Grok Build: the two session files ccusage reads, both session totals.
GROK_SIGNALS = json.dumps({
    "contextTokensUsed": 18211, "totalTokensBeforeCompaction": 0,
    "primaryModelId": "grok-code-fast-1", "modelsUsed": ["grok-code-fast-1"], "turnCount": 3,
}, indent=2) + "\n"
GROK_SUMMARY = json.dumps({
    "info": {"id": "0193a8c2-7d4e-7f00-9a1b-2c3d4e5f6a7b", "cwd": "/w"},
    "current_model_id": "grok-code-fast-1", "last_active_at": "2026-12-03T10:00:14.123456Z",
}) + "\n"



def _goose(path: Path) -> None:
    """Goose's sessions.db: an assistant message with two toolRequests at 1796292010 s and
    one user message with both toolResponses at 1796292013 s (whole seconds)."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.executescript(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, working_dir TEXT, created_at"
            " TIMESTAMP, updated_at TIMESTAMP, session_type TEXT, parent_session_id TEXT);"
            "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,"
            " session_id TEXT, role TEXT, content_json TEXT, created_timestamp INTEGER,"
            " timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER,"
            " metadata_json TEXT);")
        db.execute("INSERT INTO sessions (id, working_dir, session_type) VALUES (?, ?, ?)",
                   ("20261203_1", "/w", "user"))
        request = [{"type": "toolRequest", "id": f"toolu_{n}", "toolCall": {
            "status": "success", "value": {"name": "developer__shell", "arguments": {}}}}
            for n in (2, 3)]
        response = [{"type": "toolResponse", "id": f"toolu_{n}", "toolResult": {
            "status": "success", "value": []}} for n in (3, 2)]
        db.executemany(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp)"
            " VALUES (?, ?, ?, ?)",
            [("20261203_1", "assistant", json.dumps(request), 1796292010),
             ("20261203_1", "user", json.dumps(response), 1796292013)])


def _hermes(path: Path) -> None:
    """Hermes Agent's state.db (WAL mode): an assistant row with two tool_calls at
    1796292010.00 s and the tool rows at 1796292010.90 s and 1796292013.00 s."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode=WAL")
        with db:
            db.executescript(
                "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, model TEXT,"
                " started_at REAL, parent_session_id TEXT);"
                "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id"
                " TEXT, role TEXT, content TEXT, tool_call_id TEXT, tool_calls TEXT,"
                " tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER,"
                " finish_reason TEXT, active INTEGER);")
            db.execute("INSERT INTO sessions VALUES ('s1', 'cli', 'm', 1796292000.0, NULL)")
            calls = [{"id": f"call_{n}", "type": "function",
                      "function": {"name": name, "arguments": "{}"}}
                     for n, name in (("b1", "terminal"), ("g1", "search"))]
            db.executemany(
                "INSERT INTO messages (session_id, role, tool_call_id, tool_calls, tool_name,"
                " timestamp) VALUES (?, ?, ?, ?, ?, ?)",
                [("s1", "assistant", None, json.dumps(calls), None, 1796292010.0),
                 ("s1", "tool", "call_g1", None, "search", 1796292010.9),
                 ("s1", "tool", "call_b1", None, "terminal", 1796292013.0)])
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


#: Each agent's fixture: (registry name, file name, content or a function writing it,
#: reason).
CASES = [
    ("gemini-cli", "session-2026-12-03T10-00-6f1c2e3a.jsonl", GEMINI_CLI, agents.GEMINI_CLI),
    ("droid", "7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6.jsonl", DROID, agents.DROID),
    ("antigravity", "transcript.jsonl", ANTIGRAVITY, agents.ANTIGRAVITY),
    ("amp", "T-5f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b.json", AMP, agents.AMP),
    ("codebuff", "chat-messages.json", CODEBUFF, agents.CODEBUFF),
    ("grok-build", "signals.json", GROK_SIGNALS, agents.GROK_BUILD),
    ("grok-build", "summary.json", GROK_SUMMARY, agents.GROK_BUILD),
    ("goose", "sessions.db", _goose, agents.GOOSE),
    ("hermes", "state.db", _hermes, agents.HERMES),
]
_IDS = [f"{name}:{file}" for name, file, _, _ in CASES]


def _write(tmp_path: Path, file: str, content: Content) -> Path:
    path = tmp_path / file
    if callable(content):
        content(path)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "file", "content", "reason"), CASES, ids=_IDS)
@pytest.mark.parametrize("engine", ["python", "native"])
def test_each_agent_is_refused_with_its_reason(
    tmp_path: Path, name: str, file: str, content: Content, reason: str, engine: str
) -> None:
    """A file of each agent named on the command line is one error line with the agent's
    reason on stderr, nothing on stdout, exit 1, under either engine."""
    path = _write(tmp_path, file, content)
    result = CliRunner().invoke(main, ["summarize", "--engine", engine, str(path)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"wavemetrics: error: {path}: {reason}\n"


@pytest.mark.parametrize(("name", "file", "content", "reason"), CASES, ids=_IDS)
def test_only_its_own_entry_recognises_each_agent(
    tmp_path: Path, name: str, file: str, content: Content, reason: str
) -> None:
    """No readable format takes an agent's fixture, and of the unmeasurable entries only
    that agent's own does."""
    path = _write(tmp_path, file, content)
    peek = Peek(path.read_bytes().splitlines(keepends=True), str(path))
    assert [f.name for f in TRACE_FORMATS if f.sniff(peek)] == []
    assert [entry.name for entry in UNMEASURABLE if entry.sniff(peek)] == [name]
    assert detect_input(str(path)) == Detection(str(path), None, reason)


#: How each agent's reason begins: its product name.
NAMES = {"gemini-cli": "Gemini CLI ", "droid": "Droid (Factory) ", "antigravity": "Antigravity ",
         "amp": "Amp ", "codebuff": "Codebuff ", "grok-build": "Grok Build ",
         "goose": "Goose ", "hermes": "Hermes Agent "}
#: The agents' entries of the registry (SWE-agent and OpenHands are older, own tests).
AGENT_ENTRIES = [entry for entry in UNMEASURABLE if entry.name in NAMES]


def test_every_agent_entry_names_its_agent_the_cause_and_the_remedy() -> None:
    """Every agent's reason begins with the agent's name, says why no saving can be
    measured and what would record the times (an option, or that none is known)."""
    assert {entry.name for entry in AGENT_ENTRIES} >= {name for name, *_ in CASES}
    for entry in AGENT_ENTRIES:
        reason = entry.reason
        assert reason.startswith(NAMES[entry.name]), entry.name
        assert "no saving can be measured" in reason
        assert (reason.endswith("option that would record per-call times: none known")
                or "OpenTelemetry export" in reason), entry.name
        assert "\n" not in reason


def test_open_timing_questions_are_said_to_be_open() -> None:
    """Droid's result batching and Hermes' write timing are undocumented: the reasons say
    the question is open instead of guessing an answer."""
    assert "not documented (an open question" in agents.DROID
    assert "one line per result or one line for a whole batch" in agents.DROID
    assert "not documented (an open question" in agents.HERMES


def test_gemini_cli_points_at_its_opentelemetry_export() -> None:
    """Gemini CLI's reason names the telemetry setting and its environment variable."""
    assert "telemetry.enabled" in agents.GEMINI_CLI
    assert "GEMINI_TELEMETRY_ENABLED=true" in agents.GEMINI_CLI


def test_gemini_cli_legacy_json_and_sub_agent_files_are_recognised(tmp_path: Path) -> None:
    """The older one-object ``.json`` chat file (compact or pretty-printed) and a
    sub-agent's chat file (``kind: subagent``) are Gemini CLI files too."""
    legacy = {"sessionId": "6f1c2e3a", "projectHash": "9e" * 32,
              "startTime": f"{_T}:00.000Z", "lastUpdated": f"{_T}:13.010Z", "messages": [
                  {"id": "m1", "timestamp": f"{_T}:00.500Z", "type": "user", "content": "go"}]}
    sub = {"sessionId": "a1", "projectHash": "9e" * 32, "startTime": f"{_T}:11.000Z",
           "lastUpdated": f"{_T}:11.300Z", "kind": "subagent"}
    for file, text in [("compact.json", json.dumps(legacy)),
                       ("pretty.json", json.dumps(legacy, indent=2)),
                       ("a1.jsonl", json.dumps(sub) + "\n")]:
        path = _write(tmp_path, file, text)
        assert detect_input(str(path)) == Detection(str(path), None, agents.GEMINI_CLI)


@pytest.mark.parametrize("lines", [
    # near misses: one documented key short, or of the wrong type
    [b'{"sessionId": "s", "projectHash": "h"}\n'],
    [b'{"type": "session_start", "id": "x"}\n'],
    [b'{"type": "session_start", "id": 1, "cwd": "/w"}\n'],
    [b'{"step_index": true, "source": "MODEL", "type": "X", "created_at": "t"}\n'],
    [b'{"step_index": 1, "source": "MODEL", "type": "X"}\n'],
    [b'{"id": "T-1", "messages": []}\n'],
    [b'{"id": "5f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b", "messages": []}\n'],
    [b'[{"id": "m", "variant": "bot", "content": "", "timestamp": "t"}]\n'],
    [b'{"id": "m", "variant": "ai", "content": "", "timestamp": "t"}\n'],
    [b'{"contextTokensUsed": 1, "turnCount": 3}\n'],
    [b'{"info": "x", "current_model_id": "m", "last_active_at": "t"}\n'],
    # a key of the shape inside a string value is escaped text, not a key
    [b'{"note": "\\"id\\": \\"T-5f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b\\", \\"messages\\": ["}\n'],
])
def test_near_misses_are_not_taken_for_an_agent(lines: list[bytes]) -> None:
    """Inputs lacking one documented key, or holding it with the wrong type, are no
    agent's file."""
    peek = Peek(lines, "x.json")
    assert [entry.name for entry in AGENT_ENTRIES if entry.sniff(peek)] == []


def test_existing_unmeasurable_formats_keep_their_reasons() -> None:
    """SWE-agent and OpenHands inputs are still refused with their own reasons."""
    swe = unmeasurable_reason(Peek([b'{"trajectory": []}'], "run.json"))
    hands = unmeasurable_reason(Peek([b'[{"source": "agent", "action": "run"}]'], "x.json"))
    assert swe is not None and swe.startswith("SWE-agent trajectory")
    assert hands is not None and hands.startswith("OpenHands event list")


_EVENTS = "".join(json.dumps(record) + "\n" for record in [
    {"type": "tool_execution_start", "toolCallId": "a", "toolName": "read", "timestamp": 1000},
    {"type": "tool_execution_start", "toolCallId": "b", "toolName": "grep", "timestamp": 1000},
    {"type": "tool_execution_end", "toolCallId": "a", "toolName": "read", "timestamp": 1300},
    {"type": "tool_execution_end", "toolCallId": "b", "toolName": "grep", "timestamp": 1200},
])


#: The fixtures a folder walk reads (a SQLite store is walked once the walk takes its
#: suffix: docs/formats.md, "SQLite stores").
WALKED = [case for case in CASES if case[1].endswith(TRACE_SUFFIXES)]


@pytest.mark.parametrize(("name", "file", "content", "reason"), WALKED,
                         ids=[f"{name}:{file}" for name, file, _, _ in WALKED])
def test_a_walk_reports_the_agent_file_and_still_reads_the_trace(
    tmp_path: Path, name: str, file: str, content: Content, reason: str
) -> None:
    """In a folder walk an agent's file is an input error with its reason (exit 1), as
    when named, and the readable trace beside it is still summarised."""
    from tests.reader_checks import cli_document

    folder = tmp_path / "runs"
    folder.mkdir()
    agent_file = _write(folder, file, content)
    trace = _write(folder, "zz-events.jsonl", _EVENTS)
    code, document = cli_document(["--no-cache", str(folder)])
    assert code == 1
    assert [(entry["path"], entry["error"]) for entry in document["inputs"]] == [
        (str(agent_file), reason), (str(trace), None)]
    # the trace: two calls started together at 1000 ms, ended at 1300 and 1200: one wave
    # of 2, paired calls 2, saved = (300 + 200) - 300 = 200 ms
    assert document["total"]["paired_calls"] == 2
    assert document["total"]["modeled_wallclock_saved_ms"] == 200.0
    assert "skipped_files" not in document


@needs_corpus
def test_no_corpus_file_is_taken_for_an_agent() -> None:
    """Every file of the corpus is detected as before: as a readable format, or refused
    with the SWE-agent or OpenHands reason, or unrecognised; never as one of the agents."""
    reasons = {entry.reason for entry in AGENT_ENTRIES}
    checked = 0
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.name == "MANIFEST.md":
            continue
        detection = detect_input(str(path))
        assert detection.error not in reasons, path
        checked += 1
    assert checked > 50


def test_recognising_a_store_never_writes_or_locks_it(tmp_path: Path) -> None:
    """Goose's and Hermes' stores are recognised read-only: the file is unchanged, no
    journal or WAL file appears, and a writer that holds an open write transaction on the
    WAL database neither blocks detection nor is blocked by it."""
    goose = _write(tmp_path, "sessions.db", _goose)
    before = (goose.read_bytes(), goose.stat().st_mtime_ns)
    assert detect_input(str(goose)) == Detection(str(goose), None, agents.GOOSE)
    assert (goose.read_bytes(), goose.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sessions.db"]

    hermes = _write(tmp_path, "state.db", _hermes)
    with contextlib.closing(sqlite3.connect(hermes, timeout=0.0)) as writer:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT INTO messages (session_id, role, timestamp)"
                       " VALUES ('s1', 'assistant', 1796292014.0)")
        assert detect_input(str(hermes)) == Detection(str(hermes), None, agents.HERMES)
        writer.execute("COMMIT")  # not blocked by the recogniser's read


@pytest.mark.parametrize("damage", ["one column short", "header only", "cut in half"])
def test_a_damaged_or_other_store_is_not_taken_for_an_agent(tmp_path: Path, damage: str) -> None:
    """A store lacking one documented column, a bare SQLite header and a store cut short
    are not Goose's or Hermes' (unrecognised, exit 1), and never a traceback."""
    path = tmp_path / "sessions.db"
    if damage == "one column short":
        _goose(path)
        with contextlib.closing(sqlite3.connect(path)) as db:
            db.execute("ALTER TABLE messages DROP COLUMN created_timestamp")
    elif damage == "header only":
        path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 84)
    else:
        _hermes(path)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    assert detect_input(str(path)).unrecognised
    result = CliRunner().invoke(main, ["summarize", str(path)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith(f"wavemetrics: error: {path}: not a recognised trace format")


def test_a_store_piped_on_stdin_is_not_opened(tmp_path: Path) -> None:
    """SQLite bytes on stdin are no store (a store is a file): never recognised as Goose."""
    path = _write(tmp_path, "sessions.db", _goose)
    peek = Peek(path.read_bytes().splitlines(keepends=True)[:64], "-")
    assert unmeasurable_reason(peek) is None


def test_the_docs_example_is_refused_as_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Droid example of docs/formats.md ("Agents recognised but not measured") gives
    exactly the stderr line the doc shows, nothing on stdout, exit 1."""
    import re

    docs = Path(__file__).resolve().parents[1] / "docs" / "formats.md"
    section = docs.read_text(encoding="utf-8").split(
        "## Agents recognised but not measured\n", 1)[1].split("\n## ", 1)[0]
    trace, stderr = re.findall(r"```(?:jsonl|text)\n(.*?)```", section, flags=re.S)
    monkeypatch.chdir(tmp_path)
    Path("droid.jsonl").write_text(trace, encoding="utf-8")
    result = CliRunner().invoke(main, ["summarize", "droid.jsonl"])
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", stderr)
    assert stderr == f"wavemetrics: error: droid.jsonl: {agents.DROID}\n"


_JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text())
_JSON_VALUES = st.recursive(
    _JSON_SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=20), inner, max_size=4)),
    max_leaves=12)
_AGENT_KEYS = st.sampled_from([
    "sessionId", "projectHash", "startTime", "type", "id", "cwd", "step_index", "source",
    "created_at", "messages", "variant", "content", "timestamp", "info", "turnCount",
    "contextTokensUsed", "primaryModelId", "current_model_id", "last_active_at"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(
    st.binary(max_size=80),
    st.dictionaries(_AGENT_KEYS, _JSON_VALUES, max_size=6).map(
        lambda record: json.dumps(record).encode() + b"\n"),
), max_size=5))
def test_recognisers_never_raise(lines: list[bytes]) -> None:
    """Any first lines (bytes, or objects of the agents' keys with values of any JSON
    type) give every agent's recogniser a plain yes or no, never an exception."""
    peek = Peek(lines, "x.json")
    for entry in AGENT_ENTRIES:
        assert entry.sniff(peek) in (True, False)


def test_a_store_held_by_a_writer_is_not_waited_for(tmp_path: Path) -> None:
    """A Goose store in rollback-journal mode whose writer is mid-commit (an exclusive
    lock) is not waited for and not taken for Goose's; recognised once committed."""
    import time

    path = _write(tmp_path, "sessions.db", _goose)
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as writer:
        writer.execute("BEGIN EXCLUSIVE")
        writer.execute("INSERT INTO messages (session_id, role, content_json,"
                       " created_timestamp) VALUES ('20261203_1', 'user', '[]', 1796292014)")
        began = time.monotonic()
        # not Goose's (a reader of SQLite stores may take it to say "locked")
        assert detect_input(str(path)).error != agents.GOOSE
        assert time.monotonic() - began < 5.0  # no busy wait
        writer.execute("COMMIT")
    assert detect_input(str(path)) == Detection(str(path), None, agents.GOOSE)


def test_a_store_whose_first_line_is_too_long_is_still_recognised(tmp_path: Path) -> None:
    """A store whose first bytes hold no newline within --max-line-bytes (the peek has
    only the too-long marker) is recognised from the file's own header."""
    path = _write(tmp_path, "sessions.db", _goose)
    assert unmeasurable_reason(Peek([LINE_TOO_LONG], str(path))) == agents.GOOSE
    text = _write(tmp_path, "notes.json", "x" * 100)
    assert unmeasurable_reason(Peek([LINE_TOO_LONG], str(text))) is None
