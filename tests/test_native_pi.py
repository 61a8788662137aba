"""The native ``pi`` reader against the Python reference: same folders, same output.

Every corpus pi session, folders of a parent and its forks (copied entries, parents
named by path or session id, a cycle), Hypothesis-drawn folders of sessions (plain and
damaged: headers with any version, calls either side of pi's switch to parallel calls,
repeated ids and entries, odd times, broken lines) and hostile lines (huge numbers,
deep nesting, invalid UTF-8, BOMs, CRs, a cut last line) are read by both engines; the
whole ``summarize --format json`` document (every input's line account by reason, every
lane's identity and figures) must be equal, and a counting wrapper proves the extension
read the unit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from tests.strategies import (
    damaged,
    engine_caps,
    engine_eval_names,
    pi_calls,
    pi_records,
    trace_files,
)
from tests.test_native import DIFFERENTIAL, _both, console_command, counting_native
from wavemetrics.cli.commands import main
from wavemetrics.readers.dispatch import ReadUnit, detect_input
from wavemetrics.readers.pi import PI
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings, read_unit

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")

#: A session file's name as pi writes it: the UUID at its end is the session id of a file
#: with no header.
SESSION = "2026-03-01T10-00-00-000Z_3f2504e0-4f89-41d3-9a0c-0305e82c3301.jsonl"


def _corpus_sessions() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*.jsonl") if detect_input(str(p)).format == PI.name)


def _summarize(args: list[str], engine: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "--jobs", "1",
                                       "--no-cache", "--engine", engine, *args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout


def _command_line(args: list[str], engine: str) -> tuple[int, str]:
    """``wavemetrics summarize --format json`` run as the console runs it: the console
    command itself, in a process of its own (Python's nesting limit depends on the depth
    of the calling stack; ``python -m wavemetrics`` runs three frames deeper)."""
    return console_command(["summarize", "--format", "json", "--jobs", "1", "--no-cache",
                            "--engine", engine, *args])


def _inputs(document: str) -> list[dict[str, Any]]:
    inputs: list[dict[str, Any]] = json.loads(document)["inputs"]
    return inputs


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record)


def _header(session_id: str, version: object = 3, **more: object) -> str:
    record = {"type": "session", "id": session_id, "timestamp": "2026-03-14T02:00:00.000Z",
              "cwd": "/w", **more}
    if version is not None:
        record["version"] = version
    return _line(record)


def _calls(entry: str, time: str, *ids: str, name: str = "read") -> str:
    return _line({"type": "message", "id": entry, "parentId": None, "timestamp": time,
                  "message": {"role": "assistant", "content": [
                      {"type": "text", "text": "x"},
                      *({"type": "toolCall", "id": i, "name": name, "arguments": {}}
                        for i in ids)]}})


def _result(entry: str, time: str, call_id: str) -> str:
    return _line({"type": "message", "id": entry, "timestamp": time, "message": {
        "role": "toolResult", "toolCallId": call_id, "toolName": "read",
        "content": [{"type": "text", "text": "ok"}]}})


def _write(path: Path, lines: list[str]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("\n".join(lines).encode() + b"\n")
    return str(path)


@needs_corpus
def test_every_corpus_session_reads_the_same_on_both_engines() -> None:
    """Each corpus pi session: the native read gives the reference's reports and lanes
    (path, session id, lane id, every figure) and the same ``summarize`` document."""
    sessions = _corpus_sessions()
    assert len(sessions) >= 1
    settings = StreamSettings(engine="native")
    for path in sessions:
        unit = ReadUnit(PI.name, (str(path),))
        fast = native.read_unit_native(PI.name, unit.paths, settings)
        assert fast is not None, path
        reference = read_unit(unit, StreamSettings(engine="python"))
        assert fast[0] == reference.reports
        assert [(lane.path, lane.session_id, lane.lane_id, lane.summary)
                for lane in fast[1]] == [
            (lane.path, lane.session_id, lane.lane_id, lane.summary) for lane in reference.lanes]
        _both([str(path)], PI.name, 2000, ("eval", "codemode", "code_mode"), units=1)


@needs_corpus
def test_the_corpus_sessions_print_the_same_bytes_on_both_engines() -> None:
    """The corpus pi sessions in one run, detected by the registry: byte-identical JSON
    and exit code, the extension reading them."""
    paths = [str(p) for p in _corpus_sessions()]
    with counting_native() as spy:
        fast = _summarize(paths, "native")
    assert spy.units > 0
    assert fast == _summarize(paths, "python")


@needs_corpus
def test_a_corpus_session_and_its_fork_read_the_same(tmp_path: Path) -> None:
    """The corpus session (a v1 file: its entries carry no id, so a copy of it is read
    again) and the same session given v3 entry ids, each with a fork that copies its
    entries then adds its own, the fork sorting first: on both engines, the fork of the
    v3 copy has every copied entry as a duplicate, the fork of the v1 file none."""
    (source,) = _corpus_sessions()[:1]
    lines = source.read_bytes().decode().splitlines()
    entries = [line for line in lines[1:] if line.strip()]
    with_ids = [_line({"id": f"{index:08x}", **json.loads(line)})
                for index, line in enumerate(entries)]
    own = [_calls("own1", "2026-03-20T00:00:00.000Z", "own-a", "own-b"),
           _result("own2", "2026-03-20T00:00:01.000Z", "own-a")]
    forks = {}
    for name, body in (("v1", entries), ("v3", with_ids)):
        parent = _write(tmp_path / name / "z-parent.jsonl", [lines[0], *body])
        forks[name] = _write(tmp_path / name / "a-fork.jsonl", [
            _header("fork-1", parentSession=parent), *body, *own])
    document = _both([str(tmp_path / "v1"), str(tmp_path / "v3")], PI.name, 2000, (),
                     units=1)
    by_path = {entry["path"]: entry for entry in _inputs(document)}
    assert "duplicate_entry" not in by_path[forks["v1"]]["ignored"]
    assert by_path[forks["v3"]]["ignored"]["duplicate_entry"] == len(entries)
    assert by_path[forks["v3"]]["lines_used"] == 3  # its header, its call line, its result


def test_a_parent_and_its_forks_read_the_same(tmp_path: Path) -> None:
    """A parent, a fork naming it by path (sorting first), a fork of the fork naming its
    parent by session id, and a fork whose parent is elsewhere: the copies of entries
    read before are duplicates (exact counts), the rest is read, on both engines."""
    first = [_calls("m1", "2026-03-14T02:09:30.000Z", "a"),
             _result("r1", "2026-03-14T02:09:31.000Z", "a")]
    parent = _write(tmp_path / "p.jsonl", [_header("P"), *first])
    own = [_calls("m2", "2026-03-14T02:10:00.000Z", "b"),
           _result("r2", "2026-03-14T02:10:02.000Z", "b")]
    fork = _write(tmp_path / "a.jsonl", [
        _header("F", parentSession="/home/u/.pi/agent/sessions/x/p.jsonl"), *first, *own])
    grandchild = _write(tmp_path / "0.jsonl", [
        _header("G", branchedFrom="F"), *first, *own,
        # the same entry id at another time is no copy
        _line({"type": "model_change", "id": "m1", "timestamp": "2026-03-14T02:11:00.000Z"})])
    orphan = _write(tmp_path / "o.jsonl", [_header("O", parentSession="gone.jsonl"), *first])
    document = _both([str(tmp_path)], PI.name, 2000, (), units=1)
    by_path = {entry["path"]: entry for entry in _inputs(document)}
    assert by_path[parent]["lines_used"] == 3 and by_path[parent]["ignored"] == {}
    assert by_path[fork]["ignored"] == {"duplicate_entry": 2}
    assert by_path[grandchild]["ignored"] == {"duplicate_entry": 4, "model_change": 1}
    # the orphan's parent is not in the folder: it is a fork read after p.jsonl, so its
    # copies of p's entries are duplicates too
    assert by_path[orphan]["ignored"] == {"duplicate_entry": 2}
    lanes = json.loads(document)["lanes"]
    # reading order: p (the parent of a and, through a, of 0), a, 0, then o
    assert [lane["session_id"] for lane in lanes] == ["P", "F", "G", "O"]


def test_a_cycle_of_parents_reads_the_same(tmp_path: Path) -> None:
    """Two files naming each other as parent (bad data): the cycle is broken where it is
    met, the same way on both engines."""
    _write(tmp_path / "a.jsonl", [_header("A", parentSession="b.jsonl"),
                                  _calls("m1", "2026-03-14T02:09:30.000Z", "x")])
    _write(tmp_path / "b.jsonl", [_header("B", parentSession="A"),
                                  _calls("m1", "2026-03-14T02:09:30.000Z", "x")])
    document = _both([str(tmp_path)], PI.name, 2000, (), units=1)
    assert [lane["session_id"] for lane in json.loads(document)["lanes"]] == ["B", "A"]


def test_the_sequential_cut_off_reads_the_same_either_side(tmp_path: Path) -> None:
    """Two calls of one message: before 2026-03-14T02:09:20Z (or in a v1/v2 file, or a
    version that is no int) the second starts when the first's result is written; at or
    after it in a v3 file both start at the message's time. Exact figures by hand."""
    # (version, message time, reconstructed starts, tool time in ms); a list, not a dict:
    # 3 == 3.0 and True == 1 as keys
    cases = [
        (3, "2026-03-14T02:09:19.999Z", 1, 3000.0),
        (3, "2026-03-14T02:09:20.000Z", 0, 5000.0),
        (2, "2026-03-14T02:09:20.000Z", 1, 3000.0),
        (None, "2026-03-14T02:09:20.000Z", 1, 3000.0),
        (3.0, "2026-03-14T02:09:20.000Z", 1, 3000.0),
        ("3", "2026-03-14T02:09:20.000Z", 1, 3000.0),
        (True, "2026-03-14T02:09:20.000Z", 1, 3000.0),
        (4, "2026-03-14T02:09:20.000Z", 0, 5000.0),
        (10**20, "2026-03-14T02:09:20.000Z", 0, 5000.0),
    ]
    for index, (version, time, rebuilt, tool_ms) in enumerate(cases):
        folder = tmp_path / str(index)
        # a ends 2 s after the message, b 1 s after a (3 s after the message): sequential,
        # b runs [2, 3] (a 2 s + b 1 s = 3 s of tool time); parallel, b runs [0, 3] (5 s)
        stamp = time[:-7]
        start = float(time[-7:-1])
        lines = [_header("s", version), _calls("m", time, "a", "b"),
                 _result("r1", f"{stamp}{start + 2:06.3f}Z", "a"),
                 _result("r2", f"{stamp}{start + 3:06.3f}Z", "b")]
        _write(folder / SESSION, lines)
        document = _both([str(folder)], PI.name, 2000, (), units=1)
        (entry,) = _inputs(document)
        assert entry["notes"].get("reconstructed_starts", 0) == rebuilt, (version, time)
        (lane,) = json.loads(document)["lanes"]
        assert lane["tool_time_ms"] == tool_ms, (version, time)


