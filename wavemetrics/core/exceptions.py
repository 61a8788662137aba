"""Every error wavemetrics raises on purpose, each a subclass of a built-in.

Catch the built-in (``ImportError``, ``RuntimeError``, ``LookupError``) or the
class here. Bad data is never an exception: readers count it in their
reports (``docs/formats.md``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = [
    "InputTooLargeError",
    "LaneNotFoundError",
    "MissingExtraError",
    "StreamOrderError",
    "reject_path",
]


class MissingExtraError(ImportError):
    """A feature needs an optional extra that is not installed.

    The one error of ``timeline`` (matplotlib), ``compare`` (scipy) and
    ``wavemetrics.run.distributed`` (dask). ``extra`` is the extra's name,
    ``install_hint`` the command that installs it (:func:`install_hint`, for
    the running interpreter); the message is ``"<feature> needs <packages>:
    <install_hint>"``.

    >>> str(MissingExtraError("compare", "scipy", "compare"))  # doctest: +ELLIPSIS
    "compare needs scipy: ... -m pip install 'wavemetrics[compare]'"
    """

    def __init__(self, feature: str, packages: str, extra: str) -> None:
        self.extra = extra
        self.install_hint = install_hint(extra)
        super().__init__(f"{feature} needs {packages}: {self.install_hint}")


def install_hint(extra: str, python: str | None = None) -> str:
    """The command that installs the optional ``extra`` where wavemetrics runs.

    ``python`` (default: the running interpreter, ``sys.executable``; ``python3``
    when it is unknown) runs pip, so the packages land in the environment that
    imports wavemetrics, such as a clone's ``.venv``, which is seldom on ``PATH``
    (a bare ``pip`` may be another Python's). The extra is named by the package's
    name, ``'wavemetrics[extra]'``: pip finds wavemetrics already installed (from a
    wheel or as an editable clone alike), keeps it as it is and installs only what
    the extra adds. The path is quoted for a POSIX shell when it needs it.

    >>> install_hint("timeline", "/home/me/wavemetrics/.venv/bin/python")
    "/home/me/wavemetrics/.venv/bin/python -m pip install 'wavemetrics[timeline]'"
    >>> install_hint("dask", "/opt/my tools/bin/python")
    "'/opt/my tools/bin/python' -m pip install 'wavemetrics[dask]'"
    """
    import shlex
    import sys

    interpreter = python if python is not None else sys.executable or "python3"
    return f"{shlex.quote(interpreter)} -m pip install 'wavemetrics[{extra}]'"


def reject_path(value: object, function: str, wants: str) -> None:
    """Raise ``TypeError`` if ``value`` is a path (a ``str`` or an ``os.PathLike``): the
    error of a function that wants ``wants`` (waves, an assembly...) and was given a trace
    file, naming :func:`wavemetrics.summarize_paths`, the call that reads one. Anything
    else passes (the function's own checks follow).

    >>> reject_path("t.jsonl", "summarize", "waves")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    TypeError: summarize() takes waves, not the path 't.jsonl': ...summarize_paths('t.jsonl')
    """
    if isinstance(value, (str, os.PathLike)):
        path = repr(os.fspath(value))
        raise TypeError(
            f"{function}() takes {wants}, not the path {path}: to summarize trace files,"
            f" call wavemetrics.summarize_paths({path})")


class StreamOrderError(RuntimeError):
    """A paired call starts at or before the reach of a wave already emitted.

    Raised by :class:`~wavemetrics.core.stream.LaneStream`: the stream can no longer
    give the batch path's figures, so the caller summarises the lane in batch.
    """


class LaneNotFoundError(LookupError):
    """A ``--lane`` id matched no lane; ``args[0]`` is the id, ``available`` the lane ids."""

    def __init__(self, lane_id: str, available: Sequence[str]) -> None:
        super().__init__(lane_id)
        self.lane_id = lane_id
        self.available = tuple(available)


class InputTooLargeError(ValueError):
    """An input holds a line, JSON document or archive member past ``max_document_bytes``.

    Raised inside the readers while reading (``wavemetrics.readers.limits``) and caught
    there: the input is then reported with this message as its ``error`` (the
    lines read before it are kept and counted); it never reaches a caller of
    ``read_inputs`` (``docs/formats.md``, "Limits and hostile input").
    """
