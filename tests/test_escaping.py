"""Visible escaping of input text in every text output (``docs/formats.md``, "Limits and hostile input").

The hostile values are built here: ESC sequences (clear screen, OSC 8 hyperlink),
CR/LF that would forge a table row or a ``wavemetrics:`` line, NUL, BEL, the C1
CSI U+009B, DEL and the bidi override U+202E.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given

from tests import gfm
from tests.strategies import markdown_hostile_texts
from wavemetrics.cli.commands import main
from wavemetrics.views.escaping import markdown_code, printable, shortened

#: Characters no text output may print raw.
RAW = ("\x1b", "\x00", "\x07", "\r", "\x9b", "\x7f", "\u202e", "\u2066")
CLEAR = "\x1b[2J\x1b[H"
LINK = "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07"


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def _assert_clean(text: str) -> None:
    for char in RAW:
        assert char not in text, repr(char)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2J", "\\x1b[2J"),
        ("a\r\nb", "a\\r\\nb"),
        ("\t", "\\t"),
        ("\x00\x07\x7f", "\\x00\\x07\\x7f"),
        ("\x9b31m", "\\x9b31m"),  # C1 CSI
        ("abc\u202edef", "abc\\u202edef"),  # right-to-left override
        ("\u2066x\u2069", "\\u2066x\\u2069"),  # isolates
        ("\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"),  # bidi marks
        ("lone\ud800", "lone\\ud800"),
        ("file\udcff", "file\\xff"),  # an undecodable file-name byte
    ],
)
def test_printable_escapes_controls_and_bidi_visibly(raw: str, shown: str) -> None:
    """C0, C1, DEL, bidi formatting characters and lone surrogates become Python escapes."""
    assert printable(raw) == shown


def test_printable_keeps_ordinary_text() -> None:
    """Letters of any script, spaces, punctuation and backslashes are shown as they are."""
    for text in ("Bash", "mcp__github__search", "café 日本語", "C:\\tmp\\x", "a b\u00a0c"):
        assert printable(text) == text


def test_shortened_cuts_after_escaping_and_only_reads_the_head() -> None:
    """The escaped text is cut to the width with a final ``…``; a 1 MB id is cut the same."""
    assert shortened("\x1b[2Jabcdef", 8) == "\\x1b[2J…"
    assert shortened("x" * 1_000_000, 10) == "x" * 9 + "…"


def _events(path: Path, *, session: str, agent: str, tool: str, extra: bytes = b"") -> Path:
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
    path.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in lines) + extra)
    return path


def test_summarize_and_waves_tables_escape_ids_and_tool_names(tmp_path: Path) -> None:
    """A session id with U+202E and a tool name with ESC, CR/LF and a fake note are shown escaped."""
    forged = "read" + CLEAR + "\r\nwavemetrics: note: all good" + LINK
    trace = _events(tmp_path / "t.jsonl", session="s\u202eevil", agent="main", tool=forged)
    code, out, err = _run("summarize", str(trace))
    assert code == 0, err
    _assert_clean(out + err)
    assert "s\\u202eev…" in out  # escaped, then cut to the 10-character column
    code, out, err = _run("waves", str(trace))
    assert code == 0, err
    _assert_clean(out + err)
    assert not any(line.startswith("wavemetrics:") for line in out.splitlines())
    assert "read\\x1b[2J\\x1b[H\\r\\nwavemetrics: note: all good\\x1b]8;;" in out


def test_json_output_keeps_the_values_as_json_escapes(tmp_path: Path) -> None:
    """``--format json`` is data: the same values come back exactly when parsed."""
    trace = _events(tmp_path / "t.jsonl", session="s\u202eevil", agent="main", tool="r\x1b[2J")
    code, out, _ = _run("waves", "--format", "json", str(trace))
    assert code == 0
    assert "\x1b" not in out  # json.dumps writes \u001b
    rows = json.loads(out)["waves"]
    assert rows[0]["session_id"] == "s\u202eevil"
    assert rows[0]["tool_names"] == ["r\x1b[2J", "grep"]


def test_warnings_escape_file_names(tmp_path: Path) -> None:
    """A warning naming a file whose name holds ESC, BEL and U+202E prints them escaped."""
    name = "run" + CLEAR + "\x07\u202egpj.jsonl"
    trace = _events(tmp_path / name, session="s", agent="main", tool="read",
                    extra=b"not json\n")
    code, _, err = _run("summarize", str(trace))
    assert code == 0
    _assert_clean(err)
    assert "run\\x1b[2J\\x1b[H\\x07\\u202egpj.jsonl: 1 line not usable (invalid_json 1)" in err


def test_timeline_lane_error_escapes_ids(tmp_path: Path) -> None:
    """``timeline --lane`` that matches nothing lists the lanes escaped, the asked id too."""
    trace = _events(tmp_path / "t.jsonl", session="s", agent="sub\u202eagent", tool="read")
    code, out, err = _run("timeline", "-o", str(tmp_path / "x.svg"), "--lane", "no\x1bpe",
                          str(trace))
    assert code == 1
    _assert_clean(out + err)
    # the lane as the table shows it: escaped, then cut to 9 characters and "…"
    assert "--lane no\\x1bpe: no such lane (lanes: s/sub\\u202e…)" in err


def test_compare_table_escapes_task_folder_names(tmp_path: Path) -> None:
    """Task folder names with an OSC 8 hyperlink and a newline are shown escaped in compare."""
    pytest.importorskip("scipy")
    task = "t\x1b]8;;x\x07click\x1b]8;;\x07\nx"  # an OSC 8 link with no "/" (a folder name)
    for side, tool in (("base", "read"), ("cand", "read")):
        (tmp_path / side / task).mkdir(parents=True)
        _events(tmp_path / side / task / "a.jsonl", session="s", agent="main", tool=tool)
    code, out, err = _run("compare", str(tmp_path / "base"), str(tmp_path / "cand"))
    assert code == 0, err
    _assert_clean(out + err)
    assert "t\\x1b]8;;x\\x07click…" in out  # cut to the 20-column task column


def test_compare_table_escapes_tasks_with_no_trial_files(tmp_path: Path) -> None:
    """The ``no trial files:`` line names an empty task folder escaped (ESC, BEL)."""
    pytest.importorskip("scipy")
    for side in ("base", "cand"):
        (tmp_path / side / "hollow\x1b[2J\x07").mkdir(parents=True)
        (tmp_path / side / "t").mkdir()
        _events(tmp_path / side / "t" / "a.jsonl", session="s", agent="main", tool="read")
    code, out, _ = _run("compare", str(tmp_path / "base"), str(tmp_path / "cand"))
    assert code == 1
    _assert_clean(out)
    assert "no trial files: 1 task on neither side: hollow\\x1b[2J\\x07\n" in out


# -- Markdown (--format markdown) ------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "span"),
    [
        ("Bash", "`Bash`"),
        ("a|b", "`a\\|b`"),  # the pipe escaped for the table; GFM takes the backslash out
        ("x`y", "``x`y``"),  # a fence longer than the longest run of backticks
        ("``", "``` `` ```"),  # a text starting and ending with backticks: padded
        (" a ", "`  a  `"),  # spaces at both ends: padded, as CommonMark strips one
        ("  ", "`  `"),  # only spaces: CommonMark strips nothing, nothing is padded
        ("a\nb", "`a\\nb`"),  # the line end escaped visibly, the table row kept whole
        ("", ""),
    ],
)
def test_markdown_code_spans(raw: str, span: str) -> None:
    """markdown_code: printable text in a code span, pipes escaped, fence and padding fit."""
    assert markdown_code(raw) == span


@given(markdown_hostile_texts)
def test_markdown_code_is_one_literal_cell_in_a_gfm_table(text: str) -> None:
    """Any text, as a cell of a GFM table, is one cell showing exactly printable(text) as
    code: the row keeps its two cells and no markup (link, HTML, emphasis) appears."""
    table = f"| name | next |\n| :-- | --: |\n| {markdown_code(text)} | end |\n"
    [[header, row]] = gfm.tables(table)
    assert [gfm.cell_text(cell) for cell in header] == ["name", "next"]
    assert len(row) == 2
    children = row[0].children or []
    if printable(text):
        assert [(c.type, c.content) for c in children] == [("code_inline", printable(text))]
    else:
        assert children == []
    assert gfm.cell_text(row[1]) == "end"


@given(markdown_hostile_texts, markdown_hostile_texts)
def test_markdown_code_in_running_text_stays_literal(first: str, second: str) -> None:
    """Two spans in running text (cell=False) show exactly their texts, the prose intact."""
    line = (f"- lane {markdown_code(first, cell=False)} and"
            f" {markdown_code(second, cell=False)}: done\n")
    inline = next(t for t in gfm.tokens(line) if t.type == "inline")
    codes = [c.content for c in inline.children or [] if c.type == "code_inline"]
    assert codes == [printable(t) for t in (first, second) if printable(t)]
    assert gfm.cell_text(inline).endswith(": done")
    assert all(c.type in ("text", "code_inline") for c in inline.children or [])
