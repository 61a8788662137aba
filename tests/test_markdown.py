"""wavemetrics.views.markdown: ``summarize --format markdown`` (docs/cli.md, "Markdown").

The expected documents are written by hand from the figures of the text table that
README.md shows for the bundled demo; the output is read back as GFM
(``tests/gfm.py``) to check its numbers against ``--format json`` and that hostile
names stay literal text in one cell.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

from tests import gfm
from tests.strategies import markdown_hostile_texts
from wavemetrics.cli.commands import main
from wavemetrics.core.schema import TABLE_COLUMNS
from wavemetrics.readers._lines import usable_id
from wavemetrics.views.escaping import printable
from wavemetrics.views.groups import group_labels
from wavemetrics.views.markdown import markdown_table, seconds_cell
from wavemetrics.views.report import unique_prefixes


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


# The README's text table of the demo, as GFM: the same cells (session and lane prefixes
# as the text table cuts them, as code spans), the figures as the text shows them (no
# figure is cut to fit: the largest, 2182.60 s, fits its column), the total row last
# with no rule above it, the six lines under the total as list items (the note no longer
# wrapped at 80 columns, its lane as a code span), and the three-line legend as one
# paragraph.
DEMO = """\
inputs: 1 claude-code (auto-detected)

| session | lane | calls | waves | multi | rt | eval | mixed | saved s | upper s |
| :-- | :-- | --: | --: | --: | --: | --: | --: | --: | --: |
| `ef958aa1-…` | `main` | 40 | 35 | 3 | 5 | 0 | 0 | 1642.28 | 1784.99 |
| `ef958aa1-…` | `a36efb2a1…` | 7 | 7 | 0 | 0 | 0 | 0 | 0.00 | 0.00 |
| `ef958aa1-…` | `a4ca75298…` | 24 | 20 | 4 | 4 | 0 | 0 | 325.97 | 337.81 |
| `ef958aa1-…` | `a52886dc1…` | 17 | 17 | 0 | 0 | 0 | 0 | 0.00 | 0.00 |
| `ef958aa1-…` | `a6aa8ad07…` | 6 | 6 | 0 | 0 | 0 | 0 | 0.00 | 0.00 |
| `ef958aa1-…` | `ab1e6e141…` | 17 | 14 | 3 | 3 | 0 | 0 | 53.50 | 59.81 |
| `ef958aa1-…` | `aef063ba5…` | 6 | 6 | 0 | 0 | 0 | 0 | 0.00 | 0.00 |
| total | 7 lanes | 117 | 105 | 10 | 12 | 0 | 0 | 2021.75 | 2182.60 |

