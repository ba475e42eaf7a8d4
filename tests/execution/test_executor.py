import pytest

from policycheck.execution.executor import SerialExecutor
from policycheck.execution.factory import make_executor
from policycheck.execution.local import LocalProcessExecutor


def square(x: int) -> int:
    return x * x


def test_local_processes_keep_input_order():
    with LocalProcessExecutor(workers=2) as pool:
        assert pool.map(square, list(range(10))) == [x * x for x in range(10)]


def test_progress_is_reported_per_item():
    seen = []
    SerialExecutor().map(square, [1, 2, 3], progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_executor_is_chosen_by_name():
    assert isinstance(make_executor("serial"), SerialExecutor)
    assert make_executor("local", 2).workers == 2


def total(item):
    array, offset = item
    return float(array.sum()) + offset


def is_shared_view(item):
    """True when the array arrived as a read-only view on shared memory, not a pickled copy."""
    array, _ = item
    return not array.flags.writeable and not array.flags.owndata


def test_an_array_repeated_across_items_reaches_workers_through_shared_memory():
    import numpy as np

    big = np.arange(100_000, dtype=np.float64)
    items = [(big, k) for k in range(6)]
    with LocalProcessExecutor(workers=2) as pool:
        assert pool.map(total, items) == [float(big.sum()) + k for k in range(6)]
        assert all(pool.map(is_shared_view, items))


def test_small_and_unrepeated_objects_are_sent_with_their_item():
    import numpy as np

    items = [(np.arange(10.0), k) for k in range(4)] + [(np.arange(100_000.0), 9)]
    with LocalProcessExecutor(workers=2) as pool:
        assert not any(pool.map(is_shared_view, items))


def test_shared_memory_is_released_after_each_call(monkeypatch):
    import os
    from multiprocessing import shared_memory

    import numpy as np

    # The segments this call made, by name: /dev/shm is shared with the tests other workers run meanwhile.
    made = []
    real = shared_memory.SharedMemory

    def recorded(*args, **kwargs):
        segment = real(*args, **kwargs)
        made.append(segment.name.lstrip("/"))
        return segment

    monkeypatch.setattr(shared_memory, "SharedMemory", recorded)
    big = np.ones(50_000)
    with LocalProcessExecutor(workers=2) as pool:
        pool.map(total, [(big, 1), (big, 2), (big, 3)])
        assert made and not set(made) & set(os.listdir("/dev/shm"))


def test_a_step_too_small_to_pay_for_a_worker_runs_in_this_process():
    import os

    with LocalProcessExecutor(workers=2) as pool:
        assert pool.workers_for(0.1) == 1
        assert pool.workers_for(5.0) == 2
        assert pool.workers_for(None) == 2
        assert set(pool.map(pid_of, [1, 2, 3], cost=0.01)) == {os.getpid()}
        assert os.getpid() not in pool.map(pid_of, [1, 2, 3], cost=10.0)


def pid_of(_):
    import os

    return os.getpid()


def sum_of_two(item):
    first, second, k = item
    return float(first.sum() + second.sum()) + k


def test_several_shared_arrays_in_one_item_stay_readable_across_calls():
    import numpy as np

    a, b = np.ones(40_000), np.full(40_000, 2.0)
    with LocalProcessExecutor(workers=2) as pool:
        for call in range(3):
            c = np.full(30_000, float(call))
            assert pool.map(sum_of_two, [(a, b, k) for k in range(4)]) == [120_000.0 + k for k in range(4)]
            assert pool.map(sum_of_two, [(a, c, k) for k in range(4)]) == [
                40_000.0 + 30_000 * call + k for k in range(4)
            ]


def test_an_array_made_by_the_pool_reaches_workers_without_a_copy(monkeypatch):
    import numpy as np

    import policycheck.execution.local as local_module

    def no_copy(*args):
        raise AssertionError("the array made by empty() was copied")

    with LocalProcessExecutor(workers=2) as pool:
        made = pool.empty((300_000, 2), np.float64)  # 4.8 MB: above EMPTY_SHARED_MIN_BYTES
        made[:] = 0.5
        monkeypatch.setattr(local_module, "to_shared_memory", no_copy)
        # 300,000 x 2 halves: 300,000.0 per item, plus its offset.
        assert pool.map(total, [(made, k) for k in range(4)]) == [300_000.0 + k for k in range(4)]
        assert all(pool.map(is_shared_view, [(made, k) for k in range(4)]))


def test_the_segment_of_an_array_made_by_the_pool_goes_with_the_array():
    import gc
    import os

    import numpy as np

    with LocalProcessExecutor(workers=2) as pool:
        made = pool.empty((600_000,), np.float64)
        made[:] = 1.0
        # This array's own segment, looked up by name: counting every entry of /dev/shm would
        # count the segments of any other pool running on the machine at the same time.
        segment = "/dev/shm/" + pool._in_shared_memory[id(made)][1]
        pool.map(total, [(made, 1), (made, 2)])
        assert os.path.exists(segment)
        del made
        gc.collect()
        assert not os.path.exists(segment)


def test_a_single_worker_pool_and_the_serial_loop_make_plain_arrays():
    import numpy as np

    for executor in (SerialExecutor(), LocalProcessExecutor(workers=1)):
        made = executor.empty((300_000, 3), np.int64)
        assert made.shape == (300_000, 3) and made.dtype == np.int64 and made.flags.owndata


def test_a_pool_makes_an_array_below_four_megabytes_in_private_memory():
    import numpy as np

    with LocalProcessExecutor(workers=2) as pool:
        assert pool.empty((1 << 19) - 1, np.float64).flags.owndata
        assert not pool.empty(1 << 19, np.float64).flags.owndata


def test_objects_shared_on_several_threads_keep_their_identity_across_items():
    from policycheck.execution.shared_memory import share_repeated

    a, b, c = [object() for _ in range(3)]
    handles = {id(a): "A", id(b): "B"}
    items = [(a, b, 1), (b, a, 2), (a, c, 3), (b, 4)]
    out = share_repeated(items, lambda obj: handles[id(obj)], threads=2)
    assert out == [("A", "B", 1), ("B", "A", 2), ("A", c, 3), ("B", 4)]


#: A module that writes "start <pid>" when its import begins, waits until ``release`` exists (at most
#: 20 s), then writes "end <pid>": it shows which processes imported it, and when.
PROBE = """
import os, pathlib, time
here = pathlib.Path(__file__).parent
with open(here / "log", "a") as f:
    f.write(f"start {os.getpid()}\\n")
deadline = time.monotonic() + 20
while not (here / "release").exists() and time.monotonic() < deadline:
    time.sleep(0.01)
with open(here / "log", "a") as f:
    f.write(f"end {os.getpid()}\\n")
"""


def probe_module(tmp_path, monkeypatch, name: str, released: bool = True):
    """Write the probe as ``name`` in ``tmp_path``, importable from this process and its forks."""
    (tmp_path / f"{name}.py").write_text(PROBE)
    if released:
        (tmp_path / "release").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path / "log"


def log_lines(log, deadline_s: float = 20.0, *, at_least: int = 0) -> list[str]:
    import time

    deadline = time.monotonic() + deadline_s
    while True:
        lines = log.read_text().split() if log.exists() else []
        if len(lines) >= 2 * at_least or time.monotonic() > deadline:
            return [" ".join(lines[i : i + 2]) for i in range(0, len(lines), 2)]
        time.sleep(0.01)


def has_module(name: str) -> tuple[int, bool]:
    import os
    import sys

    return os.getpid(), name in sys.modules


def origin(name: str) -> tuple[int, int, bool]:
    """A worker's pid, its parent's, and whether ``name`` was imported there before this task."""
    import os
    import sys

    return os.getpid(), os.getppid(), name in sys.modules


def slow_origin(name: str) -> tuple[int, int, bool]:
    """:func:`origin`, after a tenth of a second: long enough for the pool to start every worker."""
    import time

    loaded = origin(name)
    time.sleep(0.1)
    return loaded


def test_prepare_imports_the_modules_once_and_every_worker_starts_with_them(tmp_path, monkeypatch):
    import os
    import sys

    log = probe_module(tmp_path, monkeypatch, "probe_once")
    with LocalProcessExecutor(workers=2) as pool:
        pool.prepare(["probe_once"])
        seen = pool.map(slow_origin, ["probe_once"] * 8)
    imported = log_lines(log, at_least=1)
    workers, parents = {pid for pid, _, _ in seen}, {parent for _, parent, _ in seen}
    assert all(loaded for _, _, loaded in seen)
    assert "probe_once" not in sys.modules  # this process never imported it
    # One import, in the zygote: the workers' parent, which is neither this process nor a worker.
    assert [line.split()[0] for line in imported] == ["start", "end"]
    assert parents == {int(imported[0].split()[1])}
    assert len(workers) == 2 and not parents & workers and os.getpid() not in parents | workers


def test_prepare_returns_while_the_modules_are_imported(tmp_path, monkeypatch):
    import time

    log = probe_module(tmp_path, monkeypatch, "probe_in_background", released=False)
    with LocalProcessExecutor(workers=2) as pool:
        started = time.monotonic()
        pool.prepare(["probe_in_background"])
        returned = time.monotonic() - started
        assert log_lines(log, at_least=1) == [line for line in log_lines(log, 0.0) if line.startswith("start")]
        (tmp_path / "release").write_text("")
        assert all(loaded for _, _, loaded in pool.map(origin, ["probe_in_background"] * 4))
    assert returned < 5.0  # the probe holds its import for up to 20 s


def pid_releasing_at(item: tuple[int, int, str]) -> tuple[int, int, int]:
    """The item's index, the pid that ran it and its parent's; item ``at`` lets the probe's import
    end, then waits until the zygote has had time to say it is ready."""
    import os
    import pathlib
    import time

    index, at, folder = item
    if index == at:
        here = pathlib.Path(folder)
        (here / "release").write_text("")
        deadline = time.monotonic() + 20
        log = here / "log"
        while not (log.exists() and "end" in log.read_text()) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)
    return index, os.getpid(), os.getppid()


