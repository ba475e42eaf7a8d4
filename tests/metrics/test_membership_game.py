"""membership_inference_advantage and the epsilon audit (test: game), as a user runs them: from a policy, on the API.

Real Adult records (the demo's), small enough to play 200 rounds in seconds. The noise-free indhist leaks a
value only one person holds whenever that person is in the data, so its claim of epsilon 1 must be refuted;
indhist_dp at epsilon 1 must not be; a bootstrap must fail the game.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import policycheck as pc
from policycheck.interfaces.demo import HOLDOUT, TRAINING
from policycheck.methods.synthesizers import nonprivate

COLUMNS = ["age", "workclass", "education", "sex", "hours_per_week", "income"]
GAME = "{synthesizer: release, repetitions: 200, targets: {vulnerable: 4, rare: 4, random: 2}}"
POLICY = f"""\
metadata: {{id: game-test, title: game, version: "1", owner: tests}}
attacker: {{model: maximum-knowledge}}
seed: 11
rules:
  - id: game
    metric: membership_inference_advantage
    params: {GAME}
    threshold: {{fail_above: 0.2, warn_above: 0.1, compare: lower}}
  - id: claim
    metric: dp_epsilon_excess_membership
    params: {{test: game, synthesizer: release, repetitions: 200, targets: {{vulnerable: 4, rare: 4, random: 2}}}}
    threshold: {{fail_above: 0}}
  - id: budget
    metric: dp_total_epsilon
    params: {{delta: 1.0e-5}}
    threshold: {{fail_above: 3}}
