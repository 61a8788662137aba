"""The ``events`` reader (``docs/formats.md``, ``events`` and general rules), by hand.

Every expected value below is worked out from the fixture lines by hand; each
read also checks ``lines_read == lines_used + lines_ignored + problems``.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

from tests.batch_checks import batch_figures
from tests.reader_checks import cli_document, collect
from wavemetrics import Observation, assemble_waves
from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers.events import read_events
from wavemetrics.run.pipeline import Lane, read_inputs


def _line(**fields: Any) -> bytes:
    return json.dumps(fields).encode() + b"\n"


def _start(call: str, at: Any, name: str = "bash", **extra: Any) -> bytes:
    return _line(type="tool_execution_start", toolCallId=call, toolName=name, timestamp=at,
                 **extra)


def _end(call: str, at: Any, name: str = "bash", **extra: Any) -> bytes:
    return _line(type="tool_execution_end", toolCallId=call, toolName=name, timestamp=at, **extra)


def _read(lines: list[bytes], default: str = "file") -> tuple[list[Lane], LineAccount]:
    lanes, account = collect(read_events, lines, path="p.jsonl", default_session_id=default)
    assert account.lines_read == len(lines)
    assert account.lines_read == (
        account.lines_used + account.lines_ignored + sum(account.problems.values())
    )
    return lanes, account


def _obs(kind: str, call: str, at: float, name: str = "bash") -> Observation:
    return Observation(kind, call, name, at)


def test_number_timestamps_are_ms_since_the_epoch() -> None:
    """Integer and fractional numbers are taken as ms; 0 is the epoch and valid."""
    lanes, account = _read([_start("a", 1000), _end("a", 2500.5), _start("b", 0)])
    (lane,) = lanes
    assert lane.observations == (
        _obs("start", "a", 1000.0), _obs("end", "a", 2500.5), _obs("start", "b", 0.0)
    )
    assert account.lines_used == 3
    assert not account.problems


def test_iso_timestamps_with_z_or_an_offset_are_converted_exactly() -> None:
    """ISO-8601 with ``Z`` or an offset becomes ms since the epoch, fractions kept."""
    lanes, _ = _read([
        _start("a", "2025-01-01T00:00:00.250Z"),
        _end("a", "2025-01-01T02:00:01.5+02:00"),
        _start("b", "2024-12-31T19:00:00-05:00"),
        _start("c", "9999-12-31T23:59:59.999Z"),
    ])
    # 2025-01-01T00:00:00Z is 1 735 689 600 s after the epoch.
    assert [o.at_ms for o in lanes[0].observations] == [
        1735689600250.0, 1735689601500.0, 1735689600000.0, 253402300799999.0
    ]


def test_invalid_timestamps_are_problems_and_never_observations() -> None:
    """No offset, negative, pre-1970, null, missing, bool, numeric string, inf: ``invalid_timestamp``."""
    bad = [
        _start("a", "2025-01-01T00:00:00"),
        _start("b", -1),
        _start("c", -0.5),
        _start("d", "1969-12-31T23:59:59Z"),
        _start("e", None),
        _line(type="tool_execution_start", toolCallId="f", toolName="bash"),
        _start("g", True),
        _start("h", "1000"),
        b'{"type":"tool_execution_start","toolCallId":"i","toolName":"bash","timestamp":1e400}\n',
        _line(type="turn_start", timestamp="yesterday"),
        _line(type="turn_end"),
    ]
    lanes, account = _read([*bad, _start("ok", 5)])
    (lane,) = lanes
    assert lane.observations == (_obs("start", "ok", 5.0),)
    assert account.problems == Counter({"invalid_timestamp": 11})
    assert account.lines_used == 1


def test_missing_session_id_defaults_to_the_file_name_without_suffix(tmp_path: Path) -> None:
    """Without ``sessionId`` the session is the file name minus ``.jsonl`` / ``.jsonl.gz``."""
    (tmp_path / "run-42.jsonl").write_bytes(_start("a", 1) + _start("b", 2, sessionId="given"))
    (tmp_path / "zipped.jsonl.gz").write_bytes(gzip.compress(_start("c", 3), mtime=0))
    outcome = read_inputs([str(tmp_path)])
    assert [(lane.session_id, lane.lane_id) for lane in outcome.lanes] == [
        ("run-42", "main"), ("given", "main"), ("zipped", "main")
    ]
    assert [lane.path for lane in outcome.lanes] == [
        str(tmp_path / "run-42.jsonl"), str(tmp_path / "run-42.jsonl"),
        str(tmp_path / "zipped.jsonl.gz"),
    ]


def test_agent_ids_are_lanes_in_order_of_first_appearance() -> None:
    """``agentId`` picks the lane (default ``main``); lanes come out in first-seen order."""
    lanes, _ = _read([
        _start("a", 1, agentId="helper"),
        _start("b", 2),
        _end("a", 3, agentId="helper"),
        _start("c", 4, sessionId="other"),
        _end("b", 5, agentId="main"),
    ])
    assert [(lane.session_id, lane.lane_id) for lane in lanes] == [
        ("file", "helper"), ("file", "main"), ("other", "main")
    ]
    assert lanes[0].observations == (_obs("start", "a", 1.0), _obs("end", "a", 3.0))
    assert lanes[1].observations == (_obs("start", "b", 2.0), _obs("end", "b", 5.0))
    assert lanes[2].observations == (_obs("start", "c", 4.0),)


def test_session_shutdown_ends_all_lanes_of_its_session_only() -> None:
    """After ``session_shutdown`` of s1, s1's events (any lane) are dropped and counted; s2 goes on."""
    lines = [
        _start("a", 1000, sessionId="s1"),
        _start("b", 1100, sessionId="s1", agentId="x"),
        _start("c", 1200, sessionId="s2"),
        _line(type="session_shutdown", sessionId="s1"),
        _end("a", 1500, sessionId="s1"),
        _end("b", 1600, sessionId="s1", agentId="x"),
        _line(type="turn_start", timestamp=1650, sessionId="s1"),
        _start("new", 1660, sessionId="s1", agentId="late"),
        _start("bad", "no time", sessionId="s1"),
        _end("c", 1700, sessionId="s2"),
        _line(type="session_shutdown", sessionId="s1"),
        _line(type="agent_end", sessionId="s1"),
        _line(type="session_shutdown", sessionId="s2"),
    ]
    lanes, account = _read(lines)
    assert [(lane.session_id, lane.lane_id, lane.observations) for lane in lanes] == [
        ("s1", "main", (_obs("start", "a", 1000.0),)),
        ("s1", "x", (_obs("start", "b", 1100.0),)),
        ("s2", "main", (_obs("start", "c", 1200.0), _obs("end", "c", 1700.0))),
    ]
    assert account.lines_used == 6  # 3 starts, 2 shutdowns, the end of c
    assert account.ignored == Counter({"after_session_shutdown": 6, "agent_end": 1})
    assert not account.problems
    counters = [assemble_waves(lane.observations).counters for lane in lanes]
    assert [(c.paired_calls, c.incomplete_calls) for c in counters] == [(0, 1), (0, 1), (1, 0)]


