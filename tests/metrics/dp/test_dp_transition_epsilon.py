"""dp_transition_epsilon from a matrix file, and what it refuses (paper 004's Figs. 2 and 4: cases/)."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from policycheck.core.errors import EvaluationError
from policycheck.metrics import registry
from tests.metrics.dp.releases import evaluate, release


def test_transition_epsilon_from_a_matrix_file_relative_to_the_policy(tmp_path):
    # Randomised response with probability 3/4 of the truth: epsilon = ln(0.75 / 0.25) = ln 3.
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "rr.csv").write_text("n,yes,no\n1 0,0.75,0.25\n0 1,0.25,0.75\n")
    result = evaluate("dp_transition_epsilon", release(None), base_dir=tmp_path, family="matrix", matrix="m/rr.csv")
    assert result.value == pytest.approx(math.log(3))


def test_transition_matrix_file_missing_is_an_evaluation_error(tmp_path):
    with pytest.raises(EvaluationError, match="does not exist"):
        evaluate("dp_transition_epsilon", release(None), base_dir=tmp_path, family="matrix", matrix="nope.csv")


def test_transition_space_too_large_is_refused_clearly():
    with pytest.raises(EvaluationError, match="exact-audit limit"):
        evaluate("dp_transition_epsilon", release(None), family="multinomial_dirichlet", n=60, alpha=1, k=6)


def test_transition_family_needs_its_params():
    with pytest.raises(ValidationError, match="needs param alpha"):
        registry.get_metric("dp_transition_epsilon").params(family="multinomial_dirichlet", n=5)
    with pytest.raises(ValidationError, match="exactly one of epsilon or scale"):
        registry.get_metric("dp_transition_epsilon").params(family="laplace", n=5)


def test_suppressing_matrix_reports_infinite_epsilon_json_safely(tmp_path):
    (tmp_path / "s.csv").write_text("n,a,b\n1 0,1.0,0.0\n0 1,0.5,0.5\n")
    result = evaluate("dp_transition_epsilon", release(None), base_dir=tmp_path, family="matrix", matrix="s.csv")
    assert math.isinf(result.value)
    assert result.details.epsilon is None and result.details.infinite
    assert result.charts[0]["values"][0][1] is None and result.charts[0]["marked"] == [[0, 1]]
