"""reconstruction_individual_risk through the registry (known answers: cases/reconstruction_individual_risk.yaml)."""

import pytest

from policycheck.core.errors import EvaluationError
from policycheck.methods.synthesizers import indhist, nonprivate
from tests.metrics.reconstruction.releases import evaluate, hand, synthesized


def test_the_worst_pair_is_reported_with_its_accuracy_as_raw_and_its_control_as_baseline():
    result = hand("reconstruction_individual_risk")
    # Set "copy": no error on the original, 3 of 6 on the holdout: 1 - 0 / 0.5 = 1.
    # Set "wrong": 4 of 6 errors against 2 of 6: 1 - 2 = -1.
    assert {r.set: r.individual_risk for r in result.details.attacks} == {"copy": 1.0, "wrong": -1.0}
    assert (result.details.worst.set, result.details.worst.attack) == ("copy", "exact")
    assert "holdout" in result.baseline_label
    assert result.details.control_records == 6


def test_independent_histograms_leave_no_individual_risk():
    result = evaluate(
        synthesized(indhist), "reconstruction_individual_risk", {"secret": "sex", "attacks": ["exact", "ml"]}
    )
    assert result.interval[0] <= 0.0 <= result.interval[1]
    assert abs(result.value) < 0.15


def test_individual_risk_without_a_holdout_is_an_error():
    with pytest.raises(EvaluationError, match="holdout"):
        evaluate(
            synthesized(nonprivate, holdout=False),
            "reconstruction_individual_risk",
            {"secret": "sex", "attacks": ["exact"]},
        )