- tool time 5211.41 s (paired calls' durations summed): saved s is 38% of it
- turns: 75 with calls, 23 (30%) with 2+ calls, widest 6 calls
- tool busy 3189.66 s of 5211.41 s tool time (2021.75 s overlapped)
- idle 622.85 s of 4466.84 s lane span (gaps over 300 s, no call or turn running)
- timing: 117 calls by message times (message times include permission prompts)
- note: 81% of the saved time (1642.28 s) is from lane `ef958aa1-…/main`, in 3 waves of \
2+ calls: see wavemetrics waves

calls: paired calls; multi: non_eval waves of 2+ calls; rt: saved round trips; saved s: \
modeled wall-clock saving; upper s: upper bound. Eval/mixed waves are never in multi, rt \
or the savings. Details: --format json, wavemetrics waves.
"""


def test_demo_is_the_readme_table_as_gfm() -> None:
    """``summarize --demo --format markdown`` is the README's text table, cell for cell."""
    code, out, err = _run("summarize", "--demo", "--format", "markdown")
    assert (code, err) == (0, "")
    assert out == DEMO


def test_demo_renders_as_one_table_of_nine_rows() -> None:
    """Read back as GFM: one table, a header and 8 rows (7 lanes and the total) of 10
    cells; the note's lane is one code span."""
    [table] = gfm.table_texts(DEMO)
    assert len(table) == 9
    assert all(len(row) == 10 for row in table)
    assert table[-1][:2] == ["total", "7 lanes"]
    note = next(t for t in gfm.tokens(DEMO) if t.type == "inline" and "note:" in t.content)
    assert [c.content for c in note.children or [] if c.type == "code_inline"] == [
        "ef958aa1-…/main"]


def _cells(figures: dict[str, object]) -> list[str]:
    """A row's figure cells from JSON figures: counts whole, ms as s with 2 decimals."""
    return [f"{figures[name] / 1000:.2f}" if column.seconds else str(figures[name])  # type: ignore[operator]
            for name, column in TABLE_COLUMNS]


def test_numbers_equal_the_json_documents() -> None:
    """Every figure cell of the demo's table is the JSON document's figure: lane rows in
    order, then the total."""
    _, out, _ = _run("summarize", "--demo", "--format", "markdown")
    _, text, _ = _run("summarize", "--demo", "--format", "json")
    document = json.loads(text)
    [table] = gfm.table_texts(out)
    rows = [row[2:] for row in table[1:]]
    assert rows == [_cells(lane) for lane in document["lanes"]] + [_cells(document["total"])]


@pytest.mark.parametrize("by", ["session", "lane", "project", "day", "tool"])
def test_by_tables_equal_their_json_documents(by: str) -> None:
    """A ``--by`` table's groups and total are the ``--by`` JSON document's, in its order."""
    args = ("summarize", "--demo", "--by", by, "--timezone", "UTC")
    _, out, _ = _run(*args, "--format", "markdown")
    _, text, _ = _run(*args, "--format", "json")
    document = json.loads(text)
    [table] = gfm.table_texts(out)
    rows = [*document["groups"], {"group": "total", **document["total"]}]
    assert len(table) == len(rows) + 1
    labels = group_labels(by, [str(row["group"]) for row in document["groups"]])
    for cells, row in zip(table[1:], rows, strict=True):
        assert cells[0] == labels.get(str(row["group"]), "total")
        if by == "tool":
            share = row["eval_or_mixed_wave_share"]
            assert cells[1:] == [
                str(row["calls"]), str(row["multi_call_wave_calls"]),
                f"{row['duration_ms_total'] / 1000:.2f}", f"{row['duration_ms_mean'] / 1000:.2f}",
                f"{round(100 * share)}%"]
        else:
            assert cells[1:] == [str(row[name]) for name in (
                "paired_calls", "waves_total", "non_eval_waves_multi",
                "non_eval_saved_round_trips", "eval_only_waves", "mixed_waves")] + [
                f"{row['modeled_wallclock_saved_ms'] / 1000:.2f}",
                f"{row['upper_bound_saved_ms'] / 1000:.2f}"]


def test_by_tool_first_rows_by_hand() -> None:
    """The README-known demo figures per tool: Bash 40 calls, 2 in multi, 1756.91 s in
    all, 1756.91 / 40 = 43.92 s each; the total 117 calls, 22 in multi, 5211.41 s."""
    _, out, _ = _run("summarize", "--demo", "--by", "tool", "--format", "markdown")
    assert "| tool | calls | calls in multi | total s | mean s | eval/mix |\n" in out
    assert "| `Bash` | 40 | 2 | 1756.91 | 43.92 | 0% |\n" in out
    # 5211.41 s / 117 calls = 44.54 s
    assert "| total | 117 | 22 | 5211.41 | 44.54 | 0% |\n" in out


def test_the_cap_mark_is_escaped() -> None:
    """With a cap of 1 call per lane the total row is ``total*`` and the loss line starts
    with ``*``: both escaped, so GFM shows the mark, not emphasis or a list."""
    _, out, _ = _run("summarize", "--demo", "--max-tracked-calls", "1", "--format", "markdown")
    [table] = gfm.table_texts(out)
    assert table[-1][0] == "total*"
    assert "| total\\* | 7 lanes |" in out
    item = next(line for line in out.splitlines() if "calls not counted" in line)
    assert item.startswith("- \\* calls not counted: ")
    assert "options: `--max-tracked-calls 1`\n" in out


def test_options_line_names_the_options_as_one_code_span() -> None:
    """Options not at their default are named as the text table names them, as code."""
    _, out, _ = _run("summarize", "--demo", "--since", "2026-04-18", "--timezone", "UTC",
                     "--eval-tool", "a|b`c", "--format", "markdown")
    # shlex quotes the name with a pipe and a backtick; the span's fence is 2 backticks
    assert ("options: ``--eval-tool 'a|b`c' --since 2026-04-18T00:00:00+00:00 --timezone UTC``"
            " (only the waves that start in this window)\n") in out


def test_markdown_table_checks_its_rows() -> None:
    """A row with the wrong number of cells is a ValueError, never a broken table."""
    with pytest.raises(ValueError, match="one cell per column"):
        markdown_table(["a", "b"], "lr", [["1"]])


def test_counts_and_seconds_are_never_shortened() -> None:
    """A figure past the text column's width is written whole: 1,234,567,890,123 ms is
    1234567890.12 s (the text table shows 1.2G)."""
    assert seconds_cell(1_234_567_890_123.0) == "1234567890.12"
    assert seconds_cell(float("inf")) == "n/a"


# -- hostile names ----------------------------------------------------------------------

def _events(path: Path, *, session: str, agent: str, tool: str) -> Path:
    """Two overlapping calls (``tool`` 1000-1100 ms, ``grep`` 1010-1040 ms) of one lane."""
    lines = [
        {"type": "tool_execution_start", "toolCallId": "a", "toolName": tool,
         "timestamp": 1000, "sessionId": session, "agentId": agent},
        {"type": "tool_execution_start", "toolCallId": "b", "toolName": "grep",
         "timestamp": 1010, "sessionId": session, "agentId": agent},
        {"type": "tool_execution_end", "toolCallId": "b", "toolName": "grep",
         "timestamp": 1040, "sessionId": session, "agentId": agent},
        {"type": "tool_execution_end", "toolCallId": "a", "toolName": tool,
         "timestamp": 1100, "sessionId": session, "agentId": agent},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


#: Markup of every kind GitHub renders, and a pipe that would split a cell (ids may hold
#: no control character: docs/formats.md, "Limits and hostile input").
HOSTILE = ("x|y`z</td><script>alert(1)</script>*em* _u_ [a](http://e) @octocat :smile:"
           " $x$ #1 ~~s~~ &amp; \\| \u202eevil | forged | row |")
#: A tool name may hold line ends too: one would end the table's row.
HOSTILE_TOOL = "mcp__" + HOSTILE + "\r\n| forged | row |\x1b[2J"
#: Ids a trace may hold: not empty, no control character.
ids = markdown_hostile_texts.filter(lambda text: usable_id(text) is not None)


def _inline_types(text: str) -> set[str]:
    return {child.type for token in gfm.tokens(text) if token.type == "inline"
            for child in token.children or []}


def _check_hostile(folder: Path, session: str, agent: str, tool: str) -> None:
    """The table, the --by tool table and the --show-paths list of a trace with these
    names: one row per lane and the total, each name literal in its one code span."""
    trace = _events(folder / f"t{len(list(folder.iterdir()))}.jsonl",
                    session=session, agent=agent, tool=tool)
    code, out, err = _run("summarize", "--show-paths", "--format", "markdown", str(trace))
    assert code == 0, err
    assert _inline_types(out) <= {"text", "code_inline", "softbreak"}
    [table] = gfm.table_texts(out)
    # the text table's cells: unique prefixes of the escaped ids
    shown = (unique_prefixes([session], 10)[session], unique_prefixes([agent], 10)[agent])
    # 2 calls (100 and 30 ms), 1 wave of 2 spanning 100 ms: saving 100 + 30 - 100 = 30 ms,
    # upper bound (2 - 1) x 130 / 2 = 65 ms, 0.065 s shown as 0.07 (docs/metrics.md)
    lane = [*shown, "2", "1", "1", "1", "0", "0", "0.03", "0.07"]
    assert table == [table[0], lane, ["total", "1 lane", *lane[2:]]]
    # --show-paths: the whole ids and the path, each one code span
    paths = [t for t in gfm.tokens(out) if t.type == "inline" and "(events)" in t.content]
    assert [[c.content for c in t.children or [] if c.type == "code_inline"]
            for t in paths] == [[printable(f"{session}/{agent}"), printable(str(trace))]]
    code, out, err = _run("summarize", "--by", "tool", "--format", "markdown", str(trace))
    assert code == 0, err
    assert _inline_types(out) <= {"text", "code_inline", "softbreak"}
    [table] = gfm.table_texts(out)
    labels = group_labels("tool", [tool, "grep"])
    assert sorted(row[0] for row in table[1:-1]) == sorted(labels.values())
    assert all(len(row) == 6 for row in table)


def test_hostile_names_stay_literal_in_one_cell(tmp_path: Path) -> None:
    """Ids and a tool name holding pipes, backticks, HTML, a script, emphasis, a link,
    a mention, an emoji, math, an issue reference, U+202E and a forged row render as
    literal text: no row is added, no cell split, no markup made."""
    _check_hostile(tmp_path, HOSTILE, "sub|" + HOSTILE, HOSTILE_TOOL)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ids, ids, markdown_hostile_texts.filter(lambda t: t.strip().lower() not in ("", "grep")))
def test_any_names_stay_literal_in_one_cell(session: str, agent: str, tool: str) -> None:
    """Any session, lane and tool names: the same table shape, each name literal."""
    with tempfile.TemporaryDirectory() as folder:
        _check_hostile(Path(folder), session, agent, tool)


def test_cli_doc_shows_the_real_demo_output() -> None:
    """docs/cli.md's Markdown example is the demo's output (DEMO, checked above)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text("utf-8")
    section = text.split("### Markdown (`--format markdown`)", 1)[1]
    assert section.split("```", 2)[1].lstrip("\n") == DEMO
