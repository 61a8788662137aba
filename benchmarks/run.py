"""One command for the Python engine's benchmarks: wall time, MB/s, calls/s and peak RSS.

For each input it measures, back to back in fresh processes, the parse floors
(a msgspec typed-struct loop, an orjson loop, a stdlib json loop over the same
lines) and ``wavemetrics summarize`` (default cap, and unbounded), and prints
each one's time as a multiple of the msgspec floor measured in the same run.
Medians of ``--repeat`` runs; peak RSS is the child's ``ru_maxrss``.

    python benchmarks/run.py [--quick] [--repeat N] [--workdir DIR]

``summarize`` runs with ``--no-cache``: these figures are of reading (the
cache's own figures: ``benchmarks/daily.py``). Inputs are generated
deterministically by ``benchmarks/generate.py`` into ``--workdir`` (default
/tmp/wavemetrics-bench) when missing.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable

FLOORS = {
    "msgspec struct loop (floor)": """
import sys, msgspec
from typing import Any
class R(msgspec.Struct):
    type: Any = None
    toolCallId: Any = None
    toolName: Any = None
    timestamp: Any = None
    sessionId: Any = None
    agentId: Any = None
    uuid: Any = None
    message: Any = None
decode = msgspec.json.Decoder(R).decode
with open(sys.argv[1], "rb") as f:
    for line in f:
        decode(line)
""",
    "orjson loop": """
import sys, orjson
loads = orjson.loads
with open(sys.argv[1], "rb") as f:
    for line in f:
        loads(line)
""",
    "stdlib json loop": """
import sys, json
loads = json.loads
with open(sys.argv[1], "rb") as f:
    for line in f:
        loads(line)
""",
}


#: Floors that need a package no extra installs: floor name -> module.
_OPTIONAL_FLOORS = {"orjson loop": "orjson"}


def _run(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one child process."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed ({status}): {' '.join(argv)}")
    return elapsed, usage.ru_maxrss / 1024


def _measure(argv: list[str], repeat: int) -> tuple[float, float]:
    runs = [_run(argv) for _ in range(repeat)]
    return statistics.median(t for t, _ in runs), max(m for _, m in runs)


def _ensure(workdir: Path, kind: str, calls: int) -> Path:
    path = workdir / f"{kind}-{calls}.jsonl"
    if not path.exists():
        workdir.mkdir(parents=True, exist_ok=True)
        subprocess.run([PYTHON, str(HERE / "generate.py"), kind, str(calls), str(path)],
                       check=True)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1e5-call inputs only")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", default="/tmp/wavemetrics-bench")
    args = parser.parse_args()
    workdir = Path(args.workdir)
    inputs = [("events", 100_000)]
    if not args.quick:
        inputs += [("events", 1_000_000), ("claude-code", 130_000)]
    print(f"# {platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} cores, {platform.machine()}; median of {args.repeat}")
    print(f"{'input':<22} {'MB':>7} {'what':<34} {'wall s':>7} {'MB/s':>7} "
          f"{'calls/s':>10} {'RSS MiB':>8} {'x floor':>8}")
    walls: dict[tuple[str, int], float] = {}
    # orjson is a comparison only, in no extra: without it its row is left out, said here
    missing = {name for name, module in _OPTIONAL_FLOORS.items()
               if importlib.util.find_spec(module) is None}
    for name in sorted(missing):
        print(f"# {name}: skipped ({_OPTIONAL_FLOORS[name]} is not installed:"
              f" pip install {_OPTIONAL_FLOORS[name]})")
    for kind, calls in inputs:
        path = _ensure(workdir, kind, calls)
        size_mb = path.stat().st_size / 1e6
        rows: list[tuple[str, list[str]]] = [
            (name, [PYTHON, "-c", code, str(path)]) for name, code in FLOORS.items()
            if name not in missing
        ]
        cli = [PYTHON, "-m", "wavemetrics", "summarize", "--jobs", "1", "--no-cache"]
        rows.append(("wavemetrics summarize (cap 2000)", [*cli, str(path)]))
        rows.append(("wavemetrics summarize (unbounded)",
                     [*cli, "--max-tracked-calls", "0", str(path)]))
        floor = None
        for name, argv in rows:
            wall, rss = _measure(argv, args.repeat)
            floor = floor or wall
            walls[(kind, calls)] = wall
            print(f"{kind + ' ' + format(calls, ','):<22} {size_mb:>7.1f} {name:<34} "
                  f"{wall:>7.2f} {size_mb / wall:>7.1f} {calls / wall:>10.0f} {rss:>8.1f} "
                  f"{wall / floor:>8.2f}")
    small, large = walls.get(("events", 100_000)), walls.get(("events", 1_000_000))
    if small and large:
        print(f"scaling (events, unbounded): 1e6 / 1e5 wall = {large / small:.2f} (linear: 10)")
    _many_files(workdir, args.repeat)
    return 0


def _many_files(workdir: Path, repeat: int, count: int = 2000) -> None:
    """--jobs 1 against --jobs 2 on many small files (each a short events trace)."""
    folder = workdir / f"many-{count}"
    if not folder.exists():
        folder.mkdir(parents=True)
        sys.path.insert(0, str(HERE))
        from generate import events_lines

        for index in range(count):
            lines = events_lines(60, seed=index)
            (folder / f"s{index:05d}.jsonl").write_text("\n".join(lines) + "\n")
    cli = [PYTHON, "-m", "wavemetrics", "summarize", "--no-cache", str(folder)]
    one, _ = _measure([*cli, "--jobs", "1"], repeat)
    two, _ = _measure([*cli, "--jobs", "2"], repeat)
    print(f"{count} small files: --jobs 1 {one:.2f} s, --jobs 2 {two:.2f} s, "
          f"speed-up {one / two:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
