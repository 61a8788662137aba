"""A ``summarize`` (or ``waves``) command line planned once, at the console entry, and
passed along.

``wavemetrics summarize ARGS`` can end in three places: the stored output of an
identical earlier run (:func:`wavemetrics.cache.runcache.serve`), the native command
(:func:`wavemetrics.run.fastpath.run`), or the click command
(:func:`wavemetrics.cli.commands.summarize`). Each needs the same facts: the options
as the option table parses them, the files the run reads, and the run's key taken
before any read (the one the output is served by and stored under). A :class:`Plan`
holds them, worked out once by the entry (:func:`plan_of`) and handed to each step in
turn (to click as its context object), so that no step walks the inputs again and no
step leaves a fact behind in a module for the next one to pick up. A ``waves`` run is
planned the same way for its native command (:func:`wavemetrics.run.fastwaves.run`)
only: it is never served nor stored (its plan is not :attr:`Plan.cached`).

Light on purpose (stdlib only at import, no ``typing`` at run time): the entry builds
a plan before click, the readers or the core load.
"""

from __future__ import annotations

# typing is not imported at run time (start-up time); mypy takes any TYPE_CHECKING
# as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from wavemetrics.cache.runcache import RunState

__all__ = ["WAVES_FORMATS", "WAVES_OPTIONS", "Plan", "plan_of"]


class Plan:
    """One ``summarize`` (or ``waves``: ``command``) run: ``options`` (the keyed options, as
    :func:`~wavemetrics.cache.runcache.options_from_args` gives them: ``--no-cache`` as
    given), ``files`` (the inputs it reads:
    :func:`~wavemetrics.cache.runcache.resolve_files`), and :meth:`state`, the run key
    and what it hashes, taken once, before any read."""

    __slots__ = ("_state", "_taken", "command", "files", "options")

    def __init__(self, options: dict[str, Any], files: list[str],
                 command: str = "summarize") -> None:
        self.options, self.files, self.command = options, files, command
        self._state: RunState | None = None
        self._taken = False

    @property
    def cached(self) -> bool:
        """Whether the run may be served and stored (``summarize`` without
        ``--no-cache``)."""
        return self.command == "summarize" and not self.options.get("no_cache")

    def state(self) -> RunState | None:
        """The run's key and what it hashes (:func:`~wavemetrics.cache.runcache.fingerprint`),
        taken on the first call (before the run reads) and the same on every later one;
        ``None`` when the run is never cached (``--no-cache``, an input that is not a
        regular file...) or its inputs cannot be looked at."""
        if not self._taken:
            self._taken = True
            if self.cached:
                from wavemetrics.cache.runcache import run_state

                self._state = run_state(self.options, self.files)
        return self._state

    def serves(self, options: dict[str, Any], files: Sequence[str]) -> bool:
        """Whether this plan is the run of ``options`` reading ``files`` (click's view of
        the same command line: then its key is this plan's)."""
        return self.options == options and self.files == list(files)


#: The options of ``waves`` (the option table's names: ``commands.waves``'s parameters).
WAVES_OPTIONS = frozenset((
    "paths", "input_format", "eval_tools", "batchable_tools", "idle_gap_ms",
    "max_tracked_calls", "max_line_bytes", "max_document_bytes", "jobs", "no_cache",
    "since", "until", "timezone", "demo", "output_format", "show_paths"))

#: The ``--format`` choices of ``waves``.
WAVES_FORMATS = ("table", "json", "csv")


def plan_of(args: Sequence[str], command: str = "summarize") -> Plan | None:
    """The plan of ``wavemetrics COMMAND ARGS`` (``summarize`` or ``waves``), or ``None``
    when the entry leaves the
    command line to click as it is: anything the option table's parser is not sure of
    (``--help``, an unknown option, a bad number; for ``waves``, an
    option or ``--format`` it does not have), no PATH with
    ``--no-cache`` and no data piped in (nothing to serve: the standard locations are
    looked up once, by click), or no
    inputs to plan (:func:`~wavemetrics.cache.runcache.resolve_files`: a
    usage error such as ``--demo PATH``, no default location found). ``-`` (stdin) is a
    path, and with no PATH, piped input is the file ``-``, as the CLI reads it."""
    from wavemetrics.cache.runcache import options_from_args, resolve_files

    options = options_from_args(args)
    if options is not None and command == "waves" and not (
            set(options) <= WAVES_OPTIONS
            and options.get("output_format", "table") in WAVES_FORMATS):
        return None
    if options is None:
        return None
    if options.get("no_cache") and not options["paths"] and not options.get("demo"):
        # nothing to serve: piped input is read as ``-``; else the default locations are
        # looked up once, by click
        from wavemetrics.inputs._stdin import stdin_has_data

        return Plan(options, ["-"], command) if stdin_has_data() else None
    try:
        files = resolve_files(options)
    except (OSError, ValueError):  # the default locations could not be looked at
        return None
    return None if files is None else Plan(options, files, command)
