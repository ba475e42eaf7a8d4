"""The version of policycheck, and a digest of the code that is running, both recorded in every report."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

__version__ = "0.1.0"

#: Files of the package that are not its source: byte code, written by Python as it imports.
_NOT_SOURCE = ("__pycache__",)


@cache
def source_sha256() -> str:
    """SHA-256 over every file of the installed ``policycheck`` package (code, templates, shipped data).

    The version string names a release, not the code: two builds between
    releases, or an edited install, share it. This digest tells them apart,
    so a report made by other code than the one re-running or rendering it
    can say so. The same files give the same digest wherever the package is
    installed, from a wheel or a checkout (:func:`folder_sha256`).
    """
    return folder_sha256(Path(__file__).resolve().parent.parent)


def folder_sha256(folder: Path) -> str:
    """SHA-256 over the files under ``folder``, byte code aside.

    Each file enters as its path relative to ``folder`` (with ``/``), a NUL,
    the hex SHA-256 of its bytes and a newline, in path order.
    """
    total = hashlib.sha256()
    files = sorted(
        (p.relative_to(folder).as_posix(), p)
        for p in folder.rglob("*")
        if p.is_file() and not any(part in _NOT_SOURCE for part in p.relative_to(folder).parts)
    )
    for name, path in files:
        total.update(name.encode("utf-8") + b"\0" + hashlib.sha256(path.read_bytes()).hexdigest().encode() + b"\n")
    return total.hexdigest()
