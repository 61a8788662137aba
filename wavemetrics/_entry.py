"""The ``wavemetrics`` console script: the status line without click, the rest through it.

Claude Code runs the status-line command after every message, so
``wavemetrics statusline`` (alone or with ``--no-cache``) is answered without
importing click, attrs, the readers or the core (issue 13: p95 < 100 ms warm);
every other command line, ``statusline --help`` included, goes to
:func:`wavemetrics.cli.main`.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> None:
    """Run the command line named by ``sys.argv``."""
    args = sys.argv[1:]
    if args[:1] == ["statusline"] and set(args[1:]) <= {"--no-cache"}:
        from wavemetrics.statusline import run

        run(no_cache="--no-cache" in args)
        return
    from wavemetrics.cli import main as cli_main

    cli_main()
