"""The ``claude-code`` reader (``docs/formats.md``, ``claude-code`` and general rules), by hand.

Times are ISO strings ``T0 + s`` seconds with ``T0 = 2025-01-01T00:00:00Z``
(1 735 689 600 000 ms); each read also checks ``lines_read == lines_used +
lines_ignored + problems`` for every file.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.batch_checks import batch_figures, check_corpus_batches
from tests.corpus import needs_corpus
from tests.golden_cases import EXAMPLE
from tests.reader_checks import (
    WAVE_FIGURES,
    cli_document,
    collect,
    lane_figures,
)
from wavemetrics import Observation, assemble_waves
from wavemetrics.cli.commands import main
from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers.claude_code import ClaudeFile, fallback_session_id, read_claude_code
from wavemetrics.run.pipeline import Lane, ReadOutcome, read_inputs

T0_MS = 1_735_689_600_000.0


def _t(seconds: float) -> str:
    whole = int(seconds)
    millis = round((seconds - whole) * 1000)
    return f"2025-01-01T00:{whole // 60:02d}:{whole % 60:02d}.{millis:03d}Z"


def _ms(seconds: float) -> float:
    return T0_MS + seconds * 1000


def _line(**fields: Any) -> bytes:
    return json.dumps(fields).encode() + b"\n"


def _use(call: str, name: str = "Bash") -> dict[str, Any]:
    return {"type": "tool_use", "id": call, "name": name, "input": {"command": "ls"}}


def _result(call: str, *, is_error: bool | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call, "content": "ok"}
    if is_error is not None:
        block["is_error"] = is_error
    return block


def _assistant(uuid: str, at: Any, *blocks: Any, session: str | None = "s1",
               **extra: Any) -> bytes:
    fields: dict[str, Any] = {"type": "assistant", "uuid": uuid, "timestamp": at,
                              "message": {"role": "assistant", "content": list(blocks)}}
    if session is not None:
        fields["sessionId"] = session
    return _line(**fields, **extra)


def _user(uuid: str, at: Any, *blocks: Any, session: str | None = "s1", **extra: Any) -> bytes:
    fields: dict[str, Any] = {"type": "user", "uuid": uuid, "timestamp": at,
                              "message": {"role": "user", "content": list(blocks)}}
    if session is not None:
        fields["sessionId"] = session
    return _line(**fields, **extra)


def _obs(kind: str, call: str, seconds: float, name: str = "Bash") -> Observation:
    return Observation(kind, call, name, _ms(seconds))


def _check(account: LineAccount | Any) -> None:
    problems = sum(account.problems.values())
    assert account.lines_read == account.lines_used + account.lines_ignored + problems


def _read(lines: list[bytes], path: str = "/p/proj/s1.jsonl") -> tuple[list[Lane], LineAccount]:
    lanes, (account,) = collect(read_claude_code, [ClaudeFile(path, lambda: lines)])
    assert account.lines_read == len(lines)
    _check(account)
    return lanes, account


def _read_tree(root: Path, files: dict[str, list[bytes]], *paths: str) -> ReadOutcome:
    for name, lines in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"".join(lines))
    outcome = read_inputs([str(root / p) for p in paths], "claude-code")
    for report in outcome.inputs:
        assert report.error is None
        _check(report)
    return outcome


def test_tool_use_starts_and_tool_result_ends_at_line_timestamps() -> None:
    """A call starts at its assistant line's time and ends at its result line's time."""
    lanes, account = _read([
        _assistant("u1", _t(1), _use("a", "Read")),
        _user("u2", _t(2.25), _result("a")),
    ])
    (lane,) = lanes
    assert (lane.session_id, lane.lane_id) == ("s1", "main")
    assert lane.observations == (_obs("start", "a", 1, "Read"), _obs("end", "a", 2.25, "Read"))
    assert account.lines_used == 2


def test_several_blocks_per_line_and_error_results_are_ends() -> None:
    """Every tool_use / tool_result block of a line is fed; ``is_error`` results end calls."""
    lanes, account = _read([
        _assistant("u1", _t(1), {"type": "text", "text": "two at once"}, _use("a"),
                   _use("b", "Grep")),
        _user("u2", _t(3), _result("b", is_error=True), _result("a", is_error=False)),
    ])
    assert lanes[0].observations == (
        _obs("start", "a", 1), _obs("start", "b", 1, "Grep"),
        _obs("end", "b", 3, "Grep"), _obs("end", "a", 3),
    )
    assert account.lines_used == 2
    (wave,) = assemble_waves(lanes[0].observations).waves
    assert (wave.size, wave.span_ms, wave.max_concurrency) == (2, 2000.0, 2)


def test_lines_without_tool_blocks_are_ignored_by_type() -> None:
    """Text-only assistant and user lines (also string content) are ignored, not problems."""
    lanes, account = _read([
        _assistant("u1", _t(1), {"type": "text", "text": "hi"}),
        _line(type="user", uuid="u2", sessionId="s1", timestamp=_t(2),
              message={"role": "user", "content": "a prompt"}),
        _line(type="user", uuid="u3", sessionId="s1", timestamp="not a time", message=None),
        _line(type="assistant", uuid="u4", sessionId="s1"),
    ])
    assert [(lane.lane_id, lane.observations) for lane in lanes] == [("main", ())]
    assert account.ignored == Counter({"assistant": 2, "user": 2})
    assert not account.problems


def test_lanes_without_tool_calls_are_reported() -> None:
    """A lane seen only through prompts and text still comes out, with no observations."""
    lanes, _ = _read([
        _user("u1", _t(1), {"type": "text", "text": "hello"}),
        _user("u2", _t(2), {"type": "text", "text": "sub"}, agentId="quiet"),
    ])
    assert [(lane.session_id, lane.lane_id, lane.observations) for lane in lanes] == [
        ("s1", "main", ()), ("s1", "quiet", ())
    ]


def test_lines_are_deduplicated_by_uuid_across_a_project_folder(tmp_path: Path) -> None:
    """A resumed session's copies of earlier lines (same uuid) in a new file are not re-fed."""
    original = [
        _assistant("u1", _t(1), _use("a")),
        _user("u2", _t(2), _result("a")),
        _assistant("u3", _t(3), _use("b")),
    ]
    resumed = [*original, _assistant("u4", _t(5), _use("c"), session="s2"),
               _user("u5", _t(6), _result("c"), session="s2")]
    outcome = _read_tree(tmp_path, {"proj/s1.jsonl": original, "proj/s2.jsonl": resumed}, "proj")
    assert [(lane.session_id, lane.observations) for lane in outcome.lanes] == [
        ("s1", (_obs("start", "a", 1), _obs("end", "a", 2), _obs("start", "b", 3))),
        ("s2", (_obs("start", "c", 5), _obs("end", "c", 6))),
    ]
    first, second = outcome.inputs
    assert (first.lines_read, first.lines_used, first.ignored) == (3, 3, {})
    assert (second.lines_read, second.lines_used, second.ignored) == (5, 2, {"duplicate_uuid": 3})


