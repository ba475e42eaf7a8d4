"""The regulators' policies on the demo: the indhist_dp release passes and the nonprivate release fails."""

from pathlib import Path

import pytest

from policycheck.interfaces.check import CheckOptions, check_release
from policycheck.interfaces.demo import write_release
from policycheck.release.load import load_manifest

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261121


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("peer-policies")
    policy = folder / "adult.policy.yaml"
    regulators = [
        ROOT / "policies" / "gdpr-three-criteria.policy.yaml",
        ROOT / "policies" / "ons-disclosure.policy.yaml",
    ]
    policy.write_text(
        f"""extends: [{regulators[0]}, {regulators[1]}]
metadata: {{id: adult-regulators, title: Adult under the regulators' measures, version: "1.0", owner: test}}
attacker:
  model: maximum-knowledge
  quasi_identifiers: [age, sex, race, marital_status, education, native_country, workclass]
  secrets: [income]
seed: {SEED}
""",
        encoding="utf-8",
    )
    out = {}
    for name in ("nonprivate", "indhist_dp"):
        release = load_manifest(write_release(name, folder / "releases", SEED))
        out[name] = check_release(policy, release, folder / "reports" / name, CheckOptions(seed=SEED))
    return out


def verdicts(report):
    return {rule["id"]: rule["verdict"] for rule in report["rules"]}


def test_indhist_dp_passes_every_blocking_rule(reports):
    report = reports["indhist_dp"]
    assert report["exit_code"] == 0 and report["verdict"] in ("pass", "warn"), verdicts(report)
    blocking = {r["id"]: r["verdict"] for r in report["rules"] if r["severity"] == "blocking"}
    assert set(blocking) == {
        "singling-out",
        "exact-copies",
        "linkability",
        "inference",
        "replicated-uniques",
        "disco",
        "tcap",
        "cap-protection",
    }
    # replicated-uniques compares its upper bound: on this seed's indhist_dp release its estimate, 0.0073 over the
    # holdout's repU, is below the warn level, but the interval's upper end (0.0215) reaches past 0.02: inconclusive,
    # which the sample cannot settle and which does not block (exit code 0).
    assert all(v in ("pass", "warn", "inconclusive") for v in blocking.values()), blocking


def test_nonprivate_fails_every_new_rule_the_sample_can_settle(reports):
    report = reports["nonprivate"]
    assert report["verdict"] == "fail" and report["exit_code"] == 1
    # Linkability of the bootstrap copy is 0.115 with 95% interval [0.084, 0.146] over anonymeter's 500
    # attacks: the interval holds the fail level 0.1, so the sample cannot show it beyond (issue 28; judged
    # on the estimate or the upper end it failed). Every other rule's interval is all beyond its level.
    found = verdicts(report)
    assert found.pop("linkability") == "inconclusive"
    assert set(found.values()) == {"fail"}, found
