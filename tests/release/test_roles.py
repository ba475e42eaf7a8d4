"""Column roles: id, ignore and datetime beside numeric/categorical/ordinal."""

import numpy as np
import pandas as pd
import pytest

from policycheck.core.errors import InvalidInput
from policycheck.release.load import build_release, load_manifest
from policycheck.release.manifest import ColumnDecl
from policycheck.release.model import ColumnType, SynthesizerInfo


def people(n=60, seed=0, id_start=1000):
    """n records with a counting id, a date, a comment, and two attributes."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "seqn": np.arange(id_start, id_start + n),
            "visit": [f"2021-03-{1 + i % 28:02d}" for i in range(n)],
            "note": [f"free text {i}" for i in range(n)],
            "age": rng.integers(20, 70, n),
            "sex": rng.choice(["F", "M"], n),
        }
    )


def write_release(tmp_path, original, synthetic=None, columns=""):
    original.to_csv(tmp_path / "o.csv", index=False)
    (synthetic if synthetic is not None else original).to_csv(tmp_path / "s.csv", index=False)
    (tmp_path / "release.yaml").write_text("release: {id: r}\noriginal: o.csv\nsynthetic:\n  - path: s.csv\n" + columns)
    return tmp_path / "release.yaml"


def build(tmp_path, original, columns=None, synthetic=None, metadata=None):
    original.to_csv(tmp_path / "o.csv", index=False)
    (synthetic if synthetic is not None else original).to_csv(tmp_path / "s.csv", index=False)
    return build_release(
        "r", tmp_path / "o.csv", [(tmp_path / "s.csv", "s", SynthesizerInfo())], columns=columns, metadata=metadata
    )


def test_manifest_long_and_short_forms_give_id_ignore_and_datetime(tmp_path):
    manifest = write_release(
        tmp_path, people(), columns="columns:\n  seqn: {type: id}\n  note: ignore\n  visit: datetime\n"
    )
    release = load_manifest(manifest)
    assert release.roles == {
        "seqn": "id",
        "visit": "datetime",
        "note": "ignore",
        "age": "numeric",
        "sex": "categorical",
    }
    assert release.columns == ["visit", "age", "sex"]
    assert release.column_types["visit"] is ColumnType.NUMERIC
    assert release.original.id_frame["seqn"].tolist()[:2] == ["1000", "1001"]


def test_datetime_becomes_days_since_1970(tmp_path):
    frame = pd.DataFrame({"d": ["1970-01-02", "2000-01-01T12:00:00", "", "1969-12-31"], "x": ["a", "b", "a", "b"]})
    release = build(tmp_path, frame)
    days = release.original.frame["d"].tolist()
    # 2000-01-01 is day 10,957 (30 years of 365 days + 7 leap days); noon is half a day.
    assert days[0] == 1.0 and days[1] == 10957.5 and np.isnan(days[2]) and days[3] == -1.0


def test_iso_dates_are_inferred_as_datetime(tmp_path):
    release = build(tmp_path, people(), columns={"seqn": ColumnDecl(type="id"), "note": ColumnDecl(type="ignore")})
    assert release.roles["visit"] == "datetime"
    assert release.original.frame["visit"].iloc[0] == pd.Timestamp("2021-03-01").value / 86_400e9


def test_datetime_with_a_declared_format(tmp_path):
    frame = pd.DataFrame({"d": ["02/01/1970", "01/01/1970"], "x": ["a", "b"]})
    release = build(tmp_path, frame, columns={"d": ColumnDecl(type="datetime", format="%d/%m/%Y")})
    assert release.original.frame["d"].tolist() == [1.0, 0.0]


def test_undeclared_non_iso_date_in_a_declared_datetime_column_names_the_row(tmp_path):
    frame = pd.DataFrame({"d": ["1970-01-02", "03/04/2020"], "x": ["a", "b"]})
    with pytest.raises(InvalidInput, match=r"column 'd' is a datetime but row 3 holds '03/04/2020', not an ISO 8601"):
        build(tmp_path, frame, columns={"d": ColumnDecl(type="datetime")})


def test_undeclared_counting_id_is_refused_with_a_suggestion(tmp_path):
    frame = people().drop(columns=["note"])
    with pytest.raises(InvalidInput) as exc:
        build(tmp_path, frame)
    (problem,) = exc.value.problems
    assert str(problem).endswith(
        "o.csv: column 'seqn' looks like a record identifier (60 distinct values in 60 rows, counting up row by "
        "row): declare it `type: id` (manifest `columns: {seqn: id}` or --column-type seqn=id) to keep it out of "
        "the analysis, or declare its type (numeric, categorical) if it is an attribute"
    )


def test_undeclared_unique_text_is_refused(tmp_path):
    frame = people().drop(columns=["seqn"])
    with pytest.raises(
        InvalidInput, match=r"column 'note' looks like a record identifier \(60 distinct values in 60 rows\)"
    ):
        build(tmp_path, frame)


def test_near_unique_sampling_weight_is_numeric_not_an_id(tmp_path):
    # Like the census's fnlwgt: near-unique integers over a range far wider than the rows.
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"weight": rng.integers(10_000, 1_500_000, 200), "sex": rng.choice(["F", "M"], 200)})
    assert build(tmp_path, frame).roles["weight"] == "numeric"


def test_shuffled_fixed_width_codes_are_an_identifier(tmp_path):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {"pid": rng.choice(np.arange(10_000_000, 99_999_999), 80, replace=False), "sex": rng.choice(["F", "M"], 80)}
    )
    with pytest.raises(
        InvalidInput,
        match=r"'pid' looks like a record identifier \(80 distinct values in 80 rows, every one 8 digits long\)",
    ):
        build(tmp_path, frame)


def test_declared_column_is_not_suspected_of_being_an_id(tmp_path):
    frame = people()
    release = build(tmp_path, frame, columns={"seqn": ColumnDecl(type="numeric"), "note": ColumnDecl(type="ignore")})
    assert release.roles["seqn"] == "numeric"


def test_id_and_ignore_columns_may_be_absent_from_synthetic_sets(tmp_path):
    original = people()
    release = build(
        tmp_path,
        original,
        synthetic=original.drop(columns=["seqn", "note"]),
        columns={"seqn": ColumnDecl(type="id"), "note": ColumnDecl(type="ignore")},
    )
    assert release.synthetic[0].id_frame is None and release.synthetic[0].frame.columns.tolist() == [
        "visit",
        "age",
        "sex",
    ]


def test_numeric_column_with_a_few_odd_values_is_refused_not_retyped(tmp_path):
    frame = pd.DataFrame({"a": [str(i % 40) for i in range(99)] + ["abc"], "b": ["x", "y"] * 50})
    # the synthetic set is the original again: its 'abc' counts too
    with pytest.raises(InvalidInput, match=r"column 'a' is numbers except for 2 values, e.g. row 101: 'abc'"):
        build(tmp_path, frame)


def test_odd_value_is_counted_when_another_file_holds_only_numbers(tmp_path):
    original = pd.DataFrame({"a": [str(i % 40) for i in range(99)] + ["abc"], "b": ["x", "y"] * 50})
    synthetic = pd.DataFrame({"a": [float(i % 40) for i in range(100)], "b": ["x", "y"] * 50})
    with pytest.raises(InvalidInput, match=r"column 'a' is numbers except for 1 value, e.g. row 101: 'abc'"):
        build(tmp_path, original, synthetic=synthetic)


def test_column_missing_in_every_row_is_refused(tmp_path):
    (tmp_path / "o.csv").write_text("a,b\n1,\n2,\n")
    with pytest.raises(InvalidInput, match="column 'b' is missing in every row"):
        build_release("r", tmp_path / "o.csv", [(tmp_path / "o.csv", "s", SynthesizerInfo())])


def test_every_column_id_or_ignore_is_refused(tmp_path):
    frame = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    with pytest.raises(InvalidInput, match="nothing is left to check"):
        build(tmp_path, frame, columns={"a": ColumnDecl(type="id"), "b": ColumnDecl(type="ignore")})


def test_manifest_refuses_format_on_a_non_datetime_column(tmp_path):
    manifest = write_release(tmp_path, people(), columns="columns:\n  age: {type: numeric, format: '%Y'}\n")
    with pytest.raises(InvalidInput, match="`format` is only for datetime columns"):
        load_manifest(manifest)


def test_numbers_in_a_datetime_column_are_dates_by_format_never_nanoseconds(tmp_path):
    frame = pd.DataFrame({"d": [19700102, 19700101], "x": ["a", "b"]})
    release = build(tmp_path, frame, columns={"d": ColumnDecl(type="datetime", format="%Y%m%d")})
    assert release.original.frame["d"].tolist() == [1.0, 0.0]
    with pytest.raises(InvalidInput, match="column 'd' is a datetime but row 3 holds '12345', not an ISO 8601 date"):
        build(tmp_path, frame.assign(d=[19700102, 12345]), columns={"d": ColumnDecl(type="datetime")})


def test_declared_column_not_in_the_data_is_refused(tmp_path):
    with pytest.raises(
        InvalidInput,
        match=r"o.csv: column 'sqen' declared in `columns:` or --column-type is not in the data "
        r"\(did you mean 'seqn'\?\)",
    ):
        build(tmp_path, people(), columns={"sqen": ColumnDecl(type="id")})


def test_an_original_of_numbers_decides_a_column_another_file_fills_half_with_text(tmp_path):
    # 50 of the 150 values read are text, past the odd share that would make the whole column categorical;
    # but every value of the original is a number: the synthetic set's text is its problem, not the column's role.
    original = pd.DataFrame({"a": [str(i % 40) for i in range(100)], "b": ["x", "y"] * 50})
    synthetic = pd.DataFrame({"a": ["old", "12"] * 50, "b": ["x", "y"] * 50})
    with pytest.raises(
        InvalidInput,
        match=r"column 'a' holds only numbers in the original, but 50 values of the files read with it are not, "
        r"e.g. row 2: 'old'",
    ):
        build(tmp_path, original, synthetic=synthetic)


def test_a_column_of_text_in_the_original_too_is_categorical(tmp_path):
    original = pd.DataFrame({"a": ["old", "12"] * 50, "b": ["x", "y"] * 50})
    synthetic = pd.DataFrame({"a": ["old", "13"] * 50, "b": ["x", "y"] * 50})
    release = build(tmp_path, original, synthetic=synthetic)
    assert release.column_types["a"] == "categorical"


def test_counts_from_a_columns_codes_are_its_value_counts_in_order_of_first_appearance():
    from policycheck.release.roles import present_counts_of

    # 1, 1.0 and True are one value to pandas' hash table; None and NaN are missing.
    series = pd.Series(["b", "a", None, 1, 1.0, True, "a", np.nan, "3", 3.0, "b"], dtype=object, name="col")
    counts = present_counts_of(series, pd.factorize(series, use_na_sentinel=True))
    assert list(counts.index) == ["b", "a", 1, "3", 3.0]
    assert list(counts) == [2, 2, 3, 1, 1]
    pd.testing.assert_series_equal(counts, series.value_counts(sort=False))