def test_different_project_folders_are_never_deduplicated_together(tmp_path: Path) -> None:
    """The same uuid in two project folders is read in both: de-duplication is per folder.

    (The second file differs by one non-tool line, so it is not a byte-identical
    copy, which is read once whatever the format.)"""
    lines = [_assistant("u1", _t(1), _use("a")), _user("u2", _t(2), _result("a"))]
    other = [*lines, _line(type="summary", uuid="u9")]
    outcome = _read_tree(tmp_path, {"p1/s1.jsonl": lines, "p2/s1.jsonl": other}, "p1", "p2")
    assert [(lane.path, len(lane.observations)) for lane in outcome.lanes] == [
        (str(tmp_path / "p1" / "s1.jsonl"), 2), (str(tmp_path / "p2" / "s1.jsonl"), 2)
    ]
    assert [report.lines_used for report in outcome.inputs] == [2, 2]


def test_first_start_and_first_end_win_per_lane() -> None:
    """Repeated tool_use / tool_result blocks of a call are counted in notes, never fed."""
    lanes, account = _read([
        _assistant("u1", _t(1), _use("a")),
        _assistant("u2", _t(2), _use("a")),             # repeat only: line ignored
        _user("u3", _t(3), _result("a")),
        _user("u4", _t(4), _result("a")),               # repeat only: line ignored
        _assistant("u5", _t(5), _use("a"), _use("c")),  # one repeat, one new: used
        _assistant("u6", _t(6), _use("a"), agentId="other"),  # another lane: its own first
    ])
    assert [(lane.lane_id, lane.observations) for lane in lanes] == [
        ("main", (_obs("start", "a", 1), _obs("end", "a", 3), _obs("start", "c", 5))),
        ("other", (_obs("start", "a", 6),)),
    ]
    assert account.lines_used == 4
    assert account.ignored == Counter({"repeated_tool_record": 2})
    assert account.notes == Counter({"repeated_tool_use": 2, "repeated_tool_result": 1})


def test_lanes_by_agent_id_then_sidechain_root_then_main() -> None:
    """``agentId`` names the lane; else a sidechain line's parentUuid-chain root; else main."""
    lanes, _ = _read([
        _assistant("m1", _t(1), _use("a")),
        _assistant("r1", _t(2), _use("b"), isSidechain=True, parentUuid=None),
        _user("r2", _t(3), _result("b"), isSidechain=True, parentUuid="r1"),
        _assistant("r3", _t(4), _use("c"), isSidechain=True, parentUuid="r2"),
        _assistant("q1", _t(5), _use("d"), isSidechain=True, parentUuid="m1"),
        _user("q2", _t(6), _result("d"), isSidechain=True, parentUuid="q1"),
        _assistant("x1", _t(7), _use("e"), isSidechain=True, parentUuid="r3", agentId="ag"),
        _user("m2", _t(8), _result("a"), isSidechain=False, parentUuid="q2"),
    ])
    assert [(lane.lane_id, [(o.kind, o.call_id) for o in lane.observations]) for lane in lanes] == [
        ("main", [("start", "a"), ("end", "a")]),
        ("r1", [("start", "b"), ("end", "b"), ("start", "c")]),
        ("q1", [("start", "d"), ("end", "d")]),
        ("ag", [("start", "e")]),
    ]


