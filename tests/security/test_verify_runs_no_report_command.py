"""verify never runs a command a report names (issue 16, item 1).

The attribute-inference game re-runs the release's synthesizer command.
A report is someone else's file: a command planted in it must not run, and
verify must say that rule was not re-run instead of "verified". The
auditor re-runs the rule by naming a manifest they trust (``--manifest``),
whose hash must be the report's, and asking for its command to run
(``--run-synthesizer``), as ``check`` asks. The script the command names is
hashed by the check and re-hashed by verify before anything runs.
"""

import json
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from policycheck.interfaces.cli import cli

SYNTH = """\
import sys, pandas as pd
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
frame = pd.read_csv(args["--input"])
sample = frame.sample(n=int(args["--rows"]), replace=True, random_state=int(args["--seed"]) % 2**32)
sample.to_csv(args["--output"], index=False)
"""

POLICY = """\
metadata: {id: game, title: Game policy, version: "1", owner: tests}
attacker: {model: maximum-knowledge, quasi_identifiers: [age, sex], secrets: [income]}
rules:
  - id: game
    metric: attribute_inference_advantage
    params: {secret: income, attack: exact, synthesizer: release, repetitions: 2}
    threshold: {fail_above: 1.0}
"""


@pytest.fixture
def release(tmp_path):
    rng = __import__("numpy").random.default_rng(0)
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 70, 40),
            "sex": rng.choice(["F", "M"], 40),
            "income": rng.choice(["<=50K", ">50K"], 40),
        }
    )
    frame.to_csv(tmp_path / "original.csv", index=False)
    frame.sample(40, replace=True, random_state=1).to_csv(tmp_path / "synthetic.csv", index=False)
    (tmp_path / "synth.py").write_text(SYNTH)
    command = f"{sys.executable} synth.py --input {{input}} --output {{output}} --rows {{rows}} --seed {{seed}}"
    (tmp_path / "release.yaml").write_text(
        "release: {id: game-release}\noriginal: original.csv\nsynthetic:\n  - path: synthetic.csv\n"
        f"    synthesizer: {{name: bootstrap, command: {json.dumps(command)}}}\n"
    )
    (tmp_path / "p.yaml").write_text(POLICY)
    return tmp_path


def _check(runner, *release_args):
    # The user checking the release asks for its command to run; verify is then judged on its own.
    args = ["check", "p.yaml", *release_args, "-o", "out", "-q", "--executor", "serial", "--run-synthesizer"]
    result = runner.invoke(cli, args)
    assert result.exit_code in (0, 1, 3), result.output
    return json.loads(open("out/report.json").read())


def _verify(runner, *args):
    return runner.invoke(cli, ["verify", "out/report.json", "--root", ".", "-q", "--executor", "serial", *args])


def _marking(release, planted):
    """synth.py, made to leave ``planted`` when it runs."""
    (release / "synth.py").write_text(f"open({str(planted)!r}, 'w').close()\n" + SYNTH)


def _plant(report, planted):
    for d in report["release"]["datasets"]:
        if d["role"] == "synthetic":
            d["synthesizer"] = {**(d["synthesizer"] or {}), "command": f"touch {planted} {{output}}"}
    with open("out/report.json", "w") as fh:
        json.dump(report, fh, indent=2)


def test_a_command_planted_in_a_report_without_manifest_does_not_run(release):
    import hashlib

    runner = CliRunner()
    # A check of files alone no longer makes this report (a game re-running the release's synthesizer
    # needs one declared, and is refused before running without); a forger still can: a built-in's
    # report, edited to name the release's synthesizer and a command, its policy file changed to match.
    (release / "p.yaml").write_text(POLICY.replace("synthesizer: release", "synthesizer: nonprivate"))
    report = _check(runner, "--original", "original.csv", "--synthetic", "synthetic.csv")
    (release / "p.yaml").write_text(POLICY)
    report["provenance"]["policy_files"][0]["sha256"] = hashlib.sha256(POLICY.encode()).hexdigest()
    report["provenance"]["effective_policy"]["rules"][0]["params"]["synthesizer"] = "release"
    planted = release / "PWNED"
    _plant(report, planted)
    result = runner.invoke(cli, ["verify", "out/report.json", "--root", ".", "-q", "--executor", "serial"])
    assert not planted.exists()
    assert result.exit_code == 1, result.output
    assert (
        "rule game: not re-run: its synthesizer is the release's command, and verify runs no command a report names"
        in result.output
    )
    assert "NOT verified" in result.output
    assert not [line for line in result.output.splitlines() if line.startswith("verified")]


