"""The zygote: a fork server forked from this process (policycheck/execution/zygote.py)."""

import os
import sys
from multiprocessing import forkserver

import pytest

from policycheck.execution.zygote import start_zygote, zygote_supported

pytestmark = pytest.mark.skipif(not zygote_supported(), reason="this Python's fork server is not the one known")


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_stopped_zygote_is_gone_with_its_socket_and_its_registration():
    zygote = start_zygote(["colorsys"])
    assert zygote is not None and _exists(zygote.pid)
    assert forkserver._forkserver._forkserver_pid == zygote.pid  # pools of "forkserver" processes fork from it
    zygote.stop()
    assert not _exists(zygote.pid)  # ended and reaped
    assert not os.path.exists(zygote.address)
    assert forkserver._forkserver._forkserver_pid is None


def test_a_fork_server_already_running_is_left_alone(monkeypatch):
    monkeypatch.setattr(forkserver._forkserver, "_forkserver_pid", os.getpid())
    assert start_zygote(["colorsys"]) is None


def test_a_python_whose_fork_server_differs_gets_no_zygote(monkeypatch):
    monkeypatch.setattr(sys, "version_info", (3, 14, 0, "final", 0))
    assert not zygote_supported()
    assert start_zygote(["colorsys"]) is None


def test_a_zygote_whose_pipe_a_later_fork_still_holds_is_stopped_all_the_same():
    import time

    zygote = start_zygote(["colorsys"])
    assert zygote is not None
    holder = os.fork()  # a process forked from this one after the zygote: it holds the "alive" pipe too
    if holder == 0:
        time.sleep(30)
        os._exit(0)
    try:
        started = time.monotonic()
        zygote.stop()
        assert time.monotonic() - started < 10 and not _exists(zygote.pid)
    finally:
        os.kill(holder, 9)
        os.waitpid(holder, 0)
