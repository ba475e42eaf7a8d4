"""One set of column checks for every data format: duplicate names, and columns of anything but flat values.

Parquet and Feather are checked by their Arrow schema (:func:`.arrow_read.arrow_kinds`), a DataFrame by
its values (:func:`frame_kinds`), a CSV by its header; :func:`check_columns` refuses what they find.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from policycheck.core.errors import InvalidInput, Problem

#: What a column must hold: flat values of one of these kinds (after a dictionary's values).
FLAT = "only flat columns of numbers, text, booleans or dates can be checked"


def check_columns(name: str, kinds: list[tuple[str, str | None]]) -> list[str]:
    """Refuse duplicate column names and columns of anything but flat values; return the names.

    ``kinds``: each column's name and, when it holds values no check can
    read, those values' type in words (else None), as :func:`arrow_kinds`
    and :func:`frame_kinds` give them.
    """
    names = [column for column, _ in kinds]
    dupes = sorted({c for c in names if names.count(c) > 1})
    if dupes:
        raise InvalidInput(Problem(name, f"duplicate column names: {dupes}"))
    for column, refused in kinds:
        if refused is not None:
            raise InvalidInput(Problem(name, f"column {column!r} holds {refused} values: {FLAT}"))
    return names


def arrow_refused(kind: Any) -> str | None:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    flat = (
        pa.types.is_null(kind)
        or pa.types.is_boolean(kind)
        or pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
        or pa.types.is_decimal(kind)
        or pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or getattr(pa.types, "is_string_view", lambda _: False)(kind)
        or pa.types.is_date(kind)
        or pa.types.is_timestamp(kind)
        or pa.types.is_time(kind)
    )
    return None if flat and not isinstance(kind, pa.BaseExtensionType) else str(kind)


#: What pandas' inferred type of an object column says it holds, when no check can read that.
_REFUSED_INFERRED = {"bytes": "binary", "interval": "interval", "period": "period", "timedelta": "duration"}


def frame_kinds(frame: pd.DataFrame) -> list[tuple[str, str | None]]:
    """The columns of a DataFrame and what each holds that cannot be read (lists, bytes, mappings, ...)."""
    out = []
    for i, column in enumerate(frame.columns):
        series = frame.iloc[:, i]
        refused = None
        if pd.api.types.is_timedelta64_dtype(series) or isinstance(series.dtype, (pd.IntervalDtype, pd.PeriodDtype)):
            refused = "duration" if pd.api.types.is_timedelta64_dtype(series) else str(series.dtype)
        elif series.dtype == object:
            inferred = pd.api.types.infer_dtype(series, skipna=True)
            refused = _REFUSED_INFERRED.get(inferred)
            if inferred.startswith("mixed") or inferred == "unknown-array":
                refused = next((_container(v) for v in series if _container(v)), None)
        out.append((str(column), refused))
    return out


def _container(value: Any) -> str | None:
    import numpy as np

    if isinstance(value, (list, tuple, np.ndarray)):
        return "list"
    if isinstance(value, dict):
        return "struct"
    if isinstance(value, (set, frozenset)):
        return "set"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "binary"
    return None
