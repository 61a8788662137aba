"""The ``pi`` reader (pi coding-agent session files) on the corpus and on fixtures.

Expected corpus figures were computed independently of this package, by a
throwaway whole-file script written from ``docs/formats.md`` and
``docs/metrics.md``. Checked by hand against the raw lines: line 3 is an
assistant message at 22:41:09.389 with two ``read`` calls whose results are
written at .394 and .403. The header has no ``version`` (a v1 file, pi of
December 2025), so pi ran them one after another: the second starts when the
first's result is written, [.389, .394] and [.394, .403], one wave of 2 that
only touches, durations 5 + 9 ms, span 14 ms, modeled saving 0, upper bound 7
ms, no saved round trip. Read as starting together (before), they saved 5 ms
with an upper bound of 9.5 ms and a tool time of 435 082 ms (the corpus
manifest's 435.1 s, which sums the overlapping durations).
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.batch_checks import batch_figures, check_corpus_batches
from tests.corpus import CORPUS, needs_corpus
from tests.reader_checks import (
    WAVE_FIGURES,
    check_lanes,
    cli_document,
    collect,
    lane_figures,
    observation_tuples,
    read_one,
    sniffs,
    write_records,
)
from tests.strategies import fuzz_lines, plausible_or_any
from wavemetrics import ParallelismSummary, assemble_waves, summarize
from wavemetrics.readers.dispatch import InputReport
from wavemetrics.readers.pi import PARALLEL_SINCE_MS, PI, read_pi
from wavemetrics.run.pipeline import Lane

# 2026-01-01T00:00:00Z: 20 454 days after the epoch.
BASE_MS = 1_767_225_600_000
SESSION_FILE = "pi-mono/before-compaction.jsonl"


#: 2026-04-01T00:00:00Z, 90 days after BASE_MS: after pi v0.58.0 made the calls of one
#: message run in parallel (2026-03-14T02:09:20Z), so a v3 message then starts its calls
#: together.
APRIL = 90 * 86_400_000
#: 2026-03-14T02:09:20Z: 72 days, 2 h 9 min 20 s after BASE_MS.
PARALLEL_SINCE = 72 * 86_400_000 + 2 * 3_600_000 + 9 * 60_000 + 20_000


def _t(offset_ms: int) -> str:
    """ISO time ``offset_ms`` after BASE_MS (2026-01-01T00:00:00Z)."""
    moment = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(
        milliseconds=offset_ms)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _header(at: int, session_id: str) -> dict[str, Any]:
    return {"type": "session", "id": session_id, "timestamp": _t(at)}


def _assistant(at: int, *calls: tuple[str | None, str | None], text: bool = False
               ) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": ""}] if text else []
    for call_id, name in calls:
        block: dict[str, Any] = {"type": "toolCall", "arguments": {}}
        if call_id is not None:
            block["id"] = call_id
        if name is not None:
            block["name"] = name
        content.append(block)
    return {"type": "message", "timestamp": _t(at),
            "message": {"role": "assistant", "content": content}}


def _result(at: int, call_id: str | None, name: str = "bash") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "toolResult", "toolName": name, "content": []}
    if call_id is not None:
        message["toolCallId"] = call_id
    return {"type": "message", "timestamp": _t(at), "message": message}


def _write(tmp_path: Path, records: list[Any], name: str = "session.jsonl") -> str:
    return write_records(tmp_path, records, name)


def _read(path: str, input_format: str = "auto") -> tuple[InputReport, list[Lane]]:
    return read_one(path, "pi", input_format)


def _summary(lane: Lane) -> ParallelismSummary:
    return summarize(assemble_waves(lane.observations))


#: The nine multi-call messages of the corpus file (line, calls, ms from the message's
#: time to its last result), read from the raw lines; line 386's three reads never end.
#: Run one after another, each that ended is a touching chain: a wave of n, modeled saving
#: 0, upper bound (n - 1) x (span / n).
CORPUS_CHAINS = [(3, 2, 14), (32, 3, 38), (36, 3, 25), (58, 3, 23), (62, 2, 14),
                 (376, 4, 22), (381, 4, 22), (390, 2, 30)]


@needs_corpus
def test_corpus_session_figures() -> None:
    """The pi session file gives the independently computed lane and line figures: its
    multi-call messages ran one after another, so nothing is saved."""
    report, (lane,) = _read(str(CORPUS / SESSION_FILE))
    # each call after the first of a message whose predecessor ended: 1 + 2 + 2 + 2 + 1
    # + 3 + 3 + 1 (line 386's first read never ends, so its other two wait)
    assert (report.lines_read, report.lines_used, report.lines_ignored, report.problems,
            report.notes) == (1003, 886, 117, {}, {"reconstructed_starts": 15})
    assert report.ignored == {"compaction": 2, "message.assistant": 47,
                              "message.bashExecution": 3, "message.user": 55,
                              "model_change": 5, "thinking_level_change": 5}
    s = _summary(lane)
    assert (lane.session_id, lane.lane_id) == ("ffae836b-9420-4060-ac13-7745215f90ff", "main")
    assert (s.observed_calls, s.paired_calls, s.incomplete_calls, s.non_eval_waves_total,
            s.non_eval_waves_multi, s.non_eval_wave_size_histogram) == (
        454, 448, 6, 433, 8, "425:3:3:2:0:0:0:0")
    upper = 0.0
    for _, calls, span in CORPUS_CHAINS:  # the waves in order, summed left to right
        upper += (calls - 1) * (span / calls)
    # tool time: the 435 082 ms summed with shared starts, less the 194 ms they overlapped
    assert (s.modeled_wallclock_saved_ms, s.upper_bound_saved_ms,
            s.non_eval_saved_round_trips, s.tool_time_ms) == (0.0, upper, 0, 434888.0)
    assert upper == 7 + 38 * 2 / 3 + 25 * 2 / 3 + 23 * 2 / 3 + 7 + 16.5 + 16.5 + 15
    assert (s.clock_anomalies, s.dropped_calls, s.eval_only_waves, s.mixed_waves,
            s.measured_turn_duration_ms_total) == (0, 0, 0, 0, 0.0)


@needs_corpus
def test_corpus_first_wave_by_hand() -> None:
    """The first assistant message's two reads run one after another: a touching wave."""
    _, (lane,) = _read(str(CORPUS / SESSION_FILE))
    wave = assemble_waves(lane.observations).waves[0]
    start = 1_765_233_669_389.0  # 2025-12-08T22:41:09.389Z
    assert [(c.tool_name, c.start_ms, c.end_ms) for c in wave.calls] == [
        ("read", start, start + 5), ("read", start + 5, start + 14),
    ]
    assert (wave.span_ms, wave.max_concurrency) == (14.0, 1)


