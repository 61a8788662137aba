"""The ``codex`` reader (Codex CLI rollouts) on the real corpus and on small fixtures.

Expected corpus figures were computed independently of this package, by a
throwaway whole-file script written straight from ``docs/formats.md`` and
``docs/metrics.md`` (``datetime.fromisoformat`` times, waves as connected
components of pairwise closed-interval overlaps). Two waves were checked by
hand against the raw lines: in localpush ``12-40-23`` the calls ending in
``p2s2PAeG``/``vKyUFMZa`` are both written at 11:40:52.524 and both outputs at
11:40:52.649, so one wave of 2, span 125 ms, peak 2, modeled saving 125 ms; in
agentcmd ``20-12-23`` every call and its output share one timestamp and the
starts move back by ``metadata.duration_seconds`` (tool time 2 100 ms in all).
The ``tool_time_ms`` sums agree with the corpus manifest's ``sum`` column.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.batch_checks import batch_figures, check_corpus_batches
from tests.corpus import CORPUS, needs_corpus
from tests.reader_checks import (
    check_lanes,
    cli_document,
    collect,
    observation_tuples,
    read_one,
    sniffs,
    write_records,
)
from tests.strategies import fuzz_lines, plausible_or_any
from wavemetrics import ParallelismSummary, assemble_waves, summarize
from wavemetrics.readers.codex import CODEX, embedded_duration_ms, read_codex
from wavemetrics.readers.dispatch import InputReport
from wavemetrics.run.pipeline import Lane, read_inputs

# 2026-01-01T00:00:00Z: 20 454 days after the epoch.
BASE_MS = 1_767_225_600_000

# (corpus path, session id, observed, paired, incomplete, non_eval waves, multi,
#  histogram, modeled ms, upper bound ms, round trips, tool time ms,
#  lines read, used, ignored, problems)
CORPUS_FILES = [
    ("agentcmd/codex/rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl",
     "01997e76-d124-7592-9cac-2ec05abbca08", 123, 123, 0, 123, 0, "123:0:0:0:0:0:0:0",
     0.0, 0.0, 0, 25605.0, 823, 247, 576, {}),
    ("agentcmd/codex/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl",
     "01997ea4-a70d-7da3-8c20-c736db82a7c5", 16, 16, 0, 16, 0, "16:0:0:0:0:0:0:0",
     0.0, 0.0, 0, 2100.0, 112, 33, 79, {}),
    ("agentcmd/codex/rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl",
     "0199812e-64f0-7f73-91fc-095dda01c36e", 57, 57, 0, 57, 0, "57:0:0:0:0:0:0:0",
     0.0, 0.0, 0, 800.0, 355, 115, 240, {}),
    ("agentcmd/codex/rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl",
     "01998190-fba6-7f40-9309-dc4e48c5844a", 84, 84, 0, 84, 0, "84:0:0:0:0:0:0:0",
     0.0, 0.0, 0, 401.0, 514, 169, 345, {}),
    ("agentcmd/codex/rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl",
     "019982b8-3422-79e0-8b3b-05abaf4f3c3e", 34, 34, 0, 34, 0, "34:0:0:0:0:0:0:0",
     0.0, 0.0, 0, 0.0, 209, 69, 140, {}),
    ("localpush/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl",
     "019c8a4c-ed82-79a1-aa28-7738fc5ab61a", 104, 104, 0, 76, 23, "53:18:5:0:0:0:0:0",
     5658.0, 6865.666666666667, 28, 115574.0, 702, 209, 493, {}),
    ("localpush/rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl",
     "019c8a53-a0dd-7130-bcd7-95445d84846a", 144, 143, 1, 77, 25, "52:3:3:19:0:0:0:0",
     9045.0, 9523.75, 66, 421951.0, 837, 288, 549, {}),
    ("localpush/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl",
     "019c8a70-dda7-7f33-98ea-f30553347322", 1, 0, 1, 0, 0, "0:0:0:0:0:0:0:0",
     0.0, 0.0, 0, 0.0, 19, 2, 17, {}),
    ("localpush/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
     "019c8bfe-ec25-79e0-97d7-bda6a9c575ff", 5, 5, 0, 5, 0, "5:0:0:0:0:0:0:0",
     0.0, 0.0, 0, 54838.0, 63, 11, 52, {}),
    ("agent-sessions/codex_small_schema_fixture.jsonl",
     # 2026 rule: the client-side tool_search_call call-3 and its output are a third
     # call, at the same instant as the other two (one wave of 3 zero-length calls,
     # peak 0); the trimmed tool_search_call is now an invalid_timestamp problem.
     "019fc8be-3658-7ca3-9e29-000000000000", 3, 3, 0, 1, 1, "0:0:1:0:0:0:0:0",
     0.0, 0.0, 0, 0.0, 118, 7, 105, {"invalid_timestamp": 6}),
]

# Batched-write notes of the 0.4x files: (applied, no duration), counted independently.
BATCHED_NOTES = {
    "rollout-2025-09-24T19-22-20": (111, 7),
    "rollout-2025-09-24T20-12-23": (16, 0),
    "rollout-2025-09-25T08-02-05": (45, 12),
    "rollout-2025-09-25T09-49-46": (79, 4),
    "rollout-2025-09-25T15-12-14": (34, 0),
}


def _t(offset_ms: int) -> str:
    """ISO time ``offset_ms`` after BASE_MS (under one hour)."""
    minutes, rest = divmod(offset_ms, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"2026-01-01T00:{minutes:02d}:{seconds:02d}.{millis:03d}Z"


def _uuid7(ms: int, tail: int = 1) -> str:
    """A UUIDv7 minted at ``ms`` (ms since the epoch)."""
    hex_time = f"{ms:012x}"
    return f"{hex_time[:8]}-{hex_time[8:]}-7000-8000-{tail:012x}"


def _meta(at: int, session_id: str, **extra: Any) -> dict[str, Any]:
    return {"timestamp": _t(at), "type": "session_meta", "payload": {"id": session_id, **extra}}


def _call(at: int, call_id: str, name: str | None = "shell", kind: str = "function_call"
          ) -> dict[str, Any]:
    payload: dict[str, Any] = {"type": kind, "call_id": call_id}
    if name is not None:
        payload["name"] = name
    return {"timestamp": _t(at), "type": "response_item", "payload": payload}


def _output(at: int, call_id: str, output: Any = "ok", kind: str = "function_call_output"
            ) -> dict[str, Any]:
    return {"timestamp": _t(at), "type": "response_item",
            "payload": {"type": kind, "call_id": call_id, "output": output}}


def _turn(at: int, turn_id: str | None) -> dict[str, Any]:
    payload = {} if turn_id is None else {"turn_id": turn_id}
    return {"timestamp": _t(at), "type": "turn_context", "payload": payload}


def _shell_output(seconds: Any) -> str:
    """A 0.4x shell output string embedding ``duration_seconds``."""
    return json.dumps({"output": "", "metadata": {"exit_code": 0, "duration_seconds": seconds}})


def _write(tmp_path: Path, records: list[Any], name: str = "rollout-fixture.jsonl") -> str:
    return write_records(tmp_path, records, name)


def _read(path: str, input_format: str = "auto") -> tuple[InputReport, list[Lane]]:
    return read_one(path, "codex", input_format)


def _summary(lane: Lane) -> ParallelismSummary:
    return summarize(assemble_waves(lane.observations))


@needs_corpus
@pytest.mark.parametrize("row", CORPUS_FILES, ids=[Path(r[0]).name[:30] for r in CORPUS_FILES])
def test_corpus_rollout_figures(row: tuple[Any, ...]) -> None:
    """Every Codex rollout of the corpus gives the independently computed lane and line figures."""
    (rel, session_id, observed, paired, incomplete, waves, multi, histogram, modeled, upper,
     round_trips, tool_time, lines_read, used, ignored, problems) = row
    report, lanes = _read(str(CORPUS / rel))
    assert (report.lines_read, report.lines_used, report.lines_ignored, report.problems) == (
        lines_read, used, ignored, problems)
    (lane,) = lanes
    summary = _summary(lane)
    assert (lane.session_id, lane.lane_id) == (session_id, "main")
    assert (summary.observed_calls, summary.paired_calls, summary.incomplete_calls) == (
        observed, paired, incomplete)
    assert (summary.non_eval_waves_total, summary.non_eval_waves_multi,
            summary.non_eval_wave_size_histogram) == (waves, multi, histogram)
    assert (summary.modeled_wallclock_saved_ms, summary.upper_bound_saved_ms,
            summary.non_eval_saved_round_trips, summary.tool_time_ms) == (
        modeled, upper, round_trips, tool_time)
    assert (summary.clock_anomalies, summary.dropped_calls, summary.eval_only_waves,
            summary.mixed_waves, summary.measured_turn_duration_ms_total) == (0, 0, 0, 0, 0.0)


@needs_corpus
def test_corpus_batched_write_notes() -> None:
    """The 0.40 rollouts report how many starts were moved back by an embedded duration."""
    for stem, (applied, missing) in BATCHED_NOTES.items():
        (path,) = (CORPUS / "agentcmd" / "codex").glob(f"{stem}-*.jsonl")
        report, _ = _read(str(path))
        assert report.notes.get("batched_write_duration_applied", 0) == applied
        assert report.notes.get("batched_write_no_duration", 0) == missing


@needs_corpus
def test_corpus_schema_fixture_ignores_unknown_types_by_type() -> None:
    """The 0.146 schema fixture's new item types are ignored by type and its six later
    session_meta lines are not used."""
    report, _ = _read(str(CORPUS / "agent-sessions" / "codex_small_schema_fixture.jsonl"))
    assert report.ignored["repeated_session_meta"] == 6
    assert report.ignored["world_state"] == 5
    assert report.ignored["inter_agent_communication_metadata"] == 1
    assert "response_item.tool_search_call" not in report.ignored  # a call since 2026
    assert report.ignored["response_item.web_search_call"] == 1
    assert report.ignored["event_msg.exec_command_end"] == 3
    assert report.notes == {"batched_write_no_duration": 3}



def test_starts_and_ends_pair_by_call_id_in_file_order(tmp_path: Path) -> None:
    """Starts are function/custom/local-shell calls and ends their outputs, at line times."""
    path = _write(tmp_path, [
        _meta(0, "s-1"),
        _call(100, "a", "exec_command"),
        _call(110, "b", "apply_patch", kind="custom_tool_call"),
        _call(120, "c", None, kind="local_shell_call"),
        _output(300, "b", kind="custom_tool_call_output"),
        _output(400, "a"),
        _output(500, "c"),
    ])
    report, (lane,) = _read(path)
    assert (lane.session_id, lane.lane_id) == ("s-1", "main")
    assert observation_tuples(lane) == [
        ("start", "a", "exec_command", BASE_MS + 100.0),
        ("start", "b", "apply_patch", BASE_MS + 110.0),
        ("start", "c", "local_shell_call", BASE_MS + 120.0),
        ("end", "b", "apply_patch", BASE_MS + 300.0),
        ("end", "a", "exec_command", BASE_MS + 400.0),
        ("end", "c", "local_shell_call", BASE_MS + 500.0),
    ]
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (7, 7, 0)
    summary = _summary(lane)
    # One wave [100, 500]: durations 300 + 190 + 380 = 870, span 400.
    assert (summary.non_eval_waves_total, summary.modeled_wallclock_saved_ms,
            summary.upper_bound_saved_ms, summary.non_eval_saved_round_trips) == (
        1, 470.0, 580.0, 2)


def test_missing_output_leaves_an_incomplete_call(tmp_path: Path) -> None:
    """A call with no output is incomplete, and an output with no call is an orphan end."""
    path = _write(tmp_path, [
        _meta(0, "s-1"), _call(100, "a"), _call(100, "b"), _output(200, "a"),
        _output(250, "zz"),
    ])
    _, (lane,) = _read(path)
    assert observation_tuples(lane)[-1] == ("end", "zz", "unknown", BASE_MS + 250.0)
    summary = _summary(lane)
    assert (summary.observed_calls, summary.paired_calls, summary.incomplete_calls,
            summary.orphan_ends) == (2, 1, 1, 1)


def test_batched_write_moves_the_start_back_by_the_embedded_duration(tmp_path: Path) -> None:
    """An output written at its call's own time with duration_seconds 1.5 starts 1 500 ms earlier."""
    path = _write(tmp_path, [
        _meta(0, "s-1"),
        _call(5000, "a"), _output(5000, "a", _shell_output(1.5)),
        _call(9000, "b"), _output(9000, "b", _shell_output(1.1)),
        _call(9500, "c"), _output(9500, "c", _shell_output(0)),
    ])
    report, (lane,) = _read(path)
    assert observation_tuples(lane) == [
        ("start", "a", "shell", BASE_MS + 3500.0),
        ("end", "a", "shell", BASE_MS + 5000.0),
        ("start", "b", "shell", BASE_MS + 7900.0),
        ("end", "b", "shell", BASE_MS + 9000.0),
        ("start", "c", "shell", BASE_MS + 9500.0),
        ("end", "c", "shell", BASE_MS + 9500.0),
    ]
    assert report.notes == {"batched_write_duration_applied": 3}
    assert _summary(lane).tool_time_ms == 2600.0


