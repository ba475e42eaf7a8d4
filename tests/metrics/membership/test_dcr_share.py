"""dcr_share's details and chart (its numbers: the hand-computed cases in cases/dcr_share.yaml)."""

from __future__ import annotations

import json

import numpy as np

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


def test_ties_that_relabelling_turns_into_trials_count_fewer_effective_records_than_the_clusters():
    import pandas as pd
    import pytest

    from policycheck.release.model import ColumnType, Dataset, Release

    # Training r0 = 0, r1 = 0.5; holdout r2 = 0.25, r3 = 1. Twenty synthetic records at 0.125 are tied
    # (r0 and r2 equally near); one sits on r0 (closer to training), one on r3 (closer to holdout):
    # share 1/2 over two clusters, 2 effective records by the clusters. Over the 6 labellings of r0..r3
    # the share is 1/2, 21/22, 1, 0, 1/22, 1/2 (the tied twenty move together whenever r0 and r2 do).
    frame = lambda xs: pd.DataFrame({"x": xs})  # noqa: E731
    rel = Release(
        id="ties",
        original=Dataset("original", "training", frame([0.0, 0.5])),
        holdout=Dataset("holdout", "holdout", frame([0.25, 1.0])),
        synthetic=(Dataset("synthetic", "synthetic[0]", frame([0.125] * 20 + [0.0, 1.0])),),
        column_types={"x": ColumnType.NUMERIC},
    )
    (row,) = evaluate("dcr_share", rel).details.per_set
    null = np.array([1 / 2, 21 / 22, 1, 0, 1 / 22, 1 / 2])
    assert row.share == 0.5 and row.clusters == 2
    assert row.relabelling_sd == pytest.approx(null.std(), rel=0.05)
    assert row.effective_records == pytest.approx(0.25 / null.var(), rel=0.1)
    assert row.effective_records < 2
    assert row.relabelling_p == pytest.approx(4 / 6, abs=0.04)  # 1/2, 21/22, 1 and 1/2 are >= 1/2
