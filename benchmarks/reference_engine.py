"""The reference engine's CPU time per MB: one lane against many interleaved sessions.

Generates (when missing) the benchmarks' own ``events`` file of ``--calls`` calls in
one lane and the same number of calls spread over 2,622 sessions whose records are
interleaved in time order (``benchmarks/generate.py events-sessions``), then runs
``wavemetrics summarize --format json --engine python --no-cache`` on each,
``--repeat`` times interleaved, with the default cap and with ``--max-tracked-calls
0``. Prints one Markdown row per file and cap: the median CPU seconds of the child
(user + system), its size, CPU ms per MB, peak RSS, and the ratio of the interleaved
file's ms per MB to the one-lane file's under the same cap. Usage::

    python benchmarks/reference_engine.py OUT [--calls 1000000] [--repeat 3]

The default cap (2,000 calls held per lane) drops all but the first 2,000 calls of
the one-lane file unmeasured, while every session of the interleaved file stays
under it: the uncapped rows compare the same work.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _file(out: Path, kind: str, calls: int) -> Path:
    path = out / f"{kind}-{calls}.jsonl"
    if not path.exists():
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(HERE / "generate.py"), kind, str(calls), str(path)],
                       check=True)
    return path


def _run(path: Path, cap: str) -> tuple[float, float]:
    """One run: (CPU seconds of the child, its peak RSS in MiB)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json", "--engine",
         "python", "--no-cache", "--jobs", "1", "--max-tracked-calls", cap, str(path)],
        stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"reference_engine: exit {child.returncode} on {path}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    files = {kind: _file(args.out, kind, args.calls) for kind in ("events", "events-sessions")}
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.repeat):
        for cap in ("2000", "0"):
            for kind, path in files.items():
                runs.setdefault((kind, cap), []).append(_run(path, cap))
    print("| file | cap | MB | CPU s (median) | CPU ms per MB | peak RSS, MiB | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for cap in ("2000", "0"):
        per_mb = {}
        for kind, path in files.items():
            size = path.stat().st_size / 1e6
            cpu = statistics.median(run[0] for run in runs[(kind, cap)])
            rss = max(run[1] for run in runs[(kind, cap)])
            per_mb[kind] = cpu * 1000 / size
            ratio = per_mb[kind] / per_mb["events"]
            print(f"| {kind} | {cap} | {size:.0f} | {cpu:.2f} | {per_mb[kind]:.1f} |"
                  f" {rss:.0f} | {ratio:.2f} x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
