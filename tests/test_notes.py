"""The stderr notes' wording (wavemetrics.views.notes): the rules it applies without re or
collections (docs/performance-history.md, "Eleventh round")."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from wavemetrics.inputs._files import SIDECAR_REASON
from wavemetrics.views import notes

#: The pattern the notes matched old-layout sub-agent files with before the lean
#: start-up: the reference of notes._old_agent_file.
_OLD_AGENT_FILE = re.compile(r"agent-[0-9a-f]{8}\.jsonl(\.gz)?")


def test_old_layout_agent_files_by_hand() -> None:
    assert notes._old_agent_file("agent-0123abcd.jsonl")
    assert notes._old_agent_file("agent-ffffffff.jsonl.gz")
    assert not notes._old_agent_file("agent-0123ABCD.jsonl")  # lowercase hex only
    assert not notes._old_agent_file("agent-0123abc.jsonl")  # 7 digits
    assert not notes._old_agent_file("agent-0123abcde.jsonl")  # 9 digits
    assert not notes._old_agent_file("agent-0123abcd.jsonl.gz.gz")
    assert not notes._old_agent_file("agent-0123abcd.json")
    assert not notes._old_agent_file("xagent-0123abc.jsonl")
    assert not notes._old_agent_file("agent-0123abcd.jsonlx")
    assert not notes._old_agent_file("agent-0123abcd.gz")
    assert not notes._old_agent_file("")


_NAME_PARTS = st.sampled_from(["agent-", "0", "9", "a", "f", "g", "A", ".jsonl", ".gz", "-",
                               "٣", "x"])


@given(st.lists(_NAME_PARTS, max_size=14).map("".join) | st.text(max_size=30))
@example("agent-٣123abcd.jsonl")  # a non-ASCII digit is no hex digit of the pattern
@example("agent-0123abcd.jsonl.gz")
def test_old_layout_agent_files_as_the_pattern_matched_them(name: str) -> None:
    assert notes._old_agent_file(name) == (_OLD_AGENT_FILE.fullmatch(name) is not None)


class _Skipped:
    def __init__(self, path: str, reason: str) -> None:
        self.path, self.reason = path, reason


def test_skipped_reasons_most_first_ties_in_order_met() -> None:
    """Counted per reason, most first; equal counts keep the order the reasons were first
    met in (what ``Counter.most_common`` gave)."""
    skipped = [_Skipped("/a/1", "b reason"), _Skipped("/a/2", SIDECAR_REASON),
               _Skipped("/b/3", "a reason"), _Skipped("/b/4", "a reason"),
               _Skipped("/c/5", SIDECAR_REASON), _Skipped("/c/6", "b reason"),
               _Skipped("/c/7", "c reason")]
    assert notes.skipped_note(skipped) == (
        "wavemetrics: note: skipped 7 files found in 3 folders, as they are not traces:"
        " 2 (b reason), 2 metadata sidecars (*.meta.json, written beside Claude Code"
        " sub-agents), 2 (a reason) and 1 (c reason); summarize --format json lists them")
    assert notes.skipped_note([_Skipped("/a/1", "x")]) == (
        "wavemetrics: note: skipped 1 file found in 1 folder, as it is not a trace: 1 (x);"
        " summarize --format json lists it")


def test_the_cap_advice_names_the_option_and_its_cost() -> None:
    """The words the loss line adds when the cap dropped calls (docs/cli.md)."""
    assert notes.cap_advice(2000) == (
        "past the cap of 2000 calls per lane; --max-tracked-calls 0 lifts it, at about 200"
        " bytes of memory per tracked call")
    assert notes.cap_advice(1) == (
        "past the cap of 1 call per lane; --max-tracked-calls 0 lifts it, at about 200"
        " bytes of memory per tracked call")
    assert notes.cap_advice(None).startswith("past the per-lane call cap; ")


def test_the_stated_memory_per_tracked_call_is_what_a_call_costs() -> None:
    """TRACKED_CALL_BYTES is a rough figure, so it must stay within a factor of 2 of what
    tracemalloc measures for the two ways a call is held: pending in summarize's
    stream (its entry and its id, a Claude Code-like 30-character string) and paired
    in the waves that waves and timeline keep (ToolCall and wave objects)."""
    import gc
    import tracemalloc

    from wavemetrics.core.observations import Observation
    from wavemetrics.core.stream import LaneStream
    from wavemetrics.core.waves import assemble_waves

    n = 20_000
    tracemalloc.start()
    try:
        stream = LaneStream(max_tracked_calls=None)
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(n):
            stream.start(f"toolu_01{i:022d}", "Bash", float(i))
        gc.collect()
        pending = (tracemalloc.get_traced_memory()[0] - before) / n
        observations = [Observation(kind, f"toolu_01{i:022d}", "Bash", 10.0 * i + (kind == "end"))
                        for i in range(n) for kind in ("start", "end")]
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        assembly = assemble_waves(observations, max_tracked_calls=None)
        gc.collect()
        kept = (tracemalloc.get_traced_memory()[0] - before) / n
    finally:
        tracemalloc.stop()
    assert len(assembly.waves) == n
    for measured in (pending, kept):
        assert notes.TRACKED_CALL_BYTES / 2 <= measured <= notes.TRACKED_CALL_BYTES * 2, measured
