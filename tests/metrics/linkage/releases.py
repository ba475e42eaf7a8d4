"""Hand-made releases for the linkage metrics' tests, and how the tests evaluate a rule on them."""

from __future__ import annotations

from typing import Any

import pandas as pd

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, MetricResult
from policycheck.release.model import ColumnType, Dataset, Release

ORIGINAL = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "s": [10.0, 20.0, 30.0, 40.0], "c": ["x", "y", "y", "z"]})
# Set 1 copies the original; set 2 keeps `a` and reverses the secret.
COPY = ORIGINAL.copy()
REVERSED = ORIGINAL.assign(s=[40.0, 30.0, 20.0, 10.0])
TYPES = {"a": ColumnType.NUMERIC, "s": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}

# Holdout a = 1..4 with s = 10, 30, 20, 40. The copy of the original, reverse-mapped onto the
# holdout's values, pairs a = 1..4 with s = 10, 20, 30, 40: the holdout records with a = 1 and
# a = 4 get their own value, the two others each other's. Holdout rate 2/4.
HOLDOUT = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "s": [10.0, 30.0, 20.0, 40.0], "c": ["x", "y", "y", "z"]})

# A bootstrap of a 4-record original: record 1 twice, records 2 and 3, record 4 left out.
SHUFFLED = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "s": [30.0, 10.0, 40.0, 20.0]})
BOOTSTRAP = SHUFFLED.iloc[[0, 0, 1, 2]].reset_index(drop=True)
NUMBERS = {"a": ColumnType.NUMERIC, "s": ColumnType.NUMERIC}


def make_release(*sets: pd.DataFrame, original: pd.DataFrame = ORIGINAL) -> Release:
    synthetic = tuple(Dataset("synthetic", f"synthetic[{m}]", f) for m, f in enumerate(sets, start=1))
    return Release("r", Dataset("original", "original", original), synthetic, None, TYPES)


def with_holdout(*sets: pd.DataFrame) -> Release:
    release = make_release(*sets)
    return Release(release.id, release.original, release.synthetic, Dataset("holdout", "holdout", HOLDOUT), TYPES)


def bootstrap_release() -> Release:
    return Release(
        "r", Dataset("original", "original", SHUFFLED), (Dataset("synthetic", "boot", BOOTSTRAP),), None, NUMBERS
    )


def release_of(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    types: dict[str, ColumnType] = NUMBERS,
    people: pd.DataFrame | None = None,
) -> Release:
    """One synthetic set against ``original``; ``people``: the original's id column (its ids repeat: panel data)."""
    return Release(
        "r",
        Dataset("original", "original", original, id_frame=people),
        (Dataset("synthetic", "copy", synthetic),),
        None,
        types,
    )


def evaluate(
    name: str, release: Release, secrets: tuple[str, ...] = ("s",), qis: tuple[str, ...] = ("a",), **params: Any
) -> MetricResult:
    """Evaluate a linkage rule; tests of the attack's mechanics pass baseline="none" (the raw rate).

    The paper's attack reverse-maps, so that is the mapping here unless a test names others
    (the choice between mappings has its own tests).
    """
    params.setdefault("mappings", ["reverse"])
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", qis, secrets), seed=3)
    spec = registry.get_metric(name)
    parsed = spec.params(**params)
    needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(parsed, release)}
    return spec.evaluate(ctx, parsed, needs)
