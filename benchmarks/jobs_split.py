"""Where ``--jobs 2`` can gain on the fleet: the extension's read alone against the whole command.

The native engine's target asks ``--jobs 2`` to make ``summarize`` of the 1,800-file fleet folder
(``benchmarks/fleet.py``) at least 1.8x faster than ``--jobs 1``. Only the
extension's read runs on ``--jobs`` threads; start-up, the folder walk, unit
planning, converting results, merging and rendering are serial Python. This
script measures both sides in one run, so the bound Amdahl's law puts on the
whole command can be read off:

- the read alone: one ``_native.read_units`` call over the fleet's project
  folders (one Claude Code unit each), ``--jobs`` 1 and 2, in one warm process,
  wall (``perf_counter``) and CPU (``process_time``), median of ``--repeat``;
- the whole command: ``summarize --format json --no-cache --jobs N`` in fresh
  processes, wall, median of ``--repeat``.

    python benchmarks/jobs_split.py /tmp/wavemetrics-bench/fleet [--repeat 5]

Prints a Markdown table; the fleet folder must exist (``benchmarks/fleet.py OUT``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _units(projects: Path) -> list[tuple[int, list[bytes], list[str]]]:
    """One Claude Code unit per project folder: its ``*.jsonl`` files, sub-agents' included."""
    from wavemetrics.readers.claude_code import fallback_session_id

    units = []
    for folder in sorted(p for p in projects.iterdir() if p.is_dir()):
        paths = sorted(str(p) for p in folder.rglob("*.jsonl"))
        units.append((1, [os.fsencode(p) for p in paths],  # 1: a Claude Code folder
                      [fallback_session_id(p) for p in paths]))
    return units


def _read_alone(projects: Path, jobs: int, repeat: int) -> tuple[float, float]:
    """Median (wall s, CPU s) of one ``read_units`` call over the fleet on ``jobs`` threads."""
    from wavemetrics import _native  # type: ignore[attr-defined]
    from wavemetrics.core.activity import BATCHABLE_TOOL_NAMES, DEFAULT_IDLE_GAP_MS
    from wavemetrics.core.classify import EVAL_TOOL_NAMES
    from wavemetrics.run.native import _eval_names

    units = _units(projects)
    names = _eval_names(EVAL_TOOL_NAMES)
    batchable = _eval_names(BATCHABLE_TOOL_NAMES)
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        results = _native.read_units(units, None, names, batchable, DEFAULT_IDLE_GAP_MS, jobs,
                                     False)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        assert all(r is not None for r in results), "a unit failed natively"
    return statistics.median(walls), statistics.median(cpus)


def _command(projects: Path, jobs: int, repeat: int) -> float:
    """Median wall s of ``summarize --format json --no-cache --jobs N`` in fresh processes."""
    argv = [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json",
            "--no-cache", "--jobs", str(jobs), str(projects)]
    walls = []
    for _ in range(repeat):
        began = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - began)
    return statistics.median(walls)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("fleet", type=Path, help="the folder benchmarks/fleet.py made")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    projects = args.fleet / "projects"
    if not projects.is_dir():
        print(f"{projects}: not there; make it with benchmarks/fleet.py", file=sys.stderr)
        return 2
    _read_alone(projects, 2, 1)  # page cache and allocator warm
    read = {jobs: _read_alone(projects, jobs, args.repeat) for jobs in (1, 2)}
    whole = {jobs: _command(projects, jobs, args.repeat) for jobs in (1, 2)}
    serial = whole[1] - read[1][0]
    print(f"fleet {projects}; median of {args.repeat}; load average {os.getloadavg()[0]:.1f}")
    print("| what | --jobs 1 wall s | --jobs 2 wall s | speed-up |")
    print("|---|---|---|---|")
    print(f"| the extension's read alone (CPU s {read[1][1]:.2f} / {read[2][1]:.2f}) "
          f"| {read[1][0]:.3f} | {read[2][0]:.3f} | {read[1][0] / read[2][0]:.2f} x |")
    print(f"| `summarize --format json --no-cache` | {whole[1]:.3f} | {whole[2]:.3f} "
          f"| {whole[1] / whole[2]:.2f} x |")
    bound = whole[1] / (serial + read[1][0] / 2)
    print(f"serial part (whole --jobs 1 less the read alone): {serial:.3f} s; Amdahl bound "
          f"with a perfect 2-thread read: {bound:.2f} x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
