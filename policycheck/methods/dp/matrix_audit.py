"""Differential-privacy audit of a transition matrix (paper 004, sec. 3-4).

The paper reads differential privacy off the *columns* of ``Pr[m | n]``
(:class:`policycheck.methods.dp.transition_matrix.TransitionMatrix`):

- **epsilon** (eq. 3) is ``max |ln Pr[m | n1] / Pr[m | n2]|`` over all outputs
  ``m`` and all neighbouring tables, ``|n1 - n2| = 2`` (one record moves from
  one cell to another);
- the **offending outputs** at a target epsilon are the cells whose log ratio
  exceeds it (Fig. 2: the eight cells above 2);
- **delta** of (epsilon, delta)-probabilistic DP is the probability of those
  outputs. Which distribution over ``(m, n)`` is a choice; ours (the one that
  gives the paper's 0.0006 for Fig. 1 at epsilon = 2) is::

      delta(eps) = sum_n Pr[n] sum_m Pr[m | n] 1{ exists n' ~ n : ln Pr[m | n'] - ln Pr[m | n] > eps }

  with ``n ~ Multinomial(n, pi)`` (``pi = alpha / alpha_0`` for the
  Multinomial-Dirichlet synthesizer, uniform cells otherwise, or given) and
  ``m ~ Pr[m | n]``: the chance that the synthesizer emits an output that is
  *unusual for the true table*, i.e. one that a neighbouring table would have
  produced more than ``e^eps`` times as often (sec. 4.1: the log ratios are
  large "for exactly the low-probability outcomes of the synthesizer").
  For Fig. 1 (``pi = (1/2, 1/2)``) the eight offending cells' unusual sides
  weigh ``2 (1/32 (0.004863 + 0.000221 + 0.000004) + 5/32 0.000977) = 0.0006``.
  :attr:`Audit.delta_any_offending` counts both sides of every offending cell
  (a conservative variant), and any other ``Pr[n]`` may be passed as
  ``table_weights``.

Neighbours are found by arithmetic on table codes (``sum_i n_i (n+1)^i``),
never by forming all pairs of tables, and a table space too large to audit
exactly is refused (:class:`TableSpaceTooLarge`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from policycheck.methods.dp.transition_matrix import TableSpaceTooLarge, TransitionMatrix

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

    from policycheck.execution.executor import Executor

#: Cells (pairs x outputs) of one work item of the audit.
CHUNK_CELLS = 1_000_000
#: Log ratios within this of the target count as equal to it (Fig. 4 has 2.000000 exactly).
RATIO_TOLERANCE = 1e-9


def neighbour_pairs(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(a, b)``, ``a < b``, of every pair of neighbouring tables.

    Two tables are neighbours when one record moves from one cell to another
    (``|n1 - n2| = 2``, paper 004 sec. 3). Each table's neighbours are found
    by adding ``(n+1)^j - (n+1)^i`` to its code and looking the result up, so
    the work grows with tables x k^2, not tables^2. Tables missing from the
    rows (a partial matrix file) simply have no pair.
    """
    import numpy as np

    tables = np.asarray(tables, dtype=np.int64)
    t, k = tables.shape
    base = int(tables[0].sum()) + 1
    if k * math.log2(base) >= 62:
        raise TableSpaceTooLarge(f"tables of {base - 1} records over {k} cells are too many to index exactly")
    weights = base ** np.arange(k, dtype=np.int64)
    codes = tables @ weights
    order = np.argsort(codes)
    sorted_codes = codes[order]
    firsts, seconds = [], []
    for i in range(k):
        donors = np.flatnonzero(tables[:, i] > 0)
        for j in range(k):
            if i == j:
                continue
            target = codes[donors] - weights[i] + weights[j]
            pos = np.minimum(np.searchsorted(sorted_codes, target), t - 1)
            found = sorted_codes[pos] == target
            a, b = donors[found], order[pos[found]]
            keep = a < b  # each unordered pair once
            firsts.append(a[keep])
            seconds.append(b[keep])
    a = np.concatenate(firsts) if firsts else np.empty(0, np.int64)
    b = np.concatenate(seconds) if seconds else np.empty(0, np.int64)
    sort = np.lexsort((b, a))
    return a[sort], b[sort]


