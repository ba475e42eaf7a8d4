"""Every column problem of every file in one pass, with the declarations that settle them all (issue 25)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from policycheck.core.errors import InvalidInput
from policycheck.release.load import build_release, load_manifest
from policycheck.release.memory import InMemoryTable
from policycheck.release.model import SynthesizerInfo


def survey(n: int, start: int, seed: int) -> pd.DataFrame:
    """A survey extract like the issue's: a counting respondent number and coded answers."""
    rng = np.random.default_rng(seed)
    household = rng.integers(1, 7, n).astype(object)
    household[:3] = "7 or more people in the Household"  # 3 of n: a few odd values
    diabetes = rng.integers(1, 3, n).astype(object)
    diabetes[5] = "Borderline"
    return pd.DataFrame(
        {
            "seqn": np.arange(start, start + n),
            "household_size": household,
            "diabetes": diabetes,
            "served_armed_forces": rng.integers(1, 3, n),
            "sex": rng.choice(["F", "M"], n),
        }
    )


@pytest.fixture
def survey_release(tmp_path):
    train, holdout = survey(200, 1000, 1), survey(200, 2000, 2)
    holdout["served_armed_forces"] = holdout["served_armed_forces"].astype(object)
    holdout.loc[150, "served_armed_forces"] = "Don't Know"  # only the holdout holds it
    train.to_csv(tmp_path / "train.csv", index=False)
    holdout.to_csv(tmp_path / "holdout.csv", index=False)
    train.sample(frac=1, random_state=0).drop(columns="seqn").to_csv(tmp_path / "syn.csv", index=False)
    manifest = tmp_path / "release.yaml"
    manifest.write_text(
        "release: {id: survey}\noriginal: train.csv\nholdout: holdout.csv\nsynthetic:\n  - path: syn.csv\n"
    )
    return manifest


def test_every_column_problem_of_every_file_is_reported_at_once(survey_release):
    with pytest.raises(InvalidInput) as caught:
        load_manifest(survey_release)
    assert [str(p) for p in caught.value.problems] == [
        "train.csv: column 'seqn' looks like a record identifier (200 distinct values in 200 rows, counting up row "
        "by row): declare it `type: id` (manifest `columns: {seqn: id}` or --column-type seqn=id) to keep it out "
        "of the analysis, or declare its type (numeric, categorical) if it is an attribute",
        # 3 odd values in each of the three files
        "train.csv: column 'household_size' is numbers except for 9 values, e.g. row 2: '7 or more people in the "
        "Household'; fix them, or declare the column's type (`type: categorical` reads every value as a label)",
        "train.csv: column 'diabetes' is numbers except for 3 values, e.g. row 7: 'Borderline'; fix them, or "
        "declare the column's type (`type: categorical` reads every value as a label)",
        # inferred from every file: the holdout's answer is named where it is
        "holdout.csv: column 'served_armed_forces' is numbers except for 1 value, e.g. row 152: \"Don't Know\"; "
        "fix them, or declare the column's type (`type: categorical` reads every value as a label)",
    ]


def test_the_problems_come_with_a_columns_block_and_flags_that_settle_them(survey_release):
    with pytest.raises(InvalidInput) as caught:
        load_manifest(survey_release)
    assert caught.value.advice == (
        "4 columns to declare; add to the release manifest (or merge into its columns:):\n"
        "columns:\n"
        "  seqn: id\n"
        "  household_size: categorical\n"
        "  diabetes: categorical\n"
        "  served_armed_forces: categorical\n"
        "or give on the command line:\n"
        "  --column-type seqn=id --column-type household_size=categorical --column-type diabetes=categorical "
        "--column-type served_armed_forces=categorical"
    )


def test_pasting_the_block_settles_every_problem(survey_release):
    with pytest.raises(InvalidInput) as caught:
        load_manifest(survey_release)
    block = caught.value.advice.split("\n", 1)[1].split("\nor give")[0]
    survey_release.write_text(survey_release.read_text() + block + "\n")
    release = load_manifest(survey_release)
    assert release.roles == {
        "seqn": "id",
        "household_size": "categorical",
        "diabetes": "categorical",
        "served_armed_forces": "categorical",
        "sex": "categorical",
    }
    assert release.role_sources["seqn"] == "declared in the manifest"
    assert release.role_sources["sex"] == "inferred from train.csv, holdout.csv, syn.csv"


def test_a_column_name_that_yaml_or_a_shell_would_misread_is_quoted():
    from policycheck.release.load import settling

    assert settling({"age: years": "categorical"}) == (
        "1 column to declare; add to the release manifest (or merge into its columns:):\n"
        'columns:\n  "age: years": categorical\n'
        "or give on the command line:\n  --column-type 'age: years=categorical'"
    )


