"""wavemetrics.views.groups: what ``--by project`` calls a project, how groups are labelled in the
table, and the ``--by`` document's rules. The CLI's grouped figures, computed by
hand, are in test_slices.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from tests.event_traces import TWO_LANES, write_events
from tests.strategies import mcp_like_tool_names
from wavemetrics.cli.commands import main
from wavemetrics.run.pipeline import analyse, read_inputs
from wavemetrics.views.groups import (
    BY_CHOICES,
    NOT_RECORDED,
    group_document,
    group_labels,
    project_of,
)


def test_stdin_has_no_project() -> None:
    """Standard input records no working directory and has no folder."""
    assert project_of("-", "claude-code") == NOT_RECORDED == "(not recorded)"


def test_unknown_format_has_no_project() -> None:
    """An input of no known format (an empty or failed one) is grouped as not recorded."""
    assert project_of("/x/y.jsonl", "") == NOT_RECORDED
    assert project_of("/x/y.jsonl", "no-such-format") == NOT_RECORDED


def test_claude_code_project_is_the_transcript_folder(tmp_path: Path) -> None:
    """A session's project is its folder; a sub-agent's is the folder above its session's."""
    project = tmp_path / "-home-me-repo"
    assert project_of(str(project / "abc.jsonl"), "claude-code") == str(project)
    sub = project / "abc" / "subagents" / "agent-1.jsonl"
    assert project_of(str(sub), "claude-code") == str(project)


def test_codex_project_is_the_session_meta_cwd(tmp_path: Path) -> None:
    """A Codex rollout's project is the ``cwd`` of its ``session_meta`` header line."""
    rollout = tmp_path / "rollout.jsonl"
    meta = {"timestamp": "2025-09-25T02:12:23.966Z", "type": "session_meta",
            "payload": {"id": "s1", "timestamp": "2025-09-25T02:12:23.949Z",
                        "cwd": "/work/project-a"}}
    rollout.write_text(json.dumps(meta) + "\n", encoding="utf-8")
    assert project_of(str(rollout), "codex") == "/work/project-a"


def test_codex_without_cwd_is_not_recorded(tmp_path: Path) -> None:
    """A Codex header without ``cwd`` gives no project, not the file's folder."""
    rollout = tmp_path / "rollout.jsonl"
    meta = {"timestamp": "2025-09-25T02:12:23.966Z", "type": "session_meta",
            "payload": {"id": "s1", "timestamp": "2025-09-25T02:12:23.949Z"}}
    rollout.write_text(json.dumps(meta) + "\n", encoding="utf-8")
    assert project_of(str(rollout), "codex") == NOT_RECORDED


def test_events_format_records_no_project(tmp_path: Path) -> None:
    """The ``events`` format carries no working directory: not recorded."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    assert project_of(str(trace), "events") == NOT_RECORDED


def test_by_choices_are_the_seven_documented_keys() -> None:
    """``--by`` accepts exactly session, lane, project, day, week, month and tool."""
    assert BY_CHOICES == ("session", "lane", "project", "day", "week", "month", "tool")


def test_unknown_by_is_a_value_error(tmp_path: Path) -> None:
    """``group_document`` refuses a ``by`` it does not know, naming it."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    analysis = analyse(read_inputs([str(trace)]))
    with pytest.raises(ValueError, match="unknown --by 'hour'"):
        group_document(analysis, "hour")


