"""GitHub-flavoured Markdown read back, for the ``--format markdown`` tests.

markdown-it-py's CommonMark parser with the GFM table and strikethrough rules: its
table rule splits a row at unescaped pipes and takes the backslash out of ``\\|``, as
GFM's spec (section "Tables") and cmark-gfm do. The helpers give what a reader of
the rendered page sees: each table's rows of cells, each cell as its inline tokens.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token

_GFM = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def tokens(text: str) -> list[Token]:
    """The block tokens of ``text``."""
    return _GFM.parse(text)


def tables(text: str) -> list[list[list[Token]]]:
    """Each table of ``text``: its rows (the header row first), each row a list of
    cells, each cell the ``inline`` token holding its content."""
    found: list[list[list[Token]]] = []
    row: list[Token] | None = None
    for token in tokens(text):
        if token.type == "table_open":
            found.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            found[-1].append(row)
            row = None
        elif token.type == "inline" and row is not None:
            row.append(token)
    return found


def cell_text(cell: Token) -> str:
    """What a cell shows: its code spans' and texts' content, concatenated, with
    each other inline token (emphasis, link, HTML...) shown as ``<type>``."""
    parts = []
    for child in cell.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        else:
            parts.append(f"<{child.type}>")
    return "".join(parts)


def table_texts(text: str) -> list[list[list[str]]]:
    """:func:`tables` with each cell as :func:`cell_text`."""
    return [[[cell_text(cell) for cell in row] for row in table] for table in tables(text)]
