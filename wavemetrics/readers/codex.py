"""The ``codex`` reader: Codex CLI rollouts, ``rollout-*.jsonl`` (``docs/formats.md``).

Each line is ``{"timestamp", "type", "payload"}``. One lane, ``"main"``, keyed
by the ``payload.id`` of the first ``session_meta`` with a non-empty id (else
the UUID that ends the file name). A start is the line ``timestamp`` of a
``response_item`` whose ``payload.type`` is ``function_call``,
``custom_tool_call`` or ``local_shell_call``; an end is the line ``timestamp``
of the ``function_call_output``/``custom_tool_call_output`` with the same
``call_id``. Observations are fed in file order; a call id's first start and
first end win, repeats are ignored and counted.

Rules that change numbers (all from ``docs/formats.md`` unless marked *choice*):

- Batched writes (0.4x): when a call's end equals its start (in ms) and the
  output is a JSON string with a number ``metadata.duration_seconds >= 0``, the
  start becomes ``end - duration``; the seconds are converted to ms exactly
  (decimal) before the one float subtraction (*choice*). Counted in
  ``notes["batched_write_duration_applied"]``; an equal end without a usable
  duration leaves a zero-length call, counted in
  ``notes["batched_write_no_duration"]``.
- Fork replay: when the first ``session_meta`` names ``forked_from_id``, the
  records after it are the parent's replayed history (``ignored["replayed_items"]``)
  up to the first ``turn_context`` whose ``payload.turn_id`` is a UUIDv7 minted
  at or after the fork's creation: the UUIDv7 time of the fork's own id, else
  its ``payload.timestamp`` truncated to whole ms, because UUIDv7 times are
  whole ms (*choice*). That ``turn_context`` is used. If the file ends with no
  boundary while some turn id was dated (all before the fork), every record
  after the ``session_meta`` is replay (*choice*: the fork never got a turn of
  its own). If no turn id can be dated, nothing is skipped and
  ``notes["fork_boundary_unknown"]`` is 1. Replayed records are held as
  ``(call_id, tool_name, time)`` only until the boundary decides their fate.
- *Choice*: a line's ``timestamp`` is checked only where it is used (tool
  starts and ends), as in the ``claude-code`` reader: a non-tool line with a
  bad time is ignored by type, not a problem. Times must be ISO-8601 strings
  with ``Z`` or an offset.
- *Choice*: ``measured_turn_duration_ms_total`` is 0: the spec names no turn
  source for Codex (``task_started``/``task_complete`` are not persisted by 0.4x).
- 2026 shapes: a ``function_call`` with ``namespace`` ``mcp__<server>`` is named
  ``mcp__<server>__<name>`` (other namespaces keep ``name``); a
  ``tool_search_call`` run by the harness (``execution`` not ``"server"``) with a
  ``call_id`` is a call ended by the ``tool_search_output`` with that id; Code
  Mode's ``exec`` cell and ``wait`` (namespace ``functions`` or none) are named
  ``exec:code_mode`` and ``wait:code_mode`` so that the default eval names
  classify them as eval (*choice*: the renaming keeps the rule inside the reader
  and holds in every view; a custom ``--eval-tool`` list decides for itself).
- Batches: a call's batch is the maximal run of consecutive call items
  (``function_call``, ``custom_tool_call``, ``local_shell_call``, a harness-run
  ``tool_search_call``) it belongs to, in file order; any other ``response_item``
  line ends the run; other lines neither join nor end one. The key is the run's
  number in the file.
- Other ``response_item`` kinds (``web_search_call``, ``image_generation_call``,
  server-side or id-less tool search, ...) and every ``event_msg``
  (``exec_command_end``, ...) are ignored, counted as
  ``"response_item.<type>"``/``"event_msg.<type>"``; other envelopes by ``type``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import attrs

from wavemetrics.core.observations import Observation
from wavemetrics.readers._lines import LineAccount, bad_id, iter_records, usable_id, usable_text
from wavemetrics.readers._protocol import FileFormat, ObservationSink, Peek
from wavemetrics.readers._record_types import CODEX_ENVELOPE_TYPES, CODEX_TYPES
from wavemetrics.readers._uuids import uuid7_ms
from wavemetrics.readers.lanes import LaneBuilder, finish_single_lane
from wavemetrics.readers.limits import nested_past
from wavemetrics.readers.sources import Source, head_records
from wavemetrics.readers.timestamps import iso_to_ms

__all__ = [
    "CODEX",
    "CODEX_TYPES",
    "CODE_MODE_SUFFIX",
    "CodexReader",
    "embedded_duration_ms",
    "read_codex",
    "sniff_codex",
    "tool_name",
]

FORMAT = "codex"
_START_TYPES = frozenset(
    ("function_call", "custom_tool_call", "local_shell_call", "tool_search_call")
)
_END_TYPES = frozenset(("function_call_output", "custom_tool_call_output", "tool_search_output"))
# Tool search (2026) is a call only when the harness runs it: not "server", with a call_id.
_TOOL_SEARCH = frozenset(("tool_search_call", "tool_search_output"))
_MCP_NAMESPACE = "mcp__"
#: Code Mode (2026): the ``exec`` cell, inside which the model's code runs other tools,
#: and its ``wait`` companion, in the ``functions`` namespace (or none).
_CODE_MODE = frozenset(("exec", "wait"))
_CODE_MODE_NAMESPACES = (None, "functions")
#: Suffix that makes Code Mode calls eval under the default eval names
#: (``docs/metrics.md`` section 4: a name ending in ``:code_mode``).
CODE_MODE_SUFFIX = ":code_mode"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def embedded_duration_ms(output: object) -> float | None:
    """``metadata.duration_seconds`` of a JSON output string, in ms; else ``None``.

    The number must be finite and ``>= 0`` (not a bool); it is converted to ms
    exactly and rounded once to a float. An output nesting past
    :data:`~wavemetrics.readers.limits.MAX_JSON_DEPTH` levels (counted from its
    own top value) has none, like one that is no JSON.

    >>> embedded_duration_ms('{"output": "", "metadata": {"duration_seconds": 1.1}}')
    1100.0
    >>> embedded_duration_ms("Plan updated") is None
    True
    """
    if not isinstance(output, str) or nested_past(output) is not None:
        # past the limit it is too deeply nested or, a syntax error first, no JSON
        return None
    try:
        document = _loads_decimal(output)
    except (ValueError, RecursionError, ArithmeticError):
        # ArithmeticError: a fraction Decimal cannot hold exactly (an exponent past
        # +-10**18, decimal.InvalidOperation) anywhere in the output
        return None
    metadata = document.get("metadata") if isinstance(document, dict) else None
    seconds = metadata.get("duration_seconds") if isinstance(metadata, dict) else None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, Decimal)):
        return None
    try:
        ms = float(Decimal(seconds).scaleb(3))
    except ArithmeticError:  # an exponent beyond the decimal context
        return None
    if seconds < 0 or not math.isfinite(ms):
        return None
    return ms


def _loads_decimal(text: str) -> Any:
    """``json.loads`` with decimal fractions kept exact and NaN/Infinity rejected."""
    return json.loads(text, parse_float=Decimal, parse_constant=_reject_constant)


@attrs.define
class _Snapshot:
    """The lane's bookkeeping when a fork's replay gate opened, to restore it."""

    observations: int
    start_names: dict[str, str]
    start_index: dict[str, int]
    ended: set[str]
    in_batch: bool


@attrs.define
class _Gate:
    """An open fork replay gate: records seen since the fork's ``session_meta``."""

    created_ms: int
    snapshot: _Snapshot
    account: LineAccount = attrs.field(factory=LineAccount)
    records: int = 0
    dated: bool = False


