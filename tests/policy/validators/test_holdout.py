import pytest
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


def against_holdout(metric: str, attacker: str, threshold: str) -> str:
    """A policy of one rule ``r`` asking ``metric`` for baseline: holdout."""
    return f"""\
metadata: {{id: t, title: T, version: "1", owner: tests}}
attacker: {attacker}
rules:
  - id: r
    metric: {metric}
    params: {{baseline: holdout}}
    threshold: {threshold}
"""


TCAP_AGAINST_HOLDOUT = against_holdout(
    "tcap", "{model: partially-informed, quasi_identifiers: [age, sex], secrets: [income]}", "{fail_above: 0.05}"
)
DCR_BASELINE_AGAINST_HOLDOUT = against_holdout("dcr_baseline_protection", "{model: no-box}", "{fail_below: 0.5}")


@pytest.mark.parametrize(
    ("policy", "other"),
    [(TCAP_AGAINST_HOLDOUT, "none"), (DCR_BASELINE_AGAINST_HOLDOUT, "random")],
    ids=["tcap", "dcrb"],
)
def test_a_holdout_baseline_without_a_holdout_is_refused_naming_the_metrics_other_baseline(
    write, toy_release, policy, other
):
    ctx = context(write("p.yaml", policy), without_holdout(toy_release))
    assert lines(holdout_present(ctx, resolved(ctx, "r"))) == [
        "p.yaml:6:14: baseline: holdout needs a holdout set, and the release has none; add the holdout records the "
        f"synthesizer never saw, or use baseline: {other} (the raw measure, which needs levels of its own)"
    ]


def test_a_holdout_baseline_with_a_holdout_passes_the_check(write, toy_release):
    ctx = context(write("p.yaml", TCAP_AGAINST_HOLDOUT), load_manifest(toy_release["manifest"]))
    assert holdout_present(ctx, resolved(ctx, "r")) == []
