"""Fuzzed data files through check (issue 16, item 6; issue 23 and the harness).

Malformed CSV (ragged rows, duplicate or empty headers, quotes, NUL bytes,
huge and non-finite numbers, bytes that are not UTF-8), Parquet and
Feather with unusual column types (lists, structs, maps, binary,
fixed-size binary, uuid, durations, all-null, dates, decimals, duplicate
names), Parquet written by pandas with its index (shuffled, or named), a
copy of the good file coded otherwise (income as 0/1) or with a column
missing throughout, and files that are no data at all (a FIFO, /dev/zero,
/dev/null, a socket, a folder, a dangling link, a sparse file of 2 GB) are
checked against a cheap policy, as the original, the synthetic set or the
holdout. No file may end in an internal error, hang, read beyond its
allowance or take a gigabyte (harness.run_cli); exit 2 names the file.
"""

from __future__ import annotations

import decimal
import json
import os
import re
from collections import Counter

import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
from harness import DEFAULT_EXAMPLES, FUZZ_EXAMPLES, SPECIAL, check_contract, clear, collector, make_special, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

COUNTS: Counter = Counter()
FAILURES: list = []
EXIT3: list = []
OFFENDERS: list = []
collect = collector(COUNTS, FAILURES)

POLICY = """\
metadata: {id: fuzz-data, title: Fuzz data, version: "1", owner: tests}
attacker: {model: maximum-knowledge, quasi_identifiers: [age, sex], secrets: [income]}
rules:
  - id: copies
    metric: exact_copy_share
    threshold: {fail_above: 0.5}
  - id: dcr
    metric: dcr_share
    threshold: {fail_above: 0.9}
  - id: tvd
    metric: three_way_marginal_tvd
    threshold: {fail_above: 0.9}
"""
GOOD = "age,sex,income\n" + "".join(f"{20 + i},{'MF'[i % 2]},{'<=50K' if i % 3 else '>50K'}\n" for i in range(10))
#: A synthetic set and a holdout of the same kind, each a file of its own (a holdout may be neither).
SYN = "age,sex,income\n" + "".join(f"{22 + i},{'MF'[i % 2]},{'<=50K' if i % 4 else '>50K'}\n" for i in range(10))
HOLD = "age,sex,income\n" + "".join(f"{40 + i},{'FM'[i % 2]},{'<=50K' if i % 3 else '>50K'}\n" for i in range(10))

cells = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        [
            "",
            "NA",
            "nan",
            "inf",
            "-inf",
            "1e308",
            "-1e308",
            "9" * 30,
            "M",
            "F",
            "<=50K",
            ">50K",
            '"quoted, comma"',
            '"unterminated',
            "\x00",
            "é",
            "\ud83d",
            "1,5",
            "  ",
            "True",
            "2024-01-01",
        ]
    ),
    st.text(max_size=5),
)
headers = st.lists(st.sampled_from(["age", "sex", "income", "", "age", "x", "Unnamed: 0", "é"]), min_size=1, max_size=5)
#: Mostly the policy's columns, so the evaluators run; sometimes anything.
columns = st.one_of(*[st.just(["age", "sex", "income"])] * 4, st.just(["age", "sex", "income", "extra"]), headers)


@st.composite
def csv_bytes(draw):
    header = draw(columns)
    width = len(header)
    row = st.one_of(*[st.lists(cells, min_size=width, max_size=width)] * 3, st.lists(cells, max_size=width + 2))
    rows = draw(st.lists(row, min_size=0, max_size=12))
    text = ",".join(header) + "\n" + "".join(",".join(r) + "\n" for r in rows)
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        i = draw(st.integers(0, len(data)))
        data = data[:i] + draw(st.binary(min_size=1, max_size=4)) + data[i:]
    return "csv", data


#: Column kinds; nested columns (list, struct, map) and bytes are refused at load with one line (issues 16 and 23).
KINDS = ["int", "float", "str", "binary", "null", "bool", "date", "decimal", "bigint", "dict"]
NESTED = ["list", "struct", "map", "fixed_binary", "uuid", "duration"]


