"""A fork server forked from this process: workers that start with their libraries imported.

A pool's workers forked from this process each import a heavy library
(scikit-learn for the membership game's forests: 0.65 CPU-second, scipy.stats
most of it) when their first task needs it, so two workers pay for it twice.
Forked instead from a *zygote*, a copy of this process that imported the
library once on a core this one leaves idle, every worker starts with it.

The zygote is multiprocessing's own fork server (``multiprocessing.forkserver``:
its ``main`` loop, its protocol, its ``"forkserver"`` start method), with one
difference: the standard server is a fresh interpreter that must import NumPy,
pandas and this package again before it can serve; this one is forked, so it
has them already and imports only the modules asked for (its garbage collector
frozen first, so that it never scans, and so copies, the heap it shares with this
process). It is installed as
this process's fork server, and a pool started with
``multiprocessing.get_context("forkserver")`` forks its workers from it
(any such pool: one an API caller starts while a check runs would fork from
it too, and find this process's modules loaded). The executor stops it with
its pool.

It ends with this process, even when this one is killed: its workers, which
end with it (:func:`policycheck.execution.lifetime.die_with_parent`), would
otherwise keep it alive, and it them.

Where that is not possible (not Linux, a Python whose fork server differs
from 3.11-3.13's, a fork server already running) :func:`start_zygote`
returns None and the caller starts its workers as before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass
class Zygote:
    """A running zygote: its pid, the fork server it is registered as, and the pipe it says it is ready on."""

    pid: int
    address: str
    #: Read end of the pipe the zygote writes to once its modules are imported (None once that is read).
    ready_fd: int | None = None

    def ready(self) -> bool:
        """Whether the zygote has imported its modules (or ended): a worker forked now would not wait.

        Never blocks: a pool started before this turns true waits in ``submit`` for the imports.
        """
        if self.ready_fd is None:
            return True
        import select

        readable, _, _ = select.select([self.ready_fd], [], [], 0)
        if not readable:
            return False
        os.close(self.ready_fd)  # a byte, or end of file should the zygote have died: either way, done
        self.ready_fd = None
        return True

    def stop(self) -> None:
        """End the zygote (its workers have ended with their pool) and unregister it."""
        from multiprocessing import util

        if self.ready_fd is not None:
            os.close(self.ready_fd)
            self.ready_fd = None
        server = _fork_server()
        with server._lock:
            if server._forkserver_pid != self.pid:  # stopped already
                return
            # Closing the "alive" pipe tells the server to exit (its main loop reads EOF), unless a
            # process forked from this one since holds the pipe too: then it is killed (it keeps no state).
            os.close(server._forkserver_alive_fd)
            _reap(self.pid, patience_s=1.0)
            if not util.is_abstract_socket_namespace(self.address):
                os.unlink(self.address)
            server._forkserver_alive_fd = None
            server._forkserver_address = None
            server._forkserver_pid = None


def _fork_server() -> Any:
    """This process's fork server record (``multiprocessing.forkserver._forkserver``: private, untyped)."""
    from multiprocessing import forkserver

    return forkserver._forkserver  # its attributes are checked by zygote_supported


def _reap(pid: int, patience_s: float) -> None:
    """Wait for the child ``pid`` to exit, killing it after ``patience_s`` seconds."""
    import signal
    import time

    deadline = time.monotonic() + patience_s
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return
        time.sleep(0.005)


def zygote_supported() -> bool:
    """Whether this Python's fork server is the one :func:`start_zygote` knows (3.11-3.13, Linux).

    Linux only: the pool forks its workers there (elsewhere it spawns them), and the zygote and its
    workers end with their parent by the kernel's word (PR_SET_PDEATHSIG).
    """
    if not sys.platform.startswith("linux") or not (3, 11) <= sys.version_info[:2] < (3, 14):
        return False
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    return hasattr(forkserver, "main") and all(
        hasattr(server, name) for name in ("_lock", "_forkserver_pid", "_forkserver_address", "_forkserver_alive_fd")
    )


def start_zygote(modules: Sequence[str]) -> Zygote | None:
    """Fork the zygote, which imports ``modules`` and then serves forks; None where it cannot be used.

    ``modules`` as :func:`policycheck.execution.executor.import_modules` takes them.

    Returns at once: the import runs in the zygote, and a pool's first worker
    waits for it only if it asks before the import is done.
    """
    if not zygote_supported():
        return None
    import gc
    import socket
    from multiprocessing import connection, forkserver, resource_tracker, util

    from policycheck.execution.executor import import_modules
    from policycheck.execution.lifetime import die_with_parent

    parent = os.getpid()
    server = _fork_server()
    with server._lock:
        if server._forkserver_pid is not None:  # a fork server of someone else's runs
            return None
        # Started before the fork so that the zygote and every worker share this process's tracker
        # of shared-memory segments.
        resource_tracker.ensure_running()
        address = connection.arbitrary_address("AF_UNIX")  # type: ignore[attr-defined]
        listener = socket.socket(socket.AF_UNIX)
        try:
            listener.bind(address)
            if not util.is_abstract_socket_namespace(address):
                os.chmod(address, 0o600)
            listener.listen()
            alive_r, alive_w = os.pipe()
            ready_r, ready_w = os.pipe()
            # Unwritten output would be written again by the zygote's workers as they exit.
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
            pid = os.fork()
            if pid == 0:  # the zygote: import, then serve forks until this process closes alive_w
                code = 0
                try:
                    os.close(alive_w)
                    os.close(ready_r)
                    # Its workers hold the "alive" pipe open (the fork server gives it to each), so it
                    # would outlive a killed parent with them: killed with it instead, and they with it.
                    die_with_parent(parent)
                    # Its collector kept off what it inherited (gc.freeze, as the gc module's documentation
                    # advises before serving forks): scikit-learn's import set off two full collections,
                    # which scanned every inherited object (0.11 s), writing to each one's header and so
                    # copying every page holding one; the zygote was ready 0.2 s later at 2,000 records.
                    gc.freeze()
                    import_modules(modules)  # "module:function" too, which the server's own preload is not
                    os.write(ready_w, b"\1")
                    os.close(ready_w)  # before serving: no worker holds it
                    forkserver.main(listener.fileno(), alive_r, [])
                except SystemExit:
                    pass
                except BaseException:  # noqa: BLE001 - a zygote never returns into the parent's code
                    code = 1
                finally:
                    os._exit(code)
            os.close(alive_r)
            os.close(ready_w)
        finally:
            listener.close()
        server._forkserver_address = address
        server._forkserver_alive_fd = alive_w
        server._forkserver_pid = pid
    return Zygote(pid, address, ready_r)
