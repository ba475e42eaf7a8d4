"""The house's arrows: report/ is one way (report.json -> summary -> renderers), methods/ never imports metrics/."""

import ast
from pathlib import Path

import policycheck

PACKAGE = Path(policycheck.__file__).parent


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function (both make an arrow)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def report_graph() -> dict[str, set[str]]:
    modules = {p.stem: p for p in (PACKAGE / "report").glob("*.py") if p.stem != "__init__"}
    return {
        name: {m.rsplit(".", 1)[-1] for m in imported_modules(path) if m.startswith("policycheck.report.")}
        & set(modules)
        for name, path in modules.items()
    }


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


def test_report_package_has_no_import_cycle():
    assert find_cycle(report_graph()) is None


def test_summary_and_formatting_import_no_renderer():
    graph = report_graph()
    renderers = {"render", "junit", "sarif", "charts"}
    assert graph["summary"] & renderers == set()
    assert graph["formatting"] & renderers == set()
    assert graph["junit"] & {"render", "sarif"} == set() and graph["sarif"] & {"render", "junit"} == set()


def test_methods_never_import_metrics():
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(m for m in imported_modules(path) if m.startswith("policycheck.metrics"))
        for path in (PACKAGE / "methods").rglob("*.py")
    }
    assert {path: mods for path, mods in offenders.items() if mods} == {}
