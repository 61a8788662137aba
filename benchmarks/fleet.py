"""The fleet folder: the corpus's Claude Code files copied many times.

Every Claude Code transcript of the corpus (with its ``<session>/subagents/``
files) is copied ``--copies`` times (default 50: about 1,800 files, ~370 MB)
into ``OUT/projects/<project>-<copy>/``, each copy with fresh ids: every
UUID-shaped string of a copy (line ``uuid``, ``parentUuid``, ``sessionId``, file
and folder names) is replaced by a new random UUID, consistently within the
copy, so copies neither de-duplicate against each other nor share sessions.
``OUT`` is laid out as a Claude config folder (``CLAUDE_CONFIG_DIR``), so the
peer ``ccusage`` reads the same files. Generated at benchmark time, never
committed. With ``--one-project`` every copy goes into one project folder,
``OUT/projects/one/`` (a file name without a UUID gets its copy number as a
prefix): one large folder, the case ``--jobs N`` splits across threads. Usage::

    python benchmarks/fleet.py /tmp/fleet [--copies 50] [--corpus CORPUS]
    python benchmarks/fleet.py /tmp/one --copies 10 --one-project
    python benchmarks/fleet.py /tmp/fleet --bench [--repeat 3]
    python benchmarks/fleet.py /tmp/mixed --add CORPUS/openai-codex/binary-size-log.jsonl \
        --bench --against TREE

``--add FILE`` (repeatable) copies each FILE into ``OUT/projects/added/`` beside the
copies: the fleet with one input of a format the extension has no reader for (the
corpus's ``codex-tui`` log), whose unit the Python reader reads for the native command.

``--bench`` (the folder is made first if it is not there) times, in one run,
``ccusage session --json --offline`` (when ``../shared/peers`` has it) and
``wavemetrics summarize --format json`` on ``OUT/projects`` with default
options: without the cache, cold (the cache emptied before each run), warm
(every file's entry cached, the stored whole outputs dropped before each run),
served (the whole output of the same command stored: ``wavemetrics.cache.runcache``),
and ``--engine python`` cold and warm. Every row is the median of
``--repeat`` fresh processes, in wall and CPU (user + sys) seconds; the cache
lives in ``OUT/cache`` (``WAVEMETRICS_CACHE_DIR``), never the user's. The
package is byte-compiled first, as ``pip install`` leaves it.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

PEER = Path(__file__).resolve().parents[2] / "shared" / "peers" / "ccusage-20.0.24-linux-x64"

_UUID = re.compile(rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_UUID_TEXT = re.compile(_UUID.pattern.decode())


#: The corpus beside the repository (``../shared/corpus``).
_DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def claude_files(corpus: Path) -> list[Path]:
    """The corpus's Claude Code transcripts (detected as the CLI detects them), sorted."""
    from wavemetrics.run.pipeline import read_inputs

    outcome = read_inputs([str(corpus)])
    return sorted(Path(r.path) for r in outcome.inputs if r.format == "claude-code")


def _project_of(path: Path) -> Path:
    return path.parent.parent.parent if path.parent.name == "subagents" else path.parent


class FreshIds:
    """One copy's fresh ids: each UUID-shaped id of the corpus gets, once per copy, the
    deterministic ``uuid5`` of ``(seed, copy, old id)``, the same wherever it appears."""

    def __init__(self, seed: int, copy: int) -> None:
        self.namespace, self.copy = uuid.UUID(int=seed), copy
        self.ids: dict[bytes, bytes] = {}

    def __call__(self, old: bytes) -> bytes:
        if old not in self.ids:
            self.ids[old] = str(uuid.uuid5(self.namespace,
                                           f"{self.copy}:{old.decode()}")).encode()
        return self.ids[old]

    def name(self, text: str) -> str:
        """``text`` (a file name or path) with each UUID in it replaced."""
        return _UUID_TEXT.sub(lambda m: self(m.group(0).encode()).decode(), text)

    def data(self, data: bytes) -> bytes:
        """A file's bytes with each UUID in them replaced."""
        return _UUID.sub(lambda m: self(m.group(0)), data)


