"""A Codex home of many rollouts, and ``summarize`` on it by engine (and by ccusage).

Every Codex rollout of the corpus (detected as the CLI detects them) is copied
``--copies`` times (default 90: 900 rollouts, ~300 MB) into
``OUT/sessions/YYYY/MM/DD/`` (the date of its name, else 2025/01/01), each copy
with fresh ids: every UUID-shaped string of a copy (the session id, call ids that
are UUIDs, the file name's UUID) is replaced by a new one, consistently within the
copy (``benchmarks/fleet.py``'s rule). ``OUT`` is laid out as a Codex home
(``CODEX_HOME``), so the peer ``ccusage codex`` reads the same files. Generated
at benchmark time, never committed. Usage::

    python benchmarks/codex_fleet.py /tmp/codex-home [--copies 90] [--repeat 5]

Then times, interleaved (one run of each in turn, ``--repeat`` rounds), fresh
processes of ``wavemetrics summarize --format json OUT/sessions`` with ``--engine
native`` and ``--engine python``, each cold (``WAVEMETRICS_CACHE_DIR`` a fresh,
empty folder per run), and ``ccusage codex session --json --offline`` when
``../shared/peers`` has it; prints medians (wall and CPU seconds) and ratios. Both
engines' outputs are checked equal first. With ``--against TREE`` (another source tree,
its extension built in it), that tree's native run is timed in place of the Python
engine's, interleaved with this tree's, after both are checked to print the same bytes::

    python benchmarks/codex_fleet.py /tmp/codex-home --repeat 9 --against TREE
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from fleet import (  # benchmarks/ is this script's folder
    _DEFAULT_CORPUS,
    PEER,
    FreshIds,
    _timed,
    fleet_options,
)

_DATE = re.compile(r"rollout-(\d{4})-(\d{2})-(\d{2})T")


def codex_rollouts(corpus: Path) -> list[Path]:
    """The corpus's Codex rollouts (detected as the CLI detects them), sorted."""
    from wavemetrics.readers.codex import CODEX
    from wavemetrics.run.pipeline import read_inputs

    outcome = read_inputs([str(corpus)])
    return sorted(Path(r.path) for r in outcome.inputs if r.format == CODEX.name)


def make_codex_home(out: Path, corpus: Path, copies: int, seed: int = 12) -> tuple[int, int]:
    """Write ``OUT/sessions/YYYY/MM/DD/`` with ``copies`` copies of every corpus rollout,
    fresh ids in each; returns (files, bytes)."""
    files = codex_rollouts(corpus)
    count = size = 0
    for copy in range(copies):
        fresh = FreshIds(seed, copy)
        for index, path in enumerate(files):
            date = _DATE.match(path.name)
            year, month, day = date.groups() if date else ("2025", "01", "01")
            name = fresh.name(path.name)
            if name == path.name:  # no id in the name: a rollout name of its own
                made = fresh(f"{index}:{path.name}".encode()).decode()
                name = f"rollout-{year}-{month}-{day}T00-00-00-{made}.jsonl"
            target = out / "sessions" / year / month / day / name
            if target.exists():
                raise SystemExit(f"{target}: two copies would share this name")
            target.parent.mkdir(parents=True, exist_ok=True)
            data = fresh.data(path.read_bytes())
            target.write_bytes(data)
            count += 1
            size += len(data)
    return count, size


def _outputs_agree(summarize: list[str], env: dict[str, str]) -> None:
    outputs = []
    for engine in ("native", "python"):
        with tempfile.TemporaryDirectory() as cache:
            done = subprocess.run([*summarize, "--engine", engine],
                                  env={**env, "WAVEMETRICS_CACHE_DIR": cache},
                                  capture_output=True, check=False)
        outputs.append((done.returncode, done.stdout))
    if outputs[0] != outputs[1]:
        raise SystemExit("the native and Python engines printed different outputs")


def bench(out: Path, repeat: int, against: Path | None = None) -> None:
    """Print the interleaved timings (see the module doc); ``against``: another source
    tree (with its extension built in it) whose native cold run is timed in place of
    the Python engine's, ``PYTHONPATH`` pointing at it, after checking both trees print
    the same bytes."""
    import compileall

    import wavemetrics

    compileall.compile_dir(os.path.dirname(wavemetrics.__file__), quiet=1)
    sessions, cache = out / "sessions", out / "cache"
    env = {**os.environ, "CODEX_HOME": str(out)}
    summarize = [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json",
                 str(sessions)]
    os.chdir(out)  # `python -m` puts the working directory first on sys.path
    _outputs_agree(summarize, env)
    rows: list[tuple[str, list[str], Path | None, dict[str, str]]] = [
        ("wavemetrics --engine native, cold cache", [*summarize, "--engine", "native"], cache,
         env)]
    if against is None:
        rows.append(("wavemetrics --engine python, cold cache",
                     [*summarize, "--engine", "python"], cache, env))
    else:
        compileall.compile_dir(str(against / "wavemetrics"), quiet=1)
        other = {**env, "PYTHONPATH": str(against)}
        printed = [subprocess.run([*summarize, "--no-cache"], env=tree, capture_output=True,
                                  check=False).stdout for tree in (env, other)]
        if printed[0] != printed[1]:
            raise SystemExit(f"{against} printed other bytes than this tree")
        rows.append((f"{against} --engine native, cold cache",
                     [*summarize, "--engine", "native"], cache, other))
    if PEER.exists():
        rows.append(("ccusage 20.0.24 codex session --json --offline",
                     [str(PEER), "codex", "session", "--json", "--offline"], None, env))
    runs: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _, _ in rows}
    for _ in range(repeat):
        for label, argv, cold, tree in rows:
            run_env = tree if cold is None else {**tree, "WAVEMETRICS_CACHE_DIR": str(cold)}
            runs[label].append(_timed(argv, run_env, cold))  # cold: emptied first
    shutil.rmtree(cache, ignore_errors=True)
    medians = {label: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
               for label, r in runs.items()}
    files = sum(1 for _ in sessions.rglob("*.jsonl"))
    size = sum(p.stat().st_size for p in sessions.rglob("*.jsonl")) / 1e6
    print(f"codex home {out}: {files} rollouts, {size:.0f} MB; median of {repeat} interleaved"
          f" fresh processes each; load average {os.getloadavg()[0]:.1f}")
    native = medians[rows[0][0]]
    print("| what | wall s | cpu s | native vs it (wall / cpu) |")
    print("|---|---|---|---|")
    for label, _, _, _ in rows:
        wall, cpu = medians[label]
        print(f"| {label} | {wall:.2f} | {cpu:.2f} | {wall / native[0]:.2f} x /"
              f" {cpu / native[1]:.2f} x |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    fleet_options(parser, repeat=5)
    parser.add_argument("--against", type=Path, metavar="TREE",
                        help="time this tree's native run against another source tree's")
    parser.set_defaults(copies=90)  # 900 rollouts: the Codex home of the targets
    args = parser.parse_args()
    if not (args.out / "sessions").is_dir():
        corpus = Path(args.corpus) if args.corpus else _DEFAULT_CORPUS
        count, size = make_codex_home(args.out, corpus, args.copies)
        print(f"{args.out}: {count} rollouts, {size / 1e6:.0f} MB", file=sys.stderr)
    bench(args.out.resolve(), args.repeat,
          None if args.against is None else args.against.resolve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
