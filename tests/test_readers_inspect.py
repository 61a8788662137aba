"""The ``inspect`` reader (Inspect AI eval logs, ``.json`` and ``.eval``) on the corpus and fixtures.

The corpus log (browser task, one sample) was worked out by a throwaway
script written from ``docs/formats.md`` and ``docs/metrics.md`` (times parsed
by hand into ``Fraction`` seconds, offset applied, rounded once to ms): 43
events, 4 of them ``tool`` events, sequential. Checked by hand against the raw
file: the first call ``web_browser_go`` runs from ``20:27:39.762878-04:00``
to ``20:27:44.080452-04:00`` (00:27:39.762878Z on 13 May 2025, i.e.
1747096059762.878 ms), and each call starts after the previous one ended, so
four one-call waves; their durations add up to 9.86 s (manifest: 9.9 s).
Fixture figures are worked out by hand in the comments beside them.
"""

from __future__ import annotations

import json
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.batch_checks import batch_figures, check_corpus_batches
from tests.corpus import CORPUS, needs_corpus
from tests.reader_checks import (
    WAVE_FIGURES,
    cli_document,
    lane_figures,
    observation_tuples,
    read_one,
    sniffs,
)
from wavemetrics import ParallelismSummary, assemble_waves, summarize
from wavemetrics.cli.commands import main
from wavemetrics.readers.dispatch import InputReport
from wavemetrics.readers.inspect_log import INSPECT
from wavemetrics.run.pipeline import Lane, read_inputs

# 2026-01-01T00:00:00Z in ms.
BASE_MS = 1_767_225_600_000
CORPUS_LOG = "inspect_ai/2025-05-12T20-27-36-04-00_browser.json"
CORPUS_IGNORED = {"model": 5, "sample_init": 1, "sandbox": 10, "score": 1, "span_begin": 8,
                  "span_end": 8, "state": 2, "store": 4}


def _tool(call_id: str, function: str, timestamp: str, completed: str | None,
          **extra: Any) -> dict[str, Any]:
    """An Inspect tool event (arguments and result are never read)."""
    return {"event": "tool", "type": "function", "id": call_id, "function": function,
            "arguments": {"cmd": "ls"}, "result": "out", "timestamp": timestamp,
            "completed": completed, "working_time": 1.0, **extra}


def _sample(sample_id: Any, epoch: Any, events: Any) -> dict[str, Any]:
    return {"id": sample_id, "epoch": epoch, "input": "prompt", "events": events}


def _parallel_sample() -> dict[str, Any]:
    """Sample 1: calls a [1 s, 3.5 s] and b [1.25 s, 2 s] overlap; c has no end.

    b's times are written with -05:00 and +05:30 offsets.
    """
    return _sample(1, 1, [
        {"event": "model", "timestamp": "2026-01-01T00:00:00.000000+00:00"},
        _tool("call_a", "bash", "2026-01-01T00:00:01.000000+00:00",
              "2026-01-01T00:00:03.500000+00:00"),
        _tool("call_b", "python", "2025-12-31T19:00:01.250000-05:00",
              "2026-01-01T05:30:02.000000+05:30"),
        _tool("call_c", "bash", "2026-01-01T00:00:04.000000+00:00", None),
        {"event": "span_end", "timestamp": "2026-01-01T00:00:05.000000+00:00"},
    ])


PARALLEL_OBSERVATIONS = [
    ("start", "call_a", "bash", BASE_MS + 1000.0), ("end", "call_a", "bash", BASE_MS + 3500.0),
    ("start", "call_b", "python", BASE_MS + 1250.0), ("end", "call_b", "python", BASE_MS + 2000.0),
    ("start", "call_c", "bash", BASE_MS + 4000.0),
]


