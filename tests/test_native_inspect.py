"""The native ``inspect`` reader against the Python reference: same files, same output.

Inspect eval logs in both containers, a ``.json`` document (pretty-printed, or one log
per line) and a ``.eval`` zip archive built here with :mod:`zipfile`, are read by both
engines: the corpus's eval log, Hypothesis-drawn logs and archives and damaged copies
(``tests/strategies.py``: ``inspect_logs``, ``inspect_archives``), and fixtures for each
rule of ``inspect_log.py`` with figures counted by hand. The whole ``summarize --format
json`` document must be equal, and the extension must have read the unit (not declined
it) wherever the module docs of ``inspect.rs`` do not say it declines.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from tests.corpus import CORPUS, needs_corpus
from tests.strategies import (
    damaged,
    engine_caps,
    engine_eval_names,
    inspect_archives,
    inspect_logs,
)
from tests.test_native import DIFFERENTIAL, _both, console_command
from wavemetrics.readers.inspect_log import INSPECT
from wavemetrics.readers.registry import NATIVE_ROWS
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")

_CODE = next(row.native.code for row in NATIVE_ROWS if row.name == INSPECT.name and row.native)


def _at(seconds: float) -> str:
    """An Inspect time ``seconds`` after 2026-01-01T00:00:00, with an offset."""
    whole, part = divmod(seconds, 1)
    minutes, second = divmod(int(whole), 60)
    fraction = f".{round(part * 1000):03d}" if part else ""
    return f"2026-01-01T00:{minutes:02d}:{second:02d}{fraction}+00:00"


def _tool(call_id: Any, function: Any, start: Any, end: Any = None, **more: Any) -> dict[str, Any]:
    event = {"event": "tool", "id": call_id, "function": function,
             "timestamp": start if isinstance(start, str) or start is None else _at(start)}
    if end is not None:
        event["completed"] = end if isinstance(end, str) else _at(end)
    return event | more


def _write(folder: Path, data: bytes, name: str = "log.json") -> str:
    path = folder / name
    path.write_bytes(data)
    return str(path)


def _archive(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=method) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return out.getvalue()


def _fast(path: str) -> Any:
    """The extension's read of ``path`` (``None``: declined, read by Python)."""
    return native.read_unit_native(INSPECT.name, (path,), StreamSettings(engine="native"))


def _command(path: str, engine: str) -> tuple[int, str]:
    return console_command(["summarize", "--format", "json", "--no-cache", "--input-format",
                            INSPECT.name, "--engine", engine, path])


def _same(path: str, *, read: bool = True) -> dict[str, Any]:
    """Both engines' documents for ``path`` through the console command, equal; the
    native engine read it (``read``) or declined it. The document."""
    assert (_fast(path) is not None) is read
    code, out = _command(path, "native")
    assert (code, out) == _command(path, "python")
    document: dict[str, Any] = json.loads(out)
    return document


def _lanes(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(lane["session_id"], lane["lane_id"]): lane for lane in document["lanes"]}


#: Sample ``a`` of eval ``E1``: every accounting rule once (event index: what it counts).
_RULES = [
    {"event": "model"},  # 0: ignored model; the next calls of main are batch 0
    _tool("t1", "read", 0, 1),  # 1: used, main
    _tool("t2", "grep", 0.5, 2),  # 2: used, main (with t1: one wave, 500 ms saved)
    {"event": "span_begin", "id": "s1", "type": "agent", "name": "helper"},  # 3: ignored
    {"event": "model", "span_id": "s1"},  # 4: ignored; batch 4 of lane helper
    _tool("t3", "read", 3, 4, span_id="s1"),  # 5: used, helper
    _tool("t4", "read", 3, 5),  # 6: used, helper (s1 is open)
    {"event": "span_end", "id": "s1"},  # 7: ignored
    _tool("t1", "read", 6, 7),  # 8: repeated_tool_event
    _tool("t5", None, 6, 7),  # 9: invalid_tool_record
    _tool("t6", "read", "yesterday"),  # 10: invalid_timestamp
    _tool("t7", "read", 8),  # 11: used, main, no end (an incomplete call)
    {"event": "subtask", "events": [{"event": "tool"},
                                    {"event": "x", "events": [{"event": "tool"}]}]},  # 12
    "text",  # 13: not_an_object
    {"timestamp": _at(9)},  # 14: missing_type
]


