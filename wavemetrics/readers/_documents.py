"""Whole JSON documents, one after another, read within the byte limits.

Pretty-printed span streams (the OTel console exporter, ``json.dump(..., indent=2)``
in a loop) and single eval logs are JSON documents spread over many lines,
possibly several concatenated. ``docs/formats.md`` ("Limits and hostile
input"): each top-level document is a record; one that fails to parse is a
problem and reading resumes at the next; a single document that fails to parse
is an error for that input; a document larger than ``max_document_bytes`` ends
the input as an error. The stdlib has no incremental parser that can resume
after a bad document, so :func:`split_documents` finds where each top-level
value ends by tracking bracket depth and strings (a regex jumps between the
few bytes that matter), holds one document at a time, and hands it to the
stdlib ``json`` parser.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from wavemetrics.limits import InputTooLargeError, Limits, mib
from wavemetrics.readers._lines import LINE_TOO_LONG

__all__ = ["parse_document", "split_documents"]

_BOM = b"\xef\xbb\xbf"
# Between values: brackets, quotes, and runs of other text (a bare number, stray text).
_TOP = re.compile(rb'[][{}"]|[^][{}"\s]+')
_OPENERS = (b"{", b"[", b'"')
# Inside a value, outside strings: brackets and quotes only.
_NESTED = re.compile(rb'[][{}"]')
# Inside a string: its closing quote or a backslash escape.
_INSIDE = re.compile(rb'["\\]')


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def parse_document(data: bytes) -> tuple[Any, str | None]:
    """``(value, None)`` for a JSON text, else ``(None, reason)``: ``invalid_utf8``,
    ``too_deeply_nested`` or ``invalid_json`` (also ``NaN``/``Infinity`` literals)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "invalid_utf8"
    try:
        return json.loads(text, parse_constant=_reject_constant), None
    except RecursionError:
        return None, "too_deeply_nested"
    except ValueError:
        return None, "invalid_json"


def _too_large(limits: Limits) -> InputTooLargeError:
    return InputTooLargeError(
        f"a JSON document runs past {mib(limits.max_document_bytes)} (--max-document-bytes):"
        " not read further"
    )


def split_documents(lines: Iterable[bytes], limits: Limits) -> Iterator[bytes]:
    """The bytes of each top-level JSON value in ``lines``, in order.

    Values are delimited by bracket depth outside strings; text between
    values that starts none (stray closing brackets, bare words or numbers)
    is yielded as one item, up to the next value. The validity of each is
    left to the parser. An unclosed value at the end is
    yielded as it is (the parser then rejects it). Raises
    :class:`~wavemetrics.limits.InputTooLargeError` when one value runs past
    ``max_document_bytes`` or holds a line longer than ``max_line_bytes``.
    """
    parts: list[bytes] = []
    size = 0
    stray: list[bytes] = []  # text between documents that starts none
    stray_size = 0
    depth = 0
    in_string = False
    escaped = False  # the next byte of the string is escaped (a backslash ended a chunk)
    first = True
    for raw in lines:
        if raw is LINE_TOO_LONG:
            raise InputTooLargeError(
                f"a JSON document holds a line longer than {mib(limits.max_line_bytes)}"
                " (--max-line-bytes): not read further"
            )
        line = raw.removeprefix(_BOM) if first else raw
        first = False
        if not in_string and line.isspace():
            # whitespace between tokens: counted in the document's size, never held
            if depth:
                size += len(line)
                if size > limits.max_document_bytes:
                    raise _too_large(limits)
            continue
        start = 0  # where the current value began in this line (when it began here)
        position = 0
        length = len(line)
        while position < length:
            if in_string:
                if escaped:
                    escaped = False
                    position += 1
                    continue
                match = _INSIDE.search(line, position)
                if match is None:
                    position = length
                    break
                position = match.end()
                if match.group() == b"\\":
                    escaped = True
                    continue
                in_string = False
                if depth == 0:  # a top-level string ends here
                    yield from _emit(parts, line[start:position], size, limits)
                    parts, size = [], 0
                continue
            match = (_NESTED if depth else _TOP).search(line, position)
            if match is None:  # only whitespace is left
                position = length
                break
            token = match.group()
            position = match.end()
            if depth == 0 and token not in _OPENERS:
                # stray text between documents: one item, up to the next document
                stray.append(token)
                stray_size += len(token)
                if stray_size > limits.max_document_bytes:
                    raise _too_large(limits)
                continue
            if depth == 0 and not parts:
                if stray:
                    yield b" ".join(stray)
                    stray, stray_size = [], 0
                start = match.start()  # a new value begins here
            if token == b'"':
                in_string = True
            elif token in (b"{", b"["):
                depth += 1
            else:  # a closing bracket
                depth -= 1
                if depth == 0:
                    yield from _emit(parts, line[start:position], size, limits)
                    parts, size = [], 0
        if depth or in_string:  # the value goes on past this line
            piece = line if parts else line[start:]
            parts.append(piece)
            size += len(piece)
            if size > limits.max_document_bytes:
                raise _too_large(limits)
    if stray:
        yield b" ".join(stray)
    if parts:
        yield b"".join(parts)


def _emit(parts: list[bytes], tail: bytes, size: int, limits: Limits) -> Iterator[bytes]:
    if size + len(tail) > limits.max_document_bytes:
        raise _too_large(limits)
    parts.append(tail)
    yield b"".join(parts)
