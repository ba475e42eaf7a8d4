"""Chart specs (see MetricResult) to inline SVG, with no plotting dependency.

Every label and value from the data is escaped: a column named ``<script>``
is drawn as text, never run.
"""

from __future__ import annotations

import math
from typing import Any

from markupsafe import Markup, escape

W, H = 560, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 34, 56
PALETTE = ("#1f5fa8", "#d9822b", "#2e8b57", "#b03a48", "#6b4fa0", "#7a7a7a")


def render_chart(spec: dict[str, Any]) -> Markup:
    """One chart spec as an ``<svg>`` element (or a short note if malformed)."""
    kind = spec.get("kind")
    try:
        if kind == "heatmap":
            body = _heatmap(spec)
        elif kind == "histogram":
            body = _histogram(spec)
        elif kind in ("bar", "line", "scatter"):
            body = _xy(spec, kind)
        else:
            return Markup("<p class='muted'>(chart of unknown kind {} not drawn)</p>").format(kind)
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        return Markup("<p class='muted'>(chart {} could not be drawn: {})</p>").format(spec.get("title", ""), str(exc))
    title = escape(spec.get("title", ""))
    return Markup(
        f'<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" '
        f'role="img" aria-label="{title}" preserveAspectRatio="xMidYMid meet">'
        f'<text x="{W/2}" y="18" text-anchor="middle" class="ct">{title}</text>{body}</svg></figure>'
    )


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if hi <= lo:
        return [lo]
    step = 10 ** math.floor(math.log10((hi - lo) / n))
    for m in (1, 2, 5, 10):
        if (hi - lo) / (step * m) <= n:
            step *= m
            break
    start = math.ceil(lo / step) * step
    out, t = [], start
    while t <= hi + step * 1e-9:
        out.append(round(t, 12))
        t += step
    return out


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1000 or abs(v) < 0.01:
        return f"{v:.2g}"
    return f"{v:.3g}"


