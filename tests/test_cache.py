"""The read cache never changes a figure: cached, warm and uncached runs agree."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tests.corpus import CORPUS, needs_corpus
from tests.event_traces import TWO_LANES, event_line, saving_trial, write_events
from wavemetrics.cache.units import CACHE_FILE, FileKey, ReadCache, _absolute, file_key, utf8_names
from wavemetrics.cli.commands import main
from wavemetrics.run import native

CORPUS_DIRS = ("claude-code-log", "agentcmd", "localpush", "pi-mono", "any-agent", "inspect_ai",
               "openai-codex", "agent-sessions", "opentelemetry-proto", "openhands", "swe-agent")


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def _units(cache_dir: Path) -> int:
    with sqlite3.connect(cache_dir / CACHE_FILE) as db:
        return int(db.execute("SELECT count(*) FROM units WHERE files > 0").fetchone()[0])


@needs_corpus
@pytest.mark.parametrize("command", ["summarize", "waves"])
def test_cold_warm_and_uncached_runs_print_the_same_bytes_on_the_corpus(
    command: str, private_cache: Path
) -> None:
    """On every corpus folder, the cold (filling), warm (reading) and --no-cache runs agree;
    read by Python, a cold run stores one unit of call records per read unit."""
    folders = [str(CORPUS / name) for name in CORPUS_DIRS if (CORPUS / name).is_dir()]
    # the Python engine: the native engine stores lane summaries, not call records
    engine = ["--engine", "python"] if command == "summarize" else []
    args = [command, "--format", "json", "--jobs", "1", *engine, *folders]
    plain = _invoke(*args, "--no-cache")
    assert not (private_cache / CACHE_FILE).exists()  # --no-cache writes nothing
    cold = _invoke(*args)
    stored = _units(private_cache)
    warm = _invoke(*args)
    assert cold == plain
    assert warm == plain
    # one entry per read unit: each file, but one per Claude Code project folder and per
    # pi folder (its session files are read together, parents before forks)
    inputs = [i for i in json.loads(plain[1] if command == "summarize" else cold_inputs(folders))
              ["inputs"] if i["error"] is None]
    claude = {os.path.dirname(i["path"]).split("/subagents")[0].rsplit("/", 1)[0]
              if "/subagents" in i["path"] else os.path.dirname(i["path"])
              for i in inputs if i["format"] == "claude-code"}
    pi = {os.path.dirname(i["path"]) for i in inputs if i["format"] == "pi"}
    assert stored == len(claude) + len(pi) + sum(
        1 for i in inputs if i["format"] not in ("claude-code", "pi"))
    assert _units(private_cache) == stored  # the warm run read, it did not write


def cold_inputs(folders: list[str]) -> str:
    return _invoke("summarize", "--format", "json", "--jobs", "1", "--no-cache", *folders)[1]


def _entries(cache_dir: Path) -> int:
    with sqlite3.connect(cache_dir / CACHE_FILE) as db:
        return int(db.execute("SELECT count(*) FROM units").fetchone()[0])


def _summary(path: Path, *extra: str) -> dict[str, Any]:
    code, out, _ = _invoke("summarize", "--format", "json", "--jobs", "1", *extra, str(path))
    assert code == 0
    document: dict[str, Any] = json.loads(out)
    return document


def test_appended_file_is_read_again_with_its_new_calls(tmp_path: Path) -> None:
    """A session that grew after it was cached gives the figures of the grown file."""
    trace = write_events(tmp_path / "s.jsonl", TWO_LANES[:5])  # the read/grep wave only
    first = _summary(trace)
    assert first["total"]["paired_calls"] == 2
    assert first["total"]["modeled_wallclock_saved_ms"] == 30.0  # 100 + 30 - 100
    with trace.open("a", encoding="utf-8") as handle:
        handle.write("".join(event_line(e) for e in TWO_LANES[5:]))
    grown = _summary(trace)
    assert grown == _summary(trace, "--no-cache")
    assert grown["total"]["paired_calls"] == 8
    assert grown["total"]["modeled_wallclock_saved_ms"] == 40.0  # 30 (main) + 10 (sub)
    assert grown["inputs"][0]["lines_read"] == 18


def test_truncated_file_is_read_again(tmp_path: Path) -> None:
    """A file cut back to fewer lines (same inode) is not answered from the cache."""
    trace = write_events(tmp_path / "s.jsonl", TWO_LANES)
    assert _summary(trace)["total"]["paired_calls"] == 8
    text = trace.read_text(encoding="utf-8").splitlines(keepends=True)
    with trace.open("w", encoding="utf-8") as handle:
        handle.write("".join(text[:5]))
    cut = _summary(trace)
    assert cut == _summary(trace, "--no-cache")
    assert cut["total"]["paired_calls"] == 2
    assert cut["inputs"][0]["lines_read"] == 5


def test_replaced_file_of_the_same_size_and_time_is_read_again(tmp_path: Path) -> None:
    """A file replaced by another (new inode) is read again even with equal size and mtime."""
    trace = write_events(tmp_path / "s.jsonl", TWO_LANES)
    assert _summary(trace)["total"]["modeled_wallclock_saved_ms"] == 40.0
    before = os.stat(trace)
    # the same events with the sub-agent's two reads no longer overlapping: same byte count
    other = [e if e[1] != "h" else (e[0], e[1], e[2], e[3] + 10, e[4]) for e in TWO_LANES]
    replacement = write_events(tmp_path / "new.jsonl", other)
    assert replacement.stat().st_size == before.st_size
    os.utime(replacement, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(replacement, trace)
    assert file_key(str(trace)) is not None
    replaced = _summary(trace)
    assert replaced == _summary(trace, "--no-cache")
    # sub: read [2000,2010] and read [2010,2030] touch (closed intervals): one wave,
    # durations 10 + 20 = 30, span 30, saving 0; main still saves 30.
    assert replaced["total"]["modeled_wallclock_saved_ms"] == 30.0


def test_damaged_database_is_rebuilt_not_trusted(tmp_path: Path, private_cache: Path) -> None:
    """A cache file overwritten with garbage is deleted and rebuilt; the figures are right."""
    trace = write_events(tmp_path / "s.jsonl", TWO_LANES)
    expected = _summary(trace, "--no-cache")
    assert _summary(trace) == expected
    ReadCache(private_cache).close()
    (private_cache / CACHE_FILE).write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        (private_cache / (CACHE_FILE + suffix)).unlink(missing_ok=True)
    assert _summary(trace) == expected
    ReadCache(private_cache).close()
    # rebuilt with the file's entries: its lane summary (native), and its call records (python)
    assert _entries(private_cache) == (1 if native.available() else 2)


def test_damaged_entry_is_dropped_and_the_file_read_again(
    tmp_path: Path, private_cache: Path
) -> None:
    """An entry whose blob no longer matches its digest is never decoded as figures."""
    trace = write_events(tmp_path / "s.jsonl", TWO_LANES)
    expected = _summary(trace, "--no-cache")
    assert _summary(trace) == expected
    ReadCache(private_cache).close()
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        db.execute("UPDATE units SET blob = X'91c0'")  # valid msgpack ([nil]), wrong digest
    assert _summary(trace) == expected


def test_entry_of_another_shape_is_read_again(tmp_path: Path, private_cache: Path) -> None:
    """An entry with a matching digest but records of another shape is a miss, not a crash."""
    import hashlib

    import msgspec

    trace = write_events(tmp_path / "s.jsonl", TWO_LANES)
    expected = _summary(trace, "--no-cache")
    assert _summary(trace) == expected
    ReadCache(private_cache).close()
    blob = msgspec.msgpack.encode([[["x"]], []])
    digest = hashlib.blake2b(blob, digest_size=16).digest()
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        db.execute("UPDATE units SET blob = ?, digest = ?", (blob, digest))
    assert _summary(trace) == expected


def test_same_file_named_by_another_path_keeps_that_path(tmp_path: Path) -> None:
    """A cached file read by another display path reports the path it was given this time."""
    trace = write_events(tmp_path / "s.jsonl", TWO_LANES)
    _summary(trace)
    os.chdir(tmp_path)
    try:
        code, out, _ = _invoke("summarize", "--format", "json", "--jobs", "1", "s.jsonl")
    finally:
        os.chdir("/")
    document = json.loads(out)
    assert code == 0
    assert document["inputs"][0]["path"] == "s.jsonl"
    assert {lane["path"] for lane in document["lanes"]} == {"s.jsonl"}


def test_cache_info_counts_one_of_each_in_the_singular(tmp_path: Path) -> None:
    """One file read by summarize (Python engine) and waves: one read unit with a lane
    summary, one with call records from one file, one detection, one stored output;
    never "1 units"."""
    write_events(tmp_path / "a.jsonl", TWO_LANES)
    assert _invoke("summarize", "--engine", "python", str(tmp_path / "a.jsonl"))[0] == 0
    assert _invoke("waves", str(tmp_path / "a.jsonl"))[0] == 0
    assert _invoke("cache", "info")[1].splitlines()[1:5] == [
        "lane summaries (summarize): 1 read unit",
        "call records (waves, --by, --since): 1 read unit (1 file)",
        "format detections: 1 file",
        "whole outputs (summarize, statusline): 1 run",
    ]


def test_cache_info_and_clear(tmp_path: Path, private_cache: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """`cache info` names the cache and counts its entries; `cache clear` deletes it."""
    code, out, _ = _invoke("cache", "info")
    assert code == 0
    assert out == f"path: {private_cache / CACHE_FILE}\nstate: empty (no cache file yet)\n"
    write_events(tmp_path / "a.jsonl", TWO_LANES)
    write_events(tmp_path / "b.jsonl", TWO_LANES[:5])
    assert _invoke("summarize", "--jobs", "1", str(tmp_path))[0] == 0
    records = 0 if native.available() else 2
    code, out, _ = _invoke("cache", "info")
    lines = out.splitlines()
    assert lines[:4] == [f"path: {private_cache / CACHE_FILE}",
                         "lane summaries (summarize): 2 read units",
                         # read natively, a unit's call records are not built
                         f"call records (waves, --by, --since): {records} read units"
                         f" ({records} files)",
                         "format detections: 2 files"]
    # the native engine stored the summaries only; `waves` reads and stores the records
    assert _invoke("waves", "--jobs", "1", str(tmp_path))[0] == 0
    assert _invoke("cache", "info")[1].splitlines()[1:3] == [
        "lane summaries (summarize): 2 read units",
        "call records (waves, --by, --since): 2 read units (2 files)"]
    assert lines[4] == "whole outputs (summarize, statusline): 1 run"  # the summarize run, kept
    # the default bound, 256 MiB = 256 * 1,048,576 bytes
    assert lines[5].startswith("size: ") and lines[5].endswith(" bytes (bound 268435456 bytes)")
    monkeypatch.setenv("WAVEMETRICS_CACHE_MAX_BYTES", "0")
    assert _invoke("cache", "info")[1].splitlines()[5].endswith(" bytes (no bound)")
    assert _invoke("cache", "clear") == (0, f"removed {private_cache / CACHE_FILE}\n", "")
    assert not (private_cache / CACHE_FILE).exists()
    assert _invoke("cache", "clear")[1] == f"nothing to remove at {private_cache / CACHE_FILE}\n"


def test_stdin_is_never_cached(private_cache: Path) -> None:
    """Standard input has no file key: it is read and nothing is stored."""
    text = "".join(event_line(e) for e in TWO_LANES)
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "-"], input=text)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["total"]["paired_calls"] == 8
    assert not (private_cache / CACHE_FILE).exists() or _units(private_cache) == 0


def test_unwritable_cache_dir_runs_without_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache directory that cannot be created never fails the run."""
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("WAVEMETRICS_CACHE_DIR", str(blocker / "cache"))
    trace = write_events(tmp_path / "s.jsonl", TWO_LANES)
    assert _summary(trace)["total"]["paired_calls"] == 8


