"""What every command shares: printing text from files safely, and turning errors into one line and an exit code.

One error style everywhere (as ruff and compilers print them): a problem at a
place in a file is ``file:line:col: message``; any other is ``error: FILE:
cause`` (``error: usage: cause`` for a command line that cannot run). Each is
one line ending in a newline, on stderr; never a traceback.
"""

from __future__ import annotations

import functools
import sys
import traceback
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click

from policycheck.core.errors import EXIT_ERROR, EXIT_INVALID, PolicycheckError, Problem
from policycheck.core.escape import block, one_line

F = TypeVar("F", bound=Callable[..., Any])


def echo(text: str = "", *, err: bool = False, nl: bool = True, lines: bool = False) -> None:
    """click.echo with control characters from the data escaped (``lines``: keep line breaks)."""
    click.echo(block(text) if lines else one_line(text), err=err, nl=nl)


def problem_line(problem: Problem) -> str:
    """``file:line:col: message`` for a problem at a place, else ``error: file: message``."""
    return f"error: {problem}" if problem.line is None else str(problem)


def print_problems(problems: Iterable[Problem]) -> None:
    """Each problem on its own line on stderr (:func:`problem_line`)."""
    for problem in problems:
        echo(problem_line(problem), err=True)


def usage_line(message: str, command_path: str | None = None) -> str:
    """A command line that cannot run, as one line: ``error: usage: cause (see `policycheck X --help`)``."""
    if not command_path:
        return f"error: usage: {message}"
    return f"error: usage: {message.removesuffix('.')} (see `{command_path} --help`)"


def internal_error_line(exc: BaseException) -> str:
    """A bug, said once on one line with where it was raised, so it can be reported."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename.rsplit('/policycheck/', 1)[-1]}:{frames[-1].lineno})" if frames else ""
    return f"error: internal error: {type(exc).__name__}: {exc}{where}; please report it"


def guard(fn: F) -> F:
    """Turn our errors into lines + exit codes; never show a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except PolicycheckError as exc:
            print_problems(exc.problems)
            if exc.advice:
                echo(exc.advice, err=True, lines=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            echo("error: interrupted", err=True)
            sys.exit(130)
        except click.UsageError as exc:
            ctx = exc.ctx or click.get_current_context(silent=True)
            echo(usage_line(exc.format_message(), ctx.command_path if ctx else None), err=True)
            sys.exit(EXIT_INVALID)
        except (click.ClickException, click.exceptions.Exit, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - a bug must still never exit 0
            echo(internal_error_line(exc), err=True)
            sys.exit(EXIT_ERROR)

    return wrapper  # type: ignore[return-value]


def output_options(fn: F) -> F:
    """``-q``/``-qq`` and ``--progress``, as ruff and pytest users expect them.

    ``-q``: the verdicts and summary only (no progress); ``-qq``: nothing but
    errors. ``--progress`` chooses the display (default: live bars on a
    terminal, plain lines elsewhere).
    """
    from policycheck.engine.progress import MODES

    fn = click.option(
        "--progress",
        type=click.Choice(MODES),
        help="Progress on stderr: auto (live bars on a terminal, plain lines elsewhere), plain, bar or none "
        "[default: auto; none with -q].",
    )(fn)
    return click.option(
        "-q",
        "--quiet",
        count=True,
        help="-q: the verdicts and summary only; -qq: nothing but errors.",
    )(fn)


def progress_choice(quiet: int, progress: str | None) -> str:
    """The progress mode: --progress if given, else none under -q, else auto."""
    if progress is not None:
        return progress
    return "none" if quiet else "auto"
