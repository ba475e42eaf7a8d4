"""The benchmark suite: one table of wall times, memory and ratios to a peer, also written as JSON.

Every row runs in a fresh Python process (so its peak memory is its own):
``wall`` is the wall-clock seconds of the timed step (for DCR rows the note
adds ``cpu``, CPU seconds of the process and its live workers, which a busy
machine inflates much less), ``rss self`` the peak
resident memory of the process that ran the check and ``rss worker`` the
largest peak among its worker processes (pool or Dask workers), both in MB.

Rows:

- ``dcr``: the four exact Gower DCR directions of one synthetic set
  (synthetic -> training, synthetic -> holdout, training -> synthetic,
  holdout -> synthetic), train = holdout = synthetic = n rows, as
  ``gower_dcr`` computes them. Shapes: ``mixed12`` (6 numeric, 6 categorical
  with 2-20 levels, a noisy bootstrap: ``bench/bench_dcr.py``),
  ``continuous30`` (30 continuous columns) and ``categorical1000`` (a
  1,000-level categorical beside 4 numeric and 3 small categorical ones).
- ``dcr-share``: the two directions the peer computes (synthetic -> training,
  synthetic -> holdout); ``peer`` is SURE (``clearbox-sure``) on the same
  data in the same run, from ``--peer-python`` (a Python with clearbox-sure
  installed), or, when that is not given, a NumPy transcription of SURE's
  published row-by-row formula (``sure/distance_metrics/gower_matrix_c.pyx``:
  float32, one query against all records at a time), marked ``sure-formula``.
- ``linkage``: the linkage attack of ``bench/bench_linkage.py`` (n records,
  p = 5, M = 5 sets, criterion sum); shape: the mapping, ``reverse`` or
  ``released`` (a check with a holdout runs each twice, on the original and
  on the holdout records).
- ``lp``: the LP reconstruction attack at 10^5 4-way queries
  (``bench/bench_reconstruction.py``), one solve; shape ``4+5way-indhist`` is its
  stress case (10^5 4- and 5-way queries on the independent-histogram release).
- ``check-stream``: ``check`` with one dcr_share rule on a Parquet synthetic set
  of 2 x 10^6 rows (train = holdout = 10^5), ``streamed`` (the default above one
  shard) or ``in-memory`` (streaming off): wall and every process's peak memory.
- ``dcr-stream``: the four DCR directions with train = holdout = 10^5 rows
  (mixed12) against a synthetic set of ``rows`` rows written to a temporary
  Parquet file and streamed through the search shard by shard
  (``policycheck/methods/streamed_dcr.py``); the note lists every process's peak
  RSS (MB), the parent's first.
- ``whole-check``, ``mi-bootstrap``, ``api-release``, ``demo-policy``, ``lp-sizes``: the whole check beyond the
  DCR search (``bench/bench_whole_check.py``): ``check`` with dcr_share + mi_risk on 1 and 2
  workers and its serial fraction; the MI bootstrap before and after counting; the Python API's
  ``Release`` of the same sets as DataFrames and their CSV hash, composed against pandas'; the demo policy
  on bootstrapped Adult (3,000 to 10^6 rows, ``--million`` for 10^6); the reconstruction LP's
  size as posed and as solved.
- ``game``: ``check`` of a policy with one attribute-inference game rule
  (100 repetitions, built-in nonprivate synthesizer, exact-match attack) on the demo
  data, local pool against a Dask LocalCluster (wall includes starting it).
- ``membership-game``: the membership game (``bench/bench_membership_game.py``): 2,000
  training and 2,000 holdout Adult records, 200 rounds of 2,000-record training and
  synthetic sets, 20 targets; shape: the built-in synthesizer. The note gives the seconds
  inside the synthesizer (``synth``), the rest of the rounds (``features``), choosing the
  targets (``setup``) and the forests (``attacks``), the game's own share of the run at one
  worker, and at two workers the speed-up over one. Each row is the median of three runs
  (all three wall times printed), as the ratio swings with the load. Each run sits between
  two probes of every core's speed (``bench/core_speed.py``): the note gives each run's
  slowest core against the fastest seen and, where runs of both kinds found every core at
  full speed, their speed-up (the development VM slows each core to about half, unseen by
  the load). With ``--case
  membership-game`` also 300 rounds on 30,000 + 30,000 bootstrapped Adult records (shape
  ``nonprivate-30k``, ``indhist_dp-30k``), where the rounds take most of the time.

SURE is heavy (Streamlit, LightGBM, XGBoost, NumPy < 2), so it lives in a venv of its
own: ``python3 -m venv /tmp/sure && /tmp/sure/bin/pip install clearbox-sure==0.2.16``.

Every row records the Python and library versions it ran with (``versions``: pandas 2 and 3 differ
by a second on the whole check). Rows comparing one worker with two print ``ceiling``: one worker's
time over the two-worker run's CPU seconds spread on the machine's cores, the most any schedule of
that CPU could give (``bench.bench_dcr.cpu_ceiling``).

Run from the repository root::

    .venv/bin/python -m bench.run [--quick] [--peer-python /tmp/sure/bin/python] [--json bench/results.json]

``--quick`` runs the small sizes only; ``--million`` adds the large rows (DCR and
linkage at 10^6, ``dcr-stream`` at 10^7). One case alone, its large rows included:
``--case dcr --rows 1000000``, ``--case linkage --rows 1000000``, ``--case lp``,
``--case dcr-stream``. Note the machine's load average (printed)
beside any figure: on a shared machine, repeat and keep the minimum.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bench.core_speed import clean_wall, core_speeds, fastest_speed, slowest_share

ROOT = Path(__file__).resolve().parent.parent

SHAPES = ("mixed12", "continuous30", "categorical1000")

#: Training and holdout rows of the ``dcr-stream`` case (its ``rows`` are the synthetic set's).
STREAM_REAL_ROWS = int(os.environ.get("BENCH_STREAM_REAL_ROWS", 100_000))


def make_sets(shape: str, n: int, seed: int = 20261121):
    """Training, holdout and a noisy-bootstrap synthetic set of ``shape``, with column types."""
    from bench.bench_dcr import LEVELS, NUMERIC, make_population, noisy_bootstrap
    from policycheck.release.model import ColumnType

    rng = np.random.default_rng(seed)
    if shape == "mixed12":
        train, hold = make_population(n, rng), make_population(n, rng)
        syn = noisy_bootstrap(train, rng)
        types = dict.fromkeys(NUMERIC, ColumnType.NUMERIC) | dict.fromkeys(LEVELS, ColumnType.CATEGORICAL)
        return train, hold, syn, types

    def population(m: int) -> pd.DataFrame:
        z = rng.normal(size=m)
        if shape == "continuous30":
            return pd.DataFrame({f"x{j}": 0.5 * z + rng.normal(size=m) for j in range(30)})
        frame = {f"x{j}": np.round(0.5 * z + rng.normal(size=m), 2) for j in range(4)}
        frame["code"] = [f"c{k}" for k in rng.integers(0, 1000, m)]
        for j, levels in enumerate((2, 4, 8)):
            frame[f"k{j}"] = [f"v{k}" for k in rng.integers(0, levels, m)]
        return pd.DataFrame(frame)

    train, hold = population(n), population(n)
    syn = train.iloc[rng.integers(0, n, n)].reset_index(drop=True)
    numeric = [c for c in syn if c.startswith("x")]
    syn[numeric] = syn[numeric] + rng.normal(0, 0.1, (n, len(numeric)))
    types = {c: ColumnType.NUMERIC if c.startswith("x") else ColumnType.CATEGORICAL for c in syn}
    return train, hold, syn, types


class PeakWatcher:
    """Samples the peak memory of every descendant process while it runs.

    Two figures per process: ``VmHWM``, the kernel's peak resident set, and the
    peak private memory (``Private_Clean + Private_Dirty`` of
    ``/proc/PID/smaps_rollup``, sampled). A worker forked from a process that
    holds a large release counts that process's pages it shares, untouched, in
    its resident set; the private figure is the memory the worker adds.
    """

    def __init__(self, private: bool = True) -> None:
        self.worker_mb = 0.0
        self.sample_private = private  # smaps_rollup walks a process's page tables: off where not reported
        self.per_process: dict[int, float] = {}  # peak MB (VmHWM) of each descendant process seen
        self.private: dict[int, float] = {}  # peak private MB of each, as sampled
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    @property
    def worker_private_mb(self) -> float:
        return max(self.private.values(), default=0.0)

    def __enter__(self) -> PeakWatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._sample()
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._stop.wait(0.25):
            self._sample()

    def _sample(self) -> None:
        for pid in _descendants(os.getpid()):
            try:
                with open(f"/proc/{pid}/status") as fh:
                    for line in fh:
                        if line.startswith("VmHWM:"):
                            mb = int(line.split()[1]) / 1024
                            self.worker_mb = max(self.worker_mb, mb)
                            self.per_process[pid] = max(self.per_process.get(pid, 0.0), mb)
                if not self.sample_private:
                    continue
                with open(f"/proc/{pid}/smaps_rollup") as fh:
                    private = sum(int(line.split()[1]) for line in fh if line.startswith("Private_")) / 1024
                self.private[pid] = max(self.private.get(pid, 0.0), private)
            except (OSError, ValueError):
                continue


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    kids = [int(x) for x in fh.read().split()]
                out += kids
                todo += kids
        except OSError:
            continue
    return out


def self_peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _warm_search(args) -> int:
    """Load the compiled nearest-neighbour search in a worker (a tiny search, run where it is called)."""
    from policycheck.execution.executor import SerialExecutor
    from policycheck.methods.nearest_neighbours import SearchJob, closest_records

    queries, references, kinds = args
    closest_records([SearchJob(queries, references)], kinds, SerialExecutor())
    return os.getpid()


#: Fresh processes a DCR row runs in; its figures are those of the median wall time. One call
#: of the same search varies by 5-10% from the next on this shared 2-core machine.
DCR_REPEATS = 3

#: Cases whose rows are run this many times, the median reported: their ratios swing with the load.
REPEATED_CASES = ("dcr", "membership-game")


def run_dcr(spec: dict) -> dict:
    from bench.bench_dcr import cpu_seconds
    from policycheck.execution.factory import make_executor
    from policycheck.methods.gower import fit_gower
    from policycheck.methods.nearest_neighbours import SearchJob, closest_records

    train, hold, syn, types = make_sets(spec["shape"], spec["rows"])
    enc = fit_gower([train, hold, syn], types, {}, list(train.columns))
    with PeakWatcher(private=False) as watch, make_executor(spec["executor"], spec["workers"], "local") as executor:
        # Encoded where the workers read them, as the membership metric does; timed apart ("encode"):
        # the search is the step compared across workers and with the peers.
        t0 = time.perf_counter()
        x_tr, x_ho, x_sy = (enc.encode(frame, executor.empty) for frame in (train, hold, syn))
        encode = time.perf_counter() - t0
        if spec["case"] == "dcr":
            jobs = [SearchJob(x_sy, x_tr), SearchJob(x_sy, x_ho), SearchJob(x_tr, x_sy), SearchJob(x_ho, x_sy)]
        else:
            jobs = [SearchJob(x_sy, x_tr), SearchJob(x_sy, x_ho)]
        # Warm-up outside the timing: pool start, numba compile or cache load. The tiny search alone
        # runs in this process (its cost pays for no worker), so the workers are warmed by a map of
        # their own: each loads the compiled search, as this process just did, so one worker (run in
        # this process) and two (run in the pool) are timed equally warm.
        closest_records([SearchJob(x_sy[:64], x_tr[:64])] * 2, enc.kinds, executor)
        warm = (x_sy[:64], x_tr[:64], enc.kinds)
        executor.map(_warm_search, [warm] * (4 * spec["workers"]))
        # One call, the first of the process, as in a check: a second call would find the first's
        # private memory already mapped (its shared-memory segments are new each call).
        t0, c0 = time.perf_counter(), cpu_seconds()
        found = closest_records(jobs, enc.kinds, executor)
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    return {
        "wall": wall,
        "cpu": round(cpu, 2),
        "encode": round(encode, 2),
        "rss_self": self_peak_mb(),
        "rss_worker": watch.worker_mb,
        "method": sorted({f.method for f in found}),
        "check": float(np.mean(found[0].distance < found[1].distance)),
    }


def write_streamed_synthetic(path: Path, train: pd.DataFrame, rows: int, seed: int, group_rows: int = 250_000) -> None:
    """A noisy bootstrap of ``train`` with ``rows`` rows, written to Parquet one row group at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.bench_dcr import noisy_bootstrap

    writer = None
    for start in range(0, rows, group_rows):
        rng = np.random.default_rng([seed, start])
        chunk = noisy_bootstrap(train, rng).iloc[: min(group_rows, rows - start)]
        while len(chunk) < min(group_rows, rows - start):
            chunk = pd.concat([chunk, noisy_bootstrap(train, rng)], ignore_index=True)
        table = pa.Table.from_pandas(chunk.iloc[: min(group_rows, rows - start)], preserve_index=False)
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=group_rows)
        del chunk, table
    writer.close()


