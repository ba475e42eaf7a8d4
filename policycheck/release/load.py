"""Read a release from a manifest or from command-line paths, and check it.

Every problem is one line naming the file and the cause: unreadable or
non-UTF-8 files, empty or header-only CSVs, duplicate or mismatched columns,
infinite or non-numeric values in numeric columns, constant columns. Input
files are only read, never written.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pydantic import ValidationError

from policycheck.errors import InvalidInput, Problem, display_path
from policycheck.fileio import sha256_file  # noqa: F401 - also imported from here
from policycheck.release.manifest import ColumnDecl, Manifest
from policycheck.release.memory import InMemoryTable
from policycheck.release.model import ColumnType, Dataset, Release, SynthesizerInfo
from policycheck.yamlio import load_yaml


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
            else:
                label = ".".join(str(p) for p in loc if not isinstance(p, int))
                msg = f"{label}: {msg}"
            problems.append(located.problem(loc, msg))
        raise InvalidInput(problems) from None
    base = path.parent
    columns = {
        col: (decl if isinstance(decl, ColumnDecl) else ColumnDecl(type=decl))
        for col, decl in manifest.columns.items()
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
    )
    return Release(
        **{**release.__dict__, "manifest_path": path, "manifest_sha256": sha256_file(path)}
    )


def build_release(
    release_id: str,
    original: Path | InMemoryTable,
    synthetic: list[tuple[Path | InMemoryTable, str, SynthesizerInfo]],
    holdout: Path | InMemoryTable | None = None,
    columns: dict[str, ColumnDecl] | None = None,
) -> Release:
    """Read every file (or in-memory table), infer and check column types, and assemble a Release."""
    columns = columns or {}
    orig_frame = read_table(original)
    names = list(orig_frame.columns)
    for col in columns:
        if col not in names:
            raise InvalidInput(Problem(_name(original), f"column {col!r} declared in the manifest is not in the data"))
    types = {c: _column_type(orig_frame[c], columns.get(c)) for c in names}
    orders = {c: list(d.order) for c, d in columns.items() if d.order is not None}

    def dataset(path: Path, role: str, label: str, frame: pd.DataFrame, info=None) -> Dataset:
        _check_columns(path, frame, names)
        frame = frame[names]
        frame = _coerce(path, frame, types, orders)
        if isinstance(path, InMemoryTable):
            return Dataset(role, label, frame, sha256=path.sha256(), synthesizer=info)
        return Dataset(role, label, frame, path=path, sha256=sha256_file(path), synthesizer=info)

    orig = dataset(original, "original", "original", orig_frame)
    _check_not_constant(original, orig.frame)
    syn = tuple(dataset(p, "synthetic", label, read_table(p), info) for p, label, info in synthetic)
    hold = dataset(holdout, "holdout", "holdout", read_table(holdout)) if holdout is not None else None
    return Release(id=release_id, original=orig, synthetic=syn, holdout=hold, column_types=types, orders=orders)


def read_table(path: Path | InMemoryTable) -> pd.DataFrame:
    """Read a CSV (plain, .gz or .bz2), Parquet or Feather file as strings-or-numbers, never modifying it."""
    if isinstance(path, InMemoryTable):
        return path.read()
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
            frame = pd.read_parquet(path)
        elif suffix == ".feather" and not compression:
            frame = pd.read_feather(path)
        elif suffix in (".csv", ".txt", ".tsv"):
            raw = _decompress(path.read_bytes(), compression, name)
            if not raw.strip():
                raise InvalidInput(Problem(name, "data file is empty"))
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidInput(Problem(name, f"data file is not valid UTF-8 (byte {exc.start})")) from None
            header = next(csv.reader(io.StringIO(raw.decode("utf-8").split("\n", 1)[0])), [])
            dupes = sorted({c for c in header if header.count(c) > 1})
            if dupes:
                raise InvalidInput(Problem(name, f"duplicate column names: {dupes}"))
            frame = pd.read_csv(
                io.BytesIO(raw),
                sep="\t" if suffix == ".tsv" else ",",
                keep_default_na=False,
                na_values=[""],
                encoding="utf-8",
            )
        else:
            raise InvalidInput(Problem(name, f"unsupported data format {''.join(path.suffixes[-2:]) or '(none)'!r}: use .csv (or .csv.gz, .csv.bz2), .parquet or .feather"))
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


#: Compressed CSV suffixes and the codec behind each.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2"}


def _decompress(raw: bytes, compression: str | None, name: str) -> bytes:
    if compression is None:
        return raw
    import bz2
    import gzip

    try:
        return gzip.decompress(raw) if compression == "gzip" else bz2.decompress(raw)
    except (OSError, EOFError, ValueError) as exc:
        raise InvalidInput(Problem(name, f"cannot decompress ({compression}): {exc}")) from None


def _name(source: Path | InMemoryTable) -> str:
    """How problems name a data source: its path, or the in-memory table's label."""
    return source.name if isinstance(source, InMemoryTable) else display_path(source)


