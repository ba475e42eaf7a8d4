"""check runs no command a manifest declares unless the user asks (``--run-synthesizer``).

A manifest is often a vendor's file. The attack games re-run the release's
synthesizer, and a manifest's ``command:`` is a program: checking a vendor's
release with a policy whose game rules say ``synthesizer: release`` must not
run it unasked. Without the flag the check stops before any work, exit 2,
one line per rule naming the manifest, the rule and the command.
"""

import json
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

import policycheck as pc
from policycheck.interfaces.cli import cli

#: The synthesizer a vendor's manifest names: it leaves a mark, then bootstraps the records it is given.
SYNTH = """\
import sys, pathlib, pandas as pd
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
pathlib.Path("RAN").touch()
frame = pd.read_csv(args["--input"])
frame.sample(n=int(args["--rows"]), replace=True, random_state=int(args["--seed"]) % 2**32).to_csv(
    args["--output"], index=False
)
"""

GAME_POLICY = """\
metadata: {id: vendor-check, title: Vendor release, version: "1", owner: tests}
attacker: {model: maximum-knowledge}
rules:
  - id: membership-game
    metric: membership_inference_advantage
    params: {synthesizer: release, repetitions: 4, targets: {vulnerable: 1, rare: 0, random: 1}, sample_size: 20}
    threshold: {fail_above: 1.0}
"""

DISTANCE_POLICY = """\
metadata: {id: distances, title: Distances only, version: "1", owner: tests}
attacker: {model: no-box}
rules:
  - {id: dcr-share, metric: dcr_share, threshold: {fail_above: 0.99}}
"""


@pytest.fixture
def vendor(tmp_path, monkeypatch):
    rng = __import__("numpy").random.default_rng(0)
    frame = pd.DataFrame(
        {"age": rng.integers(20, 70, 60), "sex": rng.choice(["F", "M"], 60), "income": rng.choice(["lo", "hi"], 60)}
    )
    frame[:40].to_csv(tmp_path / "original.csv", index=False)
    frame[40:].to_csv(tmp_path / "holdout.csv", index=False)
    frame[:40].sample(40, replace=True, random_state=1).to_csv(tmp_path / "synthetic.csv", index=False)
    (tmp_path / "synth.py").write_text(SYNTH)
    command = f"{sys.executable} synth.py --input {{input}} --output {{output}} --rows {{rows}} --seed {{seed}}"
    (tmp_path / "release.yaml").write_text(
        "release: {id: vendor}\noriginal: original.csv\nholdout: holdout.csv\nsynthetic:\n"
        "  - path: synthetic.csv\n    name: vendor-set\n"
        f"    synthesizer: {{name: vendor, command: {json.dumps(command)}}}\n"
    )
    (tmp_path / "game.yaml").write_text(GAME_POLICY)
    (tmp_path / "distances.yaml").write_text(DISTANCE_POLICY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(*args):
    return CliRunner().invoke(cli, ["check", *args, "-r", "release.yaml", "-o", "out", "-q", "--executor", "serial"])


def test_a_game_rule_does_not_run_the_manifest_command_unasked(vendor):
    result = _check("game.yaml")
    assert result.exit_code == 2
    assert not (vendor / "RAN").exists()
    assert not (vendor / "out").exists()  # stopped before any work: no report written


def test_the_refusal_is_one_line_naming_the_manifest_the_rule_and_the_command(vendor):
    lines = _check("game.yaml").output.strip().splitlines()
    assert len(lines) == 1
    rule = "rule 'membership-game' (policy 'vendor-check')"
    assert lines[0].startswith(f"error: release.yaml: {rule} would run the command synthetic set 'vendor-set' declares")
    assert "synth.py --input {input}" in lines[0] and "--run-synthesizer" in lines[0]


def test_no_policy_runs_when_a_later_one_would_run_the_command(vendor):
    result = _check("distances.yaml", "game.yaml")
    assert result.exit_code == 2
    assert not (vendor / "out").exists()


def test_run_synthesizer_lets_the_game_run_the_manifest_command(vendor):
    result = _check("game.yaml", "--run-synthesizer")
    assert result.exit_code in (0, 1), result.output
    assert (vendor / "RAN").exists()
    rule = json.loads((vendor / "out" / "report.json").read_text())["rules"][0]
    assert rule["verdict"] != "error", rule["error"]


def test_a_check_that_runs_the_command_records_the_sha256_of_the_script_it_names(vendor):
    import hashlib

    result = _check("game.yaml", "--run-synthesizer")
    assert result.exit_code in (0, 1), result.output
    provenance = json.loads((vendor / "out" / "report.json").read_text())["provenance"]
    # the interpreter, an absolute path, is the machine's; the script, relative to the policy's folder, the release's
    sha = hashlib.sha256(SYNTH.encode()).hexdigest()
    assert provenance["synthesizer_files"] == [{"file": "synth.py", "sha256": sha}]


def test_a_check_that_runs_no_command_records_no_command_files(vendor):
    result = _check("distances.yaml")
    assert result.exit_code in (0, 1), result.output
    assert "synthesizer_files" not in json.loads((vendor / "out" / "report.json").read_text())["provenance"]


def test_a_policy_without_game_rules_checks_a_manifest_with_a_command(vendor):
    result = _check("distances.yaml")
    assert result.exit_code in (0, 1), result.output
    assert not (vendor / "RAN").exists()


def test_the_api_refuses_the_command_unless_run_synthesizer_is_true(vendor):
    release = pc.load_release("release.yaml")
    with pytest.raises(pc.InputError, match="would run the command"):
        pc.check("game.yaml", release, executor="serial", progress=False)
    assert not (vendor / "RAN").exists()
    report = pc.check("game.yaml", release, executor="serial", progress=False, run_synthesizer=True)
    assert (vendor / "RAN").exists() and report.rules[0]["verdict"] != "error"


def test_plan_says_which_rule_runs_the_command_and_that_check_needs_the_flag(vendor):
    result = CliRunner().invoke(cli, ["plan", "game.yaml", "-r", "release.yaml"])
    assert result.exit_code == 0, result.output
    assert (
        "note: rule membership-game runs the command synthetic set 'vendor-set' declares, "
        f"'{sys.executable} synth.py --input {{input}} --output {{output}} --rows {{rows}} --seed {{seed}}': "
        "`check` runs it only with --run-synthesizer"
    ) in result.output
    assert not (vendor / "RAN").exists()