def test_a_command_planted_beside_a_manifest_does_not_run_and_is_named(release):
    runner = CliRunner()
    report = _check(runner, "-r", "release.yaml")
    planted = release / "PWNED"
    _plant(report, planted)
    result = runner.invoke(cli, ["verify", "out/report.json", "--root", ".", "-q", "--executor", "serial"])
    assert not planted.exists()
    assert result.exit_code == 1, result.output
    assert "rule game: not re-run" in result.output
    # The command the manifest declares is re-derived from it, and the planted one differs.
    assert "field release.datasets[1].synthesizer.command: report says" in result.output


def test_verify_re_runs_the_game_with_a_manifest_the_auditor_names(release):
    runner = CliRunner()
    report = _check(runner, "-r", "release.yaml")
    assert report["rules"][0]["verdict"] != "error", report["rules"][0]["error"]
    result = _verify(runner, "--manifest", "release.yaml", "--run-synthesizer")
    assert result.exit_code == 0, result.output
    # A manifest other than the report's is named as a different file.
    (release / "other.yaml").write_text((release / "release.yaml").read_text().replace("bootstrap", "other"))
    result = runner.invoke(
        cli, ["verify", "out/report.json", "--root", ".", "-q", "--executor", "serial", "--manifest", "other.yaml"]
    )
    assert result.exit_code == 1
    assert "file other.yaml: sha256" in result.output


def test_the_command_of_a_manifest_other_than_the_reports_does_not_run(release):
    runner = CliRunner()
    _check(runner, "-r", "release.yaml")
    planted = release / "PWNED"
    # The auditor names a manifest whose hash is not the report's: its command must not run before that is found.
    (release / "planted.py").write_text(f"open({str(planted)!r}, 'w').close()\n" + SYNTH)
    (release / "other.yaml").write_text((release / "release.yaml").read_text().replace("synth.py", "planted.py"))
    result = _verify(runner, "--manifest", "other.yaml", "--run-synthesizer")
    assert not planted.exists()
    assert result.exit_code == 1, result.output
    assert "file other.yaml: sha256" in result.output
    assert "rule game: not re-run: the manifest given with --manifest is not the one the report was made from" in (
        result.output
    )


MEMBERSHIP_POLICY = """\
metadata: {id: membership, title: Membership game policy, version: "1", owner: tests}
attacker: {model: maximum-knowledge}
rules:
  - id: game
    metric: membership_inference_advantage
    params: {synthesizer: release, repetitions: 4, targets: {vulnerable: 1, rare: 0, random: 1}, sample_size: 20}
    threshold: {fail_above: 1.0}
"""


def test_the_membership_game_re_runs_a_command_only_with_a_manifest_the_auditor_names(release):
    (release / "p.yaml").write_text(MEMBERSHIP_POLICY)
    runner = CliRunner()
    report = _check(runner, "-r", "release.yaml")
    assert report["rules"][0]["verdict"] != "error", report["rules"][0]["error"]
    assert report["rules"][0]["details"]["game"]["command_sha256"] is not None
    planted = release / "PWNED"
    _plant(report, planted)
    result = runner.invoke(cli, ["verify", "out/report.json", "--root", ".", "-q", "--executor", "serial"])
    assert not planted.exists() and result.exit_code == 1
    assert "rule game: not re-run" in result.output