def make_fleet(
    out: Path, corpus: Path, copies: int, seed: int = 12, one_project: bool = False
) -> tuple[int, int]:
    """Write the fleet folder (or one project folder of all copies); returns (files, bytes)."""
    files = claude_files(corpus)
    count = size = 0
    for copy in range(copies):
        fresh = FreshIds(seed, copy)
        for path in files:
            project = _project_of(path)
            relative = path.relative_to(project)
            renamed = fresh.name(relative.as_posix())
            if one_project:
                if renamed == relative.as_posix():  # no id in the name: keep copies apart
                    renamed = f"{copy:03d}-{renamed}"
                target = out / "projects" / "one" / renamed
            else:
                target = out / "projects" / f"{project.name}-{copy:03d}" / renamed
            if target.exists():
                raise SystemExit(f"{target}: two copies would share this name")
            target.parent.mkdir(parents=True, exist_ok=True)
            data = fresh.data(path.read_bytes())
            target.write_bytes(data)
            count += 1
            size += len(data)
    return count, size


def fleet_options(parser: argparse.ArgumentParser, repeat: int) -> None:
    """The options of a script that measures on a fleet under its OUT folder: ``out``,
    ``--copies``, ``--repeat`` (default ``repeat``) and ``--corpus``."""
    parser.add_argument("out", type=Path)
    parser.add_argument("--copies", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--corpus", default=os.environ.get("WAVEMETRICS_CORPUS"),
                        help="the trace corpus the fleet copies (default: $WAVEMETRICS_CORPUS)")


def fleet_under(out: Path, copies: int, corpus: str | None) -> Path:
    """``OUT/fleet/projects``: a fleet of ``copies`` copies of ``corpus`` (default: the
    corpus beside the repository), made when missing."""
    folder = out / "fleet"
    if not (folder / "projects").is_dir():
        where = Path(corpus) if corpus else _DEFAULT_CORPUS
        count, size = make_fleet(folder, where, copies)
        print(f"{folder}: {count} files, {size / 1e6:.0f} MB", file=sys.stderr)
    return folder / "projects"


def _drop_runs(cache: Path) -> None:
    """Delete the stored whole outputs (a warm run that is not served): the files of the
    cache's ``runs`` folder (``wavemetrics.cache.runcache.RunStore``), and the rows of the ``runs``
    table a tree before the native engine's tenth round kept them in (``--against``)."""
    import sqlite3

    shutil.rmtree(cache / "runs", ignore_errors=True)
    if (cache / "cache.sqlite3").exists():
        with sqlite3.connect(cache / "cache.sqlite3") as db:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
            if "runs" in tables:
                db.execute("DELETE FROM runs")


def _timed(argv: list[str], env: dict[str, str], before: Path | None = None,
           runs_of: Path | None = None, keep: list[bytes] | None = None) -> tuple[float, float]:
    """Wall and CPU (user + sys) seconds of one fresh process; ``before``: a folder
    emptied first (the cold cache); ``runs_of``: a cache whose whole outputs are dropped
    first (warm, not served); ``keep``: gets the process's stdout and stderr."""
    if before is not None:
        shutil.rmtree(before, ignore_errors=True)
    if runs_of is not None:
        _drop_runs(runs_of)
    start_usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    where = subprocess.PIPE if keep is not None else subprocess.DEVNULL
    done = subprocess.run(argv, env=env, check=True, stdout=where, stderr=where)
    wall = time.perf_counter() - start
    if keep is not None:
        keep += [done.stdout, done.stderr]
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (usage.ru_utime - start_usage.ru_utime) + (usage.ru_stime - start_usage.ru_stime)
    return wall, cpu


