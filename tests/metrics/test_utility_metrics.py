import numpy as np
import pandas as pd
import pytest

from policycheck.methods.synthesizers import indhist
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext
from policycheck.release.model import ColumnType, Dataset, Release


def _release():
    rng = np.random.default_rng(0)
    original = pd.DataFrame({"a": rng.choice(list("xy"), 300), "b": rng.choice(list("pq"), 300)})
    original["c"] = np.where(original["a"] == "x", "u", "v")
    original["d"] = rng.normal(size=300)
    types = dict.fromkeys("abc", ColumnType.CATEGORICAL) | {"d": ColumnType.NUMERIC}
    copy = Dataset("synthetic", "copy", original.copy())
    shuffled = Dataset("synthetic", "indhist", indhist(original, 300, np.random.default_rng(1)))
    return Release("r", Dataset("original", "original", original), (copy, shuffled), None, types)


def _evaluate(name, params):
    release = _release()
    ctx = EvaluationContext(release, AttackerView("no-box", (), ()), seed=0)
    spec = registry.get_metric(name)
    p = spec.params(**params)
    needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(p, release)}
    return spec.evaluate(ctx, p, needs)


@pytest.mark.parametrize("name", ["three_way_marginal_mre", "three_way_marginal_tvd"])
def test_the_value_is_the_worst_set_and_a_copy_scores_zero(name):
    result = _evaluate(name, {})
    assert result.details["per_set"]["copy"] == 0.0
    assert result.details["worst_set"] == "indhist"
    assert result.value == result.details["per_set"]["indhist"] > 0
    assert result.interval is None  # every triple measured: nothing estimated


def test_tvd_of_independent_columns_breaks_the_a_c_dependence():
    # In triple (a, b, c) the original puts all mass on a=x,c=u or a=y,c=v; indhist spreads
    # half of it onto impossible cells, so that triple's TVD is about 0.5.
    result = _evaluate("three_way_marginal_tvd", {"columns": ["a", "b", "c"]})
    assert result.value == pytest.approx(0.5, abs=0.08)


def test_sampled_triples_give_a_bootstrap_interval():
    result = _evaluate("three_way_marginal_tvd", {"n_triples": 3})
    assert result.details["triples"] == 3
    assert result.interval[0] <= result.value <= result.interval[1]


def _problems(name, params):
    spec = registry.get_metric(name)
    return spec.check(spec.params(**params), _release(), AttackerView("no-box", (), ()))


@pytest.mark.parametrize("name", ["three_way_marginal_mre", "three_way_marginal_tvd"])
def test_fewer_than_three_distinct_columns_are_refused_before_running(name):
    # Found by the policy fuzz suite: these ended in exit 3 ("3-way marginals need at least three columns").
    assert _problems(name, {"columns": ["a", "b", "b"]}) == [
        (("columns",), "3-way marginals need three distinct columns; param columns names 2")
    ]


def test_mre_min_count_at_least_the_originals_records_is_refused_before_running():
    # 300 records: no cell can hold more than 300, so no cell would be measured (exit 3 before).
    assert _problems("three_way_marginal_mre", {"min_count": 300}) == [
        (
            ("min_count",),
            "the original has 300 records, so no 3-way marginal cell can hold more than min_count=300: lower min_count",
        )
    ]


def test_mre_min_count_no_cell_of_the_original_exceeds_is_refused_before_running():
    # Found by the policy fuzz suite (issue 23): a min_count above every cell ended in exit 3 after computing.
    # a and c determine each other, so the largest cell of any triple is the largest (a, b) cell of (a, b, c).
    original = _release().original.frame
    largest = int(pd.crosstab(original["a"], original["b"]).to_numpy().max())
    assert _problems("three_way_marginal_mre", {"min_count": largest - 1}) == []
    assert _problems("three_way_marginal_mre", {"min_count": largest}) == [
        (
            ("min_count",),
            f"no 3-way marginal cell of the original has more than min_count={largest} records "
            f"(the largest holds {largest}): lower min_count",
        )
    ]
