"""Eval classification of tool names and waves (``docs/metrics.md`` section 4)."""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable

from wavemetrics.core._eval_names import EVAL_TOOL_NAMES

__all__ = [
    "EVAL_TOOL_NAMES",
    "JS_TRIM_CHARACTERS",
    "WaveBucket",
    "check_eval_names",
    "classify_wave",
    "is_eval_tool_name",
    "normalize_tool_name",
    "tool_name_matches",
    "wave_bucket",
]

#: Exactly the characters JavaScript's ``String.prototype.trim`` removes
#: (WhiteSpace and LineTerminator of ECMA-262). Python's ``str.strip()`` differs.
JS_TRIM_CHARACTERS = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_SEPARATORS = ("_", ":", "/")


class WaveBucket(str, enum.Enum):
    """The bucket of a wave: its value is the wire spelling."""

    NON_EVAL = "non_eval"
    EVAL_ONLY = "eval_only"
    MIXED = "mixed"

    def __str__(self) -> str:
        return self.value


def normalize_tool_name(name: str) -> str:
    """Normal form of a tool name: JavaScript trim, ``str.lower()``, ``-`` to ``_``.

    No Unicode compatibility folding (fullwidth letters stay as they are).

    >>> normalize_tool_name("\\ufeff Code-Mode\\u3000")
    'code_mode'
    >>> normalize_tool_name("\\x1cEval")
    '\\x1ceval'
    """
    return name.strip(JS_TRIM_CHARACTERS).lower().replace("-", "_")


def check_eval_names(eval_tool_names: Iterable[str]) -> Iterable[str]:
    """``eval_tool_names`` itself; raises ``TypeError`` if it is a single ``str``.

    The one check every API taking eval names runs: ``tuple("eval")`` would be
    the letters e, v, a, l, each an eval name.
    """
    if isinstance(eval_tool_names, str):
        raise TypeError("eval_tool_names is a collection of names, not one str")
    return eval_tool_names


def _normal_eval_names(eval_tool_names: Iterable[str]) -> tuple[str, ...]:
    # Caller-supplied names are normalised too, so "Code-Mode" means code_mode;
    # an empty name would match every name ending in a separator, so it is dropped.
    names = (normalize_tool_name(e) for e in check_eval_names(eval_tool_names))
    return tuple(e for e in names if e)


def _matches(normal: str, eval_names: tuple[str, ...]) -> bool:
    for e in eval_names:
        if normal == e:
            return True
        for sep in _SEPARATORS:
            if normal.endswith(sep + e):
                return True
    return False


def tool_name_matches(name: str, tool_names: Iterable[str]) -> bool:
    """True iff ``name``'s normal form equals one of ``tool_names``' normal forms or ends
    with ``_``, ``:`` or ``/`` followed by one (an empty one is ignored): the rule of
    section 4, shared by the eval names and the batchable names of section 9.

    Raises ``TypeError`` if ``tool_names`` is a single ``str``.

    >>> tool_name_matches("mcp__fs__Read", ["read"]), tool_name_matches("thread", ["read"])
    (True, False)
    """
    return _match(name, tool_names)


def _match(name: str, tool_names: Iterable[str]) -> bool:
    # the answers are remembered across lanes for a run's names (each lane's memo alone
    # normalised the lists again per lane and tool name: a quarter of the reference
    # engine's time on a stream of 2,622 sessions); a name or list element that cannot
    # be hashed (no str: never a reader's) raises TypeError
    return _remembered_match(name, tuple(check_eval_names(tool_names)))


@functools.lru_cache(maxsize=4096)  # pragma: no mutate (a memo's size: same answers)
def _remembered_match(name: str, names: tuple[str, ...]) -> bool:
    return _matches(normalize_tool_name(name), _normal_eval_names(names))


def is_eval_tool_name(name: str, eval_tool_names: Iterable[str] = EVAL_TOOL_NAMES) -> bool:
    """True iff ``name``'s normal form equals an eval name or ends with ``_e``, ``:e``, ``/e``.

    ``eval_tool_names`` are normalised the same way (an empty one is ignored).
    Raises ``TypeError`` if ``eval_tool_names`` is a single ``str``.

    >>> [is_eval_tool_name(n) for n in ("mcp:eval", "code-mode", "evaluate", "foo.eval")]
    [True, True, False, False]
    """
    return _match(name, eval_tool_names)


def classify_wave(
    tool_names: Iterable[str], eval_tool_names: Iterable[str] = EVAL_TOOL_NAMES
) -> WaveBucket:
    """Bucket of a wave from its calls' tool names (section 4).

    No eval names (also no names at all): ``non_eval``; only eval names:
    ``eval_only``; both: ``mixed``.

    >>> classify_wave(["read", "eval"]).value
    'mixed'
    """
    eval_names = _normal_eval_names(eval_tool_names)
    matches = [_matches(normalize_tool_name(name), eval_names) for name in tool_names]
    return wave_bucket(sum(matches), len(matches))


def wave_bucket(eval_calls: int, calls: int) -> WaveBucket:
    """Bucket of a wave of ``calls`` calls of which ``eval_calls`` are eval calls (section 4).

    The one rule :func:`classify_wave` and the summary share: no eval call (also
    no call at all): ``non_eval``; every call an eval call: ``eval_only``;
    otherwise ``mixed``.

    >>> [wave_bucket(0, 2).value, wave_bucket(2, 2).value, wave_bucket(1, 2).value]
    ['non_eval', 'eval_only', 'mixed']
    """
    if eval_calls == 0:
        return WaveBucket.NON_EVAL
    if eval_calls == calls:
        return WaveBucket.EVAL_ONLY
    return WaveBucket.MIXED
