"""A Parquet synthetic set too large to hold whole: read in batches, a column at a time, or whole only if asked.

A synthetic set of tens of millions of rows would cost the ``policycheck``
process gigabytes as a table of Python labels. Above
:data:`STREAM_ABOVE_ROWS` rows a Parquet synthetic set is loaded as a
:class:`StreamedDataset`: the loader checks it batch by batch (the same
conversions and checks as a file read whole, row numbers counted across
batches), the DCR search reads its row groups in the workers
(:mod:`policycheck.methods.streamed_dcr`), the Gower encoding is fitted one
column at a time, and the whole table is read only when an evaluator that
needs every row in memory (linkage, reconstruction, utility) asks for
``frame``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policycheck.release.model import ColumnType, Dataset, Piece, SynthesizerInfo

if TYPE_CHECKING:
    import pandas as pd

#: A Parquet synthetic set of more rows than this is streamed (one shard of the streamed DCR search).
STREAM_ABOVE_ROWS = 500_000

#: Rows converted from Arrow to pandas at a time.
BATCH_ROWS = 65_536

PARQUET_SUFFIXES = (".parquet", ".pq")


def parquet_rows(path: Any) -> int | None:
    """Rows of a Parquet file, from its footer (no data read); None for any other input."""
    if (
        not isinstance(path, (str, Path))
        or Path(path).suffix.lower() not in PARQUET_SUFFIXES
        or not Path(path).is_file()
    ):
        return None
    import pyarrow.parquet as pq

    try:
        return int(pq.ParquetFile(path).metadata.num_rows)
    except Exception:  # read_table names the problem
        return None


def is_streamed(path: Any) -> bool:
    """Whether a synthetic set at ``path`` is loaded as a :class:`StreamedDataset`."""
    rows = parquet_rows(path)
    return rows is not None and rows > STREAM_ABOVE_ROWS


@dataclass(frozen=True)
class ParquetSource:
    """How to read a checked Parquet file as the loader does: its analysed columns, their roles, its id columns."""

    path: Path
    types: dict[str, ColumnType]
    roles: dict[str, str]
    orders: dict[str, list[Any]]
    formats: dict[str, str]
    ids: tuple[str, ...]
    #: As findings name the data set ("synthetic set 'big'").
    label: str

    def pieces(
        self, columns: Sequence[str] | None = None, notes: list[str] | None = None, with_ids: bool = True
    ) -> Iterator[Piece]:
        """The file in batches of :data:`BATCH_ROWS` rows, in row order, converted as the loader converts it.

        ``columns``: the analysed columns to read (all by default). A value the
        loader refuses raises with its row in the file; ``notes`` gathers the
        findings of the conversions, once per column.
        """
        import pyarrow.parquet as pq

        from policycheck.release.convert import coerce_frame, to_labels
        from policycheck.release.read import arrow_to_frame, restore_range_indexes, stored_columns

        wanted = list(self.types) if columns is None else list(columns)
        ids = list(self.ids) if with_ids else []
        noted: dict[str, str] = {}
        offset = 0
        source = pq.ParquetFile(self.path)
        schema = source.schema_arrow
        read = stored_columns(schema, wanted + ids)
        for batch in source.iter_batches(batch_size=BATCH_ROWS, columns=read, use_threads=False):
            # a named pandas index is a column here too, also when stored as a range
            raw = restore_range_indexes(arrow_to_frame(batch), schema, wanted + ids, first_row=offset)
            said: list[str] = []
            frame = coerce_frame(
                self.path,
                raw,
                {c: self.types[c] for c in wanted},
                self.roles,
                self.orders,
                self.formats,
                said,
                self.label,
                first_row=offset,
            )
            for note in said:  # a note names its column before " row ": the first batch's is kept
                noted.setdefault(note.split(" row ")[0], note)
            id_frame = None
            if ids:
                import pandas as pd

                id_frame = pd.DataFrame({c: pd.Series(to_labels(raw[c]), dtype=object) for c in ids})
            yield Piece(offset, frame.set_axis(range(offset, offset + len(frame))), id_frame)
            offset += len(raw)
            del raw, batch
        if notes is not None:
            notes.extend(noted.values())

    def column(self, name: str) -> pd.Series:
        """One analysed column, whole (one column of ten million rows is 80 MB of numbers or label references)."""
        import pandas as pd

        parts = [piece.frame[name] for piece in self.pieces([name], with_ids=False)]
        return pd.concat(parts, ignore_index=True)

    def read(self) -> pd.DataFrame:
        """Every analysed column, whole."""
        import pandas as pd

        return pd.concat([piece.frame for piece in self.pieces(with_ids=False)], ignore_index=True)


class ColumnReader:
    """A streamed set seen as a table of columns: ``reader[name]`` reads that column whole.

    What :func:`policycheck.methods.gower.fit_gower` needs of every set, one
    column at a time, so the encoding is fitted on exactly the values the
    whole set would give.
    """

    def __init__(self, source: ParquetSource) -> None:
        self.source = source

    def __getitem__(self, name: str) -> pd.Series:
        return self.source.column(name)


@dataclass(frozen=True, eq=False, repr=False)
class StreamedDataset(Dataset):
    """A synthetic set read from its Parquet file in pieces; ``frame`` reads it whole, once, on first use."""

    # Keyword-only: Dataset's fields before them have defaults.
    source: ParquetSource = field(kw_only=True)
    rows: int = field(default=0, kw_only=True)
    _frame: Any = field(default=None, init=False, compare=False)

    @property  # type: ignore[misc]  # a dataclass field of Dataset, a lazy attribute here
    def frame(self) -> pd.DataFrame:
        if self._frame is None:
            object.__setattr__(self, "_frame", self.source.read())
        return self._frame

    @frame.setter
    def frame(self, value: pd.DataFrame | None) -> None:
        object.__setattr__(self, "_frame", value)

    @property
    def n_rows(self) -> int:
        return self.rows

    @property
    def columns(self) -> list[str]:
        return list(self.source.types)

    @property
    def id_columns(self) -> list[str]:
        return list(self.source.ids)

    @property
    def loaded(self) -> bool:
        """Whether an evaluator has read the whole set into memory."""
        return self._frame is not None

    def pieces(self, columns: Sequence[str] | None = None) -> Iterator[Piece]:
        return self.source.pieces(columns)

    def column_reader(self) -> ColumnReader:
        return ColumnReader(self.source)

    def with_synthesizer(self, info: SynthesizerInfo) -> StreamedDataset:
        # The frame as it stands (read or not): dataclasses.replace would read every field, the whole set too.
        return dataclasses.replace(self, frame=self._frame, synthesizer=info)

    # Identity, not the fields: comparing frames would read the whole set.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"StreamedDataset(role={self.role!r}, name={self.name!r}, path={self.path!r}, rows={self.rows})"


def streams(dataset: object) -> bool:
    """Whether ``check``'s DCR search streams this synthetic set: one the loader left on disk
    (``metrics/membership/gower_dcr.py``, ``methods/cost_model.gower_dcr``). Asked here, beside the
    class, so that asking loads neither the compiled search nor pandas."""
    return isinstance(dataset, StreamedDataset)
