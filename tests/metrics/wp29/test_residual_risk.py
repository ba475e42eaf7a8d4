"""Each set's attack against its control, and the worst set (policycheck.metrics.wp29.residual_risk)."""

import pytest

from policycheck.methods.wp29.rates import success_rate
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext
from policycheck.release.model import Dataset, Release
from tests.metrics.wp29.releases import HOLDOUT, ORIGINAL, TYPES, evaluate, people


def test_without_holdout_the_value_is_the_main_rate_against_the_random_guess():
    result = evaluate("singling_out_risk", ORIGINAL.copy(), holdout=None, n_attacks=100, n_cols=2)
    row = result.details.per_set[0]
    assert result.value == pytest.approx(result.raw) and result.baseline == row.baseline_rate
    assert row.control_rate is None and result.details.risk_formula == "main attack success rate"
    assert any("no holdout" in note for note in result.notes)


def test_the_rates_are_wilson_estimates_at_the_bonferroni_level_of_the_sets():
    sets = (Dataset("synthetic", "copy", ORIGINAL.copy()), Dataset("synthetic", "other", people(9)))
    release = Release(
        "r", Dataset("original", "original", ORIGINAL), sets, Dataset("holdout", "holdout", HOLDOUT), TYPES
    )
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("age", "job", "city"), ("income",)), seed=7)
    spec = registry.get_metric("inference_risk")
    result = spec.evaluate(ctx, spec.params(n_attacks=100), {})
    assert result.confidence == pytest.approx(0.975)
    copy, other = result.details.per_set
    assert result.details.worst_set == "copy" and copy.risk >= other.risk
    assert copy.main_rate == pytest.approx(success_rate(100, copy.main_successes, 0.975).value)
    assert result.sample_size == copy.attacks
