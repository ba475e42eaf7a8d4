"""An auditor's tools: ``verify`` (does the report match its files?), ``diff``
(what changed release over release?) and ``check --explain`` (where does
each number come from?)."""

import datetime as dt
import json
import types

import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY

import policycheck.policy.load as policy_load
from policycheck.interfaces.cli import cli
from policycheck.interfaces.verify import Difference, compare_rules, diff_reports, same_number, verify_report

WAIVED = TOY_POLICY.replace("fail_above: 0.9, warn_above: 0.6", "fail_above: 0.5") + (
    "waivers:\n  - {rule: male-share, reason: pilot only, approved_by: Jane Roe, expires: 2030-01-31}\n"
)


@pytest.fixture
def runner():
    return CliRunner()


def invoke(runner, *args):
    return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def checked(runner, toy_metric, write, toy_release):
    """A report made with the toy release's manifest; returns (report path, release paths)."""
    result = invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "-r",
        toy_release["manifest"],
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
        "--seed",
        "4",
    )
    assert result.exit_code == 0
    return "out/report.json", toy_release


# --- verify -------------------------------------------------------------------


def test_verify_confirms_an_untouched_report(runner, checked):
    result = invoke(runner, "verify", checked[0], "--root", ".", "--executor", "serial", "-q")
    assert result.exit_code == 0, result.output
    assert "verified: 5 files unchanged; 1 rule re-run with seed 4: identical verdicts and numbers" in result.output
    assert "ok       p.yaml  sha256 " in result.output


def test_verify_lists_a_changed_data_file_and_the_number_it_changed(runner, checked):
    report_path, paths = checked
    old = json.loads(open(report_path).read())
    # One synthetic Female becomes Male: the share of Male goes from 5/6 to 6/6.
    paths["synthetic"].write_text(paths["synthetic"].read_text().replace("41,Female", "41,Male"))
    result = invoke(runner, "verify", report_path, "--root", ".", "--executor", "serial", "-q")
    assert result.exit_code == 1
    old_sha = next(f["sha256"] for f in old["provenance"]["data_files"] if f["path"].endswith("synthetic.csv"))
    assert f"DIFFERS  file synthetic.csv: sha256 {old_sha} -> " in result.output
    assert "DIFFERS  rule male-share: verdict warn -> fail" in result.output
    assert f"DIFFERS  rule male-share: value {5 / 6!r} -> 1.0" in result.output
    assert "DIFFERS  release verdict: warn -> fail" in result.output
    assert "NOT verified" in result.output


def test_verify_exits_2_naming_a_missing_file(runner, checked):
    checked[1]["holdout"].unlink()
    result = invoke(runner, "verify", checked[0], "--root", ".", "--executor", "serial", "-q")
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: holdout.csv: file named in the report is missing"


def test_verify_exits_2_on_a_file_that_is_not_a_report(runner, write):
    result = invoke(runner, "verify", write("r.json", '{"verdict": "pass"}'))
    assert result.exit_code == 2
    assert "r.json: not a policycheck report" in result.stderr


def test_verify_rebuilds_a_release_given_by_flags(runner, toy_metric, write, toy_release):
    invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "--original",
        toy_release["original"],
        "--synthetic",
        toy_release["synthetic"],
        "--column-type",
        "age=categorical",
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
    )
    verification = verify_report("out/report.json", root=".", executor="serial")
    assert verification.identical
    assert verification.rerun["release"]["columns"]["age"] == "categorical"
    assert [f[0] for f in verification.files] == ["p.yaml", "original.csv", "synthetic.csv"]


def test_verify_rebuilds_id_and_datetime_roles_given_by_flags(runner, toy_metric, write):
    rows = "".join(
        f"{7 * i % 61},{1 + i % 28:02d}/03/2021,{'Male' if i % 3 else 'Female'},{i % 2}\n" for i in range(60)
    )
    data = write("o.csv", "pid,visit,sex,income\n" + rows)
    invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "--original",
        data,
        "--synthetic",
        data,
        "--column-type",
        "pid=id",
        "--column-type",
        "visit=datetime:%d/%m/%Y",
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
    )
    verification = verify_report("out/report.json", root=".", executor="serial")
    assert verification.identical, verification.differences + verification.problems
    assert verification.rerun["release"]["roles"]["pid"] == "id"
    assert verification.rerun["release"]["formats"] == {"visit": "%d/%m/%Y"}


def test_verify_judges_waivers_as_of_the_report_date(runner, toy_metric, write, toy_release, monkeypatch):
    invoke(
        runner,
        "check",
        write("p.yaml", WAIVED),
        "-r",
        toy_release["manifest"],
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
    )
    # Years later the waiver has expired; the report must still verify.
    later = types.SimpleNamespace(date=types.SimpleNamespace(today=lambda: dt.date(2031, 6, 1)))
    monkeypatch.setattr(policy_load, "dt", later)
    verification = verify_report("out/report.json", root=".", executor="serial")
    assert verification.identical, verification.differences + verification.problems
    assert verification.rerun["rules"][0]["verdict"] == "waived"


