"""Read a release from a manifest or from command-line paths, and check it.

Every problem is one line naming the file and the cause: unreadable or
non-UTF-8 files, empty, header-only or ragged CSVs, duplicate or mismatched
columns, non-numeric or infinite values in numeric columns, constant or
entirely missing columns, undeclared identifiers, a holdout that is the
training data, extreme values. What does not stop the check is a finding
(``Release.findings``). Input files are only read, never written.

After loading, each data set's frame holds the analysed columns only (id
and ignore columns are set aside, id values in ``Dataset.id_frame``);
datetime columns are float days since 1970-01-01 and numeric in
``column_types``; ``Release.roles`` gives every input column's role. A
Parquet synthetic set of more than ``STREAM_ABOVE_ROWS`` rows is checked
batch by batch and left on disk (:mod:`policycheck.release.stream`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from pydantic import BaseModel, ValidationError

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.core.suggest import suggest
from policycheck.core.threads import Ahead, side_by_side
from policycheck.io.files import sha256_file
from policycheck.io.pydantic_words import worded
from policycheck.io.yaml_types import PathKey
from policycheck.io.yamlio import load_yaml
from policycheck.release import checks
from policycheck.release.convert import ColumnProblem, coerce_frame, to_labels
from policycheck.release.manifest import ColumnDecl, Manifest, ReleaseInfo, SyntheticDecl
from policycheck.release.mechanism import InvalidMechanism
from policycheck.release.memory import InMemoryTable
from policycheck.release.metadata import read_sdv_metadata
from policycheck.release.model import ColumnType, Dataset, Release, SynthesizerInfo
from policycheck.release.read import check_flat_parquet, parquet_columns, read_table
from policycheck.release.roles import (
    ANALYSED,
    Factorized,
    check_present,
    identifier_evidence,
    infer_column,
    is_text,
    present_counts_of,
    refuse_identifier,
)
from policycheck.release.stream import ParquetSource, StreamedDataset, is_streamed, parquet_rows

if TYPE_CHECKING:
    from concurrent.futures import Future

    import numpy as np

__all__ = ["build_release", "load_manifest", "read_table", "sha256_file"]


def load_manifest(path: Path, threads: int = 1) -> Release:
    """Load the release described by a manifest file (``threads``: as :func:`build_release` reads)."""
    path = Path(path)
    located = load_yaml(path, "release manifest")
    if not isinstance(located.data, dict):
        raise InvalidInput(located.problem((), "a release manifest must be a YAML mapping (key: value)"))
    try:
        manifest = Manifest.model_validate(located.data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            if isinstance(err.get("ctx", {}).get("error"), InvalidMechanism):
                # At the offending key's line, worded as the DP rules word it.
                loc = tuple(err["loc"])
                invalid = err["ctx"]["error"]
                block = located.data["synthetic"][loc[1]]["synthesizer"]
                key = invalid.key or ("mechanism" if "mechanism" in block else None)
                loc = loc + ((key,) if key else ())
                name = _set_name(located.data, int(loc[1]))
                problems.append(located.problem(loc, f"synthetic set {name!r} declares an {invalid}"))
            else:  # in the words a policy's problems are told in; a column's own check names the column
                problems.append(located.problem(*worded(err, (), manifest_fields, _model_named_at)))
        raise InvalidInput(problems) from None
    base = path.parent
    columns = dict(manifest.columns)
    synthetic = []
    for i, decl in enumerate(manifest.synthetic):
        extra = dict(decl.synthesizer.model_extra or {})
        info = SynthesizerInfo(
            name=decl.synthesizer.name,
            epsilon=decl.synthesizer.epsilon,
            delta=decl.synthesizer.delta,
            params=extra,
            command=decl.synthesizer.command,
        )
        synthetic.append((base / decl.path, decl.name or f"synthetic[{i}]", info))
    release = build_release(
        release_id=manifest.release.id,
        original=base / manifest.original,
        synthetic=synthetic,
        holdout=base / manifest.holdout if manifest.holdout else None,
        population=base / manifest.population if manifest.population else None,
        columns=columns,
        metadata=base / manifest.metadata if manifest.metadata else None,
        threads=threads,
    )
    return Release(**{**release.__dict__, "manifest_path": path, "manifest_sha256": located.sha256})


#: The model at each path of a manifest (``*``: any list index or column name), for the keys it knows.
_MODEL_AT: dict[tuple[str, ...], type[BaseModel]] = {
    (): Manifest,
    ("release",): ReleaseInfo,
    ("synthetic", "*"): SyntheticDecl,
    ("columns", "*"): ColumnDecl,
}


def manifest_fields(path: PathKey) -> list[str] | None:
    """The keys of the manifest model at ``path``, None where no model is (a ``synthesizer:`` block takes any)."""
    for pattern, model in _MODEL_AT.items():
        if len(pattern) == len(path) and all(p in ("*", q) for p, q in zip(pattern, path, strict=True)):
            return list(model.model_fields)
    return None


def _model_named_at(path: PathKey) -> bool:
    """Whether a model's own check at ``path`` is told without its key: not a column's, whose name it needs."""
    return manifest_fields(path) is not None and path[:1] != ("columns",)


def _set_name(data: dict[str, Any], index: int) -> str:
    """The name a manifest's synthetic set ``index`` is reported under, as :func:`load_manifest` names it."""
    name = data["synthetic"][index].get("name")
    return name if isinstance(name, str) and name else f"synthetic[{index}]"


