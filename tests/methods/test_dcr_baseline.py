"""SDMetrics' DCR convention: the real data's range, clipped terms, equality on constant columns."""

import numpy as np
import pandas as pd
import pytest

from policycheck.methods.dcr_baseline import fit_reference, median_ratio, sdmetrics_dcr, uniform_random_records

REAL = pd.DataFrame({"x": [0.0, 10.0], "c": ["a", "b"], "k": [3.0, 3.0]})


def dcr(synthetic):
    enc = fit_reference([REAL, synthetic], REAL, ["x", "c", "k"], [True, False, True])
    return sdmetrics_dcr(enc.encode(synthetic), enc.encode(REAL), enc.kinds)


def test_terms_use_the_real_range_and_are_clipped_at_one():
    # x = 15, c = b, k = 3: to (0, a): min(15/10, 1) + 1 + 0 = 2; to (10, b): 5/10 + 0 + 0 = 0.5 -> DCR 0.5 / 3.
    # Our Gower would scale by the union's range 15: 5/15, a different number.
    assert dcr(pd.DataFrame({"x": [15.0], "c": ["b"], "k": [3.0]})).tolist() == pytest.approx([0.5 / 3])


def test_a_column_constant_in_the_real_data_compares_by_equality():
    # k = 4 against the constant 3: a full mismatch (ours would count 0 on a zero range).
    assert dcr(pd.DataFrame({"x": [10.0], "c": ["b"], "k": [4.0]})).tolist() == pytest.approx([1 / 3])


def test_missing_against_present_is_one_and_two_missing_match():
    synthetic = pd.DataFrame({"x": [np.nan, 0.0], "c": ["a", None], "k": [3.0, 3.0]})
    # row 0 to (0, a, 3): 1 + 0 + 0; row 1 to (0, a, 3): 0 + 1 + 0.
    assert dcr(synthetic).tolist() == pytest.approx([1 / 3, 1 / 3])


def test_out_of_range_and_in_range_records_are_searched_alike():
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.uniform(0, 1, 300), "c": rng.choice(list("abc"), 300)})
    synthetic = pd.DataFrame({"x": rng.uniform(-0.5, 1.5, 200), "c": rng.choice(list("abc"), 200)})
    enc = fit_reference([real, synthetic], real, ["x", "c"], [True, False])
    found = sdmetrics_dcr(enc.encode(synthetic), enc.encode(real), enc.kinds)
    lo, span = real.x.min(), real.x.max() - real.x.min()
    brute = [
        np.min((np.minimum(np.abs(real.x.to_numpy() - x) / span, 1.0) + (real.c.to_numpy() != c)) / 2)
        for x, c in zip(synthetic.x, synthetic.c, strict=False)
    ]
    assert lo >= 0 and found == pytest.approx(brute, abs=1e-12)


def test_score_is_the_median_ratio_capped_at_one():
    assert median_ratio(np.array([0.1, 0.2, 0.3]), np.array([0.4, 0.4, 0.5])) == pytest.approx(0.5)
    assert median_ratio(np.array([0.9]), np.array([0.4])) == 1.0
    assert np.isnan(median_ratio(np.array([0.1]), np.array([0.0])))


def test_random_records_follow_the_real_schema():
    real = pd.DataFrame({"i": [1, 5, 3], "f": [0.5, 2.5, np.nan], "s": ["u", "v", "u"]})
    random = uniform_random_records(real, 1000, np.random.default_rng(1), np.random.default_rng(2))
    assert random.i.between(1, 5).all() and set(random.i) == {1, 2, 3, 4, 5}
    assert random.f.dropna().between(0.5, 2.5).all() and 0.25 < random.f.isna().mean() < 0.42
    assert set(random.s) == {"u", "v"}
