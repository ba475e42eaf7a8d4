"""Parity with the peer tools, run in their own environment (a helper module: a conftest.py here
would shadow tests/conftest.py, which other tests import by name).

anonymeter 1.1 pins numpy < 1.27 while policycheck runs on numpy 2, so the
peers live in a separate virtual environment (``.venv-peers``, made by
``.ci/run``; or the interpreter named by ``POLICYCHECK_PEER_PYTHON``) and
each measurement runs there in a subprocess (``peer_runner.py``). Without
that environment the parity tests are skipped, except under CI, where a
missing peer is a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("peer_runner.py")


def peer_python() -> str | None:
    named = os.environ.get("POLICYCHECK_PEER_PYTHON")
    if named:
        return named
    local = ROOT / ".venv-peers" / "bin" / "python"
    return str(local) if local.exists() else None


def has_peers(python: str) -> bool:
    try:
        probe = subprocess.run([python, "-c", "import anonymeter, sdmetrics, domias.evaluator"], capture_output=True)
    except OSError:
        return False
    return probe.returncode == 0


@pytest.fixture(scope="session")
def run_peer(tmp_path_factory):
    """run_peer([spec, ...]) -> the peers' results, computed in their environment."""
    python = peer_python()
    if python is None or not has_peers(python):
        reason = (
            "the peer tools (anonymeter 1.1, SDMetrics 0.32, DOMIAS 0.0.5) are not installed: python3 -m venv "
            ".venv-peers && .venv-peers/bin/pip install anonymeter==1.1.0 sdmetrics==0.32.0 && .venv-peers/bin/pip "
            "install torch==2.13.0 && .venv-peers/bin/pip install domias==0.0.5 ctgan==0.8.0"
        )
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("peer-specs")

    def run(specs: list[dict]) -> list[dict]:
        path = folder / f"specs-{len(list(folder.iterdir()))}.json"
        path.write_text(json.dumps(specs))
        done = subprocess.run([python, str(RUNNER), str(path)], capture_output=True, text=True, timeout=3000)
        if done.returncode != 0:
            raise RuntimeError(f"peer run failed:\n{done.stderr[-3000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    return run