def test_two_cache_handles_share_one_database(tmp_path: Path) -> None:
    """Two connections (two runs at once) see each other's entries (WAL)."""
    from wavemetrics.cache.units import UnitKey

    first, second = ReadCache(tmp_path / "c"), ReadCache(tmp_path / "c")
    first.store(UnitKey("k", "u"), [1, 2.5, "x"])
    assert second.load(UnitKey("k", "u")) == [1, 2.5, "x"]
    with sqlite3.connect(tmp_path / "c" / CACHE_FILE) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    first.close()


@needs_corpus
def test_copied_corpus_file_in_a_new_place_is_a_new_entry(tmp_path: Path, private_cache: Path
                                                          ) -> None:
    """The key holds the path: a copy elsewhere is read (and stored) on its own."""
    source = CORPUS / "pi-mono"
    shutil.copytree(source, tmp_path / "pi")
    one = _invoke("summarize", "--format", "json", "--jobs", "1", str(tmp_path / "pi"))
    count = _units(private_cache)
    shutil.copytree(source, tmp_path / "pi2")
    two = _invoke("summarize", "--format", "json", "--jobs", "1", str(tmp_path / "pi2"))
    assert one[1].replace(str(tmp_path / "pi"), "X") == two[1].replace(str(tmp_path / "pi2"), "X")
    assert _units(private_cache) == 2 * count