def test_shutdown_of_the_default_session_needs_no_timestamp() -> None:
    """A ``session_shutdown`` without ``sessionId`` or ``timestamp`` ends the file's session."""
    lanes, account = _read([_start("a", 1), _line(type="session_shutdown"), _end("a", 2)])
    assert lanes[0].observations == (_obs("start", "a", 1.0),)
    assert account.lines_used == 2
    assert account.ignored == Counter({"after_session_shutdown": 1})


def test_turn_events_pair_into_measured_turn_duration_per_lane() -> None:
    """turn_start/turn_end pair per lane: overwrite, unmatched ends and non-positive spans add 0."""
    lines = [
        _line(type="turn_start", timestamp=1000),
        _line(type="turn_start", timestamp=100, agentId="x"),
        _line(type="turn_end", timestamp=4000),          # main +3000
        _line(type="turn_start", timestamp=5000),
        _line(type="turn_start", timestamp=6000),        # overwrites 5000
        _line(type="turn_end", timestamp=350, agentId="x"),  # x +250
        _line(type="turn_end", timestamp=6500),          # main +500
        _line(type="turn_end", timestamp=7000),          # no pending start: ignored
        _line(type="turn_start", timestamp=8000),
        _line(type="turn_end", timestamp=7500),          # negative: adds 0, clears
        _line(type="turn_end", timestamp=9000),          # no pending start: ignored
        _line(type="turn_end", timestamp=9500, agentId="y"),  # lane y: end only
    ]
    lanes, account = _read(lines)
    assert [(lane.lane_id, lane.measured_turn_duration_ms_total, lane.observations)
            for lane in lanes] == [("main", 3500.0, ()), ("x", 250.0, ()), ("y", 0.0, ())]
    assert account.lines_used == 12


