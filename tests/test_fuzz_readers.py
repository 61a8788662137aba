"""Hypothesis fuzzing of the readers: hostile bytes never escape as exceptions.

Random bytes and structured mutations of valid lines (``tests/trace_builders.py``:
keys dropped or duplicated, values replaced by other JSON types, lines cut,
garbage inserted, lines repeated or swapped) go through ``read_inputs`` on
temporary files, plain and gzip, detected and with each format forced. The only
outcome allowed is a normal result whose every input satisfies ``lines_read ==
lines_used + lines_ignored + problems``, which then renders in every output
format without raising.
"""

from __future__ import annotations

import gzip
import json
import re
import tempfile
import zlib
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import HOSTILE_JSON, json_paths
from tests.trace_builders import BUILDERS, FormatLines
from wavemetrics.cli.commands import main
from wavemetrics.readers.dispatch import FORMATS
from wavemetrics.run.pipeline import ReadOutcome, analyse, read_inputs
from wavemetrics.views.axis import efficiency_axis
from wavemetrics.views.report import render_json, render_jsonl, render_table, render_waves_table

FORMATS_UNDER_TEST = [name for name in BUILDERS if name in FORMATS]
FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_scalars = (
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
    | st.text(alphabet=st.characters(categories=["Cs"]), min_size=1, max_size=2)
    | st.sampled_from(["", "2025-01-01T00:00:00Z", "2025-01-01T00:00:00", "1969-12-31T23:59:59Z",
                       "9999-12-31T23:59:59.999+14:00", "0", "-5", "18446744073709551616",
                       "toolu_1", "a", "execute_tool", "tool", "session"])
)
json_values = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)


def _check(outcome: ReadOutcome) -> None:
    for report in outcome.inputs:
        assert report.lines_read == (
            report.lines_used + report.lines_ignored + sum(report.problems.values())
        ), report
        assert min(report.lines_read, report.lines_used, report.lines_ignored) >= 0
    analysis = analyse(outcome)
    render_json(analysis)
    render_jsonl(analysis)
    render_table(analysis)
    render_waves_table(analysis)
    for lane in outcome.lanes:
        assert isinstance(lane.session_id, str) and lane.session_id.encode("utf-8")
        assert isinstance(lane.lane_id, str) and lane.lane_id.encode("utf-8")


