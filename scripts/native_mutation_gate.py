#!/usr/bin/env python3
"""Mutation gate for the native core: a fresh cargo-mutants run that must leave no survivor.

Usage (from anywhere; it works in the repository that holds this script)::

    python scripts/native_mutation_gate.py [--jobs N] [--timeout-multiplier X]

What it does: runs ``cargo mutants`` in ``native/`` (scope and exclusions in
``native/.cargo/mutants.toml``: the modules whose behaviour ``cargo test``
pins; the readers and the Python binding are pinned by the differential tests
of ``tests/test_native.py`` instead, see ``docs/testing.md``), then reads
``native/mutants.out/outcomes.json``. Every mutant the tests missed
(a mutant that makes them hang, ``timeout``, counts as caught) must be listed in
``native/mutants-excused.txt``
with a written reason (``<file>: <mutation> # <reason>``, matched without
line and column, so the list survives edits). One line excuses one mutant:
two surviving mutants of the same name need two lines, so an excuse never
hides a second, unexamined survivor; an excuse that matches no mutant any
more fails the gate too, so the list stays honest.

Exit codes: 0 pass; 1 an unexcused surviving mutant, or a stale excuse;
2 cargo-mutants could not run (not installed, the unmutated tests fail).

Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CRATE = ROOT / "native"
EXCUSES = CRATE / "mutants-excused.txt"
_POSITION = re.compile(r":\d+:\d+:")


def _name(mutant: dict[str, object]) -> str:
    """``file: mutation`` without line and column, e.g. ``src/time.rs: replace < with <=``."""
    text = str(mutant.get("name", ""))
    return _POSITION.sub(":", text, count=1)


def _excuses() -> tuple[Counter[str], dict[str, str]]:
    """How many survivors each mutant name excuses, and its (last) reason."""
    counts: Counter[str] = Counter()
    reasons: dict[str, str] = {}
    if not EXCUSES.exists():
        return counts, reasons
    for raw in EXCUSES.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        what, _, reason = line.partition(" # ")
        if reason.strip():
            counts[what.strip()] += 1
            reasons[what.strip()] = reason.strip()
    return counts, reasons


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout-multiplier", type=float, default=3.0)
    args = parser.parse_args()
    command = ["cargo", "mutants", "--no-shuffle", "--jobs", str(args.jobs),
               "--timeout-multiplier", str(args.timeout_multiplier)]
    print("$", " ".join(command), flush=True)
    began = time.monotonic()
    run = subprocess.run(command, cwd=CRATE, check=False)
    print(f"native mutation gate: cargo mutants took {time.monotonic() - began:.0f} s")
    outcomes_path = CRATE / "mutants.out" / "outcomes.json"
    if not outcomes_path.exists():
        print("native mutation gate: cargo-mutants did not run", file=sys.stderr)
        return 2
    outcomes = json.loads(outcomes_path.read_text(encoding="utf-8"))
    summary = {key: outcomes.get(key) for key in
               ("total_mutants", "caught", "missed", "timeout", "unviable", "success")}
    print("native mutation gate:", summary)
    if run.returncode not in (0, 2, 3):  # 2: missed mutants, 3: timeouts (cargo-mutants' codes)
        print(f"native mutation gate: cargo mutants exited {run.returncode}", file=sys.stderr)
        return 2
    excused, reasons = _excuses()
    survivors: Counter[str] = Counter()
    for outcome in outcomes.get("outcomes", []):
        scenario = outcome.get("scenario")
        if not isinstance(scenario, dict) or "Mutant" not in scenario:
            continue
        # a mutant that hangs the tests (Timeout) was detected, as mutmut counts it
        if str(outcome.get("summary", "")) == "MissedMutant":
            survivors[_name(scenario["Mutant"])] += 1
    failed = False
    for name in sorted(survivors):
        covered = min(survivors[name], excused[name])
        for _ in range(covered):
            print(f"  excused: {name}  # {reasons[name]}")
        for _ in range(survivors[name] - covered):
            print(f"  SURVIVED: {name}")
            failed = True
    for name in sorted(excused):
        for _ in range(excused[name] - survivors[name]):
            print(f"  stale excuse (no such surviving mutant): {name}")
            failed = True
    print("native mutation gate:", "FAIL" if failed else "pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