def _write_eval(path: Path, members: dict[str, Any]) -> str:
    """A ``.eval`` zip archive; dict members are JSON, bytes members written as is."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, member in members.items():
            data = member if isinstance(member, bytes) else json.dumps(member).encode()
            archive.writestr(name, data)
    return str(path)


def _eval_members() -> dict[str, Any]:
    header = {"version": 2, "status": "success", "eval": {"eval_id": "evalFixture01",
                                                          "run_id": "run01", "task": "demo"}}
    return {
        "_journal/start.json": header,
        "samples/1_epoch_1.json": _parallel_sample(),
        "samples/alpha_epoch_2.json": _sample("alpha", 2, []),
        "samples/broken_epoch_1.json": b'{"id": "broken", "events": [',
        "summaries.json": [],
        "header.json": header,
    }


def _read(path: str, input_format: str = "auto") -> tuple[InputReport, list[Lane]]:
    return read_one(path, "inspect", input_format)


def _summary(lane: Lane) -> ParallelismSummary:
    return summarize(assemble_waves(lane.observations))


@needs_corpus
def test_corpus_browser_log_figures() -> None:
    """The corpus eval log gives one sample session with four sequential calls."""
    report, (lane,) = _read(str(CORPUS / CORPUS_LOG))
    assert (report.lines_read, report.lines_used, report.lines_ignored, report.problems,
            report.notes) == (43, 4, 39, {}, {})
    assert report.ignored == CORPUS_IGNORED
    assert (lane.session_id, lane.lane_id) == ("ZB2vu5GNujYaBdPSReCeop/1/1", "main")
    assert observation_tuples(lane)[:2] == [
        ("start", "call_35FTpd6shR9efioDgeEBZ33s", "web_browser_go", 1747096059762.878),
        ("end", "call_35FTpd6shR9efioDgeEBZ33s", "web_browser_go", 1747096064080.452),
    ]
    summary = _summary(lane)
    assert (summary.observed_calls, summary.paired_calls, summary.incomplete_calls,
            summary.clock_anomalies) == (4, 4, 0, 0)
    assert (summary.non_eval_waves_total, summary.non_eval_waves_multi,
            summary.non_eval_wave_size_histogram) == (4, 0, "4:0:0:0:0:0:0:0")
    assert (summary.modeled_wallclock_saved_ms, summary.upper_bound_saved_ms,
            summary.non_eval_saved_round_trips, summary.tool_time_ms) == (
        0.0, 0.0, 0, 9860.18896484375)



def test_eval_archive_is_detected_and_read_sample_by_sample(tmp_path: Path) -> None:
    """A ``.eval`` zip gives one session per sample; a broken member is one problem."""
    path = _write_eval(tmp_path / "run.eval", _eval_members())
    report, lanes = _read(path)
    assert [(lane.session_id, lane.lane_id) for lane in lanes] == [
        ("evalFixture01/1/1", "main"), ("evalFixture01/alpha/2", "main"),
    ]
    assert observation_tuples(lanes[0]) == PARALLEL_OBSERVATIONS
    assert lanes[1].observations == ()
    # 5 events of sample 1, sample alpha without events, the unparsable member.
    assert (report.lines_read, report.lines_used, report.ignored, report.problems) == (
        7, 3, {"model": 1, "no_events": 1, "span_end": 1}, {"invalid_json": 1})
    summary = _summary(lanes[0])
    # One wave [1000, 3500]: durations 2500 + 750 = 3250, span 2500, peak 2; c incomplete.
    assert (summary.observed_calls, summary.paired_calls, summary.incomplete_calls,
            summary.non_eval_wave_size_histogram, summary.modeled_wallclock_saved_ms,
            summary.upper_bound_saved_ms, summary.non_eval_saved_round_trips) == (
        3, 2, 1, "0:1:0:0:0:0:0:0", 750.0, 1625.0, 1)


def test_eval_archive_through_the_cli_from_a_file_and_from_stdin(tmp_path: Path) -> None:
    """``summarize --format json`` reads a ``.eval`` archive by path and piped on stdin."""
    path = _write_eval(tmp_path / "run.eval", _eval_members())
    runner = CliRunner()
    by_path = runner.invoke(main, ["summarize", "--format", "json", path])
    piped = runner.invoke(main, ["summarize", "--format", "json", "-"],
                          input=Path(path).read_bytes())
    for result, stdin_name in ((by_path, "run"), (piped, "stdin")):
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        (entry,) = document["inputs"]
        assert (entry["format"], entry["lines_read"], entry["lines_used"],
                entry["problems"]) == ("inspect", 7, 3, {"invalid_json": 1})
        assert [(lane["session_id"], lane["observed_calls"], lane["paired_calls"],
                 lane["incomplete_calls"], lane["modeled_wallclock_saved_ms"])
                for lane in document["lanes"]] == [
            ("evalFixture01/1/1", 3, 2, 1, 750.0), ("evalFixture01/alpha/2", 0, 0, 0, 0.0),
        ], stdin_name


def test_eval_id_comes_from_the_journal_else_the_file_name(tmp_path: Path) -> None:
    """Without header.json the journal names the eval; without both, the file name does."""
    members = _eval_members()
    del members["header.json"]
    journal_only = _write_eval(tmp_path / "a.eval", members)
    del members["_journal/start.json"]
    bare = _write_eval(tmp_path / "2026-01-01_task_x.eval", members)
    assert _read(journal_only)[1][0].session_id == "evalFixture01/1/1"
    assert _read(bare)[1][0].session_id == "2026-01-01_task_x/1/1"


def test_json_log_with_iso_offsets_and_a_missing_end(tmp_path: Path) -> None:
    """Offsets are applied to ISO times, and ``completed: null`` leaves a start alone."""
    log = {"version": 2, "status": "success", "eval": {"eval_id": "E1"},
           "samples": [_parallel_sample()]}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log, indent=2), encoding="utf-8")
    report, (lane,) = _read(str(path))
    assert lane.session_id == "E1/1/1"
    assert observation_tuples(lane) == PARALLEL_OBSERVATIONS
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (5, 3, 2)


def test_tool_events_are_fed_in_start_order(tmp_path: Path) -> None:
    """Tool events written out of order are fed by start time, stable for equal starts."""
    log = {"eval": {"eval_id": "E"}, "samples": [_sample(3, 1, [
        _tool("late", "t", "2026-01-01T00:00:02Z", "2026-01-01T00:00:03Z"),
        _tool("first", "t", "2026-01-01T00:00:01Z", "2026-01-01T00:00:01.5Z"),
        _tool("second", "t", "2026-01-01T00:00:01Z", "2026-01-01T00:00:01.25Z"),
    ])]}
    path = tmp_path / "order.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    _, (lane,) = _read(str(path))
    assert [o.call_id for o in lane.observations[::2]] == ["first", "second", "late"]


def test_bad_times_records_and_samples_are_accounted(tmp_path: Path) -> None:
    """Times without offset, unusable tool records and samples, and nested tool events are
    counted; every sample with a usable id is a session, also one without calls."""
    nested = {"event": "subtask", "timestamp": "2026-01-01T00:00:00Z", "events": [
        _tool("inner", "t", "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"),
        {"event": "span", "events": [
            _tool("inner2", "t", "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z")]},
    ]}
    log = {"eval": {"eval_id": "E"}, "samples": [
        _sample(1, 1, [
            _tool("a", "t", "2026-01-01T00:00:00", "2026-01-01T00:00:01Z"),
            _tool("b", "t", "2026-01-01T00:00:00Z", "2026-01-01 nope"),
            _tool("c", "t", "2026-01-01T00:00:00Z", 5),  # type: ignore[arg-type]
            _tool("", "t", "2026-01-01T00:00:00Z", None),
            _tool("d", None, "2026-01-01T00:00:00Z", None),  # type: ignore[arg-type]
            _tool("e", "t", "1969-12-31T23:59:59Z", None),
            _tool("ok", "t", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.5Z"),
            nested, 3, {"timestamp": "2026-01-01T00:00:00Z"},
        ]),
        _sample(None, 1, []), _sample(1.5, 1, []), _sample("s", True, []), "x",
        _sample("no-events", 1, None),
        _sample("bad-events", 1, {"event": "tool"}),
    ]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    report, lanes = _read(str(path))
    assert [lane.session_id for lane in lanes] == ["E/1/1", "E/no-events/1", "E/bad-events/1"]
    assert [o.call_id for o in lanes[0].observations] == ["ok", "ok"]
    assert report.problems == {
        "invalid_sample": 4, "invalid_structure": 1, "invalid_timestamp": 4,
        "invalid_tool_record": 2, "missing_type": 1, "not_an_object": 1,
    }
    assert report.ignored == {"no_events": 1, "subtask": 1}
    assert report.notes == {"nested_tool_events": 2}
    assert (report.lines_read, report.lines_used) == (16, 1)


def test_logs_without_samples_and_broken_archives(tmp_path: Path) -> None:
    """A header-only log is one ignored item; a damaged .eval archive is an input error."""
    header_only = tmp_path / "header.json"
    header_only.write_text(json.dumps({"version": 2, "eval": {"eval_id": "E"}}, indent=2),
                           encoding="utf-8")
    report, lanes = _read(str(header_only))
    assert (report.lines_read, report.ignored, lanes) == (1, {"no_samples": 1}, [])
    empty_archive = _write_eval(tmp_path / "empty.eval", {"header.json": {"eval": {}}})
    report, lanes = _read(empty_archive)
    assert (report.lines_read, report.ignored, lanes) == (1, {"no_samples": 1}, [])
    cut = tmp_path / "cut.eval"
    cut.write_bytes(Path(_write_eval(tmp_path / "whole.eval", _eval_members())).read_bytes()[:200])
    outcome = read_inputs([str(cut)])
    (failed,) = outcome.inputs
    assert failed.format == "inspect"
    assert failed.error is not None and failed.error.startswith("not a readable .eval")
    assert (failed.lines_read, failed.problems, outcome.lanes) == (
        1, {"invalid_archive": 1}, ())


def test_sniff_recognises_logs_and_archives_and_nothing_else(tmp_path: Path) -> None:
    """Detection accepts pretty and compact logs and Inspect zips, not other JSON or zips."""
    pretty = json.dumps({"version": 2, "status": "success", "eval": {"eval_id": "E"}},
                        indent=2).encode().splitlines(True)
    assert pretty[0] == b"{\n"
    assert sniffs(INSPECT, pretty, "log.json")
    assert sniffs(INSPECT, [b'{"eval": {"eval_id": "E"}, "samples": []}\n'], "log.json")
    archive = _write_eval(tmp_path / "x.eval", _eval_members())
    head = Path(archive).read_bytes()[:200].splitlines(True)
    assert sniffs(INSPECT, head, archive)
    assert sniffs(INSPECT, head, "-")
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as handle:
        handle.writestr("readme.txt", "hello")
    assert not sniffs(INSPECT, other.read_bytes().splitlines(True), str(other))
    assert not sniffs(INSPECT, [b'{"spans": [], "eval": 1}\n'], "x.json")
    assert not sniffs(INSPECT, [b'{"type": "user", "text": "\\"eval\\": {\\"eval_id\\": 1}"}\n'],
                             "s.jsonl")


# --- 2026 shapes: sub-agent lanes, duplicate samples, repeated tool events.

def _at(seconds: float) -> str:
    """``2026-01-01T00:00:00Z`` plus ``seconds``, as Inspect writes times (µs, offset)."""
    whole, micros = divmod(round(seconds * 1_000_000), 1_000_000)
    return f"2026-01-01T00:00:{whole:02d}.{micros:06d}+00:00"


def _begin(span_id: str, kind: str, name: str, parent: str | None) -> dict[str, Any]:
    return {"event": "span_begin", "id": span_id, "parent_id": parent, "type": kind,
            "name": name, "span_id": span_id, "timestamp": _at(0)}


def _end(span_id: str) -> dict[str, Any]:
    return {"event": "span_end", "id": span_id, "span_id": span_id, "timestamp": _at(0)}


def _handoff_sample(sample_id: Any = 1) -> dict[str, Any]:
    """A ``research`` tool [1 s, 6 s] that runs a researcher agent whose two web_fetch calls
    [1.2, 3.2] and [3.3, 5.3] sit in the sample's main event list, inside its agent span."""
    return _sample(sample_id, 1, [
        _begin("g", "solver", "generate", None),
        _begin("t1", "tool", "research", "g"),
        _tool("call_r", "research", _at(1), _at(6), span_id="g"),
        _begin("a1", "agent", "researcher", "t1"),
        _tool("w1", "web_fetch", _at(1.2), _at(3.2), span_id="a1"),
        _tool("w2", "web_fetch", _at(3.3), _at(5.3), span_id="a1"),
        _end("a1"), _end("t1"), _end("g"),
    ])


