"""Multiple reverse mapping of synthetic data (paper 000, sec. 3.1).

Every attribute ``j`` of every synthetic set ``m`` is rewritten as a
permutation of the original attribute: the synthetic value of rank ``k`` is
replaced by ``x_(k,j)``, the original value of rank ``k``. What is left,
``E_j^m = Y_j^m - Z_j^m``, is the "small noise" of equation (1),
``Y_j^m = P_j^m X_j + E_j^m``.

Ranking needs an order on every attribute. Numbers are ranked by value,
ordinal categories by their declared order (manifest or policy), and nominal
categories by an order the policy gives or, by default, by their frequency
in the original (most frequent first, equal counts by label) -- the paper
notes nominal values can be ranked too (its ref. [3]). Any fixed order keeps
the reverse-mapped marginals exact; for linkage only category equality is
free of that choice (see :mod:`.rank_linkage`).

Ties are broken deterministically by position: among equal values, the one
in the earlier row gets the lower rank (a stable sort). The paper's original
X1 column and its first synthetic set (Table 2) follow this rule exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from policycheck.release.model import ColumnType


@dataclass(frozen=True)
class AttributeOrder:
    """How one attribute's values are ranked.

    ``labels`` lists the categories lowest first (``None`` for a numeric
    attribute, ranked by value); ``source`` says where the order came from,
    in words for the report.
    """

    column: str
    kind: str  # "numeric", "ordinal" or "nominal"
    labels: tuple[str, ...] | None
    source: str

    def codes(self, values: pd.Series) -> np.ndarray:
        """Sortable float codes: the value itself, or the category's position.

        Missing values get NaN, which sorts last (above every value). A
        category outside ``labels`` (seen in a synthetic set only) is placed
        after all known ones, in label order.
        """
        if self.labels is None:
            found: np.ndarray = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
            return found
        position = {label: float(i) for i, label in enumerate(self.labels)}
        missing = values.isna().to_numpy()
        present = values[~missing].astype(str)
        for extra, label in enumerate(sorted(set(present.unique()) - set(position))):
            position[label] = float(len(self.labels) + extra)
        out = np.full(len(values), np.nan)
        out[~missing] = present.map(position).to_numpy(dtype=float)
        return out


def attribute_order(
    column: str,
    column_type: ColumnType,
    original: pd.Series,
    manifest_order: Sequence[Any] | None = None,
    policy_order: Sequence[Any] | None = None,
) -> AttributeOrder:
    """Decide how ``column`` is ranked (sec. 3.1: "the values of an attribute can always be ranked").

    Parameters
    ----------
    column_type
        The release's type of the column.
    original
        The original column, for the default frequency order of nominal values.
    manifest_order, policy_order
        Category orders, lowest first; the policy's wins over the manifest's.
    """
    if column_type is ColumnType.NUMERIC:
        return AttributeOrder(column, "numeric", None, "numeric value")
    if policy_order is not None:
        kind = "ordinal" if column_type is ColumnType.ORDINAL else "nominal"
        return AttributeOrder(column, kind, tuple(str(v) for v in policy_order), "order given by the policy")
    if column_type is ColumnType.ORDINAL and manifest_order is not None:
        return AttributeOrder(
            column, "ordinal", tuple(str(v) for v in manifest_order), "order declared in the manifest"
        )
    counts = original.dropna().astype(str).value_counts()
    # NOTE: sort by (-count, label) so the order does not depend on row order.
    labels = tuple(sorted(counts.index, key=lambda label: (-counts[label], label)))
    return AttributeOrder(column, "nominal", labels, "frequency in the original, most frequent first")


def ordinal_ranks(codes: np.ndarray) -> np.ndarray:
    """Ranks ``1..n`` of ``codes``; equal values are ranked in row order, missing last.

    This is ``Rank(y)`` of the reverse-mapping algorithm (sec. 3.1), with
    ties broken deterministically by position.
    """
    order = np.argsort(np.asarray(codes, dtype=float), kind="stable")
    ranks = np.empty(order.size, dtype=np.int64)
    ranks[order] = np.arange(1, order.size + 1)
    return ranks


def rows_of_rank(original_codes: np.ndarray, ranks: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """Row of the original holding ``x_(k)``, the value of rank ``k``, for each ``k`` in ``ranks``.

    ``order``, the stable argsort of ``original_codes``, may be passed when already known.
    """
    if order is None:
        order = np.argsort(np.asarray(original_codes, dtype=float), kind="stable")
    return order[np.asarray(ranks, dtype=np.int64) - 1]


@dataclass(frozen=True)
class ReverseMapped:
    """One reverse-mapped attribute ``Z_j^m`` with its ranks and small noise ``E_j^m``."""

    ranks: np.ndarray  # Rank(y_ij^m), 1..n
    values: np.ndarray  # z_ij^m = x_(k,j)
    noise: np.ndarray | None  # y - z, numeric attributes only


def reverse_map_from_ranks(original: np.ndarray, synthetic: np.ndarray, ranks: np.ndarray) -> ReverseMapped:
    """Reverse-map a numeric synthetic attribute whose ranks are given (sec. 3.1, eq. 1).

    Parameters
    ----------
    original
        ``X_j``, the original values.
    synthetic
        ``Y_j^m``, the synthetic values (same length ``n``).
    ranks
        ``Rank(y_ij^m)``, e.g. the ranks printed by the paper, which come from
        unrounded synthetic values and so order printed ties.
    """
    x = np.asarray(original, dtype=float)
    y = np.asarray(synthetic, dtype=float)
    if x.size != y.size:
        raise ValueError(
            f"reverse mapping needs sets of equal size (original {x.size}, synthetic {y.size}); pre-sample first"
        )
    z = x[rows_of_rank(x, ranks)]
    return ReverseMapped(np.asarray(ranks, dtype=np.int64), z, y - z)


def reverse_map(original: np.ndarray, synthetic: np.ndarray) -> ReverseMapped:
    """Reverse-map one numeric attribute: ``Z = x_(Rank(y))`` and ``E = Y - Z`` (sec. 3.1)."""
    return reverse_map_from_ranks(original, synthetic, ordinal_ranks(np.asarray(synthetic, dtype=float)))


def reverse_map_frame(
    original: pd.DataFrame, synthetic: pd.DataFrame, orders: Mapping[str, AttributeOrder]
) -> pd.DataFrame:
    """``Z^m``: every column of a synthetic set as a permutation of the original column (sec. 3.1).

    ``synthetic`` must already have ``len(original)`` rows (see
    :func:`.presampling.presample`). Categorical values are reverse-mapped by
    their :class:`AttributeOrder`, like numbers.
    """
    if len(original) != len(synthetic):
        raise ValueError(
            f"reverse mapping needs sets of equal size (original {len(original)}, synthetic {len(synthetic)}); "
            "pre-sample first"
        )
    columns = {}
    for col in original.columns:
        order = orders[col]
        ranks = ordinal_ranks(order.codes(synthetic[col]))
        rows = rows_of_rank(order.codes(original[col]), ranks)
        columns[col] = original[col].to_numpy()[rows]
    return pd.DataFrame(columns, columns=original.columns).astype(original.dtypes.to_dict())
