"""One round of the membership game, and every round through the executor.

A round (Stadler et al. 2022, sec. 4; the shared-round variant of the
membership-game guide): draw a fair coin for every target; draw the
training set, ``sample_size`` records of which the targets whose coin is 1
take the places of as many records drawn from the rest of the population;
run the synthesizer on it; read every target's features from its output.
All targets share the round's synthesizer run, yet each sees its own
independent, balanced coin, so ``R`` rounds cost ``R`` synthesizer runs for
any number of targets. A round is a function of its seed alone, so the
numbers do not depend on the executor or on scheduling.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from policycheck.core.plural import noun
from policycheck.methods.membership_game.builtin_rounds import EncodedRecords, synthesize_encoded, training_rows
from policycheck.methods.membership_game.features import (
    FeatureSpace,
    encode_synthetic,
    naive_summaries,
    target_features,
)
from policycheck.methods.membership_game.synthesizer_spec import SynthesizerSpec

if TYPE_CHECKING:
    from policycheck.execution.executor import Executor


class SynthesizerFailed(Exception):
    """The synthesizer of a round could not run or gave unusable output."""


@dataclass(frozen=True)
class GameSetup:
    """Everything a round needs; one object shared by every round (the executor ships it once)."""

    pool: pd.DataFrame  # the population without the targets
    targets: pd.DataFrame  # one row per target
    space: FeatureSpace
    synthesizer: SynthesizerSpec
    sample_size: int
    synthetic_size: int
    #: The pool and targets encoded, for a built-in synthesizer's rounds (:mod:`.builtin_rounds`).
    encoded: EncodedRecords | None = None


@dataclass(frozen=True)
class RoundOutcome:
    """One round: each target's coin and feature row, the naive summaries, and where the time went."""

    coins: np.ndarray  # (K,) 0/1
    features: np.ndarray  # (K, F)
    naive: np.ndarray  # (N,)
    seconds_synthesizer: float
    seconds_features: float
    seconds_training_set: float = field(default=0.0)


def synthesize(spec: SynthesizerSpec, data: pd.DataFrame, rows: int, rng: np.random.Generator) -> pd.DataFrame:
    """Fit the synthesizer on ``data`` and sample ``rows`` records."""
    from policycheck.methods import synthesizers

    if spec.kind == "builtin":
        if spec.name == "indhist_dp":
            if spec.epsilon is None:
                raise SynthesizerFailed("indhist_dp runs at a declared epsilon, and none was given")
            return synthesizers.indhist_dp(data, rows, rng, spec.epsilon, spec.domain)
        return synthesizers.BUILTIN[spec.name](data, rows, rng)
    seed = int(rng.integers(2**31 - 1))
    if spec.kind == "command":
        if not spec.command:
            raise SynthesizerFailed(f"the synthesizer {spec.name} has no command to run")
        from policycheck.methods.reconstruction.external import run_external_synthesizer
        from policycheck.methods.reconstruction.lp_attack import ReconstructionError

        try:
            return run_external_synthesizer(spec.command, data, rows, seed, spec.time_limit, Path(spec.workdir))
        except ReconstructionError as exc:
            raise SynthesizerFailed(str(exc)) from None
    entry = spec.entry
    try:
        if callable(entry) and not hasattr(entry, "fit"):
            out = entry(data.copy(), rows, seed)
        else:
            entry.fit(data.copy())
            out = entry.sample(num_rows=rows)
    except Exception as exc:  # noqa: BLE001 - the user's code: its failure is reported, not raised through
        raise SynthesizerFailed(f"the synthesizer {spec.name} failed: {type(exc).__name__}: {exc}") from None
    if not isinstance(out, pd.DataFrame):
        raise SynthesizerFailed(f"the synthesizer {spec.name} returned {type(out).__name__}, not a DataFrame")
    missing = [c for c in data.columns if c not in out.columns]
    if missing:
        raise SynthesizerFailed(
            f"the synthesizer {spec.name} returned data without the {noun(len(missing), 'column')} {', '.join(missing)}"
        )
    return out[list(data.columns)].reset_index(drop=True)


def training_draws(
    setup: GameSetup, coins: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The training set's draws: the pool rows drawn, the targets in (coin 1), and the order of the records."""
    inside = np.flatnonzero(coins)
    drawn = rng.choice(len(setup.pool), size=setup.sample_size - inside.size, replace=False)
    return drawn, inside, rng.permutation(drawn.size + inside.size)


def training_set(setup: GameSetup, coins: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
    """``sample_size`` records: the targets whose coin is 1, and others drawn from the pool, in a seeded order."""
    drawn, inside, order = training_draws(setup, coins, rng)
    data = pd.concat([setup.pool.iloc[drawn], setup.targets.iloc[inside]], ignore_index=True)
    return data.iloc[order].reset_index(drop=True)


def play_round(item: tuple[GameSetup, np.random.SeedSequence]) -> RoundOutcome:
    """One round of the game (top-level, so process pools can pickle it)."""
    setup, seed = item
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    coins = rng.integers(0, 2, size=len(setup.targets)).astype(np.int8)
    if setup.encoded is not None:  # a built-in synthesizer: the same draws on the encoded records
        training = training_rows(setup.encoded, *training_draws(setup, coins, rng))
        drawn = time.perf_counter()
        encoded = synthesize_encoded(setup.synthesizer, setup.encoded, training, setup.synthetic_size, rng)
        synthesized = time.perf_counter()
    else:
        data = training_set(setup, coins, rng)
        drawn = time.perf_counter()
        synthetic = synthesize(setup.synthesizer, data, setup.synthetic_size, rng)
        synthesized = time.perf_counter()
        encoded = encode_synthetic(setup.space, synthetic)
    features = target_features(setup.space, encoded)
    naive = naive_summaries(setup.space, encoded)
    done = time.perf_counter()
    return RoundOutcome(coins, features, naive, synthesized - drawn, done - synthesized, drawn - started)


@dataclass(frozen=True)
class Rounds:
    """Every round's outcome, stacked: coins ``(R, K)``, features ``(R, K, F)``, naive summaries ``(R, N)``."""

    coins: np.ndarray
    features: np.ndarray
    naive: np.ndarray
    seconds: dict[str, float]


def play_rounds(
    setup: GameSetup,
    seeds: list[np.random.SeedSequence],
    executor: Executor,
    progress: Callable[[int, int], None] | None = None,
    cost: float | None = None,
) -> Rounds:
    """Play one round per seed through ``executor``; results in seed order.

    A round needs only the compiled features (a fifth of a second to load) beyond this process's
    libraries, so this process plays the first rounds itself while the workers start.
    """
    items = [(setup, s) for s in seeds]
    outcomes = executor.map(play_round, items, progress, cost=cost, ready_here=True)
    return Rounds(
        coins=np.stack([o.coins for o in outcomes]),
        features=np.stack([o.features for o in outcomes]),
        naive=np.stack([o.naive for o in outcomes]),
        seconds={
            "synthesizer": float(sum(o.seconds_synthesizer for o in outcomes)),
            "features": float(sum(o.seconds_features for o in outcomes)),
            "training_sets": float(sum(o.seconds_training_set for o in outcomes)),
        },
    )
