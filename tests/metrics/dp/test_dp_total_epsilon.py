"""dp_total_epsilon: this release's declared budgets and the ledger's, composed."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from policycheck.core.errors import EvaluationError
from policycheck.methods.dp.composition import compose
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView
from policycheck.release.claims import Claim
from policycheck.release.mechanism import Mechanism
from policycheck.release.model import SynthesizerInfo
from tests.metrics.dp.releases import evaluate, release

OLD_LAPLACE = "ledger_version: 1\nreleases:\n  - id: old\n    mechanisms:\n      - {mechanism: laplace, epsilon: 0.2}\n"


def test_total_epsilon_composes_sets_and_ledger(tmp_path):
    (tmp_path / "l.yaml").write_text(OLD_LAPLACE)
    gaussian = {"mechanism": "gaussian", "rho": 0.05}
    rel = release(SynthesizerInfo("mst", epsilon=0.5), SynthesizerInfo("aim", params=gaussian))
    result = evaluate("dp_total_epsilon", rel, base_dir=tmp_path, delta=1e-6, ledger="l.yaml")
    expected = compose(
        [Mechanism(epsilon=0.5), Mechanism(**gaussian), Mechanism(mechanism="laplace", epsilon=0.2)],
        1e-6,
    )
    assert result.value == pytest.approx(expected.best[1])
    assert [c.set for c in result.details.contributions] == ["synthetic[0]", "synthetic[1]", "old[1]"]
    assert result.details.contributions[2].source == "ledger"


def test_the_chart_shows_each_sets_own_budget_beside_the_total():
    rel = release(SynthesizerInfo("a", epsilon=0.5), SynthesizerInfo("b", epsilon=0.25))
    each, total = evaluate("dp_total_epsilon", rel, delta=0.0, accountant="basic").charts[0]["series"]
    assert (each["x"], each["y"]) == (["synthetic[0]", "synthetic[1]"], [0.5, 0.25])
    assert (total["name"], total["y"]) == ("total (basic)", [0.75])


def test_ledger_entry_of_this_release_is_not_counted_twice(tmp_path):
    (tmp_path / "l.yaml").write_text(
        "ledger_version: 1\nreleases:\n  - id: adult-2026\n    mechanisms:\n      - {epsilon: 0.5}\n"
    )
    result = evaluate(
        "dp_total_epsilon",
        release(SynthesizerInfo("a", epsilon=0.5)),
        base_dir=tmp_path,
        delta=0.0,
        accountant="basic",
        ledger="l.yaml",
    )
    assert result.value == pytest.approx(0.5)
    assert "counted once" in result.notes[0]


def test_a_set_without_a_dp_claim_is_named_where_the_total_turns_infinite():
    result = evaluate(
        "dp_total_epsilon", release(SynthesizerInfo("a", epsilon=0.5), SynthesizerInfo("nonprivate")), delta=1e-6
    )
    assert math.isinf(result.value)
    assert result.notes[0] == "Not differentially private (no epsilon declared): synthetic[1]; the total is infinite."


def _accountant_problems(rel, **params):
    spec = registry.get_metric("dp_total_epsilon")
    return spec.check(spec.params(**params), rel, AttackerView("no-box", (), ()))


def test_renyi_accountant_for_an_epsilon_delta_only_set_is_refused_before_running():
    # Found by the policy fuzz suite: accountant rdp on a set declaring (epsilon, delta) ended in exit 3.
    rel = release(SynthesizerInfo("a", epsilon=1.0, delta=1e-6))
    assert _accountant_problems(rel, delta=1e-5, accountant="rdp") == [
        (
            ("accountant",),
            "accountant 'rdp' cannot account for this release's declared mechanisms: an (epsilon, "
            "delta)-only mechanism has no Renyi curve; use one of 'best', 'basic', 'advanced', 'pld'",
        )
    ]
    assert _accountant_problems(rel, delta=1e-5, accountant="pld") == []


def test_pld_accountant_for_a_zcdp_set_is_refused_and_rdp_needs_a_positive_delta():
    rel = release(SynthesizerInfo("a", params={"mechanism": "zcdp", "rho": 0.1}))
    assert "no privacy loss distribution" in _accountant_problems(rel, delta=1e-5, accountant="pld")[0][1]
    assert "needs a positive target delta" in _accountant_problems(rel, delta=0.0, accountant="rdp")[0][1]
    assert _accountant_problems(rel, delta=1e-5, accountant="rdp") == []


def test_missing_ledger_is_an_evaluation_error_naming_the_file(tmp_path):
    with pytest.raises(EvaluationError, match=r"ledger .*gone\.yaml: file not found"):
        evaluate(
            "dp_total_epsilon",
            release(SynthesizerInfo("a", epsilon=0.5)),
            base_dir=tmp_path,
            delta=1e-6,
            ledger="gone.yaml",
        )


def test_invalid_declared_mechanism_names_the_set():
    rel = release(SynthesizerInfo("aim", params={"mechanism": "gaussian"}))
    with pytest.raises(EvaluationError, match="synthetic set 'synthetic\\[0\\]' declares an invalid DP mechanism"):
        evaluate("dp_total_epsilon", rel, delta=1e-6)


def test_example_ledger_is_counted_by_the_budget_rule():
    policies = Path(__file__).resolve().parents[3] / "policies"
    result = evaluate(
        "dp_total_epsilon",
        release(SynthesizerInfo("a", epsilon=0.3)),
        base_dir=policies,
        delta=1e-6,
        ledger="ledgers/adult.ledger.yaml",
    )
    assert result.details.sets_counted == 4
    assert 0.3 < result.value < 2.0


def test_total_epsilon_relies_on_every_claim_it_sums(tmp_path):
    (tmp_path / "l.yaml").write_text(OLD_LAPLACE)
    rel = release(SynthesizerInfo("mst", epsilon=0.5), SynthesizerInfo("nonprivate"), SynthesizerInfo("b", epsilon=1.0))
    result = evaluate("dp_total_epsilon", rel, base_dir=tmp_path, delta=1e-6, ledger="l.yaml")
    # The set without a claim makes the total infinite; it relies on no claim.
    assert result.relies_on == (Claim.of_synthetic_set(0), Claim.of_synthetic_set(2), Claim.of_ledger("old", 1))
