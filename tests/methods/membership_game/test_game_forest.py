"""The game's shadow-model forest scores rounds as RandomForestClassifier does, out of bag and held out."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from policycheck.methods.membership_game.attacks import ClassifierConfig, forest_scores


def rounds(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows of a game's rounds: a few features that carry the coin, and noise."""
    rng = np.random.default_rng(seed)
    coins = rng.random(count) < 0.5
    x = rng.normal(size=(count, 12))
    x[:, 0] += coins
    return x, coins.astype(int)


def test_out_of_bag_and_held_out_scores_are_the_forests():
    x, y = rounds(200, seed=1)
    train, test = np.arange(100), np.arange(100, 200)
    forest = RandomForestClassifier(n_estimators=100, min_samples_leaf=2, oob_score=True, random_state=42, n_jobs=1)
    forest.fit(x[train], y[train])
    out_of_bag, held_out = forest_scores(x[train], y[train], x[test], ClassifierConfig(), 42)
    assert np.array_equal(out_of_bag, forest.oob_decision_function_[:, 1])
    assert np.array_equal(held_out, forest.predict_proba(x[test])[:, 1])


def test_a_round_no_tree_left_out_scores_one_half_not_the_forests_zero():
    x, y = rounds(40, seed=2)
    forest = RandomForestClassifier(n_estimators=2, min_samples_leaf=2, oob_score=True, random_state=5, n_jobs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forest.fit(x, y)
    out_of_bag, _ = forest_scores(x, y, x[:0], ClassifierConfig(n_estimators=2), 5)
    drawn_by_both = np.ones(40, dtype=bool)
    for tree in forest.estimators_:
        drawn_by_both &= np.bincount(np.random.RandomState(tree.random_state).randint(0, 40, 40), minlength=40) > 0
    assert drawn_by_both.sum() > 5
    assert np.all(out_of_bag[drawn_by_both] == 0.5)
    assert np.all(forest.oob_decision_function_[drawn_by_both, 1] == 0)
    assert np.array_equal(out_of_bag[~drawn_by_both], forest.oob_decision_function_[~drawn_by_both, 1])
