"""The package's import graph has no cycle (docs/architecture.md, "Imports").

Every module of ``wavemetrics/`` is read as source (nothing is imported) and
every import statement in it counts, wherever it stands: at the top, inside a
function (a deferred import still runs, later), inside ``try``. A relative
import is resolved against the module's package, and ``from pkg import name``
is an import of ``pkg.name`` when that is a module of the package, else of
``pkg``. Only imports of the package's own modules are edges.

Two graphs are checked: the run-time graph, where an import under ``if
TYPE_CHECKING:`` does not count (it never runs), and the type graph, where it
does, except in the package top ``wavemetrics/__init__.py``, whose
``TYPE_CHECKING`` block names every public module only so that mypy sees its
lazy re-exports.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

import wavemetrics

PACKAGE = Path(wavemetrics.__file__).parent


def module_names(package: Path) -> dict[str, Path]:
    """Every module of ``package`` (a folder with an ``__init__.py``) by dotted name;
    a sub-package is named by its ``__init__.py``."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """The ids of the nodes under an ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (
                (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
                or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")):
            inside.update(id(child) for statement in node.body for child in ast.walk(statement))
    return inside


def imports_of(name: str, path: Path, modules: set[str], *, type_checking: bool) -> set[str]:
    """The package's modules that module ``name`` (its source at ``path``) imports
    anywhere in its file; ``type_checking``: count imports under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped = set() if type_checking else _type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[:len(parts) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                if f"{target}.{alias.name}" in modules:
                    found.add(f"{target}.{alias.name}")
                elif target in modules:
                    found.add(target)
    found.discard(name)
    return found


def import_graph(package: Path, *, type_checking: bool = False) -> dict[str, set[str]]:
    """Each module of ``package`` with the package's modules it imports. With
    ``type_checking``, imports under ``if TYPE_CHECKING:`` count too, except the
    package top's."""
    modules = module_names(package)
    return {name: imports_of(name, path, set(modules),
                             type_checking=type_checking and name != package.name)
            for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as ``[a, b, ..., a]`` (each imports the next, ``a`` the
    cycle's first name in sort order), or ``None``."""
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        # graphlib lists a cycle with each node a predecessor (here: an import) of the
        # next; reversed, each imports the next; rotated to start at its first name
        cycle = list(reversed(error.args[1]))[:-1]
        start = cycle.index(min(cycle))
        return cycle[start:] + cycle[:start + 1]
    return None


def _write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return root / "pkg"


def test_every_kind_of_import_is_an_edge(tmp_path: Path) -> None:
    """Module level, inside a function, relative (one and two dots), ``from pkg import
    module`` and ``from pkg import name``; outside modules are not edges."""
    package = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "import os\nimport pkg.b\n",
        "pkg/b.py": "def f():\n    from pkg import c\n",
        "pkg/c.py": "from . import d\nfrom .sub.e import X\n",
        "pkg/d.py": "from pkg import VERSION\n",
        "pkg/sub/__init__.py": "from ..d import Y\n",
        "pkg/sub/e.py": "from .. import a\nfrom . import f\n",
        "pkg/sub/f.py": "",
    })
    assert import_graph(package) == {
        "pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg.d", "pkg.sub.e"},
        "pkg.d": {"pkg"}, "pkg.sub": {"pkg.d"}, "pkg.sub.e": {"pkg.a", "pkg.sub.f"},
        "pkg.sub.f": set(),
    }
    # a -> b -> c -> sub.e -> a, through a function's import and two relative ones
    assert find_cycle(import_graph(package)) == ["pkg.a", "pkg.b", "pkg.c", "pkg.sub.e", "pkg.a"]


def test_type_checking_imports_count_only_in_the_type_graph(tmp_path: Path) -> None:
    package = _write(tmp_path, {
        "pkg/__init__.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from pkg.a import A\n",
        "pkg/a.py": "import typing\nif typing.TYPE_CHECKING:\n    from pkg.b import B\n",
        "pkg/b.py": "from pkg.a import A\nimport pkg\n",
    })
    assert import_graph(package) == {"pkg": set(), "pkg.a": set(), "pkg.b": {"pkg.a", "pkg"}}
    assert find_cycle(import_graph(package)) is None
    # the package top's own TYPE_CHECKING block is left out even then
    assert import_graph(package, type_checking=True) == {
        "pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a", "pkg"}}
    assert find_cycle(import_graph(package, type_checking=True)) == ["pkg.a", "pkg.b", "pkg.a"]


def test_the_value_types_are_a_leaf_of_the_run_layer() -> None:
    """The lane and outcome types import no reader format, engine, cache or orchestrator."""
    graph = import_graph(PACKAGE)
    assert not {"wavemetrics.run.pipeline", "wavemetrics.run.native", "wavemetrics.cache.units",
                "wavemetrics.readers"} & graph["wavemetrics.run._lanes"]


@pytest.mark.parametrize("type_checking", [False, True], ids=["run-time", "types"])
def test_the_package_has_no_import_cycle(type_checking: bool) -> None:
    cycle = find_cycle(import_graph(PACKAGE, type_checking=type_checking))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])
