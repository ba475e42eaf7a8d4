"""Bench cases of the whole check (issue 26): the check beyond the DCR search.

Each function runs one ``bench.run`` row and returns its figures (the row's
fresh process runs it; see ``bench/run.py``):

- ``whole-check``: ``policycheck check`` (the command, start-up included) of a
  policy with ``dcr_share`` and ``mi_risk`` on training = holdout = synthetic
  = ``rows`` rows of 12 mixed columns (``bench_dcr.make_population``, a noisy
  bootstrap), CSV or Parquet (``shape``), with 1 and with 2 workers, each the
  median of five runs (alternated, each between two probes of every core's speed:
  ``bench/core_speed.py``; ``speedup_clean`` is the speed-up of the runs whose
  cores all ran at full speed); the serial fraction is Amdahl's,
  ``f = 2 T2 / T1 - 1`` (the share of one worker's time that a second
  worker does not shorten). ``steps_1``, ``steps_2``: where the median run of each spent its
  time (:func:`run_steps`).
- ``mi-bootstrap``: the MI risk's bootstrap (200 resamples) on ``rows`` +
  ``rows`` DCRs, the sort-based one it replaced (transcribed below) against
  the counting one on 1 and 2 threads: CPU and wall seconds, and whether
  every resample's counts agree.
- ``demo-policy``: ``policycheck check policies/demo.policy.yaml`` with 2
  workers on bootstrapped UCI Adult: training ``rows`` records drawn from
  adult.data, holdout ``rows`` from adult.test (``BENCH_ADULT_DIR``, the
  full files; the demo's 3,000-row extracts when absent), synthetic set a
  bootstrap of the training records (the demo's ``nonprivate``). Wall, CPU
  of the command and its workers, peak RSS of the largest process, each
  rule's seconds.
- ``lp-sizes``: the reconstruction LP of the same data (training records,
  the demo policy's quasi-identifiers and secret): the LP as posed (a column
  per record: what HiGHS was given before identical records were merged)
  and as solved, HiGHS's seconds and iterations; up to 30,000 rows also the
  unmerged solve, timed, with the guesses compared.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
POLICYCHECK = [sys.executable, "-m", "policycheck"]
ADULT_DIR = Path(os.environ.get("BENCH_ADULT_DIR", "/work/shared/data/adult"))
DEMO_QUASI_IDENTIFIERS = ["age", "sex", "race", "marital_status", "education", "native_country", "workclass"]

#: Runs of the whole check on one worker and on two, alternated (the median of each is reported).
WHOLE_CHECK_PAIRS = 5

WHOLE_CHECK_POLICY = """\
metadata: {id: bench-whole-check, title: DCR share and MI risk, version: "1", owner: bench}
attacker: {model: no-box}
seed: 1
rules:
  - {id: dcr-share, metric: dcr_share, threshold: {fail_above: 0.55}}
  - {id: mi-risk, metric: mi_risk, threshold: {fail_above: 0.2}}
"""


def _timed_command(args: list[str]) -> dict:
    """Run a command; its wall seconds, the CPU seconds of it and its descendants, their largest peak RSS (MB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(args[:4])} ... exited {done.returncode}: {done.stderr.strip()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "rss_peak": after.ru_maxrss / 1024}


def run_steps(report: dict, wall: float) -> dict[str, float]:
    """Where a check's wall seconds went, from its report: each intermediate and each rule (their own
    seconds), and ``rest``, the command's other seconds (start-up, loading, the compiled plan, the reports)."""
    steps = {name: float(s) for name, s in report["provenance"]["intermediate_seconds"].items()}
    steps.update({rule["id"]: float(rule["seconds"]) for rule in report["rules"]})
    return {"rest": round(wall - sum(steps.values()), 2), **{k: round(v, 2) for k, v in steps.items()}}


