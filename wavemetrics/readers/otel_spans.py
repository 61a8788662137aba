"""The ``otel-spans`` reader: OTel SDK span dicts (``docs/formats.md``, ``otel-spans``).

What ``ReadableSpan.to_json()`` writes and any-agent stores (``AgentTrace``):
a JSON document ``{"spans": [...], ...}`` (any-agent), a JSON array of span
dicts, span dicts one after another (the SDK console exporter's
pretty-printed stream) or one per line. A pretty-printed document is parsed
whole (no streaming JSON parser in the stdlib); only the few fields the rules
need are kept (``_spans.SpanRecord``), and other top-level keys (any-agent's
``final_output``) are never read.

Per span: ids from ``context.trace_id``/``context.span_id``, decimal integers
(any-agent) or ``0x``-prefixed hex strings (the SDK's own ``to_json``), both
written as lower-case hex like OTLP's (32 and 16 digits); the parent from
``parent.span_id`` (any-agent) or ``parent_id`` (SDK). ``attributes`` and
``resource.attributes`` are flat dicts. Times ``start_time``/``end_time`` are
integer ns (JSON integer or decimal string); the SDK's ISO-8601 strings with
``Z`` are accepted too. Tool spans, session id, duplicates and synthetic
timing follow ``otlp`` (:class:`~wavemetrics.readers._spans.SpanCollector`).

Items (``lines_read``): each span dict; plus each top-level value that holds
no span (``ignored["no_spans"]``, ``ignored["unknown_record"]``) or is
malformed (``problems["invalid_structure"]``). Per span: ``invalid_span``,
``invalid_span_id``, ``invalid_tool_record``, ``invalid_timestamp`` as in
``otlp``; an ``end_time`` that is missing or ``null`` makes a start alone.
"""

from __future__ import annotations

import re
from typing import Any

from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._spans import (
    SpanCollector,
    SpanRecord,
    iter_json_values,
    mark_span,
    ns_time_to_ms,
    peek_text,
    session_attribute,
    split_item,
)
from wavemetrics.readers.sources import Source
from wavemetrics.readers.timestamps import iso_to_ms

__all__ = ["OTEL_SPANS", "read_otel_spans", "sniff_otel_spans"]

FORMAT = "otel-spans"
_HEX_ID = re.compile(r"0[xX]([0-9a-fA-F]{1,32})", re.ASCII)
_TRACE_BITS, _SPAN_BITS = 128, 64
# Detection: JSON that opens with an object or array and whose first records
# carry the SDK span keys (unescaped, so text quoted inside strings never matches).
_OPENS_JSON = re.compile(r"\A\s*[\[{]")
_SPAN_KEYS = (
    re.compile(r'"context"\s*:\s*\{'),
    re.compile(r'"span_id"\s*:'),
    re.compile(r'"start_time"\s*:'),
)
_ANY_AGENT_HEAD = re.compile(r'\A\s*\{\s*"spans"\s*:\s*\[')


def _looks_like_span(value: object) -> bool:
    return isinstance(value, dict) and isinstance(value.get("context"), dict) and (
        "start_time" in value
    )


def sniff_otel_spans(peek: Peek) -> bool:
    """SDK span dicts: the first records are span dicts (or ``{"spans": [span, ...]}``),
    or the text opens like a JSON object/array and shows the span keys
    ``"context": {``, ``"span_id":`` and ``"start_time":`` (pretty-printed)."""
    for record in peek.records:
        spans = record.get("spans")
        if _looks_like_span(record) or (
            isinstance(spans, list) and spans and _looks_like_span(spans[0])
        ):
            return True
    text = peek_text(peek.lines)
    if _OPENS_JSON.match(text) is None or '"resourceSpans"' in text:
        return False
    return all(key.search(text) for key in _SPAN_KEYS)


def _hex_id(value: object, bits: int) -> str | None:
    """A decimal integer or ``0x`` hex string id as ``bits // 4`` lower-case hex digits."""
    if isinstance(value, str):
        match = _HEX_ID.fullmatch(value)
        if match is None:
            return None
        value = int(match.group(1), 16)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**bits:
        return None
    return format(value, f"0{bits // 4}x")


def _time_ms(value: object) -> float | None:
    if isinstance(value, str) and not value.isdigit():
        ms = iso_to_ms(value)
        return ms if ms else None  # the epoch itself is the "unset" 0
    return ns_time_to_ms(value)


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _span(raw: object, collector: SpanCollector, account: LineAccount) -> None:
    if not isinstance(raw, dict):
        account.problem("invalid_span")
        return
    context = _dict(raw.get("context"))
    trace_id = _hex_id(context.get("trace_id"), _TRACE_BITS)
    span_id = _hex_id(context.get("span_id"), _SPAN_BITS)
    if trace_id is None or span_id is None:
        account.problem("invalid_span_id")
        return
    parent = raw.get("parent")
    parent_raw = parent.get("span_id") if isinstance(parent, dict) else raw.get("parent_id")
    attributes = _dict(raw.get("attributes"))
    start_ms = _time_ms(raw.get("start_time"))
    end_raw = raw.get("end_time")
    end_ms = _time_ms(end_raw)
    record = SpanRecord(
        index=collector.next_index(),
        trace_id=trace_id,
        span_id=span_id,
        parent_id=_hex_id(parent_raw, _SPAN_BITS),
        session=session_attribute(attributes),
        resource_session=session_attribute(_dict(_dict(raw.get("resource")).get("attributes"))),
        start_ms=start_ms,
        end_ms=end_ms,
    )
    if not mark_span(record, attributes, raw.get("name"), end_raw is not None, account):
        return
    collector.add(record, account)


def _read_value(value: object, collector: SpanCollector, account: LineAccount) -> None:
    """Account one top-level value (already counted as one item) and collect its spans."""
    if isinstance(value, list):
        spans: object = value
    elif isinstance(value, dict) and "spans" in value:
        spans = value["spans"]
    elif isinstance(value, dict) and "context" in value:
        spans = [value]
    elif isinstance(value, dict):
        account.ignore("unknown_record")
        return
    else:
        account.problem("not_an_object")
        return
    if not isinstance(spans, list):
        account.problem("invalid_structure")
        return
    if not spans:
        account.ignore("no_spans")
        return
    split_item(account, len(spans))
    for raw in spans:
        _span(raw, collector, account)


def read_otel_spans(source: Source, sink: ObservationSink) -> LineAccount:
    """Read one input of OTel SDK span dicts into ``sink``.

    Feeds one lane ``"main"`` per session that has any span, also one with no
    tool span (it reports zero calls); returns the item account (module docstring).
    Never raises for bad data.
    """
    account = LineAccount()
    collector = SpanCollector()
    for value in iter_json_values(source.lines(), account):
        _read_value(value, collector, account)
    collector.lanes(source.path, account, sink)
    return account


#: The ``otel-spans`` format (``docs/formats.md``).
OTEL_SPANS = FileFormat(
    "otel-spans", sniff_otel_spans, read_otel_spans, timing="execution"
)
