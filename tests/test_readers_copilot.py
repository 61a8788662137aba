"""The ``copilot`` reader (``docs/formats.md``, ``copilot``): GitHub Copilot CLI event logs.

No real Copilot CLI file was available: every fixture is written here from the
documented event schema (the Copilot SDK's generated session events). Every
expected figure is worked out by hand from the rules of ``docs/metrics.md``; the
arithmetic is in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from tests.reader_checks import (
    check_lanes,
    cli_document,
    collect,
    lane_figures,
    observation_tuples,
    read_one,
    sniffs,
)
from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers.copilot import COPILOT, copilot_session_id, read_copilot
from wavemetrics.readers.dispatch import detect_input
from wavemetrics.readers.events import EVENTS

T = "2026-12-03T10:00:"
T0_MS = 1_796_292_000_000  # 2026-12-03T10:00:00Z


def _event(kind: str, second: str | float, data: dict[str, Any], **extra: Any) -> dict[str, Any]:
    stamp = f"{T}{second}Z" if isinstance(second, str) else second
    return {"id": f"e-{kind}-{second}", "parentId": "e0", "timestamp": stamp, "type": kind,
            "data": data, **extra}


def _start(call: str, name: str, second: str, **extra: Any) -> dict[str, Any]:
    return _event("tool.execution_start", second,
                  {"toolCallId": call, "toolName": name, "arguments": {"path": "secret"}},
                  **extra)


def _complete(call: str, second: str, **extra: Any) -> dict[str, Any]:
    return _event("tool.execution_complete", second,
                  {"toolCallId": call, "success": True, "result": {"content": "secret"}}, **extra)


SESSION_START = _event("session.start", "00.000", {
    "sessionId": "sess-9", "version": 1, "producer": "copilot-agent",
    "copilotVersion": "1.0.0", "startTime": f"{T}00.000Z", "context": {"cwd": "/w"}})

#: Three calls in parallel, a sub-agent (lane sa_1) with two, an unfinished call and
#: three unusable records (22 lines).
SESSION: list[Any] = [
    SESSION_START,                                                     # 1 used
    _event("user.message", "00.500", {"content": "secret prompt"}),    # 2 ignored
    _event("assistant.message", "00.900", {                            # 3 ignored
        "messageId": "m1", "content": "", "toolRequests": [
            {"toolCallId": c, "name": "view"} for c in ("tc_1", "tc_2", "tc_3")]}),
    _start("tc_1", "view", "01.000"),                                  # 4 used
    _start("tc_2", "grep", "01.010"),                                  # 5 used
    _start("tc_3", "bash", "01.020"),                                  # 6 used
    _complete("tc_2", "01.210"),                                       # 7 used
    _complete("tc_1", "01.400"),                                       # 8 used
    _complete("tc_3", "02.020"),                                       # 9 used
    _start("tc_4", "task", "03.000"),                                  # 10 used
    _event("subagent.started", "03.100", {                             # 11 ignored
        "toolCallId": "tc_4", "agentName": "explore", "agentDisplayName": "Explore",
        "agentDescription": "d"}, agentId="sa_1"),
    _start("tc_9", "view", "03.500", agentId="sa_1"),                  # 12 used
    _start("tc_10", "grep", "03.600", agentId="sa_1"),                 # 13 used
    _complete("tc_10", "03.700", agentId="sa_1"),                      # 14 used
    _complete("tc_9", "03.800", agentId="sa_1"),                       # 15 used
    _event("subagent.completed", "05.900", {                           # 16 ignored
        "toolCallId": "tc_4", "agentName": "explore", "agentDisplayName": "Explore"},
        agentId="sa_1"),
    _complete("tc_4", "06.000"),                                       # 17 used
    _start("tc_5", "bash", "07.000"),                                  # 18 used, never ends
    _event("tool.execution_start", "07.100", {"toolCallId": "tc_6"}),  # 19 no toolName
    _event("tool.execution_start", T0_MS + 7200,                       # 20 a number
           {"toolCallId": "tc_7", "toolName": "view"}),
    '{"id": "e-cut", "type": "tool.exec',                               # 21 invalid JSON
    _event("tool.execution_partial_result", "07.300",                  # 22 ignored
           {"toolCallId": "tc_5", "partialOutput": "secret"}),
]


def _write(tmp_path: Path, records: list[Any], folder: str = "sess-9",
           name: str = "events.jsonl") -> str:
    path = tmp_path / ".copilot" / "session-state" / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_session_lines_are_accounted_by_hand(tmp_path: Path) -> None:
    """22 lines: 14 tool and session lines used, 5 ignored by type, 3 problems."""
    report, lanes = read_one(_write(tmp_path, SESSION), "copilot")
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (22, 14, 5)
    assert dict(report.ignored) == {
        "assistant.message": 1, "subagent.completed": 1, "subagent.started": 1,
        "tool.execution_partial_result": 1, "user.message": 1}
    assert dict(report.problems) == {
        "invalid_json": 1, "invalid_timestamp": 1, "invalid_tool_record": 1}
    check_lanes(lanes)
    main, sub = lanes
    assert (main.session_id, main.lane_id, sub.session_id, sub.lane_id) == (
        "sess-9", "main", "sess-9", "sa_1")
    # the parent's task call (tc_4) stays in the parent's lane
    assert observation_tuples(sub) == [
        ("start", "tc_9", "view", T0_MS + 3500.0), ("start", "tc_10", "grep", T0_MS + 3600.0),
        ("end", "tc_10", "grep", T0_MS + 3700.0), ("end", "tc_9", "view", T0_MS + 3800.0),
    ]
    assert [o[:2] for o in observation_tuples(main)] == [
        ("start", "tc_1"), ("start", "tc_2"), ("start", "tc_3"), ("end", "tc_2"),
        ("end", "tc_1"), ("end", "tc_3"), ("start", "tc_4"), ("end", "tc_4"),
        ("start", "tc_5")]


FIGURES = ("observed_calls", "paired_calls", "incomplete_calls", "non_eval_waves_total",
           "non_eval_wave_size_histogram", "non_eval_saved_round_trips",
           "modeled_wallclock_saved_ms", "upper_bound_saved_ms", "tool_time_ms")


def test_session_figures_by_hand(tmp_path: Path) -> None:
    """The summarize document's figures, per lane and in total.

    Lane main (ms after 10:00:00): tc_1 1000-1400 (400), tc_2 1010-1210 (200),
    tc_3 1020-2020 (1000) overlap: one wave, span 2020 - 1000 = 1020, sum 1600,
    saved 1600 - 1020 = 580, upper bound (3 - 1) * 1600 / 3, peak 3 at 1020 so 2
    round trips. tc_4 3000-6000 (3000) is a wave alone. tc_5 never ends:
    incomplete. Observed 5, paired 4, tool time 400 + 200 + 1000 + 3000 = 4600.
    Lane sa_1: tc_9 3500-3800 (300), tc_10 3600-3700 (100): span 300, sum 400,
    saved 100, upper bound 1 * 400 / 2 = 200, peak 2 so 1 round trip.
    """
    code, document = cli_document([_write(tmp_path, SESSION)])
    assert code == 0
    assert lane_figures(document, *FIGURES) == {
        ("sess-9", "main"): (5, 4, 1, 2, "1:0:1:0:0:0:0:0", 2, 580.0, 2 * (1600 / 3), 4600.0),
        ("sess-9", "sa_1"): (2, 2, 0, 1, "0:1:0:0:0:0:0:0", 1, 100.0, 200.0, 400.0),
    }
    total = document["total"]
    assert (total["paired_calls"], total["non_eval_saved_round_trips"],
            total["modeled_wallclock_saved_ms"], total["upper_bound_saved_ms"]) == (
        6, 3, 680.0, 2 * (1600 / 3) + 200.0)


def test_both_engines_give_the_same_bytes(tmp_path: Path) -> None:
    """The native engine leaves the file to the Python reader (its detector claims no
    ``events`` or ``claude-code`` file here): the same document either way."""
    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    path = _write(tmp_path, SESSION)
    outputs = [CliRunner().invoke(main, ["summarize", "--format", "json", "--engine", engine,
                                         path]).stdout for engine in ("python", "native")]
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["inputs"][0]["format"] == "copilot"


def test_session_id_from_session_start_else_folder_else_file_name(tmp_path: Path) -> None:
    """``session.start``'s ``data.sessionId`` names the session; without one, the folder
    of ``events.jsonl``; a file of another name, its name without suffix."""
    calls = [_start("a", "view", "01.000"), _complete("a", "01.100")]
    _, lanes = read_one(_write(tmp_path, [SESSION_START, *calls], "elsewhere"), "copilot")
    assert lanes[0].session_id == "sess-9"
    _, lanes = read_one(_write(tmp_path, calls, "4f1c-dir"), "copilot")
    assert lanes[0].session_id == "4f1c-dir"
    _, lanes = read_one(_write(tmp_path, calls, "x", "copy.jsonl"), "copilot")
    assert lanes[0].session_id == "copy"
    assert copilot_session_id("-") == "stdin"


def test_session_start_rules(tmp_path: Path) -> None:
    """A second ``session.start`` is ignored; one without a usable id is a problem."""
    second = _event("session.start", "00.100", {"sessionId": "other"})
    bad = _event("session.start", "00.000", {"sessionId": "a\x1b[2J"})
    missing = _event("session.start", "00.000", {"version": 1})
    calls = [_start("a", "view", "01.000"), _complete("a", "01.100")]
    report, lanes = read_one(_write(tmp_path, [SESSION_START, second, *calls]), "copilot")
    assert dict(report.ignored) == {"repeated_session": 1} and lanes[0].session_id == "sess-9"
    report, lanes = read_one(_write(tmp_path, [bad, missing, *calls], "f"), "copilot")
    assert dict(report.problems) == {"invalid_id": 1, "invalid_session_header": 1}
    assert lanes[0].session_id == "f"


@pytest.mark.parametrize(("record", "reason"), [
    (_event("tool.execution_start", "01.000", {"toolCallId": "a", "toolName": ""}),
     "invalid_tool_record"),
    (_event("tool.execution_start", "01.000", {"toolName": "view"}), "invalid_tool_record"),
    (_event("tool.execution_complete", "01.000", {"toolCallId": 7}), "invalid_tool_record"),
    (_event("tool.execution_complete", "01.000", {"toolCallId": "a\x00"}),
     "invalid_tool_record"),
    ({**_complete("a", "01.000"), "data": "text"}, "invalid_tool_record"),
    ({**_complete("a", "01.000"), "data": None}, "invalid_tool_record"),
    (_complete("a", "01.000", agentId=""), "invalid_id"),
    (_complete("a", "01.000", agentId=None), "invalid_id"),
    (_complete("a", "01.000", agentId=["x"]), "invalid_id"),
    ({**_complete("a", "01.000"), "timestamp": "2026-12-03T10:00:01"}, "invalid_timestamp"),
    ({**_complete("a", "01.000"), "timestamp": None}, "invalid_timestamp"),
    ({**_complete("a", "01.000"), "timestamp": "1969-12-31T23:59:59Z"}, "invalid_timestamp"),
    ({key: value for key, value in _complete("a", "01.000").items() if key != "timestamp"},
     "invalid_timestamp"),
    ({**_complete("a", "01.000"), "type": 5}, "missing_type"),
])
def test_unusable_records_are_problems(record: dict[str, Any], reason: str) -> None:
    """A tool event without a usable id, name, data, lane or time is a problem, never an
    observation."""
    lanes, account = collect(read_copilot, [json.dumps(record).encode() + b"\n"], path="p")
    assert dict(account.problems) == {reason: 1}
    assert all(not lane.observations for lane in lanes)


def test_an_offset_timestamp_and_a_repeat_are_fed_as_received() -> None:
    """ISO times with an offset are exact; a repeated start reaches the core (which counts
    it as a duplicate start)."""
    lines = [json.dumps(r).encode() + b"\n" for r in (
        {**_start("a", "view", "00.000"), "timestamp": "2026-12-03T11:00:01.5+01:00"},
        _start("a", "view", "02.000"), _complete("a", "03.000"))]
    lanes, account = collect(read_copilot, lines, path="p")
    assert account.lines_used == 3
    assert [o[3] - T0_MS for o in observation_tuples(lanes[0])] == [1500.0, 2000.0, 3000.0]


def test_input_without_tool_events_has_no_lane() -> None:
    """A log of chatter only gives no lane."""
    lanes, account = collect(read_copilot, [json.dumps(SESSION_START).encode() + b"\n"],
                             path="p")
    assert lanes == [] and account.lines_used == 1


EVENTS_LINES = [
    b'{"type":"tool_execution_start","toolCallId":"a","toolName":"read","timestamp":1}',
    b'{"type":"tool_execution_end","toolCallId":"a","toolName":"read","timestamp":2}',
    b'{"type":"turn_start","timestamp":1}',
]


def test_copilot_and_events_logs_are_told_apart(tmp_path: Path) -> None:
    """Both are often ``events.jsonl``: the ``events`` recogniser takes no Copilot event,
    the Copilot recogniser no ``events`` record, and detection names each."""
    copilot_lines = [json.dumps(r).encode() for r in SESSION if isinstance(r, dict)]
    for line in copilot_lines:
        assert not sniffs(EVENTS, [line], "events.jsonl")
        # every line with the envelope's string time is recognised (line 20's is a number)
        assert sniffs(COPILOT, [line], "events.jsonl") == (b'"timestamp": "' in line)
    for line in EVENTS_LINES:
        assert not sniffs(COPILOT, [line], "events.jsonl")
    assert detect_input(_write(tmp_path, SESSION)).format == "copilot"
    events = tmp_path / "host" / "events.jsonl"
    events.parent.mkdir()
    events.write_bytes(b"\n".join(EVENTS_LINES) + b"\n")
    assert detect_input(str(events)).format == "events"


def test_no_earlier_format_claims_a_copilot_log(tmp_path: Path) -> None:
    """Every format before ``copilot`` in the registry refuses each fixture line."""
    from wavemetrics.readers.registry import TRACE_FORMATS

    earlier = TRACE_FORMATS[:[f.name for f in TRACE_FORMATS].index("copilot")]
    for record in SESSION:
        line = (record if isinstance(record, str) else json.dumps(record)).encode()
        assert [f.name for f in earlier if sniffs(f, [line], "events.jsonl")] == []


def test_the_recogniser_needs_the_envelope() -> None:
    """A dotted type alone, or an envelope without ``data``/``parentId``, is not enough."""
    others = [
        b'{"type": "tool.execution_start", "timestamp": "t", "data": {}}',
        b'{"id": "e", "parentId": null, "type": "tool.execution_start", "timestamp": "t"}',
        b'{"id": "e", "parentId": null, "type": "brand_new", "timestamp": "t", "data": {}}',
        b'{"id": "e", "parentId": null, "type": "session.start", "timestamp": 5, "data": {}}',
    ]
    assert not any(sniffs(COPILOT, [line], "events.jsonl") for line in others)


@needs_corpus
def test_no_corpus_file_is_read_as_copilot() -> None:
    """Files of the other formats keep their detection: none is taken as a Copilot log."""
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "MANIFEST.md")
    assert files
    assert [str(p) for p in files if detect_input(str(p)).format == "copilot"] == []


def test_arguments_and_results_never_reach_the_output(tmp_path: Path) -> None:
    """The word ``secret`` (arguments, results, prompt) appears in no output."""
    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    path = _write(tmp_path, SESSION)
    for fmt in ("json", "table"):
        result = CliRunner().invoke(main, ["summarize", "--format", fmt, path])
        assert "secret" not in result.stdout + result.stderr


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5)
    | st.sampled_from(["tool.execution_start", "tool.execution_complete", "session.start",
                       "assistant.message", "2026-12-03T10:00:01.000Z", "a", "main"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["type", "timestamp", "data", "agentId", "toolCallId",
                                       "toolName", "sessionId", "id", "parentId",
                                       "toolRequests", "apiCallId", "messageId"]),
                      inner, max_size=5),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_JSON.map(lambda v: json.dumps(v).encode() + b"\n"), max_size=10))
def test_fuzzed_logs_never_raise_and_account_every_line(lines: list[bytes]) -> None:
    """Any JSON lines: no exception, every line accounted, every observation valid."""
    lanes, account = collect(read_copilot, lines, path="p")
    assert isinstance(account, LineAccount)
    assert account.lines_read == len(lines) == (
        account.lines_used + account.lines_ignored + sum(account.problems.values()))
    check_lanes(lanes)


def test_the_formats_doc_example_gives_the_figures_it_states(tmp_path: Path) -> None:
    """docs/formats.md, ``copilot``: saving 870 ms, upper bound 1935 ms, one round trip,
    in lane main; lane sa_1 alone."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "formats.md").read_text("utf-8")
    section = text.split("## `copilot`", 1)[1].split("\n## ", 1)[0]
    (block,) = [b for b in section.split("```") if b.startswith("jsonl\n")]
    path = tmp_path / "s-1" / "events.jsonl"
    path.parent.mkdir()
    path.write_text(block.removeprefix("jsonl\n"), encoding="utf-8")
    code, document = cli_document([str(path)])
    assert code == 0
    assert lane_figures(document, "paired_calls", "modeled_wallclock_saved_ms",
                        "upper_bound_saved_ms", "non_eval_saved_round_trips") == {
        ("s-1", "main"): (2, 870.0, 1935.0, 1), ("s-1", "sa_1"): (1, 0.0, 0.0, 0)}


