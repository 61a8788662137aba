"""The native ``codex`` reader against the Python reference: same rollouts, same output.

Every corpus rollout, Hypothesis-drawn rollouts (call items and outputs, parallel calls,
batched writes, forks, odd times, unknown items, broken lines, repeated call ids,
non-ASCII and lone surrogates) and hostile lines (huge numbers, deep nesting, invalid
UTF-8, lines past the line limit) are read by both engines; the whole ``summarize
--format json`` document (every input's line account by reason, every lane's identity
and figures) must be equal, and a counting wrapper proves the extension read the unit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from tests.strategies import (
    codex_calls,
    codex_records,
    damaged,
    engine_caps,
    engine_eval_names,
    trace_files,
)
from tests.test_native import DIFFERENTIAL, _both, counting_native
from tests.trace_builders import CODEX as CODEX_LINES
from wavemetrics.cache.units import ReadCache
from wavemetrics.cli.commands import main
from wavemetrics.readers._uuids import session_id_from_file_name
from wavemetrics.readers.codex import CODEX
from wavemetrics.readers.dispatch import ReadUnit, detect_input
from wavemetrics.run import native
from wavemetrics.run.pipeline import StreamSettings, read_inputs, read_unit

pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")

#: A rollout's file name: the UUID at its end is the session id of a rollout that names none.
ROLLOUT = "rollout-2025-03-01T10-00-00-0195500a-1b2c-7d3e-8f40-123456789abc.jsonl"


def _corpus_rollouts() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*.jsonl")
                  if detect_input(str(p)).format == CODEX.name)


def _summarize(args: list[str], engine: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "--jobs", "1",
                                       "--no-cache", "--engine", engine, *args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout


@needs_corpus
def test_every_corpus_rollout_reads_the_same_on_both_engines() -> None:
    """Each corpus rollout: the native read gives the reference's reports and lanes (path,
    session id, lane id, every figure) and the same ``summarize`` document."""
    rollouts = _corpus_rollouts()
    assert len(rollouts) >= 8
    settings = StreamSettings(engine="native")
    for path in rollouts:
        unit = ReadUnit(CODEX.name, (str(path),))
        fast = native.read_unit_native(CODEX.name, unit.paths, settings)
        assert fast is not None, path
        reference = read_unit(unit, StreamSettings(engine="python"))
        assert fast[0] == reference.reports
        assert [(lane.path, lane.session_id, lane.lane_id) for lane in fast[1]] == [
            (lane.path, lane.session_id, lane.lane_id) for lane in reference.lanes]
        _both([str(path)], CODEX.name, 2000, ("eval", "codemode", "code_mode"), units=1)


@needs_corpus
def test_the_corpus_rollouts_print_the_same_bytes_on_both_engines() -> None:
    """All corpus rollouts in one run, detected by the registry: byte-identical JSON and
    exit code, the extension reading them."""
    paths = [str(p) for p in _corpus_rollouts()]
    with counting_native() as spy:
        fast = _summarize(paths, "native")
    assert spy.units > 0
    assert fast == _summarize(paths, "python")


class _Recording:
    """Wraps the extension module and records each call: its name, and for
    ``read_units`` how many units it was given."""

    def __init__(self, inner: Any, seen: list[tuple[str, int]]) -> None:
        self.inner, self.seen = inner, seen

    def __getattr__(self, name: str) -> Any:
        function = getattr(self.inner, name)

        def recorded(*args: Any) -> Any:
            self.seen.append((name, len(args[0]) if name == "read_units" else 0))
            return function(*args)

        return recorded


@needs_corpus
def test_the_corpus_rollouts_through_the_cache_print_the_same_bytes(
    private_cache: Path,
) -> None:
    """Cold and warm cached runs of both engines print what an uncached run prints; a
    cold native run detects and reads every rollout in the one folded pass (in Rust:
    never in Python to fill the cache), and the warm run after it calls the extension
    not at all."""
    paths = [str(p) for p in _corpus_rollouts()]
    expected = _summarize(paths, "python")
    original = native._native
    for engine in ("native", "python"):
        ReadCache(private_cache).clear()
        calls: list[list[tuple[str, int]]] = []
        for _ in ("cold", "warm"):
            seen: list[tuple[str, int]] = []
            native._native = _Recording(original, seen)
            try:
                result = CliRunner().invoke(main, ["summarize", "--format", "json", "--jobs",
                                                   "1", "--engine", engine, *paths])
            finally:
                native._native = original
            calls.append(seen)
            assert (result.exit_code, result.stdout) == expected
        if engine == "native":
            assert calls[0] == [("read_folded", 0)]
            assert calls[1] == []
        else:
            assert calls == [[], []]


_NAME_UUID = "0195500a-1b2c-7d3e-8f40-123456789abc"
#: Pieces of file names: separators, a newline (Python's ``$`` matches before a final
#: one), letters, a suffix, and bytes that are not UTF-8 (a lone byte, a cut sequence,
#: an encoded surrogate).
_NAME_PIECES = [b"-", b"_", b".", b"\n", b"rollout", b"x", "\u00e9".encode(), b".jsonl",
                b"\xff", b"\xc3", b"\xed\xa0\x80"]
#: UUID-like pieces: whole, upper case, a digit short, a separator out of place.
_NAME_UUIDS = [_NAME_UUID, _NAME_UUID.upper(), _NAME_UUID[1:], _NAME_UUID.replace("-", "_", 1),
               _NAME_UUID[:35] + "g"]
#: File names: a prefix, a separator (or none), a UUID-like piece, and an ending.
_FILE_NAMES = st.tuples(
    st.lists(st.sampled_from(_NAME_PIECES), max_size=3).map(b"".join),
    st.sampled_from([b"", b"-", b"_", b"x", b"."]),
    st.sampled_from(_NAME_UUIDS).map(str.encode),
    st.sampled_from([b"", b"\n", b"\n\n", b"x", b".jsonl", b"\n.jsonl", b".a.b", b"\xff"]),
).map(b"".join).filter(lambda name: not name.endswith(b".gz"))


@DIFFERENTIAL
@given(name=_FILE_NAMES)
def test_a_rollout_naming_no_session_is_named_by_its_file_as_python_names_it(
    tmp_path_factory: pytest.TempPathFactory, name: bytes,
) -> None:
    """A rollout without ``session_meta``, detected and read in the folded pass, takes its
    session id from its file name by the rule the extension writes again in Rust
    (``session_id_from_file_name``): the id the Python reader gives, for any name."""
    folder = os.fsencode(tmp_path_factory.mktemp("named"))
    path = os.fsdecode(folder + b"/" + name)
    with open(os.fsencode(path), "wb") as out:
        out.write(b"".join(CODEX_LINES.call("x1", 1, 2)))
    settings = StreamSettings(engine="native")
    found, units = native.detect_and_read_natively([path], settings)
    assert found == {path: CODEX.name}
    lanes = [lane.session_id for lane in units[CODEX.name, (path,)][1]]
    reference = read_unit(ReadUnit(CODEX.name, (path,)), StreamSettings(engine="python"))
    assert lanes == [lane.session_id for lane in reference.lanes] == [
        session_id_from_file_name(path)]


def _write(folder: Path, data: bytes, named: bool) -> str:
    path = folder / (ROLLOUT if named else "session.jsonl")
    path.write_bytes(data)
    return str(path)


@DIFFERENTIAL
@given(data=trace_files(codex_records(), codex_calls()), cap=engine_caps,
       names=engine_eval_names, named=st.booleans())
def test_generated_rollouts_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...],
    named: bool,
) -> None:
    """A generated rollout gives the same accounts, lanes and figures on both engines."""
    path = _write(tmp_path_factory.mktemp("codex"), data, named)
    _both([path], CODEX.name, cap, names, units=1)


@DIFFERENTIAL
@given(data=damaged(trace_files(codex_records(), codex_calls())), cap=engine_caps,
       names=engine_eval_names)
def test_damaged_rollouts_read_the_same(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, cap: int, names: tuple[str, ...]
) -> None:
    """A generated rollout with random damage (bit flips, cuts, inserted structure,
    escapes, bad UTF-8) gives the same accounts and figures on both engines."""
    path = _write(tmp_path_factory.mktemp("codex"), data, True)
    _both([path], CODEX.name, cap, names, units=1)


def _line(kind: str, payload: object, time: object = "2025-03-01T10:00:01.000Z") -> str:
    return json.dumps({"timestamp": time, "type": kind, "payload": payload})


def _call(call_id: str, output: str, time: str = "2025-03-01T10:00:05.000Z") -> list[str]:
    return [_line("response_item", {"type": "function_call", "name": "shell",
                                    "call_id": call_id}, time),
            _line("response_item", {"type": "function_call_output", "call_id": call_id,
                                    "output": output}, time)]


#: Embedded outputs of a batched write: durations Decimal rounds (past 28 digits, half to
#: even), that overflow the context or a double, that underflow, negative zero, numbers
#: Decimal or int() refuse anywhere in the output, nesting either side of Python's limit,
#: lone surrogates in and out of strings, invalid JSON.
HOSTILE_OUTPUTS = [
    '{"metadata": {"duration_seconds": 1.00000000000000000000000000050}}',
    '{"metadata": {"duration_seconds": 1.00000000000000000000000000150}}',
    '{"metadata": {"duration_seconds": 1.000000000000000000000000000500001}}',
    '{"metadata": {"duration_seconds": 9999999999999999999999999999.5}}',
    '{"metadata": {"duration_seconds": 0.30000000000000000000000000049999999}}',
    '{"metadata": {"duration_seconds": 1e999996}}',
    '{"metadata": {"duration_seconds": 1e400}}',
    '{"metadata": {"duration_seconds": 1e-400}}',
    '{"metadata": {"duration_seconds": 1.5e-1000004}}',
    '{"metadata": {"duration_seconds": -0.0}}',
    '{"metadata": {"duration_seconds": -0}}',
    '{"metadata": {"duration_seconds": -1e-9}}',
    '{"metadata": {"duration_seconds": 1e99999999999999999999}}',
    '{"metadata": {"duration_seconds": 2}, "x": 1e-99999999999999999999}',
    '{"metadata": {"duration_seconds": 2}, "x": 1.0e-1999999999999999996}',
    '{"metadata": {"duration_seconds": 2}, "x": 1.0e-1999999999999999997}',
    '{"metadata": {"duration_seconds": 2}, "x": 0e999999999999999999}',
    '{"metadata": {"duration_seconds": 2}, "x": 9e999999999999999999}',
    '{"metadata": {"duration_seconds": 2}, "x": ' + "7" * 4300 + "}",
    '{"metadata": {"duration_seconds": 2}, "x": -' + "7" * 4301 + "}",
    '{"metadata": {"duration_seconds": ' + "3" * 4300 + "}}",
    '{"metadata": {"duration_seconds": 2}, "x": ' + "7" * 5000 + ".5}",
    '{"metadata": {"duration_seconds": 2}, "x": ' + "[" * 100 + "]" * 100 + "}",
    '{"metadata": {"duration_seconds": 2}, "x": ' + "[" * 2000 + "]" * 2000 + "}",
    '{"metadata": {"duration_seconds": 2}, "x": "\ud800"}',
    '{"metadata": {"duration_seconds": 2}, "x": 1}\ud800',
    '{"metadata": {"duration_seconds": 2}} ',
    ' {"metadata": {"duration_seconds": 2}, "metadata": {"duration_seconds": 3}}',
    '\ufeff{"metadata": {"duration_seconds": 2}}',
    '{"metadata": {"duration_seconds": true}}',
    '{"metadata": {"duration_seconds": "2"}}',
    '{"metadata": {"duration_seconds": NaN}}',
    '{"metadata": [{"duration_seconds": 2}]}',
    '[{"metadata": {"duration_seconds": 2}}]',
    '{"metadata": {"duration_seconds": 2}',
]


@pytest.mark.parametrize("output", HOSTILE_OUTPUTS)
def test_hostile_embedded_durations_read_the_same(tmp_path: Path, output: str) -> None:
    """A batched write whose output holds a hostile document: same notes and figures."""
    lines = [_line("session_meta", {"id": "s1"}), *_call("c1", output)]
    path = _write(tmp_path, "\n".join(lines).encode() + b"\n", True)
    document = _both([path], CODEX.name, 2000, (), units=1)
    assert '"batched_write_' in document


#: A line's start with its timestamp (the record's other keys follow).
_T = b'{"timestamp": "2025-03-01T10:00:06Z", '


def test_hostile_lines_read_the_same(tmp_path: Path) -> None:
    """Huge numbers, deep nesting, invalid UTF-8, lone surrogates in types, ids, names and
    namespaces, control characters, BOMs and CRs: the same accounts and figures."""
    lines = [
        b"\xef\xbb\xbf" + _line("session_meta", {"id": "s1", "cwd": "/w"}).encode(),
        _line("response_item", {"type": "function_call", "call_id": "c1",
                                "name": "x", "n": 0}).replace("0}", "-" + "9" * 4301 + "}")
        .encode(),
        _line("response_item", {"type": "function_call", "call_id": "c1b",
                                "name": "x", "n": 0}).replace("0}", "9" * 4300 + "}").encode(),
        b'{"timestamp": 1e999999999, "type": "event_msg", "payload": {"type": "x"}}',
        _line("response_item", {"type": "function_call", "call_id": "c2", "name": "x",
                                "deep": [[[[[[[[1]]]]]]]]}).encode(),
        b'{"type": "response_item", "payload": ' + b"[" * 990 + b"]" * 990 + b"}",
        b'{"type": "response_item", "payload": ' + b"[" * 499 + b"]" * 499 + b"}",
        b'{"type": "event_msg", "payload": {"type": "caf\xc3\xa9\xff"}}',
        _line("response_item", {"type": "function_call", "call_id": "c\ud800",
                                "name": "x"}).encode(),
        _line("response_item", {"type": "function_call", "call_id": "c3",
                                "name": "search", "namespace": "mcp__\udc00x"}).encode(),
        _line("response_item", {"type": "function_call", "call_id": "c4",
                                "name": "eval", "namespace": "mcp__\udc00x"}).encode(),
        _line("response_item", {"type": "custom_tool_call", "call_id": "c5",
                                "name": "exec", "namespace": None}).encode(),
        _line("response_item", {"type": "function_call", "call_id": "c6",
                                "name": "wait", "namespace": "functions"}).encode(),
        _line("response_item", {"type": "function_call", "call_id": "c7",
                                "name": "mcp__n__q", "namespace": "mcp__n"}).encode(),
        _line("response_item", {"type": "tool_search_call", "call_id": "c8",
                                "execution": "client"}).encode(),
        _line("response_item", {"type": "tool_search_call", "call_id": "c9",
                                "execution": "server"}).encode(),
        _line("response_item", {"type": "tool_search_call", "call_id": "c\x1b",
                                "execution": "client"}).encode(),
        _line("response_item", {"type": "\ud800"}).encode(),
        _line("\udcff", {"type": "x"}).encode(),
        _line("event_msg", {"type": "x" * 70}).encode(),
        _line("response_item", {"type": "function_call_output", "call_id": "c3",
                                "output": "ok"}, "2025-03-01T10:00:09+05:30").encode(),
        _line("response_item", {"type": "function_call_output", "call_id": "c4",
                                "output": "ok"}, "2025-03-01T10:00:09").encode(),
        _line("response_item", {"type": "function_call_output", "call_id": "c5",
                                "output": "ok"}, "2025-03-01T10:00:02.5Z").encode() + b"\r",
        _line("response_item", {"type": "function_call_output", "call_id": "c6",
                                "output": "ok"}, "2025-03-01T10:00:03.123456789123Z").encode(),
        _line("response_item", {"type": "function_call_output", "call_id": "c8",
                                "output": "ok"}, "2025-03-01T10:00:04Z").encode(),
        _line("response_item", {"type": "tool_search_output", "call_id": "c8",
                                "output": "ok"}, "2025-03-01T10:00:04Z").encode(),
        _line("response_item", {"type": "function_call_output", "call_id": "c7",
                                "output": "ok"}, 17).encode(),
        b"",
        b"   ",
        b"not json",
        b'"a string"',
        b'[1, 2]',
        b'[' + b"1" * 5000 + b"]",
        # repeated payloads and payload keys: the last of each wins, whatever came before
        _T + b'"type": "response_item", "payload": {"type": "function_call", '
        b'"call_id": "r1", "name": "x"}, "payload": 1}',
        _T + b'"type": "response_item", "payload": 1, "payload": {"type": "function_call", '
        b'"call_id": "r2", "name": "x"}}',
        _T + b'"type": "response_item", "payload": {"type": "function_call", '
        b'"call_id": "r3", "name": "x"}, "payload": {"type": "message"}}',
        _T + b'"type": "response_item", "payload": {"type": "function_call", '
        b'"call_id": "r4", "call_id": "r5", "name": "x", "name": 7}}',
        _T + b'"type": "response_item", "payload": {"type": "function_call", '
        b'"call_id": "r6", "name": "x", "output": "a", "output": 1}}',
        # an object payload nested 500 levels (the limit: read), and 992 (past it)
        *(_T + b'"type": "event_msg", "payload": {"type": "x", "d": '
          + b"[" * n + b"]" * n + b"}}" for n in (498, 990)),
    ]
    path = _write(tmp_path, b"\n".join(lines) + b"\n", True)
    document = _both([path], CODEX.name, 2000, ("eval", "codemode", "code_mode"), units=1)
    assert '"invalid_json"' in document and '"invalid_utf8"' in document
    # the payload array past the limit, and the object payload nested 990 deep
    assert '"too_deeply_nested": 2' in document


def test_forks_read_the_same(tmp_path: Path) -> None:
    """A fork's replayed history is skipped up to its first own turn; without a dated turn
    id nothing is skipped; without its own turn everything after the meta is replay."""
    fork = "0195500a-1b2c-7d3e-8f40-123456789abc"  # minted at 1740823206700 ms
    before = "0195500a-0000-7d3e-8f40-000000000001"
    after = "0195500b-0000-7d3e-8f40-000000000002"
    head = [_line("session_meta", {"id": fork, "forked_from_id": "p1"})]
    replay = [*_call("a", '{"metadata": {"duration_seconds": 1}}'),
              _line("turn_context", {"turn_id": before}), _line("event_msg", {"type": "x"}),
              "", "{broken", _line("session_meta", {"id": "other"})]
    own = [_line("turn_context", {"turn_id": after}),
           *_call("b", "ok", "2025-03-01T10:00:07.000Z"), *_call("a", "ok")]
    cases = {
        "bounded": head + replay + own,
        "all replay": head + replay,
        "undated": head + [line.replace(before, "turn-1") for line in replay],
        "timestamp": [_line("session_meta", {"id": "f1", "forked_from_id": "p1",
                                             "timestamp": "2025-03-01T10:00:06.700Z"}),
                      *replay, *own],
        "undatable fork": [_line("session_meta", {"id": "f1", "forked_from_id": "p1"}),
                           *replay, *own],
    }
    for name, lines in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        path = _write(folder, "\n".join(lines).encode() + b"\n", True)
        _both([path], CODEX.name, 2000, (), units=1)


def test_parallel_calls_and_batches_read_the_same(tmp_path: Path) -> None:
    """Runs of call items with interleaved outputs, other items ending runs, and one call
    id started twice and ended twice: the same batch and wave figures."""
    lines = [_line("session_meta", {"id": "s1"})]
    for index, time in enumerate(("01", "01", "01", "02")):
        lines.append(_line("response_item", {"type": "function_call", "name": "read_file",
                                             "call_id": f"p{index}"},
                           f"2025-03-01T10:00:{time}.000Z"))
    lines.append(_line("response_item", {"type": "reasoning"}))
    lines.append(_line("event_msg", {"type": "token_count"}))
    for index, time in enumerate(("05", "04", "06", "03")):
        lines.append(_line("response_item", {"type": "function_call_output",
                                             "call_id": f"p{index}", "output": "ok"},
                           f"2025-03-01T10:00:{time}.000Z"))
    lines += _call("p0", "ok", "2025-03-01T10:00:09.000Z")
    lines.append(_line("response_item", {"type": "local_shell_call", "call_id": "q"}))
    path = _write(tmp_path, "\n".join(lines).encode() + b"\n", False)
    document = _both([path], CODEX.name, 2000, (), units=1)
    assert '"repeated_tool_call": 1' in document


def test_a_line_past_the_default_line_limit_is_handed_back_to_python(tmp_path: Path) -> None:
    """A line of more than 64 MiB is never held by the native reader: the unit is handed
    back, and Python counts it as line_too_long."""
    path = tmp_path / ROLLOUT
    with path.open("wb") as out:
        out.write(_line("session_meta", {"id": "s1"}).encode() + b"\n")
        out.write(b"x" * (64 * 2**20 + 1) + b"\n")
        for line in _call("c", "ok"):
            out.write(line.encode() + b"\n")
    settings = StreamSettings(engine="native")
    assert native.read_unit_native(CODEX.name, (str(path),), settings) is None
    code, fast = _summarize([str(path)], "native")
    assert (code, fast) == _summarize([str(path)], "python")
    assert '"line_too_long": 1' in fast


def test_an_unknown_format_code_is_refused_by_the_extension(tmp_path: Path) -> None:
    """The extension takes only the codes of the formats it reads."""
    extension = native._native
    assert extension is not None
    with pytest.raises(ValueError, match="code 11"):
        extension.read_units([(11, [b"/nonexistent"], ["s"])], None, [], [], 0.0, 1, False)


def test_a_name_rust_cannot_hold_sends_a_batch_read_to_python(tmp_path: Path) -> None:
    """A namespace with a lone surrogate names its call with it in Python (``mcp__\\udc00x
    __search``); the native reader holds U+FFFD there, which is enough for the figures but
    not for call records: a batch read leaves that rollout to the Python reader, and the
    lane keeps Python's name."""
    lines = [
        _line("session_meta", {"id": "s1", "cwd": "/w"}),
        _line("response_item", {"type": "function_call", "call_id": "c1", "name": "search",
                                "namespace": "mcp__\udc00x"}),
        _line("response_item", {"type": "function_call_output", "call_id": "c1",
                                "output": "ok"}, "2025-03-01T10:00:02.000Z"),
    ]
    path = _write(tmp_path, "\n".join(lines).encode() + b"\n", True)
    assert native.read_unit_records_natively([(CODEX.name, (path,))], 1) == {}
    outcome = read_inputs([path], engine="native")
    assert [o.tool_name for o in outcome.lanes[0].observations] == [
        "mcp__\udc00x__search", "mcp__\udc00x__search"]
    # with a plain namespace, the extension reads the rollout itself
    plain = _write(tmp_path, "\n".join(lines).replace("\\udc00", "y").encode() + b"\n", True)
    ((_, (lane,)),) = native.read_unit_records_natively([(CODEX.name, (plain,))], 1).values()
    assert [o.tool_name for o in lane.observations] == ["mcp__yx__search"] * 2
