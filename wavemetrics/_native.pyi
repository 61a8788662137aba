"""Types of the Rust extension ``wavemetrics._native`` (``native/src/python.rs``).

Paths cross as file-system bytes (``os.fsencode``) or as ``str``; results are plain
tuples, whose shapes are named below. ``tests/test_native.py`` checks that
:func:`figure_names` equals ``schema.SUMMARY_FIELDS``; ``python -m mypy.stubtest
wavemetrics._native`` checks this file against the built extension.
"""

from collections.abc import Callable
from typing import Any, TypeVar, final

__all__ = [
    "API_VERSION",
    "ReadProgress",
    "detect_many",
    "detection_counts",
    "figure_names",
    "read_folded",
    "read_units",
    "sha256",
    "split_reads",
    "summarize_json",
    "walk_folders",
]

_T = TypeVar("_T")

#: ``(lines_read, lines_used, [(ignored record type as WTF-8 bytes, n)],
#: [(problem, n)], [(note, n)])``: one input's line account.
_Account = tuple[int, int, list[tuple[bytes, int]], list[tuple[str, int]], list[tuple[str, int]]]

#: A lane's figures in :func:`figure_names` order (``SUMMARY_FIELDS``): counts as
#: ``int``, ms as ``float``, the histogram as its wire string ``"a:b:c:d:e:f:g:h"``.
_Figures = tuple[
    int,  # clock_anomalies
    int,  # dropped_calls
    float,  # eval_only_duration_ms
    int,  # eval_only_waves
    int,  # incomplete_calls
    float,  # measured_turn_duration_ms_total
    int,  # mixed_waves
    float,  # modeled_wallclock_saved_ms
    int,  # non_eval_joined_calls
    int,  # non_eval_saved_round_trips
    str,  # non_eval_wave_size_histogram
    int,  # non_eval_waves_multi
    int,  # non_eval_waves_total
    float,  # upper_bound_saved_ms
    int,  # observed_calls
    int,  # paired_calls
    int,  # malformed_observations
    int,  # duplicate_starts
    int,  # orphan_ends
    int,  # eval_outer_joined_calls
    int,  # mixed_non_eval_joined_calls
    float,  # tool_time_ms
    int,  # calls_without_batch
    int,  # batched_turns
    int,  # multi_call_turns
    str,  # turn_width_histogram
    int,  # max_turn_width
    int,  # missed_batch_runs
    int,  # missed_batch_calls
    int,  # missed_batch_round_trips
    float,  # missed_batch_upper_ms
    float,  # lane_span_ms
    float,  # tool_busy_ms
    float,  # idle_ms
    int,  # calls_timed_by_execution
    int,  # calls_timed_by_message
]

#: ``(index of the unit's file it was read from, session_id, lane_id, figures, records)``.
#: A lane's observations, kept by a batch read (``read_units(..., record=True)``):
#: ``(starts, call_ids, tool_names, at_ms, batches, turn_total_ms, turn_intervals)``,
#: parallel columns (``starts``: ``False`` for an end), each batch key's bytes or ``None``.
_Records = tuple[list[bool], list[str], list[str], list[float], list[bytes | None], float,
                 list[tuple[float, float]]]
_Lane = tuple[int, str, str, _Figures, _Records | None]

#: ``(accounts, one per file in order; lanes; read_again_in_batch)``: one read unit.
_Unit = tuple[list[_Account], list[_Lane], bool]

#: A read unit to :func:`read_units`: ``(format code: 0 events, 1 claude-code, 2 codex,
#: 3 pi, 4 copilot, 5 kimi, 6 openclaw, 7 mcode, 8 otlp; paths as file-system bytes in
#: order; the fallback session id of each path)``; an ``events`` unit has one path and its
#: default session id, a ``codex`` unit one path and the session id its file name gives, a
#: ``pi`` unit the session files of one folder, each with the session id its file name
#: gives, a ``copilot`` or ``kimi`` unit one log and the session id its place in the store
#: gives, an ``openclaw`` unit one store and its file stem (not used: its rows name their
#: sessions), an ``mcode`` unit one stream file (its session id unused: its lines name
#: their sessions; ``None`` past a ``sequence_gap`` total of 2**64), an ``otlp`` unit one
#: trace file (its session id unused; a file of whole documents is declined: ``None``).
_UnitArg = tuple[int, list[bytes], list[str]]