"""


@pytest.fixture(scope="module")
def data():
    read = lambda path: pd.read_csv(path, keep_default_na=False, na_values=[""])[COLUMNS].head(300)  # noqa: E731
    return read(TRAINING), read(HOLDOUT)


@pytest.fixture(scope="module")
def policy(tmp_path_factory):
    path = tmp_path_factory.mktemp("policy") / "game.policy.yaml"
    path.write_text(POLICY)
    return path


def check(policy, data, builtin: str | None = None, entry=None, seed: int = 11, executor: str = "serial"):
    training, holdout = data
    declared = {"name": builtin or "entry", "epsilon": 1.0}
    if builtin:
        declared["builtin"] = builtin
    if entry is not None:
        declared["entry"] = entry
    release = pc.Release(
        original=training,
        synthetic=nonprivate(training, 300, np.random.default_rng(0)),
        holdout=holdout,
        synthesizer=declared,
    )
    report = pc.check(policy, release, seed=seed, executor=executor, workers=2, progress=False)
    return {r["id"]: r for r in report.rules}


def test_a_noise_free_indhist_claim_of_epsilon_one_is_refuted_and_the_budget_fails(policy, data):
    rules = check(policy, data, "indhist")
    claim = rules["claim"]["details"]["claims"][0]
    assert rules["claim"]["verdict"] == "fail" and claim["measured_epsilon_lower"] > 1.0
    # the refuted claim is the set's own, so the budget that counts it is unaccounted
    assert rules["budget"]["verdict"] == "fail"
    # the bound comes from a record holding a value nobody else in the population holds
    target = next(t for t in rules["game"]["details"]["targets"] if t["target"] == claim["target"])
    assert target["reason"] == "rare"


def test_indhist_dp_at_the_epsilon_it_declares_is_not_refuted(policy, data):
    rules = check(policy, data, "indhist_dp")
    assert rules["claim"]["verdict"] == "pass" and rules["claim"]["value"] == 0.0
    assert rules["game"]["verdict"] == "pass" and rules["budget"]["verdict"] == "pass"
    assert rules["game"]["details"]["game"]["epsilon_run"] == 1.0


def test_a_bootstrap_fails_the_game_and_the_words_name_the_record(policy, data):
    rules = check(policy, data, "nonprivate")
    game = rules["game"]
    assert game["verdict"] == "fail" and game["interval"][0] > 0.2
    worst = game["details"]["worst_target"]
    assert f"Most exposed: {worst}" in game["notes"][0] and "was in the training data" in game["notes"][0]
    # the report says how large an epsilon the run could certify at all: 100 test rounds, about 50 each way
    assert 2.3 < rules["claim"]["details"]["largest_certifiable_epsilon"] < 2.9


def bootstrap_entry(frame: pd.DataFrame, rows: int, seed: int) -> pd.DataFrame:
    """A Python synthesizer (top-level, so the game's rounds can run in worker processes)."""
    return frame.sample(rows, replace=True, random_state=seed).reset_index(drop=True)


class SdvLikeBootstrap:
    """Any object with SDV's fit/sample."""

    def fit(self, frame):
        self.frame = frame

    def sample(self, num_rows):
        return self.frame.sample(num_rows, replace=True, random_state=0).reset_index(drop=True)


@pytest.mark.parametrize("entry", [bootstrap_entry, SdvLikeBootstrap()], ids=["callable", "sdv-object"])
def test_a_python_synthesizer_given_to_the_release_is_re_run_in_the_game(policy, data, entry):
    rules = check(policy, data, entry=entry, executor="local")
    assert rules["game"]["verdict"] == "fail"
    assert rules["game"]["details"]["game"]["synthesizer_kind"] == "entry"


def test_a_lambda_runs_in_this_process_and_the_report_says_so(policy, data):
    rules = check(policy, data, entry=lambda frame, rows, seed: bootstrap_entry(frame, rows, seed), executor="local")
    assert rules["game"]["verdict"] == "fail"
    assert any("cannot be pickled" in note for note in rules["game"]["notes"])


def test_serial_and_local_executors_give_the_same_numbers(policy, data):
    serial, local = check(policy, data, "indhist"), check(policy, data, "indhist", executor="local")
    for rule in ("game", "claim"):
        assert (
            serial[rule]["value"] == local[rule]["value"]
            and serial[rule]["details"]["targets" if rule == "game" else "claims"]
            == local[rule]["details"]["targets" if rule == "game" else "claims"]
        )


def test_a_release_that_says_nothing_of_its_synthesizer_is_an_evaluator_error(policy, data):
    training, holdout = data
    release = pc.Release(original=training, synthetic=training, holdout=holdout, synthesizer={"epsilon": 1.0})
    report = pc.check(policy, release, seed=1, executor="serial", progress=False)
    game = next(r for r in report.rules if r["id"] == "game")
    assert report.exit_code == 3 and "no synthetic set says how to re-run its synthesizer" in game["error"]


def write_release(folder, data, builtin: str | None, command: str | None = None):
    training, holdout = data
    folder.mkdir(parents=True, exist_ok=True)
    training.to_csv(folder / "training.csv", index=False)
    holdout.to_csv(folder / "holdout.csv", index=False)
    nonprivate(training, 300, np.random.default_rng(0)).to_csv(folder / "synthetic.csv", index=False)
    declared = {
        "name": "test",
        "epsilon": 1.0,
        **({"builtin": builtin} if builtin else {}),
        **({"command": command} if command else {}),
    }
    import json

    (folder / "release.yaml").write_text(
        "release: {id: game-cli}\noriginal: training.csv\nholdout: holdout.csv\n"
        f"synthetic:\n  - path: synthetic.csv\n    synthesizer: {json.dumps(declared)}\n"
    )
    return folder / "release.yaml"


def test_check_on_the_command_line_fails_a_bootstrap_the_manifest_names(policy, data, tmp_path):
    from click.testing import CliRunner

    from policycheck.interfaces.cli import cli

    manifest = write_release(tmp_path / "release", data, "nonprivate")
    result = CliRunner().invoke(cli, ["check", str(policy), "-r", str(manifest), "-o", str(tmp_path / "out"), "-q"])
    assert result.exit_code == 1, result.output
    import json

    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert {r["id"]: r["verdict"] for r in report["rules"]} == {"game": "fail", "claim": "fail", "budget": "fail"}


def test_plan_estimates_the_game_from_one_timed_round_and_runs_no_command(policy, data, tmp_path):
    from click.testing import CliRunner

    from policycheck.interfaces.cli import cli

    timed = CliRunner().invoke(cli, ["plan", str(policy), "-r", str(write_release(tmp_path / "a", data, "indhist"))])
    assert timed.exit_code == 0 and "membership_game(" in timed.output
    line = next(ln for ln in timed.output.splitlines() if "estimate:" in ln and "CPU" in ln)
    assert "of CPU" in line
    marker = tmp_path / "ran"
    command = f"touch {marker} {{output}}"
    plain = CliRunner().invoke(
        cli, ["plan", str(policy), "-r", str(write_release(tmp_path / "b", data, None, command))]
    )
    assert plain.exit_code == 0 and not marker.exists()