@attrs.define
class _Rollout:
    """One rollout being read. ``batches``: how many runs of call items (batches) have
    begun; ``in_batch``: whether the last ``response_item`` was a call item."""

    lane: LaneBuilder
    account: LineAccount
    start_index: dict[str, int] = attrs.field(factory=dict)
    session_id: str | None = None
    gate: _Gate | None = None
    batches: int = 0
    in_batch: bool = False

    def snapshot(self) -> _Snapshot:
        lane = self.lane
        return _Snapshot(
            len(lane.observations), dict(lane.start_names), dict(self.start_index),
            set(lane.ended), self.in_batch,
        )

    def restore(self, snapshot: _Snapshot) -> None:
        del self.lane.observations[snapshot.observations:]
        self.lane.start_names = snapshot.start_names
        self.lane.ended = snapshot.ended
        self.start_index = snapshot.start_index
        # replayed items neither join nor end a batch (the count only grows: keys stay unique)
        self.in_batch = snapshot.in_batch

    def step_batch(self, call: bool) -> str | None:
        """Follow the batches over one ``response_item`` line (``docs/formats.md``,
        ``codex``, "Batches"): a call item joins the current run (or begins one) and
        gets its key; any other item ends the run and gets ``None``."""
        if not call:
            self.in_batch = False
            return None
        if not self.in_batch:
            self.in_batch = True
            self.batches += 1
        return str(self.batches)


