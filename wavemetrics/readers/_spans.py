"""Shared machinery of the span-shaped readers (``spec/formats.md``, "Span-shaped formats").

Three pieces, used by ``otlp``, ``otel-spans`` and ``inspect``:

- :func:`iter_json_values` reads an input either as JSON Lines or, when its
  first line with content is not a JSON object on its own, as whole JSON
  document(s) (pretty-printed, or several concatenated);
- :class:`SpanCollector` holds the few fields of each span that the rules
  need and turns tool spans into lanes: session id lookup, duplicate spans
  (innermost wins), synthetic timing, feeding in order of start time;
- :func:`feed_calls` feeds span-shaped calls into a lane, each start
  immediately followed by its own end.

Accounting unit ("item"): these formats hold many records per line (an OTLP
batch) or one record per file (a pretty-printed document), so a reader counts
*items* in ``LineAccount.lines_read``: each JSON value read counts as one
item, and a reader that splits a value into ``k`` records (spans, sample
events) adds ``k - 1`` (:func:`split_item`). The identity
``lines_read == lines_used + lines_ignored + problems`` holds on items.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

import attrs

from wavemetrics.readers._lines import LineAccount, iter_records, usable_text
from wavemetrics.readers._protocol import ObservationSink
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.timestamps import ns_to_ms

__all__ = [
    "CONVERSATION_ID",
    "SESSION_ID",
    "TOOL_OPERATION",
    "Call",
    "SpanCollector",
    "SpanRecord",
    "feed_calls",
    "iter_json_values",
    "make_tool_span",
    "ns_time_to_ms",
    "peek_text",
    "session_attribute",
    "split_item",
]

#: ``gen_ai.operation.name`` of a tool span.
TOOL_OPERATION = "execute_tool"
_TOOL_PREFIX = TOOL_OPERATION + " "
#: Session attributes, in lookup order within one span (``spec/formats.md``, ``otlp``).
CONVERSATION_ID = "gen_ai.conversation.id"
SESSION_ID = "session.id"

_BOM = b"\xef\xbb\xbf"
_WHITESPACE = re.compile(r"[ \t\n\r]*")
# uint64 has at most 20 decimal digits; bounding the length also keeps int()
# away from its digit limit on hostile input.
_NS_DIGITS = re.compile(r"[0-9]{1,20}", re.ASCII)
_NS_MAX = 2**64 - 1


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def ns_time_to_ms(value: object) -> float | None:
    """A span time in integer ns (JSON integer or decimal string) to ms, else ``None``.

    Valid: ``1 <= ns <= 2**64 - 1`` (0 means "unset" and is invalid), as an
    ``int`` that is not ``bool`` or a string of ASCII digits. JSON floats are
    refused: the rule is one correctly rounded division of the exact integer.

    >>> ns_time_to_ms("1751247501952174001"), ns_time_to_ms(1544712660000000000)
    (1751247501952.174, 1544712660000.0)
    >>> ns_time_to_ms(0), ns_time_to_ms("-5"), ns_time_to_ms(1.5e18), ns_time_to_ms(True)
    (None, None, None, None)
    """
    if isinstance(value, str):
        if _NS_DIGITS.fullmatch(value) is None:
            return None
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    if not 1 <= value <= _NS_MAX:
        return None
    return ns_to_ms(value)


def split_item(account: LineAccount, parts: int) -> None:
    """Count one read item as ``parts`` items (``parts >= 1``); see the module docstring."""
    account.lines_read += parts - 1


def peek_text(lines: list[bytes]) -> str:
    """The peeked first lines as text for detection: BOM dropped, undecodable bytes replaced."""
    return b"".join(lines).removeprefix(_BOM).decode("utf-8", errors="replace")


def _first_line_is_object(line: bytes) -> bool:
    try:
        value = json.loads(line.removeprefix(_BOM).decode("utf-8"),
                           parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(value, dict)


def iter_json_values(lines: Iterable[bytes], account: LineAccount) -> Iterator[Any]:
    """Yield the top-level JSON values of an input, each counted as one item.

    JSON Lines when the first line with content is a JSON object on its own:
    lines are read one at a time through :func:`~wavemetrics.readers._lines.iter_records`
    (blank lines ignored, bad lines counted as problems, only objects yielded).
    Otherwise the input is a whole document (pretty-printed, a compact array,
    or several values one after another, as the OTel console exporter writes):
    the whole text is read into memory (the stdlib has no streaming JSON
    parser) and its values are yielded in order. If even the first value cannot
    be parsed, the lines are read as JSON Lines after all, so every line is
    accounted; a later bad value counts as one ``invalid_json`` item and ends
    the input. The caller accounts every yielded value exactly once.
    """
    source = iter(lines)
    head: list[bytes] = []
    content = False
    for raw in source:
        head.append(raw)
        if raw.removeprefix(_BOM).strip():
            content = True
            break
    if not content or _first_line_is_object(head[-1]):
        yield from iter_records(chain(head, source), account)
        return
    buffered = head + list(source)
    try:
        text = b"".join(buffered).removeprefix(_BOM).decode("utf-8")
    except UnicodeDecodeError:
        yield from iter_records(buffered, account)
        return
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    position = _skip_whitespace(text, 0)
    first = True
    while position < len(text):
        try:
            value, position = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            if first:
                yield from iter_records(buffered, account)
            else:
                account.lines_read += 1
                account.problem("invalid_json")
            return
        if first:
            first = False
            del buffered  # the text is all the document mode needs from here on
        account.lines_read += 1
        yield value
        position = _skip_whitespace(text, position)


def _skip_whitespace(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match is not None else position


@attrs.frozen
class Call:
    """One span-shaped call: ms times; ``end_ms`` is ``None`` for a call with no end."""

    call_id: str
    tool_name: str
    start_ms: float
    end_ms: float | None


def feed_calls(lane: LaneBuilder, calls: Iterable[Call]) -> None:
    """Feed calls in order of start time (stable), each start immediately followed by its end.

    An end before its start is fed as is (the core counts a clock anomaly); a
    call with no end is a start alone (an incomplete call).
    """
    for call in sorted(calls, key=lambda c: c.start_ms):
        lane.start(call.call_id, call.tool_name, call.start_ms)
        if call.end_ms is not None:
            lane.end(call.call_id, call.end_ms)


@attrs.define
class SpanRecord:
    """What is kept of one span: ids (lower-case hex), session attributes, ms times.

    ``session`` is the span's own ``gen_ai.conversation.id`` else ``session.id``;
    ``resource_session`` the same looked up on its resource. ``call_id`` and
    ``tool_name`` are set on tool spans only; a tool span always has
    ``start_ms``, other spans keep ``None`` for unusable times.
    """

    index: int
    trace_id: str
    span_id: str
    parent_id: str | None
    session: str | None
    resource_session: str | None
    start_ms: float | None
    end_ms: float | None
    call_id: str | None = None
    tool_name: str | None = None


def session_attribute(attributes: dict[str, Any]) -> str | None:
    """``gen_ai.conversation.id``, else ``session.id``: the first that is a non-empty string."""
    for key in (CONVERSATION_ID, SESSION_ID):
        value = usable_text(attributes.get(key))
        if value is not None:
            return value
    return None


def make_tool_span(
    record: SpanRecord,
    attributes: dict[str, Any],
    span_name: object,
    end_given: bool,
    account: LineAccount,
) -> bool:
    """Make ``record`` a tool span if its times and name are usable, else count a problem.

    Tool name: ``gen_ai.tool.name``, else ``span_name`` without its
    ``execute_tool `` prefix (``invalid_tool_record`` when that leaves
    nothing); call id: ``gen_ai.tool.call.id``, else the span id. A missing
    start, or an end that is given but unusable, is ``invalid_timestamp``;
    no end at all leaves a start alone. Returns whether the span is usable.
    """
    name = usable_text(attributes.get("gen_ai.tool.name"))
    if name is None and isinstance(span_name, str):
        name = usable_text(span_name.removeprefix(_TOOL_PREFIX))
    if name is None:
        account.problem("invalid_tool_record")
        return False
    if record.start_ms is None or (end_given and record.end_ms is None):
        account.problem("invalid_timestamp")
        return False
    record.call_id = usable_text(attributes.get("gen_ai.tool.call.id")) or record.span_id
    record.tool_name = name
    return True


_Key = tuple[str, str]


@attrs.define
class SpanCollector:
    """Spans of one input, turned into lanes once the whole input is read.

    Spans may arrive in any order and split across batches, so nothing is
    decided before :meth:`lanes`. Non-tool spans are accounted when added
    (``ignored["non_tool_span"]``) and kept for the ancestor lookups; tool
    spans are accounted in :meth:`lanes` as used, ``duplicate_span`` or
    ``synthetic_timing``.
    """

    _spans: list[SpanRecord] = attrs.field(factory=list)
    _by_key: dict[_Key, SpanRecord] = attrs.field(factory=dict)
    _chain_memo: dict[_Key, str | None] = attrs.field(factory=dict)

    def next_index(self) -> int:
        """Input position of the next span (the stable order of equal start times)."""
        return len(self._spans)

    def add(self, span: SpanRecord, account: LineAccount) -> None:
        """Keep ``span``; a non-tool span is accounted now as ``non_tool_span``."""
        self._spans.append(span)
        self._by_key.setdefault((span.trace_id, span.span_id), span)
        if span.call_id is None:
            account.ignore("non_tool_span")

    def _parent(self, span: SpanRecord) -> SpanRecord | None:
        if span.parent_id is None:
            return None
        return self._by_key.get((span.trace_id, span.parent_id))

    def _ancestor_session(self, start: SpanRecord | None) -> str | None:
        # Nearest holder of a session attribute among ``start`` and its ancestors;
        # memoised per span key, safe against parent cycles in bad data.
        path: list[_Key] = []
        seen: set[_Key] = set()
        found: str | None = None
        node = start
        while node is not None:
            key = (node.trace_id, node.span_id)
            if key in self._chain_memo:
                found = self._chain_memo[key]
                break
            if key in seen:
                break
            seen.add(key)
            path.append(key)
            if node.session is not None:
                found = node.session
                break
            node = self._parent(node)
        for key in path:
            self._chain_memo[key] = found
        return found

    def session_of(self, span: SpanRecord) -> str:
        """The span's session id: own attribute, ancestors in its trace, resource, trace id."""
        return (
            span.session
            or self._ancestor_session(self._parent(span))
            or span.resource_session
            or span.trace_id
        )

    def _depth(self, span: SpanRecord) -> int:
        depth = 0
        seen = {(span.trace_id, span.span_id)}
        node = self._parent(span)
        while node is not None and (node.trace_id, node.span_id) not in seen:
            seen.add((node.trace_id, node.span_id))
            depth += 1
            node = self._parent(node)
        return depth

    def _rank(self, span: SpanRecord) -> tuple[int, float, int, int]:
        # Innermost wins: shortest ended span first; at equal length the deeper
        # span, then input order. A span with no end, then a reversed one, only
        # wins when no copy has usable timing.
        assert span.start_ms is not None
        if span.end_ms is None:
            return (1, 0.0, 0, span.index)
        duration = span.end_ms - span.start_ms
        if duration < 0:
            return (2, 0.0, 0, span.index)
        return (0, duration, -self._depth(span), span.index)

    def lanes(self, path: str, account: LineAccount, sink: ObservationSink) -> None:
        """Feed ``sink`` one lane (``"main"``) per session with any span, in order of
        first appearance.

        Tool spans: duplicates of one call id in a session are reduced to the
        innermost (``ignored["duplicate_span"]`` for the others); then a
        zero-length span, or one that shares exactly its parent's start and
        end together with at least one sibling tool span, is set aside
        (``ignored["synthetic_timing"]``); the rest are used and fed in order
        of start time.
        """
        builders: dict[str, LaneBuilder] = {}
        groups: dict[tuple[str, str], list[SpanRecord]] = {}
        for span in self._spans:
            session = self.session_of(span)
            if session not in builders:
                builders[session] = LaneBuilder(path, session, "main", sink=sink)
            if span.call_id is not None:
                groups.setdefault((session, span.call_id), []).append(span)
        winners: list[tuple[str, SpanRecord]] = []
        for (session, _), copies in groups.items():
            best = min(copies, key=self._rank) if len(copies) > 1 else copies[0]
            for _ in range(len(copies) - 1):
                account.ignore("duplicate_span")
            winners.append((session, best))
        winners.sort(key=lambda pair: pair[1].index)  # input order, for the stable sort
        copied = self._copied_timing([span for _, span in winners])
        calls: dict[str, list[Call]] = {}
        for session, span in winners:
            assert span.call_id is not None and span.tool_name is not None
            assert span.start_ms is not None
            if span.end_ms == span.start_ms or span.index in copied:
                account.ignore("synthetic_timing")
                continue
            account.use()
            calls.setdefault(session, []).append(
                Call(span.call_id, span.tool_name, span.start_ms, span.end_ms)
            )
        for session, lane_calls in calls.items():
            feed_calls(builders[session], lane_calls)
        for builder in builders.values():
            builder.build()

    def _copied_timing(self, tools: list[SpanRecord]) -> set[int]:
        """Indices of tool spans whose start and end equal their parent's, where 2+
        siblings do so (timing copied from the parent, not measured)."""
        by_parent: dict[_Key, list[SpanRecord]] = {}
        for span in tools:
            parent = self._parent(span)
            if (
                parent is not None
                and span.end_ms is not None
                and span.start_ms == parent.start_ms
                and span.end_ms == parent.end_ms
            ):
                by_parent.setdefault((parent.trace_id, parent.span_id), []).append(span)
        return {span.index for group in by_parent.values() if len(group) >= 2 for span in group}
