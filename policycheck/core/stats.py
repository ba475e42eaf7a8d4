"""Small statistical helpers shared by every metric family.

Confidence intervals are exact (Clopper-Pearson) for proportions, because a
policy threshold on a risk must not be passed on the strength of a normal
approximation at small counts. Differences and ratios of two proportions use
score intervals (Newcombe's hybrid score for a difference, the Koopman score
interval for a ratio), which keep their coverage at the counts real releases
have. A rule that takes the worst of k alternatives (attacks, synthetic sets)
computes each alternative's interval at :func:`bonferroni` level and reports
:func:`worst_interval`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
from scipy import special as _sp


def beta_quantile(q: float, a: float, b: float) -> float:
    """The ``q`` quantile of the Beta(``a``, ``b``) distribution.

    ``scipy.special.betaincinv``: the inverse regularised incomplete beta
    function that ``scipy.stats.beta.ppf`` evaluates, to the bit (checked on
    2.6 million whole and fractional arguments; tests/core/test_stats.py checks a grid), without
    importing ``scipy.stats`` (about a second, every check).
    """
    return float(_sp.betaincinv(a, b, q))


def normal_quantile(q: float) -> float:
    """The ``q`` quantile of the standard normal distribution (``scipy.stats.norm.ppf``'s ``ndtri``)."""
    return float(_sp.ndtri(q))


def binomial_upper_tail(successes: int, trials: int, probability: float) -> float:
    """``P(X >= successes)`` for ``X ~ Binomial(trials, probability)``: a one-sided binomial test's p-value."""
    if successes <= 0:
        return 1.0
    if successes > trials:
        return 0.0
    return float(_sp.bdtrc(successes - 1, trials, probability))


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact two-sided binomial interval for ``successes / trials``.

    Returns ``(0, 1)`` when there are no trials: nothing was measured.
    """
    if trials <= 0:
        return (0.0, 1.0)
    alpha = 1.0 - confidence
    k, n = int(successes), int(trials)
    lower = 0.0 if k == 0 else beta_quantile(alpha / 2, k, n - k + 1)
    upper = 1.0 if k == n else beta_quantile(1 - alpha / 2, k + 1, n - k)
    return (lower, upper)


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``values``, ties given the mean of their ranks (``scipy.stats.rankdata``'s default).

    Every rank is a whole or half number, exact in floating point, so these are
    ``rankdata``'s values to the bit (without importing ``scipy.stats``).
    """
    x = np.asarray(values).ravel()
    order = np.argsort(x, kind="mergesort")
    inverse = np.empty(x.size, dtype=np.intp)
    inverse[order] = np.arange(x.size, dtype=np.intp)
    ordered = x[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]]
    group = first.cumsum()[inverse]
    bounds = np.r_[np.flatnonzero(first), x.size]
    return np.asarray(0.5 * (bounds[group] + bounds[group - 1] + 1), dtype=np.float64)


def roc_auc(scores_positive: np.ndarray, scores_negative: np.ndarray) -> float:
    """Area under the ROC curve: P(score_pos > score_neg) + 0.5 P(tie).

    Computed from ranks (Mann-Whitney U), so ties are handled exactly.
    """
    pos = np.asarray(scores_positive, dtype=float)
    neg = np.asarray(scores_negative, dtype=float)
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    ranks = average_ranks(np.concatenate([pos, neg]))
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


