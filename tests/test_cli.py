"""The ``wavemetrics`` CLI on real Claude Code sessions and on small inputs.

Expected per-lane figures for the corpus were computed independently of this
package: by a throwaway script written straight from ``docs/metrics.md`` and
``docs/formats.md``, with three multi-call waves checked by hand against the raw
timestamps (e.g. agent-db734024 wave 2: durations 1 695 + 3 286 281 + 3 286 486
= 6 574 462 ms, span 3 288 114 ms, modeled saving 3 286 348 ms, upper bound
2 x 6 574 462 / 3 = 4 382 974.666... ms).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.corpus import CORPUS, needs_corpus
from tests.event_traces import TWO_LANES, write_events
from wavemetrics.cli.commands import main
from wavemetrics.run.native import available as native_available

EXAMPLE = Path(__file__).resolve().parents[1] / "wavemetrics" / "examples" / "claude-code-demo.jsonl"

# (project folder, session id prefix, lane, observed, paired, incomplete, waves,
#  non_eval_waves_multi, saved round trips, modeled ms, upper bound ms, histogram, turn ms)
CLAUDE_CODE_LOG = [
    ("-experiments-ideas", "03eb5929", "main", 2, 2, 0, 2, 0, 0, 0.0, 0.0, "2:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "07f2e15c", "main", 20, 20, 0, 19, 1, 1, 73.0, 478.0, "18:1:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "0d3a8e6f", "main", 14, 14, 0, 14, 0, 0, 0.0, 0.0, "14:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "12a546d1", "main", 35, 35, 0, 35, 0, 0, 0.0, 0.0, "35:0:0:0:0:0:0:0", 0.0),
    ("-src-experiments-claude_p", "256ba646", "main", 3, 3, 0, 3, 0, 0, 0.0, 0.0, "3:0:0:0:0:0:0:0", 0.0),
    ("-src-experiments-claude_p", "29ccd257", "main", 1, 1, 0, 1, 0, 0, 0.0, 0.0, "1:0:0:0:0:0:0:0", 0.0),
    ("-src-experiments-claude_p", "2b4ed4c0", "main", 9, 9, 0, 9, 0, 0, 0.0, 0.0, "9:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "326189cf", "main", 14, 14, 0, 14, 0, 0, 0.0, 0.0, "14:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "37f83ec9", "main", 101, 101, 0, 101, 0, 0, 0.0, 0.0, "101:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-danieldemmel-me-next", "4379d1bf", "main", 2, 2, 0, 2, 0, 0, 0.0, 0.0, "2:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-danieldemmel-me-next", "5ed31c36", "main", 4, 4, 0, 2, 1, 2, 865.0, 1258.0, "1:0:1:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "71c9afe9", "main", 2, 2, 0, 2, 0, 0, 0.0, 0.0, "2:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-coderabbit-review-helper", "741790a4", "668b5ac2", 7, 7, 0, 4, 2, 3, 597.0, 1219.5, "2:1:1:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-coderabbit-review-helper", "741790a4", "9fa17969", 5, 5, 0, 5, 0, 0, 0.0, 0.0, "5:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-coderabbit-review-helper", "741790a4", "b52b1c09", 5, 5, 0, 4, 1, 1, 48.0, 108.0, "3:1:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-coderabbit-review-helper", "741790a4", "db734024", 6, 6, 0, 4, 1, 2, 3286348.0, 4382974.666666667, "3:0:1:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-coderabbit-review-helper", "741790a4", "f36dc5e5", 8, 8, 0, 6, 2, 2, 92087.0, 92966.5, "4:2:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "89488521", "main", 9, 9, 0, 9, 0, 0, 0.0, 0.0, "9:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "937c6e6b", "main", 26, 26, 0, 26, 0, 0, 0.0, 0.0, "26:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "aa5c5ada", "main", 14, 14, 0, 14, 0, 0, 0.0, 0.0, "14:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-danieldemmel-me-next", "b25638d7", "main", 17, 17, 0, 17, 0, 0, 0.0, 0.0, "17:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "b45ad5d8", "main", 8, 8, 0, 8, 0, 0, 0.0, 0.0, "8:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "cbc0f75b", "main", 9, 9, 0, 9, 0, 0, 0.0, 0.0, "9:0:0:0:0:0:0:0", 0.0),
    ("-experiments-worktrees", "ef958aa1", "a36efb2a1231c41e2", 7, 7, 0, 7, 0, 0, 0.0, 0.0, "7:0:0:0:0:0:0:0", 0.0),
    ("-experiments-worktrees", "ef958aa1", "a4ca7529859c158c2", 24, 24, 0, 20, 4, 4, 325974.0, 337805.5, "16:4:0:0:0:0:0:0", 0.0),
    ("-experiments-worktrees", "ef958aa1", "a52886dc180afb356", 17, 17, 0, 17, 0, 0, 0.0, 0.0, "17:0:0:0:0:0:0:0", 0.0),
    ("-experiments-worktrees", "ef958aa1", "a6aa8ad077d9ea083", 6, 6, 0, 6, 0, 0, 0.0, 0.0, "6:0:0:0:0:0:0:0", 0.0),
    ("-experiments-worktrees", "ef958aa1", "ab1e6e141221a29ab", 17, 17, 0, 14, 3, 3, 53504.0, 59810.0, "11:3:0:0:0:0:0:0", 0.0),
    ("-experiments-worktrees", "ef958aa1", "aef063ba534d73153", 6, 6, 0, 6, 0, 0, 0.0, 0.0, "6:0:0:0:0:0:0:0", 0.0),
    ("-experiments-worktrees", "ef958aa1", "main", 40, 40, 0, 35, 3, 5, 1642275.0, 1784988.8333333333, "32:1:2:0:0:0:0:0", 400393.0),
    ("-Users-dain-workspace-danieldemmel-me-next", "f852ad25", "main", 35, 35, 0, 35, 0, 0, 0.0, 0.0, "35:0:0:0:0:0:0:0", 0.0),
    ("-Users-dain-workspace-claude-code-log-sample", "fe869ecb", "main", 32, 32, 0, 32, 0, 0, 0.0, 0.0, "32:0:0:0:0:0:0:0", 0.0),
]
AGENTCMD = [
    ("claude", "06381696", "main", 3, 2, 1, 2, 0, 0, 0.0, 0.0, "2:0:0:0:0:0:0:0", 0.0),
    ("claude", "10cd5911", "main", 5, 5, 0, 3, 2, 2, 16613.0, 17711.0, "1:2:0:0:0:0:0:0", 0.0),
    ("claude", "2d984148", "main", 27, 27, 0, 27, 0, 0, 0.0, 0.0, "27:0:0:0:0:0:0:0", 0.0),
    ("claude", "8a2518dd", "main", 10, 10, 0, 9, 1, 1, 279.0, 676.0, "8:1:0:0:0:0:0:0", 0.0),
]
_FIELDS = (
    "observed_calls", "paired_calls", "incomplete_calls", "waves_total", "non_eval_waves_multi",
    "non_eval_saved_round_trips", "modeled_wallclock_saved_ms", "upper_bound_saved_ms",
    "non_eval_wave_size_histogram", "measured_turn_duration_ms_total",
)


def _run(*args: str) -> tuple[int, Any, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    out: Any = result.stdout
    if "json" in args and "--format" in args and args[args.index("--format") + 1] == "json":
        out = json.loads(result.stdout)
    return result.exit_code, out, result.stderr


def _lane_rows(document: dict[str, Any]) -> dict[tuple[str, str], tuple[Any, ...]]:
    return {
        (lane["session_id"][:8], lane["lane_id"]): tuple(lane[f] for f in _FIELDS)
        for lane in document["lanes"]
    }


def _expected(rows: list[tuple[Any, ...]]) -> dict[tuple[str, str], tuple[Any, ...]]:
    return {(r[1], r[2]): r[3:] for r in rows}


@needs_corpus
def test_summarize_claude_code_log_corpus_per_lane() -> None:
    """Every lane of the 32 claude-code-log files has the independently computed figures."""
    code, document, _ = _run(
        "summarize", "--format", "json", str(CORPUS / "claude-code-log")
    )
    assert code == 0
    assert isinstance(document, dict)
    assert _lane_rows(document) == _expected(CLAUDE_CODE_LOG)
    assert len(document["inputs"]) == 32
    assert {i["format"] for i in document["inputs"]} == {"claude-code"}


@needs_corpus
def test_summarize_agentcmd_corpus_per_lane() -> None:
    """The agentcmd Claude sessions give the independently computed figures, one lane each."""
    code, document, _ = _run("summarize", "--format", "json", str(CORPUS / "agentcmd" / "claude"))
    assert code == 0
    assert isinstance(document, dict)
    assert _lane_rows(document) == _expected(AGENTCMD)
    # One call of 06381696 never got its result: 3 observed = 2 paired + 1 incomplete.
    assert document["total"]["incomplete_calls"] == 1


@needs_corpus
def test_resumed_sessions_are_deduplicated_by_uuid_across_files() -> None:
    """Lines copied into a resumed session's file are ignored as duplicate uuids, not re-counted."""
    _, document, _ = _run(
        "summarize", "--format", "json",
        str(CORPUS / "claude-code-log" / "-Users-dain-workspace-claude-code-log-sample"),
    )
    assert isinstance(document, dict)
    duplicates = {
        Path(i["path"]).name[:8]: i["ignored"].get("duplicate_uuid", 0) for i in document["inputs"]
    }
    # The first line of b45ad5d8 and of cbc0f75b is a copy of a line of 71c9afe9.
    assert duplicates["b45ad5d8"] == 1
    assert duplicates["cbc0f75b"] == 1
    assert sum(duplicates.values()) == 2


