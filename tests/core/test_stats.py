import numpy as np
import pytest
from conftest import binomial_tail_by_hand

from policycheck.core import stats
from policycheck.core.stats import binomial_upper_tail, clopper_pearson, roc_auc, roc_curve


def test_clopper_pearson_matches_published_values():
    # 7 successes in 20 trials: exact 95% interval (0.1539, 0.5922).
    lo, hi = clopper_pearson(7, 20)
    assert (round(lo, 4), round(hi, 4)) == (0.1539, 0.5922)


def test_clopper_pearson_edges_are_zero_and_one():
    assert clopper_pearson(0, 10)[0] == 0.0
    assert clopper_pearson(10, 10)[1] == 1.0
    assert clopper_pearson(0, 0) == (0.0, 1.0)


def test_auc_counts_ties_as_half():
    assert roc_auc(np.array([1.0, 1.0]), np.array([1.0, 0.0])) == pytest.approx(0.75)


def test_roc_curve_runs_from_origin_to_one_one():
    fpr, tpr = roc_curve(np.array([0.9, 0.8]), np.array([0.1, 0.85]))
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0.0, 0.0, 1.0, 1.0)


def test_bonferroni_splits_the_error_among_the_alternatives():
    from policycheck.core.stats import bonferroni

    assert bonferroni(0.95, 1) == pytest.approx(0.95)
    assert bonferroni(0.95, 3) == pytest.approx(1 - 0.05 / 3)
    with pytest.raises(ValueError):
        bonferroni(0.95, 0)


def test_worst_interval_takes_the_extreme_of_each_end():
    from policycheck.core.stats import worst_interval

    intervals = [(0.1, 0.5), (0.2, 0.3), (0.0, 0.6)]
    assert worst_interval(intervals) == (0.2, 0.6)
    assert worst_interval(intervals, "min") == (0.0, 0.3)


def test_wilson_matches_newcombes_example():
    from policycheck.core.stats import wilson

    # Newcombe (1998a), 81/263: Wilson score interval 0.2553 to 0.3662.
    lo, hi = wilson(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)


def test_newcombe_difference_matches_the_published_example():
    from policycheck.core.stats import newcombe_difference

    # Newcombe (1998b), Table II example (a): 56/70 - 48/80, method 10: 0.0524 to 0.3339.
    lo, hi = newcombe_difference(56, 70, 48, 80)
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)


def test_ratio_score_interval_matches_koopmans_example():
    from policycheck.core.stats import ratio_score_interval

    # Koopman (1984): 36/40 against 16/80, ratio 4.5, 95 % score interval 2.94 to 7.15
    # (statsmodels' confint_proportions_2indep(method="score", compare="ratio",
    # correction=False) gives 2.93957 and 7.15222).
    lo, hi = ratio_score_interval(36, 40, 16, 80)
    assert lo == pytest.approx(2.93957, abs=1e-5) and hi == pytest.approx(7.15222, abs=1e-5)


def test_ratio_score_interval_is_open_where_a_count_is_zero():
    from policycheck.core.stats import ratio_score_interval

    lo, hi = ratio_score_interval(0, 100, 5, 100)
    # statsmodels gives (0, 0.75175) for this table.
    assert lo == 0.0 and hi == pytest.approx(0.751755, abs=1e-6)
    assert ratio_score_interval(5, 100, 0, 100)[1] == float("inf")


def test_paired_difference_joins_the_discordant_share_and_their_split():
    from policycheck.core.stats import clopper_pearson, paired_difference

    # 6 items counted by the first measure only, 2 by the second only, of 100: difference 0.04.
    # Each part at 97.5%: the discordant share 8/100 and the split 6/8 (McNemar's conditional).
    lo, hi = paired_difference(6, 2, 100)
    delta_lo, delta_hi = clopper_pearson(8, 100, 0.975)
    theta_lo, theta_hi = clopper_pearson(6, 8, 0.975)
    assert (lo, hi) == pytest.approx((delta_hi * (2 * theta_lo - 1), delta_hi * (2 * theta_hi - 1)))
    assert (round(lo, 4), round(hi, 4)) == (-0.0631, 0.1554)