@needs_corpus
def test_two_runs_at_once_share_the_cache(private_cache: Path) -> None:
    """Two processes filling one cache at the same time both print the uncached output."""
    import subprocess
    import sys

    folder = str(CORPUS / "claude-code-log")
    args = [sys.executable, "-m", "wavemetrics", "summarize", "--format", "json", "--jobs", "1",
            folder]
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(private_cache)}
    expected = _invoke("summarize", "--format", "json", "--jobs", "1", "--no-cache", folder)[1]
    runs = [subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            for _ in range(2)]
    outputs = [run.communicate(timeout=300)[0].decode("utf-8") for run in runs]
    assert outputs == [expected, expected]
    assert _invoke("summarize", "--format", "json", "--jobs", "1", folder)[1] == expected


def test_a_new_version_of_a_file_replaces_the_old_entries(tmp_path: Path,
                                                          private_cache: Path) -> None:
    """A session appended to day after day keeps one entry, not one per version."""
    trace = write_events(tmp_path / "s.jsonl", TWO_LANES[:5])
    for end in (5, 9, 13, 18):
        write_events(trace, TWO_LANES[:end])
        _summary(trace)
        CliRunner().invoke(main, ["statusline"], input=json.dumps({"transcript_path": str(trace)}))
    ReadCache(private_cache).close()
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        rows = db.execute("SELECT files, count(*) FROM units GROUP BY files ORDER BY files")
        assert rows.fetchall() == [(0, 1), (1, 1)]  # lane summaries, call records
    # one whole output for the summarize command, one for the status line's answer
    assert ReadCache(private_cache).runs.count() == 2
    assert _summary(trace)["total"]["paired_calls"] == 8


def test_a_cache_of_another_schema_is_emptied(tmp_path: Path, private_cache: Path) -> None:
    """Entries written under another CACHE_SCHEMA are dropped, not read."""
    from wavemetrics.cache.units import CACHE_SCHEMA

    trace = write_events(tmp_path / "s.jsonl", TWO_LANES)
    expected = _summary(trace, "--no-cache")
    assert _summary(trace) == expected
    ReadCache(private_cache).close()
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        db.execute("UPDATE units SET blob = X'91c0', digest = ?",
                   (__import__("hashlib").blake2b(b"\x91\xc0", digest_size=16).digest(),))
        db.execute(f"PRAGMA user_version = {CACHE_SCHEMA - 1}")
    assert _summary(trace) == expected
    ReadCache(private_cache).close()
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (CACHE_SCHEMA,)


def _padded_wave(tmp_path: Path) -> Path:
    """The read/grep wave of TWO_LANES; grep's end line padded past 150 bytes."""
    lines = [event_line(e) for e in TWO_LANES[:5]]
    record = json.loads(lines[3])
    assert record["toolCallId"] == "b" and record["type"] == "tool_execution_end"
    lines[3] = json.dumps({**record, "pad": "x" * 200}) + "\n"
    trace = tmp_path / "padded.jsonl"
    trace.write_text("".join(lines), encoding="utf-8")
    return trace


