"""Safe YAML loading with positions, for policies, manifests and ledgers.

ruamel.yaml speaks YAML 1.2, so ``delta: 1e-6`` is a number and ``no`` is
the string "no" (YAML 1.1 loaders such as PyYAML get both wrong), and it
rejects duplicate keys. On top of it this module:

- converts the document to plain Python (dict, list, str, int, float, bool,
  None, date) while recording the 1-based line and column of every mapping
  key and sequence item, so validation errors can point at ``file:line:col``;
- caps the file's size and the number of nodes while parsing (a long
  sequence is refused at its node cap, not after minutes of parsing) and
  again while expanding aliases, which stops "billion laughs" bombs;
- turns every read or parse failure, an impossible date (2099-02-30), an
  integer too long to convert, a mapping used as a key or a value its
  explicit tag cannot hold (``!!int abc``) included, into one located
  :class:`InvalidInput` line.

Two readers share the work (:func:`parse_yaml`): libyaml, in C, reads the
plain documents policies, manifests and ledgers are (:mod:`policycheck.yaml_libyaml`);
ruamel.yaml reads every other document and words every error
(:mod:`policycheck.yaml_ruamel`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policycheck.errors import InvalidInput, Problem, display_path

#: Most nodes a document may hold, or expand to through aliases; real policies have a few hundred.
MAX_NODES = 20_000
#: Largest file read, in bytes; real policies and manifests are a few kilobytes.
MAX_BYTES = 1_000_000
#: Longest integer literal, in digits (Python refuses to convert more than 4,300).
MAX_DIGITS = 100

PathKey = tuple[str | int, ...]


@dataclass
class Located:
    """A YAML document as plain data plus the position of every node."""

    data: Any
    file: str
    marks: dict[PathKey, tuple[int, int]] = field(default_factory=dict)

    def where(self, path: PathKey) -> tuple[int | None, int | None]:
        """Position of ``path``, or of its nearest located ancestor."""
        for cut in range(len(path), -1, -1):
            if path[:cut] in self.marks:
                return self.marks[path[:cut]]
        return (None, None)

    def problem(self, path: PathKey, message: str) -> Problem:
        line, col = self.where(path)
        return Problem(self.file, message, line, col)


def read_text(path: Path, what: str) -> str:
    """Read a UTF-8 text file, or fail with one line naming it and the cause."""
    name = display_path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InvalidInput(Problem(name, f"{what} file not found")) from None
    except IsADirectoryError:
        raise InvalidInput(Problem(name, f"{what} path is a directory, not a file")) from None
    except OSError as exc:
        raise InvalidInput(Problem(name, f"cannot read {what} file: {exc.strerror}")) from None
    if len(raw) > MAX_BYTES:
        raise InvalidInput(Problem(name, f"{what} file is larger than {MAX_BYTES} bytes"))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[:exc.start].decode("utf-8", "replace")
        line, col = _position(before, len(before))
        raise InvalidInput(
            Problem(name, f"{what} file is not valid UTF-8 (byte {exc.start}: {raw[exc.start:exc.start+1]!r})", line, col)
        ) from None


def _position(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of ``text[index]``."""
    return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index)


def load_yaml(path: Path, what: str = "policy") -> Located:
    """Parse one YAML file into :class:`Located` data."""
    return parse_yaml(read_text(path, what), display_path(path), what)


def parse_yaml(text: str, name: str, what: str = "policy") -> Located:
    """Parse one document into :class:`Located` data, or raise one located :class:`InvalidInput`.

    libyaml reads the plain documents policies are, fast
    (:mod:`policycheck.yaml_libyaml`); ruamel.yaml reads everything else and
    words every error (:mod:`policycheck.yaml_ruamel`). Both give the same data
    and marks where both read (tests/test_yaml_libyaml.py).
    """
    from policycheck import yaml_libyaml

    located = yaml_libyaml.parse_plain(text, name)
    if located is not None:
        return located
    from policycheck import yaml_ruamel  # imported only here: ruamel.yaml's import alone costs 15 ms

    return yaml_ruamel.parse(text, name, what)
