"""Whole outputs are served again only when nothing they depend on changed; the store's
files: layout, replacement, the bound on their number, and a damaged or foreign file
never trusted."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.benchmark_modules import fleet_module
from tests.corpus import CORPUS, needs_corpus
from tests.event_traces import saving_trial
from wavemetrics.cache import runcache
from wavemetrics.cache.runcache import MAGIC, MAX_RUNS, RUNS_FOLDER, STALE_SECONDS, RunStore
from wavemetrics.cache.units import CACHE_FILE, ReadCache
from wavemetrics.cli.commands import main, summarize
from wavemetrics.run.plan import plan_of

#: Runs ``wavemetrics ARGS`` as the console script does, then writes the names of the
#: modules it imported to the file ``$RUNCACHE_MODULES``: a served run imports no click.
_HARNESS = """
import json, os, sys
sys.argv = ["wavemetrics", *sys.argv[1:]]
from wavemetrics.cli._entry import main
code = 0
try:
    main()
except SystemExit as stop:
    code = stop.code or 0
sys.stdout.flush()
sys.stderr.flush()
with open(os.environ["RUNCACHE_MODULES"], "w") as out:
    json.dump(sorted(sys.modules), out)
os._exit(code)
"""

#: Modules a served run must not import: click, attrs, msgspec, the readers, the native
#: engine's layer and the metric core (the mutation-gated modules). The extension itself
#: may load: it walks the folders a key covers (wavemetrics.inputs._walk).
_HEAVY = ("click", "attrs", "msgspec", "wavemetrics.readers",
          "wavemetrics.run.native", "wavemetrics.run.pipeline", "wavemetrics.core.observations",
          "wavemetrics.core.waves", "wavemetrics.core.classify", "wavemetrics.core.savings",
          "wavemetrics.core.histogram", "wavemetrics.core.summary", "wavemetrics.core.schema",
          "wavemetrics.core.turns", "wavemetrics.core.stream")


class Run:
    """One process's exit status, stdout and stderr bytes, and whether it was served."""

    def __init__(self, code: int, out: bytes, err: bytes, modules: list[str]) -> None:
        self.code, self.out, self.err, self.modules = code, out, err, modules

    @property
    def output(self) -> tuple[int, bytes, bytes]:
        return self.code, self.out, self.err

    @property
    def served(self) -> bool:
        # the native command (fastpath) runs without click too, but only after a miss
        return "click" not in self.modules and "wavemetrics.run.fastpath" not in self.modules


def _run(tmp: Path, *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None,
         cwd: Path | None = None) -> Run:
    modules = tmp / "modules.json"
    environment = {**os.environ, "RUNCACHE_MODULES": str(modules), "TZ": "UTC",
                   **(env or {})}
    done = subprocess.run(
        [sys.executable, "-c", _HARNESS, *args], env=environment, capture_output=True,
        input=stdin if stdin is not None else None,
        stdin=None if stdin is not None else subprocess.DEVNULL, cwd=cwd, check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr, json.loads(modules.read_text()))


def _runs(cache_dir: Path) -> int:
    """Outputs stored in the cache (0 when there is no cache file)."""
    store = ReadCache(cache_dir)
    try:
        return store.info().runs
    finally:
        store.close()


def _hex(number: int) -> str:
    """A key or scope as runcache makes them: 64 hex digits."""
    return f"{number:064x}"


def _stored_files(cache_dir: Path) -> dict[str, bytes]:
    """The stored outputs' files (runcache.RunStore) by name, with their bytes."""
    return {path.name: path.read_bytes() for path in (cache_dir / RUNS_FOLDER).iterdir()}


def _claude_files() -> list[Path]:
    project = CORPUS / "claude-code-log" / "-Users-dain-workspace-claude-code-log-sample"
    return sorted(project.glob("*.jsonl"))[:3]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A project folder of three real Claude Code transcripts copied from the corpus."""
    if not CORPUS.is_dir():
        pytest.skip(f"corpus absent: {CORPUS}")
    target = tmp_path / "projects" / "sample"
    target.mkdir(parents=True)
    for source in _claude_files():
        shutil.copy(source, target / source.name)
    assert len(list(target.iterdir())) == 3
    return tmp_path / "projects"


def _check_served(tmp: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    """A first run (stored), a second (served): the same bytes as ``--no-cache``."""
    plain = _run(tmp, "summarize", *args, "--no-cache", env=env)
    first = _run(tmp, "summarize", *args, env=env)
    second = _run(tmp, "summarize", *args, env=env)
    assert plain.code == 0
    assert not first.served and not plain.served
    assert second.served
    assert first.output == plain.output
    assert second.output == plain.output
    return second


# -- byte identity ------------------------------------------------------------------

@needs_corpus
@pytest.mark.parametrize("output_format", ["table", "json", "csv", "jsonl", "markdown"])
def test_a_served_run_prints_the_bytes_of_a_fresh_run_on_the_corpus(
    output_format: str, tmp_path: Path
) -> None:
    """On the corpus folders a run reads in full (some openhands and swe-agent files are
    refused, so runs with them are not kept),
    the served output, notes on stderr included, is byte for byte the --no-cache run's."""
    names = ("claude-code-log", "agentcmd", "localpush", "pi-mono", "any-agent", "inspect_ai",
             "openai-codex", "agent-sessions", "opentelemetry-proto")
    folders = [str(CORPUS / name) for name in names if (CORPUS / name).is_dir()]
    served = _check_served(tmp_path, "--format", output_format, *folders)
    assert served.err.count(b"wavemetrics: note:") >= 1  # stderr is served too