def test_paired_difference_with_no_discordant_item_is_not_a_point():
    from policycheck.core.stats import paired_difference

    # None of 800 discordant: the Clopper-Pearson upper end of 0/800 at 97.5%, 1 - 0.0125 ** (1 / 800),
    # either way (a point at 0 would claim a rate below any threshold from 800 items).
    assert paired_difference(0, 0, 800) == pytest.approx((-0.0054626, 0.0054626), abs=1e-7)


def test_paired_difference_reaches_past_the_discordant_share_observed():
    from policycheck.core.stats import paired_difference

    # 2 of 800, both the first's: the upper end is that of 2/800 at 97.5%, beta(0.9875; 3, 798) = 0.010114,
    # past the 0.0025 observed; the lower, at the split's lower end sqrt(0.0125) = 0.1118, is 0.010114 * -0.7764.
    lo, hi = paired_difference(2, 0, 800)
    assert (round(lo, 6), round(hi, 6)) == (-0.007852, 0.010114)


def test_effective_trials_of_single_trial_clusters_is_their_number():
    from policycheck.core.stats import effective_trials

    hits = np.array([1, 0, 1, 1, 0, 1])
    assert effective_trials(hits, np.ones(6), np.arange(6)) == pytest.approx(6.0)


def test_effective_trials_of_identical_clustered_trials():
    from policycheck.core.stats import effective_trials

    # Two clusters of 5 trials each, all hits in one and none in the other: p = 1/2, the
    # cluster totals deviate by 5 * 1/2 each, variance 2 * 2.5^2 / 10^2 = 1/8, so the ten
    # trials are worth p (1 - p) / (1/8) = 2.
    hits = np.array([1] * 5 + [0] * 5)
    assert effective_trials(hits, np.ones(10), np.array([0] * 5 + [1] * 5)) == pytest.approx(2.0)
    # All hits in one cluster: one trial.
    assert effective_trials(np.ones(4), np.ones(4), np.zeros(4)) == 1.0


def test_effective_trials_are_the_same_whatever_numbers_name_the_clusters():
    from policycheck.core.stats import effective_trials

    # The two clusters of five above, named by record numbers with gaps between them (counted by bincount)
    # and by numbers far past the count (sorted by np.unique): 2 trials each time.
    hits, trials = np.array([1] * 5 + [0] * 5), np.ones(10)
    assert effective_trials(hits, trials, np.array([3] * 5 + [17] * 5)) == pytest.approx(2.0)
    assert effective_trials(hits, trials, np.array([10**9] * 5 + [7] * 5)) == pytest.approx(2.0)


def test_distinct_count_counts_each_label_once():
    from policycheck.core.stats import distinct_count

    assert distinct_count(np.array([5, 0, 5, 2])) == 3  # small record numbers: counted by bincount
    assert distinct_count(np.array([10**12, 3, 10**12])) == 2  # sorted by np.unique
    assert distinct_count(np.array([], dtype=np.int64)) == 0


def test_effective_trials_of_two_crossed_clusterings_take_the_two_way_variance():
    from policycheck.core.stats import effective_trials

    # Six records in a ring: linked pairs {0,1} {2,3} {4,5}, people {0,5} {1,2} {3,4}; hits 1,1,1,0,0,0, p = 1/2.
    # Linked totals 2, 1, 0 deviate by 1, 0, 1: V = 2/36; people's 1, 2, 0 likewise 2/36; the records alone
    # 6 * (1/2)^2 / 36 = 1.5/36. Cameron-Gelbach-Miller: 2/36 + 2/36 - 1.5/36 = 2.5/36, so 0.25 / (2.5/36)
    # = 3.6 trials, where either clustering alone gives 4.5.
    hits = np.array([1, 1, 1, 0, 0, 0])
    linked, people = np.array([0, 0, 1, 1, 2, 2]), np.array([0, 1, 1, 2, 2, 0])
    assert effective_trials(hits, np.ones(6), linked) == pytest.approx(4.5)
    assert effective_trials(hits, np.ones(6), linked, people) == pytest.approx(3.6)