def test_unknown_types_are_ignored_and_counted_by_type() -> None:
    """Other ``type`` values (and ``tool_execution_update``) are ignored per type, not problems."""
    lines = [
        _line(type="agent_start"),
        _line(type="message_update", timestamp=5),
        _line(type="tool_execution_update", toolCallId="a", toolName="bash", timestamp=6),
        _line(type="agent_start", anything=[1, 2]),
        _start("a", 10),
    ]
    lanes, account = _read(lines)
    assert lanes[0].observations == (_obs("start", "a", 10.0),)
    assert account.ignored == Counter(
        {"agent_start": 2, "message_update": 1, "tool_execution_update": 1}
    )
    assert account.lines_used == 1
    assert not account.problems


def test_records_without_a_string_type_are_problems() -> None:
    """A record with no ``type`` or a non-string one is ``missing_type``."""
    _, account = _read([_line(toolCallId="a"), _line(type=5), _line(type=None)])
    assert account.problems == Counter({"missing_type": 3})


def test_observations_are_fed_exactly_as_received() -> None:
    """Duplicate starts, orphan and repeated ends and reversed calls reach the core as written."""
    lines = [
        _start("a", 1000),
        _start("a", 1200, name="grep"),  # duplicate start: the core keeps the later one
        _end("z", 1300, name="ls"),      # orphan end, no start seen
        _end("a", 2000),
        _end("a", 2100),                 # repeated end: an orphan for the core
        _start("q", 3000),
        _end("q", 2500),                 # stamped before its start
        _start("n", 4000),               # never ends
    ]
    lanes, account = _read(lines)
    (lane,) = lanes
    assert lane.observations == (
        _obs("start", "a", 1000.0),
        _obs("start", "a", 1200.0, "grep"),
        _obs("end", "z", 1300.0, "unknown"),
        _obs("end", "a", 2000.0, "grep"),
        _obs("end", "a", 2100.0, "grep"),
        _obs("start", "q", 3000.0),
        _obs("end", "q", 2500.0),
        _obs("start", "n", 4000.0),
    )
    assert account.lines_used == 8
    assembly = assemble_waves(lane.observations)
    counters = assembly.counters
    assert counters.observed_calls == 4
    assert counters.duplicate_starts == 1
    assert counters.orphan_ends == 2
    assert counters.paired_calls == 1
    assert counters.clock_anomalies == 1
    assert counters.incomplete_calls == 1
    (wave,) = assembly.waves
    assert [(c.call_id, c.tool_name, c.start_ms, c.end_ms) for c in wave.calls] == [
        ("a", "grep", 1200.0, 2000.0)
    ]


def test_end_without_tool_name_takes_its_starts_name() -> None:
    """An end may omit ``toolName``: it carries its start's name, else ``unknown``."""
    lines = [
        _start("a", 1, name="Read"),
        _line(type="tool_execution_end", toolCallId="a", timestamp=2),
        _line(type="tool_execution_end", toolCallId="b", timestamp=3, toolName=None),
    ]
    lanes, account = _read(lines)
    assert lanes[0].observations == (
        _obs("start", "a", 1.0, "Read"), _obs("end", "a", 2.0, "Read"),
        _obs("end", "b", 3.0, "unknown"),
    )
    assert account.lines_used == 3


