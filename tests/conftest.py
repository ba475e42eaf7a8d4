"""Shared fixtures: a toy metric family, and small files written on demand."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pytest
from pydantic import Field

from policycheck.core.stats import clopper_pearson
from policycheck.metrics import registry
from policycheck.metrics.base import EvaluationError, Knowledge, MetricResult, Need
from policycheck.metrics.details import Details, detail
from policycheck.metrics.registry import Params

DEMO = Path(__file__).resolve().parents[1] / "policycheck" / "demo_data"


class ShareParams(Params):
    column: str = Field(description="Column to count in.")
    value: str = Field(description="Value counted.")
    explode: bool = Field(default=False, description="Raise inside the evaluator (tests the error verdict).")


class ShareDetails(Details):
    k: int = detail("Synthetic rows holding the value", unit="rows")
    n: int = detail("Synthetic rows", unit="rows")


def _share_needs(params, release):
    return [Need.of("toy_counts", synthetic=i, column=params.column) for i in range(len(release.synthetic))]


def _toy_counts(ctx, synthetic, column):
    return ctx.release.synthetic[synthetic].frame[column].value_counts().to_dict()


def _toy_share(ctx, params, needs):
    """Share of synthetic rows holding a value (test metric)."""
    if params.explode:
        raise EvaluationError("the toy evaluator was told to fail")
    shares = []
    for counts in needs.values():
        n = sum(counts.values())
        shares.append((counts.get(params.value, 0), n))
    k, n = max(shares, key=lambda kn: kn[0] / kn[1])
    return MetricResult(k / n, clopper_pearson(k, n), 0.95, ShareDetails(k=k, n=n))


@pytest.fixture
def toy_metric():
    """Register ``toy_share`` (+ intermediate ``toy_counts``) for one test."""
    registry.load_families()
    registry.intermediate(name="toy_counts", description="value counts of one column")(_toy_counts)
    registry.metric(
        name="toy_share",
        family="toy",
        params=ShareParams,
        knowledge={Knowledge.SYNTHETIC},
        inputs={"synthetic"},
        value_range=(0.0, 1.0),
        column_params=("column",),
        needs=_share_needs,
        meaning="The share of synthetic rows holding the value.",
        remedy="Change the synthesizer.",
        details=ShareDetails,
    )(_toy_share)
    yield registry.get_metric("toy_share")
    registry._METRICS.pop("toy_share", None)
    registry._INTERMEDIATES.pop("toy_counts", None)


@pytest.fixture
def write(tmp_path):
    """write(name, text) -> path of a new file under tmp_path."""

    def _write(name: str, text: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    return _write


#: Six synthetic rows: the toy tests are about reports and plumbing, so the rule decides on its estimate
#: (its Clopper-Pearson interval at n = 6 would leave almost every threshold inconclusive).
TOY_POLICY = """\
metadata: {id: toy, title: Toy policy, version: "1", owner: tests}
attacker: {model: no-box, quasi_identifiers: [sex], secrets: [income]}
rules:
  - id: male-share
    metric: toy_share
    params: {column: sex, value: Male}
    threshold: {fail_above: 0.9, warn_above: 0.6, compare: estimate}
"""


@pytest.fixture
def toy_release(tmp_path):
    """A small release (CSV files) with columns age, sex, income."""
    original = pd.DataFrame(
        {
            "age": [30, 41, 52, 23, 35, 60],
            "sex": ["Male", "Female", "Male", "Female", "Male", "Male"],
            "income": ["<=50K", ">50K", "<=50K", "<=50K", ">50K", "<=50K"],
        }
    )
    synthetic = original.iloc[[0, 1, 2, 4, 4, 5]]
    holdout = original.assign(age=original["age"] + 1)
    paths = {}
    for name, frame in (("original", original), ("synthetic", synthetic), ("holdout", holdout)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    manifest = tmp_path / "release.yaml"
    manifest.write_text(
        "release: {id: toy-release}\noriginal: original.csv\nholdout: holdout.csv\n"
        "synthetic:\n  - path: synthetic.csv\n    synthesizer: {name: copy, epsilon: 1.0, delta: 1e-6}\n"
    )
    paths["manifest"] = manifest
    return paths


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path, monkeypatch):
    """Run every test in its own folder, so reported paths are short and relative."""
    monkeypatch.chdir(tmp_path)


def toy_check_args(policy: str | Path, manifest: str | Path, *extra: str) -> list[str]:
    """``check``'s arguments for a report set in ./out from ``manifest``: quiet, in this process (serial)."""
    return ["check", str(policy), "-r", str(manifest), "-o", "out", "-q", "--executor", "serial", *extra]


def registered_toy_metric(name: str, evaluate: Callable, params: type[Params] = Params) -> Iterator[None]:
    """``evaluate`` registered as the synthetic-only toy metric ``name`` while a fixture yields, then removed."""
    registry.load_families()
    registry.metric(name=name, family="toy", params=params, knowledge={Knowledge.SYNTHETIC}, inputs={"synthetic"})(
        evaluate
    )
    yield
    registry._METRICS.pop(name, None)


def binomial_tail_by_hand(k: int, n: int, p: float) -> float:
    """``P(X >= k)`` for ``X ~ Binomial(n, p)`` as the sum of its terms: the hand computation tests compare with."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))
