"""How --by groups are labelled in the table (``wavemetrics/groups.py``)."""

from __future__ import annotations

from click.testing import CliRunner

from tests.corpus import CORPUS, needs_corpus
from wavemetrics.cli import main
from wavemetrics.groups import group_labels


def test_lane_groups_show_a_session_prefix_and_the_lane_so_rows_differ() -> None:
    """Lanes of one session keep their own lane ids; the long session id is cut once for all."""
    session = "741790a4-4fe2-4644-9d1e-000000000000"
    labels = group_labels("lane", [f"{session}/668b5ac2", f"{session}/9fa17969", f"{session}/main"])
    assert labels == {
        f"{session}/668b5ac2": "741790a4-…/668b5ac2",
        f"{session}/9fa17969": "741790a4-…/9fa17969",
        f"{session}/main": "741790a4-…/main",
    }


def test_lane_groups_of_an_inspect_session_split_at_the_last_slash() -> None:
    """An Inspect session id holds slashes (eval/sample/epoch): only the last one separates the lane."""
    assert group_labels("lane", ["E/1/1/main", "E/1/1/researcher"]) == {
        "E/1/1/main": "E/1/1/main", "E/1/1/researcher": "E/1/1/researcher"}


def test_session_groups_that_share_a_long_start_are_told_apart() -> None:
    """Two session ids equal in their first 25 characters show enough characters to differ."""
    a, b = "0199812e-64f0-7f73-91fc-0aaaaaaaaaaa", "0199812e-64f0-7f73-91fc-0bbbbbbbbbbb"
    assert group_labels("session", [a, b]) == {a: "0199812e-64f0-7f73-91fc-0a…",
                                               b: "0199812e-64f0-7f73-91fc-0b…"}


def test_project_groups_keep_the_end_of_the_path() -> None:
    """A project folder is shown by its last 31 characters, where projects differ, after an ellipsis."""
    one = "/home/u/.claude/projects/-home-u-src-alpha-service"
    two = "/home/u/.claude/projects/-home-u-src-beta-service"
    assert group_labels("project", [one, two, "/p/x"]) == {
        one: "…jects/-home-u-src-alpha-service",
        two: "…ojects/-home-u-src-beta-service",
        "/p/x": "/p/x",
    }


def test_labels_escape_control_characters() -> None:
    """A group key holding ESC or a bidi override is shown escaped, never raw."""
    assert group_labels("day", ["2026-01-01\x1b[2J"]) == {"2026-01-01\x1b[2J": "2026-01-01\\x1b[2J"}
    assert group_labels("project", ["/p/\u202ex"]) == {"/p/\u202ex": "/p/\\u202ex"}


@needs_corpus
def test_a_by_table_keeps_the_inputs_line_and_the_lower_bound_line() -> None:
    """--by tables say what was read and that figures are a lower bound, as the plain table does.

    The four localpush rollouts hold two calls without an output (MANIFEST: 144
    calls with 143 ended, and 1 call with 0 ended), so 2 calls are incomplete.
    """
    result = CliRunner().invoke(
        main, ["summarize", "--no-cache", "--by", "session", str(CORPUS / "localpush")])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "inputs: 4 codex (auto-detected)"
    assert lines[1] == ""
    assert lines[-1] == "calls not counted: incomplete 2 (figures are a lower bound)"
    assert max(len(line) for line in lines) <= 80
