import json

import numpy as np
import pandas as pd
import pytest

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, EvaluationError, Knowledge, Need
from policycheck.metrics.reconstruction import AttributeInferenceGame, GameParams, game_need, individual_risk
from policycheck.release.model import ColumnType, Dataset, Release, SynthesizerInfo
from policycheck.synthesizers import indhist, nonprivate

QIS = ("age", "job", "city", "pet")


def _population(n, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": rng.integers(18, 80, n),
        "job": rng.choice(list("abcdefgh"), n),
        "city": rng.choice(list("pqrstu"), n),
        "pet": rng.choice(["cat", "dog", "none"], n),
    })
    # The secret depends weakly on job, so a population-level inference exists.
    frame["sex"] = np.where(rng.random(n) < np.where(frame["job"] < "c", 0.8, 0.4), "M", "F")
    return frame


def _release(synthesizer, m=2000, holdout=True, command=None):
    original, control = _population(400, 0), _population(400, 1)
    synthetic = synthesizer(original, m, np.random.default_rng(2))
    types = {c: ColumnType.CATEGORICAL for c in original.columns} | {"age": ColumnType.NUMERIC}
    info = SynthesizerInfo(name=synthesizer.__name__, command=command)
    return Release(
        "r", Dataset("original", "original", original), (Dataset("synthetic", "synthetic[1]", synthetic, synthesizer=info),),
        Dataset("holdout", "holdout", control) if holdout else None, types,
    )


def _evaluate(release, name, params, secrets=("sex",)):
    ctx = EvaluationContext(release, AttackerView("partially-informed", QIS, secrets), seed=0)
    spec = registry.get_metric(name)
    p = spec.params(**params)
    needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(p, release)}
    result = spec.evaluate(ctx, p, needs)
    json.dumps(dict(result.details)), json.dumps(list(result.charts))
    return result


def test_attacks_need_only_what_a_partially_informed_attacker_knows():
    for name in ("reconstruction_accuracy", "reconstruction_individual_risk", "attribute_inference_advantage"):
        spec = registry.get_metric(name)
        assert spec.knowledge == {Knowledge.ORIGINAL_QI, Knowledge.SYNTHETIC}
        assert spec.column_params == ("secret", "quasi_identifiers")


def test_a_bootstrap_release_is_reconstructed_far_above_the_baseline():
    result = _evaluate(_release(nonprivate), "reconstruction_accuracy", {"secret": "sex", "attacks": ["lp", "exact"]})
    rows = {r["attack"]: r for r in result.details["attacks"]}
    assert result.value == max(r["accuracy"] for r in rows.values())
    assert result.value > 0.9
    assert result.interval[0] < result.value < result.interval[1]
    assert result.details["baselines"][0]["accuracy"] < 0.7
    assert result.details["solver"]["options"]["solver"] == "ipm"
    assert rows["lp"]["lp"]["solves"][0]["status"] == "Optimal"


def test_independent_histograms_leave_no_individual_risk():
    result = _evaluate(_release(indhist), "reconstruction_individual_risk", {"secret": "sex", "attacks": ["exact", "ml"]})
    assert result.interval[0] <= 0.0 <= result.interval[1]
    assert abs(result.value) < 0.15


def test_individual_risk_is_the_control_corrected_accuracy():
    # 90 of 100 right against 60 of 100 on the control: (0.9 - 0.6) / (1 - 0.6) = 0.75.
    value, (lo, hi) = individual_risk(90, 100, 60, 100, 0.95)
    assert value == pytest.approx(0.75)
    assert lo < 0.75 < hi
    # A perfect control leaves nothing to measure.
    assert individual_risk(90, 100, 100, 100, 0.95)[0] == 0.0


def test_individual_risk_without_a_holdout_is_an_error():
    with pytest.raises(EvaluationError, match="holdout"):
        _evaluate(_release(nonprivate, holdout=False), "reconstruction_individual_risk", {"secret": "sex", "attacks": ["exact"]})