@settings(max_examples=200, deadline=None)
@given(st.lists(_JSON.map(lambda v: json.dumps(v).encode() + b"\n"), max_size=8))
def test_the_typed_decoder_and_the_stdlib_parser_agree(lines: list[bytes]) -> None:
    """Lines decoded into the typed records and lines parsed by the stdlib ``json`` (the
    path of a line msgspec rejects) give the same lanes and the same account."""
    import wavemetrics.readers.copilot as module

    fixture = [(r if isinstance(r, str) else json.dumps(r)).encode() + b"\n"
               for r in (*SESSION, *BATCHES)]
    typed = collect(read_copilot, [*fixture, *lines], path="p")
    saved = module._DECODER
    module._DECODER = None
    try:
        plain = collect(read_copilot, [*fixture, *lines], path="p")
    finally:
        module._DECODER = saved
    assert [lane.observations for lane in typed[0]] == [lane.observations for lane in plain[0]]
    assert typed[1] == plain[1]


def _message(second: str, calls: list[str], api: str | None, message_id: str,
             **extra: Any) -> dict[str, Any]:
    """An ``assistant.message`` requesting ``calls`` (``apiCallId`` omitted when ``None``)."""
    data: dict[str, Any] = {
        "messageId": message_id, "content": "secret text", "toolRequests": [
            {"toolCallId": call, "name": "x", "arguments": {"path": "secret"}}
            for call in calls]}
    if api is not None:
        data["apiCallId"] = api
    return _event("assistant.message", second, data, **extra)


