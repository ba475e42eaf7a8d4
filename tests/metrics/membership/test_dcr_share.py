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


def test_where_an_id_column_names_people_the_relabelling_moves_each_persons_records_together():
    import pandas as pd
    import pytest

    from policycheck.release.model import ColumnType, Dataset, Release

    # Training r0 = 0, r1 = 0.5 are one man's two years, holdout r2 = 0.25, r3 = 1 another's; synthetic records
    # on r0, r1, r3 and one at 0.125 (r0 and r2 equally near). Relabelling the men, training is {r0, r1} (share
    # 2/3) or {r2, r3} (1/3): spread 1/6, where relabelling the four records gives sqrt(1/54) (test_dcr_relabelling).
    def dataset(role: str, name: str, xs: list[float], people: list[str] | None = None) -> Dataset:
        ids = pd.DataFrame({"person": people}) if people else None
        return Dataset(role, name, pd.DataFrame({"x": xs}), id_frame=ids)

    def share_row(holdout_people: list[str] | None):
        rel = Release(
            id="panel",
            original=dataset("original", "training", [0.0, 0.5], ["A", "A"] if holdout_people else None),
            holdout=dataset("holdout", "holdout", [0.25, 1.0], holdout_people),
            synthetic=(dataset("synthetic", "synthetic[0]", [0.0, 0.5, 1.0, 0.125]),),
            column_types={"x": ColumnType.NUMERIC},
        )
        (row,) = evaluate("dcr_share", rel).details.per_set
        return row

    assert share_row(["B", "B"]).relabelling_sd == pytest.approx(1 / 6, rel=0.05)
    assert share_row(None).relabelling_sd == pytest.approx(np.sqrt(1 / 54), rel=0.05)
    # A man with records in both sets (a split by record, which the loader reports): records are relabelled.
    assert share_row(["A", "B"]).relabelling_sd == pytest.approx(np.sqrt(1 / 54), rel=0.05)
