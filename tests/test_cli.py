"""The command line as a user meets it: exit codes, one-line errors, outputs."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import TOY_POLICY
from policycheck.cli import cli


@pytest.fixture
def runner():
    return CliRunner()


def invoke(runner, *args):
    return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_validate_accepts_a_good_policy(runner, toy_metric, write):
    result = invoke(runner, "validate", write("p.yaml", TOY_POLICY))
    assert result.exit_code == 0
    assert "p.yaml: ok (1 rules, attacker model no-box)" in result.output


def test_validate_reports_every_problem_of_every_file_and_exits_2(runner, toy_metric, write):
    a = write("a.yaml", TOY_POLICY.replace("toy_share", "toy_shar"))
    b = write("b.yaml", "metadata: [\n")
    result = invoke(runner, "validate", a, b)
    assert result.exit_code == 2
    assert "a.yaml:5:5: unknown metric 'toy_shar' (did you mean 'toy_share'?)" in result.stderr
    assert "b.yaml:2:1: invalid YAML" in result.stderr
    assert "Traceback" not in result.output


def test_check_exits_0_when_blocking_rules_pass_with_warnings(runner, toy_metric, write, toy_release):
    result = invoke(runner, "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "out", "-q")
    assert result.exit_code == 0
    assert json.loads(open("out/report.json").read())["verdict"] == "warn"


def test_fail_on_warn_turns_warnings_into_exit_1(runner, toy_metric, write, toy_release):
    result = invoke(runner, "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "out", "-q", "--fail-on-warn")
    assert result.exit_code == 1


def test_check_exits_1_when_a_blocking_rule_fails(runner, toy_metric, write, toy_release):
    policy = write("p.yaml", TOY_POLICY.replace("fail_above: 0.9, warn_above: 0.6", "fail_above: 0.5"))
    result = invoke(runner, "check", policy, "-r", toy_release["manifest"], "-o", "out", "-q")
    assert result.exit_code == 1
    assert "fail   male-share (toy_share): 0.8333" in result.output


def test_check_exits_3_when_an_evaluator_cannot_run(runner, toy_metric, write, toy_release):
    policy = write("p.yaml", TOY_POLICY.replace("value: Male}", "value: Male, explode: true}"))
    result = invoke(runner, "check", policy, "-r", toy_release["manifest"], "-o", "out", "-q")
    assert result.exit_code == 3
    assert json.loads(open("out/report.json").read())["rules"][0]["verdict"] == "error"


def test_check_exits_2_on_a_missing_column_with_one_line(runner, toy_metric, write, toy_release):
    policy = write("p.yaml", TOY_POLICY.replace("column: sex", "column: gender"))
    result = invoke(runner, "check", policy, "-r", toy_release["manifest"], "-o", "out", "-q")
    assert result.exit_code == 2
    assert result.stderr.strip() == "p.yaml:6:14: column 'gender' is not in the release"


def test_check_takes_the_release_from_flags(runner, toy_metric, write, toy_release):
    result = invoke(runner, "check", write("p.yaml", TOY_POLICY), "--original", toy_release["original"],
                    "--synthetic", toy_release["synthetic"], "-o", "out", "-q", "--seed", "7")
    assert result.exit_code == 0
    assert json.loads(open("out/report.json").read())["provenance"]["seed"] == 7


def test_check_without_a_release_is_a_usage_error(runner, toy_metric, write):
    result = runner.invoke(cli, ["check", str(write("p.yaml", TOY_POLICY))])
    assert result.exit_code == 2
    assert "no release" in result.output


def test_same_seed_gives_the_same_report_numbers(runner, toy_metric, write, toy_release):
    policy = write("p.yaml", TOY_POLICY)
    for out in ("a", "b"):
        invoke(runner, "check", policy, "-r", toy_release["manifest"], "-o", out, "-q", "--seed", "5")
    a, b = (json.loads(open(f"{d}/report.json").read()) for d in "ab")
    assert [(r["value"], r["interval"], r["verdict"]) for r in a["rules"]] == [
        (r["value"], r["interval"], r["verdict"]) for r in b["rules"]
    ]


def test_check_writes_only_the_requested_formats(runner, toy_metric, write, toy_release):
    invoke(runner, "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "out", "-q", "--format", "md")
    import os

    assert sorted(os.listdir("out")) == ["report.json", "report.md"]


def test_plan_lists_evaluators_and_shared_results(runner, toy_metric, write):
    result = invoke(runner, "plan", write("p.yaml", TOY_POLICY))
    assert result.exit_code == 0
    assert "toy_counts(column=sex, synthetic=0)" in result.output


def test_schema_prints_draft_07(runner):
    result = invoke(runner, "schema")
    assert json.loads(result.output)["$schema"] == "http://json-schema.org/draft-07/schema#"


def test_metrics_lists_the_registry(runner):
    result = invoke(runner, "metrics")
    assert result.exit_code == 0 and "attacker knowledge" in result.output


def test_check_exports_reverse_mapped_sets(runner, toy_metric, write, toy_release):
    import pandas as pd

    result = invoke(runner, "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "out", "-q",
                    "--export-reverse-mapped", "rm")
    assert result.exit_code == 0
    exported = pd.read_csv("rm/reverse_mapped_1_synthetic.csv")
    original = pd.read_csv(toy_release["original"])
    assert sorted(exported["age"]) == sorted(original["age"])  # a permutation of the original's values


MISLED = """\
metadata: {id: t, title: T, version: "1", owner: tests}
attacker: {model: maximum-knowledge, quasi_identifiers: [age, sex], secrets: [income]}
rules:
  - id: misled
    metric: linkage_consistently_misled
    threshold: {fail_above: 0.5}
