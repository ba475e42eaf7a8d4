"""The no-box density attack (DOMIAS: van Breugel, Sun, Qian, van der Schaar, AISTATS 2023).

A synthesizer that overfits puts more synthetic mass near its training
records than the population has there. DOMIAS scores a record ``x`` by the
ratio ``p_synthetic(x) / p_reference(x)`` (eq. 2): the synthetic density
relative to the density of real records the synthesizer never saw. It
needs no shadow model and no re-run of the synthesizer, only the released
set and a reference set (here every real record scored: training and holdout).

Two density estimators:

- ``kde``: scipy's ``gaussian_kde`` (Scott's bandwidth, full covariance), the
  estimator of DOMIAS's ``density_estimator="kde"``; numeric columns only;
- ``gower``: a kernel on the Gower distance of
  :mod:`policycheck.methods.gower`, ``p(x) = mean_j exp(-p_cols D(x, s_j) / h)``,
  for mixed data, with the width ``h`` of :func:`gower_kernel_width`: Scott's
  rule, which DOMIAS's KDE uses, in Gower units.

When the scored records include the reference records themselves (here
all of them), a record's reference density leaves it out (leave-one-out);
otherwise each record would find itself at distance 0 and look like a
non-member for no reason but its own presence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from policycheck.methods.gower import CATEGORY

#: Query rows per block of the Gower kernel sums (bounds the memory of one block).
BLOCK = 512
#: Added to the reference density, as DOMIAS does, so a ratio is finite where no reference record is near
#: (the ``kde`` estimator's; the Gower kernel is positive everywhere and is summed in logs).
EPSILON = 1e-10
#: sqrt(pi / 8): turns a feature's mean difference E|X - X'| into the Laplace width of Scott's kernel.
#: The kernel exp(-|u| / h) has standard deviation sqrt(2) h, and a normal feature's standard
#: deviation is sqrt(pi) / 2 times its mean difference, so h = sqrt(pi / 8) E|X - X'| n^(-1/(d+4))
#: gives the kernel the standard deviation Scott's rule gives a Gaussian kernel, sigma n^(-1/(d+4)).
SCOTT_LAPLACE = math.sqrt(math.pi / 8)
#: The narrowest Gower kernel: a thousandth of one feature's full mismatch (0.1% of a numeric
#: range), so a reference set of identical records (mean distance 0) still gives a kernel.
MIN_WIDTH = 1e-3


@dataclass(frozen=True)
class KernelWidth:
    """The Gower kernel's width ``h`` and the numbers it is made of (:func:`gower_kernel_width`)."""

    width: float
    mean_distance: float  # mean Gower distance between two distinct reference records
    records: int  # reference records n
    features: int  # features d (the Gower distance's p)
    scott_factor: float  # n^(-1/(d+4))


def mean_gower_distance(points: np.ndarray, kinds: np.ndarray) -> float:
    """Mean Gower distance ``D`` between two distinct rows of ``points`` (encoded), over all ordered pairs.

    Per feature, exactly and without the ``n^2`` pairs: a categorical (or
    missing-as-code) feature differs on ``n^2 - sum_v n_v^2`` ordered pairs;
    a scaled one sums ``|x - y|`` over its present values from their sorted
    gaps (Gini's mean difference) and counts 1 for each pair with one value
    missing.
    Features are added in scan order, so the float is a function of the data.
    """
    n, p = points.shape
    if n < 2 or p == 0:
        return 0.0
    pairs = n * (n - 1)
    total = 0.0
    for k in range(p):
        column = points[:, k]
        if kinds[k] == CATEGORY:
            _, counts = np.unique(column, return_counts=True)
            differing = float(n * n - np.sum(counts.astype(np.float64) ** 2))
        else:
            present = np.sort(column[column >= 0])
            m = present.size
            # sum over i < j of |x_i - x_j|: each gap between neighbouring sorted values, times the k (m - k)
            # pairs that span it (exactly 0 for tied values); twice for ordered pairs
            spans = np.arange(1, m) * (m - np.arange(1, m))
            spread = float(np.sum(np.diff(present) * spans))
            differing = 2.0 * spread + 2.0 * m * (n - m)
        total += differing / pairs
    return float(total / p)


