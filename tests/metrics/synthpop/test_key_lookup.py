"""What repU, DiSCO and TCAP share: the key lookup's keys, checked before anything runs."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from policycheck.interfaces.cli import cli
from tests.metrics.synthpop.example import ORIGINAL, SYNTHETIC


@pytest.mark.parametrize("metric", ["replicated_uniques", "disco", "tcap"])
def test_a_rule_with_neither_keys_nor_quasi_identifiers_is_refused_before_running(tmp_path, monkeypatch, metric):
    monkeypatch.chdir(tmp_path)
    ORIGINAL.to_csv("original.csv", index=False)
    SYNTHETIC.to_csv("synthetic.csv", index=False)
    ORIGINAL.to_csv("holdout.csv", index=False)
    (tmp_path / "p.yaml").write_text(
        'metadata: {id: k, title: k, version: "1", owner: tests}\n'
        "attacker: {model: partially-informed, secrets: [income]}\n"
        "rules:\n"
        f"  - {{id: r, metric: {metric}, params: {{baseline: none}}, threshold: {{fail_above: 0.5}}}}\n"
    )
    files = ["--original", "original.csv", "--synthetic", "synthetic.csv"]
    result = CliRunner().invoke(cli, ["validate", "p.yaml", *files], prog_name="policycheck")
    assert result.exit_code == 2
    # At the rule's params (line 4), whose column moves with the metric's name.
    place, _, message = result.stderr.partition(" ")
    assert place.startswith("p.yaml:4:") and result.stderr.count("\n") == 1
    assert message == "synthpop's measures need key columns: give params.keys or the attacker's quasi_identifiers\n"
