#!/usr/bin/env python3
"""Run the probe catalogue: every hand-written bug in mutants/probes/ must be caught.

Usage (from anywhere; it works in the repository that holds this script)::

    .venv/bin/python scripts/run_probes.py [--jobs N] [PROBE ...]

A probe is ``mutants/probes/<NAME>.patch``: a first line ``Probe <ID>: <one
sentence on the bug it models>``, then a unified diff of the source that
applies from the repository root (``git apply`` / ``patch -p1``).

The runner copies the repository (``git ls-files`` of tracked and untracked,
not ignored files, as they are in the working tree; without ``.venv/`` and
``mutants/``) to a scratch directory, checks that the unpatched copy passes the
core test selection (``[tool.mutmut] pytest_add_cli_args_test_selection`` in
``pyproject.toml``), then for each probe takes a fresh copy, applies the patch
and runs ``python -m pytest -x -q -p no:cacheprovider <selection>`` with the
current interpreter (the tests of the patched module first, so that ``-x``
stops sooner). It prints one line per probe, ``killed`` (the tests
failed, and the first failing test) or ``SURVIVED`` (they passed), and exits
non-zero if any probe survived, no longer applies, or could not be run.

Exit codes: 0 every probe killed; 1 a probe survived or did not apply;
2 the unpatched copy fails its tests or the set-up is broken.

Stdlib only.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBES = ROOT / "mutants" / "probes"
EXCLUDED_TOP = (".venv", "mutants", ".git")
HEADER = re.compile(r"^Probe (?P<id>[A-Za-z0-9]+): (?P<sentence>.+)$")
#: Seconds one probe's test run may take; a hang counts as a kill (the bug was noticed).
PROBE_TIMEOUT = 900


@dataclass
class Probe:
    name: str
    path: Path
    probe_id: str
    sentence: str


@dataclass
class Outcome:
    probe: Probe
    verdict: str  # "killed", "SURVIVED", "NOT APPLIED", "ERROR"
    detail: str
    seconds: float


def test_selection() -> list[str]:
    """The core test files, from ``[tool.mutmut]`` (the same selection the gate mutates with)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # Python 3.10: a minimal reader for one string array
        section = re.search(r"^\[tool\.mutmut\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
        body = re.sub(r"#.*$", "", section.group(1) if section else "", flags=re.M)
        array = re.search(r"^pytest_add_cli_args_test_selection\s*=\s*\[(.*?)\]", body, re.M | re.S)
        return re.findall(r"\"([^\"]*)\"", array.group(1)) if array else []
    mutmut = tomllib.loads(text).get("tool", {}).get("mutmut", {})
    return [str(t) for t in mutmut.get("pytest_add_cli_args_test_selection", [])]


def load_probes(only: list[str]) -> list[Probe]:
    probes: list[Probe] = []
    for path in sorted(PROBES.glob("*.patch"), key=lambda p: _natural_key(p.stem)):
        first = path.read_text(encoding="utf-8").splitlines()[:1]
        match = HEADER.match(first[0]) if first else None
        if match is None:
            sys.exit(f"run_probes: {path.relative_to(ROOT)} must start with "
                     "'Probe <ID>: <one sentence>'")
        probe = Probe(path.stem, path, match.group("id"), match.group("sentence").strip())
        if not only or probe.probe_id in only or probe.name in only:
            probes.append(probe)
    return probes


def _natural_key(name: str) -> list[object]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def repo_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode("utf-8")
    files = []
    for rel in sorted(set(filter(None, out.split("\0")))):
        if rel.split("/", 1)[0] in EXCLUDED_TOP:
            continue
        if (ROOT / rel).is_file():  # skips files deleted in the working tree
            files.append(rel)
    return files


def copy_repo(files: list[str], target: Path) -> None:
    for rel in files:
        destination = target / rel
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, destination)


def probe_env(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(copy), env.get("PYTHONPATH")]))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # Hypothesis' derandomised "ci" profile: a probe's verdict must not depend on luck.
    env.setdefault("CI", "true")
    return env


def patched_first(probe: Probe, selection: list[str]) -> list[str]:
    """The selection with ``tests/test_<module>.py`` of each patched module first.

    Only the order changes (``-x`` then stops sooner); every test still runs
    when nothing fails, so the verdict is the same.
    """
    text = probe.path.read_text(encoding="utf-8")
    modules = re.findall(r"^\+\+\+ b/wavemetrics/(?:\w+/)*(\w+)\.py", text, re.M)
    first = [t for m in modules for t in selection if Path(t).name == f"test_{m}.py"]
    return list(dict.fromkeys(first + selection))