class _Axes:
    def __init__(self, x0: float, x1: float, y0: float, y1: float) -> None:
        if x1 <= x0:
            x0, x1 = x0 - 0.5, x1 + 0.5
        if y1 <= y0:
            y0, y1 = y0 - 0.5, y1 + 0.5
        self.x0, self.x1, self.y0, self.y1 = x0, x1, y0, y1

    def x(self, v: float) -> float:
        return LEFT + (v - self.x0) / (self.x1 - self.x0) * (W - LEFT - RIGHT)

    def y(self, v: float) -> float:
        return H - BOTTOM - (v - self.y0) / (self.y1 - self.y0) * (H - TOP - BOTTOM)

    def frame(self, spec: dict[str, Any], x_ticks: bool = True) -> str:
        parts = [f'<line x1="{LEFT}" y1="{H-BOTTOM}" x2="{W-RIGHT}" y2="{H-BOTTOM}" class="ax"/>',
                 f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{H-BOTTOM}" class="ax"/>']
        for t in _ticks(self.y0, self.y1):
            parts.append(f'<line x1="{LEFT}" y1="{self.y(t):.1f}" x2="{W-RIGHT}" y2="{self.y(t):.1f}" class="grid"/>'
                         f'<text x="{LEFT-6}" y="{self.y(t)+4:.1f}" text-anchor="end" class="tk">{_fmt(t)}</text>')
        if x_ticks:
            for t in _ticks(self.x0, self.x1):
                parts.append(f'<text x="{self.x(t):.1f}" y="{H-BOTTOM+16}" text-anchor="middle" class="tk">{_fmt(t)}</text>')
        parts.append(f'<text x="{(LEFT+W-RIGHT)/2}" y="{H-10}" text-anchor="middle" class="al">{escape(spec.get("x_label", ""))}</text>')
        parts.append(f'<text x="14" y="{(TOP+H-BOTTOM)/2}" text-anchor="middle" class="al" '
                     f'transform="rotate(-90 14 {(TOP+H-BOTTOM)/2})">{escape(spec.get("y_label", ""))}</text>')
        return "".join(parts)

    def reference_lines(self, spec: dict[str, Any]) -> str:
        parts = []
        for ref in spec.get("reference_lines", []) or []:
            v = _num(ref.get("value"))
            if v is None:
                continue
            label = escape(ref.get("label", ""))
            if ref.get("axis", "y") == "y" and self.y0 <= v <= self.y1:
                parts.append(f'<line x1="{LEFT}" y1="{self.y(v):.1f}" x2="{W-RIGHT}" y2="{self.y(v):.1f}" class="ref"/>'
                             f'<text x="{W-RIGHT-4}" y="{self.y(v)-4:.1f}" text-anchor="end" class="rl">{label}</text>')
            elif ref.get("axis") == "x" and self.x0 <= v <= self.x1:
                parts.append(f'<line x1="{self.x(v):.1f}" y1="{TOP}" x2="{self.x(v):.1f}" y2="{H-BOTTOM}" class="ref"/>'
                             f'<text x="{self.x(v)+4:.1f}" y="{TOP+12}" class="rl">{label}</text>')
        return "".join(parts)


def _legend(names: list[str]) -> str:
    if len(names) < 2:
        return ""
    parts, x = [], LEFT + 4
    for i, name in enumerate(names):
        color = PALETTE[i % len(PALETTE)]
        parts.append(f'<rect x="{x}" y="{TOP-8}" width="10" height="10" fill="{color}"/>'
                     f'<text x="{x+14}" y="{TOP+1}" class="lg">{escape(name)}</text>')
        x += 24 + 7 * len(str(name))
    return "".join(parts)


def _xy(spec: dict[str, Any], kind: str) -> str:
    series = spec.get("series") or []
    refs = [_num(r.get("value")) for r in spec.get("reference_lines", []) or [] if r.get("axis", "y") == "y"]
    ys = [v for s in series for v in map(_num, s.get("y", [])) if v is not None] + [r for r in refs if r is not None]
    categorical = any(_num(x) is None for s in series for x in s.get("x", []))
    if kind == "bar" or categorical:
        labels = list(dict.fromkeys(str(x) for s in series for x in s.get("x", [])))
        ax = _Axes(0, max(len(labels), 1), min([0.0, *ys]), max([*ys, 0.0]) or 1.0)
        parts = [ax.frame(spec, x_ticks=False)]
        band = (W - LEFT - RIGHT) / max(len(labels), 1)
        width = band * 0.8 / max(len(series), 1)
        for si, s in enumerate(series):
            color = PALETTE[si % len(PALETTE)]
            for x, y in zip(s.get("x", []), s.get("y", [])):
                v = _num(y)
                if v is None:
                    continue
                i = labels.index(str(x))
                bx = LEFT + band * i + band * 0.1 + width * si
                top, base = ax.y(max(v, 0)), ax.y(min(v, 0))
                parts.append(f'<rect x="{bx:.1f}" y="{top:.1f}" width="{width:.1f}" height="{max(base-top, 0.5):.1f}" fill="{color}">'
                             f'<title>{escape(s.get("name", ""))} {escape(str(x))}: {_fmt(v)}</title></rect>')
        step = max(1, math.ceil(len(labels) / 12))
        for i, label in enumerate(labels):
            if i % step == 0:
                short = label if len(label) <= 14 else label[:13] + "…"
                parts.append(f'<text x="{LEFT + band*(i+0.5):.1f}" y="{H-BOTTOM+16}" text-anchor="middle" class="tk">{escape(short)}</text>')
    else:
        xs = [v for s in series for v in map(_num, s.get("x", [])) if v is not None]
        ax = _Axes(min(xs, default=0), max(xs, default=1), min(ys, default=0), max(ys, default=1))
        parts = [ax.frame(spec)]
        for si, s in enumerate(series):
            color = PALETTE[si % len(PALETTE)]
            pts = [(ax.x(_num(x)), ax.y(_num(y))) for x, y in zip(s.get("x", []), s.get("y", []))
                   if _num(x) is not None and _num(y) is not None]
            if kind == "line" and pts:
                path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
                parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
            for x, y in pts if (kind == "scatter" or len(pts) <= 30) else []:
                parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>')
    parts.append(ax.reference_lines(spec))
    parts.append(_legend([str(s.get("name", "")) for s in series]))
    return "".join(parts)


def _histogram(spec: dict[str, Any]) -> str:
    series = spec.get("series") or []
    edges_all = [v for s in series for v in map(_num, s.get("edges", [])) if v is not None]
    tops = [c / max(sum(s.get("counts", [])), 1) for s in series for c in s.get("counts", [])]
    ax = _Axes(min(edges_all, default=0), max(edges_all, default=1), 0, max(tops, default=1) or 1)
    parts = [ax.frame({**spec, "y_label": spec.get("y_label", "share of records")})]
    for si, s in enumerate(series):
        color = PALETTE[si % len(PALETTE)]
        edges, counts = s.get("edges", []), s.get("counts", [])
        total = max(sum(counts), 1)
        for i, c in enumerate(counts):
            x0, x1 = ax.x(float(edges[i])), ax.x(float(edges[i + 1]))
            y = ax.y(c / total)
            parts.append(f'<rect x="{x0:.1f}" y="{y:.1f}" width="{max(x1-x0, 0.5):.1f}" height="{ax.y(0)-y:.1f}" '
                         f'fill="{color}" fill-opacity="0.45" stroke="{color}"/>')
    parts.append(ax.reference_lines(spec))
    parts.append(_legend([str(s.get("name", "")) for s in series]))
    return "".join(parts)


def _heatmap(spec: dict[str, Any]) -> str:
    rows, cols = spec.get("row_labels", []), spec.get("col_labels", [])
    values = spec.get("values", [])
    flat = [v for row in values for v in map(_num, row) if v is not None]
    lo, hi = min(flat, default=0), max(flat, default=1)
    marked = {(int(r), int(c)) for r, c in spec.get("marked", []) or []}
    cw = (W - LEFT - RIGHT) / max(len(cols), 1)
    ch = (H - TOP - BOTTOM) / max(len(rows), 1)
    parts = []
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            f = _num(v)
            x, y = LEFT + j * cw, TOP + i * ch
            if f is None:
                fill = "#eeeeee"
            else:
                t = 0.5 if hi == lo else (f - lo) / (hi - lo)
                fill = f"rgb({int(255 - 200*t)},{int(255 - 120*t)},{int(255 - 40*t)})"
            stroke = ' stroke="#b00020" stroke-width="2.5"' if (i, j) in marked else ' stroke="#ffffff"'
            label = "" if f is None else _fmt(f)
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cw:.1f}" height="{ch:.1f}" fill="{fill}"{stroke}>'
                         f'<title>{escape(str(rows[i]) if i < len(rows) else i)} / {escape(str(cols[j]) if j < len(cols) else j)}: {label}</title></rect>')
            if len(cols) <= 12 and len(rows) <= 12 and label:
                parts.append(f'<text x="{x+cw/2:.1f}" y="{y+ch/2+4:.1f}" text-anchor="middle" class="hv">{label}</text>')
    for i, r in enumerate(rows[:40]):
        parts.append(f'<text x="{LEFT-4}" y="{TOP+i*ch+ch/2+4:.1f}" text-anchor="end" class="tk">{escape(str(r))}</text>')
    for j, c in enumerate(cols[:40]):
        parts.append(f'<text x="{LEFT+j*cw+cw/2:.1f}" y="{H-BOTTOM+14}" text-anchor="middle" class="tk">{escape(str(c))}</text>')
    parts.append(f'<text x="{(LEFT+W-RIGHT)/2}" y="{H-10}" text-anchor="middle" class="al">{escape(spec.get("x_label", ""))}</text>')
    return "".join(parts)
