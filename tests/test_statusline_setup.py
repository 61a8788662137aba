"""Setting up the status line: the snippet with an absolute path, and ``--install``."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from wavemetrics.cli.commands import main
from wavemetrics.cli.statusline_setup import (
    InstallRefused,
    install,
    settings_path,
    settings_snippet,
    statusline_command,
)


def _script(folder: Path, name: str = "wavemetrics") -> Path:
    """A file where a console script would be."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    return script


def test_the_console_script_is_named_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run as `.venv/bin/wavemetrics` from the clone (a relative argv[0], the quick
    start's way), the command is the script's absolute path: not on PATH, it still runs."""
    _script(tmp_path / "clone" / ".venv" / "bin")
    monkeypatch.chdir(tmp_path / "clone")
    assert statusline_command(".venv/bin/wavemetrics", "/usr/bin/python3", "") == (
        f"{tmp_path}/clone/.venv/bin/wavemetrics statusline")


def test_python_dash_m_and_other_launchers(tmp_path: Path) -> None:
    """`python -m wavemetrics` gives the interpreter and -m; an argv[0] that is not the
    script gives the wavemetrics on PATH, else the interpreter; spaces are quoted."""
    main_py = str(tmp_path / "site" / "wavemetrics" / "__main__.py")
    assert statusline_command(main_py, "/opt/my env/bin/python", "") == (
        "'/opt/my env/bin/python' -m wavemetrics statusline")
    assert statusline_command("/usr/bin/pytest", "/py", "/home/me/.local/bin/wavemetrics") == (
        "/home/me/.local/bin/wavemetrics statusline")
    assert statusline_command("/usr/bin/pytest", "/py", "") == "/py -m wavemetrics statusline"
    # a name that is no file (a stale argv[0]) is not trusted either
    assert statusline_command(str(tmp_path / "gone" / "wavemetrics"), "/py", "") == (
        "/py -m wavemetrics statusline")


def test_settings_path_follows_claude_config_dir() -> None:
    """~/.claude/settings.json, or settings.json in $CLAUDE_CONFIG_DIR when it is set."""
    assert settings_path({}, "/home/me") == "/home/me/.claude/settings.json"
    assert settings_path({"CLAUDE_CONFIG_DIR": "/c"}, "/home/me") == "/c/settings.json"
    assert settings_path({"CLAUDE_CONFIG_DIR": ""}, "/h") == "/h/.claude/settings.json"


def test_install_creates_the_file_and_its_folder(tmp_path: Path) -> None:
    """No settings file yet: the folder and a private file holding only the statusLine."""
    path = tmp_path / "cfg" / "settings.json"
    assert install(str(path), "/x/wavemetrics statusline") is True
    assert path.read_text(encoding="utf-8") == (
        '{\n  "statusLine": {\n    "type": "command",\n'
        '    "command": "/x/wavemetrics statusline"\n  }\n}\n')
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temporary left


def test_install_keeps_every_other_setting_in_its_order(tmp_path: Path) -> None:
    """Other keys, their order, non-ASCII text and the file's permissions are kept; the
    statusLine is added last."""
    path = tmp_path / "settings.json"
    path.write_text('{"model": "opus", "env": {"NAME": "Zoë"}, "hooks": {}}', encoding="utf-8")
    path.chmod(0o640)
    assert install(str(path), "/x statusline") is True
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "model": "opus", "env": {"NAME": "Zoë"}, "hooks": {},
        "statusLine": {"type": "command", "command": "/x statusline"}}
    assert list(json.loads(path.read_text(encoding="utf-8"))) == [
        "model", "env", "hooks", "statusLine"]
    assert '"Zoë"' in path.read_text(encoding="utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_the_same_status_line_is_left_alone(tmp_path: Path) -> None:
    """Installing what is there writes nothing (the bytes stay as the user wrote them)."""
    path = tmp_path / "settings.json"
    text = '{"statusLine": {"type": "command", "command": "/x statusline"}, "a": 1}'
    path.write_text(text, encoding="utf-8")
    assert install(str(path), "/x statusline") is False
    assert path.read_text(encoding="utf-8") == text


def test_another_status_line_is_replaced_only_with_force(tmp_path: Path) -> None:
    """Another command in statusLine: refused with what runs there, the file unchanged;
    with force it is replaced in place (its key keeps its position)."""
    path = tmp_path / "settings.json"
    text = '{"statusLine": {"type": "command", "command": "ccusage statusline"}, "a": 1}'
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InstallRefused) as raised:
        install(str(path), "/x statusline")
    assert str(raised.value) == (
        f'{path} already has a statusLine that runs "ccusage statusline" (--force replaces it)')
    assert path.read_text(encoding="utf-8") == text
    assert install(str(path), "/x statusline", force=True) is True
    assert path.read_text(encoding="utf-8") == (
        '{\n  "statusLine": {\n    "type": "command",\n    "command": "/x statusline"\n'
        '  },\n  "a": 1\n}\n')


@pytest.mark.parametrize(("text", "reason"), [
    ('{"a":', "is not valid JSON (Expecting value: line 1 column 6 (char 5))"),
    ("[1, 2]", "is not a JSON object"),
    ('{"statusLine": "echo hi"}', 'already has a statusLine, "echo hi" (--force replaces it)'),
])
def test_a_file_it_cannot_edit_safely_is_left_as_it_is(
    tmp_path: Path, text: str, reason: str
) -> None:
    """A settings file that is not a JSON object, or holds a statusLine of another shape,
    is never rewritten."""
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InstallRefused) as raised:
        install(str(path), "/x statusline")
    assert str(raised.value) == f"{path} {reason}"
    assert path.read_text(encoding="utf-8") == text


def test_an_empty_file_is_an_empty_object(tmp_path: Path) -> None:
    """An empty (or blank) settings file holds no setting: the statusLine is written."""
    path = tmp_path / "settings.json"
    path.write_text("\n", encoding="utf-8")
    assert install(str(path), "/x statusline") is True
    assert json.loads(path.read_text(encoding="utf-8"))["statusLine"]["command"] == "/x statusline"


def test_a_symbolic_link_stays_a_link(tmp_path: Path) -> None:
    """settings.json linked from a dotfiles folder: the file it points to is written, and
    the link is kept."""
    target = tmp_path / "dotfiles" / "claude-settings.json"
    target.parent.mkdir()
    target.write_text('{"a": 1}', encoding="utf-8")
    link = tmp_path / "settings.json"
    link.symlink_to(target)
    assert install(str(link), "/x statusline") is True
    assert link.is_symlink()
    assert json.loads(target.read_text(encoding="utf-8")) == {
        "a": 1, "statusLine": {"type": "command", "command": "/x statusline"}}


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the final rename fails, the old file is whole and the temporary file is gone."""
    path = tmp_path / "settings.json"
    path.write_text('{"a": 1}', encoding="utf-8")

    def fail(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        install(str(path), "/x statusline")
    assert path.read_text(encoding="utf-8") == '{"a": 1}'
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


def test_settings_snippet_is_the_documented_json() -> None:
    """The snippet is 2-space JSON with a final newline; a path's quote is escaped."""
    assert settings_snippet('/a "b"/wavemetrics statusline') == (
        '{\n  "statusLine": {\n    "type": "command",\n'
        '    "command": "/a \\"b\\"/wavemetrics statusline"\n  }\n}\n')


# --- the command line


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary HOME with no CLAUDE_CONFIG_DIR, and the console script of a clone's
    .venv as the running program."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    script = _script(tmp_path / "clone" / ".venv" / "bin")
    monkeypatch.setattr(sys, "argv", [str(script), "statusline"])
    return home


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["statusline", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout, result.stderr


def test_print_settings_prints_the_snippet_with_the_running_script(
    home: Path, tmp_path: Path
) -> None:
    """--print-settings prints only the JSON snippet, with the script's absolute path."""
    assert _run("--print-settings") == (0, (
        '{\n  "statusLine": {\n    "type": "command",\n'
        f'    "command": "{tmp_path}/clone/.venv/bin/wavemetrics statusline"\n  }}\n}}\n'), "")


def test_install_writes_the_user_settings_then_says_it_is_there(
    home: Path, tmp_path: Path
) -> None:
    """--install writes ~/.claude/settings.json and says so; a second run changes nothing."""
    command = f"{tmp_path}/clone/.venv/bin/wavemetrics statusline"
    path = home / ".claude" / "settings.json"
    assert _run("--install") == (0, f"{path}: the status line now runs {command}\n", "")
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "statusLine": {"type": "command", "command": command}}
    assert _run("--install") == (0, f"{path}: the status line already runs {command}\n", "")


def test_install_respects_claude_config_dir(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With CLAUDE_CONFIG_DIR set, its settings.json is written, not ~/.claude's."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    code, out, _ = _run("--install")
    assert (code, (tmp_path / "config" / "settings.json").is_file()) == (0, True)
    assert out.startswith(f"{tmp_path}/config/settings.json: the status line now runs ")
    assert not (home / ".claude").exists()


def test_install_refuses_to_replace_another_status_line_without_force(
    home: Path, tmp_path: Path
) -> None:
    """Another statusLine: exit 1, one error line, the file unchanged; --force replaces it."""
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"statusLine": {"type": "command", "command": "x"}}', encoding="utf-8")
    assert _run("--install") == (1, "", (
        f'wavemetrics: error: {path} already has a statusLine that runs "x"'
        " (--force replaces it); nothing was changed\n"))
    assert path.read_text(encoding="utf-8") == (
        '{"statusLine": {"type": "command", "command": "x"}}')
    code, _, _ = _run("--install", "--force")
    assert json.loads(path.read_text(encoding="utf-8"))["statusLine"]["command"] == (
        f"{tmp_path}/clone/.venv/bin/wavemetrics statusline")
    assert code == 0


@pytest.mark.parametrize(("args", "message"), [
    (("--force",), "--force goes with --install"),
    (("--install", "--print-settings"), "--print-settings and --install: give one of them"),
    (("--install", "--no-cache"),
     "--no-cache is for running the status line, not with --install"),
])
def test_option_mistakes_are_usage_errors(
    home: Path, args: tuple[str, ...], message: str
) -> None:
    """Options that do not go together: exit 2 and one line, nothing written."""
    assert _run(*args) == (
        2, "", f"wavemetrics: error: {message} (try 'wavemetrics statusline --help')\n")
    assert not (home / ".claude").exists()


def test_the_installed_console_script_prints_its_own_path(tmp_path: Path) -> None:
    """Through the real console script (the one beside this interpreter), the snippet
    names that script by its absolute path."""
    script = Path(sys.executable).parent / "wavemetrics"
    if not script.is_file():
        pytest.skip(f"no console script at {script}")
    done = subprocess.run([str(script), "statusline", "--print-settings"], capture_output=True,
                          text=True, check=True, env={**os.environ, "HOME": str(tmp_path)})
    assert json.loads(done.stdout)["statusLine"]["command"] == f"{script} statusline"