def test_waiting_calls_start_as_python_starts_them(tmp_path: Path) -> None:
    """A sequential message's chain: a result out of turn starts every waiting call at
    the running one's start; the next message, or the end of the input, starts the
    waiting calls at the start of the call before them; a repeated call id is a note."""
    lines = [
        _header("s", 3),
        _calls("m1", "2026-03-01T00:00:00.000Z", "a", "b", "c", "a"),
        _result("r1", "2026-03-01T00:00:01.000Z", "c"),  # out of turn
        _result("r2", "2026-03-01T00:00:02.000Z", "a"),
        _result("r3", "2026-03-01T00:00:02.000Z", "a"),  # repeated
        _calls("m2", "2026-03-01T00:00:03.000Z", "d", "e", "f"),
        _result("r4", "2026-03-01T00:00:04.000Z", "d"),
        _calls("m3", "2026-03-01T00:00:05.000Z", "g", "h", "d"),
        _result("r5", "2026-03-01T00:00:06.000Z", "zz"),  # no such call
    ]
    path = _write(tmp_path / SESSION, lines)
    document = _both([str(path)], PI.name, 2000, (), units=1)
    (entry,) = _inputs(document)
    # e starts at d's result; f waits and starts at e's start when m3 comes; h waits to
    # the end and starts with g
    assert entry["notes"] == {"reconstructed_starts": 1, "repeated_tool_call": 2}
    assert entry["ignored"] == {"repeated_tool_result": 1}


