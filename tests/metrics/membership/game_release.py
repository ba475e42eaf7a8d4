"""The membership game as a user runs it: a policy of the game, its epsilon audit and the budget, on real records.

Real Adult records (the demo's), small enough to play 200 rounds in seconds. The noise-free indhist leaks a
value only one person holds whenever that person is in the data, so its claim of epsilon 1 must be refuted;
indhist_dp at epsilon 1 must not be; a bootstrap must fail the game.
"""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import policycheck as pc
from policycheck.interfaces.demo import HOLDOUT, TRAINING
from policycheck.methods.synthesizers import nonprivate

COLUMNS = ["age", "workclass", "education", "sex", "hours_per_week", "income"]
GAME = "{synthesizer: release, repetitions: 200, targets: {vulnerable: 4, rare: 4, random: 2}}"
POLICY = f"""\
metadata: {{id: game-test, title: game, version: "1", owner: tests}}
attacker: {{model: maximum-knowledge}}
seed: 11
rules:
  - id: game
    metric: membership_inference_advantage
    params: {GAME}
    threshold: {{fail_above: 0.2, warn_above: 0.1, compare: lower}}
  - id: claim
    metric: dp_epsilon_excess_membership
    params: {{test: game, synthesizer: release, repetitions: 200, targets: {{vulnerable: 4, rare: 4, random: 2}}}}
    threshold: {{fail_above: 0}}
  - id: budget
    metric: dp_total_epsilon
    params: {{delta: 1.0e-5}}
    threshold: {{fail_above: 3}}
"""


@cache
def game_data() -> tuple[pd.DataFrame, pd.DataFrame]:
    """300 training and 300 holdout records of the demo's Adult data."""

    def read(path: Path) -> pd.DataFrame:
        return pd.read_csv(path, keep_default_na=False, na_values=[""])[COLUMNS].head(300)

    return read(TRAINING), read(HOLDOUT)


def write_policy(folder: Path) -> Path:
    path = folder / "game.policy.yaml"
    path.write_text(POLICY)
    return path


#: Where :func:`checked` writes its policy (removed when the tests end).
_FOLDER = tempfile.TemporaryDirectory(prefix="policycheck-game-tests-")


@cache
def checked(builtin: str) -> dict[str, dict[str, Any]]:
    """:func:`check` of the game policy with a built-in synthesizer, run once for every test that reads it."""
    return check(write_policy(Path(_FOLDER.name)), builtin)


def check(
    policy: Path, builtin: str | None = None, entry: Any = None, seed: int = 11, executor: str = "serial"
) -> dict[str, dict[str, Any]]:
    """report.json's rules, by id, of the game policy on a release whose synthesizer is ``builtin`` or ``entry``."""
    training, holdout = game_data()
    declared: dict[str, Any] = {"name": builtin or "entry", "epsilon": 1.0}
    if builtin:
        declared["builtin"] = builtin
    if entry is not None:
        declared["entry"] = entry
    release = pc.Release(
        original=training,
        synthetic=nonprivate(training, 300, np.random.default_rng(0)),
        holdout=holdout,
        synthesizer=declared,
    )
    report = pc.check(policy, release, seed=seed, executor=executor, workers=2, progress=False)
    return {r["id"]: r for r in report.rules}
