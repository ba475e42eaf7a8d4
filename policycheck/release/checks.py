"""Checks across the files of a release, before any metric runs.

Each either refuses the release (exit 2, one line) or adds a finding: a
sentence the report and the console show beside the verdicts.

- **One file named twice** (:func:`check_synthetic_files_distinct`). A
  file given as two synthetic sets (the same path, another path to it, a
  link) is refused before anything is read: it would be checked twice and
  listed twice in every report.
- **Same file twice.** A holdout that is the original file, or a synthetic
  set that is the holdout file (same sha256), is refused: a holdout must be
  real records the synthesizer never saw. A synthetic set that is the
  original file is a legitimate input (a verbatim copy, which the metrics
  must fail) and only noted; so are two synthetic files of the same bytes.
- **Same content.** The same test on the rows themselves (a 64-bit hash of
  each whole row over the analysed columns, collisions checked value by
  value), so a re-saved or re-ordered copy is caught as well.
- **Holdout overlap.** The share of holdout rows equal to some training row
  is set against chance: the share of training rows equal to another
  training row, at its 99.9% upper bound. Beyond it (one-sided binomial,
  p < 1e-3) it is a finding; over half the holdout and more than twice
  chance, the release is refused.
- **Holdout copied** (:func:`check_holdout_copied`). Synthetic rows equal
  to a holdout record that no training record equals are set against the
  chance of landing on such a record without having seen it, measured on
  the holdout's own records. Beyond chance (p < 1e-3) it is a finding; far
  beyond it (p < 1e-6, over twice chance) the release is refused: the
  synthesizer saw the holdout, so the holdout is no control (every holdout
  test would compare copies with copies), and those synthetic records are
  real ones.
- **Holdout people** (:func:`check_holdout_people`). Holdout records whose
  person (an id column whose ids repeat: several records each) also has
  training records are a finding; over half the holdout, refused.
- **Id leak.** Synthetic ids equal to ids of original records are a leak on
  their own (the id says the person was in the data): a finding, with how
  many of those rows also equal that person's analysed values.
- **Extreme values** (see :func:`check_extremes`).
- **Coded like the original** (:func:`check_like_original`). A holdout or
  synthetic column of another kind of value than the original's (income
  as 0/1 against '<=50K'/'>50K') with no value in common with it is
  refused: every distance and attack would compare codes that never match.
  A holdout column missing in every row is refused too: a holdout is real
  records with the original's columns, the control of every comparison.
- **Empty synthetic columns** (:func:`check_empty_columns`). A synthetic
  column missing in every row is a finding: a synthesizer may suppress a
  column whole, and the signer should know the release says nothing of it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.core.plural import count_of, noun
from policycheck.release.model import ColumnType, Dataset
from policycheck.release.people import person_column
from policycheck.release.roles import row_number

#: Holdout overlap share above which (and above twice chance) the release is refused.
OVERLAP_REFUSED = 0.5
#: Rows shared beyond chance at this p-value (one-sided binomial, against chance's upper bound) are noted ...
BEYOND_CHANCE_NOTED = 1e-3
#: ... and at this one, with over twice chance, refused (synthetic rows copying holdout-only records).
BEYOND_CHANCE_REFUSED = 1e-6
#: Chance is the upper bound of its estimate at this level (one-sided): the estimate is a sample too.
CHANCE_BOUND = 1e-3
#: A value this many bulk widths beyond the original's central 98% is noted ...
EXTREME_NOTED = 1e3
#: ... and this many is refused: no real column spans a million times its bulk.
EXTREME_REFUSED = 1e6


class RowHashes:
    """Each data set's row hashes, and their stable sorting order, computed once for all the checks."""

    def __init__(self) -> None:
        self._done: dict[int, np.ndarray] = {}
        self._orders: dict[int, np.ndarray] = {}
        self._sorted: dict[int, np.ndarray] = {}

    def __call__(self, data: Dataset) -> np.ndarray:
        if id(data) not in self._done:
            self._done[id(data)] = np.concatenate([row_hashes(piece.frame) for piece in data.pieces()])
        return self._done[id(data)]

    def order(self, data: Dataset) -> np.ndarray:
        """The rows of ``data`` in the order of their hashes (a stable sort: equal hashes in row order)."""
        if id(data) not in self._orders:
            self._orders[id(data)] = np.argsort(self(data), kind="stable")
        return self._orders[id(data)]

    def sorted(self, data: Dataset) -> np.ndarray:
        """The row hashes of ``data`` in their sorted order (:meth:`order`), for searches among them."""
        if id(data) not in self._sorted:
            self._sorted[id(data)] = self(data)[self.order(data)]
        return self._sorted[id(data)]

    def among(self, data: Dataset, table: np.ndarray) -> np.ndarray:
        """Whether each row's hash of ``data`` is in ``table`` (sorted), in row order.

        Where the hashes' order is at hand (the loader's threads sort them), searched in that
        order, which walks the table in turn instead of at random: 8 ms against 48 ms for 300,000
        hashes in 300,000, the same answers. A set not sorted yet (a streamed one) is not sorted
        for this.
        """
        if id(data) not in self._orders:
            return _among(self(data), table)
        found = np.empty(len(self(data)), dtype=bool)
        found[self.order(data)] = _among(self.sorted(data), table)
        return found

    def put(self, data: Dataset, hashes: np.ndarray, order: np.ndarray) -> None:
        """Keep ``data``'s row hashes and their order (:func:`hashed_rows` of its frame), computed elsewhere."""
        self._done[id(data)], self._orders[id(data)] = hashes, order


