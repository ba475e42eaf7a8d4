"""Gower's distance between mixed-type records, with one pinned convention.

Paper 002 (sec. 5, Appendix) defines, for records ``x_i`` and ``x_j`` over
features ``k = 1..p``, ``d_ijk = |x_ik - x_jk| / R_k`` for a numerical
feature, ``d_ijk = 0 if x_ik = x_jk else 1`` for a categorical one, and
``D_ij = (1/p) sum_k d_ijk``. The paper leaves ``R_k`` and missing values
open, and the peer tools disagree on both (peer survey, sec. 3 and 6), so we
pin them here (:data:`CONVENTION`) and print the convention in every report.

Records are encoded once into a float matrix (:class:`GowerEncoding`): numeric
and ordinal values rescaled to ``[0, 1]`` with ``-1`` for missing, categorical
values as integer codes (missing is a code of its own). Every distance in the
package is then :func:`gower_sums` of two encoded rows divided by ``p``:
one formula, summed in one fixed column order, so the same pair of records
gives the same float wherever it is compared.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from policycheck.core.errors import EvaluationError
from policycheck.core.threads import side_by_side
from policycheck.release.model import ColumnType

#: Kind codes of encoded columns, as the nearest-neighbour kernel reads them.
SCALED = 0  # numeric or ordinal, rescaled to [0, 1]; MISSING when absent
CATEGORY = 1  # integer code compared by equality; missing is a code of its own

#: Encoded value of a missing numeric or ordinal value (rescaled values are >= 0).
MISSING = -1.0

#: Rows of an encoded matrix written at a time (:func:`fit_and_encode`): 8,192 rows of 12 columns are 768 KB.
FILL_ROWS = 8192

CONVENTION = (
    "Gower distance D = mean over the features used of a per-feature distance in [0, 1]. "
    "Numeric: |x - y| / R, with one range R (max - min) per column taken over the union of "
    "the original (training), holdout and every synthetic set, so all DCRs share one scale; "
    "values are rescaled to (x - min) / R once and compared as differences; a constant column "
    "contributes 0. Ordinal: rank in the declared order scaled to [0, 1], then as numeric. "
    "Categorical: 0 if equal, else 1. Missing: a missing value against a present one is a full "
    "mismatch (1); two missing values match (0). Nearest neighbour: exact search; among records "
    "at the same distance the one with the smallest row index is chosen."
)


@dataclass(frozen=True)
class GowerEncoding:
    """How to turn the release's frames into encoded rows for Gower's distance.

    Attributes
    ----------
    features : tuple of str
        The features used, in release order (``p = len(features)``).
    scan_order : tuple of str
        The same features in the order distances are summed: categorical
        features first, each group most discriminating first, so the search
        prunes soonest.
    kinds : numpy.ndarray
        ``SCALED`` or ``CATEGORY`` per column of ``scan_order``.
    numeric_range : dict
        ``(min, max)`` per numeric feature over the union of all sets.
    levels : dict
        Category levels (categorical) or declared order (ordinal) per feature.
    types : dict
        ``ColumnType`` value of each feature.
    """

    features: tuple[str, ...]
    scan_order: tuple[str, ...]
    kinds: np.ndarray
    numeric_range: dict[str, tuple[float, float]]
    levels: dict[str, list[Any]]
    types: dict[str, str]

    @property
    def p(self) -> int:
        return len(self.features)

    @property
    def n_categorical(self) -> int:
        """How many leading encoded columns are categorical codes."""
        return int(np.sum(self.kinds == CATEGORY))

    def encode(self, frame: pd.DataFrame, empty: Callable[..., np.ndarray] = np.empty, threads: int = 1) -> np.ndarray:
        """Encode ``frame`` into a C-contiguous ``(n, p)`` float matrix in scan order.

        ``empty`` allocates it (an executor's, to encode where its workers read);
        ``threads`` columns are encoded at once (each fills its own column).
        """
        out: np.ndarray = empty((len(frame), self.p), np.float64)

        def fill(k: int) -> None:
            out[:, k] = self.encode_column(frame, self.scan_order[k])

        side_by_side(fill, range(self.p), threads)
        return out

    def encode_column(self, frame: pd.DataFrame, name: str) -> np.ndarray:
        """The encoded values of column ``name`` of ``frame``."""
        kind = self.types[name]
        if kind == ColumnType.NUMERIC.value:
            lo, hi = self.numeric_range[name]
            x = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            # NOTE: R = 0 (constant column) maps every present value to 0,
            # so it contributes 0 while the missing rule still applies.
            scaled = (x - lo) / (hi - lo) if hi > lo else np.zeros_like(x)
            return np.where(np.isnan(x), MISSING, scaled)
        if kind == ColumnType.ORDINAL.value:
            order = self.levels[name]
            ranks = pd.Index(order).get_indexer(frame[name])
            missing = frame[name].isna().to_numpy()
            unknown = (ranks < 0) & ~missing
            if unknown.any():
                value = frame[name][unknown].iloc[0]
                raise EvaluationError(
                    f"Ordinal column {name!r} holds the value {value!r}, which is not in its declared order."
                )
            scale = max(len(order) - 1, 1)
            return np.where(missing, MISSING, ranks / scale)
        # Unknown values cannot occur: levels are fitted on every set.
        codes: np.ndarray = pd.Index(self.levels[name]).get_indexer(frame[name])
        return codes

    def describe(self) -> dict[str, Any]:
        """The convention and its numbers, JSON-ready, for a report's details."""
        return {
            "convention": CONVENTION,
            "features": list(self.features),
            "sum_order": list(self.scan_order),
            "numeric_ranges": {k: [float(lo), float(hi)] for k, (lo, hi) in self.numeric_range.items()},
            "ordinal_orders": {
                k: [_plain(v) for v in self.levels[k]]
                for k in self.features
                if self.types[k] == ColumnType.ORDINAL.value
            },
        }


def fit_gower(
    frames: Sequence[pd.DataFrame],
    column_types: Mapping[str, ColumnType],
    orders: Mapping[str, list[Any]],
    features: Sequence[str],
    threads: int = 1,
) -> GowerEncoding:
    """Fit the encoding on the union of ``frames`` (paper 002, sec. 5, with our ``R_k``).

    Parameters
    ----------
    frames : sequence of pandas.DataFrame
        Every set of the release: original, holdout and all synthetic sets.
    column_types : mapping
        ``ColumnType`` of each column.
    orders : mapping
        Declared category order of each ordinal column, lowest first.
    features : sequence of str
        The features to use.
    threads : int
        Columns fitted at once (each column's fit is its own: the same numbers on any number).

    Returns
    -------
    GowerEncoding
        Ranges, levels and the order in which per-feature distances are summed.
    """
    # A streamed set reads its columns from its file: one at a time.
    threads = threads if all(isinstance(f, pd.DataFrame) for f in frames) else 1
    fitted = side_by_side(
        lambda name: _fit_values([f[name] for f in frames], ColumnType(column_types[name]), orders, name)[:4],
        features,
        threads,
    )
    return _assemble(features, fitted)


def fit_and_encode(
    frames: Sequence[pd.DataFrame],
    column_types: Mapping[str, ColumnType],
    orders: Mapping[str, list[Any]],
    features: Sequence[str],
    targets: Sequence[pd.DataFrame],
    empty: Callable[..., np.ndarray] = np.empty,
    threads: int = 1,
    numbered: Sequence[Mapping[str, pd.Categorical]] = (),
) -> tuple[GowerEncoding, list[np.ndarray]]:
    """``enc = fit_gower(frames, ...)`` and ``enc.encode(t, empty)`` of each frame ``t`` of ``targets``.

    A categorical feature's fit numbers its levels in order of first
    appearance over ``frames``, the very codes its encoding gives: a target
    that is one of ``frames`` (the same object) takes its codes from the fit
    instead of looking every value up again. ``numbered`` (optional, one per
    frame: :attr:`Dataset.numbered <policycheck.release.model.Dataset.numbered>`)
    holds the loader's numbering of each frame's categorical columns, which
    the fit joins instead of hashing every label. The same encoding and the
    same matrices as fitting and encoding apart; ``threads`` columns at once.
    """

    def numbering(name: str) -> list[pd.Categorical] | None:
        found = [n[name] for n in numbered if name in n]
        return found if len(found) == len(frames) else None  # every frame's, or the labels are hashed

    fitted = side_by_side(
        lambda name: _fit_values(
            [f[name] for f in frames],
            ColumnType(column_types[name]),
            orders,
            name,
            keep_codes=True,
            numbered=numbering(name),
        ),
        features,
        threads,
    )
    enc = _assemble(features, [f[:4] for f in fitted])
    codes = {name: f[4] for name, f in zip(features, fitted, strict=True)}
    starts = np.cumsum([0, *(len(f) for f in frames)])
    which = [next((i for i, f in enumerate(frames) if f is target), None) for target in targets]
    out = [empty((len(target), enc.p), np.float64) for target in targets]

    def column(j: int, k: int) -> np.ndarray:
        """Target ``j``'s encoded column ``k``: the fit's codes where it numbered this very frame."""
        name, i = enc.scan_order[k], which[j]
        known = codes[name]
        if known is not None and i is not None:
            return known[starts[i] : starts[i + 1]]
        return enc.encode_column(targets[j], name)

    for j, matrix in enumerate(out):
        columns = side_by_side(partial(column, j), range(enc.p), threads)
        # Written a block of rows at a time, every column of it: the block stays in cache while its
        # rows fill, and two threads never write the same rows (a column at a time, they shared every line).
        side_by_side(partial(_write_block, matrix, columns), range(0, len(matrix), FILL_ROWS), threads)
    return enc, out


def _write_block(matrix: np.ndarray, columns: Sequence[np.ndarray], start: int) -> None:
    """``matrix[start : start + FILL_ROWS, k] = columns[k][...]`` for every column ``k``."""
    block = matrix[start : start + FILL_ROWS]
    for k, values in enumerate(columns):
        block[:, k] = values[start : start + FILL_ROWS]


def _assemble(
    features: Sequence[str], fitted: Sequence[tuple[ColumnType, tuple[float, float] | None, list[Any] | None, float]]
) -> GowerEncoding:
    """The encoding of the features' fits (:func:`_fit_values`), in scan order."""
    numeric_range: dict[str, tuple[float, float]] = {}
    levels: dict[str, list[Any]] = {}
    types: dict[str, str] = {}
    spread: dict[str, float] = {}
    for name, (kind, value_range, column_levels, column_spread) in zip(features, fitted, strict=True):
        types[name] = kind.value
        spread[name] = column_spread
        if value_range is not None:
            numeric_range[name] = value_range
        if column_levels is not None:
            levels[name] = column_levels
    # Categorical features first (their 0/1 terms add up exactly, so the
    # search may count them in any order), then the others; within each group
    # the most discriminating first, release order breaking ties, so the
    # summation order (and with it every float) is a function of the data only.
    position = {c: i for i, c in enumerate(features)}
    scan_order = tuple(
        sorted(features, key=lambda c: (types[c] != ColumnType.CATEGORICAL.value, -spread[c], position[c]))
    )
    kinds = np.array([CATEGORY if types[c] == ColumnType.CATEGORICAL.value else SCALED for c in scan_order], np.int8)
    return GowerEncoding(tuple(features), scan_order, kinds, numeric_range, levels, types)


def _fit_values(
    columns: Sequence[pd.Series],
    kind: ColumnType,
    orders: Mapping[str, list[Any]],
    name: str,
    keep_codes: bool = False,
    numbered: Sequence[pd.Categorical] | None = None,
) -> tuple[ColumnType, tuple[float, float] | None, list[Any] | None, float, np.ndarray | None]:
    """One feature's fit over the union of its ``columns`` (one per set).

    Its kind, ``(min, max)`` (numeric), levels (categorical, ordinal), spread
    (the chance two records differ on it, for the scan order) and, asked to
    ``keep_codes``, a categorical feature's encoded values over the union.
    ``numbered``, the loader's numbering of each of ``columns`` (categorical), spares hashing the labels.
    """
    if kind is ColumnType.CATEGORICAL and numbered is not None:
        codes, joined = joined_codes(numbered)
        return kind, None, joined, _spread_of(codes), codes if keep_codes else None
    values = pd.concat(list(columns), ignore_index=True)
    if kind is ColumnType.CATEGORICAL and values.dtype == object:
        # Labels (the loader's text, None for missing) numbered once: the levels in order of first
        # appearance, missing -1, each value's share counted on the codes. The same levels, missing
        # share and shares, in the same order, as pd.unique, isna and value_counts of the labels.
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        return kind, None, list(uniques), _spread_of(codes), codes if keep_codes else None
    missing = float(values.isna().mean())
    # Chance that two records differ on this feature only through missingness.
    missing_mismatch = 2.0 * missing * (1.0 - missing)
    if kind is ColumnType.CATEGORICAL:
        return kind, None, list(pd.unique(values.dropna())), _spread_of(values), None
    value_range = None
    levels = None
    if kind is ColumnType.ORDINAL:
        if name not in orders:
            raise EvaluationError(f"Ordinal column {name!r} has no declared order of its categories.")
        levels = list(orders[name])
        ranks = pd.Index(levels).get_indexer(values.dropna()).astype(float)
        x = ranks[ranks >= 0] / max(len(levels) - 1, 1)
    else:
        x = pd.to_numeric(values, errors="coerce").dropna().to_numpy(dtype=np.float64)
        lo, hi = (float(x.min()), float(x.max())) if x.size else (0.0, 0.0)
        value_range = (lo, hi)
        x = (x - lo) / (hi - lo) if hi > lo else np.zeros_like(x)
    spread = (1.0 - missing) ** 2 * _mean_absolute_difference(x) + missing_mismatch
    return kind, value_range, levels, spread, None


def joined_codes(parts: Sequence[pd.Categorical]) -> tuple[np.ndarray, list[Any]]:
    """``pd.factorize`` of the labels of ``parts`` one after another, from their numberings alone.

    Each part numbers its labels in order of first appearance (the loader's
    ``label_categories``), so the levels of the whole, in order of first
    appearance, are the first part's, then each next part's new ones in its
    own order: what pandas' ``union_categoricals`` gives, recoding each part's
    codes (-1 missing, as factorize gives). Only the few distinct labels are looked up.
    """
    from pandas.api.types import union_categoricals

    joined = union_categoricals(list(parts))
    return joined.codes.astype(np.intp), list(joined.categories)


def _spread_of(values: np.ndarray | pd.Series) -> float:
    """The chance two records differ on a categorical feature: 1 - sum of squared shares (missing a value of its own).

    Counted as ``value_counts`` orders the shares, so the sum, and with it the scan order, is the same float
    from codes as from the values they number.
    """
    shares = pd.Series(values).value_counts(normalize=True, dropna=False).to_numpy()
    return 1.0 - float(np.sum(shares**2))


def gower_sums(a: np.ndarray, b: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """``p * D`` between encoded rows ``a[i]`` and ``b[i]`` (paper 002, sec. 5).

    The one canonical formula: per-feature distances added left to right in
    scan order, exactly as the compiled search adds them.
    """
    total = np.zeros(len(a), dtype=np.float64)
    for k in range(a.shape[1]):
        x, y = a[:, k], b[:, k]
        if kinds[k] == CATEGORY:
            d = (x != y).astype(np.float64)
        else:
            one_missing = (x < 0) != (y < 0)
            both_present = (x >= 0) & (y >= 0)
            d = np.where(both_present, np.abs(x - y), np.where(one_missing, 1.0, 0.0))
        total = total + d
    return total


def gower_distance(a: np.ndarray, b: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """Gower's distance ``D_ij = (1/p) sum_k d_ijk`` between rows ``a[i]`` and ``b[i]``."""
    distance: np.ndarray = gower_sums(np.atleast_2d(a), np.atleast_2d(b), kinds) / a.shape[-1]
    return distance


def _mean_absolute_difference(x: np.ndarray) -> float:
    """E|X - Y| for two independent draws from the values ``x``."""
    n = x.size
    if n < 2:
        return 0.0
    s = np.sort(x)
    weights = 2.0 * np.arange(1, n + 1) - n - 1
    return float(2.0 * np.sum(weights * s) / (n * n))


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value
