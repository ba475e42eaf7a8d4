"""Invalid input exits 2 with one located line, before any computation (issue 16, items 6, 8, 9)."""

import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY

from policycheck.interfaces.cli import cli

HEAD = (
    'metadata: {id: x, title: X, version: "1", owner: o}\n'
    "attacker: {model: no-box, quasi_identifiers: [sex], secrets: [income]}\n"
)
RULE = "rules:\n  - {id: r, metric: toy_share, params: {column: sex, value: Male}, threshold: {fail_above: 0.9}}\n"


def _run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "text, expected",
    [
        (HEAD + "rules: 5\n", "p.yaml:3:1: rules: input should be a valid list (got 5)"),
        (
            HEAD + RULE + "waivers:\n  - {rule: r, reason: x, approved_by: y, expires: 2099-02-30}\n",
            "p.yaml:6:51: invalid YAML: invalid date '2099-02-30': day is out of range for month",
        ),
        (
            HEAD + "seed: " + "9" * 5000 + "\n" + RULE,
            "p.yaml:3:7: invalid YAML: integer with 5000 digits (at most 100)",
        ),
        (HEAD + "extends: " + "a" * 5000 + ".yaml\n" + RULE, "p.yaml:3:1: extended policy 'aaaa"),
        (HEAD.replace("id: x", 'id: "x\\ud83d"') + RULE, "p.yaml:1:12: metadata.id: input should be a valid string"),
        (HEAD + RULE.replace("{column: sex", "{ledger: missing.yaml, column: sex"), "p.yaml:4:"),
        (HEAD + RULE.replace("id: r,", "id: [r],"), "p.yaml:4:"),  # found by the fuzz suite
    ],
)
def test_invalid_policies_exit_2_with_one_located_line(toy_metric, write, toy_release, text, expected):
    write("p.yaml", text)
    for args in (
        ("validate", "p.yaml"),
        ("plan", "p.yaml"),
        ("check", "p.yaml", "-r", toy_release["manifest"], "-o", "out", "-q", "--executor", "serial"),
    ):
        code, _, err = _run(*args)
        lines = [line for line in err.splitlines() if not re.match(r"^\d+ problem", line)]
        assert code == 2, (args, err)
        assert len(lines) == 1 and lines[0].removeprefix("error: ").startswith(expected), (args, err)


def test_an_empty_extends_list_extends_nothing(toy_metric, write):
    write("p.yaml", HEAD + "extends: []\n" + RULE)
    code, out, err = _run("validate", "p.yaml")
    assert code == 0 and out == "p.yaml: ok (1 rule, attacker model no-box)\n", err


def test_a_missing_ledger_exits_2_before_computing(write, toy_release):
    write(
        "p.yaml",
        HEAD.replace("no-box", "maximum-knowledge") + "rules:\n  - id: eps\n    metric: dp_total_epsilon\n"
        "    params: {delta: 1.0e-5, ledger: ledgers/nope.yaml}\n    threshold: {fail_above: 5}\n",
    )
    code, out, err = _run("check", "p.yaml", "-r", toy_release["manifest"], "-o", "out", "-q", "--executor", "serial")
    assert (
        code == 2
        and err == "p.yaml:6:29: ledger file 'ledgers/nope.yaml' not found (paths are relative to the policy)\n"
    )


DP_BUDGET = (
    HEAD.replace("no-box", "maximum-knowledge") + "rules:\n  - id: eps\n    metric: dp_total_epsilon\n"
    "    params: {delta: 1.0e-5, ledger: ledger.yaml, accountant: ACCOUNTANT}\n"
    "    threshold: {fail_above: 5}\n"
)


def test_a_ledger_of_another_original_exits_2_before_computing(write, toy_release):
    import hashlib

    write("ledger.yaml", 'ledger_version: 1\noriginal:\n  sha256: "' + "ab" * 32 + '"\nreleases: []\n')
    write("p.yaml", DP_BUDGET.replace("ACCOUNTANT", "best"))
    own = hashlib.sha256(toy_release["original"].read_bytes()).hexdigest()
    code, _, err = _run("check", "p.yaml", "-r", toy_release["manifest"], "-o", "out", "-q", "--executor", "serial")
    assert code == 2
    assert err == (
        f"p.yaml:6:29: ledger ledger.yaml: lists releases of an original with sha256 {'ab' * 32}, "
        f"but this release's original has sha256 {own}\n"
    )