def test_batched_write_without_a_usable_duration_stays_zero_length(tmp_path: Path) -> None:
    """With no, negative, non-numeric or non-finite duration the call keeps end == start."""
    outputs = [
        "Plan updated",  # plain text, not JSON
        json.dumps({"output": "", "metadata": {"exit_code": 0}}),
        _shell_output(-1),
        _shell_output("2"),
        _shell_output(True),
        '{"output": "", "metadata": {"duration_seconds": NaN}}',
        '{"output": "", "metadata": {"duration_seconds": 1e999}}',
        {"type": "input_text", "text": "not a string"},
        [{"type": "input_text", "text": "list output"}],
        _shell_output(10**10),  # would start before the epoch
    ]
    records: list[Any] = [_meta(0, "s-1")]
    for index, output in enumerate(outputs):
        call_id = f"c{index}"
        at = 1000 if index == len(outputs) - 1 else 2000 + 10 * index
        records += [_call(at, call_id), _output(at, call_id, output)]
    path = _write(tmp_path, records)
    report, (lane,) = _read(path)
    pairs = list(zip(lane.observations[::2], lane.observations[1::2], strict=True))
    assert all(start.at_ms == end.at_ms for start, end in pairs)
    assert report.notes == {"batched_write_no_duration": 10}


def test_batched_write_rule_needs_equal_times(tmp_path: Path) -> None:
    """An output 1 ms after its call keeps its measured times even with an embedded duration."""
    path = _write(tmp_path, [
        _meta(0, "s-1"), _call(5000, "a"), _output(5001, "a", _shell_output(4)),
    ])
    report, (lane,) = _read(path)
    assert [o.at_ms for o in lane.observations] == [BASE_MS + 5000.0, BASE_MS + 5001.0]
    assert report.notes == {}