@pytest.mark.parametrize("command", ["summarize", "waves"])
def test_a_file_cached_under_one_line_limit_is_read_again_under_another(
    command: str, tmp_path: Path, private_cache: Path
) -> None:
    """The limits in force are part of the cache key: a file cached under the default
    --max-line-bytes and read again under 150 gives the uncached result for 150 (and back)."""
    trace = str(_padded_wave(tmp_path))
    base = [command, "--format", "json", "--jobs", "1", trace]
    default_cold = _invoke(*base)
    tight = _invoke(*base, "--max-line-bytes", "150")
    assert tight == _invoke(*base, "--max-line-bytes", "150", "--no-cache")
    assert tight != default_cold
    assert _invoke(*base) == default_cold == _invoke(*base, "--no-cache")
    if command == "summarize":
        # default: read [1000,1100] and grep [1010,1040]: one wave, 100 + 30 - 100 saved
        full = json.loads(default_cold[1])
        assert (full["total"]["paired_calls"], full["total"]["modeled_wallclock_saved_ms"]) == (
            2, 30.0)
        # 150 bytes: grep's end is line_too_long, so only read pairs and nothing is saved
        cut = json.loads(tight[1])
        assert (cut["total"]["paired_calls"], cut["total"]["modeled_wallclock_saved_ms"]) == (
            1, 0.0)
        assert cut["inputs"][0]["problems"] == {"line_too_long": 1}
    else:
        assert [row["size"] for row in json.loads(default_cold[1])["waves"]] == [2]
        assert [row["size"] for row in json.loads(tight[1])["waves"]] == [1]


def _pi_entry(entry_id: str, parent: str | None, record: dict[str, Any]) -> dict[str, Any]:
    return {**record, "id": entry_id, "parentId": parent}


def _pi_call(at: str, *calls: tuple[str, str]) -> dict[str, Any]:
    content = [{"type": "toolCall", "id": i, "name": n, "arguments": {}} for i, n in calls]
    return {"type": "message", "timestamp": at,
            "message": {"role": "assistant", "content": content}}


def _pi_result(at: str, call_id: str, name: str) -> dict[str, Any]:
    return {"type": "message", "timestamp": at,
            "message": {"role": "toolResult", "toolName": name, "toolCallId": call_id,
                        "content": []}}


def _pi_fork_folder(folder: Path) -> None:
    """A pi v3 parent (cwd /p/alpha: t1 [0,2000] and t2 [0,3000] in one wave) and its fork
    (cwd /p/beta: the parent's 3 entries copied, then t3 [10000,11000] alone), the fork's
    file sorting first, and a meta.json that is no trace. In April 2026, when pi (v0.58.0
    and later) starts the calls of one message together (docs/formats.md, ``pi``)."""
    t0, t2s, t3s, t10s, t11s = (f"2026-04-01T00:00:{s}.000Z" for s in ("00", "02", "03", "10",
                                                                         "11"))
    parent = [
        _pi_entry("0000000a", None, _pi_call(t0, ("t1", "bash"), ("t2", "read"))),
        _pi_entry("0000000b", "0000000a", _pi_result(t2s, "t1", "bash")),
        _pi_entry("0000000c", "0000000b", _pi_result(t3s, "t2", "read")),
    ]
    header = {"type": "session", "version": 3, "timestamp": t0}
    files = {
        "2026-01-01_z-parent.jsonl": [{**header, "id": "sess-p", "cwd": "/p/alpha"}, *parent],
        "2026-01-01_a-fork.jsonl": [
            {**header, "id": "sess-f", "cwd": "/p/beta", "parentSession": "sess-p"}, *parent,
            _pi_entry("0000000d", "0000000c", _pi_call(t10s, ("t3", "bash"))),
            _pi_entry("0000000e", "0000000d", _pi_result(t11s, "t3", "bash")),
        ],
    }
    folder.mkdir(parents=True)
    for name, records in files.items():
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in records),
                                   encoding="utf-8")
    (folder / "meta.json").write_text('{"title": "not a trace"}\n', encoding="utf-8")


def test_pi_fork_folder_is_one_cached_unit_with_the_uncached_figures(
    tmp_path: Path, private_cache: Path
) -> None:
    """A pi folder (parent, fork, a skipped meta.json) is cached as one read unit, and cold,
    warm and --no-cache runs agree for summarize, --by project and waves."""
    folder = tmp_path / "--p-alpha--"
    _pi_fork_folder(folder)
    for args in (["summarize"], ["summarize", "--by", "project"], ["waves"]):
        command = [*args, "--format", "json", "--jobs", "1", str(folder)]
        plain = _invoke(*command, "--no-cache")
        cold = _invoke(*command)
        warm = _invoke(*command)
        assert cold == plain
        assert warm == plain
    assert _units(private_cache) == 1  # parent and fork: one unit; meta.json: skipped
    document = json.loads(_invoke("summarize", "--format", "json", "--jobs", "1", str(folder))[1])
    assert document["skipped_files"][0]["path"] == str(folder / "meta.json")
    assert document["total"]["modeled_wallclock_saved_ms"] == 2000.0  # the fork's copies: once
    code, out, _ = _invoke("summarize", "--by", "project", "--format", "json", "--jobs", "1",
                           str(folder))
    groups = {g["group"]: (g["paired_calls"], g["modeled_wallclock_saved_ms"])
              for g in json.loads(out)["groups"]}
    # each file by its own header's cwd: the parent's wave (3000 + 2000 - 3000) and t3 alone
    assert (code, groups) == (0, {"/p/alpha": (2, 2000.0), "/p/beta": (1, 0.0)})


