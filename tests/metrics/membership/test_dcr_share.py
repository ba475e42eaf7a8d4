"""dcr_share's details and chart (its numbers: the hand-computed cases in cases/dcr_share.yaml)."""

from __future__ import annotations

import json

from policycheck.metrics.membership.dcr_share import DcrShareDetails
from tests.metrics.membership.tiny import HOLDOUT, SYNTHETIC, evaluate, release


def test_dcr_share_details_print_the_gower_convention_and_are_json():
    result = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC))
    assert "union" in result.details.gower["convention"]
    assert result.details.gower["numeric_ranges"] == {"x": [0.0, 10.0]}
    json.dumps(result.details.to_report(), allow_nan=False)
    json.dumps(result.charts)


def test_dcr_share_details_keep_the_report_keys_and_label_them():
    details = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC)).details
    assert isinstance(details, DcrShareDetails)
    assert list(details.to_report()) == [
        "ideal",
        "ties",
        "interval_method",
        "worst_set",
        "per_set",
        "bonferroni",
        "gower",
    ]
    assert DcrShareDetails.field_labels()["worst_set"]["label"] == "Worst synthetic set"


def test_dcr_share_chart_overlays_histograms_of_both_distances():
    (chart,) = evaluate("dcr_share", release(HOLDOUT, SYNTHETIC)).charts
    assert chart["kind"] == "histogram"
    assert [sum(s["counts"]) for s in chart["series"]] == [4, 4]