@pytest.mark.parametrize("named", [True, False])
def test_a_file_without_a_header_is_named_by_its_file(tmp_path: Path, named: bool) -> None:
    """No session header: the UUID that ends the file name (else the name without its
    suffixes) is the session id, and a note says so, on both engines."""
    name = SESSION if named else "notes.v2.jsonl"
    path = _write(tmp_path / name, [_calls("m", "2026-03-01T00:00:00.000Z", "a")])
    document = _both([path], PI.name, 2000, (), units=1)
    (lane,) = json.loads(document)["lanes"]
    assert lane["session_id"] == ("3f2504e0-4f89-41d3-9a0c-0305e82c3301" if named else "notes")
    assert _inputs(document)[0]["notes"] == {"session_id_from_file_name": 1}


def test_hostile_lines_read_the_same(tmp_path: Path) -> None:
    """Huge numbers, deep nesting either side of the reader's limit, invalid UTF-8, lone
    surrogates and control characters in types, ids, roles and names, BOMs, CRs,
    repeated keys, bad headers and a cut last line: the same accounts and figures."""
    t = '"timestamp": "2026-03-01T00:00:01.000Z"'
    lines = [
        b"\xef\xbb\xbf" + _header("s1", 3).encode(),
        _header("s2", 3).encode(),  # repeated
        b'{"type": "message", ' + t.encode() + b', "n": ' + b"9" * 4301 + b"}",
        b'{"type": "message", ' + t.encode() + b', "n": -' + b"9" * 4300 + b"}",
        b"[" + b"1" * 5000 + b"]",
        b"[" + b"1" * 4300 + b"]",
        # nested 500 levels (the limit: read), and far past it (the limit itself is
        # tested on the command line below)
        b'{"type": "custom", "d": ' + b"[" * 499 + b"]" * 499 + b"}",
        b'{"type": "custom", "d": {"e": ' + b"[" * 2000 + b"]" * 2000 + b"}}",
        b'{"type": "caf\xc3\xa9\xff"}',
        _line({"type": "\ud800"}).encode(),
        _line({"type": "x" * 70}).encode(),
        _line({"type": "message", "message": {"role": "\ud800"}}).encode(),
        _line({"type": "message", "message": {"role": "a b"}}).encode(),
        _line({"type": "message", "message": {"role": 5}}).encode(),
        _line({"type": "message", "message": "text"}).encode(),
        _line({"type": "message", "timestamp": "2026-03-01T00:00:01Z", "message": {
            "role": "assistant", "content": [
                {"type": "toolCall", "id": "c\ud800", "name": "read"},
                {"type": "toolCall", "id": "c\x1b", "name": "read"},
                {"type": "toolCall", "id": "c1", "name": "\ud800"},
                {"type": "toolCall", "id": "c2", "name": "bash"},
                {"type": "toolCall", "id": "c3", "name": "read"},
                "not a block", 7]}}).encode() + b"\r",
        _line({"type": "message", "timestamp": "yesterday", "message": {
            "role": "assistant", "content": [{"type": "toolCall", "id": "c4",
                                              "name": "read"}]}}).encode(),
        _line({"type": "message", "timestamp": 17, "message": {
            "role": "toolResult", "toolCallId": "c2"}}).encode(),
        _line({"type": "message", "timestamp": "2026-03-01T00:00:03+05:30", "message": {
            "role": "toolResult", "toolCallId": "c\x1b"}}).encode(),
        _line({"type": "message", "timestamp": "2026-03-01T00:00:03Z", "message": {
            "role": "toolResult", "toolCallId": "c2"}}).encode() + b"\r\r",
        # repeated messages and keys: the last of each wins
        b'{"type": "message", ' + t.encode() + b', "message": {"role": "assistant", '
        b'"content": [{"type": "toolCall", "id": "k1", "name": "read"}]}, "message": 1}',
        b'{"type": "message", ' + t.encode() + b', "message": 1, "message": {"role": '
        b'"assistant", "content": [{"type": "toolCall", "id": "k2", "id": "k3", '
        b'"name": "read"}]}}',
        b'{"type": "message", ' + t.encode() + b', "message": {"role": "assistant", '
        b'"content": [{"type": "text", "type": "toolCall", "id": "k4", "name": "x"}], '
        b'"role": "user"}}',
        b'{"type": "message", "timestamp": "2026-03-01T00:00:01.000Z", '
        b'"timestamp": "2026-03-01T00:00:09.000Z", "message": {"role": "toolResult", '
        b'"toolCallId": "k3"}}',
        _line({"type": "session", "id": "s\x1b"}).encode(),
        b"",
        b"   ",
        b"\x0c",
        b"not json",
        b'"a string"',
        b'{"type": "custom"} trailing',
        b'{"type": NaN}',
        _line({"type": "message", "timestamp": "2026-03-01T00:00:09Z", "message": {
            "role": "toolResult", "toolCallId": "c3"}}).encode()[:-3],
    ]
    path = tmp_path / SESSION
    path.write_bytes(b"\n".join(lines))
    document = _both([str(path)], PI.name, 2000, ("eval",), units=1)
    (entry,) = _inputs(document)
    # invalid_json: the 4301-digit int in an object and in an array, "not json", trailing
    # text, NaN; invalid_payload: the line with no message, the message "text", and the
    # message object followed by "message": 1 (the last wins)
    assert entry["problems"] == {
        "invalid_json": 5, "invalid_utf8": 1, "not_an_object": 2, "too_deeply_nested": 1,
        "invalid_payload": 3, "invalid_timestamp": 2, "invalid_tool_record": 1,
        "truncated_last_line": 1}
    assert entry["ignored"]["repeated_session"] == 2  # s2, and s\x1b after s1
    assert entry["ignored"]["blank_line"] == 3


