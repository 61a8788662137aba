"""wavemetrics.views.report: unique id prefixes of the tables and the JSON/JSONL documents
(its own tests; ids cut to prefixes that can still be told apart)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.event_traces import TWO_LANES, Event, write_events
from tests.strategies import caps, event_records, trace_lines
from wavemetrics.run.pipeline import analyse, read_inputs
from wavemetrics.views.activity import activity_lines
from wavemetrics.views.report import (
    loss_line,
    render_json,
    render_jsonl,
    render_table,
    table_lane_cells,
    total_label,
    under_total,
    unique_prefixes,
    wave_rows,
    waves_document,
)


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
    notes, in_note = [], False
    for line in table.splitlines():  # a note's line, and the lines it wraps onto
        in_note = line.startswith("note:") or (in_note and line.startswith("  "))
        if in_note:
            notes.append(line)
    return notes


def _scaled(events: list[Event], factor: int) -> list[Event]:
    """``events`` with every time multiplied by ``factor`` (every saving too)."""
    return [(kind, call, name, at_ms * factor, lane) for kind, call, name, at_ms, lane in events]


def test_a_lane_of_one_multi_call_wave_holding_most_of_the_saving_is_noted(
        tmp_path: Path) -> None:
    """TWO_LANES at 2000 x: lane main's one wave of 2 calls saves 30 x 2000 = 60,000 ms,
    exactly the one-minute floor, of the 80,000 ms in all (75%), so it is named."""
    trace = write_events(tmp_path / "t.jsonl", _scaled(TWO_LANES, 2000))
    assert _table_notes(trace) == [
        "note: 75% of the saved time (60.00 s) is one wave of 2 calls, in lane t/main:",
        "  see wavemetrics waves",
    ]


def test_a_lane_that_saves_under_a_minute_is_never_noted(tmp_path: Path) -> None:
    """TWO_LANES as written (30 of 40 ms, 75%) and at 1999 x (59,970 of 79,960 ms): the
    lane holds three quarters of the saving, but under one minute: no note, in the table
    or in the JSON."""
    for factor in (1, 1999):
        trace = write_events(tmp_path / f"t{factor}.jsonl", _scaled(TWO_LANES, factor))
        assert _table_notes(trace) == []
        assert json.loads(render_json(analyse(read_inputs([str(trace)]))))[
            "concentration"] == []


def test_the_concentration_is_a_field_of_the_json(tmp_path: Path) -> None:
    """TWO_LANES at 2000 x: ``concentration`` lists lane main (75%, 60,000 ms, 1 wave of
    2+ calls), after ``total``."""
    trace = write_events(tmp_path / "t.jsonl", _scaled(TWO_LANES, 2000))
    document = json.loads(render_json(analyse(read_inputs([str(trace)]))))
    assert list(document)[-2:] == ["total", "concentration"]
    assert document["concentration"] == [{
        "path": str(trace), "session_id": "t", "lane_id": "main", "share_percent": 75,
        "modeled_wallclock_saved_ms": 60000.0, "non_eval_waves_multi": 1,
    }]


_SEVERAL_WAVES: list[Event] = [
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
]


def test_a_lane_of_several_multi_call_waves_is_noted_as_a_lane(tmp_path: Path) -> None:
    """At 1000 x (ms to s): lane main's waves {a [0,100], b [0,50]} and {c [200,300], d
    [200,260]} save 50 + 60 = 110 of 120 s (91.67%, shown rounded down), lane sub's one
    wave 10 s: the note names the lane."""
    trace = write_events(tmp_path / "t.jsonl", _scaled(_SEVERAL_WAVES, 1000))
    assert _table_notes(trace) == [
        "note: 91% of the saved time (110.00 s) is from lane t/main, in 2 waves of 2+",
        "  calls: see wavemetrics waves",
    ]


def test_a_single_lane_is_noted_only_when_its_saving_is_one_wave(tmp_path: Path) -> None:
    """One lane holds all of the saving by definition: that says nothing, so a lane alone
    is noted only when one wave makes its saving (then that wave is the news). Lane main
    of the trace above alone, at 1000 x: two waves (110 s), no note; its first wave
    alone: 50 s, under the floor; at 2000 x: 100 s in one wave of 2 calls, noted."""
    main = [event for event in _SEVERAL_WAVES if event[4] == "main"]
    assert _table_notes(write_events(tmp_path / "two" / "t.jsonl", _scaled(main, 1000))) == []
    assert _table_notes(write_events(tmp_path / "one" / "t.jsonl", _scaled(main[:4], 1000))) == []
    assert _table_notes(write_events(tmp_path / "big" / "t.jsonl", _scaled(main[:4], 2000))) == [
        "note: 100% of the saved time (100.00 s) is one wave of 2 calls, in lane t/main:",
        "  see wavemetrics waves",
    ]


def test_no_note_when_no_lane_holds_half_of_the_saving(tmp_path: Path) -> None:
    """At 2000 x, lanes saving 60 and 80 s of 140 (42.9% and 57.1%): only the second is
    named; saving 80 and 80 s, both hold exactly half and both are named."""
    events: list[Event] = [
        ("tool_execution_start", "a", "read", 0, "x"),
        ("tool_execution_start", "b", "grep", 0, "x"),
        ("tool_execution_end", "b", "grep", 30, "x"),
        ("tool_execution_end", "a", "read", 100, "x"),
        ("tool_execution_start", "c", "read", 0, "y"),
        ("tool_execution_start", "d", "grep", 0, "y"),
        ("tool_execution_end", "d", "grep", 40, "y"),
        ("tool_execution_end", "c", "read", 100, "y"),
    ]
    assert [n[:41] for n in _table_notes(write_events(tmp_path / "t.jsonl",
                                                      _scaled(events, 2000)))
            if n.startswith("note:")] == ["note: 57% of the saved time (80.00 s) is "]
    events[2] = ("tool_execution_end", "b", "grep", 40, "x")
    assert [n[:41] for n in _table_notes(write_events(tmp_path / "u.jsonl",
                                                      _scaled(events, 2000)))
            if n.startswith("note:")] == ["note: 50% of the saved time (80.00 s) is "] * 2


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


def _capped_analysis(tmp_path: Path, cap: int | None = 3) -> Any:
    from tests.event_traces import CAPPED

    trace = write_events(tmp_path / "s.jsonl", CAPPED)
    return analyse(read_inputs([str(trace)]), max_tracked_calls=cap)


def test_the_loss_line_names_the_cap_and_how_to_lift_it(tmp_path: Path) -> None:
    """CAPPED under the cap 3: 2 calls dropped. The loss line says so, then the cap, the
    option that lifts it and its cost; without the cap's value it still names the option."""
    total = _capped_analysis(tmp_path).total
    assert (total.observed_calls, total.paired_calls, total.dropped_calls) == (5, 3, 2)
    assert loss_line(total, 3) == (
        "calls not counted: dropped 2 (figures are a lower bound): past the cap of 3 calls"
        " per lane; --max-tracked-calls 0 lifts it, at about 200 bytes of memory per tracked"
        " call")
    assert loss_line(total) == (
        "calls not counted: dropped 2 (figures are a lower bound): past the per-lane call"
        " cap; --max-tracked-calls 0 lifts it, at about 200 bytes of memory per tracked call")
    assert total_label(total) == "total*"