def test_subagent_files_are_lanes_of_their_parent_session(tmp_path: Path) -> None:
    """Given the project folder, ``<session>/subagents/agent-*.jsonl`` are lanes of the session."""
    files = {
        "proj/s1.jsonl": [
            _assistant("m1", _t(1), _use("task", "Task")),
            _user("m2", _t(9), _result("task")),
        ],
        "proj/s1/subagents/agent-abc.jsonl": [
            _assistant("a1", _t(2), _use("x"), agentId="abc", isSidechain=True),
            _user("a2", _t(4), _result("x"), agentId="abc", isSidechain=True),
            _user("m1", _t(1), {"type": "text", "text": "copy"}, agentId="abc"),
        ],
        "proj/s1/subagents/agent-def.jsonl": [
            _assistant("d1", _t(3), _use("y"), session=None, agentId="def"),
        ],
        "proj/s1/subagents/agent-abc.meta.json": [b'{"agentType": "general"}\n'],
    }
    outcome = _read_tree(tmp_path, files, "proj")
    assert [(r.path.removeprefix(str(tmp_path)), r.lines_used, r.ignored) for r in outcome.inputs] == [
        ("/proj/s1.jsonl", 2, {}),
        ("/proj/s1/subagents/agent-abc.jsonl", 2, {"duplicate_uuid": 1}),
        ("/proj/s1/subagents/agent-def.jsonl", 1, {}),
    ]
    assert [(lane.session_id, lane.lane_id, len(lane.observations)) for lane in outcome.lanes] == [
        ("s1", "main", 2), ("s1", "abc", 2), ("s1", "def", 1)
    ]


def test_a_session_file_named_alone_says_its_subagents_were_not_read(tmp_path: Path) -> None:
    """Naming only ``<session>.jsonl`` reads its main lane and notes the unread sub-agents."""
    session = tmp_path / "proj" / "s1.jsonl"
    (tmp_path / "proj" / "s1" / "subagents").mkdir(parents=True)
    (tmp_path / "proj" / "s1" / "subagents" / "agent-abc.jsonl").write_bytes(
        _assistant("a1", _t(2), _use("x"), agentId="abc")
    )
    session.write_bytes(_assistant("m1", _t(1), _use("a")))
    result = CliRunner().invoke(main, ["summarize", "--format", "json", str(session)])
    assert result.exit_code == 0
    assert [lane["lane_id"] for lane in json.loads(result.stdout)["lanes"]] == ["main"]
    folder = tmp_path / "proj" / "s1" / "subagents"
    assert result.stderr == (
        f"wavemetrics: note: {session}: sub-agent files in {folder}/ were not read;"
        " pass the project folder to include their lanes\n"
    )


def test_turn_duration_lines_add_positive_finite_durations_per_lane() -> None:
    """``system``/``turn_duration`` adds ``durationMs`` when finite and > 0; else ignored."""
    def system(uuid: str, duration: Any, subtype: str = "turn_duration", **extra: Any) -> bytes:
        return _line(type="system", subtype=subtype, uuid=uuid, sessionId="s1",
                     durationMs=duration, **extra)

    lanes, account = _read([
        system("t1", 1500),
        system("t2", 2500.5),
        system("t3", 0),
        system("t4", -5),
        system("t5", "100"),
        system("t6", True),
        b'{"type":"system","subtype":"turn_duration","uuid":"t7","durationMs":1e400}\n',
        system("t8", 700, subtype="compact_boundary"),
        system("t9", 300, agentId="ag"),
    ])
    # t7 has no sessionId: the file name gives its session, s1, so it is in lane main too.
    assert [(lane.session_id, lane.lane_id, lane.measured_turn_duration_ms_total)
            for lane in lanes] == [("s1", "main", 4000.5), ("s1", "ag", 300.0)]
    assert account.lines_used == 3
    assert account.ignored == Counter({"system": 6})


def test_files_without_turn_duration_report_zero() -> None:
    """A transcript with no ``turn_duration`` line has a measured turn total of 0."""
    lanes, _ = _read([_assistant("u1", _t(1), _use("a")), _user("u2", _t(60), _result("a"))])
    assert lanes[0].measured_turn_duration_ms_total == 0.0


def test_a_result_stamped_before_its_call_is_a_clock_anomaly() -> None:
    """Fed in file order, a result whose time precedes its call's is a clock anomaly."""
    lanes, _ = _read([_assistant("u1", _t(5), _use("a")), _user("u2", _t(4), _result("a"))])
    assert lanes[0].observations == (_obs("start", "a", 5), _obs("end", "a", 4))
    counters = assemble_waves(lanes[0].observations).counters
    assert (counters.clock_anomalies, counters.paired_calls) == (1, 0)


