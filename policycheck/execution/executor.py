"""One interface for heavy, independent work items.

DCR chunks, linkage per released set, attacks per synthetic set and
attack-game repetitions all go through :meth:`Executor.map`; the local
process pool, the serial loop and a Dask cluster
(:mod:`policycheck.execution.dask`) are interchangeable, and no metric knows
which one runs its work.

Every function handed to ``map`` must be a picklable top-level function and
must not depend on global random state: randomness comes in through its
arguments (seeds), so results never depend on the executor or on scheduling.

Two rules keep parallel work from costing more than it saves:

- **Large inputs travel once per worker, not once per item.** When the items
  are tuples and one large object (the same object, by identity) appears in
  several of them -- the reference set of every DCR chunk, the original
  records of every linkage set, the game set-up of every repetition -- the
  executor sends it once: the local pool puts it in shared memory (arrays
  are read in place, without a copy), Dask scatters it to every worker.
  An array built for the workers is best built where they read it:
  :meth:`Executor.empty` gives one that the local pool hands over without
  even that copy (the DCR search's prefix trees, the encoded records).
- **Workers import ahead of their tasks.** A task's first call in a worker
  pays for importing its libraries (scikit-learn: most of a CPU-second).
  A caller that knows which modules its later tasks need names them to
  :meth:`Executor.prepare` before its own serial work: they are imported
  meanwhile, on the cores that serial work leaves idle. The local pool
  imports them once, in a zygote its workers are then forked from
  (:mod:`policycheck.execution.zygote`); Dask workers import them each.
- **No core waits for the workers to start, and no worker imports what this
  process has.** While the local pool's zygote still imports, a map whose
  items are ``ready_here`` runs its first items in this process; the rest go
  to workers forked from this process (until the zygote's pool runs), which
  start with everything loaded here, such as the game's compiled features.
- **A step gets the workers its size pays for.** A caller that can estimate
  a step's serial seconds passes them as ``cost``; :meth:`Executor.workers_for`
  gives one worker per :data:`SECONDS_PER_WORKER` of work, so a small step
  runs in this process and never waits for a pool.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")

R = TypeVar("R")

#: Called after each finished item with (done, total).
ProgressCallback = Callable[[int, int], None]

#: Serial seconds of work that pay for one more worker: below it, starting or
#: feeding a process costs about as much as it saves.
SECONDS_PER_WORKER = 0.5


class Executor(ABC):
    """Maps a function over items and returns the results in input order."""

    #: How many items may run at once; metrics use it to size their chunks.
    workers: int = 1
    #: Whether tasks see the files this process reads (same machine): only then may a task
    #: read a data file itself, as the streamed DCR search does.
    sees_local_files: bool = True

    @abstractmethod
    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        progress: ProgressCallback | None = None,
        *,
        cost: float | None = None,
        ready_here: bool = False,
    ) -> list[R]:
        """Apply ``fn`` to every item; results keep the order of ``items``.

        ``cost`` is the caller's estimate of the whole step's serial seconds
        (``None``: unknown, use every worker). ``ready_here``: the items need
        nothing this process would have to import at length (their libraries
        are loaded here, or load in a fraction of a second), so it may run the
        first ones itself while the workers are still starting, and workers
        forked from it need not import them.
        """

    def empty(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """A new, uninitialised array that :meth:`map` hands to workers without copying it.

        A plain array here; the local pool puts it in shared memory. Build large
        arrays that every task reads (a search structure) with it.
        """
        import numpy as np

        return np.empty(shape, dtype)

    def prepare(self, modules: Sequence[str]) -> None:  # noqa: B027 - a hook: nothing to warm by default
        """Have every worker import ``modules`` now, without waiting, ahead of the tasks that need them.

        ``"module:function"`` also calls the function, once imported (:func:`import_modules`).

        A hint that never changes results: a module that fails to import is
        left to the task that needs it, which raises as it would have. Here
        (work in this process) nothing is done: a task imports what it needs
        when it first runs, and importing earlier would only move the cost.
        """

    @property
    def threads(self) -> int:
        """Threads this process may give a step's GIL-free preparation: one per worker, at most its cores.

        A remote Dask cluster's workers are not this machine's cores, so
        they bound nothing here beyond what the machine has.
        """
        return local_threads(self.workers)

    def workers_for(self, cost: float | None) -> int:
        """Workers a step of ``cost`` serial seconds should use (all when unknown)."""
        if cost is None:
            return self.workers
        return max(1, min(self.workers, int(cost // SECONDS_PER_WORKER)))

    def close(self) -> None:  # noqa: B027 - a hook: nothing to release by default  # pragma: no cover
        """Release pooled resources."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class SerialExecutor(Executor):
    """Runs items one after another in this process (tests, tiny inputs)."""

    workers = 1

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        progress: ProgressCallback | None = None,
        *,
        cost: float | None = None,
        ready_here: bool = False,
    ) -> list[R]:
        results = []
        for done, item in enumerate(items, start=1):
            results.append(fn(item))
            if progress:
                progress(done, len(items))
        return results


def import_modules(modules: Sequence[str]) -> None:
    """Import ``modules`` in this process (a worker's warm-up); one that fails is skipped.

    ``"module:function"`` also calls the module's function without arguments:
    a warm-up such as loading compiled code from numba's cache, which importing
    alone does not. Its task raises any failure itself, where the error is
    reported as usual.
    """
    import importlib

    for name in modules:
        module_name, _, warm_up = name.partition(":")
        try:
            module = importlib.import_module(module_name)
            if warm_up:
                getattr(module, warm_up)()
        except Exception:  # noqa: BLE001, S112 - a warm-up never fails a run: the task that needs it raises
            continue


def local_threads(workers: int) -> int:
    """Threads for ``workers`` workers in this process: one each, at most this machine's cores."""
    return max(1, min(workers, available_cores()))


def available_cores() -> int:
    """Cores this process may use (respects CPU affinity, e.g. in containers)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1