def test_nesting_either_side_of_the_limit_reads_the_same(
    tmp_path: Path,
) -> None:
    """As the console command reads a pi folder: a line nested 500 levels is read, 501 is
    too deeply nested; a header nested 500 levels names its parent (its copies of the
    parent's entries are duplicates), one of 501 is too deeply nested and names none, as
    the header peek reads it, on both engines."""
    def deep(depth: int, **record: object) -> str:
        text = json.dumps(record)
        return text[:-1] + ', "d": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"

    _write(tmp_path / "lines" / SESSION, [
        _header("s", 3), deep(500, type="custom"), deep(501, type="custom")])
    for depth in (500, 501):
        folder = tmp_path / f"header-{depth}"
        _write(folder / "a.jsonl", [_header("P"), _calls("m", "2026-03-20T00:00:00Z", "a")])
        _write(folder / "b.jsonl", [
            deep(depth, type="session", id="F", timestamp="2026-03-20T00:00:00Z",
                 parentSession="a.jsonl"),
            _calls("m", "2026-03-20T00:00:00Z", "a")])
    folders = [str(tmp_path / name) for name in ("lines", "header-500", "header-501")]
    fast = _command_line(["--input-format", PI.name, *folders], "native")
    assert fast == _command_line(["--input-format", PI.name, *folders], "python")
    inputs = {Path(entry["path"]).relative_to(tmp_path).parts[0] + "/" + Path(
        entry["path"]).name: entry for entry in _inputs(fast[1])}
    assert inputs[f"lines/{SESSION}"]["problems"] == {"too_deeply_nested": 1}
    assert inputs[f"lines/{SESSION}"]["ignored"] == {"custom": 1}
    assert inputs["header-500/b.jsonl"]["ignored"] == {"duplicate_entry": 1}
    assert inputs["header-501/b.jsonl"]["ignored"] == {}
    assert inputs["header-501/b.jsonl"]["problems"] == {"too_deeply_nested": 1}