"""


def test_validate_rejects_fail_above_on_a_higher_is_safer_metric(runner, write):
    result = invoke(runner, "validate", write("p.yaml", MISLED))
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "p.yaml:6:17: higher is safer for linkage_consistently_misled: a rule fails when the value is too low; "
        "use fail_below (and warn_below)"
    )


def test_plan_with_a_release_reports_a_categorical_secret_without_order_once_and_exits_2(runner, write, toy_release):
    policy = write("p.yaml", MISLED.replace("fail_above", "fail_below") + "  - id: narrowing\n"
                   "    metric: linkage_range_narrowing\n    threshold: {fail_above: 0.1}\n")
    result = invoke(runner, "plan", policy, "-r", toy_release["manifest"])
    assert result.exit_code == 2
    message = ("secret column 'income' is categorical without an order, so no range of its values can be narrowed; "
               "give its categories lowest first in params.orders, or choose a numeric or ordinal secret")
    # One line per rule, each once, at the rule; nothing computed, no traceback.
    assert result.stderr.splitlines() == [f"p.yaml:4:5: {message}", f"p.yaml:7:5: {message}"]


def test_check_refuses_an_undeclared_reconstruction_secret_with_exit_2_before_running(runner, write, toy_release):
    policy = write("p.yaml", MISLED.replace("maximum-knowledge", "partially-informed")
                   .replace("linkage_consistently_misled", "reconstruction_accuracy\n    params: {secret: sex}"))
    result = invoke(runner, "check", policy, "-r", toy_release["manifest"], "-o", "out", "-q")
    assert result.exit_code == 2
    assert "p.yaml:6:14: secret 'sex' is not among the policy's declared secrets (income)" in result.stderr
    assert not (Path("out") / "report.json").exists()


def test_metrics_shows_each_metrics_threshold_direction(runner):
    out = invoke(runner, "metrics").output
    misled = out[out.index("linkage_consistently_misled ("):]
    assert misled.splitlines()[0:20].count("    threshold: fail_below (higher is safer)") == 1
    assert "    threshold: fail_above (higher is riskier)" in out