def _read_every_way(data: bytes, name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        for input_format in ("auto", *FORMATS):
            _check(read_inputs([str(path)], input_format))


def _paths(value: Any) -> list[tuple[Any, ...]]:
    """Every path (keys and indices) into a JSON value, the root ``()`` included."""
    found: list[tuple[Any, ...]] = [()]
    if isinstance(value, dict):
        for key, child in value.items():
            found += [(key, *rest) for rest in _paths(child)]
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += [(index, *rest) for rest in _paths(child)]
    return found


def _parent(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        value = value[step]
    return value


def _mutate(line: bytes, data: st.DataObject) -> bytes:
    """One structured mutation of one valid line."""
    how = data.draw(st.sampled_from(
        ["drop_key", "retype", "duplicate_key", "truncate", "garbage", "nan"]
    ))
    if how == "truncate":
        return line[: data.draw(st.integers(0, len(line)))]
    if how == "garbage":
        at = data.draw(st.integers(0, len(line)))
        return line[:at] + data.draw(st.binary(min_size=1, max_size=12)) + line[at:]
    if how == "nan":
        return line.replace(b"1", data.draw(st.sampled_from([b"NaN", b"Infinity", b"-1e999"])), 1)
    record = json.loads(line)
    paths = [p for p in _paths(record) if p]
    if not paths:
        return line
    path = data.draw(st.sampled_from(paths))
    parent = _parent(record, path)
    if how == "drop_key":
        del parent[path[-1]]
    elif how == "retype":
        parent[path[-1]] = data.draw(json_values)
    else:  # duplicate_key: the same top-level key earlier, with another value
        decoy = json.dumps({path[0]: data.draw(json_values)})[1:-1].encode()
        body = line.lstrip()[1:]
        return b"{" + decoy + (b"" if body.lstrip().startswith(b"}") else b",") + body
    return json.dumps(record).encode() + b"\n"


def _valid_lines(b: FormatLines) -> list[bytes]:
    lines = [*b.prelude]
    for index in range(3):
        lines += b.call(f"c{index}", index, index + 1.5)
    return [*lines, b.unknown[0], *b.chatter("hello")]


@FUZZ
@given(data=st.binary(max_size=600), name=st.sampled_from(["x.jsonl", "x.json", "x.jsonl.gz"]))
def test_random_bytes_give_an_accounted_result(data: bytes, name: str) -> None:
    """Any bytes under any trace name read (detected or forced) into an accounted result."""
    _read_every_way(data, name)


@FUZZ
@given(lines=st.lists(st.binary(max_size=40).map(lambda b: b + b"\n"), max_size=8))
def test_random_lines_give_an_accounted_result(lines: list[bytes]) -> None:
    """Random byte lines, newline-terminated, read into an accounted result."""
    _read_every_way(b"".join(lines), "x.jsonl")


@FUZZ
@given(fmt=st.sampled_from(FORMATS_UNDER_TEST), data=st.data())
def test_mutated_valid_traces_give_an_accounted_result(fmt: str, data: st.DataObject) -> None:
    """Valid traces with keys dropped, duplicated or retyped, lines cut or garbled still read."""
    lines = _valid_lines(BUILDERS[fmt])
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(["mutate", "mutate", "repeat", "swap", "delete"]))
        if how == "mutate":
            try:
                lines[index] = _mutate(lines[index], data)
            except (ValueError, UnicodeDecodeError):  # already mutated past JSON: cut it
                lines[index] = lines[index][: len(lines[index]) // 2]
        elif how == "repeat":
            lines.insert(index, lines[index])
        elif how == "swap":
            other = data.draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        elif len(lines) > 1:
            del lines[index]
    _read_every_way(b"".join(lines), "x.jsonl")


@FUZZ
@given(fmt=st.sampled_from(FORMATS_UNDER_TEST), cut=st.floats(0, 1), sync=st.booleans())
def test_gzip_cut_anywhere_gives_an_accounted_result(fmt: str, cut: float, sync: bool) -> None:
    """A valid gzip trace cut at any byte reads into an accounted result (or an input error)."""
    content = b"".join(_valid_lines(BUILDERS[fmt]))
    if sync:
        compressor = zlib.compressobj(wbits=31)
        packed = compressor.compress(content) + compressor.flush(zlib.Z_SYNC_FLUSH)
    else:
        packed = gzip.compress(content, mtime=0)
    _read_every_way(packed[: int(len(packed) * cut)], "x.jsonl.gz")


# ---------------------------------------------- hostile values in every field

_RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                          "\u2066-\u2069\ud800-\udfff]")
HOSTILE = settings(max_examples=150, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _hostile_trace(fmt: str, data: st.DataObject) -> bytes:
    """The format's valid lines with random fields (any depth) replaced by hostile values;
    span formats are sometimes written as concatenated pretty-printed documents."""
    lines = _valid_lines(BUILDERS[fmt])
    records = [json.loads(line) for line in lines]
    for record in records:
        paths = json_paths(record)
        for path in data.draw(st.lists(st.sampled_from(paths), max_size=3) if paths
                              else st.just([])):
            try:
                _parent(record, path)[path[-1]] = data.draw(HOSTILE_JSON)
            except (KeyError, IndexError, TypeError):  # an earlier change removed the path
                continue
    pretty = fmt in ("otlp", "otel-spans", "inspect") and data.draw(st.booleans())
    return b"".join(json.dumps(r, indent=2 if pretty else None).encode() + b"\n"
                    for r in records)


def _assert_no_raw_controls(text: str) -> None:
    match = _RAW_CONTROL.search(text)
    assert match is None, repr(text[max(match.start() - 40, 0): match.end() + 40])


@HOSTILE
@given(fmt=st.sampled_from(FORMATS_UNDER_TEST), data=st.data(),
       name=st.sampled_from(["t.jsonl", "t\x1b[2J\u202e.jsonl", "t.json"]))
def test_hostile_values_in_every_field_never_crash_any_entry_point(
    fmt: str, data: st.DataObject, name: str
) -> None:
    """Hostile JSON in any field of any format: read_inputs, efficiency_axis and the CLI
    (summarize and waves, table and JSON) never raise, every line is accounted for, JSON
    output is strict JSON and text output carries no raw control or bidi character."""
    trace = _hostile_trace(fmt, data)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(trace)
        _check(read_inputs([str(path)]))
        axis = efficiency_axis(str(path))
        json.dumps(axis.to_dict(), allow_nan=False)
        runner = CliRunner()
        for command in (["summarize", "--format", "json"], ["waves", "--format", "json"]):
            result = runner.invoke(main, [*command, "--jobs", "1", str(path)])
            assert result.exception is None or isinstance(result.exception, SystemExit), (
                result.exc_info)
            assert result.exit_code in (0, 1), result.output
            document = json.loads(result.stdout, parse_constant=_no_constant)
            for entry in document["inputs"]:  # both documents account for every line
                assert entry["lines_read"] == (entry["lines_used"] + entry["lines_ignored"]
                                               + sum(entry["problems"].values()))
            _assert_no_raw_controls(result.stderr)
        for command in (["summarize"], ["waves"]):
            result = runner.invoke(main, [*command, "--jobs", "1", str(path)])
            assert result.exit_code in (0, 1), result.output
            _assert_no_raw_controls(result.stdout + result.stderr)


@HOSTILE
@given(data=st.binary(max_size=400), stdin=st.booleans())
def test_random_bytes_through_the_cli_never_crash(data: bytes, stdin: bool) -> None:
    """Random bytes, from a file or stdin, through ``summarize``: exit 0 or 1, strict JSON."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.jsonl"
        path.write_bytes(data)
        args = ["summarize", "--format", "json", "--jobs", "1", "-" if stdin else str(path)]
        result = CliRunner().invoke(main, args, input=data if stdin else None)
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            result.exc_info)
        assert result.exit_code in (0, 1)
        json.loads(result.stdout, parse_constant=_no_constant)
        _assert_no_raw_controls(result.stderr)


def _no_constant(name: str) -> Any:
    raise AssertionError(f"non-JSON constant {name} in the output")
