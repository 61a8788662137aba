#!/usr/bin/env python3
"""Mutation gate for the metric core: a fresh, full mutmut run that must leave no survivor.

Usage (from anywhere; it works in the repository that holds this script)::

    .venv/bin/python scripts/mutation_gate.py [--max-children N] [--keep-state]

What it does, in order:

1. removes mutmut's stale state from ``mutants/`` (everything there except the
   tracked ``mutants/probes/`` and ``mutants/README.md``), so no cached verdict
   is reused;
2. runs ``mutmut run`` over the core configured in ``[tool.mutmut]`` of
   ``pyproject.toml`` (``only_mutate``, ``pytest_add_cli_args_test_selection``),
   with ``CI=true`` so that Hypothesis loads its derandomised ``ci`` profile and
   every verdict is reproducible; the run's output goes to
   ``mutants/mutmut-run.log``;
3. reads the statistics that ``mutmut export-cicd-stats`` writes and every
   mutant's status from ``mutmut results --all true``, prints the counts and the
   duration, and shows the diff (``mutmut show NAME``) of every mutant that
   survived, had no test, or whose verdict is unknown;
4. lists the excused lines: ``# pragma: no mutate`` in the core, each of which
   must carry a reason (why the mutant would be equivalent) and be listed in
   ``docs/testing.md``;
5. exits 0 only when no mutant survived, none had no test and none is
   unchecked or suspicious. mutmut itself exits 0 even with survivors, which is
   why this gate reads its statistics.

Exit codes: 0 pass; 1 a mutant survived / had no test / has an unknown
verdict, or an excuse has no reason or is not listed in docs/testing.md;
2 mutmut could not run (clean tests failed, no stats, bad configuration).

Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
#: Tracked files inside mutants/; everything else there is mutmut's working state.
KEEP_IN_MUTANTS = ("probes", "README.md")
RUN_LOG = MUTANTS / "mutmut-run.log"
STATS_JSON = MUTANTS / "mutmut-cicd-stats.json"

#: mutmut's status names (``mutmut results``) and what the gate makes of them. pytest's
#: exit code 2 ("check was interrupted by user" to mutmut) is also what a collection
#: error gives, e.g. a mutant that breaks a test module's import-time code: nobody
#: interrupts the gate, so it counts as detected, like a timeout.
DETECTED = ("killed", "timeout", "caught by type check", "check was interrupted by user")
FAILING = ("survived", "no tests", "suspicious", "not checked", "segfault")
SHOWN = FAILING
PRAGMA = re.compile(r"#\s*pragma:\s*no mutate\b(?P<rest>.*)$")
#: A reason is some words after the pragma, not one of mutmut's range forms.
RANGE_FORMS = ("block", "start", "end")


def load_mutmut_config() -> dict[str, object]:
    """``[tool.mutmut]`` of pyproject.toml (tomllib, or a minimal reader on Python 3.10)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # Python 3.10
        return _minimal_toml_section(text, "tool.mutmut")
    return dict(tomllib.loads(text).get("tool", {}).get("mutmut", {}))


