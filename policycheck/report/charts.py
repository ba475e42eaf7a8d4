"""Chart specs (see MetricResult) to inline SVG, with no plotting dependency.

Every label and value from the data is escaped: a column named ``<script>``
is drawn as text, never run. Charts carry no ids, scripts or external
references, so any number of them can sit on one self-contained page.

Text widths are estimated (about 0.6 em per character), which is enough to
keep labels apart and inside the drawing without a font engine.
"""

from __future__ import annotations

import math
import re
from typing import Any

from markupsafe import Markup, escape

W = 560
RIGHT = 16
#: Okabe and Ito's colour-blind-safe palette (blue, orange, bluish green, reddish purple, vermillion, sky
#: blue, black): each pair stays apart for deuteranopia, protanopia and tritanopia, and in grey print.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000")
#: Dash pattern per overlaid histogram series: the outlines tell the series apart where fills overlap.
DASHES = ("", "6 3", "2 2", "8 3 2 3")
#: Colours of the verdict zones in the threshold gauge.
ZONES = {"pass": "#d8eedd", "warn": "#f8e7bf", "fail": "#f6d0d5"}


def render_chart(spec: dict[str, Any]) -> Markup:
    """One chart spec as a ``<figure>``: an ``<svg>`` with a text alternative, and a caption.

    The text alternative (``aria-label`` and ``<desc>``) gives the numbers a
    screen reader or a search needs; the caption says what the chart shows
    and what its dashed lines are (the spec's ``caption`` when it has one).
    """
    kind = spec.get("kind")
    if kind == "line" and _single_x(spec):
        kind = "bar"  # one point (M = 1) is a bar, not a lone dot that looks like missing data
    if kind == "table":
        return render_table(spec)
    drawn = _log_spec(spec) if "log" in (spec.get("x_scale"), spec.get("y_scale")) else spec
    try:
        if kind == "heatmap":
            body, height = _heatmap(spec)
        elif kind == "histogram":
            body, height = _histogram(spec)
        elif kind in ("bar", "line", "scatter"):
            body, height = _xy(drawn, kind)
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
    alt = text_alternative(spec, kind)
    return Markup(
        f'<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height + shift}" '
        f'role="img" aria-label="{escape(alt)}" preserveAspectRatio="xMidYMid meet">'
        f"<title>{escape(title)}</title><desc>{escape(alt)}</desc>{head}{body}</svg>"
        f"<figcaption>{escape(caption(spec, kind))}</figcaption></figure>"
    )


def render_table(spec: dict[str, Any]) -> Markup:
    """A ``table`` spec (``title``, ``columns``, ``rows``, optional ``caption``) as a compact HTML table.

    For evidence too wide for a chart (one row per target, say). Compact inline
    styles: in print a rule's charts share half the page's width.
    """
    cell = 'style="padding: 1px 4px; text-align: left; border-bottom: 1px solid #ddd"'
    head = "".join(f"<th {cell}>{escape(str(c))}</th>" for c in spec.get("columns") or [])
    body = "".join(
        "<tr>"
        + "".join(
            f"<td {cell}>{escape(_fmt(v) if _num(v) is not None else ('–' if v is None else str(v)))}</td>" for v in row
        )
        + "</tr>"
        for row in spec.get("rows") or []
    )
    caption = f"<p class='small muted'>{escape(str(spec['caption']))}</p>" if spec.get("caption") else ""
    return Markup(
        f'<figure class="table" style="margin: 4px 0"><figcaption class="small">'
        f'{escape(str(spec.get("title", "")))}</figcaption><table style="border-collapse: collapse; '
        f'font-size: 85%"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{caption}</figure>'
    )


KIND_WORDS = {
    "bar": "Bar chart",
    "line": "Line chart",
    "scatter": "Scatter plot",
    "histogram": "Histogram",
    "heatmap": "Heat map",
}


