"""One call from trace files to figures: :func:`summarize_paths`, ``summarize --format json``.

The command line's ``summarize`` reads paths; :func:`wavemetrics.summarize` summarises
one lane's waves. A Python user with a trace file wants the first: this module gives
it as a function that returns the document the command prints with ``--format json``,
built by the same functions (the reading of ``wavemetrics.run.pipeline``, the time window
of ``wavemetrics.cli.commands`` and the renderers of ``wavemetrics.views.report`` and
``wavemetrics.views.groups``), so that the two never differ (``tests/test_api.py`` compares
them, option by option).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from wavemetrics.cli._names import (
    AUTO,
    DEFAULT_MAX_DOCUMENT_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MAX_TRACKED_CALLS,
    ENGINES,
)

__all__ = ["BY_CHOICES", "summarize_paths"]

#: The groupings of ``by`` (``summarize --by``).
BY_CHOICES = ("session", "lane", "project", "day", "week", "month", "tool")


def _path(value: object) -> str:
    """One PATH argument as the command line takes it: a ``str`` or an ``os.PathLike``
    of one. Raises ``TypeError`` for anything else, with the call to write for a list."""
    if isinstance(value, (list, tuple, set, frozenset)):
        raise TypeError(
            "summarize_paths() takes each path as its own argument:"
            " summarize_paths(*paths), not summarize_paths(paths)")
    path = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(path, str):
        raise TypeError(
            f"summarize_paths() takes paths as str or os.PathLike of str, not"
            f" {type(value).__name__}")
    return path


def summarize_paths(
    *paths: str | os.PathLike[str],
    input_format: str = AUTO,
    eval_tools: Iterable[str] | None = None,
    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
    since: str | None = None,
    until: str | None = None,
    timezone: str | None = None,
    by: str | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES,
    engine: str | None = None,
    jobs: int = 1,
    cache: bool = False,
    batchable_tools: Iterable[str] | None = None,
    idle_gap_ms: float | None = None,
) -> dict[str, Any]:
    """Read trace files and folders and return what ``wavemetrics summarize --format json``
    prints for them, as a dict: ``json.loads`` of the command's output with the same options.

    >>> from wavemetrics.cli.commands import demo_path
    >>> document = summarize_paths(demo_path())
    >>> document["total"]["modeled_wallclock_saved_ms"], len(document["lanes"])
    (2021753.0, 7)

    ``paths``: files, folders (read recursively) or ``"-"`` (stdin), as the command's
    PATH arguments, each a ``str`` or ``os.PathLike``. Every other argument is the
    command's option of that name: ``input_format`` (``--input-format``: ``"auto"`` or
    a format name), ``eval_tools`` (``--eval-tool``: the eval tool names, replacing the
    defaults ``eval``, ``codemode``, ``code_mode``), ``max_tracked_calls`` (the per-lane
    cap, default 2000; ``0`` or ``None``: unbounded), ``since``/``until``/``timezone``
    (the time window, as the command parses them), ``by`` (one of :data:`BY_CHOICES`:
    the ``--by`` document, ``groups`` in place of ``lanes``), ``max_line_bytes`` and
    ``max_document_bytes`` (the byte limits), ``engine`` (``"native"`` or ``"python"``;
    ``None``: native when the extension is built; the document is the same), ``jobs``
    (processes, or the native engine's threads; default 1, no process is started; the
    document is the same for any number), ``batchable_tools`` (``--batchable-tools``:
    the batchable tool names, replacing the defaults; empty: none; ``None``: the
    defaults) and ``idle_gap_ms`` (``--idle-gap``, here in ms: 300000.0 when ``None``;
    0 disables idle time; docs/metrics.md section 9). ``cache=True`` reads unchanged files through
    the user's read cache, as the command does by default; the default ``False``
    leaves no file behind.

    Bad data never raises: an input that cannot be read or recognised (a missing
    file, an unknown format, a file past the limits) is reported in the document as
    the command reports it, with its ``error`` set in ``inputs``, and the other inputs
    are still summarised: where the command exits with status 1, look for
    ``any(i["error"] for i in document["inputs"])``. Lines that could not be used are
    counted in each input's ``problems``. Nothing is printed: the command's warnings on
    stderr are made from these same fields.

    Raises ``TypeError`` when a path is neither ``str`` nor ``os.PathLike`` (a list
    given as one argument included: write ``summarize_paths(*paths)``), ``eval_tools``
    or ``batchable_tools`` is a single ``str``, or ``idle_gap_ms`` is not a number;
    ``ValueError`` for a negative or infinite ``idle_gap_ms``, for no path at all, an unknown
    ``input_format``, ``by`` or ``engine`` (``"native"`` too when the extension is not
    built), an empty ``eval_tools``, a negative cap, a byte limit or ``jobs`` below 1, a
    bound or zone that cannot be read, or ``since`` not before ``until`` (the message
    is the command's usage error).
    """
    from wavemetrics.core.classify import EVAL_TOOL_NAMES, check_eval_names

    files = [_path(path) for path in paths]
    if not files:
        raise ValueError("summarize_paths() needs at least one path (a file, a folder or '-')")
    if isinstance(eval_tools, str):  # named as the caller wrote it, not as classify does
        raise TypeError(f"eval_tools is a collection of names, not one str:"
                        f" write eval_tools=[{eval_tools!r}]")
    names = EVAL_TOOL_NAMES if eval_tools is None else tuple(check_eval_names(eval_tools))
    if not names:  # the command cannot say "no eval name": its --eval-tool takes one or more
        raise ValueError("eval_tools is empty: give one name or more, or None for the defaults")
    if max_tracked_calls is not None and max_tracked_calls < 0:
        raise ValueError(f"max_tracked_calls must be >= 0 (0: unbounded), not {max_tracked_calls}")
    cap = max_tracked_calls or None  # the command's 0: unbounded
    if by is not None and by not in BY_CHOICES:
        raise ValueError(f"by must be one of {', '.join(BY_CHOICES)}, not {by!r}")
    if engine is not None and engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if min(max_line_bytes, max_document_bytes, jobs) < 1:
        raise ValueError("max_line_bytes, max_document_bytes and jobs must be >= 1")
    return _document(files, input_format, names, cap, since, until, timezone, by,
                     max_line_bytes, max_document_bytes, engine, jobs, cache,
                     _activity(batchable_tools, idle_gap_ms))


def _activity(batchable_tools: Iterable[str] | None, idle_gap_ms: float | None) -> dict[str, Any]:
    """The section-9 parameters checked, as :class:`StreamSettings`'s keyword arguments."""
    from wavemetrics.core.activity import (
        BATCHABLE_TOOL_NAMES,
        DEFAULT_IDLE_GAP_MS,
        check_idle_gap,
    )

    if isinstance(batchable_tools, str):
        raise TypeError(f"batchable_tools is a collection of names, not one str:"
                        f" write batchable_tools=[{batchable_tools!r}]")
    names = BATCHABLE_TOOL_NAMES if batchable_tools is None else tuple(batchable_tools)
    gap = DEFAULT_IDLE_GAP_MS if idle_gap_ms is None else check_idle_gap(idle_gap_ms)
    return {"batchable_tool_names": names, "idle_gap_ms": gap}


def _document(
    files: list[str], input_format: str, eval_tools: tuple[str, ...], cap: int | None,
    since: str | None, until: str | None, timezone: str | None, by: str | None,
    max_line_bytes: int, max_document_bytes: int, engine: str | None, jobs: int,
    cache: bool, activity: dict[str, Any],
) -> dict[str, Any]:
    """The body of :func:`summarize_paths`, arguments checked: the command's
    ``_summarize`` without its printing."""
    from wavemetrics.cli.commands import _windowed, open_cache
    from wavemetrics.cli.timewindow import BadMoment, Window
    from wavemetrics.readers.limits import Limits
    from wavemetrics.run.native import available, default_engine
    from wavemetrics.run.parallel import process_mapper
    from wavemetrics.run.pipeline import StreamSettings, analyse, read_inputs

    if engine == "native" and not available():
        raise ValueError("engine 'native': the Rust extension is not built (or is stale)")
    try:
        window = Window(since, until, timezone)
    except BadMoment as error:
        raise ValueError(str(error)) from None
    limits = Limits(max_line_bytes, max_document_bytes)
    store = open_cache(not cache)
    with process_mapper(jobs) as mapper:
        # as the command: slicing by time needs each lane's calls (a batch read)
        if window.active or by in ("day", "week", "month", "tool"):
            batch = read_inputs(files, input_format, mapper=mapper, cache=store, limits=limits,
                                engine=engine or default_engine(), jobs=jobs)
            if window.active:
                batch = _windowed(batch, window)
            analysis: Any = analyse(batch, eval_tool_names=eval_tools, max_tracked_calls=cap,
                                    **activity)
        else:
            settings = StreamSettings(cap, eval_tools, engine=engine or default_engine(),
                                      jobs=jobs, **activity)
            outcome = read_inputs(files, input_format, stream=settings, mapper=mapper,
                                  cache=store, limits=limits)
            analysis = analyse(outcome)
    from wavemetrics.run._options import options_record

    # the record the command writes (docs/cli.md, "Options in the output")
    options = options_record(
        input_format=input_format, eval_tools=eval_tools,
        batchable_tools=activity["batchable_tool_names"], idle_gap_ms=activity["idle_gap_ms"],
        max_tracked_calls=cap,
        max_line_bytes=max_line_bytes, max_document_bytes=max_document_bytes,
        since=window.since_text, until=window.until_text, timezone=window.timezone, by=by)
    if by is not None:
        from wavemetrics.views.groups import group_document

        grouped = group_document(analysis, by, zone=window.zone, eval_tool_names=eval_tools,
                                 max_tracked_calls=cap, options=options, **activity)
        # as printed: what JSON makes of it (lists for tuples, str keys)
        return json.loads(json.dumps(grouped, allow_nan=False))  # type: ignore[no-any-return]
    from wavemetrics.views.report import render_json

    return json.loads(render_json(analysis, options))  # type: ignore[no-any-return]