@needs_corpus
def test_a_run_with_an_input_error_is_never_kept(tmp_path: Path, private_cache: Path) -> None:
    """The openhands files fail to read (exit 1): such a run is computed every time."""
    args = ("summarize", str(CORPUS / "openhands"))
    first, second = _run(tmp_path, *args), _run(tmp_path, *args)
    assert (first.code, second.code) == (1, 1)
    assert not second.served
    assert _runs(private_cache) == 0


def test_an_empty_folder_run_is_kept_until_something_appears_in_it(tmp_path: Path) -> None:
    """An empty folder exits 0 (an empty input), so its output is served again; a file
    that appears deep in it, trace or not, makes the next run a fresh read (exit 1 for
    a file that is no trace)."""
    folder = tmp_path / "traces"
    (folder / "a" / "b").mkdir(parents=True)
    first = _check_served(tmp_path, str(folder))
    assert first.err == f"wavemetrics: note: {folder}: empty folder (no files in it)\n".encode()
    (folder / "a" / "b" / "readme.txt").write_text("notes\n", encoding="utf-8")
    after = _run(tmp_path, "summarize", str(folder))
    assert not after.served
    assert after.code == 1
    assert after.err.startswith(f"wavemetrics: error: {folder}: no trace files".encode())


@needs_corpus
def test_a_served_run_on_a_fleet_folder_prints_the_bytes_of_a_fresh_run(tmp_path: Path) -> None:
    """On a fleet folder (benchmarks/fleet.py, 2 copies), table and --by project JSON runs
    are served byte-identical to --no-cache runs, importing no heavy module."""
    files, _ = fleet_module().make_fleet(tmp_path / "fleet", CORPUS, 2)
    assert files > 20
    projects = str(tmp_path / "fleet" / "projects")
    table = _check_served(tmp_path, projects)
    assert [name for name in table.modules if name.startswith(_HEAVY)] == []
    _check_served(tmp_path, "--by", "project", "--format", "json", projects)


# -- what misses ------------------------------------------------------------------

def _touch(path: Path) -> None:
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))


def _append(path: Path) -> None:
    with path.open("a") as out:
        out.write("\n")


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 1])


def _replace(path: Path) -> None:
    """A new file (new inode) of the same size and modification time."""
    info = path.stat()
    twin = path.with_suffix(".new")
    shutil.copy(path, twin)
    os.utime(twin, ns=(info.st_atime_ns, info.st_mtime_ns))
    os.replace(twin, path)


def _add(path: Path) -> None:
    shutil.copy(path, path.with_name("added-" + path.name))


def _remove(path: Path) -> None:
    path.unlink()


@needs_corpus
@pytest.mark.parametrize("change", [_touch, _append, _truncate, _replace, _add, _remove],
                         ids=lambda change: change.__name__.strip("_"))
def test_any_change_to_one_input_file_is_a_miss(
    change: Any, folder: Path, tmp_path: Path
) -> None:
    """Touching, appending to, truncating, replacing, adding or removing one file: the next
    run is computed again (not served), prints what --no-cache prints, and is kept."""
    args = ("--format", "json", str(folder))
    _check_served(tmp_path, *args)
    change(sorted((folder / "sample").iterdir())[1])
    after = _run(tmp_path, "summarize", *args)
    assert not after.served
    assert after.output == _run(tmp_path, "summarize", *args, "--no-cache").output
    assert _run(tmp_path, "summarize", *args).served


@needs_corpus
@pytest.mark.parametrize("extra", [
    ["--format", "json"], ["--max-tracked-calls", "5"], ["--eval-tool", "Bash"],
    ["--by", "session"], ["--show-paths"], ["--since", "2020-01-01"],
])
def test_a_changed_option_is_a_miss(extra: list[str], folder: Path, tmp_path: Path) -> None:
    """Served for the default options, a run with one option changed is computed again."""
    _check_served(tmp_path, str(folder))
    changed = _run(tmp_path, "summarize", *extra, str(folder))
    assert not changed.served
    assert changed.output == _run(tmp_path, "summarize", *extra, str(folder),
                                  "--no-cache").output


@needs_corpus
def test_a_changed_time_zone_is_a_miss(folder: Path, tmp_path: Path) -> None:
    """--by day in UTC is served; under TZ=Asia/Tokyo it is computed again (days move)."""
    _check_served(tmp_path, "--by", "day", str(folder))
    tokyo = _run(tmp_path, "summarize", "--by", "day", str(folder), env={"TZ": "Asia/Tokyo"})
    assert not tokyo.served
    assert tokyo.output == _run(tmp_path, "summarize", "--by", "day", str(folder), "--no-cache",
                                env={"TZ": "Asia/Tokyo"}).output


