"""Measured lower bounds on epsilon from attack outcomes.

If a mechanism is (epsilon, delta)-DP, every test that tries to tell two
neighbouring inputs apart has ``TPR <= e^epsilon FPR + delta`` (and, swapping
the roles, ``1 - FPR <= e^epsilon (1 - TPR) + delta``); in the balanced one-bit
game (the secret bit is a fair coin) the attacker's accuracy is at most
``(e^epsilon + delta) / (e^epsilon + 1)``. Measured rates therefore bound
epsilon from below (Jagielski, Ullman and Oprea 2020; Nasr et al. 2021):

- ``tpr_fpr``: ``epsilon_lb = ln((TPR_lower - delta) / FPR_upper)``, with
  Clopper-Pearson bounds each at one-sided level ``(1 - confidence) / 2``, so
  both hold together with probability ``confidence`` (union bound);
- ``one_bit``: ``epsilon_lb = ln((acc_lower - delta) / (1 - acc_lower))`` with
  the one-sided Clopper-Pearson lower bound on the accuracy at ``confidence``.

A bound is only sound if the test was fixed before looking at the data it is
computed on. :func:`membership_bound` therefore picks its distance threshold
(and direction) on a seeded half of the members and non-members and computes
the bound on the other half. Counting records of one synthetic set as trials
assumes records were assigned to training or holdout at random; with that
assumption a single training run suffices (Steinke, Nasr and Jagielski 2023).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from policycheck.core.stats import clopper_pearson

#: Most candidate thresholds tried on the selection half (quantiles of the distances).
MAX_CANDIDATES = 256


@dataclass(frozen=True)
class EpsilonBound:
    """A measured lower confidence bound on epsilon and the evidence behind it."""

    #: Lower confidence bound on epsilon (0 when the attack shows nothing).
    epsilon_lower: float
    #: The same formula on the point estimates of the rates (may be inf).
    epsilon_estimate: float
    #: Upper end: the formula on the other ends of the rates' intervals (may be inf).
    epsilon_upper: float
    confidence: float
    #: "tpr_fpr" or "one_bit".
    bound: str
    #: Counts and rates with their intervals, JSON-ready.
    evidence: dict[str, Any] = field(default_factory=dict)


def _log_ratio(numerator: float, denominator: float) -> float:
    """``max(0, ln(numerator / denominator))`` with 0/0 as 0 and x/0 as inf."""
    if numerator <= 0:
        return 0.0
    if denominator <= 0:
        return math.inf
    return max(0.0, math.log(numerator / denominator))


def tpr_fpr_bound(
    true_positives: int,
    positives: int,
    false_positives: int,
    negatives: int,
    confidence: float = 0.95,
    delta: float = 0.0,
) -> EpsilonBound:
    """Lower bound ``ln((TPR_lower - delta) / FPR_upper)`` on epsilon from one test's outcomes.

    Parameters
    ----------
    true_positives, positives : int
        Trials of the "in" world that the test flagged, and all of them.
    false_positives, negatives : int
        Trials of the "out" world that the test flagged, and all of them.
    confidence : float
        Joint confidence of the bound: each rate's Clopper-Pearson bound is
        one-sided at ``(1 - confidence) / 2``.
    delta : float
        The delta of the claim tested.
    """
    tpr_lo, tpr_hi = clopper_pearson(true_positives, positives, confidence)
    fpr_lo, fpr_hi = clopper_pearson(false_positives, negatives, confidence)
    tpr = true_positives / positives if positives else 0.0
    fpr = false_positives / negatives if negatives else 1.0
    return EpsilonBound(
        epsilon_lower=_log_ratio(tpr_lo - delta, fpr_hi),
        epsilon_estimate=_log_ratio(tpr - delta, fpr),
        epsilon_upper=_log_ratio(tpr_hi - delta, fpr_lo),
        confidence=confidence,
        bound="tpr_fpr",
        evidence={
            "true_positives": int(true_positives),
            "positives": int(positives),
            "false_positives": int(false_positives),
            "negatives": int(negatives),
            "tpr": tpr,
            "tpr_interval": [tpr_lo, tpr_hi],
            "fpr": fpr,
            "fpr_interval": [fpr_lo, fpr_hi],
            "delta": delta,
        },
    )


def one_bit_bound(correct: int, trials: int, confidence: float = 0.95, delta: float = 0.0) -> EpsilonBound:
    """Lower bound ``ln((acc_lower - delta) / (1 - acc_lower))`` from the balanced one-bit game.

    ``acc_lower`` is the one-sided Clopper-Pearson lower bound on the
    attacker's accuracy at ``confidence``; the secret bit must be a fair coin.
    """
    # A two-sided interval at 2c - 1 has one-sided tails of 1 - c.
    acc_lo, acc_hi = clopper_pearson(correct, trials, 2 * confidence - 1)
    acc = correct / trials if trials else 0.0
    return EpsilonBound(
        epsilon_lower=_log_ratio(acc_lo - delta, 1 - acc_lo),
        epsilon_estimate=_log_ratio(acc - delta, 1 - acc),
        epsilon_upper=_log_ratio(acc_hi - delta, 1 - acc_hi),
        confidence=confidence,
        bound="one_bit",
        evidence={
            "correct": int(correct),
            "trials": int(trials),
            "accuracy": acc,
            "accuracy_interval": [acc_lo, acc_hi],
            "delta": delta,
        },
    )


def _split(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A seeded half (selection) and the rest (evaluation) of ``range(n)``."""
    order = rng.permutation(n)
    return order[: n // 2], order[n // 2 :]


def _threshold_counts(member: np.ndarray, nonmember: np.ndarray, t: float, direction: str) -> tuple[int, int]:
    """(flagged members, flagged non-members) of the test ``d <= t`` ("close") or ``d > t`` ("far")."""
    if direction == "close":
        return int((member <= t).sum()), int((nonmember <= t).sum())
    return int((nonmember > t).sum()), int((member > t).sum())


def membership_bound(
    member_distances: np.ndarray,
    nonmember_distances: np.ndarray,
    rng: np.random.Generator,
    confidence: float = 0.95,
    delta: float = 0.0,
) -> EpsilonBound:
    """Lower bound on epsilon from a distance-threshold membership test, selected and bounded on disjoint halves.

    The test is "member when the distance to the closest synthetic record is
    at most t" (direction ``close``) or its mirror, "non-member when it is
    above t" (direction ``far``, bounding ``ln((TNR - delta) / FNR)``). The
    threshold and direction that maximise the bound on a seeded half of each
    group are then applied, unchanged, to the other half, whose
    :func:`tpr_fpr_bound` is returned.

    Parameters
    ----------
    member_distances, nonmember_distances : ndarray
        Distance of each training (member) and holdout (non-member) record to
        its closest synthetic record.
    rng : numpy.random.Generator
        Draws the halves.
    confidence, delta : float
        As in :func:`tpr_fpr_bound`.
    """
    member = np.asarray(member_distances, dtype=float)
    nonmember = np.asarray(nonmember_distances, dtype=float)
    if member.size < 2 or nonmember.size < 2:
        raise ValueError("a membership bound needs at least two members and two non-members")
    m_sel, m_eval = _split(member.size, rng)
    n_sel, n_eval = _split(nonmember.size, rng)
    return selected_bound(member[m_sel], nonmember[n_sel], member[m_eval], nonmember[n_eval], confidence, delta)


def selected_bound(
    selection_members: np.ndarray,
    selection_nonmembers: np.ndarray,
    members: np.ndarray,
    nonmembers: np.ndarray,
    confidence: float = 0.95,
    delta: float = 0.0,
) -> EpsilonBound:
    """The distance-threshold test that maximises the bound on the selection trials, bounded on the others.

    A distance is "lower means member" (pass a membership score negated).
    The threshold and direction (see :func:`membership_bound`) are chosen on
    ``selection_members`` and ``selection_nonmembers`` alone and applied,
    unchanged, to ``members`` and ``nonmembers``, whose :func:`tpr_fpr_bound`
    is returned; the two sets of trials must be independent (the membership
    game's training and test rounds are).
    """
    sel_m = np.asarray(selection_members, dtype=float)
    sel_n = np.asarray(selection_nonmembers, dtype=float)
    ev_m = np.asarray(members, dtype=float)
    ev_n = np.asarray(nonmembers, dtype=float)
    pooled = np.unique(np.concatenate([sel_m, sel_n]))
    if pooled.size > MAX_CANDIDATES:
        pooled = np.unique(np.quantile(pooled, np.linspace(0, 1, MAX_CANDIDATES), method="lower"))
    if pooled.size == 0:
        raise ValueError("a selected bound needs selection trials")
    best: tuple[float, float, float, str] | None = None
    for t in pooled:
        for direction in ("close", "far"):
            tp, fp = _threshold_counts(sel_m, sel_n, float(t), direction)
            pos, neg = (sel_m.size, sel_n.size) if direction == "close" else (sel_n.size, sel_m.size)
            b = tpr_fpr_bound(tp, pos, fp, neg, confidence, delta)
            key = (b.epsilon_lower, min(b.epsilon_estimate, 1e300))
            if best is None or key > best[:2]:
                best = (*key, float(t), direction)
    assert best is not None  # pooled holds a candidate (checked above)
    _, _, threshold, direction = best
    tp, fp = _threshold_counts(ev_m, ev_n, threshold, direction)
    pos, neg = (ev_m.size, ev_n.size) if direction == "close" else (ev_n.size, ev_m.size)
    bound = tpr_fpr_bound(tp, pos, fp, neg, confidence, delta)
    test = {
        "rule": (
            f"member when distance <= {threshold:.6g}"
            if direction == "close"
            else f"non-member when distance > {threshold:.6g}"
        ),
        "threshold": threshold,
        "direction": direction,
        "selection_records": int(sel_m.size + sel_n.size),
        "evaluation_records": int(ev_m.size + ev_n.size),
    }
    return EpsilonBound(
        bound.epsilon_lower,
        bound.epsilon_estimate,
        bound.epsilon_upper,
        confidence,
        "tpr_fpr",
        {**bound.evidence, "test": test},
    )


def certifiable_epsilon(positives: int, negatives: int, confidence: float = 0.95, delta: float = 0.0) -> float:
    """The largest lower bound :func:`tpr_fpr_bound` can give on these trials: a perfect test (TPR 1, FPR 0).

    With 50 trials in each world at 95 %, about 2.6: no attack on that
    many trials can refute a larger claim (membership-game guide).
    """
    return tpr_fpr_bound(positives, positives, 0, negatives, confidence, delta).epsilon_lower


def attribute_game_bound(
    truth: np.ndarray,
    guess: np.ndarray,
    confidence: float = 0.95,
    delta: float = 0.0,
    bound: str = "one_bit",
) -> EpsilonBound:
    """Lower bound on epsilon from the attribute inference game's guesses (paper 001, sec. 4.1).

    The game's guesses are fixed before the bound is computed, so every
    repetition counts. ``one_bit`` uses the accuracy (the game draws the
    target's bit as a fair coin); ``tpr_fpr`` tests both bit values as the
    positive class, each at half the error rate (Bonferroni), and keeps the
    larger bound.
    """
    truth = np.asarray(truth).astype(int)
    guess = np.asarray(guess).astype(int)
    if truth.size == 0:
        raise ValueError("the attribute inference game has no repetitions to bound epsilon from")
    if bound == "one_bit":
        return one_bit_bound(int((truth == guess).sum()), int(truth.size), confidence, delta)
    if bound != "tpr_fpr":
        raise ValueError(f"bound must be 'one_bit' or 'tpr_fpr', got {bound!r}")
    split = 1 - (1 - confidence) / 2
    candidates = []
    for positive in (1, 0):
        pos, neg = truth == positive, truth != positive
        flagged = guess == positive
        b = tpr_fpr_bound(
            int((flagged & pos).sum()), int(pos.sum()), int((flagged & neg).sum()), int(neg.sum()), split, delta
        )
        candidates.append((b, positive))
    b, positive = max(candidates, key=lambda c: (c[0].epsilon_lower, min(c[0].epsilon_estimate, 1e300)))
    return EpsilonBound(
        b.epsilon_lower,
        b.epsilon_estimate,
        b.epsilon_upper,
        confidence,
        "tpr_fpr",
        {**b.evidence, "positive_bit": positive, "per_direction_confidence": split},
    )