@needs_corpus
def test_subagent_files_are_lanes_of_their_parent_session() -> None:
    """A session folder's subagents/ files become lanes of the parent session id."""
    _, document, _ = _run(
        "summarize", "--format", "json", str(CORPUS / "claude-code-log" / "-experiments-worktrees")
    )
    assert isinstance(document, dict)
    assert {lane["session_id"] for lane in document["lanes"]} == {
        "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    }
    assert len(document["lanes"]) == 7
    total = document["total"]
    # 1642275 + 325974 + 53504 = 2021753 ms; exact because every term is an integer.
    assert total["modeled_wallclock_saved_ms"] == 2021753.0
    # singles: 7 + 16 + 17 + 6 + 11 + 6 + 32 = 95; pairs: 4 + 3 + 1 = 8; triples: main's 2.
    assert total["non_eval_wave_size_histogram"] == "95:8:2:0:0:0:0:0"


@needs_corpus
def test_session_file_alone_notes_its_unread_subagents() -> None:
    """Naming a session file whose subagents/ folder is not read prints a note on stderr."""
    session = CORPUS / "claude-code-log" / "-experiments-worktrees" / (
        "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
    )
    code, document, err = _run("summarize", "--format", "json", str(session))
    assert code == 0
    assert isinstance(document, dict)
    assert [lane["lane_id"] for lane in document["lanes"]] == ["main"]
    assert "sub-agent files" in err and "were not read" in err


def test_bundled_example_matches_its_source_session() -> None:
    """The shipped demo skeleton gives the figures of the real session it was derived from."""
    code, document, _ = _run("summarize", "--format", "json", str(EXAMPLE))
    assert code == 0
    assert isinstance(document, dict)
    expected = {k: v for k, v in _expected(CLAUDE_CODE_LOG).items() if k[0] == "ef958aa1"}
    assert _lane_rows(document) == expected
    (report,) = document["inputs"]
    # One provenance record (unknown type, ignored) and 236 skeleton lines, all used.
    assert report["ignored"] == {"wavemetrics-provenance": 1}
    assert report["lines_read"] == report["lines_used"] + 1 == 237


def test_example_has_no_text_content() -> None:
    """The demo skeleton carries ids, tool names and times only: no text or input fields."""
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines()[1:]:
        record = json.loads(line)
        assert set(record) <= {
            "type", "subtype", "uuid", "sessionId", "agentId", "isSidechain", "timestamp",
            "message", "durationMs",
        }
        for block in record.get("message", {}).get("content", []):
            assert set(block) <= {"type", "id", "name", "tool_use_id"}


def _events(tmp_path: Path, lines: list[dict[str, Any]], name: str = "s1.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _ev(kind: str, call: str, tool: str, at: float, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "toolCallId": call, "toolName": tool, "timestamp": at, **extra}


PARALLEL = [
    _ev("tool_execution_start", "a", "read", 1000),
    _ev("tool_execution_start", "b", "grep", 1100),
    _ev("tool_execution_end", "b", "grep", 1400),
    _ev("tool_execution_end", "a", "read", 2000),
    _ev("tool_execution_start", "c", "eval", 3000),
    _ev("tool_execution_end", "c", "eval", 3500),
]


def test_jsonl_prints_one_v1_payload_per_lane_with_waves(tmp_path: Path) -> None:
    """--format jsonl prints exactly the 16 v1 keys in contract order, with hand-computed values."""
    path = _events(tmp_path, PARALLEL)
    code, out, _ = _run("summarize", "--format", "jsonl", path)
    assert code == 0
    assert isinstance(out, str)
    (line,) = out.splitlines()
    payload = json.loads(line)
    assert list(payload) == [
        "$session_id", "clock_anomalies", "dropped_calls", "eval_only_duration_ms",
        "eval_only_waves", "incomplete_calls", "measured_turn_duration_ms_total", "mixed_waves",
        "modeled_wallclock_saved_ms", "non_eval_joined_calls", "non_eval_saved_round_trips",
        "non_eval_wave_size_histogram", "non_eval_waves_multi", "non_eval_waves_total",
        "schema_kind", "upper_bound_saved_ms",
    ]
    # sha256 of the bytes ["s1","main"]: computed with hashlib on the literal, not by the package.
    # the documented hash: SHA-256 of the bytes of JSON.stringify(["s1", "main"]).
    assert payload["$session_id"] == hashlib.sha256(b'["s1","main"]').hexdigest()
    # wave 1: read [1000,2000], grep [1100,1400]: S = 1000 + 300 = 1300, span 1000.
    assert payload["modeled_wallclock_saved_ms"] == 300.0
    assert payload["upper_bound_saved_ms"] == 650.0  # (2 - 1) * (1300 / 2)
    assert payload["non_eval_saved_round_trips"] == 1
    assert payload["non_eval_wave_size_histogram"] == "0:1:0:0:0:0:0:0"
    assert payload["eval_only_waves"] == 1
    assert payload["eval_only_duration_ms"] == 500.0
    assert payload["schema_kind"] == "parallelism_v1"


def test_eval_tool_option_replaces_the_default_names(tmp_path: Path) -> None:
    """--eval-tool grep makes grep the only eval name, so the parallel wave becomes mixed."""
    path = _events(tmp_path, PARALLEL)
    _, document, _ = _run("summarize", "--format", "json", "--eval-tool", "grep", path)
    assert isinstance(document, dict)
    total = document["total"]
    # wave 1 = {read, grep} is mixed; wave 2 = {eval} is now non_eval (size 1).
    assert (total["mixed_waves"], total["eval_only_waves"], total["non_eval_waves_total"]) == (
        1, 0, 1
    )
    assert total["modeled_wallclock_saved_ms"] == 0.0


def test_max_tracked_calls_caps_and_zero_means_unbounded(tmp_path: Path) -> None:
    """--max-tracked-calls 1 drops the second start; 0 lifts the cap."""
    path = _events(tmp_path, PARALLEL)
    _, capped, _ = _run("summarize", "--format", "json", "--max-tracked-calls", "1", path)
    _, unbounded, _ = _run("summarize", "--format", "json", "--max-tracked-calls", "0", path)
    assert isinstance(capped, dict) and isinstance(unbounded, dict)
    # cap 1: a held (pending) -> b dropped, its end orphaned; a paired -> c dropped too.
    assert capped["total"]["dropped_calls"] == 2
    assert capped["total"]["orphan_ends"] == 2
    assert unbounded["total"]["dropped_calls"] == 0
    assert unbounded["total"]["paired_calls"] == 3


def test_table_fits_80_columns_and_names_the_detected_format(tmp_path: Path) -> None:
    """The table says which format it detected and no line is wider than 80 columns."""
    path = _events(tmp_path, PARALLEL, name="a-very-long-session-identifier-for-width.jsonl")
    code, out, _ = _run("summarize", path)
    assert code == 0
    assert isinstance(out, str)
    assert out.splitlines()[0] == "inputs: 1 events (auto-detected)"
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "0.30" in out  # 300 ms modeled saving shown in seconds


def test_waves_lists_every_wave_with_bucket_and_saving(tmp_path: Path) -> None:
    """wavemetrics waves --format json lists both waves with start, span, size, bucket, saving."""
    path = _events(tmp_path, PARALLEL)
    code, document, _ = _run("waves", "--format", "json", path)
    assert code == 0
    rows = document["waves"]
    assert [(r["start_ms"], r["span_ms"], r["size"], r["max_concurrency"], r["bucket"],
             r["tool_names"], r["modeled_wallclock_saved_ms"]) for r in rows] == [
        (1000.0, 1000.0, 2, 2, "non_eval", ["read", "grep"], 300.0),
        (3000.0, 500.0, 1, 1, "eval_only", ["eval"], 0.0),
    ]
    assert rows[0]["start"] == "1970-01-01T00:00:01.000Z"


def test_unreadable_input_exits_1_and_others_are_still_summarised(tmp_path: Path) -> None:
    """A missing file is named on stderr with exit 1; the good input is still summarised."""
    good = _events(tmp_path, PARALLEL)
    missing = str(tmp_path / "nope.jsonl")
    code, document, err = _run("summarize", "--format", "json", good, missing)
    assert code == 1
    assert isinstance(document, dict)
    assert f"{missing}: no such file or directory" in err
    assert document["total"]["paired_calls"] == 3
    assert [i["error"] for i in document["inputs"]] == [None, "no such file or directory"]


def test_unrecognised_input_is_an_error_for_that_input(tmp_path: Path) -> None:
    """JSON records of no known format give exit 1 and a clear reason on stderr."""
    other = tmp_path / "other.jsonl"
    other.write_text('{"hello": 1}\n{"hello": 2}\n', encoding="utf-8")
    code, _, err = _run("summarize", "--format", "json", str(other))
    assert code == 1
    assert "not a recognised trace format" in err
    assert err.count("\n") == 1


def test_usage_errors_exit_2() -> None:
    """An unknown option value is a usage error with exit status 2 (no PATH: test_locations.py)."""
    assert _run("summarize", "--format", "xml", "x")[0] == 2
    assert _run("summarize", "--max-tracked-calls", "-1", "x")[0] == 2
    # a bound past the years a time holds (the day after 9999-12-31): no traceback
    code, _, err = _run("summarize", "--until", "9999-12-31", "x")
    assert code == 2 and "'9999-12-31': out of the range of times" in err


def test_stdin_is_read_with_dash(tmp_path: Path) -> None:
    """PATH - reads the trace from standard input; its session id defaults to "stdin"."""
    text = "".join(json.dumps(line) + "\n" for line in PARALLEL)
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "-"], input=text)
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert [(lane["session_id"], lane["lane_id"]) for lane in document["lanes"]] == [
        ("stdin", "main")
    ]
    assert document["inputs"][0]["lines_used"] == 6


def test_lanes_without_waves_are_listed_but_get_no_payload(tmp_path: Path) -> None:
    """A lane with only an unfinished call is in the JSON lanes but has no v1 payload."""
    path = _events(tmp_path, [_ev("tool_execution_start", "a", "read", 5)])
    _, document, _ = _run("summarize", "--format", "json", path)
    _, out, _ = _run("summarize", "--format", "jsonl", path)
    assert isinstance(document, dict)
    assert [(lane["lane_id"], lane["incomplete_calls"], lane["waves_total"])
            for lane in document["lanes"]] == [("main", 1, 0)]
    assert out == ""


@pytest.mark.parametrize("fmt", ["table", "json", "jsonl"])
def test_empty_input_is_reported_not_an_error(tmp_path: Path, fmt: str) -> None:
    """An empty file is reported as empty with exit 0 in every output format."""
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    code, _, err = _run("summarize", "--format", fmt, str(empty))
    assert code == 0
    assert "empty input" in err


def test_record_type_of_the_wrong_json_type_is_not_a_crash(tmp_path: Path) -> None:
    """A first record whose "type" is a list is unrecognised (exit 1), never a traceback."""
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"type": ["x"], "timestamp": 1}\n', encoding="utf-8")
    code, _, err = _run("summarize", "--format", "json", str(odd))
    assert code == 1
    assert "not a recognised trace format" in err


@needs_corpus
@pytest.mark.parametrize(
    ("relative", "reason"),
    [
        ("swe-agent/marshmallow-1867__function_calling_replace.traj", "no absolute timestamps"),
        ("openhands/basic.json", "no UTC offset"),
    ],
)
def test_formats_without_absolute_times_are_named_errors(relative: str, reason: str) -> None:
    """SWE-agent and OpenHands files are recognised and refused with their reason, exit 1."""
    code, out, err = _run("summarize", "--format", "jsonl", str(CORPUS / relative))
    assert code == 1
    assert out == ""
    assert reason in err
    assert err.count("\n") == 1


@needs_corpus
def test_trace_without_tool_calls_says_so() -> None:
    """The OTLP example (one server span, no tool span) is read but noted as having no calls."""
    code, document, err = _run(
        "summarize", "--format", "json", str(CORPUS / "opentelemetry-proto" / "trace.json")
    )
    assert code == 0
    assert document["total"]["observed_calls"] == 0
    assert "no tool calls found" in err


def test_a_file_named_twice_is_read_once(tmp_path: Path) -> None:
    """Naming the same trace twice (or inside a named folder) does not double its figures."""
    path = _events(tmp_path, PARALLEL)
    _, document, _ = _run("summarize", "--format", "json", path, path, str(tmp_path))
    assert [i["path"] for i in document["inputs"]] == [path]
    assert document["total"]["paired_calls"] == 3


def test_table_shortens_numbers_too_wide_for_their_column() -> None:
    """Counts over 5 digits and seconds over 9 characters are written as 421k, 1.0M, ..."""
    from wavemetrics.views.report import _count, _seconds

    assert _count(99999) == "99999"
    assert _count(100000) == "100k"
    assert _count(421_072) == "421k"
    assert _count(1_000_000) == "1.0M"
    assert _seconds(497_985_400.0) == "497985.40"  # 9 characters: kept
    assert _seconds(12_345_678_900.0) == "12M"  # 12 345 678.9 s


@needs_corpus
def test_progress_counts_every_file_once(tmp_path: Path) -> None:
    """read_inputs reports progress for every file: 3 event files, and a Claude folder of 5."""
    from wavemetrics.run.pipeline import read_inputs

    for index in range(3):
        _events(tmp_path, PARALLEL, name=f"e{index}.jsonl")
    steps: list[Sequence[str]] = []
    folder = CORPUS / "claude-code-log" / "-Users-dain-workspace-coderabbit-review-helper"
    read_inputs([str(tmp_path), str(folder)], progress=steps.append)
    done = [path for step in steps for path in step]
    assert sorted(done) == sorted(
        [str(tmp_path / f"e{i}.jsonl") for i in range(3)]
        + [str(p) for p in folder.glob("*.jsonl")])
    assert [len(step) for step in steps].count(5) == 1  # the Claude folder: when it is read


def test_no_arguments_print_the_help_and_exit_0() -> None:
    """``wavemetrics`` alone lists the commands on stdout and is not an error (exit 0)."""
    result = CliRunner().invoke(main, [])
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: wavemetrics [OPTIONS]")
    assert "summarize" in result.stdout and result.stderr == ""


