from contexts import context, lines, resolved

from policycheck.policy.validators.metric_check import metric_own_check
from policycheck.release.load import load_manifest

LINKAGE = """\
metadata: {id: t, title: T, version: "1", owner: tests}
attacker: {model: maximum-knowledge, quasi_identifiers: [age, sex], secrets: [income]}
rules:
  - id: misled
    metric: linkage_consistently_misled
    params: {secret: income}
    threshold: {fail_below: 0.5}
"""


def test_the_metrics_own_check_refuses_a_categorical_secret_without_an_order(write, toy_release):
    ctx = context(write("p.yaml", LINKAGE), load_manifest(toy_release["manifest"]))
    assert lines(metric_own_check(ctx, resolved(ctx, "misled"))) == [
        "p.yaml:6:14: secret column 'income' is categorical without an order, so no range of its values can be "
        "narrowed; give its categories lowest first in params.orders, or choose a numeric or ordinal secret"
    ]


def test_the_metrics_own_check_waits_for_its_columns_to_exist(write, toy_release):
    ctx = context(
        write("p.yaml", LINKAGE.replace("secret: income", "secret: incme")), load_manifest(toy_release["manifest"])
    )
    assert metric_own_check(ctx, resolved(ctx, "misled")) == []


def test_without_a_release_the_metrics_own_check_does_not_run(write):
    ctx = context(write("p.yaml", LINKAGE))
    assert metric_own_check(ctx, resolved(ctx, "misled")) == []
