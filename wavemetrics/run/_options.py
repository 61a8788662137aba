"""``summarize``'s options: declared once (:data:`SUMMARIZE`), and recorded in its outputs.

**The table.** :data:`SUMMARIZE` is the one declaration of ``summarize``'s
options (flags, conversion, default, help). Three readers of a command line read
it and nothing else: the click command (:mod:`wavemetrics.cli.commands` builds
``summarize``'s parameters from it, in its order, which is ``--help``'s;
``waves``, ``timeline`` and ``compare`` take the rows of the options they share),
the argv parser of the served path (:func:`wavemetrics.cache.runcache.options_from_args`,
which keys a stored run by the options as click converts them) and the native
command (:mod:`wavemetrics.run.fastpath`, which takes a run whose options are all
marked ``native``). ``tests/test_options.py`` checks that the click command's
parameters are the table's, one for one.

**The record.** The options a run's figures depend on, as its outputs record them.

Every ``summarize --format json`` document carries them as its ``"options"``
object (right after ``"schema_kind"``, defaults included, so that a document is
self-describing); ``--format csv`` as ``options.<key>`` columns; the table as an
``options:`` line when one differs from its default (docs/cli.md, "Options in
the output"). ``--jobs``, ``--engine``, ``--no-cache`` and ``--show-paths`` are
not recorded: they never change a figure.

Light on purpose (no import beyond :mod:`wavemetrics.core._eval_names` and
:mod:`wavemetrics.run._cores`; no click): the served path parses argv with the table
before anything else loads, and the native command (:mod:`wavemetrics.run.fastpath`)
hands the default record's JSON text (:func:`options_json`) to the extension,
which writes it into its document before any of :mod:`json`, :mod:`typing` or
the CLI is imported.
"""

from __future__ import annotations

from wavemetrics.core._eval_names import EVAL_TOOL_NAMES
from wavemetrics.run._cores import default_jobs

TYPE_CHECKING = False  # no typing at run time (mypy takes any TYPE_CHECKING as true)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    #: A record's value: a text, a count, ms (a float), ``None`` (not given), or a list
    #: of texts.
    Value = str | int | float | None | list[str]

__all__ = [
    "AUTO",
    "BATCHABLE_TOOL_NAMES",
    "DEFAULT_IDLE_GAP_MS",
    "DEFAULT_MAX_DOCUMENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_MAX_TRACKED_CALLS",
    "ENGINES",
    "FORMATS",
    "MAX_NATIVE_CAP",
    "OPTION_KEYS",
    "SUMMARIZE",
    "TRACKED_CALL_BYTES",
    "Option",
    "default_engine",
    "non_default_arguments",
    "option",
    "options_json",
    "options_record",
    "parse_names",
    "parse_seconds",
]

#: ``observations.DEFAULT_MAX_TRACKED_CALLS`` (the v1 cap), spelled here so that the
#: metric core is not imported (``tests/test_options.py`` checks the three defaults).
DEFAULT_MAX_TRACKED_CALLS = 2000
#: The largest per-lane cap the Rust extension takes: a ``usize``, 64 bits on the
#: machines it is built for; a larger cap is left to the Python readers.
MAX_NATIVE_CAP = 2**64 - 1
#: ``limits.DEFAULT_MAX_LINE_BYTES`` (64 MiB).
DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
#: ``limits.DEFAULT_MAX_DOCUMENT_BYTES`` (256 MiB).
DEFAULT_MAX_DOCUMENT_BYTES = 256 * 1024 * 1024

#: ``activity.BATCHABLE_TOOL_NAMES`` (the section-9 reads and searches), spelled here so
#: that the metric core is not imported (``tests/test_options.py`` checks they are equal).
BATCHABLE_TOOL_NAMES = (
    "read", "read_file", "view", "grep", "glob", "ls", "list", "list_dir",
    "list_directory", "find", "search", "search_files", "webfetch", "web_fetch",
    "websearch", "web_search",
)
#: ``activity.DEFAULT_IDLE_GAP_MS``: 5 minutes, in ms.
DEFAULT_IDLE_GAP_MS = 300000.0

