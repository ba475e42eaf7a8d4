"""What every command shares: printing text from files safely, and turning errors into one line and an exit code."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click

from policycheck.core.errors import EXIT_ERROR, EXIT_INVALID, PolicycheckError, Problem
from policycheck.core.escape import block, one_line

F = TypeVar("F", bound=Callable[..., Any])


def echo(text: str = "", *, err: bool = False, nl: bool = True, lines: bool = False) -> None:
    """click.echo with control characters from the data escaped (``lines``: keep line breaks)."""
    click.echo(block(text) if lines else one_line(text), err=err, nl=nl)


def print_problems(problems: Iterable[Problem]) -> None:
    """Each problem on its own line on stderr: ``file:line:col: message``, or ``error: file: message``."""
    for problem in problems:
        echo(f"error: {problem}" if problem.line is None else str(problem), err=True)


def guard(fn: F) -> F:
    """Turn our errors into lines + exit codes; never show a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except PolicycheckError as exc:
            print_problems(exc.problems)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            echo("interrupted", err=True)
            sys.exit(130)
        except click.UsageError as exc:
            echo(f"policycheck: {exc.format_message()}", err=True)  # one line, like every other error
            sys.exit(EXIT_INVALID)
        except (click.ClickException, click.exceptions.Exit, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - a bug must still never exit 0
            echo(f"internal error: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_ERROR)

    return wrapper  # type: ignore[return-value]
