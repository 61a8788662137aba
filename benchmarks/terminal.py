"""``summarize`` typed at a terminal: the table with its progress bar, timed.

At a terminal the CLI draws a progress bar on stderr for a read of 20 files or
more, and the table goes to the terminal too: the run most people make. Runs
``wavemetrics summarize FLEET`` (``benchmarks/fleet.py``'s fleet, made under OUT
when missing) with stdin, stdout and stderr on a pseudo-terminal (``pty``, read
and dropped as a terminal would show it), ``--stdout-file`` sending the table to
a file instead; each run cold (an empty cache folder of its own), ``--repeat``
rounds, and with ``--against TREE`` (a source tree with its extension built, run
from its own folder so that it is the one imported) interleaved with that tree's
runs. Prints one Markdown row per tree: the median wall time and every run's.
Usage::

    python benchmarks/terminal.py OUT [--copies 50] [--repeat 7] [--corpus CORPUS]
        [--against TREE] [--stdout-file]
"""

from __future__ import annotations

import argparse
import os
import pty
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from fleet import fleet_options, fleet_under  # benchmarks/ is this script's folder

HERE = Path(__file__).resolve().parents[1]


def _drain(master: int) -> None:
    """Read what the terminal receives until it closes (the reader of a real one)."""
    try:
        while os.read(master, 65536):
            pass
    except OSError:
        pass


def run_once(tree: Path, fleet: Path, stdout_file: bool) -> float:
    """One cold run's wall time (s) of ``tree``'s ``wavemetrics summarize FLEET`` on a
    pseudo-terminal."""
    master, terminal = pty.openpty()
    reader = threading.Thread(target=_drain, args=(master,), daemon=True)
    reader.start()
    cache = tempfile.mkdtemp(prefix="wavemetrics-terminal-")
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": cache, "PYTHONPATH": str(tree)}
    try:
        with tempfile.TemporaryFile() as table:
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "wavemetrics", "summarize", str(fleet)],
                stdin=terminal, stdout=table if stdout_file else terminal, stderr=terminal,
                env=env, cwd=tree, check=False)
            elapsed = time.perf_counter() - started
    finally:
        os.close(terminal)
        os.close(master)
        shutil.rmtree(cache, ignore_errors=True)
    if done.returncode not in (0, 1):  # 1: data errors (the fleet's notes), still a run
        raise SystemExit(f"terminal: exit {done.returncode} ({tree})")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    fleet_options(parser, repeat=7)
    parser.add_argument("--against", type=Path, metavar="TREE",
                        help="also time this source tree, interleaved")
    parser.add_argument("--stdout-file", action="store_true",
                        help="the table to a file; stdin and stderr stay on the terminal")
    args = parser.parse_args()
    fleet = fleet_under(args.out, args.copies, args.corpus)
    trees = [HERE] if args.against is None else [args.against.resolve(), HERE]
    times: dict[Path, list[float]] = {tree: [] for tree in trees}
    for _ in range(args.repeat):
        for tree in trees:
            times[tree].append(run_once(tree, fleet, args.stdout_file))
    print("| tree | median s | runs s |")
    print("|---|---:|---|")
    for tree, runs in times.items():
        print(f"| {tree.name} | {statistics.median(runs):.3f} | "
              + " ".join(f"{run:.2f}" for run in runs) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