#: ``--input-format auto``: detect each input's format (``readers.dispatch.AUTO``).
AUTO = "auto"
#: The ``--engine`` choices (``native.ENGINES``).
ENGINES = ("python", "native")
#: :attr:`Option.choices` of ``--input-format``: ``auto`` and the registry's formats,
#: loaded when a value or the help needs them (``_names.input_format_choice``).
FORMATS = ("<the registry's formats>",)
#: Memory one tracked call costs, roughly, in bytes: what ``--max-tracked-calls 0`` (no
#: cap) costs per call. Measured with ``tracemalloc`` on the Python engine (docs/cli.md,
#: "The call cap"): a pending call in ``summarize``'s stream ~120 bytes plus its id
#: string (~80 for a Claude Code id), a call of ``waves``/``timeline``'s assembled
#: waves ~220-240 bytes.
TRACKED_CALL_BYTES = 200


def parse_names(text: str) -> list[str]:
    """``--batchable-tools``'s value: the comma-separated names, each stripped of spaces,
    empty ones left out (``""`` or ``","``: no name at all, so no call is batchable).

    >>> parse_names("Read, grep,,mcp__fs__read_file"), parse_names("")
    (['Read', 'grep', 'mcp__fs__read_file'], [])
    """
    return [name.strip() for name in text.split(",") if name.strip()]


def parse_seconds(text: str) -> float:
    """``--idle-gap``'s value, a number of seconds, as ms (``float(text) * 1000.0``).

    Raises ``ValueError`` for a text that is not a number, or a number that is not
    finite or is negative (0 is allowed: it disables idle detection; docs/metrics.md
    section 9).

    >>> parse_seconds("300"), parse_seconds("0.5"), parse_seconds("0")
    (300000.0, 500.0, 0.0)
    """
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number of seconds") from None
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        raise ValueError(f"{text!r}: the gap must be a finite number of seconds")
    if seconds < 0:
        raise ValueError(f"{text!r}: the gap must be >= 0 seconds (0 disables idle time)")
    return seconds * 1000.0


def default_engine() -> str:
    """``native`` when the Rust extension is built, else ``python`` (``native.default_engine``),
    found without importing it."""
    import importlib.util

    return "native" if importlib.util.find_spec("wavemetrics._native") is not None else "python"


class Option:
    """One parameter of ``summarize``.

    ``name``: click's parameter name (the key of the options a run is keyed and
    recorded by); ``flags``: its command-line spellings (none for the ``PATH``
    argument). ``kind`` says how a value is converted, by click and by the served
    path's parser alike: ``argument`` (the paths), ``flag`` (no value, ``True``
    when given), ``text`` (as given), ``choice`` (one of ``choices``; for
    ``--input-format``, :data:`FORMATS`, checked by click only), ``multiple`` (a
    text, repeatable: a list), ``positive`` (an int >= 1), ``cap`` (an int >= 0, 0
    meaning ``None``: unbounded). ``default``: the value when not given, or a
    function giving it when the command is built; ``show_default``: shown in
    ``--help`` (``True``), not (``False``) or as this text. ``keyed``: a run's
    output depends on it (the served path keys by it; ``--jobs``, ``--engine``
    and ``--no-cache`` never change the output); ``recorded``: every output records
    it (:func:`options_record`: a figure depends on it). ``native``: the native
    command takes a run that gives it (``--by``: with ``session``, ``lane``, ``project``
    or ``tool`` only, not the periods; ``wavemetrics.run.fastpath.options_of``).
    """

    __slots__ = ("choices", "default", "flags", "help", "keyed", "kind", "metavar", "name",
                 "native", "recorded", "show_default")

    def __init__(
        self, name: str, flags: tuple[str, ...], kind: str, help: str = "", *,
        default: object = None, show_default: bool | str = False, metavar: str | None = None,
        choices: tuple[str, ...] = (), keyed: bool = True, recorded: bool = False,
        native: bool = False,
    ) -> None:
        self.name, self.flags, self.kind, self.help = name, flags, kind, help
        self.default, self.show_default, self.metavar = default, show_default, metavar
        self.choices, self.keyed, self.recorded, self.native = choices, keyed, recorded, native

    def default_value(self) -> object:
        """:attr:`default`, called when it is a function (the number of cores, the engine)."""
        return self.default() if callable(self.default) else self.default

    def __repr__(self) -> str:
        return f"Option({self.name!r}, {self.flags!r}, {self.kind!r})"


