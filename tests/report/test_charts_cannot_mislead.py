"""Charts that cannot mislead: axes and intervals inside the metric's domain, labels apart, M = 1 as a bar,
a colour-blind-safe palette with see-through overlaid histograms, and a caption and text alternative."""

import itertools
import re

from policycheck.report.charts import render_chart, render_gauge
from policycheck.report.charts.style import PALETTE

SIZES = {"tk": 10, "lg": 10, "al": 11, "ct": 13, "bv": 9.5, "gm": 10.5, "gz": 10, "rl": 10, "hv": 9}
LONG_IDS = [f"release-2026-q4-membership-inference-rule-{i}-with-a-long-id" for i in range(8)]


def texts(svg: str) -> list[dict]:
    """Every unrotated <text>: position (with the shift of a two-line title's group), anchor, class, string."""
    out = []
    head, _, body_part = svg.partition('<g transform="translate(0 ')
    shift = float(body_part.split(")", 1)[0]) if body_part else 0.0
    found = [(m, 0.0) for m in re.findall(r"<text ([^>]*)>(.*?)</text>", head)]
    found += [(m, shift) for m in re.findall(r"<text ([^>]*)>(.*?)</text>", body_part)]
    for (attrs, body), dy in found:
        a = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
        if "transform" in a:
            continue
        shown = re.sub(r"<title>.*?</title>", "", body)
        out.append(
            {
                "x": float(a["x"]),
                "y": float(a["y"]) + dy,
                "anchor": a.get("text-anchor", "start"),
                "size": SIZES.get(a.get("class", ""), 10),
                "class": a.get("class", ""),
                "text": shown,
            }
        )
    return out


def box(t: dict) -> tuple[float, float, float, float]:
    """The text's box, 0.6 em a character (the average width of the sans-serif fonts the report names)."""
    w = len(t["text"]) * t["size"] * 0.6
    left = {"start": t["x"], "middle": t["x"] - w / 2, "end": t["x"] - w}[t["anchor"]]
    return left, t["y"] - t["size"] * 0.8, left + w, t["y"] + t["size"] * 0.2


def overlapping(svg: str) -> list[tuple[str, str]]:
    pairs = []
    for a, b in itertools.combinations(texts(svg), 2):
        (l1, t1, r1, b1), (l2, t2, r2, b2) = box(a), box(b)
        if l1 < r2 and l2 < r1 and t1 < b2 and t2 < b1:
            pairs.append((a["text"], b["text"]))
    return pairs


def tick_values(svg: str) -> list[float]:
    return [float(v) for v in re.findall(r'text-anchor="end" class="tk">(-?[\d.e+-]+)</text>', svg)]