def caption(spec: dict[str, Any], kind: str) -> str:
    """What the chart shows, in one or two sentences: the spec's own caption, or one built from its labels."""
    if spec.get("caption"):
        return str(spec["caption"])
    what = KIND_WORDS.get(kind, "Chart")
    y_label = str(spec.get("y_label") or (_histogram_y_label(spec) if kind == "histogram" else ""))
    x_label = str(spec.get("x_label") or "")
    text = f"{what}: {spec.get('title', '')}"
    if y_label and x_label:
        text += f"; {y_label} against {x_label}"
    text += "."
    refs = [f"{r.get('label', '')} at {_fmt(_num(r['value']))}" for r in _references(spec)]
    if refs:
        text += " Dashed line" + ("s" if len(refs) > 1 else "") + ": " + "; ".join(refs) + "."
    if kind == "bar" or any(_num(x) is None for sr in spec.get("series") or [] for x in sr.get("x", [])):
        labels = list(dict.fromkeys(str(x) for sr in spec.get("series") or [] for x in sr.get("x", [])))
        prefix, suffix = common_affixes(labels)
        if prefix or suffix:
            text += (
                " Bar labels leave out what every label shares: "
                + " and ".join(
                    f"{where} “{part}”" for where, part in (("the prefix", prefix), ("the suffix", suffix)) if part
                )
                + "."
            )
    if kind == "histogram" and len(spec.get("series") or []) > 1:
        text += " The series overlap; each is drawn see-through with its own outline."
    return text


def text_alternative(spec: dict[str, Any], kind: str) -> str:
    """The chart's numbers in words, for a reader who cannot see it (at most about 12 values per series)."""
    parts = [f"{KIND_WORDS.get(kind, 'Chart')}: {spec.get('title', '')}."]
    for s in spec.get("series") or []:
        name = str(s.get("name", "")) or "values"
        if kind == "histogram":
            counts, edges = s.get("counts", []), s.get("edges", [])
            if counts and len(edges) == len(counts) + 1:
                peak = max(range(len(counts)), key=lambda i: counts[i])
                parts.append(
                    f"{name}: {sum(counts)} values in {len(counts)} bins from {_fmt(float(edges[0]))} to "
                    f"{_fmt(float(edges[-1]))}, most in [{_fmt(float(edges[peak]))}, {_fmt(float(edges[peak + 1]))})."
                )
            continue
        pairs = [(x, _num(y)) for x, y in zip(s.get("x", []), s.get("y", []), strict=False)]
        if len(pairs) > 12:
            ys = [y for _, y in pairs if y is not None]
            parts.append(
                f"{name}: {len(pairs)} points, {spec.get('y_label', 'y')} from {_fmt(min(ys))} to {_fmt(max(ys))}."
                if ys
                else f"{name}: no values."
            )
        else:
            shown = ", ".join(
                f"{x if _num(x) is None else _fmt(_num(x))}: {'–' if y is None else _fmt(y)}" for x, y in pairs
            )
            parts.append(f"{name}: {shown}.")
    if kind == "heatmap":
        flat = [v for row in spec.get("values", []) for v in map(_num, row) if v is not None]
        if flat:
            parts.append(f"{len(spec.get('values', []))} rows; values from {_fmt(min(flat))} to {_fmt(max(flat))}.")
    for r in _references(spec):
        parts.append(f"Reference: {r.get('label', '')} {_fmt(_num(r['value']))}.")
    return " ".join(parts)


_SEPARATORS = "-_ ./:"


def distinct_parts(labels: list[str]) -> list[str]:
    """Labels without the prefix and suffix they all share (cut at a separator), so long rule ids
    such as ``release-q4-mi-rule-0`` and ``release-q4-mi-rule-1`` show as ``0`` and ``1``; the caption
    names what was left out (see :func:`common_affixes`)."""
    prefix, suffix = common_affixes(labels)
    if not (prefix or suffix):
        return list(labels)
    return [label[len(prefix) : len(label) - len(suffix)] for label in labels]


