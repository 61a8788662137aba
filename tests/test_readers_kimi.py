"""The ``kimi`` reader (``docs/formats.md``, ``kimi``): Kimi CLI wire logs.

No real Kimi CLI file was available: every fixture is written here from the
documented record format (``MoonshotAI/kimi-cli``, ``src/kimi_cli/wire/``). Times
are eighths of a second, exact in binary, so every figure below is exact; the
arithmetic (``docs/metrics.md``) is in the comments.
"""

from __future__ import annotations

import json
from fractions import Fraction
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
from wavemetrics.readers.dispatch import detect_input
from wavemetrics.readers.kimi import KIMI, kimi_lane, read_kimi, seconds_to_ms

T0 = 1_796_292_000  # 2026-12-03T10:00:00Z, Unix seconds
T0_MS = T0 * 1000
HEADER = {"type": "metadata", "protocol_version": "1.4"}


def _record(at: Any, kind: str, payload: Any) -> dict[str, Any]:
    return {"timestamp": T0 + at if isinstance(at, float) else at,
            "message": {"type": kind, "payload": payload}}


def _call(call: str, name: str, at: float) -> dict[str, Any]:
    return _record(at, "ToolCall", {"type": "function", "id": call, "function": {
        "name": name, "arguments": json.dumps({"path": "secret"})}})


def _result(call: str, at: float) -> dict[str, Any]:
    return _record(at, "ToolResult", {"tool_call_id": call, "return_value": {
        "is_error": False, "output": "secret", "message": "", "display": []}})


#: The parent's log: three calls in parallel, a sub-agent's task call (its calls are in
#: the sub-agent's own log; the parent's copy is a SubagentEvent), an unfinished call
#: and three unusable records (18 lines).
SESSION: list[Any] = [
    HEADER,                                                           # 1 used
    _record(0.0, "TurnBegin", {"user_input": "secret prompt"}),       # 2 ignored
    _record(0.5, "StepBegin", {"n": 1}),                              # 3 ignored
    _call("tool_a", "ReadFile", 1.0),                                 # 4 used
    _call("tool_b", "Grep", 1.125),                                   # 5 used
    _call("tool_c", "Shell", 1.25),                                   # 6 used
    _result("tool_b", 1.25),                                          # 7 used
    _result("tool_a", 1.5),                                           # 8 used
    _result("tool_c", 2.25),                                          # 9 used
    _record(2.5, "StepBegin", {"n": 2}),                              # 10 ignored
    _call("tool_d", "Task", 3.0),                                     # 11 used
    _record(3.5, "SubagentEvent", {                                   # 12 ignored
        "parent_tool_call_id": "tool_d", "agent_id": "sa7", "subagent_type": "coder",
        "event": _call("s1", "ReadFile", 3.5)["message"]}),
    _result("tool_d", 6.0),                                           # 13 used
    _call("tool_e", "Shell", 7.0),                                    # 14 used, never ends
    _record(7.25, "StepInterrupted", {}),                             # 15 ignored
    _record(7.5, "ToolCall", {"type": "function", "id": "tool_f",     # 16 no name
                              "function": {"arguments": "{}"}}),
    _record("2026-12-03T10:00:08Z", "ToolResult", {"tool_call_id": "tool_e"}),  # 17
    '{"timestamp": 1796292008.5, "message": {"type": "ToolRes',       # 18 invalid JSON
]

#: The sub-agent's own log: two calls in parallel.
SUBAGENT: list[Any] = [
    HEADER,
    _call("s1", "ReadFile", 3.5), _call("s2", "Grep", 3.625),
    _result("s1", 3.75), _result("s2", 3.875),
]


def _write(tmp_path: Path, records: list[Any], *parts: str) -> str:
    path = tmp_path.joinpath(".kimi", "sessions", "0123abcd", *parts)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _store(tmp_path: Path) -> tuple[str, str]:
    return (_write(tmp_path, SESSION, "s-1", "wire.jsonl"),
            _write(tmp_path, SUBAGENT, "s-1", "subagents", "sa7", "wire.jsonl"))


