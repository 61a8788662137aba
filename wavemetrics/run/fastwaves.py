"""The native ``waves``: every wave listed from the extension's read, without click.

``wavemetrics waves`` lists each wave of each lane. The click command reads every
lane's observations back into Python and assembles the waves again with the Python
core (``pipeline.analyse``). Here the run the native ``summarize`` takes
(:mod:`wavemetrics.run.fastpath`: the same walk, options and declines) is asked of
the extension with ``waves``: it reads in batch, as the CLI does, and gives back
the summarize document (its inputs, lanes and total, read back by
:func:`wavemetrics.views.document.analysis_of`) and each lane's waves as plain
values (first start, span, size, peak, bucket, modeled saving, tool names and, for
CSV, each call's id, start and end: ``native/src/command.rs`` ``wave_table``), which
the CLI's own views format (:func:`wavemetrics.views.report.wave_row`,
:func:`~wavemetrics.views.report.waves_document`,
:func:`~wavemetrics.views.report.render_waves_table`,
:func:`wavemetrics.views.csvout.wave_call_rows`); for JSON the extension writes the
rows' text (``command::wave_rows_json``), spliced into the document's text by
:func:`with_text`. The output (stdout, stderr, exit
status) is the CLI's byte for byte (``tests/test_fastpath.py``); a run this path
does not take returns ``None`` and click runs it as ever. No output is stored: a
``waves`` run is never served from the run cache.
"""

from __future__ import annotations

import sys

from wavemetrics.run import fastpath
from wavemetrics.run.plan import WAVES_FORMATS, WAVES_OPTIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from wavemetrics._native import _Wave
    from wavemetrics.run.plan import Plan

__all__ = ["native_rows", "run", "waves_chunks", "with_text"]


def native_rows(lanes: Any, waves: list[list[_Wave]]) -> list[dict[str, Any]]:
    """The ``waves`` rows (:func:`wavemetrics.views.report.wave_row`) of ``lanes`` (an
    analysis' lane results, in lane order) from the extension's ``waves`` (one list
    per lane, each wave a ``_native._Wave``)."""
    from wavemetrics.views.report import wave_row

    rows = []
    for result, lane_waves in zip(lanes, waves, strict=True):
        session_id, lane_id = result.lane.session_id, result.lane.lane_id
        for index, (start, span, size, peak, bucket, saved, names, _) in enumerate(lane_waves):
            rows.append(wave_row(session_id, lane_id, index, start, span, size, peak, bucket,
                                 names, saved))
    return rows


def with_text(head: str, text: str) -> str:
    """``head``, ``json.dumps(document, indent=2)`` of a ``waves`` document whose
    ``waves`` (its last key) is empty, with ``text`` in their place: the rows as
    ``json.dumps`` (``ensure_ascii``, ``indent=2``) writes them at that depth, joined
    by ``,\\n`` (what the extension writes: ``command::wave_rows_json``); ``head``
    itself when there are none. The whole document's text, without the pure-Python
    encoder that ``indent`` takes, which spent three quarters of a fleet's run."""
    if not text:
        return head
    assert head.endswith('"waves": []\n}')
    return head[:-len("[]\n}")] + "[\n" + text + "\n  ]\n}"


#: What ``waves`` asks of the extension per output format: the rows' text for JSON,
#: each wave (``_native._Wave``) for the table, the whole text for CSV; for CSV to a
#: terminal, each wave with its calls (its cells are escaped here).
_WAVES_ASKED = {"json": 3, "table": 1, "csv": 4}
_WAVES_ESCAPED_CSV = 2


