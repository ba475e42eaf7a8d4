"""density_membership_risk's checks before running (its numbers: the hand-computed case in cases/)."""

import pandas as pd

from policycheck.metrics.base import AttackerView
from policycheck.metrics.membership.density_membership_risk import DensityParams, check_density_params
from policycheck.release.model import ColumnType, Dataset, Release


def tiny(holdout: bool = True) -> Release:
    frame = pd.DataFrame({"x": [1.0, 2.0], "c": ["a", "b"]})
    return Release(
        "tiny",
        Dataset("original", "training", frame),
        (Dataset("synthetic", "s", frame),),
        Dataset("holdout", "holdout", frame) if holdout else None,
        {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL},
    )


def test_the_density_attack_without_a_holdout_is_refused_before_running():
    ((where, message),) = check_density_params(DensityParams(), tiny(holdout=False), AttackerView("no-box", (), ()))
    assert where == ("density",) and message.startswith("the density attack needs a holdout set")


def test_the_kde_density_on_a_categorical_column_is_refused_naming_it():
    problems = check_density_params(DensityParams(density="kde"), tiny(), AttackerView("no-box", (), ()))
    assert problems == [
        (
            ("density",),
            "density 'kde' takes numeric columns only, and c are not; use density 'gower' or restrict columns",
        )
    ]
    assert (
        check_density_params(DensityParams(density="kde", columns=["x"]), tiny(), AttackerView("no-box", (), ())) == []
    )
