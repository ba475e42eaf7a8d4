"""The membership-inference test and the DCR share, on hand-computed inputs."""

from __future__ import annotations

import numpy as np
import pytest

from policycheck.methods.dcr_share import dcr_share_counts, equal_size_subsample
from policycheck.methods.membership_test import (
    guesses_at,
    membership_inference_test,
    membership_thresholds,
    mi_risk_score,
    sample_adversary_set,
)

MEMBERS = np.array([0.0, 0.0, 0.3])
NON_MEMBERS = np.array([0.1, 0.4, 0.5])


def test_thresholds_are_observed_distances_at_the_quantile_levels():
    # Sorted: 0, 0, 0.1, 0.3, 0.4, 0.5. F(0) = 2/6, F(0.1) = 3/6, F(0.5) = 1.
    d = np.concatenate([MEMBERS, NON_MEMBERS])
    assert membership_thresholds(d, [0.5, 1 / 3, 0.01, 1.0]).tolist() == [0.1, 0.0, 0.0, 0.5]


def test_a_record_at_the_threshold_is_guessed_a_member():
    guessed, hits = guesses_at(MEMBERS, NON_MEMBERS, np.array([0.0, 0.1]))
    assert guessed.tolist() == [2, 3]
    assert hits.tolist() == [2, 2]


@pytest.mark.parametrize("threads", [1, 2])
def test_precision_recall_risk_and_auc_match_hand_computation(threads):
    test = membership_inference_test(MEMBERS, NON_MEMBERS, [0.5, 1 / 3], np.random.default_rng(0), threads=threads)
    assert test.precision.tolist() == pytest.approx([2 / 3, 1.0])
    assert test.recall.tolist() == pytest.approx([2 / 3, 2 / 3])
    # (mean(2/3, 1) - 0.5) * 2 = 2/3.
    assert test.risk == pytest.approx(2 / 3)
    # Members beat non-members in 8 of 9 pairs (0.3 loses to 0.1 only).
    assert test.auc == pytest.approx(8 / 9)


def test_precisions_below_a_blind_guess_are_not_floored():
    # SURE floors each precision at 0.5 and would report (0.75 - 0.5) * 2 = 0.5.
    assert mi_risk_score(np.array([0.4, 1.0])) == pytest.approx(0.4)


def test_risk_is_not_clipped_when_the_attack_is_worse_than_guessing():
    # Mean precision 0.25: (0.25 - 0.5) * 2.
    assert mi_risk_score(np.array([0.2, 0.3])) == pytest.approx(-0.5)


def test_risk_has_expectation_zero_when_members_and_non_members_are_alike():
    # Four records with DCRs 0, 0, 1, 2; every way to call two of them members is equally
    # likely without leakage. Averaged over the 6 labelings the risk is exactly 0 (clipping at
    # 0, as before, gave a positive average).
    from itertools import combinations

    dcr = np.array([0.0, 0.0, 1.0, 2.0])
    risks = []
    for members in combinations(range(4), 2):
        rest = [i for i in range(4) if i not in members]
        test = membership_inference_test(
            dcr[list(members)], dcr[rest], [0.5, 0.25], np.random.default_rng(0), resamples=20
        )
        risks.append(test.risk)
    assert np.mean(risks) == pytest.approx(0.0, abs=1e-12)
    assert np.mean(np.maximum(risks, 0.0)) > 0.1


def test_precision_intervals_are_clopper_pearson():
    test = membership_inference_test(MEMBERS, NON_MEMBERS, [0.5], np.random.default_rng(0), confidence=0.9)
    lower, upper = test.precision_interval[0]
    # Exact bounds of 2 successes in 3 trials at 90 %: Beta quantiles.
    assert (lower, upper) == pytest.approx((0.1353, 0.9830), abs=1e-4)


def test_bootstrap_interval_of_a_perfect_attack_is_a_point():
    test = membership_inference_test(np.zeros(4), np.full(4, 0.5), [0.5, 0.25], np.random.default_rng(1))
    assert test.risk == 1.0
    assert test.risk_interval == (1.0, 1.0)


