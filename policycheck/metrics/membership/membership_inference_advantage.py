"""``membership_inference_advantage``: the worst target's advantage in the membership game (Stadler et al. 2022).

The game (:mod:`policycheck.metrics.membership.membership_game`) re-runs the
synthesizer; this rule reads, per target, the attack chosen on the training
rounds and measures it on the test rounds; the worst target is the one worst
on the training rounds, so its test-round advantage is unbiased.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field

from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.combinators import BonferroniNote
from policycheck.metrics.details import Details, detail
from policycheck.metrics.membership.game_params import MembershipGameParams, check_game_params, game_need
from policycheck.metrics.membership.membership_game import GameSettings
from policycheck.metrics.registry import Method, metric

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

    from policycheck.methods.membership_game.game import MembershipGame
    from policycheck.methods.membership_game.rates import TargetRates

REFERENCES = (
    "Stadler, Oprisanu, Troncoso. Synthetic Data - Anonymisation Groundhog Day. USENIX Security 2022.",
    "Houssiau, Jordon, Cohen, et al. TAPAS: a toolbox for adversarial privacy auditing of synthetic data. "
    "NeurIPS 2022 workshop.",
    "Meeus, Guepin, Cretu, de Montjoye. Achilles' heels: vulnerable record identification in synthetic data "
    "publishing. ESORICS 2023.",
    "Carlini, Chien, Nasr, Song, Terzis, Tramer. Membership inference attacks from first principles. IEEE S&P 2022.",
)

METHOD = Method(
    definition="Worst target's advantage TPR - FPR in the membership game: per round a training set drawn from the "
    "population with a fair coin per target, the synthesizer re-run, each target scored from the output by the "
    "closest-record distance, the synthetic density at it, or a random forest on its features and TAPAS's naive "
    "summaries (chosen, with the threshold, on half of the rounds); rates on the other half, Newcombe interval at "
    "the Bonferroni level over targets.",
    source="Stadler et al. 2022 (the game, shadow models); Houssiau et al. 2022 (TAPAS features); Meeus et al. 2023 "
    "(vulnerable targets); Carlini et al. 2022 (TPR at low FPR)",
)

#: Short attack names for the targets table (the details keep the full ones).
SHORT_ATTACK = {
    "closest_distance": "closest",
    "density": "density",
    "rarest_value": "rarest value",
    "classifier": "forest",
}

#: Targets the table shows, most exposed first (every target is in the details).
TABLE_ROWS = 10


class AdvantageParams(MembershipGameParams):
    confidence: float = Field(
        0.95, gt=0, lt=1, description="Confidence level of the intervals (Bonferroni over targets)."
    )


class GameTarget(Details):
    """One target's figures: the attack chosen on the training rounds, measured on the test rounds."""

    # NOTE: the report's keys for the TPR at each FPR level of rates.FPR_LEVELS hold a dot: aliases keep them.
    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True)

    target: str = detail("Target", help="Its id, or its record when the release has no id column.")
    record: str = detail("Record")
    reason: str = detail("Chosen as", help="vulnerable (most isolated), rare, random or id.")
    isolation: float = detail("Isolation", help="Mean Gower distance to the 5 nearest other population records.")
    attack: str = detail("Attack")
    auc: float | None = detail("AUC", format="share", help="None when its test rounds hold one coin value only.")
    auc_interval: list[float | None] = detail("AUC interval")
    tpr_at_fpr_0_01: float = Field(alias="tpr_at_fpr_0.01", title="TPR at FPR 0.01")
    tpr_at_fpr_0_05: float = Field(alias="tpr_at_fpr_0.05", title="TPR at FPR 0.05")
    tpr_at_fpr_0_1: float = Field(alias="tpr_at_fpr_0.1", title="TPR at FPR 0.1")
    advantage: float = detail("Advantage (TPR - FPR)")
    advantage_interval: tuple[float, float] = detail("Advantage interval", help="Newcombe, at the Bonferroni level.")
    training_advantage: float = detail("Advantage on the training rounds")
    training_auc: float = detail("AUC on the training rounds", format="share")
    tpr: float = detail("TPR", format="share")
    fpr: float = detail("FPR", format="share")
    rounds_in: int = detail("Test rounds with the target in", unit="rounds")
    rounds_out: int = detail("Test rounds with the target out", unit="rounds")
    test_auc_by_attack: dict[str, float | None] = detail("AUC of every attack on the test rounds")
    values: dict[str, Any] = detail("Its values")


class WorstTargetSelection(Details):
    worst_target: str = detail("Worst target")
    largest_test_advantage: float = detail("Largest advantage on the test rounds")


class AdvantageDetails(Details):
    game: GameSettings = detail("The game")
    worst_target: str = detail("Worst target")
    worst_auc: float | None = detail("Worst target's AUC", format="share")
    largest_auc: float | None = detail("Largest AUC of a target", format="share")
    selection: WorstTargetSelection = detail("How the worst target is chosen")
    targets: list[GameTarget] = detail("Every target")
    bonferroni: BonferroniNote = detail("Several targets")
    seconds: dict[str, float] = detail("Where the time went", unit="seconds")