def test_two_way_effective_trials_are_never_more_than_one_way():
    from policycheck.core.stats import effective_trials

    # Hits follow the linked pairs and split every person evenly: people alone would say 0 variance, the
    # two-way sum 2/16 + 0 - 1/16 = 1/16; the linked pairs' own 2/16 is kept: 2 trials, not 4.
    hits = np.array([1, 1, 0, 0])
    assert effective_trials(hits, np.ones(4), np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])) == pytest.approx(2.0)


def test_ratio_score_interval_takes_effective_counts():
    from policycheck.core.stats import ratio_score_interval

    # Koopman's table counted twice over (72/80 against 32/160), each pair of trials one cluster: as
    # effective counts 36/40 and 16/80 it is his interval, not that of the doubled table.
    assert ratio_score_interval(36.0, 40.0, 16.0, 80.0) == ratio_score_interval(36, 40, 16, 80)
    assert ratio_score_interval(72 / 2, 80 / 2, 32 / 2, 160 / 2)[0] == pytest.approx(2.93957, abs=1e-5)


def test_clopper_pearson_share_equals_the_exact_interval_at_whole_counts():
    from policycheck.core.stats import clopper_pearson, clopper_pearson_share

    assert clopper_pearson_share(7 / 20, 20) == pytest.approx(clopper_pearson(7, 20))
    assert clopper_pearson_share(1.0, 2.0)[1] == 1.0


#: Confidence levels the rules use: 95 % and its Bonferroni splits among 2 to 20 alternatives.
LEVELS = [0.95, 0.99, 0.9, *(1 - 0.05 / k for k in (2, 3, 4, 8, 20))]


def test_clopper_pearson_is_scipy_stats_beta_ppf_to_the_bit():
    from scipy import stats

    rng = np.random.default_rng(0)
    trials = [*range(1, 120), *rng.integers(120, 2_000_000, 40).tolist()]
    for confidence in LEVELS:
        alpha = 1 - confidence
        for n in trials:
            for k in range(n + 1) if n < 120 else rng.integers(0, n + 1, 20).tolist() + [0, 1, n - 1, n]:
                lo = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
                hi = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
                assert clopper_pearson(k, n, confidence) == (lo, hi)


def test_clopper_pearson_share_over_fractional_trials_is_scipy_stats_beta_ppf_to_the_bit():
    from scipy import stats

    from policycheck.core.stats import clopper_pearson_share

    rng = np.random.default_rng(1)
    alpha = 1 - 0.95
    for share, trials in zip(rng.uniform(0, 1, 2_000), rng.uniform(1, 1e6, 2_000), strict=True):
        x = share * trials
        expected = (
            float(stats.beta.ppf(alpha / 2, x, trials - x + 1)),
            float(stats.beta.ppf(1 - alpha / 2, x + 1, trials - x)),
        )
        assert clopper_pearson_share(float(share), float(trials)) == expected


def test_normal_quantile_is_scipy_stats_norm_ppf_to_the_bit():
    from scipy import stats

    from policycheck.core.stats import normal_quantile

    for q in [*np.random.default_rng(2).uniform(0.5, 1, 1_000), *(1 - (1 - c) / 2 for c in LEVELS)]:
        assert normal_quantile(float(q)) == float(stats.norm.ppf(q))


