"""A child process that ends with the process that started it, even when that one is killed."""

from __future__ import annotations

import os


def die_with_parent(parent: int) -> None:
    """End this process when the process that started it dies (even by kill -9).

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
