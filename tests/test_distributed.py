"""The Dask path gives the local result, bit for bit, on a 2-worker LocalCluster."""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

# The dask extra is optional: without it this module is skipped, not an error.
pytest.importorskip("dask.bag", reason="needs the dask extra: pip install 'wavemetrics[dask]'")
pytest.importorskip("distributed", reason="needs the dask extra: pip install 'wavemetrics[dask]'")
from distributed import Client, LocalCluster

from tests.corpus import CORPUS, needs_corpus
from tests.event_traces import TWO_LANES, Event, write_events
from wavemetrics.cli.commands import main
from wavemetrics.run.distributed import INSTALL_HINT, dask_mapper, summarize_on_dask
from wavemetrics.run.pipeline import Analysis, StreamSettings, analyse, read_inputs
from wavemetrics.views.report import render_json

CORPUS_DIRS = ("claude-code-log", "agentcmd", "localpush", "pi-mono", "any-agent", "inspect_ai",
               "openai-codex", "agent-sessions")


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """One cluster for the module: two worker processes, every socket on loopback."""
    # The scheduler always serves HTTP (health routes; no dashboard without bokeh).
    # dashboard_address=None would mean the fixed port 8787, and a second run at the
    # same time would then fail with "Port 8787 is already in use": port 0 is free.
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address="127.0.0.1:0", worker_dashboard_address=None,
    ) as cluster, Client(cluster) as dask_client:
        yield dask_client


def _local(
    paths: list[str], *, stream: bool = True, max_tracked_calls: int | None = 2000,
    eval_tool_names: tuple[str, ...] | None = None,
) -> Analysis:
    options = {} if eval_tool_names is None else {"eval_tool_names": eval_tool_names}
    settings = StreamSettings(max_tracked_calls=max_tracked_calls, **options) if stream else None
    outcome = read_inputs([os.path.abspath(p) for p in paths], stream=settings)
    return analyse(outcome, max_tracked_calls=max_tracked_calls, **options)


def _assert_identical(on_dask: Analysis, local: Analysis) -> None:
    assert on_dask.outcome.inputs == local.outcome.inputs  # every InputReport, in order
    assert [r.summary for r in on_dask.lanes] == [r.summary for r in local.lanes]
    assert on_dask.total == local.total
    assert on_dask == local
    # repr tells -0.0 from 0.0 and prints every float exactly: bit for bit
    assert repr(on_dask) == repr(local)


def _worker_pid(_: object) -> int:
    return os.getpid()


def test_mapper_runs_on_both_workers_and_keeps_item_order(client: Client) -> None:
    """dask_mapper computes on the cluster's two worker processes and returns results in order."""
    run = dask_mapper(client)
    assert run(str, list(range(40))) == [str(i) for i in range(40)]
    pids = set(run(_worker_pid, list(range(16))))
    assert len(pids) == 2
    assert os.getpid() not in pids
    assert run(str, []) == []
    assert dask_mapper(client, npartitions=100)(str, [1, 2]) == ["1", "2"]


@needs_corpus
def test_corpus_on_dask_equals_the_local_run(client: Client) -> None:
    """Claude Code folders and other corpus files give the same reports, lanes and total on Dask."""
    paths = [str(CORPUS / name) for name in CORPUS_DIRS]
    on_dask = summarize_on_dask(paths, client)
    local = _local(paths)
    _assert_identical(on_dask, local)
    assert len(on_dask.outcome.inputs) > 10
    assert len(on_dask.lanes) > 10
    assert on_dask.total.paired_calls > 0


def _random_events(rng: random.Random, lanes: int, calls: int) -> list[Event]:
    events: list[tuple[float, int, Event]] = []
    for lane in range(lanes):
        at = rng.randrange(0, 10_000)
        for n in range(calls):
            call_id = f"{lane}-{n}"
            name = rng.choice(("read", "grep", "bash", "python", "eval"))
            start = at + rng.randrange(0, 40)
            end = start + rng.randrange(0, 300) + rng.random()
            events.append((start, len(events), ("tool_execution_start", call_id, name, start,
                                                f"lane{lane}")))
            events.append((end, len(events), ("tool_execution_end", call_id, name, end,
                                              f"lane{lane}")))
            at = start + rng.randrange(0, 200)
    return [event for _, _, event in sorted(events)]


