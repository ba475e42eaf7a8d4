"""Baseline attribute-inference attacks (paper 001, sec. 4.3, and the issue).

Each attack sees what the partially-informed attacker sees: the
quasi-identifiers of the attacked records and the synthetic data. Each
returns, per attacked record, a score per secret class (summing to 1) and a
guess (the best-scored class).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from policycheck.methods.distinct_rows import distinct_rows
from policycheck.methods.gower import fit_gower
from policycheck.methods.nearest_neighbours import SearchJob, closest_records
from policycheck.methods.reconstruction.encoding import fit_encoding
from policycheck.release.model import ColumnType


def class_codes(values: pd.Series, classes: np.ndarray) -> np.ndarray:
    """Index of each value in ``classes`` (-1 for a value outside them)."""
    found: np.ndarray = pd.Index(classes).get_indexer(values).astype(np.int64)
    return found


def record_keys(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """A 64-bit hash of each row's values on ``columns`` (exact-match key)."""
    found: np.ndarray = pd.util.hash_pandas_object(frame[list(columns)].astype(str), index=False).to_numpy()
    return found


def best_class(scores: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Argmax of each row; ties go to the class more common in the synthetic data."""
    found: np.ndarray = np.argmax(scores + 1e-9 * prior[None, :], axis=1)
    return found


def synthetic_prior(synthetic_secret: np.ndarray, n_classes: int) -> np.ndarray:
    """Class shares of the synthetic data (what the attacker guesses without evidence)."""
    counts = np.bincount(synthetic_secret[synthetic_secret >= 0], minlength=n_classes).astype(float)
    return counts / counts.sum() if counts.sum() else np.full(n_classes, 1.0 / n_classes)


def exact_match_majority(
    targets: pd.DataFrame,
    synthetic: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    synthetic_secret: np.ndarray,
    n_classes: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Majority secret among synthetic records with the target's exact quasi-identifiers.

    A record with no exact match gets the synthetic class shares. This is
    distance-to-closest-record with mode-collapsing restricted to distance 0
    (sec. 4.3); against a bootstrap release it beat the 3-way LP (notes, Table C).

    Returns
    -------
    scores, guess
        ``(n, K)`` class shares among the matches; ``(n,)`` best class.
    """
    prior = synthetic_prior(synthetic_secret, n_classes)
    keys_s = record_keys(synthetic, quasi_identifiers)
    keys_t = record_keys(targets, quasi_identifiers)
    valid = synthetic_secret >= 0
    uniq, inverse = np.unique(keys_s[valid], return_inverse=True)
    counts = np.zeros((uniq.size, n_classes))
    np.add.at(counts, (inverse, synthetic_secret[valid]), 1.0)
    pos = np.searchsorted(uniq, keys_t).clip(max=max(uniq.size - 1, 0))
    matched = (uniq[pos] == keys_t) if uniq.size else np.zeros(len(targets), bool)
    scores = np.tile(prior, (len(targets), 1))
    if uniq.size:
        hit = counts[pos[matched]]
        scores[matched] = hit / hit.sum(axis=1, keepdims=True)
    return scores, best_class(scores, prior)


def dcr_mode(
    targets: pd.DataFrame,
    synthetic: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    numeric: Sequence[str],
    synthetic_secret: np.ndarray,
    n_classes: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Distance to the closest synthetic record, after collapsing by mode (sec. 4.3).

    The synthetic records are grouped by quasi-identifiers and each group gets
    its most common secret (ties drawn uniformly at random), so that a partial
    record present with both secrets can still be attacked. For each candidate
    secret c the target's record ``(qi, c)`` is compared with every collapsed
    record by Gower distance over quasi-identifiers and secret, with the
    package's one Gower convention (:mod:`policycheck.methods.gower`; ranges
    over the targets and the synthetic set) and its exact nearest-record
    search; the guess is the candidate at the smallest distance (ties at
    random). Gower replaces the authors' Euclidean distance on integer
    category codes, which would give nominal categories a meaningless order.

    Returns
    -------
    scores, guess
        ``(n, K)`` relative closeness (for two classes, class 1 scores
        ``d_0 / (d_0 + d_1)``); ``(n,)`` guessed class.
    """
    qis = list(quasi_identifiers)
    keep = synthetic_secret >= 0
    synthetic, secret = synthetic.loc[keep], synthetic_secret[keep]
    # Mode-collapse: one record per distinct quasi-identifier vector.
    keys = record_keys(synthetic, qis)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    # Groups in the order the synthetic records first show them, not in the order of their hashes: the
    # tie-breaks and the nearest record's index must not depend on how a pandas version hashes text.
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    first, inverse = first[order], rank[inverse.ravel()]
    counts = np.zeros((first.size, n_classes))
    np.add.at(counts, (inverse, secret), 1.0)
    tie_break = rng.random(counts.shape)
    is_mode = counts == counts.max(axis=1, keepdims=True)
    collapsed_secret = np.argmax(np.where(is_mode, tie_break, -1.0), axis=1)
    collapsed = synthetic.iloc[first]

    types = {c: ColumnType.NUMERIC if c in set(numeric) else ColumnType.CATEGORICAL for c in qis}
    encoding = fit_gower([targets, collapsed], types, {}, qis)
    queries, reference = encoding.encode(targets), encoding.encode(collapsed)
    classes = [k for k in range(n_classes) if (collapsed_secret == k).any()]
    jobs = [SearchJob(queries, np.ascontiguousarray(reference[collapsed_secret == k])) for k in classes]
    # Per class, p * D over the quasi-identifiers to its nearest collapsed record.
    nearest = np.full((len(targets), n_classes), np.inf)
    for k, found in zip(classes, closest_records(jobs, encoding.kinds), strict=True):
        nearest[:, k] = found.distance * encoding.p
    # A candidate's distance: nearest record of its class, or of another class plus the secret mismatch.
    width = encoding.p + 1  # Gower divides by the number of columns, secret included
    distance = np.empty_like(nearest)
    for k in range(n_classes):
        others = np.delete(nearest, k, axis=1).min(axis=1) + 1.0 if n_classes > 1 else np.inf
        distance[:, k] = np.minimum(nearest[:, k], others) / width
    total = distance.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = (total - distance) / ((n_classes - 1) * total) if n_classes > 1 else np.ones_like(distance)
    scores[~np.isfinite(scores).all(axis=1)] = 1.0 / n_classes
    closest = distance == distance.min(axis=1, keepdims=True)
    guess = np.argmax(np.where(closest, rng.random(distance.shape), -1.0), axis=1)
    return scores, guess


def ml_inference(
    targets: pd.DataFrame,
    synthetic: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    numeric: Sequence[str],
    synthetic_secret: np.ndarray,
    n_classes: int,
    rng: np.random.Generator,
    n_estimators: int = 100,
) -> tuple[np.ndarray, np.ndarray]:
    """A classifier trained on the synthetic data, applied to the targets (sec. 4.3).

    Stadler et al.'s attack, with the authors' model: scikit-learn's random
    forest (fully grown trees; an overfitted generator's record-level patterns
    survive in them), grown on the synthetic set's distinct rows
    (:mod:`.forest`: the same trees). Numeric quasi-identifiers are used as
    numbers, categorical ones as codes of the targets' categories.

    Returns
    -------
    scores, guess
        ``(n, K)`` predicted class probabilities; ``(n,)`` best class.
    """
    from policycheck.methods.reconstruction.forest import forest_probabilities

    prior = synthetic_prior(synthetic_secret, n_classes)
    keep = synthetic_secret >= 0
    present = np.unique(synthetic_secret[keep])
    if present.size < 2:
        scores = np.tile(prior, (len(targets), 1))
        return scores, best_class(scores, prior)
    categorical = [c for c in quasi_identifiers if c not in numeric]
    encoding = fit_encoding(targets, categorical, [], 1)

    def features(frame: pd.DataFrame) -> np.ndarray:
        cat = encoding.codes(frame).astype(float)
        num = [pd.to_numeric(frame[c], errors="coerce").to_numpy(float) for c in quasi_identifiers if c in numeric]
        return np.column_stack([cat, *num]) if num else cat

    seed = int(rng.integers(2**31 - 1))
    # A forest's prediction depends on the row alone: identical targets are predicted once.
    rows, inverse = distinct_rows(features(targets))
    classes, proba = forest_probabilities(
        features(synthetic.loc[keep]), synthetic_secret[keep], rows, n_estimators, seed
    )
    scores = np.zeros((len(targets), n_classes))
    scores[:, classes] = proba[inverse]
    return scores, best_class(scores, prior)
