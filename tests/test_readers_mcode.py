"""The ``mcode`` reader (MiniMax Code ``mcode exec --output-format stream-json``) on fixtures.

No real capture of the stream exists here: every fixture is written from the
documented schema (the headless ``events.ts``/``contract.ts`` of MiniMax Code:
the envelope, the event types, ``toolCall.status`` 4 preparing, 5 prepared,
1 started, 2 finished, 3 failed). The expected figures are worked out by hand
from ``docs/formats.md`` ("mcode") and ``docs/metrics.md``; the arithmetic
is in the comments. Times are ms after ``BASE_MS`` (2026-01-01T00:00:00Z).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.batch_checks import batch_figures
from tests.corpus import CORPUS, needs_corpus
from tests.reader_checks import cli_document, lane_figures, read_one
from tests.trace_builders import BUILDERS
from wavemetrics.cli.commands import main
from wavemetrics.readers._protocol import Peek
from wavemetrics.readers.dispatch import detect_input
from wavemetrics.readers.mcode import sniff_mcode
from wavemetrics.readers.registry import TRACE_FORMATS
from wavemetrics.views.axis import AxisState, efficiency_axis
from wavemetrics.views.compare import compare_folders

BASE_MS = 1_767_225_600_000


class Run:
    """The lines of one ``mcode exec`` stream, numbered as the CLI numbers them (1, 2, ...)."""

    def __init__(self, session: str, turn: str) -> None:
        self.ids = {"runId": f"exec_{turn}", "sessionId": session, "turnId": turn}
        self.lines: list[dict[str, Any]] = []

    def line(self, kind: str, at: int, *, sequence: int | None = None, **fields: Any) -> Run:
        number = sequence if sequence is not None else len(self.lines) + 1
        self.lines.append({"schemaVersion": 1, "sequence": number, "timestampMs": BASE_MS + at,
                           **self.ids, "type": kind, **fields})
        return self

    def open(self, at: int = 0, *, resumed: bool = False) -> Run:
        """``exec.started``, ``session.started``/``.resumed``, ``turn.started``: written
        together at the first runtime delivery."""
        self.line("exec.started", at)
        self.line("session.resumed" if resumed else "session.started", at)
        return self.line("turn.started", at)

    def call(self, kind: str, call_id: str, name: str, status: int | str, at: int) -> Run:
        """One ``item.*`` line of a tool call: its full ``toolCall`` snapshot."""
        snapshot: dict[str, Any] = {"id": call_id, "name": name, "status": status,
                                    "input": {"command": "secret arguments"}}
        if status in (2, 3):
            snapshot["output"] = {"text": "secret result"}
        return self.line(kind, at, item={"id": call_id, "type": "tool_call",
                                         "toolCall": snapshot})

    def text(self, kind: str, item_id: str, item_type: str, at: int) -> Run:
        return self.line(kind, at, item={"id": item_id, "type": item_type,
                                         "contentDelta": "secret text"})

    def close(self, at: int, status: str = "success", *, turn: str = "turn.completed") -> Run:
        if turn == "turn.failed":
            self.line(turn, at, status=status, durationMs=at)
        else:
            self.line(turn, at, durationMs=at)
        return self.line("exec.completed", at, result={"status": status, "exitCode": 0})


def _write(path: Path, *runs: Run, tail: bytes = b"") -> str:
    text = "".join(json.dumps(line) + "\n" for run in runs for line in run.lines)
    path.write_bytes(text.encode() + tail)
    return str(path)


def parallel_run() -> Run:
    """Three calls of one message run at once, a refused call, a foreground ``task``
    sub-agent call, a replayed item."""
    run = Run("mvs_par", "turn_a").open()
    run.text("item.started", "m1:reasoning", "reasoning", 100)
    run.call("item.started", "call_1", "read", 4, 200)   # arguments streaming
    run.call("item.started", "call_2", "grep", 4, 210)
    run.call("item.started", "call_3", "bash", 4, 220)
    for call_id in ("call_1", "call_2", "call_3"):
        run.call("item.updated", call_id, "x", 5, 300)    # arguments streamed
    run.call("item.updated", "call_1", "read", 1, 1000)  # start [1000
    run.call("item.updated", "call_2", "grep", 1, 1000)  # start [1000
    run.call("item.updated", "call_3", "bash", 1, 1200)  # start [1200
    run.call("item.updated", "call_3", "bash", 1, 1250)  # a second snapshot: no new start
    run.call("item.updated", "call_2", "grep", 2, 1500)  # end 1500]
    run.call("item.updated", "call_1", "read", 3, 3000)  # failed: end 3000]
    run.call("item.updated", "call_3", "bash", 2, 3200)  # end 3200]
    for call_id in ("call_1", "call_2", "call_3"):         # the burst: never an end
        run.call("item.completed", call_id, "x", 2, 3250)
    run.text("item.completed", "m1:reasoning", "reasoning", 3250)
    run.call("item.started", "call_4", "edit", 4, 3300)
    run.call("item.updated", "call_4", "edit", 3, 3400)  # refused before it ran
    run.call("item.completed", "call_4", "edit", 3, 3400)
    run.call("item.started", "call_5", "task", 1, 3500)  # no argument streaming: starts here
    run.call("item.updated", "call_5", "task", "completed", 9500)  # the sub-agent's lifetime
    run.call("item.completed", "call_5", "task", 2, 9500)
    run.call("item.completed", "replay_1", "bash", 2, 9600)  # no earlier line: a replay
    run.text("item.completed", "m2:message", "agent_message", 9700)
    return run.close(9800)


def test_parallel_calls_task_call_refused_call_and_replay(tmp_path: Path) -> None:
    """The figures of the parallel run, by hand.

    Calls: call_1 [1000, 3000], call_2 [1000, 1500], call_3 [1200, 3200], call_5
    (``task``) [3500, 9500]; call_4 ended (status 3) without status 1: not a call.
    Waves: sorted call_2, call_1, call_3 (reach 1500, 3000, 3200), call_5 starts at
    3500 > 3200: waves {call_2, call_1, call_3} and {call_5}.
    Wave 1: span 3200 - 1000 = 2200; durations 500 + 2000 + 2000 = 4500; saved
    4500 - 2200 = 2300; upper bound 2 x 4500 / 3 = 3000; peak 3 (1000, 1000, 1200
    starts before the first end): 2 round trips. Wave 2: one call, 0.
    Tool time 4500 + 6000 = 10500; turn 9800 - 0 = 9800.
    Lines 31: used 11 (turn.started, 3 + 3 + 2 transitions of calls 1, 2, 3, 5,
    turn.completed, exec.completed); ignored 20.
    """
    path = _write(tmp_path / "parallel.jsonl", parallel_run())
    report, _ = read_one(path, "mcode")
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (31, 11, 20)
    assert dict(report.ignored) == {
        "end_without_start": 1, "exec.started": 1, "item.agent_message": 1,
        "item.completed": 5, "item.reasoning": 2, "item.started": 4, "item.updated": 4,
        "replayed_items": 1, "session.started": 1,
    }
    assert dict(report.problems) == {}
    assert dict(report.notes) == {"run_status.success": 1}
    code, document = cli_document([path])
    assert code == 0
    assert lane_figures(document, "observed_calls", "paired_calls", "incomplete_calls",
                        "non_eval_wave_size_histogram", "modeled_wallclock_saved_ms",
                        "upper_bound_saved_ms", "non_eval_saved_round_trips",
                        "tool_time_ms", "measured_turn_duration_ms_total") == {
        ("mvs_par", "main"): (4, 4, 0, "1:0:1:0:0:0:0:0", 2300, 3000, 2, 10500, 9800),
    }


def test_a_cancelled_run_leaves_its_calls_in_flight_incomplete(tmp_path: Path) -> None:
    """``turn.failed`` cancelled: c1 (status 1) has no end, c3 never ran (status 4).

    c2 [100, 400] is the only paired call: one wave of one, tool time 300, no
    saving; c1 is incomplete. Turn 900 - 0 = 900. Lines 12: used 6 (turn.started,
    two starts, one end, turn.failed, exec.completed), ignored 6.
    """
    run = Run("mvs_cancel", "turn_c").open(resumed=True)
    run.call("item.started", "c1", "bash", 1, 100)
    run.call("item.started", "c2", "read", 1, 100)
    run.call("item.started", "c3", "grep", 4, 150)
    run.call("item.updated", "c2", "read", 2, 400)
    run.call("item.completed", "c1", "bash", 1, 900)  # in flight: non-terminal status
    run.call("item.completed", "c2", "read", 2, 900)
    run.call("item.completed", "c3", "grep", 4, 900)
    run.close(900, "cancelled", turn="turn.failed")
    path = _write(tmp_path / "cancelled.jsonl", run)
    report, _ = read_one(path, "mcode")
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (12, 6, 6)
    assert dict(report.ignored) == {"exec.started": 1, "item.completed": 3, "item.started": 1,
                                    "session.resumed": 1}
    assert dict(report.notes) == {"run_status.cancelled": 1}
    code, document = cli_document([path])
    assert code == 0
    assert lane_figures(document, "observed_calls", "paired_calls", "incomplete_calls",
                        "non_eval_wave_size_histogram", "modeled_wallclock_saved_ms",
                        "tool_time_ms", "measured_turn_duration_ms_total") == {
        ("mvs_cancel", "main"): (2, 1, 1, "1:0:0:0:0:0:0:0", 0, 300, 900),
    }


def test_a_truncated_run_is_reported_and_its_open_call_is_incomplete(tmp_path: Path) -> None:
    """A killed ``mcode exec``: no ``exec.completed``, the last line cut.

    k1 [50, 500], k2 [60, 700] overlap: span 650, durations 450 + 640 = 1090, saved
    1090 - 650 = 440, upper bound 1 x 1090 / 2 = 545, peak 2: 1 round trip; k3
    (started at 70) is incomplete. No turn end: turn total 0. Lines 9: used 6,
    ignored 2 (exec.started, session.started), the cut line ``truncated_last_line``;
    the run has no terminal event: ``notes.truncated`` 1.
    """
    run = Run("mvs_cut", "turn_k").open()
    run.call("item.started", "k1", "bash", 1, 50)
    run.call("item.started", "k2", "bash", 1, 60)
    run.call("item.started", "k3", "read", 1, 70)
    run.call("item.updated", "k1", "bash", 2, 500)
    run.call("item.updated", "k2", "bash", 3, 700)
    cut = b'{"schemaVersion": 1, "sequence": 9, "timestampMs": 1767225600800, "type": "ite'
    path = _write(tmp_path / "cut.jsonl", run, tail=cut)
    report, _ = read_one(path, "mcode")
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (9, 6, 2)
    assert dict(report.problems) == {"truncated_last_line": 1}
    assert dict(report.notes) == {"truncated": 1}
    code, document = cli_document([path])
    assert code == 0
    assert lane_figures(document, "observed_calls", "paired_calls", "incomplete_calls",
                        "non_eval_wave_size_histogram", "modeled_wallclock_saved_ms",
                        "upper_bound_saved_ms", "non_eval_saved_round_trips",
                        "tool_time_ms", "measured_turn_duration_ms_total") == {
        ("mvs_cut", "main"): (3, 2, 1, "0:1:0:0:0:0:0:0", 440, 545, 1, 1090, 0),
    }
    (entry,) = document["inputs"]
    assert entry["notes"] == {"truncated": 1}


def test_envelope_violations_are_counted_and_never_fatal(tmp_path: Path) -> None:
    """Each envelope check on one run.

    Used: turn.started, e1 start (10), e2 start (30), e1 end (100), e2 end (120),
    turn.completed, exec.completed = 7; ignored: exec.started; problems, one line
    each: unknown_schema_version (z1's line, so z1 never starts),
    duplicate_sequence (e3, sequence 5 again), foreign_run_line (another runId),
    after_terminal, duplicate_terminal, invalid_envelope (no turnId). 14 lines.
    Gaps: sequence 4 (the unknown version's line) and 6, 7, 8 (6 was the foreign
    line's, of another run): ``sequence_gap`` 4.
    e1 [10, 100], e2 [30, 120]: span 110, durations 90 + 90 = 180, saved 70, upper
    bound 90, peak 2: 1 round trip. Turn 130.
    """
    run = Run("mvs_env", "turn_e")
    run.line("exec.started", 0, sequence=1)
    run.line("turn.started", 0, sequence=2)
    run.call("item.started", "e1", "bash", 1, 10)
    run.call("item.started", "z1", "bash", 1, 20)
    run.lines[-1]["schemaVersion"] = 2
    run.call("item.started", "e2", "read", 1, 30)
    run.call("item.started", "e3", "read", 1, 35)
    run.lines[-1]["sequence"] = 5
    run.call("item.updated", "e1", "bash", 2, 40)
    run.lines[-1].update(sequence=6, runId="exec_other")
    run.call("item.updated", "e1", "bash", 2, 100)
    run.lines[-1]["sequence"] = 9
    run.call("item.updated", "e2", "read", 2, 120)
    run.lines[-1]["sequence"] = 10
    run.line("turn.completed", 130, sequence=11, durationMs=130)
    run.line("exec.completed", 130, sequence=12, result={"status": "success"})
    run.line("item.updated", 140, sequence=13, item={"id": "m:message", "type": "agent_message"})
    run.line("exec.completed", 150, sequence=14, result={"status": "success"})
    run.line("turn.started", 160, sequence=15)
    del run.lines[-1]["turnId"]
    path = _write(tmp_path / "envelope.jsonl", run)
    report, _ = read_one(path, "mcode")
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (14, 7, 1)
    assert dict(report.problems) == {
        "after_terminal": 1, "duplicate_sequence": 1, "duplicate_terminal": 1,
        "foreign_run_line": 1, "invalid_envelope": 1, "unknown_schema_version": 1,
    }
    assert dict(report.notes) == {"run_status.success": 1, "sequence_gap": 4}
    code, document = cli_document([path])
    assert code == 0
    assert lane_figures(document, "paired_calls", "modeled_wallclock_saved_ms",
                        "upper_bound_saved_ms", "non_eval_saved_round_trips",
                        "measured_turn_duration_ms_total") == {
        ("mvs_env", "main"): (2, 70, 90, 1, 130),
    }


def appended_runs() -> list[Run]:
    """A runner's log: a run of session x, one of session y, x resumed."""
    x1 = Run("mvs_x", "turn_x1").open()
    x1.call("item.started", "a1", "bash", 1, 100).call("item.started", "a2", "bash", 1, 100)
    x1.call("item.updated", "a1", "bash", 2, 300).call("item.updated", "a2", "bash", 2, 400)
    x1.call("item.completed", "a1", "bash", 2, 400).call("item.completed", "a2", "bash", 2, 400)
    x1.close(500)
    y1 = Run("mvs_y", "turn_y1").open(1000)
    y1.call("item.started", "b1", "read", 1, 1100).call("item.updated", "b1", "read", 3, 1300)
    y1.call("item.completed", "b1", "read", 3, 1300)
    y1.close(1400, "failed", turn="turn.failed")
    x2 = Run("mvs_x", "turn_x2").open(2000, resumed=True)
    x2.call("item.started", "a3", "grep", 1, 2100).call("item.started", "a4", "grep", 1, 2150)
    x2.call("item.updated", "a3", "grep", 2, 2200).call("item.updated", "a4", "grep", 2, 2250)
    x2.call("item.completed", "a3", "grep", 2, 2250).call("item.completed", "a4", "grep", 2, 2250)
    x2.close(2600)
    return [x1, y1, x2]


def test_runs_appended_to_one_file_are_runs_of_their_sessions(tmp_path: Path) -> None:
    """Lane (mvs_x, main) holds both runs of x, (mvs_y, main) the run of y.

    x: a1 [100, 300], a2 [100, 400]: span 300, durations 200 + 300, saved 200,
    upper bound 250, 1 round trip; a3 [2100, 2200], a4 [2150, 2250]: span 150,
    durations 100 + 100, saved 50, upper bound 100, 1 round trip. Total saved 250,
    upper bound 350, 2 round trips, histogram two waves of 2; turns 500 + 600 = 1100.
    y: b1 [1100, 1300] alone: saved 0; turn 1400 - 1000 = 400.
    Lines 11 + 8 + 11 = 30: ignored 3 exec.started, 2 session.started, 1
    session.resumed, 5 item.completed; used 19. Sequence 1 starts each run: no gap,
    no foreign line; every run ends: not truncated.
    """
    path = _write(tmp_path / "runner.jsonl", *appended_runs())
    report, _ = read_one(path, "mcode")
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (30, 19, 11)
    assert dict(report.problems) == {}
    assert dict(report.notes) == {"run_status.failed": 1, "run_status.success": 2}
    code, document = cli_document([path])
    assert code == 0
    assert lane_figures(document, "paired_calls", "non_eval_wave_size_histogram",
                        "modeled_wallclock_saved_ms", "upper_bound_saved_ms",
                        "non_eval_saved_round_trips", "measured_turn_duration_ms_total") == {
        ("mvs_x", "main"): (4, "0:2:0:0:0:0:0:0", 250, 350, 2, 1100),
        ("mvs_y", "main"): (1, "1:0:0:0:0:0:0:0", 0, 0, 0, 400),
    }
    total = document["total"]
    assert (total["paired_calls"], total["modeled_wallclock_saved_ms"],
            total["measured_turn_duration_ms_total"]) == (5, 250, 1500)


def test_worked_example_of_the_docs(tmp_path: Path) -> None:
    """docs/formats.md, "mcode", worked example: the lines written there, read.

    r1 [1000, 1400], r2 [1000, 1600]: span 600, durations 400 + 600 = 1000, saved
    400, upper bound 500, peak 2: 1 round trip; turn 2000. Lines 11: used 7, ignored
    4 (exec.started, session.started, two item.completed).
    """
    example = Path(__file__).parent.parent / "docs" / "formats.md"
    text = example.read_text(encoding="utf-8")
    section = text[text.index("## `mcode`"):]
    block = section[section.index("```jsonl\n") + 9:]
    block = block[:block.index("```")]
    path = tmp_path / "example.jsonl"
    path.write_text(block, encoding="utf-8")
    report, _ = read_one(str(path), "mcode")
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (11, 7, 4)
    assert dict(report.notes) == {"run_status.success": 1}
    code, document = cli_document([str(path)])
    assert code == 0
    assert lane_figures(document, "paired_calls", "modeled_wallclock_saved_ms",
                        "upper_bound_saved_ms", "non_eval_saved_round_trips",
                        "measured_turn_duration_ms_total") == {
        ("mvs_doc", "main"): (2, 400, 500, 1, 2000),
    }


def test_status_strings_and_a_call_id_mismatch(tmp_path: Path) -> None:
    """``"running"`` starts and ``"error"`` ends a call; a ``toolCall.id`` other than
    ``item.id``, an unknown status, a missing name are ``invalid_tool_record``."""
    run = Run("mvs_s", "turn_s").open()
    run.call("item.started", "s1", "bash", "running", 10)
    run.call("item.updated", "s1", "bash", "error", 70)
    run.call("item.started", "s2", "bash", 1, 10)
    run.lines[-1]["item"]["toolCall"]["id"] = "other"
    run.call("item.started", "s3", "bash", 9, 10)
    run.call("item.started", "s4", "", 1, 10)
    run.close(100)
    path = _write(tmp_path / "status.jsonl", run)
    report, _ = read_one(path, "mcode")
    assert dict(report.problems) == {"invalid_tool_record": 3}
    code, document = cli_document([path])
    assert code == 0
    assert lane_figures(document, "paired_calls", "tool_time_ms") == {("mvs_s", "main"): (1, 60)}


def test_run_statuses_are_kept_only_as_safe_identifiers(tmp_path: Path) -> None:
    """A status that is not a short lower-case identifier counts as ``run_status.other``."""
    runs = []
    for index, status in enumerate(("success", "Bad Status!", "x" * 40, "timeout")):
        runs.append(Run(f"mvs_{index}", f"turn_{index}").open().close(10, status))
    runs[-1].lines[-1]["result"] = "not an object"
    report, _ = read_one(_write(tmp_path / "statuses.jsonl", *runs), "mcode")
    assert dict(report.notes) == {"run_status.other": 3, "run_status.success": 1}


def test_turn_total_overflow_is_a_problem(tmp_path: Path) -> None:
    """Two turns of 1.5e308 ms each: the second would make the total infinite
    (1.5e308 + 1.5e308 is past the largest double), so its end is a problem."""
    huge = 15 * 10**307
    run = Run("mvs_o", "turn_o").line("turn.started", 0).line("turn.completed", 0)
    run.lines[-1]["timestampMs"] = huge
    run.line("turn.started", 0).line("turn.completed", 0).line("exec.completed", 0)
    run.lines[-2]["timestampMs"] = huge
    report, _ = read_one(_write(tmp_path / "overflow.jsonl", run), "mcode")
    assert dict(report.problems) == {"turn_total_overflow": 1}


@pytest.mark.parametrize("value", ["1767225600000", 1.5, -1, True, None])
def test_a_timestamp_must_be_an_integer_of_ms(tmp_path: Path, value: object) -> None:
    """``timestampMs`` is integer epoch ms: a string, float, negative, bool or null
    is ``invalid_timestamp``."""
    run = Run("mvs_t", "turn_t").open()
    run.call("item.started", "t1", "bash", 1, 10)
    run.lines[-1]["timestampMs"] = value
    run.close(20)
    report, _ = read_one(_write(tmp_path / "time.jsonl", run), "mcode")
    assert dict(report.problems) == {"invalid_timestamp": 1}


# ------------------------------------------------------------------ detection


def _fixture_files(tmp_path: Path) -> list[Path]:
    return [Path(_write(tmp_path / "parallel.jsonl", parallel_run())),
            Path(_write(tmp_path / "runner.jsonl", *appended_runs()))]


def test_no_earlier_format_takes_an_mcode_stream(tmp_path: Path) -> None:
    """Of every registered format only ``mcode`` recognises the fixtures, and detection
    names it."""
    for path in _fixture_files(tmp_path):
        lines = path.read_bytes().splitlines(keepends=True)[:64]
        accepting = [f.name for f in TRACE_FORMATS if f.sniff(Peek(lines, str(path)))]
        assert accepting == ["mcode"]
        assert detect_input(str(path)).format == "mcode"


@needs_corpus
def test_mcode_takes_no_corpus_file() -> None:
    """The recogniser accepts no file of the corpus (other formats' traces)."""
    from wavemetrics.readers.sources import Source

    taken = []
    for path in sorted(CORPUS.rglob("*")):
        if path.is_file() and not path.name.endswith(".gz"):
            peek = Peek(Source(str(path)).peek(64), str(path))
            if sniff_mcode(peek):
                taken.append(path)
    assert taken == []


def test_mcode_takes_no_other_format_s_builder_lines() -> None:
    """No other format's minimal trace (``tests/trace_builders.py``) is taken for mcode."""
    for name, builder in BUILDERS.items():
        lines = [*builder.prelude, *builder.call("a", 1, 3), *builder.chatter("x")]
        assert sniff_mcode(Peek(lines, "t.jsonl")) is (name == "mcode"), name


def test_both_engines_give_the_same_bytes(tmp_path: Path) -> None:
    """The native engine hands mcode files to the Python reader: same output."""
    paths = [str(path) for path in _fixture_files(tmp_path)]
    outputs = []
    for engine in ("native", "python"):
        result = CliRunner().invoke(main, ["summarize", "--format", "json", "--engine",
                                           engine, *paths])
        assert result.exit_code == 0, result.stderr
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]
    assert [entry["format"] for entry in json.loads(outputs[0])["inputs"]] == ["mcode"] * 2


def test_arguments_results_and_text_never_reach_the_output(tmp_path: Path) -> None:
    """The fixtures' inputs, outputs and text deltas are never printed."""
    paths = [str(path) for path in _fixture_files(tmp_path)]
    for output in ("json", "table", "csv", "jsonl"):
        result = CliRunner().invoke(main, ["summarize", "--format", output, *paths])
        assert "secret" not in result.stdout + result.stderr


# ------------------------------------------------- the bench runner's captures


def test_efficiency_axis_scores_a_captured_stream(tmp_path: Path) -> None:
    """A runner that saves ``mcode exec`` stdout to a file gets the axis with no
    conversion step: the parallel run's figures (saved 2300 ms, 2 round trips)."""
    path = _write(tmp_path / "trial.jsonl", parallel_run())
    axis = efficiency_axis(path)
    assert axis.state is AxisState.SCORED
    assert axis.figures is not None
    assert (axis.figures["paired_calls"], axis.figures["modeled_wallclock_saved_ms"],
            axis.figures["non_eval_saved_round_trips"]) == (4, 2300, 2)
    assert efficiency_axis(path, input_format="mcode").figures == axis.figures


def test_compare_reads_captured_streams_one_trial_per_session(tmp_path: Path) -> None:
    """``compare`` on two bench folders of captures: each session is a trial.

    Baseline task ``t1``: the runner's log, sessions x (saved 250) and y (saved 0);
    candidate ``t1``: the parallel run (saved 2300). Trials 2 and 1.
    """
    for side, runs in (("base", appended_runs()), ("cand", [parallel_run()])):
        folder = tmp_path / side / "t1"
        folder.mkdir(parents=True)
        _write(folder / "mcode-exec.jsonl", *runs)
    comparison = compare_folders(str(tmp_path / "base"), str(tmp_path / "cand"),
                                 metric="modeled_wallclock_saved_ms")
    (task,) = comparison.to_dict()["tasks"]
    assert (task["baseline_trials"], task["candidate_trials"]) == (2, 1)
    assert (task["baseline_kinds"], task["candidate_kinds"]) == (["mcode"], ["mcode"])
    # baseline (250 + 0) / 2 = 125, candidate 2300
    assert (task["baseline_mean"], task["candidate_mean"]) == (125, 2300)


@pytest.mark.parametrize("sequence", [0, -1, 2**53, "2", 1.0, None])
def test_a_sequence_must_be_a_javascript_safe_positive_integer(
    tmp_path: Path, sequence: object
) -> None:
    """A ``sequence`` that mcode cannot write is ``invalid_envelope``; the line takes no
    place in the run, so the next line's number shows it missing (``sequence_gap`` 1)."""
    run = Run("mvs_q", "turn_q").open()
    run.call("item.started", "q1", "bash", 1, 10)
    run.lines[-1]["sequence"] = sequence
    run.close(20)
    report, _ = read_one(_write(tmp_path / "sequence.jsonl", run), "mcode")
    assert dict(report.problems) == {"invalid_envelope": 1}
    assert dict(report.notes) == {"run_status.success": 1, "sequence_gap": 1}


def test_a_killed_run_followed_by_the_next_run_is_truncated_alone(tmp_path: Path) -> None:
    """A runner's log: run 1 killed after its first call started (no exec.completed),
    run 2 complete. Sequence 1 starts run 2, so run 1 alone is truncated; its call is
    incomplete, run 2's call [110, 150] is paired."""
    first = Run("mvs_k", "turn_k1").open()
    first.call("item.started", "k1", "bash", 1, 10)
    second = Run("mvs_k", "turn_k2").open(100, resumed=True)
    second.call("item.started", "k2", "bash", 1, 110).call("item.updated", "k2", "bash", 2, 150)
    second.close(200)
    report, _ = read_one(_write(tmp_path / "log.jsonl", first, second), "mcode")
    assert dict(report.problems) == {}
    assert dict(report.notes) == {"run_status.success": 1, "truncated": 1}
    code, document = cli_document([str(tmp_path / "log.jsonl")])
    assert code == 0
    assert lane_figures(document, "paired_calls", "incomplete_calls",
                        "measured_turn_duration_ms_total") == {("mvs_k", "main"): (1, 1, 100)}


def test_a_stream_captured_from_its_middle_counts_the_lines_before(tmp_path: Path) -> None:
    """A first line numbered 5: its run's lines 1 to 4 are missing (``sequence_gap`` 4)."""
    run = Run("mvs_m", "turn_m").open()
    run.call("item.started", "m1", "bash", 1, 10).call("item.updated", "m1", "bash", 2, 20)
    run.close(30)
    del run.lines[:4]
    report, _ = read_one(_write(tmp_path / "middle.jsonl", run), "mcode")
    assert dict(report.notes) == {"run_status.success": 1, "sequence_gap": 4}
    assert (report.lines_read, report.lines_used) == (3, 2)


def _served(run: Run, call_id: str, name: str, start: int, end: int) -> Run:
    """A call's start (status 1) and end (status 2) lines."""
    run.call("item.updated", call_id, name, 1, start)
    return run.call("item.updated", call_id, name, 2, end)


def test_batches_are_bursts_of_item_completed_lines(tmp_path: Path) -> None:
    """Batches (``docs/formats.md``, "mcode"): the tool calls whose ``item.completed``
    lines follow one another, with only ``agent_message``/``reasoning`` ones between.

    burst 1: a read [1000, 1400], b grep [1000, 1600]; their item.completed lines have
    an agent_message one between them: width 2.
    burst 2: c read [2000, 2300] (its status lines end burst 1); burst 3: d ls
    [3000, 3100], a reasoning completion before it; burst 4: e bash [4000, 5000], not
    batchable: closes the run c, d (k = 2): upper (3100 - 2000) - max(300, 100) = 800.
    f read [6000, 6500] has no item.completed (the run closes first): no batch.
    paired 6, without a batch 1; 4 turns, 1 multi, "3:1:0:0:0:0:0:0", max 2; runs 1,
    calls 2, round trips 1, upper 800.0; mcode timing: 6 by execution.
    """
    run = Run("mvs_b", "turn_b").open()
    _served(run, "a", "read", 1000, 1400)
    _served(run, "b", "grep", 1000, 1600)
    run.call("item.completed", "a", "read", 2, 1600)
    run.text("item.completed", "m1:message", "agent_message", 1600)
    run.call("item.completed", "b", "grep", 2, 1600)
    _served(run, "c", "read", 2000, 2300)
    run.call("item.completed", "c", "read", 2, 2300)
    _served(run, "d", "ls", 3000, 3100)
    run.text("item.completed", "m3:reasoning", "reasoning", 3100)
    run.call("item.completed", "d", "ls", 2, 3100)
    _served(run, "e", "bash", 4000, 5000)
    run.call("item.completed", "e", "bash", 2, 5000)
    _served(run, "f", "read", 6000, 6500)
    run.close(7000)
    path = _write(tmp_path / "bursts.jsonl", run)
    assert batch_figures(path) == {
        "calls_without_batch": 1, "batched_turns": 4, "multi_call_turns": 1,
        "turn_width_histogram": "3:1:0:0:0:0:0:0", "max_turn_width": 2,
        "missed_batch_runs": 1, "missed_batch_calls": 2, "missed_batch_round_trips": 1,
        "missed_batch_upper_ms": 800.0,
        "calls_timed_by_execution": 6, "calls_timed_by_message": 0,
    }


def test_what_ends_a_burst(tmp_path: Path) -> None:
    """Another item's ``item.completed`` (a ``todo_list``) between two tool calls' ends
    the burst: x and y are two batches. A replayed tool call's ``item.completed`` (no
    earlier line named it) joins the burst without a call: p and q stay one batch. A
    repeated ``item.completed`` of p in a later burst keeps p's first batch.
    x, y, p, q bash: widths 1, 1, 2: "2:1:0:0:0:0:0:0", 3 turns, 1 multi, none without.
    """
    run = Run("mvs_e", "turn_e").open()
    _served(run, "x", "bash", 100, 200)
    _served(run, "y", "bash", 100, 300)
    run.call("item.completed", "x", "bash", 2, 300)
    run.text("item.completed", "todo", "todo_list", 300)
    run.call("item.completed", "y", "bash", 2, 300)
    _served(run, "p", "bash", 400, 500)
    _served(run, "q", "bash", 400, 600)
    run.call("item.completed", "p", "bash", 2, 600)
    run.call("item.completed", "replayed", "bash", 2, 600)
    run.call("item.completed", "q", "bash", 2, 600)
    run.line("turn.completed", 700, durationMs=700)
    run.call("item.completed", "p", "bash", 2, 700)
    run.line("exec.completed", 700, result={"status": "success", "exitCode": 0})
    path = _write(tmp_path / "ends.jsonl", run)
    figures = batch_figures(path)
    assert (figures["calls_without_batch"], figures["batched_turns"],
            figures["multi_call_turns"], figures["turn_width_histogram"],
            figures["max_turn_width"]) == (0, 3, 1, "2:1:0:0:0:0:0:0", 2)


def test_an_item_type_that_is_a_list_or_an_object_is_ignored(tmp_path: Path) -> None:
    """A completed item whose ``type`` is a list or an object (unhashable: the burst-text
    check once raised on it) is ignored as its kind, like any other non-string type:
    2 more ``item.completed`` ignored beside the run's own lines, never a crash."""
    run = Run("mvs_odd", "turn_o").open(resumed=True)
    run.line("item.completed", 100, item={"id": "m1", "type": []})
    run.line("item.completed", 100, item={"id": "m2", "type": {"a": 1}})
    run.close(200)
    path = _write(tmp_path / "odd.jsonl", run)
    report, _ = read_one(path, "mcode")
    assert report.ignored["item.completed"] == 2
