"""Standard input as an input: whether data is piped in (a run with no PATH then reads
it), and standard input made a file that can be opened again, which lets the native
command read ``-``.

Piped input can be read once. The Python readers read it once (detection peeks at the
lines they then read), but the native command opens an input for detection and again
to read it, from threads, and must leave the run to the CLI with the input untouched
when it declines. So before it reads ``-`` the command copies piped input, once and
whole, into an anonymous in-memory file (``memfd_create``: never on disk, gone with
the process), puts that file in place as descriptor 0 and makes ``sys.stdin`` read it
from its start. The extension then opens ``/dev/stdin`` as often as it likes (each open
reads from the start), and the CLI, when it takes the run, reads the same bytes from
``sys.stdin`` as it would have read from the pipe. Standard input that already is a
regular file read from its start (``< trace.jsonl``) is used as it is; one a shell
already read a part of is copied from where it stands.

Light on purpose (stdlib only): the entry's native command imports it before click.
"""

from __future__ import annotations

import io
import os
import stat
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO, TextIO

    from _typeshed import WriteableBuffer

__all__ = ["reopenable_stdin", "settle_stdin", "stdin_has_data", "stdin_is_terminal"]

#: Whether :func:`reopenable_stdin` made (or found) standard input a file read from its
#: start, which :func:`settle_stdin` then leaves as the CLI would have left it.
_reopened = False

#: Bytes copied per read while standard input is put in memory.
_CHUNK = 1 << 20


def stdin_is_terminal() -> bool:
    """Whether standard input is a terminal (no data piped in)."""
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def stdin_has_data() -> bool:
    """Whether data is piped in, so that a run with no PATH reads stdin: standard input
    is not a terminal, not a device such as ``/dev/null`` (what scripts, cron and an
    agent's shell tool often give), and holds at least one byte. Waits for the first
    byte of a pipe (or its end), as reading it would; the byte stays in the buffer for
    the reader."""
    if sys.stdin is None or stdin_is_terminal():  # closed (<&-): no data
        return False
    try:
        if stat.S_ISCHR(os.fstat(sys.stdin.fileno()).st_mode):
            return False
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        pass  # a stand-in stdin without a descriptor (tests): look at its content
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None or not hasattr(buffer, "peek"):
        return True  # cannot look without reading: read it, as before
    try:
        return bool(buffer.peek(1))
    except (ValueError, OSError):
        return False


def reopenable_stdin() -> bool:
    """Make standard input a regular file that every open of ``/dev/stdin`` reads whole,
    and that ``sys.stdin`` reads from its start (see the module's text). ``True`` when it
    is one (already, or now). ``False``, the run then being the CLI's, when it is not
    made one: nothing read for a terminal (the CLI's case), a device such as
    ``/dev/null`` or ``/dev/zero`` (the CLI reads it as it is), a ``sys.stdin`` without a
    descriptor (a stand-in) or a system without ``memfd_create``; and nothing lost when
    piped input runs past :data:`HELD_AT_MOST` bytes or a read of it fails: ``sys.stdin``
    then gives the bytes copied, then the rest of the pipe (or raises that error), as
    reading the pipe would have."""
    stream = sys.stdin
    try:
        if stream is None or stream.isatty():
            return False
        mode = os.fstat(stream.fileno()).st_mode
        buffer = stream.buffer
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        return False
    global _reopened
    if stat.S_ISREG(mode) and _at_start(buffer):
        _reopened = True  # a file read from its start reads the same on every open
        return True
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or not hasattr(os, "memfd_create"):
        return False
    memory = os.memfd_create("wavemetrics-stdin", os.MFD_CLOEXEC)
    # one read of the pipe at a time (read1), so that the bytes a read gave before a
    # failing one are kept, as the CLI's line reads would have had them
    read = getattr(buffer, "read1", buffer.read)
    rest: Callable[[int], bytes] | None = None  # what follows the bytes held, if any
    held = 0
    with open(memory, "wb", buffering=0, closefd=False) as copy:
        try:
            while chunk := read(_CHUNK):
                copy.write(chunk)
                held += len(chunk)
                if held >= HELD_AT_MOST:
                    rest = read  # the pipe goes on: the rest is read from it
                    break
        except OSError as error:  # a read of the pipe failed: handed on to the CLI
            rest = _raiser(error)
    os.lseek(memory, 0, os.SEEK_SET)
    if rest is None:  # all of it held: the file in stdin's place
        os.dup2(memory, 0)
        os.close(memory)
        raw: io.RawIOBase = io.FileIO(0, "rb", closefd=False)
    else:
        raw = _Joined(io.FileIO(memory, "rb", closefd=True), rest)
    sys.stdin = _text(raw, stream)
    _reopened = rest is None
    return _reopened


def settle_stdin(taken: bool) -> None:
    """Once the native command is done with a run that read ``-``: leave standard input
    as the CLI's read would have left it, when :func:`reopenable_stdin` made it a file.
    ``taken``: the native command made the run, so the input was read to its end
    (descriptor 0 is moved there, for whatever reads it next, as after the CLI's
    read); else the CLI reads it next, from its start, whatever the native command
    read of it through ``sys.stdin`` (a format only the Python readers read): the
    descriptor goes back to the start and ``sys.stdin`` is made anew."""
    global _reopened
    if not _reopened:
        return
    _reopened = False
    if taken:
        os.lseek(0, 0, os.SEEK_END)
        return
    os.lseek(0, 0, os.SEEK_SET)
    sys.stdin = _text(io.FileIO(0, "rb", closefd=False), sys.stdin)


def _text(raw: io.RawIOBase, like: TextIO) -> io.TextIOWrapper:
    """A ``sys.stdin`` reading ``raw``, in the encoding and error handler of ``like``
    (the ``sys.stdin`` it replaces)."""
    return io.TextIOWrapper(io.BufferedReader(raw), encoding=like.encoding,
                            errors=like.errors)


#: Bytes of piped input held in memory at the most: past them the CLI reads the input
#: (the bytes held, then the rest of the pipe), so that an endless pipe cannot fill the
#: memory. The default ``--max-document-bytes``.
HELD_AT_MOST = 256 * 1024 * 1024


def _at_start(buffer: BinaryIO) -> bool:
    """Whether nothing of the file ``buffer`` reads was read yet (else it is copied from
    where it stands: what the CLI would read)."""
    try:
        return buffer.tell() == 0
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


def _raiser(failure: OSError) -> Callable[[int], bytes]:
    def read(size: int) -> bytes:
        raise failure

    return read


class _Joined(io.RawIOBase):
    """The bytes of ``held`` to its end, then those ``rest(size)`` gives (the rest of a
    pipe, or an error raised)."""

    def __init__(self, held: io.RawIOBase, rest: Callable[[int], bytes]) -> None:
        super().__init__()
        self._held, self._rest = held, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        count = self._held.readinto(buffer)
        if count:
            return count
        view = memoryview(buffer).cast("B")
        data = self._rest(len(view))
        view[:len(data)] = data
        return len(data)
