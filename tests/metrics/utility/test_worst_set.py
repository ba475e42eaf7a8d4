"""The marginal rules' number from every set: the worst set, and an interval only when triples are sampled."""

import pytest

from tests.metrics.utility.example import evaluate


@pytest.mark.parametrize("name", ["three_way_marginal_mre", "three_way_marginal_tvd"])
def test_the_value_is_the_worst_set_and_a_copy_scores_zero(name):
    result = evaluate(name, {})
    assert result.details.per_set["copy"] == 0.0
    assert result.details.worst_set == "indhist"
    assert result.value == result.details.per_set["indhist"] > 0


@pytest.mark.parametrize("name", ["three_way_marginal_mre", "three_way_marginal_tvd"])
def test_every_triple_measured_gives_an_exact_value_without_interval(name):
    result = evaluate(name, {})
    assert result.interval is None and result.confidence is None and result.details.bonferroni is None


def test_sampled_triples_give_a_bootstrap_interval_at_the_bonferroni_level_of_the_sets():
    result = evaluate("three_way_marginal_tvd", {"n_triples": 3})
    assert result.details.triples == 3 and result.sample_size == 3
    # Two sets: each interval at 1 - 0.05 / 2.
    assert result.details.bonferroni.alternatives == 2
    assert result.details.bonferroni.level == pytest.approx(0.975)
    assert result.confidence == 0.95
    assert result.interval[0] <= result.value <= result.interval[1]
