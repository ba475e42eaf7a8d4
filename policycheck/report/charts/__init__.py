"""Chart specs (see MetricResult) to inline SVG, with no plotting dependency.

Every label and value from the data is escaped: a column named ``<script>``
is drawn as text, never run. Charts carry no ids, scripts or external
references, so any number of them can sit on one self-contained page.

Text widths are estimated (about 0.6 em per character), which is enough to
keep labels apart and inside the drawing without a font engine.

One module per concern: :mod:`.figure` turns a spec into a ``<figure>``
through the drawing of its kind (:mod:`.xy`, :mod:`.histogram`,
:mod:`.heatmap`) on :mod:`.axes`, with the words of :mod:`.words`;
:mod:`.gauge` draws a rule's value against its levels.
"""

from policycheck.report.charts.figure import is_empty, render_chart, render_table
from policycheck.report.charts.gauge import render_gauge

__all__ = ["is_empty", "render_chart", "render_gauge", "render_table"]