def run_dcr_stream(spec: dict) -> dict:
    """The four DCR directions against a synthetic set of ``rows`` rows streamed from Parquet.

    train = holdout = :data:`STREAM_REAL_ROWS` rows (mixed12); the synthetic
    set (a noisy bootstrap of train) is written to a temporary Parquet file
    in row groups of 250,000 rows first (not timed) and never loaded whole:
    each worker reads and searches one shard of 500,000 rows at a time.
    """
    import tempfile

    from bench.bench_dcr import LEVELS, NUMERIC, cpu_seconds, make_population
    from policycheck.execution.factory import make_executor
    from policycheck.methods.gower import fit_gower
    from policycheck.methods.streamed_dcr import fit_on_stream, parquet_shards, streamed_closest_records
    from policycheck.release.model import ColumnType

    rng = np.random.default_rng(20261121)
    train, hold = make_population(STREAM_REAL_ROWS, rng), make_population(STREAM_REAL_ROWS, rng)
    types = dict.fromkeys(NUMERIC, ColumnType.NUMERIC) | dict.fromkeys(LEVELS, ColumnType.CATEGORICAL)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "synthetic.parquet"
        t0 = time.perf_counter()
        write_streamed_synthetic(path, train, spec["rows"], seed=1)
        written = time.perf_counter() - t0
        with PeakWatcher() as watch, make_executor(spec["executor"], spec["workers"], "local") as executor:
            executor.map(abs, [0, 1])
            t0, c0 = time.perf_counter(), cpu_seconds()
            shards = parquet_shards(path)
            enc = fit_on_stream(fit_gower([train, hold], types, {}, list(train.columns)), shards)
            x_tr, x_ho = enc.encode(train), enc.encode(hold)
            to_real, from_real = streamed_closest_records(shards, enc, [x_tr, x_ho], executor)
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    return {
        "wall": wall,
        "cpu": round(cpu, 1),
        "rss_self": self_peak_mb(),
        "rss_worker": watch.worker_mb,
        "rss_per_process": [round(self_peak_mb())] + sorted(round(mb) for mb in watch.per_process.values()),
        "private_worker": round(watch.worker_private_mb),
        "shards": len(shards),
        "write_s": round(written, 1),
        "method": sorted({f.method for f in [*to_real, *from_real]}),
        "check": float(np.mean(to_real[0].distance < to_real[1].distance)),
    }


