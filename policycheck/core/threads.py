"""Independent pieces of one step on a few threads of this process, results in input order.

For work that is mostly GIL-free (NumPy sorts and copies, compiled kernels,
the CSV tokenizer, hashing): the caller passes as many threads as it has
workers, so ``--workers 1`` stays on one thread and the numbers never depend
on how many threads ran, only on each item's own computation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")
R = TypeVar("R")
S = TypeVar("S")


def side_by_side(fn: Callable[[T], R], items: Sequence[T], threads: int) -> list[R]:
    """``[fn(x) for x in items]`` on up to ``threads`` threads (one thread: in this one, in order)."""
    if threads <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(min(threads, len(items))) as pool:
        return list(pool.map(fn, items))


def beside(main: Callable[[], R], other: Callable[[], S], threads: int) -> tuple[R, S]:
    """``(main(), other())``, ``other`` on a thread of its own while ``main`` runs here (one thread: in turn).

    For a step whose ``main`` mostly waits (on workers, or GIL-free work): ``other`` fills the wait.
    """
    if threads <= 1:
        return main(), other()
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as aside:
        later = aside.submit(other)
        return main(), later.result()


def in_turn(take: Callable[[], T | None], run: Callable[[T], R], threads: int) -> list[R]:
    """``run`` of each item ``take`` gives (until it gives None), on ``threads`` threads; results in the order taken.

    Items are taken one at a time under a lock, so what ``take`` does as it hands an item out (say, a
    progress line) happens in order, while the runs overlap. The threads are daemons: an interrupted
    process exits without waiting for them. The first exception a run raises is raised here, once
    every thread has stopped (none takes an item after it).
    """
    import threading

    lock = threading.Lock()
    results: dict[int, R] = {}
    errors: list[BaseException] = []
    taken = 0

    def work() -> None:
        nonlocal taken
        while True:
            with lock:
                item = None if errors else take()
                if item is None:
                    return
                index, taken = taken, taken + 1
            try:
                results[index] = run(item)
            except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
                with lock:
                    errors.append(exc)
                return

    workers = [threading.Thread(target=work, daemon=True) for _ in range(max(1, threads))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if errors:
        raise errors[0]
    return [results[i] for i in range(taken)]


class Ahead(Generic[R]):
    """``fn()`` begun now on a thread of its own (one thread: run when its result is asked for).

    For work to overlap what this thread does meanwhile. The thread is a daemon: a process that
    stops before asking (an error found meanwhile) exits without waiting for it.
    """

    def __init__(self, fn: Callable[[], R], threads: int) -> None:
        import threading

        self._fn: Callable[[], R] | None = fn
        self._outcome: tuple[bool, Any] | None = None
        self._thread: threading.Thread | None = None
        if threads > 1:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()

    def _run(self) -> None:
        fn, self._fn = self._fn, None
        assert fn is not None
        try:
            self._outcome = (True, fn())
        except BaseException as exc:  # noqa: BLE001 - raised again by result(), in the asking thread
            self._outcome = (False, exc)

    def result(self) -> R:
        """``fn()``'s value, or its exception raised here."""
        if self._thread is not None:
            self._thread.join()
        elif self._outcome is None:
            self._run()
        assert self._outcome is not None
        ok, value = self._outcome
        if not ok:
            raise value
        return cast(R, value)
