"""The trees grown one at a time are RandomForestClassifier's, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

from policycheck.methods import bagged_trees as bagged_trees_module
from policycheck.methods.bagged_trees import _builder_agrees, bagged_trees, tree_input, tree_probabilities


def records(rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 6))
    return x, (x[:, 0] + rng.normal(size=rows) > 0).astype(int)


def averaged(x, y, queries, n_estimators, seed, **params):
    total = 0
    for tree, _ in bagged_trees(tree_input(x), y, n_estimators, seed, **params):
        total = total + tree_probabilities(tree, tree_input(queries))
    return total / n_estimators


@pytest.mark.parametrize("min_samples_leaf", [1, 2, 5])
def test_the_trees_average_to_the_forests_probabilities(min_samples_leaf):
    x, y = records(300, seed=1)
    queries, _ = records(50, seed=2)
    forest = RandomForestClassifier(n_estimators=30, min_samples_leaf=min_samples_leaf, random_state=7, n_jobs=1)
    expected = forest.fit(x, y).predict_proba(queries)
    assert np.array_equal(averaged(x, y, queries, 30, 7, min_samples_leaf=min_samples_leaf), expected)


def test_each_trees_draws_are_the_forests_bootstrap():
    x, y = records(100, seed=3)
    forest = RandomForestClassifier(n_estimators=5, random_state=11, n_jobs=1).fit(x, y)
    for (tree, drawn), fitted in zip(bagged_trees(tree_input(x), y, 5, 11), forest.estimators_, strict=True):
        assert tree.random_state == fitted.random_state
        expected = np.bincount(np.random.RandomState(fitted.random_state).randint(0, 100, 100), minlength=100)
        assert np.array_equal(drawn, expected)


def test_records_missing_a_value_grow_the_forests_trees():
    x, y = records(300, seed=4)
    x[np.random.default_rng(5).random(300) < 0.1, 2] = np.nan
    queries, _ = records(40, seed=6)
    queries[::5, 2] = np.nan
    expected = RandomForestClassifier(n_estimators=10, random_state=3, n_jobs=1).fit(x, y).predict_proba(queries)
    assert np.array_equal(averaged(x, y, queries, 10, 3), expected)


def test_an_infinite_value_is_refused_as_the_forest_refuses_it():
    x, y = records(50, seed=7)
    x[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        RandomForestClassifier(n_estimators=2, random_state=0).fit(x, y)
    with pytest.raises(ValueError, match="infinity"):
        next(bagged_trees(tree_input(x), y, 2, 0))


def test_the_builder_grows_fits_trees_with_the_installed_scikit_learn():
    # Else every tree is grown by fit: the same numbers, twice the time.
    _builder_agrees.cache_clear()
    assert _builder_agrees()


def test_trees_are_grown_by_fit_when_the_builder_disagrees(monkeypatch):
    x, y = records(200, seed=8)
    queries, _ = records(30, seed=9)
    expected = RandomForestClassifier(n_estimators=10, random_state=4, n_jobs=1).fit(x, y).predict_proba(queries)
    monkeypatch.setattr(bagged_trees_module, "_builder_agrees", lambda: False)
    monkeypatch.setattr(bagged_trees_module, "_grow_tree", None)  # never called
    assert np.array_equal(averaged(x, y, queries, 10, 4), expected)


def test_internals_that_differ_make_the_builder_disagree(monkeypatch):
    def other_signature(*args):
        raise TypeError("__cinit__() takes exactly 5 positional arguments (6 given)")

    monkeypatch.setattr(bagged_trees_module, "_grow_tree", other_signature)
    _builder_agrees.cache_clear()
    try:
        assert not _builder_agrees()
    finally:
        _builder_agrees.cache_clear()
