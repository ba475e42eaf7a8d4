"""MRE_{>10} (numbers by hand in cases/three_way_marginal_mre.yaml); here its min_count checks."""

import pandas as pd
import pytest

from policycheck.core.errors import EvaluationError
from tests.metrics.utility.example import evaluate, problems, release


def test_mre_min_count_at_least_the_originals_records_is_refused_before_running():
    # 300 records: no cell can hold more than 300, so no cell would be measured (exit 3 before).
    assert problems("three_way_marginal_mre", {"min_count": 300}) == [
        (
            ("min_count",),
            "the original has 300 records, so no 3-way marginal cell can hold more than min_count=300: lower min_count",
        )
    ]


def test_mre_min_count_no_cell_of_the_original_exceeds_is_refused_before_running():
    # Found by the policy fuzz suite (issue 23): a min_count above every cell ended in exit 3 after computing.
    # a and c determine each other, so the largest cell of any triple is the largest (a, b) cell of (a, b, c).
    original = release().original.frame
    largest = int(pd.crosstab(original["a"], original["b"]).to_numpy().max())
    assert problems("three_way_marginal_mre", {"min_count": largest - 1}) == []
    assert problems("three_way_marginal_mre", {"min_count": largest}) == [
        (
            ("min_count",),
            f"no 3-way marginal cell of the original has more than min_count={largest} records "
            f"(the largest holds {largest}): lower min_count",
        )
    ]


def test_sampled_triples_without_a_cell_above_min_count_cannot_be_measured():
    # With n_triples the check cannot know which triples the run's seed draws, so it counts no cell: the
    # evaluator refuses. No cell exceeds 100 here: a triple with d (10 quantile bins of 30 records) has
    # cells of at most 30, and (a, b, c) four cells of about 75 (a and c determine each other).
    with pytest.raises(EvaluationError, match="no 3-way marginal cell of the original has more than min_count=100"):
        evaluate("three_way_marginal_mre", {"columns": ["a", "b", "d", "c"], "n_triples": 1, "min_count": 100})
