"""The attribute-inference game policy: one home for bench/run.py's ``game`` case and
tests/execution/test_dask_executor.py, which must play the same game (the bench times on the local pool
and on Dask what the test shows gives the same report on both).

``bench`` is a namespace package; the tests import it through pytest's ``pythonpath = ["."]``
(pyproject.toml), as tests/methods/test_cost_model.py and tests/test_convention_effects.py do.
"""

from __future__ import annotations

from string import Template

_POLICY = Template("""\
metadata: {id: income-game, title: Attribute-inference game, version: "1", owner: policycheck}
attacker:
  model: partially-informed
  quasi_identifiers: [age, sex, race, marital_status, education]
  secrets: [income]
seed: 7
rules:
  - id: income-game
    metric: attribute_inference_advantage
    params: {secret: income, attack: exact, synthesizer: nonprivate, repetitions: $repetitions}
    threshold: {fail_above: 0.5}
""")


def game_policy(repetitions: int) -> str:
    """The policy's YAML playing ``repetitions`` games of the exact-match attack on the built-in
    nonprivate synthesizer (the bench plays 100, the test 12 to stay quick)."""
    return _POLICY.substitute(repetitions=repetitions)
