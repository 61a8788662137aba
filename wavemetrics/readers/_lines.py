"""Physical-line reading and the per-input line account (``docs/formats.md``, "For every format").

Every physical line ends in exactly one bucket: used, ignored (a known
non-tool record, counted by type) or a problem (counted by reason), so that
``lines_read == lines_used + lines_ignored + problems`` always holds.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

import attrs
import msgspec

from wavemetrics.inputs._files import os_text
from wavemetrics.readers.limits import MAX_JSON_DEPTH, nested_past, too_deeply_nested

__all__ = [
    "LINE_TOO_LONG", "LineAccount", "bad_id", "is_object", "iter_records", "member", "os_text",
    "usable_id", "usable_text",
]

#: Distinct ignored record types kept per input before folding into ``other``.
MAX_IGNORED_KINDS = 64
#: Longest record type kept as a key.
MAX_KIND_LENGTH = 64
OTHER_KINDS = "other"
# A record type is named in the report only when it is a short identifier
# (docs/formats.md, "Limits and hostile input"): free text never reaches the output.
_KIND = re.compile(r"[A-Za-z0-9_.:-]{1,64}", re.ASCII)


class _TooLong(bytes):
    """The type of :data:`LINE_TOO_LONG` (a class of its own, so no real line is it)."""


#: Stands in for a line longer than ``--max-line-bytes``, which is never held:
#: :func:`iter_records` counts it as the problem ``line_too_long``.
LINE_TOO_LONG = _TooLong(b"\x00")

_BOM = b"\xef\xbb\xbf"
#: The shortest valid JSON text that nests past the limit: 501 brackets opened, and
#: closed (an invalid one may be shorter; the stdlib path checks every line).
_SHORTEST_TOO_DEEP = 2 * (MAX_JSON_DEPTH + 1)


@attrs.define
class LineAccount:
    """Mutable tally of one input's lines; readers call exactly one method per record."""

    lines_read: int = 0
    lines_used: int = 0
    ignored: Counter[str] = attrs.field(factory=Counter)
    problems: Counter[str] = attrs.field(factory=Counter)
    notes: Counter[str] = attrs.field(factory=Counter)
    #: Why the input as a whole failed although it was read (a single JSON
    #: document that does not parse, a document past the limits), else ``None``.
    error: str | None = None

    @property
    def lines_ignored(self) -> int:
        return sum(self.ignored.values())

    def use(self) -> None:
        self.lines_used += 1

    def ignore(self, kind: str, count: int = 1) -> None:
        """Count a known non-tool record under its type.

        Record types come from the file: a type is kept as a key only when it is
        a short identifier (ASCII letters, digits, ``_.:-``, at most
        :data:`MAX_KIND_LENGTH` characters), and at most
        :data:`MAX_IGNORED_KINDS` distinct ones are kept; any other type is
        counted as ``other``, so a hostile file can neither grow this table
        without bound nor smuggle text through it (``docs/formats.md``).
        """
        key = kind if _KIND.fullmatch(kind) else OTHER_KINDS
        if key not in self.ignored and len(self.ignored) >= MAX_IGNORED_KINDS:
            key = OTHER_KINDS
        self.ignored[key] += count

    def problem(self, reason: str) -> None:
        self.problems[reason] += 1

    def note(self, what: str, count: int = 1) -> None:
        """Count something that is not a line (a repeated block, a dropped event, ...)."""
        self.notes[what] += count


def account_tool_line(account: LineAccount, blocks: int, usable: int, fed: int) -> None:
    """Account one transcript line holding ``blocks`` tool blocks.

    ``usable`` of them had an id (and name), ``fed`` of those reached the lane
    (the others were repeats: first start and first end win). The line is used
    if any was fed, ignored as ``repeated_tool_record`` if all usable ones were
    repeats, else a problem (``invalid_tool_record``); unusable blocks are
    counted in ``notes.invalid_tool_blocks``.
    """
    if usable < blocks:
        account.note("invalid_tool_blocks", blocks - usable)
    if fed:
        account.use()
    elif usable:
        account.ignore("repeated_tool_record")
    else:
        account.problem("invalid_tool_record")


def usable_text(value: object) -> str | None:
    r"""``value`` when it is a non-empty ``str`` that UTF-8 can encode, else ``None``.

    JSON escapes can produce lone surrogates (``"\ud800"``); an id or name
    holding one can be neither printed nor hashed, so it is as unusable as a
    missing one.

    >>> usable_text("toolu_1"), usable_text(""), usable_text("\ud800"), usable_text(7)
    ('toolu_1', None, None, None)
    """
    if not isinstance(value, str) or not value:
        return None
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return None
    return value


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def usable_id(value: object) -> str | None:
    r"""``value`` when it is usable as an id, else ``None``.

    An id (session, lane, call) must be a non-empty ``str`` with no unpaired
    surrogate and no control character (C0, DEL, C1): ``docs/formats.md``,
    "Limits and hostile input", makes such an id a problem (``invalid_id``),
    never silently replaced by a default lane or session.

    >>> usable_id("agent-1"), usable_id("a\x1b[2J"), usable_id("a\ud800"), usable_id("")
    ('agent-1', None, None, None)
    """
    text = usable_text(value)
    if text is None or (not text.isprintable() and _CONTROL.search(text)):
        return None
    return text


