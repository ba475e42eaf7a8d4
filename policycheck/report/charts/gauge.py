"""The threshold gauge: a rule's measured value and interval on a line coloured by its verdict zones.

Shows at a glance where the estimate (dot), its interval (bar) and, when the
rule compares an interval end, that end (triangle) fall against the warn and
fail levels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from policycheck.report.charts.axes import clip, nice_step
from policycheck.report.charts.style import ZONES, W
from policycheck.report.charts.text import fmt, number, text_width
from policycheck.report.formatting import interval_of

#: Ends of the line, its top and its height.
LEFT, RIGHT_END, TOP, HEIGHT = 16, W - 16, 22, 14


@dataclass(frozen=True)
class Gauge:
    """What a gauge shows of a rule record, its numbers checked."""

    value: float
    #: The interval as measured (it sets the scale), and as drawn: within the metric's range.
    measured_interval: tuple[float, float] | None
    interval: tuple[float, float] | None
    #: Whether the rule fails above its levels (higher is riskier).
    above: bool
    fail: float
    warn: float | None
    #: The number the rule compared, and whether it is an interval end (drawn as a triangle).
    compared: float | None
    compares_an_end: bool
    domain: tuple[float | None, float | None]
    #: What the interval is of, when its metric says it is not the value's own ('' when it is).
    interval_of: str = ""


@dataclass(frozen=True)
class Scale:
    """The value range the line spans, left to right."""

    lo: float
    hi: float

    def x(self, v: float) -> float:
        return LEFT + (v - self.lo) / (self.hi - self.lo) * (RIGHT_END - LEFT)


def render_gauge(rule: dict[str, Any]) -> Markup:
    """The gauge of a rule record as inline SVG; empty when the rule has no value or no fail level."""
    gauge = gauge_of(rule)
    if gauge is None:
        return Markup("")
    scale = scale_of(gauge)
    parts = [
        *zones(gauge, scale),
        *level_marks(gauge, scale),
        *estimate_marks(gauge, scale),
        *value_labels(gauge, scale),
    ]
    words = gauge_words(gauge)
    return Markup(
        f'<svg class="gauge" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {TOP + HEIGHT + 24}" role="img" '
        f'aria-label="{escape(words)}" preserveAspectRatio="xMinYMid meet"><title>{escape(words)}</title>'
        f"{''.join(parts)}</svg>"
    )


def gauge_of(rule: dict[str, Any]) -> Gauge | None:
    """The numbers of a rule record a gauge shows; None without a value or a fail level."""
    value = number(rule.get("value"))
    if value is None:
        return None
    threshold = rule.get("threshold") or {}
    raw = rule.get("interval") or None
    interval = None
    if raw is not None and len(raw) == 2 and all(number(v) is not None for v in raw):
        interval = (float(raw[0]), float(raw[1]))
    above = threshold.get("fail_above") is not None
    fail = number(threshold.get("fail_above") if above else threshold.get("fail_below"))
    if fail is None:
        return None
    d_lo, d_hi = (number(v) for v in (rule.get("value_range") or [None, None]))
    return Gauge(
        value=value,
        measured_interval=interval,
        # NOTE: an interval is drawn within the metric's domain.
        interval=(clip(interval[0], d_lo, d_hi), clip(interval[1], d_lo, d_hi)) if interval else None,
        above=above,
        fail=fail,
        warn=number(threshold.get("warn_above") if above else threshold.get("warn_below")),
        compared=number(rule.get("compared_value")),
        compares_an_end=threshold.get("compare", "estimate") != "estimate",
        domain=(d_lo, d_hi),
        interval_of=interval_of(rule),
    )


def scale_of(gauge: Gauge) -> Scale:
    """A range holding every number shown: a share's whole [0, 1], small levels zoomed from zero, else padded."""
    points = [gauge.value, gauge.fail] + ([gauge.warn] if gauge.warn is not None else [])
    points += [*gauge.measured_interval] if gauge.measured_interval else []
    points += [gauge.compared] if gauge.compared is not None else []
    lo, hi = min(points), max(points)
    if lo >= 0 and hi <= 1 and hi >= 0.1:
        lo, hi = 0.0, 1.0  # shares, risks and accuracies: show their whole range
    elif lo >= 0 and hi < 0.1:
        # NOTE: tiny levels (fail 0.01, warn 0.001) on a 0-1 scale would sit on
        # top of each other: zoom to the data, still from zero.
        step = nice_step(hi * 1.25, 4)
        lo, hi = 0.0, step * math.ceil(hi * 1.25 / step - 1e-9) if hi > 0 else 1.0
    else:
        pad = (hi - lo) * 0.15 or abs(hi) * 0.5 or 1.0
        # NOTE: a positive quantity (an epsilon) is shown from zero; a level
        # at zero keeps a margin below it so its pass side stays visible.
        lo, hi = (0.0 if lo > 0 else lo - pad), hi + pad
    lo, hi = clip(lo, *gauge.domain), clip(hi, *gauge.domain)
    return Scale(lo, hi if hi > lo else lo + 1.0)