def test_a_map_ready_here_runs_its_first_items_here_while_the_zygote_imports(tmp_path, monkeypatch):
    import os

    probe_module(tmp_path, monkeypatch, "probe_ready_here", released=False)
    seen = []
    with LocalProcessExecutor(workers=2) as pool:
        pool.prepare(["probe_ready_here"])
        items = [(i, 2, str(tmp_path)) for i in range(8)]
        out = pool.map(pid_releasing_at, items, lambda d, t: seen.append((d, t)), ready_here=True)
    assert [i for i, _, _ in out] == list(range(8))
    # Items 0-2 ran here, the zygote still importing; then workers, forked once it was done.
    assert [pid == os.getpid() for _, pid, _ in out] == [True] * 3 + [False] * 5
    assert seen == [(d, 8) for d in range(1, 9)]


def test_a_map_ready_here_runs_on_workers_forked_from_this_process_with_what_it_imported(tmp_path, monkeypatch):
    import importlib
    import os
    import time

    probe_module(tmp_path, monkeypatch, "probe_for_the_zygote")
    (tmp_path / "probe_imported_here.py").write_text("")
    with LocalProcessExecutor(workers=2) as pool:
        pool.prepare(["probe_for_the_zygote"])
        importlib.import_module("probe_imported_here")  # after the zygote was forked: it lacks the module
        assert pool._zygote is not None
        deadline = time.monotonic() + 20
        while not pool._zygote.ready() and time.monotonic() < deadline:
            time.sleep(0.01)
        out = pool.map(slow_origin, ["probe_imported_here"] * 4, ready_here=True)
    assert all(parent == os.getpid() and loaded for _, parent, loaded in out)
    assert len({pid for pid, _, _ in out}) == 2


