"""linkage_range_narrowing through the registry (its known answers are in cases/linkage_range_narrowing.yaml)."""

import pytest

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext
from tests.metrics.linkage.releases import COPY, REVERSED, evaluate, make_release


def test_fraction_outside_zero_one_is_a_params_error():
    spec = registry.get_metric("linkage_range_narrowing")
    with pytest.raises(ValueError):
        spec.params(fraction=0.0)
    with pytest.raises(ValueError):
        spec.params(fraction=1.5)


def test_risk_against_the_number_of_sets_is_a_line_chart():
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED, COPY), fraction=0.5, baseline="none")
    (line,) = [c for c in result.charts if c["kind"] == "line"]
    assert line["series"][0]["x"] == [1, 2, 3] and line["series"][0]["y"] == [1.0, 0.5, 0.5]


def test_widths_are_a_histogram_split_by_whether_the_range_holds_the_truth():
    # Widths 1, 1/3, 1/3, 1 (every range holds its true value), in bins of 0.05 plus the fraction's edge.
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED), fraction=0.5, baseline="none")
    (histogram,) = [c for c in result.charts if c["kind"] == "histogram"]
    holds, misses = histogram["series"]
    assert sum(holds["counts"]) == 4 and sum(misses["counts"]) == 0
    assert holds["counts"][holds["edges"].index(0.3)] == 2 and holds["counts"][-1] == 2


def test_sets_run_through_the_executor_with_the_same_result():
    from policycheck.execution.local import LocalProcessExecutor

    release = make_release(COPY, REVERSED)
    serial = evaluate("linkage_range_narrowing", release, fraction=0.5, mappings=["reverse", "released"])
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("a",), ("s",)), seed=3)
    with LocalProcessExecutor(2) as executor:
        ctx.executor = executor
        spec = registry.get_metric("linkage_range_narrowing")
        params = spec.params(fraction=0.5)
        needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(params, release)}
        pooled = spec.evaluate(ctx, params, needs)
    assert pooled.value == serial.value and pooled.details == serial.details
