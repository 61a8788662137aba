"""The ``codex-tui`` reader (Codex TUI session recordings) on the corpus and on fixtures.

Expected corpus figures were computed independently of this package, by a
throwaway whole-file script written from ``docs/formats.md`` and
``docs/metrics.md``. The recording holds two sessions (two
``session_configured`` events): 19 calls (18 ``exec_command`` + 1
``patch_apply``) and 13 calls, all sequential. Checked by hand: the first call
begins at 15:51:14.179 and ends at 15:51:14.294 (115 ms); the tool time
366 350 + 460 ms agrees with the corpus manifest's 366.8 s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

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
from wavemetrics.readers.codex_tui import CODEX_TUI, read_codex_tui
from wavemetrics.readers.dispatch import InputReport
from wavemetrics.run.pipeline import Lane

# 2026-01-01T00:00:00Z: 20 454 days after the epoch.
BASE_MS = 1_767_225_600_000
RECORDING = "openai-codex/binary-size-log.jsonl"

# (session id, observed, paired, incomplete, waves, multi, histogram, modeled ms,
#  upper ms, round trips, tool time ms)
RECORDING_LANES = [
    ("d126e3d0-80ed-480a-be8c-09d97ff602cf", 19, 19, 0, 19, 0, "19:0:0:0:0:0:0:0",
     0.0, 0.0, 0, 366350.0),
    ("c7df96da-daec-4fe9-aed9-3cd19b7a6192", 13, 13, 0, 13, 0, "13:0:0:0:0:0:0:0",
     0.0, 0.0, 0, 460.0),
]


def _t(offset_ms: int) -> str:
    """ISO time ``offset_ms`` after BASE_MS (under one hour)."""
    minutes, rest = divmod(offset_ms, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"2026-01-01T00:{minutes:02d}:{seconds:02d}.{millis:03d}Z"


def _event(at: int, msg: dict[str, Any]) -> dict[str, Any]:
    return {"ts": _t(at), "dir": "to_tui", "kind": "codex_event",
            "payload": {"id": "1", "msg": msg}}


def _configured(at: int, session_id: str) -> dict[str, Any]:
    return _event(at, {"type": "session_configured", "session_id": session_id})


def _tool(at: int, event: str, call_id: str | None) -> dict[str, Any]:
    msg: dict[str, Any] = {"type": event}
    if call_id is not None:
        msg["call_id"] = call_id
    return _event(at, msg)


def _write(tmp_path: Path, records: list[Any], name: str = "recording.jsonl") -> str:
    return write_records(tmp_path, records, name)


def _read(path: str, input_format: str = "auto") -> tuple[InputReport, list[Lane]]:
    return read_one(path, "codex-tui", input_format)


def _summary(lane: Lane) -> ParallelismSummary:
    return summarize(assemble_waves(lane.observations))


@needs_corpus
def test_corpus_recording_figures() -> None:
    """The TUI recording gives two session lanes with the independently computed figures."""
    report, lanes = _read(str(CORPUS / RECORDING))
    assert (report.lines_read, report.lines_used, report.lines_ignored, report.problems) == (
        24109, 66, 24043, {})
    assert report.ignored["app_event"] == 19740
    assert report.ignored["codex_event.exec_command_output_delta"] == 777
    got = []
    for lane in lanes:
        s = _summary(lane)
        assert lane.lane_id == "main"
        got.append((lane.session_id, s.observed_calls, s.paired_calls, s.incomplete_calls,
                    s.non_eval_waves_total, s.non_eval_waves_multi,
                    s.non_eval_wave_size_histogram, s.modeled_wallclock_saved_ms,
                    s.upper_bound_saved_ms, s.non_eval_saved_round_trips, s.tool_time_ms))
    assert got == RECORDING_LANES


@needs_corpus
def test_corpus_recording_first_call_by_hand() -> None:
    """The first exec_command runs from 15:51:14.179 to 15:51:14.294 on 2025-08-09."""
    _, lanes = _read(str(CORPUS / RECORDING))
    first_ms = 1_754_754_674_179.0  # 2025-08-09T15:51:14.179Z
    assert observation_tuples(lanes[0])[:2] == [
        ("start", "call_FcgERRxr3Nze61sObylEGnl7", "exec_command", first_ms),
        ("end", "call_FcgERRxr3Nze61sObylEGnl7", "exec_command", first_ms + 115),
    ]
    names = [o.tool_name for o in lanes[0].observations if o.kind == "start"]
    assert names.count("patch_apply") == 1



def test_begin_and_end_events_pair_at_their_ts(tmp_path: Path) -> None:
    """exec_command and patch_apply begin/end events are starts and ends at the line's ts."""
    path = _write(tmp_path, [
        {"ts": _t(0), "dir": "meta", "kind": "session_start"},
        _configured(1, "sess-1"),
        _tool(100, "exec_command_begin", "a"),
        _tool(150, "patch_apply_begin", "b"),
        _tool(200, "patch_apply_end", "b"),
        _tool(400, "exec_command_end", "a"),
    ])
    report, (lane,) = _read(path)
    assert (lane.session_id, lane.lane_id) == ("sess-1", "main")
    assert observation_tuples(lane) == [
        ("start", "a", "exec_command", BASE_MS + 100.0),
        ("start", "b", "patch_apply", BASE_MS + 150.0),
        ("end", "b", "patch_apply", BASE_MS + 200.0),
        ("end", "a", "exec_command", BASE_MS + 400.0),
    ]
    assert (report.lines_read, report.lines_used, report.ignored) == (
        6, 5, {"session_start": 1})
    summary = _summary(lane)
    # One wave [100, 400]: 300 + 50 = 350 ms of tools in a 300 ms span.
    assert (summary.modeled_wallclock_saved_ms, summary.upper_bound_saved_ms,
            summary.non_eval_saved_round_trips) == (50.0, 175.0, 1)