def _read_meta(payload: dict[str, Any], state: _Rollout, account: LineAccount) -> None:
    if state.session_id is not None:
        account.ignore("repeated_session_meta")
        return
    session_id = usable_id(payload.get("id"))
    if bad_id(payload.get("id")):  # never replaced by the file name (docs/formats.md)
        account.problem("invalid_id")
        return
    if session_id is None:
        account.problem("invalid_session_meta")
        return
    state.session_id = session_id
    account.use()
    forked_from = payload.get("forked_from_id")
    if not isinstance(forked_from, str) or not forked_from:
        return
    created = uuid7_ms(session_id)
    if created is None:
        stamp = payload.get("timestamp")
        created_at = iso_to_ms(stamp) if isinstance(stamp, str) else None
        created = None if created_at is None else math.floor(created_at)
    if created is None:
        account.note("fork_boundary_unknown")
        return
    state.gate = _Gate(created, state.snapshot())


def tool_name(payload: dict[str, Any], kind: str) -> str:
    """The tool name of a call item (``docs/formats.md``, ``codex``).

    ``payload.name``, else the item type. A ``namespace`` of ``mcp__<server>``
    is prefixed as earlier versions wrote it in ``name`` (so two servers' ``search``
    stay apart); other namespaces keep ``name``. Code Mode's ``exec`` and ``wait``
    (namespace ``functions`` or none) get :data:`CODE_MODE_SUFFIX`, so they
    classify as eval with the default eval names and no other name does.

    >>> tool_name({"name": "search", "namespace": "mcp__notes"}, "function_call")
    'mcp__notes__search'
    >>> tool_name({"name": "exec"}, "custom_tool_call"), tool_name({}, "local_shell_call")
    ('exec:code_mode', 'local_shell_call')
    """
    name = usable_text(payload.get("name"))
    if name is None:
        return kind
    namespace = payload.get("namespace")
    if isinstance(namespace, str) and namespace.startswith(_MCP_NAMESPACE) and len(
        namespace
    ) > len(_MCP_NAMESPACE) and not name.startswith(namespace + "__"):
        return f"{namespace}__{name}"
    if name in _CODE_MODE and (namespace in _CODE_MODE_NAMESPACES):
        return name + CODE_MODE_SUFFIX
    return name


def _harness_call(payload: dict[str, Any], item: str) -> bool:
    """Whether a response item is a call record: tool search only when the harness ran it
    (``execution`` other than ``"server"``) and it has a ``call_id``."""
    if item not in _TOOL_SEARCH:
        return True
    return payload.get("execution") != "server" and usable_text(payload.get("call_id")) is not None


def _read_call(record: dict[str, Any], payload: dict[str, Any], kind: str, state: _Rollout,
               account: LineAccount, batch: str | None) -> None:
    call_id = usable_id(payload.get("call_id"))
    if call_id is None:
        account.problem("invalid_tool_record")
        return
    timestamp = record.get("timestamp")
    at_ms = iso_to_ms(timestamp) if isinstance(timestamp, str) else None
    if at_ms is None:
        account.problem("invalid_timestamp")
        return
    lane = state.lane
    if kind in _START_TYPES:
        if call_id in lane.start_names:
            account.ignore("repeated_tool_call")
            return
        state.start_index[call_id] = len(lane.observations)
        lane.start(call_id, tool_name(payload, kind), at_ms, batch)
        account.use()
        return
    if call_id in lane.ended:
        account.ignore("repeated_tool_output")
        return
    lane.ended.add(call_id)
    lane.end(call_id, at_ms)
    account.use()
    index = state.start_index.get(call_id)
    if index is None or lane.observations[index].at_ms != at_ms:
        return
    # Batched write (0.4x): call and output flushed together after the call ran.
    duration = embedded_duration_ms(payload.get("output"))
    if duration is None or at_ms - duration < 0:
        account.note("batched_write_no_duration")
        return
    start = lane.observations[index]
    lane.observations[index] = Observation(
        start.kind, start.call_id, start.tool_name, at_ms - duration, start.batch
    )
    account.note("batched_write_duration_applied")


def _read_record(record: dict[str, Any], state: _Rollout, account: LineAccount) -> None:
    kind = record.get("type")
    if not isinstance(kind, str):
        account.problem("missing_type")
        return
    if kind not in CODEX_ENVELOPE_TYPES:
        account.ignore(kind)
        return
    payload = record.get("payload")
    if not isinstance(payload, dict):
        if kind == "response_item":
            state.step_batch(False)  # not a call item: it ends the batch
        account.problem("invalid_payload")
        return
    if kind == "session_meta":
        _read_meta(payload, state, account)
        return
    item = payload.get("type")
    if not isinstance(item, str):  # also keeps unhashable JSON values out of set lookups
        if kind == "response_item":
            state.step_batch(False)
        account.ignore(kind)
    elif kind == "response_item" and (item in _START_TYPES or item in _END_TYPES) and (
        _harness_call(payload, item)
    ):
        batch = state.step_batch(item in _START_TYPES)
        _read_call(record, payload, item, state, account, batch)
    elif kind == "turn_context":
        account.ignore(kind)
    else:
        if kind == "response_item":
            state.step_batch(False)
        account.ignore(f"{kind}.{item}")


