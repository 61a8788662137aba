"""``wavemetrics statusline``: one short line for Claude Code's status line.

Claude Code runs the configured command with a JSON object on stdin whose
``transcript_path`` names the current session's transcript, and shows the
first line printed (https://docs.claude.com/en/docs/claude-code/statusline).
This module answers with the session's waves, multi-call waves (non_eval waves
of 2+ calls) and modeled wall-clock saving, e.g.
``waves 42 · multi 7 · saved 12.3s``.

The session is the transcript *and* its sub-agents: Claude Code (2.1+) writes
each sub-agent's transcript to ``<session>/subagents/agent-*.jsonl`` beside
``<session>.jsonl``, and sub-agents run in parallel with the main thread, so
their lanes are read too and the figures are summed over the session's lanes
(as ``compare`` counts a session as one trial); the line then ends with
``· N sub-agents``. With ``--turns`` the line also gives the session's *multi-call
share*, the share of its model turns that issued two or more calls
(``multi_call_turns / batched_turns``, rounded down; docs/cli.md, "The turns
block"), as ``· turns 30% multi``, left out when the transcript records no
turn. Old-layout sub-agent files (``agent-<8hex>.jsonl`` beside
the session, Claude Code 1.0.x-2.0.x) are not looked for: finding them means
reading every such file of the project folder.

It never fails the prompt: bad or missing input gives one line and exit 0.
Once a version of the session's files has been read, the line is kept as one
entry of the whole outputs (:func:`wavemetrics.cache.runcache.statusline_key`, files of
:class:`wavemetrics.cache.runcache.RunStore`) and answered from there without importing SQLite,
the readers or the core. A Claude Code transcript without sub-agent files that
grew is answered from its live state (:mod:`wavemetrics.cache.live`): only its new
lines are read and summarised.
"""

from __future__ import annotations

import json
import os
import stat

# no typing import at run time (start-up of the served answer); mypy takes any
# TYPE_CHECKING as true
TYPE_CHECKING = False
if TYPE_CHECKING:  # loaded only when a transcript is read (an answer not kept)
    from typing import Any

    from wavemetrics.cache.runcache import RunStore
    from wavemetrics.readers.lanes import InputReport

__all__ = ["format_figures", "run", "session_files", "status_line", "turn_share"]


def format_figures(
    waves: int, multi: int, saved_ms: float, subagents: int = 0,
    turn_share: int | None = None,
) -> str:
    """The line for a session's figures; the saving in seconds with one decimal;
    ``subagents``: how many sub-agent files were read with the transcript;
    ``turn_share``: the multi-call share of the turns as a whole percentage
    (``--turns``), or ``None`` to leave it out.

    >>> format_figures(42, 7, 12345.0)
    'waves 42 · multi 7 · saved 12.3s'
    >>> format_figures(105, 10, 2021753.0, 6, 30)
    'waves 105 · multi 10 · saved 2021.8s · turns 30% multi · 6 sub-agents'
    """
    line = f"waves {waves} · multi {multi} · saved {saved_ms / 1000:.1f}s"
    if turn_share is not None:
        line += f" · turns {turn_share}% multi"
    if subagents:
        line += f" · {subagents} sub-agent{'' if subagents == 1 else 's'}"
    return line


def session_files(transcript: str) -> list[str]:
    """The transcript, then its sub-agent files ``<session>/subagents/agent-*.jsonl``
    (sorted; Claude Code 2.1+), where the transcript is ``<session>.jsonl``."""
    import os

    if not transcript.endswith(".jsonl"):
        return [transcript]
    folder = os.path.join(transcript[: -len(".jsonl")], "subagents")
    try:
        names = os.listdir(folder)
    except OSError:
        return [transcript]
    agents = sorted(os.path.join(folder, name) for name in names
                    if name.startswith("agent-") and name.endswith(".jsonl"))
    return [transcript, *agents]