def test_numbers_match_within_a_relative_1e_12():
    assert same_number(0.1 + 0.2, 0.3)  # differ in the last bit only
    assert same_number([0.25, 1.0], [0.25, 1.0 + 1e-13])
    assert not same_number(0.5, 0.5 + 1e-9)
    assert not same_number(0.0, 1e-300)  # no absolute slack: zero stays zero
    assert not same_number(None, 0.0) and same_number(None, None)
    assert not same_number([0.1, 0.2], [0.1])


# --- diff ---------------------------------------------------------------------


def _rule(rule_id, verdict, value, compare="estimate"):
    return {
        "id": rule_id,
        "verdict": verdict,
        "value": value,
        "compared_value": value,
        "interval": None,
        "threshold": {"compare": compare},
    }


def test_compare_lists_changed_added_and_removed_rules():
    old = {"rules": [_rule("a", "pass", 0.1), _rule("b", "warn", 0.3), _rule("gone", "pass", 0.0)]}
    new = {"rules": [_rule("a", "pass", 0.1), _rule("b", "fail", 0.6), _rule("new", "fail", 0.9)]}
    assert [str(d) for d in compare_rules(old, new)] == [
        "rule b: verdict warn -> fail",
        "rule b: value 0.3 -> 0.6",
        "rule gone: removed (was pass, 0.0)",
        "rule new: added (fail, 0.9)",
    ]


def test_compare_lists_the_compared_value_only_when_an_interval_end_is_compared():
    old = {"rules": [{**_rule("u", "pass", 0.1, "upper"), "compared_value": 0.2}]}
    new = {"rules": [{**_rule("u", "pass", 0.1, "upper"), "compared_value": 0.25}]}
    assert compare_rules(old, new) == [Difference("rule", "u", "compared_value", 0.2, 0.25)]


def test_diff_of_two_releases_lists_verdicts_values_and_changed_inputs(runner, checked, write):
    report_path, paths = checked
    paths["synthetic"].write_text(paths["synthetic"].read_text().replace("41,Female", "41,Male"))
    invoke(
        runner, "check", "p.yaml", "-r", paths["manifest"], "-o", "out2", "-q", "--executor", "serial", "--seed", "4"
    )
    old, new = json.loads(open(report_path).read()), json.loads(open("out2/report.json").read())
    changes = diff_reports(old, new)
    assert [str(d) for d in changes.rules[:3]] == [
        "release verdict: warn -> fail",
        "rule male-share: verdict warn -> fail",
        f"rule male-share: value {5 / 6!r} -> 1.0",
    ]
    assert changes.rules[3] == Difference(
        "rule", "male-share", "interval", old["rules"][0]["interval"], new["rules"][0]["interval"]
    )
    assert len(changes.rules) == 4
    assert [d.subject for d in changes.files] == ["synthetic set 1"]
    assert changes.worse == ["male-share"]


def test_diff_exits_0_and_with_fail_on_worse_1_when_a_verdict_got_worse(runner, checked):
    report_path, paths = checked
    paths["synthetic"].write_text(paths["synthetic"].read_text().replace("41,Female", "41,Male"))
    invoke(
        runner, "check", "p.yaml", "-r", paths["manifest"], "-o", "out2", "-q", "--executor", "serial", "--seed", "4"
    )
    listing = invoke(runner, "diff", report_path, "out2/report.json")
    assert listing.exit_code == 0
    assert "toy-release (warn) -> toy-release (fail)" in listing.output
    assert "  rule male-share: verdict warn -> fail" in listing.output and "worse: male-share" in listing.output
    assert invoke(runner, "diff", report_path, "out2/report.json", "--fail-on-worse").exit_code == 1
    assert invoke(runner, "diff", "out2/report.json", report_path, "--fail-on-worse").exit_code == 0  # better
    data = json.loads(invoke(runner, "diff", report_path, "out2/report.json", "--json").output)
    assert data["worse"] == ["male-share"] and data["rules"][1] == {
        "kind": "rule",
        "subject": "male-share",
        "field": "verdict",
        "old": "warn",
        "new": "fail",
    }


def test_diff_ranks_inconclusive_between_warn_and_fail(runner, checked):
    from policycheck.interfaces.verify import diff_reports, read_report

    old = read_report(checked[0])
    new = json.loads(json.dumps(old))
    new["rules"][0]["verdict"] = "inconclusive"
    assert diff_reports(old, new).worse == ["male-share"]  # warn -> inconclusive
    assert diff_reports(new, old).worse == []


