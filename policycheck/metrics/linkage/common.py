"""What the linkage rules register alike: knowledge, inputs, needs, params check, references, conventions."""

from __future__ import annotations

from functools import partial

from policycheck.metrics.base import Knowledge
from policycheck.metrics.linkage.linkage_attack import linkage_needs
from policycheck.metrics.linkage.params import check_secret_orderable
from policycheck.metrics.registry import Convention, metric

FAMILY = "linkage"
REFERENCE = (
    "Ruiz, Muralidhar, Domingo-Ferrer: On the privacy guarantees of synthetic data: a reassessment "
    "from the maximum-knowledge attacker perspective (PSD 2018), secs. 3.1, 3.2 and 4"
)

# The methods section (registry.Method). No peer implements paper 000; where we differ is the baseline.
LINKAGE_BASELINE = Convention(
    topic="baseline",
    peer="paper 000, sec. 4 (Tables 3-4)",
    theirs="the raw share of original records the attack discloses",
    ours="minus what chance or the same attack on holdout records gives (baseline: auto; none gives the raw share)",
    effect="linkage_range_narrowing/baseline",
)
LINKAGE_MAPPING = Convention(
    topic="mapping",
    peer="paper 000, sec. 3.1",
    theirs="the attacker reverse-maps every set before linking",
    ours="the worse of reverse mapping and linking on the values as released (mappings: [reverse] for the paper's)",
    effect="linkage_range_narrowing/mapping",
)
LINKAGE_SOURCE = "paper 000, sec. 3.1 (reverse mapping), sec. 3.2 (rank-based linkage), sec. 4"

# The family's metrics differ only in name, params, details, meaning and remedy.
linkage_metric = partial(
    metric,
    family=FAMILY,
    knowledge={Knowledge.ORIGINAL, Knowledge.SYNTHETIC},
    inputs={"original", "synthetic"},
    optional_inputs={"holdout"},
    # The value is an excess over a baseline by default, so it may be negative.
    value_range=(-1.0, 1.0),
    column_params=("secret", "attributes"),
    needs=linkage_needs,
    holdout_baseline_needs_holdout=True,
    check=check_secret_orderable,
    references=(REFERENCE,),
)