def gower_kernel_width(reference: np.ndarray, kinds: np.ndarray) -> KernelWidth:
    """The Gower kernel's width ``h``: Scott's rule in Gower units, from the reference records.

    DOMIAS (van Breugel et al. 2023, the method's section: the score of
    eq. 2) leaves the estimators of ``p_G`` and ``p_R`` open; its KDE variant
    ("DOMIAS (KDE)", ``ablated_eq2`` with ``density_estimator="kde"`` in the
    authors' code) is scipy's ``gaussian_kde``, whose bandwidth is Scott's
    normal-reference rule (Scott 1992, Multivariate Density Estimation):
    kernel standard deviation ``sigma_k n^(-1/(d+4))`` per feature. The Gower kernel
    ``exp(-p D / h)`` has one width for every feature (``h`` in units of one
    feature's full mismatch), so ``h`` is Scott's rule with the features'
    average spread: ``h = sqrt(pi/8) * Dbar * n^(-1/(d+4))``, where ``Dbar``
    is the mean Gower distance between two reference records (the average
    over features of their mean difference, a categorical feature's being the
    chance two records differ on it), ``n`` the reference records and ``d``
    the features; ``sqrt(pi/8)`` (:data:`SCOTT_LAPLACE`) matches the Laplace
    kernel's standard deviation to Scott's. Not below :data:`MIN_WIDTH`.

    The width is the reference set's (the population's spread, not the
    release's), and the synthetic density uses the same one, so a release
    cannot widen its own kernel by how it spreads its records (the numeric
    ranges that scale every Gower term are the union's, as everywhere in the
    package).
    """
    n, d = reference.shape
    mean_distance = mean_gower_distance(reference, kinds)
    factor = float(max(n, 1)) ** (-1.0 / (d + 4))
    width = max(SCOTT_LAPLACE * mean_distance * factor, MIN_WIDTH)
    return KernelWidth(width=width, mean_distance=mean_distance, records=n, features=d, scott_factor=factor)


def gower_kernel_log_density(
    queries: np.ndarray,
    points: np.ndarray,
    kinds: np.ndarray,
    exclude_self: np.ndarray | None = None,
    *,
    width: float,
) -> np.ndarray:
    """``log mean_j exp(-p D(q, x_j) / width)`` for every query over encoded ``points``.

    Summed in logs (the largest term factored out), so a narrow kernel far
    from every point gives a finite log density instead of 0.
    ``exclude_self[i]``, when given and not -1, is the row of ``points`` that
    is query ``i`` itself: its term is left out and the mean is over the
    others (leave-one-out); with no other point the log density is ``-inf``.
    """
    if not width > 0:
        raise ValueError(f"the Gower kernel's width must be positive, not {width!r}")
    from policycheck.methods.pairwise_gower_sums import pairwise_gower_sums

    by_column = np.ascontiguousarray(points.T, dtype=np.float64)
    is_category = np.asarray(kinds) == CATEGORY
    queries = np.ascontiguousarray(queries, dtype=np.float64)
    out = np.empty(len(queries))
    for start in range(0, len(queries), BLOCK):
        q = queries[start : start + BLOCK]
        total = pairwise_gower_sums(q, by_column, is_category)
        exponent = total / -width  # -p D / h with p D = total
        counts = np.full(len(q), float(len(points)))
        if exclude_self is not None:
            own = exclude_self[start : start + BLOCK]
            has = own >= 0
            exponent[np.flatnonzero(has), own[has]] = -np.inf
            counts[has] -= 1
        top = exponent.max(axis=1, initial=-np.inf)
        finite = np.isfinite(top)
        sums = np.exp(exponent[finite] - top[finite][:, None]).sum(axis=1)
        block = np.full(len(q), -np.inf)
        block[finite] = top[finite] + np.log(sums) - np.log(counts[finite])
        out[start : start + BLOCK] = block
    return out


def gower_kernel_density(
    queries: np.ndarray,
    points: np.ndarray,
    kinds: np.ndarray,
    exclude_self: np.ndarray | None = None,
    *,
    width: float,
) -> np.ndarray:
    """``mean_j exp(-p D(q, x_j) / width)`` for every query (:func:`gower_kernel_log_density`, exponentiated)."""
    density: np.ndarray = np.exp(gower_kernel_log_density(queries, points, kinds, exclude_self, width=width))
    return density


