"""Reading one data file: ragged rows, nested Parquet columns, missing values, labels."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from policycheck.core.errors import InvalidInput
from policycheck.release.convert import label, label_categories, to_labels
from policycheck.release.load import build_release, read_table
from policycheck.release.model import SynthesizerInfo


def one_line(exc_info) -> str:
    (problem,) = exc_info.value.problems
    return str(problem)


def test_row_with_too_few_fields_is_refused_with_its_line(tmp_path):
    (tmp_path / "r.csv").write_text("a,b,c\n1,x,2\n2,y\n3,z,4\n")
    with pytest.raises(InvalidInput) as exc:
        read_table(tmp_path / "r.csv")
    assert one_line(exc).endswith(
        "r.csv: line 3 has 2 fields, the header has 3: every row needs one field per "
        "column (an empty field is a missing value)"
    )


def test_row_with_too_many_fields_is_refused_with_its_line(tmp_path):
    (tmp_path / "r.csv").write_text("a,b\n1,x\n2,y\n3,z,4\n")
    with pytest.raises(InvalidInput, match="r.csv: line 4 has 3 fields, the header has 2"):
        read_table(tmp_path / "r.csv")


def test_first_row_with_too_many_fields_is_not_taken_for_an_index(tmp_path):
    (tmp_path / "r.csv").write_text("a,b\n1,x,9\n2,y,9\n")
    with pytest.raises(InvalidInput, match="r.csv: line 2 has 3 fields, the header has 2"):
        read_table(tmp_path / "r.csv")


def test_trailing_empty_fields_are_missing_values_not_short_rows(tmp_path):
    (tmp_path / "r.csv").write_text('a,b,c\n1,x,\n2,"y\nz",\n')
    frame = read_table(tmp_path / "r.csv")
    assert frame["c"].isna().all() and frame["b"].tolist() == ["x", "y\nz"]


def test_parquet_list_column_is_refused(tmp_path):
    table = pa.table({"a": [1, 2], "tags": [[1, 2], [3]]})
    pq.write_table(table, tmp_path / "l.parquet")
    with pytest.raises(InvalidInput) as exc:
        read_table(tmp_path / "l.parquet")
    assert one_line(exc).endswith(
        "l.parquet: column 'tags' holds list<element: int64> values: only flat columns of "
        "numbers, text, booleans or dates can be checked"
    )


def test_parquet_dates_and_nulls_load(tmp_path):
    frame = pd.DataFrame(
        {"d": pd.to_datetime(["1970-01-02", None, "1970-01-04"]), "x": ["a", None, "b"], "n": [1.0, None, 3.0]}
    )
    frame.to_parquet(tmp_path / "p.parquet")
    release = build_release("r", tmp_path / "p.parquet", [(tmp_path / "p.parquet", "s", SynthesizerInfo())])
    loaded = release.original.frame
    assert release.roles == {"d": "datetime", "x": "categorical", "n": "numeric"}
    assert loaded["d"].tolist()[0] == 1.0 and np.isnan(loaded["d"].iloc[1])
    assert loaded["x"].tolist() == ["a", None, "b"] and np.isnan(loaded["n"].iloc[1])


def test_missing_values_load_in_every_column_type(tmp_path):
    (tmp_path / "o.csv").write_text("n,c,d\n1,x,2020-01-01\n,,\nNA,NA,NA\n4,y,2020-01-03\n")
    release = build_release("r", tmp_path / "o.csv", [(tmp_path / "o.csv", "s", SynthesizerInfo())])
    frame = release.original.frame
    assert release.roles == {"n": "numeric", "c": "categorical", "d": "datetime"}
    assert np.isnan(frame["n"].iloc[1]) and np.isnan(frame["n"].iloc[2])
    assert frame["c"].tolist() == ["x", None, "NA", "y"]  # NA is a label in a categorical column
    assert np.isnan(frame["d"].iloc[1]) and np.isnan(frame["d"].iloc[2])


def test_labels_are_those_of_one_conversion_per_cell(tmp_path):
    # The column-at-a-time conversion gives the labels the per-cell one gave: 3.0 and 3 alike.
    series = pd.Series([3.0, 3, 2.5, None, np.nan, "3", True, 10**20], dtype=object)
    assert to_labels(series).tolist() == ["3", "3", "2.5", None, None, "3", "True", "100000000000000000000"]
    assert [label(v) for v in (3.0, 3, 2.5)] == ["3", "3", "2.5"]


def test_label_categories_number_each_label_once_in_order_of_first_appearance():
    # 3.0, 3 and "3" are one label; missing values (None, NaN) are code -1.
    categories = label_categories(pd.Series([3.0, "x", None, 3, np.nan, "3", "y", "x"], dtype=object))
    assert categories.categories.tolist() == ["3", "x", "y"]
    assert categories.codes.tolist() == [0, 1, -1, 0, -1, 0, 2, 1]


def test_float_and_integer_synthetic_columns_share_labels(tmp_path):
    (tmp_path / "o.csv").write_text("code,x\n1,a\n2,b\n3,a\n")
    (tmp_path / "s.csv").write_text("code,x\n1.0,a\n3.0,b\n2.0,b\n")
    from policycheck.release.manifest import ColumnDecl

    release = build_release(
        "r",
        tmp_path / "o.csv",
        [(tmp_path / "s.csv", "s", SynthesizerInfo())],
        columns={"code": ColumnDecl(type="categorical")},
    )
    assert release.synthetic[0].frame["code"].tolist() == ["1", "3", "2"]


def test_byte_order_mark_is_not_part_of_the_first_column_name(tmp_path):
    (tmp_path / "b.csv").write_bytes("\ufeffage,sex\n30,F\n".encode("utf-8"))
    assert read_table(tmp_path / "b.csv").columns.tolist() == ["age", "sex"]


def test_parquet_booleans_with_nulls_are_categorical(tmp_path):
    pq.write_table(pa.table({"b": pa.array([True, None, False]), "x": [1.0, 2.0, 3.0]}), tmp_path / "b.parquet")
    release = build_release("r", tmp_path / "b.parquet", [(tmp_path / "b.parquet", "s", SynthesizerInfo())])
    assert release.roles["b"] == "categorical" and release.original.frame["b"].tolist() == ["True", None, "False"]


def test_parquet_text_of_digits_stays_categorical(tmp_path):
    pd.DataFrame({"zip": ["01234", "01234", "99999"], "n": [1.0, 2.0, 3.0]}).to_parquet(tmp_path / "z.parquet")
    release = build_release("r", tmp_path / "z.parquet", [(tmp_path / "z.parquet", "s", SynthesizerInfo())])
    assert release.roles["zip"] == "categorical" and release.original.frame["zip"].tolist() == [
        "01234",
        "01234",
        "99999",
    ]


def test_parquet_columns_declared_ignore_are_not_read(tmp_path, monkeypatch):
    from policycheck.release.manifest import ColumnDecl

    # A nested column would be refused if it were read; declared ignore, it is left in the file.
    table = pa.table({"age": [30.0, 41.0, 52.0, 23.0], "sex": ["a", "b", "a", "b"], "tags": [[1], [2, 3], [], [4]]})
    for name in ("o", "s"):
        pq.write_table(table, tmp_path / f"{name}.parquet")
    asked = []
    real = pq.read_table
    monkeypatch.setattr(
        pq, "read_table", lambda source, columns=None: asked.append(columns) or real(source, columns=columns)
    )
    release = build_release(
        "r",
        tmp_path / "o.parquet",
        [(tmp_path / "s.parquet", "s", SynthesizerInfo())],
        columns={"tags": ColumnDecl(type="ignore")},
    )
    assert asked == [["age", "sex"], ["age", "sex"]]
    assert release.roles == {"age": "numeric", "sex": "categorical", "tags": "ignore"}
    assert list(release.original.frame.columns) == ["age", "sex"]


# --- issue 23: every format checked alike -----------------------------------------


def _frame(n=12):
    return pd.DataFrame(
        {
            "age": [20 + 3 * i for i in range(n)],
            "sex": ["M", "F"] * (n // 2),
            "income": ["<=50K" if i % 3 else ">50K" for i in range(n)],
        }
    )


def test_parquet_with_a_pandas_index_reads_the_rows_without_the_index(tmp_path):
    shuffled = _frame().sample(frac=1, random_state=3)
    shuffled.to_parquet(tmp_path / "s.parquet")  # stores the shuffled index as __index_level_0__
    frame = read_table(tmp_path / "s.parquet")
    assert list(frame.columns) == ["age", "sex", "income"]
    assert frame["age"].tolist() == shuffled["age"].tolist()
    assert list(frame.index) == list(range(12))


def test_parquet_with_a_named_pandas_index_reads_it_as_a_column(tmp_path):
    _frame().set_index("age").to_parquet(tmp_path / "s.parquet")
    frame = read_table(tmp_path / "s.parquet")
    assert sorted(frame.columns) == ["age", "income", "sex"]
    assert frame["age"].tolist() == _frame()["age"].tolist()


@pytest.mark.parametrize("kind", ["parquet", "feather"])
def test_a_named_range_index_kept_only_in_pandas_metadata_reads_as_its_column(tmp_path, kind):
    # pandas stores a RangeIndex as start/stop/step, not as a column (pandas 3 makes one of set_index("age")
    # when the ages are evenly spaced): 20, 23, ..., 53 must come back as the column "age", first as pandas had it
    frame = _frame().drop(columns="age").set_index(pd.RangeIndex(20, 56, 3, name="age"))
    table = pa.Table.from_pandas(frame)
    assert "age" not in table.schema.names
    frame_read = read_table(_write(kind, table, tmp_path / f"s.{kind}"))
    assert list(frame_read.columns) == ["age", "sex", "income"]
    assert frame_read["age"].tolist() == [20 + 3 * i for i in range(12)]


def test_an_unnamed_range_index_is_not_a_column(tmp_path):
    table = pa.Table.from_pandas(_frame().set_index(pd.RangeIndex(5, 17)))
    assert list(read_table(_write("parquet", table, tmp_path / "s.parquet")).columns) == ["age", "sex", "income"]


def test_a_release_of_pandas_indexed_parquet_files_loads(tmp_path):
    _frame().sample(frac=1, random_state=3).to_parquet(tmp_path / "o.parquet")
    _frame().set_index("sex").to_parquet(tmp_path / "s.parquet")
    release = build_release("r", tmp_path / "o.parquet", [(tmp_path / "s.parquet", "s", SynthesizerInfo())])
    assert list(release.original.frame.columns) == ["age", "sex", "income"]
    assert release.synthetic[0].frame["sex"].tolist() == ["M", "F"] * 6


def _write(kind, table, path):
    import pyarrow.feather as feather

    if kind == "feather":
        feather.write_feather(table, path)
    else:
        pq.write_table(table, path)
    return path


def _columns_of(kind, tmp_path, **columns):
    table = pa.table({"age": list(range(4)), **columns})
    return _write(kind, table, tmp_path / f"s.{kind}")


@pytest.mark.parametrize("kind", ["parquet", "feather"])
@pytest.mark.parametrize(
    "column, words",
    [
        (pa.array([[1], [2], [], None]), "list<"),
        (pa.array([{"a": 1}, {"a": 2}, {"a": 3}, None]), "struct<a: int64>"),
        (pa.array([b"a", b"b", b"c", None], pa.binary()), "binary"),
        (pa.array([b"a", b"b", b"c", None], pa.large_binary()), "large_binary"),
        (pa.array([b"ab", b"cd", b"ef", None], pa.binary(2)), "fixed_size_binary[2]"),
        (pa.array([b"0123456789abcdef"] * 4, pa.binary(16)).cast(pa.uuid()), "extension<arrow.uuid>"),
        (pa.array([[("k", 1)], [], None, [("j", 2)]], pa.map_(pa.string(), pa.int64())), "map<string, int64"),
        (pa.array([1, 2, 3, 4], pa.duration("s")), "duration[s]"),
    ],
)
def test_columns_that_are_not_flat_values_are_refused_alike_in_parquet_and_feather(tmp_path, kind, column, words):
    path = _columns_of(kind, tmp_path, x=column)
    with pytest.raises(InvalidInput) as exc:
        read_table(path)
    # As the file stores the type: Parquet names a list's items "element", Arrow "item".
    assert one_line(exc).startswith(f"s.{kind}: column 'x' holds {words}")
    assert one_line(exc).endswith(" values: only flat columns of numbers, text, booleans or dates can be checked")


@pytest.mark.parametrize("kind", ["parquet", "feather"])
def test_duplicate_column_names_are_refused_alike_in_parquet_and_feather(tmp_path, kind):
    table = pa.Table.from_arrays([pa.array([1, 2]), pa.array(["a", "b"]), pa.array([3, 4])], names=["a", "b", "a"])
    with pytest.raises(InvalidInput) as exc:
        read_table(_write(kind, table, tmp_path / f"d.{kind}"))
    assert one_line(exc) == f"d.{kind}: duplicate column names: ['a']"


def test_a_dataframe_of_lists_or_bytes_is_refused_as_a_file_of_them_is():
    from policycheck.release.memory import InMemoryTable

    for values, words in (([[1], [2]], "list"), ([b"a", b"b"], "binary")):
        with pytest.raises(InvalidInput) as exc:
            read_table(InMemoryTable("frame", pd.DataFrame({"age": [1, 2], "x": values})))
        assert one_line(exc).startswith(f"frame: column 'x' holds {words}")


def test_fixed_size_binary_is_not_read_as_data(tmp_path):
    """A fixed_size_binary or uuid column used to pass as labels (exact_copy_share 0 instead of 0.005)."""
    table = pa.table({"age": [1, 2], "id": pa.array([b"0123456789abcdef"] * 2, pa.binary(16)).cast(pa.uuid())})
    pq.write_table(table, tmp_path / "u.parquet")
    with pytest.raises(InvalidInput, match="column 'id' holds extension<arrow.uuid> values"):
        build_release("r", tmp_path / "u.parquet", [(tmp_path / "u.parquet", "s", SynthesizerInfo())])


def test_a_uuid_column_declared_ignore_is_not_read(tmp_path):
    from policycheck.release.manifest import ColumnDecl

    table = pa.table(
        {
            "age": [1, 2, 3],
            "sex": ["M", "F", "M"],
            "id": pa.array([b"0123456789abcdef"] * 3, pa.binary(16)).cast(pa.uuid()),
        }
    )
    pq.write_table(table, tmp_path / "u.parquet")
    release = build_release(
        "r",
        tmp_path / "u.parquet",
        [(tmp_path / "u.parquet", "s", SynthesizerInfo())],
        columns={"id": ColumnDecl(type="ignore")},
    )
    assert list(release.original.frame.columns) == ["age", "sex"]


def test_an_ordinal_value_outside_the_declared_order_is_named():
    from pathlib import Path

    from policycheck.release.convert import coerce_frame
    from policycheck.release.model import ColumnType

    frame = pd.DataFrame({"edu": ["low", "mid", "x", None, "zz", "low", 3.0]}, dtype=object)
    with pytest.raises(InvalidInput) as exc:
        coerce_frame(
            Path("d.csv"),
            frame,
            {"edu": ColumnType.ORDINAL},
            {"edu": "ordinal"},
            {"edu": ["low", "mid", "high"]},
            {},
            [],
            "original",
        )
    assert (
        str(exc.value.problems[0])
        == "d.csv: ordinal column 'edu' holds values not in its declared order: '3', 'x', 'zz'"
    )