def test_a_usage_error_names_the_command_to_ask_for_help() -> None:
    """A mistyped option is one line with click's suggestion and the command's --help hint.

    Click's own wording changed in 8.4 (``No such option '--formt'. (Did you mean one
    of: ...?)``, before ``No such option: --formt (Possible options: ...)``); the
    one-line style around it is ours and is pinned whatever the click version.
    """
    result = CliRunner().invoke(main, ["summarize", "--formt", "x"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert re.fullmatch(
        r"wavemetrics: error: No such option:? '?--formt'?\.? \((Did you mean one of|Possible"
        r" options): '?--format'?, '?--input-format'?\??\) \(try 'wavemetrics summarize"
        r" --help'\)\n", result.stderr), result.stderr


@needs_corpus
def test_unmeasurable_format_cites_the_users_docs() -> None:
    """The reason given for an OpenHands file cites docs/formats.md, which users have."""
    path = CORPUS / "openhands" / "basic.json"
    result = CliRunner().invoke(main, ["summarize", str(path)])
    assert result.exit_code == 1
    assert "which docs/formats.md treats as invalid" in result.stderr
    assert "spec/" not in result.stderr


def _events_file(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@needs_corpus
def test_header_of_a_cut_gzip_says_it_was_read_in_part(tmp_path: Path) -> None:
    """A gzip cut in half is read up to the cut: the header counts it as read (pi), in part,
    not as ``none read`` above a lane of figures; exit 1 for the error."""
    import gzip

    whole = gzip.compress((CORPUS / "pi-mono" / "before-compaction.jsonl").read_bytes())
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    result = CliRunner().invoke(main, ["summarize", str(cut)])
    assert result.exit_code == 1
    assert result.stdout.startswith(
        "inputs: 1 pi (auto-detected); 1 of them read only in part, up to an error\n"
        "  (figures are a lower bound)\n"
    )
    assert "could not be read" not in result.stdout


@needs_corpus
def test_nothing_read_prints_the_error_only() -> None:
    """When every input failed before a line was read, stdout is empty: no table of zeros."""
    path = CORPUS / "openhands" / "basic.json"
    for command in ("summarize", "waves"):
        result = CliRunner().invoke(main, [command, str(path)])
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr.startswith(f"wavemetrics: error: {path}: OpenHands event list")


def test_jsonl_says_which_lanes_emitted_no_event(tmp_path: Path) -> None:
    """A lane with one call that never ended has no wave, so no v1 event: stderr says so."""
    path = _events_file(tmp_path / "s.jsonl", [
        {"type": "tool_execution_start", "toolCallId": "a", "toolName": "read", "timestamp": 1},
    ])
    result = CliRunner().invoke(main, ["summarize", "--format", "jsonl", str(path)])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == (
        "wavemetrics: note: 1 lane emitted no event (no waves; the v1 contract emits none):"
        " s/main (calls not counted: incomplete 1)\n"
    )


def test_counts_in_messages_are_singular_for_one(tmp_path: Path) -> None:
    """One line read (a known record type, no tool call) of a file that auto-detection does
    not recognise gets the forced-format error, its count in brackets, never ``1 lines``
    (the plain note's ``1 line`` is pinned by the OTLP test below)."""
    path = _events_file(tmp_path / "s.jsonl", [{"type": "message", "timestamp": 1}])
    result = CliRunner().invoke(main, ["summarize", "--input-format", "events", str(path)])
    assert result.stderr == (
        f"wavemetrics: error: {path}: no usable record: every line (1) was ignored as a record"
        " type that --input-format events does not read, and auto-detection recognises no"
        " format in it\n")


@needs_corpus
def test_sub_agent_files_without_their_session_are_noted() -> None:
    """A ``subagents/`` folder read without its session file: the missing main lane is noted."""
    project = CORPUS / "claude-code-log" / "-experiments-worktrees"
    session = project / "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    result = CliRunner().invoke(main, ["summarize", str(session / "subagents")])
    assert result.exit_code == 0
    assert result.stderr == (
        f"wavemetrics: note: {session}/subagents/: sub-agent files read without their session"
        f" ({session}.jsonl was not read): the main lane is missing; pass the project folder\n"
    )


def _sessions_without_main(document: dict[str, Any]) -> set[str]:
    """docs/cli.md's rule: Claude Code sessions in ``lanes`` with no lane ``main``."""
    claude = {i["path"] for i in document["inputs"] if i["format"] == "claude-code"}
    lanes = [lane for lane in document["lanes"] if lane["path"] in claude]
    return ({lane["session_id"] for lane in lanes}
            - {lane["session_id"] for lane in lanes if lane["lane_id"] == "main"})


@needs_corpus
def test_a_missing_main_lane_is_derivable_from_the_json() -> None:
    """Five old-layout sub-agent files of session 741790a4-… without its session file:
    no JSON key says so (``notes`` stay ``{}``), but the lanes show that session with no
    ``main`` lane, as docs/cli.md states; a project folder with its session file shows none."""
    folder = CORPUS / "claude-code-log" / "-Users-dain-workspace-coderabbit-review-helper"
    result = CliRunner().invoke(main, ["summarize", "--format", "json", str(folder)])
    document = json.loads(result.stdout)
    assert [i["notes"] for i in document["inputs"]] == [{}] * 5
    assert _sessions_without_main(document) == {"741790a4-4fe2-4644-9a51-fb4482074060"}
    assert "the main lane is missing" in result.stderr
    whole = CliRunner().invoke(main, ["summarize", "--format", "json",
                                      str(CORPUS / "claude-code-log" / "-experiments-worktrees")])
    assert _sessions_without_main(json.loads(whole.stdout)) == set()


@needs_corpus
def test_gzipped_session_without_its_sub_agents_is_noted(tmp_path: Path) -> None:
    """A gzipped session file named without its ``subagents/`` folder gets the same note."""
    import gzip
    import shutil

    project = CORPUS / "claude-code-log" / "-experiments-worktrees"
    name = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    shutil.copytree(project / name, tmp_path / name)
    session = tmp_path / f"{name}.jsonl.gz"
    session.write_bytes(gzip.compress((project / f"{name}.jsonl").read_bytes()))
    result = CliRunner().invoke(main, ["summarize", str(session)])
    assert f"sub-agent files in {tmp_path / name / 'subagents'}/ were not read" in result.stderr


def _session_calls(path: Path, session: str) -> Path:
    return _events_file(path, [
        {"type": "tool_execution_start", "toolCallId": "a", "toolName": "read",
         "timestamp": 1, "sessionId": session},
        {"type": "tool_execution_end", "toolCallId": "a", "toolName": "read",
         "timestamp": 2, "sessionId": session},
    ])


def test_session_ids_are_cut_to_prefixes_that_tell_them_apart(tmp_path: Path) -> None:
    """Ids sharing their first 9 characters keep as many as tell them apart (the fixed
    9-character cut showed ``0199812e-…`` twice); ids that fit are shown whole."""
    a = _session_calls(tmp_path / "a.jsonl", "0199812e-64f0-7f73-91fc")
    b = _session_calls(tmp_path / "b.jsonl", "0199812e-7a10-7f73-91fc")
    rows = CliRunner().invoke(main, ["summarize", str(a), str(b)]).stdout.splitlines()[3:5]
    assert [row.split()[0] for row in rows] == ["0199812e-6…", "0199812e-7…"]
    c = _session_calls(tmp_path / "c.jsonl", "run-2026-11-30-a")
    d = _session_calls(tmp_path / "d.jsonl", "run-2026-11-30-b")
    for command in ("summarize", "waves"):
        out = CliRunner().invoke(main, [command, str(c), str(d)]).stdout
        assert "\nrun-2026-11-30-a main " in out and "\nrun-2026-11-30-b main " in out


def test_show_paths_traces_each_row_to_its_input(tmp_path: Path) -> None:
    """--show-paths lists every row's full session/lane id, its format and its input."""
    a = _session_calls(tmp_path / "a.jsonl", "session-one-with-a-long-id")
    for command in ("summarize", "waves"):
        result = CliRunner().invoke(main, [command, "--show-paths", str(a)])
        assert result.exit_code == 0
        assert result.stdout.endswith(
            "\nrows: session/lane (format): input\n"
            f"  session-one-with-a-long-id/main (events): {a}\n"
        )


CODEX = ("agentcmd/codex/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5"
         ".jsonl")


@needs_corpus
def test_identical_inputs_are_read_once(tmp_path: Path) -> None:
    """``x.jsonl`` and ``x.jsonl.gz`` with the same content: one row (16 calls), not a
    doubled total; stderr, the header and JSON say the copy was read once."""
    import gzip

    content = (CORPUS / CODEX).read_bytes()
    (tmp_path / "x.jsonl").write_bytes(content)
    (tmp_path / "x.jsonl.gz").write_bytes(gzip.compress(content))
    result = CliRunner().invoke(main, ["summarize", str(tmp_path)])
    assert result.exit_code == 0
    assert result.stdout.startswith(
        "inputs: 1 codex (auto-detected); 1 the same as another input, read once\n")
    assert "\ntotal      1 lane        16 " in result.stdout
    assert result.stderr == (f"wavemetrics: note: {tmp_path / 'x.jsonl.gz'}: the same content"
                             f" as {tmp_path / 'x.jsonl'}, read once\n")
    document = json.loads(CliRunner().invoke(
        main, ["summarize", "--format", "json", str(tmp_path)]).stdout)
    assert document["total"]["paired_calls"] == 16
    assert document["same_content"] == [
        {"path": str(tmp_path / "x.jsonl.gz"), "same_as": str(tmp_path / "x.jsonl")}]
    assert document["inputs"][1]["format"] == "duplicate"


@needs_corpus
def test_the_same_path_named_twice_is_read_once() -> None:
    """A file named twice on the command line gives one row."""
    path = str(CORPUS / CODEX)
    result = CliRunner().invoke(main, ["summarize", "--format", "json", path, path])
    assert len(json.loads(result.stdout)["lanes"]) == 1


def test_a_session_lane_from_two_inputs_is_noted(tmp_path: Path) -> None:
    """Two different files carrying session s / lane main: each counted, and the table,
    stderr and JSON say the session/lane came from two inputs."""
    a = _session_calls(tmp_path / "a.jsonl", "s")
    b = _events_file(tmp_path / "b.jsonl", [
        {"type": "tool_execution_start", "toolCallId": "z", "toolName": "grep",
         "timestamp": 5, "sessionId": "s"},
        {"type": "tool_execution_end", "toolCallId": "z", "toolName": "grep",
         "timestamp": 9, "sessionId": "s"},
    ])
    result = CliRunner().invoke(main, ["summarize", str(a), str(b)])
    assert result.exit_code == 0
    assert ("repeated: 1 session/lane read from 2+ inputs, counted per input (--show-paths)\n"
            in result.stdout)
    assert result.stderr == (f"wavemetrics: note: s/main was read from 2 inputs ({a}, {b});"
                             " each is counted\n")
    document = json.loads(CliRunner().invoke(
        main, ["summarize", "--format", "json", str(a), str(b)]).stdout)
    assert document["repeated_lanes"] == [
        {"session_id": "s", "lane_id": "main", "paths": [str(a), str(b)]}]
    assert "repeated_lanes" not in json.loads(CliRunner().invoke(
        main, ["summarize", "--format", "json", str(a)]).stdout)


@needs_corpus
def test_a_wrong_input_format_is_an_error_exit_1() -> None:
    """Every line of a Codex rollout read as codex-tui is a problem: an error for that
    input (exit 1, as efficiency_axis calls it failed), not a table of zeros."""
    path = CORPUS / CODEX
    result = CliRunner().invoke(main, ["summarize", "--input-format", "codex-tui", str(path)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"wavemetrics: error: {path}: no usable record: 112 lines read as codex-tui, 112 not"
        " usable (missing_kind 112), none used; is --input-format codex-tui right?"
        " (auto detects the format)\n"
    )
    document = json.loads(CliRunner().invoke(
        main, ["summarize", "--format", "json", "--input-format", "codex-tui", str(path)]).stdout)
    (report,) = document["inputs"]
    assert (report["lines_read"], report["problems"]) == (112, {"missing_kind": 112})


@needs_corpus
def test_gzip_on_stdin_is_detected_by_its_magic_bytes() -> None:
    """``gzip -c f | wavemetrics summarize -`` reads the session (5 calls), not an error."""
    import gzip

    data = gzip.compress((CORPUS / "agentcmd" / "claude" / "full-session-five.jsonl").read_bytes())
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "-"], input=data)
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["inputs"][0]["format"] == "claude-code"
    assert document["total"]["paired_calls"] == 5


def test_gzip_without_the_suffix_is_read(tmp_path: Path) -> None:
    """A gzipped file whose name does not end in .gz is decompressed too."""
    import gzip

    plain = _session_calls(tmp_path / "s.jsonl", "s")
    packed = tmp_path / "packed.jsonl"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    document = json.loads(CliRunner().invoke(
        main, ["summarize", "--format", "json", str(packed)]).stdout)
    assert document["total"]["paired_calls"] == 1


def test_folder_without_trace_file_message_lists_every_suffix_read(tmp_path: Path) -> None:
    """A folder whose files are none a trace names every suffix a folder walk reads, .gz
    and .eval too, and exits 1 (it holds something, but not what wavemetrics reads)."""
    (tmp_path / "readme.txt").write_text("notes\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["summarize", str(tmp_path)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"wavemetrics: error: {tmp_path}: no trace files in this directory (read: *.jsonl,"
        " *.json, *.jsonl.gz, *.json.gz, *.eval, *.traj, *.db, *.sqlite)\n"
    )


EMPTY_TABLE = (
    "inputs: 1 empty input\n"
    "\n"
    "session    lane       calls waves multi    rt  eval mixed   saved s   upper s\n"
    + "-" * 77 + "\n"
    "total      0 lanes        0     0     0     0     0     0      0.00      0.00\n"
)


@pytest.mark.parametrize("command", ["summarize", "waves"])
@pytest.mark.parametrize("how", ["stdin", "file", "folder", "nested folders"])
def test_nothing_to_measure_is_one_case_however_it_arrives(
    tmp_path: Path, command: str, how: str
) -> None:
    """Empty standard input, an empty file and a folder with no files at all (its
    sub-folders empty too) are all an empty input: exit 0 and a note, never an error."""
    stdin = None
    if how == "stdin":
        path, stdin, what = "-", "", "empty input"
    elif how == "file":
        path, what = str(tmp_path / "e.jsonl"), "empty input"
        (tmp_path / "e.jsonl").write_bytes(b"")
    else:
        folder = tmp_path / "traces"
        (folder / "a" / "b" if how == "nested folders" else folder).mkdir(parents=True)
        path, what = str(folder), "empty folder (no files in it)"
    result = CliRunner().invoke(main, [command, "--no-cache", path], input=stdin)
    assert result.exit_code == 0
    assert result.stderr == f"wavemetrics: note: {path}: {what}\n"
    if command == "summarize":
        assert result.stdout.startswith(EMPTY_TABLE)
    else:
        assert result.stdout.endswith("\n(no waves: no paired tool calls)\n")


def test_empty_folder_is_an_empty_input_in_json(tmp_path: Path) -> None:
    """An empty folder is listed in the JSON inputs with format "empty" and no error."""
    result = CliRunner().invoke(main, ["summarize", "--no-cache", "--format", "json",
                                       str(tmp_path)])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["inputs"] == [{
        "path": str(tmp_path), "format": "empty", "lines_read": 0, "lines_used": 0,
        "lines_ignored": 0, "problems": {}, "ignored": {}, "notes": {}, "error": None,
    }]


def test_folder_of_empty_folders_and_a_link_is_not_empty(tmp_path: Path) -> None:
    """A link (even to a folder, which the walk does not follow) is something in the
    folder: with no trace file found, it stays the error it was (exit 1)."""
    (tmp_path / "target").mkdir()
    folder = tmp_path / "traces"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "link").symlink_to(tmp_path / "target")
    result = CliRunner().invoke(main, ["summarize", "--no-cache", str(folder)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"wavemetrics: error: {folder}: no trace files")


def test_option_names_spelled_for_the_cli_equal_their_sources() -> None:
    """wavemetrics.cli._names mirrors the cap and compare's defaults; its lazy choices are
    the registry's formats and compare's metrics."""
    from wavemetrics.cli import _names
    from wavemetrics.core import observations
    from wavemetrics.readers import dispatch as readers
    from wavemetrics.readers import limits
    from wavemetrics.views import compare

    assert _names.AUTO == readers.AUTO
    assert _names.DEFAULT_MAX_TRACKED_CALLS == observations.DEFAULT_MAX_TRACKED_CALLS
    assert (_names.DEFAULT_MAX_LINE_BYTES, _names.DEFAULT_MAX_DOCUMENT_BYTES) == (
        limits.DEFAULT_MAX_LINE_BYTES, limits.DEFAULT_MAX_DOCUMENT_BYTES)
    assert list(_names.input_format_choice().choices) == [readers.AUTO, *readers.FORMATS]
    assert list(_names.metric_choice().choices) == list(compare.METRICS)
    from wavemetrics.run import native

    assert (_names.ENGINES, _names.default_engine()) == (native.ENGINES, native.default_engine())
    assert (_names.DEFAULT_METRIC, _names.DEFAULT_RESAMPLES, _names.DEFAULT_CONFIDENCE,
            _names.DEFAULT_SEED) == (compare.DEFAULT_METRIC, compare.DEFAULT_RESAMPLES,
                                     compare.DEFAULT_CONFIDENCE, compare.DEFAULT_SEED)


def test_help_imports_no_reader_and_no_core_module() -> None:
    """`wavemetrics --help` loads click and the CLI only: readers and the core come lazily."""
    import subprocess
    import sys

    code = ("import sys; from wavemetrics.cli.commands import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('wavemetrics')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    loaded = done.stdout.strip().splitlines()[-1]
    # _suffixes, _eval_names and _cores (--jobs's default): leaf modules with no imports
    # of their own but os; _options (the option table: no import beyond those
    # leaves); notes (the stderr notes' wording), plain (which output a run prints:
    # notes only) and the walk's _files and _paths: the standard library only
    # the layer folders of those modules load too: each __init__.py is a docstring alone
    assert loaded == str([
        "wavemetrics", "wavemetrics.cli", "wavemetrics.cli._names",
        "wavemetrics.cli.commands", "wavemetrics.core", "wavemetrics.core._eval_names",
        "wavemetrics.core.classify", "wavemetrics.inputs", "wavemetrics.inputs._files",
        "wavemetrics.inputs._paths", "wavemetrics.inputs._suffixes", "wavemetrics.run",
        "wavemetrics.run._cores", "wavemetrics.run._options", "wavemetrics.views",
        "wavemetrics.views.escaping", "wavemetrics.views.notes", "wavemetrics.views.plain",
    ])


def test_native_summarize_of_claude_code_imports_no_other_format_reader() -> None:
    """A native ``summarize --no-cache`` of a Claude Code file through the CLI imports the
    reader of the one format it read and no other's, not even the other format the native
    engine reads (its list comes from the registry's rows, which import no reader). With
    ``--max-line-bytes`` given (at its default value), which the native command does
    not take: without it the native command runs with no reader at all
    (tests/test_fastpath.py)."""
    import subprocess
    import sys

    from wavemetrics.run import native

    if not native.available():
        pytest.skip("the Rust extension is not built")
    code = ("import sys\nsys.argv = ['wavemetrics', 'summarize', '--no-cache',"
            f" '--max-line-bytes', '67108864', {str(EXAMPLE)!r}]\n"
            "from wavemetrics.cli._entry import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('wavemetrics.readers.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    loaded = done.stdout.strip().splitlines()[-1]
    # claude_code: the format read; the rest are the registry, detection (dispatch) and
    # what every reader shares (limits, timestamps...), not formats
    assert loaded == str(["wavemetrics.readers._lines", "wavemetrics.readers._protocol",
                          "wavemetrics.readers._record_types", "wavemetrics.readers._report",
                          "wavemetrics.readers._seen",
                          "wavemetrics.readers._uuids", "wavemetrics.readers.claude_code",
                          "wavemetrics.readers.dispatch", "wavemetrics.readers.lanes",
                          "wavemetrics.readers.limits", "wavemetrics.readers.registry",
                          "wavemetrics.readers.sources", "wavemetrics.readers.timestamps"])


def test_version_is_the_one_written_in_pyproject() -> None:
    """``--version`` prints the version pyproject.toml declares (read from the metadata)."""
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    versions = re.findall(r'^version = "([^"]+)"$', pyproject, flags=re.M)
    assert len(versions) == 1
    version = versions[0]
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"wavemetrics, version {version}\n"


# One row per format: a corpus file, its input report and its lanes' figures. The
# figures were worked out for each format's reader tests (by hand from the file
# or the contract) and pin the whole path: detection, reader, sink, core, JSON.
# (id, corpus path, (format, lines_read, lines_used, lines_ignored, problems),
#  extra input fields, [expected lane fields, in lane order])
_HISTOGRAM = "non_eval_wave_size_histogram"
CORPUS_CLI_CASES: list[tuple[str, str, tuple[Any, ...], dict[str, Any], list[dict[str, Any]]]] = [
    (
        "codex",
        "localpush/rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl",
        ("codex", 837, 288, 549, {}), {},
        [{"session_id": "019c8a53-a0dd-7130-bcd7-95445d84846a", "lane_id": "main",
          "observed_calls": 144, "paired_calls": 143, "incomplete_calls": 1,
          "non_eval_waves_total": 77, "non_eval_waves_multi": 25, _HISTOGRAM: "52:3:3:19:0:0:0:0",
          "modeled_wallclock_saved_ms": 9045.0, "upper_bound_saved_ms": 9523.75,
          "non_eval_saved_round_trips": 66}],
    ),
    (
        "codex-tui",
        "openai-codex/binary-size-log.jsonl",
        ("codex-tui", 24109, 66, 24043, {}), {},
        [{"session_id": "d126e3d0-80ed-480a-be8c-09d97ff602cf", "lane_id": "main",
          "observed_calls": 19, "paired_calls": 19, "incomplete_calls": 0,
          "non_eval_waves_total": 19, _HISTOGRAM: "19:0:0:0:0:0:0:0",
          "modeled_wallclock_saved_ms": 0.0, "upper_bound_saved_ms": 0.0,
          "non_eval_saved_round_trips": 0},
         {"session_id": "c7df96da-daec-4fe9-aed9-3cd19b7a6192", "lane_id": "main",
          "observed_calls": 13, "paired_calls": 13, "incomplete_calls": 0,
          "non_eval_waves_total": 13, _HISTOGRAM: "13:0:0:0:0:0:0:0",
          "modeled_wallclock_saved_ms": 0.0, "upper_bound_saved_ms": 0.0,
          "non_eval_saved_round_trips": 0}],
    ),
    (
        "pi",
        "pi-mono/before-compaction.jsonl",
        ("pi", 1003, 886, 117, {}), {"notes": {"reconstructed_starts": 15}},
        # pi ran the calls of a message one after another (tests/test_readers_pi.py): its 8
        # multi-call waves touch, saving 0; upper bound (n - 1) x span / n per wave
        [{"session_id": "ffae836b-9420-4060-ac13-7745215f90ff", "lane_id": "main",
          "observed_calls": 454, "paired_calls": 448, "incomplete_calls": 6,
          "non_eval_waves_total": 433, "non_eval_waves_multi": 8, _HISTOGRAM: "425:3:3:2:0:0:0:0",
          "modeled_wallclock_saved_ms": 0.0,
          "upper_bound_saved_ms": 7 + 38 * 2 / 3 + 25 * 2 / 3 + 23 * 2 / 3 + 7 + 16.5 + 16.5 + 15,
          "non_eval_saved_round_trips": 0}],
    ),
    (
        "otlp",
        "opentelemetry-proto/trace.json",
        ("otlp", 1, 0, 1, {}), {"ignored": {"non_tool_span": 1}, "error": None},
        # no tool span, so no lane (docs/formats.md 2026: no 0-call lanes from span readers)
        [],
    ),
    (
        "otel-spans",
        "any-agent/GOOGLE_trace.json",
        ("otel-spans", 7, 3, 4, {}), {},
        [{"session_id": "cdbd7b99cef221c28dd6d03c27d09b4c", "lane_id": "main",
          "observed_calls": 3, "paired_calls": 3, "non_eval_waves_total": 3,
          _HISTOGRAM: "3:0:0:0:0:0:0:0", "modeled_wallclock_saved_ms": 0.0,
          "upper_bound_saved_ms": 0.0, "tool_time_ms": 8.4033203125}],
    ),
    (
        "inspect",
        "inspect_ai/2025-05-12T20-27-36-04-00_browser.json",
        ("inspect", 43, 4, 39, {}),
        {"ignored": {"model": 5, "sample_init": 1, "sandbox": 10, "score": 1, "span_begin": 8,
                     "span_end": 8, "state": 2, "store": 4}},
        [{"session_id": "ZB2vu5GNujYaBdPSReCeop/1/1", "lane_id": "main",
          "observed_calls": 4, "paired_calls": 4, "non_eval_waves_total": 4,
          _HISTOGRAM: "4:0:0:0:0:0:0:0", "modeled_wallclock_saved_ms": 0.0,
          "upper_bound_saved_ms": 0.0, "tool_time_ms": 9860.18896484375}],
    ),
]


@needs_corpus
@pytest.mark.parametrize(
    ("path", "report", "extra", "lanes"),
    [pytest.param(*case[1:], id=case[0]) for case in CORPUS_CLI_CASES],
)
def test_summarize_json_on_a_corpus_file_of_each_format(
    path: str, report: tuple[Any, ...], extra: dict[str, Any], lanes: list[dict[str, Any]]
) -> None:
    """``summarize --format json`` detects each format's corpus file and reports its lines and lanes."""
    result = CliRunner().invoke(main, ["summarize", "--format", "json", str(CORPUS / path)])
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    (entry,) = document["inputs"]
    assert (entry["format"], entry["lines_read"], entry["lines_used"], entry["lines_ignored"],
            entry["problems"]) == report
    assert {key: entry[key] for key in extra} == extra
    assert [{key: lane[key] for key in expected}
            for lane, expected in zip(document["lanes"], lanes, strict=True)] == lanes
    assert len(document["lanes"]) == len(lanes)


#: Formats with no real file in the corpus (verified against their documented schema,
#: docs/formats.md): their CLI cases run on the fixtures their reader's tests write.
NO_CORPUS_FILE = frozenset({"mcode", "copilot", "kimi", "openclaw", "qwen", "opencode",
                            "opencode-storage"})


def test_every_format_has_a_corpus_cli_case() -> None:
    """The per-format CLI table covers every format (claude-code and events have their own
    CLI tests, formats with no real file theirs on fixtures)."""
    from wavemetrics.readers.dispatch import FORMATS

    assert {case[0] for case in CORPUS_CLI_CASES} == (
        set(FORMATS) - {"events", "claude-code"} - NO_CORPUS_FILE)


def test_every_public_name_resolves_on_first_use() -> None:
    """`import wavemetrics` is lazy, yet every name of __all__ is there when asked for."""
    import wavemetrics

    assert all(getattr(wavemetrics, name) is not None for name in wavemetrics.__all__)
    assert set(dir(wavemetrics)) == set(wavemetrics.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        wavemetrics.nope  # noqa: B018


def test_waves_json_writes_null_for_figures_that_overflow(tmp_path: Path) -> None:
    """Two calls of about 1.7e308 ms in one wave: their summed time overflows, so the wave's
    saving is ``null`` in ``waves --format json`` (valid JSON), as in summarize."""
    path = tmp_path / "huge.jsonl"
    events = [("tool_execution_start", "a", 0), ("tool_execution_start", "b", 1),
              ("tool_execution_end", "a", 1.7e308), ("tool_execution_end", "b", 1.7e308)]
    path.write_text("".join(
        json.dumps({"type": kind, "toolCallId": call, "toolName": "read", "timestamp": at}) + "\n"
        for kind, call, at in events), encoding="utf-8")
    code, document, _ = _run("waves", "--format", "json", str(path))
    assert code == 0
    rows = document["waves"]
    assert [(r["size"], r["span_ms"], r["modeled_wallclock_saved_ms"]) for r in rows] == [
        (2, 1.7e308, None)]
    code, document, _ = _run("summarize", "--format", "json", str(path))
    assert code == 0
    assert document["total"]["modeled_wallclock_saved_ms"] is None
    code, table, _ = _run("waves", str(path))
    assert code == 0
    assert "n/a" in table


def test_jsonl_keeps_lanes_whose_waves_are_all_eval_only_or_mixed(tmp_path: Path) -> None:
    """A lane of only an eval_only wave and a lane of only a mixed wave each get a payload."""
    path = _events(tmp_path, [
        _ev("tool_execution_start", "e", "eval", 1000, agentId="ev"),
        _ev("tool_execution_end", "e", "eval", 1200, agentId="ev"),
        _ev("tool_execution_start", "m", "eval", 2000, agentId="mx"),
        _ev("tool_execution_start", "r", "read", 2100, agentId="mx"),
        _ev("tool_execution_end", "r", "read", 2150, agentId="mx"),
        _ev("tool_execution_end", "m", "eval", 2300, agentId="mx"),
    ])
    code, out, _ = _run("summarize", "--format", "jsonl", path)
    assert code == 0
    payloads = [json.loads(line) for line in out.splitlines()]
    assert [p["$session_id"] for p in payloads] == [
        hashlib.sha256(b'["s1","ev"]').hexdigest(), hashlib.sha256(b'["s1","mx"]').hexdigest()]
    # ev: one eval_only wave of span 200 ms; mx: one mixed wave, never counted
    assert [(p["eval_only_waves"], p["eval_only_duration_ms"], p["mixed_waves"],
             p["non_eval_waves_total"], p["modeled_wallclock_saved_ms"]) for p in payloads] == [
        (1, 200.0, 0, 0, 0.0), (0, 0.0, 1, 0, 0.0)]


def test_waves_with_a_missing_input_exits_1_and_lists_the_good_waves(tmp_path: Path) -> None:
    """``waves good.jsonl /missing`` names the missing path and exits 1, like summarize."""
    good = _events(tmp_path, PARALLEL)
    missing = str(tmp_path / "missing")
    code, document, err = _run("waves", "--format", "json", good, missing)
    assert code == 1
    assert err == f"wavemetrics: error: {missing}: no such file or directory\n"
    assert [(r["start_ms"], r["size"]) for r in document["waves"]] == [(1000.0, 2), (3000.0, 1)]
    code, _, _ = _run("waves", good, missing)
    assert code == 1


#: Hostile text for the issue-13 outputs: ESC (a terminal escape) and U+202E (RIGHT-TO-LEFT
#: OVERRIDE). A lane id may hold U+202E but not ESC (an id with a control character is the
#: problem invalid_id), so ESC goes in the tool name and in the pi session's cwd.
_EVIL_LANE = "ev\u202eil"
_EVIL_TOOL = "gr\x1b[2Jep\u202e"
_EVIL_CWD = "/p/\x1b[2J\u202eevil"


def _no_raw_escape(text: str) -> bool:
    return "\x1b" not in text and "\u202e" not in text


def test_issue_13_text_outputs_escape_esc_and_rlo(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """--by tables, the stderr line naming a default folder, cache info and the status line
    show ESC and U+202E escaped (\\x1b, \\u202e); CSV keeps values as they are (data) in a
    file or pipe and escapes them on a terminal."""
    from wavemetrics.cli import commands as cli
    from wavemetrics.inputs import _stdin

    monkeypatch.setenv("WAVEMETRICS_CACHE_DIR", str(tmp_path / "cache\x1b[2J\u202e"))
    trace = _events(tmp_path, [
        _ev("tool_execution_start", "a", "read", 1000, agentId=_EVIL_LANE),
        _ev("tool_execution_start", "b", _EVIL_TOOL, 1100, agentId=_EVIL_LANE),
        _ev("tool_execution_end", "b", _EVIL_TOOL, 1400, agentId=_EVIL_LANE),
        _ev("tool_execution_end", "a", "read", 2000, agentId=_EVIL_LANE),
    ])
    code, by_lane, err = _run("summarize", "--by", "lane", "--jobs", "1", trace)
    assert code == 0 and _no_raw_escape(by_lane + err)
    assert "ev\\u202eil" in by_lane
    code, by_tool, err = _run("summarize", "--by", "tool", "--jobs", "1", trace)
    assert code == 0 and _no_raw_escape(by_tool + err)
    assert "gr\\x1b[2Jep\\u202e " in by_tool
    # CSV is data, like JSON: the exact name, for a csv reader (docs/cli.md, "Escaping")
    code, csv_text, _ = _run("summarize", "--by", "tool", "--format", "csv", "--jobs", "1", trace)
    # (click's test runner shows the \r\n line ends as \n)
    assert code == 0 and f"\ngroup,tool,{_EVIL_TOOL},1,1,300.0,300.0,0.0," in csv_text
    # ... but on a terminal it is escaped like the tables, so it cannot drive the terminal
    monkeypatch.setattr(cli, "stdout_is_terminal", lambda: True)
    code, csv_text, _ = _run("summarize", "--by", "tool", "--format", "csv", "--jobs", "1", trace)
    assert code == 0 and _no_raw_escape(csv_text)
    assert "\ngroup,tool,gr\\x1b[2Jep\\u202e,1,1,300.0,300.0,0.0," in csv_text
    monkeypatch.setattr(cli, "stdout_is_terminal", lambda: False)
    pi = tmp_path / "pi" / "session.jsonl"
    pi.parent.mkdir()
    pi.write_text("".join(json.dumps(r) + "\n" for r in [
        {"type": "session", "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": _EVIL_CWD},
        {"type": "message", "timestamp": "2026-01-01T00:00:00.000Z", "message": {
            "role": "assistant", "content": [{"type": "toolCall", "id": "t1", "name": "bash",
                                              "arguments": {}}]}},
        {"type": "message", "timestamp": "2026-01-01T00:00:01.000Z", "message": {
            "role": "toolResult", "toolName": "bash", "toolCallId": "t1", "content": []}},
    ]), encoding="utf-8")
    code, by_project, err = _run("summarize", "--by", "project", "--jobs", "1", str(pi))
    assert code == 0 and _no_raw_escape(by_project + err)
    assert "/p/\\x1b[2J\\u202eevil" in by_project
    # no PATH on a terminal: the Codex folder read is named on stderr, escaped
    codex = tmp_path / "co\x1b]8;;dex\u202e"
    write_events(codex / "sessions" / "s.jsonl", TWO_LANES)
    monkeypatch.setattr(_stdin, "stdin_is_terminal", lambda: True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("CODEX_HOME", str(codex))
    code, _, err = _run("summarize", "--jobs", "1")
    shown = str(codex / "sessions").replace("\x1b", "\\x1b").replace("\u202e", "\\u202e")
    assert code == 0 and _no_raw_escape(err)
    assert err.splitlines()[0] == f"wavemetrics: reading {shown} (Codex)"
    code, info, _ = _run("cache", "info")
    assert code == 0 and _no_raw_escape(info)
    assert info.splitlines()[0].startswith(f"path: {tmp_path}/cache\\x1b[2J\\u202e")
    # the status line holds figures only, and goes through the same escaping
    result = CliRunner().invoke(main, ["statusline"],
                                input=json.dumps({"transcript_path": trace}))
    assert result.exit_code == 0
    assert result.stdout == "waves 1 · multi 1 · saved 0.3s\n"


IDEAS = "claude-code-log/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
ROLLOUT = "localpush/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"


@needs_corpus
def test_waves_says_the_window_excluded_every_wave() -> None:
    """A window after the session (2 waves of 2 paired calls, one lane) is not "no paired
    tool calls": the table and a note say the window excluded them; exit 0 as summarize."""
    path = CORPUS / IDEAS
    result = CliRunner().invoke(main, ["waves", "--since", "2030-01-01", "--timezone", "UTC",
                                       str(path)])
    assert result.exit_code == 0
    # the window named first, as summarize's table names it, then the header and the line
    assert result.stdout.splitlines()[:3] == [
        "options: --since 2030-01-01T00:00:00+00:00 --timezone UTC (only the waves that",
        "  start in this window)", ""]
    assert result.stdout.splitlines()[4:] == ["(no waves in the --since/--until window)"]
    assert result.stderr == (
        "wavemetrics: note: the window --since 2030-01-01 excluded every wave: 2 waves"
        " (2 paired calls, in 1 lane) start outside it\n")
    summary = CliRunner().invoke(
        main, ["summarize", "--format", "json", "--until", "2020-01-01", str(path)])
    assert summary.exit_code == 0
    assert json.loads(summary.stdout)["total"]["waves_total"] == 0
    assert summary.stderr == (
        "wavemetrics: note: the window --until 2020-01-01 excluded every wave: 2 waves"
        " (2 paired calls, in 1 lane) start outside it\n")


def test_an_empty_trace_in_a_window_is_still_no_paired_calls(tmp_path: Path) -> None:
    """With no paired call at all, the window has nothing to exclude: the usual line, no note."""
    path = _events_file(tmp_path / "s.jsonl", [
        {"type": "tool_execution_start", "toolCallId": "a", "toolName": "read", "timestamp": 1},
    ])
    result = CliRunner().invoke(main, ["waves", "--since", "1970-01-01", "--timezone", "UTC",
                                       str(path)])
    # the options line names the window (3 lines with its blank), then the header
    assert result.stdout.splitlines()[4:] == ["(no waves: no paired tool calls)"]
    assert "window" not in result.stderr


@needs_corpus
def test_old_layout_sub_agent_files_without_their_session_are_noted() -> None:
    """The coderabbit folder holds only ``agent-<8hex>.jsonl`` files (Claude Code 1.0.x-2.0.x)
    of session 741790a4-…, whose own file is absent: the missing main lane is noted."""
    folder = CORPUS / "claude-code-log" / "-Users-dain-workspace-coderabbit-review-helper"
    session = "741790a4-4fe2-4644-9a51-fb4482074060"
    result = CliRunner().invoke(main, ["summarize", str(folder)])
    assert result.exit_code == 0
    assert result.stderr == (
        f"wavemetrics: note: session {session}: 5 sub-agent files (agent-<8hex>.jsonl) read"
        f" without the session's own file (no {session}.jsonl in {folder}): the main lane"
        " is missing\n")


@needs_corpus
def test_old_layout_sub_agent_file_with_its_session_file_is_not_noted(tmp_path: Path) -> None:
    """With ``<sessionId>.jsonl`` beside the agent file (its main lane read), no note; named
    alone, the agent file gets the note naming the session file that was not read."""
    session = "741790a4-4fe2-4644-9a51-fb4482074060"
    source = CORPUS / "claude-code-log" / "-Users-dain-workspace-coderabbit-review-helper"
    agent = tmp_path / "agent-9fa17969.jsonl"
    agent.write_bytes((source / "agent-9fa17969.jsonl").read_bytes())
    main_file = tmp_path / f"{session}.jsonl"
    main_file.write_text(json.dumps({
        "type": "user", "uuid": "u0", "sessionId": session,
        "timestamp": "2025-11-13T10:00:00.000Z", "message": {"content": "hello"}}) + "\n",
        encoding="utf-8")
    folder = CliRunner().invoke(main, ["summarize", str(tmp_path)])
    # the hand-made session file has one line and no tool call: that note only
    assert (folder.exit_code, folder.stderr) == (0, (
        f"wavemetrics: note: {main_file}: no tool calls found in 1 line read as claude-code\n"))
    alone = CliRunner().invoke(main, ["summarize", str(agent)])
    assert alone.stderr == (
        f"wavemetrics: note: session {session}: 1 sub-agent file (agent-<8hex>.jsonl) read"
        f" without the session's own file ({main_file} was not read): the main lane is"
        " missing\n")


def _old_layout_projects(root: Path, count: int) -> list[Path]:
    """``count`` project folders under ``root``, each holding one old-layout agent file
    (the coderabbit session's ``agent-9fa17969.jsonl``) of its own session id."""
    source = CORPUS / "claude-code-log" / "-Users-dain-workspace-coderabbit-review-helper"
    text = (source / "agent-9fa17969.jsonl").read_text(encoding="utf-8")
    folders = []
    for number in range(count):
        folder = root / f"p{number}"
        folder.mkdir()
        session = f"00000000-0000-4000-8000-00000000000{number}"
        (folder / "agent-9fa17969.jsonl").write_text(
            text.replace("741790a4-4fe2-4644-9a51-fb4482074060", session), encoding="utf-8")
        folders.append(folder)
    return folders


@needs_corpus
def test_old_layout_notes_for_three_sessions_stay_one_a_session(tmp_path: Path) -> None:
    """Up to three sessions missing their main lane get a note each, in the order read."""
    folders = _old_layout_projects(tmp_path, 3)
    result = CliRunner().invoke(main, ["summarize", str(tmp_path)])
    assert (result.exit_code, result.stderr) == (0, "".join(
        f"wavemetrics: note: session 00000000-0000-4000-8000-00000000000{n}: 1 sub-agent file"
        f" (agent-<8hex>.jsonl) read without the session's own file (no"
        f" 00000000-0000-4000-8000-00000000000{n}.jsonl in {folders[n]}): the main lane is"
        " missing\n" for n in range(3)))


@needs_corpus
def test_old_layout_notes_for_four_sessions_become_one_line(tmp_path: Path) -> None:
    """Four sessions missing their main lane get one line naming three folders and how many
    more; ``--show-paths`` brings back the four notes, and ``timeline`` (no such option)
    does not point to it."""
    folders = _old_layout_projects(tmp_path, 4)
    line = (
        "wavemetrics: note: 4 sessions read only from 4 sub-agent files (agent-<8hex>.jsonl)"
        " without the session's own file: their main lanes are missing (in 4 folders:"
        f" {folders[0]}, {folders[1]}, {folders[2]} and 1 more")
    result = CliRunner().invoke(main, ["summarize", str(tmp_path)])
    assert (result.exit_code, result.stderr) == (
        0, line + "; --show-paths notes each session)\n")
    waves = CliRunner().invoke(main, ["waves", "--format", "json", str(tmp_path)])
    assert waves.stderr == line + "; --show-paths notes each session)\n"
    every = CliRunner().invoke(main, ["summarize", "--show-paths", str(tmp_path)])
    assert every.stderr.splitlines() == [
        f"wavemetrics: note: session 00000000-0000-4000-8000-00000000000{n}: 1 sub-agent file"
        f" (agent-<8hex>.jsonl) read without the session's own file (no"
        f" 00000000-0000-4000-8000-00000000000{n}.jsonl in {folders[n]}): the main lane is"
        " missing" for n in range(4)]
    pytest.importorskip("matplotlib")
    timeline = CliRunner().invoke(main, ["timeline", "-o", str(tmp_path / "t.png"),
                                         str(tmp_path)])
    assert timeline.stderr.splitlines()[0] == line + ")"


@needs_corpus
@pytest.mark.parametrize(("forced", "relative", "detected", "lines"), [
    ("events", ROLLOUT, "codex", 63),
    ("claude-code", ROLLOUT, "codex", 63),
    ("codex", IDEAS, "claude-code", 61),
    ("pi", ROLLOUT, "codex", 63),
    ("otlp", ROLLOUT, "codex", 63),
    ("otel-spans", "opentelemetry-proto/trace.json", "otlp", 1),
    ("inspect", IDEAS, "claude-code", 61),
])
def test_every_line_ignored_under_a_forced_format_names_the_likely_one(
    forced: str, relative: str, detected: str, lines: int,
) -> None:
    """A forced --input-format that ignores every line of a real file as foreign (auto-detection
    names another format) makes that input unusable: exit 1, under both engines and in
    ``waves`` too, with an error naming the format auto-detection finds.
    (codex-tui reads no corpus file this way: every line it cannot use is a problem, an
    error with its own hint, tests above.)"""
    path = CORPUS / relative
    want = (f"wavemetrics: error: {path}: no usable record: every line ({lines}) was ignored"
            f" as a record type that --input-format {forced} does not read; it looks like"
            f" {detected}: try --input-format {detected} or auto\n")
    for command in (["summarize", "--engine", "python"], ["summarize", "--engine", "native"],
                    ["waves"]):
        if "native" in command and not native_available():
            continue
        result = CliRunner().invoke(main, [*command, "--input-format", forced, str(path)])
        assert (result.exit_code, result.stderr) == (1, want), command


@needs_corpus
def test_right_forced_format_without_tool_calls_keeps_the_plain_note() -> None:
    """The OTLP example read as otlp (its own format) ignores its one span line: auto-detection
    agrees, so the note is the plain "no tool calls found" one, not the warning."""
    path = CORPUS / "opentelemetry-proto" / "trace.json"
    result = CliRunner().invoke(main, ["summarize", "--input-format", "otlp", str(path)])
    assert (result.exit_code, result.stderr) == (0, (
        f"wavemetrics: note: {path}: no tool calls found in 1 line read as otlp; is"
        " --input-format otlp right? (auto detects the format)\n"))


def test_every_line_ignored_in_a_file_of_no_format_says_so(tmp_path: Path) -> None:
    """A JSONL file of records no format reads, forced as events: every line ignored, and
    auto-detection recognises nothing either: exit 1."""
    path = tmp_path / "x.jsonl"
    path.write_text('{"type": "hello"}\n{"type": "world"}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["summarize", "--input-format", "events", str(path)])
    assert (result.exit_code, result.stderr) == (1, (
        f"wavemetrics: error: {path}: no usable record: every line (2) was ignored as a record"
        " type that --input-format events does not read, and auto-detection recognises no"
        " format in it\n"))


# an events log of one call: every line foreign to --input-format codex (auto: events)
_ONE_CALL_EVENTS = (
    '{"type": "tool_execution_start", "toolCallId": "a", "toolName": "read", "timestamp": 1}\n'
    '{"type": "tool_execution_end", "toolCallId": "a", "toolName": "read", "timestamp": 9}\n')


def test_standard_input_foreign_to_a_forced_format_exits_1() -> None:
    """Standard input is read once: its first lines, peeked by detection, decide (they look
    like events), so a script piping a trace under the wrong format sees exit 1 too."""
    result = CliRunner().invoke(main, ["summarize", "--input-format", "codex", "-"],
                                input=_ONE_CALL_EVENTS)
    assert (result.exit_code, result.stderr) == (1, (
        "wavemetrics: error: -: no usable record: every line (2) was ignored as a record type"
        " that --input-format codex does not read; it looks like events: try --input-format"
        " events or auto\n"))
    right = CliRunner().invoke(main, ["summarize", "--input-format", "events", "--format",
                                      "json", "-"], input=_ONE_CALL_EVENTS)
    assert (right.exit_code, right.stderr) == (0, "")
    assert json.loads(right.stdout)["total"]["paired_calls"] == 1


def test_right_forced_format_with_no_tool_call_stays_exit_0(tmp_path: Path) -> None:
    """A Claude Code transcript with no tool call, forced as claude-code (its own format),
    is merely unused: exit 0 and the plain note; forced as codex it is foreign: exit 1."""
    path = _events_file(tmp_path / "s.jsonl", [
        {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": "hi"}},
    ])
    own = CliRunner().invoke(main, ["summarize", "--input-format", "claude-code", str(path)])
    assert (own.exit_code, own.stderr) == (0, (
        f"wavemetrics: note: {path}: no tool calls found in 1 line read as claude-code; is"
        " --input-format claude-code right? (auto detects the format)\n"))
    other = CliRunner().invoke(main, ["summarize", "--input-format", "codex", str(path)])
    assert other.exit_code == 1


@pytest.mark.parametrize("named", [True, False])
def test_foreign_input_exits_1_and_the_others_are_summarised(
    tmp_path: Path, named: bool,
) -> None:
    """An events log and a Claude Code file forced as claude-code, named or found in a
    folder: the events log is foreign (exit 1, its error), the Claude Code file is still
    read (its 1 paired call)."""
    events = tmp_path / "e.jsonl"
    events.write_text(_ONE_CALL_EVENTS, encoding="utf-8")
    claude = tmp_path / "c.jsonl"
    claude.write_bytes(EXAMPLE.read_bytes())
    paths = [str(claude), str(events)] if named else [str(tmp_path)]
    result = CliRunner().invoke(main, ["summarize", "--input-format", "claude-code",
                                       "--format", "json", *paths])
    assert result.exit_code == 1
    assert (f"wavemetrics: error: {events}: no usable record: every line (2) was ignored as a"
            " record type that --input-format claude-code does not read; it looks like"
            " events: try --input-format events or auto\n") in result.stderr
    document = json.loads(result.stdout)
    by_path = {entry["path"]: entry for entry in document["inputs"]}
    assert by_path[str(claude)]["error"] is None
    assert by_path[str(events)]["error"].startswith("no usable record: every line (2)")
    assert document["total"]["paired_calls"] > 0


def test_timeline_of_a_foreign_input_exits_1(tmp_path: Path) -> None:
    """``timeline`` reads as ``summarize`` does: the foreign input is an error, exit 1."""
    pytest.importorskip("matplotlib")
    events = tmp_path / "e.jsonl"
    events.write_text(_ONE_CALL_EVENTS, encoding="utf-8")
    result = CliRunner().invoke(main, ["timeline", "--input-format", "pi", "-o",
                                       str(tmp_path / "t.svg"), str(events)])
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"wavemetrics: error: {events}: no usable record: every line (2) was ignored as a"
        " record type that --input-format pi does not read; it looks like events")


def _no_path_run(tmp_path: Path, stdin: Any, data: bytes | None = None) -> tuple[int, str, str]:
    """``summarize --no-cache`` with no PATH in a fresh process, the bundled example as the
    only project of a Claude Code config folder, standard input as given."""
    import os
    import shutil
    import subprocess
    import sys

    from tests.golden_cases import EXAMPLE

    config = tmp_path / "claude"
    (config / "projects" / "p").mkdir(parents=True)
    shutil.copy(EXAMPLE, config / "projects" / "p" / "s.jsonl")
    env = {k: v for k, v in os.environ.items() if k not in {"XDG_CONFIG_HOME"}}
    env.update(HOME=str(tmp_path / "home"), CLAUDE_CONFIG_DIR=str(config),
               CODEX_HOME=str(tmp_path / "no-codex"))
    done = subprocess.run([sys.executable, "-m", "wavemetrics", "summarize", "--no-cache",
                           "--format", "json"], stdin=stdin, input=data, env=env,
                          capture_output=True, check=False)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


@pytest.mark.parametrize("stdin", ["devnull", "empty pipe"])
def test_no_path_and_nothing_piped_reads_the_standard_folders(
    tmp_path: Path, stdin: str
) -> None:
    """With no PATH, standard input that is /dev/null (scripts, cron, an agent's shell tool)
    or a pipe that ends at once is not "data piped in": the standard folders are read and
    named, as on a terminal (it was an empty report, exit 0)."""
    import subprocess

    code, out, err = (_no_path_run(tmp_path, subprocess.DEVNULL) if stdin == "devnull"
                      else _no_path_run(tmp_path, None, b""))
    assert code == 0
    assert err == f"wavemetrics: reading {tmp_path / 'claude' / 'projects'} (Claude Code)\n"
    document = json.loads(out)
    assert [i["path"] for i in document["inputs"]] == [
        str(tmp_path / "claude" / "projects" / "p" / "s.jsonl")]
    assert document["total"]["waves_total"] == 105  # the README's example


def test_no_path_and_data_piped_reads_stdin(tmp_path: Path) -> None:
    """With no PATH and a trace piped in, standard input is read (as ``-``), not the folders."""
    from tests.golden_cases import EXAMPLE

    code, out, err = _no_path_run(tmp_path, None, EXAMPLE.read_bytes())
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert [i["path"] for i in document["inputs"]] == ["-"]
    assert document["total"]["waves_total"] == 105


def test_timezone_help_names_by_as_summarize_only() -> None:
    """``waves --help`` (a command without ``--by``) says the zone applies to summarize's
    ``--by day|week|month``, not to a ``--by`` of its own."""
    result = CliRunner().invoke(main, ["waves", "--help"], terminal_width=400)
    assert result.exit_code == 0
    line = next(x for x in result.stdout.splitlines() if x.strip().startswith("--timezone"))
    assert line.split("ZONE", 1)[1].strip() == (
        "IANA time zone (e.g. Europe/Paris, UTC) of dates, times without an offset (and"
        " summarize's --by day|week|month); default: local time.")


def test_skipped_note_names_an_unforeseen_reason_and_joins_three() -> None:
    """A reason the note has no wording for is shown as it is, and three reasons are
    joined "a, b and c": still one sentence (files in /a and /b: 2 folders)."""
    from wavemetrics.readers.sources import SIDECAR_REASON
    from wavemetrics.run.pipeline import SKIPPED_UNRECOGNISED, SkippedFile
    from wavemetrics.views.notes import skipped_note as _skipped_note

    skipped = [SkippedFile("/a/x.json", SKIPPED_UNRECOGNISED),
               SkippedFile("/a/y.meta.json", SIDECAR_REASON),
               SkippedFile("/b/z.json", SKIPPED_UNRECOGNISED),
               SkippedFile("/b/w.jsonl", "a future reason")]
    assert _skipped_note(skipped) == (
        "wavemetrics: note: skipped 4 files found in 2 folders, as they are not traces:"
        " 2 of no known format (judged by their first 64 lines), 1 metadata sidecar"
        " (*.meta.json, written beside Claude Code sub-agents) and 1 (a future reason);"
        " summarize --format json lists them")


def test_skipped_note_lists_the_most_frequent_reason_first() -> None:
    """Reasons are listed most first, not in the order met: one file of no known format
    met before two sidecars still comes second ("its first 64 lines", singular)."""
    from wavemetrics.readers.sources import SIDECAR_REASON
    from wavemetrics.run.pipeline import SKIPPED_UNRECOGNISED, SkippedFile
    from wavemetrics.views.notes import skipped_note as _skipped_note

    skipped = [SkippedFile("/a/x.json", SKIPPED_UNRECOGNISED),
               SkippedFile("/a/s1.meta.json", SIDECAR_REASON),
               SkippedFile("/a/s2.meta.json", SIDECAR_REASON)]
    assert _skipped_note(skipped) == (
        "wavemetrics: note: skipped 3 files found in 1 folder, as they are not traces:"
        " 2 metadata sidecars (*.meta.json, written beside Claude Code sub-agents) and 1 of"
        " no known format (judged by its first 64 lines); summarize --format json lists them")


#: The ``options`` of a run with every default (docs/cli.md, "Options in the output").
DEFAULT_OPTIONS = {
    "input_format": "auto", "eval_tools": ["eval", "codemode", "code_mode"],
    "batchable_tools": ["read", "read_file", "view", "grep", "glob", "ls", "list", "list_dir",
                        "list_directory", "find", "search", "search_files", "webfetch",
                        "web_fetch", "websearch", "web_search"],
    "idle_gap_ms": 300000.0, "max_tracked_calls": 2000, "max_line_bytes": 64 * 1024 * 1024,
    "max_document_bytes": 256 * 1024 * 1024, "since": None, "until": None, "timezone": None,
    "by": None,
}


@pytest.mark.parametrize("engine", ["native", "python"])
def test_every_json_document_records_its_options(engine: str) -> None:
    """A run with the default options says so: ``options`` comes right after
    ``schema_kind`` with every default (both engines: the native command writes it)."""
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "--no-cache",
                                       "--engine", engine, str(EXAMPLE)])
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert list(document) == ["schema_kind", "options", "inputs", "lanes", "total",
                              "concentration"]
    assert document["options"] == DEFAULT_OPTIONS


def test_a_window_is_recorded_in_the_json_and_the_table() -> None:
    """``--demo --since 2026-04-18T13:40 --timezone UTC``: 4 of the 7 lanes have a wave in
    the window and the saving falls from 2021.75 s to 421.33 s; the document records the
    bound as the instant it means (13:40 UTC, seconds and offset written), the zone as
    given, every other option at its default; the table names the window under
    ``inputs:``."""
    args = ["summarize", "--demo", "--since", "2026-04-18T13:40", "--timezone", "UTC",
            "--no-cache"]
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert list(document)[:2] == ["schema_kind", "options"]
    assert document["options"] == {**DEFAULT_OPTIONS, "since": "2026-04-18T13:40:00+00:00",
                                   "timezone": "UTC"}
    assert len(document["lanes"]) == 4
    assert round(document["total"]["modeled_wallclock_saved_ms"] / 1000, 2) == 421.33
    table = CliRunner().invoke(main, args).stdout.splitlines()
    assert table[:4] == [
        "inputs: 1 claude-code (auto-detected)",
        "options: --since 2026-04-18T13:40:00+00:00 --timezone UTC (only the waves that",
        "  start in this window)",
        "",
    ]


def test_every_figure_changing_option_is_recorded() -> None:
    """``--until 2026-04-18`` in Europe/Paris is the start of the next day there (CEST,
    +02:00: exclusive); a forced format, an eval name, batchable names, an idle gap (60 s:
    60000.0 ms), an unbounded cap (null) and byte limits are recorded as given; the
    table lists each non-default one in
    :data:`~wavemetrics.run._options.OPTION_KEYS` order, as arguments that give the same
    run again."""
    args = ["summarize", "--demo", "--until", "2026-04-18", "--timezone", "Europe/Paris",
            "--input-format", "claude-code", "--eval-tool", "Bash", "--eval-tool", "a b",
            "--batchable-tools", "Read, Grep", "--idle-gap", "60",
            "--max-tracked-calls", "0", "--max-line-bytes", "1000000", "--no-cache"]
    document = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).stdout)
    assert document["options"] == {
        "input_format": "claude-code", "eval_tools": ["Bash", "a b"],
        "batchable_tools": ["Read", "Grep"], "idle_gap_ms": 60000.0,
        "max_tracked_calls": None, "max_line_bytes": 1000000,
        "max_document_bytes": 256 * 1024 * 1024, "since": None,
        "until": "2026-04-19T00:00:00+02:00", "timezone": "Europe/Paris", "by": None,
    }
    table = CliRunner().invoke(main, args).stdout.splitlines()
    assert table[1:5] == [
        "options: --input-format claude-code --eval-tool Bash --eval-tool 'a b'",
        "  --batchable-tools Read,Grep --idle-gap 60 --max-tracked-calls 0",
        "  --max-line-bytes 1000000 --until 2026-04-19T00:00:00+02:00 --timezone",
        "  Europe/Paris (only the waves that start in this window)",
    ]


def test_a_by_document_records_its_options() -> None:
    """``--by session``: ``options`` (with ``by``) after ``schema_kind``, then ``by`` as
    before; the table shows no ``options:`` line for ``--by`` alone (its header names
    the groups)."""
    args = ["summarize", "--demo", "--by", "session", "--no-cache"]
    document = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).stdout)
    assert list(document) == ["schema_kind", "options", "by", "inputs", "groups", "total",
                              "concentration"]
    assert document["options"] == {**DEFAULT_OPTIONS, "by": "session"}
    table = CliRunner().invoke(main, args).stdout.splitlines()
    assert table[:2] == ["inputs: 1 claude-code (auto-detected)", ""]


def test_jsonl_payloads_stay_v1_and_stderr_names_the_options() -> None:
    """``--format jsonl`` keeps the 16-key v1 payloads (the 4 lanes with waves in the
    window); the options not at their default
    are named on stderr, once; with the defaults nothing is added."""
    args = ["summarize", "--demo", "--format", "jsonl", "--no-cache"]
    plain = CliRunner().invoke(main, args)
    assert plain.exit_code == 0 and plain.stderr == ""
    result = CliRunner().invoke(main, [*args, "--since", "2026-04-18T13:40", "--timezone",
                                       "UTC"])
    assert result.exit_code == 0
    assert [len(json.loads(line)) for line in result.stdout.splitlines()] == [16] * 4
    assert result.stderr == (
        "wavemetrics: note: these payloads were made with --since 2026-04-18T13:40:00+00:00"
        " --timezone UTC (the v1 payload has no field for options; --format json records"
        " them)\n")


def _capped(tmp_path: Path) -> str:
    from tests.event_traces import CAPPED

    return str(write_events(tmp_path / "s.jsonl", CAPPED))


@pytest.mark.parametrize("output_format", ["table", "json", "csv"])
def test_waves_says_on_stderr_that_the_cap_dropped_calls(
    tmp_path: Path, output_format: str
) -> None:
    """waves lists the waves of the calls the cap kept: every format says on stderr, in
    the summarize table's words, that 2 calls were dropped and how to lift the cap."""
    from tests.event_traces import CAPPED_WARNING

    code, out, err = _run("waves", "--format", output_format, "--max-tracked-calls", "3",
                          "--no-cache", _capped(tmp_path))
    assert code == 0
    notes = {"csv": ["wavemetrics: note: these rows were made with --max-tracked-calls 3 (a row"
                     " per call has no field for options; --format json records them)"]}
    assert err.splitlines() == [CAPPED_WARNING, *notes.get(output_format, [])]
    if output_format == "table":  # the options line and a blank, the header, the waves
        # {a, b} and {c}, then the 3-line legend
        assert out.splitlines()[0] == "options: --max-tracked-calls 3"
        assert [line.split()[2] for line in out.splitlines()[3:-3]] == [
            "1970-01-01T00:00:01.000Z", "1970-01-01T00:00:20.000Z"]
        assert out.splitlines()[-3].startswith("n: calls in the wave; peak:")
    elif output_format == "csv":  # a row per call kept: a, b, c
        assert [row.split(",")[11] for row in out.splitlines()[1:]] == ["a", "b", "c"]


def test_waves_json_carries_each_lanes_loss_and_the_cap(tmp_path: Path) -> None:
    """The waves document says, per lane and in total, what was counted and lost
    (observed 5 = paired 3 + dropped 2), and the cap the waves were built with."""
    path = _capped(tmp_path)
    code, document, _ = _run("waves", "--format", "json", "--max-tracked-calls", "3",
                             "--no-cache", path)
    assert code == 0
    figures = {"observed_calls": 5, "paired_calls": 3, "incomplete_calls": 0,
               "clock_anomalies": 0, "dropped_calls": 2, "waves_total": 2}
    assert list(document) == ["options", "inputs", "max_tracked_calls", "lanes", "total",
                              "waves"]
    assert document["options"]["max_tracked_calls"] == document["max_tracked_calls"] == 3
    assert document["lanes"] == [
        {"path": path, "session_id": "s", "lane_id": "main", **figures}]
    assert document["total"] == figures
    assert [(w["start_ms"], w["size"], w["modeled_wallclock_saved_ms"])
            for w in document["waves"]] == [(1000, 2, 5000), (20000, 1, 0)]
    assert document["inputs"][0]["lines_read"] == 10


def test_waves_with_the_cap_lifted_lists_every_call_and_says_nothing(tmp_path: Path) -> None:
    """--max-tracked-calls 0: all 5 calls in 4 waves, nothing lost, no warning."""
    code, document, err = _run("waves", "--format", "json", "--max-tracked-calls", "0",
                               "--no-cache", _capped(tmp_path))
    assert (code, err) == (0, "")
    assert document["max_tracked_calls"] is None
    assert document["total"] == {"observed_calls": 5, "paired_calls": 5,
                                 "incomplete_calls": 0, "clock_anomalies": 0,
                                 "dropped_calls": 0, "waves_total": 4}
    assert len(document["waves"]) == 4


def _by_table(tmp_path: Path, by: str, *extra: str) -> list[str]:
    code, out, _ = _run("summarize", "--by", by, "--no-cache", *extra, _capped(tmp_path))
    assert code == 0
    return str(out).splitlines()


#: The lines of the summarize table under its total row for CAPPED under the cap 3:
#: the tool time (10 + 10 + 10 s; 5 s is 16 % of it, rounded down), then the loss
#: line, marked as the total row is, wrapped at 80 columns.
_CAPPED_UNDER_TOTAL = [
    "tool time 30.00 s (paired calls' durations summed): saved s is 16% of it",
    "* calls not counted: dropped 2 (figures are a lower bound): past the cap of 3",
    "  calls per lane; --max-tracked-calls 0 lifts it, at about 200 bytes of memory",
    "  per tracked call",
]


def test_the_capped_table_marks_its_total_row_and_says_how_to_lift_the_cap(
    tmp_path: Path
) -> None:
    """summarize's table: total row ``total*``, and under it the loss line that the
    mark points to, naming --max-tracked-calls 0 and its cost per call."""
    lines = _by_table(tmp_path, "lane", "--max-tracked-calls", "3")
    code, out, _ = _run("summarize", "--no-cache", "--max-tracked-calls", "3",
                        _capped(tmp_path))
    assert code == 0
    plain = str(out).splitlines()
    # the cap is not the default, so the options line names it under inputs:
    assert plain[:7] == [
        "inputs: 1 events (auto-detected)",
        "options: --max-tracked-calls 3",
        "",
        "session    lane       calls waves multi    rt  eval mixed   saved s   upper s",
        "s          main           3     2     1     1     0     0      5.00     10.00",
        "-" * 77,
        "total*     1 lane         3     2     1     1     0     0      5.00     10.00",
    ]
    assert plain[7:11] == _CAPPED_UNDER_TOTAL
    # --by lane: the lane column is "s/main", the session column 21 wide
    assert lines[6] == "total*                    3     2     1     1     0     0      5.00     10.00"
    assert lines[7:11] == _CAPPED_UNDER_TOTAL


def test_an_uncapped_or_merely_incomplete_table_has_no_mark(tmp_path: Path) -> None:
    """The mark is for calls the cap dropped: with the cap lifted the total row reads
    ``total``; a call that never ended is said by the loss line alone, unmarked."""
    from tests.event_traces import CAPPED

    open_call = ("tool_execution_start", "f", "read", 80000, "main")
    path = str(write_events(tmp_path / "s.jsonl", [*CAPPED, open_call]))
    code, out, _ = _run("summarize", "--no-cache", "--max-tracked-calls", "0", path)
    assert code == 0
    lines = str(out).splitlines()
    assert lines[1] == "options: --max-tracked-calls 0"
    assert lines[6].startswith("total      1 lane         5     4     1     1")
    assert "calls not counted: incomplete 1 (figures are a lower bound)" in lines
    assert not any(line.startswith("*") for line in lines)


@pytest.mark.parametrize("by", ["session", "lane", "project", "day", "week", "month", "tool"])
def test_every_by_table_keeps_every_line_of_the_plain_table(tmp_path: Path, by: str) -> None:
    """Under the total row of a --by table: the plain table's lines under its total,
    in the same order (tool time, loss line, notes), then the table's legend."""
    code, out, _ = _run("summarize", "--no-cache", "--max-tracked-calls", "3",
                        "--timezone", "UTC", _capped(tmp_path))
    assert code == 0
    plain = str(out).splitlines()
    # the plain table's lines from the one after its total row to its legend
    after_total = next(i for i, line in enumerate(plain) if line.startswith("total")) + 1
    under = plain[after_total:plain.index("calls: paired calls; multi: non_eval waves of 2+ calls; rt:"
                                " saved round trips;")]
    lines = _by_table(tmp_path, by, "--max-tracked-calls", "3", "--timezone", "UTC")
    total = next(i for i, line in enumerate(lines) if line.startswith("total"))
    assert lines[total].startswith("total*")
    assert lines[total + 1:total + 1 + len(under)] == under
    assert lines[total + 1 + len(under)].startswith("calls")  # the legend follows


# --- help a person reads once


def _help(*args: str) -> str:
    """``wavemetrics ARGS --help`` at 80 columns, whatever the terminal."""
    result = CliRunner().invoke(main, [*args, "--help"], terminal_width=80)
    assert result.exit_code == 0
    return result.stdout


def test_the_command_list_is_never_cut() -> None:
    """`wavemetrics --help` gives each command's whole one-line description (click cuts a
    long first sentence with "..."), and says where to start."""
    text = _help()
    assert text.split("Commands:\n")[1] == (
        "  cache       Show where the read cache is and what it holds, or clear it.\n"
        "  compare     Compare two harness versions run on the same tasks.\n"
        "  report      Write one self-contained HTML page of a run or a comparison.\n"
        "  statusline  Print one line for Claude Code's status line (see --install).\n"
        "  summarize   Summarize each lane's waves and savings (the main command).\n"
        "  timeline    Draw each lane's calls on a time line (SVG or PNG).\n"
        "  waves       List every wave: start, span, calls, peak, saving, tools.\n")
    assert "Start with `wavemetrics summarize --demo` (a bundled example)" in text


@pytest.mark.parametrize("command", [
    (), ("summarize",), ("waves",), ("timeline",), ("compare",), ("statusline",), ("cache",),
    ("cache", "info"), ("cache", "clear"),
])
def test_no_help_is_cut_or_spelled_otherwise_than_the_command(command: tuple[str, ...]) -> None:
    """No help text ends a sentence with "...", none says "Summarise" for summarize, and
    every line keeps to 80 columns (option lists aside, which click cannot wrap)."""
    text = _help(*command)
    assert "..." not in text.replace("[PATH]...", "").replace("[ARGS]...", "")
    assert "ummarise" not in text
    assert all(len(line) <= 80 for line in text.splitlines() if "[auto|" not in line
               and "[modeled_" not in line)


def test_summarize_and_timeline_help_say_what_path_is() -> None:
    """summarize and timeline explain PATH in their help (timeline's never did)."""
    summarize = " ".join(_help("summarize").split())
    assert summarize.startswith(
        "Usage: wavemetrics summarize [OPTIONS] [PATH]... Summarize tool-call parallelism:"
        " one row per lane (agent) of each PATH. PATH is a trace file, a folder (read"
        " recursively: *.jsonl, *.json, *.eval, also .gz, *.traj, and *.db, *.sqlite"
        " stores) or - for standard input.")
    timeline = " ".join(_help("timeline").split())
    assert (
        "PATH is a trace file, a folder (read recursively) or - for standard input, as for"
        " summarize; with no PATH, piped standard input or the usual trace folders. -o names"
        " the picture: FILE.svg (each bar has a hover text) or FILE.png.") in timeline


def test_summarize_help_names_every_agent_it_reads() -> None:
    """summarize --help names each agent whose store it finds with no PATH, and the
    formats no agent's store holds."""
    summarize = " ".join(_help("summarize").split())
    assert (
        "With no PATH: standard input when data is piped in, else the usual stores that"
        " exist (named on stderr) of Claude Code, Codex, pi, GitHub Copilot CLI, opencode,"
        " Kilo, ZCode, Kimi CLI, OpenClaw and Qwen Code. Also read: events logs, MiniMax"
        " Code (mcode) streams, OTLP, OTel span dicts, Inspect logs.") in summarize
    from wavemetrics.inputs.locations import standard_locations

    agents = {agent for agent, _ in standard_locations({}, Path("/h"))}
    assert agents == {"Claude Code", "Codex", "pi coding agent", "GitHub Copilot CLI",
                      "opencode", "Kilo", "ZCode", "Kimi CLI", "OpenClaw", "Qwen Code"}


def test_waves_help_and_table_explain_their_columns(tmp_path: Path) -> None:
    """`waves --help` has a legend of every column, and the table ends with one for its
    short names (n, peak, span s, saved s)."""
    assert _help("waves").split("Columns of the table:\n")[1].split("\n\nOptions:")[0] == (
        "    start (UTC)  when the wave's first call started\n"
        "    span s       from its first start to its last end, in seconds\n"
        "    n            calls in the wave\n"
        "    peak         most calls running at one instant\n"
        "    bucket       non_eval, eval_only (code cells only) or mixed\n"
        "    saved s      the calls' durations summed minus the span (summarize\n"
        "                 counts it for non_eval waves only)\n"
        "    tools        the tool names, xN for repeats")
    path = tmp_path / "t.jsonl"
    write_events(path, TWO_LANES)
    result = CliRunner().invoke(main, ["waves", "--no-cache", str(path)])
    assert result.stdout.splitlines()[-3:] == [
        "n: calls in the wave; peak: most calls running at one instant; span s: first",
        "start to last end; saved s: the calls' durations summed minus the span",
        "(summarize counts it for non_eval waves only). Details: --format json.",
    ]


def test_empty_inputs_are_named_as_empty_inputs(tmp_path: Path) -> None:
    """The table's first line says "1 empty input", not "1 empty" as if it were a format:
    beside a trace, and alone (where no format was detected, so none is named)."""
    (tmp_path / "e1.jsonl").write_bytes(b"")
    (tmp_path / "e2.jsonl").write_bytes(b"")
    write_events(tmp_path / "t.jsonl", TWO_LANES)
    first = [CliRunner().invoke(main, ["summarize", "--no-cache", *paths]).stdout.splitlines()[0]
             for paths in ([str(tmp_path / "t.jsonl"), str(tmp_path / "e1.jsonl")],
                           [str(tmp_path / "e1.jsonl"), str(tmp_path / "e2.jsonl")])]
    assert first == ["inputs: 1 events (auto-detected); 1 empty input", "inputs: 2 empty inputs"]


def test_waves_records_the_window_and_eval_names_as_summarize_does() -> None:
    """``waves --demo --since 2026-04-18T13:40 --timezone UTC --eval-tool Agent``: the
    document's ``options`` record the window as the instant it means and the eval name
    that turned the main lane's ``Agent`` waves into eval_only; the table names them
    first."""
    args = ["waves", "--demo", "--since", "2026-04-18T13:40", "--timezone", "UTC",
            "--eval-tool", "Agent", "--no-cache"]
    document = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).stdout)
    assert document["options"] == {**DEFAULT_OPTIONS, "eval_tools": ["Agent"],
                                   "since": "2026-04-18T13:40:00+00:00", "timezone": "UTC"}
    assert "eval_only" in {wave["bucket"] for wave in document["waves"]}
    table = CliRunner().invoke(main, args).stdout.splitlines()
    assert table[:3] == [
        # 76 columns; " (only" would pass the 80 the line is wrapped at
        "options: --eval-tool Agent --since 2026-04-18T13:40:00+00:00 --timezone UTC",
        "  (only the waves that start in this window)",
        "",
    ]