def test_session_lines_are_accounted_by_hand(tmp_path: Path) -> None:
    """18 lines: 10 used, 5 ignored by type (the SubagentEvent among them), 3 problems."""
    parent, child = _store(tmp_path)
    report, lanes = read_one(parent, "kimi")
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (18, 10, 5)
    assert dict(report.ignored) == {
        "StepBegin": 2, "StepInterrupted": 1, "SubagentEvent": 1, "TurnBegin": 1}
    assert dict(report.problems) == {
        "invalid_json": 1, "invalid_timestamp": 1, "invalid_tool_record": 1}
    (lane,) = lanes
    assert (lane.session_id, lane.lane_id) == ("s-1", "main")
    assert [o[:2] for o in observation_tuples(lane)] == [
        ("start", "tool_a"), ("start", "tool_b"), ("start", "tool_c"), ("end", "tool_b"),
        ("end", "tool_a"), ("end", "tool_c"), ("start", "tool_d"), ("end", "tool_d"),
        ("start", "tool_e")]
    report, lanes = read_one(child, "kimi")
    assert (report.lines_read, report.lines_used) == (5, 5)
    check_lanes(lanes)
    assert observation_tuples(lanes[0]) == [
        ("start", "s1", "ReadFile", T0_MS + 3500.0), ("start", "s2", "Grep", T0_MS + 3625.0),
        ("end", "s1", "ReadFile", T0_MS + 3750.0), ("end", "s2", "Grep", T0_MS + 3875.0)]
    assert (lanes[0].session_id, lanes[0].lane_id) == ("s-1", "sa7")


FIGURES = ("observed_calls", "paired_calls", "incomplete_calls", "non_eval_waves_total",
           "non_eval_wave_size_histogram", "non_eval_saved_round_trips",
           "modeled_wallclock_saved_ms", "upper_bound_saved_ms", "tool_time_ms")


def test_session_figures_by_hand(tmp_path: Path) -> None:
    """The summarize document's figures for the session folder, per lane and in total.

    Lane main (ms after T0): tool_a 1000-1500 (500), tool_b 1125-1250 (125),
    tool_c 1250-2250 (1000): one wave (tool_c starts at 1250 <= reach 1500), span
    2250 - 1000 = 1250, sum 1625, saved 1625 - 1250 = 375, upper bound
    (3 - 1) * 1625 / 3; peak 2 (at 1250 tool_b's end comes before tool_c's start),
    so 1 round trip. tool_d 3000-6000 (3000) is a wave alone; tool_e never ends.
    Observed 5, paired 4, tool time 500 + 125 + 1000 + 3000 = 4625.
    Lane sa7: s1 3500-3750 (250), s2 3625-3875 (250): span 375, sum 500, saved 125,
    upper bound 1 * 500 / 2 = 250, peak 2 so 1 round trip. Nothing counted twice:
    the parent's SubagentEvent copy of s1 is ignored.
    """
    _store(tmp_path)
    code, document = cli_document([str(tmp_path / ".kimi" / "sessions")])
    assert code == 0
    assert lane_figures(document, *FIGURES) == {
        ("s-1", "main"): (5, 4, 1, 2, "1:0:1:0:0:0:0:0", 1, 375.0, 2 * (1625 / 3), 4625.0),
        ("s-1", "sa7"): (2, 2, 0, 1, "0:1:0:0:0:0:0:0", 1, 125.0, 250.0, 500.0),
    }
    total = document["total"]
    assert (total["paired_calls"], total["non_eval_saved_round_trips"],
            total["modeled_wallclock_saved_ms"], total["upper_bound_saved_ms"]) == (
        6, 2, 500.0, 2 * (1625 / 3) + 250.0)


def test_both_engines_give_the_same_bytes(tmp_path: Path) -> None:
    """The native engine leaves the files to the Python reader: the same document."""
    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    _store(tmp_path)
    folder = str(tmp_path / ".kimi" / "sessions")
    outputs = [CliRunner().invoke(main, ["summarize", "--format", "json", "--engine", engine,
                                         folder]).stdout for engine in ("python", "native")]
    assert outputs[0] == outputs[1]
    assert {i["format"] for i in json.loads(outputs[0])["inputs"]} == {"kimi"}