def test_a_map_ready_here_runs_on_the_zygotes_workers_once_they_run(tmp_path, monkeypatch):
    import os

    probe_module(tmp_path, monkeypatch, "probe_zygote_running")
    with LocalProcessExecutor(workers=2) as pool:
        pool.prepare(["probe_zygote_running"])
        before = pool.map(slow_origin, ["probe_zygote_running"] * 4)
        after = pool.map(slow_origin, ["probe_zygote_running"] * 4, ready_here=True)
    zygote = {parent for _, parent, _ in before}
    assert len(zygote) == 1 and os.getpid() not in zygote
    assert {parent for _, parent, _ in after} == zygote and all(loaded for _, _, loaded in after)


def test_a_map_not_ready_here_leaves_every_item_to_the_workers(tmp_path, monkeypatch):
    import os
    import threading

    probe_module(tmp_path, monkeypatch, "probe_not_here", released=False)
    with LocalProcessExecutor(workers=2) as pool:
        pool.prepare(["probe_not_here"])
        timer = threading.Timer(0.5, lambda: (tmp_path / "release").write_text(""))
        timer.start()
        out = pool.map(has_module, ["probe_not_here"] * 4)
        timer.join()
    assert all(pid != os.getpid() and loaded for pid, loaded in out)


def test_prepare_on_a_running_pool_forks_new_workers_that_have_the_modules(tmp_path, monkeypatch):
    log = probe_module(tmp_path, monkeypatch, "probe_running_pool")
    with LocalProcessExecutor(workers=2) as pool:
        before = {pid for pid, _, _ in pool.map(slow_origin, ["probe_running_pool"] * 4)}
        pool.prepare(["probe_running_pool"])
        after = pool.map(slow_origin, ["probe_running_pool"] * 4)
    assert all(loaded for _, _, loaded in after)
    assert not before & {pid for pid, _, _ in after}
    assert [line.split()[0] for line in log_lines(log, at_least=1)] == ["start", "end"]


