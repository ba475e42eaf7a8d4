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

Even unchecked, ``DecisionTreeClassifier.fit`` spends about 0.6 ms a tree in
Python before its builder runs (``type_of_target``, the weights' checks, a
``np.unique`` of the labels, ``errstate``): more than growing a tree on a few
hundred rounds. For finite records the trees are grown by the builder that fit
would call (:func:`_grow_tree`: scikit-learn's ``DepthFirstTreeBuilder`` with
its ``BestSplitter`` and ``Gini``, the arguments fit derives from our
parameters), the labels encoded once per forest. Those classes are
scikit-learn's internals, so each process first grows a few trees both ways and
compares them node by node (:func:`_builder_agrees`); any difference, or a
scikit-learn whose internals differ, and every tree is grown by ``fit``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
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
    direct = not x.checked and _builder_agrees()
    if direct:  # the labels encoded as fit encodes them, once for every tree
        classes, labels = _encoded_labels(y)
    with config_context(skip_parameter_validation=True):
        for _ in range(n_estimators):
            tree_seed = forest_state.randint(MAX_SEED)
            drawn = np.bincount(np.random.RandomState(tree_seed).randint(0, records, records), minlength=records)
            weight = (drawn if row_of is None else np.bincount(row_of, weights=drawn, minlength=len(x.values))).astype(
                np.float64
            )
            if direct:
                tree = _grow_tree(x.values, classes, labels, weight, min_samples_leaf, tree_seed)
            else:
                tree = DecisionTreeClassifier(
                    max_features="sqrt", min_samples_leaf=min_samples_leaf, random_state=tree_seed
                )
                tree.fit(x.values, y, sample_weight=weight, check_input=x.checked)
            yield tree, drawn


def _grow_tree(
    values: np.ndarray, classes: np.ndarray, labels: np.ndarray, weight: np.ndarray, min_samples_leaf: int, seed: int
) -> Any:
    """``DecisionTreeClassifier(max_features="sqrt", min_samples_leaf=..., random_state=seed).fit(values, y,
    sample_weight=weight, check_input=False)``, grown by the builder fit calls with the arguments fit derives
    (scikit-learn 1.4 to 1.9, ``BaseDecisionTree._fit``); ``labels``: ``y`` encoded as fit encodes it."""
    from sklearn.tree import DecisionTreeClassifier
    from sklearn.tree._criterion import Gini
    from sklearn.tree._splitter import BestSplitter
    from sklearn.tree._tree import DepthFirstTreeBuilder, Tree

    n_classes = np.array([len(classes)], dtype=np.intp)
    features = values.shape[1]
    max_features = max(1, int(np.sqrt(features)))
    # No max_leaf_nodes, depth or impurity bound; min_weight_fraction_leaf 0 makes min_weight_leaf 0.
    splitter = BestSplitter(Gini(1, n_classes), max_features, min_samples_leaf, 0.0, np.random.RandomState(seed), None)
    builder = DepthFirstTreeBuilder(
        splitter, max(2, 2 * min_samples_leaf), min_samples_leaf, 0.0, np.iinfo(np.int32).max, 0.0
    )
    tree = DecisionTreeClassifier(max_features="sqrt", min_samples_leaf=min_samples_leaf, random_state=seed)
    tree.tree_ = Tree(features, n_classes, 1)
    builder.build(tree.tree_, values, labels, weight, None)
    # What fit sets besides the tree (pruning at ccp_alpha 0 changes nothing).
    tree.n_features_in_, tree.n_outputs_, tree.max_features_ = features, 1, max_features
    tree.classes_, tree.n_classes_ = classes, n_classes[0]
    return tree


#: The arrays of a grown tree compared node by node.
_NODE_ARRAYS = (
    "children_left",
    "children_right",
    "feature",
    "threshold",
    "value",
    "impurity",
    "n_node_samples",
    "weighted_n_node_samples",
)


def _encoded_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``y``'s classes (sorted) and ``y`` as fit encodes it for the builder: class indices, a float64 column."""
    classes, encoded = np.unique(y, return_inverse=True)
    return classes, np.ascontiguousarray(encoded.reshape(-1, 1), dtype=np.float64)


@cache
def _builder_agrees() -> bool:
    """Whether :func:`_grow_tree` grows ``fit``'s trees with this scikit-learn: a few trees, node by node."""
    from sklearn.tree import DecisionTreeClassifier

    state = np.random.RandomState(20261128)
    values = state.normal(size=(80, 7)).astype(np.float32)
    y = (values[:, 0] + state.normal(size=80) > 0).astype(np.int64) + 2 * (values[:, 1] > 1)
    classes, labels = _encoded_labels(y)
    try:
        for leaf, seed in ((1, 5), (3, 6), (5, 7)):
            weight = np.bincount(state.randint(0, 80, 80), minlength=80).astype(np.float64)
            ours = _grow_tree(values, classes, labels, weight, leaf, seed)
            fitted = DecisionTreeClassifier(max_features="sqrt", min_samples_leaf=leaf, random_state=seed).fit(
                values, y, sample_weight=weight
            )
            if not all(
                np.array_equal(getattr(ours.tree_, a), getattr(fitted.tree_, a), equal_nan=True) for a in _NODE_ARRAYS
            ) or not np.array_equal(ours.predict_proba(values), fitted.predict_proba(values)):
                return False
    except Exception:  # internals that differ (another signature, another module): fit grows every tree
        return False
    return True


def tree_probabilities(tree: Any, queries: TreeInput) -> np.ndarray:
    """One tree's class probabilities at ``queries``, checked as the forest checks them."""
    probabilities: np.ndarray = tree.predict_proba(queries.values, check_input=queries.checked)
    return probabilities