def test_embedded_duration_is_converted_exactly() -> None:
    """duration_seconds is turned into ms without binary rounding of the seconds."""
    assert embedded_duration_ms(_shell_output(1.1)) == 1100.0
    assert embedded_duration_ms('{"metadata": {"duration_seconds": 0.001}}') == 1.0
    assert embedded_duration_ms('{"metadata": {"duration_seconds": 7}}') == 7000.0
    assert embedded_duration_ms('{"metadata": {"duration_seconds": 1e99999999999}}') is None
    assert embedded_duration_ms("[" * 100_000) is None


def test_an_output_decimal_cannot_hold_means_no_duration() -> None:
    """A fraction whose exponent is past what ``Decimal`` holds exactly (libmpdec's
    +-10**18), anywhere in an output, is no duration: it used to raise out of the read
    (``decimal.InvalidOperation``) and stop the whole run."""
    for number in ("1e99999999999999999999", "1e-99999999999999999999",
                   "0e1000000000000000000", "12e999999999999999999"):
        assert embedded_duration_ms(f'{{"metadata": {{"duration_seconds": {number}}}}}') is None
        doc = f'{{"metadata": {{"duration_seconds": 2}}, "x": {number}}}'
        assert embedded_duration_ms(doc) is None
    assert embedded_duration_ms('{"metadata": {"duration_seconds": 0e999999999999999999}}') == 0.0


