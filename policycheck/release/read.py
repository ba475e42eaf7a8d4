"""Read one data file (CSV or Parquet) as a table, refusing what cannot be read faithfully.

Refused, each with one line naming the file: a missing file, a directory,
an empty or header-only file, non-UTF-8 text, duplicate column names, a
row with more or fewer fields than the header (with its line number: a
short row is never padded with missing values), and Parquet columns that
hold lists, structs, maps or bytes. Files are only read, never written.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pandas as pd

from policycheck.errors import InvalidInput, Problem, display_path
from policycheck.fileio import sha256_file  # noqa: F401 - read.sha256_file is the loaders' name for it
from policycheck.release.memory import InMemoryTable

_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


#: Compressed CSV suffixes and the codec behind each.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2"}


def read_table(path: Path | InMemoryTable, skip: frozenset[str] = frozenset()) -> pd.DataFrame:
    """Read a CSV (plain, .gz or .bz2), Parquet or Feather file as strings-or-numbers, never modifying it.

    An :class:`InMemoryTable` (the Python API's DataFrame) is read as a copy.
    Parquet columns named in ``skip`` (declared ``ignore``) are not read at
    all: Parquet stores each column apart, so a wide file costs only the
    columns a check uses.
    """
    if isinstance(path, InMemoryTable):
        return path.read()
    path = Path(path)
    name = display_path(path)
    if not path.exists():
        raise InvalidInput(Problem(name, "data file not found"))
    if path.is_dir():
        raise InvalidInput(Problem(name, "data path is a directory, not a file"))
    suffix = path.suffix.lower()
    compression = COMPRESSIONS.get(suffix)
    if compression:
        suffix = Path(path.stem).suffix.lower()
    try:
        if suffix in (".parquet", ".pq") and not compression:
            names = check_flat_parquet(path, skip)
            frame = pd.read_parquet(path, columns=[c for c in names if c not in skip] or None)
        elif suffix == ".feather" and not compression:
            frame = pd.read_feather(path)
        elif suffix in (".csv", ".txt", ".tsv"):
            frame = _read_csv(path, "\t" if suffix == ".tsv" else ",", compression)
        else:
            raise InvalidInput(Problem(name, f"unsupported data format {''.join(path.suffixes[-2:]) or '(none)'!r}: "
                                             "use .csv (or .csv.gz, .csv.bz2), .parquet or .feather"))
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


def _open_text(path: Path, compression: str | None):
    """The file as UTF-8 text, decompressed on the fly."""
    if compression == "gzip":
        import gzip

        return gzip.open(path, "rt", newline="", encoding="utf-8-sig")
    if compression == "bz2":
        import bz2

        return bz2.open(path, "rt", newline="", encoding="utf-8-sig")
    return open(path, newline="", encoding="utf-8-sig")


def _read_csv(path: Path, sep: str, compression: str | None = None) -> pd.DataFrame:
    name = display_path(path)
    raw = path.read_bytes()
    if compression:
        import bz2
        import gzip

        try:
            raw = gzip.decompress(raw) if compression == "gzip" else bz2.decompress(raw)
        except (OSError, EOFError, ValueError) as exc:
            raise InvalidInput(Problem(name, f"cannot decompress ({compression}): {exc}")) from None
    if not raw.strip():
        raise InvalidInput(Problem(name, "data file is empty"))
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(Problem(name, f"data file is not valid UTF-8 (byte {exc.start})")) from None
    del raw
    with _open_text(path, compression) as stream:
        records = csv.reader(stream, delimiter=sep)
        header = next(records, [])
        dupes = sorted({c for c in header if header.count(c) > 1})
        if dupes:
            raise InvalidInput(Problem(name, f"duplicate column names: {dupes}"))
        # pandas would take a first row with one field too many as an index
        # column, and pads short rows with missing values: check the first
        # row here, and every row below when a short row may have been padded.
        first = next((r for r in records if r), None)
        if first is not None and len(first) != len(header):
            raise InvalidInput(_ragged(name, records.line_num, len(first), len(header)))
    try:
        frame = pd.read_csv(path, sep=sep, keep_default_na=False, na_values=[""], index_col=False, encoding="utf-8-sig",
                            compression=compression)
    except pd.errors.ParserError as exc:
        found = _FIELDS.search(str(exc))
        if found:
            expected, line, saw = (int(g) for g in found.groups())
            raise InvalidInput(_ragged(name, line, saw, expected)) from None
        raise
    if len(frame.columns) and frame.iloc[:, -1].isna().any():
        _check_no_short_rows(path, sep, len(header), compression)
    return frame


def _check_no_short_rows(path: Path, sep: str, expected: int, compression: str | None = None) -> None:
    with _open_text(path, compression) as stream:
        records = csv.reader(stream, delimiter=sep)
        next(records, None)
        for record in records:
            if record and len(record) < expected:
                raise InvalidInput(_ragged(display_path(path), records.line_num, len(record), expected))


def _ragged(name: str, line: int, fields: int, expected: int) -> Problem:
    return Problem(name, f"line {line} has {fields} field{'s' if fields != 1 else ''}, the header has {expected}: "
                         "every row needs one field per column (an empty field is a missing value)")


def parquet_columns(path: Path | InMemoryTable) -> list[str] | None:
    """Column names of a Parquet file, from its footer (no data read); None for any other input."""
    if isinstance(path, InMemoryTable) or Path(path).suffix.lower() not in (".parquet", ".pq") or not Path(path).is_file():
        return None
    import pyarrow.parquet as pq

    try:
        return [str(n) for n in pq.read_schema(path).names]
    except Exception:  # read_table names the problem
        return None


def check_flat_parquet(path: Path, skip: frozenset[str] = frozenset()) -> list[str]:
    """Nested Parquet columns (lists, structs, maps) and bytes have no place in a table of records.

    Columns in ``skip`` are not read, so they may hold anything. Returns the column names.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    for field in schema:
        if field.name in skip:
            continue
        kind = field.type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if pa.types.is_nested(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
            raise InvalidInput(Problem(display_path(path), f"column {field.name!r} holds {kind} values: only flat "
                                                           "columns of numbers, text, booleans or dates can be checked"))
    return [str(n) for n in schema.names]
