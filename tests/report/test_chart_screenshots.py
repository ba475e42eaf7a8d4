"""One committed Chromium screenshot per chart kind (tests/report/screenshots/*.png), regenerated here.

Each chart of ``test_browser.CHART_KINDS`` (and the verdict gauge) is drawn alone at its natural
size (its SVG viewBox, in CSS pixels) with the report's own stylesheet, and screenshotted by
headless Chromium. The test checks that each screenshot is not blank and has the committed one's
size, so a chart whose layout changed (another height, a title on more lines) fails until a person
has looked at it again and refreshed the files:

    POLICYCHECK_REFRESH_SCREENSHOTS=1 .venv/bin/python -m pytest tests/report/test_chart_screenshots.py

then look at every tests/report/screenshots/*.png before committing them.
Marked ``browser`` like test_browser.py: skipped without chromium, except under CI.
"""

import math
import os
import re
import shutil
from pathlib import Path

import pytest
from test_browser import CHART_KINDS, _command, chromium_all, png_is_not_blank, png_size, render_html_css

from policycheck.report.charts import render_chart, render_gauge

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
#: A rule whose tiny thresholds once gave the gauge an unreadable scale (issue 15).
GAUGE_RULE = {
    "value": 0.0123,
    "interval": [0.0061, 0.0215],
    "value_range": [0.0, 1.0],
    "compared_value": 0.0215,
    "threshold": {"fail_above": 0.01, "warn_above": 0.001, "compare": "upper"},
}


def svg_of(kind: str) -> str:
    """The chart's SVG alone (its caption is text the report shows below it)."""
    drawn = str(render_gauge(GAUGE_RULE) if kind == "gauge" else render_chart(CHART_KINDS[kind]))
    return re.search(r"<svg.*</svg>", drawn, re.S).group(0)


#: Chromium leaves most of a page unpainted in windows below about 150 px high (a 134 px heat map came out
#: blank below its first row), so short charts are shot in a window this high, white below the chart.
MIN_HEIGHT = 200


def page_of(kind: str, folder: Path) -> tuple[Path, tuple[int, int]]:
    """A page holding the chart at its natural size, and the screenshot's size in pixels."""
    svg = svg_of(kind)
    _, _, width, height = (float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split())
    size = (math.ceil(width), math.ceil(height))
    page = folder / f"{kind}.html"
    page.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{kind}</title><style>{render_html_css()}"
        f"html, body {{ margin: 0; background: #fff; }} "
        f"svg {{ display: block; width: {size[0]}px; height: {size[1]}px; }}"
        f"</style></head><body>{svg}</body></html>",
        encoding="utf-8",
    )
    return page, (size[0], max(size[1], MIN_HEIGHT))


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> dict[str, tuple[Path, tuple[int, int]]]:
    folder = tmp_path_factory.mktemp("chart-screenshots")
    pages = {kind: page_of(kind, folder) for kind in ["gauge", *sorted(CHART_KINDS)]}
    shots = {kind: folder / f"{kind}.png" for kind in pages}
    runs = chromium_all(
        [
            _command(
                [f"--window-size={w},{h}", f"--screenshot={shots[kind]}", page.as_uri()], folder / f"profile-{kind}"
            )
            for kind, (page, (w, h)) in pages.items()
        ]
    )
    for (kind, shot), (_, _, log) in zip(shots.items(), runs, strict=True):
        assert shot.is_file(), f"{kind}: {log[-2000:]}"
    if os.environ.get("POLICYCHECK_REFRESH_SCREENSHOTS"):
        SCREENSHOTS.mkdir(exist_ok=True)
        for kind, shot in shots.items():
            shutil.copy(shot, SCREENSHOTS / shot.name)
    return {kind: (shots[kind], size) for kind, (_, size) in pages.items()}


@pytest.mark.parametrize("kind", ["gauge", *sorted(CHART_KINDS)])
def test_chart_screenshot_is_drawn_and_keeps_the_committed_size(kind, screenshots):
    shot, size = screenshots[kind]
    assert png_size(shot) == size and png_is_not_blank(shot)
    committed = SCREENSHOTS / f"{kind}.png"
    assert committed.is_file(), f"no committed screenshot of {kind}: refresh them (see this module's docstring)"
    assert png_size(committed) == png_size(shot), f"{kind} changed size: look at it, then refresh the screenshots"


def test_every_committed_screenshot_is_a_chart_kind_still_drawn():
    assert sorted(p.stem for p in SCREENSHOTS.glob("*.png")) == sorted(["gauge", *CHART_KINDS])
