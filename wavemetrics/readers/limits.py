"""Memory limits of every reader (``docs/formats.md``, "Limits and hostile input").

Memory is bounded by these limits, not by what an input says:

- a line (or record) longer than ``max_line_bytes`` is a problem
  (``line_too_long``), skipped to its newline without being held whole;
- a line still running after ``max_document_bytes``, a single JSON document
  or an archive member larger than that, ends that input as an error
  (:class:`~wavemetrics.core.exceptions.InputTooLargeError`, raised and caught
  inside the readers). Bytes are counted after decompression, so a small gzip
  or zip that expands without end stops at the limit, and so does a device or
  pipe that never ends (``/dev/zero``).

The CLI sets them with ``--max-line-bytes`` and ``--max-document-bytes``; the
library with ``read_inputs(..., limits=Limits(...))``. Readers look up the
limits in effect with :func:`current_limits` (set per read by
:func:`limits_in_effect`, also inside worker processes).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import attrs

from wavemetrics.core.exceptions import InputTooLargeError  # re-exported: raised with the limits

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_DOCUMENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "InputTooLargeError",
    "Limits",
    "current_limits",
    "limits_in_effect",
]

#: 64 MiB: the longest line (JSON Lines record) read; longer ones are ``line_too_long``.
DEFAULT_MAX_LINE_BYTES = 64 * 2**20
#: 256 MiB: the longest line skipped, JSON document or archive member read (decompressed).
DEFAULT_MAX_DOCUMENT_BYTES = 256 * 2**20


def _positive(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{attribute.name} must be a positive int of bytes, not {value!r}")


@attrs.frozen
class Limits:
    """Byte limits of one read; both in bytes (after decompression), both ``>= 1``.

    Raises ``ValueError`` for a limit that is not a positive ``int``.
    """

    max_line_bytes: int = attrs.field(default=DEFAULT_MAX_LINE_BYTES, validator=_positive)
    max_document_bytes: int = attrs.field(
        default=DEFAULT_MAX_DOCUMENT_BYTES, validator=_positive
    )


DEFAULT_LIMITS = Limits()


_LIMITS: ContextVar[Limits] = ContextVar("wavemetrics_limits", default=DEFAULT_LIMITS)


def current_limits() -> Limits:
    """The limits of the read in progress (:data:`DEFAULT_LIMITS` outside any)."""
    return _LIMITS.get()


@contextmanager
def limits_in_effect(limits: Limits | None) -> Iterator[None]:
    """Within this block, readers use ``limits`` (``None``: keep the current ones)."""
    if limits is None:
        yield
        return
    token = _LIMITS.set(limits)
    try:
        yield
    finally:
        _LIMITS.reset(token)


def mib(count: int) -> str:
    """A byte count for messages: whole MiB when exact, else bytes.

    >>> mib(64 * 2**20), mib(1000)
    ('64 MiB', '1000 bytes')
    """
    return f"{count // 2**20} MiB" if count % 2**20 == 0 else f"{count} bytes"
