"""The native crates' module graph has no cycle (``docs/architecture.md``, "Native core").

A Rust module may name another by ``use crate::a::b``, ``super::x``, ``self::x``,
a child's name, or a path written out in code (``crate::a::f()``); the compiler
accepts cycles among them, so this test is what keeps the layers one-way: a
reader module never reaches back into the detection or the command that use it.
Each ``.rs`` file is one node (an inline ``mod tests { use super::*; }`` is its
file's own), a path is resolved to the deepest file module it names, and
``mod x;`` declarations are ownership, not use. Comments and string literals are
skipped, so a doc comment that names ``crate::readers`` is no edge.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NATIVE = ROOT / "native"

Module = tuple[str, ...]

_SKIP = re.compile(
    r"//[^\n]*|/\*"
    r'|\bb?r(?P<hashes>#*)"'
    r'|b?"(?:\\.|[^"\\])*"'
    r"|'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'",
    re.S,
)
_BLOCK = re.compile(r"/\*|\*/")
_PATH = re.compile(r"\b(crate|super|self)\b((?:\s*::\s*(?:super\b|\w+))*)")
_USE = re.compile(r"\buse\s+([^;]+);")
_INLINE_MOD = re.compile(r"\bmod\s+(\w+)\s*\{")
# a visibility (`pub(super)`, `pub(in crate::a)`) names who may see an item, not a use
_VISIBILITY = re.compile(r"\bpub\s*\(\s*(?:crate|super|self|in\b[^)]*)\s*\)")


def strip(text: str) -> str:
    """``text`` with comments, strings and char literals blanked (newlines kept)."""
    out: list[str] = []
    pos = 0
    while (found := _SKIP.search(text, pos)) is not None:
        out.append(text[pos : found.start()])
        end = found.end()
        token = found.group()
        if token == "/*":  # block comments nest
            depth = 1
            while depth and end < len(text):
                inner = _BLOCK.search(text, end)
                if inner is None:
                    end = len(text)
                    break
                depth += 1 if inner.group() == "/*" else -1
                end = inner.end()
        elif found.group("hashes") is not None:  # a raw string ends at `"` and its hashes
            close = text.find('"' + found.group("hashes"), end)
            end = len(text) if close < 0 else close + 1 + len(found.group("hashes"))
        out.append("\n" * text.count("\n", found.start(), end))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def file_modules(src: Path) -> dict[Module, Path]:
    """Every ``.rs`` file under a crate's ``src`` as its module path (``lib.rs``: ``()``)."""
    modules: dict[Module, Path] = {}
    for path in sorted(src.rglob("*.rs")):
        parts = path.relative_to(src).with_suffix("").parts
        if parts in {("lib",), ("main",)}:
            parts = ()
        elif parts[-1] == "mod":
            parts = parts[:-1]
        modules[tuple(parts)] = path
    return modules


