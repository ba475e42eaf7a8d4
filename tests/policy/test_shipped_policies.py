"""The shipped policies decide on intervals (issue 28) unless a rule says why not."""

from pathlib import Path

import pytest
from ruamel.yaml import YAML

POLICIES = sorted((Path(__file__).resolve().parents[2] / "policies").glob("*.policy.yaml"))


def rules_of(text: str) -> list[dict]:
    return YAML(typ="safe", pure=True).load(text).get("rules", [])


@pytest.mark.parametrize("path", POLICIES, ids=lambda p: p.name)
def test_a_shipped_rule_that_does_not_decide_on_the_interval_says_why_in_its_rationale(path):
    for rule in rules_of(path.read_text(encoding="utf-8")):
        compare = (rule.get("threshold") or {}).get("compare")
        if compare is not None and compare != "interval":
            assert f"compare: {compare}" in " ".join((rule.get("rationale") or "").split()), rule["id"]


def test_the_shipped_policies_state_another_decision_rule_only_for_dp_claims():
    # The DP claim tests' value is already a lower confidence bound (see their rationale); every other
    # shipped rule decides on its interval.
    explicit = {
        (p.name, r["id"]): r["threshold"]["compare"]
        for p in POLICIES
        for r in rules_of(p.read_text(encoding="utf-8"))
        if "compare" in (r.get("threshold") or {})
    }
    assert explicit == {
        ("calibration-dp.policy.yaml", "dp-claim"): "estimate",
        ("demo.policy.yaml", "dp-claim"): "estimate",
        ("demo.policy.yaml", "dp-claim-game"): "estimate",
        ("membership-audit.policy.yaml", "dp-claim-game"): "estimate",
    }
