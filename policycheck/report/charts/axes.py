"""Linear and log axes of x/y charts and histograms: ranges, ticks, frame, legend and reference lines."""

from __future__ import annotations

import math
import re
from typing import Any

from markupsafe import escape

from policycheck.report.charts.style import PALETTE, RIGHT, W
from policycheck.report.charts.text import fmt, number, shorten, text_width, wrap


def nice_step(span: float, n: int = 5) -> float:
    """A 1-2-5 step that cuts ``span`` into at most about ``n`` intervals."""
    if span <= 0:
        return 1.0
    step: float = 10 ** math.floor(math.log10(span / n))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= n:
            return step * m
    return step * 10


def ticks(lo: float, hi: float, n: int = 5, integer: bool = False) -> list[float]:
    if hi <= lo:
        return [lo]
    step = nice_step(hi - lo, n)
    if integer:
        step = max(1.0, round(step))
    start = math.ceil(lo / step - 1e-9) * step
    out, t = [], start
    while t <= hi + step * 1e-9:
        out.append(round(t, 12))
        t += step
    return out


#: Axis labels whose quantity lies in [0, 1] (shares, rates, accuracies).
UNIT_LABEL = re.compile(r"^(share|fraction|proportion|accuracy|precision|recall|probability)\b|positive rate", re.I)


def axis_domain(spec: dict[str, Any], axis: str, kind: str) -> tuple[float | None, float | None]:
    """The values an axis can take: the spec's ``x_domain``/``y_domain``, [0, 1] for a share or rate
    (a histogram's y is the share of its items in each bin), else unbounded."""
    given = spec.get(f"{axis}_domain")
    if isinstance(given, (list, tuple)) and len(given) == 2:
        return number(given[0]), number(given[1])
    if axis == "y" and kind == "histogram":
        return 0.0, 1.0
    if UNIT_LABEL.search(str(spec.get(f"{axis}_label") or "")):
        return 0.0, 1.0
    return None, None


def clip(v: float, lo: float | None, hi: float | None) -> float:
    return min(max(v, lo if lo is not None else v), hi if hi is not None else v)


