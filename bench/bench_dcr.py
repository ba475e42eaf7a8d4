"""Benchmark of the exact Gower DCR engine (a script, not a test).

50,000 training, 50,000 holdout and 50,000 synthetic rows, 12 mixed columns
(6 numeric, 6 categorical with 2-20 levels) generated with a fixed seed.
Two releases: a noisy bootstrap of training (numeric noise N(0, 0.1 sd),
10 % categorical flips) and independent columns (each column resampled on
its own). For each, the wall time and peak memory of the DCR share's
computation (synthetic -> training and synthetic -> holdout) and, separately,
of the membership-inference directions (training -> synthetic and holdout ->
synthetic), on a pool of local processes.

Run from the repository root: ``.venv/bin/python -m bench.bench_dcr [--rows 50000] [--workers 2]``
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np
import pandas as pd

from policycheck.execution.local import LocalProcessExecutor
from policycheck.methods.gower import fit_gower
from policycheck.methods.nearest_neighbours import SearchJob, closest_records
from policycheck.release.model import ColumnType

LEVELS = {"sex": 2, "smoker": 3, "region": 8, "education": 12, "diagnosis": 16, "occupation": 20}
NUMERIC = ["age", "income", "bmi", "score", "visits", "hours"]


def make_population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Correlated mixed-type records: a latent factor drives every column."""
    z = rng.normal(size=n)
    cols: dict[str, np.ndarray] = {}
    for j, name in enumerate(NUMERIC):
        cols[name] = np.round(50 + 10 * (0.6 * z + 0.8 * rng.normal(size=n)) * (j + 1), 1)
    for name, levels in LEVELS.items():
        logits = np.outer(z, np.linspace(-1, 1, levels)) + rng.gumbel(size=(n, levels))
        cols[name] = np.array([f"{name}_{k}" for k in range(levels)])[logits.argmax(axis=1)]
    return pd.DataFrame(cols)


def noisy_bootstrap(train: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    syn = train.iloc[rng.integers(0, len(train), len(train))].reset_index(drop=True)
    for name in NUMERIC:
        syn[name] = syn[name] + rng.normal(0, 0.1 * train[name].std(), len(syn))
    for name in LEVELS:
        flip = rng.random(len(syn)) < 0.1
        syn.loc[flip, name] = rng.choice(train[name].unique(), flip.sum())
    return syn


def independent_columns(train: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame({c: train[c].to_numpy()[rng.integers(0, len(train), len(train))] for c in train})


def peak_mb() -> tuple[float, float]:
    """Peak resident memory (MB) of this process and the largest of its children.

    ``ru_maxrss`` of RUSAGE_CHILDREN only counts children already waited for,
    so the live pool workers are read from /proc (VmHWM, their own peak).
    """
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    for pid in _child_pids():
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        kids = max(kids, int(line.split()[1]) / 1024)
        except OSError:
            continue
    return own, kids


def cpu_ceiling(one_worker_seconds: float, cpu_seconds: float) -> float:
    """The most any number of workers can speed up a run that took ``one_worker_seconds`` on one.

    However the run's ``cpu_seconds`` (every process and thread of it) are laid out, at most one
    CPU-second per core passes per second of wall time: no schedule beats
    ``one_worker_seconds / (cpu_seconds / cores)``. Unlike a bound from the parent's share of the
    CPU, it holds when the parent works beside its workers (threads, ``ready_here``); it is tight
    where the workers are as many as the cores (the bench's two on this machine's two).
    """
    # The cores this process may run on: os.cpu_count() counts all the machine's, taskset or not.
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return round(one_worker_seconds / (cpu_seconds / cores), 2)


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and its live children.

    Wall time on a shared machine depends on the load; CPU time much less.
    """
    total = sum(os.times()[:4])
    tick = os.sysconf("SC_CLK_TCK")
    for pid in _child_pids():
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            continue
    return total


def _child_pids() -> list[int]:
    pids: list[int] = []
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        try:
            with open(f"/proc/{os.getpid()}/task/{task}/children") as fh:
                pids += [int(x) for x in fh.read().split()]
        except OSError:
            continue
    return pids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"load average before the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rng = np.random.default_rng(20261121)
    train = make_population(args.rows, rng)
    holdout = make_population(args.rows, rng)
    releases = {"noisy bootstrap": noisy_bootstrap(train, rng), "independent columns": independent_columns(train, rng)}
    types = dict.fromkeys(NUMERIC, ColumnType.NUMERIC) | dict.fromkeys(LEVELS, ColumnType.CATEGORICAL)

    with LocalProcessExecutor(args.workers) as executor:
        # Warm the pool and numba's on-disk cache so the figures measure the search.
        t0 = time.perf_counter()
        enc = fit_gower([train.head(64), holdout.head(64)], types, {}, list(train.columns))
        closest_records([SearchJob(enc.encode(train.head(64)), enc.encode(holdout.head(64)))] * 2, enc.kinds, executor)
        print(f"warm-up (pool start, numba compile or cache load): {time.perf_counter() - t0:.2f} s")
        for name, syn in releases.items():
            t0 = time.perf_counter()
            enc = fit_gower([train, holdout, syn], types, {}, list(train.columns))
            x_tr, x_ho, x_sy = enc.encode(train), enc.encode(holdout), enc.encode(syn)
            t_enc = time.perf_counter() - t0
            t0, c0 = time.perf_counter(), cpu_seconds()
            to_tr, to_ho = closest_records([SearchJob(x_sy, x_tr), SearchJob(x_sy, x_ho)], enc.kinds, executor)
            t_share, c_share = time.perf_counter() - t0, cpu_seconds() - c0
            mem_share = peak_mb()
            t0, c0 = time.perf_counter(), cpu_seconds()
            tr_to, ho_to = closest_records([SearchJob(x_tr, x_sy), SearchJob(x_ho, x_sy)], enc.kinds, executor)
            t_mi, c_mi = time.perf_counter() - t0, cpu_seconds() - c0
            mem_mi = peak_mb()
            share = float(np.mean(to_tr.distance < to_ho.distance))
            print(
                f"{name}: n={args.rows}, encode {t_enc:.2f} s; "
                f"DCR share directions {t_share:.2f} s wall, {c_share:.2f} s CPU (peak RSS self {mem_share[0]:.0f} MB, "
                f"children {mem_share[1]:.0f} MB); MI directions {t_mi:.2f} s wall, {c_mi:.2f} s CPU (peak RSS self "
                f"{mem_mi[0]:.0f} MB, children {mem_mi[1]:.0f} MB); share={share:.4f}, "
                f"median DCR to training {np.median(to_tr.distance):.4f}, "
                f"median DCR training->synthetic {np.median(tr_to.distance):.4f}"
            )


if __name__ == "__main__":
    main()
