"""The attribute inference game (policycheck.metrics.reconstruction.attribute_inference_game)."""

import sys

import numpy as np
import pytest

from policycheck.core.errors import EvaluationError
from policycheck.methods.reconstruction.game import AttributeInferenceGame
from policycheck.methods.synthesizers import nonprivate
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext
from policycheck.metrics.reconstruction.attribute_inference_game import GameParams, game_need
from tests.metrics.reconstruction.releases import QIS, evaluate, synthesized


def test_the_game_records_truth_guess_and_score_per_target():
    params = GameParams(secret="sex", attack="exact", synthesizer="nonprivate", repetitions=30, synthetic_size=8000)
    ctx = EvaluationContext(synthesized(nonprivate), AttackerView("partially-informed", QIS, ("sex",)), seed=0)
    game = registry.compute_intermediate(ctx, game_need(params))
    assert isinstance(game, AttributeInferenceGame)
    assert game.truth.size == 30 and set(np.unique(game.truth)) <= {0, 1}
    assert game.params["positive"] == "M"


def test_the_game_with_release_synthesizer_needs_a_declared_command():
    with pytest.raises(EvaluationError, match="synthesizer command"):
        evaluate(
            synthesized(nonprivate),
            "attribute_inference_advantage",
            {"secret": "sex", "attack": "exact", "repetitions": 2},
        )


def test_a_release_without_a_synthesizer_command_is_refused_before_running(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from policycheck.interfaces.cli import cli

    monkeypatch.chdir(tmp_path)
    release = synthesized(nonprivate)
    release.original.frame.to_csv("original.csv", index=False)
    release.synthetic[0].frame.to_csv("synthetic.csv", index=False)
    (tmp_path / "p.yaml").write_text(
        'metadata: {id: g, title: g, version: "1", owner: tests}\n'
        f"attacker: {{model: partially-informed, quasi_identifiers: [{', '.join(QIS)}], secrets: [sex]}}\n"
        "rules:\n"
        "  - {id: r, metric: attribute_inference_advantage, params: {secret: sex, attack: exact},"
        " threshold: {fail_above: 0.5}}\n"
    )
    files = ["--original", "original.csv", "--synthetic", "synthetic.csv"]
    for command in ("validate", "check"):
        result = CliRunner().invoke(cli, [command, "p.yaml", *files], prog_name="policycheck")
        assert result.exit_code == 2
        place, _, message = result.stderr.partition(" ")
        assert place.startswith("p.yaml:4:") and result.stderr.count("\n") == 1
        assert message.startswith("param synthesizer is 'release' but no synthetic set declares a synthesizer command")


def test_an_unknown_synthesizer_is_a_params_error():
    with pytest.raises(ValueError, match="unknown synthesizer"):
        GameParams(secret="sex", synthesizer="ctgan")


def test_game_repetitions_report_progress():
    seen = []
    ctx = EvaluationContext(
        synthesized(nonprivate),
        AttackerView("partially-informed", QIS, ("sex",)),
        seed=0,
        progress=lambda label, done, total: seen.append((label, done, total)),
    )
    params = GameParams(secret="sex", attack="exact", synthesizer="indhist", repetitions=4)
    registry.compute_intermediate(ctx, game_need(params))
    assert seen[-1] == ("attribute inference game", 4, 4)
    assert [d for _, d, _ in seen] == [1, 2, 3, 4]


def test_the_game_reruns_the_command_the_release_declares(tmp_path):
    (tmp_path / "synth.py").write_text(
        "import sys, pandas as pd\n"
        "a = dict(zip(sys.argv[1::2], sys.argv[2::2]))\n"
        "d = pd.read_csv(a['--input'])\n"
        "d.sample(n=int(a['--rows']), replace=True, random_state=int(a['--seed'])).to_csv(a['--output'], index=False)\n"
    )
    command = f"{sys.executable} synth.py --input {{input}} --output {{output}} --rows {{rows}} --seed {{seed}}"
    release = synthesized(nonprivate, command=command)
    ctx = EvaluationContext(release, AttackerView("partially-informed", QIS, ("sex",)), seed=0, base_dir=tmp_path)
    params = GameParams(secret="sex", attack="exact", repetitions=3, synthetic_size=8000)
    game = registry.compute_intermediate(ctx, game_need(params))
    assert game.params["synthesizer"].startswith("command: ")
    assert (game.truth == game.guess).all()
