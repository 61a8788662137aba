"""The entry-point golden cases: what a user's shell sees, on every corpus input, both engines.

The architecture rebuild (one ``summarize`` path, three caches, layers as
folders) must change no byte that users see. These cases run the real console
entry point (``python -m wavemetrics``: the served path, the native command and
the click commands, whichever takes the run) in a fresh process, and record exit
code, stdout and stderr of:

- ``summarize --format json``, ``--format csv`` and ``--by session`` (the table),
  each under ``--engine native`` and ``--engine python``: one recorded output that
  both engines must print;
- ``summarize --format json`` once more on the same cache folder (served from the
  stored outputs, or read from the per-unit entries): the same bytes again;
- ``waves --format json``;
- ``statusline`` given the file as its transcript, cold and then warm;

on every corpus file, every corpus folder (the corpus root included) and the
bundled example. ``scripts/record_entry_golden.py`` records them into
``tests/golden/entry_outputs.json``; ``tests/test_golden_entry.py`` compares.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.corpus import CORPUS
from tests.golden_cases import EXAMPLE, corpus_files

ENTRY_GOLDEN = Path(__file__).resolve().parent / "golden" / "entry_outputs.json"

#: (variant name, arguments after the input path's command): each summarize variant runs
#: on both engines.
_SUMMARIZE = {
    "json": ["--format", "json"],
    "csv": ["--format", "csv"],
    "by-session": ["--by", "session"],
}
ENGINES = ("native", "python")


def corpus_folders() -> list[str]:
    """Every folder of the corpus that holds a trace file below it, relative, sorted."""
    files = corpus_files()
    folders = {"."}
    for rel in files:
        parts = rel.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folders.add("/".join(parts[:depth]))
    return sorted(folders)


def inputs() -> list[tuple[str, Path, str]]:
    """(case label, working directory, path argument) for every input."""
    found = [(rel, CORPUS, rel) for rel in corpus_files() + corpus_folders()]
    found.append(("<example>", EXAMPLE.parent, EXAMPLE.name))
    return found


def _run(args: list[str], cwd: Path, cache: str, stdin: str | None = None) -> dict[str, object]:
    env = dict(os.environ, WAVEMETRICS_CACHE_DIR=cache, TZ="UTC", LC_ALL="C.UTF-8")
    env.pop("COLUMNS", None)
    done = subprocess.run(
        [sys.executable, "-m", "wavemetrics", *args], cwd=cwd, env=env, input=stdin,
        capture_output=True, text=True, check=False,
    )
    corpus = str(CORPUS.resolve())
    return {
        "exit_code": done.returncode,
        "stdout": done.stdout.replace(corpus, "<corpus>"),
        "stderr": done.stderr.replace(corpus, "<corpus>"),
    }


def _input_outputs(label: str, cwd: Path, path: str) -> Iterator[tuple[str, str, dict[str, object]]]:
    """(case name, engine or "", output) for one input; engine-specific runs share a name."""
    with tempfile.TemporaryDirectory() as native_cache, tempfile.TemporaryDirectory() as py_cache:
        for variant, extra in _SUMMARIZE.items():
            for engine, cache in (("native", native_cache), ("python", py_cache)):
                name = f"summarize {variant} {label}"
                args = ["summarize", *extra, "--engine", engine, path]
                yield name, engine, _run(args, cwd, cache)
        for engine, cache in (("native", native_cache), ("python", py_cache)):
            args = ["summarize", "--format", "json", "--engine", engine, path]
            yield f"summarize json {label}", f"{engine} again", _run(args, cwd, cache)
        yield f"waves json {label}", "", _run(["waves", "--format", "json", path], cwd, py_cache)
        if Path(cwd, path).is_file():
            transcript = json.dumps({"transcript_path": str(Path(cwd, path).resolve())})
            with tempfile.TemporaryDirectory() as status_cache:
                for when in ("cold", "warm"):
                    yield f"statusline {label}", when, _run(
                        ["statusline"], cwd, status_cache, stdin=transcript)


def run_all(jobs: int | None = None) -> list[tuple[str, str, dict[str, object]]]:
    """Every (case name, run, output) of every input, inputs run ``jobs`` at a time."""
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        results = pool.map(lambda item: list(_input_outputs(*item)), inputs())
        return [row for rows in results for row in rows]
