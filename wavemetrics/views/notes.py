"""The notes, warnings and errors ``summarize`` prints on stderr about its inputs.

One implementation for both ways a run is made: the CLI (:mod:`wavemetrics.cli.commands`,
from its read outcome) and the native command (:mod:`wavemetrics.run.fastpath`, from
the plain results of the extension). Light on purpose: nothing beyond the
standard library, :mod:`wavemetrics.inputs._files` and the option table (one constant) is
imported, so the native command stays free of click, attrs and the readers
(start-up time). Each function returns the lines (without ``\\n``, not yet
escaped: the caller escapes input text, docs/cli.md, "Escaping"); the rules are
docs/cli.md's, "Notes on stderr".
"""

from __future__ import annotations

import os

from wavemetrics.inputs._files import (
    AUTO,
    DETECT_LINES,
    DUPLICATE,
    EMPTY,
    SIDECAR_REASON,
    SKIPPED_UNRECOGNISED,
)
from wavemetrics.inputs._paths import absolute
from wavemetrics.inputs._suffixes import SESSION_SUFFIXES
from wavemetrics.run._options import TRACKED_CALL_BYTES

__all__ = [
    "NOTED_SESSIONS",
    "TRACKED_CALL_BYTES",
    "cap_advice",
    "input_notes",
    "plural",
    "read_notes",
    "repeated_lanes",
    "skipped_note",
    "subagent_notes",
    "window_note",
]


# The facts the notes read, as protocols for mypy only (mypy takes any TYPE_CHECKING as
# true): typing, re and collections are not imported at run time, since the native
# command prints these notes (~10 ms of its start-up, docs/performance-history.md, "Eleventh
# round").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Protocol

    class InputFacts(Protocol):
        """What the notes read of an input's report (``readers.lanes.InputReport`` has it)."""

        @property
        def path(self) -> str: ...
        @property
        def format(self) -> str: ...
        @property
        def error(self) -> str | None: ...
        @property
        def problems(self) -> Mapping[str, int]: ...
        @property
        def lines_read(self) -> int: ...
        @property
        def lines_used(self) -> int: ...
        @property
        def lines_ignored(self) -> int: ...

    class LaneFacts(Protocol):
        """What the notes read of a lane: where it was read, its session and lane ids."""

        @property
        def path(self) -> str: ...
        @property
        def session_id(self) -> str: ...
        @property
        def lane_id(self) -> str: ...

    class SkippedFacts(Protocol):
        """A file a folder walk skipped, and why (``pipeline.SkippedFile``)."""

        @property
        def path(self) -> str: ...
        @property
        def reason(self) -> str: ...




def cap_advice(cap: int | None) -> str:
    """What the loss line adds when calls were dropped at the per-lane cap ``cap``
    (``None`` when not known): how to lift the cap and what that costs, e.g. ``past the
    cap of 2000 calls per lane; --max-tracked-calls 0 lifts it, at about 200 bytes of
    memory per tracked call``."""
    where = f"the cap of {plural(cap, 'call')} per lane" if cap else "the per-lane call cap"
    return (f"past {where}; --max-tracked-calls 0 lifts it, at about {TRACKED_CALL_BYTES}"
            " bytes of memory per tracked call")


def plural(count: int, word: str) -> str:
    """``1 file``, ``2 files``."""
    return f"{count} {word}" + ("" if count == 1 else "s")


def window_note(window: str, waves: int, calls: int, lanes: int) -> str:
    """The note of a ``--since``/``--until`` window (``window``: its bounds as given,
    ``--since 2030-01-01``) that kept no wave of inputs that had ``waves`` waves of
    ``calls`` paired calls in ``lanes`` lanes (docs/cli.md, "A window that excludes
    everything says so")."""
    return (f"wavemetrics: note: the window {window} excluded every wave:"
            f" {plural(waves, 'wave')} ({plural(calls, 'paired call')}, in"
            f" {plural(lanes, 'lane')}) start outside it")