def _column_type(series: pd.Series, decl: ColumnDecl | None) -> ColumnType:
    if decl is not None:
        return ColumnType(decl.type)
    if pd.api.types.is_bool_dtype(series):
        return ColumnType.CATEGORICAL
    if pd.api.types.is_numeric_dtype(series):
        return ColumnType.NUMERIC
    return ColumnType.CATEGORICAL


def _check_columns(path: Path | InMemoryTable, frame: pd.DataFrame, names: list[str]) -> None:
    missing = [c for c in names if c not in frame.columns]
    extra = [c for c in frame.columns if c not in names]
    parts = []
    if missing:
        parts.append(f"missing columns {missing}")
    if extra:
        parts.append(f"extra columns {extra}")
    if parts:
        raise InvalidInput(Problem(_name(path), "columns differ from the original: " + "; ".join(parts)))


def _coerce(path: Path | InMemoryTable, frame: pd.DataFrame, types: dict[str, ColumnType], orders: dict[str, list[Any]]) -> pd.DataFrame:
    """Numeric columns to float (missing = NaN, inf refused); others to str or missing."""
    name = _name(path)
    out = {}
    for col, kind in types.items():
        s = frame[col]
        if kind is ColumnType.NUMERIC:
            values = pd.to_numeric(s, errors="coerce")
            bad = values.isna() & s.notna()
            if bad.any():
                row = int(np.flatnonzero(bad.to_numpy())[0])
                raise InvalidInput(
                    Problem(name, f"column {col!r} is numeric but row {row + 2} holds {s.iloc[row]!r}")
                )
            arr = values.to_numpy(dtype=float)
            if np.isinf(arr).any():
                row = int(np.flatnonzero(np.isinf(arr))[0])
                raise InvalidInput(Problem(name, f"column {col!r} holds an infinite value at row {row + 2}"))
            out[col] = arr
        else:
            as_str = s.map(lambda v: v if pd.isna(v) else _label(v)).astype(object)
            if kind is ColumnType.ORDINAL:
                allowed = {_label(v) for v in orders[col]}
                unknown = sorted({v for v in as_str.dropna() if v not in allowed})
                if unknown:
                    raise InvalidInput(
                        Problem(name, f"ordinal column {col!r} holds values not in its declared order: {unknown[:5]}")
                    )
            out[col] = as_str
    return pd.DataFrame(out, columns=list(types))


def _label(value: Any) -> str:
    """Category label as text; 3.0 and 3 are the same category."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _check_not_constant(path: Path | InMemoryTable, frame: pd.DataFrame) -> None:
    for col in frame.columns:
        values = frame[col].dropna()
        if len(frame) > 1 and values.nunique() <= 1 and len(values) == len(frame):
            raise InvalidInput(
                Problem(_name(path), f"column {col!r} is constant ({values.iloc[0]!r} in every row): it carries no information; drop it")
            )
