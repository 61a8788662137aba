"""No PATH: stdin when data is piped in, else the standard trace folders that exist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.corpus import CORPUS, needs_corpus
from tests.event_traces import TWO_LANES, event_line, write_events
from tests.trace_builders import BUILDERS
from wavemetrics.cli.commands import main
from wavemetrics.inputs import _stdin
from wavemetrics.inputs.locations import default_locations, standard_locations


def test_standard_locations_without_overrides(tmp_path: Path) -> None:
    """Claude Code's two folders, then Codex's, pi's, Copilot CLI's, Kimi CLI's, OpenClaw's
    and Qwen Code's, under the home folder."""
    assert standard_locations({}, tmp_path) == [
        ("Claude Code", tmp_path / ".claude/projects"),
        ("Claude Code", tmp_path / ".config/claude/projects"),
        ("Codex", tmp_path / ".codex/sessions"),
        ("pi coding agent", tmp_path / ".pi/agent/sessions"),
        ("GitHub Copilot CLI", tmp_path / ".copilot/session-state"),
        ("opencode", tmp_path / ".local/share/opencode/opencode.db"),
        ("opencode", tmp_path / ".local/share/opencode/storage"),
        ("Kilo", tmp_path / ".local/share/kilo/kilo.db"),
        ("ZCode", tmp_path / ".zcode/cli/db/db.sqlite"),
        ("Kimi CLI", tmp_path / ".kimi/sessions"),
        *_openclaw_folders(tmp_path),
        ("Qwen Code", tmp_path / ".qwen/projects"),
    ]


def test_environment_overrides_replace_the_defaults(tmp_path: Path) -> None:
    """CLAUDE_CONFIG_DIR (comma-separated), CODEX_HOME, COPILOT_HOME and KIMI_SHARE_DIR
    replace the home folders."""
    env = {"CLAUDE_CONFIG_DIR": "/a, /b", "CODEX_HOME": "/c", "COPILOT_HOME": "/g",
           "KIMI_SHARE_DIR": "/k"}
    assert standard_locations(env, tmp_path) == [
        ("Claude Code", Path("/a/projects")),
        ("Claude Code", Path("/b/projects")),
        ("Codex", Path("/c/sessions")),
        ("pi coding agent", tmp_path / ".pi/agent/sessions"),
        ("GitHub Copilot CLI", Path("/g/session-state")),
        ("opencode", tmp_path / ".local/share/opencode/opencode.db"),
        ("opencode", tmp_path / ".local/share/opencode/storage"),
        ("Kilo", tmp_path / ".local/share/kilo/kilo.db"),
        ("ZCode", tmp_path / ".zcode/cli/db/db.sqlite"),
        ("Kimi CLI", Path("/k/sessions")),
        *_openclaw_folders(tmp_path),
        ("Qwen Code", tmp_path / ".qwen/projects"),
    ]


def _openclaw_folders(home: Path) -> list[tuple[str, Path]]:
    """OpenClaw's default folders under ``home``: its own, then the legacy ones."""
    return [("OpenClaw", home / ".openclaw/agents"), ("OpenClaw", home / ".openclaw/sessions"),
            ("OpenClaw", home / ".clawdbot/agents"), ("OpenClaw", home / ".moltbot/agents"),
            ("OpenClaw", home / ".moldbot/agents")]


def test_openclaw_and_qwen_overrides(tmp_path: Path) -> None:
    """OPENCLAW_STATE_DIR replaces OpenClaw's folders (legacy ones included);
    QWEN_DATA_DIR (comma-separated roots) replaces ~/.qwen."""
    env = {"OPENCLAW_STATE_DIR": "/o", "QWEN_DATA_DIR": "/q1, /q2"}
    assert standard_locations(env, tmp_path)[-3:] == [
        ("OpenClaw", Path("/o/agents")),
        ("Qwen Code", Path("/q1/projects")),
        ("Qwen Code", Path("/q2/projects")),
    ]


