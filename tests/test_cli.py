"""The command line as a user meets it: exit codes, one-line errors, outputs."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY

from policycheck.interfaces.cli import cli


@pytest.fixture
def runner():
    return CliRunner()


def invoke(runner, *args):
    return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_validate_accepts_a_good_policy(runner, toy_metric, write):
    result = invoke(runner, "validate", write("p.yaml", TOY_POLICY))
    assert result.exit_code == 0
    assert "p.yaml: ok (1 rule, attacker model no-box)" in result.output


def test_validate_notes_what_a_policy_of_release_level_membership_rules_does_not_test(runner):
    root = Path(__file__).resolve().parents[1]
    result = invoke(runner, "validate", root / "policies" / "baseline.policy.yaml")
    assert result.exit_code == 0  # a note, not a problem
    assert (
        "baseline.policy.yaml: note: not tested: No rule attacks single records: dcr-share, mi-risk measure the "
        "release as a whole"
    ) in result.stderr
    gdpr = invoke(runner, "validate", root / "policies" / "gdpr-three-criteria.policy.yaml")
    assert "not tested: No rule attacks single records: exact-copies, dcr-baseline measure the release" in gdpr.stderr
    playing = invoke(runner, "validate", root / "policies" / "demo.policy.yaml")
    assert playing.exit_code == 0 and "not tested" not in playing.stderr


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
    result = invoke(
        runner, "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "out", "-q", "--fail-on-warn"
    )
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


@pytest.mark.parametrize(
    ("options", "threads"),
    [(["--workers", "1"], 1), (["--workers", "3"], 3), (["--workers", "8"], 4), (["--executor", "serial"], 1)],
)
def test_check_gives_arrows_thread_pool_a_thread_per_worker_up_to_the_cores(
    runner, toy_metric, write, toy_release, options, threads, monkeypatch
):
    import pyarrow

    import policycheck.execution.executor as executor_module

    monkeypatch.setattr(executor_module, "available_cores", lambda: 4)  # a 4-core machine
    before = pyarrow.cpu_count()
    try:
        result = invoke(
            runner, "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "out", "-q", *options
        )
        assert result.exit_code == 0
        assert pyarrow.cpu_count() == threads
    finally:
        pyarrow.set_cpu_count(before)


def test_check_takes_the_release_from_flags(runner, toy_metric, write, toy_release):
    result = invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "--original",
        toy_release["original"],
        "--synthetic",
        toy_release["synthetic"],
        "-o",
        "out",
        "-q",
        "--seed",
        "7",
    )
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
    invoke(
        runner, "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "out", "-q", "--format", "md"
    )
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

    result = invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "-r",
        toy_release["manifest"],
        "-o",
        "out",
        "-q",
        "--export-reverse-mapped",
        "rm",
    )
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
    policy = write(
        "p.yaml",
        MISLED.replace("fail_above", "fail_below") + "  - id: narrowing\n"
        "    metric: linkage_range_narrowing\n    threshold: {fail_above: 0.1}\n",
    )
    result = invoke(runner, "plan", policy, "-r", toy_release["manifest"])
    assert result.exit_code == 2
    message = (
        "secret column 'income' is categorical without an order, so no range of its values can be narrowed; "
        "give its categories lowest first in params.orders, or choose a numeric or ordinal secret"
    )
    # One line per rule, each once, at the rule; nothing computed, no traceback.
    assert result.stderr.splitlines() == [f"p.yaml:4:5: {message}", f"p.yaml:7:5: {message}"]


def test_check_refuses_a_holdout_baseline_without_a_holdout_with_exit_2_before_running(
    runner, write, toy_release, tmp_path
):
    policy = write(
        "p.yaml",
        'metadata: {id: t, title: T, version: "1", owner: tests}\n'
        "attacker: {model: partially-informed, quasi_identifiers: [age, sex], secrets: [income]}\n"
        "rules:\n"
        "  - {id: cap, metric: cap_disclosure_protection, params: {baseline: holdout}, threshold: {fail_below: 0}}\n",
    )
    manifest = toy_release["manifest"]
    manifest.write_text(manifest.read_text().replace("holdout: holdout.csv\n", ""))
    result = invoke(runner, "check", policy, "-r", manifest, "-o", "out")
    assert result.exit_code == 2 and not (tmp_path / "out").exists()  # refused before computing
    assert result.stderr.splitlines() == [
        "p.yaml:4:59: baseline: holdout needs a holdout set, and the release has none; add the holdout records the "
        "synthesizer never saw, or use baseline: none (the raw measure, which needs levels of its own)"
    ]


def test_check_refuses_an_undeclared_reconstruction_secret_with_exit_2_before_running(runner, write, toy_release):
    policy = write(
        "p.yaml",
        MISLED.replace("maximum-knowledge", "partially-informed").replace(
            "linkage_consistently_misled", "reconstruction_accuracy\n    params: {secret: sex}"
        ),
    )
    result = invoke(runner, "check", policy, "-r", toy_release["manifest"], "-o", "out", "-q")
    assert result.exit_code == 2
    assert "p.yaml:6:14: secret 'sex' is not among the policy's declared secrets (income)" in result.stderr
    assert not (Path("out") / "report.json").exists()


def test_metrics_shows_each_metrics_threshold_direction(runner):
    out = invoke(runner, "metrics").output
    misled = out[out.index("linkage_consistently_misled (") :]
    assert misled.splitlines()[0:20].count("    threshold: fail_below (higher is safer)") == 1
    assert "    threshold: fail_above (higher is riskier)" in out


# --- column roles and release checks at load ----------------------------------


@pytest.fixture
def with_roles(write):
    """original.csv/synthetic.csv with an id, a date and a comment beside sex and income."""
    rows = "".join(
        f"{100 + i},2021-03-{1 + i % 28:02d},note {i},{'Male' if i % 3 else 'Female'},{i % 2}\n" for i in range(60)
    )
    header = "seqn,visit,comment,sex,income\n"
    return write("original.csv", header + rows), write("synthetic.csv", header + rows.replace("\n1", "\n9"))


def test_column_type_flags_give_id_ignore_and_datetime(runner, toy_metric, write, with_roles):
    original, synthetic = with_roles
    result = invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "--original",
        original,
        "--synthetic",
        synthetic,
        "--column-type",
        "seqn=id",
        "--column-type",
        "comment=ignore",
        "-o",
        "out",
        "-q",
    )
    assert result.exit_code in (0, 1), result.output
    release = json.loads(open("out/report.json").read())["release"]
    assert release["roles"] == {
        "seqn": "id",
        "visit": "datetime",
        "comment": "ignore",
        "sex": "categorical",
        "income": "numeric",
    }
    assert release["columns"] == {"visit": "numeric", "sex": "categorical", "income": "numeric"}


def test_metadata_flag_gives_roles(runner, toy_metric, write, with_roles):
    original, synthetic = with_roles
    metadata = write(
        "metadata.json",
        json.dumps(
            {
                "primary_key": "seqn",
                "columns": {
                    "seqn": {"sdtype": "id"},
                    "visit": {"sdtype": "datetime", "datetime_format": "%Y-%m-%d"},
                    "comment": {"sdtype": "text"},
                    "sex": {"sdtype": "categorical"},
                    "income": {"sdtype": "boolean"},
                },
            }
        ),
    )
    result = invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "--original",
        original,
        "--synthetic",
        synthetic,
        "--metadata",
        metadata,
        "-o",
        "out",
        "-q",
    )
    assert result.exit_code in (0, 1), result.output
    roles = json.loads(open("out/report.json").read())["release"]["roles"]
    assert roles == {
        "seqn": "id",
        "visit": "datetime",
        "comment": "ignore",
        "sex": "categorical",
        "income": "categorical",
    }


def test_unknown_column_type_is_a_usage_error(runner, toy_metric, write, toy_release):
    result = invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "--original",
        toy_release["original"],
        "--synthetic",
        toy_release["synthetic"],
        "--column-type",
        "age=key",
    )
    assert result.exit_code == 2
    assert (
        "--column-type 'age=key': expected NAME=TYPE with TYPE one of numeric, categorical, datetime, id, ignore"
        in result.output
    )


def test_column_types_beside_a_manifest_are_a_usage_error(runner, toy_metric, write, toy_release):
    result = invoke(
        runner, "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "--column-type", "age=id"
    )
    assert result.exit_code == 2
    assert "with --release, declare column types in the manifest" in result.output


def test_undeclared_id_column_exits_2_with_one_line_and_the_flag_that_settles_it(runner, toy_metric, write, with_roles):
    original, synthetic = with_roles
    result = invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "--original",
        original,
        "--synthetic",
        synthetic,
        "--column-type",
        "comment=ignore",
        "-o",
        "out",
        "-q",
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: original.csv: column 'seqn' looks like a record identifier (60 distinct values in 60 rows, counting "
        "up row by row): declare it `type: id` (manifest `columns: {seqn: id}` or --column-type seqn=id) to keep it "
        "out of the analysis, or declare its type (numeric, categorical) if it is an attribute",
        "1 column to declare; add to the command line:",
        "  --column-type seqn=id",
        "or, in a release manifest:",
        "columns:",
        "  seqn: id",
    ]


def test_training_file_given_as_every_set_exits_2(runner, toy_metric, write, toy_release):
    train = toy_release["original"]
    result = invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "--original",
        train,
        "--synthetic",
        train,
        "--holdout",
        train,
        "-o",
        "out",
        "-q",
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: original.csv: the holdout has the same file (sha256) as the original: a holdout must be real "
        "records the synthesizer never saw, in a file of its own"
    ]


def test_findings_are_printed_and_reported(runner, toy_metric, write, toy_release):
    train = toy_release["original"]
    result = invoke(
        runner,
        "check",
        write("p.yaml", TOY_POLICY),
        "--original",
        train,
        "--synthetic",
        train,
        "--holdout",
        toy_release["holdout"],
        "-o",
        "out",
        "-q",
    )
    finding = (
        "synthetic set 'synthetic[0]' has the same file (sha256) as the original: it is checked as a verbatim copy"
    )
    assert f"  finding: {finding}" in result.output.splitlines()
    assert json.loads(open("out/report.json").read())["release"]["findings"] == [finding]


COPY_POLICY = """\
metadata: {id: copies, title: Copies, version: "1", owner: tests}
attacker: {model: no-box}
rules:
  - id: exact-copies
    metric: exact_copy_share
    threshold: {fail_above: 0.01}