def test_calls_of_one_message_run_one_after_another(tmp_path: Path) -> None:
    """A v1 file (no header ``version``): the first call starts at its line time, the next
    when the first's result is written: a [100, 130], b [130, 160], touching: saving 0,
    upper bound 30 ms (one call's mean), no saved round trip; one start reconstructed."""
    path = _write(tmp_path, [
        _header(0, "sess-1"),
        {"type": "message", "timestamp": _t(5), "message": {"role": "user", "content": []}},
        _assistant(100, ("a", "read"), ("b", "grep"), text=True),
        _result(130, "a", name="ignored-name"),
        _result(160, "b"),
    ])
    report, (lane,) = _read(path)
    assert (lane.session_id, lane.lane_id) == ("sess-1", "main")
    assert observation_tuples(lane) == [
        ("start", "a", "read", BASE_MS + 100.0),
        ("end", "a", "read", BASE_MS + 130.0),
        ("start", "b", "grep", BASE_MS + 130.0),
        ("end", "b", "grep", BASE_MS + 160.0),
    ]
    assert (report.lines_read, report.lines_used, report.ignored, report.notes) == (
        5, 4, {"message.user": 1}, {"reconstructed_starts": 1})
    summary = _summary(lane)
    assert (summary.modeled_wallclock_saved_ms, summary.upper_bound_saved_ms,
            summary.non_eval_saved_round_trips) == (0.0, 30.0, 0)


