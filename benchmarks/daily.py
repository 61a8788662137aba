"""Benchmarks of daily use (not timed tests): the cache, the status line and ``--help``.

    python benchmarks/daily.py [--quick] [--workdir DIR] [--files N] [--repeat N]
                               [--only help|cache|statusline]... [--runs N]
                               [--against TREE]

1. Cache: a fleet folder of ``--files`` Claude Code sessions (default 1,800, in
   60 project folders, generated here with ``benchmarks/generate.py`` unless the
   folder exists) is summarised cold (empty cache), warm (cache filled) and with
   ``--no-cache``; target: warm <= 0.1 x cold.
2. Status line: a ~100 MB Claude Code transcript; ``wavemetrics statusline``
   run 30 times warm, fresh processes; target: p95 < 100 ms. Then the same
   transcript grown: before each of 20 runs one call (its two lines) is appended,
   so every run reads the transcript from where it ended (``wavemetrics.cache.live``).
3. ``wavemetrics --help``: 30 fresh processes; target: median < 100 ms.

Every run is a fresh process with ``WAVEMETRICS_CACHE_DIR`` in the workdir, so
the user's own cache is never touched. The package is byte-compiled first, as
``pip install`` leaves it. Each figure is given as wall time and as the child's
CPU time (user + sys): on a shared, loaded machine the wall time mostly
measures waiting for a core. Times are wall-clock medians (p95 where
said).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import claude_code_lines  # noqa: E402

CLI = [sys.executable, "-m", "wavemetrics"]


CPU: list[float] = []  # CPU seconds (user + sys) of each child, in run order


def _timed(args: list[str], env: dict[str, str], stdin: bytes | None = None) -> float:
    """Wall seconds of one fresh process; its CPU seconds are appended to ``CPU``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, input=stdin, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def _cpu_median(count: int) -> float:
    return statistics.median(CPU[-count:])


def make_fleet(folder: Path, files: int, calls: int) -> None:
    """``files`` sessions of ``calls`` calls each, 30 per project folder."""
    if folder.is_dir() and sum(1 for _ in folder.rglob("*.jsonl")) == files:
        return
    shutil.rmtree(folder, ignore_errors=True)
    for index in range(files):
        project = folder / f"-work-project-{index // 30:03d}"
        project.mkdir(parents=True, exist_ok=True)
        with open(project / f"session-{index:05d}.jsonl", "w", encoding="utf-8") as handle:
            for line in claude_code_lines(calls, seed=index):
                handle.write(line + "\n")


def make_transcript(path: Path, megabytes: int) -> None:
    if path.exists() and path.stat().st_size >= megabytes * 1_000_000 * 0.95:
        return
    calls = 1000
    with open(path, "w", encoding="utf-8") as handle:
        for line in claude_code_lines(calls, seed=13):
            handle.write(line + "\n")
    per_call = path.stat().st_size / calls
    calls = int(megabytes * 1_000_000 / per_call)
    with open(path, "w", encoding="utf-8") as handle:
        for line in claude_code_lines(calls, seed=13):
            handle.write(line + "\n")


def bench_cache(work: Path, files: int, repeat: int) -> None:
    fleet = work / "fleet"
    make_fleet(fleet, files, calls=40)
    size = sum(p.stat().st_size for p in fleet.rglob("*.jsonl")) / 1e6
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(work / "cache-fleet")}
    for output in ("table", "json"):
        args = [*CLI, "summarize", "--format", output, "--jobs", "1", str(fleet)]
        cold, warm, plain = [], [], []
        cpu: dict[str, list[float]] = {"cold": [], "warm": [], "plain": []}
        for _ in range(repeat):
            shutil.rmtree(work / "cache-fleet", ignore_errors=True)
            cold.append(_timed(args, env))
            cpu["cold"].append(CPU[-1])
            warm.append(_timed(args, env))
            cpu["warm"].append(CPU[-1])
            plain.append(_timed([*args, "--no-cache"], env))
            cpu["plain"].append(CPU[-1])
        c, w, p = (statistics.median(x) for x in (cold, warm, plain))
        cc, cw, cp = (statistics.median(cpu[k]) for k in ("cold", "warm", "plain"))
        print(f"fleet: {files} files, {size:.0f} MB, --format {output}, --jobs 1,"
              f" median of {repeat} (wall s / CPU s)")
        print(f"  --no-cache {p:7.2f} / {cp:6.2f}")
        print(f"  cold       {c:7.2f} / {cc:6.2f}  (reads and fills the cache)")
        print(f"  warm       {w:7.2f} / {cw:6.2f}  = {w / c:.3f} x cold wall,"
              f" {cw / cc:.3f} x cold CPU (target <= 0.1)")