def test_diff_of_a_report_with_itself_changes_nothing(runner, checked):
    result = invoke(runner, "diff", checked[0], checked[0])
    assert result.exit_code == 0
    assert "no rule verdict or value changed" in result.output


def test_diff_into_a_folder_is_one_line_and_exit_2(runner, checked, tmp_path):
    (tmp_path / "folder").mkdir()
    result = invoke(runner, "diff", checked[0], checked[0], "-o", str(tmp_path / "folder"))
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == ["error: folder: is a folder: name a file to write"]


# --- check --explain -------------------------------------------------------------


def test_explain_traces_each_verdict_to_knowledge_data_params_and_policy_line(runner, toy_metric, write, toy_release):
    result = invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "-r",
        toy_release["manifest"],
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
        "--explain",
    )
    report = json.loads(open("out/report.json").read())
    synthetic = next(d for d in report["release"]["datasets"] if d["role"] == "synthetic")
    out = result.output
    assert "male-share: warn (blocking rule)" in out
    assert "  rule written at: p.yaml:4:5" in out
    assert "  attacker knowledge used: every released synthetic set" in out
    assert f"    synthetic: synthetic.csv  sha256 {synthetic['sha256']}" in out
    assert "original.csv" not in out.split("male-share: warn")[1]  # the toy metric reads only the synthetic set
    assert '  params: {"column": "sex", "explode": false, "value": "Male"}' in out
    assert "  shared results: toy_counts(column=sex, synthetic=0)" in out
    assert out.index("male-share: warn (blocking rule)") > out.index("reports in out/")  # after the summary


@pytest.mark.slow
def test_verify_confirms_a_demo_report_and_detects_a_changed_data_file(runner, tmp_path):
    from policycheck.interfaces.check import CheckOptions, check_release
    from policycheck.interfaces.demo import find_policy, write_release
    from policycheck.release.load import load_manifest

    manifest = write_release("nonprivate", tmp_path / "demo", seed=20261121)
    check_release(
        find_policy(),
        load_manifest(manifest),
        tmp_path / "demo" / "out",
        CheckOptions(seed=20261121, executor="serial"),
        formats=("json",),
    )
    report = tmp_path / "demo" / "out" / "report.json"
    # The demo's policy and training data are the package's, outside the folder the check ran in.
    confirmed = invoke(runner, "verify", report, "--root", tmp_path, "--show-external", "-q")
    assert confirmed.exit_code == 0, confirmed.output
    assert "identical verdicts and numbers" in confirmed.output
    synthetic = manifest.parent / "synthetic.csv"
    lines = synthetic.read_text().splitlines(keepends=True)
    # Drop one of the 3,000 synthetic records. The DCR share does not move (every record is a copy, and
    # copies of one real record count once in its interval), but the reconstruction attacks' guesses do:
    # 2,660 of the 3,000 incomes guessed right before, 2,651 after.
    synthetic.write_text("".join(lines[:1] + lines[2:]))
    changed = invoke(runner, "verify", report, "--root", tmp_path, "--show-external", "-q")
    assert changed.exit_code == 1
    assert "DIFFERS  file demo/nonprivate/release/synthetic.csv: sha256 " in changed.output
    assert f"DIFFERS  rule income-reconstruction: value {2660 / 3000!r} -> {2651 / 3000!r}" in changed.output


def test_verify_from_another_folder_resolves_relative_paths_against_the_root_it_is_given(
    runner, checked, tmp_path, monkeypatch
):
    # Never against the working_directory the report records: a report is anyone's file (issue 23, item 1).
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert invoke(runner, "verify", tmp_path / checked[0], "--executor", "serial", "-q").exit_code == 2
    result = invoke(runner, "verify", tmp_path / checked[0], "--root", tmp_path, "--executor", "serial", "-q")
    assert result.exit_code == 0, result.output


def test_verify_resolves_relative_paths_against_root(runner, checked, tmp_path, monkeypatch):
    # The project moves after the check: its files are no longer where the check ran.
    moved = tmp_path / "moved"
    moved.mkdir()
    for name in ("p.yaml", "release.yaml", "original.csv", "synthetic.csv", "holdout.csv", "out"):
        (tmp_path / name).rename(moved / name)
    monkeypatch.chdir(moved)
    assert invoke(runner, "verify", "out/report.json", "--executor", "serial", "-q").exit_code == 2  # not in tmp_path
    result = invoke(runner, "verify", "out/report.json", "--root", moved, "--executor", "serial", "-q")
    assert result.exit_code == 0, result.output