def test_duplicate_call_ids_first_start_and_first_end_win(tmp_path: Path) -> None:
    """A repeated call or output line is ignored and counted; the first one's time is used."""
    path = _write(tmp_path, [
        _meta(0, "s-1"),
        _call(100, "a", "first_name"), _call(150, "a", "second_name"),
        _output(300, "a"), _output(350, "a"),
    ])
    report, (lane,) = _read(path)
    assert observation_tuples(lane) == [
        ("start", "a", "first_name", BASE_MS + 100.0),
        ("end", "a", "first_name", BASE_MS + 300.0),
    ]
    assert report.ignored == {"repeated_tool_call": 1, "repeated_tool_output": 1}
    assert (report.lines_read, report.lines_used) == (5, 3)


def test_second_session_meta_is_ignored(tmp_path: Path) -> None:
    """The first session_meta with a non-empty id names the session; an earlier empty one is a
    problem and later ones are ignored."""
    path = _write(tmp_path, [
        _meta(0, ""), _meta(1, "s-first"), _meta(2, "s-second"), _call(10, "a"), _output(20, "a"),
    ])
    report, (lane,) = _read(path)
    assert lane.session_id == "s-first"
    assert report.problems == {"invalid_session_meta": 1}
    assert report.ignored == {"repeated_session_meta": 1}
    assert (report.lines_read, report.lines_used) == (5, 3)


def test_session_id_falls_back_to_the_file_name_uuid(tmp_path: Path) -> None:
    """Without session_meta the UUID that ends the rollout's file name is the session id."""
    uuid = "019c0000-0000-7000-8000-00000000abcd"
    path = _write(tmp_path, [_call(10, "a"), _output(20, "a")],
                  name=f"rollout-2026-01-01T00-00-00-{uuid}.jsonl")
    report, (lane,) = _read(path)
    assert lane.session_id == uuid
    assert report.notes == {"session_id_from_file_name": 1}


def test_unknown_and_non_tool_records_are_ignored_by_type(tmp_path: Path) -> None:
    """New envelope types and non-tool items are ignored and counted by (sub)type."""
    path = _write(tmp_path, [
        _meta(0, "s-1"),
        {"timestamp": _t(1), "type": "world_state", "payload": {}},
        {"timestamp": _t(2), "type": "compacted", "payload": {"message": ""}},
        {"timestamp": _t(3), "type": "event_msg", "payload": {"type": "token_count"}},
        {"timestamp": _t(4), "type": "event_msg", "payload": {"type": "exec_command_end",
                                                              "call_id": "a"}},
        {"timestamp": _t(5), "type": "response_item", "payload": {"type": "web_search_call"}},
        {"timestamp": _t(6), "type": "response_item", "payload": {"type": "message"}},
        {"timestamp": _t(7), "type": "response_item", "payload": {}},
        _turn(8, None),
        "",
    ])
    report, (lane,) = _read(path)
    assert lane.observations == ()
    assert report.ignored == {
        "blank_line": 1, "compacted": 1, "event_msg.exec_command_end": 1,
        "event_msg.token_count": 1, "response_item": 1, "response_item.message": 1,
        "response_item.web_search_call": 1, "turn_context": 1, "world_state": 1,
    }
    assert report.problems == {}


def test_invalid_timestamps_on_tool_records_are_problems(tmp_path: Path) -> None:
    """A tool line with an unusable time is a problem; a non-tool line's time is not checked."""
    trimmed = "[trimmed for fixture]"
    call = _call(100, "a")
    call["timestamp"] = trimmed
    no_offset = _output(200, "b")
    no_offset["timestamp"] = "2026-01-01T00:00:00.200"
    numeric = _call(300, "c")
    numeric["timestamp"] = BASE_MS + 300
    message = {"timestamp": trimmed, "type": "event_msg", "payload": {"type": "user_message"}}
    path = _write(tmp_path, [_meta(0, "s-1"), call, _call(150, "b"), no_offset, numeric, message])
    report, (lane,) = _read(path)
    assert report.problems == {"invalid_timestamp": 3}
    assert report.ignored == {"event_msg.user_message": 1}
    assert observation_tuples(lane) == [("start", "b", "shell", BASE_MS + 150.0)]


