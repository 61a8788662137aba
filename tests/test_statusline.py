"""`wavemetrics statusline`: Claude Code's status-line protocol, one line, never a failure."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.corpus import CORPUS, needs_corpus
from tests.event_traces import TWO_LANES, write_events
from wavemetrics.cli.commands import main
from wavemetrics.cli.statusline import format_figures, turn_share


def _line(stdin: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["statusline"], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout


def test_transcript_figures_are_printed_on_one_line(tmp_path: Path) -> None:
    """TWO_LANES has 5 waves, 2 multi-call non_eval waves and saves 30 + 10 ms = 0.04 s."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    payload = json.dumps({"session_id": "x", "transcript_path": str(trace), "model": {}})
    assert _line(payload) == (0, "waves 5 · multi 2 · saved 0.0s\n")


def test_saving_shown_is_the_sessions_modeled_saving(tmp_path: Path) -> None:
    """TWO_LANES with every time x100 saves 3 000 + 1 000 ms: the line says 4.0s."""
    slow = [(kind, call, name, at_ms * 100, agent) for kind, call, name, at_ms, agent in TWO_LANES]
    trace = write_events(tmp_path / "t.jsonl", slow)
    assert _line(json.dumps({"transcript_path": str(trace)})) == (
        0, "waves 5 · multi 2 · saved 4.0s\n")


