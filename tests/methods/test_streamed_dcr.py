"""The streamed DCR search gives the in-memory search's numbers, shard by shard."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from policycheck.execution.local import LocalProcessExecutor
from policycheck.methods import streamed_dcr
from policycheck.methods.gower import fit_gower
from policycheck.methods.nearest_neighbours import SearchJob, closest_records
from policycheck.methods.streamed_dcr import fit_on_stream, parquet_shards, streamed_closest_records
from policycheck.release.model import ColumnType

TYPES = {"x": ColumnType.NUMERIC, "y": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL, "k": ColumnType.CATEGORICAL}


def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    # Few distinct values, so exact ties between shards are common.
    return pd.DataFrame(
        {
            "x": rng.choice([0.0, 0.5, 1.0, np.nan], n),
            "y": rng.integers(0, 4, n).astype(float),
            "c": rng.choice(["a", "b", "c"], n).astype(object),
            "k": rng.choice(["u", "v"], n).astype(object),
        }
    )


def write_parquet(frame: pd.DataFrame, path, row_group_size: int) -> None:
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=row_group_size)


def test_shards_are_whole_row_groups_of_about_the_asked_rows(tmp_path):
    write_parquet(population(1000, np.random.default_rng(0)), tmp_path / "s.parquet", 150)
    shards = parquet_shards(tmp_path / "s.parquet", shard_rows=400)
    # 6 groups of 150 and one of 100: two groups (300) per shard, since a third would pass 400;
    # the last group of 100 still fits beside the last two (400).
    assert [s.row_groups for s in shards] == [(0, 1), (2, 3), (4, 5, 6)]
    assert [(s.offset, s.rows) for s in shards] == [(0, 300), (300, 300), (600, 400)]


@pytest.mark.parametrize("parallel", [True, False])
def test_streamed_search_equals_the_in_memory_search(tmp_path, monkeypatch, parallel):
    rng = np.random.default_rng(1)
    train, hold, syn = population(300, rng), population(200, rng), population(1000, rng)
    syn.loc[3, "c"] = "only-in-synthetic"  # a level the real sets lack: the stream fit must add it
    syn.loc[5, "x"] = 3.0  # beyond the real sets' range
    write_parquet(syn, tmp_path / "syn.parquet", 128)
    shards = parquet_shards(tmp_path / "syn.parquet", shard_rows=300)
    assert len(shards) > 2
    whole = fit_gower([train, hold, syn], TYPES, {}, list(TYPES))
    streamed_enc = fit_on_stream(fit_gower([train, hold], TYPES, {}, list(TYPES)), shards)
    assert streamed_enc.numeric_range == whole.numeric_range
    assert sorted(streamed_enc.levels["c"]) == sorted(whole.levels["c"])
    enc = streamed_enc
    x_tr, x_ho, x_sy = enc.encode(train), enc.encode(hold), enc.encode(syn)
    expected = closest_records(
        [SearchJob(x_sy, x_tr), SearchJob(x_sy, x_ho), SearchJob(x_tr, x_sy), SearchJob(x_ho, x_sy)], enc.kinds
    )
    if parallel:
        with LocalProcessExecutor(2) as executor:
            to_real, from_real = streamed_closest_records(shards, enc, [x_tr, x_ho], executor)
    else:
        monkeypatch.setattr(streamed_dcr, "SHARDS_PER_WORKER", 1)  # one map call per shard
        to_real, from_real = streamed_closest_records(shards, enc, [x_tr, x_ho])
    for got, want in zip([*to_real, *from_real], expected, strict=True):
        np.testing.assert_array_equal(got.index, want.index)
        assert got.distance.tobytes() == want.distance.tobytes()


def test_ties_across_shards_go_to_the_smallest_synthetic_row(tmp_path):
    train = pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, 0.0], "c": ["a", "b"], "k": ["u", "u"]})
    # Row 1 (shard 0) and rows 2, 3 (shard 1) are copies of training row 0; row 0 of neither.
    syn = pd.DataFrame({"x": [1.0, 0.0, 0.0, 0.0], "y": [0.0] * 4, "c": ["a", "a", "a", "a"], "k": ["u"] * 4})
    write_parquet(syn, tmp_path / "syn.parquet", 2)
    shards = parquet_shards(tmp_path / "syn.parquet", shard_rows=2)
    enc = fit_on_stream(fit_gower([train], TYPES, {}, list(TYPES)), shards)
    _, (train_to,) = streamed_closest_records(shards, enc, [enc.encode(train)])
    assert train_to.index.tolist() == [1, 0]  # row 0 -> synthetic row 1 (distance 0); row 1 -> synthetic 0
    assert train_to.distance.tolist() == [0.0, 0.25]  # row 1 differs from synthetic 0 in c only: 1/4
