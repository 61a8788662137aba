"""--since/--until and --by: waves are never cut in two, figures computed by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from tests.event_traces import Event, write_events
from tests.strategies import lane_observations
from wavemetrics.cli.commands import main
from wavemetrics.core.histogram import decode_histogram
from wavemetrics.core.observations import Observation
from wavemetrics.core.summary import ParallelismSummary, summarize
from wavemetrics.core.waves import assemble_waves
from wavemetrics.run.pipeline import Lane
from wavemetrics.views.slices import partition_lane, window_lane

#: 2025-09-24T00:00:00Z in Unix ms.
D = 1_758_672_000_000

#: Wave A {a read [D-100, D+50], b grep [D-10, D+20], g read [D+10, D+40]} starts on
#: 09-23 and crosses midnight (g even starts after it): durations 210, span 150, saving 60.
#: Wave B {c read [D+1000, D+1100], d bash [D+1050, D+1300]}: 350 - 300 = saving 50.
#: e bash [D+5000, D+5100] alone; f bash starts at D+6000 and never ends (incomplete).
#: Mixed wave {h eval [D+8000, D+8100], i read [D+8050, D+8080]}: never a saving.
EVENTS: list[Event] = [
    ("tool_execution_start", "a", "read", D - 100, "main"),
    ("tool_execution_start", "b", "grep", D - 10, "main"),
    ("tool_execution_start", "g", "read", D + 10, "main"),
    ("tool_execution_end", "b", "grep", D + 20, "main"),
    ("tool_execution_end", "g", "read", D + 40, "main"),
    ("tool_execution_end", "a", "read", D + 50, "main"),
    ("tool_execution_start", "c", "read", D + 1000, "main"),
    ("tool_execution_start", "d", "bash", D + 1050, "main"),
    ("tool_execution_end", "c", "read", D + 1100, "main"),
    ("tool_execution_end", "d", "bash", D + 1300, "main"),
    ("tool_execution_start", "e", "bash", D + 5000, "main"),
    ("tool_execution_end", "e", "bash", D + 5100, "main"),
    ("tool_execution_start", "f", "bash", D + 6000, "main"),
    ("tool_execution_start", "h", "eval", D + 8000, "main"),
    ("tool_execution_start", "i", "read", D + 8050, "main"),
    ("tool_execution_end", "i", "read", D + 8080, "main"),
    ("tool_execution_end", "h", "eval", D + 8100, "main"),
]


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    """The hand-made trace above, as an events file."""
    return write_events(tmp_path / "t.jsonl", EVENTS)


def _json(*args: str) -> Any:
    result = CliRunner().invoke(main, [*args, "--format", "json", "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def _figures(total: dict[str, Any]) -> tuple[int, int, int, float, int, int]:
    return (total["paired_calls"], total["waves_total"], total["non_eval_waves_multi"],
            total["modeled_wallclock_saved_ms"], total["incomplete_calls"], total["mixed_waves"])


def test_unfiltered_figures(trace: Path) -> None:
    """All of it: 8 paired calls, 4 waves, 2 multi-call, saving 60 + 50 = 110 ms."""
    assert _figures(_json("summarize", str(trace))["total"]) == (8, 4, 2, 110.0, 1, 1)


def test_since_keeps_the_waves_that_start_after_it(trace: Path) -> None:
    """--since midnight drops wave A whole, even its call g that starts after midnight."""
    total = _json("summarize", "--since", "2025-09-24", "--timezone", "UTC", str(trace))["total"]
    assert _figures(total) == (5, 3, 1, 50.0, 1, 1)


def test_until_a_date_is_through_its_end(trace: Path) -> None:
    """--until 2025-09-23 keeps wave A whole, with its calls that end (or start) after midnight."""
    total = _json("summarize", "--until", "2025-09-23", "--timezone", "UTC", str(trace))["total"]
    assert _figures(total) == (3, 1, 1, 60.0, 0, 0)


def test_until_a_time_is_exclusive_and_offsets_are_honoured(trace: Path) -> None:
    """--until 02:00:05+02:00 is 00:00:05Z = D+5000: A and B are kept, e (starting exactly
    then) is not; --since is inclusive: B starting at D+1000 is kept from 00:00:01Z."""
    total = _json("summarize", "--until", "2025-09-24T02:00:05+02:00", str(trace))["total"]
    assert _figures(total) == (5, 2, 2, 110.0, 0, 0)
    both = _json("summarize", "--since", "2025-09-24T00:00:01Z",
                 "--until", "2025-09-24T00:00:06Z", str(trace))["total"]
    assert _figures(both) == (3, 2, 1, 50.0, 0, 0)  # B and e; f starts at the (open) end


def test_waves_list_honours_the_window(trace: Path) -> None:
    """`waves --since` lists B, e and the mixed wave; wave A is not cut to its call g."""
    waves = _json("waves", "--since", "2025-09-24", "--timezone", "UTC", str(trace))["waves"]
    assert [w["tool_names"] for w in waves] == [["read", "bash"], ["bash"], ["eval", "read"]]


def test_by_day_puts_a_wave_in_the_day_it_starts(trace: Path) -> None:
    """UTC days: 09-23 has wave A (3 calls, 60 ms); 09-24 the rest (5 calls, 50 ms)."""
    document = _json("summarize", "--by", "day", "--timezone", "UTC", str(trace))
    assert [(g["group"], g["paired_calls"], g["modeled_wallclock_saved_ms"])
            for g in document["groups"]] == [("2025-09-23", 3, 60.0), ("2025-09-24", 5, 50.0)]
    assert _figures(document["total"]) == (8, 4, 2, 110.0, 1, 1)


def test_by_day_in_another_zone(trace: Path) -> None:
    """In Tokyo (UTC+9) everything happens on 2025-09-24."""
    document = _json("summarize", "--by", "day", "--timezone", "Asia/Tokyo", str(trace))
    assert [(g["group"], g["paired_calls"]) for g in document["groups"]] == [("2025-09-24", 8)]


def test_by_week_and_month(trace: Path) -> None:
    """Tuesday 09-23 and Wednesday 09-24 are both in ISO week 39 and in September."""
    week = _json("summarize", "--by", "week", "--timezone", "UTC", str(trace))
    month = _json("summarize", "--by", "month", "--timezone", "UTC", str(trace))
    assert [(g["group"], g["paired_calls"]) for g in week["groups"]] == [("2025-W39", 8)]
    assert [(g["group"], g["paired_calls"]) for g in month["groups"]] == [("2025-09", 8)]


def test_by_tool(trace: Path) -> None:
    """read: a, g, c, i (i in the mixed wave); bash: d, e (f never ended); eval: h."""
    document = _json("summarize", "--by", "tool", str(trace))
    rows = {g["group"]: g for g in document["groups"]}
    assert [g["group"] for g in document["groups"]] == ["read", "bash", "eval", "grep"]
    assert rows["read"] == {"group": "read", "calls": 4, "multi_call_wave_calls": 3,
                            "duration_ms_total": 310.0, "duration_ms_mean": 77.5,
                            "eval_or_mixed_wave_share": 0.25}
    assert rows["bash"] == {"group": "bash", "calls": 2, "multi_call_wave_calls": 1,
                            "duration_ms_total": 350.0, "duration_ms_mean": 175.0,
                            "eval_or_mixed_wave_share": 0.0}
    assert rows["eval"]["eval_or_mixed_wave_share"] == 1.0
    assert document["total"] == {"calls": 8, "multi_call_wave_calls": 5,
                                 "duration_ms_total": 790.0, "duration_ms_mean": 98.75,
                                 "eval_or_mixed_wave_share": 0.25}


def test_by_session_and_lane(tmp_path: Path) -> None:
    """Two sessions of one lane each: one group per session, the total as without --by."""
    write_events(tmp_path / "s1.jsonl", EVENTS[:6])
    write_events(tmp_path / "s2.jsonl", EVENTS[6:10])
    by_session = _json("summarize", "--by", "session", str(tmp_path))
    plain = _json("summarize", str(tmp_path))
    assert [(g["group"], g["modeled_wallclock_saved_ms"]) for g in by_session["groups"]] == [
        ("s1", 60.0), ("s2", 50.0)]
    assert by_session["total"] == plain["total"]
    by_lane = _json("summarize", "--by", "lane", str(tmp_path))
    assert [g["group"] for g in by_lane["groups"]] == ["s1/main", "s2/main"]


def test_usage_errors(trace: Path) -> None:
    """Unreadable dates, unknown zones, an empty window and --by with jsonl exit 2."""
    for args in (["--since", "yesterday"], ["--timezone", "Mars/Olympus"],
                 ["--since", "2025-09-24", "--until", "2025-09-23"],
                 ["--by", "day", "--format", "jsonl"]):
        result = CliRunner().invoke(main, ["summarize", *args, str(trace)])
        assert result.exit_code == 2, args
        assert "Traceback" not in result.stderr


def test_turn_time_goes_with_the_lanes_first_call() -> None:
    """A lane's turn total (no times of its own) is counted on the day of its earliest start."""
    lane = Lane("p", "s", "main", (
        Observation("start", "x", "read", D - 5.0), Observation("end", "x", "read", D - 1.0),
        Observation("start", "y", "read", D + 5.0), Observation("end", "y", "read", D + 9.0),
    ), measured_turn_duration_ms_total=500.0)
    parts = partition_lane(lane, lambda ms: ms >= D)
    assert [(k, len(p.observations), p.measured_turn_duration_ms_total)
            for k, p in parts.items()] == [(False, 2, 500.0), (True, 2, 0.0)]
    assert window_lane(lane, D + 100.0, None) is None