def test_a_share_axis_never_goes_below_0_or_above_1():
    svg = str(
        render_chart(
            {
                "kind": "line",
                "title": "narrowed",
                "x_label": "m",
                "y_label": "share of records narrowed",
                "series": [{"name": "s", "x": [1, 2, 3], "y": [-0.04, 0.5, 0.97]}],
            }
        )
    )
    ticks = tick_values(svg)
    assert min(ticks) == 0 and max(ticks) == 1  # not -0.2 .. 1.2
    # the point below the domain is drawn on the axis (y = bottom of the plot), not under it
    ys = [float(y) for y in re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"', svg)]
    bottom = max(float(y) for y in re.findall(r'<line x1="64" y1="([\d.]+)" x2="544" y2="\1" class="ax"', svg))
    assert max(ys) <= bottom


def test_an_unbounded_axis_keeps_its_negative_values():
    svg = str(
        render_chart(
            {
                "kind": "bar",
                "title": "excess",
                "x_label": "attack",
                "y_label": "epsilon excess",
                "series": [{"name": "s", "x": ["a", "b"], "y": [-0.3, 0.5]}],
            }
        )
    )
    assert min(tick_values(svg)) < 0


def test_the_gauge_clips_an_interval_to_the_metric_domain():
    svg = str(
        render_gauge(
            {
                "value": 0.02,
                "interval": [-0.05, 0.12],
                "value_range": [0.0, 1.0],
                "compared_value": 0.02,
                "threshold": {"fail_above": 0.5, "compare": "estimate"},
            }
        )
    )
    ends = [float(x) for x in re.findall(r'<line x1="([\d.]+)" y1="[\d.]+" x2="\1" y2="[\d.]+" class="gi"/>', svg)]
    assert min(ends) == 16.0  # the left end of the scale, which is 0


def test_tiny_levels_get_a_scale_that_tells_them_apart():
    # exact copies: warn 0.001, fail 0.01, measured 0.004 -> the scale runs 0 .. 0.015, not 0 .. 1
    svg = str(
        render_gauge(
            {
                "value": 0.004,
                "interval": [0.002, 0.007],
                "value_range": [0.0, 1.0],
                "compared_value": 0.004,
                "threshold": {"fail_above": 0.01, "warn_above": 0.001, "compare": "estimate"},
            }
        )
    )
    assert ">warn 0.001</text>" in svg and ">fail 0.01</text>" in svg and ">0.015</text>" in svg
    assert overlapping(svg) == []


def test_levels_too_close_to_label_apart_share_one_label():
    # the demo's exact copies: measured 1 against warn 0.001 and fail 0.01 on the 0 .. 1 scale (5 px apart)
    svg = str(
        render_gauge(
            {
                "value": 1.0,
                "interval": [0.9975, 1.0],
                "value_range": [0.0, 1.0],
                "compared_value": 1.0,
                "threshold": {"fail_above": 0.01, "warn_above": 0.001, "compare": "estimate"},
            }
        )
    )
    assert ">warn 0.001 · fail 0.01</text>" in svg
    assert overlapping(svg) == []


def test_long_rule_ids_as_bar_labels_never_overlap():
    spec = {
        "kind": "bar",
        "title": "Value per rule " + LONG_IDS[0],
        "x_label": "rule",
        "y_label": "value",
        "series": [
            {"name": LONG_IDS[1], "x": LONG_IDS, "y": [0.123456, 0.5, 0.25, 0.75, 0.3333, 0.1, 0.9, 0.05]},
            {"name": LONG_IDS[2], "x": LONG_IDS, "y": [0.2, 0.4, 0.6, 0.8, 0.1, 0.3, 0.5, 0.7]},
        ],
        "reference_lines": [{"axis": "y", "value": 0.2, "label": "fail level of " + LONG_IDS[3]}],
    }
    svg = str(render_chart(spec))
    assert overlapping(svg) == []
    assert len(re.findall(r"<title>release-2026-q4", svg)) >= 8  # every full id stays in a tooltip
    # every bar is labelled by what tells the ids apart, and the caption names what was left out
    assert [t["text"] for t in texts(svg) if t["class"] == "tk" and t["anchor"] == "middle"] == [
        str(i) for i in range(8)
    ]
    assert (
        "leave out what every label shares: the prefix “release-2026-q4-membership-inference-rule-” and the "
        "suffix “-with-a-long-id”." in svg
    )


def test_gauge_labels_never_overlap_for_close_levels_and_values():
    for value, warn, fail in ((0.51, 0.52, 0.55), (0.55, 0.5, 0.56), (0.0, 0.0, 0.01), (3.2, 2.0, 3.0)):
        svg = str(
            render_gauge(
                {
                    "value": value,
                    "interval": None,
                    "compared_value": value,
                    "threshold": {"fail_above": fail, "warn_above": warn, "compare": "estimate"},
                }
            )
        )
        assert overlapping(svg) == [], (value, warn, fail)


def test_one_released_set_is_drawn_as_a_bar_not_a_lone_dot():
    svg = str(
        render_chart(
            {
                "kind": "line",
                "title": "Range narrowing against the number of sets",
                "x_label": "m",
                "y_label": "share of records narrowed",
                "series": [{"name": "linkage attack", "x": [1], "y": [0.1033]}],
            }
        )
    )
    assert "<circle" not in svg
    assert re.search(rf'<rect [^>]*fill="{PALETTE[0]}"', svg)
    assert ">0.103</text>" in svg  # the bar carries its value


def test_overlaid_histograms_are_see_through_with_distinct_outlines_in_a_colour_blind_safe_palette():
    svg = str(
        render_chart(
            {
                "kind": "histogram",
                "title": "DCR",
                "x_label": "distance",
                "series": [
                    {"name": "to training", "edges": [0, 1, 2], "counts": [3, 1]},
                    {"name": "to holdout", "edges": [0, 1, 2], "counts": [1, 3]},
                ],
            }
        )
    )
    bars = re.findall(
        r'<rect [^>]*fill="(#[0-9A-F]{6})" fill-opacity="([\d.]+)" stroke="\1" stroke-width="1.5"'
        r'(?: stroke-dasharray="([\d ]+)")?',
        svg,
    )
    assert [b[0] for b in bars] == ["#0072B2", "#0072B2", "#E69F00", "#E69F00"]  # Okabe-Ito blue and orange
    assert {b[1] for b in bars} == {"0.3"} and [b[2] for b in bars] == ["", "", "6 3", "6 3"]


def test_every_chart_has_a_caption_and_a_text_alternative_with_its_numbers():
    svg = str(
        render_chart(
            {
                "kind": "bar",
                "title": "Attack accuracy",
                "x_label": "attack",
                "y_label": "accuracy",
                "series": [{"name": "original records", "x": ["lp", "rf"], "y": [0.9, 0.8]}],
                "reference_lines": [{"axis": "y", "value": 0.765, "label": "majority guess"}],
            }
        )
    )
    assert (
        "<figcaption>Bar chart: Attack accuracy; accuracy against attack. Dashed line: majority guess at 0.765."
        "</figcaption>" in svg
    )
    assert (
        "<desc>Bar chart: Attack accuracy. original records: lp: 0.9, rf: 0.8. Reference: majority guess 0.765.</desc>"
        in svg
    )
    assert 'aria-label="Bar chart: Attack accuracy. original records: lp: 0.9, rf: 0.8.' in svg
    captioned = str(
        render_chart(
            {
                "kind": "histogram",
                "title": "t",
                "caption": "Given by the family.",
                "series": [{"name": "s", "edges": [0, 1], "counts": [2]}],
            }
        )
    )
    assert "<figcaption>Given by the family.</figcaption>" in captioned
