"""The positional wave-size histogram (``docs/metrics.md`` section 5)."""

from __future__ import annotations

import operator
from collections.abc import Sequence

__all__ = [
    "EMPTY_HISTOGRAM",
    "HISTOGRAM_BUCKETS",
    "HISTOGRAM_BUCKET_MAXIMA",
    "add_histograms",
    "decode_histogram",
    "encode_histogram",
    "wave_size_bucket",
]

#: Upper bounds of the first seven buckets; the eighth holds 33 and more.
HISTOGRAM_BUCKET_MAXIMA: tuple[int, ...] = (1, 2, 3, 4, 8, 16, 32)
#: Number of positional buckets: 1, 2, 3, 4, 5-8, 9-16, 17-32, 33+.
HISTOGRAM_BUCKETS = 8
#: The encoding of a histogram with no waves.
EMPTY_HISTOGRAM = "0:0:0:0:0:0:0:0"


def wave_size_bucket(size: int) -> int:
    """0-based histogram position (0..7) of a wave of ``size`` calls.

    Raises ``ValueError`` for ``size < 1``: empty waves are not counted.

    >>> [wave_size_bucket(n) for n in (1, 4, 5, 8, 9, 32, 33)]
    [0, 3, 4, 4, 5, 6, 7]
    """
    if size < 1:
        raise ValueError(f"a wave size is at least 1, got {size}")
    for position, maximum in enumerate(HISTOGRAM_BUCKET_MAXIMA):
        if size <= maximum:
            return position
    return len(HISTOGRAM_BUCKET_MAXIMA)


def encode_histogram(counts: Sequence[int]) -> str:
    """The v1 wire form: the 8 counts joined by ``:`` with no labels.

    Raises ``ValueError`` unless there are exactly 8 non-negative int counts.

    >>> encode_histogram([3, 1, 0, 0, 0, 0, 0, 0])
    '3:1:0:0:0:0:0:0'
    """
    if len(counts) != HISTOGRAM_BUCKETS:
        raise ValueError(f"a histogram has {HISTOGRAM_BUCKETS} counts, got {len(counts)}")
    for count in counts:
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"histogram counts are non-negative ints, got {count!r}")
    return ":".join(str(count) for count in counts)


def decode_histogram(encoded: str) -> tuple[int, ...]:
    """Inverse of :func:`encode_histogram`: 8 ``:``-separated ASCII decimal counts.

    Raises ``ValueError`` for any string of another shape (leading zeros are read
    as the number they spell).

    >>> decode_histogram("0:2:0:0:0:0:0:1")
    (0, 2, 0, 0, 0, 0, 0, 1)
    """
    parts = encoded.split(":")
    if len(parts) != HISTOGRAM_BUCKETS or not all(p.isdigit() and p.isascii() for p in parts):
        raise ValueError(f"not an encoded wave-size histogram: {encoded!r}")
    return tuple(int(p) for p in parts)


def add_histograms(left: str, right: str) -> str:
    """Position-by-position sum of two encoded histograms (section 8).

    >>> add_histograms("1:0:0:0:0:0:0:0", "2:1:0:0:0:0:0:0")
    '3:1:0:0:0:0:0:0'
    """
    # decode_histogram returns exactly 8 counts or raises, so the sides always align.
    counts = map(operator.add, decode_histogram(left), decode_histogram(right))
    return encode_histogram(list(counts))