def test_a_secret_the_policy_does_not_declare_is_refused():
    with pytest.raises(EvaluationError, match="declared secrets"):
        _evaluate(_release(nonprivate), "reconstruction_accuracy", {"secret": "pet", "attacks": ["exact"]})


def test_the_game_against_a_bootstrap_gives_full_advantage_and_shares_its_outcome():
    params = {"secret": "sex", "attack": "exact", "synthesizer": "nonprivate", "repetitions": 30,
              "synthetic_size": 8000}
    release = _release(nonprivate)
    result = _evaluate(release, "attribute_inference_advantage", params)
    assert result.value == pytest.approx(1.0)
    assert result.details["auc"] == pytest.approx(1.0)
    assert result.charts[0]["kind"] == "line"
    ctx = EvaluationContext(release, AttackerView("partially-informed", QIS, ("sex",)), seed=0)
    game = registry.compute_intermediate(ctx, game_need(GameParams(**params)))
    assert isinstance(game, AttributeInferenceGame)
    assert game.truth.size == 30 and set(np.unique(game.truth)) <= {0, 1}
    assert game.params["positive"] == "M"


def test_the_game_with_release_synthesizer_needs_a_declared_command():
    with pytest.raises(EvaluationError, match="synthesizer command"):
        _evaluate(_release(nonprivate), "attribute_inference_advantage", {"secret": "sex", "attack": "exact", "repetitions": 2})


def test_an_unknown_synthesizer_is_a_params_error():
    with pytest.raises(ValueError, match="unknown synthesizer"):
        GameParams(secret="sex", synthesizer="ctgan")


def test_game_repetitions_report_progress():
    release = _release(nonprivate)
    seen = []
    ctx = EvaluationContext(release, AttackerView("partially-informed", QIS, ("sex",)), seed=0,
                            progress=lambda label, done, total: seen.append((label, done, total)))
    params = GameParams(secret="sex", attack="exact", synthesizer="indhist", repetitions=4)
    registry.compute_intermediate(ctx, game_need(params))
    assert seen[-1] == ("attribute inference game", 4, 4)
    assert [d for _, d, _ in seen] == [1, 2, 3, 4]


def test_the_game_reruns_the_command_the_release_declares(tmp_path):
    import sys

    (tmp_path / "synth.py").write_text(
        "import sys, pandas as pd\n"
        "a = dict(zip(sys.argv[1::2], sys.argv[2::2]))\n"
        "d = pd.read_csv(a['--input'])\n"
        "d.sample(n=int(a['--rows']), replace=True, random_state=int(a['--seed'])).to_csv(a['--output'], index=False)\n"
    )
    command = f"{sys.executable} synth.py --input {{input}} --output {{output}} --rows {{rows}} --seed {{seed}}"
    release = _release(nonprivate, command=command)
    ctx = EvaluationContext(release, AttackerView("partially-informed", QIS, ("sex",)), seed=0, base_dir=tmp_path)
    params = GameParams(secret="sex", attack="exact", repetitions=3, synthetic_size=8000)
    game = registry.compute_intermediate(ctx, game_need(params))
    assert game.params["synthesizer"].startswith("command: ")
    assert (game.truth == game.guess).all()


def test_a_batch_of_runs_gives_each_its_own_outcome_and_matches_single_runs():
    release = _release(nonprivate, holdout=False)
    ctx = EvaluationContext(release, AttackerView("partially-informed", QIS, ("sex",)), seed=0)
    request = dict(secret="sex", quasi_identifiers=None, attacks=("lp", "exact"))
    original, control = registry.compute_intermediates(
        ctx,
        [
            Need.of("reconstruction_attacks", records="original", **request),
            Need.of("reconstruction_attacks", records="holdout", **request),
        ],
    )
    # No holdout: the control fails alone, the original records' run is the same as on its own.
    assert isinstance(control, EvaluationError) and "holdout" in str(control)
    alone = registry.compute_intermediate(ctx, Need.of("reconstruction_attacks", records="original", **request))
    for key, outcome in alone.outcomes.items():
        np.testing.assert_array_equal(original.outcomes[key].guess, outcome.guess)
