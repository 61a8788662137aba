"""The line layer (``wavemetrics/readers/_lines.py``): every physical line lands in one bucket.

``docs/formats.md``, "For every format": ``lines_read == lines_used + lines_ignored +
problems``; a problem never stops the read; blank lines, a UTF-8 BOM and CRLF
endings are tolerated.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from wavemetrics.readers._lines import LineAccount, iter_records, os_text, usable_text


def _read(lines: list[bytes]) -> tuple[list[dict[str, Any]], LineAccount]:
    """Run ``iter_records`` and use every record, as a reader that keeps all would."""
    account = LineAccount()
    records = []
    for record in iter_records(lines, account):
        records.append(record)
        account.use()
    assert account.lines_read == (
        account.lines_used + account.lines_ignored + sum(account.problems.values())
    )
    return records, account


def test_account_sums_ignored_kinds_into_lines_ignored() -> None:
    """``lines_ignored`` is the sum of the per-type ignored counts; notes are not lines."""
    account = LineAccount()
    account.ignore("summary")
    account.ignore("summary")
    account.ignore("progress")
    account.note("repeated_tool_use", 5)
    account.problem("invalid_json")
    account.use()
    assert account.lines_ignored == 3
    assert account.ignored == Counter({"summary": 2, "progress": 1})
    assert account.problems == Counter({"invalid_json": 1})
    assert account.notes == Counter({"repeated_tool_use": 5})
    assert account.lines_used == 1
    assert account.lines_read == 0


def test_objects_are_yielded_in_file_order() -> None:
    """Each JSON object line is yielded once, in order, and counted as read."""
    records, account = _read([b'{"n": 1}\n', b'{"n": 2}\n', b'{"n": 3}\n'])
    assert records == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert (account.lines_read, account.lines_used) == (3, 3)
    assert not account.problems and not account.ignored


def test_blank_and_whitespace_lines_are_ignored_as_blank_line() -> None:
    """Empty, space-only, tab-only and CRLF-only lines are ignored under ``blank_line``."""
    records, account = _read([b"\n", b"   \n", b"\t\n", b"\r\n", b'{"n": 1}\n', b"  "])
    assert records == [{"n": 1}]
    assert account.lines_read == 6
    assert account.ignored == Counter({"blank_line": 5})
    assert not account.problems


def test_crlf_line_endings_are_stripped() -> None:
    """Lines ending in CRLF parse like LF lines."""
    records, account = _read([b'{"n": 1}\r\n', b'{"n": 2}\r\n'])
    assert records == [{"n": 1}, {"n": 2}]
    assert account.lines_used == 2


def test_bom_on_the_first_line_is_tolerated() -> None:
    """A UTF-8 BOM before the first line is dropped; the line parses."""
    records, account = _read([b'\xef\xbb\xbf{"n": 1}\n', b'{"n": 2}\n'])
    assert records == [{"n": 1}, {"n": 2}]
    assert not account.problems


def test_bom_on_a_later_line_is_invalid_json() -> None:
    """Only the first line may carry a BOM; elsewhere it makes the line invalid JSON."""
    records, account = _read([b'{"n": 1}\n', b'\xef\xbb\xbf{"n": 2}\n'])
    assert records == [{"n": 1}]
    assert account.problems == Counter({"invalid_json": 1})


def test_invalid_utf8_line_is_a_problem_and_reading_continues() -> None:
    """A line that is not UTF-8 is ``invalid_utf8``; the lines after it are still read."""
    records, account = _read([b'{"a": "\xff\xfe"}\n', b'{"n": 2}\n'])
    assert records == [{"n": 2}]
    assert account.problems == Counter({"invalid_utf8": 1})
    assert account.lines_read == 2


def test_unparsable_lines_are_invalid_json() -> None:
    """Broken JSON, trailing garbage and a bare word are ``invalid_json``."""
    records, account = _read([b'{"n": 1\n', b'{"n": 1} x\n', b"hello\n", b'{"n": 4}\n'])
    assert records == [{"n": 4}]
    assert account.problems == Counter({"invalid_json": 3})


def test_nan_and_infinity_literals_are_invalid_json() -> None:
    """``NaN``, ``Infinity`` and ``-Infinity`` are not JSON: the line is ``invalid_json``."""
    records, account = _read(
        [b'{"t": NaN}\n', b'{"t": Infinity}\n', b'{"t": -Infinity}\n', b'{"t": 1e400}\n']
    )
    # 1e400 is valid JSON syntax: it parses (to inf) and is left to the reader to reject.
    assert records == [{"t": float("inf")}]
    assert account.problems == Counter({"invalid_json": 3})


def test_integer_beyond_the_digit_limit_is_invalid_json() -> None:
    """An integer literal longer than Python's int-parsing limit is ``invalid_json``."""
    line = b'{"t": ' + b"9" * 5000 + b"}\n"
    records, account = _read([line])
    assert records == []
    assert account.problems == Counter({"invalid_json": 1})


def test_valid_json_that_is_not_an_object_is_not_an_object() -> None:
    """Arrays, strings, numbers, ``null`` and booleans are ``not_an_object``."""
    lines = [b"[1, 2]\n", b'"text"\n', b"3\n", b"null\n", b"true\n", b'{"n": 6}\n']
    records, account = _read(lines)
    assert records == [{"n": 6}]
    assert account.problems == Counter({"not_an_object": 5})


