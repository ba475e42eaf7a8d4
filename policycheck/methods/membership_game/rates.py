"""Per-target rates of the membership game: AUC, TPR at low FPR, and the advantage (Carlini et al. 2022).

Scores are "higher means in"; a target is guessed in when its score is at
or above a threshold. On the test rounds of one target:

- the AUC (ties count half), with a percentile bootstrap interval over rounds;
- TPR at FPR 0.01, 0.05 and 0.1: the ROC's largest TPR whose FPR is at most
  the level (descriptive: read off the test rounds' own curve);
- the advantage TPR - FPR at the threshold that maximised it on the
  training rounds (Youden's J chosen there), with Newcombe's interval for a
  difference of two independent proportions (in-rounds and out-rounds). The
  classifier's threshold is its own decision, P(in) >= 0.5 (the coins are
  fair): a threshold fitted to its out-of-bag scores, which come from a third
  of its trees, does not carry over to the whole forest's scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from policycheck.core import stats

#: FPR levels at which TPR is reported (Carlini et al. 2022: low FPR is what matters).
FPR_LEVELS = (0.01, 0.05, 0.1)


@dataclass(frozen=True)
class TargetRates:
    attack: str
    auc: float
    auc_interval: tuple[float, float]
    tpr_at_fpr: dict[float, float]
    advantage: float
    advantage_interval: tuple[float, float]
    threshold: float
    tpr: float
    fpr: float
    training_advantage: float  # TPR - FPR at the threshold on the training rounds (what picks the worst target)
    positives: int  # test rounds with the target in
    negatives: int  # test rounds with the target out
    roc: tuple[np.ndarray, np.ndarray]


def best_threshold(scores: np.ndarray, labels: np.ndarray) -> float:
    """The threshold maximising TPR - FPR of "in when score >= t" (the smallest such t on ties)."""
    pos, neg = scores[labels == 1], scores[labels == 0]
    candidates = np.unique(scores)
    if not pos.size or not neg.size or not candidates.size:
        return float("inf")
    tpr = (pos[None, :] >= candidates[:, None]).mean(axis=1)
    fpr = (neg[None, :] >= candidates[:, None]).mean(axis=1)
    return float(candidates[int(np.argmax(tpr - fpr))])


def tpr_at_fpr(fpr: np.ndarray, tpr: np.ndarray, levels: Sequence[float] = FPR_LEVELS) -> dict[float, float]:
    """The largest TPR of a ROC curve whose FPR is at most each level."""
    return {level: float(tpr[fpr <= level + 1e-12].max()) for level in levels}


def target_rates(
    attack: str,
    scores: np.ndarray,
    labels: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    confidence: float,
    rng: np.random.Generator,
    resamples: int = 200,
) -> TargetRates:
    """One target's figures for one attack: threshold from ``train``, every rate on ``test``."""
    threshold = 0.5 if attack == "classifier" else best_threshold(scores[train], labels[train])
    trained = scores[train] >= threshold
    y_train = labels[train]
    training_advantage = (float(trained[y_train == 1].mean()) if (y_train == 1).any() else 0.0) - (
        float(trained[y_train == 0].mean()) if (y_train == 0).any() else 0.0
    )
    s, y = scores[test], labels[test]
    pos, neg = s[y == 1], s[y == 0]
    tp, fp = int((pos >= threshold).sum()), int((neg >= threshold).sum())
    tpr = tp / pos.size if pos.size else 0.0
    fpr = fp / neg.size if neg.size else 0.0
    if pos.size and neg.size:
        advantage_interval = stats.newcombe_difference(tp, pos.size, fp, neg.size, confidence)
    else:
        advantage_interval = (-1.0, 1.0)
    auc = stats.roc_auc(pos, neg)

    def auc_of(idx: np.ndarray) -> float:
        sy = y[idx]
        return stats.roc_auc(s[idx][sy == 1], s[idx][sy == 0])

    auc_interval = stats.bootstrap_interval(auc_of, len(y), rng, resamples=resamples, confidence=confidence)
    roc = stats.roc_curve(pos, neg)
    return TargetRates(
        attack=attack,
        auc=auc,
        auc_interval=auc_interval,
        tpr_at_fpr=tpr_at_fpr(*roc),
        advantage=tpr - fpr,
        advantage_interval=(max(-1.0, advantage_interval[0]), min(1.0, advantage_interval[1])),
        threshold=threshold,
        tpr=tpr,
        fpr=fpr,
        training_advantage=training_advantage,
        positives=int(pos.size),
        negatives=int(neg.size),
        roc=roc,
    )


def training_auc(scores: np.ndarray, labels: np.ndarray, train: np.ndarray) -> float:
    """AUC of an attack on the training rounds (its scores there are out-of-bag for the classifier)."""
    s, y = scores[train], labels[train]
    auc = stats.roc_auc(s[y == 1], s[y == 0])
    return 0.5 if np.isnan(auc) else auc