def bench(out: Path, repeat: int) -> None:
    """Print the table of ``--bench`` (see the module doc)."""
    import compileall

    import wavemetrics

    compileall.compile_dir(os.path.dirname(wavemetrics.__file__), quiet=1)
    projects, cache = out / "projects", out / "cache"
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(cache), "CLAUDE_CONFIG_DIR": str(out)}
    summarize = [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json",
                 str(projects)]
    rows: list[tuple[str, list[str], str]] = []  # label, argv, cache state
    if PEER.exists():
        rows.append(("ccusage 20.0.24 session --json --offline",
                     [str(PEER), "session", "--json", "--offline"], ""))
    rows += [
        ("wavemetrics, --no-cache (native)", [*summarize, "--no-cache"], ""),
        ("wavemetrics, cold cache (native, default options)", summarize, "cold"),
        ("wavemetrics, warm cache (native, default options)", summarize, "warm"),
        ("wavemetrics, warm, output served whole (default options)", summarize, "served"),
        ("wavemetrics --engine python, cold cache", [*summarize, "--engine", "python"], "cold"),
        ("wavemetrics --engine python, warm cache", [*summarize, "--engine", "python"], "warm"),
    ]
    times: dict[str, tuple[float, float]] = {}
    for label, argv, state in rows:
        if state in ("warm", "served"):
            _timed(argv, env)  # fills the cache for this engine (a cold run, not counted)
        if state == "served":
            _timed(argv, env)  # a warm run stores the whole output (not counted)
        runs = [_timed(argv, env, cache if state == "cold" else None,
                       cache if state == "warm" else None) for _ in range(repeat)]
        times[label] = (statistics.median(w for w, _ in runs),
                        statistics.median(c for _, c in runs))
    files = sum(1 for _ in projects.rglob("*.jsonl"))
    size = sum(p.stat().st_size for p in projects.rglob("*.jsonl")) / 1e6
    print(f"fleet {projects}: {files} files, {size:.0f} MB; median of {repeat} fresh processes;"
          f" load average {os.getloadavg()[0]:.1f}")
    peer = times.get(rows[0][0]) if PEER.exists() else None
    print("| what | wall s | cpu s | vs ccusage (wall / cpu) |")
    print("|---|---|---|---|")
    for label, _, _ in rows:
        wall, cpu = times[label]
        versus = f"{wall / peer[0]:.2f} x / {cpu / peer[1]:.2f} x" if peer else ""
        print(f"| {label} | {wall:.2f} | {cpu:.2f} | {versus} |")
    for engine in ("native", "python"):
        prefix = "wavemetrics, " if engine == "native" else "wavemetrics --engine python, "
        suffix = " (native, default options)" if engine == "native" else ""
        cold = times[f"{prefix}cold cache{suffix}"]
        warm = times[f"{prefix}warm cache{suffix}"]
        print(f"warm / cold, {engine}: {warm[0] / cold[0]:.3f} wall, {warm[1] / cold[1]:.3f} cpu")
    cold = times["wavemetrics, cold cache (native, default options)"]
    served = times["wavemetrics, warm, output served whole (default options)"]
    print(f"served / cold, native: {served[0] / cold[0]:.3f} wall, {served[1] / cold[1]:.3f} cpu")


