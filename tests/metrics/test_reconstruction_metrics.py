import json

import numpy as np
import pandas as pd
import pytest

from policycheck.methods.synthesizers import indhist, nonprivate
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, EvaluationError, Knowledge, Need
from policycheck.metrics.reconstruction import AttributeInferenceGame, GameParams, game_need, individual_risk
from policycheck.release.model import ColumnType, Dataset, Release, SynthesizerInfo

QIS = ("age", "job", "city", "pet")


def _population(n, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "job": rng.choice(list("abcdefgh"), n),
            "city": rng.choice(list("pqrstu"), n),
            "pet": rng.choice(["cat", "dog", "none"], n),
        }
    )
    # The secret depends weakly on job, so a population-level inference exists.
    frame["sex"] = np.where(rng.random(n) < np.where(frame["job"] < "c", 0.8, 0.4), "M", "F")
    return frame


def _release(synthesizer, m=2000, holdout=True, command=None):
    original, control = _population(400, 0), _population(400, 1)
    synthetic = synthesizer(original, m, np.random.default_rng(2))
    types = dict.fromkeys(original.columns, ColumnType.CATEGORICAL) | {"age": ColumnType.NUMERIC}
    info = SynthesizerInfo(name=synthesizer.__name__, command=command)
    return Release(
        "r",
        Dataset("original", "original", original),
        (Dataset("synthetic", "synthetic[1]", synthetic, synthesizer=info),),
        Dataset("holdout", "holdout", control) if holdout else None,
        types,
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


# A release small enough to attack by hand, with the exact-match attack:
# original q = a a b b c c, s = y y n n y y; holdout q = a b c d d d, s = y n n y n n.
# Set "copy" equals the original: it reveals every secret (6/6); its most common secret is y
# (4/6 right for everyone); on the holdout it guesses y n y and, for the unmatched d, the
# synthetic majority y: 3/6 right. Set "wrong" holds a n, b n, c n: 2/6 on the original, 4/6
# on the holdout.
HAND_ORIGINAL = pd.DataFrame({"q": list("aabbcc"), "s": ["y", "y", "n", "n", "y", "y"]})
HAND_HOLDOUT = pd.DataFrame({"q": list("abcddd"), "s": ["y", "n", "n", "y", "n", "n"]})
HAND_WRONG = pd.DataFrame({"q": list("abc"), "s": ["n", "n", "n"]})


def _hand_release(original=HAND_ORIGINAL, holdout=HAND_HOLDOUT):
    sets = (Dataset("synthetic", "copy", HAND_ORIGINAL.copy()), Dataset("synthetic", "wrong", HAND_WRONG))
    return Release(
        "hand",
        Dataset("original", "original", original),
        sets,
        Dataset("holdout", "holdout", holdout),
        {"q": ColumnType.CATEGORICAL, "s": ColumnType.CATEGORICAL},
    )


def _hand(name, release=None, **params):
    release = release or _hand_release()
    ctx = EvaluationContext(release, AttackerView("partially-informed", ("q",), ("s",)), seed=0)
    spec = registry.get_metric(name)
    p = spec.params(secret="s", attacks=["exact"], **params)
    needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(p, release)}
    return spec.evaluate(ctx, p, needs)


def test_accuracy_per_set_and_attack_is_counted_by_hand():
    result = _hand("reconstruction_accuracy")
    rows = {r["set"]: r for r in result.details["attacks"]}
    assert (rows["copy"]["correct"], rows["wrong"]["correct"]) == (6, 2)
    assert (rows["copy"]["control_accuracy"], rows["wrong"]["control_accuracy"]) == (0.5, 4 / 6)
    assert [b["accuracy"] for b in result.details["baselines"]] == [4 / 6, 2 / 6]
    assert result.value == 1.0 and result.sample_size == 6


def test_the_worst_of_several_sets_has_its_interval_at_the_bonferroni_level():
    result = _hand("reconstruction_accuracy")
    # Two alternatives (two sets, one attack): each interval at 1 - 0.05 / 2 = 0.975. The
    # worst is 6/6, whose exact lower end is (0.025 / 2) ** (1 / 6); the upper end is 1.
    assert result.details["bonferroni"]["level"] == pytest.approx(0.975)
    assert result.interval == pytest.approx((0.0125 ** (1 / 6), 1.0))
    assert result.confidence == 0.95


