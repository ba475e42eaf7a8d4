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


TCAP_AGAINST_HOLDOUT = """\
metadata: {id: t, title: T, version: "1", owner: tests}
attacker: {model: partially-informed, quasi_identifiers: [age, sex], secrets: [income]}
rules:
  - id: tcap
    metric: tcap
    params: {baseline: holdout}
    threshold: {fail_above: 0.05}
"""


def test_a_holdout_baseline_without_a_holdout_is_refused_before_computing(write, toy_release):
    manifest = toy_release["manifest"]
    manifest.write_text(manifest.read_text().replace("holdout: holdout.csv\n", ""))
    ctx = context(write("p.yaml", TCAP_AGAINST_HOLDOUT), load_manifest(manifest))
    assert lines(metric_own_check(ctx, resolved(ctx, "tcap"))) == [
        "p.yaml:6:14: baseline: holdout needs a holdout set, and the release has none; add the holdout records the "
        "synthesizer never saw, or use baseline: none (the raw measure, which needs levels of its own)"
    ]


def test_a_holdout_baseline_with_a_holdout_passes_the_check(write, toy_release):
    ctx = context(write("p.yaml", TCAP_AGAINST_HOLDOUT), load_manifest(toy_release["manifest"]))
    assert metric_own_check(ctx, resolved(ctx, "tcap")) == []