def build_release(
    release_id: str,
    original: Path | InMemoryTable,
    synthetic: Sequence[tuple[Path | InMemoryTable, str, SynthesizerInfo]],
    holdout: Path | InMemoryTable | None = None,
    columns: dict[str, ColumnDecl] | None = None,
    metadata: Path | None = None,
    declared_by: str = "manifest",
    threads: int = 1,
    population: Path | InMemoryTable | None = None,
) -> Release:
    """Read every file, settle each column's role, check the files together, and assemble a Release.

    Declared roles come from ``columns`` over the SDV ``metadata`` file;
    every other column's role is inferred from its values in every file read
    whole (:mod:`policycheck.release.roles`). ``declared_by`` says where
    ``columns`` came from (``manifest``, ``flags`` for --column-type, ``api``),
    to name the role's source and word the declarations that settle a problem.
    Every column problem of every file is reported at once (one
    :class:`InvalidInput`), with the declarations that settle them.
    ``threads`` files are read, converted and hashed at once (each file's
    work is its own: the same release, findings and problems on any number).
    ``population`` (optional) holds the records the membership game draws
    from; it is read and converted as the holdout is.
    """
    checks.check_synthetic_files_distinct([(p, label) for p, label, _ in synthetic])  # before any file is read
    # Synthetic sets streamed from their Parquet file (by their place): every other file is read whole.
    streamed_at = {i for i, (p, _, _) in enumerate(synthetic) if not isinstance(p, InMemoryTable) and is_streamed(p)}
    read_whole = [
        original,
        *(p for i, (p, _, _) in enumerate(synthetic) if i not in streamed_at),
        *([holdout] if holdout is not None else []),
        *([population] if population is not None else []),
    ]
    # The files' digests, taken on a thread of their own while they are read: hashing holds no GIL,
    # the reading mostly does (one thread: each taken when its file is prepared, as before).
    digests = Ahead(partial(_digests, read_whole), threads)
    # Declared ignore columns of a Parquet file are never read (their names come from its footer).
    skip = frozenset(c for c, d in (columns or {}).items() if d.type == "ignore")
    # What the role checks below ask of each column, taken as the files are read: the original's analysed
    # and undeclared columns are counted, the other files' undeclared ones; every analysed or undeclared
    # column's kind is asked. (An SDV metadata file declares columns only once the original's names are
    # known: with one, nothing is asked ahead, and each answer is taken when asked for.)
    declared_aside = frozenset(c for c, d in (columns or {}).items() if d.type not in ANALYSED)
    original_asks = _Asks(metadata is None, uncounted=declared_aside, unkinded=declared_aside)
    others_ask = _Asks(metadata is None, uncounted=frozenset(columns or {}), unkinded=declared_aside)
    # Every file read whole up front, side by side; a file's failure is raised where reading it one
    # by one would have raised it (the original's first, before its columns are checked).
    read = _read_side_by_side([(p, original_asks if p is original else others_ask) for p in read_whole], skip, threads)
    orig_read = read[0].result()
    orig_frame = orig_read.frame
    names = parquet_columns(original) or list(orig_frame.columns)
    declared: dict[str, ColumnDecl] = {}
    role_sources: dict[str, str] = {}
    if metadata is not None:
        declared.update(read_sdv_metadata(metadata, names))
        _check_declared(metadata, declared, names, "the metadata")
        role_sources.update(dict.fromkeys(declared, f"SDV metadata {_file_name(metadata)}"))
    _check_declared(original, columns or {}, names, "`columns:` or --column-type")
    declared.update(columns or {})
    role_sources.update(dict.fromkeys(columns or {}, DECLARED_BY[declared_by]))
    # Every file read whole before any role is settled: an undeclared column's role is inferred from all of them.
    pending = iter(read[1:])
    frames: list[tuple[Path | InMemoryTable, _Read | None]] = [
        (p, None if i in streamed_at else next(pending).result()) for i, (p, _, _) in enumerate(synthetic)
    ]
    hold_read = next(pending).result() if holdout is not None else None
    pop_read = next(pending).result() if population is not None else None
    others = [
        (p, r) for p, r in [(holdout, hold_read), *frames, (population, pop_read)] if p is not None and r is not None
    ]
    problems: list[Problem] = []
    settle: dict[str, str] = {}  # column -> the role that settles its problem
    roles: dict[str, str] = {}
    for col in names:
        decl = declared.get(col)
        # Counted once for what needs it: inference, and the checks of an analysed column (not id, ignore).
        counted_here = col in orig_frame.columns and (decl is None or decl.type in ANALYSED)
        original_counts = orig_read.counts(col) if counted_here else None
        if decl is not None:
            roles[col] = decl.type
        else:
            having = [(p, r) for p, r in others if col in r.frame.columns]
            values = [(original, orig_frame[col]), *((p, r.frame[col]) for p, r in having)]
            counted = [original_counts, *(r.counts(col) for _, r in having)]
            roles[col], problem = infer_column(col, values, counted)
            role_sources[col] = "inferred from " + ", ".join(dict.fromkeys(_file_name(p) for p, _ in values))
            if problem is not None:
                problems.append(problem)
                settle[col] = "categorical"
        if col not in orig_frame.columns or col in settle:
            continue  # an ignore column left unread, or one already refused
        decision = _column_problem(original, col, orig_frame[col], roles[col], decl is None, original_counts)
        if decision is not None:
            problems.append(decision[0])
            settle[col] = roles[col] = decision[1]
    analysed = [c for c in names if roles[c] not in ("id", "ignore")]
    ids = [c for c in names if roles[c] == "id"]
    if not analysed:
        problems.append(
            Problem(display_path(original), "every column is declared id or ignore: nothing is left to check")
        )
        raise UndecidedColumns(problems, {}, declared_by)  # no declaration would leave a column to check
    types = {c: ColumnType.NUMERIC if roles[c] == "datetime" else ColumnType(roles[c]) for c in analysed}
    orders = {c: list(d.order) for c, d in declared.items() if d.order is not None}
    formats = {c: d.format for c, d in declared.items() if d.format is not None and roles[c] == "datetime"}
    findings: list[str] = []

    optional = [c for c in names if c not in analysed]
    original_kinds = {c: orig_read.kind(c) for c in analysed}

    def prepare(path: Path | InMemoryTable, role: str, label: str, read: _Read) -> _Prepared:
        """A file's own work (its columns checked, converted, digested): on any thread, touching nothing shared."""
        frame = read.frame
        try:
            _check_columns(path, list(frame.columns), analysed, optional)
        except InvalidInput as exc:
            return _Prepared(refused=exc.problems)
        named = f"synthetic set {label!r}" if role == "synthetic" else role  # as findings name a data set
        notes: list[str] = []
        failed: list[ColumnProblem] = []
        categories: dict[str, pd.Categorical] = {}  # text columns numbered: row hashes, Gower fit
        coerced = coerce_frame(
            path,
            frame,
            types,
            roles,
            orders,
            formats,
            notes,
            named,
            problems=failed,
            categories=categories,
            factorized=read.factorized,
        )
        if failed:
            return _Prepared(notes=notes, failed=failed)
        present_ids = [c for c in ids if c in frame.columns]
        id_frame = (
            pd.DataFrame({c: pd.Series(to_labels(frame[c]), dtype=object) for c in present_ids})
            if present_ids
            else None
        )
        sha256 = path.sha256() if isinstance(path, InMemoryTable) else _digest_of(digests.result(), path)
        kinds = {c: read.kind(c) for c in analysed} if role != "original" else original_kinds
        return _Prepared(
            notes=notes,
            coerced=coerced,
            numbered={c: v for c, v in categories.items() if types[c] is ColumnType.CATEGORICAL},
            id_frame=id_frame,
            sha256=sha256,
            kinds=kinds,
            # For the checks across files below, which compare rows of sets of equal size and hold the
            # holdout against the original and the synthetic sets: hashed here, on this file's thread, when
            # they will be asked for (never for the population, which no check compares).
            hashed=(
                checks.hashed_rows(coerced, categories)
                if role != "population"
                and (role in paired or sizes.count(len(frame)) > 1 or (role == "synthetic" and holdout is not None))
                else None
            ),
            empty=checks.empty_columns(coerced) if role == "synthetic" else [],
        )

    def dataset(
        path: Path | InMemoryTable, role: str, label: str, prepared: _Prepared, info: SynthesizerInfo | None = None
    ) -> Dataset | None:
        """The data set of a prepared file, its findings and problems added in file order."""
        if prepared.refused:
            problems.extend(prepared.refused)
            return None
        findings.extend(prepared.notes)
        for col, problem, declarable in prepared.failed:
            problems.append(problem)
            if declarable and col not in declared:  # text in a numeric column, not an infinite number
                settle.setdefault(col, "categorical")
        if prepared.failed:
            return None
        assert prepared.coerced is not None and prepared.kinds is not None  # a file not refused is converted
        data = Dataset(
            role,
            label,
            prepared.coerced,
            path=None if isinstance(path, InMemoryTable) else path,
            sha256=prepared.sha256,
            synthesizer=info,
            id_frame=prepared.id_frame,
            numbered=prepared.numbered,
        )
        if prepared.hashed is not None:
            hashes.put(data, *prepared.hashed)
        findings.extend(checks.check_empty_columns(data, prepared.empty))
        if role != "original" and orig is not None:
            try:
                checks.check_like_original(data, prepared.kinds, original_kinds, orig, types)
            except InvalidInput as exc:
                problems.extend(exc.problems)
        return data

    def streamed(path: Path, label: str, info: SynthesizerInfo) -> StreamedDataset:
        """A large Parquet synthetic set, checked batch by batch instead of read whole (release/stream.py)."""
        present = check_flat_parquet(path, skip)
        _check_columns(path, present, analysed, optional)
        named = f"synthetic set {label!r}"
        source = ParquetSource(path, types, roles, orders, formats, tuple(c for c in ids if c in present), named)
        holding: set[str] = set()  # columns with a value in some row
        try:
            for piece in source.pieces(notes=findings):  # every value converted as a whole file's would be
                holding.update(c for c in analysed if c not in holding and piece.frame[c].notna().any())
        except InvalidInput:
            raise
        except Exception as exc:  # pyarrow raises many kinds
            raise InvalidInput(
                Problem(display_path(path), f"cannot read data file: {type(exc).__name__}: {exc}")
            ) from None
        rows = parquet_rows(path)
        assert rows is not None  # is_streamed read it
        data = StreamedDataset(
            "synthetic",
            label,
            None,
            path=path,
            sha256=sha256_file(path, "data"),
            synthesizer=info,
            source=source,
            rows=rows,
        )
        if orig is not None:
            checks.check_like_original(data, _first_batch_kinds(path, analysed), original_kinds, orig, types)
        findings.extend(checks.check_empty_columns(data, [c for c in analysed if c not in holding]))
        return data

    hashes = checks.RowHashes()
    paired = ("original", "holdout") if holdout is not None else ()
    sizes = [len(orig_frame), *(len(r.frame) if r is not None else parquet_rows(p) for p, r in frames)]
    sizes += [len(hold_read.frame)] if hold_read is not None else []

    whole = [
        (original, "original", "original", orig_read),
        *((p, "synthetic", label, r) for (p, label, _), (_, r) in zip(synthetic, frames, strict=True)),
        *([(holdout, "holdout", "holdout", hold_read)] if holdout is not None else []),
        *([(population, "population", "population", pop_read)] if population is not None else []),
    ]

    def prepare_whole(item: tuple[Path | InMemoryTable, str, str, _Read | None]) -> _Prepared | None:
        path, role, label, read = item
        return prepare(path, role, label, read) if read is not None else None  # None: a streamed set

    ready = side_by_side(prepare_whole, whole, threads)
    orig = dataset(original, "original", "original", ready[0])  # type: ignore[arg-type]
    syn_sets = [
        dataset(p, "synthetic", label, prepared, info) if prepared is not None else streamed(p, label, info)  # type: ignore[arg-type]
        for (p, label, info), prepared in zip(synthetic, ready[1 : 1 + len(synthetic)], strict=True)
    ]
    rest = iter(ready[1 + len(synthetic) :])
    hold = dataset(holdout, "holdout", "holdout", next(rest)) if holdout is not None else None  # type: ignore[arg-type]
    pop = dataset(population, "population", "population", next(rest)) if population is not None else None  # type: ignore[arg-type]
    if problems:
        raise UndecidedColumns(problems, settle, declared_by)
    assert orig is not None and all(s is not None for s in syn_sets)  # a None came with a problem
    syn = tuple(s for s in syn_sets if s is not None)
    # The extremes' quantiles and scans beside the row-hash checks (both mostly NumPy, which holds no
    # GIL); its findings, or its refusal, come in their place, after the others'.
    extremes = Ahead(partial(checks.check_extremes, [orig, *syn, *([hold] if hold else [])], types), threads)
    findings += checks.check_same_files(orig, hold, syn, hashes)
    findings += checks.check_holdout_overlap(orig, hold, hashes)
    findings += checks.check_holdout_copied(orig, hold, syn, hashes)
    findings += checks.check_holdout_people(orig, hold)
    findings += checks.check_id_leak(orig, syn)
    findings += extremes.result()
    return Release(
        id=release_id,
        original=orig,
        synthetic=syn,
        holdout=hold,
        population=pop,
        column_types=types,
        orders=orders,
        roles=roles,
        role_sources=role_sources,
        formats=formats,
        findings=findings,
        metadata_path=metadata,
        metadata_sha256=sha256_file(metadata, "metadata") if metadata is not None else None,
    )


