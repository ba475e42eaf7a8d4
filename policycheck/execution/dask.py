"""The plan's heavy work on a Dask cluster (``--executor dask``).

A drop-in :class:`policycheck.execution.executor.Executor`: every item of ``map``
becomes one Dask task, so metrics do not know where their work runs. The
cluster is either an existing one (``--scheduler tcp://host:8786``: a
cluster started by dask-jobqueue on Slurm, the Dask Kubernetes operator, or
``dask scheduler`` by hand) or, with ``--scheduler local``, a cluster of
local worker processes started for the run.

- A large object repeated across items (a DCR reference set, the original
  records of every linkage set, the game set-up) is scattered to every
  worker once (``Client.scatter(..., broadcast=True)``) and the tasks refer
  to its future; Dask hands the tasks the object itself.
- A worker lost mid-run: the scheduler re-runs its tasks on the remaining
  workers (up to ``distributed.scheduler.allowed-failures`` times), fetching
  the scattered inputs from another replica. Tasks are pure functions of
  their items, so the report is unchanged.
- Progress counts tasks as the cluster finishes them.
- :meth:`DaskExecutor.prepare` sends every worker one import task, pinned
  to it, and returns at once: the workers import while this process works.

``distributed`` is an optional dependency: ``pip install 'policycheck[dask]'``.
The workers need the same policycheck version installed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from policycheck.core.errors import InvalidInput
from policycheck.execution.executor import Executor, ProgressCallback, SerialExecutor, import_modules
from policycheck.execution.shared_memory import share_repeated

T = TypeVar("T")
R = TypeVar("R")

#: Seconds to wait for the scheduler, and for its first worker.
CONNECT_TIMEOUT = 60

#: Worker processes of ``--scheduler local`` when ``--workers`` is not given.
LOCAL_WORKERS = 2


class DaskExecutor(Executor):
    """Runs items as tasks on a Dask cluster.

    Parameters
    ----------
    scheduler : str
        ``"local"`` for a new cluster of local processes, else the address
        of a running scheduler (``tcp://host:8786``).
    workers : int, optional
        With ``"local"``: how many single-threaded worker processes
        (default :data:`LOCAL_WORKERS`). Ignored for an existing cluster,
        whose size is read from the scheduler.
    timeout : float
        Seconds to wait for the scheduler and its first worker.
    """

    def __init__(self, scheduler: str = "local", workers: int | None = None, timeout: float = CONNECT_TIMEOUT) -> None:
        try:
            import distributed
        except ImportError as exc:
            raise InvalidInput(
                "the dask executor needs the distributed package: pip install 'policycheck[dask]'"
            ) from exc
        self.scheduler = scheduler
        # Workers of a remote cluster need not see this machine's files.
        self.sees_local_files = scheduler == "local"
        self._cluster = None
        self._warming: list[Any] = []
        try:
            if scheduler == "local":
                self._cluster = distributed.LocalCluster(
                    n_workers=workers or LOCAL_WORKERS,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
                self._client = distributed.Client(self._cluster, timeout=timeout)
            else:
                self._client = distributed.Client(scheduler, timeout=timeout)
                self._client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError) as exc:
            self.close()
            raise InvalidInput(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc
        self.workers = self._count_workers()

    def _count_workers(self) -> int:
        info = self._client.scheduler_info()
        count: int = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))
        return count

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        progress: ProgressCallback | None = None,
        *,
        cost: float | None = None,
        ready_here: bool = False,  # the cluster's workers are running: nothing to wait for
    ) -> list[R]:
        from distributed import as_completed

        items = list(items)
        # The cluster may have grown or shrunk since the last step (adaptive scaling).
        self.workers = self._count_workers()
        if not items:
            return []
        if cost is not None and self.workers_for(cost) <= 1:
            # Too small to be worth a round trip to the cluster.
            return SerialExecutor().map(fn, items, progress)
        scattered: list[Any] = []

        def scatter(obj: Any) -> Any:
            # Wrapped in a list so that a tuple or dict is scattered whole, not element by element.
            (future,) = self._client.scatter([obj], broadcast=True, hash=False)
            scattered.append(future)
            return future

        try:
            items = share_repeated(items, scatter)
            futures = [self._client.submit(fn, item, pure=False) for item in items]
            for done, _ in enumerate(as_completed(futures), start=1):
                if progress:
                    progress(done, len(items))
            results: list[R] = self._client.gather(futures)
            return results
        finally:
            for future in scattered:
                future.release()

    def prepare(self, modules: Sequence[str]) -> None:
        """One task per worker importing ``modules``, without waiting (later tasks queue behind it)."""
        if not modules:
            return
        workers = list(self._client.scheduler_info().get("workers", {}))
        # Held until close(): a released future's task may be cancelled before it runs.
        self._warming = [
            self._client.submit(import_modules, tuple(modules), workers=[w], allow_other_workers=False, pure=False)
            for w in workers
        ]

    def close(self) -> None:
        self._warming = []
        client = getattr(self, "_client", None)
        if client is not None:
            client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