#: File names of a generated folder: a parent by name, a file named by its UUID, another.
_FOLDER_NAMES = ("parent.jsonl", SESSION, "child.jsonl")


@DIFFERENTIAL
@given(files=st.lists(trace_files(pi_records(), pi_calls()), min_size=1, max_size=3),
       cap=engine_caps, names=engine_eval_names)
def test_generated_folders_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, files: list[bytes], cap: int,
    names: tuple[str, ...],
) -> None:
    """A generated folder of one to three sessions (headers naming parents by name or id,
    copied entries, calls either side of the cut-off) gives the same accounts, lanes and
    figures on both engines."""
    folder = tmp_path_factory.mktemp("pi")
    for name, data in zip(_FOLDER_NAMES, files, strict=False):
        (folder / name).write_bytes(data)
    _both([str(folder)], PI.name, cap, names, units=1)


@DIFFERENTIAL
@given(files=st.lists(damaged(trace_files(pi_records(), pi_calls())), min_size=1,
                      max_size=2),
       cap=engine_caps, names=engine_eval_names)
def test_damaged_folders_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, files: list[bytes], cap: int,
    names: tuple[str, ...],
) -> None:
    """Generated sessions with random damage (bit flips, cuts, inserted structure, escapes,
    bad UTF-8) give the same accounts and figures on both engines."""
    folder = tmp_path_factory.mktemp("pi")
    for name, data in zip(_FOLDER_NAMES, files, strict=False):
        (folder / name).write_bytes(data)
    _both([str(folder)], PI.name, cap, names, units=1)


