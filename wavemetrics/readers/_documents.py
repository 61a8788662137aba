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
from itertools import chain
from typing import Any

from wavemetrics.readers._lines import LINE_TOO_LONG
from wavemetrics.readers.limits import InputTooLargeError, Limits, mib, too_deeply_nested

__all__ = ["parse_document", "split_documents"]

_BOM = b"\xef\xbb\xbf"
# Between values: brackets, quotes, and runs of other text (a bare number, stray text).
_TOP = re.compile(rb'[][{}"]|[^][{}"\s]+')
_OPENERS = (b"{", b"[", b'"')
# A line that begins with one of these, inside a value, may begin the next document.
_OPENERS_AT_LINE_START = frozenset((b"{", b"["))
# Inside a value, outside strings: brackets and quotes only.
_NESTED = re.compile(rb'[][{}"]')
# Inside a string: its closing quote or a backslash escape.
_INSIDE = re.compile(rb'["\\]')


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


def parse_document(data: bytes) -> tuple[Any, str | None]:
    """``(value, None)`` for a JSON text, else ``(None, reason)``: ``invalid_utf8``,
    ``too_deeply_nested`` (an array or object past
    :data:`~wavemetrics.readers.limits.MAX_JSON_DEPTH` levels, counted from the
    document's own top, met before any syntax error) or ``invalid_json`` (also
    ``NaN``/``Infinity`` literals)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "invalid_utf8"
    if too_deeply_nested(text, _loads):
        return None, "too_deeply_nested"
    try:
        return _loads(text), None
    except RecursionError:  # a safety net: not reached below the limit
        return None, "too_deeply_nested"
    except ValueError:
        return None, "invalid_json"


def _too_large(limits: Limits) -> InputTooLargeError:
    return InputTooLargeError(
        f"a JSON document runs past {mib(limits.max_document_bytes)} (--max-document-bytes):"
        " not read further"
    )


def _cut_past_limit(parts: list[bytes], resume: int | None, limits: Limits) -> list[bytes]:
    """A value past ``--max-document-bytes``: the lines to read again from the line that
    may begin the next document (``resume``), or the error when no line may."""
    if resume is None:
        raise _too_large(limits)
    return parts[resume:]


def split_documents(lines: Iterable[bytes], limits: Limits) -> Iterator[bytes]:
    """The bytes of each top-level JSON value in ``lines``, in order.

    Values are delimited by bracket depth outside strings; text between
    values that starts none (stray closing brackets, bare words or numbers)
    is yielded as one item, up to the next value. The validity of each is
    left to the parser.

    A cut document (``{ "broken":`` and a newline) would otherwise swallow
    every document after it, its brackets never balancing. So a line that
    begins with ``{`` or ``[`` in its first column, inside a value begun on an
    earlier line, may begin the next document (a pretty-printer indents what
    a value holds; the SDK console exporter writes each document from the
    first column). The first such line of a value is remembered; the value
    is cut there, its part before that line yielded alone (the parser then
    rejects it) and reading resumes at that line, when the value:

    - is still open at the end of the input, or
    - closes but does not parse (checked here only for such a value), or
    - runs past ``max_document_bytes``.

    A value that closes and parses is one document, whatever its lines
    begin with (``json.dumps(..., indent=0)`` writes nested values in the
    first column). An unclosed value with no such line is yielded as it is.

    The lines read again are bounded: once they outnumber in bytes the lines
    read from the input (several cut documents, each holding the rest of the
    input), such a line cuts the value at once, unchecked, so that the work
    stays linear in the input whatever it holds.

    Raises :class:`~wavemetrics.readers.limits.InputTooLargeError` when one value
    with no such line runs past ``max_document_bytes``, or a line is longer
    than ``max_line_bytes``. Holds at most one value (``max_document_bytes``).
    """
    source: Iterator[bytes] = iter(lines)
    parts: list[bytes] = []
    size = 0
    resume: int | None = None  # index in ``parts`` of the value's first line that may begin one
    stray: list[bytes] = []  # text between documents that starts none
    stray_size = 0
    depth = 0
    in_string = False
    escaped = False  # the next byte of the string is escaped (a backslash ended a chunk)
    first = True
    read = replayed = pending = 0  # bytes read from the input, queued again, still queued
    while True:
        again: list[bytes] | None = None  # a cut value's lines from ``resume``: read again
        for raw in source:
            if pending:  # a line read again
                pending -= len(raw)
            else:
                read += len(raw)
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
                        again = _cut_past_limit(parts, resume, limits)
                        break
                continue
            if parts and line[:1] in _OPENERS_AT_LINE_START:  # may begin the next document
                if replayed > read:  # read again more than read: cut at once, unchecked
                    yield b"".join(parts)
                    parts, size, resume, depth, in_string, escaped = [], 0, None, 0, False, False
                elif resume is None:
                    resume = len(parts)
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
                        parts, size, resume = [], 0, None
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
                        tail = line[start:position]
                        if resume is not None and not _whole(parts, tail, size, limits):
                            again = [*parts[resume:], line]  # this line too, from its start
                            break
                        yield from _emit(parts, tail, size, limits)
                        parts, size, resume = [], 0, None
            if again is not None:
                break
            if depth or in_string:  # the value goes on past this line
                piece = line if parts else line[start:]
                parts.append(piece)
                size += len(piece)
                if size > limits.max_document_bytes:
                    again = _cut_past_limit(parts, resume, limits)
                    break
        else:  # the end of the input
            if not parts or resume is None:
                break
            again = parts[resume:]  # a value still open: cut, read the rest again
        yield b"".join(parts[:resume])
        queued = sum(map(len, again))
        replayed += queued
        pending += queued
        source = chain(again, source)
        parts, size, resume, depth, in_string, escaped = [], 0, None, 0, False, False
    if stray:
        yield b" ".join(stray)
    if parts:
        yield b"".join(parts)


def _whole(parts: list[bytes], tail: bytes, size: int, limits: Limits) -> bool:
    """Whether a closed value that holds a line which may begin a document is one
    document: within ``max_document_bytes`` and parsed."""
    if size + len(tail) > limits.max_document_bytes:
        return False
    return parse_document(b"".join([*parts, tail]))[1] is None


def _emit(parts: list[bytes], tail: bytes, size: int, limits: Limits) -> Iterator[bytes]:
    if size + len(tail) > limits.max_document_bytes:
        raise _too_large(limits)
    parts.append(tail)
    yield b"".join(parts)
