"""A large Parquet synthetic set is checked batch by batch, as a file read whole would be, and never held whole."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from policycheck.core.errors import InvalidInput
from policycheck.release import stream
from policycheck.release.load import load_manifest
from policycheck.release.stream import StreamedDataset


def people(n: int, rng: np.random.Generator, first_id: int = 0) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "person_id": np.arange(first_id, first_id + n),
            "age": rng.integers(20, 60, n).astype(float),
            "sex": rng.choice(["F", "M"], n),
            "visit": pd.Series(
                pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 60, n), unit="D")
            ).dt.strftime("%Y-%m-%d"),
        }
    )


def write_release(folder: Path, synthetic: pd.DataFrame, train: pd.DataFrame) -> Path:
    train.to_csv(folder / "training.csv", index=False)
    pq.write_table(
        pa.Table.from_pandas(synthetic, preserve_index=False), folder / "synthetic.parquet", row_group_size=170
    )
    (folder / "release.yaml").write_text(
        "release: {id: streamed}\noriginal: training.csv\nsynthetic: [{name: s, path: synthetic.parquet}]\n"
        "columns: {person_id: {type: id}, visit: {type: datetime}}\n"
    )
    return folder / "release.yaml"


@pytest.fixture
def small_batches(monkeypatch):
    """Sets of more than 100 rows are streamed, 64 rows at a time."""
    monkeypatch.setattr(stream, "STREAM_ABOVE_ROWS", 100)
    monkeypatch.setattr(stream, "BATCH_ROWS", 64)


def test_a_large_parquet_synthetic_set_is_loaded_as_a_streamed_set(tmp_path, small_batches):
    rng = np.random.default_rng(1)
    train = people(300, rng)
    release = load_manifest(write_release(tmp_path, people(500, rng, 10_000), train))
    syn = release.synthetic[0]
    assert isinstance(syn, StreamedDataset)
    assert (syn.n_rows, syn.columns, syn.loaded) == (500, ["age", "sex", "visit"], False)
    assert [p.offset for p in syn.pieces()] == list(range(0, 500, 64))


def test_a_streamed_set_reads_whole_only_when_asked_and_gives_the_loaders_values(tmp_path, small_batches, monkeypatch):
    rng = np.random.default_rng(2)
    train, synthetic = people(300, rng), people(500, rng, 10_000)
    streamed = load_manifest(write_release(tmp_path, synthetic, train)).synthetic[0]
    monkeypatch.setattr(stream, "STREAM_ABOVE_ROWS", 10**9)
    whole = load_manifest(tmp_path / "release.yaml").synthetic[0]
    assert not isinstance(whole, StreamedDataset)
    pd.testing.assert_frame_equal(streamed.frame, whole.frame)
    assert streamed.loaded
    assert (
        streamed.frame["visit"].iloc[0] == (pd.Timestamp(synthetic["visit"].iloc[0]) - pd.Timestamp("1970-01-01")).days
    )


def test_a_bad_value_in_a_later_batch_is_refused_with_its_row_in_the_file(tmp_path, small_batches):
    rng = np.random.default_rng(3)
    synthetic = people(500, rng, 10_000)
    synthetic["age"] = synthetic["age"].map("{:.0f}".format)  # numbers stored as text, as some exports do
    synthetic.loc[300, "age"] = "forty"
    manifest = write_release(tmp_path, synthetic, people(300, rng))
    with pytest.raises(InvalidInput) as refused:
        load_manifest(manifest)
    # Row 300 (0-based) is line 302 of a file with a header, as in a file read whole.
    assert "column 'age' is numeric but row 302 holds 'forty'" in str(refused.value)


def test_a_streamed_set_missing_a_column_is_refused_before_any_row_is_read(tmp_path, small_batches):
    rng = np.random.default_rng(4)
    manifest = write_release(tmp_path, people(500, rng, 10_000).drop(columns="sex"), people(300, rng))
    with pytest.raises(InvalidInput) as refused:
        load_manifest(manifest)
    assert "columns differ from the original: missing columns ['sex']" in str(refused.value)


def test_a_streamed_set_gets_the_same_findings_as_the_set_read_whole(tmp_path, small_batches, monkeypatch):
    rng = np.random.default_rng(5)
    train = people(300, rng)
    synthetic = people(500, rng, 10_000)
    synthetic.loc[[20, 410], "person_id"] = [7, 8]  # ids of original records, in two batches
    synthetic.loc[410, ["age", "sex", "visit"]] = train.loc[8, ["age", "sex", "visit"]].to_numpy()  # and a copy
    synthetic.loc[350, "age"] = 1e7  # far beyond the original's ages
    manifest = write_release(tmp_path, synthetic, train)
    streamed = load_manifest(manifest)
    monkeypatch.setattr(stream, "STREAM_ABOVE_ROWS", 10**9)
    whole = load_manifest(manifest)
    assert isinstance(streamed.synthetic[0], StreamedDataset) and not streamed.synthetic[0].loaded
    assert streamed.findings == whole.findings
    assert streamed.findings == [
        "synthetic set 's': 2 of 500 rows (0.4%) carry the id of an original record in id column 'person_id', and 1 "
        "of them equal that record in every analysed column; an id shared with the original publishes that the "
        "person was in the data: give synthetic records new ids",
        # (1e7 - 59) / (59 - 20) = 256,408.7 widths beyond the bulk of ages 20 to 59
        "synthetic set 's': column 'age' row 352 holds 1e+07, 2.56e+05 times the width of the original's central "
        "98% (20 to 59) beyond it, and 1 value in all that far out; it stretches the column's Gower range, "
        "shrinking every other difference in it",
    ]


def test_a_streamed_set_empty_in_a_column_gets_the_finding_of_the_set_read_whole(tmp_path, small_batches, monkeypatch):
    rng = np.random.default_rng(6)
    synthetic = people(500, rng, 10_000).assign(age=np.nan)
    manifest = write_release(tmp_path, synthetic, people(300, rng))
    streamed = load_manifest(manifest)
    monkeypatch.setattr(stream, "STREAM_ABOVE_ROWS", 10**9)
    whole = load_manifest(manifest)
    assert isinstance(streamed.synthetic[0], StreamedDataset) and not streamed.synthetic[0].loaded
    assert (
        streamed.findings
        == whole.findings
        == [
            "synthetic set 's' holds no value in column 'age' (empty in all 500 records): the release says nothing of "
            "it, and every distance to its records counts it as a difference from a record holding a value"
        ]
    )


def test_a_streamed_set_described_anew_is_still_not_read_whole(tmp_path, small_batches):
    rng = np.random.default_rng(6)
    syn = load_manifest(write_release(tmp_path, people(500, rng, 10_000), people(300, rng))).synthetic[0]
    renamed = syn.with_synthesizer(dataclasses.replace(syn.synthesizer, name="copula"))
    assert (renamed.synthesizer.name, renamed.n_rows, renamed.loaded, syn.loaded) == ("copula", 500, False, False)


def test_a_streamed_set_restores_a_named_range_index_batch_by_batch(tmp_path, small_batches):
    rng = np.random.default_rng(4)
    train, synthetic = people(300, rng), people(500, rng, 10_000)
    # person_id 10,000..10,499 kept by pandas only as a RangeIndex's start and step
    table = pa.Table.from_pandas(
        synthetic.set_index(pd.RangeIndex(10_000, 10_500, name="person_id")).drop(columns="person_id")
    )
    assert "person_id" not in table.schema.names
    manifest = write_release(tmp_path, synthetic, train)
    pq.write_table(table, tmp_path / "synthetic.parquet", row_group_size=170)
    syn = load_manifest(manifest).synthetic[0]
    assert isinstance(syn, StreamedDataset)
    ids = pd.concat([piece.ids for piece in syn.pieces()])
    assert ids["person_id"].tolist() == [str(i) for i in range(10_000, 10_500)]  # ids are read as labels


def test_a_streamed_set_copying_holdout_records_is_refused_as_the_set_read_whole_is(
    tmp_path, small_batches, monkeypatch
):
    rng = np.random.default_rng(8)
    train, holdout = people(300, rng), people(300, rng, 5_000)
    # 100 holdout records among 500 synthetic ones, spread over the batches of 64 rows.
    synthetic = people(500, rng, 10_000)
    synthetic.loc[::5, ["age", "sex", "visit"]] = holdout.loc[:99, ["age", "sex", "visit"]].to_numpy()
    manifest = write_release(tmp_path, synthetic, train)
    holdout.to_csv(tmp_path / "holdout.csv", index=False)
    manifest.write_text(manifest.read_text() + "holdout: holdout.csv\n")
    with pytest.raises(InvalidInput) as streamed:
        load_manifest(manifest)
    monkeypatch.setattr(stream, "STREAM_ABOVE_ROWS", 10**9)
    with pytest.raises(InvalidInput) as whole:
        load_manifest(manifest)
    assert str(streamed.value) == str(whole.value)
    # Counted by hand: the copies, and the random records that land on a holdout-only record too.
    columns = ["age", "sex", "visit"]
    holdout_only = set(map(tuple, holdout[columns].values)) - set(map(tuple, train[columns].values))
    copies = sum(row in holdout_only for row in map(tuple, synthetic[columns].values))
    assert copies >= 100
    assert f"synthetic set 's': {copies} of its 500 rows ({copies / 500:.1%}) copy a holdout record that no " in str(
        whole.value
    )
