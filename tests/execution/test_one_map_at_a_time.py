"""An executor shared by threads: their maps take turns (policycheck/execution/one_map_at_a_time.py)."""

import threading
import time

from policycheck.execution.executor import SerialExecutor
from policycheck.execution.one_map_at_a_time import OneMapAtATime


class Recording(SerialExecutor):
    """A serial executor of two workers that records when each map starts and ends."""

    workers = 2

    def __init__(self):
        self.events = []

    def map(self, fn, items, progress=None, *, cost=None, ready_here=False):
        self.events.append("start")
        time.sleep(0.05)  # long enough for the other thread to try its map meanwhile
        out = super().map(fn, items, progress)
        self.events.append("end")
        return out

    def prepare(self, modules):
        self.events.append(("prepare", tuple(modules)))


def test_maps_from_two_threads_never_overlap():
    inner = Recording()
    shared = OneMapAtATime(inner)
    results = {}
    threads = [threading.Thread(target=lambda k=k: results.__setitem__(k, shared.map(abs, [-k, k]))) for k in (1, 2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert inner.events == ["start", "end"] * 3
    assert results == {1: [1, 1], 2: [2, 2], 3: [3, 3]}


def test_it_keeps_the_executors_workers_and_leaves_closing_to_its_owner():
    inner = Recording()
    shared = OneMapAtATime(inner)
    shared.prepare(["numpy"])
    shared.close()
    assert (shared.workers, shared.threads, shared.workers_for(None)) == (2, inner.threads, 2)
    assert inner.events == [("prepare", ("numpy",))]