def _write_log(tmp_path: Path, samples: list[Any], name: str = "log.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"eval": {"eval_id": "E"}, "samples": samples}), encoding="utf-8")
    return str(path)


def test_tool_events_inside_an_agent_span_are_that_agents_lane(tmp_path: Path) -> None:
    """The researcher's calls are a lane; the handoff call that starts it stays in ``main``."""
    # As one lane: research overlaps both fetches, one wave of 3, durations 5000 + 2000 +
    # 2000 = 9000, span 5000: 4000 ms saved, peak 2 (the figure before the agent-lane rule), rebuilt here
    # with the agent span made a plain solver span.
    as_solver = json.loads(json.dumps(_handoff_sample()).replace('"agent"', '"solver"'))
    _, before = cli_document([_write_log(tmp_path, [as_solver], "solver.json")])
    assert lane_figures(before, *WAVE_FIGURES) == {
        ("E/1/1", "main"): (3, "0:0:1:0:0:0:0:0", 1, 4000.0)}
    code, document = cli_document([_write_log(tmp_path, [_handoff_sample()])])
    assert code == 0
    assert lane_figures(document, *WAVE_FIGURES) == {
        ("E/1/1", "main"): (1, "1:0:0:0:0:0:0:0", 0, 0.0),
        ("E/1/1", "researcher"): (2, "2:0:0:0:0:0:0:0", 0, 0.0),
    }


def test_agent_spans_sharing_a_name_are_made_unique_and_interleaving_is_followed(
    tmp_path: Path,
) -> None:
    """Two agent spans named alike get ``name#id`` lanes; their interleaved events keep their
    own agent through ``span_id``; without ``span_id`` the innermost open agent span wins."""
    sample = _sample(2, 1, [
        _begin("a1", "agent", "worker", None),
        _begin("a2", "agent", "worker", None),
        _tool("x1", "bash", _at(1), _at(2), span_id="a1"),
        _tool("x2", "bash", _at(1.5), _at(2.5), span_id="a2"),
        _end("a2"),
        _begin("a3", "agent", "solo", "a1"),
        _tool("x3", "bash", _at(3), _at(4)),  # no span_id: a3 is the innermost open agent
        _end("a3"),
        _tool("x4", "bash", _at(5), _at(6)),  # no span_id: inside a1 only
        _end("a1"),
        _tool("x5", "bash", _at(7), _at(8)),
    ])
    _, lanes = _read(_write_log(tmp_path, [sample]))
    assert [(lane.lane_id, [o.call_id for o in lane.observations[::2]]) for lane in lanes] == [
        ("main", ["x5"]), ("worker#a1", ["x1", "x4"]), ("worker#a2", ["x2"]), ("solo", ["x3"])]


def test_a_sample_written_twice_counts_once(tmp_path: Path) -> None:
    """A sample with the same id and epoch twice in one log is read once (first wins)."""
    # Read twice, a [1, 3.5] and b [1.25, 2] would each be fed twice: one wave of 4,
    # durations 2500 + 2500 + 750 + 750 = 6500, span 2500: 4000 ms "saved", peak 4 so
    # 3 round trips. Once: durations 2500 + 750, span 2500: 750 ms, 1 round trip.
    sample = _parallel_sample()
    code, document = cli_document([_write_log(tmp_path, [sample, sample])])
    assert code == 0
    assert lane_figures(document, *WAVE_FIGURES) == {
        ("E/1/1", "main"): (3, "0:1:0:0:0:0:0:0", 1, 750.0)}
    (entry,) = document["inputs"]
    assert entry["ignored"]["duplicate_samples"] == 1
    assert entry["lines_read"] == (
        entry["lines_used"] + entry["lines_ignored"] + sum(entry["problems"].values()))


def test_a_sample_in_two_archive_members_counts_once(tmp_path: Path) -> None:
    """The same sample in two members of one ``.eval`` is one session, read from the first."""
    members = _eval_members()
    members["samples/1_epoch_1_copy.json"] = _parallel_sample()
    report, lanes = _read(_write_eval(tmp_path / "twice.eval", members))
    assert [lane.session_id for lane in lanes] == ["evalFixture01/1/1", "evalFixture01/alpha/2"]
    assert observation_tuples(lanes[0]) == PARALLEL_OBSERVATIONS
    assert report.ignored["duplicate_samples"] == 1


def test_a_repeated_tool_event_id_counts_once(tmp_path: Path) -> None:
    """A tool event whose id repeats in a sample is counted, not joined with its first copy."""
    sample = _sample(3, 1, [
        _tool("a", "bash", _at(1), _at(3.5)),
        _tool("a", "bash", _at(1), _at(3.5)),
        _tool("b", "bash", _at(1.25), _at(2)),
    ])
    report, (lane,) = _read(_write_log(tmp_path, [sample]))
    assert [o.call_id for o in lane.observations] == ["a", "a", "b", "b"]
    assert (report.lines_used, report.ignored) == (2, {"repeated_tool_event": 1})
    # a [1, 3.5] and b [1.25, 2]: durations 2500 + 750, span 2500: 750 ms, 1 round trip.
    summary = _summary(lane)
    assert (summary.modeled_wallclock_saved_ms, summary.non_eval_saved_round_trips) == (750.0, 1)


@settings(max_examples=30, deadline=None)
@given(copies=st.lists(st.integers(min_value=1, max_value=3), min_size=3, max_size=3))
def test_repeating_samples_never_changes_the_lanes(copies: list[int]) -> None:
    """However often each sample is written, every session keeps exactly the calls of its
    first copy (duplicates counted, never read)."""
    samples = [_parallel_sample(), _handoff_sample(2), _sample(3, 1, [])]
    written = [sample for sample, n in zip(samples, copies, strict=True) for _ in range(n)]
    with tempfile.TemporaryDirectory() as folder:
        report, lanes = _read(_write_log(Path(folder), written))
    assert [(lane.session_id, lane.lane_id, observation_tuples(lane)) for lane in lanes] == [
        ("E/1/1", "main", PARALLEL_OBSERVATIONS),
        ("E/2/1", "main", [("start", "call_r", "research", BASE_MS + 1000.0),
                           ("end", "call_r", "research", BASE_MS + 6000.0)]),
        ("E/2/1", "researcher", [("start", "w1", "web_fetch", BASE_MS + 1200.0),
                                 ("end", "w1", "web_fetch", BASE_MS + 3200.0),
                                 ("start", "w2", "web_fetch", BASE_MS + 3300.0),
                                 ("end", "w2", "web_fetch", BASE_MS + 5300.0)]),
        ("E/3/1", "main", []),
    ]
    assert report.ignored.get("duplicate_samples", 0) == sum(copies) - 3


def test_an_eval_id_with_a_control_character_is_invalid_id_not_the_file_name(
    tmp_path: Path,
) -> None:
    """A present but unusable eval_id makes each sample an invalid_id problem; no lane falls back to the file name."""
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"eval": {"eval_id": "E\x1b[2J"},
                                "samples": [_parallel_sample(), _sample(2, 1, [])]}),
                    encoding="utf-8")
    report, lanes = _read(str(path))
    assert lanes == []
    assert report.problems == {"invalid_id": 2}
    assert report.lines_read == 2
    assert report.lines_used + report.lines_ignored == 0


