"""One chart spec as a ``<figure>``: the drawing of its kind, its title, text alternative and caption."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

from policycheck.report.charts.axes import log_spec
from policycheck.report.charts.heatmap import heatmap_chart
from policycheck.report.charts.histogram import histogram_chart
from policycheck.report.charts.style import W
from policycheck.report.charts.text import fmt, number, wrap
from policycheck.report.charts.words import caption, text_alternative
from policycheck.report.charts.xy import xy_chart


def is_empty(spec: dict[str, Any]) -> bool:
    """A bar or line chart with nothing to draw: every value zero or missing, and no reference line.

    The report says such a result in words ("no synthetic record is a copy"); an empty frame on the page
    reads as a chart that failed to draw.
    """
    if spec.get("kind") not in ("bar", "line") or spec.get("reference_lines"):
        return False
    values = [number(y) for s in spec.get("series") or [] for y in s.get("y", [])]
    return not any(v for v in values if v is not None)


def render_chart(spec: dict[str, Any]) -> Markup:
    """One chart spec as a ``<figure>``: an ``<svg>`` with a text alternative, and a caption.

    The text alternative (``aria-label`` and ``<desc>``) gives the numbers a
    screen reader or a search needs; the caption says what the chart shows
    and what its dashed lines are (the spec's ``caption`` when it has one).
    """
    kind = spec.get("kind")
    if kind == "line" and single_x(spec):
        kind = "bar"  # one point (M = 1) is a bar, not a lone dot that looks like missing data
    if kind == "table":
        return render_table(spec)
    drawn = log_spec(spec) if "log" in (spec.get("x_scale"), spec.get("y_scale")) else spec
    try:
        if kind == "heatmap":
            body, height = heatmap_chart(spec)
        elif kind == "histogram":
            body, height = histogram_chart(spec)
        elif kind in ("bar", "line", "scatter"):
            body, height = xy_chart(drawn, kind)
        else:
            return Markup("<p class='muted'>(chart of unknown kind {} not drawn)</p>").format(kind)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        return Markup("<p class='muted'>(chart {} could not be drawn: {})</p>").format(spec.get("title", ""), str(exc))
    title = str(spec.get("title", ""))
    lines = wrap(title, W - 20, 13 * 0.6 * 1.05, max_lines=2)
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
            f"<td {cell}>{escape(fmt(v) if number(v) is not None else ('–' if v is None else str(v)))}</td>"
            for v in row
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


def single_x(spec: dict[str, Any]) -> bool:
    """Whether every series of an x/y spec has one x value, the same (a linkage chart with M = 1)."""
    xs = {str(x) for s in spec.get("series") or [] for x in s.get("x", [])}
    return len(xs) == 1 and all(len(s.get("y", [])) <= 1 for s in spec.get("series") or [])
