#!/usr/bin/env python3
"""Mutation gate for the native core: a fresh cargo-mutants run that must leave no survivor.

Usage (from anywhere; it works in the repository that holds this script)::

    python scripts/native_mutation_gate.py [--jobs N] [--timeout-multiplier X]
        [--minimum-test-timeout S]

What it does: runs ``cargo mutants --workspace`` in ``native/`` (scope in
``native/.cargo/mutants.toml``: the modules whose behaviour ``cargo test``
pins, the core crate's in ``native/core/src`` and the native command's
``src/command.rs`` and ``src/pyjson.rs``; the readers (``src/readers/``) and
the Python binding (the crate ``binding/``) are pinned by the differential
tests of ``tests/test_native.py`` instead, see
``docs/testing.md``) in two passes: ``json.rs`` with its own tests and the
oracle's (no other module uses it), and the other modules without the json.rs
oracle tests (they call nothing else). It then reads both passes'
``native/mutants.out/{json,rest}/mutants.out/outcomes.json``. Every mutant the
tests missed (a mutant that makes them hang, ``timeout``, counts as caught)
must be listed in ``native/mutants-excused.txt`` with a written reason
(``<file>: <mutation> # <reason>``, matched without line and column, so the
list survives edits). One line excuses one mutant:
two surviving mutants of the same name need two lines, so an excuse never
hides a second, unexamined survivor; an excuse that matches no mutant any
more fails the gate too, so the list stays honest.

Exit codes: 0 pass; 1 an unexcused surviving mutant, or a stale excuse;
2 cargo-mutants could not run (not installed, the unmutated tests fail), a
pass found no mutant, or the scope names something that is not a file.

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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CRATE = ROOT / "native"
EXCUSES = CRATE / "mutants-excused.txt"
_POSITION = re.compile(r":\d+:\d+:")


def _name(mutant: dict[str, object]) -> str:
    """``file: mutation`` without line and column, e.g. ``core/src/time.rs: replace < with <=``."""
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


# The json.rs oracle tests (core/src/json_oracle.rs: 60,000 generated lines
# against serde_json, about 1.1 s of the core crate's 1.5 s `cargo test`) call
# only json.rs's scanner, so they can tell apart only json.rs's mutants: the
# other modules' mutants are tested without them, in a second pass
# (docs/testing.md).
ORACLE_ONLY = "core/src/json.rs"
ORACLE_TESTS = "json_oracle::"
# And json.rs is a leaf: no other module of the core crate uses it (its readers
# are in the other crate, whose tests do not run for a core mutant), so its
# mutants need only its own tests and the oracle's; the uuid merges, the 64 MiB
# line and the thread pool's tests (~0.75 CPU s a mutant) are left out of that
# pass by these libtest name filters.
JSON_TESTS = ("json::", ORACLE_TESTS)


def _scope() -> list[str]:
    """The examined files of ``native/.cargo/mutants.toml`` (``examine_globs``)."""
    text = (CRATE / ".cargo" / "mutants.toml").read_text(encoding="utf-8")
    return re.findall(r'"([^"]+\.rs)"', text.split("examine_globs", 1)[1])


def _passes(scope: list[str], jobs: int, minimum_timeout: float,
            multiplier: float) -> list[tuple[str, list[str]]]:
    """The two cargo-mutants runs over ``scope`` (from ``_scope()``): json.rs with its
    tests and the oracle's, the rest without the oracle's."""
    # --workspace: the examined files are in two crates of native/ (the core in
    # native/core, the command in native/src), and cargo-mutants otherwise mutates
    # only the package of its directory
    base = ["cargo", "mutants", "--workspace", "--no-shuffle", "--jobs", str(jobs),
            "--timeout-multiplier", str(multiplier),
            "--minimum-test-timeout", str(minimum_timeout)]
    others = [path for path in scope if path != ORACLE_ONLY]
    json_pass = [*base, *(arg for path in others for arg in ("-e", path)),
                 "--", "--", *JSON_TESTS]
    rest_pass = [*base, "-e", ORACLE_ONLY, "--", "--", "--skip", ORACLE_TESTS]
    return [("json", json_pass), ("rest", rest_pass)]


def _is_mutant(outcome: dict[str, Any]) -> bool:
    """A mutant's outcome, not the unmutated baseline's."""
    return isinstance(outcome.get("scenario"), dict) and "Mutant" in outcome["scenario"]


def _outcomes(outs: list[Path]) -> list[dict[str, Any]] | None:
    """Every pass's outcomes, or None when a pass did not run (no outcomes.json) or
    tested no mutant (its files gone from the scope would otherwise pass unseen)."""
    merged: list[dict[str, Any]] = []
    for out in outs:
        path = out / "mutants.out" / "outcomes.json"
        if not path.exists():
            return None
        found = json.loads(path.read_text(encoding="utf-8")).get("outcomes", [])
        if not any(_is_mutant(outcome) for outcome in found):
            return None
        merged.extend(found)
    return merged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout-multiplier", type=float, default=3.0)
    # cargo-mutants' own floor is 20 s. A mutant that hangs the tests (a loop that
    # no longer advances: 38 of 824 in the run of 2026-12-02) costs the whole
    # timeout. A timeout counts as caught, so the floor must stay well above what
    # a surviving mutant's tests can take under the gate's load: up to 1.5 s
    # measured, and 2.8 and 6.2 s for two caught ones that did not hang. 8 s.
    parser.add_argument("--minimum-test-timeout", type=float, default=8.0, help="seconds")
    args = parser.parse_args()
    runs: list[tuple[subprocess.CompletedProcess[bytes], Path]] = []
    began = time.monotonic()
    scope = _scope()
    unknown = [path for path in scope if not (CRATE / path).is_file()]
    if unknown or ORACLE_ONLY not in scope:
        # a glob or a moved file would silently drop modules from both passes
        print(f"native mutation gate: examine_globs must name existing files, {ORACLE_ONLY}"
              f" among them; not files: {unknown}", file=sys.stderr)
        return 2
    for name, command in _passes(scope, args.jobs, args.minimum_test_timeout,
                                 args.timeout_multiplier):
        out = CRATE / "mutants.out" / name
        out.mkdir(parents=True, exist_ok=True)  # cargo-mutants makes only the last level
        command = [*command[:2], "-o", str(out), *command[2:]]
        print("$", " ".join(command), flush=True)
        runs.append((subprocess.run(command, cwd=CRATE, check=False), out))
    print(f"native mutation gate: cargo mutants took {time.monotonic() - began:.0f} s")
    outcomes = _outcomes([out for _, out in runs])
    if outcomes is None:
        print("native mutation gate: cargo-mutants did not run, or a pass tested no mutant",
              file=sys.stderr)
        return 2
    mutants = [o for o in outcomes if _is_mutant(o)]
    tally = Counter(str(o.get("summary", "")) for o in mutants)
    print("native mutation gate:", {"total_mutants": len(mutants), **dict(sorted(tally.items()))})
    for run, _ in runs:
        if run.returncode not in (0, 2, 3):  # 2: missed mutants, 3: timeouts (cargo-mutants' codes)
            print(f"native mutation gate: cargo mutants exited {run.returncode}", file=sys.stderr)
            return 2
    excused, reasons = _excuses()
    survivors: Counter[str] = Counter()
    for outcome in mutants:
        # a mutant that hangs the tests (Timeout) was detected, as mutmut counts it
        if str(outcome.get("summary", "")) == "MissedMutant":
            survivors[_name(outcome["scenario"]["Mutant"])] += 1
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
