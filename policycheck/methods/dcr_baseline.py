"""SDMetrics' DCR baseline protection: synthetic records' distance to the real ones against random records'.

SDMetrics 0.32's ``DCRBaselineProtection`` draws, column by column, as many
records as the synthetic set holds uniformly over the real data's schema
(integers uniform on ``[min, max]``, floats uniform on ``[min, max)``, other
columns uniform over their distinct real values, each column missing with
the real data's missing share), and reports

    score = min(median DCR(synthetic -> real) / median DCR(random -> real), 1)

(undefined when the random median is 0). Its DCR is a Gower distance with
conventions that differ from ours (:mod:`policycheck.methods.gower`), kept
here for parity:

- a numeric column's range ``R`` is the *real* (reference) data's range
  only, not the union of every set; the per-column term is
  ``min(|x - y| / R, 1)``, clipped at 1 for values outside the real range;
- a numeric column constant in the real data (``R = 0``) compares by
  equality (0 or 1), where ours contributes 0;
- categorical and boolean: 0 when equal, else 1; missing against present is
  1, two missing values 0 (as ours); ordinal columns are categorical.

The search is exact and never holds a pair matrix: records whose numeric
values all lie within the real range cannot be clipped, so their nearest
real record is found by the package's branch-and-bound search
(:mod:`policycheck.methods.nearest_neighbours`); the others (usually few)
are scanned with the clipped terms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import pandas as pd

from policycheck.execution.executor import Executor, SerialExecutor
from policycheck.methods.gower import CATEGORY, MISSING, SCALED
from policycheck.methods.nearest_neighbours import SearchJob, closest_records

#: Out-of-range queries per executor task.
CHUNK = 512


@dataclass(frozen=True)
class ReferenceEncoding:
    """SDMetrics' DCR convention fitted on the real data: categorical columns first."""

    columns: tuple[str, ...]
    kinds: np.ndarray
    minimum: dict[str, float]
    span: dict[str, float]
    levels: dict[str, list[Any]]

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        out = np.empty((len(frame), len(self.columns)), dtype=np.float64)
        for k, name in enumerate(self.columns):
            if self.kinds[k] == CATEGORY:
                values = frame[name]
                codes = pd.Index(self.levels[name]).get_indexer(values.astype(object)).astype(np.float64)
                # Values unseen in the fit get codes of their own; missing is the code -1.
                unseen = (codes < 0) & values.notna().to_numpy()
                if unseen.any():
                    extra, _ = pd.factorize(values[unseen].astype(object))
                    codes[unseen] = len(self.levels[name]) + extra
                out[:, k] = codes
            else:
                x = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
                # NaN marks a missing value here: scaled values outside the real range may be negative.
                out[:, k] = (x - self.minimum[name]) / self.span[name]
        return out


def fit_reference(
    frames: Sequence[pd.DataFrame], reference: pd.DataFrame, columns: Sequence[str], numeric: Sequence[bool]
) -> ReferenceEncoding:
    """Ranges from the reference (real) frame only; category codes over every frame."""
    kind = dict(zip(columns, numeric, strict=True))
    minimum, span, levels = {}, {}, {}
    as_category = []
    for name in columns:
        if kind[name]:
            x = pd.to_numeric(reference[name], errors="coerce")
            lo, hi = float(x.min()), float(x.max())
            if hi > lo:
                minimum[name], span[name] = lo, hi - lo
                continue
        # Categorical, or numeric constant in the real data: compared by equality.
        as_category.append(name)
        values = pd.concat([f[name] for f in frames], ignore_index=True)
        if kind[name]:
            values = pd.to_numeric(values, errors="coerce")
        levels[name] = list(pd.unique(values.dropna().astype(object)))
    order = tuple(as_category + [c for c in columns if c not in as_category])
    kinds = np.array([CATEGORY if c in as_category else SCALED for c in order], dtype=np.int8)
    return ReferenceEncoding(order, kinds, minimum, span, levels)


