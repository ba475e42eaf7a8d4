"""``dp_epsilon_excess_membership``: a lower bound on epsilon measured by a membership test, minus the claim.

Two tests: ``distance`` (one released set, training against holdout records
by their distance to it: one training run, Steinke, Nasr, Jagielski 2023) and
``game`` (the membership game's rates on its most exposed target: the
synthesizer re-run, Annamalai, Ganev, De Cristofaro 2024).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import AttackerView, EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.details import detail
from policycheck.metrics.dp.claims import (
    AUDIT_REFERENCES,
    EXCESS_IS_BOUND,
    NOT_REFUTED,
    ClaimParams,
    ClaimRow,
    ExcessDetails,
    claim_row,
    claimed,
    excess_result,
)
from policycheck.metrics.dp.common import REFERENCE, claim_id, json_number
from policycheck.metrics.membership.game_params import MembershipGameParams, check_game_params, release_synthesizer
from policycheck.metrics.membership.game_params import game_need as membership_game_need
from policycheck.metrics.membership.gower_dcr import dcr_needs, dcrs_in_set_order
from policycheck.metrics.membership.membership_game import GameSettings
from policycheck.metrics.registry import Method, metric
from policycheck.release.model import Release

if TYPE_CHECKING:
    import numpy as np

    from policycheck.methods.dp.lower_bound import EpsilonBound
    from policycheck.methods.membership_game.game import MembershipGame

METHOD = Method(
    definition="Lower bound on epsilon measured by a membership test (threshold chosen on one seeded half of the "
    "records, Clopper-Pearson bounds on the other) minus the declared epsilon; > 0 refutes the claim. With test: "
    "game, the test is the membership game's: target, attack and threshold chosen on its training rounds (the "
    "target by how its test holds from one half of them to the other), the bound on its test rounds.",
    source="Jagielski, Ullman, Oprea 2020; Steinke, Nasr, Jagielski 2023 (privacy auditing); Annamalai, Ganev, "
    "De Cristofaro 2024 (auditing DP synthesizers with the membership game)",
)


class MembershipExcessParams(ClaimParams, MembershipGameParams):
    test: Literal["distance", "game"] = Field(
        "distance",
        description="'distance': one released set, training against holdout records by their distance to it "
        "(one training run); 'game': the membership game's rates on its most exposed target (re-runs the "
        "synthesizer: give synthesizer and repetitions as for membership_inference_advantage).",
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence of the lower bound on epsilon.")
    columns: list[str] | None = Field(
        None,
        description="Columns of the distance to closest record (or the game's columns); all columns of the "
        "release when omitted.",
    )


class DistanceExcessDetails(ExcessDetails):
    """``test: distance``: every set's claim against the distance test on it."""

    assumption: str = detail("Assumption")


class GameClaimRow(ClaimRow):
    """The claim the game tested, and the target whose rounds bound epsilon."""

    target: str = detail("Target")
    attack: str = detail("Attack")
    largest_certifiable_epsilon: float | None = detail("Largest epsilon the rounds could certify")


class GameExcessDetails(ExcessDetails):
    """``test: game``: the claim of the set whose synthesizer the game re-ran."""

    claims: list[GameClaimRow] = detail("Claims tested")  # type: ignore[assignment]
    game: GameSettings = detail("The game")
    largest_certifiable_epsilon: float | None = detail("Largest epsilon the rounds could certify")


def _needs(params: MembershipExcessParams, release: Release) -> list[Need]:
    return dcr_needs(params, release) if params.test == "distance" else [membership_game_need(params, release)]


