"""near_copy_share beside exact_copy_share (its numbers: the hand-computed cases in cases/near_copy_share.yaml)."""

from __future__ import annotations

import pandas as pd
import pytest
from pydantic import ValidationError

from policycheck.metrics import registry
from tests.metrics.membership.tiny import HOLDOUT, TRAINING, evaluate, release

#: Training (10, b) and (0, a) with x nudged by 1 (Gower 0.05 on x's range 10, p = 2), and two records far from both.
NUDGED = pd.DataFrame({"x": [9.0, 1.0, 5.0, 3.0], "c": ["b", "a", "c", "a"]})


def test_a_nudged_copy_is_no_exact_copy_but_is_a_near_one():
    nudged = release(HOLDOUT, NUDGED, training=TRAINING)
    assert evaluate("exact_copy_share", nudged).value == 0.0
    near = evaluate("near_copy_share", nudged, within=0.1)
    assert near.value == 0.25  # (9, b) and (1, a) near training, (3, a) near holdout (4, a): (2 - 1) / 4
    chart = near.charts[0]
    assert chart["title"] == "Synthetic records within Gower distance 0.1 of a real record"
    assert [series["name"] for series in chart["series"]] == ["near a training record", "near a holdout record"]


@pytest.mark.parametrize("within", [None, 0.0, 1.5])
def test_the_distance_is_required_and_within_the_gower_range(within):
    params = registry.get_metric("near_copy_share").params
    with pytest.raises(ValidationError):
        params() if within is None else params(within=within)