def test_every_rule_of_a_json_log_counted_by_hand(tmp_path: Path) -> None:
    """Five samples: ``a`` (15 events, every rule), ``2`` with no events, ``a`` again
    (duplicate), one with a bool id (invalid), one whose events are no list. Items: the
    log, 4 more samples, 14 more events = 19; used t1 t2 t3 t4 t7; ignored model 2,
    span_begin, span_end, subtask, repeated_tool_event, no_events, duplicate_samples;
    problems invalid_tool_record, invalid_timestamp, not_an_object, missing_type,
    invalid_sample, invalid_structure; two nested tool events noted."""
    log = {"eval": {"eval_id": "E1"}, "samples": [
        {"id": "a", "epoch": 1, "events": _RULES},
        {"id": 2, "epoch": 1, "events": []},
        {"id": "a", "epoch": 1, "events": [_tool("x", "read", 0, 1)]},
        {"id": True, "epoch": 1, "events": [_tool("y", "read", 0, 1)]},
        {"id": "b", "epoch": -0, "events": {"x": 1}},
    ]}
    document = _same(_write(tmp_path, json.dumps(log, indent=2).encode()))
    (report,) = document["inputs"]
    assert (report["format"], report["lines_read"], report["lines_used"]) == ("inspect", 19, 5)
    assert report["ignored"] == {"model": 2, "span_begin": 1, "span_end": 1, "subtask": 1,
                                 "repeated_tool_event": 1, "no_events": 1,
                                 "duplicate_samples": 1}
    assert report["problems"] == {"invalid_tool_record": 1, "invalid_timestamp": 1,
                                  "not_an_object": 1, "missing_type": 1, "invalid_sample": 1,
                                  "invalid_structure": 1}
    assert report["notes"] == {"nested_tool_events": 2}
    lanes = _lanes(document)
    assert set(lanes) == {("E1/a/1", "main"), ("E1/a/1", "helper"), ("E1/2/1", "main"),
                          ("E1/b/0", "main")}
    main, helper = lanes["E1/a/1", "main"], lanes["E1/a/1", "helper"]
    # main: [0, 1] and [0.5, 2] s, one wave: 1000 + 1500 - 2000 ms saved
    assert (main["paired_calls"], main["tool_time_ms"]) == (2, 2500.0)
    assert main["modeled_wallclock_saved_ms"] == 500.0
    # helper: [3, 4] and [3, 5] s: 1000 + 2000 - 2000 ms saved
    assert (helper["paired_calls"], helper["tool_time_ms"]) == (2, 3000.0)
    assert helper["modeled_wallclock_saved_ms"] == 1000.0
    assert lanes["E1/2/1", "main"]["paired_calls"] == 0


def test_parallel_agents_follow_their_span_ids(tmp_path: Path) -> None:
    """Two agent spans named ``worker`` (lanes ``worker#w1``, ``worker#w2``) open at
    once, their tool events interleaved: each event's ``span_id`` (a child span of its
    agent) decides its lane, not the spans open at that point of the list. No eval id:
    the file stem stands in."""
    events = [
        {"event": "span_begin", "id": "w1", "type": "agent", "name": "worker"},
        {"event": "span_begin", "id": "w2", "type": "agent", "name": "worker"},
        {"event": "span_begin", "id": "k1", "parent_id": "w1", "type": "tool"},
        _tool("a", "read", 0, 2, span_id="k1"),
        _tool("b", "read", 1, 3, span_id="w2"),
        _tool("c", "read", 1, 2, span_id="k1"),
        {"event": "span_end", "id": "w2"},
        {"event": "span_end", "id": "w1"},
    ]
    document = _same(_write(tmp_path, json.dumps(
        {"eval": {}, "samples": [{"id": 1, "epoch": 1, "events": events}]}).encode(),
        name="run-7.json"))
    lanes = _lanes(document)
    assert set(lanes) == {("run-7/1/1", "main"), ("run-7/1/1", "worker#w1"),
                          ("run-7/1/1", "worker#w2")}
    # worker#w1: [0, 2] and [1, 2] s: one wave, 2000 + 1000 - 2000 ms saved
    assert lanes["run-7/1/1", "worker#w1"]["modeled_wallclock_saved_ms"] == 1000.0
    assert lanes["run-7/1/1", "worker#w2"]["paired_calls"] == 1
    (report,) = document["inputs"]
    assert (report["lines_read"], report["lines_used"]) == (8, 3)


