"""A native reader alone: one read of files in a warm process.

Times one ``_native.read_units`` call of a native format's files, each a unit of one
file (one thread, the default cap, no evaluation tool names: what ``summarize --jobs
1 --engine native`` asks of the extension for one-file units; a folder stands for
its ``*.jsonl`` files), without the interpreter's start-up,
imports or rendering: CPU seconds from ``getrusage`` (user + system) around the call
only, and MB per CPU second. ``--format`` names the format (default ``claude-code``;
its code and session-id rule come from its registry row). ``--so`` loads another
build of the extension (a baseline ``_native.abi3.so`` copied aside) in place of the
installed one, so two builds can be timed interleaved in one run:

    python benchmarks/reader_alone.py PATH... [--format NAME] [--so PATH] [--repeat N]

One core's rate for Codex rollouts: ``--format codex OUT/sessions`` (a Codex home of
``benchmarks/codex_fleet.py``). Not its rollouts concatenated into one file: their
call ids repeat from copy to copy, and a repeated call is not read again.

Under ``valgrind --tool=callgrind`` (``--repeat 1``) it gives the instruction
count of the read; subtract the same command's count on an empty file to leave
the interpreter out.
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import statistics
import sys
from pathlib import Path
from types import ModuleType


def _extension(so: str | None) -> ModuleType:
    """The installed extension, or the build at ``so`` (its module name is ``_native``)."""
    if so is None:
        from wavemetrics import _native

        return _native
    spec = importlib.util.spec_from_file_location("_native", so)
    if spec is None or spec.loader is None:
        raise SystemExit(f"not an extension module: {so}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", type=Path, nargs="+")
    parser.add_argument("--format", default="claude-code", help="a native format's name")
    parser.add_argument("--so", help="a _native extension build to load instead")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    native = _extension(args.so)
    from wavemetrics.readers.registry import NATIVE_ROWS

    row = next((r for r in NATIVE_ROWS if r.name == args.format and r.native), None)
    if row is None or row.native is None:
        raise SystemExit(f"not a native format: {args.format}")
    files = sorted(f for p in args.paths for f in (p.rglob("*.jsonl") if p.is_dir() else [p]))
    units = [(row.native.code, [bytes(f)], [row.native.session_id(str(f))]) for f in files]
    size = sum(f.stat().st_size for f in files)
    runs = []
    # API 10 added the batchable names and the idle gap (ms) after the eval names
    section_9 = ([], 300000.0) if getattr(native, "API_VERSION", 0) >= 10 else ()
    # API 19 added `record` after the threads: the figures only, as summarize reads
    record = (False,) if getattr(native, "API_VERSION", 0) >= 19 else ()
    for _ in range(args.repeat):
        start = _cpu()
        native.read_units(units, None, [], *section_9, 1, *record)
        runs.append(_cpu() - start)
    median = statistics.median(runs)
    rate = size / 1e6 / median if median > 0 else float("inf")
    shown = ", ".join(f"{r:.3f}" for r in runs)
    print(f"{len(files)} files ({args.format}): {size / 1e6:.1f} MB, CPU s {shown} (median "
          f"{median:.3f}: "
          f"{rate:.0f} MB per CPU s)")


if __name__ == "__main__":
    sys.exit(main())
