"""Each (set, attack) pair's individual part against the holdout control (policycheck.metrics.reconstruction.rows)."""

import numpy as np
import pytest

from policycheck.core.stats import clopper_pearson
from policycheck.methods.reconstruction.attacks import AttackOutcome
from policycheck.metrics.reconstruction.reconstruction_attacks import ReconstructionRun
from policycheck.metrics.reconstruction.rows import attack_row, individual_risk


def test_individual_risk_is_the_control_corrected_accuracy():
    # 90 of 100 right against 60 of 100 on the control: (0.9 - 0.6) / (1 - 0.6) = 0.75,
    # i.e. 1 - 0.10 / 0.40. Koopman's score interval of the error-rate ratio 10/100 over
    # 40/100 is (0.132428, 0.460232) (statsmodels' confint_proportions_2indep, method
    # "score", compare "ratio", correction False), so the risk lies in (0.539768, 0.867572).
    value, (lo, hi) = individual_risk(90, 100, 60, 100, 0.95)
    assert value == pytest.approx(0.75)
    assert (lo, hi) == pytest.approx((1 - 0.460232, 1 - 0.132428), abs=1e-6)


def test_individual_risk_interval_is_not_inflated_by_a_high_control_accuracy():
    # The case: 0.87 against a control of 0.85 on 1,000 records each. Joining
    # opposite ends of two Clopper-Pearson intervals gave (-0.240, 0.395); the ratio
    # of error rates 130/1000 over 150/1000 has the score interval (0.697152, 1.077061).
    value, (lo, hi) = individual_risk(870, 1000, 850, 1000, 0.95)
    assert value == pytest.approx(2 / 15)
    assert (lo, hi) == pytest.approx((1 - 1.077061, 1 - 0.697152), abs=1e-6)


def test_a_control_without_errors_leaves_no_individual_risk():
    assert individual_risk(100, 100, 100, 100, 0.95)[0] == 0.0
    # The attack errs on members where it never errs on the control: floored at -1.
    value, (lo, hi) = individual_risk(90, 100, 100, 100, 0.95)
    assert value == -1.0 and lo == -1.0 and hi < 0


def _run(records: str, hits: list[int], people: list[int] | None) -> ReconstructionRun:
    """A run of one attack on one set whose guesses are right where ``hits`` is 1 (secret classes 0 and 1)."""
    truth = np.zeros(len(hits), dtype=np.int64)
    guess = np.where(np.array(hits) == 1, 0, 1)
    outcome = AttackOutcome("ml", (0, 1), np.zeros((len(hits), 2)), guess)
    return ReconstructionRun(
        records,
        "s",
        ("a",),
        (0, 1),
        truth,
        ("syn",),
        ("ml",),
        {(0, "ml"): outcome},
        None if people is None else np.array(people),
    )


def test_a_persons_records_count_as_one_cluster_in_the_intervals():
    # Panel data: four people with two identical records each. Right on 3 of 4 people (6 of 8 records),
    # 2 of 4 on the control's people. Kish's variance by person, (3 (2 - 1.5)^2 + 1.5^2) / 8^2 = 3/64, makes
    # the 8 records worth 0.75 * 0.25 / (3/64) = 4 trials, the control's 0.25 / (4 / 64) = 4: the
    # intervals are those of the four people, not of the eight records.
    twice = [0, 0, 1, 1, 2, 2, 3, 3]
    run = _run("original", [1, 1, 1, 1, 1, 1, 0, 0], twice)
    control = _run("holdout", [1, 1, 1, 1, 0, 0, 0, 0], twice)
    row = attack_row(run, control, (0, "ml"), 0.95)
    assert row.accuracy == 0.75 and row.effective_records == pytest.approx(4.0)
    assert row.interval == pytest.approx(clopper_pearson(3, 4, 0.95))
    assert row.control_interval == pytest.approx(clopper_pearson(2, 4, 0.95))
    value, interval = individual_risk(3, 4, 2, 4, 0.95)
    assert row.individual_risk == pytest.approx(value) == 0.5
    assert row.individual_interval == pytest.approx(interval)


def test_records_without_a_person_key_are_independent_trials():
    row = attack_row(
        _run("original", [1, 1, 1, 1, 1, 1, 0, 0], None), _run("holdout", [1] * 4 + [0] * 4, None), (0, "ml"), 0.95
    )
    assert row.effective_records is None
    assert row.interval == clopper_pearson(6, 8, 0.95)
    assert row.individual_interval == individual_risk(6, 8, 4, 8, 0.95)[1]