def test_an_accountant_only_the_ledgers_mechanisms_rule_out_exits_2_before_computing(write, toy_release):
    # The release's own set declares (1, 1e-6): PLD accounts for it; the ledger's zCDP set has no PLD.
    write(
        "ledger.yaml",
        "ledger_version: 1\nreleases:\n  - id: old\n    mechanisms:\n      - {mechanism: zcdp, rho: 0.01}\n",
    )
    write("p.yaml", DP_BUDGET.replace("ACCOUNTANT", "pld"))
    code, _, err = _run("check", "p.yaml", "-r", toy_release["manifest"], "-o", "out", "-q", "--executor", "serial")
    assert code == 2
    assert err == (
        "p.yaml:6:50: accountant 'pld' cannot account for the mechanisms ledger ledger.yaml records: "
        "a zCDP-only mechanism has no privacy loss distribution; use one of 'best', 'basic', 'advanced', "
        "'rdp'\n"
    )


def test_a_ledger_entry_of_this_release_is_not_judged_before_running(write, toy_release):
    # The rule counts such an entry once, as this release: its mechanisms do not rule the accountant out.
    write(
        "ledger.yaml",
        "ledger_version: 1\nreleases:\n  - id: toy-release\n    mechanisms:\n      - {mechanism: zcdp, rho: 0.01}\n",
    )
    write("p.yaml", DP_BUDGET.replace("ACCOUNTANT", "pld"))
    code, out, err = _run("validate", "p.yaml", "-r", toy_release["manifest"])
    assert code == 0, err


@pytest.mark.parametrize(
    "declared, expected",
    [
        (
            "{name: copy, mechanism: gaussian}",
            "release.yaml:6:31: synthetic set 'synthetic[0]' declares an invalid DP mechanism: "
            "mechanism 'gaussian' needs rho or noise_multiplier",
        ),
        (
            "{name: copy, mechanism: zcdp, rho: -1}",
            "release.yaml:6:48: synthetic set 'synthetic[0]' declares an invalid DP mechanism: "
            "rho: Input should be greater than 0",
        ),
        (
            "{name: copy, mechanism: pure, epsilon: 1.0, delta: 1e-6}",
            "release.yaml:6:31: synthetic set 'synthetic[0]' declares an invalid DP mechanism: "
            "a pure mechanism has delta 0; use 'approximate' for a positive delta",
        ),
    ],
)
def test_an_invalid_dp_mechanism_in_the_manifest_exits_2_at_its_line(
    toy_metric, write, toy_release, declared, expected
):
    # Refused when the manifest is read, whatever rules the policy has (here none reads it).
    manifest = toy_release["manifest"]
    manifest.write_text(manifest.read_text().replace("{name: copy, epsilon: 1.0, delta: 1e-6}", declared))
    write("p.yaml", TOY_POLICY)
    code, _, err = _run("check", "p.yaml", "-r", manifest, "-o", "out", "-q", "--executor", "serial")
    assert code == 2
    assert err == f"{expected}\n"


def test_an_output_path_that_is_a_file_is_refused_before_computing(toy_metric, write, toy_release):
    write("p.yaml", TOY_POLICY)
    write("taken", "precious")
    code, _, err = _run("check", "p.yaml", "-r", toy_release["manifest"], "-o", "taken", "-q", "--executor", "serial")
    assert code == 2
    assert err == "error: taken: the output path is an existing file, not a folder: name a folder for the reports\n"
    assert open("taken").read() == "precious"


def test_a_long_yaml_sequence_is_refused_at_the_node_cap_quickly(write):
    write("p.yaml", "rules:\n" + "- 1\n" * 240_000)  # 960 KB, under the byte cap
    started = time.process_time()
    code, _, err = _run("validate", "p.yaml")
    assert code == 2 and err.startswith("p.yaml:19999:3: invalid YAML: document has more than 20000 nodes")
    assert time.process_time() - started < 20


def test_a_policy_over_the_byte_cap_is_refused_unread(write):
    write("p.yaml", "rules:\n" + "- 1\n" * 1_250_000)  # 5 MB
    code, _, err = _run("validate", "p.yaml")
    assert code == 2 and err.startswith("error: p.yaml: policy file is larger than 1000000 bytes")


def test_a_ledger_alias_bomb_is_refused(write):
    from policycheck.methods.dp.ledger import LedgerError, load_ledger

    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"] + [
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]" for p, c in zip("abcdef", "bcdefg", strict=False)
    ]
    path = write("l.yaml", "ledger_version: 1\n" + "\n".join(levels) + "\nreleases: []\n")
    with pytest.raises(LedgerError, match="expands to more than 20000 nodes"):
        load_ledger(path)