def test_a_line_past_the_default_line_limit_is_handed_back_to_python(tmp_path: Path) -> None:
    """A line of more than 64 MiB is never held by the native reader: the unit is handed
    back, and Python counts it as line_too_long."""
    path = tmp_path / SESSION
    with path.open("wb") as out:
        out.write(_header("s", 3).encode() + b"\n")
        out.write(b"x" * (64 * 2**20 + 1) + b"\n")
        out.write(_calls("m", "2026-03-01T00:00:00Z", "a").encode() + b"\n")
    settings = StreamSettings(engine="native")
    assert native.read_unit_native(PI.name, (str(path),), settings) is None
    code, fast = _summarize([str(path)], "native")
    assert (code, fast) == _summarize([str(path)], "python")
    assert '"line_too_long": 1' in fast


def test_the_extension_reads_a_pi_folder_as_one_unit(tmp_path: Path) -> None:
    """A folder of two sessions is one unit, read by the extension in one call: one
    account per file in the unit's order, the lanes in reading order (the parent first)."""
    child = _write(tmp_path / "a.jsonl", [_header("C", parentSession="b.jsonl"),
                                          _calls("m", "2026-03-20T00:00:00Z", "a")])
    parent = _write(tmp_path / "b.jsonl", [_header("P"),
                                           _calls("m", "2026-03-20T00:00:00Z", "a")])
    with counting_native() as spy:
        result = native.read_unit_native(PI.name, (child, parent),
                                         StreamSettings(engine="native"))
    assert spy.units == 1
    assert result is not None
    reports, lanes = result
    assert [r.path for r in reports] == [child, parent]
    assert [(r.lines_used, dict(r.ignored)) for r in reports] == [
        (1, {"duplicate_entry": 1}), (2, {})]
    assert [(lane.path, lane.session_id) for lane in lanes] == [(parent, "P"), (child, "C")]


