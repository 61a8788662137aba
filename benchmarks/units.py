"""What the per-unit cache makes warm: the runs that need each lane's calls, or the Python engine.

    python benchmarks/units.py [--workdir DIR] [--files N] [--repeat N]

A fleet folder of ``--files`` generated Claude Code sessions (40 calls each, 30
per project folder, as ``benchmarks/daily.py`` makes it) is read by ``waves
--format json``, ``summarize --format json --engine python`` and ``summarize
--format json --by day`` (the native engine cannot give ``--by day``: it needs
each lane's calls), each ``--jobs 1``: with ``--no-cache``, cold (the cache
emptied first: the run reads and fills it) and warm (the per-unit entries kept,
the whole stored outputs removed first, so no run is served whole: the figure
is the per-unit cache's alone). Every run is a fresh process with
``WAVEMETRICS_CACHE_DIR`` in the workdir; the figures are the medians of
``--repeat`` runs, CPU time (user + sys) of the child and wall time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from daily import CLI, CPU, _timed, make_fleet  # noqa: E402

COMMANDS = {
    "waves": ["waves", "--format", "json"],
    "python": ["summarize", "--format", "json", "--engine", "python"],
    "by day": ["summarize", "--format", "json", "--by", "day"],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/wavemetrics-bench-units"))
    parser.add_argument("--files", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    fleet = args.workdir / "fleet"
    make_fleet(fleet, args.files, calls=40)
    size = sum(p.stat().st_size for p in fleet.rglob("*.jsonl")) / 1e6
    cache = args.workdir / "cache"
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(cache)}
    print(f"fleet: {args.files} files, {size:.0f} MB, --jobs 1, median of {args.repeat}"
          " (CPU s / wall s)")
    for name, command in COMMANDS.items():
        run = [*CLI, *command, "--jobs", "1", str(fleet)]
        times: dict[str, list[tuple[float, float]]] = {"plain": [], "cold": [], "warm": []}
        for _ in range(args.repeat):
            wall = _timed([*run, "--no-cache"], env)
            times["plain"].append((CPU[-1], wall))
            shutil.rmtree(cache, ignore_errors=True)
            wall = _timed(run, env)
            times["cold"].append((CPU[-1], wall))
            shutil.rmtree(cache / "runs", ignore_errors=True)  # never served whole
            wall = _timed(run, env)
            times["warm"].append((CPU[-1], wall))
        cpu = {kind: statistics.median(c for c, _ in values) for kind, values in times.items()}
        wall = {kind: statistics.median(w for _, w in values) for kind, values in times.items()}
        print(f"  {name:7} --no-cache {cpu['plain']:5.2f} / {wall['plain']:5.2f}"
              f"  cold {cpu['cold']:5.2f} / {wall['cold']:5.2f}"
              f"  warm {cpu['warm']:5.2f} / {wall['warm']:5.2f}"
              f"  warm = {cpu['warm'] / cpu['cold']:.3f} x cold CPU", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