def _minimal_toml_section(text: str, section: str) -> dict[str, object]:
    # Enough for [tool.mutmut]: string arrays and strings, one key per (multi-)line.
    body = re.search(r"^\[" + re.escape(section) + r"\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if body is None:
        return {}
    config: dict[str, object] = {}
    lines = [re.sub(r"#.*$", "", line) for line in body.group(1).splitlines()]
    joined = "\n".join(lines)
    for match in re.finditer(r"^(\w+)\s*=\s*(\[.*?\]|\"[^\"]*\"|\S+)", joined, re.M | re.S):
        key, raw = match.group(1), match.group(2)
        if raw.startswith("["):
            config[key] = re.findall(r"\"([^\"]*)\"", raw)
        else:
            config[key] = raw.strip('"')
    return config


def config_list(config: dict[str, object], key: str) -> list[str]:
    """A string-array setting of ``[tool.mutmut]`` (empty when absent)."""
    value = config.get(key)
    return [str(item) for item in value] if isinstance(value, list) else []


def core_files(config: dict[str, object]) -> list[Path]:
    """The mutated modules: ``only_mutate`` (explicit paths, no globs expected)."""
    files: list[Path] = []
    for pattern in config_list(config, "only_mutate"):
        files.extend(sorted(ROOT.glob(pattern)))
    return files


def clean_state() -> None:
    """Delete mutmut's working files in mutants/, keeping the tracked catalogue."""
    MUTANTS.mkdir(exist_ok=True)
    for entry in MUTANTS.iterdir():
        if entry.name in KEEP_IN_MUTANTS:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def find_mutmut() -> list[str]:
    """The mutmut console script of this interpreter's environment, else the one on PATH."""
    beside = Path(sys.executable).parent / "mutmut"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("mutmut")
    if found:
        return [found]
    sys.exit("mutation gate: mutmut not found (pip install 'mutmut>=3.3,<4')")


def mutmut_env() -> dict[str, str]:
    env = dict(os.environ)
    # Hypothesis loads its "ci" profile when CI is set: derandomised, no example
    # database, no deadline. Verdicts then do not depend on luck or on timing.
    env.setdefault("CI", "true")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("PYTHONIOENCODING", "utf-8")
    return env


def run_mutmut(mutmut: list[str], max_children: int, env: dict[str, str]) -> tuple[int, float]:
    started = time.monotonic()
    with RUN_LOG.open("w", encoding="utf-8") as log:
        proc = subprocess.run(
            [*mutmut, "run", "--max-children", str(max_children)],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
    return proc.returncode, time.monotonic() - started


def log_tail(lines: int = 60) -> str:
    """Last lines of the run log, with the spinner's carriage returns resolved."""
    text = RUN_LOG.read_text(encoding="utf-8", errors="replace")
    resolved = [line.rsplit("\r", 1)[-1] for line in text.splitlines()]
    return "\n".join(line for line in resolved[-lines:])


def mutmut_output(mutmut: list[str], args: list[str], env: dict[str, str]) -> str:
    proc = subprocess.run([*mutmut, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise RuntimeError(f"mutmut {' '.join(args)} failed ({proc.returncode}):\n"
                           f"{proc.stdout}\n{proc.stderr}")
    return proc.stdout


def statuses(mutmut: list[str], env: dict[str, str]) -> dict[str, str]:
    """Mutant name -> mutmut status, from ``mutmut results --all true``."""
    out = mutmut_output(mutmut, ["results", "--all", "true"], env)
    result: dict[str, str] = {}
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and name:
            result[name] = status
    return result


def excused_lines(files: list[Path]) -> tuple[list[str], list[str]]:
    """``(excuses, problems)``: every pragma line, and those that give no reason or
    that ``docs/testing.md`` does not list (by file and by the code before the comment)."""
    excuses: list[str] = []
    problems: list[str] = []
    docs = ROOT / "docs" / "testing.md"
    listed = docs.read_text(encoding="utf-8") if docs.exists() else ""
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = PRAGMA.search(line)
            if match is None:
                continue
            where = f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
            excuses.append(where)
            rest = match.group("rest").strip(" :;,-()")
            first = rest.split()[0] if rest.split() else ""
            if first in RANGE_FORMS:
                problems.append(f"{where}  <- range pragmas are not allowed: excuse one line")
            elif len(rest) < 10:
                problems.append(f"{where}  <- no reason given: say why the mutant is equivalent")
            code = line[: match.start()].strip()
            if str(path.relative_to(ROOT)) not in listed or code not in listed:
                problems.append(f"{where}  <- not listed in docs/testing.md (file and `{code}`)")
    return excuses, problems


def format_duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m{secs:02d}s ({seconds:.0f} s)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2,
                        help="parallel mutant workers (default: the number of CPUs)")
    parser.add_argument("--max-diffs", type=int, default=60,
                        help="show at most this many diffs (each `mutmut show` takes ~0.5 s); "
                             "every failing mutant is still listed by name")
    parser.add_argument("--keep-state", action="store_true",
                        help="reuse mutants/ from an earlier run (for local iteration only; "
                             "the gate's verdict then may rest on cached results)")
    args = parser.parse_args(argv)

    config = load_mutmut_config()
    files = core_files(config)
    selection = config_list(config, "pytest_add_cli_args_test_selection")
    if not files or not selection:
        print("mutation gate: [tool.mutmut] needs only_mutate and "
              "pytest_add_cli_args_test_selection in pyproject.toml")
        return 2
    missing = [t for t in selection if not (ROOT / t).exists()]
    if missing:
        print(f"mutation gate: test selection names missing files: {', '.join(missing)}")
        return 2

    mutmut = find_mutmut()
    env = mutmut_env()
    if not args.keep_state:
        clean_state()
    print(f"mutation gate: fresh mutmut run over {len(files)} core modules "
          f"({', '.join(p.name for p in files)}), {args.max_children} workers")
    sys.stdout.flush()
    code, seconds = run_mutmut(mutmut, args.max_children, env)
    if code != 0:
        print(f"mutation gate: mutmut run failed with exit code {code}; end of {RUN_LOG}:")
        print(log_tail())
        return 2

    try:
        mutmut_output(mutmut, ["export-cicd-stats"], env)
        stats = json.loads(STATS_JSON.read_text(encoding="utf-8"))
        by_name = statuses(mutmut, env)
    except (RuntimeError, OSError, ValueError) as error:
        print(f"mutation gate: cannot read mutmut's results: {error}")
        return 2

    counts: dict[str, int] = {}
    for status in by_name.values():
        counts[status] = counts.get(status, 0) + 1
    excuses, excuse_problems = excused_lines(files)

    print(f"mutation run: {format_duration(seconds)}")
    print("mutants: " + ", ".join(
        f"{key.replace('_', ' ')} {stats.get(key, 0)}"
        for key in ("killed", "survived", "no_tests", "timeout", "suspicious", "skipped",
                    "segfault", "check_was_interrupted_by_user")
    ) + f"; total {stats.get('total', 0)}")
    others = {k: v for k, v in counts.items() if k not in DETECTED + FAILING}
    if counts.get("caught by type check") or counts.get("not checked") or others:
        print("also: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())
                                    if k in ("caught by type check", "not checked") or k in others))
    print(f"excused lines (# pragma: no mutate): {len(excuses)}")
    for line in excuses:
        print(f"  {line}")

    problems: list[str] = []
    if len(by_name) != int(stats.get("total", -1)):
        problems.append(
            f"mutmut results lists {len(by_name)} mutants, its stats {stats.get('total')}"
        )
    if not by_name:
        problems.append("no mutant was generated")
    shown = sorted(name for name, status in by_name.items() if status in SHOWN or status in others)
    for index, name in enumerate(shown):
        status = by_name[name]
        print(f"\n{status.upper()}: {name}")
        if index >= args.max_diffs:
            continue
        try:
            print(mutmut_output(mutmut, ["show", name], env).rstrip())
        except RuntimeError as error:
            print(f"  (no diff: {error})")
    if len(shown) > args.max_diffs:
        print(f"\n({len(shown) - args.max_diffs} diffs not shown; `mutmut show NAME` shows one)")
    failing = {status: n for status, n in counts.items() if status in FAILING or status in others}
    if failing:
        listing = ", ".join(f"{k} {v}" for k, v in sorted(failing.items()))
        problems.append(f"mutants not killed: {listing}")
    problems.extend(excuse_problems)

    if problems:
        print("\nmutation gate: FAIL")
        for problem in problems:
            print(f"  {problem}")
        return 1
    print(f"\nmutation gate: PASS ({stats.get('killed', 0)} killed, "
          f"{stats.get('timeout', 0)} timeout, 0 survived, 0 no tests; "
          f"excused lines: {len(excuses)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
