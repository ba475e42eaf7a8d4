"""How wide the DCR share's interval should be: the share over random re-splits of the real records.

With no leakage, which real records are training and which are holdout is a random split of
the same people, so the DCR share's spread over fresh random splits of ``training + holdout``
(same sizes, the synthetic set fixed) is its exact null distribution. This script compares
that spread with the standard deviation of the clusters (``sqrt(p (1 - p) / effective records)``)
and with ``dcr_share``'s own draw of it from nearest sets (``relabelling_sd``), release by
release; docs/metrics.md quotes it.

    python -m calibration.resplits randhie pacsynth-eps1 --releases 6
    python -m calibration.resplits adult copied-20pct --releases 2 --resplits 400

Each release is made as the calibration sweep makes it (seed = its number) and read through
the same manifest; the distances are a dense Gower matrix, so keep to calibration sizes.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

from calibration.datasets import DATASETS
from calibration.releases import BY_NAME
from calibration.run import write_release


def resplit_row(dataset: str, kind: str, seed: int, rows: int, resplits: int) -> dict:
    """One release: its share, the share's spread over re-splits, and the interval's spread."""
    from policycheck.core import stats
    from policycheck.methods.dcr_relabelling import nearest_sets, relabelled_shares
    from policycheck.methods.dcr_share import nearest_real_record
    from policycheck.methods.gower import fit_gower, gower_sums
    from policycheck.release.load import load_manifest

    data = DATASETS[dataset](rows)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data.training.to_csv(root / "training.csv", index=False)
        data.holdout.to_csv(root / "holdout.csv", index=False)
        release = load_manifest(write_release(data, BY_NAME[kind], seed, root / kind, roles=True))
        frames = [release.original.frame, release.holdout.frame, release.synthetic[0].frame]
        enc = fit_gower(frames, release.column_types, release.orders, release.columns)
        training, holdout, synthetic = (enc.encode(f) for f in frames)
    real = np.vstack([training, holdout])
    distance = np.stack([gower_sums(np.repeat(row[None], len(real), 0), real, enc.kinds) for row in synthetic])

    def share(in_training: np.ndarray) -> float:
        to_training = np.where(in_training[None, :], distance, np.inf).min(axis=1)
        to_holdout = np.where(~in_training[None, :], distance, np.inf).min(axis=1)
        closer, farther = int(np.sum(to_training < to_holdout)), int(np.sum(to_training > to_holdout))
        return closer / (closer + farther) if closer + farther else 0.5

    labels = np.arange(len(real)) < len(training)
    rng = np.random.default_rng(seed)
    null = np.array([share(rng.permutation(labels)) for _ in range(resplits)])
    observed = share(labels)
    to_t, to_h = distance[:, : len(training)], distance[:, len(training) :]
    dt, dh = to_t.min(axis=1), to_h.min(axis=1)
    clusters = nearest_real_record(dt, dh, to_t.argmin(axis=1), to_h.argmin(axis=1))
    effective = stats.effective_trials(dt < dh, dt != dh, clusters)
    sets = nearest_sets(synthetic, training, holdout)
    relabelled = None if sets is None else relabelled_shares(sets, len(training), np.random.default_rng(seed))
    return {
        "dataset": dataset,
        "release": kind,
        "seed": seed,
        "share": round(observed, 3),
        "untied": int(np.sum(dt != dh)),
        "effective_records": round(effective, 1),
        "interval_sd": round(float(np.sqrt(observed * (1 - observed) / effective)), 3) if effective else None,
        "resplit_mean": round(float(null.mean()), 3),
        "resplit_sd": round(float(null.std()), 3),
        "resplit_p": float(np.mean(null >= observed)),
        # dcr_share's own draw of the same spread, from nearest sets instead of the dense matrix
        "relabelling_sd": None if relabelled is None else round(float(relabelled.std()), 3),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", choices=sorted(DATASETS))
    parser.add_argument("release", choices=sorted(BY_NAME))
    parser.add_argument("--releases", type=int, default=6, help="releases (seeds 0..N-1)")
    parser.add_argument("--rows", type=int, default=1000, help="training and holdout records each")
    parser.add_argument("--resplits", type=int, default=400, help="random re-splits per release")
    args = parser.parse_args(argv)
    for seed in range(args.releases):
        print(json.dumps(resplit_row(args.dataset, args.release, seed, args.rows, args.resplits)), flush=True)


if __name__ == "__main__":
    main()
