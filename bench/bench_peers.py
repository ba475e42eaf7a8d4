"""Benchmark of the peer-tool families against the peers themselves (a script, not a test).

50,000 training, 50,000 holdout and 50,000 synthetic rows of bench_dcr's
mixed-type population (6 numeric, 6 categorical columns), the synthetic set
a noisy bootstrap of training. For each new metric: our wall time on a pool
of local processes, the peer's wall time on the same data in the same run
(anonymeter 1.1 and SDMetrics 0.32 in their own venv, ``.venv-peers`` or
``POLICYCHECK_PEER_PYTHON``), both values, and the ratio.

A peer that would run for more than a few minutes is run on a subsample and
its full time extrapolated by its own cost model, said so in the output:
SDMetrics' DCR is a pandas cross join (time ~ synthetic x real rows; at
50,000 x 50,000 about a day), its CAP a Python loop over rows (time ~ rows). Our number on the same
subsample is printed beside it (equal numbers), and our full-size time.
synthpop is R and not installed here: repU, DiSCO and TCAP are timed alone.

Run from the repository root: ``.venv/bin/python -m bench.bench_peers [--rows 50000] [--workers 2]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.bench_dcr import NUMERIC, make_population, noisy_bootstrap
from policycheck.execution.local import LocalProcessExecutor
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext
from policycheck.release.model import ColumnType, Dataset, Release

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "peers"))
from peers_env import peer_python  # noqa: E402

QIS = ("age", "sex", "region", "education", "income", "occupation")
SECRET = "diagnosis"
SYNTHPOP_KEYS = ["sex", "smoker", "region", "education", "occupation"]
HALVES = [["age", "sex", "region"], ["education", "income", "occupation"]]


def ours(release: Release, metric: str, params: dict, workers: int):
    ctx = EvaluationContext(
        release, AttackerView("maximum-knowledge", QIS, (SECRET,)), seed=1, executor=LocalProcessExecutor(workers)
    )
    spec = registry.get_metric(metric)
    start = time.perf_counter()
    result = spec.evaluate(ctx, spec.params(**params), {})
    return result, time.perf_counter() - start


def make_release(train, hold, syn) -> Release:
    types = {c: ColumnType.NUMERIC if c in NUMERIC else ColumnType.CATEGORICAL for c in train}
    return Release(
        "bench",
        Dataset("original", "original", train),
        (Dataset("synthetic", "s", syn),),
        Dataset("holdout", "holdout", hold),
        types,
    )


def run_peer(python: str, specs: list[dict], folder: Path) -> list[dict]:
    path = folder / "specs.json"
    path.write_text(json.dumps(specs))
    done = subprocess.run(
        [python, str(ROOT / "tests" / "peers" / "peer_runner.py"), str(path)], capture_output=True, text=True
    )
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dcr-peer-rows", type=int, default=1_500, help="SDMetrics DCR subsample (real and synthetic)")
    parser.add_argument("--cap-peer-rows", type=int, default=5_000, help="SDMetrics CAP subsample (real and synthetic)")
    parser.add_argument("--only", choices=["anonymeter", "sdmetrics", "synthpop"], help="run one peer's measures only")
    args = parser.parse_args()
    rng = np.random.default_rng(20261123)
    train, hold = make_population(args.rows, rng), make_population(args.rows, rng)
    syn = noisy_bootstrap(train, rng)
    release = make_release(train, hold, syn)
    python = peer_python()
    folder = Path(tempfile.mkdtemp())
    files = {}
    for name, frame in (("original", train), ("control", hold), ("synthetic", syn)):
        files[name] = str(folder / f"{name}.csv")
        frame.to_csv(files[name], index=False)
    cases = [
        (
            "singling_out_risk",
            {"mode": "multivariate", "n_attacks": 500, "n_cols": 3},
            {"evaluator": "singling_out", "params": {"mode": "multivariate", "n_attacks": 500, "n_cols": 3}},
        ),
        (
            "linkability_risk",
            {"aux_columns": HALVES, "n_neighbors": 5, "n_attacks": 500},
            {"evaluator": "linkability", "params": {"aux_columns": HALVES, "n_neighbors": 5, "n_attacks": 500}},
        ),
        (
            "inference_risk",
            {"secret": SECRET, "aux_columns": list(QIS), "n_attacks": 500},
            {"evaluator": "inference", "params": {"secret": SECRET, "aux_columns": list(QIS), "n_attacks": 500}},
        ),
    ]
    rows = []
    print(
        f"{args.rows:,} rows each of training, holdout and synthetic (noisy bootstrap); {args.workers} workers",
        flush=True,
    )
    for metric, params, peer_spec in cases if args.only in (None, "anonymeter") else []:
        result, t_ours = ours(release, metric, params, args.workers)
        peer = None
        if python:
            spec = {"tool": "anonymeter", **peer_spec, **files, "seed": 1}
            peer = run_peer(python, [spec], folder)[0]
        rows.append((metric, result.value, result.interval, t_ours, peer))
        print(_line(metric, result.value, result.interval, t_ours, peer), flush=True)

    if args.only in (None, "sdmetrics"):
        sdmetrics_measures(args, release, train, hold, syn, python, folder)
    for metric in ("replicated_uniques", "disco", "tcap") if args.only in (None, "synthpop") else ():
        # synthpop compares keys as exact values: the categorical columns (noisy numbers never match).
        result, t = ours(
            release,
            metric,
            {"keys": SYNTHPOP_KEYS, **({} if metric == "replicated_uniques" else {"target": SECRET})},
            args.workers,
        )
        print(f"{metric:26s} ours {result.value:.4f} in {t:.2f} s (synthpop is R: not run here)", flush=True)


def sdmetrics_measures(args, release, train, hold, syn, python, folder) -> None:
    # CAP: SDMetrics loops over rows in Python (time ~ real + synthetic rows): a subsample, extrapolated linearly.
    cap_params = {
        "known_columns": ["age", "sex", "region", "education"],
        "sensitive_columns": [SECRET],
        "continuous_columns": ["age"],
    }
    result, t_ours = ours(release, "cap_disclosure_protection", cap_params, args.workers)
    c = args.cap_peer_rows
    cap_release = make_release(
        train.iloc[:c].reset_index(drop=True), hold.iloc[:c], syn.iloc[:c].reset_index(drop=True)
    )
    cap_sub, t_cap_sub = ours(cap_release, "cap_disclosure_protection", cap_params, args.workers)
    if python:
        cap_files = {"original": str(folder / "cap-original.csv"), "synthetic": str(folder / "cap-synthetic.csv")}
        train.iloc[:c].to_csv(cap_files["original"], index=False)
        syn.iloc[:c].to_csv(cap_files["synthetic"], index=False)
        spec = {
            "tool": "sdmetrics",
            "metric": "disclosure_protection",
            **cap_files,
            "params": {"known": cap_params["known_columns"], "sensitive": [SECRET], "continuous": ["age"]},
        }
        peer = run_peer(python, [spec], folder)[0]
        extrapolated = peer["seconds"] * args.rows / c
        print(
            f"cap_disclosure_protection  SDMetrics on a {c:,}-row subsample: {peer['score']:.6f} "
            f"in {peer['seconds']:.1f} s; "
            f"ours on it {cap_sub.value:.6f} in {t_cap_sub:.2f} s ({peer['seconds'] / t_cap_sub:.0f}x). "
            f"Full {args.rows:,}: ours {result.value:.4f} in {t_ours:.1f} s; SDMetrics extrapolated (cost ~ rows) "
            f"{extrapolated:.0f} s ({extrapolated / t_ours:.0f}x)",
            flush=True,
        )

    # DCR baseline: SDMetrics on a subsample, ours on the same subsample and in full.
    m = args.dcr_peer_rows
    sub_train, sub_syn = train.iloc[:m].reset_index(drop=True), syn.iloc[:m].reset_index(drop=True)
    sub_release = make_release(sub_train, hold.iloc[:m], sub_syn)
    sub_result, t_sub = ours(sub_release, "dcr_baseline_protection", {}, args.workers)
    full_result, t_full = ours(release, "dcr_baseline_protection", {}, args.workers)
    if python:
        sub_files = {"original": str(folder / "sub-original.csv"), "synthetic": str(folder / "sub-synthetic.csv")}
        sub_train.to_csv(sub_files["original"], index=False)
        sub_syn.to_csv(sub_files["synthetic"], index=False)
        sdtypes = {c: "numerical" if c in NUMERIC else "categorical" for c in train}
        spec = {
            "tool": "sdmetrics",
            "metric": "dcr_baseline_protection",
            **sub_files,
            "params": {"sdtypes": sdtypes, "seed": 5},
        }
        peer = run_peer(python, [spec], folder)[0]
        extrapolated = peer["seconds"] * (args.rows / m) ** 2
        print(
            f"dcr_baseline_protection  SDMetrics on a {m:,} x {m:,} subsample: {peer['score']:.4f} "
            f"in {peer['seconds']:.1f} s; "
            f"ours on it {sub_result.value:.4f} in {t_sub:.2f} s ({peer['seconds'] / t_sub:.0f}x). "
            f"Full {args.rows:,} x {args.rows:,}: ours {full_result.value:.4f} in {t_full:.1f} s; "
            "SDMetrics extrapolated "
            f"(cost ~ rows^2) {extrapolated / 3600:.1f} h ({extrapolated / t_full:.0f}x)",
            flush=True,
        )


def _line(metric, value, interval, t_ours, peer) -> str:
    text = f"{metric:26s} ours {value:.4f} [{interval[0]:.4f}, {interval[1]:.4f}] in {t_ours:.1f} s"
    if peer is None:
        return text + "; peer not installed"
    ci = f" [{peer['ci'][0]:.4f}, {peer['ci'][1]:.4f}]" if peer.get("ci") else ""
    return text + f"; peer {peer['value']:.4f}{ci} in {peer['seconds']:.1f} s: {peer['seconds'] / t_ours:.1f}x"


if __name__ == "__main__":
    main()
