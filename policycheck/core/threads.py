"""Independent pieces of one step on a few threads of this process, results in input order.

For work that is mostly GIL-free (NumPy sorts and copies, compiled kernels,
the CSV tokenizer, hashing): the caller passes as many threads as it has
workers, so ``--workers 1`` stays on one thread and the numbers never depend
on how many threads ran, only on each item's own computation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

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