@dataclass(frozen=True)
class TargetFigures:
    """One target's figures for the report (the chosen attack, measured on the test rounds)."""

    index: int
    rates: TargetRates
    test_auc: dict[str, float]


def target_figures(
    game: MembershipGame, confidence: float, rng_of: Callable[[int], np.random.Generator]
) -> list[TargetFigures]:
    """Every target's figures at the Bonferroni level over the targets."""
    from policycheck.core import stats
    from policycheck.methods.membership_game.attacks import ATTACKS
    from policycheck.methods.membership_game.rates import target_rates

    k = game.coins.shape[1]
    level = stats.bonferroni(confidence, k)
    out = []
    for t in range(k):
        labels = game.coins[:, t]
        rates = target_rates(
            game.chosen[t], game.scores[game.chosen[t]][:, t], labels, game.train, game.test, level, rng_of(t)
        )
        test_auc = {}
        for a in ATTACKS:
            s, y = game.scores[a][game.test, t], labels[game.test]
            test_auc[a] = stats.roc_auc(s[y == 1], s[y == 0])
        out.append(TargetFigures(t, rates, test_auc))
    return out


def _num(v: float | None) -> float | None:
    import math

    return float(v) if v is not None and math.isfinite(float(v)) else None


def target_row(game: MembershipGame, f: TargetFigures) -> GameTarget:
    """One target's figures as the report holds them."""
    r = f.rates
    target = game.targets[f.index]
    return GameTarget.model_validate(
        {
            "target": target["id"] if target["id"] is not None else target["record"],
            "record": target["record"],
            "reason": target["reason"],
            "isolation": round(target["isolation"], 6),
            "attack": r.attack,
            "auc": _num(r.auc),
            "auc_interval": [_num(v) for v in r.auc_interval],
            **{f"tpr_at_fpr_{level:g}": v for level, v in r.tpr_at_fpr.items()},
            "advantage": r.advantage,
            "advantage_interval": r.advantage_interval,
            "training_advantage": r.training_advantage,
            "training_auc": float(game.training_auc[r.attack][f.index]),
            "tpr": r.tpr,
            "fpr": r.fpr,
            "rounds_in": r.positives,
            "rounds_out": r.negatives,
            "test_auc_by_attack": {a: _num(v) for a, v in f.test_auc.items()},
            "values": target["values"],
        }
    )


def roc_chart(game: MembershipGame, figures: list[TargetFigures], most: int = 6) -> dict[str, Any]:
    """ROC curves of the most exposed targets on log-log axes (Carlini et al. 2022: low FPR is what matters)."""
    shown = sorted(figures, key=lambda f: -(f.rates.auc if f.rates.auc == f.rates.auc else 0))[:most]
    negatives = max((f.rates.negatives for f in figures), default=1)
    floor = 1.0 / (2 * max(negatives, 1))
    series = []
    for f in shown:
        fpr, tpr = f.rates.roc
        label = game.targets[f.index]["id"] or game.targets[f.index]["record"]
        series.append(
            {
                "name": f"{label} (AUC {f.rates.auc:.2f})",
                "x": [max(float(v), floor) for v in fpr],
                "y": [max(float(v), floor) for v in tpr],
            }
        )
    series.append({"name": "chance", "x": [floor, 1.0], "y": [floor, 1.0]})
    return {
        "kind": "line",
        "title": "Membership game: ROC of the most exposed targets (test rounds, log-log)",
        "x_label": "false positive rate (rounds without the target, guessed in)",
        "y_label": "true positive rate (rounds with the target, guessed in)",
        "x_scale": "log",
        "y_scale": "log",
        "x_domain": [floor, 1.0],
        "y_domain": [floor, 1.0],
        "series": series,
        "caption": f"Line chart on log-log axes: each target's ROC on the held-out rounds; a rate of 0 is drawn at "
        f"{floor:.2g} (half of one round). The chance line is the diagonal.",
    }


def targets_table(rows: list[GameTarget]) -> dict[str, Any]:
    """The most exposed targets' figures, narrow enough for half a printed page (intervals in the details)."""
    shown = sorted(rows, key=lambda r: -(r.auc if r.auc is not None else 0))[:TABLE_ROWS]
    return {
        "kind": "table",
        "title": f"Membership game: the {len(shown)} most exposed of {len(rows)} targets (held-out rounds)",
        "columns": ["target", "chosen as", "attack", "AUC", "TPR at FPR 0.1", "TPR - FPR"],
        "rows": [
            [
                r.target.replace(" record", ""),
                r.reason,
                SHORT_ATTACK.get(r.attack, r.attack),
                r.auc,
                r.tpr_at_fpr_0_1,
                r.advantage,
            ]
            for r in shown
        ],
        "caption": "Every target, with its intervals and every attack's AUC, is in the rule's details (report.json).",
    }


def _auc_words(auc: float | None) -> str:
    return "not measurable (its test rounds hold one coin value only)" if auc is None else f"{auc:.2f}"


