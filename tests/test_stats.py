import numpy as np
import pytest

from policycheck.stats import clopper_pearson, roc_auc, roc_curve


def test_clopper_pearson_matches_published_values():
    # 7 successes in 20 trials: exact 95% interval (0.1539, 0.5922).
    lo, hi = clopper_pearson(7, 20)
    assert (round(lo, 4), round(hi, 4)) == (0.1539, 0.5922)


def test_clopper_pearson_edges_are_zero_and_one():
    assert clopper_pearson(0, 10)[0] == 0.0
    assert clopper_pearson(10, 10)[1] == 1.0
    assert clopper_pearson(0, 0) == (0.0, 1.0)


def test_auc_counts_ties_as_half():
    assert roc_auc(np.array([1.0, 1.0]), np.array([1.0, 0.0])) == pytest.approx(0.75)


def test_roc_curve_runs_from_origin_to_one_one():
    fpr, tpr = roc_curve(np.array([0.9, 0.8]), np.array([0.1, 0.85]))
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0.0, 0.0, 1.0, 1.0)