def run_sure_formula(spec: dict) -> dict:
    """SURE's DCR formula (gower_matrix_c.pyx) transcribed to NumPy: float32, one query row at a time."""
    train, hold, syn, types = make_sets(spec["shape"], spec["rows"])
    cat = [c for c, t in types.items() if t.value == "categorical"]
    num = [c for c in train if c not in cat]
    both = pd.concat([train, hold, syn])
    ranges = (both[num].max() - both[num].min()).to_numpy(np.float32)
    codes = {c: {v: i for i, v in enumerate(pd.unique(both[c]))} for c in cat}

    def split(frame):
        xc = (
            np.column_stack([frame[c].map(codes[c]).to_numpy(np.uint8) for c in cat])
            if cat
            else np.zeros((len(frame), 0), np.uint8)
        )
        return xc, frame[num].to_numpy(np.float32)

    s_c, s_n = split(syn)
    t0 = time.perf_counter()
    for ref in (train, hold):
        r_c, r_n = split(ref)
        out = np.empty(len(syn), np.float32)
        for i in range(len(syn)):
            d = (s_c[i] != r_c).astype(np.uint8).sum(axis=1).astype(np.float32)
            d += np.nan_to_num(np.abs((s_n[i] - r_n) / ranges)).sum(axis=1).astype(np.float32)
            out[i] = np.amin(d / np.float32(train.shape[1]))
    return {"wall": time.perf_counter() - t0, "rss_self": self_peak_mb(), "rss_worker": 0.0}