def cluster_draws(of_item: np.ndarray, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """How often each item is drawn when its cluster is: as many clusters as there are, drawn with
    replacement (a cluster bootstrap's resample, one count per item). ``of_item``: each item's
    cluster numbered from 0 with none skipped (``np.unique``'s inverse), numbered once for all resamples."""
    n = int(of_item.max()) + 1 if of_item.size else 0
    drawn: npt.NDArray[np.int64] = np.bincount(rng.integers(0, n, n), minlength=n)[of_item]
    return drawn


def bootstrap_interval(
    statistic: Callable[[npt.NDArray[np.int64]], float],
    n: int,
    rng: np.random.Generator,
    resamples: int = 200,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(indices)`` over ``n`` items."""
    return _percentile_interval([statistic(rng.integers(0, n, n)) for _ in range(resamples)], confidence)


def _percentile_interval(resampled: Sequence[float], confidence: float) -> tuple[float, float]:
    """The central ``confidence`` interval of the finite resampled values (NaN, NaN if none is finite)."""
    values = np.array(resampled, dtype=float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return (float("nan"), float("nan"))
    alpha = 1.0 - confidence
    return (float(np.quantile(values, alpha / 2)), float(np.quantile(values, 1 - alpha / 2)))


def bootstrap_difference_interval(
    statistic: Callable[[npt.NDArray[np.int64]], float],
    n: int,
    control: Callable[[npt.NDArray[np.int64]], float],
    n_control: int,
    rng: np.random.Generator,
    resamples: int = 200,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic - control`` over two independent samples.

    Each resample draws both samples anew (``n`` and ``n_control`` items, in
    that order), as their records are independent (training and holdout);
    an empty sample is called with no indices every time.
    """

    def draw(size: int) -> npt.NDArray[np.int64]:
        return rng.integers(0, size, size) if size else np.empty(0, dtype=np.int64)

    return _percentile_interval([statistic(draw(n)) - control(draw(n_control)) for _ in range(resamples)], confidence)


def bonferroni(confidence: float, k: int) -> float:
    """Level of each of ``k`` intervals so that all hold together at ``confidence``.

    ``1 - (1 - confidence) / k`` (Bonferroni): a rule that reports the worst
    of ``k`` alternatives then errs at most ``1 - confidence`` of the time,
    whichever alternative turns out worst.
    """
    if k < 1:
        raise ValueError(f"the number of alternatives must be at least 1, got {k}")
    return 1.0 - (1.0 - confidence) / k


def worst_interval(intervals: Sequence[tuple[float, float]], worst: str = "max") -> tuple[float, float]:
    """Interval of the largest (``worst="max"``) or smallest (``"min"``) of several quantities.

    When every interval holds (jointly, e.g. each at the :func:`bonferroni`
    level), the largest true value lies between the largest lower end and the
    largest upper end; likewise for the smallest.
    """
    pick = max if worst == "max" else min
    return (float(pick(lo for lo, _ in intervals)), float(pick(hi for _, hi in intervals)))


def wilson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``successes / trials`` (no continuity correction)."""
    if trials <= 0:
        return (0.0, 1.0)
    z = normal_quantile(1 - (1 - confidence) / 2)
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z / (1 + z * z / trials) * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return (max(0.0, centre - half), min(1.0, centre + half))


def newcombe_difference(
    successes1: int, trials1: int, successes2: int, trials2: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Interval for ``p1 - p2`` of two independent proportions (Newcombe 1998, method 10).

    The hybrid score interval: the Wilson intervals of each proportion,
    combined by the square-root rule, e.g. 56/70 - 48/80 gives
    (0.0524, 0.3339) at 95 % (Newcombe, Stat. Med. 17:873, Table II).
    """
    p1, p2 = successes1 / trials1, successes2 / trials2
    l1, u1 = wilson(successes1, trials1, confidence)
    l2, u2 = wilson(successes2, trials2, confidence)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def ratio_score_interval(
    successes1: float, trials1: float, successes2: float, trials2: float, confidence: float = 0.95
) -> tuple[float, float]:
    """Score interval for the ratio ``p1 / p2`` of two independent proportions (Koopman 1984).

    The ratios ``phi`` whose score statistic
    ``(p1 - phi p2) / sqrt(q1 (1 - q1) / n1 + phi^2 q2 (1 - q2) / n2)``, with
    ``q`` the maximum-likelihood proportions under ``p1 = phi p2``
    (Miettinen and Nurminen 1985, without their ``N / (N - 1)`` factor), stays
    within the normal quantile; e.g. 36/40 against 16/80 gives (2.94, 7.15)
    at 95 % (Koopman, Biometrics 40:513). The upper end is ``inf`` when ``successes2``
    is 0, the lower end 0 when ``successes1`` is 0.
    """
    # Fractional counts (effective trials of clustered records) are taken as they are.
    x1, n1, x2, n2 = float(successes1), float(trials1), float(successes2), float(trials2)
    if n1 <= 0 or n2 <= 0:
        return (0.0, math.inf)
    z = normal_quantile(1 - (1 - confidence) / 2)
    p1, p2 = x1 / n1, x2 / n2

    def score(log_phi: float) -> float:
        phi = math.exp(log_phi)
        a = phi * (n1 + n2)
        b = -(phi * n1 + x1 + n2 + phi * x2)
        c = x1 + x2
        # The smaller root of a q^2 + b q + c, in the form without cancellation.
        root = -b + math.sqrt(max(b * b - 4 * a * c, 0.0))
        q2 = min(2 * c / root, 1.0) if root > 0 else 0.0
        q1 = min(phi * q2, 1.0)
        var = q1 * (1 - q1) / n1 + phi * phi * q2 * (1 - q2) / n2
        diff = p1 - phi * p2
        if var <= 0:
            return math.copysign(math.inf, diff) if diff else 0.0
        return diff / math.sqrt(var)

    span = (-40.0, 40.0)

    def end(target: float) -> float:
        # score() falls as phi grows; find where it crosses the target quantile.
        lo, hi = span
        if score(lo) - target < 0:
            return lo
        if score(hi) - target > 0:
            return hi
        from scipy.optimize import brentq

        return float(brentq(lambda t: score(t) - target, lo, hi, xtol=1e-12))

    lower = 0.0 if x1 == 0 else math.exp(end(z))
    upper = math.inf if x2 == 0 else math.exp(end(-z))
    return (lower, upper)


def paired_difference(
    discordant_first: float,
    discordant_second: float,
    trials: int,
    confidence: float = 0.95,
    effective_discordant: float | None = None,
) -> tuple[float, float]:
    """Interval for ``p1 - p2`` of two proportions measured on the same ``trials`` items.

    Only the discordant items (counted by the first measure only, or by the
    second only) tell the proportions apart: ``p1 - p2 = delta (2 theta - 1)``,
    with ``delta`` the share of items that are discordant and ``theta`` the
    first measure's share among them. Given their number ``d``, ``theta``'s
    exact Clopper-Pearson interval is McNemar's exact conditional one; ``delta``
    has its own over ``trials``, since ``d`` is a count of this sample too (with
    ``d`` taken as fixed the interval could never pass ``d / trials``: none
    discordant of 800 would give [0, 0]). Each is taken at half the error
    (Bonferroni), and the difference's interval is its range over both: at
    least ``confidence`` coverage. With none discordant ``theta`` is unknown
    and the interval is ``delta``'s upper end either way. When the discordant
    items come in clusters, ``effective_discordant`` (see
    :func:`effective_trials`) replaces ``d`` in ``theta``'s interval.
    """
    d = float(discordant_first) + float(discordant_second)
    if trials <= 0:
        return (0.0, 0.0)
    each = 1.0 - (1.0 - confidence) / 2
    delta_lo, delta_hi = clopper_pearson_share(d / trials, trials, each)
    if d <= 0:
        return (-delta_hi, delta_hi)
    size = d if effective_discordant is None else effective_discordant
    theta_lo, theta_hi = clopper_pearson_share(discordant_first / d, size, each)
    # delta (2 theta - 1) is largest at theta's upper end, and there at delta's upper end when positive.
    top, bottom = 2 * theta_hi - 1, 2 * theta_lo - 1
    return (
        (delta_hi if bottom < 0 else delta_lo) * bottom,
        (delta_hi if top > 0 else delta_lo) * top,
    )


def effective_trials(
    hits: np.ndarray, trials: np.ndarray, cluster: np.ndarray, other: np.ndarray | None = None
) -> float:
    """How many independent trials clustered ones are worth for the share ``sum(hits) / sum(trials)``.

    Trials in one cluster share their fate (e.g. synthetic records whose
    nearest training or holdout record is the same person). The share's
    variance is estimated from cluster totals (the linearised variance of a
    ratio estimator, ``sum_k (h_k - p t_k)^2 / (sum t)^2``) and the effective
    number of trials is ``p (1 - p) / variance`` (Kish's design effect),
    capped at the number of trials; with every cluster a single trial it is
    exactly that number. When every trial is a hit (or none is) the variance
    is 0 and each cluster counts as one trial.

    ``other``: a second clustering that cuts across the first (records linked
    to the same synthetic records, and records of one person). The variance
    is then Cameron, Gelbach and Miller's (2011) two-way one, ``V_first +
    V_other - V_both`` with ``V_both`` over the trials sharing both labels,
    and never below either one-way variance (with every trial a hit, or none,
    the fewer clusters of the two count). Joining the two into connected
    clusters instead percolates: on Ecdat's Males panel eight years of each
    man chain the linked sets into one cluster holding most records.
    """
    hits = np.asarray(hits, dtype=float)
    trials = np.asarray(trials, dtype=float)
    n = float(trials.sum())
    if n <= 0:
        return 0.0
    p = float(hits.sum() / n)
    first = _cluster_variance(hits, trials, cluster, p, n)
    if other is None:
        variance, clusters = first
    else:
        second = _cluster_variance(hits, trials, other, p, n)
        both = _cluster_variance(hits, trials, np.column_stack([np.asarray(cluster), np.asarray(other)]), p, n)
        variance = max(first[0] + second[0] - both[0], first[0], second[0])
        clusters = min(first[1], second[1])
    if p in (0.0, 1.0) or variance <= 0:
        return float(min(n, clusters))
    return float(min(n, p * (1 - p) / variance))


def _cluster_variance(
    hits: np.ndarray, trials: np.ndarray, cluster: np.ndarray, p: float, n: float
) -> tuple[float, int]:
    """The share's variance from the totals of ``cluster``'s clusters (rows of a 2-D label: one cluster per
    distinct row), and how many clusters hold a trial."""
    inverse = cluster_numbers(cluster)
    h = np.bincount(inverse, hits)
    t = np.bincount(inverse, trials)
    used = t > 0
    h, t = h[used], t[used]
    return float(np.sum((h - p * t) ** 2) / n**2), int(t.size)


def cluster_numbers(labels: npt.ArrayLike) -> np.ndarray:
    """Each item's cluster as a number, clusters numbered in their labels' sorted order (rows of a 2-D label).

    ``np.unique``'s inverse; labels that are already small non-negative integers (record or person
    numbers, below eight times their count) are their own numbers, the unused ones between them left as
    empty clusters, at a bincount's cost rather than a sort's.
    """
    labels = np.asarray(labels)
    if (
        labels.ndim == 1
        and labels.dtype.kind in "iu"
        and labels.size
        and 0 <= labels.min() <= labels.max() < 8 * labels.size
    ):
        return labels.astype(np.intp, copy=False)
    _, inverse = np.unique(labels, return_inverse=True, axis=0 if labels.ndim > 1 else None)
    return inverse.ravel()


def distinct_count(labels: npt.ArrayLike) -> int:
    """How many distinct labels (1-D) there are: ``np.unique(labels).size``, without its sort where it can."""
    numbers = cluster_numbers(labels)
    return int(np.count_nonzero(np.bincount(numbers))) if numbers.size else 0


def stratified_effective_trials(
    hits: np.ndarray, trials: np.ndarray, cluster: np.ndarray, stratum: np.ndarray
) -> float:
    """Effective trials of the share ``sum(hits) / sum(trials)`` when the units were drawn in fixed strata,
    clustered within them (Kish's design effect, the stratified form).

    A balanced adversary set draws a fixed number of members and of
    non-members: its precision at a threshold is the share of members among
    the guessed records, and which stratum a person is in is no source of
    variance. Each unit's linearised residual ``z = hit - p * trial`` is
    summed by cluster and centred on its stratum's cluster mean; the design
    effect is that variance over the same with every unit its own cluster,
    and the effective trials ``sum(trials) / deff``, capped at
    ``sum(trials)``. With every cluster a single unit it is exactly
    ``sum(trials)``; where either variance is 0 (every trial a hit, or none)
    each cluster holding a trial counts as one. Units with no trial (records
    not guessed) still count in their stratum's mean.
    """
    hits = np.asarray(hits, dtype=float)
    trials = np.asarray(trials, dtype=float)
    n = float(trials.sum())
    if n <= 0:
        return 0.0
    residual = hits - float(hits.sum() / n) * trials
    strata = np.asarray(stratum)
    clusters = np.asarray(cluster)

    def centred_sum_of_squares(totals: np.ndarray, of_stratum: np.ndarray) -> float:
        means = np.bincount(of_stratum, totals) / np.bincount(of_stratum)
        return float(np.sum((totals - means[of_stratum]) ** 2))

    _, stratum_of = np.unique(strata, return_inverse=True)
    by_unit = centred_sum_of_squares(residual, stratum_of)
    _, cluster_of = np.unique(np.column_stack([strata, clusters]), axis=0, return_inverse=True)
    cluster_of = cluster_of.ravel()
    totals = np.bincount(cluster_of, residual)
    cluster_stratum = np.zeros(totals.size, dtype=np.int64)
    cluster_stratum[cluster_of] = stratum_of
    by_cluster = centred_sum_of_squares(totals, cluster_stratum)
    if by_unit <= 0 or by_cluster <= 0:
        return float(min(n, np.unique(cluster_of[trials > 0]).size))
    return float(min(n, n * by_unit / by_cluster))


def clopper_pearson_share(share: float, trials: float, confidence: float = 0.95) -> tuple[float, float]:
    """Clopper-Pearson interval of a share observed over a (possibly fractional) effective number of trials.

    With whole numbers it equals :func:`clopper_pearson`; with an effective
    sample size from clustered trials it is Korn and Graubard's (1998)
    interval: the exact binomial interval with ``share * trials`` successes.
    """
    if trials <= 0:
        return (0.0, 1.0)
    alpha = 1.0 - confidence
    x = share * trials
    lower = 0.0 if x <= 0 else beta_quantile(alpha / 2, x, trials - x + 1)
    upper = 1.0 if x >= trials else beta_quantile(1 - alpha / 2, x + 1, trials - x)
    return (lower, upper)
