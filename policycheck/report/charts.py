"""Chart specs (see MetricResult) to inline SVG, with no plotting dependency.

Every label and value from the data is escaped: a column named ``<script>``
is drawn as text, never run. Charts carry no ids, scripts or external
references, so any number of them can sit on one self-contained page.

Text widths are estimated (about 0.6 em per character), which is enough to
keep labels apart and inside the drawing without a font engine.
"""

from __future__ import annotations

import math
from typing import Any

from markupsafe import Markup, escape

W = 560
RIGHT = 16
PALETTE = ("#1f5fa8", "#d9822b", "#2e8b57", "#b03a48", "#6b4fa0", "#7a7a7a")
#: Colours of the verdict zones in the threshold gauge.
ZONES = {"pass": "#d8eedd", "warn": "#f8e7bf", "fail": "#f6d0d5"}


def render_chart(spec: dict[str, Any]) -> Markup:
    """One chart spec as a ``<figure>`` with an ``<svg>`` (or a short note if malformed)."""
    kind = spec.get("kind")
    try:
        if kind == "heatmap":
            body, height = _heatmap(spec)
        elif kind == "histogram":
            body, height = _histogram(spec)
        elif kind in ("bar", "line", "scatter"):
            body, height = _xy(spec, kind)
        else:
            return Markup("<p class='muted'>(chart of unknown kind {} not drawn)</p>").format(kind)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        return Markup("<p class='muted'>(chart {} could not be drawn: {})</p>").format(spec.get("title", ""), str(exc))
    title = str(spec.get("title", ""))
    lines = _wrap(title, W - 20, 13 * 0.6 * 1.05, max_lines=2)
    head = "".join(
        f'<text x="{W / 2}" y="{18 + 16 * i}" text-anchor="middle" class="ct">{escape(line)}</text>'
        for i, line in enumerate(lines)
    )
    shift = 16 * (len(lines) - 1)
    if shift:
        body = f'<g transform="translate(0 {shift})">{body}</g>'
    return Markup(
        f'<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height + shift}" '
        f'role="img" aria-label="{escape(title)}" preserveAspectRatio="xMidYMid meet">'
        f"<title>{escape(title)}</title>{head}{body}</svg></figure>"
    )


# --- helpers ------------------------------------------------------------------


