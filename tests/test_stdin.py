"""Standard input made a file both engines can open again (``wavemetrics.inputs._stdin``),
and ``summarize -`` read by the native command: the CLI's bytes, or the CLI's run on
the same bytes.

Everything that touches descriptor 0 runs in a child process (the spool puts a file in
its place): a small script calls the function under test and prints what it saw.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.golden_cases import EXAMPLE
from tests.strategies import (
    claude_calls,
    claude_records,
    codex_calls,
    codex_records,
    copilot_calls,
    copilot_records,
    event_calls,
    event_records,
    inspect_eval_files,
    inspect_logs,
    kimi_calls,
    kimi_records,
    mcode_files,
    otel_files,
    otlp_calls,
    otlp_documents,
    otlp_records,
    trace_files,
)
from tests.trace_builders import (
    CLAUDE,
    CODEX,
    CODEX_TUI,
    COPILOT,
    EVENTS,
    INSPECT,
    KIMI,
    MCODE,
    OTEL_SPANS,
    OTLP,
    PI,
    QWEN,
)
from wavemetrics.cli.commands import main
from wavemetrics.run import native

_ROOT = Path(__file__).resolve().parent.parent

#: A child that makes stdin reopenable, then prints what it holds as three lines: the
#: function's answer, ``/dev/stdin`` read whole twice (hex), and ``sys.stdin`` read whole
#: line by line (hex, then the error it raised, if any).
_PROBE = """
import os, sys
from wavemetrics.inputs._stdin import reopenable_stdin
answer = reopenable_stdin()
print(answer)
if answer:
    reads = [open("/dev/stdin", "rb").read() for _ in range(2)]
    print(reads[0].hex() if reads[0] == reads[1] else "differ")
else:
    print("-")
got = []
try:
    for line in sys.stdin.buffer:  # line by line, as the readers take it
        got.append(line)
    print(b"".join(got).hex())
except OSError as error:
    print(f"{b''.join(got).hex()} raised {error.errno}")