def gaussian_kde_density(queries: np.ndarray, points: np.ndarray, exclude_self: np.ndarray | None = None) -> np.ndarray:
    """scipy's ``gaussian_kde`` of ``points`` at every query (rows are records), leave-one-out where asked.

    The leave-one-out value removes the query's own kernel, ``N(0; 0, S)``
    with ``S`` the estimator's covariance, and averages over ``n - 1``
    points (the bandwidth stays the one fitted on all ``n``).
    """
    from scipy import stats

    kde = stats.gaussian_kde(points.T)
    density: np.ndarray = kde(queries.T)
    if exclude_self is not None and (exclude_self >= 0).any():
        n = points.shape[0]
        own_kernel = 1.0 / np.sqrt(np.linalg.det(2 * np.pi * kde.covariance))
        has = exclude_self >= 0
        density = density.copy()
        density[has] = (density[has] * n - own_kernel) / (n - 1)
    return density


def log_density_ratio(
    queries: np.ndarray,
    synthetic: np.ndarray,
    reference: np.ndarray,
    estimator: str,
    kinds: np.ndarray | None = None,
    reference_self: np.ndarray | None = None,
    width: float | None = None,
) -> np.ndarray:
    """The log of DOMIAS's score of every query (eq. 2): what the attack ranks records by.

    ``kde``: ``log(p_synthetic / (p_reference + 1e-10))``, DOMIAS's own.
    ``gower``: ``log p_synthetic - log p_reference`` with the kernel of
    ``width`` (:func:`gower_kernel_width`), both summed in logs and without
    DOMIAS's 1e-10: the Gower kernel is positive everywhere, and a narrow one's
    densities fall below 1e-10 a few feature mismatches from every record (at
    ``h = 0.1``, ``e^-20 / n`` two mismatches away), where the constant would
    flatten every reference density to it. ``+inf`` where a query's reference
    density has no point left (a reference set of one record, left out).
    ``reference_self[i]`` is the row of ``reference`` that is query ``i``
    (-1 for none), left out of its reference density.
    """
    if estimator == "kde":
        with np.errstate(divide="ignore"):
            logs: np.ndarray = np.log(
                density_ratio(queries, synthetic, reference, "kde", reference_self=reference_self)
            )
        return logs
    if estimator == "gower":
        if kinds is None or width is None:
            raise ValueError("the gower density needs the kinds of the encoded columns and the kernel's width")
        log_syn = gower_kernel_log_density(queries, synthetic, kinds, width=width)
        log_ref = gower_kernel_log_density(queries, reference, kinds, reference_self, width=width)
        with np.errstate(invalid="ignore"):
            score: np.ndarray = log_syn - log_ref
        return score
    raise ValueError(f"unknown density estimator {estimator!r}: expected 'kde' or 'gower'")


def density_ratio(
    queries: np.ndarray,
    synthetic: np.ndarray,
    reference: np.ndarray,
    estimator: str,
    kinds: np.ndarray | None = None,
    reference_self: np.ndarray | None = None,
    width: float | None = None,
) -> np.ndarray:
    """DOMIAS's score of every query (eq. 2): ``p_synthetic(x) / (p_reference(x) + 1e-10)`` (``kde``).

    ``gower``: ``p_synthetic(x) / p_reference(x)`` with the kernel of
    ``width``, the exponential of :func:`log_density_ratio` (which the attack
    ranks by; the ratio itself may overflow where the logs do not).
    ``reference_self[i]`` is the row of ``reference`` that is query ``i``
    (-1 for none), left out of its reference density.
    """
    if estimator == "kde":
        p_syn = gaussian_kde_density(queries, synthetic)
        p_ref = gaussian_kde_density(queries, reference, reference_self)
        score: np.ndarray = p_syn / (np.maximum(p_ref, 0.0) + EPSILON)
        return score
    with np.errstate(over="ignore"):
        ratio: np.ndarray = np.exp(
            log_density_ratio(queries, synthetic, reference, estimator, kinds, reference_self, width)
        )
    return ratio
