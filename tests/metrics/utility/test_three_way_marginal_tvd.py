"""3-TVD (numbers by hand in cases/three_way_marginal_tvd.yaml); here on a larger release."""

import pytest

from tests.metrics.utility.example import evaluate


def test_tvd_of_independent_columns_breaks_the_a_c_dependence():
    # In triple (a, b, c) the original puts all mass on a=x,c=u or a=y,c=v; indhist spreads
    # half of it onto impossible cells, so that triple's TVD is about 0.5.
    result = evaluate("three_way_marginal_tvd", {"columns": ["a", "b", "c"]})
    assert result.value == pytest.approx(0.5, abs=0.08)
