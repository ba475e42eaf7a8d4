"""Bar, line and scatter charts."""

from __future__ import annotations

import math
from typing import Any

from markupsafe import escape

from policycheck.report.charts.axes import Axes, axis_domain, plot_top, ref_value, references
from policycheck.report.charts.style import PALETTE, RIGHT, W
from policycheck.report.charts.text import distinct_parts, fmt, number, shorten_middle, split_in_two, text_width


def xy_chart(spec: dict[str, Any], kind: str) -> tuple[str, float]:
    series = spec.get("series") or []
    refs = [ref_value(r) for r in references(spec) if r.get("axis", "y") == "y"]
    ys = [v for s in series for v in map(number, s.get("y", [])) if v is not None] + refs
    legend, top = plot_top(spec)
    categorical = any(number(x) is None for s in series for x in s.get("x", []))
    if kind == "bar" or categorical:
        labels = list(dict.fromkeys(str(x) for s in series for x in s.get("x", [])))
        ax = Axes(
            0, max(len(labels), 1), min([0.0, *ys]), max([*ys, 0.0]) or 1.0, top, y_domain=axis_domain(spec, "y", kind)
        )
        band = (W - ax.LEFT - RIGHT) / max(len(labels), 1)
        shown_labels = distinct_parts(labels)
        widest = max((text_width(t, 10) for t in shown_labels), default=0)
        # NOTE: labels too long for their band go on two lines, split at a separator, before any is cut short
        # (a cut "adult-t…2025[1]" loses the name that tells the sets apart).
        split = [split_in_two(t, band - 4, 10) for t in shown_labels] if widest > band - 4 else []
        halves = [h for h in split if h is not None]
        two_lines = bool(split) and len(halves) == len(split) and any(len(h) > 1 for h in halves)
        if two_lines:
            ax.height += 12
        parts = [ax.frame(spec, x_ticks=False, label_drop=12 if two_lines else 0)]
        # NOTE: cap the bar width: one category must not fill the chart.
        width = min(band * 0.8 / max(len(series), 1), 72)
        group = width * len(series)
        n_bars = sum(len(s.get("y", [])) for s in series)
        for si, s in enumerate(series):
            color = PALETTE[si % len(PALETTE)]
            for x, y in zip(s.get("x", []), s.get("y", []), strict=False):
                v = number(y)
                if v is None:
                    continue
                i = labels.index(str(x))
                bx = ax.LEFT + band * i + (band - group) / 2 + width * si
                top_y, base = ax.y(max(v, 0)), ax.y(min(v, 0))
                parts.append(
                    f'<rect x="{bx:.1f}" y="{top_y:.1f}" width="{width:.1f}" height="{max(base - top_y, 0.5):.1f}" '
                    f'fill="{color}">'
                    f"<title>{escape(s.get('name', ''))} {escape(str(x))}: {fmt(v)}</title></rect>"
                )
                # NOTE: a value label is written only where it fits over its own bar, so
                # neighbouring labels never overlap (the tooltip and the text alternative hold every value).
                if n_bars <= 16 and text_width(fmt(v), 9.5) <= width + 2:
                    parts.append(
                        f'<text x="{bx + width / 2:.1f}" y="{top_y - 3:.1f}" text-anchor="middle" '
                        f'class="bv">{fmt(v)}</text>'
                    )
        if two_lines:
            for i, (label, lines) in enumerate(zip(labels, halves, strict=True)):
                x = ax.LEFT + band * (i + 0.5)
                spans = "".join(
                    f'<tspan x="{x:.1f}" dy="{12 if k else 0}">{escape(line)}</tspan>' for k, line in enumerate(lines)
                )
                parts.append(
                    f'<text x="{x:.1f}" y="{ax.bottom + 16}" text-anchor="middle" class="tk">'
                    f"<title>{escape(label)}</title>{spans}</text>"
                )
            labels = []  # written
        # NOTE: every label when they fit their band, else every step-th, each cut to its room: never overlapping.
        step = next((k for k in range(1, len(labels) + 1) if widest <= band * k - 4), None) or max(1, len(labels))
        step = min(step, max(1, math.ceil(len(labels) * 80 / (W - ax.LEFT - RIGHT))) if widest > band - 4 else 1)
        for i, label in enumerate(labels):
            if i % step == 0:
                short = shorten_middle(shown_labels[i], band * step - 4, 10)
                parts.append(
                    f'<text x="{ax.LEFT + band * (i + 0.5):.1f}" y="{ax.bottom + 16}" text-anchor="middle" class="tk">'
                    f"<title>{escape(label)}</title>{escape(short)}</text>"
                )
    else:
        xs = [v for s in series for v in map(number, s.get("x", [])) if v is not None]
        y0 = min(ys, default=0.0)
        log_x, log_y = spec.get("x_scale") == "log", spec.get("y_scale") == "log"
        # NOTE: a non-negative quantity is drawn from zero, so a small change
        # does not look like a large one (on a linear axis; a log axis has no zero).
        ax = Axes(
            min(xs, default=0),
            max(xs, default=1),
            y0 if log_y else min(y0, 0.0),
            max(ys, default=1),
            top,
            integer_x=not log_x and bool(xs) and all(float(v).is_integer() for v in xs),
            x_domain=axis_domain(spec, "x", kind),
            y_domain=axis_domain(spec, "y", kind),
            log_x=log_x,
            log_y=log_y,
        )
        parts = [ax.frame(spec)]
        for si, s in enumerate(series):
            color = PALETTE[si % len(PALETTE)]
            pts = [
                (ax.x(vx), ax.y(vy))
                for x, y in zip(s.get("x", []), s.get("y", []), strict=False)
                if (vx := number(x)) is not None and (vy := number(y)) is not None
            ]
            if kind == "line" and len(pts) > 1:
                path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
                parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
            if kind == "scatter" or len(pts) <= 30:
                parts.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>' for x, y in pts)
    parts.append(ax.reference_lines(spec))
    parts.append(legend)
    return "".join(parts), ax.height