@dataclass(frozen=True)
class _Prepared:
    """What :func:`build_release` learnt of one file read whole, before it is added to the release."""

    refused: list[Problem] = field(default_factory=list)  # its columns differ from the original's
    notes: list[str] = field(default_factory=list)  # findings of its conversion
    failed: list[ColumnProblem] = field(default_factory=list)  # columns that could not be converted
    coerced: pd.DataFrame | None = None
    numbered: dict[str, pd.Categorical] = field(default_factory=dict)  # its categorical columns' numbering
    id_frame: pd.DataFrame | None = None
    sha256: str | None = None
    kinds: dict[str, str | None] | None = None  # each analysed column's kind of value
    hashed: tuple[np.ndarray, np.ndarray] | None = None  # its row hashes and their order
    empty: list[str] = field(default_factory=list)  # a synthetic set's columns with no value in any row


@dataclass(frozen=True)
class _Asks:
    """Which columns of a file the role checks will ask of: their present values' counts, their kind of value."""

    ahead: bool  # whether to take the answers as the file is read (else each when asked for)
    uncounted: frozenset[str]  # declared columns whose counts are not asked for
    unkinded: frozenset[str]  # declared columns whose kind is not asked for


@dataclass
class _Read:
    """A file read whole, and its columns' :func:`present_counts` and :func:`checks.value_kind`, each taken once.

    With several threads, those asked ahead are taken by the reading threads, column by column,
    beside the other files' reading (:func:`_read_side_by_side`); any other is taken when asked
    for. The same answers either way.
    """

    frame: pd.DataFrame
    _counts: dict[str, pd.Series | None] = field(default_factory=dict)
    _kinds: dict[str, str | None] = field(default_factory=dict)
    _factorized: dict[str, Factorized | None] = field(default_factory=dict)

    def factorized(self, column: str) -> Factorized | None:
        """A text column's ``pd.factorize``, taken once: its counts and its conversion to labels share it."""
        if column not in self._factorized:
            series = self.frame[column]
            self._factorized[column] = pd.factorize(series, use_na_sentinel=True) if is_text(series) else None
        return self._factorized[column]

    def counts(self, column: str) -> pd.Series | None:
        if column not in self._counts:
            factorized = self.factorized(column)
            self._counts[column] = present_counts_of(self.frame[column], factorized) if factorized is not None else None
        return self._counts[column]

    def kind(self, column: str) -> str | None:
        if column not in self._kinds:
            self._kinds[column] = checks.value_kind(self.frame[column])
        return self._kinds[column]

    def ask(self, column: str, asks: _Asks) -> None:
        """Take now what ``asks`` says the role checks will ask of ``column``."""
        if column not in asks.uncounted:
            self.counts(column)
        if column not in asks.unkinded:
            self.kind(column)


