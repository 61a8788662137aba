"""The errors of wavemetrics: one module, each a subclass of a built-in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import wavemetrics
from wavemetrics.core.exceptions import (
    LaneNotFoundError,
    MissingExtraError,
    StreamOrderError,
    install_hint,
    reject_path,
)
from wavemetrics.run import distributed
from wavemetrics.views import compare, timeline


def test_missing_extra_is_an_import_error_naming_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """MissingExtraError is an ImportError whose message ends with the command that
    installs the extra by the package's name with the running interpreter's pip: the
    same command for a wheel and an editable clone, never one for a clone only."""
    monkeypatch.setattr("sys.executable", "/home/me/wm/.venv/bin/python")
    error = MissingExtraError("timeline", "matplotlib", "timeline")
    assert isinstance(error, ImportError)
    hint = "/home/me/wm/.venv/bin/python -m pip install 'wavemetrics[timeline]'"
    assert str(error) == f"timeline needs matplotlib: {hint}"
    assert (error.extra, error.install_hint) == ("timeline", hint)


def test_install_hint_quotes_the_interpreter_and_has_a_fallback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An interpreter path with a space is quoted for the shell; an unknown interpreter
    (sys.executable empty) is python3."""
    assert install_hint("x", "/opt/my tools/python") == (
        "'/opt/my tools/python' -m pip install 'wavemetrics[x]'")
    monkeypatch.setattr("sys.executable", "")
    assert install_hint("x") == "python3 -m pip install 'wavemetrics[x]'"


def test_one_missing_extra_error_for_timeline_compare_and_dask() -> None:
    """timeline, compare and distributed raise the same class, and name their own extra."""
    import shlex
    import sys

    assert timeline.MatplotlibMissing is MissingExtraError
    assert compare.MissingExtra is MissingExtraError
    python = shlex.quote(sys.executable)
    hints = (timeline.INSTALL_HINT, compare.INSTALL_HINT, distributed.INSTALL_HINT)
    assert hints == tuple(f"{python} -m pip install 'wavemetrics[{extra}]'"
                          for extra in ("timeline", "compare", "dask"))


def test_stream_order_and_lane_errors_subclass_built_ins() -> None:
    """StreamOrderError is a RuntimeError; LaneNotFoundError a LookupError with the lane ids."""
    assert issubclass(StreamOrderError, RuntimeError)
    error = LaneNotFoundError("sub-1", ["main", "sub-2"])
    assert isinstance(error, LookupError)
    assert (error.args, error.lane_id, error.available) == (("sub-1",), "sub-1", ("main", "sub-2"))
    assert timeline.LaneNotFound is LaneNotFoundError


def test_errors_are_public() -> None:
    """The package exports its errors, so callers need not know the module."""
    for error in (MissingExtraError, StreamOrderError, LaneNotFoundError):
        assert getattr(wavemetrics, error.__name__) is error
        assert error.__name__ in wavemetrics.__all__


def test_missing_scipy_raises_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without scipy, compare raises MissingExtraError naming the compare extra."""
    import sys

    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    with pytest.raises(MissingExtraError) as raised:
        compare.require_scipy()
    assert raised.value.extra == "compare"


def test_input_too_large_is_a_value_error_and_never_leaves_read_inputs(tmp_path: Any) -> None:
    """InputTooLargeError is a ValueError raised inside the readers only: past the limits,
    read_inputs reports the input's error instead of raising."""
    from wavemetrics.core.exceptions import InputTooLargeError

    assert issubclass(InputTooLargeError, ValueError)
    path = tmp_path / "runaway.jsonl"
    path.write_bytes(b"x" * 5000)
    limits = wavemetrics.Limits(max_line_bytes=100, max_document_bytes=1000)
    (report,) = wavemetrics.read_inputs([str(path)], limits=limits).inputs
    assert report.error == "a line runs past 1000 bytes (--max-document-bytes): not read further"


def test_version_read_from_the_dist_info_name_is_the_metadata_version() -> None:
    """``__version__`` comes from the name of the one ``wavemetrics-*.dist-info`` folder
    when there is one (no importlib.metadata on the status line's path), and it is the
    version importlib.metadata reports for the installed package."""
    from importlib import metadata

    import wavemetrics

    assert wavemetrics._dist_info_version() == metadata.version("wavemetrics")


def test_version_from_dist_info_needs_exactly_one_folder(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``wavemetrics-*.dist-info`` on sys.path, or two of different versions: ``None``, and
    importlib.metadata decides; one: its version."""
    import wavemetrics

    monkeypatch.setattr("sys.path", [str(tmp_path)])
    assert wavemetrics._dist_info_version() is None
    (tmp_path / "wavemetrics-1.2.3.dist-info").mkdir()
    assert wavemetrics._dist_info_version() == "1.2.3"
    (tmp_path / "wavemetrics-1.2.4.dist-info").mkdir()
    assert wavemetrics._dist_info_version() is None


@pytest.mark.parametrize("value", [None, 3, b"t.jsonl", ["t.jsonl"], ("t.jsonl",), object()])
def test_reject_path_lets_every_non_path_through(value: object) -> None:
    """Only a str or an os.PathLike is a path: anything else is left to the function's
    own checks (bytes and a list of paths included)."""
    assert reject_path(value, "summarize", "waves") is None


def test_reject_path_quotes_the_path_as_given() -> None:
    """The message names the function, what it takes and the path (a Path as its str),
    and the call to make with that path."""
    with pytest.raises(TypeError) as raised:
        reject_path(Path("a b/it's.jsonl"), "f", "waves")
    assert str(raised.value) == (
        "f() takes waves, not the path \"a b/it's.jsonl\": to summarize trace files,"
        " call wavemetrics.summarize_paths(\"a b/it's.jsonl\")")