def _two_bash(version: int | None, at: int) -> list[dict[str, Any]]:
    """A message at ``at`` with two bash calls whose results come 60 s and 120 s later."""
    header = _header(0, "s") if version is None else {**_header(0, "s"), "version": version}
    return [header, _assistant(at, ("a", "bash"), ("b", "bash")),
            _result(at + 60_000, "a"), _result(at + 120_000, "b")]


def test_two_bash_calls_of_one_message_save_nothing_when_run_one_after_another(
    tmp_path: Path,
) -> None:
    """Before: both started at the message's time, [0, 60 s] and [0, 120 s]: saving
    180 - 120 = 60 s, upper bound 90 s. pi ran them one after another (every version up
    to v0.57.1): [0, 60 s] and [60 s, 120 s], saving 0, upper bound 60 s (the mean),
    no saved round trip. So for v1, v2 and v3 files of January 2026 alike."""
    for version in (None, 2, 3):
        report, (lane,) = _read(_write(tmp_path, _two_bash(version, 1000), f"v{version}.jsonl"))
        summary = _summary(lane)
        assert (summary.modeled_wallclock_saved_ms, summary.upper_bound_saved_ms,
                summary.non_eval_saved_round_trips) == (0.0, 60_000.0, 0), version
        assert report.notes == {"reconstructed_starts": 1}


def test_v3_calls_start_together_from_pi_0_58(tmp_path: Path) -> None:
    """A v3 file's message at or after 2026-03-14T02:09:20Z (pi v0.58.0 runs the calls
    of a message in parallel by default) starts its calls together, as recorded: saving
    60 s, upper bound 90 s, one saved round trip; one millisecond before, one after
    another. v1 and v2 files (pi before v0.35.0) are sequential at any date."""
    assert BASE_MS + PARALLEL_SINCE == PARALLEL_SINCE_MS
    for version, at, figures, notes in (
        (3, PARALLEL_SINCE, (60_000.0, 90_000.0, 1), {}),
        (3, APRIL, (60_000.0, 90_000.0, 1), {}),
        (4, APRIL, (60_000.0, 90_000.0, 1), {}),
        (3, PARALLEL_SINCE - 1, (0.0, 60_000.0, 0), {"reconstructed_starts": 1}),
        (2, APRIL, (0.0, 60_000.0, 0), {"reconstructed_starts": 1}),
        (None, APRIL, (0.0, 60_000.0, 0), {"reconstructed_starts": 1}),
    ):
        report, (lane,) = _read(_write(tmp_path, _two_bash(version, at), "s.jsonl"))
        summary = _summary(lane)
        assert (summary.modeled_wallclock_saved_ms, summary.upper_bound_saved_ms,
                summary.non_eval_saved_round_trips) == figures, (version, at)
        assert report.notes == notes, (version, at)


def test_a_call_whose_predecessor_never_ends_waits_at_its_start(tmp_path: Path) -> None:
    """Calls a [0, 10], b (no result), c (no result): b starts when a's result comes (10),
    c never got its turn and starts with b when the next tool-call message comes (at 10,
    before d's start at 50); at the end of the input likewise (f after e, which never
    ends: both at 70)."""
    path = _write(tmp_path, [
        _header(0, "s"),
        _assistant(0, ("a", "bash"), ("b", "read"), ("c", "read")),
        _result(10, "a"),
        _assistant(50, ("d", "bash")),
        _result(60, "d"),
        _assistant(70, ("e", "bash"), ("f", "bash")),
    ])
    report, (lane,) = _read(path)
    assert observation_tuples(lane) == [
        ("start", "a", "bash", BASE_MS + 0.0), ("end", "a", "bash", BASE_MS + 10.0),
        ("start", "b", "read", BASE_MS + 10.0), ("start", "c", "read", BASE_MS + 10.0),
        ("start", "d", "bash", BASE_MS + 50.0), ("end", "d", "bash", BASE_MS + 60.0),
        ("start", "e", "bash", BASE_MS + 70.0), ("start", "f", "bash", BASE_MS + 70.0),
    ]
    assert report.notes == {"reconstructed_starts": 1}
    summary = _summary(lane)
    assert (summary.paired_calls, summary.incomplete_calls) == (2, 4)