def log_ratios(p_first: np.ndarray, p_second: np.ndarray) -> np.ndarray:
    """Signed ``ln Pr[m | n1] - ln Pr[m | n2]`` per output (paper 004, eq. 3).

    ``+inf``/``-inf`` where only one table can produce the output; ``nan``
    where neither can (such an output says nothing about the pair).
    """
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = np.log(p_first) - np.log(p_second)
    out[(p_first == 0) & (p_second == 0)] = np.nan
    return out


def multinomial_table_weights(tables: np.ndarray, cell_probabilities: Sequence[float] | None = None) -> np.ndarray:
    """``Pr[n]`` of each table under ``n ~ Multinomial(n, pi)`` (uniform ``pi`` by default)."""
    import numpy as np
    from scipy import stats

    k = tables.shape[1]
    pi = np.full(k, 1.0 / k) if cell_probabilities is None else np.asarray(cell_probabilities, dtype=float)
    if pi.size != k or np.any(pi < 0) or not np.isclose(pi.sum(), 1.0):
        raise ValueError(f"cell probabilities must be {k} non-negative numbers summing to 1, got {list(pi)}")
    weights: np.ndarray = stats.multinomial.pmf(tables, int(tables[0].sum()), pi)
    return weights


@dataclass(frozen=True)
class OffendingCell:
    """One output whose log ratio between two neighbours exceeds the target."""

    first: int  # row index of n1
    second: int  # row index of n2
    output: int  # column index of m
    log_ratio: float  # |ln Pr[m | n1] / Pr[m | n2]|


@dataclass(frozen=True)
class Audit:
    """The differential-privacy audit of one transition matrix."""

    #: Max |log ratio| over neighbours and outputs (eq. 3); inf when an output is impossible for one neighbour only.
    epsilon: float
    #: (first, second, output) achieving ``epsilon``.
    worst: tuple[int, int, int] | None
    #: Neighbour pairs, row indices (a < b).
    first: np.ndarray
    second: np.ndarray
    #: Max |log ratio| of each pair over the outputs (nan when no output is possible for either).
    pair_max: np.ndarray
    target_epsilon: float | None
    #: How many (pair, output) cells exceed ``target_epsilon``.
    offending_count: int
    #: The offending cells with the largest log ratios (at most ``keep_offending``), largest first.
    offending_cells: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    #: delta of (target_epsilon, delta)-probabilistic DP (None without a target).
    delta: float | None
    #: delta counting both sides of every offending cell.
    delta_any_offending: float | None

    @property
    def offending(self) -> tuple[OffendingCell, ...]:
        """The kept offending cells as records."""
        a, b, c, r = self.offending_cells
        return tuple(OffendingCell(int(x), int(y), int(z), float(v)) for x, y, z, v in zip(a, b, c, r, strict=False))


def _largest(cells: list[np.ndarray], keep: int) -> list[np.ndarray]:
    """The ``keep`` cells with the largest log ratio (last array), largest first."""
    import numpy as np

    order = np.argsort(-cells[3], kind="stable")[:keep]
    return [x[order] for x in cells]


