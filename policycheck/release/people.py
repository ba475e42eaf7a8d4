"""People in the data: an id column whose ids repeat within a data set names a person with several records.

Panel data (Ecdat's Males: 545 men, a record a year for eight years) holds several records of
one person; every membership measure is about people, so a person key, declared ``id``, is
what the holdout check, the DCR share's relabelling and clusters, the MI risk's and the density
attack's bootstraps, and the membership game's targets and isolation go by. The linkage and
reconstruction intervals count a person's records as one cluster of trials, and reports count
people beside records. Ids unique within each data set number records, not people (two files
each numbered from 1 share ids and no one), and are not taken for people.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from policycheck.release.model import Dataset, Release

if TYPE_CHECKING:  # imported where used: the metrics registry imports this module, and loads light
    import numpy as np


def person_column(datasets: Sequence[Dataset]) -> str | None:
    """The first id column (in the first set's order) that every one of ``datasets`` has and whose ids repeat
    within one of them; None when none does."""
    frames = [d.id_frame for d in datasets]
    if not frames or any(f is None for f in frames):
        return None
    for column in frames[0].columns:  # type: ignore[union-attr]
        held = [f[column] for f in frames if f is not None and column in f.columns]
        if len(held) == len(frames) and any(ids.dropna().duplicated().any() for ids in held):
            return str(column)
    return None


def person_codes(datasets: Sequence[Dataset], column: str) -> list[np.ndarray]:
    """Each record's person as an integer per data set: one person one integer across the sets, and a
    record without an id a person of its own."""
    import numpy as np
    import pandas as pd

    ids = pd.concat([d.id_frame[column] for d in datasets if d.id_frame is not None], ignore_index=True)
    codes, uniques = pd.factorize(ids)
    missing = codes < 0
    codes[missing] = len(uniques) + np.arange(int(missing.sum()))
    return np.split(codes.astype(np.int64), np.cumsum([d.n_rows for d in datasets])[:-1])


def split_people(original: Dataset, holdout: Dataset) -> tuple[np.ndarray, np.ndarray] | None:
    """Each training and holdout record's person (one numbering for both), where an id column of both names
    people and no person has records in both; None otherwise (a split by record, which the loader reports,
    is counted by records)."""
    import numpy as np

    column = person_column([original, holdout])
    if column is None:
        return None
    training, holdout_people = person_codes([original, holdout], column)
    if np.isin(holdout_people, training).any():
        return None
    return training, holdout_people


def real_people(release: Release) -> tuple[str, dict[str, np.ndarray]] | None:
    """The id column naming the people of the release's real sets (original, holdout), and each set's
    :func:`person_codes` by role; None where no id column names people."""
    real = [d for d in (release.original, release.holdout) if d is not None]
    column = person_column(real)
    if column is None:
        return None
    return column, {d.role: codes for d, codes in zip(real, person_codes(real, column), strict=True)}


def people_of(release: Release, role: str) -> np.ndarray | None:
    """Each ``original`` or ``holdout`` record's person, where an id column names people; None otherwise
    (each record is then its own person)."""
    found = real_people(release)
    return found[1].get(role) if found is not None else None


def people_counted(release: Release) -> tuple[str | None, dict[str, int]]:
    """The id column naming the real sets' people (None where none does) and how many people each real set
    holds, by role (a record without an id a person of its own): what a report says beside its records."""
    import numpy as np

    found = real_people(release)
    if found is None:
        return None, {}
    column, codes = found
    return column, {role: int(np.unique(of_record).size) for role, of_record in codes.items()}