#: The lines for input that names no transcript, or a transcript that cannot be read.
NO_INPUT = "wavemetrics: no status-line JSON on stdin"
NOT_JSON = "wavemetrics: stdin is not the status-line JSON"
NOT_AN_OBJECT = "wavemetrics: status-line input is not a JSON object"
NO_PATH = "wavemetrics: no transcript_path on stdin"
NOT_A_PATH = "wavemetrics: transcript_path is not a file path"
NOT_YET = "wavemetrics: no transcript yet"
NO_FOLDER = "wavemetrics: transcript_path's folder does not exist"
A_FOLDER = "wavemetrics: transcript_path is a folder"
NOT_A_FILE = "wavemetrics: transcript_path is not a regular file"
NOT_READABLE = "wavemetrics: transcript not readable"
NOT_A_TRANSCRIPT = "wavemetrics: not a Claude Code transcript"
NO_LINE_YET = "wavemetrics: no complete line in the transcript yet"
NO_USABLE_LINE = "wavemetrics: no usable line in the transcript"
#: How much of a file with no line end is looked at to call it "no complete line yet".
_FIRST_LINE_BYTES = 1 << 20


def _transcript_path(text: str) -> tuple[str | None, str]:
    """``(path, "")`` from the status-line JSON ``text``, or ``(None, line)``: why not."""
    if not text.strip():
        return None, NO_INPUT
    try:
        payload: Any = json.loads(text)
    except ValueError:
        return None, NOT_JSON
    if not isinstance(payload, dict):
        return None, NOT_AN_OBJECT
    if "transcript_path" not in payload:
        return None, NO_PATH
    path = payload["transcript_path"]
    return (path, "") if isinstance(path, str) and path else (None, NOT_A_PATH)


