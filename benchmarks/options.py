"""What each ``summarize`` option costs on the fleet: cold runs, against the default.

Runs ``wavemetrics summarize`` on a fleet folder (``benchmarks/fleet.py``; made
under OUT when missing) once per variant per round, ``--repeat`` rounds with the
variants interleaved, each run cold (an empty cache folder of its own), and prints
one Markdown row per variant: the median wall time, its ratio to the default run's
(``--format json``, default options) and the engine that reads the inputs and
composes the output (docs/performance.md, "What still runs in Python"). With
``--against TREE`` (a source tree with its extension built, put first on
``PYTHONPATH``), each variant is also run by that tree, interleaved with this one's
runs, and the table gives both medians. Usage::

    python benchmarks/options.py OUT [--copies 50] [--repeat 5] [--corpus CORPUS]
        [--against TREE]
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

from fleet import fleet_options, fleet_under  # benchmarks/ is this script's folder

_NATIVE = "the native command"
_DRAWN = "the native command; Python draws the format from its document"
_WAVES = "the native command; Python formats each lane's waves"
_WAVE_ROWS = "the native command writes each wave's row; Python splices them in"
_WAVE_CSV = "the native command writes the CSV text"
_GROUPS = "the native command merges the groups and writes the --by document"
_CUT = "the native command, each lane cut to the window"
_TOOLS = "the native command, each wave's calls counted per tool"
_PERIODS = "the native command, each lane cut by period"

#: (the options after ``summarize --format json`` or, when they start with a
#: command, the whole command before the fleet folder; the path the run takes).
VARIANTS: tuple[tuple[str, str], ...] = (
    ("", _NATIVE),
    ("--format table", _DRAWN),
    ("--format csv", _DRAWN),
    ("--format jsonl", _DRAWN),
    ("--format markdown", _DRAWN),
    ("--input-format claude-code", _NATIVE),
    ("--eval-tool Task", _NATIVE),
    ("--batchable-tools Read,Grep", _NATIVE),
    ("--idle-gap 60", _NATIVE),
    ("--max-tracked-calls 0", _NATIVE),
    ("--by session", _GROUPS),
    ("--by lane", _GROUPS),
    ("--by project", _GROUPS),
    ("--by tool", _TOOLS),
    ("--by day", _PERIODS),
    ("--by week --timezone Asia/Kolkata", _PERIODS),
    ("--since 2020-01-01", _CUT),
    ("--since 2025-06-01 --until 2025-09-01", _CUT),
    ("waves --format json", _WAVE_ROWS),
    ("waves --format csv", _WAVE_CSV),
    ("waves", _WAVES),
    ("--engine python", "Python readers"),
)


def _arguments(options: str) -> list[str]:
    """The arguments after ``wavemetrics`` for a variant (the fleet folder last)."""
    words = options.split()
    if words and not words[0].startswith("-"):
        return words
    return ["summarize", "--format", "json", *words]


def _label(options: str) -> str:
    return f"`{options}`" if options else "default (`--format json`)"


def _run(arguments: list[str], fleet: Path, tree: Path | None = None) -> float:
    """One cold run's wall time in seconds (an empty cache folder of its own), by this
    tree or by ``tree`` (first on ``PYTHONPATH``)."""
    cache = tempfile.mkdtemp(prefix="wavemetrics-options-")
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": cache}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    try:
        command = [sys.executable, "-m", "wavemetrics", *arguments, str(fleet)]
        started = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=env, check=False, cwd=tree or fleet.parent)
        elapsed = time.perf_counter() - started
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if done.returncode not in (0, 1):  # 1: data errors (the fleet's notes), still a run
        raise SystemExit(f"options: exit {done.returncode}: {' '.join(command)}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    fleet_options(parser, repeat=5)
    parser.add_argument("--against", type=Path, metavar="TREE",
                        help="also time each variant with this source tree, interleaved")
    args = parser.parse_args()
    fleet = fleet_under(args.out, args.copies, args.corpus)
    against = None if args.against is None else args.against.resolve()
    times: dict[str, list[float]] = {options: [] for options, _ in VARIANTS}
    before: dict[str, list[float]] = {options: [] for options, _ in VARIANTS}
    for _ in range(args.repeat):
        for options, _ in VARIANTS:
            if against is not None:
                before[options].append(_run(_arguments(options), fleet, against))
            times[options].append(_run(_arguments(options), fleet))
    default = statistics.median(times[""])
    if against is not None:
        print(f"| run (cold, the fleet) | {against.name} median s | median s | x default |"
              " inputs read and output made by |")
        print("|---|---:|---:|---:|---|")
        for options, path in VARIANTS:
            median = statistics.median(times[options])
            print(f"| {_label(options)} | {statistics.median(before[options]):.2f} |"
                  f" {median:.2f} | {median / default:.2f} | {path} |")
        return 0
    print("| run (cold, the fleet) | median s | x default | inputs read and output made by |")
    print("|---|---:|---:|---|")
    for options, path in VARIANTS:
        median = statistics.median(times[options])
        print(f"| {_label(options)} | {median:.2f} | {median / default:.2f} | {path} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
