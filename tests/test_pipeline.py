"""The pipeline: the sink readers feed, the stream-or-batch decision and its fallback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wavemetrics import Observation, assemble_waves, summarize
from wavemetrics.readers.dispatch import ReadUnit
from wavemetrics.run.pipeline import (
    Lane,
    LaneResult,
    LaneSink,
    StreamedLane,
    StreamedLaneResult,
    StreamSettings,
    analyse,
    read_inputs,
    read_unit,
    summarize_inputs,
)

# a [0,10] and b [5,20] overlap (one wave of 2), c [30,40] is alone: by hand
# (docs/metrics.md section 4) the 2-wave saves (10 + 15) - 20 = 5 ms.
CALLS = [("a", 0.0, 10.0), ("b", 5.0, 20.0), ("c", 30.0, 40.0)]


def _feed(sink: LaneSink, path: str = "p") -> None:
    writer = sink.open_lane(path)
    for call_id, start, _ in CALLS:
        writer.start(call_id, "read", start)
    for call_id, _, end in CALLS:
        writer.end(call_id, end)
    writer.turn_event("turn_start", 0.0)
    writer.turn_event("turn_end", 100.0)
    writer.close("s", "main", 7.0)


def test_batch_sink_keeps_observations_and_names_ends_by_their_start() -> None:
    """A batch lane holds every observation in feeding order; an end takes its start's name."""
    sink = LaneSink()
    writer = sink.open_lane("p")
    writer.start("a", "read", 1.0)
    writer.end("a", 2.0)
    writer.end("z", 3.0)
    writer.start("b", "grep", 4.0, "m1")
    writer.close("s", "main")
    (lane,) = sink.lanes()
    assert lane == Lane("p", "s", "main", (
        Observation("start", "a", "read", 1.0), Observation("end", "a", "read", 2.0),
        Observation("end", "z", "unknown", 3.0), Observation("start", "b", "grep", 4.0, "m1"),
    ), 0.0)


def test_lanes_come_in_opening_order_and_unclosed_lanes_are_dropped() -> None:
    """Lanes are reported in the order they were opened, whatever order they close in."""
    sink = LaneSink()
    first, second, _never = sink.open_lane("1"), sink.open_lane("2"), sink.open_lane("3")
    second.close("s", "two")
    first.close("s", "one")
    assert [lane.lane_id for lane in sink.lanes()] == ["one", "two"]


def test_turn_events_and_durations_add_up() -> None:
    """Turn time is the paired turn events (100 ms) plus durations the format measured (7 ms)."""
    sink = LaneSink()
    _feed(sink)
    (lane,) = sink.lanes()
    assert lane.measured_turn_duration_ms_total == 107.0


def test_stream_sink_gives_the_batch_summary() -> None:
    """A streamed lane carries the very summary batch assembly gives (5 ms saved by hand)."""
    batch, stream = LaneSink(), LaneSink(StreamSettings())
    _feed(batch)
    _feed(stream)
    (kept,) = batch.lanes()
    (streamed,) = stream.lanes()
    assert isinstance(kept, Lane) and isinstance(streamed, StreamedLane)
    expected = summarize(assemble_waves(kept.observations), measured_turn_duration_ms_total=107.0,
                         turn_intervals=kept.turn_intervals)
    assert streamed.summary == expected
    assert expected.modeled_wallclock_saved_ms == 5.0
    # the measured turn [0, 100] is kept by both: the lane's span is the turn's 100 ms
    assert kept.turn_intervals == ((0.0, 100.0),)
    assert expected.lane_span_ms == 100.0
    assert (streamed.path, streamed.session_id, streamed.lane_id) == ("p", "s", "main")


@pytest.mark.parametrize("stream", [None, StreamSettings()])
def test_extend_takes_parallel_columns_like_single_calls(stream: StreamSettings | None) -> None:
    """A batch of columns (a native reader's call) gives what one call per observation gives."""
    one, many = LaneSink(stream), LaneSink(stream)
    _feed(one)
    writer = many.open_lane("p")
    writer.extend(
        ["start"] * 3 + ["end"] * 3, [c for c, _, _ in CALLS] * 2, ["read"] * 6,
        [s for _, s, _ in CALLS] + [e for _, _, e in CALLS],
    )
    writer.turn_event("turn_start", 0.0)
    writer.turn_event("turn_end", 100.0)
    writer.close("s", "main", 7.0)
    assert many.lanes() == one.lanes()