def changed_code(monkeypatch, value):
    """This process as another build of policycheck: another source digest, and the toy metric measuring ``value``."""
    import dataclasses

    import policycheck.core.version as version
    from policycheck.metrics import registry

    monkeypatch.setattr(version, "source_sha256", lambda: "b" * 64)
    spec = registry._METRICS["toy_share"]
    measured = spec.evaluate
    changed = dataclasses.replace(
        spec, evaluate=lambda ctx, params, needs: dataclasses.replace(measured(ctx, params, needs), value=value)
    )
    registry._METRICS["toy_share"] = changed  # the toy_metric fixture unregisters it after the test


def test_a_rerun_by_other_policycheck_code_that_differs_says_the_report_was_made_by_other_code(
    runner, checked, monkeypatch
):
    made_by = json.loads(open(checked[0]).read())["provenance"]["tool_source_sha256"]
    changed_code(monkeypatch, 0.5)
    result = invoke(runner, "verify", checked[0], "--root", ".", "--executor", "serial", "-q")
    assert result.exit_code == 1
    assert result.output.splitlines()[-2:] == [
        f"note     the report was made by other policycheck code (source sha256 {made_by}) than this one "
        f"({'b' * 64}): a difference the re-run finds may come from changes to policycheck, not to the release",
        "NOT verified: 8 differences",
    ]


def test_a_rerun_by_other_policycheck_code_that_agrees_adds_no_note(runner, checked, monkeypatch):
    changed_code(monkeypatch, 5 / 6)
    result = invoke(runner, "verify", checked[0], "--root", ".", "--executor", "serial", "-q")
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        0,
        "verified: 5 files unchanged; 1 rule re-run with seed 4: identical verdicts and numbers",
    )


def test_a_report_without_a_source_digest_is_said_to_predate_it_when_the_rerun_differs():
    from policycheck.interfaces.verify.verification import other_code

    assert other_code({"provenance": {"tool_version": "0.1.0"}}) == [
        "the report records no digest of the policycheck code that made it (written before one was recorded): "
        "a difference the re-run finds may come from changes to policycheck since"
    ]


def test_a_field_recorded_only_since_a_later_build_is_no_difference_when_the_report_lacks_it():
    from policycheck.interfaces.verify.differences import compare_fields

    out: list[Difference] = []
    compare_fields({"rules": [{"value": 0.0}]}, {"rules": [{"value": 0.0, "interval_of": "this attack's"}]}, (), out)
    assert out == []


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("release", "role_sources"), {"sex": "inferred from synthetic.csv"}),
        (("rules", 0, "detail_fields"), {"share": {"label": "Share"}}),
        (("rules", 0, "sample_unit"), "records"),
        (("provenance", "synthesizer_files"), [{"file": "synth.py", "sha256": "ab"}]),
    ],
)
def test_each_field_added_within_schema_1_is_no_difference_when_an_older_report_lacks_it(path, value):
    from policycheck.interfaces.verify.differences import compare_fields

    old = {"release": {"id": "r"}, "rules": [{"value": 0.0}], "provenance": {"seed": 4}}
    new = json.loads(json.dumps(old))
    node = new
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    out: list[Difference] = []
    compare_fields(old, new, (), out)
    assert out == []


def test_a_report_of_an_earlier_minor_schema_verifies_with_the_current_code(
    runner, toy_metric, write, toy_release, monkeypatch
):
    import policycheck.report.build as build

    with monkeypatch.context() as earlier:
        earlier.setattr(build, "SCHEMA_VERSION", "1.4")
        made = invoke(runner, "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "old", "-q")
    assert made.exit_code == 0, made.output
    assert json.loads(open("old/report.json").read())["schema_version"] == "1.4"
    result = invoke(runner, "verify", "old/report.json", "--root", ".", "--executor", "serial", "-q")
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        0,
        "verified: 5 files unchanged; 1 rule re-run with seed 0: identical verdicts and numbers",
    )


@pytest.mark.parametrize(
    ("recorded", "rerun", "same"),
    [("1.4", "1.5", True), ("1.5", "1.5", True), ("1.5", "1.4", False), ("1.4", "2.0", False), ("x", "1.5", False)],
)
def test_a_rerun_writes_the_same_format_only_within_its_major_version_and_not_older(recorded, rerun, same):
    from policycheck.interfaces.verify.differences import same_format

    assert same_format({"schema_version": recorded}, {"schema_version": rerun}) is same


def test_a_field_recorded_since_a_later_build_that_the_rerun_lacks_is_a_difference():
    from policycheck.interfaces.verify.differences import compare_fields

    out: list[Difference] = []
    compare_fields({"rules": [{"value": 0.0, "interval_of": "this attack's"}]}, {"rules": [{"value": 0.0}]}, (), out)
    assert [str(d) for d in out] == ["field rules[0].interval_of: report says this attack's, re-run gives (absent)"]
