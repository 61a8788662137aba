"""The ``opencode-storage`` reader (opencode's older JSON-file storage) on fixtures.

No real storage folder was available: every file is written here from the documented
layout (docs/formats.md, "opencode-storage"), and the expected figures are computed by
hand from docs/metrics.md (the same calls as the store's worked example).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import CORPUS, needs_corpus
from tests.reader_checks import check_lanes, cli_document, collect, lane_figures
from tests.test_readers_opencode import (
    BATCH_FIGURES,
    BATCH_LANES,
    BATCH_TOTAL,
    BATCHES,
    FIGURES,
    WORKED,
)
from tests.trace_builders import opencode_store, opencode_tool
from wavemetrics.readers._protocol import Peek
from wavemetrics.readers.opencode_storage import (
    _PART,
    OPENCODE_STORAGE,
    read_opencode_storage,
)
from wavemetrics.readers.registry import TRACE_FORMATS
from wavemetrics.readers.sources import Source


def _write_storage(data: Path, *, pretty: bool = True) -> Path:
    """The worked example's sessions and parts as storage files under ``data``."""
    storage = data / "storage"
    sessions, parts = WORKED
    for session, parent in sessions:
        document: dict[str, Any] = {"id": session, "projectID": "global", "title": "t"}
        if parent is not None:
            document["parentID"] = parent
        _dump(storage / "session" / "global" / f"{session}.json", document, pretty)
    for part_id, message, session, part in parts:
        path = storage / "part" / message / f"{part_id}.json"
        if isinstance(part, dict):
            _dump(path, {"id": part_id, "sessionID": session, "messageID": message, **part},
                  pretty)
        else:  # a file cut while written
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text('{"id": "' + part_id + '", "type": "tool", "callID": ')
    _dump(storage / "message" / "ses_1" / "msg_A.json",
          {"id": "msg_A", "sessionID": "ses_1", "role": "assistant"}, pretty)
    return storage


def _dump(path: Path, document: dict[str, Any], pretty: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2 if pretty else None), encoding="utf-8")


@pytest.mark.parametrize("pretty", [True, False])
def test_worked_example_gives_the_store_figures(tmp_path: Path, pretty: bool) -> None:
    storage = _write_storage(tmp_path, pretty=pretty)
    code, document = cli_document([str(tmp_path)])
    # the cut part file: its one line is a problem, so that input is an error (exit 1)
    assert code == 1
    entries = {str(Path(e["path"]).relative_to(storage)): e for e in document["inputs"]}
    # the text part and the message file are not traces (skipped); the rest is one
    # line each: 2 sessions and 4 tool parts used, the cut part a problem
    assert sorted(entries) == [
        "part/msg_A/prt_01.json", "part/msg_A/prt_02.json", "part/msg_B/prt_04.json",
        "part/msg_B/prt_05.json", "part/msg_B/prt_06.json",
        "session/global/ses_1.json", "session/global/ses_2.json",
    ]
    assert {e["format"] for e in entries.values()} == {"opencode-storage"}
    assert sum(e["lines_used"] for e in entries.values()) == 6
    assert entries["part/msg_B/prt_06.json"]["problems"] == {"invalid_json": 1}
    assert lane_figures(document, *FIGURES) == {
        # as the store's worked example: bash [10.000, 13.000] s and grep
        # [10.040, 10.900] s, one wave of 2, saved (3000 + 860) - 3000 = 860 ms, upper
        # bound 1 x 3860 / 2 = 1930 ms, 1 round trip; the sub-agent's read alone
        # (500 ms) and its running call incomplete
        ("ses_1", "main"): (2, 2, 0, 0, 1, "0:1:0:0:0:0:0:0", 1, 860.0, 1930.0, 3860.0),
        ("ses_1", "ses_2"): (2, 1, 1, 0, 1, "1:0:0:0:0:0:0:0", 0, 0.0, 0.0, 500.0),
    }


