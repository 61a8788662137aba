"""``--format csv`` of ``summarize`` (one row per lane and a total row) and ``waves``
(one row per call), written with the stdlib :mod:`csv` module.

Values are those of the JSON output (``json.dumps`` of the same figures): ints
as ints, floats by ``repr``, ``null`` as an empty cell, booleans never occur.
Only ids, tool names, times and figures are written (``docs/metrics.md`` section 7).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

__all__ = [
    "OPTION_PREFIX",
    "SUMMARY_LEAD",
    "WAVE_CALL_COLUMNS",
    "WAVE_JSON_TO_CSV",
    "rows_to_csv",
    "summary_rows",
    "wave_call_rows",
]

#: The first columns of a ``summarize`` row; the summary figures follow, as in JSON.
SUMMARY_LEAD = ("row", "path", "session_id", "lane_id", "session_hash")
#: Where each key of a ``waves --format json`` wave goes in ``waves --format csv``: the
#: same name, but the wave's start (``wave_`` prefix: the row's ``start_ms`` is its
#: call's) and ``tool_names`` (one name per row, the call's ``tool_name``, in wave
#: order). Both names are kept as they are (a contract scripts use; docs/cli.md).
WAVE_JSON_TO_CSV: Mapping[str, str] = MappingProxyType({
    "session_id": "session_id", "lane_id": "lane_id", "wave": "wave",
    "start_ms": "wave_start_ms", "start": "wave_start", "span_ms": "span_ms",
    "size": "size", "max_concurrency": "max_concurrency", "bucket": "bucket",
    "tool_names": "tool_name", "modeled_wallclock_saved_ms": "modeled_wallclock_saved_ms",
})
#: The wave's columns of a row, each with its JSON key (``tool_names`` is per call).
_WAVE_FIELDS = tuple((csv_name, json_key) for json_key, csv_name in WAVE_JSON_TO_CSV.items()
                     if json_key != "tool_names")
#: The columns of a ``waves`` row: the wave's figures (:data:`WAVE_JSON_TO_CSV`, in JSON
#: order), then the call's (``call_index``, ``call_id``, ``tool_name``, ``start_ms``,
#: ``end_ms``, ``duration_ms``: a call's own, in no JSON wave). A wave's start is
#: ``wave_start_ms``/``wave_start`` here, ``start_ms``/``start`` in the JSON: a row is
#: a call, and its ``start_ms`` is the call's start.
WAVE_CALL_COLUMNS = (
    *(csv_name for csv_name, _ in _WAVE_FIELDS),
    "call_index", "call_id", "tool_name", "start_ms", "end_ms", "duration_ms",
)


def _cell(value: Any) -> Any:
    # None -> empty cell; ints and floats are written by csv as str(), which is
    # repr() for floats, the text json.dumps writes too.
    return "" if value is None else value


def _writes_nul() -> bool:
    """Whether this Python's :mod:`csv` writes a NUL in a cell as it is (3.11 and later);
    3.10's raises ``csv.Error`` ("need to escape") without an escape character."""
    try:
        csv.writer(io.StringIO()).writerow(["\x00"])
    except csv.Error:
        return False
    return True


#: See :func:`_writes_nul`.
_WRITES_NUL = _writes_nul()


def _stand_in(texts: list[str]) -> str:
    """A private-use character in none of ``texts``: what a NUL is written as, then
    turned back, where :mod:`csv` cannot write NUL (neither quotes the cell)."""
    return next(char for char in map(chr, range(0xE000, 0xF900))
                if not any(char in text for text in texts))


def rows_to_csv(
    columns: Sequence[str], rows: Iterable[dict[str, Any]],
    escape: Callable[[str], str] | None = None,
) -> str:
    """A header line and one line per row (``\\r\\n`` ends, RFC 4180, as ``csv`` writes).

    Text values are written as they are (CSV is data, like JSON), or passed through
    ``escape`` (the CLI gives :func:`~wavemetrics.views.escaping.printable` when stdout is a
    terminal, so a trace cannot send escape sequences to it; ``docs/cli.md``, "Escaping").
    A NUL is written as it is, unquoted, on every Python version (3.10's :mod:`csv`
    cannot write one: a stand-in is written there and turned back).
    """
    table = [list(columns)]
    for row in rows:
        cells = [_cell(row.get(name)) for name in columns]
        if escape is not None:
            cells = [escape(cell) if isinstance(cell, str) else cell for cell in cells]
        table.append(cells)
    stand_in = None
    if not _WRITES_NUL:
        texts = [cell for cells in table for cell in cells if isinstance(cell, str)]
        if any("\x00" in text for text in texts):
            stand_in = _stand_in(texts)
            table = [[cell.replace("\x00", stand_in) if isinstance(cell, str) else cell
                      for cell in cells] for cells in table]
    buffer = io.StringIO()
    csv.writer(buffer).writerows(table)
    text = buffer.getvalue()
    return text if stand_in is None else text.replace(stand_in, "\x00")


#: The prefix of the columns that carry the run's options (the JSON ``options`` keys).
OPTION_PREFIX = "options."


def _option_cell(value: Any) -> Any:
    # a list (the eval names) as its JSON text, so that any name survives exactly
    return json.dumps(value, ensure_ascii=False) if isinstance(value, list) else value


def summary_rows(document: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """Columns and rows of ``summarize --format csv`` from its JSON ``document``:
    ``row`` is ``lane`` (or ``group``) for each entry and ``total`` for the last row;
    after the figures, one ``options.<key>`` column per key of the document's
    ``options`` (the same value on every row: a list as its JSON text)."""
    entries = document["groups"] if "groups" in document else document["lanes"]
    kind = "group" if "groups" in document else "lane"
    figures = list(document["total"])
    lead = list(SUMMARY_LEAD) if kind == "lane" else ["row", "by", "group"]
    by = document.get("by")
    options = {OPTION_PREFIX + key: _option_cell(value)
               for key, value in document.get("options", {}).items()}
    rows = [{"row": kind, "by": by, **entry, **options} for entry in entries]
    rows.append({"row": "total", "by": by, **document["total"], **options})
    return lead + figures + list(options), rows


def wave_call_rows(
    waves: Iterable[dict[str, Any]], calls: Iterable[Sequence[Any]]
) -> list[dict[str, Any]]:
    """One row per call: each wave of the ``waves --format json`` list with the calls
    of that wave (``(call_id, tool_name, start_ms, end_ms)`` in wave order); the
    wave's keys are renamed by :data:`WAVE_JSON_TO_CSV`."""
    rows = []
    for wave, wave_calls in zip(waves, calls, strict=True):
        figures = {csv_name: wave[json_key] for csv_name, json_key in _WAVE_FIELDS}
        for index, (call_id, tool_name, start_ms, end_ms) in enumerate(wave_calls):
            rows.append({
                **figures,
                "call_index": index, "call_id": call_id, "tool_name": tool_name,
                "start_ms": start_ms, "end_ms": end_ms, "duration_ms": end_ms - start_ms,
            })
    return rows