def common_affixes(labels: list[str]) -> tuple[str, str]:
    """The separator-bounded prefix and suffix every label shares (empty for fewer than two labels)."""
    if len(labels) < 2 or len(set(labels)) < 2:
        return "", ""
    first = min(labels, key=len)
    n = 0
    while n < len(first) and all(label[n] == first[n] for label in labels):
        n += 1
    prefix = first[:n]
    cut = max((prefix.rfind(c) for c in _SEPARATORS), default=-1)
    prefix = prefix[: cut + 1] if cut >= 0 else ""
    rests = [label[len(prefix) :] for label in labels]
    shortest = min(rests, key=len)
    m = 0
    while m < len(shortest) and all(r[len(r) - 1 - m] == shortest[len(shortest) - 1 - m] for r in rests):
        m += 1
    suffix = shortest[len(shortest) - m :] if m else ""
    cut = min((i for i, c in enumerate(suffix) if c in _SEPARATORS), default=None)
    suffix = suffix[cut:] if cut is not None else ""
    if any(len(r) - len(suffix) < 1 for r in rests):
        suffix = ""
    return prefix, suffix


def _single_x(spec: dict[str, Any]) -> bool:
    """Whether every series of an x/y spec has one x value, the same (a linkage chart with M = 1)."""
    xs = {str(x) for s in spec.get("series") or [] for x in s.get("x", [])}
    return len(xs) == 1 and all(len(s.get("y", [])) <= 1 for s in spec.get("series") or [])


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


def shorten_middle(text: str, width: float, size: float) -> str:
    """``text`` cut in the middle to fit ``width`` pixels: the end that tells ``adult-2025[0]`` from
    ``adult-2025[1]`` stays."""
    fits = max(int(width / (size * 0.6)), 3)
    if len(text) <= fits:
        return text
    tail = (fits - 1) // 2
    return text[: fits - 1 - tail] + "…" + text[len(text) - tail :]


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
        for x, line in zip(xs, lines, strict=False)
    )


#: Axis labels whose quantity lies in [0, 1] (shares, rates, accuracies).
_UNIT_LABEL = re.compile(r"^(share|fraction|proportion|accuracy|precision|recall|probability)\b|positive rate", re.I)


def axis_domain(spec: dict[str, Any], axis: str, kind: str) -> tuple[float | None, float | None]:
    """The values an axis can take: the spec's ``x_domain``/``y_domain``, [0, 1] for a share or rate
    (a histogram's y is the share of its items in each bin), else unbounded."""
    given = spec.get(f"{axis}_domain")
    if isinstance(given, (list, tuple)) and len(given) == 2:
        return _num(given[0]), _num(given[1])
    if axis == "y" and kind == "histogram":
        return 0.0, 1.0
    if _UNIT_LABEL.search(str(spec.get(f"{axis}_label") or "")):
        return 0.0, 1.0
    return None, None


def _clip(v: float, lo: float | None, hi: float | None) -> float:
    return min(max(v, lo if lo is not None else v), hi if hi is not None else v)