def test_a_module_that_cannot_be_imported_leaves_the_pool_working():
    with LocalProcessExecutor(workers=2) as pool:
        pool.prepare(["policycheck_no_such_module"])
        assert pool.map(square, list(range(6))) == [x * x for x in range(6)]
        pool.prepare(["policycheck_no_such_module"])  # a running pool: as tasks
        assert pool.map(square, list(range(6))) == [x * x for x in range(6)]


@pytest.fixture
def without_zygote(monkeypatch):
    """Where no zygote can run (another fork server running, a Python whose fork server differs)."""
    import policycheck.execution.zygote as zygote

    monkeypatch.setattr(zygote, "zygote_supported", lambda: False)
    monkeypatch.setattr(zygote, "start_zygote", lambda modules: None)


def test_without_a_zygote_every_worker_imports_the_modules_before_its_first_task(tmp_path, monkeypatch, without_zygote):
    import os
    import sys

    log = probe_module(tmp_path, monkeypatch, "probe_every_worker")
    with LocalProcessExecutor(workers=2) as pool:
        pool.prepare(["probe_every_worker"])
        seen = pool.map(has_module, ["probe_every_worker"] * 8)
        imported = log_lines(log, at_least=4)
    assert all(loaded for _, loaded in seen)
    assert "probe_every_worker" not in sys.modules  # this process never imported it
    workers = {line.split()[1] for line in imported}
    assert len(workers) == 2 and str(os.getpid()) not in workers
    assert sorted(line.split()[0] for line in imported) == ["end", "end", "start", "start"]


def test_without_a_zygote_two_workers_import_one_at_a_time_while_this_process_works(
    tmp_path, monkeypatch, without_zygote
):
    import time

    import policycheck.execution.local as local

    monkeypatch.setattr(local, "available_cores", lambda: 2)  # this process keeps one core, the workers one
    log = probe_module(tmp_path, monkeypatch, "probe_one_at_a_time", released=False)
    with LocalProcessExecutor(workers=2) as pool:
        pool.prepare(["probe_one_at_a_time"])
        assert log_lines(log, at_least=1)[0].startswith("start")
        time.sleep(0.5)  # the first worker is held in its import; the second must not have begun
        early = log_lines(log, 0.0)
        (tmp_path / "release").write_text("")
        pool.map(has_module, ["probe_one_at_a_time"] * 4)
    assert len(early) == 1


def test_without_a_zygote_a_map_lets_every_worker_import_at_once(tmp_path, monkeypatch, without_zygote):
    import threading

    import policycheck.execution.local as local

    monkeypatch.setattr(local, "available_cores", lambda: 2)
    log = probe_module(tmp_path, monkeypatch, "probe_all_at_once", released=False)
    with LocalProcessExecutor(workers=2) as pool:
        pool.prepare(["probe_all_at_once"])
        log_lines(log, at_least=1)
        mapping = threading.Thread(target=pool.map, args=(has_module, ["probe_all_at_once"] * 4))
        mapping.start()  # this process now waits on the pool: the second worker may import beside the first
        both = log_lines(log, at_least=2)
        (tmp_path / "release").write_text("")
        mapping.join()
    assert [line.split()[0] for line in both] == ["start", "start"]