def test_malformed_records_are_problems_by_reason(tmp_path: Path) -> None:
    """Missing type, non-object payload, missing call id and bad JSON are counted by reason."""
    path = _write(tmp_path, [
        _meta(0, "s-1"),
        {"timestamp": _t(1), "payload": {}},
        {"timestamp": _t(2), "type": "response_item", "payload": "x"},
        {"timestamp": _t(3), "type": "response_item", "payload": {"type": "function_call"}},
        {"timestamp": _t(4), "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": ""}},
        '{"timestamp": "2026-01-01T00:00:00.005Z", "type": ',
        "[1, 2]",
    ])
    report, (lane,) = _read(path, "codex")
    assert report.problems == {"invalid_json": 1, "invalid_payload": 1,
                               "invalid_tool_record": 2, "missing_type": 1,
                               "not_an_object": 1}
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (7, 1, 0)
    assert lane.observations == ()


def test_ids_that_cannot_be_encoded_are_unusable(tmp_path: Path) -> None:
    """A session id holding a lone surrogate is ``invalid_id`` (docs/formats.md: never
    replaced), a call id holding one makes the call unusable; a bad name falls back to
    the payload type."""
    path = _write(tmp_path, [
        _meta(0, "\ud800"), _meta(1, "s-1"),
        _call(10, "\udfff"), _call(20, "a", "\ud800"), _output(30, "a"),
    ])
    report, (lane,) = _read(path)
    assert lane.session_id == "s-1"
    assert report.problems == {"invalid_id": 1, "invalid_tool_record": 1}
    assert observation_tuples(lane)[0] == ("start", "a", "function_call", BASE_MS + 20.0)


def test_file_name_bytes_that_are_not_utf8_stay_printable(tmp_path: Path) -> None:
    """A fallback session id from a non-UTF-8 file name is printable text."""
    path = _write(tmp_path, [_call(10, "a")], name="rollout-x\udcff.jsonl")
    _, (lane,) = _read(path)
    assert lane.session_id == "rollout-x\\xff"
    lane.session_id.encode("utf-8")


def test_fork_replayed_items_before_the_boundary_are_not_used(tmp_path: Path) -> None:
    """A fork's replayed parent history is counted as replayed_items up to its first own turn."""
    fork_ms = BASE_MS + 10_000
    fork_id = _uuid7(fork_ms, 0xF)
    parent_turn = _uuid7(BASE_MS - 60_000, 1)
    own_turn = _uuid7(fork_ms + 500, 2)
    path = _write(tmp_path, [
        _meta(10_000, fork_id, forked_from_id="parent", timestamp=_t(10_000)),
        _meta(10_001, "parent"),                     # re-inserted parent session_meta
        _turn(10_001, parent_turn),
        _call(10_002, "p1"), _call(10_002, "p2"),    # replayed burst, re-stamped at fork time
        _output(10_003, "p1"), _output(10_003, "p2"),
        _turn(10_004, None),                         # an undated turn_context is replay too
        _turn(10_600, own_turn),                     # the boundary
        _call(11_000, "p1"), _call(11_100, "own"),   # a parent call id may recur after the fork
        _output(12_000, "p1"), _output(12_500, "own"),
    ])
    report, (lane,) = _read(path)
    assert lane.session_id == fork_id
    assert report.ignored == {"replayed_items": 7}
    assert report.notes == {}
    assert (report.lines_read, report.lines_used) == (13, 6)
    assert observation_tuples(lane) == [
        ("start", "p1", "shell", BASE_MS + 11_000.0),
        ("start", "own", "shell", BASE_MS + 11_100.0),
        ("end", "p1", "shell", BASE_MS + 12_000.0),
        ("end", "own", "shell", BASE_MS + 12_500.0),
    ]


def test_fork_creation_time_falls_back_to_the_session_meta_timestamp(tmp_path: Path) -> None:
    """When the fork's own id is not a UUIDv7, its payload.timestamp dates the fork."""
    path = _write(tmp_path, [
        _meta(20_000, "fork-not-a-uuid", forked_from_id="parent", timestamp=_t(20_000)),
        _turn(20_001, _uuid7(BASE_MS + 19_999)),     # minted before the fork: replay
        _call(20_002, "p1"), _output(20_002, "p1"),
        _turn(20_100, _uuid7(BASE_MS + 20_000)),     # minted at the fork's creation: boundary
        _call(21_000, "own"), _output(22_000, "own"),
    ])
    report, (lane,) = _read(path)
    assert report.ignored == {"replayed_items": 3}
    assert [o.call_id for o in lane.observations] == ["own", "own"]


def test_fork_with_undatable_turn_ids_skips_nothing(tmp_path: Path) -> None:
    """If no turn id is a UUIDv7, every line is read and the fork boundary is reported unknown."""
    path = _write(tmp_path, [
        _meta(10_000, _uuid7(BASE_MS + 10_000), forked_from_id="parent"),
        _turn(10_001, "turn-1"),
        _call(10_002, "p1"), _output(10_002, "p1"),
        _turn(10_600, "d126e3d0-80ed-480a-be8c-09d97ff602cf"),   # a v4 id carries no time
        _turn(10_700, None),
        _call(11_000, "own"), _output(12_000, "own"),
        _meta(12_001, "parent"),
    ])
    report, (lane,) = _read(path)
    assert report.notes == {"batched_write_no_duration": 1, "fork_boundary_unknown": 1}
    assert report.ignored == {"repeated_session_meta": 1, "turn_context": 3}
    assert (report.lines_read, report.lines_used) == (9, 5)
    assert [o.call_id for o in lane.observations] == ["p1", "p1", "own", "own"]


