import warnings

import pytest

from policycheck.core.errors import InvalidInput
from policycheck.io.yamlio import load_yaml, parse_yaml


def test_scientific_notation_is_a_number():
    assert parse_yaml("delta: 1e-6\n", "p.yaml").data == {"delta": 1e-6}


def test_no_stays_a_string():
    assert parse_yaml("answer: no\n", "p.yaml").data == {"answer": "no"}


def test_duplicate_key_is_an_error_with_its_position():
    with pytest.raises(InvalidInput) as exc:
        parse_yaml("a: 1\nb: 2\na: 3\n", "p.yaml")
    assert str(exc.value.problems[0]) == "p.yaml:3:1: duplicate key 'a'"


def test_alias_bomb_is_refused():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=False):
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]")
    with pytest.raises(InvalidInput, match="alias bomb"):
        parse_yaml("\n".join(lines), "bomb.yaml")


def test_malformed_yaml_names_line_and_column():
    with pytest.raises(InvalidInput) as exc:
        parse_yaml("rules: [1, 2\n", "p.yaml")
    problem = exc.value.problems[0]
    assert (problem.file, problem.line) == ("p.yaml", 2)
    assert "invalid YAML" in problem.message


def test_positions_of_keys_and_items_are_one_based():
    located = parse_yaml("rules:\n  - id: x\n    metric: m\n", "p.yaml")
    assert located.marks[("rules", 0, "metric")] == (3, 5)


def test_non_utf8_file_is_one_clear_line(write):
    path = write("latin1.yaml", "owner: J\xf6rg\n".encode("latin-1"))
    with pytest.raises(InvalidInput, match="not valid UTF-8"):
        load_yaml(path)


def test_empty_file_is_an_error(write):
    with pytest.raises(InvalidInput, match="empty"):
        load_yaml(write("empty.yaml", "# only a comment\n"))


def test_missing_file_is_an_error(tmp_path):
    with pytest.raises(InvalidInput, match="not found"):
        load_yaml(tmp_path / "nope.yaml")


def test_mapping_as_a_key_is_a_located_error_not_unhashable():
    # Found by the policy fuzz suite: a rule followed by ":" in a flow list makes the
    # rule a key, and ruamel then hashed a mapping inside it (TypeError: unhashable type: 'CommentedMap').
    with pytest.raises(InvalidInput) as exc:
        parse_yaml('{"rules": [{"id": "x", "threshold": {"fail_above": 1}}: 1]}\n', "p.yaml")
    assert [str(p) for p in exc.value.problems] == [
        "p.yaml:1:12: invalid YAML: a mapping key must be a name or a number, not a mapping or a list"
    ]


def test_nested_complex_key_is_a_located_error():
    with pytest.raises(InvalidInput) as exc:
        parse_yaml("? - ? a\n", "p.yaml")
    assert str(exc.value.problems[0]).startswith("p.yaml:1:")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("seed: !!int\n", "p.yaml:1:7: invalid YAML: an empty value cannot be read as !!int"),
        ("flag: !!bool 11\n", "p.yaml:1:7: invalid YAML: '11' cannot be read as !!bool"),
        ("confidence: !!float x\n", "p.yaml:1:13: invalid YAML: 'x' cannot be read as !!float"),
    ],
)
def test_value_its_tag_cannot_hold_is_a_located_error(text, expected):
    with pytest.raises(InvalidInput) as exc:
        parse_yaml(text, "p.yaml")
    assert [str(p) for p in exc.value.problems] == [expected]


def test_reused_anchor_is_valid_and_warns_nothing():
    # ruamel's ReusedAnchorWarning printed several lines on stderr, outside the one-line contract.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert parse_yaml("a: &x 1\nb: &x 2\nc: *x\n", "p.yaml").data == {"a": 1, "b": 2, "c": 2}
    assert caught == []


def test_character_yaml_forbids_is_located_on_one_line():
    # Found by the policy fuzz suite: ruamel's message spanned two lines, named "<unicode string>" and had no line.
    with pytest.raises(InvalidInput) as exc:
        parse_yaml('a: 1\nb: "x\x1by"\n', "p.yaml")
    assert [str(p) for p in exc.value.problems] == [
        "p.yaml:2:6: invalid YAML: character U+001B is not allowed in YAML "
        "(write it as an escape in a double-quoted string)"
    ]


def test_invalid_utf8_is_located_at_its_line_and_column(write):
    path = write("p.yaml", b"a: 1\nb: x\xed\xa0\xbd\n")
    with pytest.raises(InvalidInput) as exc:
        load_yaml(path)
    assert (exc.value.problems[0].line, exc.value.problems[0].col) == (2, 5)


@pytest.mark.parametrize("text", ["a: !x 1\n", "a: !x [1]\n", "a: !x {b: 1}\n"])
def test_unknown_tag_is_a_located_error(text):
    # Found by the policy fuzz suite: a local tag on a scalar gave an error line without line:col
    # (and one on a mapping or list was silently dropped).
    with pytest.raises(InvalidInput) as exc:
        parse_yaml(text, "p.yaml")
    assert [str(p) for p in exc.value.problems] == [
        "p.yaml:1:4: invalid YAML: unknown tag '!x': only plain YAML values are read (remove the tag)"
    ]


def test_explicit_str_tag_gives_a_string():
    assert parse_yaml("version: !!str 1\n!!str 2: x\n", "p.yaml").data == {"version": "1", "2": "x"}


def test_keys_that_read_the_same_are_duplicates():
    with pytest.raises(InvalidInput) as exc:
        parse_yaml("1: a\n'1': b\n", "p.yaml")
    assert str(exc.value.problems[0]) == "p.yaml:2:1: duplicate key '1'"


@pytest.mark.parametrize(
    "value, tag",
    [
        ("!!binary aGVsbG8=", "!!binary"),
        ("!!set {a, b}", "!!set"),
        ("!!omap [{a: 1}]", "!!omap"),
        ("!!pairs [{a: 1}]", "!!pairs"),
    ],
)
def test_a_value_of_a_tag_policies_do_not_read_is_refused_at_its_position(value, tag):
    with pytest.raises(InvalidInput) as exc:
        parse_yaml(f"metadata:\n  owner: {value}\n", "p.yaml")
    assert str(exc.value.problems[0]) == (
        f"p.yaml:2:10: invalid YAML: {tag} values are not read: only plain YAML values "
        "(text, numbers, booleans, dates, lists and mappings) are"
    )


@pytest.mark.parametrize(
    "text, line, col",
    [
        ("metadata: " + "[" * 3000 + "]" * 3000 + "\n", 1, 110),
        ("metadata:\n  x: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n", 2, 395),
        ("metadata:\n" + "".join("  " * (i + 1) + "a:\n" for i in range(400)) + "  " * 401 + "b\n", 100, 199),
    ],
)
def test_nesting_too_deep_is_refused_at_the_first_node_too_deep(text, line, col):
    with pytest.raises(InvalidInput) as exc:
        parse_yaml(text, "p.yaml")
    assert str(exc.value.problems[0]) == f"p.yaml:{line}:{col}: invalid YAML: nesting deeper than 100 levels"