def test_openclaw_and_qwen_stores_are_read_with_no_path(
        terminal: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An OpenClaw session (pi's format) and a Qwen Code chat in their default folders
    are read and named on stderr."""
    from tests.test_readers_qwen import LINES, _write
    from tests.trace_builders import PI

    for name in ("OPENCLAW_STATE_DIR", "QWEN_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    sessions = terminal / ".openclaw/agents/main/sessions"
    sessions.mkdir(parents=True)
    (sessions / "s9.jsonl").write_bytes(b"".join([*PI.prelude, *PI.call("a", 1, 3)]))
    _write(terminal / ".qwen/projects/-w/chats", LINES)
    result = CliRunner().invoke(main, ["summarize", "--format", "json"])
    assert f"wavemetrics: reading {terminal / '.openclaw/agents'} (OpenClaw)" in result.stderr
    assert f"wavemetrics: reading {terminal / '.qwen/projects'} (Qwen Code)" in result.stderr
    formats = [entry["format"] for entry in json.loads(result.stdout)["inputs"]]
    assert formats == ["pi", "qwen"]


def _opencode_family(found: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    return [entry for entry in found if entry[0] in {"opencode", "Kilo", "ZCode"}]


def test_opencode_kilo_and_zcode_stores_and_their_overrides(tmp_path: Path) -> None:
    """opencode's data folder (OPENCODE_DATA_DIR, else XDG_DATA_HOME), its release
    channels' stores that exist, Kilo's (KILO_DATA_DIR), ZCode's (ZCODE_DB_PATH, else
    ZCODE_HOME): after Copilot CLI's, in that order."""
    data = tmp_path / "oc"
    data.mkdir()
    for name in ("opencode-beta.db", "opencode-alpha.db", "opencode.db", "notes.db"):
        (data / name).write_bytes(b"")
    env = {"OPENCODE_DATA_DIR": str(data), "KILO_DATA_DIR": "/k", "ZCODE_HOME": "/z"}
    assert _opencode_family(standard_locations(env, tmp_path)) == [
        ("opencode", data / "opencode.db"),
        ("opencode", data / "opencode-alpha.db"),
        ("opencode", data / "opencode-beta.db"),
        ("Kilo", Path("/k/kilo.db")),
        ("ZCode", Path("/z/cli/db/db.sqlite")),
    ]
    env = {"XDG_DATA_HOME": "/x", "ZCODE_DB_PATH": "/zc/my.sqlite", "ZCODE_HOME": "/z"}
    assert _opencode_family(standard_locations(env, tmp_path)) == [
        ("opencode", Path("/x/opencode/opencode.db")),
        ("opencode", Path("/x/opencode/storage")),
        ("Kilo", Path("/x/kilo/kilo.db")),
        ("ZCode", Path("/zc/my.sqlite")),
    ]


def test_a_store_file_that_exists_is_a_location(tmp_path: Path) -> None:
    """Stores are files, not folders: an existing one is read, a missing one left out."""
    store = tmp_path / ".local/share/opencode/opencode.db"
    store.parent.mkdir(parents=True)
    store.write_bytes(b"")
    (store.parent / "storage").mkdir()  # copied into opencode.db: not read
    (tmp_path / ".local/share/kilo").mkdir(parents=True)  # a folder without kilo.db
    assert default_locations({}, tmp_path) == [("opencode", store)]
    store.unlink()  # an opencode from before its store: the JSON-file storage is read
    assert default_locations({}, tmp_path) == [("opencode", store.parent / "storage")]


def test_no_path_reads_an_opencode_store_and_names_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.test_readers_opencode import WORKED
    from tests.trace_builders import opencode_store

    monkeypatch.setattr(_stdin, "stdin_is_terminal", lambda: True)
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
                 "OPENCODE_DATA_DIR", "KILO_DATA_DIR", "ZCODE_DB_PATH", "ZCODE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    store = tmp_path / ".local/share/opencode/opencode.db"
    store.parent.mkdir(parents=True)
    opencode_store(str(store), *WORKED)
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == f"wavemetrics: reading {store} (opencode)"
    assert {i["format"] for i in json.loads(result.stdout)["inputs"]} == {"opencode"}


def test_only_existing_folders_are_read(tmp_path: Path) -> None:
    """Folders that do not exist are left out; the order is kept."""
    (tmp_path / ".pi/agent/sessions").mkdir(parents=True)
    (tmp_path / ".claude/projects").mkdir(parents=True)
    assert default_locations({}, tmp_path) == [
        ("Claude Code", tmp_path / ".claude/projects"),
        ("pi coding agent", tmp_path / ".pi/agent/sessions"),
    ]


#: Every environment variable that moves an agent's standard location.
AGENT_VARIABLES = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
                   "COPILOT_HOME", "OPENCODE_DATA_DIR", "KILO_DATA_DIR", "ZCODE_DB_PATH",
                   "ZCODE_HOME", "KIMI_SHARE_DIR", "OPENCLAW_STATE_DIR", "QWEN_DATA_DIR")


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A terminal on stdin and an empty home folder."""
    monkeypatch.setattr(_stdin, "stdin_is_terminal", lambda: True)
    for name in AGENT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


@needs_corpus
def test_no_path_on_a_terminal_reads_the_standard_folders(terminal: Path) -> None:
    """Real Claude Code and pi sessions in ~/.claude/projects and ~/.pi are read and named."""
    import shutil

    shutil.copytree(CORPUS / "claude-code-log/-experiments-ideas",
                    terminal / ".claude/projects/-experiments-ideas")
    shutil.copytree(CORPUS / "pi-mono", terminal / ".pi/agent/sessions")
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[:2] == [
        f"wavemetrics: reading {terminal / '.claude/projects'} (Claude Code)",
        f"wavemetrics: reading {terminal / '.pi/agent/sessions'} (pi coding agent)",
    ]
    document = json.loads(result.stdout)
    formats = {i["format"] for i in document["inputs"]}
    assert formats == {"claude-code", "pi"}
    expected = CliRunner().invoke(main, [
        "summarize", "--format", "json", "--jobs", "1", str(terminal / ".claude/projects"),
        str(terminal / ".pi/agent/sessions")]).stdout
    assert result.stdout == expected


def test_no_path_reads_copilot_and_kimi_stores(terminal: Path) -> None:
    """A Copilot CLI session and a Kimi CLI session (with a sub-agent's log) in their
    default folders are read with no PATH, each folder named on stderr."""
    copilot = terminal / ".copilot/session-state/c-1"
    copilot.mkdir(parents=True)
    (copilot / "events.jsonl").write_bytes(b"".join(BUILDERS["copilot"].call("a", 1, 3)))
    (copilot / "workspace.yaml").write_text("id: c-1\n")  # not a trace: skipped
    kimi = terminal / ".kimi/sessions/0123abcd/k-1"
    (kimi / "subagents/sa").mkdir(parents=True)
    (kimi / "wire.jsonl").write_bytes(b"".join(BUILDERS["kimi"].call("b", 1, 2)))
    (kimi / "subagents/sa/wire.jsonl").write_bytes(b"".join(BUILDERS["kimi"].call("c", 1, 2)))
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[:2] == [
        f"wavemetrics: reading {terminal / '.copilot/session-state'} (GitHub Copilot CLI)",
        f"wavemetrics: reading {terminal / '.kimi/sessions'} (Kimi CLI)",
    ]
    document = json.loads(result.stdout)
    assert sorted((lane["session_id"], lane["lane_id"], lane["paired_calls"])
                  for lane in document["lanes"]) == [
        ("c-1", "main", 1), ("k-1", "main", 1), ("k-1", "sa", 1)]


def test_no_path_and_no_standard_folder_is_a_usage_error(terminal: Path) -> None:
    """Nothing to read on a terminal: exit 2 with the folders looked in and what to do."""
    result = CliRunner().invoke(main, ["summarize"])
    assert result.exit_code == 2
    assert "no PATH given and none of the usual trace folders exist" in result.stderr
    assert str(terminal / ".claude/projects") in result.stderr


def test_no_path_with_piped_data_reads_stdin() -> None:
    """Data on a non-terminal stdin is read as if PATH were -."""
    text = "".join(event_line(e) for e in TWO_LANES)
    result = CliRunner().invoke(main, ["summarize", "--format", "json"], input=text)
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert [i["path"] for i in document["inputs"]] == ["-"]
    assert document["total"]["paired_calls"] == 8


def test_demo_reads_the_bundled_example(tmp_path: Path) -> None:
    """--demo reads the packaged example, the same as naming its file."""
    from wavemetrics.cli.commands import demo_path

    demo = CliRunner().invoke(main, ["summarize", "--demo", "--format", "json"])
    named = CliRunner().invoke(main, ["summarize", "--format", "json", demo_path()])
    assert demo.exit_code == 0
    assert demo.stdout == named.stdout
    assert len(json.loads(demo.stdout)["lanes"]) == 7  # the main agent and six sub-agents
    both = CliRunner().invoke(main, ["summarize", "--demo", str(write_events(
        tmp_path / "x.jsonl", TWO_LANES))])
    assert both.exit_code == 2


def _two_calls(builder: str) -> bytes:
    """A file of ``builder``'s format: its header, calls a [1 s, 3 s] and b [2 s, 4 s]."""
    b = BUILDERS[builder]
    return b"".join([*b.prelude, *b.call("a", 1, 3), *b.call("b", 2, 4)])


def test_no_path_reads_one_store_of_every_measurable_agent(terminal: Path) -> None:
    """A home folder holding one store of every measurable agent: ``summarize`` with no
    PATH reads every one and names each location on stderr, in the standard order.

    Every store holds one wave of two calls. The line formats' calls are [1, 3] and
    [2, 4] s: saved 2000 + 2000 - 3000 = 1000 ms, upper bound 1 x 4000 / 2 = 2000 ms.
    The opencode-layout stores' are [0, 3] and [1, 2] s: saved 3000 + 1000 - 3000 =
    1000 ms, upper bound 4000 / 2 = 2000 ms. OpenClaw's store's calls start together at
    1 s and end at 3 s and 2 s: saved 2000 + 1000 - 2000 = 1000 ms, upper bound
    3000 / 2 = 1500 ms."""
    from tests.test_readers_openclaw import _calls, _header, _result, _store
    from tests.trace_builders import opencode_store, opencode_tool

    home = terminal
    files = {
        ".claude/projects/-w/s1.jsonl": "claude-code",
        ".codex/sessions/2025/01/01/rollout-2025-01-01T00-00-00-"
        "0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl": "codex",
        ".pi/agent/sessions/--w--/2025-01-01T00-00-00-000Z_p1.jsonl": "pi",
        ".copilot/session-state/c-1/events.jsonl": "copilot",
        ".kimi/sessions/0123abcd/k-1/wire.jsonl": "kimi",
        ".openclaw/agents/main/sessions/o1.jsonl": "pi",
        ".qwen/projects/-w/chats/q1.jsonl": "qwen",
    }
    for name, builder in files.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_bytes(_two_calls(builder))
    parts = [("p1", "msg_A", "ses_1", opencode_tool("c1", "bash", "completed", 0.0, 3.0)),
             ("p2", "msg_A", "ses_1", opencode_tool("c2", "grep", "completed", 1.0, 2.0))]
    stores = [".local/share/opencode/opencode.db", ".local/share/kilo/kilo.db",
              ".zcode/cli/db/db.sqlite"]
    for name in stores:
        (home / name).parent.mkdir(parents=True)
        opencode_store(str(home / name), [("ses_1", None)], parts)
    claw = home / ".openclaw/agents/main/agent/openclaw-agent.sqlite"
    claw.parent.mkdir(parents=True)
    _store(claw, {"oc-1": [(0, _header("oc-1")),
                           (1, _calls("a1", "01.000Z", ("c1", "bash"), ("c2", "grep"))),
                           (2, _result("r1", "03.000Z", "c1")),
                           (3, _result("r2", "02.000Z", "c2"))]})

    result = CliRunner().invoke(main, ["summarize", "--format", "json", "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    reading = [line for line in result.stderr.splitlines() if "wavemetrics: reading" in line]
    assert reading == [f"wavemetrics: reading {home / where} ({agent})" for where, agent in [
        (".claude/projects", "Claude Code"), (".codex/sessions", "Codex"),
        (".pi/agent/sessions", "pi coding agent"),
        (".copilot/session-state", "GitHub Copilot CLI"),
        (".local/share/opencode/opencode.db", "opencode"), (".local/share/kilo/kilo.db", "Kilo"),
        (".zcode/cli/db/db.sqlite", "ZCode"), (".kimi/sessions", "Kimi CLI"),
        (".openclaw/agents", "OpenClaw"), (".qwen/projects", "Qwen Code")]]
    document = json.loads(result.stdout)
    formats = {entry["path"]: entry["format"] for entry in document["inputs"]}
    assert formats == {
        **{str(home / name): builder for name, builder in files.items()},
        **{str(home / name): "opencode" for name in stores},
        str(claw): "openclaw",
    }
    lanes = [(lane["paired_calls"], lane["modeled_wallclock_saved_ms"])
             for lane in document["lanes"]]
    assert lanes == [(2, 1000.0)] * 11
    total = document["total"]
    assert (total["paired_calls"], total["modeled_wallclock_saved_ms"],
            total["upper_bound_saved_ms"], total["non_eval_saved_round_trips"]) == (
        22, 11000.0, 7 * 2000.0 + 3 * 2000.0 + 1500.0, 11)
