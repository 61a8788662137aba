"""The registry of trace formats and the format-agnostic reader layer."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import wavemetrics
from wavemetrics.readers._protocol import Peek
from wavemetrics.readers.dispatch import (
    EMPTY,
    FORMATS,
    Detection,
    ReadUnit,
    detect_input,
    plan_units,
    read_unit,
    reads_alone,
    streamable,
)
from wavemetrics.readers.registry import (
    NATIVE_ROWS,
    TRACE_FORMATS,
    format_named,
    planned_natively,
    unmeasurable_reason,
)
from wavemetrics.run.pipeline import LaneSink

PACKAGE = Path(wavemetrics.__file__).parent
#: The module that declares each format, by its --input-format name.
MODULES = {
    "events": "events", "claude-code": "claude_code", "codex": "codex",
    "codex-tui": "codex_tui", "pi": "pi", "otlp": "otlp", "otel-spans": "otel_spans",
    "inspect": "inspect_log", "mcode": "mcode", "copilot": "copilot", "kimi": "kimi",
    "openclaw": "openclaw", "qwen": "qwen", "opencode": "opencode",
    "opencode-storage": "opencode_storage",
}
#: The same words used for something else than the format (a field of a record).
HOMONYMS = {
    ("events", "readers/inspect_log.py"),  # an Inspect sample's "events" list
    ("opencode", "inputs/locations.py"),  # the agent's product name, its default store's
}


def test_formats_are_the_registry_in_detection_order() -> None:
    """FORMATS lists the registry's names in order, each once, and format_named finds each."""
    assert FORMATS == ("events", "qwen", "claude-code", "codex", "codex-tui", "pi", "otlp",
                       "otel-spans", "inspect", "mcode", "copilot", "kimi", "openclaw",
                       "opencode", "opencode-storage")
    for trace_format in TRACE_FORMATS:
        assert format_named(trace_format.name) is trace_format
    with pytest.raises(KeyError):
        format_named("nope")


