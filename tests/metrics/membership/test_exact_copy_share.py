"""exact_copy_share on tiny hand-computed releases (the distances are in tests/metrics/membership/tiny.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from policycheck.core.stats import clopper_pearson
from tests.metrics.membership.tiny import HOLDOUT, SYNTHETIC, evaluate, release


def test_exact_copy_share_is_the_excess_over_copies_of_holdout():
    result = evaluate("exact_copy_share", release(HOLDOUT, SYNTHETIC))
    detail = result.details.per_set[0]
    # (0, a) copies T0 and (10, c) copies H1: 1/4 each, excess 0.
    assert (result.raw, result.baseline, result.value) == (0.25, 0.25, 0.0)
    assert (detail.copies_of_training_only, detail.copies_of_holdout_only) == (1, 1)
    # The share of training-only among the 2 discordant records is 1/2; they copy different
    # people (T0 and H1), so they are 2 effective records; the difference is 2/4 * (2 share - 1).
    lo, hi = clopper_pearson(1, 2)
    assert result.interval == pytest.approx((0.5 * (2 * lo - 1), 0.5 * (2 * hi - 1)))


def test_exact_copy_share_without_baseline_is_the_raw_share():
    result = evaluate("exact_copy_share", release(HOLDOUT, SYNTHETIC), baseline="none")
    assert result.value == 0.25 and result.raw is None and result.baseline == 0.25
    # Clusters by nearest real record: T0 holds (0, a), a copy, and the tie (2, a); T1 holds
    # (6, b); H1 holds (10, c). Kish: p = 1/4, ((1 - 1/2)^2 + (1/4)^2 + (1/4)^2) / 4^2 = 3/128,
    # p (1 - p) / variance = 8, capped at the 4 records: the plain interval of 1 in 4.
    assert result.interval == pytest.approx(clopper_pearson(1, 4))
    assert result.details.baseline.mode == "none"


def test_copies_of_common_records_found_in_both_sets_are_not_counted():
    # Every synthetic record is the common (0, a), present in training and holdout alike.
    training = pd.DataFrame({"x": [0.0, 10.0], "c": ["a", "b"]})
    holdout = pd.DataFrame({"x": [0.0, 5.0], "c": ["a", "c"]})
    synthetic = pd.DataFrame({"x": [0.0] * 4, "c": ["a"] * 4})
    result = evaluate("exact_copy_share", release(holdout, synthetic, training=training))
    assert (result.raw, result.baseline, result.value) == (1.0, 1.0, 0.0)
    assert result.interval == (0.0, 0.0)