def bench_statusline(work: Path, megabytes: int, runs: int) -> None:
    transcript = work / f"transcript-{megabytes}mb.jsonl"
    make_transcript(transcript, megabytes)
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(work / "cache-status")}
    shutil.rmtree(work / "cache-status", ignore_errors=True)
    payload = json.dumps({"session_id": "x", "transcript_path": str(transcript)}).encode()
    first = _timed([*CLI, "statusline"], env, payload)
    times = sorted(_timed([*CLI, "statusline"], env, payload) for _ in range(runs))
    cpu = sorted(CPU[-runs:])
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    cpu95 = cpu[min(len(cpu) - 1, round(0.95 * (len(cpu) - 1)))]
    size = transcript.stat().st_size / 1e6
    print(f"statusline: {size:.0f} MB transcript; first (cold) {first * 1000:.0f} ms")
    print(f"  warm x{runs}: wall median {statistics.median(times) * 1000:.0f} ms,"
          f" p95 {p95 * 1000:.0f} ms; CPU median {statistics.median(cpu) * 1000:.0f} ms,"
          f" p95 {cpu95 * 1000:.0f} ms (target < 100)")


def _appended_call(index: int, session: str) -> bytes:
    """One call of ``session`` (assistant tool_use, then its user tool_result), fresh ids,
    after every call of the generated transcript."""
    stamp = f"2030-01-01T00:{index // 60 % 60:02d}:{index % 60:02d}.000Z"
    lines = [
        {"type": "assistant", "uuid": str(uuid.uuid4()), "sessionId": session,
         "timestamp": stamp, "message": {"content": [
             {"type": "tool_use", "id": f"toolu_grown_{index}", "name": "Read"}]}},
        {"type": "user", "uuid": str(uuid.uuid4()), "sessionId": session,
         "timestamp": stamp, "message": {"content": [
             {"type": "tool_result", "tool_use_id": f"toolu_grown_{index}"}]}},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def bench_statusline_grown(work: Path, megabytes: int, runs: int) -> None:
    """The status line on a grown transcript: a call appended before each run."""
    transcript = work / f"transcript-{megabytes}mb.jsonl"
    make_transcript(transcript, megabytes)
    grown = work / f"transcript-{megabytes}mb-grown.jsonl"
    shutil.copyfile(transcript, grown)
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(work / "cache-grown")}
    shutil.rmtree(work / "cache-grown", ignore_errors=True)
    payload = json.dumps({"session_id": "x", "transcript_path": str(grown)}).encode()
    with open(grown, encoding="utf-8") as stream:
        session = json.loads(stream.readline())["sessionId"]
    first = _timed([*CLI, "statusline"], env, payload)  # cold: fills the cache
    times = []
    for index in range(runs):
        with open(grown, "ab") as stream:
            stream.write(_appended_call(index, session))
        times.append(_timed([*CLI, "statusline"], env, payload))
    times.sort()
    cpu = sorted(CPU[-runs:])
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    cpu95 = cpu[min(len(cpu) - 1, round(0.95 * (len(cpu) - 1)))]
    print(f"statusline, grown: {grown.stat().st_size / 1e6:.0f} MB transcript;"
          f" first (cold) {first * 1000:.0f} ms")
    print(f"  a call appended before each of {runs} runs: wall median"
          f" {statistics.median(times) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms;"
          f" CPU median {statistics.median(cpu) * 1000:.0f} ms, p95 {cpu95 * 1000:.0f} ms"
          f" (target < 100)")


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def bench_against(work: Path, megabytes: int, runs: int, baseline: Path) -> None:
    """The status line (warm: unchanged, and grown: a call appended before each run) and
    ``--help`` of this tree and of ``baseline`` (a source tree put first on
    ``PYTHONPATH``), their runs interleaved so that both see the same load."""
    import compileall

    compileall.compile_dir(str(baseline / "wavemetrics"), quiet=1)
    # `python -m` puts the working directory first on sys.path: run from the workdir, so
    # that the baseline is imported from PYTHONPATH and this tree from its installation
    os.chdir(work)
    transcript = work / f"transcript-{megabytes}mb.jsonl"
    make_transcript(transcript, megabytes)
    payload = json.dumps({"session_id": "x", "transcript_path": str(transcript)}).encode()
    trees = {"baseline": {**os.environ, "PYTHONPATH": str(baseline)}, "this tree": dict(os.environ)}
    for name, env in trees.items():
        env["WAVEMETRICS_CACHE_DIR"] = str(work / f"cache-{name.replace(' ', '-')}")
        shutil.rmtree(env["WAVEMETRICS_CACHE_DIR"], ignore_errors=True)
        _timed([*CLI, "statusline"], env, payload)  # cold: fills the cache
    for label, args, stdin in (("statusline (warm)", [*CLI, "statusline"], payload),
                               ("--help", [*CLI, "--help"], None)):
        wall: dict[str, list[float]] = {name: [] for name in trees}
        cpu: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(runs):
            for name, env in trees.items():
                wall[name].append(_timed(args, env, stdin))
                cpu[name].append(CPU[-1])
        _print_against(label, runs, trees, wall, cpu)
    # the grown transcript: a copy per tree, each filled cold, then one call appended to
    # both before each pair of runs
    grown: dict[str, bytes] = {}
    with open(transcript, encoding="utf-8") as stream:
        session = json.loads(stream.readline())["sessionId"]
    for name, env in trees.items():
        copy = work / f"transcript-{megabytes}mb-grown-{name.replace(' ', '-')}.jsonl"
        shutil.copyfile(transcript, copy)
        grown[name] = json.dumps({"session_id": "x", "transcript_path": str(copy)}).encode()
        _timed([*CLI, "statusline"], env, grown[name])  # cold: fills the live state
    wall = {name: [] for name in trees}
    cpu = {name: [] for name in trees}
    for index in range(runs):
        for name, env in trees.items():
            path = json.loads(grown[name])["transcript_path"]
            with open(path, "ab") as stream:
                stream.write(_appended_call(index, session))
            wall[name].append(_timed([*CLI, "statusline"], env, grown[name]))
            cpu[name].append(CPU[-1])
    _print_against("statusline (grown: a call appended before each run)", runs, trees, wall,
                   cpu)


