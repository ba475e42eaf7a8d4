"""Column roles from an SDV metadata JSON file, so users of SDV reuse what they have.

Two layouts are read (docs.sdv.dev, "Metadata JSON" and "Single Table
Metadata JSON"):

- the current one, ``{"METADATA_SPEC_VERSION": "V1", "tables": {name:
  {"primary_key": ..., "columns": {...}}}}``; with several tables, the one
  whose columns are the data's is taken;
- the older single-table one, ``{"METADATA_SPEC_VERSION": "SINGLE_TABLE_V1",
  "primary_key": ..., "columns": {...}}``.

Each column's ``sdtype`` maps onto a role: ``id`` -> id, ``numerical`` ->
numeric, ``categorical`` and ``boolean`` -> categorical, ``datetime`` ->
datetime (with its ``datetime_format``). Every other sdtype (``email``,
``phone_number``, ``address``, ``ssn`` ... SDV treats them as PII and
generates them anew) -> ignore. The primary key and alternate keys are ids.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.io.files import read_json
from policycheck.release.manifest import ColumnDecl, ColumnRole

#: Largest metadata file read, in bytes (a table of 10,000 columns is about 1 MB).
MAX_METADATA_BYTES = 16_000_000

SDTYPE_ROLES: dict[str, ColumnRole] = {
    "id": "id",
    "numerical": "numeric",
    "categorical": "categorical",
    "boolean": "categorical",
    "datetime": "datetime",
}


def read_sdv_metadata(path: Path, data_columns: list[str] | None = None) -> dict[str, ColumnDecl]:
    """Column declarations from the SDV metadata file at ``path``."""
    name = display_path(path)
    # A key written twice is refused: SDV (Python) would take the last, another reader the first.
    document = read_json(Path(path), "metadata", MAX_METADATA_BYTES)
    table = _single_table(name, document, data_columns)
    columns = table.get("columns")
    if not isinstance(columns, dict) or not columns:
        raise InvalidInput(Problem(name, "SDV metadata needs a 'columns' mapping of column name to {\"sdtype\": ...}"))
    keys = {table.get("primary_key")} | set(table.get("alternate_keys") or [])
    decls = {}
    for column, spec in columns.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("sdtype"), str):
            raise InvalidInput(Problem(name, f'column {column!r}: expected {{"sdtype": ...}}, got {spec!r}'))
        role: ColumnRole = "id" if column in keys else SDTYPE_ROLES.get(spec["sdtype"], "ignore")
        fmt = spec.get("datetime_format") if role == "datetime" else None
        decls[str(column)] = ColumnDecl(type=role, format=fmt)
    return decls


def _single_table(name: str, document: Any, data_columns: list[str] | None) -> dict[str, Any]:
    if not isinstance(document, dict):
        raise InvalidInput(Problem(name, "SDV metadata must be a JSON object"))
    if "tables" not in document:
        return document  # the single-table layout
    tables = document["tables"]
    if not isinstance(tables, dict) or not tables:
        raise InvalidInput(Problem(name, "SDV metadata 'tables' must map table names to their metadata"))
    if len(tables) == 1:
        return next(iter(tables.values()))
    if data_columns is not None:
        matching = [
            t for t in tables.values() if isinstance(t, dict) and set(t.get("columns", {})) == set(data_columns)
        ]
        if len(matching) == 1:
            return matching[0]
    raise InvalidInput(
        Problem(
            name,
            f"SDV metadata describes {len(tables)} tables {sorted(tables)} and none is "
            "exactly the data's columns: give a metadata file with one table",
        )
    )
