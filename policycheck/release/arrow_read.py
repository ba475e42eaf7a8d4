"""Parquet and Feather files: their Arrow schema, a pandas index kept as a column, the table as pandas.

A Parquet or Feather file written by pandas keeps its index: an unnamed one
(``__index_level_0__``, a shuffled frame's row labels) is not a column and
is not read; a named one is the column it names, also when pandas stored it
only as a start and a step in its metadata (a named ``RangeIndex``: pandas 3
makes one of ``set_index("id")`` when the ids are evenly spaced).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from policycheck.core.errors import display_path
from policycheck.io.files import open_regular
from policycheck.release.columns import arrow_refused, check_columns

#: The columns pandas writes for an unnamed index (``df.to_parquet()`` of a shuffled frame).
UNNAMED_INDEX = re.compile(r"__index_level_\d+__")


def arrow_kinds(schema: Any, skip: frozenset[str] = frozenset()) -> list[tuple[str, str | None]]:
    """The data columns of an Arrow schema (Parquet, Feather) and what each holds that cannot be read.

    An unnamed pandas index is not a data column; columns in ``skip`` are
    not read, so they may hold anything.
    """
    ranges: list[tuple[str, str | None]] = [(index.name, None) for index in range_indexes(schema)]
    return ranges + [
        (str(field.name), None if str(field.name) in skip else arrow_refused(field.type))
        for field in _data_fields(schema)
    ]


def _data_fields(schema: Any) -> list[Any]:
    return [field for field in schema if not UNNAMED_INDEX.fullmatch(str(field.name))]


def data_column_names(schema: Any) -> list[str]:
    """The columns of an Arrow schema a user means: all but an unnamed pandas index, a named one included."""
    return [index.name for index in range_indexes(schema)] + [str(field.name) for field in _data_fields(schema)]


@dataclass(frozen=True)
class RangeIndex:
    """A named pandas ``RangeIndex`` written to Arrow: no column, only its name, start and step in the metadata."""

    name: str
    start: int
    step: int

    def values(self, first_row: int, rows: int) -> Any:
        """The index's values for ``rows`` rows from row ``first_row`` of the file."""
        import numpy as np

        return self.start + self.step * (first_row + np.arange(rows, dtype=np.int64))


def range_indexes(schema: Any) -> list[RangeIndex]:
    """The named ``RangeIndex``es a pandas writer kept only in an Arrow schema's metadata (none if unreadable).

    pandas stores a ``RangeIndex`` as ``{"kind": "range", "name", "start",
    "step"}`` instead of a column; a named one is a column the user meant
    (``set_index("age")``), an unnamed one is row labels, as
    ``__index_level_0__`` is.
    """
    try:
        entries = (schema.pandas_metadata or {}).get("index_columns", [])
    except Exception:  # metadata that is not pandas' JSON: there is no index to restore
        return []
    names = set(schema.names)
    found = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or entry.get("kind") != "range":
            continue
        name, start, step = entry.get("name"), entry.get("start"), entry.get("step")
        if isinstance(name, str) and name not in names and isinstance(start, int) and isinstance(step, int):
            found.append(RangeIndex(name, start, step))
    return found


def stored_columns(schema: Any, wanted: list[str]) -> list[str]:
    """Of the columns ``wanted``, those stored in the file (a :class:`RangeIndex` is not)."""
    virtual = {index.name for index in range_indexes(schema)}
    return [column for column in wanted if column not in virtual]


def restore_range_indexes(frame: pd.DataFrame, schema: Any, wanted: list[str], first_row: int = 0) -> pd.DataFrame:
    """``frame`` (rows from ``first_row`` on) with the :class:`RangeIndex` columns in ``wanted``, in that order."""
    indexes = [index for index in range_indexes(schema) if index.name in wanted]
    if not indexes:
        return frame
    for index in indexes:
        frame.insert(0, index.name, index.values(first_row, len(frame)))
    return frame[[c for c in wanted if c in frame.columns] + [c for c in frame.columns if c not in wanted]]


def arrow_schema(path: Path) -> Any:
    """The Arrow schema of a Parquet file (its footer) or a Feather file (its header), no data read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.suffix.lower() == ".feather":
        with open_regular(path, "data") as fh:
            try:
                return pa.ipc.open_file(fh).schema
            except pa.ArrowInvalid:
                pass  # Feather version 1: its schema comes with the table
        import pyarrow.feather as feather

        with open_regular(path, "data") as fh:
            return feather.read_table(fh).schema
    with open_regular(path, "data") as fh:
        return pq.read_schema(fh)


def read_arrow(path: Path, suffix: str, skip: frozenset[str]) -> pd.DataFrame:
    schema = arrow_schema(path)
    names = check_columns(display_path(path), arrow_kinds(schema, skip))
    wanted = [c for c in names if c not in skip] or names
    with open_regular(path, "data") as fh:
        if suffix == ".feather":
            import pyarrow.feather as feather

            table = feather.read_table(fh, columns=stored_columns(schema, wanted))
        else:
            import pyarrow.parquet as pq

            table = pq.read_table(fh, columns=stored_columns(schema, wanted))
    return restore_range_indexes(arrow_to_frame(table), schema, wanted)


def arrow_to_frame(table: Any) -> pd.DataFrame:
    """An Arrow table or record batch as pandas, every column a column (pandas' index metadata ignored)."""
    return table.to_pandas(ignore_metadata=True)
