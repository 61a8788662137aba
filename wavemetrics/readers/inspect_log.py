"""The ``inspect`` reader: Inspect AI eval logs (``spec/formats.md``, ``inspect``).

Two containers: a ``.json`` eval log (one JSON document with ``eval`` and
``samples``, parsed whole: the stdlib has no streaming JSON parser), and a
``.eval`` zip archive (``header.json``, ``_journal/start.json``,
``samples/<id>_epoch_<n>.json``), read one sample member at a time with the
stdlib :mod:`zipfile`.

Each sample is a session, ``session_id = "<eval_id>/<sample id>/<epoch>"``
(``eval.eval_id``; in an archive from ``header.json``, else
``_journal/start.json``; else the file name without its suffix), one lane
``"main"``, reported also when it has no tool call. A call is an event of the
sample's ``events`` list with ``event == "tool"``: call id ``id``, tool name
``function``, start ``timestamp``, end ``completed`` (ISO-8601 with offset);
``completed`` missing or ``null`` makes a start alone (incomplete). Calls are
fed in order of start time. Tool events nested inside another event's
``events`` (sub-agent work in older logs) are not calls of the sample's
lane: they are counted in ``notes["nested_tool_events"]``.

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
from collections.abc import Iterator
from itertools import chain
from typing import IO, Any

from wavemetrics.readers._lines import LineAccount, usable_text
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._spans import (
    Call,
    feed_calls,
    iter_json_values,
    peek_text,
    split_item,
)
from wavemetrics.readers.lanes import LaneBuilder
from wavemetrics.readers.sources import Source, file_stem
from wavemetrics.timestamps import iso_to_ms

__all__ = ["INSPECT", "read_inspect", "sniff_inspect"]

FORMAT = "inspect"
_ZIP_MAGIC = b"PK\x03\x04"
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


def _eval_id(document: object) -> str | None:
    header = document.get("eval") if isinstance(document, dict) else None
    return usable_text(header.get("eval_id")) if isinstance(header, dict) else None


def _sample_key(sample: dict[str, Any]) -> tuple[str, int] | None:
    sample_id, epoch = sample.get("id"), sample.get("epoch")
    if isinstance(sample_id, bool) or isinstance(epoch, bool) or not isinstance(epoch, int):
        return None
    if isinstance(sample_id, int):
        return str(sample_id), epoch
    text = usable_text(sample_id)
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


def _tool_call(event: dict[str, Any], account: LineAccount) -> Call | None:
    call_id, name = usable_text(event.get("id")), usable_text(event.get("function"))
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
    account.use()
    return Call(call_id, name, start_ms, end_ms)


class _Log:
    """Lanes of one input, one per sample session, in order of first appearance."""

    def __init__(self, path: str, sink: ObservationSink) -> None:
        self.path = path
        self.sink = sink
        self.lanes: dict[str, LaneBuilder] = {}

    def sample(self, sample: object, eval_id: str, account: LineAccount) -> None:
        """Account one sample (already counted as one item) and feed its calls."""
        key = _sample_key(sample) if isinstance(sample, dict) else None
        if key is None:
            account.problem("invalid_sample")
            return
        assert isinstance(sample, dict)
        session_id = f"{eval_id}/{key[0]}/{key[1]}"
        lane = self.lanes.get(session_id)
        if lane is None:
            lane = self.lanes[session_id] = LaneBuilder(
                self.path, session_id, "main", sink=self.sink
            )
        events = sample.get("events")
        if events is None or events == []:
            account.ignore("no_events")
            return
        if not isinstance(events, list):
            account.problem("invalid_structure")
            return
        split_item(account, len(events))
        calls = []
        for event in events:
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
            if kind != "tool":
                account.ignore(kind)
                continue
            call = _tool_call(event, account)
            if call is not None:
                calls.append(call)
        feed_calls(lane, calls)

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


def _parse_member(data: bytes) -> tuple[Any, str | None]:
    try:
        return json.loads(data.decode("utf-8")), None
    except UnicodeDecodeError:
        return None, "invalid_utf8"
    except RecursionError:
        return None, "too_deeply_nested"
    except ValueError:
        return None, "invalid_json"


def _archive_eval_id(archive: zipfile.ZipFile, names: set[str]) -> str | None:
    for name in _HEADERS:
        if name not in names:
            continue
        try:
            document, _ = _parse_member(archive.read(name))
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
        eval_id = _archive_eval_id(archive, set(archive.namelist())) or fallback_id
        if not members:
            account.lines_read += 1
            account.ignore("no_samples")
        for info in members:
            account.lines_read += 1
            try:
                data = archive.read(info)
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
            data = b"".join([*head, *lines])
            error = _read_archive(io.BytesIO(data), log, fallback_id, account)
        else:
            error = None
            for document in iter_json_values(chain(head, lines), account):
                log.document(document, fallback_id, account)
    if error is not None and source.error is None:
        source.error = error
    log.build()
    return account


#: The ``inspect`` format (``spec/formats.md``).
INSPECT = FileFormat("inspect", sniff_inspect, read_inspect)