def test_extend_rejects_columns_of_different_lengths() -> None:
    """Columns of different lengths are a caller's error: ValueError, nothing fed."""
    for stream in (None, StreamSettings()):
        writer = LaneSink(stream).open_lane("p")
        with pytest.raises(ValueError, match="same length"):
            writer.extend(["start"], ["a", "b"], ["read"], [1.0])


def test_an_out_of_order_stream_marks_the_sink_instead_of_raising() -> None:
    """A call joining a summarised wave sets out_of_order; the reader is never interrupted."""
    sink = LaneSink(StreamSettings(max_tracked_calls=None))
    writer = sink.open_lane("p")
    for i in range(70):  # sequential calls: the first waves are summarised early
        writer.start(f"c{i}", "read", 100.0 * i)
        writer.end(f"c{i}", 100.0 * i + 10)
    writer.start("late", "read", 5.0)
    writer.end("late", 7.0)
    writer.close("s", "main")
    assert sink.out_of_order
    assert sink.lanes() == ()


def _events(path: Path, calls: list[tuple[str, int, int]]) -> str:
    lines = []
    for call_id, start, end in calls:
        lines.append({"type": "tool_execution_start", "toolCallId": call_id, "toolName": "read",
                      "timestamp": start, "sessionId": "s"})
        lines.append({"type": "tool_execution_end", "toolCallId": call_id, "timestamp": end,
                      "sessionId": "s"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("cap", [None, 100, 271])
def test_read_unit_falls_back_to_batch_and_says_so(tmp_path: Path, cap: int | None) -> None:
    """An out-of-order unit is read again in batch mode (note read_again_in_batch), holding
    only what the cap keeps (bounded memory); its figures are those of the whole batch path."""
    calls = [(f"c{i}", 100 * i, 100 * i + 10) for i in range(70)] + [("late", 5, 7)]
    calls += [(f"d{i}", 10_000 + 100 * i, 10_000 + 100 * i + 10) for i in range(200)]
    path = _events(tmp_path / "late.jsonl", calls)
    result = read_unit(ReadUnit("events", (path,)), StreamSettings(max_tracked_calls=cap))
    assert [r.notes for r in result.reports] == [{"read_again_in_batch": 1}]
    (lane,) = result.lanes
    assert isinstance(lane, StreamedLane)
    (whole,) = analyse(read_inputs([path]), max_tracked_calls=cap).lanes
    assert lane.summary == whole.summary
    # by hand, cap 100: c0..c69, late and d0..d28 are held and paired; d29..d199 dropped
    if cap == 100:
        assert (lane.summary.observed_calls, lane.summary.paired_calls,
                lane.summary.dropped_calls) == (271, 100, 171)


def test_read_unit_streams_only_what_may_be_streamed(tmp_path: Path) -> None:
    """With settings an events file is streamed; without, or for codex, lanes are kept whole."""
    path = _events(tmp_path / "ok.jsonl", [("a", 0, 10), ("b", 5, 20)])
    unit = ReadUnit("events", (path,))
    assert isinstance(read_unit(unit, StreamSettings()).lanes[0], StreamedLane)
    assert isinstance(read_unit(unit).lanes[0], Lane)
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text(json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
                                   "payload": {"id": "r"}}) + "\n", encoding="utf-8")
    (lane,) = read_unit(ReadUnit("codex", (str(rollout),)), StreamSettings()).lanes
    assert isinstance(lane, Lane)


def test_analyse_types_say_whether_waves_were_kept(tmp_path: Path) -> None:
    """A batch read gives LaneResult with waves; a streamed one StreamedLaneResult, no waves."""
    path = _events(tmp_path / "t.jsonl", [("a", 0, 10), ("b", 5, 20), ("c", 30, 40)])
    batch = analyse(read_inputs([path]))
    streamed = analyse(read_inputs([path], stream=StreamSettings()))
    (kept,) = batch.lanes
    (summary_only,) = streamed.lanes
    assert isinstance(kept, LaneResult) and isinstance(summary_only, StreamedLaneResult)
    assert [w.size for w in kept.waves] == [2, 1]
    assert not hasattr(summary_only, "waves")
    assert summary_only.summary == kept.summary and streamed.total == batch.total
    assert kept.session_hash == summary_only.session_hash


