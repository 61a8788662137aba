"""Where agents keep their session traces: what ``wavemetrics summarize`` reads with no PATH.

The standard locations, in this order, each only if it exists:

- Claude Code: ``$CLAUDE_CONFIG_DIR/projects`` (several directories may be given,
  separated by commas, as Claude Code and ccusage accept), else
  ``~/.claude/projects`` and ``$XDG_CONFIG_HOME/claude/projects``
  (``~/.config/claude/projects`` when ``XDG_CONFIG_HOME`` is unset);
- Codex: ``$CODEX_HOME/sessions``, else ``~/.codex/sessions``;
- pi: ``~/.pi/agent/sessions``;
- GitHub Copilot CLI: ``$COPILOT_HOME/session-state``, else ``~/.copilot/session-state``;
- Kimi CLI: ``$KIMI_SHARE_DIR/sessions``, else ``~/.kimi/sessions``;
- OpenClaw: ``$OPENCLAW_STATE_DIR/agents``, else ``~/.openclaw/agents`` (each agent's
  ``<agentId>/sessions/*.jsonl`` and ``<agentId>/agent/openclaw-agent.sqlite``), then
  its legacy ``~/.openclaw/sessions`` and the old brands' ``~/.clawdbot/agents``,
  ``~/.moltbot/agents`` and ``~/.moldbot/agents``;
- Qwen Code: ``<root>/projects`` for each root in ``$QWEN_DATA_DIR`` (separated by
  commas, as ccusage accepts), else ``~/.qwen/projects`` (``<project>/chats/*.jsonl``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["default_locations", "standard_locations"]


def standard_locations(env: Mapping[str, str], home: Path) -> list[tuple[str, Path]]:
    """Every standard location as ``(agent, directory)``, existing or not, in order (agents
    by their product names, not format names: a format is named only in its module)."""
    found: list[tuple[str, Path]] = []
    claude = [part.strip() for part in env.get("CLAUDE_CONFIG_DIR", "").split(",") if part.strip()]
    if claude:
        found.extend(("Claude Code", Path(part) / "projects") for part in claude)
    else:
        config = env.get("XDG_CONFIG_HOME") or str(home / ".config")
        found.append(("Claude Code", home / ".claude" / "projects"))
        found.append(("Claude Code", Path(config) / "claude" / "projects"))
    codex = env.get("CODEX_HOME")
    found.append(("Codex", (Path(codex) if codex else home / ".codex") / "sessions"))
    found.append(("pi coding agent", home / ".pi" / "agent" / "sessions"))
    copilot = env.get("COPILOT_HOME")
    found.append(("GitHub Copilot CLI",
                  (Path(copilot) if copilot else home / ".copilot") / "session-state"))
    kimi = env.get("KIMI_SHARE_DIR")
    found.append(("Kimi CLI", (Path(kimi) if kimi else home / ".kimi") / "sessions"))
    found.extend(_openclaw(env, home))
    qwen = [part.strip() for part in env.get("QWEN_DATA_DIR", "").split(",") if part.strip()]
    found.extend(("Qwen Code", Path(root) / "projects")
                 for root in (qwen or [str(home / ".qwen")]))
    return found


def _openclaw(env: Mapping[str, str], home: Path) -> list[tuple[str, Path]]:
    """OpenClaw's state folder (``OPENCLAW_STATE_DIR``), else its default and legacy ones."""
    state = env.get("OPENCLAW_STATE_DIR")
    if state:
        return [("OpenClaw", Path(state) / "agents")]
    return [("OpenClaw", home / ".openclaw" / "agents"),
            ("OpenClaw", home / ".openclaw" / "sessions"),
            *(("OpenClaw", home / old / "agents") for old in (".clawdbot", ".moltbot", ".moldbot"))]


def default_locations(
    env: Mapping[str, str] | None = None, home: Path | None = None
) -> list[tuple[str, Path]]:
    """The standard locations that exist as directories (each once), in order."""
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    seen: set[str] = set()
    existing = []
    for agent, directory in standard_locations(env, home):
        real = os.path.realpath(directory)
        if directory.is_dir() and real not in seen:
            seen.add(real)
            existing.append((agent, directory))
    return existing
