"""dp_transition_delta's log-ratio heatmap (paper 004, Fig. 2) and events (its delta of Fig. 1: cases/)."""

from __future__ import annotations

import pytest

from tests.metrics.dp.releases import evaluate, release


def test_transition_heatmap_is_figure_2_with_the_eight_cells_marked():
    result = evaluate(
        "dp_transition_delta", release(None), family="multinomial_dirichlet", n=5, alpha=[0.5, 0.5], target_epsilon=2
    )
    chart = result.charts[0]
    assert chart["kind"] == "heatmap"
    assert chart["row_labels"][0] == "(0, 5) vs (1, 4)"
    assert round(chart["values"][0][5], 6) == 5.493061
    assert sorted(map(tuple, chart["marked"])) == [(0, 3), (0, 4), (0, 5), (1, 5), (3, 0), (4, 0), (4, 1), (4, 2)]


def test_large_audit_heatmap_shows_the_pairs_with_the_largest_ratios():
    result = evaluate(
        "dp_transition_delta", release(None), family="multinomial_dirichlet", n=10, k=3, alpha=1, target_epsilon=3
    )
    chart = result.charts[0]
    assert len(chart["row_labels"]) == 40 and len(chart["col_labels"]) == 40
    assert "largest shown" in chart["title"]
    shown = max(v for row in chart["values"] for v in row if v is not None)
    assert shown == pytest.approx(result.details.epsilon)
    assert chart["marked"] and all(chart["values"][r][c] > 3 for r, c in chart["marked"])


def test_the_delta_rule_reports_which_event_and_table_distribution_its_delta_is_of():
    result = evaluate(
        "dp_transition_delta",
        release(None),
        family="multinomial_dirichlet",
        n=5,
        alpha=0.5,
        target_epsilon=2,
        delta_event="any_offending",
        table_distribution="uniform",
    )
    assert (result.details.delta_event, result.details.table_distribution) == ("any_offending", "uniform")
    assert result.value == result.details.delta_any_offending