def _column(draw, n, kinds):
    kind = draw(st.sampled_from(kinds))
    if kind == "int":
        return pa.array(draw(st.lists(st.integers(-(10**9), 10**9) | st.none(), min_size=n, max_size=n)), pa.int64())
    if kind == "bigint":
        return pa.array(draw(st.lists(st.integers(0, 2**64 - 1), min_size=n, max_size=n)), pa.uint64())
    if kind == "float":
        return pa.array(
            draw(st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.none(), min_size=n, max_size=n))
        )
    if kind == "str":
        return pa.array(draw(st.lists(st.text(max_size=4) | st.none(), min_size=n, max_size=n)), pa.string())
    if kind == "list":
        return pa.array(draw(st.lists(st.lists(st.integers(0, 5), max_size=3) | st.none(), min_size=n, max_size=n)))
    if kind == "struct":
        return pa.array([{"a": i, "b": str(i)} for i in range(n)])
    if kind == "map":
        return pa.array([[("k", i)] for i in range(n)], pa.map_(pa.string(), pa.int64()))
    if kind == "fixed_binary":
        return pa.array(draw(st.lists(st.binary(min_size=4, max_size=4), min_size=n, max_size=n)), pa.binary(4))
    if kind == "uuid":
        return pa.array(
            draw(st.lists(st.binary(min_size=16, max_size=16), min_size=n, max_size=n)), pa.binary(16)
        ).cast(pa.uuid())
    if kind == "duration":
        return pa.array(draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n)), pa.duration("s"))
    if kind == "binary":
        return pa.array(draw(st.lists(st.binary(max_size=4), min_size=n, max_size=n)), pa.binary())
    if kind == "null":
        return pa.nulls(n)
    if kind == "bool":
        return pa.array(draw(st.lists(st.booleans() | st.none(), min_size=n, max_size=n)))
    if kind == "date":
        return pa.array(draw(st.lists(st.dates() | st.none(), min_size=n, max_size=n)), pa.date32())
    if kind == "decimal":
        return pa.array([decimal.Decimal(i).scaleb(-2) for i in range(n)], pa.decimal128(10, 3))
    return pa.array(draw(st.lists(st.sampled_from(["M", "F"]), min_size=n, max_size=n))).dictionary_encode()


@st.composite
def parquet_table(draw, kinds):
    n = draw(st.integers(0, 12))
    names = draw(columns)
    if draw(st.integers(0, 9)) == 0:  # duplicate names: Feather and Parquet can hold them
        arrays = [_column(draw, n, kinds) for _ in names]
        return draw(st.sampled_from(["parquet", "feather"])), pa.Table.from_arrays(arrays, names=list(names))
    table = pa.table(
        {f"{name}" if names.count(name) == 1 else f"{name}{i}": _column(draw, n, kinds) for i, name in enumerate(names)}
    )
    return draw(st.sampled_from(["parquet", "feather"])), table


@st.composite
def pandas_parquet(draw):
    """The good rows written by pandas with its index: shuffled (``__index_level_0__``) or named after a column."""
    import io

    frame = pd.read_csv(io.StringIO(GOOD))
    if draw(st.booleans()):
        frame = frame.sample(frac=1, random_state=draw(st.integers(0, 99)))
    index = draw(st.sampled_from([None, "age", "sex", "income", "other"]))
    if index == "other":
        frame.index = pd.Index(range(100, 100 + len(frame)), name="other")
    elif index is not None:
        frame = frame.set_index(index)
    return "pandas-parquet", frame


@st.composite
def recoded(draw):
    """The good rows coded otherwise: income as 0/1, or one column missing in every row."""
    import io

    frame = pd.read_csv(io.StringIO(GOOD))
    column = draw(st.sampled_from(["age", "sex", "income"]))
    if draw(st.booleans()):
        frame[column] = [None] * len(frame)
    else:
        frame[column] = [(i * 7) % 2 for i in range(len(frame))]
    return "recoded", frame


#: Files that are no data: each must be refused at once, unread.
special_files = st.tuples(
    st.just("special"), st.sampled_from(SPECIAL), st.sampled_from(["csv", "csv.gz", "parquet", "feather"])
)