def test_an_archive_eval_id_with_a_lone_surrogate_is_invalid_id(tmp_path: Path) -> None:
    """In a .eval archive a header eval_id with a lone surrogate makes its sample an invalid_id problem."""
    members = _eval_members()
    bad = {"version": 2, "eval": {"eval_id": "E\ud800"}}
    members["header.json"] = json.dumps(bad).encode()
    members["_journal/start.json"] = json.dumps(bad).encode()
    del members["samples/alpha_epoch_2.json"], members["samples/broken_epoch_1.json"]
    report, lanes = _read(_write_eval(tmp_path / "x.eval", members))
    assert lanes == []
    assert report.problems == {"invalid_id": 1}


def _model(seconds: float, **extra: Any) -> dict[str, Any]:
    return {"event": "model", "model": "m", "timestamp": _at(seconds), **extra}


def test_batches_are_the_tool_events_after_one_model_event(tmp_path: Path) -> None:
    """Batches (``docs/formats.md``, ``inspect``): the tool events after one ``model``
    event, up to the next; a tool event before the first has none.

    x0 bash [0.1, 0.2] s before any model event: no batch.
    model 1: a read [1, 1.5] s, b grep [1, 1.6] s: width 2. model 2: c read [2, 2.3] s.
    model 3: d ls [3, 3.1] s. model 4: e bash [4, 5] s, not batchable: closes the run
    c, d (k = 2): upper (3100 - 2000) - max(300, 100) = 800 ms.
    paired 6, without a batch 1; 4 turns, 1 multi, "3:1:0:0:0:0:0:0", max 2; runs 1,
    calls 2, round trips 1, upper 800.0; Inspect timing: 6 by execution.
    """
    sample = _sample(1, 1, [
        _tool("x0", "bash", _at(0.1), _at(0.2)),
        _model(0.5),
        _tool("a", "read", _at(1), _at(1.5)), _tool("b", "grep", _at(1), _at(1.6)),
        _model(1.8), _tool("c", "read", _at(2), _at(2.3)),
        _model(2.8), _tool("d", "ls", _at(3), _at(3.1)),
        _model(3.8), _tool("e", "bash", _at(4), _at(5)),
    ])
    assert batch_figures(_write_log(tmp_path, [sample])) == {
        "calls_without_batch": 1, "batched_turns": 4, "multi_call_turns": 1,
        "turn_width_histogram": "3:1:0:0:0:0:0:0", "max_turn_width": 2,
        "missed_batch_runs": 1, "missed_batch_calls": 2, "missed_batch_round_trips": 1,
        "missed_batch_upper_ms": 800.0,
        "calls_timed_by_execution": 6, "calls_timed_by_message": 0,
    }


