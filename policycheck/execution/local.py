"""The default executor: a pool of local processes, fed through shared memory."""

from __future__ import annotations

import contextlib
import itertools
import os
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from policycheck.execution.executor import (
    Executor,
    ProgressCallback,
    SerialExecutor,
    available_cores,
    import_modules,
)
from policycheck.execution.lifetime import die_with_parent
from policycheck.execution.shared_memory import (
    EMPTY_SHARED_MIN_BYTES,
    ResolveShared,
    SharedArray,
    map_segment,
    release_segment,
    share_repeated,
    to_shared_memory,
)

if TYPE_CHECKING:  # imported inside the functions that use them: commands that run nothing load light
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import shared_memory

    import numpy as np

    from policycheck.execution.zygote import Zygote

T = TypeVar("T")
R = TypeVar("R")


class LocalProcessExecutor(Executor):
    """Runs items on a pool of local processes (the default).

    The pool is created lazily (or by :meth:`prepare`) and reused across
    calls, so a plan that maps many small batches pays the start-up cost
    once. Objects shared by several items go through shared memory (see the
    module docstring).
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or available_cores())
        self._pool: ProcessPoolExecutor | None = None
        self._calls = itertools.count()
        #: Arrays made by :meth:`empty` in shared memory: id -> (the array, weakly; its segment's name).
        self._in_shared_memory: dict[int, tuple[weakref.ref[Any], str]] = {}
        #: The semaphore of workers importing at start (:meth:`prepare`), and the turns it still holds back.
        self._waiting_turns: tuple[Any, int] | None = None
        #: The process the workers are forked from once :meth:`prepare` has named their modules.
        self._zygote: Zygote | None = None
        #: Workers forked from this process for maps ``ready_here`` before the zygote's pool starts.
        self._here_pool: ProcessPoolExecutor | None = None

    def empty(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        from multiprocessing import shared_memory

        import numpy as np

        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        if self.workers <= 1 or nbytes < EMPTY_SHARED_MIN_BYTES:
            return np.empty(shape, dtype)
        # Created (and registered with the resource tracker, which removes it should this process
        # die) by SharedMemory, then mapped again for the array alone: the array's buffer is that
        # mapping, unmapped when the array goes; the finalizer removes the segment's name.
        segment = shared_memory.SharedMemory(create=True, size=nbytes)
        array = np.ndarray(shape, dtype, buffer=map_segment(segment.name, writable=True))
        segment.close()
        key = id(array)
        self._in_shared_memory[key] = (weakref.ref(array), segment.name)
        weakref.finalize(array, release_segment, segment, self._in_shared_memory, key)
        return array

    def _share(self, obj: Any, call: int, segments: list[shared_memory.SharedMemory]) -> Any:
        """A handle to ``obj`` in shared memory: its own segment when :meth:`empty` made it, else a copy."""
        made = self._in_shared_memory.get(id(obj))
        if made is not None:
            array, segment = made[0](), made[1]
            if array is not None and array is obj:
                return SharedArray(segment, array.shape, array.dtype.str, call)
        return to_shared_memory(obj, call, segments)

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        progress: ProgressCallback | None = None,
        *,
        cost: float | None = None,
        ready_here: bool = False,
    ) -> list[R]:
        items = list(items)
        # NOTE: one item, or one worker, gains nothing from a pool and would
        # pay for pickling the arguments.
        workers = min(self.workers_for(cost), len(items))
        if workers <= 1:
            return SerialExecutor().map(fn, items, progress)
        if not (ready_here and self._zygote is not None and self._pool is None):
            return self._on_pool(fn, items, progress, workers, self._start_pool())
        # The zygote's pool has not started: the first items run here while the zygote imports (one
        # core each), the rest on workers forked from this process, which have what the items need,
        # where the zygote's would each import what it lacks (the game's rounds: compiled features).
        head = self._while_zygote_imports(fn, items, progress)
        rest = items[len(head) :]
        if not rest:
            return head
        if progress and head:
            progress = _shifted(progress, len(head), len(items))
        return head + self._on_pool(fn, rest, progress, min(workers, len(rest)), self._start_here_pool())

    def _while_zygote_imports(self, fn: Callable[[T], R], items: list[T], progress: ProgressCallback | None) -> list[R]:
        """The first items, run here until the zygote has imported its modules (none once it has).

        Forking workers before then would leave three processes to two cores, and slow the zygote
        that the steps after this map wait for.
        """
        done: list[R] = []
        while self._zygote is not None and not self._zygote.ready() and len(done) < len(items):
            done.append(fn(items[len(done)]))
            if progress:
                progress(len(done), len(items))
        return done

    def _start_here_pool(self) -> ProcessPoolExecutor:
        """Workers forked from this process as it is now (started once, then reused)."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        if self._here_pool is None:
            self._here_pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("fork"),
                initializer=start_worker,
                initargs=(os.getpid(), (), None),
            )
        return self._here_pool

    def _on_pool(
        self,
        fn: Callable[[T], R],
        items: list[T],
        progress: ProgressCallback | None,
        workers: int,
        pool: ProcessPoolExecutor,
    ) -> list[R]:
        """``items`` on ``pool``, at most ``workers`` at a time, large shared inputs in shared memory."""
        if self._waiting_turns is not None:  # this process now waits for the pool: no core to keep free
            turns, waiting = self._waiting_turns
            for _ in range(waiting):
                turns.release()
            self._waiting_turns = None
        segments: list[shared_memory.SharedMemory] = []
        call = next(self._calls)
        try:
            # Copies into shared memory are GIL-free memory work: on as many threads as workers.
            items = share_repeated(items, lambda obj: self._share(obj, call, segments), threads=workers)
            task = ResolveShared(fn)
            return _run_window(pool, task, items, workers, progress, self.workers)
        finally:
            for segment in segments:
                segment.close()
                segment.unlink()

    def prepare(self, modules: Sequence[str]) -> None:
        """Have the workers start with ``modules`` imported, imported once for all of them.

        A zygote (:mod:`policycheck.execution.zygote`), forked from this process now,
        imports them on the core this process leaves idle, and the next :meth:`map`
        forks its workers from it; a pool already running is ended first (its workers
        are idle between maps and lack the modules). Where no zygote can run, the
        workers start now, each importing ``modules`` (a running pool: as a task).
        With one worker the work runs in this process, which imports what it needs when it needs it.
        """
        if self.workers <= 1 or not modules:
            return
        if self._zygote is None:
            from policycheck.execution.zygote import start_zygote, zygote_supported

            if zygote_supported() and self._pool is not None:
                # Before the fork: the zygote must not hold the old pool's pipes open.
                self._pool.shutdown()
                self._pool = None
            self._zygote = start_zygote(tuple(modules))
            if self._zygote is not None:
                return
        if self._pool is None:
            if self._zygote is None:
                self._start_pool(tuple(modules))
            return  # else the workers are still to be forked from the zygote, modules and all
        # A running pool: one import task per worker. Not bound to a worker each, so one may take two
        # (the second costs nothing); a worker missed imports when its first task needs the module.
        for _ in range(self.workers):
            self._pool.submit(import_modules, tuple(modules))

    def _start_pool(self, modules: tuple[str, ...] = ()) -> ProcessPoolExecutor:
        """The pool, started now if it is not running (every worker importing ``modules`` first)."""
        from concurrent.futures import ProcessPoolExecutor

        if self._pool is None and self._zygote is not None:
            import multiprocessing

            # Forked from the zygote, with its modules; should it have died, multiprocessing starts
            # its standard fork server instead, and the workers import as their tasks need.
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("forkserver"),
                initializer=start_worker,
                initargs=(None, (), None),
            )
        if self._pool is None:
            turns = None
            if modules:
                import multiprocessing

                # Workers import on the cores this process leaves idle while it works on, so that
                # it is not slowed: the others wait (asleep) for a turn, until map() finds this
                # process idle and lets them all go. Tasks go to the workers that are ready.
                idle = max(1, min(self.workers, available_cores() - 1))
                turns = multiprocessing.get_context().Semaphore(idle)
                self._waiting_turns = (turns, self.workers - idle)
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, initializer=start_worker, initargs=(os.getpid(), modules, turns)
            )
            if modules:  # the workers start on the first task (forked ones all at once): start them now
                self._pool.submit(os.getpid)
        return self._pool

    def close(self) -> None:
        self._waiting_turns = None
        for pool in (self._pool, self._here_pool):
            if pool is not None:
                pool.shutdown(cancel_futures=True)
        self._pool = self._here_pool = None
        # After the workers forked from here have ended: they hold the zygote's "alive" pipe too.
        if self._zygote is not None:
            self._zygote.stop()
            self._zygote = None