@needs_corpus
def test_days_of_a_real_folder_add_up_and_match_since(tmp_path: Path) -> None:
    """On real Claude Code sessions, the days' calls add up to the total, and --since a day
    gives the calls of that day and the days after it."""
    folder = str(CORPUS / "claude-code-log")
    by_day = _json("summarize", "--by", "day", "--timezone", "UTC", folder)
    plain = _json("summarize", folder)
    groups = by_day["groups"]
    assert sum(g["paired_calls"] for g in groups) == plain["total"]["paired_calls"]
    assert sum(g["waves_total"] for g in groups) == plain["total"]["waves_total"]
    # per UTC day, the tool_use blocks of assistant lines, counted from the raw files by a
    # throwaway script (every call of this folder is paired, and no wave crosses midnight)
    assert [(g["group"], g["paired_calls"]) for g in groups] == [
        ("2025-06-14", 32), ("2025-06-18", 20), ("2025-07-05", 14), ("2025-07-13", 14),
        ("2025-07-14", 115), ("2025-07-16", 9), ("2025-07-17", 26), ("2025-07-19", 19),
        ("2025-07-20", 35), ("2025-09-29", 54), ("2025-10-29", 4), ("2025-11-13", 26),
        ("2025-11-14", 5), ("2026-01-23", 13), ("2026-02-16", 2), ("2026-04-18", 117),
    ]
    cut = groups[len(groups) // 2]["group"]
    since = _json("summarize", "--since", cut, "--timezone", "UTC", folder)["total"]
    assert since["paired_calls"] == sum(g["paired_calls"] for g in groups if g["group"] >= cut)
    assert since["waves_total"] == sum(g["waves_total"] for g in groups if g["group"] >= cut)


@needs_corpus
def test_by_project_uses_the_folder_or_the_recorded_cwd() -> None:
    """Claude Code: the project folder; Codex and pi: the cwd of the session header."""
    claude = CORPUS / "agentcmd" / "claude"
    document = _json("summarize", "--by", "project", str(CORPUS / "pi-mono"),
                     str(CORPUS / "agentcmd" / "codex"), str(claude))
    assert [g["group"] for g in document["groups"]] == [
        "/Users/badlogic/workspaces/pi-mono",
        "/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2",
        str(claude),
    ]
    plain = _json("summarize", str(CORPUS / "pi-mono"), str(CORPUS / "agentcmd" / "codex"),
                  str(claude))
    assert document["total"] == plain["total"]
    # the five Codex rollouts of one working directory are one group
    codex = _json("summarize", str(CORPUS / "agentcmd" / "codex"))["total"]
    assert document["groups"][1]["paired_calls"] == codex["paired_calls"]


def test_events_trace_records_no_project(trace: Path) -> None:
    """A format without a working directory is grouped as (not recorded)."""
    document = _json("summarize", "--by", "project", str(trace))
    assert [g["group"] for g in document["groups"]] == ["(not recorded)"]


def test_group_table_and_csv(trace: Path) -> None:
    """The table has a row per day and a total (under the ``options:`` line naming the
    zone the days are in); the CSV a row per group and a total row."""
    lines = CliRunner().invoke(main, ["summarize", "--by", "day", "--timezone", "UTC",
                                      str(trace)]).stdout.splitlines()
    assert lines[1:3] == ["options: --timezone UTC", ""]
    table = lines[3:]  # after inputs: and options:
    assert table[0].split() == ["day", "calls", "waves", "multi", "rt", "eval", "mixed",
                                "saved", "s", "upper", "s"]
    assert table[1].split()[:3] == ["2025-09-23", "3", "1"]
    assert table[2].split()[:3] == ["2025-09-24", "5", "3"]
    assert table[4].split()[:3] == ["total", "8", "4"]
    csv_text = CliRunner().invoke(main, ["summarize", "--by", "tool", "--format", "csv",
                                         str(trace)]).stdout
    # the options close every row (docs/cli.md, "CSV"): the defaults, with by = tool
    batchable = ", ".join(f'""{name}""' for name in (
        "read", "read_file", "view", "grep", "glob", "ls", "list", "list_dir",
        "list_directory", "find", "search", "search_files", "webfetch", "web_fetch",
        "websearch", "web_search"))
    options = (f',auto,"[""eval"", ""codemode"", ""code_mode""]","[{batchable}]",300000.0,'
               "2000,67108864,268435456,,,,tool")
    assert csv_text.splitlines()[0] == ("row,by,group,calls,multi_call_wave_calls,"
                                        "duration_ms_total,duration_ms_mean,"
                                        "eval_or_mixed_wave_share,options.input_format,"
                                        "options.eval_tools,options.batchable_tools,"
                                        "options.idle_gap_ms,options.max_tracked_calls,"
                                        "options.max_line_bytes,options.max_document_bytes,"
                                        "options.since,options.until,options.timezone,"
                                        "options.by")
    assert csv_text.splitlines()[1] == "group,tool,read,4,3,310.0,77.5,0.25" + options
    assert csv_text.splitlines()[-1] == "total,tool,,8,5,790.0,98.75,0.25" + options


def test_by_tool_table_counts_calls_in_multi_call_waves(trace: Path) -> None:
    """The --by tool table (74 columns): read a, g, c, i (310 ms, 3 in multi-call waves:
    a, g in A, c in B; i in the mixed wave, 1 of 4), bash d, e (350 ms; d in B), eval h
    (100 ms, mixed), grep b (30 ms, in A); means 77.5, 175 (the float 0.175 is just under
    it: 0.17), 100, 30 and 790 / 8 = 98.75 ms; under the total the plain table's lines
    (tool time 790 ms, of which the 110 ms saving is 13 % rounded down; the incomplete
    call; any concentration note), then the footer, which explains every column in 80."""
    table = _table("summarize", "--by", "tool", str(trace))[2:]
    assert table[:9] == [
        "tool                      calls calls in multi   total s   mean s eval/mix",
        "read                          4              3      0.31     0.08      25%",
        "bash                          2              1      0.35     0.17       0%",
        "eval                          1              0      0.10     0.10     100%",
        "grep                          1              1      0.03     0.03       0%",
        "--------------------------------------------------------------------------",
        "total                         8              5      0.79     0.10      25%",
        "tool time 0.79 s (paired calls' durations summed): saved s is 13% of it",
        "calls not counted: incomplete 1 (figures are a lower bound)",
    ]
    assert table[-3:] == [
        "calls in multi: calls in non_eval waves of 2+ calls;",
        "total s: its calls' durations summed, overlapping calls each counted in full;",
        "mean s: total s / calls; eval/mix: share of calls in eval_only or mixed waves.",
    ]


@needs_corpus
def test_by_project_table_fits_80_columns() -> None:
    """The corpus's six Claude Code projects, shown by the last 23 characters of their
    folder paths (``-experiments-ideas`` and ``-experiments-worktrees`` with the
    ``claude-code-log/`` folder's end): no line is wider than 80 columns."""
    lines = _table("summarize", "--by", "project", str(CORPUS / "claude-code-log"))
    assert lines[2] == ("project                  calls waves multi    rt  eval mixed"
                        "   saved s   upper s")
    assert [line[:24] for line in lines[3:9]] == [
        "…-claude-code-log-sample", "…oderabbit-review-helper", "…ce-danieldemmel-me-next",
        "…-log/-experiments-ideas", "…/-experiments-worktrees", "…rc-experiments-claude_p"]
    assert max(map(len, lines)) == 80


def _table(*args: str) -> list[str]:
    result = CliRunner().invoke(main, [*args, "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


@needs_corpus
def test_by_session_show_paths_traces_each_row_to_its_files() -> None:
    """``--by session --show-paths``: after the table, each session's whole id and the
    files its lanes come from: ef958aa1-… its transcript and six ``subagents/`` files,
    741790a4-… its five old-layout agent files (MANIFEST rows 32-36, 42-48)."""
    worktrees = CORPUS / "claude-code-log" / "-experiments-worktrees"
    coderabbit = CORPUS / "claude-code-log" / "-Users-dain-workspace-coderabbit-review-helper"
    session = worktrees / "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    agents = ["a36efb2a1231c41e2", "a4ca7529859c158c2", "a52886dc180afb356",
              "a6aa8ad077d9ea083", "ab1e6e141221a29ab", "aef063ba534d73153"]
    lines = _table("summarize", "--by", "session", "--show-paths", str(worktrees),
                   str(coderabbit))
    section = lines[lines.index("rows: session: inputs (format)"):]
    assert section == [
        "rows: session: inputs (format)",
        "  ef958aa1-0e93-49f0-bb71-150f63befcd1",
        f"    {session}.jsonl (claude-code)",
        *(f"    {session}/subagents/agent-{a}.jsonl (claude-code)" for a in agents),
        "  741790a4-4fe2-4644-9a51-fb4482074060",
        *(f"    {coderabbit}/agent-{a}.jsonl (claude-code)"
          for a in ["668b5ac2", "9fa17969", "b52b1c09", "db734024", "f36dc5e5"]),
    ]
    assert lines[lines.index(section[0]) - 1] == ""  # a blank line after the table


def test_by_day_and_tool_show_paths_name_the_input_of_each_row(trace: Path) -> None:
    """A day lists the input whose waves start in it; a tool the inputs where it was called:
    the hand-made trace's one file, for both days and for each of its three tools."""
    days = _table("summarize", "--by", "day", "--timezone", "UTC", "--show-paths", str(trace))
    assert days[days.index("rows: day: inputs (format)"):] == [
        "rows: day: inputs (format)",
        "  2025-09-23", f"    {trace} (events)",
        "  2025-09-24", f"    {trace} (events)",
    ]
    # rows by paired calls, then name: read 4 (a, c, g, i), bash 2 (d, e; f never ends),
    # eval 1 (h), grep 1 (b)
    tools = _table("summarize", "--by", "tool", "--show-paths", str(trace))
    assert [line for line in tools[tools.index("rows: tool: inputs (format)"):]
            if not line.startswith("    ")] == [
        "rows: tool: inputs (format)", "  read", "  bash", "  eval", "  grep"]


def test_show_paths_leaves_by_json_unchanged(trace: Path) -> None:
    """--show-paths is for the table: the --by JSON document is the same with or without it."""
    assert _json("summarize", "--by", "lane", "--show-paths", str(trace)) == _json(
        "summarize", "--by", "lane", str(trace))


#: A reused id (events inputs may reuse an id after pairing): ``a`` bash [0 s, 10 s] and
#: ``b`` grep [5 s, 15 s] form one wave (durations 20 s, span 15 s: saving 5,000 ms); ``a``
#: read [100 s, 110 s] is a wave of its own. Time 0 is 50 s before midnight D.
REUSED: list[Event] = [
    ("tool_execution_start", "a", "bash", D - 50_000, "main"),
    ("tool_execution_start", "b", "grep", D - 45_000, "main"),
    ("tool_execution_end", "a", "bash", D - 40_000, "main"),
    ("tool_execution_end", "b", "grep", D - 35_000, "main"),
    ("tool_execution_start", "a", "read", D + 50_000, "main"),
    ("tool_execution_end", "a", "read", D + 60_000, "main"),
]


def test_a_reused_id_is_placed_by_the_wave_of_each_use(tmp_path: Path) -> None:
    """Each call goes where its own wave starts, not where the last call of its id does:
    --since 50 s (midnight D) keeps the read alone, --until 50 s the two-call wave
    (saving 5,000 ms), and --by day splits them the same way."""
    path = write_events(tmp_path / "reused.jsonl", REUSED)
    since = _json("summarize", "--since", "2025-09-24T00:00:00Z", str(path))["total"]
    assert _figures(since) == (1, 1, 0, 0.0, 0, 0)
    until = _json("summarize", "--until", "2025-09-24T00:00:00Z", str(path))["total"]
    assert _figures(until) == (2, 1, 1, 5000.0, 0, 0)
    days = _json("summarize", "--by", "day", "--timezone", "UTC", str(path))["groups"]
    assert [(g["group"], *_figures(g)) for g in days] == [
        ("2025-09-23", 2, 1, 1, 5000.0, 0, 0), ("2025-09-24", 1, 1, 0, 0.0, 0, 0)]


#: Figures of a split lane that add up to the whole: those of its paired calls and waves
#: (a wave is never cut in two and goes where it starts), its start observations and
#: malformed ones (each observation lands in exactly one part) and its turn time (with the
#: earliest start).
ADDITIVE = ("paired_calls", "waves_total", "non_eval_waves_total", "non_eval_waves_multi",
            "non_eval_joined_calls", "non_eval_saved_round_trips", "eval_only_waves",
            "eval_only_duration_ms", "mixed_waves", "eval_outer_joined_calls",
            "mixed_non_eval_joined_calls", "modeled_wallclock_saved_ms",
            "upper_bound_saved_ms", "tool_time_ms", "observed_calls",
            "malformed_observations", "measured_turn_duration_ms_total")


@given(observations=lane_observations, cut=st.integers(min_value=-1, max_value=42),
       turns=st.sampled_from((0.0, 250.0)))
def test_until_and_since_an_instant_add_up_to_the_whole(
    observations: list[Observation], cut: int, turns: float,
) -> None:
    """Split any lane at any instant T: each wave of the part --until T starts before T,
    each of the part --since T at or after it, and the parts, summarised with no cap, add up to the whole lane (ADDITIVE figures; the size histograms add bucket by
    bucket), and so do orphan ends and clock anomalies. A replaced start goes by its own
    time and may be the one left pending in its part: incomplete plus replaced starts add
    up."""
    turns = turns if observations else 0.0  # a turn total goes with a time: the lane's
    lane = Lane("p", "s", "main", tuple(observations), measured_turn_duration_ms_total=turns)

    def figures(part: Lane | None) -> ParallelismSummary:
        if part is None:
            return ParallelismSummary()
        return summarize(assemble_waves(part.observations, max_tracked_calls=None),
                         measured_turn_duration_ms_total=part.measured_turn_duration_ms_total)

    whole = figures(lane)
    until, since = window_lane(lane, None, cut), window_lane(lane, cut, None)
    # every wave starts on its side of T
    for part, side in ((until, lambda ms: ms < cut), (since, lambda ms: ms >= cut)):
        waves = () if part is None else assemble_waves(part.observations,
                                                       max_tracked_calls=None).waves
        assert all(side(min(call.start_ms for call in wave.calls)) for wave in waves)
    before, after = figures(until), figures(since)
    for name in ADDITIVE:
        assert getattr(before, name) + getattr(after, name) == pytest.approx(
            getattr(whole, name), rel=1e-12), name
    assert [a + b for a, b in zip(decode_histogram(before.non_eval_wave_size_histogram),
                                          decode_histogram(after.non_eval_wave_size_histogram),
                                          strict=True)] == list(
        decode_histogram(whole.non_eval_wave_size_histogram))
    for name in ("orphan_ends", "clock_anomalies"):
        assert getattr(before, name) + getattr(after, name) == getattr(whole, name), name
    unpaired = ("incomplete_calls", "duplicate_starts")
    assert sum(getattr(s, n) for s in (before, after) for n in unpaired) == sum(
        getattr(whole, n) for n in unpaired)


def _shifted(observations: list[Observation], by: float) -> list[Observation]:
    return [attrs.evolve(o, at_ms=o.at_ms + by) for o in observations]


def test_a_turn_goes_with_the_part_where_it_starts() -> None:
    """Measured turns (section 9's idle time and lane span) are split with the lane: each
    to the day it starts in; a turn in a day with no call makes no part of its own."""
    day = 86_400_000
    lane = Lane("t", "s", "main", (
        Observation("start", "a", "read", D - 500), Observation("end", "a", "read", D - 400),
        Observation("start", "b", "read", D + 100), Observation("end", "b", "read", D + 200),
    ), turn_intervals=((D - 600, D - 300), (D + 50, D + 300), (D + 2 * day, D + 2 * day + 9)))
    parts = partition_lane(lane, lambda ms: int(ms // day))
    assert {key: part.turn_intervals for key, part in parts.items()} == {
        D // day - 1: ((D - 600, D - 300),), D // day: ((D + 50, D + 300),)}


def test_by_day_groups_carry_the_section_9_figures() -> None:
    """tests/test_turns_block.py's TURNS lane on 09-23 (ending 10 s before midnight) and
    one read [D+1000, D+1100] in its own turn on 09-24, within the measured turn
    [D+500, D+1200]; --idle-gap 90 ms. 09-23 has TURNS' figures (5 turns, 1 of 2+ calls,
    1 run of 2 calls, 150 ms upper bound, 850 ms span, 500 ms busy, 200 ms idle); 09-24
    one turn of one call, span 1200 - 500 = 700 ms, busy 100 ms, no gap."""
    from tests.test_turns_block import TURNS, _observations
    from wavemetrics.cli.timewindow import resolve_zone
    from wavemetrics.run.pipeline import ReadOutcome, analyse
    from wavemetrics.views.csvout import summary_rows
    from wavemetrics.views.groups import group_document

    start = D - 10_000
    lane = Lane("t", "s", "main", (
        *_shifted(_observations(TURNS), start),
        Observation("start", "z", "read", D + 1000, "t9"), Observation("end", "z", "read", D + 1100),
    ), turn_intervals=((start + 700, start + 850), (D + 500, D + 1200)))
    analysis = analyse(ReadOutcome((), (lane,)), idle_gap_ms=90.0)
    document = group_document(analysis, "day", zone=resolve_zone("UTC"), idle_gap_ms=90.0)
    names = ("batched_turns", "multi_call_turns", "max_turn_width", "missed_batch_runs",
             "missed_batch_calls", "missed_batch_upper_ms", "lane_span_ms", "tool_busy_ms",
             "idle_ms", "calls_timed_by_execution")
    rows = [(g["group"], *(g[name] for name in names)) for g in document["groups"]]
    assert rows == [
        ("2025-09-23", 5, 1, 2, 1, 2, 150.0, 850.0, 500.0, 200.0, 6),
        ("2025-09-24", 1, 0, 1, 0, 0, 0.0, 700.0, 100.0, 0.0, 1),
    ]
    assert document["options"]["idle_gap_ms"] == 90.0
    columns, csv_rows = summary_rows(document)
    assert set(names) <= set(columns)
    assert [row["idle_ms"] for row in csv_rows[:2]] == [200.0, 0.0]