def test_pi_folders_are_detected_and_read_in_one_pass_and_by_the_native_command(
    tmp_path: Path,
) -> None:
    """pi sessions (a parent, its fork, a session in a sub-folder) beside a Claude Code
    session: the extension detects them where it reads them, each folder's pi files one
    unit (what the planner makes of them: forks after their parents), and the native
    command takes the run with the CLI's bytes, on 1 and 2 threads."""
    from tests.test_fastpath import _same
    from tests.trace_builders import CLAUDE as CLAUDE_LINES

    first = [_calls("m1", "2026-03-14T02:09:30.000Z", "a"),
             _result("r1", "2026-03-14T02:09:31.000Z", "a")]
    parent = _write(tmp_path / "p.jsonl", [_header("P"), *first])
    fork = _write(tmp_path / "a.jsonl", [
        _header("F", parentSession="p.jsonl"), *first,
        _calls("m2", "2026-03-14T02:10:00.000Z", "b", "c"),
        _result("r2", "2026-03-14T02:10:02.000Z", "b"),
        _result("r3", "2026-03-14T02:10:03.000Z", "c")])
    nested = _write(tmp_path / "n" / "x.jsonl", [_header("N"), *first])
    claude = tmp_path / "s.jsonl"
    claude.write_bytes(b"".join(CLAUDE_LINES.call("k1", 1, 3)))
    paths = sorted([parent, fork, nested, str(claude)])
    found, units = native.detect_and_read_natively(paths, StreamSettings(engine="native"))
    assert found == {parent: "pi", fork: "pi", nested: "pi", str(claude): "claude-code"}
    assert set(units) == {("pi", (fork, parent)), ("pi", (nested,)),
                          ("claude-code", (str(claude),))}
    # the fork's copies of its parent's two entries are duplicates
    reports = {r.path: r for r in units["pi", (fork, parent)][0]}
    assert reports[fork].ignored == {"duplicate_entry": 2}
    assert [lane.session_id for lane in units["pi", (fork, parent)][1]] == ["P", "F"]
    before = native.detection_counts()
    assert _same([str(tmp_path)], 1)
    assert _same([str(tmp_path)], 2)
    assert native.detection_counts()[0] == before[0]  # no separate detection pass


def test_a_gzip_fork_whose_header_follows_a_run_of_empty_lines_reads_the_same(
        tmp_path: Path) -> None:
    """A fork of gzip content under a plain name (the CLI's native unit reads decompress
    it), its header after more empty lines than the peek's line cap (100,000): Python's
    ``Source`` gives gzip content's run of empty lines as a few pieces, so its header peek
    finds the header and reads the fork after its parent; the extension, which counts
    each line, must leave that file to Python rather than read it with no parent."""
    import gzip

    first = [_calls("m1", "2026-03-14T02:09:30.000Z", "a"),
             _result("r1", "2026-03-14T02:09:31.000Z", "a")]
    own = [_calls("m2", "2026-03-14T02:10:00.000Z", "b"),
           _result("r2", "2026-03-14T02:10:02.000Z", "b")]
    _write(tmp_path / "p.jsonl", [_header("P"), *first])
    fork = b"\n" * 100_001 + "\n".join(
        [_header("F", parentSession="p.jsonl"), *first, *own]).encode() + b"\n"
    (tmp_path / "a.jsonl").write_bytes(gzip.compress(fork))
    reference = _summarize([str(tmp_path)], "python")
    assert json.loads(reference[1])["inputs"][0]["ignored"]["duplicate_entry"] == 2
    assert _summarize([str(tmp_path)], "native") == reference
