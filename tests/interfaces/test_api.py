"""The Python API: in-memory releases, the report object, and one code path with the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import DEMO, TOY_POLICY

import policycheck as pc
from policycheck.interfaces.cli import cli
from policycheck.methods.synthesizers import BUILTIN
from policycheck.report.integrity import without_run_context

#: Real metrics of three families on a small Adult extract: a check in seconds.
POLICY = """\
metadata: {id: api-test, title: API test policy, version: "1", owner: tests}
attacker:
  model: maximum-knowledge
  quasi_identifiers: [age, sex, race, education]
  secrets: [income]
seed: 11
rules:
  - id: dcr-share
    metric: dcr_share
    threshold: {fail_above: 0.55, warn_above: 0.52}
  - id: mi-risk
    metric: mi_risk
    threshold: {fail_above: 0.2, warn_above: 0.1}
  - id: exact-copies
    metric: exact_copy_share
    threshold: {fail_above: 0.01}
  - id: marginals
    metric: three_way_marginal_tvd
    threshold: {fail_above: 0.25, warn_above: 0.15}
    severity: advisory
"""

COLUMNS = ["age", "sex", "race", "education", "hours_per_week", "income"]

#: How the data came in (frames in memory, or files): all that differs, beyond the run context, between
#: the API and the CLI on the same data.
DATA_SOURCE = ("provenance.data_files", "provenance.manifest", "release.manifest_sha256", "release.role_sources")


def frames():
    original = pd.read_csv(DEMO / "adult_training.csv", keep_default_na=False, na_values=[""])[COLUMNS].head(300)
    holdout = pd.read_csv(DEMO / "adult_holdout.csv", keep_default_na=False, na_values=[""])[COLUMNS].head(300)
    rng = np.random.default_rng(3)
    return original, [BUILTIN["nonprivate"](original, 300, rng), BUILTIN["indhist"](original, 300, rng)], holdout


def comparable(report: dict) -> dict:
    """The report without its run context (clocks, paths, timings) and how the data came in."""
    out = without_run_context(report)
    for dotted in DATA_SOURCE:
        *parents, leaf = dotted.split(".")
        node = out
        for key in parents:
            node = node[key]
        node.pop(leaf, None)
    return out


def test_in_memory_check_gives_the_clis_report_on_the_same_data_written_to_files(tmp_path):
    original, synthetic, holdout = frames()
    policy_path = tmp_path / "api.policy.yaml"
    policy_path.write_text(POLICY)

    # The notebook: DataFrames in memory, nothing written.
    policy = pc.load_policy(policy_path)
    release = pc.Release(
        original=original,
        synthetic=synthetic,
        holdout=holdout,
        id="adult-300",
        synthesizer=[{"name": "nonprivate", "epsilon": 1.0}, {"name": "indhist"}],
    )
    before = set(tmp_path.rglob("*"))
    in_memory = pc.check(policy, release, executor="serial", progress=False)
    assert set(tmp_path.rglob("*")) == before

    # The command line on the same frames written as CSV with a manifest.
    for name, frame in (("original", original), ("syn0", synthetic[0]), ("syn1", synthetic[1]), ("holdout", holdout)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    (tmp_path / "release.yaml").write_text(
        "release: {id: adult-300}\noriginal: original.csv\nholdout: holdout.csv\nsynthetic:\n"
        "  - {path: syn0.csv, synthesizer: {name: nonprivate, epsilon: 1.0}}\n"
        "  - {path: syn1.csv, synthesizer: {name: indhist}}\n"
    )
    result = CliRunner().invoke(
        cli,
        ["check", str(policy_path), "-r", "release.yaml", "-o", "out", "-q", "--executor", "serial"],
        catch_exceptions=False,
    )
    assert result.exit_code == in_memory.exit_code == 1  # the bootstrap copy fails exact-copies
    from_files = json.loads((tmp_path / "out" / "report.json").read_text())

    assert comparable(in_memory.data) == comparable(from_files)
    # The frames' hashes are those of the CSV files they were written to.
    assert [d["sha256"] for d in in_memory.data["release"]["datasets"]] == [
        d["sha256"] for d in from_files["release"]["datasets"]
    ]


def test_the_callers_frames_are_not_modified(toy_metric):
    original = pd.DataFrame(
        {
            "age": [30, 41, 52, 23],
            "sex": ["Male", "Female", "Male", "Male"],
            "income": ["<=50K", ">50K", "<=50K", ">50K"],
        },
        index=[7, 8, 9, 10],
    )
    synthetic = original.iloc[[0, 0, 1, 2]]
    kept = original.copy(), synthetic.copy()
    release = pc.Release(original=original, synthetic=synthetic)
    pc.check(TOY_POLICY_FILE(), release, executor="serial", progress=False)
    pd.testing.assert_frame_equal(original, kept[0])
    pd.testing.assert_frame_equal(synthetic, kept[1])


def TOY_POLICY_FILE(text: str = TOY_POLICY):  # noqa: N802 - reads like the constant it writes
    from pathlib import Path

    path = Path("toy.policy.yaml")
    path.write_text(text)
    return path


def test_report_reads_the_verdict_exit_code_and_rules(toy_metric, toy_release):
    report = pc.check(TOY_POLICY_FILE(), pc.load_release(toy_release["manifest"]), executor="serial", progress=False)
    # toy_share: 5 of the 6 synthetic rows are Male, 0.8333 > warn_above 0.6.
    assert (report.verdict, report.passed, report.exit_code) == ("warn", True, 0)
    frame = report.to_frame()
    assert list(frame.columns) == [
        "id",
        "metric",
        "severity",
        "verdict",
        "value",
        "interval",
        "interval_level",
        "interval_of",
        "threshold",
        "worst_set",
    ]
    assert frame.loc[0, "value"] == pytest.approx(5 / 6)
    assert frame.loc[0, "threshold"] == "fail if > 0.9, warn if > 0.6 (on the estimate)"


def test_fail_on_warn_makes_a_warning_fail_the_release(toy_metric, toy_release):
    report = pc.check(
        TOY_POLICY_FILE(),
        pc.load_release(toy_release["manifest"]),
        executor="serial",
        progress=False,
        fail_on_warn=True,
    )
    assert (report.passed, report.exit_code) == (False, 1)


def test_report_write_writes_only_the_formats_asked(toy_metric, toy_release, tmp_path):
    report = pc.check(TOY_POLICY_FILE(), pc.load_release(toy_release["manifest"]), executor="serial", progress=False)
    written = report.write(tmp_path / "run1", formats=["json", "sarif"])
    assert sorted(p.name for p in written) == ["report.json", "report.sarif"]
    assert sorted(p.name for p in (tmp_path / "run1").iterdir()) == ["report.json", "report.sarif"]
    assert json.loads((tmp_path / "run1" / "report.json").read_text()) == report.data


def test_repr_html_is_a_compact_escaped_table(toy_metric, tmp_path):
    original = pd.DataFrame(
        {
            "age": [30, 41, 52, 23],
            "sex": ["Male", "Female", "Male", "Male"],
            "income": ["<=50K", ">50K", "<=50K", ">50K"],
        }
    )
    release = pc.Release(original=original, synthetic=original, id="<b>x</b>")
    page = pc.check(TOY_POLICY_FILE(), release, executor="serial", progress=False)._repr_html_()
    assert page.count("<tr>") == 2  # header + one rule
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "WARN" in page


def test_load_policy_raises_policy_error_with_located_problems(toy_metric):
    path = TOY_POLICY_FILE(TOY_POLICY.replace("toy_share", "toy_shar"))
    with pytest.raises(pc.PolicyError) as caught:
        pc.load_policy(path)
    assert [str(p) for p in caught.value.problems] == [
        "toy.policy.yaml:5:5: unknown metric 'toy_shar' (did you mean 'toy_share'?)"
    ]


def test_validate_returns_problems_without_raising(toy_metric):
    assert pc.validate(TOY_POLICY_FILE()) == []
    problems = pc.validate(TOY_POLICY_FILE("metadata: [\n"))
    assert len(problems) == 1 and str(problems[0]).startswith("toy.policy.yaml:2:1: invalid YAML")


def test_check_validates_the_policy_against_the_release_columns(toy_metric):
    release = pc.Release(
        original=pd.DataFrame({"age": [1, 2, 3], "gender": ["a", "b", "a"]}),
        synthetic=pd.DataFrame({"age": [1, 2, 3], "gender": ["a", "b", "b"]}),
    )
    with pytest.raises(pc.PolicyError, match="column 'sex' is not in the release"):
        pc.check(TOY_POLICY_FILE(), release, executor="serial", progress=False)


def test_a_bad_frame_is_one_named_problem():
    original = pd.DataFrame({"age": [30, 41], "sex": ["M", "F"]})
    with pytest.raises(pc.InputError) as caught:
        pc.Release(original=original, synthetic=original.drop(columns="sex"))
    assert str(caught.value) == "synthetic[0] (DataFrame): columns differ from the original: missing columns ['sex']"


def test_a_bad_synthesizer_declaration_is_refused_in_a_manifests_words():
    original = pd.DataFrame({"age": [30, 41], "sex": ["M", "F"]})
    with pytest.raises(pc.InputError) as caught:
        pc.Release(original=original, synthetic=original, synthesizer={"epsilon": -1})
    assert str(caught.value) == "synthesizer[0]: epsilon: input should be greater than 0 (got -1)"


def test_a_number_for_a_synthesizer_name_gets_no_yaml_quoting_advice():
    original = pd.DataFrame({"age": [30, 41], "sex": ["M", "F"]})
    with pytest.raises(pc.InputError) as caught:
        pc.Release(original=original, synthetic=original, synthesizer={"name": 5})
    assert str(caught.value) == "synthesizer[0]: name: input should be a valid string (got 5)"


def test_a_misspelt_column_type_is_told_the_nearest_type():
    original = pd.DataFrame({"age": [30, 41], "sex": ["M", "F"]})
    with pytest.raises(pc.InputError) as caught:
        pc.Release(original=original, synthetic=original, columns={"age": "numerc"})
    assert str(caught.value) == (
        "columns['age']: type: 'numerc' is not one of 'numeric', 'categorical', 'ordinal', 'datetime', 'id' "
        "or 'ignore' (did you mean 'numeric'?)"
    )


def test_a_misspelt_column_declaration_key_is_told_the_nearest_key():
    original = pd.DataFrame({"age": [30, 41], "sex": ["M", "F"]})
    with pytest.raises(pc.InputError) as caught:
        pc.Release(original=original, synthetic=original, columns={"age": {"typ": "numeric"}})
    assert str(caught.value).splitlines() == [
        "columns['age']: missing required key 'type'",
        "columns['age']: unknown key 'typ' (did you mean 'type'?)",
    ]


def test_an_invalid_dp_mechanism_declaration_is_refused_with_the_release():
    original = pd.DataFrame({"age": [30, 41], "sex": ["M", "F"]})
    with pytest.raises(pc.InputError) as caught:
        pc.Release(original=original, synthetic=original, synthesizer={"name": "x", "mechanism": "gaussian"})
    assert (
        str(caught.value) == "synthesizer[0]: invalid DP mechanism: mechanism 'gaussian' needs rho or noise_multiplier"
    )


def test_named_synthetic_sets_keep_their_names():
    original = pd.DataFrame({"age": [30, 41], "sex": ["M", "F"]})
    release = pc.Release(original=original, synthetic={"ctgan": original, "tvae": original})
    assert release.synthetic_names == ["ctgan", "tvae"]
    assert release.columns == {"age": "numeric", "sex": "categorical"}


def test_the_package_ships_type_hints():
    from importlib.resources import files

    assert files("policycheck").joinpath("py.typed").is_file()


def test_the_package_exports_exactly_the_apis_names():
    # policycheck/__init__.py lists the names statically (for type checkers) and loads them lazily.
    import policycheck
    from policycheck.interfaces import api

    assert sorted(policycheck.__all__) == sorted([*api.__all__, "__version__"])
    assert all(getattr(policycheck, name) is getattr(api, name) for name in api.__all__)


def test_report_write_refuses_to_replace_an_input(toy_metric, toy_release, tmp_path):
    (tmp_path / "run1").mkdir()
    policy = tmp_path / "run1" / "report.json"
    policy.write_text(TOY_POLICY)
    report = pc.check(policy, pc.load_release(toy_release["manifest"]), executor="serial", progress=False)
    with pytest.raises(pc.InputError, match="run1/report.json: an input of this check would be overwritten"):
        report.write(tmp_path / "run1")
    assert policy.read_text() == TOY_POLICY


def test_report_read_refuses_a_key_written_twice(toy_metric, toy_release, tmp_path):
    report = pc.check(TOY_POLICY_FILE(), pc.load_release(toy_release["manifest"]), executor="serial", progress=False)
    report.write(tmp_path / "run1", formats=["json"])
    assert pc.Report.read(tmp_path / "run1" / "report.json").data == report.data
    text = (tmp_path / "run1" / "report.json").read_text()
    (tmp_path / "run1" / "report.json").write_text(
        text.replace('"verdict": "warn"', '"verdict": "pass", "verdict": "warn"', 1)
    )
    with pytest.raises(pc.InputError, match="key 'verdict' appears twice"):
        pc.Report.read(tmp_path / "run1" / "report.json")


def test_a_loaded_policy_is_checked_without_reading_its_file_again(toy_metric, toy_release):
    policy = pc.load_policy(TOY_POLICY_FILE())
    policy.path.write_text("not: [a policy\n")  # a second read would fail
    report = pc.check(policy, pc.load_release(toy_release["manifest"]), executor="serial", progress=False)
    assert report.verdict == "warn"


def test_a_loaded_policy_naming_a_column_the_release_lacks_is_refused_before_computing(toy_metric, toy_release):
    policy = pc.load_policy(TOY_POLICY_FILE(TOY_POLICY.replace("column: sex", "column: gender")))
    with pytest.raises(pc.PolicyError) as exc:
        pc.check(policy, pc.load_release(toy_release["manifest"]), executor="serial", progress=False)
    assert [p.message for p in exc.value.problems] == ["column 'gender' is not in the release"]
