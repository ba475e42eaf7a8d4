"""Pieces of one step on a few threads of this process (policycheck/core/threads.py)."""

import threading

from policycheck.core.threads import beside


def test_beside_runs_the_other_piece_while_the_main_one_waits_for_it():
    started = threading.Event()
    # main waits for other to have started: only a second thread lets it see that
    main, other = beside(lambda: started.wait(timeout=10), started.set, threads=2)
    assert main is True and other is None


def test_beside_on_one_thread_runs_both_here_main_first():
    order = []
    here = threading.get_ident()
    main, other = beside(
        lambda: order.append("main") or threading.get_ident(), lambda: order.append("other") or threading.get_ident(), 1
    )
    assert order == ["main", "other"] and main == other == here


def test_in_turn_runs_items_side_by_side_with_results_in_the_order_taken():
    from policycheck.core.threads import in_turn

    items = iter(range(4))
    both = threading.Barrier(2, timeout=10)

    def run(i):
        if i < 2:
            both.wait()  # 0 and 1 each wait for the other: only two threads at once let them pass
        return i * 10

    assert in_turn(lambda: next(items, None), run, threads=2) == [0, 10, 20, 30]


def test_in_turn_takes_items_one_at_a_time_in_order():
    from policycheck.core.threads import in_turn

    items, taken = iter("abcdef"), []

    def take():
        item = next(items, None)
        if item is not None:
            taken.append(item)
        return item

    in_turn(take, str.upper, threads=3)
    assert taken == list("abcdef")


def test_in_turn_raises_the_first_error_and_takes_nothing_after_it():
    import pytest

    from policycheck.core.threads import in_turn

    items, taken = iter(range(10)), []

    def take():
        item = next(items, None)
        taken.append(item)
        return item

    def run(i):
        if i == 0:
            raise ValueError("item 0 broke")
        return i

    with pytest.raises(ValueError, match="item 0 broke"):
        in_turn(take, run, threads=1)
    assert taken == [0]


def test_ahead_begins_on_a_thread_of_its_own_and_gives_its_value_when_asked():
    from policycheck.core.threads import Ahead

    began = threading.Event()
    later = Ahead(lambda: began.set() or threading.get_ident(), threads=2)
    assert began.wait(timeout=10)  # under way before its result is asked for
    assert later.result() != threading.get_ident()


def test_ahead_on_one_thread_runs_when_asked_here_and_raises_its_error():
    import pytest

    from policycheck.core.threads import Ahead

    ran = []

    def work():
        ran.append(threading.get_ident())
        raise ValueError("the file is broken")

    later = Ahead(work, threads=1)
    assert ran == []  # nothing yet
    with pytest.raises(ValueError, match="the file is broken"):
        later.result()
    assert ran == [threading.get_ident()]
