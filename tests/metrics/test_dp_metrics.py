"""DP family metrics through the registry: budgets, transition-matrix audits, measured excess over claims."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from policycheck.methods.dp.composition import compose
from policycheck.methods.reconstruction.game import AttributeInferenceGame
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, EvaluationError
from policycheck.metrics.reconstruction import game_need
from policycheck.release.claims import Claim
from policycheck.release.mechanism import Mechanism
from policycheck.release.model import ColumnType, Dataset, Release, SynthesizerInfo

TYPES = {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}
TRAINING = pd.DataFrame({"x": np.arange(200, dtype=float), "c": ["a"] * 200})
# Never a copy of a training record: every holdout record is 0.5 away in x.
HOLDOUT = pd.DataFrame({"x": np.arange(200, dtype=float) + 0.5, "c": ["a"] * 200})


def release(*infos: SynthesizerInfo | None, synthetic: pd.DataFrame = TRAINING, rid: str = "adult-2026") -> Release:
    return Release(
        id=rid,
        original=Dataset("original", "training", TRAINING),
        synthetic=tuple(Dataset("synthetic", f"synthetic[{i}]", synthetic, synthesizer=s) for i, s in enumerate(infos)),
        holdout=Dataset("holdout", "holdout", HOLDOUT),
        column_types=TYPES,
    )


def evaluate(name: str, rel: Release, base_dir: Path | None = None, needs=None, **params):
    ctx = EvaluationContext(rel, AttackerView("maximum-knowledge", (), ()), seed=7)
    if base_dir is not None:
        ctx.base_dir = base_dir
    spec = registry.get_metric(name)
    p = spec.params(**params)
    if needs is None:
        needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(p, rel)}
    result = spec.evaluate(ctx, p, needs)
    json.dumps(result.details, allow_nan=False)
    json.dumps(result.charts, allow_nan=False)
    return result


# ---------------------------------------------------------------- transition-matrix audit


def test_transition_delta_of_figure_1_is_0_0006():
    result = evaluate(
        "dp_transition_delta", release(None), family="multinomial_dirichlet", n=5, alpha=0.5, target_epsilon=2
    )
    assert round(result.value, 4) == 0.0006
    assert result.details["offending_cells"] == 8


def test_transition_heatmap_is_figure_2_with_the_eight_cells_marked():
    result = evaluate(
        "dp_transition_delta", release(None), family="multinomial_dirichlet", n=5, alpha=[0.5, 0.5], target_epsilon=2
    )
    chart = result.charts[0]
    assert chart["kind"] == "heatmap"
    assert chart["row_labels"][0] == "(0, 5) vs (1, 4)"
    assert round(chart["values"][0][5], 6) == 5.493061
    assert sorted(map(tuple, chart["marked"])) == [(0, 3), (0, 4), (0, 5), (1, 5), (3, 0), (4, 0), (4, 1), (4, 2)]


def test_transition_epsilon_of_the_laplace_sanitizer_is_2():
    result = evaluate("dp_transition_epsilon", release(None), family="laplace", n=5, epsilon=2)
    assert result.value == pytest.approx(2.0, abs=1e-12)
    assert result.details["worst"]["n1"] == "(0, 5)"


def test_transition_epsilon_from_a_matrix_file_relative_to_the_policy(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "rr.csv").write_text("n,yes,no\n1 0,0.75,0.25\n0 1,0.25,0.75\n")
    result = evaluate("dp_transition_epsilon", release(None), base_dir=tmp_path, family="matrix", matrix="m/rr.csv")
    assert result.value == pytest.approx(math.log(3))


def test_transition_matrix_file_missing_is_an_evaluation_error(tmp_path):
    with pytest.raises(EvaluationError, match="does not exist"):
        evaluate("dp_transition_epsilon", release(None), base_dir=tmp_path, family="matrix", matrix="nope.csv")


def test_transition_space_too_large_is_refused_clearly():
    with pytest.raises(EvaluationError, match="exact-audit limit"):
        evaluate("dp_transition_epsilon", release(None), family="multinomial_dirichlet", n=60, alpha=1, k=6)


def test_transition_family_needs_its_params():
    with pytest.raises(ValidationError, match="needs param alpha"):
        registry.get_metric("dp_transition_epsilon").params(family="multinomial_dirichlet", n=5)
    with pytest.raises(ValidationError, match="exactly one of epsilon or scale"):
        registry.get_metric("dp_transition_epsilon").params(family="laplace", n=5)


# ---------------------------------------------------------------- declared budgets


def test_total_epsilon_composes_sets_and_ledger(tmp_path):
    (tmp_path / "l.yaml").write_text(
        "ledger_version: 1\nreleases:\n  - id: old\n    mechanisms:\n      - {mechanism: laplace, epsilon: 0.2}\n"
    )
    gaussian = {"mechanism": "gaussian", "rho": 0.05}
    rel = release(SynthesizerInfo("mst", epsilon=0.5), SynthesizerInfo("aim", params=gaussian))
    result = evaluate("dp_total_epsilon", rel, base_dir=tmp_path, delta=1e-6, ledger="l.yaml")
    expected = compose(
        [Mechanism(epsilon=0.5), Mechanism(**gaussian), Mechanism(mechanism="laplace", epsilon=0.2)],
        1e-6,
    )
    assert result.value == pytest.approx(expected.best[1])
    assert [c["set"] for c in result.details["contributions"]] == ["synthetic[0]", "synthetic[1]", "old[1]"]
    assert result.details["contributions"][2]["source"] == "ledger"


def test_total_epsilon_basic_accountant_sums_pure_budgets():
    rel = release(SynthesizerInfo("a", epsilon=0.5), SynthesizerInfo("b", epsilon=0.25))
    result = evaluate("dp_total_epsilon", rel, delta=0.0, accountant="basic")
    assert result.value == pytest.approx(0.75)
    assert result.charts[0]["series"][0]["y"] == [0.5, 0.25]


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


def test_set_without_a_dp_claim_makes_the_total_infinite():
    result = evaluate(
        "dp_total_epsilon", release(SynthesizerInfo("a", epsilon=0.5), SynthesizerInfo("nonprivate")), delta=1e-6
    )
    assert math.isinf(result.value)
    assert result.details["total_epsilon"] is None and result.details["infinite"]
    assert "synthetic[1]" in result.notes[0]


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
    policies = Path(__file__).resolve().parents[2] / "policies"
    result = evaluate(
        "dp_total_epsilon",
        release(SynthesizerInfo("a", epsilon=0.3)),
        base_dir=policies,
        delta=1e-6,
        ledger="ledgers/adult.ledger.yaml",
    )
    assert result.details["sets_counted"] == 4
    assert 0.3 < result.value < 2.0


# ---------------------------------------------------------------- measured lower bounds


def test_copied_training_data_contradicts_a_claim_of_epsilon_1():
    # Synthetic = the training data: every member at distance 0, no non-member.
    # The evaluation half has 100 + 100 records: TPR_lower = 0.025^(1/100) = FPR_upper complement.
    result = evaluate("dp_epsilon_excess_membership", release(SynthesizerInfo("copy")), claimed_epsilon=1.0)
    lower = 0.025 ** (1 / 100)
    measured = math.log(lower / (1 - lower))
    assert result.details["claims"][0]["measured_epsilon_lower"] == pytest.approx(measured, rel=1e-9)
    assert result.value == pytest.approx(measured - 1.0, rel=1e-9)
    assert result.details["claims"][0]["contradicted"]


def test_manifest_claim_wins_over_the_param_and_value_is_the_worst_set():
    rel = release(SynthesizerInfo("a", epsilon=5.0), SynthesizerInfo("b"))
    result = evaluate("dp_epsilon_excess_membership", rel, claimed_epsilon=2.0)
    first, second = result.details["claims"]
    assert first["claimed_epsilon"] == 5.0 and first["excess"] == 0.0
    assert second["claimed_epsilon"] == 2.0
    assert result.value == second["excess"] > 0
    chart = result.charts[0]
    assert chart["series"][0]["y"] == [5.0, 2.0]


def test_membership_excess_without_any_claim_asks_for_claimed_epsilon():
    with pytest.raises(EvaluationError, match="declares no epsilon to test; give param claimed_epsilon"):
        evaluate("dp_epsilon_excess_membership", release(SynthesizerInfo("x")))


def test_attribute_game_guesses_bound_epsilon_against_the_claim():
    rel = release(SynthesizerInfo("x"))
    spec = registry.get_metric("dp_epsilon_excess_attribute")
    params = spec.params(secret="c", synthesizer="nonprivate", claimed_epsilon=0.5)
    truth = np.array([0, 1] * 25)
    game = AttributeInferenceGame(truth, truth.copy(), truth.astype(float), {"attack": "lp"})
    result = evaluate(
        "dp_epsilon_excess_attribute",
        rel,
        needs={game_need(params): game},
        secret="c",
        synthesizer="nonprivate",
        claimed_epsilon=0.5,
    )
    lower = 0.05 ** (1 / 50)  # 50 of 50 correct, one-sided 95%
    assert result.value == pytest.approx(math.log(lower / (1 - lower)) - 0.5, rel=1e-9)
    assert result.details["claims"][0]["set"] == "synthesizer 'nonprivate'"


def test_large_audit_heatmap_shows_the_pairs_with_the_largest_ratios():
    result = evaluate(
        "dp_transition_delta", release(None), family="multinomial_dirichlet", n=10, k=3, alpha=1, target_epsilon=3
    )
    chart = result.charts[0]
    assert len(chart["row_labels"]) == 40 and len(chart["col_labels"]) == 40
    assert "largest shown" in chart["title"]
    shown = max(v for row in chart["values"] for v in row if v is not None)
    assert shown == pytest.approx(result.details["epsilon"])
    assert chart["marked"] and all(chart["values"][r][c] > 3 for r, c in chart["marked"])


def test_suppressing_matrix_reports_infinite_epsilon_json_safely(tmp_path):
    (tmp_path / "s.csv").write_text("n,a,b\n1 0,1.0,0.0\n0 1,0.5,0.5\n")
    result = evaluate("dp_transition_epsilon", release(None), base_dir=tmp_path, family="matrix", matrix="s.csv")
    assert math.isinf(result.value)
    assert result.details["epsilon"] is None and result.details["infinite"]
    assert result.charts[0]["values"][0][1] is None and result.charts[0]["marked"] == [[0, 1]]


# ---------------------------------------------------------------- refuted and relied-on claims


def test_membership_excess_refutes_only_the_sets_whose_claim_it_contradicts():
    # A copy of the training data proves epsilon >= 3.28 (see above): a claim of 5 stands, one of 2 falls.
    rel = release(SynthesizerInfo("a", epsilon=5.0), SynthesizerInfo("b", epsilon=2.0))
    result = evaluate("dp_epsilon_excess_membership", rel)
    assert result.refutes == (Claim.of_synthetic_set(1),)
    assert result.notes[0].startswith("Refuted: the measured lower bound on epsilon exceeds the claim for synthetic[1]")


def test_a_claim_the_test_does_not_contradict_is_not_refuted_never_verified():
    result = evaluate("dp_epsilon_excess_membership", release(SynthesizerInfo("a", epsilon=5.0)))
    assert result.value == 0 and result.refutes == ()
    assert result.notes[0].startswith("Not refuted by this test (a test cannot verify a DP claim)")
    assert registry.get_metric("dp_epsilon_excess_membership").pass_means == (
        "Not refuted by this test (a test cannot verify a DP claim)."
    )


def test_attribute_game_on_a_builtin_synthesizer_refutes_no_claim_of_the_release():
    rel = release(SynthesizerInfo("x"))
    spec = registry.get_metric("dp_epsilon_excess_attribute")
    params = spec.params(secret="c", synthesizer="nonprivate", claimed_epsilon=0.5)
    truth = np.array([0, 1] * 25)
    game = AttributeInferenceGame(truth, truth.copy(), truth.astype(float), {"attack": "lp"})
    result = evaluate(
        "dp_epsilon_excess_attribute",
        rel,
        needs={game_need(params): game},
        secret="c",
        synthesizer="nonprivate",
        claimed_epsilon=0.5,
    )
    assert result.value > 0 and result.refutes == ()


def test_total_epsilon_relies_on_every_claim_it_sums(tmp_path):
    (tmp_path / "l.yaml").write_text(
        "ledger_version: 1\nreleases:\n  - id: old\n    mechanisms:\n      - {mechanism: laplace, epsilon: 0.2}\n"
    )
    rel = release(SynthesizerInfo("mst", epsilon=0.5), SynthesizerInfo("nonprivate"), SynthesizerInfo("b", epsilon=1.0))
    result = evaluate("dp_total_epsilon", rel, base_dir=tmp_path, delta=1e-6, ledger="l.yaml")
    # The set without a claim makes the total infinite; it relies on no claim.
    assert result.relies_on == (Claim.of_synthetic_set(0), Claim.of_synthetic_set(2), Claim.of_ledger("old", 1))
