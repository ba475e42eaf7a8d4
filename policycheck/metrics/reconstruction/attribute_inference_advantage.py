"""``attribute_inference_advantage``: the attack's advantage in the attribute inference privacy game (paper 001).

Sec. 4.1: a target with unique quasi-identifiers has its secret bit replaced
by a coin flip before the synthesizer runs; the attack guesses the bit from
the synthetic data. The advantage ``2 acc - 1`` is 0 when the release tells
nothing about the target beyond chance and 1 when the bit is always recovered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from policycheck.metrics.base import EvaluationContext, MetricResult, Need
from policycheck.metrics.details import Details, detail
from policycheck.metrics.reconstruction.attribute_inference_game import GameParams, check_game_params, game_need
from policycheck.metrics.reconstruction.columns import plain
from policycheck.metrics.reconstruction.evidence import REFERENCE, Solver, reconstruction_metric
from policycheck.metrics.registry import Method
from policycheck.release.model import Release

if TYPE_CHECKING:
    import numpy as np

    from policycheck.methods.reconstruction.game import AttributeInferenceGame

METHOD = Method(
    definition="2 acc - 1 of the attack in the attribute-inference privacy game: a target with unique "
    "quasi-identifiers, its secret randomised, the synthesizer re-run; Clopper-Pearson interval, mapped.",
    source="paper 001, sec. 4.1",
)


class GamePlayed(Details):
    """How the game was played (policycheck.methods.reconstruction.game.play_game), and the run's seed."""

    attack: str = detail("Attack")
    synthesizer: str = detail("Synthesizer re-run")
    repetitions: int = detail("Repetitions")
    targets_per_repetition: int = detail("Targets per repetition")
    synthetic_size: int = detail("Synthetic rows per run", unit="rows")
    sample_size: int = detail("Original records per run", unit="records")
    secret: str = detail("Secret")
    positive: Any = detail("Value counted as bit 1")
    quasi_identifiers: list[str] = detail("Quasi-identifiers")
    seed: int = detail("Run seed")


class AdvantageDetails(Details):
    accuracy: float = detail("Bits guessed right", format="share")
    accuracy_interval: tuple[float, float] = detail("Accuracy interval", help="Clopper-Pearson")
    auc: float | None = detail("Area under the ROC curve")
    auc_interval: tuple[float | None, float | None] = detail("AUC interval", help="bootstrap over the targets")
    targets: int = detail("Targets played", unit="targets")
    correct: int = detail("Targets guessed right", unit="targets")
    game: GamePlayed = detail("Game")
    solver: Solver | None = detail("LP solver", help="none unless the attack is lp")


def advantage_needs(params: GameParams, release: Release) -> list[Need]:
    return [game_need(params)]


@reconstruction_metric(
    name="attribute_inference_advantage",
    method=METHOD,
    params=GameParams,
    details=AdvantageDetails,
    check=check_game_params,
    inputs={"original", "synthetic", "synthesizer"},
    value_range=(-1.0, 1.0),
    needs=advantage_needs,
    meaning="In a repeated test where one person's secret is replaced by a coin flip before the synthesizer runs, "
    "how much better than chance the attack recovers that coin flip: 0 means no individual leakage, 1 means "
    "the secret is always recovered.",
    remedy="Use a synthesizer with individual-level protection (e.g. differential privacy with a small epsilon) "
    "or release fewer synthetic records.",
    references=(REFERENCE,),
)
def attribute_inference_advantage(
    ctx: EvaluationContext, params: GameParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Advantage 2*acc - 1 of the attack in the attribute inference privacy game (sec. 4.1)."""
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.reconstruction.lp_attack import solver_description

    game: AttributeInferenceGame = needs[game_need(params)]
    n = int(game.truth.size)
    correct = int((game.truth == game.guess).sum())
    lo, hi = stats.clopper_pearson(correct, n, params.confidence)
    pos, neg = game.score[game.truth == 1], game.score[game.truth == 0]
    auc = stats.roc_auc(pos, neg)
    truth, score = game.truth, game.score

    def auc_of(idx: np.ndarray) -> float:
        t, s = truth[idx], score[idx]
        return stats.roc_auc(s[t == 1], s[t == 0])

    auc_interval = stats.bootstrap_interval(
        auc_of, n, ctx.rng("attribute_inference_game", "auc"), confidence=params.confidence
    )
    fpr, tpr = stats.roc_curve(pos, neg)
    details = AdvantageDetails(
        accuracy=correct / n,
        accuracy_interval=(lo, hi),
        auc=None if np.isnan(auc) else auc,
        auc_interval=(
            None if np.isnan(auc_interval[0]) else auc_interval[0],
            None if np.isnan(auc_interval[1]) else auc_interval[1],
        ),
        targets=n,
        correct=correct,
        game=GamePlayed(**{k: plain(v) for k, v in game.params.items()}),
        solver=Solver(**solver_description(params.time_limit)) if params.attack == "lp" else None,
    )
    chart = {
        "kind": "line",
        "title": f"ROC of the {params.attack} attack in the attribute inference game",
        "x_label": "false positive rate",
        "y_label": "true positive rate",
        "series": [
            {"name": params.attack, "x": [float(v) for v in fpr], "y": [float(v) for v in tpr]},
            {"name": "chance", "x": [0.0, 1.0], "y": [0.0, 1.0]},
        ],
    }
    return MetricResult(
        value=2 * correct / n - 1,
        interval=(2 * lo - 1, 2 * hi - 1),
        confidence=params.confidence,
        details=details,
        charts=(chart,),
    )
