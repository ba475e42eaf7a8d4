"""Histograms: each series' counts as shares of its items, overlaid series see-through with their own outline."""

from __future__ import annotations

from typing import Any

from markupsafe import escape

from policycheck.report.charts.axes import Axes, axis_domain, plot_top, ref_value, references
from policycheck.report.charts.style import DASHES, PALETTE
from policycheck.report.charts.text import fmt, number


def histogram_y_label(spec: dict[str, Any]) -> str:
    """A histogram's y: the share of what it counts (``counts_of``: records unless the spec says otherwise)."""
    return f"share of {spec.get('counts_of') or 'records'} in each bin"


def histogram_chart(spec: dict[str, Any]) -> tuple[str, float]:
    series = spec.get("series") or []
    edges_all = [v for s in series for v in map(number, s.get("edges", [])) if v is not None]
    tops = [c / max(sum(s.get("counts", [])), 1) for s in series for c in s.get("counts", [])]
    xs = edges_all + [ref_value(r) for r in references(spec) if r.get("axis") == "x"]
    legend, top = plot_top(spec)
    ax = Axes(
        min(xs, default=0),
        max(xs, default=1),
        0,
        max(tops, default=1) or 1,
        top,
        x_domain=axis_domain(spec, "x", "histogram"),
        y_domain=(0.0, 1.0),
    )
    # NOTE: the bars are shares of each series' items, whatever the spec's y label says.
    parts = [ax.frame({**spec, "y_label": histogram_y_label(spec)})]
    overlaid = len(series) > 1
    for si, s in enumerate(series):
        color = PALETTE[si % len(PALETTE)]
        dash = DASHES[si % len(DASHES)] if overlaid else ""
        outline = f' stroke-width="1.5" stroke-dasharray="{dash}"' if dash else ' stroke-width="1.5"'
        edges, counts = s.get("edges", []), s.get("counts", [])
        total = max(sum(counts), 1)
        for i, c in enumerate(counts):
            x0, x1 = ax.x(float(edges[i])), ax.x(float(edges[i + 1]))
            y = ax.y(c / total)
            parts.append(
                f'<rect x="{x0:.1f}" y="{y:.1f}" width="{max(x1 - x0, 0.5):.1f}" height="{ax.y(0) - y:.1f}" '
                f'fill="{color}" fill-opacity="{0.3 if overlaid else 0.55}" stroke="{color}"{outline}>'
                f"<title>{escape(s.get('name', ''))} [{fmt(float(edges[i]))}, {fmt(float(edges[i + 1]))}): "
                f"{c} ({fmt(c / total)})</title></rect>"
            )
    parts.append(ax.reference_lines(spec))
    parts.append(legend)
    return "".join(parts), ax.height
