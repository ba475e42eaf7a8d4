"""The whole membership game: rounds, then every target's attacks (see the package docstring)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from policycheck.methods.membership_game.attacks import ATTACKS, ClassifierConfig, attack_scores, split_rounds
from policycheck.methods.membership_game.rates import training_auc
from policycheck.methods.membership_game.rounds import GameSetup, play_rounds

if TYPE_CHECKING:
    from policycheck.execution.executor import Executor


@dataclass(frozen=True)
class MembershipGame:
    """Outcome of the game.

    ``coins[r, t]`` is target ``t``'s coin in round ``r``; ``scores[attack][r, t]``
    the attack's score (higher means in): out-of-bag on the ``train`` rounds for
    the classifier, held out on the ``test`` rounds. ``chosen[t]`` is the attack
    whose training-round AUC was largest, the one target ``t``'s figures report.
    """

    coins: np.ndarray
    scores: dict[str, np.ndarray]
    train: np.ndarray
    test: np.ndarray
    chosen: tuple[str, ...]
    training_auc: dict[str, np.ndarray]
    targets: list[dict[str, Any]]
    params: dict[str, Any]
    seconds: dict[str, float]


def choose_attacks(
    scores: dict[str, np.ndarray], coins: np.ndarray, train: np.ndarray
) -> tuple[tuple[str, ...], dict[str, np.ndarray]]:
    """Per target, the attack with the largest AUC on the training rounds (earlier in ATTACKS on ties)."""
    aucs = {
        a: np.array([training_auc(scores[a][:, t], coins[:, t], train) for t in range(coins.shape[1])]) for a in ATTACKS
    }
    chosen = tuple(
        max(ATTACKS, key=lambda a: (round(aucs[a][t], 12), -ATTACKS.index(a))) for t in range(coins.shape[1])
    )
    return chosen, aucs


def play_membership_game(
    setup: GameSetup,
    seeds: list[np.random.SeedSequence],
    split_rng: np.random.Generator,
    classifier_seeds: list[np.random.SeedSequence],
    executor: Executor,
    config: ClassifierConfig | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    round_executor: Executor | None = None,
) -> tuple[MembershipGame, dict[str, float]]:
    """Play every round, then score every target with every attack.

    ``round_executor`` runs the rounds when it differs from ``executor`` (an
    in-process synthesizer that cannot be pickled). Returns the game (without
    ``targets`` and ``params``, which the caller fills) and the seconds spent.
    """
    import time

    started = time.perf_counter()
    report = progress or (lambda label, done, total: None)
    rounds = play_rounds(setup, seeds, round_executor or executor, lambda d, t: report("membership game rounds", d, t))
    played = time.perf_counter()
    train, test = split_rounds(len(seeds), split_rng)
    items = [
        (
            rounds.features[:, t, :],
            rounds.naive,
            rounds.coins[:, t],
            train,
            config or ClassifierConfig(),
            classifier_seeds[t],
        )
        for t in range(rounds.coins.shape[1])
    ]
    per_target = executor.map(attack_scores, items, lambda d, t: report("membership game attacks", d, t))
    scores = {a: np.stack([s[a] for s in per_target], axis=1) for a in ATTACKS}
    chosen, aucs = choose_attacks(scores, rounds.coins, train)
    seconds = {**rounds.seconds, "rounds_wall": played - started, "attacks_wall": time.perf_counter() - played}
    game = MembershipGame(rounds.coins, scores, train, test, chosen, aucs, [], {}, seconds)
    return game, seconds