def test_a_folder_with_opencode_db_is_read_from_the_store_once(tmp_path: Path) -> None:
    """opencode copies its JSON storage into opencode.db: the storage files beside a
    store are not traces, so the calls are counted once."""
    _write_storage(tmp_path)
    opencode_store(str(tmp_path / "opencode.db"), *WORKED)
    code, document = cli_document([str(tmp_path)])
    assert code == 0
    assert [Path(e["path"]).name for e in document["inputs"]] == ["opencode.db"]
    assert lane_figures(document, "paired_calls") == {
        ("ses_1", "main"): (2,), ("ses_1", "ses_2"): (1,),
    }


def test_without_session_files_a_child_session_is_its_own_root(tmp_path: Path) -> None:
    storage = _write_storage(tmp_path)
    for session in (storage / "session" / "global").iterdir():
        session.unlink()
    (storage / "part" / "msg_B" / "prt_06.json").unlink()
    code, document = cli_document([str(storage / "part")])
    assert code == 0
    assert sorted(lane_figures(document, "paired_calls")) == [
        ("ses_1", "main"), ("ses_2", "main")]


def _read(paths: list[Path]) -> tuple[list[Any], list[Any]]:
    return collect(read_opencode_storage, [Source(str(p)) for p in sorted(paths)])


@pytest.mark.parametrize(("text", "bucket"), [
    ("[1, 2]", ("problems", "not_an_object")),
    ("nonsense", ("problems", "invalid_json")),
    ('{"id": "prt_1", "type": "tool", "state": {"time": {"start": NaN}}}',
     ("problems", "invalid_json")),
    ('{"id": "prt_1", "type": "tool", "callID": "c", "tool": "t", "state": "done"}',
     ("problems", "invalid_tool_record")),
    ('{"id": "prt_1", "sessionID": "s", "type": "tool", "callID": "c", "tool": "t",'
     ' "state": {"status": "completed", "time": {"start": "1", "end": 2}}}',
     ("problems", "invalid_timestamp")),
    ('{"id": "prt_1", "sessionID": "s", "type": "tool", "callID": "c", "tool": "t",'
     ' "state": {"status": "error", "error": "Tool execution aborted",'
     ' "time": {"start": 5, "end": 5}}}', ("ignored", "tool.aborted")),
    ('{"id": "prt_1", "sessionID": "s", "type": "tool", "callID": "c", "tool": "t",'
     ' "state": {"status": "error", "error": "Tool execution aborted, really",'
     ' "time": {"start": 5, "end": 5}}}', ("used", "")),
    ('{"id": "prt_1", "type": "text", "text": "hi"}', ("ignored", "part.text")),
    ('{"id": "prt_1", "sessionID": "a\\u001b", "type": "tool", "callID": "c", "tool": "t",'
     ' "state": {"status": "running", "time": {"start": 5}}}', ("problems", "invalid_id")),
])
def test_each_file_lands_in_one_bucket(tmp_path: Path, text: str,
                                       bucket: tuple[str, str]) -> None:
    path = tmp_path / "storage" / "part" / "msg_1" / "prt_1.json"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    _, (account,) = _read([path])
    where, reason = bucket
    if where == "used":
        assert (account.lines_read, account.lines_used) == (1, 1)
        return
    assert (account.lines_read, account.lines_used) == (1, 0)
    assert dict(account.problems if where == "problems" else account.ignored) == {reason: 1}


def test_bad_utf8_and_a_file_past_max_line_bytes_are_problems(tmp_path: Path) -> None:
    folder = tmp_path / "storage" / "part" / "msg_1"
    folder.mkdir(parents=True)
    (folder / "prt_1.json").write_bytes(b'{"id": "prt_1", "text": "\xff"}')
    big = {"id": "prt_2", "sessionID": "s", "messageID": "msg_1",
           **opencode_tool("c", "bash", "completed", 1.0, 2.0)}
    big["state"]["output"] = "x" * 5000
    (folder / "prt_2.json").write_text(json.dumps(big), encoding="utf-8")
    code, document = cli_document([str(tmp_path)], "--input-format", "opencode-storage",
                                  "--max-line-bytes", "1000")
    assert code == 1
    assert [e["problems"] for e in document["inputs"]] == [
        {"invalid_utf8": 1}, {"line_too_long": 1}]


