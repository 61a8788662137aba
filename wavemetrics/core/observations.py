"""Observations and their pairing into tool calls (``docs/metrics.md`` section 1)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Literal, get_args

import attrs

__all__ = [
    "DEFAULT_MAX_TRACKED_CALLS",
    "Observation",
    "ObservationKind",
    "Pairing",
    "ToolCall",
    "WaveCounters",
    "observation_batch",
    "pair_observations",
    "validate_observation",
]

#: The v1 default cap on calls held at once (paired + pending).
DEFAULT_MAX_TRACKED_CALLS = 2000

#: What an observation marks: a call's start or its end.
ObservationKind = Literal["start", "end"]
_KINDS: tuple[str, ...] = get_args(ObservationKind)


@attrs.frozen
class Observation:
    """One start or end of a tool call, as a reader or host saw it.

    ``kind`` is ``"start"`` or ``"end"``; ``at_ms`` is milliseconds (any epoch,
    usually Unix). Nothing is validated on construction: :func:`assemble_waves`
    counts invalid observations as malformed instead of raising.

    >>> Observation(kind="start", call_id="c1", tool_name="bash", at_ms=0.0).kind
    'start'
    """

    kind: ObservationKind
    call_id: str
    tool_name: str
    at_ms: float
    #: On a start: the key of the model response that issued the call (its batch,
    #: ``docs/metrics.md`` section 9), or ``None`` when the format does not record it.
    batch: str | None = None


@attrs.frozen
class ToolCall:
    """A paired call: the closed interval ``[start_ms, end_ms]`` in ms.

    ``tool_name`` and ``batch`` (the issuing model response's key, or ``None``) are
    those of the call's start observation.
    """

    call_id: str
    tool_name: str
    start_ms: float
    end_ms: float
    batch: str | None = None


@attrs.frozen
class WaveCounters:
    """Quality counters of one assembly (``docs/metrics.md`` section 1).

    v1 properties: ``clock_anomalies``, ``dropped_calls``, ``incomplete_calls``.
    Extras: ``observed_calls``, ``paired_calls``, ``malformed_observations``,
    ``duplicate_starts``, ``orphan_ends``. They satisfy exactly
    ``observed_calls == paired_calls + incomplete_calls + dropped_calls +
    clock_anomalies + duplicate_starts``.
    """

    observed_calls: int = 0
    paired_calls: int = 0
    incomplete_calls: int = 0
    clock_anomalies: int = 0
    dropped_calls: int = 0
    malformed_observations: int = 0
    duplicate_starts: int = 0
    orphan_ends: int = 0


@attrs.frozen
class Pairing:
    """Result of :func:`pair_observations`: paired calls in pairing order, counters, and
    the start times (ms) of the calls still pending at the end (any order: only their
    earliest and latest are used, ``docs/metrics.md`` section 9, ``lane_span_ms``)."""

    calls: tuple[ToolCall, ...]
    counters: WaveCounters
    incomplete_starts_ms: tuple[float, ...] = ()


def _is_time(value: object) -> bool:
    # bool is an int subclass; v1 rejects it explicitly.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value) and value >= 0
    except OverflowError:  # an int too large for a float is not a usable time
        return False


def _field(item: object, name: str) -> object:
    # A missing attribute raises AttributeError, which validate_observation counts
    # as malformed like any other failing access (a missing key gives None).
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name)


def validate_observation(item: object) -> tuple[str, str, str, float] | None:
    """Return ``(kind, call_id, tool_name, at_ms)`` of a valid observation, else ``None``.

    Accepts an :class:`Observation`, any object with those four attributes, or a
    mapping with those four keys. Valid means (``docs/metrics.md`` section 1):
    kind exactly ``"start"``/``"end"``; call_id and tool_name non-empty ``str``;
    at_ms an ``int``/``float``, not ``bool``, finite and ``>= 0``. Never raises.

    >>> validate_observation({"kind": "end", "call_id": "a", "tool_name": "t", "at_ms": 5})
    ('end', 'a', 't', 5)
    >>> validate_observation({"kind": "end", "call_id": "a", "tool_name": "t", "at_ms": True})
    """
    try:
        kind = _field(item, "kind")
        call_id = _field(item, "call_id")
        tool_name = _field(item, "tool_name")
        at_ms = _field(item, "at_ms")
    except Exception:  # a hostile object whose attribute access raises
        return None
    if not isinstance(kind, str) or kind not in _KINDS:
        return None
    if not isinstance(call_id, str) or not call_id:
        return None
    if not isinstance(tool_name, str) or not tool_name:
        return None
    if not _is_time(at_ms):
        return None
    return kind, call_id, tool_name, at_ms  # type: ignore[return-value]


def observation_batch(item: object) -> str | None:
    """The batch key of a valid observation: its ``batch`` attribute or key when it is
    a non-empty ``str``, else ``None`` (absent, or not usable: never an error, since
    batches are extras that must not change a v1 figure). Never raises.

    >>> observation_batch({"batch": "msg_1"}), observation_batch({"batch": 3})
    ('msg_1', None)
    """
    try:
        batch = item.get("batch") if isinstance(item, Mapping) else item.batch  # type: ignore[attr-defined]
    except Exception:  # no such attribute, or a hostile object whose access raises
        return None
    return batch if isinstance(batch, str) and batch else None


def _check_cap(max_tracked_calls: int | None) -> int | None:
    if max_tracked_calls is None:
        return None
    if isinstance(max_tracked_calls, bool) or not isinstance(max_tracked_calls, int):
        raise TypeError("max_tracked_calls must be an int or None")
    if max_tracked_calls < 0:
        raise ValueError("max_tracked_calls must be >= 0 (0 or None: unbounded)")
    return max_tracked_calls or None


def pair_observations(
    observations: Iterable[object],
    *,
    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
) -> Pairing:
    """Pair start and end observations into calls, in input order.

    Rules of ``docs/metrics.md`` section 1: the cap counts paired plus pending
    calls (``None`` or ``0``: unbounded); a repeated pending start replaces the
    earlier one; an end with no pending start is an orphan; an end before its
    start is a clock anomaly and the call is excluded; a call id may be reused
    after pairing. Invalid elements are counted as malformed, never raised.

    Raises ``TypeError``/``ValueError`` only for a bad ``max_tracked_calls``.

    >>> p = pair_observations([
    ...     {"kind": "start", "call_id": "a", "tool_name": "read", "at_ms": 1},
    ...     {"kind": "end", "call_id": "a", "tool_name": "read", "at_ms": 4},
    ... ])
    >>> p.calls
    (ToolCall(call_id='a', tool_name='read', start_ms=1, end_ms=4, batch=None),)
    """
    cap = _check_cap(max_tracked_calls)
    pending: dict[str, tuple[str, float, str | None]] = {}
    paired: list[ToolCall] = []
    observed = malformed = dropped = duplicates = orphans = anomalies = 0
    for item in observations:
        valid = validate_observation(item)
        if valid is None:
            malformed += 1
            continue
        kind, call_id, tool_name, at_ms = valid
        if kind == "start":
            observed += 1
            if cap is not None and len(paired) + len(pending) >= cap:
                dropped += 1
                continue
            if call_id in pending:
                duplicates += 1
            pending[call_id] = (tool_name, at_ms, observation_batch(item))
            continue
        start = pending.pop(call_id, None)
        if start is None:
            orphans += 1
            continue
        start_name, start_ms, batch = start
        if at_ms < start_ms:
            anomalies += 1
            continue
        paired.append(ToolCall(call_id, start_name, start_ms, at_ms, batch))
    counters = WaveCounters(
        observed_calls=observed,
        paired_calls=len(paired),
        incomplete_calls=len(pending),
        clock_anomalies=anomalies,
        dropped_calls=dropped,
        malformed_observations=malformed,
        duplicate_starts=duplicates,
        orphan_ends=orphans,
    )
    return Pairing(tuple(paired), counters, tuple(start[1] for start in pending.values()))
