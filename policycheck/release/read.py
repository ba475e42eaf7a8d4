"""Read one data file (CSV, Parquet or Feather) as a table, refusing what cannot be read faithfully.

Refused, each with one line naming the file: a missing file, anything that
is not a regular file (a FIFO, a device, a socket, a directory: refused
before it is opened, so it cannot block or run for ever), an empty or
header-only file, non-UTF-8 text, NUL bytes or a line over
:data:`MAX_LINE_BYTES` in a CSV (a binary or sparse file: refused from the
first block, streaming, never read whole), duplicate column names, a row
with more or fewer fields than the header (with its line number: a short
row is never padded with missing values), and columns that hold anything
but flat values: lists, structs, maps, bytes (binary, fixed-size binary,
uuid) or durations. The column checks are one function,
:func:`check_columns`, for every format (:mod:`.columns`); CSV files are
read by :mod:`.csv_read`, Parquet and Feather by :mod:`.arrow_read`.

A Parquet or Feather file written by pandas keeps its index: an unnamed one
(``__index_level_0__``, a shuffled frame's row labels) is not a column and
is not read; a named one is the column it names, also when pandas stored it
only as a start and a step in its metadata (a named ``RangeIndex``: pandas 3
makes one of ``set_index("id")`` when the ids are evenly spaced). Files are
only read, never written.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.io.files import stat_input
from policycheck.release.arrow_read import (
    RangeIndex,
    arrow_kinds,
    arrow_schema,
    arrow_to_frame,
    data_column_names,
    range_indexes,
    read_arrow,
    restore_range_indexes,
    stored_columns,
)
from policycheck.release.columns import FLAT, check_columns, frame_kinds
from policycheck.release.csv_read import COMPRESSIONS, MAX_LINE_BYTES, read_csv, scan_csv
from policycheck.release.memory import InMemoryTable

__all__ = [
    "COMPRESSIONS",
    "FLAT",
    "MAX_LINE_BYTES",
    "RangeIndex",
    "arrow_kinds",
    "arrow_schema",
    "arrow_to_frame",
    "check_columns",
    "check_flat_parquet",
    "data_column_names",
    "frame_kinds",
    "parquet_columns",
    "range_indexes",
    "read_table",
    "restore_range_indexes",
    "scan_csv",
    "stored_columns",
]


def read_table(path: Path | InMemoryTable, skip: frozenset[str] = frozenset()) -> pd.DataFrame:
    """Read a CSV (plain, .gz or .bz2), Parquet or Feather file as strings-or-numbers, never modifying it.

    An :class:`InMemoryTable` (the Python API's DataFrame) is read as a copy.
    Parquet and Feather columns named in ``skip`` (declared ``ignore``) are
    not read at all: a wide file costs only the columns a check uses.
    """
    if isinstance(path, InMemoryTable):
        frame = path.read()
        check_columns(path.name, frame_kinds(frame))
        return frame
    path = Path(path)
    name = display_path(path)
    stat_input(path, "data")
    suffix = path.suffix.lower()
    compression = COMPRESSIONS.get(suffix)
    if compression:
        suffix = Path(path.stem).suffix.lower()
    try:
        if suffix in (".parquet", ".pq", ".feather") and not compression:
            frame = read_arrow(path, suffix, skip)
        elif suffix in (".csv", ".txt", ".tsv"):
            frame = read_csv(path, "\t" if suffix == ".tsv" else ",", compression)
        else:
            raise InvalidInput(
                Problem(
                    name,
                    f"unsupported data format {''.join(path.suffixes[-2:]) or '(none)'!r}: "
                    "use .csv (or .csv.gz, .csv.bz2), .parquet or .feather",
                )
            )
    except InvalidInput:
        raise
    except pd.errors.EmptyDataError:
        raise InvalidInput(Problem(name, "data file is empty")) from None
    except pd.errors.ParserError as exc:
        raise InvalidInput(Problem(name, f"malformed CSV: {str(exc).strip().splitlines()[-1]}")) from None
    except Exception as exc:  # pyarrow raises many kinds
        raise InvalidInput(Problem(name, f"cannot read data file: {type(exc).__name__}: {exc}")) from None
    if len(frame.columns) == 0:
        raise InvalidInput(Problem(name, "data file has no columns"))
    if len(frame) == 0:
        raise InvalidInput(Problem(name, "data file has a header but no rows"))
    frame.columns = [str(c) for c in frame.columns]
    return frame


def parquet_columns(path: Path | InMemoryTable) -> list[str] | None:
    """Column names of a Parquet file, from its footer (no data read); None for any other input."""
    if (
        isinstance(path, InMemoryTable)
        or Path(path).suffix.lower() not in (".parquet", ".pq")
        or not Path(path).is_file()
    ):
        return None
    try:
        return data_column_names(arrow_schema(Path(path)))
    except Exception:  # read_table names the problem
        return None


def check_flat_parquet(path: Path, skip: frozenset[str] = frozenset()) -> list[str]:
    """The column checks of every format (:func:`check_columns`) on a Parquet file's footer; returns its data columns.

    Columns in ``skip`` are not read, so they may hold anything.
    """
    return check_columns(display_path(path), arrow_kinds(arrow_schema(Path(path)), skip))