def test_a_built_in_the_manifest_names_is_re_run_by_verify_without_a_manifest(release):
    (release / "p.yaml").write_text(MEMBERSHIP_POLICY)
    (release / "release.yaml").write_text(
        "release: {id: game-release}\noriginal: original.csv\nsynthetic:\n  - path: synthetic.csv\n"
        "    synthesizer: {name: bootstrap, builtin: nonprivate}\n"
    )
    runner = CliRunner()
    _check(runner, "-r", "release.yaml")
    result = runner.invoke(cli, ["verify", "out/report.json", "--root", ".", "-q", "--executor", "serial"])
    assert result.exit_code == 0, result.output


def test_a_rule_not_re_run_is_not_also_listed_as_a_method_missing_from_the_re_run(release):
    runner = CliRunner()
    _check(runner, "-r", "release.yaml")
    result = runner.invoke(cli, ["verify", "out/report.json", "--root", ".", "-q", "--executor", "serial"])
    assert result.exit_code == 1 and "rule game: not re-run" in result.output
    # The rule not re-run is the one difference: its method is not reported missing from the re-run.
    assert "field methods" not in result.output and "NOT verified: 1 difference" in result.output


def test_the_manifest_s_command_does_not_run_without_run_synthesizer(release):
    runner = CliRunner()
    planted = release / "PWNED"
    _marking(release, planted)
    _check(runner, "-r", "release.yaml")
    planted.unlink()
    result = _verify(runner, "--manifest", "release.yaml")
    assert not planted.exists()
    assert result.exit_code == 1, result.output
    command = f"{sys.executable} synth.py --input {{input}} --output {{output}} --rows {{rows}} --seed {{seed}}"
    assert (
        f"DIFFERS  rule game: not re-run: its synthesizer is the command the manifest declares, {command!r}; "
        "verify runs it only when asked: add --run-synthesizer"
    ) in result.output.splitlines()


def changed_script_lines(file: str, index: int, old: str, new: str) -> list[str]:
    """verify's last lines when ``file`` (the report's synthesizer file ``index``) changed from ``old`` to ``new``:
    the file's difference, the game not re-run because of it, and the count."""
    return [
        f"DIFFERS  file {file}: sha256 {old} -> {new} (at provenance.synthesizer_files[{index}].sha256)",
        f"DIFFERS  rule game: not re-run: its synthesizer command runs {file}, changed since the check "
        "(see above): the command was not run",
        "NOT verified: 2 differences",
    ]


def test_a_script_changed_since_the_check_is_a_difference_and_its_command_does_not_run(release):
    import hashlib

    runner = CliRunner()
    _check(runner, "-r", "release.yaml")
    planted = release / "PWNED"
    _marking(release, planted)
    result = _verify(runner, "--manifest", "release.yaml", "--run-synthesizer")
    assert not planted.exists()
    assert result.exit_code == 1, result.output
    old = hashlib.sha256(SYNTH.encode()).hexdigest()
    new = hashlib.sha256((release / "synth.py").read_bytes()).hexdigest()
    assert result.output.splitlines()[-3:] == changed_script_lines("synth.py", 0, old, new)


def test_a_module_the_script_imports_changed_since_the_check_is_a_difference_and_the_command_does_not_run(release):
    import hashlib

    runner = CliRunner()
    (release / "helpers.py").write_text("ROWS = None\n")
    (release / "synth.py").write_text("import helpers\n" + SYNTH)
    report = _check(runner, "-r", "release.yaml")
    assert report["provenance"]["synthesizer_files"][1] == {
        "file": "helpers.py",
        "sha256": hashlib.sha256(b"ROWS = None\n").hexdigest(),
        "imported_by": "synth.py",
    }
    planted = release / "PWNED"
    (release / "helpers.py").write_text(f"open({str(planted)!r}, 'w').close()\nROWS = None\n")
    result = _verify(runner, "--manifest", "release.yaml", "--run-synthesizer")
    assert not planted.exists()
    assert result.exit_code == 1, result.output
    old = hashlib.sha256(b"ROWS = None\n").hexdigest()
    new = hashlib.sha256((release / "helpers.py").read_bytes()).hexdigest()
    assert result.output.splitlines()[-3:] == changed_script_lines("helpers.py", 1, old, new)