def _num(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _nice_step(span: float, n: int = 5) -> float:
    """A 1-2-5 step that cuts ``span`` into at most about ``n`` intervals."""
    if span <= 0:
        return 1.0
    step = 10 ** math.floor(math.log10(span / n))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= n:
            return step * m
    return step * 10


def _ticks(lo: float, hi: float, n: int = 5, integer: bool = False) -> list[float]:
    if hi <= lo:
        return [lo]
    step = _nice_step(hi - lo, n)
    if integer:
        step = max(1.0, round(step))
    start = math.ceil(lo / step - 1e-9) * step
    out, t = [], start
    while t <= hi + step * 1e-9:
        out.append(round(t, 12))
        t += step
    return out


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 10000 or abs(v) < 0.001:
        return f"{v:.2g}"
    return f"{v:.3g}"


def _text_width(text: str, size: float) -> float:
    return len(text) * size * 0.6


def _shorten(text: str, width: float, size: float) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels at font ``size``."""
    fits = max(int(width / (size * 0.6)), 2)
    return text if len(text) <= fits else text[: fits - 1] + "…"


def _wrap(text: str, width: float, char: float, max_lines: int = 2) -> list[str]:
    """Greedy word wrap of ``text`` into lines of at most ``width`` pixels."""
    fits = max(int(width / char), 4)
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}".strip()
        if len(candidate) <= fits or not line:
            line = candidate
        else:
            lines.append(line)
            line = word
    if line or not lines:
        lines.append(line)
    if len(lines) > max_lines:
        lines = lines[: max_lines - 1] + [" ".join(lines[max_lines - 1 :])]
    return [ln if len(ln) <= fits else ln[: fits - 1] + "…" for ln in lines]


def _legend(names: list[str], refs: list[str], top: float, left: float) -> tuple[str, float]:
    """Legend entries (series swatches, then dashed reference lines) flowing
    over as many rows as needed; returns (svg, height)."""
    entries = [("swatch", n, PALETTE[i % len(PALETTE)]) for i, n in enumerate(names)] if len(names) >= 2 else []
    entries += [("ref", n, "") for n in refs if n]
    if not entries:
        return "", 0.0
    parts, x, y = [], left, top
    for kind, name, color in entries:
        label = _shorten(name, W - left - RIGHT - 30, 10)
        width = (26 if kind == "ref" else 14) + _text_width(label, 10)
        if x + width > W - RIGHT and x > left:
            x, y = left, y + 15
        if kind == "ref":
            parts.append(f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x + 20:.1f}" y2="{y - 4:.1f}" class="ref"/>'
                         f'<text x="{x + 24:.1f}" y="{y:.1f}" class="lg">{escape(label)}</text>')
        else:
            parts.append(f'<rect x="{x:.1f}" y="{y - 9:.1f}" width="10" height="10" fill="{color}"/>'
                         f'<text x="{x + 14:.1f}" y="{y:.1f}" class="lg">{escape(label)}</text>')
        x += width + 14
    return "".join(parts), y - top + 15


def _y_label(text: str, top: float, bottom: float) -> str:
    """The y-axis label, rotated, wrapped onto two lines when it is long."""
    if not text:
        return ""
    lines = _wrap(text, bottom - top, 11 * 0.6, max_lines=2)
    mid = (top + bottom) / 2
    xs = [14] if len(lines) == 1 else [10, 23]
    return "".join(
        f'<text x="{x}" y="{mid:.1f}" text-anchor="middle" class="al" transform="rotate(-90 {x} {mid:.1f})">'
        f"{escape(line)}</text>"
        for x, line in zip(xs, lines)
    )


class _Axes:
    """Linear axes of an x/y chart, with a frame, grid, ticks and labels."""

    LEFT, BOTTOM, PLOT_H = 64, 50, 220

    def __init__(self, x0: float, x1: float, y0: float, y1: float, top: float, integer_x: bool = False) -> None:
        if x1 <= x0:
            x0, x1 = x0 - 0.5, x1 + 0.5
        if y1 <= y0:
            y0, y1 = (y0 - 0.5, y1 + 0.5) if y0 < 0 else (y0, y1 + (abs(y1) or 1.0))
        # NOTE: round the y range out to whole ticks, so the tallest bar or
        # point meets a labelled grid line instead of the frame's edge.
        step = _nice_step(y1 - y0)
        y1 = math.ceil(y1 / step - 1e-9) * step
        y0 = math.floor(y0 / step + 1e-9) * step
        self.x0, self.x1, self.y0, self.y1 = x0, x1, y0, y1
        self.top = top
        self.bottom = top + self.PLOT_H
        self.height = self.bottom + self.BOTTOM
        self.integer_x = integer_x

    def x(self, v: float) -> float:
        return self.LEFT + (v - self.x0) / (self.x1 - self.x0) * (W - self.LEFT - RIGHT)

    def y(self, v: float) -> float:
        return self.bottom - (v - self.y0) / (self.y1 - self.y0) * self.PLOT_H

    def frame(self, spec: dict[str, Any], x_ticks: bool = True) -> str:
        left, top, bottom = self.LEFT, self.top, self.bottom
        parts = []
        for t in _ticks(self.y0, self.y1):
            parts.append(f'<line x1="{left}" y1="{self.y(t):.1f}" x2="{W - RIGHT}" y2="{self.y(t):.1f}" class="grid"/>'
                         f'<text x="{left - 6}" y="{self.y(t) + 4:.1f}" text-anchor="end" class="tk">{_fmt(t)}</text>')
        parts += [f'<line x1="{left}" y1="{bottom}" x2="{W - RIGHT}" y2="{bottom}" class="ax"/>',
                  f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" class="ax"/>']
        if x_ticks:
            for t in _ticks(self.x0, self.x1, integer=self.integer_x):
                parts.append(f'<text x="{self.x(t):.1f}" y="{bottom + 16}" text-anchor="middle" class="tk">{_fmt(t)}</text>')
        x_label = _shorten(str(spec.get("x_label", "")), W - left - RIGHT, 11)
        parts.append(f'<text x="{(left + W - RIGHT) / 2}" y="{bottom + 38}" text-anchor="middle" class="al">{escape(x_label)}</text>')
        parts.append(_y_label(str(spec.get("y_label", "")), top, bottom))
        return "".join(parts)

    def reference_lines(self, spec: dict[str, Any]) -> str:
        """Dashed lines at the spec's reference values; their labels are in the legend."""
        parts = []
        for ref in _references(spec):
            v = _num(ref.get("value"))
            label = escape(str(ref.get("label", "")))
            if ref.get("axis", "y") == "y" and self.y0 <= v <= self.y1:
                parts.append(f'<line x1="{self.LEFT}" y1="{self.y(v):.1f}" x2="{W - RIGHT}" y2="{self.y(v):.1f}" class="ref">'
                             f"<title>{label}: {_fmt(v)}</title></line>")
            elif ref.get("axis") == "x" and self.x0 <= v <= self.x1:
                parts.append(f'<line x1="{self.x(v):.1f}" y1="{self.top}" x2="{self.x(v):.1f}" y2="{self.bottom}" class="ref">'
                             f"<title>{label}: {_fmt(v)}</title></line>")
        return "".join(parts)


def _references(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in spec.get("reference_lines", []) or [] if isinstance(r, dict) and _num(r.get("value")) is not None]


def _plot_top(spec: dict[str, Any]) -> tuple[str, float]:
    """Legend under the title, and the plot's top edge below it."""
    names = [str(s.get("name", "")) for s in spec.get("series") or []]
    refs = [f'{r.get("label", "")} ({_fmt(_num(r["value"]))})' for r in _references(spec)]
    legend, height = _legend(names, refs, 42, _Axes.LEFT)
    return legend, 36 + height + 10


# --- chart kinds ----------------------------------------------------------------


def _xy(spec: dict[str, Any], kind: str) -> tuple[str, float]:
    series = spec.get("series") or []
    refs = [_num(r["value"]) for r in _references(spec) if r.get("axis", "y") == "y"]
    ys = [v for s in series for v in map(_num, s.get("y", [])) if v is not None] + refs
    legend, top = _plot_top(spec)
    categorical = any(_num(x) is None for s in series for x in s.get("x", []))
    if kind == "bar" or categorical:
        labels = list(dict.fromkeys(str(x) for s in series for x in s.get("x", [])))
        ax = _Axes(0, max(len(labels), 1), min([0.0, *ys]), max([*ys, 0.0]) or 1.0, top)
        parts = [ax.frame(spec, x_ticks=False)]
        band = (W - ax.LEFT - RIGHT) / max(len(labels), 1)
        # NOTE: cap the bar width: one category must not fill the chart.
        width = min(band * 0.8 / max(len(series), 1), 72)
        group = width * len(series)
        n_bars = sum(len(s.get("y", [])) for s in series)
        for si, s in enumerate(series):
            color = PALETTE[si % len(PALETTE)]
            for x, y in zip(s.get("x", []), s.get("y", [])):
                v = _num(y)
                if v is None:
                    continue
                i = labels.index(str(x))
                bx = ax.LEFT + band * i + (band - group) / 2 + width * si
                top_y, base = ax.y(max(v, 0)), ax.y(min(v, 0))
                parts.append(f'<rect x="{bx:.1f}" y="{top_y:.1f}" width="{width:.1f}" height="{max(base - top_y, 0.5):.1f}" fill="{color}">'
                             f'<title>{escape(s.get("name", ""))} {escape(str(x))}: {_fmt(v)}</title></rect>')
                if n_bars <= 16 and width >= 18:
                    parts.append(f'<text x="{bx + width / 2:.1f}" y="{top_y - 3:.1f}" text-anchor="middle" class="bv">{_fmt(v)}</text>')
        step = max(1, math.ceil(len(labels) * 80 / (W - ax.LEFT - RIGHT)))
        for i, label in enumerate(labels):
            if i % step == 0:
                short = _shorten(label, band * step - 4, 10)
                parts.append(f'<text x="{ax.LEFT + band * (i + 0.5):.1f}" y="{ax.bottom + 16}" text-anchor="middle" class="tk">'
                             f"<title>{escape(label)}</title>{escape(short)}</text>")
    else:
        xs = [v for s in series for v in map(_num, s.get("x", [])) if v is not None]
        y0 = min(ys, default=0.0)
        # NOTE: a non-negative quantity is drawn from zero, so a small change
        # does not look like a large one.
        ax = _Axes(min(xs, default=0), max(xs, default=1), min(y0, 0.0), max(ys, default=1), top,
                   integer_x=bool(xs) and all(float(v).is_integer() for v in xs))
        parts = [ax.frame(spec)]
        for si, s in enumerate(series):
            color = PALETTE[si % len(PALETTE)]
            pts = [(ax.x(_num(x)), ax.y(_num(y))) for x, y in zip(s.get("x", []), s.get("y", []))
                   if _num(x) is not None and _num(y) is not None]
            if kind == "line" and len(pts) > 1:
                path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
                parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
            if kind == "scatter" or len(pts) <= 30:
                parts.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>' for x, y in pts)
    parts.append(ax.reference_lines(spec))
    parts.append(legend)
    return "".join(parts), ax.height


def _histogram(spec: dict[str, Any]) -> tuple[str, float]:
    series = spec.get("series") or []
    edges_all = [v for s in series for v in map(_num, s.get("edges", [])) if v is not None]
    tops = [c / max(sum(s.get("counts", [])), 1) for s in series for c in s.get("counts", [])]
    xs = edges_all + [_num(r["value"]) for r in _references(spec) if r.get("axis") == "x"]
    legend, top = _plot_top(spec)
    ax = _Axes(min(xs, default=0), max(xs, default=1), 0, max(tops, default=1) or 1, top)
    parts = [ax.frame({**spec, "y_label": spec.get("y_label", "share of records")})]
    for si, s in enumerate(series):
        color = PALETTE[si % len(PALETTE)]
        edges, counts = s.get("edges", []), s.get("counts", [])
        total = max(sum(counts), 1)
        for i, c in enumerate(counts):
            x0, x1 = ax.x(float(edges[i])), ax.x(float(edges[i + 1]))
            y = ax.y(c / total)
            parts.append(f'<rect x="{x0:.1f}" y="{y:.1f}" width="{max(x1 - x0, 0.5):.1f}" height="{ax.y(0) - y:.1f}" '
                         f'fill="{color}" fill-opacity="0.45" stroke="{color}">'
                         f'<title>{escape(s.get("name", ""))} [{_fmt(float(edges[i]))}, {_fmt(float(edges[i + 1]))}): '
                         f"{c} ({_fmt(c / total)})</title></rect>")
    parts.append(ax.reference_lines(spec))
    parts.append(legend)
    return "".join(parts), ax.height


def _heat(t: float) -> str:
    """Sequential white-to-blue colour for ``t`` in [0, 1]."""
    return f"rgb({int(255 - 200 * t)},{int(255 - 120 * t)},{int(255 - 40 * t)})"


def _heatmap(spec: dict[str, Any]) -> tuple[str, float]:
    rows = [str(r) for r in spec.get("row_labels", [])]
    cols = [str(c) for c in spec.get("col_labels", [])]
    values = spec.get("values", [])
    n_rows = max(len(values), len(rows), 1)
    n_cols = max(max((len(r) for r in values), default=0), len(cols), 1)
    rows += [str(i) for i in range(len(rows), n_rows)]
    cols += [str(j) for j in range(len(cols), n_cols)]
    flat = [v for row in values for v in map(_num, row) if v is not None]
    lo, hi = min(flat, default=0), max(flat, default=1)
    marked = {(int(r), int(c)) for r, c in spec.get("marked", []) or []}

    # Room for the row labels (at most a third of the width), and cells at
    # least 6 px tall: a tall matrix makes a tall chart, not unreadable rows.
    left = min(max((_text_width(r, 9) for r in rows), default=20) + 10, W / 3)
    top = 36
    cw = (W - left - RIGHT) / n_cols
    ch = min(max(240 / n_rows, 6.0), 28.0)
    bottom_y = top + ch * n_rows
    # Column labels: upright if they fit their cell, else turned 60 degrees.
    widest = max((_text_width(c, 9) for c in cols), default=0)
    turned = widest > cw - 2
    label_room = min(widest, 110) * (0.87 if turned else 0) + 16
    parts = []
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            f = _num(v)
            x, y = left + j * cw, top + i * ch
            fill = "#eeeeee" if f is None else _heat(0.5 if hi == lo else (f - lo) / (hi - lo))
            label = "" if f is None else _fmt(f)
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cw:.1f}" height="{ch:.1f}" fill="{fill}" stroke="#ffffff" stroke-width="0.5">'
                         f"<title>{escape(rows[i])} / {escape(cols[j])}: {label or 'blank'}</title></rect>")
            if cw >= 30 and ch >= 14 and label:
                parts.append(f'<text x="{x + cw / 2:.1f}" y="{y + ch / 2 + 3:.1f}" text-anchor="middle" class="hv">{label}</text>')
    # NOTE: outlines are drawn after every cell, so no neighbour paints over them.
    for i, j in sorted(marked):
        if i < n_rows and j < n_cols:
            parts.append(f'<rect x="{left + j * cw + 0.75:.1f}" y="{top + i * ch + 0.75:.1f}" width="{max(cw - 1.5, 0.5):.1f}" '
                         f'height="{max(ch - 1.5, 0.5):.1f}" fill="none" stroke="#b00020" stroke-width="1.5"/>')
    row_step = max(1, math.ceil(11 / ch))
    for i, r in enumerate(rows):
        if i % row_step == 0:
            parts.append(f'<text x="{left - 4:.1f}" y="{top + i * ch + ch / 2 + 3:.1f}" text-anchor="end" class="tk">'
                         f"<title>{escape(r)}</title>{escape(_shorten(r, left - 8, 9))}</text>")
    col_step = max(1, math.ceil(11 / cw)) if turned else 1
    for j, c in enumerate(cols):
        if j % col_step:
            continue
        cx = left + j * cw + cw / 2
        short = escape(_shorten(c, 110 if turned else cw, 9))
        if turned:
            parts.append(f'<text x="{cx:.1f}" y="{bottom_y + 10:.1f}" text-anchor="end" class="tk" '
                         f'transform="rotate(-60 {cx:.1f} {bottom_y + 10:.1f})"><title>{escape(c)}</title>{short}</text>')
        else:
            parts.append(f'<text x="{cx:.1f}" y="{bottom_y + 13:.1f}" text-anchor="middle" class="tk">{short}</text>')
    y = bottom_y + label_room + 6
    if spec.get("x_label"):
        parts.append(f'<text x="{(left + W - RIGHT) / 2:.1f}" y="{y + 8:.1f}" text-anchor="middle" class="al">'
                     f'{escape(_shorten(str(spec["x_label"]), W - left - RIGHT, 11))}</text>')
        y += 18
    parts.append(_y_label(str(spec.get("y_label", "")), top, bottom_y))
    # Colour key: five swatches from the lowest to the highest value.
    key_x = W - RIGHT - 5 * 16 - 70
    parts.append(f'<text x="{key_x - 4}" y="{y + 9:.1f}" text-anchor="end" class="lg">{_fmt(lo)}</text>')
    for k in range(5):
        parts.append(f'<rect x="{key_x + 16 * k}" y="{y:.1f}" width="16" height="10" fill="{_heat(k / 4)}" stroke="#d5d9de" stroke-width="0.5"/>')
    parts.append(f'<text x="{key_x + 84}" y="{y + 9:.1f}" class="lg">{_fmt(hi)}</text>')
    if marked:
        parts.append(f'<rect x="{left:.1f}" y="{y:.1f}" width="12" height="10" fill="none" stroke="#b00020" stroke-width="1.5"/>'
                     f'<text x="{left + 17:.1f}" y="{y + 9:.1f}" class="lg">outlined: marked cells</text>')
    return "".join(parts), y + 20


