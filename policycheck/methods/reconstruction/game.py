"""The attribute inference privacy game (paper 001, sec. 4.1).

Each repetition: (1) take the original dataset (or a sample of it), (2) pick
a target whose quasi-identifiers are unique in it, (3) replace the target's
secret bit with a fresh uniform bit, (4) run the synthesizer on the modified
data, (5) give the attacker the synthetic data and every record's
quasi-identifiers, (6) score the attacker's guess of the target's bit.
Because the target's bit is independent of everything else, no
population-level inference beats 50 %: accuracy above it is individual
leakage (sec. 7.2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from policycheck.execution.executor import Executor
from policycheck.methods.reconstruction.attacks import AttackConfig, run_attack
from policycheck.methods.reconstruction.external import run_external_synthesizer
from policycheck.methods.reconstruction.lp_attack import ReconstructionError
from policycheck.methods.synthesizers import BUILTIN


@dataclass(frozen=True)
class GameSetup:
    """Everything one repetition needs; picklable, shipped to workers.

    ``classes`` holds the secret's two values: bit 1 is ``classes[1]``.
    ``synthesizer`` is a built-in name (:data:`policycheck.methods.synthesizers.BUILTIN`)
    or ``"command"`` for the external ``command`` template.
    """

    original: pd.DataFrame
    quasi_identifiers: tuple[str, ...]
    numeric: tuple[str, ...]
    secret: str
    classes: tuple[Any, Any]
    attack: str
    config: AttackConfig
    synthesizer: str
    command: str | None = None
    workdir: str = "."
    synthetic_size: int | None = None
    sample_size: int | None = None
    targets_per_repetition: int = 1
    synthesizer_time_limit: float = 600.0


@dataclass(frozen=True)
class AttributeInferenceGame:
    """Outcome of the game, one entry per scored target.

    ``truth`` is the target's randomised secret bit (0/1), ``guess`` the
    attack's bit, ``score`` its confidence in [0, 1] that the bit is 1;
    ``params`` records how the game was played (attack, synthesizer, sizes,
    repetitions, seed).
    """

    truth: np.ndarray
    guess: np.ndarray
    score: np.ndarray
    params: dict[str, Any]


def synthesize(setup: GameSetup, data: pd.DataFrame, rows: int, rng: np.random.Generator) -> pd.DataFrame:
    """Step 4: fit the synthesizer on ``data`` and sample ``rows`` records."""
    if setup.synthesizer == "command":
        if not setup.command:
            raise ReconstructionError("the game needs a synthesizer command, and none was given")
        seed = int(rng.integers(2**31 - 1))
        return run_external_synthesizer(
            setup.command, data, rows, seed, setup.synthesizer_time_limit, Path(setup.workdir)
        )
    return BUILTIN[setup.synthesizer](data, rows, rng)


def play_repetition(item: tuple[GameSetup, np.random.SeedSequence]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One repetition of the game (steps 1 to 6) for ``targets_per_repetition`` targets.

    With several targets per repetition every target's bit is re-drawn
    before one synthesizer run and one attack: the LP reconstructs every
    record at once, so this buys more scored targets per solve (notes sec. 5).

    Returns
    -------
    truth, guess, score
        One entry per target.
    """
    setup, seed = item
    rng = np.random.default_rng(seed)
    data = setup.original
    if setup.sample_size is not None and setup.sample_size < len(data):
        data = data.iloc[np.sort(rng.choice(len(data), setup.sample_size, replace=False))]
    data = data.reset_index(drop=True).copy()
    # Step 2: targets with unique quasi-identifiers.
    unique = np.flatnonzero(~data.duplicated(list(setup.quasi_identifiers), keep=False).to_numpy())
    if unique.size == 0:
        raise ReconstructionError("no original record has unique quasi-identifiers, so the game has no target")
    targets = rng.choice(unique, size=min(setup.targets_per_repetition, unique.size), replace=False)
    # Step 3: a fresh uniform bit for each target.
    truth = rng.integers(0, 2, size=targets.size)
    column = data[setup.secret].to_numpy(dtype=object, copy=True)
    column[targets] = np.array(setup.classes, dtype=object)[truth]
    data[setup.secret] = pd.Series(column, index=data.index).astype(setup.original[setup.secret].dtype)
    # Step 4.
    synthetic = synthesize(setup, data, setup.synthetic_size or len(data), rng)
    # Steps 5-6: the LP reconstructs every record; the baselines need only the targets.
    attacked = data if setup.attack == "lp" else data.iloc[targets]
    outcome = run_attack(
        setup.attack,
        attacked,
        synthetic,
        setup.quasi_identifiers,
        setup.numeric,
        setup.secret,
        setup.classes,
        setup.config,
        rng,
    )
    rows = targets if setup.attack == "lp" else np.arange(targets.size)
    return truth, outcome.guess[rows], outcome.scores[rows, 1]


def play_game(
    setup: GameSetup,
    seeds: list[np.random.SeedSequence],
    executor: Executor,
    progress: Callable[[int, int], None] | None = None,
) -> AttributeInferenceGame:
    """Play ``len(seeds)`` repetitions through ``executor`` (in parallel).

    Parameters
    ----------
    setup
        The game's configuration.
    seeds
        One seed per repetition: results do not depend on scheduling.
    executor
        A :class:`policycheck.execution.executor.Executor`.
    progress
        ``(done, total)`` callback.
    """
    results = executor.map(play_repetition, [(setup, s) for s in seeds], progress)
    truth = np.concatenate([r[0] for r in results]).astype(np.int64)
    guess = np.concatenate([r[1] for r in results]).astype(np.int64)
    score = np.concatenate([r[2] for r in results]).astype(float)
    params = {
        "attack": setup.attack,
        "synthesizer": setup.synthesizer if setup.synthesizer != "command" else f"command: {setup.command}",
        "repetitions": len(seeds),
        "targets_per_repetition": setup.targets_per_repetition,
        "synthetic_size": setup.synthetic_size or (setup.sample_size or len(setup.original)),
        "sample_size": setup.sample_size or len(setup.original),
        "secret": setup.secret,
        "positive": setup.classes[1],
        "quasi_identifiers": list(setup.quasi_identifiers),
    }
    return AttributeInferenceGame(truth, guess, score, params)
