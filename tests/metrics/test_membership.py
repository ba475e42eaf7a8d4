"""dcr_share, mi_risk and exact_copy_share on tiny hand-computed releases."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from policycheck.core.stats import clopper_pearson
from policycheck.execution.local import LocalProcessExecutor
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, EvaluationError, Need
from policycheck.release.model import ColumnType, Dataset, Release

TYPES = {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}
TRAINING = pd.DataFrame({"x": [0.0, 10.0], "c": ["a", "b"]})


def release(holdout: pd.DataFrame | None, *synthetic: pd.DataFrame, training: pd.DataFrame = TRAINING) -> Release:
    return Release(
        id="tiny",
        original=Dataset("original", "training", training),
        synthetic=tuple(Dataset("synthetic", f"synthetic[{i}]", s) for i, s in enumerate(synthetic)),
        holdout=None if holdout is None else Dataset("holdout", "holdout", holdout),
        column_types=TYPES,
    )


def evaluate(name: str, rel: Release, seed: int = 0, executor=None, **params):
    ctx = EvaluationContext(rel, AttackerView("no-box", (), ()), seed=seed)
    if executor is not None:
        ctx.executor = executor
    spec = registry.get_metric(name)
    p = spec.params(**params)
    needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(p, rel)}
    return spec.evaluate(ctx, p, needs)


# Range of x over every set is 10, p = 2. Synthetic -> training / holdout:
#   (0, a):  0 (copy of T0)       / (0.4 + 0) / 2 = 0.2    closer to training
#   (6, b):  (0.4 + 0) / 2 = 0.2  / (0.2 + 1) / 2 = 0.6    closer to training
#   (10, c): (0 + 1) / 2 = 0.5    / 0 (copy of H1)         closer to holdout
#   (2, a):  0.2 / 2 = 0.1        / 0.2 / 2 = 0.1          tie
HOLDOUT = pd.DataFrame({"x": [4.0, 10.0], "c": ["a", "c"]})
SYNTHETIC = pd.DataFrame({"x": [0.0, 6.0, 10.0, 2.0], "c": ["a", "b", "c", "a"]})


def test_dcr_share_counts_closer_records_among_the_untied_ones():
    result = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC))
    detail = result.details["per_set"][0]
    assert (detail["closer_to_training"], detail["ties"], detail["closer_to_holdout"]) == (2, 1, 1)
    assert result.value == pytest.approx(2 / 3)
    assert detail["strict_share"] == 0.5
    # The three untied records have three different nearest real records (T0, T1, H1), so three
    # clusters of one: Kish's variance ((1/3)^2 + (1/3)^2 + (2/3)^2) / 3^2 = 6/81 gives
    # p (1 - p) / variance = (2/9) / (6/81) = 3 effective records, the plain interval of 2 in 3.
    assert (detail["clusters"], detail["effective_records"]) == (3, pytest.approx(3.0))
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
    detail = result.details["per_set"][0]
    # 8 ties, 2 records (the copies of "t") closer to training: 2 of 2 untied, strict 2 of 10.
    assert (detail["ties"], detail["closer_to_training"], detail["closer_to_holdout"]) == (8, 2, 0)
    assert result.value == 1.0 and detail["strict_share"] == 0.2


def test_dcr_share_reports_exact_copies_and_quantiles():
    detail = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC)).details["per_set"][0]
    assert detail["exact_copies_of_training"] == 1
    assert detail["exact_copies_of_holdout"] == 1
    assert detail["dcr_to_training_quantiles"]["q1"] == pytest.approx(0.5)


def test_dcr_share_details_print_the_gower_convention_and_are_json():
    result = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC))
    assert "union" in result.details["gower"]["convention"]
    assert result.details["gower"]["numeric_ranges"] == {"x": [0.0, 10.0]}
    json.dumps(result.details)
    json.dumps(result.charts)


def test_dcr_share_chart_overlays_histograms_of_both_distances():
    (chart,) = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC)).charts
    assert chart["kind"] == "histogram"
    assert [sum(s["counts"]) for s in chart["series"]] == [4, 4]


def test_value_is_the_worst_synthetic_set():
    result = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC, TRAINING))
    assert result.value == 1.0
    assert [s["share"] for s in result.details["per_set"]] == pytest.approx([2 / 3, 1.0])
    assert result.details["worst_set"] == "synthetic[1]"


def test_the_worst_of_two_sets_has_its_interval_at_the_bonferroni_level():
    result = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC, TRAINING))
    # Each set at 1 - 0.05 / 2: set 0 has 2 of 3 untied records closer, set 1 (a copy) 2 of 2.
    level = 0.975
    assert result.details["bonferroni"]["level"] == pytest.approx(level)
    lo0, hi0 = clopper_pearson(2, 3, level)
    lo1, hi1 = clopper_pearson(2, 2, level)
    assert result.interval == pytest.approx((max(lo0, lo1), max(hi0, hi1)))
    # For 2 of 2 the exact lower end is (0.025 / 2) ** (1 / 2).
    assert lo1 == pytest.approx(0.0125**0.5)


def test_every_membership_rule_shares_one_need_per_synthetic_set():
    rel = release(HOLDOUT, SYNTHETIC, TRAINING)
    needs = set()
    for name in ("dcr_share", "mi_risk", "exact_copy_share"):
        spec = registry.get_metric(name)
        needs |= set(spec.needs(spec.params(), rel))
    assert needs == {Need.of("gower_dcr", synthetic=0), Need.of("gower_dcr", synthetic=1)}


def test_restricted_columns_are_part_of_the_need_in_release_order():
    spec = registry.get_metric("dcr_share")
    rel = release(HOLDOUT, SYNTHETIC)
    assert spec.needs(spec.params(columns=["c", "x"]), rel) == [Need.of("gower_dcr", synthetic=0, columns=("x", "c"))]


def test_unequal_training_and_holdout_use_a_seeded_equal_size_sample():
    training = pd.DataFrame({"x": [0.0, 10.0, 5.0], "c": ["a", "b", "b"]})
    rel = release(HOLDOUT, SYNTHETIC, training=training)
    ctx = EvaluationContext(rel, AttackerView("no-box", (), ()), seed=3)
    dcr = registry.compute_intermediate(ctx, Need.of("gower_dcr", synthetic=0))
    sample = dcr.share_subsample
    assert (sample["role"], sample["size"], sample["sample_size"]) == ("original", 3, 2)
    assert set(dcr.syn_to_training_index.tolist()) <= set(sample["rows"].tolist())
    assert dcr.training_to_syn.size == 3
    assert "seeded sample of 2 original records" in dcr.equal_size_note()


def test_missing_holdout_is_an_evaluation_error():
    with pytest.raises(EvaluationError, match="holdout"):
        evaluate("dcr_share", release(None, SYNTHETIC))


# Training -> synthetic: T0 (0, a) 0; T1 (10, b) 0.2 (to (6, b)).
# Holdout -> synthetic: H0 (4, a) 0.1 (to (2, a)); H1 (10, c) 0.
# Adversary set = all four. Sorted DCRs 0, 0, 0.1, 0.2: the 0.75 level gives
# threshold 0.1 (T0, H0, H1 guessed: precision 1/3), the 0.5 level 0 (T0, H1: 1/2).
def test_mi_risk_reports_unfloored_precisions_and_an_unclipped_risk():
    result = evaluate("mi_risk", release(HOLDOUT, SYNTHETIC), quantile_levels=[0.75, 0.5])
    detail = result.details["per_set"][0]
    assert [t["distance"] for t in detail["thresholds"]] == pytest.approx([0.1, 0.0])
    assert [t["precision"] for t in detail["thresholds"]] == pytest.approx([1 / 3, 1 / 2])
    assert detail["mean_precision"] == pytest.approx(5 / 12)
    # (5/12 - 1/2) * 2: worse than a blind guess, whose risk (the baseline) is 0.
    assert result.value == pytest.approx(-1 / 6)
    assert (result.baseline, result.sample_size) == (0.0, 4)
    # Pairs (member, non-member) won by the member: (0 vs 0.1) + half of (0 vs 0).
    assert detail["auc"] == pytest.approx(1.5 / 4)


# A copied training set: training DCRs are 0; H0 (5, c) 0.75 and H1 (3, d) 0.65.
def test_mi_risk_of_a_copied_training_set_is_one():
    holdout = pd.DataFrame({"x": [5.0, 3.0], "c": ["c", "d"]})
    result = evaluate("mi_risk", release(holdout, TRAINING))
    detail = result.details["per_set"][0]
    assert [t["precision"] for t in detail["thresholds"]] == [1.0] * 4
    assert [t["recall"] for t in detail["thresholds"]] == [1.0] * 4
    assert result.value == 1.0
    assert result.interval == (1.0, 1.0)
    assert detail["auc"] == 1.0


def test_ties_in_distance_go_to_the_smallest_index():
    holdout = pd.DataFrame({"x": [5.0, 3.0], "c": ["c", "d"]})
    ctx = EvaluationContext(release(holdout, TRAINING), AttackerView("no-box", (), ()), seed=0)
    dcr = registry.compute_intermediate(ctx, Need.of("gower_dcr", synthetic=0))
    # (5, c) is 0.75 from both (0, a) and (10, b).
    assert dcr.holdout_to_syn[0] == pytest.approx(0.75)
    assert dcr.holdout_to_syn_index[0] == 0


def test_mi_risk_roc_chart_runs_from_origin_to_one_one():
    (chart,) = evaluate("mi_risk", release(HOLDOUT, SYNTHETIC)).charts
    attack = chart["series"][0]
    assert (attack["x"][0], attack["y"][0], attack["x"][-1], attack["y"][-1]) == (0.0, 0.0, 1.0, 1.0)


def test_adversary_size_beyond_the_smaller_set_is_an_evaluation_error():
    with pytest.raises(EvaluationError, match="adversary_size"):
        evaluate("mi_risk", release(HOLDOUT, SYNTHETIC), adversary_size=3)


def test_quantile_levels_outside_the_unit_interval_are_rejected():
    with pytest.raises(ValidationError):
        registry.get_metric("mi_risk").params(quantile_levels=[0.5, 1.5])


def test_exact_copy_share_is_the_excess_over_copies_of_holdout():
    result = evaluate("exact_copy_share", release(HOLDOUT, SYNTHETIC))
    detail = result.details["per_set"][0]
    # (0, a) copies T0 and (10, c) copies H1: 1/4 each, excess 0.
    assert (result.raw, result.baseline, result.value) == (0.25, 0.25, 0.0)
    assert (detail["copies_of_training_only"], detail["copies_of_holdout_only"]) == (1, 1)
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


def test_copies_of_common_records_found_in_both_sets_are_not_counted():
    # Every synthetic record is the common (0, a), present in training and holdout alike.
    training = pd.DataFrame({"x": [0.0, 10.0], "c": ["a", "b"]})
    holdout = pd.DataFrame({"x": [0.0, 5.0], "c": ["a", "c"]})
    synthetic = pd.DataFrame({"x": [0.0] * 4, "c": ["a"] * 4})
    result = evaluate("exact_copy_share", release(holdout, synthetic, training=training))
    assert (result.raw, result.baseline, result.value) == (1.0, 1.0, 0.0)
    assert result.interval == (0.0, 0.0)


def test_same_seed_gives_the_same_numbers_and_pool_matches_serial():
    rng = np.random.default_rng(0)
    n = 300
    real = pd.DataFrame({"x": rng.normal(size=2 * n).round(1), "c": rng.choice(list("abcdef"), 2 * n)})
    syn = real.iloc[: n // 2].reset_index(drop=True)
    rel = release(real.iloc[n:].reset_index(drop=True), syn, training=real.iloc[:n].reset_index(drop=True))
    a = evaluate("mi_risk", rel, seed=9, adversary_size=100)
    with LocalProcessExecutor(2) as pool:
        b = evaluate("mi_risk", rel, seed=9, adversary_size=100, executor=pool)
    assert (a.value, a.interval, a.details) == (b.value, b.interval, b.details)


def test_synthetic_records_sharing_their_nearest_real_records_count_as_one():
    # Six copies of (1, a): nearest training (0, a) at 0.05, nearest holdout (4, a) at 0.15.
    # Six copies of (9, c): nearest holdout (10, c) at 0.05. Share 6/12, but only two
    # clusters, each decided at once by where two real people landed: 2 effective records
    # (Kish: p (1 - p) / ((3^2 + 3^2) / 12^2) = 2), so the interval is that of 1 in 2.
    synthetic = pd.DataFrame({"x": [1.0] * 6 + [9.0] * 6, "c": ["a"] * 6 + ["c"] * 6})
    result = evaluate("dcr_share", release(HOLDOUT, synthetic))
    detail = result.details["per_set"][0]
    assert (result.value, detail["clusters"], detail["effective_records"]) == (0.5, 2, pytest.approx(2.0))
    assert result.interval == pytest.approx(clopper_pearson(1, 2))
