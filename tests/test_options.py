"""wavemetrics._options: the options record every ``summarize`` output carries, its JSON
text for the native command, and the table's arguments (docs/cli.md, "Options in the
output")."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from wavemetrics import _options
from wavemetrics._options import (
    OPTION_KEYS,
    non_default_arguments,
    options_json,
    options_record,
)
from wavemetrics.limits import DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_LINE_BYTES
from wavemetrics.observations import DEFAULT_MAX_TRACKED_CALLS


def test_the_defaults_are_the_cli_s() -> None:
    """The light module spells the core's and the limits' defaults: 2000, 64 MiB, 256 MiB."""
    assert (_options.DEFAULT_MAX_TRACKED_CALLS, _options.DEFAULT_MAX_LINE_BYTES,
            _options.DEFAULT_MAX_DOCUMENT_BYTES) == (
        DEFAULT_MAX_TRACKED_CALLS, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_DOCUMENT_BYTES) == (
        2000, 67_108_864, 268_435_456)


def test_the_default_record() -> None:
    """Every key, in order; the eval names as a list; nothing given is ``None``."""
    record = options_record()
    assert list(record) == list(OPTION_KEYS)
    assert record == {
        "input_format": "auto", "eval_tools": ["eval", "codemode", "code_mode"],
        "max_tracked_calls": 2000, "max_line_bytes": 67_108_864,
        "max_document_bytes": 268_435_456, "since": None, "until": None, "timezone": None,
        "by": None,
    }


def _nested(record: dict[str, Any]) -> str:
    """The reference: the value of ``"options"`` in ``json.dumps({...}, indent=2)``."""
    text = json.dumps({"options": record}, indent=2)
    return text[len('{\n  "options": '):-len("\n}")]


_TEXT = st.text(max_size=12)


@given(st.fixed_dictionaries({
    "input_format": _TEXT, "eval_tools": st.lists(_TEXT, max_size=4),
    "max_tracked_calls": st.none() | st.integers(min_value=1, max_value=2**70),
    "max_line_bytes": st.integers(min_value=1), "max_document_bytes": st.integers(min_value=1),
    "since": st.none() | _TEXT, "until": st.none() | _TEXT, "timezone": st.none() | _TEXT,
    "by": st.none() | _TEXT,
}))
def test_options_json_is_json_dumps_byte_for_byte(record: dict[str, Any]) -> None:
    """Any record (any text: quotes, backslashes, control characters, non-ASCII; an
    empty list) is written as ``json.dumps(..., indent=2)`` writes it one
    level deep, the text the native command writes into its document."""
    assert options_json(record) == _nested(record)


def test_the_default_text() -> None:
    """The text the native command hands to the extension, written out by hand."""
    assert options_json(options_record()) == (
        '{\n    "input_format": "auto",\n    "eval_tools": [\n      "eval",\n'
        '      "codemode",\n      "code_mode"\n    ],\n    "max_tracked_calls": 2000,\n'
        '    "max_line_bytes": 67108864,\n    "max_document_bytes": 268435456,\n'
        '    "since": null,\n    "until": null,\n    "timezone": null,\n    "by": null\n  }')


def test_only_options_off_their_default_become_arguments() -> None:
    """Defaults give none; the defaults given again give none; the others come in key
    order, the cap 0 for unbounded, names shell-quoted."""
    assert non_default_arguments(options_record()) == []
    assert non_default_arguments(options_record(
        eval_tools=("eval", "codemode", "code_mode"), max_tracked_calls=2000)) == []
    assert non_default_arguments(options_record(
        by="day", timezone="UTC", until="2026-04-19T00:00:00+00:00", max_tracked_calls=None,
        eval_tools=["it's"], input_format="pi", max_document_bytes=10)) == [
        "--input-format", "pi", "--eval-tool", "'it'\"'\"'s'", "--max-tracked-calls", "0",
        "--max-document-bytes", "10", "--until", "2026-04-19T00:00:00+00:00",
        "--timezone", "UTC", "--by", "day"]
