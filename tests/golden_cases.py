"""The golden cases: ``summarize`` and ``waves`` JSON on every corpus file and the example.

The architecture refactor (readers behind one protocol) had to change no byte of what users see:
``scripts/record_golden.py`` recorded these outputs on main before the refactor
(commit named in ``tests/golden/outputs.json``), and ``tests/test_golden.py``
compares today's output with them. A change that is meant to alter an output
(a new reader or output rule) re-records with the script and says which
case changed and why in its commit message.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from click.testing import CliRunner

from tests.corpus import CORPUS
from wavemetrics.cli.commands import main

EXAMPLE = Path(__file__).resolve().parents[1] / "wavemetrics" / "examples" / "claude-code-demo.jsonl"
GOLDEN = Path(__file__).resolve().parent / "golden" / "outputs.json"

#: Corpus files that are traces (MANIFEST.md is prose).
_SUFFIXES = (".jsonl", ".json", ".traj", ".eval", ".gz")


def corpus_files() -> list[str]:
    """Every trace file of the corpus, relative to its root, sorted."""
    found = []
    for path in CORPUS.rglob("*"):
        if path.is_file() and path.name.endswith(_SUFFIXES):
            found.append(path.relative_to(CORPUS).as_posix())
    return sorted(found)


def cases() -> Iterator[tuple[str, list[str]]]:
    """(case name, CLI arguments) for every golden case; paths are relative to the corpus."""
    for rel in corpus_files():
        for command in ("summarize", "waves"):
            yield f"{command} {rel}", [command, "--format", "json", "--jobs", "1", rel]
    yield "summarize .", ["summarize", "--format", "json", "--jobs", "1", "."]


def run_case(args: list[str]) -> dict[str, object]:
    """Run one case with the corpus as the working directory: exit code and stdout."""
    here = os.getcwd()
    os.chdir(CORPUS)
    try:
        result = CliRunner().invoke(main, args)
    finally:
        os.chdir(here)
    return {"exit_code": result.exit_code, "stdout": result.stdout}


def run_example() -> dict[str, dict[str, object]]:
    """The bundled example's ``summarize`` and ``waves`` JSON (absolute path replaced)."""
    out = {}
    for command in ("summarize", "waves"):
        result = CliRunner().invoke(main, [command, "--format", "json", "--jobs", "1", str(EXAMPLE)])
        out[f"{command} <example>"] = {
            "exit_code": result.exit_code,
            "stdout": result.stdout.replace(str(EXAMPLE), "<example>"),
        }
    return out
