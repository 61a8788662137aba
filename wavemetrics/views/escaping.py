r"""Visible escaping of input text in text output (``docs/formats.md``, "Limits and hostile input").

Every value a text output shows that was taken from an input (ids, tool
names, file and folder names, record types) goes through :func:`printable`:
control characters (C0 ``U+0000``-``U+001F``, DEL ``U+007F``, C1
``U+0080``-``U+009F``), the bidirectional formatting characters (embeddings
and overrides ``U+202A``-``U+202E``, isolates ``U+2066``-``U+2069``, the marks
``U+200E``, ``U+200F``, ``U+061C``) and lone surrogates are written as Python
escapes: ``\t``, ``\n``, ``\r``, else ``\xNN`` below ``U+0100`` and ``\uNNNN`` above; a surrogate
``U+DC80``-``U+DCFF`` that stands for an undecodable byte of a file name
(``surrogateescape``) is shown as that byte, ``\xNN``. So a trace can neither
clear the terminal (``ESC [2J``), forge a table row or a ``wavemetrics:``
line (``\n``, ``\r``), open a hyperlink (OSC 8) nor reverse the text after it
(``U+202E``). Other characters, backslashes included, are shown as they are.
JSON output is not escaped here: ``json.dumps`` already escapes every control
character, and its output is data, not text for a terminal.
"""

from __future__ import annotations

TYPE_CHECKING = False  # mypy takes any TYPE_CHECKING as true
if TYPE_CHECKING:
    import re

__all__ = ["printable", "shortened"]

#: The characters escaped, as a regular expression (compiled, and cached, by :mod:`re`
#: on the first text that needs it: most need none, and importing :mod:`re` is ~5 ms
#: of the native command's start-up, docs/performance-history.md, "Eleventh round").
_UNSAFE = "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"


_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a file name's undecodable byte (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    r"""``text`` with control, bidi-override and lone-surrogate characters escaped visibly.

    >>> printable("ok\x1b[2J\r\nrow\u202eevil\x9b")
    'ok\\x1b[2J\\r\\nrow\\u202eevil\\x9b'
    >>> printable("run\udcff.jsonl"), printable("id\ud800")
    ('run\\xff.jsonl', 'id\\ud800')
    >>> printable("Bash") == "Bash"
    True
    """
    if text.isprintable() and text.isascii():
        return text
    import re

    return re.sub(_UNSAFE, _escape, text)


def shortened(text: str, width: int) -> str:
    r""":func:`printable` ``text`` cut to ``width`` characters, the last one ``…`` when cut.

    Only the head of a long text is escaped, so a 1 MB id costs no more than a short one.

    >>> shortened("agent\x1bX", 8), shortened("ok", 8)
    ('agent\\x…', 'ok')
    """
    text = printable(text[: width * 8])
    return text if len(text) <= width else text[: width - 1] + "…"