def input_notes(
    inputs: Sequence[InputFacts], same_as: Mapping[str, str], input_format: str,
) -> list[str]:
    """A line for each input read once as a copy, with an error, with unusable lines,
    empty, or with no tool call (an input whose every line was foreign to a forced
    ``input_format`` has an error: ``pipeline.read_inputs``)."""
    lines: list[str] = []
    for report in inputs:
        if report.format == DUPLICATE:
            lines.append(f"wavemetrics: note: {report.path}: the same content as"
                         f" {same_as[report.path]}, read once")
            continue
        if report.error is not None:
            lines.append(f"wavemetrics: error: {report.path}: {report.error}")
        elif report.problems:
            lost = ", ".join(f"{reason} {n}" for reason, n in report.problems.items())
            count = sum(report.problems.values())
            lines.append(
                f"wavemetrics: warning: {report.path}: {count} line"
                f"{'' if count == 1 else 's'} not usable ({lost})")
        elif report.format == EMPTY:
            folder = report.path != "-" and os.path.isdir(report.path)
            what = "empty folder (no files in it)" if folder else "empty input"
            lines.append(f"wavemetrics: note: {report.path}: {what}")
        if report.error is None and report.format != EMPTY and report.lines_used == 0:
            # nothing used under a format the user chose: perhaps the wrong one
            hint = (f"; is --input-format {input_format} right? (auto detects the format)"
                    if input_format != AUTO else "")
            lines.append(
                f"wavemetrics: note: {report.path}: no tool calls found in"
                f" {plural(report.lines_read, 'line')} read as {report.format}{hint}")
    return lines


def skipped_note(skipped: Sequence[SkippedFacts]) -> str:
    """The one stderr note on files a folder walk skipped: how many, in how many
    folders, and how many for each reason, most first (docs/cli.md); e.g. ``skipped 3
    files found in 1 folder, as they are not traces: 2 of no known format (judged by
    their first 64 lines) and 1 metadata sidecar (*.meta.json, written beside Claude
    Code sub-agents); summarize --format json lists them``."""
    count = len(skipped)
    folders = len({os.path.dirname(file.path) for file in skipped})
    parts = []
    counts: dict[str, int] = {}
    for file in skipped:
        counts[file.reason] = counts.get(file.reason, 0) + 1
    # most first, ties in order of first appearance (Counter.most_common's order)
    for reason, n in sorted(counts.items(), key=_count, reverse=True):
        if reason == SIDECAR_REASON:
            parts.append(f"{plural(n, 'metadata sidecar')} (*.meta.json, written beside"
                         " Claude Code sub-agents)")
        elif reason == SKIPPED_UNRECOGNISED:
            parts.append(f"{n} of no known format (judged by {'its' if n == 1 else 'their'}"
                         f" first {DETECT_LINES} lines)")
        else:
            parts.append(f"{n} ({reason})")
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    why, them = ("it is not a trace", "it") if count == 1 else ("they are not traces", "them")
    return (f"wavemetrics: note: skipped {plural(count, 'file')} found in"
            f" {plural(folders, 'folder')}, as {why}: {listed};"
            f" summarize --format json lists {them}")


def subagent_notes(
    paths: Sequence[str], inputs: Sequence[InputFacts], lanes: Sequence[LaneFacts],
    show_paths: bool | None,
) -> list[str]:
    """Notes on partial Claude Code sub-agent sets: a session file named (in ``paths``)
    without its ``<session>/subagents/`` folder being read, sub-agent files read without
    their session file, and old-layout sub-agent files read without theirs
    (:func:`old_layout_notes`; ``show_paths``: the command's ``--show-paths``, ``None``
    for a command without that option)."""
    lines: list[str] = []
    absolutes = [absolute(r.path) for r in inputs]
    read = set(absolutes)
    for path in paths:
        suffix = next((x for x in SESSION_SUFFIXES if path.endswith(x)), None)
        if suffix is None or not os.path.isfile(path):
            continue
        folder = os.path.join(path[: -len(suffix)], "subagents")
        if os.path.isdir(folder) and not any(p.startswith(absolute(folder)) for p in read):
            lines.append(
                f"wavemetrics: note: {path}: sub-agent files in {folder}/ were not read;"
                " pass the project folder to include their lanes")
    # <session>/subagents/agent-*.jsonl is Claude Code's layout (the only format with it)
    found: set[str] = set()
    for p, r in zip(absolutes, inputs, strict=True):
        # ("subagents" in the path first: most paths fail that cheap test)
        if r.error is None and "subagents" in p:
            folder = os.path.dirname(p)
            if os.path.basename(folder) == "subagents":
                found.add(os.path.dirname(folder))
    sessions = sorted(found)
    for session in sessions:
        if any(session + x in read for x in SESSION_SUFFIXES):
            continue
        present = [session + x for x in SESSION_SUFFIXES if os.path.isfile(session + x)]
        where = f"{present[0]} was not read" if present else "no session file was found"
        lines.append(
            f"wavemetrics: note: {session}/subagents/: sub-agent files read without their"
            f" session ({where}): the main lane is missing; pass the project folder")
    lines.extend(old_layout_notes(lanes, show_paths))
    return lines


def _count(item: tuple[str, int]) -> int:
    return item[1]


