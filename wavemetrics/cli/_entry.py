"""The ``wavemetrics`` console script: the status line without click, the rest through it.

Claude Code runs the status-line command after every message, so
``wavemetrics statusline`` (alone or with ``--no-cache``) is answered without
importing click, attrs, the readers or the core (target: p95 < 100 ms warm);
``wavemetrics summarize ...`` is planned once (:mod:`wavemetrics.run.plan`: its
options, files and run key), then looked up among the stored outputs of whole runs
(:mod:`wavemetrics.cache.runcache`): when nothing the output depends on has changed,
it is written again, before click or any reader is imported; else the native
command (:mod:`wavemetrics.run.fastpath`) makes the run when it can, still without
click. ``wavemetrics waves ...`` is planned likewise and made by its native command
(:mod:`wavemetrics.run.fastwaves`) when it can (never served: no stored output).
Every other command line, ``statusline --help`` included, and every run neither
takes go to :func:`wavemetrics.cli.commands.main`, which gets the summarize plan as
its context object.
"""

from __future__ import annotations

import gc
import sys

__all__ = ["main"]

#: The cyclic collector's first threshold in the command's process (CPython's default:
#: 700 allocations). A run makes many small objects that refcounting frees and few
#: cycles, so the default's ~130 young-generation passes over a large folder are
#: mostly wasted (~0.03 s of the 1,800-file fleet, docs/performance-history.md); at this
#: threshold cycles are still collected, in a handful of passes.
GC_THRESHOLD = 50_000


def main() -> None:
    """Run the command line named by ``sys.argv``."""
    args = sys.argv[1:]
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    if args[:1] == ["statusline"] and set(args[1:]) <= {"--no-cache"}:
        from wavemetrics.cli.statusline import run

        run(no_cache="--no-cache" in args)
        return
    plan = None
    if args[:1] == ["waves"]:
        from wavemetrics.run.plan import plan_of

        plan = plan_of(args[1:], "waves")
        if plan is not None:  # never served: the native command, when it takes the run
            from wavemetrics.run.fastwaves import run as waves_natively

            code = waves_natively(plan)
            if code is not None:
                raise SystemExit(code)
        plan = None  # click's waves takes no plan
    if args[:1] == ["summarize"]:
        from wavemetrics.run.plan import plan_of

        plan = plan_of(args[1:])  # options, files and the run key: worked out once
    if plan is not None:
        from wavemetrics.cache.runcache import serve

        code = serve(plan)
        if code is None:  # not served: the native command, when it takes the run
            from wavemetrics.run.fastpath import run as run_natively

            code = run_natively(plan)
        if code is not None:
            raise SystemExit(code)
    from wavemetrics.cli.commands import main as cli_main

    cli_main(obj=plan)  # the click command takes the plan's key when it is its run