@needs_corpus
def test_jobs_and_engine_share_the_output_of_the_defaults(folder: Path, tmp_path: Path) -> None:
    """--jobs and --engine never change the bytes, so they are not keyed: served."""
    _check_served(tmp_path, str(folder))
    assert _run(tmp_path, "summarize", "-j", "1", "--engine", "python", str(folder)).served


# -- what is never kept, never read --------------------------------------------------

@needs_corpus
def test_stdin_is_never_kept(tmp_path: Path, private_cache: Path) -> None:
    """A trace piped to stdin, as ``-`` or with no PATH, is read each time and never kept."""
    data = _claude_files()[0].read_bytes()
    for args in (["summarize", "-"], ["summarize"]):
        runs = [_run(tmp_path, *args, stdin=data) for _ in range(2)]
        assert [r.code for r in runs] == [0, 0]
        assert not runs[1].served
        assert runs[0].output == runs[1].output
    assert _runs(private_cache) == 0


@needs_corpus
def test_no_cache_neither_reads_nor_writes_stored_outputs(
    folder: Path, tmp_path: Path, private_cache: Path
) -> None:
    """--no-cache creates no cache; with an output stored it is not served nor replaced."""
    _run(tmp_path, "summarize", "--no-cache", str(folder))
    assert not (private_cache / CACHE_FILE).exists()
    assert not (private_cache / RUNS_FOLDER).exists()
    _check_served(tmp_path, str(folder))
    before = _stored_files(private_cache)
    assert len(before) == 1
    _add(sorted((folder / "sample").iterdir())[0])
    assert not _run(tmp_path, "summarize", "--no-cache", str(folder)).served
    assert _stored_files(private_cache) == before


@needs_corpus
def test_a_damaged_stored_output_is_dropped_and_the_run_computed(
    folder: Path, tmp_path: Path, private_cache: Path
) -> None:
    """A stored output whose blob no longer matches its digest is not served: the run is
    computed (the --no-cache bytes) and a sound output stored in its place."""
    served = _check_served(tmp_path, str(folder))
    (stored,) = (private_cache / RUNS_FOLDER).iterdir()
    data = stored.read_bytes()
    stored.write_bytes(data[:-6] + b"forged")  # the head (and its digest) kept
    again = _run(tmp_path, "summarize", str(folder))
    assert not again.served
    assert again.output == served.output
    assert _runs(private_cache) == 1
    assert _run(tmp_path, "summarize", str(folder)).served


def test_cache_info_counts_stored_outputs_and_clear_removes_them(
    private_cache: Path, tmp_path: Path
) -> None:
    """``cache info`` counts the stored outputs; ``cache clear`` removes them with the rest."""
    store = ReadCache(private_cache)
    k1, k2, k3, s1, s2 = (_hex(n) for n in range(5))
    assert store.store_run(k1, s1, runcache.encode_output(0, [(1, b"a\n")]))
    assert store.store_run(k2, s2, runcache.encode_output(0, [(1, b"b\n")]))
    assert store.store_run(k3, s1, runcache.encode_output(0, [(1, b"c\n")]))  # replaces k1
    result = CliRunner().invoke(main, ["cache", "info"])
    assert "whole outputs (summarize, statusline): 2 runs" in result.stdout.splitlines()
    assert store.load_run(k1, s1) is None
    assert store.load_run(k3, s1) == runcache.encode_output(0, [(1, b"c\n")])
    CliRunner().invoke(main, ["cache", "clear"])
    assert ReadCache(private_cache).info().runs == 0
    assert ReadCache(private_cache).load_run(k2, s2) is None
    assert not (private_cache / RUNS_FOLDER).exists()


def test_cache_info_of_a_cache_with_only_stored_outputs(private_cache: Path) -> None:
    """The native command stores whole outputs without creating the database: ``cache
    info`` still counts them, and their bytes."""
    store = ReadCache(private_cache)
    assert store.store_run(_hex(1), _hex(2), b"0123456789")
    info = store.info()
    assert not (private_cache / CACHE_FILE).exists()
    # the file: 8 bytes of magic, the 64-digit key, a 16-byte digest, the 10 bytes
    assert (info.exists, info.runs, info.size_bytes) == (True, 1, 8 + 64 + 16 + 10)
    assert "whole outputs (summarize, statusline): 1 run" in CliRunner().invoke(
        main, ["cache", "info"]).stdout.splitlines()
    assert store.clear()
    assert ReadCache(private_cache).info().exists is False


