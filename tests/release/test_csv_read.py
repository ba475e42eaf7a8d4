"""release/csv_read.py: the scan before parsing (UTF-8, line lengths) and files named as CSV that are another format."""

import bz2
import gzip

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policycheck.core.errors import EXIT_INVALID, InvalidInput
from policycheck.release import csv_read
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


def test_non_utf8_csv_is_refused_after_plain_text_blocks(tmp_path):
    # Blocks of plain ASCII are not decoded: the Latin-1 byte in the third block must still be found.
    block = 1 << 20
    text = b"name\n" + b"Ann\n" * (block // 2) + "J\xf6rg\n".encode("latin-1")
    (tmp_path / "l.csv").write_bytes(text)
    at = text.index(b"\xf6")
    with pytest.raises(InvalidInput, match=rf"not valid UTF-8 \(byte {at}\)"):
        read_table(tmp_path / "l.csv")


def test_a_character_split_by_a_block_end_is_valid_utf8_before_plain_text(tmp_path):
    # The first block ends inside a two-byte character; the next block, plain ASCII but for its
    # first byte, completes it: decoded, not skipped as ASCII, and valid.
    block = 1 << 20
    head = b"name\n" + b"a\n" * ((block - 6) // 2) + b"a" * ((block - 6) % 2)
    text = head + "\u00e9\n".encode() + b"Ann\n" * 10
    assert len(head) == block - 1
    (tmp_path / "s.csv").write_bytes(text)
    assert read_table(tmp_path / "s.csv")["name"].iloc[-1] == "Ann"


def test_a_character_cut_short_by_a_block_end_before_plain_text_is_refused(tmp_path):
    # The first block ends with the lead byte of a two-byte character; the next block is all ASCII.
    block = 1 << 20
    head = b"name\n" + b"a\n" * ((block - 6) // 2) + b"a" * ((block - 6) % 2) + b"\xc3"
    (tmp_path / "c.csv").write_bytes(head + b"\nAnn\n")
    # Named at the lead byte, the last of the first block, not at the end of the file.
    with pytest.raises(InvalidInput, match=rf"not valid UTF-8 \(byte {block - 1}\)"):
        read_table(tmp_path / "c.csv")


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_a_line_over_the_cap_is_named_by_its_number_after_many_blocks(tmp_path, monkeypatch, suffix):
    monkeypatch.setattr(csv_read, "MAX_LINE_BYTES", 1_000_000)
    # Header, 300,000 rows of 9 bytes (about three blocks), then row 300,001 of 3 MB: line 300,002.
    text = b"a,b,c\n" + b"1,Male,1\n" * 300_000 + b"2,F," + b"x" * 3_000_000 + b"\n3,M,3\n"
    path = tmp_path / f"long{suffix}"
    path.write_bytes(gzip.compress(text) if suffix.endswith(".gz") else text)
    assert refusal(path)[1] == (f"long{suffix}: line 300002 is longer than 1000000 bytes: it is not a table of records")


# Pieces of text: plain ASCII, whole characters of two to four bytes, and bytes that begin,
# continue or never appear in a UTF-8 character, so that files of them are valid and invalid.
_pieces = st.sampled_from(
    [b"a", b"7,", b"\n", "\u00e9".encode(), "\u20ac".encode(), "\U0001f600".encode()]
    + [b"\xc3", b"\xe2\x82", b"\xa9", b"\xff"]
)


@settings(max_examples=300, deadline=None)
@given(body=st.lists(_pieces, max_size=40).map(b"".join), block=st.integers(1, 9))
def test_the_scan_finds_invalid_utf8_where_python_does_at_any_block_size(tmp_path_factory, body, block):
    text = b"a,b\n" + body
    path = tmp_path_factory.mktemp("scan") / "s.csv"
    path.write_bytes(text)
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as exc:
        expected: str | None = f"data file is not valid UTF-8 (byte {exc.start})"
    else:
        expected = None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(csv_read, "_BLOCK", block)
        try:
            csv_read.scan_csv(path)
        except InvalidInput as exc:
            (problem,) = exc.problems
            assert problem.message == expected
        else:
            assert expected is None