def check_synthetic_files_distinct(synthetic: Sequence[tuple[Any, str]]) -> None:
    """Refuse a file given as two synthetic sets (``(source, name)`` pairs): by the file itself, not its name.

    ``a.csv`` and ``./a.csv``, a link to it or a hard link are one file; two
    files of the same bytes are not (a user's choice, noted by :func:`check_same_files`).
    Sources that are no path (the API's DataFrames) are not compared.
    """
    first: dict[Any, str] = {}
    for source, name in synthetic:
        if not isinstance(source, Path):
            continue
        try:
            info = os.stat(source)
            key: Any = (info.st_dev, info.st_ino)
        except (OSError, ValueError):  # missing or unreadable: refused when read; compared by its resolved path here
            key = source.resolve()
        if key in first:
            raise InvalidInput(
                Problem(
                    display_path(source),
                    f"the same file is given twice as a synthetic set ({first[key]!r} and {name!r}): "
                    "give each synthetic file once",
                )
            )
        first[key] = name


def check_same_files(
    original: Dataset, holdout: Dataset | None, synthetic: tuple[Dataset, ...], hashes: RowHashes
) -> list[str]:
    """Refuse a holdout that is the original or a synthetic set, by file hash and by content."""
    findings = []
    _same = functools.partial(_same_data, hashes=hashes)
    if holdout is not None:
        for other in (original, *synthetic):
            same = _same(holdout, other)
            if same:
                first, second = (holdout, other) if other.role == "original" else (other, holdout)
                raise InvalidInput(
                    Problem(
                        display_path(holdout.path or holdout.name),
                        (
                            f"the {_what(first)} has the same {same} as the {_what(second)}: a holdout must be real "
                            "records the synthesizer never saw, in a file of its own"
                        ),
                    )
                )
    for i, syn in enumerate(synthetic):
        same = _same(syn, original)
        if same:
            findings.append(f"{_what(syn)} has the same {same} as the original: it is checked as a verbatim copy")
        for earlier in synthetic[:i]:
            same = _same(syn, earlier)
            if same:
                findings.append(f"{_what(syn)} has the same {same} as {_what(earlier)}: the release counts it twice")
    return findings