def test_fork_with_an_undatable_creation_skips_nothing(tmp_path: Path) -> None:
    """A fork whose id and timestamp give no creation time cannot be gated: boundary unknown."""
    path = _write(tmp_path, [
        _meta(10_000, "fork-x", forked_from_id="parent", timestamp="[trimmed for fixture]"),
        _turn(10_001, _uuid7(BASE_MS)),
        _call(10_002, "p1"), _output(10_003, "p1"),
    ])
    report, (lane,) = _read(path)
    assert report.notes == {"fork_boundary_unknown": 1}
    assert "replayed_items" not in report.ignored
    assert len(lane.observations) == 2


def test_fork_without_its_own_turn_is_all_replay(tmp_path: Path) -> None:
    """When turn ids are dated but none is minted after the fork, everything after it is replay."""
    path = _write(tmp_path, [
        _meta(10_000, _uuid7(BASE_MS + 10_000), forked_from_id="parent"),
        _turn(10_001, _uuid7(BASE_MS + 5_000)),
        _call(10_002, "p1"), _output(10_003, "p1"),
    ])
    report, (lane,) = _read(path)
    assert report.ignored == {"replayed_items": 3}
    assert report.notes == {}
    assert lane.observations == ()
    assert _summary(lane).observed_calls == 0


def test_non_fork_turn_contexts_are_plainly_ignored(tmp_path: Path) -> None:
    """Without forked_from_id no line is treated as replay, whatever the turn ids say."""
    path = _write(tmp_path, [
        _meta(10_000, _uuid7(BASE_MS + 10_000)),
        _turn(10_001, _uuid7(BASE_MS)),
        _call(10_002, "a"), _output(10_003, "a"),
    ])
    report, (lane,) = _read(path)
    assert report.ignored == {"turn_context": 1}
    assert len(lane.observations) == 2


def test_output_before_its_call_is_fed_in_file_order(tmp_path: Path) -> None:
    """An output line before its call is an orphan end and the call stays incomplete."""
    path = _write(tmp_path, [_meta(0, "s-1"), _output(100, "a"), _call(200, "a")])
    _, (lane,) = _read(path)
    summary = _summary(lane)
    assert (summary.orphan_ends, summary.incomplete_calls, summary.paired_calls) == (1, 1, 0)


def test_input_without_records_has_no_lane(tmp_path: Path) -> None:
    """An input of only unusable lines read as codex gives no lane and counts every line."""
    path = _write(tmp_path, ["not json", "{"])
    report, lanes = _read(path, "codex")
    assert lanes == []
    assert report.problems == {"invalid_json": 2}


def test_sniffer_claims_rollouts_and_nothing_else() -> None:
    """The codex recogniser needs a timestamped envelope with a known type and object payload."""
    rollout = [json.dumps(_meta(0, "s")).encode()]
    assert sniffs(CODEX, rollout, "x.jsonl")
    others = [
        b'{"type": "session", "id": "x", "timestamp": "2026-01-01T00:00:00Z"}',
        b'{"type": "message", "timestamp": "t", "message": {"role": "user"}}',
        b'{"type": "assistant", "uuid": "u", "timestamp": "t", "message": {}}',
        b'{"ts": "t", "dir": "to_tui", "kind": "codex_event", "payload": {"msg": {}}}',
        b'{"type": "tool_execution_start", "toolCallId": "a", "toolName": "b", "timestamp": 1}',
        b'{"type": "event_msg", "payload": {"type": "token_count"}}',
        b'{"resourceSpans": []}',
    ]
    assert not any(sniffs(CODEX, [line], "x.jsonl") for line in others)


def test_auto_detection_picks_codex_for_a_rollout(tmp_path: Path) -> None:
    """read_inputs in auto mode names codex for a rollout starting with session_meta."""
    path = _write(tmp_path, [_meta(0, "s-1"), _call(1, "a"), _output(2, "a")])
    outcome = read_inputs([path])
    assert [r.format for r in outcome.inputs] == ["codex"]


_TIMES = plausible_or_any(st.integers(0, 5).map(_t))
_IDS = plausible_or_any(st.sampled_from(["a", "b", "c"]))
_CODEX_PAYLOAD = st.fixed_dictionaries(
    {"type": plausible_or_any(st.sampled_from(["function_call", "custom_tool_call", "local_shell_call",
                                     "function_call_output", "custom_tool_call_output",
                                     "message", "token_count"]))},
    optional={"call_id": _IDS, "name": plausible_or_any(st.just("shell")),
              "output": plausible_or_any(st.sampled_from([_shell_output(0.001), "text"])),
              "id": plausible_or_any(st.sampled_from([_uuid7(BASE_MS + 2), "s"])),
              "forked_from_id": _IDS, "timestamp": _TIMES,
              "turn_id": plausible_or_any(st.sampled_from([_uuid7(BASE_MS), _uuid7(BASE_MS + 3)]))},
)
_CODEX_RECORD = st.fixed_dictionaries(
    {},
    optional={"timestamp": _TIMES, "payload": plausible_or_any(_CODEX_PAYLOAD),
              "type": plausible_or_any(st.sampled_from(["session_meta", "response_item", "event_msg",
                                              "turn_context", "compacted"]))},
)