def test_each_session_configured_opens_a_lane(tmp_path: Path) -> None:
    """Calls belong to the latest session_configured; a session without calls is still a lane."""
    path = _write(tmp_path, [
        _configured(0, "s-1"),
        _tool(10, "exec_command_begin", "a"), _tool(20, "exec_command_end", "a"),
        _configured(30, "s-empty"),
        _configured(40, "s-2"),
        _tool(50, "exec_command_begin", "b"), _tool(60, "exec_command_end", "b"),
        _configured(70, "s-1"),
        _tool(80, "exec_command_begin", "c"),
    ])
    _, lanes = _read(path)
    assert [(lane.session_id, [o.call_id for o in lane.observations]) for lane in lanes] == [
        ("s-1", ["a", "a", "c"]), ("s-empty", []), ("s-2", ["b", "b"]),
    ]
    assert _summary(lanes[0]).incomplete_calls == 1


def test_events_before_session_configured_use_the_file_name(tmp_path: Path) -> None:
    """Tool events before any session_configured go to a session named after the file."""
    path = _write(tmp_path, [
        _tool(10, "exec_command_begin", "a"), _tool(20, "exec_command_end", "a"),
    ], name="my-recording.jsonl")
    _, (lane,) = _read(path)
    assert lane.session_id == "my-recording"


def test_missing_end_is_incomplete_and_duplicates_reach_the_core(tmp_path: Path) -> None:
    """Events are fed as received: the core counts the duplicate begin, orphan end and
    incomplete call."""
    path = _write(tmp_path, [
        _configured(0, "s-1"),
        _tool(10, "exec_command_begin", "a"),
        _tool(15, "exec_command_begin", "a"),
        _tool(20, "exec_command_end", "a"),
        _tool(25, "exec_command_end", "a"),
        _tool(30, "exec_command_begin", "b"),
    ])
    report, (lane,) = _read(path)
    assert report.lines_used == 6
    summary = _summary(lane)
    assert (summary.observed_calls, summary.duplicate_starts, summary.paired_calls,
            summary.orphan_ends, summary.incomplete_calls) == (3, 1, 1, 1, 1)
    assert summary.tool_time_ms == 5.0


def test_unusable_lines_are_problems_and_others_ignored(tmp_path: Path) -> None:
    """Missing kind, bad payload, unusable ids and bad ts are problems; other kinds and events
    are ignored by name."""
    bad_ts = _tool(10, "exec_command_begin", "a")
    bad_ts["ts"] = "[trimmed for fixture]"
    path = _write(tmp_path, [
        _configured(0, "s-1"),
        {"ts": _t(1), "dir": "to_tui", "event": "no kind"},
        {"ts": _t(2), "dir": "to_tui", "kind": "codex_event", "payload": {"msg": "x"}},
        _event(3, {"type": "session_configured"}),
        _configured(3, "\ud800"),
        _tool(4, "exec_command_end", None),
        _tool(4, "exec_command_begin", "\udfff"),
        bad_ts,
        {"ts": _t(5), "dir": "to_tui", "kind": "key_event", "event": "KeyEvent"},
        _event(6, {"type": "mcp_tool_call_begin", "call_id": "m"}),
        _event(7, {"type": "agent_message_delta"}),
        "",
    ])
    report, (lane,) = _read(path)
    # the lone-surrogate session id is invalid_id (docs/formats.md), the missing one not
    assert report.problems == {"invalid_id": 1, "invalid_payload": 1,
                               "invalid_session_configured": 1, "invalid_timestamp": 1,
                               "invalid_tool_record": 2, "missing_kind": 1}
    assert report.ignored == {"blank_line": 1, "codex_event.agent_message_delta": 1,
                              "codex_event.mcp_tool_call_begin": 1, "key_event": 1}
    assert (report.lines_read, report.lines_used) == (12, 1)
    assert lane.observations == ()


