"""The ``inspect`` reader: Inspect AI eval logs (``docs/formats.md``, ``inspect``).

Two containers: a ``.json`` eval log (one JSON document with ``eval`` and
``samples``, parsed whole: the stdlib has no streaming JSON parser), and a
``.eval`` zip archive (``header.json``, ``_journal/start.json``,
``samples/<id>_epoch_<n>.json``), read one sample member at a time with the
stdlib :mod:`zipfile`.

Each sample is a session, ``session_id = "<eval_id>/<sample id>/<epoch>"``
(``eval.eval_id``; in an archive from ``header.json``, else
``_journal/start.json``; else the file name without its suffix), with lane
``"main"``, reported also when it has no tool call. A call is an event of the
sample's ``events`` list with ``event == "tool"``: call id ``id``, tool name
``function``, start ``timestamp``, end ``completed`` (ISO-8601 with offset);
``completed`` missing or ``null`` makes a start alone (incomplete). Calls are
fed in order of start time, per lane. Tool events nested inside another
event's ``events`` (sub-agent work in older logs) are not calls of the
sample's lanes: they are counted in ``notes["nested_tool_events"]``.

Sub-agents (2026): a tool event inside a ``span_begin`` of ``type == "agent"``
(until its ``span_end``) belongs to that agent's lane: the span's ``name``,
``name#id`` when two agent spans of the sample share the name; the innermost
agent span wins. The event's ``span_id`` is followed up the spans'
``parent_id`` chain when it names a span of the sample (parallel agents
interleave their events in the list); otherwise the spans open at that point
of the list decide (*choice*, where the spec is silent on interleaving). The
handoff tool event that starts an agent is written before the agent's span
begins, so it stays in the parent's lane. An agent lane exists only when it
has a call (*choice*).

Batches: the tool events of a lane that follow one ``model`` event of that lane in the
sample's event list, up to the lane's next ``model`` event, are one batch (keyed by
the model event's place in the list); a tool event before its lane's first ``model``
event has none.

Duplicates: a sample seen before in the input (same id and epoch, in one log
or in two members of a ``.eval``) is one item ignored as
``duplicate_samples``, its events unread; a tool event whose ``id`` was
already used in the sample is ignored as ``repeated_tool_event`` (first wins).

Items (``lines_read``): each event of a sample; plus one item for a sample
with no event (``ignored["no_events"]``), for a sample without a usable
``id``/``epoch`` (``problems["invalid_sample"]``, its events unread), for a
log with no sample (``ignored["no_samples"]``), for a malformed ``samples`` or
``events`` value (``problems["invalid_structure"]``), and for an archive
member that cannot be read or parsed. Events: tool events used or
``invalid_tool_record`` / ``invalid_timestamp``; other events ignored by their
``event`` name; an event without one is ``missing_type``.
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator
from itertools import chain
from typing import IO, Any

import attrs

from wavemetrics.readers._lines import LINE_TOO_LONG, LineAccount, bad_id, usable_id, usable_text
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._spans import (
    Call,
    feed_calls,
    iter_json_values,
    peek_text,
    split_item,
)
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.readers.limits import (
    InputTooLargeError,
    current_limits,
    mib,
    too_deeply_nested,
)
from wavemetrics.readers.sources import Source, file_stem
from wavemetrics.readers.timestamps import iso_to_ms

__all__ = ["INSPECT", "read_inspect", "sniff_inspect"]

FORMAT = "inspect"
MAIN = "main"
_ZIP_MAGIC = b"PK\x03\x04"
_MEMBER_CHUNK = 1 << 20
_SAMPLES = "samples/"
_HEADERS = ("header.json", "_journal/start.json")
_LOG_HEAD = re.compile(r"\A\s*\{")
_LOG_KEYS = (re.compile(r'"eval"\s*:\s*\{'), re.compile(r'"eval_id"\s*:'))
# Errors a damaged or unusual archive member can raise while being read.
_MEMBER_ERRORS = (
    OSError, EOFError, zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error,
    NotImplementedError, RuntimeError, ValueError,
)


def _first_member_name(head: bytes) -> str | None:
    """File name in the first local header of a zip stream, if it starts with one."""
    if not head.startswith(_ZIP_MAGIC) or len(head) < 30:
        return None
    length = int.from_bytes(head[26:28], "little")
    return head[30:30 + length].decode("utf-8", errors="replace")


def _is_inspect_member(name: str) -> bool:
    return name in _HEADERS or name.startswith((_SAMPLES, "_journal/"))


def _eval_log_record(record: dict[str, Any]) -> bool:
    header = record.get("eval")
    return isinstance(header, dict) and "eval_id" in header


def sniff_inspect(peek: Peek) -> bool:
    """An Inspect eval log: a zip whose members are Inspect's (``.eval``), or JSON
    whose first record has ``eval.eval_id``, or text that opens a JSON object
    and shows ``"eval": {`` and ``"eval_id":`` (a pretty-printed ``.json`` log)."""
    lines, path = peek.lines, peek.path
    head = b"".join(lines)
    if head.startswith(_ZIP_MAGIC):
        if _regular_file(path):
            try:
                with zipfile.ZipFile(path) as archive:
                    return any(_is_inspect_member(n) for n in archive.namelist())
            except _MEMBER_ERRORS:
                pass
        name = _first_member_name(head)
        return name is not None and _is_inspect_member(name)
    if any(_eval_log_record(record) for record in peek.records):
        return True
    text = peek_text(lines)
    return _LOG_HEAD.match(text) is not None and all(key.search(text) for key in _LOG_KEYS)


def _fallback_eval_id(path: str) -> str:
    return file_stem(path)


#: Stands for an ``eval_id`` that is present but not usable id text (a control
#: character, a lone surrogate): its samples are ``invalid_id`` problems, never
#: filed under the file-name fallback (``docs/formats.md``, "Limits and hostile input").
BAD_EVAL_ID = "\x00bad eval_id"


def _eval_id(document: object) -> str | None:
    """The log's usable ``eval.eval_id``; :data:`BAD_EVAL_ID` for id text that is
    refused; ``None`` when there is none (the caller falls back to the file name)."""
    header = document.get("eval") if isinstance(document, dict) else None
    if not isinstance(header, dict):
        return None
    value = header.get("eval_id")
    return BAD_EVAL_ID if bad_id(value) else usable_id(value)


def _sample_key(sample: dict[str, Any]) -> tuple[str, int] | None:
    sample_id, epoch = sample.get("id"), sample.get("epoch")
    if isinstance(sample_id, bool) or isinstance(epoch, bool) or not isinstance(epoch, int):
        return None
    if isinstance(sample_id, int):
        return str(sample_id), epoch
    text = usable_id(sample_id)
    return None if text is None else (text, epoch)


def _nested_tool_events(event: dict[str, Any]) -> int:
    count = 0
    stack = [event.get("events")]
    while stack:
        children = stack.pop()
        if not isinstance(children, list):
            continue
        for child in children:
            if isinstance(child, dict):
                count += child.get("event") == "tool"
                stack.append(child.get("events"))
    return count


def _tool_call(
    event: dict[str, Any], seen: set[str], account: LineAccount, batch: str | None
) -> Call | None:
    """The call of a tool event, in ``batch``; ``None`` (and a count) for an unusable or
    repeated one.

    A tool event whose ``id`` was already used in the sample is ``repeated_tool_event``
    (first wins: the same call written twice must not join a wave with itself).
    """
    call_id, name = usable_id(event.get("id")), usable_text(event.get("function"))
    if call_id is None or name is None:
        account.problem("invalid_tool_record")
        return None
    start = event.get("timestamp")
    start_ms = iso_to_ms(start) if isinstance(start, str) else None
    completed = event.get("completed")
    end_ms = iso_to_ms(completed) if isinstance(completed, str) else None
    if start_ms is None or (completed is not None and end_ms is None):
        account.problem("invalid_timestamp")
        return None
    if call_id in seen:
        account.ignore("repeated_tool_event")
        return None
    seen.add(call_id)
    account.use()
    return Call(call_id, name, start_ms, end_ms, batch)


@attrs.define
class _AgentSpans:
    """The ``span_begin`` events of one sample: parents, and the lane of each agent span.

    Lane id of an agent span: its ``name``, or ``name#id`` when another agent span of
    the sample has the same name (``docs/formats.md``, ``inspect``); its id without a name.
    """

    parents: dict[str, str | None] = attrs.field(factory=dict)
    lanes: dict[str, str] = attrs.field(factory=dict)

    @classmethod
    def of(cls, events: list[Any]) -> _AgentSpans:
        spans = cls()
        names: dict[str, str] = {}
        for event in events:
            if not isinstance(event, dict) or event.get("event") != "span_begin":
                continue
            span_id = usable_text(event.get("id"))
            if span_id is None or span_id in spans.parents:
                continue
            spans.parents[span_id] = usable_text(event.get("parent_id"))
            if event.get("type") == "agent":
                names[span_id] = usable_text(event.get("name")) or span_id
        shared = Counter(names.values())
        for span_id, name in names.items():
            spans.lanes[span_id] = name if shared[name] == 1 else f"{name}#{span_id}"
        return spans

    def lane_of(self, event: dict[str, Any], open_spans: list[str]) -> str:
        """The lane of a tool event: the innermost agent span around it, else ``"main"``.

        The event's own ``span_id`` (the span it was created in) is followed up the
        ``parent_id`` chain when it names a span of the sample, so the events of agents
        running in parallel (interleaved in the list) keep their own agent; else the
        spans open at this point of the list (``span_begin`` .. ``span_end``) decide.
        """
        span_id = usable_text(event.get("span_id"))
        if span_id is not None and span_id in self.parents:
            seen: set[str] = set()
            node: str | None = span_id
            while node is not None and node not in seen:
                if node in self.lanes:
                    return self.lanes[node]
                seen.add(node)
                node = self.parents.get(node)
            return MAIN
        for node in reversed(open_spans):
            if node in self.lanes:
                return self.lanes[node]
        return MAIN


def _track_span(event: dict[str, Any], kind: str, open_spans: list[str]) -> None:
    """Keep the list of spans open at this point of the event list."""
    span_id = usable_text(event.get("id"))
    if span_id is None:
        return
    if kind == "span_begin":
        open_spans.append(span_id)
    elif span_id in open_spans:
        del open_spans[open_spans.index(span_id):]


class _Log:
    """Lanes of one input: per sample session, ``"main"`` and one per agent span with calls.

    A sample seen before (same id and epoch, in this log or another member of the
    archive) is counted as ``duplicate_samples`` and not read again.
    """

    def __init__(self, path: str, sink: ObservationSink) -> None:
        self.path = path
        self.sink = sink
        self.lanes: dict[tuple[str, str], LaneBuilder] = {}
        self.samples: set[str] = set()

    def sample(self, sample: object, eval_id: str, account: LineAccount) -> None:
        """Account one sample (already counted as one item) and feed its calls."""
        key = _sample_key(sample) if isinstance(sample, dict) else None
        if key is None:
            account.problem("invalid_sample")
            return
        if eval_id == BAD_EVAL_ID:
            account.problem("invalid_id")
            return
        assert isinstance(sample, dict)
        session_id = f"{eval_id}/{key[0]}/{key[1]}"
        if session_id in self.samples:
            account.ignore("duplicate_samples")
            return
        self.samples.add(session_id)
        main = self.lanes[(session_id, MAIN)] = LaneBuilder(
            self.path, session_id, MAIN, sink=self.sink)
        events = sample.get("events")
        if events is None or events == []:
            account.ignore("no_events")
            return
        if not isinstance(events, list):
            account.problem("invalid_structure")
            return
        split_item(account, len(events))
        agents = _AgentSpans.of(events)
        open_spans: list[str] = []
        calls: dict[str, list[Call]] = {MAIN: []}
        seen_ids: set[str] = set()
        batches: dict[str, str] = {}  # per lane, the key of its last model event
        for index, event in enumerate(events):
            if not isinstance(event, dict):
                account.problem("not_an_object")
                continue
            kind = event.get("event")
            if not isinstance(kind, str):
                account.problem("missing_type")
                continue
            nested = _nested_tool_events(event)
            if nested:
                account.note("nested_tool_events", nested)
            if kind in ("span_begin", "span_end"):
                _track_span(event, kind, open_spans)
            if kind == "model":  # the model response that issues the lane's next calls
                batches[agents.lane_of(event, open_spans)] = str(index)
            if kind != "tool":
                account.ignore(kind)
                continue
            lane_id = agents.lane_of(event, open_spans)
            call = _tool_call(event, seen_ids, account, batches.get(lane_id))
            if call is not None:
                calls.setdefault(lane_id, []).append(call)
        for lane_id, lane_calls in calls.items():
            if lane_id == MAIN:
                lane = main
            elif lane_calls:
                lane = self.lanes[(session_id, lane_id)] = LaneBuilder(
                    self.path, session_id, lane_id, sink=self.sink)
            feed_calls(lane, lane_calls)

    def document(self, document: object, fallback_id: str, account: LineAccount) -> None:
        """Account one ``.json`` eval log (already counted as one item)."""
        if not isinstance(document, dict):
            account.problem("not_an_object")
            return
        samples = document.get("samples")
        if samples is None or samples == []:
            account.ignore("no_samples")
            return
        if not isinstance(samples, list):
            account.problem("invalid_structure")
            return
        eval_id = _eval_id(document) or fallback_id
        split_item(account, len(samples))
        for sample in samples:
            self.sample(sample, eval_id, account)

    def build(self) -> None:
        for lane in self.lanes.values():
            lane.build()


def _parse_member(data: bytes | bytearray) -> tuple[Any, str | None]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "invalid_utf8"
    if too_deeply_nested(text, json.loads):  # MAX_JSON_DEPTH, json's first failure
        return None, "too_deeply_nested"
    try:
        return json.loads(text), None
    except RecursionError:  # a safety net: not reached below the limit
        return None, "too_deeply_nested"
    except ValueError:
        return None, "invalid_json"


def _read_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo | str) -> bytearray:
    """A member's bytes, decompressed in chunks and counted: raises
    :class:`~wavemetrics.readers.limits.InputTooLargeError` past ``max_document_bytes``
    (whatever size the archive claims), so a zip bomb stops at the limit."""
    limit = current_limits().max_document_bytes
    data = bytearray()
    with archive.open(member) as stream:
        while chunk := stream.read(_MEMBER_CHUNK):
            data += chunk
            if len(data) > limit:
                raise InputTooLargeError(
                    f"an archive member inflates past {mib(limit)} (--max-document-bytes):"
                    " not read further"
                )
    return data  # not copied to bytes: a member may be hundreds of MiB


def _archive_eval_id(archive: zipfile.ZipFile, names: set[str]) -> str | None:
    for name in _HEADERS:
        if name not in names:
            continue
        try:
            document, _ = _parse_member(_read_member(archive, name))
        except _MEMBER_ERRORS:
            continue
        eval_id = _eval_id(document)
        if eval_id is not None:
            return eval_id
    return None


def _read_archive(
    stream: IO[bytes] | str, log: _Log, fallback_id: str, account: LineAccount
) -> str | None:
    """Read a ``.eval`` archive's samples; returns why the archive is unreadable, or ``None``."""
    try:
        archive = zipfile.ZipFile(stream)
    except _MEMBER_ERRORS as exc:
        account.lines_read += 1
        account.problem("invalid_archive")
        return f"not a readable .eval (zip) archive ({exc})"
    with archive:
        members = [info for info in archive.infolist()
                   if info.filename.startswith(_SAMPLES) and not info.is_dir()]
        try:
            eval_id = _archive_eval_id(archive, set(archive.namelist())) or fallback_id
        except InputTooLargeError as exc:
            return str(exc)
        if not members:
            account.lines_read += 1
            account.ignore("no_samples")
        for info in members:
            account.lines_read += 1
            try:
                data = _read_member(archive, info)
            except InputTooLargeError as exc:
                account.problem("member_too_large")
                return str(exc)
            except _MEMBER_ERRORS:
                account.problem("invalid_archive_member")
                continue
            sample, reason = _parse_member(data)
            del data
            if reason is not None:
                account.problem(reason)
                continue
            log.sample(sample, eval_id, account)
    return None


def _regular_file(path: str) -> bool:
    # Opened a second time by path: only a plain file, never stdin, a pipe
    # (read once, through Source) or a compressed file (Source decompresses).
    return path != "-" and not path.endswith(".gz") and os.path.isfile(path)


def _is_zip(source: Source) -> bool:
    if not _regular_file(source.path):
        return False
    try:
        with open(source.path, "rb") as file:
            return file.read(4) == _ZIP_MAGIC
    except OSError:
        return False


def _lines_start_zip(lines: Iterator[bytes]) -> tuple[bool, list[bytes]]:
    first = next(lines, None)
    if first is None:
        return False, []
    return first.startswith(_ZIP_MAGIC), [first]


def _gather(head: list[bytes], lines: Iterator[bytes]) -> bytearray | None:
    """The whole of a zip archive read from a stream (zip needs random access), or
    ``None`` past ``max_document_bytes``."""
    limit = current_limits().max_document_bytes
    data = bytearray()
    for line in chain(head, lines):
        if line is LINE_TOO_LONG or len(data) + len(line) > limit:
            return None
        data += line
    return data


def read_inspect(source: Source, sink: ObservationSink) -> LineAccount:
    """Read one Inspect eval log (``.json`` document or ``.eval`` archive) into ``sink``.

    A ``.eval`` file is opened by path; from stdin or a ``.gz`` file the archive
    is read into memory first (zip needs random access). An archive that cannot
    be opened at all sets ``source.error`` (the input is reported as failed).
    Never raises for bad data; returns the item account.
    """
    account = LineAccount()
    log = _Log(source.path, sink)
    fallback_id = _fallback_eval_id(source.path)
    if _is_zip(source):
        error = _read_archive(source.path, log, fallback_id, account)
    else:
        lines = source.lines()
        is_zip, head = _lines_start_zip(lines)
        if is_zip:
            data = _gather(head, lines)
            if data is None:
                account.lines_read += 1
                account.problem("archive_too_large")
                error = (f"a zip archive read from a stream runs past"
                         f" {mib(current_limits().max_document_bytes)} (--max-document-bytes)")
            else:
                error = _read_archive(io.BytesIO(data), log, fallback_id, account)
        else:
            error = None
            for document in iter_json_values(chain(head, lines), account):
                log.document(document, fallback_id, account)
    if error is not None and source.error is None:
        source.error = error
    log.build()
    return account


#: The ``inspect`` format (``docs/formats.md``).
INSPECT = FileFormat("inspect", sniff_inspect, read_inspect, timing="execution")
