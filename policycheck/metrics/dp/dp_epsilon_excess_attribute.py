"""``dp_epsilon_excess_attribute``: a lower bound on epsilon from the attribute inference game, minus the claim.

The game is the reconstruction family's (paper 001, sec. 4.1): one person's
secret bit randomised, guessed from the synthetic data; its accuracy (or its
true and false positive rates) bounds epsilon (Jagielski, Ullman, Oprea 2020).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import AttackerView, EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.details import detail
from policycheck.metrics.dp.claims import (
    AUDIT_REFERENCES,
    EXCESS_IS_BOUND,
    NOT_REFUTED,
    ClaimParams,
    ExcessDetails,
    claim_row,
    claimed,
    excess_result,
)
from policycheck.metrics.dp.common import REFERENCE, claim_id
from policycheck.metrics.reconstruction import GameParams, check_secret_declared, game_need
from policycheck.metrics.registry import Method, metric
from policycheck.release.model import Release

METHOD = Method(
    definition="The same lower bound on epsilon from the attribute-inference game, minus the declared epsilon.",
    source="paper 001, sec. 4.1 (the game); Jagielski, Ullman, Oprea 2020 (the bound)",
)


class AttributeExcessParams(GameParams, ClaimParams):
    bound: Literal["one_bit", "tpr_fpr"] = Field(
        "one_bit",
        description="'one_bit': from the game's accuracy (its secret bit is a fair coin); 'tpr_fpr': from the "
        "true and false positive rates of the guesses.",
    )


class AttributeExcessDetails(ExcessDetails):
    game: dict[str, Any] = detail("The game", help="Its settings, as the reconstruction family records them.")


def _check(
    params: AttributeExcessParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: the game's secret must be declared (the reconstruction family's check)."""
    return [(tuple(path), message) for path, message in check_secret_declared(params, release, attacker)]


@metric(
    name="dp_epsilon_excess_attribute",
    method=METHOD,
    family="dp",
    params=AttributeExcessParams,
    details=AttributeExcessDetails,
    knowledge={Knowledge.ORIGINAL_QI, Knowledge.SYNTHETIC, Knowledge.DECLARED_MECHANISM},
    inputs={"original", "synthetic", "synthesizer"},
    value_range=(0.0, None),
    column_params=("secret", "quasi_identifiers"),
    needs=lambda p, r: [game_need(p)],
    check=_check,
    meaning="How far the epsilon proven by the attribute inference game (guessing one person's randomised secret "
    "bit from synthetic data) exceeds the epsilon claimed for the synthesizer. 0 means this test does not "
    "refute the claim (no test can verify a DP claim); above 0, the claim is refuted at the stated confidence.",
    pass_means=NOT_REFUTED,
    value_is_bound=EXCESS_IS_BOUND,
    remedy="Do not publish the differential-privacy claim as stated: re-check the synthesizer's implementation and "
    "budget, or use a mechanism that actually meets the claimed epsilon.",
    references=(REFERENCE, *AUDIT_REFERENCES),
)
def dp_epsilon_excess_attribute(
    ctx: EvaluationContext, params: AttributeExcessParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Measured lower bound on epsilon from the attribute inference game, minus the claimed epsilon."""
    from policycheck.methods.dp import lower_bound

    game = needs[game_need(params)]
    source = ctx.release.synthetic[0] if params.synthesizer == "release" and ctx.release.synthetic else None
    name = source.name if source is not None else f"synthesizer {params.synthesizer!r}"
    claim = claimed(source, params, name)
    try:
        b = lower_bound.attribute_game_bound(game.truth, game.guess, params.confidence, claim[1], params.bound)
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None
    # NOTE: only a game run on the release's own synthesizer tests that set's claim.
    claim_of = claim_id(0) if source is not None else None
    details = AttributeExcessDetails(
        claims=[claim_row(name, claim, b, claim_of)],
        confidence=params.confidence,
        method="Attribute inference game (paper 001, sec. 4.1): "
        + (
            "epsilon >= ln((acc_lower - delta) / (1 - acc_lower))"
            if params.bound == "one_bit"
            else "epsilon >= ln((TPR_lower - delta) / FPR_upper)"
        )
        + ", Clopper-Pearson.",
        game={
            k: (v if isinstance(v, str | int | float | bool) or v is None else str(v)) for k, v in game.params.items()
        },
    )
    return excess_result(details, "attribute inference game")
