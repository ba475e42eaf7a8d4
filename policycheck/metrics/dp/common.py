"""What the DP family's rules share: references, claim ids, declared mechanisms, JSON-safe numbers."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from policycheck.core.errors import EvaluationError
from policycheck.release.claims import Claim

if TYPE_CHECKING:
    from policycheck.release.mechanism import Mechanism
    from policycheck.release.model import SynthesizerInfo

REFERENCE = "Abowd, Vilhuber. How protective are synthetic data? Privacy in Statistical Databases 2008 (paper 004)."


def json_number(value: float | None) -> float | None:
    """A JSON-safe float: None for missing, nan and infinite values."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def claim_id(set_index: int) -> Claim:
    """Id of the epsilon a release's synthetic set claims, shared by the rules that test and count it."""
    return Claim.of_synthetic_set(set_index)


def declared_mechanism(info: SynthesizerInfo | None, where: str) -> Mechanism | None:
    """The DP mechanism a synthetic set's manifest declares, or None when it claims no DP.

    Raises EvaluationError naming ``where`` when the declaration is invalid.
    """
    from policycheck.methods.dp.ledger import synthesizer_mechanism
    from policycheck.release.mechanism import InvalidMechanism

    try:
        return synthesizer_mechanism(info)
    except InvalidMechanism as exc:
        raise EvaluationError(f"{where} declares an {exc}") from None