SURE_SCRIPT = """
import json, sys, time
import pandas as pd
from sure.distance_metrics.distance import distance_to_closest_record
folder = sys.argv[1]
train, hold, syn = (pd.read_csv(f"{folder}/{n}.csv") for n in ("train", "hold", "syn"))
import resource
t0 = time.perf_counter()
distance_to_closest_record("synth_train", syn, train, parallel=True, save_data=False)
distance_to_closest_record("synth_val", syn, hold, parallel=True, save_data=False)
print(json.dumps({"wall": time.perf_counter() - t0,
                  "rss_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rss_worker": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def run_sure(spec: dict, python: str) -> dict:
    import tempfile

    train, hold, syn, _ = make_sets(spec["shape"], spec["rows"])
    with tempfile.TemporaryDirectory() as folder:
        for name, frame in (("train", train), ("hold", hold), ("syn", syn)):
            frame.to_csv(f"{folder}/{name}.csv", index=False)
        done = subprocess.run([python, "-c", SURE_SCRIPT, folder], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


CHECK_STREAM_POLICY = """\
metadata: {id: bench-check-stream, title: DCR share of a large synthetic set, version: "1", owner: bench}
attacker: {model: no-box}
seed: 1
rules:
  - {id: dcr-share, metric: dcr_share, threshold: {fail_above: 0.55}}
