"""Charts the linkage rules share: the rate against the number of sets released, and the identified widths."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from policycheck.metrics.linkage.baseline import Compared
from policycheck.metrics.linkage.evidence import SetsRate

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    from policycheck.methods.linkage.attack import LinkageAttack


def risk_chart(title: str, y_label: str, by_m: list[SetsRate], compared: Compared) -> dict[str, Any]:
    """The rate with the first m sets, m = 1..M (sec. 3.2), and the baseline as a line."""
    return {
        "kind": "line",
        "title": title,
        "x_label": "number of released synthetic sets used by the attacker (first m)",
        "y_label": y_label,
        "series": [{"name": "linkage attack", "x": [r.sets for r in by_m], "y": [r.value for r in by_m]}],
        "reference_lines": [{"axis": "y", "value": compared.baseline, "label": f"baseline ({compared.details.used})"}],
    }


def width_histogram(attack: LinkageAttack, fraction: float) -> dict[str, Any]:
    """Widths of the identified ranges, split by whether they hold the true value, with the policy's fraction."""
    import numpy as np

    d = attack.disclosure
    widths = d.width()
    holds = d.holds_true() & d.known
    shown = d.known & ~np.isnan(widths)
    edges = np.unique(np.round(np.concatenate([np.linspace(0.0, 1.0, 21), [fraction]]), 10))
    return {
        "kind": "histogram",
        "title": f"Width of the range identified for {attack.secret}, as a fraction of its range",
        "x_label": f"identified range width / range of {attack.secret} in the original",
        "series": [
            {
                "name": "range holds the true value",
                "edges": edges.tolist(),
                "counts": np.histogram(widths[holds & shown], edges)[0].tolist(),
            },
            {
                "name": "range misses the true value",
                "edges": edges.tolist(),
                "counts": np.histogram(widths[~holds & shown], edges)[0].tolist(),
            },
        ],
        "reference_lines": [{"axis": "x", "value": fraction, "label": "narrow (policy fraction)"}],
    }