def test_parts_are_fed_in_start_order_and_inputs_never_decoded(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    for part_id, start in (("prt_1", 5.0), ("prt_2", 1.0)):
        _dump(storage / "part" / "msg_1" / f"{part_id}.json",
              {"id": part_id, "sessionID": "s", "messageID": "msg_1",
               **opencode_tool(part_id, "bash", "completed", start, start + 1)}, True)
    lanes, _ = _read(list((storage / "part" / "msg_1").iterdir()))
    check_lanes(lanes)
    (lane,) = lanes
    assert [(o.kind, o.call_id) for o in lane.observations] == [
        ("start", "prt_2"), ("end", "prt_2"), ("start", "prt_1"), ("end", "prt_1")]
    decoded = _PART.decode((storage / "part" / "msg_1" / "prt_1.json").read_bytes())
    assert "ls -la" not in repr(decoded) and "secret" not in repr(decoded)


def test_only_this_format_takes_its_files(tmp_path: Path) -> None:
    storage = _write_storage(tmp_path)
    for path, expected in (
        (storage / "part" / "msg_A" / "prt_01.json", True),
        (storage / "session" / "global" / "ses_2.json", True),
        (storage / "part" / "msg_A" / "prt_03.json", False),  # a text part
        (storage / "message" / "ses_1" / "msg_A.json", False),
    ):
        peek = Peek(path.read_bytes().split(b"\n")[:64], str(path))
        taken = [f.name for f in TRACE_FORMATS if f.sniff(peek)]
        assert taken == (["opencode-storage"] if expected else []), path
    # the same part named anywhere else is not a storage file
    moved = tmp_path / "prt_01.json"
    moved.write_bytes((storage / "part" / "msg_A" / "prt_01.json").read_bytes())
    assert not OPENCODE_STORAGE.sniff(Peek(moved.read_bytes().split(b"\n"), str(moved)))


@needs_corpus
def test_no_corpus_file_is_taken_for_a_storage_file() -> None:
    for path in sorted(p for p in Path(CORPUS).rglob("*.json") if p.is_file()):
        lines = path.read_bytes()[:65536].split(b"\n")[:64]
        assert not OPENCODE_STORAGE.sniff(Peek(lines, str(path))), path


def test_both_engines_give_the_same_bytes(tmp_path: Path) -> None:
    _write_storage(tmp_path)
    outputs = []
    for engine in ("native", "python"):
        result = subprocess.run(
            [sys.executable, "-m", "wavemetrics", "summarize", "--no-cache", "--format",
             "json", "--engine", engine, str(tmp_path)],
            capture_output=True, check=False,
        )
        outputs.append((result.returncode, result.stdout, result.stderr))
    assert outputs[0] == outputs[1]
    assert b"opencode-storage" in outputs[0][1]


def test_batches_give_the_store_figures(tmp_path: Path) -> None:
    """The store's batches fixture written as storage files: a part's ``messageID`` is its
    batch, and the part without one (``c8``) has none, so the figures are the store's
    (worked out in ``test_readers_opencode.test_batches_by_hand``)."""
    storage = tmp_path / "storage"
    sessions, parts = BATCHES
    for session, parent in sessions:
        document: dict[str, Any] = {"id": session, "projectID": "global", "title": "t"}
        if parent is not None:
            document["parentID"] = parent
        _dump(storage / "session" / "global" / f"{session}.json", document, False)
    for part_id, message, session, part in parts:
        ids = {"id": part_id, "sessionID": session}
        if message is not None:
            ids["messageID"] = message
        _dump(storage / "part" / (message or "msg_Z") / f"{part_id}.json", {**ids, **part},
              False)
    code, document = cli_document([str(tmp_path)], "--engine", "python")
    assert code == 0
    assert {e["format"] for e in document["inputs"]} == {"opencode-storage"}
    assert lane_figures(document, *BATCH_FIGURES) == BATCH_LANES
    assert tuple(document["total"][key] for key in BATCH_FIGURES) == BATCH_TOTAL
