"""The membership game's cost on built-in synthesizers: where the time goes, and what two workers buy.

``run(synthesizer, rows, rounds, workers)`` plays the game of ``membership_inference_advantage``
(20 targets) on the demo's Adult records: a population of ``rows`` training and ``rows``
holdout records, training sets and synthetic sets of ``rows`` records, ``rounds`` rounds. It
returns the wall time and the seconds inside the rounds spent running the synthesizer, so
``bench/run.py``'s ``membership-game`` case can print the game's own share of the run (every
second not spent in the synthesizer: training sets, features, target choice, the forests).

    .venv/bin/python -m bench.run --case membership-game
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd


def release(rows: int, synthesizer: str):
    from policycheck.interfaces.demo import HOLDOUT, TRAINING
    from policycheck.release.load import build_release
    from policycheck.release.memory import InMemoryTable
    from policycheck.release.model import SynthesizerInfo

    if rows > 3_000:  # beyond the demo's extracts: records drawn from the full Adult files
        from bench.bench_whole_check import bootstrapped_adult

        training, holdout, _, _ = bootstrapped_adult(rows)
    else:
        read = lambda path: pd.read_csv(path, keep_default_na=False, na_values=[""]).head(rows)  # noqa: E731
        training, holdout = read(TRAINING), read(HOLDOUT)
    declared = SynthesizerInfo(name=synthesizer, epsilon=1.0, params={"builtin": synthesizer})
    return build_release(
        release_id="bench",
        original=InMemoryTable("original", training),
        synthetic=[(InMemoryTable("synthetic", training), "synthetic", declared)],
        holdout=InMemoryTable("holdout", holdout),
        columns={},
    )


def run(synthesizer: str, rows: int, rounds: int, workers: int, executor: str = "local") -> dict:
    from policycheck.execution.factory import make_executor
    from policycheck.metrics import registry
    from policycheck.metrics.base import AttackerView, EvaluationContext
    from policycheck.metrics.membership.game_params import game_need
    from policycheck.metrics.membership.membership_inference_advantage import AdvantageParams

    rel = release(rows, synthesizer)
    need = game_need(AdvantageParams(synthesizer="release", repetitions=rounds), rel)
    with make_executor(executor, workers) as pool:
        ctx = EvaluationContext(rel, AttackerView("maximum-knowledge", (), ()), seed=20261121, executor=pool)
        started = time.perf_counter()
        game = registry.compute_intermediate(ctx, need)
        wall = time.perf_counter() - started
    s = game.seconds
    return {
        "wall": wall,
        "synthesizer_s": s["synthesizer"],
        "features_s": s["features"],
        "training_sets_s": s["training_sets"],
        "rounds_wall": s["rounds_wall"],
        "attacks_wall": s["attacks_wall"],
        "setup_wall": wall - s["rounds_wall"] - s["attacks_wall"],
        "own_share": 1 - s["synthesizer"] / wall if workers == 1 else None,
        "targets": int(game.coins.shape[1]),
        "checksum": float(np.round(sum(v.sum() for v in game.scores.values()), 6)),
    }


if __name__ == "__main__":
    import sys

    print(run(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
