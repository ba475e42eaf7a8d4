"""The shared intermediate: the attribute inference privacy game (paper 001, sec. 4.1).

Each repetition randomises a target's secret bit, re-runs the synthesizer and
plays the attack; the game records, per target, the bit (truth), the guess
and the score. :mod:`.attribute_inference_advantage` reads it, and so does the
DP family's measured epsilon, which builds its Need with :func:`game_need` so
equal settings share one game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, field_validator

from policycheck.core.errors import EvaluationError
from policycheck.methods.reconstruction.attacks import AttackConfig
from policycheck.methods.synthesizers import BUILTIN
from policycheck.metrics.base import EvaluationContext, Need
from policycheck.metrics.reconstruction.columns import numeric_columns, resolve_columns
from policycheck.metrics.reconstruction.params import (
    AttackName,
    AttackParams,
    attack_config,
    check_secret_declared,
    config_items,
)
from policycheck.metrics.registry import intermediate

if TYPE_CHECKING:
    from policycheck.methods.reconstruction.game import AttributeInferenceGame
    from policycheck.metrics.base import AttackerView
    from policycheck.release.model import Release

INTERMEDIATE = "attribute_inference_game"


class GameParams(AttackParams):
    attack: AttackName = Field("lp", description="The attack played in the game.")
    synthesizer: str = Field(
        "release",
        description="Synthesizer re-run in each repetition: 'release' (the command the release declares) or a "
        "built-in one: " + ", ".join(BUILTIN) + ".",
    )
    repetitions: int = Field(100, ge=1, le=100_000, description="Repetitions of the game (synthesizer runs).")
    targets_per_repetition: int = Field(
        1, ge=1, description="Targets whose bits are randomised per repetition (1 is the paper's game)."
    )
    synthetic_size: int | None = Field(
        None,
        ge=1,
        le=1_000_000,  # 10^7 rows took 5.7 GB per repetition: refused before any work
        description="Rows the synthesizer generates (at most 1,000,000); default: the size of the first released set.",
    )
    sample_size: int | None = Field(
        None, ge=2, description="Original records sampled per repetition (the paper samples 1,000); default: all."
    )
    positive: str | None = Field(
        None, description="Secret value counted as bit 1; default: the second of the two values in sorted order."
    )
    synthesizer_time_limit: float = Field(600.0, gt=0, description="Seconds an external synthesizer run may take.")

    @field_validator("synthesizer")
    @classmethod
    def _known_synthesizer(cls, value: str) -> str:
        if value != "release" and value not in BUILTIN:
            raise ValueError(f"unknown synthesizer {value!r}: expected 'release' or one of {', '.join(BUILTIN)}")
        return value


#: Why a game whose param ``synthesizer`` is ``release`` cannot run.
NO_COMMAND_TO_RERUN = (
    "param synthesizer is 'release' but no synthetic set declares a synthesizer command; "
    f"name a built-in synthesizer ({', '.join(BUILTIN)}) instead"
)


def check_game_params(
    params: GameParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: the family's check, and a synthesizer to re-run when the param says ``release``."""
    problems = check_secret_declared(params, release, attacker)
    if params.synthesizer == "release" and not any(s.synthesizer and s.synthesizer.command for s in release.synthetic):
        problems.append((("synthesizer",), NO_COMMAND_TO_RERUN))
    return problems


def game_need(params: GameParams) -> Need:
    """The Need of the ``attribute_inference_game`` intermediate for ``params``.

    Other families (e.g. the DP family's measured epsilon) build their Need
    here so equal settings share one game.
    """
    return Need.of(
        INTERMEDIATE,
        secret=params.secret,
        quasi_identifiers=tuple(params.quasi_identifiers) if params.quasi_identifiers else None,
        attack=params.attack,
        synthesizer=params.synthesizer,
        repetitions=params.repetitions,
        targets_per_repetition=params.targets_per_repetition,
        synthetic_size=params.synthetic_size,
        sample_size=params.sample_size,
        positive=params.positive,
        synthesizer_time_limit=params.synthesizer_time_limit,
        **config_items(attack_config(params)),
    )


@intermediate(
    name=INTERMEDIATE,
    description="The attribute inference privacy game (paper 001, sec. 4.1): per target, its randomised secret "
    "bit (truth), the attack's guess and score.",
    inputs={"original", "synthesizer"},
)
def attribute_inference_game(
    ctx: EvaluationContext,
    *,
    secret: str,
    quasi_identifiers: tuple[str, ...] | None = None,
    attack: str = "lp",
    synthesizer: str = "release",
    repetitions: int = 100,
    targets_per_repetition: int = 1,
    synthetic_size: int | None = None,
    sample_size: int | None = None,
    positive: str | None = None,
    synthesizer_time_limit: float = 600.0,
    query_orders: tuple[int, ...] = (3,),
    n_queries: int | None = None,
    numeric_bins: int = 5,
    scaling: str = "conditional",
    time_limit: float = 300.0,
    n_estimators: int = 100,
) -> AttributeInferenceGame:
    """Play the game ``repetitions`` times in parallel, with progress."""
    import pandas as pd

    from policycheck.methods.reconstruction.game import AttributeInferenceGame, GameSetup, play_game
    from policycheck.methods.reconstruction.lp_attack import ReconstructionError
    from policycheck.methods.reconstruction.queries import compile_counting

    release = ctx.release
    qis = resolve_columns(ctx, secret, quasi_identifiers)
    values = tuple(sorted(pd.unique(release.original.frame[secret].dropna()), key=str))
    if len(values) != 2:
        raise EvaluationError(
            f"the attribute inference game needs a binary secret, and column {secret!r} has {len(values)} values"
        )
    if positive is not None:
        if positive not in [str(v) for v in values]:
            raise EvaluationError(f"param positive {positive!r} is not a value of secret column {secret!r}")
        values = tuple(sorted(values, key=lambda v: str(v) == positive))
    command = None
    if synthesizer == "release":
        command = next(
            (s.synthesizer.command for s in release.synthetic if s.synthesizer and s.synthesizer.command), None
        )
        if command is None:
            raise EvaluationError(NO_COMMAND_TO_RERUN)
    rows = synthetic_size or (release.synthetic[0].n_rows if release.synthetic else len(release.original.frame))
    setup = GameSetup(
        original=release.original.frame,
        quasi_identifiers=qis,
        numeric=numeric_columns(release),
        secret=secret,
        classes=values,
        attack=attack,
        config=AttackConfig(tuple(query_orders), n_queries, numeric_bins, scaling, time_limit, "auto", n_estimators),
        synthesizer="command" if command else synthesizer,
        command=command,
        workdir=str(ctx.base_dir),
        synthetic_size=rows,
        sample_size=sample_size,
        targets_per_repetition=targets_per_repetition,
        synthesizer_time_limit=synthesizer_time_limit,
    )
    seeds = ctx.seed_for(INTERMEDIATE, secret, attack, synthesizer).spawn(repetitions)
    if attack == "lp" and ctx.executor.workers > 1:
        compile_counting()
    try:
        game = play_game(setup, seeds, ctx.executor, lambda d, t: ctx.progress("attribute inference game", d, t))
    except ReconstructionError as exc:
        raise EvaluationError(str(exc)) from None
    return AttributeInferenceGame(game.truth, game.guess, game.score, {**game.params, "seed": ctx.seed})