def test_without_a_zygote_and_cores_to_spare_both_workers_import_at_once(tmp_path, monkeypatch, without_zygote):
    import policycheck.execution.local as local

    monkeypatch.setattr(local, "available_cores", lambda: 3)  # one core for this process, two for the workers
    log = probe_module(tmp_path, monkeypatch, "probe_cores_to_spare", released=False)
    with LocalProcessExecutor(workers=2) as pool:
        pool.prepare(["probe_cores_to_spare"])
        both = log_lines(log, at_least=2)
        (tmp_path / "release").write_text("")
        pool.map(has_module, ["probe_cores_to_spare"] * 4)
    assert [line.split()[0] for line in both] == ["start", "start"]


def test_without_a_zygote_prepare_on_a_running_pool_reaches_its_workers(tmp_path, monkeypatch, without_zygote):
    log = probe_module(tmp_path, monkeypatch, "probe_running_pool_tasks")
    with LocalProcessExecutor(workers=2) as pool:
        pool.map(square, list(range(4)))
        pool.prepare(["probe_running_pool_tasks"])
        imported = log_lines(log, at_least=1)
    assert imported[0].startswith("start")


def test_prepare_imports_nothing_where_the_work_runs_in_this_process(tmp_path, monkeypatch):
    import sys

    log = probe_module(tmp_path, monkeypatch, "probe_in_process")
    one = LocalProcessExecutor(workers=1)
    one.prepare(["probe_in_process"])
    SerialExecutor().prepare(["probe_in_process"])
    assert one._pool is None and "probe_in_process" not in sys.modules and not log.exists()


def test_threads_are_one_per_worker_but_never_more_than_this_machines_cores(monkeypatch):
    import policycheck.execution.executor as executor_module

    monkeypatch.setattr(executor_module, "available_cores", lambda: 2)
    # A remote cluster's 64 workers are not 64 cores here: the threads this process starts stay at 2.
    assert LocalProcessExecutor(workers=64).threads == 2
    assert LocalProcessExecutor(workers=1).threads == 1
    assert SerialExecutor().threads == 1


def test_a_module_and_function_entry_imports_the_module_and_calls_the_function(tmp_path, monkeypatch):
    from policycheck.execution.executor import import_modules

    (tmp_path / "probe_warm.py").write_text("calls = []\ndef warm():\n    calls.append('warm')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import_modules(["probe_warm:warm", "probe_warm:no_such_function", "policycheck_no_such_module:warm"])
    import probe_warm

    assert probe_warm.calls == ["warm"]  # the failing entries are skipped


def warmed(name: str) -> tuple[int, list[str]]:
    import importlib
    import os

    return os.getpid(), list(importlib.import_module(name).calls)


def test_the_workers_start_with_what_the_zygote_warmed(tmp_path, monkeypatch):
    import sys

    (tmp_path / "probe_warmed.py").write_text("calls = []\ndef warm():\n    calls.append('warm')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with LocalProcessExecutor(workers=2) as pool:
        pool.prepare(["probe_warmed:warm"])
        seen = pool.map(warmed, ["probe_warmed"] * 4)
    assert all(calls == ["warm"] for _, calls in seen)  # called once, in the zygote, before the workers' forks
    assert "probe_warmed" not in sys.modules


def test_a_pool_whose_zygote_died_still_runs_its_tasks():
    import os
    import signal
    import time
    from multiprocessing import forkserver

    try:
        with LocalProcessExecutor(workers=2) as pool:
            pool.prepare(["colorsys"])
            assert pool._zygote is not None
            os.kill(pool._zygote.pid, signal.SIGKILL)
            time.sleep(0.2)
            # multiprocessing finds its fork server dead and starts its own: slower, the same answers.
            assert pool.map(square, list(range(6))) == [x * x for x in range(6)]
    finally:
        forkserver._forkserver._stop()  # the standard server it started would hold off later zygotes