def test_a_result_out_of_turn_starts_the_waiting_calls_as_recorded(tmp_path: Path) -> None:
    """Results b (20), a (30), c (40) of a message [a, b, c] at 0: b's result comes before
    a's, so they did not run in this order one after another; b and c start at a's start
    first, as recorded: [0, 30], [0, 20], [0, 40], saving 90 - 40 = 50 ms."""
    path = _write(tmp_path, [
        _header(0, "s"),
        _assistant(0, ("a", "bash"), ("b", "bash"), ("c", "bash")),
        _result(20, "b"), _result(30, "a"), _result(40, "c"),
    ])
    report, (lane,) = _read(path)
    assert observation_tuples(lane) == [
        ("start", "a", "bash", BASE_MS + 0.0), ("start", "b", "bash", BASE_MS + 0.0),
        ("start", "c", "bash", BASE_MS + 0.0), ("end", "b", "bash", BASE_MS + 20.0),
        ("end", "a", "bash", BASE_MS + 30.0), ("end", "c", "bash", BASE_MS + 40.0),
    ]
    assert report.notes == {}
    assert _summary(lane).modeled_wallclock_saved_ms == 50.0


def test_a_repeated_id_in_one_message_is_one_call_of_the_chain(tmp_path: Path) -> None:
    """[a, a, b] at 0 with results a (10), b (25): the second a is a repeat (noted, never
    fed); b follows a: [0, 10], [10, 25]."""
    path = _write(tmp_path, [
        _header(0, "s"), _assistant(0, ("a", "bash"), ("a", "read"), ("b", "grep")),
        _result(10, "a"), _result(25, "b"),
    ])
    report, (lane,) = _read(path)
    assert observation_tuples(lane) == [
        ("start", "a", "bash", BASE_MS + 0.0), ("end", "a", "bash", BASE_MS + 10.0),
        ("start", "b", "grep", BASE_MS + 10.0), ("end", "b", "grep", BASE_MS + 25.0),
    ]
    assert report.notes == {"repeated_tool_call": 1, "reconstructed_starts": 1}


def test_missing_result_is_incomplete_and_orphan_result_unknown(tmp_path: Path) -> None:
    """A call without a result is incomplete; a result without a call ends as "unknown"."""
    path = _write(tmp_path, [
        _header(0, "s"), _assistant(10, ("a", "bash")), _result(20, "zz"),
    ])
    _, (lane,) = _read(path)
    assert observation_tuples(lane)[-1] == ("end", "zz", "unknown", BASE_MS + 20.0)
    summary = _summary(lane)
    assert (summary.incomplete_calls, summary.orphan_ends, summary.paired_calls) == (1, 1, 0)


def test_duplicate_call_ids_first_start_and_first_end_win(tmp_path: Path) -> None:
    """Repeated toolCall ids and results are counted, never fed."""
    path = _write(tmp_path, [
        _header(0, "s"),
        _assistant(10, ("a", "bash")),
        _assistant(15, ("a", "read")),                 # all repeats: line ignored
        _assistant(18, ("a", "read"), ("b", "read")),  # one repeat, one new
        _result(20, "a"), _result(25, "a"), _result(30, "b"),
    ])
    report, (lane,) = _read(path)
    assert observation_tuples(lane) == [
        ("start", "a", "bash", BASE_MS + 10.0),
        ("start", "b", "read", BASE_MS + 18.0),
        ("end", "a", "bash", BASE_MS + 20.0),
        ("end", "b", "read", BASE_MS + 30.0),
    ]
    assert report.notes == {"repeated_tool_call": 2}
    assert report.ignored == {"repeated_tool_record": 1, "repeated_tool_result": 1}
    assert report.lines_used == 5


