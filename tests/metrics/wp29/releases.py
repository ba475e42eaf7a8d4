"""People for the Article 29 metrics' tests, and how the tests evaluate a rule on them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, MetricResult
from policycheck.release.model import ColumnType, Dataset, Release

N = 400


def people(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.uniform(18, 90, N),
            "hours": rng.uniform(1, 99, N),
            "job": rng.choice([f"j{i}" for i in range(12)], N),
            "city": rng.choice([f"c{i}" for i in range(15)], N),
            "income": rng.choice(["low", "high"], N),
        }
    )


ORIGINAL, HOLDOUT = people(5), people(6)
TYPES = {c: ColumnType.NUMERIC if c in ("age", "hours") else ColumnType.CATEGORICAL for c in ORIGINAL}


def evaluate(name: str, synthetic: pd.DataFrame, holdout: pd.DataFrame | None = HOLDOUT, **params: Any) -> MetricResult:
    sets = (Dataset("synthetic", "synthetic[1]", synthetic),)
    hold = Dataset("holdout", "holdout", holdout) if holdout is not None else None
    release = Release("r", Dataset("original", "original", ORIGINAL), sets, hold, TYPES)
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("age", "job", "city"), ("income",)), seed=7)
    spec = registry.get_metric(name)
    return spec.evaluate(ctx, spec.params(**params), {})


def check_refusal(quasi_identifiers: list[str], metric: str) -> tuple[int, str, bool]:
    """``policycheck check`` of one rule of ``metric`` on this release's CSVs written here (the current
    folder), an attacker with ``quasi_identifiers`` and no secret: (exit code, stderr, whether a report
    folder was written)."""
    folder = Path()
    from click.testing import CliRunner

    from policycheck.interfaces.cli import cli

    for name, frame in (("original", ORIGINAL), ("synthetic", ORIGINAL), ("holdout", HOLDOUT)):
        frame.to_csv(folder / f"{name}.csv", index=False)
    (folder / "p.yaml").write_text(
        'metadata: {id: k, title: k, version: "1", owner: tests}\n'
        f"attacker: {{model: partially-informed, quasi_identifiers: [{', '.join(quasi_identifiers)}]}}\n"
        "rules:\n"
        f"  - {{id: r, metric: {metric}, threshold: {{fail_above: 0.1}}}}\n"
    )
    files = [f"--{name}={name}.csv" for name in ("original", "synthetic", "holdout")]
    args = ["check", "p.yaml", *files, "-o", "out"]
    result = CliRunner().invoke(cli, args, prog_name="policycheck")
    return result.exit_code, result.stderr, (folder / "out").exists()
