"""A chart in words: its caption, and the text alternative a reader who cannot see it gets."""

from __future__ import annotations

from typing import Any

from policycheck.report.charts.axes import ref_value, references
from policycheck.report.charts.histogram import histogram_y_label
from policycheck.report.charts.text import common_affixes, fmt, number

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
    y_label = str(spec.get("y_label") or (histogram_y_label(spec) if kind == "histogram" else ""))
    x_label = str(spec.get("x_label") or "")
    text = f"{what}: {spec.get('title', '')}"
    if y_label and x_label:
        text += f"; {y_label} against {x_label}"
    text += "."
    refs = [f"{r.get('label', '')} at {fmt(ref_value(r))}" for r in references(spec)]
    if refs:
        text += " Dashed line" + ("s" if len(refs) > 1 else "") + ": " + "; ".join(refs) + "."
    if kind == "bar" or any(number(x) is None for sr in spec.get("series") or [] for x in sr.get("x", [])):
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
                    f"{name}: {sum(counts)} values in {len(counts)} bins from {fmt(float(edges[0]))} to "
                    f"{fmt(float(edges[-1]))}, most in [{fmt(float(edges[peak]))}, {fmt(float(edges[peak + 1]))})."
                )
            continue
        pairs = [(x, number(y)) for x, y in zip(s.get("x", []), s.get("y", []), strict=False)]
        if len(pairs) > 12:
            ys = [y for _, y in pairs if y is not None]
            parts.append(
                f"{name}: {len(pairs)} points, {spec.get('y_label', 'y')} from {fmt(min(ys))} to {fmt(max(ys))}."
                if ys
                else f"{name}: no values."
            )
        else:
            shown = ", ".join(
                f"{x if (vx := number(x)) is None else fmt(vx)}: {'–' if y is None else fmt(y)}" for x, y in pairs
            )
            parts.append(f"{name}: {shown}.")
    if kind == "heatmap":
        flat = [v for row in spec.get("values", []) for v in map(number, row) if v is not None]
        if flat:
            parts.append(f"{len(spec.get('values', []))} rows; values from {fmt(min(flat))} to {fmt(max(flat))}.")
    for r in references(spec):
        parts.append(f"Reference: {r.get('label', '')} {fmt(ref_value(r))}.")
    return " ".join(parts)
