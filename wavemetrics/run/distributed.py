"""Summarising many trace files on a Dask cluster (the optional ``dask`` extra).

The work is the local work, only spread out: a bag of paths is detected on
the workers, the client groups the detections into read units (a Claude Code
project folder is never split, ``docs/formats.md``), a bag of units is read
and summarised on the workers, and the client merges the per-lane summaries
in input order. Results come back in input order, so the outcome is the one
``read_inputs`` and ``analyse`` give on one machine, bit for bit.

The workers open the files themselves: every path must be reachable from
every worker at the same absolute path (a shared filesystem), and the
workers need the same ``wavemetrics`` version as the client.

An example (it needs a running cluster, so it is not run as a doctest)::

    from distributed import Client
    from wavemetrics.run.distributed import summarize_on_dask

    with Client("tcp://scheduler:8786") as client:
        analysis = summarize_on_dask(["/shared/traces"], client)
    print(analysis.total.modeled_wallclock_saved_ms, "ms saved")
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from wavemetrics.core.classify import EVAL_TOOL_NAMES
from wavemetrics.core.exceptions import MissingExtraError, install_hint
from wavemetrics.core.observations import DEFAULT_MAX_TRACKED_CALLS
from wavemetrics.readers.dispatch import AUTO
from wavemetrics.readers.sources import STDIN
from wavemetrics.run.pipeline import (
    Analysis,
    LaneResult,
    Mapper,
    StreamedLaneResult,
    StreamSettings,
    summarize_inputs,
)

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["INSTALL_HINT", "dask_mapper", "summarize_on_dask"]

INSTALL_HINT = install_hint("dask")

#: Partitions per worker thread: enough to balance uneven files (a large
#: project folder beside many small files), few enough that 50 000 files are
#: not 50 000 tasks.
PARTITIONS_PER_THREAD = 8


def _require_dask() -> None:
    # Imported only when used: the package and its doctests load without the extra.
    try:
        import dask.bag  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as exc:
        raise MissingExtraError(
            "running on a Dask cluster", "dask and distributed", "dask"
        ) from exc


def dask_mapper(client: Client, *, npartitions: int | None = None) -> Mapper:
    """A ``map`` for :func:`~wavemetrics.run.pipeline.read_inputs` that runs on ``client``'s
    cluster.

    Each call turns the items into a ``dask.bag`` (``npartitions`` partitions;
    by default 8 per worker thread, at most one per item), maps the function
    over it and computes it on ``client``; the results come back as a list in
    item order. The function and items are pickled to the workers, so paths
    must be absolute and on a filesystem every worker shares. Raises
    :class:`~wavemetrics.core.exceptions.MissingExtraError` (an ``ImportError``
    naming ``pip install -e '.[dask]'``) without the extra.
    """
    _require_dask()
    import dask.bag

    def run(function: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        if not items:
            return []
        # dask and distributed ship py.typed, but these two functions have no annotations
        parts = npartitions
        if parts is None:
            threads = sum(client.nthreads().values())  # type: ignore[no-untyped-call]
            parts = max(1, threads) * PARTITIONS_PER_THREAD
        bag = dask.bag.from_sequence(  # type: ignore[no-untyped-call]
            list(items), npartitions=max(1, min(parts, len(items)))
        )
        return list(bag.map(function).compute(scheduler=client))

    return run


def summarize_on_dask(
    paths: Sequence[str],
    client: Client,
    *,
    input_format: str = AUTO,
    eval_tool_names: Sequence[str] = EVAL_TOOL_NAMES,
    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
    stream: bool = True,
) -> Analysis[LaneResult | StreamedLaneResult]:
    """Read and summarise ``paths`` (files or folders) on ``client``'s Dask cluster.

    The result equals ``analyse(read_inputs(absolute_paths, ...))`` run on one
    machine: every input report, every lane's summary and the total. Relative
    paths are made absolute against the client's working directory (workers
    have their own), so reports name absolute paths. Folders are listed by
    the client; the files are opened by the workers, which must see them at
    the same paths. ``max_tracked_calls``: the per-lane cap, ``None`` for
    none. ``stream``: lanes are summarised on the workers while read, so only
    summaries travel back (with ``False`` every observation is sent to the
    client). Bad inputs are reported, not raised, as locally. Raises
    ``ValueError`` for ``-`` (stdin cannot be read on a cluster) or an
    unknown format, ``MissingExtraError`` (an ``ImportError``) without the
    ``dask`` extra.
    """
    if STDIN in paths:
        raise ValueError(
            "stdin ('-') cannot be read on a Dask cluster: save it to a file the workers can read"
        )
    mapper = dask_mapper(client)
    settings = StreamSettings(max_tracked_calls, tuple(eval_tool_names))
    absolute = [os.path.abspath(path) for path in paths]
    return summarize_inputs(
        absolute, input_format, settings=settings, stream=stream, mapper=mapper
    )