def _shifted(progress: ProgressCallback, done: int, total: int) -> ProgressCallback:
    """``progress`` for the items after the first ``done`` of ``total``."""
    return lambda finished, _: progress(done + finished, total)


def _run_window(
    pool: ProcessPoolExecutor,
    fn: Callable[[Any], Any],
    items: list[Any],
    workers: int,
    progress: ProgressCallback | None,
    pool_size: int,
) -> list[Any]:
    """Run ``items`` on ``pool`` with at most ``workers`` in flight; results in input order.

    With every worker of the pool allowed, everything is submitted at once, so
    a worker never waits for this process to hand it the next item.
    """
    from concurrent.futures import FIRST_COMPLETED, wait

    results: list[Any] = [None] * len(items)
    pending: dict[Any, int] = {}
    queue = iter(enumerate(items))
    done = 0
    if workers >= pool_size:
        workers = len(items)
    for i, item in itertools.islice(queue, workers):
        pending[pool.submit(fn, item)] = i
    while pending:
        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in finished:
            results[pending.pop(future)] = future.result()
            done += 1
            if progress:
                progress(done, len(items))
            for i, item in itertools.islice(queue, 1):
                pending[pool.submit(fn, item)] = i
    return results


def start_worker(parent: int | None, modules: tuple[str, ...], turns: Any = None) -> None:
    """Worker initializer: end with the parent (:func:`die_with_parent`), then import ``modules``.

    ``parent`` None: whichever process forked this one (a fork server's: the zygote, or the
    standard one multiprocessing starts should the zygote have died). ``turns`` (a semaphore)
    bounds how many workers import at once.
    """
    die_with_parent(parent if parent is not None else os.getppid())
    if modules:
        with turns if turns is not None else contextlib.nullcontext():
            import_modules(modules)
