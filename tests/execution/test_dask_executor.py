"""The Dask executor on a real LocalCluster: the same report.json as the local and serial executors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

from bench.game_policy import game_policy  # noqa: E402
from policycheck.execution.dask import DaskExecutor  # noqa: E402
from policycheck.interfaces.check import CheckOptions, check_release  # noqa: E402
from policycheck.interfaces.demo import find_policy, write_release  # noqa: E402
from policycheck.release.load import load_manifest  # noqa: E402
from policycheck.report.integrity import without_run_context  # noqa: E402


def report_bytes(out: Path) -> bytes:
    report = json.loads((out / "report.json").read_text())
    return json.dumps(without_run_context(report), sort_keys=True).encode()


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    folder = tmp_path_factory.mktemp("release")
    return load_manifest(write_release("nonprivate", folder, seed=20261121))


def run_everywhere(policy: Path, release, tmp_path: Path) -> dict[str, bytes]:
    out = {}
    for executor in ("serial", "local", "dask"):
        check_release(
            policy,
            release,
            tmp_path / executor,
            CheckOptions(executor=executor, workers=2, scheduler="local"),
            formats=("json",),
        )
        out[executor] = report_bytes(tmp_path / executor)
    return out


def test_demo_policy_gives_the_same_report_on_dask_local_and_serial(release, tmp_path):
    reports = run_everywhere(find_policy(), release, tmp_path)
    assert reports["dask"] == reports["serial"]
    assert reports["local"] == reports["serial"]
    assert json.loads(reports["dask"])["verdict"] == "fail"


def test_a_game_gives_the_same_report_on_dask_local_and_serial(release, tmp_path):
    policy = tmp_path / "game.policy.yaml"
    policy.write_text(game_policy(repetitions=12))
    reports = run_everywhere(policy, release, tmp_path)
    assert reports["dask"] == reports["serial"]
    assert reports["local"] == reports["serial"]
    (rule,) = json.loads(reports["dask"])["rules"]
    assert rule["details"]["targets"] == 12 and rule["error"] is None


def pid_and_sum(item):
    array, _ = item
    return os.getpid(), float(array.sum())


def kill_first_task_once(item):
    """Kill the worker process running the first task, once (a marker file remembers)."""
    marker, k = item
    if k == 0 and not os.path.exists(marker):
        Path(marker).write_text("killed")
        os._exit(1)
    return k * k


def test_a_repeated_array_is_scattered_once_and_reaches_both_workers():
    big = np.arange(300_000.0)
    with DaskExecutor("local", 2) as executor:
        assert executor.workers == 2
        results = executor.map(pid_and_sum, [(big, k) for k in range(16)])
    assert {s for _, s in results} == {float(big.sum())}
    assert len({pid for pid, _ in results}) == 2


def test_a_lost_worker_is_retried_and_the_results_are_unchanged(tmp_path):
    marker = str(tmp_path / "killed")
    with DaskExecutor("local", 2) as executor:
        assert executor.map(kill_first_task_once, [(marker, k) for k in range(6)]) == [k * k for k in range(6)]
    assert Path(marker).read_text() == "killed"


def test_an_unreachable_scheduler_is_a_usage_error():
    from policycheck.core.errors import InvalidInput

    with pytest.raises(InvalidInput, match="cannot reach the Dask scheduler"):
        DaskExecutor("tcp://127.0.0.1:9", timeout=2)


def has_module(name: str) -> bool:
    import sys

    return name in sys.modules


def test_prepare_has_every_worker_import_the_modules_without_waiting():
    import time

    with DaskExecutor("local", 2) as executor:
        client = executor._client
        # A module these workers have not imported yet (the check below would prove nothing otherwise).
        assert not any(client.run(has_module, "colorsys").values())
        executor.prepare(["colorsys", "policycheck_no_such_module"])
        deadline = time.monotonic() + 30
        while not all(client.run(has_module, "colorsys").values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        loaded = client.run(has_module, "colorsys")
        assert executor.map(pid_and_sum, [(np.ones(3), k) for k in range(4)])[0][1] == 3.0
    assert len(loaded) == 2 and all(loaded.values())
