"""--jobs and streaming never change a figure."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.corpus import CORPUS, needs_corpus
from wavemetrics.cli.commands import main
from wavemetrics.run.parallel import process_mapper
from wavemetrics.run.pipeline import StreamSettings, analyse, read_inputs
from wavemetrics.views.report import json_document

CORPUS_DIRS = ("claude-code-log", "agentcmd", "localpush", "pi-mono", "any-agent", "inspect_ai",
               "openai-codex", "agent-sessions")


def _summarize(*args: str) -> str:
    result = CliRunner().invoke(main, ["summarize", "--format", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.stdout


@needs_corpus
def test_jobs_give_the_same_document_as_one_process() -> None:
    """summarize --jobs 2 prints byte for byte what --jobs 1 prints, on the whole corpus."""
    paths = [str(CORPUS / name) for name in CORPUS_DIRS]
    one = _summarize("--jobs", "1", *paths)
    two = _summarize("--jobs", "2", *paths)
    assert one == two
    document = json.loads(one)
    assert len(document["inputs"]) == 56  # every file under those eight corpus folders
    assert document["total"]["paired_calls"] > 0


@needs_corpus
def test_streaming_equals_batch_on_every_corpus_lane() -> None:
    """Lanes summarised while read equal lanes assembled at the end, for every corpus format."""
    paths = [str(CORPUS / name) for name in CORPUS_DIRS]
    batch = json_document(analyse(read_inputs(paths)))
    streamed = json_document(analyse(read_inputs(paths, stream=StreamSettings())))
    assert streamed == batch
    with process_mapper(2) as mapper:
        parallel = json_document(analyse(read_inputs(paths, stream=StreamSettings(),
                                                     mapper=mapper)))
    assert parallel == batch


def _events_file(path: Path, calls: list[tuple[str, int, int]]) -> str:
    lines = []
    for call_id, start, end in calls:
        lines.append({"type": "tool_execution_start", "toolCallId": call_id,
                      "toolName": "read", "timestamp": start})
        lines.append({"type": "tool_execution_end", "toolCallId": call_id,
                      "toolName": "read", "timestamp": end})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_out_of_order_input_is_read_again_in_batch_with_the_same_figures(tmp_path: Path) -> None:
    """A call stamped inside an already closed wave makes the reader fall back, and say so."""
    # 70 sequential calls close waves early; then a call starting at 5 ms overlaps call 0.
    calls = [(f"c{i}", 100 * i, 100 * i + 10) for i in range(70)]
    calls.append(("late", 5, 7))
    path = _events_file(tmp_path / "late.jsonl", calls)
    streamed = read_inputs([path], stream=StreamSettings(max_tracked_calls=None))
    batch = read_inputs([path])
    assert streamed.inputs[0].notes == {"read_again_in_batch": 1}
    s = analyse(streamed, max_tracked_calls=None).total
    b = analyse(batch, max_tracked_calls=None).total
    assert s == b
    # by hand: call 0 [0,10] and late [5,7] form one wave: S = 10 + 2, span 10 -> 2 ms saved
    assert s.modeled_wallclock_saved_ms == 2.0
    assert s.non_eval_waves_total == 70


def test_many_small_files_in_two_processes_match_one(tmp_path: Path) -> None:
    """200 small files read by a pool of 2 give exactly the single-process document."""
    for index in range(200):
        _events_file(tmp_path / f"s{index:03d}.jsonl",
                     [("a", 0, 10 + index), ("b", 5, 8), ("c", 1000, 1010)])
    one = _summarize("--jobs", "1", str(tmp_path))
    two = _summarize("--jobs", "2", str(tmp_path))
    assert one == two
    total = json.loads(one)["total"]
    assert total["paired_calls"] == 600
    # per file: wave {a, b}: S = (10 + i) + 3, span 10 + i -> 3 ms saved; 200 files -> 600 ms
    assert total["modeled_wallclock_saved_ms"] == 600.0
