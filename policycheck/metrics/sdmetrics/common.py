"""What SDMetrics' measures share: references and registration defaults."""

from __future__ import annotations

from functools import partial

from policycheck.metrics.registry import metric

REFERENCES = (
    "SDMetrics 0.32 (DataCebo): DisclosureProtection and DCRBaselineProtection, single_table.privacy.",
    "M. Elliot: Final report on the disclosure risk associated with the synthetic data produced by the SYLLS "
    "team (2014); J. Taub, M. Elliot, M. Pampaka, D. Smith: Differential correct attribution probability for "
    "synthetic data: an exploration, PSD 2018.",
)

# Both SDMetrics scores are protections: higher is safer, so rules use fail_below.
sdmetrics_metric = partial(
    metric,
    family="sdmetrics",
    inputs={"original", "synthetic"},
    value_range=(0.0, 1.0),
    references=REFERENCES,
    fail_direction="below",
)