def _boundary(record: dict[str, Any], gate: _Gate) -> bool:
    """Whether ``record`` is the fork's first own ``turn_context`` (and note dated ids)."""
    payload = record.get("payload")
    if record.get("type") != "turn_context" or not isinstance(payload, dict):
        return False
    minted = uuid7_ms(payload.get("turn_id"))
    if minted is None:
        return False
    gate.dated = True
    return minted >= gate.created_ms


def _close_gate(state: _Rollout, *, replayed: bool) -> None:
    gate = state.gate
    assert gate is not None
    state.gate = None
    account = state.account
    if replayed:
        state.restore(gate.snapshot)
        if gate.records:
            account.ignored["replayed_items"] += gate.records
        return
    # No turn id could be dated: keep everything read under the gate.
    account.lines_used += gate.account.lines_used
    account.ignored.update(gate.account.ignored)
    account.problems.update(gate.account.problems)
    account.notes.update(gate.account.notes)
    account.note("fork_boundary_unknown")


def read_codex(lines: Iterable[bytes], *, path: str, sink: ObservationSink) -> LineAccount:
    """Read one Codex rollout into its single lane of ``sink`` (none for an input
    with no records); returns the line account.

    ``lines``: raw physical lines. Problems: ``missing_type``,
    ``invalid_payload``, ``invalid_session_meta`` (a ``session_meta`` before the
    first one with an id), ``invalid_tool_record`` (no ``call_id``),
    ``invalid_timestamp``. Never raises for bad data.
    """
    reader = CodexReader(path, sink, LineAccount())
    reader.read(lines)
    reader.finish()
    return reader.state.account


class CodexReader:
    """The state of :func:`read_codex` between lines, so that a rollout can be read in
    pieces.

    ``state``: the rollout (its lane's kept observations, its session id, an open
    fork replay gate); ``seen``: whether any record was read. ``account`` is exact
    after every line; the gate is decided by a later line or at :meth:`finish`.
    """

    def __init__(self, path: str, sink: ObservationSink, account: LineAccount) -> None:
        self.path = path
        # batch only: the batched-write rule rewrites a start after its output is read
        lane = LaneBuilder(path, "", "main", batch_only=True, sink=sink)
        self.state = _Rollout(lane, account)
        self.seen = False

    def read(self, lines: Iterable[bytes]) -> None:
        """Read ``lines`` (raw physical lines) on from the state left by earlier pieces."""
        state = self.state
        account = state.account
        for record in iter_records(lines, account):
            self.seen = True
            gate = state.gate
            if gate is None:
                _read_record(record, state, account)
            elif _boundary(record, gate):
                _close_gate(state, replayed=True)
                account.use()
            else:
                gate.records += 1
                _read_record(record, state, gate.account)

    @property
    def lane(self) -> LaneBuilder:
        return self.state.lane

    def finish(self) -> None:
        """Decide an open fork gate (the input is over) and close the lane, if any record."""
        state = self.state
        if state.gate is not None:
            _close_gate(state, replayed=state.gate.dated)
        if self.seen:  # a lane opened and never closed is not reported
            finish_single_lane(state.lane, state.session_id, self.path, state.account)


def _read_source(source: Source, sink: ObservationSink) -> LineAccount:
    return read_codex(source.lines(), path=source.path, sink=sink)


def sniff_codex(peek: Peek) -> bool:
    """Whether the first lines hold a Codex envelope: ``timestamp``, a known
    ``type`` and an object ``payload``."""
    for record in peek.records:
        kind = record.get("type")
        if (
            isinstance(kind, str)
            and kind in CODEX_TYPES
            and "timestamp" in record
            and isinstance(record.get("payload"), dict)
        ):
            return True
    return False


def session_cwd(path: str) -> str | None:
    """The ``payload.cwd`` of the rollout's ``session_meta`` (first lines), or ``None``:
    its project for ``summarize --by project`` (the registry row's rule)."""
    for record in head_records(path):
        payload = record.get("payload")
        if record.get("type") == "session_meta" and isinstance(payload, dict):
            return usable_text(payload.get("cwd"))
    return None


#: The ``codex`` format (``docs/formats.md``). Not streamed: the batched-write
#: rule rewrites a start after its output is read, so the lane is handed over
#: whole, in an order a stream may not take.
CODEX = FileFormat("codex", sniff_codex, _read_source, timing="message", streamable=False)
