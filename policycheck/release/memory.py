"""A data set held in memory (a pandas DataFrame), read like a data file.

The Python API builds releases from DataFrames without writing them to
disk; :func:`policycheck.release.load.build_release` reads an
:class:`InMemoryTable` where it would read a file, so both take the same
checks and coercions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policycheck.core.errors import InvalidInput, Problem


@dataclass(frozen=True, eq=False)
class InMemoryTable:
    """A DataFrame standing in for a data file; ``name`` labels it in problems and reports."""

    name: str
    frame: Any  # pandas.DataFrame (pandas is imported only when a release is built)
    _hash: dict[str, str] = field(default_factory=dict, repr=False)

    def read(self) -> Any:
        """A copy of the frame with string column names; the caller's frame is never modified."""
        import pandas as pd

        if not isinstance(self.frame, pd.DataFrame):
            raise InvalidInput(Problem(self.name, f"expected a pandas DataFrame, got {type(self.frame).__name__}"))
        if len(self.frame.columns) == 0:
            raise InvalidInput(Problem(self.name, "data frame has no columns"))
        if len(self.frame) == 0:
            raise InvalidInput(Problem(self.name, "data frame has columns but no rows"))
        names = [str(c) for c in self.frame.columns]
        dupes = sorted({c for c in names if names.count(c) > 1})
        if dupes:
            raise InvalidInput(Problem(self.name, f"duplicate column names: {dupes}"))
        frame = self.frame.reset_index(drop=True).copy()
        frame.columns = names
        return frame

    def sha256(self) -> str:
        """SHA-256 of the frame as CSV (``frame.to_csv(index=False)``, UTF-8).

        It equals the file hash of ``frame.to_csv(path, index=False)`` on a
        POSIX system, so a report on the DataFrame and one on that file name
        the same data by the same hash.
        """
        if "sha256" not in self._hash:
            from policycheck.release.csv_text import csv_sha256

            self._hash["sha256"] = csv_sha256(self.frame)
        return self._hash["sha256"]
