"""The options a ``summarize`` run's figures depend on, as its outputs record them.

Every ``summarize --format json`` document carries them as its ``"options"``
object (right after ``"schema_kind"``, defaults included, so that a document is
self-describing); ``--format csv`` as ``options.<key>`` columns; the table as an
``options:`` line when one differs from its default (docs/cli.md, "Options in
the output"). ``--jobs``, ``--engine``, ``--no-cache`` and ``--show-paths`` are
not recorded: they never change a figure.

Light on purpose (no import beyond :mod:`wavemetrics._eval_names`): the native
command (:mod:`wavemetrics.fastpath`) hands the default record's JSON text
(:func:`options_json`) to the extension, which writes it into its document
before any of :mod:`json`, :mod:`typing` or the CLI is imported.
"""

from __future__ import annotations

from wavemetrics._eval_names import EVAL_TOOL_NAMES

TYPE_CHECKING = False  # no typing at run time (mypy takes any TYPE_CHECKING as true)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    #: A record's value: a text, a count, ``None`` (not given), or a list of texts.
    Value = str | int | None | list[str]

__all__ = [
    "DEFAULT_MAX_DOCUMENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_MAX_TRACKED_CALLS",
    "OPTION_KEYS",
    "non_default_arguments",
    "options_json",
    "options_record",
]

#: ``observations.DEFAULT_MAX_TRACKED_CALLS`` (the v1 cap), spelled here so that the
#: metric core is not imported (``tests/test_options.py`` checks the three defaults).
DEFAULT_MAX_TRACKED_CALLS = 2000
#: ``limits.DEFAULT_MAX_LINE_BYTES`` (64 MiB).
DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
#: ``limits.DEFAULT_MAX_DOCUMENT_BYTES`` (256 MiB).
DEFAULT_MAX_DOCUMENT_BYTES = 256 * 1024 * 1024

#: The keys of a record, in the order it is written.
OPTION_KEYS = ("input_format", "eval_tools", "max_tracked_calls", "max_line_bytes",
               "max_document_bytes", "since", "until", "timezone", "by")


def options_record(
    *, input_format: str = "auto", eval_tools: Sequence[str] = EVAL_TOOL_NAMES,
    max_tracked_calls: int | None = DEFAULT_MAX_TRACKED_CALLS,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES,
    since: str | None = None, until: str | None = None, timezone: str | None = None,
    by: str | None = None,
) -> dict[str, Value]:
    """The ``"options"`` object of a run, keys in :data:`OPTION_KEYS` order.

    ``input_format``: ``auto`` or the forced format's name; ``eval_tools``: the eval
    names in effect, as given (``--eval-tool``, else the defaults); ``max_tracked_calls``:
    the per-lane cap, ``None`` when unbounded (``--max-tracked-calls 0``); the two byte
    limits in bytes; ``since``/``until``: the window's bounds as ISO 8601 times with
    their UTC offset (``since`` inclusive, ``until`` exclusive; ``None``: open), as
    :func:`wavemetrics.timewindow.bound_text` writes them; ``timezone``: ``--timezone``
    as given, ``None`` for the machine's local time; ``by``: ``--by``, or ``None``."""
    return {
        "input_format": input_format, "eval_tools": list(eval_tools),
        "max_tracked_calls": max_tracked_calls, "max_line_bytes": max_line_bytes,
        "max_document_bytes": max_document_bytes, "since": since, "until": until,
        "timezone": timezone, "by": by,
    }


def _string(text: str) -> str:
    """``json.dumps(text)``: a plain printable ASCII text is written as it is; any other
    (rare: an eval name of the user's) by :mod:`json` itself, imported then."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    import json

    return json.dumps(text)


def _value(value: Value, indent: str) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int):
        return str(value)
    if not value:
        return "[]"
    inner = indent + "  "
    return "[\n" + ",\n".join(inner + _string(item) for item in value) + "\n" + indent + "]"


def options_json(record: Mapping[str, Value], depth: int = 1) -> str:
    """The JSON text of ``record`` as ``json.dumps(document, indent=2)`` writes it as a
    member's value ``depth`` levels deep (the ``"options"`` of a document: 1), with no
    leading indent or trailing newline. Values are texts, ints, ``None`` or lists of
    texts (a ``TypeError`` for anything else is not checked: records come from
    :func:`options_record`)."""
    indent = "  " * depth
    inner = indent + "  "
    members = [f"{inner}{_string(key)}: {_value(value, inner)}" for key, value in record.items()]
    if not members:
        return "{}"
    return "{\n" + ",\n".join(members) + "\n" + indent + "}"


def _quoted(text: str) -> str:
    import shlex

    return shlex.quote(text)


def non_default_arguments(record: Mapping[str, Value]) -> list[str]:
    """The options of ``record`` that differ from their defaults, as command-line
    arguments that give them again (the bounds as their exact ISO times, names
    shell-quoted; not yet escaped for a terminal), in :data:`OPTION_KEYS` order:
    e.g. ``["--since", "2026-04-18T13:40:00+00:00", "--timezone", "UTC"]``."""
    default = options_record()
    arguments: list[str] = []
    for key in OPTION_KEYS:
        value = record.get(key)
        if value == default[key]:
            continue
        if key == "eval_tools" and isinstance(value, list):
            for name in value:
                arguments += ["--eval-tool", _quoted(name)]
        elif key == "max_tracked_calls":
            arguments += ["--max-tracked-calls", "0" if value is None else str(value)]
        elif value is not None:
            arguments += [f"--{key.replace('_', '-')}", _quoted(str(value))]
    return arguments