def test_deeply_nested_json_is_too_deeply_nested() -> None:
    """100 000 levels of nesting are ``too_deeply_nested``, never a RecursionError."""
    arrays = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    objects = b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n"
    records, account = _read([arrays, objects, b'{"n": 3}\n'])
    assert records == [{"n": 3}]
    assert account.problems == Counter({"too_deeply_nested": 2})


def test_duplicated_keys_keep_the_last_value() -> None:
    """A key repeated in one object takes its last value (Python ``json``)."""
    records, _ = _read([b'{"id": "first", "id": "last"}\n'])
    assert records == [{"id": "last"}]


def test_unparsable_last_line_without_newline_is_truncated_last_line() -> None:
    """A final line with no newline that does not parse is ``truncated_last_line``."""
    records, account = _read([b'{"n": 1}\n', b'{"n": 2, "tex'])
    assert records == [{"n": 1}]
    assert account.problems == Counter({"truncated_last_line": 1})
    assert account.lines_read == 2


def test_parsable_last_line_without_newline_is_used() -> None:
    """A final line with no newline that parses is a complete record (many writers omit it)."""
    records, account = _read([b'{"n": 1}\n', b'{"n": 2}'])
    assert records == [{"n": 1}, {"n": 2}]
    assert not account.problems


def test_unparsable_last_line_with_newline_keeps_its_own_reason() -> None:
    """A broken final line that does end in a newline is not truncated: ``invalid_json``."""
    _, account = _read([b'{"n": 1}\n', b'{"n": \n'])
    assert account.problems == Counter({"invalid_json": 1})


def test_truncation_overrides_the_parse_reason_of_the_last_line() -> None:
    """A cut last line is ``truncated_last_line`` whatever made it unparsable."""
    for last in (b'{"a": "\xe2\x82', b"[" * 100_000, b"12"):
        _, account = _read([b'{"n": 1}\n', last])
        assert account.problems == Counter({"truncated_last_line": 1}), last[:10]


def test_blank_last_line_without_newline_is_blank() -> None:
    """Trailing spaces after the last newline are a blank line, not a truncation."""
    _, account = _read([b'{"n": 1}\n', b"   "])
    assert account.ignored == Counter({"blank_line": 1})
    assert not account.problems


def test_no_lines_read_nothing() -> None:
    """An empty input yields nothing and reads zero lines."""
    records, account = _read([])
    assert records == []
    assert account.lines_read == 0


def test_mixed_input_accounts_for_every_line_exactly() -> None:
    """Every line of a mixed input lands in exactly one bucket with the right reason."""
    lines = [
        b'\xef\xbb\xbf{"n": 1}\r\n',
        b"\n",
        b"\xff\n",
        b"[]\n",
        b"{bad\n",
        b'{"n": 2}\n',
        b'{"n": NaN}\n',
        b'{"n": 3',
    ]
    records, account = _read(lines)
    assert records == [{"n": 1}, {"n": 2}]
    assert account.lines_read == 8
    assert account.lines_used == 2
    assert account.ignored == Counter({"blank_line": 1})
    assert account.problems == Counter(
        {"invalid_utf8": 1, "not_an_object": 1, "invalid_json": 2, "truncated_last_line": 1}
    )


def test_usable_text_accepts_only_non_empty_encodable_strings() -> None:
    """Ids and names must be non-empty ``str`` without lone surrogates."""
    assert usable_text("toolu_01") == "toolu_01"
    assert usable_text("naïve→ツール") == "naïve→ツール"
    assert usable_text("\U0001f600") == "\U0001f600"
    for bad in ("", None, 7, 1.5, True, ["a"], {"a": 1}, "\ud800", "a\udcff"):
        assert usable_text(bad) is None, repr(bad)


def test_os_text_escapes_undecodable_file_name_bytes() -> None:
    """A file name with non-UTF-8 bytes becomes printable text with ``\\xNN`` escapes."""
    assert os_text("session-1") == "session-1"
    assert os_text("caf\u00e9") == "caf\u00e9"
    assert os_text("run\udcff\udcfe") == "run\\xff\\xfe"


def test_ignored_record_types_are_capped_and_only_short_identifiers_are_named() -> None:
    """Past 64 distinct types, further types fold into ``other``; a type that is not a
    short identifier (letters, digits, ``_.:-``, at most 64 characters) is ``other`` too."""
    from wavemetrics.readers._lines import LineAccount

    account = LineAccount()
    for index in range(70):
        account.ignore(f"type{index}")
    account.ignore("type3")
    account.ignore("x" * 100)
    assert len(account.ignored) == 65  # 64 kept types + other
    assert account.ignored["other"] == 7  # type64..type69 and the long one
    assert account.ignored["type3"] == 2
    assert account.lines_ignored == 72
    fresh = LineAccount()
    for kind in ("y" * 65, "my secret prompt", "a\x1bb", "caf\u00e9", "", "ok.v2:x-y_z",
                 "z" * 64):
        fresh.ignore(kind)
    assert fresh.ignored == {"other": 5, "ok.v2:x-y_z": 1, "z" * 64: 1}
