"""Small statistical helpers shared by every metric family.

Confidence intervals are exact (Clopper-Pearson) for proportions, because a
policy threshold on a risk must not be passed on the strength of a normal
approximation at small counts.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as _st


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact two-sided binomial interval for ``successes / trials``.

    Returns ``(0, 1)`` when there are no trials: nothing was measured.
    """
    if trials <= 0:
        return (0.0, 1.0)
    alpha = 1.0 - confidence
    k, n = int(successes), int(trials)
    lower = 0.0 if k == 0 else float(_st.beta.ppf(alpha / 2, k, n - k + 1))
    upper = 1.0 if k == n else float(_st.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return (lower, upper)


def roc_auc(scores_positive: np.ndarray, scores_negative: np.ndarray) -> float:
    """Area under the ROC curve: P(score_pos > score_neg) + 0.5 P(tie).

    Computed from ranks (Mann-Whitney U), so ties are handled exactly.
    """
    pos = np.asarray(scores_positive, dtype=float)
    neg = np.asarray(scores_negative, dtype=float)
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    ranks = _st.rankdata(np.concatenate([pos, neg]))
    u = ranks[: pos.size].sum() - pos.size * (pos.size + 1) / 2
    return float(u / (pos.size * neg.size))


def roc_curve(scores_positive: np.ndarray, scores_negative: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """False- and true-positive rates at every distinct score threshold.

    A record is called positive when its score is >= the threshold; the curve
    runs from (0, 0) to (1, 1).
    """
    pos = np.asarray(scores_positive, dtype=float)
    neg = np.asarray(scores_negative, dtype=float)
    thresholds = np.unique(np.concatenate([pos, neg]))[::-1]
    pos_sorted, neg_sorted = np.sort(pos), np.sort(neg)
    tpr = (pos.size - np.searchsorted(pos_sorted, thresholds, side="left")) / max(pos.size, 1)
    fpr = (neg.size - np.searchsorted(neg_sorted, thresholds, side="left")) / max(neg.size, 1)
    return np.concatenate([[0.0], fpr, [1.0]]), np.concatenate([[0.0], tpr, [1.0]])


def bootstrap_interval(
    statistic,
    n: int,
    rng: np.random.Generator,
    resamples: int = 200,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(indices)`` over ``n`` items."""
    values = np.array([statistic(rng.integers(0, n, n)) for _ in range(resamples)], dtype=float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return (float("nan"), float("nan"))
    alpha = 1.0 - confidence
    return (float(np.quantile(values, alpha / 2)), float(np.quantile(values, 1 - alpha / 2)))
