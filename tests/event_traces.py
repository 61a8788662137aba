"""Small hand-written ``events`` traces for the axis and compare tests (``docs/formats.md``)."""

from __future__ import annotations

import json
from pathlib import Path

# (type, toolCallId, toolName, timestamp ms, agentId); call id None for turn events.
Event = tuple[str, str | None, str | None, float, str]

#: Lane main: wave {read [1000,1100], grep [1010,1040]} (saving 30, upper 65, rt 1),
#: wave {bash [1200,1250]}, eval_only wave {eval [1300,1400]}, mixed wave {eval
#: [1500,1600], read [1520,1560]}, turn 1000 -> 1700. Lane sub: wave {read
#: [2000,2010], read [2000,2020]} (saving 10, upper 15, rt 1).
TWO_LANES: list[Event] = [
    ("turn_start", None, None, 1000, "main"),
    ("tool_execution_start", "a", "read", 1000, "main"),
    ("tool_execution_start", "b", "grep", 1010, "main"),
    ("tool_execution_end", "b", "grep", 1040, "main"),
    ("tool_execution_end", "a", "read", 1100, "main"),
    ("tool_execution_start", "c", "bash", 1200, "main"),
    ("tool_execution_end", "c", "bash", 1250, "main"),
    ("tool_execution_start", "d", "eval", 1300, "main"),
    ("tool_execution_end", "d", "eval", 1400, "main"),
    ("tool_execution_start", "e", "eval", 1500, "main"),
    ("tool_execution_start", "f", "read", 1520, "main"),
    ("tool_execution_end", "f", "read", 1560, "main"),
    ("tool_execution_end", "e", "eval", 1600, "main"),
    ("turn_end", None, None, 1700, "main"),
    ("tool_execution_start", "g", "read", 2000, "sub"),
    ("tool_execution_start", "h", "read", 2000, "sub"),
    ("tool_execution_end", "g", "read", 2010, "sub"),
    ("tool_execution_end", "h", "read", 2020, "sub"),
]


def event_line(event: Event) -> str:
    """One JSON line of the ``events`` format for ``event``."""
    kind, call_id, name, at_ms, agent = event
    record: dict[str, object] = {"type": kind, "timestamp": at_ms, "agentId": agent}
    if call_id is not None:
        record["toolCallId"] = call_id
        record["toolName"] = name
    return json.dumps(record) + "\n"


def write_events(path: Path, events: list[Event], *, extra_lines: str = "") -> Path:
    """Write ``events`` (then ``extra_lines`` verbatim) to ``path``, creating folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(event_line(e) for e in events) + extra_lines, encoding="utf-8")
    return path


def saving_trial(path: Path, saving_ms: int) -> Path:
    """A trial with one non_eval wave: read [0,100] and grep [0,saving_ms] (0 < saving <= 100).

    Its modeled saving is ``saving_ms`` (durations 100 + s, span 100), its upper
    bound ``(100 + s) / 2``, one saved round trip, one multi-call wave, share 1.0.
    """
    return write_events(path, [
        ("tool_execution_start", "x", "read", 0, "main"),
        ("tool_execution_start", "y", "grep", 0, "main"),
        ("tool_execution_end", "y", "grep", saving_ms, "main"),
        ("tool_execution_end", "x", "read", 100, "main"),
    ])