def test_a_format_is_imported_when_first_reached() -> None:
    """Looking a format up by name imports its reader only (the row carries the name),
    ``FORMATS`` imports none, and walking the formats in detection order imports them all;
    the unmeasurable table is loaded only when asked for."""
    import subprocess
    import sys

    modules = sorted({*MODULES.values(), "unmeasured_agents"})
    code = ("import sys\n"
            "from wavemetrics.readers.registry import format_named, trace_formats\n"
            "def readers():\n"
            "    return sorted(m.rpartition('.')[2] for m in sys.modules\n"
            "                  if m.startswith('wavemetrics.readers.')\n"
            f"                  and m.rpartition('.')[2] in {modules!r})\n"
            "print(format_named('claude-code').name, readers())\n"
            "from wavemetrics.readers.registry import FORMATS\n"
            "print(len(FORMATS), readers())\n"
            "print(len(list(trace_formats())), readers())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    read = sorted(MODULES.values())
    assert done.stdout.splitlines() == [
        "claude-code ['claude_code']",
        f"{len(MODULES)} ['claude_code']",
        f"{len(MODULES)} {read}",
    ]


def test_every_entry_has_the_protocol_members() -> None:
    """Each registry entry has a str name, a bool streamable and the three callables."""
    for trace_format in TRACE_FORMATS:
        assert isinstance(trace_format.name, str)
        assert isinstance(trace_format.streamable, bool)
        assert callable(trace_format.sniff)
        assert callable(trace_format.unit_key)
        assert callable(trace_format.read)


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


@pytest.mark.parametrize("name", FORMATS)
def test_no_module_but_its_own_names_a_format(name: str) -> None:
    """A format's name appears as a string literal only in its own module and its registry
    row (one place to change, and the row that finds it by name)."""
    own = PACKAGE / "readers" / f"{MODULES[name]}.py"
    assert name in _string_constants(own)
    row = PACKAGE / "readers" / "registry.py"
    naming = [str(path.relative_to(PACKAGE)) for path in sorted(PACKAGE.rglob("*.py"))
              if path not in {own, row} and name in _string_constants(path)
              and (name, str(path.relative_to(PACKAGE))) not in HOMONYMS]
    assert naming == []


def test_the_formats_planned_for_the_extension_are_those_it_reads_but_does_not_detect() -> None:
    """The registry plans the units of the native formats the extension does not detect
    (no record types handed over), for the native command to read; the four it detects
    come from its folded read."""
    planned = planned_natively()
    assert {name: native.code for name, native in planned.items()} == {
        "copilot": 4, "kimi": 5, "openclaw": 6, "mcode": 7, "otlp": 8, "otel-spans": 9,
        "inspect": 10}
    detected = {row.name for row in NATIVE_ROWS if row.native and row.native.sniff}
    assert detected == {"events", "claude-code", "codex", "pi"}


def test_only_codex_is_kept_whole() -> None:
    """Every format streams but codex, whose batched-write rule rewrites a start afterwards."""
    assert [f.name for f in TRACE_FORMATS if not f.streamable] == ["codex"]
    assert not streamable(EMPTY)
    assert streamable("events") and not streamable("codex")


def test_peek_parses_its_records_once_and_skips_what_is_not_an_object() -> None:
    """Peek.records are the JSON objects among the lines, parsed on first use and then kept."""
    peek = Peek([b'{"type": "x"}\n', b"\n", b"[1]\n", b"not json\n", b'{"a": 1}'], "p.jsonl")
    assert peek.records == [{"type": "x"}, {"a": 1}]
    assert peek.records is peek.records


def test_peek_text_drops_bom_and_leading_space() -> None:
    """Peek.text joins the lines, decodes them leniently and strips a BOM and leading space."""
    assert Peek([b"\xef\xbb\xbf  \n", b'[{"source": 1}]'], "x").text == '[{"source": 1}]'


@pytest.mark.parametrize(("line", "expected"), [
    ({"type": "tool_execution_start", "toolCallId": "a", "timestamp": 1}, "events"),
    ({"type": "assistant", "uuid": "u", "message": {}}, "claude-code"),
    ({"type": "summary"}, "claude-code"),
    ({"timestamp": "t", "type": "session_meta", "payload": {}}, "codex"),
    ({"ts": "t", "dir": "meta", "kind": "session_start"}, "codex-tui"),
    ({"type": "session", "id": "s", "timestamp": "t"}, "pi"),
    ({"resourceSpans": []}, "otlp"),
    ({"context": {"span_id": "1"}, "start_time": "t"}, "otel-spans"),
    ({"eval": {"eval_id": "E"}, "samples": []}, "inspect"),
    ({"schemaVersion": 1, "sequence": 1, "timestampMs": 1, "runId": "r", "sessionId": "s",
      "turnId": "t", "type": "exec.started"}, "mcode"),
])
def test_each_format_is_detected_by_its_own_entry(
    tmp_path: Path, line: dict[str, object], expected: str
) -> None:
    """A first record typical of each format is detected as that format, first match winning."""
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert detect_input(str(path)) == Detection(str(path), expected)
    accepting = [f.name for f in TRACE_FORMATS if f.sniff(Peek([path.read_bytes()], str(path)))]
    assert accepting[0] == expected


def test_unmeasurable_formats_say_why() -> None:
    """SWE-agent and OpenHands inputs are recognised only to explain that they cannot be measured."""
    swe = unmeasurable_reason(Peek([b'{"trajectory": []}'], "run.json"))
    hands = unmeasurable_reason(Peek([b'[{"source": "agent", "action": "run"}]'], "x.json"))
    assert swe is not None and swe.startswith("SWE-agent trajectory")
    assert hands is not None and hands.startswith("OpenHands event list")
    assert unmeasurable_reason(Peek([b'{"a": 1}'], "x.json")) is None


def test_unit_keys_group_claude_code_folders_only(tmp_path: Path) -> None:
    """A Claude Code file's unit is its project folder (sub-agents included); others stand alone."""
    claude = format_named("claude-code")
    project = tmp_path / "proj"
    assert claude.unit_key(str(project / "s1.jsonl")) == str(project)
    assert claude.unit_key(str(project / "s1" / "subagents" / "agent-a.jsonl")) == str(project)
    assert claude.unit_key("-") == "-"
    for trace_format in TRACE_FORMATS:
        if trace_format.name != "claude-code":
            assert trace_format.unit_key("/x/a.jsonl") == "/x/a.jsonl"
    assert not reads_alone("claude-code", str(project / "s1.jsonl"))
    assert reads_alone("claude-code", "-") and reads_alone("events", "/x/a.jsonl")


def test_plan_units_groups_by_unit_key_in_order_of_first_appearance(tmp_path: Path) -> None:
    """Units follow first appearance; a folder's Claude files form one unit, sorted by path."""
    a, b = str(tmp_path / "p" / "b.jsonl"), str(tmp_path / "p" / "a.jsonl")
    sub = str(tmp_path / "p" / "a" / "subagents" / "agent-x.jsonl")
    other = str(tmp_path / "q" / "c.jsonl")
    units = plan_units([
        Detection("/e1.jsonl", "events"), Detection(a, "claude-code"),
        Detection("/bad", None, "unreadable"), Detection(other, "claude-code"),
        Detection(b, "claude-code"), Detection("-", "claude-code"), Detection(sub, "claude-code"),
        Detection("/e0.jsonl", "events"),
    ])
    assert units == [
        ReadUnit("events", ("/e1.jsonl",)),
        ReadUnit("claude-code", tuple(sorted((a, b, sub)))),
        ReadUnit("claude-code", (other,)),
        ReadUnit("claude-code", ("-",)),
        ReadUnit("events", ("/e0.jsonl",)),
    ]


def test_read_unit_reports_every_file_and_feeds_the_sink(tmp_path: Path) -> None:
    """read_unit gives one report per path (lines accounted) and the lanes land in the sink."""
    first = tmp_path / "p" / "a.jsonl"
    second = tmp_path / "p" / "b.jsonl"
    first.parent.mkdir()
    use = {"type": "assistant", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
           "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Read"}]}}
    result = {"type": "user", "uuid": "u2", "sessionId": "s", "timestamp": "2026-01-01T00:00:01Z",
              "message": {"content": [{"type": "tool_result", "tool_use_id": "t1"}]}}
    first.write_text(json.dumps(use) + "\n", encoding="utf-8")
    second.write_text(json.dumps(result) + "\n\n", encoding="utf-8")
    sink = LaneSink()
    reports = read_unit(ReadUnit("claude-code", (str(first), str(second))), sink)
    assert [(r.path, r.format, r.lines_read, r.lines_used, r.lines_ignored) for r in reports] == [
        (str(first), "claude-code", 1, 1, 0), (str(second), "claude-code", 2, 1, 1),
    ]
    (lane,) = sink.lanes()
    assert (lane.path, lane.session_id, lane.lane_id) == (str(first), "s", "main")