@settings(max_examples=300, deadline=None)
@given(st.lists(fuzz_lines(_CODEX_RECORD), max_size=12))
def test_fuzzed_rollouts_never_raise(lines: list[bytes]) -> None:
    """Any mix of mutated rollout records and random bytes reads without an exception."""
    lanes, account = collect(read_codex, lines, path="rollout-fuzz.jsonl")
    assert account.lines_read == len(lines)
    assert account.lines_read == account.lines_used + account.lines_ignored + sum(
        account.problems.values())
    check_lanes(lanes)
    sniffs(CODEX, lines, "rollout-fuzz.jsonl")


# --- 2026 shapes: namespaced MCP tools, client-side tool search, Code Mode.

def _namespaced(at: int, call_id: str, name: str, namespace: str | None,
                kind: str = "function_call") -> dict[str, Any]:
    record = _call(at, call_id, name, kind)
    record["payload"]["namespace"] = namespace
    return record


def test_mcp_namespaces_keep_two_servers_tools_apart(tmp_path: Path) -> None:
    """``namespace: "mcp__<server>"`` + ``name`` is ``mcp__<server>__<name>``; other namespaces
    (and a name already written in full) keep ``name``."""
    path = _write(tmp_path, [
        _meta(0, "s1"),
        _namespaced(10, "c1", "search", "mcp__notes"),
        _namespaced(20, "c2", "search", "mcp__docs"),
        _namespaced(30, "c3", "shell", "functions"),
        _namespaced(40, "c4", "mcp__wiki__search", "mcp__wiki"),
        _output(100, "c1"), _output(110, "c2"), _output(120, "c3"), _output(130, "c4"),
    ])
    _, (lane,) = _read(path)
    assert [o.tool_name for o in lane.observations if o.kind == "start"] == [
        "mcp__notes__search", "mcp__docs__search", "shell", "mcp__wiki__search"]


def test_a_client_side_tool_search_is_a_call(tmp_path: Path) -> None:
    """A ``tool_search_call`` the harness runs (``execution`` not ``"server"``, a ``call_id``)
    starts a call that its ``tool_search_output`` ends; server and id-less items are not calls."""
    search = _call(0, "ts1", None, "tool_search_call")
    search["payload"]["execution"] = "client"
    server = {"timestamp": _t(50), "type": "response_item",
              "payload": {"type": "tool_search_call", "execution": "server", "status": "done"}}
    path = _write(tmp_path, [
        _meta(0, "s1"), search, server,
        _call(100, "c1", "exec_command"),
        _output(400, "ts1", kind="tool_search_output"),
        _output(1000, "c1"),
        {"timestamp": _t(1100), "type": "response_item",
         "payload": {"type": "web_search_call", "id": "ws1", "status": "completed"}},
    ])
    report, (lane,) = _read(path)
    assert [(o.kind, o.call_id, o.tool_name) for o in lane.observations] == [
        ("start", "ts1", "tool_search_call"), ("start", "c1", "exec_command"),
        ("end", "ts1", "tool_search_call"), ("end", "c1", "exec_command")]
    assert report.ignored == {"response_item.tool_search_call": 1,
                              "response_item.web_search_call": 1}
    # Before, only c1 was a call. Now one wave [0, 1000]: durations 400 + 900 = 1300,
    # span 1000: 300 ms saved, peak 2.
    summary = _summary(lane)
    assert (summary.non_eval_wave_size_histogram, summary.modeled_wallclock_saved_ms,
            summary.non_eval_saved_round_trips) == ("0:1:0:0:0:0:0:0", 300.0, 1)


def test_code_mode_exec_and_wait_classify_as_eval(tmp_path: Path) -> None:
    """Code Mode's ``exec`` cell and ``wait`` are eval calls for codex; ``exec_command``,
    ``wait_agent`` and an MCP tool named ``exec`` are not."""
    path = _write(tmp_path, [
        _meta(0, "s1"),
        _namespaced(0, "e1", "exec", "functions", "custom_tool_call"),
        _call(500, "c1", "exec_command"),
        _output(1500, "c1"),
        _output(3000, "e1", kind="custom_tool_call_output"),
        _namespaced(3100, "w1", "wait", "functions"),
        _output(4000, "w1"),
        _call(5000, "c2", "exec_command"), _output(6000, "c2"),
        _call(7000, "a1", "wait_agent"), _output(7500, "a1"),
        _namespaced(8000, "m1", "exec", "mcp__sandbox"), _output(8200, "m1"),
    ])
    code, document = cli_document([path])
    assert code == 0
    (lane,) = document["lanes"]
    # Before: wave {e1 [0, 3000], c1 [500, 1500]} was non_eval (durations 3000 + 1000,
    # span 3000: 1000 ms saved, 1 round trip) and wait was a non_eval wave of 1.
    # Now: that wave is mixed, wait [3100, 4000] is eval_only (900 ms), and the three
    # other calls are non_eval waves of 1.
    assert {key: lane[key] for key in (
        "mixed_waves", "eval_only_waves", "eval_only_duration_ms", "non_eval_waves_total",
        "non_eval_wave_size_histogram", "modeled_wallclock_saved_ms",
        "non_eval_saved_round_trips", "eval_outer_joined_calls",
        "mixed_non_eval_joined_calls")} == {
        "mixed_waves": 1, "eval_only_waves": 1, "eval_only_duration_ms": 900.0,
        "non_eval_waves_total": 3, "non_eval_wave_size_histogram": "3:0:0:0:0:0:0:0",
        "modeled_wallclock_saved_ms": 0.0, "non_eval_saved_round_trips": 0,
        "eval_outer_joined_calls": 2, "mixed_non_eval_joined_calls": 1,
    }


