"""In-memory view of a release, as every evaluator receives it.

Frames are loaded once, validated (see :mod:`policycheck.release.load`) and
never modified: evaluators copy before they transform.
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class Dataset:
    """One data file of the release."""

    role: str  # "original", "holdout" or "synthetic"
    name: str  # e.g. "synthetic[1]" or the name given in the manifest
    frame: pd.DataFrame
    path: Path | None = None
    sha256: str | None = None
    synthesizer: SynthesizerInfo | None = None  # synthetic sets only

    @property
    def n_rows(self) -> int:
        return len(self.frame)


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
        return out
