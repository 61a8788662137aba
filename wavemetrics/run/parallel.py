"""Running detection and read units in parallel processes (``--jobs``).

The outcome never depends on the number of processes: units are independent
(a Claude Code project folder is one unit), results come back in input order,
and lanes are merged in that order (``docs/formats.md``: work is split by
project folder, never within one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from wavemetrics.run._cores import default_jobs

if TYPE_CHECKING:
    from wavemetrics.run.pipeline import Mapper

__all__ = ["default_jobs", "process_mapper"]


@contextmanager
def process_mapper(jobs: int) -> Iterator[Mapper]:
    """A ``map`` that runs on ``jobs`` processes when there is more than one item.

    With ``jobs <= 1`` (or a single item) it is the built-in ``map``: no process
    is started. Items are sent in chunks so that thousands of small files do not
    cost one round trip each. The pool is shut down when the block ends.
    """
    pool: Any = None  # a ProcessPoolExecutor, imported only when needed (slow import)

    def run(function: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[Any]:
        """Results in item order, each as soon as it (and those before it) are done."""
        nonlocal pool
        if jobs <= 1 or len(items) <= 1:
            return map(function, items)
        if pool is None:
            from concurrent.futures import ProcessPoolExecutor

            pool = ProcessPoolExecutor(max_workers=jobs)
        chunksize = max(1, len(items) // (jobs * 8))
        return pool.map(function, items, chunksize=chunksize)  # type: ignore[no-any-return]

    try:
        yield run
    finally:
        if pool is not None:
            pool.shutdown()