def _expand(tree: str) -> list[list[str]]:
    """The paths of a ``use`` tree: ``a::{b, c::{d}}`` -> ``[a, b], [a, c, d]``."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))
    brace = tree.find("{")
    if brace < 0:
        return [[part for part in tree.split("::") if part and part != "*"]]
    prefix = [part for part in tree[:brace].split("::") if part]
    inner = tree[brace + 1 : tree.rfind("}")]
    items, depth, start = [], 0, 0
    for k, ch in enumerate(inner):
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            items.append(inner[start:k])
            start = k + 1
    items.append(inner[start:])
    return [prefix + sub for item in items if item for sub in _expand(item)]


def _resolve(here: Module, parts: list[str], modules: dict[Module, Path]) -> Module | None:
    """The file module a path written in module ``here`` names, or None (another crate)."""
    target = list(here)
    if parts[0] == "crate":
        target, parts = [], parts[1:]
    elif parts[0] in {"self", "super"}:
        while parts and parts[0] in {"self", "super"}:
            if parts.pop(0) == "super":
                target = target[:-1]
    elif not any(tuple(target + parts[:1]) == m[: len(target) + 1] for m in modules):
        return None  # std, another crate, or an item, not a child module
    full = target + parts
    for cut in range(len(full), -1, -1):
        if tuple(full[:cut]) in modules:
            return tuple(full[:cut])
    return None


def edges(src: Path) -> dict[Module, set[Module]]:
    """Which file modules each file module of the crate at ``src`` names."""
    modules = file_modules(src)
    graph: dict[Module, set[Module]] = {module: set() for module in modules}
    for module, path in modules.items():
        text = _VISIBILITY.sub(lambda m: " " * len(m.group()), strip(path.read_text(encoding="utf-8")))
        # where each inline module (`mod tests { ... }`) opens and closes
        opens = {m.end() - 1: m.group(1) for m in _INLINE_MOD.finditer(text)}
        changes: list[tuple[int, Module]] = [(0, ())]
        scope: list[tuple[str, int]] = []
        depth = 0
        for brace in re.finditer(r"[{}]", text):
            if brace.group() == "{":
                depth += 1
                if brace.start() in opens:
                    scope.append((opens[brace.start()], depth))
                    changes.append((brace.start(), tuple(name for name, _ in scope)))
            else:
                if scope and scope[-1][1] == depth:
                    scope.pop()
                    changes.append((brace.start(), tuple(name for name, _ in scope)))
                depth -= 1
        starts = [offset for offset, _ in changes]
        found = [(use.start(), parts) for use in _USE.finditer(text)
                 for parts in _expand(use.group(1)) if parts]
        found += [(path.start(), [path.group(1), *re.findall(r"\w+", path.group(2))])
                  for path in _PATH.finditer(text)]
        for offset, parts in found:
            here = module + changes[bisect.bisect_right(starts, offset) - 1][1]
            target = _resolve(here, parts, modules)
            if target is not None and target != module:
                graph[module].add(target)
    return graph


def cycles(graph: dict[Module, set[Module]]) -> list[list[Module]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[Module, int] = {}
    low: dict[Module, int] = {}
    stack: list[Module] = []
    on_stack: set[Module] = set()
    found: list[list[Module]] = []

    def visit(node: Module) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[Module] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def crate_sources() -> list[Path]:
    """The ``src`` folder of every crate under ``native/``."""
    return sorted(toml.parent / "src" for toml in NATIVE.rglob("Cargo.toml")
                  if "[package]" in toml.read_text(encoding="utf-8")
                  and "target" not in toml.relative_to(NATIVE).parts)


@pytest.mark.parametrize("src", crate_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_cycle(src: Path) -> None:
    graph = edges(src)
    assert len(graph) >= 2, f"{src}: no modules found"
    assert cycles(graph) == []


def test_the_native_crate_graph_is_read() -> None:
    # edges written in today's sources, read by hand: command.rs has
    # `use crate::readers::{...}` and `use crate::detect::{...}`; detect.rs names no
    # module of its crate but through `crate::json`/`crate::lines` (the core crate's,
    # re-exported at the root)
    graph = edges(NATIVE / "src")
    assert {("readers",), ("detect",)} <= graph[("command",)]
    assert graph[("detect",)] <= {(), ("io",)}


def _crate(tmp_path: Path, files: dict[str, str]) -> Path:
    src = tmp_path / "src"
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text, encoding="utf-8")
    return src


def test_a_cycle_through_use_and_a_written_path_is_found(tmp_path: Path) -> None:
    src = _crate(tmp_path, {
        "lib.rs": "pub mod a;\npub mod b;\npub mod c;\n",
        "a.rs": "use crate::b::{self, B};\n",
        "b.rs": "pub fn f() { crate::a::g(); }\n",
        "c.rs": "use crate::a;\n",
    })
    assert cycles(edges(src)) == [[("a",), ("b",)]]


def test_a_cycle_between_a_folder_module_and_its_child_is_found(tmp_path: Path) -> None:
    # mod.rs re-exports its child, the child uses an item of mod.rs: a cycle;
    # through a sibling module instead, none
    src = _crate(tmp_path, {
        "lib.rs": "pub mod r;\n",
        "r/mod.rs": "mod x;\nmod shared;\npub use x::X;\npub struct Out;\n",
        "r/x.rs": "use super::Out;\npub struct X;\n",
        "r/shared.rs": "pub struct Shared;\n",
    })
    assert cycles(edges(src)) == [[("r",), ("r", "x")]]
    (src / "r" / "x.rs").write_text("use super::shared::Shared;\npub struct X;\n")
    assert cycles(edges(src)) == []


def test_tests_comments_and_strings_are_no_edges(tmp_path: Path) -> None:
    src = _crate(tmp_path, {
        "lib.rs": "pub mod a;\npub mod b;\n",
        "a.rs": (
            "//! reads [`crate::b::f`]\nuse crate::b;\n"
            "#[cfg(test)]\nmod tests {\n    use super::*;\n    fn t() { super::g(); }\n}\n"
        ),
        "b.rs": (
            "/* crate::a */\npub(super) fn f() -> &'static str { \"crate::a::g\" }\n"
            "pub(in crate::a) fn g() {}\n"
            "const C: char = '\"';\npub fn h() -> &'static str { r#\"super::a\"# }\n"
        ),
    })
    assert edges(src) == {(): set(), ("a",): {("b",)}, ("b",): set()}
