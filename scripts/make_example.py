"""Derive the bundled demo trace from a real Claude Code session of the trace corpus.

The demo is a *skeleton*: only record types, ids (an assistant line's
``message.id`` too: it is the batch key of its calls, ``docs/formats.md``,
``claude-code``), tool names, times and turn durations are kept. No prompt,
argument, result or other text leaves the corpus. Source: claude-code-log
project ``-experiments-worktrees``, session ef958aa1-0e93-49f0-bb71-150f63befcd1
with its six ``subagents/`` files (MIT, daaain/claude-code-log test data,
``test/test_data/real_projects/``).

Run from the repository root:  python scripts/make_example.py
(with ``WAVEMETRICS_CORPUS`` naming the corpus when it is not ``../shared/corpus``)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# the corpus: WAVEMETRICS_CORPUS, else ../shared/corpus beside the repository (tests/corpus.py)
CORPUS = Path(os.environ.get("WAVEMETRICS_CORPUS") or ROOT.parent / "shared" / "corpus")
PROJECT = CORPUS / "claude-code-log" / "-experiments-worktrees"
SESSION = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
OUT = ROOT / "wavemetrics" / "examples" / "claude-code-demo.jsonl"

_KEEP = ("type", "subtype", "uuid", "sessionId", "agentId", "isSidechain", "timestamp")


def skeleton(record: dict[str, Any]) -> dict[str, Any] | None:
    """The ids/names/times of one transcript line, or None if it holds no tool call or turn."""
    kind = record.get("type")
    out = {key: record[key] for key in _KEEP if key in record}
    if kind == "system" and record.get("subtype") == "turn_duration":
        out["durationMs"] = record.get("durationMs")
        return out
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if kind not in ("assistant", "user") or not isinstance(content, list):
        return None
    blocks = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if kind == "assistant" and block.get("type") == "tool_use":
            blocks.append({"type": "tool_use", "id": block["id"], "name": block["name"]})
        elif kind == "user" and block.get("type") == "tool_result":
            blocks.append({"type": "tool_result", "tool_use_id": block["tool_use_id"]})
    if not blocks:
        return None
    kept: dict[str, Any] = {"role": kind, "content": blocks}
    message_id = message.get("id") if isinstance(message, dict) else None
    if kind == "assistant" and isinstance(message_id, str) and message_id:
        kept = {"id": message_id, **kept}  # an id, not content: the calls' batch key
    out["message"] = kept
    return out


def main() -> int:
    subagents = sorted((PROJECT / SESSION / "subagents").glob("*.jsonl"))
    files = [PROJECT / f"{SESSION}.jsonl", *subagents]
    provenance = {
        "type": "wavemetrics-provenance",
        "source": "daaain/claude-code-log test data, project -experiments-worktrees, "
                  f"session {SESSION} and its subagents/ files (MIT)",
        "derived_by": "scripts/make_example.py",
        "kept": "record types, ids, tool names, times and turn durations only",
    }
    lines = [json.dumps(provenance)]
    for path in files:
        for raw in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(raw)
            kept = skeleton(record)
            if kept is not None:
                lines.append(json.dumps(kept))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(lines)} lines from {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
