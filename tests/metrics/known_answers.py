"""Known-answer cases of the metrics, as data (sqlfluff's YAML rule cases, for privacy metrics).

Each registered metric has ``tests/metrics/<family>/cases/<metric>.yaml``::

    metric: dcr_share
    cases:
      - name: two_of_three_untied_records_closer_to_training
        source: hand computation (Gower on one numeric column, range 10): ...
        columns: {x: numeric}                 # optional type declarations, as in a manifest
        original: [{x: 0}, {x: 4}, {x: 8}]    # records; holdout and synthetic alike
        holdout: [{x: 1}, {x: 5}, {x: 9}]
        synthetic: [{x: 0}, {x: 4}, {x: 9}]   # one set; or synthetic_sets: [[...], [...]]
        attacker: {model: maximum-knowledge, quasi_identifiers: [x], secrets: []}   # optional
        params: {}                            # the rule's params
        synthesizer: {epsilon: 1.0}           # optional declarations of every set
        seed: 0
        expect:                               # any of: value, interval, raw, baseline, sample_size, details
          value: 0.6666666667
          details: {closer_to_training: 2}    # a subset of the details
        tolerance: 1.0e-9                     # absolute, for every number (default 1e-9)

``source`` is required: it says where the expected numbers come from (a paper's table, a hand
computation written out, a peer tool's output), never our own function's output. The case runs
through the public API (:func:`policycheck.check`, serial executor), so it checks the metric as a
policy sees it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

CASES_ROOT = Path(__file__).parent
DEFAULT_TOLERANCE = 1e-9
DEFAULT_ATTACKER = {"model": "maximum-knowledge", "quasi_identifiers": [], "secrets": []}


def cases_file(family: str, metric: str) -> Path:
    return CASES_ROOT / family / "cases" / f"{metric}.yaml"


def load_cases(path: Path) -> list[dict[str, Any]]:
    """The cases of one file, each with its metric; refuses a case without ``name``, ``source`` or ``expect``."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for case in doc["cases"]:
        missing = [k for k in ("name", "source", "expect", "original") if k not in case]
        if missing:
            raise ValueError(f"{path.name}: case {case.get('name', '?')!r} lacks {', '.join(missing)}")
        out.append({**case, "metric": doc["metric"]})
    return out


def all_cases() -> list[dict[str, Any]]:
    return [case for path in sorted(CASES_ROOT.glob("*/cases/*.yaml")) for case in load_cases(path)]


def _frame(records: list[dict[str, Any]]):
    import pandas as pd

    return pd.DataFrame.from_records(records)


def _threshold(metric: str) -> dict[str, Any]:
    """A threshold no known-answer value reaches: the case checks numbers, not verdicts."""
    from policycheck.metrics import registry

    spec = registry.get_metric(metric)
    low, high = spec.value_range
    if spec.fail_direction == "above":
        return {"fail_above": high if high is not None else 1e12}
    return {"fail_below": low if low is not None else -1e12}


def run_case(case: dict[str, Any], folder: Path) -> dict[str, Any]:
    """report.json's record of the case's one rule."""
    import policycheck as pc

    rule = {
        "id": "case",
        "metric": case["metric"],
        "params": case.get("params", {}),
        "threshold": {**_threshold(case["metric"]), "compare": "estimate"},
    }
    policy = {
        "metadata": {"id": f"case-{case['name']}", "title": case["name"], "version": "1", "owner": "tests"},
        "attacker": case.get("attacker", DEFAULT_ATTACKER),
        "rules": [rule],
    }
    path = folder / "case.policy.yaml"
    path.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    sets = case.get("synthetic_sets") or [case.get("synthetic", case["original"])]
    release = pc.Release(
        original=_frame(case["original"]),
        synthetic=[_frame(s) for s in sets],
        holdout=_frame(case["holdout"]) if "holdout" in case else None,
        columns=case.get("columns"),
        synthesizer=case.get("synthesizer"),
    )
    report = pc.check(
        pc.load_policy(path, release), release, seed=case.get("seed", 0), executor="serial", progress=False
    )
    (found,) = [r for r in report.rules if r["id"] == "case"]
    return found


def mismatches(expected: Any, actual: Any, tolerance: float, where: str = "") -> list[str]:
    """Every place where ``actual`` differs from ``expected`` (mappings compared on expected's keys only)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected a mapping, got {actual!r}"]
        out = []
        for key, value in expected.items():
            if key not in actual:
                out.append(f"{where}.{key}: missing")
            else:
                out += mismatches(value, actual[key], tolerance, f"{where}.{key}")
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: expected {expected!r}, got {actual!r}"]
        return [
            m
            for i, (e, a) in enumerate(zip(expected, actual, strict=False))
            for m in mismatches(e, a, tolerance, f"{where}[{i}]")
        ]
    if isinstance(expected, (int, float)) and not isinstance(expected, bool) and isinstance(actual, (int, float)):
        if math.isclose(float(actual), float(expected), rel_tol=0.0, abs_tol=tolerance):
            return []
        return [f"{where}: expected {expected!r}, got {actual!r}"]
    return [] if expected == actual else [f"{where}: expected {expected!r}, got {actual!r}"]
