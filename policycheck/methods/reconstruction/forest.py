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

The trees are the forest's own, grown one at a time with its seeds and
draws (:mod:`policycheck.methods.bagged_trees`); the probabilities are the
trees' averaged in tree order, as ``predict_proba`` averages them.
``tests/methods/reconstruction/test_recon_forest.py`` compares with
``RandomForestClassifier`` bit for bit.

One thing in a tree does count rows instead of weights: a target whose value
is missing where the training rows of a node had none goes to the child that
held more rows. With a target missing a value, the forest is grown as
scikit-learn grows it (every record a row of its own).
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
    from policycheck.methods.bagged_trees import bagged_trees, tree_input, tree_probabilities
    from policycheck.methods.distinct_rows import distinct_rows

    if np.isnan(queries).any():
        x_rows, y, row_of = tree_input(x), np.asarray(y), None
    else:
        # The forest grows its trees on float32 values; rows equal there are equal to every tree.
        table = np.column_stack([np.asarray(x, dtype=np.float32), np.asarray(y, dtype=np.float32)])
        rows, row_of = distinct_rows(table)
        x_rows, y = tree_input(rows[:, :-1]), rows[:, -1].astype(np.int64)
    at = tree_input(queries)
    classes = np.unique(y)
    probabilities = np.zeros((len(queries), classes.size))
    for tree, _ in bagged_trees(x_rows, y, n_estimators, seed, row_of=row_of):
        probabilities += tree_probabilities(tree, at)
    probabilities /= n_estimators
    return classes, probabilities
