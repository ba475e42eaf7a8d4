"""The folder tree is the architecture: layers import only downwards, and no module imports itself round.

The layers, lowest first (README, "How it is built"): core, io, execution, release, methods,
metrics, policy, engine, report, interfaces. An import counts wherever it stands (at the
top, inside a function, under ``TYPE_CHECKING``): each one is an arrow a reader must follow.
"""

from __future__ import annotations

import ast
from pathlib import Path

import policycheck

PACKAGE = Path(policycheck.__file__).parent

#: Lowest first: a module may import from its own layer and the layers before it.
LAYERS = ("core", "io", "execution", "release", "methods", "metrics", "policy", "engine", "report", "interfaces")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The package's modules a file imports (``from a import b`` counts b when b is a module, else a)."""
    name = module_name(path)
    package = name if path.stem == "__init__" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                child = f"{source}.{alias.name}"
                if child in known:
                    found.add(child)
                elif source in known:
                    found.add(source)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports_of(path, set(found)) for name, path in found.items()}


def layer_of(module: str) -> int | None:
    """The layer index of a module, None for the package root and ``__main__`` (entry points, above every layer)."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] == "__main__":
        return None
    return LAYERS.index(parts[1])


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the directed graph as a path [a, b, ..., a], or None (depth-first search, three colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_find_cycle_finds_a_three_module_cycle_and_none_in_a_chain():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_every_top_level_folder_is_a_layer():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(LAYERS)


def test_no_module_sits_beside_the_layers():
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py", "__main__.py"]


def test_the_package_has_no_import_cycle():
    # NOTE: the package root re-exports the API lazily; importing it from inside would close a loop.
    graph = {name: targets - {"policycheck"} for name, targets in import_graph().items()}
    assert find_cycle(graph) is None


def test_no_module_imports_a_higher_layer():
    upward = sorted(
        f"{source} -> {target}"
        for source, targets in import_graph().items()
        for target in targets
        if (low := layer_of(source)) is not None and (high := layer_of(target)) is not None and high > low
    )
    assert upward == []


def test_nothing_inside_the_package_imports_the_package_root():
    offenders = sorted(name for name, targets in import_graph().items() if "policycheck" in targets)
    assert offenders == []
