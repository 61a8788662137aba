"""Shared machinery of the span-shaped readers (``docs/formats.md``, "Span-shaped formats").

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

from wavemetrics.readers._documents import parse_document, split_documents
from wavemetrics.readers._lines import (
    LINE_TOO_LONG,
    LineAccount,
    bad_id,
    iter_records,
    usable_id,
    usable_text,
)
from wavemetrics.readers._protocol import ObservationSink
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.readers.limits import InputTooLargeError, current_limits, nested_past
from wavemetrics.readers.timestamps import ns_to_ms

__all__ = [
    "AGENT_OPERATION",
    "CLAUDE_TOOL_SPAN",
    "CONVERSATION_ID",
    "SESSION_ID",
    "SPAN_ATTRIBUTES",
    "TOOL_OPERATION",
    "Call",
    "SpanCollector",
    "SpanRecord",
    "feed_calls",
    "is_claude_tool_span",
    "iter_json_values",
    "make_tool_span",
    "mark_span",
    "ns_time_to_ms",
    "peek_text",
    "session_attribute",
    "split_item",
]

#: ``gen_ai.operation.name`` of a tool span.
TOOL_OPERATION = "execute_tool"
_TOOL_PREFIX = TOOL_OPERATION + " "
#: ``gen_ai.operation.name`` of an agent span: the tool spans below it are its lane.
AGENT_OPERATION = "invoke_agent"
#: Session attributes, in lookup order within one span (``docs/formats.md``, ``otlp``).
CONVERSATION_ID = "gen_ai.conversation.id"
SESSION_ID = "session.id"
#: Claude Code's own OTel tool span (beta): its name, and its ``span.type``.
CLAUDE_TOOL_SPAN = "claude_code.tool"
#: Every attribute key the span readers look at (the rest are never kept).
SPAN_ATTRIBUTES = frozenset((
    "gen_ai.operation.name", "gen_ai.tool.call.id", "gen_ai.tool.name",
    CONVERSATION_ID, SESSION_ID, "gen_ai.agent.id", "gen_ai.agent.name",
    "span.type", "tool_name", "tool_use_id",
))

_BOM = b"\xef\xbb\xbf"
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
    line = line.removeprefix(_BOM)
    if nested_past(line) is not None:  # too deeply nested, or no JSON: no object
        return False
    try:
        value = json.loads(line.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(value, dict)


def iter_json_values(lines: Iterable[bytes], account: LineAccount) -> Iterator[Any]:
    """Yield the top-level JSON values of an input, each counted as one item.

    JSON Lines when the first line with content is a JSON object on its own,
    or does not begin a JSON object or array (text that is no document):
    lines are read one at a time through :func:`~wavemetrics.readers._lines.iter_records`
    (blank lines ignored, bad lines counted as problems, only objects yielded).
    Otherwise the input is whole document(s) (pretty-printed, a compact array,
    or several values one after another, as the OTel console exporter
    writes): each top-level document is read alone
    (:func:`~wavemetrics.readers._documents.split_documents`, at most
    ``--max-document-bytes``) and is one item; one that fails to parse is a
    problem and reading resumes at the next (``docs/formats.md``, "Limits and
    hostile input"). A single document that fails to parse, and a document
    past the limits, set ``account.error`` (the input fails). The caller
    accounts every yielded value exactly once.
    """
    source = iter(lines)
    head: list[bytes] = []
    content = False
    for raw in source:
        head.append(raw)
        if raw.removeprefix(_BOM).strip():
            content = True
            break
    if (not content or head[-1] is LINE_TOO_LONG
            or not head[-1].removeprefix(_BOM).lstrip().startswith((b"{", b"["))
            or _first_line_is_object(head[-1])):
        yield from iter_records(chain(head, source), account)
        return
    documents = failed = 0
    reason: str | None = None
    try:
        for data in split_documents(chain(head, source), current_limits()):
            account.lines_read += 1
            documents += 1
            value, reason = parse_document(data)
            del data
            if reason is not None:
                failed += 1
                account.problem(reason)
                continue
            yield value
    except InputTooLargeError as exc:
        account.error = str(exc)
        return
    if documents == 1 and failed == 1:
        account.error = f"the JSON document does not parse ({reason})"


@attrs.frozen
class Call:
    """One span-shaped call: ms times; ``end_ms`` is ``None`` for a call with no end;
    ``batch``: the key of the model response that issued it, ``None`` when not known."""

    call_id: str
    tool_name: str
    start_ms: float
    end_ms: float | None
    batch: str | None = None


def feed_calls(lane: LaneBuilder, calls: Iterable[Call]) -> None:
    """Feed calls in order of start time (stable), each start immediately followed by its end.

    An end before its start is fed as is (the core counts a clock anomaly); a
    call with no end is a start alone (an incomplete call).
    """
    for call in sorted(calls, key=lambda c: c.start_ms):
        lane.start(call.call_id, call.tool_name, call.start_ms, call.batch)
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
    #: For an ``invoke_agent`` span: its lane key (``gen_ai.agent.id``, else
    #: ``gen_ai.agent.name``, else the span id); ``None`` for every other span.
    agent: str | None = None


#: The session of a span whose session attribute (on itself, an ancestor, its
#: resource or the one of its trace) is there but not usable id text: its tool
#: spans are ``invalid_id`` problems, never filed under another session
#: (``docs/formats.md``, "Limits and hostile input"). No usable id holds NUL.
BAD_SESSION = "\x00bad session id"


def session_attribute(attributes: dict[str, Any]) -> str | None:
    """``gen_ai.conversation.id``, else ``session.id``: the first that is a non-empty string.

    :data:`BAD_SESSION` when that first one is id text with a control character
    or a lone surrogate; ``None`` when there is none.
    """
    for key in (CONVERSATION_ID, SESSION_ID):
        raw = attributes.get(key)
        if bad_id(raw):
            return BAD_SESSION
        value = usable_id(raw)
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
    nothing); call id: ``gen_ai.tool.call.id``, else the span id. A session
    or call id attribute with a control character or an unpaired surrogate is
    ``invalid_id``. A missing
    start, or an end that is given but unusable, is ``invalid_timestamp``;
    no end at all leaves a start alone. Returns whether the span is usable.
    """
    if any(bad_id(attributes.get(key))
           for key in (CONVERSATION_ID, SESSION_ID, "gen_ai.tool.call.id")):
        account.problem("invalid_id")  # never replaced by another id (docs/formats.md)
        return False
    name = usable_text(attributes.get("gen_ai.tool.name"))
    if name is None and isinstance(span_name, str):
        name = usable_text(span_name.removeprefix(_TOOL_PREFIX))
    call_id = usable_id(attributes.get("gen_ai.tool.call.id"))
    return _tool_span(record, name, call_id, end_given, account)


def _tool_span(
    record: SpanRecord, name: str | None, call_id: str | None, end_given: bool,
    account: LineAccount,
) -> bool:
    if name is None:
        account.problem("invalid_tool_record")
        return False
    if record.start_ms is None or (end_given and record.end_ms is None):
        account.problem("invalid_timestamp")
        return False
    record.call_id = call_id or record.span_id
    record.tool_name = name
    return True


def is_claude_tool_span(attributes: dict[str, Any], span_name: object) -> bool:
    """Claude Code's own OTel tool span (beta): ``claude_code.tool``, or ``span.type == "tool"``.

    Its children (``claude_code.tool.execution``, ``claude_code.tool.blocked_on_user``)
    are parts of the call, not calls.
    """
    return span_name == CLAUDE_TOOL_SPAN or attributes.get("span.type") == "tool"


def mark_span(
    record: SpanRecord,
    attributes: dict[str, Any],
    span_name: object,
    end_given: bool,
    account: LineAccount,
) -> bool:
    """Mark ``record`` as what it is: a tool span, an agent span, or neither.

    A tool span is an ``execute_tool`` span (:func:`make_tool_span`) or a
    Claude Code ``claude_code.tool`` span (tool name ``tool_name``, call id
    ``tool_use_id`` else the span id, session ``session.id``, already on the
    record). An ``invoke_agent`` span gets its lane key in ``record.agent``.
    Returns ``False`` when a tool span is unusable (a problem was counted),
    so the caller drops it; ``True`` otherwise.
    """
    operation = attributes.get("gen_ai.operation.name")
    if operation == TOOL_OPERATION:
        return make_tool_span(record, attributes, span_name, end_given, account)
    if operation == AGENT_OPERATION:
        record.agent = (
            usable_id(attributes.get("gen_ai.agent.id"))
            or usable_id(attributes.get("gen_ai.agent.name"))
            or record.span_id
        )
        return True
    if operation is None and is_claude_tool_span(attributes, span_name):
        if bad_id(attributes.get("tool_use_id")) or bad_id(attributes.get(SESSION_ID)):
            account.problem("invalid_id")  # never replaced by another id (docs/formats.md)
            return False
        return _tool_span(
            record, usable_text(attributes.get("tool_name")),
            usable_id(attributes.get("tool_use_id")), end_given, account,
        )
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
    _trace_sessions: dict[str, str] | None = None
    _top_agent_counts: dict[str, int] | None = None

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
        """The span's session id: own attribute, ancestors in its trace, resource, the one
        conversation id of its trace, trace id (``docs/formats.md``, ``otlp``)."""
        return (
            span.session
            or self._ancestor_session(self._parent(span))
            or span.resource_session
            or self._trace_session(span.trace_id)
            or span.trace_id
        )

    def _trace_session(self, trace_id: str) -> str | None:
        # The one session attribute on the spans of a trace (say on a sibling
        # ``chat`` span, when the application drives the loop); none when 0 or 2+.
        if self._trace_sessions is None:
            found: dict[str, set[str]] = {}
            for span in self._spans:
                if span.session is not None:
                    found.setdefault(span.trace_id, set()).add(span.session)
            self._trace_sessions = {
                trace: next(iter(values)) for trace, values in found.items() if len(values) == 1
            }
        return self._trace_sessions.get(trace_id)

    def _ancestors(self, span: SpanRecord) -> Iterator[SpanRecord]:
        """The span's ancestors in its trace, nearest first (safe against parent cycles)."""
        seen = {(span.trace_id, span.span_id)}
        node = self._parent(span)
        while node is not None and (node.trace_id, node.span_id) not in seen:
            seen.add((node.trace_id, node.span_id))
            yield node
            node = self._parent(node)

    def _depth(self, span: SpanRecord) -> int:
        return sum(1 for _ in self._ancestors(span))

    def _agent_of(self, span: SpanRecord) -> SpanRecord | None:
        """The nearest ``invoke_agent`` span above ``span``, if any."""
        return next((node for node in self._ancestors(span) if node.agent is not None), None)

    def _lane_of(self, span: SpanRecord) -> str:
        """Lane id of a tool span: ``"main"`` with no agent above it, or when its agent is
        the only top-level agent of the trace; else the agent's key (``docs/formats.md``).

        Top-level: no agent span and no tool span above it (an agent below a tool span
        is an agent called as a tool, a lane of its own like a sub-agent).
        """
        agent = self._agent_of(span)
        if agent is None:
            return "main"
        assert agent.agent is not None
        if not self._nested(agent) and self._top_agents().get(agent.trace_id) == 1:
            return "main"
        return agent.agent

    def _nested(self, agent: SpanRecord) -> bool:
        # A sub-agent (an agent span above it) or an agent called as a tool (a tool span above).
        return any(
            node.agent is not None or node.call_id is not None for node in self._ancestors(agent)
        )

    def _top_agents(self) -> dict[str, int]:
        # How many top-level (not nested) invoke_agent spans each trace has.
        if self._top_agent_counts is None:
            counts: dict[str, int] = {}
            for span in self._spans:
                if span.agent is not None and not self._nested(span):
                    counts[span.trace_id] = counts.get(span.trace_id, 0) + 1
            self._top_agent_counts = counts
        return self._top_agent_counts

    def _outer_copy(self, span: SpanRecord) -> SpanRecord | None:
        """The nearest tool span above ``span`` with the same tool name and no agent span
        between them (the GenAI and MCP client spans around an MCP server span)."""
        for node in self._ancestors(span):
            if node.agent is not None:
                return None
            if node.call_id is not None and node.tool_name == span.tool_name:
                return node
        return None

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

    def _copies(self) -> list[list[SpanRecord]]:
        """Tool spans grouped by call: one group per call, in input order of first span.

        Two tool spans are copies of one call when they share a call id in one
        session, or when one lies below the other with the same tool name and no
        agent span between (``docs/formats.md``, duplicate spans); copies of
        copies are one group (union-find over span indices).
        """
        tools = [span for span in self._spans if span.call_id is not None]
        root: dict[int, int] = {span.index: span.index for span in tools}

        def find(index: int) -> int:
            while root[index] != index:
                root[index] = root[root[index]]
                index = root[index]
            return index

        def join(a: int, b: int) -> None:
            ra, rb = find(a), find(b)
            if ra != rb:
                root[max(ra, rb)] = min(ra, rb)

        by_call: dict[tuple[str, str], int] = {}
        for span in tools:
            assert span.call_id is not None
            key = (self.session_of(span), span.call_id)
            if key in by_call:
                join(span.index, by_call[key])
            else:
                by_call[key] = span.index
            outer = self._outer_copy(span)
            if outer is not None:
                join(span.index, outer.index)
        groups: dict[int, list[SpanRecord]] = {}
        for span in tools:
            groups.setdefault(find(span.index), []).append(span)
        return list(groups.values())

    def lanes(self, path: str, account: LineAccount, sink: ObservationSink) -> None:
        """Feed ``sink`` the lanes of the tool spans, in order of their first tool span.

        Duplicate spans of one call are reduced to the innermost
        (``ignored["duplicate_span"]`` for the others, :meth:`_copies`); each
        call goes to the lane of the nearest ``invoke_agent`` above it
        (:meth:`_lane_of`), keyed with its session. Then a zero-length span, or
        one that shares exactly its parent's start and end together with at
        least one sibling tool span, is set aside (``ignored["synthetic_timing"]``);
        the rest are used and fed in order of start time. Only sessions and
        agents that have tool spans get a lane (``docs/formats.md``: no 0-call lanes).
        """
        winners: list[SpanRecord] = []
        for copies in self._copies():
            best = min(copies, key=self._rank) if len(copies) > 1 else copies[0]
            for _ in range(len(copies) - 1):
                account.ignore("duplicate_span")
            winners.append(best)
        winners.sort(key=lambda span: span.index)  # input order, for the stable sort
        copied = self._copied_timing(winners)
        builders: dict[tuple[str, str], LaneBuilder] = {}
        calls: dict[tuple[str, str], list[Call]] = {}
        for span in winners:
            assert span.call_id is not None and span.tool_name is not None
            assert span.start_ms is not None
            session = self.session_of(span)
            if session == BAD_SESSION:
                account.problem("invalid_id")
                continue
            key = (session, self._lane_of(span))
            if key not in builders:
                builders[key] = LaneBuilder(path, *key, sink=sink)
                calls[key] = []
            if span.end_ms == span.start_ms or span.index in copied:
                account.ignore("synthetic_timing")
                continue
            account.use()
            calls[key].append(Call(span.call_id, span.tool_name, span.start_ms, span.end_ms))
        for key, builder in builders.items():
            feed_calls(builder, calls[key])
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