def _no_file(path: str) -> str:
    """Why ``path``, which has no cache key, is not a transcript to read (one line)."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        # Claude Code names the file before it writes its first line, in a project folder
        # that exists; a path whose folder is missing is a wrong path, not a new session
        return NOT_YET if os.path.isdir(os.path.dirname(path) or ".") else NO_FOLDER
    except (OSError, ValueError):
        return NOT_READABLE
    return A_FOLDER if stat.S_ISDIR(info.st_mode) else NOT_A_FILE


#: Waves, multi-call waves, saving (ms), sub-agent files read, and the multi-call share
#: of the turns in whole percent (``None``: not asked for, or no turn recorded).
Figures = tuple[int, int, float, int, "int | None"]


def turn_share(multi_call_turns: int, batched_turns: int) -> int | None:
    """The multi-call share of the turns, ``100 * multi_call_turns / batched_turns``
    rounded down, or ``None`` without a turn (docs/cli.md, "The turns block").

    >>> turn_share(23, 75), turn_share(0, 0)
    (30, None)
    """
    return None if batched_turns == 0 else 100 * multi_call_turns // batched_turns


def _compute(paths: list[str], directory: str | None, turns: bool = False) -> Figures | str:
    """The session's figures, or the line saying why its transcript was not read
    (``directory``: the cache folder, ``None`` without the cache; ``turns``: with the
    multi-call share of the turns, which the live state does not keep, so the files are
    read through the read cache)."""
    from wavemetrics.cache.units import ReadCache, file_key

    cache = None if directory is None else ReadCache(directory)
    key = file_key(paths[0])
    if cache is not None and key is not None and len(paths) == 1 and not turns:
        # a transcript without sub-agent files that grew: its new lines only
        from wavemetrics.cache.live import live_figures

        live = live_figures(paths[0], key, cache)
        if live is not None:
            return (*live, 0, None)
    from wavemetrics.run.pipeline import analyse, read_inputs

    outcome = read_inputs(paths, cache=cache)
    main = next((r for r in outcome.inputs if r.path == paths[0]), None)
    if main is None or (main.error is not None and not _only_cut_short(main)):
        if main is not None and main.format is not None and main.lines_read > 0:
            return NO_USABLE_LINE  # read, recognised, but every line ignored or damaged
        return _not_read(paths[0])
    # a sub-agent file that cannot be read is left out; the others still count
    readable = {r.path for r in outcome.inputs if r.path != paths[0] and r.error is None}
    total = analyse(outcome).total
    share = turn_share(total.multi_call_turns, total.batched_turns) if turns else None
    return (total.waves_total, total.non_eval_waves_multi, total.modeled_wallclock_saved_ms,
            len(readable), share)


def _only_cut_short(report: InputReport) -> bool:
    """A recognised transcript whose one problem is its last line, cut short (Claude Code
    is writing it), and that has no line used yet: a live session's state, shown as its
    figures so far (zero), not as an error (``summarize`` reports it as one)."""
    return (report.format is not None and report.lines_used == 0
            and set(report.problems) == {"truncated_last_line"})


def _not_read(path: str) -> str:
    """Why the transcript ``path`` gave no figures: no line end yet (its first line is
    being written), content of no format the readers measure (it read, but is not what
    Claude Code writes), else an error reading it."""
    from wavemetrics.readers.dispatch import detect_input
    from wavemetrics.readers.registry import UNMEASURABLE

    detection = detect_input(path)
    other = detection.unrecognised or detection.error in {e.reason for e in UNMEASURABLE}
    if detection.unrecognised and _no_line_end(path):
        return NO_LINE_YET
    return NOT_A_TRANSCRIPT if other else NOT_READABLE


def _no_line_end(path: str) -> bool:
    # a plain file of at most 1 MiB without a single line end: a first line being written
    try:
        with open(path, "rb") as handle:
            head = handle.read(_FIRST_LINE_BYTES + 1)
    except OSError:
        return False
    return len(head) <= _FIRST_LINE_BYTES and b"\n" not in head and not head.startswith(
        b"\x1f\x8b")


def _served(store: RunStore, state: tuple[str, str]) -> str | None:
    """The line kept for the session state ``state`` (:func:`statusline_key`), or ``None``."""
    from wavemetrics.cache.runcache import decode_output

    blob = store.load(*state)
    if blob is None:
        return None
    try:
        _code, chunks = decode_output(blob)
        return b"".join(data for stream, data in chunks if stream == 1).decode("utf-8")
    except ValueError:  # UnicodeDecodeError included: a miss
        return None


def _keep(store: RunStore, paths: list[str], state: tuple[str, str], stats: list[Any] | None,
          line: str) -> None:
    """Keep ``line`` as the answer for ``state`` (taken before the read with the files'
    ``stats``) unless the session's files changed while they were read; then keep the
    cache within its bound. Never raises: a line not kept is still the answer."""
    from wavemetrics.cache.runcache import encode_output, session_stats

    try:
        if stats is None or session_stats(paths) != stats or not store.store(
                *state, encode_output(0, [(1, line.encode("utf-8"))])):
            return
        if store.over_bound():
            from wavemetrics.cache.units import ReadCache

            ReadCache(store.directory).keep_within()
    except Exception:  # a status line must never break the prompt
        return


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def status_line(stdin_text: str, directory: str | None, turns: bool = False) -> str:
    """The one line for Claude Code's status-line JSON ``stdin_text``, answered from and
    kept in the whole outputs of the cache folder ``directory`` (``None``: no cache);
    ``turns``: with the multi-call share of the turns (``--turns``); never raises."""
    path, why = _transcript_path(stdin_text)
    if path is None:
        return why
    if not _regular(path):
        return _no_file(path)
    paths = session_files(path)
    store = state = stats = None
    try:
        if directory is not None:
            from wavemetrics.cache.runcache import (
                RUNS_FOLDER,
                RunStore,
                session_stats,
                statusline_key,
            )

            store = RunStore(os.path.join(directory, RUNS_FOLDER))
            stats = session_stats(paths)
            state = None if stats is None else statusline_key(stats, turns=turns)
            line = None if state is None else _served(store, state)
            if line is not None:
                return line
        figures = _compute(paths, directory, turns)
        if isinstance(figures, str):
            return figures
        waves, multi, saved, subagents, share = figures
        line = format_figures(waves, multi, saved, subagents, share)
    except Exception as error:  # a status line must never break the prompt
        return f"wavemetrics: unavailable ({type(error).__name__})"
    if store is not None and state is not None:
        _keep(store, paths, state, stats, line)
    return line


def run(*, no_cache: bool = False, turns: bool = False) -> None:
    """Read stdin, print the line (stdout), never raise: ``wavemetrics statusline``
    (``turns``: ``--turns``, with the multi-call share of the turns)."""
    import sys

    try:
        text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    except (OSError, ValueError, UnicodeDecodeError):
        text = ""
    directory = None
    if not no_cache:
        from wavemetrics.cache._cachedir import cache_dir

        try:
            directory = cache_dir()
        except Exception:  # no usable cache directory: still one line
            directory = None
    line = status_line(text, directory, turns)
    if not line.isprintable():  # as every text output (docs/cli.md); the figures never need it
        from wavemetrics.views.escaping import printable

        line = printable(line)
    line += "\n"
    out = getattr(sys.stdout, "buffer", None)
    if out is not None:  # UTF-8 whatever the locale: "·" must never fail the prompt
        sys.stdout.flush()
        out.write(line.encode("utf-8"))
        out.flush()
    else:
        sys.stdout.write(line)
