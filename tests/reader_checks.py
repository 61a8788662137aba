"""Helpers shared by the reader tests: write a fixture, read it, check what came out."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wavemetrics.core.summary import summarize
from wavemetrics.core.waves import assemble_waves
from wavemetrics.readers._protocol import Peek, TraceFormat
from wavemetrics.readers.dispatch import NO_USABLE_RECORD, InputReport
from wavemetrics.run.pipeline import Lane, LaneSink, read_inputs


def write_records(tmp_path: Path, records: list[Any], name: str) -> str:
    """Write records (dicts as JSON, strings verbatim) as lines of a file."""
    path = tmp_path / name
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def read_one(path: str, expected_format: str, input_format: str = "auto") -> tuple[
    InputReport, list[Lane]
]:
    """Read one input; check it was read as ``expected_format`` with every line accounted."""
    outcome = read_inputs([path], input_format)
    (report,) = outcome.inputs
    if sum(report.problems.values()) and not report.lines_used:
        # every record a problem: an error for that input (docs/formats.md, detection)
        assert report.error is not None and report.error.startswith(NO_USABLE_RECORD)
    else:
        assert report.error is None
    assert report.format == expected_format
    assert report.lines_read == (
        report.lines_used + report.lines_ignored + sum(report.problems.values())
    )
    return report, list(outcome.lanes)


def observation_tuples(lane: Lane) -> list[tuple[str, str, str, float]]:
    """A lane's observations as plain tuples, for exact comparisons."""
    return [(o.kind, o.call_id, o.tool_name, o.at_ms) for o in lane.observations]


def check_lanes(lanes: list[Lane]) -> None:
    """Every observation a reader emits is one the metric core accepts."""
    for lane in lanes:
        for o in lane.observations:
            assert o.kind in ("start", "end")
            assert isinstance(o.call_id, str) and o.call_id
            assert isinstance(o.tool_name, str) and o.tool_name
            assert isinstance(o.at_ms, float) and 0 <= o.at_ms < float("inf")
        summary = summarize(assemble_waves(lane.observations))
        assert summary.malformed_observations == 0
        f"{lane.session_id}{lane.lane_id}".encode()


def cli_document(paths: list[str], *options: str) -> tuple[int, dict[str, Any]]:
    """``summarize --format json`` on ``paths``: the exit code and the parsed document."""
    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    result = CliRunner().invoke(main, ["summarize", "--format", "json", *options, *paths])
    return result.exit_code, json.loads(result.stdout)


def lane_figures(document: dict[str, Any], *keys: str) -> dict[tuple[str, str], tuple[Any, ...]]:
    """``{(session_id, lane_id): (figure, ...)}`` of a summarize JSON document, for ``keys``."""
    return {
        (lane["session_id"], lane["lane_id"]): tuple(lane[key] for key in keys)
        for lane in document["lanes"]
    }


#: The figures most rules change, in this order, for :func:`lane_figures`.
WAVE_FIGURES = (
    "observed_calls", "non_eval_wave_size_histogram", "non_eval_saved_round_trips",
    "modeled_wallclock_saved_ms",
)
def collect(read: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[list[Lane], Any]:
    """Call a format's read function with a batch sink: its lanes and what it returned."""
    sink = LaneSink()
    returned = read(*args, sink=sink, **kwargs)
    lanes = list(sink.lanes())
    assert all(isinstance(lane, Lane) for lane in lanes)
    return lanes, returned  # type: ignore[return-value]


def sniffs(trace_format: TraceFormat, lines: list[bytes], path: str) -> bool:
    """Whether ``trace_format`` recognises these first lines of ``path``."""
    return trace_format.sniff(Peek(lines, path))