def test_at_most_max_runs_outputs_are_kept(private_cache: Path) -> None:
    """Past MAX_RUNS commands, the oldest stored output goes."""
    from wavemetrics.cache.units import MAX_RUNS

    store = ReadCache(private_cache)
    for number in range(MAX_RUNS + 2):
        store.store_run(_hex(number), _hex(1000 + number), b"x")
    assert store.info().runs == MAX_RUNS
    assert store.load_run(_hex(0), _hex(1000)) is None
    assert store.load_run(_hex(1), _hex(1001)) is None
    assert store.load_run(_hex(2), _hex(1002)) == b"x"
    assert store.load_run(_hex(MAX_RUNS + 1), _hex(1000 + MAX_RUNS + 1)) == b"x"


# -- the parts ------------------------------------------------------------------------

def test_the_stored_form_round_trips_and_refuses_damage() -> None:
    """encode_output/decode_output keep the status and the chunks in order; a cut or
    lengthened blob is refused with ValueError."""
    chunks = [(2, b"wavemetrics: reading x\n"), (1, b"{}\n"), (2, b"")]
    blob = runcache.encode_output(1, chunks)
    assert runcache.decode_output(blob) == (1, chunks)
    for damaged in (blob[:-1], blob + b"x", b"\x00" * 3):
        with pytest.raises(ValueError):
            runcache.decode_output(damaged)


@pytest.mark.parametrize("args", [
    [],
    ["a", "b"],
    ["--format", "json", "x"],
    ["--format=csv", "x", "--by", "day", "y"],
    ["-j2", "--engine", "python", "x"],
    ["-j", "3", "--jobs=4", "x"],
    ["--eval-tool", "A", "--eval-tool=B", "x"],
    ["--max-tracked-calls", "0", "--max-line-bytes", "10", "--max-document-bytes=20", "x"],
    ["--max-tracked-calls", "7", "--since", "2025-01-01", "--until", "2025-02-01", "x"],
    ["--timezone", "Europe/Paris", "--show-paths", "--demo"],
    ["--no-cache", "--input-format", "claude-code", "x"],
    ["--format", "json", "--format", "table", "x"],
    ["--batchable-tools", "Read, Grep", "--idle-gap=0.5", "x"],
    ["--batchable-tools=", "--idle-gap", "0", "--idle-gap", "1e2", "x"],
    ["-"],  # stdin: a path (never keyed: the run has no key)
    ["--format", "json", "x", "-", "-j2"],
])
def test_the_fast_parser_reads_options_as_click_does(args: list[str]) -> None:
    """options_from_args gives, for a valid command line, the options click converts
    (options_from_click): the stored and the looked-up keys are the same."""
    ctx = summarize.make_context("summarize", list(args))
    assert runcache.options_from_args(args) == runcache.options_from_click(ctx)


@pytest.mark.parametrize("args", [
    ["--", "x"], ["--help"], ["-h"], ["--jobs", "0", "x"], ["-jx", "x"],
    ["--engine", "rust", "x"], ["--bogus", "x"], ["--format"], ["--max-line-bytes", "0"],
    ["--max-tracked-calls", "-1"], ["--idle-gap", "-1", "x"], ["--idle-gap=nan", "x"],
    ["--idle-gap", "abc", "x"], ["--idle-gap"],
])
def test_the_fast_parser_leaves_anything_unusual_to_click(args: list[str]) -> None:
    """``--``, help, an unknown option or a value click would refuse: no lookup."""
    assert runcache.options_from_args(args) is None


def test_the_walk_reads_the_suffixes_the_readers_read() -> None:
    """The trace and sidecar suffixes keyed are those of readers.sources: one definition,
    in wavemetrics.inputs._suffixes (the eight trace suffixes of docs/cli.md, SWE-agent's ``.traj``
    among them, and ``.meta.json``), used by the readers' walk in wavemetrics.inputs._files."""
    from wavemetrics.inputs import _files as sources
    from wavemetrics.inputs import _suffixes

    assert _suffixes.TRACE_SUFFIXES == (
        ".jsonl", ".json", ".jsonl.gz", ".json.gz", ".eval", ".traj", ".db", ".sqlite")
    assert _suffixes.SKIPPED_SUFFIXES == (".meta.json",)
    assert runcache.TRACE_SUFFIXES is sources.TRACE_SUFFIXES is _suffixes.TRACE_SUFFIXES
    assert runcache.SKIPPED_SUFFIXES is sources.SKIPPED_SUFFIXES is _suffixes.SKIPPED_SUFFIXES


def test_the_demo_is_served(tmp_path: Path) -> None:
    """``--demo`` is keyed on the bundled example's path as the command resolves it."""
    _check_served(tmp_path, "--demo")


@needs_corpus
def test_a_new_subagents_folder_beside_a_file_named_alone_is_a_miss(
    folder: Path, tmp_path: Path
) -> None:
    """A session file named alone is served until ``<session>/subagents/`` appears beside
    it: then the run is computed again, with the note that those files were not read."""
    session = sorted((folder / "sample").iterdir())[0]
    _check_served(tmp_path, str(session))
    agents = session.with_suffix("") / "subagents"
    agents.mkdir(parents=True)
    shutil.copy(sorted((folder / "sample").iterdir())[1], agents / "agent-a1.jsonl")
    after = _run(tmp_path, "summarize", str(session))
    assert not after.served
    assert b"were not read; pass the project folder" in after.err