def run_tests(copy: Path, selection: list[str]) -> tuple[int | None, str]:
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *selection]
    try:
        proc = subprocess.run(command, cwd=copy, env=probe_env(copy), capture_output=True,
                              text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, f"tests still running after {PROBE_TIMEOUT} s"
    return proc.returncode, proc.stdout + proc.stderr


def first_failure(output: str) -> str:
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" - ", 1)[0]
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def run_probe(probe: Probe, base: Path, scratch: Path, selection: list[str]) -> Outcome:
    started = time.monotonic()
    copy = scratch / f"probe-{probe.name}"
    shutil.copytree(base, copy)
    try:
        check = subprocess.run(["git", "apply", "--check", "-p1", str(probe.path)], cwd=copy,
                               capture_output=True, text=True)
        if check.returncode != 0:
            return Outcome(probe, "NOT APPLIED", check.stderr.strip().splitlines()[0]
                           if check.stderr.strip() else "git apply --check failed",
                           time.monotonic() - started)
        subprocess.run(["git", "apply", "-p1", str(probe.path)], cwd=copy, check=True,
                       capture_output=True)
        code, output = run_tests(copy, patched_first(probe, selection))
        seconds = time.monotonic() - started
        if code is None:
            return Outcome(probe, "killed", output, seconds)
        if code == 0:
            return Outcome(probe, "SURVIVED", "the core tests pass with this bug", seconds)
        if code in (1, 2, 3):  # failures, collection/interrupt errors, internal error
            return Outcome(probe, "killed", first_failure(output), seconds)
        return Outcome(probe, "ERROR", f"pytest exit code {code}: {first_failure(output)}", seconds)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("probes", nargs="*", help="probe ids or file stems (default: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                        help="probes run at once (default: the number of CPUs)")
    parser.add_argument("--list", action="store_true", help="list the probes and exit")
    args = parser.parse_args(argv)

    probes = load_probes(args.probes)
    if args.list:
        for probe in probes:
            print(f"{probe.probe_id:<4} {probe.sentence}")
        return 0
    if not probes:
        print("run_probes: no probe found")
        return 2
    selection = test_selection()
    missing = [t for t in selection if not (ROOT / t).exists()]
    if not selection or missing:
        print(f"run_probes: bad core test selection in pyproject.toml (missing: {missing})")
        return 2

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="wavemetrics-probes-") as tmp:
        scratch = Path(tmp)
        base = scratch / "base"
        copy_repo(repo_files(), base)
        where = subprocess.run(
            [sys.executable, "-c", "import wavemetrics; print(wavemetrics.__file__)"],
            cwd=base, env=probe_env(base), capture_output=True, text=True,
        )
        if where.returncode != 0 or not Path(where.stdout.strip()).is_relative_to(base):
            print(f"run_probes: the scratch copy does not import its own wavemetrics: "
                  f"{where.stdout.strip() or where.stderr.strip()}")
            return 2
        code, output = run_tests(base, selection)
        if code != 0:
            print("run_probes: the unpatched copy fails the core tests; fix them first:")
            print("\n".join(output.splitlines()[-30:]))
            return 2
        print(f"probes: {len(probes)} from {PROBES.relative_to(ROOT)}/, "
              f"core tests: {' '.join(selection)}")
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            outcomes = list(pool.map(lambda p: run_probe(p, base, scratch, selection), probes))

    width = max(len(o.probe.probe_id) for o in outcomes)
    for outcome in outcomes:
        print(f"{outcome.probe.probe_id:<{width}}  {outcome.verdict:<11}  "
              f"{outcome.probe.sentence}  [{outcome.detail}; {outcome.seconds:.1f} s]")
    tally: dict[str, int] = {}
    for outcome in outcomes:
        tally[outcome.verdict] = tally.get(outcome.verdict, 0) + 1
    summary = ", ".join(f"{n} {verdict}" for verdict, n in sorted(tally.items()))
    print(f"probes: {summary} in {time.monotonic() - started:.0f} s")
    return 0 if tally.get("killed", 0) == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