def check_holdout_overlap(original: Dataset, holdout: Dataset | None, hashes: RowHashes) -> list[str]:
    """Holdout rows that are training rows, against chance: training rows that equal another training row.

    A holdout drawn apart from the training records repeats a training row about as often as a
    training row repeats another (coarse data repeats rows by chance); that share is a sample
    too, so its 99.9% upper bound (Clopper-Pearson) is the chance the holdout is tested against,
    one-sided binomial: a finding at p < 1e-3 (at the share itself, a holdout split at random
    from the same records was noted about every other time), refused over half the holdout and
    twice chance.
    """
    if holdout is None:
        return []
    hold = hashes(holdout)
    order = hashes.order(original)
    sorted_train = hashes.sorted(original)
    rows = np.flatnonzero(hashes.among(holdout, sorted_train))
    equal = _rows_equal(holdout.frame, rows, original.frame, order[np.searchsorted(sorted_train, hold[rows])])
    shared = int(equal.sum())
    if shared == 0:
        return []
    share = shared / len(hold)
    repeated = int(np.sum(_run_lengths(sorted_train) > 1))
    chance = _chance_bound(repeated, len(sorted_train))
    p = _binomial_p(shared, len(hold), chance)
    said = (
        f"{shared:,} of {len(hold):,} holdout rows ({share:.1%}) equal a training row, against at most "
        f"{chance:.1%} by chance ({_p_value(p)}; chance: {repeated:,} of {len(sorted_train):,} training rows equal "
        "another training row, at its 99.9% upper bound)"
    )
    if share > OVERLAP_REFUSED and share > 2 * chance:
        raise InvalidInput(
            Problem(
                display_path(holdout.path or holdout.name),
                (
                    f"{said}: the holdout overlaps the training data, so it cannot be the control of records the "
                    f"synthesizer never saw (refused above {OVERLAP_REFUSED:.0%} and twice chance)"
                ),
            )
        )
    if p < BEYOND_CHANCE_NOTED and share > chance:
        return [f"holdout: {said}; the holdout overlaps the training data, which weakens every holdout control"]
    return []


def _run_lengths(sorted_hashes: np.ndarray) -> np.ndarray:
    """For each of ``sorted_hashes``, how many of them equal it."""
    starts = np.flatnonzero(np.r_[True, sorted_hashes[1:] != sorted_hashes[:-1]])
    run = np.diff(np.r_[starts, len(sorted_hashes)])
    lengths: np.ndarray = np.repeat(run, run)
    return lengths


def _chance_bound(events: int, sample: int) -> float:
    """Chance: the 99.9% upper bound (Clopper-Pearson, one-sided) of ``events / sample``."""
    from policycheck.core.stats import clopper_pearson  # SciPy's special functions: only once a check needs them

    return clopper_pearson(events, sample, confidence=1 - 2 * CHANCE_BOUND)[1]


def _binomial_p(count: int, trials: int, chance: float) -> float:
    """The one-sided p-value of ``count`` of ``trials`` at ``chance`` or beyond."""
    from policycheck.core.stats import binomial_upper_tail

    return binomial_upper_tail(count, trials, chance)


def _p_value(p: float) -> str:
    return f"p = {p:.1e}" if p >= 1e-300 else "p < 1e-300"