def _print_against(label: str, runs: int, trees: dict[str, dict[str, str]],
                   wall: dict[str, list[float]], cpu: dict[str, list[float]]) -> None:
    print(f"{label}, {runs} runs each, interleaved (ms): wall median / p95, CPU median / p95")
    for name in trees:
        print(f"  {name:<10} {statistics.median(wall[name]) * 1000:5.0f} /"
              f" {_p95(wall[name]) * 1000:5.0f}   {statistics.median(cpu[name]) * 1000:5.0f} /"
              f" {_p95(cpu[name]) * 1000:5.0f}", flush=True)


def bench_help(runs: int) -> None:
    times = sorted(_timed([sys.executable, "-m", "wavemetrics", "--help"], dict(os.environ))
                   for _ in range(runs))
    cpu = _cpu_median(runs)
    bare = sorted(_timed([sys.executable, "-c", "pass"], dict(os.environ)) for _ in range(runs))
    print(f"--help x{runs}: wall median {statistics.median(times) * 1000:.0f} ms,"
          f" p95 {times[round(0.95 * (runs - 1))] * 1000:.0f} ms; CPU median {cpu * 1000:.0f} ms"
          f" (python -c pass: wall median {statistics.median(bare) * 1000:.0f} ms,"
          f" CPU {_cpu_median(runs) * 1000:.0f} ms)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/wavemetrics-bench-daily"))
    parser.add_argument("--files", type=int, default=1800)
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="180 files, 10 MB, 1 repeat")
    parser.add_argument("--only", choices=["help", "cache", "statusline", "grown"],
                        action="append",
                        help="run only these parts (repeatable; default: all four)")
    parser.add_argument("--runs", type=int, default=30,
                        help="fresh processes timed for --help and the status line")
    parser.add_argument("--against", type=Path, metavar="TREE",
                        help="only compare the status line (warm, grown) and --help with those of"
                             " another source tree (e.g. `git archive main wavemetrics`),"
                             " runs interleaved")
    args = parser.parse_args(argv)
    parts = set(args.only or ["help", "cache", "statusline", "grown"])
    if args.quick:
        args.files, args.megabytes, args.repeat = 180, 10, 1
    args.workdir.mkdir(parents=True, exist_ok=True)
    # As after `pip install` (which byte-compiles): without .pyc files every run would
    # compile wavemetrics' sources (PYTHONDONTWRITEBYTECODE is set on some machines).
    import compileall

    import wavemetrics

    compileall.compile_dir(os.path.dirname(wavemetrics.__file__), quiet=1)
    if args.against is not None:
        bench_against(args.workdir, args.megabytes, args.runs, args.against.resolve())
        return 0
    if "help" in parts:
        bench_help(args.runs)
    if "cache" in parts:
        bench_cache(args.workdir, args.files, args.repeat)
    if "statusline" in parts:
        bench_statusline(args.workdir, args.megabytes, args.runs)
    if "grown" in parts:
        bench_statusline_grown(args.workdir, args.megabytes, 20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
