"""Defaults the command line needs before it reads anything, and lazy option choices.

Building the CLI's options must not import the readers, the core or the
compare module (``wavemetrics --help`` stays under 100 ms): the
defaults are the light option table's (:mod:`wavemetrics.run._options`) or, for
``compare``, spelled here (``tests/test_cli.py`` checks each against its
source), and the choices of ``--input-format`` and ``--metric`` are loaded
from their registries only when a command's help or a value needs them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

# declared once, in the option table and the options record (both light)
from wavemetrics.run._options import (
    AUTO,
    DEFAULT_MAX_DOCUMENT_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MAX_TRACKED_CALLS,
    ENGINES,
    default_engine,
)

__all__ = [
    "AUTO",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_MAX_DOCUMENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_MAX_TRACKED_CALLS",
    "DEFAULT_METRIC",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "ENGINES",
    "LazyChoice",
    "default_engine",
    "input_format_choice",
    "metric_choice",
]

#: The compare defaults (``compare.DEFAULT_*``).
DEFAULT_METRIC = "modeled_wallclock_saved_ms"
DEFAULT_RESAMPLES = 9999
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SEED = 0


class LazyChoice(click.Choice):  # type: ignore[type-arg]
    """A :class:`click.Choice` whose choices are loaded on first use by ``load()``.

    ``known``: values that are always among the choices (a default such as ``auto``),
    accepted without loading them: a run that names no format imports no reader for
    the option (start-up time).
    """

    def __init__(self, load: Callable[[], Sequence[str]], known: Sequence[str] = ()) -> None:
        self._load = load
        self._known = tuple(known)
        self._loaded: tuple[str, ...] | None = None
        super().__init__((), case_sensitive=True)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if value in self._known:
            return value
        return super().convert(value, param, ctx)

    @property  # type: ignore[override]
    def choices(self) -> Sequence[Any]:
        if self._loaded is None:
            self._loaded = tuple(self._load())
        return self._loaded

    @choices.setter
    def choices(self, value: Sequence[Any]) -> None:
        pass  # set by click.Choice.__init__; the loaded list is the truth


def _input_formats() -> list[str]:
    from wavemetrics.readers.dispatch import FORMATS

    return [AUTO, *FORMATS]


def _metrics() -> list[str]:
    from wavemetrics.views.compare import METRICS

    return list(METRICS)


def input_format_choice() -> LazyChoice:
    """``--input-format``: ``auto`` and every registered format."""
    return LazyChoice(_input_formats, known=(AUTO,))


def metric_choice() -> LazyChoice:
    """``--metric`` of compare: the keys of ``compare.METRICS``."""
    return LazyChoice(_metrics)