def test_no_loss_no_line_and_no_mark(tmp_path: Path) -> None:
    """Unbounded, CAPPED loses nothing: no loss line, the total row reads ``total``."""
    total = _capped_analysis(tmp_path, None).total
    assert loss_line(total, None) is None
    assert total_label(total) == "total"


def test_only_a_cap_marks_the_total_row(tmp_path: Path) -> None:
    """A call that never ended is a loss (the line, unmarked), not a cap (no ``*``)."""
    trace = write_events(tmp_path / "t.jsonl", [("tool_execution_start", "a", "read", 0, "main")])
    total = analyse(read_inputs([str(trace)])).total
    assert loss_line(total, 2000) == "calls not counted: incomplete 1 (figures are a lower bound)"
    assert total_label(total) == "total"
    lines = render_table(analyse(read_inputs([str(trace)]))).splitlines()
    assert "calls not counted: incomplete 1 (figures are a lower bound)" in lines


def test_the_waves_document_counts_each_lanes_calls_and_losses(tmp_path: Path) -> None:
    """waves_document: the inputs, the cap, per lane and in total observed 5, paired 3,
    dropped 2, 2 waves ({a, b} saving 5000 ms, {c}), then the waves."""
    analysis = _capped_analysis(tmp_path)
    document = waves_document(analysis, max_tracked_calls=3)
    figures = {"observed_calls": 5, "paired_calls": 3, "incomplete_calls": 0,
               "clock_anomalies": 0, "dropped_calls": 2, "waves_total": 2}
    assert document["max_tracked_calls"] == 3
    assert [lane["lane_id"] for lane in document["lanes"]] == ["main"]
    assert {k: document["lanes"][0][k] for k in figures} == figures
    assert document["total"] == figures
    assert [w["modeled_wallclock_saved_ms"] for w in document["waves"]] == [5000, 0]
    assert document["waves"] == wave_rows(analysis)