def check_holdout_copied(
    original: Dataset, holdout: Dataset | None, synthetic: tuple[Dataset, ...], hashes: RowHashes
) -> list[str]:
    """Synthetic rows that copy a holdout record no training record equals, against chance.

    A synthesizer that never saw the holdout lands on such a record only as a new record that
    happens to be one, as a real record drawn from the population does: a generalising
    synthesizer about as often, a memorising one less (its copies are training records), one
    drawn to common records less again (the training set holds those too). Chance is measured
    on the holdout itself, each of its records as such a draw against the others: the share of
    holdout records that equal another holdout record and no training record (leave one out:
    any sizes of the sets). Its 99.9% upper bound (Clopper-Pearson) is the chance a set is tested
    against, one-sided binomial, since the share is itself a sample. A set copying more means
    the synthesizer saw the holdout's records (trained on training and holdout together, or on
    a file the holdout was later taken from): a DCR share or MI risk would then compare copies
    with copies and call the release safe. Rows are matched by their hashes and each copy
    counted is checked value by value.
    """
    if holdout is None or not synthetic:
        return []
    # On the sets' sorted hashes, which the other checks sorted already (NumPy's unique and isin hash
    # or sort anew: 0.6 s at 300,000 rows against 0.1).
    order, sorted_hold = hashes.order(holdout), hashes.sorted(holdout)
    holdout_only = ~_among(sorted_hold, hashes.sorted(original))
    landed = int(np.sum(holdout_only & (_run_lengths(sorted_hold) > 1)))
    chance = _chance_bound(landed, len(sorted_hold))
    only = sorted_hold[holdout_only]
    findings: list[str] = []
    for syn in synthetic:
        hashed = hashes(syn)
        candidate = np.flatnonzero(hashes.among(syn, only))
        copies = _count_equal(syn, candidate, holdout, order[np.searchsorted(sorted_hold, hashed[candidate])])
        share, p = copies / syn.n_rows, _binomial_p(copies, syn.n_rows, chance)
        if p >= BEYOND_CHANCE_NOTED or share <= chance:
            continue
        said = (
            f"{_what(syn)}: {copies:,} of its {syn.n_rows:,} rows ({share:.1%}) copy a holdout record that no "
            f"training record equals, against at most {chance:.2%} by chance "
            f"({_p_value(p)}; chance: {landed:,} of {len(sorted_hold):,} "
            "holdout records equal another holdout record and no training record, at its 99.9% upper bound)"
        )
        if p < BEYOND_CHANCE_REFUSED and share > 2 * chance:
            raise InvalidInput(
                Problem(
                    display_path(holdout.path or holdout.name),
                    f"{said}: the synthesizer saw the holdout, so it cannot be the control of records the "
                    "synthesizer never saw, and those synthetic records are real ones (refused at p < 1e-6 and "
                    "over twice chance)",
                )
            )
        findings.append(f"{said}: the synthesizer may have seen the holdout, which weakens every holdout control")
    return findings


def check_holdout_people(original: Dataset, holdout: Dataset | None) -> list[str]:
    """Holdout records of people who also have training records: a split by record, not by person.

    An id column whose values repeat within the original or the holdout names a person with
    several records (panel data: a man's eight years). A holdout record carrying the id of a
    training record belongs to a person the synthesizer saw, so every holdout control
    compares the synthetic records with other records of the training people and understates
    the risk to them (Ecdat's Males panel split by record, CART: DCR share 0.64 against 0.75 split
    by person, MI risk 0.40 against 0.58, the density attack 0.24 against 0.43). Any such
    record is a finding; over half the holdout, the release is refused. The person key is
    :func:`policycheck.release.people.person_column`'s.
    """
    column = person_column([original, holdout]) if holdout is not None else None
    if column is None:
        return []
    assert holdout is not None and original.id_frame is not None and holdout.id_frame is not None  # it has the column
    holdout_ids = holdout.id_frame[column]
    shared = holdout_ids.notna() & holdout_ids.isin(original.id_frame[column].dropna())
    k, n = int(shared.sum()), holdout.n_rows
    if not k:
        return []
    people = int(holdout_ids[shared].nunique())
    said = (
        f"{k:,} of {n:,} holdout records ({k / n:.1%}) belong to {people:,} {noun(people, 'person', 'people')} "
        f"whose id in id column {column!r} also names training records (its ids repeat: a person's several records)"
    )
    if k / n > OVERLAP_REFUSED:
        raise InvalidInput(
            Problem(
                display_path(holdout.path or holdout.name),
                f"{said}: the holdout was split by record, not by person, so it cannot be the control of "
                f"people the synthesizer never saw (refused above {OVERLAP_REFUSED:.0%}): split the records by "
                f"{column!r}, or declare {column!r} ignore if it does not name a person",
            )
        )
    return [
        f"holdout: {said}; the holdout is split by record, not by person, which weakens every holdout control: "
        f"split the records by {column!r}"
    ]


