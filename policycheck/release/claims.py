"""Declared claims: what a release (or a ledger's earlier release) states about itself, as keys.

A measurement may refute a claim (the membership game finds an epsilon above
the one a synthetic set declares) and a value may rely on one (a total budget
sums every declared epsilon). The engine matches the two by these keys, so a
rule relying on a claim another rule refuted in the same run fails
(:mod:`policycheck.engine.claims`). report.json writes a claim as its text,
``synthetic[0]:epsilon``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Claim:
    """One declared quantity (``epsilon``) of one holder: a synthetic set, or a ledger release's mechanism."""

    #: Who declares it: ``synthetic[0]`` (this release's first set) or ``ledger:old[1]``.
    holder: str
    #: What is declared.
    quantity: str = "epsilon"

    @classmethod
    def of_synthetic_set(cls, index: int, quantity: str = "epsilon") -> Claim:
        """The claim of this release's synthetic set ``index`` (0-based, as the manifest lists them)."""
        return cls(f"synthetic[{index}]", quantity)

    @classmethod
    def of_ledger(cls, release_id: str, mechanism: int, quantity: str = "epsilon") -> Claim:
        """The claim of mechanism ``mechanism`` (1-based) a ledger lists for its release ``release_id``."""
        return cls(f"ledger:{release_id}[{mechanism}]", quantity)

    def __str__(self) -> str:
        return f"{self.holder}:{self.quantity}"

    @property
    def words(self) -> str:
        """``the epsilon claim of synthetic[0]``."""
        return f"the {self.quantity} claim of {self.holder}"