def test_the_exact_intervals_and_the_auc_load_without_scipy_stats():
    import subprocess
    import sys

    code = (
        "import sys; from policycheck.core.stats import clopper_pearson, clopper_pearson_share, roc_auc, wilson; "
        "clopper_pearson(7, 20); clopper_pearson_share(0.3, 10.5); wilson(3, 9); roc_auc([1.0, 2.0], [2.0, 0.5]); "
        "print('scipy.stats' in sys.modules, 'scipy.optimize' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_average_ranks_are_scipy_stats_rankdata_to_the_bit():
    from scipy import stats

    from policycheck.core.stats import average_ranks

    rng = np.random.default_rng(3)
    for size, levels in ((1, 1), (2, 1), (10, 3), (1_000, 20), (5_000, 5_000), (20_000, 7)):
        values = rng.integers(0, levels, size) / 600
        assert np.array_equal(average_ranks(values), stats.rankdata(values))
    assert average_ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [3.5, 1.0, 3.5, 2.0]


def test_bootstrap_difference_with_an_empty_control_is_the_statistics_interval_shifted():
    # No control indices are drawn, so the statistic sees the very resamples bootstrap_interval draws.
    values = np.array([0.0, 1.0, 1.0, 0.5, 0.25, 1.0, 0.0, 0.75])
    mean = lambda idx: float(values[idx].mean())  # noqa: E731
    lo, hi = stats.bootstrap_interval(mean, values.size, np.random.default_rng(3), 200, 0.9)
    assert stats.bootstrap_difference_interval(
        mean, values.size, lambda idx: 0.25, 0, np.random.default_rng(3), 200, 0.9
    ) == (lo - 0.25, hi - 0.25)


def test_bootstrap_difference_of_two_constant_samples_is_their_difference():
    ones, zeros = np.ones(5), np.zeros(7)
    interval = stats.bootstrap_difference_interval(
        lambda idx: float(ones[idx].mean()), 5, lambda idx: float(zeros[idx].mean()), 7, np.random.default_rng(0)
    )
    assert interval == (1.0, 1.0)


def test_the_binomial_upper_tail_of_ten_fair_coins_is_56_in_1024():
    # P(X >= 8) = (C(10,8) + C(10,9) + C(10,10)) / 2^10 = (45 + 10 + 1) / 1024
    assert binomial_upper_tail(8, 10, 0.5) == pytest.approx(56 / 1024, rel=1e-12)


@pytest.mark.parametrize(("k", "n", "p"), [(5, 1000, 0.0005), (50, 100, 0.005), (3, 100, 0.005)])
def test_the_binomial_upper_tail_is_the_sum_of_the_binomial_terms(k, n, p):
    assert binomial_upper_tail(k, n, p) == pytest.approx(binomial_tail_by_hand(k, n, p), rel=1e-9)


def test_at_least_none_is_certain_and_more_than_all_impossible():
    assert (binomial_upper_tail(0, 10, 0.1), binomial_upper_tail(11, 10, 0.1)) == (1.0, 0.0)


def test_stratified_effective_trials_by_hand():
    from policycheck.core.stats import stratified_effective_trials

    # Members (stratum 1): people {0,1} {2,3}; non-members (stratum 0): people {4,5} {6,7}. Guessed 0,1,2 and
    # 4,5; hits are the guessed members: p = 3/5. Residuals hit - 0.6 trial: 0.4 0.4 0.4 0 | -0.6 -0.6 0 0.
    # By record, centred on each stratum's mean (0.3, -0.3): 0.12 + 0.36 = 0.48. By person, totals 0.8 0.4 |
    # -1.2 0 centred on 0.6 and -0.6: 0.08 + 0.72 = 0.80. Design effect 0.80 / 0.48: 5 guesses worth 3.
    hits = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    guessed = np.array([1, 1, 1, 0, 1, 1, 0, 0])
    people = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    member = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    assert stratified_effective_trials(hits, guessed, people, member) == pytest.approx(3.0)
    # Every unit its own cluster: the trials themselves.
    assert stratified_effective_trials(hits, guessed, np.arange(8), member) == 5.0


def test_stratified_effective_trials_with_every_trial_a_hit_count_the_clusters_guessed():
    from policycheck.core.stats import stratified_effective_trials

    member = np.array([1, 1, 1, 1, 0, 0])
    guessed = np.array([1, 1, 1, 0, 0, 0])
    assert stratified_effective_trials(guessed * member, guessed, np.array([0, 0, 1, 1, 2, 2]), member) == 2.0
