"""A pi sessions folder of many sessions, and ``summarize`` on it by engine (and by ccusage).

Every pi session of the corpus (detected as the CLI detects them; the corpus has one,
2.4 MB) is copied ``--copies`` times (default 100: ~237 MB) into
``OUT/sessions/<project>/<time>_<uuid>.jsonl``, pi's own layout
(``~/.pi/agent/sessions/--<cwd with / as ->--/``; the project folder is the one its
header's ``cwd`` gives), each copy with fresh ids: every UUID-shaped string of a copy
(the session id, the file name's UUID, the parent reference's) is replaced by a new one,
consistently within the copy (``benchmarks/fleet.py``'s rule). A session file whose
name holds no UUID is named ``<its header's time>_<a fresh UUID>.jsonl``. All copies of
one project share its folder, so each engine reads them as one unit (a pi unit is a
folder: forks are read after their parents). ``ccusage pi`` reads the same files
(``--pi-path OUT/sessions``). Generated at benchmark time, never committed. Usage::

    python benchmarks/pi_fleet.py /tmp/pi-home [--copies 100] [--repeat 5]

Then times, interleaved (one run of each in turn, ``--repeat`` rounds), fresh
processes of ``wavemetrics summarize --format json OUT/sessions`` with ``--engine
native`` and ``--engine python``, each cold (``WAVEMETRICS_CACHE_DIR`` a fresh,
empty folder per run), and ``ccusage pi session --json --offline`` when
``../shared/peers`` has it; prints medians (wall and CPU seconds) and ratios. Both
engines' outputs are checked equal first.
"""

from __future__ import annotations

import argparse
import json
import os
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


def pi_sessions(corpus: Path) -> list[Path]:
    """The corpus's pi sessions (detected as the CLI detects them), sorted."""
    from wavemetrics.readers.pi import PI
    from wavemetrics.run.pipeline import read_inputs

    outcome = read_inputs([str(corpus)])
    return sorted(Path(r.path) for r in outcome.inputs if r.format == PI.name)


def _header(data: bytes) -> dict[str, object]:
    """The session header (first line) of a pi file, or ``{}``."""
    try:
        record = json.loads(data.split(b"\n", 1)[0])
    except ValueError:
        return {}
    return record if isinstance(record, dict) and record.get("type") == "session" else {}


def project_folder(header: dict[str, object]) -> str:
    """pi's folder name for a session's ``cwd``: ``--`` + the path without its leading
    ``/``, each ``/`` (and ``\\``, ``:``) a ``-``, + ``--`` (``--unknown--`` without one)."""
    cwd = header.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return "--unknown--"
    return "--" + cwd.lstrip("/").replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def make_pi_home(out: Path, corpus: Path, copies: int, seed: int = 12) -> tuple[int, int]:
    """Write ``OUT/sessions/<project>/`` with ``copies`` copies of every corpus pi session,
    fresh ids in each; returns (files, bytes)."""
    files = pi_sessions(corpus)
    count = size = 0
    for copy in range(copies):
        fresh = FreshIds(seed, copy)
        for index, path in enumerate(files):
            data = fresh.data(path.read_bytes())
            header = _header(data)
            name = fresh.name(path.name)
            if name == path.name:  # no id in the name: a session name of its own
                made = fresh(f"{index}:{path.name}".encode()).decode()
                stamp = str(header.get("timestamp") or "2025-01-01T00:00:00.000Z")
                name = f"{stamp.replace(':', '-').replace('.', '-')}_{made}.jsonl"
            target = out / "sessions" / project_folder(header) / name
            if target.exists():
                raise SystemExit(f"{target}: two copies would share this name")
            target.parent.mkdir(parents=True, exist_ok=True)
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


def bench(out: Path, repeat: int) -> None:
    """Print the interleaved timings (see the module doc)."""
    import compileall

    import wavemetrics

    compileall.compile_dir(os.path.dirname(wavemetrics.__file__), quiet=1)
    sessions, cache = out / "sessions", out / "cache"
    env = dict(os.environ)
    summarize = [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json",
                 str(sessions)]
    _outputs_agree(summarize, env)
    rows: list[tuple[str, list[str], Path | None]] = [
        ("wavemetrics --engine native, cold cache", [*summarize, "--engine", "native"], cache),
        ("wavemetrics --engine python, cold cache", [*summarize, "--engine", "python"], cache),
    ]
    if PEER.exists():
        rows.append(("ccusage 20.0.24 pi session --json --offline",
                     [str(PEER), "pi", "session", "--json", "--offline",
                      "--pi-path", str(sessions)], None))
    runs: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in rows}
    for _ in range(repeat):
        for label, argv, cold in rows:
            run_env = env if cold is None else {**env, "WAVEMETRICS_CACHE_DIR": str(cold)}
            runs[label].append(_timed(argv, run_env, cold))  # cold: emptied first
    shutil.rmtree(cache, ignore_errors=True)
    medians = {label: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
               for label, r in runs.items()}
    files = sum(1 for _ in sessions.rglob("*.jsonl"))
    size = sum(p.stat().st_size for p in sessions.rglob("*.jsonl")) / 1e6
    print(f"pi sessions {sessions}: {files} sessions, {size:.0f} MB; median of {repeat}"
          f" interleaved fresh processes each; load average {os.getloadavg()[0]:.1f}")
    native = medians[rows[0][0]]
    print("| what | wall s | cpu s | native vs it (wall / cpu) |")
    print("|---|---|---|---|")
    for label, _, _ in rows:
        wall, cpu = medians[label]
        print(f"| {label} | {wall:.2f} | {cpu:.2f} | {wall / native[0]:.2f} x /"
              f" {cpu / native[1]:.2f} x |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    fleet_options(parser, repeat=5)
    parser.set_defaults(copies=100)  # ~237 MB: 100 copies of the corpus session
    args = parser.parse_args()
    if not (args.out / "sessions").is_dir():
        corpus = Path(args.corpus) if args.corpus else _DEFAULT_CORPUS
        count, size = make_pi_home(args.out, corpus, args.copies)
        print(f"{args.out}: {count} sessions, {size / 1e6:.0f} MB", file=sys.stderr)
    bench(args.out, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