class Axes:
    """Linear axes of an x/y chart, with a frame, grid, ticks and labels."""

    LEFT, BOTTOM, PLOT_H = 64, 50, 220

    def __init__(
        self,
        x0: float,
        x1: float,
        y0: float,
        y1: float,
        top: float,
        integer_x: bool = False,
        x_domain: tuple[float | None, float | None] = (None, None),
        y_domain: tuple[float | None, float | None] = (None, None),
        log_x: bool = False,
        log_y: bool = False,
    ) -> None:
        # NOTE: the data's range is clipped to the metric's domain first: a
        # share's interval never reaches below 0 or above 1 on the page.
        x0, x1 = clip(x0, *x_domain), clip(x1, *x_domain)
        y0, y1 = clip(y0, *y_domain), clip(y1, *y_domain)
        if x1 <= x0:
            x0, x1 = x0 - 0.5, x1 + 0.5
        if y1 <= y0:
            y0, y1 = (y0 - 0.5, y1 + 0.5) if y0 < 0 else (y0, y1 + (abs(y1) or 1.0))
        # NOTE: round the y range out to whole ticks, so the tallest bar or
        # point meets a labelled grid line instead of the frame's edge; never past the domain.
        step = nice_step(y1 - y0)
        y1 = clip(math.ceil(y1 / step - 1e-9) * step, *y_domain)
        y0 = clip(math.floor(y0 / step + 1e-9) * step, *y_domain)
        x0, x1 = clip(x0, *x_domain), clip(x1, *x_domain)
        if y1 <= y0:
            y1 = y0 + step
        if log_y:  # a log axis spans whole decades of the data (already in log10), within its domain
            y0, y1 = clip(math.floor(min(y0, y1) + 1e-9), *y_domain), clip(math.ceil(y1 - 1e-9), *y_domain)
            y1 = y1 if y1 > y0 else y0 + 1
        if log_x:
            x0, x1 = clip(math.floor(x0 + 1e-9), *x_domain), clip(math.ceil(x1 - 1e-9), *x_domain)
            x1 = x1 if x1 > x0 else x0 + 1
        self.log_x, self.log_y = log_x, log_y
        self.x0, self.x1, self.y0, self.y1 = x0, x1, y0, y1
        self.top = top
        self.bottom = top + self.PLOT_H
        self.height = self.bottom + self.BOTTOM
        self.integer_x = integer_x

    def x(self, v: float) -> float:
        v = clip(v, self.x0, self.x1)  # a value outside the domain is drawn at its edge, never beyond the frame
        return self.LEFT + (v - self.x0) / (self.x1 - self.x0) * (W - self.LEFT - RIGHT)

    def y(self, v: float) -> float:
        v = clip(v, self.y0, self.y1)
        return self.bottom - (v - self.y0) / (self.y1 - self.y0) * self.PLOT_H

    def frame(self, spec: dict[str, Any], x_ticks: bool = True, label_drop: float = 0) -> str:
        """Grid, axes, ticks and axis titles; ``label_drop`` moves the x-axis title down (two-line tick labels)."""
        left, top, bottom = self.LEFT, self.top, self.bottom
        parts = []
        for t in decades(self.y0, self.y1) if self.log_y else ticks(self.y0, self.y1):
            label = fmt(10**t) if self.log_y else fmt(t)
            parts.append(
                f'<line x1="{left}" y1="{self.y(t):.1f}" x2="{W - RIGHT}" y2="{self.y(t):.1f}" class="grid"/>'
                f'<text x="{left - 6}" y="{self.y(t) + 4:.1f}" text-anchor="end" class="tk">{label}</text>'
            )
        parts += [
            f'<line x1="{left}" y1="{bottom}" x2="{W - RIGHT}" y2="{bottom}" class="ax"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" class="ax"/>',
        ]
        if x_ticks:
            for t in decades(self.x0, self.x1) if self.log_x else ticks(self.x0, self.x1, integer=self.integer_x):
                label = fmt(10**t) if self.log_x else fmt(t)
                parts.append(
                    f'<text x="{self.x(t):.1f}" y="{bottom + 16}" text-anchor="middle" class="tk">{label}</text>'
                )
        x_label = shorten(str(spec.get("x_label", "")), W - left - RIGHT, 11)
        parts.append(
            f'<text x="{(left + W - RIGHT) / 2}" y="{bottom + 38 + label_drop}" text-anchor="middle" '
            f'class="al">{escape(x_label)}</text>'
        )
        parts.append(y_axis_label(str(spec.get("y_label", "")), top, bottom))
        return "".join(parts)

    def reference_lines(self, spec: dict[str, Any]) -> str:
        """Dashed lines at the spec's reference values; their labels are in the legend."""
        parts = []
        for ref in references(spec):
            v = ref_value(ref)
            label = escape(str(ref.get("label", "")))
            if ref.get("axis", "y") == "y" and self.y0 <= v <= self.y1:
                parts.append(
                    f'<line x1="{self.LEFT}" y1="{self.y(v):.1f}" x2="{W - RIGHT}" y2="{self.y(v):.1f}" class="ref">'
                    f"<title>{label}: {fmt(v)}</title></line>"
                )
            elif ref.get("axis") == "x" and self.x0 <= v <= self.x1:
                parts.append(
                    f'<line x1="{self.x(v):.1f}" y1="{self.top}" x2="{self.x(v):.1f}" y2="{self.bottom}" class="ref">'
                    f"<title>{label}: {fmt(v)}</title></line>"
                )
        return "".join(parts)


def decades(lo: float, hi: float) -> list[float]:
    """Tick positions of a log axis (in log10): every whole decade from ``lo`` to ``hi``."""
    return [float(t) for t in range(math.ceil(lo - 1e-9), math.floor(hi + 1e-9) + 1)]