def test_seconds_become_ms_by_one_float_multiplication(tmp_path: Path) -> None:
    """``1796292001.1011`` s is not exact in binary: its ms are the correctly rounded
    product of that double and 1000 (1796292001101.0999...), not the decimal
    1796292001101.1 nor a rounded integer."""
    seconds = 1796292001.1011
    exact = float(Fraction(seconds) * 1000)  # the IEEE-754 product, worked out exactly
    assert seconds_to_ms(seconds) == exact == 1796292001101.0999
    assert exact != 1796292001101.1
    path = _write(tmp_path, [HEADER, {"timestamp": seconds, "message": {
        "type": "ToolCall", "payload": {"type": "function", "id": "a",
                                        "function": {"name": "Shell"}}}}], "s", "wire.jsonl")
    _, lanes = read_one(path, "kimi")
    assert observation_tuples(lanes[0]) == [("start", "a", "Shell", 1796292001101.0999)]
    assert seconds_to_ms(0) == 0.0 and seconds_to_ms(2) == 2000.0


@pytest.mark.parametrize("value", [
    -1, -0.5, True, None, "1796292001", 1e306, 10**400, [1], {"s": 1}])
def test_unusable_times_are_problems(value: Any) -> None:
    """A time that is not a finite, non-negative number of seconds with finite ms is
    ``invalid_timestamp``."""
    record = {"timestamp": value, "message": {"type": "ToolResult",
                                              "payload": {"tool_call_id": "a"}}}
    line = json.dumps(record).encode() + b"\n"
    lanes, account = collect(read_kimi, [line], path="p")
    assert dict(account.problems) == {"invalid_timestamp": 1}
    assert lanes == []


@pytest.mark.parametrize(("record", "reason"), [
    (_record(1.0, "ToolCall", {"type": "function", "id": "", "function": {"name": "x"}}),
     "invalid_tool_record"),
    (_record(1.0, "ToolCall", {"type": "function", "id": "a", "function": {"name": ""}}),
     "invalid_tool_record"),
    (_record(1.0, "ToolCall", {"type": "function", "id": "a", "function": "Shell"}),
     "invalid_tool_record"),
    (_record(1.0, "ToolCall", {"id": "a", "function": {"name": "x"}}), "invalid_tool_record"),
    (_record(1.0, "ToolCall", {"type": "other", "id": "a", "function": {"name": "x"}}),
     "invalid_tool_record"),
    (_record(1.0, "ToolCall", "text"), "invalid_tool_record"),
    (_record(1.0, "ToolResult", {"task_tool_call_id": "a"}), "invalid_tool_record"),
    (_record(1.0, "ToolResult", {"tool_call_id": "a\x1b"}), "invalid_tool_record"),
    (_record(1.0, "ToolResult", None), "invalid_tool_record"),
    ({"timestamp": T0, "message": "ToolCall"}, "invalid_payload"),
    ({"timestamp": T0, "message": {"payload": {}}}, "missing_type"),
    ({"timestamp": T0}, "missing_type"),
    ({"type": "metadata"}, "invalid_session_header"),
])
def test_unusable_records_are_problems(record: dict[str, Any], reason: str) -> None:
    """A record without a usable id, name, payload or type is a problem, never an
    observation."""
    lanes, account = collect(read_kimi, [json.dumps(record).encode() + b"\n"], path="p")
    assert dict(account.problems) == {reason: 1}
    assert lanes == []


def test_header_rules_and_other_top_level_types() -> None:
    """A second header is ignored as ``repeated_metadata``; an unknown top-level type is
    ignored by type."""
    lines = [json.dumps(r).encode() + b"\n" for r in (
        HEADER, HEADER, {"type": "brand_new"}, _call("a", "Shell", 1.0))]
    _, account = collect(read_kimi, lines, path="p")
    assert account.lines_used == 2
    assert dict(account.ignored) == {"brand_new": 1, "repeated_metadata": 1}


def test_lane_from_the_place_in_the_store() -> None:
    """The session folder names the session; ``subagents/<agent_id>`` the lane."""
    assert kimi_lane("/h/.kimi/sessions/9a0b/s-1/wire.jsonl") == ("s-1", "main")
    assert kimi_lane("/h/.kimi/sessions/9a0b/s-1/subagents/a7/wire.jsonl.gz") == ("s-1", "a7")
    assert kimi_lane("s-1/subagents/a7/wire.jsonl") == ("s-1", "a7")
    assert kimi_lane("/h/x/wire.jsonl") == ("x", "main")
    assert kimi_lane("wire.jsonl") == ("wire", "main")
    assert kimi_lane("/h/s-1/context.jsonl") == ("context", "main")
    assert kimi_lane("-") == ("stdin", "main")


