"""The methods section: per metric a report used, its definition, source and conventions against peers.

The text is registered with each metric (registry.Method in policycheck/metrics/<family>.py) and the
effects come from policycheck/metrics/convention_effects.json, so adding a metric edits neither the
compiler nor the renderers.
"""

import dataclasses
import json
from pathlib import Path

from policycheck.metrics.registry import Convention, Method, convention_effects, get_metric
from policycheck.report.build import methods_of
from policycheck.report.render import render_html, render_markdown

SAMPLE = Path(__file__).resolve().parents[2] / "reports" / "demo" / "nonprivate" / "report.json"


def sample() -> dict:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


def test_the_report_holds_the_method_of_each_metric_it_used_once_in_rule_order():
    report = sample()
    used = list(dict.fromkeys(r["metric"] for r in report["rules"]))
    assert [m["metric"] for m in report["methods"]] == used
    mi = next(m for m in report["methods"] if m["metric"] == "mi_risk")
    assert mi["source"] == "paper 002, sec. 4"
    sure = next(c for c in mi["conventions"] if c["topic"] == "all of SURE's conventions")
    # the "0.11 vs 0.86 on a bootstrap release": on the demo's bootstrap copy, 0.12 (SURE's) against 0.8688
    assert sure["effect"]["demo"][0] == {"release": "nonprivate", "ours": 0.8688, "theirs": 0.12}


def test_html_shows_the_methods_at_the_end_with_each_effect_on_the_demo():
    page = render_html(sample())
    section = page.split('<section id="methods">', 1)[1]
    assert page.index('id="provenance"') < page.index('id="methods"')
    # the paper by name, and the demo's effect shown on the demo release it was measured on
    assert "Clearbox AI, Privacy evaluation [002], sec. 4" in section and "0.8688 / 0.12" in section
    assert "singling_out_risk" not in section  # a metric the report did not use


def test_markdown_shows_the_methods_in_a_collapsed_block():
    text = render_markdown(sample())
    block = text.split("<details><summary>Methods", 1)[1]
    assert (
        "| `mi_risk` | (mean precision - 0.5) x 2" in block
        and "| 0.8688 / 0.12 |" in block
        and "-0.0252 / 0.0152" not in block  # the other demo release's effect is not this release's
    )


def test_a_new_metric_brings_its_method_without_touching_the_renderer(toy_metric):
    key = "mi_risk/sure"
    spec = dataclasses.replace(
        toy_metric,
        method=Method(
            definition="Share of synthetic rows holding a value.",
            source="a toy paper, sec. 1",
            conventions=(
                Convention(topic="rounding", peer="toy peer 1.0", theirs="rounds", ours="does not", effect=key),
            ),
        ),
    )
    (entry,) = methods_of([spec, spec])
    assert (
        entry["metric"] == "toy_share"
        and entry["conventions"][0]["effect"]["demo"][0]["theirs"]
        == convention_effects()[key]["demo"]["nonprivate"]["theirs"]
    )
    report = sample()
    report["methods"] = [entry]
    assert "a toy paper, sec. 1" in render_html(report) and "a toy paper, sec. 1" in render_markdown(report)


def test_a_report_without_methods_renders_without_the_section():
    report = sample()
    del report["methods"]  # reports written before schema 1.3
    assert 'id="methods"' not in render_html(report) and "<summary>Methods" not in render_markdown(report)


def test_every_convention_names_its_peer_and_both_sides():
    for name in ("dcr_share", "mi_risk", "exact_copy_share", "inference_risk"):
        for c in get_metric(name).method.conventions:
            assert c.peer and c.theirs and c.ours, (name, c.topic)
