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

One limit is fixed: how deep a JSON text may nest (:data:`MAX_JSON_DEPTH`, the
same in every reader of both engines, whatever the call stack; ``docs/formats.md``,
"Limits and hostile input").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import attrs

from wavemetrics.core.exceptions import InputTooLargeError  # re-exported: raised with the limits

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_DOCUMENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "MAX_JSON_DEPTH",
    "InputTooLargeError",
    "Limits",
    "current_limits",
    "limits_in_effect",
    "nested_past",
    "too_deeply_nested",
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


#: How many arrays and objects one JSON text (a line, a document, a JSON string
#: embedded in one) may nest, its own top-level value being level 1: 500 levels
#: are read, a text that opens a container at level 501 is ``too_deeply_nested``
#: (``docs/formats.md``, "Limits and hostile input"). Every reader of both
#: engines applies it (``native/core/src/json.rs`` holds the same number), so
#: the outcome never depends on the call stack the parse runs on (Python's own
#: ``RecursionError`` comes near 1000 levels less the frames below the parse).
MAX_JSON_DEPTH = 500

# Outside strings: a whole string (escapes skipped; an unterminated one runs to
# the end) or one bracket.
_TOKENS_TEXT = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[][{}]', re.DOTALL)
_TOKENS_BYTES = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[][{}]', re.DOTALL)
# How a token moves the depth (a string: not at all).
_STEPS_TEXT = {"[": 1, "{": 1, "]": -1, "}": -1}
_STEPS_BYTES = {b"[": 1, b"{": 1, b"]": -1, b"}": -1}


def nested_past(data: str | bytes) -> int | None:
    """Where the first array or object opening past :data:`MAX_JSON_DEPTH` levels
    begins in JSON text (brackets inside strings do not count), else ``None``.

    Costs two ``count`` calls for a text with at most :data:`MAX_JSON_DEPTH`
    opening brackets (every real one): only a text with more is scanned.
    Positions are in the units of ``data`` (characters of a ``str``, bytes of
    ``bytes``). Past a syntax error the count means nothing; callers decide which
    comes first (:func:`too_deeply_nested`).

    >>> nested_past("[" * 500 + "]" * 500) is None, nested_past('"' + "[" * 600 + '"')
    (True, None)
    >>> nested_past("{" + '"a":' + "[" * 500)
    504
    """
    if len(data) <= MAX_JSON_DEPTH:
        return None
    steps: Iterator[tuple[int, int]]
    if isinstance(data, bytes):
        if data.count(b"[") + data.count(b"{") <= MAX_JSON_DEPTH:
            return None
        steps = ((m.start(), _STEPS_BYTES.get(m.group(), 0))
                 for m in _TOKENS_BYTES.finditer(data))
    else:
        if data.count("[") + data.count("{") <= MAX_JSON_DEPTH:
            return None
        steps = ((m.start(), _STEPS_TEXT.get(m.group(), 0)) for m in _TOKENS_TEXT.finditer(data))
    depth = 0
    for at, step in steps:
        if step > 0:
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return at
        elif step and depth:
            depth -= 1
    return None


def too_deeply_nested(text: str, loads: Callable[[str], object]) -> bool:
    """Whether ``loads`` (the reader's ``json.loads``), reading ``text`` from the left,
    meets an array or object opening past :data:`MAX_JSON_DEPTH` levels before any
    other failure (``docs/formats.md``: a broken line is named by the first failure
    ``json`` meets reading it from the left).

    The text before that container is parsed with an empty array in its place:
    a failure there (an ``invalid_json``), or at the container itself (a bracket
    where no value may begin), comes first; a failure only after it means the
    container was entered. ``False`` at no more cost than :func:`nested_past` for
    a text that cannot nest that deep.

    >>> deep = "[" * 501 + "]" * 501
    >>> too_deeply_nested(deep, json.loads), too_deeply_nested("[1 " + deep, json.loads)
    (True, False)
    """
    at = nested_past(text)
    if at is None:
        return False
    try:
        loads(text[:at] + "[]")
    except json.JSONDecodeError as error:
        return error.pos > at
    except RecursionError:  # a stack already near Python's own limit: the same answer
        return True
    except (ValueError, ArithmeticError):  # NaN, an int too long: before the container
        return False
    return False  # unreachable: the containers before it are never closed