def _pair_log_ratios(item: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Signed log ratios of one chunk of neighbour pairs (picklable for executors)."""
    p_first, p_second = item
    return log_ratios(p_first, p_second)


def audit(
    matrix: TransitionMatrix,
    target_epsilon: float | None = None,
    table_weights: np.ndarray | None = None,
    executor: Executor | None = None,
    chunk_pairs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    keep_offending: int = 10_000,
) -> Audit:
    """Epsilon, offending outputs and probabilistic delta of a transition matrix (paper 004, sec. 3).

    Parameters
    ----------
    matrix : TransitionMatrix
        ``Pr[m | n]``.
    target_epsilon : float, optional
        The epsilon to test: outputs with a larger log ratio offend, and their
        probability is the delta of (target_epsilon, delta)-probabilistic DP.
    table_weights : ndarray, optional
        ``Pr[n]`` of each row (see the module docstring); default
        ``Multinomial(n, uniform)``.
    executor : Executor, optional
        Maps chunks of neighbour pairs.
    chunk_pairs : int, optional
        Neighbour pairs per work item (default: about a million cells each).
    keep_offending : int
        Offending cells kept for the report (the largest ratios); all are counted.

    Returns
    -------
    Audit
    """
    import numpy as np

    p = matrix.probabilities
    first, second = neighbour_pairs(matrix.tables)
    if first.size == 0:
        raise ValueError(f"{matrix.description}: no two rows are neighbouring tables, so there is nothing to audit")
    weights = multinomial_table_weights(matrix.tables) if table_weights is None else np.asarray(table_weights, float)
    if executor is None:
        from policycheck.execution.executor import SerialExecutor

        executor = SerialExecutor()
    # NOTE: about a million cells per chunk keeps each work item a few MB, and
    # mapping a few chunks per worker at a time bounds memory on large spaces.
    chunk = chunk_pairs or max(1, CHUNK_CELLS // p.shape[1])
    starts = list(range(0, first.size, chunk))
    batch = 2 * max(1, executor.workers)

    epsilon, worst = 0.0, None
    pair_max = np.full(first.size, np.nan)
    count = 0
    kept = [np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)]
    unusual = np.zeros(p.shape, dtype=bool)  # (n, m): a neighbour makes m e^eps times likelier
    involved = np.zeros(p.shape, dtype=bool)  # (n, m): either side of an offending cell

    def batch_progress(done: int) -> Callable[[int, int], None] | None:
        """The progress of one batch of chunks, ``done`` chunks after the start."""
        if progress is None:
            return None
        report = progress
        return lambda d, t: report(done + d, len(starts))

    for b0 in range(0, len(starts), batch):
        group = starts[b0 : b0 + batch]
        items = [(p[first[s : s + chunk]], p[second[s : s + chunk]]) for s in group]
        chunks = executor.map(_pair_log_ratios, items, batch_progress(b0))
        for s, signed in zip(group, chunks, strict=False):
            size = np.abs(signed)
            filled = np.where(np.isnan(size), -1.0, size)
            row_max = filled.max(axis=1)
            pair_max[s : s + size.shape[0]] = np.where(row_max < 0, np.nan, row_max)
            r, c = divmod(int(np.argmax(filled)), size.shape[1])
            if filled[r, c] >= 0 and (worst is None or filled[r, c] > epsilon):
                epsilon, worst = float(size[r, c]), (int(first[s + r]), int(second[s + r]), int(c))
            if target_epsilon is None:
                continue
            rows, cols = np.nonzero(filled > target_epsilon + RATIO_TOLERANCE)
            a, b = first[s + rows], second[s + rows]
            count += rows.size
            kept = [np.concatenate(x) for x in zip(kept, (a, b, cols, size[rows, cols]), strict=False)]
            if kept[0].size > 2 * keep_offending:
                kept = _largest(kept, keep_offending)
            # The less likely side is the table for which m is an unusual output.
            lower_is_second = signed[rows, cols] > 0
            unusual[np.where(lower_is_second, b, a), cols] = True
            involved[a, cols] = True
            involved[b, cols] = True
    delta = delta_any = None
    if target_epsilon is not None:
        joint = weights[:, None] * p  # Pr[n] Pr[m | n]
        delta = float(joint[unusual].sum())
        delta_any = float(joint[involved].sum())
    kept_first, kept_second, kept_output, kept_ratio = _largest(kept, keep_offending)
    cells = (kept_first, kept_second, kept_output, kept_ratio)
    return Audit(epsilon, worst, first, second, pair_max, target_epsilon, count, cells, delta, delta_any)
