"""The native engine's benchmarks: the native engine against its targets, peers in the same run.

Every figure is the median of ``--repeat`` fresh processes (wall seconds, and
peak RSS from ``ru_maxrss``); ratios compare runs made one after the other in
this run. ``summarize`` runs with ``--no-cache``: these are figures of reading
(with the cache, the second run of the same command is served whole; the
cold and warm cache runs are ``benchmarks/fleet.py --bench``). Inputs are
generated into ``--workdir`` when missing (never committed):

- the fleet folder (``benchmarks/fleet.py``: the corpus's Claude Code files
  copied 50 times with fresh ids, ~380 MB in 1,800 files), timed against the
  peer ``ccusage`` (``../shared/peers/ccusage-20.0.24-linux-x64 session --json
  --offline``) when it is there, and with ``--jobs 1`` against ``--jobs 2``;
- ``events`` with 1e6 calls against the msgspec typed-decode loop (``run.py``);
- a Claude Code-shaped file of ~200 MB read on one core (``--jobs 1``);
- peak RSS from ~40 MB to ~1 GB for both formats, and ~200 MB of short
  Claude Code lines with distinct uuids (exact de-duplication);
- the Python engine on the same inputs (it must keep its speed).

    python benchmarks/native.py [--repeat 3] [--workdir /tmp/wavemetrics-bench] [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import FLOORS, PYTHON  # noqa: E402

PEER = HERE.parents[1] / "shared" / "peers" / "ccusage-20.0.24-linux-x64"
CLI = [PYTHON, "-m", "wavemetrics", "summarize", "--format", "json", "--no-cache"]


def _run(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, children included) and peak RSS (MiB)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed ({status}): {' '.join(argv)}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _measure(argv: list[str], repeat: int) -> tuple[float, float]:
    """Median wall seconds and the largest peak RSS of ``repeat`` runs; the median CPU
    seconds go to ``CPU[-1]`` (a machine shared with other jobs inflates wall time)."""
    runs = [_run(argv) for _ in range(repeat)]
    CPU.append(statistics.median(c for _, c, _ in runs))
    return statistics.median(w for w, _, _ in runs), max(m for _, _, m in runs)


CPU: list[float] = []


def _generate(workdir: Path, kind: str, count: int, name: str) -> Path:
    path = workdir / name
    if not path.exists():
        workdir.mkdir(parents=True, exist_ok=True)
        subprocess.run([PYTHON, str(HERE / "generate.py"), kind, str(count), str(path)],
                       check=True)
    return path


def _fleet(workdir: Path) -> Path:
    out = workdir / "fleet"
    if not (out / "projects").is_dir():
        subprocess.run([PYTHON, str(HERE / "fleet.py"), str(out)], check=True)
    return out


def _row(label: str, size_mb: float, wall: float, rss: float, ratio: str = "") -> None:
    cpu = CPU[-1]
    print(f"{label:<58} {size_mb:>7.0f} {wall:>7.2f} {size_mb / wall:>7.0f} {cpu:>7.2f} "
          f"{size_mb / cpu:>7.0f} {rss:>8.1f} {ratio}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/wavemetrics-bench"))
    parser.add_argument("--quick", action="store_true", help="skip the 1 GB inputs")
    args = parser.parse_args()
    work, repeat = args.workdir, args.repeat
    print(f"# {platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; median of {repeat}")
    print(f"{'what':<58} {'MB':>7} {'wall s':>7} {'MB/s':>7} {'cpu s':>7} {'MB/cpu':>7} "
          f"{'RSS MiB':>8} ratio")

    fleet = _fleet(work)
    projects = fleet / "projects"
    size = sum(p.stat().st_size for p in projects.rglob("*.jsonl")) / 1e6
    peer = None
    if PEER.exists():
        env_argv = ["env", f"CLAUDE_CONFIG_DIR={fleet}", str(PEER), "session", "--json",
                    "--offline"]
        peer, rss = _measure(env_argv, repeat)
        _row("fleet: ccusage 20.0.24 session --json --offline", size, peer, rss)
    runs = {}
    for label, extra in (("default (native, all cores)", []), ("native --jobs 1", ["--jobs", "1"]),
                         ("native --jobs 2", ["--jobs", "2"]),
                         ("python engine (default jobs)", ["--engine", "python"])):
        wall, rss = _measure([*CLI, *extra, str(projects)], repeat)
        runs[label] = wall
        _row(f"fleet: wavemetrics {label}", size, wall, rss,
             f"{wall / peer:.2f}x ccusage" if peer else "")
    print(f"fleet: --jobs 2 speed-up over --jobs 1: "
          f"{runs['native --jobs 1'] / runs['native --jobs 2']:.2f}x")

    events = _generate(work, "events", 1_000_000, "events-1000000.jsonl")
    mb = events.stat().st_size / 1e6
    floor, rss = _measure([PYTHON, "-c", FLOORS["msgspec struct loop (floor)"], str(events)],
                          repeat)
    _row("events 1e6: msgspec typed-decode loop (floor)", mb, floor, rss)
    for engine in ("native", "python"):
        wall, rss = _measure([*CLI, "--jobs", "1", "--engine", engine, str(events)], repeat)
        _row(f"events 1e6: wavemetrics --engine {engine}", mb, wall, rss,
             f"{wall / floor:.2f}x floor")

    claude = _generate(work, "claude-code", 130_000, "claude-code-130000.jsonl")
    mb = claude.stat().st_size / 1e6
    floor, rss = _measure([PYTHON, "-c", FLOORS["msgspec struct loop (floor)"], str(claude)],
                          repeat)
    _row("claude ~200 MB: msgspec typed-decode loop (floor)", mb, floor, rss)
    for engine in ("native", "python"):
        wall, rss = _measure([*CLI, "--jobs", "1", "--engine", engine, str(claude)], repeat)
        _row(f"claude ~200 MB: wavemetrics --engine {engine} --jobs 1", mb, wall, rss,
             f"{wall / floor:.2f}x floor")

    sizes = [("events", 100_000, "40 MB"), ("claude-code", 26_000, "40 MB"),
             ("claude-short", 1_800_000, "200 MB short lines, distinct uuids")]
    if not args.quick:
        sizes += [("events", 2_600_000, "1 GB"), ("claude-code", 650_000, "1 GB")]
    for kind, count, what in sizes:
        path = _generate(work, kind, count, f"{kind}-{count}.jsonl")
        mb = path.stat().st_size / 1e6
        wall, rss = _measure([*CLI, "--jobs", "1", str(path)], repeat)
        _row(f"RSS: {kind} {what}, native", mb, wall, rss)
    return 0


if __name__ == "__main__":
    sys.exit(main())
