"""Progress of a check on stderr: one line per plan step.

Steps are numbered 1..N without gaps (``[3/20] evaluating RULE (metric)``).
On a terminal each step gets one live line (rich): its label, a bar, the
count of tasks done and an ETA; a finished step's line stays, so the screen
ends with one line per step. Off a terminal (CI logs), or with ``--progress
plain``, each step prints one plain line when it starts, and a long step a
line at most every ``PLAIN_EVERY`` seconds; ``--progress bar`` draws live
lines anywhere, ``none`` (and ``-q``) nothing. It never writes to stdout,
where reports may go.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from policycheck.metrics.base import Need

#: Seconds between two plain progress lines of one long step.
PLAIN_EVERY = 15.0
#: Longest step label shown; longer ones have their parameters cut with an ellipsis.
LABEL_WIDTH = 60
#: How progress is shown: live bars on a terminal and plain lines elsewhere, always plain, always bars, or nothing.
MODES = ("auto", "plain", "bar", "none")


def short(label: str, width: int = LABEL_WIDTH) -> str:
    """``label`` cut to ``width`` characters, so a step's bar, count and ETA stay on its line.

    Only an intermediate's parameters (``name(a=1, b=2)``) are cut: the
    step's name and ``evaluating RULE (metric)`` are always shown whole.
    """
    opening = next((i for i, c in enumerate(label) if c == "(" and i and label[i - 1] != " "), None)
    if len(label) <= width or opening is None or not label.endswith(")"):
        return label
    room = width - opening - 3  # "(", "…" and ")"
    if room < 1:
        return label[:opening]
    return f"{label[: opening + 1 + room]}…)"


def step_labels(needs: Iterable[Need]) -> dict[Need, str]:
    """Each Need named by its intermediate and only the parameters that tell it
    apart from the other Needs of that intermediate in ``needs``.

    ``Need.label`` carries every parameter (it keys the report's timings), so
    cut to ``LABEL_WIDTH`` it hid the one that varies, e.g. a linkage attack's
    mapping behind ``attributes=None, criterion=sum, ...``. A parameter equal
    across all the Needs of an intermediate tells the user nothing.
    """
    needs = list(needs)
    keys: dict[str, set[str]] = {}
    for need in needs:
        keys.setdefault(need.intermediate, set()).update(k for k, _ in need.params)
    values: dict[tuple[str, str], set[str]] = {}
    for need in needs:
        kwargs = need.kwargs
        for key in keys[need.intermediate]:
            # NOTE: repr, as parameter values may be unhashable; a missing parameter differs from any value.
            values.setdefault((need.intermediate, key), set()).add(repr(kwargs[key]) if key in kwargs else "")
    return {
        need: need.text({k for k in keys[need.intermediate] if len(values[need.intermediate, k]) > 1}) for need in needs
    }


def eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


class Progress:
    """Progress display of a run: ``step`` when a plan step starts, ``tick`` as its tasks finish."""

    def __init__(
        self, stream: TextIO | None = None, enabled: bool = True, plain: bool = False, mode: str | None = None
    ) -> None:
        """``mode`` (one of :data:`MODES`) overrides ``enabled`` and ``plain``."""
        self.stream = stream or sys.stderr
        if mode is not None:
            if mode not in MODES:
                raise ValueError(f"progress mode {mode!r}: expected one of {', '.join(MODES)}")
            enabled, plain = mode != "none", mode == "plain"
        self.enabled = enabled
        terminal = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.live = enabled and not plain and (terminal or mode == "bar")
        self._label = ""
        self._started = time.monotonic()
        self._last_plain = 0.0
        self._bar: Any = None  # rich.progress.Progress, when live
        self._task: Any = None

    def step(self, index: int, total: int, label: str) -> None:
        """A new step begins."""
        if not self.enabled:
            return
        self._label = f"[{index}/{total}] {short(label)}"
        self._started = self._last_plain = time.monotonic()
        if self.live:
            bar = self._live_bar()
            if self._task is not None:
                bar.update(self._task, total=bar.tasks[-1].total or 1, completed=bar.tasks[-1].total or 1)
            self._task = bar.add_task(self._label, total=None)
        else:
            self.stream.write(self._label + "\n")
            self.stream.flush()

    def tick(self, label: str, done: int, total: int) -> None:
        """Part of the current step finished (``done`` of ``total`` tasks)."""
        if not self.enabled or total <= 0:
            return
        if self.live and self._task is not None:
            self._bar.update(self._task, total=total, completed=done)
            return
        now = time.monotonic()
        if done < total and now - self._last_plain >= PLAIN_EVERY:
            self._last_plain = now
            elapsed = now - self._started
            eta = elapsed * (total - done) / done if done else None
            self.stream.write(
                f"  {short(label, 40)}: {done}/{total} tasks, {elapsed:.0f}s elapsed, ETA {eta_text(eta)}\n"
            )
            self.stream.flush()

    def done(self) -> None:
        """The run is over (or broke off): finish the last line, so what follows starts on a line of its own."""
        if self._bar is not None:
            if self._task is not None:
                task = self._bar.tasks[-1]
                self._bar.update(self._task, total=task.total or 1, completed=task.total or 1)
            self._bar.stop()
            self._bar = self._task = None

    def _live_bar(self) -> Any:
        if self._bar is None:
            # NOTE: rich loads only for a live display, so checks in CI and the
            # commands that draw nothing do not pay for it.
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(bar_width=24),
                MofNCompleteColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                TimeElapsedColumn(),
                console=Console(file=self.stream, force_terminal=True),
                transient=False,
            )
            self._bar.start()
        return self._bar
