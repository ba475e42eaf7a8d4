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
- **A step gets the workers its size pays for.** A caller that can estimate
  a step's serial seconds passes them as ``cost``; :meth:`Executor.workers_for`
  gives one worker per :data:`SECONDS_PER_WORKER` of work, so a small step
  runs in this process and never waits for a pool.
"""

from __future__ import annotations

import itertools
import mmap
import os
import pickle
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # imported inside the functions that use them: commands that run nothing load light
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import shared_memory

    import numpy as np

T = TypeVar("T")
R = TypeVar("R")

#: Called after each finished item with (done, total).
ProgressCallback = Callable[[int, int], None]

#: Serial seconds of work that pay for one more worker: below it, starting or
#: feeding a process costs about as much as it saves.
SECONDS_PER_WORKER = 0.5

#: Objects smaller than this are sent with every item that holds them.
SHARE_MIN_BYTES = 1 << 16

#: Arrays smaller than this are made in private memory by ``empty()``: copied into shared memory
#: they cost under a millisecond, less than a segment of their own (and a step this small
#: usually runs in this process).
EMPTY_SHARED_MIN_BYTES = 1 << 22


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
    ) -> list[R]:
        """Apply ``fn`` to every item; results keep the order of ``items``.

        ``cost`` is the caller's estimate of the whole step's serial seconds
        (``None``: unknown, use every worker).
        """

    def empty(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """A new, uninitialised array that :meth:`map` hands to workers without copying it.

        A plain array here; the local pool puts it in shared memory. Build large
        arrays that every task reads (a search structure) with it.
        """
        import numpy as np

        return np.empty(shape, dtype)

    def workers_for(self, cost: float | None) -> int:
        """Workers a step of ``cost`` serial seconds should use (all when unknown)."""
        if cost is None:
            return self.workers
        return max(1, min(self.workers, int(cost // SECONDS_PER_WORKER)))

    def close(self) -> None:  # pragma: no cover - nothing to release by default
        """Release pooled resources."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class SerialExecutor(Executor):
    """Runs items one after another in this process (tests, tiny inputs)."""

    workers = 1

    def map(self, fn, items, progress=None, *, cost=None):
        results = []
        for done, item in enumerate(items, start=1):
            results.append(fn(item))
            if progress:
                progress(done, len(items))
        return results


