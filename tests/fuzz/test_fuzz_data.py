"""Fuzzed data files through check (issue 16, item 6 and the harness).

Malformed CSV (ragged rows, duplicate or empty headers, quotes, NUL bytes,
huge and non-finite numbers, bytes that are not UTF-8) and Parquet with
unusual column types (lists, structs, binary, all-null, dates, decimals)
are checked against a cheap policy, as the original, the synthetic set or
the holdout. No file may end in an internal error; exit 2 names the file.
"""

from __future__ import annotations

import decimal
import json
import os
import re
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import DEFAULT_EXAMPLES, FUZZ_EXAMPLES, check_contract, collector, run_cli

COUNTS: Counter = Counter()
FAILURES: list = []
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

cells = st.one_of(
    st.integers(-10**6, 10**6).map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", "NA", "nan", "inf", "-inf", "1e308", "-1e308", "9" * 30, "M", "F", "<=50K", ">50K",
                     '"quoted, comma"', '"unterminated', "\x00", "é", "\ud83d", "1,5", "  ", "True", "2024-01-01"]),
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


#: Column kinds; nested columns (list, struct) are refused at load with one line (issue 16, item 6).
KINDS = ["int", "float", "str", "binary", "null", "bool", "date", "decimal", "bigint", "dict"]
NESTED = ["list", "struct"]


def _column(draw, n, kinds):
    kind = draw(st.sampled_from(kinds))
    if kind == "int":
        return pa.array(draw(st.lists(st.integers(-10**9, 10**9) | st.none(), min_size=n, max_size=n)), pa.int64())
    if kind == "bigint":
        return pa.array(draw(st.lists(st.integers(0, 2**64 - 1), min_size=n, max_size=n)), pa.uint64())
    if kind == "float":
        return pa.array(draw(st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.none(), min_size=n, max_size=n)))
    if kind == "str":
        return pa.array(draw(st.lists(st.text(max_size=4) | st.none(), min_size=n, max_size=n)), pa.string())
    if kind == "list":
        return pa.array(draw(st.lists(st.lists(st.integers(0, 5), max_size=3) | st.none(), min_size=n, max_size=n)))
    if kind == "struct":
        return pa.array([{"a": i, "b": str(i)} for i in range(n)])
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
    return "parquet", pa.table({f"{name}" if names.count(name) == 1 else f"{name}{i}": _column(draw, n, kinds)
                                for i, name in enumerate(names)})


data_files = st.one_of(csv_bytes(), parquet_table(KINDS + NESTED))
all_data_files = st.one_of(csv_bytes(), parquet_table(KINDS + NESTED))


@pytest.fixture
def project(tmp_path):
    (tmp_path / "p.yaml").write_text(POLICY)
    (tmp_path / "good.csv").write_text(GOOD)
    return tmp_path


def exercise(project, fuzzed, role):
    kind, content = fuzzed
    path = project / f"fuzzed.{kind}"
    if kind == "csv":
        path.write_bytes(content)
    else:
        try:
            pq.write_table(content, path)
        except (pa.ArrowException, ValueError):
            return  # pyarrow cannot write this table: not a data file
    COUNTS["data files"] += 1
    if COUNTS["data files"] % 50 == 0:
        flush()
    files = {"original": "good.csv", "synthetic": "good.csv", "holdout": "good.csv"}
    files[role] = path.name
    code, _, err = run_cli("check", "p.yaml", "--original", files["original"], "--synthetic", files["synthetic"],
                           "--holdout", files["holdout"], "-o", "out", "-q", "--executor", "serial")
    check_contract(code, err, ("p.yaml", path.name, "good.csv"), allowed=(0, 1, 2, 3))
    COUNTS[f"check exit {code}"] += 1
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
            fh.write(json.dumps({"suite": "data", **COUNTS, "failures": FAILURES[:20]}) + "\n")


def teardown_module():
    flush()
