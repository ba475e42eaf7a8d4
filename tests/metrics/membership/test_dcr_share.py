"""dcr_share on tiny hand-computed releases (the distances are in tests/metrics/membership/tiny.py)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from policycheck.core.stats import clopper_pearson
from policycheck.metrics.membership.dcr_share import DcrShareDetails
from tests.metrics.membership.tiny import HOLDOUT, SYNTHETIC, TRAINING, evaluate, release


def test_dcr_share_counts_closer_records_among_the_untied_ones():
    result = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC))
    detail = result.details.per_set[0]
    assert (detail.closer_to_training, detail.ties, detail.closer_to_holdout) == (2, 1, 1)
    assert result.value == pytest.approx(2 / 3)
    assert detail.strict_share == 0.5
    # The three untied records have three different nearest real records (T0, T1, H1), so three
    # clusters of one: Kish's variance ((1/3)^2 + (1/3)^2 + (2/3)^2) / 3^2 = 6/81 gives
    # p (1 - p) / variance = (2/9) / (6/81) = 3 effective records, the plain interval of 2 in 3.
    assert (detail.clusters, detail.effective_records) == (3, pytest.approx(3.0))
    assert result.interval == pytest.approx(clopper_pearson(2, 3))
    assert (result.baseline, result.sample_size) == (0.5, 3)


def test_ties_do_not_dilute_copied_records():
    # Coarse data: one categorical column, 10 training and 10 holdout records with the same two
    # categories; a safe release ties everywhere. Copying rows adds records closer to training
    # only when the copied category is absent from the holdout.
    training = pd.DataFrame({"x": [0.0] * 10, "c": ["a"] * 5 + ["b"] * 4 + ["t"]})
    holdout = pd.DataFrame({"x": [0.0] * 10, "c": ["a"] * 5 + ["b"] * 4 + ["h"]})
    synthetic = pd.DataFrame({"x": [0.0] * 10, "c": ["a"] * 4 + ["b"] * 4 + ["t", "t"]})
    result = evaluate("dcr_share", release(holdout, synthetic, training=training))
    detail = result.details.per_set[0]
    # 8 ties, 2 records (the copies of "t") closer to training: 2 of 2 untied, strict 2 of 10.
    assert (detail.ties, detail.closer_to_training, detail.closer_to_holdout) == (8, 2, 0)
    assert result.value == 1.0 and detail.strict_share == 0.2


def test_dcr_share_reports_exact_copies_and_quantiles():
    detail = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC)).details.per_set[0]
    assert detail.exact_copies_of_training == 1
    assert detail.exact_copies_of_holdout == 1
    assert detail.dcr_to_training_quantiles["q1"] == pytest.approx(0.5)


def test_dcr_share_details_print_the_gower_convention_and_are_json():
    result = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC))
    assert "union" in result.details.gower["convention"]
    assert result.details.gower["numeric_ranges"] == {"x": [0.0, 10.0]}
    json.dumps(result.details.to_report(), allow_nan=False)
    json.dumps(result.charts)


def test_dcr_share_details_keep_the_report_keys_and_label_them():
    details = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC)).details
    assert isinstance(details, DcrShareDetails)
    assert list(details.to_report()) == [
        "ideal",
        "ties",
        "interval_method",
        "worst_set",
        "per_set",
        "bonferroni",
        "gower",
    ]
    assert DcrShareDetails.field_labels()["worst_set"]["label"] == "Worst synthetic set"


def test_dcr_share_chart_overlays_histograms_of_both_distances():
    (chart,) = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC)).charts
    assert chart["kind"] == "histogram"
    assert [sum(s["counts"]) for s in chart["series"]] == [4, 4]


def test_value_is_the_worst_synthetic_set():
    result = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC, TRAINING))
    assert result.value == 1.0
    assert [s.share for s in result.details.per_set] == pytest.approx([2 / 3, 1.0])
    assert result.details.worst_set == "synthetic[1]"


def test_the_worst_of_two_sets_has_its_interval_at_the_bonferroni_level():
    result = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC, TRAINING))
    # Each set at 1 - 0.05 / 2: set 0 has 2 of 3 untied records closer, set 1 (a copy) 2 of 2.
    level = 0.975
    assert result.details.bonferroni.level == pytest.approx(level)
    lo0, hi0 = clopper_pearson(2, 3, level)
    lo1, hi1 = clopper_pearson(2, 2, level)
    assert result.interval == pytest.approx((max(lo0, lo1), max(hi0, hi1)))
    # For 2 of 2 the exact lower end is (0.025 / 2) ** (1 / 2).
    assert lo1 == pytest.approx(0.0125**0.5)


def test_synthetic_records_sharing_their_nearest_real_records_count_as_one():
    # Six copies of (1, a): nearest training (0, a) at 0.05, nearest holdout (4, a) at 0.15.
    # Six copies of (9, c): nearest holdout (10, c) at 0.05. Share 6/12, but only two
    # clusters, each decided at once by where two real people landed: 2 effective records
    # (Kish: p (1 - p) / ((3^2 + 3^2) / 12^2) = 2), so the interval is that of 1 in 2.
    synthetic = pd.DataFrame({"x": [1.0] * 6 + [9.0] * 6, "c": ["a"] * 6 + ["c"] * 6})
    result = evaluate("dcr_share", release(HOLDOUT, synthetic))
    detail = result.details.per_set[0]
    assert (result.value, detail.clusters, detail.effective_records) == (0.5, 2, pytest.approx(2.0))
    assert result.interval == pytest.approx(clopper_pearson(1, 2))