def test_no_path_resolves_the_standard_locations_as_the_command_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no PATH on a terminal, the inputs keyed are the standard locations the
    command reads: ``$CLAUDE_CONFIG_DIR/projects`` here."""
    from wavemetrics.cli.commands import _resolve_paths

    (tmp_path / "projects").mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    expected = [str(tmp_path / "projects")]
    assert runcache.resolve_files({"paths": []}) == expected
    assert _resolve_paths((), False) == expected


def test_piped_stdin_and_no_path_reads_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no PATH and data piped in, the command reads stdin (``-``), as the CLI does;
    a run that reads it is never keyed."""
    from wavemetrics.inputs import _stdin

    monkeypatch.setattr(_stdin, "stdin_has_data", lambda: True)
    assert runcache.resolve_files({"paths": []}) == ["-"]
    assert runcache.run_state({"paths": []}, ["-"]) is None


def _run_on_terminal(tmp: Path, *args: str) -> tuple[Run, bytes]:
    """``_run`` with stdout and stderr on one pseudo-terminal: the run and what it drew."""
    import pty

    modules = tmp / "modules.json"
    primary, secondary = pty.openpty()
    env = {**os.environ, "RUNCACHE_MODULES": str(modules), "TZ": "UTC"}
    process = subprocess.Popen([sys.executable, "-c", _HARNESS, *args], env=env,
                               stdin=subprocess.DEVNULL, stdout=secondary, stderr=secondary)
    os.close(secondary)
    drawn = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        drawn += chunk
    code = process.wait()
    os.close(primary)
    return Run(code, drawn, b"", json.loads(modules.read_text())), drawn


@needs_corpus
def test_the_progress_bar_is_not_kept_and_a_served_run_draws_none(
    folder: Path, tmp_path: Path
) -> None:
    """On a terminal, a read of 20+ files draws a progress bar; the output kept leaves it
    out, so the served run on the same terminal prints the table without any bar."""
    source = sorted((folder / "sample").iterdir())
    for number in range(21):
        shutil.copy(source[number % 3], folder / "sample" / f"copy-{number:02d}.jsonl")
    first, drawn = _run_on_terminal(tmp_path, "summarize", str(folder))
    assert not first.served
    assert b"reading " in drawn and b"files" in drawn  # the bar's label
    second, served = _run_on_terminal(tmp_path, "summarize", str(folder))
    assert second.served
    assert second.code == first.code == 0
    assert b"reading " not in served
    assert b"\x1b[1A" not in served  # nor the line the bar clears
    # what was drawn after the bar was cleared (notes, then the table) is what is served
    assert b"wavemetrics: note:" in served and b"session" in served
    assert drawn.endswith(served)


@needs_corpus
def test_a_run_whose_input_changed_while_it_read_is_not_kept(
    folder: Path, private_cache: Path
) -> None:
    """Keyed before the read, a run is kept only if the inputs are the same at its end and
    it completed (status 0)."""
    options = runcache.options_from_args([str(folder)])
    assert options is not None
    store = ReadCache(private_cache)
    unchanged = runcache.Recording(options)
    unchanged.inputs([str(folder)])
    assert not unchanged.store(store)  # not complete
    unchanged.complete = True
    assert unchanged.store(store)
    changed = runcache.Recording({**options, "show_paths": True})
    changed.inputs([str(folder)])
    changed.complete = True
    _append(sorted((folder / "sample").iterdir())[2])
    assert not changed.store(store)
    assert store.info().runs == 1


@needs_corpus
def test_a_file_added_to_a_walked_folder_while_the_run_read_is_not_kept(
    folder: Path, private_cache: Path
) -> None:
    """The check after the read compares the whole walk again (the folders' names too,
    not only the files keyed before): a trace file that appeared during the read stops
    the run from being kept, and so does one that went away."""
    options = runcache.options_from_args([str(folder)])
    assert options is not None
    store = ReadCache(private_cache)
    added = runcache.Recording(options)
    added.inputs([str(folder)])
    added.complete = True
    first = sorted((folder / "sample").iterdir())[0]
    shutil.copy(first, folder / "sample" / "new.jsonl")
    assert not added.store(store)
    removed = runcache.Recording(options)
    removed.inputs([str(folder)])
    removed.complete = True
    (folder / "sample" / "new.jsonl").unlink()
    assert not removed.store(store)
    assert store.info().runs == 0


@needs_corpus
def test_the_key_of_the_lookup_is_checked_again_after_the_read(
    folder: Path, private_cache: Path
) -> None:
    """A run keyed by the lookup that missed just before it (no second walk before the
    read) still has its inputs compared after the read: a file changed meanwhile is not
    kept; unchanged, the run is kept under the lookup's key."""
    args = [str(folder)]
    plan = plan_of(args)
    assert plan is not None
    options = plan.options
    store = ReadCache(private_cache)
    assert runcache.serve(plan) is None  # nothing stored: a miss, its key kept in the plan
    changed = runcache.Recording(options, plan)
    changed.inputs(args)
    assert changed.key == runcache.run_key(options, args)
    assert (changed.key, changed.parts) == plan.state()
    changed.complete = True
    _append(sorted((folder / "sample").iterdir())[1])
    assert not changed.store(store)
    again = plan_of(args)
    assert again is not None
    assert runcache.serve(again) is None  # still nothing stored
    kept = runcache.Recording(options, again)
    kept.inputs(args)
    kept.complete = True
    assert kept.store(store)
    assert store.info().runs == 1