def test_tool_records_without_usable_id_or_name_are_invalid_tool_records() -> None:
    """A tool event lacking a usable call id (or a start lacking a name) never reaches the core."""
    lines = [
        _line(type="tool_execution_start", toolName="bash", timestamp=1),
        _line(type="tool_execution_start", toolCallId="", toolName="bash", timestamp=1),
        _line(type="tool_execution_start", toolCallId=7, toolName="bash", timestamp=1),
        _line(type="tool_execution_start", toolCallId="a", timestamp=1),
        _line(type="tool_execution_start", toolCallId="a", toolName="", timestamp=1),
        _line(type="tool_execution_start", toolCallId="a", toolName=["bash"], timestamp=1),
        b'{"type":"tool_execution_start","toolCallId":"a","toolName":"b\\ud800","timestamp":1}\n',
        b'{"type":"tool_execution_start","toolCallId":"\\udc00","toolName":"b","timestamp":1}\n',
        _line(type="tool_execution_end", timestamp=2),
        _line(type="tool_execution_end", toolCallId=None, toolName="bash", timestamp=2),
        _line(type="tool_execution_start", toolName="bash", timestamp="bad"),
    ]
    lanes, account = _read(lines)
    assert lanes == []
    assert account.problems == Counter({"invalid_tool_record": 11})


def test_unusable_session_or_agent_ids_are_invalid_id() -> None:
    """A present but empty, non-string or unencodable ``sessionId``/``agentId`` is ``invalid_id``."""
    lines = [
        _start("a", 1, sessionId=""),
        _start("a", 1, sessionId=5),
        _start("a", 1, sessionId=None),
        _start("a", 1, agentId=""),
        _start("a", 1, agentId=["x"]),
        b'{"type":"turn_start","timestamp":1,"agentId":"\\ud83d"}\n',
        _line(type="session_shutdown", sessionId=0),
    ]
    lanes, account = _read(lines)
    assert lanes == []
    assert account.problems == Counter({"invalid_id": 7})


def test_observations_keep_file_order_even_when_time_runs_backwards() -> None:
    """The reader never sorts: observations stay in line order."""
    lanes, _ = _read([_start("b", 50), _start("a", 10), _end("a", 20), _end("b", 60)])
    assert [(o.kind, o.call_id, o.at_ms) for o in lanes[0].observations] == [
        ("start", "b", 50.0), ("start", "a", 10.0), ("end", "a", 20.0), ("end", "b", 60.0)
    ]


def test_undecodable_file_name_gives_a_printable_default_session() -> None:
    """A default session id from a non-UTF-8 file name is escaped, so it can be hashed."""
    lanes, _ = collect(read_events, [_start("a", 1)], path="x", default_session_id="run\udcff")
    assert lanes[0].session_id == "run\\xff"


def test_figures_of_a_small_stream_end_to_end(tmp_path: Path) -> None:
    """Two overlapping calls and one alone give the hand-computed v1 figures for the lane."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join([
        _line(type="turn_start", timestamp=0),
        _start("a", 1000), _start("b", 1000, name="grep"),
        _end("a", 3000), _end("b", 4000, name="grep"),
        _start("c", 5000, name="eval"), _end("c", 6000, name="eval"),
        _line(type="turn_end", timestamp=10000),
    ]))
    code, document = cli_document([str(path)])
    assert code == 0
    assert document["inputs"] == [{
        "path": str(path), "format": "events", "lines_read": 8, "lines_used": 8,
        "lines_ignored": 0, "problems": {}, "ignored": {}, "notes": {}, "error": None,
    }]
    (lane,) = document["lanes"]
    # Wave 1: [1000,3000] and [1000,4000]: span 3000, durations 2000 + 3000 = 5000,
    # modeled 5000 - 3000 = 2000, upper (2 - 1) * 5000 / 2 = 2500, peak 2.
    # Wave 2: the eval call alone: an eval_only wave of span 1000.
    expected = {
        "session_id": "s", "lane_id": "main", "observed_calls": 3, "paired_calls": 3,
        "waves_total": 2, "non_eval_waves_total": 1, "non_eval_waves_multi": 1,
        "non_eval_joined_calls": 2, "non_eval_saved_round_trips": 1,
        "modeled_wallclock_saved_ms": 2000.0, "upper_bound_saved_ms": 2500.0,
        "non_eval_wave_size_histogram": "0:1:0:0:0:0:0:0", "eval_only_waves": 1,
        "eval_only_duration_ms": 1000.0, "measured_turn_duration_ms_total": 10000.0,
        "incomplete_calls": 0, "clock_anomalies": 0,
    }
    assert {key: lane[key] for key in expected} == expected


def test_end_with_an_empty_tool_name_is_an_invalid_tool_record(tmp_path: Path) -> None:
    """An end whose ``toolName`` is ``""`` is ``invalid_tool_record``, so its start stays open."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join([
        _start("a", 1000), _end("a", 2000, name=""),
        _start("b", 3000), _end("b", 4000, name=[]),
        _start("c", 5000), _end("c", 6000),
    ]))
    code, document = cli_document([str(path)])
    assert code == 0
    (report,) = document["inputs"]
    # 6 lines: two ends rejected, four records used; calls a and b never end.
    assert (report["lines_read"], report["lines_used"]) == (6, 4)
    assert report["problems"] == {"invalid_tool_record": 2}
    total = document["total"]
    assert (total["paired_calls"], total["incomplete_calls"]) == (1, 2)


