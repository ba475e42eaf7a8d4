from conftest import TOY_POLICY
from contexts import context, lines

from policycheck.policy.validators.attacker_columns import attacker_columns_exist
from policycheck.release.load import load_manifest


def test_a_quasi_identifier_missing_from_the_release_is_placed_at_it_with_the_nearest_column(write, toy_release):
    ctx = context(write("p.yaml", TOY_POLICY.replace("[sex]", "[sexx]")), load_manifest(toy_release["manifest"]))
    # Line 2 is the attacker; "sexx" starts after `attacker: {model: no-box, quasi_identifiers: [` (46 characters).
    assert lines(attacker_columns_exist(ctx)) == [
        "p.yaml:2:47: column 'sexx' is not in the release (did you mean 'sex'?)"
    ]


def test_a_secret_declared_as_an_ignored_column_is_named_as_such(write, toy_release):
    import dataclasses

    release = load_manifest(toy_release["manifest"])
    release = dataclasses.replace(release, roles={**release.roles, "income": "ignore"})
    (problem,) = attacker_columns_exist(context(write("p.yaml", TOY_POLICY), release))
    assert problem.message == (
        "column 'income' is declared type ignore: ignore columns enter no attack, query or distance; "
        "choose an analysed column"
    )


def test_without_a_release_no_column_is_checked(write):
    assert attacker_columns_exist(context(write("p.yaml", TOY_POLICY.replace("[sex]", "[sexx]")))) == []
