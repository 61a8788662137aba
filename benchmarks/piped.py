"""A trace piped in against the same file named: ``summarize --format json -``, timed.

Runs, cold (an empty cache folder per run) and interleaved for ``--repeat`` rounds,
``wavemetrics summarize --format json FILE`` and the same bytes piped in
(``summarize --format json -``, the pipe fed by a thread of this script as ``cat``
would feed it), and with ``--against TREE`` (another source tree with its extension
built, run from its own folder so that it is the one imported) that tree's piped run
too. Every piped run must print the same bytes. Prints a Markdown table: the median wall
and CPU seconds (the child's user + system, from ``os.wait4``) and peak RSS (MiB) of
each. The piped input the native command copies into an in-memory file is shared
memory the child does not map: it is not in its peak RSS. Usage::

    python benchmarks/piped.py FILE [--repeat 5] [--against TREE]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import BinaryIO

HERE = Path(__file__).resolve().parents[1]

#: Bytes written to the pipe at a time.
_CHUNK = 1 << 16


def _feed(pipe: BinaryIO, path: Path) -> None:
    """Write the file into the child's stdin, then close it (a child that stops
    reading early closes the pipe: the rest is dropped)."""
    with contextlib.suppress(BrokenPipeError), path.open("rb") as source:
        while chunk := source.read(_CHUNK):
            pipe.write(chunk)
    with contextlib.suppress(BrokenPipeError):
        pipe.close()


def run_once(tree: Path, path: Path, piped: bool) -> tuple[float, float, float, bytes]:
    """One cold run of ``tree``'s ``summarize --format json``, ``path`` named or piped in:
    wall s, CPU s, peak RSS MiB and stdout."""
    cache = tempfile.mkdtemp(prefix="wavemetrics-piped-")
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": cache, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json",
               "-" if piped else str(path)]
    with tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdin=subprocess.PIPE if piped else subprocess.DEVNULL,
                                 stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=tree)
        feeder = None
        if piped:
            feeder = threading.Thread(target=_feed, args=(child.stdin, path))
            feeder.start()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        if feeder is not None:
            feeder.join()
        if child.returncode != 0:
            raise SystemExit(f"{command} exited {child.returncode}")
        out.seek(0)
        printed = out.read()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, printed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another tree, its piped run timed too")
    args = parser.parse_args()
    runs = [("this tree, FILE named", HERE, False), ("this tree, piped in", HERE, True)]
    if args.against is not None:
        runs.append((f"{args.against}, piped in", args.against.resolve(), True))
    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _, _ in runs}
    printed: set[bytes] = set()
    for _ in range(args.repeat):
        for name, tree, piped in runs:
            wall, cpu, rss, out = run_once(tree, args.file, piped)
            times[name].append((wall, cpu, rss))
            if piped:  # a named file's document names it: only the piped runs compare
                printed.add(out)
    if len(printed) != 1:
        raise SystemExit("the piped runs printed different outputs")
    load = os.getloadavg()[0]
    size = args.file.stat().st_size / 1e6
    print(f"{args.file} ({size:.1f} MB); median of {args.repeat} interleaved cold runs each;"
          f" load average {load:.1f}")
    print("| what | wall s | CPU s | peak RSS MiB |")
    print("|---|---|---|---|")
    for name, _, _ in runs:
        walls, cpus, rsss = zip(*times[name], strict=True)
        print(f"| {name} | {statistics.median(walls):.2f} | {statistics.median(cpus):.2f}"
              f" | {statistics.median(rsss):.0f} |")


if __name__ == "__main__":
    main()