def test_analyse_refuses_other_settings_than_the_stream_used(tmp_path: Path) -> None:
    """Settings are given once: analysing a streamed outcome with others is a ValueError."""
    path = _events(tmp_path / "t.jsonl", [("a", 0, 10)])
    outcome = read_inputs([path], stream=StreamSettings(max_tracked_calls=None))
    assert analyse(outcome).total.paired_calls == 1
    assert analyse(outcome, max_tracked_calls=None).total.paired_calls == 1
    with pytest.raises(ValueError, match="other settings"):
        analyse(outcome, max_tracked_calls=2000)
    with pytest.raises(ValueError, match="other settings"):
        analyse(outcome, eval_tool_names=["x"])


def test_summarize_inputs_streams_only_when_asked(tmp_path: Path) -> None:
    """summarize_inputs reads and analyses with one settings object; stream=False keeps waves."""
    path = _events(tmp_path / "t.jsonl", [("a", 0, 10), ("b", 5, 20), ("c", 30, 40)])
    settings = StreamSettings(max_tracked_calls=None, eval_tool_names=("read",))
    batch = summarize_inputs([path], settings=settings)
    streamed = summarize_inputs([path], settings=settings, stream=True)
    assert all(isinstance(r, LaneResult) for r in batch.lanes)
    assert all(isinstance(r, StreamedLaneResult) for r in streamed.lanes)
    assert batch.total == streamed.total
    # every call is "read", an eval tool here: no non-eval wave
    assert batch.total.non_eval_waves_total == 0 and batch.total.eval_only_waves == 2