def _among(query: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Whether each hash of ``query`` is in ``table`` (sorted)."""
    if not len(table):
        return np.zeros(len(query), dtype=bool)
    found: np.ndarray = table[np.searchsorted(table, query).clip(max=len(table) - 1)] == query
    return found


def _count_equal(data: Dataset, rows: np.ndarray, other: Dataset, other_rows: np.ndarray) -> int:
    """How many of ``data``'s ``rows`` equal ``other``'s ``other_rows`` value by value (``data`` piece by piece)."""
    equal = 0
    for piece in data.pieces():  # a streamed set batch by batch
        inside = (rows >= piece.offset) & (rows < piece.offset + len(piece.frame))
        if inside.any():
            equal += int(_rows_equal(piece.frame, rows[inside] - piece.offset, other.frame, other_rows[inside]).sum())
    return equal


def check_id_leak(original: Dataset, synthetic: tuple[Dataset, ...]) -> list[str]:
    """Synthetic ids that are ids of original records."""
    findings: list[str] = []
    if original.id_frame is None:
        return findings
    for syn in synthetic:
        columns = [c for c in original.id_frame.columns if c in syn.id_columns]
        if not columns:
            continue
        real = {c: original.id_frame[c] for c in columns}
        known = {c: set(real[c].dropna()) for c in columns}
        # The original row each id names (its first, if ids repeat).
        first_row = {
            c: pd.Series(np.arange(len(real[c])), index=real[c].to_numpy()).groupby(level=0).first() for c in columns
        }
        shared_rows = dict.fromkeys(columns, 0)
        copies = dict.fromkeys(columns, 0)
        for piece in syn.pieces():  # a streamed set batch by batch
            assert piece.ids is not None  # the set has id columns, so each piece carries them
            for column in columns:
                ids = piece.ids[column]
                rows = np.flatnonzero(ids.notna().to_numpy() & ids.isin(known[column]).to_numpy())
                if not rows.size:
                    continue
                matched = first_row[column].reindex(ids.to_numpy()[rows]).to_numpy(dtype=int)
                shared_rows[column] += rows.size
                copies[column] += int(_rows_equal(piece.frame, rows, original.frame, matched).sum())
        for column in columns:
            k, n = shared_rows[column], syn.n_rows
            if not k:
                continue
            findings.append(
                f"{_what(syn)}: {k:,} of {n:,} rows ({k / n:.1%}) carry the id of an original "
                f"record in id column {column!r}, and {copies[column]:,} of them equal that record in every analysed "
                "column; an id shared with the original publishes that the person was in the data: give "
                "synthetic records new ids"
            )
    return findings


def check_extremes(datasets: list[Dataset], types: dict[str, ColumnType]) -> list[str]:
    """Values far beyond the bulk of the original, which would stretch a Gower range.

    The bulk of a numeric column is the original's central 98% (1st to 99th
    percentile), its width w (when that is 0, the original's whole range). A
    value more than 1,000 w beyond the bulk is a finding: it stretches the
    column's range in every Gower distance, shrinking every other difference
    in it more than 1,000-fold. More than 10^6 w (a value like 1e308 or an
    overflowed integer) is refused.
    """
    findings = []
    original = datasets[0]
    bulks: dict[str, tuple[float, float, float]] = {}  # column -> (low, high, width) of the original's bulk
    for column, kind in types.items():
        if kind is not ColumnType.NUMERIC:
            continue
        bulk = original.frame[column].to_numpy(dtype=float)
        bulk = bulk[~np.isnan(bulk)]
        if not len(bulk):
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            low, high = np.quantile(bulk, [0.01, 0.99])
            width = high - low if high > low else bulk.max() - bulk.min()
        if not np.isfinite(width):
            raise InvalidInput(
                Problem(
                    display_path(original.path or original.name),
                    (
                        f"column {column!r} spans beyond the floating-point range ({bulk.min():g} to {bulk.max():g}): "
                        "no distance can be computed on it"
                    ),
                )
            )
        if width > 0:
            bulks[column] = (low, high, width)
    # Each data set in one pass (a streamed set batch by batch): per column its farthest value and how many are far.
    farthest: dict[tuple[str, int], tuple[float, float, int, int]] = {}  # (times, value, row, count beyond noted)
    for d, data in enumerate(datasets):
        if not bulks:
            break
        for piece in data.pieces(list(bulks)):
            for column, (low, high, width) in bulks.items():
                values = piece.frame[column].to_numpy(dtype=float)
                with np.errstate(over="ignore", invalid="ignore"):
                    beyond = np.nan_to_num(np.maximum(low - values, values - high) / width, nan=0.0)
                worst = int(np.argmax(beyond))
                times, value, row, count = farthest.get((column, d), (0.0, 0.0, 0, 0))
                count += int((beyond > EXTREME_NOTED).sum())
                if beyond[worst] > times:
                    times, value, row = float(beyond[worst]), float(values[worst]), piece.offset + worst
                farthest[(column, d)] = (times, value, row, count)
    for column, (low, high, _width) in bulks.items():
        for d, data in enumerate(datasets):
            times, value, row, count = farthest[(column, d)]
            if times <= EXTREME_NOTED:
                continue
            said = (
                f"column {column!r} {_place(data, row)} holds {value:g}, {times:.3g} times the width "
                f"of the original's central 98% ({low:g} to {high:g}) beyond it"
            )
            if times > EXTREME_REFUSED:
                raise InvalidInput(
                    Problem(
                        display_path(data.path or data.name),
                        (
                            f"{said}: it would stretch the column's Gower range so every other difference in it counts "
                            f"as nothing (refused beyond {EXTREME_REFUSED:.0e} widths); correct or remove the value"
                        ),
                    )
                )
            findings.append(
                f"{_what(data)}: {said}, and {count_of(count, 'value')} in all that far out; "
                f"{noun(count, 'it stretches', 'they stretch')} the column's Gower range, shrinking every other "
                "difference in it"
            )
    return findings


#: pandas' inferred type of a column -> the kind of value it holds, for :func:`value_kind`.
_KINDS = {
    "integer": "numbers",
    "floating": "numbers",
    "mixed-integer-float": "numbers",
    "decimal": "numbers",
    "integer-na": "numbers",
    "boolean": "booleans",
    "date": "dates",
    "datetime": "dates",
    "datetime64": "dates",
    "string": "text",
    "mixed": "text",
    "mixed-integer": "text",
}


def value_kind(series: pd.Series) -> str | None:
    """What a column holds as read (numbers, booleans, dates or text), or None when it holds nothing."""
    if not series.notna().any():
        return None
    return _KINDS.get(pd.api.types.infer_dtype(series, skipna=True), "text")


def check_like_original(
    data: Dataset,
    kinds: dict[str, str | None],
    original_kinds: dict[str, str | None],
    original: Dataset,
    types: dict[str, ColumnType],
) -> None:
    """Refuse a holdout or synthetic column coded unlike the original's, and a holdout column missing throughout.

    ``kinds`` and ``original_kinds``: :func:`value_kind` of each column of the
    two files as read. A categorical column is refused when its values are
    of another kind than the original's and share no label with it; a column
    of text digits against the original's numbers ('1' and 1) is the same labels.
    """
    name = display_path(data.path or data.name)
    for column, kind in types.items():
        if kind is not ColumnType.CATEGORICAL:
            continue
        ours, theirs = kinds.get(column), original_kinds.get(column)
        if ours is None or theirs is None or ours == theirs:
            continue
        original_labels = pd.unique(original.frame[column].dropna())
        labels = _labels(data, column)
        if labels.intersection(original_labels):
            continue
        raise InvalidInput(
            Problem(
                name,
                (
                    f"column {column!r} of {_the(data)} holds {ours} ({_some(labels)}) and the original {theirs} "
                    f"({_some(original_labels)}), with no value in common: code both alike"
                ),
            )
        )
    empty = empty_columns(data.frame[list(types)]) if data.role == "holdout" else []
    if empty:
        raise InvalidInput(
            Problem(
                name,
                (
                    f"column {empty[0]!r} is missing in every row of the holdout: a holdout holds real records "
                    "with the original's columns"
                ),
            )
        )


def empty_columns(frame: pd.DataFrame) -> list[str]:
    """The columns of ``frame`` with no value in any row."""
    return [c for c in frame.columns if _missing_throughout(frame[c])]


def check_empty_columns(synthetic: Dataset, empty: Collection[str]) -> list[str]:
    """A synthetic set with no value in a column the original holds (the loader refuses an empty one there).

    A synthesizer may suppress a column whole: pac-synth at epsilon 1 on 1,000
    Adult records leaves age and the interview date empty in every record. The
    set is checked as it is, but the signer should know that it says nothing of
    the column, and that the Gower distance counts the column as a difference
    between each of its records and every record holding a value there.
    """
    if not empty:
        return []
    named = ", ".join(repr(c) for c in empty)
    one = len(empty) == 1
    return [
        f"{_what(synthetic)} holds no value in {'column' if one else 'columns'} {named} (empty in all "
        f"{synthetic.n_rows:,} records): the release says nothing of {'it' if one else 'them'}, and every "
        f"distance to its records counts {'it' if one else 'each'} as a difference from a record holding a value"
    ]


def _missing_throughout(values: pd.Series) -> bool:
    """Whether every value is missing: a first value present answers at once, without a scan of the rest."""
    return bool(values.iloc[:1].isna().all() and values.isna().all())


def _labels(data: Dataset, column: str) -> set[str]:
    out: set[str] = set()
    for piece in data.pieces([column]):  # a streamed set batch by batch
        out.update(pd.unique(piece.frame[column].dropna()))
    return out


def _some(labels: Collection[Any]) -> str:
    shown = sorted(labels)[:3]
    return ", ".join(repr(label) for label in shown) + (", ..." if len(labels) > 3 else "")


def _the(data: Dataset) -> str:
    return "the holdout" if data.role == "holdout" else _what(data)


def hashed_rows(
    frame: pd.DataFrame, categories: Mapping[str, pd.Categorical] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The row hashes of a data set held whole and their stable sorting order, as :class:`RowHashes` gives them."""
    hashes = row_hashes(frame, categories)
    return hashes, np.argsort(hashes, kind="stable")


def row_hashes(frame: pd.DataFrame, categories: Mapping[str, pd.Categorical] | None = None) -> np.ndarray:
    """A 64-bit hash of each whole row (missing values hash alike).

    ``categories``: the loader's :func:`~policycheck.release.convert.label_categories` of text
    columns, which hash as their labels do (pandas hashes a text column by numbering its values
    and hashing each distinct one): numbered by the loader, not again (300,000 rows, six text
    columns: 10 ms against 63).
    """
    if categories:
        frame = pd.DataFrame({c: categories.get(c, frame[c]) for c in frame.columns}, copy=False)
    hashes: np.ndarray = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    return hashes


def _rows_equal(a: pd.DataFrame, rows_a: np.ndarray, b: pd.DataFrame, rows_b: np.ndarray) -> np.ndarray:
    """Whether a's rows_a equal b's rows_b value by value (two missing values are equal)."""
    equal = np.ones(len(rows_a), dtype=bool)
    for column in a.columns:
        x = a[column].to_numpy()[rows_a]
        y = b[column].to_numpy()[rows_b]
        equal &= (x == y) | (pd.isna(x) & pd.isna(y))
    return equal


def _same_data(a: Dataset, b: Dataset, hashes: RowHashes) -> str | None:
    if a.sha256 is not None and a.sha256 == b.sha256:
        return "file (sha256)"
    if a.n_rows != b.n_rows or a.columns != b.columns:
        return None
    order_a = hashes.order(a)
    order_b = hashes.order(b)
    if np.array_equal(hashes.sorted(a), hashes.sorted(b)) and _rows_equal(a.frame, order_a, b.frame, order_b).all():
        return "rows"
    return None


def _place(data: Dataset, row: int) -> str:
    """Where record ``row`` of ``data`` is: a file's row, or a DataFrame's position (its labels are not kept)."""
    return f"row {row_number(row)}" if data.path is not None else f"position {row}"


def _what(data: Dataset) -> str:
    return data.role if data.role != "synthetic" else f"synthetic set {data.name!r}"
