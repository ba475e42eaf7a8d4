"""Each column's role: analysed as numeric, categorical, ordinal or datetime, or kept aside as id or ignore.

A declared role (manifest ``columns:``, ``--column-type``, SDV metadata)
is taken as given. An undeclared column is inferred from its values in
every file of the release read whole (original, holdout, synthetic sets),
so a value only the holdout holds counts as much as the original's:

- numbers (empty cells and the missing-value words ``NA``, ``N/A``,
  ``NaN``, ``nan``, ``null``, ``NULL``, ``None`` aside) -> numeric, except
  in a Parquet text column, which stays text as its writer chose;
- ISO 8601 dates (``YYYY-MM-DD``, optionally with a time) -> datetime;
- anything else -> categorical.

A column that is numbers, or ISO dates, except for a few odd values (at
most 5% of its values) is refused, naming one: its type would otherwise
change silently because of them. An undeclared column that looks like a
record identifier is refused with a suggestion to declare it ``type: id``
(see :func:`identifier_evidence`). A column missing in every row of the
original is refused unless it is declared id or ignore.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.core.plural import count_of, noun
from policycheck.release.memory import InMemoryTable

#: Words read as a missing value in a numeric or datetime column. In a
#: categorical column they stay labels (``NA`` may be a country code).
MISSING_WORDS = frozenset({"NA", "N/A", "NaN", "nan", "null", "NULL", "None"})
ISO_DATE = r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
#: Share of odd values up to which a numeric or date column is refused
#: rather than read as categorical.
ODD_SHARE = 0.05
#: An undeclared column with more distinct values than this share of the
#: rows may be an identifier (text always; integers when they also count
#: up, fill their range densely or share one width).
ID_DISTINCT_SHARE = 0.95
ID_MIN_ROWS = 50
ID_MIN_DENSITY = 0.05
ANALYSED = ("numeric", "categorical", "ordinal", "datetime")


def row_number(i: int) -> int:
    """The row a user finds in the file: the header is row 1."""
    return i + 2


def row_place(source: Path | InMemoryTable | str, i: int) -> str:
    """Where the ``i``-th record (0-based) of ``source`` is, in the words its user finds it by.

    A file's row (the header is row 1); a DataFrame's index label and
    position (``df.loc[label]``, ``df.iloc[position]``).
    """
    if isinstance(source, InMemoryTable):
        label = source.frame.index[i]
        return f"index label {label!r} (position {i})"
    return f"row {row_number(i)}"


def infer_role(path: Path | InMemoryTable, column: str, series: pd.Series) -> str:
    """The role of an undeclared column of the original, from its values (raises on a few odd values)."""
    role, problem = infer_column(column, [(path, series)])
    if problem is not None:
        raise InvalidInput(problem)
    return role


def is_text(series: pd.Series) -> bool:
    """Whether a column holds text as read: objects (pandas 2), or pandas 3's ``str`` dtype."""
    return series.dtype == object or isinstance(series.dtype, pd.StringDtype)


def present_counts(series: pd.Series) -> pd.Series | None:
    """How often each present value of a text column (:func:`is_text`) occurs, missing values left out; else None.

    One hash pass over the column answers what the role checks ask of it (how
    many values are present, how many distinct, whether one value fills it),
    where asking each apart scanned it for missing values again and again.
    Typed columns answer those cheaply without it.
    """
    return present_counts_of(series, pd.factorize(series, use_na_sentinel=True)) if is_text(series) else None


#: A column's ``pd.factorize(series, use_na_sentinel=True)``: a code per value (-1 missing), and the
#: distinct values in order of first appearance.
Factorized = tuple[np.ndarray, pd.Index]


def present_counts_of(series: pd.Series, factorized: Factorized) -> pd.Series:
    """:func:`present_counts` of a text column from its :data:`Factorized` codes, without hashing it again.

    The same Series as ``value_counts(sort=False)``: each distinct present value once, in order of
    first appearance, with its count (NumPy's and pandas' one hash table numbers them both).
    """
    codes, uniques = factorized
    counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
    return pd.Series(counts, index=pd.Index(uniques, name=series.name), name="count")


