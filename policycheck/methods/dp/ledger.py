"""The privacy-budget ledger: earlier releases of the same original, kept next to the policy.

A ledger is a YAML file versioned with the policy (policy-as-code: spending
budget is a change to the ledger, reviewed like any other)::

    ledger_version: 1
    original:                       # optional: which original these releases came from
      name: adult_training.csv
      sha256: 3f5c...               # if given, must match the release's original
    releases:
      - id: adult-2025-q3           # releases with the current release's id are skipped
        released_on: 2025-09-30
        note: quarterly extract for the analytics team
        mechanisms:                 # one entry per synthetic set, keys as in release.mechanism.Mechanism
          - {mechanism: laplace, epsilon: 0.3}
          - {mechanism: gaussian, rho: 0.02, steps: 2}

Every mechanism entry takes the keys documented in
:mod:`policycheck.methods.dp.composition`.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from policycheck.release.mechanism import Mechanism


class LedgerError(ValueError):
    """The ledger file is missing or invalid; the message names the file and the cause."""


class OriginalRef(BaseModel):
    """The original every listed release was made from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = Field(None, description="Human-readable name of the original data.")
    sha256: str | None = Field(None, pattern=r"^[0-9a-fA-F]{64}$", description="SHA-256 of the original data file.")


class LedgerRelease(BaseModel):
    """One earlier release and the mechanisms behind its synthetic sets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, description="Release identifier, as in its manifest.")
    released_on: dt.date | None = Field(None, description="Date of the release.")
    note: str = Field("", description="Free text: purpose, recipients, ticket.")
    mechanisms: list[Mechanism] = Field(min_length=1, description="One declared mechanism per synthetic set.")


class Ledger(BaseModel):
    """The ledger file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ledger_version: Literal[1] = Field(description="Format version of the ledger file.")
    original: OriginalRef | None = Field(None, description="The original the releases were made from.")
    releases: list[LedgerRelease] = Field(default_factory=list, description="Earlier releases, oldest first.")


def load_ledger(path: Path) -> Ledger:
    """Read and validate a ledger file.

    Raises
    ------
    LedgerError
        One line naming the file and the cause (missing file, bad YAML, or
        the first invalid value with its location).
    """
    from policycheck.core.errors import InvalidInput
    from policycheck.io.yamlio import load_yaml

    path = Path(path)
    if not path.is_file():
        raise LedgerError(f"ledger {path}: file not found")
    # NOTE: the policy loader's caps (file size, nodes while parsing and after
    # aliases) apply: a small ledger of aliases must not expand for minutes.
    try:
        data = load_yaml(path, "ledger").data
    except InvalidInput as exc:
        raise LedgerError(f"ledger {exc.problems[0]}") from None
    if not isinstance(data, dict):
        raise LedgerError(f"ledger {path}: expected a mapping with ledger_version and releases")
    try:
        return Ledger.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(part) for part in first["loc"]) or "(top level)"
        msg = first["msg"].removeprefix("Value error, ")
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise LedgerError(f"ledger {path}: {loc}: {msg}{more}") from exc
