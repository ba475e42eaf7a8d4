"""Each column's role and where it came from, as a report shows them (issue 25: roles are never invisible)."""

from __future__ import annotations

from typing import Any


def roles_by_source(report: dict[str, Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    """The release's columns grouped by where their role came from, in column order.

    ``[("inferred from train.csv, holdout.csv", [("age", "numeric"), ...]), ("declared in the manifest", ...)]``;
    a report written before role sources were recorded groups every column under "not recorded".
    """
    release = report.get("release") or {}
    sources = release.get("role_sources") or {}
    groups: dict[str, list[tuple[str, str]]] = {}
    for column, role in (release.get("roles") or {}).items():
        groups.setdefault(sources.get(column) or "source not recorded", []).append((column, role))
    return list(groups.items())