def test_accuracy_reports_the_larger_of_majority_and_control_as_its_baseline():
    result = _hand("reconstruction_accuracy")
    # Worst set "copy": majority guess 4/6, its attack on the holdout 3/6.
    assert result.baseline == pytest.approx(4 / 6)
    assert "most common secret" in result.baseline_label
    assert result.raw is None


def test_individual_risk_reports_accuracy_and_control_as_raw_and_baseline():
    result = _hand("reconstruction_individual_risk")
    # Set "copy": no error on the original, 3 of 6 on the holdout: 1 - 0 / 0.5 = 1.
    # Set "wrong": 4 of 6 errors against 2 of 6: 1 - 2 = -1.
    risks = {r["set"]: r["individual_risk"] for r in result.details["attacks"]}
    assert risks == {"copy": 1.0, "wrong": -1.0}
    assert (result.value, result.raw, result.baseline) == (1.0, 1.0, 0.5)
    assert "holdout" in result.baseline_label


def test_records_with_a_missing_secret_are_left_out_and_counted():
    original = HAND_ORIGINAL.assign(s=["y", "y", None, "n", "y", "y"])
    result = _hand("reconstruction_accuracy", _hand_release(original=original))
    rows = {r["set"]: r for r in result.details["attacks"]}
    # Set "copy" (the full original, b -> n) still guesses the five known secrets right.
    assert (rows["copy"]["correct"], rows["copy"]["records"]) == (5, 5)
    assert result.details["records_without_secret"] == 1
    assert result.sample_size == 5


def test_a_secret_missing_everywhere_is_a_clear_error():
    original = HAND_ORIGINAL.assign(s=None)
    with pytest.raises(EvaluationError, match="missing in every original record"):
        _hand("reconstruction_accuracy", _hand_release(original=original))


def test_a_quasi_identifier_listed_twice_counts_once():
    release = _release(nonprivate)
    result = _evaluate(
        release,
        "reconstruction_accuracy",
        {"secret": "sex", "attacks": ["lp"], "quasi_identifiers": ["job", "age", "job"]},
    )
    assert result.details["quasi_identifiers"] == ["job", "age"]
    assert result.details["attacks"][0]["lp"]["solves"][0]["status"] == "Optimal"


def test_missing_quasi_identifiers_are_a_category_of_the_queries():
    release = _release(nonprivate)
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
    result = _evaluate(release, "reconstruction_accuracy", {"secret": "sex", "attacks": ["lp", "ml", "dcr", "exact"]})
    assert {r["attack"] for r in result.details["attacks"]} == {"lp", "ml", "dcr", "exact"}
    assert result.details["records_without_secret"] == 0


def test_independent_histograms_leave_no_individual_risk():
    result = _evaluate(
        _release(indhist), "reconstruction_individual_risk", {"secret": "sex", "attacks": ["exact", "ml"]}
    )
    assert result.interval[0] <= 0.0 <= result.interval[1]
    assert abs(result.value) < 0.15


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


def test_individual_risk_without_a_holdout_is_an_error():
    with pytest.raises(EvaluationError, match="holdout"):
        _evaluate(
            _release(nonprivate, holdout=False),
            "reconstruction_individual_risk",
            {"secret": "sex", "attacks": ["exact"]},
        )


def test_a_secret_the_policy_does_not_declare_is_refused():
    with pytest.raises(EvaluationError, match="declared secrets"):
        _evaluate(_release(nonprivate), "reconstruction_accuracy", {"secret": "pet", "attacks": ["exact"]})


def test_the_game_against_a_bootstrap_gives_full_advantage_and_shares_its_outcome():
    params = {
        "secret": "sex",
        "attack": "exact",
        "synthesizer": "nonprivate",
        "repetitions": 30,
        "synthetic_size": 8000,
    }
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
        _evaluate(
            _release(nonprivate),
            "attribute_inference_advantage",
            {"secret": "sex", "attack": "exact", "repetitions": 2},
        )


def test_an_unknown_synthesizer_is_a_params_error():
    with pytest.raises(ValueError, match="unknown synthesizer"):
        GameParams(secret="sex", synthesizer="ctgan")


def test_game_repetitions_report_progress():
    release = _release(nonprivate)
    seen = []
    ctx = EvaluationContext(
        release,
        AttackerView("partially-informed", QIS, ("sex",)),
        seed=0,
        progress=lambda label, done, total: seen.append((label, done, total)),
    )
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
    request = {"secret": "sex", "quasi_identifiers": None, "attacks": ("lp", "exact")}
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
