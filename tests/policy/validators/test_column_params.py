from conftest import TOY_POLICY
from contexts import context, lines, resolved

from policycheck.policy.validators.column_params import column_params_exist
from policycheck.release.load import load_manifest


def test_a_column_param_missing_from_the_release_is_placed_at_the_param(toy_metric, write, toy_release):
    ctx = context(
        write("p.yaml", TOY_POLICY.replace("column: sex", "column: sexx")), load_manifest(toy_release["manifest"])
    )
    # Line 6: `    params: {column: sexx` puts the param at column 14.
    assert lines(column_params_exist(ctx, resolved(ctx, "male-share"))) == [
        "p.yaml:6:14: column 'sexx' is not in the release (did you mean 'sex'?)"
    ]


def test_every_column_of_a_list_param_is_checked(write, toy_release):
    policy = """\
metadata: {id: t, title: T, version: "1", owner: tests}
attacker: {model: maximum-knowledge, quasi_identifiers: [sex], secrets: [age]}
rules:
  - id: misled
    metric: linkage_consistently_misled
    params: {secret: age, attributes: [sex, incme, agee]}
    threshold: {fail_below: 0.5}
"""
    ctx = context(write("p.yaml", policy), load_manifest(toy_release["manifest"]))
    assert [p.message for p in column_params_exist(ctx, resolved(ctx, "misled"))] == [
        "column 'incme' is not in the release (did you mean 'income'?)",
        "column 'agee' is not in the release (did you mean 'age'?)",
    ]
