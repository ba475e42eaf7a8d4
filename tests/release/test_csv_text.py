"""csv_text writes what ``frame.to_csv(index=False, lineterminator="\\n")`` writes, on every frame."""

from __future__ import annotations

import hashlib
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policycheck.release import csv_text as module
from policycheck.release.csv_text import csv_text


def pandas_text(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False, lineterminator="\n")


def test_a_mixed_frame_is_composed_here_with_pandas_text(monkeypatch):
    frame = pd.DataFrame(
        {
            "age": [40.5, np.nan, -0.0, 1e16, 5e-324, np.inf, 1 / 3],
            "visits": np.array([1, 2, 3, -4, 5, 6, 2**62], dtype=np.int64),
            "smoker": [True, False, True, True, False, False, True],
            "region": ["north", None, "", " south ", "Zürich", np.nan, "7"],
            "code": pd.Series(["a", pd.NA, "b", "c", "d", "e", "f"], dtype="string"),
        }
    )
    expected = (
        "age,visits,smoker,region,code\n"
        "40.5,1,True,north,a\n"
        ",2,False,,\n"
        "-0.0,3,True,,b\n"
        "1e+16,-4,True, south ,c\n"
        "5e-324,5,False,Zürich,d\n"
        "inf,6,False,,e\n"
        "0.3333333333333333,4611686018427387904,True,7,f\n"
    )
    assert pandas_text(frame) == expected
    monkeypatch.setattr(pd.DataFrame, "to_csv", None)  # composed here: pandas' writer is never called
    assert csv_text(frame) == expected


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"day": pd.to_datetime(["2020-01-01", "2020-01-02"]), "x": [1.0, 2.0]}),
        pd.DataFrame({"n": pd.array([1, None], dtype="Int64"), "x": [1.0, 2.0]}),
        pd.DataFrame({"c": pd.Categorical(["a", "b"]), "x": [1.0, 2.0]}),
        pd.DataFrame({"mixed": ["a", 1], "x": [1.0, 2.0]}),
        pd.DataFrame({"x": np.array([0.1, 0.2], dtype=np.float32), "y": [1, 2]}),
        pd.DataFrame({"only": ["", "a"]}),  # one column: pandas quotes the empty row
        pd.DataFrame({1: [1.0], 2: [2.0]}),  # names that are not text
        pd.DataFrame({"a,b": [1.0], "c": [2.0]}),
    ],
    ids=[
        "dates",
        "nullable integers",
        "categories",
        "mixed objects",
        "float32",
        "one column",
        "integer names",
        "quoted name",
    ],
)
def test_a_frame_left_to_pandas_gets_pandas_text(frame):
    assert csv_text(frame) == pandas_text(frame)


@pytest.mark.parametrize("field", ["a,b", 'say "hi"', "two\nlines", "carriage\rreturn"])
def test_rows_with_a_field_the_writer_quotes_are_written_by_pandas_chunk_by_chunk(monkeypatch, field):
    monkeypatch.setattr(module, "CHUNK_ROWS", 2)
    frame = pd.DataFrame({"note": ["a", "b", field, "d", "e"], "x": [1.0, 2.5, np.nan, 4.0, 5.0]})
    written = []
    module.write_csv(frame, written.append)
    # header, rows 1-2 composed here, rows 3-4 by pandas (they hold the quoted field), row 5 here
    assert written[:2] == ["note,x\n", "a,1.0\nb,2.5\n"] and written[-1] == "e,5.0\n"
    assert "".join(written) == pandas_text(frame)


def test_the_sha256_is_that_of_pandas_text_in_utf8():
    frame = pd.DataFrame({"city": ["Zürich", "Łódź"], "x": [1.5, np.nan]})
    assert module.csv_sha256(frame) == hashlib.sha256(pandas_text(frame).encode("utf-8")).hexdigest()


def test_float_repr_is_numpys_text_of_every_double():
    # pandas writes float64 as NumPy's astype(str); csv_text uses repr: the same on any bit pattern.
    bits = np.random.default_rng(20261127).integers(0, 2**64, 200_000, dtype=np.uint64, endpoint=False)
    values = bits.view(np.float64)
    values = values[np.isfinite(values)]
    assert values.astype(str).tolist() == list(map(repr, values.tolist()))


texts = st.one_of(st.none(), st.just(np.nan), st.text(alphabet=st.characters(codec="utf-8"), max_size=6))
frames = st.integers(min_value=1, max_value=8).flatmap(
    lambda n: st.fixed_dictionaries(
        {
            "f": st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=n, max_size=n),
            "i": st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1), min_size=n, max_size=n),
            "b": st.lists(st.booleans(), min_size=n, max_size=n),
            "t": st.lists(texts, min_size=n, max_size=n),
            "s": st.lists(st.one_of(st.none(), st.text(max_size=4)), min_size=n, max_size=n),
        }
    )
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames)
def test_csv_text_equals_pandas_text_on_any_frame(columns):
    frame = pd.DataFrame(
        {
            "f": np.array(columns["f"], dtype=np.float64),
            "i": np.array(columns["i"], dtype=np.int64),
            "b": np.array(columns["b"], dtype=bool),
            "t": pd.Series(columns["t"], dtype=object),
            "s": pd.Series(columns["s"], dtype="string"),
        }
    )
    with mock.patch.object(module, "CHUNK_ROWS", 3):  # frames of several chunks, a quoted field in any
        assert csv_text(frame) == pandas_text(frame)