def waves_chunks(
    done: fastpath.Done, output_format: str, options: dict[str, Any],
    excluded: bool = False, show_paths: bool = False, terminal: bool = False,
) -> list[tuple[int, bytes]] | None:
    """What the run prints, in order, as ``(stream number, bytes)`` (1 stdout, 2 stderr),
    as ``commands.waves`` prints it: the read's notes (``done``'s lines: those of the
    read, then the window's), the warning of lost calls, then the waves in
    ``output_format`` (and, for CSV, the note of the options it has no column for).
    ``done``: :func:`fastpath.summarize_json` of a ``waves`` run; ``options``: the run's
    options record; ``excluded``: the window left out every wave of the read (the
    table then says so); ``terminal``: stdout is a terminal (CSV cells are escaped).
    ``None`` when a figure was not finite (the CLI then makes the run)."""
    import json

    from wavemetrics.views.document import analysis_of
    from wavemetrics.views.escaping import printable
    from wavemetrics.views.report import loss_line, render_waves_table, waves_document

    document, lines, waves, _ = done
    analysis = analysis_of(json.loads(document))
    if analysis is None:
        return None
    out, err = sys.stdout, sys.stderr
    chunks = [(2, fastpath._encoded(printable(line) + "\n", err)) for line in lines]
    lost = loss_line(analysis.total, options["max_tracked_calls"])
    if lost:
        chunks.append((2, fastpath._encoded(printable(f"wavemetrics: warning: {lost}") + "\n",
                                            err)))
    if output_format == "json":
        # the document but its waves, then the rows the extension wrote in its layout
        if not isinstance(waves, bytes):
            return None
        head = json.dumps(waves_document(analysis, max_tracked_calls=options["max_tracked_calls"],
                                         options=options, rows=[]),
                          indent=2, allow_nan=False)
        chunks.append((1, fastpath._encoded(with_text(head, waves.decode("ascii")) + "\n", out)))
        return chunks
    if output_format == "csv":
        from wavemetrics.views.plain import options_note

        if isinstance(waves, bytes):  # the extension's text (stdout is no terminal)
            text = waves.decode("utf-8")
        elif isinstance(waves, list):
            from wavemetrics.views.csvout import WAVE_CALL_COLUMNS, rows_to_csv, wave_call_rows

            # waves=2: every wave comes with its calls (never None)
            calls = [[(call_id, name, start, end)
                      for name, (call_id, start, end) in zip(wave[6], wave[7] or (), strict=True)]
                     for lane_waves in waves for wave in lane_waves]
            text = rows_to_csv(WAVE_CALL_COLUMNS,
                               wave_call_rows(native_rows(analysis.lanes, waves), calls),
                               printable if terminal else None)
        else:
            return None
        chunks.append((1, fastpath._encoded(text, out)))
        note = options_note(options, "rows", "a row per call has no field for options")
        if note is not None:
            chunks.append((2, fastpath._encoded(printable(note) + "\n", err)))
    else:
        if not isinstance(waves, list):  # each lane's waves, asked for the table
            return None
        from wavemetrics.views.plain import nothing_read

        if not nothing_read(analysis.outcome):
            empty = "(no waves in the --since/--until window)" if excluded else None
            text = render_waves_table(analysis, show_paths=show_paths, empty=empty,
                                      options=options, rows=native_rows(analysis.lanes, waves))
            chunks.append((1, fastpath._encoded(text, out)))
    return chunks


def run(plan: Plan) -> int | None:
    """Answer the planned ``wavemetrics waves`` run natively: the output is written and
    the exit status returned; ``None`` when this path does not take the run (nothing
    was written): the CLI then runs it. It takes what the native ``summarize`` takes
    (:func:`fastpath.options_of`, the extension's declines) with ``--format``
    ``table``, ``json`` or ``csv``."""
    return fastpath.settled(plan, _run(plan))


def _run(plan: Plan) -> int | None:
    """:func:`run`, but for standard input's settling."""
    from wavemetrics.views.plain import show_progress

    options = plan.options
    output_format = options.get("output_format", "table")
    if not set(options) <= WAVES_OPTIONS or output_format not in WAVES_FORMATS:
        return None
    window = fastpath.window_of(options)
    record = fastpath.options_of(options, window)
    # the output is written as bytes, to the streams' binary buffers
    if record is None or not (hasattr(sys.stdout, "buffer") and hasattr(sys.stderr, "buffer")):
        return None
    terminal = fastpath._is_terminal(sys.stdout)
    bar = show_progress(output_format, terminal, fastpath._is_terminal(sys.stderr))
    files = plan.files
    located = fastpath.located(options, files)
    if located is None:
        return None
    from wavemetrics.cache.runcache import _jobs, write_chunks

    losses: list[object] = []
    done = fastpath.summarize_json(
        files, _jobs(options), show_paths=bool(options.get("show_paths")), options=record,
        bar=bar, window=window, losses=losses,
        waves=_WAVES_ESCAPED_CSV if terminal and output_format == "csv"
        else _WAVES_ASKED[output_format])
    if isinstance(done, str):
        return None
    chunks = waves_chunks((done[0], [*located, *done[1]], done[2], done[3]), output_format,
                          record, excluded=any(loss is not None for loss in losses),
                          show_paths=bool(options.get("show_paths")), terminal=terminal)
    if chunks is None:
        return None
    return 0 if write_chunks(chunks) else 1
