"""`policycheck demo` on the shipped real data gives the expected verdicts."""

import json

import pytest
from click.testing import CliRunner

from policycheck.interfaces.cli import cli

PRIVACY_RULES = (
    "dcr-share",
    "mi-risk",
    "exact-copies",
    "income-inference",
    "age-narrowing",
    "dp-claim",
    "membership-game",
    "dp-claim-game",
)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(cli, ["demo", "-o", str(out), "-q"], catch_exceptions=False)
    reports = {name: json.loads((out / name / "report.json").read_text()) for name in ("nonprivate", "indhist_dp")}
    return result, reports


def verdicts(report):
    return {r["id"]: r["verdict"] for r in report["rules"]}


def test_demo_exits_0_and_prints_both_verdicts(demo):
    result, _ = demo
    assert result.exit_code == 0
    # the verdict in the words each release's summary line used
    assert "nonprivate  FAIL; blocking failures: " in result.output
    assert "indhist_dp  WARN; blocking failures: none" in result.output
    # what the membership game found, one line each under the release's verdict
    assert "epsilon audit: claimed 1, measured lower bound" in result.output and "-> refuted" in result.output
    assert "-> not refuted" in result.output


def test_nonprivate_release_fails_every_privacy_rule(demo):
    _, reports = demo
    assert reports["nonprivate"]["verdict"] == "fail"
    assert {rule: verdicts(reports["nonprivate"])[rule] for rule in PRIVACY_RULES} == dict.fromkeys(
        PRIVACY_RULES, "fail"
    )


def test_indhist_dp_release_is_shown_within_the_fail_level_of_every_privacy_rule(demo):
    _, reports = demo
    rules = {r["id"]: r for r in reports["indhist_dp"]["rules"] if r["id"] in PRIVACY_RULES}
    assert {rule: r["verdict"] for rule, r in rules.items()} == {
        **dict.fromkeys(PRIVACY_RULES, "pass"),
        "membership-game": "warn",
        "exact-copies": "warn",
    }
    # No copy of either set among 3,000 records: the excess's interval is +- the Clopper-Pearson upper end of
    # 0 of 3,000 at 97.5 %, 1 - 0.0125^(1/3000) = 0.00146, past the warn level 0.001: 3,000 records cannot show
    # a copy rate below it.
    copies = rules["exact-copies"]
    assert copies["value"] == 0 and copies["interval"] == pytest.approx([-0.0014596, 0.0014596], abs=1e-7)
    # The game's worst target: advantage -0.067 with interval [-0.285, 0.166] at the Bonferroni level over 20
    # targets: within the fail level 0.2, but the interval holds the warn level 0.1, so 300 rounds cannot show
    # the advantage below it (issue 28's rule).
    game = rules["membership-game"]
    assert game["unsettled"] == "warn" and 0.1 < game["interval"][1] < 0.2


def test_indhist_dp_pays_for_privacy_in_utility(demo):
    _, reports = demo
    tvd = {name: next(r for r in rep["rules"] if r["id"] == "marginal-fidelity") for name, rep in reports.items()}
    # advisory: the Laplace noise of epsilon 1 over 15 columns costs more than the independence alone did (0.194)
    assert tvd["indhist_dp"]["verdict"] == "fail" and tvd["indhist_dp"]["severity"] == "advisory"
    assert tvd["indhist_dp"]["value"] > 3 * tvd["nonprivate"]["value"]


def test_the_game_refutes_the_false_claim_and_the_demo_declares_no_claim_its_release_lacks(demo):
    _, reports = demo
    refuted = next(r for r in reports["nonprivate"]["rules"] if r["id"] == "dp-claim-game")
    assert refuted["verdict"] == "fail" and refuted["refutes"] == ["synthetic[0]:epsilon"]
    kept = next(r for r in reports["indhist_dp"]["rules"] if r["id"] == "dp-claim-game")
    assert kept["verdict"] == "pass" and kept["details"]["game"]["synthesizer"] == "indhist_dp (epsilon 1)"
    (synthetic,) = [d for d in reports["indhist_dp"]["release"]["datasets"] if d["role"] == "synthetic"]
    assert synthetic["synthesizer"]["params"]["builtin"] == "indhist_dp"


def test_membership_numbers_are_those_of_the_recorded_seed(demo):
    _, reports = demo
    rules = {r["id"]: r for r in reports["nonprivate"]["rules"]}
    assert reports["nonprivate"]["provenance"]["seed"] == 20261121
    assert rules["dcr-share"]["value"] == 1.0
    assert rules["mi-risk"]["value"] == pytest.approx(0.8688, abs=1e-4)


def test_nonprivate_budget_fails_because_it_sums_the_refuted_epsilon_claim(demo):
    _, reports = demo
    rules = {r["id"]: r for r in reports["nonprivate"]["rules"]}
    assert rules["dp-claim"]["refutes"] == ["synthetic[0]:epsilon"]
    assert rules["dp-budget"]["relies_on"] == [
        "synthetic[0]:epsilon",
        "ledger:adult-teaching-2025[1]:epsilon",
        "ledger:adult-teaching-2025[2]:epsilon",
        "ledger:adult-research-2026-q1[1]:epsilon",
    ]
    # Its total, 1.638, is within the levels: only the refuted claim fails it.
    assert rules["dp-budget"]["value"] < 2.0 and rules["dp-budget"]["verdict"] == "fail"
    assert "the epsilon claim of synthetic[0], which rule 'dp-claim' refuted" in rules["dp-budget"]["verdict_reason"]


def test_indhist_dp_claim_pass_is_worded_as_not_refuted(demo):
    _, reports = demo
    claim = next(r for r in reports["indhist_dp"]["rules"] if r["id"] == "dp-claim")
    assert claim["verdict"] == "pass" and claim["refutes"] == []
    assert claim["verdict_reason"] == "Not refuted by this test (a test cannot verify a DP claim)."
    assert "verified" not in json.dumps(claim).replace("cannot verify", "")


TINY_POLICY = """\
metadata: {id: tiny, title: Tiny, version: "1", owner: tests}
attacker: {model: no-box}
rules:
  - {id: exact-copies, metric: exact_copy_share, threshold: {fail_above: 0.5}}
"""


def test_the_reports_record_the_demo_command_as_typed(tmp_path, monkeypatch):
    import sys

    (tmp_path / "tiny.policy.yaml").write_text(TINY_POLICY)
    args = ["demo", "--policy", "tiny.policy.yaml", "-o", "out", "--seed", "5", "-qq"]
    monkeypatch.setattr(sys, "argv", ["policycheck", *args])  # what the shell gives the program
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    # re-running the recorded command checks the same policy into the same folder
    for name in ("nonprivate", "indhist_dp"):
        report = json.loads((tmp_path / "out" / name / "report.json").read_text())
        assert report["provenance"]["command"] == ["policycheck", *args]
