"""Setting up ``wavemetrics statusline`` in Claude Code: the ``settings.json`` snippet.

Claude Code runs a status-line command through a shell with its own ``PATH``, where
a clone's ``.venv/bin`` seldom is: a bare ``wavemetrics statusline`` would show
nothing. The snippet therefore names the executable that is running now, by its
absolute path (:func:`statusline_command`); ``--print-settings`` prints it and
``--install`` writes it into Claude Code's user settings (:func:`install`), keeping
every other setting, never replacing another status line unless forced, and writing
atomically (docs/cli.md, "wavemetrics statusline").
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Mapping
from typing import Any

__all__ = [
    "InstallRefused",
    "install",
    "settings_path",
    "settings_snippet",
    "status_line_setting",
    "statusline_command",
]


def statusline_command(
    argv0: str | None = None, executable: str | None = None, which: str | None = None
) -> str:
    """The shell command that runs this wavemetrics' status line, by absolute paths.

    ``argv0`` (default ``sys.argv[0]``) is the console script when it is a file named
    ``wavemetrics`` (its absolute path is used, symbolic links kept: a link such as
    ``~/.local/bin/wavemetrics`` outlives upgrades); ``python -m wavemetrics`` (argv0
    a ``__main__.py``) gives ``<executable> -m wavemetrics``, ``executable`` being
    ``sys.executable``; otherwise the ``wavemetrics`` found on ``PATH`` (``which``,
    default ``shutil.which``), else ``<executable> -m wavemetrics``. Paths are quoted
    for a POSIX shell when they need it.

    >>> statusline_command("/usr/bin/ipython", "/usr/bin/python3", "/home/me/bin/wavemetrics")
    '/home/me/bin/wavemetrics statusline'
    >>> statusline_command("/opt/wm env/lib/wavemetrics/__main__.py", "/opt/wm env/bin/python")
    "'/opt/wm env/bin/python' -m wavemetrics statusline"
    """
    argv0 = sys.argv[0] if argv0 is None else argv0
    executable = (sys.executable or "python3") if executable is None else executable
    name = os.path.basename(argv0)
    if name in ("wavemetrics", "wavemetrics.exe") and os.path.isfile(argv0):
        words = [os.path.abspath(argv0)]
    elif name == "__main__.py":
        words = [executable, "-m", "wavemetrics"]
    else:
        found = shutil.which("wavemetrics") if which is None else which
        words = [os.path.abspath(found)] if found else [executable, "-m", "wavemetrics"]
    return " ".join(shlex.quote(word) for word in [*words, "statusline"])


def status_line_setting(command: str) -> dict[str, str]:
    """The value of ``statusLine`` in Claude Code's settings for ``command``."""
    return {"type": "command", "command": command}


def settings_snippet(command: str) -> str:
    """The ``settings.json`` snippet (2-space JSON and a newline) that runs ``command``.

    >>> print(settings_snippet("/x/wavemetrics statusline"), end="")
    {
      "statusLine": {
        "type": "command",
        "command": "/x/wavemetrics statusline"
      }
    }
    """
    return json.dumps({"statusLine": status_line_setting(command)}, indent=2) + "\n"


def settings_path(env: Mapping[str, str] | None = None, home: str | None = None) -> str:
    """Claude Code's user settings file: ``$CLAUDE_CONFIG_DIR/settings.json`` when that
    variable is set (Claude Code then keeps its whole configuration there, in place of
    ``~/.claude``), else ``~/.claude/settings.json``.

    >>> settings_path({}, "/home/me")
    '/home/me/.claude/settings.json'
    >>> settings_path({"CLAUDE_CONFIG_DIR": "/cfg/claude"}, "/home/me")
    '/cfg/claude/settings.json'
    """
    env = os.environ if env is None else env
    folder = env.get("CLAUDE_CONFIG_DIR") or os.path.join(
        os.path.expanduser("~") if home is None else home, ".claude")
    return os.path.join(folder, "settings.json")


class InstallRefused(Exception):
    """``--install`` left the settings file as it was; the message says why."""


def install(path: str, command: str, *, force: bool = False) -> bool:
    """Set ``statusLine`` in the settings file ``path`` to run ``command``; whether it
    was written (``False``: it already ran exactly this command).

    Every other key is kept, in its order; the file is created (with its folder) when
    missing. A ``statusLine`` that runs something else is replaced only with
    ``force``. The new content is written to a temporary file beside the real file
    (through a symbolic link, the file it points to), with the old file's permissions,
    flushed to disk and renamed over it: a reader sees the old file or the new one,
    never half of one. Raises :class:`InstallRefused` (nothing written) when the file
    is not a JSON object, cannot be read, or has another status line and ``force`` is
    false; ``OSError`` when writing fails.
    """
    real = os.path.realpath(path)
    settings: dict[str, Any] = {}
    mode = None
    try:
        with open(real, encoding="utf-8") as handle:
            text = handle.read()
        mode = os.stat(real).st_mode & 0o7777
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError) as error:
        raise InstallRefused(f"{path} cannot be read ({_reason(error)})") from None
    if text is not None and text.strip():
        try:
            loaded = json.loads(text)
        except ValueError as error:
            raise InstallRefused(f"{path} is not valid JSON ({error})") from None
        if not isinstance(loaded, dict):
            raise InstallRefused(f"{path} is not a JSON object")
        settings = loaded
    wanted = status_line_setting(command)
    current = settings.get("statusLine")
    if current == wanted:
        return False
    if current is not None and not force:
        shown = current.get("command") if isinstance(current, dict) else None
        what = (f" that runs {json.dumps(shown)}" if isinstance(shown, str)
                else f", {json.dumps(current)}")
        raise InstallRefused(
            f"{path} already has a statusLine{what} (--force replaces it)")
    settings["statusLine"] = wanted  # in place when present, else last
    _write_atomically(real, json.dumps(settings, indent=2, ensure_ascii=False) + "\n", mode)
    return True


def _reason(error: BaseException) -> str:
    return (error.strerror if isinstance(error, OSError) and error.strerror
            else type(error).__name__)


def _write_atomically(path: str, text: str, mode: int | None) -> None:
    """Write ``text`` to ``path`` through a temporary file in its folder and a rename."""
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed below, or removed)
        "w", encoding="utf-8", dir=folder, prefix=".settings.", suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o600 if mode is None else mode)
        os.replace(handle.name, path)
    except BaseException:
        os.unlink(handle.name)
        raise
