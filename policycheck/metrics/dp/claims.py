"""Declared epsilon claims against measured lower bounds: what both ``dp_epsilon_excess_*`` rules share.

A measured lower confidence bound on epsilon (Jagielski, Ullman, Oprea 2020)
above the claim refutes it; at or below it, the claim is not refuted by this
test, never verified.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field, PlainSerializer

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import MetricResult
from policycheck.metrics.details import Details, detail
from policycheck.metrics.dp.common import json_number
from policycheck.metrics.registry import Params
from policycheck.release.claims import Claim

if TYPE_CHECKING:
    from policycheck.methods.dp.lower_bound import EpsilonBound
    from policycheck.release.model import Dataset

AUDIT_REFERENCES = (
    "Jagielski, Ullman, Oprea. Auditing differentially private machine learning. NeurIPS 2020.",
    "Steinke, Nasr, Jagielski. Privacy auditing with one (1) training run. NeurIPS 2023.",
)
#: What a pass of a measured lower bound means: never that the claim holds.
NOT_REFUTED = "Not refuted by this test (a test cannot verify a DP claim)."
#: Why a rule on a measured-epsilon excess decides on its value, not on its interval.
EXCESS_IS_BOUND = (
    "Decided on the value (compare: estimate): it is already a lower confidence bound on epsilon minus the claim, "
    "so it says only what the test shows; its interval's upper end bounds this attack, not the mechanism, and no "
    "sample can show that a DP claim holds."
)
#: What a claim excess's interval is of: its upper end is the excess of this attack's measured-epsilon upper end,
#: which bounds what the attack can show, not the mechanism's epsilon (the table shows the clause before "; ").
INTERVAL_OF = (
    "this attack's excess over the claim; the mechanism's own excess may be larger: no test bounds its epsilon "
    "from above"
)


class ClaimParams(Params):
    claimed_epsilon: float | None = Field(
        None, gt=0, description="Epsilon claimed for sets whose manifest declares none (the manifest's wins)."
    )
    claimed_delta: float = Field(
        0.0, ge=0, lt=1, description="Delta claimed for sets whose manifest declares no delta."
    )


#: A claim in details: the key the engine matches, written as its text (``synthetic[0]:epsilon``) in report.json.
ClaimKey = Annotated[Claim, PlainSerializer(str, return_type=str)]


class ClaimRow(Details):
    """One tested claim: what a set claims, and what the test measured."""

    set: str = detail("Synthetic set", help="Or the synthesizer the game re-ran.")
    claim: ClaimKey | None = detail(
        "Claim id", format="text", help="None when the test does not test a claim of this release."
    )
    claimed_epsilon: float = detail("Claimed epsilon")
    claimed_delta: float = detail("Claimed delta")
    measured_epsilon_lower: float | None = detail("Measured epsilon, lower bound", help="None when infinite.")
    measured_epsilon_estimate: float | None = detail("Measured epsilon, estimate", help="None when infinite.")
    measured_epsilon_upper: float | None = detail("Measured epsilon, upper end", help="None when infinite.")
    excess: float = detail("Excess over the claim", help="max(0, lower bound - claimed epsilon).")
    contradicted: bool = detail("Refuted")
    bound: str = detail("Bound", help="tpr_fpr or one_bit")
    evidence: dict[str, Any] = detail("Evidence", help="The counts and rates behind the bound.")


class ExcessDetails(Details):
    claims: list[ClaimRow] = detail("Claims tested")
    confidence: float = detail("Confidence of the lower bound", format="share")
    method: str = detail("Test")


def claimed(ds: Dataset | None, params: ClaimParams, where: str) -> tuple[float, float]:
    """(epsilon, delta) claimed for one set: the manifest's, else the params' fallback."""
    info = ds.synthesizer if ds is not None else None
    epsilon = info.epsilon if info and info.epsilon is not None else params.claimed_epsilon
    if epsilon is None:
        raise EvaluationError(
            f"{where} declares no epsilon to test; give param claimed_epsilon (the epsilon claimed for it)"
        )
    delta = info.delta if info and info.delta is not None else params.claimed_delta
    return float(epsilon), float(delta)


def claim_row(name: str, claim: tuple[float, float], b: EpsilonBound, claim_of: Claim | None) -> ClaimRow:
    """A claim against the bound ``b`` measured on it."""
    return ClaimRow(
        set=name,
        claim=claim_of,
        claimed_epsilon=claim[0],
        claimed_delta=claim[1],
        measured_epsilon_lower=json_number(b.epsilon_lower),
        measured_epsilon_estimate=json_number(b.epsilon_estimate),
        measured_epsilon_upper=json_number(b.epsilon_upper),
        excess=max(0.0, b.epsilon_lower - claim[0]),
        contradicted=b.epsilon_lower > claim[0],
        bound=b.bound,
        evidence=b.evidence,
    )


def excess_result(details: ExcessDetails, attack: str, more_notes: tuple[str, ...] = ()) -> MetricResult:
    """The rule's result: the largest excess over the claims, and the claims it refutes."""
    rows = details.claims
    value = max(r.excess for r in rows)
    uppers = [r.measured_epsilon_upper for r in rows]
    interval = None
    if all(u is not None for u in uppers):
        interval = (
            value,
            max(max(0.0, u - r.claimed_epsilon) for u, r in zip(uppers, rows, strict=True) if u is not None),
        )
    if value > 0:
        bad = ", ".join(r.set for r in rows if r.contradicted)
        notes: tuple[str, ...] = (
            f"Refuted: the measured lower bound on epsilon exceeds the claim for {bad}, at the stated "
            "confidence; the DP claim is false, and a budget that counts it is unaccounted.",
        )
    else:
        notes = (
            "Not refuted by this test (a test cannot verify a DP claim): the measured lower bound on epsilon "
            "does not exceed the claim; a stronger attack might still refute it.",
        )
    return MetricResult(
        value=value,
        interval=interval,
        confidence=details.confidence,
        details=details,
        charts=(claim_chart(rows, attack),),
        notes=(*notes, *more_notes),
        refutes=tuple(r.claim for r in rows if r.contradicted and r.claim is not None),
        interval_of=INTERVAL_OF if interval is not None else None,
    )


def claim_chart(rows: list[ClaimRow], attack: str) -> dict[str, Any]:
    """Each set's claimed epsilon beside the lower bound the attack measured."""
    names = [r.set for r in rows]
    return {
        "kind": "bar",
        "title": f"Claimed epsilon against the lower bound measured by the {attack}",
        "x_label": "synthetic set",
        "y_label": "epsilon",
        "series": [
            {"name": "claimed", "x": names, "y": [r.claimed_epsilon for r in rows]},
            {"name": "measured (lower confidence bound)", "x": names, "y": [r.measured_epsilon_lower for r in rows]},
        ],
    }
