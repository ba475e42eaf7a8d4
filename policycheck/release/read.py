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
:func:`check_columns`, for every format: Parquet and Feather by their Arrow
schema, an in-memory DataFrame by its values, a CSV by its header.

A Parquet or Feather file written by pandas keeps its index: an unnamed one
(``__index_level_0__``, a shuffled frame's row labels) is not a column and
is not read; a named one is the column it names, also when pandas stored it
only as a start and a step in its metadata (a named ``RangeIndex``: pandas 3
makes one of ``set_index("id")`` when the ids are evenly spaced). Files are
only read, never written.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

import pandas as pd

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.io.files import open_regular, stat_input
from policycheck.release.memory import InMemoryTable

_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
#: The columns pandas writes for an unnamed index (``df.to_parquet()`` of a shuffled frame).
_UNNAMED_INDEX = re.compile(r"__index_level_\d+__")

#: Compressed CSV suffixes and the codec behind each.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2"}
#: Longest CSV line read, in bytes: a longer one is not a record (a binary file, or a file of one line).
MAX_LINE_BYTES = 16_000_000
#: Bytes scanned at a time when a CSV is checked before parsing.
_BLOCK = 1 << 20
#: What a column must hold: flat values of one of these kinds (after a dictionary's values).
FLAT = "only flat columns of numbers, text, booleans or dates can be checked"


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
            frame = _read_arrow(path, suffix, skip)
        elif suffix in (".csv", ".txt", ".tsv"):
            frame = _read_csv(path, "\t" if suffix == ".tsv" else ",", compression)
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


# --- one set of column checks for every format ---------------------------------------


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


def arrow_kinds(schema: Any, skip: frozenset[str] = frozenset()) -> list[tuple[str, str | None]]:
    """The data columns of an Arrow schema (Parquet, Feather) and what each holds that cannot be read.

    An unnamed pandas index is not a data column; columns in ``skip`` are
    not read, so they may hold anything.
    """
    ranges: list[tuple[str, str | None]] = [(index.name, None) for index in range_indexes(schema)]
    return ranges + [
        (str(field.name), None if str(field.name) in skip else _arrow_refused(field.type))
        for field in _data_fields(schema)
    ]


def _data_fields(schema: Any) -> list[Any]:
    return [field for field in schema if not _UNNAMED_INDEX.fullmatch(str(field.name))]


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


def _arrow_refused(kind: Any) -> str | None:
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


# --- Parquet and Feather ----------------------------------------------------------------


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


def _read_arrow(path: Path, suffix: str, skip: frozenset[str]) -> pd.DataFrame:
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


# --- CSV ------------------------------------------------------------------------------------


@contextlib.contextmanager
def _open_binary(path: Path, compression: str | None) -> Iterator[IO[bytes]]:
    """The file's bytes, decompressed on the fly (a regular file only); both streams closed after."""
    with open_regular(path, "data") as raw:
        if compression == "gzip":
            import gzip

            with gzip.GzipFile(fileobj=raw, mode="rb") as stream:
                yield cast(IO[bytes], stream)
        elif compression == "bz2":
            import bz2

            with bz2.BZ2File(raw, "rb") as stream:
                yield stream
        else:
            yield raw


@contextlib.contextmanager
def _open_text(path: Path, compression: str | None) -> Iterator[IO[str]]:
    """The file as UTF-8 text, decompressed on the fly."""
    with _open_binary(path, compression) as stream:
        text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
        try:
            yield text
        finally:
            text.detach()  # the binary stream is closed by _open_binary


def scan_csv(path: Path, compression: str | None = None) -> None:
    """Check a CSV as a stream, a block at a time, before any parser holds it.

    Refused: bytes that do not decompress, text that is not UTF-8, a NUL
    byte (a binary or sparse file: from its first block, not after gigabytes),
    a line longer than :data:`MAX_LINE_BYTES`, and a file of nothing but blanks.
    """
    name = display_path(path)
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, line, run, blank = 0, 1, 0, True
    try:
        with _open_binary(path, compression) as stream:
            while block := stream.read(_BLOCK):
                nul = block.find(b"\0")
                if nul >= 0:
                    raise InvalidInput(
                        Problem(name, f"data file holds a NUL byte at byte {offset + nul}: it is not CSV text")
                    )
                try:
                    decoder.decode(block)
                except UnicodeDecodeError as exc:
                    raise InvalidInput(
                        Problem(name, f"data file is not valid UTF-8 (byte {offset + exc.start})")
                    ) from None
                first = block.find(b"\n")
                # Only a line crossing blocks can be longer than one: a block is far shorter than the cap.
                run += len(block) if first < 0 else first
                if run > MAX_LINE_BYTES:
                    raise InvalidInput(
                        Problem(
                            name, f"line {line} is longer than {MAX_LINE_BYTES} bytes: it is not a table of records"
                        )
                    )
                if first >= 0:
                    line += block.count(b"\n")
                    run = len(block) - block.rfind(b"\n") - 1
                blank = blank and not block.strip()
                offset += len(block)
            try:
                decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                raise InvalidInput(Problem(name, f"data file is not valid UTF-8 (byte {offset - 1})")) from None
    except (OSError, EOFError, ValueError) as exc:  # gzip's and bz2's errors for bytes they cannot decompress
        if compression is None:
            raise InvalidInput(Problem(name, f"cannot read data file: {exc}")) from None
        raise InvalidInput(Problem(name, f"cannot decompress ({compression}): {exc}")) from None
    if blank:
        raise InvalidInput(Problem(name, "data file is empty"))


def _read_csv(path: Path, sep: str, compression: str | None = None) -> pd.DataFrame:
    name = display_path(path)
    scan_csv(path, compression)
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
        with _open_binary(path, compression) as stream:
            frame = pd.read_csv(
                stream, sep=sep, keep_default_na=False, na_values=[""], index_col=False, encoding="utf-8-sig"
            )
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
    return Problem(
        name,
        f"line {line} has {fields} field{'s' if fields != 1 else ''}, the header has {expected}: "
        "every row needs one field per column (an empty field is a missing value)",
    )


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
