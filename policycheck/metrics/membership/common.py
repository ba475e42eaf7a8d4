"""What the membership family's release-level rules share: references, registration defaults, the peer's name."""

from __future__ import annotations

from functools import partial
from typing import Any

from policycheck.metrics.membership.gower_dcr import dcr_needs
from policycheck.metrics.registry import metric
from policycheck.release.model import Release

REFERENCES = (
    "Clearbox AI, Privacy evaluation (Clearbox Synthetic Kit documentation): distance to closest record, "
    "DCR share and membership inference test, with Gower's distance (paper 002).",
)

#: Paper 002's own implementation, the peer our conventions are set against (peer survey sec. 2.3, 6.6).
SURE = "SURE (clearbox-sure 0.2.16)"

# The release-level rules share their data, the DCRs they read and the value range.
membership_metric = partial(
    metric,
    family="membership",
    inputs={"original", "holdout", "synthetic"},
    value_range=(0.0, 1.0),
    column_params=("columns",),
    needs=dcr_needs,
    references=REFERENCES,
    release_level_membership=True,
)


def columns_used(params: Any, release: Release) -> list[str]:
    """The release's columns a rule's ``columns`` param keeps (all when it names none), in release order."""
    return [c for c in release.columns if not params.columns or c in params.columns]
