from contexts import context, lines, resolved

from policycheck.policy.validators.holdout import holdout_present
from policycheck.release.load import load_manifest

DCR = """\
metadata: {id: t, title: T, version: "1", owner: tests}
attacker: {model: no-box}
rules:
  - {id: dcr, metric: dcr_share, threshold: {fail_above: 0.55}}
"""


def without_holdout(toy_release):
    """The toy release, its manifest's holdout line removed."""
    manifest = toy_release["manifest"]
    manifest.write_text(manifest.read_text().replace("holdout: holdout.csv\n", ""))
    return load_manifest(manifest)


def test_a_metric_needing_a_holdout_on_a_release_without_one_is_refused(write, toy_release):
    ctx = context(write("p.yaml", DCR), without_holdout(toy_release))
    assert lines(holdout_present(ctx, resolved(ctx, "dcr"))) == [
        "p.yaml:4:15: rule 'dcr': metric 'dcr_share' needs a holdout set and the release has none"
    ]


def test_a_release_with_a_holdout_passes(write, toy_release):
    ctx = context(write("p.yaml", DCR), load_manifest(toy_release["manifest"]))
    assert holdout_present(ctx, resolved(ctx, "dcr")) == []


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
    ctx = context(write("p.yaml", TCAP_AGAINST_HOLDOUT), without_holdout(toy_release))
    assert lines(holdout_present(ctx, resolved(ctx, "tcap"))) == [
        "p.yaml:6:14: baseline: holdout needs a holdout set, and the release has none; add the holdout records the "
        "synthesizer never saw, or use baseline: none (the raw measure, which needs levels of its own)"
    ]


def test_a_holdout_baseline_with_a_holdout_passes_the_check(write, toy_release):
    ctx = context(write("p.yaml", TCAP_AGAINST_HOLDOUT), load_manifest(toy_release["manifest"]))
    assert holdout_present(ctx, resolved(ctx, "tcap")) == []


DCR_BASELINE_AGAINST_HOLDOUT = """\
metadata: {id: t, title: T, version: "1", owner: tests}
attacker: {model: no-box}
rules:
  - id: dcrb
    metric: dcr_baseline_protection
    params: {baseline: holdout}
    threshold: {fail_below: 0.5}
"""


def test_the_refusal_names_the_metrics_own_other_baseline(write, toy_release):
    ctx = context(write("p.yaml", DCR_BASELINE_AGAINST_HOLDOUT), without_holdout(toy_release))
    assert lines(holdout_present(ctx, resolved(ctx, "dcrb"))) == [
        "p.yaml:6:14: baseline: holdout needs a holdout set, and the release has none; add the holdout records the "
        "synthesizer never saw, or use baseline: random (the raw measure, which needs levels of its own)"
    ]