#: Batches (docs/formats.md, ``copilot``, "Batches"), times in s after 10:00:00.
BATCHES: list[Any] = [
    SESSION_START,
    # one response split in two messages (one apiCallId): a batch of 3
    _message("00.900", ["tc_a", "tc_b"], "api-1", "m1"),
    _message("00.950", ["tc_c"], "api-1", "m2"),
    _start("tc_a", "view", "01.000"), _start("tc_b", "grep", "01.010"),
    _start("tc_c", "bash", "01.020"),
    _complete("tc_b", "01.210"), _complete("tc_a", "01.400"), _complete("tc_c", "02.020"),
    # three single read-only calls, one response each; m4 has no apiCallId and a
    # messageId equal to m3's apiCallId: still a batch of its own
    _message("02.900", ["tc_d"], "api-2", "m3"),
    _start("tc_d", "view", "03.000"), _complete("tc_d", "03.500"),
    _message("03.900", ["tc_e"], None, "api-2"),
    _start("tc_e", "grep", "04.000"), _complete("tc_e", "04.200"),
    _message("04.400", ["tc_f"], "api-4", "m5"),
    _start("tc_f", "glob", "04.500"), _complete("tc_f", "04.600"),
    # a bash call ends the run
    _message("04.900", ["tc_g"], "api-5", "m6"),
    _start("tc_g", "bash", "05.000"), _complete("tc_g", "06.000"),
    # a call the user asked for: no message lists it, no batch
    _start("tc_h", "ls", "06.500"), _complete("tc_h", "06.700"),
    _message("06.900", ["tc_i"], "api-6", "m7"),
    _start("tc_i", "read", "07.000"), _complete("tc_i", "07.300"),
    _message("07.350", ["tc_j"], "api-7", "m8"),
    _start("tc_j", "read", "07.400"), _complete("tc_j", "07.500"),
    # the sub-agent's response reuses the id "api-1": batches are per lane
    _message("03.400", ["tc_9", "tc_10"], "api-1", "m9", agentId="sa_1"),
    _start("tc_9", "view", "03.500", agentId="sa_1"),
    _start("tc_10", "grep", "03.600", agentId="sa_1"),
    _complete("tc_10", "03.700", agentId="sa_1"), _complete("tc_9", "03.800", agentId="sa_1"),
]