def _old_agent_file(name: str) -> bool:
    """Whether ``name`` is ``agent-<8 lowercase hex>.jsonl`` or that with ``.gz``: how
    Claude Code 1.0.x-2.0.x named each sub-agent's transcript, beside its session's file."""
    stem = name.removesuffix(".gz")
    return (len(stem) == 20 and stem.startswith("agent-") and stem.endswith(".jsonl")
            and all(c in "0123456789abcdef" for c in stem[6:14]))


#: Up to this many sessions get a note each; more get one line (``--show-paths``: each).
NOTED_SESSIONS = 3


def old_layout_notes(lanes: Sequence[LaneFacts], show_paths: bool | None) -> list[str]:
    """Notes on sessions read only from old-layout sub-agent files (``agent-<8hex>.jsonl``
    beside the session file, Claude Code 1.0.x-2.0.x) whose main lane is missing: the
    session file ``<sessionId>.jsonl`` was not among the inputs (docs/formats.md).
    A note each for up to :data:`NOTED_SESSIONS` sessions (or with ``show_paths``);
    past that one line, naming the first folders (docs/cli.md)."""
    with_main = {lane.session_id for lane in lanes if lane.lane_id == "main"}
    partial: dict[tuple[str, str], set[str]] = {}
    for lane in lanes:
        # ("agent-" in the path first: a cheap test most paths fail)
        if lane.session_id in with_main or "agent-" not in lane.path or not _old_agent_file(
                os.path.basename(lane.path)):
            continue
        if os.path.basename(os.path.dirname(lane.path)) == "subagents":
            continue  # the new layout: noted by subagent_notes
        partial.setdefault((os.path.dirname(lane.path), lane.session_id), set()).add(lane.path)
    if len(partial) > NOTED_SESSIONS and not show_paths:
        folders = sorted({folder for folder, _ in partial})
        named = ", ".join(folders[:NOTED_SESSIONS])
        more = len(folders) - NOTED_SESSIONS
        listed = "; --show-paths notes each session" if show_paths is not None else ""
        return [
            f"wavemetrics: note: {len(partial)} sessions read only from"
            f" {plural(sum(map(len, partial.values())), 'sub-agent file')}"
            " (agent-<8hex>.jsonl) without the session's own file: their main lanes are"
            f" missing (in {plural(len(folders), 'folder')}: {named}"
            f"{f' and {more} more' if more > 0 else ''}{listed})"]
    lines: list[str] = []
    for (folder, session), files in partial.items():
        present = [os.path.join(folder, session + x) for x in SESSION_SUFFIXES
                   if os.path.isfile(os.path.join(folder, session + x))]
        where = f"{present[0]} was not read" if present else f"no {session}.jsonl in {folder}"
        lines.append(
            f"wavemetrics: note: session {session}: {plural(len(files), 'sub-agent file')}"
            f" (agent-<8hex>.jsonl) read without the session's own file ({where}):"
            " the main lane is missing")
    return lines


def repeated_lanes(lanes: Sequence[LaneFacts]) -> dict[tuple[str, str], tuple[str, ...]]:
    """``(session_id, lane_id)`` of lanes read from more than one input, with those inputs
    in lane order (``ReadOutcome.repeated_lanes``): each is summarised once per input (no
    format rule de-duplicates them; Claude Code and pi copies in one folder are)."""
    seen: dict[tuple[str, str], list[str]] = {}
    for lane in lanes:
        seen.setdefault((lane.session_id, lane.lane_id), []).append(lane.path)
    return {key: tuple(paths) for key, paths in seen.items() if len(paths) > 1}


def read_notes(
    paths: Sequence[str], inputs: Sequence[InputFacts], lanes: Sequence[LaneFacts],
    same_as: Mapping[str, str], skipped: Sequence[SkippedFacts],
    repeated: Mapping[tuple[str, str], Sequence[str]], input_format: str,
    show_paths: bool | None,
) -> list[str]:
    """Every line a read of ``paths`` prints on stderr, in order: the inputs'
    (:func:`input_notes`), the skipped files' (:func:`skipped_note`), the sub-agent
    sets' (:func:`subagent_notes`), then each lane read from several inputs
    (``repeated``: ``ReadOutcome.repeated_lanes``)."""
    lines = input_notes(inputs, same_as, input_format)
    if skipped:
        lines.append(skipped_note(skipped))
    lines.extend(subagent_notes(paths, inputs, lanes, show_paths))
    for (session_id, lane_id), where in repeated.items():
        lines.append(f"wavemetrics: note: {session_id}/{lane_id} was read from"
                     f" {len(where)} inputs ({', '.join(where)}); each is counted")
    return lines
