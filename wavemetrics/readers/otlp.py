"""The ``otlp`` reader: OTLP/JSON trace files (``docs/formats.md``, ``otlp``).

Two layouts: the collector's file exporter writes one
``{"resourceSpans": [...]}`` document per line (read line by line, one batch
at a time); a single document, possibly pretty-printed over many lines, is
parsed whole (the stdlib has no streaming JSON parser), and only the few
fields of each span that the rules need are kept (``_spans.SpanRecord``).

A tool call is a span with attribute ``gen_ai.operation.name ==
"execute_tool"``: call id ``gen_ai.tool.call.id``, else the ``spanId``; tool
name ``gen_ai.tool.name``, else the span name without its ``execute_tool ``
prefix; times ``startTimeUnixNano``/``endTimeUnixNano`` (integer ns, JSON
number or decimal string). Session id, duplicate spans and synthetic timing:
:class:`~wavemetrics.readers._spans.SpanCollector`.

Items (``lines_read``): each span; plus each line or document that yields no
span (``ignored["no_spans"]``, or the top-level key of a non-trace record such
as ``resourceLogs``, else ``unknown_record``); plus each malformed container
(a ``resourceSpans``/``scopeSpans``/``spans`` entry of the wrong type,
``problems["invalid_structure"]``). Per span: ``invalid_span`` (not an
object), ``invalid_span_id`` (``traceId``/``spanId`` not 32/16 hex digits),
``invalid_tool_record`` (no usable tool name), ``invalid_timestamp`` (start
missing, 0 or malformed; end present but 0 or malformed). A tool span with no
``endTimeUnixNano`` at all is a start alone (incomplete call).
"""

from __future__ import annotations

import re
from typing import Any

from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._spans import (
    SPAN_ATTRIBUTES,
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

__all__ = ["OTLP", "read_otlp", "sniff_otlp"]

FORMAT = "otlp"
_TRACE_ID = re.compile(r"[0-9a-fA-F]{32}", re.ASCII)
_SPAN_ID = re.compile(r"[0-9a-fA-F]{16}", re.ASCII)
_WANTED = SPAN_ATTRIBUTES
# Other OTLP signals a collector may write to a file: known, not traces.
_OTHER_SIGNALS = ("resourceLogs", "resourceMetrics", "resourceProfiles")
# A document head at the start of the input or of a line (after a cut first document).
_DOCUMENT_HEAD = re.compile(r'(?:\A\s*|\n)\{\s*"resourceSpans"\s*:')


def sniff_otlp(peek: Peek) -> bool:
    """OTLP/JSON traces: the input starts with ``{"resourceSpans":`` (any layout,
    also pretty-printed), one of its first lines begins with it (the first document
    of a stream was cut), or one of its first records is such a document."""
    if _DOCUMENT_HEAD.search(peek_text(peek.lines)):
        return True
    return any("resourceSpans" in record for record in peek.records)


def _attributes(value: object) -> dict[str, Any]:
    """The wanted keys of an OTLP attribute list, with their ``stringValue``."""
    found: dict[str, Any] = {}
    if not isinstance(value, list):
        return found
    for entry in value:
        if not isinstance(entry, dict):
            continue
        key, inner = entry.get("key"), entry.get("value")
        if isinstance(key, str) and key in _WANTED and isinstance(inner, dict):
            found.setdefault(key, inner.get("stringValue"))
    return found


def _span(
    raw: object, resource_session: str | None, collector: SpanCollector, account: LineAccount
) -> None:
    if not isinstance(raw, dict):
        account.problem("invalid_span")
        return
    trace_id, span_id = raw.get("traceId"), raw.get("spanId")
    if not (isinstance(trace_id, str) and _TRACE_ID.fullmatch(trace_id)
            and isinstance(span_id, str) and _SPAN_ID.fullmatch(span_id)):
        account.problem("invalid_span_id")
        return
    parent = raw.get("parentSpanId")
    parent_id = parent.lower() if isinstance(parent, str) and _SPAN_ID.fullmatch(parent) else None
    attributes = _attributes(raw.get("attributes"))
    start_ms = ns_time_to_ms(raw.get("startTimeUnixNano"))
    end_raw = raw.get("endTimeUnixNano")
    end_ms = ns_time_to_ms(end_raw)
    record = SpanRecord(
        index=collector.next_index(),
        trace_id=trace_id.lower(),
        span_id=span_id.lower(),
        parent_id=parent_id,
        session=session_attribute(attributes),
        resource_session=resource_session,
        start_ms=start_ms,
        end_ms=end_ms,
    )
    if not mark_span(record, attributes, raw.get("name"), end_raw is not None, account):
        return
    collector.add(record, account)


def _read_document(document: object, collector: SpanCollector, account: LineAccount) -> None:
    """Account one top-level value (already counted as one item) and collect its spans."""
    if not isinstance(document, dict):
        account.problem("not_an_object")
        return
    if "resourceSpans" not in document:
        kind = next((key for key in _OTHER_SIGNALS if key in document), "unknown_record")
        account.ignore(kind)
        return
    items = 0
    resource_spans = document["resourceSpans"]
    for batch in resource_spans if isinstance(resource_spans, list) else [None]:
        if not isinstance(batch, dict):
            items += 1
            account.problem("invalid_structure")
            continue
        resource = batch.get("resource")
        resource_session = session_attribute(
            _attributes(resource.get("attributes")) if isinstance(resource, dict) else {}
        )
        scopes = batch.get("scopeSpans", batch.get("instrumentationLibrarySpans", []))
        for scope in scopes if isinstance(scopes, list) else [None]:
            spans = scope.get("spans", []) if isinstance(scope, dict) else None
            if not isinstance(spans, list):
                items += 1
                account.problem("invalid_structure")
                continue
            for raw in spans:
                items += 1
                _span(raw, resource_session, collector, account)
    if items == 0:
        account.ignore("no_spans")
    else:
        split_item(account, items)


def read_otlp(source: Source, sink: ObservationSink) -> LineAccount:
    """Read one OTLP/JSON input (JSON Lines of batches, or one document) into ``sink``.

    Feeds one lane ``"main"`` per session that has any span, also one with no
    tool span (it reports zero calls); returns the item account (module docstring).
    Never raises for bad data.
    """
    account = LineAccount()
    collector = SpanCollector()
    for document in iter_json_values(source.lines(), account):
        _read_document(document, collector, account)
    collector.lanes(source.path, account, sink)
    return account


#: The ``otlp`` format (``docs/formats.md``).
OTLP = FileFormat("otlp", sniff_otlp, read_otlp, timing="execution")