def test_the_recogniser_needs_the_record_shape() -> None:
    """The header, or a record of a numeric time and a typed message with a payload; not
    pi's or Claude Code's message lines, nor a Codex line."""
    assert sniffs(KIMI, [json.dumps(HEADER).encode()], "wire.jsonl")
    assert sniffs(KIMI, [json.dumps(_call("a", "Shell", 1.0)).encode()], "wire.jsonl")
    others = [
        b'{"type": "message", "timestamp": "t", "message": {"role": "user"}}',
        b'{"type": "assistant", "uuid": "u", "message": {"role": "assistant"}}',
        b'{"timestamp": "t", "type": "response_item", "payload": {"type": "message"}}',
        b'{"timestamp": "t", "message": {"type": "ToolCall", "payload": {}}}',
        b'{"timestamp": true, "message": {"type": "ToolCall", "payload": {}}}',
        b'{"timestamp": 1, "message": {"type": "ToolCall", "payload": "x"}}',
        b'{"type": "metadata", "protocol_version": 1}',
        b'{"role": "user", "content": "a context.jsonl line"}',
    ]
    assert not any(sniffs(KIMI, [line], "wire.jsonl") for line in others)


def test_no_earlier_format_claims_a_wire_log() -> None:
    """Every format before ``kimi`` in the registry refuses each fixture line."""
    from wavemetrics.readers.registry import TRACE_FORMATS

    earlier = TRACE_FORMATS[:[f.name for f in TRACE_FORMATS].index("kimi")]
    for record in [*SESSION, *SUBAGENT]:
        line = (record if isinstance(record, str) else json.dumps(record)).encode()
        assert [f.name for f in earlier if sniffs(f, [line], "wire.jsonl")] == []


@needs_corpus
def test_no_corpus_file_is_read_as_kimi() -> None:
    """Files of the other formats keep their detection: none is taken as a wire log."""
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "MANIFEST.md")
    assert files
    assert [str(p) for p in files if detect_input(str(p)).format == "kimi"] == []


def test_arguments_and_results_never_reach_the_output(tmp_path: Path) -> None:
    """The word ``secret`` (arguments, results, prompt) appears in no output."""
    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    _store(tmp_path)
    for fmt in ("json", "table"):
        result = CliRunner().invoke(main, ["summarize", "--format", fmt,
                                           str(tmp_path / ".kimi")])
        assert "secret" not in result.stdout + result.stderr


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)
    | st.sampled_from(["ToolCall", "ToolResult", "metadata", "function", "a", "Shell"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["type", "timestamp", "message", "payload", "id",
                                       "tool_call_id", "function", "name",
                                       "protocol_version"]), inner, max_size=5),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_JSON.map(lambda v: json.dumps(v).encode() + b"\n"), max_size=10))
def test_fuzzed_logs_never_raise_and_account_every_line(lines: list[bytes]) -> None:
    """Any JSON lines: no exception, every line accounted, every observation valid."""
    lanes, account = collect(read_kimi, lines, path="p")
    assert account.lines_read == len(lines) == (
        account.lines_used + account.lines_ignored + sum(account.problems.values()))
    check_lanes(lanes)