"""


def run_check_stream(spec: dict) -> dict:
    """``check`` (dcr_share) on a Parquet synthetic set of ``rows`` rows, streamed or loaded whole.

    Shape ``streamed``: the default path above one shard; ``in-memory``: the same check with
    streaming switched off. train = holdout = :data:`STREAM_REAL_ROWS` rows (mixed12), written
    to CSV; the timed part includes loading the release.
    """
    import tempfile

    from bench.bench_dcr import make_population
    from policycheck.interfaces.check import CheckOptions, check_release
    from policycheck.release import stream
    from policycheck.release.load import load_manifest

    if spec.get("shape") == "in-memory":
        stream.STREAM_ABOVE_ROWS = 1 << 62
    rng = np.random.default_rng(20261121)
    train, hold = make_population(STREAM_REAL_ROWS, rng), make_population(STREAM_REAL_ROWS, rng)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        train.to_csv(root / "training.csv", index=False)
        hold.to_csv(root / "holdout.csv", index=False)
        write_streamed_synthetic(root / "synthetic.parquet", train, spec["rows"], seed=1)
        (root / "release.yaml").write_text(
            "release: {id: bench}\noriginal: training.csv\nholdout: holdout.csv\n"
            "synthetic: [{name: s, path: synthetic.parquet}]\n"
        )
        (root / "policy.yaml").write_text(CHECK_STREAM_POLICY)
        with PeakWatcher() as watch:
            t0 = time.perf_counter()
            check_release(
                root / "policy.yaml",
                load_manifest(root / "release.yaml"),
                root / "out",
                CheckOptions(executor=spec["executor"], workers=spec["workers"]),
                formats=("json",),
            )
            wall = time.perf_counter() - t0
        value = json.loads((root / "out" / "report.json").read_text())["rules"][0]["value"]
    return {
        "wall": wall,
        "rss_self": self_peak_mb(),
        "rss_worker": watch.worker_mb,
        "value": round(value, 6),
        "rss_per_process": [round(self_peak_mb())] + sorted(round(mb) for mb in watch.per_process.values()),
        "private_worker": round(watch.worker_private_mb),
    }


def run_linkage(spec: dict) -> dict:
    from bench.bench_linkage import make_release
    from policycheck.execution.factory import make_executor
    from policycheck.methods.linkage.attack import run_attack
    from policycheck.methods.linkage.reverse_mapping import attribute_order
    from policycheck.release.model import ColumnType

    release = make_release(spec["rows"], 5, 5, seed=0)
    attributes = [c for c in release.columns if c != "secret"]
    orders = {c: attribute_order(c, ColumnType.NUMERIC, release.original.frame[c]) for c in release.columns}
    with PeakWatcher() as watch, make_executor(spec["executor"], spec["workers"], "local") as executor:
        executor.map(abs, [0, 1])
        t0 = time.perf_counter()
        run_attack(
            release,
            "secret",
            attributes,
            "sum",
            orders,
            [np.random.default_rng([1, m]) for m in range(5)],
            executor,
            mapping=spec.get("shape") or "reverse",
        )
        wall = time.perf_counter() - t0
    return {"wall": wall, "rss_self": self_peak_mb(), "rss_worker": watch.worker_mb}


def run_lp(spec: dict) -> dict:
    """One LP reconstruction solve; shape ``4way`` (nonprivate) or ``4+5way-indhist`` (the stress case)."""
    from bench.bench_reconstruction import DATA, run_case
    from policycheck.methods.synthesizers import BUILTIN

    stress = spec.get("shape") == "4+5way-indhist"
    full = pd.read_csv(DATA, keep_default_na=False, na_values=[""])
    original = full.sample(n=1000, random_state=0).reset_index(drop=True)
    synthetic = BUILTIN["indhist" if stress else "nonprivate"](original, 100_000, np.random.default_rng(1))
    result = run_case(original, synthetic, (4, 5) if stress else (4,), spec["rows"])
    return {
        "wall": result["total_s"],
        "rss_self": self_peak_mb(),
        "rss_worker": 0.0,
        "solve_s": round(result["solve_s"], 2),
        "accuracy": round(result["accuracy"], 4),
    }


def run_game(spec: dict) -> dict:
    import tempfile

    from bench.game_policy import game_policy
    from policycheck.interfaces.check import CheckOptions, check_release
    from policycheck.interfaces.demo import write_release
    from policycheck.release.load import load_manifest

    with tempfile.TemporaryDirectory() as folder, PeakWatcher() as watch:
        folder = Path(folder)
        release = load_manifest(write_release("nonprivate", folder, seed=20261121))
        policy = folder / "game.policy.yaml"
        policy.write_text(game_policy(spec["rows"]))
        t0 = time.perf_counter()
        report = check_release(
            policy,
            release,
            folder / "out",
            CheckOptions(executor=spec["executor"], workers=spec["workers"], scheduler="local"),
            formats=("json",),
        )
        wall = time.perf_counter() - t0
    return {
        "wall": wall,
        "rss_self": self_peak_mb(),
        "rss_worker": watch.worker_mb,
        "value": report["rules"][0]["value"],
    }


def run_membership_game(spec: dict) -> dict:
    import resource

    from bench.bench_membership_game import run

    cpu0 = time.process_time()
    # Shape: the synthesizer, and "-30k" for 30,000 + 30,000 records (bootstrapped Adult) instead of 2,000.
    synthesizer, _, size = spec["shape"].partition("-")
    records = int(size.removesuffix("k")) * 1_000 if size else 2_000
    with PeakWatcher() as watch:
        out = run(synthesizer, records, spec["rows"], spec["workers"], spec["executor"])
    # The pool's workers have ended (the executor closed them): their CPU is this process's children's.
    parent = time.process_time() - cpu0
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = parent + children.ru_utime + children.ru_stime
    # The CPU of every process (main() derives from it the most a second worker can buy, whatever the
    # load, which stretches every wall time), and this process's share of it.
    return {
        **out,
        "cpu": round(cpu, 2),
        "parent_cpu_share": round(parent / cpu, 3) if cpu else None,
        "rss_self": self_peak_mb(),
        "rss_worker": watch.worker_mb,
    }


def run_one(spec: dict) -> dict:
    if spec["case"] in ("dcr", "dcr-share") and spec["executor"] == "sure-formula":
        return run_sure_formula(spec)
    if spec["case"] in ("dcr", "dcr-share") and spec["executor"] == "sure":
        return run_sure(spec, spec["peer_python"])
    if spec["case"] in WHOLE_CHECK_CASES:
        import bench.bench_whole_check as whole

        return getattr(whole, WHOLE_CHECK_CASES[spec["case"]])(spec)
    return {
        "dcr": run_dcr,
        "dcr-share": run_dcr,
        "linkage": run_linkage,
        "lp": run_lp,
        "game": run_game,
        "membership-game": run_membership_game,
        "dcr-stream": run_dcr_stream,
        "check-stream": run_check_stream,
    }[spec["case"]](spec)


#: Figures of the whole check's cases printed in the note.
WHOLE_CHECK_NOTES = (
    "wall_1",
    "walls_1",
    "walls_2",
    "cpu_1",
    "cpu_2",
    "speedup",
    "serial_fraction",
    "ceiling",
    "slowest_core_1",
    "slowest_core_2",
    "speedup_clean",
    "clean_runs",
    "steps_1",
    "steps_2",
    "old_wall",
    "old_cpu",
    "new_wall_1",
    "new_cpu_1",
    "new_wall_2",
    "new_cpu_2",
    "cpu_speedup",
    "wall_speedup_2",
    "same_counts",
    "pandas_hash_s",
    "hash_s",
    "same_hashes",
    "vs_30k",
    "cpu_vs_30k",
    "source",
    "verdict",
    "steps",
    "posed",
    "solved",
    "iterations",
    "highs_s",
    "unmerged_highs_s",
    "unmerged_iterations",
    "same_guesses",
    "max_difference",
)

#: The whole check's cases (bench/bench_whole_check.py): case -> function there.
WHOLE_CHECK_CASES = {
    "whole-check": "run_whole_check",
    "mi-bootstrap": "run_mi_bootstrap",
    "demo-policy": "run_demo_policy",
    "lp-sizes": "run_lp_sizes",
    "api-release": "run_api_release",
}


def whole_check_rows(quick: bool, big: bool) -> list[dict]:
    """Rows of the whole check's cases: 300,000 rows (30,000 with --quick); the demo policy from 3,000 up."""

    def row(case, rows, workers=2, executor="local", shape=""):
        return {"case": case, "shape": shape, "rows": rows, "workers": workers, "executor": executor}

    large = 30_000 if quick else 300_000
    sizes = [3_000, 30_000] + ([] if quick else [300_000]) + ([1_000_000] if big else [])
    rows = [row("whole-check", large, shape=ext) for ext in (("csv",) if quick else ("csv", "parquet"))]
    rows.append(row("mi-bootstrap", large, 1, "serial"))
    rows.append(row("api-release", large, 1, "serial"))
    # The demo policy without the membership game's rules at every size (the issue's policy), with them up
    # to 30,000 rows (the game's 300 rounds each synthesize a set as large as the release: --case for 300,000).
    rows += [row("demo-policy", n, shape="no-game") for n in sizes]
    rows += [row("demo-policy", n) for n in sizes if n <= 30_000 or (big and n <= 300_000)]
    rows += [row("lp-sizes", n, 1, "serial") for n in sizes]
    return rows