"""


def test_copy_with_regenerated_ids_fails_exact_copies_once_the_id_is_declared(runner, write):
    # Issue 11: left in, a regenerated id made a verbatim copy look new (exact_copy_share 0.000).
    def table(first_id, shift):
        return "pid,age,sex\n" + "".join(
            f"{first_id + i},{20 + (3 * i + shift) % 50},{'FM'[i % 2]}\n" for i in range(80)
        )

    original, copy = write("original.csv", table(1000, 0)), write("synthetic.csv", table(5000, 0))
    holdout = write("holdout.csv", table(9000, 1))
    result = invoke(
        runner,
        "check",
        write("p.yaml", COPY_POLICY),
        "--original",
        original,
        "--synthetic",
        copy,
        "--holdout",
        holdout,
        "--column-type",
        "pid=id",
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
    )
    assert result.exit_code == 1, result.output
    assert json.loads(open("out/report.json").read())["rules"][0]["value"] == 1.0  # every record is a copy


def test_plan_prints_release_findings_on_stderr(runner, toy_metric, write, toy_release):
    train = toy_release["original"]
    result = invoke(runner, "plan", write("p.yaml", TOY_POLICY), "--original", train, "--synthetic", train)
    assert result.exit_code == 0
    assert (
        "finding: synthetic set 'synthetic[0]' has the same file (sha256) as the original: it is checked as a "
        "verbatim copy"
    ) in result.stderr.splitlines()


def test_plan_refuses_a_rule_on_an_ignored_column_with_exit_2(runner, toy_metric, write, toy_release):
    manifest = toy_release["manifest"]
    manifest.write_text(manifest.read_text() + "columns:\n  sex: {type: ignore}\n")
    result = invoke(runner, "plan", write("p.yaml", TOY_POLICY), "-r", manifest)
    assert result.exit_code == 2
    message = (
        "column 'sex' is declared type ignore: ignore columns enter no attack, query or distance; "
        "choose an analysed column"
    )
    assert result.stderr.splitlines() == [f"p.yaml:2:47: {message}", f"p.yaml:6:14: {message}"]


@pytest.mark.parametrize(
    ("policy_key", "flags", "code"), [("", (), 0), ("on_inconclusive: fail\n", (), 1), ("", ("--fail-on-warn",), 1)]
)
def test_exit_code_of_an_inconclusive_blocking_rule_follows_on_inconclusive(
    runner, toy_metric, write, toy_release, policy_key, flags, code
):
    # 5/6 Male: estimate 0.833 within 0.9, Clopper-Pearson upper bound 0.996 beyond it.
    text = TOY_POLICY.replace("rules:", policy_key + "rules:").replace(
        "fail_above: 0.9, warn_above: 0.6, compare: estimate", "fail_above: 0.9, compare: upper"
    )
    result = invoke(runner, "check", write("p.yaml", text), "-r", toy_release["manifest"], "-o", "out", "-q", *flags)
    assert result.exit_code == code
    assert "  inconclusive male-share (toy_share): 0.8333 [0.3588, 0.9958]" in result.output


def test_check_reads_each_policy_file_once(runner, toy_metric, write, toy_release, monkeypatch):
    from policycheck.policy import source

    reads = []
    real = source.load_yaml
    monkeypatch.setattr(source, "load_yaml", lambda path, kind: reads.append(path) or real(path, kind))
    result = invoke(runner, "check", write("p.yaml", TOY_POLICY), "-r", toy_release["manifest"], "-o", "out", "-q")
    assert result.exit_code == 0 and [p.name for p in reads] == ["p.yaml"]


def test_the_reverse_mapped_export_is_what_the_linkage_metrics_presampled(runner, write, toy_release):
    import pandas as pd

    from policycheck.methods.linkage.export import export_reverse_mapped
    from policycheck.metrics.base import AttackerView, EvaluationContext
    from policycheck.release.load import load_manifest

    # Nine synthetic records for six original ones: pre-sampling draws six of them at random.
    original = pd.read_csv(toy_release["original"])
    pd.concat([original, original.iloc[:3]]).assign(age=lambda f: f["age"] + pd.Series(range(9), index=f.index)).to_csv(
        toy_release["synthetic"], index=False
    )
    linkage = MISLED.replace("fail_above", "fail_below").replace(
        "[age, sex], secrets: [income]", "[sex], secrets: [age]"
    )
    policy = write("p.yaml", linkage + "seed: 5\n")
    args = ("check", policy, "-r", toy_release["manifest"], "-o", "out", "-q", "--export-reverse-mapped", "rm")
    assert invoke(runner, *args).exit_code in (0, 1)
    release = load_manifest(toy_release["manifest"])
    # The linkage metrics' own streams: their evaluation context's rng under their pre-sampling key.
    ctx = EvaluationContext(release=release, attacker=AttackerView("maximum-knowledge", (), ()), seed=5)
    (expected,) = export_reverse_mapped(release, Path("expected"), [ctx.rng("linkage", "presample", 0)])
    (other_seed,) = export_reverse_mapped(release, Path("other"), [ctx.rng("linkage", "presample", 1)])
    exported = Path("rm/reverse_mapped_1_synthetic.csv").read_bytes()
    assert exported == expected.read_bytes() and exported != other_seed.read_bytes()


@pytest.mark.parametrize("workers", [1, 2])
def test_check_names_a_policys_problem_before_a_data_files(runner, toy_metric, write, toy_release, workers):
    # With two workers the files are read while the policy loads; the policy's problem still comes first.
    broken = write("p.yaml", TOY_POLICY.replace("toy_share", "toy_shar"))
    original = toy_release["manifest"].parent / "original.csv"
    result = invoke(
        runner, "check", broken, "--original", original, "--synthetic", "absent.csv", "--workers", workers, "-o", "out"
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["p.yaml:5:5: unknown metric 'toy_shar' (did you mean 'toy_share'?)"]