def test_a_dataframes_bad_value_is_named_by_its_index_label_and_position():
    original = pd.DataFrame({"age": [30, 41, 52, 23], "sex": ["F", "M", "F", "M"]}, index=[10, 11, 12, 13])
    holdout = pd.DataFrame({"age": [33, "old", 40], "sex": ["F", "M", "M"]}, index=["a", "b", "c"])
    with pytest.raises(InvalidInput) as caught:
        build_release(
            "r",
            InMemoryTable("original (DataFrame)", original),
            [(InMemoryTable("s (DataFrame)", original), "s", SynthesizerInfo())],
            InMemoryTable("holdout (DataFrame)", holdout),
            declared_by="api",
        )
    assert [str(p) for p in caught.value.problems] == [
        "holdout (DataFrame): column 'age' is numeric but index label 'b' (position 1) holds 'old'"
    ]


def test_an_extreme_value_of_a_dataframe_is_named_by_its_position():
    original = pd.DataFrame({"age": np.arange(20, 120) % 50 + 20, "sex": ["F", "M"] * 50})
    synthetic = original.copy()
    synthetic["age"] = synthetic["age"].astype(float)
    # 20..69 twice: the bulk (1st to 99th percentile) is 20 to 69, width 49; (1e7 - 69) / 49 = 2.04e5 widths
    synthetic.loc[3, "age"] = 1e7
    release = build_release(
        "r",
        InMemoryTable("original (DataFrame)", original),
        [(InMemoryTable("s (DataFrame)", synthetic), "s", SynthesizerInfo())],
        declared_by="api",
    )
    (finding,) = [f for f in release.findings if "times the width" in f]
    assert finding.startswith("synthetic set 's': column 'age' position 3 holds 1e+07, 2.04e+05 times the width")


def numeric_release(tmp_path, synthetic_age):
    """A release whose undeclared column ``age`` is numbers in the original, ``synthetic_age`` in the synthetic set."""
    pd.DataFrame({"age": [30, 41, 52, 63], "sex": ["F", "M", "F", "M"]}).to_csv(tmp_path / "o.csv", index=False)
    pd.DataFrame({"age": synthetic_age, "sex": ["M", "F", "M", "F"]}).to_csv(tmp_path / "s.csv", index=False)
    with pytest.raises(InvalidInput) as caught:
        build_release("r", tmp_path / "o.csv", [(tmp_path / "s.csv", "s", SynthesizerInfo())], declared_by="flags")
    return caught.value


def test_an_infinite_value_is_refused_without_advising_a_declaration(tmp_path):
    refused = numeric_release(tmp_path, [33, 44, "inf", 66])
    assert refused.exit_code == 2
    assert str(refused) == "s.csv: column 'age' holds an infinite value at row 4"


def test_text_in_a_numeric_column_still_advises_declaring_it_categorical(tmp_path):
    refused = numeric_release(tmp_path, [33, 44, "abc", 66])
    assert refused.advice == (
        "1 column to declare; add to the command line:\n  --column-type age=categorical\n"
        "or, in a release manifest:\ncolumns:\n  age: categorical"
    )


def _dataframe_release(original, synthetic=None):
    synthetic = original if synthetic is None else synthetic
    return build_release(
        "r",
        InMemoryTable("original (DataFrame)", original),
        [(InMemoryTable("s (DataFrame)", synthetic), "s", SynthesizerInfo())],
        declared_by="api",
    )


def test_a_dataframe_column_of_numbers_but_for_a_few_odd_values_is_refused_not_retyped():
    # What pd.read_csv gives for a number column with one stray word: text, as a CSV's own reading would refuse.
    ages = [str(20 + (7 * i) % 43) for i in range(40)]
    ages[6] = "old"
    original = pd.DataFrame({"age": ages, "sex": ["F", "M"] * 20})
    with pytest.raises(InvalidInput) as caught:
        _dataframe_release(original)
    assert [str(p) for p in caught.value.problems] == [
        "original (DataFrame): column 'age' is numbers except for 1 value, e.g. index label 6 (position 6): 'old'; "
        "fix them and give the column a number type, or declare the column's type (`type: categorical` reads "
        "every value as a label)"
    ]


def test_a_dataframe_text_column_of_digits_stays_categorical_as_its_writer_typed_it():
    original = pd.DataFrame({"zip": [f"{(7 * i) % 13:05d}" for i in range(40)], "sex": ["F", "M"] * 20})
    synthetic = original.copy()
    synthetic.loc[3, "zip"] = "A1234"  # one more label, not an odd number
    assert _dataframe_release(original, synthetic).roles["zip"] == "categorical"


def test_a_dataframe_column_of_number_objects_is_numeric():
    original = pd.DataFrame({"age": [float(20 + (7 * i) % 43) for i in range(40)], "sex": ["F", "M"] * 20})
    assert _dataframe_release(original.astype({"age": object})).roles["age"] == "numeric"
