"""scikit-learn's random forest, grown on the distinct rows of its training data.

The ML inference attack (paper 001, sec. 4.3) trains ``RandomForestClassifier``
on a synthetic set. A bootstrapped release repeats records: 300,000 synthetic
Adult records hold about 12,700 distinct (quasi-identifiers, secret) rows.
The forest grows each tree on every row, weighted by how often the tree's
bootstrap drew it. A tree's splits see the rows only through the weighted
class counts on either side of a threshold between two distinct values:
equal rows fall on the same side, and their integer weights add exactly. So
growing each tree on the distinct rows, each weighted by the draws of all its
copies, grows the same tree, with the same random feature draws, in a
twentieth of the time.

The seeds and draws are the forest's own: the forest's ``RandomState``
gives each tree a seed (``randint(2**31 - 1)``), and the tree's bootstrap is
``RandomState(seed).randint(0, n, n)``. The probabilities are the trees'
averaged in tree order, as ``predict_proba`` averages them.
``tests/methods/reconstruction/test_recon_forest.py`` compares with
``RandomForestClassifier`` bit for bit.

One thing in a tree does count rows instead of weights: a target whose value
is missing where the training rows of a node had none goes to the child that
held more rows. With a target missing a value, the forest is grown as
scikit-learn grows it.
"""

from __future__ import annotations

import numpy as np


def forest_probabilities(
    x: np.ndarray, y: np.ndarray, queries: np.ndarray, n_estimators: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``RandomForestClassifier(n_estimators, random_state=seed)`` fitted on ``(x, y)``, applied to ``queries``.

    Returns
    -------
    classes, probabilities
        The classes of ``y`` (sorted) and ``(len(queries), len(classes))``
        probabilities, equal to the forest's ``classes_`` and ``predict_proba``.
    """
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    from policycheck.methods.distinct_rows import distinct_rows

    if np.isnan(queries).any():
        forest = RandomForestClassifier(n_estimators=n_estimators, random_state=seed, n_jobs=1).fit(x, y)
        return forest.classes_, forest.predict_proba(queries)
    # The forest grows its trees on float32 values; rows equal there are equal to every tree.
    table = np.column_stack([np.asarray(x, dtype=np.float32), np.asarray(y, dtype=np.float32)])
    rows, copy_of = distinct_rows(table)
    distinct_x, distinct_y = rows[:, :-1], rows[:, -1].astype(np.int64)
    classes = np.unique(distinct_y)
    n = len(table)
    forest_state = np.random.RandomState(seed)
    probabilities = np.zeros((len(queries), classes.size))
    for _ in range(n_estimators):
        tree_seed = forest_state.randint(np.iinfo(np.int32).max)
        drawn = np.random.RandomState(tree_seed).randint(0, n, n)
        weight = np.bincount(copy_of[drawn], minlength=len(rows)).astype(np.float64)
        tree = DecisionTreeClassifier(max_features="sqrt", random_state=tree_seed)
        tree.fit(distinct_x, distinct_y, sample_weight=weight)
        probabilities += tree.predict_proba(queries)
    probabilities /= n_estimators
    return classes, probabilities
