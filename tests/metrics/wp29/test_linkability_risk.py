"""linkability_risk through the registry (its known answers, from anonymeter, are in cases/linkability_risk.yaml)."""

import pytest

from policycheck.core.errors import EvaluationError
from tests.metrics.wp29.releases import ORIGINAL, evaluate


def test_a_copy_is_linkable_and_the_control_is_not():
    # Every original record is in the copy: both halves find that record at distance 0.
    result = evaluate(
        "linkability_risk", ORIGINAL.copy(), aux_columns=[["age", "job"], ["hours", "city"]], n_attacks=200
    )
    per_set = result.details.per_set[0]
    assert per_set.main_successes == 200
    assert per_set.control_successes is not None and per_set.control_successes < 20
    assert result.value > 0.85 and result.raw > result.baseline
    assert result.sample_size == 200 and result.baseline_label.startswith("the same attack on holdout")


def test_the_quasi_identifiers_split_in_halves_by_default():
    result = evaluate("linkability_risk", ORIGINAL.copy(), n_attacks=50)
    assert result.details.per_set[0].aux_columns == [["age"], ["job", "city"]]


def test_fewer_than_two_quasi_identifiers_cannot_be_split():
    from policycheck.metrics import registry
    from policycheck.metrics.base import AttackerView, EvaluationContext
    from policycheck.release.model import Dataset, Release
    from tests.metrics.wp29.releases import TYPES

    release = Release(
        "r", Dataset("original", "original", ORIGINAL), (Dataset("synthetic", "s", ORIGINAL),), None, TYPES
    )
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("age",), ()), seed=1)
    spec = registry.get_metric("linkability_risk")
    with pytest.raises(EvaluationError, match="needs two auxiliary column sets"):
        spec.evaluate(ctx, spec.params(), {})


def test_an_empty_column_set_is_a_params_error():
    from policycheck.metrics.wp29.linkability_risk import LinkabilityParams

    with pytest.raises(ValueError, match="at least one column"):
        LinkabilityParams(aux_columns=[["age"], []])


def test_a_rule_without_two_column_sets_is_refused_before_running(tmp_path, monkeypatch):
    from tests.metrics.wp29.releases import check_refusal

    monkeypatch.chdir(tmp_path)
    code, stderr, written = check_refusal(["age"], "linkability_risk")
    # At the rule's line, before anything is read or computed: no report folder.
    assert (code, written) == (2, False)
    assert stderr == (
        "p.yaml:4:5: linkability_risk needs two auxiliary column sets: give params.aux_columns or "
        "at least two of the attacker's quasi_identifiers to split in halves\n"
    )