def bad_id(value: object) -> bool:
    """Whether ``value`` is id text that :func:`usable_id` refuses: a non-empty ``str``
    with an unpaired surrogate or a control character (``invalid_id``). A missing,
    empty or non-string value is not a bad id but an absent one.

    >>> bad_id("a\x1b"), bad_id("a"), bad_id(""), bad_id(None), bad_id(7)
    (True, False, False, False, False)
    """
    return isinstance(value, str) and bool(value) and usable_id(value) is None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


def _parse(line: bytes) -> tuple[dict[str, Any] | None, str | None]:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None, "invalid_utf8"
    if too_deeply_nested(text, _loads):  # MAX_JSON_DEPTH, json's first failure
        return None, "too_deeply_nested"
    try:
        value = _loads(text)
    except RecursionError:  # a safety net: below MAX_JSON_DEPTH only a stack already
        return None, "too_deeply_nested"  # near Python's limit gets here
    except ValueError:  # JSONDecodeError, NaN/Infinity, over-long integers
        return None, "invalid_json"
    if not isinstance(value, dict):
        return None, "not_an_object"
    return value, None


class Record(msgspec.Struct, frozen=True):
    """Base of the typed records a fast reader decodes: the dict methods readers use.

    A subclass declares, as fields defaulting to ``msgspec.UNSET``, every key its
    reader looks at; other keys are skipped by the decoder without being built.
    ``get``, ``in`` and ``[]`` then behave as on the dict the stdlib parser gives.
    """

    def get(self, key: str, default: Any = None) -> Any:
        if key in self.__struct_fields__:
            value = getattr(self, key)
            if value is not msgspec.UNSET:
                return value
        return default

    def __contains__(self, key: object) -> bool:
        return key in self.__struct_fields__ and getattr(self, str(key)) is not msgspec.UNSET

    def __getitem__(self, key: str) -> Any:
        value = self.get(key, msgspec.UNSET)
        if value is msgspec.UNSET:
            raise KeyError(key)
        return value


def is_object(value: object) -> bool:
    """Whether a decoded value is a JSON object: a typed :class:`Record` or a dict."""
    return isinstance(value, dict | Record)


def member(value: object, key: str) -> Any:
    """``value[key]`` of a decoded JSON object (:func:`is_object`), else ``None``."""
    return value.get(key) if isinstance(value, dict | Record) else None


def _valid_utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def iter_records(
    lines: Iterable[bytes], account: LineAccount, decoder: Any = None
) -> Iterator[Any]:
    """Yield each line's JSON object; count blank lines and unparsable lines in ``account``.

    ``lines``: raw physical lines (bytes, with or without their ``\\n``). A UTF-8
    BOM on the first line and a trailing CR are tolerated. A line with no
    newline (only the last line can lack one) that does not parse is
    ``truncated_last_line``. The caller must account for every yielded record
    exactly once.

    ``decoder``: an optional ``msgspec.json.Decoder`` of a :class:`Record` type,
    tried first on valid UTF-8 (msgspec skips undeclared keys without checking
    their UTF-8, so that is checked here); any line it rejects is parsed by the
    stdlib ``json`` as without it, so both give the same records and counts
    (``tests/test_readers_fast.py``). A line nesting past
    :data:`~wavemetrics.readers.limits.MAX_JSON_DEPTH` is never handed to
    ``decoder``: the limit is the same for both parsers.
    """
    decode = decoder.decode if decoder is not None else None
    first = True
    for raw in lines:
        account.lines_read += 1
        if raw is LINE_TOO_LONG:
            account.problem("line_too_long")
            continue
        if first:
            raw = raw.removeprefix(_BOM)
            first = False
        line = raw.rstrip(b"\r\n")
        if not line or line.isspace():
            # a run of empty lines may come as one piece (a source coalesces
            # b"\n" * k): each of its newlines is a line
            runs = raw.count(b"\n") if raw.startswith(b"\n\n") else 1
            account.lines_read += runs - 1
            account.ignore("blank_line", runs)
            continue
        if decode is not None and (line.isascii() or _valid_utf8(line)) and (
            # msgspec takes valid JSON only, which closes what it opens: a shorter line
            # cannot nest past the limit where msgspec would read it
            len(line) < _SHORTEST_TOO_DEEP
            or line.count(b"[") + line.count(b"{") <= MAX_JSON_DEPTH
            or nested_past(line) is None
        ):
            try:
                fast = decode(line)
            except (msgspec.DecodeError, RecursionError):  # the stdlib path names the reason
                fast = None
            if fast is not None:
                yield fast
                continue
        record, reason = _parse(line)
        if record is None:
            assert reason is not None
            account.problem(reason if raw.endswith(b"\n") else "truncated_last_line")
            continue
        yield record
