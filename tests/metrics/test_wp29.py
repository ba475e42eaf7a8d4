"""The Article 29 criteria through the registry, on hand-made releases."""

import numpy as np
import pandas as pd
import pytest

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, EvaluationError
from policycheck.release.model import ColumnType, Dataset, Release

N = 400


def people(seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.uniform(18, 90, N),
            "hours": rng.uniform(1, 99, N),
            "job": rng.choice([f"j{i}" for i in range(12)], N),
            "city": rng.choice([f"c{i}" for i in range(15)], N),
            "income": rng.choice(["low", "high"], N),
        }
    )


ORIGINAL, HOLDOUT = people(5), people(6)
TYPES = {c: ColumnType.NUMERIC if c in ("age", "hours") else ColumnType.CATEGORICAL for c in ORIGINAL}


def evaluate(name, synthetic, holdout=HOLDOUT, **params):
    sets = (Dataset("synthetic", "synthetic[1]", synthetic),)
    hold = Dataset("holdout", "holdout", holdout) if holdout is not None else None
    release = Release("r", Dataset("original", "original", ORIGINAL), sets, hold, TYPES)
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("age", "job", "city"), ("income",)), seed=7)
    spec = registry.get_metric(name)
    return spec.evaluate(ctx, spec.params(**params), {})


def test_a_copy_is_linkable_and_the_control_is_not():
    # Every original record is in the copy: both halves find that record at distance 0.
    result = evaluate(
        "linkability_risk", ORIGINAL.copy(), aux_columns=[["age", "job"], ["hours", "city"]], n_attacks=200
    )
    per_set = result.details["per_set"][0]
    assert per_set["main_successes"] == 200
    assert per_set["control_successes"] < 20
    assert result.value > 0.85 and result.raw > result.baseline
    assert result.sample_size == 200 and result.baseline_label.startswith("the same attack on holdout")


def test_inference_from_a_copy_beats_the_control():
    result = evaluate("inference_risk", ORIGINAL.copy(), n_attacks=200)
    per_set = result.details["per_set"][0]
    assert per_set["main_successes"] == 200  # the copy holds each target's own record at distance 0
    assert result.details["per_set"][0]["secret"] == "income"
    assert result.interval[0] <= result.value <= result.interval[1]


def test_same_seed_same_numbers():
    a = evaluate("singling_out_risk", ORIGINAL.copy(), n_attacks=100, n_cols=2)
    b = evaluate("singling_out_risk", ORIGINAL.copy(), n_attacks=100, n_cols=2)
    assert a.value == b.value and a.details == b.details


def test_without_holdout_the_value_is_the_main_rate_against_the_random_guess():
    result = evaluate("singling_out_risk", ORIGINAL.copy(), holdout=None, n_attacks=100, n_cols=2)
    assert (
        result.value == pytest.approx(result.raw) and result.baseline == result.details["per_set"][0]["baseline_rate"]
    )
    assert any("no holdout" in note for note in result.notes)


def test_inference_needs_a_secret():
    release = Release(
        "r", Dataset("original", "original", ORIGINAL), (Dataset("synthetic", "s", ORIGINAL),), None, TYPES
    )
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("age",), ()), seed=1)
    spec = registry.get_metric("inference_risk")
    with pytest.raises(EvaluationError, match="needs a secret"):
        spec.evaluate(ctx, spec.params(), {})
