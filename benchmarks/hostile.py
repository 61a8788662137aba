"""Peak memory of hostile inputs under the default limits.

Each memory bomb is generated into ``--workdir`` (small on disk: gzip and
zip bombs, a sparse file), then read by ``wavemetrics summarize --format json
--jobs 1`` in a fresh process; the table gives its wall time, peak RSS
(``ru_maxrss`` of that child), exit status and the first line of stderr. Every
peak must stay under 512 MiB (``docs/formats.md``, "Limits and hostile
input"); the script exits 1 if one does not.

    python benchmarks/hostile.py [--workdir DIR] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

PYTHON = sys.executable
LIMIT_MIB = 512
MB = 10**6
_CHUNK = 1 << 20


def _gzip_stream(path: Path, pieces: Iterator[bytes]) -> None:
    """Write ``pieces`` gzip-compressed (level 9) without holding them."""
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        for piece in pieces:
            out.write(piece)


def _repeat(byte: bytes, count: int) -> Iterator[bytes]:
    block = byte * _CHUNK
    for _ in range(count // _CHUNK):
        yield block
    yield byte * (count % _CHUNK)


def _deflated_member(name: str, head: bytes, filler: bytes, size: int, tail: bytes) -> bytes:
    """A zip archive whose one member ``name`` is ``head + filler * ... + tail`` of ``size``
    bytes, deflated in a stream (never held whole)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({"eval": {"eval_id": "bomb"}}))
        with archive.open(name, "w", force_zip64=True) as member:
            member.write(head)
            left = size - len(head) - len(tail)
            for block in _repeat(filler, left):
                member.write(block)
            member.write(tail)
    return buffer.getvalue()


def gz_long_lines(path: Path) -> Path:
    """15 lines of 100 MB each, gzip (3.2 GB peak before the limits)."""
    def pieces() -> Iterator[bytes]:
        for _ in range(15):
            yield from _repeat(b"x", 100 * MB)
            yield b"\n"
    target = path / "long-lines.jsonl.gz"
    _gzip_stream(target, pieces())
    return target


def gz_endless_line(path: Path) -> Path:
    """One 1 GB line with no newline, gzip (3.1 GB before)."""
    target = path / "endless-line.jsonl.gz"
    _gzip_stream(target, _repeat(b"y", 1000 * MB))
    return target


def plain_long_line(path: Path) -> Path:
    """A plain file of one 500 MB line: a sparse file of NUL bytes (2.0 GB before)."""
    target = path / "long-line.jsonl"
    with target.open("wb") as file:
        file.truncate(500 * MB)
    return target


def eval_member_bomb(path: Path) -> Path:
    """An ``.eval`` whose sample member inflates to 1.5 GB (3.1 GB before)."""
    target = path / "member-bomb.eval"
    target.write_bytes(_deflated_member(
        "samples/1_epoch_1.json", b'{"id": 1, "epoch": 1, "events": [], "pad": "', b" ",
        1500 * MB, b'"}'))
    return target


def gz_zip_bomb(path: Path) -> Path:
    """A ``.json.gz`` holding a zip with a 1 GB member (4.1 GB before)."""
    archive = _deflated_member(
        "samples/1_epoch_1.json", b'{"id": 1, "epoch": 1, "events": [], "pad": "', b" ",
        1000 * MB, b'"}')
    target = path / "zip-in-gzip.json.gz"
    target.write_bytes(gzip.compress(archive, mtime=0))
    return target


def gz_padded_document(path: Path) -> Path:
    """A pretty-printed OTLP document padded to 1.5 GB with blank lines, gzip (4.6 GB before)."""
    span = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "0000000000000001",
            "name": "execute_tool read", "startTimeUnixNano": "1", "endTimeUnixNano": "2",
            "attributes": [{"key": "gen_ai.operation.name",
                            "value": {"stringValue": "execute_tool"}}]}
    text = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}, indent=2)

    def pieces() -> Iterator[bytes]:
        yield text[:-1].encode()
        yield from _repeat(b"\n", 1500 * MB)
        yield b"}\n"
    target = path / "padded.json.gz"
    _gzip_stream(target, pieces())
    return target


def claude_short_lines(path: Path) -> Path:
    """198 MB of short Claude Code lines, each with its own uuid (447 MB before)."""
    folder = path / "claude-project"
    folder.mkdir(exist_ok=True)
    target = folder / "session.jsonl"
    with target.open("wb") as file:
        written = index = 0
        while written < 198 * MB:
            line = (b'{"type":"user","uuid":"%08x-0000-4000-8000-%012x","sessionId":"s",'
                    b'"message":{"content":"hi"}}\n' % (index, index))
            file.write(line)
            written += len(line)
            index += 1
    return folder


def out_of_order_past_cap(path: Path) -> Path:
    """3 million events calls, one out of order among the first 2,000 (the 101st, after
    waves were summarised), so the stream
    falls back to a batch read (482 MB before, 25 MB streamed)."""
    target = path / "out-of-order.jsonl"
    with target.open("wb") as file:
        for index in range(3_000_000):
            start = 1000 + index * 10 if index != 100 else 500
            file.write(b'{"type":"tool_execution_start","toolCallId":"c%d","toolName":"read",'
                       b'"timestamp":%d}\n' % (index, start))
            file.write(b'{"type":"tool_execution_end","toolCallId":"c%d","toolName":"read",'
                       b'"timestamp":%d}\n' % (index, start + 5))
    return target


BOMBS: dict[str, Callable[[Path], Path]] = {
    "gzip: 15 lines of 100 MB": gz_long_lines,
    "gzip: one 1 GB line, no newline": gz_endless_line,
    "plain: one 500 MB line": plain_long_line,
    ".eval member inflating to 1.5 GB": eval_member_bomb,
    ".json.gz holding a zip with a 1 GB member": gz_zip_bomb,
    "pretty .json.gz padded to 1.5 GB": gz_padded_document,
    "Claude Code: 198 MB of short lines": claude_short_lines,
    "events: out-of-order call, 3e6 calls past the cap": out_of_order_past_cap,
}


def _run(argv: list[str], stdin: int | None = None) -> tuple[float, float, int, str]:
    began = time.perf_counter()
    process = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    assert process.stderr is not None
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - began
    first = stderr.decode(errors="replace").splitlines()[:1]
    return elapsed, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), (first or [""])[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/wavemetrics-hostile"))
    parser.add_argument("--only", nargs="*", help="run only bombs whose name contains this")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    command = [PYTHON, "-m", "wavemetrics", "summarize", "--format", "json", "--jobs", "1"]
    rows = []
    for name, make in BOMBS.items():
        if args.only and not any(part in name for part in args.only):
            continue
        target = make(args.workdir)
        size = sum(p.stat().st_blocks * 512 for p in
                   ([target] if target.is_file() else list(target.rglob("*"))))
        rows.append((name, size / MB, *_run([*command, str(target)])))
    if not args.only or any("zero" in part for part in args.only):
        with open("/dev/zero", "rb") as zero:
            rows.append(("/dev/zero on stdin", 0.0, *_run([*command, "-"], stdin=zero.fileno())))
    print("| input | on disk MB | wall s | peak RSS MiB | exit | stderr (first line) |")
    print("|---|---|---|---|---|---|")
    over = False
    for name, disk, wall, rss, code, err in rows:
        over |= rss >= LIMIT_MIB
        shown = err.replace(str(args.workdir) + "/", "")
        print(f"| {name} | {disk:.1f} | {wall:.1f} | {rss:.0f} | {code} | {shown} |")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
