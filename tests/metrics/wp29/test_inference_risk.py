"""inference_risk through the registry (its known answers, from anonymeter, are in cases/inference_risk.yaml)."""

import pytest

from policycheck.core.errors import EvaluationError
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext
from policycheck.release.model import Dataset, Release
from tests.metrics.wp29.releases import ORIGINAL, TYPES, evaluate


def test_inference_from_a_copy_beats_the_control():
    result = evaluate("inference_risk", ORIGINAL.copy(), n_attacks=200)
    per_set = result.details.per_set[0]
    assert per_set.main_successes == 200  # the copy holds each target's own record at distance 0
    assert per_set.secret == "income" and per_set.success_test == "guess == secret"
    assert result.interval[0] <= result.value <= result.interval[1]


def test_a_numeric_secret_is_guessed_within_the_tolerance():
    result = evaluate("inference_risk", ORIGINAL.copy(), secret="hours", n_attacks=50, tolerance=0.1)
    assert result.details.per_set[0].success_test == "|guess - secret| <= 0.1 * |secret|"


def test_inference_needs_a_secret():
    release = Release(
        "r", Dataset("original", "original", ORIGINAL), (Dataset("synthetic", "s", ORIGINAL),), None, TYPES
    )
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("age",), ()), seed=1)
    spec = registry.get_metric("inference_risk")
    with pytest.raises(EvaluationError, match="needs a secret"):
        spec.evaluate(ctx, spec.params(), {})


def test_a_rule_without_a_secret_is_refused_before_running(tmp_path, monkeypatch):
    from tests.metrics.wp29.releases import check_refusal

    monkeypatch.chdir(tmp_path)
    code, stderr, written = check_refusal(["age", "job"], "inference_risk")
    # At the rule's line, before anything is read or computed: no report folder.
    assert (code, written) == (2, False)
    assert stderr == "p.yaml:4:5: inference_risk needs a secret: give params.secret or the attacker's secrets\n"
