"""libyaml's fast path reads a document exactly as ruamel.yaml does, or leaves it to ruamel.yaml.

The contract of :mod:`policycheck.io.yaml_libyaml`: for every text, either it
declines (None) or its data (values and their types) and its marks equal
ruamel.yaml's; and it declines every text ruamel.yaml refuses, so each error
keeps ruamel.yaml's words.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policycheck.core.errors import InvalidInput
from policycheck.io import yaml_libyaml, yaml_ruamel
from policycheck.io.yamlio import parse_yaml

REPO = Path(__file__).resolve().parents[2]


def typed(value):
    """The value with the type of every node, so True and 1 (equal in Python) differ."""
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return (type(value), repr(value))


def assert_same_as_ruamel(text: str) -> bool:
    """Whether the fast path read ``text``; fails if it read it differently from ruamel.yaml."""
    fast = yaml_libyaml.parse_plain(text, "p.yaml")
    try:
        slow = yaml_ruamel.parse(text, "p.yaml")
    except InvalidInput as exc:
        assert fast is None, f"libyaml read a text ruamel.yaml refuses ({exc}): {text!r}"
        return False
    if fast is None:
        return False
    assert typed(fast.data) == typed(slow.data), text
    assert fast.marks == slow.marks, text
    return True


def test_the_patterns_of_typed_scalars_are_ruamels():
    from ruamel.yaml.resolver import implicit_resolvers

    theirs = [regexp.pattern for versions, _tag, regexp, _first in implicit_resolvers if (1, 2) in versions]
    assert list(yaml_libyaml.TYPED_PATTERNS) == theirs


@pytest.mark.parametrize(
    "path", ["policies/demo.policy.yaml", "policies/baseline.policy.yaml", "policies/ledgers/adult.ledger.yaml"]
)
def test_the_demo_policy_its_baseline_and_its_ledger_take_the_fast_path(path):
    assert assert_same_as_ruamel((REPO / path).read_text(encoding="utf-8"))


def test_every_committed_yaml_file_reads_as_ruamel_reads_it():
    files = [
        p
        for pattern in (
            "policies/**/*.yaml",
            "examples/**/*.yaml",
            "reports/**/*.yaml",
            "docs/**/*.yaml",
            "calibration/**/*.yaml",
        )
        for p in REPO.glob(pattern)
    ]
    assert len(files) >= 10
    read = [assert_same_as_ruamel(p.read_text(encoding="utf-8")) for p in files]
    assert sum(read) >= len(files) // 2


SPELLINGS = [
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "Yes",
    "NO",
    "true",
    "True",
    "TRUE",
    "tRue",
    "false",
    "FALSE",
    "null",
    "Null",
    "NULL",
    "nULL",
    "~",
    "",
    ".inf",
    "-.inf",
    ".nan",
    "NaN",
    "inf",
    "1e-6",
    "1.0e-5",
    "1E3",
    "-1.5e+3",
    "1_000",
    "017",
    "0o17",
    "0x1f",
    "0b11",
    "+1",
    "-0",
    "-0.0",
    "1.",
    ".5",
    "+.5",
    "00",
    "0",
    "12",
    "-12",
    "0.05",
    "2027-03-31",
    "2099-02-30",
    "2027-3-31",
    "2027-03-31T10:00:00",
    "2027-03-31 10:00:00Z",
    "12:30",
    "1:20",
    "=",
    "<<",
    "../data/x.csv",
    "1st-4th",
    "5th-6th",
    "%d/%m/%Y",
    "a b",
    "é",
    "x\u2028y",
    "9" * 101,
    "9" * 100,
    "1" + "0" * 400 + ".5",
    "- x",
    "-x",
    "[a]",
    "{a: 1}",
    "'q'",
    '"q"',
    "a # c",
    "|\n  block\n",
    ">-\n  folded\n  text\n",
    '"esc\\u00e9\\n"',
    "'it''s'",
    "!!str 1",
    "!tag x",
    "&a x",
    "*a",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_scalar_reads_as_ruamel_reads_it(spelling):
    assert_same_as_ruamel(f"k: {spelling}\n")
    assert_same_as_ruamel(f"- {spelling}\n- x\n")
    assert_same_as_ruamel(f"{{k: [{spelling}]}}\n")


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # anchors and aliases
        "a: !!str 1\n",  # tags
        "%YAML 1.1\n---\na: yes\n",  # directives (YAML 1.1 makes `yes` true)
        "a: 1\n---\nb: 2\n",  # several documents
        "a: 1\nb: 2\na: 3\n",  # duplicate keys
        "1: a\n",  # a key that is not a string
        "<<: {a: 1}\n",  # merge keys
        "a: 2027-03-31T10:00:00\n",  # time stamps
        "a: 2099-02-30\n",  # impossible dates
        "a: 0x1F\n",  # other integer spellings
        "a: .inf\n",
        "# only a comment\n",  # empty documents
        "~\n",
        "rules: [1, 2\n",  # syntax errors
        "a: " + "[" * 100 + "]" * 100 + "\n",  # deep nesting
        "a: [" + ", ".join(["1"] * 20_001) + "]\n",  # more nodes than the cap
    ],
)
def test_a_document_outside_the_plain_subset_goes_to_ruamel(text):
    assert yaml_libyaml.parse_plain(text, "p.yaml") is None
    assert_same_as_ruamel(text)


def test_errors_keep_ruamels_words():
    with pytest.raises(InvalidInput) as exc:
        parse_yaml("a: 1\nb: 2\na: 3\n", "p.yaml")
    assert str(exc.value.problems[0]) == "p.yaml:3:1: duplicate key 'a'"


def test_marks_are_one_based_positions_of_keys_and_items():
    located = yaml_libyaml.parse_plain("rules:\n  - id: x\n    metric: m\n    on: [a, {b: 1}]\n", "p.yaml")
    assert located.marks == {
        (): (1, 1),
        ("rules",): (1, 1),
        ("rules", 0): (2, 5),
        ("rules", 0, "id"): (2, 5),
        ("rules", 0, "metric"): (3, 5),
        ("rules", 0, "on"): (4, 5),
        ("rules", 0, "on", 0): (4, 10),
        ("rules", 0, "on", 1): (4, 13),
        ("rules", 0, "on", 1, "b"): (4, 14),
    }
    assert located.data == {"rules": [{"id": "x", "metric": "m", "on": ["a", {"b": 1}]}]}


def test_a_date_is_a_date():
    assert yaml_libyaml.parse_plain("expires: 2027-03-31\n", "p.yaml").data == {"expires": dt.date(2027, 3, 31)}


# --- fuzzed documents ---------------------------------------------------------

words = (
    st.sampled_from(SPELLINGS)
    | st.text(max_size=8)
    | st.from_regex(r"[-+]?[0-9]{1,4}(\.[0-9]{1,3})?([eE][-+]?[0-9]{1,3})?", fullmatch=True)
)
keys = st.sampled_from(["id", "metric", "params", "rules", "a", "é", "1", "true", "k k", ""]) | st.text(max_size=5)


def block(node, indent: int = 0) -> str:
    """Block-style YAML of a tree whose leaves are raw scalar spellings."""
    pad = " " * indent
    if isinstance(node, dict):
        return (
            "".join(
                f"{pad}{k}:" + (f"\n{block(v, indent + 2)}" if isinstance(v, (dict, list)) and v else f" {v}\n")
                for k, v in node.items()
            )
            or f"{pad}{{}}\n"
        )
    if isinstance(node, list):
        return (
            "".join(
                f"{pad}-" + (f"\n{block(v, indent + 2)}" if isinstance(v, (dict, list)) and v else f" {v}\n")
                for v in node
            )
            or f"{pad}[]\n"
        )
    return f"{pad}{node}\n"


trees = st.recursive(
    words, lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4), max_leaves=20
)


@st.composite
def garbled(draw):
    text = (REPO / "policies" / "baseline.policy.yaml").read_text(encoding="utf-8")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        piece = draw(st.text(alphabet="&*!%:{}[],-#|>'\"\t\n \x00\u2028\ufeffabc019.~", min_size=1, max_size=4))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        if action == "insert":
            text = text[:i] + piece + text[i:]
        elif action == "delete":
            text = text[:i] + text[i + len(piece) :]
        else:
            text = text[:i] + piece + text[i + len(piece) :]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(trees.map(block), garbled()))
def test_fuzzed_documents_read_as_ruamel_reads_them_or_go_to_it(text):
    assert_same_as_ruamel(text)
