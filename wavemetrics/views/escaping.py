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

Markdown output (``--format markdown``) shows each such value as a code span,
:func:`markdown_code` (``docs/cli.md``, "Markdown"): inside a code span nothing is
markup, so ``*``, ``_``, ``[``, ``<``, ``&``, ``$``, ``@name``, ``:emoji:`` and
``#123`` stay literal text in GitHub's renderer.
"""

from __future__ import annotations

TYPE_CHECKING = False  # mypy takes any TYPE_CHECKING as true
if TYPE_CHECKING:
    import re

__all__ = ["markdown_code", "printable", "shortened"]

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


def markdown_code(text: str, *, cell: bool = True) -> str:
    r""":func:`printable` ``text`` as a GitHub-flavoured Markdown code span, for a table
    cell (``cell``) or running text, or ``""`` for an empty text (an empty cell).

    Inside a code span no character is markup (no emphasis, link, raw HTML, entity,
    math, mention or emoji), so what is left to escape is what reaches the table
    parser before the span is read: in a cell each ``|`` is written ``\|`` (GFM takes
    the backslash out again, inside a code span too: GFM spec, "Tables", example 200);
    in running text a pipe is left as it is (there ``\|`` would show its backslash).
    Backslashes are kept as they are: a code span shows them literally. The span's
    fence is one backtick longer than the longest run of backticks in the text, and
    a space pads each side when the text starts or ends with a backtick or a space
    (CommonMark strips exactly that space again), so the span shows the text exactly.
    Line ends, control and bidi characters were already escaped by :func:`printable`.

    >>> markdown_code("Bash")
    '`Bash`'
    >>> markdown_code("a|b`c"), markdown_code("a|b", cell=False), markdown_code("`x")
    ('``a\\|b`c``', '`a|b`', '`` `x ``')
    >>> markdown_code("</td>\n<script>")
    '`</td>\\n<script>`'
    """
    text = printable(text)
    if cell:
        text = text.replace("|", "\\|")
    if not text:
        return ""
    import re

    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    # all spaces: CommonMark strips nothing, so nothing is padded
    pad = " " if (text[0] in "` " or text[-1] in "` ") and text.strip(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