def run_whole_check(spec: dict) -> dict:
    from bench.bench_dcr import cpu_ceiling, make_population, noisy_bootstrap
    from bench.core_speed import clean, core_speeds, fastest_speed, slowest_share

    ext = spec.get("shape") or "csv"
    rng = np.random.default_rng(20261121)
    n = spec["rows"]
    train, hold = make_population(n, rng), make_population(n, rng)
    syn = noisy_bootstrap(train, rng)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name, frame in (("training", train), ("holdout", hold), ("synthetic", syn)):
            if ext == "parquet":
                frame.to_parquet(root / f"{name}.parquet", index=False)
            else:
                frame.to_csv(root / f"{name}.csv", index=False)
        (root / "policy.yaml").write_text(WHOLE_CHECK_POLICY)
        runs: dict[int, list[dict]] = {1: [], 2: []}
        for _ in range(WHOLE_CHECK_PAIRS):
            for workers in (1, 2):
                args = [
                    *POLICYCHECK,
                    "check",
                    str(root / "policy.yaml"),
                    "--original",
                    str(root / f"training.{ext}"),
                    "--synthetic",
                    str(root / f"synthetic.{ext}"),
                    "--holdout",
                    str(root / f"holdout.{ext}"),
                    "-o",
                    str(root / f"out{workers}"),
                    "--workers",
                    str(workers),
                    "--quiet",
                    "--format",
                    "json",
                ]
                before = core_speeds()
                run = _timed_command(args)
                run["cores"] = [before, core_speeds()]
                run["steps"] = run_steps(json.loads((root / f"out{workers}" / "report.json").read_text()), run["wall"])
                runs[workers].append(run)
        value = [r["value"] for r in json.loads((root / "out2" / "report.json").read_text())["rules"]]
    one, two = (sorted(runs[w], key=lambda r: r["wall"])[len(runs[w]) // 2] for w in (1, 2))
    speedup = one["wall"] / two["wall"]
    fastest = fastest_speed(runs[1] + runs[2])
    fair = {w: [r["wall"] for r in runs[w] if clean(r["cores"], fastest)] for w in runs}
    return {
        "wall": two["wall"],
        "wall_1": round(one["wall"], 2),
        "walls_1": [round(r["wall"], 2) for r in runs[1]],
        "walls_2": [round(r["wall"], 2) for r in runs[2]],
        "cpu_1": round(one["cpu"], 2),
        "cpu_2": round(two["cpu"], 2),
        "speedup": round(speedup, 2),
        "serial_fraction": round(2 / speedup - 1, 2),
        "ceiling": cpu_ceiling(one["wall"], two["cpu"]),
        # Each run's slowest core (probed before and after it) against the fastest seen; the speed-up of
        # the runs whose cores all ran at full speed (medians; None without such runs of both kinds).
        "slowest_core_1": [slowest_share(r["cores"], fastest) for r in runs[1]],
        "slowest_core_2": [slowest_share(r["cores"], fastest) for r in runs[2]],
        "speedup_clean": (round(float(np.median(fair[1]) / np.median(fair[2])), 2) if fair[1] and fair[2] else None),
        "clean_runs": [len(fair[1]), len(fair[2])],
        "steps_1": one["steps"],
        "steps_2": two["steps"],
        "rss_self": max(one["rss_peak"], two["rss_peak"]),
        "rss_worker": 0.0,
        "value": [round(v, 6) for v in value],
    }


def sorted_resample_counts(members, non_members, levels, rng, resamples):
    """The MI bootstrap before counting (policycheck dbcddc8): every resample concatenated, its
    thresholds from ``np.quantile``, its guesses from two sorts."""
    guessed, hits = [], []
    for _ in range(resamples):
        m = members[rng.integers(0, members.size, members.size)]
        h = non_members[rng.integers(0, non_members.size, non_members.size)]
        t = np.quantile(np.concatenate([m, h]), np.asarray(levels, dtype=float), method="inverted_cdf")
        tp = np.searchsorted(np.sort(m), t, side="right")
        guessed.append(tp + np.searchsorted(np.sort(h), t, side="right"))
        hits.append(tp)
    return np.array(guessed), np.array(hits)


def run_mi_bootstrap(spec: dict) -> dict:
    from policycheck.methods.membership_bootstrap import bootstrap_counts
    from policycheck.methods.membership_test import DEFAULT_LEVELS

    n = spec["rows"]
    rng = np.random.default_rng(1)
    # Gower DCRs of mixed data take few distinct values: many ties at every threshold.
    members, non_members = rng.integers(0, 400, n) / 600, rng.integers(0, 420, n) / 600
    bootstrap_counts(members[:10], non_members[:10], DEFAULT_LEVELS, np.random.default_rng(0), 2)  # compile/load
    out = {}
    for label, run in (
        ("old", lambda: sorted_resample_counts(members, non_members, DEFAULT_LEVELS, np.random.default_rng(5), 200)),
        (
            "new1",
            lambda: bootstrap_counts(members, non_members, DEFAULT_LEVELS, np.random.default_rng(5), 200, threads=1),
        ),
        (
            "new2",
            lambda: bootstrap_counts(members, non_members, DEFAULT_LEVELS, np.random.default_rng(5), 200, threads=2),
        ),
    ):
        t0, c0 = time.perf_counter(), time.process_time()
        out[label] = (run(), time.perf_counter() - t0, time.process_time() - c0)
    same = all(
        np.array_equal(out[k][0][0], out["old"][0][0]) and np.array_equal(out[k][0][1], out["old"][0][1])
        for k in ("new1", "new2")
    )
    old, new1, new2 = (out[k][1:] for k in ("old", "new1", "new2"))
    return {
        "wall": new2[0],
        "old_wall": round(old[0], 2),
        "old_cpu": round(old[1], 2),
        "new_wall_1": round(new1[0], 2),
        "new_cpu_1": round(new1[1], 2),
        "new_wall_2": round(new2[0], 2),
        "new_cpu_2": round(new2[1], 2),
        "cpu_speedup": round(old[1] / new1[1], 1),
        "wall_speedup_2": round(old[0] / new2[0], 1),
        "same_counts": same,
        "rss_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_worker": 0.0,
    }


def run_api_release(spec: dict) -> dict:
    """``pc.Release`` of the whole check's three sets held as DataFrames: its wall, and the data hash it
    spends most of it on, composed (``release/csv_text.py``) against pandas' own ``to_csv``."""
    import hashlib

    import policycheck as pc
    from bench.bench_dcr import make_population, noisy_bootstrap
    from policycheck.release.csv_text import csv_sha256

    rng = np.random.default_rng(20261121)
    n = spec["rows"]
    train, hold = make_population(n, rng), make_population(n, rng)
    frames = (train, noisy_bootstrap(train, rng), hold)
    t0 = time.perf_counter()
    by_pandas = [hashlib.sha256(f.to_csv(index=False, lineterminator="\n").encode("utf-8")).hexdigest() for f in frames]
    t1 = time.perf_counter()
    composed = [csv_sha256(f) for f in frames]
    t2 = time.perf_counter()
    pc.Release(frames[0], frames[1], frames[2])
    t3 = time.perf_counter()
    return {
        "wall": t3 - t2,
        "pandas_hash_s": round(t1 - t0, 2),
        "hash_s": round(t2 - t1, 2),
        "same_hashes": composed == by_pandas,
        "rss_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_worker": 0.0,
    }


def bootstrapped_adult(n: int, seed: int = 20261121) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, str]:
    """Training (from adult.data) and holdout (from adult.test), ``n`` records each drawn with replacement,
    and the demo's nonprivate synthetic set of the training records."""
    from policycheck.interfaces.demo import HOLDOUT, TRAINING
    from policycheck.methods.synthesizers import BUILTIN

    full = (ADULT_DIR / "adult_train.csv").is_file() and (ADULT_DIR / "adult_test.csv").is_file()
    sources = (ADULT_DIR / "adult_train.csv", ADULT_DIR / "adult_test.csv") if full else (TRAINING, HOLDOUT)
    rng = np.random.default_rng([seed, n])
    a, b = (pd.read_csv(p, keep_default_na=False, na_values=[""]) for p in sources)
    training = a.iloc[rng.integers(0, len(a), n)].reset_index(drop=True)
    holdout = b.iloc[rng.integers(0, len(b), n)].reset_index(drop=True)
    synthetic = BUILTIN["nonprivate"](training, n, np.random.default_rng([seed, n, 7]))
    return training, holdout, synthetic, "UCI Adult (full)" if full else "demo extract (3,000 + 3,000)"


#: The demo policy's rules that play the membership game (300 rounds, each a synthetic set of as many
#: records as the release's): left out by the demo-policy case's ``no-game`` shape, the policy the
#: issue measured (the game joined the demo policy after).
GAME_RULES = ("membership-game", "dp-claim-game")


def demo_policy(folder: Path, shape: str) -> Path:
    """The demo policy, or (``no-game``) a copy without :data:`GAME_RULES` beside the files it names."""
    import shutil

    policies = ROOT / "policies"
    if shape != "no-game":
        return policies / "demo.policy.yaml"
    kept, skip = [], False
    for line in (policies / "demo.policy.yaml").read_text().splitlines(keepends=True):
        if line.startswith("  - id: "):
            skip = line.split(":", 1)[1].strip() in GAME_RULES
        kept.append("" if skip else line)
    shutil.copy(policies / "baseline.policy.yaml", folder / "baseline.policy.yaml")
    shutil.copytree(policies / "ledgers", folder / "ledgers")
    (folder / "demo.policy.yaml").write_text("".join(kept))
    return folder / "demo.policy.yaml"


def run_demo_policy(spec: dict) -> dict:
    n = spec["rows"]
    training, holdout, synthetic, source = bootstrapped_adult(n)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        policy = demo_policy(root, spec.get("shape") or "")
        for name, frame in (("training", training), ("holdout", holdout), ("synthetic", synthetic)):
            frame.to_csv(root / f"{name}.csv", index=False)
        del training, holdout, synthetic
        (root / "release.yaml").write_text(
            f"release: {{id: adult-bootstrap-{n}}}\noriginal: training.csv\nholdout: holdout.csv\nsynthetic:\n"
            "  - {name: nonprivate, path: synthetic.csv, synthesizer: {name: policycheck.nonprivate, epsilon: 1.0, "
            "delta: 1.0e-6, seed: 1, builtin: nonprivate}}\n"
        )
        args = [
            *POLICYCHECK,
            "check",
            str(policy),
            "-r",
            str(root / "release.yaml"),
            "-o",
            str(root / "out"),
            "--workers",
            str(spec["workers"]),
            "--quiet",
            "--format",
            "json",
        ]
        timed = _timed_command(args)
        report = json.loads((root / "out" / "report.json").read_text())
    rules = {r["id"]: r for r in report["rules"]}
    return {
        "wall": timed["wall"],
        "cpu": round(timed["cpu"], 1),
        "rss_self": timed["rss_peak"],
        "rss_worker": 0.0,
        "source": source,
        "verdict": report["verdict"],
        "value": {k: (round(r["value"], 6) if isinstance(r["value"], float) else r["value"]) for k, r in rules.items()},
        "rule_seconds": {k: round(r.get("seconds", 0.0), 2) for k, r in rules.items()},
        "steps": {
            k.split("(")[0] + ("/holdout" if "records=holdout" in k else ""): round(v, 2)
            for k, v in report["provenance"]["intermediate_seconds"].items()
        },
    }


def run_lp_sizes(spec: dict) -> dict:
    from policycheck.methods.reconstruction.baselines import class_codes
    from policycheck.methods.reconstruction.encoding import fit_encoding
    from policycheck.methods.reconstruction.lp_attack import solve_l1_reconstruction
    from policycheck.methods.reconstruction.queries import answer_queries, build_queries

    n = spec["rows"]
    training, _, synthetic, source = bootstrapped_adult(n)
    classes = np.array(sorted(training["income"].dropna().unique()), dtype=object)
    t0, c0 = time.perf_counter(), time.process_time()
    encoding = fit_encoding(training, DEMO_QUASI_IDENTIFIERS, ["age"], 5)
    codes = encoding.codes(training)
    distinct, records, copies = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    queries = build_queries(distinct, encoding.radix, [3], None, np.random.default_rng(0), weights=copies)
    answers, answered = answer_queries(
        queries, encoding.codes(synthetic), class_codes(synthetic["income"], classes), 2, encoding.radix
    )
    t, info = solve_l1_reconstruction(queries.matrix[answered], answers[answered, 1], records=records.ravel())
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    out = {
        "wall": wall,
        "cpu": round(cpu, 2),
        "rss_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_worker": 0.0,
        "source": source,
        "posed": [info.rows, info.columns, info.nonzeros],
        "solved": list(info.solved),
        "iterations": list(info.iterations),
        "highs_s": round(info.seconds, 2),
    }
    if n <= 30_000 or spec.get("unmerged"):
        # The LP as HiGHS got it before: a column per record (HiGHS's own presolve merges them, slowly).
        matrix = queries.matrix[answered][:, records.ravel()]
        t0 = time.perf_counter()
        before, info_before = solve_unmerged(matrix, answers[answered, 1])
        out.update(
            unmerged_highs_s=round(info_before["seconds"], 2),
            unmerged_iterations=info_before["iterations"],
            unmerged_total_s=round(time.perf_counter() - t0, 2),
            same_guesses=bool(((before >= 0.5) == (t >= 0.5)).all()),
            max_difference=float(np.abs(before - t).max()),
        )
    return out


def solve_unmerged(matrix, answers) -> tuple[np.ndarray, dict]:
    """The primal solve as it was before records were merged (policycheck dbcddc8): a column per record, HiGHS's
    presolve left to find the identical ones; tests/methods/reconstruction compares the merged solve with it."""
    import highspy
    import scipy.sparse as sp

    from policycheck.methods.reconstruction import lp_attack

    a, b, weight = lp_attack.merge_duplicate_queries(sp.csr_matrix(matrix, dtype=float), np.asarray(answers, float))
    q, n = a.shape
    eye = sp.identity(q, format="csc")
    full = sp.hstack([a.tocsc(), -eye, eye], format="csc")
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = full.shape[1], full.shape[0]
    lp.col_cost_ = np.concatenate([np.zeros(n), weight, weight])
    lp.col_lower_ = np.zeros(n + 2 * q)
    lp.col_upper_ = np.concatenate([np.ones(n), np.full(2 * q, highspy.kHighsInf)])
    lp.row_lower_, lp.row_upper_ = b, b
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_ = full.indptr.astype(np.int32), full.indices.astype(np.int32)
    lp.a_matrix_.value_ = full.data.astype(np.float64)
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = full.shape[1], full.shape[0]
    h = lp_attack._quiet_solver()
    for key, value in lp_attack.SOLVER_OPTIONS.items():
        h.setOptionValue(key, value)
    h.passModel(lp)
    h.run()
    info = h.getInfo()
    t = np.clip(np.asarray(h.getSolution().col_value[:n]), 0.0, 1.0)
    return t, {
        "optimal": h.getModelStatus() == highspy.HighsModelStatus.kOptimal,
        "objective": info.objective_function_value,
        "seconds": h.getRunTime(),
        "iterations": [int(info.ipm_iteration_count), int(info.crossover_iteration_count)],
    }
