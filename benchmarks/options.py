"""What each ``summarize`` option costs on the fleet: cold runs, against the default.

Runs ``wavemetrics summarize`` on a fleet folder (``benchmarks/fleet.py``; made
under OUT when missing) once per variant per round, ``--repeat`` rounds with the
variants interleaved, each run cold (an empty cache folder of its own), and prints
one Markdown row per variant: the median wall time, its ratio to the default run's
(``--format json``, default options) and the engine that reads the inputs and
composes the output (docs/performance.md, "What still runs in Python"). Usage::

    python benchmarks/options.py OUT [--copies 50] [--repeat 5] [--corpus CORPUS]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: (label, the arguments after ``wavemetrics``, the path the run takes). PATH stands
#: for the fleet folder.
VARIANTS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("default (`--format json`)", ("summarize", "--format", "json", "PATH"),
     "the native command"),
    ("`--format table`", ("summarize", "PATH"), "native reads, Python renders"),
    ("`--format csv`", ("summarize", "--format", "csv", "PATH"),
     "native reads, Python renders"),
    ("`--format jsonl`", ("summarize", "--format", "jsonl", "PATH"),
     "native reads, Python renders"),
    ("`--format markdown`", ("summarize", "--format", "markdown", "PATH"),
     "native reads, Python renders"),
    ("`--input-format claude-code`", ("summarize", "--format", "json", "--input-format",
                                      "claude-code", "PATH"),
     "the native command"),
    ("`--eval-tool Task`", ("summarize", "--format", "json", "--eval-tool", "Task", "PATH"),
     "native reads, Python renders"),
    ("`--batchable-tools Read,Grep`", ("summarize", "--format", "json", "--batchable-tools",
                                       "Read,Grep", "PATH"),
     "native reads, Python renders"),
    ("`--idle-gap 60`", ("summarize", "--format", "json", "--idle-gap", "60", "PATH"),
     "native reads, Python renders"),
    ("`--max-tracked-calls 0`", ("summarize", "--format", "json", "--max-tracked-calls",
                                 "0", "PATH"),
     "native reads, Python renders"),
    ("`--by session`", ("summarize", "--format", "json", "--by", "session", "PATH"),
     "native reads, Python renders"),
    ("`--by tool`", ("summarize", "--format", "json", "--by", "tool", "PATH"),
     "Python readers (each lane's calls)"),
    ("`--by day`", ("summarize", "--format", "json", "--by", "day", "PATH"),
     "Python readers (each lane's calls)"),
    ("`--since 2020-01-01`", ("summarize", "--format", "json", "--since", "2020-01-01",
                              "PATH"),
     "Python readers (each lane's calls)"),
    ("`waves --format json`", ("waves", "--format", "json", "PATH"),
     "Python readers (each lane's waves)"),
    ("`--engine python`", ("summarize", "--format", "json", "--engine", "python", "PATH"),
     "Python readers"),
)


def _fleet(out: Path, copies: int, corpus: str | None) -> Path:
    folder = out / "fleet"
    if not (folder / "projects").is_dir():
        where = ["--corpus", corpus] if corpus else []
        subprocess.run([sys.executable, str(HERE / "fleet.py"), str(folder),
                        "--copies", str(copies), *where], check=True)
    return folder / "projects"


def _run(arguments: tuple[str, ...], fleet: Path) -> float:
    """One cold run's wall time in seconds (an empty cache folder of its own)."""
    cache = tempfile.mkdtemp(prefix="wavemetrics-options-")
    try:
        command = [sys.executable, "-m", "wavemetrics",
                   *(str(fleet) if arg == "PATH" else arg for arg in arguments)]
        started = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, "WAVEMETRICS_CACHE_DIR": cache}, check=False)
        elapsed = time.perf_counter() - started
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if done.returncode not in (0, 1):  # 1: data errors (the fleet's notes), still a run
        raise SystemExit(f"options: exit {done.returncode}: {' '.join(command)}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--copies", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--corpus", default=os.environ.get("WAVEMETRICS_CORPUS"),
                        help="the trace corpus the fleet copies (default: $WAVEMETRICS_CORPUS)")
    args = parser.parse_args()
    fleet = _fleet(args.out, args.copies, args.corpus)
    times: dict[str, list[float]] = {label: [] for label, _, _ in VARIANTS}
    for _ in range(args.repeat):
        for label, arguments, _ in VARIANTS:
            times[label].append(_run(arguments, fleet))
    default = statistics.median(times[VARIANTS[0][0]])
    print("| run (cold, the fleet) | median s | x default | inputs read and output made by |")
    print("|---|---:|---:|---|")
    for label, _, path in VARIANTS:
        median = statistics.median(times[label])
        print(f"| {label} | {median:.2f} | {median / default:.2f} | {path} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
