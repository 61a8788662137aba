"""A ``summarize --format json`` document read back as the analysis it records.

The JSON document is the one output every other format of a plain ``summarize`` can
be drawn from: it holds each input's report (format, line accounting, error), each
lane's identity and every figure of its summary, the merged total, the skipped files
and the copies read once. JSON numbers read back as the same Python values (an int
stays an int, a float's shortest repr reads back to that float), so the table, the
Markdown table, the CSV rows and the v1 payloads drawn from the read-back analysis
are those drawn from the analysis the document was written from, byte for byte
(``tests/test_document.py``). The native command uses this to render every format
from the document the extension wrote (:mod:`wavemetrics.run.fastpath`).

One case does not read back: a figure that is not finite (times that overflow) is
written as ``null`` (:func:`wavemetrics.core.schema.json_safe`), which no longer says
which infinity it was; :func:`analysis_of` then returns ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wavemetrics.core.schema import SUMMARY_FIELDS
from wavemetrics.core.summary import ParallelismSummary
from wavemetrics.readers._report import InputReport
from wavemetrics.run._lanes import (
    Analysis,
    ReadOutcome,
    SkippedFile,
    StreamedLane,
    StreamedLaneResult,
)

__all__ = ["analysis_of", "summary_of"]


def summary_of(entry: Mapping[str, Any]) -> ParallelismSummary | None:
    """The summary whose figures ``entry`` holds under their v1 names, or ``None`` when
    one is ``null`` (not finite when written)."""
    values = {name: entry[name] for name in SUMMARY_FIELDS}
    if any(value is None for value in values.values()):
        return None
    return ParallelismSummary(**values)


def analysis_of(document: Mapping[str, Any]) -> Analysis[StreamedLaneResult] | None:
    """The analysis a ``--format json`` document of ``summarize`` (no ``--by``) records,
    as ``json.loads`` gives it: its inputs, its lanes (each a
    :class:`~wavemetrics.run._lanes.StreamedLaneResult`: its summary, no waves), its
    total, skipped files and copies; ``None`` when a figure was not finite (written as
    ``null``). The outcome carries no stream settings (the document records the options
    instead). Raises ``KeyError`` or ``TypeError`` for a document of another shape
    (never the case for one ``summarize`` wrote)."""
    total = summary_of(document["total"])
    if total is None:
        return None
    lanes: list[StreamedLane] = []
    results: list[StreamedLaneResult] = []
    for entry in document["lanes"]:
        summary = summary_of(entry)
        if summary is None:
            return None
        lane = StreamedLane(entry["path"], entry["session_id"], entry["lane_id"],
                            summary.measured_turn_duration_ms_total, summary)
        lanes.append(lane)
        results.append(StreamedLaneResult(lane, summary))
    outcome: ReadOutcome[StreamedLane] = ReadOutcome(
        tuple(InputReport(**entry) for entry in document["inputs"]),
        tuple(lanes),
        None,
        {entry["path"]: entry["same_as"] for entry in document.get("same_content", ())},
        tuple(SkippedFile(entry["path"], entry["reason"])
              for entry in document.get("skipped_files", ())),
    )
    return Analysis(outcome, tuple(results), total)