def test_the_formats_doc_example_gives_the_figures_it_states(tmp_path: Path) -> None:
    """docs/formats.md, ``kimi``: saving 625 ms, upper bound 1812.5 ms, one round trip;
    6 lines, 5 used, 1 ignored."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "formats.md").read_text("utf-8")
    section = text.split("## `kimi`", 1)[1].split("\n## ", 1)[0]
    (block,) = [b for b in section.split("```") if b.startswith("jsonl\n")]
    path = tmp_path / "s-1" / "wire.jsonl"
    path.parent.mkdir()
    path.write_text(block.removeprefix("jsonl\n"), encoding="utf-8")
    code, document = cli_document([str(path)])
    assert code == 0
    (entry,) = document["inputs"]
    assert (entry["lines_read"], entry["lines_used"], entry["ignored"]) == (
        6, 5, {"StepBegin": 1})
    total = document["total"]
    assert (total["modeled_wallclock_saved_ms"], total["upper_bound_saved_ms"],
            total["non_eval_saved_round_trips"]) == (625.0, 1812.5, 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(_JSON.map(lambda v: json.dumps(v).encode() + b"\n"), max_size=8))
def test_the_typed_decoder_and_the_stdlib_parser_agree(lines: list[bytes]) -> None:
    """Lines decoded into the typed records and lines parsed by the stdlib ``json`` (the
    path of a line msgspec rejects) give the same lanes and the same account."""
    import wavemetrics.readers.kimi as module

    fixture = [(r if isinstance(r, str) else json.dumps(r)).encode() + b"\n" for r in SESSION]
    typed = collect(read_kimi, [*fixture, *lines], path="p")
    saved = module._DECODER
    module._DECODER = None
    try:
        plain = collect(read_kimi, [*fixture, *lines], path="p")
    finally:
        module._DECODER = saved
    assert [observation_tuples(lane) for lane in typed[0]] == [
        observation_tuples(lane) for lane in plain[0]]
    assert typed[1] == plain[1]


#: Batches (docs/formats.md, ``kimi``, "Batches"): a call before any step, a step of
#: three calls, four steps of one call, and a retried step. Line numbers on the right.
BATCHES: list[Any] = [
    HEADER,                                                           # 1
    _call("pre", "Shell", 0.25), _result("pre", 0.5),                 # 2-3 no batch
    _record(0.75, "StepBegin", {"n": 1}),                             # 4 batch "line 4"
    _call("a", "ReadFile", 1.0), _call("b", "Grep", 1.125), _call("c", "Shell", 1.25),
    _result("b", 1.25), _result("a", 1.5), _result("c", 2.25),        # 5-10
    _record(2.75, "StepBegin", {"n": 2}),                             # 11
    _call("d", "Grep", 3.0), _result("d", 3.5),
    _record(3.75, "StepBegin", {"n": 3}),                             # 14
    _call("e", "Glob", 4.0), _result("e", 4.25),
    _record(4.375, "StepBegin", {"n": 4}),                            # 17
    _call("f", "Shell", 4.5), _result("f", 4.75),
    _record(4.875, "StepBegin", {"n": 5}),                            # 20
    _call("g", "Glob", 5.0), _result("g", 5.125),
    _record(5.25, "StepRetry", {"n": 5}),                             # 23: a new batch
    _call("h", "Grep", 5.5), _result("h", 5.625),
]

BATCH_FIGURES = (
    "calls_without_batch", "batched_turns", "multi_call_turns", "turn_width_histogram",
    "max_turn_width", "missed_batch_runs", "missed_batch_calls", "missed_batch_round_trips",
    "missed_batch_upper_ms", "tool_busy_ms", "calls_timed_by_execution",
    "calls_timed_by_message")


def test_batches_by_hand(tmp_path: Path) -> None:
    """The section-9 figures of the batches fixture (ms after T0).

    ``pre`` (Shell 250-500) comes before the first StepBegin: 1 call without a batch.
    Batches in start order: step 1 {a 1000-1500, b 1125-1250, c 1250-2250}, width 3;
    step 2 {d Grep 3000-3500}; step 3 {e Glob 4000-4250}; step 4 {f Shell 4500-4750};
    step 5 {g Glob 5000-5125}; its retry {h Grep 5500-5625}: 6 batches, 1 multi-call,
    widths 1 x 5 and 3 x 1, widest 3.
    Runs: d, e join (gap 500 ms, far below 300 s); Shell closes the run of 2: upper
    (4250 - 3000) - max(500, 250) = 750. g and h (the retry is a batch of its own) run
    to the end: upper (5625 - 5000) - max(125, 125) = 500. 2 runs, 4 calls, 2 round
    trips, 750 + 500 = 1250 ms.
    Busy: waves pre 250, [1000, 2250] 1250, d 500, e 250, f 250, g 125, h 125:
    250 + 1250 + 500 + 250 + 250 + 125 + 125 = 2750. Timing ``message``: all 9 calls.
    """
    path = _write(tmp_path, BATCHES, "s-1", "wire.jsonl")
    code, document = cli_document([path], "--engine", "python")
    assert code == 0
    assert lane_figures(document, *BATCH_FIGURES) == {
        ("s-1", "main"): (1, 6, 1, "5:0:1:0:0:0:0:0", 3, 2, 4, 2, 1250.0, 2750.0, 0, 9)}
    report, lanes = read_one(path, "kimi")
    assert dict(report.ignored) == {"StepBegin": 5, "StepRetry": 1}
    assert [o.batch for o in lanes[0].observations if o.kind == "start"] == [
        None, "line 4", "line 4", "line 4", "line 11", "line 14", "line 17", "line 20",
        "line 23"]
