"""Our density attack against DOMIAS 0.0.5 itself (van Breugel et al. 2023, the ``domias`` package).

DOMIAS's own evaluation (``density_estimator="kde"``) on a fixed synthetic set that overfits its
members, with a reference set apart from the scored records (its layout): our
:func:`policycheck.methods.density_attack.density_ratio` gives the same score for every record and
the same AUC. The package runs in the peers' environment (.venv-peers, made by .ci/run: torch's
CPU wheel, then domias and ctgan, which its evaluator imports).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from peers_env import run_peer  # noqa: F401, F811 - the fixture

from policycheck.core import stats
from policycheck.methods.density_attack import density_ratio


def frames(seed: int = 5, n: int = 120) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    columns = ["x", "y", "z"]
    draw = lambda m: pd.DataFrame(rng.normal(size=(m, 3)) * [1.0, 2.0, 0.5] + [0, 1, 2], columns=columns)  # noqa: E731
    members, nonmembers, reference = draw(n), draw(n), draw(n)
    # A synthesizer that overfits: three quarters of its records are members with a little noise.
    k = 3 * n // 4
    near = members.sample(k, random_state=seed).to_numpy() + rng.normal(scale=0.02, size=(k, 3))
    synthetic = pd.concat([pd.DataFrame(near, columns=columns), draw(n - k)], ignore_index=True)
    return {"members": members, "nonmembers": nonmembers, "reference": reference, "synthetic": synthetic}


def test_the_density_ratio_and_its_auc_are_domias_own(run_peer, tmp_path):
    data = frames()
    spec = {"tool": "domias"}
    for key, frame in data.items():
        path = tmp_path / f"{key}.csv"
        frame.to_csv(path, index=False)
        spec[key] = str(path)
    (theirs,) = run_peer([spec])
    queries = np.vstack([data["members"].to_numpy(), data["nonmembers"].to_numpy()])
    ours = density_ratio(queries, data["synthetic"].to_numpy(), data["reference"].to_numpy(), "kde")
    np.testing.assert_allclose(ours, theirs["scores"], rtol=1e-9)
    n = len(data["members"])
    assert stats.roc_auc(ours[:n], ours[n:]) == pytest.approx(theirs["auc"], abs=1e-12)
    assert theirs["auc"] > 0.6  # the overfitting shows
