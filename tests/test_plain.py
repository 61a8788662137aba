"""A plain ``summarize`` run's output in each format (``wavemetrics.views.plain``).

Both ways a run is made print through :func:`render_plain`; what each format holds
is tested with the views that draw it (``tests/test_report.py``, ``test_csvout.py``,
``test_markdown.py``). Here: which format prints what when nothing was read, the
notes a JSON Lines output adds, and when a progress bar is drawn.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from wavemetrics.core.summary import ParallelismSummary
from wavemetrics.readers.lanes import InputReport
from wavemetrics.run._options import options_record
from wavemetrics.run.pipeline import (
    Analysis,
    ReadOutcome,
    StreamedLane,
    StreamedLaneResult,
)
from wavemetrics.views.plain import (
    NAMED_LANES,
    PLAIN_FORMATS,
    lanes_without_event,
    render_plain,
    show_progress,
)


def _analysis(summaries: list[ParallelismSummary],
              inputs: tuple[InputReport, ...] = ()) -> Analysis[Any]:
    lanes = tuple(StreamedLane("t.jsonl", "s", f"lane-{n}", 0.0, summary)
                  for n, summary in enumerate(summaries))
    total = sum(summaries, ParallelismSummary())
    return Analysis(ReadOutcome(inputs, lanes),
                    tuple(StreamedLaneResult(lane, lane.summary) for lane in lanes), total)


def _render(analysis: Analysis[Any], output_format: str,
            options: dict[str, Any] | None = None) -> tuple[str | None, list[str]]:
    return render_plain(analysis, output_format, options or options_record(),
                        show_paths=False, terminal=False)


def test_the_formats_are_summarize_s() -> None:
    assert PLAIN_FORMATS == ("table", "json", "jsonl", "csv", "markdown")


def test_nothing_read_prints_no_table_but_the_data_formats() -> None:
    """Every input failed with no line used: the tables print nothing (the errors on
    stderr say it all); JSON, JSON Lines and CSV still print their (empty) data."""
    failed = _analysis([], (InputReport("x", "unknown", error="cannot be read"),))
    assert _render(failed, "table") == (None, [])
    assert _render(failed, "markdown") == (None, [])
    assert _render(failed, "jsonl") == ("", [])
    text, notes = _render(failed, "csv")
    assert text is not None and text.count("\r\n") == 2 and notes == []  # header, total
    text, _ = _render(failed, "json")
    assert text is not None and '"error": "cannot be read"' in text


def test_an_input_read_in_part_still_gets_its_table() -> None:
    """An input with an error but lines used (read up to a cut) is a table."""
    partly = _analysis([ParallelismSummary(paired_calls=1)],
                       (InputReport("x", "events", 2, 1, error="cut"),))
    text, _ = _render(partly, "table")
    assert text is not None and text.startswith("inputs: 1 events (auto-detected); 1 of them")


def test_json_lines_names_the_lanes_without_an_event() -> None:
    """A lane with no wave emits no v1 payload: the note names it and why (the calls it
    could not count, or none at all)."""
    lost = ParallelismSummary(incomplete_calls=2, clock_anomalies=1)
    analysis = _analysis([lost, ParallelismSummary()])
    assert _render(analysis, "jsonl") == ("", [
        "wavemetrics: note: 2 lanes emitted no event (no waves; the v1 contract emits none):"
        " s/lane-0 (calls not counted: incomplete 2, clock anomalies 1), s/lane-1 (no tool calls)"])


def test_the_note_names_at_most_ten_lanes() -> None:
    analysis = _analysis([ParallelismSummary()] * (NAMED_LANES + 2))
    note = lanes_without_event(analysis)
    assert NAMED_LANES == 10
    assert note is not None and note.endswith("s/lane-9 (no tool calls) and 2 more")
    assert "lane-10" not in note


def test_json_lines_names_the_options_it_has_no_place_for() -> None:
    """The v1 payload records no option: one not at its default is named on stderr."""
    assert _render(_analysis([]), "jsonl", options_record(input_format="events")) == ("", [
        "wavemetrics: note: these payloads were made with --input-format events (the v1"
        " payload has no field for options; --format json records them)"])


def test_another_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown output format 'yaml'"):
        _render(_analysis([]), "yaml")
    with pytest.raises(ValueError, match="--by has no 'jsonl' output"):
        _render(_analysis([]), "jsonl", options_record(by="lane"))


def test_by_groups_whole_lanes_from_their_summaries() -> None:
    """``--by session`` merges the lanes of a session (docs/metrics.md section 8: counts
    and durations add up), one row per session, in order of first appearance."""
    lanes = tuple(StreamedLane("t.jsonl", session, lane, 0.0, ParallelismSummary(
        paired_calls=calls, tool_time_ms=ms)) for session, lane, calls, ms in [
        ("s2", "main", 3, 1000.0), ("s1", "main", 1, 250.0), ("s2", "agent-1", 2, 500.0)])
    analysis = Analysis(
        ReadOutcome((InputReport("t.jsonl", "events", 6, 6),), lanes),
        tuple(StreamedLaneResult(lane, lane.summary) for lane in lanes),
        sum((lane.summary for lane in lanes), ParallelismSummary()))
    text, notes = _render(analysis, "csv", options_record(by="session"))
    assert notes == [] and text is not None
    rows = [line.split(",") for line in text.split("\r\n")[1:-1]]
    header = text.split("\r\n")[0].split(",")
    calls, tool = header.index("paired_calls"), header.index("tool_time_ms")
    # the row kind, --by's value, the group
    assert [(row[0], row[1], row[2], row[calls], row[tool]) for row in rows] == [
        ("group", "session", "s2", "5", "1500.0"), ("group", "session", "s1", "1", "250.0"),
        ("total", "session", "", "6", "1750.0")]


def test_progress_bar_only_on_a_terminal_and_never_over_piped_data() -> None:
    """stderr must be a terminal; piped JSON, JSON Lines or CSV on stdout suppress the
    bar (their reader may share the terminal's stderr); the tables draw it."""
    assert show_progress("table", stdout_is_tty=False, stderr_is_tty=True)
    assert show_progress("markdown", stdout_is_tty=False, stderr_is_tty=True)
    assert show_progress("json", stdout_is_tty=True, stderr_is_tty=True)
    assert not show_progress("json", stdout_is_tty=False, stderr_is_tty=True)
    assert not show_progress("jsonl", stdout_is_tty=False, stderr_is_tty=True)
    assert not show_progress("csv", stdout_is_tty=False, stderr_is_tty=True)
    assert not show_progress("table", stdout_is_tty=True, stderr_is_tty=False)


def _lanes(*rows: tuple[str, str, ParallelismSummary]) -> Analysis[Any]:
    lanes = tuple(StreamedLane(f"{session}.jsonl", session, lane, 0.0, summary)
                  for session, lane, summary in rows)
    return Analysis(
        ReadOutcome(tuple(InputReport(lane.path, "events", 1, 1) for lane in lanes), lanes),
        tuple(StreamedLaneResult(lane, lane.summary) for lane in lanes),
        sum((lane.summary for lane in lanes), ParallelismSummary()))


def test_json_lines_notes_come_in_their_order() -> None:
    """The lanes without an event first, then the options the payloads cannot hold."""
    analysis = _lanes(("s", "main", ParallelismSummary()))
    _, notes = _render(analysis, "jsonl", options_record(idle_gap_ms=60_000.0))
    assert [note.split(":")[1] for note in notes] == [" note", " note"]
    assert "emitted no event" in notes[0] and "--idle-gap 60" in notes[1]


def test_a_group_json_document_ends_in_a_newline_and_is_the_group_document() -> None:
    """``--by ... --format json``: the group document, indented by two, one newline at
    its end (as ``click.echo`` adds it)."""
    analysis = _lanes(("s1", "main", ParallelismSummary(paired_calls=2)),
                      ("s1", "agent-1", ParallelismSummary(paired_calls=3)))
    text, _ = _render(analysis, "json", options_record(by="session"))
    assert text is not None and text.endswith("\n}\n") and not text.endswith("\n\n")
    document = json.loads(text)
    assert document["by"] == "session"
    assert [(g["group"], g["paired_calls"]) for g in document["groups"]] == [("s1", 5)]


@pytest.mark.parametrize("output_format", ["table", "markdown"])
def test_show_paths_adds_each_group_s_inputs(output_format: str) -> None:
    """``--by ... --show-paths``: each group, then the inputs its lanes come from; none
    of it without ``--show-paths``."""
    analysis = _lanes(("s1", "main", ParallelismSummary(paired_calls=2)),
                      ("s2", "main", ParallelismSummary(paired_calls=1)))
    record = options_record(by="session")
    shown = render_plain(analysis, output_format, record, show_paths=True, terminal=False)[0]
    plain = render_plain(analysis, output_format, record, show_paths=False, terminal=False)[0]
    assert shown is not None and plain is not None
    assert "s1.jsonl" in shown and "s2.jsonl" in shown
    assert "s1.jsonl" not in plain and "s2.jsonl" not in plain
    if output_format == "table":
        assert shown == plain + "\n".join(
            ["", "rows: session: inputs (format)", "  s1", "    s1.jsonl (events)", "  s2",
             "    s2.jsonl (events)"]) + "\n"


def test_markdown_marks_a_total_the_cap_cut() -> None:
    """Calls dropped at the cap: the Markdown total row is marked ``\\*`` and the note
    names the cap the run used, as the text table does."""
    analysis = _lanes(("s", "main", ParallelismSummary(paired_calls=4, dropped_calls=3)))
    text, _ = _render(analysis, "markdown", options_record(max_tracked_calls=7))
    assert text is not None and "total\\*" in text and "--max-tracked-calls" in text
    assert "7" in text.split("dropped 3", 1)[1]