def test_invalid_blocks_and_records_are_counted(tmp_path: Path) -> None:
    """Blocks without a usable id or name (missing, or a lone surrogate) are skipped; a tool
    line with none usable is a problem."""
    path = _write(tmp_path, [
        _header(0, "s"),
        _assistant(10, ("a", "bash"), (None, "read"), ("c", None)),
        _assistant(11, (None, None), ("\ud800", "bash")),
        _result(12, None),
        _result(12, "\udfff"),
        {"type": "message", "timestamp": _t(13), "message": "not an object"},
        {"timestamp": _t(14), "message": {}},
    ])
    report, (lane,) = _read(path)
    assert report.notes == {"invalid_tool_blocks": 4}
    assert report.problems == {"invalid_payload": 1, "invalid_tool_record": 3,
                               "missing_type": 1}
    assert [o.call_id for o in lane.observations] == ["a"]


def test_invalid_timestamps_on_tool_lines_are_problems(tmp_path: Path) -> None:
    """A tool line with an unusable time is a problem; a non-tool line's time is not checked."""
    call = _assistant(10, ("a", "bash"))
    call["timestamp"] = "[trimmed for fixture]"
    result = _result(20, "b")
    result["timestamp"] = BASE_MS + 20  # a number, not ISO
    naive = _assistant(30, ("c", "bash"))
    naive["timestamp"] = "2026-01-01T00:00:00.030"
    user = {"type": "message", "timestamp": "[trimmed for fixture]",
            "message": {"role": "user", "content": []}}
    path = _write(tmp_path, [_header(0, "s"), call, _assistant(15, ("b", "bash")), result,
                             naive, user])
    report, (lane,) = _read(path)
    assert report.problems == {"invalid_timestamp": 3}
    assert report.ignored == {"message.user": 1}
    assert observation_tuples(lane) == [("start", "b", "bash", BASE_MS + 15.0)]


def test_session_header_rules(tmp_path: Path) -> None:
    """The first header with a usable id names the session; unusable ones before are problems
    (a lone surrogate is ``invalid_id``) and later ones are ignored."""
    path = _write(tmp_path, [
        {"type": "session", "id": "", "timestamp": _t(0)},
        {"type": "session", "id": "\ud800", "timestamp": _t(0)},
        _header(1, "first"), _header(2, "second"),
        {"type": "model_change", "timestamp": _t(3)},
        {"type": "custom_future_type", "timestamp": _t(4)},
    ])
    report, (lane,) = _read(path)
    assert lane.session_id == "first"
    assert report.problems == {"invalid_id": 1, "invalid_session_header": 1}
    assert report.ignored == {"custom_future_type": 1, "model_change": 1,
                              "repeated_session": 1}
    assert lane.observations == ()


def test_session_id_falls_back_to_the_file_name_uuid(tmp_path: Path) -> None:
    """Without a header the UUID that ends the file name is the session id."""
    uuid = "d97339c6-0000-4000-8000-00000000abcd"
    path = _write(tmp_path, [_assistant(10, ("a", "bash")), _result(20, "a")],
                  name=f"2026-01-01T00-00-00-000Z_{uuid}.jsonl")
    report, (lane,) = _read(path)
    assert lane.session_id == uuid
    assert report.notes == {"session_id_from_file_name": 1}


def test_input_without_records_has_no_lane(tmp_path: Path) -> None:
    """An input of only unusable lines read as pi gives no lane and counts every line."""
    path = _write(tmp_path, ["{broken", "\"text\""])
    report, lanes = _read(path, "pi")
    assert lanes == []
    assert report.problems == {"invalid_json": 1, "not_an_object": 1}


def test_sniffer_claims_pi_sessions_and_nothing_else() -> None:
    """The pi recogniser needs a session header or a message line with a role."""
    assert sniffs(PI, [json.dumps(_header(0, "s")).encode()], "s.jsonl")
    assert sniffs(PI, [json.dumps(_result(1, "a")).encode()], "s.jsonl")
    others = [
        b'{"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}',
        b'{"ts": "t", "dir": "meta", "kind": "session_start"}',
        b'{"type": "assistant", "uuid": "u", "message": {"role": "assistant"}}',
        b'{"type": "session", "id": 5, "timestamp": "t"}',
        b'{"type": "message", "message": "text"}',
    ]
    assert not any(sniffs(PI, [line], "s.jsonl") for line in others)


