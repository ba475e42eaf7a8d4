"""reconstruction_accuracy through the registry (its known answers are in cases/reconstruction_accuracy.yaml)."""

import numpy as np
import pytest

from policycheck.core.errors import EvaluationError
from policycheck.methods.synthesizers import nonprivate
from policycheck.release.model import Dataset, Release
from tests.metrics.reconstruction.releases import HAND_ORIGINAL, evaluate, hand, hand_release, synthesized


def test_the_baseline_is_the_larger_of_the_majority_guess_and_the_control():
    result = hand("reconstruction_accuracy")
    # Worst set "copy": majority guess 4/6, its attack on the holdout 3/6: the majority guess, not subtracted.
    assert result.baseline == pytest.approx(4 / 6) and result.raw is None
    assert "most common secret" in result.baseline_label
    baseline = result.details.baseline
    assert (baseline.majority, baseline.control) == (pytest.approx(4 / 6), 0.5)


def test_without_the_control_the_baseline_is_the_majority_guess_and_a_note_says_why():
    result = hand("reconstruction_accuracy", control=False)
    assert result.details.control is False and result.details.baseline.control is None
    assert all(r.control_accuracy is None for r in result.details.attacks)
    assert any("a holdout control separates them" in note for note in result.notes)


def test_records_with_a_missing_secret_are_left_out_and_counted():
    original = HAND_ORIGINAL.assign(s=["y", "y", None, "n", "y", "y"])
    result = hand("reconstruction_accuracy", hand_release(original=original))
    rows = {r.set: r for r in result.details.attacks}
    # Set "copy" (the full original, b -> n) still guesses the five known secrets right.
    assert (rows["copy"].correct, rows["copy"].records) == (5, 5)
    assert result.details.records_without_secret == 1
    assert result.sample_size == 5


def test_a_secret_missing_everywhere_is_a_clear_error():
    original = HAND_ORIGINAL.assign(s=None)
    with pytest.raises(EvaluationError, match="missing in every original record"):
        hand("reconstruction_accuracy", hand_release(original=original))


def test_a_quasi_identifier_listed_twice_counts_once():
    result = evaluate(
        synthesized(nonprivate),
        "reconstruction_accuracy",
        {"secret": "sex", "attacks": ["lp"], "quasi_identifiers": ["job", "age", "job"]},
    )
    assert result.details.quasi_identifiers == ["job", "age"]
    (row,) = result.details.attacks
    assert row.lp is not None and row.lp.solves[0].status == "Optimal"


def test_missing_quasi_identifiers_are_a_category_of_the_queries():
    release = synthesized(nonprivate)
    original = release.original.frame.copy()
    original.loc[::7, "job"] = None
    original.loc[::5, "age"] = np.nan
    synthetic = original.sample(2000, replace=True, random_state=0).reset_index(drop=True)
    release = Release(
        "r",
        Dataset("original", "original", original),
        (Dataset("synthetic", "synthetic[1]", synthetic),),
        release.holdout,
        release.column_types,
    )
    result = evaluate(release, "reconstruction_accuracy", {"secret": "sex", "attacks": ["lp", "ml", "dcr", "exact"]})
    assert {r.attack for r in result.details.attacks} == {"lp", "ml", "dcr", "exact"}
    assert result.details.records_without_secret == 0


def test_a_secret_the_policy_does_not_declare_is_refused():
    with pytest.raises(EvaluationError, match="declared secrets"):
        evaluate(synthesized(nonprivate), "reconstruction_accuracy", {"secret": "pet", "attacks": ["exact"]})
