"""Reconstruction accuracy against the synthetic data's size (paper 001, sec. 6.3).

The paper's trend: the larger the synthetic release, the more an attacker
reconstructs. On the demo data (3,000 real Adult records, secret income, the
demo policy's quasi-identifiers, holdout records as the control), every size
is synthesized afresh from the same seed, and each attack's accuracy on the
original records and its individual part (acc - acc_control) / (1 - acc_control)
are printed.

Run: ``.venv/bin/python bench/bench_reconstruction_sizes.py [--sizes 300 1000 3000 10000 30000]``
"""

from __future__ import annotations

import argparse
import time
import zlib

import numpy as np
import pandas as pd

from policycheck.interfaces.demo import HOLDOUT, TRAINING
from policycheck.methods.reconstruction.attacks import AttackConfig, run_attack
from policycheck.methods.synthesizers import BUILTIN

QUASI_IDENTIFIERS = ["age", "sex", "race", "marital_status", "education", "native_country", "workclass"]
SECRET = "income"


def accuracy(targets: pd.DataFrame, synthetic: pd.DataFrame, attack: str, classes: list, seed: int) -> float:
    outcome = run_attack(
        attack,
        targets,
        synthetic,
        QUASI_IDENTIFIERS,
        ["age"],
        SECRET,
        classes,
        AttackConfig(),
        np.random.default_rng(seed),
    )
    truth = pd.Index(classes).get_indexer(targets[SECRET])
    return float(np.mean(outcome.guess == truth))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[300, 1000, 3000, 10000, 30000])
    parser.add_argument("--attacks", nargs="+", default=["lp", "exact", "ml"])
    parser.add_argument("--seed", type=int, default=20261121)
    args = parser.parse_args()
    original = pd.read_csv(TRAINING, keep_default_na=False, na_values=[""])
    holdout = pd.read_csv(HOLDOUT, keep_default_na=False, na_values=[""])
    classes = sorted(original[SECRET].dropna().unique())
    print(f"original {len(original)}, holdout {len(holdout)}, secret {SECRET}, quasi-identifiers {QUASI_IDENTIFIERS}")
    print(f"{'synth':<11}{'size':>7}  " + "  ".join(f"{a + ' acc / indiv':>20}" for a in args.attacks) + "  seconds")
    for name in ("nonprivate", "indhist"):
        for size in args.sizes:
            rng = np.random.default_rng([args.seed, zlib.crc32(name.encode()), size])
            synthetic = BUILTIN[name](original, size, rng)
            start = time.perf_counter()
            cells = []
            for attack in args.attacks:
                acc = accuracy(original, synthetic, attack, classes, args.seed)
                control = accuracy(holdout, synthetic, attack, classes, args.seed)
                cells.append(f"{acc:.3f} / {(acc - control) / (1 - control):+.3f}")
            print(
                f"{name:<11}{size:>7}  "
                + "  ".join(f"{c:>20}" for c in cells)
                + f"  {time.perf_counter() - start:7.1f}"
            )


if __name__ == "__main__":
    main()
