"""The no-box density attack (DOMIAS: van Breugel, Sun, Qian, van der Schaar, AISTATS 2023).

A synthesizer that overfits puts more synthetic mass near its training
records than the population has there. DOMIAS scores a record ``x`` by the
ratio ``p_synthetic(x) / p_reference(x)`` (eq. 2): the synthetic density
relative to the density of real records the synthesizer never saw. It
needs no shadow model and no re-run of the synthesizer, only the released
set and a reference set (here the holdout).

Two density estimators:

- ``kde``: scipy's ``gaussian_kde`` (Scott's bandwidth, full covariance), the
  estimator of DOMIAS's ``density_estimator="kde"``; numeric columns only;
- ``gower``: a kernel on the Gower distance of
  :mod:`policycheck.methods.gower`, ``p(x) = mean_j exp(-p_cols D(x, s_j))``
  (width: one feature's full mismatch), for mixed data.

When the scored records include the reference records themselves (the
holdout is both the reference and the non-members), a holdout record's
reference density leaves it out (leave-one-out); otherwise each holdout
record would find itself at distance 0 and look like a non-member for no
reason but its own presence.
"""

from __future__ import annotations

import numpy as np

from policycheck.methods.gower import CATEGORY

#: Query rows per block of the Gower kernel sums (bounds the memory of one block).
BLOCK = 512
#: Added to the reference density, as DOMIAS does, so a ratio is finite where no reference record is near.
EPSILON = 1e-10


def gower_kernel_density(
    queries: np.ndarray, points: np.ndarray, kinds: np.ndarray, exclude_self: np.ndarray | None = None
) -> np.ndarray:
    """``mean_j exp(-p D(q, x_j))`` for every query over encoded ``points``.

    ``exclude_self[i]``, when given and not -1, is the row of ``points`` that
    is query ``i`` itself: its term is left out and the mean is over the
    others (leave-one-out).
    """
    p = queries.shape[1]
    out = np.empty(len(queries))
    for start in range(0, len(queries), BLOCK):
        q = queries[start : start + BLOCK]
        total = np.zeros((len(q), len(points)))
        for k in range(p):
            x, y = q[:, k][:, None], points[:, k][None, :]
            if kinds[k] == CATEGORY:
                total += x != y
            else:
                present = (x >= 0) & (y >= 0)
                one_missing = (x < 0) != (y < 0)
                total += np.where(present, np.minimum(np.abs(x - y), 1.0), one_missing.astype(float))
        kernel = np.exp(-total)  # exp(-p D) with D = total / p
        sums = kernel.sum(axis=1)
        counts = np.full(len(q), float(len(points)))
        if exclude_self is not None:
            own = exclude_self[start : start + BLOCK]
            has = own >= 0
            sums[has] -= kernel[np.flatnonzero(has), own[has]]
            counts[has] -= 1
        out[start : start + BLOCK] = sums / np.maximum(counts, 1.0)
    return out


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


def density_ratio(
    queries: np.ndarray,
    synthetic: np.ndarray,
    reference: np.ndarray,
    estimator: str,
    kinds: np.ndarray | None = None,
    reference_self: np.ndarray | None = None,
) -> np.ndarray:
    """DOMIAS's score ``p_synthetic(x) / (p_reference(x) + 1e-10)`` of every query (eq. 2).

    ``reference_self[i]`` is the row of ``reference`` that is query ``i``
    (-1 for none), left out of its reference density.
    """
    if estimator == "kde":
        p_syn = gaussian_kde_density(queries, synthetic)
        p_ref = gaussian_kde_density(queries, reference, reference_self)
    elif estimator == "gower":
        if kinds is None:
            raise ValueError("the gower density needs the kinds of the encoded columns")
        p_syn = gower_kernel_density(queries, synthetic, kinds)
        p_ref = gower_kernel_density(queries, reference, kinds, reference_self)
    else:
        raise ValueError(f"unknown density estimator {estimator!r}: expected 'kde' or 'gower'")
    score: np.ndarray = p_syn / (np.maximum(p_ref, 0.0) + EPSILON)
    return score
