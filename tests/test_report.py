"""wavemetrics.report: unique id prefixes of the tables and the JSON/JSONL documents
(its own tests; ids cut to prefixes that can still be told apart)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.event_traces import TWO_LANES, write_events
from wavemetrics.pipeline import analyse, read_inputs
from wavemetrics.report import render_json, render_jsonl, render_table, unique_prefixes


def test_an_id_that_fits_is_shown_whole() -> None:
    """An id no wider than the column is shown as it is, exactly 10 characters included."""
    assert unique_prefixes(["main", "0123456789"], 10) == {"main": "main",
                                                          "0123456789": "0123456789"}


def test_a_long_id_alone_is_cut_to_the_width() -> None:
    """A 12-character id in a 10-column is its first 9 characters and an ellipsis."""
    assert unique_prefixes(["abcdefghijkl"], 10) == {"abcdefghijkl": "abcdefghi…"}


def test_ids_sharing_a_prefix_keep_one_character_past_it() -> None:
    """Two ids equal in their first 10 characters show 11, so they differ on screen."""
    assert unique_prefixes(["abcdefghijkl", "abcdefghijzz"], 10) == {
        "abcdefghijkl": "abcdefghijk…", "abcdefghijzz": "abcdefghijz…"}


def test_ids_are_escaped_before_they_are_cut() -> None:
    """ESC counts as the four characters ``\\x1b`` it is shown as."""
    assert unique_prefixes(["\x1b[2Jabcdefgh"], 10) == {"\x1b[2Jabcdefgh": "\\x1b[2Jab…"}


def test_the_prefix_never_grows_past_80_characters() -> None:
    """Ids equal in their first 200 characters are cut at 80 (the widest id cell)."""
    a, b = "x" * 200 + "a", "x" * 200 + "b"
    assert unique_prefixes([a, b], 10) == {a: "x" * 80 + "…", b: "x" * 80 + "…"}


def test_json_document_of_two_lanes(tmp_path: Path) -> None:
    """TWO_LANES: 18 lines used, lane main saves 30 ms, lane sub 10 ms, 40 ms in all."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    document = json.loads(render_json(analyse(read_inputs([str(trace)]))))
    assert document["schema_kind"] == "parallelism_v1"
    (entry,) = document["inputs"]
    assert (entry["format"], entry["lines_read"], entry["lines_used"], entry["error"]) == (
        "events", 18, 18, None)
    assert [(lane["session_id"], lane["lane_id"], lane["modeled_wallclock_saved_ms"])
            for lane in document["lanes"]] == [("t", "main", 30.0), ("t", "sub", 10.0)]
    assert document["total"]["modeled_wallclock_saved_ms"] == 40.0


def test_jsonl_is_one_v1_payload_per_lane_with_a_hashed_session(tmp_path: Path) -> None:
    """Each lane with waves is one line whose ``$session_id`` is the SHA-256 of
    ``["session","lane"]``; the ids themselves are never printed."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    lines = render_jsonl(analyse(read_inputs([str(trace)]))).splitlines()
    payloads = [json.loads(line) for line in lines]
    assert [p["$session_id"] for p in payloads] == [
        hashlib.sha256(b'["t","main"]').hexdigest(), hashlib.sha256(b'["t","sub"]').hexdigest()]
    assert [p["modeled_wallclock_saved_ms"] for p in payloads] == [30.0, 10.0]
    assert '"main"' not in "".join(lines) and '"sub"' not in "".join(lines)


def _table_notes(trace: Path) -> list[str]:
    table = render_table(analyse(read_inputs([str(trace)])))
    return [line for line in table.splitlines() if line.startswith(("note:", "  "))]


def test_a_lane_of_one_multi_call_wave_holding_most_of_the_saving_is_noted(
        tmp_path: Path) -> None:
    """TWO_LANES: lane main's one wave of 2 calls saves 30 of the 40 ms (75%), so it is named."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    assert _table_notes(trace) == [
        "note: 75% of the saved time (0.03 s) is one wave of 2 calls, in lane t/main: see",
        "  wavemetrics waves",
    ]