def sdmetrics_dcr(
    queries: np.ndarray,
    reference: np.ndarray,
    kinds: np.ndarray,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Each query's distance to its closest reference record under SDMetrics' clipped Gower distance."""
    executor = executor or SerialExecutor()
    scaled = kinds == SCALED
    with np.errstate(invalid="ignore"):
        outside = np.any((queries[:, scaled] > 1.0) | (queries[:, scaled] < 0.0), axis=1)
    dcr = np.empty(len(queries), dtype=np.float64)
    inside = np.flatnonzero(~outside)
    if inside.size:
        # Within the real range no term is clipped: the exact search's Gower sums are SDMetrics' sums.
        as_search = np.where(np.isnan(queries[inside]), MISSING, queries[inside])
        ref = np.ascontiguousarray(np.where(np.isnan(reference), MISSING, reference))
        (found,) = closest_records([SearchJob(np.ascontiguousarray(as_search), ref)], kinds, executor, progress)
        dcr[inside] = found.distance
    rest = np.flatnonzero(outside)
    if rest.size:
        tasks = [
            (np.ascontiguousarray(queries[rest[s : s + CHUNK]]), reference, kinds) for s in range(0, rest.size, CHUNK)
        ]
        dcr[rest] = np.concatenate(executor.map(_clipped_task, tasks)) / queries.shape[1]
    return dcr


def _clipped_task(task: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    queries, reference, kinds = task
    out: np.ndarray = _clipped_min(queries, reference, kinds == CATEGORY)
    return out


@numba.njit(cache=True, nogil=True)
def _clipped_min(
    queries: np.ndarray, reference: np.ndarray, is_category: np.ndarray
) -> np.ndarray:  # pragma: no cover - compiled
    n_q, p = queries.shape
    out = np.empty(n_q, dtype=np.float64)
    for i in range(n_q):
        q = queries[i]
        best = np.inf
        for r in range(reference.shape[0]):
            row = reference[r]
            s = 0.0
            for c in range(p):
                a = q[c]
                b = row[c]
                if is_category[c]:
                    if a != b:
                        s += 1.0
                elif not np.isnan(a) and not np.isnan(b):
                    s += min(abs(a - b), 1.0)
                elif np.isnan(a) != np.isnan(b):
                    s += 1.0
                if s >= best:
                    break
            if s < best:
                best = s
        out[i] = best
    return out


def uniform_random_records(
    real: pd.DataFrame, n: int, rng: np.random.Generator, mask_rng: np.random.Generator
) -> pd.DataFrame:
    """SDMetrics' random baseline data: each column uniform over the real data's range or values.

    Draws in SDMetrics' order from ``rng``, so with the same seed the values
    equal SDMetrics'; the missing-value mask comes from ``mask_rng`` (SDMetrics
    uses numpy's global generator there).
    """
    columns = {}
    for col in real.columns:
        values = real[col]
        drawn: np.ndarray
        if pd.api.types.is_integer_dtype(values):
            drawn = rng.integers(low=values.min(), high=values.max() + 1, size=n)
        elif pd.api.types.is_float_dtype(values):
            drawn = rng.uniform(low=values.min(), high=values.max(), size=n)
        else:
            drawn = rng.choice(values.dropna().unique(), size=n)
        series = pd.Series(drawn)
        mask = mask_rng.random(n) < values.isna().mean()
        if mask.any():
            series[mask] = np.nan
        columns[col] = series
    return pd.DataFrame(columns)


def median_ratio(synthetic_dcr: np.ndarray, random_dcr: np.ndarray) -> float:
    """``min(median(synthetic) / median(random), 1)``; NaN when the random median is 0."""
    random_median = float(np.median(random_dcr))
    if random_median == 0.0:
        return float("nan")
    return min(float(np.median(synthetic_dcr)) / random_median, 1.0)