@needs_corpus
def test_the_read_takes_the_stats_of_the_key_walk(folder: Path, private_cache: Path) -> None:
    """The run key's walk takes each trace file's key as ``cache.file_key`` would take it
    (absolute path, size, mtime_ns, inode): what the click command hands its read."""
    from wavemetrics.cache.units import file_key, walked_keys

    options = runcache.options_from_args([str(folder)])
    assert options is not None
    store = ReadCache(private_cache)
    with runcache.record(options, store) as run:
        run.inputs([str(folder)])
        assert run.parts is not None
        walked = walked_keys(run.parts[1])
    files = sorted(str(p) for p in (folder / "sample").iterdir())
    assert walked == {path: file_key(path) for path in files}


@needs_corpus
def test_a_file_changed_between_the_key_walk_and_the_read_is_not_cached(
    folder: Path, private_cache: Path
) -> None:
    """Keys taken by the walk before the read are checked after the read like the
    read's own: a file appended to after the walk gets neither a stored detection nor a
    stored unit (its folder's), and the read sees its new line."""
    from wavemetrics.cache.units import walked_keys
    from wavemetrics.run.pipeline import StreamSettings, read_inputs

    options = runcache.options_from_args([str(folder)])
    assert options is not None
    parts = runcache.fingerprint(options, [str(folder)])
    assert parts is not None
    store = ReadCache(private_cache)
    files = sorted(str(p) for p in (folder / "sample").iterdir())
    before = {path: Path(path).read_bytes().count(b"\n") for path in files}
    _append(Path(files[0]))  # a blank line: read, ignored, counted
    outcome = read_inputs([str(folder)], stream=StreamSettings(engine="native"), cache=store,
                          walked=walked_keys(parts[1]))
    assert {r.path: r.lines_read for r in outcome.inputs} == {
        path: before[path] + (path == files[0]) for path in files}
    info = store.info()
    assert (info.detections, info.summaries) == (2, 0)


def _own_folder(tmp_path: Path) -> Path:
    """A folder of one written Claude Code trace (no corpus needed)."""
    from tests.golden_cases import EXAMPLE

    folder = tmp_path / "own"
    folder.mkdir()
    (folder / "demo.jsonl").write_bytes(EXAMPLE.read_bytes())
    return folder


def test_the_check_walk_on_a_thread_gives_the_fingerprint(tmp_path: Path) -> None:
    """``Again`` takes the same fingerprint as a walk now, on its thread; a change made
    before it starts shows in it; a failing walk gives ``None``."""
    folder = _own_folder(tmp_path)
    options = runcache.options_from_args(["--format", "json", str(folder)])
    assert options is not None
    before = runcache.fingerprint(options, [str(folder)])
    assert before is not None
    assert runcache.Again(options, [str(folder)]).result() == before
    again = runcache.Again(options, [str(folder)])
    assert again.result() == again.result() == before  # waits once, answers again
    _append(folder / "demo.jsonl")
    assert runcache.Again(options, [str(folder)]).result() != before
    never = runcache.options_from_args(["--format", "json", "--no-cache", str(folder)])
    assert never is not None
    assert runcache.Again(never, [str(folder)]).result() is None


def test_a_failing_check_walk_stores_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _own_folder(tmp_path)
    options = runcache.options_from_args(["--format", "json", str(folder)])
    assert options is not None
    state = runcache.run_state(options, [str(folder)])
    assert state is not None

    def fails(*_: Any) -> None:
        raise OSError("gone")

    def breaks(*_: Any) -> None:
        raise RuntimeError("a bug in the walk")

    store = RunStore(str(tmp_path / "runs"))
    with monkeypatch.context() as patched:
        patched.setattr(runcache, "fingerprint", fails)
        again = runcache.Again(options, [str(folder)])
        assert not runcache.store_unchanged(store, options, [str(folder)], state,
                                            [(1, b"out")], again)
        assert not runcache.store_unchanged(store, options, [str(folder)], state,
                                            [(1, b"out")])
        # any other failure in the thread: not stored either, and nothing printed
        patched.setattr(runcache, "fingerprint", breaks)
        again = runcache.Again(options, [str(folder)])
        assert again.result() is None
        assert not runcache.store_unchanged(store, options, [str(folder)], state,
                                            [(1, b"out")], again)
    assert store.count() == 0
    # a check not started is not waited for; started twice, it runs once
    idle = runcache.Again(options, [str(folder)], start=False)
    assert idle.result() is None
    idle.start()
    idle.start()
    assert idle.result() == state[1]
    # unchanged, with the check on a thread: stored under the key taken before
    again = runcache.Again(options, [str(folder)])
    assert runcache.store_unchanged(store, options, [str(folder)], state, [(1, b"out")], again)
    key, scope = state[0]
    assert store.load(key, scope) == runcache.encode_output(0, [(1, b"out")])
    # changed before the check: not stored
    _append(folder / "demo.jsonl")
    store.clear()
    again = runcache.Again(options, [str(folder)])
    assert not runcache.store_unchanged(store, options, [str(folder)], state, [(1, b"x")], again)
    assert store.count() == 0