def infer_column(
    column: str,
    sources: list[tuple[Path | InMemoryTable, pd.Series]],
    counted: list[pd.Series | None] | None = None,
) -> tuple[str, Problem | None]:
    """The role of an undeclared column from its values in every file (the original first), and the problem
    that stops it: a column of numbers or ISO dates but for a few odd values, named where the first is.

    The original's type decides for a typed source (Parquet, a DataFrame): its
    writer chose it. On a problem the role returned is ``categorical``, what
    declaring the column so would give. ``counted``: each source's
    :func:`present_counts`, when the caller has them.
    """
    path, first = sources[0]
    series = first if len(sources) == 1 else pd.concat([s for _, s in sources], ignore_index=True)
    if pd.api.types.is_bool_dtype(series):
        return "categorical", None
    if pd.api.types.is_datetime64_any_dtype(series):
        return "datetime", None
    if pd.api.types.is_numeric_dtype(series):
        return "numeric", None
    first_present = _first_present(series, 100)
    if len(first_present) and all(isinstance(v, dt.date) for v in first_present):
        return "datetime", None  # Parquet date columns arrive as datetime.date objects
    # Judge each distinct value once: a column has far fewer than rows.
    counts = _merged_counts(series, [s for _, s in sources], counted)
    present_total = int(counts.sum())
    if all(isinstance(v, (bool, np.bool_)) for v in counts.index):
        return "categorical", None  # a boolean column with missing values arrives as objects
    text = pd.Series(counts.index.astype(str))
    numbers, words = _numbers_and_missing_words(counts.index)
    dates = text.str.fullmatch(ISO_DATE).to_numpy(dtype=bool)
    # A Parquet text column is text by its writer's choice; a CSV column has no declared type.
    # An in-memory DataFrame is typed like Parquet: its dtypes are its writer's choice.
    typed = not isinstance(path, (str, Path)) or Path(path).suffix.lower() in (".parquet", ".pq")
    if typed and pd.api.types.is_numeric_dtype(first):
        return "numeric", None
    if typed:
        decided = _typed_numbers(column, path, first)
        if decided is not None:
            return decided
    kinds = (("datetime", dates),) if typed else (("numeric", numbers), ("datetime", dates))
    own: set[object] | None = None  # the original's present values, read once if asked for
    for kind, hits in kinds:
        if not hits.any():
            continue
        odd = ~hits & ~words
        if not odd.any():
            return kind, None
        odd_count = int(counts.to_numpy()[odd].sum())
        many = odd_count > ODD_SHARE * present_total
        if many:
            # An original whose every value is of this kind decides the column, as a typed source's type does:
            # the odd values of the files read with it are theirs to fix, however many.
            if len(sources) == 1:
                continue
            own = set(first.dropna().unique()) if own is None else own
            if not own & set(counts.index[hits]) or own & set(counts.index[odd]):
                continue
        odd_values = set(counts.index[odd])
        where, values, found = next(
            (w, v, f)
            for w, v in sources  # the first odd value in the files' order
            if (f := np.flatnonzero(v.isin(odd_values).to_numpy(dtype=bool))).size
        )
        example = values.iloc[int(found[0])]
        what = "numbers" if kind == "numeric" else "ISO dates"
        share = (
            f"holds only {what} in the original, but {count_of(odd_count, 'value')} of the files read with it "
            f"{noun(odd_count, 'is', 'are')} not"
            if many
            else f"is {what} except for {count_of(odd_count, 'value')}"
        )
        return "categorical", _odd_values_problem(column, share, where, int(found[0]), example, "fix them")
    return "categorical", None


def _odd_values_problem(
    column: str, share: str, where: Path | InMemoryTable, found: int, example: object, fix: str
) -> Problem:
    """The line refusing a column of one kind but for some odd values: the first one, where it is, the way out."""
    return Problem(
        display_path(where),
        f"column {column!r} {share}, e.g. {row_place(where, found)}: {str(example)!r}; {fix}, "
        "or declare the column's type (`type: categorical` reads every value as a label)",
    )


def _numbers_and_missing_words(values: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """Which distinct values read as numbers, and which are words for a missing value (``NA``, ``null``...)."""
    numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").notna().to_numpy()
    return numbers, pd.Series(values.astype(str)).isin(MISSING_WORDS).to_numpy()


def _typed_numbers(column: str, path: Path | InMemoryTable, original: pd.Series) -> tuple[str, Problem | None] | None:
    """A typed original's text column of numbers: numeric if its values are number objects, refused if all but
    a few are numbers (the writer did not choose text: a few odd values made the reader fall back on it), else
    None (text, as its writer typed it: digits as labels stay categorical).

    Judged on the original alone: the other files' values are converted to its role after, each odd one named.
    """
    counts = original.dropna().value_counts(sort=False)
    if counts.empty:
        return None
    numbers, words = _numbers_and_missing_words(counts.index)
    odd = ~numbers & ~words
    if not numbers.any():
        return None
    if not odd.any():
        is_number = [
            isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_)) for v in counts.index
        ]
        return ("numeric", None) if all(is_number) else None
    odd_count = int(counts.to_numpy()[odd].sum())
    if odd_count > ODD_SHARE * int(counts.sum()):
        return None
    found = int(np.flatnonzero(original.isin(set(counts.index[odd])).to_numpy(dtype=bool))[0])
    share = f"is numbers except for {count_of(odd_count, 'value')}"
    return "categorical", _odd_values_problem(
        column, share, path, found, original.iloc[found], "fix them and give the column a number type"
    )