_PI_BLOCK = st.fixed_dictionaries(
    {"type": plausible_or_any(st.just("toolCall"))},
    optional={"id": plausible_or_any(st.sampled_from(["a", "b"])), "name": plausible_or_any(st.just("read"))},
)
_PI_MESSAGE = st.fixed_dictionaries(
    {"role": plausible_or_any(st.sampled_from(["assistant", "toolResult", "user"]))},
    optional={"content": plausible_or_any(st.lists(plausible_or_any(_PI_BLOCK), max_size=3)),
              "toolCallId": plausible_or_any(st.sampled_from(["a", "b"]))},
)
_PI_RECORD = st.fixed_dictionaries(
    {},
    optional={"type": plausible_or_any(st.sampled_from(["session", "message", "compaction"])),
              "timestamp": plausible_or_any(st.integers(0, 5).map(_t)),
              "id": plausible_or_any(st.just("s-1")), "message": plausible_or_any(_PI_MESSAGE)},
)


@settings(max_examples=300, deadline=None)
@given(st.lists(fuzz_lines(_PI_RECORD), max_size=12))
def test_fuzzed_sessions_never_raise(lines: list[bytes]) -> None:
    """Any mix of mutated session lines and random bytes reads without an exception."""
    lanes, account = collect(read_pi, lines, path="session-fuzz.jsonl")
    assert account.lines_read == len(lines)
    assert account.lines_read == account.lines_used + account.lines_ignored + sum(
        account.problems.values())
    check_lanes(lanes)
    sniffs(PI, lines, "session-fuzz.jsonl")


# --- 2026 shapes: v3 forks copy their parent's entries.

def _entry(entry_id: str, parent: str | None, record: dict[str, Any]) -> dict[str, Any]:
    """A v3 entry: ``record`` with its 8-hex ``id`` and ``parentId``."""
    return {**record, "id": entry_id, "parentId": parent}


def _parent_entries() -> list[dict[str, Any]]:
    """Calls t1 [0, 2000] and t2 [0, 3000] of one message, as v3 entries of April 2026
    (pi v0.58.0 and later: the calls of a message start together). Times are ms after
    APRIL."""
    return [
        _entry("0000000a", None, _assistant(APRIL, ("t1", "bash"), ("t2", "read"))),
        _entry("0000000b", "0000000a", _result(APRIL + 2000, "t1")),
        _entry("0000000c", "0000000b", _result(APRIL + 3000, "t2", "read")),
    ]


def _v3_header(session_id: str, **parent: str) -> dict[str, Any]:
    return {**_header(0, session_id), "version": 3, **parent}


