"""The default eval (code-execution) tool names (``docs/metrics.md`` section 4).

Light on purpose (no import at all): :mod:`wavemetrics.core.classify` defines the rules
and re-exports :data:`EVAL_TOOL_NAMES`; the native command
(:mod:`wavemetrics.run.fastpath`) hands the names to the extension without importing
:mod:`wavemetrics.core.classify` and its :mod:`enum` (~3 ms of a cold run's start-up,
docs/performance-history.md, "Eleventh round").
"""

from __future__ import annotations

__all__ = ["EVAL_TOOL_NAMES"]

#: Default eval (code-execution) tool names, already in normal form. ``ln`` is
#: deliberately absent.
EVAL_TOOL_NAMES: tuple[str, ...] = ("eval", "codemode", "code_mode")