data_files = st.one_of(csv_bytes(), parquet_table(KINDS + NESTED), pandas_parquet(), recoded(), special_files)
all_data_files = st.one_of(
    csv_bytes(),
    csv_bytes(),
    parquet_table(KINDS + NESTED),
    parquet_table(KINDS + NESTED),
    pandas_parquet(),
    recoded(),
    special_files,
)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "p.yaml").write_text(POLICY)
    (tmp_path / "good.csv").write_text(GOOD)
    (tmp_path / "syn.csv").write_text(SYN)
    (tmp_path / "hold.csv").write_text(HOLD)
    return tmp_path


def exercise(project, fuzzed, role):
    kind, content = fuzzed[0], fuzzed[1]
    for old in project.glob("fuzzed.*"):
        clear(old)
    if kind == "special":
        path = project / f"fuzzed.{fuzzed[2]}"
        make_special(content, path)
    elif kind == "csv":
        path = project / "fuzzed.csv"
        path.write_bytes(content)
    elif kind in ("pandas-parquet", "recoded"):
        path = project / ("fuzzed.parquet" if kind == "pandas-parquet" else "fuzzed.csv")
        content.to_parquet(path) if kind == "pandas-parquet" else content.to_csv(path, index=False)
    else:
        path = project / f"fuzzed.{kind}"
        try:
            (feather.write_feather if kind == "feather" else pq.write_table)(content, path)
        except (pa.ArrowException, ValueError, TypeError):
            return  # pyarrow cannot write this table: not a data file
    COUNTS["data files"] += 1
    COUNTS[f"data files: {kind}"] += 1
    if COUNTS["data files"] % 50 == 0:
        flush()
    files = {"original": "good.csv", "synthetic": "syn.csv", "holdout": "hold.csv"}
    files[role] = path.name
    code, _, err = run_cli(
        "check",
        "p.yaml",
        "--original",
        files["original"],
        "--synthetic",
        files["synthetic"],
        "--holdout",
        files["holdout"],
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
        inputs=[project / "p.yaml", *(project / f for f in files.values())],
        counts=COUNTS,
        offenders=OFFENDERS,
    )
    check_contract(code, err, ("p.yaml", path.name, "good.csv", "syn.csv", "hold.csv"), allowed=(0, 1, 2, 3))
    COUNTS[f"check exit {code}"] += 1
    if code == 3:
        EXIT3.append(
            {
                "kind": kind,
                "role": role,
                "error": err.strip()[:300],
                "input": repr(content)[:1500] if kind != "special" else content,
            }
        )
    if code == 2 and os.environ.get("POLICYCHECK_FUZZ_REPORT"):
        COUNTS["exit 2: " + re.sub(r"[0-9'\"].*", "", err.splitlines()[0].split(": ", 1)[-1])[:50]] += 1


roles = st.sampled_from(["original", "synthetic", "holdout"])


@settings(max_examples=DEFAULT_EXAMPLES // 3)
@given(fuzzed=data_files, role=roles)
def test_fuzzed_data_files_end_in_the_contract(project, fuzzed, role):
    exercise(project, fuzzed, role)


@pytest.mark.fuzz
@settings(max_examples=max(1, FUZZ_EXAMPLES // 10), derandomize=False)
@given(fuzzed=all_data_files, role=roles)
def test_many_fuzzed_data_files_end_in_the_contract(project, fuzzed, role):
    collect(exercise, project, fuzzed, role)


def flush():
    """Write the counts so far (a long counting run can be read before it ends)."""
    if os.environ.get("POLICYCHECK_FUZZ_REPORT"):
        with open(f"{os.environ['POLICYCHECK_FUZZ_REPORT']}.data.{os.getpid()}", "w") as fh:
            fh.write(
                json.dumps(
                    {
                        "suite": "data",
                        **COUNTS,
                        "offenders": OFFENDERS[:20],
                        "failures": FAILURES[:20],
                        "exit 3": EXIT3[:50],
                    }
                )
                + "\n"
            )


def teardown_module():
    flush()
