"""Singling out on small hand-made data."""

import numpy as np
import pandas as pd

from policycheck.execution.executor import SerialExecutor
from policycheck.methods.wp29.predicates import EQ, GE, LE, Predicate, count_matches, fit_table
from policycheck.methods.wp29.singling_out import singling_out, singling_out_probability_integral

ORIGINAL = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0, 60.0], "city": ["a", "b", "c", "d", "e"]})


def run(original, synthetic, control, mode="univariate", n=10):
    return singling_out(
        original,
        synthetic,
        control,
        ["age", "city"],
        [True, False],
        mode,
        n,
        2,
        1000,
        np.random.default_rng(0),
        SerialExecutor(),
    )


def test_a_copied_release_singles_out_every_original_record_and_no_control_record():
    # Univariate predicates of a copy: age <= 20, age >= 60, the five ages and five cities seen once:
    # 12 predicates, each matching exactly one original record; the control shares none of the values.
    control = pd.DataFrame({"age": [21.0, 31.0, 41.0, 51.0, 61.0], "city": ["v", "w", "x", "y", "z"]})
    outcome = run(ORIGINAL, ORIGINAL.copy(), control, n=100)
    assert outcome.counts.n_attacks == 10 + 2  # fewer than requested: the rates divide by 12
    assert outcome.counts.n_success == 12
    # Control: of the 12 only 'age >= 60' matches one record (61).
    assert outcome.counts.n_control == 1.0


def test_predicates_compare_like_polars_missing_values_fail_every_comparison():
    frame = pd.DataFrame({"age": [20.0, np.nan, 40.0], "city": ["a", "b", None]})
    table = fit_table([frame], ["age", "city"], [True, False])
    data = table.encode(frame)
    city_a = table.levels["city"].index("a")
    predicates = [
        Predicate(((0, LE, 30.0),)),  # 20 only; the missing age fails
        Predicate(((0, GE, 0.0),)),  # 20 and 40
        Predicate(((1, EQ, float(city_a)),)),
        Predicate(((1, 1, float(city_a)),)),  # city != 'a': 'b' only, not the missing city
    ]
    assert count_matches(data, predicates, SerialExecutor(), limit=10).tolist() == [1, 2, 1, 1]
    assert table.describe(predicates[2]) == "city == 'a'"


def test_singling_out_probability_integral_over_all_weights_is_one_over_n_plus_one():
    # Cohen and Nissim 2020: the antiderivative of n w (1 - w)^(n - 1) is -(n w + 1)(1 - w)^n / (n + 1):
    # 1 / (n + 1) at w = 0 and 0 at w = 1, so the integral over [0, 1] is 1 / (n + 1).
    assert singling_out_probability_integral(9, 0.0, 1.0) == 0.1