def _digests(sources: Sequence[Path | InMemoryTable]) -> dict[int, str | Exception]:
    """Each file's SHA-256 (keyed by the ``id`` of its source), or the error hashing it raised (raised again for it
    alone).

    A table in memory is named by its own digest (:meth:`InMemoryTable.sha256`), not hashed here.
    """
    found: dict[int, str | Exception] = {}
    for source in sources:
        if isinstance(source, InMemoryTable):
            continue
        try:
            found[id(source)] = sha256_file(source, "data")
        except Exception as exc:  # noqa: BLE001 - raised again when the file's digest is asked for
            found[id(source)] = exc
    return found


def _digest_of(digests: dict[int, str | Exception], source: Path) -> str:
    """The digest of ``source``'s file (:func:`_digests`), or its error raised here."""
    digest = digests[id(source)]
    if isinstance(digest, Exception):
        raise digest
    return digest


def _read(source: Path | InMemoryTable, skip: frozenset[str]) -> _Read:
    return _Read(read_table(source, skip))


def _read_side_by_side(
    sources: list[tuple[Path | InMemoryTable, _Asks]], skip: frozenset[str], threads: int
) -> Sequence[Future[_Read] | Ahead[_Read]]:
    """Each source read to come: on ``threads`` threads, or one at a time when asked for (one thread).

    On threads, each file's columns are asked of as tasks of their own once it is read, queued
    before the next file: the counting, which holds the GIL, runs beside the other threads'
    reading, whose tokenizer does not, and a thread done with a small file takes a large file's
    columns rather than wait (docs/performance.md, twenty-seventh stop, gives what each bought). A
    file that fails to read raises when its result is asked for, in the order reading one by one
    would have raised it.
    """
    if threads <= 1 or len(sources) <= 1:
        # Read when asked for: in turn, and none after a refused one.
        return [Ahead(partial(_read, p, skip), threads=1) for p, _ in sources]
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    width = min(threads, len(sources))
    # Largest files first, so that the last to finish is a small one (their results keep the sources' order).
    order = sorted(range(len(sources)), key=lambda i: -_bytes(sources[i][0]))
    reading: dict[int, Future[_Read]] = {}
    source_of: dict[Future[_Read], int] = {}

    def start(i: int) -> None:
        reading[i] = pool.submit(_read, sources[i][0], skip)
        source_of[reading[i]] = i

    with ThreadPoolExecutor(width) as pool:
        for i in order[:width]:
            start(i)
        queued, pending = order[width:], set(reading.values())
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                asks = sources[source_of[future]][1]
                if asks.ahead and future.exception() is None:
                    read = future.result()
                    for column in read.frame.columns:
                        # NOTE: a task's exception is dropped with it: the answer is then taken, and raises, when asked.
                        pool.submit(read.ask, column, asks)
                if queued:  # the next file queued behind this one's columns: they run beside its reading
                    later = queued.pop(0)
                    start(later)
                    pending.add(reading[later])
    return [reading[i] for i in range(len(sources))]  # every task done: the pool waited for them


