"""One interface for heavy, independent work items.

DCR chunks, linkage per released set and attack-game repetitions all go
through :class:`Executor.map`, so a distributed engine (e.g. a Dask client)
can be plugged in later by writing one more subclass; no metric changes.

Every function handed to ``map`` must be a picklable top-level function and
must not depend on global random state: randomness comes in through its
arguments (seeds), so results never depend on the executor or on scheduling.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Called after each finished item with (done, total).
ProgressCallback = Callable[[int, int], None]


class Executor(ABC):
    """Maps a function over items and returns the results in input order."""

    #: How many items may run at once; metrics use it to size their chunks.
    workers: int = 1

    @abstractmethod
    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        progress: ProgressCallback | None = None,
    ) -> list[R]:
        """Apply ``fn`` to every item; results keep the order of ``items``."""

    def close(self) -> None:  # pragma: no cover - nothing to release by default
        """Release pooled resources."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class SerialExecutor(Executor):
    """Runs items one after another in this process (tests, tiny inputs)."""

    workers = 1

    def map(self, fn, items, progress=None):
        results = []
        for done, item in enumerate(items, start=1):
            results.append(fn(item))
            if progress:
                progress(done, len(items))
        return results


class LocalProcessExecutor(Executor):
    """Runs items on a pool of local processes (the default).

    The pool is created lazily and reused across calls, so a plan that maps
    many small batches pays the start-up cost once.
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or available_cores())
        self._pool: ProcessPoolExecutor | None = None

    def map(self, fn, items, progress=None):
        items = list(items)
        # NOTE: one item, or one worker, gains nothing from a pool and would
        # pay for pickling the arguments.
        if len(items) <= 1 or self.workers == 1:
            return SerialExecutor().map(fn, items, progress)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=die_with_parent, initargs=(os.getpid(),))
        futures = [self._pool.submit(fn, item) for item in items]
        results = []
        for done, future in enumerate(futures, start=1):
            results.append(future.result())
            if progress:
                progress(done, len(items))
        return results

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def die_with_parent(parent: int) -> None:
    """Worker initializer: end this worker when the process that started it dies (even by kill -9).

    Linux delivers SIGKILL on the parent's death (prctl PR_SET_PDEATHSIG);
    elsewhere a daemon thread polls the parent's pid once a second.
    """
    import signal
    import sys
    import threading
    import time

    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    else:  # pragma: no cover - non-Linux
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


def available_cores() -> int:
    """Cores this process may use (respects CPU affinity, e.g. in containers)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def make_executor(kind: str = "local", workers: int | None = None) -> Executor:
    """Build the executor named on the command line (``local`` or ``serial``)."""
    if kind == "serial":
        return SerialExecutor()
    if kind == "local":
        return LocalProcessExecutor(workers)
    raise ValueError(f"unknown executor {kind!r}: expected 'local' or 'serial'")
