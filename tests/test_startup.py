"""Commands that touch no data stay fast: they import no heavy numeric library.

The figures are in bench/bench_startup.py; this test pins the cause of a slow
start-up (a family importing scipy, dp_accounting or numba at module level).
"""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "pandas", "scipy", "numba", "dp_accounting", "sklearn", "highspy", "pyarrow")
PROBE = """
import sys
from policycheck.interfaces.cli import main
sys.argv = ["policycheck", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy}))
print("HEAVY:" + ",".join(heavy), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["validate", str(REPO / "policies" / "demo.policy.yaml")],
        ["plan", str(REPO / "policies" / "demo.policy.yaml")],
        ["metrics"],
        ["schema"],
        ["init", "starter.policy.yaml"],
        ["config"],
    ],
)
def test_a_command_without_data_imports_no_heavy_library(args):
    proc = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), *args], capture_output=True, text=True)
    heavy = next(line for line in proc.stderr.splitlines() if line.startswith("HEAVY:"))
    assert heavy == "HEAVY:", proc.stderr


def test_the_registry_still_finds_every_family():
    from policycheck.metrics import registry

    families = {spec.family for spec in registry.metrics().values()}
    assert {"membership", "linkage", "reconstruction", "dp", "utility"} <= families


def _type_checking_only(tree) -> set[str]:
    import ast

    names = set()
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for sub in node.body:
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    names |= {a.asname or a.name.split(".")[0] for a in sub.names}
    return names


def _unimported_uses(path: Path) -> list[str]:
    """Uses of a TYPE_CHECKING-only name in a function that does not import it (outside annotations)."""
    import ast

    tree = ast.parse(path.read_text())
    lazy = _type_checking_only(tree)
    found = []

    def visit(node, imported: frozenset[str]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            body = node.body if isinstance(node.body, list) else [node.body]
            here = {
                a.asname or a.name.split(".")[0]
                for st in ast.walk(node)
                if isinstance(st, (ast.Import, ast.ImportFrom))
                for a in st.names
            }
            for d in getattr(node, "decorator_list", []):
                visit(d, imported)
            for st in body:
                visit(st, imported | here)
            return
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id in lazy
            and node.id not in imported
        ):
            found.append(f"{path.name}:{node.lineno}: {node.id}")
        for field, value in ast.iter_fields(node):
            if field in ("annotation", "returns"):
                continue  # annotations are strings (from __future__ import annotations)
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    visit(child, imported)

    for node in tree.body:
        if not (isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"):
            visit(node, frozenset())
    return found


def test_every_function_imports_the_heavy_names_it_uses():
    # A function merged in later that uses np (say) without importing it would only
    # fail when it runs: this finds it statically.
    modules = [
        *sorted((REPO / "policycheck" / "metrics").rglob("*.py")),
        *sorted((REPO / "policycheck" / "methods").rglob("*.py")),
        REPO / "policycheck" / "engine" / "compiler.py",
    ]
    problems = [p for module in modules for p in _unimported_uses(module)]
    assert problems == []


def test_the_garbage_collector_is_paused_only_while_a_command_without_data_runs(monkeypatch, tmp_path):
    import gc

    from policycheck.interfaces import cli, verify
    from policycheck.io import config

    monkeypatch.chdir(tmp_path)
    seen, after, young = {}, {}, {}

    def spy(module, name):
        real = getattr(module, name)

        def recording(*args, **kwargs):
            seen.setdefault(sys.argv[1], gc.isenabled())
            young.setdefault(sys.argv[1], gc.get_threshold()[0])
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, recording)

    # What each command calls first: its collector state is the one its work runs with.
    spy(config, "load_settings")
    spy(config, "expand_policies")
    spy(verify, "read_report")
    for argv in (
        ["config"],
        ["validate", "missing.policy.yaml"],
        ["diff", "old.json", "new.json"],
        ["check", "missing.policy.yaml"],
    ):
        monkeypatch.setattr(sys, "argv", ["policycheck", *argv])
        with pytest.raises(SystemExit):
            cli.main()
        after[argv[0]] = gc.isenabled()
    assert seen == {"config": False, "validate": False, "diff": True, "check": True}
    assert after == {"config": True, "validate": True, "diff": True, "check": True}  # as main() found it
    # A command with data collects its youngest generation every 50,000 allocations, not Python's 700.
    assert (young["diff"], young["check"]) == (50_000, 50_000)
    assert gc.get_threshold() == (700, 10, 10)  # as main() found it


def test_main_gives_back_the_stdout_it_found(monkeypatch, tmp_path):
    from policycheck.interfaces import cli

    monkeypatch.chdir(tmp_path)
    before = sys.stdout
    monkeypatch.setattr(sys, "argv", ["policycheck", "config"])
    with pytest.raises(SystemExit):
        cli.main()
    assert sys.stdout is before


def test_main_leaves_the_objects_at_exit_to_the_permanent_generation():
    # A handler registered before main() runs after main()'s (atexit is last in, first out), just before
    # the interpreter's own shutdown collections: by then every object left must be frozen, so those
    # collections skip them (about 0.3 s of a check's exit).
    probe = """
import atexit, gc, sys
atexit.register(lambda: print("FROZEN:", gc.get_freeze_count() > 0, file=sys.stderr))
from policycheck.interfaces.cli import main
sys.argv = ["policycheck", "config"]
main()
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO)
    assert "FROZEN: True" in done.stderr
