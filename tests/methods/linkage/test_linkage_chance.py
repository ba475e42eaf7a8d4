"""Chance baselines of the linkage rules: hand-computed values and brute-force enumeration."""

from itertools import product

import numpy as np
import pytest

from policycheck.methods.linkage import chance
from policycheck.methods.linkage.chance import SecretMarginal

NAN = float("nan")


def test_sum_of_squared_shares_of_a_small_column():
    # Shares 1/2, 1/6, 1/3: 1/4 + 1/36 + 1/9 = 14/36.
    marginal = SecretMarginal.of(np.array([0.0, 0.0, 0.0, 1.0, 2.0, 2.0]))
    assert marginal.sum_of_squares == pytest.approx(14 / 36)


def test_one_linked_record_discloses_by_chance_with_the_sum_of_squared_shares():
    true = np.array([0.0, 0.0, 0.0, 1.0, 2.0, 2.0])
    marginal = SecretMarginal.of(true)
    per_record = chance.exact_by_set(marginal, true, np.ones((6, 1)))
    assert per_record[:, 0].tolist() == pytest.approx([1 / 2, 1 / 2, 1 / 2, 1 / 6, 1 / 3, 1 / 3])
    assert per_record.mean() == pytest.approx(14 / 36)


def test_a_linked_record_with_a_missing_secret_identifies_nothing():
    # Shares: 0 -> 1/2, 1 -> 1/4, missing 1/4. Two linked records, true value 0: disclosed when
    # the draws are (0, 0), (0, missing) or (missing, 0): 1/4 + 1/8 + 1/8 = 1/2.
    marginal = SecretMarginal.of(np.array([0.0, 0.0, NAN, 1.0]))
    assert marginal.missing == 0.25
    assert chance.exact_by_set(marginal, np.array([0.0]), np.array([[2]]))[0, 0] == pytest.approx(0.5)


def test_at_least_k_of_m_sets():
    p = np.array([[0.5, 0.5], [0.2, 1.0]])
    assert chance.at_least(p, 1).tolist() == pytest.approx([0.75, 1.0])
    assert chance.at_least(p, 2).tolist() == pytest.approx([0.25, 0.2])


def test_narrowing_by_chance_of_four_equally_common_values():
    # Values 10, 20, 30, 40 (range 30), two linked records, fraction 0.5: a range is narrow when
    # its two values are at most 15 apart. True 10: both draws in {10, 20}, one of them 10:
    # 1/4 - 1/16 = 3/16. True 20: windows {10, 20} and {20, 30} holding 20: 3/16 + 3/16 - 1/16.
    values = np.array([10.0, 20.0, 30.0, 40.0])
    marginal = SecretMarginal.of(values)
    per_record = chance.narrowed(marginal, values, np.full(4, 2), 0.5, 30.0)
    assert per_record.tolist() == pytest.approx([3 / 16, 5 / 16, 5 / 16, 3 / 16])


def test_misled_by_chance_is_every_draw_on_one_side():
    values = np.array([10.0, 20.0, 30.0, 40.0])
    marginal = SecretMarginal.of(values)
    # One draw, true 20: misled unless the draw is 20.
    assert chance.misled(marginal, np.array([20.0]), np.array([1]))[0] == pytest.approx(3 / 4)
    # Two draws, true 20: both 10 (1/16) or both above 20 (1/4).
    assert chance.misled(marginal, np.array([20.0]), np.array([2]))[0] == pytest.approx(5 / 16)


def _enumerate(shares: dict, missing: float, true: float, draws: int, fraction: float, span: float):
    """Brute force: every sequence of draws, with its probability and the outcomes it gives."""
    outcomes = {"narrowed": 0.0, "misled": 0.0, "holds": 0.0}
    support = [*shares, None]
    prob = {**shares, None: missing}
    for seq in product(support, repeat=draws):
        p = float(np.prod([prob[v] for v in seq]))
        found = [v for v in seq if v is not None]
        if not found:
            continue
        low, high = min(found), max(found)
        holds = low <= true <= high
        outcomes["holds"] += p * holds
        outcomes["misled"] += p * (not holds)
        narrow = span <= 0 or (high - low) / span <= fraction
        outcomes["narrowed"] += p * (holds and narrow)
    return outcomes


@pytest.mark.parametrize("seed", range(12))
def test_closed_forms_equal_enumeration_of_every_draw(seed):
    rng = np.random.default_rng(seed)
    support = np.unique(rng.integers(0, 12, size=int(rng.integers(1, 6))).astype(float))
    column = np.concatenate([rng.choice(support, size=20), [NAN] * int(rng.integers(0, 4))])
    marginal = SecretMarginal.of(column)
    shares = dict(zip(marginal.values.tolist(), marginal.share.tolist(), strict=False))
    fraction = float(rng.choice([0.1, 0.25, 0.5, 1.0]))
    span = float(support.max() - support.min())
    for draws in (1, 2, 3):
        expected = [_enumerate(shares, marginal.missing, true, draws, fraction, span) for true in marginal.values]
        for true, want in zip(marginal.values, expected, strict=False):
            # One record at a time: each record's window is summed directly.
            t, c = np.array([true]), np.array([draws])
            assert chance.narrowed(marginal, t, c, fraction, span)[0] == pytest.approx(want["narrowed"], abs=1e-12)
            assert chance.misled(marginal, t, c)[0] == pytest.approx(want["misled"], abs=1e-12)
            assert chance.holds_true(marginal, t, c)[0] == pytest.approx(want["holds"], abs=1e-12)
        # Many records with one candidate count: the prefix sums over all values are used.
        many = np.repeat(marginal.values, 6)
        got = chance.narrowed(marginal, many, np.full(many.size, draws), fraction, span)
        assert got == pytest.approx(np.repeat([w["narrowed"] for w in expected], 6), abs=1e-12)