def test_an_archive_counted_by_hand(tmp_path: Path) -> None:
    """A ``.eval`` archive: the header names eval ``H``; members in order: sample 1 (two
    overlapping calls), sample 1 again (duplicate), JSON that does not parse, bytes
    that are not UTF-8, a folder entry and a summary (neither read). Items: 2 events + 3
    members = 5; used 2."""
    sample = {"id": 1, "epoch": 1, "events": [_tool("a", "read", 0, 2), _tool("b", "grep", 1, 2)]}
    data = _archive([
        ("header.json", json.dumps({"eval": {"eval_id": "H"}}).encode()),
        ("samples/1_epoch_1.json", json.dumps(sample).encode()),
        ("samples/1_epoch_1_again.json", json.dumps(sample).encode()),
        ("samples/2_epoch_1.json", b"{"),
        ("samples/3_epoch_1.json", b"\xff"),
        ("samples/", b""),
        ("summaries.json", b"[]"),
    ])
    document = _same(_write(tmp_path, data, name="log.eval"))
    (report,) = document["inputs"]
    assert (report["lines_read"], report["lines_used"]) == (5, 2)
    assert report["ignored"] == {"duplicate_samples": 1}
    assert report["problems"] == {"invalid_json": 1, "invalid_utf8": 1}
    (lane,) = document["lanes"]
    assert (lane["session_id"], lane["lane_id"]) == ("H/1/1", "main")
    assert lane["modeled_wallclock_saved_ms"] == 1000.0


def test_archive_members_nest_as_deep_as_the_limit(tmp_path: Path) -> None:
    """Members nesting 500 levels are read, 501 ``too_deeply_nested`` (the one limit,
    counted from each member's own top value: once declined past 900 levels natively),
    a member broken before it passes the limit ``invalid_json`` and one broken after
    ``too_deeply_nested``, a bare array of 500 levels read but no sample
    (``invalid_sample``); natively read, the same as Python. The 500-level sample's
    call is used."""
    def arrays(levels: int) -> str:
        return "[" * levels + "]" * levels

    sample = {"id": 1, "epoch": 1, "events": [_tool("a", "read", 0, 2)]}
    fits = json.dumps(sample)[:-1] + ', "x": ' + arrays(499) + "}"
    past = json.dumps({**sample, "id": 2})[:-1] + ', "x": ' + arrays(500) + "}"
    data = _archive([
        ("header.json", json.dumps({"eval": {"eval_id": "H"}}).encode()),
        ("samples/1_epoch_1.json", fits.encode()),
        ("samples/2_epoch_1.json", past.encode()),
        ("samples/3_epoch_1.json", ("[1 2, " + arrays(600) + "]").encode()),
        ("samples/4_epoch_1.json", ("[" + arrays(600) + ", 1 2]").encode()),
        ("samples/5_epoch_1.json", arrays(500).encode()),
    ])
    document = _same(_write(tmp_path, data, name="deep.eval"))
    (report,) = document["inputs"]
    assert report["problems"] == {"too_deeply_nested": 2, "invalid_json": 1,
                                  "invalid_sample": 1}
    assert report["lines_used"] == 1


@pytest.mark.parametrize(("members", "session"), [
    ([("_journal/start.json", b'{"eval": {"eval_id": "J"}}')], "J/1/1"),
    ([("header.json", b'{"eval": {}}'), ("_journal/start.json", b'{"eval": {"eval_id": "J"}}')],
     "J/1/1"),
    ([("header.json", b"{")], "run/1/1"),
    ([], "run/1/1"),
])
def test_an_archive_takes_its_eval_id_from_the_header_else_the_journal(
    tmp_path: Path, members: list[tuple[str, bytes]], session: str
) -> None:
    sample = json.dumps({"id": 1, "epoch": 1, "events": [_tool("a", "read", 0, 1)]}).encode()
    data = _archive([*members, ("samples/1_epoch_1.json", sample)], zipfile.ZIP_STORED)
    document = _same(_write(tmp_path, data, name="run.eval"))
    assert [lane["session_id"] for lane in document["lanes"]] == [session]


def test_an_archive_without_samples(tmp_path: Path) -> None:
    document = _same(_write(tmp_path, _archive([("header.json", b"{}")]), name="e.eval"))
    (report,) = document["inputs"]
    assert (report["lines_read"], report["ignored"]) == (1, {"no_samples": 1})