def test_a_result_written_before_its_call_is_an_orphan_end() -> None:
    """Lines are fed in file order: a result line before its call line ends nothing."""
    lanes, _ = _read([_user("u1", _t(1), _result("a")), _assistant("u2", _t(2), _use("a"))])
    assert lanes[0].observations == (_obs("end", "a", 1, "unknown"), _obs("start", "a", 2))
    counters = assemble_waves(lanes[0].observations).counters
    assert (counters.orphan_ends, counters.incomplete_calls) == (1, 1)


def test_tool_lines_with_unusable_timestamps_are_invalid_timestamp() -> None:
    """A tool line with a missing, offset-less, numeric or pre-1970 time is ``invalid_timestamp``."""
    lanes, account = _read([
        _assistant("u1", None, _use("a")),
        _assistant("u2", "2025-01-01T00:00:01", _use("b")),
        _assistant("u3", 1735689601000, _use("c")),
        _user("u4", "1969-12-31T23:59:59Z", _result("a")),
        _line(type="user", uuid="u5", sessionId="s1",
              message={"content": [_result("a")]}),
    ])
    assert [lane.observations for lane in lanes] == [()]
    assert account.problems == Counter({"invalid_timestamp": 5})


def test_blocks_without_usable_ids_are_invalid() -> None:
    """A line whose tool blocks all lack ids or names is a problem; a partly bad line is used."""
    lanes, account = _read([
        _assistant("u1", _t(1), {"type": "tool_use", "name": "Bash"}),
        _assistant("u2", _t(1), {"type": "tool_use", "id": "a"}),
        _assistant("u3", _t(1), {"type": "tool_use", "id": "", "name": "Bash"}),
        _user("u4", _t(2), {"type": "tool_result", "content": "x"}),
        _user("u5", _t(2), {"type": "tool_result", "tool_use_id": 7}),
        _assistant("u6", _t(3), {"type": "tool_use", "id": 5, "name": "Bash"}, _use("ok")),
        _line(type="assistant", uuid="u7", sessionId="s1", timestamp=_t(4),
              message={"content": [{"type": "tool_use", "id": "b\ud800", "name": "Bash"}]}),
    ])
    assert lanes[0].observations == (_obs("start", "ok", 3),)
    assert account.problems == Counter({"invalid_tool_record": 6})
    # Notes count every unusable block, also those of lines that are problems.
    assert account.notes == Counter({"invalid_tool_blocks": 7})
    assert account.lines_used == 1


def test_unknown_record_types_are_ignored_by_type_and_missing_type_is_a_problem() -> None:
    """Non-conversation types are ignored per type; a line without a string type is a problem."""
    _, account = _read([
        _line(type="summary", summary="s", leafUuid="x"),
        _line(type="file-history-snapshot", snapshot={"timestamp": _t(1)}),
        _line(type="progress", uuid="p1", toolUseID="a"),
        _line(type="progress", uuid="p2"),
        _line(type="brand-new-kind", uuid="n1", timestamp=_t(1)),
        _line(uuid="nt", timestamp=_t(1)),
        _line(type=["user"], uuid="nt2"),
    ])
    assert account.ignored == Counter(
        {"summary": 1, "file-history-snapshot": 1, "progress": 2, "brand-new-kind": 1}
    )
    assert account.problems == Counter({"missing_type": 2})


def test_duplicate_uuid_applies_to_every_record_type() -> None:
    """A repeated uuid is ignored as ``duplicate_uuid`` whatever the line's type."""
    _, account = _read([
        _line(type="progress", uuid="p1"),
        _line(type="progress", uuid="p1"),
        _assistant("u1", _t(1), _use("a")),
        _user("u1", _t(2), _result("a")),
    ])
    assert account.ignored == Counter({"progress": 1, "duplicate_uuid": 2})
    assert account.lines_used == 1


def test_missing_session_id_falls_back_to_the_file_name() -> None:
    """Lines without ``sessionId`` belong to the session named by the file (or its folder)."""
    assert fallback_session_id("/p/proj/abc-123.jsonl") == "abc-123"
    assert fallback_session_id("/p/proj/abc-123.jsonl.gz") == "abc-123"
    assert fallback_session_id("/p/proj/abc/subagents/agent-1.jsonl") == "abc"
    assert fallback_session_id("/p/proj/run\udcff.jsonl") == "run\\xff"
    lanes, _ = _read([_assistant("u1", _t(1), _use("a"), session=None)], "/p/proj/xyz.jsonl")
    assert lanes[0].session_id == "xyz"


def test_end_of_a_call_never_started_in_its_lane_is_named_unknown() -> None:
    """A result whose call started in another lane ends an unknown call in its own lane."""
    lanes, _ = _read([
        _assistant("u1", _t(1), _use("a"), agentId="ag"),
        _user("u2", _t(2), _result("a")),
    ])
    assert [(lane.lane_id, lane.observations) for lane in lanes] == [
        ("ag", (_obs("start", "a", 1),)), ("main", (_obs("end", "a", 2, "unknown"),))
    ]


