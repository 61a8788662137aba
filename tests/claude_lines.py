"""Claude Code transcript lines for the resumable-read tests (test_live, test_resume)."""

from __future__ import annotations

import json

__all__ = ["read_call"]


def read_call(call_id: str, start: int, end: int) -> bytes:
    """A Read call of session s1 from ``start`` to ``end`` seconds after
    2025-03-01T10:00:00Z (both under an hour): its ``tool_use`` and ``tool_result`` lines."""
    use = {"type": "assistant", "uuid": f"u-{call_id}", "sessionId": "s1",
           "timestamp": f"2025-03-01T10:{start // 60:02d}:{start % 60:02d}Z",
           "message": {"content": [{"type": "tool_use", "id": call_id, "name": "Read"}]}}
    result = {"type": "user", "uuid": f"r-{call_id}", "sessionId": "s1",
              "timestamp": f"2025-03-01T10:{end // 60:02d}:{end % 60:02d}Z",
              "message": {"content": [{"type": "tool_result", "tool_use_id": call_id}]}}
    return (json.dumps(use) + "\n" + json.dumps(result) + "\n").encode()
