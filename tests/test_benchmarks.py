"""The benchmark scripts that call the extension directly still run against it.

``benchmarks/reader_alone.py`` and ``benchmarks/jobs_split.py`` call
``_native.read_units`` themselves, so a change to its arguments breaks them and no
other test would notice. Each runs here once on the bundled example: no figure is
checked (machines here are shared and noisy), only that the script runs to its end
and prints what it reads.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.golden_cases import EXAMPLE
from wavemetrics.run import native

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

needs_extension = pytest.mark.skipif(not native.available(), reason="extension not built")


def _script(name: str, *args: str) -> list[str]:
    done = subprocess.run([sys.executable, str(BENCHMARKS / name), *args],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@needs_extension
def test_reader_alone_reads_the_example() -> None:
    """One file of 0.1 MB (the example's size, to one decimal) read as claude-code."""
    size = EXAMPLE.stat().st_size / 1e6
    (line,) = _script("reader_alone.py", str(EXAMPLE), "--repeat", "1")
    assert line.startswith(f"1 files (claude-code): {size:.1f} MB, CPU s ")


@needs_extension
def test_jobs_split_reads_a_fleet_of_one_project(tmp_path: Path) -> None:
    """A fleet folder of one project holding the example: the table's two rows."""
    project = tmp_path / "projects" / "-demo"
    project.mkdir(parents=True)
    shutil.copy(EXAMPLE, project / "session.jsonl")
    lines = _script("jobs_split.py", str(tmp_path), "--repeat", "1")
    assert lines[1:3] == ["| what | --jobs 1 wall s | --jobs 2 wall s | speed-up |",
                          "|---|---|---|---|"]
    assert lines[3].startswith("| the extension's read alone (CPU s ")
    assert lines[4].startswith("| `summarize --format json --no-cache` | ")


@needs_extension
def test_terminal_times_a_fleet_of_one_project_on_a_pseudo_terminal(tmp_path: Path) -> None:
    """The terminal run of a fleet folder holding the example: the table's header and
    one row for this tree, with its one run."""
    project = tmp_path / "fleet" / "projects" / "-demo"
    project.mkdir(parents=True)
    shutil.copy(EXAMPLE, project / "session.jsonl")
    lines = _script("terminal.py", str(tmp_path), "--repeat", "1")
    assert lines[:2] == ["| tree | median s | runs s |", "|---|---:|---|"]
    assert len(lines) == 3 and lines[2].startswith(f"| {BENCHMARKS.parent.name} | ")


@needs_extension
def test_piped_times_the_example_named_and_piped_in() -> None:
    """The example named and piped in, one run each: the header, the table's two rows
    (the piped runs print one document)."""
    lines = _script("piped.py", str(EXAMPLE), "--repeat", "1")
    assert lines[0].startswith(f"{EXAMPLE} (0.1 MB); median of 1 interleaved cold runs each;")
    assert lines[1:3] == ["| what | wall s | CPU s | peak RSS MiB |", "|---|---|---|---|"]
    assert lines[3].startswith("| this tree, FILE named | ")
    assert lines[4].startswith("| this tree, piped in | ")
    assert len(lines) == 5
