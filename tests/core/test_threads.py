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