def plan(quick: bool, million: bool, case: str | None = None) -> list[dict]:
    """The suite's rows. ``--case X`` also runs X's large rows, which the default suite leaves out."""

    def row(case, rows, workers, executor="local", shape=""):
        return {"case": case, "shape": shape, "rows": rows, "workers": workers, "executor": executor}

    big = million or case is not None
    sizes = [5_000, 50_000] if quick else [5_000, 50_000, 500_000] + ([1_000_000] if big else [])
    rows = [row("dcr", n, w, shape="mixed12") for n in sizes for w in (1, 2)]
    peer_size = 5_000 if quick else 10_000
    for shape in SHAPES:
        rows.append(row("dcr-share", peer_size, 2, shape=shape))
        rows.append(row("dcr-share", peer_size, 1, "peer", shape=shape))
        if not quick and shape != "mixed12":
            rows += [row("dcr-share", 50_000, w, shape=shape) for w in (1, 2)]
    linkage_sizes = [10_000] if quick else [100_000] + ([1_000_000] if big else [])
    # Shape: the mapping (a check runs both, on the original and on the holdout records).
    rows += [row("linkage", n, w, shape=m) for n in linkage_sizes for m in ("reverse", "released") for w in (1, 2)]
    rows.append(row("lp", 10_000 if quick else 100_000, 1, "serial", shape="4way"))
    if not quick:
        rows.append(row("lp", 100_000, 1, "serial", shape="4+5way-indhist"))
    reps = 10 if quick else 100
    rows += [row("game", reps, 2, "local"), row("game", reps, 2, "dask")]
    rows += whole_check_rows(quick, big)
    rounds = 40 if quick else 200
    rows += [
        row("membership-game", rounds, w, shape=s) for s in ("nonprivate", "indhist", "indhist_dp") for w in (1, 2)
    ]
    if big:  # a game whose rounds, not its set-up and forests, take most of the time: 300 rounds of 30,000 records
        rows += [row("membership-game", 300, w, shape=f"{s}-30k") for s in ("nonprivate", "indhist_dp") for w in (1, 2)]
    # A synthetic set of 10^7 rows streamed from Parquet (peak memory per process in the note).
    if quick or big:
        rows.append(row("dcr-stream", 1_000_000 if quick else 10_000_000, 2, shape="mixed12"))
    # check itself on a Parquet synthetic set, streamed (the default above one shard) and loaded whole.
    if big:
        rows += [row("check-stream", 2_000_000, 2, shape=s) for s in ("streamed", "in-memory")]
        rows.append(row("check-stream", 10_000_000, 2, shape="streamed"))  # the parent never holds the set
    return rows


