"""The plan of a ``summarize`` command line: worked out once at the entry, passed along."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.golden_cases import EXAMPLE
from wavemetrics.cache import runcache
from wavemetrics.cli import _entry
from wavemetrics.inputs import _stdin
from wavemetrics.run.plan import Plan, plan_of


@pytest.mark.parametrize("args", [
    ["--help"],
    ["--format", "json", "--", str(EXAMPLE)],
    ["--no-such-option", str(EXAMPLE)],
    ["--jobs", "0", str(EXAMPLE)],
    ["--demo", str(EXAMPLE)],  # --demo with a PATH: click's usage error
    ["--no-cache"],  # no PATH, no cache: nothing to serve; click looks the locations up
])
def test_a_line_the_parser_is_not_sure_of_has_no_plan(
        args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """What the option table's parser is not sure of and a usage error are left to click
    as they are: no plan (stdin a terminal)."""
    monkeypatch.setattr(_stdin, "stdin_is_terminal", lambda: True)
    assert plan_of(args) is None


def test_piped_input_with_no_path_is_planned_as_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no PATH and data piped in, the plan reads ``-`` as the CLI does, with the
    cache on or off; with nothing piped in and ``--no-cache``, no plan."""
    monkeypatch.setattr(_stdin, "stdin_has_data", lambda: True)
    for args in (["--format", "json"], ["--no-cache"]):
        plan = plan_of(args)
        assert plan is not None and plan.files == ["-"], args
        assert plan.state() is None
    monkeypatch.setattr(_stdin, "stdin_has_data", lambda: False)
    assert plan_of(["--no-cache"]) is None


def test_stdin_is_planned_and_never_keyed() -> None:
    """``-`` is a path like any other to the plan (the native command may read it), and
    a run that reads stdin has no key: never served nor stored."""
    plan = plan_of(["--format", "json", "-", str(EXAMPLE)])
    assert plan is not None
    assert plan.files == ["-", str(EXAMPLE)]
    assert plan.cached
    assert plan.state() is None


def test_a_plan_holds_the_options_and_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """The keyed options as parsed (``--no-cache`` as given) and the files read; with
    ``--no-cache`` no key is taken (the inputs are not walked)."""

    def walks(*args: Any) -> Any:
        raise AssertionError("the inputs were walked")

    monkeypatch.setattr(runcache, "fingerprint", walks)
    plan = plan_of(["--format", "csv", "--no-cache", str(EXAMPLE)])
    assert plan is not None
    assert plan.options == {"output_format": "csv", "no_cache": True, "paths": [str(EXAMPLE)]}
    assert plan.files == [str(EXAMPLE)]
    assert not plan.cached
    assert plan.state() is None  # never cached: no key, no walk
    monkeypatch.undo()
    demo = plan_of(["--demo"])
    assert demo is not None and demo.cached
    assert [Path(path).name for path in demo.files] == ["claude-code-demo.jsonl"]


def test_the_key_is_taken_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first ``state()`` takes the key; later calls give the same object, no walk."""
    calls: list[int] = []
    real = runcache.fingerprint

    def counted(options: dict[str, Any], files: Any) -> Any:
        calls.append(1)
        return real(options, files)

    monkeypatch.setattr(runcache, "fingerprint", counted)
    plan = Plan({"paths": [str(EXAMPLE)]}, [str(EXAMPLE)])
    first = plan.state()
    assert first is not None and plan.state() is first
    assert len(calls) == 1
    assert first[0] == runcache.run_key({"paths": [str(EXAMPLE)]}, [str(EXAMPLE)])


def test_serves_only_its_own_run() -> None:
    """A plan is the click command's run exactly when options and files are equal."""
    plan = Plan({"paths": ["a"]}, ["a"])
    assert plan.serves({"paths": ["a"]}, ("a",))
    assert not plan.serves({"paths": ["a"], "by": "tool"}, ["a"])
    assert not plan.serves({"paths": ["a"]}, ["a", "b"])


def test_the_cli_run_walks_its_inputs_once_before_the_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A run neither served nor native (an option the native command does not take),
    through the console entry: the key
    is taken once before the read, by the lookup, and the click command records under
    it; the only other walk is the check after the read. Run again, it is served."""
    calls: list[int] = []
    real = runcache.fingerprint

    def counted(options: dict[str, Any], files: Any) -> Any:
        calls.append(1)
        return real(options, files)

    monkeypatch.setenv("WAVEMETRICS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(runcache, "fingerprint", counted)
    # (--max-line-bytes given: a run the native command leaves to click)
    monkeypatch.setattr(sys, "argv", ["wavemetrics", "summarize", "--format", "table",
                                      "--max-line-bytes", "67108864", str(EXAMPLE)])
    with pytest.raises(SystemExit) as stop:
        _entry.main()
    assert stop.value.code == 0
    first = capsys.readouterr()
    assert len(calls) == 2  # the key before the read, the check after it
    stored = runcache.RunStore(str(tmp_path / "cache" / runcache.RUNS_FOLDER)).count()
    assert stored == 1
    calls.clear()
    with pytest.raises(SystemExit) as stop:
        _entry.main()
    assert stop.value.code == 0
    assert capsys.readouterr() == first
    assert len(calls) == 1  # served: the lookup's key only


def test_the_cli_read_takes_the_stats_of_the_key_walk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The click command hands its read the key walk's stats of the files (by absolute
    path, as ``file_key`` takes them), passed as an argument; with ``--no-cache`` none."""
    from wavemetrics.cache.units import file_key
    from wavemetrics.run import pipeline

    seen: list[Any] = []
    real = pipeline.read_inputs

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("walked"))
        return real(*args, **kwargs)

    monkeypatch.setenv("WAVEMETRICS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(pipeline, "read_inputs", spy)
    example = str(EXAMPLE.resolve())
    for extra in ([], ["--no-cache"]):
        # (--max-line-bytes given: a run the native command leaves to click)
        monkeypatch.setattr(sys, "argv", ["wavemetrics", "summarize", "--format", "csv",
                                          "--max-line-bytes", "67108864", *extra, example])
        with pytest.raises(SystemExit) as stop:
            _entry.main()
        assert stop.value.code == 0
    capsys.readouterr()
    assert seen == [{example: file_key(example)}, None]