def test_an_agents_model_events_batch_only_its_own_lane(tmp_path: Path) -> None:
    """A model event belongs to a lane like a tool event: the researcher's model event
    opens its lane's batch (w1, w2: width 2) and does not end main's, so the handoff
    call_r and call_s after the agent span are main's one turn of width 2.
    2 turns, both multi-call: "0:2:0:0:0:0:0:0", none without a batch."""
    sample = _sample(1, 1, [
        _begin("g", "solver", "generate", None),
        _model(0.5, span_id="g"),
        _begin("t1", "tool", "research", "g"),
        _tool("call_r", "research", _at(1), _at(6), span_id="g"),
        _begin("a1", "agent", "researcher", "t1"),
        _model(1.1, span_id="a1"),
        _tool("w1", "web_fetch", _at(1.2), _at(3.2), span_id="a1"),
        _tool("w2", "web_fetch", _at(3.3), _at(5.3), span_id="a1"),
        _end("a1"), _end("t1"),
        _tool("call_s", "bash", _at(6.5), _at(7), span_id="g"),
        _end("g"),
    ])
    figures = batch_figures(_write_log(tmp_path, [sample]))
    assert (figures["calls_without_batch"], figures["batched_turns"],
            figures["multi_call_turns"], figures["turn_width_histogram"],
            figures["max_turn_width"]) == (0, 2, 2, "0:2:0:0:0:0:0:0", 2)


@needs_corpus
def test_corpus_batch_figures_are_sane() -> None:
    """The corpus log read as ``inspect`` gives sane batch figures."""
    assert check_corpus_batches({"inspect"}) >= 1
