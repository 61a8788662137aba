"""The number of cores this process may use: ``--jobs``'s default.

Light on purpose (``os`` only): a served run and the native command read it
(:func:`wavemetrics.cache.runcache._jobs`) before :mod:`wavemetrics.run.parallel`, whose
``contextlib`` and ``typing`` would add ~10 ms to their start-up
(docs/performance-history.md, "Eleventh round"); :mod:`wavemetrics.run.parallel` re-exports it.
"""

from __future__ import annotations

import os

__all__ = ["default_jobs"]


def default_jobs() -> int:
    """The number of cores this process may use (its CPU affinity; ``os.cpu_count()``
    where there is none, at least 1)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