def test_read_unit_of_an_empty_input_accounts_its_blank_lines(tmp_path: Path) -> None:
    """An input with no content is the pseudo-format empty: its blank lines are ignored, no lane."""
    path = tmp_path / "e.jsonl"
    path.write_bytes(b"\n  \n")
    sink = LaneSink()
    (report,) = read_unit(ReadUnit(EMPTY, (str(path),)), sink)
    assert (report.format, report.lines_read, report.lines_ignored) == (EMPTY, 2, 2)
    assert sink.lanes() == ()


CORE = {"observations", "waves", "classify", "savings", "histogram", "summary", "schema",
        "turns", "stream", "pipeline"}


def test_readers_import_nothing_of_the_metric_core_but_observation() -> None:
    """Readers know nothing of metrics: the only core name they import is the Observation type."""
    imported = set()
    for path in sorted((PACKAGE / "readers").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                parts = node.module.split(".")
                if parts[0] == "wavemetrics" and len(parts) > 1 and parts[-1] in CORE:
                    imported |= {(node.module, alias.name) for alias in node.names}
            elif isinstance(node, ast.Import):
                assert not any(alias.name.split(".")[-1] in CORE
                               for alias in node.names if alias.name.startswith("wavemetrics."))
    assert imported == {("wavemetrics.core.observations", "Observation")}


def test_each_row_names_the_format_its_module_declares() -> None:
    """A row's name is its format object's ``name``, so a look-up by name imports only
    that module (and ``FORMATS`` imports none)."""
    import importlib

    from wavemetrics.readers.registry import TRACE_FORMAT_MODULES

    for row in TRACE_FORMAT_MODULES:
        assert getattr(importlib.import_module(row.module), row.attribute).name == row.name


def test_rows_carry_the_native_and_live_capabilities() -> None:
    """The rows say which formats the extension reads (its codes, in order from 0: what its
    detection returns), the record types its detection takes for each (the sets the
    formats' own recognisers use), each one's session-id rule, and which format the
    status line keeps live states of, with that module's live reading."""
    import importlib

    from wavemetrics.readers._protocol import LiveReading
    from wavemetrics.readers._record_types import CLAUDE_ONLY_TYPES, CODEX_TYPES, EVENT_TYPES
    from wavemetrics.readers.registry import (
        NATIVE_ROWS,
        TRACE_FORMAT_MODULES,
        live_row,
        native_session_ids,
        native_sniffers,
    )

    assert [(row.name, row.native and row.native.code) for row in NATIVE_ROWS] == [
        ("events", 0), ("claude-code", 1), ("codex", 2), ("pi", 3), ("copilot", 4),
        ("kimi", 5), ("openclaw", 6), ("mcode", 7), ("otlp", 8), ("otel-spans", 9),
        ("inspect", 10)]
    assert [row.name for row in TRACE_FORMAT_MODULES if row.native] == [
        "events", "claude-code", "codex", "pi", "otlp", "otel-spans", "inspect", "mcode",
        "copilot", "kimi", "openclaw"]
    # the formats the extension detects, with their row's types; copilot's, kimi's,
    # mcode's, otlp's, otel-spans' and inspect's files and openclaw's stores are detected by the
    # registry (no types)
    pi = NATIVE_ROWS[3].native
    assert pi is not None and pi.sniff == {"session", "message"}
    assert pi.session_id("/s/2025-12-09T00-52-00-000Z_3f2504e0-4f89-41d3-9a0c-0305e82c3301.jsonl"
                         ) == "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    assert pi.session_id("/s/notes.jsonl") == "notes"
    assert native_sniffers() == [sorted(EVENT_TYPES), sorted(CLAUDE_ONLY_TYPES),
                                 sorted(CODEX_TYPES), ["message", "session"], [], [], [], [],
                                 [], [], []]
    copilot = NATIVE_ROWS[4].native
    assert copilot is not None and copilot.sniff is None
    assert copilot.session_id("/h/.copilot/session-state/4f1c/events.jsonl") == "4f1c"
    assert copilot.session_id("/tmp/run.jsonl") == "run"
    kimi = NATIVE_ROWS[5].native
    assert kimi is not None and kimi.sniff is None
    assert kimi.session_id("/h/.kimi/sessions/9a/s-1/subagents/a7/wire.jsonl") == "s-1"
    openclaw = NATIVE_ROWS[6].native
    assert openclaw is not None and openclaw.sniff is None
    # handed over, never used: a store's rows name their sessions
    assert openclaw.session_id("/h/.openclaw/agents/a1/agent/openclaw-agent.sqlite") == (
        "openclaw-agent")
    mcode = NATIVE_ROWS[7].native
    assert mcode is not None and mcode.sniff is None
    assert mcode.session_id("/b/run-3.jsonl") == "run-3"  # unused: lines name sessions
    otlp = NATIVE_ROWS[8].native
    assert otlp is not None and otlp.sniff is None
    assert otlp.session_id("/t/traces.jsonl") == "traces"  # unused: spans name sessions
    otel_spans = NATIVE_ROWS[9].native
    assert otel_spans is not None and (otel_spans.code, otel_spans.sniff) == (9, None)
    assert otel_spans.session_id("/t/AGNO_trace.json") == "AGNO_trace"  # unused, as otlp's
    inspect = NATIVE_ROWS[10].native
    assert inspect is not None and (inspect.code, inspect.sniff) == (10, None)
    # the eval id of a log without one (each sample names its session under it)
    assert inspect.session_id("/l/2026-01-02_task_Ab3.eval") == "2026-01-02_task_Ab3"
    assert inspect.session_id("/l/run.json") == "run"
    codex = NATIVE_ROWS[2].native
    assert codex is not None and codex.sniff == {
        "session_meta", "response_item", "event_msg", "turn_context", "compacted"}
    assert codex.session_id(
        "/s/rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"
    ) == "01997e76-d124-7592-9cac-2ec05abbca08"
    assert "tool_execution_start" in native_sniffers()[0]
    assert native_sniffers()[1][0] == "custom-title"
    # in a folder unit a sub-agent file's lines fall back to its session folder; alone,
    # to its file stem; outside a subagents folder the two are the stem
    assert native_session_ids("/p/s1/subagents/agent-a.jsonl") == ("s1", "agent-a")
    assert native_session_ids("/p/run.2.jsonl") == ("run.2", None)
    assert live_row().name == "claude-code"
    assert [row.name for row in TRACE_FORMAT_MODULES if row.live] == ["claude-code"]
    row = live_row()
    reading = getattr(importlib.import_module(row.module), row.live or "")
    assert isinstance(reading, LiveReading)


def test_no_module_outside_the_readers_imports_a_format_module() -> None:
    """What a format can do is asked of its registry row: no module outside
    ``readers/`` imports a format's module (the engines, the cache and the CLI name no
    format), and inside it only the format's own helpers do."""
    from tests.test_imports import import_graph

    formats = {f"wavemetrics.readers.{module}" for module in MODULES.values()}
    graph = import_graph(PACKAGE)
    importers = {name: sorted(imported & formats) for name, imported in graph.items()
                 if imported & formats}
    assert all(name.startswith("wavemetrics.readers.") for name in importers), importers
    assert not any(name in ("wavemetrics.readers.registry", "wavemetrics.readers.dispatch")
                   for name in importers)


def test_the_extension_s_record_types_are_listed_by_format_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``native_sniffers()`` puts each format's types at its code: a code no row has, or
    a row the extension reads but does not detect, gives an empty list there."""
    from wavemetrics.readers import registry

    rows = (
        registry.FormatRow("a", "m", "A", native=registry.Native(0, frozenset({"y", "x"}), str)),
        registry.FormatRow("b", "m", "B", native=registry.Native(1, None, str)),
        registry.FormatRow("c", "m", "C", native=registry.Native(3, frozenset({"z"}), str)),
    )
    monkeypatch.setattr(registry, "NATIVE_ROWS", rows)
    monkeypatch.setattr(registry, "_FOLDED_IDS", {0: str, 1: str, 3: str})
    assert registry.native_sniffers() == [["x", "y"], [], [], ["z"]]


def test_rows_carry_each_format_s_project_rule(tmp_path: Path) -> None:
    """``--by project``: the rows of the formats with a project say it (a Codex or pi
    session header's ``cwd``, each pi file by its own header; a Claude Code transcript's
    project folder, which is its read unit; an ``opencode-storage`` file's storage
    folder, its read unit too); every other format, an unknown one and stdin have
    none."""
    from wavemetrics.readers.registry import NOT_RECORDED, TRACE_FORMAT_MODULES, project_of

    assert [row.name for row in TRACE_FORMAT_MODULES if row.project is not None] == [
        "claude-code", "codex", "pi", "opencode-storage"]
    parent = tmp_path / "s1.jsonl"
    fork = tmp_path / "s2.jsonl"
    parent.write_text(json.dumps({"type": "session", "id": "s1", "cwd": "/a"}) + "\n",
                      encoding="utf-8")
    fork.write_text(json.dumps({"type": "session", "id": "s2", "cwd": "/b",
                                "parentSession": str(parent)}) + "\n", encoding="utf-8")
    assert (project_of(str(parent), "pi"), project_of(str(fork), "pi")) == ("/a", "/b")
    headless = tmp_path / "s3.jsonl"
    headless.write_text(json.dumps({"type": "session", "id": "s3"}) + "\n", encoding="utf-8")
    assert project_of(str(headless), "pi") == NOT_RECORDED
    transcript = tmp_path / "-home-u-x" / "abc.jsonl"
    assert project_of(str(transcript), "claude-code") == str(tmp_path / "-home-u-x")
    storage = tmp_path / "storage" / "part" / "msg_1" / "prt_1.json"
    assert project_of(str(storage), "opencode-storage") == (
        format_named("opencode-storage").unit_key(str(storage)))
    for name in ("events", "qwen", "codex-tui", "otlp", "inspect", "copilot", "kimi"):
        assert project_of(str(headless), name) == NOT_RECORDED
    assert project_of("-", "pi") == project_of(str(parent), "nope") == NOT_RECORDED


def test_a_claude_code_project_imports_no_reader() -> None:
    """The native command asks for the projects of a Claude Code fleet without the Python
    readers: its rule is the project folder, not the reader's unit key."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from wavemetrics.readers.registry import project_of\n"
            "print(project_of('/p/-home-x/a.jsonl', 'claude-code'))\n"
            "print(sorted(m for m in sys.modules if m.startswith('wavemetrics.readers.')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.splitlines() == [
        "/p/-home-x",
        "['wavemetrics.readers._record_types', 'wavemetrics.readers.registry']"]
