"""Singling out (Giomi et al. 2023, sec. 3.1; Cohen and Nissim 2020).

The attacker writes predicates from the synthetic data that match exactly one
synthetic record, and bets that each matches exactly one original record too.
A predicate that does singles a person out. As in anonymeter 1.1:

- *univariate* predicates are a column's extreme values (``<= min``,
  ``>= max``), its values seen once, and "is missing" when one value is
  missing;
- *multivariate* predicates take a random synthetic record and ``n_cols``
  random columns: ``==`` on a category, ``>=`` on a number above the
  column's median and ``<=`` otherwise, "is missing" on a missing value;
- the *baseline* attacker draws ``n_attacks`` predicates at random (random
  columns, a random synthetic value each, a random operator: one of
  ``== != < > <= >=`` on a number, ``== !=`` on a category; on a missing
  value ``==`` means "is missing" and the others "is present");
- the *control* attack counts the same predicates on holdout records; when
  the holdout and the original differ in size, the control count is
  rescaled by the fitted model of singling-out success against data size
  (anonymeter's correction; Cohen and Nissim 2020, eq. 1).

Records are de-duplicated first (a duplicated record cannot be singled out).

Where we differ from anonymeter 1.1, on purpose:

- the main and control rates divide by the number of predicates made, not by
  the number requested: anonymeter divides by ``n_attacks`` even when fewer
  predicates could be generated, which understates the risk (aidotse/LeakPro
  #182). The two agree whenever every requested predicate is generated;
- every random choice is seeded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import curve_fit

from policycheck.execution.executor import Executor
from policycheck.methods.wp29.predicates import (
    CATEGORICAL_OPS,
    EQ,
    GE,
    ISNA,
    LE,
    NOTNA,
    NUMERIC_OPS,
    Predicate,
    PredicateTable,
    count_matches,
    fit_table,
)
from policycheck.methods.wp29.rates import AttackCounts

#: Attempts per batch of the multivariate generator, at least.
MIN_BATCH = 512


@dataclass(frozen=True)
class SinglingOut:
    """The three attacks' outcome and the predicates behind them."""

    counts: AttackCounts
    requested: int
    attempts: int
    predicates: list[str]  # main predicates, in words
    singled_out_originals: list[str]  # main predicates that single out an original record
    control_correction: float | None


def singling_out(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame | None,
    columns: Sequence[str],
    numeric: Sequence[bool],
    mode: str,
    n_attacks: int,
    n_cols: int,
    max_attempts: int,
    rng: np.random.Generator,
    executor: Executor,
) -> SinglingOut:
    """Run the main, baseline and control singling-out attacks (Giomi et al. 2023, sec. 3.1)."""
    frames = [
        f[list(columns)].drop_duplicates() for f in (original, synthetic) + ((control,) if control is not None else ())
    ]
    ori, syn = frames[0], frames[1]
    ctl = frames[2] if control is not None else None
    table = fit_table(frames, columns, numeric)
    x_ori, x_syn = table.encode(ori), table.encode(syn)
    width = 1 if mode == "univariate" else min(n_cols, len(table.columns))

    baseline = random_predicates(syn, x_syn, table, n_attacks, width, rng)
    n_baseline = int(np.sum(count_matches(x_ori, baseline, executor) == 1))

    if mode == "univariate":
        predicates, attempts = univariate_predicates(syn, x_syn, table, n_attacks, rng, executor)
    else:
        predicates, attempts = multivariate_predicates(x_syn, table, n_attacks, width, max_attempts, rng, executor)
    hits = count_matches(x_ori, predicates, executor) == 1
    n_success = int(np.sum(hits))

    n_control: float | None = None
    correction = None
    if ctl is not None:
        x_ctl = table.encode(ctl)
        n_control = float(np.sum(count_matches(x_ctl, predicates, executor) == 1))
        if len(ctl) != len(ori) and predicates:
            model = fit_size_model(x_ctl, predicates, rng, executor)
            correction = float(model(len(ori)) / model(len(ctl)))
            n_control *= correction
    counts = AttackCounts(
        n_attacks=len(predicates),
        n_success=n_success,
        n_baseline=n_baseline,
        n_control=n_control,
        n_baseline_attacks=len(baseline),
    )
    words = [table.describe(p) for p in predicates]
    return SinglingOut(
        counts=counts,
        requested=n_attacks,
        attempts=attempts,
        predicates=words,
        singled_out_originals=[w for w, h in zip(words, hits, strict=True) if h],
        control_correction=correction,
    )


def univariate_predicates(
    syn: pd.DataFrame,
    x_syn: np.ndarray,
    table: PredicateTable,
    n: int,
    rng: np.random.Generator,
    executor: Executor,
) -> tuple[list[Predicate], int]:
    """Rare values, extremes and a lone missing value of each column, shuffled; those that single out a record.

    A predicate is kept when it matches exactly one synthetic record.
    """
    candidates: list[Predicate] = []
    for j in range(len(table.columns)):
        column = x_syn[:, j]
        missing = np.isnan(column)
        if int(missing.sum()) == 1:
            candidates.append(Predicate(((j, ISNA, 0.0),)))
        present = column[~missing]
        if table.numeric[j] and present.size:
            candidates.append(Predicate(((j, LE, float(present.min())),)))
            candidates.append(Predicate(((j, GE, float(present.max())),)))
        values, counts = np.unique(present, return_counts=True)
        candidates.extend(Predicate(((j, EQ, float(v)),)) for v in values[counts == 1])
    order = rng.permutation(len(candidates))
    candidates = [candidates[i] for i in order]
    singles = count_matches(x_syn, candidates, executor) == 1
    kept = _unique([p for p, s in zip(candidates, singles, strict=True) if s])
    return kept[:n], len(candidates)