def test_figures_of_a_small_transcript_end_to_end(tmp_path: Path) -> None:
    """Two overlapping calls and a later one give the hand-computed v1 figures."""
    path = tmp_path / "proj" / "s1.jsonl"
    path.parent.mkdir()
    path.write_bytes(b"".join([
        _assistant("u1", _t(1), _use("a"), _use("b", "Read")),
        _user("u2", _t(2), _result("a")),
        _user("u3", _t(4), _result("b")),
        _assistant("u4", _t(10), _use("c")),
        _user("u5", _t(10.5), _result("c", is_error=True)),
        _line(type="system", subtype="turn_duration", uuid="u6", sessionId="s1",
              durationMs=12000),
    ]))
    code, document = cli_document([str(tmp_path / "proj")])
    assert code == 0
    assert document["inputs"][0] == {
        "path": str(path), "format": "claude-code", "lines_read": 6, "lines_used": 6,
        "lines_ignored": 0, "problems": {}, "ignored": {}, "notes": {}, "error": None,
    }
    (lane,) = document["lanes"]
    # Wave 1: [1,2] and [1,4] s: span 3000, durations 1000 + 3000, modeled 1000,
    # upper (2 - 1) * 4000 / 2 = 2000. Wave 2: [10, 10.5] alone.
    expected = {
        "session_id": "s1", "lane_id": "main", "paired_calls": 3, "waves_total": 2,
        "non_eval_waves_multi": 1, "non_eval_saved_round_trips": 1,
        "modeled_wallclock_saved_ms": 1000.0, "upper_bound_saved_ms": 2000.0,
        "non_eval_wave_size_histogram": "1:1:0:0:0:0:0:0",
        "measured_turn_duration_ms_total": 12000.0,
    }
    assert {key: lane[key] for key in expected} == expected


# --- 2026 shapes: /branch and forkSession forks, server-side tools.

def _parent_lines() -> list[bytes]:
    """Session ``sess-p``: Bash t1 [0, 2] s and Read t2 [0, 3] s run together."""
    return [
        _assistant("u1", _t(0), _use("t1"), _use("t2", "Read"), session="sess-p"),
        _user("u2", _t(2), _result("t1"), session="sess-p"),
        _user("u3", _t(3), _result("t2"), session="sess-p"),
    ]


def _fork_lines(*, same_uuids: bool) -> list[bytes]:
    """Session ``sess-b``: the parent's lines copied with ``forkedFrom`` (the parent's uuids
    for ``/branch``, new ones for the SDK's ``forkSession``), then its own call t3 [10, 11] s."""
    fork = {"sessionId": "sess-p", "messageUuid": "u3"}
    ids = ("u1", "u2", "u3") if same_uuids else ("f1", "f2", "f3")
    return [
        _assistant(ids[0], _t(0), _use("t1"), _use("t2", "Read"), session="sess-b",
                   forkedFrom=fork),
        _user(ids[1], _t(2), _result("t1"), session="sess-b", forkedFrom=fork),
        _user(ids[2], _t(3), _result("t2"), session="sess-b", forkedFrom=fork),
        _assistant("b1", _t(10), _use("t3"), session="sess-b"),
        _user("b2", _t(11), _result("t3"), session="sess-b"),
    ]


#: Parent: one wave [0, 3] s, durations 2000 + 3000, span 3000: 2000 ms saved, peak 2.
#: Fork: t3 alone.
FORK_FIGURES = {
    ("sess-p", "main"): (2, "0:1:0:0:0:0:0:0", 1, 2000.0),
    ("sess-b", "main"): (1, "1:0:0:0:0:0:0:0", 0, 0.0),
}


def test_a_branch_sorted_before_its_parent_leaves_the_parent_its_calls(tmp_path: Path) -> None:
    """``/branch`` copies (parent's uuids, ``forkedFrom``) are replayed lines, never used."""
    # Before: the branch file "a-branch" was read first, its copies took the uuids, the
    # parent's lines were dropped as duplicates: sess-b got t1, t2 and sess-p no lane.
    # Rebuilt here without the forkedFrom marks.
    unmarked = tmp_path / "unmarked"
    unmarked.mkdir()
    (unmarked / "a-branch.jsonl").write_bytes(b"".join(
        line.replace(b', "forkedFrom": {"sessionId": "sess-p", "messageUuid": "u3"}', b"")
        for line in _fork_lines(same_uuids=True)))
    (unmarked / "p-parent.jsonl").write_bytes(b"".join(_parent_lines()))
    assert lane_figures(cli_document([str(unmarked)])[1], *WAVE_FIGURES) == {
        ("sess-b", "main"): (3, "1:1:0:0:0:0:0:0", 1, 2000.0)}
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a-branch.jsonl").write_bytes(b"".join(_fork_lines(same_uuids=True)))
    (project / "p-parent.jsonl").write_bytes(b"".join(_parent_lines()))
    code, document = cli_document([str(project)])
    assert code == 0
    assert lane_figures(document, *WAVE_FIGURES) == FORK_FIGURES
    branch, parent = document["inputs"]
    assert (branch["lines_used"], branch["ignored"]) == (2, {"replayed_lines": 3})
    assert (parent["lines_used"], parent["ignored"]) == (3, {})


