"""Rounds of the membership game: coins, training sets, and the bootstrap's known exposure."""

import numpy as np
import pandas as pd
import pytest

from policycheck.execution.executor import SerialExecutor
from policycheck.execution.local import LocalProcessExecutor
from policycheck.methods.gower import fit_gower
from policycheck.methods.membership_game.features import FeatureSpace
from policycheck.methods.membership_game.game import play_membership_game
from policycheck.methods.membership_game.rates import target_rates
from policycheck.methods.membership_game.rounds import GameSetup, play_round, training_set
from policycheck.methods.membership_game.synthesizer_spec import SynthesizerSpec
from policycheck.release.model import ColumnType


def setup_of(population: pd.DataFrame, targets: int, sample: int, rows: int, name: str = "nonprivate") -> GameSetup:
    types = dict.fromkeys(population.columns, ColumnType.NUMERIC)
    enc = fit_gower([population], types, {}, list(population.columns))
    encoded = enc.encode(population)
    space = FeatureSpace(enc, encoded[:targets], np.zeros(targets, dtype=np.int64))
    return GameSetup(
        population.iloc[targets:].reset_index(drop=True),
        population.iloc[:targets].reset_index(drop=True),
        space,
        SynthesizerSpec("builtin", name),
        sample,
        rows,
    )


POPULATION = pd.DataFrame({"x": np.arange(300, dtype=float), "y": np.arange(300, dtype=float) ** 0.5})


def test_a_training_set_holds_exactly_the_targets_whose_coin_is_one():
    setup = setup_of(POPULATION, targets=4, sample=50, rows=50)
    coins = np.array([1, 0, 1, 0])
    data = training_set(setup, coins, np.random.default_rng(1))
    assert len(data) == 50 and data["x"].is_unique
    assert set(data["x"]) & {0.0, 1.0, 2.0, 3.0} == {0.0, 2.0}


def test_a_round_is_a_function_of_its_seed():
    setup = setup_of(POPULATION, targets=4, sample=50, rows=50)
    a, b = play_round((setup, np.random.SeedSequence(5))), play_round((setup, np.random.SeedSequence(5)))
    assert a.coins.tolist() == b.coins.tolist() and np.array_equal(a.features, b.features)


def test_a_bootstrap_exposes_a_member_as_theory_says():
    # n = m = 50 distinct records: a member is copied with probability q = 1 - (49/50)^50 = 0.6358, and then
    # sits at distance 0; otherwise it is as far as a non-member. The closest-distance AUC is q + (1 - q) / 2.
    q = 1 - (49 / 50) ** 50
    setup = setup_of(POPULATION, targets=20, sample=50, rows=50)
    seeds = np.random.SeedSequence(7).spawn(400)
    game, _ = play_membership_game(
        setup, seeds, np.random.default_rng(1), np.random.SeedSequence(2).spawn(20), SerialExecutor()
    )
    aucs, tprs, fprs = [], [], []
    for t in range(20):
        rates = target_rates(
            "closest_distance",
            game.scores["closest_distance"][:, t],
            game.coins[:, t],
            game.train,
            game.test,
            0.95,
            np.random.default_rng(t),
            resamples=20,
        )
        aucs.append(rates.auc)
        tprs.append(rates.tpr)
        fprs.append(rates.fpr)
    # 20 targets x about 200 test rounds: the mean AUC's standard error is about 0.007
    assert np.mean(aucs) == pytest.approx(q + (1 - q) / 2, abs=0.025)
    assert np.mean(tprs) == pytest.approx(q, abs=0.04) and max(fprs) == 0.0


def test_local_processes_give_the_numbers_of_the_serial_loop():
    setup = setup_of(POPULATION, targets=3, sample=40, rows=40, name="indhist")
    seeds = np.random.SeedSequence(3).spawn(12)
    runs = []
    for executor in (SerialExecutor(), LocalProcessExecutor(2)):
        with executor:
            game, _ = play_membership_game(
                setup, seeds, np.random.default_rng(0), np.random.SeedSequence(1).spawn(3), executor
            )
        runs.append(game)
    assert np.array_equal(runs[0].coins, runs[1].coins)
    for attack, scores in runs[0].scores.items():
        assert np.array_equal(scores, runs[1].scores[attack]), attack
