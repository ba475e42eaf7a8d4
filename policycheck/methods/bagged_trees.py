"""scikit-learn's random forest grown one tree at a time, with the forest's own seeds and draws.

``RandomForestClassifier`` checks its inputs again for every tree it grows and
every tree it asks: on the few hundred rounds of a membership game a forest
of 100 trees spends more time in those checks than in growing trees. Here
the inputs are checked once (float32, C order, every value finite) and each
``DecisionTreeClassifier`` is grown with ``check_input=False``, as the forest
grows its own, with parameter validation skipped (the parameters are ours).

Everything random is the forest's: its ``RandomState(seed)`` gives each tree
a seed (``randint(2**31 - 1)``); the tree's bootstrap is
``RandomState(tree_seed).randint(0, n, n)``, given to the tree as weights
(how often each record was drawn); the tree splits with that seed. Out-of-bag
and held-out probabilities are summed in tree order and divided as the
forest divides them. ``tests/methods/test_bagged_trees.py`` compares them
with the forest's, bit for bit.

Records holding a NaN or an infinity are checked tree by tree, as the forest
checks them (a NaN is sent down the side the tree learnt; an infinity is
refused with scikit-learn's message).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The forest draws each tree's seed below this bound (``np.iinfo(np.int32).max``).
MAX_SEED = np.iinfo(np.int32).max


@dataclass(frozen=True)
class TreeInput:
    """Values as the trees read them (float32, C order: the forest converts them so), and whether they need
    the forest's checks: a NaN (sent down the side the tree learnt) or an infinity (refused). Found once."""

    values: np.ndarray
    checked: bool

    def rows(self, index: np.ndarray) -> TreeInput:
        """Some of the rows, checked as the whole was."""
        return TreeInput(self.values[index], self.checked)


def tree_input(a: np.ndarray) -> TreeInput:
    """``a`` as the trees read it."""
    values = np.ascontiguousarray(a, dtype=np.float32)
    return TreeInput(values, not bool(np.isfinite(values).all()))


def bagged_trees(
    x: TreeInput,
    y: np.ndarray,
    n_estimators: int,
    seed: int,
    *,
    min_samples_leaf: int = 1,
    row_of: np.ndarray | None = None,
) -> Iterator[tuple[Any, np.ndarray]]:
    """Each tree of ``RandomForestClassifier(n_estimators, min_samples_leaf=..., random_state=seed)``, with its draws.

    Yields ``(tree, drawn)``: the fitted ``DecisionTreeClassifier`` and how
    many times its bootstrap drew each record. ``x`` and ``y`` are the rows
    the trees grow on; with ``row_of`` (each record's row) there are fewer
    rows than records, and a row weighs the draws of all its records (exact
    only where ``min_samples_leaf`` is 1: a leaf's minimum counts rows).
    """
    from sklearn import config_context
    from sklearn.tree import DecisionTreeClassifier

    records = len(x.values) if row_of is None else len(row_of)
    forest_state = np.random.RandomState(seed)
    with config_context(skip_parameter_validation=True):
        for _ in range(n_estimators):
            tree_seed = forest_state.randint(MAX_SEED)
            drawn = np.bincount(np.random.RandomState(tree_seed).randint(0, records, records), minlength=records)
            weight = drawn if row_of is None else np.bincount(row_of, weights=drawn, minlength=len(x.values))
            tree = DecisionTreeClassifier(
                max_features="sqrt", min_samples_leaf=min_samples_leaf, random_state=tree_seed
            )
            tree.fit(x.values, y, sample_weight=weight.astype(np.float64), check_input=x.checked)
            yield tree, drawn


def tree_probabilities(tree: Any, queries: TreeInput) -> np.ndarray:
    """One tree's class probabilities at ``queries``, checked as the forest checks them."""
    probabilities: np.ndarray = tree.predict_proba(queries.values, check_input=queries.checked)
    return probabilities