class _Axes:
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
        x0, x1 = _clip(x0, *x_domain), _clip(x1, *x_domain)
        y0, y1 = _clip(y0, *y_domain), _clip(y1, *y_domain)
        if x1 <= x0:
            x0, x1 = x0 - 0.5, x1 + 0.5
        if y1 <= y0:
            y0, y1 = (y0 - 0.5, y1 + 0.5) if y0 < 0 else (y0, y1 + (abs(y1) or 1.0))
        # NOTE: round the y range out to whole ticks, so the tallest bar or
        # point meets a labelled grid line instead of the frame's edge; never past the domain.
        step = _nice_step(y1 - y0)
        y1 = _clip(math.ceil(y1 / step - 1e-9) * step, *y_domain)
        y0 = _clip(math.floor(y0 / step + 1e-9) * step, *y_domain)
        x0, x1 = _clip(x0, *x_domain), _clip(x1, *x_domain)
        if y1 <= y0:
            y1 = y0 + step
        if log_y:  # a log axis spans whole decades of the data (already in log10), within its domain
            y0, y1 = _clip(math.floor(min(y0, y1) + 1e-9), *y_domain), _clip(math.ceil(y1 - 1e-9), *y_domain)
            y1 = y1 if y1 > y0 else y0 + 1
        if log_x:
            x0, x1 = _clip(math.floor(x0 + 1e-9), *x_domain), _clip(math.ceil(x1 - 1e-9), *x_domain)
            x1 = x1 if x1 > x0 else x0 + 1
        self.log_x, self.log_y = log_x, log_y
        self.x0, self.x1, self.y0, self.y1 = x0, x1, y0, y1
        self.top = top
        self.bottom = top + self.PLOT_H
        self.height = self.bottom + self.BOTTOM
        self.integer_x = integer_x

    def x(self, v: float) -> float:
        v = _clip(v, self.x0, self.x1)  # a value outside the domain is drawn at its edge, never beyond the frame
        return self.LEFT + (v - self.x0) / (self.x1 - self.x0) * (W - self.LEFT - RIGHT)

    def y(self, v: float) -> float:
        v = _clip(v, self.y0, self.y1)
        return self.bottom - (v - self.y0) / (self.y1 - self.y0) * self.PLOT_H

    def frame(self, spec: dict[str, Any], x_ticks: bool = True) -> str:
        left, top, bottom = self.LEFT, self.top, self.bottom
        parts = []
        for t in _decades(self.y0, self.y1) if self.log_y else _ticks(self.y0, self.y1):
            label = _fmt(10**t) if self.log_y else _fmt(t)
            parts.append(
                f'<line x1="{left}" y1="{self.y(t):.1f}" x2="{W - RIGHT}" y2="{self.y(t):.1f}" class="grid"/>'
                f'<text x="{left - 6}" y="{self.y(t) + 4:.1f}" text-anchor="end" class="tk">{label}</text>'
            )
        parts += [
            f'<line x1="{left}" y1="{bottom}" x2="{W - RIGHT}" y2="{bottom}" class="ax"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" class="ax"/>',
        ]
        if x_ticks:
            for t in _decades(self.x0, self.x1) if self.log_x else _ticks(self.x0, self.x1, integer=self.integer_x):
                label = _fmt(10**t) if self.log_x else _fmt(t)
                parts.append(
                    f'<text x="{self.x(t):.1f}" y="{bottom + 16}" text-anchor="middle" class="tk">{label}</text>'
                )
        x_label = _shorten(str(spec.get("x_label", "")), W - left - RIGHT, 11)
        parts.append(
            f'<text x="{(left + W - RIGHT) / 2}" y="{bottom + 38}" text-anchor="middle" class="al">{escape(x_label)}</text>'
        )
        parts.append(_y_label(str(spec.get("y_label", "")), top, bottom))
        return "".join(parts)

    def reference_lines(self, spec: dict[str, Any]) -> str:
        """Dashed lines at the spec's reference values; their labels are in the legend."""
        parts = []
        for ref in _references(spec):
            v = _num(ref.get("value"))
            label = escape(str(ref.get("label", "")))
            if ref.get("axis", "y") == "y" and self.y0 <= v <= self.y1:
                parts.append(
                    f'<line x1="{self.LEFT}" y1="{self.y(v):.1f}" x2="{W - RIGHT}" y2="{self.y(v):.1f}" class="ref">'
                    f"<title>{label}: {_fmt(v)}</title></line>"
                )
            elif ref.get("axis") == "x" and self.x0 <= v <= self.x1:
                parts.append(
                    f'<line x1="{self.x(v):.1f}" y1="{self.top}" x2="{self.x(v):.1f}" y2="{self.bottom}" class="ref">'
                    f"<title>{label}: {_fmt(v)}</title></line>"
                )
        return "".join(parts)


def _decades(lo: float, hi: float) -> list[float]:
    """Tick positions of a log axis (in log10): every whole decade from ``lo`` to ``hi``."""
    return [float(t) for t in range(math.ceil(lo - 1e-9), math.floor(hi + 1e-9) + 1)]


def _log10(v: Any) -> float | None:
    """log10 of a positive number; None for anything a log axis cannot draw."""
    f = _num(v)
    return math.log10(f) if f is not None and f > 0 else None