def test_turns_that_overflow_the_total_are_problems(tmp_path: Path) -> None:
    """Turns of 1.5e308 ms each: the second would make the total infinite, so its end is
    ``turn_total_overflow`` and the total stays 1.5e308 (never a traceback)."""
    events = [("turn_start", 0), ("turn_end", 1.5e308), ("turn_start", 0),
              ("turn_end", 1.5e308)]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps({"type": kind, "timestamp": at}) + "\n"
                            for kind, at in events), encoding="utf-8")
    code, document = cli_document([str(path)])
    assert code == 0
    (entry,) = document["inputs"]
    assert (entry["lines_read"], entry["lines_used"], entry["problems"]) == (
        4, 3, {"turn_total_overflow": 1})
    assert document["total"]["measured_turn_duration_ms_total"] == 1.5e308


def test_ids_with_control_characters_are_invalid_id(tmp_path: Path) -> None:
    """An ``agentId`` with ESC, a ``sessionId`` with NUL or a lone surrogate is
    ``invalid_id``, not a lane; a ``toolCallId`` with one makes the tool record unusable."""
    lines = [
        {"type": "tool_execution_start", "toolCallId": "a", "toolName": "r", "timestamp": 1,
         "agentId": "x\x1b[2J"},
        {"type": "tool_execution_start", "toolCallId": "b", "toolName": "r", "timestamp": 1,
         "sessionId": "s\x00"},
        {"type": "tool_execution_start", "toolCallId": "c", "toolName": "r", "timestamp": 1,
         "sessionId": "s\ud800"},
        {"type": "tool_execution_start", "toolCallId": "d\x07", "toolName": "r", "timestamp": 1},
        {"type": "tool_execution_start", "toolCallId": "e", "toolName": "r", "timestamp": 1,
         "agentId": "sub\u202eagent"},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    outcome = read_inputs([str(path)])
    (report,) = outcome.inputs
    assert report.problems == {"invalid_id": 3, "invalid_tool_record": 1}
    # a bidi override is not a control character: the id is usable (and escaped in tables)
    assert [lane.lane_id for lane in outcome.lanes] == ["sub\u202eagent"]


def _write_events(tmp_path: Path, lines: list[bytes]) -> Path:
    path = tmp_path / "batches.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def _turn(kind: str, at: float) -> bytes:
    return _line(type=kind, timestamp=at)


def test_batches_are_the_calls_between_turn_starts(tmp_path: Path) -> None:
    """Batches (``docs/formats.md``, ``events``): the calls started after one
    ``turn_start`` and before the next; a start before the lane's first has none.

    x0 bash [0, 100] before any turn_start: no batch.
    turn 1: a read [1010, 1110], b grep [1020, 1050]: width 2.
    turn 2: c read [2010, 2100]: width 1, batchable.
    turn 3: d ls [3010, 3060]: width 1, batchable; 3010 - 2100 = 910 <= 300000 ms.
    turn 4: e bash [4010, 4500]: width 1, not batchable: it closes the run (c, d).
    calls_without_batch 1; batched_turns 4; multi_call_turns 1; widths 2, 1, 1, 1 give
    "3:1:0:0:0:0:0:0", max 2. The run (c, d) of k = 2: runs 1, calls 2, round trips
    1, upper = (3060 - 2010) - max(2100 - 2010, 3060 - 3010) = 1050 - 90 = 960.0.
    6 paired calls, all timed by execution.
    """
    path = _write_events(tmp_path, [
        _start("x0", 0), _end("x0", 100),
        _turn("turn_start", 1000),
        _start("a", 1010, "read"), _start("b", 1020, "grep"),
        _end("b", 1050, "grep"), _end("a", 1110, "read"),
        _turn("turn_end", 1120),
        _turn("turn_start", 2000), _start("c", 2010, "read"), _end("c", 2100, "read"),
        _turn("turn_end", 2110),
        _turn("turn_start", 3000), _start("d", 3010, "ls"), _end("d", 3060, "ls"),
        _turn("turn_end", 3070),
        _turn("turn_start", 4000), _start("e", 4010), _end("e", 4500),
    ])
    assert batch_figures(path) == {
        "calls_without_batch": 1, "batched_turns": 4, "multi_call_turns": 1,
        "turn_width_histogram": "3:1:0:0:0:0:0:0", "max_turn_width": 2,
        "missed_batch_runs": 1, "missed_batch_calls": 2, "missed_batch_round_trips": 1,
        "missed_batch_upper_ms": 960.0,
        "calls_timed_by_execution": 6, "calls_timed_by_message": 0,
    }


def test_batches_are_per_lane_and_keys_are_not_shared(tmp_path: Path) -> None:
    """Each lane counts its own turn_starts: lane ``sub``'s first turn is not lane
    ``main``'s, and its start before its own first turn_start has no batch.

    main: turn 1 holds a, b (width 2). sub: y before sub's first turn_start (no batch),
    then turn 1 of sub holds z (width 1, bash: no run). Merged: batched_turns 2,
    multi 1, "1:1:0:0:0:0:0:0", max 2, calls_without_batch 1, no missed batching.
    """
    path = _write_events(tmp_path, [
        _turn("turn_start", 0),
        _start("a", 10, "read"), _start("b", 20, "read"), _end("a", 30, "read"),
        _end("b", 40, "read"),
        _start("y", 50, agentId="sub"), _end("y", 60, agentId="sub"),
        _line(type="turn_start", timestamp=70, agentId="sub"),
        _start("z", 80, agentId="sub"), _end("z", 90, agentId="sub"),
    ])
    figures = batch_figures(path)
    assert (figures["calls_without_batch"], figures["batched_turns"],
            figures["multi_call_turns"], figures["turn_width_histogram"],
            figures["max_turn_width"], figures["missed_batch_runs"]) == (
        1, 2, 1, "1:1:0:0:0:0:0:0", 2, 0)


def test_an_overflowing_turn_end_opens_no_batch(tmp_path: Path) -> None:
    """A ``turn_end`` that would overflow the turn total is fed as a ``turn_start`` at
    +inf (so no later end pairs with it), but the line is still a turn_end: the calls
    after it stay in the batch of the last turn_start line.

    turn 1: no call; turn 2 (second turn_start line): a read [10, 20]; the overflowing
    turn_end; b read [30, 40]. Both in turn 2: one batch of width 2, "0:1:0:0:0:0:0:0".
    """
    path = _write_events(tmp_path, [
        _turn("turn_start", 0), _turn("turn_end", 1.5e308), _turn("turn_start", 0),
        _start("a", 10, "read"), _end("a", 20, "read"),
        _turn("turn_end", 1.5e308),
        _start("b", 30, "read"), _end("b", 40, "read"),
    ])
    figures = batch_figures(path)
    assert (figures["calls_without_batch"], figures["batched_turns"],
            figures["multi_call_turns"], figures["turn_width_histogram"],
            figures["max_turn_width"], figures["missed_batch_runs"]) == (
        0, 1, 1, "0:1:0:0:0:0:0:0", 2, 0)


def test_a_turn_start_with_a_bad_time_opens_no_batch(tmp_path: Path) -> None:
    """A ``turn_start`` that is an ``invalid_timestamp`` problem is not used, so it opens
    no batch: a and b (either side of it) are one turn of width 2."""
    path = _write_events(tmp_path, [
        _turn("turn_start", 0),
        _start("a", 10, "read"), _end("a", 20, "read"),
        _line(type="turn_start", timestamp="not a time"),
        _start("b", 30, "read"), _end("b", 40, "read"),
    ])
    figures = batch_figures(path)
    assert (figures["batched_turns"], figures["turn_width_histogram"]) == (
        1, "0:1:0:0:0:0:0:0")
