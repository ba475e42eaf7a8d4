"""Utility of a synthetic set as the error of its 3-way marginals (paper 001, sec. 5.3).

Two observational-error metrics between the marginal distributions of the
original data D (n records) and a synthetic set S (m records), over triples
of distinct attributes (secret included):

* MRE_{>10}: the mean, over every cell whose original count exceeds 10, of
  ``|c_D - c_S * n / m| / c_D``;
* 3-TVD: per triple, the total variation distance ``1/2 sum |p_D - p_S|``
  between the two normalised cell distributions, averaged over triples.

Numeric columns are cut into quantile bins of the original (the paper's data
are discrete). A missing value is a category of its own (in numeric columns
too), so a synthesizer that drops or invents missing values shows an error;
a synthetic value outside the original's categories forms one more cell, so
it counts as error instead of vanishing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np
import pandas as pd

from policycheck.methods.reconstruction.encoding import fit_encoding
from policycheck.methods.reconstruction.queries import cell_ids


@dataclass(frozen=True)
class MarginalErrors:
    """Per-triple errors of one synthetic set.

    ``abs_relative_error`` pools every qualifying cell of every triple (the
    MRE is their mean); ``tvd`` holds one distance per triple.
    """

    triples: tuple[tuple[str, ...], ...]
    abs_relative_error: np.ndarray
    cells_per_triple: np.ndarray
    tvd: np.ndarray

    @property
    def mre(self) -> float:
        """MRE_{>10}; NaN when no cell of the original exceeds 10."""
        return float(self.abs_relative_error.mean()) if self.abs_relative_error.size else float("nan")

    @property
    def mean_tvd(self) -> float:
        return float(self.tvd.mean()) if self.tvd.size else float("nan")


def choose_triples(columns: Sequence[str], n_triples: int | None, rng: np.random.Generator) -> list[tuple[str, ...]]:
    """Every triple of distinct columns, or a seeded uniform sample of ``n_triples`` of them.

    The authors draw 100 random triples (notes sec. 4, item 17); with few
    columns enumerating all is cheap and removes the sampling noise.
    """
    every: list[tuple[str, ...]] = list(combinations(columns, 3))
    if n_triples is None or n_triples >= len(every):
        return every
    return [every[i] for i in np.sort(rng.choice(len(every), size=n_triples, replace=False))]


def three_way_marginal_errors(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    numeric: Sequence[str],
    triples: Sequence[tuple[str, ...]],
    numeric_bins: int = 10,
    min_count: int = 10,
) -> MarginalErrors:
    """MRE over cells with original count > ``min_count`` and TVD, per triple (sec. 5.3).

    Parameters
    ----------
    original, synthetic
        D and S (same columns).
    numeric
        Numeric columns, binned into ``numeric_bins`` quantile bins of D.
    triples
        Column triples to measure.
    min_count
        Cells with original count at most this are left out of the MRE
        (relative error of tiny counts is noise); the paper uses 10.
    """
    columns = sorted({c for t in triples for c in t}, key=list(original.columns).index)
    encoding = fit_encoding(original, columns, [c for c in columns if c in set(numeric)], numeric_bins)
    # NOTE: shift codes by one so that an unseen value (-1) becomes its own cell 0.
    codes_d = encoding.codes(original) + 1
    codes_s = encoding.codes(synthetic) + 1
    radix = encoding.radix + 1
    n, m = len(original), len(synthetic)
    # One contiguous array per column of D and S together: a triple's cell ids are two multiply-adds.
    both = [np.ascontiguousarray(np.concatenate([codes_d[:, j], codes_s[:, j]])) for j in range(len(columns))]
    errors, sizes, tvds = [], [], []
    pair, pair_ids = None, None
    for triple in triples:
        a, b, c = (columns.index(col) for col in triple)
        space = int(radix[a]) * int(radix[b]) * int(radix[c])
        if space >= 1 << 63:  # the same refusal as cell_ids'
            cell_ids(codes_d[:, [a, b, c]], radix[[a, b, c]])
        # Triples come grouped by their first two columns (in enumeration order): their ids are reused.
        if pair != (a, b):
            pair, pair_ids = (a, b), both[a] * radix[b] + both[b]
        ids = pair_ids * radix[c] + both[c]
        count_d, count_s = joint_counts(ids[:n], ids[n:], space)
        big = count_d > min_count
        scaled = count_s * (n / m) if m else np.zeros_like(count_s)
        errors.append(np.abs(count_d[big] - scaled[big]) / count_d[big])
        sizes.append(int(big.sum()))
        p_d = count_d / max(n, 1)
        p_s = count_s / max(m, 1)
        tvds.append(0.5 * np.abs(p_d - p_s).sum())
    return MarginalErrors(
        triples=tuple(tuple(t) for t in triples),
        abs_relative_error=np.concatenate(errors) if errors else np.array([]),
        cells_per_triple=np.array(sizes, dtype=np.int64),
        tvd=np.array(tvds, dtype=float),
    )


#: Largest cell space counted through a direct table; larger ones are sorted.
DIRECT_CELLS = 1 << 22


def joint_counts(ids_d: np.ndarray, ids_s: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """Counts of D and of S in every cell either occupies, cells in ascending id order.

    A cell space up to :data:`DIRECT_CELLS` is counted by ``bincount`` over
    the whole space (linear in the records), a larger one by sorting the ids;
    both give the same cells in the same order, so the same sums.
    """
    if space <= DIRECT_CELLS:
        all_d, all_s = np.bincount(ids_d, minlength=space), np.bincount(ids_s, minlength=space)
        cells = np.flatnonzero(all_d + all_s)
        return all_d[cells].astype(float), all_s[cells].astype(float)
    cells, joint = np.unique(np.concatenate([ids_d, ids_s]), return_inverse=True)
    n = ids_d.size
    return (
        np.bincount(joint[:n], minlength=cells.size).astype(float),
        np.bincount(joint[n:], minlength=cells.size).astype(float),
    )


def largest_cell(
    original: pd.DataFrame,
    numeric: Sequence[str],
    triples: Sequence[tuple[str, ...]],
    numeric_bins: int = 10,
    above: int | None = None,
) -> int:
    """The most original records any cell of the 3-way marginals ``triples`` holds (cells as in sec. 5.3).

    With ``above``, it stops at the first triple holding a cell of more than
    ``above`` records: by pigeonhole without counting when the triple has
    fewer than n / ``above`` cells, so a large original costs no counting.
    """
    columns = sorted({c for t in triples for c in t}, key=list(original.columns).index)
    encoding = fit_encoding(original, columns, [c for c in columns if c in set(numeric)], numeric_bins)
    codes = encoding.codes(original) + 1
    radix = encoding.radix + 1
    n, best = len(original), 0
    for triple in triples:
        idx = [columns.index(c) for c in triple]
        if above is not None and n > above * int(np.prod(radix[idx].astype(float))):
            return int(n / np.prod(radix[idx].astype(float))) + 1  # some cell holds more than this many
        _, counts = np.unique(cell_ids(codes[:, idx], radix[idx]), return_counts=True)
        best = max(best, int(counts.max()) if counts.size else 0)
        if above is not None and best > above:
            return best
    return best


def count_triples(n_columns: int) -> int:
    """Number of triples of distinct columns."""
    return comb(n_columns, 3)
