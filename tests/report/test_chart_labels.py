"""Chart labels found wrong by looking at the screenshots: gauge zone words on the interval, a histogram's y axis."""

import re

from policycheck.report.charts import render_gauge


def zone_words(svg: str) -> dict[str, float]:
    return {w: float(x) for x, w in re.findall(r'<text x="([\d.]+)"[^>]*class="gz">(\w+)</text>', svg)}


def test_zone_words_move_to_the_free_part_of_their_zone_beside_the_interval():
    # fail above 0.01, warn above 0.001; the gauge zooms to [0, 0.03] on x = 16 + v / 0.03 * 528.
    svg = str(
        render_gauge(
            {
                "value": 0.0123,
                "interval": [0.0061, 0.0215],
                "value_range": [0.0, 1.0],
                "compared_value": 0.0215,
                "threshold": {"fail_above": 0.01, "warn_above": 0.001, "compare": "upper"},
            }
        )
    )
    # the interval's bar runs from x(0.0061) = 123.36 to x(0.0215) = 394.4, kept clear by 4 px: (119.36, 398.4)
    # warn zone [x(0.001), x(0.01)] = [33.6, 192]: its free part is [33.6, 119.36], centre 76.48;
    # fail zone [192, 544]: free part [398.4, 544], centre 471.2; the pass zone [16, 33.6] is too narrow for "pass".
    assert zone_words(svg) == {"warn": 76.5, "fail": 471.2}


def test_a_zone_word_with_no_room_beside_the_interval_is_left_out():
    # interval over nearly the whole fail zone [0.2, 1]: no room for "fail" on either side
    svg = str(
        render_gauge(
            {
                "value": 0.6,
                "interval": [0.22, 0.98],
                "value_range": [0.0, 1.0],
                "compared_value": 0.6,
                "threshold": {"fail_above": 0.2, "compare": "estimate"},
            }
        )
    )
    assert "fail" not in zone_words(svg) and "pass" in zone_words(svg)


def test_a_histogram_of_marginals_says_it_counts_marginals_not_records():
    from policycheck.report.charts import render_chart

    spec = {
        "kind": "histogram",
        "title": "TVD of each 3-way marginal",
        "x_label": "total variation distance",
        "counts_of": "3-way marginals",
        "series": [{"name": "s", "edges": [0, 0.5, 1], "counts": [3, 1]}],
    }
    svg = str(render_chart(spec))
    # the y label, on two lines: "share of 3-way marginals in each" / "bin"
    assert ">share of 3-way marginals in each</text>" in svg and "records" not in svg


def test_bar_labels_too_long_for_their_band_go_on_two_lines_at_a_separator():
    from policycheck.report.charts import render_chart

    # as the demo's dp-budget chart: four bars share 560 - 64 - 16 = 480 px, 120 px each, 116 px of text at
    # 10 px (6 px a character): 19 characters a line, so "adult-teaching-2025[1]" (22) was cut to "adult-t…2025[1]"
    sets = ["nonprivate", "adult-teaching-2025[1]", "adult-research-2026-q1[1]"]
    spec = {
        "kind": "bar",
        "title": "Privacy budget",
        "x_label": "synthetic set",
        "y_label": "epsilon",
        "series": [{"name": "each", "x": sets, "y": [1, 0.1, 0.5]}, {"name": "total", "x": ["total"], "y": [1.6]}],
    }
    svg = str(render_chart(spec))
    spans = re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg)
    assert spans == ["nonprivate", "adult-teaching-", "2025[1]", "adult-research-", "2026-q1[1]", "total"]
    assert "…" not in svg


def test_a_chart_with_nothing_to_draw_is_left_out():
    from policycheck.report.charts import is_empty

    copies = {"kind": "bar", "series": [{"name": "training", "x": ["a", "b"], "y": [0.0, 0.0]}]}
    assert is_empty(copies)
    assert not is_empty({**copies, "reference_lines": [{"value": 0.01}]})
    assert not is_empty({"kind": "bar", "series": [{"name": "t", "x": ["a"], "y": [0.002]}]})
