"""The shared intermediate membership_game: which synthesizer it re-runs, where, and what plan estimates."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import policycheck as pc
from policycheck.interfaces.cli import cli
from policycheck.methods.synthesizers import nonprivate
from tests.metrics.membership.game_release import check, checked, game_data, write_policy


@pytest.fixture(scope="module")
def policy(tmp_path_factory):
    return write_policy(tmp_path_factory.mktemp("policy"))


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
def test_a_python_synthesizer_given_to_the_release_is_re_run_in_the_game(policy, entry):
    rules = check(policy, entry=entry, executor="local")
    assert rules["game"]["verdict"] == "fail"
    assert rules["game"]["details"]["game"]["synthesizer_kind"] == "entry"


def test_a_lambda_runs_in_this_process_and_the_report_says_so(policy):
    rules = check(policy, entry=lambda frame, rows, seed: bootstrap_entry(frame, rows, seed), executor="local")
    assert rules["game"]["verdict"] == "fail"
    assert any("cannot be pickled" in note for note in rules["game"]["notes"])


def test_serial_and_local_executors_give_the_same_numbers(policy):
    serial, local = checked("indhist"), check(policy, "indhist", executor="local")
    for rule in ("game", "claim"):
        assert (
            serial[rule]["value"] == local[rule]["value"]
            and serial[rule]["details"]["targets" if rule == "game" else "claims"]
            == local[rule]["details"]["targets" if rule == "game" else "claims"]
        )


def test_a_release_that_says_nothing_of_its_synthesizer_is_refused_before_anything_runs(policy):
    training, holdout = game_data()
    release = pc.Release(original=training, synthetic=training, holdout=holdout, synthesizer={"epsilon": 1.0})
    with pytest.raises(pc.InputError) as refused:
        pc.check(policy, release, seed=1, executor="serial", progress=False)
    assert "param synthesizer is 'release' but no synthetic set says how to re-run its synthesizer" in str(
        refused.value
    )


def test_a_release_from_files_that_says_nothing_of_its_synthesizer_exits_2_naming_the_rule(tmp_path, policy):
    training, holdout = game_data()
    training.to_csv(tmp_path / "training.csv", index=False)
    holdout.to_csv(tmp_path / "holdout.csv", index=False)
    files = ["--original", tmp_path / "training.csv", "--synthetic", tmp_path / "training.csv"]
    done = CliRunner().invoke(
        cli, ["check", str(policy), *map(str, files), "--holdout", str(tmp_path / "holdout.csv"), "-o", str(tmp_path)]
    )
    assert done.exit_code == 2
    lines = [line for line in done.output.splitlines() if "param synthesizer" in line]
    assert len(lines) == 2  # the game rule's and the claim rule's, each at its own params
    for line in lines:
        assert line.startswith(f"{policy}:") and "name a built-in synthesizer (nonprivate, indhist, indhist_dp)" in line


def test_an_indhist_dp_game_without_an_epsilon_exits_2_naming_the_param_before_anything_runs(tmp_path):
    # The release declares no epsilon and the rule gives no synthesizer_epsilon: the game could
    # only fail once every rule before it had run (exit 3); it is bad input, said up front.
    training, holdout = game_data()
    training.to_csv(tmp_path / "training.csv", index=False)
    holdout.to_csv(tmp_path / "holdout.csv", index=False)
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "metadata: {id: p, title: t, version: '1', owner: o}\n"
        "attacker: {model: maximum-knowledge}\n"
        "rules:\n"
        "  - id: game\n"
        "    metric: membership_inference_advantage\n"
        "    params: {synthesizer: indhist_dp, repetitions: 20}\n"
        "    threshold: {fail_above: 0.2}\n"
    )
    files = ["--original", tmp_path / "training.csv", "--synthetic", tmp_path / "training.csv"]
    done = CliRunner().invoke(
        cli, ["check", str(policy), *map(str, files), "--holdout", str(tmp_path / "holdout.csv"), "-o", str(tmp_path)]
    )
    assert done.exit_code == 2
    line = done.output.strip().splitlines()[-1]
    assert line.endswith(
        "p.yaml:6:14: indhist_dp runs at the epsilon the release declares, and it declares none; "
        "give param synthesizer_epsilon"
    )
    assert not (tmp_path / "report.json").exists()
    policy.write_text(policy.read_text().replace("repetitions: 20", "repetitions: 20, synthesizer_epsilon: 1"))
    holdout_file = ["--holdout", str(tmp_path / "holdout.csv")]
    assert CliRunner().invoke(cli, ["validate", str(policy), *map(str, files), *holdout_file]).exit_code == 0


def write_release(folder, builtin: str | None, command: str | None = None):
    training, holdout = game_data()
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
    (folder / "release.yaml").write_text(
        "release: {id: game-cli}\noriginal: training.csv\nholdout: holdout.csv\n"
        f"synthetic:\n  - path: synthetic.csv\n    synthesizer: {json.dumps(declared)}\n"
    )
    return folder / "release.yaml"


def test_check_on_the_command_line_fails_a_bootstrap_the_manifest_names(policy, tmp_path):
    manifest = write_release(tmp_path / "release", "nonprivate")
    result = CliRunner().invoke(cli, ["check", str(policy), "-r", str(manifest), "-o", str(tmp_path / "out"), "-q"])
    assert result.exit_code == 1, result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert {r["id"]: r["verdict"] for r in report["rules"]} == {"game": "fail", "claim": "fail", "budget": "fail"}


def test_a_release_naming_a_builtin_the_game_lacks_exits_2_before_anything_runs(policy, tmp_path):
    manifest = write_release(tmp_path / "release", "foo")
    result = CliRunner().invoke(cli, ["check", str(policy), "-r", str(manifest), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "names builtin 'foo'; expected one of nonprivate, indhist, indhist_dp" in result.output
    assert not (tmp_path / "out").exists()


def test_plan_estimates_the_game_from_one_timed_round_and_runs_no_command(policy, tmp_path):
    timed = CliRunner().invoke(cli, ["plan", str(policy), "-r", str(write_release(tmp_path / "a", "indhist"))])
    assert timed.exit_code == 0 and "membership_game(" in timed.output
    line = next(ln for ln in timed.output.splitlines() if "estimate:" in ln and "CPU" in ln)
    assert "of CPU" in line
    marker = tmp_path / "ran"
    command = f"touch {marker} {{output}}"
    plain = CliRunner().invoke(cli, ["plan", str(policy), "-r", str(write_release(tmp_path / "b", None, command))])
    assert plain.exit_code == 0 and not marker.exists()


def test_the_game_has_the_workers_import_its_attacks_and_the_forests_library_before_it_sets_up():
    from policycheck.execution.executor import SerialExecutor
    from policycheck.metrics import registry
    from policycheck.metrics.base import AttackerView, EvaluationContext
    from policycheck.metrics.membership.game_params import game_need
    from policycheck.metrics.membership.membership_inference_advantage import AdvantageParams
    from policycheck.release.load import build_release
    from policycheck.release.memory import InMemoryTable
    from policycheck.release.model import SynthesizerInfo

    class Recording(SerialExecutor):
        def __init__(self):
            self.calls = []

        def prepare(self, modules):
            self.calls.append(("prepare", tuple(modules)))

        def map(self, fn, items, progress=None, *, cost=None, ready_here=False):
            self.calls.append(("map", fn.__name__))
            return super().map(fn, items, progress, cost=cost)

    training, holdout = game_data()
    release = build_release(
        release_id="prepare",
        original=InMemoryTable("original", training),
        synthetic=[(InMemoryTable("synthetic", training), "synthetic", SynthesizerInfo(name="nonprivate"))],
        holdout=InMemoryTable("holdout", holdout),
        columns={},
    )
    executor = Recording()
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", (), ()), seed=3, executor=executor)
    registry.compute_intermediate(ctx, game_need(AdvantageParams(synthesizer="nonprivate", repetitions=8), release))
    # What the attacks need: their module (without numba) and the forests' library. The rounds' compiled
    # features load here, in the set-up, and reach the workers forked from here (`ready_here`).
    assert executor.calls[0] == ("prepare", ("policycheck.methods.membership_game.attacks", "sklearn.tree"))
    assert ("map", "play_round") in executor.calls
    assert ("map", "attack_scores") in executor.calls
