"""Safe YAML loading with positions, for policies, manifests and ledgers.

ruamel.yaml speaks YAML 1.2, so ``delta: 1e-6`` is a number and ``no`` is
the string "no" (YAML 1.1 loaders such as PyYAML get both wrong), and it
rejects duplicate keys. On top of it this module:

- converts the document to plain Python (dict, list, str, int, float, bool,
  None, date) while recording the 1-based line and column of every mapping
  key and sequence item, so validation errors can point at ``file:line:col``;
- reads only regular files, at most :data:`MAX_BYTES` + 1 bytes of them
  (a FIFO or /dev/zero is refused unread: :func:`policycheck.io.files.read_capped`);
- caps the number of nodes and the nesting depth while parsing (a long
  sequence is refused at its node cap, not after minutes of parsing) and
  the nodes again while expanding aliases, which stops "billion laughs" bombs;
- turns every read or parse failure, an impossible date (2099-02-30), an
  integer too long to convert, a mapping used as a key or a value its
  explicit tag cannot hold (``!!int abc``) included, into one located
  :class:`InvalidInput` line.

Two readers share the work (:func:`parse_yaml`): libyaml, in C, reads the
plain documents policies, manifests and ledgers are (:mod:`policycheck.io.yaml_libyaml`);
ruamel.yaml reads every other document and words every error
(:mod:`policycheck.io.yaml_ruamel`).
"""

from __future__ import annotations

from pathlib import Path

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.io.yaml_types import MAX_BYTES, Located, position


def read_bytes(path: Path, what: str) -> bytes:
    """A capped YAML input's bytes: a regular file of at most :data:`MAX_BYTES` bytes, else one line."""
    from policycheck.io.files import read_capped

    return read_capped(path, what, MAX_BYTES)


def _decode(raw: bytes, name: str, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start].decode("utf-8", "replace")
        line, col = position(before, len(before))
        raise InvalidInput(
            Problem(
                name,
                f"{what} file is not valid UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})",
                line,
                col,
            )
        ) from None


def load_yaml(path: Path, what: str = "policy") -> Located:
    """Parse one YAML file into :class:`Located` data, with the SHA-256 of the bytes it parsed."""
    import hashlib

    raw = read_bytes(Path(path), what)
    located = parse_yaml(_decode(raw, display_path(path), what), display_path(path), what)
    located.sha256 = hashlib.sha256(raw).hexdigest()
    return located


def parse_yaml(text: str, name: str, what: str = "policy") -> Located:
    """Parse one document into :class:`Located` data, or raise one located :class:`InvalidInput`.

    libyaml reads the plain documents policies are, fast
    (:mod:`policycheck.io.yaml_libyaml`); ruamel.yaml reads everything else and
    words every error (:mod:`policycheck.io.yaml_ruamel`). Both give the same data
    and marks where both read (tests/io/test_yaml_libyaml.py).
    """
    from policycheck.io import yaml_libyaml

    located = yaml_libyaml.parse_plain(text, name)
    if located is not None:
        return located
    from policycheck.io import yaml_ruamel  # imported only here: ruamel.yaml's import alone costs 15 ms

    return yaml_ruamel.parse(text, name, what)