def _bytes(source: Path | InMemoryTable) -> int:
    """A file's size, to read the largest first (0 for a table in memory, or a file that cannot be read)."""
    try:
        return 0 if isinstance(source, InMemoryTable) else Path(source).stat().st_size
    except OSError:
        return 0


def _first_batch_kinds(path: Path, columns: list[str]) -> dict[str, str | None]:
    """:func:`checks.value_kind` of each column of a streamed Parquet set, from its first batch.

    A Parquet column has one Arrow type, so its first batch tells its kind.
    """
    import pyarrow.parquet as pq

    from policycheck.release.read import arrow_to_frame, restore_range_indexes, stored_columns
    from policycheck.release.stream import BATCH_ROWS

    source = pq.ParquetFile(path)
    read = stored_columns(source.schema_arrow, columns)
    batch = next(source.iter_batches(batch_size=BATCH_ROWS, columns=read, use_threads=False))
    frame = restore_range_indexes(arrow_to_frame(batch), source.schema_arrow, columns)
    return {c: checks.value_kind(frame[c]) for c in columns}


def _check_declared(
    source: Path | InMemoryTable, declared: dict[str, ColumnDecl], names: list[str], where: str
) -> None:

    for col in declared:
        if col not in names:
            raise InvalidInput(
                Problem(
                    display_path(source), f"column {col!r} declared in {where} is not in the data{suggest(col, names)}"
                )
            )


