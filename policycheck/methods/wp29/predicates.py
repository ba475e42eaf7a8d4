"""Conjunctive predicates over records, counted fast: the queries of the singling-out attack.

A predicate is a conjunction of terms ``column op value`` (Giomi et al. 2023,
sec. 3.1), e.g. ``age >= 72 & sex == 'Female'``. Frames are encoded once
into a float matrix (:class:`PredicateTable`): numeric columns as their
values, every other column as a category code shared by all frames; missing
values are NaN. A term compares as in anonymeter 1.1 (polars, where a
comparison with a missing value is null and does not count): a missing
value fails every comparison, ``!=`` included; only "is missing" and
"is present" terms see it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import pandas as pd

from policycheck.execution.executor import Executor

EQ, NE, LT, GT, LE, GE, ISNA, NOTNA = range(8)
OP_TEXT = {EQ: "==", NE: "!=", LT: "<", GT: ">", LE: "<=", GE: ">=", ISNA: "is missing", NOTNA: "is present"}
#: Operators of a random term, by the column's kind (anonymeter's baseline attack).
NUMERIC_OPS = (EQ, NE, GT, LT, GE, LE)
CATEGORICAL_OPS = (EQ, NE)

#: Predicates per executor task.
CHUNK = 4096


@dataclass(frozen=True)
class Predicate:
    """Terms ``(column index, operator, encoded value)``, sorted by column name."""

    terms: tuple[tuple[int, int, float], ...]


@dataclass(frozen=True)
class PredicateTable:
    """Frames encoded for predicate counting, with the code books to print predicates.

    Attributes
    ----------
    columns : tuple of str
        Columns, in name order (predicates list their terms in this order).
    numeric : numpy.ndarray
        Whether each column is numeric (compared by magnitude).
    levels : dict
        Category values of each non-numeric column: code ``c`` is ``levels[name][c]``.
    """

    columns: tuple[str, ...]
    numeric: np.ndarray
    levels: dict[str, list[Any]]

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        """``(n, p)`` float matrix: numeric values or category codes, NaN when missing."""
        out = np.empty((len(frame), len(self.columns)), dtype=np.float64)
        for j, name in enumerate(self.columns):
            if self.numeric[j]:
                out[:, j] = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            else:
                codes = pd.Index(self.levels[name]).get_indexer(frame[name]).astype(np.float64)
                codes[codes < 0] = np.nan  # only missing values are absent from the code book
                out[:, j] = codes
        return out

    def describe(self, predicate: Predicate) -> str:
        """The predicate in words, e.g. ``age >= 72 & sex == 'Female'``."""
        parts = []
        for j, op, value in predicate.terms:
            name = self.columns[j]
            if op in (ISNA, NOTNA):
                parts.append(f"{name} {OP_TEXT[op]}")
            elif self.numeric[j]:
                parts.append(f"{name} {OP_TEXT[op]} {_number(value)}")
            else:
                parts.append(f"{name} {OP_TEXT[op]} {self.levels[name][int(value)]!r}")
        return " & ".join(parts)


def fit_table(frames: Sequence[pd.DataFrame], columns: Sequence[str], numeric: Sequence[bool]) -> PredicateTable:
    """Code books over every frame, so equal values get equal codes in all of them."""
    names = sorted(columns)
    kind = dict(zip(columns, numeric, strict=True))
    levels = {}
    for name in names:
        if not kind[name]:
            values = pd.concat([f[name] for f in frames], ignore_index=True)
            levels[name] = list(pd.unique(values.dropna()))
    return PredicateTable(tuple(names), np.array([kind[n] for n in names], dtype=bool), levels)


def pack(predicates: Sequence[Predicate]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predicates as three ``(m, t)`` arrays (columns, operators, values); unused terms have operator -1."""
    width = max((len(p.terms) for p in predicates), default=1)
    cols = np.zeros((len(predicates), width), dtype=np.int64)
    ops = np.full((len(predicates), width), -1, dtype=np.int64)
    vals = np.zeros((len(predicates), width), dtype=np.float64)
    for i, p in enumerate(predicates):
        for t, (j, op, value) in enumerate(p.terms):
            cols[i, t], ops[i, t], vals[i, t] = j, op, value
    return cols, ops, vals


def count_matches(data: np.ndarray, predicates: Sequence[Predicate], executor: Executor, limit: int = 2) -> np.ndarray:
    """Records of ``data`` each predicate matches, counted up to ``limit`` (singling out needs 0, 1 or more)."""
    if not predicates:
        return np.zeros(0, dtype=np.int64)
    cols, ops, vals = pack(predicates)
    tasks = [
        (data, cols[s : s + CHUNK], ops[s : s + CHUNK], vals[s : s + CHUNK], limit) for s in range(0, len(cols), CHUNK)
    ]
    return np.concatenate(executor.map(_count_task, tasks))


def _count_task(task: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]) -> np.ndarray:
    found: np.ndarray = _count(*task)
    return found


@numba.njit(cache=True, nogil=True)
def _count(  # pragma: no cover - compiled
    data: np.ndarray, cols: np.ndarray, ops: np.ndarray, vals: np.ndarray, limit: int
) -> np.ndarray:
    m, width = cols.shape
    n = data.shape[0]
    out = np.zeros(m, dtype=np.int64)
    for i in range(m):
        hits = 0
        for r in range(n):
            ok = True
            for t in range(width):
                op = ops[i, t]
                if op < 0:
                    continue
                x = data[r, cols[i, t]]
                v = vals[i, t]
                missing = np.isnan(x)
                if op == 0:
                    ok = (not missing) and x == v
                elif op == 1:
                    ok = (not missing) and x != v
                elif op == 2:
                    ok = (not missing) and x < v
                elif op == 3:
                    ok = (not missing) and x > v
                elif op == 4:
                    ok = (not missing) and x <= v
                elif op == 5:
                    ok = (not missing) and x >= v
                elif op == 6:
                    ok = missing
                else:
                    ok = not missing
                if not ok:
                    break
            if ok:
                hits += 1
                if hits >= limit:
                    break
        out[i] = hits
    return out


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