def _first_present(series: pd.Series, count: int) -> list[object]:
    """The first ``count`` present values of ``series`` (fewer if it has fewer), without scanning all of it."""
    found: list[object] = []
    start, step = 0, 4 * count
    while len(found) < count and start < len(series):
        found += series.iloc[start : start + step].dropna().tolist()
        start, step = start + step, step * 4
    return found[:count]


def _merged_counts(series: pd.Series, parts: list[pd.Series], counted: list[pd.Series | None] | None) -> pd.Series:
    """How often each present value of ``series`` (the ``parts`` one after another) occurs.

    From the parts' own counts when every part is a text column (their sum
    per value: the counts of the whole), else by counting the whole.
    """
    each = counted if counted is not None else [present_counts(p) for p in parts]
    present = [c for c in each if c is not None]
    if len(present) < len(parts):  # a typed part: count the whole
        return series.dropna().value_counts(sort=False)
    return present[0] if len(present) == 1 else pd.concat(present).groupby(level=0, sort=False).sum()


def check_present(
    path: Path | InMemoryTable, column: str, series: pd.Series, role: str, counts: pd.Series | None = None
) -> None:
    """An analysed column must have at least one value in the original (``counts``: its :func:`present_counts`)."""
    if role in ANALYSED and (counts.empty if counts is not None else series.isna().all()):
        raise InvalidInput(
            Problem(
                display_path(path),
                (
                    f"column {column!r} is missing in every row: it carries no information; drop it or declare it "
                    "`type: ignore`"
                ),
            )
        )


def identifier_evidence(series: pd.Series, role: str, counts: pd.Series | None = None) -> str | None:
    """Why an undeclared column looks like a record identifier, or None.

    Text (not dates) with over 95% distinct values in 50 or more rows is an
    identifier or free text. Integers with over 95% distinct values are one
    only when they also look like a key: counting up row by row, filling at
    least 5% of the integers between their extremes (a counter, possibly
    sampled), or all written with the same number of digits (a code). So a
    near-unique amount or sampling weight (the census's fnlwgt: 5 to 7
    digits spread over a range 500 times larger than the rows) is numeric.
    """
    n = len(series)
    if n < ID_MIN_ROWS:
        return None
    distinct = len(counts) if counts is not None else series.nunique()
    if distinct <= ID_DISTINCT_SHARE * n:
        return None
    counted = f"{distinct:,} distinct values in {n:,} rows"
    if role == "categorical" and not pd.api.types.is_numeric_dtype(series):
        return counted
    if role != "numeric":
        return None
    values = pd.to_numeric(series.dropna(), errors="coerce").to_numpy(dtype=float)
    if not np.all(np.isfinite(values)) or not np.all(values == np.floor(values)):
        return None  # measurements with decimals
    if np.all(np.diff(values) > 0):
        return counted + ", counting up row by row"
    span = values.max() - values.min() + 1
    if distinct >= ID_MIN_DENSITY * span:
        return counted + f", using {distinct / span:.0%} of the integers from {values.min():.0f} to {values.max():.0f}"
    widths = np.unique(np.floor(np.log10(np.maximum(np.abs(values), 1))))
    if len(widths) == 1 and values.min() >= 0:
        return counted + f", every one {int(widths[0]) + 1} digits long"
    return None


def refuse_identifier(path: Path | InMemoryTable, column: str, evidence: str) -> InvalidInput:
    return InvalidInput(
        Problem(
            display_path(path),
            (
                f"column {column!r} looks like a record identifier ({evidence}): declare it `type: id` "
                f"(manifest `columns: {{{column}: id}}` or --column-type {column}=id) to keep it out of the analysis, "
                "or declare its type (numeric, categorical) if it is an attribute"
            ),
        )
    )