def test_same_seed_gives_the_same_interval():
    rng = np.random.default_rng(5)
    members, non_members = rng.random(200) * 0.9, rng.random(200)
    a = membership_inference_test(members, non_members, [0.5, 0.25], np.random.default_rng(11))
    b = membership_inference_test(members, non_members, [0.5, 0.25], np.random.default_rng(11))
    assert a.risk_interval == b.risk_interval


def test_two_threads_give_the_numbers_of_one():
    # 25,000 + 25,000 records: the bootstrap pipelines its resamples, and the attack runs beside it.
    rng = np.random.default_rng(6)
    members, non_members = rng.random(25_000).round(3) * 0.9, rng.random(25_000).round(3)
    one, two = (
        membership_inference_test(members, non_members, [0.1, 0.5], np.random.default_rng(2), resamples=20, threads=t)
        for t in (1, 2)
    )
    assert (one.risk, one.risk_interval, one.auc) == (two.risk, two.risk_interval, two.auc)
    assert one.thresholds.tolist() == two.thresholds.tolist() and one.guessed.tolist() == two.guessed.tolist()
    assert [r.tolist() for r in one.roc] == [r.tolist() for r in two.roc]


def test_adversary_set_is_balanced_and_without_repeats():
    members, non_members = sample_adversary_set(10, 7, 5, np.random.default_rng(2))
    assert len(set(members.tolist())) == 5 and members.max() < 10
    assert len(set(non_members.tolist())) == 5 and non_members.max() < 7


def test_a_whole_training_set_drawn_as_members_is_the_sorted_draw_and_leaves_the_generator_where_it_did():
    drawing = np.random.default_rng(8)
    expected_members = np.sort(drawing.choice(6, size=6, replace=False))
    expected_non_members = np.sort(drawing.choice(9, size=6, replace=False))
    rng = np.random.default_rng(8)
    members, non_members = sample_adversary_set(6, 9, 6, rng)
    assert members.tolist() == expected_members.tolist() == [0, 1, 2, 3, 4, 5]
    assert members.dtype == expected_members.dtype
    assert non_members.tolist() == expected_non_members.tolist()
    assert rng.bit_generator.state == drawing.bit_generator.state


def test_dcr_share_is_taken_among_untied_records():
    counts = dcr_share_counts(np.array([0.0, 0.1, 0.5, 0.2]), np.array([0.2, 0.1, 0.0, 0.3]))
    assert (counts.closer_to_training, counts.ties, counts.closer_to_holdout) == (2, 1, 1)
    # 2 of the 3 untied records are closer to training; the strict share counts the tie as
    # not closer (2/4, SDMetrics and SURE); splitting it gives (2 + 1/2) / 4.
    assert counts.share == pytest.approx(2 / 3)
    assert counts.strict_share == 0.5
    assert counts.half_ties_share == 0.625


def test_dcr_share_of_all_ties_is_the_no_leak_line():
    counts = dcr_share_counts(np.zeros(3), np.zeros(3))
    assert (counts.untied, counts.share) == (0, 0.5)


def test_equal_size_subsample_draws_from_the_larger_set():
    role, rows = equal_size_subsample(5, 3, np.random.default_rng(0))
    assert role == "original" and rows.size == 3 and len(set(rows.tolist())) == 3 and rows.max() < 5
    assert equal_size_subsample(4, 4, np.random.default_rng(0)) is None


def doubled_people_test(members, non_members, levels, resamples):
    """The test on every record doubled, each pair one person (members and non-members numbered apart)."""
    people = (np.repeat(np.arange(members.size), 2), np.repeat(members.size + np.arange(non_members.size), 2))
    return membership_inference_test(
        np.repeat(members, 2),
        np.repeat(non_members, 2),
        levels,
        np.random.default_rng(9),
        resamples=resamples,
        people=people,
    )


