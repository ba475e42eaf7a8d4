"""The built-in synthesizers: indhist_dp (paper 001's IndHist with Laplace noise) at its extremes."""

import numpy as np
import pandas as pd
import pytest

from policycheck.methods.synthesizers import indhist_dp

DATA = pd.DataFrame({"c": ["a"] * 60 + ["b"] * 40, "n": [1] * 100})


def test_with_a_huge_epsilon_the_noise_vanishes_and_absent_domain_values_are_never_drawn():
    out = indhist_dp(DATA, 4000, np.random.default_rng(0), 1e12, {"c": ["a", "b", "z"], "n": [1, 2]})
    # shares 0.6 / 0.4 within four standard errors (sqrt(0.24 / 4000) = 0.0077)
    assert (out["c"] == "a").mean() == pytest.approx(0.6, abs=0.031)
    assert set(out["c"]) == {"a", "b"} and set(out["n"]) == {1} and out["n"].dtype == DATA["n"].dtype


def test_with_a_tiny_epsilon_the_output_does_not_depend_on_the_data():
    # Laplace noise of scale 2 p / epsilon = 4e9 per bin drowns counts that differ by 100: the same noise
    # (same seed) gives the same rows whichever data it was added to.
    domain = {"c": ["a", "b", "z"], "n": [1, 2]}
    other = pd.DataFrame({"c": ["b"] * 100, "n": [2] * 100})
    first = indhist_dp(DATA, 500, np.random.default_rng(1), 1e-9, domain)
    second = indhist_dp(other, 500, np.random.default_rng(1), 1e-9, domain)
    pd.testing.assert_frame_equal(first, second)


def test_a_value_outside_the_domain_is_refused():
    with pytest.raises(ValueError, match="outside its domain"):
        indhist_dp(DATA, 10, np.random.default_rng(0), 1.0, {"c": ["a"], "n": [1]})


def test_missing_values_are_a_bin_when_the_domain_has_one():
    data = pd.DataFrame({"x": [1.0, None, 2.0, None]})
    out = indhist_dp(data, 2000, np.random.default_rng(2), 1e12, {"x": [1.0, 2.0, None]})
    assert out["x"].isna().mean() == pytest.approx(0.5, abs=0.05)