@pytest.mark.skipif(os.name != "posix" or __import__("sys").platform == "darwin",
                    reason="the XDG cache rule is the Linux/BSD one")
@pytest.mark.parametrize("configured", [None, ""])
def test_default_cache_dir_is_the_xdg_user_cache_dir(
    configured: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``$WAVEMETRICS_CACHE_DIR`` (unset or empty) the cache is
    ``$XDG_CACHE_HOME/wavemetrics`` (a temporary folder here, never the real home)."""
    from wavemetrics.cache.units import CACHE_ENV, default_cache_dir

    if configured is None:
        monkeypatch.delenv(CACHE_ENV)
    else:
        monkeypatch.setenv(CACHE_ENV, configured)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    assert default_cache_dir() == tmp_path / "xdg-cache" / "wavemetrics"
    code, out, _ = _invoke("cache", "info")
    assert (code, out.splitlines()[0]) == (0, f"path: {tmp_path / 'xdg-cache/wavemetrics'}/{CACHE_FILE}")


def test_cache_without_a_subcommand_prints_its_help_and_exits_0() -> None:
    """`wavemetrics cache` alone shows its help (info, clear), like `wavemetrics` alone: not an error."""
    result = CliRunner().invoke(main, ["cache"])
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: wavemetrics cache [OPTIONS] [COMMAND] [ARGS]...")
    assert "  info" in result.stdout and "  clear" in result.stdout


def test_batch_lookups_skip_other_versions_and_drop_damaged_entries(
    tmp_path: Path, private_cache: Path
) -> None:
    """`detections` answers only for the stored version of a file, and `load_many` returns
    sound entries and drops one whose blob no longer matches its digest."""
    from wavemetrics.cache.units import unit_key

    store = ReadCache(private_cache)
    a = write_events(tmp_path / "a.jsonl", TWO_LANES)
    b = write_events(tmp_path / "b.jsonl", TWO_LANES[:5])
    key_a, key_b = file_key(str(a)), file_key(str(b))
    assert key_a is not None and key_b is not None
    store.store_detections([(key_a, "events"), (key_b, "events")], "auto")
    write_events(b, TWO_LANES[:9])  # b changed: its stored detection is of another version
    new_b = file_key(str(b))
    assert new_b is not None and new_b != key_b
    assert store.detections([key_a, new_b], "auto") == {key_a.path: "events"}
    assert store.detections([key_a], "events/x") == {}  # another mode
    first, second = unit_key("events", [key_a]), unit_key("events", [new_b])
    store.store_many([(first, [1, "x"], 1), (second, [2], 0)])
    assert store.load_many([first, second]) == {first.key: [1, "x"], second.key: [2]}
    store.close()
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        db.execute("UPDATE units SET blob = X'91c0' WHERE key = ?", (second.key,))
    assert store.load_many([first, second]) == {first.key: [1, "x"]}
    assert _entries(private_cache) == 1  # the damaged one was dropped


def test_live_ids_answer_from_the_rows_they_rest_on(tmp_path: Path) -> None:
    """Digests 0x10, 0x20, 0x30 (1 byte each, for the test): 0x20 is known, 0x25 is
    not (0x20's row names 0x30 next); after 0x25 is inserted it is known and 0x20
    names it; another state (only its head) knows none; with 0x30's row deleted, looking up 0x35 sees 0x25 naming a row that
    is not there, and looking up 0x05 without the head row finds no row at all."""
    from wavemetrics.cache.units import LiveIds, LiveIdsDamaged

    db = sqlite3.connect(tmp_path / "ids.sqlite3", isolation_level=None)
    ReadCache._create(db)
    ids = LiveIds(db, 7)
    ids.replace([b"\x30", b"\x10", b"\x20"])
    assert ids.known(b"\x20") and not ids.known(b"\x25") and not ids.known(b"\x05")
    ids.insert([b"\x25"])
    assert ids.known(b"\x25")
    assert db.execute("SELECT next FROM live_ids WHERE digest = x'20'").fetchone() == (b"\x25",)
    other = LiveIds(db, 8)
    other.replace([])
    assert not other.known(b"\x25")  # another state's ids are its own
    db.execute("DELETE FROM live_ids WHERE state = 7 AND digest = x'30'")
    with pytest.raises(LiveIdsDamaged):
        ids.known(b"\x35")
    db.execute("DELETE FROM live_ids WHERE state = 7 AND digest = x''")
    with pytest.raises(LiveIdsDamaged):
        ids.known(b"\x05")


@given(st.lists(st.sampled_from(["a", "b.c", ".", "..", "", ".x", "x..", "..."]), max_size=6),
       st.booleans(), st.booleans())
def test_file_key_path_is_the_absolute_path(parts: list[str], rooted: bool, slash: bool) -> None:
    """A file key's path is ``os.path.abspath`` of the path, however it is spelled."""
    path = ("/" if rooted else "") + "/".join(parts) + ("/" if slash else "")
    assert _absolute(path or ".") == os.path.abspath(path or ".")


# -- file names that are not UTF-8 -------------------------------------------------

#: ``a\xf5.jsonl``: a name whose byte 0xf5 is not UTF-8 (Python holds it as ``\udcf5``).
_ODD_NAME = os.fsdecode(b"a\xf5.jsonl")


@pytest.mark.skipif(os.name == "nt", reason="POSIX file names are bytes")
@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("named", [True, False])
def test_a_file_name_that_is_not_utf8_never_crashes_a_cached_run(
    tmp_path: Path, private_cache: Path, engine: str, named: bool,
) -> None:
    """``a\\xf5.jsonl`` (valid events: two overlapping calls, by hand one 2-call wave
    saving 30 ms), named or found in a folder: ``summarize`` (either engine) and ``waves``
    give the ``--no-cache`` bytes cold and warm, exit 0; the name is shown escaped. Its
    detection is kept under the name's own bytes; its unit keeps no entry."""
    if engine == "native" and not native.available():
        pytest.skip("the Rust extension is not built")
    folder = tmp_path / "traces"
    trace = saving_trial(folder / _ODD_NAME, 30)
    target = str(trace) if named else str(folder)
    for command in (["summarize", "--engine", engine], ["waves"]):
        for output in ("table", "json"):
            args = [*command, "--format", output, "--jobs", "1", target]
            plain = _invoke(*args, "--no-cache")
            cold = _invoke(*args)
            warm = _invoke(*args)
            assert plain[0] == 0
            assert cold == plain
            assert warm == plain
    table = _invoke("summarize", "--engine", engine, target)[1]
    assert "a\\xf5" in table
    document = json.loads(_invoke("summarize", "--format", "json", target)[1])
    assert document["inputs"][0]["path"] == str(trace)
    assert document["total"]["modeled_wallclock_saved_ms"] == 30.0
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        blobs = [row[0] for row in db.execute(
            "SELECT path FROM detections WHERE typeof(path) = 'blob'")]
        units = db.execute("SELECT count(*) FROM units").fetchone()[0]
    assert set(blobs) == {os.fsencode(_absolute(str(trace)))}
    assert units == 0


def test_detections_are_keyed_by_the_name_s_own_bytes(private_cache: Path) -> None:
    """A detection stored for a name that is not UTF-8 comes back for it, and for no
    other name: not for the text ``a\\xf5.jsonl`` spelt with a backslash, nor for
    ``a\\u00f5.jsonl`` (the character U+00F5, UTF-8 bytes c3 b5)."""
    odd = "/t/" + _ODD_NAME
    cache = ReadCache(private_cache)
    try:
        cache.store_detections([(FileKey(odd, 1, 2, 3), "events")], "auto/limits:default")
        keys = [FileKey(path, 1, 2, 3) for path in (odd, "/t/a\\xf5.jsonl", "/t/a\u00f5.jsonl")]
        assert cache.detections(keys, "auto/limits:default") == {odd: "events"}
        assert cache.detection(keys[0], "auto/limits:default") == "events"
        assert cache.detection(keys[2], "auto/limits:default") is None
    finally:
        cache.close()
    assert utf8_names([FileKey("/t/a\u00f5.jsonl", 1, 2, 3)])
    assert not utf8_names([FileKey("/t/x.jsonl", 1, 2, 3), FileKey(odd, 1, 2, 3)])


#: The tables of cache schema 5, the last with the resume points of grown files
#: (table ``resumes``, where the status line's live states were kept too).
_SCHEMA_5 = (
    "CREATE TABLE detections (path TEXT NOT NULL, mode TEXT NOT NULL, stamp TEXT NOT NULL,"
    " format TEXT NOT NULL, PRIMARY KEY (path, mode))",
    "CREATE TABLE units (key TEXT PRIMARY KEY, unit TEXT NOT NULL, files INTEGER NOT NULL,"
    " digest BLOB NOT NULL, blob BLOB NOT NULL, stored REAL NOT NULL)",
    "CREATE TABLE figures (key TEXT PRIMARY KEY, unit TEXT NOT NULL, digest BLOB NOT NULL,"
    " blob BLOB NOT NULL)",
    "CREATE TABLE resumes (key TEXT PRIMARY KEY, digest BLOB NOT NULL, blob BLOB NOT NULL)",
    "CREATE TABLE live_ids (state INTEGER NOT NULL, digest BLOB NOT NULL, next BLOB NOT NULL,"
    " tag BLOB NOT NULL, PRIMARY KEY (state, digest)) WITHOUT ROWID",
)


def _tables(cache_dir: Path) -> set[str]:
    with sqlite3.connect(cache_dir / CACHE_FILE) as db:
        return {name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_a_schema_5_database_is_rebuilt_not_misread(tmp_path: Path, private_cache: Path) -> None:
    """A database the previous schema wrote, whose ``detections`` row names ``codex`` for
    this very version of an ``events`` file (as a mislabelled or stale row would), is
    dropped and rebuilt: the run reads the file as ``events`` (the --no-cache bytes: 2
    paired calls, one wave of 2 saving 30 ms); the wrong detection and the old
    ``resumes`` table are gone."""
    import wavemetrics

    trace = saving_trial(tmp_path / "s.jsonl", 30)
    key = file_key(str(trace))
    assert key is not None
    private_cache.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        for statement in _SCHEMA_5:
            db.execute(statement)
        db.execute("INSERT INTO detections VALUES (?, ?, ?, ?)",
                   (key.path, f"{wavemetrics.__version__}/5/auto/limits:default", key.stamp,
                    "codex"))
        db.execute("PRAGMA user_version = 5")
    expected = _summary(trace, "--no-cache", "--engine", "python")
    assert expected["inputs"][0]["format"] == "events"
    assert expected["total"]["modeled_wallclock_saved_ms"] == 30.0
    assert _summary(trace, "--engine", "python") == expected
    ReadCache(private_cache).close()
    assert "resumes" not in _tables(private_cache)
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        assert db.execute("SELECT format FROM detections").fetchall() == [("events",)]


def test_a_grown_file_is_read_again_in_full_and_keeps_no_resume_point(
    tmp_path: Path, private_cache: Path
) -> None:
    """An events file read by ``summarize --engine python`` (its streamed lanes) and
    ``waves`` (its call records), then grown by lines (its first lines unchanged): each
    run prints the --no-cache bytes (5, then 9 lines: 2, then 4 paired calls), the cache
    holds one lane-summary and one call-record entry for it (the old version replaced),
    and no table of resume points."""
    trace = write_events(tmp_path / "s.jsonl", TWO_LANES[:5])
    for end, calls in ((5, 2), (9, 4)):
        write_events(trace, TWO_LANES[:end])
        assert _summary(trace, "--no-cache")["total"]["paired_calls"] == calls
        for command in (["summarize", "--engine", "python"], ["waves"]):
            args = [*command, "--format", "json", "--jobs", "1", str(trace)]
            assert _invoke(*args) == _invoke(*args, "--no-cache")
        ReadCache(private_cache).close()
        with sqlite3.connect(private_cache / CACHE_FILE) as db:
            rows = db.execute("SELECT files FROM units ORDER BY files").fetchall()
        assert rows == [(0,), (1,)]
    assert "resumes" not in _tables(private_cache)


@pytest.mark.parametrize("command", [
    ["waves"], ["summarize", "--engine", "python"], ["summarize", "--by", "day"],
])
def test_a_warm_run_opens_no_trace_file(
    tmp_path: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """What the per-unit entries make warm (``waves``, the Python engine, ``--by``): the
    second run over two unchanged events files prints the first run's bytes without
    opening either file (``open`` and ``os.open`` refuse them)."""
    import builtins

    folder = tmp_path / "traces"
    write_events(folder / "a.jsonl", TWO_LANES)
    write_events(folder / "b.jsonl", TWO_LANES[:9])
    args = [*command, "--format", "json", "--jobs", "1", str(folder)]
    cold = _invoke(*args)
    assert cold[0] == 0

    def refusing(real: Any) -> Any:
        def refused(path: Any, *rest: Any, **kwargs: Any) -> Any:
            if isinstance(path, (str, bytes, os.PathLike)) and os.fsdecode(path).startswith(
                    str(folder)):
                raise AssertionError(f"a warm run opened {os.fsdecode(path)}")
            return real(path, *rest, **kwargs)
        return refused

    monkeypatch.setattr(builtins, "open", refusing(builtins.open))
    monkeypatch.setattr(os, "open", refusing(os.open))
    assert _invoke(*args) == cold


# -- the size bound -------------------------------------------------------------
def _hex(number: int) -> str:
    return f"{number:064x}"


def _aged(path: Path, seconds: int) -> None:
    os.utime(path, ns=(seconds * 10**9, seconds * 10**9))


def test_past_the_bound_the_oldest_outputs_go_until_three_quarters_are_left(
        private_cache: Path) -> None:
    """Five outputs of 200 bytes each (88 bytes of head + 112 of output), stored at 3, 1,
    5, 2 and 4 s: 1,000 bytes, past a bound of 700. They go oldest first while the folder
    holds more than 700 * 3 // 4 = 525 bytes: 1 s (800 left), 2 s (600), 3 s (400).
    Under the bound nothing goes, and no database is created to find that out."""
    from wavemetrics.cache.runcache import cache_bytes

    cache = ReadCache(private_cache)
    for number, seconds in enumerate((3, 1, 5, 2, 4)):
        assert cache.store_run(_hex(number), _hex(100 + number), b"x" * 112)
        _aged(private_cache / "runs" / _hex(100 + number), seconds)
    assert cache_bytes(str(private_cache)) == 1000
    assert cache.keep_within(1000) == []
    assert cache.keep_within(700) == [("output", _hex(101)), ("output", _hex(103)),
                                      ("output", _hex(100))]
    assert sorted(os.listdir(private_cache / "runs")) == [_hex(102), _hex(104)]
    assert cache_bytes(str(private_cache)) == 400
    assert cache.load_run(_hex(2), _hex(102)) == b"x" * 112
    assert cache.keep_within(700) == []
    assert not (private_cache / CACHE_FILE).exists()


def test_outputs_and_rows_are_evicted_by_one_age(private_cache: Path) -> None:
    """Outputs, per-unit rows and live states are one list, oldest first: an output
    stored at 1 s, a unit row at 2 s, a live state at 3 s (with its three id rows), an
    output at 4 s, a unit row at 5 s. A bound whose three quarters leave room for the
    last two only removes exactly the first three, in that order, the live state's id
    rows with it (entries of 50,000 bytes: together more than a quarter of the folder,
    the database's own pages included); a row counts the bytes of its columns (key 64, unit 64, digest 16,
    blob, 16 for ``files`` and ``stored``; a live state's key 64, digest 16, blob, 8,
    and its id rows': digest, next, tag 8 and state 8 each)."""
    import msgspec

    from wavemetrics.cache.runcache import cache_bytes
    from wavemetrics.cache.units import live_state, unit_key

    cache = ReadCache(private_cache)
    old, new = (unit_key("events", [FileKey(f"/{name}", 1, 1, 1)]) for name in ("b", "e"))
    cache.store(old, [b"b" * 50_000])
    cache.store(new, [b"e" * 50_000])
    live = unit_key("claude-code", [], "live").unit
    digests = [b"1" * 8, b"2" * 8]
    assert cache.store_live(live, [b"c" * 50_000], live_state(live), digests, None)
    assert cache.store_run(_hex(1), _hex(101), b"a" * 50_000)
    assert cache.store_run(_hex(4), _hex(104), b"d" * 50_000)
    _aged(private_cache / "runs" / _hex(101), 1)
    _aged(private_cache / "runs" / _hex(104), 4)
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        db.execute("UPDATE units SET stored = 2 WHERE key = ?", (old.key,))
        db.execute("UPDATE units SET stored = 5 WHERE key = ?", (new.key,))
        db.execute("UPDATE live_states SET stored = 3 WHERE key = ?", (live,))
    blob = len(msgspec.msgpack.encode([b"x" * 50_000]))
    sizes = [88 + 50_000, 64 + 64 + 16 + blob + 16,
             64 + 16 + blob + 8 + (0 + 8 + 8 + 8) + (8 + 8 + 8 + 8) + (8 + 0 + 8 + 8)]
    cache.close()  # the journal checkpointed: the folder is the database and the outputs
    total = cache_bytes(str(private_cache))
    bound = (total - sum(sizes)) * 4 // 3 + 4  # 3/4 of it: at least total - sum(sizes)
    assert cache.keep_within(bound) == [("output", _hex(101)), ("units", old.key),
                                        ("live_states", live)]
    assert os.listdir(private_cache / "runs") == [_hex(104)]
    assert cache.load(old) is None and cache.load(new) == [b"e" * 50_000]
    assert cache.load_live(live) is None
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        assert db.execute("SELECT count(*) FROM live_ids").fetchone() == (0,)
    assert cache_bytes(str(private_cache)) <= bound  # compacted: the file shrank


def test_a_run_past_the_bound_evicts_and_served_runs_stay_right(
        tmp_path: Path, private_cache: Path) -> None:
    """Through the console script: two ``summarize`` outputs kept (the first run with the
    Python engine, so the database holds its units too), then a third command run with
    a bound just above what the cache held: storing it passes the bound, so the
    oldest entries go (the first output among them) and the folder ends within the bound;
    each command, run again, prints exactly what a run without the cache prints."""
    import subprocess
    import sys

    from wavemetrics.cache._cachedir import CACHE_ENV, MAX_BYTES_ENV
    from wavemetrics.cache.runcache import cache_bytes

    first = write_events(tmp_path / "a.jsonl", TWO_LANES)
    second = write_events(tmp_path / "b.jsonl", TWO_LANES[:9])
    env = {**os.environ, CACHE_ENV: str(private_cache)}

    def run(*args: str, bound: str = "") -> bytes:
        done = subprocess.run([sys.executable, "-m", "wavemetrics", "summarize", *args],
                              capture_output=True, check=True,
                              env={**env, MAX_BYTES_ENV: bound})
        return done.stdout

    commands = [("--format", "json", "--engine", "python", str(first)),
                ("--format", "json", str(second)),
                ("--format", "csv", "--engine", "python", str(first))]
    expected = [run("--no-cache", *command) for command in commands]
    assert [run(*command) for command in commands[:2]] == expected[:2]
    kept = sorted(os.listdir(private_cache / "runs"), key=lambda name: os.stat(
        private_cache / "runs" / name).st_mtime_ns)
    bound = cache_bytes(str(private_cache)) + 1
    assert run(*commands[2], bound=str(bound)) == expected[2]
    assert kept[0] not in os.listdir(private_cache / "runs")
    assert cache_bytes(str(private_cache)) <= bound
    for command, output in zip(commands, expected, strict=True):
        assert run(*command, bound=str(bound)) == output


def test_a_row_whose_key_is_no_unit_key_is_evicted_as_any_other(private_cache: Path) -> None:
    """A ``live_states`` row whose key is not 64 hex digits (a damaged or foreign row) names no
    live state: it is counted by its columns (9 + 1 + 1 + 8 = 19 bytes) and evicted in its
    turn, oldest first (stored at 0 s, before the output stored at 1 s), without touching
    the id rows."""
    cache = ReadCache(private_cache)
    assert cache.store_run(_hex(1), _hex(101), b"a" * 100)
    _aged(private_cache / "runs" / _hex(101), 1)
    from wavemetrics.cache.units import live_state, unit_key

    live = unit_key("claude-code", [], "live").unit  # a live state, stored now: the newest
    assert cache.store_live(live, [1], live_state(live), [b"1" * 8], None)
    with sqlite3.connect(private_cache / CACHE_FILE) as db:
        db.execute("INSERT INTO live_states VALUES ('not-a-key', x'00', x'00', 0)")
    assert cache.keep_within(1)[:2] == [("live_states", "not-a-key"), ("output", _hex(101))]