def test_sniffer_claims_recordings_and_nothing_else() -> None:
    """The codex-tui recogniser needs ts, a string kind and a known dir."""
    assert sniffs(CODEX_TUI, [b'{"ts": "t", "dir": "meta", "kind": "session_start"}'], "r.jsonl")
    others = [
        b'{"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}',
        b'{"type": "session", "id": "x", "timestamp": "t"}',
        b'{"ts": "t", "dir": "sideways", "kind": "codex_event"}',
        b'{"dir": "to_tui", "kind": "codex_event"}',
    ]
    assert not any(sniffs(CODEX_TUI, [line], "r.jsonl") for line in others)


_TUI_MSG = st.fixed_dictionaries(
    {"type": plausible_or_any(st.sampled_from(["exec_command_begin", "exec_command_end",
                                     "patch_apply_begin", "patch_apply_end",
                                     "session_configured", "agent_message"]))},
    optional={"call_id": plausible_or_any(st.sampled_from(["a", "b"])),
              "session_id": plausible_or_any(st.sampled_from(["s-1", "s-2"]))},
)
_TUI_RECORD = st.fixed_dictionaries(
    {},
    optional={"ts": plausible_or_any(st.integers(0, 5).map(_t)),
              "dir": plausible_or_any(st.sampled_from(["to_tui", "meta"])),
              "kind": plausible_or_any(st.sampled_from(["codex_event", "app_event"])),
              "payload": plausible_or_any(st.fixed_dictionaries({}, optional={"msg": plausible_or_any(_TUI_MSG)}))},
)


@settings(max_examples=300, deadline=None)
@given(st.lists(fuzz_lines(_TUI_RECORD), max_size=12))
def test_fuzzed_recordings_never_raise(lines: list[bytes]) -> None:
    """Any mix of mutated recording lines and random bytes reads without an exception."""
    lanes, account = collect(read_codex_tui, lines, path="recording-fuzz.jsonl")
    assert account.lines_read == len(lines)
    assert account.lines_read == account.lines_used + account.lines_ignored + sum(
        account.problems.values())
    check_lanes(lanes)
    sniffs(CODEX_TUI, lines, "recording-fuzz.jsonl")


#: The batch figures of section 9 and provenance, for formats that record no batch.
NO_BATCH_FIGURES = (
    "paired_calls", "calls_without_batch", "batched_turns", "multi_call_turns",
    "turn_width_histogram", "max_turn_width", "missed_batch_runs", "missed_batch_calls",
    "missed_batch_round_trips", "missed_batch_upper_ms", "tool_busy_ms",
    "calls_timed_by_execution", "calls_timed_by_message")


def test_a_recording_gives_no_batch(tmp_path: Path) -> None:
    """docs/formats.md, ``codex-tui``, "Batches": none. Two overlapping calls and three
    serial ones (ms after BASE): a [100, 400] and b [150, 200] one wave, busy 300; c
    [600, 700], d [800, 900], e [1000, 1100] 100 each: busy 300 + 3 x 100 = 600. Every
    paired call (5) is without a batch: no turn, no run, histogram empty, widest 0."""
    path = _write(tmp_path, [
        _configured(1, "sess-1"),
        _tool(100, "exec_command_begin", "a"), _tool(150, "patch_apply_begin", "b"),
        _tool(200, "patch_apply_end", "b"), _tool(400, "exec_command_end", "a"),
        *(_tool(at + offset, event, call) for call, at in (("c", 600), ("d", 800), ("e", 1000))
          for offset, event in ((0, "exec_command_begin"), (100, "exec_command_end"))),
    ])
    code, document = cli_document([path], "--engine", "python")
    assert code == 0
    assert [tuple(lane[key] for key in NO_BATCH_FIGURES) for lane in document["lanes"]] == [
        (5, 5, 0, 0, "0:0:0:0:0:0:0:0", 0, 0, 0, 0, 0.0, 600.0, 5, 0)]


@needs_corpus
def test_the_corpus_recording_gives_no_batch() -> None:
    """Both sessions of the recording: all 19 and 13 paired calls without a batch."""
    code, document = cli_document([str(CORPUS / RECORDING)], "--engine", "python")
    assert code == 0
    assert [(lane["paired_calls"], lane["calls_without_batch"], lane["batched_turns"],
             lane["max_turn_width"], lane["missed_batch_runs"])
            for lane in document["lanes"]] == [(19, 19, 0, 0, 0), (13, 13, 0, 0, 0)]