def _item(at: int, payload: dict[str, Any], kind: str = "response_item") -> dict[str, Any]:
    return {"timestamp": _t(at), "type": kind, "payload": payload}


def test_batches_are_runs_of_consecutive_call_items(tmp_path: Path) -> None:
    """Batches (``docs/formats.md``, ``codex``): a maximal run of consecutive call items;
    any other ``response_item`` ends it; other lines neither join nor end one. Every
    call item is in a run, so a Codex call always has a batch (none without).

    batch 1: c1 read_file [1000, 1500], (an event_msg between: no effect), c2 grep
    [1010, 1600]: width 2; the output of c1 ends it.
    batch 2: c3 read_file [2000, 2400]; batch 3: c4 grep [3000, 3200]; batch 4: c5 shell
    [4000, 5000] (not batchable: closes the run c3, c4 of k = 2, upper =
    (3200 - 2000) - max(400, 200) = 800).
    batches 5, 6: 0.4x batched writes, each call written with its output (so each is
    its own run): c7 read_file at 6000 with 0.5 s moves to [5500, 6000], c8 read_file
    at 6100 with 0.1 s to [6000, 6100]; the rewritten starts keep their batch. Run of
    k = 2, closed at the end: upper (6100 - 5500) - max(500, 100) = 100.
    paired 7, without a batch 0; 6 turns, 1 multi-call, "5:1:0:0:0:0:0:0", max 2;
    runs 2, calls 4, round trips 2, upper 800 + 100 = 900.0; Codex timing: by message.
    """
    records = [
        _meta(0, "s-batches"),
        _item(500, {"type": "message", "role": "assistant", "content": []}),
        _call(1000, "c1", "read_file"),
        _item(1005, {"type": "token_count"}, kind="event_msg"),
        _call(1010, "c2", "grep"),
        _output(1500, "c1"), _output(1600, "c2"),
        _item(1800, {"type": "reasoning", "summary": []}),
        _call(2000, "c3", "read_file"), _output(2400, "c3"),
        _call(3000, "c4", "grep"), _output(3200, "c4"),
        _call(4000, "c5", "shell"), _output(5000, "c5"),
        _call(6000, "c7", "read_file"), _output(6000, "c7", _shell_output(0.5)),
        _call(6100, "c8", "read_file"), _output(6100, "c8", _shell_output(0.1)),
    ]
    path = write_records(tmp_path, records, "rollout-batches.jsonl")
    assert batch_figures(path) == {
        "calls_without_batch": 0, "batched_turns": 6, "multi_call_turns": 1,
        "turn_width_histogram": "5:1:0:0:0:0:0:0", "max_turn_width": 2,
        "missed_batch_runs": 2, "missed_batch_calls": 4, "missed_batch_round_trips": 2,
        "missed_batch_upper_ms": 900.0,
        "calls_timed_by_execution": 0, "calls_timed_by_message": 7,
    }


def test_which_lines_end_a_codex_batch(tmp_path: Path) -> None:
    """A ``turn_context`` between two calls neither joins nor ends: a, b are one batch.
    A server-side ``tool_search_call`` is another response item: it ends the batch,
    so x, y are two. A call item that is a problem (no ``call_id``) is still a call
    item: p, (bad), q stay one batch. Widths 2, 1, 1, 2: "2:2:0:0:0:0:0:0", 4 turns,
    2 multi-call; bash calls, so no missed batching."""
    records = [
        _meta(0, "s-ends"),
        _call(1000, "a", "bash"),
        _item(1001, {"type": "turn_context", "cwd": "/w"}, kind="turn_context"),
        _call(1002, "b", "bash"), _output(1100, "a"), _output(1100, "b"),
        _call(2000, "x", "bash"),
        _item(2001, {"type": "tool_search_call", "execution": "server", "status": "done"}),
        _call(2002, "y", "bash"), _output(2100, "x"), _output(2100, "y"),
        _call(3000, "p", "bash"),
        _item(3001, {"type": "function_call", "name": "bash"}),
        _call(3002, "q", "bash"), _output(3100, "p"), _output(3100, "q"),
    ]
    path = write_records(tmp_path, records, "rollout-ends.jsonl")
    figures = batch_figures(path)
    assert (figures["calls_without_batch"], figures["batched_turns"],
            figures["multi_call_turns"], figures["turn_width_histogram"],
            figures["missed_batch_runs"]) == (0, 4, 2, "2:2:0:0:0:0:0:0", 0)


@needs_corpus
def test_corpus_batch_figures_are_sane() -> None:
    """Every corpus rollout read as ``codex`` gives sane batch figures."""
    assert check_corpus_batches({"codex"}) >= 10
