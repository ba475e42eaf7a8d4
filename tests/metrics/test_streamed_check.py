"""A check streams a large Parquet synthetic set through the DCR search and reports the same numbers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from policycheck.interfaces.check import CheckOptions, check_release
from policycheck.methods import streamed_dcr
from policycheck.release import stream
from policycheck.release.load import load_manifest
from policycheck.report.integrity import without_run_context

POLICY = """\
metadata: {id: streamed, title: Membership on a streamed set, version: "1", owner: tests}
attacker: {model: no-box}
seed: 5
rules:
  - {id: dcr-share, metric: dcr_share, threshold: {fail_above: 0.55}}
  - {id: mi-risk, metric: mi_risk, threshold: {fail_above: 0.2}}
  - {id: exact-copies, metric: exact_copy_share, threshold: {fail_above: 0.01}}
"""


def people(n: int, rng: np.random.Generator) -> pd.DataFrame:
    # Coarse values (many exact ties across row groups), a missing number, a date stored as text.
    age = rng.integers(20, 30, n).astype(float)
    age[rng.random(n) < 0.05] = np.nan
    days = rng.integers(0, 60, n)
    return pd.DataFrame(
        {
            "person_id": rng.choice(np.arange(10**6), n, replace=False),
            "age": age,
            "sex": rng.choice(["F", "M"], n),
            "county": rng.choice(["north", "south", "east", None], n),
            "visit": (pd.Timestamp("2020-01-01") + pd.to_timedelta(days, unit="D")).strftime("%Y-%m-%d"),
        }
    )


@pytest.fixture(scope="module")
def manifest(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("streamed")
    rng = np.random.default_rng(3)
    train, hold = people(300, rng), people(300, rng)
    synthetic = pd.concat([train.sample(200, random_state=1), people(800, rng)], ignore_index=True)
    train.to_csv(folder / "training.csv", index=False)
    hold.to_csv(folder / "holdout.csv", index=False)
    pq.write_table(
        pa.Table.from_pandas(synthetic, preserve_index=False), folder / "synthetic.parquet", row_group_size=130
    )
    (folder / "release.yaml").write_text(
        "release: {id: streamed}\noriginal: training.csv\nholdout: holdout.csv\n"
        "synthetic: [{name: s, path: synthetic.parquet}]\n"
        "columns: {person_id: {type: id}, visit: {type: datetime}}\n"
    )
    (folder / "policy.yaml").write_text(POLICY)
    return folder / "release.yaml"


def report(manifest: Path, out: Path, executor: str) -> bytes:
    check_release(
        manifest.parent / "policy.yaml",
        load_manifest(manifest),
        out,
        CheckOptions(executor=executor, workers=2),
        formats=("json",),
    )
    return json.dumps(without_run_context(json.loads((out / "report.json").read_text())), sort_keys=True).encode()


def test_a_streamed_synthetic_set_gives_the_in_memory_report(manifest, tmp_path, monkeypatch):
    in_memory = report(manifest, tmp_path / "in-memory", "serial")
    calls = []
    search = streamed_dcr.streamed_closest_records
    monkeypatch.setattr(stream, "STREAM_ABOVE_ROWS", 100)
    monkeypatch.setattr(streamed_dcr, "SHARD_ROWS", 300)  # 1,000 rows in groups of 130: 4 shards
    monkeypatch.setattr(
        streamed_dcr,
        "streamed_closest_records",
        lambda shards, *a, **k: calls.append(len(shards)) or search(shards, *a, **k),
    )
    assert report(manifest, tmp_path / "streamed", "serial") == in_memory
    assert calls == [4]
    assert report(manifest, tmp_path / "streamed-local", "local") == in_memory


def test_a_check_of_membership_rules_never_reads_the_streamed_set_whole(manifest, tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "STREAM_ABOVE_ROWS", 100)
    monkeypatch.setattr(stream.ParquetSource, "read", lambda self: pytest.fail("the whole synthetic set was read"))
    release = load_manifest(manifest)
    check_release(
        manifest.parent / "policy.yaml", release, tmp_path / "out", CheckOptions(executor="serial"), formats=("json",)
    )
    assert isinstance(release.synthetic[0], stream.StreamedDataset)
    assert not release.synthetic[0].loaded
