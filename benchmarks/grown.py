"""A grown trace read again: what a run costs after lines were appended to its input.

    python benchmarks/grown.py [--workdir DIR] [--runs N] [--against TREE]
                               [--only claude-long|events|codex|pi]...

Each input is written without its last lines, read once with the cache on (so
the cache holds everything a run may keep for it), and then, before each of
``--runs`` runs of a command, a few more of its lines are appended: every run
reads a file that grew since the run before. The inputs:

- ``claude-long``: a Claude Code transcript of about 100 MB whose lines are as
  long as real ones (tool results padded to ~10 KB, the corpus's median call
  takes 11 KB), one call appended per run;
- ``events``: the generated ``events`` stream of 1e5 calls, one batch per run;
- ``codex``, ``pi``: the largest Codex rollout and pi session of the corpus
  (``$WAVEMETRICS_CORPUS``), their last lines appended a few at a time.

The commands: ``waves --format json`` and ``summarize --format json --engine
python`` (the Python engine, which reads each lane's calls), and ``summarize
--format json`` with the default engine. Every run is a fresh process with
``WAVEMETRICS_CACHE_DIR`` in the workdir; the figure is the median CPU time
(user + sys) of the child. ``--against TREE`` runs another source tree (put
first on ``PYTHONPATH``) the same way, interleaved run by run, each tree with
its own copy of the inputs and its own cache, and checks both print the same
bytes (paths aside, as each tree reads its own copy).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import claude_code_lines, events_lines  # noqa: E402

CLI = [sys.executable, "-m", "wavemetrics"]
COMMANDS = {
    "waves": ["waves", "--format", "json"],
    "python": ["summarize", "--format", "json", "--engine", "python"],
    "native": ["summarize", "--format", "json"],
}
_CORPUS_FILES = {
    "codex": "agentcmd/codex/"
             "rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl",
    "pi": "pi-mono/before-compaction.jsonl",
}


def _long_claude(calls: int) -> list[str]:
    """Claude Code lines whose tool results hold ~10 KB of text, as real ones do."""
    pad = "x" * 10_000
    lines = []
    for line in claude_code_lines(calls):
        if '"tool_result"' in line:
            line = line.replace('"is_error": false', f'"is_error": false, "pad": "{pad}"', 1)
        lines.append(line)
    return lines


def inputs(kind: str, runs: int) -> tuple[list[str], list[list[str]]]:
    """The lines written first, and the lines appended before each run."""
    if kind == "claude-long":
        lines = _long_claude(9_000)
        step = 2  # one call: its tool_use and tool_result lines (one-call batches)
    elif kind == "events":
        lines = list(events_lines(100_000))[:-1]  # no session_shutdown: still open
        step = 8
    else:
        corpus = Path(os.environ.get("WAVEMETRICS_CORPUS", "/work/shared/corpus"))
        lines = (corpus / _CORPUS_FILES[kind]).read_text(encoding="utf-8").splitlines()
        step = max(1, len(lines) // (10 * runs))
    head = len(lines) - step * runs
    return lines[:head], [lines[head + i * step: head + (i + 1) * step] for i in range(runs)]


def _run(args: list[str], env: dict[str, str]) -> tuple[float, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # run in the tree: ``python -m`` puts the working folder first on ``sys.path``
    done = subprocess.run(args, env=env, check=False, capture_output=True,
                          cwd=env["PYTHONPATH"])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{args}: exit {done.returncode}: {done.stderr.decode()[-400:]}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.stdout


def bench(work: Path, kind: str, command: str, runs: int, trees: dict[str, Path]) -> None:
    first, appended = inputs(kind, runs)
    cpu: dict[str, list[float]] = {name: [] for name in trees}
    setup = {}
    for name, tree in trees.items():
        folder = work / name / kind / command
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        path = folder / "trace.jsonl"
        path.write_text("\n".join(first) + "\n", encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(tree),
               "WAVEMETRICS_CACHE_DIR": str(folder / "cache")}
        _run([*CLI, *COMMANDS[command], str(path)], env)  # fills the cache
        setup[name] = (path, env)
    for index in range(runs):
        outputs = {}
        for name, (path, env) in setup.items():
            with path.open("a", encoding="utf-8") as handle:
                handle.write("".join(line + "\n" for line in appended[index]))
            seconds, out = _run([*CLI, *COMMANDS[command], str(path)], env)
            cpu[name].append(seconds)
            outputs[name] = out.replace(str(path).encode(), b"PATH")
        if len(set(outputs.values())) != 1:
            raise SystemExit(f"{kind} {command}: the trees print different bytes")
    figures = ", ".join(f"{name} {statistics.median(values):.3f} s"
                        for name, values in cpu.items())
    print(f"{kind:12} {command:7} median CPU over {runs} grown runs: {figures}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/wavemetrics-bench-grown"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", type=Path, metavar="TREE")
    parser.add_argument("--only", action="append",
                        choices=["claude-long", "events", "codex", "pi"])
    parser.add_argument("--command", action="append", choices=list(COMMANDS))
    args = parser.parse_args(argv)
    trees = {"this": HERE.parent}
    if args.against is not None:
        trees["against"] = args.against.resolve()
    for kind in args.only or ["claude-long", "events", "codex", "pi"]:
        for command in args.command or list(COMMANDS):
            bench(args.workdir, kind, command, args.runs, trees)
    return 0


if __name__ == "__main__":
    sys.exit(main())