def _log_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with its log-scaled axes' values (series, domains, reference lines) in log10."""
    log_x, log_y = spec.get("x_scale") == "log", spec.get("y_scale") == "log"
    out = dict(spec)
    out["series"] = [
        {
            **s,
            "x": [_log10(v) for v in s.get("x", [])] if log_x else s.get("x", []),
            "y": [_log10(v) for v in s.get("y", [])] if log_y else s.get("y", []),
        }
        for s in spec.get("series") or []
    ]
    for axis, log in (("x", log_x), ("y", log_y)):
        domain = spec.get(f"{axis}_domain")
        if log:
            out[f"{axis}_domain"] = [_log10(v) for v in domain] if isinstance(domain, (list, tuple)) else [None, 0.0]
    out["reference_lines"] = [
        {**r, "value": _log10(r["value"])} if (log_x if r.get("axis") == "x" else log_y) else r
        for r in spec.get("reference_lines", []) or []
    ]
    return out


def _references(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        r for r in spec.get("reference_lines", []) or [] if isinstance(r, dict) and _num(r.get("value")) is not None
    ]


def _plot_top(spec: dict[str, Any]) -> tuple[str, float]:
    """Legend under the title, and the plot's top edge below it."""
    names = [str(s.get("name", "")) for s in spec.get("series") or []]
    refs = [f"{r.get('label', '')} ({_fmt(_num(r['value']))})" for r in _references(spec)]
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
        ax = _Axes(
            0, max(len(labels), 1), min([0.0, *ys]), max([*ys, 0.0]) or 1.0, top, y_domain=axis_domain(spec, "y", kind)
        )
        parts = [ax.frame(spec, x_ticks=False)]
        band = (W - ax.LEFT - RIGHT) / max(len(labels), 1)
        # NOTE: cap the bar width: one category must not fill the chart.
        width = min(band * 0.8 / max(len(series), 1), 72)
        group = width * len(series)
        n_bars = sum(len(s.get("y", [])) for s in series)
        for si, s in enumerate(series):
            color = PALETTE[si % len(PALETTE)]
            for x, y in zip(s.get("x", []), s.get("y", []), strict=False):
                v = _num(y)
                if v is None:
                    continue
                i = labels.index(str(x))
                bx = ax.LEFT + band * i + (band - group) / 2 + width * si
                top_y, base = ax.y(max(v, 0)), ax.y(min(v, 0))
                parts.append(
                    f'<rect x="{bx:.1f}" y="{top_y:.1f}" width="{width:.1f}" height="{max(base - top_y, 0.5):.1f}" fill="{color}">'
                    f"<title>{escape(s.get('name', ''))} {escape(str(x))}: {_fmt(v)}</title></rect>"
                )
                # NOTE: a value label is written only where it fits over its own bar, so
                # neighbouring labels never overlap (the tooltip and the text alternative hold every value).
                if n_bars <= 16 and _text_width(_fmt(v), 9.5) <= width + 2:
                    parts.append(
                        f'<text x="{bx + width / 2:.1f}" y="{top_y - 3:.1f}" text-anchor="middle" class="bv">{_fmt(v)}</text>'
                    )
        shown_labels = distinct_parts(labels)
        widest = max((_text_width(t, 10) for t in shown_labels), default=0)
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
        xs = [v for s in series for v in map(_num, s.get("x", [])) if v is not None]
        y0 = min(ys, default=0.0)
        log_x, log_y = spec.get("x_scale") == "log", spec.get("y_scale") == "log"
        # NOTE: a non-negative quantity is drawn from zero, so a small change
        # does not look like a large one (on a linear axis; a log axis has no zero).
        ax = _Axes(
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
                (ax.x(_num(x)), ax.y(_num(y)))
                for x, y in zip(s.get("x", []), s.get("y", []), strict=False)
                if _num(x) is not None and _num(y) is not None
            ]
            if kind == "line" and len(pts) > 1:
                path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
                parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
            if kind == "scatter" or len(pts) <= 30:
                parts.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>' for x, y in pts)
    parts.append(ax.reference_lines(spec))
    parts.append(legend)
    return "".join(parts), ax.height


def _histogram_y_label(spec: dict[str, Any]) -> str:
    """A histogram's y: the share of what it counts (``counts_of``: records unless the spec says otherwise)."""
    return f"share of {spec.get('counts_of') or 'records'} in each bin"


