"""The paper's synthesizers as transition matrices (paper 004, sec. 4).

These reproduce the paper's figures:

- :func:`multinomial_dirichlet` (sec. 4.1, Fig. 1): ``Pr[m | n] =
  Multinomial(m, (n + alpha) / (n + alpha_0))`` with ``draw="posterior_mean"``
  (the figure), or the full posterior predictive of eq. (1), the
  Dirichlet-multinomial ``DM(m, alpha + n)``, with ``draw="posterior_sample"``;
- :func:`laplace_sanitizer` (sec. 4.2, Fig. 3): each released cell is
  ``n_i + round(Z)``, ``Z ~ Laplace(0, scale)``, clamped to ``[0, n]``. With
  the total known and ``k = 2`` only one cell is released and ``scale =
  1 / epsilon``; otherwise one record moving changes two cells, so ``scale =
  2 / epsilon``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from policycheck.methods.dp.transition_matrix import (
    MAX_MATRIX_CELLS,
    TransitionMatrix,
    count_tables,
    enumerate_tables,
    guard_size,
    table_label,
)


def multinomial_dirichlet(
    n: int,
    alpha: Sequence[float],
    m: int | None = None,
    draw: str = "posterior_mean",
    limit: int = MAX_MATRIX_CELLS,
) -> TransitionMatrix:
    """Transition matrix of the Multinomial-Dirichlet synthesizer (paper 004, sec. 2 and 4.1).

    Parameters
    ----------
    n : int
        Records in the confidential table.
    alpha : sequence of float
        Dirichlet prior sample sizes, one per cell (``k = len(alpha)``).
    m : int, optional
        Records in the synthetic table (default ``n``, as in Fig. 1).
    draw : {"posterior_mean", "posterior_sample"}
        ``posterior_mean``: ``m ~ Multinomial(m, (n + alpha) / (n + alpha_0))``,
        the matrix printed in Fig. 1. ``posterior_sample``: draw
        ``pi ~ Dirichlet(alpha + n)`` then ``m ~ Multinomial(m, pi)``, eq. (1),
        i.e. the Dirichlet-multinomial ``DM(m, alpha + n)``.
    limit : int
        Largest matrix (rows x outputs) built; larger spaces are refused.

    Returns
    -------
    TransitionMatrix
        Rows: tables of ``n`` records; columns: tables of ``m`` records, both
        in lexicographic order.
    """
    import numpy as np
    from scipy import special, stats

    a = np.asarray(alpha, dtype=float)
    if a.ndim != 1 or a.size < 2 or np.any(a <= 0):
        raise ValueError(f"alpha must list at least two positive prior sample sizes, got {list(alpha)}")
    m = n if m is None else m
    k = a.size
    guard_size(count_tables(n, k), count_tables(m, k), limit, f"the Multinomial-Dirichlet space (n={n}, m={m}, k={k})")
    tables = enumerate_tables(n, k)
    outputs = enumerate_tables(m, k)
    posterior = tables + a  # (T, k): the Dirichlet posterior alpha + n
    if draw == "posterior_mean":
        pi = posterior / posterior.sum(axis=1, keepdims=True)
        # NOTE: the multinomial log-pmf as one matrix product (log m! - sum log m_i! + m . log pi);
        # scipy's broadcasting logpmf is ~100x slower on large spaces and agrees to 1e-12 (tested).
        logp = special.gammaln(m + 1) - special.gammaln(outputs + 1).sum(axis=1)[None, :] + np.log(pi) @ outputs.T
    elif draw == "posterior_sample":
        logp = stats.dirichlet_multinomial.logpmf(outputs[None, :, :], posterior[:, None, :], m)
    else:
        raise ValueError(f"draw must be 'posterior_mean' or 'posterior_sample', got {draw!r}")
    return TransitionMatrix(
        tables=tables,
        probabilities=np.exp(logp),
        output_labels=tuple(table_label(o) for o in outputs),
        description=f"Multinomial-Dirichlet synthesizer, n={n}, m={m}, alpha={a.tolist()}, draw={draw}",
    )


def laplace_sanitizer(
    n: int,
    k: int = 2,
    epsilon: float | None = None,
    scale: float | None = None,
    known_total: bool = True,
    limit: int = MAX_MATRIX_CELLS,
) -> TransitionMatrix:
    """Transition matrix of the Laplace sanitizer (paper 004, sec. 2 and 4.2).

    Each released cell is ``clamp(n_i + round(Z_i), 0, n)`` with independent
    ``Z_i ~ Laplace(0, scale)``. With ``known_total`` the last cell is not
    released (it is ``n`` minus the others), as in Fig. 3.

    Parameters
    ----------
    n, k : int
        Records and cells of the confidential table.
    epsilon : float, optional
        The sanitizer's budget; sets ``scale = sensitivity / epsilon`` where the
        sensitivity of the released cells to one record changing cell is 1
        (``k = 2`` with the total known: one query, Fig. 3) or 2 (otherwise).
    scale : float, optional
        The Laplace scale itself (audits a sanitizer calibrated some other way).
    known_total : bool
        Release only ``k - 1`` cells, the total being public.
    limit : int
        Largest matrix (rows x outputs) built; larger spaces are refused.
    """
    import numpy as np
    from scipy import stats

    released = k - 1 if known_total else k
    sensitivity = 1 if (known_total and k == 2) else 2
    if scale is not None and epsilon is None:
        b = scale
    elif epsilon is not None and scale is None:
        b = sensitivity / epsilon
    else:
        raise ValueError("give exactly one of epsilon or scale for the Laplace sanitizer")
    if b <= 0:
        raise ValueError(f"the Laplace scale must be positive, got {b}")
    outputs_count = (n + 1) ** released
    guard_size(count_tables(n, k), outputs_count, limit, f"the Laplace sanitizer space (n={n}, k={k})")
    tables = enumerate_tables(n, k)
    # Per-cell pmf over 0..n for each possible true count 0..n: (n + 1, n + 1).
    values = np.arange(n + 1)
    true = values[:, None]
    upper = np.where(values == n, np.inf, values + 0.5)[None, :] - true
    lower = np.where(values == 0, -np.inf, values - 0.5)[None, :] - true
    # NOTE: sf for the upper tail keeps precision where cdf would round to 1.
    cell_pmf = np.where(
        lower >= 0,
        stats.laplace.sf(lower, scale=b) - stats.laplace.sf(upper, scale=b),
        stats.laplace.cdf(upper, scale=b) - stats.laplace.cdf(lower, scale=b),
    )
    grid = np.array(list(itertools.product(values, repeat=released)), dtype=np.int64).reshape(-1, released)
    probabilities = np.ones((len(tables), len(grid)))
    for i in range(released):
        probabilities *= cell_pmf[tables[:, i]][:, grid[:, i]]
    if known_total and k == 2:
        labels = tuple(table_label((int(g[0]), n - int(g[0]))) for g in grid)
    else:
        labels = tuple(table_label(g.tolist()) for g in grid)
    return TransitionMatrix(
        tables=tables,
        probabilities=probabilities,
        output_labels=labels,
        description=f"Laplace sanitizer, n={n}, k={k}, scale={b:g}, released cells={released}",
    )
