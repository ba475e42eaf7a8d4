"""What both YAML readers share: the caps, a parsed document with its positions, and positions in text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policycheck.core.errors import Problem

#: Most nodes a document may hold, or expand to through aliases; real policies have a few hundred.
MAX_NODES = 20_000
#: Largest file read, in bytes; real policies and manifests are a few kilobytes.
MAX_BYTES = 1_000_000
#: Longest integer literal, in digits (Python refuses to convert more than 4,300).
MAX_DIGITS = 100
#: Deepest nesting of mappings and sequences; real documents nest four or five levels.
MAX_DEPTH = 100

PathKey = tuple[str | int, ...]


@dataclass
class Located:
    """A YAML document as plain data plus the position of every node."""

    data: Any
    file: str
    marks: dict[PathKey, tuple[int, int]] = field(default_factory=dict)
    #: SHA-256 of the bytes parsed, when read from a file (so a file is hashed as it was read, once).
    sha256: str | None = None

    def where(self, path: PathKey) -> tuple[int | None, int | None]:
        """Position of ``path``, or of its nearest located ancestor."""
        for cut in range(len(path), -1, -1):
            if path[:cut] in self.marks:
                return self.marks[path[:cut]]
        return (None, None)

    def problem(self, path: PathKey, message: str) -> Problem:
        line, col = self.where(path)
        return Problem(self.file, message, line, col)


def position(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of ``text[index]``."""
    return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index)