def test_a_report_from_before_imports_were_hashed_verifies_when_its_script_imports_a_module(release, monkeypatch):
    import policycheck.engine.commands as commands
    import policycheck.report.build as build

    runner = CliRunner()
    (release / "helpers.py").write_text("ROWS = None\n")
    (release / "synth.py").write_text("import helpers\n" + SYNTH)
    with monkeypatch.context() as earlier:  # schema 1.5: the files the command names, not its imports
        earlier.setattr(build, "SCHEMA_VERSION", "1.5")
        earlier.setattr(commands, "local_imports", lambda script: [])
        report = _check(runner, "-r", "release.yaml")
    assert [f["file"] for f in report["provenance"]["synthesizer_files"]] == ["synth.py"]
    result = _verify(runner, "--manifest", "release.yaml", "--run-synthesizer")
    assert result.exit_code == 0, result.output


def test_a_report_recording_no_command_files_is_not_verified_and_its_command_does_not_run(release):
    from policycheck.report.integrity import seal, without_integrity

    runner = CliRunner()
    report = _check(runner, "-r", "release.yaml")
    # A report from before the command's files were recorded: its digests sealed without them.
    del report["provenance"]["synthesizer_files"]
    with open("out/report.json", "w") as fh:
        json.dump(seal(without_integrity(report)), fh, indent=2)
    for rendered in ("report.html", "report.md"):  # they carry the old digest
        (release / "out" / rendered).unlink()
    planted = release / "PWNED"
    _marking(release, planted)
    result = _verify(runner, "--manifest", "release.yaml", "--run-synthesizer")
    assert not planted.exists()
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[-2:] == [
        "DIFFERS  rule game: not re-run: the report does not record the files its synthesizer command names (a "
        "report from before they were recorded), so nothing shows the script that would run is the one the check "
        "ran: the command was not run",
        "NOT verified: 1 difference",
    ]


def test_run_synthesizer_without_a_manifest_is_a_usage_error(release):
    runner = CliRunner()
    _check(runner, "-r", "release.yaml")
    result = _verify(runner, "--run-synthesizer")
    assert result.exit_code == 2
    assert (
        result.output.strip()
        .splitlines()[-1]
        .startswith(
            "error: usage: --run-synthesizer needs --manifest: verify runs only a command a manifest you name declares "
        )
    )


def _run_as_module(release):
    """The release's command runs the synthesizer as a module, ``python -m synthpkg.run``."""
    (release / "synthpkg").mkdir()
    (release / "synthpkg" / "__init__.py").write_text("")
    (release / "synthpkg" / "util.py").write_text("")
    (release / "synthpkg" / "run.py").write_text("from synthpkg import util\n" + SYNTH)
    command = f"{sys.executable} -m synthpkg.run --input {{input}} --output {{output}} --rows {{rows}} --seed {{seed}}"
    (release / "release.yaml").write_text(
        "release: {id: game-release}\noriginal: original.csv\nsynthetic:\n  - path: synthetic.csv\n"
        f"    synthesizer: {{name: bootstrap, command: {json.dumps(command)}}}\n"
    )