def _check_columns(path: Path | InMemoryTable, present: list[str], names: list[str], optional: list[str]) -> None:
    """Every analysed column, and no column the original lacks (id and ignore columns may be left out)."""
    missing = [c for c in names if c not in present]
    extra = [c for c in present if c not in names and c not in optional]
    parts = []
    if missing:
        parts.append(f"missing columns {missing}")
    if extra:
        parts.append(f"extra columns {extra}")
    if parts:
        raise InvalidInput(Problem(display_path(path), "columns differ from the original: " + "; ".join(parts)))


def coerce_like_loader(
    path: Path,
    types: dict[str, ColumnType],
    roles: dict[str, str],
    orders: dict[str, list[Any]],
    formats: dict[str, str],
    frame: pd.DataFrame,
) -> pd.DataFrame:
    """``frame``, a piece of the data file at ``path``, with ``types``' columns as the loader gives them.

    For reading a file the release has already loaded and checked, piece by
    piece (a streamed synthetic set's row groups): the same conversions, the
    findings already made.
    """
    return coerce_frame(path, frame, types, roles, orders, formats, [], display_path(path))


def _file_name(source: Path | InMemoryTable) -> str:
    """A data file by its name, as a role's source says it: the same wherever the check runs (verify re-runs it)."""
    return source.name if isinstance(source, InMemoryTable) else Path(source).name