def exposure_words(row: GameTarget, settings: GameSettings) -> str:
    """Plain words on the target the rule judges: which record, why it was chosen, and what the attacker learns.

    It is the target most exposed on the game's *training* rounds, measured on its test rounds (so its figure
    is unbiased); the table of targets, sorted by test-round AUC, may rank others above it. What the attacker
    learns is said only where the interval shows the attack beating a blind guess.
    """
    values = ", ".join(f"{k}={v}" for k, v in list(row.values.items())[:8])
    who = f"id {row.target} ({row.record})" if row.target != row.record else row.record
    low, high = row.advantage_interval
    if low > 0:
        learns = "The attacker learns that this person's data was used, which may itself be sensitive."
    elif high <= 0:
        learns = "On its test rounds the attack did no better than a blind guess for this record."
    else:
        learns = (
            f"Its interval ({low:.2f} to {high:.2f}) holds a blind guess: these rounds cannot tell whether the "
            "attacker learns that this person's data was used."
        )
    return (
        f"Judged target: {who}, chosen as {row.reason} ({values}), the most exposed on the game's training rounds "
        f"and measured on its test rounds (the table sorts the targets by their test-round AUC, a maximum that "
        f"overstates). Re-running the synthesizer {settings.repetitions} times, an attacker who holds this record "
        f"and sees only the synthetic output tells whether it was in the training data with AUC "
        f"{_auc_words(row.auc)}; at the threshold chosen on other rounds it is right {row.tpr:.0%} of the times the "
        f"record was in, and wrongly says in {row.fpr:.0%} of the times it was out (advantage "
        f"{row.advantage:.2f}). {learns}"
    )


@metric(
    name="membership_inference_advantage",
    method=METHOD,
    family="membership",
    params=AdvantageParams,
    details=AdvantageDetails,
    knowledge={Knowledge.SYNTHETIC, Knowledge.TARGETS, Knowledge.DECLARED_MECHANISM, Knowledge.ORIGINAL},
    inputs={"original", "synthetic", "synthesizer"},
    optional_inputs={"holdout", "population"},
    value_range=(-1.0, 1.0),
    column_params=("columns",),
    needs=lambda p, r: [game_need(p, r)],
    check=check_game_params,
    meaning="How well an attacker who holds one person's record can tell, from the synthetic output alone, whether "
    "that person was in the training data, for the most exposed person the game found: TPR - FPR of the strongest "
    "attack, measured over repeated runs of the synthesizer. 0 is a blind guess, 1 is always right.",
    remedy="Use a synthesizer with record-level protection (differential privacy with a small epsilon), or suppress "
    "or coarsen the outliers the table names; release fewer synthetic records.",
    references=REFERENCES,
)
def membership_inference_advantage(
    ctx: EvaluationContext, params: AdvantageParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Worst target's advantage TPR - FPR in the membership game (Stadler et al. 2022, sec. 4)."""
    from policycheck.core import stats

    game: MembershipGame = needs[game_need(params, ctx.release)]
    settings = GameSettings.of(game)
    figures = target_figures(game, params.confidence, lambda t: ctx.rng("membership_game", "auc", t))
    rows = [target_row(game, f) for f in figures]
    # NOTE: the worst target is the one worst on the training rounds: the largest of 20 noisy test-round
    # advantages would overstate a safe synthesizer's (membership-game guide), while this one's is unbiased.
    # Worst by training AUC: the training advantage is a maximum over thresholds, optimistic for the forest's
    # out-of-bag scores, and would pick targets the forest merely fits.
    worst = rows[max(range(len(rows)), key=lambda i: (round(rows[i].training_auc, 12), rows[i].training_advantage, -i))]
    details = AdvantageDetails(
        game=settings,
        worst_target=worst.target,
        worst_auc=worst.auc,
        largest_auc=max((r.auc for r in rows if r.auc is not None), default=None),
        selection=WorstTargetSelection(
            worst_target="the target whose chosen attack had the largest AUC on the training rounds; its "
            "advantage and interval are measured on the test rounds (interval at the Bonferroni level over targets)",
            largest_test_advantage=max(r.advantage for r in rows),
        ),
        targets=rows,
        bonferroni=BonferroniNote(
            alternatives=len(rows),
            level=stats.bonferroni(params.confidence, len(rows)),
            rule=f"each of the {len(rows)} targets' intervals at 1 - (1 - {params.confidence}) / {len(rows)} "
            "(Bonferroni); the rule's interval is the worst target's, chosen on the training rounds",
        ),
        seconds={k: round(v, 3) for k, v in game.seconds.items()},
    )
    return MetricResult(
        value=worst.advantage,
        interval=worst.advantage_interval,
        confidence=params.confidence,
        details=details,
        charts=(roc_chart(game, figures), targets_table(rows)),
        notes=(exposure_words(worst, settings), *settings.notes),
        baseline=0.0,
        baseline_label="a blind guess: TPR = FPR at every threshold",
        sample_size=int(game.test.size),
        sample_unit="test rounds",
    )