def test_a_module_run_with_dash_m_changed_since_the_check_is_a_difference_and_the_command_does_not_run(release):
    import hashlib

    def sha256(path):
        return hashlib.sha256(path.read_bytes()).hexdigest()

    runner = CliRunner()
    _run_as_module(release)
    report = _check(runner, "-r", "release.yaml")
    by = {"imported_by": "synthpkg/run.py", "module": "synthpkg.run"}
    assert report["rules"][0]["error"] is None  # the module ran, as the verify below would run it
    assert report["provenance"]["synthesizer_files"][1:] == [
        {"file": "synthpkg/run.py", "sha256": sha256(release / "synthpkg/run.py"), "module": "synthpkg.run"},
        {"file": "synthpkg/util.py", "sha256": sha256(release / "synthpkg/util.py"), **by},
    ]
    verified = _verify(runner, "--manifest", "release.yaml", "--run-synthesizer")
    assert verified.exit_code == 0, verified.output  # as written, its keys in policycheck's order
    planted = release / "PWNED"
    (release / "synthpkg" / "run.py").write_text(
        f"open({str(planted)!r}, 'w').close()\nfrom synthpkg import util\n" + SYNTH
    )
    result = _verify(runner, "--manifest", "release.yaml", "--run-synthesizer")
    assert not planted.exists()
    assert result.exit_code == 1, result.output
    old = hashlib.sha256(("from synthpkg import util\n" + SYNTH).encode()).hexdigest()
    new = sha256(release / "synthpkg/run.py")
    assert result.output.splitlines()[-3:] == changed_script_lines("synthpkg/run.py", 1, old, new)


def test_a_report_from_before_dash_m_modules_were_hashed_verifies(release, monkeypatch):
    import policycheck.engine.commands as commands
    import policycheck.report.build as build

    runner = CliRunner()
    _run_as_module(release)
    with monkeypatch.context() as earlier:  # schema 1.6: a module run with -m is no file the command names
        earlier.setattr(build, "SCHEMA_VERSION", "1.6")
        earlier.setattr(commands, "python_module", lambda template: None)
        report = _check(runner, "-r", "release.yaml")
    assert report["provenance"]["synthesizer_files"] == []
    result = _verify(runner, "--manifest", "release.yaml", "--run-synthesizer")
    assert result.exit_code == 0, result.output


def test_a_script_that_imports_by_a_computed_name_is_named_in_the_report_s_findings(release):
    runner = CliRunner()
    (release / "synth.py").write_text("import importlib\npd = importlib.import_module('pan' + 'das')\n" + SYNTH)
    report = _check(runner, "-r", "release.yaml")
    assert report["release"]["findings"][-1] == (
        "synthesizer command: synth.py:2 (importlib.import_module) imports by a name or from a folder set when "
        "the command runs: the files reached so are not among the hashed synthesizer files, and verify cannot "
        "tell whether they changed; name those files in the command, or import them by name from the script's "
        "folder"
    )


def test_a_script_that_imports_only_by_name_gets_no_such_finding(release):
    report = _check(CliRunner(), "-r", "release.yaml")
    assert not [f for f in report["release"]["findings"] if f.startswith("synthesizer command:")]


def test_a_report_from_before_computed_imports_were_named_verifies_when_its_script_has_one(release, monkeypatch):
    import policycheck.engine.commands as commands
    import policycheck.report.build as build

    runner = CliRunner()
    (release / "synth.py").write_text("import importlib\npd = importlib.import_module('pan' + 'das')\n" + SYNTH)
    with monkeypatch.context() as earlier:  # schema 1.7: no finding for a computed import
        earlier.setattr(build, "SCHEMA_VERSION", "1.7")
        earlier.setattr(commands, "run_time_import_finding", lambda plan, release: None)
        report = _check(runner, "-r", "release.yaml")
    assert not [f for f in report["release"]["findings"] if f.startswith("synthesizer command:")]
    result = _verify(runner, "--manifest", "release.yaml", "--run-synthesizer")
    assert result.exit_code == 0, result.output


def test_a_report_naming_a_computed_import_verifies(release):
    runner = CliRunner()
    (release / "synth.py").write_text("import importlib\npd = importlib.import_module('pan' + 'das')\n" + SYNTH)
    _check(runner, "-r", "release.yaml")
    result = _verify(runner, "--manifest", "release.yaml", "--run-synthesizer")
    assert result.exit_code == 0, result.output