def log10(v: Any) -> float | None:
    """log10 of a positive number; None for anything a log axis cannot draw."""
    f = number(v)
    return math.log10(f) if f is not None and f > 0 else None


def log_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with its log-scaled axes' values (series, domains, reference lines) in log10."""
    log_x, log_y = spec.get("x_scale") == "log", spec.get("y_scale") == "log"
    out = dict(spec)
    out["series"] = [
        {
            **s,
            "x": [log10(v) for v in s.get("x", [])] if log_x else s.get("x", []),
            "y": [log10(v) for v in s.get("y", [])] if log_y else s.get("y", []),
        }
        for s in spec.get("series") or []
    ]
    for axis, log in (("x", log_x), ("y", log_y)):
        domain = spec.get(f"{axis}_domain")
        if log:
            out[f"{axis}_domain"] = [log10(v) for v in domain] if isinstance(domain, (list, tuple)) else [None, 0.0]
    out["reference_lines"] = [
        {**r, "value": log10(r["value"])} if (log_x if r.get("axis") == "x" else log_y) else r
        for r in spec.get("reference_lines", []) or []
    ]
    return out


def references(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        r for r in spec.get("reference_lines", []) or [] if isinstance(r, dict) and number(r.get("value")) is not None
    ]


def ref_value(ref: dict[str, Any]) -> float:
    """The value of a reference line :func:`references` kept (a finite number, by its filter)."""
    v = number(ref.get("value"))
    assert v is not None, "references() keeps only lines with a finite value"
    return v


def legend_svg(names: list[str], refs: list[str], top: float, left: float) -> tuple[str, float]:
    """Legend entries (series swatches, then dashed reference lines) flowing
    over as many rows as needed; returns (svg, height)."""
    entries = [("swatch", n, PALETTE[i % len(PALETTE)]) for i, n in enumerate(names)] if len(names) >= 2 else []
    entries += [("ref", n, "") for n in refs if n]
    if not entries:
        return "", 0.0
    parts, x, y = [], left, top
    for kind, name, color in entries:
        label = shorten(name, W - left - RIGHT - 30, 10)
        width = (26 if kind == "ref" else 14) + text_width(label, 10)
        if x + width > W - RIGHT and x > left:
            x, y = left, y + 15
        if kind == "ref":
            parts.append(
                f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x + 20:.1f}" y2="{y - 4:.1f}" class="ref"/>'
                f'<text x="{x + 24:.1f}" y="{y:.1f}" class="lg">{escape(label)}</text>'
            )
        else:
            parts.append(
                f'<rect x="{x:.1f}" y="{y - 9:.1f}" width="10" height="10" fill="{color}"/>'
                f'<text x="{x + 14:.1f}" y="{y:.1f}" class="lg">{escape(label)}</text>'
            )
        x += width + 14
    return "".join(parts), y - top + 15


def y_axis_label(text: str, top: float, bottom: float) -> str:
    """The y-axis label, rotated, wrapped onto two lines when it is long."""
    if not text:
        return ""
    lines = wrap(text, bottom - top, 11 * 0.6, max_lines=2)
    mid = (top + bottom) / 2
    xs = [14] if len(lines) == 1 else [10, 23]
    return "".join(
        f'<text x="{x}" y="{mid:.1f}" text-anchor="middle" class="al" transform="rotate(-90 {x} {mid:.1f})">'
        f"{escape(line)}</text>"
        for x, line in zip(xs, lines, strict=False)
    )


def plot_top(spec: dict[str, Any]) -> tuple[str, float]:
    """Legend under the title, and the plot's top edge below it."""
    names = [str(s.get("name", "")) for s in spec.get("series") or []]
    refs = [f"{r.get('label', '')} ({fmt(ref_value(r))})" for r in references(spec)]
    legend, height = legend_svg(names, refs, 42, Axes.LEFT)
    return legend, 36 + height + 10