BATCH_FIGURES = (
    "calls_without_batch", "batched_turns", "multi_call_turns", "turn_width_histogram",
    "max_turn_width", "missed_batch_runs", "missed_batch_calls", "missed_batch_round_trips",
    "missed_batch_upper_ms", "tool_busy_ms", "calls_timed_by_execution",
    "calls_timed_by_message")


def test_batches_by_hand(tmp_path: Path) -> None:
    """The section-9 figures of the batches fixture (ms after 10:00:00).

    Lane main, batches in start order: api-1 = {tc_a 1000-1400, tc_b 1010-1210, tc_c
    1020-2020}, width 3; api-2 {tc_d view 3000-3500}; message m4 {tc_e grep 4000-4200};
    api-4 {tc_f glob 4500-4600}; api-5 {tc_g bash 5000-6000}; api-6 {tc_i read
    7000-7300}; api-7 {tc_j read 7400-7500}: 7 batches, 1 of them multi-call, widths
    1 x 6 and 3 x 1, widest 3. tc_h (ls 6500-6700) has no batch: 1 call without one
    (and it does not break a run: only batches are walked).
    Runs (idle gap 300 s, never reached): api-1 (width 3) closes nothing; tc_d, tc_e,
    tc_f join; bash closes the run of 3: 1 run, 3 calls, 2 round trips, upper
    (4600 - 3000) - max(500, 200, 100) = 1100. tc_i, tc_j: a run of 2 closed at the end,
    1 round trip, upper (7500 - 7000) - max(300, 100) = 200. Totals: 2 runs, 5 calls,
    3 round trips, 1100 + 200 = 1300 ms.
    Busy: waves [1000, 2020] 1020, then tc_d 500, tc_e 200, tc_f 100, tc_g 1000, tc_h
    200, tc_i 300, tc_j 100: 1020 + 500 + 200 + 100 + 1000 + 200 + 300 + 100 = 3420.
    Timing ``execution``: all 10 paired calls.
    Lane sa_1: one batch {tc_9 3500-3800, tc_10 3600-3700} of 2; busy 3800 - 3500 = 300.
    """
    code, document = cli_document([_write(tmp_path, BATCHES)], "--engine", "python")
    assert code == 0
    assert lane_figures(document, *BATCH_FIGURES) == {
        ("sess-9", "main"): (1, 7, 1, "6:0:1:0:0:0:0:0", 3, 2, 5, 3, 1300.0, 3420.0, 10, 0),
        ("sess-9", "sa_1"): (0, 1, 1, "0:1:0:0:0:0:0:0", 2, 0, 0, 0, 0.0, 300.0, 2, 0),
    }
    assert "secret" not in json.dumps(document)  # message text, arguments
    total = document["total"]
    # merged: sums, histograms added, the widest turn by maximum
    assert tuple(total[key] for key in BATCH_FIGURES) == (
        1, 8, 2, "6:1:1:0:0:0:0:0", 3, 2, 5, 3, 1300.0, 3720.0, 12, 0)


def test_a_message_without_usable_ids_or_requests_gives_no_batch() -> None:
    """A message with neither a usable ``apiCallId`` nor ``messageId``, or whose
    ``toolRequests`` is not a list, gives its calls no batch; the message line stays
    ignored either way."""
    records = [
        _event("assistant.message", "00.100", {"apiCallId": "", "messageId": 7,
                                               "toolRequests": [{"toolCallId": "a"}]}),
        _event("assistant.message", "00.200", {"apiCallId": "x", "toolRequests": "a"}),
        _start("a", "view", "01.000"), _complete("a", "01.100")]
    lanes, account = collect(read_copilot, [json.dumps(r).encode() + b"\n" for r in records],
                             path="p")
    assert dict(account.ignored) == {"assistant.message": 2} and account.lines_used == 2
    assert [o.batch for o in lanes[0].observations] == [None, None]
