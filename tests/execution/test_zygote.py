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


#: A module whose import lasts until the file ``go`` exists beside it (at most 20 s).
HELD = """
import pathlib, time
here = pathlib.Path(__file__).parent
deadline = time.monotonic() + 20
while not (here / "go").exists() and time.monotonic() < deadline:
    time.sleep(0.01)
"""


@pytest.fixture
def held_zygote(tmp_path, monkeypatch):
    """A zygote importing a module that holds until ``go`` is written in ``tmp_path``; stopped after."""
    (tmp_path / "probe_held.py").write_text(HELD)
    monkeypatch.syspath_prepend(str(tmp_path))
    zygote = start_zygote(["probe_held"])
    assert zygote is not None
    yield zygote
    zygote.stop()


def _ready_within(zygote, seconds: float) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while not zygote.ready():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_zygote_is_ready_once_its_modules_are_imported_and_not_before(held_zygote, tmp_path):
    import time

    time.sleep(0.3)
    assert not held_zygote.ready()  # still importing
    (tmp_path / "go").write_text("")
    assert _ready_within(held_zygote, 10)
    assert held_zygote.ready()  # and stays so


def test_a_zygote_that_died_while_importing_counts_as_ready(held_zygote):
    import signal

    os.kill(
        held_zygote.pid, signal.SIGKILL
    )  # a pool started now would not wait for it (multiprocessing starts its own)
    assert _ready_within(held_zygote, 10)


#: A module that writes, beside itself, whether the zygote's collector scans what the zygote inherited.
SCANNED = """
import gc, json, pathlib
inherited = vars(json)  # a module this process imported before the zygote was forked
(pathlib.Path(__file__).parent / "scanned").write_text(str(any(o is inherited for o in gc.get_objects())))
"""


def test_the_zygotes_collector_leaves_alone_what_it_inherited(tmp_path, monkeypatch):
    import gc
    import json

    assert any(o is vars(json) for o in gc.get_objects())  # scanned here
    (tmp_path / "probe_scanned.py").write_text(SCANNED)
    monkeypatch.syspath_prepend(str(tmp_path))
    zygote = start_zygote(["probe_scanned"])
    assert zygote is not None
    try:
        assert _ready_within(zygote, 10)
    finally:
        zygote.stop()
    assert (tmp_path / "scanned").read_text() == "False"
