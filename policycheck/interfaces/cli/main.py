"""The ``policycheck`` group and :func:`main`, the console entry point (pyproject's ``policycheck``)."""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
import os
import sys
from collections.abc import Iterator
from typing import IO, Any

import click

from policycheck.core.version import __version__
from policycheck.interfaces.cli.check import check
from policycheck.interfaces.cli.common import echo, usage_line
from policycheck.interfaces.cli.config import show_config
from policycheck.interfaces.cli.demo import demo
from policycheck.interfaces.cli.diff import diff
from policycheck.interfaces.cli.index import index
from policycheck.interfaces.cli.init import init
from policycheck.interfaces.cli.metrics import list_metrics
from policycheck.interfaces.cli.plan import plan
from policycheck.interfaces.cli.schema import schema
from policycheck.interfaces.cli.sign import sign
from policycheck.interfaces.cli.validate import validate
from policycheck.interfaces.cli.verify import verify


@functools.cache
def freeze_at_exit() -> None:
    """Have every object left at exit moved to the permanent generation (once per process: tests call main() often).

    The collections of the interpreter's shutdown skip that generation: a check ends with some 180,000 tracked
    objects (pandas, numba, scipy), and traversing them cost about 0.3 s of every command with data, to free
    memory the process gives back anyway. Reference counting still frees what it frees.
    """
    atexit.register(gc.freeze)


#: Commands that compute nothing: short runs that start with the cyclic garbage collector paused (see main()).
NO_DATA_COMMANDS = ("validate", "plan", "metrics", "schema", "init", "config", "sign")


class OneLineUsageError(click.UsageError):
    """A command line click could not parse, shown as every other error is: one line (common.usage_line)."""

    def show(self, file: IO[Any] | None = None) -> None:
        echo(usage_line(self.format_message(), self.ctx.command_path if self.ctx else None), err=True)


class Group(click.Group):
    """The command group, whose parse errors (an unknown option, a missing argument) print one line."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except OneLineUsageError:
            raise
        except click.UsageError as exc:
            raise OneLineUsageError(exc.format_message(), exc.ctx) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OneLineUsageError:
            raise
        except click.UsageError as exc:  # a sub-command's arguments, parsed here
            raise OneLineUsageError(exc.format_message(), exc.ctx) from None


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="policycheck")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Privacy policy-as-code for synthetic data releases."""
    ctx.color = colour_choice()
    if ctx.invoked_subcommand not in NO_DATA_COMMANDS and isinstance(ctx.obj, StartupCollector):
        ctx.obj.resume(data=True)  # a command with data runs with the collector on


for command in (check, demo, diff, index, init, list_metrics, plan, schema, show_config, sign, validate, verify):
    cli.add_command(command)


def colour_choice(environ: dict[str, str] | None = None) -> bool | None:
    """Colour on a terminal only; NO_COLOR (no-color.org) turns it off, FORCE_COLOR on.

    None lets click decide per stream: colour when it is a terminal.
    """
    environ = dict(os.environ) if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    return None


#: Allocations between two collections of the youngest generation in a command with data (Python's: 700).
DATA_YOUNG_THRESHOLD = 50_000


class StartupCollector:
    """The cyclic garbage collector paused while the command line starts, and as it was after.

    Start-up (click, pydantic, the metric registry) allocates objects that
    live until exit, and the collector's passes over them cost about a tenth
    of a command without data. The pause lasts the whole of such a command;
    a command with data resumes the collector before its work starts
    (:func:`cli`), collecting its youngest generation every
    :data:`DATA_YOUNG_THRESHOLD` allocations: the libraries it imports and
    the release it reads are long-lived too (a 300,000-row check went from
    450 collections, 0.25-0.30 s of its main thread, to 6, 0.10-0.11 s).
    On leaving, the collector is as it was on entering.
    """

    def __enter__(self) -> StartupCollector:
        self.was_enabled = gc.isenabled()
        self.thresholds = gc.get_threshold()
        gc.disable()
        return self

    def resume(self, data: bool = False) -> None:
        """The collector running again; for a command with ``data``, its youngest generation collected less often."""
        if data:
            gc.set_threshold(max(DATA_YOUNG_THRESHOLD, self.thresholds[0]), *self.thresholds[1:])
        if self.was_enabled:
            gc.enable()

    def __exit__(self, *exc: object) -> None:
        gc.set_threshold(*self.thresholds)
        self.resume()


class PipeSafeStream:
    """stdout that survives a reader closing the pipe (``policycheck diff A B | head -1``).

    On the first broken-pipe error, the rest of the output goes to
    /dev/null, so the command finishes and exits with its own code, quietly,
    instead of a traceback and exit 3.
    """

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._silence()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._silence()

    def _silence(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())
        os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def pipe_safe_stdout() -> Iterator[None]:
    """sys.stdout as a :class:`PipeSafeStream` for the duration; the stream it replaced afterwards."""
    with contextlib.redirect_stdout(PipeSafeStream(sys.stdout)):
        yield


def main() -> None:
    """The console entry point: the command line with stdout safe from a closed pipe, a quick start-up and exit."""
    freeze_at_exit()
    with pipe_safe_stdout(), StartupCollector() as collector:
        cli(prog_name="policycheck", obj=collector)