class LocalProcessExecutor(Executor):
    """Runs items on a pool of local processes (the default).

    The pool is created lazily and reused across calls, so a plan that maps
    many small batches pays the start-up cost once. Objects shared by several
    items go through shared memory (see the module docstring).
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or available_cores())
        self._pool: ProcessPoolExecutor | None = None
        self._calls = itertools.count()
        #: Arrays made by :meth:`empty` in shared memory: id -> (the array, weakly; its segment's name).
        self._in_shared_memory: dict[int, tuple[weakref.ref, str]] = {}

    def empty(self, shape, dtype):
        import numpy as np
        from multiprocessing import shared_memory

        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        if self.workers <= 1 or nbytes < EMPTY_SHARED_MIN_BYTES:
            return np.empty(shape, dtype)
        # Created (and registered with the resource tracker, which removes it should this process
        # die) by SharedMemory, then mapped again for the array alone: the array's buffer is that
        # mapping, unmapped when the array goes; the finalizer removes the segment's name.
        segment = shared_memory.SharedMemory(create=True, size=nbytes)
        array = np.ndarray(shape, dtype, buffer=_map_segment(segment.name, writable=True))
        segment.close()
        key = id(array)
        self._in_shared_memory[key] = (weakref.ref(array), segment.name)
        weakref.finalize(array, _release_segment, segment, self._in_shared_memory, key)
        return array

    def _share(self, obj: Any, call: int, segments: list) -> Any:
        """A handle to ``obj`` in shared memory: its own segment when :meth:`empty` made it, else a copy."""
        made = self._in_shared_memory.get(id(obj))
        if made is not None and made[0]() is obj:
            return SharedArray(made[1], obj.shape, obj.dtype.str, call)
        return _to_shared_memory(obj, call, segments)

    def map(self, fn, items, progress=None, *, cost=None):
        items = list(items)
        # NOTE: one item, or one worker, gains nothing from a pool and would
        # pay for pickling the arguments.
        workers = min(self.workers_for(cost), len(items))
        if workers <= 1:
            return SerialExecutor().map(fn, items, progress)
        from concurrent.futures import ProcessPoolExecutor

        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=die_with_parent, initargs=(os.getpid(),))
        segments: list[shared_memory.SharedMemory] = []
        call = next(self._calls)
        try:
            # Copies into shared memory are GIL-free memory work: on as many threads as workers.
            items = share_repeated(items, lambda obj: self._share(obj, call, segments), threads=workers)
            task = _ResolveShared(fn)
            return _run_window(self._pool, task, items, workers, progress, self.workers)
        finally:
            for segment in segments:
                segment.close()
                segment.unlink()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def _run_window(pool, fn, items, workers, progress, pool_size) -> list:
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


def share_repeated(items: list, share: Callable[[Any], Any], threads: int = 1) -> list:
    """Replace every large object found (by identity) in several tuple items by ``share(obj)``.

    Items that are not tuples, and objects below :data:`SHARE_MIN_BYTES`,
    are left as they are. ``threads`` > 1 shares the objects side by side.
    """
    seen: dict[int, Any] = {}
    count: dict[int, int] = {}
    for item in items:
        if isinstance(item, tuple):
            for part in {id(x): x for x in item}.values():
                seen[id(part)] = part
                count[id(part)] = count.get(id(part), 0) + 1
    repeated = [part for key, part in seen.items() if count[key] > 1 and _is_large(part)]
    if threads > 1 and len(repeated) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(min(threads, len(repeated))) as pool:
            shared = list(pool.map(share, repeated))
    else:
        shared = [share(part) for part in repeated]
    handles = {id(part): handle for part, handle in zip(repeated, shared, strict=True)}
    return [tuple(handles.get(id(part), part) for part in item) if isinstance(item, tuple) else item
            for item in items]


def _is_large(obj: Any) -> bool:
    import numpy as np
    if isinstance(obj, np.ndarray):
        return obj.nbytes >= SHARE_MIN_BYTES
    if obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        return False
    return True  # sized when pickled, in _to_shared_memory


@dataclass(frozen=True)
class SharedArray:
    """Where a worker finds an array in shared memory (picklable, a few bytes)."""

    segment: str
    shape: tuple[int, ...]
    dtype: str
    call: int


@dataclass(frozen=True)
class SharedPickle:
    """Where a worker finds a pickled object in shared memory."""

    segment: str
    size: int
    call: int


def _to_shared_memory(obj: Any, call: int, segments: list) -> Any:
    """Copy ``obj`` into a new shared-memory segment; return its handle (or ``obj`` when small)."""
    from multiprocessing import shared_memory

    import numpy as np
    if isinstance(obj, np.ndarray) and obj.dtype != object:
        data = np.ascontiguousarray(obj)
        segment = shared_memory.SharedMemory(create=True, size=max(data.nbytes, 1))
        segments.append(segment)
        np.ndarray(data.shape, data.dtype, buffer=segment.buf)[...] = data
        return SharedArray(segment.name, data.shape, data.dtype.str, call)
    blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    if len(blob) < SHARE_MIN_BYTES:
        return obj
    segment = shared_memory.SharedMemory(create=True, size=len(blob))
    segments.append(segment)
    segment.buf[: len(blob)] = blob
    return SharedPickle(segment.name, len(blob), call)


def _release_segment(segment: Any, registry: dict, key: int) -> None:
    """Remove the segment of an array made by ``LocalProcessExecutor.empty`` (its finalizer).

    Its memory goes once no process maps it: this one when the array goes, a
    worker at its next call.
    """
    registry.pop(key, None)
    segment.unlink()


#: In a worker: the objects of the current map call's segments, by segment name.
_attached: dict[str, Any] = {}
_attached_call: list[int] = [-1]


def resolve_shared(handle: Any) -> Any:
    """In a worker: the object behind a shared-memory handle (mapped once per map call)."""
    import numpy as np
    if not isinstance(handle, (SharedArray, SharedPickle)):
        return handle
    if handle.call != _attached_call[0]:
        # A new map call: the parent has unlinked its predecessor's segments. Dropping our
        # references unmaps them once no array uses them (an array keeps its mapping alive).
        _attached.clear()
        _attached_call[0] = handle.call
    if handle.segment not in _attached:
        mapping = _map_segment(handle.segment)
        if isinstance(handle, SharedArray):
            count = int(np.prod(handle.shape))
            _attached[handle.segment] = np.frombuffer(mapping, np.dtype(handle.dtype), count).reshape(handle.shape)
        else:
            _attached[handle.segment] = pickle.loads(mapping[: handle.size])
    return _attached[handle.segment]


def _map_segment(name: str, writable: bool = False) -> Any:
    """Map a shared-memory segment (read-only unless ``writable``).

    Not through ``SharedMemory(name)``: before Python 3.13 that registers the
    segment with this process's resource tracker, which then warns of leaks
    and unlinks it a second time.
    """
    try:
        import _posixshmem
    except ImportError:  # pragma: no cover - Windows: no resource tracker there
        from multiprocessing import shared_memory

        return shared_memory.SharedMemory(name=name).buf
    flags, prot = (os.O_RDWR, mmap.PROT_READ | mmap.PROT_WRITE) if writable else (os.O_RDONLY, mmap.PROT_READ)
    fd = _posixshmem.shm_open("/" + name.lstrip("/"), flags, mode=0o600)
    try:
        return mmap.mmap(fd, os.fstat(fd).st_size, prot=prot)
    finally:
        os.close(fd)


class _ResolveShared:
    """A task wrapper that swaps shared-memory handles in a tuple item for their objects."""

    def __init__(self, fn: Callable) -> None:
        self.fn = fn

    def __call__(self, item: Any) -> Any:
        if isinstance(item, tuple):
            item = tuple(resolve_shared(part) for part in item)
        return self.fn(item)


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


EXECUTORS = ("local", "serial", "dask")


def make_executor(kind: str = "local", workers: int | None = None, scheduler: str | None = None) -> Executor:
    """Build the executor named on the command line (``local``, ``serial`` or ``dask``).

    ``scheduler`` (Dask only): a scheduler address such as
    ``tcp://host:8786``, or ``local`` (the default) for a cluster of local
    processes started for this run.
    """
    if kind == "serial":
        return SerialExecutor()
    if kind == "local":
        return LocalProcessExecutor(workers)
    if kind == "dask":
        from policycheck.execution.dask import DaskExecutor

        return DaskExecutor(scheduler or "local", workers)
    raise ValueError(f"unknown executor {kind!r}: expected one of {', '.join(EXECUTORS)}")
