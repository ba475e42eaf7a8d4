"""Attribute inference (Giomi et al. 2023, sec. 3.3).

The attacker knows a target's auxiliary columns and guesses its secret as
the secret of the closest synthetic record on those columns. As in
anonymeter 1.1: ``n_attacks`` targets drawn from the original records (the
control attack draws them from the holdout); the baseline attacker guesses
the secret of a random synthetic record; a categorical guess is right when
it equals the secret, two missing values included.

A numeric guess is right when it is within a relative ``tolerance`` of the
secret: ``|guess - secret| <= tolerance · |secret|``, the paper's "relative
difference below a tolerance". Here we differ from anonymeter 1.1, whose
test ``|guess - secret| / (guess + 1e-12) <= tolerance`` divides by the
guess: a negative guess then always counts as right (guess -10 for secret
50 gives -6 <= 0.05), and the tolerance scales with the guess, not the
secret. For positive guesses close to the secret the two tests agree to
first order.

Distances and ties are as in :mod:`.linkability`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from policycheck.execution.executor import Executor
from policycheck.methods.wp29.linkability import neighbours_in_random_tie_order
from policycheck.methods.wp29.rates import AttackCounts


@dataclass(frozen=True)
class Inference:
    counts: AttackCounts
    target_rows: np.ndarray
    correct_rows: np.ndarray


def correct_guesses(guesses: np.ndarray, secrets: np.ndarray, numeric: bool, tolerance: float) -> np.ndarray:
    """Whether each guess is right: within ``tolerance · |secret|`` (numeric) or equal (categorical).

    A missing guess is right for a missing secret only.
    """
    guess_missing = _missing(guesses)
    secret_missing = _missing(secrets)
    both_missing = guess_missing & secret_missing
    present = ~guess_missing & ~secret_missing
    right = np.zeros(len(secrets), dtype=bool)
    if numeric:
        g = guesses[present].astype(np.float64)
        s = secrets[present].astype(np.float64)
        right[present] = np.abs(g - s) <= tolerance * np.abs(s)
    else:
        right[present] = guesses[present] == secrets[present]
    found: np.ndarray = right | both_missing
    return found


def inference(
    original_aux: np.ndarray,
    original_secret: np.ndarray,
    control_aux: np.ndarray | None,
    control_secret: np.ndarray | None,
    synthetic_aux: np.ndarray,
    synthetic_secret: np.ndarray,
    kinds: np.ndarray,
    numeric: bool,
    tolerance: float,
    n_attacks: int,
    rng: np.random.Generator,
    executor: Executor,
) -> Inference:
    """Main, baseline and control inference attacks on encoded auxiliary columns."""
    n = min(n_attacks, len(original_secret), *(() if control_secret is None else (len(control_secret),)))

    def attack(aux: np.ndarray, secret: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = np.sort(rng.choice(len(secret), size=n, replace=False))
        nearest = neighbours_in_random_tie_order(
            np.ascontiguousarray(aux[rows]), synthetic_aux, kinds, 1, rng, executor
        )[:, 0]
        return rows, correct_guesses(synthetic_secret[nearest], secret[rows], numeric, tolerance)

    rows, right = attack(original_aux, original_secret)
    # Baseline: other random targets, each guessed from a random synthetic record.
    baseline_rows = rng.choice(len(original_secret), size=n, replace=False)
    guesses = synthetic_secret[rng.choice(len(synthetic_secret), size=n, replace=n > len(synthetic_secret))]
    n_baseline = int(np.sum(correct_guesses(guesses, original_secret[baseline_rows], numeric, tolerance)))
    n_control = None
    if control_aux is not None and control_secret is not None:
        _, control_right = attack(control_aux, control_secret)
        n_control = float(np.sum(control_right))
    counts = AttackCounts(n, int(np.sum(right)), n_baseline, n_control, n)
    return Inference(counts, rows, rows[right])


def _missing(values: np.ndarray) -> np.ndarray:
    return np.asarray(pd.isna(values), dtype=bool)