def test_logs_one_per_line_and_odd_top_level_values(tmp_path: Path) -> None:
    """Logs written one per line (JSON Lines): each line one item. A log without
    samples, one whose samples are no list, and a log of one sample."""
    lines = [
        {"eval": {"eval_id": "L"}, "samples": [
            {"id": 1, "epoch": 1, "events": [_tool("a", "read", 0, 1)]}]},
        {"eval": {"eval_id": "L"}, "samples": []},
        {"eval": {"eval_id": "L"}, "samples": {"x": 1}},
        {"eval": {"eval_id": "\x01"}, "samples": [{"id": 1, "epoch": 2}]},
    ]
    document = _same(_write(tmp_path, "\n".join(json.dumps(v) for v in lines).encode()))
    (report,) = document["inputs"]
    assert (report["lines_read"], report["lines_used"]) == (4, 1)
    assert report["ignored"] == {"no_samples": 1}
    assert report["problems"] == {"invalid_structure": 1, "invalid_id": 1}


def test_repeated_keys_the_last_one_wins(tmp_path: Path) -> None:
    """A log whose ``samples`` key is written twice reads only the second list; a
    sample whose ``events`` key is written twice reads only the second."""
    text = ('{"eval": {"eval_id": "R"}, "samples": [{"id": 1, "epoch": 1}],\n'
            ' "samples": [{"id": 2, "epoch": 1, "events": [1], "events": ['
            + json.dumps(_tool("a", "read", 0, 1)) + "]}]}\n")
    document = _same(_write(tmp_path, text.encode()))
    (report,) = document["inputs"]
    assert (report["lines_read"], report["lines_used"]) == (1, 1)
    assert [lane["session_id"] for lane in document["lanes"]] == ["R/2/1"]


def test_declined_inputs_are_read_by_python(tmp_path: Path) -> None:
    """An ``eval`` key after the samples, a bzip2 member, a member whose CRC is wrong
    and a file that starts like a zip but is none: the extension declines them and the
    Python reader's document is the command's."""
    sample = {"id": 1, "epoch": 1, "events": [_tool("a", "read", 0, 1)]}
    late = json.dumps({"samples": [sample], "eval": {"eval_id": "late"}}, indent=1).encode()
    _same(_write(tmp_path, late, name="late.json"), read=False)
    bzip = _archive([("samples/1_epoch_1.json", json.dumps(sample).encode())],
                    zipfile.ZIP_BZIP2)
    _same(_write(tmp_path, bzip, name="bz.eval"), read=False)
    stored = bytearray(_archive([("samples/1_epoch_1.json", json.dumps(sample).encode())],
                                zipfile.ZIP_STORED))
    at = bytes(stored).index(b'"epoch"')
    stored[at + 1] = ord("E")  # same size, wrong CRC
    document = _same(_write(tmp_path, bytes(stored), name="crc.eval"), read=False)
    assert document["inputs"][0]["problems"] == {"invalid_archive_member": 1}
    _same(_write(tmp_path, b"PK\x03\x04 not a zip", name="fake.eval"), read=False)


@needs_corpus
def test_the_corpus_log_reads_the_same() -> None:
    (path,) = sorted((CORPUS / "inspect_ai").glob("*.json"))
    assert _fast(str(path)) is not None
    _both([str(path)], "auto", 2000, ("eval",), units=1)


@DIFFERENTIAL
@given(data=inspect_logs(), cap=engine_caps, names=engine_eval_names)
def test_generated_logs_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    path = _write(tmp_path_factory.mktemp("inspect"), data)
    _both([path], INSPECT.name, cap, names, units=1)


@DIFFERENTIAL
@given(data=damaged(inspect_logs()), cap=engine_caps, names=engine_eval_names)
def test_damaged_logs_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    path = _write(tmp_path_factory.mktemp("inspect"), data)
    _both([path], INSPECT.name, cap, names, units=1)


@DIFFERENTIAL
@given(members=inspect_archives(), stored=engine_caps, cap=engine_caps, names=engine_eval_names)
def test_generated_archives_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, members: list[tuple[str, bytes]], stored: int,
    cap: int, names: tuple[str, ...]
) -> None:
    method = zipfile.ZIP_STORED if stored % 2 else zipfile.ZIP_DEFLATED
    path = _write(tmp_path_factory.mktemp("inspect"), _archive(members, method), "log.eval")
    _both([path], INSPECT.name, cap, names, units=1)


@DIFFERENTIAL
@given(data=damaged(inspect_archives().map(_archive)), cap=engine_caps,
       names=engine_eval_names)
def test_damaged_archives_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    path = _write(tmp_path_factory.mktemp("inspect"), data, "log.eval")
    _both([path], INSPECT.name, cap, names, units=1)


def test_the_format_has_its_code() -> None:
    assert _CODE == 10
