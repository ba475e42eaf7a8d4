"""Malformed CSV data ends in located lines (exit 2) or a release, never another exception."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policycheck.core.errors import InvalidInput
from policycheck.release.load import build_release
from policycheck.release.model import ColumnType, SynthesizerInfo

ODD_CELLS = [
    "",
    "1",
    "2.5",
    "-3",
    "NA",
    "nan",
    "abc",
    "2020-01-01",
    "2020-02-30",
    "1e308",
    "-1e308",
    "inf",
    "99999999999999999999",
    "True",
    '"x,y"',
    '"a\nb"',
    " ",
    "None",
    "2021-05-05T10:00Z",
]
cell = st.one_of(st.sampled_from(ODD_CELLS), st.integers(-5, 5).map(str), st.floats(0, 1).map(lambda f: f"{f:.3f}"))


@st.composite
def csv_text(draw, columns):
    rows = draw(st.lists(st.lists(cell, min_size=columns - 1, max_size=columns + 1), min_size=1, max_size=8))
    return ",".join(f"c{i}" for i in range(columns)) + "\n" + "".join(",".join(r) + "\n" for r in rows)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), columns=st.integers(1, 4), with_holdout=st.booleans())
def test_malformed_csv_is_refused_in_one_line_or_loaded(tmp_path, data, columns, with_holdout):
    for name in ("o", "s", "h"):
        (tmp_path / f"{name}.csv").write_text(data.draw(csv_text(columns)), encoding="utf-8")
    try:
        release = build_release(
            "r",
            tmp_path / "o.csv",
            [(tmp_path / "s.csv", "s", SynthesizerInfo())],
            tmp_path / "h.csv" if with_holdout else None,
        )
    except InvalidInput as exc:
        # Every problem of every file at once (the same column refused in two files is two), each located.
        assert exc.problems
        assert all(str(problem).startswith(("o.csv: ", "s.csv: ", "h.csv: ")) for problem in exc.problems)
        return
    for dataset in release.datasets():
        for column, kind in release.column_types.items():
            assert dataset.frame[column].dtype == (float if kind is ColumnType.NUMERIC else object)
