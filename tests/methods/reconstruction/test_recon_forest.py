"""The forest grown on distinct rows is scikit-learn's RandomForestClassifier, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

from policycheck.interfaces.demo import HOLDOUT, TRAINING
from policycheck.methods.reconstruction.forest import forest_probabilities

COLUMNS = ["age", "education_num", "hours_per_week", "capital_gain"]


def adult_features(path, rows: int, seed: int) -> tuple[np.ndarray, pd.DataFrame]:
    """A bootstrap of demo records (so rows repeat), as numbers."""
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    frame = frame.iloc[np.random.default_rng(seed).integers(0, len(frame), rows)].reset_index(drop=True)
    return frame[COLUMNS].to_numpy(float), frame


def scikit_learn(x, y, queries, n_estimators, seed):
    forest = RandomForestClassifier(n_estimators=n_estimators, random_state=seed, n_jobs=1).fit(x, y)
    return forest.classes_, forest.predict_proba(queries)


def assert_same(x, y, queries, n_estimators=25, seed=20261121):
    classes, proba = forest_probabilities(x, y, queries, n_estimators, seed)
    expected_classes, expected = scikit_learn(x, y, queries, n_estimators, seed)
    assert classes.tolist() == expected_classes.tolist()
    assert np.array_equal(proba, expected)


def test_a_bootstrapped_training_set_gives_the_forests_probabilities():
    x, frame = adult_features(TRAINING, 6000, seed=1)
    assert len(np.unique(x, axis=0)) < 3000  # many repeated rows
    queries, _ = adult_features(HOLDOUT, 500, seed=2)
    assert_same(x, (frame["income"] == ">50K").to_numpy(int), queries)


def test_a_secret_of_three_classes_gives_the_forests_probabilities():
    x, frame = adult_features(TRAINING, 4000, seed=3)
    y = pd.Index(["Husband", "Not-in-family", "Own-child"]).get_indexer(frame["relationship"])
    keep = y >= 0
    queries, _ = adult_features(HOLDOUT, 300, seed=4)
    assert_same(x[keep], y[keep], queries, n_estimators=10)


def test_missing_training_values_give_the_forests_probabilities():
    # Where a node's rows miss a value, the split sends them by weighted counts: rows may be merged.
    x, frame = adult_features(TRAINING, 4000, seed=5)
    x[np.random.default_rng(6).random(len(x)) < 0.1, 3] = np.nan
    queries, _ = adult_features(HOLDOUT, 300, seed=7)
    assert_same(x, (frame["sex"] == "Male").to_numpy(int), queries, n_estimators=10)


def test_a_target_missing_a_value_gets_the_forests_probabilities():
    # Such a target goes where more training rows went: counted row by row, so the forest is grown whole.
    x, frame = adult_features(TRAINING, 3000, seed=8)
    queries, _ = adult_features(HOLDOUT, 200, seed=9)
    queries[::7, 0] = np.nan
    assert_same(x, (frame["income"] == ">50K").to_numpy(int), queries, n_estimators=10)


@pytest.mark.parametrize("n_estimators", [1, 3])
def test_few_trees_average_exactly_as_the_forest(n_estimators):
    x, frame = adult_features(TRAINING, 2000, seed=10)
    queries, _ = adult_features(HOLDOUT, 100, seed=11)
    assert_same(x, (frame["income"] == ">50K").to_numpy(int), queries, n_estimators=n_estimators, seed=3)
