"""The default eval (code-execution) tool names (``docs/metrics.md`` section 4), and the
default batchable names and idle gap of section 9.

Light on purpose (no import at all): :mod:`wavemetrics.core.classify` defines the rules
and re-exports :data:`EVAL_TOOL_NAMES`; the native command
(:mod:`wavemetrics.run.fastpath`) hands the names to the extension without importing
:mod:`wavemetrics.core.classify` and its :mod:`enum` (~3 ms of a cold run's start-up,
docs/performance-history.md, "Eleventh round").
"""

from __future__ import annotations

__all__ = ["BATCHABLE_TOOL_NAMES", "DEFAULT_IDLE_GAP_MS", "EVAL_TOOL_NAMES"]

#: Default eval (code-execution) tool names, already in normal form. ``ln`` is
#: deliberately absent.
EVAL_TOOL_NAMES: tuple[str, ...] = ("eval", "codemode", "code_mode")

#: Tools whose calls a model could have issued together (section 9): reads and
#: searches, already in normal form (:mod:`wavemetrics.core.activity` re-exports them).
BATCHABLE_TOOL_NAMES: tuple[str, ...] = (
    "read", "read_file", "view", "grep", "glob", "ls", "list", "list_dir",
    "list_directory", "find", "search", "search_files", "webfetch", "web_fetch",
    "websearch", "web_search",
)

#: The default gap (ms) after which the lane counts as idle: 5 minutes (section 9).
DEFAULT_IDLE_GAP_MS = 300000.0