def _check(
    params: MembershipExcessParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    return check_game_params(params, release, attacker) if params.test == "game" else []


@metric(
    name="dp_epsilon_excess_membership",
    method=METHOD,
    family="dp",
    params=MembershipExcessParams,
    details=ExcessDetails,
    knowledge={Knowledge.SYNTHETIC, Knowledge.TARGETS, Knowledge.DECLARED_MECHANISM},
    inputs={"original", "holdout", "synthetic"},
    optional_inputs={"synthesizer", "population"},
    value_range=(0.0, None),
    column_params=("columns",),
    needs=_needs,
    check=_check,
    meaning="How far the epsilon proven by a membership test (telling training records from holdout records by "
    "their distance to the synthetic data, or with test: game, telling the rounds of the membership game in which "
    "its most exposed target was in the training data) exceeds the epsilon the release claims. 0 means this test "
    "does not refute the claim (no test can verify a DP claim); above 0, the claim is refuted at the stated "
    "confidence.",
    pass_means=NOT_REFUTED,
    value_is_bound=EXCESS_IS_BOUND,
    remedy="Do not publish the differential-privacy claim as stated: re-check the synthesizer's implementation and "
    "budget, or regenerate the data with a mechanism that actually meets the claimed epsilon.",
    references=(REFERENCE, *AUDIT_REFERENCES),
)
def dp_epsilon_excess_membership(
    ctx: EvaluationContext, params: MembershipExcessParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Measured lower bound on epsilon from the distance membership test (or the membership game), minus the claim."""
    from policycheck.methods.dp import lower_bound

    if params.test == "game":
        return _game_excess(ctx, params, needs[membership_game_need(params, ctx.release)])
    dcrs = dcrs_in_set_order(needs)
    # NOTE: each set's claim is its own hypothesis, tested at the rule's confidence (no Bonferroni over sets).
    rows = []
    for i, (ds, dcr) in enumerate(zip(ctx.release.synthetic, dcrs, strict=False)):
        claim = claimed(ds, params, f"synthetic set {ds.name!r}")
        try:
            b = lower_bound.membership_bound(
                dcr.training_to_syn,
                dcr.holdout_to_syn,
                ctx.rng("dp_epsilon_excess_membership", i),
                params.confidence,
                claim[1],
            )
        except ValueError as exc:
            raise EvaluationError(f"synthetic set {ds.name!r}: {exc}") from None
        rows.append(claim_row(ds.name, claim, b, claim_id(i)))
    details = DistanceExcessDetails(
        claims=rows,
        confidence=params.confidence,
        method="Distance-threshold membership test chosen on a seeded half of the training and holdout "
        "records and bounded on the other half: epsilon >= ln((TPR_lower - delta) / FPR_upper), Clopper-Pearson.",
        assumption="Training and holdout records were split at random from one population.",
    )
    return excess_result(details, "membership test")


def game_bound(game: MembershipGame, confidence: float, delta: float) -> tuple[EpsilonBound, int, float]:
    """The membership game's lower bound on epsilon: (bound, target, largest epsilon the test rounds could certify).

    Each target's chosen attack (chosen on the training rounds) gives a
    threshold test. One target is bounded on the test rounds, with its
    threshold and direction chosen on the training rounds
    (:func:`lower_bound.selected_bound`), so nothing the bound uses was
    chosen on the rounds it counts. The target is the one whose test holds
    best out of sample on the training rounds alone (:func:`held_out_score`):
    chosen by its bound on the very rounds that set its threshold, the
    target that got lucky there won, and lost on the test rounds (a
    bootstrap of the Fair data bound at 2.30 on its training rounds and
    0.66 on its test rounds, where 15 of 20 other targets bounded above 1).
    """
    import numpy as np

    from policycheck.methods.dp import lower_bound

    train, test = game.train, game.test
    best, best_key = 0, None
    for t in range(game.coins.shape[1]):
        distance = -game.scores[game.chosen[t]][:, t]  # "lower means in", as the bound reads it
        inside = game.coins[:, t] == 1
        sel_in, sel_out = in_and_out(distance, inside, train)
        if sel_in.size == 0 or sel_out.size == 0:
            continue
        in_sample = lower_bound.selected_bound(sel_in, sel_out, sel_in, sel_out, confidence, delta)
        held_out = held_out_score(distance, inside, train, confidence, delta)
        # Ties (common: no false positive on either half) go to the larger in-sample bound, then the earlier target.
        key = (round(held_out, 12), in_sample.epsilon_lower, min(in_sample.epsilon_estimate, 1e300), -t)
        if best_key is None or key > best_key:
            best, best_key = t, key
    distance = -game.scores[game.chosen[best]][:, best]
    inside = game.coins[:, best] == 1
    bound = lower_bound.selected_bound(
        *in_and_out(distance, inside, train), *in_and_out(distance, inside, test), confidence, delta
    )
    n_in, n_out = int(np.sum(inside[test])), int(np.sum(~inside[test]))
    most = max(
        lower_bound.certifiable_epsilon(n_in, n_out, confidence, delta),
        lower_bound.certifiable_epsilon(n_out, n_in, confidence, delta),
    )
    return bound, best, most


def held_out_score(
    distance: np.ndarray, inside: np.ndarray, train: np.ndarray, confidence: float, delta: float
) -> float:
    """How well one target's threshold test holds out of sample on the training rounds alone.

    The training rounds split in two halves by position (no new draw); the
    threshold and direction chosen on one half are bounded on the other,
    both ways, and the smaller of the two lower bounds is the score (0 where
    a half holds no round in or none out). It uses no test round, so the
    bound of the target it picks keeps its confidence.
    """
    from policycheck.methods.dp import lower_bound

    bounds = []
    for chosen_on, counted_on in ((train[0::2], train[1::2]), (train[1::2], train[0::2])):
        pick_in, pick_out = in_and_out(distance, inside, chosen_on)
        if pick_in.size == 0 or pick_out.size == 0:
            return 0.0
        count_in, count_out = in_and_out(distance, inside, counted_on)
        bounds.append(
            lower_bound.selected_bound(pick_in, pick_out, count_in, count_out, confidence, delta).epsilon_lower
        )
    return float(min(bounds))


def in_and_out(distance: np.ndarray, inside: np.ndarray, rounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A target's distances in ``rounds``: those of the rounds it was in, then of those it was out."""
    return distance[rounds][inside[rounds]], distance[rounds][~inside[rounds]]


def _game_excess(ctx: EvaluationContext, params: MembershipExcessParams, game: MembershipGame) -> MetricResult:
    """dp_epsilon_excess_membership with ``test: game``: the claim of the set whose synthesizer the game re-ran."""
    found = release_synthesizer(ctx.release) if params.synthesizer == "release" else None
    source = ctx.release.synthetic[found[0]] if found is not None else None
    name = source.name if source is not None else f"synthesizer {params.synthesizer!r}"
    claim = claimed(
        source if source is not None else (ctx.release.synthetic[0] if ctx.release.synthetic else None), params, name
    )
    try:
        b, target, most = game_bound(game, params.confidence, claim[1])
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None
    who = game.targets[target]
    label = who["id"] if who["id"] is not None else who["record"]
    row = GameClaimRow.model_validate(
        {
            **dict(claim_row(name, claim, b, claim_id(found[0]) if found is not None else None)),
            "target": label,
            "attack": game.chosen[target],
            "largest_certifiable_epsilon": json_number(most),
        }
    )
    details = GameExcessDetails(
        claims=[row],
        confidence=params.confidence,
        method="Membership game: the target whose test bounds epsilon highest from one half of the training rounds "
        "to the other (the smaller of both ways), its attack, threshold and direction chosen on the training rounds, "
        "bounded on the test rounds: epsilon >= ln((TPR_lower - delta) / FPR_upper), Clopper-Pearson.",
        game=GameSettings.of(game),
        largest_certifiable_epsilon=json_number(most),
    )
    reach = (
        f"This run could have certified at most epsilon = {most:.2f} (a perfect attack on its "
        f"{game.test.size} test rounds of target {label}); a claim above that cannot be refuted at this budget "
        "of rounds: more repetitions raise it (it grows with the logarithm of the rounds)."
    )
    return excess_result(details, "membership game", (reach,))
