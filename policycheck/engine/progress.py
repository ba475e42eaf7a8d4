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
import threading
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
    """Progress display of a run: a :class:`Step` for each plan step as it starts, ticked as its tasks finish.

    Steps usually run one after another (:meth:`step` ends the one before); rules evaluated side by
    side each hold their own (:meth:`begin`), their lines in the order they began.
    """

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
        self._bar: Any = None  # rich.progress.Progress, when live
        self._current: Step | None = None
        self._open: list[Step] = []
        # NOTE: steps side by side tick from their own threads; one writer at a time keeps lines whole.
        self._lock = threading.Lock()

    def step(self, index: int, total: int, label: str) -> Step:
        """A new step begins, and the one before it ends."""
        if self._current is not None:
            self._current.end()
        self._current = self.begin(index, total, label)
        return self._current

    def begin(self, index: int, total: int, label: str) -> Step:
        """A step begins beside any still running: its line now, its ticks through the :class:`Step` returned."""
        step = Step(self, f"[{index}/{total}] {short(label)}")
        if not self.enabled:
            return step
        with self._lock:
            if self.live:
                step.task = self._live_bar().add_task(step.label, total=None)
            else:
                self.stream.write(step.label + "\n")
                self.stream.flush()
            self._open.append(step)
        return step

    def tick(self, label: str, done: int, total: int) -> None:
        """Part of the current step finished (``done`` of ``total`` tasks)."""
        if self._current is not None:
            self._current.tick(label, done, total)

    def done(self) -> None:
        """The run is over (or broke off): finish the last line, so what follows starts on a line of its own."""
        for step in list(self._open):
            step.end()
        self._current = None
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def show_tick(self, step: Step, label: str, done: int, total: int) -> None:
        """Show that ``done`` of ``step``'s ``total`` tasks finished (:meth:`Step.tick`)."""
        with self._lock:
            if step.task is not None:
                self._bar.update(step.task, total=total, completed=done)
                return
            now = time.monotonic()
            if self.live or done >= total or now - step.last_plain < PLAIN_EVERY:
                return
            step.last_plain = now
            elapsed = now - step.started
            eta = elapsed * (total - done) / done if done else None
            self.stream.write(
                f"  {short(label, 40)}: {done}/{total} tasks, {elapsed:.0f}s elapsed, ETA {eta_text(eta)}\n"
            )
            self.stream.flush()

    def close(self, step: Step) -> None:
        """``step`` is over (:meth:`Step.end`): its live line shown complete; a second close does nothing."""
        with self._lock:
            if step not in self._open:
                return
            self._open.remove(step)
            if step.task is not None and self._bar is not None:
                self._bar.update(step.task, total=step.total, completed=step.total)

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


class Step:
    """One step's progress: its tasks as they finish, then its end; :class:`Progress` shows both."""

    def __init__(self, progress: Progress, label: str) -> None:
        self.progress = progress
        self.label = label
        self.task: Any = None  # its rich task, when live
        self.started = self.last_plain = time.monotonic()
        #: Its tasks, as last ticked (a live line is shown complete at this count).
        self.total = 1

    def tick(self, label: str, done: int, total: int) -> None:
        """``done`` of the step's ``total`` tasks finished: its live bar moves; a plain line every PLAIN_EVERY s."""
        if self.progress.enabled and total > 0:
            self.total = total
            self.progress.show_tick(self, label, done, total)

    def end(self) -> None:
        """The step is over: its live line is shown complete (a plain line needs nothing)."""
        self.progress.close(self)
