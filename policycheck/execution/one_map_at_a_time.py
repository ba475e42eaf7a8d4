"""One executor shared by steps that run side by side on threads: their maps take turns."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from policycheck.execution.executor import Executor, ProgressCallback

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")
R = TypeVar("R")


class OneMapAtATime(Executor):
    """``executor`` for several threads at once: one :meth:`map` (or :meth:`prepare`) at a time.

    Each map keeps every worker, as it would alone, and the pool's own state (started lazily,
    restarted by ``prepare``) is only ever changed by one thread. A thread whose map waits for
    another's finishes later; its results are the same. Closing is left to the executor's owner.
    """

    def __init__(self, executor: Executor) -> None:
        self.executor = executor
        self.workers = executor.workers
        self.sees_local_files = executor.sees_local_files
        # Re-entrant: a map's items may run in this thread (one worker's worth), and never map again.
        self._turn = threading.RLock()

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        progress: ProgressCallback | None = None,
        *,
        cost: float | None = None,
        ready_here: bool = False,
    ) -> list[R]:
        with self._turn:
            return self.executor.map(fn, items, progress, cost=cost, ready_here=ready_here)

    def prepare(self, modules: Sequence[str]) -> None:
        with self._turn:  # a local pool may be restarted for its zygote: never under another thread's map
            self.executor.prepare(modules)

    def empty(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        return self.executor.empty(shape, dtype)

    @property
    def threads(self) -> int:
        return self.executor.threads

    def workers_for(self, cost: float | None) -> int:
        return self.executor.workers_for(cost)

    def close(self) -> None:
        """Nothing: the executor is its owner's to close."""
