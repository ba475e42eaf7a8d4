"""Progress of a check on stderr: one line per plan step.

On a terminal each step gets one live line (rich): its label, a bar, the
count of tasks done and an ETA; a finished step's line stays, so the screen
ends with one line per step. With ``plain`` (``-q``) or when stderr is not a
terminal (CI logs), each step prints one plain line when it starts, and a
long step a line at most every ``PLAIN_EVERY`` seconds. It never writes to
stdout, where reports may go.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

#: Seconds between two plain progress lines of one long step.
PLAIN_EVERY = 15.0
#: Longest step label shown; longer ones are cut with an ellipsis.
LABEL_WIDTH = 60


def short(label: str, width: int = LABEL_WIDTH) -> str:
    """``label`` cut to ``width`` characters (intermediate labels carry whole parameter tuples)."""
    return label if len(label) <= width else label[: width - 1] + "…"


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

    def __init__(self, stream: TextIO | None = None, enabled: bool = True, plain: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.live = enabled and not plain and hasattr(self.stream, "isatty") and self.stream.isatty()
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
            self.stream.write(f"  {short(label, 40)}: {done}/{total} tasks, {elapsed:.0f}s elapsed, ETA {eta_text(eta)}\n")
            self.stream.flush()

    def done(self) -> None:
        """The run is over: finish the last line."""
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
