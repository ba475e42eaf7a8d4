"""DOMIAS's density ratio against hand-computed kernel densities."""

import math

import numpy as np
import pytest

from policycheck.methods.density_attack import (
    MIN_WIDTH,
    density_ratio,
    gaussian_kde_density,
    gower_kernel_density,
    gower_kernel_log_density,
    gower_kernel_width,
    log_density_ratio,
    mean_gower_distance,
)
from policycheck.methods.gower import CATEGORY, SCALED


def normal(x: float, mean: float, var: float) -> float:
    return math.exp(-((x - mean) ** 2) / (2 * var)) / math.sqrt(2 * math.pi * var)


def test_the_gaussian_kde_is_scotts_kernel_mean_by_hand():
    # two points 0 and 1: variance 0.5 (ddof 1) times Scott's factor 2^(-1/5) squared
    var = 0.5 * 2**-0.4
    got = gaussian_kde_density(np.array([[0.5]]), np.array([[0.0], [1.0]]))
    assert got[0] == pytest.approx(normal(0.5, 0.0, var), rel=1e-12)


def test_leave_one_out_drops_the_querys_own_kernel():
    # points 0, 1, 3: variance 7/3, factor 3^(-1/5); at 0 without itself: the mean of the other two kernels
    var = 7 / 3 * 3**-0.4
    got = gaussian_kde_density(np.array([[0.0]]), np.array([[0.0], [1.0], [3.0]]), exclude_self=np.array([0]))
    assert got[0] == pytest.approx((normal(0.0, 1.0, var) + normal(0.0, 3.0, var)) / 2, rel=1e-9)


def test_the_gower_kernel_is_exp_of_minus_p_times_the_distance_over_the_width():
    kinds = np.array([CATEGORY], dtype=np.int8)
    points = np.array([[0.0], [0.0], [1.0]])  # a, a, b
    # width 1 (one feature's full mismatch): the kernel before widths were fitted
    assert gower_kernel_density(np.array([[0.0]]), points[1:], kinds, width=1.0)[0] == pytest.approx(
        (1 + math.exp(-1)) / 2
    )
    loo = gower_kernel_density(np.array([[0.0]]), points, kinds, exclude_self=np.array([0]), width=1.0)
    assert loo[0] == pytest.approx((1 + math.exp(-1)) / 2)
    # width 0.25: a mismatch weighs e^-4
    assert gower_kernel_density(np.array([[0.0]]), points[1:], kinds, width=0.25)[0] == pytest.approx(
        (1 + math.exp(-4)) / 2, rel=1e-12
    )


def test_the_gower_log_density_is_finite_where_the_density_underflows():
    kinds = np.array([SCALED, SCALED], dtype=np.int8)
    # two mismatches from both points at width 0.001: exp(-2000) is 0 in floats, its log is -2000
    got = gower_kernel_log_density(np.array([[0.0, 0.0]]), np.array([[1.0, 1.0], [1.0, 1.0]]), kinds, width=1e-3)
    assert got[0] == pytest.approx(-2000.0, rel=1e-12)
    # leave-one-out with no other point: no density (log -inf), not a number from nothing
    alone = gower_kernel_log_density(np.array([[0.0, 0.0]]), np.array([[0.0, 0.0]]), kinds, np.array([0]), width=0.1)
    assert alone[0] == -np.inf


def test_the_kde_ratio_is_synthetic_over_reference_density_plus_domias_epsilon():
    # three points 0, 1, 3 (variance 7/3, Scott factor 3^(-1/5)) for both sets: the ratio at 0 is p / (p + 1e-10)
    var = 7 / 3 * 3**-0.4
    p = (normal(0.0, 0.0, var) + normal(0.0, 1.0, var) + normal(0.0, 3.0, var)) / 3
    points = np.array([[0.0], [1.0], [3.0]])
    got = density_ratio(np.array([[0.0]]), points, points, "kde")
    assert got[0] == pytest.approx(p / (p + 1e-10), rel=1e-12)


def test_the_gower_ratio_is_synthetic_over_reference_density_without_an_epsilon():
    kinds = np.array([CATEGORY], dtype=np.int8)
    queries = np.array([[0.0]])
    synthetic = np.array([[0.0], [0.0]])  # density 1 at a
    reference = np.array([[1.0], [1.0]])  # density e^(-1/h) at a
    got = density_ratio(queries, synthetic, reference, "gower", kinds, width=1.0)
    assert got[0] == pytest.approx(math.e, rel=1e-12)
    # at width 0.02 the reference density e^-50 (2e-22) is far below DOMIAS's 1e-10, and the ratio still reads it
    logs = log_density_ratio(queries, synthetic, reference, "gower", kinds, width=0.02)
    assert logs[0] == pytest.approx(50.0, rel=1e-12)


def test_the_gower_width_is_scotts_rule_on_the_mean_gower_distance_by_hand():
    # holdout: numeric 0, 0.5, 1 and a category a, a, b; p = 2, n = 3
    kinds = np.array([CATEGORY, SCALED], dtype=np.int8)
    reference = np.array([[0.0, 0.0], [0.0, 0.5], [1.0, 1.0]])
    # ordered pairs of distinct records: 6. Category: 4 of them differ. Numeric: |diffs| 0.5, 1, 0.5, twice: 4.
    # mean per feature 4/6 and 4/6, so Dbar = 2/3
    assert mean_gower_distance(reference, kinds) == pytest.approx(2 / 3, rel=1e-12)
    got = gower_kernel_width(reference, kinds)
    factor = 3 ** (-1 / 6)
    assert got.scott_factor == pytest.approx(factor, rel=1e-12)
    assert got.width == pytest.approx(math.sqrt(math.pi / 8) * 2 / 3 * factor, rel=1e-12)
    assert (got.records, got.features) == (3, 2)


def test_the_gower_width_counts_a_missing_value_against_a_present_one_as_a_full_mismatch():
    # one numeric feature: 0, 1 and a missing value (-1): pairs (0,1) 1, (0,-) 1, (1,-) 1 -> mean 1
    assert mean_gower_distance(np.array([[0.0], [1.0], [-1.0]]), np.array([SCALED], dtype=np.int8)) == 1.0


def test_identical_reference_records_give_the_floor_width_not_zero():
    kinds = np.array([CATEGORY, SCALED], dtype=np.int8)
    got = gower_kernel_width(np.array([[2.0, 0.3]] * 5), kinds)
    assert got.mean_distance == 0.0 and got.width == MIN_WIDTH > 0
