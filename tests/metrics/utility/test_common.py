"""The check both marginal metrics run before computing: three distinct columns to form triples from."""

import pytest

from tests.metrics.utility.example import problems


@pytest.mark.parametrize("name", ["three_way_marginal_mre", "three_way_marginal_tvd"])
def test_fewer_than_three_distinct_columns_are_refused_before_running(name):
    # Found by the policy fuzz suite: these ended in exit 3 ("3-way marginals need at least three columns").
    assert problems(name, {"columns": ["a", "b", "b"]}) == [
        (("columns",), "3-way marginals need three distinct columns; param columns names 2")
    ]