"""


def _probe(stdin: object, script: str = _PROBE) -> list[str]:
    done = subprocess.run([sys.executable, "-c", script], stdin=stdin,  # type: ignore[call-overload]
                          capture_output=True, check=True, cwd=_ROOT)
    return list(done.stdout.decode().splitlines())


def _piped(data: bytes, script: str = _PROBE) -> list[str]:
    done = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True,
                          check=True, cwd=_ROOT)
    return list(done.stdout.decode().splitlines())


@pytest.mark.parametrize("data", [b"", b"x", b"line one\nline two\n", bytes(range(256)) * 9000])
def test_piped_input_is_put_in_memory_and_read_whole_by_every_open(data: bytes) -> None:
    """A pipe (here up to 2.3 MB, past the copy's 1 MiB chunk) becomes a file that each
    open of ``/dev/stdin`` reads whole, and ``sys.stdin`` reads from its start."""
    assert _piped(data) == ["True", data.hex(), data.hex()]


def test_a_regular_file_read_from_its_start_is_used_as_it_is(tmp_path: Path) -> None:
    """``< file``: already a file every open reads whole; nothing is copied (descriptor 0
    still names the file)."""
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(b"abc\ndef\n")
    script = _PROBE + "print(os.readlink('/proc/self/fd/0'))\n"
    with trace.open("rb") as handle:
        assert _probe(handle, script) == ["True", b"abc\ndef\n".hex(), b"abc\ndef\n".hex(),
                                          str(trace)]


def test_a_file_already_read_in_part_is_copied_from_where_it_stands(tmp_path: Path) -> None:
    """A regular file whose descriptor was moved on (a shell that read its first bytes)
    is copied from there: the bytes the CLI would read."""
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(b"skipped\nkept\n")
    script = _PROBE + "print(os.readlink('/proc/self/fd/0').startswith('/memfd:'))\n"
    with trace.open("rb") as handle:
        handle.seek(8)
        assert _probe(handle, script) == ["True", b"kept\n".hex(), b"kept\n".hex(), "True"]


def test_a_failed_read_of_the_pipe_is_handed_on_after_the_bytes_read() -> None:
    """A read error while the pipe is copied is not lost: the answer is ``False`` (the
    CLI's run) and ``sys.stdin`` gives the bytes read, then raises the same error."""
    script = """
import errno, io, os, sys
class Failing(io.RawIOBase):
    given = False
    def readable(self): return True
    def fileno(self): return 0
    def readinto(self, buffer):
        if self.given:
            raise OSError(errno.EIO, "gone")
        self.given = True
        buffer[:4] = b"abc\\n"
        return 4
sys.stdin = io.TextIOWrapper(io.BufferedReader(Failing()))
""" + _PROBE
    assert _piped(b"unused", script) == ["False", "-", b"abc\n".hex() + " raised 5"]


def test_piped_input_past_the_bound_goes_to_the_cli_whole() -> None:
    """A pipe that runs past :data:`HELD_AT_MOST` bytes (here made 10) is not made a
    file (``False``: the CLI's run) and ``sys.stdin`` gives every byte: those held,
    then the rest of the pipe."""
    script = "import wavemetrics.inputs._stdin as m\nm.HELD_AT_MOST = 10\n" + _PROBE
    data = b"".join(b"line %d\n" % n for n in range(300_000))  # 2.3 MB
    assert _piped(data, script) == ["False", "-", data.hex()]
    assert _piped(data[:9], script) == ["True", data[:9].hex(), data[:9].hex()]


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_a_device_is_left_to_the_cli_unread(device: str) -> None:
    """A device on stdin (``/dev/null``: no data; ``/dev/zero``: no end) is not copied:
    ``False``, and ``sys.stdin`` reads the device itself."""
    script = """
import sys
from wavemetrics.inputs._stdin import reopenable_stdin
print(reopenable_stdin())
print(sys.stdin.buffer.read(4).hex())
"""
    with open(device, "rb") as handle:
        assert _probe(handle, script) == ["False", "" if device == "/dev/null" else "00" * 4]


def test_a_terminal_or_a_stand_in_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal (the CLI asks for a PATH) and a ``sys.stdin`` with no descriptor are not
    read: ``False``, and ``sys.stdin`` is the same object."""
    from wavemetrics.inputs._stdin import reopenable_stdin

    class Terminal:
        def isatty(self) -> bool:
            return True

    for stand_in in (Terminal(), io_without_descriptor(), None):
        monkeypatch.setattr(sys, "stdin", stand_in)
        assert reopenable_stdin() is False
        assert sys.stdin is stand_in


def io_without_descriptor() -> object:
    import io

    return io.TextIOWrapper(io.BytesIO(b"data"))


# -- summarize - ------------------------------------------------------------------

#: A child that runs the native command on its stdin (and maybe more paths): prints
#: ``taken`` and the document, or the reason it declined; then, declined, what the CLI
#: reads from ``sys.stdin`` (hex: the bytes handed on).
_NATIVE = """
import sys
from wavemetrics.run import fastpath
done = fastpath.summarize_json(sys.argv[1:], 1)
if isinstance(done, str):
    print("declined: " + done)
    print(sys.stdin.buffer.read().hex())
else:
    print("taken")
    sys.stdout.write(done[0].decode("ascii"))
    sys.stdout.write("".join(line + "\\n" for line in done[1]))
"""


def _native(data: bytes, *paths: str) -> tuple[str, str]:
    done = subprocess.run([sys.executable, "-c", _NATIVE, *paths], input=data,
                          capture_output=True, check=True, cwd=_ROOT)
    first, _, rest = done.stdout.decode().partition("\n")
    return first, rest


def _cli(data: bytes, *paths: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["summarize", "--format", "json", "--no-cache",
                                       "--jobs", "1", *paths], input=data)
    return result.exit_code, result.stdout_bytes.decode() + result.stderr_bytes.decode()


def _claude() -> bytes:
    return b"".join(b"".join(CLAUDE.call(c, s, e)) for c, s, e in
                    (("c1", 0, 2), ("c2", 1, 3), ("c3", 5, 6)))


def _lines(fmt: object, calls: tuple[tuple[str, float, float], ...]) -> bytes:
    return b"".join([*fmt.prelude, *(b"".join(fmt.call(*call)) for call in calls)])  # type: ignore[attr-defined]


_CALLS = (("a", 0, 2), ("b", 1, 3), ("c", 5, 6))

#: What the native command reads from stdin itself, by name.
_TAKEN = {
    "claude-code": _claude(),
    "claude-code gzipped": gzip.compress(_claude()),
    "the bundled example": EXAMPLE.read_bytes(),
    "events": _lines(EVENTS, _CALLS),
    "codex": _lines(CODEX, _CALLS),
    "pi": _lines(PI, _CALLS),
}


pytestmark = pytest.mark.skipif(not native.available(), reason="the Rust extension is not built")


@pytest.mark.parametrize("name", list(_TAKEN))
def test_stdin_of_each_format_the_folded_read_detects_is_read_natively(name: str) -> None:
    """Claude Code (plain or gzip), ``events``, Codex and pi on stdin: read by the native command, the CLI's document and notes byte for byte, the input
    named ``-``."""
    data = _TAKEN[name]
    status, document = _native(data, "-")
    assert status == "taken"
    code, expected = _cli(data, "-")
    assert code == 0
    assert document == expected
    parsed, _ = json.JSONDecoder().raw_decode(document)
    assert [entry["path"] for entry in parsed["inputs"]] == ["-"]


@pytest.mark.parametrize("fmt", [CODEX, EVENTS])
def test_lines_without_a_session_are_of_session_stdin(fmt: object) -> None:
    """A Codex rollout without its session header, and ``events`` lines naming no
    session, take the session id Python gives stdin: ``stdin`` (docs/formats.md), read
    natively as by the CLI."""
    data = b"".join(b"".join(fmt.call(*call)) for call in _CALLS)  # type: ignore[attr-defined]
    status, document = _native(data, "-")
    assert status == "taken"
    assert document == _cli(data, "-")[1]
    parsed, _ = json.JSONDecoder().raw_decode(document)
    assert {lane["session_id"] for lane in parsed["lanes"]} == {"stdin"}


def test_stdin_beside_files_is_read_in_its_place(tmp_path: Path) -> None:
    """``-`` between two files, and named twice (read once): the CLI's bytes."""
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_bytes(_lines(EVENTS, (("x", 0, 4), ("y", 1, 2))))
    second.write_bytes(_claude())
    data = _lines(CODEX, _CALLS)
    for paths in ([str(first), "-", str(second)], ["-", str(first), "-"]):
        status, document = _native(data, *paths)
        assert status == "taken", paths
        assert document == _cli(data, *paths)[1], paths


#: Formats the folded read does not detect, and an empty stdin: detected by the registry
#: through ``/dev/stdin``, then read by the extension or handed over by the Python reader.
_OTHERS = {fmt.name: _lines(fmt, _CALLS) for fmt in (
    COPILOT, KIMI, MCODE, OTLP, OTEL_SPANS, INSPECT, QWEN, CODEX_TUI)} | {"empty": b""}


@pytest.mark.parametrize("name", list(_OTHERS))
def test_stdin_of_every_other_format_is_read_natively_too(name: str) -> None:
    """Copilot, Kimi, mcode, OTLP, OTel spans, an Inspect log, and the formats only Python
    reads (Qwen, the Codex TUI log), and an empty stdin: taken by the native command,
    the CLI's bytes."""
    data = _OTHERS[name]
    status, document = _native(data, "-")
    assert status == "taken"
    assert document == _cli(data, "-")[1]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(
    trace_files(claude_records(), claude_calls()), trace_files(codex_records(), codex_calls()),
    trace_files(event_records(), event_calls()), trace_files(copilot_records(), copilot_calls()),
    trace_files(kimi_records(), kimi_calls()), trace_files(otlp_records(), otlp_calls()),
    otlp_documents(), otel_files(), mcode_files(), inspect_logs(), inspect_eval_files(),
    st.sampled_from([_lines(QWEN, _CALLS), _lines(CODEX_TUI, _CALLS)]),
    st.binary(max_size=64)).flatmap(
        lambda data: st.sampled_from([data, gzip.compress(data, mtime=0)])),
    st.sampled_from(["auto", "auto", "auto", "pi", "qwen", "codex-tui", "events", "otlp"]))
def test_any_generated_trace_piped_in_prints_the_clis_bytes(data: bytes, forced: str) -> None:
    """Whatever is piped in (any format's generated file, odd records and bad lines
    among its calls, cut short, gzipped, or bytes of no format), detected or read as a
    forced format: the console entry prints what the CLI prints reading the same stdin,
    and exits as it does, whether the native command takes the run or leaves it to the
    CLI with the same bytes."""
    args = ["summarize", "--format", "json", "--no-cache", "--jobs", "1",
            "--input-format", forced, "-"]
    done = subprocess.run([sys.executable, "-m", "wavemetrics", *args], input=data,
                          capture_output=True, cwd=_ROOT)
    result = CliRunner().invoke(main, args, input=data)
    assert done.returncode == result.exit_code
    assert done.stdout == result.stdout_bytes
    assert done.stderr == result.stderr_bytes


#: The console entry in a child, which writes to the file ``$MARK`` at exit whether click
#: was imported (``True``: the CLI made the run; ``False``: the native command did).
_ENTRY = """
import atexit, os, sys
atexit.register(lambda: open(os.environ["MARK"], "w").write(str("click" in sys.modules)))
from wavemetrics.cli._entry import main
sys.argv = ["wavemetrics", *sys.argv[1:]]
main()
"""


def _entry(data: bytes, tmp_path: Path, *args: str) -> tuple[int, str, bool]:
    mark = tmp_path / "mark"
    done = subprocess.run([sys.executable, "-c", _ENTRY, *args], input=data,
                          capture_output=True, cwd=_ROOT,
                          env={**os.environ, "MARK": str(mark),
                               "WAVEMETRICS_CACHE_DIR": str(tmp_path / "cache")})
    return (done.returncode, done.stdout.decode() + done.stderr.decode(),
            mark.read_text() == "True")


@pytest.mark.parametrize("args", [
    ("summarize", "--format", "json", "--no-cache", "--jobs", "1", "-"),
    ("summarize", "--format", "json", "--jobs", "1", "-"),  # the cache on: never stored
    ("summarize", "--format", "json", "--jobs", "1"),  # no PATH: piped input is read
    ("summarize", "--format", "csv", "--no-cache"),
])
def test_the_entry_reads_a_pipe_natively_and_a_declined_one_through_the_cli(
        tmp_path: Path, args: tuple[str, ...]) -> None:
    """``python -m wavemetrics summarize ... [-]`` on a pipe: the CLI's output, made by the
    native command (click never imported) for Claude Code, Copilot and an empty pipe
    named ``-``, by the CLI on the same bytes for a line past the default
    ``--max-line-bytes``; nothing is stored for the next run."""
    # a line past the default --max-line-bytes (64 MiB): Python counts it, the run is
    # the CLI's, which reads every byte piped in
    long_line = _claude() + b'{"type":"user","uuid":"z","message":"' + b"x" * (64 << 20) \
        + b'"}\n'
    cases = [(_claude(), True), (_lines(COPILOT, _CALLS), True), (long_line, False)]
    if "-" in args:  # with no PATH, an empty pipe is no data: the standard locations
        cases.append((b"", True))
    for data, native_run in cases:
        code, printed, clicked = _entry(data, tmp_path, *args)
        result = CliRunner().invoke(main, [*args[:-1], "--no-cache", args[-1]]
                                    if args[-1] == "-" else [*args, "--no-cache"], input=data)
        assert (code, printed) == (result.exit_code,
                                   result.stdout_bytes.decode() + result.stderr_bytes.decode())
        assert clicked is not native_run, data[:40]
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.db*"))


def _qwen() -> bytes:
    return _lines(QWEN, _CALLS)


@pytest.mark.parametrize(("data", "args"), [
    # a format only Python reads, forced as another one: the Python reader reads stdin,
    # the document's notes then decline (an input not the forced format)
    (_qwen(), ("summarize", "--format", "json", "--no-cache", "--input-format", "pi", "-")),
    (_lines(CODEX_TUI, _CALLS), ("summarize", "--input-format", "events", "--no-cache", "-")),
    (_qwen(), ("summarize", "--format", "json", "--input-format", "claude-code")),  # no PATH
    (b"\n", ("summarize", "--format", "json", "--no-cache", "--input-format", "pi", "-")),
    (_qwen(), ("waves", "--format", "json", "--no-cache", "--input-format", "pi", "-")),
    # a gzip stream cut short, and one with bytes after its end: read by Python, declined
    (gzip.compress(_qwen() * 50, mtime=0)[:-40], ("summarize", "--format", "json", "-")),
    (gzip.compress(_qwen(), mtime=0) + b"junk", ("summarize", "--format", "json", "-")),
])
def test_a_run_declined_after_a_python_reader_read_stdin_hands_the_cli_every_byte(
        tmp_path: Path, data: bytes, args: tuple[str, ...]) -> None:
    """When the native command declines a run after a Python reader read stdin through
    ``sys.stdin`` (for a format only Python reads), the CLI still reads every byte piped
    in from the start: the CLI's output, and with no PATH no fall back to the standard
    locations (which an exhausted stdin would have looked like)."""
    code, printed, clicked = _entry(data, tmp_path, *args)
    result = CliRunner().invoke(main, list(args), input=data)
    assert (code, printed) == (result.exit_code,
                               result.stdout_bytes.decode() + result.stderr_bytes.decode())
    assert clicked
    assert "wavemetrics: reading" not in printed


@pytest.mark.parametrize("data", [_claude(), _qwen(), _lines(COPILOT, _CALLS), b""])
def test_stdin_from_a_file_is_left_read_to_its_end(tmp_path: Path, data: bytes) -> None:
    """``wavemetrics summarize - < FILE``: the file is opened again by the extension, not
    read through descriptor 0; after the run the descriptor is at the file's end, as
    after the CLI's read, for whatever reads it next (a run the native command takes,
    and one it leaves to the CLI: a Qwen trace forced as ``pi``)."""
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(data)
    for extra in ((), ("--input-format", "pi")):
        with trace.open("rb") as handle:
            subprocess.run([sys.executable, "-m", "wavemetrics", "summarize", "--format",
                            "csv", "--no-cache", *extra, "-"], stdin=handle,
                           capture_output=True, cwd=_ROOT, check=False)
            assert os.lseek(handle.fileno(), 0, os.SEEK_CUR) == len(data), extra


def test_closed_stdin_is_an_input_that_cannot_be_read(tmp_path: Path) -> None:
    """``summarize - <&-`` (no standard input at all): an error for ``-`` (exit 1), no
    traceback; with no PATH, closed stdin is no data piped in."""
    script = ("import os, sys\nos.close(0)\nsys.stdin = None\n"
              "from wavemetrics.cli._entry import main\n"
              "sys.argv = ['wavemetrics', 'summarize', '--format', 'json', '-']\nmain()\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=_ROOT,
                          env={**os.environ, "WAVEMETRICS_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 1
    assert done.stderr == b"wavemetrics: error: -: standard input is closed\n"
    from wavemetrics.inputs import _stdin

    stdin = sys.stdin
    try:
        sys.stdin = None  # type: ignore[assignment]
        assert _stdin.stdin_has_data() is False
        assert _stdin.reopenable_stdin() is False
    finally:
        sys.stdin = stdin


def test_waves_reads_a_pipe_as_the_cli_does() -> None:
    """``python -m wavemetrics waves --format json -`` on a pipe: the CLI's ``waves``
    output (the native ``waves`` reads stdin through the same spool)."""
    data = _claude()
    done = subprocess.run([sys.executable, "-m", "wavemetrics", "waves", "--format", "json",
                           "--no-cache", "-"], input=data, capture_output=True, cwd=_ROOT)
    result = CliRunner().invoke(main, ["waves", "--format", "json", "--no-cache", "-"],
                                input=data)
    assert done.returncode == result.exit_code == 0
    assert done.stdout == result.stdout_bytes
    assert done.stderr == result.stderr_bytes
    assert json.loads(done.stdout)["waves"][0]["session_id"] == "s1"
