"""Charts of the attacks on the release: accuracy per attack (with its control), and the individual part."""

from __future__ import annotations

from typing import Any

from policycheck.metrics.reconstruction.rows import AttackRow


def accuracy_chart(rows: list[AttackRow], baseline: float, with_control: bool) -> dict[str, Any]:
    """Accuracy of each attack per set, on the original and (with a control) the holdout records."""
    series: list[dict[str, Any]] = []
    for set_name in dict.fromkeys(r.set for r in rows):
        mine = [r for r in rows if r.set == set_name]
        series.append(
            {"name": f"{set_name}: original records", "x": [r.attack for r in mine], "y": [r.accuracy for r in mine]}
        )
        if with_control:
            series.append(
                {
                    "name": f"{set_name}: holdout records (control)",
                    "x": [r.attack for r in mine],
                    "y": [r.control_accuracy for r in mine],
                }
            )
    return {
        "kind": "bar",
        "title": "Attack accuracy per attack",
        "x_label": "attack",
        "y_label": "accuracy",
        "series": series,
        "reference_lines": [{"axis": "y", "value": baseline, "label": "guess the most common secret"}],
    }


def individual_risk_chart(rows: list[AttackRow]) -> dict[str, Any]:
    """The individual part of each attack's accuracy per set, against 0 (no individual leakage)."""
    return {
        "kind": "bar",
        "title": "Individual part of each attack's accuracy",
        "x_label": "attack",
        "y_label": "(acc - acc_control) / (1 - acc_control)",
        "series": [
            {
                "name": s,
                "x": [r.attack for r in rows if r.set == s],
                "y": [r.individual_risk for r in rows if r.set == s],
            }
            for s in dict.fromkeys(r.set for r in rows)
        ],
        "reference_lines": [{"axis": "y", "value": 0.0, "label": "no individual leakage"}],
    }