def test_the_game_synthetic_size_is_bounded(write):
    write(
        "p.yaml",
        HEAD.replace("no-box", "maximum-knowledge") + "rules:\n  - id: g\n    metric: attribute_inference_advantage\n"
        "    params: {secret: income, synthesizer: bootstrap, synthetic_size: 10000000}\n"
        "    threshold: {fail_above: 0.5}\n",
    )
    code, _, err = _run("validate", "p.yaml")
    assert code == 2 and "synthetic_size: input should be less than or equal to 1000000" in err


def test_a_release_id_with_newlines_prints_no_fake_lines(toy_metric, write, toy_release):
    write("p.yaml", TOY_POLICY)
    manifest = toy_release["manifest"]
    manifest.write_text(
        manifest.read_text().replace("id: toy-release", 'id: "r\\n  pass   forged (toy_share): 0\\x1b[2J"')
    )
    code, out, _ = _run("check", "p.yaml", "-r", manifest, "-o", "out", "-q", "--executor", "serial")
    assert code == 0
    assert not [line for line in out.splitlines() if line.startswith("  pass   forged")]
    assert "\x1b" not in out and "on r\\n  pass   forged (toy_share): 0\\x1b[2J: WARN" in out


def test_verify_does_not_read_files_outside_its_root(toy_metric, write, toy_release, tmp_path):
    write("p.yaml", TOY_POLICY)
    assert _run("check", "p.yaml", "-r", toy_release["manifest"], "-o", "out", "-q", "--executor", "serial")[0] == 0
    inner = tmp_path / "inner"
    inner.mkdir()
    code, out, _ = _run("verify", "out/report.json", "--root", tmp_path, "-q", "--executor", "serial")
    assert code == 0 and "ok       p.yaml  sha256 " in out
    # Seen from a root below the files, every file is outside it (links are followed): none is read.
    import shutil

    shutil.copytree(tmp_path / "out", inner / "out")
    for name in ("p.yaml", "release.yaml", "original.csv", "synthetic.csv", "holdout.csv"):
        (inner / name).symlink_to(tmp_path / name)
    code, out, err = _run("verify", inner / "out/report.json", "--root", inner, "-q", "--executor", "serial")
    assert code == 2 and "sha256" not in out
    assert err.splitlines()[0] == (
        "error: p.yaml: file named in the report is outside inner, the folder verify "
        "reads: not read (--root DIR names another folder, --show-external reads files "
        "outside it)"
    )
    code, out, _ = _run(
        "verify", inner / "out/report.json", "--root", inner, "-q", "--executor", "serial", "--show-external"
    )
    assert code == 0 and "ok       p.yaml  sha256 " in out


# --- issue 23 -------------------------------------------------------------------


def test_terminal_escapes_from_a_policy_are_escaped_in_every_report_format(toy_metric, write, toy_release):
    write(
        "p.yaml",
        TOY_POLICY.replace("title: Toy policy", 'title: "Toy\\e]0;pwned\\a policy"')
        + 'waivers:\n  - {rule: male-share, reason: "x\\e[31m", approved_by: "\\e[2J\\e[Hboss",\n'
        + "     expires: 2099-01-01}\n",
    )
    code, _, err = _run(
        "check",
        "p.yaml",
        "-r",
        toy_release["manifest"],
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
        "--format",
        "json,html,md,junit,sarif",
    )
    assert code == 0, err
    for name in ("report.html", "report.md", "report.junit.xml", "report.sarif", "report.json"):
        text = open(f"out/{name}", encoding="utf-8").read()
        assert not [c for c in text if ord(c) < 32 and c not in "\n\t"], name
    assert "\\x1b[2J\\x1b[Hboss" in open("out/report.html").read()
    assert "Toy\\x1b]0;pwned\\x07 policy" in open("out/report.md").read()


def test_an_output_that_would_replace_the_policy_is_refused(toy_metric, write, toy_release):
    write("report.json", TOY_POLICY)
    code, _, err = _run("check", "report.json", "-r", toy_release["manifest"], "-o", ".", "-q", "--executor", "serial")
    assert code == 2
    assert err == (
        "error: report.json: an input of this check would be overwritten by the report written there: "
        "name another output folder with -o\n"
    )
    assert open("report.json").read() == TOY_POLICY


