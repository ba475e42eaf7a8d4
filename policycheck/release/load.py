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

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.core.suggest import suggest
from policycheck.io.files import sha256_file
from policycheck.io.yamlio import load_yaml
from policycheck.release import checks
from policycheck.release.convert import coerce_frame, to_labels
from policycheck.release.manifest import ColumnDecl, Manifest
from policycheck.release.mechanism import InvalidMechanism
from policycheck.release.memory import InMemoryTable
from policycheck.release.metadata import read_sdv_metadata
from policycheck.release.model import ColumnType, Dataset, Release, SynthesizerInfo
from policycheck.release.read import check_flat_parquet, parquet_columns, read_table
from policycheck.release.roles import check_present, identifier_evidence, infer_role, refuse_identifier
from policycheck.release.stream import ParquetSource, StreamedDataset, is_streamed, parquet_rows

__all__ = ["build_release", "load_manifest", "read_table", "sha256_file"]


def load_manifest(path: Path) -> Release:
    """Load the release described by a manifest file."""
    path = Path(path)
    located = load_yaml(path, "release manifest")
    if not isinstance(located.data, dict):
        raise InvalidInput(located.problem((), "a release manifest must be a YAML mapping (key: value)"))
    try:
        manifest = Manifest.model_validate(located.data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "extra_forbidden":
                msg = f"unknown key {loc[-1]!r}"
            elif err["type"] == "missing":
                msg, loc = f"missing required key {loc[-1]!r}", loc[:-1]
            elif isinstance(err.get("ctx", {}).get("error"), InvalidMechanism):
                # At the offending key's line, worded as the DP rules word it.
                invalid = err["ctx"]["error"]
                block = located.data["synthetic"][loc[1]]["synthesizer"]
                key = invalid.key or ("mechanism" if "mechanism" in block else None)
                loc = loc + ((key,) if key else ())
                msg = f"synthetic set {_set_name(located.data, int(loc[1]))!r} declares an {invalid}"
            else:
                label = ".".join(str(p) for p in loc if not isinstance(p, int))
                msg = f"{label}: {msg}"
            problems.append(located.problem(loc, msg))
        raise InvalidInput(problems) from None
    base = path.parent
    columns = {
        col: (decl if isinstance(decl, ColumnDecl) else ColumnDecl(type=decl)) for col, decl in manifest.columns.items()
    }
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
        columns=columns,
        metadata=base / manifest.metadata if manifest.metadata else None,
    )
    return Release(**{**release.__dict__, "manifest_path": path, "manifest_sha256": located.sha256})


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
) -> Release:
    """Read every file, settle each column's role, check the files together, and assemble a Release.

    Declared roles come from ``columns`` over the SDV ``metadata`` file;
    every other column's role is inferred (:mod:`policycheck.release.roles`).
    """
    # Declared ignore columns of a Parquet file are never read (their names come from its footer).
    skip = frozenset(c for c, d in (columns or {}).items() if d.type == "ignore")
    orig_frame = read_table(original, skip)
    names = parquet_columns(original) or list(orig_frame.columns)
    declared: dict[str, ColumnDecl] = {}
    if metadata is not None:
        declared.update(read_sdv_metadata(metadata, names))
        _check_declared(metadata, declared, names, "the metadata")
    _check_declared(original, columns or {}, names, "`columns:` or --column-type")
    declared.update(columns or {})
    roles = {}
    for col in names:
        decl = declared.get(col)
        roles[col] = decl.type if decl is not None else infer_role(original, col, orig_frame[col])
        if col not in orig_frame.columns:
            continue  # an ignore column left unread
        check_present(original, col, orig_frame[col], roles[col])
        if decl is None:
            evidence = identifier_evidence(orig_frame[col], roles[col])
            if evidence:
                raise refuse_identifier(original, col, evidence)
    analysed = [c for c in names if roles[c] not in ("id", "ignore")]
    ids = [c for c in names if roles[c] == "id"]
    if not analysed:
        raise InvalidInput(
            Problem(display_path(original), "every column is declared id or ignore: nothing is left to check")
        )
    types = {c: ColumnType.NUMERIC if roles[c] == "datetime" else ColumnType(roles[c]) for c in analysed}
    orders = {c: list(d.order) for c, d in declared.items() if d.order is not None}
    formats = {c: d.format for c, d in declared.items() if d.format is not None and roles[c] == "datetime"}
    findings: list[str] = []

    optional = [c for c in names if c not in analysed]
    original_kinds = {c: checks.value_kind(orig_frame[c]) for c in analysed}

    def dataset(
        path: Path | InMemoryTable, role: str, label: str, frame: pd.DataFrame, info: SynthesizerInfo | None = None
    ) -> Dataset:
        _check_columns(path, list(frame.columns), analysed, optional)
        named = f"synthetic set {label!r}" if role == "synthetic" else role  # as findings name a data set
        coerced = coerce_frame(path, frame, types, roles, orders, formats, findings, named)
        present_ids = [c for c in ids if c in frame.columns]
        id_frame = (
            pd.DataFrame({c: pd.Series(to_labels(frame[c]), dtype=object) for c in present_ids})
            if present_ids
            else None
        )
        if isinstance(path, InMemoryTable):
            data = Dataset(role, label, coerced, sha256=path.sha256(), synthesizer=info, id_frame=id_frame)
        else:
            data = Dataset(
                role, label, coerced, path=path, sha256=sha256_file(path, "data"), synthesizer=info, id_frame=id_frame
            )
        if role != "original":
            checks.check_like_original(
                data, {c: checks.value_kind(frame[c]) for c in analysed}, original_kinds, orig, types
            )
        return data

    def streamed(path: Path, label: str, info: SynthesizerInfo) -> StreamedDataset:
        """A large Parquet synthetic set, checked batch by batch instead of read whole (release/stream.py)."""
        present = check_flat_parquet(path, skip)
        _check_columns(path, present, analysed, optional)
        named = f"synthetic set {label!r}"
        source = ParquetSource(path, types, roles, orders, formats, tuple(c for c in ids if c in present), named)
        try:
            for _ in source.pieces(notes=findings):  # every value converted as a whole file's would be
                pass
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
        checks.check_like_original(data, _first_batch_kinds(path, analysed), original_kinds, orig, types)
        return data

    orig = dataset(original, "original", "original", orig_frame)
    _check_not_constant(original, orig.frame)
    syn = tuple(
        streamed(p, label, info)
        if not isinstance(p, InMemoryTable) and is_streamed(p)
        else dataset(p, "synthetic", label, read_table(p, skip), info)
        for p, label, info in synthetic
    )
    hold = dataset(holdout, "holdout", "holdout", read_table(holdout, skip)) if holdout is not None else None
    hashes = checks.RowHashes()
    findings += checks.check_same_files(orig, hold, syn, hashes)
    findings += checks.check_holdout_overlap(orig, hold, hashes)
    findings += checks.check_id_leak(orig, syn)
    findings += checks.check_extremes([orig, *syn, *([hold] if hold else [])], types)
    return Release(
        id=release_id,
        original=orig,
        synthetic=syn,
        holdout=hold,
        column_types=types,
        orders=orders,
        roles=roles,
        formats=formats,
        findings=findings,
        metadata_path=metadata,
        metadata_sha256=sha256_file(metadata, "metadata") if metadata is not None else None,
    )


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


def _check_not_constant(path: Path | InMemoryTable, frame: pd.DataFrame) -> None:
    for col in frame.columns:
        values = frame[col]
        if len(frame) > 1 and values.notna().all() and (values == values.iloc[0]).all():
            raise InvalidInput(
                Problem(
                    display_path(path),
                    f"column {col!r} is constant ({values.iloc[0]!r} in every row): it carries no information; "
                    "drop it or declare it `type: ignore`",
                )
            )
