"""release/csv_read.py: a file named as CSV text that is another format is named for what it is."""

import bz2
import gzip

import pandas as pd
import pytest

from policycheck.core.errors import EXIT_INVALID, InvalidInput
from policycheck.release.read import read_table

CSV = b"age,sex\n30,F\n41,M\n"


def refusal(path):
    with pytest.raises(InvalidInput) as exc:
        read_table(path)
    (problem,) = exc.value.problems
    return exc.value.exit_code, str(problem)


def test_a_gzip_file_named_csv_is_told_to_be_named_csv_gz(write):
    path = write("s.csv", gzip.compress(CSV))
    assert refusal(path) == (EXIT_INVALID, "s.csv: data file looks gzip-compressed: name it .csv.gz")


def test_a_bz2_file_named_tsv_is_told_to_be_named_tsv_bz2(write):
    path = write("s.tsv", bz2.compress(CSV.replace(b",", b"\t")))
    assert refusal(path) == (EXIT_INVALID, "s.tsv: data file looks bz2-compressed: name it .tsv.bz2")


def test_a_parquet_file_named_csv_is_told_to_be_named_parquet(tmp_path):
    pd.DataFrame({"age": [30, 41]}).to_parquet(tmp_path / "s.csv")
    assert refusal(tmp_path / "s.csv") == (EXIT_INVALID, "s.csv: data file looks like a Parquet file: name it .parquet")


def test_a_csv_whose_first_column_is_named_like_a_magic_number_is_read_as_csv(write):
    frame = read_table(write("s.csv", b"PAR1,BZh91AY&SY\n1,2\n"))
    assert list(frame.columns) == ["PAR1", "BZh91AY&SY"]