def test_by_lane_groups_are_the_lanes_with_their_hand_computed_savings(tmp_path: Path) -> None:
    """TWO_LANES by lane: main saves 100 + 30 - 100 = 30 ms, sub 10 + 20 - 20 = 10 ms;
    the total is their sum, 40 ms, as without ``--by``."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    document = group_document(analyse(read_inputs([str(trace)])), "lane")
    assert document["by"] == "lane"
    figures = [(g["group"], g["paired_calls"], g["modeled_wallclock_saved_ms"])
               for g in document["groups"]]
    assert figures == [("t/main", 6, 30.0), ("t/sub", 2, 10.0)]
    assert (document["total"]["paired_calls"],
            document["total"]["modeled_wallclock_saved_ms"]) == (8, 40.0)


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
    """A project folder is shown by its last 23 characters, where projects differ, after an
    ellipsis (24 in all, so the table is 80 columns); a path of 24 or fewer, whole."""
    one = "/home/u/.claude/projects/-home-u-src-alpha-service"
    two = "/home/u/.claude/projects/-home-u-src-beta-service"
    assert group_labels("project", [one, two, "/p/x", "/p/-home-u-src-gamma-x"]) == {
        one: "…ome-u-src-alpha-service",
        two: "…home-u-src-beta-service",
        "/p/x": "/p/x",
        "/p/-home-u-src-gamma-x": "/p/-home-u-src-gamma-x",
    }


def test_project_groups_that_end_alike_show_more_of_the_path() -> None:
    """Two folders whose last 33 characters are the same show 34, so no two rows look alike."""
    alpha = "/x/alpha/-home-u-src-project-one-service"
    beta = "/x/beta/-home-u-src-project-one-service"
    assert group_labels("project", [alpha, beta]) == {
        alpha: "…ha/-home-u-src-project-one-service",
        beta: "…ta/-home-u-src-project-one-service",
    }


def test_labels_escape_control_characters() -> None:
    """A group key holding ESC or a bidi override is shown escaped, never raw."""
    assert group_labels("day", ["2026-01-01\x1b[2J"]) == {"2026-01-01\x1b[2J": "2026-01-01\\x1b[2J"}
    assert group_labels("project", ["/p/\u202ex"]) == {"/p/\u202ex": "/p/\\u202ex"}


def test_a_project_label_never_starts_inside_an_escape() -> None:
    """A cut that would fall inside an escape (``\\x07`` read as the text ``x07``) starts at
    its backslash instead: one character more; a cut between escapes stays as it is."""
    bell = "/p/-home-u-src-wavemetrics-\x07-and-more-stuff-here"
    assert group_labels("project", [bell]) == {bell: "…\\x07-and-more-stuff-here"}
    tab = "/q/ab\tcdefghijklmnopqrstuvwxyz0123"
    assert group_labels("project", [tab]) == {tab: "…hijklmnopqrstuvwxyz0123"}
    # the last 23 characters are "202e" and the 19 after it: the cut is 2 into \u202e
    override = "/r/-home-u-src-abc\u202ejklmnopqrstuvwxyz01"
    assert group_labels("project", [override]) == {override: "…\\u202ejklmnopqrstuvwxyz01"}


CLOUD_RUN = "mcp__cloud-associates__execute_workflow"
CLOUD_FIND = "mcp__cloud-associates__search_workflows"
PR_HOME = "mcp__github_home__create_pull_request"
PR_WORK = "mcp__github_work__create_pull_request"


def test_long_tool_names_keep_their_start_and_end() -> None:
    """A tool name longer than 24 is its first 11 characters, "…" and its last 12: the
    two cloud-associates tools (the corpus's localpush rollout) no longer both read
    "mcp__cloud-associates__…"; a name of 24 or fewer is whole."""
    assert group_labels("tool", [CLOUD_RUN, CLOUD_FIND, "Read", "x" * 24]) == {
        CLOUD_RUN: "mcp__cloud-…ute_workflow",
        CLOUD_FIND: "mcp__cloud-…ch_workflows",
        "Read": "Read",
        "x" * 24: "x" * 24,
    }


def test_tool_names_alike_at_both_ends_show_more_of_their_start() -> None:
    """Two names equal in their first 11 and last 18 characters show, at 30 characters
    (the widest that keeps the table to 80 columns), a longer start: 13 characters, the
    first that differ ("_w", "_h"), and the last 16; the other names stay at 24."""
    assert group_labels("tool", [PR_HOME, PR_WORK, CLOUD_RUN]) == {
        PR_HOME: "mcp__github_h…ate_pull_request",
        PR_WORK: "mcp__github_w…ate_pull_request",
        CLOUD_RUN: "mcp__cloud-…ute_workflow",
    }


def test_tool_names_that_differ_at_their_28th_character_fit_30() -> None:
    """The start grows to 28 characters (the end then 1): names alike in their first 27
    and last 18 characters but for the 28th are still told apart within 30 columns."""
    start, end = "mcp__server_with_long_name_", "__tool_with_a_long_name"
    a, b = start + "A" + end, start + "B" + end
    assert group_labels("tool", [a, b]) == {a: "mcp__server_with_long_name_A…e",
                                            b: "mcp__server_with_long_name_B…e"}


def test_tool_names_that_differ_only_in_their_middle_fall_back_to_unique_prefixes() -> None:
    """Names alike in their first 28 and last 18 characters cannot be told apart within
    30 columns: they are shown by unique prefixes (the column grows past 30)."""
    a = "mcp__server_with_long_name__A__tool_with_a_long_name"
    b = "mcp__server_with_long_name__B__tool_with_a_long_name"
    assert group_labels("tool", [a, b]) == {a: "mcp__server_with_long_name__A…",
                                            b: "mcp__server_with_long_name__B…"}


def test_a_tool_label_never_starts_its_end_inside_an_escape() -> None:
    """The end after "…" starts at an escape's backslash, not inside it (as a project's)."""
    bell = "mcp__srv__abcdefghij\x07klmnopqrstu"
    assert group_labels("tool", [bell]) == {bell: "mcp__srv__a…\\x07klmnopqrstu"}


@given(st.lists(mcp_like_tool_names, min_size=1, max_size=8, unique=True))
def test_no_two_tool_labels_look_the_same(names: list[str]) -> None:
    """Whatever the names, no two tools get the same label, and the labels stay within
    30 characters (80-column table) unless the names differ only in their middle (the
    unique-prefix fallback, a label ending "…"); an escape kept whole never widens one."""
    labels = group_labels("tool", names)
    assert len(set(labels.values())) == len(names)
    for name, label in labels.items():
        if len(label) > 30:
            assert label.endswith("…"), (name, label)


def test_by_tool_table_shows_cut_names_apart_in_80_columns(tmp_path: Path) -> None:
    """Five tools of one 100 ms call each (sorted by name when calls tie): the tool column
    is 30 wide for the two pull-request tools, so the table is 80 columns."""
    events = []
    for index, name in enumerate([CLOUD_RUN, CLOUD_FIND, PR_HOME, PR_WORK, "read"]):
        events += [("tool_execution_start", f"c{index}", name, 1000 * index, "main"),
                   ("tool_execution_end", f"c{index}", name, 1000 * index + 100, "main")]
    trace = write_events(tmp_path / "t.jsonl", events)
    result = CliRunner().invoke(main, ["summarize", "--by", "tool", "--no-cache", str(trace)])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[2:10] == [
        "tool                            calls calls in multi   total s   mean s eval/mix",
        "mcp__cloud-…ute_workflow            1              0      0.10     0.10       0%",
        "mcp__cloud-…ch_workflows            1              0      0.10     0.10       0%",
        "mcp__github_h…ate_pull_request      1              0      0.10     0.10       0%",
        "mcp__github_w…ate_pull_request      1              0      0.10     0.10       0%",
        "read                                1              0      0.10     0.10       0%",
        "-" * 80,
        "total                               5              0      0.50     0.10       0%",
    ]


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
    # under the total row, as in the plain table: the tool time, then the lost calls
    total = next(i for i, line in enumerate(lines) if line.startswith("total"))
    assert lines[total + 1].startswith("tool time ")
    assert lines[total + 2] == "calls not counted: incomplete 2 (figures are a lower bound)"
    assert lines[-2:] == [
        "calls: paired calls; multi: non_eval waves of 2+ calls; rt: saved round trips;",
        "saved s / upper s: modeled saving and its upper bound.",
    ]
    assert max(len(line) for line in lines) <= 80


@needs_corpus
def test_a_by_session_table_keeps_the_single_wave_warning() -> None:
    """claude-code-log: the plain table warns that 60 % of the 5401.77 s saved (3286.35 s)
    is one wave of 3 calls in one sub-agent lane; the --by session table keeps that
    warning and the tool time line (17487.39 s, of which 5401.77 s is 30 % rounded
    down) under its total row, in the plain table's order (the turns block between
    them), before its own legend."""
    folder = str(CORPUS / "claude-code-log")
    plain = CliRunner().invoke(main, ["summarize", "--no-cache", folder]).stdout.splitlines()
    result = CliRunner().invoke(main, ["summarize", "--no-cache", "--by", "session", folder])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    under = [
        "tool time 17487.39 s (paired calls' durations summed): saved s is 30% of it",
        "note: 60% of the saved time (3286.35 s) is one wave of 3 calls, in lane",
        "  741790a4-…/db734024: see wavemetrics waves",
    ]
    found = []
    for table in (plain, lines):
        total = next(i for i, line in enumerate(table) if line.startswith("total"))
        legend = next(i for i, line in enumerate(table) if line.startswith("calls: paired"))
        below = table[total + 1:legend]
        # the tool time, the turns block (tests/test_turns_block.py), the note
        assert [below[0], *below[-2:]] == under
        assert below[1].startswith("turns:") and below[-3].startswith("timing:")
        found.append(below)
    assert found[0] == found[1]  # the same lines under both totals


def test_an_escape_kept_whole_never_widens_the_tool_column_past_30() -> None:
    """Two names alike but for a control character 20 characters in: the end that would
    start inside its escape (\\x07, 4 characters) is not grown to 33 columns (an 83-column
    table) but cut after the escape; the start then grows to show \\x07 and \\x08 whole,
    with the last 6 characters: 23 + "…" + 6 = 30."""
    bell = "mcp__srv__abcdefghi\x07jklmnopqrstuvwxyz"
    backspace = "mcp__srv__abcdefghi\x08jklmnopqrstuvwxyz"
    assert group_labels("tool", [bell, backspace]) == {
        bell: "mcp__srv__abcdefghi\\x07…uvwxyz",
        backspace: "mcp__srv__abcdefghi\\x08…uvwxyz",
    }