#: ``summarize``'s parameters, in the order of its ``--help``.
SUMMARIZE: tuple[Option, ...] = (
    Option("paths", (), "argument", metavar="[PATH]...", native=True),
    Option("input_format", ("--input-format",), "choice",
           "Trace format; auto: detect from each input's first records.",
           default=AUTO, show_default=True, choices=FORMATS, recorded=True, native=True),
    Option("eval_tools", ("--eval-tool",), "multiple",
           "An eval (code-execution) tool name; repeatable; replaces the defaults "
           f"({', '.join(EVAL_TOOL_NAMES)}).", metavar="NAME", recorded=True, native=True),
    Option("batchable_tools", ("--batchable-tools",), "names",
           "The read-only tools a model could have called together (missed batching),"
           " comma-separated; replaces the defaults (read, grep, glob and the other"
           " reads and searches docs/cli.md lists); an empty value means none.",
           default=",".join(BATCHABLE_TOOL_NAMES), metavar="NAMES", recorded=True,
           native=True),
    Option("idle_gap_ms", ("--idle-gap",), "seconds",
           "A gap with no tool and no turn running longer than this many seconds is idle"
           " time and ends a run of single calls; 0 disables.",
           default=str(int(DEFAULT_IDLE_GAP_MS / 1000)), show_default=True,
           metavar="SECONDS", recorded=True, native=True),
    Option("max_tracked_calls", ("--max-tracked-calls",), "cap",
           "Cap on calls held per lane (the v1 contract's); 0 means unbounded, at about"
           f" {TRACKED_CALL_BYTES} bytes of memory per call held.",
           default=DEFAULT_MAX_TRACKED_CALLS, show_default=True, recorded=True, native=True),
    Option("max_line_bytes", ("--max-line-bytes",), "positive",
           "A longer line is skipped without being held in memory and counted as a"
           " problem (line_too_long).",
           default=DEFAULT_MAX_LINE_BYTES, show_default=True, metavar="BYTES",
           recorded=True),
    Option("max_document_bytes", ("--max-document-bytes",), "positive",
           "A line, JSON document or archive member past this many (decompressed)"
           " bytes ends its input as an error.",
           default=DEFAULT_MAX_DOCUMENT_BYTES, show_default=True, metavar="BYTES",
           recorded=True),
    Option("jobs", ("--jobs", "-j"), "positive",
           "Read inputs in N processes (threads for the native engine);"
           " the output is the same for any N.",
           default=default_jobs, show_default="the number of cores", metavar="N",
           keyed=False, native=True),
    Option("no_cache", ("--no-cache",), "flag",
           "Read every file, neither using nor filling the read cache.",
           keyed=False, native=True),
    Option("since", ("--since",), "text",
           "Only calls whose wave starts at or after this date (2025-09-24,"
           " 20250924) or ISO time; in --timezone, else local time.", metavar="DATE|TIME",
           recorded=True, native=True),
    Option("until", ("--until",), "text",
           "Only calls whose wave starts before this ISO time, or by the end"
           " of this date.", metavar="DATE|TIME", recorded=True, native=True),
    Option("timezone", ("--timezone",), "text",
           "IANA time zone (e.g. Europe/Paris, UTC) of dates, times without"
           " an offset (and summarize's --by day|week|month); default: local time.",
           metavar="ZONE", recorded=True, native=True),
    Option("demo", ("--demo",), "flag",
           "Read the example bundled with wavemetrics (a real Claude Code session's skeleton).",
           native=True),
    Option("output_format", ("--format",), "choice",
           "table: for reading; json: one document; jsonl: one v1 payload per lane with"
           " waves; csv: one row per lane; markdown: the table as GitHub-flavoured Markdown.",
           default="table", show_default=True,
           choices=("table", "json", "jsonl", "csv", "markdown"),
           native=True),
    Option("by", ("--by",), "choice",
           "One row per group (and a total) instead of one per lane; not with jsonl.",
           choices=("session", "lane", "project", "day", "week", "month", "tool"),
           recorded=True, native=True),
    Option("show_paths", ("--show-paths",), "flag",
           "After the table, each row's full session/lane id, format and input path.",
           native=True),
    Option("engine", ("--engine",), "choice",
           "native: the Rust readers for claude-code, events, codex, pi, copilot, kimi,"
           " openclaw, mcode, otlp, otel-spans and inspect inputs (other formats and"
           " non-default limits use Python);"
           " python: the reference implementation. The output is the same.",
           default=default_engine, show_default="native when built", choices=ENGINES,
           keyed=False, native=True),
)

