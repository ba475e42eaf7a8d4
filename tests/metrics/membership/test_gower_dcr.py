"""The shared intermediate gower_dcr: one Need per synthetic set, equal-size samples, ties, streamed sets."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from policycheck.core.errors import EvaluationError
from policycheck.interfaces.check import CheckOptions, check_release
from policycheck.methods import streamed_dcr
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, Need
from policycheck.release import stream
from policycheck.release.load import load_manifest
from policycheck.report.integrity import without_run_context
from tests.metrics.membership.tiny import HOLDOUT, SYNTHETIC, TRAINING, evaluate, release


def test_every_membership_rule_shares_one_need_per_synthetic_set():
    rel = release(HOLDOUT, SYNTHETIC, TRAINING)
    needs = set()
    for name in ("dcr_share", "mi_risk", "exact_copy_share", "dp_epsilon_excess_membership"):
        spec = registry.get_metric(name)
        needs |= set(spec.needs(spec.params(), rel))
    assert needs == {Need.of("gower_dcr", synthetic=0), Need.of("gower_dcr", synthetic=1)}


def test_restricted_columns_are_part_of_the_need_in_release_order():
    spec = registry.get_metric("dcr_share")
    rel = release(HOLDOUT, SYNTHETIC)
    assert spec.needs(spec.params(columns=["c", "x"]), rel) == [Need.of("gower_dcr", synthetic=0, columns=("x", "c"))]


def test_unequal_training_and_holdout_use_a_seeded_equal_size_sample():
    training = pd.DataFrame({"x": [0.0, 10.0, 5.0], "c": ["a", "b", "b"]})
    rel = release(HOLDOUT, SYNTHETIC, training=training)
    ctx = EvaluationContext(rel, AttackerView("no-box", (), ()), seed=3)
    dcr = registry.compute_intermediate(ctx, Need.of("gower_dcr", synthetic=0))
    sample = dcr.share_subsample
    assert (sample["role"], sample["size"], sample["sample_size"]) == ("original", 3, 2)
    assert set(dcr.syn_to_training_index.tolist()) <= set(sample["rows"].tolist())
    assert dcr.training_to_syn.size == 3
    assert "seeded sample of 2 original records" in dcr.equal_size_note()


def test_missing_holdout_is_an_evaluation_error():
    with pytest.raises(EvaluationError, match="holdout"):
        evaluate("dcr_share", release(None, SYNTHETIC))


def test_ties_in_distance_go_to_the_smallest_index():
    holdout = pd.DataFrame({"x": [5.0, 3.0], "c": ["c", "d"]})
    ctx = EvaluationContext(release(holdout, TRAINING), AttackerView("no-box", (), ()), seed=0)
    dcr = registry.compute_intermediate(ctx, Need.of("gower_dcr", synthetic=0))
    # (5, c) is 0.75 from both (0, a) and (10, b).
    assert dcr.holdout_to_syn[0] == pytest.approx(0.75)
    assert dcr.holdout_to_syn_index[0] == 0


# ---------------------------------------------------------------- a large Parquet set, streamed

STREAMED_POLICY = """\
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
    (folder / "policy.yaml").write_text(STREAMED_POLICY)
    return folder / "release.yaml"


def report(manifest: Path, out: Path, executor: str) -> bytes:
    check_release(
        manifest.parent / "policy.yaml",
        load_manifest(manifest),
        out,
        CheckOptions(executor=executor, workers=2),
        formats=("json",),
    )
    written = without_run_context(json.loads((out / "report.json").read_text()))
    # A streamed set is not read whole to infer roles (its values are converted to them, batch by batch),
    # so the files the roles were inferred from, and only they, differ.
    written["release"].pop("role_sources")
    return json.dumps(written, sort_keys=True).encode()


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
    release_ = load_manifest(manifest)
    check_release(
        manifest.parent / "policy.yaml", release_, tmp_path / "out", CheckOptions(executor="serial"), formats=("json",)
    )
    assert isinstance(release_.synthetic[0], stream.StreamedDataset)
    assert not release_.synthetic[0].loaded
