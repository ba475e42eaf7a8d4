"""CI holds the code to its linter, formatter and type checker: .ci/run runs them, the test extra installs them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHECKS = (".venv/bin/ruff check .", ".venv/bin/ruff format --check .", ".venv/bin/mypy policycheck")


def ci_commands() -> list[str]:
    """The commands of .ci/run, one per line, without comments and blank lines."""
    lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_ci_runs_ruff_and_mypy_after_installing_the_test_extra_and_before_the_tests():
    commands = ci_commands()
    install = next(i for i, c in enumerate(commands) if "pip install -q -e '.[test]'" in c)
    tests = next(i for i, c in enumerate(commands) if c == ".venv/bin/python -m pytest")
    for check in CHECKS:
        assert check in commands, f".ci/run does not run {check!r}"
        assert install < commands.index(check) < tests, f"{check!r} must run after the install and before pytest"


def test_the_test_extra_pins_ruff_and_mypy():
    extra = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    pins = {m.group(1): m.group(2) for m in (re.fullmatch(r"([a-z]+)==(\S+)", r) for r in extra["test"]) if m}
    assert set(pins) >= {"ruff", "mypy"}
