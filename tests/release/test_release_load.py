import pandas as pd
import pytest

from policycheck.core.errors import InvalidInput
from policycheck.release.load import build_release, load_manifest, read_table
from policycheck.release.manifest import ColumnDecl
from policycheck.release.model import ColumnType, SynthesizerInfo


def one_line(exc_info) -> str:
    (problem,) = exc_info.value.problems
    return str(problem)


def release_with(tmp_path, original: str, synthetic: str | None = None):
    (tmp_path / "o.csv").write_text(original)
    (tmp_path / "s.csv").write_text(synthetic if synthetic is not None else original)
    return build_release("r", tmp_path / "o.csv", [(tmp_path / "s.csv", "s", SynthesizerInfo())])


def test_manifest_declares_files_types_and_synthesizer(toy_release):
    release = load_manifest(toy_release["manifest"])
    assert release.id == "toy-release"
    assert release.column_types == {
        "age": ColumnType.NUMERIC,
        "sex": ColumnType.CATEGORICAL,
        "income": ColumnType.CATEGORICAL,
    }
    assert release.synthetic[0].synthesizer.epsilon == 1.0 and release.synthetic[0].synthesizer.delta == 1e-6
    assert release.holdout is not None and release.holdout.n_rows == 6
    assert len(release.manifest_sha256) == 64


def test_inputs_are_not_modified(toy_release):
    before = {k: p.read_bytes() for k, p in toy_release.items()}
    load_manifest(toy_release["manifest"])
    assert {k: p.read_bytes() for k, p in toy_release.items()} == before


def test_parquet_is_read(tmp_path):
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "x"]})
    frame.to_parquet(tmp_path / "o.parquet")
    release = build_release("r", tmp_path / "o.parquet", [(tmp_path / "o.parquet", "s", SynthesizerInfo())])
    assert release.column_types["a"] is ColumnType.NUMERIC


def test_column_type_override_in_manifest(toy_release):
    text = toy_release["manifest"].read_text() + "columns: {age: categorical}\n"
    toy_release["manifest"].write_text(text)
    assert load_manifest(toy_release["manifest"]).column_types["age"] is ColumnType.CATEGORICAL


def test_empty_csv_is_refused(tmp_path):
    (tmp_path / "e.csv").write_text("")
    with pytest.raises(InvalidInput) as exc:
        read_table(tmp_path / "e.csv")
    assert one_line(exc).endswith("e.csv: data file is empty")


def test_header_only_csv_is_refused(tmp_path):
    (tmp_path / "h.csv").write_text("a,b\n")
    with pytest.raises(InvalidInput, match="has a header but no rows"):
        read_table(tmp_path / "h.csv")


def test_non_utf8_csv_is_refused(tmp_path):
    (tmp_path / "l.csv").write_bytes("name\nJ\xf6rg\nAnn\n".encode("latin-1"))
    with pytest.raises(InvalidInput, match="not valid UTF-8"):
        read_table(tmp_path / "l.csv")


def test_duplicate_column_names_are_refused(tmp_path):
    (tmp_path / "d.csv").write_text("a,a\n1,2\n")
    with pytest.raises(InvalidInput, match=r"duplicate column names: \['a'\]"):
        read_table(tmp_path / "d.csv")


def test_synthetic_set_with_other_columns_is_refused(tmp_path):
    with pytest.raises(InvalidInput) as exc:
        release_with(tmp_path, "a,b\n1,x\n2,y\n", "a,c\n1,x\n2,y\n")
    assert "columns differ from the original: missing columns ['b']; extra columns ['c']" in one_line(exc)


def test_infinite_value_is_refused(tmp_path):
    with pytest.raises(InvalidInput, match="column 'a' holds an infinite value at row 3"):
        release_with(tmp_path, "a,b\n1,x\ninf,y\n")


def test_text_in_a_numeric_column_is_refused_with_its_row(tmp_path):
    with pytest.raises(InvalidInput, match="column 'a' is numeric but row 3 holds 'abc'"):
        build_numeric(tmp_path, "a,b\n1,x\nabc,y\n")


def test_missing_value_words_in_a_numeric_column_are_missing(tmp_path):
    frame = build_numeric(tmp_path, "a,b\n1,x\nNaN,y\nNA,z\n").original.frame
    assert frame["a"].isna().tolist() == [False, True, True]


