"""Heat maps: a matrix of values in a sequential colour, marked cells outlined, with a colour key."""

from __future__ import annotations

import math
from typing import Any

from markupsafe import escape

from policycheck.report.charts.axes import y_axis_label
from policycheck.report.charts.style import RIGHT, W
from policycheck.report.charts.text import fmt, number, shorten, text_width


def _heat(t: float) -> str:
    """Sequential white-to-blue colour for ``t`` in [0, 1]."""
    return f"rgb({int(255 - 200 * t)},{int(255 - 120 * t)},{int(255 - 40 * t)})"


def heatmap_chart(spec: dict[str, Any]) -> tuple[str, float]:
    rows = [str(r) for r in spec.get("row_labels", [])]
    cols = [str(c) for c in spec.get("col_labels", [])]
    values = spec.get("values", [])
    n_rows = max(len(values), len(rows), 1)
    n_cols = max(max((len(r) for r in values), default=0), len(cols), 1)
    rows += [str(i) for i in range(len(rows), n_rows)]
    cols += [str(j) for j in range(len(cols), n_cols)]
    flat = [v for row in values for v in map(number, row) if v is not None]
    lo, hi = min(flat, default=0), max(flat, default=1)
    marked = {(int(r), int(c)) for r, c in spec.get("marked", []) or []}

    # Room for the row labels (at most a third of the width), and cells at
    # least 6 px tall: a tall matrix makes a tall chart, not unreadable rows.
    left = min(max((text_width(r, 9) for r in rows), default=20) + 10, W / 3)
    top = 36
    cw = (W - left - RIGHT) / n_cols
    ch = min(max(240 / n_rows, 6.0), 28.0)
    bottom_y = top + ch * n_rows
    # Column labels: upright if they fit their cell, else turned 60 degrees.
    widest = max((text_width(c, 9) for c in cols), default=0)
    turned = widest > cw - 2
    label_room = min(widest, 110) * (0.87 if turned else 0) + 16
    parts = []
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            f = number(v)
            x, y = left + j * cw, top + i * ch
            fill = "#eeeeee" if f is None else _heat(0.5 if hi == lo else (f - lo) / (hi - lo))
            label = "" if f is None else fmt(f)
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{cw:.1f}" height="{ch:.1f}" fill="{fill}" stroke="#ffffff" '
                f'stroke-width="0.5">'
                f"<title>{escape(rows[i])} / {escape(cols[j])}: {label or 'blank'}</title></rect>"
            )
            if cw >= 30 and ch >= 14 and label:
                parts.append(
                    f'<text x="{x + cw / 2:.1f}" y="{y + ch / 2 + 3:.1f}" text-anchor="middle" '
                    f'class="hv">{label}</text>'
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
                f"<title>{escape(r)}</title>{escape(shorten(r, left - 8, 9))}</text>"
            )
    col_step = max(1, math.ceil(11 / cw)) if turned else 1
    for j, c in enumerate(cols):
        if j % col_step:
            continue
        cx = left + j * cw + cw / 2
        short = escape(shorten(c, 110 if turned else cw, 9))
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
            f"{escape(shorten(str(spec['x_label']), W - left - RIGHT, 11))}</text>"
        )
        y += 18
    parts.append(y_axis_label(str(spec.get("y_label", "")), top, bottom_y))
    # Colour key: five swatches from the lowest to the highest value.
    key_x = W - RIGHT - 5 * 16 - 70
    parts.append(f'<text x="{key_x - 4}" y="{y + 9:.1f}" text-anchor="end" class="lg">{fmt(lo)}</text>')
    for k in range(5):
        parts.append(
            f'<rect x="{key_x + 16 * k}" y="{y:.1f}" width="16" height="10" fill="{_heat(k / 4)}" '
            f'stroke="#d5d9de" stroke-width="0.5"/>'
        )
    parts.append(f'<text x="{key_x + 84}" y="{y + 9:.1f}" class="lg">{fmt(hi)}</text>')
    if marked:
        parts.append(
            f'<rect x="{left:.1f}" y="{y:.1f}" width="12" height="10" fill="none" stroke="#b00020" stroke-width="1.5"/>'
            f'<text x="{left + 17:.1f}" y="{y + 9:.1f}" class="lg">outlined: marked cells</text>'
        )
    return "".join(parts), y + 20