_BY_NAME = {row.name: row for row in SUMMARIZE}


def option(name: str) -> Option:
    """The row of :data:`SUMMARIZE` named ``name`` (a ``KeyError`` for another name)."""
    return _BY_NAME[name]


#: The keys of a record, in the order it is written: the table's rows marked ``recorded``.
OPTION_KEYS = tuple(row.name for row in SUMMARIZE if row.recorded)


def options_record(
    *, input_format: str = "auto", eval_tools: Sequence[str] = EVAL_TOOL_NAMES,
    batchable_tools: Sequence[str] = BATCHABLE_TOOL_NAMES,
    idle_gap_ms: float = DEFAULT_IDLE_GAP_MS,
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
    :func:`wavemetrics.cli.timewindow.bound_text` writes them; ``timezone``: ``--timezone``
    as given, ``None`` for the machine's local time; ``by``: ``--by``, or ``None``."""
    return {
        "input_format": input_format, "eval_tools": list(eval_tools),
        "batchable_tools": list(batchable_tools), "idle_gap_ms": float(idle_gap_ms),
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
    if isinstance(value, float):
        return repr(value)  # json.dumps's float (the gap is finite: no NaN to write)
    if not value:
        return "[]"
    inner = indent + "  "
    return "[\n" + ",\n".join(inner + _string(item) for item in value) + "\n" + indent + "]"


def options_json(record: Mapping[str, Value], depth: int = 1) -> str:
    """The JSON text of ``record`` as ``json.dumps(document, indent=2)`` writes it as a
    member's value ``depth`` levels deep (the ``"options"`` of a document: 1), with no
    leading indent or trailing newline. Values are texts, ints, ``None`` or lists of
    texts or finite floats (a ``TypeError`` for anything else is not checked: records come from
    :func:`options_record`)."""
    indent = "  " * depth
    inner = indent + "  "
    members = [f"{inner}{_string(key)}: {_value(value, inner)}" for key, value in record.items()]
    if not members:
        return "{}"
    return "{\n" + ",\n".join(members) + "\n" + indent + "}"


def _seconds_text(ms: float) -> str:
    """ms as the seconds ``--idle-gap`` takes back: ``90000.0`` -> ``90``, ``500.0`` ->
    ``0.5``."""
    seconds = ms / 1000.0
    return str(int(seconds)) if seconds.is_integer() else repr(seconds)


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
        elif key == "batchable_tools" and isinstance(value, list):
            arguments += ["--batchable-tools", _quoted(",".join(value))]
        elif key == "idle_gap_ms" and isinstance(value, float):
            arguments += ["--idle-gap", _seconds_text(value)]
        elif key == "max_tracked_calls":
            arguments += ["--max-tracked-calls", "0" if value is None else str(value)]
        elif value is not None:
            arguments += [f"--{key.replace('_', '-')}", _quoted(str(value))]
    return arguments