def build_numeric(tmp_path, text):
    from policycheck.release.manifest import ColumnDecl

    (tmp_path / "o.csv").write_text(text)
    return build_release(
        "r",
        tmp_path / "o.csv",
        [(tmp_path / "o.csv", "s", SynthesizerInfo())],
        columns={"a": ColumnDecl(type="numeric")},
    )


def test_constant_column_is_refused(tmp_path):
    with pytest.raises(InvalidInput, match="column 'b' is constant"):
        release_with(tmp_path, "a,b\n1,x\n2,x\n")


def test_text_column_of_one_value_and_a_missing_cell_is_not_constant(tmp_path):
    release = release_with(tmp_path, "a,b\n1,x\n2,\n3,x\n")
    assert release.roles["b"] == "categorical"


def test_empty_cells_are_missing_values(tmp_path):
    release = release_with(tmp_path, "a,b\n1,x\n,y\n3,\n")
    frame = release.original.frame
    assert pd.isna(frame["a"].iloc[1]) and pd.isna(frame["b"].iloc[2])


def test_manifest_with_unknown_key_points_at_it(toy_release):
    toy_release["manifest"].write_text(toy_release["manifest"].read_text() + "holdot: x.csv\n")
    with pytest.raises(InvalidInput) as exc:
        load_manifest(toy_release["manifest"])
    assert one_line(exc).endswith("release.yaml:7:1: unknown key 'holdot' (did you mean 'holdout'?)")


def manifest_problems(toy_release, old, new):
    """The problems of the toy manifest with ``old`` replaced by ``new``, and the exit code."""
    manifest = toy_release["manifest"]
    text = manifest.read_text()
    assert old in text
    manifest.write_text(text.replace(old, new))
    with pytest.raises(InvalidInput) as exc:
        load_manifest(manifest)
    return exc.value.exit_code, [str(p) for p in exc.value.problems]


def test_a_number_where_the_manifest_wants_a_path_is_told_in_plain_words(toy_release):
    assert manifest_problems(toy_release, "path: synthetic.csv", "path: 5") == (
        2,
        ["release.yaml:5:5: synthetic.path: input should be a valid string (got 5); quote it: '5'"],
    )


def test_a_synthesizer_block_that_is_no_mapping_is_told_so_without_the_models_name(toy_release):
    assert manifest_problems(toy_release, "{name: copy, epsilon: 1.0, delta: 1e-6}", "5") == (
        2,
        ["release.yaml:6:5: synthetic.synthesizer: expected a mapping (key: value) (got 5)"],
    )


@pytest.mark.parametrize(
    ("declared", "problem"),
    [
        pytest.param(
            "numerc",
            "release.yaml:4:11: type: 'numerc' is not one of 'numeric', 'categorical', 'ordinal', 'datetime', "
            "'id' or 'ignore' (did you mean 'numeric'?)",
            id="misspelt type: the nearest type",
        ),
        pytest.param(
            "ordinal",
            "release.yaml:4:11: age: an ordinal column needs `order`: its categories, lowest first",
            id="the column's own check: the column named",
        ),
    ],
)
def test_a_bad_column_declaration_is_one_line_at_its_value(toy_release, declared, problem):
    columns = f"holdout: holdout.csv\ncolumns: {{age: {declared}}}\n"
    assert manifest_problems(toy_release, "holdout: holdout.csv\n", columns) == (2, [problem])


def test_missing_data_file_names_the_file(toy_release):
    toy_release["synthetic"].unlink()
    with pytest.raises(InvalidInput) as exc:
        load_manifest(toy_release["manifest"])
    assert one_line(exc).endswith("synthetic.csv: data file not found")


def test_manifest_that_is_not_a_mapping_is_one_clear_line(tmp_path):
    (tmp_path / "m.yaml").write_text("- original.csv\n")
    with pytest.raises(InvalidInput) as exc:
        load_manifest(tmp_path / "m.yaml")
    assert one_line(exc).endswith("m.yaml: a release manifest must be a YAML mapping (key: value)")


def test_shipped_demo_data_loads_with_every_column_analysed_and_no_findings():
    from conftest import DEMO

    release = build_release("demo", DEMO / "adult_training.csv", [(DEMO / "adult_holdout.csv", "s", SynthesizerInfo())])
    assert set(release.roles.values()) == {"numeric", "categorical"}
    assert release.roles["fnlwgt"] == "numeric"  # near-unique (95.0%) but a sampling weight, not an id
    assert release.findings == []


# --- issue 23, item 9: a holdout or synthetic set unlike the original is a data problem ---------------


