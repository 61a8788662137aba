"""wavemetrics.cache.unit_records: a read unit to and from the cache's compact records, and the
streaming replay of cached batch lanes (the read cache)."""

from __future__ import annotations

import pytest

from wavemetrics.cache.unit_records import decode_unit, encode_unit, replay_streaming
from wavemetrics.core.observations import Observation
from wavemetrics.core.summary import ParallelismSummary
from wavemetrics.readers.lanes import InputReport
from wavemetrics.run.pipeline import Lane, StreamedLane, StreamSettings

PATHS = ["/t/a.jsonl", "/t/b.jsonl"]
#: read [0, 100] and grep [10, 40] in one wave: 130 ms of calls in a 100 ms span, 30 saved
OBSERVATIONS = (
    Observation("start", "a", "read", 0.0, "m1"), Observation("start", "b", "grep", 10.0),
    Observation("end", "b", "grep", 40.0), Observation("end", "a", "read", 100.0),
)
REPORTS = (
    InputReport("/t/a.jsonl", "events", 5, 4, 1, {}, {"note": 1}, {}, None),
    InputReport("/t/b.jsonl", "events", 2, 0, 0, {"invalid_json": 2}, {}, {}, None),
)
LANE = Lane("/t/a.jsonl", "a", "main", OBSERVATIONS, 250.0, ((-5.0, 245.0),), "message")


def test_encoding_replaces_paths_by_their_index_and_keeps_no_text() -> None:
    """Paths become their index in the unit; observations are bare [kind, id, tool, ms,
    batch] rows, and a lane keeps its timing and measured turns (section 9)."""
    assert encode_unit(PATHS, REPORTS, [LANE]) == [
        [[0, "events", 5, 4, 1, {}, {"note": 1}, {}, None],
         [1, "events", 2, 0, 0, {"invalid_json": 2}, {}, {}, None]],
        [[0, "a", "main", 250.0,
          [["start", "a", "read", 0.0, "m1"], ["start", "b", "grep", 10.0, None],
           ["end", "b", "grep", 40.0, None], ["end", "a", "read", 100.0, None]], None,
          ["message", [[-5.0, 245.0]]]]],
    ]


def test_a_path_outside_the_unit_is_kept_as_it_is() -> None:
    """A lane path that is not one of the unit's paths is stored as the path itself."""
    lane = Lane("/elsewhere.jsonl", "s", "main", (), 0.0)
    assert encode_unit(PATHS, REPORTS, [lane])[1][0][0] == "/elsewhere.jsonl"


def test_decoding_under_other_paths_gives_the_same_unit_there() -> None:
    """The same file named by another path on another run decodes with that path."""
    summary = ParallelismSummary(paired_calls=2, modeled_wallclock_saved_ms=30.0)
    streamed = StreamedLane("/t/b.jsonl", "b", "sub", 0.0, summary)
    records = encode_unit(PATHS, REPORTS, [LANE, streamed])
    assert decode_unit(PATHS, records) == (REPORTS, (LANE, streamed))
    moved = ["/u/a.jsonl", "/u/b.jsonl"]
    reports, lanes = decode_unit(moved, records)
    assert [r.path for r in reports] == moved
    assert [lane.path for lane in lanes] == moved
    assert lanes[1] == StreamedLane("/u/b.jsonl", "b", "sub", 0.0, summary)


def test_records_of_another_shape_raise() -> None:
    """A unit whose report count differs from its paths, or a truncated row, is refused."""
    records = encode_unit(PATHS, REPORTS, [LANE])
    with pytest.raises(ValueError, match="one report per path"):
        decode_unit([*PATHS, "/t/c.jsonl"], records)
    with pytest.raises(IndexError):  # a path index past the unit's paths
        decode_unit(PATHS[:1], records)
    with pytest.raises(ValueError):
        decode_unit(PATHS, [records[0], [records[1][0][:3]]])


def test_replay_streams_a_streamable_format_to_its_hand_computed_figures() -> None:
    """An events lane replays to a StreamedLane: 2 paired calls, 1 multi-call wave, 30 ms saved."""
    reports, lanes = replay_streaming("events", REPORTS, (LANE,), StreamSettings())
    assert reports == REPORTS
    (streamed,) = lanes
    assert isinstance(streamed, StreamedLane)
    assert (streamed.path, streamed.session_id, streamed.lane_id,
            streamed.measured_turn_duration_ms_total) == ("/t/a.jsonl", "a", "main", 250.0)
    figures = streamed.summary
    assert (figures.paired_calls, figures.waves_total, figures.non_eval_waves_multi,
            figures.modeled_wallclock_saved_ms, figures.tool_time_ms,
            figures.measured_turn_duration_ms_total) == (2, 1, 1, 30.0, 130.0, 250.0)


def test_replay_leaves_a_batch_only_format_as_it_is() -> None:
    """Codex is never streamed (its batched-write rule), so its lanes come back unchanged."""
    assert replay_streaming("codex", REPORTS, (LANE,), StreamSettings()) == (REPORTS, (LANE,))
