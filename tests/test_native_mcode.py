"""The native ``mcode`` reader against the Python reference: same streams, same output.

The corpus holds no MiniMax Code stream, so every corpus file is read *as* mcode by both
engines (foreign lines are envelope problems and odd types, the same on both), and the
streams are built from the rules of ``docs/formats.md`` (``mcode``): hand-written files
covering each rule, counted by hand; Hypothesis-drawn streams of several runs (gaps,
repeats, foreign lines, terminals, bursts, turns, odd statuses) and damaged copies; and
hostile lines (repeated keys at every level, escapes, huge numbers, depths at both
decoders' limits, measured as the console command reads a stream). The whole
``summarize --format json`` document must be equal, and a spy proves the extension read
the unit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from tests.corpus import CORPUS, needs_corpus
from tests.strategies import damaged, engine_caps, engine_eval_names, mcode_files
from tests.test_native import DIFFERENTIAL, _both, console_command
from tests.test_native_copilot import reading_codes
from wavemetrics.readers.mcode import MCODE
from wavemetrics.readers.registry import NATIVE_ROWS
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")

#: The extension's code for the format (its registry row's).
_CODE = next(row.native.code for row in NATIVE_ROWS if row.name == MCODE.name and row.native)

T = 1_740_823_200_000


def _line(sequence: Any, kind: Any, at: Any = T, **fields: Any) -> str:
    record = {"schemaVersion": 1, "sequence": sequence, "timestampMs": at, "runId": "exec_1",
              "sessionId": "mvs_1", "turnId": "t1", "type": kind}
    record.update(fields)
    return json.dumps(record)


def _item(call_id: str, status: Any, name: str = "bash") -> dict[str, Any]:
    return {"id": call_id, "type": "tool_call",
            "toolCall": {"id": call_id, "name": name, "status": status, "input": {"c": "ls"}}}


def _read(path: Path, lines: list[str], cap: int = 2000) -> dict[str, Any]:
    """Both engines' document of a stream of ``lines``, the extension's read checked."""
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = StreamSettings(engine="native")
    assert native.read_unit_native(MCODE.name, (str(path),), settings) is not None
    with reading_codes() as spy:
        document: dict[str, Any] = json.loads(_both([str(path)], MCODE.name, cap, (), units=1))
    assert spy.codes == [_CODE] * 2  # by the streamed read and the batch read
    return document


def test_every_rule_of_the_stream_counted_by_hand(tmp_path: Path) -> None:
    """Three runs, two sessions: starts and ends by status (numbers and their spellings),
    pending statuses, an end without a start, a burst of ``item.completed`` lines (an agent
    message between them, a replayed item) that is one batch, a gap, a repeated sequence,
    a foreign line, lines after and a second terminal, a second run of the same session
    (the same lane), envelope problems, a truncated run, run statuses."""
    lines = [
        _line(1, "exec.started"),                                    # ignored
        _line(2, "turn.started"),                                    # used
        _line(3, "item.updated", item=_item("c1", 5)),               # pending: ignored
        _line(4, "item.updated", T + 1000, item=_item("c1", 1)),     # start
        _line(5, "item.started", T + 1000, item=_item("c2", "running")),  # start
        _line(7, "item.updated", T + 3000, item=_item("c1", 2)),     # gap of 1, end
        _line(8, "item.updated", T + 2000, item=_item("c2", "failed")),  # end
        _line(9, "item.updated", T + 2000, item=_item("c3", 3)),     # end_without_start
        _line(10, "item.completed", item=_item("c1", 2)),            # burst 1
        _line(11, "item.completed", item={"id": "m", "type": "agent_message"}),
        _line(12, "item.completed", item={"id": "r", "type": "reasoning"}),
        _line(13, "item.completed", item=_item("c2", 3)),            # burst 1 still
        _line(14, "item.completed", item=_item("c9", 2)),            # replayed_items
        _line(14, "turn.completed", T + 9000),                       # duplicate_sequence
        _line(15, "turn.completed", T + 5000),                       # turn of 5000 ms
        _line(16, "turn.started", runId="exec_x"),                   # foreign_run_line
        _line(16, "exec.completed", result={"status": "completed"}),
        _line(17, "item.updated", item=_item("c5", 1)),              # after_terminal
        _line(18, "exec.completed", result={"status": "failed"}),    # duplicate_terminal
        # a second run of the same session: the same lane and calls
        _line(1, "turn.started", T + 10000, runId="exec_2", turnId="t2"),
        _line(2, "item.updated", T + 10000, runId="exec_2", turnId="t2",
              item=_item("c4", "started")),
        _line(3, "item.updated", T + 12000, runId="exec_2", turnId="t2",
              item=_item("c4", "completed")),
        # the lines since c9's item.completed ended burst 1: c4's is burst 2
        _line(4, "item.completed", T + 12000, runId="exec_2", turnId="t2",
              item=_item("c4", 2)),
        _line(5, "item.updated", T + 10000, runId="exec_2", turnId="t2",
              item=_item("c1", 1)),                                  # c1 ended: ignored
        json.dumps({"schemaVersion": 2, "sequence": 6, "timestampMs": T, "runId": "exec_2",
                    "sessionId": "mvs_1", "turnId": "t2", "type": "turn.started"}),
        _line("6", "turn.started", runId="exec_2", turnId="t2"),     # invalid_envelope
        _line(6, "turn.started", runId="exec\x1b", turnId="t2"),     # invalid_id
        _line(6, "item.updated", "x", runId="exec_2", turnId="t2"),  # invalid_timestamp
        _line(7, 7, runId="exec_2", turnId="t2"),                    # missing_type
        _line(8, "exec.completed", runId="exec_2", turnId="t2", result={"status": "Odd One"}),
        # a run of another session, never ended
        _line(1, "session.started", runId="exec_3", sessionId="mvs_2"),
    ]
    document = _read(tmp_path / "run.jsonl", lines)
    report = document["inputs"][0]
    assert (report["lines_read"], report["lines_used"], report["lines_ignored"]) == (31, 11, 11)
    assert report["ignored"] == {
        "exec.started": 1, "item.updated": 2, "end_without_start": 1, "item.completed": 3,
        "item.agent_message": 1, "item.reasoning": 1, "replayed_items": 1,
        "session.started": 1}
    assert report["problems"] == {
        "duplicate_sequence": 1, "foreign_run_line": 1, "after_terminal": 1,
        "duplicate_terminal": 1, "unknown_schema_version": 1, "invalid_envelope": 1,
        "invalid_id": 1, "invalid_timestamp": 1, "missing_type": 1}
    assert report["notes"] == {"sequence_gap": 1, "truncated": 1, "run_status.completed": 1,
                               "run_status.other": 1}
    lanes = {lane["session_id"]: lane for lane in document["lanes"]}
    assert list(lanes) == ["mvs_1", "mvs_2"]
    one = lanes["mvs_1"]
    # c1 [1, 3] s and c2 [1, 2] s of burst 1, c4 [10, 12] s of burst 2
    assert (one["paired_calls"], one["tool_time_ms"]) == (3, 5000.0)
    assert (one["batched_turns"], one["max_turn_width"], one["calls_without_batch"]) == (2, 2, 0)
    assert one["measured_turn_duration_ms_total"] == 5000.0
    assert lanes["mvs_2"]["observed_calls"] == 0


def test_run_statuses_are_kept_up_to_eight_then_other(tmp_path: Path) -> None:
    """A run's ``result.status`` is its note when it is a short lower-case identifier, at
    most eight of them (``run_status.other`` among them): a ninth is ``other``, a kept one
    counts on; the first run starts at sequence 3 (two lines missing)."""
    statuses: list[Any] = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "a", "other",
                           "Bad", "x" * 33, 7, "\ud800"]
    lines = [_line(3 if n == 0 else 1, "exec.completed", result={"status": status})
             for n, status in enumerate(statuses)]
    lines.append(_line(1, "exec.completed", result="done"))
    report = _read(tmp_path / "statuses.jsonl", lines)["inputs"][0]
    assert (report["lines_read"], report["lines_used"]) == (16, 16)
    assert report["notes"] == {
        "sequence_gap": 2, "run_status.a": 2, **{f"run_status.{s}": 1 for s in "bcdefgh"},
        "run_status.other": 7}


def test_the_largest_sequence_and_a_gap_total_past_64_bits(tmp_path: Path) -> None:
    """A first line at 2**53 - 1 notes all the lines before it as missing, 2**53 is no
    envelope; gaps adding up past 2**64 (2,049 runs of 1 then 2**53 - 1) are read by the
    Python reader, whose ints have no bound: the extension declines the stream."""
    top = 2**53 - 1
    report = _read(tmp_path / "top.jsonl", [_line(top, "exec.started"),
                                            _line(top + 1, "exec.started")])["inputs"][0]
    assert report["notes"] == {"sequence_gap": top - 1, "truncated": 1}
    assert report["problems"] == {"invalid_envelope": 1}
    lines = [line for _ in range(2049) for line in (_line(1, "x"), _line(top, "y"))]
    path = tmp_path / "gaps.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert native.read_unit_native(MCODE.name, (str(path),),
                                   StreamSettings(engine="native")) is None
    document = json.loads(_both([str(path)], MCODE.name, 2000, (), units=1))
    assert document["inputs"][0]["notes"]["sequence_gap"] == 2049 * (top - 2)


def test_turns_add_up_within_a_run_and_overflow_is_a_problem(tmp_path: Path) -> None:
    """A turn runs from ``turn.started`` to its end in one run; a later start replaces an
    open one, an end without a start or before it adds nothing; a total that would be
    infinite is ``turn_total_overflow``."""
    big = int(1.7e308)
    lines = [
        _line(1, "turn.started", T), _line(2, "turn.started", T + 100),
        _line(3, "turn.failed", T + 400),          # 300 ms
        _line(4, "turn.completed", T + 900),       # no start: nothing
        _line(5, "turn.started", T + 900), _line(6, "turn.completed", T + 800),  # before
        _line(7, "turn.started", 0), _line(8, "turn.completed", big),
        _line(9, "turn.started", 0), _line(10, "turn.completed", big),  # overflow
    ]
    document = _read(tmp_path / "turns.jsonl", lines)
    report = document["inputs"][0]
    assert (report["lines_used"], report["problems"]) == (9, {"turn_total_overflow": 1})
    assert document["lanes"][0]["measured_turn_duration_ms_total"] == 300.0 + float(big)


def test_hostile_lines_read_the_same(tmp_path: Path) -> None:
    """Keys repeated at every level (the last value wins, an object's keys go with it),
    escaped spellings, numbers that are no ints or too large, ids that are no ids, odd item
    types: the same accounts and figures on both engines, some counted by hand."""
    head = ('{"schemaVersion": 1, "timestampMs": %d, "runId": "exec_1", "sessionId": "mvs_1",'
            ' "turnId": "t1", ')
    digits = "9" * 4301

    def raw(sequence: int, rest: str, at: str | int = T) -> str:
        return (head % 0).replace('"timestampMs": 0', f'"timestampMs": {at}') + (
            f'"sequence": {sequence}, {rest}}}')

    call = '"item": {"id": "h", "type": "tool_call", "toolCall": {"name": "bash", "status": 1}}'
    lines = [
        raw(1, '"type": "item.updated", ' + call),                          # start h
        raw(2, '"type": "item.updated", ' + call.replace('"h"', '"\\u0068"')
            .replace("1}}", '"\\u0066ailed"}}')),                          # end h, escaped
        raw(3, '"type": "item.updated", ' + call.replace('"h"', '"g"') + ', "item": 5'),
        raw(4, '"type": "item.updated", "item": 5, ' + call.replace('"h"', '"g"')),  # start g
        raw(5, '"type": "item.updated", "item": {"id": "g", "type": "tool_call", "toolCall": '
            '{"name": "bash", "status": 2}, "toolCall": {"status": 2}}'),    # no name
        raw(6, '"type": "item.updated", "item": {"id": "g", "type": "tool_call", "toolCall": '
            '{"name": "bash", "status": 1}}, "item": {"id": "g", "type": "tool_call"}'),
        raw(7, '"type": "item.updated", ' + call.replace('"h"', '"k"')
            .replace('"status": 1', '"status": 1.0')),                        # 1.0: no status
        raw(8, '"type": "item.updated", ' + call.replace('"h"', '"k"')
            .replace('"status": 1', '"status": ' + "1" * 30)),
        raw(9, '"type": "item.updated", ' + call.replace('"h"', '"k"')
            .replace('"status": 1', '"status": 1, "id": "j"')),               # another id
        raw(10, '"type": "item.updated", ' + call.replace('"h"', '"k"')
            .replace('"status": 1', '"status": 1, "id": null')),              # start k
        raw(11, '"type": "session.started"', "-0"),                           # ms 0
        raw(12, '"type": "session.started"', "1" + "0" * 400),                # too large
        raw(13, '"type": "session.started"', "1e3"),
        raw(14, '"type": "session.started", "z": ' + digits),                 # skipped: read
        raw(15, '"type": "session.started", "sequence": 99, "sequence": 16'),
        raw(17, '"type": "item.completed", "item": {"id": "m", "type": ["tool_call"]}'),
        raw(18, '"type": "item.completed", "item": {"id": "m", "type": {"a": 1}}'),
        raw(19, '"type": "item.updated", "item": {"id": "m", "type": "x' + "y" * 60 + '"}'),
        raw(20, '"type": "item.updated", "item": {"id": "m", "type": "\\ud800"}'),
        raw(21, '"type": "exec.completed", "result": {"status": "ok", "status": "fine"}, '
            '"result": {"status": "done"}'),
        raw(22, '"type": "item.updated", ' + call.replace('"h"', '"x\\u001b"')),  # invalid_id
        '{"schemaVersion": 1.0, "sequence": 23}',
        '{"schemaVersion": true, "sequence": 23}',
        raw(23, '"type": "item.updated", "timestampMs": ' + digits),         # invalid_json
    ]
    document = _read(tmp_path / "hostile.jsonl", lines)
    report = document["inputs"][0]
    assert report["lines_read"] == 24
    assert report["problems"] == {
        "invalid_tool_record": 6, "invalid_timestamp": 2, "after_terminal": 1,
        "unknown_schema_version": 2, "invalid_json": 1}
    assert report["notes"] == {"sequence_gap": 1, "run_status.done": 1}
    assert report["ignored"] == {
        "session.started": 3, "item.completed": 2, "other": 2}
    lane = document["lanes"][0]
    assert (lane["observed_calls"], lane["paired_calls"]) == (3, 1)
    assert lane["calls_without_batch"] == 1  # h: no item.completed, no burst


def test_lines_at_both_decoders_depth_limits_read_the_same_as_the_command_reads_them(
    tmp_path: Path,
) -> None:
    """As the console command reads a stream: msgspec and ``json`` both read a line nested
    500 levels and refuse 501, whether msgspec takes the line or refuses it (a lone
    surrogate), as for a line that is no object; an int of more than 4300 digits in a
    value msgspec decodes (``timestampMs``) makes the line invalid JSON.
    """
    def deep(sequence: int, levels: int, more: str = "") -> str:
        arrays = levels - 1
        return (_line(sequence, "session.started")[:-1] + ", " + more + '"z": '
                + "[" * arrays + "]" * arrays + "}")

    lines = [_line(n, "session.started") for n in range(1, 6)] + [
        deep(6, 500), deep(99, 501), deep(7, 500, '"y": "\\ud800", '),
        deep(99, 501, '"y": "\\ud800", '), "[" * 500 + "]" * 500, "[" * 501 + "]" * 501,
        _line(99, "session.started")[:-1] + ', "timestampMs": ' + "9" * 4301 + "}",
        _line(8, "session.started")[:-1] + ', "q": ' + "9" * 4301 + "}",
    ]
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def command_line(engine: str) -> tuple[int, str]:
        return console_command(["summarize", "--format", "json", "--jobs", "1", "--no-cache",
                                "--engine", engine, "--input-format", "mcode", str(path)])

    fast = command_line("native")
    assert fast == command_line("python")
    report = json.loads(fast[1])["inputs"][0]
    assert (report["lines_read"], report["lines_used"]) == (13, 0)
    assert report["ignored"] == {"session.started": 8}
    assert report["problems"] == {"too_deeply_nested": 3, "not_an_object": 1,
                                  "invalid_json": 1}
    assert report["notes"] == {"truncated": 1}


@DIFFERENTIAL
@given(data=mcode_files(), cap=engine_caps, names=engine_eval_names)
def test_generated_streams_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    """A generated stream of several runs gives the same accounts, lanes and figures on
    both engines."""
    path = tmp_path_factory.mktemp("mcode") / "run.jsonl"
    path.write_bytes(data)
    _both([str(path)], MCODE.name, cap, names, units=1)


@DIFFERENTIAL
@given(data=damaged(mcode_files()), cap=engine_caps, names=engine_eval_names)
def test_damaged_streams_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    """A generated stream with random damage gives the same accounts and figures on both
    engines."""
    path = tmp_path_factory.mktemp("mcode") / "run.jsonl"
    path.write_bytes(data)
    _both([str(path)], MCODE.name, cap, names, units=1)


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(path for path in CORPUS.rglob("*") if path.is_file()
                  and path.suffix in {".jsonl", ".json", ".traj"})


@needs_corpus
@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: p.name)
def test_corpus_files_read_as_mcode_read_the_same(path: Path) -> None:
    """Every corpus file read as an mcode stream (the corpus has no MiniMax Code stream:
    its records are envelope problems and odd lines) gives the same document on both
    engines."""
    _both([str(path)], MCODE.name, 2000, (), units=1)