def test_second_call_is_answered_from_the_cache(tmp_path: Path) -> None:
    """The second call for an unchanged transcript reads neither the file nor the readers."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    payload = json.dumps({"transcript_path": str(trace)})
    first = _line(payload)
    trace.chmod(0)  # a second read of the file would fail; the cache answers
    try:
        assert _line(payload) == first
    finally:
        trace.chmod(0o644)


SESSION = "claude-code-log/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1"


@needs_corpus
def test_real_claude_code_session_counts_its_sub_agents() -> None:
    """A real session (MANIFEST rows 42-48) with its six sub-agent files beside it: the
    lanes are summed (per-lane figures of tests/test_cli.py, computed independently):
    waves 35 + 7 + 20 + 17 + 6 + 14 + 6 = 105, multi 3 + 4 + 3 = 10, saved
    1 642 275 + 325 974 + 53 504 = 2 021 753 ms."""
    trace = CORPUS / f"{SESSION}.jsonl"
    assert _line(json.dumps({"transcript_path": str(trace)})) == (
        0, "waves 105 · multi 10 · saved 2021.8s · 6 sub-agents\n")


@needs_corpus
def test_transcript_without_sub_agents_is_its_main_lane(tmp_path: Path) -> None:
    """The same transcript with no ``subagents/`` folder beside it: the main lane alone, 35
    waves, 3 multi-call, 1 642 275 ms saved (its figures in tests/golden/outputs.json)."""
    trace = tmp_path / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
    shutil.copyfile(CORPUS / f"{SESSION}.jsonl", trace)
    assert _line(json.dumps({"transcript_path": str(trace)})) == (
        0, "waves 35 · multi 3 · saved 1642.3s\n")


@needs_corpus
def test_a_new_sub_agent_file_changes_the_cached_line(tmp_path: Path) -> None:
    """The cached figures are keyed by every file of the session: a sub-agent file that
    appears after the first answer is counted in the next (main 35 waves + agent-ab1e6e14
    14 = 49, multi 3 + 3 = 6, saved 1 642 275 + 53 504 = 1 695 779 ms)."""
    trace = tmp_path / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
    shutil.copyfile(CORPUS / f"{SESSION}.jsonl", trace)
    payload = json.dumps({"transcript_path": str(trace)})
    assert _line(payload) == (0, "waves 35 · multi 3 · saved 1642.3s\n")
    agents = tmp_path / "ef958aa1-0e93-49f0-bb71-150f63befcd1" / "subagents"
    agents.mkdir(parents=True)
    shutil.copyfile(CORPUS / SESSION / "subagents" / "agent-ab1e6e141221a29ab.jsonl",
                    agents / "agent-ab1e6e141221a29ab.jsonl")
    (agents / "agent-ab1e6e141221a29ab.meta.json").write_text("{}", encoding="utf-8")
    assert _line(payload) == (0, "waves 49 · multi 6 · saved 1695.8s · 1 sub-agent\n")


@pytest.mark.parametrize(("stdin", "expected"), [
    ("", "wavemetrics: no status-line JSON on stdin\n"),
    ("not json", "wavemetrics: stdin is not the status-line JSON\n"),
    ("[1, 2]", "wavemetrics: status-line input is not a JSON object\n"),
    ('"x.jsonl"', "wavemetrics: status-line input is not a JSON object\n"),
    ('{"session_id": "x"}', "wavemetrics: no transcript_path on stdin\n"),
    ('{"transcript_path": 3}', "wavemetrics: transcript_path is not a file path\n"),
    ('{"transcript_path": ""}', "wavemetrics: transcript_path is not a file path\n"),
    ('{"transcript_path": "/nonexistent/x.jsonl"}',
     "wavemetrics: transcript_path's folder does not exist\n"),
])
def test_bad_or_missing_stdin_prints_one_line_and_exits_0(stdin: str, expected: str) -> None:
    """Whatever arrives on stdin, the prompt gets one line saying what is wrong, exit 0."""
    assert _line(stdin) == (0, expected)


def test_unrecognised_transcript_is_not_a_claude_code_transcript(tmp_path: Path) -> None:
    """A readable file of no known format gives one line saying so, and exit 0."""
    other = tmp_path / "o.jsonl"
    other.write_text('{"hello": 1}\n', encoding="utf-8")
    assert _line(json.dumps({"transcript_path": str(other)})) == (
        0, "wavemetrics: not a Claude Code transcript\n")


@needs_corpus
def test_unmeasurable_format_is_not_a_claude_code_transcript() -> None:
    """A SWE-agent trajectory (recognised, no absolute times) is not a Claude Code transcript."""
    trajectory = CORPUS / "swe-agent" / "marshmallow-1867__function_calling_replace.traj"
    assert _line(json.dumps({"transcript_path": str(trajectory)})) == (
        0, "wavemetrics: not a Claude Code transcript\n")


def test_cut_short_transcript_is_not_readable(tmp_path: Path) -> None:
    """A gzip stream cut off in its header opens but cannot be read: "not readable", exit 0."""
    cut = tmp_path / "s.jsonl.gz"
    cut.write_bytes(b"\x1f\x8b\x08\x00garbage")
    assert _line(json.dumps({"transcript_path": str(cut)})) == (
        0, "wavemetrics: transcript not readable\n")


def test_folder_or_fifo_as_transcript_path_says_what_it_is(tmp_path: Path) -> None:
    """A folder is named as a folder, a FIFO as not a regular file (never read: it could
    block the prompt), each one line and exit 0."""
    import os

    assert _line(json.dumps({"transcript_path": str(tmp_path)})) == (
        0, "wavemetrics: transcript_path is a folder\n")
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    assert _line(json.dumps({"transcript_path": str(fifo)})) == (
        0, "wavemetrics: transcript_path is not a regular file\n")


def test_format_rounds_the_saving_to_a_tenth_of_a_second() -> None:
    """12 349 ms is shown as 12.3 s; counts as they are."""
    assert format_figures(3, 1, 12349.0) == "waves 3 · multi 1 · saved 12.3s"


def test_warm_status_line_loads_neither_click_nor_the_readers(tmp_path: Path,
                                                              private_cache: Path) -> None:
    """The console script answers a cached transcript from its whole output with the
    stdlib and the outputs' light modules only: not click, attrs, msgspec, a reader,
    SQLite, pathlib or the SQLite cache's module, nor importlib.metadata (the version
    comes from the dist-info folder's name) or the escaping module (the figures line
    needs none)."""
    import os
    import subprocess
    import sys

    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    payload = json.dumps({"transcript_path": str(trace)})
    code = ("import sys; sys.argv = ['wavemetrics', 'statusline']\n"
            "from wavemetrics.cli._entry import main; main()\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'click', 'attrs', 'attr',"
            " 'msgspec', 'sqlite3', 'pathlib'}"
            " | {m for m in sys.modules if m.startswith('wavemetrics.readers')}"
            " | {m for m in sys.modules if m == 'wavemetrics.cache.units'}"
            " | {m for m in sys.modules if m in ('importlib.metadata', 'wavemetrics.views.escaping')})\n"
            "print(heavy)")
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(private_cache)}
    cold = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True,
                          text=True, env=env, check=True)
    warm = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True,
                          text=True, env=env, check=True)
    assert cold.stdout.splitlines()[0] == "waves 5 · multi 2 · saved 0.0s"
    assert warm.stdout.splitlines() == ["waves 5 · multi 2 · saved 0.0s", "[]"]


def test_every_character_the_escaping_changes_is_not_printable() -> None:
    """The status line escapes its text only when ``str.isprintable`` is false (escaping
    is imported only then): that is safe because every character ``printable`` changes
    (C0, DEL, C1, the bidi controls, lone surrogates; docs/cli.md "Escaping") is one
    that ``isprintable`` rejects."""
    from wavemetrics.views.escaping import printable

    changed = [chr(c) for c in range(0x110000) if printable(chr(c)) != chr(c)]
    assert len(changed) == 32 + 33 + 1 + 2 + 5 + 4 + 2048
    assert not any(ch.isprintable() for ch in changed)


def test_a_first_line_being_written_says_no_complete_line_yet(tmp_path: Path) -> None:
    """A transcript holding only the start of its first line (no line end yet) is a session
    being started: one line saying so, exit 0 (not "not a Claude Code transcript")."""
    started = tmp_path / "s.jsonl"
    started.write_text('{"type":"user","uuid":"a","sessionId":"s","message":{"content":"hi',
                       encoding="utf-8")
    assert _line(json.dumps({"transcript_path": str(started)})) == (
        0, "wavemetrics: no complete line in the transcript yet\n")


def test_a_tool_line_being_written_shows_the_figures_so_far(tmp_path: Path) -> None:
    """A Claude Code transcript whose only tool line is cut short (being written) and that
    has no line used yet shows its figures so far, zero, as a transcript of chatter does;
    a transcript whose lines are all ignored or damaged says it has no usable line."""
    live = tmp_path / "s.jsonl"
    live.write_text(
        '{"type":"user","uuid":"a","sessionId":"s"}\n'
        '{"type":"assistant","uuid":"b","sessionId":"s","message":{"content":'
        '[{"type":"tool_use","id":"x","name":"Bash"', encoding="utf-8")
    assert _line(json.dumps({"transcript_path": str(live)})) == (
        0, "waves 0 · multi 0 · saved 0.0s\n")
    broken = tmp_path / "b.jsonl"
    broken.write_text('{"type":"user","uuid":"a","sessionId":"s"}\n{bad\n', encoding="utf-8")
    assert _line(json.dumps({"transcript_path": str(broken)})) == (
        0, "wavemetrics: no usable line in the transcript\n")


def test_a_missing_file_in_an_existing_folder_is_no_transcript_yet(tmp_path: Path) -> None:
    """Claude Code names the transcript before writing it, in a project folder that exists:
    a missing file there is "no transcript yet"; a missing folder is a wrong path."""
    assert _line(json.dumps({"transcript_path": str(tmp_path / "s.jsonl")})) == (
        0, "wavemetrics: no transcript yet\n")
    assert _line(json.dumps({"transcript_path": str(tmp_path / "gone" / "s.jsonl")})) == (
        0, "wavemetrics: transcript_path's folder does not exist\n")


def test_an_empty_transcript_shows_zero_figures(tmp_path: Path) -> None:
    """An empty transcript is an empty input, not an error, as for summarize: zeros, exit 0."""
    empty = tmp_path / "s.jsonl"
    empty.write_bytes(b"")
    assert _line(json.dumps({"transcript_path": str(empty)})) == (
        0, "waves 0 · multi 0 · saved 0.0s\n")


def test_a_transcript_name_that_is_not_utf8_gets_its_figures(
    tmp_path: Path, private_cache: Path,
) -> None:
    """The bundled example copied to ``c\\xf5.jsonl`` (a name that is not UTF-8): its figures
    (the README's: 105 waves, 10 multi, 2 021.75 s saved), cold and warm, never
    ``unavailable``; its live state is not kept (it would hold the name as UTF-8)."""
    import os

    from tests.golden_cases import EXAMPLE

    odd = tmp_path / os.fsdecode(b"c\xf5.jsonl")
    shutil.copy(EXAMPLE, odd)
    payload = json.dumps({"transcript_path": str(odd)})
    assert _line(payload) == (0, "waves 105 · multi 10 · saved 2021.8s\n")
    assert _line(payload) == (0, "waves 105 · multi 10 · saved 2021.8s\n")


def test_the_answer_is_one_entry_of_the_whole_outputs(tmp_path: Path,
                                                       private_cache: Path) -> None:
    """The line for an unchanged session is a whole output (the ``runs`` folder, keyed as
    a ``summarize`` run is, scoped by the transcript): one file, holding the line; served
    from there (an entry stored under the session's key is what is printed, the SQLite
    file not needed), and a new state of the session replaces it. TWO_LANES's first 9
    events: waves {read, grep}, {bash}, {eval}: 3 waves, 1 of them multi-call, 30 ms saved."""
    from wavemetrics.cache import runcache
    from wavemetrics.cache.runcache import RUNS_FOLDER, RunStore

    trace = write_events(tmp_path / "t.jsonl", TWO_LANES[:9])
    payload = json.dumps({"transcript_path": str(trace)})
    assert _line(payload) == (0, "waves 3 · multi 1 · saved 0.0s\n")
    store = RunStore(str(private_cache / RUNS_FOLDER))
    stats = runcache.session_stats([str(trace)])
    assert stats is not None
    key = runcache.statusline_key(stats)
    assert os.listdir(store.folder) == [key[1]]
    assert store.load(*key) == runcache.encode_output(0, [(1, "waves 3 · multi 1 · saved 0.0s"
                                                             .encode())])
    store.store(*key, runcache.encode_output(0, [(1, b"waves 9 \xc2\xb7 kept")]))
    (private_cache / "cache.sqlite3").unlink()
    assert _line(payload) == (0, "waves 9 · kept\n")
    write_events(trace, TWO_LANES)  # the session grew: computed, and its entry replaced
    assert _line(payload) == (0, "waves 5 · multi 2 · saved 0.0s\n")
    stats = runcache.session_stats([str(trace)])
    assert stats is not None
    grown = runcache.statusline_key(stats)
    assert grown[1] == key[1] and grown[0] != key[0]
    assert os.listdir(store.folder) == [key[1]]
    assert store.load(*grown) == runcache.encode_output(0, [(1, "waves 5 · multi 2 · saved 0.0s"
                                                              .encode())])


def _turns_line(stdin: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["statusline", "--turns", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout


def test_turns_adds_the_multi_call_share_of_the_turns(tmp_path: Path) -> None:
    """TWO_LANES: main's six calls follow its one turn_start (one turn, of 6 calls: 1 of
    1 turns is multi-call, 100%); sub has no turn_start, so no batch. Without --turns the
    line is unchanged, and each line is kept apart in the cache."""
    trace = write_events(tmp_path / "t.jsonl", TWO_LANES)
    payload = json.dumps({"transcript_path": str(trace)})
    assert _turns_line(payload) == (0, "waves 5 · multi 2 · saved 0.0s · turns 100% multi\n")
    assert _line(payload) == (0, "waves 5 · multi 2 · saved 0.0s\n")
    assert _turns_line(payload) == (0, "waves 5 · multi 2 · saved 0.0s · turns 100% multi\n")
    assert _turns_line(payload, "--no-cache") == _turns_line(payload)


def test_turns_says_nothing_without_a_turn(tmp_path: Path) -> None:
    """A trace with no turn_start records no turn: the share is left out."""
    trace = write_events(tmp_path / "t.jsonl", [
        ("tool_execution_start", "a", "read", 0, "main"),
        ("tool_execution_end", "a", "read", 100, "main")])
    assert _turns_line(json.dumps({"transcript_path": str(trace)})) == (
        0, "waves 1 · multi 0 · saved 0.0s\n")


def test_the_turn_share_is_rounded_down() -> None:
    """23 of 75 turns is 30.67%: 30; 2 of 3 is 66.67%: 66; no turn: none."""
    assert (turn_share(23, 75), turn_share(2, 3), turn_share(0, 0)) == (30, 66, None)
    assert format_figures(3, 1, 12349.0, 0, 66) == (
        "waves 3 · multi 1 · saved 12.3s · turns 66% multi")


def test_turns_goes_into_the_printed_settings() -> None:
    result = CliRunner().invoke(main, ["statusline", "--print-settings", "--turns"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["statusLine"]["command"].endswith(" statusline --turns")
