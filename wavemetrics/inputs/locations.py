"""Where agents keep their session traces: what ``wavemetrics summarize`` reads with no PATH.

The standard locations, in this order, each only if it exists:

- Claude Code: ``$CLAUDE_CONFIG_DIR/projects`` (several directories may be given,
  separated by commas, as Claude Code and ccusage accept), else
  ``~/.claude/projects`` and ``$XDG_CONFIG_HOME/claude/projects``
  (``~/.config/claude/projects`` when ``XDG_CONFIG_HOME`` is unset);
- Codex: ``$CODEX_HOME/sessions``, else ``~/.codex/sessions``;
- pi: ``~/.pi/agent/sessions``;
- GitHub Copilot CLI: ``$COPILOT_HOME/session-state``, else ``~/.copilot/session-state``;
- opencode: the store ``opencode.db`` and each release channel's ``opencode-*.db`` in
  ``$OPENCODE_DATA_DIR``, else ``$XDG_DATA_HOME/opencode`` (``~/.local/share/opencode``
  when ``XDG_DATA_HOME`` is unset), and, when there is no ``opencode.db``, the older
  JSON-file ``storage`` folder there;
- Kilo: the store ``kilo.db`` in ``$KILO_DATA_DIR``, else ``$XDG_DATA_HOME/kilo``
  (``~/.local/share/kilo``);
- ZCode: the store ``$ZCODE_DB_PATH``, else ``$ZCODE_HOME/cli/db/db.sqlite``, else
  ``~/.zcode/cli/db/db.sqlite``;
- Kimi CLI: ``$KIMI_SHARE_DIR/sessions``, else ``~/.kimi/sessions``;
- OpenClaw: ``$OPENCLAW_STATE_DIR/agents``, else ``~/.openclaw/agents`` (each agent's
  ``<agentId>/sessions/*.jsonl`` and ``<agentId>/agent/openclaw-agent.sqlite``), then
  its legacy ``~/.openclaw/sessions`` and the old brands' ``~/.clawdbot/agents``,
  ``~/.moltbot/agents`` and ``~/.moldbot/agents``;
- Qwen Code: ``<root>/projects`` for each root in ``$QWEN_DATA_DIR`` (separated by
  commas, as ccusage accepts), else ``~/.qwen/projects`` (``<project>/chats/*.jsonl``).

A location is a folder, or a store's file (``docs/formats.md``, "opencode").
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["default_locations", "standard_locations"]


def standard_locations(env: Mapping[str, str], home: Path) -> list[tuple[str, Path]]:
    """Every standard location as ``(agent, path)``, existing or not (but for opencode's
    channel stores, listed when they exist), in order (agents by their product names,
    not format names: a format is named only in its module). A path is a folder, or an
    agent's store file."""
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
    found.extend(_opencode_family(env, home))
    kimi = env.get("KIMI_SHARE_DIR")
    found.append(("Kimi CLI", (Path(kimi) if kimi else home / ".kimi") / "sessions"))
    found.extend(_openclaw(env, home))
    qwen = [part.strip() for part in env.get("QWEN_DATA_DIR", "").split(",") if part.strip()]
    found.extend(("Qwen Code", Path(root) / "projects")
                 for root in (qwen or [str(home / ".qwen")]))
    return found


def _opencode_family(env: Mapping[str, str], home: Path) -> list[tuple[str, Path]]:
    """opencode's stores (and its older storage folder when it has no ``opencode.db``),
    then Kilo's and ZCode's: the agents that share opencode's store."""
    found: list[tuple[str, Path]] = []
    data = Path(env.get("XDG_DATA_HOME") or str(home / ".local" / "share"))
    opencode = env.get("OPENCODE_DATA_DIR")
    opencode_dir = Path(opencode) if opencode else data / "opencode"
    found.append(("opencode", opencode_dir / "opencode.db"))
    found.extend(("opencode", channel) for channel in _channel_stores(opencode_dir))
    if not (opencode_dir / "opencode.db").exists():  # else the store holds its sessions
        found.append(("opencode", opencode_dir / "storage"))
    kilo = env.get("KILO_DATA_DIR")
    found.append(("Kilo", (Path(kilo) if kilo else data / "kilo") / "kilo.db"))
    zcode_db, zcode_home = env.get("ZCODE_DB_PATH"), env.get("ZCODE_HOME")
    found.append(("ZCode", Path(zcode_db) if zcode_db else
                  (Path(zcode_home) if zcode_home else home / ".zcode") / "cli" / "db"
                  / "db.sqlite"))
    return found


def _openclaw(env: Mapping[str, str], home: Path) -> list[tuple[str, Path]]:
    """OpenClaw's state folder (``OPENCLAW_STATE_DIR``), else its default and legacy ones."""
    state = env.get("OPENCLAW_STATE_DIR")
    if state:
        return [("OpenClaw", Path(state) / "agents")]
    return [("OpenClaw", home / ".openclaw" / "agents"),
            ("OpenClaw", home / ".openclaw" / "sessions"),
            *(("OpenClaw", home / old / "agents") for old in (".clawdbot", ".moltbot", ".moldbot"))]


def _channel_stores(folder: Path) -> list[Path]:
    """opencode's release-channel stores ``opencode-<channel>.db`` in ``folder``, sorted
    (only those that exist: a channel's name is not known in advance)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [folder / name for name in names
            if name.startswith("opencode-") and name.endswith(".db")]


def default_locations(
    env: Mapping[str, str] | None = None, home: Path | None = None
) -> list[tuple[str, Path]]:
    """The standard locations that exist (each once), in order: folders, and the
    agents' store files (opencode, Kilo, ZCode)."""
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    seen: set[str] = set()
    existing = []
    for agent, directory in standard_locations(env, home):
        real = os.path.realpath(directory)
        if (directory.is_dir() or directory.is_file()) and real not in seen:
            seen.add(real)
            existing.append((agent, directory))
    return existing