def cache_bytecode() -> None:
    """Compile policycheck's modules to cached bytecode, so every row runs as an installed package does.

    Where PYTHONDONTWRITEBYTECODE is set (as on the development machine) nothing writes the cache, and
    each fresh process compiled policycheck's imported sources anew: about 0.2 s of serial time per
    check, which a user's install (pip compiles on install, or Python on first import) never pays.
    """
    import compileall

    compileall.compile_dir(ROOT / "policycheck", quiet=1)


def _run_in_new_process(spec: dict) -> dict:
    """One bench row in a fresh Python process (``--one``): its figures, or the error it ended with."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.run", "--one", json.dumps(spec)], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _probed(spec: dict) -> dict:
    """:func:`_run_in_new_process` between two probes of every core's speed (``cores``: before, after)."""
    before = core_speeds()
    run = _run_in_new_process(spec)
    run["cores"] = [before, core_speeds()]
    return run


def _median_run(runs: list[dict]) -> dict:
    """The run of median wall time, with every run's wall time (``walls``, in run order)."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    median = sorted(runs, key=lambda r: r["wall"])[len(runs) // 2]
    return {**median, "walls": [round(r["wall"], 2) for r in runs]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument(
        "--million",
        action="store_true",
        help="also the large rows: DCR and linkage at 10^6, DCR against 10^7 streamed synthetic rows",
    )
    parser.add_argument("--peer-python", help="a Python with clearbox-sure installed (else SURE's formula in NumPy)")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results.json")
    parser.add_argument("--only", help="run only rows whose case starts with this")
    parser.add_argument(
        "--case",
        help="run only rows of exactly this case (dcr, dcr-share, linkage, lp, game, membership-game, "
        "check-stream, dcr-stream, whole-check, mi-bootstrap, api-release, demo-policy, lp-sizes), its large sizes "
        "included (DCR and linkage at 10^6, the LP stress case, the demo policy at 10^6)",
    )
    parser.add_argument("--rows", type=int, help="with --case: only rows of this size")
    parser.add_argument("--shape", help="with --case: only rows of this shape ('' for none)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(json.loads(args.one))))
        return
    rows = [r for r in plan(args.quick, args.million, args.case) if not args.only or r["case"].startswith(args.only)]
    rows = [r for r in rows if not args.case or r["case"] == args.case]
    rows = [r for r in rows if not args.rows or r["rows"] == args.rows]
    rows = [r for r in rows if args.shape is None or r["shape"] == args.shape]
    cache_bytecode()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    header = (
        f"{'case':<10}{'shape':<16}{'rows':>9}{'workers':>8}  {'executor':<13}{'wall s':>9}{'rss self':>9}"
        f"{'rss worker':>11}{'ratio':>8}  note"
    )
    print(header)
    results, mine, demo_walls = [], {}, {}
    fastest = 0.0  # the fastest core speed probed so far (bench/core_speed.py)
    for spec in rows:
        if spec["executor"] == "peer":
            spec["executor"] = "sure" if args.peer_python else "sure-formula"
            spec["peer_python"] = args.peer_python
        load = os.getloadavg()[0]
        runs = [
            _probed(spec) if spec["case"] == "membership-game" else _run_in_new_process(spec)
            for _ in range(DCR_REPEATS if spec["case"] in REPEATED_CASES else 1)
        ]
        out = runs[0] if len(runs) == 1 else _median_run(runs)
        if spec["case"] == "membership-game" and "wall" in out:
            fastest = max(fastest, fastest_speed(runs))
            # Each run's slowest core against the fastest speed seen, and the median wall of the clean runs;
            # the one-worker row of the pair judged again below, against the same fastest speed as this one.
            out["slowest_core"] = [slowest_share(r["cores"], fastest) for r in runs]
            out["clean_wall"] = clean_wall(runs, fastest)
        out.update(spec, load=round(load, 2), versions=VERSIONS)
        out.pop("peer_python", None)
        key = (spec["case"], spec["shape"], spec["rows"])
        ratio = None
        if spec["executor"].startswith("sure") and key in mine and "wall" in out:
            ratio = out["wall"] / mine[key]
        elif "wall" in out and spec["executor"] != "sure":
            mine[key] = min(mine.get(key, np.inf), out["wall"])
        out["peer_ratio"] = ratio
        results.append(out)
        if spec["case"] == "demo-policy" and "wall" in out:
            demo_walls[(spec["shape"], spec["rows"])] = (out["wall"], out["cpu"])
            base = demo_walls.get((spec["shape"], 30_000))
            if spec["rows"] != 30_000 and base:
                out["vs_30k"] = round(out["wall"] / base[0], 2)
                out["cpu_vs_30k"] = round(out["cpu"] / base[1], 2)
        if spec["case"] == "membership-game" and "wall" in out:
            one = mine.get(("membership-game-1", spec["shape"], spec["rows"]))
            one_cpu = mine.get(("membership-game-1-cpu", spec["shape"], spec["rows"]))
            one_row = mine.get(("membership-game-1-row", spec["shape"], spec["rows"]))
            one_clean = None
            if one_row is not None:  # judged against this row's fastest speed, which may be higher than its own
                one_out, one_runs = one_row
                one_out["slowest_core"] = [slowest_share(r["cores"], fastest) for r in one_runs]
                one_out["clean_wall"] = one_clean = clean_wall(one_runs, fastest)
            if spec["workers"] == 1:
                mine[("membership-game-1", spec["shape"], spec["rows"])] = out["wall"]
                mine[("membership-game-1-cpu", spec["shape"], spec["rows"])] = out["cpu"]
                mine[("membership-game-1-row", spec["shape"], spec["rows"])] = (out, runs)
            elif one_cpu:
                from bench.bench_dcr import cpu_ceiling

                # Against one worker's CPU time: what it would take on an idle machine.
                out["ceiling"] = cpu_ceiling(one_cpu, out["cpu"])
            out["note"] = (
                f"synth {out['synthesizer_s']:.2f} s, features {out['features_s'] + out['training_sets_s']:.2f} s, "
                f"setup {out['setup_wall']:.2f} s, attacks {out['attacks_wall']:.2f} s"
                + (f", own share {out['own_share']:.0%}" if out["own_share"] is not None else "")
                + f", CPU {out['cpu']:.2f} s of which this process {out['parent_cpu_share']:.0%}"
                + (f", speed-up {one / out['wall']:.2f}x" if one and spec["workers"] > 1 else "")
                + (
                    f" ({one_clean / out['clean_wall']:.2f}x over clean runs)"
                    if one_clean and out["clean_wall"] and spec["workers"] > 1
                    else ""
                )
                + (f", ceiling {out['ceiling']:.2f}x" if out.get("ceiling") else "")
                + (f", walls {out['walls']}" if "walls" in out else "")
                + f", slowest core {out['slowest_core']}"
            )
        note = (
            out.get("error")
            or out.get("note")
            or ", ".join(
                f"{k}={v}"
                for k, v in out.items()
                if k
                in (
                    "cpu",
                    "walls",
                    "method",
                    "solve_s",
                    "accuracy",
                    "value",
                    "rss_per_process",
                    "private_worker",
                    "shards",
                    *WHOLE_CHECK_NOTES,
                )
            )
        )
        print(
            f"{spec['case']:<10}{spec['shape']:<16}{spec['rows']:>9}{spec['workers']:>8}  {spec['executor']:<13}"
            f"{out.get('wall', float('nan')):>9.2f}{out.get('rss_self', 0):>9.0f}{out.get('rss_worker', 0):>11.0f}"
            f"{'' if ratio is None else f'{ratio:.1f}x':>8}  {note} (load {load:.1f})",
            flush=True,
        )
    write_results(args.json, results)
    print(f"written: {args.json}")


def library_versions() -> dict[str, str]:
    """The versions the figures were measured with: Python and the libraries the timed steps run in."""
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": sys.version.split()[0]}
    for name in ("numpy", "pandas", "pyarrow", "scipy", "numba", "scikit-learn", "highspy"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


#: Recorded on every row: rows of different runs are merged into one file, and pandas 2 and 3
#: differ by a second on the whole check (docs/performance.md).
VERSIONS = library_versions()


def _row_key(row: dict) -> tuple:
    return tuple(row.get(k) for k in ("case", "shape", "rows", "workers", "executor"))


def write_results(path: Path, results: list[dict]) -> None:
    """Write ``results`` into the JSON at ``path``, replacing only the rows they re-measure.

    A run of one case (``--case``) keeps every other case's rows; each row
    carries the load average it ran under.
    """
    old = json.loads(path.read_text()).get("rows", []) if path.is_file() else []
    fresh = {_row_key(r) for r in results}
    rows = [r for r in old if _row_key(r) not in fresh] + results
    path.write_text(json.dumps({"load_average_start": os.getloadavg(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