def _fork_records(parent_ref: dict[str, str], session_id: str = "sess-f",
                  own: tuple[str, str, str] = ("0000000d", "0000000e", "t3"),
                  copies: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """A fork: its header naming the parent, the parent's entries (same ids and times), then
    its own call [10000, 11000]."""
    return [
        _v3_header(session_id, **parent_ref),
        *(copies if copies is not None else _parent_entries()),
        _entry(own[0], "0000000c", _assistant(APRIL + 10_000, (own[2], "bash"))),
        _entry(own[1], own[0], _result(APRIL + 11_000, own[2])),
    ]


def _write_folder(folder: Path, files: dict[str, list[dict[str, Any]]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, records in files.items():
        write_records(folder, records, name)


#: Parent: one wave [0, 3000], durations 2000 + 3000, span 3000: 2000 ms saved, peak 2.
#: Fork: t3 alone.
PI_FORK_FIGURES = {
    ("sess-p", "main"): (2, "0:1:0:0:0:0:0:0", 1, 2000.0),
    ("sess-f", "main"): (1, "1:0:0:0:0:0:0:0", 0, 0.0),
}


def test_a_fork_does_not_count_its_parents_wave_twice(tmp_path: Path) -> None:
    """The parent's entries copied into a fork are ``duplicate_entry``, read parent first
    even when the fork's file name sorts first."""
    # Before: both lanes had the wave of t1 and t2, 2000 ms saved twice (4000 in total);
    # rebuilt here with the header's parent left out.
    unmarked = tmp_path / "--unmarked--"
    _write_folder(unmarked, {
        "2026-01-01_a-fork.jsonl": _fork_records({}),
        "2026-01-01_z-parent.jsonl": [_v3_header("sess-p"), *_parent_entries()],
    })
    assert cli_document([str(unmarked)])[1]["total"]["modeled_wallclock_saved_ms"] == 4000.0
    folder = tmp_path / "--proj--"
    _write_folder(folder, {
        "2026-01-01_a-fork.jsonl": _fork_records({"parentSession": "sess-p"}),
        "2026-01-01_z-parent.jsonl": [_v3_header("sess-p"), *_parent_entries()],
    })
    code, document = cli_document([str(folder)])
    assert code == 0
    assert lane_figures(document, *WAVE_FIGURES) == PI_FORK_FIGURES
    fork, parent = document["inputs"]
    assert (fork["lines_read"], fork["lines_used"], fork["ignored"]) == (
        6, 3, {"duplicate_entry": 3})
    assert (parent["lines_used"], parent["ignored"]) == (4, {})
    assert document["total"]["modeled_wallclock_saved_ms"] == 2000.0


def test_a_fork_named_by_file_path_and_a_fork_of_a_fork(tmp_path: Path) -> None:
    """``branchedFrom`` may name the parent's file; a fork of a fork drops the copies of both."""
    folder = tmp_path / "--proj--"
    fork = _fork_records({"branchedFrom": "/home/u/.pi/agent/sessions/--proj--/p.jsonl"})
    grandchild = _fork_records({"parentSession": "sess-f"}, "sess-g",
                               ("0000000f", "00000010", "t4"), copies=fork[1:])
    _write_folder(folder, {"a.jsonl": grandchild, "b.jsonl": fork,
                           "p.jsonl": [_v3_header("sess-p"), *_parent_entries()]})
    _, document = cli_document([str(folder)])
    assert lane_figures(document, *WAVE_FIGURES) == {
        **PI_FORK_FIGURES, ("sess-g", "main"): (1, "1:0:0:0:0:0:0:0", 0, 0.0)}
    assert [entry["ignored"] for entry in document["inputs"]] == [
        {"duplicate_entry": 5}, {"duplicate_entry": 3}, {}]


def test_a_fork_read_without_its_parent_keeps_its_entries(tmp_path: Path) -> None:
    """Alone in its folder, a fork's copied entries are its own history and are read."""
    folder = tmp_path / "--proj--"
    _write_folder(folder, {"fork.jsonl": _fork_records({"parentSession": "sess-p"})})
    _, document = cli_document([str(folder)])
    # t1 [0, 2000], t2 [0, 3000] (one wave, 2000 ms saved) and t3 alone, all in sess-f.
    assert lane_figures(document, *WAVE_FIGURES) == {
        ("sess-f", "main"): (3, "1:1:0:0:0:0:0:0", 1, 2000.0)}


def test_same_entry_ids_at_other_times_are_not_copies(tmp_path: Path) -> None:
    """Only an entry with the same id and timestamp as one already read is a copy."""
    folder = tmp_path / "--proj--"
    other = [_entry("0000000a", None, _assistant(50_000, ("u1", "bash"))),
             _entry("0000000b", "0000000a", _result(51_000, "u1"))]
    _write_folder(folder, {"a.jsonl": [_v3_header("sess-x", parentSession="sess-p"), *other],
                           "p.jsonl": [_v3_header("sess-p"), *_parent_entries()]})
    _, document = cli_document([str(folder)])
    assert [entry["ignored"] for entry in document["inputs"]] == [{}, {}]
    assert lane_figures(document, "observed_calls") == {
        ("sess-x", "main"): (1,), ("sess-p", "main"): (2,)}


@settings(max_examples=25, deadline=None)
@given(names=st.permutations(["a", "m", "z"]))
def test_fork_figures_do_not_depend_on_file_names(names: list[str]) -> None:
    """However the parent, its fork and the fork's fork are named, each keeps its own calls."""
    fork = _fork_records({"parentSession": "sess-p"})
    grandchild = _fork_records({"parentSession": "sess-f"}, "sess-g",
                               ("0000000f", "00000010", "t4"), copies=fork[1:])
    contents = [[_v3_header("sess-p"), *_parent_entries()], fork, grandchild]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "--proj--"
        _write_folder(folder, {f"{name}.jsonl": records
                               for name, records in zip(names, contents, strict=True)})
        _, document = cli_document([str(folder)])
    assert lane_figures(document, *WAVE_FIGURES) == {
        **PI_FORK_FIGURES, ("sess-g", "main"): (1, "1:0:0:0:0:0:0:0", 0, 0.0)}


def test_batches_are_assistant_message_lines(tmp_path: Path) -> None:
    """Batches (``docs/formats.md``, ``pi``): the calls of one assistant ``message`` line.
    Every start comes from such a line, so a pi call always has a batch.

    A v3 file in April (calls of a message start together), times after APRIL:
    message 1 at 1000: a read [1000, 1500], b grep [1000, 1600]: width 2.
    message 2: c read [2000, 2300]; message 3: d ls [3000, 3100]; message 4: e bash
    [4000, 5000] (not batchable: closes the run c, d of k = 2, upper
    (3100 - 2000) - max(300, 100) = 800).
    message 5 repeats c only: no new call, no turn.
    paired 5, none without a batch; 4 turns, 1 multi, "3:1:0:0:0:0:0:0", max 2; runs 1,
    calls 2, round trips 1, upper 800.0; pi timing: 5 by message.
    """
    header = {**_header(APRIL, "s-pi"), "version": 3}
    records = [
        header,
        _assistant(APRIL + 1000, ("a", "read"), ("b", "grep")),
        _result(APRIL + 1500, "a"), _result(APRIL + 1600, "b"),
        _assistant(APRIL + 2000, ("c", "read")), _result(APRIL + 2300, "c"),
        _assistant(APRIL + 3000, ("d", "ls")), _result(APRIL + 3100, "d"),
        _assistant(APRIL + 4000, ("e", "bash")), _result(APRIL + 5000, "e"),
        _assistant(APRIL + 6000, ("c", "read")),
    ]
    path = _write(tmp_path, records)
    assert batch_figures(path) == {
        "calls_without_batch": 0, "batched_turns": 4, "multi_call_turns": 1,
        "turn_width_histogram": "3:1:0:0:0:0:0:0", "max_turn_width": 2,
        "missed_batch_runs": 1, "missed_batch_calls": 2, "missed_batch_round_trips": 1,
        "missed_batch_upper_ms": 800.0,
        "calls_timed_by_execution": 0, "calls_timed_by_message": 5,
    }


def test_a_sequential_messages_reconstructed_starts_keep_its_batch(tmp_path: Path) -> None:
    """A v1 message (calls run one after another): y starts when x's result is written
    (1200) but stays in the message's batch: one turn of width 2, none without."""
    records = [
        _header(0, "s-seq"),
        _assistant(1000, ("x", "read"), ("y", "read")),
        _result(1200, "x"), _result(1500, "y"),
    ]
    path = _write(tmp_path, records)
    figures = batch_figures(path)
    assert (figures["calls_without_batch"], figures["batched_turns"],
            figures["multi_call_turns"], figures["turn_width_histogram"],
            figures["missed_batch_runs"]) == (0, 1, 1, "0:1:0:0:0:0:0:0", 0)


@needs_corpus
def test_corpus_batch_figures_are_sane() -> None:
    """The corpus session read as ``pi`` gives sane batch figures."""
    assert check_corpus_batches({"pi"}) >= 1