def zones(gauge: Gauge, scale: Scale) -> list[str]:
    """The pass, warn and fail zones from the pass side to the fail side, each named where its word fits."""
    x, warn, fail = scale.x, gauge.warn, gauge.fail
    pass_end = warn if warn is not None else fail
    bounds: list[tuple[str, float | None, float | None]]
    if gauge.above:
        bounds = [("pass", scale.lo, pass_end), ("warn", warn, fail), ("fail", fail, scale.hi)]
    else:
        bounds = [("fail", scale.lo, fail), ("warn", fail, warn), ("pass", pass_end, scale.hi)]
    # What the zone words must keep clear of: the estimate's dot and the interval's bar and whiskers.
    drawn = [x(gauge.value) - 5, x(gauge.value) + 5] + ([x(v) for v in gauge.interval] if gauge.interval else [])
    busy = (min(drawn) - 4, max(drawn) + 4)
    parts = []
    for zone, a, b in bounds:
        if a is None or b is None or b <= a:
            continue
        parts.append(
            f'<rect x="{x(a):.1f}" y="{TOP}" width="{x(b) - x(a):.1f}" height="{HEIGHT}" fill="{ZONES[zone]}"/>'
        )
        spot = word_spot(x(a), x(b), busy, text_width(zone, 10) + 6)
        if spot is not None:
            parts.append(f'<text x="{spot:.1f}" y="{TOP + HEIGHT - 3.5}" text-anchor="middle" class="gz">{zone}</text>')
    return parts


def word_spot(a: float, b: float, busy: tuple[float, float], width: float) -> float | None:
    """Centre of the widest part of the zone [a, b] outside ``busy``, or None when ``width`` does not fit there.

    A zone's word sits in the zone's free part, so the estimate's dot and its interval never cross it.
    """
    free = [(a, min(b, busy[0])), (max(a, busy[1]), b)]
    lo, hi = max(free, key=lambda part: part[1] - part[0])
    return (lo + hi) / 2 if hi - lo > width else None


def level_marks(gauge: Gauge, scale: Scale) -> list[str]:
    """A line and a label at each level.

    Each label leans away from the other level, so close levels (warn 0.52,
    fail 0.55) never print over each other; levels too close for two labels
    share one ("warn 0.001 · fail 0.01", at the fail line).
    """
    x, fail, warn = scale.x, gauge.fail, gauge.warn
    fail_text = f"fail {fmt(fail)}"
    levels = [(fail, fail_text, gauge.above)]
    parts = []
    if warn is not None:
        warn_text = f"warn {fmt(warn)}"
        _, fail_left, fail_right = label_place(x(fail), fail_text, gauge.above)
        _, warn_left, warn_right = label_place(x(warn), warn_text, not gauge.above)
        if fail_left < warn_right + 6 and warn_left < fail_right + 6:
            first, second = (warn_text, fail_text) if warn < fail else (fail_text, warn_text)
            levels = [(fail, f"{first} · {second}", gauge.above)]
            parts.append(
                f'<line x1="{x(warn):.1f}" y1="{TOP - 12}" x2="{x(warn):.1f}" y2="{TOP + HEIGHT}" class="gl"/>'
            )
        else:
            levels.append((warn, warn_text, not gauge.above))
    for level, text, outward in levels:
        outward, _, _ = label_place(x(level), text, outward)
        anchor, dx = ("start", 3) if outward else ("end", -3)
        parts.append(
            f'<line x1="{x(level):.1f}" y1="{TOP - 12}" x2="{x(level):.1f}" y2="{TOP + HEIGHT}" class="gl"/>'
            f'<text x="{x(level) + dx:.1f}" y="{TOP - 4}" text-anchor="{anchor}" class="tk">{text}</text>'
        )
    return parts