def bench_against(out: Path, repeat: int, baseline: Path) -> None:
    """``--against TREE``: the fleet read by this tree and by ``baseline`` (a source tree,
    e.g. ``git archive main wavemetrics``, put first on ``PYTHONPATH``; the extension is
    this tree's when it has none), ``--repeat`` fresh processes each, runs interleaved so
    that both see the same load: ``--no-cache``, cold, warm (output not served), and
    ``--no-cache`` with ``--jobs 1`` and ``--jobs 2``; ccusage beside the first. Checks
    that both trees print the same bytes (stdout and stderr)."""
    import compileall

    import wavemetrics

    here = Path(wavemetrics.__file__).parent
    native = next(here.glob("_native*.so"), None)  # the built extension, not its .pyi stub
    if native is not None and not any((baseline / "wavemetrics").glob("_native*.so")):
        shutil.copy2(native, baseline / "wavemetrics" / native.name)
    for tree in (here, baseline / "wavemetrics"):
        compileall.compile_dir(str(tree), quiet=1)
    projects = out / "projects"
    os.chdir(out)  # `python -m` puts the working directory first on sys.path
    trees = {"baseline": {**os.environ, "PYTHONPATH": str(baseline)},
             "this tree": {**os.environ}}
    for name, env in trees.items():
        env.update(WAVEMETRICS_CACHE_DIR=str(out / f"cache-{name.replace(' ', '-')}"),
                   CLAUDE_CONFIG_DIR=str(out))
    summarize = [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json",
                 str(projects)]
    rows = (("--no-cache", ["--no-cache"], ""), ("cold cache (default options)", [], "cold"),
            ("warm cache, output not served", [], "warm"),
            ("--no-cache --jobs 1", ["--no-cache", "--jobs", "1"], ""),
            ("--no-cache --jobs 2", ["--no-cache", "--jobs", "2"], ""))
    print(f"fleet {projects}, median of {repeat} fresh processes each, interleaved")
    print("| what | baseline wall ms | cpu ms | this tree wall ms | cpu ms | same bytes |")
    print("|---|---|---|---|---|---|")
    walls: dict[tuple[str, str], float] = {}  # (row, tree): median wall s
    for label, extra, state in rows:
        peer: list[tuple[float, float]] = []
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        printed: dict[str, list[bytes]] = {name: [] for name in trees}
        for env in trees.values():
            if state == "warm":
                shutil.rmtree(env["WAVEMETRICS_CACHE_DIR"], ignore_errors=True)
                _timed(summarize, env)  # fills the cache (not counted)
        for index in range(repeat):
            if label == "--no-cache" and PEER.exists():
                peer.append(_timed([str(PEER), "session", "--json", "--offline"],
                                   trees["this tree"]))
            for name, env in trees.items():
                cache = Path(env["WAVEMETRICS_CACHE_DIR"])
                if state == "warm":
                    _drop_runs(cache)
                times[name].append(_timed(
                    [*summarize, *extra], env, cache if state == "cold" else None,
                    keep=printed[name] if index == 0 else None))
        if peer:
            walls["ccusage", ""] = statistics.median(w for w, _ in peer)
            print(f"| ccusage 20.0.24 session --json --offline |"
                  f" {1000 * walls['ccusage', '']:.0f} |"
                  f" {1000 * statistics.median(c for _, c in peer):.0f} | | | |")
        for name in trees:
            walls[label, name] = statistics.median(w for w, _ in times[name])
        cells = " | ".join(f"{1000 * walls[label, name]:.0f} |"
                           f" {1000 * statistics.median(c for _, c in times[name]):.0f}"
                           for name in trees)
        same = printed["baseline"] == printed["this tree"]
        print(f"| {label} | {cells} | {'yes' if same else 'NO'} |", flush=True)
    for name in trees:  # the two targets' ratios (docs/performance.md, "Current figures")
        jobs = walls["--no-cache --jobs 1", name] / walls["--no-cache --jobs 2", name]
        versus = ""
        if ("ccusage", "") in walls:
            cold = walls["cold cache (default options)", name] / walls["ccusage", ""]
            versus = f"; cold / ccusage {cold:.3f} x"
        print(f"{name}: --jobs 1 / --jobs 2 {jobs:.2f} x{versus}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--copies", type=int, default=50)
    parser.add_argument("--one-project", action="store_true",
                        help="every copy in one project folder (projects/one)")
    parser.add_argument("--corpus", type=Path, default=_DEFAULT_CORPUS)
    parser.add_argument("--add", type=Path, action="append", default=[], metavar="FILE",
                        help="also copy FILE into OUT/projects/added/ (repeatable)")
    parser.add_argument("--bench", action="store_true", help="time the runs (module doc)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--against", type=Path, metavar="TREE",
                        help="with --bench: time this tree against another source tree"
                             " (e.g. `git archive main wavemetrics`), runs interleaved")
    args = parser.parse_args()
    if not (args.bench and (args.out / "projects").is_dir()):
        count, size = make_fleet(args.out, args.corpus, args.copies, one_project=args.one_project)
        print(f"{args.out}: {count} files, {size / 1e6:.0f} MB")
    for path in args.add:
        added = args.out / "projects" / "added"
        added.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, added / path.name)
    if args.bench and args.against is not None:
        bench_against(args.out.resolve(), args.repeat, args.against.resolve())
    elif args.bench:
        bench(args.out, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
