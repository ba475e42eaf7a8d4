"""Benchmark of the DCR share's relabelling draw (policycheck.methods.dcr_relabelling; a script, not a test).

Three releases of 300,000 training, 300,000 holdout and 300,000 synthetic rows (fixed seed):

- ``coarse``: 5 categorical columns of 2-6 levels and 1 numeric column of 5 values (RAND HIE-like:
  3,600 possible records, and many identical people);
- ``numeric-coarse``: 4 numeric columns of 8 values each (4,096 possible records), where distinct
  rows are equally near several others;
- ``mid``: 4 categorical columns of 8 levels and a numeric column of 40 values (163,840 possible
  records, about 20,000 distinct at this size: 20,000 x 20,000 pairs, at the bound);
- ``fine``: 6 continuous columns, every row distinct: the bound is passed at once and nothing is built.

For each: wall time and peak memory of building the nearest sets and of 1,000 relabellings, with the
distinct rows and the pairs of distances computed. One process: the draw runs in the check's parent.

Run from the repository root: ``.venv/bin/python -m bench.bench_dcr_relabelling [--rows 300000]``
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from policycheck.methods.dcr_relabelling import MAX_TERMS, nearest_sets, relabelled_shares
from policycheck.methods.gower import CATEGORY, SCALED


def release(shape: str, rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Encoded pool (training then holdout) and synthetic rows, and the column kinds."""

    def draw(n: int) -> np.ndarray:
        if shape == "coarse":
            levels = [2, 3, 4, 5, 6]
            cats = [rng.integers(0, k, n) for k in levels]
            return np.column_stack([*cats, rng.integers(0, 5, n) / 4]).astype(float)
        if shape == "numeric-coarse":
            return rng.integers(0, 8, size=(n, 4)) / 7
        if shape == "mid":
            return np.column_stack([rng.integers(0, 8, size=(n, 4)), rng.integers(0, 40, n) / 39])
        return rng.random(size=(n, 6))

    kinds = {
        "coarse": np.array([CATEGORY] * 5 + [SCALED]),
        "numeric-coarse": np.array([SCALED] * 4),
        "mid": np.array([CATEGORY] * 4 + [SCALED]),
        "fine": np.array([SCALED] * 6),
    }[shape]
    return draw(2 * rows), draw(rows), kinds


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    args = parser.parse_args()
    for shape in ("coarse", "numeric-coarse", "mid", "fine"):
        pool, synthetic, _ = release(shape, args.rows, np.random.default_rng(0))
        started = time.perf_counter()
        sets = nearest_sets(synthetic, pool[: args.rows], pool[args.rows :])
        built = time.perf_counter() - started
        if sets is None:
            print(f"{shape}: past {MAX_TERMS:,} Gower terms, nothing built in {built:.3f} s")
            continue
        started = time.perf_counter()
        shares = relabelled_shares(sets, args.rows, np.random.default_rng(1))
        drawn = time.perf_counter() - started
        print(
            f"{shape}: {len(sets.weights):,} distinct synthetic x {len(sets.members):,} distinct real rows, "
            f"nearest sets of {len(sets.profiles) / len(sets.weights):.1f} profiles on average; "
            f"built in {built:.2f} s, 1,000 relabellings in {drawn:.2f} s (sd {shares.std():.4f}); "
            f"peak {peak_mb():.0f} MB"
        )


if __name__ == "__main__":
    main()