def test_the_head_of_a_key_is_hashed_as_its_repr() -> None:
    """The head's text (no json import): the value's repr as UTF-8, which tells apart
    values json would also tell apart, and lone surrogates (names that are not UTF-8)."""
    assert runcache._text(["a", 1, None, True, ["b"]]) == b"['a', 1, None, True, ['b']]"
    assert runcache._text(["x\udcff"]) == b"['x\\udcff']"
    assert runcache._text(["é"]) == "['é']".encode()
    texts = [runcache._text(v) for v in ([1], ["1"], [True], [None], ["None"], [1.0])]
    assert len(set(texts)) == len(texts)
    assert runcache._text(["a", "b"]) != runcache._text(["a, b"])


@pytest.mark.skipif(os.name == "nt", reason="POSIX file names are bytes")
@pytest.mark.parametrize("named", [True, False])
def test_a_file_name_that_is_not_utf8_is_served_the_bytes_of_a_fresh_run(
    tmp_path: Path, named: bool,
) -> None:
    """``a\\xf5.jsonl`` (valid events), named or in a folder: the whole-output cache keeps
    and serves the run (its key holds the name's bytes), byte for byte the --no-cache
    run's, with the name escaped in the table (``a\\xf5``)."""
    folder = tmp_path / "traces"
    trace = saving_trial(folder / os.fsdecode(b"a\xf5.jsonl"), 30)
    served = _check_served(tmp_path, str(trace) if named else str(folder))
    assert b"a\\xf5 " in served.out


# -- the store on disk ---------------------------------------------------------
def _file_of(key: str, blob: bytes) -> bytes:
    """The layout, spelled out: magic, the key's 64 ASCII digits, 16 bytes of SHA-256,
    the output."""
    return MAGIC + key.encode() + hashlib.sha256(blob).digest()[:16] + blob


def test_an_output_is_one_file_named_by_its_command(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path / "runs"))
    assert store.store(_hex(1), _hex(2), b"out\n")
    assert os.listdir(tmp_path / "runs") == [_hex(2)]
    assert (tmp_path / "runs" / _hex(2)).read_bytes() == _file_of(_hex(1), b"out\n")
    assert store.load(_hex(1), _hex(2)) == b"out\n"
    assert store.load(_hex(1), _hex(3)) is None  # another command: nothing stored
    assert (store.count(), store.size()) == (1, 8 + 64 + 16 + 4)


def test_a_new_state_of_the_command_replaces_its_output(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path))
    assert store.store(_hex(1), _hex(9), b"old")
    assert store.load(_hex(5), _hex(9)) is None  # a miss: the file is sound and kept
    assert (tmp_path / _hex(9)).read_bytes() == _file_of(_hex(1), b"old")
    assert store.store(_hex(5), _hex(9), b"new")
    assert store.load(_hex(1), _hex(9)) is None
    assert store.load(_hex(5), _hex(9)) == b"new"
    assert os.listdir(tmp_path) == [_hex(9)]  # no temporary file left


def test_an_empty_output_round_trips(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path))
    assert store.store(_hex(1), _hex(2), b"")
    assert store.load(_hex(1), _hex(2)) == b""


def test_a_damaged_or_foreign_file_is_deleted_not_served(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path))
    path = tmp_path / _hex(2)
    cases = {
        "flipped output byte": _file_of(_hex(1), b"output")[:-1] + b"X",
        "flipped digest byte": (lambda d: d[:80] + bytes([d[80] ^ 1]) + d[81:])(
            _file_of(_hex(1), b"output")),
        "cut in the head": _file_of(_hex(1), b"output")[:50],
        "no magic": b"x" * 100,
        "another layout version": MAGIC[:-1] + b"\x02" + _file_of(_hex(1), b"o")[8:],
        "a key that is not hex": MAGIC + b"z" * 64 + b"\x00" * 16 + b"o",
        "empty": b"",
    }
    for name, data in cases.items():
        path.write_bytes(data)
        assert store.load(_hex(1), _hex(2)) is None, name
        assert not path.exists(), name


def test_names_that_are_not_64_hex_digits_are_never_files(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path / "runs"))
    for key, scope in ((_hex(1), "../x"), (_hex(1), "ab"), ("k", _hex(2)),
                       (_hex(1), _hex(0xABC).upper()), (_hex(1), _hex(2) + "0")):
        assert not store.store(key, scope, b"x")
        assert store.load(key, scope) is None
    assert not (tmp_path / "runs").exists()
    assert store.count() == 0 and store.size() == 0 and not store.clear()