def test_under_the_total_row_tool_time_then_the_marked_loss_line(tmp_path: Path) -> None:
    """under_total with the cap 3: the tool time (30 s; 5 s saved is 16 %), then the loss
    line marked ``*`` and wrapped at 80 columns, then the turns block (busy: the wave
    [1 s, 16 s] and c [20 s, 30 s], 15 + 10 s), then the notes."""
    analysis = _capped_analysis(tmp_path)
    # each entry is one line of text, wrapped (as the notes are)
    lines = "\n".join(under_total(analysis, table_lane_cells(analysis.lanes)[0], 3)).splitlines()
    assert lines[:4] == [
        "tool time 30.00 s (paired calls' durations summed): saved s is 16% of it",
        "* calls not counted: dropped 2 (figures are a lower bound): past the cap of 3",
        "  calls per lane; --max-tracked-calls 0 lifts it, at about 200 bytes of memory",
        "  per tracked call",
    ]
    # then the turns block (its lines' words: tests/test_turns_block.py), then the notes
    block = "\n".join(activity_lines(analysis.total)).splitlines()
    assert block[0].startswith("turns:")  # the block is there, first its turns line
    assert lines[4:4 + len(block)] == block
    assert "tool busy 25.00 s of 30.00 s tool time (5.00 s overlapped)" in block  # 15 + 10 s
    assert all(line.startswith(("note:", "  ")) for line in lines[4 + len(block):])
    table = render_table(analysis, max_tracked_calls=3).splitlines()
    assert table[5].startswith("total*     1 lane")
    assert table[6:6 + len(lines)] == lines


def test_both_engines_print_the_same_capped_table(tmp_path: Path) -> None:
    """The native engine reads events traces too: under the cap 3 its table (total*, the
    loss line) is the Python engine's, byte for byte."""
    import pytest
    from click.testing import CliRunner

    from tests.event_traces import CAPPED
    from wavemetrics.cli.commands import main
    from wavemetrics.run import native

    if not native.available():
        pytest.skip("the Rust extension is not built")
    trace = str(write_events(tmp_path / "s.jsonl", CAPPED))
    outputs = [
        CliRunner().invoke(main, ["summarize", "--no-cache", "--engine", engine,
                                  "--max-tracked-calls", "3", trace]).stdout
        for engine in ("native", "python")
    ]
    assert outputs[0] == outputs[1]
    assert "total*" in outputs[0]


@given(lines=st.lists(trace_lines(event_records()), max_size=30), cap=caps)
@settings(max_examples=100, deadline=None,  # a file is written and read per example
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_the_waves_document_accounts_for_every_call_it_leaves_out(
    tmp_path: Path, lines: list[bytes], cap: int | None
) -> None:
    """For any events trace and cap: each lane's waves hold exactly its paired calls,
    every other observed start is counted as lost (or as a duplicate start), the total
    is the sum of the lanes, and the loss line exists exactly when a loss is counted."""
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(b"".join(lines))
    analysis = analyse(read_inputs([str(trace)]), max_tracked_calls=cap)
    document = waves_document(analysis, max_tracked_calls=cap)
    lost = ("incomplete_calls", "clock_anomalies", "dropped_calls")
    for lane, result in zip(document["lanes"], analysis.lanes, strict=True):
        sizes = [w["size"] for w in document["waves"]
                 if (w["session_id"], w["lane_id"]) == (lane["session_id"], lane["lane_id"])]
        assert sum(sizes) == lane["paired_calls"]
        assert len(sizes) == lane["waves_total"]
        assert lane["observed_calls"] == (lane["paired_calls"] + sum(lane[k] for k in lost)
                                          + result.summary.duplicate_starts)
    for name, value in document["total"].items():
        assert value == sum(lane[name] for lane in document["lanes"])
    assert (loss_line(analysis.total, cap) is not None) == any(
        document["total"][k] for k in lost)
    assert (total_label(analysis.total) == "total*") == (document["total"]["dropped_calls"] > 0)
