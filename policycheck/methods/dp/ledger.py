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

Beside the ledger, its checks against a release (:func:`check_ledger`): the
policy loader runs them where it reads the ledger, so a ledger a budget rule
cannot count is invalid input (exit 2) before anything is computed.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from policycheck.release.mechanism import Mechanism

if TYPE_CHECKING:
    from policycheck.release.model import Release, SynthesizerInfo


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


# ---------------------------------------------------------------- the ledger against a release


class Accounting(Protocol):
    """What the budget rule's params say about accounting (``dp_total_epsilon``'s params are one)."""

    @property
    def accountant(self) -> str: ...

    @property
    def delta(self) -> float: ...


def synthesizer_mechanism(info: SynthesizerInfo | None) -> Mechanism | None:
    """The DP mechanism a synthetic set's manifest declares, or None when it claims no DP.

    Raises :class:`policycheck.release.mechanism.InvalidMechanism` (a ValueError naming the key)
    when the declaration is invalid.
    """
    from policycheck.release import mechanism

    if info is None:
        return None
    fields = dict(info.params)
    if info.epsilon is not None:
        fields["epsilon"] = info.epsilon
    if info.delta is not None:
        fields["delta"] = info.delta
    return mechanism.declared_mechanism(fields)


def release_mechanisms(release: Release) -> list[Mechanism]:
    """The mechanisms this release's sets declare (sets claiming no DP left out).

    An invalid declaration is refused when the manifest is read; one in a
    Release built in code is left to the evaluator, which names it.
    """
    from policycheck.release.mechanism import InvalidMechanism

    declared = []
    for ds in release.synthetic:
        try:
            mech = synthesizer_mechanism(ds.synthesizer)
        except InvalidMechanism:
            continue
        if mech is not None:
            declared.append(mech)
    return declared


def other_accountants(accountant: str) -> str:
    """The accountants to suggest instead of ``accountant``, quoted, in the order the policy language lists them."""
    from policycheck.methods.dp import composition

    return ", ".join(repr(a) for a in ("best", *composition.ACCOUNTANTS) if a != accountant)


def original_mismatch(ledger: Ledger, path: Path, release: Release) -> str | None:
    """Why ``ledger`` (read from ``path``) is not of ``release``'s original, or None.

    Only when both hashes are known: a ledger need not name its original.
    """
    sha = release.original.sha256
    recorded = ledger.original.sha256 if ledger.original else None
    if recorded and sha and recorded.lower() != sha.lower():
        return (
            f"ledger {path}: lists releases of an original with sha256 {recorded}, "
            f"but this release's original has sha256 {sha}"
        )
    return None


def check_ledger(
    params: Accounting, ledger: Ledger, path: Path, release: Release
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: the ledger at ``path`` must be of this release's original, and the chosen accountant
    must apply to the mechanisms it records as well as to this release's.

    The policy loader calls this where it reads the ledger (it knows the
    policy's folder), so a ledger the rule cannot count is invalid input
    (exit 2), not an evaluator error. Entries with this release's id are
    skipped, as the rule skips them.
    """
    from policycheck.methods.dp import composition

    problems: list[tuple[tuple[str | int, ...], str]] = []
    mismatch = original_mismatch(ledger, path, release)
    if mismatch:
        problems.append((("ledger",), mismatch))
    if params.accountant == "best":
        return problems
    own = release_mechanisms(release)
    if own and composition.inapplicable(params.accountant, own, params.delta):
        return problems  # the rule's own check names it: one mistake, one message
    recorded = [m for entry in ledger.releases if entry.id != release.id for m in entry.mechanisms]
    reason = composition.inapplicable(params.accountant, [*own, *recorded], params.delta) if recorded else None
    if reason:
        problems.append(
            (
                ("accountant",),
                f"accountant {params.accountant!r} cannot account for the mechanisms "
                f"ledger {path} records: {reason}; use one of "
                f"{other_accountants(params.accountant)}",
            )
        )
    return problems
