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


#: One lane (main) of five calls, one after another but for the first two:
#: read a [1 s, 11 s], grep b [6 s, 16 s] (one wave: durations 10 + 10 s over a
#: 15 s span, saving 5 s, upper bound 1 x 10 s, one saved round trip), bash c
#: [20 s, 30 s], read d [40 s, 50 s], read e [60 s, 70 s]. With
#: ``--max-tracked-calls 3`` the cap holds a, b and c (paired plus pending
#: calls reach 3 before d starts): d and e are dropped (their ends are orphans),
#: leaving 3 paired calls in 2 waves, tool time 30 s.
CAPPED: list[Event] = [
    ("tool_execution_start", "a", "read", 1000, "main"),
    ("tool_execution_start", "b", "grep", 6000, "main"),
    ("tool_execution_end", "a", "read", 11000, "main"),
    ("tool_execution_end", "b", "grep", 16000, "main"),
    ("tool_execution_start", "c", "bash", 20000, "main"),
    ("tool_execution_end", "c", "bash", 30000, "main"),
    ("tool_execution_start", "d", "read", 40000, "main"),
    ("tool_execution_end", "d", "read", 50000, "main"),
    ("tool_execution_start", "e", "read", 60000, "main"),
    ("tool_execution_end", "e", "read", 70000, "main"),
]

#: The warning ``waves`` and ``timeline`` print on stderr for :data:`CAPPED` under
#: ``--max-tracked-calls 3``: the words of the ``summarize`` table's loss line.
CAPPED_WARNING = (
    "wavemetrics: warning: calls not counted: dropped 2 (figures are a lower bound):"
    " past the cap of 3 calls per lane; --max-tracked-calls 0 lifts it, at about 200"
    " bytes of memory per tracked call"
)


#: Lane main: eight model turns (each ``turn_start`` opens a batch), one call each but
#: T5: T1 read a [1000,1010], T2 grep b [1020,1030], T3 bash c [1040,1050], T4 read d
#: [1060,1070], T5 read e [1080,1090] and read f [1080,1095], T6 read g [1100,1110],
#: T7 glob h [1120,1130], T8 ls i [1140,1150]. Serial runs (docs/metrics.md section 9):
#: a b (ended by the bash turn), then d alone (ended by the two-call T5: not counted),
#: then g h i. Lane sub: reads j [2000,2010], k [2020,2030] before any turn_start: no
#: batch, so no run. Every gap between calls is 5 or 10 ms.
SERIAL_READS: list[Event] = [
    ("turn_start", None, None, 1000, "main"),
    ("tool_execution_start", "a", "read", 1000, "main"),
    ("tool_execution_end", "a", "read", 1010, "main"),
    ("turn_start", None, None, 1020, "main"),
    ("tool_execution_start", "b", "grep", 1020, "main"),
    ("tool_execution_end", "b", "grep", 1030, "main"),
    ("turn_start", None, None, 1040, "main"),
    ("tool_execution_start", "c", "bash", 1040, "main"),
    ("tool_execution_end", "c", "bash", 1050, "main"),
    ("turn_start", None, None, 1060, "main"),
    ("tool_execution_start", "d", "read", 1060, "main"),
    ("tool_execution_end", "d", "read", 1070, "main"),
    ("turn_start", None, None, 1080, "main"),
    ("tool_execution_start", "e", "read", 1080, "main"),
    ("tool_execution_start", "f", "read", 1080, "main"),
    ("tool_execution_end", "e", "read", 1090, "main"),
    ("tool_execution_end", "f", "read", 1095, "main"),
    ("turn_start", None, None, 1100, "main"),
    ("tool_execution_start", "g", "read", 1100, "main"),
    ("tool_execution_end", "g", "read", 1110, "main"),
    ("turn_start", None, None, 1120, "main"),
    ("tool_execution_start", "h", "glob", 1120, "main"),
    ("tool_execution_end", "h", "glob", 1130, "main"),
    ("turn_start", None, None, 1140, "main"),
    ("tool_execution_start", "i", "ls", 1140, "main"),
    ("tool_execution_end", "i", "ls", 1150, "main"),
    ("turn_end", None, None, 1160, "main"),
    ("tool_execution_start", "j", "read", 2000, "sub"),
    ("tool_execution_end", "j", "read", 2010, "sub"),
    ("tool_execution_start", "k", "read", 2020, "sub"),
    ("tool_execution_end", "k", "read", 2030, "sub"),
]
