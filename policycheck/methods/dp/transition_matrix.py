"""Differential-privacy audit of a synthesizer's transition matrix (paper 004, sec. 3-4).

A synthesizer over count tables is fully described by its conditional
distribution ``Pr[m | n]``: rows are the confidential tables ``n`` (``k``
cell counts summing to ``n``), columns are the outputs ``m``. The paper reads
differential privacy off the *columns* of that matrix:

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

Built-in families reproduce the paper's figures:

- :func:`multinomial_dirichlet` (sec. 4.1, Fig. 1): ``Pr[m | n] =
  Multinomial(m, (n + alpha) / (n + alpha_0))`` with ``draw="posterior_mean"``
  (the figure), or the full posterior predictive of eq. (1), the
  Dirichlet-multinomial ``DM(m, alpha + n)``, with ``draw="posterior_sample"``;
- :func:`laplace_sanitizer` (sec. 4.2, Fig. 3): each released cell is
  ``n_i + round(Z)``, ``Z ~ Laplace(0, scale)``, clamped to ``[0, n]``. With
  the total known and ``k = 2`` only one cell is released and ``scale =
  1 / epsilon``; otherwise one record moving changes two cells, so ``scale =
  2 / epsilon``.

A matrix file (:func:`load_matrix`) audits any other synthesizer.

Neighbours are found by arithmetic on table codes (``sum_i n_i (n+1)^i``),
never by forming all pairs of tables, and a table space too large to audit
exactly is refused (:class:`TableSpaceTooLarge`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

    from policycheck.execution.executor import Executor

#: Largest transition matrix (rows x outputs) audited exactly by default.
MAX_MATRIX_CELLS = 20_000_000
#: Rows of the matrix whose sum strays further from 1 are refused.
ROW_SUM_TOLERANCE = 1e-4
#: Cells (pairs x outputs) of one work item of the audit.
CHUNK_CELLS = 1_000_000
#: Log ratios within this of the target count as equal to it (Fig. 4 has 2.000000 exactly).
RATIO_TOLERANCE = 1e-9


class TableSpaceTooLarge(ValueError):
    """The exact audit would need a transition matrix too large to hold."""


@dataclass(frozen=True)
class TransitionMatrix:
    """``Pr[m | n]`` of a synthesizer over count tables (paper 004, sec. 3)."""

    #: (T, k) cell counts of each confidential table, one per row.
    tables: np.ndarray
    #: (T, O) probability of each output given each table.
    probabilities: np.ndarray
    #: One label per output column.
    output_labels: tuple[str, ...]
    #: How the matrix was made, for the report.
    description: str

    @property
    def n(self) -> int:
        return int(self.tables[0].sum())

    @property
    def k(self) -> int:
        return int(self.tables.shape[1])

    def table_labels(self) -> list[str]:
        return [table_label(t) for t in self.tables]


def table_label(table: Sequence[int]) -> str:
    """``(0, 5)`` for a two-cell table with counts 0 and 5."""
    return "(" + ", ".join(str(int(c)) for c in table) + ")"


def count_tables(n: int, k: int) -> int:
    """Number of count tables of ``n`` records over ``k`` cells: C(n + k - 1, k - 1)."""
    return math.comb(n + k - 1, k - 1)


def enumerate_tables(n: int, k: int) -> np.ndarray:
    """Every table of ``n`` records over ``k`` cells, in lexicographic order.

    For ``k = 2`` this is the paper's row order ``(0, n), (1, n - 1), ...``.
    """
    import numpy as np

    rows = []
    # NOTE: stars and bars: choosing k - 1 bar positions among n + k - 1 slots.
    for bars in itertools.combinations(range(n + k - 1), k - 1):
        edges = (-1, *bars, n + k - 1)
        rows.append([edges[i + 1] - edges[i] - 1 for i in range(k)])
    return np.array(rows, dtype=np.int64).reshape(-1, k)


def guard_size(rows: int, outputs: int, limit: int, what: str) -> None:
    """Refuse an exact audit whose matrix would exceed ``limit`` cells."""
    if rows * outputs > limit:
        raise TableSpaceTooLarge(
            f"{what} has {rows:,} tables x {outputs:,} outputs = {rows * outputs:,} matrix cells, "
            f"above the exact-audit limit of {limit:,}; coarsen the domain (fewer cells or records)"
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


def load_matrix(path: Path, n: int | None = None, k: int | None = None) -> TransitionMatrix:
    """Read a transition matrix from a CSV or NPY file.

    CSV: a header row; the first column, named ``n``, holds each row's table
    as counts separated by spaces (``0 5``); every other column is one output,
    labelled by its header. NPY: a 2-D array whose rows are the tables of
    ``n`` records over ``k`` cells in lexicographic order
    (:func:`enumerate_tables`); ``n`` and ``k`` must be given.

    Probabilities are used as given (no renormalisation), after checking they
    are finite, non-negative and that every row sums to 1 within
    :data:`ROW_SUM_TOLERANCE`.
    """
    import numpy as np
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"matrix file {path} does not exist")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        if n is None or k is None:
            raise ValueError(f"matrix file {path}: an NPY matrix needs params n and k to name its rows")
        try:
            probabilities = np.load(path, allow_pickle=False)
        except ValueError as exc:
            raise ValueError(f"matrix file {path} is not a numeric NPY array: {exc}") from exc
        tables = enumerate_tables(n, k)
        if probabilities.ndim != 2 or probabilities.shape[0] != len(tables):
            raise ValueError(
                f"matrix file {path} has shape {probabilities.shape}; expected {len(tables)} rows, "
                f"one per table of n={n} records over k={k} cells"
            )
        labels = tuple(str(j) for j in range(probabilities.shape[1]))
    elif suffix == ".csv":
        frame = pd.read_csv(path, dtype={0: str})
        if frame.columns[0] != "n" or frame.shape[1] < 2:
            raise ValueError(f"matrix file {path}: the first column must be 'n' (each row's table) followed by outputs")
        try:
            rows = [[int(c) for c in str(cell).split()] for cell in frame["n"]]
        except ValueError as exc:
            raise ValueError(f"matrix file {path}: column 'n' must hold integer counts separated by spaces") from exc
        if len({len(r) for r in rows}) != 1 or len(rows[0]) < 2:
            raise ValueError(f"matrix file {path}: every table in column 'n' needs the same number (>= 2) of cells")
        tables = np.array(rows, dtype=np.int64)
        if len(set(tables.sum(axis=1).tolist())) != 1 or np.any(tables < 0):
            raise ValueError(f"matrix file {path}: the tables in column 'n' must be non-negative with one common total")
        if len({tuple(r) for r in rows}) != len(rows):
            raise ValueError(f"matrix file {path}: a table appears twice in column 'n'")
        try:
            probabilities = frame.iloc[:, 1:].to_numpy(dtype=float)
        except ValueError as exc:
            raise ValueError(f"matrix file {path}: output columns must hold numbers") from exc
        labels = tuple(str(c) for c in frame.columns[1:])
    else:
        raise ValueError(f"matrix file {path}: expected a .csv or .npy file")
    if not np.all(np.isfinite(probabilities)) or np.any(probabilities < 0):
        raise ValueError(f"matrix file {path}: probabilities must be finite and non-negative")
    sums = probabilities.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1) > ROW_SUM_TOLERANCE)
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"matrix file {path}: row {table_label(tables[i])} sums to {sums[i]:.6f}, not 1")
    return TransitionMatrix(tables, probabilities.astype(float), labels, f"matrix file {path.name}")


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