def test_a_lane_of_several_multi_call_waves_is_noted_as_a_lane(tmp_path: Path) -> None:
    """Lane main's waves {a [0,100], b [0,50]} and {c [200,300], d [200,260]} save 50 + 60
    of 120 ms (91.67%, shown rounded down), lane sub's one wave 10: the note names the lane."""
    trace = write_events(tmp_path / "t.jsonl", [
        ("tool_execution_start", "a", "read", 0, "main"),
        ("tool_execution_start", "b", "grep", 0, "main"),
        ("tool_execution_end", "b", "grep", 50, "main"),
        ("tool_execution_end", "a", "read", 100, "main"),
        ("tool_execution_start", "c", "read", 200, "main"),
        ("tool_execution_start", "d", "grep", 200, "main"),
        ("tool_execution_end", "d", "grep", 260, "main"),
        ("tool_execution_end", "c", "read", 300, "main"),
        ("tool_execution_start", "g", "read", 2000, "sub"),
        ("tool_execution_start", "h", "read", 2000, "sub"),
        ("tool_execution_end", "g", "read", 2010, "sub"),
        ("tool_execution_end", "h", "read", 2020, "sub"),
    ])
    assert _table_notes(trace) == [
        "note: 91% of the saved time (0.11 s) is from lane t/main, in 2 waves of 2+",
        "  calls: see wavemetrics waves",
    ]


def test_no_note_when_no_lane_holds_half_of_the_saving(tmp_path: Path) -> None:
    """Lanes saving 30 and 40 ms of 70 (42.9% and 57.1%): only the second is named;
    saving 40 and 40 ms, both hold exactly half and both are named."""
    events = [
        ("tool_execution_start", "a", "read", 0, "x"),
        ("tool_execution_start", "b", "grep", 0, "x"),
        ("tool_execution_end", "b", "grep", 30, "x"),
        ("tool_execution_end", "a", "read", 100, "x"),
        ("tool_execution_start", "c", "read", 0, "y"),
        ("tool_execution_start", "d", "grep", 0, "y"),
        ("tool_execution_end", "d", "grep", 40, "y"),
        ("tool_execution_end", "c", "read", 100, "y"),
    ]
    assert [n[:40] for n in _table_notes(write_events(tmp_path / "t.jsonl", events))
            if n.startswith("note:")] == ["note: 57% of the saved time (0.04 s) is "]
    events[2] = ("tool_execution_end", "b", "grep", 40, "x")
    assert [n[:40] for n in _table_notes(write_events(tmp_path / "u.jsonl", events))
            if n.startswith("note:")] == ["note: 50% of the saved time (0.04 s) is "] * 2


def test_the_tool_time_the_saving_comes_out_of_is_under_the_total(tmp_path: Path) -> None:
    """TWO_LANES: calls of 100+30+50+100+100+40 (main) and 10+20 (sub) ms are 450 ms of tool
    time, of which the 40 ms saved is 8.9%, shown rounded down as 8%."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    lines = render_table(analyse(read_inputs([str(trace)]))).splitlines()
    total = next(i for i, line in enumerate(lines) if line.startswith("total"))
    assert lines[total + 1] == (
        "tool time 0.45 s (paired calls' durations summed): saved s is 8% of it")


def test_no_share_of_zero_tool_time(tmp_path: Path) -> None:
    """A lane whose only call starts and ends at once has 0 ms of tool time: no share."""
    trace = write_events(tmp_path / "t.jsonl", [
        ("tool_execution_start", "a", "read", 5, "main"),
        ("tool_execution_end", "a", "read", 5, "main"),
    ])
    lines = render_table(analyse(read_inputs([str(trace)]))).splitlines()
    assert "tool time 0.00 s (paired calls' durations summed)" in lines
