"""``wavemetrics statusline``: one short line for Claude Code's status line (issue 13).

Claude Code runs the configured command with a JSON object on stdin whose
``transcript_path`` names the current session's transcript, and shows the
first line printed (https://docs.claude.com/en/docs/claude-code/statusline).
This module answers with the session's waves, multi-call waves (non_eval waves
of 2+ calls) and modeled wall-clock saving, e.g.
``waves 42 · multi 7 · saved 12.3s``.

It never fails the prompt: bad or missing input gives one line and exit 0.
Once a transcript version has been read, its three figures are kept in the
cache (``wavemetrics.cache``, table ``figures``) and answered from there
without importing the readers or the core. A Claude Code transcript that grew
is answered from its live state (:mod:`wavemetrics.live`): only its new lines
are read and summarised.
"""

from __future__ import annotations

import json
from typing import Any

from wavemetrics.cache import (
    FileKey,
    ReadCache,
    detection_mode,
    file_key,
    limits_key,
    unit_key,
)
from wavemetrics.escaping import printable

__all__ = ["format_figures", "run", "status_line"]

_FIGURES = "statusline-v1"


def format_figures(waves: int, multi: int, saved_ms: float) -> str:
    """The line for a session's figures; the saving in seconds with one decimal.

    >>> format_figures(42, 7, 12345.0)
    'waves 42 · multi 7 · saved 12.3s'
    """
    return f"waves {waves} · multi {multi} · saved {saved_ms / 1000:.1f}s"


def _figures_key() -> str:
    # the status line always reads with the default limits (it has no options)
    return f"{_FIGURES}/{limits_key(None)}"


def _transcript_path(text: str) -> str | None:
    try:
        payload: Any = json.loads(text)
    except ValueError:
        return None
    path = payload.get("transcript_path") if isinstance(payload, dict) else None
    return path if isinstance(path, str) and path else None


def _compute(path: str, key: FileKey, cache: ReadCache | None) -> tuple[int, int, float] | None:
    if cache is not None:
        from wavemetrics.live import live_figures  # a grown transcript: its new lines only
        from wavemetrics.readers.claude_code import FORMAT

        figures = live_figures(path, key, cache)
        if figures is not None:
            cache.store_detection(key, detection_mode("auto", None), FORMAT)
            cache.store_json(unit_key(FORMAT, [key], _figures_key()), list(figures))
            return figures
    from wavemetrics.pipeline import analyse, read_inputs

    outcome = read_inputs([path], cache=cache)
    if outcome.failed or not outcome.inputs:
        return None
    total = analyse(outcome).total
    figures = (total.waves_total, total.non_eval_waves_multi, total.modeled_wallclock_saved_ms)
    if cache is not None:
        fmt = outcome.inputs[0].format
        cache.store_json(unit_key(fmt, [key], _figures_key()), list(figures))
    return figures


def status_line(stdin_text: str, cache: ReadCache | None) -> str:
    """The one line for Claude Code's status-line JSON ``stdin_text``; never raises."""
    path = _transcript_path(stdin_text)
    if path is None:
        if not stdin_text.strip():
            return "wavemetrics: no status-line JSON on stdin"
        try:
            json.loads(stdin_text)
        except ValueError:
            return "wavemetrics: stdin is not the status-line JSON"
        return "wavemetrics: no transcript_path on stdin"
    key = file_key(path)
    if key is None:
        return "wavemetrics: no transcript yet"
    try:
        if cache is not None:
            fmt = cache.detection(key, detection_mode("auto", None))
            if fmt is not None:
                known = cache.load_json(unit_key(fmt, [key], _figures_key()))
                if isinstance(known, list) and len(known) == 3:
                    return format_figures(int(known[0]), int(known[1]), float(known[2]))
        figures = _compute(path, key, cache)
    except Exception as error:  # a status line must never break the prompt
        return f"wavemetrics: unavailable ({type(error).__name__})"
    if figures is None:
        return "wavemetrics: transcript not readable"
    return format_figures(*figures)


def run(*, no_cache: bool = False) -> None:
    """Read stdin, print the line (stdout), never raise: ``wavemetrics statusline``."""
    import sys

    try:
        text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    except (OSError, ValueError, UnicodeDecodeError):
        text = ""
    try:
        store = None if no_cache else ReadCache()
    except Exception:  # no usable cache directory: still one line
        store = None
    line = printable(status_line(text, store)) + "\n"  # as every text output (docs/cli.md)
    out = getattr(sys.stdout, "buffer", None)
    if out is not None:  # UTF-8 whatever the locale: "·" must never fail the prompt
        sys.stdout.flush()
        out.write(line.encode("utf-8"))
        out.flush()
    else:
        sys.stdout.write(line)