def test_an_sdk_fork_does_not_count_the_parents_wave_twice(tmp_path: Path) -> None:
    """``forkSession`` copies (new uuids, ``forkedFrom``) are not a second copy of the wave."""
    # Before: both sessions had the wave of t1 and t2 (2000 ms saved twice, 4000 in total).
    project = tmp_path / "proj"
    project.mkdir()
    (project / "parent.jsonl").write_bytes(b"".join(_parent_lines()))
    (project / "sdk-fork.jsonl").write_bytes(b"".join(_fork_lines(same_uuids=False)))
    code, document = cli_document([str(project)])
    assert code == 0
    assert lane_figures(document, *WAVE_FIGURES) == FORK_FIGURES
    assert document["total"]["modeled_wallclock_saved_ms"] == 2000.0


def test_a_fork_read_without_its_parent_keeps_only_its_own_lines() -> None:
    """A fork file alone still sets aside its copied history."""
    lanes, account = _read(_fork_lines(same_uuids=True), "/p/proj/sess-b.jsonl")
    (lane,) = lanes
    assert lane.observations == (_obs("start", "t3", 10), _obs("end", "t3", 11))
    assert (account.lines_used, dict(account.ignored)) == (2, {"replayed_lines": 3})


@settings(max_examples=25, deadline=None)
@given(names=st.lists(st.sampled_from(["0", "a", "m", "z", "parent"]), min_size=3,
                      max_size=3, unique=True),
       same_uuids=st.booleans())
def test_fork_figures_do_not_depend_on_file_names(names: list[str], same_uuids: bool) -> None:
    """Whatever the file names (so the reading order) of a parent, its fork and a fork of the
    fork, every session keeps exactly its own calls."""
    grandchild = [line.replace(b'"sess-b"', b'"sess-c"').replace(b'"b1"', b'"c1"')
                  .replace(b'"b2"', b'"c2"').replace(b'"t3"', b'"t4"')
                  for line in _fork_lines(same_uuids=same_uuids)]
    files = dict(zip(names, [_parent_lines(), _fork_lines(same_uuids=same_uuids), grandchild],
                     strict=True))
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "proj"
        project.mkdir()
        for name, lines in files.items():
            (project / f"{name}.jsonl").write_bytes(b"".join(lines))
        _, document = cli_document([str(project)])
    assert lane_figures(document, *WAVE_FIGURES) == {
        **FORK_FIGURES, ("sess-c", "main"): (1, "1:0:0:0:0:0:0:0", 0, 0.0)}


def test_server_side_tools_are_not_calls() -> None:
    """``server_tool_use`` and its ``web_search_tool_result`` run in the model's service: they
    are counted as ignored blocks, never calls, and a client call beside them still counts."""
    server_use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                  "input": {"query": "q"}}
    server_result = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
                     "content": []}
    lanes, account = _read([
        _assistant("u1", _t(0), server_use, server_result, {"type": "text", "text": "x"}),
        _assistant("u2", _t(1), server_use | {"id": "srvtoolu_2"}, _use("c1")),
        _user("u3", _t(2), _result("c1")),
    ])
    (lane,) = lanes
    assert lane.observations == (_obs("start", "c1", 1), _obs("end", "c1", 2))
    assert (account.lines_used, dict(account.ignored), dict(account.notes)) == (
        2, {"assistant": 1}, {"server_tool_blocks": 3})


def _turn_line(uuid: str, duration_literal: str) -> str:
    return ('{"type":"system","subtype":"turn_duration","uuid":"' + uuid
            + '","sessionId":"s1","timestamp":"2025-01-01T00:00:00.000Z","durationMs":'
            + duration_literal + "}")


