"""The house's arrows: report/ is one way (report.json -> summary -> renderers), methods/ never imports metrics/.

The import graph and the cycle search are tests/test_layering.py's: this file only narrows them.
"""

from test_layering import find_cycle, import_graph

REPORT = "policycheck.report."


def _short(module: str) -> str:
    """``policycheck.report.charts.gauge`` -> ``charts``: a subpackage counts as one node."""
    return module[len(REPORT) :].split(".")[0]


def report_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, targets in import_graph().items():
        if name.startswith(REPORT):
            node = _short(name)
            graph.setdefault(node, set()).update(_short(t) for t in targets if t.startswith(REPORT))
    for node, targets in graph.items():
        targets.discard(node)
    return graph


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
        name: sorted(t for t in targets if t.startswith("policycheck.metrics"))
        for name, targets in import_graph().items()
        if name.startswith("policycheck.methods")
    }
    assert {name: mods for name, mods in offenders.items() if mods} == {}
