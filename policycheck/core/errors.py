"""Exit codes, located problems and the exceptions that map onto them.

Every user-facing failure becomes one line ``file:line:col: message`` (or
``file: message`` when no position applies) and an exit code; a traceback
is never shown for bad input.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Every blocking rule passes (warnings and live waivers allowed).
EXIT_PASS = 0
#: A blocking rule fails (or warns, with --fail-on-warn).
EXIT_FAIL = 1
#: Invalid policy, release, data or usage.
EXIT_INVALID = 2
#: An evaluator could not run.
EXIT_ERROR = 3


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file, with its position when known."""

    file: str
    message: str
    line: int | None = None  # 1-based
    col: int | None = None  # 1-based

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.file}: {self.message}"
        return f"{self.file}:{self.line}:{self.col or 1}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "col": self.col, "message": self.message}


class PolicycheckError(Exception):
    """Base of the errors the CLI turns into one line and an exit code."""

    exit_code = EXIT_INVALID

    def __init__(self, problems: list[Problem] | Problem | str, advice: str = "") -> None:
        """``advice``: lines that settle the problems (a ``columns:`` block to paste), shown after them."""
        if isinstance(problems, str):
            problems = [Problem("policycheck", problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems = problems
        self.advice = advice
        super().__init__("\n".join([*(str(p) for p in problems), *([advice] if advice else [])]))


class InvalidInput(PolicycheckError):
    """A policy, manifest or data file is malformed or inconsistent (exit 2)."""

    exit_code = EXIT_INVALID


def display_path(path: Path | str | Any) -> str:
    """A path as the user would type it: relative to the working folder if inside it.

    An in-memory table (the Python API's DataFrames) is named by its label.
    """
    if not isinstance(path, (str, Path)) and hasattr(path, "name"):
        return str(path.name)
    p = Path(path).resolve()
    try:
        return str(p.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


class EvaluationError(Exception):
    """An evaluator could not produce a number (exit code 3).

    Defined here, below both ``methods/`` and ``metrics/``, so the papers'
    algorithms can raise it without importing the policy layer; families
    import it from ``policycheck.metrics.base`` as before.
    """
