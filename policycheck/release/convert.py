"""Turn a column as read into the values every evaluator sees, column at a time (no call per cell).

- numeric -> float64; a missing value (empty cell, a missing-value word) is
  NaN; text that is not a number and infinite values are refused with the row
  (an infinite value as :class:`NoDeclarationSettles`: no column type makes it data);
- categorical and ordinal -> text labels (object), a missing value is None;
  3.0 and 3 are the same label;
- datetime -> float days since 1970-01-01 (UTC; times are fractions of a
  day), a missing value is NaN; ISO 8601 unless the column declares a
  strftime ``format``; an unparseable value is refused with the row.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.core.plural import count_of
from policycheck.release.memory import InMemoryTable
from policycheck.release.model import ColumnType
from policycheck.release.roles import MISSING_WORDS, Factorized, row_place

INT64_MAX = 2**63 - 1

#: Columns up to which a converted frame keeps each column as its own block (see coerce_frame).
UNSTACKED_COLUMNS = 64


class NoDeclarationSettles(InvalidInput):
    """A value refused whatever its column is declared (an infinite number): the refusal offers no declaration.

    Text in a numeric column is settled by declaring the column categorical;
    an infinite number is a fault of the file, which only fixing the file settles.
    """


class ColumnProblem(NamedTuple):
    """A column :func:`coerce_frame` could not convert, and whether declaring its type would settle it."""

    column: str
    problem: Problem
    declarable: bool


def to_numbers(
    path: Path | InMemoryTable, column: str, series: pd.Series, notes: list[str], label: str, first_row: int = 0
) -> np.ndarray:
    """A numeric column as float64; integers beyond 64 bits are read as floats and noted.

    ``first_row``: the series' first value is this row of the file (0-based), when it is one piece of it.
    """
    name = display_path(path)
    if pd.api.types.is_bool_dtype(series):
        raise InvalidInput(Problem(name, f"column {column!r} is numeric but holds true/false values"))
    values: np.ndarray
    if pd.api.types.is_numeric_dtype(series):
        values = series.to_numpy(dtype=float, na_value=np.nan)
    else:
        present = series.notna().to_numpy()
        words = series.isin(MISSING_WORDS).to_numpy()
        values = pd.to_numeric(series.mask(words), errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        bad = np.isnan(values) & present & ~words
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InvalidInput(
                Problem(
                    name,
                    f"column {column!r} is numeric but {row_place(path, first_row + row)} holds {series.iloc[row]!r}",
                )
            )
    if np.isinf(values).any():
        row = int(np.flatnonzero(np.isinf(values))[0])
        raise NoDeclarationSettles(
            Problem(name, f"column {column!r} holds an infinite value at {row_place(path, first_row + row)}")
        )
    if series.dtype == object or pd.api.types.is_unsigned_integer_dtype(series):
        wide = np.flatnonzero(np.abs(np.nan_to_num(values)) > INT64_MAX)
        integral = [i for i in wide[:1] if _is_integer(series.iloc[i])]
        if integral:
            i = integral[0]
            notes.append(
                f"{label}: column {column!r} {row_place(path, first_row + i)} holds {series.iloc[i]}, an integer "
                f"beyond 64 bits ({count_of(len(wide), 'such value')}): read as the floating-point number "
                f"{values[i]:.6g}, rounded"
            )
    return values


def to_labels(series: pd.Series) -> np.ndarray:
    """Category labels as text (object array, None for missing), one conversion per distinct value."""
    return _labels_of(label_categories(series))


def label_categories(series: pd.Series, factorized: Factorized | None = None) -> pd.Categorical:
    """:func:`to_labels`' labels as a Categorical: each distinct label once, a code per value (-1 missing).

    What the loader knows of a column once it has labelled it, so that what
    hashes its rows need not number its values again (:func:`~policycheck.release.checks.row_hashes`).
    ``factorized``: the column's ``pd.factorize`` (missing values -1), when the loader has it already.
    """
    codes, uniques = factorized if factorized is not None else pd.factorize(series, use_na_sentinel=True)
    # 3.0 and 3 are one label: the distinct values' labels numbered again, and each value's code with them.
    renumbered, labels = pd.factorize(np.array([label(v) for v in uniques], dtype=object))
    codes = np.append(renumbered, -1)[codes]  # -1 stays -1 (missing): the appended last slot
    return pd.Categorical.from_codes(codes, categories=pd.Index(labels, dtype=object))


def _labels_of(categories: pd.Categorical) -> np.ndarray:
    """The object array of a :func:`label_categories`' labels, None where a value is missing."""
    labels = np.empty(len(categories.categories) + 1, dtype=object)
    labels[:-1] = categories.categories
    labels[-1] = None  # code -1: missing
    out: np.ndarray = labels[categories.codes]
    return out