def _histogram(spec: dict[str, Any]) -> tuple[str, float]:
    series = spec.get("series") or []
    edges_all = [v for s in series for v in map(_num, s.get("edges", [])) if v is not None]
    tops = [c / max(sum(s.get("counts", [])), 1) for s in series for c in s.get("counts", [])]
    xs = edges_all + [_num(r["value"]) for r in _references(spec) if r.get("axis") == "x"]
    legend, top = _plot_top(spec)
    ax = _Axes(
        min(xs, default=0),
        max(xs, default=1),
        0,
        max(tops, default=1) or 1,
        top,
        x_domain=axis_domain(spec, "x", "histogram"),
        y_domain=(0.0, 1.0),
    )
    # NOTE: the bars are shares of each series' items, whatever the spec's y label says.
    parts = [ax.frame({**spec, "y_label": _histogram_y_label(spec)})]
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
                f"<title>{escape(s.get('name', ''))} [{_fmt(float(edges[i]))}, {_fmt(float(edges[i + 1]))}): "
                f"{c} ({_fmt(c / total)})</title></rect>"
            )
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
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{cw:.1f}" height="{ch:.1f}" fill="{fill}" stroke="#ffffff" stroke-width="0.5">'
                f"<title>{escape(rows[i])} / {escape(cols[j])}: {label or 'blank'}</title></rect>"
            )
            if cw >= 30 and ch >= 14 and label:
                parts.append(
                    f'<text x="{x + cw / 2:.1f}" y="{y + ch / 2 + 3:.1f}" text-anchor="middle" class="hv">{label}</text>'
                )
    # A frame around the matrix: the lowest values are white, and would otherwise melt into the page.
    parts.append(
        f'<rect x="{left:.1f}" y="{top}" width="{cw * n_cols:.1f}" height="{ch * n_rows:.1f}" fill="none" '
        'stroke="#d5d9de" stroke-width="1"/>'
    )
    # NOTE: outlines are drawn after every cell, so no neighbour paints over them.
    for i, j in sorted(marked):
        if i < n_rows and j < n_cols:
            parts.append(
                f'<rect x="{left + j * cw + 0.75:.1f}" y="{top + i * ch + 0.75:.1f}" width="{max(cw - 1.5, 0.5):.1f}" '
                f'height="{max(ch - 1.5, 0.5):.1f}" fill="none" stroke="#b00020" stroke-width="1.5"/>'
            )
    row_step = max(1, math.ceil(11 / ch))
    for i, r in enumerate(rows):
        if i % row_step == 0:
            parts.append(
                f'<text x="{left - 4:.1f}" y="{top + i * ch + ch / 2 + 3:.1f}" text-anchor="end" class="tk">'
                f"<title>{escape(r)}</title>{escape(_shorten(r, left - 8, 9))}</text>"
            )
    col_step = max(1, math.ceil(11 / cw)) if turned else 1
    for j, c in enumerate(cols):
        if j % col_step:
            continue
        cx = left + j * cw + cw / 2
        short = escape(_shorten(c, 110 if turned else cw, 9))
        if turned:
            parts.append(
                f'<text x="{cx:.1f}" y="{bottom_y + 10:.1f}" text-anchor="end" class="tk" '
                f'transform="rotate(-60 {cx:.1f} {bottom_y + 10:.1f})"><title>{escape(c)}</title>{short}</text>'
            )
        else:
            parts.append(f'<text x="{cx:.1f}" y="{bottom_y + 13:.1f}" text-anchor="middle" class="tk">{short}</text>')
    y = bottom_y + label_room + 6
    if spec.get("x_label"):
        parts.append(
            f'<text x="{(left + W - RIGHT) / 2:.1f}" y="{y + 8:.1f}" text-anchor="middle" class="al">'
            f"{escape(_shorten(str(spec['x_label']), W - left - RIGHT, 11))}</text>"
        )
        y += 18
    parts.append(_y_label(str(spec.get("y_label", "")), top, bottom_y))
    # Colour key: five swatches from the lowest to the highest value.
    key_x = W - RIGHT - 5 * 16 - 70
    parts.append(f'<text x="{key_x - 4}" y="{y + 9:.1f}" text-anchor="end" class="lg">{_fmt(lo)}</text>')
    for k in range(5):
        parts.append(
            f'<rect x="{key_x + 16 * k}" y="{y:.1f}" width="16" height="10" fill="{_heat(k / 4)}" stroke="#d5d9de" stroke-width="0.5"/>'
        )
    parts.append(f'<text x="{key_x + 84}" y="{y + 9:.1f}" class="lg">{_fmt(hi)}</text>')
    if marked:
        parts.append(
            f'<rect x="{left:.1f}" y="{y:.1f}" width="12" height="10" fill="none" stroke="#b00020" stroke-width="1.5"/>'
            f'<text x="{left + 17:.1f}" y="{y + 9:.1f}" class="lg">outlined: marked cells</text>'
        )
    return "".join(parts), y + 20