def _files(tmp_path, **other):
    rows = 30
    original = pd.DataFrame(
        {
            "age": [20 + i for i in range(rows)],
            "sex": ["M", "F", "F"] * (rows // 3),
            "income": ["<=50K", ">50K", "<=50K"] * (rows // 3),
        }
    )
    original.to_csv(tmp_path / "o.csv", index=False)
    holdout = original.assign(age=original["age"] + 1)
    synthetic = original.assign(age=original["age"] + 2)
    for name, frame in (("h", holdout), ("s", synthetic)):
        for column, values in other.get(name, {}).items():
            frame[column] = values
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    return tmp_path / "o.csv", [(tmp_path / "s.csv", "s", SynthesizerInfo())], tmp_path / "h.csv"


@pytest.mark.parametrize("role", ["h", "s"])
def test_a_column_of_numbers_against_the_originals_text_is_refused(tmp_path, role):
    original, synthetic, holdout = _files(tmp_path, **{role: {"income": [0, 1, 0] * 10}})
    with pytest.raises(InvalidInput) as exc:
        build_release("r", original, synthetic, holdout)
    what = "the holdout" if role == "h" else "synthetic set 's'"
    assert one_line(exc) == (
        f"{role}.csv: column 'income' of {what} holds numbers ('0', '1') and the original text "
        "('<=50K', '>50K'), with no value in common: code both alike"
    )


def test_text_of_digits_against_the_originals_numbers_coded_alike_is_accepted(tmp_path):
    original, synthetic, holdout = _files(tmp_path)
    for name in ("o.csv", "s.csv"):
        (tmp_path / name).write_text((tmp_path / name).read_text().replace(",M,", ",1,").replace(",F,", ",2,"))
    # A Parquet holdout whose writer kept the codes as text: the labels are the same.
    frame = pd.read_csv(holdout)
    frame["sex"] = ["1", "2", "2"] * 10
    frame.to_parquet(tmp_path / "h.parquet")
    release = build_release("r", original, synthetic, tmp_path / "h.parquet", {"sex": ColumnDecl(type="categorical")})
    assert set(release.holdout.frame["sex"]) == {"1", "2"}


def test_a_holdout_column_missing_in_every_row_is_refused(tmp_path):
    original, synthetic, holdout = _files(tmp_path, h={"income": [None] * 30})
    with pytest.raises(InvalidInput) as exc:
        build_release("r", original, synthetic, holdout)
    assert one_line(exc) == (
        "h.csv: column 'income' is missing in every row of the holdout: a holdout "
        "holds real records with the original's columns"
    )


def test_a_holdout_column_missing_only_in_its_first_rows_is_taken(tmp_path):
    original, synthetic, holdout = _files(tmp_path, h={"income": [None, None, ">50K"] * 10})
    release = build_release("r", original, synthetic, holdout)
    assert release.holdout.frame["income"].tolist()[:3] == [None, None, ">50K"]


def test_each_loaded_set_keeps_the_numbering_of_its_categorical_columns_alone(tmp_path):
    original, synthetic, holdout = _files(tmp_path, h={"income": [None, ">50K", "<=50K"] * 10})
    release = build_release(
        "r", original, synthetic, holdout, columns={"income": ColumnDecl(type="ordinal", order=["<=50K", ">50K"])}
    )
    numbered = release.holdout.numbered
    assert list(numbered) == ["sex"]  # the ordinal and the numeric columns are not numbered
    assert list(numbered["sex"].categories) == ["M", "F"]  # in order of first appearance
    assert numbered["sex"].codes.tolist() == [0, 1, 1] * 10
    assert numbered["sex"].categories[numbered["sex"].codes].tolist() == release.holdout.frame["sex"].tolist()


@pytest.mark.parametrize("columns", [12, 120])
def test_a_loaded_frame_takes_a_new_column_without_a_fragmentation_warning(tmp_path, columns):
    # A narrow file keeps each column as its own block (no copy on load); a wide one is stacked, since
    # pandas warns when a column joins a frame of over 100 blocks, as a metric's working copy may.
    import warnings

    import numpy as np

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"x{i}": rng.normal(size=50) for i in range(columns)})
    frame.to_csv(tmp_path / "o.csv", index=False)
    frame.to_csv(tmp_path / "s.csv", index=False)
    release = build_release("r", tmp_path / "o.csv", [(tmp_path / "s.csv", "s", SynthesizerInfo())])
    work = release.original.frame.copy(deep=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        work["added"] = 1.0
    assert list(release.original.frame.columns) == [f"x{i}" for i in range(columns)]