# --- the threshold gauge ------------------------------------------------------------


def render_gauge(rule: dict[str, Any]) -> Markup:
    """The measured value and its interval on a line coloured by the rule's verdict zones.

    Shows at a glance where the estimate (dot), its interval (bar) and, when
    the rule compares an interval end, that end (triangle) fall against the
    warn and fail levels. Empty when the rule has no value.
    """
    value = _num(rule.get("value"))
    if value is None:
        return Markup("")
    t = rule.get("threshold") or {}
    interval = rule.get("interval") or None
    if interval is not None and (len(interval) != 2 or any(_num(v) is None for v in interval)):
        interval = None
    above = t.get("fail_above") is not None
    fail = _num(t.get("fail_above") if above else t.get("fail_below"))
    warn = _num(t.get("warn_above") if above else t.get("warn_below"))
    if fail is None:
        return Markup("")
    compared = _num(rule.get("compared_value"))
    points = [value, fail] + ([warn] if warn is not None else []) + ([*map(float, interval)] if interval else [])
    points += [compared] if compared is not None else []
    lo, hi = min(points), max(points)
    if 0 <= lo and hi <= 1:
        lo, hi = 0.0, 1.0  # shares, risks and accuracies: show their whole range
    else:
        pad = (hi - lo) * 0.15 or abs(hi) * 0.5 or 1.0
        # NOTE: a positive quantity (an epsilon) is shown from zero; a level
        # at zero keeps a margin below it so its pass side stays visible.
        lo, hi = (0.0 if lo > 0 else lo - pad), hi + pad
    left, right, y, h = 16, W - 16, 22, 14

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (right - left)

    # Zones from the pass side to the fail side.
    if above:
        bounds = [("pass", lo, warn if warn is not None else fail), ("warn", warn, fail), ("fail", fail, hi)]
    else:
        bounds = [("fail", lo, fail), ("warn", fail, warn), ("pass", warn if warn is not None else fail, hi)]
    parts = []
    for zone, a, b in bounds:
        if a is None or b is None or b <= a:
            continue
        parts.append(f'<rect x="{x(a):.1f}" y="{y}" width="{x(b) - x(a):.1f}" height="{h}" fill="{ZONES[zone]}"/>')
        if x(b) - x(a) > _text_width(zone, 10) + 6:
            parts.append(f'<text x="{(x(a) + x(b)) / 2:.1f}" y="{y + h - 3.5}" text-anchor="middle" class="gz">{zone}</text>')
    # NOTE: each level's label leans away from the other level, so close
    # levels (warn 0.52, fail 0.55) never print over each other.
    for level, word, outward in ((fail, "fail", above), (warn, "warn", not above)):
        if level is None:
            continue
        text = f"{word} {_fmt(level)}"
        if outward and x(level) + 3 + _text_width(text, 10) > W:
            outward = False
        elif not outward and x(level) - 3 - _text_width(text, 10) < 0:
            outward = True
        anchor, dx = ("start", 3) if outward else ("end", -3)
        parts.append(f'<line x1="{x(level):.1f}" y1="{y - 12}" x2="{x(level):.1f}" y2="{y + h}" class="gl"/>'
                     f'<text x="{x(level) + dx:.1f}" y="{y - 4}" text-anchor="{anchor}" class="tk">{text}</text>')
    cy = y + h / 2
    if interval:
        a, b = (x(float(v)) for v in interval)
        parts.append(f'<line x1="{a:.1f}" y1="{cy}" x2="{b:.1f}" y2="{cy}" class="gi"/>'
                     f'<line x1="{a:.1f}" y1="{cy - 5}" x2="{a:.1f}" y2="{cy + 5}" class="gi"/>'
                     f'<line x1="{b:.1f}" y1="{cy - 5}" x2="{b:.1f}" y2="{cy + 5}" class="gi"/>')
    parts.append(f'<circle cx="{x(value):.1f}" cy="{cy}" r="4.5" class="gv"/>')
    if compared is not None and t.get("compare", "estimate") != "estimate":
        cx = x(compared)
        parts.append(f'<path d="M{cx - 5:.1f},{y + h + 8} L{cx + 5:.1f},{y + h + 8} L{cx:.1f},{y + h + 1} Z" class="gv"/>')
    label = f"measured {value:.4g}"
    vx = min(max(x(value), left + _text_width(label, 10) / 2), right - _text_width(label, 10) / 2)
    parts.append(f'<text x="{vx:.1f}" y="{y + h + 19}" text-anchor="middle" class="gm">{label}</text>')
    half = _text_width(label, 10.5) / 2
    if vx - half > left + _text_width(_fmt(lo), 10) + 6:
        parts.append(f'<text x="{left}" y="{y + h + 19}" class="tk">{_fmt(lo)}</text>')
    if vx + half < right - _text_width(_fmt(hi), 10) - 6:
        parts.append(f'<text x="{right}" y="{y + h + 19}" text-anchor="end" class="tk">{_fmt(hi)}</text>')
    words = f"measured {_fmt(value)}" + (f", interval {_fmt(float(interval[0]))} to {_fmt(float(interval[1]))}" if interval else "")
    return Markup(
        f'<svg class="gauge" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {y + h + 24}" role="img" '
        f'aria-label="{escape(words)}" preserveAspectRatio="xMinYMid meet"><title>{escape(words)}</title>{"".join(parts)}</svg>'
    )