#: A file of a folded group: ``(path as file-system bytes, Claude Code fallback session
#: id, events default session id or None: the same)``.
_FoldArg = tuple[bytes, str, str | None]

#: Per folded group: ``(each file's detection: 0 events, 1 claude-code, 2 codex, 3 pi,
#: None: ask the registry; the unit of the files found claude-code, or None; [(file
#: index, unit or None)] of the files read as units of their own: events and codex;
#: [([file index], unit or None)] of each folder of pi files)``.
_Folded = tuple[list[int | None], _Unit | None, list[tuple[int, _Unit | None]],
                list[tuple[list[int], _Unit | None]]]

#: A file of the native command: ``(path, Claude Code fallback session id, events
#: default session id or None: the same, project-folder group)``.
_CommandArg = tuple[str, str, str | None, int]

#: A unit ``plan_others`` returns: one the extension reads, ``(format code, walk
#: indexes, session ids)``; or one the Python readers read (a format the extension has
#: no reader for), ``(format name, walk indexes, unit)``, the unit in ``_Unit``'s shape
#: but each lane's ``(file index, session_id, lane_id, figures, records)`` carries
#: exactly one of: its figures, each of exactly its type (``int``, ``float``, the
#: histogram's ``str``); or its valid observations as ``_Records`` followed by the call
#: timing (``"execution"``/``"message"``), every time a ``float``, which the extension
#: summarises as a batch read of them (a run that needs each lane's calls). Each
#: ignored type as WTF-8 bytes.
_OtherLane = tuple[int, str, str, _Figures | None, tuple[Any, ...] | None]
_OtherUnit = (tuple[int, list[int], list[str]]
              | tuple[str, list[int], tuple[list[_Account], list[_OtherLane], bool]])

#: What the notes of the native command see of an input: ``(format, lines_read,
#: lines_used, lines_ignored, [(problem, n)] sorted by problem)``.
_InputFact = tuple[str, int, int, int, list[tuple[str, int]]]

#: What the notes see of a lane: ``(input index in walk order, session_id, lane_id)``.
_LaneFact = tuple[int, str, str]
#: ``--by tool``'s figures: per tool (tool name, calls, calls in multi-call non_eval waves,
#: durations summed in ms, calls in eval or mixed waves), in order of first appearance,
#: and per lane the indexes of its tools.
_ToolTable = tuple[list[tuple[str, int, int, float, int]], list[list[int]]]
#: ``--by day|week|month``: the periods' labels (sorted), each one's figures as a JSON
#: object, and each lane's periods (indexes into the labels).
_PeriodTable = tuple[list[str], list[bytes], list[list[int]]]

#: The interface version; ``wavemetrics.run._extension.API_VERSION`` must equal it.
API_VERSION: int

def read_units(
    units: list[_UnitArg],
    max_tracked_calls: int | None,
    eval_names: list[str],
    batchable_names: list[str],
    idle_gap_ms: float,
    jobs: int,
    record: bool,
) -> list[_Unit | None]:
    """Read many units on ``jobs`` threads; per unit in order its result, or ``None``
    when it failed (I/O, turn total). ``eval_names`` and ``batchable_names`` in normal
    form, empty ones dropped; ``idle_gap_ms`` finite and ``>= 0`` (``ValueError``
    otherwise). ``record``: read in batch mode and give each lane its observations
    (its ``_Records``; else ``None``)."""

def read_folded(
    groups: list[list[_FoldArg]],
    sniff_types: list[list[str]],
    max_tracked_calls: int | None,
    eval_names: list[str],
    batchable_names: list[str],
    idle_gap_ms: float,
    jobs: int,
) -> list[_Folded]:
    """Detect and read groups of files (one project folder's candidates each) in one pass."""

def detect_many(
    paths: list[bytes],
    sniff_types: list[list[str]],
    jobs: int,
) -> list[int | None]:
    """Each file's detection: ``0`` events, ``1`` claude-code, ``2`` codex, ``3`` pi,
    ``None``: ask the registry."""

