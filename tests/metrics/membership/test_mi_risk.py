"""mi_risk on tiny hand-computed releases (the distances are in tests/metrics/membership/tiny.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from policycheck.core.errors import EvaluationError
from policycheck.execution.local import LocalProcessExecutor
from policycheck.metrics import registry
from tests.metrics.membership.tiny import HOLDOUT, SYNTHETIC, TRAINING, evaluate, release


# Training -> synthetic: T0 (0, a) 0; T1 (10, b) 0.2 (to (6, b)).
# Holdout -> synthetic: H0 (4, a) 0.1 (to (2, a)); H1 (10, c) 0.
# Adversary set = all four. Sorted DCRs 0, 0, 0.1, 0.2: the 0.75 level gives
# threshold 0.1 (T0, H0, H1 guessed: precision 1/3), the 0.5 level 0 (T0, H1: 1/2).
def test_mi_risk_reports_unfloored_precisions_and_an_unclipped_risk():
    result = evaluate("mi_risk", release(HOLDOUT, SYNTHETIC), quantile_levels=[0.75, 0.5])
    detail = result.details.per_set[0]
    assert [t.distance for t in detail.thresholds] == pytest.approx([0.1, 0.0])
    assert [t.precision for t in detail.thresholds] == pytest.approx([1 / 3, 1 / 2])
    assert detail.mean_precision == pytest.approx(5 / 12)
    # (5/12 - 1/2) * 2: worse than a blind guess, whose risk (the baseline) is 0.
    assert result.value == pytest.approx(-1 / 6)
    assert (result.baseline, result.sample_size) == (0.0, 4)
    # Pairs (member, non-member) won by the member: (0 vs 0.1) + half of (0 vs 0).
    assert detail.auc == pytest.approx(1.5 / 4)


# A copied training set: training DCRs are 0; H0 (5, c) 0.75 and H1 (3, d) 0.65.
def test_mi_risk_of_a_copied_training_set_is_one():
    holdout = pd.DataFrame({"x": [5.0, 3.0], "c": ["c", "d"]})
    result = evaluate("mi_risk", release(holdout, TRAINING))
    detail = result.details.per_set[0]
    assert [t.precision for t in detail.thresholds] == [1.0] * 4
    assert [t.recall for t in detail.thresholds] == [1.0] * 4
    assert result.value == 1.0
    assert result.interval == (1.0, 1.0)
    assert detail.auc == 1.0


def test_mi_risk_roc_chart_runs_from_origin_to_one_one():
    (chart,) = evaluate("mi_risk", release(HOLDOUT, SYNTHETIC)).charts
    attack = chart["series"][0]
    assert (attack["x"][0], attack["y"][0], attack["x"][-1], attack["y"][-1]) == (0.0, 0.0, 1.0, 1.0)


def test_adversary_size_beyond_the_smaller_set_is_an_evaluation_error():
    with pytest.raises(EvaluationError, match="adversary_size"):
        evaluate("mi_risk", release(HOLDOUT, SYNTHETIC), adversary_size=3)


def test_quantile_levels_outside_the_unit_interval_are_rejected():
    with pytest.raises(ValidationError):
        registry.get_metric("mi_risk").params(quantile_levels=[0.5, 1.5])


def test_same_seed_gives_the_same_numbers_and_pool_matches_serial():
    rng = np.random.default_rng(0)
    n = 300
    real = pd.DataFrame({"x": rng.normal(size=2 * n).round(1), "c": rng.choice(list("abcdef"), 2 * n)})
    syn = real.iloc[: n // 2].reset_index(drop=True)
    rel = release(real.iloc[n:].reset_index(drop=True), syn, training=real.iloc[:n].reset_index(drop=True))
    a = evaluate("mi_risk", rel, seed=9, adversary_size=100)
    with LocalProcessExecutor(2) as pool:
        b = evaluate("mi_risk", rel, seed=9, adversary_size=100, executor=pool)
    assert (a.value, a.interval, a.details) == (b.value, b.interval, b.details)