def _generated_inputs(root: Path) -> list[str]:
    rng = random.Random(6)
    for i in range(12):
        write_events(root / "many" / f"t{i:02d}.jsonl",
                     _random_events(rng, lanes=rng.randrange(1, 4), calls=rng.randrange(1, 90)))
    write_events(root / "two_lanes.jsonl", TWO_LANES)
    # 70 sequential calls close waves early, then a late call overlaps call 0: read again in batch
    late = [e for i in range(70) for e in (("tool_execution_start", f"c{i}", "read", 100 * i, "m"),
                                          ("tool_execution_end", f"c{i}", "read", 100 * i + 10, "m"))]
    write_events(root / "late.jsonl", [*late, ("tool_execution_start", "late", "read", 5, "m"),
                                       ("tool_execution_end", "late", "read", 7, "m")])
    write_events(root / "bad_lines.jsonl", TWO_LANES[:6], extra_lines="{not json\n")
    (root / "empty.jsonl").write_text("", encoding="utf-8")
    (root / "prose.jsonl").write_text('{"hello": "world"}\n', encoding="utf-8")
    return [str(root / "many"), str(root / "two_lanes.jsonl"), str(root / "late.jsonl"),
            str(root / "bad_lines.jsonl"), str(root / "empty.jsonl"), str(root / "prose.jsonl"),
            str(root / "missing.jsonl")]


def test_generated_files_on_dask_equal_the_local_run(client: Client, tmp_path: Path) -> None:
    """Generated event files, with bad, empty, unknown, missing and out-of-order inputs, match."""
    paths = _generated_inputs(tmp_path)
    on_dask = summarize_on_dask(paths, client)
    local = _local(paths)
    _assert_identical(on_dask, local)
    reports = {Path(r.path).name: r for r in on_dask.outcome.inputs}
    assert reports["late.jsonl"].notes == {"read_again_in_batch": 1}
    assert reports["bad_lines.jsonl"].problems
    assert reports["empty.jsonl"].format == "empty"
    assert reports["prose.jsonl"].error is not None
    assert reports["missing.jsonl"].error is not None
    assert len(on_dask.outcome.inputs) == 18
    # docs/performance.md: render_json of the result is what summarize --format json prints
    cli = CliRunner().invoke(main, ["summarize", "--format", "json", "--jobs", "1",
                                    *(os.path.abspath(p) for p in paths)])
    assert cli.exit_code == 1  # the unknown and missing inputs
    assert render_json(on_dask) == cli.stdout


def test_options_and_batch_mode_on_dask_equal_the_local_run(
    client: Client, tmp_path: Path
) -> None:
    """No cap, other eval names, and lanes sent back whole (stream=False) still match."""
    paths = _generated_inputs(tmp_path)
    for stream in (True, False):
        on_dask = summarize_on_dask(paths, client, stream=stream, max_tracked_calls=None,
                                    eval_tool_names=("bash",))
        local = _local(paths, stream=stream, max_tracked_calls=None, eval_tool_names=("bash",))
        _assert_identical(on_dask, local)
    # batch mode keeps the waves, as locally
    assert all(r.assembly is not None for r in on_dask.lanes)


def test_relative_paths_are_read_from_the_clients_directory(
    client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative path is made absolute on the client, so workers elsewhere read the same file."""
    write_events(tmp_path / "two_lanes.jsonl", TWO_LANES)
    monkeypatch.chdir(tmp_path)
    on_dask = summarize_on_dask(["two_lanes.jsonl"], client)
    assert on_dask.outcome.inputs[0].path == str(tmp_path / "two_lanes.jsonl")
    assert on_dask.outcome.inputs[0].error is None
    _assert_identical(on_dask, _local(["two_lanes.jsonl"]))


def test_stdin_is_refused(client: Client) -> None:
    """'-' cannot be read on a cluster: ValueError before any work is sent."""
    with pytest.raises(ValueError, match="stdin"):
        summarize_on_dask(["-"], client)


@pytest.mark.parametrize("module", ["dask.bag", "distributed"])
def test_missing_extra_names_the_install_command(
    module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without dask or distributed, one line names the dask extra, installed with the
    running interpreter's pip."""
    monkeypatch.setitem(sys.modules, module, None)  # makes `import <module>` fail
    monkeypatch.setattr("sys.executable", "/home/me/wm/.venv/bin/python")
    with pytest.raises(ImportError) as raised:
        summarize_on_dask(["x.jsonl"], client=None)  # type: ignore[arg-type]
    assert str(raised.value) == (
        "running on a Dask cluster needs dask and distributed:"
        " /home/me/wm/.venv/bin/python -m pip install 'wavemetrics[dask]'")
    assert INSTALL_HINT.endswith(" -m pip install 'wavemetrics[dask]'")
