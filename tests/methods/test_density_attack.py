"""DOMIAS's density ratio against hand-computed kernel densities."""

import math

import numpy as np
import pytest

from policycheck.methods.density_attack import density_ratio, gaussian_kde_density, gower_kernel_density
from policycheck.methods.gower import CATEGORY


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


def test_the_gower_kernel_is_exp_of_minus_p_times_the_distance():
    kinds = np.array([CATEGORY], dtype=np.int8)
    points = np.array([[0.0], [0.0], [1.0]])  # a, a, b
    assert gower_kernel_density(np.array([[0.0]]), points[1:], kinds)[0] == pytest.approx((1 + math.exp(-1)) / 2)
    loo = gower_kernel_density(np.array([[0.0]]), points, kinds, exclude_self=np.array([0]))
    assert loo[0] == pytest.approx((1 + math.exp(-1)) / 2)


def test_the_ratio_is_synthetic_over_reference_density_plus_domias_epsilon():
    kinds = np.array([CATEGORY], dtype=np.int8)
    queries = np.array([[0.0]])
    synthetic = np.array([[0.0], [0.0]])  # density 1 at a
    reference = np.array([[1.0], [1.0]])  # density e^-1 at a
    got = density_ratio(queries, synthetic, reference, "gower", kinds)
    assert got[0] == pytest.approx(1.0 / (math.exp(-1) + 1e-10), rel=1e-12)