#: A wave of the ``waves`` command: ``(start ms, span ms, size, peak concurrency,
#: bucket, modeled saving in ms, [tool name], [(call id, start ms, end ms)] or None)``,
#: the calls (in wave order) given with ``waves=2``.
_Wave = tuple[float, float, int, int, str, float, list[str],
              list[tuple[str, float, float]] | None]

def summarize_json(
    files: list[_CommandArg],
    skipped: list[tuple[str, str]],
    sniff_types: list[list[str]],
    max_tracked_calls: int | None,
    eval_names: list[str],
    batchable_names: list[str],
    idle_gap_ms: float,
    jobs: int,
    options: str,
    noted: Callable[[list[_InputFact], list[_LaneFact], tuple[int, int, int] | None], _T],
    progress: ReadProgress | None = None,
    since_ms: float | None = None,
    until_ms: float | None = None,
    plan_others: Callable[[list[int]], list[_OtherUnit] | None] | None = None,
    by_tool: bool = False,
    period_labels: Callable[[list[float]], list[str]] | None = None,
    waves: int = 0,
    groups: str | None = None,
    projects: Callable[[list[tuple[str, str]]], list[str]] | None = None,
) -> tuple[bytes, _T, _ToolTable | list[list[_Wave]] | bytes | None,
           _PeriodTable | None] | str:
    """The native ``summarize --format json``: ``(document, what noted returned, the
    --by tool figures when ``by_tool``, else None, the --by day|week|month figures
    when ``period_labels`` is given, else None)``, or
    the reason (``str``) the run is left to the Python command; ``progress`` counts the
    files read as the read goes; ``since_ms``/``until_ms``: a ``--since``/``--until``
    window in Unix ms (``None``: open), each lane cut to it; ``noted``'s third argument
    is then ``(waves, paired calls, lanes)`` the window left out when it kept no wave;
    ``plan_others``: given the walk indexes of the files the folded read found no format
    for, their read units (``_OtherUnit``), or ``None`` to decline the run (as does a
    unit of another shape); ``period_labels``: given the times (Unix ms, ascending, distinct)
    whose periods the lanes' cut needs, one label per time (else the run is declined);
    ``waves``: 1 for the ``waves`` command, 2 with each wave's calls: the third member
    is then each lane's waves (lane order, each lane's in time order: ``_Wave``); 3:
    the rows of its JSON document (``bytes``, ASCII), which ``fastwaves.with_text``
    splices into the document's text; 4: its whole CSV text (``bytes``, UTF-8), as
    ``csvout.rows_to_csv`` writes it unescaped; ``groups``: ``"session"``, ``"lane"``
    or ``"project"`` for a ``--by session|lane|project --format json`` run, whose
    document is then the ``--by`` document (``ValueError`` for another name, or for
    ``"project"`` without ``projects``); ``projects``: given ``[(path, format)]`` of the
    inputs holding lanes (walk order), each one's project (``groups.project_of``; else
    the run is declined)."""

@final
class ReadProgress:
    """How far the native command's read has gone: made with each file's size in
    bytes (walk order), read from another thread while the read runs."""

    def __new__(cls, sizes: list[int]) -> ReadProgress: ...
    def done(self) -> tuple[int, int]:
        """``(files, bytes)`` read so far."""

def walk_folders(
    tops: list[tuple[str, str]],
    trace: list[str],
    skipped: list[str],
    session: list[str],
    key: bool,
    jobs: int,
) -> (
    tuple[
        bytes | None,
        list[str] | None,
        list[tuple[str, str | None, int]] | None,
        list[str],
    ]
    | None
):
    """The folder walk: ``(run key or None, files or None, their (fallback session id,
    stem or None, group) or None, sidecars)``; ``None`` when a name is not UTF-8."""

def detection_counts() -> tuple[int, int]:
    """``(files detected by detect_many, groups read by read_folded)`` in this process."""

def split_reads() -> int:
    """Units this process has read with their files parsed on several threads."""

def sha256(data: bytes) -> bytes:
    """SHA-256 of ``data``, 32 bytes."""

def figure_names() -> tuple[str, ...]:
    """The names of a lane's figures, in the order of its figures tuple."""