# --- the threshold gauge ------------------------------------------------------------


def _word_spot(a: float, b: float, busy: tuple[float, float], width: float) -> float | None:
    """Centre of the widest part of the zone [a, b] outside ``busy``, or None when ``width`` does not fit there.

    A zone's word sits in the zone's free part, so the estimate's dot and its interval never cross it.
    """
    free = [(a, min(b, busy[0])), (max(a, busy[1]), b)]
    lo, hi = max(free, key=lambda part: part[1] - part[0])
    return (lo + hi) / 2 if hi - lo > width else None


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
    d_lo, d_hi = (_num(v) for v in (rule.get("value_range") or [None, None]))
    if interval:
        interval = [_clip(float(v), d_lo, d_hi) for v in interval]  # an interval never leaves the metric's domain
    lo, hi = min(points), max(points)
    if lo >= 0 and hi <= 1 and hi >= 0.1:
        lo, hi = 0.0, 1.0  # shares, risks and accuracies: show their whole range
    elif lo >= 0 and hi < 0.1:
        # NOTE: tiny levels (fail 0.01, warn 0.001) on a 0-1 scale would sit on
        # top of each other: zoom to the data, still from zero.
        lo, hi = (
            0.0,
            _nice_step(hi * 1.25, 4) * math.ceil(hi * 1.25 / _nice_step(hi * 1.25, 4) - 1e-9) if hi > 0 else 1.0,
        )
    else:
        pad = (hi - lo) * 0.15 or abs(hi) * 0.5 or 1.0
        # NOTE: a positive quantity (an epsilon) is shown from zero; a level
        # at zero keeps a margin below it so its pass side stays visible.
        lo, hi = (0.0 if lo > 0 else lo - pad), hi + pad
    lo, hi = _clip(lo, d_lo, d_hi), _clip(hi, d_lo, d_hi)
    if hi <= lo:
        hi = lo + 1.0
    left, right, y, h = 16, W - 16, 22, 14

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (right - left)

    # Zones from the pass side to the fail side.
    if above:
        bounds = [("pass", lo, warn if warn is not None else fail), ("warn", warn, fail), ("fail", fail, hi)]
    else:
        bounds = [("fail", lo, fail), ("warn", fail, warn), ("pass", warn if warn is not None else fail, hi)]
    # What the zone words must keep clear of: the estimate's dot and the interval's bar and whiskers.
    drawn = [x(value) - 5, x(value) + 5] + ([x(float(v)) for v in interval] if interval else [])
    busy = (min(drawn) - 4, max(drawn) + 4)
    parts = []
    for zone, a, b in bounds:
        if a is None or b is None or b <= a:
            continue
        parts.append(f'<rect x="{x(a):.1f}" y="{y}" width="{x(b) - x(a):.1f}" height="{h}" fill="{ZONES[zone]}"/>')
        spot = _word_spot(x(a), x(b), busy, _text_width(zone, 10) + 6)
        if spot is not None:
            parts.append(f'<text x="{spot:.1f}" y="{y + h - 3.5}" text-anchor="middle" class="gz">{zone}</text>')

    # NOTE: each level's label leans away from the other level, so close
    # levels (warn 0.52, fail 0.55) never print over each other; levels too
    # close for two labels share one ("warn 0.001 · fail 0.01", at the fail line).
    def placed(level: float, text: str, outward: bool) -> tuple[bool, float, float]:
        """Which side the label goes (flipped at the drawing's edge), and its left and right ends."""
        if outward and x(level) + 3 + _text_width(text, 10) > W:
            outward = False
        elif not outward and x(level) - 3 - _text_width(text, 10) < 0:
            outward = True
        width = _text_width(text, 10)
        return (
            (outward, x(level) + 3, x(level) + 3 + width) if outward else (outward, x(level) - 3 - width, x(level) - 3)
        )

    levels = [(fail, f"fail {_fmt(fail)}", above)]
    if warn is not None:
        warn_text = f"warn {_fmt(warn)}"
        _, fl, fr = placed(fail, levels[0][1], above)
        _, wl, wr = placed(warn, warn_text, not above)
        if fl < wr + 6 and wl < fr + 6:
            first, second = (warn_text, levels[0][1]) if warn < fail else (levels[0][1], warn_text)
            levels = [(fail, f"{first} · {second}", above)]
            parts.append(f'<line x1="{x(warn):.1f}" y1="{y - 12}" x2="{x(warn):.1f}" y2="{y + h}" class="gl"/>')
        else:
            levels.append((warn, warn_text, not above))
    for level, text, outward in levels:
        outward, _, _ = placed(level, text, outward)
        anchor, dx = ("start", 3) if outward else ("end", -3)
        parts.append(
            f'<line x1="{x(level):.1f}" y1="{y - 12}" x2="{x(level):.1f}" y2="{y + h}" class="gl"/>'
            f'<text x="{x(level) + dx:.1f}" y="{y - 4}" text-anchor="{anchor}" class="tk">{text}</text>'
        )
    cy = y + h / 2
    if interval:
        a, b = (x(float(v)) for v in interval)
        parts.append(
            f'<line x1="{a:.1f}" y1="{cy}" x2="{b:.1f}" y2="{cy}" class="gi"/>'
            f'<line x1="{a:.1f}" y1="{cy - 5}" x2="{a:.1f}" y2="{cy + 5}" class="gi"/>'
            f'<line x1="{b:.1f}" y1="{cy - 5}" x2="{b:.1f}" y2="{cy + 5}" class="gi"/>'
        )
    parts.append(f'<circle cx="{x(value):.1f}" cy="{cy}" r="4.5" class="gv"/>')
    if compared is not None and t.get("compare", "estimate") != "estimate":
        cx = x(compared)
        parts.append(
            f'<path d="M{cx - 5:.1f},{y + h + 8} L{cx + 5:.1f},{y + h + 8} L{cx:.1f},{y + h + 1} Z" class="gv"/>'
        )
    label = f"measured {value:.4g}"
    vx = min(max(x(value), left + _text_width(label, 10) / 2), right - _text_width(label, 10) / 2)
    parts.append(f'<text x="{vx:.1f}" y="{y + h + 19}" text-anchor="middle" class="gm">{label}</text>')
    half = _text_width(label, 10.5) / 2
    if vx - half > left + _text_width(_fmt(lo), 10) + 6:
        parts.append(f'<text x="{left}" y="{y + h + 19}" class="tk">{_fmt(lo)}</text>')
    if vx + half < right - _text_width(_fmt(hi), 10) - 6:
        parts.append(f'<text x="{right}" y="{y + h + 19}" text-anchor="end" class="tk">{_fmt(hi)}</text>')
    words = f"measured {_fmt(value)}" + (
        f", interval {_fmt(float(interval[0]))} to {_fmt(float(interval[1]))}" if interval else ""
    )
    words += f"; fail {'above' if above else 'below'} {_fmt(fail)}" + (
        f", warn {'above' if above else 'below'} {_fmt(warn)}" if warn is not None else ""
    )
    return Markup(
        f'<svg class="gauge" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {y + h + 24}" role="img" '
        f'aria-label="{escape(words)}" preserveAspectRatio="xMinYMid meet"><title>{escape(words)}</title>{"".join(parts)}</svg>'
    )