def test_a_file_changed_during_the_native_read_is_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One stat after the folded native pass checks both its detection and its read: a
    file that changed during that pass gets neither a stored detection nor a stored unit,
    and the next run reads its new content."""
    from wavemetrics.cache.units import ReadCache
    from wavemetrics.run import native

    if not native.available():
        pytest.skip("the native extension is not built")
    kept = _events(tmp_path / "kept.jsonl", [("a", 0, 10), ("b", 5, 20)])
    grown = _events(tmp_path / "grown.jsonl", [("c", 0, 10)])
    real = native.detect_and_read_natively

    def read_then_append(*args: object, **kwargs: object) -> object:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        with open(grown, "a", encoding="utf-8") as stream:  # after the pass read it
            stream.write(json.dumps({"type": "tool_execution_start", "toolCallId": "d",
                                     "toolName": "read", "timestamp": 40,
                                     "sessionId": "s"}) + "\n")
            stream.write(json.dumps({"type": "tool_execution_end", "toolCallId": "d",
                                     "timestamp": 50, "sessionId": "s"}) + "\n")
        return found

    monkeypatch.setattr(native, "detect_and_read_natively", read_then_append)
    store = ReadCache(tmp_path / "cache")
    settings = StreamSettings(engine="native")
    first = read_inputs([kept, grown], stream=settings, cache=store)
    # the read saw grown.jsonl with one call (c); only kept.jsonl's entries were stored
    assert [r.lines_used for r in first.inputs] == [4, 2]
    info = store.info()
    assert (info.detections, info.summaries) == (1, 1)
    monkeypatch.setattr(native, "detect_and_read_natively", real)
    second = read_inputs([kept, grown], stream=settings, cache=store)
    # the grown file is read again (c and d: four lines), the kept one from the cache
    assert [r.lines_used for r in second.inputs] == [4, 4]
    assert (store.info().detections, store.info().summaries) == (2, 2)


# A Claude Code transcript with no tool call: a user prompt and a text answer. Read as
# claude-code both lines are ignored as its own conversation types; read as another
# format they are ignored as types that format does not know (foreign).
_NO_TOOL_CALL = [
    {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
     "message": {"role": "user", "content": "hi"}},
    {"type": "assistant", "uuid": "u2", "parentUuid": "u1", "sessionId": "s",
     "timestamp": "2026-01-01T00:00:01Z",
     "message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}},
]


def _lines(path: Path, records: list[dict[str, object]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_every_line_ignored_under_the_right_forced_format_is_no_error(tmp_path: Path) -> None:
    """Merely unused: auto-detection names the forced format itself, so the input is read,
    with no error (its 2 lines ignored as claude-code's own ``user`` and ``assistant``)."""
    path = _lines(tmp_path / "s.jsonl", _NO_TOOL_CALL)
    report = read_inputs([path], "claude-code").inputs[0]
    assert (report.error, report.lines_read, report.lines_ignored) == (None, 2, 2)
    assert dict(report.ignored) == {"assistant": 1, "user": 1}


@pytest.mark.parametrize("forced", ["events", "codex", "pi", "otlp", "otel-spans", "inspect"])
def test_every_line_ignored_as_foreign_to_a_forced_format_is_an_error(
    tmp_path: Path, forced: str,
) -> None:
    """Foreign: the same 2 lines, every one ignored under a format auto-detection does not
    name (it names claude-code), make the input an error, beginning "no usable record"."""
    path = _lines(tmp_path / "s.jsonl", _NO_TOOL_CALL)
    outcome = read_inputs([path], forced)
    report = outcome.inputs[0]
    assert (report.lines_read, report.lines_used, report.lines_ignored) == (2, 0, 2)
    assert report.error == (
        f"no usable record: every line (2) was ignored as a record type that --input-format"
        f" {forced} does not read; it looks like claude-code: try --input-format claude-code"
        " or auto")
    assert outcome.failed == (report,)
    assert outcome.lanes == ()  # no empty lane beside the error (codex and pi open one)


def test_a_foreign_input_leaves_the_others_read(tmp_path: Path) -> None:
    """One foreign input among usable ones: only it is an error; the events trace forced as
    events keeps its figures (a [0,10] and b [5,20]: one 2-call wave, 5 ms saved)."""
    good = _events(tmp_path / "good.jsonl", CALLS)
    foreign = _lines(tmp_path / "claude.jsonl", _NO_TOOL_CALL)
    outcome = read_inputs([good, foreign], "events", stream=StreamSettings())
    assert [r.error is None for r in outcome.inputs] == [True, False]
    assert analyse(outcome).total.modeled_wallclock_saved_ms == 5.0


def test_whitespace_and_problems_are_not_foreign(tmp_path: Path) -> None:
    """Blank lines only (auto-detection: empty) under a forced format are no error; a line
    that is a problem keeps the older rule (every record a problem), not this one."""
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n \n", encoding="utf-8")
    report = read_inputs([str(blank)], "codex").inputs[0]
    assert (report.error, dict(report.ignored)) == (None, {"blank_line": 2})
    mixed = _lines(tmp_path / "m.jsonl", [*_NO_TOOL_CALL, {"no": "type"}])
    report = read_inputs([mixed], "codex").inputs[0]
    assert report.error is not None
    assert report.error.startswith("no usable record: 3 lines read as codex, 1 not usable")


@pytest.mark.parametrize(("forced", "text"), [
    ("otel-spans", "[]\n"),
    ("otel-spans", '{"spans": []}\n'),
    ("otlp", '{"resourceSpans": []}\n'),
])
def test_a_span_document_with_no_span_is_merely_empty(
    tmp_path: Path, forced: str, text: str,
) -> None:
    """A span document of the forced format's own shape with no span in it is ignored as
    ``no_spans``: merely empty, no error, although auto-detection names no format (it
    needs a span to recognise either span format)."""
    path = tmp_path / "empty.json"
    path.write_text(text, encoding="utf-8")
    report = read_inputs([str(path)], forced).inputs[0]
    assert (report.error, report.lines_read, dict(report.ignored)) == (None, 1, {"no_spans": 1})


@pytest.mark.parametrize("path", ["rollout.jsonl", Path("rollout.jsonl")])
def test_analyse_and_read_inputs_given_one_path_name_summarize_paths(path: object) -> None:
    """analyse given a path, and read_inputs given one path instead of a sequence (a str
    would be read letter by letter), raise a TypeError naming summarize_paths."""
    hint = ("not the path 'rollout.jsonl': to summarize trace files, call"
            " wavemetrics.summarize_paths('rollout.jsonl')")
    with pytest.raises(TypeError) as raised:
        analyse(path)  # type: ignore[call-overload]
    assert str(raised.value) == f"analyse() takes a ReadOutcome (from read_inputs), {hint}"
    with pytest.raises(TypeError) as raised:
        read_inputs(path)  # type: ignore[arg-type]
    assert str(raised.value) == f"read_inputs() takes a sequence of paths ([path, ...]), {hint}"