def multivariate_predicates(
    x_syn: np.ndarray,
    table: PredicateTable,
    n: int,
    width: int,
    max_attempts: int,
    rng: np.random.Generator,
    executor: Executor,
) -> tuple[list[Predicate], int]:
    """Predicates from random synthetic records on ``width`` random columns, until ``n`` single out a synthetic record.

    Attempts are drawn in batches and checked in order, so the outcome is
    that of drawing them one by one and stopping at the ``n``-th success.
    """
    numeric_cols = np.flatnonzero(table.numeric)
    medians = np.full(x_syn.shape[1], np.nan)
    for j in numeric_cols:
        present = x_syn[:, j][~np.isnan(x_syn[:, j])]
        if present.size:
            medians[j] = np.median(present)
    kept: list[Predicate] = []
    seen: set[Predicate] = set()
    attempts = 0
    while len(kept) < n and attempts < max_attempts:
        batch = min(max(MIN_BATCH, 4 * (n - len(kept))), max_attempts - attempts)
        rows = rng.integers(x_syn.shape[0], size=batch)
        # A random subset of `width` columns per attempt: the first `width` of a random permutation.
        cols = np.sort(np.argsort(rng.random((batch, x_syn.shape[1])), axis=1)[:, :width], axis=1)
        candidates = [_record_predicate(x_syn[r], c, table, medians) for r, c in zip(rows, cols, strict=True)]
        singles = count_matches(x_syn, candidates, executor) == 1
        for p, single in zip(candidates, singles, strict=True):
            attempts += 1
            if single and p not in seen:
                seen.add(p)
                kept.append(p)
                if len(kept) == n:
                    break
    return kept, attempts


def _record_predicate(record: np.ndarray, cols: np.ndarray, table: PredicateTable, medians: np.ndarray) -> Predicate:
    terms = []
    for j in cols:
        value = record[j]
        if np.isnan(value):
            terms.append((int(j), ISNA, 0.0))
        elif table.numeric[j]:
            terms.append((int(j), GE if value > medians[j] else LE, float(value)))
        else:
            terms.append((int(j), EQ, float(value)))
    return Predicate(tuple(terms))


def random_predicates(
    syn: pd.DataFrame, x_syn: np.ndarray, table: PredicateTable, n: int, width: int, rng: np.random.Generator
) -> list[Predicate]:
    """The baseline attacker's ``n`` predicates: random columns, a random synthetic value each, a random operator."""
    uniques = []
    for j in range(x_syn.shape[1]):
        column = x_syn[:, j]
        values = np.unique(column[~np.isnan(column)])
        uniques.append(np.append(values, np.nan) if np.isnan(column).any() else values)
    out = []
    for _ in range(n):
        cols = np.sort(rng.choice(x_syn.shape[1], size=width, replace=False))
        terms = []
        for j in cols:
            value = uniques[j][rng.integers(uniques[j].size)]
            op = int(rng.choice(NUMERIC_OPS if table.numeric[j] else CATEGORICAL_OPS))
            if np.isnan(value):
                # A missing value: "==" becomes "is missing", any other operator "is present".
                terms.append((int(j), ISNA if op == EQ else NOTNA, 0.0))
            else:
                terms.append((int(j), op, float(value)))
        out.append(Predicate(tuple(terms)))
    return out


def singling_out_probability_integral(n: float, w_min: float, w_max: float) -> float:
    """``∫ n w (1-w)^(n-1) dw`` from ``w_min`` to ``w_max`` (Cohen and Nissim 2020).

    The chance that a predicate of weight ``w`` (the share of records it matches) singles out one of ``n``.
    """
    value: float = ((n * w_min + 1) * (1 - w_min) ** n - (n * w_max + 1) * (1 - w_max) ** n) / (n + 1)
    return value


def fit_size_model(
    x_ctl: np.ndarray, predicates: Sequence[Predicate], rng: np.random.Generator, executor: Executor
) -> Callable[[float], float]:
    """Successes of the predicates against data size, fitted on subsamples of the control (anonymeter's correction).

    Ten sizes from ``min(1000, n)`` to ``n``, five seeded subsamples each; the
    model is ``norm · integral(size, 0, w_eff)``.
    """
    n = x_ctl.shape[0]
    sizes, successes = [], []
    for size in np.linspace(min(1000, n), n, 10).astype(int):
        for _ in range(5):
            rows = rng.choice(n, size=size, replace=False)
            successes.append(int(np.sum(count_matches(x_ctl[rows], predicates, executor) == 1)))
            sizes.append(size)
    x, y = np.array(sizes, dtype=float), np.array(successes, dtype=float)

    def model(size: Any, w_eff: float, norm: float) -> float:
        # NOTE: curve_fit passes the sizes as one array; the integral is elementwise.
        return norm * singling_out_probability_integral(size, 0.0, w_eff)

    w0 = 1.0 / x.max()
    p0 = (w0, 1.0 / singling_out_probability_integral(x.max(), 0.0, w0))
    (w_eff, norm), _ = curve_fit(model, x, y, p0=p0, bounds=(0, (1, np.inf)))
    return lambda size: model(size, w_eff, norm)


def _unique(predicates: list[Predicate]) -> list[Predicate]:
    seen: set[Predicate] = set()
    out = []
    for p in predicates:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out