def test_resampling_people_of_two_equal_records_each_is_resampling_their_single_records():
    # Each person holds two records at the same DCR: drawing people draws both, so every resample is a
    # record resample of the one-record-per-person data with each record doubled, whose inverted-CDF
    # thresholds are the same, and the same draws give twice the counts and the same risk interval.
    import numpy as np

    from policycheck.methods.membership_bootstrap import bootstrap_counts
    from policycheck.methods.membership_test import membership_inference_test, person_bootstrap_counts

    rng = np.random.default_rng(4)
    members, non_members = rng.random(40) ** 2, rng.random(50)
    levels = [0.1, 0.25, 0.5]
    single = bootstrap_counts(members, non_members, levels, np.random.default_rng(9), 100)
    doubled = person_bootstrap_counts(
        np.repeat(members, 2),
        np.repeat(non_members, 2),
        levels,
        np.random.default_rng(9),
        100,
        (np.repeat(np.arange(40), 2), np.repeat(np.arange(50), 2)),
    )
    assert np.array_equal(doubled[0], 2 * single[0]) and np.array_equal(doubled[1], 2 * single[1])
    by_person = doubled_people_test(members, non_members, levels, resamples=100)
    by_record = membership_inference_test(members, non_members, levels, np.random.default_rng(9), resamples=100)
    assert by_person.risk_interval == by_record.risk_interval


def test_people_of_two_equal_records_each_give_the_single_records_precision_and_recall_intervals():
    # Both records of a person are guessed together and are members together: the precisions and recalls
    # are those of the one-record-per-person data, and so, at the effective count of people, are their
    # intervals (Clopper-Pearson on half the records).
    rng = np.random.default_rng(5)
    members, non_members = rng.random(40) ** 2, rng.random(50)
    levels = [0.1, 0.25, 0.5]
    by_person = doubled_people_test(members, non_members, levels, resamples=20)
    by_record = membership_inference_test(members, non_members, levels, np.random.default_rng(9), resamples=20)
    assert np.array_equal(by_person.precision, by_record.precision)
    for got, expected in zip(by_person.precision_interval, by_record.precision_interval, strict=True):
        assert got == pytest.approx(expected, rel=1e-9)
    for got, expected in zip(by_person.recall_interval, by_record.recall_interval, strict=True):
        assert got == pytest.approx(expected, rel=1e-9)


def test_one_record_per_person_gives_the_plain_clopper_pearson_intervals():
    test = membership_inference_test(
        MEMBERS, NON_MEMBERS, [0.5], np.random.default_rng(0), confidence=0.9, people=(np.arange(3), np.arange(3, 6))
    )
    # 2 successes in 3 trials at 90 %, as without people; recall 2 of 3 members.
    assert test.precision_interval[0] == pytest.approx((0.1353, 0.9830), abs=1e-4)
    assert test.recall_interval[0] == pytest.approx((0.1353, 0.9830), abs=1e-4)


def test_the_attack_read_off_one_sort_is_the_attack_of_five_sorts_and_scikit_learns_curve():
    from sklearn.metrics import roc_auc_score, roc_curve

    from policycheck.core import stats
    from policycheck.methods.membership_test import attack_in_sorted_order

    rng = np.random.default_rng(5)
    # Distances on a coarse grid, so runs of ties cross members and non-members.
    members, non_members = rng.integers(0, 40, 3_000) / 40, rng.integers(3, 45, 2_500) / 40
    levels = [0.01, 0.1, 1 / 3, 0.5, 0.9, 1.0]
    both = np.concatenate([members, non_members])
    order = np.argsort(both)
    thresholds, guessed, hits, (fpr, tpr), auc = attack_in_sorted_order(both[order], order < members.size, levels)
    assert thresholds.tolist() == membership_thresholds(both, levels).tolist()
    expected_guessed, expected_hits = guesses_at(members, non_members, thresholds)
    assert (guessed.tolist(), hits.tolist()) == (expected_guessed.tolist(), expected_hits.tolist())
    expected_fpr, expected_tpr = stats.roc_curve(-members, -non_members)
    assert (fpr.tolist(), tpr.tolist()) == (expected_fpr.tolist(), expected_tpr.tolist())
    assert auc == stats.roc_auc(-members, -non_members)  # the same float, not merely close
    labels = np.r_[np.ones(members.size), np.zeros(non_members.size)]
    sk_fpr, sk_tpr, _ = roc_curve(labels, -both, drop_intermediate=False)
    assert (fpr[:-1].tolist(), tpr[:-1].tolist()) == (sk_fpr.tolist(), sk_tpr.tolist())
    assert auc == pytest.approx(roc_auc_score(labels, -both), abs=1e-15)
