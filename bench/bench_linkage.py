"""Benchmark of the linkage attack (paper 000) at n = 100,000, p = 5, M = 5.

Times the whole attack per criterion -- pre-sampling, reverse mapping,
multiple rank-based record linkage with every tie kept, and reading the
secret -- with the M sets spread over local processes (one set per item).
The original has p = 5 correlated normal attributes plus a secret; set m
is the original plus independent noise of growing scale, so the sets range
from close copies to loose imitations.

``--decimals 1`` rounds every value to one decimal (about 60 distinct values
per attribute): a tie-heavy variant, like categorical or whole-number data.

Run: .venv/bin/python bench/bench_linkage.py [--n 100000] [--p 5] [--sets 5] [--workers 2] [--decimals 3]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd

from policycheck.execution.local import LocalProcessExecutor
from policycheck.methods.linkage.attack import attack_one_set, run_attack
from policycheck.methods.linkage.rank_linkage import CRITERIA
from policycheck.methods.linkage.reverse_mapping import attribute_order
from policycheck.release.model import ColumnType, Dataset, Release


def make_release(n: int, p: int, sets: int, seed: int, decimals: int = 3) -> Release:
    rng = np.random.default_rng(seed)
    cov = 0.5 * np.eye(p + 1) + 0.5  # correlation 0.5 between every pair of columns
    columns = [f"x{j}" for j in range(p)] + ["secret"]
    original = pd.DataFrame(np.round(rng.multivariate_normal(np.zeros(p + 1), cov, size=n), decimals), columns=columns)
    synthetic = tuple(
        Dataset(
            "synthetic",
            f"synthetic[{m + 1}]",
            np.round(original + rng.normal(scale=0.1 * (m + 1), size=original.shape), decimals),
        )
        for m in range(sets)
    )
    types = dict.fromkeys(columns, ColumnType.NUMERIC)
    return Release("bench", Dataset("original", "original", original), synthetic, None, types)


def _codes(frame: pd.DataFrame, orders) -> np.ndarray:
    return np.column_stack([orders[c].codes(frame[c]) for c in frame.columns])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--p", type=int, default=5)
    parser.add_argument("--sets", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--decimals", type=int, default=3, help="round values to this many decimals (fewer: more ties)")
    args = parser.parse_args()
    release = make_release(args.n, args.p, args.sets, seed=0, decimals=args.decimals)
    attributes = [c for c in release.columns if c != "secret"]
    orders = {c: attribute_order(c, ColumnType.NUMERIC, release.original.frame[c]) for c in release.columns}
    rows = []
    with LocalProcessExecutor(args.workers) as executor:
        executor.map(abs, [0, 1])  # start the pool outside the timings
        for criterion in CRITERIA:
            rngs = [np.random.default_rng([1, m]) for m in range(args.sets)]
            start = time.perf_counter()
            attack = run_attack(release, "secret", attributes, criterion, orders, rngs, executor)
            seconds = time.perf_counter() - start
            d = attack.disclosure
            # NOTE: wall time depends on what else runs on the machine; the CPU time of
            # one set, run here in-process, does not (the pool needs ceil(M / workers) of it).
            cpu = time.process_time()
            attack_one_set(
                (
                    _codes(release.original.frame, orders),
                    _codes(release.synthetic[0].frame, orders),
                    criterion,
                    "reverse",
                )
            )
            cpu = time.process_time() - cpu
            rows.append(
                {
                    "criterion": criterion,
                    "seconds": round(seconds, 2),
                    "cpu_seconds_one_set": round(cpu, 2),
                    "mean_linked_records": [
                        round(float(s.linkage.n_candidates().mean()), 4) if criterion != "min" else None
                        for s in attack.sets
                    ],
                    "narrowed_at_0.05": round(float(d.narrowed(0.05).mean()), 4),
                    "exact_k1": round(float(d.exactly_disclosed(1).mean()), 4),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    print(json.dumps({"n": args.n, "p": args.p, "sets": args.sets, "workers": args.workers, "decimals": args.decimals}))


if __name__ == "__main__":
    main()
