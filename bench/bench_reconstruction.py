"""Benchmark of the linear reconstruction attack (issue 4, paper 001 sec. 6.7).

1,000 original records (a seeded sample of the demo's Adult training data,
secret ``sex``, the 14 other columns as quasi-identifiers), 10^5 synthetic
records from the built-in synthesizers. Query sets:

- ``3-way, all``: the paper's main attack, every non-empty cell of every pair;
- ``4-way, 1e4`` and ``4-way, 1e5``: random 4-way queries, as in the paper's
  timing runs (sec. 6.7), drawn as a seeded sample of the non-empty 4-way
  cells. A budget of 10^5 takes all of them: 1,000 records occupy only
  ~28,500 distinct 4-way cells (the paper's generator draws 10^5 random
  conjunctions, most of which match no record and are dropped);
- ``4+5-way, 1e5``: a stress case beyond the paper, 10^5 distinct non-empty
  4- and 5-way cells, to show how the solve grows past the paper's setting.

Prints, per case: time to build the query matrix, to answer the queries on
the synthetic data, to solve the LP (form, size, status), the whole attack
(wall clock, and CPU time of this process, which a busy machine does not
inflate), the accuracy on all 1,000 records, and the process's peak resident
memory. The first case includes loading (or compiling) the counting kernel.

Run: ``.venv/bin/python bench/bench_reconstruction.py [--synthesizers nonprivate indhist]``
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import numpy as np
import pandas as pd

from policycheck.execution.executor import available_cores
from policycheck.methods.reconstruction.baselines import class_codes
from policycheck.methods.reconstruction.encoding import fit_encoding
from policycheck.methods.reconstruction.lp_attack import SOLVER_OPTIONS, solve_l1_reconstruction
from policycheck.methods.reconstruction.queries import answer_queries, build_queries
from policycheck.methods.synthesizers import BUILTIN

DATA = Path(__file__).resolve().parents[1] / "policycheck" / "demo_data" / "adult_training.csv"
NUMERIC = ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"]


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_case(original: pd.DataFrame, synthetic: pd.DataFrame, orders: tuple[int, ...], n_queries: int | None) -> dict:
    qis = [c for c in original.columns if c != "sex"]
    classes = np.array(["Female", "Male"], dtype=object)
    start, cpu_start = time.perf_counter(), time.process_time()
    encoding = fit_encoding(original, qis, NUMERIC, 5)
    codes_d, codes_s = encoding.codes(original), encoding.codes(synthetic)
    queries = build_queries(codes_d, encoding.radix, orders, n_queries, np.random.default_rng(0))
    built = time.perf_counter()
    answers, answered = answer_queries(
        queries, codes_s, class_codes(synthetic["sex"], classes), 2, encoding.radix, "conditional"
    )
    matrix, b = queries.matrix[answered], answers[answered, 1]
    answered_at = time.perf_counter()
    t, info = solve_l1_reconstruction(matrix, b)
    solved, cpu_end = time.perf_counter(), time.process_time()
    truth = class_codes(original["sex"], classes)
    return {
        "queries": queries.n_queries,
        "enumerated": queries.enumerated,
        "answered": int(answered.sum()),
        "build_s": built - start,
        "answer_s": answered_at - built,
        "solve_s": solved - answered_at,
        "highs_s": info.seconds,
        "total_s": solved - start,
        "cpu_s": cpu_end - cpu_start,
        "form": info.form,
        "rows": info.rows,
        "nnz": info.nonzeros,
        "status": info.status,
        "accuracy": float(((t >= 0.5).astype(int) == truth).mean()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthesizers", nargs="+", default=["nonprivate", "indhist"], choices=sorted(BUILTIN))
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--synthetic", type=int, default=100_000)
    args = parser.parse_args()

    full = pd.read_csv(DATA, keep_default_na=False, na_values=[""])
    original = full.sample(n=args.records, random_state=0).reset_index(drop=True)
    print(f"cores available: {available_cores()}; HiGHS options: {SOLVER_OPTIONS}")
    print(f"original records: {len(original)}, synthetic records: {args.synthetic}, quasi-identifiers: 14")
    header = (
        f"{'synth':<11}{'queries':<16}{'q':>8}{'answered':>9}{'build s':>9}{'answer s':>9}"
        f"{'LP s':>8}{'total s':>9}{'CPU s':>7}  {'form':<7}{'nnz':>9}  {'status':<8}{'acc':>6}{'peak MiB':>10}"
    )
    print(header)
    cases = [
        ("3-way, all", (3,), None),
        ("4-way, 1e4", (4,), 10_000),
        ("4-way, 1e5", (4,), 100_000),
        ("4+5-way, 1e5", (4, 5), 100_000),
    ]
    for name in args.synthesizers:
        synthetic = BUILTIN[name](original, args.synthetic, np.random.default_rng(1))
        for label, orders, budget in cases:
            r = run_case(original, synthetic, orders, budget)
            print(
                f"{name:<11}{label:<16}{r['queries']:>8}{r['answered']:>9}{r['build_s']:>9.2f}{r['answer_s']:>9.2f}"
                f"{r['solve_s']:>8.2f}{r['total_s']:>9.2f}{r['cpu_s']:>7.2f}  {r['form']:<7}{r['nnz']:>9}  "
                f"{r['status']:<8}"
                f"{r['accuracy']:>6.3f}{peak_rss_mib():>10.0f}"
            )


if __name__ == "__main__":
    main()
