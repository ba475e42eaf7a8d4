"""In-memory view of a release, as every evaluator receives it.

Frames are loaded once, validated (see :mod:`policycheck.release.load`) and
never modified: evaluators copy before they transform.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only annotations name pandas: the registry and `validate` load without it
    import pandas as pd


class ColumnType(str, Enum):
    """How a column is compared: by magnitude, by order, or by equality only."""

    NUMERIC = "numeric"
    ORDINAL = "ordinal"  # ordered categories; the order is given in the manifest
    CATEGORICAL = "categorical"


#: Every role a column of the input files can have. Analysed columns are
#: numeric, ordinal, categorical or datetime (compared as a number of days);
#: ``id`` columns are kept aside for the id-leak check only and ``ignore``
#: columns are dropped. See :mod:`policycheck.release.roles`.
ROLES = ("numeric", "ordinal", "categorical", "datetime", "id", "ignore")


@dataclass(frozen=True)
class SynthesizerInfo:
    """What the release declares about the synthesizer behind one set."""

    name: str = "unknown"
    epsilon: float | None = None
    delta: float | None = None
    #: Free-form declared parameters (mechanism, rho for zCDP, alpha, ...).
    params: dict[str, Any] = field(default_factory=dict)
    #: Shell command template to re-run the synthesizer (attack games), or None.
    command: str | None = None
    #: A Python entry point to re-run it in process (the API's ``synthesizer=``): a callable
    #: ``fn(frame, rows, seed) -> frame`` or an object with SDV's ``fit``/``sample``. Never in a report.
    entry: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Dataset:
    """One data file of the release."""

    role: str  # "original", "holdout", "synthetic" or "population"
    name: str  # e.g. "synthetic[1]" or the name given in the manifest
    frame: pd.DataFrame
    path: Path | None = None
    sha256: str | None = None
    synthesizer: SynthesizerInfo | None = None  # synthetic sets only
    #: The values of the id columns (no analysed column), row by row; empty
    #: when the release declares no id column. Read only by the id-leak check.
    id_frame: pd.DataFrame | None = None
    #: Each categorical column's labels as the loader numbered them (``label_categories``): the
    #: column is these categories at these codes, so what numbers its values (the Gower fit) need
    #: not hash every label again. Only for ``frame`` as loaded: a data set made with another frame
    #: has none (empty: every column is numbered from its values).
    numbered: Mapping[str, pd.Categorical] = field(default_factory=dict, compare=False, repr=False)

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    @property
    def columns(self) -> list[str]:
        """The analysed columns."""
        return list(self.frame.columns)

    @property
    def id_columns(self) -> list[str]:
        """The id columns the file holds."""
        return [] if self.id_frame is None else list(self.id_frame.columns)

    def pieces(self, columns: Sequence[str] | None = None) -> Iterator[Piece]:
        """The data set as pieces of consecutive rows: here one, the whole frame (a streamed set gives batches).

        Checks that need every row but not all at once go through this, so
        they run on a set too large to hold (:mod:`policycheck.release.stream`).
        """
        yield Piece(0, self.frame if columns is None else self.frame[list(columns)], self.id_frame)

    def with_synthesizer(self, info: SynthesizerInfo) -> Dataset:
        """This data set described by another synthesizer declaration."""
        return dataclasses.replace(self, synthesizer=info)

    def column_reader(self) -> Any:
        """A table whose ``[name]`` is the whole column ``name`` (here the frame itself)."""
        return self.frame


@dataclass(frozen=True)
class Piece:
    """Consecutive rows of a data set: ``frame`` (analysed columns, as the loader gives them) and ``ids``.

    ``offset`` is the 0-based row of the file where the piece starts.
    """

    offset: int
    frame: pd.DataFrame
    ids: pd.DataFrame | None


@dataclass(frozen=True)
class Release:
    """Everything an evaluation may look at; which part an attacker may use
    is decided by the policy's attacker model, not here."""

    id: str
    original: Dataset
    synthetic: tuple[Dataset, ...]
    holdout: Dataset | None
    column_types: dict[str, ColumnType]
    #: Category order of ordinal columns, lowest first.
    orders: dict[str, list[Any]] = field(default_factory=dict)
    manifest_path: Path | None = None
    manifest_sha256: str | None = None
    #: The SDV metadata file the roles were read from, and its SHA-256 (provenance: verify re-hashes it).
    metadata_path: Path | None = None
    metadata_sha256: str | None = None
    #: Role of every column of the input files, analysed or not (see ROLES),
    #: in file order. Datetime columns are NUMERIC in ``column_types``.
    roles: dict[str, str] = field(default_factory=dict)
    #: Where each column's role came from: ``declared in the manifest``, ``--column-type``, ``columns= (API)``,
    #: ``SDV metadata FILE``, or ``inferred from FILE, ...`` (the files whose values decided it).
    role_sources: dict[str, str] = field(default_factory=dict)
    #: strftime format of datetime columns that declare one.
    formats: dict[str, str] = field(default_factory=dict)
    #: What loading found that a reader must know but that does not stop the
    #: check (ids shared with the original, holdout rows that are training
    #: rows, extreme values, integers read as floats): one sentence each.
    findings: list[str] = field(default_factory=list)
    #: Records the membership game draws its training sets and targets from, when the release names
    #: them (a census, a register): by default the game draws from the original and holdout records.
    population: Dataset | None = None

    @property
    def columns(self) -> list[str]:
        return list(self.original.frame.columns)

    def numeric_columns(self) -> list[str]:
        return [c for c in self.columns if self.column_types[c] is ColumnType.NUMERIC]

    def categorical_columns(self) -> list[str]:
        return [c for c in self.columns if self.column_types[c] is ColumnType.CATEGORICAL]

    def datasets(self) -> list[Dataset]:
        """Every dataset, original first, for hashing and provenance."""
        out = [self.original, *self.synthetic]
        if self.holdout is not None:
            out.append(self.holdout)
        if self.population is not None:
            out.append(self.population)
        return out
