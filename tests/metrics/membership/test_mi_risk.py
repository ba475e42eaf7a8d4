"""mi_risk's chart, params and determinism (its numbers: the hand-computed cases in cases/mi_risk.yaml)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from policycheck.core.errors import EvaluationError
from policycheck.execution.local import LocalProcessExecutor
from policycheck.metrics import registry
from tests.metrics.membership.tiny import HOLDOUT, SYNTHETIC, evaluate, release


def test_mi_risk_roc_chart_runs_from_origin_to_one_one():
    (chart,) = evaluate("mi_risk", release(HOLDOUT, SYNTHETIC)).charts
    attack = chart["series"][0]
    assert (attack["x"][0], attack["y"][0], attack["x"][-1], attack["y"][-1]) == (0.0, 0.0, 1.0, 1.0)


def test_adversary_size_beyond_the_smaller_set_is_an_evaluation_error():
    with pytest.raises(EvaluationError, match="adversary_size"):
        evaluate("mi_risk", release(HOLDOUT, SYNTHETIC), adversary_size=3)


def test_quantile_levels_outside_the_unit_interval_are_rejected():
    with pytest.raises(ValidationError):
        registry.get_metric("mi_risk").params(quantile_levels=[0.5, 1.5])


def test_same_seed_gives_the_same_numbers_and_pool_matches_serial():
    rng = np.random.default_rng(0)
    n = 300
    real = pd.DataFrame({"x": rng.normal(size=2 * n).round(1), "c": rng.choice(list("abcdef"), 2 * n)})
    syn = real.iloc[: n // 2].reset_index(drop=True)
    rel = release(real.iloc[n:].reset_index(drop=True), syn, training=real.iloc[:n].reset_index(drop=True))
    a = evaluate("mi_risk", rel, seed=9, adversary_size=100)
    with LocalProcessExecutor(2) as pool:
        b = evaluate("mi_risk", rel, seed=9, adversary_size=100, executor=pool)
    assert (a.value, a.interval, a.details) == (b.value, b.interval, b.details)


def test_where_an_id_column_names_people_the_sample_is_counted_in_people():
    from policycheck.release.model import ColumnType, Dataset, Release

    rng = np.random.default_rng(3)

    def dataset(role, name, rows, people=None):
        ids = pd.DataFrame({"person": people}) if people is not None else None
        return Dataset(role, name, pd.DataFrame({"x": rng.normal(size=rows).round(2)}), id_frame=ids)

    def result(named: bool):
        # Ten men with four years each in training, ten others in the holdout.
        train_people = [f"t{i // 4}" for i in range(40)] if named else None
        hold_people = [f"h{i // 4}" for i in range(40)] if named else None
        rel = Release(
            id="panel",
            original=dataset("original", "training", 40, train_people),
            holdout=dataset("holdout", "holdout", 40, hold_people),
            synthetic=(dataset("synthetic", "synthetic[0]", 30),),
            column_types={"x": ColumnType.NUMERIC},
        )
        return evaluate("mi_risk", rel)

    people, records = result(True), result(False)
    assert (people.sample_size, people.sample_unit) == (20, "people")
    assert (records.sample_size, records.sample_unit) == (80, "records")
