"""The attacks of the membership game: two that need no training, and a shadow-model classifier.

Rounds are split once, by a seeded draw, into a training half and a test
half. The classifier (a scikit-learn random forest on the target's feature
row and the naive summaries; Stadler et al. 2022, TAPAS) is fitted on the
training half only; its scores on the training half are out-of-bag (each
round scored by the trees that did not see it). The attacks that need no
training score a round by the closest synthetic record's distance (closer
is "in"), by the synthetic density at the target (denser is "in"), and by the
share of synthetic records holding the target's rarest value (more is "in":
the leak of synthesizers that keep each column's values, Annamalai et al. 2024).

Every choice made from data (which attack a target's figures report, the
threshold of its advantage, the target and threshold of the epsilon bound)
is made on the training half; the reported figures use the test half only,
so they are not biased upward by the choice (membership-game guide).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from policycheck.methods.membership_game.feature_rows import CLOSEST, DENSITY, RAREST

#: What the attacks load where they run, for :meth:`Executor.prepare`: this module (which needs
#: neither numba nor the compiled features) and scikit-learn's trees (0.75-0.95 CPU-s). Not the
#: rounds' compiled features (0.4 CPU-s with numba's import): the set-up loads them here, and the
#: rounds' map is ``ready_here``, so a local pool forks their workers from this process, which has
#: them (Dask workers load them on their first round).
WORKER_MODULES = (__name__, "sklearn.tree")
#: Attacks in order of preference when their training-half AUCs tie.
ATTACKS = ("closest_distance", "density", "rarest_value", "classifier")
ATTACK_WORDS = {
    "closest_distance": "closest synthetic record (closer means in)",
    "density": "synthetic density at the target (denser means in)",
    "rarest_value": "share of synthetic records with the target's rarest value (more means in)",
    "classifier": "shadow-model random forest on the target's features and the naive summaries",
}


@dataclass(frozen=True)
class ClassifierConfig:
    n_estimators: int = 100
    min_samples_leaf: int = 2


def split_rounds(rounds: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A seeded training half and test half of the rounds (sorted)."""
    order = rng.permutation(rounds)
    half = rounds // 2
    return np.sort(order[:half]), np.sort(order[half:])


def attack_scores(item: tuple[Any, ...]) -> dict[str, np.ndarray]:
    """Every attack's score of every round for one target (top-level, so process pools can pickle it).

    ``item`` is ``(features, naive, coins, train, config, seed)``: the target's
    ``(R, F)`` feature rows, the ``(R, N)`` naive summaries, its ``(R,)``
    coins, the training rounds, a :class:`ClassifierConfig` and a seed.
    Returns per attack an ``(R,)`` score, higher meaning "in": held-out
    scores on the test rounds, out-of-bag scores on the training rounds.
    """
    features, naive, coins, train, config, seed = item
    scores = {
        "closest_distance": -features[:, CLOSEST],
        "density": features[:, DENSITY].copy(),
        "rarest_value": features[:, RAREST].copy(),
    }
    x = np.hstack([features, naive])
    y = coins.astype(int)
    classifier = np.full(len(y), 0.5)
    if np.unique(y[train]).size == 2 and train.size >= 4:
        seed = int(np.random.default_rng(seed).integers(2**31 - 1))
        test = np.setdiff1d(np.arange(len(y)), train)
        out_of_bag, held_out = forest_scores(x[train], y[train], x[test], config, seed)
        classifier[train], classifier[test] = out_of_bag, held_out
    scores["classifier"] = classifier
    return scores


def forest_scores(
    x: np.ndarray, y: np.ndarray, queries: np.ndarray, config: ClassifierConfig, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``RandomForestClassifier(..., oob_score=True)`` on ``(x, y)``: P(in) out of bag and at ``queries``.

    The forest's ``oob_decision_function_[:, 1]`` and ``predict_proba(queries)[:, 1]``,
    grown tree by tree (:mod:`policycheck.methods.bagged_trees`): the same
    numbers, bit for bit, but where no tree left a round out. The forest
    scores such a round 0 ("out"); it has no out-of-bag score, so here it
    scores 0.5, as an attack without training scores a round it cannot
    tell (with 100 trees, a chance of about 0.632^100 per round).
    """
    from policycheck.methods.bagged_trees import bagged_trees, tree_input, tree_probabilities

    rounds, at = tree_input(x), tree_input(queries)
    classes = np.unique(y).size
    out_of_bag = np.zeros((len(x), classes))
    trees_left_out = np.zeros(len(x), dtype=np.int64)
    held_out = np.zeros((len(queries), classes))
    for tree, drawn in bagged_trees(rounds, y, config.n_estimators, seed, min_samples_leaf=config.min_samples_leaf):
        left_out = np.flatnonzero(drawn == 0)
        out_of_bag[left_out] += tree_probabilities(tree, rounds.rows(left_out))
        trees_left_out[left_out] += 1
        if len(queries):
            held_out += tree_probabilities(tree, at)
    scored = trees_left_out > 0
    oob = np.full(len(x), 0.5)
    oob[scored] = out_of_bag[scored, 1] / trees_left_out[scored]
    held_out /= config.n_estimators
    return oob, held_out[:, 1]