def test_at_most_max_runs_outputs_the_least_recently_stored_go(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path))
    for number in range(MAX_RUNS):
        assert store.store(_hex(number), _hex(100 + number), b"x")
    assert store.count() == MAX_RUNS
    assert store.store(_hex(0), _hex(100), b"again")  # the first command, stored again
    assert store.store(_hex(MAX_RUNS), _hex(100 + MAX_RUNS), b"x")  # one too many
    assert store.count() == MAX_RUNS
    assert store.load(_hex(1), _hex(101)) is None  # the least recently stored went
    assert store.load(_hex(0), _hex(100)) == b"again"
    assert store.load(_hex(2), _hex(102)) == b"x"
    assert store.load(_hex(MAX_RUNS), _hex(100 + MAX_RUNS)) == b"x"


def test_a_stale_temporary_file_is_removed_by_the_next_store(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path))
    stale, fresh = tmp_path / f".{_hex(7)}.1.1", tmp_path / f".{_hex(8)}.2.2"
    stale.write_bytes(b"cut")
    fresh.write_bytes(b"being written")
    old = time.time_ns() - (STALE_SECONDS + 60) * 10**9
    os.utime(stale, ns=(old, old))
    assert store.store(_hex(1), _hex(2), b"x")
    assert sorted(os.listdir(tmp_path)) == sorted([fresh.name, _hex(2)])
    assert store.count() == 1  # a temporary file is no output
    assert store.size() == len(b"being written") + 8 + 64 + 16 + 1


def test_a_store_that_cannot_write_fails_quietly_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"")
    assert not RunStore(str(tmp_path / "file" / "runs")).store(_hex(1), _hex(2), b"x")
    store = RunStore(str(tmp_path / "runs"))
    (tmp_path / "runs" / _hex(2)).mkdir(parents=True)  # the name taken by a folder
    assert not store.store(_hex(1), _hex(2), b"x")
    assert os.listdir(tmp_path / "runs") == [_hex(2)]  # the temporary file removed
    assert store.load(_hex(1), _hex(2)) is None  # a folder is not read


def test_clear_removes_every_file_and_the_folder(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path / "runs"))
    assert store.store(_hex(1), _hex(2), b"x")
    (tmp_path / "runs" / ".partial").write_bytes(b"y")
    assert store.clear()
    assert not (tmp_path / "runs").exists()
    assert not store.clear()


def test_the_cache_folder_s_bytes_count_its_files_and_the_outputs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound is checked on the folder's own files (database, journal) plus the outputs
    folder's: a 100-byte database and a 12-byte output's file (88 + 12 = 100 bytes) are
    200 bytes; past the bound only when it is below 200, never with the bound 0 (none)."""
    from wavemetrics.cache._cachedir import MAX_BYTES_ENV
    from wavemetrics.cache.runcache import cache_bytes

    (tmp_path / "cache.sqlite3").write_bytes(b"d" * 100)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "other").write_bytes(b"o" * 1000)  # not the cache's: not counted
    store = RunStore(str(tmp_path / RUNS_FOLDER))
    assert store.store(_hex(1), _hex(2), b"0123456789ab")
    assert store.directory == str(tmp_path)
    assert cache_bytes(str(tmp_path)) == 200
    for bound, over in (("199", True), ("200", False), ("0", False)):
        monkeypatch.setenv(MAX_BYTES_ENV, bound)
        assert store.over_bound() is over


def test_the_run_key_covers_every_folder_of_the_package() -> None:
    """A stored output is keyed on every source file of the package, whichever folder
    holds it (a change to the metric core must miss, not serve an old output), and the
    bundled example; names are relative to the package folder."""
    names = {entry[0] for entry in runcache._package()}
    for name in ("__init__.py", os.path.join("core", "waves.py"),
                 os.path.join("readers", "claude_code.py"), os.path.join("cache", "runcache.py"),
                 os.path.join("cli", "commands.py"), os.path.join("examples",
                                                              "claude-code-demo.jsonl")):
        assert name in names, name
    assert not any(name.startswith("..") for name in names)


def test_a_store_is_known_by_suffix_or_header_and_a_pipe_is_never_opened(
        tmp_path: Path) -> None:
    """``may_be_store``: a ``.db``/``.sqlite`` name, or a regular file of any name that
    starts with the SQLite header; a named pipe is not opened (it would block, and a
    pipe is read once, by the run)."""
    from wavemetrics.inputs._suffixes import may_be_store

    header = b"SQLite format 3\x00" + bytes(84)
    (tmp_path / "store.bin").write_bytes(header)
    (tmp_path / "trace.jsonl").write_bytes(b'{"type":"turn_start","timestamp":1}\n')
    (tmp_path / "short.bin").write_bytes(header[:15])
    os.mkfifo(tmp_path / "live.jsonl")
    assert [may_be_store(str(tmp_path / name)) for name in (
        "a.db", "a.sqlite", "store.bin", "trace.jsonl", "short.bin", "live.jsonl",
        "missing.jsonl")] == [True, True, True, False, False, False, False]