def label_place(at: float, text: str, outward: bool) -> tuple[bool, float, float]:
    """Which side of the line at ``at`` a level's label goes (flipped at the drawing's edge), and its two ends."""
    width = text_width(text, 10)
    if outward and at + 3 + width > W:
        outward = False
    elif not outward and at - 3 - width < 0:
        outward = True
    return (outward, at + 3, at + 3 + width) if outward else (outward, at - 3 - width, at - 3)


def estimate_marks(gauge: Gauge, scale: Scale) -> list[str]:
    """The interval's bar and whiskers, the estimate's dot, and a triangle at the compared end."""
    x, cy = scale.x, TOP + HEIGHT / 2
    parts = []
    if gauge.interval:
        a, b = (x(v) for v in gauge.interval)
        parts.append(
            f'<line x1="{a:.1f}" y1="{cy}" x2="{b:.1f}" y2="{cy}" class="gi"/>'
            f'<line x1="{a:.1f}" y1="{cy - 5}" x2="{a:.1f}" y2="{cy + 5}" class="gi"/>'
            f'<line x1="{b:.1f}" y1="{cy - 5}" x2="{b:.1f}" y2="{cy + 5}" class="gi"/>'
        )
    parts.append(f'<circle cx="{x(gauge.value):.1f}" cy="{cy}" r="4.5" class="gv"/>')
    if gauge.compared is not None and gauge.compares_an_end:
        cx, base = x(gauge.compared), TOP + HEIGHT
        parts.append(f'<path d="M{cx - 5:.1f},{base + 8} L{cx + 5:.1f},{base + 8} L{cx:.1f},{base + 1} Z" class="gv"/>')
    return parts


def value_labels(gauge: Gauge, scale: Scale) -> list[str]:
    """The measured value under its dot (kept inside the line), and the line's ends where they do not touch it."""
    label = f"measured {gauge.value:.4g}"
    y = TOP + HEIGHT + 19
    vx = min(max(scale.x(gauge.value), LEFT + text_width(label, 10) / 2), RIGHT_END - text_width(label, 10) / 2)
    parts = [f'<text x="{vx:.1f}" y="{y}" text-anchor="middle" class="gm">{label}</text>']
    half = text_width(label, 10.5) / 2
    if vx - half > LEFT + text_width(fmt(scale.lo), 10) + 6:
        parts.append(f'<text x="{LEFT}" y="{y}" class="tk">{fmt(scale.lo)}</text>')
    if vx + half < RIGHT_END - text_width(fmt(scale.hi), 10) - 6:
        parts.append(f'<text x="{RIGHT_END}" y="{y}" text-anchor="end" class="tk">{fmt(scale.hi)}</text>')
    return parts


def gauge_words(gauge: Gauge) -> str:
    """The gauge in words, for its title and a screen reader."""
    side = "above" if gauge.above else "below"
    words = f"measured {fmt(gauge.value)}"
    if gauge.interval:
        words += f", interval {fmt(gauge.interval[0])} to {fmt(gauge.interval[1])}"
        words += f", of {gauge.interval_of}" if gauge.interval_of else ""
    words += f"; fail {side} {fmt(gauge.fail)}"
    if gauge.warn is not None:
        words += f", warn {side} {fmt(gauge.warn)}"
    return words