class UndecidedColumns(InvalidInput):
    """Column problems of a release, with ``settle``: the role that settles each column's (exit 2).

    Its advice is :func:`settling`'s text; ``init --from-data`` declares ``settle`` and reads the files again.
    """

    def __init__(self, problems: list[Problem], settle: dict[str, str], declared_by: str = "manifest") -> None:
        super().__init__(problems, settling(settle, declared_by))
        self.settle = dict(settle)


#: How each way of declaring columns is named as a role's source.
DECLARED_BY = {"manifest": "declared in the manifest", "flags": "--column-type", "api": "columns= (API)"}


def _column_problem(
    path: Path | InMemoryTable,
    column: str,
    values: pd.Series,
    role: str,
    undeclared: bool,
    counts: pd.Series | None = None,
) -> tuple[Problem, str] | None:
    """What stops a column of the original, and the role that settles it: missing or constant (ignore),
    or an undeclared column that looks like a record identifier (id). ``counts``: the column's
    :func:`~policycheck.release.roles.present_counts`, which answer both without scanning it again."""
    try:
        check_present(path, column, values, role, counts)
    except InvalidInput as exc:
        return exc.problems[0], "ignore"
    if role in ("id", "ignore"):
        return None
    constant = (
        len(counts) == 1 and int(counts.iloc[0]) == len(values)
        if counts is not None
        else values.notna().all() and (values == values.iloc[0]).all()
    )
    if len(values) > 1 and constant:
        return (
            Problem(
                display_path(path),
                f"column {column!r} is constant ({to_labels(values.iloc[:1])[0]!r} in every row): it carries no "
                "information; drop it or declare it `type: ignore`",
            ),
            "ignore",
        )
    evidence = identifier_evidence(values, role, counts) if undeclared else None
    if evidence:
        return refuse_identifier(path, column, evidence).problems[0], "id"
    return None


def settling(settle: dict[str, str], declared_by: str = "manifest") -> str:
    """The declarations that settle every column problem, ready to paste: a manifest ``columns:`` block and
    the equivalent ``--column-type`` flags (or, from the Python API, the ``columns=`` argument)."""
    if not settle:
        return ""
    import json
    import shlex

    count = f"{len(settle)} column{'s' if len(settle) > 1 else ''}"
    if declared_by == "api":
        pairs = ", ".join(f"{k!r}: {v!r}" for k, v in settle.items())
        return f"{count} to declare; pass them to Release:\n    columns={{{pairs}}}"
    simple = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
    block = "\n".join(f"  {k if simple.fullmatch(k) else json.dumps(k)}: {v}" for k, v in settle.items())
    flags = " ".join(f"--column-type {shlex.quote(f'{k}={v}')}" for k, v in settle.items())
    if declared_by == "flags":
        return f"{count} to declare; add to the command line:\n  {flags}\nor, in a release manifest:\ncolumns:\n{block}"
    return (
        f"{count} to declare; add to the release manifest (or merge into its columns:):\n"
        f"columns:\n{block}\n"
        f"or give on the command line:\n  {flags}"
    )
