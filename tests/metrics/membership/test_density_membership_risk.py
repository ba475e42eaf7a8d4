"""density_membership_risk on a tiny release computed by hand."""

import math

import pandas as pd
import pytest

from policycheck.metrics.base import AttackerView, EvaluationContext
from policycheck.metrics.membership.density_membership_risk import DensityParams, density_membership_risk
from policycheck.release.model import ColumnType, Dataset, Release


def test_two_auc_minus_one_of_the_density_ratio_with_the_holdout_left_out_of_its_own_density():
    # One categorical column (p = 1, kernel exp(-D)). Training a, b; holdout c, d; synthetic a, a.
    # p_synthetic: a 1, b c d e^-1. p_holdout (a holdout record without itself): e^-1 for every record.
    # Ratios: a e, b 1, c 1, d 1: training {e, 1} against holdout {1, 1}: AUC (2 + 2 * 0.5) / 4 = 0.75.
    release = Release(
        "tiny",
        Dataset("original", "training", pd.DataFrame({"c": ["a", "b"]})),
        (Dataset("synthetic", "s", pd.DataFrame({"c": ["a", "a"]})),),
        Dataset("holdout", "holdout", pd.DataFrame({"c": ["c", "d"]})),
        {"c": ColumnType.CATEGORICAL},
    )
    ctx = EvaluationContext(release, AttackerView("no-box", (), ()), seed=1)
    result = density_membership_risk(ctx, DensityParams(isolated_share=1.0, bootstrap_resamples=20), {})
    assert result.value == pytest.approx(2 * 0.75 - 1)
    per_set = result.details.per_set[0]
    assert per_set.auc == pytest.approx(0.75) and per_set.auc_isolated == pytest.approx(0.75)
    assert math.isclose(per_set.advantage_all, 0.5)
