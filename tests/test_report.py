"""wavemetrics.report: unique id prefixes of the tables and the JSON/JSONL documents
(issue 9: report gets its own tests; issue 11: ids that can be told apart)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.event_traces import TWO_LANES, write_events
from wavemetrics.pipeline import analyse, read_inputs
from wavemetrics.report import render_json, render_jsonl, unique_prefixes


def test_an_id_that_fits_is_shown_whole() -> None:
    """An id no wider than the column is shown as it is, exactly 10 characters included."""
    assert unique_prefixes(["main", "0123456789"], 10) == {"main": "main",
                                                          "0123456789": "0123456789"}


def test_a_long_id_alone_is_cut_to_the_width() -> None:
    """A 12-character id in a 10-column is its first 9 characters and an ellipsis."""
    assert unique_prefixes(["abcdefghijkl"], 10) == {"abcdefghijkl": "abcdefghi…"}


def test_ids_sharing_a_prefix_keep_one_character_past_it() -> None:
    """Two ids equal in their first 10 characters show 11, so they differ on screen."""
    assert unique_prefixes(["abcdefghijkl", "abcdefghijzz"], 10) == {
        "abcdefghijkl": "abcdefghijk…", "abcdefghijzz": "abcdefghijz…"}


def test_ids_are_escaped_before_they_are_cut() -> None:
    """ESC counts as the four characters ``\\x1b`` it is shown as."""
    assert unique_prefixes(["\x1b[2Jabcdefgh"], 10) == {"\x1b[2Jabcdefgh": "\\x1b[2Jab…"}


def test_the_prefix_never_grows_past_80_characters() -> None:
    """Ids equal in their first 200 characters are cut at 80 (the widest id cell)."""
    a, b = "x" * 200 + "a", "x" * 200 + "b"
    assert unique_prefixes([a, b], 10) == {a: "x" * 80 + "…", b: "x" * 80 + "…"}


def test_json_document_of_two_lanes(tmp_path: Path) -> None:
    """TWO_LANES: 18 lines used, lane main saves 30 ms, lane sub 10 ms, 40 ms in all."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    document = json.loads(render_json(analyse(read_inputs([str(trace)]))))
    assert document["schema_kind"] == "parallelism_v1"
    (entry,) = document["inputs"]
    assert (entry["format"], entry["lines_read"], entry["lines_used"], entry["error"]) == (
        "events", 18, 18, None)
    assert [(lane["session_id"], lane["lane_id"], lane["modeled_wallclock_saved_ms"])
            for lane in document["lanes"]] == [("t", "main", 30.0), ("t", "sub", 10.0)]
    assert document["total"]["modeled_wallclock_saved_ms"] == 40.0


def test_jsonl_is_one_v1_payload_per_lane_with_a_hashed_session(tmp_path: Path) -> None:
    """Each lane with waves is one line whose ``$session_id`` is the SHA-256 of
    ``["session","lane"]``; the ids themselves are never printed."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    lines = render_jsonl(analyse(read_inputs([str(trace)]))).splitlines()
    payloads = [json.loads(line) for line in lines]
    assert [p["$session_id"] for p in payloads] == [
        hashlib.sha256(b'["t","main"]').hexdigest(), hashlib.sha256(b'["t","sub"]').hexdigest()]
    assert [p["modeled_wallclock_saved_ms"] for p in payloads] == [30.0, 10.0]
    assert '"main"' not in "".join(lines) and '"sub"' not in "".join(lines)