def _session_with_turns(tmp_path: Path, literals: list[str]) -> Path:
    start = {"type": "assistant", "uuid": "u1", "sessionId": "s1",
             "timestamp": "2025-01-01T00:00:01.000Z",
             "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Bash"}]}}
    end = {"type": "user", "uuid": "u2", "sessionId": "s1",
           "timestamp": "2025-01-01T00:00:02.000Z",
           "message": {"content": [{"type": "tool_result", "tool_use_id": "t1"}]}}
    lines = [json.dumps(start), json.dumps(end)]
    lines += [_turn_line(f"turn{i}", literal) for i, literal in enumerate(literals)]
    path = tmp_path / "proj" / "s1.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_turn_duration_of_400_digits_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    """An integer ``durationMs`` too large for a float is ``invalid_duration``; the rest is read."""
    path = _session_with_turns(tmp_path, ["1" + "0" * 399, "1500"])
    code, document = cli_document([str(path)])
    assert code == 0
    (entry,) = document["inputs"]
    assert (entry["lines_read"], entry["lines_used"], entry["problems"]) == (
        4, 3, {"invalid_duration": 1})
    assert document["total"]["measured_turn_duration_ms_total"] == 1500.0


def test_turn_durations_that_overflow_the_total_are_problems(tmp_path: Path) -> None:
    """Three turns of 1e308: the first is added, the two that would make the total
    infinite are ``turn_total_overflow``; summarize, waves and compare never crash."""
    path = _session_with_turns(tmp_path, ["1e308", "1e308", "1e308"])
    code, document = cli_document([str(path)])
    assert code == 0
    (entry,) = document["inputs"]
    assert (entry["lines_read"], entry["lines_used"], entry["problems"]) == (
        5, 3, {"turn_total_overflow": 2})
    assert document["total"]["measured_turn_duration_ms_total"] == 1e308
    for command in (["summarize"], ["waves"], ["waves", "--format", "json"]):
        result = CliRunner().invoke(main, [*command, str(path)])
        assert result.exit_code == 0, result.output
    for side in ("base", "cand"):
        trial = tmp_path / side / "task" / "t.jsonl"
        trial.parent.mkdir(parents=True)
        trial.write_bytes(path.read_bytes())
    result = CliRunner().invoke(main, ["compare", "--metric", "measured_turn_duration_ms_total",
                                       str(tmp_path / "base"), str(tmp_path / "cand")])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "candidate - baseline, mean over 1 paired task: +0.000 s" in result.stdout


def test_ids_with_a_lone_surrogate_or_a_control_character_are_invalid_id(
    tmp_path: Path,
) -> None:
    """An ``agentId`` or ``sessionId`` holding ``\\ud800`` or ESC is ``invalid_id``: the line
    is never moved to the ``main`` lane of a session named after the file."""
    def start(uuid: str, **ids: str) -> str:
        record = {"type": "assistant", "uuid": uuid, "sessionId": "s1",
                  "timestamp": "2025-01-01T00:00:01.000Z",
                  "message": {"content": [{"type": "tool_use", "id": uuid, "name": "Bash"}]}}
        record.update(ids)
        return json.dumps(record)  # ensure_ascii: the surrogate is written as \\ud800

    path = tmp_path / "proj" / "f.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join([
        start("u1", agentId="a\ud800"), start("u2", sessionId="s\ud800"),
        start("u3", agentId="a\x1b[2J"), start("u4", sessionId="\x00"), start("u5"),
    ]) + "\n", encoding="utf-8")
    outcome = read_inputs([str(path)])
    (report,) = outcome.inputs
    assert (report.lines_read, report.lines_used, report.problems) == (
        5, 1, {"invalid_id": 4})
    assert [(lane.session_id, lane.lane_id) for lane in outcome.lanes] == [("s1", "main")]


def _said(uuid: str, seconds: float, message_id: Any, *blocks: Any) -> bytes:
    """An assistant line whose ``message.id`` is ``message_id`` (absent when ``None``)."""
    message: dict[str, Any] = {"role": "assistant", "content": list(blocks)}
    if message_id is not None:
        message = {"id": message_id, **message}
    return _line(type="assistant", uuid=uuid, timestamp=_t(seconds), sessionId="s1",
                 message=message)


def test_batches_are_message_ids_after_deduplication(tmp_path: Path) -> None:
    """Batches (``docs/formats.md``, ``claude-code``): a call's batch is the
    ``message.id`` of the line holding its ``tool_use``, after the uuid
    de-duplication and the first-start-wins rule; no id (or an empty one): no batch.

    msg_A: a Read (line u1 at 0 s) and b Grep (line u2 at 0.5 s, one line per block),
    results at 1 s and 1.2 s: width 2. The repeat of line u1 (same uuid, another id)
    is a duplicate_uuid and changes nothing.
    msg_B: c Read [2, 3] s; msg_C: d Glob [4, 4.5] s; msg_D: e Read [5, 6] s: three
    single batchable calls, gaps 1 s and 0.5 s <= 300 s.
    f Bash [7, 8] s (no message.id) and g Read [9, 9.5] s (message.id ""): no batch,
    so they neither join nor close the run.
    msg_E at 10 s: a repeat of c (first start wins: c stays in msg_B) and h Bash
    [10, 11] s: width 1, not batchable, so it closes the run (c, d, e).
    paired 8, without a batch 2 (f, g); turns A..E = 5, multi 1, widths 2,1,1,1,1 give
    "4:1:0:0:0:0:0:0", max 2. Run k = 3: runs 1, calls 3, round trips 2,
    upper = (6 - 2) s - max(1, 0.5, 1) s = 4000 - 1000 = 3000.0 ms. All 8 by message.
    """
    lines = [
        _said("u1", 0, "msg_A", _use("a", "Read")),
        _said("u2", 0.5, "msg_A", _use("b", "Grep")),
        _said("u1", 0.6, "msg_Z", _use("a", "Read")),
        _user("r1", _t(1), _result("a")), _user("r2", _t(1.2), _result("b")),
        _said("u3", 2, "msg_B", _use("c", "Read")), _user("r3", _t(3), _result("c")),
        _said("u4", 4, "msg_C", _use("d", "Glob")), _user("r4", _t(4.5), _result("d")),
        _said("u5", 5, "msg_D", _use("e", "Read")), _user("r5", _t(6), _result("e")),
        _said("u6", 7, None, _use("f")), _user("r6", _t(8), _result("f")),
        _said("u7", 9, "", _use("g", "Read")), _user("r7", _t(9.5), _result("g")),
        _said("u8", 10, "msg_E", _use("c", "Read"), _use("h")),
        _user("r8", _t(11), _result("h")),
    ]
    path = tmp_path / "s1.jsonl"
    path.write_bytes(b"".join(lines))
    assert batch_figures(path) == {
        "calls_without_batch": 2, "batched_turns": 5, "multi_call_turns": 1,
        "turn_width_histogram": "4:1:0:0:0:0:0:0", "max_turn_width": 2,
        "missed_batch_runs": 1, "missed_batch_calls": 3, "missed_batch_round_trips": 2,
        "missed_batch_upper_ms": 3000.0,
        "calls_timed_by_execution": 0, "calls_timed_by_message": 8,
    }


def test_a_message_id_that_is_not_text_is_no_batch(tmp_path: Path) -> None:
    """``message.id`` 7 or null gives no batch: both calls are without one (and the
    line whose message is not an object as the typed decoder expects still reads)."""
    lines = [
        _said("u1", 0, 7, _use("a", "Read")), _user("r1", _t(1), _result("a")),
        _line(type="assistant", uuid="u2", timestamp=_t(2), sessionId="s1",
              message={"id": None, "role": "assistant", "content": [_use("b", "Read")]}),
        _user("r2", _t(3), _result("b")),
    ]
    path = tmp_path / "s1.jsonl"
    path.write_bytes(b"".join(lines))
    figures = batch_figures(path)
    assert (figures["calls_without_batch"], figures["batched_turns"]) == (2, 0)


#: Per lane of the bundled example, the width of each ``message.id`` (the calls of its
#: assistant lines) in file order, read off the skeleton's lines by hand.
_DEMO_WIDTHS = {
    "main": [1, 1, 6, 1, 6, 1, 5, 1, 5, 2, 2, 3, 3, 1, 2],
    "a36efb2a1231c41e2": [1, 3, 1, 1, 1],
    "a4ca7529859c158c2": [1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "a52886dc180afb356": [1, 1, 2, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1],
    "a6aa8ad077d9ea083": [1, 3, 1, 1],
    "ab1e6e141221a29ab": [1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "aef063ba534d73153": [1, 3, 1, 1],
}


def test_the_bundled_example_keeps_message_ids_and_its_turn_figures() -> None:
    """The quick start's section-9 figures, by hand from the skeleton's message ids.

    Widths of 1: 6 + 4 + 14 + 11 + 3 + 11 + 3 = 52; of 2: 3 + 0 + 5 + 3 + 0 + 3 + 0 = 14;
    of 3: 2 + 1 + 0 + 0 + 1 + 0 + 1 = 5; of 5-8 (two 5s and two 6s in main): 4. So
    batched_turns 75 (15 + 5 + 19 + 14 + 4 + 14 + 4), multi_call_turns 75 - 52 = 23,
    "52:14:5:0:4:0:0:0", max 6; all 117 calls have a batch (52 + 28 + 15 + 22 = 117).
    The only single-call turn of a batchable tool is one WebFetch in lane ab1e…, next to
    a 2-call turn and a Bash: no run of two, no missed batching. Claude Code times
    are message times: 117 by message.
    """
    lanes: dict[str, Counter[str]] = {}
    for raw in EXAMPLE.read_text(encoding="utf-8").splitlines():
        record = json.loads(raw)
        if record["type"] == "assistant":
            widths = lanes.setdefault(record.get("agentId", "main"), Counter())
            widths[record["message"]["id"]] += len(record["message"]["content"])
    assert {lane: list(widths.values()) for lane, widths in lanes.items()} == _DEMO_WIDTHS
    assert batch_figures(EXAMPLE) == {
        "calls_without_batch": 0, "batched_turns": 75, "multi_call_turns": 23,
        "turn_width_histogram": "52:14:5:0:4:0:0:0", "max_turn_width": 6,
        "missed_batch_runs": 0, "missed_batch_calls": 0, "missed_batch_round_trips": 0,
        "missed_batch_upper_ms": 0.0,
        "calls_timed_by_execution": 0, "calls_timed_by_message": 117,
    }


@needs_corpus
def test_corpus_batch_figures_are_sane() -> None:
    """Every corpus transcript read as ``claude-code`` gives sane batch figures."""
    assert check_corpus_batches({"claude-code"}) >= 30