@pytest.mark.parametrize("role", ["manifest", "extended policy", "ledger", "metadata"])
def test_an_output_that_would_replace_any_other_input_is_refused(toy_metric, write, toy_release, role):
    # Data files cannot be named as reports are (.csv, .parquet, .feather); every YAML and JSON input can.
    Path("out").mkdir()
    policy = TOY_POLICY
    manifest = Path(toy_release["manifest"])
    if role == "manifest":
        text = manifest.read_text()
        for name in ("original", "synthetic", "holdout"):
            text = text.replace(f"{name}.csv", f"../{name}.csv")
        manifest = write("out/report.md", text)
    elif role == "extended policy":
        write("out/report.md", "seed: 3\n")
        policy = "extends: out/report.md\n" + policy
    elif role == "ledger":
        write("out/report.md", "ledger_version: 1\nreleases: []\n")
        policy = policy.replace(
            "rules:\n",
            "rules:\n  - id: eps\n    metric: dp_total_epsilon\n"
            "    params: {delta: 1.0e-5, ledger: out/report.md}\n"
            "    threshold: {fail_above: 5}\n",
        )
    else:
        write("out/report.md", '{"columns": {"age": {"sdtype": "numerical"}}}')
        manifest.write_text(manifest.read_text() + "metadata: out/report.md\n")
    write("p.yaml", policy)
    before = Path("out/report.md").read_bytes()
    code, _, err = _run("check", "p.yaml", "-r", manifest, "-o", "out", "-q", "--executor", "serial")
    assert code == 2, err
    assert err == (
        "error: out/report.md: an input of this check would be overwritten by the report written there: "
        "name another output folder with -o\n"
    )
    assert Path("out/report.md").read_bytes() == before


def test_diff_and_index_refuse_to_write_over_a_report_they_read(toy_metric, write, toy_release):
    write("p.yaml", TOY_POLICY)
    assert _run("check", "p.yaml", "-r", toy_release["manifest"], "-o", "out", "-q", "--executor", "serial")[0] == 0
    before = open("out/report.json").read()
    code, _, err = _run("diff", "out/report.json", "out/report.json", "--format", "html", "-o", "out/report.json")
    assert code == 2 and err.startswith("error: out/report.json: an input of this diff would be overwritten")
    code, _, err = _run("index", "out", "-o", "out/report.json")
    assert code == 2 and err.startswith("error: out/report.json: an input of this index would be overwritten")
    assert open("out/report.json").read() == before


def test_an_output_through_a_dangling_link_creates_nothing_elsewhere(toy_metric, write, toy_release, tmp_path):
    write("p.yaml", TOY_POLICY)
    Path("out").symlink_to(tmp_path / "elsewhere" / "a" / "b")
    code, _, err = _run("check", "p.yaml", "-r", toy_release["manifest"], "-o", "out", "-q", "--executor", "serial")
    assert code == 2
    assert err == (
        f"error: out: the output path is a symbolic link to {tmp_path / 'elsewhere' / 'a' / 'b'}, "
        "which does not exist: create that folder or name another\n"
    )
    assert not (tmp_path / "elsewhere").exists()


def test_the_current_folder_as_output_holding_only_reports_is_written_in_place(
    toy_metric, write, toy_release, tmp_path
):
    import os
    import shutil

    write("p.yaml", TOY_POLICY)
    for name in ("original", "synthetic", "holdout"):
        shutil.move(toy_release[name], tmp_path / f"{name}.csv")
    (tmp_path / "run").mkdir()
    os.chdir(tmp_path / "run")
    code, _, err = _run("check", "../p.yaml", "-r", "../release.yaml", "-o", ".", "-q", "--executor", "serial")
    assert code == 0, err
    code, _, err = _run("check", "../p.yaml", "-r", "../release.yaml", "-o", ".", "-q", "--executor", "serial")
    assert code == 0, err
    assert sorted(os.listdir(".")) == ["report.html", "report.json", "report.md"]


def test_an_export_that_would_replace_a_synthetic_set_is_refused(toy_metric, write, toy_release):
    import shutil

    # Set 1 (syn.csv) is exported as reverse_mapped_1_syn.csv, the name set 2 was given.
    write("p.yaml", TOY_POLICY)
    Path("exports").mkdir()
    shutil.copy(toy_release["synthetic"], "syn.csv")
    shutil.copy(toy_release["synthetic"], "exports/reverse_mapped_1_syn.csv")
    before = Path("exports/reverse_mapped_1_syn.csv").read_bytes()
    code, _, err = _run(
        "check",
        "p.yaml",
        "--original",
        toy_release["original"],
        "--synthetic",
        "syn.csv",
        "--synthetic",
        "exports/reverse_mapped_1_syn.csv",
        "--holdout",
        toy_release["holdout"],
        "-o",
        "out",
        "-q",
        "--executor",
        "serial",
        "--export-reverse-mapped",
        "exports",
    )
    assert code == 2
    assert err == (
        "error: exports/reverse_mapped_1_syn.csv: an input of this check would be overwritten by its "
        "reverse-mapped export: name another folder with --export-reverse-mapped\n"
    )
    assert Path("exports/reverse_mapped_1_syn.csv").read_bytes() == before and not Path("out").exists()