def label(value: Any) -> str:
    """Category label as text; 3.0 and 3 are the same category."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def to_days(
    path: Path | InMemoryTable, column: str, series: pd.Series, fmt: str | None, first_row: int = 0
) -> np.ndarray:
    """A datetime column as float days since 1970-01-01 (UTC); ``first_row`` as in :func:`to_numbers`."""
    if pd.api.types.is_datetime64_any_dtype(series):
        stamps = pd.to_datetime(series, utc=True)
    else:
        present = series.notna().to_numpy() & ~series.isin(MISSING_WORDS).to_numpy()
        values = series.astype(object).where(present, None)
        first = values[present].iloc[0] if present.any() else None
        if isinstance(first, dt.date):  # Parquet date columns hold one kind of value
            stamps = pd.to_datetime(values, utc=True, errors="coerce")  # date/datetime objects (Parquet)
        else:
            # Numbers are read as text (20200101 with format %Y%m%d), never as nanoseconds since 1970.
            text = pd.Series(to_labels(values), index=series.index, dtype=object)
            stamps = pd.to_datetime(text, format=fmt or "ISO8601", utc=True, errors="coerce")
        bad = stamps.isna().to_numpy() & present
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            wanted = (
                f"the format {fmt!r}"
                if fmt
                else "an ISO 8601 date (YYYY-MM-DD, optionally a time): declare the column's `format` otherwise"
            )
            raise InvalidInput(
                Problem(
                    display_path(path),
                    f"column {column!r} is a datetime but {row_place(path, first_row + row)} holds "
                    f"{label(series.iloc[row])!r}, not {wanted}",
                )
            )
    epoch = pd.Timestamp("1970-01-01", tz="UTC")
    days: np.ndarray = ((stamps - epoch) / pd.Timedelta(days=1)).to_numpy(dtype=float, na_value=np.nan)
    return days


def coerce_frame(
    path: Path | InMemoryTable,
    frame: pd.DataFrame,
    types: dict[str, ColumnType],
    roles: dict[str, str],
    orders: dict[str, list[Any]],
    formats: dict[str, str],
    notes: list[str],
    label_: str,
    first_row: int = 0,
    problems: list[ColumnProblem] | None = None,
    categories: dict[str, pd.Categorical] | None = None,
    factorized: Callable[[str], Factorized | None] | None = None,
) -> pd.DataFrame:
    """The analysed columns ``types`` of ``frame`` as evaluators see them (see the module docstring).

    ``notes`` gathers what is worth a finding, worded for the data set ``label_``;
    ``first_row`` as in :func:`to_numbers`. Given ``problems``, a column that
    cannot be converted adds a :class:`ColumnProblem` there (and is left
    missing) instead of stopping the others: every column's problem in one pass.
    Given ``categories``, each labelled (categorical, ordinal) column's
    :func:`label_categories` is kept there. ``factorized``: each text column's ``pd.factorize``,
    where the loader has it (None: not a text column), which labelling it then reuses.
    """
    out = {}
    for col in types:
        try:
            out[col] = _coerce_column(
                path,
                frame[col],
                col,
                types[col],
                roles,
                orders,
                formats,
                notes,
                label_,
                first_row,
                categories,
                factorized(col) if factorized is not None else None,
            )
        except InvalidInput as exc:
            if problems is None:
                raise
            declarable = not isinstance(exc, NoDeclarationSettles)
            problems.extend(ColumnProblem(col, p, declarable) for p in exc.problems)
            out[col] = pd.Series([None] * len(frame), dtype=object)
    # copy=False: each column stays its own block. Stacking them into one block per dtype (the default)
    # copies every value once more, a quarter of a 300,000-row file's load, for nothing we use. A wide
    # file is stacked still: pandas warns ("highly fragmented") when a column joins a frame of over 100
    # blocks, as a metric's working copy may.
    return pd.DataFrame(out, columns=list(types), copy=False if len(out) <= UNSTACKED_COLUMNS else None)


def _coerce_column(
    path: Path | InMemoryTable,
    s: pd.Series,
    col: str,
    kind: ColumnType,
    roles: dict[str, str],
    orders: dict[str, list[Any]],
    formats: dict[str, str],
    notes: list[str],
    label_: str,
    first_row: int,
    categories: dict[str, pd.Categorical] | None = None,
    factorized: Factorized | None = None,
) -> Any:
    """One column of :func:`coerce_frame`."""
    name = display_path(path)
    if roles[col] == "datetime":
        return to_days(path, col, s, formats.get(col), first_row)
    if kind is ColumnType.NUMERIC:
        return to_numbers(path, col, s, notes, label_, first_row)
    categorical = label_categories(s, factorized)
    labels = _labels_of(categorical)
    if kind is ColumnType.ORDINAL:
        allowed = {label(v) for v in orders[col]}
        unknown = sorted(set(categorical.categories) - allowed)  # the column's distinct labels, already counted
        if unknown:
            raise InvalidInput(
                Problem(
                    name,
                    f"ordinal column {col!r} holds values not in its declared order: "
                    + ", ".join(repr(v) for v in unknown[:5])
                    + (", ..." if len(unknown) > 5 else ""),
                )
            )
    if categories is not None:
        categories[col] = categorical
    return pd.Series(labels, dtype=object)  # object: pandas would make None a NaN in a str column


def _is_integer(value: Any) -> bool:
    # pandas 3 reads an integer beyond 64 bits as a Python int, pandas 2 as its text.
    if isinstance(value, str):
        return value.strip().lstrip("+-").isdigit()
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
