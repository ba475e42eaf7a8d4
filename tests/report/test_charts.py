"""Chart specs to inline SVG: geometry by hand, text escaped, nothing external."""

import re

import pytest

from policycheck.report.charts import render_chart, render_gauge
from policycheck.report.charts.axes import ticks

PLOT_H = 220  # height of the plot area of x/y charts and histograms, in SVG units


def rects(svg: str) -> list[dict[str, str]]:
    return [dict(re.findall(r'(\w[\w-]*)="([^"]*)"', m)) for m in re.findall(r"<rect ([^>]*)>", svg)]


def test_ticks_step_by_1_2_or_5():
    assert ticks(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert ticks(0, 0.35) == [0, 0.1, 0.2, 0.3]
    assert ticks(1, 3, integer=True) == [1, 2, 3]  # counts of sets: no 1.5


def test_histogram_bars_are_shares_on_a_rounded_axis():
    svg = render_chart(
        {
            "kind": "histogram",
            "title": "h",
            "x_label": "d",
            "series": [{"name": "train", "edges": [0, 1, 2], "counts": [1, 3]}],
        }
    )
    # Shares 0.25 and 0.75; the axis is rounded up to the 0.2 tick above 0.75, i.e. 0.8.
    heights = [float(r["height"]) for r in rects(svg) if r.get("fill-opacity")]
    assert heights == pytest.approx([0.25 / 0.8 * PLOT_H, 0.75 / 0.8 * PLOT_H], abs=0.06)  # drawn to 0.1 units
    assert ">0.8</text>" in svg and ">share of records in each bin</text>" in svg


def test_a_lone_bar_is_not_stretched_over_the_chart():
    svg = render_chart({"kind": "bar", "title": "b", "series": [{"name": "s", "x": ["only"], "y": [0.5]}]})
    (bar,) = [r for r in rects(svg) if r.get("fill") == "#0072B2"]
    assert float(bar["width"]) == 72
    assert ">0.5</text>" in svg  # few bars: each carries its value


def test_reference_lines_are_listed_in_the_legend_with_their_value():
    svg = render_chart(
        {
            "kind": "bar",
            "title": "acc",
            "series": [{"name": "a", "x": ["lp"], "y": [0.9]}],
            "reference_lines": [{"axis": "y", "value": 0.765, "label": "guess the most common secret"}],
        }
    )
    assert "guess the most common secret (0.765)</text>" in svg
    assert svg.count('class="ref"') == 2  # the legend's sample and the line itself


def test_heatmap_outlines_marked_cells_and_keeps_a_colour_key():
    svg = render_chart(
        {
            "kind": "heatmap",
            "title": "m",
            "row_labels": ["r0", "r1"],
            "col_labels": ["c0", "c1"],
            "values": [[0.0, 2.0], [None, 1.0]],
            "marked": [[0, 1]],
        }
    )
    outlines = [r for r in rects(svg) if r.get("fill") == "none" and r.get("stroke") == "#b00020"]
    assert len(outlines) == 2  # the marked cell, and its sample in the key
    assert sum(r.get("fill") == "#eeeeee" for r in rects(svg)) == 1  # the blank cell
    assert ">0</text>" in svg and ">2</text>" in svg  # the key's ends: lowest and highest value
    assert "outlined: marked cells" in svg


def test_a_tall_heatmap_grows_and_thins_its_row_labels():
    def chart(n):
        return render_chart(
            {
                "kind": "heatmap",
                "title": "t",
                "row_labels": [f"row {i}" for i in range(n)],
                "col_labels": ["a", "b"],
                "values": [[i, i] for i in range(n)],
            }
        )

    def height(svg):
        return float(re.search(r'viewBox="0 0 560 ([\d.]+)"', svg).group(1))

    assert height(chart(60)) > height(chart(20))
    # 60 rows of 6 units: a label every other row keeps 12 units between labels.
    assert sum(f">row {i}</text>" in chart(60) for i in range(60)) == 30


def test_a_long_title_wraps_onto_two_lines():
    svg = render_chart({"kind": "line", "title": "word " * 30, "series": [{"name": "s", "x": [0, 1], "y": [0, 1]}]})
    assert len(re.findall(r'class="ct"', svg)) == 2


def test_data_labels_are_escaped():
    svg = render_chart(
        {
            "kind": "heatmap",
            "title": "<script>x</script>",
            "row_labels": ["<img src=x>"],
            "col_labels": ['"><b>'],
            "values": [[1]],
        }
    )
    assert "<script" not in svg and "<img" not in svg and "<b>" not in svg
    assert "&lt;img src=x&gt;" in svg


@pytest.mark.parametrize("kind", ["bar", "line", "scatter", "histogram", "heatmap"])
def test_charts_reference_nothing_outside_the_page(kind):
    spec = {
        "kind": kind,
        "title": "t",
        "series": [{"name": "s", "x": [0, 1], "y": [1, 2], "edges": [0, 1, 2], "counts": [1, 2]}],
        "row_labels": ["a"],
        "col_labels": ["b"],
        "values": [[1]],
    }
    svg = str(render_chart(spec))
    assert svg.startswith('<figure class="chart"><svg') and svg.endswith("</figcaption></figure>")
    for forbidden in ("<script", "href", " id=", "url(", "http://www.w3.org/1999/xlink"):
        assert forbidden not in svg


def test_a_malformed_or_unknown_chart_becomes_a_note():
    broken = render_chart({"kind": "histogram", "title": "h", "series": [{"edges": [0], "counts": [1, 2]}]})
    assert "could not be drawn" in broken and "<svg" not in broken
    assert "unknown kind" in render_chart({"kind": "pie", "title": "p"})


# --- the threshold gauge --------------------------------------------------------------


def gauge_rule(**changes):
    rule = {
        "value": 0.25,
        "interval": [0.2, 0.3],
        "compared_value": 0.25,
        "threshold": {"fail_above": 0.5, "warn_above": 0.4, "compare": "estimate"},
    }
    rule.update(changes)
    return rule


def test_gauge_places_value_and_levels_on_a_share_scale():
    svg = render_gauge(gauge_rule())
    # Shares are drawn on [0, 1] over x = 16 .. 544: x(v) = 16 + 528 v.
    assert '<circle cx="148.0"' in svg  # 0.25
    assert 'x1="280.0"' in svg and 'x1="227.2"' in svg  # fail 0.5, warn 0.4
    zones = [(r["x"], r["width"], r["fill"]) for r in rects(svg)]
    assert zones == [("16.0", "211.2", "#d8eedd"), ("227.2", "52.8", "#f8e7bf"), ("280.0", "264.0", "#f6d0d5")]
    assert "measured 0.25" in svg and 'aria-label="measured 0.25, interval 0.2 to 0.3; fail above' in svg


def test_gauge_puts_the_fail_zone_first_for_a_lower_bound():
    svg = render_gauge(gauge_rule(value=0.6, interval=None, threshold={"fail_below": 0.3, "compare": "estimate"}))
    assert [r["fill"] for r in rects(svg)] == ["#f6d0d5", "#d8eedd"]  # fail [0, 0.3], pass [0.3, 1]


def test_gauge_shows_a_positive_quantity_from_zero():
    svg = render_gauge(
        {
            "value": 4.159,
            "interval": None,
            "compared_value": 4.159,
            "threshold": {"fail_above": 3.0, "compare": "estimate"},
        }
    )
    # Domain [0, 4.159 + 0.15 * (4.159 - 3)]: the fail level sits at 16 + 528 * 3 / 4.33285.
    assert 'x1="381.6"' in svg


def test_gauge_marks_the_compared_interval_end():
    assert "<path" in render_gauge(gauge_rule(compared_value=0.3, threshold={"fail_above": 0.5, "compare": "upper"}))
    assert "<path" not in render_gauge(gauge_rule())


def test_no_gauge_without_a_value():
    assert render_gauge(gauge_rule(value=None)) == ""


def test_a_log_axis_ticks_every_decade_and_places_values_by_their_logarithm():
    spec = {
        "kind": "line",
        "title": "ROC",
        "x_label": "false positive rate",
        "y_label": "true positive rate",
        "x_scale": "log",
        "y_scale": "log",
        "x_domain": [0.001, 1],
        "y_domain": [0.001, 1],
        "series": [{"name": "attack", "x": [0.001, 0.01, 1], "y": [0.1, 0.5, 1]}],
    }
    svg = str(render_chart(spec))
    ticks = re.findall(r'class="tk">([^<]+)<', svg)
    # y first (its data span 0.1 to 1: two decades' ticks), then x from 0.001 to 1
    assert ticks == ["0.1", "1", "0.001", "0.01", "0.1", "1"]
    points = re.search(r'<polyline points="([^"]+)"', svg).group(1).split()
    xs = [float(p.split(",")[0]) for p in points]
    # 0.001, 0.01 and 1 are decades 0, 1 and 3 of three: equal steps per decade
    assert (xs[1] - xs[0]) == pytest.approx((xs[2] - xs[1]) / 2, abs=0.1)


def test_a_table_spec_is_an_escaped_html_table():
    html = str(
        render_chart(
            {
                "kind": "table",
                "title": "Targets",
                "columns": ["target", "AUC"],
                "rows": [["<script>", 0.81234], ["b", None]],
            }
        )
    )
    cells = re.findall(r"<t[hd][^>]*>([^<]*)</t[hd]>", html)
    assert cells == ["target", "AUC", "&lt;script&gt;", "0.812", "b", "–"]
