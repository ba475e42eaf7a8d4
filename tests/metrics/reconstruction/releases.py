"""Releases for the reconstruction metrics' tests, and how the tests evaluate a rule on them."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from policycheck.methods.synthesizers import Synthesizer
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, MetricResult
from policycheck.release.model import ColumnType, Dataset, Release, SynthesizerInfo

QIS = ("age", "job", "city", "pet")


def population(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "job": rng.choice(list("abcdefgh"), n),
            "city": rng.choice(list("pqrstu"), n),
            "pet": rng.choice(["cat", "dog", "none"], n),
        }
    )
    # The secret depends weakly on job, so a population-level inference exists.
    frame["sex"] = np.where(rng.random(n) < np.where(frame["job"] < "c", 0.8, 0.4), "M", "F")
    return frame


def synthesized(synthesizer: Synthesizer, m: int = 2000, holdout: bool = True, command: str | None = None) -> Release:
    original, control = population(400, 0), population(400, 1)
    synthetic = synthesizer(original, m, np.random.default_rng(2))
    types = dict.fromkeys(original.columns, ColumnType.CATEGORICAL) | {"age": ColumnType.NUMERIC}
    info = SynthesizerInfo(name=synthesizer.__name__, command=command)
    return Release(
        "r",
        Dataset("original", "original", original),
        (Dataset("synthetic", "synthetic[1]", synthetic, synthesizer=info),),
        Dataset("holdout", "holdout", control) if holdout else None,
        types,
    )


def evaluate(release: Release, name: str, params: dict[str, Any], secrets: tuple[str, ...] = ("sex",)) -> MetricResult:
    ctx = EvaluationContext(release, AttackerView("partially-informed", QIS, secrets), seed=0)
    spec = registry.get_metric(name)
    p = spec.params(**params)
    needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(p, release)}
    result = spec.evaluate(ctx, p, needs)
    json.dumps(result.details.to_report()), json.dumps(list(result.charts))
    return result


# A release small enough to attack by hand, with the exact-match attack:
# original q = a a b b c c, s = y y n n y y; holdout q = a b c d d d, s = y n n y n n.
# Set "copy" equals the original: it reveals every secret (6/6); its most common secret is y
# (4/6 right for everyone); on the holdout it guesses y n y and, for the unmatched d, the
# synthetic majority y: 3/6 right. Set "wrong" holds a n, b n, c n: 2/6 on the original, 4/6
# on the holdout. (cases/reconstruction_accuracy.yaml holds the same release.)
HAND_ORIGINAL = pd.DataFrame({"q": list("aabbcc"), "s": ["y", "y", "n", "n", "y", "y"]})
HAND_HOLDOUT = pd.DataFrame({"q": list("abcddd"), "s": ["y", "n", "n", "y", "n", "n"]})
HAND_WRONG = pd.DataFrame({"q": list("abc"), "s": ["n", "n", "n"]})


def hand_release(original: pd.DataFrame = HAND_ORIGINAL, holdout: pd.DataFrame = HAND_HOLDOUT) -> Release:
    sets = (Dataset("synthetic", "copy", HAND_ORIGINAL.copy()), Dataset("synthetic", "wrong", HAND_WRONG))
    return Release(
        "hand",
        Dataset("original", "original", original),
        sets,
        Dataset("holdout", "holdout", holdout),
        {"q": ColumnType.CATEGORICAL, "s": ColumnType.CATEGORICAL},
    )


def hand(name: str, release: Release | None = None, **params: Any) -> MetricResult:
    release = release or hand_release()
    ctx = EvaluationContext(release, AttackerView("partially-informed", ("q",), ("s",)), seed=0)
    spec = registry.get_metric(name)
    p = spec.params(secret="s", attacks=["exact"], **params)
    needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(p, release)}
    return spec.evaluate(ctx, p, needs)
