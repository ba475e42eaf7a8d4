"""The executor a command line or an API call names: ``local``, ``serial`` or ``dask``.

Each kind is imported only when chosen, so no command pays for Dask (or a
process pool) it does not use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from policycheck.execution.executor import Executor

EXECUTORS = ("local", "serial", "dask")


def make_executor(kind: str = "local", workers: int | None = None, scheduler: str | None = None) -> Executor:
    """Build the executor named on the command line (``local``, ``serial`` or ``dask``).

    ``scheduler`` (Dask only): a scheduler address such as
    ``tcp://host:8786``, or ``local`` (the default) for a cluster of local
    processes started for this run.
    """
    if kind == "serial":
        from policycheck.execution.executor import SerialExecutor

        return SerialExecutor()
    if kind == "local":
        from policycheck.execution.local import LocalProcessExecutor

        return LocalProcessExecutor(workers)
    if kind == "dask":
        from policycheck.execution.dask import DaskExecutor

        return DaskExecutor(scheduler or "local", workers)
    raise ValueError(f"unknown executor {kind!r}: expected one of {', '.join(EXECUTORS)}")
