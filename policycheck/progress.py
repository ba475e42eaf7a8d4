"""A progress display on stderr for long steps.

On a terminal it redraws one line with a bar; elsewhere (CI logs) it prints
one line per step so logs stay readable. It never writes to stdout.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self._label = ""
        self._started = time.monotonic()
        self._last_draw = 0.0

    def step(self, index: int, total: int, label: str) -> None:
        """A new step begins."""
        if not self.enabled:
            return
        self._end_line()
        self._label = f"[{index}/{total}] {label}"
        self._started = time.monotonic()
        if self.tty:
            self.stream.write(self._label)
        else:
            self.stream.write(self._label + "\n")
        self.stream.flush()

    def tick(self, label: str, done: int, total: int) -> None:
        """Part of the current step finished (``done`` of ``total``)."""
        if not self.tty or total <= 0:
            return
        now = time.monotonic()
        if done < total and now - self._last_draw < 0.1:
            return
        self._last_draw = now
        width = 24
        filled = int(width * done / total)
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r{self._label} {label} [{bar}] {done}/{total} {now - self._started:.0f}s\x1b[K")
        self.stream.flush()

    def done(self) -> None:
        self._end_line()

    def _end_line(self) -> None:
        if self.tty and self._label:
            self.stream.write("\n")
            self.stream.flush()
        self._label = ""
